/*
 * test_lockfile.c — a damaged lock file (issue 16, item 3): its bytes come
 * from a file too (invariant 5). Random bytes over its first 4 KiB while a
 * handle is open, and specific bad values (a huge logical size, a version
 * the data file does not hold, a reader slot count out of range, bad pids,
 * a sequence left odd), must give CE_ERR_CORRUPT naming the lock file, never
 * a hang, a crash or damage to the data file; a fresh open rebuilds the
 * lock file and finds every committed value. Every case runs under a
 * deadline (alarm): a hang fails it. Run plain and encrypted.
 */
#include "test_support.h"
#include "lockfile.h"
#include "pager.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>

enum { COMMITS = 5, PER_COMMIT = 200, DEADLINE_SECONDS = 30 };

static void on_deadline(int signal_number)
{
    (void)signal_number;
    static const char message[] = "test_lockfile: deadline passed (a hang on a damaged lock file)\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    _exit(1);
}

static void start_deadline(void)
{
    signal(SIGALRM, on_deadline);
    alarm(DEADLINE_SECONDS);
}

static void stop_deadline(void) { alarm(0); }

/* COMMITS commits of PER_COMMIT values each: value i is i. */
static void commit_values(ce_db *db)
{
    for (int c = 0; c < COMMITS; c++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = 0; i < PER_COMMIT; i++) test_list_append(txn, (int64_t)(c * PER_COMMIT + i));
        CHECK(ce_txn_commit(txn));
    }
}

static void expect_values(ce_db *db, size_t count)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == count);
    for (size_t i = 0; i < count; i++) CHECK(test_list_get(txn, i) == (int64_t)i);
    ce_txn_end(txn);
}

/* A fresh open (which rebuilds the lock file) finds every committed value,
 * and the file takes a new commit. */
static void expect_reopens(const char *path, size_t count)
{
    ce_db *db = test_open(path);
    expect_values(db, count);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, (int64_t)count);
    CHECK(ce_txn_commit(txn));
    expect_values(db, count + 1);
    test_verify(db);
    CHECK(ce_db_close(db));
}

static char *lock_path_of(const char *path)
{
    char *lock_path = malloc(strlen(path) + 6);
    sprintf(lock_path, "%s.lock", path);
    return lock_path;
}

static void overwrite_lock_file(const char *path, off_t offset, const void *bytes, size_t length)
{
    char *lock_path = lock_path_of(path);
    int fd = open(lock_path, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, bytes, length, offset) == (ssize_t)length);
    close(fd);
    free(lock_path);
}

static void overwrite_with_random(const char *path, uint64_t seed)
{
    uint8_t bytes[4096];
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < sizeof bytes; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes[i] = (uint8_t)(state >> 24);
    }
    overwrite_lock_file(path, 0, bytes, sizeof bytes);
}

static void put_u64(const char *path, size_t offset, uint64_t value)
{
    overwrite_lock_file(path, (off_t)offset, &value, sizeof value);
}

static void put_u32(const char *path, size_t offset, uint32_t value)
{
    overwrite_lock_file(path, (off_t)offset, &value, sizeof value);
}

/* The error of a call refused for a damaged lock file. */
static void expect_lock_file_error(void)
{
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT || ce_last_error_code() == CE_ERR_INCOMPATIBLE_LOCK_FILE);
    CHECK(strstr(ce_last_error_message(), ".lock") != NULL);
}

/* A read, a write and a close on a handle whose lock file is damaged: each
 * either works (and then reads the committed values, or commits) or fails
 * naming the lock file. Returns how many values are committed after. */
static size_t read_write_close(ce_db *db, size_t count)
{
    ce_txn *txn;
    if (ce_txn_begin_read(db, &txn)) {
        CHECK(test_list_size(txn) == count);
        for (size_t i = 0; i < count; i++) CHECK(test_list_get(txn, i) == (int64_t)i);
        ce_txn_end(txn);
    } else {
        expect_lock_file_error();
    }
    if (ce_txn_begin_write(db, &txn)) {
        CHECK(test_list_size(txn) == count);
        test_list_append(txn, (int64_t)count);
        CHECK(ce_txn_commit(txn));
        count++;
    } else {
        expect_lock_file_error();
    }
    uint64_t version;
    if (!ce_db_latest_version(db, &version)) expect_lock_file_error();
    CHECK(ce_db_close(db));
    return count;
}

static const uint64_t SEEDS[] = {1, 2, 3, 7, 42, 1234, 99991, 0xDEADBEEF};

