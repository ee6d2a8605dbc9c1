/*
 * test_disk.c — what the files on disk go through outside the engine's
 * control: a file system that is full when a database opens (the lock file
 * must get its blocks with an error, never a SIGBUS from a write through its
 * mapping), and the temporaries a copy leaves when its process is killed
 * (removed by the next open or copy, only those of dead processes); and
 * the blocks a growing file gets, written once by a commit that fills them.
 */
#include "test_support.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>

enum { VALUE_COUNT = 2000 };

static ce_db *open_plain(const char *path)
{
    ce_db_options options;
    ce_db_options_init(&options);
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

static void write_values(const char *path)
{
    ce_db *db = open_plain(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t i = 0; i < VALUE_COUNT; i++) test_list_append(txn, i * 7);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(db));
}

static bool values_are_intact(const char *path)
{
    ce_db *db = open_plain(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    bool intact = test_list_size(txn) == VALUE_COUNT;
    for (size_t i = 0; intact && i < VALUE_COUNT; i++) intact = test_list_get(txn, i) == (int64_t)i * 7;
    ce_txn_end(txn);
    CHECK(ce_db_verify(db, NULL));
    CHECK(ce_db_close(db));
    return intact;
}

static char *lock_path_of(const char *path)
{
    size_t length = strlen(path) + 6;
    char *lock = malloc(length);
    CHECK(lock);
    snprintf(lock, length, "%s.lock", path);
    return lock;
}

static int full_fallocate(int fd, off_t offset, off_t length)
{
    (void)fd, (void)offset, (void)length;
    errno = ENOSPC;
    return -1;
}

static void expect_open_out_of_disk_space(const char *path)
{
    ce_db_options options;
    ce_db_options_init(&options);
    ce_db *db = NULL;
    CHECK(!ce_db_open(path, &options, &db));
    CHECK(db == NULL);
    CHECK(ce_last_error_code() == CE_ERR_OUT_OF_DISK_SPACE);
}

/* The lock file's blocks are allocated through the os table before its
 * mapping is written: a full disk there is CE_ERR_OUT_OF_DISK_SPACE, and
 * the data is all there at the next open. */
TEST(lock_file_allocation_enospc)
{
    char *dir = test_make_dir("disk-lock-enospc");
    char *path = test_path(dir, "data.realm");
    char *lock = lock_path_of(path);
    write_values(path);

    os_methods full = os_default;
    full.fallocate = full_fallocate;
    /* The lock file left by the last close, then a new one. */
    os_active = &full;
    expect_open_out_of_disk_space(path);
    os_active = &os_default;
    CHECK(unlink(lock) == 0 || errno == ENOENT);
    os_active = &full;
    expect_open_out_of_disk_space(path);
    /* A new database. */
    char *fresh = test_path(dir, "fresh.realm");
    expect_open_out_of_disk_space(fresh);
    os_active = &os_default;

    CHECK(values_are_intact(path));
    free(fresh);
    free(lock);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Fills the file system that holds `path` (a tmpfs mounted for the test). */
static void fill_file_system(const char *filler)
{
    int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    static const char block[4096];
    for (;;) {
        ssize_t done = write(fd, block, sizeof block);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) break;
    }
    /* Whatever is left below a page. */
    while (write(fd, block, 1) == 1) {
    }
    CHECK(close(fd) == 0);
}

/* Runs in a child with a mount namespace of its own: a 1 MiB tmpfs, a
 * database written there, its lock file removed, the file system filled,
 * then the open (in a grandchild, so that a SIGBUS is seen and reported).
 * Exit status: 0 passed, 77 the tmpfs could not be mounted. */
static int full_tmpfs_child(const char *dir)
{
    int flags = CLONE_NEWNS | (geteuid() == 0 ? 0 : CLONE_NEWUSER);
    if (unshare(flags) != 0) {
        fprintf(stderr, "  skipped: unshare(%s) failed: %s\n", geteuid() == 0 ? "CLONE_NEWNS" : "CLONE_NEWUSER|CLONE_NEWNS",
                strerror(errno));
        return 77;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("test-disk", dir, "tmpfs", 0, "size=1m") != 0) {
        fprintf(stderr, "  skipped: cannot mount a tmpfs on '%s': %s\n", dir, strerror(errno));
        return 77;
    }
    char *path = test_path(dir, "data.realm");
    char *lock = lock_path_of(path);
    char *filler = test_path(dir, "filler");
    write_values(path);
    CHECK(unlink(lock) == 0);
    fill_file_system(filler);

    pid_t opener = fork();
    CHECK(opener >= 0);
    if (opener == 0) {
        ce_db_options options;
        ce_db_options_init(&options);
        ce_db *db = NULL;
        if (ce_db_open(path, &options, &db)) _exit(2);
        _exit(ce_last_error_code() == CE_ERR_OUT_OF_DISK_SPACE ? 0 : 3);
    }
    int status;
    CHECK(waitpid(opener, &status, 0) == opener);
    if (WIFSIGNALED(status))
        fprintf(stderr, "  the open on a full file system died with signal %d (%s)\n", WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "  the open on a full file system exited with %d (2: it succeeded, 3: another error)\n",
                WEXITSTATUS(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    CHECK(unlink(filler) == 0);
    CHECK(values_are_intact(path));
    free(filler);
    free(lock);
    free(path);
    return 0;
}

/* The same on a real file system that is full. Needs a mount namespace
 * (root, or unprivileged user namespaces); skipped, with the reason
 * printed, where there is none. */
TEST(full_tmpfs_open)
{
    char *dir = test_make_dir("disk-full-tmpfs");
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) _exit(full_tmpfs_child(dir));
    int status;
    CHECK(waitpid(child, &status, 0) == child);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        fprintf(stderr, "  full_tmpfs_open: SKIPPED (no tmpfs could be mounted, see above)\n");
    } else {
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    test_cleanup_dir(dir);
    free(dir);
}

/* A database that fills a 4 MiB tmpfs: commits until one fails, then in
 * the same handle a read, one more small commit, a ce_db_write_copy and a
 * ce_db_compact on the full file system; each failure is
 * CE_ERR_OUT_OF_DISK_SPACE, leaves no partial copy or temporary behind
 * (the directory holds the data file and its lock file only), and the
 * file reopens at the last commit that returned true, verifies, and takes
 * commits again once there is room. Plain and encrypted (`key`). Exit
 * status: 0 passed, 77 no tmpfs. */
static int fill_child(const char *dir, const uint8_t *key)
{
    if (unshare(CLONE_NEWNS | (geteuid() == 0 ? 0 : CLONE_NEWUSER)) != 0) return 77;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("test-disk", dir, "tmpfs", 0, "size=4m") != 0)
        return 77;
    char *path = test_path(dir, "data.realm");
    char *copy = test_path(dir, "copy.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    options.encryption_key = key;
    options.encryption_key_size = key ? 64 : 0;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    size_t committed = 0;
    ce_txn *txn;
    for (;;) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = 0; i < 20000; i++) test_list_append(txn, (int64_t)(committed + (size_t)i) * 7);
        if (!ce_txn_commit(txn)) {
            CHECK(ce_last_error_code() == CE_ERR_OUT_OF_DISK_SPACE);
            ce_txn_end(txn);
            break;
        }
        committed += 20000;
        CHECK(committed < 10000000); /* the file system must fill */
    }
    CHECK(committed > 0);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == committed);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, (int64_t)committed * 7);
    if (ce_txn_commit(txn)) {
        committed++;
    } else {
        CHECK(ce_last_error_code() == CE_ERR_OUT_OF_DISK_SPACE);
        ce_txn_end(txn);
    }
    ce_copy_options copy_options;
    ce_copy_options_init(&copy_options);
    copy_options.encryption_key = key;
    copy_options.encryption_key_size = key ? 64 : 0;
    CHECK(!ce_db_write_copy(db, copy, &copy_options));
    CHECK(ce_last_error_code() == CE_ERR_OUT_OF_DISK_SPACE);
    /* The error names the copy, not the temporary written beside it. */
    char expected[4200];
    snprintf(expected, sizeof expected, "cannot write a copy to '%s': %s", copy, strerror(ENOSPC));
    CHECK(strcmp(ce_last_error_message(), expected) == 0);
    CHECK(!ce_db_compact(db, NULL));
    CHECK(ce_last_error_code() == CE_ERR_OUT_OF_DISK_SPACE);
    snprintf(expected, sizeof expected, "cannot compact '%s': %s", path, strerror(ENOSPC));
    CHECK(strcmp(ce_last_error_message(), expected) == 0);
    DIR *listing = opendir(dir);
    CHECK(listing != NULL);
    struct dirent *entry;
    size_t entries = 0;
    while ((entry = readdir(listing)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        if (strcmp(entry->d_name, "data.realm") != 0 && strcmp(entry->d_name, "data.realm.lock") != 0)
            fprintf(stderr, "  left on the full file system: %s\n", entry->d_name);
        entries++;
    }
    closedir(listing);
    CHECK(entries == 2);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == committed);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));

    CHECK(ce_db_open(path, &options, &db));
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == committed);
    for (size_t i = 0; i < committed; i += 997) CHECK(test_list_get(txn, i) == (int64_t)i * 7);
    CHECK(test_list_get(txn, committed - 1) == (int64_t)(committed - 1) * 7);
    ce_txn_end(txn);
    CHECK(ce_db_verify(db, NULL));
    CHECK(ce_db_close(db));
    /* Room again (the mount grows): commits, a copy and a compaction work. */
    CHECK(mount(NULL, dir, NULL, MS_REMOUNT, "size=64m") == 0);
    CHECK(ce_db_open(path, &options, &db));
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, (int64_t)committed * 7);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_write_copy(db, copy, &copy_options));
    CHECK(ce_db_compact(db, NULL));
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == committed + 1);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    free(copy);
    free(path);
    return 0;
}

