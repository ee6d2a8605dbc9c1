/*
 * test_pagesum.c — the page checksums of plain files (storage/pagesum.c,
 * docs/FORMAT.md "Page checksums"), and what an open does when the sync
 * record names a version no intact slot holds.
 *
 * Owns: damage to a value reported as CE_ERR_CORRUPT (and read as it is
 * with disable_page_checksums), files without checksums (created with the
 * option) opening and committing as before, a damaged newest slot and a
 * truncated file refused, the pages of checksums growing with the file,
 * a commit whose rewritten page of checksums did not reach the disk
 * losing to the previous slot at open, and copies and compaction writing
 * page checksums (the handle verifying on after compacting in place);
 * a page the handle verified, then rewritten by a later commit, verified
 * again for the new version (the one test that damages the file while a
 * handle has it open, between its transactions).
 * Never: truncates a file a handle has open (test_truncate does).
 */
#include "db_internal.h"
#include "node.h"
#include "pager.h"
#include "test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARK INT64_C(0x0123456789ABCDEF)
/* Values of 64 bits: the file grows by 8 bytes a value. */
static int64_t value_at(int64_t i) { return i == 777 ? MARK : (int64_t)((uint64_t)i * 0x9E3779B97F4A7C15u >> 1); }

static ce_db *open_with(const char *path, bool disable_page_checksums)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.disable_page_checksums = disable_page_checksums;
    ce_db *db = NULL;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

static void append_values(ce_db *db, int64_t from, int64_t count)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t i = from; i < from + count; i++) test_list_append(txn, value_at(i));
    CHECK(ce_txn_commit(txn));
}

static uint8_t *read_file(const char *path, size_t *out_size)
{
    struct stat status;
    CHECK(stat(path, &status) == 0);
    uint8_t *bytes = malloc((size_t)status.st_size);
    int fd = open(path, O_RDONLY);
    CHECK(bytes && fd >= 0 && read(fd, bytes, (size_t)status.st_size) == status.st_size);
    close(fd);
    *out_size = (size_t)status.st_size;
    return bytes;
}

static void write_at(const char *path, const void *bytes, size_t length, off_t offset)
{
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, bytes, length, offset) == (ssize_t)length);
    close(fd);
}

/* Flips the lowest bit of the one place MARK is stored at (64-bit width,
 * little-endian). */
static void flip_mark(const char *path)
{
    size_t size;
    uint8_t *bytes = read_file(path, &size);
    int64_t mark = MARK;
    size_t found = SIZE_MAX;
    for (size_t i = 0; i + 8 <= size; i += 8)
        if (memcmp(bytes + i, &mark, 8) == 0) found = i;
    CHECK(found != SIZE_MAX);
    uint8_t byte = bytes[found] ^ 1;
    write_at(path, &byte, 1, (off_t)found);
    free(bytes);
    char lock[4200];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
}

static bool read_all(ce_db *db, int64_t count, bool *out_changed)
{
    ce_txn *txn;
    *out_changed = false;
    if (!ce_txn_begin_read(db, &txn)) return false;
    space_ref root = db_txn_root(txn);
    bool ok = true;
    for (int64_t i = 0; ok && i < count; i++) {
        int64_t value;
        ok = bptree_get(db_txn_space(txn), root, (size_t)i, &value);
        if (ok && value != value_at(i)) *out_changed = true;
    }
    ce_txn_end(txn);
    return ok;
}

TEST(flipped_value_is_corruption)
{
    test_db t = test_db_open("pagesum-flip");
    append_values(t.db, 0, 5000);
    CHECK(ce_db_close(t.db));
    flip_mark(t.path);
    t.db = open_with(t.path, false);
    bool changed;
    CHECK(!read_all(t.db, 5000, &changed));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), "fails its checksum") != NULL);
    CHECK(strstr(ce_last_error_message(), t.path) != NULL);
    ce_db_stats stats;
    CHECK(!ce_db_verify(t.db, &stats));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(ce_db_close(t.db));
    /* A handle that turned verification off reads the bytes as they are. */
    t.db = open_with(t.path, true);
    CHECK(read_all(t.db, 5000, &changed) && changed);
    test_db_close(&t);
}

