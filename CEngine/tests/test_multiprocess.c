/*
 * test_multiprocess.c — writers in several processes and threads, and a
 * reader process, on one file at the same time (docs/DESIGN.md §3,
 * invariants 2 and 3).
 *
 * The user root is a list of counters, followed by appended records:
 *   [0] A      the number of commits so far (every commit increments it)
 *   [1] B      the same number, incremented in the same commit as A
 *   [2 + w]    the commits of worker w (only worker w writes it)
 *   then APPEND_PER_COMMIT records per commit: commit c (A after it) appends
 *   record(c, 0..APPEND_PER_COMMIT-1), 64-bit values. The list grows to
 *   about 150,000 elements: leaves split, inner nodes appear, and the file
 *   grows past its first preallocation while other processes map it.
 *
 * Two writer processes each run three worker threads: threads 0 and 1 share
 * the process's ce_db handle, thread 2 writes through a second handle opened
 * in the same process (handles exclude each other like processes do). Each
 * worker commits COMMITS_PER_WORKER increments with full durability, and
 * inside its write transaction checks that it sees the latest state: its own
 * counter equals the number of commits it made (no lost or duplicated
 * update), A == B == the sum of the worker counters, and the version it
 * builds on is the base version + A (one version per commit). Now and then a
 * worker also rolls a write back, which must change nothing.
 *
 * A reader process (a read-only handle) meanwhile takes snapshots in a loop:
 * each must be a whole version (A == B == sum of worker counters, version ==
 * base + A), versions never go backwards, and a snapshot held while writers
 * commit (and reuse freed space) keeps reading the same values.
 *
 * At the end the parent checks the exact totals, the version, and
 * ce_db_verify, before and after reopening. A child that fails a CHECK exits
 * 1; the parent fails if any child did not exit 0.
 */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define WRITER_PROCESSES 2
#define WORKERS_PER_PROCESS 3 /* threads 0 and 1 share a handle; thread 2 has its own */
#define WORKERS (WRITER_PROCESSES * WORKERS_PER_PROCESS)
#define COMMITS_PER_WORKER 500
#define TOTAL_COMMITS ((int64_t)WORKERS * COMMITS_PER_WORKER)
#define ROLLBACK_EVERY 37
#define COUNTER_A 0
#define COUNTER_B 1
#define FIRST_WORKER_COUNTER 2
#define COUNTER_COUNT (FIRST_WORKER_COUNTER + WORKERS)
#define APPEND_PER_COMMIT 48
#define CHILD_TIME_LIMIT 120 /* seconds: a hung child is killed by SIGALRM */

static const char *db_path;
static uint64_t base_version; /* the version after setup, known to every child (fork copies it) */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The k-th record appended by the commit that made A == commit. */
static int64_t record(int64_t commit, int k) { return (commit << 24) | ((int64_t)k << 8) | 0x5A; }

/* The counters and the last record of the snapshot (0 if none). */
typedef struct snapshot {
    int64_t counters[COUNTER_COUNT];
    size_t size;
    int64_t last_record;
} snapshot;

static void read_snapshot(ce_txn *txn, snapshot *out)
{
    memset(out, 0, sizeof *out);
    out->size = test_list_size(txn);
    CHECK(out->size >= COUNTER_COUNT);
    for (size_t i = 0; i < COUNTER_COUNT; i++) out->counters[i] = test_list_get(txn, i);
    if (out->size > COUNTER_COUNT) out->last_record = test_list_get(txn, out->size - 1);
}

/* The checks every snapshot (read or write) must pass: a whole version. */
static void check_whole_version(ce_txn *txn, const snapshot *seen)
{
    const int64_t *counters = seen->counters;
    int64_t sum = 0;
    for (size_t w = 0; w < WORKERS; w++) {
        CHECK(counters[FIRST_WORKER_COUNTER + w] >= 0 && counters[FIRST_WORKER_COUNTER + w] <= COMMITS_PER_WORKER);
        sum += counters[FIRST_WORKER_COUNTER + w];
    }
    if (!(counters[COUNTER_A] == counters[COUNTER_B] && counters[COUNTER_A] == sum &&
          ce_txn_version(txn) == base_version + (uint64_t)counters[COUNTER_A] &&
          seen->size == COUNTER_COUNT + (size_t)counters[COUNTER_A] * APPEND_PER_COMMIT &&
          seen->last_record == (counters[COUNTER_A] ? record(counters[COUNTER_A], APPEND_PER_COMMIT - 1) : 0))) {
        fprintf(stderr,
                "torn or wrong snapshot at version %llu (base %llu): A=%lld B=%lld sum=%lld size=%zu last=%llx\n",
                (unsigned long long)ce_txn_version(txn), (unsigned long long)base_version,
                (long long)counters[COUNTER_A], (long long)counters[COUNTER_B], (long long)sum, seen->size,
                (unsigned long long)seen->last_record);
        CHECK(!"snapshot is a whole version");
    }
}