/* (a) Random bytes over the lock file while a handle is open; then a read,
 * a write and a close in the same process, and an open after. */
TEST(random_bytes_while_open)
{
    for (size_t s = 0; s < sizeof SEEDS / sizeof *SEEDS; s++) {
        test_db t = test_db_open("lockfile-random");
        commit_values(t.db);
        start_deadline();
        overwrite_with_random(t.path, SEEDS[s]);
        size_t count = read_write_close(t.db, COMMITS * PER_COMMIT);
        t.db = NULL;
        expect_reopens(t.path, count);
        stop_deadline();
        test_db_close(&t);
    }
}

/* (b) The same in a child process, which closes (or just exits), then a
 * fresh open in this one rebuilds the lock file. */
TEST(random_bytes_then_fresh_open)
{
    for (size_t s = 0; s < sizeof SEEDS / sizeof *SEEDS; s++) {
        for (int closes = 0; closes < 2; closes++) {
            char *dir = test_make_dir("lockfile-fresh");
            char *path = test_path(dir, "test.realm");
            start_deadline();
            pid_t child = fork();
            CHECK(child >= 0);
            if (child == 0) {
                ce_db *db = test_open(path);
                commit_values(db);
                overwrite_with_random(path, SEEDS[s]);
                if (closes) read_write_close(db, COMMITS * PER_COMMIT);
                _exit(0);
            }
            int status;
            CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
            /* The child may have committed one more value (if its write
             * was not refused): at least the committed ones are there. */
            ce_db *db = test_open(path);
            ce_txn *txn;
            CHECK(ce_txn_begin_read(db, &txn));
            size_t count = test_list_size(txn);
            CHECK(count == COMMITS * PER_COMMIT || count == COMMITS * PER_COMMIT + 1);
            ce_txn_end(txn);
            CHECK(ce_db_close(db));
            expect_reopens(path, count);
            stop_deadline();
            test_cleanup_dir(dir);
            free(path);
            free(dir);
        }
    }
}

/* (c) Specific bad values, the rest of the lock file intact. */
typedef void (*damage_function)(const char *path);

