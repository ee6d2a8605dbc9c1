/*
 * test_crash.c — kill -9 during commits.
 *
 * A child process opens the database and commits numbered transactions in a
 * loop, writing each number to a pipe after ce_txn_commit returns (an
 * acknowledgement). Transaction n appends three elements (n, n*7, n^0x5A5A),
 * and every tenth is large (it also rewrites a run of earlier elements), so
 * that commits of both sizes are cut. The parent kills the child with
 * SIGKILL after a random delay, reopens the file (as its first opener, which
 * runs the torn-commit check), verifies it, and checks that
 *   - the list holds whole transactions 1..m in order (no partial one), and
 *   - m >= the last acknowledged number (nothing acknowledged is lost).
 * The next child goes on from m + 1.
 *
 * The grouped mode does the same with groups: group g is three grouped
 * commits (ce_txn_commit_grouped, transactions 3g-2 .. 3g, the same
 * elements), then ce_db_sync, or, every fifth group, a plain ce_txn_commit
 * as its third commit (which makes the group durable); the child writes g
 * to the pipe once that returned. The parent checks that the list holds
 * whole groups 1..m (a multiple of nine elements: no partial group is ever
 * visible) and m >= the last acknowledged group.
 *
 * The streamed mode is the first in a file without page checksums, its
 * commits written in pieces while they are placed (a kill between pieces).
 *
 * CE_CRASH_KILLS sets the number of kills of each mode (default 200).
 */
#include "test_support.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static uint64_t random_state = 0xC0FFEE;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int64_t element_of(int64_t number, int k)
{
    return k == 0 ? number : k == 1 ? number * 7 : (number ^ 0x5A5A);
}

/* Transaction `number`'s changes: three elements appended, and every
 * tenth also rewrites (with the same values) a stretch of earlier elements,
 * touching many leaves: a larger commit. */
static void change(ce_txn *txn, int64_t number)
{
    for (int k = 0; k < 3; k++) test_list_append(txn, element_of(number, k));
    if (number % 10 == 0) {
        size_t size = test_list_size(txn);
        for (size_t i = (size_t)(number % 7); i + 3 < size; i += 997) test_list_set(txn, i, test_list_get(txn, i));
    }
}

/* The streamed mode's files have no page checksums (placement is then not
 * page aligned: every piece is written as it comes). */
static bool without_page_checksums;

static void run_child(const char *path, int64_t first_number, int ack_fd)
{
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.disable_page_checksums = without_page_checksums;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    for (int64_t number = first_number;; number++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        change(txn, number);
        CHECK(ce_txn_commit(txn));
        if (write(ack_fd, &number, sizeof number) != sizeof number) _exit(3);
    }
}

enum { GROUP_COMMITS = 3 };

static void run_grouped_child(const char *path, int64_t first_group, int ack_fd)
{
    ce_db *db = test_open(path);
    for (int64_t group = first_group;; group++) {
        uint64_t version = 0;
        bool plain_last = group % 5 == 0;
        for (int c = 0; c < GROUP_COMMITS; c++) {
            ce_txn *txn;
            CHECK(ce_txn_begin_write(db, &txn));
            change(txn, (group - 1) * GROUP_COMMITS + c + 1);
            if (plain_last && c == GROUP_COMMITS - 1) CHECK(ce_txn_commit(txn));
            else CHECK(ce_txn_commit_grouped(txn, &version));
        }
        if (!plain_last) CHECK(ce_db_sync(db, version));
        if (write(ack_fd, &group, sizeof group) != sizeof group) _exit(3);
    }
}

/* Checks the file and returns the last whole unit (transaction, or group
 * of `per_unit` transactions) in it. */
static int64_t check_file(const char *path, int64_t acknowledged, int64_t per_unit)
{
    ce_db *db = test_open(path);
    test_verify(db);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    size_t size = test_list_size(txn);
    if (size % (size_t)(3 * per_unit) != 0) {
        fprintf(stderr, "partial %s visible: %zu elements\n", per_unit > 1 ? "group" : "transaction", size);
        exit(1);
    }
    int64_t last = (int64_t)(size / 3);
    /* Spot-check every transaction's three elements near the end, and a sample before. */
    for (int64_t number = 1; number <= last; number += (number + 200 < last ? 97 : 1))
        for (int k = 0; k < 3; k++)
            if (test_list_get(txn, (size_t)(3 * (number - 1) + k)) != element_of(number, k)) {
                fprintf(stderr, "transaction %lld element %d is wrong\n", (long long)number, k);
                exit(1);
            }
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    last /= per_unit;
    if (last < acknowledged) {
        fprintf(stderr, "acknowledged %s %lld is missing (file ends at %lld)\n", per_unit > 1 ? "group" : "transaction",
                (long long)acknowledged, (long long)last);
        exit(1);
    }
    return last;
}

/* `stream_window`: 0, the default; else the children write commits
 * larger than it in pieces while they are placed (db_commit_stream_window),
 * with their nodes in the arena (storage/arena.h) from the first byte. */
static void kill_children(bool grouped, size_t stream_window)
{
    const char *kills_text = getenv("CE_CRASH_KILLS");
    int kills = kills_text ? atoi(kills_text) : 200;
    char *dir = test_make_dir("crash");
    char *path = test_path(dir, "crash.realm");
    random_state ^= (uint64_t)time(NULL);
    int64_t last = 0, total_acknowledged = 0;
    for (int round = 0; round < kills; round++) {
        int pipe_fds[2];
        CHECK(pipe(pipe_fds) == 0);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
            close(pipe_fds[0]);
            if (stream_window) {
                db_commit_stream_window = stream_window;
                without_page_checksums = true;
                space_arena_bytes = 0; /* the nodes in the arena, as a large transaction's */
            }
            if (grouped) run_grouped_child(path, last + 1, pipe_fds[1]);
            else run_child(path, last + 1, pipe_fds[1]);
            _exit(0);
        }
        close(pipe_fds[1]);
        /* Let it run from 0 to 40 ms: some kills land during open, most in commits. */
        struct timespec delay = {0, (long)(next_random() % 40000) * 1000};
        nanosleep(&delay, NULL);
        kill(child, SIGKILL);
        int status;
        CHECK(waitpid(child, &status, 0) == child);
        if (!WIFSIGNALED(status)) {
            fprintf(stderr, "child exited on its own (status %d): it failed\n", status);
            exit(1);
        }
        int64_t acknowledged = last, number;
        while (read(pipe_fds[0], &number, sizeof number) == sizeof number) {
            CHECK(number == acknowledged + 1);
            acknowledged = number;
        }
        close(pipe_fds[0]);
        total_acknowledged += acknowledged - last;
        last = check_file(path, acknowledged, grouped ? GROUP_COMMITS : 1);
    }
    const char *unit = grouped ? "groups" : "transactions";
    printf("crash: %d kills, %lld acknowledged %s, file holds %lld %s, all whole\n", kills,
           (long long)total_acknowledged, unit, (long long)last, unit);
    test_cleanup_dir(dir);
    free(path);
    free(dir);
}

TEST(kill_during_commits) { kill_children(false, 0); }

TEST(kill_during_grouped_commits) { kill_children(true, 0); }

/* Commits written in pieces as small as they come (a node or two), in a
 * file without page checksums (encrypted: whole pages, as the commit has
 * them; killpoints and faults cover larger streamed commits). */
TEST(kill_during_streamed_commits) { kill_children(false, 64); }
