/*
 * bench_crypt.c — workloads W7, W8 and W9 of docs/BENCHMARKS.md:
 * the engine with and without a 64-byte encryption key against SQLCipher
 * with and without a key (the same library both ways: it is an older
 * SQLite), in one run, systems interleaved per repetition, each on a fresh
 * file.
 *
 * Person { id: int64 primary key, name: string, age: int, score: double }
 * (bench_common.c). Per system and repetition:
 *   W1  insert all objects in one write transaction, durable commit
 *   W2  --lookups point lookups by primary key reading `name`, one read
 *       transaction (the names' checksum is checked), twice in that
 *       transaction: the first pass (reported as "W2 first") decrypts what
 *       W1 wrote, the second is W7's hot W2
 *   W3  count where age >= 50 AND score < 0.5, --w3-runs times in one read
 *       transaction (median; every count is checked: 250,558 for 1M
 *       objects). The engine as bench_queries runs it: the predicate parsed
 *       once (ce_query_parse, untimed), ce_query_count timed each run;
 *       SQLCipher: a prepared SELECT count(*), stepped each run
 *   W4  sum of `score`, --w4-runs times in one read transaction (median;
 *       the sum is checked)
 *   W8  the engine only: writeCopy of the W1 file (ce_db_write_copy, same
 *       key), timed to the copy's last fsync; MB/s of live data (the
 *       source's used bytes); once more without the copy's sync (an
 *       internal switch, writer_syncs), for the copy's own work
 *       apart from the disk's; then W6 (age = age + 1 on every object, one
 *       durable commit) and compaction in place (ce_db_compact): time and
 *       sizes before and after
 *   W9  open the 1M-object file (after W6, compacted) and read one object
 *       by primary key, --w9-opens times (median; the close is not timed),
 *       and the same on a file of --w9-small objects (independence of the
 *       file's size)
 *
 * SQLCipher runs as the SQLite peer of bench_objects does (WAL,
 * synchronous=FULL, prepared statements, INTEGER PRIMARY KEY, no index on
 * age); with a key, `PRAGMA key = "x'<64 hex digits>'"`: a raw 256-bit key,
 * so that its open does not spend the default PBKDF2's 64,000 iterations
 * (the engine's 64-byte key goes through HKDF, not a password hash).
 *
 * The engine's encrypted cache is left at its default (512 MiB on a machine
 * with 8 GiB or more): the 1M-object file fits, so W2-W4 read hot pages.
 *
 * Usage: bench_crypt [--count N] [--reps N] [--lookups N] [--w3-runs N] [--w4-runs N]
 *                    [--w9-opens N] [--w9-small N] [--dir DIR]
 *                    [--systems ours,ours-key,sqlcipher,sqlcipher-key]
 * Build it in Release and run it under `chrt -f 1` (Benchmarks/run_crypt.sh).
 */
#include "bench_common.h"
#include "cengine.h"
#include "writer.h" /* writer_syncs: W8 without the syncs */

#include <sqlite3.h> /* SQLCipher's (the build puts its directory first) */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define MAX_RUNS 64

enum { SYS_OURS, SYS_OURS_KEY, SYS_SQLCIPHER, SYS_SQLCIPHER_KEY, SYS_COUNT };
static const char *const SYSTEM_NAMES[SYS_COUNT] = {"ours", "ours-key", "sqlcipher", "sqlcipher-key"};

typedef struct config {
    size_t count, lookups, w3_runs, w4_runs, w9_opens, w9_small;
    uint64_t expected_checksum;
    double expected_sum;
    int64_t expected_w3;
} config;

typedef struct result {
    double w1_seconds;
    uint64_t w1_bytes;
    double w2_us, w2_first_us; /* the hot pass, and the first one */
    double w3_ms;
    double w4_ms;
    double w6_seconds;
    uint64_t w6_bytes;
    /* W8 (the engine only) */
    double copy_seconds, copy_nosync_seconds;
    uint64_t copy_live_bytes, copy_source_bytes, copy_bytes;
    double compact_seconds;
    uint64_t compact_before, compact_after, compact_live_bytes;
    /* W9 */
    double w9_ms, w9_small_ms;
    uint64_t w9_bytes, w9_small_bytes;
} result;

