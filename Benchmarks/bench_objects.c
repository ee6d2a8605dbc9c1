/*
 * bench_objects.c — workloads W1, W2, W4 and W6 of docs/BENCHMARKS.md
 * through the engine's public object-store API (cengine.h), against SQLite
 * (WAL, synchronous=FULL), LMDB (default flags) and the in-memory C-array
 * bound, interleaved per repetition, each system on a fresh file.
 *
 * Person { id: int64 primary key, name: string, age: int, score: double };
 * object i (0-based): id = i + 1, name = "name-<i>", age = i % 100,
 * score = splitmix64(i ^ 0x5EED) mapped to [0, 1) (bench_common.c).
 *
 * Per system and repetition, in this order (W3 is the query engine's, which
 * does not exist yet, so it is left out):
 *   W1  insert all objects in one write transaction, durable commit
 *   W2  --lookups point lookups by primary key, id = splitmix64(k) % count + 1
 *       for k = 0, 1, ..., reading `name`, in one read transaction; a checksum
 *       of the names read is checked against the expected one
 *   W4  sum of `score` over all objects, --w4-runs times in one read
 *       transaction (the median is the figure); the sum is checked
 *   W6  age = age + 1 on every object in one write transaction, durable commit
 * The C arrays run W1 (filling the arrays), W2 (reads indexed by id - 1) and
 * W4 (the sum); W6 has no meaning for them.
 *
 * OpenRealm goes through cengine.h only: W1 is ce_object_create_with_values
 * per object (the API's bulk path); W2 is ce_object_find_primary_key +
 * ce_object_get; W4 is ce_table_sum (a leaf-by-leaf column scan); W6 walks
 * ce_object_key_at (the only public way to enumerate objects until the query
 * engine brings results) with ce_object_get and ce_object_set. The system "ours-sets" runs W1
 * only, the other way: ce_object_create + 3 ce_object_set per object. The
 * system "ours-nosum" (not in the default list) runs what "ours" runs with
 * ce_db_options.disable_page_checksums: the cost of plain-file page
 * checksums is "ours" against it in the same run.
 *
 * With --opens N, after W4 the engine's handle is closed and W9 (open the
 * existing file, read one object) is timed N times, page cache warm (the
 * median is the figure). With --cold-lookups N, after W4 (and W9) each store
 * closes its handle, the file's pages are dropped from the page cache
 * (posix_fadvise POSIX_FADV_DONTNEED, after an fdatasync; its residency is
 * printed before and after), a new handle is opened and a read transaction
 * begun (the cold open), and the first N ids of W2's stream are read (the
 * cold W2). W6 then runs on the new handle. The last line is the process's
 * peak RSS: run one system per process to get a system's own.
 *
 * Usage: bench_objects [--count N] [--reps N] [--lookups N] [--w4-runs N] [--opens N] [--cold-lookups N] [--dir DIR]
 *                      [--systems ours,ours-sets,sqlite,lmdb,array,ours-nosum] [--keep]
 * Build it in Release and run it under `chrt -f 1` (Benchmarks/run_objects.sh).
 */
#include "bench_common.h"
#include "cengine.h"

#include <lmdb.h>
#include <sqlite3.h>

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------------------ */
/* What is measured                                                          */
/* ------------------------------------------------------------------------ */

typedef struct config {
    size_t count;             /* objects */
    size_t lookups;           /* W2 lookups */
    size_t w4_runs;           /* W4 sums per repetition */
    size_t cold_lookups;      /* cold-cache W2 lookups (0: no cold pass) */
    size_t opens;             /* W9 opens of the existing file (0: none) */
    uint64_t expected_cold_checksum; /* of the first cold_lookups W2 names */
    uint64_t expected_checksum; /* of the W2 names */
    double expected_sum;      /* W4, summed in id order */
} config;

/* What one repetition of one system measured. */
typedef struct result {
    double w1_seconds;
    double w1_commit_seconds; /* of which the commit call (the stores) */
    double w1_peak_rss_mib;   /* ours: the process's peak RSS right after W1 (its first repetition: the insert's own) */
    uint64_t w1_bytes;     /* the file after W1 (SQLite: the db after a TRUNCATE checkpoint, WAL empty) */
    uint64_t w1_bytes_raw; /* SQLite: db + WAL as the commit left them; others: = w1_bytes */
    double w2_us;          /* per lookup */
    uint64_t w2_checksum;
    double w4_ms;          /* median of the runs */
    double w4_min_ms, w4_max_ms;
    double w4_sum;
    bool ran_w6;
    double w6_seconds;
    double w6_commit_seconds;
    uint64_t w6_bytes, w6_bytes_raw; /* as for W1 */
    ce_db_stats stats_w1, stats_w6;  /* ours: ce_db_verify after W1 and after W6 */
    /* After W4, with --opens / --cold-lookups: */
    double w9_ms;               /* ours: W9, open + read one object, page cache warm (median) */
    bool ran_cold;
    double cold_open_ms;        /* open + first read transaction, page cache dropped */
    double cold_w2_us;          /* per lookup, the first cold_lookups of W2's stream */
    double resident_before, resident_after; /* the file's fraction in the page cache around the drop */
} result;


static void w4_finish(result *r, double *times_ms, size_t runs)
{
    spread s = spread_of(times_ms, runs);
    r->w4_ms = s.median;
    r->w4_min_ms = s.min;
    r->w4_max_ms = s.max;
}

static void check_w2(const char *system, const config *cfg, uint64_t checksum)
{
    if (checksum == cfg->expected_checksum) return;
    fprintf(stderr, "%s: W2 read names with checksum %016" PRIx64 ", expected %016" PRIx64 "\n", system, checksum,
            cfg->expected_checksum);
    exit(1);
}

static void check_cold_w2(const char *system, const config *cfg, uint64_t checksum)
{
    if (checksum == cfg->expected_cold_checksum) return;
    fprintf(stderr, "%s: cold W2 read names with checksum %016" PRIx64 ", expected %016" PRIx64 "\n", system, checksum,
            cfg->expected_cold_checksum);
    exit(1);
}

/* The cold open is timed COLD_OPENS times (the median is the figure), each
 * after a drop; the last handle stays open for the cold W2. */
#define COLD_OPENS 5

/* Before cold open `k`: every handle on `path` is closed; its pages leave
 * the page cache (drop_file_cache), the fractions before the first drop
 * and after the last are kept. */
static void drop_cache(const char *path, result *r, size_t k)
{
    if (k == 0) r->resident_before = resident_fraction(path);
    drop_file_cache(path);
    r->resident_after = resident_fraction(path);
    r->ran_cold = true;
}

static void check_w4(const char *system, const config *cfg, double sum)
{
    if (fabs(sum - cfg->expected_sum) <= 1e-9 * cfg->expected_sum) return;
    fprintf(stderr, "%s: W4 summed %.17g, expected %.17g\n", system, sum, cfg->expected_sum);
    exit(1);
}

/* The objects checked after W6 (untimed): first, middle, last. */
static size_t probe_index(size_t count, int k) { return k == 0 ? 0 : k == 1 ? count / 2 : count - 1; }

/* ------------------------------------------------------------------------ */
/* OpenRealm: the public object-store API                                    */
/* ------------------------------------------------------------------------ */

typedef struct ours_schema {
    ce_table_key table;
    ce_column_key id, name, age, score;
    size_t column_count; /* ce_property_count: the length of a values array */
} ours_schema;

