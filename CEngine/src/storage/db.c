/*
 * db.c — the handle and its transactions: open and close, read and write
 * transactions, the commit protocol, and waiting for a commit
 * (ce_db_wait_for_change, on lockfile.c's change word).
 *
 * Owns: who may write, which version each transaction of a handle reads,
 * the top node of a version, the order in which a commit reaches the
 * disk, and a handle's identity token: what a query remembers of its file
 * (db_file_id) and whether a transaction reads that file
 * (db_txn_check_file).
 * Never: overwrites a node a durable version uses (docs/DESIGN.md
 * invariant 1), lets a reader see a partial commit (invariant 2), or
 * reports a commit that did not reach the disk (invariant 4).
 *
 * A commit writes its nodes into free space, then (group.c) the slot that
 * does not hold the newest durable version, then calls fdatasync once. If
 * power fails before the sync completes, the slot may have reached the disk
 * without some of the data: at the next open the slot's checksum over the
 * runs it lists fails and the other slot (the previous, durable commit)
 * wins. A commit that wrote more runs than a slot lists syncs its data
 * first and the slot second, and so does a large commit written in pieces
 * while it is placed (write_streamed). A grouped commit writes its nodes and joins
 * the pending group; ce_db_sync writes the group's one slot (group.c).
 *
 * The rest of the layer: header.c (the four header pages, and the version a
 * file opens at), lockfile.c (the latest version as every handle sees it, the
 * reader table, who is alive), verify.c (ce_db_verify) and writer.c (a new
 * file written front to back, for compact.c). They share the handle and the
 * transaction through db_internal.h.
 */
#include "db.h"
#include "backwrite.h"
#include "checksum.h"
#include "db_internal.h"
#include "error.h"
#include "group.h"
#include "header.h"
#include "lockfile.h"
#include "node.h"
#include "crypt.h"
#include "os.h"
#include "pagesum.h"
#include "pager.h"
#include "writer.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

/* Closed handles and ended transactions: their memory goes to a pool, not
 * back to malloc, and a new handle of the same kind reuses it. The pools
 * hold at most as many as were ever open at once. So a call with a stale
 * handle reads memory the engine still owns and finds HANDLE_ENDED (or, if
 * a new handle took the memory, that handle): CE_ERR_INVALID_ARGUMENT
 * instead of a use after free. */
static pthread_mutex_t handle_pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static ce_db *db_pool;
static ce_txn *txn_pool;

static ce_db *new_db_handle(void)
{
    pthread_mutex_lock(&handle_pool_mutex);
    ce_db *db = db_pool;
    if (db) db_pool = db->pool_next;
    pthread_mutex_unlock(&handle_pool_mutex);
    if (!db && !(db = malloc(sizeof *db))) return NULL;
    memset(db, 0, sizeof *db);
    db->magic = DB_HANDLE_LIVE;
    return db;
}

static void delete_db_handle(ce_db *db)
{
    memset(db, 0, sizeof *db);
    db->magic = HANDLE_ENDED;
    pthread_mutex_lock(&handle_pool_mutex);
    db->pool_next = db_pool;
    db_pool = db;
    pthread_mutex_unlock(&handle_pool_mutex);
}

static ce_txn *new_txn_handle(void)
{
    pthread_mutex_lock(&handle_pool_mutex);
    ce_txn *txn = txn_pool;
    if (txn) txn_pool = txn->pool_next;
    pthread_mutex_unlock(&handle_pool_mutex);
    if (!txn && !(txn = malloc(sizeof *txn))) return NULL;
    memset(txn, 0, sizeof *txn);
    txn->magic = TXN_HANDLE_LIVE;
    return txn;
}

static void delete_txn_handle(ce_txn *txn)
{
    memset(txn, 0, sizeof *txn);
    txn->magic = HANDLE_ENDED;
    pthread_mutex_lock(&handle_pool_mutex);
    txn->pool_next = txn_pool;
    txn_pool = txn;
    pthread_mutex_unlock(&handle_pool_mutex);
}

bool db_check_handle(const ce_db *db, const char *call)
{
    if (!db) return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: the database handle is required", call);
    if (db->magic != DB_HANDLE_LIVE)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: the database handle was closed (or is not a ce_db)", call);
    return true;
}

bool db_txn_check(const ce_txn *txn, const char *call)
{
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: the transaction is required", call);
    if (txn->magic != TXN_HANDLE_LIVE)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: the transaction has ended (or is not a ce_txn)", call);
    return true;
}

/* A handle belongs to the process that opened it (db->pid). A child of
 * fork() shares the parent's open file descriptions, and with them the
 * parent's OFD locks (os.c), and the lock file's shared mapping: a child
 * that began, committed or ended a transaction through an inherited handle
 * would unlock the parent's writer lock or free its reader slot. So those
 * entry points refuse such a handle, and ce_db_close / ce_txn_end in the
 * child only release the child's memory (db_forked). */
static bool db_forked(const ce_db *db, uint64_t pid) { return db->pid != pid; }

static bool fork_refused(const ce_db *db, uint64_t pid, const char *call)
{
    return error_fail(CE_ERR_WRONG_TRANSACTION_STATE,
                      "%s: this handle of '%s' was opened in process %llu; it cannot be used after fork() in process "
                      "%llu: open the file again",
                      call, db->path ? db->path : "", (unsigned long long)db->pid, (unsigned long long)pid);
}

/* The pid for these checks: getpid() once (a system call: glibc does not
 * cache it), then a load; a child of fork() forgets it (pthread_atfork), so
 * the child reads its own pid again. */
static _Atomic uint64_t cached_pid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void forget_pid_in_child(void) { atomic_store(&cached_pid, 0); }
static void register_atfork(void) { pthread_atfork(NULL, NULL, forget_pid_in_child); }

static uint64_t current_pid(void)
{
    uint64_t pid = atomic_load_explicit(&cached_pid, memory_order_relaxed);
    if (pid == 0) {
        pid = (uint64_t)getpid();
        atomic_store_explicit(&cached_pid, pid, memory_order_relaxed);
    }
    return pid;
}

bool db_check_process(const ce_db *db, const char *call)
{
    uint64_t pid = current_pid();
    return !db_forked(db, pid) || fork_refused(db, pid, call);
}

/* Stamps are unique in the process: a new one for every begin, advance and
 * change of the root. */
static _Atomic uint64_t last_stamp;

static void new_stamp(ce_txn *txn) { txn->stamp = atomic_fetch_add(&last_stamp, 1) + 1; }

uint64_t db_txn_stamp(const ce_txn *txn) { return txn->stamp; }

/* Handles' identity tokens: unique in the process, never reused. */
static _Atomic uint64_t last_file_token;

#define PATH_HASH_SEED 0x50415448ull

db_file_id db_txn_file_id(const ce_txn *txn)
{
    const ce_db *db = txn->db;
    return (db_file_id){db->file_token, db->file_device, db->file_inode, db->path_hash};
}

bool db_txn_check_file(const ce_txn *txn, const db_file_id *id)
{
    const ce_db *db = txn->db;
    if (id->token == db->file_token || (id->device == db->file_device && id->inode == db->file_inode)) return true;
    if (id->path_hash == db->path_hash)
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                          "a query or results view made on '%s' was used after the file was compacted or replaced "
                          "by another handle or process: make it again on the file as it is now",
                          db->path);
    return error_fail(CE_ERR_INVALID_ARGUMENT,
                      "a query or results view made on another database file was used with a transaction of '%s'",
                      db->path);
}

