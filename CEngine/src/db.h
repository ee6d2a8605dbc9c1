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
#include "alloc.h"

/* The address space of a transaction (dirty nodes for a write). */
ce_space *db_txn_space(ce_txn *txn);

/* The root of the data above the db layer (0 in a new file). */
ce_ref db_txn_root(const ce_txn *txn);

/* Replaces the root (write transactions). The old tree is the caller's to
 * free or keep. */
bool db_txn_set_root(ce_txn *txn, ce_ref root);

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

/* Fails with CE_ERR_WRONG_TRANSACTION_STATE unless txn is a write transaction. */
bool db_txn_require_write(const ce_txn *txn);

#endif
