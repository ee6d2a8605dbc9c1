/*
 * test_pin.c — ce_txn_begin_read_at: a version that a live read transaction
 * pins can be read by another transaction (on another thread), which keeps it
 * pinned after the first one ends, through newer commits that reuse free
 * space; a version nobody pins is refused with a clear error. Run plain and
 * encrypted.
 */
#include "test_support.h"
#include "bptree.h"
#include "db.h"

#include <pthread.h>

enum { VALUES = 4000, BIG = 80000, COMMITS = 20 };

static void expect_values(ce_txn *txn, int64_t base)
{
    CHECK(test_list_size(txn) == VALUES);
    for (size_t i = 0; i < VALUES; i++) CHECK(test_list_get(txn, i) == base + (int64_t)i);
}

/* Rewrites every value: each commit frees the nodes of the previous one. */
static void rewrite(ce_db *db, int64_t base)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t i = 0; i < VALUES; i++) test_list_set(txn, i, base + (int64_t)i);
    CHECK(ce_txn_commit(txn));
}

typedef struct reader_args {
    ce_db *db;
    uint64_t version;
    ce_txn *txn; /* out: begun on the thread, ended by the main thread */
} reader_args;

static void *begin_on_thread(void *context)
{
    reader_args *args = context;
    CHECK(ce_txn_begin_read_at(args->db, args->version, &args->txn));
    CHECK(ce_txn_version(args->txn) == args->version);
    expect_values(args->txn, 1000);
    return NULL;
}

TEST(pinned_version_stays_readable)
{
    char *dir = test_make_dir("pin");
    char *path = test_path(dir, "pin.realm");
    ce_db *db = test_open(path);
    /* A big list, then a small one instead: the version pinned below comes
     * with a lot of free space (freed by itself), which later commits reuse. */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t i = 0; i < BIG; i++) test_list_append(txn, -(int64_t)i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(bptree_destroy(db_txn_space(txn), db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, 0));
    for (size_t i = 0; i < VALUES; i++) test_list_append(txn, 1000 + (int64_t)i);
    CHECK(ce_txn_commit(txn));
    ce_db_stats at_pin;
    CHECK(ce_db_verify(db, &at_pin));
    CHECK(at_pin.free_bytes > (uint64_t)BIG * 4);

    ce_txn *pin;
    CHECK(ce_txn_begin_read(db, &pin));
    uint64_t version = ce_txn_version(pin);

    /* Another thread begins its own transaction at the pinned version. */
    reader_args args = {db, version, NULL};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, begin_on_thread, &args) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(args.txn != NULL);

    /* The first pin ends: the new transaction alone keeps the version. */
    ce_txn_end(pin);
    for (int commit = 0; commit < COMMITS; commit++) {
        rewrite(db, 100000 * (commit + 1));
        expect_values(args.txn, 1000);
    }
    /* Every commit took its space from the free list (without reuse the file
     * would have grown by a copy of the list, ~32 KiB, per commit)
     * while the pinned version's nodes stayed intact. */
    ce_db_stats stats;
    CHECK(ce_db_verify(db, &stats));
    CHECK(stats.logical_size <= at_pin.logical_size);
    CHECK(stats.active_versions == 2);
    expect_values(args.txn, 1000);
    /* A third transaction at the version, pinned now by args.txn alone. */
    ce_txn *again;
    CHECK(ce_txn_begin_read_at(db, version, &again));
    expect_values(again, 1000);
    ce_txn_end(args.txn);
    expect_values(again, 1000);
    ce_txn_end(again);

    /* Nobody pins it any more: refused, with the version in the message. */
    ce_txn *refused = NULL;
    CHECK(!ce_txn_begin_read_at(db, version, &refused));
    CHECK(refused == NULL);
    CHECK(ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    char expected[64];
    snprintf(expected, sizeof expected, "at version %llu", (unsigned long long)version);
    CHECK(strstr(ce_last_error_message(), expected) != NULL);
    CHECK(strstr(ce_last_error_message(), "no live read transaction") != NULL);

    /* A version never committed, and a write transaction's version, do not count. */
    CHECK(!ce_txn_begin_read_at(db, 999999, &refused));
    CHECK(ce_txn_begin_write(db, &txn));
    uint64_t write_version = ce_txn_version(txn);
    CHECK(!ce_txn_begin_read_at(db, write_version, &refused));
    ce_txn_end(txn);

    /* After an advance, the transaction pins its new version, not the old one. */
    CHECK(ce_txn_begin_read(db, &pin));
    uint64_t old = ce_txn_version(pin);
    rewrite(db, 7);
    CHECK(ce_txn_advance(pin));
    CHECK(!ce_txn_begin_read_at(db, old, &refused));
    CHECK(ce_txn_begin_read_at(db, ce_txn_version(pin), &again));
    expect_values(again, 7);
    ce_txn_end(again);
    ce_txn_end(pin);

    CHECK(!ce_txn_begin_read_at(NULL, 1, &refused) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    test_verify(db);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}