static void release_layer_state(ce_txn *txn)
{
    if (txn->release_layer_state) txn->release_layer_state(txn->layer_state);
    txn->layer_state = NULL;
    txn->release_layer_state = NULL;
    txn->before_commit = NULL;
}

void *db_txn_layer_state(const ce_txn *txn) { return txn->layer_state; }

void db_txn_set_before_commit(ce_txn *txn, bool (*before_commit)(ce_txn *txn, void *state))
{
    txn->before_commit = before_commit;
}

void db_txn_set_layer_state(ce_txn *txn, void *state, void (*release)(void *state))
{
    release_layer_state(txn);
    txn->layer_state = state;
    txn->release_layer_state = release;
}

/* ------------------------------------------------------------------------ */
/* Top node                                                                  */
/* ------------------------------------------------------------------------ */

static bool load_top(ce_txn *txn)
{
    node_view top;
    if (!node_read(&txn->space, txn->info.top_ref, &top)) return false;
    if (!(top.flags & NODE_HAS_REFS) || top.count < TOP_COUNT ||
        node_untag(node_get(&top, TOP_VERSION)) != (int64_t)txn->info.version)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the top node of version %llu in '%s' is damaged",
                       (unsigned long long)txn->info.version, txn->db->path);
    int64_t values[3] = {node_get(&top, TOP_USER_ROOT), node_get(&top, TOP_FREE_LIST), node_get(&top, TOP_HISTORY)};
    /* A ref with the temporary bit names a dirty node of some transaction,
     * never a node of the file: a write transaction that committed it would
     * look it up in its own (empty) table of dirty nodes. */
    for (int i = 0; i < 3; i++)
        if (values[i] != 0 && (!node_value_is_ref(values[i]) || ref_is_temporary((space_ref)values[i])))
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the top node of '%s' holds a bad ref", txn->db->path);
    txn->user_root = (space_ref)values[0];
    txn->free_list_ref = (space_ref)values[1];
    txn->history_ref = (space_ref)values[2];
    return true;
}

bool db_load_free_list(ce_txn *txn, space_free_extent **out_list, size_t *out_count)
{
    *out_list = NULL;
    *out_count = 0;
    if (!txn->free_list_ref) return true;
    node_view list;
    if (!node_read(&txn->space, txn->free_list_ref, &list)) return false;
    /* build_new_version writes the free list at a width that holds file
     * positions (at least 16 bits: every position is 16384 or more). Checking
     * the width also bounds the allocation below by the node's bytes: at
     * width 0 a count of 2^31 takes 8 bytes of file and would ask for 17 GB. */
    if ((list.flags & (NODE_HAS_REFS | NODE_BYTES)) || list.width < 16 || list.count % 3 != 0)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the free list of '%s' is damaged", txn->db->path);
    size_t count = list.count / 3;
    space_free_extent *extents = malloc((count + 1) * sizeof *extents);
    if (!extents) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the free list");
    for (size_t i = 0; i < count; i++) {
        extents[i].position = (uint64_t)node_get(&list, 3 * i);
        extents[i].size = (uint64_t)node_get(&list, 3 * i + 1);
        extents[i].freed_in_version = (uint64_t)node_get(&list, 3 * i + 2);
    }
    *out_list = extents;
    *out_count = count;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

/* The version of this code (the file's format version is header.c's). */
const char *ce_engine_version(void) { return "0.1.0"; }

void ce_db_options_init(ce_db_options *options)
{
    memset(options, 0, sizeof *options);
    options->durability = CE_DURABILITY_FULL;
}

static char *in_memory_path(const char *identifier)
{
    const char *directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!directory) directory = "/tmp";
    size_t length = strlen(identifier);
    char *path = malloc(strlen(directory) + 64 + 3 * length);
    if (!path) return NULL;
    char *cursor = path + sprintf(path, "%s/openrealm-%u-", directory, (unsigned)getuid());
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)identifier[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
            *cursor++ = (char)c;
        else
            cursor += sprintf(cursor, "%%%02X", c);
    }
    strcpy(cursor, ".realm");
    return path;
}

static void close_data_file(ce_db *db)
{
    pager_close(db->pager);
    db->pager = NULL;
}

static void free_db(ce_db *db)
{
    header_wipe_key(db); /* if the open failed before the keys were derived */
    lockfile_close(db);
    close_data_file(db); /* wipes the derived keys and the decrypted pages */
    pthread_mutex_destroy(&db->mutex);
    pthread_cond_destroy(&db->writer_free);
    pthread_cond_destroy(&db->exclusive_over);
    pthread_mutex_destroy(&db->confirmed_mutex);
    pthread_cond_destroy(&db->sync_free);
    pthread_mutex_destroy(&db->group_mutex);
    free(db->path);
    free(db->lock_path);
    delete_db_handle(db);
}

/* Frees a handle whose open failed after lockfile_open; false, with the
 * error as it was. */
static bool abandon_open(ce_db *db)
{
    error_saved saved;
    error_save(&saved);
    lockfile_abandon_setup(db);
    free_db(db);
    return error_restore(&saved);
}