static void ours_create_schema(ce_db *db, ours_schema *s)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "begin write (schema)");
    ours_check(ce_table_add(txn, "Person", &s->table), "ce_table_add");
    const ce_property_info id = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    const ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    const ce_property_info age = {.name = "age", .type = CE_TYPE_INT};
    const ce_property_info score = {.name = "score", .type = CE_TYPE_DOUBLE};
    ours_check(ce_property_add(txn, s->table, &id, &s->id), "ce_property_add id");
    ours_check(ce_property_add(txn, s->table, &name, &s->name), "ce_property_add name");
    ours_check(ce_property_add(txn, s->table, &age, &s->age), "ce_property_add age");
    ours_check(ce_property_add(txn, s->table, &score, &s->score), "ce_property_add score");
    ours_check(ce_property_count(txn, s->table, &s->column_count), "ce_property_count");
    if (s->column_count != 4 || s->id >= 4 || s->name >= 4 || s->age >= 4 || s->score >= 4) {
        fprintf(stderr, "OpenRealm: expected 4 column slots numbered 0-3\n");
        exit(1);
    }
    ours_check(ce_txn_commit(txn), "commit (schema)");
}

/* W1 through ce_object_create_with_values: one call per object. */
static NOINLINE void ours_w1(ce_db *db, const ours_schema *s, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "W1 ce_txn_begin_write");
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        ce_value values[4];
        values[s->id] = (ce_value){.type = CE_TYPE_INT, .integer = p.id};
        values[s->name] = (ce_value){.type = CE_TYPE_STRING, .string = {p.name, p.name_length}};
        values[s->age] = (ce_value){.type = CE_TYPE_INT, .integer = p.age};
        values[s->score] = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = p.score};
        ce_object_key object;
        ours_check(ce_object_create_with_values(txn, s->table, values, s->column_count, &object),
                   "W1 ce_object_create_with_values");
    }
    uint64_t t1 = now_ns();
    ours_check(ce_txn_commit(txn), "W1 ce_txn_commit");
    r->w1_commit_seconds = seconds_since(t1);
    r->w1_seconds = seconds_since(t0);
}

/* W1 the other way: ce_object_create with the key, then 3 ce_object_set. */
static NOINLINE void ours_w1_sets(ce_db *db, const ours_schema *s, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "W1 ce_txn_begin_write");
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        ce_object_key object;
        ce_value value = {.type = CE_TYPE_INT, .integer = p.id};
        ours_check(ce_object_create(txn, s->table, &value, &object), "W1 ce_object_create");
        value = (ce_value){.type = CE_TYPE_STRING, .string = {p.name, p.name_length}};
        ours_check(ce_object_set(txn, s->table, object, s->name, &value), "W1 ce_object_set name");
        value = (ce_value){.type = CE_TYPE_INT, .integer = p.age};
        ours_check(ce_object_set(txn, s->table, object, s->age, &value), "W1 ce_object_set age");
        value = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = p.score};
        ours_check(ce_object_set(txn, s->table, object, s->score, &value), "W1 ce_object_set score");
    }
    uint64_t t1 = now_ns();
    ours_check(ce_txn_commit(txn), "W1 ce_txn_commit");
    r->w1_commit_seconds = seconds_since(t1);
    r->w1_seconds = seconds_since(t0);
}

/* W2's loop: the first `lookups` ids of the stream, in `txn`; the names' checksum. */
static NOINLINE uint64_t ours_lookups(ce_txn *txn, const ours_schema *s, const config *cfg, size_t lookups)
{
    uint64_t checksum = 0;
    for (size_t k = 0; k < lookups; k++) {
        ce_value key = {.type = CE_TYPE_INT, .integer = lookup_id(k, cfg->count, 0)};
        ce_object_key object;
        bool found;
        ours_check(ce_object_find_primary_key(txn, s->table, &key, &object, &found), "W2 ce_object_find_primary_key");
        ce_value name;
        ours_check(found && ce_object_get(txn, s->table, object, s->name, &name), "W2 ce_object_get name");
        checksum += name_hash(name.string.data, name.string.size);
    }
    return checksum;
}

static NOINLINE void ours_w2(ce_db *db, const ours_schema *s, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "W2 ce_txn_begin_read");
    r->w2_checksum = ours_lookups(txn, s, cfg, cfg->lookups);
    ce_txn_end(txn);
    r->w2_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
}

/* After W4: closes `*db`; W9 (--opens) with the page cache warm; then the
 * cold pass (--cold-lookups): the file's pages dropped, a new handle opened
 * and a read transaction begun (the cold open), and the first cold_lookups
 * of W2's stream read in it. Leaves `*db` open for W6. */
static void ours_reopen_and_cold(ce_db **db, const char *path, const ours_schema *s, const config *cfg, result *r,
                                 bool page_checksums)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.disable_page_checksums = !page_checksums;
    ours_check(ce_db_close(*db), "ce_db_close (before W9)");
    if (cfg->opens > 0) r->w9_ms = ours_open_and_read_ms(path, &options, cfg->count, cfg->opens);
    if (cfg->cold_lookups == 0) {
        ours_check(ce_db_open(path, &options, db), "ce_db_open (after W9)");
        return;
    }
    double opens[COLD_OPENS];
    ce_txn *txn;
    uint64_t t1 = 0;
    for (size_t k = 0; k < COLD_OPENS; k++) {
        drop_cache(path, r, k);
        uint64_t t0 = now_ns();
        ours_check(ce_db_open(path, &options, db), "ce_db_open (cold)");
        ours_check(ce_txn_begin_read(*db, &txn), "cold W2 ce_txn_begin_read");
        t1 = now_ns();
        opens[k] = (double)(t1 - t0) / 1e6;
        if (k + 1 == COLD_OPENS) break;
        ce_txn_end(txn);
        ours_check(ce_db_close(*db), "ce_db_close (cold)");
    }
    r->cold_open_ms = median_of(opens, COLD_OPENS);
    t1 = now_ns();
    uint64_t checksum = ours_lookups(txn, s, cfg, cfg->cold_lookups);
    r->cold_w2_us = (double)(now_ns() - t1) / 1e3 / (double)cfg->cold_lookups;
    ce_txn_end(txn);
    check_cold_w2("OpenRealm", cfg, checksum);
}

static NOINLINE void ours_w4(ce_db *db, const ours_schema *s, const config *cfg, result *r)
{
    double times[64];
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "W4 ce_txn_begin_read");
    for (size_t run = 0; run < cfg->w4_runs; run++) {
        uint64_t t0 = now_ns();
        ce_value total;
        ours_check(ce_table_sum(txn, s->table, s->score, &total, NULL), "W4 ce_table_sum");
        double sum = total.double_value;
        times[run] = (double)(now_ns() - t0) / 1e6;
        r->w4_sum = sum;
    }
    ce_txn_end(txn);
    w4_finish(r, times, cfg->w4_runs);
}

static NOINLINE void ours_w6(ce_db *db, const ours_schema *s, const config *cfg, result *r)
{
    (void)cfg;
    uint64_t t0 = now_ns();
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "W6 ce_txn_begin_write");
    size_t count;
    ours_check(ce_object_count(txn, s->table, &count), "W6 ce_object_count");
    for (size_t i = 0; i < count; i++) {
        ce_object_key object;
        ce_value age;
        ours_check(ce_object_key_at(txn, s->table, i, &object) && ce_object_get(txn, s->table, object, s->age, &age),
                   "W6 ce_object_key_at + ce_object_get age");
        age.integer++;
        ours_check(ce_object_set(txn, s->table, object, s->age, &age), "W6 ce_object_set age");
    }
    uint64_t t1 = now_ns();
    ours_check(ce_txn_commit(txn), "W6 ce_txn_commit");
    r->w6_commit_seconds = seconds_since(t1);
    r->w6_seconds = seconds_since(t0);
}

