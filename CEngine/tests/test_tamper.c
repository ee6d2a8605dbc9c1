/*
 * test_tamper.c — random damage to a closed database file: every open and
 * read either fails with an error or returns exactly what was written
 * (docs/DESIGN.md invariant 5).
 *
 * Owns: the tamper trials of plain files (page checksums) and encrypted
 * files (page authentication): a file written through cengine.h, then per
 * trial a copy of it with one random change (a bit flipped, a byte set, or
 * eight bytes overwritten) at a random place among its written bytes,
 * opened and read object by object against the values the test wrote.
 * Never: counts an error as a failure (damage must be an error), or
 * accepts a read that succeeds with other data, an older version, or fewer
 * objects.
 *
 * ctest runs a few hundred trials per kind of file; a longer run:
 *     test_tamper --seed 7 --count 20000 plain encrypted
 * The documented limit (docs/DESIGN.md invariant 5: a whole older file put
 * back cannot be told from the current one without outside state) is not
 * something a change of a few bytes produces, so every trial must hold.
 */
#include "test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OBJECTS 2000
#define DEFAULT_TRIALS 300

static int64_t expected_n(int64_t i) { return i % 3 == 0 ? i * 7 + 1 : i * 5 - 3; }
static double expected_d(int64_t i) { return (double)i * 0.5; }
static size_t expected_s(int64_t i, char *buffer)
{
    int length = snprintf(buffer, 200, "thing-%lld", (long long)i);
    for (int64_t k = 0; k < i % 7; k++) length += snprintf(buffer + length, 200 - (size_t)length, "-%lld", (long long)(i * 31 + k));
    return (size_t)length;
}

typedef struct columns {
    ce_table_key table;
    ce_column_key id, n, s, d;
} columns;

static ce_db *open_file(const char *path, const uint8_t *key)
{
    ce_db_options options;
    ce_db_options_init(&options);
    if (key) {
        options.encryption_key = key;
        options.encryption_key_size = 64;
    }
    ce_db *db = NULL;
    if (!ce_db_open(path, &options, &db)) return NULL;
    return db;
}

static void set_values(ce_txn *txn, const columns *c, ce_object_key object, int64_t i)
{
    char text[200];
    ce_value n = {.type = CE_TYPE_INT, .integer = i * 5 - 3};
    ce_value d = {.type = CE_TYPE_DOUBLE, .double_value = expected_d(i)};
    ce_value s = {.type = CE_TYPE_STRING};
    s.string.size = expected_s(i, text);
    s.string.data = text;
    CHECK(ce_object_set(txn, c->table, object, c->n, &n));
    CHECK(ce_object_set(txn, c->table, object, c->d, &d));
    CHECK(ce_object_set(txn, c->table, object, c->s, &s));
}

/* Three commits of objects, then one that changes every third: the file
 * holds several versions' worth of free space and checksums. */
static void write_file(const char *path, const uint8_t *key)
{
    ce_db *db = open_file(path, key);
    CHECK(db != NULL);
    columns c;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Thing", &c.table));
    ce_property_info id = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    ce_property_info n = {.name = "n", .type = CE_TYPE_INT};
    ce_property_info s = {.name = "s", .type = CE_TYPE_STRING};
    ce_property_info d = {.name = "d", .type = CE_TYPE_DOUBLE};
    CHECK(ce_property_add(txn, c.table, &id, &c.id));
    CHECK(ce_property_add(txn, c.table, &n, &c.n));
    CHECK(ce_property_add(txn, c.table, &s, &c.s));
    CHECK(ce_property_add(txn, c.table, &d, &c.d));
    CHECK(ce_txn_commit(txn));
    for (int64_t from = 0; from < OBJECTS; from += OBJECTS / 2) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int64_t i = from; i < from + OBJECTS / 2; i++) {
            ce_value pk = {.type = CE_TYPE_INT, .integer = i};
            ce_object_key object;
            CHECK(ce_object_create(txn, c.table, &pk, &object));
            set_values(txn, &c, object, i);
        }
        CHECK(ce_txn_commit(txn));
    }
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t i = 0; i < OBJECTS; i += 3) {
        ce_value pk = {.type = CE_TYPE_INT, .integer = i};
        ce_object_key object;
        bool found;
        CHECK(ce_object_find_primary_key(txn, c.table, &pk, &object, &found) && found);
        ce_value value = {.type = CE_TYPE_INT, .integer = expected_n(i)};
        CHECK(ce_object_set(txn, c.table, object, c.n, &value));
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
}