static void damage_logical_size(const char *path)
{
    put_u64(path, offsetof(shared_state, latest_logical_size), (1ull << 63) + 4096);
}
static void damage_logical_size_just_huge(const char *path)
{
    put_u64(path, offsetof(shared_state, latest_logical_size), 1ull << 50);
}
static void damage_version(const char *path)
{
    put_u64(path, offsetof(shared_state, latest_version), 8888920008283828800ull);
}
static void damage_version_next(const char *path)
{
    /* Only one past the data file's: odd or even, its slot holds another. */
    uint64_t version;
    char *lock_path = lock_path_of(path);
    int fd = open(lock_path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(pread(fd, &version, 8, offsetof(shared_state, latest_version)) == 8);
    close(fd);
    free(lock_path);
    put_u64(path, offsetof(shared_state, latest_version), version + 1);
}
static void damage_version_zero(const char *path)
{
    put_u64(path, offsetof(shared_state, latest_version), 0);
}
static void damage_top_ref(const char *path)
{
    put_u64(path, offsetof(shared_state, latest_top_ref), 7);
}
static void damage_slot_count(const char *path)
{
    put_u32(path, offsetof(shared_state, slot_count), 100000);
}
static void damage_structure_size(const char *path)
{
    put_u32(path, offsetof(shared_state, structure_size), 12);
}
static void damage_sequence_odd(const char *path)
{
    put_u64(path, offsetof(shared_state, latest_sequence), 12345);
}
static void set_reader(const char *path, uint64_t pid, uint64_t version)
{
    put_u64(path, offsetof(shared_state, readers) + 5 * sizeof(reader_slot) + offsetof(reader_slot, owner_pid), pid);
    put_u64(path, offsetof(shared_state, readers) + 5 * sizeof(reader_slot) + offsetof(reader_slot, version), version);
    put_u32(path, offsetof(shared_state, reader_high_water), 1000000);
}
static void damage_reader_pid_negative(const char *path) { set_reader(path, (uint64_t)-5, 1); }
static void damage_reader_pid_zero(const char *path) { set_reader(path, 0, 1); }
static void damage_reader_pid_huge(const char *path) { set_reader(path, 1ull << 40, 1); }
static void damage_reader_version(const char *path) { set_reader(path, 1, ~0ull); }

static void check_damage(damage_function damage, bool must_refuse)
{
    test_db t = test_db_open("lockfile-values");
    commit_values(t.db);
    start_deadline();
    damage(t.path);
    /* A second handle attaching to the damaged lock file: refused clearly,
     * or (damage a reader slot only) it works. */
    ce_db *other = NULL;
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    if (ce_db_open(t.path, &options, &other)) {
        CHECK(ce_db_close(other));
    } else {
        expect_lock_file_error();
    }
    ce_txn *txn;
    bool written = ce_txn_begin_write(t.db, &txn);
    if (written) {
        CHECK(!must_refuse);
        test_list_append(txn, COMMITS * PER_COMMIT);
        CHECK(ce_txn_commit(txn));
    } else {
        expect_lock_file_error();
    }
    size_t count = read_write_close(t.db, COMMITS * PER_COMMIT + (written ? 1 : 0));
    t.db = NULL;
    expect_reopens(t.path, count);
    stop_deadline();
    test_db_close(&t);
}

TEST(huge_logical_size) { check_damage(damage_logical_size, true); }
TEST(logical_size_past_limit) { check_damage(damage_logical_size_just_huge, true); }
TEST(version_the_data_file_does_not_hold) { check_damage(damage_version, true); }
TEST(version_one_past_the_data_file) { check_damage(damage_version_next, true); }
TEST(version_zero_on_a_file_with_commits) { check_damage(damage_version_zero, true); }
TEST(bad_top_ref) { check_damage(damage_top_ref, true); }
TEST(reader_slot_count_out_of_range) { check_damage(damage_slot_count, true); }
TEST(structure_size_changed) { check_damage(damage_structure_size, true); }
TEST(sequence_left_odd) { check_damage(damage_sequence_odd, false); }
TEST(reader_pid_negative) { check_damage(damage_reader_pid_negative, true); }
TEST(reader_pid_zero) { check_damage(damage_reader_pid_zero, false); }
TEST(reader_pid_huge) { check_damage(damage_reader_pid_huge, true); }
TEST(reader_version_past_latest) { check_damage(damage_reader_version, true); }

/* The close alone: the sync record it writes must name a version the data
 * file holds, not the lock file's (an encrypted file then refused every
 * open: "the header slot of version ... fails authentication"). */
TEST(close_with_a_damaged_version_keeps_the_file_openable)
{
    test_db t = test_db_open("lockfile-close");
    commit_values(t.db);
    start_deadline();
    damage_version(t.path);
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    expect_reopens(t.path, COMMITS * PER_COMMIT);
    stop_deadline();
    test_db_close(&t);
}

/* The pager itself: a mapping of a size past 2^62 (once from the lock file's
 * latest logical size) fails cleanly instead of looping forever in
 * round_up_power_of_two. */
TEST(pager_map_of_a_huge_size_fails)
{
    char *dir = test_make_dir("lockfile-map");
    char *path = test_path(dir, "plain.bin");
    pager_state *pager;
    CHECK(pager_open(path, false, true, &pager));
    start_deadline();
    const uint64_t sizes[] = {(1ull << 63) + 4096, ~0ull, (1ull << 62) + 1, 1ull << 62};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const uint8_t *base;
        CHECK(!pager_map(pager, sizes[i], &base));
        CHECK(ce_last_error_code() == CE_ERR_ADDRESS_SPACE_EXHAUSTED);
    }
    stop_deadline();
    pager_close(pager);
    test_cleanup_dir(dir);
    free(path);
    free(dir);
}

/* (d) A lock file deleted or replaced while a handle has the database open
 * (item 4). A second set of handles, on a new lock file, would write beside
 * the first and lose its acknowledged commits ("invalid node header"):
 * opening through a new lock file is refused while any handle that uses the
 * old one is open, in this or another process, with CE_ERR_ALREADY_OPEN
 * naming the lock file. The first handle keeps working; once it closes, the
 * file opens again with every commit. */
typedef enum lock_file_fate { LOCK_FILE_DELETED, LOCK_FILE_REPLACED, LOCK_FILE_EMPTY_REPLACEMENT } lock_file_fate;