static const uint8_t ENGINE_KEY[64] = {
    0x3b, 0x91, 0x5e, 0x07, 0xc4, 0x22, 0x8f, 0x6d, 0x10, 0xa7, 0x59, 0xe3, 0x74, 0x0c, 0xd1, 0x46,
    0x9a, 0x2f, 0xb8, 0x63, 0x05, 0xee, 0x71, 0x1c, 0x88, 0x34, 0xcb, 0x5a, 0xf0, 0x17, 0x6e, 0x92,
    0x4d, 0xa1, 0x0b, 0xd6, 0x3f, 0x78, 0xe5, 0x29, 0xb4, 0x50, 0x9c, 0x13, 0x67, 0xfa, 0x2e, 0x81,
    0x5d, 0xc9, 0x06, 0x7b, 0xe0, 0x44, 0x1f, 0xa8, 0x93, 0x38, 0xdf, 0x62, 0x0e, 0xb5, 0x7a, 0x21};
static const char SQLCIPHER_KEY[] = "PRAGMA key = \"x'3b915e07c4228f6d10a759e3740cd1469a2fb86305ee711c8834cb5af0176e92'\"";


static void expect(bool condition, const char *system, const char *what)
{
    if (condition) return;
    fprintf(stderr, "%s: %s\n", system, what);
    exit(1);
}

/* ------------------------------------------------------------------------ */
/* The engine                                                                */
/* ------------------------------------------------------------------------ */

typedef struct ours_schema {
    ce_table_key table;
    ce_column_key id, name, age, score;
} ours_schema;

static ce_db *ours_open(const char *path, bool key)
{
    ce_db_options options;
    ce_db_options_init(&options);
    if (key) {
        options.encryption_key = ENGINE_KEY;
        options.encryption_key_size = sizeof ENGINE_KEY;
    }
    ce_db *db;
    ours_check(ce_db_open(path, &options, &db), "ce_db_open");
    return db;
}

static void ours_schema_create(ce_db *db, ours_schema *s)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "begin write (schema)");
    ours_check(ce_table_add(txn, "Person", &s->table), "ce_table_add");
    const ce_property_info id = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    const ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    const ce_property_info age = {.name = "age", .type = CE_TYPE_INT};
    const ce_property_info score = {.name = "score", .type = CE_TYPE_DOUBLE};
    ours_check(ce_property_add(txn, s->table, &id, &s->id) && ce_property_add(txn, s->table, &name, &s->name) &&
                   ce_property_add(txn, s->table, &age, &s->age) && ce_property_add(txn, s->table, &score, &s->score),
               "ce_property_add");
    ours_check(ce_txn_commit(txn), "commit (schema)");
}

static NOINLINE void ours_insert(ce_db *db, const ours_schema *s, size_t count)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "W1 ce_txn_begin_write");
    for (size_t i = 0; i < count; i++) {
        person p;
        person_make(i, &p);
        ce_value values[4];
        values[s->id] = (ce_value){.type = CE_TYPE_INT, .integer = p.id};
        values[s->name] = (ce_value){.type = CE_TYPE_STRING, .string = {p.name, p.name_length}};
        values[s->age] = (ce_value){.type = CE_TYPE_INT, .integer = p.age};
        values[s->score] = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = p.score};
        ce_object_key object;
        ours_check(ce_object_create_with_values(txn, s->table, values, 4, &object), "W1 create");
    }
    ours_check(ce_txn_commit(txn), "W1 ce_txn_commit");
}

/* W2's lookups in `txn`, as µs per lookup. */
static NOINLINE double ours_w2_pass(ce_txn *txn, const ours_schema *s, const config *cfg)
{
    uint64_t checksum = 0, t0 = now_ns();
    for (size_t k = 0; k < cfg->lookups; k++) {
        ce_value key = {.type = CE_TYPE_INT, .integer = lookup_id(k, cfg->count, 0)}, name;
        ce_object_key object;
        bool found;
        ours_check(ce_object_find_primary_key(txn, s->table, &key, &object, &found) && found &&
                       ce_object_get(txn, s->table, object, s->name, &name),
                   "W2 lookup");
        checksum += name_hash(name.string.data, name.string.size);
    }
    double us = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
    expect(checksum == cfg->expected_checksum, "OpenRealm", "W2 read other names");
    return us;
}

static void ours_w2(ce_db *db, const ours_schema *s, const config *cfg, result *r)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "W2 ce_txn_begin_read");
    r->w2_first_us = ours_w2_pass(txn, s, cfg);
    r->w2_us = ours_w2_pass(txn, s, cfg);
    ce_txn_end(txn);
}

