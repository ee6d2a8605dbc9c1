/*
 * test_db.c — the transaction layer through the public API: creating and
 * reopening, each open error, read-only handles, snapshots and advance,
 * rollback, the version limit, in-memory databases, and the detection of a
 * torn last commit at open; with --encrypted (ctest db_encrypted), every
 * case on encrypted files; a handle used in a child of fork().
 */
#include "test_support.h"
#include "checksum.h"
#include "header.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void write_file(const char *path, const void *bytes, size_t length)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL);
    CHECK(fwrite(bytes, 1, length, file) == length);
    fclose(file);
}

static void patch_file(const char *path, long offset, const void *bytes, size_t length)
{
    FILE *file = fopen(path, "r+b");
    CHECK(file != NULL);
    CHECK(fseek(file, offset, SEEK_SET) == 0);
    CHECK(fwrite(bytes, 1, length, file) == length);
    fclose(file);
}

static void read_file_range(const char *path, long offset, void *bytes, size_t length)
{
    FILE *file = fopen(path, "rb");
    CHECK(file != NULL);
    CHECK(fseek(file, offset, SEEK_SET) == 0);
    CHECK(fread(bytes, 1, length, file) == length);
    fclose(file);
}

static int deny_open(const char *path, int flags, mode_t mode)
{
    (void)path, (void)flags, (void)mode;
    errno = EACCES;
    return -1;
}

static void expect_open_error(const char *path, const ce_db_options *options, ce_error_code code, const char *fragment)
{
    ce_db *db = NULL;
    CHECK(!ce_db_open(path, options, &db));
    CHECK(db == NULL);
    if (ce_last_error_code() != code || !strstr(ce_last_error_message(), fragment)) {
        fprintf(stderr, "expected [%d] containing '%s', got [%d] %s\n", (int)code, fragment, (int)ce_last_error_code(),
                ce_last_error_message());
        exit(1);
    }
}

