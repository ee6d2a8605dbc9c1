/*
 * changes.h — what changed between two versions, as the files of the
 * notify layer share it (internal; the public half is cengine.h's
 * "Changes and notifications").
 *
 * Owns: the declarations changes.c gives the other notify files: the two
 * transactions a change set compares and the history's delta it came from, a test of one object's column, and a
 * slot where key_path_filter.c keeps what it learned while matching.
 * Never: declares how a change set is computed (changes.c keeps that).
 */
#ifndef CE_CHANGES_H
#define CE_CHANGES_H

#include "cengine.h"
#include "history.h"

/* ce_changes_compute without the history: by comparing the snapshots
 * (tests compare the two ways). */
bool changes_compute_from_snapshots(ce_txn *old_txn, ce_txn *new_txn, ce_changes **out_changes);

/* The transactions a change set compares (borrowed: they outlive it). */
ce_txn *changes_old_txn(const ce_changes *changes);
ce_txn *changes_new_txn(const ce_changes *changes);

/* The history's merged delta the change set was computed from (its
 * collections' operations in order, for the collection change sets), or
 * NULL when it was computed by comparing the snapshots. It lives as long
 * as the change set. */
const history_delta *changes_history_delta(const ce_changes *changes);

/* How one object changed, without the columns (UNCHANGED also for a table
 * that is in neither version). */
ce_object_change_kind changes_kind_of(const ce_changes *changes, ce_table_key table, ce_object_key object);

/* Whether `object`, in both versions, changed in `column`. */
bool changes_column_modified(const ce_changes *changes, ce_table_key table, ce_object_key object,
                             ce_column_key column);

/* A slot for the matcher's cache (key_path_filter.c): NULL at first;
 * `release` is called with it when the change set is freed. The change set
 * is used by one thread at a time, so the slot needs no lock. */
void *changes_match_cache(const ce_changes *changes);
void changes_set_match_cache(const ce_changes *changes, void *cache, void (*release)(void *cache));

/* Whether `changes` is a live change set (not freed): otherwise
 * CE_ERR_INVALID_ARGUMENT naming `call` (changes.c). */
bool changes_check(const ce_changes *changes, const char *call);

#endif
