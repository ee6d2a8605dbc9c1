/*
 * bench_w5.c — workload W5 of docs/BENCHMARKS.md: 10,000 write
 * transactions of one new Person each, durable commit each, against SQLite
 * (WAL, synchronous=FULL) and LMDB (default flags), interleaved per
 * repetition, each repetition on a fresh file.
 *
 * Person { id: int64 primary key, name: string, age: int, score: double };
 * object i (0-based): id = i + 1, name = "name-<i>", age = i % 100,
 * score = splitmix64(i ^ 0x5EED) mapped to [0, 1) (top 53 bits * 2^-53).
 *
 * OpenRealm runs twice. "ours" measures the storage core's path
 * (docs/BENCHMARKS.md, W5): the user root is a
 * HAS_REFS node of four B+trees of the test fixture (bptree.c, in
 * CEngine/tests/support: ids; refs to byte nodes holding the names; ages;
 * scores as the double's bits), and each commit appends one element to each
 * tree. "objects" goes through the object store as an application does:
 * one ce_object_create_with_values a commit, which the change history
 * records. "grouped" is the object store with group commit: 4 threads
 * share the Persons (thread t creates objects t, t + 4, ...), each commit
 * is ce_txn_commit_grouped and is acknowledged by ce_db_sync of its own
 * version (durable when it returns, as in the other systems), so that
 * commits made while a sync runs share the next one.
 *
 * Usage: bench_w5 [--count N] [--reps N] [--dir DIR] [--systems ours,objects,grouped,sqlite,lmdb] [--keep]
 * Build it in Release and run it under `chrt -f 1` (Benchmarks/run_w5.sh).
 */
#include "bench_common.h"
#include "cengine.h"
#include "bptree.h"
#include "db.h"
#include "node.h"
#include "os.h"

#include <lmdb.h>
#include <sqlite3.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The workload                                                              */
/* ------------------------------------------------------------------------ */

static int64_t double_bits(double value)
{
    int64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* What one repetition of one system measured. */
typedef struct run_result {
    double seconds;          /* wall time of the timed loop */
    double commits_per_second;
    double p50_us, p90_us, p99_us, max_us;
    uint64_t file_bytes;     /* bytes of the database file(s) afterwards */
    double syncs_per_commit; /* ours only: fdatasync + fsync calls per commit (counted) */
    double writes_per_commit; /* ours only: pwrite calls per commit */
    double grows_per_commit;  /* ours only: fallocate/ftruncate calls per commit */
    double kib_per_commit;    /* ours only: bytes handed to pwrite per commit, KiB */
    double sync_us_per_commit, write_us_per_commit; /* ours only: mean time in fdatasync/fsync, in pwrite */
    uint64_t free_extents;    /* ours only: free-list entries after the run (ce_db_verify) */
} run_result;

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t percentile_u64(const uint64_t *sorted, size_t count, double fraction)
{
    size_t rank = (size_t)(fraction * (double)count + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > count) rank = count;
    return sorted[rank - 1];
}

static void finish_result(run_result *result, uint64_t *latencies, size_t count, uint64_t loop_ns)
{
    qsort(latencies, count, sizeof *latencies, compare_u64);
    result->seconds = (double)loop_ns / 1e9;
    result->commits_per_second = (double)count / result->seconds;
    result->p50_us = (double)percentile_u64(latencies, count, 0.50) / 1e3;
    result->p90_us = (double)percentile_u64(latencies, count, 0.90) / 1e3;
    result->p99_us = (double)percentile_u64(latencies, count, 0.99) / 1e3;
    result->max_us = (double)latencies[count - 1] / 1e3;
}

/* ------------------------------------------------------------------------ */
/* OpenRealm (the storage core's path)                                       */
/* ------------------------------------------------------------------------ */

/* Counts (and times) the engine's system calls through the os table: an
 * indirect call the engine makes anyway; the wrappers add well under a
 * microsecond a commit. */
static _Atomic uint64_t os_sync_calls, os_sync_ns, os_write_calls, os_write_bytes, os_write_ns, os_grow_calls;
static int counting_fdatasync(int fd)
{
    os_sync_calls++;
    uint64_t t0 = now_ns();
    int result = os_default.fdatasync(fd);
    os_sync_ns += now_ns() - t0;
    return result;
}
static int counting_fsync(int fd)
{
    os_sync_calls++;
    uint64_t t0 = now_ns();
    int result = os_default.fsync(fd);
    os_sync_ns += now_ns() - t0;
    return result;
}
static ssize_t counting_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    os_write_calls++;
    os_write_bytes += length;
    uint64_t t0 = now_ns();
    ssize_t result = os_default.pwrite(fd, buffer, length, offset);
    os_write_ns += now_ns() - t0;
    return result;
}
static int counting_ftruncate(int fd, off_t length) { os_grow_calls++; return os_default.ftruncate(fd, length); }
static int counting_fallocate(int fd, off_t offset, off_t length)
{
    os_grow_calls++;
    return os_default.fallocate(fd, offset, length);
}
static os_methods counting_os;

