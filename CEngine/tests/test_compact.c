/*
 * test_compact.c — writeCopy and compaction (compact.c).
 *
 *   - A copy holds the same data (a list of integers through the storage
 *     core, and objects with strings, large compressed values and an index
 *     through the object store), verifies, has no free space, and its size
 *     is the live data; writing continues normally on it.
 *   - The destination must not exist (the source's own path included); a
 *     copy never replaces anything and leaves no file behind on failure.
 *   - A copy does not block writers: a commit made while it runs (from its
 *     progress callback) succeeds, and the copy holds the version it began
 *     with. Progress reports rise to done == total.
 *   - ce_db_verify_with_progress reports the same way, over the file's
 *     logical size, and gives ce_db_verify's figures.
 *   - Compaction shrinks the file, keeps the data, and the handle goes on
 *     (reads, commits, reopen); ce_db_size_info reports the two numbers.
 *   - Compaction is refused while another handle (same process or another
 *     one) has the file open, and while a transaction of the handle is open;
 *     a handle that opens during compaction waits and then sees the
 *     compacted file.
 *   - Queries and results views made before a compaction of the same
 *     handle work after it; one made before another process compacted the
 *     file is refused, saying so.
 *   - Faults: every system call of a compaction fails in turn (EIO, ENOSPC,
 *     a short write): the error is reported and the file and handle are as
 *     before. A crash at every call, followed by a power loss that undoes
 *     the writes not yet synced: the path holds one whole file with the data.
 */
#include "test_support.h"
#include "os.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ------------------------------------------------------------------------ */
/* Data                                                                      */
/* ------------------------------------------------------------------------ */

/* A list of `count` integers, then rewrites that leave free space behind. */
/* `page_checksums` false: a plain file whose top names only the user root,
 * the free list and the history (cases that count nodes; a copy is
 * written without page checksums). */
static void make_list_file_with(const char *path, int count, bool page_checksums)
{
    ce_db_options db_options;
    ce_db_options_init(&db_options);
    test_set_key(&db_options);
    db_options.disable_page_checksums = !page_checksums;
    ce_db *db;
    CHECK(ce_db_open(path, &db_options, &db));
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < count; i++) test_list_append(txn, (int64_t)i * 3 - 7);
    CHECK(ce_txn_commit(txn));
    for (int round = 0; round < 4; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = round; i < count; i += 300) test_list_set(txn, (size_t)i, (int64_t)i * 3 - 7);
        CHECK(ce_txn_commit(txn));
    }
    test_verify(db);
    CHECK(ce_db_close(db));
}

static void make_list_file(const char *path, int count) { make_list_file_with(path, count, true); }

static bool hash_leaf(void *context, const node_view *leaf, size_t first_index, bool *stop)
{
    (void)first_index, (void)stop;
    uint64_t *hash = context;
    for (size_t i = 0; i < leaf->count; i++) *hash = (*hash ^ (uint64_t)node_get(leaf, i)) * 1099511628211ull;
    return true;
}

static uint64_t list_fingerprint(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    uint64_t hash = 1469598103934665603ull ^ test_list_size(txn);
    CHECK(bptree_for_each_leaf(db_txn_space(txn), db_txn_root(txn), hash_leaf, &hash));
    ce_txn_end(txn);
    return hash;
}

static uint64_t file_fingerprint(const char *path)
{
    ce_db *db = test_open(path);
    test_verify(db);
    uint64_t print = list_fingerprint(db);
    CHECK(ce_db_close(db));
    return print;
}

/* Objects through the public API: a primary key, strings of every length
 * class (inline, and 8 KiB values that zstd compresses into nodes of their
 * own), a nullable int, and a secondary index. */
static void make_object_file(const char *path)
{
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    CHECK(ce_table_add(txn, "Person", &table));
    ce_property_info properties[] = {
        {.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false},
        {.name = "name", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = true},
        {.name = "age", .type = CE_TYPE_INT, .nullable = true, .primary_key = false, .indexed = false},
        {.name = "notes", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = false},
    };
    for (int i = 0; i < 4; i++) {
        ce_column_key column;
        CHECK(ce_property_add(txn, table, &properties[i], &column));
    }
    char *notes = malloc(8192);
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof name, "name-%d", i);
        size_t notes_length = i % 50 == 0 ? 8192 : (size_t)(i % 40);
        for (size_t k = 0; k < notes_length; k++) notes[k] = (char)('a' + (i + (int)k / 64) % 26);
        ce_value values[4] = {
            {.type = CE_TYPE_INT, .integer = i + 1},
            {.type = CE_TYPE_STRING, .string = {name, strlen(name)}},
            i % 7 == 0 ? (ce_value){.type = CE_TYPE_NULL} : (ce_value){.type = CE_TYPE_INT, .integer = i % 100},
            {.type = CE_TYPE_STRING, .string = {notes, notes_length}},
        };
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, 4, &key));
    }
    free(notes);
    CHECK(ce_txn_commit(txn));
    /* Deletes and updates leave free space. */
    CHECK(ce_txn_begin_write(db, &txn));
    for (ce_object_key key = 0; key < 3000; key += 3) CHECK(ce_object_delete(txn, table, key));
    for (ce_object_key key = 1; key < 3000; key += 3) {
        ce_value age = {.type = CE_TYPE_INT, .integer = key * 2};
        CHECK(ce_object_set(txn, table, key, 2, &age));
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));
}

