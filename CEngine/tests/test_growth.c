/*
 * test_growth.c — sustained small commits do not grow the file without
 * bound (docs/DESIGN.md §3, invariant 2: space freed by version v is
 * reused once no reader pins a version older than v).
 *
 * The user root is a list of LIST_SIZE integers: one leaf node. Every commit
 * sets one element, so it copies the leaf, and writes a new top node and a
 * new free-list node; the old three are freed, tagged with the new version.
 * Every PIN_EVERY commits a read transaction is begun and kept for PIN_LENGTH
 * commits (and checked to still read its snapshot), then ended.
 *
 * The bound. Without a pinned reader the file holds the header, the live
 * version and the nodes freed by the last commit or two: well under a
 * kilobyte beyond the header. While a reader is pinned, nothing freed after
 * its version can be reused, so the file must also hold the nodes freed by
 * up to PIN_LENGTH + 1 commits. Each of those freed: the leaf (8 + 16 x 4
 * bytes: values below 2^31), the top (8 + 4 x 8 bytes at most) and the
 * free-list node (8 + 24 bytes per extent). The free list is longest at the
 * end of a pin: each pinned commit adds at most 3 extents that cannot merge
 * with ranges of other versions (the leaf, the top, the old free list), plus
 * the few extents of the unpinned remainder: fewer than 3 x (PIN_LENGTH + 1)
 * + 16 = 169 extents, 4,064 bytes. So a pin holds at most
 * 51 x (72 + 40 + 4,064) = 212,976 bytes, and first-fit placement into the
 * space released when the reader ends needs no more than one such window
 * again (even doubled for fragmentation: 426 KiB). With the 16 KiB header:
 *
 *   logical_size <= LOGICAL_BOUND = 512 KiB
 *
 * The file grows in preallocation steps of max(file/8, 1 MiB) past the
 * logical size it needs (pager_ensure_size), rounded to 4 KiB, so
 *
 *   file_size <= FILE_BOUND = LOGICAL_BOUND + 1 MiB + 4 KiB.
 *
 * Unbounded growth would exceed this quickly: 100,000 commits that never
 * reused space would need at least 100,000 x 112 bytes = 11 MB.
 *
 * The long run uses CE_DURABILITY_UNSAFE_NO_SYNC for speed: durability only
 * decides whether a commit calls fdatasync; which ranges are freed, how they
 * are tagged and when they are reused is the same code path (the allocator
 * and the reader table never look at the durability). The same bound is then
 * shown with full durability (fdatasync every commit) for FULL_COMMITS
 * commits, on a fresh file and on the file of the long run.
 */
#include "test_support.h"

#include <sys/stat.h>
#include <time.h>

#define LIST_SIZE 16
#define PIN_EVERY 1000
#define PIN_LENGTH 50
#define NO_SYNC_COMMITS 100000
#define FULL_COMMITS 2000
#define VERIFY_EVERY 10000
#define LOGICAL_BOUND (512ull << 10)
#define FILE_BOUND (LOGICAL_BOUND + (1ull << 20) + 4096)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct size_watch {
    uint64_t max_logical, max_file, max_free_extents;
} size_watch;

static ce_db_stats check_sizes(ce_db *db, size_watch *watch, const char *phase, uint64_t commits)
{
    ce_db_stats stats;
    if (!ce_db_verify(db, &stats)) {
        fprintf(stderr, "%s: verify failed after %llu commits: %s\n", phase, (unsigned long long)commits,
                ce_last_error_message());
        exit(1);
    }
    if (stats.logical_size > watch->max_logical) watch->max_logical = stats.logical_size;
    if (stats.file_size > watch->max_file) watch->max_file = stats.file_size;
    if (stats.free_extent_count > watch->max_free_extents) watch->max_free_extents = stats.free_extent_count;
    if (stats.logical_size > LOGICAL_BOUND || stats.file_size > FILE_BOUND) {
        fprintf(stderr,
                "%s: after %llu commits the file outgrew its bound: logical %llu (bound %llu), file %llu (bound %llu), "
                "free %llu bytes in %llu extents\n",
                phase, (unsigned long long)commits, (unsigned long long)stats.logical_size,
                (unsigned long long)LOGICAL_BOUND, (unsigned long long)stats.file_size, (unsigned long long)FILE_BOUND,
                (unsigned long long)stats.free_bytes, (unsigned long long)stats.free_extent_count);
        exit(1);
    }
    return stats;
}

/* The file's size as the file system reports it (between verifies). */
static void watch_file_size(const char *path, size_watch *watch)
{
    struct stat status;
    CHECK(stat(path, &status) == 0);
    if ((uint64_t)status.st_size > watch->max_file) watch->max_file = (uint64_t)status.st_size;
    CHECK((uint64_t)status.st_size <= FILE_BOUND);
}

/* `commits` one-element commits on db, with a reader pinned now and then. */
static void run_commits(ce_db *db, const char *path, uint64_t commits, size_watch *watch, const char *phase,
                        uint64_t verify_every)
{
    ce_txn *pinned = NULL;
    int64_t pinned_values[LIST_SIZE];
    uint64_t pinned_version = 0;
    for (uint64_t i = 1; i <= commits; i++) {
        if (i % PIN_EVERY == 0) {
            CHECK(pinned == NULL);
            CHECK(ce_txn_begin_read(db, &pinned));
            pinned_version = ce_txn_version(pinned);
            for (size_t k = 0; k < LIST_SIZE; k++) pinned_values[k] = test_list_get(pinned, k);
        } else if (pinned && i % PIN_EVERY == PIN_LENGTH) {
            /* The file is at its largest now: measure it, with the reader
             * still pinned (two versions are live: its own and the latest). */
            ce_db_stats stats = check_sizes(db, watch, phase, i - 1);
            CHECK(stats.active_versions == 2);
            /* The snapshot survived PIN_LENGTH commits unchanged. */
            CHECK(ce_txn_version(pinned) == pinned_version);
            for (size_t k = 0; k < LIST_SIZE; k++) CHECK(test_list_get(pinned, k) == pinned_values[k]);
            ce_txn_end(pinned);
            pinned = NULL;
        }
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        size_t index = (size_t)(i % LIST_SIZE);
        /* Values stay below 2^31, as the bound assumes. */
        test_list_set(txn, index, (int64_t)(i % 2000000000));
        CHECK(ce_txn_commit(txn));
        if (i % verify_every == 0) check_sizes(db, watch, phase, i);
        if (i % 100 == 0) watch_file_size(path, watch);
    }
    if (pinned) ce_txn_end(pinned);
    check_sizes(db, watch, phase, commits);
}