/* A file created with the option has no checksums: it opens and takes
 * commits with the default options as files written before checksums
 * existed did; damage there reads through (the old behaviour). */
TEST(file_without_checksums)
{
    char *dir = test_make_dir("pagesum-off");
    char *path = test_path(dir, "off.realm");
    ce_db *db = open_with(path, true);
    append_values(db, 0, 3000);
    CHECK(ce_db_close(db));
    size_t size;
    uint8_t *bytes = read_file(path, &size);
    uint32_t flags;
    memcpy(&flags, bytes + 12, 4);
    CHECK(flags == 0);
    free(bytes);
    db = open_with(path, false);
    append_values(db, 3000, 2000);
    ce_db_stats stats;
    CHECK(ce_db_verify(db, &stats));
    CHECK(ce_db_close(db));
    flip_mark(path);
    db = open_with(path, false);
    bool changed;
    CHECK(read_all(db, 5000, &changed) && changed);
    CHECK(ce_db_close(db));
    test_cleanup_dir(dir);
    free(path);
    free(dir);
}

/* The file grows over several pages of checksums (4 MiB each): the
 * directory grows, every page verifies, and the file stays sound. */
TEST(checksums_grow_with_the_file)
{
    test_db t = test_db_open("pagesum-grow");
    for (int round = 0; round < 6; round++) append_values(t.db, round * 400000, 400000);
    ce_db_stats stats;
    CHECK(ce_db_verify(t.db, &stats));
    CHECK(stats.logical_size > 3 * 4096 * 1022);
    CHECK(ce_db_close(t.db));
    t.db = open_with(t.path, false);
    bool changed;
    CHECK(read_all(t.db, 2400000, &changed) && !changed);
    CHECK(ce_db_verify(t.db, &stats));
    test_db_close(&t);
}

/* A handle remembers the pages it verified (the version each was verified
 * for), so that later transactions do not hash them again; a page a later
 * commit rewrote must still be hashed for the version that rewrote it.
 * Here the handle verifies every page, commits until a value lands on a
 * page it verified before (space freed by earlier commits is reused),
 * then that value is damaged on disk: the next read of it is
 * CE_ERR_CORRUPT, not the damaged value. */
TEST(rewritten_page_is_verified_again)
{
    test_db t = test_db_open("pagesum-rewritten");
    append_values(t.db, 0, 20000);
    bool changed;
    CHECK(read_all(t.db, 20000, &changed) && !changed);
    uint64_t pages;
    const _Atomic uint64_t *verified = pager_page_sums_verified(t.db->pager, &pages);
    CHECK(verified != NULL);
    /* Each round writes a value of its own (older rounds' copies stay in
     * freed space) and looks where the commit put it. */
    size_t found = SIZE_MAX;
    for (int64_t round = 0; round < 64 && found == SIZE_MAX; round++) {
        const int64_t mark = INT64_C(0x0FEDCBA987654321) + round;
        ce_txn *txn;
        CHECK(ce_txn_begin_write(t.db, &txn));
        test_list_set(txn, (size_t)(round * 300), mark);
        CHECK(ce_txn_commit(txn));
        size_t size;
        uint8_t *bytes = read_file(t.path, &size);
        for (size_t i = 0; i + 8 <= size; i += 8) {
            if (memcmp(bytes + i, &mark, 8) != 0 || i / 4096 >= pages) continue;
            /* A page this handle verified (for an older version: none of
             * the new one was read yet). */
            if (atomic_load(&verified[i / 4096]) != 0) found = i;
        }
        free(bytes);
        if (found != SIZE_MAX) break;
        /* Not there yet: undo, and verify every page of the new version. */
        CHECK(ce_txn_begin_write(t.db, &txn));
        test_list_set(txn, (size_t)(round * 300), value_at(round * 300));
        CHECK(ce_txn_commit(txn));
        CHECK(read_all(t.db, 20000, &changed) && !changed);
    }
    CHECK(found != SIZE_MAX);
    /* Damaged before any transaction of the new version read the page. */
    uint8_t byte;
    int fd = open(t.path, O_RDWR);
    CHECK(fd >= 0 && pread(fd, &byte, 1, (off_t)found) == 1);
    byte ^= 1;
    CHECK(pwrite(fd, &byte, 1, (off_t)found) == 1);
    close(fd);
    CHECK(!read_all(t.db, 20000, &changed));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), "fails its checksum") != NULL);
    test_db_close(&t);
}

