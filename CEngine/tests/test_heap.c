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
#include "arena.h"
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

/* --- the arena (storage/arena.h) --- */

TEST(arena_serves_past_threshold)
{
    test_db t = test_db_open("heap");
    uint64_t saved = space_arena_bytes;
    space_arena_bytes = 4096;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    space_state *space = db_txn_space(txn);
    static uint8_t bytes[2000];
    enum { NODES = 10000 }; /* about 20 MB: three chunks */
    space_ref *refs = malloc(NODES * sizeof *refs);
    CHECK(refs != NULL);
    for (size_t i = 0; i < NODES; i++) {
        memset(bytes, (int)(i & 0xFF), sizeof bytes);
        CHECK(node_create_bytes(space, 0, bytes, sizeof bytes, &refs[i]));
        /* Below the threshold from malloc, past it from the arena. */
        CHECK(space->dirty[temporary_index(refs[i])].in_arena == (i >= 3));
    }
    CHECK(space->arena != NULL);
    size_t chunks = arena_mapped_chunks(space->arena);
    CHECK(chunks >= 3);
    CHECK(arena_live_bytes(space->arena) >= (NODES - 3) * sizeof bytes);
    /* Every buffer holds its own bytes (none overlaps another). */
    for (size_t i = 0; i < NODES; i++) {
        node_view node;
        CHECK(node_read(space, refs[i], &node));
        CHECK(node.count == sizeof bytes && node.payload[0] == (uint8_t)(i & 0xFF) &&
              node.payload[sizeof bytes - 1] == (uint8_t)(i & 0xFF));
    }
    /* Freeing the first half gives their chunks back (not the current one). */
    for (size_t i = 0; i < NODES / 2; i++) CHECK(node_free(space, refs[i]));
    CHECK(arena_mapped_chunks(space->arena) < chunks);
    CHECK(arena_freed_bytes(space->arena) >= (NODES / 2 - 3) * sizeof bytes);
    for (size_t i = NODES / 2; i < NODES; i++) {
        node_view node;
        CHECK(node_read(space, refs[i], &node));
        CHECK(node.payload[100] == (uint8_t)(i & 0xFF));
    }
    ce_txn_end(txn);
    free(refs);
    space_arena_bytes = saved;
    test_db_close(&t);
}

TEST(arena_growth_moves_to_malloc)
{
    test_db t = test_db_open("heap");
    uint64_t saved = space_arena_bytes;
    space_arena_bytes = 0;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref ref;
    CHECK(node_create(space, 0, 0, 0, &ref));
    CHECK(space->dirty[temporary_index(ref)].in_arena);
    for (int64_t i = 0; i < 20000; i++) CHECK(node_append(space, ref, INT64_MAX - i));
    CHECK(!space->dirty[temporary_index(ref)].in_arena);
    node_view node;
    CHECK(node_read(space, ref, &node));
    CHECK(node.count == 20000);
    for (int64_t i = 0; i < 20000; i++) CHECK(node_get(&node, (size_t)i) == INT64_MAX - i);
    /* Its arena buffer was freed when it moved. */
    CHECK(arena_live_bytes(space->arena) == 0 && arena_freed_bytes(space->arena) > 0);
    CHECK(ce_txn_commit(txn));
    space_arena_bytes = saved;
    test_db_close(&t);
}

/* A transaction that creates and frees nodes over and over: the arena
 * never reuses freed bytes, so it declines once they outweigh the live
 * ones by a chunk, and malloc (which reuses them) serves the rest. */
TEST(arena_declines_after_churn)
{
    test_db t = test_db_open("heap");
    uint64_t saved = space_arena_bytes;
    space_arena_bytes = 0;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    space_state *space = db_txn_space(txn);
    static uint8_t bytes[16000];
    bool declined = false;
    for (int i = 0; i < 4000; i++) { /* 64 MB created and freed */
        space_ref ref;
        CHECK(node_create_bytes(space, 0, bytes, sizeof bytes, &ref));
        if (!space->dirty[temporary_index(ref)].in_arena) declined = true;
        CHECK(node_free(space, ref));
    }
    CHECK(declined);
    CHECK(arena_freed_bytes(space->arena) <= arena_live_bytes(space->arena) + (16u << 20));
    /* No chunk stays mapped for the freed buffers but the current one. */
    CHECK(arena_mapped_chunks(space->arena) == 1);
    ce_txn_end(txn);
    space_arena_bytes = saved;
    test_db_close(&t);
}

