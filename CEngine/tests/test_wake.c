/*
 * test_wake.c — waiting for a change without polling (issue 14):
 * ce_db_wait_for_change and ce_db_wake_waiters over the lock file's change
 * word (a shared futex). A commit in this process or another one wakes a
 * waiter (the latency from the commit's wake to the waiter's return is
 * printed); a timeout, a version already behind, a handle's own wake (which
 * leaves the waiters of other handles asleep), a waiter killed in its wait
 * (which stalls no one), a compaction meanwhile, a refused close, an old
 * lock file layout, and bad arguments. Every case runs under a deadline
 * (alarm): a missed wake fails it instead of hanging. Run plain and
 * encrypted.
 */
#include "test_support.h"
#include "lockfile.h"
#include "os.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

enum { DEADLINE_SECONDS = 60 };

static void on_deadline(int signal_number)
{
    (void)signal_number;
    static const char message[] = "test_wake: deadline passed (a waiter was never woken)\n";
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

static int64_t now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static uint64_t latest_version(ce_db *db)
{
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version));
    return version;
}

static void commit_one(ce_db *db, int64_t value)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, value);
    CHECK(ce_txn_commit(txn));
}

static char *lock_path_of(const char *path)
{
    char *lock_path = malloc(strlen(path) + 6);
    sprintf(lock_path, "%s.lock", path);
    return lock_path;
}

/* ------------------------------------------------------------------------ */
/* An os table that records when a wake is sent (in memory shared with      */
/* forked children) and can refuse waits.                                    */
/* ------------------------------------------------------------------------ */

static os_methods recording_os;
static _Atomic int64_t *last_wake_ns; /* MAP_SHARED: children record here too */
static _Atomic int refused_wait_errno;

static int recording_futex(_Atomic uint32_t *word, int operation, uint32_t value, const struct timespec *timeout)
{
    if (operation == FUTEX_WAKE) atomic_store(last_wake_ns, now_ns());
    if (operation == FUTEX_WAIT && atomic_load(&refused_wait_errno) != 0) {
        errno = atomic_load(&refused_wait_errno);
        return -1;
    }
    return os_default.futex(word, operation, value, timeout);
}

static void install_recording_os(void)
{
    if (!last_wake_ns) {
        void *memory = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        CHECK(memory != MAP_FAILED);
        last_wake_ns = memory;
    }
    atomic_store(last_wake_ns, 0);
    atomic_store(&refused_wait_errno, 0);
    recording_os = os_default;
    recording_os.futex = recording_futex;
    os_active = &recording_os;
}

static void restore_os(void) { os_active = &os_default; }

static int compare_int64(const void *a, const void *b)
{
    int64_t left = *(const int64_t *)a, right = *(const int64_t *)b;
    return (left > right) - (left < right);
}

/* ------------------------------------------------------------------------ */
/* A waiter thread                                                           */
/* ------------------------------------------------------------------------ */

typedef struct waiter {
    ce_db *db;
    uint64_t version;
    int64_t timeout_ms;
    pthread_t thread;
    _Atomic bool started;
    _Atomic bool returned;
    bool ok;
    bool changed;
    int64_t returned_ns;
    ce_error_code error;
} waiter;

static void *run_waiter(void *argument)
{
    waiter *w = argument;
    atomic_store(&w->started, true);
    w->ok = ce_db_wait_for_change(w->db, w->version, w->timeout_ms, &w->changed);
    w->returned_ns = now_ns();
    if (!w->ok) w->error = ce_last_error_code();
    atomic_store(&w->returned, true);
    return NULL;
}

/* Starts a thread that waits on `db` from `version`, and gives it time to
 * fall asleep (a waiter not asleep yet is woken just the same: the word
 * has moved; only the test's timings would say less). */
static void start_waiter(waiter *w, ce_db *db, uint64_t version, int64_t timeout_ms)
{
    memset(w, 0, sizeof *w);
    w->db = db;
    w->version = version;
    w->timeout_ms = timeout_ms;
    CHECK(pthread_create(&w->thread, NULL, run_waiter, w) == 0);
    while (!atomic_load(&w->started)) sched_yield();
    usleep(20000);
}