TEST(create_and_reopen)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "create.realm");
    ce_db *db = test_open(path);
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version) && version == 1);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_txn_is_write(txn) && ce_txn_version(txn) == 1);
    ce_txn *nested;
    CHECK(!ce_txn_begin_write(db, &nested) && ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    test_list_append(txn, 42);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_latest_version(db, &version) && version == 2);
    /* Closing with an open transaction is refused; the handle stays usable. */
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(!ce_db_close(db) && ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    db = test_open(path);
    CHECK(ce_db_latest_version(db, &version) && version == 2);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 1 && test_list_get(txn, 0) == 42);
    /* A read transaction cannot commit or change data. */
    CHECK(!db_txn_set_root(txn, 0) && ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    CHECK(!ce_txn_commit(txn) && ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    /* A failed commit never frees the handle: it still reads, and the
     * caller ends it (once freed here, this was a use after free and a
     * double free under ASan). */
    CHECK(test_list_size(txn) == 1);
    ce_txn_end(txn);
    test_verify(db);
    CHECK(ce_db_close(db));
    /* The variant runs on what it says: --encrypted files are encrypted
     * (flag bit 0 of the static page, FORMAT.md). */
    uint32_t flags;
    read_file_range(path, 12, &flags, sizeof flags);
    CHECK((flags & 1u) == (test_key ? 1u : 0u));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(open_errors)
{
    char *dir = test_make_dir("db");
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);

    char *missing = test_path(dir, "missing.realm");
    options.read_only = true;
    expect_open_error(missing, &options, CE_ERR_FILE_NOT_FOUND, "missing.realm");
    options.read_only = false;
    options.no_create = true;
    expect_open_error(missing, &options, CE_ERR_FILE_NOT_FOUND, "missing.realm");
    options.no_create = false;

    char *text = test_path(dir, "text.realm");
    char junk[20000];
    memset(junk, 'a', sizeof junk);
    write_file(text, junk, sizeof junk);
    expect_open_error(text, &options, CE_ERR_INVALID_DATABASE, "not an OpenRealm database");
    char *text_lock = test_path(dir, "text.realm.lock");
    CHECK(access(text_lock, F_OK) != 0); /* a failed open leaves no lock file */
    free(text_lock);
    write_file(text, "hello", 5);
    expect_open_error(text, &options, CE_ERR_INVALID_DATABASE, "too small");

    /* A format version from the future. */
    char *future = test_path(dir, "future.realm");
    ce_db *db = test_open(future);
    CHECK(ce_db_close(db));
    uint8_t page[72];
    read_file_range(future, 0, page, sizeof page);
    uint32_t format = 99;
    memcpy(page + 8, &format, 4);
    uint64_t checksum = checksum_of(page, 64, 0x53544154ull);
    memcpy(page + 64, &checksum, 8);
    patch_file(future, 0, page, sizeof page);
    expect_open_error(future, &options, CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED, "version 99");

    /* A damaged static header. */
    page[20] ^= 1;
    patch_file(future, 0, page, sizeof page);
    expect_open_error(future, &options, CE_ERR_INVALID_DATABASE, "damaged");

    /* Both slots damaged: no intact commit. */
    char *slots = test_path(dir, "slots.realm");
    db = test_open(slots);
    CHECK(ce_db_close(db));
    uint8_t garbage[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    patch_file(slots, 4096 + 8, garbage, 8);
    patch_file(slots, 8192 + 8, garbage, 8);
    /* An encrypted file whose sync record names a version no slot holds
     * says that the slot fails authentication (FORMAT.md); without the
     * record, a plain or encrypted file has no intact commit. */
    if (test_key) expect_open_error(slots, &options, CE_ERR_INVALID_DATABASE, "fails authentication");
    uint8_t no_sync_record[24] = {0};
    patch_file(slots, 3 * 4096, no_sync_record, sizeof no_sync_record);
    expect_open_error(slots, &options, CE_ERR_INVALID_DATABASE, "no intact commit");

    /* Cut after the header, its slots whole: the message says truncated,
     * not that the header slots are damaged (no sync record, so that the
     * open reaches that message rather than the sync record's). */
    char *cut = test_path(dir, "cut.realm");
    db = test_open(cut);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 5000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
    uint8_t no_record[24] = {0};
    patch_file(cut, 3 * 4096, no_record, sizeof no_record);
    CHECK(truncate(cut, 16384 + 4096) == 0);
    /* (An encrypted slot may reach past the end of the file: the first
     * page read that is missing says so, FORMAT.md.) */
    if (test_key) expect_open_error(cut, &options, CE_ERR_CORRUPT, "the file ends at 20480 bytes (it was truncated)");
    else expect_open_error(cut, &options, CE_ERR_INVALID_DATABASE, "was truncated: it holds 20480 bytes");
    free(cut);

    /* A durability out of range once opened a handle that never synced. */
    char *unknown = test_path(dir, "durability.realm");
    options.durability = (ce_durability)7;
    expect_open_error(unknown, &options, CE_ERR_INVALID_ARGUMENT, "unknown durability 7");
    options.durability = (ce_durability)-1;
    expect_open_error(unknown, &options, CE_ERR_INVALID_ARGUMENT, "unknown durability -1");
    options.durability = CE_DURABILITY_FULL;
    CHECK(access(unknown, F_OK) != 0); /* nothing created */
    free(unknown);

    /* Permission problems (root ignores file modes, so the OS answer is injected). */
    os_methods denying = os_default;
    denying.open = deny_open;
    os_active = &denying;
    expect_open_error(slots, &options, CE_ERR_FILE_PERMISSION_DENIED, "Permission denied");
    os_active = &os_default;
    free(missing);
    free(text);
    free(future);
    free(slots);
    test_cleanup_dir(dir);
    free(dir);
}

/* A FIFO where the database should be: open(2) of a FIFO for reading
 * blocks until a writer comes, so a read-only open once hung forever. The
 * alarm kills the test (SIGALRM's default action) if it hangs. */
TEST(open_fifo_refused)
{
    char *dir = test_make_dir("db");
    char *fifo = test_path(dir, "fifo.realm");
    CHECK(mkfifo(fifo, 0600) == 0);
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    alarm(10);
    options.read_only = true;
    expect_open_error(fifo, &options, CE_ERR_INVALID_DATABASE, "not a regular file");
    options.read_only = false;
    expect_open_error(fifo, &options, CE_ERR_INVALID_DATABASE, "not a regular file");
    alarm(0);
    struct stat status;
    CHECK(stat(fifo, &status) == 0 && S_ISFIFO(status.st_mode)); /* left as it was */
    free(fifo);
    test_cleanup_dir(dir);
    free(dir);
}

static ssize_t failing_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    (void)fd, (void)buffer, (void)length, (void)offset;
    errno = EIO;
    return -1;
}

/* A failed write commit leaves the transaction to the caller, who ends it
 * (rolled back); it cannot commit again, and the next writer gets in. */
TEST(failed_commit_is_ended_by_caller)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "failed.realm");
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 1);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 2);
    os_methods failing = os_default;
    failing.pwrite = failing_pwrite;
    os_active = &failing;
    CHECK(!ce_txn_commit(txn) && ce_last_error_code() == CE_ERR_FILE_ACCESS);
    os_active = &os_default;
    CHECK(!ce_txn_commit(txn) && ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(test_list_size(txn) == 1);
    test_list_append(txn, 3);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 2 && test_list_get(txn, 1) == 3);
    ce_txn_end(txn);
    test_verify(db);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(read_only)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "readonly.realm");
    ce_db *writer = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(writer, &txn));
    test_list_append(txn, 7);
    CHECK(ce_txn_commit(txn));
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.read_only = true;
    ce_db *reader;
    CHECK(ce_db_open(path, &options, &reader));
    CHECK(!ce_txn_begin_write(reader, &txn) && ce_last_error_code() == CE_ERR_READ_ONLY);
    CHECK(ce_txn_begin_read(reader, &txn));
    CHECK(test_list_get(txn, 0) == 7);
    ce_txn_end(txn);
    /* The read-only handle sees commits of the other handle. */
    CHECK(ce_txn_begin_write(writer, &txn));
    test_list_append(txn, 8);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(reader, &txn));
    CHECK(test_list_size(txn) == 2);
    ce_txn_end(txn);
    CHECK(ce_db_close(reader));
    CHECK(ce_db_close(writer));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(snapshots_and_rollback)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "snapshot.realm");
    ce_db *db = test_open(path);
    ce_txn *write, *old_reader, *reader;
    CHECK(ce_txn_begin_write(db, &write));
    for (int i = 0; i < 5000; i++) test_list_append(write, i);
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(db, &old_reader));
    uint64_t pinned = ce_txn_version(old_reader);
    /* Change every element in a new version while the reader holds the old one. */
    for (int round = 0; round < 3; round++) {
        CHECK(ce_txn_begin_write(db, &write));
        for (int i = 0; i < 5000; i += 3) test_list_set(write, (size_t)i, -i - round);
        CHECK(ce_txn_commit(write));
    }
    CHECK(ce_txn_version(old_reader) == pinned);
    for (int i = 0; i < 5000; i++) CHECK(test_list_get(old_reader, (size_t)i) == i);
    /* Rollback: nothing of the write is visible. */
    CHECK(ce_txn_begin_write(db, &write));
    test_list_set(write, 0, 999999);
    test_list_append(write, 123);
    ce_txn_end(write);
    CHECK(ce_txn_begin_read(db, &reader));
    CHECK(ce_txn_version(reader) == pinned + 3);
    CHECK(test_list_size(reader) == 5000 && test_list_get(reader, 0) == -2);
    ce_txn_end(reader);
    /* Advance moves the old reader to the latest version. */
    CHECK(ce_txn_advance(old_reader));
    CHECK(ce_txn_version(old_reader) == pinned + 3);
    CHECK(test_list_get(old_reader, 3) == -5);
    ce_txn_end(old_reader);
    test_verify(db);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* mmap that fails as when address space runs out. */
