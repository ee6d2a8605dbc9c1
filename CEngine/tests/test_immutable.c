/*
 * test_immutable.c — ce_db_options.immutable: a file opened without a lock
 * file (as SQLite's immutable=1), read at the newest whole header slot, and
 * refusing every write. Run plain and encrypted (test_immutable_encrypted).
 */
#include "test_support.h"

#include <errno.h>
#include <sys/stat.h>

static void patch_file(const char *path, long offset, const void *bytes, size_t length)
{
    FILE *file = fopen(path, "r+b");
    CHECK(file != NULL);
    CHECK(fseek(file, offset, SEEK_SET) == 0);
    CHECK(fwrite(bytes, 1, length, file) == length);
    fclose(file);
}

/* A closed file at `path` whose list holds 1..count, one commit per value;
 * returns the latest version. */
static uint64_t make_file(const char *path, int count)
{
    ce_db *db = test_open(path);
    for (int i = 1; i <= count; i++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        test_list_append(txn, i);
        CHECK(ce_txn_commit(txn));
    }
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version));
    CHECK(ce_db_close(db));
    return version;
}

static ce_db *open_immutable(const char *path)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.immutable = true;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

static void check_list(ce_db *db, uint64_t version, int count)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_txn_version(txn) == version);
    CHECK(test_list_size(txn) == (size_t)count);
    for (int i = 0; i < count; i++) CHECK(test_list_get(txn, (size_t)i) == i + 1);
    ce_txn_end(txn);
}

static void expect_error(ce_error_code code, const char *fragment)
{
    if (ce_last_error_code() != code || !strstr(ce_last_error_message(), fragment)) {
        fprintf(stderr, "expected [%d] containing '%s', got [%d] %s\n", (int)code, fragment, (int)ce_last_error_code(),
                ce_last_error_message());
        exit(1);
    }
}

/* No lock file can exist at `<path>.lock` (a directory is there, which
 * root cannot open as a file either): a normal open fails, read-only too;
 * an immutable one reads the file, and leaves the directory alone. */
TEST(opens_where_no_lock_file_can_be)
{
    char *dir = test_make_dir("immutable");
    char *path = test_path(dir, "test.realm");
    char *lock = test_path(dir, "test.realm.lock");
    uint64_t version = make_file(path, 3);
    CHECK(remove(lock) == 0);
    CHECK(mkdir(lock, 0755) == 0);

    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.read_only = true;
    ce_db *db = NULL;
    CHECK(!ce_db_open(path, &options, &db));
    expect_error(CE_ERR_FILE_ACCESS, "lock file");

    db = open_immutable(path);
    check_list(db, version, 3);
    CHECK(ce_db_close(db));
    struct stat status;
    CHECK(stat(lock, &status) == 0 && S_ISDIR(status.st_mode));
    CHECK(rmdir(lock) == 0);
    test_cleanup_dir(dir);
    free(lock);
    free(path);
    free(dir);
}

/* The handle creates no lock file, and another handle (a normal one) that
 * opens meanwhile sets up its own as if alone. */
TEST(creates_no_lock_file)
{
    char *dir = test_make_dir("immutable");
    char *path = test_path(dir, "test.realm");
    char *lock = test_path(dir, "test.realm.lock");
    uint64_t version = make_file(path, 2);
    CHECK(remove(lock) == 0);
    ce_db *db = open_immutable(path);
    check_list(db, version, 2);
    CHECK(access(lock, F_OK) != 0 && errno == ENOENT);
    ce_db *other = test_open(path);
    check_list(other, version, 2);
    CHECK(ce_db_close(other));
    CHECK(ce_db_close(db));
    test_cleanup_dir(dir);
    free(lock);
    free(path);
    free(dir);
}

/* Every write fails with CE_ERR_READ_ONLY; reading, verifying and copying
 * to another path work. */
