/*
 * bench_queries.c — W3 of docs/BENCHMARKS.md, an indexed equality
 * query and a sort of every object, through the query engine (cengine.h,
 * "Queries") against SQLite (WAL, synchronous=FULL), LMDB (default flags)
 * and the in-memory C-array bound, in one run.
 *
 * Person { id: int64 primary key, name: string, age: int, score: double };
 * object i (0-based): id = i + 1, name = "name-<i>", age = i % 100,
 * score = splitmix64(i ^ 0x5EED) mapped to [0, 1) (bench_common.c).
 *
 * Every system loads the objects once (untimed: one write transaction, a
 * durable commit; SQLite then checkpoints its WAL), then each repetition
 * runs, system after system (interleaved):
 *   W3   count where age >= 50 AND score < 0.5 (250,558 of 1M), --w3-runs
 *        times (default 20), the median is the figure. Ours: the predicate
 *        parsed once (ce_query_parse), ce_query_count each run; SQLite: a
 *        prepared SELECT count(*), stepped each run; LMDB: a cursor walk;
 *        arrays: a loop over an int64 age array and a double score array.
 *   W3i  an indexed equality, `id == x` for --lookups ids of a fixed random
 *        stream (splitmix64), each a new query counted: ours ce_query_parse
 *        ("id == $0") + ce_query_count + ce_query_free, through the primary
 *        key's index; SQLite SELECT count(*) ... WHERE id = ?1 prepared once
 *        (bind, step, reset), and "sqlite-prep": prepared for every query
 *        as ours parses; LMDB mdb_get; arrays: index id - 1. µs per query;
 *        the counts are summed and checked.
 *   W3s  every object sorted by score, ascending: ours
 *        ce_results_sort(TRUEPREDICATE, score) evaluated (ce_results_count)
 *        and its first and last object read; SQLite SELECT id FROM person
 *        ORDER BY score, every row stepped; LMDB a cursor walk into (score,
 *        id) pairs and qsort; arrays qsort of (score, id) pairs. ms, once
 *        per repetition; first and last ids are checked.
 *
 * --systems picks a subset (the scale runs: one system per process, so the
 * peak RSS printed last is that system's); --no-sort leaves W3s out. The
 * system "ours-nosum" (not in the default list) runs what "ours" runs on a
 * file of its own opened with ce_db_options.disable_page_checksums: the
 * cost of plain-file page checksums, as a ratio in the same run.
 *
 * Usage: bench_queries [--count N] [--reps N] [--w3-runs N] [--lookups N] [--dir DIR]
 *                      [--systems ours,sqlite,sqlite-prep,lmdb,array,ours-nosum] [--no-sort]
 * Build it in Release and run it under `chrt -f 1` (Benchmarks/run_queries.sh).
 */
#include "bench_common.h"
#include "cengine.h"

#include <lmdb.h>
#include <sqlite3.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define MAX_W3_RUNS 200

typedef struct config {
    size_t count, reps, w3_runs, lookups;
    bool sort;                 /* W3s runs (--no-sort: not) */
    size_t expected_w3;        /* age >= 50 AND score < 0.5 */
    size_t expected_lookups;   /* the number of W3i lookups that find their id (all) */
    int64_t first_id, last_id; /* the ids of the lowest and highest score */
} config;

/* W3i looks up ids of a stream of its own (not W2's). */
#define W3I_SALT 0xC0FFEEu

typedef struct result {
    double w3_ms, w3_min, w3_max; /* median of the runs, and their spread */
    double w3i_us;
    double w3s_ms;
} result;


static void w3_check(const char *system, const config *cfg, size_t count)
{
    if (count == cfg->expected_w3) return;
    fprintf(stderr, "%s: W3 counted %zu, expected %zu\n", system, count, cfg->expected_w3);
    exit(1);
}

static void w3i_check(const char *system, const config *cfg, size_t found)
{
    if (found == cfg->expected_lookups) return;
    fprintf(stderr, "%s: W3i found %zu of %zu ids\n", system, found, cfg->expected_lookups);
    exit(1);
}

static void w3s_check(const char *system, const config *cfg, int64_t first, int64_t last)
{
    if (first == cfg->first_id && last == cfg->last_id) return;
    fprintf(stderr, "%s: W3s sorted ids %" PRId64 " .. %" PRId64 ", expected %" PRId64 " .. %" PRId64 "\n", system, first,
            last, cfg->first_id, cfg->last_id);
    exit(1);
}