static uint64_t open_version(const char *path)
{
    ce_db *db = open_with(path, false);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    uint64_t version = ce_txn_version(txn);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    return version;
}

static void expect_refused(const char *path, const char *words)
{
    ce_db_options options;
    ce_db_options_init(&options);
    ce_db *db;
    CHECK(!ce_db_open(path, &options, &db));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), words) != NULL);
}

TEST(damaged_newest_slot_is_refused)
{
    test_db t = test_db_open("pagesum-slot");
    append_values(t.db, 0, 100);
    append_values(t.db, 100, 100);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    uint64_t version = ce_txn_version(txn);
    ce_txn_end(txn);
    CHECK(ce_db_close(t.db)); /* the sync record names `version` */
    t.db = NULL;
    uint8_t byte = 0x5A;
    write_at(t.path, &byte, 1, (off_t)((1 + version % 2) * 4096 + 100));
    expect_refused(t.path, "is damaged or the file was truncated");
    test_db_close(&t);
}

TEST(truncated_file_is_refused)
{
    test_db t = test_db_open("pagesum-truncated");
    append_values(t.db, 0, 100);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    uint64_t small = db_txn_space(txn)->logical_size;
    ce_txn_end(txn);
    append_values(t.db, 100, 300000);
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    /* Both slots stay intact; the newest now reaches past the end. */
    CHECK(truncate(t.path, (off_t)(small + 8192)) == 0);
    expect_refused(t.path, "is damaged or the file was truncated");
    test_db_close(&t);
}

/* The first open after a crash checks a commit the sync record does not
 * vouch for: if a page of checksums it rewrote in place did not reach the
 * disk, its pages do not match and the previous slot wins. */
TEST(lost_page_of_checksums_loses_the_commit)
{
    for (int lose = 0; lose < 2; lose++) {
        test_db t = test_db_open("pagesum-lost");
        append_values(t.db, 0, 3000);
        ce_txn *txn;
        CHECK(ce_txn_begin_read(t.db, &txn));
        uint64_t before = ce_txn_version(txn);
        uint64_t sum_page;
        memcpy(&sum_page, db_txn_space(txn)->sum_directory, 8);
        ce_txn_end(txn);
        CHECK(sum_page % 4096 == 0 && sum_page >= 16384);
        CHECK(ce_db_close(t.db));
        t.db = NULL;
        uint8_t saved[4096];
        int fd = open(t.path, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, saved, sizeof saved, (off_t)sum_page) == (ssize_t)sizeof saved);
        close(fd);
        /* A small commit in a process that dies without closing: the sync
         * record still names `before`. */
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
            ce_db *db = open_with(t.path, false);
            ce_txn *write;
            if (!ce_txn_begin_write(db, &write)) _exit(1);
            test_list_set(write, 5, -5);
            _exit(ce_txn_commit(write) ? 0 : 1);
        }
        int status;
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (lose) write_at(t.path, saved, sizeof saved, (off_t)sum_page);
        uint64_t opened = open_version(t.path);
        CHECK(opened == (lose ? before : before + 1));
        ce_db *db = open_with(t.path, false);
        CHECK(ce_txn_begin_read(db, &txn));
        CHECK(test_list_get(txn, 5) == (lose ? value_at(5) : -5));
        ce_txn_end(txn);
        ce_db_stats stats;
        CHECK(ce_db_verify(db, &stats));
        CHECK(ce_db_close(db));
        test_db_close(&t);
    }
}

static uint32_t static_flags(const char *path)
{
    size_t size;
    uint8_t *bytes = read_file(path, &size);
    uint32_t flags;
    memcpy(&flags, bytes + 12, 4);
    free(bytes);
    return flags;
}

static void expect_flip_is_corruption(const char *path, int64_t count)
{
    flip_mark(path);
    ce_db *db = open_with(path, false);
    bool changed;
    CHECK(!read_all(db, count, &changed));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), "fails its checksum") != NULL);
    CHECK(ce_db_close(db));
}