static void apply_fate(const char *path, lock_file_fate fate)
{
    char *lock_path = lock_path_of(path);
    if (fate == LOCK_FILE_DELETED) {
        CHECK(unlink(lock_path) == 0);
    } else {
        /* A copy of the lock file (every field intact), or an empty file,
         * renamed over it: no handle holds a lock on the new one. */
        char *other = malloc(strlen(lock_path) + 8);
        sprintf(other, "%s.other", lock_path);
        int to = open(other, O_RDWR | O_CREAT | O_TRUNC, 0644);
        CHECK(to >= 0);
        if (fate == LOCK_FILE_REPLACED) {
            int from = open(lock_path, O_RDONLY);
            CHECK(from >= 0);
            uint8_t buffer[65536];
            ssize_t got;
            while ((got = read(from, buffer, sizeof buffer)) > 0) CHECK(write(to, buffer, (size_t)got) == got);
            close(from);
        }
        close(to);
        CHECK(rename(other, lock_path) == 0);
        free(other);
    }
    free(lock_path);
}

/* In a child process: an open of `path` must be refused as described; if it
 * is not (the defect), the child writes a value and commits, as a second
 * writer would. Returns whether the child was refused. */
static bool second_process_refused(const char *path)
{
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db_options options;
        ce_db_options_init(&options);
        test_set_key(&options);
        ce_db *db;
        if (!ce_db_open(path, &options, &db)) {
            bool clear = ce_last_error_code() == CE_ERR_ALREADY_OPEN &&
                         strstr(ce_last_error_message(), ".lock' was deleted or replaced") != NULL;
            if (!clear) fprintf(stderr, "unexpected error: %s\n", ce_last_error_message());
            _exit(clear ? 0 : 2);
        }
        ce_txn *txn;
        if (ce_txn_begin_write(db, &txn)) {
            test_list_append(txn, -1);
            ce_txn_commit(txn);
        }
        ce_db_close(db);
        _exit(1);
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
    CHECK(WEXITSTATUS(status) != 2);
    return WEXITSTATUS(status) == 0;
}

static void check_lock_file_fate(lock_file_fate fate)
{
    test_db t = test_db_open("lockfile-fate");
    start_deadline();
    commit_values(t.db);
    size_t count = COMMITS * PER_COMMIT;
    apply_fate(t.path, fate);
    /* While the first handle holds a write transaction... */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    test_list_append(txn, (int64_t)count);
    CHECK(second_process_refused(t.path));
    CHECK(ce_txn_commit(txn));
    count++;
    /* ... after it committed, and with no transaction open. */
    CHECK(second_process_refused(t.path));
    /* A second handle in this process, and ce_db_delete_files, are
     * refused too. */
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    ce_db *second;
    CHECK(!ce_db_open(t.path, &options, &second));
    CHECK(ce_last_error_code() == CE_ERR_ALREADY_OPEN);
    bool deleted = true;
    CHECK(!ce_db_delete_files(t.path, &deleted) && !deleted);
    CHECK(ce_last_error_code() == CE_ERR_ALREADY_OPEN);
    /* The first handle still writes, and every commit is there. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    test_list_append(txn, (int64_t)count);
    CHECK(ce_txn_commit(txn));
    count++;
    expect_values(t.db, count);
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    expect_reopens(t.path, count);
    stop_deadline();
    test_db_close(&t);
}

TEST(deleted_lock_file_refuses_a_second_set_of_handles) { check_lock_file_fate(LOCK_FILE_DELETED); }
TEST(replaced_lock_file_refuses_a_second_set_of_handles) { check_lock_file_fate(LOCK_FILE_REPLACED); }
TEST(emptied_replacement_lock_file_refuses_a_second_set_of_handles) { check_lock_file_fate(LOCK_FILE_EMPTY_REPLACEMENT); }

/* Compaction replaces the data file: the new one must carry the handle
 * byte before it takes the path, or a new lock file would be let in. */
TEST(deleted_lock_file_after_compaction_refuses_a_second_set_of_handles)
{
    test_db t = test_db_open("lockfile-compact");
    start_deadline();
    commit_values(t.db);
    CHECK(ce_db_compact(t.db, NULL));
    apply_fate(t.path, LOCK_FILE_DELETED);
    CHECK(second_process_refused(t.path));
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    expect_reopens(t.path, COMMITS * PER_COMMIT);
    stop_deadline();
    test_db_close(&t);
}

/* A lock file path that holds something other than a regular file: the
 * engine writes the lock file through a shared mapping and rebuilds it on
 * the first open, so following a symbolic link would overwrite the file it
 * names (here a database's own data file), and a FIFO or a device failed
 * with an errno ("Illegal seek") that did not say what was wrong. Each is
 * refused with CE_ERR_INCOMPATIBLE_LOCK_FILE naming the lock file, the
 * thing at the path is left as it was (not written, not removed), and once
 * it is gone the file opens with every value. */
static void expect_lock_path_refused(const char *path, const char *lock_path, const char *says)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    ce_db *db = NULL;
    CHECK(!ce_db_open(path, &options, &db) && db == NULL);
    CHECK(ce_last_error_code() == CE_ERR_INCOMPATIBLE_LOCK_FILE);
    CHECK(strstr(ce_last_error_message(), lock_path) != NULL);
    CHECK(strstr(ce_last_error_message(), says) != NULL);
    struct stat status;
    CHECK(lstat(lock_path, &status) == 0); /* still there */
}