static NOINLINE double ours_w3(ce_db *db, const ours_schema *s, const config *cfg)
{
    double times[MAX_RUNS];
    ce_txn *txn;
    ce_query *query;
    ours_check(ce_txn_begin_read(db, &txn), "W3 ce_txn_begin_read");
    ours_check(ce_query_parse(txn, s->table, "age >= 50 AND score < 0.5", NULL, 0, &query), "W3 ce_query_parse");
    for (size_t run = 0; run < cfg->w3_runs; run++) {
        uint64_t t0 = now_ns();
        size_t count;
        ours_check(ce_query_count(query, txn, &count), "W3 ce_query_count");
        times[run] = (double)(now_ns() - t0) / 1e6;
        expect((int64_t)count == cfg->expected_w3, "OpenRealm", "W3 count");
    }
    ce_query_free(query);
    ce_txn_end(txn);
    return median_of(times, cfg->w3_runs);
}

static NOINLINE double ours_w4(ce_db *db, const ours_schema *s, const config *cfg)
{
    double times[MAX_RUNS];
    ce_txn *txn;
    ours_check(ce_txn_begin_read(db, &txn), "W4 ce_txn_begin_read");
    for (size_t run = 0; run < cfg->w4_runs; run++) {
        uint64_t t0 = now_ns();
        ce_value total;
        ours_check(ce_table_sum(txn, s->table, s->score, &total, NULL), "W4 ce_table_sum");
        times[run] = (double)(now_ns() - t0) / 1e6;
        expect(fabs(total.double_value - cfg->expected_sum) <= 1e-9 * cfg->expected_sum, "OpenRealm", "W4 sum");
    }
    ce_txn_end(txn);
    return median_of(times, cfg->w4_runs);
}

static NOINLINE void ours_w6(ce_db *db, const ours_schema *s)
{
    ce_txn *txn;
    ours_check(ce_txn_begin_write(db, &txn), "W6 ce_txn_begin_write");
    size_t count;
    ours_check(ce_object_count(txn, s->table, &count), "W6 ce_object_count");
    for (size_t i = 0; i < count; i++) {
        ce_object_key object;
        ce_value age;
        ours_check(ce_object_key_at(txn, s->table, i, &object) && ce_object_get(txn, s->table, object, s->age, &age),
                   "W6 read age");
        age.integer++;
        ours_check(ce_object_set(txn, s->table, object, s->age, &age), "W6 ce_object_set");
    }
    ours_check(ce_txn_commit(txn), "W6 ce_txn_commit");
}

/* W9: bench_common.c's, with or without the key. */
static double ours_w9(const char *path, bool key, size_t count, size_t opens)
{
    ce_db_options options;
    ce_db_options_init(&options);
    if (key) {
        options.encryption_key = ENGINE_KEY;
        options.encryption_key_size = sizeof ENGINE_KEY;
    }
    return ours_open_and_read_ms(path, &options, count, opens);
}

static uint64_t ours_used_bytes(ce_db *db)
{
    uint64_t total, used;
    ours_check(ce_db_size_info(db, &total, &used), "ce_db_size_info");
    return used;
}