enum { COL_ID, COL_NAME, COL_AGE, COL_SCORE, COL_COUNT };

/* The empty "table": a HAS_REFS root of four empty trees. */
static bool ours_create_schema(ce_txn *txn)
{
    space_state *space = db_txn_space(txn);
    space_ref root;
    if (!node_create(space, NODE_HAS_REFS, COL_COUNT, 0, &root)) return false;
    for (int column = 0; column < COL_COUNT; column++) {
        space_ref tree;
        if (!bptree_create(space, column == COL_NAME ? NODE_HAS_REFS : 0, &tree)) return false;
        if (!node_set(space, root, (size_t)column, (int64_t)tree)) return false;
    }
    return db_txn_set_root(txn, root);
}

static bool ours_read_columns(space_state *space, space_ref root, space_ref trees[COL_COUNT])
{
    node_view node;
    if (!node_read(space, root, &node)) return false;
    if (node.count != COL_COUNT || !(node.flags & NODE_HAS_REFS)) {
        fprintf(stderr, "OpenRealm: the user root is not the 4-column node this benchmark wrote\n");
        exit(1);
    }
    for (int column = 0; column < COL_COUNT; column++) trees[column] = (space_ref)node_get(&node, (size_t)column);
    return true;
}

/* Appends one Person: copy the root, append to the four trees, store the
 * trees' new roots in it, and make it the user root. */
static bool ours_append(ce_txn *txn, const person *p)
{
    space_state *space = db_txn_space(txn);
    space_ref root = db_txn_root(txn);
    if (!node_make_writable(space, &root)) return false;
    space_ref trees[COL_COUNT];
    if (!ours_read_columns(space, root, trees)) return false;
    space_ref name;
    if (!node_create_bytes(space, 0, p->name, p->name_length, &name)) return false;
    const int64_t values[COL_COUNT] = {p->id, (int64_t)name, p->age, double_bits(p->score)};
    for (int column = 0; column < COL_COUNT; column++) {
        space_ref tree = trees[column];
        if (!bptree_append(space, &tree, values[column])) return false;
        if (tree != trees[column] && !node_set(space, root, (size_t)column, (int64_t)tree)) return false;
    }
    return db_txn_set_root(txn, root);
}

/* Reads everything back (untimed): sizes, the first and last objects, and
 * the whole file through ce_db_verify. */
static void ours_verify(ce_db *db, size_t count, run_result *result)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "begin read (verification)");
    space_state *space = db_txn_space(txn);
    space_ref trees[COL_COUNT];
    ours_check(ours_read_columns(space, db_txn_root(txn), trees), "read the root (verification)");
    for (int column = 0; column < COL_COUNT; column++) {
        size_t size;
        ours_check(bptree_size(space, trees[column], &size), "bptree_size (verification)");
        if (size != count) {
            fprintf(stderr, "OpenRealm: column %d holds %zu values, expected %zu\n", column, size, count);
            exit(1);
        }
    }
    const size_t probes[2] = {0, count - 1};
    for (int k = 0; k < 2; k++) {
        size_t i = probes[k];
        person expected;
        person_make(i, &expected);
        int64_t id, name_ref, age, score;
        ours_check(bptree_get(space, trees[COL_ID], i, &id) && bptree_get(space, trees[COL_NAME], i, &name_ref) &&
                       bptree_get(space, trees[COL_AGE], i, &age) && bptree_get(space, trees[COL_SCORE], i, &score),
                   "bptree_get (verification)");
        node_view name;
        ours_check(node_read(space, (space_ref)name_ref, &name), "read a name (verification)");
        if (id != expected.id || age != expected.age || score != double_bits(expected.score) ||
            !(name.flags & NODE_BYTES) || name.count != expected.name_length ||
            memcmp(name.payload, expected.name, expected.name_length) != 0) {
            fprintf(stderr, "OpenRealm: object %zu read back wrong\n", i);
            exit(1);
        }
    }
    ce_txn_end(txn);
    ce_db_stats stats;
    ours_check(ce_db_verify(db, &stats), "ce_db_verify");
    result->free_extents = stats.free_extent_count;
}