static void finish_w3(result *r, double *times, size_t runs)
{
    spread s = spread_of(times, runs);
    r->w3_ms = s.median;
    r->w3_min = s.min;
    r->w3_max = s.max;
}

typedef struct score_id {
    double score;
    int64_t id;
} score_id;

static int compare_score_id(const void *a, const void *b)
{
    const score_id *x = a, *y = b;
    return (x->score > y->score) - (x->score < y->score);
}

/* ------------------------------------------------------------------------ */
/* OpenRealm                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct ours {
    ce_db *db;
    ce_table_key table;
    char *path;
} ours;

static void ours_load(ours *o, const char *dir, const config *cfg, bool page_checksums)
{
    o->path = join_path(dir, page_checksums ? "person.realm" : "person-nosum.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    options.disable_page_checksums = !page_checksums;
    ours_check(ce_db_open(o->path, &options, &o->db), "ce_db_open");
    ce_txn *txn;
    ce_column_key column;
    ours_check(ce_txn_begin_write(o->db, &txn), "begin write");
    ours_check(ce_table_add(txn, "Person", &o->table), "ce_table_add");
    const ce_property_info properties[4] = {{.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false},
                                            {.name = "name", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = false},
                                            {.name = "age", .type = CE_TYPE_INT, .nullable = false, .primary_key = false, .indexed = false},
                                            {.name = "score", .type = CE_TYPE_DOUBLE, .nullable = false, .primary_key = false, .indexed = false}};
    for (int p = 0; p < 4; p++) ours_check(ce_property_add(txn, o->table, &properties[p], &column), "ce_property_add");
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        ce_value values[4] = {{.type = CE_TYPE_INT, .integer = p.id},
                              {.type = CE_TYPE_STRING, .string = {p.name, p.name_length}},
                              {.type = CE_TYPE_INT, .integer = p.age},
                              {.type = CE_TYPE_DOUBLE, .double_value = p.score}};
        ce_object_key key;
        ours_check(ce_object_create_with_values(txn, o->table, values, 4, &key), "ce_object_create_with_values");
    }
    ours_check(ce_txn_commit(txn), "commit");
}

static NOINLINE void ours_w3(ours *o, const config *cfg, result *r)
{
    double times[MAX_W3_RUNS];
    ce_txn *txn;
    ce_query *query;
    ours_check(ce_txn_begin_read(o->db, &txn), "W3 begin read");
    ours_check(ce_query_parse(txn, o->table, "age >= 50 AND score < 0.5", NULL, 0, &query), "W3 ce_query_parse");
    for (size_t run = 0; run < cfg->w3_runs; run++) {
        uint64_t t0 = now_ns();
        size_t count;
        ours_check(ce_query_count(query, txn, &count), "W3 ce_query_count");
        times[run] = (double)(now_ns() - t0) / 1e6;
        w3_check("OpenRealm", cfg, count);
    }
    ce_query_free(query);
    ce_txn_end(txn);
    finish_w3(r, times, cfg->w3_runs);
}

static NOINLINE void ours_w3i(ours *o, const config *cfg, result *r)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_read(o->db, &txn), "W3i begin read");
    size_t found = 0;
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < cfg->lookups; k++) {
        ce_query_argument id = {.kind = CE_QUERY_ARGUMENT_VALUE,
                                .value = {.type = CE_TYPE_INT, .integer = lookup_id(k, cfg->count, W3I_SALT)}};
        ce_query *query;
        size_t count;
        ours_check(ce_query_parse(txn, o->table, "id == $0", &id, 1, &query), "W3i ce_query_parse");
        ours_check(ce_query_count(query, txn, &count), "W3i ce_query_count");
        ce_query_free(query);
        found += count;
    }
    r->w3i_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
    ce_txn_end(txn);
    w3i_check("OpenRealm", cfg, found);
}

static NOINLINE void ours_w3s(ours *o, const config *cfg, result *r)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_read(o->db, &txn), "W3s begin read");
    uint64_t t0 = now_ns();
    ce_query *query;
    ce_results *all = NULL, *sorted = NULL;
    ce_sort_key key = {"score", true};
    size_t count = 0;
    ce_object_key first_key = 0, last_key = 0;
    ours_check(ce_query_parse(txn, o->table, "TRUEPREDICATE", NULL, 0, &query) && ce_query_find_all(query, &all) &&
                   ce_results_sort(txn, all, &key, 1, &sorted) && ce_results_count(sorted, txn, &count) &&
                   ce_results_get(sorted, txn, 0, &first_key) && ce_results_get(sorted, txn, count - 1, &last_key),
               "W3s sort");
    ce_value first, last;
    ours_check(ce_object_get(txn, o->table, first_key, 0, &first) && ce_object_get(txn, o->table, last_key, 0, &last),
               "W3s read ids");
    r->w3s_ms = (double)(now_ns() - t0) / 1e6;
    ce_results_free(sorted);
    ce_results_free(all);
    ce_query_free(query);
    ce_txn_end(txn);
    if (count != cfg->count) {
        fprintf(stderr, "OpenRealm: W3s sorted %zu objects\n", count);
        exit(1);
    }
    w3s_check("OpenRealm", cfg, first.integer, last.integer);
}

static void ours_close(ours *o)
{
    ours_check(ce_db_close(o->db), "ce_db_close");
    free(o->path);
}

/* ------------------------------------------------------------------------ */
/* SQLite                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct lite {
    sqlite3 *db;
    sqlite3_stmt *w3, *w3i, *w3s;
} lite;

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *statement;
    sqlite_check(db, sqlite3_prepare_v2(db, sql, -1, &statement, NULL), SQLITE_OK, sql);
    return statement;
}

static void sqlite_load(lite *l, const char *dir, const config *cfg)
{
    char *path = join_path(dir, "person.sqlite");
    sqlite_check(l->db, sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK, "open");
    free(path);
    sqlite_exec(l->db, "PRAGMA journal_mode=WAL");
    sqlite_exec(l->db, "PRAGMA synchronous=FULL");
    sqlite_exec(l->db, "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, "
                       "score REAL NOT NULL)");
    sqlite_exec(l->db, "BEGIN");
    sqlite3_stmt *insert = prepare(l->db, "INSERT INTO person (id, name, age, score) VALUES (?1, ?2, ?3, ?4)");
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        sqlite3_bind_int64(insert, 1, p.id);
        sqlite3_bind_text(insert, 2, p.name, (int)p.name_length, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 3, p.age);
        sqlite3_bind_double(insert, 4, p.score);
        sqlite_step_reset(l->db, insert, "INSERT");
    }
    sqlite3_finalize(insert);
    sqlite_exec(l->db, "COMMIT");
    int log = 0, done = 0;
    sqlite_check(l->db, sqlite3_wal_checkpoint_v2(l->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done), SQLITE_OK,
                 "checkpoint");
    l->w3 = prepare(l->db, "SELECT count(*) FROM person WHERE age >= 50 AND score < 0.5");
    l->w3i = prepare(l->db, "SELECT count(*) FROM person WHERE id = ?1");
    l->w3s = prepare(l->db, "SELECT id FROM person ORDER BY score");
}

static NOINLINE void sqlite_w3(lite *l, const config *cfg, result *r)
{
    double times[MAX_W3_RUNS];
    sqlite_exec(l->db, "BEGIN");
    for (size_t run = 0; run < cfg->w3_runs; run++) {
        uint64_t t0 = now_ns();
        sqlite_check(l->db, sqlite3_step(l->w3), SQLITE_ROW, "W3 step");
        size_t count = (size_t)sqlite3_column_int64(l->w3, 0);
        sqlite_check(l->db, sqlite3_reset(l->w3), SQLITE_OK, "W3 reset");
        times[run] = (double)(now_ns() - t0) / 1e6;
        w3_check("SQLite", cfg, count);
    }
    sqlite_exec(l->db, "COMMIT");
    finish_w3(r, times, cfg->w3_runs);
}

static NOINLINE void sqlite_w3i(lite *l, const config *cfg, result *r, bool prepare_each)
{
    sqlite_exec(l->db, "BEGIN");
    size_t found = 0;
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < cfg->lookups; k++) {
        sqlite3_stmt *statement = prepare_each ? prepare(l->db, "SELECT count(*) FROM person WHERE id = ?1") : l->w3i;
        sqlite3_bind_int64(statement, 1, lookup_id(k, cfg->count, W3I_SALT));
        sqlite_check(l->db, sqlite3_step(statement), SQLITE_ROW, "W3i step");
        found += (size_t)sqlite3_column_int64(statement, 0);
        if (prepare_each) sqlite3_finalize(statement);
        else sqlite_check(l->db, sqlite3_reset(statement), SQLITE_OK, "W3i reset");
    }
    r->w3i_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
    sqlite_exec(l->db, "COMMIT");
    w3i_check("SQLite", cfg, found);
}

static NOINLINE void sqlite_w3s(lite *l, const config *cfg, result *r)
{
    sqlite_exec(l->db, "BEGIN");
    uint64_t t0 = now_ns();
    int64_t first = 0, last = 0;
    size_t rows = 0;
    int rc;
    while ((rc = sqlite3_step(l->w3s)) == SQLITE_ROW) {
        last = sqlite3_column_int64(l->w3s, 0);
        if (rows++ == 0) first = last;
    }
    sqlite_check(l->db, rc, SQLITE_DONE, "W3s step");
    sqlite_check(l->db, sqlite3_reset(l->w3s), SQLITE_OK, "W3s reset");
    r->w3s_ms = (double)(now_ns() - t0) / 1e6;
    sqlite_exec(l->db, "COMMIT");
    if (rows != cfg->count) {
        fprintf(stderr, "SQLite: W3s returned %zu rows\n", rows);
        exit(1);
    }
    w3s_check("SQLite", cfg, first, last);
}

static void sqlite_close(lite *l)
{
    sqlite3_finalize(l->w3);
    sqlite3_finalize(l->w3i);
    sqlite3_finalize(l->w3s);
    sqlite_check(l->db, sqlite3_close(l->db), SQLITE_OK, "close");
}

/* ------------------------------------------------------------------------ */
/* LMDB                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct lm {
    MDB_env *env;
    MDB_dbi dbi;
} lm;

static void lmdb_load(lm *l, const char *dir, const config *cfg)
{
    size_t map_size = (size_t)1 << 30;
    if (map_size < cfg->count * 512) map_size = cfg->count * 512;
    lmdb_check(mdb_env_create(&l->env), "mdb_env_create");
    lmdb_check(mdb_env_set_mapsize(l->env, map_size), "mdb_env_set_mapsize");
    lmdb_check(mdb_env_open(l->env, dir, 0, 0644), "mdb_env_open");
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(l->env, NULL, 0, &txn), "mdb_txn_begin");
    lmdb_check(mdb_dbi_open(txn, NULL, 0, &l->dbi), "mdb_dbi_open");
    uint8_t key_bytes[8], value_bytes[sizeof(lmdb_person) + 32];
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        lmdb_key(p.id, key_bytes);
        MDB_val key = {sizeof key_bytes, key_bytes};
        MDB_val value = {lmdb_pack(&p, value_bytes), value_bytes};
        lmdb_check(mdb_put(txn, l->dbi, &key, &value, 0), "mdb_put");
    }
    lmdb_check(mdb_txn_commit(txn), "mdb_txn_commit");
}

static NOINLINE void lmdb_w3(lm *l, const config *cfg, result *r)
{
    double times[MAX_W3_RUNS];
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(l->env, NULL, MDB_RDONLY, &txn), "W3 mdb_txn_begin");
    for (size_t run = 0; run < cfg->w3_runs; run++) {
        uint64_t t0 = now_ns();
        MDB_cursor *cursor;
        lmdb_check(mdb_cursor_open(txn, l->dbi, &cursor), "W3 mdb_cursor_open");
        MDB_val key, value;
        size_t count = 0;
        int rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST);
        while (rc == MDB_SUCCESS) {
            int32_t age;
            double score;
            memcpy(&age, (const uint8_t *)value.mv_data + offsetof(lmdb_person, age), sizeof age);
            memcpy(&score, (const uint8_t *)value.mv_data + offsetof(lmdb_person, score), sizeof score);
            count += age >= 50 && score < 0.5;
            rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT);
        }
        if (rc != MDB_NOTFOUND) lmdb_check(rc, "W3 mdb_cursor_get");
        mdb_cursor_close(cursor);
        times[run] = (double)(now_ns() - t0) / 1e6;
        w3_check("LMDB", cfg, count);
    }
    mdb_txn_abort(txn);
    finish_w3(r, times, cfg->w3_runs);
}

static NOINLINE void lmdb_w3i(lm *l, const config *cfg, result *r)
{
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(l->env, NULL, MDB_RDONLY, &txn), "W3i mdb_txn_begin");
    size_t found = 0;
    uint8_t key_bytes[8];
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < cfg->lookups; k++) {
        lmdb_key(lookup_id(k, cfg->count, W3I_SALT), key_bytes);
        MDB_val key = {sizeof key_bytes, key_bytes}, value;
        int rc = mdb_get(txn, l->dbi, &key, &value);
        if (rc == MDB_SUCCESS) found++;
        else if (rc != MDB_NOTFOUND) lmdb_check(rc, "W3i mdb_get");
    }
    r->w3i_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
    mdb_txn_abort(txn);
    w3i_check("LMDB", cfg, found);
}

static NOINLINE void lmdb_w3s(lm *l, const config *cfg, result *r)
{
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(l->env, NULL, MDB_RDONLY, &txn), "W3s mdb_txn_begin");
    uint64_t t0 = now_ns();
    score_id *pairs = malloc(cfg->count * sizeof *pairs);
    if (!pairs) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    MDB_cursor *cursor;
    lmdb_check(mdb_cursor_open(txn, l->dbi, &cursor), "W3s mdb_cursor_open");
    MDB_val key, value;
    size_t n = 0;
    int rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST);
    while (rc == MDB_SUCCESS && n < cfg->count) {
        memcpy(&pairs[n].score, (const uint8_t *)value.mv_data + offsetof(lmdb_person, score), sizeof(double));
        memcpy(&pairs[n].id, (const uint8_t *)value.mv_data + offsetof(lmdb_person, id), sizeof(int64_t));
        n++;
        rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT);
    }
    mdb_cursor_close(cursor);
    qsort(pairs, n, sizeof *pairs, compare_score_id);
    r->w3s_ms = (double)(now_ns() - t0) / 1e6;
    mdb_txn_abort(txn);
    w3s_check("LMDB", cfg, pairs[0].id, pairs[n - 1].id);
    free(pairs);
}

/* ------------------------------------------------------------------------ */
/* C arrays in memory                                                        */
/* ------------------------------------------------------------------------ */