bool ce_db_open(const char *path, const ce_db_options *options, ce_db **out_db)
{
    if (!options || !out_db) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_open: options and out_db are required");
    *out_db = NULL;
    /* Checked as an unsigned number: an enum may be signed. An unknown
     * value would open a handle that silently never syncs. */
    if ((unsigned)options->durability > CE_DURABILITY_UNSAFE_NO_SYNC)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "unknown durability %d (expected %d, %d or %d)", (int)options->durability,
                       CE_DURABILITY_FULL, CE_DURABILITY_MEMORY_ONLY, CE_DURABILITY_UNSAFE_NO_SYNC);
    if (options->encryption_key && options->encryption_key_size != CRYPT_KEY_SIZE)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "the encryption key must be %u bytes long (it is %zu)", CRYPT_KEY_SIZE,
                       options->encryption_key_size);
    if (!options->encryption_key && options->encryption_key_size != 0)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "encryption_key_size is %zu but encryption_key is NULL",
                       options->encryption_key_size);
    ce_db *db = new_db_handle();
    if (!db) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    db->lock_fd = -1;
    db->options = *options;
    /* The key is copied (the caller's buffer stays the caller's) and the
     * handle keeps no pointer to it. */
    if (options->encryption_key) {
        memcpy(db->key, options->encryption_key, CRYPT_KEY_SIZE);
        db->key_given = true;
    }
    db->options.encryption_key = NULL;
    db->pid = (uint64_t)getpid();
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_init(&db->mutex, NULL);
    pthread_cond_init(&db->writer_free, NULL);
    pthread_cond_init(&db->exclusive_over, NULL);
    pthread_mutex_init(&db->confirmed_mutex, NULL);
    pthread_cond_init(&db->sync_free, NULL);
    pthread_mutex_init(&db->group_mutex, NULL);
    if (path) {
        db->path = strdup(path);
    } else if (options->durability == CE_DURABILITY_MEMORY_ONLY && options->in_memory_identifier) {
        db->path = in_memory_path(options->in_memory_identifier);
    } else {
        free_db(db);
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_open: a path is required (or an in-memory identifier)");
    }
    db->file_token = atomic_fetch_add(&last_file_token, 1) + 1;
    if (db->path) db->path_hash = checksum_of(db->path, strlen(db->path), PATH_HASH_SEED);
    if (!db->path || !(db->lock_path = malloc(strlen(db->path) + 6))) {
        free_db(db);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    sprintf(db->lock_path, "%s.lock", db->path);
    if (options->immutable) db->options.read_only = true;
    if (db->options.read_only && options->durability == CE_DURABILITY_MEMORY_ONLY) {
        free_db(db);
        return error_fail(CE_ERR_INVALID_ARGUMENT, "an in-memory database cannot be opened %s",
                          options->immutable ? "immutable" : "read-only");
    }
    if (options->immutable) {
        /* No lock file: no liveness byte either (nobody can see it). */
        if (!lockfile_open_immutable(db)) {
            error_saved saved;
            error_save(&saved);
            free_db(db);
            return error_restore(&saved);
        }
        *out_db = db;
        return true;
    }
    if (!lockfile_open(db)) {
        free_db(db);
        return false;
    }
    if (!os_lock_range(db->lock_fd, LIVENESS_BASE + db->pid, 1, false, true, NULL, db->lock_path))
        return abandon_open(db);
    /* Temporaries of copies to this path whose process died (a crash in
     * ce_db_write_copy): nothing else would ever remove them. Only the
     * first handle scans the directory, not every open of a busy file. */
    if (db->opened_first && !options->read_only && options->durability != CE_DURABILITY_MEMORY_ONLY)
        writer_remove_stale_copies(db->path);
    version_info latest;
    if (!lockfile_latest(db, -1, &latest)) return abandon_open(db);
    if (latest.version == 0) {
        /* A new file: the first commit creates version 1 with an empty top,
         * before any other handle attaches (lockfile_let_others_attach). */
        ce_txn *txn;
        bool began = ce_txn_begin_write(db, &txn);
        if (!began || !ce_txn_commit(txn)) {
            error_saved saved;
            error_save(&saved);
            if (began) ce_txn_end(txn);
            error_restore(&saved);
            return abandon_open(db);
        }
    }
    if (!lockfile_let_others_attach(db)) return abandon_open(db);
    *out_db = db;
    return true;
}

bool ce_db_close(ce_db *db)
{
    if (!db) return true;
    if (!db_check_handle(db, "ce_db_close")) return false;
    if (db_forked(db, current_pid())) {
        /* A child of fork(): the locks, the lock file's shared memory and
         * the pending sync are the parent's. Only this process's memory
         * and descriptors go (closing a descriptor releases no OFD lock
         * while the parent keeps its own). The mutex is not taken: a thread
         * of the parent may have held it at the fork. */
        if (db->open_transactions > 0)
            return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot close '%s': %zu transactions are still open",
                              db->path, db->open_transactions);
        free_db(db);
        return true;
    }
    pthread_mutex_lock(&db->mutex);
    size_t open_transactions = db->open_transactions;
    size_t waiters = db->waiters;
    pthread_mutex_unlock(&db->mutex);
    if (open_transactions > 0)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot close '%s': %zu transactions are still open", db->path,
                       open_transactions);
    if (waiters > 0)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE,
                          "cannot close '%s': %zu threads are waiting in ce_db_wait_for_change (wake them with "
                          "ce_db_wake_waiters and let them return first)",
                          db->path, waiters);
    /* Grouped commits not yet durable become durable now; a failure is
     * reported, and the handle closed all the same (it could do nothing
     * else with a disk that refuses the sync). Then the sync record, only
     * for a version the data file's header holds: a damaged lock file must
     * not make it vouch for a version that does not exist (the next open
     * would refuse the file). */
    version_info latest;
    uint64_t durable;
    bool synced = true;
    error_saved sync_error;
    memset(&sync_error, 0, sizeof sync_error);
    if (group_durable_version(db, &latest, &durable)) {
        if (durable < latest.version && !db->options.read_only) {
            synced = group_sync(db, latest.version);
            if (synced) durable = latest.version;
            else error_save(&sync_error);
        }
        if (durable >= latest.version) group_write_sync_record(db, latest.version);
    }
    if (db->options.durability == CE_DURABILITY_MEMORY_ONLY) {
        bool busy;
        /* The last handle of an in-memory database removes its files. */
        if (os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, true, false, &busy, db->lock_path)) {
            os_active->unlink(db->path);
            os_active->unlink(db->lock_path);
        }
    }
    free_db(db);
    return synced || error_restore(&sync_error);
}

const char *ce_db_path(const ce_db *db) { return db_check_handle(db, "ce_db_path") ? db->path : NULL; }

/* Removes `path` if it exists; whether it did, or false with the error. */
static bool remove_if_exists(const char *path, bool *out_removed)
{
    *out_removed = false;
    if (os_active->unlink(path) == 0) {
        *out_removed = true;
        return true;
    }
    if (errno == ENOENT) return true;
    return error_fail_errno(errno, "unlink", path);
}