static void *mmap_out_of_space(void *address, size_t length, int protection, int flags, int fd, off_t offset)
{
    (void)address, (void)length, (void)protection, (void)flags, (void)fd, (void)offset;
    errno = ENOMEM;
    return MAP_FAILED;
}

/* An advance that cannot map the newer version fails with its error and
 * leaves the reader on its version, still pinned: commits that rewrite
 * every value (and reuse the space they free) do not reach it, and a later
 * advance works. */
TEST(advance_that_cannot_map)
{
    char *dir = test_make_dir("db");
    enum { ITEMS = 3000, BLOB_BYTES = 2 << 20, BLOBS = 40 };
    char *path = test_path(dir, "advance-map.realm");
    ce_db *db = test_open(path), *writer = test_open(path);
    ce_txn *write, *reader;
    ce_table_key items, blobs;
    ce_column_key number, bytes_column;
    CHECK(ce_txn_begin_write(writer, &write));
    CHECK(ce_table_add(write, "Item", &items));
    CHECK(ce_property_add(write, items, &(ce_property_info){.name = "number", .type = CE_TYPE_INT}, &number));
    CHECK(ce_table_add(write, "Blob", &blobs));
    CHECK(ce_property_add(write, blobs, &(ce_property_info){.name = "bytes", .type = CE_TYPE_BINARY}, &bytes_column));
    for (int i = 0; i < ITEMS; i++) {
        ce_value value = {.type = CE_TYPE_INT, .integer = i};
        ce_object_key object;
        CHECK(ce_object_create_with_values(write, items, &value, 1, &object) && object == i);
    }
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(db, &reader));
    uint64_t pinned = ce_txn_version(reader);
    /* A version larger than the reader handle's mapping (at least 64 MiB),
     * written through the other handle: 40 random 2 MiB binaries. */
    uint8_t *blob = malloc(BLOB_BYTES);
    CHECK(blob != NULL);
    uint64_t state = 0x5EED;
    CHECK(ce_txn_begin_write(writer, &write));
    for (int b = 0; b < BLOBS; b++) {
        for (size_t i = 0; i < BLOB_BYTES; i += 8) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            memcpy(blob + i, &state, 8);
        }
        ce_value value = {.type = CE_TYPE_BINARY, .binary = {blob, BLOB_BYTES}};
        ce_object_key object;
        CHECK(ce_object_create_with_values(write, blobs, &value, 1, &object));
    }
    CHECK(ce_txn_commit(write));
    free(blob);
    static os_methods failing;
    failing = os_default;
    failing.mmap = mmap_out_of_space;
    os_active = &failing;
    bool advanced = ce_txn_advance(reader);
    os_active = &os_default;
    CHECK(!advanced && ce_last_error_code() == CE_ERR_ADDRESS_SPACE_EXHAUSTED);
    CHECK(ce_txn_version(reader) == pinned);
    for (int round = 1; round <= 4; round++) {
        CHECK(ce_txn_begin_write(writer, &write));
        for (int i = 0; i < ITEMS; i++)
            CHECK(ce_object_set(write, items, i, number, &(ce_value){.type = CE_TYPE_INT, .integer = -i - round}));
        CHECK(ce_txn_commit(write));
    }
    size_t count;
    CHECK(ce_object_count(reader, items, &count) && count == ITEMS);
    CHECK(ce_object_count(reader, blobs, &count) && count == 0);
    for (int i = 0; i < ITEMS; i++) {
        ce_value value;
        CHECK(ce_object_get(reader, items, i, number, &value) && value.integer == i);
    }
    CHECK(ce_txn_advance(reader));
    CHECK(ce_txn_version(reader) == pinned + 5);
    ce_value value;
    CHECK(ce_object_get(reader, items, 1, number, &value) && value.integer == -5);
    CHECK(ce_object_count(reader, blobs, &count) && count == BLOBS);
    ce_txn_end(reader);
    test_verify(db);
    CHECK(ce_db_close(writer));
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(version_limit)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "limit.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.max_active_versions = 2;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    ce_txn *write, *first, *second;
    CHECK(ce_txn_begin_read(db, &first)); /* pins the latest: 1 version live */
    CHECK(ce_txn_begin_write(db, &write));
    test_list_append(write, 1);
    CHECK(ce_txn_commit(write)); /* 2 live */
    CHECK(ce_txn_begin_read(db, &second));
    CHECK(ce_txn_begin_write(db, &write));
    test_list_append(write, 2);
    CHECK(ce_txn_commit(write)); /* first and second pinned + latest = 3 */
    CHECK(!ce_txn_begin_write(db, &write) && ce_last_error_code() == CE_ERR_TOO_MANY_VERSIONS);
    CHECK(strstr(ce_last_error_message(), "exceeded the limit of 2") != NULL);
    ce_txn_end(first);
    CHECK(ce_txn_begin_write(db, &write));
    ce_txn_end(write);
    ce_txn_end(second);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(in_memory)
{
    char *dir = test_make_dir("db");
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.durability = CE_DURABILITY_MEMORY_ONLY;
    options.in_memory_identifier = "test db/with:odd chars";
    ce_db *first, *second;
    CHECK(ce_db_open(NULL, &options, &first));
    CHECK(ce_db_open(NULL, &options, &second));
    char *file = strdup(ce_db_path(first));
    CHECK(strcmp(file, ce_db_path(second)) == 0);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(first, &txn));
    test_list_append(txn, 5);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(second, &txn));
    CHECK(test_list_get(txn, 0) == 5);
    ce_txn_end(txn);
    CHECK(ce_db_close(first));
    CHECK(access(file, F_OK) == 0); /* the second handle keeps it */
    CHECK(ce_db_close(second));
    CHECK(access(file, F_OK) != 0);
    free(file);

    /* A memory-only database at a path is removed when closed too. */
    char *path = test_path(dir, "memory.realm");
    options.in_memory_identifier = NULL;
    CHECK(ce_db_open(path, &options, &first));
    CHECK(access(path, F_OK) == 0);
    CHECK(ce_db_close(first));
    CHECK(access(path, F_OK) != 0);
    options.read_only = true;
    CHECK(!ce_db_open(path, &options, &first) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_db_open(NULL, &(ce_db_options){0}, &first) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* An in-memory database a process left behind when it died (no close)
 * starts empty at the next first open, as Realm's in-memory realms start
 * empty at each launch; a handle open elsewhere keeps it shared. */
TEST(in_memory_left_by_dead_process_starts_empty)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.durability = CE_DURABILITY_MEMORY_ONLY;
    char identifier[64];
    snprintf(identifier, sizeof identifier, "test-dead-%d", (int)getpid());
    options.in_memory_identifier = identifier;
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *db;
        ce_txn *txn;
        if (!ce_db_open(NULL, &options, &db) || !ce_txn_begin_write(db, &txn)) _exit(2);
        test_list_append(txn, 42);
        _exit(ce_txn_commit(txn) ? 0 : 3); /* dies holding the database */
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ce_db *db, *second;
    CHECK(ce_db_open(NULL, &options, &db));
    char *file = strdup(ce_db_path(db));
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 0);
    ce_txn_end(txn);
    /* A second handle while the first is open shares its data. */
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 7);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_open(NULL, &options, &second));
    CHECK(ce_txn_begin_read(second, &txn));
    CHECK(test_list_size(txn) == 1 && test_list_get(txn, 0) == 7);
    ce_txn_end(txn);
    CHECK(ce_db_close(second));
    CHECK(ce_db_close(db));
    CHECK(access(file, F_OK) != 0);
    free(file);
}