typedef struct arrays {
    int64_t *id, *age;
    double *score;
} arrays;


static void array_load(arrays *a, const config *cfg)
{
    a->id = malloc(cfg->count * sizeof *a->id);
    a->age = malloc(cfg->count * sizeof *a->age);
    a->score = malloc(cfg->count * sizeof *a->score);
    if (!a->id || !a->age || !a->score) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        a->id[i] = p.id;
        a->age[i] = p.age;
        a->score[i] = p.score;
    }
}

static NOINLINE void array_w3(arrays *a, const config *cfg, result *r)
{
    double times[MAX_W3_RUNS];
    for (size_t run = 0; run < cfg->w3_runs; run++) {
        escape(a->age), escape(a->score);
        uint64_t t0 = now_ns();
        size_t count = 0;
        for (size_t i = 0; i < cfg->count; i++) count += (a->age[i] >= 50) & (a->score[i] < 0.5);
        times[run] = (double)(now_ns() - t0) / 1e6;
        w3_check("arrays", cfg, count);
    }
    finish_w3(r, times, cfg->w3_runs);
}

static NOINLINE void array_w3i(arrays *a, const config *cfg, result *r)
{
    size_t found = 0;
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < cfg->lookups; k++) {
        int64_t id = lookup_id(k, cfg->count, W3I_SALT);
        found += a->id[id - 1] == id;
    }
    r->w3i_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
    w3i_check("arrays", cfg, found);
}