static uint64_t hash_bytes(uint64_t hash, const void *data, size_t length)
{
    const uint8_t *bytes = data;
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 1099511628211ull;
    return hash;
}

static uint64_t object_fingerprint(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    size_t count;
    CHECK(ce_object_count(txn, table, &count));
    uint64_t hash = 1469598103934665603ull ^ count;
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        CHECK(ce_object_key_at(txn, table, i, &key));
        hash = hash_bytes(hash, &key, sizeof key);
        for (ce_column_key column = 0; column < 4; column++) {
            ce_value value;
            CHECK(ce_object_get(txn, table, key, column, &value));
            hash = hash_bytes(hash, &value.type, sizeof value.type);
            if (value.type == CE_TYPE_INT) hash = hash_bytes(hash, &value.integer, sizeof value.integer);
            if (value.type == CE_TYPE_STRING) hash = hash_bytes(hash, value.string.data, value.string.size);
        }
    }
    /* The primary key's index and the secondary index answer. */
    ce_value id = {.type = CE_TYPE_INT, .integer = 2};
    ce_object_key key;
    CHECK(ce_object_find_primary_key(txn, table, &id, &key, &found) && found && key == 1);
    ce_value name = {.type = CE_TYPE_STRING, .string = {"name-2999", 9}};
    CHECK(ce_object_find_first(txn, table, 1, &name, &key, &found) && found && key == 2999);
    ce_txn_end(txn);
    return hash;
}

static ce_db_stats stats_of(const char *path)
{
    ce_db *db = test_open(path);
    ce_db_stats stats;
    CHECK(ce_db_verify(db, &stats));
    CHECK(ce_db_close(db));
    return stats;
}

/* The size on disk of a compacted file of `logical` bytes: whole pages
 * (a plain copy's last page is written whole for its checksum), and for an
 * encrypted file (the encrypted variant) a metadata page per 146 of them
 * (docs/FORMAT.md). */
static uint64_t compacted_file_size(uint64_t logical)
{
    if (!test_key) return (logical + 4095) / 4096 * 4096;
    uint64_t pages = (logical - 16384 + 4095) / 4096, groups = (pages + 145) / 146;
    return 16384 + (pages + groups) * 4096;
}

/* Copy options with the key of the variant (the copy keeps the key). */
static ce_copy_options copy_options(void)
{
    ce_copy_options options;
    ce_copy_options_init(&options);
    if (test_key) {
        options.encryption_key = test_key;
        options.encryption_key_size = 64;
    }
    return options;
}

/* A compacted file: nothing free, the nodes tile the file from the header. */
static void check_compacted(const char *path)
{
    ce_db_stats stats = stats_of(path);
    CHECK(stats.free_bytes == 0 && stats.free_extent_count == 0);
    CHECK(stats.used_bytes == stats.logical_size);
    CHECK(stats.file_size == compacted_file_size(stats.logical_size));
}