/* The one-fsync commit: a newest slot whose data did not all reach the disk
 * (simulated by damaging one byte the commit wrote, with a sync record that
 * does not vouch for it) loses to the previous slot at open. */
TEST(torn_commit_detected)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "torn.realm");
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 3000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_set(txn, 2500, -1);
    CHECK(ce_txn_commit(txn));
    uint64_t latest;
    CHECK(ce_db_latest_version(db, &latest));
    CHECK(ce_db_close(db));
    /* The slot of the latest version lists the runs it wrote. */
    uint8_t slot[4096];
    read_file_range(path, (long)(4096 * (1 + latest % 2)), slot, sizeof slot);
    uint64_t slot_version, first_run;
    uint32_t run_count;
    memcpy(&slot_version, slot + 8, 8);
    memcpy(&run_count, slot + 32, 4);
    memcpy(&first_run, slot + 48, 8);
    CHECK(slot_version == latest && run_count >= 1);
    uint8_t byte;
    read_file_range(path, (long)first_run + 8, &byte, 1);
    byte ^= 0xFF;
    patch_file(path, (long)first_run + 8, &byte, 1);
    uint8_t blank[24] = {0};
    patch_file(path, 3 * 4096, blank, sizeof blank); /* no sync record */
    db = test_open(path);
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version) && version == latest - 1);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_get(txn, 2500) == 2500);
    ce_txn_end(txn);
    test_verify(db);
    /* Writing on goes on from the previous version. */
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_set(txn, 1, -7);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Zeros over the header of a file that holds commits: both slots blank
 * (8 KiB of zeros at 4 KiB), or the whole header blank (16 KiB at 0).
 * A new file whose first commit never reached the disk looks like that
 * too, and opens as a new, empty database, whose first commit overwrites
 * what follows the header; a file that held commits must be refused, not
 * emptied. The sync record (written once a file's first slot is durable)
 * tells the two apart when the static page survives; when it does not,
 * the bytes after the header do (a new file has none but zeros). The file
 * is left as it was, and opens with every value once the header is back.
 * A file of zeros only still opens as a new database: nothing is lost. */
static void expect_refused_untouched(const char *path, const uint8_t *bytes, size_t size)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    expect_open_error(path, &options, CE_ERR_INVALID_DATABASE, "header");
    uint8_t *now = malloc(size + 1);
    FILE *file = fopen(path, "rb");
    CHECK(file != NULL);
    CHECK(fread(now, 1, size + 1, file) == size);
    fclose(file);
    CHECK(memcmp(now, bytes, size) == 0);
    free(now);
}