static void join_waiter(waiter *w) { CHECK(pthread_join(w->thread, NULL) == 0); }

/* ------------------------------------------------------------------------ */
/* Cases                                                                     */
/* ------------------------------------------------------------------------ */

enum { LATENCY_ROUNDS = 200 };

typedef struct latency_loop {
    ce_db *db;
    _Atomic int ready_round; /* the round whose version the waiter read */
    int64_t latencies[LATENCY_ROUNDS];
    bool all_changed;
} latency_loop;

static void *run_latency_waiter(void *argument)
{
    latency_loop *loop = argument;
    loop->all_changed = true;
    for (int round = 0; round < LATENCY_ROUNDS; round++) {
        uint64_t version = latest_version(loop->db);
        atomic_store(&loop->ready_round, round + 1);
        bool changed;
        CHECK(ce_db_wait_for_change(loop->db, version, 10000, &changed));
        int64_t woken = now_ns();
        loop->all_changed = loop->all_changed && changed;
        int64_t latency = woken - atomic_load(last_wake_ns);
        loop->latencies[round] = latency > 0 ? latency : 0;
    }
    return NULL;
}

/* A commit of another thread wakes the waiter; the latency is from the
 * commit's wake (recorded by the os table) to the waiter's return. */
TEST(commit_in_this_process_wakes_a_waiter_thread)
{
    test_db t = test_db_open("wake-thread");
    start_deadline();
    install_recording_os();
    latency_loop loop = {.db = t.db};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, run_latency_waiter, &loop) == 0);
    for (int round = 0; round < LATENCY_ROUNDS; round++) {
        while (atomic_load(&loop.ready_round) != round + 1) sched_yield();
        usleep(300); /* let it fall asleep */
        commit_one(t.db, round);
    }
    CHECK(pthread_join(thread, NULL) == 0);
    restore_os();
    CHECK(loop.all_changed);
    qsort(loop.latencies, LATENCY_ROUNDS, sizeof *loop.latencies, compare_int64);
    int64_t median = loop.latencies[LATENCY_ROUNDS / 2], p99 = loop.latencies[LATENCY_ROUNDS * 99 / 100];
    printf("  same process: wake to return, median %.1f us, p99 %.1f us, max %.1f us (%d commits)\n", median / 1e3,
           p99 / 1e3, loop.latencies[LATENCY_ROUNDS - 1] / 1e3, LATENCY_ROUNDS);
    CHECK(median < 1000000); /* well under 1 ms */
    stop_deadline();
    test_db_close(&t);
}

/* A commit of a forked child wakes this process. */
TEST(commit_in_a_child_process_wakes_the_parent)
{
    test_db t = test_db_open("wake-child");
    start_deadline();
    install_recording_os(); /* inherited by the child: it records its wake */
    enum { ROUNDS = 5 };
    int64_t latencies[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t version = latest_version(t.db);
        /* The child closes only once this process has measured: its
         * teardown competes for the 2 cores otherwise. */
        int measured[2];
        CHECK(pipe(measured) == 0);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
            close(measured[1]);
            usleep(50000); /* the parent is asleep by then */
            ce_db *db = test_open(t.path);
            commit_one(db, round);
            char byte;
            CHECK(read(measured[0], &byte, 1) == 1);
            CHECK(ce_db_close(db));
            _exit(0);
        }
        close(measured[0]);
        bool changed;
        int64_t start = now_ns();
        CHECK(ce_db_wait_for_change(t.db, version, 20000, &changed));
        int64_t woken = now_ns();
        CHECK(changed);
        CHECK(woken - start < 15ll * 1000000000); /* the wake, not the timeout */
        CHECK(latest_version(t.db) == version + 1);
        int64_t latency = woken - atomic_load(last_wake_ns);
        latencies[round] = latency > 0 ? latency : 0;
        char byte = 1;
        CHECK(write(measured[1], &byte, 1) == 1);
        close(measured[1]);
        int status;
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    restore_os();
    qsort(latencies, ROUNDS, sizeof *latencies, compare_int64);
    printf("  other process: wake to return, median %.1f us, max %.1f us (%d commits)\n", latencies[ROUNDS / 2] / 1e3,
           latencies[ROUNDS - 1] / 1e3, ROUNDS);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    CHECK(test_list_size(txn) == ROUNDS);
    ce_txn_end(txn);
    stop_deadline();
    test_db_close(&t);
}