static NOINLINE void array_w3s(arrays *a, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    score_id *pairs = malloc(cfg->count * sizeof *pairs);
    if (!pairs) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < cfg->count; i++) pairs[i] = (score_id){a->score[i], a->id[i]};
    qsort(pairs, cfg->count, sizeof *pairs, compare_score_id);
    r->w3s_ms = (double)(now_ns() - t0) / 1e6;
    w3s_check("arrays", cfg, pairs[0].id, pairs[cfg->count - 1].id);
    free(pairs);
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
/* ------------------------------------------------------------------------ */

enum { SYS_OURS, SYS_SQLITE, SYS_SQLITE_PREPARE, SYS_LMDB, SYS_ARRAY, SYS_OURS_NOSUM, SYS_COUNT };
static const char *const SYSTEM_NAMES[SYS_COUNT] = {"ours", "sqlite", "sqlite-prep", "lmdb", "array", "ours-nosum"};

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [--count N] [--reps N] [--w3-runs N] [--lookups N] [--dir DIR]\n"
            "  --count N    Person objects (default 1000000)\n"
            "  --reps N     repetitions, systems interleaved in each (default 5)\n"
            "  --w3-runs N  W3 counts per repetition, the median is the figure (default 20, at most %d)\n"
            "  --lookups N  W3i indexed equality queries per repetition (default 100000)\n"
            "  --dir DIR    where the files go (default: a temp dir on the same file system as /work)\n"
            "  --systems L  a comma-separated subset of ours,sqlite,sqlite-prep,lmdb,array,ours-nosum\n"
            "               (default all but ours-nosum; sqlite-prep needs sqlite; ours-nosum runs\n"
            "               what ours runs, with disable_page_checksums)\n"
            "  --no-sort    leave W3s out\n",
            program, MAX_W3_RUNS);
    exit(2);
}