/* One way of storing the Persons: the storage core's trees or the object
 * store. */
typedef struct ours_model {
    bool (*create_schema)(ce_txn *txn, void *state);
    bool (*append)(ce_txn *txn, void *state, const person *p);
    void (*verify)(ce_db *db, size_t count, run_result *result, void *state);
} ours_model;

static bool core_create_schema(ce_txn *txn, void *state) { (void)state; return ours_create_schema(txn); }
static bool core_append(ce_txn *txn, void *state, const person *p) { (void)state; return ours_append(txn, p); }
static void core_verify(ce_db *db, size_t count, run_result *result, void *state)
{
    (void)state;
    ours_verify(db, count, result);
}

/* The object store: Person with an int primary key, one
 * ce_object_create_with_values per commit (what an application does, and
 * what the change history records). */
typedef struct objects_state {
    ce_table_key table;
    ce_column_key id, name, age, score;
    size_t column_count;
} objects_state;

static bool objects_create_schema(ce_txn *txn, void *state)
{
    objects_state *s = state;
    const ce_property_info id = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    const ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    const ce_property_info age = {.name = "age", .type = CE_TYPE_INT};
    const ce_property_info score = {.name = "score", .type = CE_TYPE_DOUBLE};
    return ce_table_add(txn, "Person", &s->table) && ce_property_add(txn, s->table, &id, &s->id) &&
           ce_property_add(txn, s->table, &name, &s->name) && ce_property_add(txn, s->table, &age, &s->age) &&
           ce_property_add(txn, s->table, &score, &s->score) && ce_property_count(txn, s->table, &s->column_count) &&
           s->column_count == 4 && s->id < 4 && s->name < 4 && s->age < 4 && s->score < 4;
}

static bool objects_append(ce_txn *txn, void *state, const person *p)
{
    const objects_state *s = state;
    ce_value values[4];
    values[s->id] = (ce_value){.type = CE_TYPE_INT, .integer = p->id};
    values[s->name] = (ce_value){.type = CE_TYPE_STRING, .string = {p->name, p->name_length}};
    values[s->age] = (ce_value){.type = CE_TYPE_INT, .integer = p->age};
    values[s->score] = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = p->score};
    ce_object_key object;
    return ce_object_create_with_values(txn, s->table, values, s->column_count, &object);
}

static void objects_verify(ce_db *db, size_t count, run_result *result, void *state)
{
    const objects_state *s = state;
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "begin read (verification)");
    size_t stored;
    ours_check(ce_object_count(txn, s->table, &stored), "ce_object_count (verification)");
    if (stored != count) {
        fprintf(stderr, "OpenRealm: %zu objects, expected %zu\n", stored, count);
        exit(1);
    }
    const size_t probes[2] = {0, count - 1};
    for (int k = 0; k < 2; k++) {
        person expected;
        person_make(probes[k], &expected);
        ce_value key = {.type = CE_TYPE_INT, .integer = expected.id}, name, age, score;
        ce_object_key object;
        bool found;
        ours_check(ce_object_find_primary_key(txn, s->table, &key, &object, &found) && found &&
                       ce_object_get(txn, s->table, object, s->name, &name) &&
                       ce_object_get(txn, s->table, object, s->age, &age) &&
                       ce_object_get(txn, s->table, object, s->score, &score),
                   "read an object back (verification)");
        if (name.string.size != expected.name_length ||
            memcmp(name.string.data, expected.name, expected.name_length) != 0 || age.integer != expected.age ||
            score.double_value != expected.score) {
            fprintf(stderr, "OpenRealm: object %zu read back wrong\n", probes[k]);
            exit(1);
        }
    }
    ce_txn_end(txn);
    ce_db_stats stats;
    ours_check(ce_db_verify(db, &stats), "ce_db_verify");
    result->free_extents = stats.free_extent_count;
}