/* Untimed: the object count after W1, and some objects after W6. */
static void ours_verify(ce_db *db, const ours_schema *s, const config *cfg, bool after_w6)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "begin read (verification)");
    size_t count;
    ours_check(ce_object_count(txn, s->table, &count), "ce_object_count (verification)");
    if (count != cfg->count) {
        fprintf(stderr, "OpenRealm: %zu objects, expected %zu\n", count, cfg->count);
        exit(1);
    }
    for (int k = 0; k < 3; k++) {
        size_t i = probe_index(cfg->count, k);
        person p;
        person_make(i, &p);
        ce_value key = {.type = CE_TYPE_INT, .integer = p.id}, name, age, score;
        ce_object_key object;
        bool found;
        ours_check(ce_object_find_primary_key(txn, s->table, &key, &object, &found) && found &&
                       ce_object_get(txn, s->table, object, s->name, &name) &&
                       ce_object_get(txn, s->table, object, s->age, &age) &&
                       ce_object_get(txn, s->table, object, s->score, &score),
                   "read an object back (verification)");
        if (name.string.size != p.name_length || memcmp(name.string.data, p.name, p.name_length) != 0 ||
            age.integer != p.age + (after_w6 ? 1 : 0) || score.double_value != p.score) {
            fprintf(stderr, "OpenRealm: object %zu read back wrong\n", i);
            exit(1);
        }
    }
    ce_txn_end(txn);
}

/* W1 only, through ce_object_create + ce_object_set. */
static void run_ours_sets(const char *dir, const config *cfg, result *r)
{
    char *path = join_path(dir, "person.realm");
    ce_db_options options;
    ce_db_options_init(&options); /* durability full */
    ce_db *db;
    ours_check(ce_db_open(path, &options, &db), "ce_db_open");
    ours_schema s;
    ours_create_schema(db, &s);
    ours_w1_sets(db, &s, cfg, r);
    r->w1_bytes = r->w1_bytes_raw = file_size_or_zero(path);
    ours_check(ce_db_verify(db, &r->stats_w1), "ce_db_verify after W1");
    ours_verify(db, &s, cfg, false);
    ours_check(ce_db_close(db), "ce_db_close");
    free(path);
}

/* W1, W2, W4 (W9, cold) and W6; `page_checksums` false: the file and the
 * handle without page checksums (ce_db_options.disable_page_checksums). */
static void run_ours_with(const char *dir, const config *cfg, result *r, bool page_checksums)
{
    char *path = join_path(dir, "person.realm");
    ce_db_options options;
    ce_db_options_init(&options); /* durability full */
    options.disable_page_checksums = !page_checksums;
    ce_db *db;
    ours_check(ce_db_open(path, &options, &db), "ce_db_open");
    ours_schema s;
    ours_create_schema(db, &s);

    ours_w1(db, &s, cfg, r);
    r->w1_peak_rss_mib = peak_rss_mib();
    r->w1_bytes = r->w1_bytes_raw = file_size_or_zero(path);
    ours_check(ce_db_verify(db, &r->stats_w1), "ce_db_verify after W1");
    ours_verify(db, &s, cfg, false);

    ours_w2(db, &s, cfg, r);
    check_w2("OpenRealm", cfg, r->w2_checksum);
    ours_w4(db, &s, cfg, r);
    check_w4("OpenRealm", cfg, r->w4_sum);
    if (cfg->opens > 0 || cfg->cold_lookups > 0) ours_reopen_and_cold(&db, path, &s, cfg, r, page_checksums);

    ours_w6(db, &s, cfg, r);
    r->ran_w6 = true;
    r->w6_bytes = r->w6_bytes_raw = file_size_or_zero(path);
    ours_check(ce_db_verify(db, &r->stats_w6), "ce_db_verify after W6");
    ours_verify(db, &s, cfg, true);

    ours_check(ce_db_close(db), "ce_db_close");
    free(path);
}

static void run_ours(const char *dir, const config *cfg, result *r) { run_ours_with(dir, cfg, r, true); }

static void run_ours_nosum(const char *dir, const config *cfg, result *r) { run_ours_with(dir, cfg, r, false); }

/* ------------------------------------------------------------------------ */
/* SQLite: WAL, synchronous=FULL, prepared statements, INTEGER PRIMARY KEY    */
/* ------------------------------------------------------------------------ */

typedef struct sqlite_handles {
    sqlite3 *db;
    char *path, *wal;
    sqlite3_stmt *begin, *commit, *insert, *select_name, *sum, *update, *probe;
} sqlite_handles;

static sqlite3_stmt *sqlite_prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *statement;
    sqlite_check(db, sqlite3_prepare_v2(db, sql, -1, &statement, NULL), SQLITE_OK, sql);
    return statement;
}

/* Empties the WAL into the db and truncates it (untimed), so the db file
 * alone is the database. */
static void sqlite_checkpoint(sqlite_handles *h)
{
    int log = 0, done = 0;
    sqlite_check(h->db, sqlite3_wal_checkpoint_v2(h->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done), SQLITE_OK,
                 "wal_checkpoint(TRUNCATE)");
}

static NOINLINE void sqlite_w1(sqlite_handles *h, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    sqlite_step_reset(h->db, h->begin, "W1 BEGIN");
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        sqlite3_bind_int64(h->insert, 1, p.id);
        sqlite3_bind_text(h->insert, 2, p.name, (int)p.name_length, SQLITE_STATIC);
        sqlite3_bind_int64(h->insert, 3, p.age);
        sqlite3_bind_double(h->insert, 4, p.score);
        sqlite_step_reset(h->db, h->insert, "W1 INSERT");
    }
    uint64_t t1 = now_ns();
    sqlite_step_reset(h->db, h->commit, "W1 COMMIT");
    r->w1_commit_seconds = seconds_since(t1);
    r->w1_seconds = seconds_since(t0);
}

/* W2's loop: the first `lookups` ids of the stream; the names' checksum. */
static NOINLINE uint64_t sqlite_lookups(sqlite_handles *h, const config *cfg, size_t lookups)
{
    uint64_t checksum = 0;
    for (size_t k = 0; k < lookups; k++) {
        sqlite3_bind_int64(h->select_name, 1, lookup_id(k, cfg->count, 0));
        sqlite_check(h->db, sqlite3_step(h->select_name), SQLITE_ROW, "W2 SELECT name");
        const char *name = (const char *)sqlite3_column_text(h->select_name, 0);
        int length = sqlite3_column_bytes(h->select_name, 0);
        checksum += name_hash(name, (size_t)length);
        sqlite_check(h->db, sqlite3_reset(h->select_name), SQLITE_OK, "W2 reset");
    }
    return checksum;
}

static NOINLINE void sqlite_w2(sqlite_handles *h, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    sqlite_step_reset(h->db, h->begin, "W2 BEGIN");
    r->w2_checksum = sqlite_lookups(h, cfg, cfg->lookups);
    sqlite_step_reset(h->db, h->commit, "W2 COMMIT");
    r->w2_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
}

static NOINLINE void sqlite_w4(sqlite_handles *h, const config *cfg, result *r)
{
    double times[64];
    sqlite_step_reset(h->db, h->begin, "W4 BEGIN");
    for (size_t run = 0; run < cfg->w4_runs; run++) {
        uint64_t t0 = now_ns();
        sqlite_check(h->db, sqlite3_step(h->sum), SQLITE_ROW, "W4 SELECT sum(score)");
        r->w4_sum = sqlite3_column_double(h->sum, 0);
        sqlite_check(h->db, sqlite3_reset(h->sum), SQLITE_OK, "W4 reset");
        times[run] = (double)(now_ns() - t0) / 1e6;
    }
    sqlite_step_reset(h->db, h->commit, "W4 COMMIT");
    w4_finish(r, times, cfg->w4_runs);
}

static NOINLINE void sqlite_w6(sqlite_handles *h, const config *cfg, result *r)
{
    (void)cfg;
    uint64_t t0 = now_ns();
    sqlite_step_reset(h->db, h->begin, "W6 BEGIN");
    sqlite_step_reset(h->db, h->update, "W6 UPDATE");
    uint64_t t1 = now_ns();
    sqlite_step_reset(h->db, h->commit, "W6 COMMIT");
    r->w6_commit_seconds = seconds_since(t1);
    r->w6_seconds = seconds_since(t0);
}