TEST(zeroed_header_is_refused_not_emptied)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "zeroed.realm");
    char *lock_path = test_path(dir, "zeroed.realm.lock");
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 3000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
    struct stat status;
    CHECK(stat(path, &status) == 0 && status.st_size > 16384);
    size_t size = (size_t)status.st_size;
    uint8_t *original = malloc(size), *damaged = malloc(size);
    read_file_range(path, 0, original, size);
    static const struct { size_t from, length; } damage[] = {{4096, 8192}, {0, 16384}, {0, 12288}};
    for (size_t d = 0; d < sizeof damage / sizeof damage[0]; d++) {
        memcpy(damaged, original, size);
        memset(damaged + damage[d].from, 0, damage[d].length);
        write_file(path, damaged, size);
        unlink(lock_path);
        expect_refused_untouched(path, damaged, size);
    }
    write_file(path, original, size);
    db = test_open(path);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 3000 && test_list_get(txn, 2999) == 2999);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    /* Zeros only, longer than a header: a new database. */
    memset(damaged, 0, size);
    write_file(path, damaged, size);
    unlink(lock_path);
    db = test_open(path);
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 5);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
    free(original);
    free(damaged);
    free(lock_path);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Blank slots and no sync record (a file that was never synced in full
 * durability, or whose record was zeroed with its slots): a creation whose
 * first commit did not reach the disk only if nothing but zeros follows that
 * commit's pages (HEADER_FIRST_COMMIT_END); data past them is a damaged
 * file, refused and left as it was, and whole again once its header is. */
