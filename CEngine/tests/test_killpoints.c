/*
 * test_killpoints.c — a kill at every os call of a long run of grouped and
 * plain commits, syncs, closes and reopens, each followed by a reopen.
 *
 * A SIGKILL stops a process between two system calls and keeps the page
 * cache: the next first opener sees exactly the bytes written so far. So
 * the run goes through an os table whose write, sync and size calls on the
 * data file first copy the file as it is (the state a kill just before
 * that call leaves; for a write of several pages, also the file a kill
 * in the middle of it leaves) and open the copy as a first opener would:
 * it must open, hold whole units (never a partial group) and every unit
 * acknowledged so far, and verify (ce_db_verify: every eighth copy, and
 * every adopted one). Some of those copies are also adopted: at the end
 * of the unit the run goes on from the copy, as the crash test's next
 * child does after a kill, so that later kills land on files that a kill
 * and a recovery already shaped.
 *
 * A unit is one of: three grouped commits and ce_db_sync; two grouped
 * commits and a plain ce_txn_commit; a plain commit; three grouped commits
 * and ce_db_close (which syncs them) with a reopen; a plain commit that
 * rewrites the whole ballast (over 1 MiB: the sync record is written
 * after it). Transaction t appends (t, 7t, t ^ 0x5A5A) to the list, after
 * a ballast of BALLAST elements (8 bytes each); every fifth also rewrites a stretch of
 * earlier elements (with the same values). The unit is acknowledged when
 * its last call returned.
 *
 * Cases: page checksums (the default for a plain file; encrypted with
 * --encrypted), the same with slots that list at most 3 runs (groups
 * that overflow a slot: data synced first), and with commits over 16 KiB
 * written in pieces as they are placed (db_commit_stream_window). `--seed N` changes the run.
 */
#include "test_support.h"
#include "group.h"
#include "pagesum.h"
#include "os.h"

#include <errno.h>
#include <sys/stat.h>

enum { BALLAST = 150000, MAX_UNITS = 4096 };

typedef enum unit_kind { UNIT_SYNC, UNIT_PLAIN_LAST, UNIT_PLAIN, UNIT_CLOSE, UNIT_HUGE, UNIT_KINDS } unit_kind;

static uint64_t seed;

static uint64_t mix(uint64_t value)
{
    uint64_t z = value + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static unit_kind kind_of(int64_t unit)
{
    uint64_t r = mix(seed ^ (uint64_t)unit * 31) % 100;
    if (unit % 40 == 20) return UNIT_HUGE;
    return r < 40 ? UNIT_SYNC : r < 65 ? UNIT_PLAIN_LAST : r < 85 ? UNIT_PLAIN : UNIT_CLOSE;
}

static int64_t transactions_of(unit_kind kind) { return kind == UNIT_PLAIN || kind == UNIT_HUGE ? 1 : 3; }

/* unit_end[u]: the transactions in the file once units 1..u are there. */
static int64_t unit_end[MAX_UNITS + 1];

/* Ballast element i: 8 bytes wide, so that rewriting the ballast writes
 * over 1 MiB. */
static int64_t ballast_of(int64_t i) { return i * 0x100000001ll; }

static int64_t element_of(int64_t number, int k)
{
    return k == 0 ? number : k == 1 ? number * 7 : (number ^ 0x5A5A);
}

static void change(ce_txn *txn, int64_t number, bool huge)
{
    for (int k = 0; k < 3; k++) test_list_append(txn, element_of(number, k));
    size_t size = test_list_size(txn);
    if (huge) {
        for (size_t i = 0; i < BALLAST; i += 64) test_list_set(txn, i, ballast_of((int64_t)i));
    } else if (number % 5 == 0) {
        for (size_t i = (size_t)(number % 11); i + 3 < size; i += 1511) test_list_set(txn, i, test_list_get(txn, i));
    }
}

/* --- the os table: a copy of the data file before each call --- */

static struct {
    const char *work;     /* the data file of the run */
    const char *snapshot; /* where a kill's file is checked */
    const char *adopted;  /* the kill's file the run goes on from */
    dev_t device;
    ino_t inode;
    bool checking;  /* inside a check: calls pass through */
    int64_t acknowledged;
    int calls;      /* calls on the data file in this unit */
    int adopt_at;   /* the call of this unit whose file is adopted (0: none) */
    bool adopt_taken;
    long checks;
} run;

static void copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY);
    CHECK(in >= 0);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(out >= 0);
    static uint8_t buffer[1 << 16];
    for (;;) {
        ssize_t got = read(in, buffer, sizeof buffer);
        CHECK(got >= 0);
        if (got == 0) break;
        CHECK(write(out, buffer, (size_t)got) == got);
    }
    close(in);
    close(out);
    char lock[4096];
    snprintf(lock, sizeof lock, "%s.lock", to);
    unlink(lock);
}