static spread metric_spread(const result *results, size_t reps, int metric)
{
    double values[reps];
    for (size_t r = 0; r < reps; r++)
        values[r] = metric == 0 ? results[r].w3_ms : metric == 1 ? results[r].w3i_us : results[r].w3s_ms;
    return spread_of(values, reps);
}

int main(int argc, char **argv)
{
    config cfg = {.count = 1000000, .reps = 5, .w3_runs = 20, .lookups = 100000, .sort = true};
    const char *base_dir = NULL;
    bool ran[SYS_COUNT] = {true, true, true, true, true, false};
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--count") == 0 && a + 1 < argc) cfg.count = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) cfg.reps = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--w3-runs") == 0 && a + 1 < argc) cfg.w3_runs = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--lookups") == 0 && a + 1 < argc) cfg.lookups = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--dir") == 0 && a + 1 < argc) base_dir = argv[++a];
        else if (strcmp(argv[a], "--no-sort") == 0) cfg.sort = false;
        else if (strcmp(argv[a], "--systems") == 0 && a + 1 < argc) {
            char *list = strdup(argv[++a]);
            memset(ran, 0, sizeof ran);
            for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
                int found = -1;
                for (int k = 0; k < SYS_COUNT; k++)
                    if (strcmp(name, SYSTEM_NAMES[k]) == 0) found = k;
                if (found < 0) usage(argv[0]);
                ran[found] = true;
            }
            free(list);
            if (ran[SYS_SQLITE_PREPARE] && !ran[SYS_SQLITE]) usage(argv[0]);
        } else usage(argv[0]);
    }
    if (cfg.count < 2 || cfg.reps == 0 || cfg.w3_runs == 0 || cfg.w3_runs > MAX_W3_RUNS || cfg.lookups == 0) usage(argv[0]);

    /* What every system must find (untimed). */
    double lowest = 2, highest = -1;
    for (size_t i = 0; i < cfg.count; i++) {
        person p;
        person_make(i, &p);
        cfg.expected_w3 += p.age >= 50 && p.score < 0.5;
        if (p.score < lowest) lowest = p.score, cfg.first_id = p.id;
        if (p.score > highest) highest = p.score, cfg.last_id = p.id;
    }
    cfg.expected_lookups = cfg.lookups;

    char *run_dir = make_run_dir(base_dir, "queries");
    printf("W3 (count where age >= 50 AND score < 0.5, median of %zu), W3i (%zu indexed equality queries),\n"
           "W3s (sort of every object by score): %zu Person objects, %zu repetitions, systems interleaved\n",
           cfg.w3_runs, cfg.lookups, cfg.count, cfg.reps);
    print_run_header(run_dir, "noisier");
    printf("peers:       SQLite %s, %s\n", sqlite3_libversion(), mdb_version(NULL, NULL, NULL));
    printf("engine:      OpenRealm %s, cengine.h queries\n", ce_engine_version());
    printf("expected:    W3 %zu objects; W3s ids %" PRId64 " .. %" PRId64 "\n\n", cfg.expected_w3, cfg.first_id,
           cfg.last_id);
    fflush(stdout);

    /* Load every system once (untimed). */
    char *ours_dir = join_path(run_dir, "ours"), *sqlite_dir = join_path(run_dir, "sqlite"),
         *lmdb_dir = join_path(run_dir, "lmdb");
    if (mkdir(ours_dir, 0755) || mkdir(sqlite_dir, 0755) || mkdir(lmdb_dir, 0755)) {
        fprintf(stderr, "cannot create directories in %s: %s\n", run_dir, strerror(errno));
        return 1;
    }
    ours o = {0}, o_nosum = {0};
    lite l = {0};
    lm m = {0};
    arrays a = {0};
    printf("loaded");
    uint64_t t0 = now_ns();
    if (ran[SYS_OURS]) ours_load(&o, ours_dir, &cfg, true), printf(" OpenRealm in %.2f s", (double)(now_ns() - t0) / 1e9);
    t0 = now_ns();
    if (ran[SYS_OURS_NOSUM])
        ours_load(&o_nosum, ours_dir, &cfg, false), printf(" OpenRealm without checksums in %.2f s", (double)(now_ns() - t0) / 1e9);
    t0 = now_ns();
    if (ran[SYS_SQLITE]) sqlite_load(&l, sqlite_dir, &cfg), printf(" SQLite in %.2f s", (double)(now_ns() - t0) / 1e9);
    t0 = now_ns();
    if (ran[SYS_LMDB]) lmdb_load(&m, lmdb_dir, &cfg), printf(" LMDB in %.2f s", (double)(now_ns() - t0) / 1e9);
    if (ran[SYS_ARRAY]) array_load(&a, &cfg), printf(" arrays");
    printf("\n\n");

    result *results = calloc(cfg.reps * SYS_COUNT, sizeof *results);
    if (!results) return 1;
    printf("%-4s %-12s %10s %22s %10s %10s\n", "rep", "system", "W3 ms", "(runs min-max)", "W3i us", "W3s ms");
    for (size_t rep = 0; rep < cfg.reps; rep++) {
        for (int s = 0; s < SYS_COUNT; s++) {
            if (!ran[s]) continue;
            result *r = &results[(size_t)s * cfg.reps + rep];
            r->w3s_ms = NAN;
            switch (s) {
            case SYS_OURS: ours_w3(&o, &cfg, r), ours_w3i(&o, &cfg, r), cfg.sort ? ours_w3s(&o, &cfg, r) : (void)0; break;
            case SYS_SQLITE: sqlite_w3(&l, &cfg, r), sqlite_w3i(&l, &cfg, r, false), cfg.sort ? sqlite_w3s(&l, &cfg, r) : (void)0; break;
            case SYS_SQLITE_PREPARE: {
                /* Only W3i differs (a statement prepared per query): W3 and W3s are SQLite's. */
                const result *same = &results[(size_t)SYS_SQLITE * cfg.reps + rep];
                r->w3_ms = same->w3_ms, r->w3_min = same->w3_min, r->w3_max = same->w3_max, r->w3s_ms = same->w3s_ms;
                sqlite_w3i(&l, &cfg, r, true);
                break;
            }
            case SYS_LMDB: lmdb_w3(&m, &cfg, r), lmdb_w3i(&m, &cfg, r), cfg.sort ? lmdb_w3s(&m, &cfg, r) : (void)0; break;
            case SYS_OURS_NOSUM:
                ours_w3(&o_nosum, &cfg, r), ours_w3i(&o_nosum, &cfg, r), cfg.sort ? ours_w3s(&o_nosum, &cfg, r) : (void)0;
                break;
            default: array_w3(&a, &cfg, r), array_w3i(&a, &cfg, r), cfg.sort ? array_w3s(&a, &cfg, r) : (void)0; break;
            }
            printf("%-4zu %-12s %10.3f %10.3f - %9.3f %10.3f %10.1f\n", rep + 1, SYSTEM_NAMES[s], r->w3_ms, r->w3_min,
                   r->w3_max, r->w3i_us, r->w3s_ms);
            fflush(stdout);
        }
    }

    static const char *const metric_names[3] = {"W3 ms (median of runs)", "W3i µs per query", "W3s ms"};
    printf("\nSummary: median over %zu repetitions [min-max]\n\n| metric |", cfg.reps);
    for (int s = 0; s < SYS_COUNT; s++)
        if (ran[s]) printf(" %s |", SYSTEM_NAMES[s]);
    printf("\n|---|");
    for (int s = 0; s < SYS_COUNT; s++)
        if (ran[s]) printf("---:|");
    printf("\n");
    for (int metric = 0; metric < 3; metric++) {
        if (metric == 2 && !cfg.sort) continue;
        printf("| %s |", metric_names[metric]);
        for (int s = 0; s < SYS_COUNT; s++) {
            if (!ran[s]) continue;
            if (s == SYS_SQLITE_PREPARE && metric != 1) {
                printf(" — |");
                continue;
            }
            spread v = metric_spread(&results[(size_t)s * cfg.reps], cfg.reps, metric);
            printf(metric == 1 ? " %.3f [%.3f–%.3f] |" : " %.2f [%.2f–%.2f] |", v.median, v.min, v.max);
        }
        printf("\n");
    }
    printf("\nRatios (time, ours / peer): of the medians, and paired per repetition median [min-max]\n\n");
    printf("| metric | peer | of medians | paired median | paired min–max |\n|---|---|---:|---:|---:|\n");
    double w3_sqlite = 0, w3_array = 0;
    for (int metric = 0; metric < 3 && ran[SYS_OURS]; metric++) {
        if (metric == 2 && !cfg.sort) continue;
        for (int peer = SYS_SQLITE; peer < SYS_COUNT; peer++) {
            if (!ran[peer] || (peer == SYS_SQLITE_PREPARE && metric != 1)) continue;
            double paired[cfg.reps];
            for (size_t rep = 0; rep < cfg.reps; rep++) {
                const result *mine = &results[(size_t)SYS_OURS * cfg.reps + rep];
                const result *theirs = &results[(size_t)peer * cfg.reps + rep];
                paired[rep] = metric == 0 ? mine->w3_ms / theirs->w3_ms
                              : metric == 1 ? mine->w3i_us / theirs->w3i_us
                                            : mine->w3s_ms / theirs->w3s_ms;
            }
            double of_medians = metric_spread(&results[(size_t)SYS_OURS * cfg.reps], cfg.reps, metric).median /
                                metric_spread(&results[(size_t)peer * cfg.reps], cfg.reps, metric).median;
            spread ratio = spread_of(paired, cfg.reps);
            printf("| %s | %s | %.4f | %.4f | %.4f–%.4f |\n", metric_names[metric], SYSTEM_NAMES[peer], of_medians,
                   ratio.median, ratio.min, ratio.max);
            if (metric == 0 && peer == SYS_SQLITE) w3_sqlite = of_medians;
            if (metric == 0 && peer == SYS_ARRAY) w3_array = of_medians;
        }
    }
    if (ran[SYS_OURS] && (ran[SYS_SQLITE] || ran[SYS_ARRAY])) printf("\nTargets (docs/BENCHMARKS.md), on the medians:\n");
    if (ran[SYS_OURS] && ran[SYS_SQLITE])
        printf("  W3 >= 40x faster than SQLite:       %.1fx  %s\n", 1 / w3_sqlite, 1 / w3_sqlite >= 40 ? "met" : "NOT met");
    if (ran[SYS_OURS] && ran[SYS_ARRAY])
        printf("  W3 within 2.5x of the C arrays:     %.2fx  %s\n", w3_array, w3_array <= 2.5 ? "met" : "NOT met");
    printf("\npeak RSS of this process (getrusage ru_maxrss, every system run): %.1f MiB\n", peak_rss_mib());

    if (ran[SYS_OURS]) ours_close(&o);
    if (ran[SYS_OURS_NOSUM]) ours_close(&o_nosum);
    if (ran[SYS_SQLITE]) sqlite_close(&l);
    if (ran[SYS_LMDB]) mdb_env_close(m.env);
    free(a.id), free(a.age), free(a.score);
    end_run_dir(run_dir, false);
    free(ours_dir), free(sqlite_dir), free(lmdb_dir), free(run_dir), free(results);
    return 0;
}