/* ce_db_write_copy and ce_txn_write_copy of a plain file, and a decrypting
 * copy of an encrypted one, carry page checksums: damage in the copy is
 * CE_ERR_CORRUPT, not data. A handle that turned them off writes copies
 * without (as the files it creates). */
TEST(copies_carry_checksums)
{
    test_db t = test_db_open("pagesum-copy");
    append_values(t.db, 0, 5000);
    char *copy = test_path(t.dir, "copy.realm");
    CHECK(ce_db_write_copy(t.db, copy, NULL));
    char *txn_copy = test_path(t.dir, "txn-copy.realm");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    test_list_append(txn, value_at(5000)); /* in the copy, not committed */
    CHECK(ce_txn_write_copy(txn, txn_copy, NULL));
    ce_txn_end(txn);
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    const char *copies[] = {copy, txn_copy};
    for (int i = 0; i < 2; i++) {
        int64_t count = 5000 + i;
        CHECK(static_flags(copies[i]) == 2);
        ce_db *db = open_with(copies[i], false);
        bool changed;
        CHECK(read_all(db, count, &changed) && !changed);
        ce_db_stats stats;
        CHECK(ce_db_verify(db, &stats) && stats.free_bytes == 0);
        /* The copy takes commits that keep its checksums. */
        append_values(db, count, 3000);
        CHECK(ce_db_verify(db, &stats));
        CHECK(ce_db_close(db));
        db = open_with(copies[i], false);
        CHECK(read_all(db, count + 3000, &changed) && !changed);
        CHECK(ce_db_close(db));
        expect_flip_is_corruption(copies[i], count + 3000);
    }
    /* Without: the handle's option. */
    char *plain = test_path(t.dir, "unchecked.realm");
    ce_db *db = open_with(t.path, true);
    CHECK(ce_db_write_copy(db, plain, NULL));
    CHECK(ce_db_close(db));
    CHECK(static_flags(plain) == 0);
    db = open_with(plain, false);
    bool changed;
    CHECK(read_all(db, 5000, &changed) && !changed);
    CHECK(ce_db_close(db));
    free(copy);
    free(txn_copy);
    free(plain);
    test_db_close(&t);
}