/* Opens a kill's file as its first opener and returns the units it holds;
 * fails the test if it does not open, verify, or hold whole units and every
 * acknowledged one. `durability`: CE_DURABILITY_FULL for a file the run
 * goes on from (the open vouches for what it verified, as after a real
 * kill); a copy that is only checked opens without syncs (the choice of
 * the version is the same). */
static int64_t check_file(const char *path, int64_t acknowledged, const char *when, ce_durability durability,
                          bool verify)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.durability = durability;
    test_set_key(&options);
    ce_db *db;
    if (!ce_db_open(path, &options, &db)) {
        fprintf(stderr, "%s: the file does not open: [%d] %s\n", when, (int)ce_last_error_code(),
                ce_last_error_message());
        exit(1);
    }
    if (verify) test_verify(db);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    size_t size = test_list_size(txn);
    /* Empty: the ballast (unit 0) is not there yet. */
    int64_t transactions = 0, held = -1;
    if (size > 0) {
        CHECK(size >= BALLAST && (size - BALLAST) % 3 == 0);
        transactions = (int64_t)(size - BALLAST) / 3;
        held = -2;
        for (int64_t u = 0; u <= MAX_UNITS && unit_end[u] <= transactions; u++)
            if (unit_end[u] == transactions) held = u;
    }
    if (held < -1) {
        fprintf(stderr, "%s: a partial unit is visible (%lld transactions)\n", when, (long long)transactions);
        exit(1);
    }
    if (held < acknowledged) {
        fprintf(stderr, "%s: acknowledged unit %lld is missing (the file holds %lld)\n", when,
                (long long)acknowledged, (long long)held);
        exit(1);
    }
    for (int64_t number = transactions; number >= 1 && number > transactions - 12; number--)
        for (int k = 0; k < 3; k++)
            CHECK(test_list_get(txn, (size_t)(BALLAST + 3 * (number - 1) + k)) == element_of(number, k));
    if (size > 0) CHECK(test_list_get(txn, BALLAST - 1) == ballast_of(BALLAST - 1));
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    return held;
}

/* Before each call on the data file: the file a kill there leaves. For a
 * write of more than a page, also the file a kill in the middle of it
 * leaves: the kernel copies a write into the page cache a page at a time,
 * and a SIGKILL stops it at a page boundary (the first one past half of
 * it, here). */
static void before_call(int fd, const void *buffer, size_t length, off_t offset)
{
    if (run.checking || !run.work) return;
    struct stat status;
    if (fstat(fd, &status) != 0 || status.st_dev != run.device || status.st_ino != run.inode) return;
    run.checking = true;
    run.calls++;
    copy_file(run.work, run.snapshot);
    char when[128];
    snprintf(when, sizeof when, "kill before call %d of unit %lld", run.calls, (long long)run.acknowledged + 1);
    check_file(run.snapshot, run.acknowledged, when, CE_DURABILITY_UNSAFE_NO_SYNC, run.checks % 8 == 0);
    run.checks++;
    uint64_t end = (uint64_t)offset + length, cut = ((uint64_t)offset + length / 2 + 4095) / 4096 * 4096;
    if (buffer && cut > (uint64_t)offset && cut < end) {
        copy_file(run.work, run.snapshot);
        int out = open(run.snapshot, O_WRONLY);
        CHECK(out >= 0);
        CHECK(pwrite(out, buffer, (size_t)(cut - (uint64_t)offset), offset) == (ssize_t)(cut - (uint64_t)offset));
        close(out);
        snprintf(when, sizeof when, "kill in the middle of call %d of unit %lld", run.calls,
                 (long long)run.acknowledged + 1);
        check_file(run.snapshot, run.acknowledged, when, CE_DURABILITY_UNSAFE_NO_SYNC, run.checks % 8 == 0);
        run.checks++;
    }
    if (run.calls == run.adopt_at) {
        copy_file(run.work, run.adopted);
        run.adopt_taken = true;
    }
    run.checking = false;
}

