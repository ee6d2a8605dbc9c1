/*
 * db.h — the transaction layer, as the layers above see it.
 *
 * Owns: what the files above the db layer (the objects and query layers,
 * compact.c) may ask of a transaction: its address space, the two refs
 * they own (the user root and the history root, stored in the top node of
 * each version), its stamp, the layer state and its before-commit call, and
 * exclusive access for compaction.
 * Never: shows the fields of the handle or the transaction
 * (db_internal.h), the header or the lock file.
 *
 * The public half of this layer (ce_db_open, ce_txn_begin_read, ...) is in
 * cengine.h.
 */
#ifndef CE_DB_H
#define CE_DB_H

#include "cengine.h"
#include "space.h"

/* The address space of a transaction (dirty nodes for a write). */
space_state *db_txn_space(ce_txn *txn);

/* The root of the data above the db layer (0 in a new file). */
space_ref db_txn_root(const ce_txn *txn);

/* Replaces the root (write transactions). The old tree is the caller's to
 * free or keep. */
bool db_txn_set_root(ce_txn *txn, space_ref root);

/* A slot where the layer above keeps what it derived from the version the
 * transaction sees (the parsed schema). `release` is called when the
 * transaction ends or advances to another version. */
void *db_txn_layer_state(const ce_txn *txn);

/* Whether `db` / `txn` is an open handle: CE_ERR_INVALID_ARGUMENT naming
 * `call` for NULL, a closed handle or an ended transaction. The memory of
 * closed and ended handles is kept (and reused only for a new handle of
 * the same kind), so the check reads no freed memory; a stale pointer whose
 * memory a new handle took is that new handle and cannot be told apart. */
bool db_check_handle(const ce_db *db, const char *call);
bool db_txn_check(const ce_txn *txn, const char *call);
/* Whether `db` was opened by this process: a handle inherited through
 * fork() is CE_ERR_WRONG_TRANSACTION_STATE naming both pids (db.c). */
bool db_check_process(const ce_db *db, const char *call);
void db_txn_set_layer_state(ce_txn *txn, void *state, void (*release)(void *state));

/* A number that changes whenever what the transaction sees may have
 * changed: when it begins or advances, and whenever a write transaction sets
 * its root (every change of the objects layer does, through the group).
 * Never reused within the process, so what a layer above computed at one
 * stamp (a query's results) stays right while the stamp is the same. */
uint64_t db_txn_stamp(const ce_txn *txn);

/* A call the commit makes first, with the layer state (the objects layer
 * flushes the objects it buffered); its failure fails the commit. Cleared
 * with the layer state. */
void db_txn_set_before_commit(ce_txn *txn, bool (*before_commit)(ce_txn *txn, void *state));

/* The database of a transaction. */
ce_db *db_txn_db(const ce_txn *txn);

/* What a query or results view remembers of the database file it was made
 * on: the handle's identity token (which the handle keeps through its own
 * compactions), the data file's device and inode then, and a hash of its
 * path. */
typedef struct db_file_id {
    uint64_t token, device, inode, path_hash;
} db_file_id;
db_file_id db_txn_file_id(const ce_txn *txn);

/* Whether `txn` reads the file `id` names: the same handle (before or after
 * it compacted the file), or another handle on the same data file.
 * Otherwise CE_ERR_INVALID_ARGUMENT naming the transaction's file (a table
 * key of one file means nothing in another), saying so when the path is
 * the same but the file is not: compacted by another handle or process, or
 * replaced, since. */
bool db_txn_check_file(const ce_txn *txn, const db_file_id *id);

/* Write transactions: runs the before-commit call now (the objects layer
 * puts the objects it buffered into its trees), so that the transaction's
 * trees hold every change, as a copy of it must. The transaction goes on. */
bool db_txn_flush_layer(ce_txn *txn);

/* Fails with CE_ERR_WRONG_TRANSACTION_STATE unless txn is a write transaction. */
bool db_txn_require_write(const ce_txn *txn);

/* Encrypted files: declares that the transaction holds no pointer into
 * the file it got so far, so that the decrypted pages it read may leave the
 * cache (a copy reads a whole file in one transaction). No effect on a
 * plain file. */
void db_txn_release_pages(ce_txn *txn);

/* The root of the change history (0: none), the other tree a version holds
 * besides the user root. */
space_ref db_txn_history(const ce_txn *txn);

/* Replaces the history root (write transactions; history.c, from the
 * before-commit call). The old tree is the caller's to free or keep. */
bool db_txn_set_history(ce_txn *txn, space_ref history);

/* How the space of the version a transaction reads is used. */
typedef struct db_space_usage {
    uint64_t file_size;      /* bytes the file occupies on disk */
    uint64_t logical_size;   /* the version's logical size (header included) */
    uint64_t free_bytes;     /* in the version's free list */
    uint64_t data_bytes;     /* in the trees of the user root and the history (a copy leaves the history out) */
    uint64_t compacted_size; /* about the size on disk of a compacted copy (header, data, top node) */
} db_space_usage;
bool db_txn_space_usage(ce_txn *txn, db_space_usage *out_usage);

/* For tests and benchmarks: the decrypted pages the handle's cache holds
 * and its limit (0 and 0 for a plain file), and whether the handle still
 * holds any byte of the user's key (it must not once open returned). */
void db_cache_usage(ce_db *db, uint64_t *out_pages, uint64_t *out_limit_pages);
bool db_holds_key(const ce_db *db);

/* --- exclusive access (compaction in place: writer_replace_file) --- */

/* Makes this handle the only one on the file: fails with
 * CE_ERR_ALREADY_OPEN if another handle (in any process) has it open, and
 * with CE_ERR_WRONG_TRANSACTION_STATE if a transaction of this handle is
 * open. Until db_end_exclusive, other handles wait to open the file and
 * other threads of this handle wait to begin transactions. */
bool db_begin_exclusive(ce_db *db);
void db_end_exclusive(ce_db *db);

/* A commit whose placed bytes reach this many is written in pieces of
 * about this size while it is placed (space_set_stream), instead of from
 * one staging buffer the size of the commit; its data is then synced
 * before its slot, which lists no runs. Tests lower it to stream small
 * commits. */
#define DB_COMMIT_STREAM_WINDOW (8u << 20)
extern size_t db_commit_stream_window;

#endif