typedef enum outcome { OUTCOME_REFUSED, OUTCOME_INTACT, OUTCOME_SILENT } outcome;

/* The error of a refusal: damage is reported as damage (CE_ERR_CORRUPT or
 * CE_ERR_INVALID_DATABASE), never as a missing object or a bad argument. */
static int refusal_code;

/* 1: found, 0: missing (silent damage), -1: an error. */
static int find_column(ce_txn *txn, ce_table_key table, const char *name, ce_column_key *out)
{
    bool found;
    if (!ce_property_find(txn, table, name, out, &found)) return -1;
    return found ? 1 : 0;
}

/* Reads every object: an error anywhere is a refusal; data that differs
 * from what write_file wrote (a value, a count, a missing object) is a
 * silent corruption, described on stderr. */
static outcome read_file(const char *path, const uint8_t *key)
{
    ce_db *db = open_file(path, key);
    if (!db) {
        refusal_code = ce_last_error_code();
        return OUTCOME_REFUSED;
    }
    outcome result = OUTCOME_REFUSED;
    ce_txn *txn = NULL;
    columns c;
    bool found;
    size_t count;
    static bool seen[OBJECTS];
    memset(seen, 0, sizeof seen);
    if (!ce_txn_begin_read(db, &txn)) goto done;
    if (!ce_table_find(txn, "Thing", &c.table, &found)) goto done;
    if (!found) {
        fprintf(stderr, "silent: the table is missing\n");
        result = OUTCOME_SILENT;
        goto done;
    }
    int columns_found[4] = {find_column(txn, c.table, "id", &c.id), find_column(txn, c.table, "n", &c.n),
                            find_column(txn, c.table, "s", &c.s), find_column(txn, c.table, "d", &c.d)};
    for (int k = 0; k < 4; k++) {
        if (columns_found[k] < 0) goto done;
        if (columns_found[k] == 0) {
            fprintf(stderr, "silent: property %d is missing\n", k);
            result = OUTCOME_SILENT;
            goto done;
        }
    }
    if (!ce_object_count(txn, c.table, &count)) goto done;
    if (count != OBJECTS) {
        fprintf(stderr, "silent: %zu objects instead of %d\n", count, OBJECTS);
        result = OUTCOME_SILENT;
        goto done;
    }
    for (size_t index = 0; index < count; index++) {
        ce_object_key object;
        ce_value id, n, s, d;
        if (!ce_object_key_at(txn, c.table, index, &object) || !ce_object_get(txn, c.table, object, c.id, &id) ||
            !ce_object_get(txn, c.table, object, c.n, &n) || !ce_object_get(txn, c.table, object, c.s, &s) ||
            !ce_object_get(txn, c.table, object, c.d, &d))
            goto done;
        char text[200];
        int64_t i = id.integer;
        bool good = id.type == CE_TYPE_INT && i >= 0 && i < OBJECTS && !seen[i] && n.type == CE_TYPE_INT &&
                    n.integer == expected_n(i) && d.type == CE_TYPE_DOUBLE && d.double_value == expected_d(i) &&
                    s.type == CE_TYPE_STRING;
        if (good) {
            size_t length = expected_s(i, text);
            good = s.string.size == length && memcmp(s.string.data, text, length) == 0;
            seen[i] = true;
        }
        if (!good) {
            fprintf(stderr, "silent: object at %zu (id %lld) reads back different data\n", index, (long long)i);
            result = OUTCOME_SILENT;
            goto done;
        }
    }
    result = OUTCOME_INTACT;
done:
    if (result == OUTCOME_REFUSED) refusal_code = ce_last_error_code();
    if (txn) ce_txn_end(txn);
    CHECK(ce_db_close(db));
    return result;
}