bool ce_db_delete_files(const char *path, bool *out_deleted)
{
    if (!path) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_delete_files: path is required");
    if (out_deleted) *out_deleted = false;
    size_t length = strlen(path) + 16;
    char *lock_path = malloc(length), *compact_path = malloc(length);
    if (!lock_path || !compact_path) {
        free(lock_path);
        free(compact_path);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    snprintf(lock_path, length, "%s.lock", path);
    snprintf(compact_path, length, "%s.compact", path);
    bool ok = true;
    int lock_fd = os_active->open(lock_path, O_RDWR | O_CLOEXEC, 0);
    if (lock_fd < 0 && errno != ENOENT) ok = error_fail_errno(errno, "open lock file", lock_path);
    if (ok && lock_fd >= 0) {
        /* Every handle holds byte 0 of the lock file shared while it is
         * open: holding it exclusively proves that none is, in any process. */
        bool busy;
        if (!os_lock_range(lock_fd, INIT_LOCK_BYTE, 1, true, false, &busy, lock_path)) {
            ok = busy ? error_fail(CE_ERR_ALREADY_OPEN, "Cannot delete files of an open Realm: '%s' is still in use.", path)
                      : false;
        } else if (os_active->ftruncate(lock_fd, 0) != 0) {
            /* Emptied first: a handle that opened the lock file before it is
             * unlinked finds it uninitialized and starts again with a new
             * one, instead of attaching to the deleted one. */
            ok = error_fail_errno(errno, "truncate", lock_path);
        }
    }
    if (ok) {
        /* A handle whose lock file was deleted or replaced holds no byte of
         * this one, but still the data file's handle byte. */
        int data_fd = os_active->open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
        if (data_fd >= 0) {
            bool in_use;
            if (!os_range_is_locked(data_fd, DATA_HANDLE_LOCK_BYTE, 1, &in_use, path))
                ok = false;
            else if (in_use)
                ok = error_fail(CE_ERR_ALREADY_OPEN, "Cannot delete files of an open Realm: '%s' is still in use.", path);
            os_active->close(data_fd);
        }
    }
    bool removed = false, ignored;
    if (ok) ok = remove_if_exists(path, &removed);
    if (ok) ok = remove_if_exists(compact_path, &ignored);
    if (ok && lock_fd >= 0) ok = remove_if_exists(lock_path, &ignored);
    if (lock_fd >= 0) os_active->close(lock_fd); /* releases the lock */
    if (ok && out_deleted) *out_deleted = removed;
    free(lock_path);
    free(compact_path);
    return ok;
}

bool ce_db_latest_version(ce_db *db, uint64_t *out_version)
{
    if (!db_check_handle(db, "ce_db_latest_version")) return false;
    if (!out_version) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_latest_version: arguments are required");
    /* Not during a compaction of this handle by another thread: it replaces
     * the data file whose header lockfile_latest may read. */
    pthread_mutex_lock(&db->mutex);
    while (db->exclusive && !pthread_equal(db->exclusive_thread, pthread_self()))
        pthread_cond_wait(&db->exclusive_over, &db->mutex);
    version_info latest;
    bool ok = lockfile_latest(db, -1, &latest);
    pthread_mutex_unlock(&db->mutex);
    if (ok) *out_version = latest.version;
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Waiting for a change                                                      */
/* ------------------------------------------------------------------------ */

static int64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* The latest version, checked, read with `mutex` held and no compaction
 * running (it replaces the data file that lockfile_latest may read the
 * header of): a compaction of this handle is waited out. */
static bool latest_outside_compaction(ce_db *db, uint64_t *out_version)
{
    while (db->exclusive) pthread_cond_wait(&db->exclusive_over, &db->mutex);
    version_info latest;
    if (!lockfile_latest(db, -1, &latest)) return false;
    *out_version = latest.version;
    return true;
}

bool ce_db_wait_for_change(ce_db *db, uint64_t version, int64_t timeout_ms, bool *out_changed)
{
    if (!db_check_handle(db, "ce_db_wait_for_change")) return false;
    if (!out_changed)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_wait_for_change: db and out_changed are required");
    *out_changed = false;
    if (timeout_ms < -1)
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                          "ce_db_wait_for_change: timeout_ms is %lld (expected -1 for no limit, or 0 or more)",
                          (long long)timeout_ms);
    /* The deadline, saturated: a timeout of centuries is no limit. */
    int64_t deadline = -1;
    if (timeout_ms >= 0) {
        int64_t start = monotonic_ns();
        deadline = timeout_ms > (INT64_MAX - start) / 1000000 ? INT64_MAX : start + timeout_ms * 1000000;
    }
    pthread_mutex_lock(&db->mutex);
    db->waiters++;
    uint64_t generation = db->wake_generation;
    /* A wake that came while no call waited is this call's. */
    bool woken = db->wake_pending;
    db->wake_pending = false;
    bool ok = true;
    for (bool first = true;; first = false) {
        /* The word first: a commit or a wake after this read moves it, and
         * the kernel then refuses the sleep below. */
        uint32_t seen = lockfile_change_word(db->shared);
        uint64_t latest;
        if (!(ok = latest_outside_compaction(db, &latest))) break;
        if (first && version > latest) {
            ok = error_fail(CE_ERR_INVALID_ARGUMENT,
                            "ce_db_wait_for_change: version %llu of '%s' is past the latest version (%llu)",
                            (unsigned long long)version, db->path, (unsigned long long)latest);
            break;
        }
        if (latest != version) {
            *out_changed = true;
            break;
        }
        if (woken || db->wake_generation != generation) break;
        int64_t remaining = -1;
        if (deadline >= 0) {
            remaining = deadline - monotonic_ns();
            if (remaining <= 0) break;
        }
        pthread_mutex_unlock(&db->mutex);
        ok = lockfile_wait_for_signal(db, seen, remaining);
        pthread_mutex_lock(&db->mutex);
        if (!ok) break;
    }
    if (!ok && woken) db->wake_pending = true; /* a failed call did not take it */
    db->waiters--;
    pthread_mutex_unlock(&db->mutex);
    return ok;
}

bool ce_db_wake_waiters(ce_db *db)
{
    if (!db_check_handle(db, "ce_db_wake_waiters")) return false;
    pthread_mutex_lock(&db->mutex);
    if (db->waiters > 0) db->wake_generation++;
    else db->wake_pending = true;
    pthread_mutex_unlock(&db->mutex);
    /* Moves the shared word too, so that a waiter between reading it and
     * sleeping is refused the sleep; waiters of other handles wake too,
     * find nothing for them, and sleep again. */
    lockfile_signal_change(db->shared);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */
/* ------------------------------------------------------------------------ */

/* Counts a transaction that begins; waits while another thread of this
 * handle compacts the file (the file is being replaced under the handle). */
static void enter_transaction(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    while (db->exclusive && !pthread_equal(db->exclusive_thread, pthread_self()))
        pthread_cond_wait(&db->exclusive_over, &db->mutex);
    db->open_transactions++;
    pthread_mutex_unlock(&db->mutex);
}

static void leave_transaction(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    db->open_transactions--;
    pthread_mutex_unlock(&db->mutex);
}

static bool attach_snapshot(ce_txn *txn)
{
    const uint8_t *base;
    pager_state *pager = txn->db->pager;
    /* The file still holds the version (another process may have
     * truncated it): checked before the mapping is read, so that such a
     * file is an error here rather than zeros (fault.h) later. */
    if (!pager_check_file(pager, txn->info.logical_size, true) || !pager_map(pager, txn->info.logical_size, &base))
        return false;
    space_init_read(&txn->space, base, txn->info.logical_size);
    space_set_file(&txn->space, pager);
    if (pager_is_encrypted(pager)) space_set_cipher_reader(&txn->space, pager, txn->info.version, txn->epoch);
    if (txn->db->cipher.page_sums &&
        !pagesum_attach(&txn->space, pager_verifies_page_sums(pager) ? pager : NULL, &txn->info))
        return false;
    new_stamp(txn);
    if (txn->info.top_ref == 0) { /* version 0: the file is being created */
        txn->user_root = txn->free_list_ref = txn->history_ref = 0;
        return true;
    }
    return load_top(txn);
}

/* Links a read transaction into its handle's list (db->mutex held). */
static void link_reader(ce_db *db, ce_txn *txn)
{
    txn->previous_reader = NULL;
    txn->next_reader = db->readers;
    if (db->readers) db->readers->previous_reader = txn;
    db->readers = txn;
}

static void unlink_reader(ce_db *db, ce_txn *txn)
{
    pthread_mutex_lock(&db->mutex);
    if (txn->previous_reader) txn->previous_reader->next_reader = txn->next_reader;
    else if (db->readers == txn) db->readers = txn->next_reader;
    if (txn->next_reader) txn->next_reader->previous_reader = txn->previous_reader;
    txn->next_reader = txn->previous_reader = NULL;
    pthread_mutex_unlock(&db->mutex);
}

/* Begins a read transaction: at the latest version (`at` NULL), or at the
 * version `*at` that a live read transaction of the handle pins. */
static bool begin_read(ce_db *db, const uint64_t *at, ce_txn **out_txn)
{
    ce_txn *txn = new_txn_handle();
    if (!txn) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    txn->db = db;
    enter_transaction(db);
    if (!lockfile_claim_reader_slot(db, &txn->reader_slot)) {
        leave_transaction(db);
        delete_txn_handle(txn);
        return false;
    }
    if (at) {
        /* The version is pinned by `pinning` for as long as we hold the
         * mutex (it unlinks itself under it before it releases its slot, and
         * advances under it): pin it in our slot before letting go. */
        pthread_mutex_lock(&db->mutex);
        ce_txn *pinning = db->readers;
        while (pinning && pinning->info.version != *at) pinning = pinning->next_reader;
        if (pinning) {
            txn->info = pinning->info;
            atomic_store(&db->shared->readers[txn->reader_slot].version, txn->info.version);
        }
        pthread_mutex_unlock(&db->mutex);
        if (!pinning) {
            lockfile_release_reader_slot(db, txn->reader_slot);
            leave_transaction(db);
            delete_txn_handle(txn);
            return error_fail(CE_ERR_WRONG_TRANSACTION_STATE,
                           "cannot begin a read transaction at version %llu of '%s': no live read transaction of this "
                           "handle pins it (a version nobody pins may already be overwritten)",
                           (unsigned long long)*at, db->path);
        }
    } else if (!lockfile_pin_latest(db, txn->reader_slot, &txn->info)) {
        lockfile_release_reader_slot(db, txn->reader_slot);
        leave_transaction(db);
        delete_txn_handle(txn);
        return false;
    }
    if (!pager_begin_reading(db->pager, &txn->epoch) || !attach_snapshot(txn)) {
        pager_end_reading(db->pager, txn->epoch);
        lockfile_release_reader_slot(db, txn->reader_slot);
        leave_transaction(db);
        space_free_ready_pages(&txn->space);
        delete_txn_handle(txn);
        return false;
    }
    pthread_mutex_lock(&db->mutex);
    link_reader(db, txn);
    pthread_mutex_unlock(&db->mutex);
    *out_txn = txn;
    return true;
}

bool ce_txn_begin_read(ce_db *db, ce_txn **out_txn)
{
    if (!db_check_handle(db, "ce_txn_begin_read") || !db_check_process(db, "ce_txn_begin_read")) return false;
    if (!out_txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_begin_read: arguments are required");
    return begin_read(db, NULL, out_txn);
}

bool ce_txn_begin_read_at(ce_db *db, uint64_t version, ce_txn **out_txn)
{
    if (!db_check_handle(db, "ce_txn_begin_read_at") || !db_check_process(db, "ce_txn_begin_read_at")) return false;
    if (!out_txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_begin_read_at: arguments are required");
    return begin_read(db, &version, out_txn);
}

bool ce_txn_advance(ce_txn *txn)
{
    if (!db_txn_check(txn, "ce_txn_advance") || !db_check_process(txn->db, "ce_txn_advance")) return false;
    if (txn->write) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot advance a write transaction");
    ce_db *db = txn->db;
    release_layer_state(txn);
    /* The new version is pinned in a second slot, and the old slot let go
     * only once the new snapshot is attached: if attaching fails (the file
     * cannot be mapped that far), the transaction stays on its version,
     * which its own slot kept pinned all along, so no writer reused it. */
    int next_slot;
    if (!lockfile_claim_reader_slot(db, &next_slot)) return false;
    version_info previous = txn->info;
    int previous_slot = txn->reader_slot;
    uint64_t previous_epoch = txn->epoch;
    /* Pointers from before the advance are no longer valid: a new epoch. */
    if (!pager_begin_reading(db->pager, &txn->epoch)) {
        txn->epoch = previous_epoch;
        lockfile_release_reader_slot(db, next_slot);
        return false;
    }
    /* Under the mutex: ce_txn_begin_read_at reads `info` of the handle's readers. */
    pthread_mutex_lock(&db->mutex);
    version_info pinned;
    bool pinned_ok = lockfile_pin_latest(db, next_slot, &pinned);
    if (pinned_ok) {
        txn->info = pinned;
        txn->reader_slot = next_slot;
    }
    pthread_mutex_unlock(&db->mutex);
    if (!pinned_ok) {
        /* The transaction stays on its version, which its slot pins. */
        pager_end_reading(db->pager, txn->epoch);
        txn->epoch = previous_epoch;
        lockfile_release_reader_slot(db, next_slot);
        error_saved saved;
        error_save(&saved);
        attach_snapshot(txn);
        return error_restore(&saved);
    }
    if (!attach_snapshot(txn)) {
        /* Back to the previous snapshot, which the old slot kept pinned
         * (its error is the one reported; mapping and reading that
         * version worked before). */
        pager_end_reading(db->pager, txn->epoch);
        txn->epoch = previous_epoch;
        pthread_mutex_lock(&db->mutex);
        txn->info = previous;
        txn->reader_slot = previous_slot;
        pthread_mutex_unlock(&db->mutex);
        lockfile_release_reader_slot(db, next_slot);
        error_saved saved;
        error_save(&saved);
        attach_snapshot(txn);
        return error_restore(&saved);
    }
    lockfile_release_reader_slot(db, previous_slot);
    pager_end_reading(db->pager, previous_epoch);
    return true;
}

void db_txn_release_pages(ce_txn *txn)
{
    if (!pager_is_encrypted(txn->db->pager)) return;
    uint64_t previous = txn->epoch, epoch;
    /* Out of memory: the pages stay (the cache is then over its limit). */
    if (!pager_begin_reading(txn->db->pager, &epoch)) return;
    txn->epoch = epoch;
    space_set_read_epoch(&txn->space, txn->epoch);
    pager_end_reading(txn->db->pager, previous);
}

/* Takes the write lock: first among this handle's threads, then among
 * handles and processes (an exclusive lock on byte 1 of the lock file). */
static bool acquire_writer(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    if (db->writer_busy && pthread_equal(db->writer_thread, pthread_self())) {
        /* Waiting would wait for ourselves forever. */
        pthread_mutex_unlock(&db->mutex);
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "The Realm is already in a write transaction");
    }
    while (db->writer_busy) pthread_cond_wait(&db->writer_free, &db->mutex);
    db->writer_busy = true;
    db->writer_thread = pthread_self();
    pthread_mutex_unlock(&db->mutex);
    if (!os_lock_range(db->lock_fd, WRITER_LOCK_BYTE, 1, true, true, NULL, db->lock_path)) {
        pthread_mutex_lock(&db->mutex);
        db->writer_busy = false;
        pthread_cond_signal(&db->writer_free);
        pthread_mutex_unlock(&db->mutex);
        return false;
    }
    return true;
}

/* acquire_writer without waiting: the write lock if nobody holds it, else
 * false with *out_busy set and no error (another thread of this handle, a
 * compaction of it, another handle or another process has it). Enters the
 * transaction count too (enter_transaction, which may wait, is skipped). */
static bool try_acquire_writer(ce_db *db, bool *out_busy)
{
    pthread_mutex_lock(&db->mutex);
    if (db->writer_busy || (db->exclusive && !pthread_equal(db->exclusive_thread, pthread_self()))) {
        pthread_mutex_unlock(&db->mutex);
        *out_busy = true;
        return false;
    }
    db->open_transactions++;
    db->writer_busy = true;
    db->writer_thread = pthread_self();
    pthread_mutex_unlock(&db->mutex);
    if (os_lock_range(db->lock_fd, WRITER_LOCK_BYTE, 1, true, false, out_busy, db->lock_path)) return true;
    pthread_mutex_lock(&db->mutex);
    db->writer_busy = false;
    db->open_transactions--;
    pthread_cond_signal(&db->writer_free);
    pthread_mutex_unlock(&db->mutex);
    return false;
}

static void release_writer(ce_db *db)
{
    os_unlock_range(db->lock_fd, WRITER_LOCK_BYTE, 1, db->lock_path);
    pthread_mutex_lock(&db->mutex);
    db->writer_busy = false;
    pthread_cond_signal(&db->writer_free);
    pthread_mutex_unlock(&db->mutex);
}

/* A writer that died after writing its slot but before publishing leaves
 * the header ahead of the lock file (and committing_version set): adopt the
 * header's slot if it is whole. A commit that failed cleanly clears the
 * mark, so its slot is never adopted. */
static bool catch_up_with_header(ce_db *db, version_info *latest)
{
    if (atomic_load(&db->shared->committing_version) == 0) return true;
    atomic_store(&db->shared->committing_version, 0);
    if (latest->version == 0) return true;
    uint64_t file_size;
    uint8_t *pages = malloc(2 * PAGE_SIZE_BYTES);
    slot_record *slot = malloc(sizeof *slot);
    bool ok = pages && slot;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the header of '%s'", db->path);
    ok = ok && pager_file_size(db->pager, &file_size) && pager_read(db->pager, PAGE_SIZE_BYTES, pages, 2 * PAGE_SIZE_BYTES);
    for (int i = 0; ok && i < 2; i++) {
        if (header_decode_slot_page(pages + (size_t)i * PAGE_SIZE_BYTES, file_size, slot, db->pager) &&
            slot->info.version == latest->version + 1) {
            *latest = slot->info;
            lockfile_publish_latest(db->shared, latest);
            lockfile_note_confirmed(db, latest);
        }
    }
    free(pages);
    free(slot);
    return ok;
}

/* ce_txn_begin_write, or with out_busy ce_txn_try_begin_write: then a
 * held lock returns false with *out_busy set and no error. */
static bool begin_write(ce_db *db, ce_txn **out_txn, const char *name, bool *out_busy)
{
    if (!db_check_handle(db, name) || !db_check_process(db, name)) return false;
    if (!out_txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: arguments are required", name);
    if (db->options.immutable)
        return error_fail(CE_ERR_READ_ONLY, "cannot write to '%s': it was opened immutable (read-only, without a lock file)",
                          db->path);
    if (db->options.read_only) return error_fail(CE_ERR_READ_ONLY, "cannot write to '%s': it was opened read-only", db->path);
    ce_txn *txn = new_txn_handle();
    if (!txn) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    txn->db = db;
    txn->write = true;
    txn->reader_slot = -1;
    if (out_busy) {
        if (!try_acquire_writer(db, out_busy)) {
            delete_txn_handle(txn);
            return false;
        }
    } else {
        enter_transaction(db);
        if (!acquire_writer(db)) {
            leave_transaction(db);
            delete_txn_handle(txn);
            return false;
        }
    }
    version_info latest;
    uint64_t oldest, active, reuse_limit;
    space_free_extent *free_list = NULL;
    size_t free_count = 0;
    if (!lockfile_latest(db, -1, &latest) || !catch_up_with_header(db, &latest) ||
        !lockfile_scan_readers(db, latest.version, &oldest, &active) || !group_reuse_limit(db, &latest, &reuse_limit))
        goto fail;
    /* Space freed after the durable version waits for it too (group.h). */
    if (reuse_limit < oldest) oldest = reuse_limit;
    if (db->options.max_active_versions > 0 && active > db->options.max_active_versions) {
        error_fail(CE_ERR_TOO_MANY_VERSIONS, "Number of active versions (%llu) in the Realm exceeded the limit of %llu",
                (unsigned long long)active, (unsigned long long)db->options.max_active_versions);
        goto fail;
    }
    txn->info = latest;
    if (!pager_begin_reading(db->pager, &txn->epoch) || !attach_snapshot(txn) ||
        !db_load_free_list(txn, &free_list, &free_count))
        goto fail;
    /* The snapshot's read view (its cipher reader included) becomes writable. */
    if (!space_init_write(&txn->space, free_list, free_count, oldest, latest.version + 1)) goto fail;
    free(free_list);
    *out_txn = txn;
    return true;
fail:
    free(free_list);
    space_release(&txn->space);
    space_free_ready_pages(&txn->space);
    pager_end_reading(db->pager, txn->epoch);
    release_writer(db);
    leave_transaction(db);
    delete_txn_handle(txn);
    return false;
}

bool ce_txn_begin_write(ce_db *db, ce_txn **out_txn) { return begin_write(db, out_txn, "ce_txn_begin_write", NULL); }

bool ce_txn_try_begin_write(ce_db *db, ce_txn **out_txn)
{
    bool busy = false;
    if (begin_write(db, out_txn, "ce_txn_try_begin_write", &busy)) return true;
    if (!busy) return false;
    *out_txn = NULL;
    return true;
}

bool ce_txn_is_write(const ce_txn *txn) { return db_txn_check(txn, "ce_txn_is_write") && txn->write; }
uint64_t ce_txn_version(const ce_txn *txn) { return db_txn_check(txn, "ce_txn_version") ? txn->info.version : 0; }

space_state *db_txn_space(ce_txn *txn) { return &txn->space; }

ce_db *db_txn_db(const ce_txn *txn) { return txn->db; }

bool db_txn_flush_layer(ce_txn *txn)
{
    if (!txn->write) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "only a write transaction buffers changes");
    return !txn->before_commit || txn->before_commit(txn, txn->layer_state);
}
space_ref db_txn_root(const ce_txn *txn) { return txn->user_root; }
space_ref db_txn_history(const ce_txn *txn) { return txn->history_ref; }

bool db_txn_set_history(ce_txn *txn, space_ref history)
{
    if (!db_txn_require_write(txn)) return false;
    txn->history_ref = history;
    return true;
}

bool db_txn_require_write(const ce_txn *txn)
{
    if (!txn || !txn->write)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "Cannot modify managed objects outside of a write transaction.");
    uint64_t pid = current_pid();
    return !db_forked(txn->db, pid) || fork_refused(txn->db, pid, "writing");
}

bool db_txn_set_root(ce_txn *txn, space_ref root)
{
    if (!db_txn_require_write(txn)) return false;
    txn->user_root = root;
    new_stamp(txn);
    return true;
}

static void end_transaction(ce_txn *txn)
{
    ce_db *db = txn->db;
    release_layer_state(txn);
    if (db_forked(db, current_pid())) {
        /* Begun by the parent before fork(): its writer lock and reader
         * slot stay the parent's; the child frees only its memory. */
        if (txn->write) space_release(&txn->space);
        space_free_ready_pages(&txn->space);
        db->open_transactions--;
        delete_txn_handle(txn);
        return;
    }
    if (txn->write) {
        pagesum_release(txn);
        space_release(&txn->space);
        release_writer(db);
    } else {
        unlink_reader(db, txn);
        lockfile_release_reader_slot(db, txn->reader_slot);
    }
    space_free_ready_pages(&txn->space);
    pager_end_reading(db->pager, txn->epoch);
    leave_transaction(db);
    delete_txn_handle(txn);
}

void ce_txn_end(ce_txn *txn)
{
    /* A second end of the same transaction: an error, not a double free. */
    if (txn && db_txn_check(txn, "ce_txn_end")) end_transaction(txn);
}

/* ------------------------------------------------------------------------ */
/* Commit                                                                    */
/* ------------------------------------------------------------------------ */

size_t db_commit_stream_window = DB_COMMIT_STREAM_WINDOW;

/* The sink of a streamed commit (space_set_stream): writes a piece of the
 * new version's nodes into free space while the rest is placed. Nothing
 * reads those pages until a slot names the version, and the commit syncs
 * them before its slot (write_new_version). */
static bool write_streamed(void *context, const pager_write_run *runs, size_t count)
{
    ce_txn *txn = context;
    ce_db *db = txn->db;
    if (!space_streamed(&txn->space)) {
        /* The first piece: as write_new_version checks and marks before it
         * writes. */
        if (!pager_check_file(db->pager, txn->info.logical_size, false) ||
            !pager_file_size(db->pager, &txn->streamed_from))
            return false;
        atomic_store(&db->shared->committing_version, txn->info.version + 1);
        /* A plain file's pieces are written on a thread of their own while
         * the next are placed (an encrypted file's need the cipher, which
         * this thread may use meanwhile); without the thread, here. */
        if (!pager_is_encrypted(db->pager) && !backwrite_start(db->pager, &txn->background))
            txn->background = NULL;
    }
    if (db->cipher.page_sums) return pagesum_write_runs(txn, runs, count, false, txn->background);
    return txn->background ? backwrite_put(txn->background, runs, count) : pager_write_runs(db->pager, runs, count);
}

/* After build_new_version, whether it succeeded or not: the streamed
 * pieces are all written (or one failed) and the writer's thread ended.
 * `ok`: build_new_version's result, whose error stays first. */
static bool finish_streamed_pieces(ce_txn *txn, bool ok)
{
    if (!txn->background) return ok;
    error_saved saved;
    error_save(&saved);
    bool written = backwrite_finish(txn->background);
    txn->background = NULL;
    if (!ok) return error_restore(&saved);
    return written;
}

/* Places every dirty node of the new version and fills in the free list.
 * On return the space holds the bytes to write and `out_info` the version;
 * a large commit has written part of them already (write_streamed). */
static bool build_new_version(ce_txn *txn, version_info *out_info)
{
    space_state *space = &txn->space;
    uint64_t new_version = txn->info.version + 1;
    if (txn->info.top_ref && !node_free(space, txn->info.top_ref)) return false;
    if (txn->free_list_ref && !node_free(space, txn->free_list_ref)) return false;
    uint64_t sums_bytes = 0; /* page checksums: new pages of them and a new directory */
    if (txn->db->cipher.page_sums && !pagesum_prepare(txn, &sums_bytes)) return false;
    /* Every committed range this transaction frees is known now: merge them
     * into the free list before anything is placed. */
    if (!space_commit_prepare(space)) return false;
    size_t free_count;
    space_free_list(space, &free_count);
    space_set_stream(space, db_commit_stream_window, write_streamed, txn);
    /* The free list may gain the gap entry of space_plan_placement: +2. */
    if (!space_plan_placement(space, node_dirty_size_bound(space) + node_size_for(64, TOP_COUNT) +
                                         node_size_for(64, 3 * (free_count + 2)) + sums_bytes))
        return false;
    if (txn->db->cipher.page_sums && !pagesum_place(txn)) return false;
    /* The nodes of the trees are written as they are placed once a window
     * of them is staged; the pages of checksums placed above and the free
     * list and top placed below are written last (they are filled late). */
    space_ref root = 0, history = 0;
    space_stream_begin(space);
    if (txn->user_root && !node_finalize_tree(space, txn->user_root, &root)) return false;
    if (txn->history_ref && !node_finalize_tree(space, txn->history_ref, &history)) return false;
    space_stream_end(space);

    /* The free list describes the space after every placement, including its
     * own: reserve it first, place the top, then fill it in. Placing adds at
     * most one entry (the gap of an appended commit), so the current count
     * plus two is an upper bound; its width holds every position, size and
     * version it can hold (the end of the file grows by at most the list, the
     * gap and the top: a megabyte of margin). */
    space_free_list(space, &free_count);
    size_t reserved_entries = free_count + 2;
    uint64_t largest_value = space->placement_end + node_size_for(64, 3 * reserved_entries) + (1u << 20);
    if (new_version > largest_value) largest_value = new_version;
    uint8_t list_width = node_width_for((int64_t)largest_value);
    uint64_t list_size = node_size_for(list_width, 3 * reserved_entries);
    uint64_t list_position;
    uint8_t *list_bytes;
    if (!space_place(space, list_size, false, &list_position, &list_bytes)) return false;

    space_ref top;
    bool sums = txn->db->cipher.page_sums;
    if (!node_create(space, NODE_HAS_REFS, sums ? TOP_COUNT_PAGE_SUMS : TOP_COUNT, 0, &top)) return false;
    if ((sums && !node_set(space, top, TOP_PAGE_SUMS, (int64_t)pagesum_directory(txn))) ||
        !node_set(space, top, TOP_USER_ROOT, (int64_t)root) ||
        !node_set(space, top, TOP_FREE_LIST, (int64_t)list_position) ||
        !node_set(space, top, TOP_VERSION, node_tag((int64_t)new_version)) ||
        !node_set(space, top, TOP_HISTORY, (int64_t)history))
        return false;
    space_ref top_final;
    if (!node_finalize_tree(space, top, &top_final)) return false;

    const space_free_extent *extents = space_free_list(space, &free_count);
    if (free_count > reserved_entries || space->placement_end > largest_value)
        return error_fail(CE_ERR_FAIL, "internal error: the free list outgrew its reservation");
    list_bytes = space_placed_buffer(space, list_position);
    memset(list_bytes, 0, (size_t)list_size);
    node_encode_header(list_bytes, 0, list_width, (uint32_t)(3 * reserved_entries));
    uint8_t *entries = list_bytes + NODE_HEADER_SIZE;
    size_t written = 0;
    for (size_t i = 0; i < free_count; i++) {
        if (extents[i].size == 0) continue; /* a range placement used up */
        node_encode_element(entries, list_width, 3 * written, (int64_t)extents[i].position);
        node_encode_element(entries, list_width, 3 * written + 1, (int64_t)extents[i].size);
        node_encode_element(entries, list_width, 3 * written + 2, (int64_t)extents[i].freed_in_version);
        written++;
    }
    *out_info = (version_info){new_version, top_final, space->placement_end};
    return true;
}

/* Writes the nodes of the new version, then hands its slot to group.c:
 * a grouped commit joins the pending group (no slot yet), another one
 * writes and syncs its slot, which covers the pending group too. */
static bool write_new_version(ce_txn *txn, const version_info *info, bool grouped)
{
    ce_db *db = txn->db;
    pager_write_run *runs = NULL;
    size_t run_count = 0;
    bool ok = space_write_runs(&txn->space, &runs, &run_count);
    if (ok) {
        atomic_store(&db->shared->committing_version, info->version);
        ok = pager_ensure_size_for_runs(db->pager, info->logical_size, runs, run_count,
                                        space_streamed(&txn->space) ? txn->streamed_from : 0) &&
             (db->cipher.page_sums ? pagesum_write_runs(txn, runs, run_count, true, NULL)
                                   : pager_write_runs(db->pager, runs, run_count));
    }
    /* New pages of checksums are rewritten in place by the commits after
     * this one: no slot may list them as this commit's bytes. Nor the runs
     * of a streamed commit, whose bytes are no longer at hand for the
     * slot's checksum: either is synced before its slot. */
    bool listable = !(db->cipher.page_sums && pagesum_places_pages(txn)) && !space_streamed(&txn->space);
    if (ok)
        ok = grouped ? group_add_commit(db, &txn->info, info, runs, run_count, listable)
                     : group_commit_durably(db, &txn->info, info, runs, run_count, listable);
    free(runs);
    return ok;
}

static bool commit(ce_txn *txn, bool grouped, uint64_t *out_version)
{
    if (!db_txn_check(txn, "ce_txn_commit") || !db_check_process(txn->db, "ce_txn_commit")) return false;
    /* A failed commit never ends the transaction: the caller still ends it. */
    if (!txn->write) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot commit a read transaction");
    if (txn->commit_failed)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE,
                       "a write transaction whose commit failed cannot commit again: end it with ce_txn_end");
    ce_db *db = txn->db;
    /* Without full durability a grouped commit is any commit: nothing
     * waits for a sync either way. */
    if (db->options.durability != CE_DURABILITY_FULL) grouped = false;
    version_info info = {0};
    /* pager_check_file: nothing this transaction read came from past the
     * end of a truncated file (zeros would be committed as data). The
     * version is published by write_new_version (group.c). */
    bool ok = (!txn->before_commit || txn->before_commit(txn, txn->layer_state)) &&
              finish_streamed_pieces(txn, build_new_version(txn, &info)) &&
              pager_check_file(db->pager, txn->info.logical_size, false) &&
              write_new_version(txn, &info, grouped);
    atomic_store(&db->shared->committing_version, 0);
    /* A failed commit may have placed part of the new version in free
     * space (never published): the transaction is kept only to be ended,
     * which rolls it back and releases the writer. */
    if (ok) {
        end_transaction(txn);
        if (out_version) *out_version = info.version;
    } else {
        txn->commit_failed = true;
    }
    return ok;
}

bool ce_txn_commit(ce_txn *txn) { return commit(txn, false, NULL); }

bool ce_txn_commit_grouped(ce_txn *txn, uint64_t *out_version) { return commit(txn, true, out_version); }

bool ce_db_sync(ce_db *db, uint64_t version)
{
    if (!db) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_sync: db is required");
    if (!db_check_process(db, "ce_db_sync")) return false;
    /* Counted as a transaction: a compaction (which replaces the file)
     * neither starts during a sync nor lets one start. */
    enter_transaction(db);
    bool ok = group_sync(db, version);
    leave_transaction(db);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* ------------------------------------------------------------------------ */
/* Space usage, and exclusive access for compaction                          */
/* ------------------------------------------------------------------------ */

bool db_txn_space_usage(ce_txn *txn, db_space_usage *out_usage)
{
    memset(out_usage, 0, sizeof *out_usage);
    space_free_extent *free_list = NULL;
    size_t free_count = 0;
    if (!pager_file_size(txn->db->pager, &out_usage->file_size) || !db_load_free_list(txn, &free_list, &free_count))
        return false;
    uint64_t free_bytes = 0;
    for (size_t i = 0; i < free_count; i++) free_bytes += free_list[i].size;
    free(free_list);
    /* The db layer's own nodes: the top and the free list. */
    uint64_t own_bytes = 0;
    node_view node;
    if (txn->info.top_ref) {
        if (!node_read(&txn->space, txn->info.top_ref, &node)) return false;
        own_bytes += node_size(&node);
    }
    if (txn->free_list_ref) {
        if (!node_read(&txn->space, txn->free_list_ref, &node)) return false;
        own_bytes += node_size(&node);
    }
    own_bytes += pagesum_bytes(&txn->space); /* the directory and pages of checksums */
    uint64_t logical = txn->info.logical_size;
    if (free_bytes > logical - CE_HEADER_SIZE || own_bytes > logical - CE_HEADER_SIZE - free_bytes)
        return error_fail(CE_ERR_CORRUPT,
                       "invalid database: the free list of '%s' holds more bytes (%llu) than the file has free",
                       txn->db->path, (unsigned long long)free_bytes);
    out_usage->logical_size = logical;
    out_usage->free_bytes = free_bytes;
    out_usage->data_bytes = logical - CE_HEADER_SIZE - free_bytes - own_bytes;
    out_usage->compacted_size =
        pager_physical_size(txn->db->pager, writer_copy_size(txn->db, CE_HEADER_SIZE + out_usage->data_bytes));
    return true;
}

void db_cache_usage(ce_db *db, uint64_t *out_pages, uint64_t *out_limit_pages)
{
    pager_cache_usage(db->pager, out_pages, out_limit_pages);
}

bool db_holds_key(const ce_db *db)
{
    uint8_t any = 0;
    for (size_t i = 0; i < sizeof db->key; i++) any |= db->key[i];
    return any != 0;
}

bool db_begin_exclusive(ce_db *db)
{
    if (!db_check_process(db, "compacting")) return false;
    if (db->options.read_only)
        return error_fail(CE_ERR_READ_ONLY, "cannot compact '%s': it was opened read-only", db->path);
    pthread_mutex_lock(&db->mutex);
    size_t open_transactions = db->open_transactions;
    bool busy = db->exclusive;
    if (open_transactions == 0 && !busy) {
        db->exclusive = true;
        db->exclusive_thread = pthread_self();
    }
    pthread_mutex_unlock(&db->mutex);
    if (busy) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "'%s' is being compacted by another thread", db->path);
    if (open_transactions > 0)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot compact '%s': %zu transactions of the handle are open",
                       db->path, open_transactions);
    /* Every handle holds byte 0 shared: an exclusive lock is granted only
     * when this handle is the only one (in any process). */
    bool others;
    if (os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, true, false, &others, db->lock_path)) return true;
    if (others)
        error_fail(CE_ERR_ALREADY_OPEN, "cannot compact '%s': it is open in another handle or process", db->path);
    pthread_mutex_lock(&db->mutex);
    db->exclusive = false;
    pthread_cond_broadcast(&db->exclusive_over);
    pthread_mutex_unlock(&db->mutex);
    return false;
}

void db_end_exclusive(ce_db *db)
{
    /* Back to shared (waiting: nobody else can hold it now). A failure
     * would leave the byte exclusive: other handles would wait to open. */
    os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, false, true, NULL, db->lock_path);
    pthread_mutex_lock(&db->mutex);
    db->exclusive = false;
    pthread_cond_broadcast(&db->exclusive_over);
    pthread_mutex_unlock(&db->mutex);
}