TEST(full_tmpfs_commit_copy_compact)
{
    for (int variant = 0; variant < 2; variant++) {
        char *dir = test_make_dir("disk-fill");
        fflush(NULL);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) _exit(fill_child(dir, variant ? test_fixed_key(1) : NULL));
        int status;
        CHECK(waitpid(child, &status, 0) == child);
        if (WIFSIGNALED(status))
            fprintf(stderr, "  filling a file system died with signal %d (%s)\n", WTERMSIG(status),
                    strsignal(WTERMSIG(status)));
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
            fprintf(stderr, "  full_tmpfs_commit_copy_compact: SKIPPED (no tmpfs could be mounted)\n");
        else
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        test_cleanup_dir(dir);
        free(dir);
    }
}

/* ------------------------------------------------------------------------ */
/* Temporaries of copies whose process died                                 */
/* ------------------------------------------------------------------------ */

static pid_t dead_pid(void)
{
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) _exit(0);
    int status;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(kill(child, 0) == -1 && errno == ESRCH);
    return child;
}

static char *make_file(const char *format, const char *path, long pid, int n)
{
    size_t length = strlen(path) + 128;
    char *name = malloc(length);
    CHECK(name);
    snprintf(name, length, format, path, pid, n);
    FILE *file = fopen(name, "w");
    CHECK(file && fputs("partial copy", file) >= 0 && fclose(file) == 0);
    return name;
}