TEST(zeroed_slots_without_sync_record_are_refused)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "slots.realm");
    char *lock_path = test_path(dir, "slots.realm.lock");
    ce_db *db = test_open(path);
    CHECK(ce_db_close(db));
    /* The premise of the rule: a new file holds nothing past the bound. */
    struct stat status;
    CHECK(stat(path, &status) == 0 && status.st_size > (off_t)HEADER_FIRST_COMMIT_END);
    size_t size = (size_t)status.st_size;
    uint8_t *bytes = malloc(size);
    read_file_range(path, 0, bytes, size);
    for (size_t i = HEADER_FIRST_COMMIT_END; i < size; i++)
        if (bytes[i]) {
            fprintf(stderr, "a new file has byte %zu non-zero, past HEADER_FIRST_COMMIT_END\n", i);
            exit(1);
        }
    /* Its slots and sync record zeroed: a creation that was interrupted. */
    uint8_t zeros[3 * 4096] = {0};
    patch_file(path, 4096, zeros, sizeof zeros);
    unlink(lock_path);
    db = test_open(path);
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version) && version == 1);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 3000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
    /* A file with commits, the same three pages zeroed: refused. */
    CHECK(stat(path, &status) == 0);
    size = (size_t)status.st_size;
    uint8_t *original = malloc(size), *damaged = malloc(size);
    read_file_range(path, 0, original, size);
    memcpy(damaged, original, size);
    memset(damaged + 4096, 0, sizeof zeros);
    write_file(path, damaged, size);
    unlink(lock_path);
    expect_refused_untouched(path, damaged, size);
    CHECK(strstr(ce_last_error_message(), "data past its first commit") != NULL);
    write_file(path, original, size);
    db = test_open(path);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 3000 && test_list_get(txn, 2999) == 2999);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    free(bytes);
    free(original);
    free(damaged);
    free(lock_path);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* A reader in a process killed with SIGKILL never ends its transaction; the
 * next writer sees that the process is gone, frees its slot, and reuses the
 * space the dead reader held. */