TEST(lock_file_that_is_not_a_regular_file_is_refused)
{
    test_db t = test_db_open("lockfile-kind");
    start_deadline();
    commit_values(t.db);
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    char *lock_path = lock_path_of(t.path);
    char *other = test_path(t.dir, "other.realm");
    ce_db *other_db = test_open(other);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(other_db, &txn));
    test_list_append(txn, 42);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_close(other_db));
    struct stat before, after;
    CHECK(stat(other, &before) == 0);
    uint8_t *other_bytes = malloc((size_t)before.st_size), *other_now = malloc((size_t)before.st_size);
    int fd = open(other, O_RDONLY);
    CHECK(fd >= 0 && read(fd, other_bytes, (size_t)before.st_size) == before.st_size);
    close(fd);

    /* A symbolic link to another database's data file. */
    CHECK(unlink(lock_path) == 0 && symlink(other, lock_path) == 0);
    expect_lock_path_refused(t.path, lock_path, "symbolic link");
    CHECK(stat(other, &after) == 0 && after.st_size == before.st_size);
    fd = open(other, O_RDONLY);
    CHECK(fd >= 0 && read(fd, other_now, (size_t)after.st_size) == after.st_size);
    close(fd);
    CHECK(memcmp(other_bytes, other_now, (size_t)before.st_size) == 0);
    /* A link to a device, a dangling link, a FIFO. */
    CHECK(unlink(lock_path) == 0 && symlink("/dev/null", lock_path) == 0);
    expect_lock_path_refused(t.path, lock_path, "symbolic link");
    CHECK(unlink(lock_path) == 0 && symlink("/nonexistent-dir/x.lock", lock_path) == 0);
    expect_lock_path_refused(t.path, lock_path, "symbolic link");
    CHECK(unlink(lock_path) == 0 && mkfifo(lock_path, 0644) == 0);
    expect_lock_path_refused(t.path, lock_path, "not a regular file");
    CHECK(unlink(lock_path) == 0);
    /* Then the file opens with every value and the other is intact. */
    expect_reopens(t.path, COMMITS * PER_COMMIT);
    other_db = test_open(other);
    CHECK(ce_txn_begin_read(other_db, &txn));
    CHECK(test_list_size(txn) == 1 && test_list_get(txn, 0) == 42);
    ce_txn_end(txn);
    CHECK(ce_db_close(other_db));
    stop_deadline();
    free(other_bytes);
    free(other_now);
    free(other);
    free(lock_path);
    test_db_close(&t);
}

/* Two handles on one lock file are not affected: the second attaches, and
 * neither is refused. */