static void sqlite_verify(sqlite_handles *h, const config *cfg, bool after_w6)
{
    sqlite3_stmt *count = sqlite_prepare(h->db, "SELECT count(*) FROM person");
    sqlite_check(h->db, sqlite3_step(count), SQLITE_ROW, "count(*)");
    if ((size_t)sqlite3_column_int64(count, 0) != cfg->count) {
        fprintf(stderr, "SQLite: %lld rows, expected %zu\n", (long long)sqlite3_column_int64(count, 0), cfg->count);
        exit(1);
    }
    sqlite3_finalize(count);
    for (int k = 0; k < 3; k++) {
        size_t i = probe_index(cfg->count, k);
        person p;
        person_make(i, &p);
        sqlite3_bind_int64(h->probe, 1, p.id);
        sqlite_check(h->db, sqlite3_step(h->probe), SQLITE_ROW, "probe");
        if ((size_t)sqlite3_column_bytes(h->probe, 0) != p.name_length ||
            memcmp(sqlite3_column_text(h->probe, 0), p.name, p.name_length) != 0 ||
            sqlite3_column_int64(h->probe, 1) != p.age + (after_w6 ? 1 : 0) ||
            sqlite3_column_double(h->probe, 2) != p.score) {
            fprintf(stderr, "SQLite: row %zu read back wrong\n", i);
            exit(1);
        }
        sqlite_check(h->db, sqlite3_reset(h->probe), SQLITE_OK, "probe reset");
    }
}

/* Prepares the statements (the table exists). */
static void sqlite_prepare_all(sqlite_handles *h)
{
    h->begin = sqlite_prepare(h->db, "BEGIN");
    h->commit = sqlite_prepare(h->db, "COMMIT");
    h->insert = sqlite_prepare(h->db, "INSERT INTO person (id, name, age, score) VALUES (?1, ?2, ?3, ?4)");
    h->select_name = sqlite_prepare(h->db, "SELECT name FROM person WHERE id = ?1");
    h->sum = sqlite_prepare(h->db, "SELECT sum(score) FROM person");
    h->update = sqlite_prepare(h->db, "UPDATE person SET age = age + 1");
    h->probe = sqlite_prepare(h->db, "SELECT name, age, score FROM person WHERE id = ?1");
}

static void sqlite_close_all(sqlite_handles *h)
{
    sqlite3_stmt *all[] = {h->begin, h->commit, h->insert, h->select_name, h->sum, h->update, h->probe};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) sqlite3_finalize(all[k]);
    sqlite_check(h->db, sqlite3_close(h->db), SQLITE_OK, "close");
    h->db = NULL;
}

/* The cold pass after W4 (as ours_reopen_and_cold): the connection closed,
 * the db's pages dropped (the WAL is empty after the checkpoint), a new
 * connection opened, synchronous=FULL set, the statements prepared (SQLite
 * reads the schema there) and BEGIN stepped (the cold open); then the first
 * cold_lookups of W2's stream. The connection stays open for W6. */
static void sqlite_reopen_and_cold(sqlite_handles *h, const config *cfg, result *r)
{
    double opens[COLD_OPENS];
    for (size_t k = 0; k < COLD_OPENS; k++) {
        sqlite_close_all(h);
        drop_cache(h->path, r, k);
        uint64_t t0 = now_ns();
        sqlite_check(h->db, sqlite3_open_v2(h->path, &h->db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK, "open (cold)");
        sqlite_exec(h->db, "PRAGMA synchronous=FULL");
        sqlite_prepare_all(h);
        sqlite_step_reset(h->db, h->begin, "cold W2 BEGIN");
        opens[k] = (double)(now_ns() - t0) / 1e6;
        if (k + 1 < COLD_OPENS) sqlite_step_reset(h->db, h->commit, "cold COMMIT");
    }
    r->cold_open_ms = median_of(opens, COLD_OPENS);
    uint64_t t1 = now_ns();
    uint64_t checksum = sqlite_lookups(h, cfg, cfg->cold_lookups);
    r->cold_w2_us = (double)(now_ns() - t1) / 1e3 / (double)cfg->cold_lookups;
    sqlite_step_reset(h->db, h->commit, "cold W2 COMMIT");
    check_cold_w2("SQLite", cfg, checksum);
}

static void run_sqlite(const char *dir, const config *cfg, result *r)
{
    sqlite_handles h = {.path = join_path(dir, "person.sqlite"), .wal = join_path(dir, "person.sqlite-wal")};
    sqlite_check(h.db, sqlite3_open_v2(h.path, &h.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK,
                 "open");
    sqlite3_stmt *mode = sqlite_prepare(h.db, "PRAGMA journal_mode=WAL");
    sqlite_check(h.db, sqlite3_step(mode), SQLITE_ROW, "journal_mode");
    if (strcmp((const char *)sqlite3_column_text(mode, 0), "wal") != 0) {
        fprintf(stderr, "SQLite: journal_mode is %s, not wal\n", sqlite3_column_text(mode, 0));
        exit(1);
    }
    sqlite3_finalize(mode);
    sqlite_exec(h.db, "PRAGMA synchronous=FULL");
    sqlite_exec(h.db, "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, "
                      "score REAL NOT NULL)");
    sqlite_prepare_all(&h);

    sqlite_w1(&h, cfg, r);
    r->w1_bytes_raw = file_size_or_zero(h.path) + file_size_or_zero(h.wal);
    sqlite_checkpoint(&h);
    r->w1_bytes = file_size_or_zero(h.path) + file_size_or_zero(h.wal);
    sqlite_verify(&h, cfg, false);

    sqlite_w2(&h, cfg, r);
    check_w2("SQLite", cfg, r->w2_checksum);
    sqlite_w4(&h, cfg, r);
    check_w4("SQLite", cfg, r->w4_sum);
    if (cfg->cold_lookups > 0) sqlite_reopen_and_cold(&h, cfg, r);

    sqlite_w6(&h, cfg, r);
    r->ran_w6 = true;
    r->w6_bytes_raw = file_size_or_zero(h.path) + file_size_or_zero(h.wal);
    sqlite_checkpoint(&h);
    r->w6_bytes = file_size_or_zero(h.path) + file_size_or_zero(h.wal);
    sqlite_verify(&h, cfg, true);

    sqlite_close_all(&h);
    free(h.path);
    free(h.wal);
}

/* ------------------------------------------------------------------------ */
/* LMDB: default flags, key = id big-endian, value = a packed struct          */
/* ------------------------------------------------------------------------ */

typedef struct lmdb_handles {
    MDB_env *env;
    MDB_dbi dbi;
    char *data;
} lmdb_handles;

static NOINLINE void lmdb_w1(lmdb_handles *h, const config *cfg, result *r)
{
    uint8_t key_bytes[8], value_bytes[sizeof(lmdb_person) + 32];
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(h->env, NULL, 0, &txn), "W1 mdb_txn_begin");
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        lmdb_key(p.id, key_bytes);
        MDB_val key = {sizeof key_bytes, key_bytes};
        MDB_val value = {lmdb_pack(&p, value_bytes), value_bytes};
        lmdb_check(mdb_put(txn, h->dbi, &key, &value, 0), "W1 mdb_put");
    }
    uint64_t t1 = now_ns();
    lmdb_check(mdb_txn_commit(txn), "W1 mdb_txn_commit");
    r->w1_commit_seconds = seconds_since(t1);
    r->w1_seconds = seconds_since(t0);
}

/* W2's loop: the first `lookups` ids of the stream in `txn`; the names' checksum. */
static NOINLINE uint64_t lmdb_lookups(lmdb_handles *h, MDB_txn *txn, const config *cfg, size_t lookups)
{
    uint64_t checksum = 0;
    uint8_t key_bytes[8];
    for (size_t k = 0; k < lookups; k++) {
        lmdb_key(lookup_id(k, cfg->count, 0), key_bytes);
        MDB_val key = {sizeof key_bytes, key_bytes}, value;
        lmdb_check(mdb_get(txn, h->dbi, &key, &value), "W2 mdb_get");
        uint32_t length;
        memcpy(&length, (const uint8_t *)value.mv_data + offsetof(lmdb_person, name_length), sizeof length);
        checksum += name_hash((const char *)value.mv_data + sizeof(lmdb_person), length);
    }
    return checksum;
}