/* ------------------------------------------------------------------------ */
/* Writers                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct worker {
    ce_db *db;
    int index; /* 0 .. WORKERS-1 */
} worker;

static void *worker_main(void *argument)
{
    worker *self = argument;
    size_t mine = FIRST_WORKER_COUNTER + (size_t)self->index;
    for (int i = 0; i < COMMITS_PER_WORKER; i++) {
        if (i % ROLLBACK_EVERY == ROLLBACK_EVERY - 1) {
            /* A write that is rolled back: nobody may ever see it. */
            ce_txn *txn;
            CHECK(ce_txn_begin_write(self->db, &txn));
            test_list_set(txn, COUNTER_A, -1000000);
            test_list_set(txn, mine, -1000000);
            for (int k = 0; k < APPEND_PER_COMMIT; k++) test_list_append(txn, -1);
            ce_txn_end(txn);
        }
        ce_txn *txn;
        CHECK(ce_txn_begin_write(self->db, &txn));
        CHECK(ce_txn_is_write(txn));
        snapshot seen;
        read_snapshot(txn, &seen);
        check_whole_version(txn, &seen);
        const int64_t *counters = seen.counters;
        CHECK(counters[mine] == i); /* only this worker writes it: no lost or doubled commit */
        int64_t commit = counters[COUNTER_A] + 1;
        test_list_set(txn, COUNTER_A, commit);
        test_list_set(txn, mine, counters[mine] + 1);
        for (int k = 0; k < APPEND_PER_COMMIT; k++) test_list_append(txn, record(commit, k));
        test_list_set(txn, COUNTER_B, counters[COUNTER_B] + 1);
        CHECK(ce_txn_commit(txn));
    }
    return NULL;
}

static int writer_process(int process_index)
{
    ce_db *shared = test_open(db_path);
    ce_db *second = test_open(db_path); /* a second handle in the same process */
    pthread_t threads[WORKERS_PER_PROCESS];
    worker workers[WORKERS_PER_PROCESS];
    for (int t = 0; t < WORKERS_PER_PROCESS; t++) {
        workers[t] = (worker){t < 2 ? shared : second, process_index * WORKERS_PER_PROCESS + t};
        CHECK(pthread_create(&threads[t], NULL, worker_main, &workers[t]) == 0);
    }
    for (int t = 0; t < WORKERS_PER_PROCESS; t++) CHECK(pthread_join(threads[t], NULL) == 0);
    CHECK(ce_db_close(second));
    CHECK(ce_db_close(shared));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reader                                                                    */
/* ------------------------------------------------------------------------ */

static int reader_process(int ready_fd)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.read_only = true;
    ce_db *db;
    CHECK(ce_db_open(db_path, &options, &db));

    uint64_t snapshots = 0, distinct_versions = 0, held_across_commits = 0, advances = 0;
    uint64_t last_version = 0;
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(!ce_txn_is_write(txn));
    /* The first snapshot is taken before any writer starts. */
    CHECK(ce_txn_version(txn) == base_version);
    CHECK(write(ready_fd, "r", 1) == 1);
    close(ready_fd);

    for (;;) {
        uint64_t version = ce_txn_version(txn);
        CHECK(version >= last_version); /* never backwards */
        if (version != last_version) distinct_versions++;
        last_version = version;
        snapshots++;

        snapshot seen;
        read_snapshot(txn, &seen);
        check_whole_version(txn, &seen);
        const int64_t *counters = seen.counters;

        /* Every fourth snapshot is held for a while: writers commit (and
         * reuse space freed by versions newer than this one) meanwhile, and
         * the snapshot must not change. */
        if (snapshots % 4 == 0) {
            for (int k = 0; k < 4; k++) {
                usleep(500);
                snapshot again;
                read_snapshot(txn, &again);
                CHECK(memcmp(&again, &seen, sizeof again) == 0);
                CHECK(ce_txn_version(txn) == version);
            }
            uint64_t latest;
            CHECK(ce_db_latest_version(db, &latest));
            CHECK(latest >= version);
            if (latest > version) held_across_commits++;
        }
        if (counters[COUNTER_A] == TOTAL_COMMITS) break;

        /* Alternate between advancing the transaction and starting a new one. */
        if (snapshots % 2 == 0) {
            CHECK(ce_txn_advance(txn));
            advances++;
        } else {
            ce_txn_end(txn);
            CHECK(ce_txn_begin_read(db, &txn));
        }
    }
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    printf("reader: %llu snapshots, %llu distinct versions, %llu held across commits, %llu advances\n",
           (unsigned long long)snapshots, (unsigned long long)distinct_versions,
           (unsigned long long)held_across_commits, (unsigned long long)advances);
    CHECK(distinct_versions >= 2); /* it saw the base version and the final one at least */
    fflush(stdout);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Parent                                                                    */
/* ------------------------------------------------------------------------ */

static pid_t spawn(int (*body)(int), int argument, int close_in_child[], size_t close_count)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(CHILD_TIME_LIMIT);
        for (size_t i = 0; i < close_count; i++)
            if (close_in_child[i] >= 0) close(close_in_child[i]);
        /* exit, not _exit: LeakSanitizer checks the child at exit too (the
         * parent flushed its stdio buffers before fork, so none repeat). */
        exit(body(argument));
    }
    return pid;
}

