/*
 * test_group.c — group commit (ce_txn_commit_grouped, ce_db_sync).
 *
 * Syncs are counted through the os table. Checked: a grouped commit is
 * visible at once to other handles and processes without a sync and
 * writes no header slot; ce_db_sync syncs once and writes one slot naming
 * the group's last version; concurrent ce_db_sync callers share one sync;
 * space freed by a grouped commit is not reused before its version is
 * durable (a copy of the file taken before the sync opens at the durable
 * version, whole); a plain commit and ce_db_close make the group durable;
 * another handle's commit on top of a pending group covers it, but one
 * from a handle that never syncs does not make it durable; a sync of a
 * group of over 1 MiB writes the sync record; errors.
 */
#include "test_support.h"
#include "group.h"
#include "os.h"

#include <pthread.h>
#include <sys/wait.h>

static atomic_int syncs;

static int counting_fdatasync(int fd)
{
    atomic_fetch_add(&syncs, 1);
    return fdatasync(fd);
}
static int counting_fsync(int fd)
{
    atomic_fetch_add(&syncs, 1);
    return fsync(fd);
}

static os_methods counting_os;

static void count_syncs(void)
{
    counting_os = os_default;
    counting_os.fdatasync = counting_fdatasync;
    counting_os.fsync = counting_fsync;
    os_active = &counting_os;
    atomic_store(&syncs, 0);
}

static void stop_counting(void) { os_active = &os_default; }

static uint64_t commit_values(ce_db *db, int64_t first, int count, bool grouped)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < count; i++) test_list_append(txn, first + i);
    uint64_t version = 0;
    if (grouped) {
        CHECK(ce_txn_commit_grouped(txn, &version));
    } else {
        CHECK(ce_txn_commit(txn));
        CHECK(ce_db_latest_version(db, &version));
    }
    return version;
}

static size_t list_size(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    size_t size = test_list_size(txn);
    ce_txn_end(txn);
    return size;
}

/* The versions the two header slots name on disk (0: not valid). */
static void slot_versions(const char *path, uint64_t out[2])
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    for (int i = 0; i < 2; i++) {
        uint8_t page[4096];
        CHECK(pread(fd, page, sizeof page, 4096 * (1 + i)) == (ssize_t)sizeof page);
        out[i] = 0;
        if (memcmp(page, "ORSLOT01", 8) == 0) memcpy(&out[i], page + 8, 8);
    }
    close(fd);
}

static uint64_t newest_slot(const char *path)
{
    uint64_t versions[2];
    slot_versions(path, versions);
    return versions[0] > versions[1] ? versions[0] : versions[1];
}

static void copy_file(const char *from, const char *to)
{
    char command[8192];
    snprintf(command, sizeof command, "cp '%s' '%s' && rm -f '%s.lock'", from, to, to);
    CHECK(system(command) == 0);
}

TEST(grouped_commit_is_visible_before_any_sync)
{
    test_db t = test_db_open("group-visible");
    uint64_t base = commit_values(t.db, 0, 10, false);
    ce_db *other = test_open(t.path);
    count_syncs();
    uint64_t version = commit_values(t.db, 10, 10, true);
    CHECK(version == base + 1);
    CHECK(atomic_load(&syncs) == 0);
    stop_counting();
    /* No slot names it: a power loss now would find the base version. */
    CHECK(newest_slot(t.path) == base);
    /* Another handle, and another process, see it at once. */
    uint64_t seen;
    CHECK(ce_db_latest_version(other, &seen) && seen == version);
    CHECK(list_size(other) == 20);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *db = test_open(t.path);
        uint64_t latest;
        bool ok = ce_db_latest_version(db, &latest) && latest == version && list_size(db) == 20;
        /* A grouped commit on top of the pending one, from this process. */
        uint64_t mine = commit_values(db, 20, 5, true);
        ok = ok && mine == version + 1 && ce_db_close(db);
        _exit(ok ? 0 : 1);
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(list_size(t.db) == 25);
    /* The child's close synced the whole group, the parent's commit too. */
    CHECK(newest_slot(t.path) == version + 1);
    CHECK(ce_db_close(other));
    test_db_close(&t);
}