static NOINLINE void lmdb_w2(lmdb_handles *h, const config *cfg, result *r)
{
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(h->env, NULL, MDB_RDONLY, &txn), "W2 mdb_txn_begin");
    r->w2_checksum = lmdb_lookups(h, txn, cfg, cfg->lookups);
    mdb_txn_abort(txn);
    r->w2_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
}

static NOINLINE void lmdb_w4(lmdb_handles *h, const config *cfg, result *r)
{
    double times[64];
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(h->env, NULL, MDB_RDONLY, &txn), "W4 mdb_txn_begin");
    for (size_t run = 0; run < cfg->w4_runs; run++) {
        uint64_t t0 = now_ns();
        MDB_cursor *cursor;
        lmdb_check(mdb_cursor_open(txn, h->dbi, &cursor), "W4 mdb_cursor_open");
        MDB_val key, value;
        double sum = 0;
        int rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST);
        while (rc == MDB_SUCCESS) {
            double score;
            memcpy(&score, (const uint8_t *)value.mv_data + offsetof(lmdb_person, score), sizeof score);
            sum += score;
            rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT);
        }
        if (rc != MDB_NOTFOUND) lmdb_check(rc, "W4 mdb_cursor_get");
        mdb_cursor_close(cursor);
        times[run] = (double)(now_ns() - t0) / 1e6;
        r->w4_sum = sum;
    }
    mdb_txn_abort(txn);
    w4_finish(r, times, cfg->w4_runs);
}

static NOINLINE void lmdb_w6(lmdb_handles *h, const config *cfg, result *r)
{
    (void)cfg;
    uint8_t buffer[sizeof(lmdb_person) + 32];
    uint64_t t0 = now_ns();
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(h->env, NULL, 0, &txn), "W6 mdb_txn_begin");
    MDB_cursor *cursor;
    lmdb_check(mdb_cursor_open(txn, h->dbi, &cursor), "W6 mdb_cursor_open");
    MDB_val key, value;
    int rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST);
    while (rc == MDB_SUCCESS) {
        if (value.mv_size > sizeof buffer) lmdb_check(MDB_BAD_VALSIZE, "W6 value size");
        memcpy(buffer, value.mv_data, value.mv_size);
        int32_t age;
        memcpy(&age, buffer + offsetof(lmdb_person, age), sizeof age);
        age++;
        memcpy(buffer + offsetof(lmdb_person, age), &age, sizeof age);
        MDB_val updated = {value.mv_size, buffer};
        lmdb_check(mdb_cursor_put(cursor, &key, &updated, MDB_CURRENT), "W6 mdb_cursor_put");
        rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT);
    }
    if (rc != MDB_NOTFOUND) lmdb_check(rc, "W6 mdb_cursor_get");
    mdb_cursor_close(cursor);
    uint64_t t1 = now_ns();
    lmdb_check(mdb_txn_commit(txn), "W6 mdb_txn_commit");
    r->w6_commit_seconds = seconds_since(t1);
    r->w6_seconds = seconds_since(t0);
}

static void lmdb_verify(lmdb_handles *h, const config *cfg, bool after_w6)
{
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(h->env, NULL, MDB_RDONLY, &txn), "mdb_txn_begin (verification)");
    MDB_stat stat;
    lmdb_check(mdb_stat(txn, h->dbi, &stat), "mdb_stat");
    if (stat.ms_entries != cfg->count) {
        fprintf(stderr, "LMDB: %zu entries, expected %zu\n", (size_t)stat.ms_entries, cfg->count);
        exit(1);
    }
    for (int k = 0; k < 3; k++) {
        size_t i = probe_index(cfg->count, k);
        person p;
        person_make(i, &p);
        uint8_t key_bytes[8];
        lmdb_key(p.id, key_bytes);
        MDB_val key = {sizeof key_bytes, key_bytes}, value;
        lmdb_check(mdb_get(txn, h->dbi, &key, &value), "mdb_get (verification)");
        lmdb_person stored;
        memcpy(&stored, value.mv_data, sizeof stored);
        if (stored.id != p.id || stored.age != p.age + (after_w6 ? 1 : 0) || stored.score != p.score ||
            stored.name_length != p.name_length ||
            memcmp((const uint8_t *)value.mv_data + sizeof stored, p.name, p.name_length) != 0) {
            fprintf(stderr, "LMDB: object %zu read back wrong\n", i);
            exit(1);
        }
    }
    mdb_txn_abort(txn);
}

/* Opens the environment in `dir` (default flags: durable) and its unnamed
 * DBI, in a write transaction that is committed (`read` NULL) or in a read
 * transaction left open in *read. */
static void lmdb_open(lmdb_handles *h, const char *dir, const config *cfg, MDB_txn **read)
{
    size_t map_size = (size_t)1 << 30;
    if (map_size < cfg->count * 512) map_size = cfg->count * 512; /* room for W6's copy-on-write */
    lmdb_check(mdb_env_create(&h->env), "mdb_env_create");
    lmdb_check(mdb_env_set_mapsize(h->env, map_size), "mdb_env_set_mapsize");
    lmdb_check(mdb_env_open(h->env, dir, 0, 0644), "mdb_env_open");
    MDB_txn *txn;
    lmdb_check(mdb_txn_begin(h->env, NULL, read ? MDB_RDONLY : 0, &txn), "mdb_txn_begin (open)");
    lmdb_check(mdb_dbi_open(txn, NULL, 0, &h->dbi), "mdb_dbi_open");
    if (read)
        *read = txn;
    else
        lmdb_check(mdb_txn_commit(txn), "mdb_txn_commit (open)");
}

/* The cold pass after W4 (as ours_reopen_and_cold): the environment
 * closed (unmapped), data.mdb's pages dropped, the environment opened and a
 * read transaction begun with the DBI opened in it (the cold open); then the
 * first cold_lookups of W2's stream. The environment stays open for W6. */
static void lmdb_reopen_and_cold(lmdb_handles *h, const char *dir, const config *cfg, result *r)
{
    double opens[COLD_OPENS];
    MDB_txn *txn;
    for (size_t k = 0; k < COLD_OPENS; k++) {
        mdb_env_close(h->env);
        drop_cache(h->data, r, k);
        uint64_t t0 = now_ns();
        lmdb_open(h, dir, cfg, &txn);
        opens[k] = (double)(now_ns() - t0) / 1e6;
        if (k + 1 < COLD_OPENS) mdb_txn_abort(txn);
    }
    r->cold_open_ms = median_of(opens, COLD_OPENS);
    uint64_t t1 = now_ns();
    uint64_t checksum = lmdb_lookups(h, txn, cfg, cfg->cold_lookups);
    r->cold_w2_us = (double)(now_ns() - t1) / 1e3 / (double)cfg->cold_lookups;
    mdb_txn_abort(txn);
    check_cold_w2("LMDB", cfg, checksum);
}

static void run_lmdb(const char *dir, const config *cfg, result *r)
{
    lmdb_handles h = {.data = join_path(dir, "data.mdb")};
    lmdb_open(&h, dir, cfg, NULL);

    lmdb_w1(&h, cfg, r);
    r->w1_bytes = r->w1_bytes_raw = file_size_or_zero(h.data);
    lmdb_verify(&h, cfg, false);

    lmdb_w2(&h, cfg, r);
    check_w2("LMDB", cfg, r->w2_checksum);
    lmdb_w4(&h, cfg, r);
    check_w4("LMDB", cfg, r->w4_sum);
    if (cfg->cold_lookups > 0) lmdb_reopen_and_cold(&h, dir, cfg, r);

    lmdb_w6(&h, cfg, r);
    r->ran_w6 = true;
    r->w6_bytes = r->w6_bytes_raw = file_size_or_zero(h.data);
    lmdb_verify(&h, cfg, true);

    mdb_env_close(h.env);
    free(h.data);
}