static void run_model(const ours_model *model, void *state, const char *dir, size_t count, uint64_t *latencies,
                      run_result *result)
{
    char *path = join_path(dir, "person.realm");
    ce_db_options options;
    ce_db_options_init(&options); /* durability full */
    ce_db *db;
    ours_check(ce_db_open(path, &options, &db), "ce_db_open");
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "begin write (schema)");
    ours_check(model->create_schema(txn, state), "create the schema");
    ours_check(ce_txn_commit(txn), "commit (schema)");

    const os_methods *saved = os_active;
    os_active = &counting_os;
    uint64_t syncs0 = os_sync_calls, writes0 = os_write_calls, bytes0 = os_write_bytes, grows0 = os_grow_calls;
    uint64_t sync_ns0 = os_sync_ns, write_ns0 = os_write_ns;
    uint64_t loop_start = now_ns();
    for (size_t i = 0; i < count; i++) {
        uint64_t t0 = now_ns();
        person p;
        person_make(i, &p);
        ours_check(ce_txn_begin_write(db, &txn), "ce_txn_begin_write");
        if (!model->append(txn, state, &p)) {
            ours_check(false, "append a Person");
        }
        ours_check(ce_txn_commit(txn), "ce_txn_commit");
        latencies[i] = now_ns() - t0;
    }
    uint64_t loop_ns = now_ns() - loop_start;
    result->syncs_per_commit = (double)(os_sync_calls - syncs0) / (double)count;
    result->writes_per_commit = (double)(os_write_calls - writes0) / (double)count;
    result->grows_per_commit = (double)(os_grow_calls - grows0) / (double)count;
    result->kib_per_commit = (double)(os_write_bytes - bytes0) / 1024.0 / (double)count;
    result->sync_us_per_commit = (double)(os_sync_ns - sync_ns0) / 1e3 / (double)count;
    result->write_us_per_commit = (double)(os_write_ns - write_ns0) / 1e3 / (double)count;
    os_active = saved;

    model->verify(db, count, result, state);
    ours_check(ce_db_close(db), "ce_db_close");
    finish_result(result, latencies, count, loop_ns);
    result->file_bytes = file_size_or_zero(path);
    free(path);
}

/* The grouped run: threads committing their share of the Persons, each
 * commit grouped and acknowledged by ce_db_sync of its version. */
enum { GROUPED_THREADS = 4 };

typedef struct grouped_worker {
    ce_db *db;
    objects_state *state;
    size_t first, count;
    uint64_t *latencies;
    pthread_t thread;
} grouped_worker;

static void *run_grouped_worker(void *argument)
{
    grouped_worker *w = argument;
    for (size_t i = w->first; i < w->count; i += GROUPED_THREADS) {
        uint64_t t0 = now_ns();
        person p;
        person_make(i, &p);
        ce_txn *txn;
        uint64_t version;
        ours_check(ce_txn_begin_write(w->db, &txn), "ce_txn_begin_write");
        ours_check(objects_append(txn, w->state, &p), "append a Person");
        ours_check(ce_txn_commit_grouped(txn, &version), "ce_txn_commit_grouped");
        ours_check(ce_db_sync(w->db, version), "ce_db_sync");
        w->latencies[i] = now_ns() - t0;
    }
    return NULL;
}

static void run_grouped(const char *dir, size_t count, uint64_t *latencies, run_result *result)
{
    objects_state state;
    char *path = join_path(dir, "person.realm");
    ce_db_options options;
    ce_db_options_init(&options); /* durability full */
    ce_db *db;
    ours_check(ce_db_open(path, &options, &db), "ce_db_open");
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "begin write (schema)");
    ours_check(objects_create_schema(txn, &state), "create the schema");
    ours_check(ce_txn_commit(txn), "commit (schema)");

    const os_methods *saved = os_active;
    os_active = &counting_os;
    uint64_t syncs0 = os_sync_calls, writes0 = os_write_calls, bytes0 = os_write_bytes, grows0 = os_grow_calls;
    uint64_t sync_ns0 = os_sync_ns, write_ns0 = os_write_ns;
    grouped_worker workers[GROUPED_THREADS];
    uint64_t loop_start = now_ns();
    for (size_t t = 0; t < GROUPED_THREADS; t++) {
        workers[t] = (grouped_worker){db, &state, t, count, latencies, 0};
        if (pthread_create(&workers[t].thread, NULL, run_grouped_worker, &workers[t]) != 0) {
            fprintf(stderr, "OpenRealm: pthread_create failed\n");
            exit(1);
        }
    }
    for (size_t t = 0; t < GROUPED_THREADS; t++) pthread_join(workers[t].thread, NULL);
    uint64_t loop_ns = now_ns() - loop_start;
    result->syncs_per_commit = (double)(os_sync_calls - syncs0) / (double)count;
    result->writes_per_commit = (double)(os_write_calls - writes0) / (double)count;
    result->grows_per_commit = (double)(os_grow_calls - grows0) / (double)count;
    result->kib_per_commit = (double)(os_write_bytes - bytes0) / 1024.0 / (double)count;
    /* Time in the calls of all threads, per commit (they overlap). */
    result->sync_us_per_commit = (double)(os_sync_ns - sync_ns0) / 1e3 / (double)count;
    result->write_us_per_commit = (double)(os_write_ns - write_ns0) / 1e3 / (double)count;
    os_active = saved;

    objects_verify(db, count, result, &state);
    ours_check(ce_db_close(db), "ce_db_close");
    finish_result(result, latencies, count, loop_ns);
    result->file_bytes = file_size_or_zero(path);
    free(path);
}