TEST(sync_makes_the_group_durable_with_one_sync)
{
    test_db t = test_db_open("group-sync");
    uint64_t base = commit_values(t.db, 0, 10, false);
    count_syncs();
    uint64_t last = 0;
    for (int i = 0; i < 3; i++) last = commit_values(t.db, 10 + i, 1, true);
    CHECK(last == base + 3);
    CHECK(atomic_load(&syncs) == 0);
    CHECK(newest_slot(t.path) == base);
    CHECK(ce_db_sync(t.db, base + 2)); /* an earlier version: the whole group up to the latest */
    CHECK(atomic_load(&syncs) == 1);
    uint64_t versions[2];
    slot_versions(t.path, versions);
    /* One slot for the group's last version; the other still the base's. */
    CHECK((versions[0] == last && versions[1] == base) || (versions[1] == last && versions[0] == base));
    /* Durable versions return at once. */
    CHECK(ce_db_sync(t.db, last));
    CHECK(ce_db_sync(t.db, base));
    CHECK(atomic_load(&syncs) == 1);
    stop_counting();
    /* A copy of the file now (as after a power loss) opens at the group. */
    char *copy = test_path(t.dir, "copy.realm");
    copy_file(t.path, copy);
    ce_db *db = test_open(copy);
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version) && version == last);
    CHECK(list_size(db) == 13);
    test_verify(db);
    CHECK(ce_db_close(db));
    free(copy);
    test_db_close(&t);
}

/* Threads calling ce_db_sync at once: one syncs, the others wait for it. */
typedef struct sync_thread {
    ce_db *db;
    uint64_t version;
    pthread_barrier_t *barrier;
    bool ok;
} sync_thread;

static void *sync_in_thread(void *argument)
{
    sync_thread *s = argument;
    pthread_barrier_wait(s->barrier);
    s->ok = ce_db_sync(s->db, s->version);
    return NULL;
}