TEST(timeout_returns_unchanged)
{
    test_db t = test_db_open("wake-timeout");
    start_deadline();
    uint64_t version = latest_version(t.db);
    bool changed = true;
    int64_t start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, 150, &changed));
    int64_t elapsed = now_ns() - start;
    CHECK(!changed);
    CHECK(elapsed >= 150ll * 1000000);
    CHECK(elapsed < 2000ll * 1000000);
    /* 0: only look. */
    changed = true;
    start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, 0, &changed));
    CHECK(!changed);
    CHECK(now_ns() - start < 100ll * 1000000);
    stop_deadline();
    test_db_close(&t);
}

TEST(a_version_already_behind_returns_at_once)
{
    test_db t = test_db_open("wake-behind");
    start_deadline();
    uint64_t version = latest_version(t.db);
    commit_one(t.db, 1);
    commit_one(t.db, 2);
    bool changed = false;
    int64_t start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, -1, &changed));
    CHECK(changed);
    CHECK(now_ns() - start < 100ll * 1000000);
    /* The version of a read transaction, a commit later. */
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    commit_one(t.db, 3);
    CHECK(ce_db_wait_for_change(t.db, ce_txn_version(txn), -1, &changed));
    CHECK(changed);
    ce_txn_end(txn);
    stop_deadline();
    test_db_close(&t);
}

/* ce_db_wake_waiters wakes every waiter of its handle, without a change,
 * and not those of another handle of the same file (they wake spuriously
 * at most, and sleep on to their timeout). A close while they wait is
 * refused. */
TEST(wake_waiters_wakes_this_handle_only)
{
    test_db t = test_db_open("wake-handle");
    start_deadline();
    ce_db *other = test_open(t.path);
    uint64_t version = latest_version(t.db);
    waiter mine[2], theirs;
    start_waiter(&theirs, other, version, 600);
    start_waiter(&mine[0], t.db, version, -1);
    start_waiter(&mine[1], t.db, version, -1);
    CHECK(!atomic_load(&mine[0].returned) && !atomic_load(&mine[1].returned) && !atomic_load(&theirs.returned));

    CHECK(!ce_db_close(t.db));
    CHECK(ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    CHECK(strstr(ce_last_error_message(), "ce_db_wait_for_change") != NULL);

    int64_t woken = now_ns();
    CHECK(ce_db_wake_waiters(t.db));
    join_waiter(&mine[0]);
    join_waiter(&mine[1]);
    for (int i = 0; i < 2; i++) {
        CHECK(mine[i].ok && !mine[i].changed);
        CHECK(mine[i].returned_ns - woken < 1000ll * 1000000);
    }
    join_waiter(&theirs);
    CHECK(theirs.ok && !theirs.changed);
    CHECK(theirs.returned_ns - woken >= 300ll * 1000000); /* its timeout, not the wake */
    CHECK(ce_db_close(other));
    stop_deadline();
    test_db_close(&t);
}

/* A wake while no call waits is kept for the next call (a notifier thread
 * between checking its stop flag and waiting cannot miss it); one only. */
TEST(wake_without_a_waiter_is_kept_for_the_next_call)
{
    test_db t = test_db_open("wake-pending");
    start_deadline();
    uint64_t version = latest_version(t.db);
    CHECK(ce_db_wake_waiters(t.db));
    CHECK(ce_db_wake_waiters(t.db)); /* still one */
    bool changed = true;
    int64_t start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, -1, &changed));
    CHECK(!changed);
    CHECK(now_ns() - start < 100ll * 1000000);
    start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, 100, &changed));
    CHECK(!changed);
    CHECK(now_ns() - start >= 100ll * 1000000);
    /* Another handle's pending wake is its own. */
    ce_db *other = test_open(t.path);
    CHECK(ce_db_wake_waiters(other));
    start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, 100, &changed));
    CHECK(now_ns() - start >= 100ll * 1000000);
    CHECK(ce_db_wait_for_change(other, version, -1, &changed));
    CHECK(!changed);
    CHECK(ce_db_close(other));
    stop_deadline();
    test_db_close(&t);
}