TEST(decrypted_copy_carries_checksums)
{
    char *dir = test_make_dir("pagesum-decrypt");
    char *path = test_path(dir, "encrypted.realm");
    char *copy = test_path(dir, "decrypted.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    options.encryption_key = test_fixed_key(7);
    options.encryption_key_size = 64;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    append_values(db, 0, 5000);
    CHECK(ce_db_write_copy(db, copy, NULL)); /* no key: a plain copy */
    CHECK(ce_db_close(db));
    CHECK(static_flags(path) == 1 && static_flags(copy) == 2);
    db = open_with(copy, false);
    bool changed;
    CHECK(read_all(db, 5000, &changed) && !changed);
    CHECK(ce_db_close(db));
    expect_flip_is_corruption(copy, 5000);
    test_cleanup_dir(dir);
    free(path);
    free(copy);
    free(dir);
}

/* Flips MARK's lowest bit in the file while `db` has it open (no lock file
 * removed: the handle goes on). */
static void flip_mark_under(const char *path)
{
    size_t size;
    uint8_t *bytes = read_file(path, &size);
    int64_t mark = MARK;
    size_t found = SIZE_MAX;
    for (size_t i = 0; i + 8 <= size; i += 8)
        if (memcmp(bytes + i, &mark, 8) == 0) found = i;
    CHECK(found != SIZE_MAX);
    uint8_t byte = bytes[found] ^ 1;
    write_at(path, &byte, 1, (off_t)found);
    free(bytes);
}

/* Compaction in place writes page checksums (a file that had none gains
 * them), and the handle goes on verifying: damage after the compaction is
 * CE_ERR_CORRUPT through the same handle, and its commits keep them. */
TEST(compaction_keeps_verifying)
{
    for (int had = 0; had < 2; had++) {
        char *dir = test_make_dir("pagesum-compact");
        char *path = test_path(dir, "compact.realm");
        ce_db *db = open_with(path, !had);
        append_values(db, 0, 5000);
        append_values(db, 5000, 100);
        CHECK(ce_db_close(db));
        CHECK(static_flags(path) == (had ? 2u : 0u));
        db = open_with(path, false);
        CHECK(ce_db_compact(db, NULL));
        CHECK(static_flags(path) == 2);
        /* A commit (it reads only the list's last leaves), then damage to
         * a page the handle has not read since the compaction: it is
         * verified when first read. */
        append_values(db, 5100, 50);
        flip_mark_under(path);
        bool changed;
        CHECK(!read_all(db, 5150, &changed));
        CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
        CHECK(strstr(ce_last_error_message(), "fails its checksum") != NULL);
        CHECK(ce_db_close(db));
        test_cleanup_dir(dir);
        free(path);
        free(dir);
    }
}

/* A handle with the option compacts a file that has checksums: they stay
 * (other handles verify them); one without checksums stays without. */
TEST(compaction_with_checksums_off)
{
    for (int had = 0; had < 2; had++) {
        char *dir = test_make_dir("pagesum-compact-off");
        char *path = test_path(dir, "compact.realm");
        ce_db *db = open_with(path, !had);
        append_values(db, 0, 3000);
        CHECK(ce_db_close(db));
        db = open_with(path, true);
        CHECK(ce_db_compact(db, NULL));
        append_values(db, 3000, 10);
        CHECK(ce_db_close(db));
        CHECK(static_flags(path) == (had ? 2u : 0u));
        db = open_with(path, false);
        bool changed;
        ce_db_stats stats;
        CHECK(read_all(db, 3010, &changed) && !changed && ce_db_verify(db, &stats));
        CHECK(ce_db_close(db));
        test_cleanup_dir(dir);
        free(path);
        free(dir);
    }
}

/* A byte of the change history damaged on disk (a page that holds only
 * history): with page checksums the damage is found when a commit reads
 * the history to extend it, and reported as damage (CE_ERR_CORRUPT naming
 * the page), never read as history; the data stays readable. Commits
 * that record changes keep failing until the file is copied or compacted
 * (a copy leaves the history out), which is what this case pins down. */
TEST(damaged_history_page)
{
    test_db t = test_db_open("pagesum-history");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key table;
    CHECK(ce_table_add(txn, "Thing", &table));
    CHECK(ce_txn_commit(txn));
    ce_object_key keys[6000];
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int i = 0; i < 6000; i++) CHECK(ce_object_create(txn, table, NULL, &keys[i]));
    CHECK(ce_txn_commit(txn));
    /* Every other one deleted: an entry of history of 3000 ranges, larger
     * than a page, so that one of its pages holds history alone. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int i = 0; i < 6000; i += 2) CHECK(ce_object_delete(txn, table, keys[i]));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(t.db, &txn));
    node_view root, entry;
    CHECK(node_read(db_txn_space(txn), db_txn_history(txn), &root));
    CHECK(root.count >= 5);
    space_ref entry_ref = (space_ref)node_get(&root, root.count - 1);
    CHECK(node_read(db_txn_space(txn), entry_ref, &entry));
    ce_txn_end(txn);
    /* A page wholly inside the entry's bytes. */
    uint64_t first_page = (entry_ref + 8 + 4095) / 4096;
    CHECK((first_page + 1) * 4096 <= entry_ref + 8 + entry.count);
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    uint8_t byte;
    int fd = open(t.path, O_RDWR);
    CHECK(fd >= 0 && pread(fd, &byte, 1, (off_t)(first_page * 4096 + 100)) == 1);
    byte ^= 0x10;
    CHECK(pwrite(fd, &byte, 1, (off_t)(first_page * 4096 + 100)) == 1);
    close(fd);
    t.db = open_with(t.path, false);
    size_t count;
    CHECK(ce_txn_begin_read(t.db, &txn));
    CHECK(ce_object_count(txn, table, &count) && count == 3000);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key key;
    CHECK(ce_object_create(txn, table, NULL, &key));
    CHECK(!ce_txn_commit(txn));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), "fails its checksum") != NULL);
    ce_txn_end(txn);
    /* A compacted copy has no history: it takes commits. */
    CHECK(ce_db_compact(t.db, NULL));
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_object_create(txn, table, NULL, &key));
    CHECK(ce_txn_commit(txn));
    ce_db_stats stats;
    CHECK(ce_db_verify(t.db, &stats));
    test_db_close(&t);
}