static void run_ours(const char *dir, const config *cfg, bool key, result *r)
{
    char *path = join_path(dir, "person.realm");
    char *copy = join_path(dir, "person-copy.realm");
    char *small = join_path(dir, "small.realm");
    ce_db *db = ours_open(path, key);
    ours_schema s;
    ours_schema_create(db, &s);
    uint64_t t0 = now_ns();
    ours_insert(db, &s, cfg->count);
    r->w1_seconds = seconds_since(t0);
    r->w1_bytes = file_size_or_zero(path);
    ours_w2(db, &s, cfg, r);
    r->w3_ms = ours_w3(db, &s, cfg);
    r->w4_ms = ours_w4(db, &s, cfg);

    /* W8: writeCopy of the W1 file (the same key: a backup). */
    ce_db_stats stats;
    ours_check(ce_db_verify(db, &stats), "ce_db_verify");
    r->copy_source_bytes = stats.file_size;
    r->copy_live_bytes = stats.used_bytes;
    ce_copy_options options;
    ce_copy_options_init(&options);
    if (key) {
        options.encryption_key = ENGINE_KEY;
        options.encryption_key_size = sizeof ENGINE_KEY;
    }
    t0 = now_ns();
    ours_check(ce_db_write_copy(db, copy, &options), "W8 ce_db_write_copy");
    r->copy_seconds = seconds_since(t0);
    r->copy_bytes = file_size_or_zero(copy);
    /* Again without the copy's sync: the copy's own work. */
    unlink(copy);
    writer_syncs = false;
    t0 = now_ns();
    ours_check(ce_db_write_copy(db, copy, &options), "W8 ce_db_write_copy (no sync)");
    r->copy_nosync_seconds = seconds_since(t0);
    writer_syncs = true;
    unlink(copy);

    t0 = now_ns();
    ours_w6(db, &s);
    r->w6_seconds = seconds_since(t0);
    r->w6_bytes = file_size_or_zero(path);
    r->compact_before = r->w6_bytes;
    r->compact_live_bytes = ours_used_bytes(db);
    t0 = now_ns();
    ours_check(ce_db_compact(db, NULL), "W8 ce_db_compact");
    r->compact_seconds = seconds_since(t0);
    r->compact_after = file_size_or_zero(path);
    ours_check(ce_db_verify(db, &stats), "ce_db_verify after compaction");
    ours_check(ce_db_close(db), "ce_db_close");

    /* W9 on this file and on a small one. */
    r->w9_bytes = file_size_or_zero(path);
    r->w9_ms = ours_w9(path, key, cfg->count, cfg->w9_opens);
    db = ours_open(small, key);
    ours_schema_create(db, &s);
    ours_insert(db, &s, cfg->w9_small);
    ours_check(ce_db_close(db), "ce_db_close");
    r->w9_small_bytes = file_size_or_zero(small);
    r->w9_small_ms = ours_w9(small, key, cfg->w9_small, cfg->w9_opens);
    free(path);
    free(copy);
    free(small);
}

static void run_ours_plain(const char *dir, const config *cfg, result *r) { run_ours(dir, cfg, false, r); }
static void run_ours_key(const char *dir, const config *cfg, result *r) { run_ours(dir, cfg, true, r); }

/* ------------------------------------------------------------------------ */
/* SQLCipher                                                                 */
/* ------------------------------------------------------------------------ */

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *statement;
    sqlite_check(db, sqlite3_prepare_v2(db, sql, -1, &statement, NULL), SQLITE_OK, sql);
    return statement;
}

static sqlite3 *sqlcipher_open(const char *path, bool key)
{
    sqlite3 *db = NULL;
    sqlite_check(db, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK, "open");
    if (key) sqlite_exec(db, SQLCIPHER_KEY);
    return db;
}

static void sqlcipher_insert(sqlite3 *db, size_t count)
{
    sqlite_exec(db, "BEGIN");
    sqlite3_stmt *insert = prepare(db, "INSERT INTO person(id, name, age, score) VALUES (?, ?, ?, ?)");
    for (size_t i = 0; i < count; i++) {
        person p;
        person_make(i, &p);
        sqlite3_bind_int64(insert, 1, p.id);
        sqlite3_bind_text(insert, 2, p.name, (int)p.name_length, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 3, p.age);
        sqlite3_bind_double(insert, 4, p.score);
        sqlite_step_reset(db, insert, "W1 INSERT");
    }
    sqlite3_finalize(insert);
    sqlite_exec(db, "COMMIT");
}

static void sqlcipher_setup(sqlite3 *db)
{
    sqlite3_stmt *mode = prepare(db, "PRAGMA journal_mode=WAL");
    sqlite_check(db, sqlite3_step(mode), SQLITE_ROW, "journal_mode");
    expect(strcmp((const char *)sqlite3_column_text(mode, 0), "wal") == 0, "SQLCipher", "journal_mode is not wal");
    sqlite3_finalize(mode);
    sqlite_exec(db, "PRAGMA synchronous=FULL");
    sqlite_exec(db, "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, "
                    "score REAL NOT NULL)");
}

static double sqlcipher_w9(const char *path, bool key, size_t count, size_t opens)
{
    double times[MAX_RUNS];
    for (size_t run = 0; run < opens; run++) {
        person p;
        person_make((uint64_t)(splitmix64(run) % count), &p);
        uint64_t t0 = now_ns();
        sqlite3 *db = sqlcipher_open(path, key);
        sqlite3_stmt *select = prepare(db, "SELECT name FROM person WHERE id = ?");
        sqlite3_bind_int64(select, 1, p.id);
        sqlite_check(db, sqlite3_step(select), SQLITE_ROW, "W9 SELECT");
        expect((size_t)sqlite3_column_bytes(select, 0) == p.name_length &&
                   memcmp(sqlite3_column_text(select, 0), p.name, p.name_length) == 0,
               "SQLCipher", "W9 read another name");
        sqlite3_finalize(select);
        times[run] = (double)(now_ns() - t0) / 1e6;
        sqlite3_close(db);
    }
    return median_of(times, opens);
}