static bool exists(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0;
}

/* Files that look like temporaries but are not exactly `path`.writecopy-<pid>-<n>. */
static char *lookalikes[6];

static void make_lookalikes(const char *path, const char *other, long dead)
{
    lookalikes[0] = make_file("%s.writecopy-%ld-%dx", path, dead, 1);
    lookalikes[1] = make_file("%s.writecopy-%ld%.0d", path, dead, 0);
    lookalikes[2] = make_file("%s.writecopy--%ld-%d", path, dead, 2);
    lookalikes[3] = make_file("%s.writecopy-%ld-%d", other, dead, 3);
    lookalikes[4] = make_file("%sx.writecopy-%ld-%d", path, dead, 4);
    lookalikes[5] = make_file("%s.writecopy-%ld-%d.tmp", path, dead, 5);
}

static void check_and_free_lookalikes(void)
{
    for (size_t i = 0; i < sizeof lookalikes / sizeof *lookalikes; i++) {
        CHECK(exists(lookalikes[i]));
        free(lookalikes[i]);
    }
}

TEST(stale_copy_temporaries_removed_by_copy)
{
    char *dir = test_make_dir("disk-stale-copy");
    char *source = test_path(dir, "source.realm");
    char *copy = test_path(dir, "copy.realm");
    char *other = test_path(dir, "other.realm");
    write_values(source);
    long dead = (long)dead_pid();
    char *stale = make_file("%s.writecopy-%ld-%d", copy, dead, 0);
    char *live = make_file("%s.writecopy-%ld-%d", copy, (long)getpid(), 7);
    make_lookalikes(copy, other, dead);

    ce_db *db = open_plain(source);
    CHECK(ce_db_write_copy(db, copy, NULL));
    CHECK(ce_db_close(db));
    CHECK(!exists(stale));
    CHECK(exists(live));
    check_and_free_lookalikes();
    CHECK(values_are_intact(copy));
    free(stale);
    free(live);
    free(other);
    free(copy);
    free(source);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(stale_copy_temporaries_removed_by_open)
{
    char *dir = test_make_dir("disk-stale-open");
    char *path = test_path(dir, "data.realm");
    char *other = test_path(dir, "other.realm");
    write_values(path);
    long dead = (long)dead_pid();
    char *stale = make_file("%s.writecopy-%ld-%d", path, dead, 3);
    char *live = make_file("%s.writecopy-%ld-%d", path, (long)getpid(), 4);
    make_lookalikes(path, other, dead);

    /* A read-only open removes nothing. */
    ce_db_options options;
    ce_db_options_init(&options);
    options.read_only = true;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    CHECK(ce_db_close(db));
    CHECK(exists(stale));

    CHECK(values_are_intact(path));
    CHECK(!exists(stale));
    CHECK(exists(live));
    check_and_free_lookalikes();
    free(stale);
    free(live);
    free(other);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Bytes the engine wrote through the os table while counting. */
static uint64_t bytes_written;

static ssize_t counting_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    ssize_t done = os_default.pwrite(fd, buffer, length, offset);
    if (done > 0) bytes_written += (uint64_t)done;
    return done;
}

static uint64_t file_size_of(const char *path)
{
    struct stat status;
    CHECK(stat(path, &status) == 0);
    return (uint64_t)status.st_size;
}

/* A commit that grows the file writes zeros only over the new blocks it
 * leaves empty (pager_ensure_size_for_runs): the ones it fills get its
 * data alone, not zeros first. */
TEST(growing_commit_writes_new_blocks_once)
{
    enum { GROWTH_VALUES = 400000 }; /* about 3 MiB of 64-bit values */
    char *dir = test_make_dir("disk-growth");
    char *path = test_path(dir, "data.realm");
    ce_db *db = open_plain(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 0);
    CHECK(ce_txn_commit(txn));
    ce_db_stats stats;
    CHECK(ce_db_verify(db, &stats));
    uint64_t before = file_size_of(path), logical_before = stats.logical_size;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t i = 1; i < GROWTH_VALUES; i++) test_list_append(txn, (i * 2654435761) & 0x7FFFFFFFFFFF);
    os_methods counting = os_default;
    counting.pwrite = counting_pwrite;
    bytes_written = 0;
    os_active = &counting;
    CHECK(ce_txn_commit(txn));
    os_active = &os_default;
    uint64_t after = file_size_of(path);
    /* Everything past the old end once (the commit, in the slack the file
     * had and in new blocks, and the new slack), plus the header's pages
     * and the pages of checksums: well under 128 KiB. Zeros first would
     * write the new blocks twice: 2 MiB more at least. */
    CHECK(after - before > (2u << 20));
    if (bytes_written > after - logical_before + (128u << 10)) {
        fprintf(stderr, "the commit wrote %llu bytes; the file grew from %llu (logical) to %llu\n",
                (unsigned long long)bytes_written, (unsigned long long)logical_before, (unsigned long long)after);
        CHECK(false);
    }
    CHECK(ce_db_close(db));

    db = open_plain(path);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == GROWTH_VALUES);
    for (int64_t i = 0; i < GROWTH_VALUES; i++)
        CHECK(test_list_get(txn, (size_t)i) == (i == 0 ? 0 : (i * 2654435761) & 0x7FFFFFFFFFFF));
    ce_txn_end(txn);
    CHECK(ce_db_verify(db, NULL));
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}