/* Waits for the child; returns true if it exited 0, and reports otherwise. */
static bool wait_child(pid_t pid, const char *name)
{
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    if (WIFEXITED(status))
        fprintf(stderr, "%s (pid %d) exited with status %d\n", name, (int)pid, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        fprintf(stderr, "%s (pid %d) was killed by signal %d\n", name, (int)pid, WTERMSIG(status));
    return false;
}

/* Writer processes start when the parent closes the write end of `go`. */
static int go_read_fd = -1;

static int writer_entry(int process_index)
{
    char byte;
    CHECK(read(go_read_fd, &byte, 1) == 0); /* EOF: go */
    close(go_read_fd);
    return writer_process(process_index);
}

TEST(concurrent_writers_and_reader)
{
    double start = now_seconds();
    char *dir = test_make_dir("multiprocess");
    char *path = test_path(dir, "shared.realm");
    db_path = path;

    /* Setup: the counters, all zero. No handle is open across fork. */
    {
        ce_db *db = test_open(path);
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        for (size_t i = 0; i < COUNTER_COUNT; i++) test_list_append(txn, 0);
        CHECK(ce_txn_commit(txn));
        CHECK(ce_db_latest_version(db, &base_version));
        test_verify(db);
        CHECK(ce_db_close(db));
    }

    int go[2], ready[2];
    CHECK(pipe(go) == 0 && pipe(ready) == 0);
    go_read_fd = go[0];

    /* The reader starts first and reports once it holds its first snapshot. */
    int reader_closes[] = {go[0], go[1], ready[0]};
    pid_t reader = spawn(reader_process, ready[1], reader_closes, 3);
    close(ready[1]);
    char byte;
    ssize_t got = read(ready[0], &byte, 1);
    close(ready[0]);
    if (got != 1) {
        wait_child(reader, "reader");
        CHECK(!"the reader process started");
    }

    pid_t writers[WRITER_PROCESSES];
    int writer_closes[] = {go[1]};
    for (int p = 0; p < WRITER_PROCESSES; p++) writers[p] = spawn(writer_entry, p, writer_closes, 1);
    close(go[0]);
    close(go[1]); /* go */

    bool ok = true;
    for (int p = 0; p < WRITER_PROCESSES; p++) {
        char name[32];
        snprintf(name, sizeof name, "writer process %d", p);
        if (!wait_child(writers[p], name)) ok = false;
    }
    if (!ok) kill(reader, SIGKILL); /* it would wait for a total that never comes */
    if (!wait_child(reader, "reader process")) ok = false;
    CHECK(ok);
    double concurrent = now_seconds() - start;

    /* The totals are exact, in the latest version and after reopening. */
    for (int round = 0; round < 2; round++) {
        ce_db *db = test_open(path);
        ce_txn *txn;
        CHECK(ce_txn_begin_read(db, &txn));
        snapshot seen;
        read_snapshot(txn, &seen);
        check_whole_version(txn, &seen);
        const int64_t *counters = seen.counters;
        CHECK(counters[COUNTER_A] == TOTAL_COMMITS);
        /* Every record of every commit, in commit order. */
        for (int64_t c = 1; c <= TOTAL_COMMITS; c++)
            for (int k = 0; k < APPEND_PER_COMMIT; k++)
                CHECK(test_list_get(txn, COUNTER_COUNT + (size_t)((c - 1) * APPEND_PER_COMMIT + k)) == record(c, k));
        CHECK(counters[COUNTER_B] == TOTAL_COMMITS);
        for (size_t w = 0; w < WORKERS; w++) CHECK(counters[FIRST_WORKER_COUNTER + w] == COMMITS_PER_WORKER);
        CHECK(ce_txn_version(txn) == base_version + (uint64_t)TOTAL_COMMITS);
        ce_txn_end(txn);
        ce_db_stats stats;
        CHECK(ce_db_verify(db, &stats));
        CHECK(stats.version == base_version + (uint64_t)TOTAL_COMMITS);
        /* The data outgrew the first preallocation (1 MiB past the header),
         * so the file grew while other processes had it mapped. */
        CHECK(stats.logical_size > (1u << 20) + CE_HEADER_SIZE);
        if (round == 0)
            printf("%d workers x %d commits in %.2f s; file %llu bytes, logical %llu, used %llu, free %llu in %llu "
                   "extents\n",
                   WORKERS, COMMITS_PER_WORKER, concurrent, (unsigned long long)stats.file_size,
                   (unsigned long long)stats.logical_size, (unsigned long long)stats.used_bytes,
                   (unsigned long long)stats.free_bytes, (unsigned long long)stats.free_extent_count);
        CHECK(ce_db_close(db));
    }

    test_cleanup_dir(dir);
    free(path);
    free(dir);
}