static void run_sqlcipher(const char *dir, const config *cfg, bool key, result *r)
{
    char *path = join_path(dir, "person.sqlite");
    char *small = join_path(dir, "small.sqlite");
    sqlite3 *db = sqlcipher_open(path, key);
    sqlcipher_setup(db);
    uint64_t t0 = now_ns();
    sqlcipher_insert(db, cfg->count);
    r->w1_seconds = seconds_since(t0);
    sqlite_check(db, sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL), SQLITE_OK,
                 "checkpoint");
    r->w1_bytes = file_size_or_zero(path);

    /* W2 */
    sqlite3_stmt *select = prepare(db, "SELECT name FROM person WHERE id = ?");
    sqlite_exec(db, "BEGIN");
    for (int pass = 0; pass < 2; pass++) {
        uint64_t checksum = 0;
        t0 = now_ns();
        for (size_t k = 0; k < cfg->lookups; k++) {
            sqlite3_bind_int64(select, 1, lookup_id(k, cfg->count, 0));
            sqlite_check(db, sqlite3_step(select), SQLITE_ROW, "W2 SELECT");
            checksum +=
                name_hash((const char *)sqlite3_column_text(select, 0), (size_t)sqlite3_column_bytes(select, 0));
            sqlite_check(db, sqlite3_reset(select), SQLITE_OK, "W2 reset");
        }
        *(pass == 0 ? &r->w2_first_us : &r->w2_us) = (double)(now_ns() - t0) / 1e3 / (double)cfg->lookups;
        expect(checksum == cfg->expected_checksum, "SQLCipher", "W2 read other names");
    }
    sqlite_exec(db, "COMMIT");
    sqlite3_finalize(select);

    /* W3 and W4, each in one read transaction. */
    double times[MAX_RUNS];
    sqlite3_stmt *count = prepare(db, "SELECT count(*) FROM person WHERE age >= 50 AND score < 0.5");
    sqlite_exec(db, "BEGIN");
    for (size_t run = 0; run < cfg->w3_runs; run++) {
        uint64_t t1 = now_ns();
        sqlite_check(db, sqlite3_step(count), SQLITE_ROW, "W3 SELECT count");
        int64_t answer = sqlite3_column_int64(count, 0);
        sqlite_check(db, sqlite3_reset(count), SQLITE_OK, "W3 reset");
        times[run] = (double)(now_ns() - t1) / 1e6;
        expect(answer == cfg->expected_w3, "SQLCipher", "W3 count");
    }
    sqlite_exec(db, "COMMIT");
    sqlite3_finalize(count);
    r->w3_ms = median_of(times, cfg->w3_runs);
    sqlite3_stmt *sum = prepare(db, "SELECT sum(score) FROM person");
    sqlite_exec(db, "BEGIN");
    for (size_t run = 0; run < cfg->w4_runs; run++) {
        uint64_t t1 = now_ns();
        sqlite_check(db, sqlite3_step(sum), SQLITE_ROW, "W4 SELECT sum");
        double total = sqlite3_column_double(sum, 0);
        sqlite_check(db, sqlite3_reset(sum), SQLITE_OK, "W4 reset");
        times[run] = (double)(now_ns() - t1) / 1e6;
        expect(fabs(total - cfg->expected_sum) <= 1e-9 * cfg->expected_sum, "SQLCipher", "W4 sum");
    }
    sqlite_exec(db, "COMMIT");
    sqlite3_finalize(sum);
    r->w4_ms = median_of(times, cfg->w4_runs);

    t0 = now_ns();
    sqlite_exec(db, "BEGIN");
    sqlite_exec(db, "UPDATE person SET age = age + 1");
    sqlite_exec(db, "COMMIT");
    r->w6_seconds = seconds_since(t0);
    sqlite_check(db, sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL), SQLITE_OK,
                 "checkpoint");
    r->w6_bytes = file_size_or_zero(path);
    sqlite3_close(db);

    r->w9_bytes = file_size_or_zero(path);
    r->w9_ms = sqlcipher_w9(path, key, cfg->count, cfg->w9_opens);
    db = sqlcipher_open(small, key);
    sqlcipher_setup(db);
    sqlcipher_insert(db, cfg->w9_small);
    sqlite_check(db, sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL), SQLITE_OK,
                 "checkpoint");
    sqlite3_close(db);
    r->w9_small_bytes = file_size_or_zero(small);
    r->w9_small_ms = sqlcipher_w9(small, key, cfg->w9_small, cfg->w9_opens);
    free(path);
    free(small);
}