TEST(concurrent_syncs_share_one_sync)
{
    test_db t = test_db_open("group-share");
    commit_values(t.db, 0, 10, false);
    enum { THREADS = 8 };
    uint64_t versions[THREADS];
    for (int i = 0; i < THREADS; i++) versions[i] = commit_values(t.db, 100 + i, 1, true);
    count_syncs();
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, THREADS);
    pthread_t threads[THREADS];
    sync_thread work[THREADS];
    for (int i = 0; i < THREADS; i++) {
        work[i] = (sync_thread){t.db, versions[i], &barrier, false};
        CHECK(pthread_create(&threads[i], NULL, sync_in_thread, &work[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(work[i].ok);
    }
    pthread_barrier_destroy(&barrier);
    CHECK(atomic_load(&syncs) == 1);
    stop_counting();
    CHECK(newest_slot(t.path) == versions[THREADS - 1]);
    test_db_close(&t);
}

/* Threads each committing grouped and syncing their own commit, as a
 * server acknowledging requests: every commit is there, in fewer syncs
 * than commits whenever commits overlapped. */
typedef struct commit_thread {
    ce_db *db;
    int index;
    bool ok;
} commit_thread;

enum { COMMIT_THREADS = 4, COMMITS_PER_THREAD = 50 };

static void *commit_and_sync(void *argument)
{
    commit_thread *c = argument;
    c->ok = true;
    for (int i = 0; i < COMMITS_PER_THREAD && c->ok; i++) {
        ce_txn *txn;
        uint64_t version;
        c->ok = ce_txn_begin_write(c->db, &txn);
        if (!c->ok) break;
        test_list_append(txn, c->index * 1000 + i);
        c->ok = ce_txn_commit_grouped(txn, &version);
        if (!c->ok) {
            ce_txn_end(txn);
            break;
        }
        c->ok = ce_db_sync(c->db, version);
        uint64_t durable[2];
        slot_versions(ce_db_path(c->db), durable);
        c->ok = c->ok && (durable[0] >= version || durable[1] >= version);
    }
    return NULL;
}

TEST(threads_committing_and_syncing)
{
    test_db t = test_db_open("group-threads");
    commit_values(t.db, 0, 1, false);
    count_syncs();
    pthread_t threads[COMMIT_THREADS];
    commit_thread work[COMMIT_THREADS];
    for (int i = 0; i < COMMIT_THREADS; i++) {
        work[i] = (commit_thread){t.db, i + 1, false};
        CHECK(pthread_create(&threads[i], NULL, commit_and_sync, &work[i]) == 0);
    }
    for (int i = 0; i < COMMIT_THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(work[i].ok);
    }
    int used = atomic_load(&syncs);
    stop_counting();
    CHECK(used >= 1 && used <= COMMIT_THREADS * COMMITS_PER_THREAD);
    printf("group: %d grouped commits acknowledged with %d syncs\n", COMMIT_THREADS * COMMITS_PER_THREAD, used);
    CHECK(list_size(t.db) == 1 + COMMIT_THREADS * COMMITS_PER_THREAD);
    test_verify(t.db);
    test_db_close(&t);
}

/* Space the group frees is still the durable version's: a commit of the
 * group that reused it would damage the version a power loss goes back
 * to. A copy of the file before the sync (what a power loss could leave:
 * every write of the group, no slot) must open at the durable version,
 * whole. */
TEST(space_freed_in_a_group_waits_for_the_sync)
{
    test_db t = test_db_open("group-space");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int i = 0; i < 20000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    uint64_t durable;
    CHECK(ce_db_latest_version(t.db, &durable));
    /* The group: rewrite every element (the old leaves are freed), then
     * again, then again: each commit would place its leaves in the space
     * the one before it freed. */
    uint64_t last = 0;
    for (int round = 1; round <= 3; round++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        for (size_t i = 0; i < 20000; i++) test_list_set(txn, i, -(int64_t)i * round);
        CHECK(ce_txn_commit_grouped(txn, &last));
    }
    char *copy = test_path(t.dir, "copy.realm");
    copy_file(t.path, copy);
    ce_db *db = test_open(copy);
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version) && version == durable);
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(test_list_size(txn) == 20000);
    for (size_t i = 0; i < 20000; i++) CHECK(test_list_get(txn, i) == (int64_t)i);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    /* Once durable, the space is reused: the file stops growing. */
    CHECK(ce_db_sync(t.db, last));
    struct stat before, after;
    for (int round = 0; round < 5; round++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        for (size_t i = 0; i < 20000; i++) test_list_set(txn, i, (int64_t)i + round);
        CHECK(ce_txn_commit_grouped(txn, &last));
        CHECK(ce_db_sync(t.db, last));
        if (round == 1) CHECK(stat(t.path, &before) == 0);
    }
    CHECK(stat(t.path, &after) == 0);
    CHECK(after.st_size == before.st_size);
    test_verify(t.db);
    free(copy);
    test_db_close(&t);
}

/* A group's slot lists the runs of all its commits, also of nodes its
 * later commits freed: that space waits for the next durable slot, or an
 * open after a power loss would find the durable group's runs changed and
 * refuse it. The copy (the next group written, no sync, no sync record)
 * must open at the durable group, whole. */