TEST(handles_on_one_lock_file_share_the_data_file)
{
    test_db t = test_db_open("lockfile-share");
    start_deadline();
    commit_values(t.db);
    ce_db *second = test_open(t.path);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *db = test_open(t.path);
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        test_list_append(txn, COMMITS * PER_COMMIT);
        CHECK(ce_txn_commit(txn));
        CHECK(ce_db_close(db));
        _exit(0);
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    expect_values(second, COMMITS * PER_COMMIT + 1);
    CHECK(ce_db_close(second));
    stop_deadline();
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Concurrent first opens                                                    */
/* ------------------------------------------------------------------------ */

/* OPENERS threads (or processes) open the same path at once, through a
 * barrier, ROUNDS times, each round on a fresh path (new files) or on a
 * file that exists with no handle open (its lock file set up again). Every
 * open must succeed and see the committed version: none may find a lock
 * file that another opener is still setting up "damaged". Failures are
 * counted, not checked where they happen, so that a failing run reports
 * its rate (and the other openers do not wait at the barrier forever). */
enum { OPENERS = 4, OPEN_ROUNDS = 150 };

typedef struct race_state {
    pthread_barrier_t barrier; /* process-shared: it lives in shared memory */
    char paths[OPEN_ROUNDS][256];
    _Atomic uint32_t opens, failures;
    char first_failure[512];
    _Atomic uint32_t failure_noted;
} race_state;

static void race_note_failure(race_state *state)
{
    atomic_fetch_add(&state->failures, 1);
    uint32_t expected = 0;
    if (atomic_compare_exchange_strong(&state->failure_noted, &expected, 1))
        snprintf(state->first_failure, sizeof state->first_failure, "code %d: %s", (int)ce_last_error_code(),
                 ce_last_error_message());
}

/* One opener's rounds: open at the barrier, check, wait for the others'
 * opens, close. */
static void race_open_rounds(race_state *state)
{
    for (int round = 0; round < OPEN_ROUNDS; round++) {
        pthread_barrier_wait(&state->barrier);
        ce_db_options options;
        ce_db_options_init(&options);
        test_set_key(&options);
        ce_db *db = NULL;
        atomic_fetch_add(&state->opens, 1);
        uint64_t version = 0;
        if (!ce_db_open(state->paths[round], &options, &db)) race_note_failure(state);
        else if (!ce_db_latest_version(db, &version) || version == 0) race_note_failure(state);
        pthread_barrier_wait(&state->barrier);
        if (db && !ce_db_close(db)) race_note_failure(state);
    }
}

static void *race_thread(void *argument)
{
    race_open_rounds(argument);
    return NULL;
}

static race_state *race_start(const char *dir, bool existing, bool processes)
{
    race_state *state = mmap(NULL, sizeof *state, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(state != MAP_FAILED);
    memset(state, 0, sizeof *state);
    pthread_barrierattr_t attributes;
    CHECK(pthread_barrierattr_init(&attributes) == 0);
    if (processes) CHECK(pthread_barrierattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED) == 0);
    CHECK(pthread_barrier_init(&state->barrier, &attributes, OPENERS) == 0);
    pthread_barrierattr_destroy(&attributes);
    for (int round = 0; round < OPEN_ROUNDS; round++) {
        snprintf(state->paths[round], sizeof state->paths[round], "%s/round-%d.realm", dir, round);
        if (existing) {
            /* A file with a commit, closed: the lock file stays, set up by
             * nobody until the next open. */
            ce_db *db = test_open(state->paths[round]);
            commit_values(db);
            CHECK(ce_db_close(db));
        }
    }
    return state;
}

static void race_finish(race_state *state, const char *what)
{
    uint32_t failures = atomic_load(&state->failures), opens = atomic_load(&state->opens);
    if (failures)
        fprintf(stderr, "%s: %u of %u concurrent opens failed; the first: %s\n", what, failures, opens,
                state->first_failure);
    CHECK(opens == OPENERS * OPEN_ROUNDS);
    CHECK(failures == 0);
    pthread_barrier_destroy(&state->barrier);
    munmap(state, sizeof *state);
}

static void check_threads_open_at_once(bool existing)
{
    char *dir = test_make_dir("lockfile-race-threads");
    race_state *state = race_start(dir, existing, false);
    alarm(120);
    pthread_t threads[OPENERS];
    for (int i = 0; i < OPENERS; i++) CHECK(pthread_create(&threads[i], NULL, race_thread, state) == 0);
    for (int i = 0; i < OPENERS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
    stop_deadline();
    race_finish(state, existing ? "threads, existing files" : "threads, new files");
    test_cleanup_dir(dir);
    free(dir);
}

static void check_processes_open_at_once(bool existing)
{
    char *dir = test_make_dir("lockfile-race-processes");
    race_state *state = race_start(dir, existing, true);
    signal(SIGALRM, on_deadline);
    alarm(120);
    pid_t children[OPENERS];
    for (int i = 0; i < OPENERS; i++) {
        children[i] = fork();
        CHECK(children[i] >= 0);
        if (children[i] == 0) {
            race_open_rounds(state);
            _exit(0);
        }
    }
    for (int i = 0; i < OPENERS; i++) {
        int status;
        CHECK(waitpid(children[i], &status, 0) == children[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    stop_deadline();
    race_finish(state, existing ? "processes, existing files" : "processes, new files");
    test_cleanup_dir(dir);
    free(dir);
}

TEST(threads_open_a_new_file_at_once)
{
    signal(SIGALRM, on_deadline);
    check_threads_open_at_once(false);
}
TEST(threads_open_an_existing_file_at_once)
{
    signal(SIGALRM, on_deadline);
    check_threads_open_at_once(true);
}
TEST(processes_open_a_new_file_at_once) { check_processes_open_at_once(false); }
TEST(processes_open_an_existing_file_at_once) { check_processes_open_at_once(true); }