/* A small deterministic generator (splitmix64): trials repeat by seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void write_bytes(const char *path, const uint8_t *bytes, size_t length)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, bytes, length) == (ssize_t)length);
    CHECK(close(fd) == 0);
}

static void run_trials(const uint8_t *key, const char *kind)
{
    char *dir = test_make_dir("tamper");
    char *path = test_path(dir, "tamper.realm");
    char lock[4200];
    snprintf(lock, sizeof lock, "%s.lock", path);
    write_file(path, key);
    CHECK(read_file(path, key) == OUTCOME_INTACT);
    struct stat status;
    CHECK(stat(path, &status) == 0);
    size_t size = (size_t)status.st_size;
    uint8_t *pristine = malloc(size), *damaged = malloc(size);
    CHECK(pristine && damaged);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && read(fd, pristine, size) == (ssize_t)size);
    close(fd);
    /* Damage lands among the bytes the commits wrote (not in the zeros
     * the file is grown by ahead of its use). */
    size_t written = size;
    while (written > 0 && pristine[written - 1] == 0) written--;
    uint64_t trials = test_count ? test_count : DEFAULT_TRIALS;
    uint64_t state = test_seed ? test_seed : 20261127u;
    uint64_t refused = 0, intact = 0, silent = 0, misreported = 0;
    for (uint64_t trial = 0; trial < trials; trial++) {
        memcpy(damaged, pristine, size);
        size_t position = (size_t)(next_random(&state) % written);
        uint64_t kind_of_change = next_random(&state) % 4;
        uint64_t random = next_random(&state);
        if (kind_of_change <= 1) {
            damaged[position] ^= (uint8_t)(1u << (random % 8)); /* one bit */
        } else if (kind_of_change == 2) {
            damaged[position] = (uint8_t)(random | 1) == damaged[position] ? (uint8_t)~damaged[position]
                                                                             : (uint8_t)(random | 1);
        } else {
            for (size_t k = 0; k < 8 && position + k < size; k++) damaged[position + k] ^= (uint8_t)(random >> (8 * k)) | 1u;
        }
        write_bytes(path, damaged, size);
        unlink(lock); /* each trial opens the file afresh */
        outcome result = read_file(path, key);
        if (result == OUTCOME_SILENT) {
            fprintf(stderr, "%s: trial %llu: change %llu at offset %zu (page %zu) was not detected\n", kind,
                    (unsigned long long)trial, (unsigned long long)kind_of_change, position, position / 4096);
            silent++;
        }
        if (result == OUTCOME_REFUSED && refusal_code != CE_ERR_CORRUPT && refusal_code != CE_ERR_INVALID_DATABASE) {
            fprintf(stderr, "%s: trial %llu: change at offset %zu reported as error %d: %s\n", kind,
                    (unsigned long long)trial, position, refusal_code, ce_last_error_message());
            misreported++;
        }
        refused += result == OUTCOME_REFUSED;
        intact += result == OUTCOME_INTACT;
    }
    printf("%s: %llu trials over %zu bytes: %llu refused (errors), %llu read back intact, %llu silent corruptions\n",
           kind, (unsigned long long)trials, written, (unsigned long long)refused, (unsigned long long)intact,
           (unsigned long long)silent);
    CHECK(silent == 0);
    CHECK(misreported == 0);
    CHECK(refused > 0); /* the damage is real: some of it is refused */
    free(pristine);
    free(damaged);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(plain) { run_trials(NULL, "plain"); }

TEST(encrypted) { run_trials(test_fixed_key(2), "encrypted"); }