TEST(space_freed_inside_a_durable_group_waits_for_the_next_slot)
{
    test_db t = test_db_open("group-inside");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int i = 0; i < 20000; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    uint64_t last = 0;
    for (int round = 1; round <= 3; round++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        for (size_t i = 0; i < 20000; i++) test_list_set(txn, i, (int64_t)i * round);
        CHECK(ce_txn_commit_grouped(txn, &last));
    }
    CHECK(ce_db_sync(t.db, last));
    uint64_t durable = last;
    for (int round = 4; round <= 6; round++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        for (size_t i = 0; i < 20000; i++) test_list_set(txn, i, (int64_t)i * round);
        CHECK(ce_txn_commit_grouped(txn, &last));
    }
    char *copy = test_path(t.dir, "copy.realm");
    copy_file(t.path, copy);
    int fd = open(copy, O_WRONLY);
    uint8_t blank[4096] = {0};
    CHECK(fd >= 0 && pwrite(fd, blank, sizeof blank, 3 * 4096) == (ssize_t)sizeof blank); /* no sync record */
    close(fd);
    ce_db *db = test_open(copy);
    uint64_t version;
    CHECK(ce_db_latest_version(db, &version) && version == durable);
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    for (size_t i = 0; i < 20000; i++) CHECK(test_list_get(txn, i) == (int64_t)i * 3);
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    free(copy);
    test_db_close(&t);
}

TEST(a_plain_commit_makes_the_group_durable)
{
    test_db t = test_db_open("group-plain");
    uint64_t base = commit_values(t.db, 0, 10, false);
    commit_values(t.db, 10, 1, true);
    commit_values(t.db, 11, 1, true);
    /* From another handle: its plain commit builds on the pending group
     * and covers it. */
    ce_db *other = test_open(t.path);
    count_syncs();
    uint64_t version = commit_values(other, 12, 1, false);
    CHECK(version == base + 3);
    CHECK(atomic_load(&syncs) == 1); /* the group's runs fit the slot: one sync */
    stop_counting();
    CHECK(newest_slot(t.path) == version);
    CHECK(ce_db_sync(t.db, version)); /* nothing left to sync */
    CHECK(ce_db_close(other));
    char *copy = test_path(t.dir, "copy.realm");
    copy_file(t.path, copy);
    ce_db *db = test_open(copy);
    CHECK(list_size(db) == 13);
    test_verify(db);
    CHECK(ce_db_close(db));
    free(copy);
    test_db_close(&t);
}

TEST(close_makes_the_group_durable)
{
    test_db t = test_db_open("group-close");
    uint64_t base = commit_values(t.db, 0, 10, false);
    uint64_t version = commit_values(t.db, 10, 5, true);
    CHECK(newest_slot(t.path) == base);
    count_syncs();
    CHECK(ce_db_close(t.db));
    t.db = NULL;
    CHECK(atomic_load(&syncs) >= 1);
    stop_counting();
    CHECK(newest_slot(t.path) == version);
    t.db = test_open(t.path);
    CHECK(list_size(t.db) == 15);
    test_db_close(&t);
}

/* More runs than a slot lists (the limit lowered): the sync syncs the data
 * first, then a slot without runs. */
TEST(a_group_larger_than_a_slot_syncs_its_data_first)
{
    test_db t = test_db_open("group-large");
    commit_values(t.db, 0, 10, false);
    size_t saved = group_slot_run_limit;
    group_slot_run_limit = 2;
    uint64_t last = 0;
    for (int i = 0; i < 3; i++) last = commit_values(t.db, 10 + i, 1, true);
    count_syncs();
    CHECK(ce_db_sync(t.db, last));
    CHECK(atomic_load(&syncs) == 2);
    stop_counting();
    group_slot_run_limit = saved;
    CHECK(newest_slot(t.path) == last);
    test_db_close(&t);
}

TEST(errors)
{
    test_db t = test_db_open("group-errors");
    uint64_t version = commit_values(t.db, 0, 1, true);
    CHECK(!ce_db_sync(t.db, version + 1));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_db_sync(NULL, 1));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_txn_commit_grouped(NULL, NULL));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_txn *read;
    CHECK(ce_txn_begin_read(t.db, &read));
    CHECK(!ce_txn_commit_grouped(read, NULL));
    CHECK(ce_last_error_code() == CE_ERR_WRONG_TRANSACTION_STATE);
    ce_txn_end(read);
    /* A read-only handle cannot make a pending version durable. */
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.read_only = true;
    ce_db *reader;
    CHECK(ce_db_open(t.path, &options, &reader));
    CHECK(!ce_db_sync(reader, version));
    CHECK(ce_last_error_code() == CE_ERR_READ_ONLY);
    CHECK(ce_db_sync(t.db, version));
    CHECK(ce_db_sync(reader, version)); /* durable now */
    CHECK(ce_db_close(reader));
    test_db_close(&t);
}