/* ------------------------------------------------------------------------ */
/* writeCopy                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct progress_log {
    uint64_t calls, last_done, total;
    bool went_backwards;
} progress_log;

static void log_progress(void *context, uint64_t done, uint64_t total)
{
    progress_log *log = context;
    if (done < log->last_done || done > total || (log->calls > 0 && total != log->total)) log->went_backwards = true;
    log->calls++;
    log->last_done = done;
    log->total = total;
}

TEST(copy_list)
{
    char *dir = test_make_dir("compact");
    char *source = test_path(dir, "list.realm");
    char *copy = test_path(dir, "list-copy.realm");
    make_list_file_with(source, 200000, false);
    ce_db_stats before = stats_of(source);
    CHECK(before.free_bytes > 0);
    uint64_t print = file_fingerprint(source);

    ce_db *db = test_open(source);
    ce_copy_options options = copy_options();
    progress_log log = {0};
    options.progress = log_progress;
    options.progress_context = &log;
    CHECK(ce_db_write_copy(db, copy, &options));
    CHECK(!log.went_backwards && log.calls >= 1 && log.last_done == log.total);
    /* total = the live data above the db layer: used bytes minus the header
     * and the db layer's top node and free list. */
    CHECK(log.total < before.used_bytes && log.total + 16384 + 8192 > before.used_bytes);
    CHECK(ce_db_close(db));

    CHECK(file_fingerprint(copy) == print);
    check_compacted(copy);
    ce_db_stats after = stats_of(copy);
    /* Less the free list; a plain copy gains page checksums (the source was
     * written without): its directory and one page of checksums. */
    CHECK(after.node_count + 1 == before.node_count + (test_key ? 0 : 2));
    CHECK(after.file_size < before.file_size);
    CHECK(after.version == before.version);

    /* The copy is an ordinary database: it takes commits and stays sound. */
    db = test_open(copy);
    ce_txn *txn;
    for (int i = 0; i < 20; i++) {
        CHECK(ce_txn_begin_write(db, &txn));
        test_list_set(txn, (size_t)i * 1000, -1);
        test_list_append(txn, i);
        CHECK(ce_txn_commit(txn));
        test_verify(db);
    }
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 200020 && test_list_get(txn, 1000) == -1 && test_list_get(txn, 200019) == 19);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));

    /* A copy of a copy is the same bytes of data. */
    char *second = test_path(dir, "list-copy-2.realm");
    db = test_open(copy);
    ce_copy_options same_key = copy_options();
    CHECK(ce_db_write_copy(db, second, &same_key));
    CHECK(ce_db_close(db));
    check_compacted(second);
    free(source);
    free(copy);
    free(second);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(verify_progress)
{
    char *dir = test_make_dir("compact");
    char *path = test_path(dir, "list.realm");
    make_list_file_with(path, 200000, false);
    ce_db *db = test_open(path);
    ce_db_stats plain, reported;
    CHECK(ce_db_verify(db, &plain));
    progress_log log = {0};
    CHECK(ce_db_verify_with_progress(db, &reported, log_progress, &log));
    /* Several reports (the file is megabytes), never backwards, ending at
     * the logical size. */
    CHECK(plain.logical_size > 1u << 20);
    CHECK(!log.went_backwards && log.calls >= 2 && log.last_done == log.total);
    CHECK(log.total == plain.logical_size);
    CHECK(memcmp(&plain, &reported, sizeof plain) == 0);
    /* No callback: ce_db_verify itself. */
    CHECK(ce_db_verify_with_progress(db, NULL, NULL, NULL));
    CHECK(ce_db_close(db));
    CHECK(!ce_db_verify_with_progress(NULL, NULL, log_progress, &log));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(copy_objects)
{
    char *dir = test_make_dir("compact");
    char *source = test_path(dir, "objects.realm");
    char *copy = test_path(dir, "objects-copy.realm");
    make_object_file(source);
    ce_db *db = test_open(source);
    uint64_t print = object_fingerprint(db);
    ce_copy_options options = copy_options();
    CHECK(ce_db_write_copy(db, copy, &options));
    CHECK(ce_db_close(db));
    check_compacted(copy);
    db = test_open(copy);
    CHECK(object_fingerprint(db) == print);
    /* Objects can be added, changed and found in the copy. */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    ce_value values[4] = {
        {.type = CE_TYPE_INT, .integer = 99999},
        {.type = CE_TYPE_STRING, .string = {"new", 3}},
        {.type = CE_TYPE_NULL},
        {.type = CE_TYPE_STRING, .string = {"", 0}},
    };
    ce_object_key key;
    CHECK(ce_object_create_with_values(txn, table, values, 4, &key));
    ce_value duplicate = {.type = CE_TYPE_INT, .integer = 2};
    CHECK(!ce_object_create(txn, table, &duplicate, &key) && ce_last_error_code() == CE_ERR_DUPLICATE_PRIMARY_KEY);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));
    free(source);
    free(copy);
    test_cleanup_dir(dir);
    free(dir);
}

/* Lists in a mixed value nested to the engine's limit (100 levels),
 * level i holding the int i and the next list. */
enum { DEEP_LEVELS = 100 };

static void make_deep_file(const char *path)
{
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    CHECK(ce_table_add(txn, "Deep", &table));
    ce_property_info info = {.name = "any", .type = CE_TYPE_MIXED, .nullable = true};
    ce_column_key any;
    CHECK(ce_property_add(txn, table, &info, &any));
    ce_object_key object;
    CHECK(ce_object_create(txn, table, NULL, &object));
    ce_value list = {.type = CE_TYPE_LIST};
    CHECK(ce_object_set(txn, table, object, any, &list));
    ce_collection *collection;
    CHECK(ce_collection_open_mixed(txn, table, object, any, &collection));
    for (int level = 1;; level++) {
        ce_value number = {.type = CE_TYPE_INT, .integer = level};
        CHECK(ce_list_insert(collection, 0, &number));
        if (level == DEEP_LEVELS) break;
        CHECK(ce_list_insert(collection, 1, &list));
        ce_value at = {.type = CE_TYPE_INT, .integer = 1};
        ce_collection *nested;
        CHECK(ce_collection_open_nested(collection, &at, &nested));
        ce_collection_close(collection);
        collection = nested;
    }
    ce_collection_close(collection);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
}

/* The file verifies, and every level reads back. */
static void check_deep(ce_db *db)
{
    test_verify(db);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Deep", &table, &found) && found);
    ce_collection *collection;
    CHECK(ce_collection_open_mixed(txn, table, 0, 0, &collection));
    for (int level = 1;; level++) {
        size_t size;
        ce_value value;
        CHECK(ce_collection_size(collection, &size) && size == (level == DEEP_LEVELS ? 1u : 2u));
        CHECK(ce_collection_get(collection, 0, &value) && value.type == CE_TYPE_INT && value.integer == level);
        if (level == DEEP_LEVELS) break;
        ce_value at = {.type = CE_TYPE_INT, .integer = 1};
        ce_collection *nested;
        CHECK(ce_collection_open_nested(collection, &at, &nested));
        ce_collection_close(collection);
        collection = nested;
    }
    ce_collection_close(collection);
    ce_txn_end(txn);
}