TEST(dead_reader_reclaimed)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "dead.realm");
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 20000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *child_db = test_open(path);
        ce_txn *reader;
        CHECK(ce_txn_begin_read(child_db, &reader));
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1) _exit(2);
        pause(); /* holds the read transaction until killed */
        _exit(0);
    }
    char byte;
    CHECK(read(ready[0], &byte, 1) == 1);
    /* While the child lives, its version stays pinned. */
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 20000; i += 10) test_list_set(txn, (size_t)i, -i);
    CHECK(ce_txn_commit(txn));
    ce_db_stats stats;
    CHECK(ce_db_verify(db, &stats));
    CHECK(stats.active_versions == 2);
    kill(child, SIGKILL);
    CHECK(waitpid(child, NULL, 0) == child);
    CHECK(ce_txn_begin_write(db, &txn)); /* the scan frees the dead slot */
    for (int i = 0; i < 20000; i += 10) test_list_set(txn, (size_t)i, i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, &stats));
    CHECK(stats.active_versions == 1);
    /* With nothing pinned, the ranges the dead reader held are reused: the
     * file stops growing under repeated rewrites. */
    uint64_t logical_before = stats.logical_size;
    for (int round = 0; round < 20; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = 0; i < 20000; i += 10) test_list_set(txn, (size_t)i, i + round);
        CHECK(ce_txn_commit(txn));
    }
    CHECK(ce_db_verify(db, &stats));
    CHECK(stats.logical_size <= logical_before + 64 * 1024);
    close(ready[0]);
    close(ready[1]);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* In a child of fork(), the step of the inherited handle that failed (0: all
 * refused as they should be). */
static int use_inherited_handle(ce_db *db, ce_txn *writing, pid_t parent)
{
    char parent_pid[32];
    snprintf(parent_pid, sizeof parent_pid, "process %ld", (long)parent);
    ce_txn *txn = NULL;
    if (ce_txn_begin_read(db, &txn) || ce_last_error_code() != CE_ERR_WRONG_TRANSACTION_STATE) return 10;
    if (!strstr(ce_last_error_message(), "fork()") || !strstr(ce_last_error_message(), parent_pid) ||
        !strstr(ce_last_error_message(), "open the file again"))
        return 11;
    if (ce_txn_begin_write(db, &txn) || ce_last_error_code() != CE_ERR_WRONG_TRANSACTION_STATE) return 12;
    if (ce_txn_try_begin_write(db, &txn) || ce_last_error_code() != CE_ERR_WRONG_TRANSACTION_STATE) return 13;
    /* The parent's write transaction: no write, no commit. */
    if (db_txn_set_root(writing, 0) || ce_last_error_code() != CE_ERR_WRONG_TRANSACTION_STATE) return 14;
    if (ce_txn_commit(writing) || ce_last_error_code() != CE_ERR_WRONG_TRANSACTION_STATE) return 15;
    /* Ending and closing free the child's memory only. */
    ce_txn_end(writing);
    if (!ce_db_close(db)) return 16;
    return 0;
}

/* A handle opened before fork() is refused in the child, and the child's
 * close neither unlocks nor syncs what the parent holds: the parent's
 * write transaction keeps the writer lock (an OFD lock the child shares),
 * then commits, and the file reads back. */