/* Without full durability nothing syncs, grouped or not. */
TEST(other_durabilities_never_sync)
{
    ce_durability modes[] = {CE_DURABILITY_MEMORY_ONLY, CE_DURABILITY_UNSAFE_NO_SYNC};
    for (int m = 0; m < 2; m++) {
        char *dir = test_make_dir("group-durability");
        char *path = test_path(dir, "test.realm");
        ce_db_options options;
        ce_db_options_init(&options);
        test_set_key(&options);
        options.durability = modes[m];
        ce_db *db;
        CHECK(ce_db_open(path, &options, &db));
        count_syncs();
        uint64_t version = commit_values(db, 0, 3, true);
        CHECK(ce_db_sync(db, version));
        CHECK(atomic_load(&syncs) == 0);
        stop_counting();
        CHECK(list_size(db) == 3);
        CHECK(ce_db_close(db));
        test_cleanup_dir(dir);
        free(path);
        free(dir);
    }
}

/* The version the sync record (page 3) names on disk (0: none). */
static uint64_t sync_record(const char *path)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    uint8_t page[4096];
    CHECK(pread(fd, page, sizeof page, 3 * 4096) == (ssize_t)sizeof page);
    close(fd);
    uint64_t version = 0;
    if (memcmp(page, "ORSYNC01", 8) == 0) memcpy(&version, page + 8, 8);
    return version;
}

/* A handle that never syncs commits on top of another handle's pending
 * group: its slot covers the group but nothing reached the disk, so the
 * group is still pending, and the other handle's ce_db_sync syncs. */
TEST(a_commit_without_sync_leaves_the_group_pending)
{
    test_db t = test_db_open("group-nosync");
    commit_values(t.db, 0, 10, false);
    uint64_t grouped = commit_values(t.db, 10, 1, true);
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.durability = CE_DURABILITY_UNSAFE_NO_SYNC;
    ce_db *unsafe;
    CHECK(ce_db_open(t.path, &options, &unsafe));
    count_syncs();
    uint64_t version = commit_values(unsafe, 11, 1, false);
    CHECK(atomic_load(&syncs) == 0);
    CHECK(ce_db_sync(t.db, grouped));
    CHECK(atomic_load(&syncs) >= 1); /* only a sync makes the group durable */
    int after_first = atomic_load(&syncs);
    CHECK(ce_db_sync(t.db, version)); /* that sync covered the later commit too */
    CHECK(atomic_load(&syncs) == after_first);
    stop_counting();
    CHECK(ce_db_close(unsafe));
    CHECK(list_size(t.db) == 12);
    test_db_close(&t);
}

/* A group of over 1 MiB: its sync also writes the sync record, as a plain
 * commit of that size does, so that an open after a crash does not read
 * the group's runs back to check them. */
TEST(a_large_group_writes_the_sync_record)
{
    test_db t = test_db_open("group-record");
    commit_values(t.db, 0, 10, false);
    uint64_t before = sync_record(t.path), last = 0;
    for (int c = 0; c < 3; c++) { /* 3 x 400 KB: 64-bit values */
        ce_txn *txn;
        CHECK(ce_txn_begin_write(t.db, &txn));
        for (int64_t i = 0; i < 50000; i++) test_list_append(txn, (c * 50000 + i) * 0x9E3779B9ll);
        CHECK(ce_txn_commit_grouped(txn, &last));
    }
    CHECK(ce_db_sync(t.db, last));
    CHECK(sync_record(t.path) == last);
    /* A small group does not (one more page in each sync costs time). */
    uint64_t small = commit_values(t.db, 5, 1, true);
    CHECK(ce_db_sync(t.db, small));
    CHECK(sync_record(t.path) == last);
    CHECK(before < last);
    test_db_close(&t);
}