/* A read-only handle (another process's reader, say) waits and is woken
 * as well: it writes nothing but the change word. */
TEST(a_read_only_handle_waits_too)
{
    test_db t = test_db_open("wake-read-only");
    start_deadline();
    commit_one(t.db, 1);
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.read_only = true;
    ce_db *reader;
    CHECK(ce_db_open(t.path, &options, &reader));
    uint64_t version = latest_version(reader);
    waiter w;
    start_waiter(&w, reader, version, 30000);
    int64_t committed = now_ns();
    commit_one(t.db, 2);
    join_waiter(&w);
    CHECK(w.ok && w.changed);
    CHECK(w.returned_ns - committed < 5000ll * 1000000);
    start_waiter(&w, reader, version + 1, -1);
    CHECK(ce_db_wake_waiters(reader));
    join_waiter(&w);
    CHECK(w.ok && !w.changed);
    CHECK(ce_db_close(reader));
    stop_deadline();
    test_db_close(&t);
}

/* A child waiting is killed (SIGKILL) in its wait; a commit then still
 * wakes the other waiters: another child and a thread of this process. */
TEST(a_killed_waiter_does_not_stall_the_others)
{
    test_db t = test_db_open("wake-killed");
    start_deadline();
    uint64_t version = latest_version(t.db);
    pid_t children[2];
    int ready[2][2];
    for (int i = 0; i < 2; i++) {
        CHECK(pipe(ready[i]) == 0);
        children[i] = fork();
        CHECK(children[i] >= 0);
        if (children[i] == 0) {
            ce_db *db = test_open(t.path);
            char byte = 1;
            CHECK(write(ready[i][1], &byte, 1) == 1);
            bool changed;
            bool ok = ce_db_wait_for_change(db, version, 30000, &changed);
            _exit(ok && changed && ce_db_close(db) ? 0 : 2);
        }
        char byte;
        CHECK(read(ready[i][0], &byte, 1) == 1);
        close(ready[i][0]);
        close(ready[i][1]);
    }
    usleep(100000); /* both asleep in the futex */
    CHECK(kill(children[0], SIGKILL) == 0);
    int status;
    CHECK(waitpid(children[0], &status, 0) == children[0]);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    waiter thread;
    start_waiter(&thread, t.db, version, 30000);
    int64_t committed = now_ns();
    commit_one(t.db, 1);
    join_waiter(&thread);
    CHECK(thread.ok && thread.changed);
    CHECK(thread.returned_ns - committed < 5000ll * 1000000);
    CHECK(waitpid(children[1], &status, 0) == children[1]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(now_ns() - committed < 10000ll * 1000000);
    /* The killed child's handle left nothing that stops a writer. */
    commit_one(t.db, 2);
    stop_deadline();
    test_db_close(&t);
}

/* A compaction of the handle while one of its threads waits: the waiter
 * waits it out and is woken by the next commit. */
TEST(a_waiter_across_a_compaction)
{
    test_db t = test_db_open("wake-compact");
    start_deadline();
    for (int i = 0; i < 20; i++) commit_one(t.db, i);
    uint64_t version = latest_version(t.db);
    waiter w;
    start_waiter(&w, t.db, version, 30000);
    CHECK(ce_db_compact(t.db, NULL));
    usleep(20000);
    CHECK(!atomic_load(&w.returned));
    int64_t committed = now_ns();
    commit_one(t.db, 99);
    join_waiter(&w);
    CHECK(w.ok && w.changed);
    CHECK(w.returned_ns - committed < 5000ll * 1000000); /* the wake, not the timeout */
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    CHECK(test_list_size(txn) == 21);
    ce_txn_end(txn);
    test_verify(t.db);
    stop_deadline();
    test_db_close(&t);
}

TEST(bad_arguments_give_errors)
{
    test_db t = test_db_open("wake-arguments");
    start_deadline();
    uint64_t version = latest_version(t.db);
    bool changed = true;
    CHECK(!ce_db_wait_for_change(NULL, version, 0, &changed));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_db_wait_for_change(t.db, version, 0, NULL));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "out_changed") != NULL);
    CHECK(!ce_db_wait_for_change(t.db, version, -2, &changed));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "-2") != NULL);
    CHECK(!changed);
    CHECK(!ce_db_wait_for_change(t.db, version + 1, -1, &changed));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "past the latest") != NULL);
    CHECK(!ce_db_wake_waiters(NULL));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    /* A refused call does not take a kept wake. */
    CHECK(ce_db_wake_waiters(t.db));
    CHECK(!ce_db_wait_for_change(t.db, version + 5, 0, &changed));
    int64_t start = now_ns();
    CHECK(ce_db_wait_for_change(t.db, version, -1, &changed));
    CHECK(!changed);
    CHECK(now_ns() - start < 100ll * 1000000);
    /* A huge timeout is no limit (no overflow into the past). */
    waiter w;
    start_waiter(&w, t.db, version, INT64_MAX);
    CHECK(!atomic_load(&w.returned));
    commit_one(t.db, 1);
    join_waiter(&w);
    CHECK(w.ok && w.changed);
    /* The handle is usable, and closes: no failed call left a waiter. */
    commit_one(t.db, 2);
    stop_deadline();
    test_db_close(&t);
}

