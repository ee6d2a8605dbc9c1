/*
 * test_faults.c — fault injection through the os table.
 *
 * For every system call a commit makes (writes, syncs, file growth), in a
 * small commit (one sync) and a large one (more runs than a slot lists, so
 * data and slot are synced separately):
 *   - the call fails with EIO, with ENOSPC (and every later write too: a
 *     full disk), or writes half and then hits ENOSPC: the commit returns an
 *     error, the handle still reads the previous version, the file verifies,
 *     and after reopening the previous version is there (the failed commit
 *     never appears);
 *   - the process "crashes" at the call (it and every later call fail and
 *     nothing more reaches the file), and then the power fails: of the writes
 *     since the last sync, none, all, a random subset, or the last one torn
 *     in half are undone. After reopening, the file verifies and holds
 *     exactly the old or the new version.
 * And grouped commits (ce_txn_commit_grouped): two groups of three
 * commits, each group followed by ce_db_sync, with a crash at every call
 * and each kind of power loss after it: the file holds the version before
 * the groups, after the first or after the second, never one in the middle
 * of a group, and never one older than a group whose sync returned.
 */
#include "test_support.h"
#include "group.h"
#include "os.h"

#include <errno.h>
#include <sys/stat.h>

typedef enum fault_mode { FAULT_NONE, FAULT_EIO, FAULT_ENOSPC, FAULT_SHORT, FAULT_CRASH } fault_mode;

/* A write since the last sync, and what the file held there before it. */
typedef struct undo_entry {
    int fd;
    uint64_t offset;
    size_t length;
    uint8_t *old_bytes;
    uint64_t old_file_size;
} undo_entry;

static struct {
    bool counting;
    int calls;        /* calls counted since counting began */
    int fail_at;      /* the call (1-based) that fails */
    fault_mode mode;
    bool crashed;     /* after a crash every counted call fails */
    bool disk_full;   /* after ENOSPC/short: every later write fails */
    bool failed_sync; /* the injected failure hit a sync */
    int syncs;
    undo_entry *undo;
    size_t undo_count, undo_capacity;
} injector;

static bool should_fail(void)
{
    if (!injector.counting) return false;
    if (injector.crashed) return true;
    injector.calls++;
    if (injector.calls != injector.fail_at) return false;
    if (injector.mode == FAULT_CRASH) injector.crashed = true;
    return injector.mode != FAULT_NONE;
}

static void remember_old_bytes(int fd, uint64_t offset, size_t length)
{
    if (injector.undo_count == injector.undo_capacity) {
        injector.undo_capacity = injector.undo_capacity ? injector.undo_capacity * 2 : 64;
        injector.undo = realloc(injector.undo, injector.undo_capacity * sizeof *injector.undo);
    }
    struct stat status;
    fstat(fd, &status);
    undo_entry *entry = &injector.undo[injector.undo_count++];
    entry->fd = fd;
    entry->offset = offset;
    entry->length = length;
    entry->old_bytes = calloc(1, length ? length : 1);
    entry->old_file_size = (uint64_t)status.st_size;
    ssize_t got = pread(fd, entry->old_bytes, length, (off_t)offset);
    (void)got; /* bytes past the end read as zeros */
}

static void forget_undo(void)
{
    for (size_t i = 0; i < injector.undo_count; i++) free(injector.undo[i].old_bytes);
    injector.undo_count = 0;
}

static ssize_t faulty_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    if (injector.disk_full) {
        errno = ENOSPC;
        return -1;
    }
    if (should_fail()) {
        switch (injector.mode) {
        case FAULT_EIO: errno = EIO; return -1;
        case FAULT_ENOSPC: injector.disk_full = true; errno = ENOSPC; return -1;
        case FAULT_SHORT: {
            size_t half = length / 2;
            remember_old_bytes(fd, (uint64_t)offset, half);
            ssize_t done = pwrite(fd, buffer, half, offset);
            injector.disk_full = true;
            if (half == 0) { errno = ENOSPC; return -1; }
            return done;
        }
        default: errno = EIO; return -1; /* crashed: nothing more is written */
        }
    }
    if (injector.counting) remember_old_bytes(fd, (uint64_t)offset, length);
    return pwrite(fd, buffer, length, offset);
}