static void run_ours(const char *dir, size_t count, uint64_t *latencies, run_result *result)
{
    static const ours_model core = {core_create_schema, core_append, core_verify};
    run_model(&core, NULL, dir, count, latencies, result);
}

static void run_objects(const char *dir, size_t count, uint64_t *latencies, run_result *result)
{
    static const ours_model objects = {objects_create_schema, objects_append, objects_verify};
    objects_state state;
    run_model(&objects, &state, dir, count, latencies, result);
}

/* ------------------------------------------------------------------------ */
/* SQLite: WAL, synchronous=FULL, prepared INSERT, one transaction a Person   */
/* ------------------------------------------------------------------------ */

static void run_sqlite(const char *dir, size_t count, uint64_t *latencies, run_result *result)
{
    char *path = join_path(dir, "person.sqlite");
    sqlite3 *db = NULL;
    sqlite_check(db, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK, "open");

    sqlite3_stmt *mode;
    sqlite_check(db, sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &mode, NULL), SQLITE_OK, "journal_mode");
    sqlite_check(db, sqlite3_step(mode), SQLITE_ROW, "journal_mode");
    if (strcmp((const char *)sqlite3_column_text(mode, 0), "wal") != 0) {
        fprintf(stderr, "SQLite: journal_mode is %s, not wal\n", sqlite3_column_text(mode, 0));
        exit(1);
    }
    sqlite3_finalize(mode);
    sqlite_exec(db, "PRAGMA synchronous=FULL");
    sqlite_exec(db, "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, "
                    "score REAL NOT NULL)");

    sqlite3_stmt *begin, *commit, *insert;
    sqlite_check(db, sqlite3_prepare_v2(db, "BEGIN", -1, &begin, NULL), SQLITE_OK, "prepare BEGIN");
    sqlite_check(db, sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), SQLITE_OK, "prepare COMMIT");
    sqlite_check(db, sqlite3_prepare_v2(db, "INSERT INTO person (id, name, age, score) VALUES (?1, ?2, ?3, ?4)",
                                        -1, &insert, NULL),
                 SQLITE_OK, "prepare INSERT");

    uint64_t loop_start = now_ns();
    for (size_t i = 0; i < count; i++) {
        uint64_t t0 = now_ns();
        person p;
        person_make(i, &p);
        sqlite_step_reset(db, begin, "BEGIN");
        sqlite3_bind_int64(insert, 1, p.id);
        sqlite3_bind_text(insert, 2, p.name, (int)p.name_length, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 3, p.age);
        sqlite3_bind_double(insert, 4, p.score);
        sqlite_step_reset(db, insert, "INSERT");
        sqlite_step_reset(db, commit, "COMMIT");
        latencies[i] = now_ns() - t0;
    }
    uint64_t loop_ns = now_ns() - loop_start;

    /* Read back (untimed). */
    sqlite3_stmt *check;
    sqlite_check(db, sqlite3_prepare_v2(db, "SELECT count(*), max(id) FROM person", -1, &check, NULL), SQLITE_OK,
                 "prepare check");
    sqlite_check(db, sqlite3_step(check), SQLITE_ROW, "check");
    if ((size_t)sqlite3_column_int64(check, 0) != count || (size_t)sqlite3_column_int64(check, 1) != count) {
        fprintf(stderr, "SQLite: read back %lld rows\n", (long long)sqlite3_column_int64(check, 0));
        exit(1);
    }
    sqlite3_finalize(check);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_finalize(insert);

    finish_result(result, latencies, count, loop_ns);
    char *wal = join_path(dir, "person.sqlite-wal");
    result->file_bytes = file_size_or_zero(path) + file_size_or_zero(wal); /* before close checkpoints */
    free(wal);
    sqlite_check(db, sqlite3_close(db), SQLITE_OK, "close");
    free(path);
}

