/*
 * test_heap.c — a write transaction's dirty-node buffers once it ends
 * (space_release): one that allocated at least space_return_heap_bytes of
 * them gives the heap's free memory back to the system, whether it
 * committed or rolled back; a smaller one leaves that memory to the
 * allocator, for the next transaction's nodes; and the count of bytes
 * allocated follows a node's growth as well as its creation.
 *
 * The buffers are 16 KiB each (below glibc's mmap threshold: they come from
 * the heap), each followed by a small block the test keeps until after the
 * transaction: the freed buffers then cannot merge into the heap's top,
 * which free() alone would give back, so only space_release's return of
 * the heap makes the resident size drop.
 */
#include "test_support.h"
#include "node.h"

#include <stdio.h>

#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADDRESS_SANITIZER 1
#endif
#endif
#ifndef ADDRESS_SANITIZER
#define ADDRESS_SANITIZER 0
#endif

/* The resident size is read from /proc, and only glibc's heap is given
 * back (space.c: malloc_trim); AddressSanitizer's allocator replaces it. */
#if defined(__linux__) && defined(__GLIBC__) && !ADDRESS_SANITIZER
#define MEASURES_RESIDENT 1
#else
#define MEASURES_RESIDENT 0
#endif

enum { BUFFER_BYTES = 16384, BUFFERS = 2048 }; /* 32 MiB */

#define MIB (UINT64_C(1) << 20)

/* Bytes of the process resident in memory now (0 where not measured). */
static uint64_t resident_bytes(void)
{
#if MEASURES_RESIDENT
    FILE *file = fopen("/proc/self/statm", "r");
    CHECK(file != NULL);
    unsigned long long size = 0, resident = 0;
    CHECK(fscanf(file, "%llu %llu", &size, &resident) == 2);
    fclose(file);
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
#else
    return 0;
#endif
}

/* Creates BUFFERS dirty nodes of BUFFER_BYTES in a new write transaction,
 * each followed by a block kept in `pins` (freed by the caller after the
 * transaction). */
static ce_txn *transaction_with_buffers(ce_db *db, void **pins)
{
    static uint8_t bytes[BUFFER_BYTES - NODE_HEADER_SIZE];
    memset(bytes, 0x5A, sizeof bytes);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    for (size_t i = 0; i < BUFFERS; i++) {
        space_ref ref;
        CHECK(node_create_bytes(space, 0, bytes, sizeof bytes, &ref));
        pins[i] = malloc(64);
        CHECK(pins[i] != NULL);
    }
    CHECK(space->dirty_allocated >= (uint64_t)BUFFERS * (BUFFER_BYTES - NODE_HEADER_SIZE));
    return txn;
}

static void free_pins(void **pins)
{
    for (size_t i = 0; i < BUFFERS; i++) free(pins[i]);
}

/* The resident size dropped by at least 3/4 of the buffers when `returns`,
 * and by less than 1/4 of them otherwise. */
static void check_resident(uint64_t before, uint64_t after, bool returns)
{
    uint64_t buffers = (uint64_t)BUFFERS * BUFFER_BYTES;
    uint64_t dropped = before > after ? before - after : 0;
    if (!MEASURES_RESIDENT) return;
    if (returns) CHECK(dropped >= buffers / 4 * 3);
    else CHECK(dropped < buffers / 4);
}

TEST(large_rollback_returns_heap)
{
    test_db t = test_db_open("heap");
    uint64_t saved = space_return_heap_bytes;
    space_return_heap_bytes = 16 * MIB;
    void **pins = malloc(BUFFERS * sizeof *pins);
    CHECK(pins != NULL);
    ce_txn *txn = transaction_with_buffers(t.db, pins);
    uint64_t before = resident_bytes();
    ce_txn_end(txn); /* a rollback */
    check_resident(before, resident_bytes(), true);
    free_pins(pins);
    free(pins);
    space_return_heap_bytes = saved;
    test_db_close(&t);
}

TEST(large_commit_returns_heap)
{
    test_db t = test_db_open("heap");
    uint64_t saved = space_return_heap_bytes;
    space_return_heap_bytes = 16 * MIB;
    void **pins = malloc(BUFFERS * sizeof *pins);
    CHECK(pins != NULL);
    ce_txn *txn = transaction_with_buffers(t.db, pins);
    uint64_t before = resident_bytes();
    /* The nodes are in no tree: the commit writes none of them, and its
     * end frees them with the rest. */
    CHECK(ce_txn_commit(txn));
    check_resident(before, resident_bytes(), true);
    free_pins(pins);
    free(pins);
    space_return_heap_bytes = saved;
    test_db_close(&t);
}

TEST(small_transaction_keeps_heap)
{
    test_db t = test_db_open("heap");
    CHECK(space_return_heap_bytes == SPACE_RETURN_HEAP_BYTES);
    CHECK((uint64_t)BUFFERS * BUFFER_BYTES < SPACE_RETURN_HEAP_BYTES);
    void **pins = malloc(BUFFERS * sizeof *pins);
    CHECK(pins != NULL);
    ce_txn *txn = transaction_with_buffers(t.db, pins);
    uint64_t before = resident_bytes();
    ce_txn_end(txn);
    check_resident(before, resident_bytes(), false);
    free_pins(pins);
    free(pins);
    test_db_close(&t);
}

TEST(growth_is_counted)
{
    test_db t = test_db_open("heap");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    space_state *space = db_txn_space(txn);
    CHECK(space->dirty_allocated == 0);
    space_ref ref;
    CHECK(node_create(space, 0, 0, 0, &ref));
    uint64_t created = space->dirty_allocated;
    CHECK(created > 0);
    /* 64-bit elements: the buffer grows (doubling) to at least 800 KB. */
    for (int64_t i = 0; i < 100000; i++) CHECK(node_append(space, ref, INT64_MAX - i));
    size_t capacity = space->dirty[temporary_index(ref)].capacity;
    CHECK(capacity >= 100000 * 8);
    /* Every capacity the node had is counted (it only grew). */
    CHECK(space->dirty_allocated >= capacity);
    CHECK(space->dirty_allocated > created);
    ce_txn_end(txn);
    /* The next transaction starts counting afresh. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(db_txn_space(txn)->dirty_allocated == 0);
    ce_txn_end(txn);
    test_db_close(&t);
}