static int faulty_sync(int fd, bool metadata)
{
    if (should_fail()) {
        injector.failed_sync = true;
        errno = injector.mode == FAULT_ENOSPC ? ENOSPC : EIO;
        return -1;
    }
    injector.syncs++;
    forget_undo(); /* everything written so far is durable */
    return metadata ? fsync(fd) : fdatasync(fd);
}
static int faulty_fdatasync(int fd) { return faulty_sync(fd, false); }
static int faulty_fsync(int fd) { return faulty_sync(fd, true); }

static int faulty_fallocate(int fd, off_t offset, off_t length)
{
    if (injector.disk_full || should_fail()) {
        /* A full disk stays full: the engine's retry for just the bytes it
         * needs (without slack) fails too. */
        if (injector.disk_full || injector.mode == FAULT_ENOSPC || injector.mode == FAULT_SHORT) {
            injector.disk_full = true;
            errno = ENOSPC;
        } else {
            errno = EIO;
        }
        return -1;
    }
    return os_default.fallocate(fd, offset, length);
}

static int faulty_ftruncate(int fd, off_t length)
{
    if (injector.disk_full || should_fail()) {
        errno = injector.disk_full ? ENOSPC : EIO;
        return -1;
    }
    return ftruncate(fd, length);
}

static os_methods faulty_os;

static void arm(fault_mode mode, int fail_at)
{
    forget_undo();
    injector.counting = true;
    injector.calls = 0;
    injector.fail_at = fail_at;
    injector.mode = mode;
    injector.crashed = false;
    injector.disk_full = false;
    injector.failed_sync = false;
    injector.syncs = 0;
}

static void disarm(void)
{
    injector.counting = false;
    injector.crashed = false;
    injector.disk_full = false;
}

/* Power failure: undo writes since the last sync, newest first. */
typedef enum power_loss { KEEP_ALL, UNDO_ALL, UNDO_SOME, TEAR_LAST } power_loss;

#define RANDOM_SEED 0xFA017
static uint64_t random_state = RANDOM_SEED;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 31);
}

static void lose_power(const char *path, power_loss how)
{
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    for (size_t i = injector.undo_count; i-- > 0;) {
        undo_entry *entry = &injector.undo[i];
        bool undo = how == UNDO_ALL || (how == UNDO_SOME && next_random() % 2) ||
                    (how == TEAR_LAST && i + 1 == injector.undo_count);
        if (!undo) continue;
        size_t length = entry->length;
        uint64_t offset = entry->offset;
        if (how == TEAR_LAST) { /* the second half of the write never arrived */
            offset += length / 2;
            length -= length / 2;
        }
        CHECK(pwrite(fd, entry->old_bytes + (offset - entry->offset), length, (off_t)offset) == (ssize_t)length);
    }
    close(fd);
    forget_undo();
}

static void copy_file(const char *from, const char *to)
{
    char command[8192];
    snprintf(command, sizeof command, "cp '%s' '%s' && rm -f '%s.lock'", from, to, to);
    CHECK(system(command) == 0);
}

/* The list's contents as one number, to compare versions. */
static bool hash_leaf(void *context, const node_view *leaf, size_t first_index, bool *stop)
{
    (void)first_index, (void)stop;
    uint64_t *hash = context;
    for (size_t i = 0; i < leaf->count; i++) *hash = (*hash ^ (uint64_t)node_get(leaf, i)) * 1099511628211ull;
    return true;
}

static uint64_t fingerprint(ce_txn *txn)
{
    uint64_t hash = 1469598103934665603ull;
    CHECK(bptree_for_each_leaf(db_txn_space(txn), db_txn_root(txn), hash_leaf, &hash));
    return hash ^ test_list_size(txn);
}

typedef struct scenario {
    const char *name;
    void (*change)(ce_txn *txn); /* the commit under test */
    size_t slot_run_limit;       /* below the commit's runs: data and slot synced apart */
    size_t stream_window;        /* 0: the default; small: the commit is written in pieces as it is placed */
} scenario;

static void small_change(ce_txn *txn)
{
    test_list_set(txn, 5, -5);
    test_list_append(txn, 77);
}

static void large_change(ce_txn *txn)
{
    /* Rewrite one element in every other leaf: the new leaves land in the
     * holes the base file left, as many separate runs. */
    size_t size = test_list_size(txn);
    for (size_t i = 1000; i < size; i += 2000) test_list_set(txn, i, -(int64_t)i - 1);
    for (int i = 0; i < 3000; i++) test_list_append(txn, i);
}

/* A base file whose free space is fragmented, so that the large change is
 * placed in many separate runs. */