/* writeCopy and compaction take every file the engine writes and verify
 * accepts: they once refused trees deeper than 64 nodes ("tree deeper than
 * 64"), which lists nested 40 levels already make. */
TEST(copy_deep_nesting)
{
    char *dir = test_make_dir("compact");
    char *source = test_path(dir, "deep.realm");
    char *copy = test_path(dir, "deep-copy.realm");
    make_deep_file(source);
    ce_db *db = test_open(source);
    check_deep(db);
    ce_copy_options options = copy_options();
    CHECK(ce_db_write_copy(db, copy, &options));
    ce_copy_options_init(&options);
    CHECK(ce_db_compact(db, &options));
    check_deep(db);
    CHECK(ce_db_close(db));
    check_compacted(copy);
    db = test_open(copy);
    check_deep(db);
    CHECK(ce_db_close(db));
    free(source);
    free(copy);
    test_cleanup_dir(dir);
    free(dir);
}

/* ce_txn_write_copy: a read transaction's version, even after later
 * commits; a write transaction's changes (objects still buffered by the
 * table layer included) before they are committed, and the transaction
 * goes on to roll back or commit. */
TEST(copy_from_transaction)
{
    char *dir = test_make_dir("compact");
    char *source = test_path(dir, "txn.realm");
    char *old_copy = test_path(dir, "txn-old.realm");
    char *write_copy = test_path(dir, "txn-write.realm");
    char *second_copy = test_path(dir, "txn-write-2.realm");
    make_object_file(source);
    ce_db *db = test_open(source);
    uint64_t before = object_fingerprint(db);
    ce_txn *reader;
    CHECK(ce_txn_begin_read(db, &reader));
    uint64_t read_version = ce_txn_version(reader);
    /* A commit after the reader began: the reader's copy does not have it. */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    CHECK(ce_object_delete(txn, table, 5));
    CHECK(ce_txn_commit(txn));
    ce_copy_options options = copy_options();
    CHECK(ce_txn_write_copy(reader, old_copy, &options));
    CHECK(ce_txn_version(reader) == read_version); /* still open, still usable */
    size_t count_before;
    CHECK(ce_object_count(reader, table, &count_before));
    ce_txn_end(reader);
    CHECK(!ce_txn_write_copy(NULL, old_copy, &options) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);

    ce_db *copy = test_open(old_copy);
    CHECK(object_fingerprint(copy) == before);
    test_verify(copy);
    CHECK(ce_db_close(copy));
    check_compacted(old_copy);

    /* A write transaction: new objects (buffered), a change, a deletion. */
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 500; i++) {
        ce_value values[4] = {
            {.type = CE_TYPE_INT, .integer = 100000 + i},
            {.type = CE_TYPE_STRING, .string = {"uncommitted", 11}},
            {.type = CE_TYPE_INT, .integer = i},
            {.type = CE_TYPE_STRING, .string = {"", 0}},
        };
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, 4, &key));
    }
    ce_value age = {.type = CE_TYPE_INT, .integer = 4242};
    CHECK(ce_object_set(txn, table, 2, 2, &age));
    size_t count_in_write;
    CHECK(ce_object_count(txn, table, &count_in_write));
    CHECK(ce_txn_write_copy(txn, write_copy, &options));
    CHECK(!ce_txn_write_copy(txn, write_copy, &options) && ce_last_error_code() == CE_ERR_FILE_EXISTS);
    /* The transaction goes on, then rolls back: the source never had them. */
    ce_value more = {.type = CE_TYPE_INT, .integer = 200000};
    ce_object_key key;
    CHECK(ce_object_create(txn, table, &more, &key));
    ce_txn_end(txn);
    size_t count_after;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_object_count(txn, table, &count_after));
    ce_txn_end(txn);
    CHECK(count_after + 500 == count_in_write && count_after + 1 == count_before);

    copy = test_open(write_copy);
    test_verify(copy);
    CHECK(ce_txn_begin_read(copy, &txn));
    size_t copied;
    CHECK(ce_object_count(txn, table, &copied) && copied == count_in_write);
    ce_value key_value = {.type = CE_TYPE_INT, .integer = 100499}, read;
    ce_object_key object;
    CHECK(ce_object_find_primary_key(txn, table, &key_value, &object, &found) && found);
    CHECK(ce_object_get(txn, table, object, 1, &read) && read.type == CE_TYPE_STRING && read.string.size == 11 &&
          memcmp(read.string.data, "uncommitted", 11) == 0);
    CHECK(ce_object_get(txn, table, 2, 2, &read) && read.type == CE_TYPE_INT && read.integer == 4242);
    ce_value missing = {.type = CE_TYPE_INT, .integer = 200000};
    CHECK(ce_object_find_primary_key(txn, table, &missing, &object, &found) && !found);
    ce_txn_end(txn);
    CHECK(ce_db_close(copy));
    check_compacted(write_copy);

    /* Copied, then committed: both have the changes. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_delete(txn, table, 4));
    CHECK(ce_txn_write_copy(txn, second_copy, &options));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    uint64_t committed = object_fingerprint(db);
    CHECK(ce_db_close(db));
    copy = test_open(second_copy);
    CHECK(object_fingerprint(copy) == committed);
    CHECK(ce_db_close(copy));
    free(source);
    free(old_copy);
    free(write_copy);
    free(second_copy);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(copy_destination_exists)
{
    char *dir = test_make_dir("compact");
    char *source = test_path(dir, "exists.realm");
    char *other = test_path(dir, "exists-other.realm");
    make_list_file(source, 1000);
    FILE *file = fopen(other, "w");
    CHECK(file && fputs("not mine", file) >= 0 && fclose(file) == 0);
    ce_db *db = test_open(source);
    CHECK(!ce_db_write_copy(db, other, NULL));
    CHECK(ce_last_error_code() == CE_ERR_FILE_EXISTS && strstr(ce_last_error_message(), "exists-other.realm"));
    CHECK(!ce_db_write_copy(db, source, NULL)); /* its own path */
    CHECK(ce_last_error_code() == CE_ERR_FILE_EXISTS);
    CHECK(!ce_db_write_copy(db, NULL, NULL) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    /* A missing directory: the error names the path (not only the
     * temporary beside it, which the caller never gave), nothing is left. */
    char *nowhere = test_path(dir, "no-such-dir/copy.realm");
    CHECK(!ce_db_write_copy(db, nowhere, NULL) && ce_last_error_code() == CE_ERR_FILE_NOT_FOUND);
    char expected[4200];
    snprintf(expected, sizeof expected, "cannot write a copy to '%s': its directory does not exist", nowhere);
    CHECK(strcmp(ce_last_error_message(), expected) == 0);
    /* Under a regular file (ENOTDIR): nothing exists there, so not
     * CE_ERR_FILE_EXISTS; the error names the path. */
    char *under_file = test_path(dir, "exists-other.realm/copy.realm");
    CHECK(!ce_db_write_copy(db, under_file, NULL) && ce_last_error_code() != CE_ERR_FILE_EXISTS);
    snprintf(expected, sizeof expected, "cannot write a copy to '%s': %s", under_file, strerror(ENOTDIR));
    CHECK(strcmp(ce_last_error_message(), expected) == 0);
    free(under_file);
    CHECK(ce_db_close(db));
    char text[16] = {0};
    file = fopen(other, "r");
    CHECK(file && fgets(text, sizeof text, file) && fclose(file) == 0);
    CHECK(strcmp(text, "not mine") == 0);
    /* Only the three files: no temporary copy was left behind. */
    char command[4096];
    snprintf(command, sizeof command, "test $(ls '%s' | grep -c writecopy) -eq 0", dir);
    CHECK(system(command) == 0);
    free(source);
    free(other);
    free(nowhere);
    test_cleanup_dir(dir);
    free(dir);
}