/* ------------------------------------------------------------------------ */
/* LMDB: default flags, key = id big-endian, value = a packed struct          */
/* ------------------------------------------------------------------------ */

static void run_lmdb(const char *dir, size_t count, uint64_t *latencies, run_result *result)
{
    MDB_env *env;
    lmdb_check(mdb_env_create(&env), "mdb_env_create");
    lmdb_check(mdb_env_set_mapsize(env, (size_t)1 << 30), "mdb_env_set_mapsize");
    lmdb_check(mdb_env_open(env, dir, 0, 0644), "mdb_env_open"); /* default flags: durable */
    MDB_txn *txn;
    MDB_dbi dbi;
    lmdb_check(mdb_txn_begin(env, NULL, 0, &txn), "mdb_txn_begin (open)");
    lmdb_check(mdb_dbi_open(txn, NULL, 0, &dbi), "mdb_dbi_open");
    lmdb_check(mdb_txn_commit(txn), "mdb_txn_commit (open)");

    uint8_t key_bytes[8], value_bytes[sizeof(lmdb_person) + 32];
    uint64_t loop_start = now_ns();
    for (size_t i = 0; i < count; i++) {
        uint64_t t0 = now_ns();
        person p;
        person_make(i, &p);
        lmdb_key(p.id, key_bytes);
        MDB_val key = {sizeof key_bytes, key_bytes};
        MDB_val value = {lmdb_pack(&p, value_bytes), value_bytes};
        lmdb_check(mdb_txn_begin(env, NULL, 0, &txn), "mdb_txn_begin");
        lmdb_check(mdb_put(txn, dbi, &key, &value, 0), "mdb_put");
        lmdb_check(mdb_txn_commit(txn), "mdb_txn_commit");
        latencies[i] = now_ns() - t0;
    }
    uint64_t loop_ns = now_ns() - loop_start;

    /* Read back (untimed). */
    MDB_stat stat;
    lmdb_check(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), "mdb_txn_begin (check)");
    lmdb_check(mdb_stat(txn, dbi, &stat), "mdb_stat");
    person last;
    person_make(count - 1, &last);
    lmdb_key(last.id, key_bytes);
    MDB_val key = {sizeof key_bytes, key_bytes}, value;
    lmdb_check(mdb_get(txn, dbi, &key, &value), "mdb_get (check)");
    lmdb_person stored;
    memcpy(&stored, value.mv_data, sizeof stored);
    if (stat.ms_entries != count || stored.id != last.id || stored.name_length != last.name_length ||
        memcmp((const uint8_t *)value.mv_data + sizeof stored, last.name, last.name_length) != 0) {
        fprintf(stderr, "LMDB: read back %zu entries or a wrong last object\n", (size_t)stat.ms_entries);
        exit(1);
    }
    mdb_txn_abort(txn);
    mdb_env_close(env);

    finish_result(result, latencies, count, loop_ns);
    char *data = join_path(dir, "data.mdb");
    result->file_bytes = file_size_or_zero(data);
    free(data);
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
/* ------------------------------------------------------------------------ */

enum { SYS_OURS, SYS_OBJECTS, SYS_GROUPED, SYS_SQLITE, SYS_LMDB, SYS_COUNT };
static const char *const SYSTEM_NAMES[SYS_COUNT] = {"ours", "objects", "grouped", "sqlite", "lmdb"};
static const char *const SYSTEM_TITLES[SYS_COUNT] = {
    "OpenRealm (storage core: 4 B+trees)", "OpenRealm (object store)",
    "OpenRealm (object store, group commit: 4 threads, each commit synced, syncs shared)",
    "SQLite WAL, synchronous=FULL", "LMDB default flags"};
typedef void (*run_function)(const char *dir, size_t count, uint64_t *latencies, run_result *result);
static const run_function RUNS[SYS_COUNT] = {run_ours, run_objects, run_grouped, run_sqlite, run_lmdb};

typedef struct summary {
    spread commits;
    double p50_median, p90_median, p99_median, max_median;
    double file_mib_median;
} summary;