/* Objects created through the public API, their nodes in the arena:
 * committed and read back, and a second transaction rolled back. */
TEST(arena_objects_commit_and_rollback)
{
    test_db t = test_db_open("heap");
    uint64_t saved = space_arena_bytes;
    space_arena_bytes = 0;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key id_column, name_column;
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_add(txn, "Person", &table));
    const ce_property_info id = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    const ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    CHECK(ce_property_add(txn, table, &id, &id_column));
    CHECK(ce_property_add(txn, table, &name, &name_column));
    enum { OBJECTS = 100000 };
    char text[32];
    for (int i = 0; i < OBJECTS; i++) {
        int length = snprintf(text, sizeof text, "name-%d", i);
        ce_value values[2];
        values[id_column] = (ce_value){.type = CE_TYPE_INT, .integer = i + 1};
        values[name_column] = (ce_value){.type = CE_TYPE_STRING, .string = {text, (size_t)length}};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &object));
    }
    CHECK(db_txn_space(txn)->arena != NULL);
    CHECK(ce_txn_commit(txn));
    test_verify(t.db);
    /* A rollback of more objects leaves the committed ones as they were. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int i = OBJECTS; i < 2 * OBJECTS; i++) {
        ce_value values[2];
        values[id_column] = (ce_value){.type = CE_TYPE_INT, .integer = i + 1};
        values[name_column] = (ce_value){.type = CE_TYPE_STRING, .string = {"x", 1}};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &object));
    }
    ce_txn_end(txn);
    CHECK(ce_txn_begin_read(t.db, &txn));
    size_t count;
    CHECK(ce_object_count(txn, table, &count) && count == OBJECTS);
    for (int i = 0; i < OBJECTS; i += 997) {
        ce_value key = {.type = CE_TYPE_INT, .integer = i + 1}, value;
        ce_object_key object;
        bool found;
        CHECK(ce_object_find_primary_key(txn, table, &key, &object, &found) && found);
        CHECK(ce_object_get(txn, table, object, name_column, &value));
        int length = snprintf(text, sizeof text, "name-%d", i);
        CHECK(value.type == CE_TYPE_STRING && value.string.size == (size_t)length &&
              memcmp(value.string.data, text, (size_t)length) == 0);
    }
    ce_txn_end(txn);
    space_arena_bytes = saved;
    test_db_close(&t);
}

/* Buffers of two lanes, allocated in turn: freeing all of one lane gives
 * back every chunk of it but the current one, as the chunks hold no
 * buffer of the other lane. */
TEST(arena_lanes_keep_chunks_apart)
{
    arena_state *arena = arena_create();
    CHECK(arena != NULL);
    enum { BUFFERS_PER_LANE = 4096, SIZE = 6000 }; /* 24 MiB each: three chunks or more per lane */
    uint8_t **buffers[ARENA_LANES];
    for (unsigned lane = 0; lane < ARENA_LANES; lane++) {
        buffers[lane] = malloc(BUFFERS_PER_LANE * sizeof *buffers[lane]);
        CHECK(buffers[lane] != NULL);
    }
    for (size_t i = 0; i < BUFFERS_PER_LANE; i++)
        for (unsigned lane = 0; lane < ARENA_LANES; lane++) {
            buffers[lane][i] = arena_alloc(arena, SIZE, lane);
            CHECK(buffers[lane][i] != NULL);
            memset(buffers[lane][i], (int)(lane + 1), SIZE);
        }
    size_t mapped = arena_mapped_chunks(arena);
    CHECK(mapped >= 2 * 3);
    CHECK(arena_alloc(arena, SIZE, ARENA_LANES) == NULL); /* no such lane */
    for (size_t i = 0; i < BUFFERS_PER_LANE; i++) arena_free(arena, buffers[0][i], SIZE);
    /* Lane 1's chunks and lane 0's current one stay. */
    CHECK(arena_mapped_chunks(arena) <= mapped / 2 + 1);
    for (size_t i = 0; i < BUFFERS_PER_LANE; i++) CHECK(buffers[1][i][0] == 2 && buffers[1][i][SIZE - 1] == 2);
    for (size_t i = 0; i < BUFFERS_PER_LANE; i++) arena_free(arena, buffers[1][i], SIZE);
    CHECK(arena_mapped_chunks(arena) <= 2); /* the current chunk of each lane */
    CHECK(arena_live_bytes(arena) == 0);
    arena_release(arena);
    for (unsigned lane = 0; lane < ARENA_LANES; lane++) free(buffers[lane]);
}