/* From the progress callback: a commit on the same handle while the copy
 * reads (it must not block), once. */
typedef struct concurrent_write {
    ce_db *db;
    bool done;
} concurrent_write;

static void write_during_copy(void *context, uint64_t done, uint64_t total)
{
    (void)done, (void)total;
    concurrent_write *state = context;
    if (state->done) return;
    state->done = true;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(state->db, &txn));
    test_list_set(txn, 0, 424242);
    CHECK(ce_txn_commit(txn));
}

TEST(copy_does_not_block_writers)
{
    char *dir = test_make_dir("compact");
    char *source = test_path(dir, "busy.realm");
    char *copy = test_path(dir, "busy-copy.realm");
    make_list_file(source, 400000);
    uint64_t print = file_fingerprint(source);
    ce_db *db = test_open(source);
    concurrent_write state = {db, false};
    ce_copy_options options = copy_options();
    options.progress = write_during_copy;
    options.progress_context = &state;
    CHECK(ce_db_write_copy(db, copy, &options));
    CHECK(state.done);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_get(txn, 0) == 424242);
    ce_txn_end(txn);
    test_verify(db);
    CHECK(ce_db_close(db));
    CHECK(file_fingerprint(copy) == print); /* the version the copy began with */
    free(source);
    free(copy);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Compaction                                                                */
/* ------------------------------------------------------------------------ */

