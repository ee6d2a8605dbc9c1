/*
 * test_trywrite.c — ce_txn_try_begin_write, the write lock without waiting.
 *
 * Checked: with the lock free it begins the write transaction (from the
 * latest version, committed as any other); while another thread, another
 * handle or another process holds the lock, or the calling thread itself,
 * it returns busy (true, NULL, no error) at once, never waiting (an alarm
 * turns a wait into a failure); threads and processes that mix it with
 * ce_txn_begin_write never write at the same time (each commit appends the
 * size of the list it saw, so any two overlapping writers would leave a
 * repeated value); errors as ce_txn_begin_write's.
 */
#include "test_support.h"

#include <pthread.h>
#include <sys/wait.h>

/* A hang in a case that must never wait fails the program after this. */
enum { NO_WAIT_ALARM_SECONDS = 60 };

static void append_size_and_commit(ce_txn *txn)
{
    test_list_append(txn, (int64_t)test_list_size(txn));
    uint64_t version;
    CHECK(ce_txn_commit_grouped(txn, &version));
}

/* The list holds 0, 1, ..., n-1: every writer saw the one before it. */
static size_t check_serial_list(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    size_t size = test_list_size(txn);
    for (size_t i = 0; i < size; i++) CHECK(test_list_get(txn, i) == (int64_t)i);
    ce_txn_end(txn);
    return size;
}

TEST(try_begin_write_takes_a_free_lock)
{
    test_db t = test_db_open("trywrite-free");
    ce_txn *txn = (ce_txn *)1;
    CHECK(ce_txn_try_begin_write(t.db, &txn));
    CHECK(txn != NULL && ce_txn_is_write(txn));
    append_size_and_commit(txn);
    /* Released by the commit: free again, and from the new version. */
    CHECK(ce_txn_try_begin_write(t.db, &txn) && txn);
    CHECK(test_list_size(txn) == 1);
    append_size_and_commit(txn);
    /* Ended without a commit: free again too. */
    CHECK(ce_txn_try_begin_write(t.db, &txn) && txn);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_txn_end(txn);
    CHECK(check_serial_list(t.db) == 2);
    test_db_close(&t);
}

TEST(try_begin_write_errors)
{
    test_db t = test_db_open("trywrite-errors");
    ce_txn *txn = NULL;
    CHECK(!ce_txn_try_begin_write(NULL, &txn));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_txn_try_begin_write(t.db, NULL));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "ce_txn_try_begin_write") != NULL);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_txn_commit(txn));
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.read_only = true;
    ce_db *reader;
    CHECK(ce_db_open(t.path, &options, &reader));
    txn = NULL;
    CHECK(!ce_txn_try_begin_write(reader, &txn));
    CHECK(ce_last_error_code() == CE_ERR_READ_ONLY);
    CHECK(txn == NULL);
    CHECK(ce_db_close(reader));
    test_db_close(&t);
}

TEST(busy_while_this_thread_writes)
{
    test_db t = test_db_open("trywrite-self");
    alarm(NO_WAIT_ALARM_SECONDS);
    ce_txn *held, *txn = (ce_txn *)1;
    CHECK(ce_txn_begin_write(t.db, &held));
    CHECK(ce_txn_try_begin_write(t.db, &txn));
    CHECK(txn == NULL);
    /* A second handle of the same file in this process: busy too. */
    ce_db *other = test_open(t.path);
    txn = (ce_txn *)1;
    CHECK(ce_txn_try_begin_write(other, &txn) && txn == NULL);
    append_size_and_commit(held);
    CHECK(ce_txn_try_begin_write(other, &txn) && txn);
    CHECK(test_list_size(txn) == 1);
    append_size_and_commit(txn);
    alarm(0);
    CHECK(ce_db_close(other));
    CHECK(check_serial_list(t.db) == 2);
    test_db_close(&t);
}

typedef struct holder {
    ce_db *db;
    atomic_int stage; /* 1: holds the lock; 2: may commit; 3: committed */
} holder;

static void *hold_the_lock(void *arg)
{
    holder *h = arg;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(h->db, &txn));
    atomic_store(&h->stage, 1);
    while (atomic_load(&h->stage) != 2) sched_yield();
    append_size_and_commit(txn);
    atomic_store(&h->stage, 3);
    return NULL;
}