static void run_sqlcipher_plain(const char *dir, const config *cfg, result *r) { run_sqlcipher(dir, cfg, false, r); }
static void run_sqlcipher_key(const char *dir, const config *cfg, result *r) { run_sqlcipher(dir, cfg, true, r); }

typedef void (*run_function)(const char *dir, const config *cfg, result *r);
static const run_function RUNS[SYS_COUNT] = {run_ours_plain, run_ours_key, run_sqlcipher_plain, run_sqlcipher_key};

/* ------------------------------------------------------------------------ */
/* Report                                                                    */
/* ------------------------------------------------------------------------ */

typedef double (*metric_fn)(const result *r);
static double m_w1(const result *r) { return r->w1_seconds; }
static double m_w2(const result *r) { return r->w2_us; }
static double m_w2_first(const result *r) { return r->w2_first_us; }
static double m_w3(const result *r) { return r->w3_ms; }
static double m_w4(const result *r) { return r->w4_ms; }
static double m_w6(const result *r) { return r->w6_seconds; }
static double m_copy_rate(const result *r) { return (double)r->copy_live_bytes / r->copy_seconds / 1e6; }
static double m_copy_s(const result *r) { return r->copy_seconds; }
static double m_copy_nosync_rate(const result *r) { return (double)r->copy_live_bytes / r->copy_nosync_seconds / 1e6; }
static double m_compact_rate(const result *r) { return (double)r->compact_live_bytes / r->compact_seconds / 1e6; }
static double m_w9(const result *r) { return r->w9_ms; }
static double m_w9_small(const result *r) { return r->w9_small_ms; }

static spread metric_spread(const result *results, size_t reps, metric_fn metric)
{
    double values[MAX_RUNS];
    for (size_t i = 0; i < reps; i++) values[i] = metric(&results[i]);
    return spread_of(values, reps);
}

/* The median over repetitions of the per-repetition ratio a / b. */
static spread ratio_of(const result *a, const result *b, size_t reps, metric_fn metric)
{
    double values[MAX_RUNS];
    for (size_t i = 0; i < reps; i++) values[i] = metric(&a[i]) / metric(&b[i]);
    return spread_of(values, reps);
}

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [--count N] [--reps N] [--lookups N] [--w3-runs N] [--w4-runs N] [--w9-opens N] "
            "[--w9-small N] [--dir DIR] [--systems ours,ours-key,sqlcipher,sqlcipher-key]\n",
            program);
    exit(2);
}