TEST(compact_in_place)
{
    char *dir = test_make_dir("compact");
    char *path = test_path(dir, "compact.realm");
    make_object_file(path);
    ce_db *db = test_open(path);
    uint64_t print = object_fingerprint(db);
    uint64_t total, used;
    CHECK(ce_db_size_info(db, &total, &used));
    ce_db_stats before;
    CHECK(ce_db_verify(db, &before));
    CHECK(total == before.file_size && used < total);
    /* (the copy's page checksums: a directory filling a page at most, and
     * its last page whole) */
    if (!test_key) CHECK(used + before.free_bytes <= before.logical_size + 2 * 4096);
    progress_log log = {0};
    ce_copy_options options;
    ce_copy_options_init(&options);
    /* Compaction keeps the file's key: it takes none. */
    options.encryption_key = test_fixed_key(2);
    options.encryption_key_size = 64;
    CHECK(!ce_db_compact(db, &options) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_copy_options_init(&options);
    options.progress = log_progress;
    options.progress_context = &log;
    CHECK(ce_db_compact(db, &options));
    CHECK(!log.went_backwards && log.calls >= 1 && log.last_done == log.total);
    /* The handle goes on, on the compacted file. */
    CHECK(object_fingerprint(db) == print);
    ce_db_stats after;
    CHECK(ce_db_verify(db, &after));
    CHECK(after.free_bytes == 0 && after.file_size == compacted_file_size(after.logical_size) &&
          after.file_size < before.file_size);
    uint64_t total_after, used_after;
    CHECK(ce_db_size_info(db, &total_after, &used_after));
    /* (used: the estimate of a compacted file, within its top node's size) */
    CHECK(total_after == after.file_size && used_after + 4096 >= total_after && used_after <= total_after + 4096);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    ce_value age = {.type = CE_TYPE_INT, .integer = 7};
    CHECK(ce_object_set(txn, table, 1, 2, &age));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));
    db = test_open(path);
    CHECK(ce_txn_begin_read(db, &txn));
    ce_value value;
    CHECK(ce_object_get(txn, table, 1, 2, &value) && value.type == CE_TYPE_INT && value.integer == 7);
    ce_txn_end(txn);
    test_verify(db);
    /* No temporary file is left beside it. */
    char *temporary = test_path(dir, "compact.realm.compact");
    CHECK(access(temporary, F_OK) != 0);
    CHECK(ce_db_close(db));
    free(temporary);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

static void *open_and_read(void *argument)
{
    const char *path = argument;
    ce_db *db = test_open(path);
    uint64_t *print = malloc(sizeof *print);
    *print = list_fingerprint(db);
    test_verify(db);
    CHECK(ce_db_close(db));
    return print;
}

typedef struct opener_during_compaction {
    const char *path;
    pthread_t thread;
    bool started;
} opener_during_compaction;

static void start_opener(void *context, uint64_t done, uint64_t total)
{
    (void)done, (void)total;
    opener_during_compaction *opener = context;
    if (opener->started) return;
    opener->started = true;
    CHECK(pthread_create(&opener->thread, NULL, open_and_read, (void *)opener->path) == 0);
    usleep(20000); /* let it reach the lock and wait there */
}

TEST(compact_refused_when_open)
{
    char *dir = test_make_dir("compact");
    char *path = test_path(dir, "shared.realm");
    make_list_file(path, 100000);
    uint64_t print = file_fingerprint(path);
    ce_db *db = test_open(path);

    /* A second handle in this process. */
    ce_db *other = test_open(path);
    CHECK(!ce_db_compact(db, NULL) && ce_last_error_code() == CE_ERR_ALREADY_OPEN);
    CHECK(strstr(ce_last_error_message(), "shared.realm") != NULL);
    CHECK(ce_db_close(other));

    /* A handle in another process. */
    int ready[2], release[2];
    CHECK(pipe(ready) == 0 && pipe(release) == 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *mine = test_open(path);
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1 || read(release[0], &byte, 1) != 1) _exit(2);
        ce_db_close(mine);
        _exit(0);
    }
    char byte;
    CHECK(read(ready[0], &byte, 1) == 1);
    CHECK(!ce_db_compact(db, NULL) && ce_last_error_code() == CE_ERR_ALREADY_OPEN);
    CHECK(write(release[1], &byte, 1) == 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]), close(ready[1]), close(release[0]), close(release[1]);

    /* A transaction of the handle itself. */
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(!ce_db_compact(db, NULL) && ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    ce_txn_end(txn);

    /* Nothing changed: the file is as it was, and the handle works. */
    CHECK(list_fingerprint(db) == print);

    /* Alone now: it compacts. A handle that opens meanwhile (from the
     * progress callback) waits, then reads the compacted file. */
    opener_during_compaction opener = {path, 0, false};
    ce_copy_options options;
    ce_copy_options_init(&options);
    options.progress = start_opener;
    options.progress_context = &opener;
    CHECK(ce_db_compact(db, &options));
    CHECK(opener.started);
    void *result;
    CHECK(pthread_join(opener.thread, &result) == 0);
    CHECK(*(uint64_t *)result == print);
    free(result);
    CHECK(list_fingerprint(db) == print);
    CHECK(ce_db_close(db));
    check_compacted(path);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Faults and crashes during compaction                                      */
/* ------------------------------------------------------------------------ */

typedef enum fault_mode { FAULT_NONE, FAULT_EIO, FAULT_ENOSPC, FAULT_SHORT, FAULT_CRASH } fault_mode;

/* A write not yet synced: the file (by inode) and the bytes it replaced. */
typedef struct undo_entry {
    ino_t inode;
    uint64_t offset;
    size_t length;
    uint8_t *old_bytes;
} undo_entry;

static struct {
    bool counting, crashed, disk_full;
    int calls, fail_at;
    fault_mode mode;
    undo_entry *undo;
    size_t undo_count, undo_capacity;
} injector;

static bool should_fail(void)
{
    if (!injector.counting) return false;
    if (injector.crashed) return true;
    if (++injector.calls != injector.fail_at) return false;
    if (injector.mode == FAULT_CRASH) injector.crashed = true;
    return injector.mode != FAULT_NONE;
}

static void remember(int fd, uint64_t offset, size_t length)
{
    if (injector.undo_count == injector.undo_capacity) {
        injector.undo_capacity = injector.undo_capacity ? 2 * injector.undo_capacity : 64;
        injector.undo = realloc(injector.undo, injector.undo_capacity * sizeof *injector.undo);
    }
    struct stat status;
    CHECK(fstat(fd, &status) == 0);
    undo_entry *entry = &injector.undo[injector.undo_count++];
    entry->inode = status.st_ino;
    entry->offset = offset;
    entry->length = length;
    entry->old_bytes = calloc(1, length ? length : 1);
    ssize_t got = pread(fd, entry->old_bytes, length, (off_t)offset);
    (void)got; /* past the end: zeros */
}

static void forget_undo_of(ino_t inode, bool everything)
{
    size_t kept = 0;
    for (size_t i = 0; i < injector.undo_count; i++) {
        if (everything || injector.undo[i].inode == inode) {
            free(injector.undo[i].old_bytes);
            continue;
        }
        injector.undo[kept++] = injector.undo[i];
    }
    injector.undo_count = kept;
}

static ssize_t faulty_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    if (injector.disk_full) {
        errno = ENOSPC;
        return -1;
    }
    if (should_fail()) {
        if (injector.mode == FAULT_ENOSPC) {
            injector.disk_full = true;
            errno = ENOSPC;
            return -1;
        }
        if (injector.mode == FAULT_SHORT && length >= 2) {
            remember(fd, (uint64_t)offset, length / 2);
            injector.disk_full = true;
            return pwrite(fd, buffer, length / 2, offset);
        }
        errno = EIO;
        return -1;
    }
    if (injector.counting) remember(fd, (uint64_t)offset, length);
    return pwrite(fd, buffer, length, offset);
}