static ce_db *open_with(const char *path, ce_durability durability)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.durability = durability;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

static void create_list(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t k = 0; k < LIST_SIZE; k++) test_list_append(txn, 0);
    CHECK(ce_txn_commit(txn));
}

/* Placement can use up a free range exactly, leaving an empty entry at the
 * position where the next range starts; if the transaction frees that next
 * range, the commit must neither fail ("free ranges overlap", which an
 * unstable qsort produced) nor carry the empty entry into the free list. */
TEST(used_up_range_beside_freed_range)
{
    static uint8_t file[CE_HEADER_SIZE + 4096];
    space_free_extent free_list[1] = {{CE_HEADER_SIZE, 64, 1}};
    space_state space;
    memset(&space, 0, sizeof space); /* no ready-page bits yet */
    space_init_read(&space, file, sizeof file);
    CHECK(space_init_write(&space, free_list, 1, 1, 3));
    uint64_t position;
    uint8_t *buffer;
    CHECK(space_plan_placement(&space, 64));
    CHECK(space_place(&space, 64, false, &position, &buffer)); /* uses up the range */
    CHECK(position == CE_HEADER_SIZE);
    memset(buffer, 0, 64);
    CHECK(space_free(&space, CE_HEADER_SIZE + 64, 128)); /* the committed node right after it */
    CHECK(space_commit_prepare(&space));
    size_t count;
    const space_free_extent *extents = space_free_list(&space, &count);
    CHECK(count == 1);
    CHECK(extents[0].position == CE_HEADER_SIZE + 64 && extents[0].size == 128 && extents[0].freed_in_version == 3);
    space_release(&space);
}

static void report(const char *phase, uint64_t commits, double seconds, const size_watch *watch)
{
    printf("%-34s %6llu commits in %6.2f s: max logical %7llu bytes, max file %8llu bytes, max free extents %llu\n",
           phase, (unsigned long long)commits, seconds, (unsigned long long)watch->max_logical,
           (unsigned long long)watch->max_file, (unsigned long long)watch->max_free_extents);
    fflush(stdout);
}

static void print_bounds(void)
{
    printf("bounds: logical <= %llu bytes, file <= %llu bytes\n", (unsigned long long)LOGICAL_BOUND,
           (unsigned long long)FILE_BOUND);
}

/* The long run, then full durability continuing its file. */
TEST(long_run_plateaus)
{
    print_bounds();
    char *dir = test_make_dir("growth");
    char *long_path = test_path(dir, "long.realm");

    /* 1. The long run, without fdatasync (see the top comment for why that
     *    shows the same reuse), in two halves: the second half, 50 more pin
     *    cycles, must fit in the space the first half needed (a plateau, not
     *    a slow creep). */
    size_watch first_half = {0}, long_watch = {0};
    double start = now_seconds();
    ce_db *db = open_with(long_path, CE_DURABILITY_UNSAFE_NO_SYNC);
    create_list(db);
    run_commits(db, long_path, NO_SYNC_COMMITS / 2, &first_half, "no-sync, first half", VERIFY_EVERY);
    long_watch = first_half;
    run_commits(db, long_path, NO_SYNC_COMMITS / 2, &long_watch, "no-sync, second half", VERIFY_EVERY);
    CHECK(ce_db_close(db));
    report("no-sync, long run", NO_SYNC_COMMITS, now_seconds() - start, &long_watch);
    CHECK(long_watch.max_logical == first_half.max_logical);
    CHECK(long_watch.max_file == first_half.max_file);

    /* 2. Full durability continuing the long run's file: the same pattern
     *    of frees and reuse, so it needs no more space than the long run. */
    size_watch continued = {0};
    start = now_seconds();
    db = open_with(long_path, CE_DURABILITY_FULL);
    run_commits(db, long_path, FULL_COMMITS, &continued, "full durability, long run's file", 500);
    CHECK(ce_db_close(db));
    report("full durability, long run's file", FULL_COMMITS, now_seconds() - start, &continued);
    CHECK(continued.max_logical <= long_watch.max_logical);
    CHECK(continued.max_file <= long_watch.max_file);

    test_cleanup_dir(dir);
    free(long_path);
    free(dir);
}

/* Full durability on a fresh file. */
TEST(full_durability_fresh_file)
{
    print_bounds();
    char *dir = test_make_dir("growth");
    char *full_path = test_path(dir, "full.realm");
    size_watch full_watch = {0};
    double start = now_seconds();
    ce_db *db = open_with(full_path, CE_DURABILITY_FULL);
    create_list(db);
    run_commits(db, full_path, FULL_COMMITS, &full_watch, "full durability, fresh file", 500);
    CHECK(ce_db_close(db));
    report("full durability, fresh file", FULL_COMMITS, now_seconds() - start, &full_watch);
    test_cleanup_dir(dir);
    free(full_path);
    free(dir);
}