TEST(handle_refused_in_forked_child)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "fork.realm");
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 1);
    CHECK(ce_txn_commit(txn));
    ce_txn *writing;
    CHECK(ce_txn_begin_write(db, &writing));
    test_list_append(writing, 2);
    pid_t parent = getpid();
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        alarm(20); /* a handle that waits for the parent's writer lock: fail, not hang */
        _exit(use_inherited_handle(db, writing, parent));
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The parent still holds the writer lock: another handle is busy. */
    ce_db *other = test_open(path);
    ce_txn *other_txn = NULL;
    CHECK(ce_txn_try_begin_write(other, &other_txn) && other_txn == NULL);
    CHECK(ce_txn_commit(writing));
    CHECK(ce_txn_begin_read(other, &txn));
    CHECK(test_list_size(txn) == 2 && test_list_get(txn, 0) == 1 && test_list_get(txn, 1) == 2);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 3);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 3 && test_list_get(txn, 2) == 3);
    ce_txn_end(txn);
    test_verify(db);
    CHECK(ce_db_close(other));
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* ce_db_delete_files removes the file and what the engine keeps beside it,
 * and refuses while any handle, of this process or another, has it open. */
TEST(delete_files)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "delete.realm");
    char *lock = test_path(dir, "delete.realm.lock");
    char *compact = test_path(dir, "delete.realm.compact");
    bool deleted = true;
    CHECK(ce_db_delete_files(path, &deleted) && !deleted); /* nothing there */
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 7);
    CHECK(ce_txn_commit(txn));
    CHECK(!ce_db_delete_files(path, &deleted) && ce_last_error_code() == CE_ERR_ALREADY_OPEN);
    CHECK(strstr(ce_last_error_message(), "Cannot delete files of an open Realm") != NULL);
    CHECK(exists(path) && exists(lock));
    CHECK(ce_db_close(db));
    /* Another process holding it open. */
    int ready[2], done[2];
    CHECK(pipe(ready) == 0 && pipe(done) == 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *child_db = test_open(path);
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1) _exit(2);
        if (read(done[0], &byte, 1) != 1) _exit(3);
        _exit(ce_db_close(child_db) ? 0 : 4);
    }
    char byte = 0;
    CHECK(read(ready[0], &byte, 1) == 1);
    CHECK(!ce_db_delete_files(path, NULL) && ce_last_error_code() == CE_ERR_ALREADY_OPEN);
    CHECK(exists(path));
    CHECK(write(done[1], &byte, 1) == 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Closed everywhere: every file goes, a compaction's leftover too. */
    int fd = open(compact, O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0);
    close(fd);
    CHECK(ce_db_delete_files(path, &deleted) && deleted);
    CHECK(!exists(path) && !exists(lock) && !exists(compact));
    /* And the path opens anew, empty. */
    db = test_open(path);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(db_txn_root(txn) == 0);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    close(ready[0]);
    close(ready[1]);
    close(done[0]);
    close(done[1]);
    free(path);
    free(lock);
    free(compact);
    test_cleanup_dir(dir);
    free(dir);
}

/* A lock file deleted between a handle's open() of it and its lock: the
 * handle must not initialize the deleted file (it would be alone with it,
 * while the next handle makes a new one), but start again. */
static const char *race_path, *race_lock_path;
static bool race_done;

static int open_then_delete(const char *path, int flags, mode_t mode)
{
    int fd = os_default.open(path, flags, mode);
    if (fd >= 0 && !race_done && strcmp(path, race_lock_path) == 0) {
        race_done = true;
        bool deleted;
        CHECK(ce_db_delete_files(race_path, &deleted));
    }
    return fd;
}

TEST(lock_file_deleted_while_opening)
{
    char *dir = test_make_dir("db");
    char *path = test_path(dir, "race.realm");
    char *lock = test_path(dir, "race.realm.lock");
    ce_db *db = test_open(path);
    CHECK(ce_db_close(db));
    race_path = path;
    race_lock_path = lock;
    race_done = false;
    os_methods racing = os_default;
    racing.open = open_then_delete;
    os_active = &racing;
    db = test_open(path);
    os_active = &os_default;
    CHECK(race_done);
    /* The handle uses the lock file at the path, which a second handle shares. */
    CHECK(exists(lock));
    ce_db *other = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 1);
    CHECK(ce_txn_commit(txn));
    uint64_t seen = 0, latest = 0;
    CHECK(ce_db_latest_version(db, &latest) && ce_db_latest_version(other, &seen) && seen == latest);
    CHECK(ce_db_close(other));
    CHECK(ce_db_close(db));
    free(path);
    free(lock);
    test_cleanup_dir(dir);
    free(dir);
}