static int faulty_sync(int fd, bool metadata)
{
    if (should_fail()) {
        errno = EIO;
        return -1;
    }
    struct stat status;
    if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) forget_undo_of(status.st_ino, false);
    return metadata ? fsync(fd) : fdatasync(fd);
}
static int faulty_fdatasync(int fd) { return faulty_sync(fd, false); }
static int faulty_fsync(int fd) { return faulty_sync(fd, true); }

static int faulty_rename(const char *from, const char *to)
{
    if (should_fail()) {
        errno = EIO;
        return -1;
    }
    return rename(from, to);
}

static int faulty_open(const char *path, int flags, mode_t mode)
{
    if ((flags & O_CREAT) && should_fail()) {
        errno = injector.mode == FAULT_ENOSPC ? ENOSPC : EIO;
        return -1;
    }
    return open(path, flags, mode);
}

static os_methods faulty_os;

static void arm(fault_mode mode, int fail_at)
{
    forget_undo_of(0, true);
    injector.counting = true;
    injector.crashed = injector.disk_full = false;
    injector.calls = 0;
    injector.fail_at = fail_at;
    injector.mode = mode;
}

static void disarm(void) { injector.counting = injector.crashed = injector.disk_full = false; }

/* Power loss: the writes not synced are undone in whichever file (by inode)
 * they went to, wherever it is now. */
static void lose_power(const char *const *paths, size_t path_count)
{
    for (size_t p = 0; p < path_count; p++) {
        int fd = open(paths[p], O_RDWR);
        if (fd < 0) continue;
        struct stat status;
        CHECK(fstat(fd, &status) == 0);
        for (size_t i = injector.undo_count; i-- > 0;) {
            undo_entry *entry = &injector.undo[i];
            if (entry->inode != status.st_ino) continue;
            CHECK(pwrite(fd, entry->old_bytes, entry->length, (off_t)entry->offset) == (ssize_t)entry->length);
        }
        close(fd);
    }
    forget_undo_of(0, true);
}

static void copy_file(const char *from, const char *to)
{
    char command[8192];
    snprintf(command, sizeof command, "cp '%s' '%s' && rm -f '%s.lock' '%s.compact'", from, to, to, to);
    CHECK(system(command) == 0);
}