static void make_base(const char *path)
{
    ce_db *db = test_open(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 600000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    /* Rewrite the odd leaves twice (their copies end up back in place), then
     * the even ones: the even leaves' old places are left as holes between
     * live leaves. */
    size_t starts[3] = {1000, 1000, 0};
    for (int round = 0; round < 3; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (size_t i = starts[round]; i < 600000; i += 2000) test_list_set(txn, i, (int64_t)i + round);
        CHECK(ce_txn_commit(txn));
    }
    test_verify(db);
    CHECK(ce_db_close(db));
}

/* Runs the change once without faults: its call count, syncs and result. */
static int measure(const char *base, const char *work, const scenario *s, uint64_t *old_print, uint64_t *new_print,
                   int *syncs)
{
    copy_file(base, work);
    ce_db *db = test_open(work);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    *old_print = fingerprint(txn);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(db, &txn));
    s->change(txn);
    arm(FAULT_NONE, 0);
    CHECK(ce_txn_commit(txn));
    int calls = injector.calls;
    *syncs = injector.syncs;
    disarm();
    CHECK(ce_txn_begin_read(db, &txn));
    *new_print = fingerprint(txn);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    return calls;
}

static uint64_t reopen_and_fingerprint(const char *work)
{
    ce_db *db = test_open(work);
    test_verify(db);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    uint64_t print = fingerprint(txn);
    ce_txn_end(txn);
    /* The file stays writable after recovery. */
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_set(txn, 0, 12345);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));
    return print;
}

static void run_scenario(const char *base, const char *work, const scenario *s, int expected_syncs)
{
    size_t saved_limit = group_slot_run_limit, saved_window = db_commit_stream_window;
    uint64_t saved_arena = space_arena_bytes;
    group_slot_run_limit = s->slot_run_limit;
    /* Streamed: the transaction's nodes in the arena (storage/arena.h)
     * from its first byte, as a large transaction's are. */
    if (s->stream_window) {
        db_commit_stream_window = s->stream_window;
        space_arena_bytes = 0;
    }
    uint64_t old_print, new_print;
    int syncs;
    int calls = measure(base, work, s, &old_print, &new_print, &syncs);
    CHECK(old_print != new_print);
    if (syncs != expected_syncs) {
        fprintf(stderr, "%s commit made %d syncs, expected %d\n", s->name, syncs, expected_syncs);
        exit(1);
    }
    int cases = 0;
    for (int call = 1; call <= calls; call++) {
        /* Errors the commit must report, leaving the old version. */
        fault_mode errors[] = {FAULT_EIO, FAULT_ENOSPC, FAULT_SHORT};
        for (int e = 0; e < 3; e++) {
            copy_file(base, work);
            ce_db *db = test_open(work);
            ce_txn *txn;
            CHECK(ce_txn_begin_write(db, &txn));
            s->change(txn);
            arm(errors[e], call);
            bool committed = ce_txn_commit(txn);
            ce_error_code code = ce_last_error_code();
            bool injected = injector.calls >= call;
            disarm();
            if (!committed) ce_txn_end(txn); /* a failed commit leaves it to be ended */
            if (injected) {
                /* The sync record after a commit is advisory: a failure to
                 * write it does not fail the commit. Every other call does. */
                if (committed) {
                    CHECK(call == calls);
                } else {
                    CHECK(code == (errors[e] == FAULT_EIO ? CE_ERR_FILE_ACCESS : CE_ERR_OUT_OF_DISK_SPACE) ||
                          code == CE_ERR_FILE_ACCESS);
                }
            }
            CHECK(ce_txn_begin_read(db, &txn));
            uint64_t seen = fingerprint(txn);
            ce_txn_end(txn);
            CHECK(seen == (committed ? new_print : old_print));
            test_verify(db);
            CHECK(ce_db_close(db));
            uint64_t after = reopen_and_fingerprint(work);
            /* After a failed sync nobody knows what reached the disk: the
             * engine erases the slot it wrote, but if that fails too (a full
             * disk) the commit may still be whole on disk and reappear at the
             * next open, as a SQLite WAL commit would. A failed write, though,
             * must never leave the commit behind. */
            bool either = injector.failed_sync && !committed && (after == old_print || after == new_print);
            if (after != (committed ? new_print : old_print) && !either) {
                fprintf(stderr, "%s: call %d mode %d: after reopen the file holds another version\n", s->name, call,
                        (int)errors[e]);
                exit(1);
            }
            cases++;
        }
        /* A crash at the call, then each kind of power loss. */
        power_loss losses[] = {KEEP_ALL, UNDO_ALL, UNDO_SOME, TEAR_LAST};
        for (int l = 0; l < 4; l++) {
            copy_file(base, work);
            ce_db *db = test_open(work);
            ce_txn *txn;
            CHECK(ce_txn_begin_write(db, &txn));
            s->change(txn);
            arm(FAULT_CRASH, call);
            if (!ce_txn_commit(txn)) ce_txn_end(txn);
            CHECK(ce_db_close(db)); /* closing writes nothing */
            disarm();
            lose_power(work, losses[l]);
            uint64_t after = reopen_and_fingerprint(work);
            if (after != old_print && after != new_print) {
                fprintf(stderr, "%s: crash at call %d, power loss %d: the file holds neither version\n", s->name,
                        call, l);
                exit(1);
            }
            cases++;
        }
    }
    group_slot_run_limit = saved_limit;
    db_commit_stream_window = saved_window;
    space_arena_bytes = saved_arena;
    printf("faults: %s commit: %d calls, %d sync(s), %d fault cases passed\n", s->name, calls, syncs, cases);
}