static summary summarize(const run_result *results, size_t reps)
{
    double *values = malloc(reps * sizeof *values);
    summary s;
    for (size_t r = 0; r < reps; r++) values[r] = results[r].commits_per_second;
    s.commits = spread_of(values, reps);
    for (size_t r = 0; r < reps; r++) values[r] = results[r].p50_us;
    s.p50_median = median_of(values, reps);
    for (size_t r = 0; r < reps; r++) values[r] = results[r].p90_us;
    s.p90_median = median_of(values, reps);
    for (size_t r = 0; r < reps; r++) values[r] = results[r].p99_us;
    s.p99_median = median_of(values, reps);
    for (size_t r = 0; r < reps; r++) values[r] = results[r].max_us;
    s.max_median = median_of(values, reps);
    for (size_t r = 0; r < reps; r++) values[r] = (double)results[r].file_bytes / 1048576.0;
    s.file_mib_median = median_of(values, reps);
    free(values);
    return s;
}

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [--count N] [--reps N] [--dir DIR] [--systems ours,objects,grouped,sqlite,lmdb] [--keep]\n"
            "  --count N    Person objects, one durable commit each (default 10000)\n"
            "  --reps N     repetitions, systems interleaved in each (default 5)\n"
            "  --dir DIR    where the fresh files go (default: a temp dir on the same file\n"
            "               system as /work, never tmpfs)\n"
            "  --systems L  a comma-separated subset, in run order (default ours,objects,grouped,sqlite,lmdb)\n"
            "  --keep       keep the files (for inspection) instead of removing them\n",
            program);
    exit(2);
}