TEST(compact_faults)
{
    char *dir = test_make_dir("compact");
    char *base = test_path(dir, "faults-base.realm");
    char *work = test_path(dir, "faults.realm");
    char *temporary = test_path(dir, "faults.realm.compact");
    make_list_file(base, 60000);
    uint64_t print = file_fingerprint(base);
    uint64_t base_size = stats_of(base).file_size;

    faulty_os = os_default;
    faulty_os.pwrite = faulty_pwrite;
    faulty_os.fdatasync = faulty_fdatasync;
    faulty_os.fsync = faulty_fsync;
    faulty_os.rename = faulty_rename;
    faulty_os.open = faulty_open;

    /* The calls of one compaction. */
    copy_file(base, work);
    ce_db *db = test_open(work);
    os_active = &faulty_os;
    arm(FAULT_NONE, 0);
    CHECK(ce_db_compact(db, NULL));
    int calls = injector.calls;
    disarm();
    os_active = &os_default;
    CHECK(ce_db_close(db));
    CHECK(calls >= 6);
    uint64_t compacted_size = stats_of(work).file_size;
    CHECK(compacted_size < base_size);

    int cases = 0;
    for (int call = 1; call <= calls; call++) {
        fault_mode errors[] = {FAULT_EIO, FAULT_ENOSPC, FAULT_SHORT};
        for (int e = 0; e < 3; e++) {
            copy_file(base, work);
            db = test_open(work);
            os_active = &faulty_os;
            arm(errors[e], call);
            bool compacted = ce_db_compact(db, NULL);
            ce_error_code code = ce_last_error_code();
            disarm();
            os_active = &os_default;
            /* Every failure is reported (a failed sync of the directory
             * after the rename too, though the file is compacted then). */
            CHECK(!compacted && (code == CE_ERR_FILE_ACCESS || code == CE_ERR_OUT_OF_DISK_SPACE));
            CHECK(list_fingerprint(db) == print);
            test_verify(db);
            ce_txn *txn;
            CHECK(ce_txn_begin_write(db, &txn));
            test_list_append(txn, 5);
            CHECK(ce_txn_commit(txn));
            CHECK(ce_db_close(db));
            CHECK(access(temporary, F_OK) != 0); /* removed after a failure */
            db = test_open(work);
            test_verify(db);
            CHECK(ce_db_close(db));
            cases++;
        }
        /* A crash at the call, then the power fails. */
        for (int undo = 0; undo < 2; undo++) {
            copy_file(base, work);
            db = test_open(work);
            os_active = &faulty_os;
            arm(FAULT_CRASH, call);
            ce_db_compact(db, NULL);
            CHECK(ce_db_close(db));
            disarm();
            os_active = &os_default;
            const char *paths[2] = {work, temporary};
            if (undo) lose_power(paths, 2);
            forget_undo_of(0, true);
            uint64_t size = stats_of(work).file_size;
            CHECK(size == base_size || size == compacted_size); /* the old file or the compacted one */
            CHECK(file_fingerprint(work) == print);
            /* And compaction works afterwards (over a stale temporary file). */
            db = test_open(work);
            CHECK(ce_db_compact(db, NULL));
            CHECK(list_fingerprint(db) == print);
            CHECK(ce_db_close(db));
            check_compacted(work);
            cases++;
        }
    }
    printf("compact: %d calls in a compaction, %d fault cases passed\n", calls, cases);
    forget_undo_of(0, true);
    free(injector.undo);
    free(base);
    free(work);
    free(temporary);
    test_cleanup_dir(dir);
    free(dir);
}

/* A query and its results views made before a compaction of the same
 * handle keep working after it: the file is the same one, compacted by
 * this handle (its identity token goes on). A query made on the file
 * before another process compacted it is refused, with a message that says
 * the file was compacted or replaced since. */
static void query_people(ce_db *db, ce_query **out_query, ce_results **out_results, ce_results **out_sorted)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    CHECK(ce_query_parse(txn, table, "age >= 90", NULL, 0, out_query) && ce_query_find_all(*out_query, out_results));
    ce_sort_key by_id = {.key_path = "id", .ascending = false};
    CHECK(ce_results_sort(txn, *out_results, &by_id, 1, out_sorted));
    ce_txn_end(txn);
}

static void expect_people(ce_db *db, ce_query *query, ce_results *results, ce_results *sorted, size_t expected)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    size_t count;
    CHECK(ce_query_count(query, txn, &count) && count == expected);
    CHECK(ce_results_count(results, txn, &count) && count == expected);
    CHECK(ce_results_count(sorted, txn, &count) && count == expected);
    ce_object_key first;
    CHECK(ce_results_get(sorted, txn, 0, &first));
    ce_value id;
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    CHECK(ce_object_get(txn, table, first, 0, &id) && id.type == CE_TYPE_INT && id.integer == 3000);
    ce_txn_end(txn);
}

TEST(queries_survive_compaction)
{
    char *dir = test_make_dir("compact");
    char *path = test_path(dir, "queries.realm");
    make_object_file(path);
    ce_db *db = test_open(path);
    ce_query *query;
    ce_results *results, *sorted;
    query_people(db, &query, &results, &sorted);
    size_t expected;
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_query_count(query, txn, &expected) && expected > 0);
    ce_txn_end(txn);
    CHECK(ce_db_compact(db, NULL));
    expect_people(db, query, results, sorted, expected);
    CHECK(ce_db_compact(db, NULL)); /* twice: the token goes on */
    expect_people(db, query, results, sorted, expected);
    ce_results_free(sorted);
    ce_results_free(results);
    ce_query_free(query);

    /* Made before another process compacted the file: refused, saying so. */
    query_people(db, &query, &results, &sorted);
    CHECK(ce_db_close(db));
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *other = test_open(path);
        _exit(other && ce_db_compact(other, NULL) && ce_db_close(other) ? 0 : 1);
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    db = test_open(path);
    CHECK(ce_txn_begin_read(db, &txn));
    size_t count;
    CHECK(!ce_query_count(query, txn, &count) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "compacted or replaced") != NULL);
    CHECK(!ce_results_count(sorted, txn, &count) && strstr(ce_last_error_message(), "compacted or replaced") != NULL);
    ce_txn_end(txn);
    ce_results_free(sorted);
    ce_results_free(results);
    ce_query_free(query);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}