/* The fragmented base file, made on first use and kept until the program
 * ends: a case only reads it (every run copies it to the work file), so a
 * case sees the same base alone as after others. */
static char *fixture_dir, *fixture_base;

static void remove_fixture(void)
{
    test_cleanup_dir(fixture_dir);
    free(fixture_base);
    free(fixture_dir);
}

static const char *base_file(void)
{
    if (!fixture_base) {
        fixture_dir = test_make_dir("faults");
        fixture_base = test_path(fixture_dir, "base.realm");
        make_base(fixture_base);
        atexit(remove_fixture);
    }
    return fixture_base;
}

/* One scenario, with the engine's os calls going through the injector. */
static void run_fault_case(const scenario *s, int expected_syncs)
{
    random_state = RANDOM_SEED;
    const char *base = base_file();
    char *work = test_path(fixture_dir, "work.realm");
    faulty_os = os_default;
    faulty_os.pwrite = faulty_pwrite;
    faulty_os.fdatasync = faulty_fdatasync;
    faulty_os.fsync = faulty_fsync;
    faulty_os.fallocate = faulty_fallocate;
    faulty_os.ftruncate = faulty_ftruncate;
    os_active = &faulty_os;
    run_scenario(base, work, s, expected_syncs);
    os_active = &os_default;
    forget_undo();
    free(injector.undo);
    injector.undo = NULL;
    injector.undo_capacity = 0;
    free(work);
}

/* Grouped commits: each of the six commits sets one element and appends
 * one. */
enum { GROUPS = 2, GROUP_COMMITS = 3 };

static void group_change(ce_txn *txn, int step)
{
    test_list_set(txn, 10 + (size_t)step * 4001, -1000 - step);
    test_list_append(txn, 5000 + step);
}

/* Runs the groups; synced[g]: whether group g's ce_db_sync returned true.
 * prints (may be NULL): the fingerprint after each commit. Failures (after
 * a crash) end the transaction and go on, as an application would. */
static void run_groups(ce_db *db, bool synced[GROUPS], uint64_t *prints)
{
    for (int g = 0; g < GROUPS; g++) {
        uint64_t last = 0;
        bool committed = true;
        for (int c = 0; c < GROUP_COMMITS; c++) {
            ce_txn *txn;
            if (!ce_txn_begin_write(db, &txn)) {
                committed = false;
                continue;
            }
            group_change(txn, g * GROUP_COMMITS + c);
            if (!ce_txn_commit_grouped(txn, &last)) {
                ce_txn_end(txn);
                committed = false;
            }
            if (prints) {
                CHECK(ce_txn_begin_read(db, &txn));
                prints[g * GROUP_COMMITS + c + 1] = fingerprint(txn);
                ce_txn_end(txn);
            }
        }
        synced[g] = committed && ce_db_sync(db, last);
    }
}

