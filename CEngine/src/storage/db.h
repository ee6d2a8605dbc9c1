/*
 * db.h — the transaction layer, as the layers above see it.
 *
 * The public half of this layer (ce_db_open, ce_txn_begin_read, ...) is in
 * cengine.h. This header gives the layers above (table, query, compact) the
 * address space of a transaction and the one ref they own: the user root,
 * stored in the top node of each version.
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

/* How many runs a slot may list before a commit syncs its data separately
 * (at most the slot's room, 252). Commits are placed as one or two runs, so
 * tests lower this to exercise the two-sync path. */
extern size_t db_slot_run_limit;

/* A slot where the layer above keeps what it derived from the version the
 * transaction sees (the parsed schema). `release` is called when the
 * transaction ends or advances to another version. */
void *db_txn_layer_state(const ce_txn *txn);
void db_txn_set_layer_state(ce_txn *txn, void *state, void (*release)(void *state));

/* A number that changes whenever what the transaction sees may have
 * changed: when it begins or advances, and whenever a write transaction sets
 * its root (every change of the table layer does, through the group). Never
 * reused within the process, so what a layer above computed at one stamp
 * (a query's results) stays right while the stamp is the same. */
uint64_t db_txn_stamp(const ce_txn *txn);

/* A call the commit makes first, with the layer state (the table layer
 * flushes the objects it buffered); its failure fails the commit. Cleared
 * with the layer state. */
void db_txn_set_before_commit(ce_txn *txn, bool (*before_commit)(ce_txn *txn, void *state));

/* The database of a transaction. */
ce_db *db_txn_db(const ce_txn *txn);

/* Write transactions: runs the before-commit call now (the table layer puts
 * the objects it buffered into its trees), so that the transaction's trees
 * hold every change, as a copy of it must. The transaction goes on. */
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

/* How the space of the version a transaction reads is used. */
typedef struct db_space_usage {
    uint64_t file_size;      /* bytes the file occupies on disk */
    uint64_t logical_size;   /* the version's logical size (header included) */
    uint64_t free_bytes;     /* in the version's free list */
    uint64_t data_bytes;     /* in the trees of the user root and the history: what a copy copies */
    uint64_t compacted_size; /* about the size on disk of a compacted copy (header, data, top node) */
} db_space_usage;
bool db_txn_space_usage(ce_txn *txn, db_space_usage *out_usage);

/* --- writing a new database file front to back (writeCopy, compaction) ---
 *
 * The writer creates a new file at a temporary path (which must not exist),
 * with the header of an empty database. The layer above reserves room for
 * each node in order (the position it gets is the node's ref in the new
 * file), fills it, and finally names the roots: the writer adds the top node
 * (with an empty free list), syncs the data, writes and syncs the header slot.
 * `replace_stale`: a file left at the temporary path (by a copy that
 * crashed) is removed first; otherwise its existence is CE_ERR_FILE_EXISTS.
 * `encryption` says whether and how the new file is encrypted.
 * Then the file is either installed at its final path (which must not exist)
 * or replaces the handle's own file (compaction). Until one of those
 * succeeds, db_file_writer_discard removes it. */
typedef struct db_file_writer db_file_writer;

typedef struct db_copy_encryption {
    const uint8_t *key;  /* a new 64-byte key for the copy (not kept), or NULL */
    bool same_as_source; /* encrypted with the source's keys if the source is encrypted */
} db_copy_encryption;

bool db_file_writer_create(ce_db *source, const char *temporary_path, bool replace_stale,
                           const db_copy_encryption *encryption, db_file_writer **out_writer);

/* Whether a file (or anything else) exists at `path`. */
bool db_path_exists(const char *path);

/* Room for `size` bytes at the end of the new file: *out_position is where
 * they land, *out_bytes (valid until the next call) is to be filled. */
bool db_file_writer_reserve(db_file_writer *writer, size_t size, space_ref *out_position, uint8_t **out_bytes);

/* Benchmarks only (the default, true, is the only safe setting): false
 * leaves out the syncs of db_file_writer_finish, to measure a copy's own
 * work apart from the disk's. */
extern bool db_file_writer_syncs;

/* Writes the top node of `version` over the two roots and makes the file
 * durable. */
bool db_file_writer_finish(db_file_writer *writer, uint64_t version, space_ref user_root, space_ref history);

/* The logical size of the finished file. */
uint64_t db_file_writer_size(const db_file_writer *writer);

/* Moves the finished file to `path` (CE_ERR_FILE_EXISTS if something is
 * there: nothing is replaced) and releases the writer. On failure the writer
 * is still the caller's to discard. */
bool db_file_writer_install(db_file_writer *writer, const char *path);

/* Closes and removes the temporary file, and releases the writer. */
void db_file_writer_discard(db_file_writer *writer);

/* For tests and benchmarks: the decrypted pages the handle's cache holds
 * and its limit (0 and 0 for a plain file), and whether the handle still
 * holds any byte of the user's key (it must not once open returned). */
void db_cache_usage(ce_db *db, uint64_t *out_pages, uint64_t *out_limit_pages);
bool db_holds_key(const ce_db *db);

/* --- replacing the file under a handle (compaction in place) --- */

/* Makes this handle the only one on the file: fails with
 * CE_ERR_ALREADY_OPEN if another handle (in any process) has it open, and
 * with CE_ERR_WRONG_TRANSACTION_STATE if a transaction of this handle is
 * open. Until db_end_exclusive, other handles wait to open the file and
 * other threads of this handle wait to begin transactions. */
bool db_begin_exclusive(ce_db *db);
void db_end_exclusive(ce_db *db);

/* During exclusive access: renames the finished writer's file over the
 * handle's file and continues on it (the writer is released, also on
 * failure). A crash at any point leaves the old or the new file at the path,
 * whole. */
bool db_replace_file(ce_db *db, db_file_writer *writer);

#endif