/* The system refusing the wait is an error naming the lock file, not a
 * busy loop; the handle still closes. */
TEST(a_refused_wait_is_an_error)
{
    test_db t = test_db_open("wake-refused");
    start_deadline();
    install_recording_os();
    atomic_store(&refused_wait_errno, EINVAL);
    bool changed = true;
    CHECK(!ce_db_wait_for_change(t.db, latest_version(t.db), 1000, &changed));
    restore_os();
    CHECK(!changed);
    CHECK(ce_last_error_code() == CE_ERR_FILE_ACCESS);
    CHECK(strstr(ce_last_error_message(), ".lock") != NULL);
    stop_deadline();
    test_db_close(&t);
}

static void put_layout_version(const char *path, uint32_t value)
{
    char *lock_path = lock_path_of(path);
    int fd = open(lock_path, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, &value, sizeof value, offsetof(shared_state, layout_version)) == (ssize_t)sizeof value);
    close(fd);
    free(lock_path);
}

static uint32_t get_layout_version(const char *path)
{
    char *lock_path = lock_path_of(path);
    int fd = open(lock_path, O_RDONLY);
    CHECK(fd >= 0);
    uint32_t value;
    CHECK(pread(fd, &value, sizeof value, offsetof(shared_state, layout_version)) == (ssize_t)sizeof value);
    close(fd);
    free(lock_path);
    return value;
}

/* A lock file of the previous layout (3, without the durable version and
 * the pending group of group commit): left
 * behind with no handle open, the first open rebuilds it; held by an open
 * handle (an older engine), another open is refused and the holder's calls
 * fail naming the lock file, as for any mismatch. */
TEST(a_lock_file_of_the_previous_layout)
{
    test_db t = test_db_open("wake-layout");
    start_deadline();
    commit_one(t.db, 1);
    uint32_t current = get_layout_version(t.path);
    CHECK(current == 4);
    CHECK(ce_db_close(t.db));
    put_layout_version(t.path, 3);
    t.db = test_open(t.path);
    CHECK(get_layout_version(t.path) == 4);
    uint64_t version = latest_version(t.db);
    waiter w;
    start_waiter(&w, t.db, version, 30000);
    commit_one(t.db, 2);
    join_waiter(&w);
    CHECK(w.ok && w.changed);

    put_layout_version(t.path, 3);
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    ce_db *other;
    CHECK(!ce_db_open(t.path, &options, &other));
    CHECK(ce_last_error_code() == CE_ERR_INCOMPATIBLE_LOCK_FILE);
    bool changed;
    CHECK(!ce_db_wait_for_change(t.db, version, 0, &changed));
    CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), ".lock") != NULL);
    put_layout_version(t.path, current);
    CHECK(ce_db_wait_for_change(t.db, version, 0, &changed));
    CHECK(changed);
    stop_deadline();
    test_db_close(&t);
}