static void run_group_case(const char *name, size_t slot_run_limit, int expected_syncs)
{
    size_t saved_limit = group_slot_run_limit;
    group_slot_run_limit = slot_run_limit;
    const char *base = base_file();
    char *work = test_path(fixture_dir, "work.realm");
    enum { PRINTS = GROUPS * GROUP_COMMITS + 1 };
    uint64_t prints[PRINTS];
    bool synced[GROUPS];
    copy_file(base, work);
    ce_db *db = test_open(work);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    prints[0] = fingerprint(txn);
    ce_txn_end(txn);
    arm(FAULT_NONE, 0);
    run_groups(db, synced, prints);
    int calls = injector.calls, syncs = injector.syncs;
    disarm();
    CHECK(synced[0] && synced[1]);
    CHECK(ce_db_close(db));
    for (int i = 1; i < PRINTS; i++) CHECK(prints[i] != prints[i - 1]);
    if (syncs != expected_syncs) {
        fprintf(stderr, "%s: the groups made %d syncs, expected %d\n", name, syncs, expected_syncs);
        exit(1);
    }
    int cases = 0;
    power_loss losses[] = {KEEP_ALL, UNDO_ALL, UNDO_SOME, TEAR_LAST};
    for (int call = 1; call <= calls; call++) {
        for (int l = 0; l < 4; l++) {
            copy_file(base, work);
            db = test_open(work);
            arm(FAULT_CRASH, call);
            run_groups(db, synced, NULL);
            /* Closing syncs the pending group: after the crash that fails,
             * and the handle is closed all the same. */
            bool closed = ce_db_close(db);
            disarm();
            lose_power(work, losses[l]);
            uint64_t after = reopen_and_fingerprint(work);
            /* Which commit the file holds: 0 (none), 3 or 6 (whole groups). */
            int held = -1;
            for (int i = 0; i < PRINTS; i++)
                if (after == prints[i]) held = i;
            int oldest_allowed = synced[1] ? 6 : synced[0] ? 3 : 0;
            if (held < oldest_allowed || held % GROUP_COMMITS != 0) {
                fprintf(stderr,
                        "%s: crash at call %d, power loss %d (syncs returned: %d %d, close %d): the file holds %s%d\n",
                        name, call, l, synced[0], synced[1], closed, held < 0 ? "no known version " : "commit ",
                        held);
                exit(1);
            }
            cases++;
        }
    }
    group_slot_run_limit = saved_limit;
    printf("faults: %s: %d calls, %d syncs, %d crash cases passed\n", name, calls, syncs, cases);
    free(work);
}

/* The group cases with the engine's os calls going through the injector. */
static void run_group_fault_case(const char *name, size_t slot_run_limit, int expected_syncs)
{
    random_state = RANDOM_SEED;
    base_file();
    faulty_os = os_default;
    faulty_os.pwrite = faulty_pwrite;
    faulty_os.fdatasync = faulty_fdatasync;
    faulty_os.fsync = faulty_fsync;
    faulty_os.fallocate = faulty_fallocate;
    faulty_os.ftruncate = faulty_ftruncate;
    os_active = &faulty_os;
    run_group_case(name, slot_run_limit, expected_syncs);
    os_active = &os_default;
    forget_undo();
    free(injector.undo);
    injector.undo = NULL;
    injector.undo_capacity = 0;
}

/* One sync per group: the slot lists the runs of the group's commits. */
TEST(grouped_commits)
{
    run_group_fault_case("grouped", group_slot_run_limit, 2);
}

/* More runs than a slot lists: each group's data is synced, then its slot. */
TEST(grouped_commits_two_syncs)
{
    run_group_fault_case("grouped two-sync", 0, 4);
}

/* Small: one sync. Large: one sync, then the sync record (over 1 MiB).
 * Two-sync: the large commit with data and slot synced apart. Streamed:
 * the large commit (many runs) and a large append (one run) written in
 * pieces while they are placed, a failure or crash between any two of
 * them; data and slot synced apart. */
TEST(small_commit)
{
    scenario small = {"small", small_change, group_slot_run_limit, 0};
    run_fault_case(&small, 1);
}

TEST(large_commit)
{
    scenario large = {"large", large_change, group_slot_run_limit, 0};
    run_fault_case(&large, 1);
}

TEST(two_sync_commit)
{
    scenario two_sync = {"two-sync", large_change, 0, 0};
    run_fault_case(&two_sync, 2);
}

TEST(streamed_commit)
{
    scenario streamed = {"streamed", large_change, group_slot_run_limit, 16384};
    run_fault_case(&streamed, 2);
}

static void large_append(ce_txn *txn)
{
    for (int i = 0; i < 20000; i++) test_list_append(txn, (int64_t)i * 0x100000001ll);
}

TEST(streamed_append)
{
    scenario streamed = {"streamed append", large_append, group_slot_run_limit, 16384};
    run_fault_case(&streamed, 2);
}