int main(int argc, char **argv)
{
    size_t count = 10000, reps = 5;
    const char *base_dir = NULL;
    bool keep = false;
    int order[SYS_COUNT] = {SYS_OURS, SYS_OBJECTS, SYS_GROUPED, SYS_SQLITE, SYS_LMDB};
    int system_count = SYS_COUNT;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--count") == 0 && a + 1 < argc) {
            count = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
            reps = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--dir") == 0 && a + 1 < argc) {
            base_dir = argv[++a];
        } else if (strcmp(argv[a], "--keep") == 0) {
            keep = true;
        } else if (strcmp(argv[a], "--systems") == 0 && a + 1 < argc) {
            char *list = strdup(argv[++a]);
            system_count = 0;
            for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
                int found = -1;
                for (int s = 0; s < SYS_COUNT; s++)
                    if (strcmp(name, SYSTEM_NAMES[s]) == 0) found = s;
                if (found < 0 || system_count == SYS_COUNT) usage(argv[0]);
                order[system_count++] = found;
            }
            free(list);
            if (system_count == 0) usage(argv[0]);
        } else {
            usage(argv[0]);
        }
    }
    if (count == 0 || reps == 0) usage(argv[0]);

    counting_os = os_default;
    counting_os.fdatasync = counting_fdatasync;
    counting_os.fsync = counting_fsync;
    counting_os.pwrite = counting_pwrite;
    counting_os.ftruncate = counting_ftruncate;
    counting_os.fallocate = counting_fallocate;

    char *run_dir = make_run_dir(base_dir, "w5");

    printf("W5: %zu write transactions of one new Person each, durable commit each; %zu repetitions,\n", count, reps);
    printf("    systems interleaved in each repetition, each on a fresh file\n");
    print_run_header(run_dir, "fsync figures are noisier");
    printf("peers:       SQLite %s, %s\n", sqlite3_libversion(), mdb_version(NULL, NULL, NULL));
    printf("engine:      OpenRealm %s, storage core's path (a HAS_REFS root of 4 B+trees: ids, name refs,\n"
           "             ages, score bits; one append to each a commit), not the object store\n",
           ce_engine_version());
    printf("\n");
    fflush(stdout);

    uint64_t *latencies = malloc(count * sizeof *latencies);
    run_result *results = calloc(reps * SYS_COUNT, sizeof *results);
    if (!latencies || !results) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    printf("%-4s %-7s %12s %10s %10s %10s %10s %10s\n", "rep", "system", "commits/s", "p50 us", "p90 us", "p99 us",
           "max us", "file MiB");
    for (size_t r = 0; r < reps; r++) {
        for (int k = 0; k < system_count; k++) {
            int s = order[k];
            char *dir = make_rep_dir(run_dir, r + 1, SYSTEM_NAMES[s]);
            run_result *result = &results[(size_t)s * reps + r];
            RUNS[s](dir, count, latencies, result);
            end_rep_dir(dir, keep);
            printf("%-4zu %-7s %12.0f %10.1f %10.1f %10.1f %10.1f %10.2f", r + 1, SYSTEM_NAMES[s],
                   result->commits_per_second, result->p50_us, result->p90_us, result->p99_us, result->max_us,
                   (double)result->file_bytes / 1048576.0);
            if (s == SYS_OURS || s == SYS_OBJECTS || s == SYS_GROUPED)
                printf("   (a commit: %.3f fsyncs taking %.0f us, %.2f pwrites of %.1f KiB taking %.0f us, %.4f grows; "
                       "%" PRIu64 " free extents at the end)",
                       result->syncs_per_commit, result->sync_us_per_commit, result->writes_per_commit,
                       result->kib_per_commit, result->write_us_per_commit, result->grows_per_commit,
                       result->free_extents);
            printf("\n");
            fflush(stdout);
        }
    }
    end_run_dir(run_dir, keep);

    summary sums[SYS_COUNT];
    bool ran[SYS_COUNT] = {false};
    for (int k = 0; k < system_count; k++) {
        ran[order[k]] = true;
        sums[order[k]] = summarize(&results[(size_t)order[k] * reps], reps);
    }
    printf("\nSummary (median over %zu repetitions; spread = min-max of the repetitions):\n\n", reps);
    printf("| system | commits/s median | commits/s spread | median µs/commit | p90 µs | p99 µs | max µs | file MiB |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < system_count; k++) {
        int s = order[k];
        const summary *m = &sums[s];
        printf("| %s | %.0f | %.0f–%.0f | %.1f | %.1f | %.1f | %.0f | %.2f |\n", SYSTEM_TITLES[s], m->commits.median,
               m->commits.min, m->commits.max, m->p50_median, m->p90_median, m->p99_median, m->max_median,
               m->file_mib_median);
    }
    for (int ours = SYS_OURS; ours <= SYS_GROUPED; ours++) {
        if (!ran[ours]) continue;
        double syncs = 0, writes = 0, kib = 0, sync_us = 0, write_us = 0, mean_us = 0;
        for (size_t r = 0; r < reps; r++) {
            const run_result *o = &results[(size_t)ours * reps + r];
            syncs += o->syncs_per_commit;
            writes += o->writes_per_commit;
            kib += o->kib_per_commit;
            sync_us += o->sync_us_per_commit;
            write_us += o->write_us_per_commit;
            mean_us += 1e6 / o->commits_per_second;
        }
        double n = (double)reps;
        printf("\n%s, a commit (mean over all repetitions, counted and timed through the os table):\n"
               "  %.3f fsync-type calls (fdatasync + fsync), %.2f pwrite calls of %.1f KiB in all\n"
               "  %.1f µs in all: %.1f µs in fdatasync/fsync, %.1f µs in pwrite, %.1f µs elsewhere (engine CPU,\n"
               "  begin/commit bookkeeping, building the Person)\n",
               SYSTEM_TITLES[ours], syncs / n, writes / n, kib / n, mean_us / n, sync_us / n, write_us / n,
               (mean_us - sync_us - write_us) / n);
    }
    for (int ours = SYS_OURS; ours <= SYS_GROUPED; ours++) {
        for (int peer = SYS_SQLITE; peer <= SYS_LMDB; peer++) {
            if (!ran[ours] || !ran[peer]) continue;
            double *paired = malloc(reps * sizeof *paired);
            for (size_t r = 0; r < reps; r++)
                paired[r] = results[(size_t)ours * reps + r].commits_per_second /
                            results[(size_t)peer * reps + r].commits_per_second;
            spread ratio = spread_of(paired, reps);
            printf("ratio %s/%s (commits/s): %.2f (of the medians); per repetition %.2f–%.2f (median %.2f)\n",
                   SYSTEM_NAMES[ours], SYSTEM_NAMES[peer], sums[ours].commits.median / sums[peer].commits.median,
                   ratio.min, ratio.max, ratio.median);
            printf("ratio %s/%s (median µs a commit): %.2f\n", SYSTEM_NAMES[ours], SYSTEM_NAMES[peer],
                   sums[ours].p50_median / sums[peer].p50_median);
            free(paired);
        }
        if (ran[ours] && ran[SYS_SQLITE])
            printf("target: W5 commits/s of %s >= SQLite WAL's: %s\n", SYSTEM_NAMES[ours],
                   sums[ours].commits.median >= sums[SYS_SQLITE].commits.median ? "met" : "NOT met");
    }
    if (ran[SYS_GROUPED] && ran[SYS_SQLITE])
        printf("target: W5 commits/s of grouped >= 5x SQLite WAL's (issue 15): %s (%.2fx)\n",
               sums[SYS_GROUPED].commits.median >= 5 * sums[SYS_SQLITE].commits.median ? "met" : "NOT met",
               sums[SYS_GROUPED].commits.median / sums[SYS_SQLITE].commits.median);
    free(latencies);
    free(results);
    free(run_dir);
    return 0;
}
