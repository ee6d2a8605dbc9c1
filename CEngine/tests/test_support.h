/*
 * test_support.h — what every C test shares: named cases (TEST, run by
 * test_runner.c), CHECK, temporary directories, opening a database plain
 * or encrypted (test_open, and test_db_open for a case's own database),
 * and a tiny data model on the db layer (the user root as a list of
 * integers, in the B+tree of support/bptree.c) so that storage tests have
 * something to commit.
 */
#ifndef CE_TEST_SUPPORT_H
#define CE_TEST_SUPPORT_H

#include "cengine.h"
#include "bptree.h"
#include "db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

/* Named cases. `TEST(name) { ... }` defines a case and registers it with
 * the runner (test_runner.c, linked into every test program), which runs
 * the cases in the order they are defined, or only those named on the
 * command line:
 *     test_query                      every case
 *     test_query --list               the names, one a line
 *     test_query sort_and_distinct    one case alone (several names: those)
 *     test_query --encrypted NAME     the encrypted variant (see test_key)
 * A case must not depend on one run before it. */
typedef void (*test_function)(void);
void test_register(const char *name, test_function run);
#define TEST(name)                                                                                         \
    static void test_case_##name(void);                                                                    \
    __attribute__((constructor)) static void test_register_##name(void)                                    \
    {                                                                                                      \
        test_register(#name, test_case_##name);                                                            \
    }                                                                                                      \
    static void test_case_##name(void)

/* The case running now (NULL outside a case), named by a failing CHECK. */
extern const char *test_current_case;

/* A failed check: prints the case, the place, the condition and the
 * thread's last error, then ends the program with status 1. */
void test_fail(const char *file, int line, const char *condition) __attribute__((noreturn));

#define CHECK(condition)                                                                                   \
    do {                                                                                                   \
        if (!(condition)) test_fail(__FILE__, __LINE__, #condition);                                       \
    } while (0)

/* A new empty directory under TMPDIR (or /tmp), removed by test_cleanup_dir. */
static inline char *test_make_dir(const char *name)
{
    const char *base = getenv("TMPDIR");
    if (!base) base = "/tmp";
    char *path = malloc(strlen(base) + strlen(name) + 32);
    sprintf(path, "%s/cengine-%s-XXXXXX", base, name);
    CHECK(mkdtemp(path) != NULL);
    return path;
}

static inline char *test_path(const char *dir, const char *file)
{
    char *path = malloc(strlen(dir) + strlen(file) + 2);
    sprintf(path, "%s/%s", dir, file);
    return path;
}

static inline int test_remove_entry(const char *path, const struct stat *info, int flag, struct FTW *walk)
{
    (void)info, (void)flag, (void)walk;
    return remove(path);
}

/* Removes a directory test_make_dir made, with everything in it (in
 * process: a shell's rm -rf cost a few ms a case). */
static inline void test_cleanup_dir(const char *dir)
{
    if (nftw(dir, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* The key test_open uses: NULL (plain files) unless the program runs its
 * encrypted variant (`--encrypted` on the command line, which ctest passes
 * to the <name>_encrypted tests). Set by the runner before any case. */
extern const uint8_t *test_key;

/* `--seed N` and `--count N` on the command line (0 when not given): the
 * seed and number of trials of cases that run random trials. */
extern unsigned long long test_seed, test_count;

/* A fixed 64-byte key for tests (every byte distinct). */
static inline const uint8_t *test_fixed_key(uint8_t seed)
{
    static uint8_t keys[4][64];
    uint8_t *key = keys[seed % 4];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)(seed * 67 + i * 13 + 1);
    return key;
}

static inline void test_set_key(ce_db_options *options)
{
    if (!test_key) return;
    options->encryption_key = test_key;
    options->encryption_key_size = 64;
}

static inline ce_db *test_open(const char *path)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

/* One case's own database: a new directory and a file in it, opened with
 * test_open; test_db_close closes the file and removes the directory. */
typedef struct test_db {
    char *dir;
    char *path;
    ce_db *db;
} test_db;

static inline test_db test_db_open(const char *name)
{
    test_db t;
    t.dir = test_make_dir(name);
    t.path = test_path(t.dir, "test.realm");
    t.db = test_open(t.path);
    return t;
}

static inline void test_db_close(test_db *t)
{
    if (t->db) CHECK(ce_db_close(t->db));
    test_cleanup_dir(t->dir);
    free(t->path);
    free(t->dir);
    t->db = NULL;
}

/* The user root as a list of integers (created on first use). */
static inline space_ref test_list_root(ce_txn *txn)
{
    space_ref root = db_txn_root(txn);
    if (!root) {
        CHECK(bptree_create(db_txn_space(txn), 0, &root));
        CHECK(db_txn_set_root(txn, root));
    }
    return root;
}

static inline size_t test_list_size(ce_txn *txn)
{
    space_ref root = db_txn_root(txn);
    if (!root) return 0;
    size_t size;
    CHECK(bptree_size(db_txn_space(txn), root, &size));
    return size;
}

static inline int64_t test_list_get(ce_txn *txn, size_t index)
{
    int64_t value;
    CHECK(bptree_get(db_txn_space(txn), db_txn_root(txn), index, &value));
    return value;
}

static inline void test_list_append(ce_txn *txn, int64_t value)
{
    space_ref root = test_list_root(txn);
    CHECK(bptree_append(db_txn_space(txn), &root, value));
    CHECK(db_txn_set_root(txn, root));
}

static inline void test_list_set(ce_txn *txn, size_t index, int64_t value)
{
    space_ref root = test_list_root(txn);
    CHECK(bptree_set(db_txn_space(txn), &root, index, value));
    CHECK(db_txn_set_root(txn, root));
}

/* Equality written out here, independent of the engine's value.c: same
 * type, same bits (floats and doubles bitwise: the samples hold no -0.0 or
 * NaN), same bytes. */
static inline bool test_same_value(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case CE_TYPE_NULL:
    case CE_TYPE_LIST:
    case CE_TYPE_DICTIONARY: return true;
    case CE_TYPE_INT: return a->integer == b->integer;
    case CE_TYPE_BOOL: return a->boolean == b->boolean;
    case CE_TYPE_FLOAT: return memcmp(&a->float_value, &b->float_value, 4) == 0;
    case CE_TYPE_DOUBLE: return memcmp(&a->double_value, &b->double_value, 8) == 0;
    case CE_TYPE_STRING:
        return a->string.size == b->string.size &&
               (a->string.size == 0 || memcmp(a->string.data, b->string.data, a->string.size) == 0);
    case CE_TYPE_BINARY:
        return a->binary.size == b->binary.size &&
               (a->binary.size == 0 || memcmp(a->binary.data, b->binary.data, a->binary.size) == 0);
    case CE_TYPE_TIMESTAMP:
        return a->timestamp.seconds == b->timestamp.seconds && a->timestamp.nanoseconds == b->timestamp.nanoseconds;
    case CE_TYPE_DECIMAL128: return a->decimal.low == b->decimal.low && a->decimal.high == b->decimal.high;
    case CE_TYPE_OBJECT_ID: return memcmp(a->object_id.bytes, b->object_id.bytes, 12) == 0;
    case CE_TYPE_UUID: return memcmp(a->uuid.bytes, b->uuid.bytes, 16) == 0;
    case CE_TYPE_LINK: return a->link.table == b->link.table && a->link.key == b->link.key;
    default: return false;
    }
}

/* Expects ce_query_parse of `predicate` on `table` to fail with
 * CE_ERR_INVALID_QUERY and a message containing `fragment`; otherwise prints
 * what happened and stops the program. */
static inline void test_expect_query_refused(ce_txn *txn, ce_table_key table, const char *predicate,
                                             const ce_query_argument *arguments, size_t argument_count,
                                             const char *fragment)
{
    ce_query *query = NULL;
    bool ok = ce_query_parse(txn, table, predicate, arguments, argument_count, &query);
    if (ok) ce_query_free(query);
    if (ok || ce_last_error_code() != CE_ERR_INVALID_QUERY || !strstr(ce_last_error_message(), fragment)) {
        fprintf(stderr, "'%s': expected an invalid query error containing \"%s\", got %s: %s\n", predicate, fragment,
                ok ? "success" : "failure", ce_last_error_message());
        exit(1);
    }
}

static inline void test_verify(ce_db *db)
{
    ce_db_stats stats;
    if (!ce_db_verify(db, &stats)) {
        fprintf(stderr, "verify failed: %s\n", ce_last_error_message());
        exit(1);
    }
}

#endif