TEST(busy_while_another_thread_writes)
{
    test_db t = test_db_open("trywrite-thread");
    alarm(NO_WAIT_ALARM_SECONDS);
    holder h = {.db = t.db};
    atomic_init(&h.stage, 0);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, hold_the_lock, &h) == 0);
    while (atomic_load(&h.stage) != 1) sched_yield();
    /* The holder commits only after these returned: a wait would hang. */
    for (int i = 0; i < 1000; i++) {
        ce_txn *txn = (ce_txn *)1;
        CHECK(ce_txn_try_begin_write(t.db, &txn));
        CHECK(txn == NULL);
    }
    atomic_store(&h.stage, 2);
    CHECK(pthread_join(thread, NULL) == 0);
    ce_txn *txn;
    CHECK(ce_txn_try_begin_write(t.db, &txn) && txn);
    CHECK(test_list_size(txn) == 1);
    append_size_and_commit(txn);
    alarm(0);
    CHECK(check_serial_list(t.db) == 2);
    test_db_close(&t);
}

TEST(busy_while_another_process_writes)
{
    test_db t = test_db_open("trywrite-process");
    alarm(NO_WAIT_ALARM_SECONDS);
    int to_child[2], to_parent[2];
    CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ce_db *db = test_open(t.path);
        ce_txn *txn;
        char byte = 'h';
        bool ok = ce_txn_begin_write(db, &txn);
        ok = write(to_parent[1], &byte, 1) == 1 && ok;
        ok = read(to_child[0], &byte, 1) == 1 && ok;
        if (ok) append_size_and_commit(txn);
        ok = ok && ce_db_close(db);
        _exit(ok ? 0 : 1);
    }
    char byte;
    CHECK(read(to_parent[0], &byte, 1) == 1);
    for (int i = 0; i < 100; i++) {
        ce_txn *txn = (ce_txn *)1;
        CHECK(ce_txn_try_begin_write(t.db, &txn));
        CHECK(txn == NULL);
    }
    CHECK(write(to_child[1], &byte, 1) == 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ce_txn *txn;
    CHECK(ce_txn_try_begin_write(t.db, &txn) && txn);
    CHECK(test_list_size(txn) == 1);
    append_size_and_commit(txn);
    alarm(0);
    CHECK(check_serial_list(t.db) == 2);
    for (int i = 0; i < 2; i++) close(to_child[i]), close(to_parent[i]);
    test_db_close(&t);
}

enum { CONTENDERS = 3, COMMITS_EACH = 150 };

typedef struct contender {
    ce_db *db;
    bool blocking; /* ce_txn_begin_write instead of trying */
} contender;

/* COMMITS_EACH commits, each appending the list's size; tries spin. */
static void contend(contender *c)
{
    for (int done = 0; done < COMMITS_EACH;) {
        ce_txn *txn = NULL;
        if (c->blocking) {
            CHECK(ce_txn_begin_write(c->db, &txn));
        } else {
            CHECK(ce_txn_try_begin_write(c->db, &txn));
            if (!txn) {
                sched_yield();
                continue;
            }
        }
        append_size_and_commit(txn);
        done++;
    }
}

static void *contend_thread(void *arg)
{
    contend(arg);
    return NULL;
}

TEST(never_two_writers_across_threads_and_processes)
{
    test_db t = test_db_open("trywrite-contended");
    fflush(NULL);
    /* Two other processes: one trying, one waiting, each with its own handle. */
    pid_t children[2];
    for (int p = 0; p < 2; p++) {
        children[p] = fork();
        CHECK(children[p] >= 0);
        if (children[p] == 0) {
            contender c = {.db = test_open(t.path), .blocking = p == 1};
            contend(&c);
            bool ok = ce_db_close(c.db);
            _exit(ok ? 0 : 1);
        }
    }
    /* Here: threads on one handle (two trying, one waiting) and a trying
     * thread on a second handle. */
    ce_db *second = test_open(t.path);
    contender work[CONTENDERS + 1];
    pthread_t threads[CONTENDERS + 1];
    for (int i = 0; i <= CONTENDERS; i++) {
        work[i] = (contender){.db = i == CONTENDERS ? second : t.db, .blocking = i == 1};
        CHECK(pthread_create(&threads[i], NULL, contend_thread, &work[i]) == 0);
    }
    for (int i = 0; i <= CONTENDERS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
    for (int p = 0; p < 2; p++) {
        int status;
        CHECK(waitpid(children[p], &status, 0) == children[p] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK(ce_db_close(second));
    /* Every commit saw every commit before it: one writer at a time. */
    CHECK(check_serial_list(t.db) == (size_t)(CONTENDERS + 1 + 2) * COMMITS_EACH);
    test_db_close(&t);
}