TEST(refuses_writes)
{
    char *dir = test_make_dir("immutable");
    char *path = test_path(dir, "test.realm");
    char *copy = test_path(dir, "copy.realm");
    uint64_t version = make_file(path, 4);
    ce_db *db = open_immutable(path);
    ce_txn *txn = NULL;
    CHECK(!ce_txn_begin_write(db, &txn));
    expect_error(CE_ERR_READ_ONLY, "immutable");
    CHECK(!ce_db_compact(db, NULL));
    expect_error(CE_ERR_READ_ONLY, "");
    ce_db_stats stats;
    CHECK(ce_db_verify(db, &stats));
    CHECK(stats.version == version);
    ce_copy_options options;
    ce_copy_options_init(&options);
    if (test_key) {
        options.encryption_key = test_key;
        options.encryption_key_size = 64;
    }
    CHECK(ce_db_write_copy(db, copy, &options));
    check_list(db, version, 4);
    CHECK(ce_db_close(db));
    ce_db *reopened = test_open(copy);
    ce_txn *read;
    CHECK(ce_txn_begin_read(reopened, &read));
    CHECK(test_list_size(read) == 4 && test_list_get(read, 3) == 4);
    ce_txn_end(read);
    CHECK(ce_db_close(reopened));
    test_cleanup_dir(dir);
    free(copy);
    free(path);
    free(dir);
}

/* The newest slot whose commit is whole: with the latest slot damaged (a
 * torn commit: its version is not vouched for by the sync record), the
 * previous version; plain and encrypted (where the damaged slot fails
 * authentication). */
TEST(reads_the_newest_whole_slot)
{
    char *dir = test_make_dir("immutable");
    char *path = test_path(dir, "test.realm");
    uint64_t version = make_file(path, 5);
    static const uint8_t garbage[8] = {0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef};
    patch_file(path, (long)(4096 * (1 + version % 2)) + 8, garbage, sizeof garbage);
    /* And no sync record: nothing vouches that the latest commit reached the
     * disk, so its damaged slot is a torn commit (a vouched-for one would be
     * corruption, an error for every open). */
    static const uint8_t zeros[4096];
    patch_file(path, 4096 * 3, zeros, sizeof zeros);
    ce_db *db = open_immutable(path);
    check_list(db, version - 1, 4);
    CHECK(ce_db_close(db));
    test_cleanup_dir(dir);
    free(path);
    free(dir);
}

/* The handle stays at the version it opened at: advancing finds nothing
 * newer, and waiting for a change times out. */
TEST(stays_at_its_version)
{
    char *dir = test_make_dir("immutable");
    char *path = test_path(dir, "test.realm");
    uint64_t version = make_file(path, 2);
    ce_db *db = open_immutable(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_txn_advance(txn));
    CHECK(ce_txn_version(txn) == version);
    ce_txn_end(txn);
    uint64_t latest;
    CHECK(ce_db_latest_version(db, &latest) && latest == version);
    bool changed = true;
    CHECK(ce_db_wait_for_change(db, version, 10, &changed));
    CHECK(!changed);
    CHECK(ce_db_close(db));
    test_cleanup_dir(dir);
    free(path);
    free(dir);
}

TEST(refused_combinations)
{
    char *dir = test_make_dir("immutable");
    char *missing = test_path(dir, "missing.realm");
    char *empty = test_path(dir, "empty.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.immutable = true;
    ce_db *db = NULL;
    CHECK(!ce_db_open(missing, &options, &db) && db == NULL);
    expect_error(CE_ERR_FILE_NOT_FOUND, "missing.realm");
    FILE *file = fopen(empty, "wb");
    CHECK(file != NULL);
    fclose(file);
    CHECK(!ce_db_open(empty, &options, &db) && db == NULL);
    expect_error(CE_ERR_INVALID_DATABASE, "empty");
    options.durability = CE_DURABILITY_MEMORY_ONLY;
    options.in_memory_identifier = "immutable-test";
    CHECK(!ce_db_open(NULL, &options, &db) && db == NULL);
    expect_error(CE_ERR_INVALID_ARGUMENT, "immutable");
    test_cleanup_dir(dir);
    free(empty);
    free(missing);
    free(dir);
}