static ssize_t kill_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    before_call(fd, buffer, length, offset);
    return os_default.pwrite(fd, buffer, length, offset);
}
static int kill_fdatasync(int fd)
{
    before_call(fd, NULL, 0, 0);
    return os_default.fdatasync(fd);
}
static int kill_fsync(int fd)
{
    before_call(fd, NULL, 0, 0);
    return os_default.fsync(fd);
}
static int kill_ftruncate(int fd, off_t length)
{
    before_call(fd, NULL, 0, 0);
    return os_default.ftruncate(fd, length);
}
static int kill_fallocate(int fd, off_t offset, off_t length)
{
    before_call(fd, NULL, 0, 0);
    return os_default.fallocate(fd, offset, length);
}

static os_methods kill_os;

/* --- the run --- */

/* A kill keeps the page cache: what reached the disk does not matter, so
 * unless TMPDIR names a place, the run works in memory (/dev/shm), where
 * the syncs of its commits cost nothing. */
static char *scratch_dir(const char *name)
{
    struct stat status;
    if (getenv("TMPDIR") || stat("/dev/shm", &status) != 0 || !S_ISDIR(status.st_mode) || access("/dev/shm", W_OK) != 0)
        return test_make_dir(name);
    char *path = malloc(4096);
    CHECK(path != NULL);
    snprintf(path, 4096, "/dev/shm/cengine-%s-XXXXXX", name);
    CHECK(mkdtemp(path) != NULL);
    return path;
}

static ce_db *open_work(void)
{
    struct stat status;
    CHECK(stat(run.work, &status) == 0);
    run.device = status.st_dev;
    run.inode = status.st_ino;
    return test_open(run.work);
}

static ce_db *run_unit(ce_db *db, int64_t unit)
{
    unit_kind kind = kind_of(unit);
    int64_t first = unit_end[unit - 1] + 1, count = transactions_of(kind);
    uint64_t version = 0;
    for (int64_t t = 0; t < count; t++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        change(txn, first + t, kind == UNIT_HUGE);
        bool plain = kind == UNIT_PLAIN || kind == UNIT_HUGE || (kind == UNIT_PLAIN_LAST && t == count - 1);
        if (plain) CHECK(ce_txn_commit(txn));
        else CHECK(ce_txn_commit_grouped(txn, &version));
    }
    if (kind == UNIT_SYNC) CHECK(ce_db_sync(db, version));
    if (kind == UNIT_CLOSE) {
        CHECK(ce_db_close(db));
        db = open_work();
    }
    return db;
}

static void run_kills(size_t slot_run_limit, int64_t units)
{
    CHECK(units < MAX_UNITS);
    seed = test_seed ? test_seed : 0x4B494C4C;
    size_t saved_limit = group_slot_run_limit;
    group_slot_run_limit = slot_run_limit;
    unit_end[0] = 0;
    for (int64_t u = 1; u <= MAX_UNITS; u++) unit_end[u] = unit_end[u - 1] + transactions_of(kind_of(u));

    char *dir = scratch_dir("killpoints");
    char *work = test_path(dir, "work.realm"), *snapshot = test_path(dir, "kill.realm");
    char *adopted = test_path(dir, "adopted.realm");
    memset(&run, 0, sizeof run);
    run.snapshot = snapshot;
    run.adopted = adopted;
    run.work = NULL;
    run.acknowledged = -1;
    kill_os = os_default;
    kill_os.pwrite = kill_pwrite;
    kill_os.fdatasync = kill_fdatasync;
    kill_os.fsync = kill_fsync;
    kill_os.ftruncate = kill_ftruncate;
    kill_os.fallocate = kill_fallocate;
    os_active = &kill_os;
    /* From a new file (its first commit happens in the open) and the
     * ballast (unit 0), with kills too. */
    run.work = work;
    int fd = open(work, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd >= 0);
    close(fd);
    ce_db *db = open_work();
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t i = 0; i < BALLAST; i++) test_list_append(txn, ballast_of(i));
    CHECK(ce_txn_commit(txn));
    run.acknowledged = 0;
    int64_t adoptions = 0, kept = 0;
    for (int64_t unit = 1; unit <= units;) {
        run.calls = 0;
        run.adopt_taken = false;
        /* A kill the run goes on from in about one unit of three. */
        uint64_t r = mix(seed ^ (uint64_t)unit * 977 ^ (uint64_t)adoptions);
        run.adopt_at = r % 3 == 0 ? (int)(1 + (r >> 8) % 10) : 0;
        db = run_unit(db, unit);
        run.acknowledged = unit;
        if (!run.adopt_taken) {
            unit++;
            continue;
        }
        /* The kill: the file as it was at that call, reopened; the run goes
         * on after the units it holds. */
        run.checking = true;
        CHECK(ce_db_close(db));
        CHECK(rename(adopted, work) == 0);
        char lock[4096];
        snprintf(lock, sizeof lock, "%s.lock", work);
        unlink(lock);
        int64_t held = check_file(work, unit - 1, "adopted kill", CE_DURABILITY_FULL, true);
        run.checking = false;
        kept += held - (unit - 1);
        run.acknowledged = held;
        adoptions++;
        db = open_work();
        unit = held + 1;
    }
    CHECK(ce_db_close(db));
    os_active = &os_default;
    run.work = NULL;
    printf("killpoints: %lld units, %ld kills checked, %lld adopted (%lld of them kept the unit in progress)\n",
           (long long)units, run.checks, (long long)adoptions, (long long)kept);
    group_slot_run_limit = saved_limit;
    test_cleanup_dir(dir);
    free(work);
    free(snapshot);
    free(adopted);
    free(dir);
}