int main(int argc, char **argv)
{
    config cfg = {.count = 1000000, .lookups = 1000000, .w3_runs = 20, .w4_runs = 5, .w9_opens = 21, .w9_small = 10000};
    size_t reps = 5;
    const char *base_dir = NULL;
    int order[SYS_COUNT] = {SYS_OURS, SYS_OURS_KEY, SYS_SQLCIPHER, SYS_SQLCIPHER_KEY};
    bool enabled[SYS_COUNT] = {true, true, true, true};
    for (int a = 1; a < argc; a++) {
        if (a + 1 >= argc) usage(argv[0]);
        const char *option = argv[a], *value = argv[++a];
        if (strcmp(option, "--count") == 0) cfg.count = strtoull(value, NULL, 10);
        else if (strcmp(option, "--reps") == 0) reps = strtoull(value, NULL, 10);
        else if (strcmp(option, "--lookups") == 0) cfg.lookups = strtoull(value, NULL, 10);
        else if (strcmp(option, "--w3-runs") == 0) cfg.w3_runs = strtoull(value, NULL, 10);
        else if (strcmp(option, "--w4-runs") == 0) cfg.w4_runs = strtoull(value, NULL, 10);
        else if (strcmp(option, "--w9-opens") == 0) cfg.w9_opens = strtoull(value, NULL, 10);
        else if (strcmp(option, "--w9-small") == 0) cfg.w9_small = strtoull(value, NULL, 10);
        else if (strcmp(option, "--dir") == 0) base_dir = value;
        else if (strcmp(option, "--systems") == 0) {
            char *list = strdup(value);
            for (int s = 0; s < SYS_COUNT; s++) enabled[s] = false;
            for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
                int found = -1;
                for (int s = 0; s < SYS_COUNT; s++)
                    if (strcmp(name, SYSTEM_NAMES[s]) == 0) found = s;
                if (found < 0) usage(argv[0]);
                enabled[found] = true;
            }
            free(list);
        } else usage(argv[0]);
    }
    if (cfg.count == 0 || cfg.w9_small == 0 || reps == 0 || reps > MAX_RUNS || cfg.lookups == 0 || cfg.w3_runs == 0 ||
        cfg.w3_runs > MAX_RUNS || cfg.w4_runs == 0 || cfg.w4_runs > MAX_RUNS || cfg.w9_opens == 0 ||
        cfg.w9_opens > MAX_RUNS)
        usage(argv[0]);
    for (size_t k = 0; k < cfg.lookups; k++) {
        person p;
        person_make((uint64_t)lookup_id(k, cfg.count, 0) - 1, &p);
        cfg.expected_checksum += name_hash(p.name, p.name_length);
    }
    for (size_t i = 0; i < cfg.count; i++) {
        person p;
        person_make(i, &p);
        cfg.expected_sum += p.score;
        if (p.age >= 50 && p.score < 0.5) cfg.expected_w3++;
    }

    char *run_dir = make_run_dir(base_dir, "crypt");
    printf("W7, W8, W9: %zu Person objects, %zu lookups, W3 median of %zu counts, W4 median of %zu sums, W9 median of\n"
           "    %zu opens (and on a file of %zu objects); %zu repetitions, systems interleaved in each\n",
           cfg.count, cfg.lookups, cfg.w3_runs, cfg.w4_runs, cfg.w9_opens, cfg.w9_small, reps);
    print_run_header(run_dir, "noisier");
    printf("peer:        SQLCipher (SQLite %s), WAL, synchronous=FULL; key: raw 256-bit (PRAGMA key = \"x'...'\")\n",
           sqlite3_libversion());
    printf("engine:      OpenRealm %s; key: 64 bytes; encrypted cache: default\n", ce_engine_version());
    printf("expected:    W3 count %" PRId64 ", W4 sum %.17g\n\n", cfg.expected_w3, cfg.expected_sum);
    fflush(stdout);

    result *results = calloc(reps * SYS_COUNT, sizeof *results);
    if (!results) return 1;
    printf("%-4s %-13s %7s %8s %8s %8s %8s %7s %8s %9s %9s %8s %8s\n", "rep", "system", "W1 s", "W1 MiB", "W2 us",
           "W3 ms", "W4 ms", "W6 s", "copy s", "copy MB/s", "compact", "W9 ms", "W9s ms");
    for (size_t rep = 0; rep < reps; rep++) {
        for (int k = 0; k < SYS_COUNT; k++) {
            int s = order[k];
            if (!enabled[s]) continue;
            char *dir = make_rep_dir(run_dir, rep + 1, SYSTEM_NAMES[s]);
            result *r = &results[(size_t)s * reps + rep];
            RUNS[s](dir, &cfg, r);
            end_rep_dir(dir, false);
            bool ours = s == SYS_OURS || s == SYS_OURS_KEY;
            char copy[16] = "-", rate[16] = "-", compact[24] = "-";
            if (ours) {
                snprintf(copy, sizeof copy, "%.3f", r->copy_seconds);
                snprintf(rate, sizeof rate, "%.0f", m_copy_rate(r));
                snprintf(compact, sizeof compact, "%.3f", r->compact_seconds);
            }
            printf("%-4zu %-13s %7.3f %8.1f %8.3f %8.2f %8.2f %7.3f %8s %9s %9s %8.3f %8.3f\n", rep + 1,
                   SYSTEM_NAMES[s], r->w1_seconds, (double)r->w1_bytes / 1048576.0, r->w2_us, r->w3_ms, r->w4_ms,
                   r->w6_seconds, copy, rate, compact, r->w9_ms, r->w9_small_ms);
            fflush(stdout);
        }
    }

    printf("\nmedians over %zu repetitions (low-high)\n", reps);
    const struct {
        const char *name;
        metric_fn metric;
        bool ours_only, peer_only;
    } metrics[] = {{"W1 s", m_w1, false, false},           {"W2 us", m_w2, false, false},
                   {"W2 first us", m_w2_first, false, false},
                   {"W3 ms", m_w3, false, false},          {"W4 ms", m_w4, false, false},
                   {"W6 s", m_w6, false, false},           {"W8 copy s", m_copy_s, true, false},
                   {"W8 copy MB/s", m_copy_rate, true, false},
                   {"W8 copy MB/s, no sync", m_copy_nosync_rate, true, false},
                   {"W8 compact MB/s", m_compact_rate, true, false},
                   {"W9 ms", m_w9, false, false},          {"W9 small ms", m_w9_small, false, false}};
    for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
        printf("%-25s", metrics[m].name);
        for (int s = 0; s < SYS_COUNT; s++) {
            bool ours = s == SYS_OURS || s == SYS_OURS_KEY;
            if (!enabled[s] || (metrics[m].ours_only && !ours) || (metrics[m].peer_only && ours)) {
                printf("  %-13s %22s", SYSTEM_NAMES[s], "-");
                continue;
            }
            spread v = metric_spread(&results[(size_t)s * reps], reps, metrics[m].metric);
            char text[64];
            snprintf(text, sizeof text, "%.3f (%.3f-%.3f)", v.median, v.min, v.max);
            printf("  %-13s %22s", SYSTEM_NAMES[s], text);
        }
        printf("\n");
    }
    printf("\nsizes (MiB, last repetition): ");
    for (int s = 0; s < SYS_COUNT; s++) {
        if (!enabled[s]) continue;
        const result *r = &results[(size_t)s * reps + reps - 1];
        printf("%s W1 %.1f, W6 %.1f", SYSTEM_NAMES[s], (double)r->w1_bytes / 1048576.0, (double)r->w6_bytes / 1048576.0);
        if (s == SYS_OURS || s == SYS_OURS_KEY)
            printf(" (live %.1f, copy %.1f; compaction %.1f -> %.1f)", (double)r->copy_live_bytes / 1048576.0,
                   (double)r->copy_bytes / 1048576.0, (double)r->compact_before / 1048576.0,
                   (double)r->compact_after / 1048576.0);
        printf("; W9 files %.1f and %.2f; ", (double)r->w9_bytes / 1048576.0, (double)r->w9_small_bytes / 1048576.0);
    }
    printf("\n\nratios (median of per-repetition ratios, low-high)\n");
    const struct {
        const char *name;
        int a, b;
        metric_fn metric;
    } ratios[] = {
        {"W1 ours-key / ours (target <= 1.3)", SYS_OURS_KEY, SYS_OURS, m_w1},
        {"W2 ours-key / ours (target <= 1.15)", SYS_OURS_KEY, SYS_OURS, m_w2},
        {"W3 ours-key / ours (target <= 1.15)", SYS_OURS_KEY, SYS_OURS, m_w3},
        {"W4 ours-key / ours (target <= 1.15)", SYS_OURS_KEY, SYS_OURS, m_w4},
        {"W2 first pass ours-key / ours", SYS_OURS_KEY, SYS_OURS, m_w2_first},
        {"W2 sqlcipher-key / ours-key (target >= 5)", SYS_SQLCIPHER_KEY, SYS_OURS_KEY, m_w2},
        {"W3 sqlcipher-key / ours-key (target >= 5)", SYS_SQLCIPHER_KEY, SYS_OURS_KEY, m_w3},
        {"W4 sqlcipher-key / ours-key", SYS_SQLCIPHER_KEY, SYS_OURS_KEY, m_w4},
        {"W1 sqlcipher-key / ours-key", SYS_SQLCIPHER_KEY, SYS_OURS_KEY, m_w1},
        {"W2 sqlcipher-key / sqlcipher", SYS_SQLCIPHER_KEY, SYS_SQLCIPHER, m_w2},
        {"W3 sqlcipher-key / sqlcipher", SYS_SQLCIPHER_KEY, SYS_SQLCIPHER, m_w3},
        {"W9 ours-key / ours", SYS_OURS_KEY, SYS_OURS, m_w9},
    };
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        if (!enabled[ratios[i].a] || !enabled[ratios[i].b]) continue;
        spread v = ratio_of(&results[(size_t)ratios[i].a * reps], &results[(size_t)ratios[i].b * reps], reps,
                            ratios[i].metric);
        printf("  %-44s %6.3f (%.3f-%.3f)\n", ratios[i].name, v.median, v.min, v.max);
    }
    end_run_dir(run_dir, false);
    free(run_dir);
    free(results);
    return 0;
}
