/*
 * db_internal.h — the handle and the transaction, for the files of the db
 * layer only (db.c, group.c, header.c, lockfile.c, verify.c,
 * writer.c).
 *
 * Owns: the fields of ce_db and ce_txn, the version record (version_info),
 * the cipher's header fields (cipher_header) and the elements of a top
 * node.
 * Never: is included above the db layer: the layers above see the handle
 * and the transaction through db.h and cengine.h.
 */
#ifndef CE_DB_INTERNAL_H
#define CE_DB_INTERNAL_H

#include "cengine.h"
#include "crypt.h"
#include "pager.h"
#include "space.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A version as a header slot and the lock file name it. */
typedef struct version_info {
    uint64_t version;
    space_ref top_ref;
    uint64_t logical_size;
} version_info;

/* What the static page says about encryption (header.c reads and writes
 * it; nothing secret: the salt and the key check value are stored in the
 * file). */
typedef struct cipher_header {
    bool encrypted;
    uint8_t salt[CRYPT_SALT_SIZE];
    uint8_t key_check[CRYPT_CHECK_SIZE];
    uint32_t group_pages; /* data pages per metadata page */
    bool page_sums;       /* a plain file with page checksums (pagesum.h) */
} cipher_header;

/* The lock file's shared memory (lockfile.h). */
typedef struct shared_state shared_state;

/* The top node of a version. */
enum { TOP_USER_ROOT = 0, TOP_FREE_LIST = 1, TOP_VERSION = 2, TOP_HISTORY = 3, TOP_COUNT = 4 };

/* The first field of a ce_db and a ce_txn: DB_HANDLE_LIVE / TXN_HANDLE_LIVE
 * while the handle is open, *_ENDED once closed or ended (db.c keeps the
 * memory: see db_check_handle). */
#define DB_HANDLE_LIVE 0x4F5244424C495645ull  /* "EVILBDRO" little-endian: live db */
#define TXN_HANDLE_LIVE 0x4F5254584C495645ull /* live txn */
#define HANDLE_ENDED 0x4F52454E44454421ull    /* closed or ended */

struct ce_db {
    uint64_t magic;
    ce_db *pool_next; /* while in db.c's pool of closed handles */
    char *path;
    char *lock_path;
    pager_state *pager;
    /* The user's key, from ce_db_open until the keys are derived (then
     * wiped); never written anywhere. */
    uint8_t key[CRYPT_KEY_SIZE];
    bool key_given;
    cipher_header cipher; /* what the static page says */
    int lock_fd;
    shared_state *shared;
    size_t shared_size;
    ce_db_options options;
    uint64_t pid;
    pthread_mutex_t mutex;        /* guards the fields below */
    pthread_cond_t writer_free;
    bool writer_busy;             /* a thread of this handle holds the write lock */
    pthread_t writer_thread;      /* which one, while writer_busy */
    size_t open_transactions;
    /* Compaction: while `exclusive` is set, the handle holds the lock file's
     * byte 0 exclusively and only `exclusive_thread` may begin transactions
     * (the others wait on `exclusive_over`). */
    bool exclusive;
    pthread_t exclusive_thread;
    /* This handle set up the lock file: no other handle had the database
     * open when it opened (lockfile.c, initialize_as_first). */
    bool opened_first;
    pthread_cond_t exclusive_over;
    /* ce_db_wait_for_change: how many calls are in progress (ce_db_close
     * refuses while any is), and ce_db_wake_waiters: each call bumps the
     * generation those calls entered with, or, when none is in progress,
     * leaves one wake pending for the next call. */
    size_t waiters;
    uint64_t wake_generation;
    bool wake_pending;
    /* The live read transactions of this handle (see ce_txn_begin_read_at):
     * linked and unlinked under `mutex`, and their `info` changes under it. */
    ce_txn *readers;
    /* The last latest version this handle saw confirmed by the data file's
     * header (lockfile_latest), under its own mutex: lockfile_latest runs
     * with `mutex` held too. */
    pthread_mutex_t confirmed_mutex;
    version_info confirmed;
    bool confirmed_valid;
    /* Group commit (group.c): a thread of this handle holds the sync lock
     * (under `mutex`; the lock file's byte is per open file description,
     * so it does not keep this handle's threads apart), signalled on
     * `sync_free` when it lets go; and the mutex taken before the lock
     * file's group byte, for the same reason. */
    bool sync_busy;
    pthread_cond_t sync_free;
    /* The sync record holds a version (this handle read or wrote it after
     * a durable slot: group.c, vouch_first_slot); under the sync lock. */
    bool sync_record_seen;
    /* The data file's device and inode: at open, and after each compaction
     * of this handle (writer_replace_file) (db_file_id). */
    uint64_t file_device, file_inode;
    /* This handle's identity token: unique in the process (never reused,
     * unlike the handle's address) and kept when the handle compacts its
     * file, so that what was made on the file before the compaction is
     * known as made on it; and a hash of the path (db_txn_check_file). */
    uint64_t file_token, path_hash;
    pthread_mutex_t group_mutex;
};

struct ce_txn {
    uint64_t magic;
    ce_txn *pool_next; /* while in db.c's pool of ended transactions */
    ce_db *db;
    bool write;
    version_info info; /* the version read; for a write, the one it builds on */
    int reader_slot;   /* -1 for a write transaction */
    space_state space;
    uint64_t epoch; /* the pager's reader epoch (encrypted files; 0 otherwise) */
    space_ref user_root;
    space_ref free_list_ref;
    space_ref history_ref;
    void *layer_state;                 /* see db_txn_set_layer_state */
    void (*release_layer_state)(void *state);
    uint64_t stamp;                    /* see db_txn_stamp */
    bool (*before_commit)(ce_txn *txn, void *state); /* see db_txn_set_before_commit */
    bool commit_failed; /* a commit failed: only ce_txn_end may follow (it rolls back) */
    ce_txn *next_reader, *previous_reader;           /* ce_db.readers */
    struct pagesum_commit *page_sums; /* a commit's page checksums (pagesum.c) */
    uint64_t streamed_from;           /* a streamed commit: the file's size before its first piece */
    struct backwrite_state *background; /* a streamed commit: the thread writing its pieces (backwrite.h), or NULL */
};

/* The free list of the version a transaction reads (NULL and 0 if it has
 * none), checked; the caller frees the list. */
bool db_load_free_list(ce_txn *txn, space_free_extent **out_list, size_t *out_count);

#endif