static int64_t units_to_run(int64_t default_units)
{
    return test_count ? (int64_t)test_count : default_units;
}

/* Slots list each group's runs (checked at the open after a kill). */
TEST(kill_at_every_call) { run_kills(group_slot_run_limit, units_to_run(100)); }

/* Slots list at most 3 runs: most groups sync their data first. */
TEST(kill_at_every_call_small_slots) { run_kills(3, units_to_run(40)); }

/* Commits of more than 16 KiB written in pieces while they are placed
 * (the ballast, its rewrites, the larger groups' commits): a kill between
 * any two pieces. Their nodes are in the arena (storage/arena.h) from the
 * first byte, as a large transaction's are. */
TEST(kill_at_every_call_streamed)
{
    size_t saved = db_commit_stream_window;
    uint64_t saved_arena = space_arena_bytes;
    db_commit_stream_window = 16384;
    space_arena_bytes = 0;
    run_kills(group_slot_run_limit, units_to_run(40));
    db_commit_stream_window = saved;
    space_arena_bytes = saved_arena;
}

/* A commit that adds a page of checksums lists it among its runs; the
 * commits after it rewrite that page in place (the entries of the pages
 * they write). A kill after a large grouped commit that writes into the
 * new page's range, while the commit that added it has the newest slot,
 * must still open at that commit (or later). */
TEST(kill_after_the_directory_of_page_checksums_grows)
{
    char *dir = scratch_dir("killgrowth");
    char *work = test_path(dir, "work.realm"), *killed = test_path(dir, "kill.realm");
    ce_db *db = test_open(work);
    ce_txn *txn;
    uint64_t sums_before = 0, sums_after = 0;
    size_t durable_size = 0;
    /* Plain commits of 20,000 elements until the directory grows (a file
     * without page checksums, encrypted: to 3 MiB, the same sequence). */
    for (int commit = 0; commit < 200; commit++) {
        CHECK(ce_txn_begin_read(db, &txn));
        sums_before = pagesum_bytes(db_txn_space(txn));
        ce_txn_end(txn);
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = 0; i < 20000; i++) test_list_append(txn, ballast_of(commit * 20000 + i));
        durable_size = test_list_size(txn);
        CHECK(ce_txn_commit(txn));
        CHECK(ce_txn_begin_read(db, &txn));
        sums_after = pagesum_bytes(db_txn_space(txn));
        ce_txn_end(txn);
        if (sums_after != sums_before && sums_before != 0) break;
        if (sums_after == 0 && durable_size >= 300000) break;
    }
    CHECK(test_key != NULL || sums_after != sums_before);
    /* A grouped commit of 2.4 MB: past the range of the first page of
     * checksums (4 MiB), into the new one. Then the kill. */
    uint64_t version;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 300000; i++) test_list_append(txn, -ballast_of(i));
    CHECK(ce_txn_commit_grouped(txn, &version));
    copy_file(work, killed);
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    ce_db *reopened;
    if (!ce_db_open(killed, &options, &reopened)) {
        fprintf(stderr, "the file does not open after the kill: [%d] %s\n", (int)ce_last_error_code(),
                ce_last_error_message());
        exit(1);
    }
    test_verify(reopened);
    CHECK(ce_txn_begin_read(reopened, &txn));
    size_t size = test_list_size(txn);
    if (size != durable_size && size != durable_size + 300000) {
        fprintf(stderr, "after the kill the list holds %zu elements (acknowledged: %zu)\n", size, durable_size);
        exit(1);
    }
    ce_txn_end(txn);
    CHECK(ce_db_close(reopened));
    CHECK(ce_db_sync(db, version));
    CHECK(ce_db_close(db));
    test_cleanup_dir(dir);
    free(work);
    free(killed);
    free(dir);
}