/* ------------------------------------------------------------------------ */
/* The in-memory C-array bound: plain arrays of the four fields               */
/* ------------------------------------------------------------------------ */

typedef struct arrays {
    int64_t *id, *age;
    double *score;
    size_t *name_offset; /* count + 1 offsets into names */
    char *names;
} arrays;

static void *allocate(size_t bytes)
{
    void *memory = malloc(bytes);
    if (!memory) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return memory;
}

/* W1: allocating and filling the arrays. */
static NOINLINE void array_w1(arrays *a, const config *cfg, result *r)
{
    size_t digits = 1;
    for (size_t n = cfg->count; n >= 10; n /= 10) digits++;
    uint64_t t0 = now_ns();
    a->id = allocate(cfg->count * sizeof *a->id);
    a->age = allocate(cfg->count * sizeof *a->age);
    a->score = allocate(cfg->count * sizeof *a->score);
    a->name_offset = allocate((cfg->count + 1) * sizeof *a->name_offset);
    a->names = allocate(cfg->count * (5 + digits));
    size_t offset = 0;
    a->name_offset[0] = 0;
    for (size_t i = 0; i < cfg->count; i++) {
        person p;
        person_make(i, &p);
        a->id[i] = p.id;
        a->age[i] = p.age;
        a->score[i] = p.score;
        memcpy(a->names + offset, p.name, p.name_length);
        offset += p.name_length;
        a->name_offset[i + 1] = offset;
    }
    escape(a->id), escape(a->age), escape(a->score), escape(a->name_offset), escape(a->names);
    r->w1_seconds = seconds_since(t0);
}

/* W2: reads indexed by id - 1 (the id is checked). */
static NOINLINE void array_w2(arrays *a, const config *cfg, result *r)
{
    uint64_t checksum = 0;
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < cfg->lookups; k++) {
        int64_t id = lookup_id(k, cfg->count, 0);
        size_t index = (size_t)id - 1;
        if (a->id[index] != id) {
            fprintf(stderr, "arrays: id %" PRId64 " at index %zu\n", a->id[index], index);
            exit(1);
        }
        size_t begin = a->name_offset[index];
        checksum += name_hash(a->names + begin, a->name_offset[index + 1] - begin);
    }
    r->w2_us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
    r->w2_checksum = checksum;
}

static NOINLINE void array_w4(arrays *a, const config *cfg, result *r)
{
    double times[64];
    for (size_t run = 0; run < cfg->w4_runs; run++) {
        escape(a->score);
        uint64_t t0 = now_ns();
        double sum = 0;
        for (size_t i = 0; i < cfg->count; i++) sum += a->score[i];
        times[run] = (double)(now_ns() - t0) / 1e6;
        r->w4_sum = sum;
    }
    w4_finish(r, times, cfg->w4_runs);
}

static void run_array(const char *dir, const config *cfg, result *r)
{
    (void)dir;
    arrays a;
    array_w1(&a, cfg, r);
    array_w2(&a, cfg, r);
    check_w2("arrays", cfg, r->w2_checksum);
    array_w4(&a, cfg, r);
    check_w4("arrays", cfg, r->w4_sum);
    r->ran_w6 = false;
    free(a.id), free(a.age), free(a.score), free(a.name_offset), free(a.names);
}

/* ------------------------------------------------------------------------ */
/* Summaries                                                                 */
/* ------------------------------------------------------------------------ */

/* SYS_OURS_NOSUM last: not in the default run, a peer of "ours" in the ratios. */
enum { SYS_OURS, SYS_OURS_SETS, SYS_SQLITE, SYS_LMDB, SYS_ARRAY, SYS_OURS_NOSUM, SYS_COUNT };
static const char *const SYSTEM_NAMES[SYS_COUNT] = {"ours", "ours-sets", "sqlite", "lmdb", "array", "ours-nosum"};
static const char *const SYSTEM_TITLES[SYS_COUNT] = {
    "OpenRealm (object store, cengine.h)", "OpenRealm W1 by create + 3 sets", "SQLite WAL, synchronous=FULL",
    "LMDB default flags", "C arrays in memory", "OpenRealm without page checksums"};
typedef void (*run_function)(const char *dir, const config *cfg, result *r);
static const run_function RUNS[SYS_COUNT] = {run_ours, run_ours_sets, run_sqlite, run_lmdb, run_array, run_ours_nosum};

enum {
    M_W1_SECONDS,
    M_W1_RATE,      /* objects/s */
    M_W1_COMMIT,    /* the commit call alone */
    M_W1_MIB,       /* the file after W1 (SQLite: checkpointed db) */
    M_W1_RAW_MIB,   /* SQLite: db + WAL before the checkpoint */
    M_W2_US,
    M_W4_MS,
    M_W6_SECONDS,
    M_W6_COMMIT,
    M_W6_MIB,
    M_W6_RAW_MIB,
    M_W6_GROWTH,    /* file after W6 / file after W1 */
    M_COUNT
};
static const char *const METRIC_NAMES[M_COUNT] = {
    "W1 s", "W1 objects/s", "W1 s in the commit call", "W1 file MiB", "W1 db+WAL MiB (before checkpoint)", "W2 µs/lookup", "W4 ms (median of runs)",
    "W6 s", "W6 s in the commit call", "W6 file MiB", "W6 db+WAL MiB (before checkpoint)", "W6 growth (file after W6 / after W1)"};
/* Whether a metric exists for a system: files only for the three stores, W6 not for arrays. */
static bool metric_applies(int metric, int system)
{
    if (system == SYS_OURS_SETS)
        return metric == M_W1_SECONDS || metric == M_W1_RATE || metric == M_W1_COMMIT || metric == M_W1_MIB;
    if (system == SYS_ARRAY)
        return metric == M_W1_SECONDS || metric == M_W1_RATE || metric == M_W2_US || metric == M_W4_MS;
    return true;
}

static double metric_of(const result *r, int metric, const config *cfg)
{
    switch (metric) {
    case M_W1_SECONDS: return r->w1_seconds;
    case M_W1_RATE: return (double)cfg->count / r->w1_seconds;
    case M_W1_COMMIT: return r->w1_commit_seconds;
    case M_W1_MIB: return (double)r->w1_bytes / 1048576.0;
    case M_W1_RAW_MIB: return (double)r->w1_bytes_raw / 1048576.0;
    case M_W2_US: return r->w2_us;
    case M_W4_MS: return r->w4_ms;
    case M_W6_SECONDS: return r->w6_seconds;
    case M_W6_COMMIT: return r->w6_commit_seconds;
    case M_W6_MIB: return (double)r->w6_bytes / 1048576.0;
    case M_W6_RAW_MIB: return (double)r->w6_bytes_raw / 1048576.0;
    case M_W6_GROWTH: return (double)r->w6_bytes / (double)r->w1_bytes;
    }
    return NAN;
}

static spread metric_spread(const result *results, size_t reps, int metric, const config *cfg)
{
    double values[reps];
    for (size_t r = 0; r < reps; r++) values[r] = metric_of(&results[r], metric, cfg);
    return spread_of(values, reps);
}

/* ours / peer per repetition (paired), and of the medians. */
typedef struct ratio {
    double of_medians;
    spread paired;
} ratio;

static ratio metric_ratio(const result *ours, const result *peer, size_t reps, int metric, const config *cfg)
{
    double values[reps];
    for (size_t r = 0; r < reps; r++) values[r] = metric_of(&ours[r], metric, cfg) / metric_of(&peer[r], metric, cfg);
    ratio q;
    q.paired = spread_of(values, reps);
    q.of_medians = metric_spread(ours, reps, metric, cfg).median / metric_spread(peer, reps, metric, cfg).median;
    return q;
}

static const char *format_value(double value, int metric, char *buffer, size_t size)
{
    if (metric == M_W1_RATE)
        snprintf(buffer, size, "%.3f M", value / 1e6);
    else if (metric == M_W1_SECONDS || metric == M_W6_SECONDS || metric == M_W1_COMMIT || metric == M_W6_COMMIT ||
             metric == M_W2_US || metric == M_W6_GROWTH)
        snprintf(buffer, size, "%.3f", value);
    else
        snprintf(buffer, size, "%.2f", value);
    return buffer;
}

static void print_stats(const char *when, const ce_db_stats *s)
{
    printf("      ce_db_stats after %s: file %.2f MiB, logical %.2f MiB, used %.2f MiB, free %.2f MiB "
           "(%" PRIu64 " extents), %" PRIu64 " nodes, version %" PRIu64 "\n",
           when, (double)s->file_size / 1048576.0, (double)s->logical_size / 1048576.0,
           (double)s->used_bytes / 1048576.0, (double)s->free_bytes / 1048576.0, s->free_extent_count, s->node_count,
           s->version);
}

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [--count N] [--reps N] [--lookups N] [--w4-runs N] [--opens N] [--cold-lookups N] [--dir DIR]\n"
            "          [--systems ours,ours-sets,sqlite,lmdb,array,ours-nosum] [--keep]\n"
            "  --count N    Person objects (default 1000000)\n"
            "  --reps N     repetitions, systems interleaved in each (default 5)\n"
            "  --lookups N  W2 point lookups (default 1000000)\n"
            "  --w4-runs N  W4 sums per repetition, the median is the figure (default 5, at most 64)\n"
            "  --opens N    after W4, ours: W9 (open the existing file + read one object), median of N (default 0: none)\n"
            "  --cold-lookups N  after W4 (and W9): close, drop the file's pages from the page cache\n"
            "               (posix_fadvise DONTNEED), reopen (timed: the cold open) and read the first N\n"
            "               ids of W2's stream (cold W2; at most --lookups; default 0: none)\n"
            "  --dir DIR    where the fresh files go (default: a temp dir on the same file\n"
            "               system as /work, never tmpfs)\n"
            "  --systems L  a comma-separated subset, in run order (default ours,ours-sets,sqlite,lmdb,array;\n"
            "               ours-sets runs W1 only, by ce_object_create + 3 ce_object_set;\n"
            "               ours-nosum runs what ours runs, with disable_page_checksums)\n"
            "  --keep       keep the files (for inspection) instead of removing them\n",
            program);
    exit(2);
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    config cfg = {.count = 1000000, .lookups = 1000000, .w4_runs = 5};
    size_t reps = 5;
    const char *base_dir = NULL;
    bool keep = false;
    int order[SYS_COUNT] = {SYS_OURS, SYS_OURS_SETS, SYS_SQLITE, SYS_LMDB, SYS_ARRAY};
    int system_count = SYS_ARRAY + 1; /* the default run: all but ours-nosum */
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--count") == 0 && a + 1 < argc) {
            cfg.count = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
            reps = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--lookups") == 0 && a + 1 < argc) {
            cfg.lookups = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--w4-runs") == 0 && a + 1 < argc) {
            cfg.w4_runs = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--cold-lookups") == 0 && a + 1 < argc) {
            cfg.cold_lookups = strtoull(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--opens") == 0 && a + 1 < argc) {
            cfg.opens = strtoull(argv[++a], NULL, 10);
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
    if (cfg.count == 0 || reps == 0 || cfg.lookups == 0 || cfg.w4_runs == 0 || cfg.w4_runs > 64 ||
        cfg.cold_lookups > cfg.lookups)
        usage(argv[0]);

    /* What every system must read (untimed). */
    for (size_t k = 0; k < cfg.lookups; k++) {
        person p;
        person_make((uint64_t)lookup_id(k, cfg.count, 0) - 1, &p);
        cfg.expected_checksum += name_hash(p.name, p.name_length);
        if (k + 1 == cfg.cold_lookups) cfg.expected_cold_checksum = cfg.expected_checksum;
    }
    for (size_t i = 0; i < cfg.count; i++) {
        person p;
        person_make(i, &p);
        cfg.expected_sum += p.score;
    }

    char *run_dir = make_run_dir(base_dir, "objects");

    printf("W1, W2, W4, W6: %zu Person objects, %zu lookups, W4 median of %zu sums; %zu repetitions,\n", cfg.count,
           cfg.lookups, cfg.w4_runs, reps);
    printf("    systems interleaved in each repetition (W1 W2 W4 W6 per system), each on a fresh file;\n");
    printf("    W3 (the query engine's) is not part of this program\n");
    print_run_header(run_dir, "figures are noisier");
    printf("peers:       SQLite %s, %s\n", sqlite3_libversion(), mdb_version(NULL, NULL, NULL));
    printf("engine:      OpenRealm %s, public object-store API (W1 by ce_object_create_with_values, and by\n"
           "             create + 3 sets as ours-sets; W4 ce_table_sum; W6 walks ce_object_key_at + ce_object_get: no column\n"
           "             scan API before the query engine)\n",
           ce_engine_version());
    printf("expected:    W2 name checksum %016" PRIx64 ", W4 sum %.17g\n", cfg.expected_checksum, cfg.expected_sum);
    printf("file sizes:  OpenRealm and LMDB: the data file; SQLite: the db after PRAGMA wal_checkpoint(TRUNCATE)\n"
           "             (untimed; WAL then empty), and db + WAL as the commit left them in parentheses\n");
    printf("\n");
    fflush(stdout);

    result *results = calloc(reps * SYS_COUNT, sizeof *results);
    if (!results) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    printf("%-4s %-9s %8s %10s %17s %9s %9s %8s %17s %7s\n", "rep", "system", "W1 s", "W1 Mobj/s", "W1 MiB",
           "W2 us", "W4 ms", "W6 s", "W6 MiB", "growth");
    for (size_t rep = 0; rep < reps; rep++) {
        for (int k = 0; k < system_count; k++) {
            int s = order[k];
            char *dir = make_rep_dir(run_dir, rep + 1, SYSTEM_NAMES[s]);
            result *r = &results[(size_t)s * reps + rep];
            RUNS[s](dir, &cfg, r);
            end_rep_dir(dir, keep);
            printf("%-4zu %-9s %8.3f %10.3f", rep + 1, SYSTEM_NAMES[s], r->w1_seconds,
                   (double)cfg.count / r->w1_seconds / 1e6);
            if (s == SYS_ARRAY) {
                printf(" %17s", "-");
            } else {
                char sizes[64];
                if (s == SYS_SQLITE)
                    snprintf(sizes, sizeof sizes, "%.2f (%.2f)", (double)r->w1_bytes / 1048576.0,
                             (double)r->w1_bytes_raw / 1048576.0);
                else
                    snprintf(sizes, sizeof sizes, "%.2f", (double)r->w1_bytes / 1048576.0);
                printf(" %17s", sizes);
            }
            if (s == SYS_OURS_SETS)
                printf(" %9s %9s", "-", "-");
            else
                printf(" %9.3f %9.2f", r->w2_us, r->w4_ms);
            if (r->ran_w6) {
                char sizes[64];
                if (s == SYS_SQLITE)
                    snprintf(sizes, sizeof sizes, "%.2f (%.2f)", (double)r->w6_bytes / 1048576.0,
                             (double)r->w6_bytes_raw / 1048576.0);
                else
                    snprintf(sizes, sizeof sizes, "%.2f", (double)r->w6_bytes / 1048576.0);
                printf(" %8.3f %17s %7.3f", r->w6_seconds, sizes, (double)r->w6_bytes / (double)r->w1_bytes);
            } else {
                printf(" %8s %17s %7s", "-", "-", "-");
            }
            if (s == SYS_OURS_SETS)
                printf("   (commit call: W1 %.3f s)\n", r->w1_commit_seconds);
            else if (s == SYS_ARRAY)
                printf("   (W4 runs %.2f-%.2f ms)\n", r->w4_min_ms, r->w4_max_ms);
            else
                printf("   (W4 runs %.2f-%.2f ms; commit calls: W1 %.3f s, W6 %.3f s)\n", r->w4_min_ms,
                       r->w4_max_ms, r->w1_commit_seconds, r->w6_commit_seconds);
            if (s == SYS_OURS || s == SYS_OURS_NOSUM)
                printf("      peak RSS after W1: %.1f MiB\n", r->w1_peak_rss_mib);
            if (s == SYS_OURS && cfg.opens > 0) printf("      W9 (open + read one object, page cache warm): %.3f ms\n", r->w9_ms);
            if (r->ran_cold)
                printf("      cold (file %.1f%% in the page cache, %.1f%% after the drop): open %.3f ms (median of %d), "
                       "W2 %.3f us per lookup over %zu\n",
                       100 * r->resident_before, 100 * r->resident_after, r->cold_open_ms, COLD_OPENS, r->cold_w2_us,
                       cfg.cold_lookups);
            if (s == SYS_OURS || s == SYS_OURS_SETS) print_stats("W1", &r->stats_w1);
            if (s == SYS_OURS) print_stats("W6", &r->stats_w6);
            fflush(stdout);
        }
    }
    end_run_dir(run_dir, keep);

    bool ran[SYS_COUNT] = {false};
    for (int k = 0; k < system_count; k++) ran[order[k]] = true;

    printf("\nSummary: median over %zu repetitions [min-max]\n\n", reps);
    printf("| metric |");
    for (int k = 0; k < system_count; k++) printf(" %s |", SYSTEM_TITLES[order[k]]);
    printf("\n|---|");
    for (int k = 0; k < system_count; k++) printf("---:|");
    printf("\n");
    for (int m = 0; m < M_COUNT; m++) {
        printf("| %s |", METRIC_NAMES[m]);
        for (int k = 0; k < system_count; k++) {
            int s = order[k];
            if (!metric_applies(m, s) || ((m == M_W1_RAW_MIB || m == M_W6_RAW_MIB) && s != SYS_SQLITE)) {
                printf(" — |");
                continue;
            }
            spread v = metric_spread(&results[(size_t)s * reps], reps, m, &cfg);
            char a[32], b[32], c[32];
            printf(" %s [%s–%s] |", format_value(v.median, m, a, sizeof a), format_value(v.min, m, b, sizeof b),
                   format_value(v.max, m, c, sizeof c));
        }
        printf("\n");
    }
    if (ran[SYS_OURS]) {
        const result *first = &results[SYS_OURS * reps];
        printf("\nOpenRealm ce_db_stats (repetition 1): after W1 logical %.2f MiB, used %.2f MiB, free %.2f MiB;\n"
               "  after W6 logical %.2f MiB, used %.2f MiB, free %.2f MiB\n",
               (double)first->stats_w1.logical_size / 1048576.0, (double)first->stats_w1.used_bytes / 1048576.0,
               (double)first->stats_w1.free_bytes / 1048576.0, (double)first->stats_w6.logical_size / 1048576.0,
               (double)first->stats_w6.used_bytes / 1048576.0, (double)first->stats_w6.free_bytes / 1048576.0);
    }

    if (ran[SYS_OURS] || ran[SYS_OURS_SETS]) {
        printf("\nRatios ours / peer: of the medians, and paired per repetition median [min-max]\n"
               "(objects/s: > 1 is faster; times and sizes: < 1 is faster/smaller)\n\n");
        printf("| metric | ours | peer | of medians | paired median | paired min–max |\n"
               "|---|---|---|---:|---:|---:|\n");
        const int ratio_metrics[] = {M_W1_RATE, M_W1_MIB, M_W2_US, M_W4_MS, M_W6_SECONDS, M_W6_MIB};
        const int variants[] = {SYS_OURS, SYS_OURS_SETS};
        for (size_t q = 0; q < sizeof ratio_metrics / sizeof *ratio_metrics; q++) {
            int m = ratio_metrics[q];
            for (size_t o = 0; o < 2; o++) {
                int mine = variants[o];
                if (!ran[mine] || !metric_applies(m, mine)) continue;
                for (int peer = SYS_SQLITE; peer < SYS_COUNT; peer++) {
                    if (!ran[peer] || !metric_applies(m, peer)) continue;
                    ratio v = metric_ratio(&results[(size_t)mine * reps], &results[(size_t)peer * reps], reps, m, &cfg);
                    printf("| %s | %s | %s | %.3f | %.3f | %.3f–%.3f |\n", METRIC_NAMES[m], SYSTEM_NAMES[mine],
                           SYSTEM_NAMES[peer], v.of_medians, v.paired.median, v.paired.min, v.paired.max);
                }
            }
        }
    }
    if (ran[SYS_OURS_SETS]) {
        const result *sets = &results[SYS_OURS_SETS * reps];
        printf("\nW1 by create + 3 sets (ours-sets), on the medians:");
        if (ran[SYS_SQLITE])
            printf(" %.3fx SQLite objects/s,", metric_ratio(sets, &results[SYS_SQLITE * reps], reps, M_W1_RATE, &cfg).of_medians);
        if (ran[SYS_LMDB])
            printf(" %.3fx LMDB objects/s,", metric_ratio(sets, &results[SYS_LMDB * reps], reps, M_W1_RATE, &cfg).of_medians);
        if (ran[SYS_OURS])
            printf(" %.3fx create_with_values,", metric_ratio(sets, &results[SYS_OURS * reps], reps, M_W1_RATE, &cfg).of_medians);
        printf(" (targets apply to the headline path)\n");
    }

    if (ran[SYS_OURS]) {
        printf("\nTargets (docs/BENCHMARKS.md), on the medians:\n");
        const result *ours = &results[SYS_OURS * reps];
        if (ran[SYS_SQLITE]) {
            ratio v = metric_ratio(ours, &results[SYS_SQLITE * reps], reps, M_W1_RATE, &cfg);
            printf("  W1 >= 4x SQLite objects/s:        %.3fx  %s\n", v.of_medians, v.of_medians >= 4 ? "met" : "NOT met");
        }
        if (ran[SYS_LMDB]) {
            ratio v = metric_ratio(ours, &results[SYS_LMDB * reps], reps, M_W1_RATE, &cfg);
            printf("  W1 >= 1.3x LMDB objects/s:        %.3fx  %s\n", v.of_medians,
                   v.of_medians >= 1.3 ? "met" : "NOT met");
            v = metric_ratio(ours, &results[SYS_LMDB * reps], reps, M_W2_US, &cfg);
            printf("  W2 time <= LMDB's:                %.3fx  %s\n", v.of_medians, v.of_medians <= 1 ? "met" : "NOT met");
        }
        if (ran[SYS_ARRAY]) {
            ratio v = metric_ratio(ours, &results[SYS_ARRAY * reps], reps, M_W4_MS, &cfg);
            printf("  W4 within 2x of the C arrays:     %.3fx  %s\n", v.of_medians, v.of_medians <= 2 ? "met" : "NOT met");
        }
        if (ran[SYS_SQLITE]) {
            ratio v = metric_ratio(ours, &results[SYS_SQLITE * reps], reps, M_W1_MIB, &cfg);
            printf("  file after W1 <= SQLite's:        %.3fx  %s\n", v.of_medians, v.of_medians <= 1 ? "met" : "NOT met");
        }
        spread g = metric_spread(ours, reps, M_W6_GROWTH, &cfg);
        printf("  growth after W6 <= 1.25x:         %.3fx  %s\n", g.median, g.median <= 1.25 ? "met" : "NOT met");
    }
    printf("\npeak RSS of this process (getrusage ru_maxrss, every system run): %.1f MiB\n", peak_rss_mib());
    free(results);
    free(run_dir);
    return 0;
}
