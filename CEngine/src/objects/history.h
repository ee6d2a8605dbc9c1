/*
 * history.h — the change history: what each commit changed, recorded in the
 * write transaction, stored with the commit, read back as a merged delta.
 *
 * Owns: the history's interface: the recording calls of the files that
 * change objects (object.c, containers.c, links.c, schema.c), the commit's
 * write of the record (through object.c's before-commit call), and the
 * merged delta the notify layer reads.
 * Never: decides what a change means to an observer (notify layer), or
 * reads a table's objects for any purpose but their primary keys.
 *
 * The bytes on disk are described in docs/FORMAT.md, "Change history".
 */
#ifndef CE_HISTORY_H
#define CE_HISTORY_H

#include "cengine.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How much history a file keeps at most: entries beyond either bound are
 * dropped oldest first even if a reader still pins an older version (its
 * delta then reports not covered). An entry alone over the byte bound is
 * not stored at all. */
#define HISTORY_MAX_VERSIONS 1000u
#define HISTORY_MAX_BYTES (16u << 20)

/* The bounds in force: HISTORY_MAX_VERSIONS and HISTORY_MAX_BYTES, which
 * tests lower (as group_slot_run_limit) to reach them with small commits. */
extern size_t history_max_versions;
extern size_t history_max_bytes;

/* ------------------------------------------------------------------------ */
/* Recording (write transactions). False only on out of memory or misuse   */
/* (the commit then fails).                                                 */
/* ------------------------------------------------------------------------ */

bool history_object_inserted(ce_txn *txn, ce_table_key table, ce_object_key object);
/* Call before the object's values are gone: the record keeps its primary
 * key (tables with one), read here. */
bool history_object_deleted(ce_txn *txn, ce_table_key table, ce_object_key object);
bool history_object_modified(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column);
/* `count` consecutive objects from `first` (the append buffer's flush). */
bool history_objects_inserted(ce_txn *txn, ce_table_key table, ce_object_key first, size_t count);

typedef enum history_op_kind {
    HISTORY_LIST_INSERT, /* a: index */
    HISTORY_LIST_SET,    /* a: index */
    HISTORY_LIST_ERASE,  /* a: index */
    HISTORY_LIST_MOVE,   /* a: from, b: to (ce_list_move's meaning) */
    HISTORY_LIST_SWAP,   /* a, b: the two indices */
    HISTORY_CLEAR,       /* a: the size before (any kind of collection) */
    HISTORY_SET_INSERT,  /* a: the index the value got */
    HISTORY_SET_ERASE,   /* a: the index the value had */
    HISTORY_DICT_INSERT, /* key: a key that was absent */
    HISTORY_DICT_SET,    /* key: a key whose value changed */
    HISTORY_DICT_ERASE   /* key: a key that was present */
} history_op_kind;
#define HISTORY_OP_KIND_COUNT 11

/* One step from a collection of mixed values into the collection nested in
 * one of its elements: a list index or a dictionary key. */
typedef struct history_path_step {
    bool by_key;
    uint64_t index;
    const char *key; /* by_key: not NUL-terminated */
    size_t key_size;
} history_path_step;

/* A collection as a ce_collection names it: an object's property, then
 * `depth` steps into nested mixed collections. */
typedef struct history_collection_id {
    ce_table_key table;
    ce_object_key object;
    ce_column_key column;
    size_t depth;
    const history_path_step *steps; /* depth of them */
} history_collection_id;

/* The id of the collection a handle names. `out_steps` (capacity
 * `step_capacity`) receives the steps, which borrow the handle's keys;
 * fails with CE_ERR_INVALID_ARGUMENT if the handle is deeper. */
bool history_collection_id_of(const ce_collection *collection, history_path_step *out_steps, size_t step_capacity,
                              history_collection_id *out_id);
bool history_collection_id_equal(const history_collection_id *a, const history_collection_id *b);

/* One operation on a collection, in order. Also marks the owner's column
 * modified. */
bool history_collection_op(ce_txn *txn, const history_collection_id *id, history_op_kind op, uint64_t a, uint64_t b,
                           const char *key, size_t key_size);

/* Schema changes, recorded as such (and as "the schema changed"). */
typedef enum history_schema_kind {
    HISTORY_TABLE_ADDED = 1,
    HISTORY_TABLE_REMOVED = 2,
    HISTORY_PROPERTY_ADDED = 3,
    HISTORY_PROPERTY_REMOVED = 4
} history_schema_kind;
bool history_schema_changed(ce_txn *txn, history_schema_kind kind, ce_table_key table, ce_column_key column);

/* The commit's part (object.c's before-commit call, after the append
 * buffer's flush): writes the transaction's record as the entry of the new
 * version, trims and bounds the history, and sets the history root. May
 * run more than once (db_txn_flush_layer): each run replaces the entry. */
bool history_write(ce_txn *txn);

/* The transaction's record (owned by the objects layer's state). */
typedef struct history_record history_record;
void history_record_free(history_record *record);

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

/* The merged changes of versions (from_version, to] where `txn` reads `to`
 * (a read or write transaction; from_version <= to). *out_covered false:
 * the history does not hold all of them (trimmed, bounded, or written
 * before history existed): *out_delta is NULL; compare snapshots. Errors:
 * a damaged history (CE_ERR_INVALID_DATABASE), out of memory. */
typedef struct history_delta history_delta;
bool history_delta_load(ce_txn *txn, uint64_t from_version, history_delta **out_delta, bool *out_covered);
void history_delta_free(history_delta *delta);

bool history_delta_schema_changed(const history_delta *delta);
/* The schema changes of the range in order. */
typedef struct history_schema_change {
    history_schema_kind kind;
    ce_table_key table;
    ce_column_key column; /* property changes */
} history_schema_change;
size_t history_delta_schema_change_count(const history_delta *delta);
const history_schema_change *history_delta_schema_change_at(const history_delta *delta, size_t index);

/* A table's merged changes. Keys ascending: deleted (present at from, gone
 * at to), inserted (absent at from, present at to), modified (present in
 * both, some column changed). Inserted then deleted in the range: absent;
 * inserted then modified: inserted; modified then deleted: deleted. The
 * arrays belong to the delta. */
typedef struct history_table_changes {
    ce_table_key table;
    const ce_object_key *deleted;
    size_t deleted_count;
    const ce_object_key *inserted;
    size_t inserted_count;
    const ce_object_key *modified;
    size_t modified_count;
} history_table_changes;

/* The tables touched, ascending by key. */
size_t history_delta_table_count(const history_delta *delta);
const history_table_changes *history_delta_table_at(const history_delta *delta, size_t index);
/* NULL: the table was not touched. */
const history_table_changes *history_delta_find_table(const history_delta *delta, ce_table_key table);

/* The columns (ascending) changed on one modified object: up to `capacity`
 * written to out_columns (NULL: count only), *out_count the total (0: not
 * modified in the merged sense). */
void history_delta_object_columns(const history_delta *delta, ce_table_key table, ce_object_key object,
                                  ce_column_key *out_columns, size_t capacity, size_t *out_count);
/* Whether one column of one modified object changed. */
bool history_delta_column_changed(const history_delta *delta, ce_table_key table, ce_object_key object,
                                  ce_column_key column);

/* One recorded collection operation (key: dictionary ops; borrowed from
 * the delta). */
typedef struct history_op {
    history_op_kind kind;
    uint64_t a, b;
    const char *key;
    size_t key_size;
} history_op;

/* A collection touched in the range and its operations in order (oldest
 * first; ops of an object later deleted stay). */
typedef struct history_collection_changes {
    history_collection_id id; /* steps borrowed from the delta */
    const history_op *ops;
    size_t op_count;
} history_collection_changes;

size_t history_delta_collection_count(const history_delta *delta);
const history_collection_changes *history_delta_collection_at(const history_delta *delta, size_t index);
/* NULL: the collection was not touched. */
const history_collection_changes *history_delta_find_collection(const history_delta *delta,
                                                                const history_collection_id *id);

/* The primary key an object had when an entry named it (tables with a
 * primary key: objects inserted, deleted or modified in the range), for a
 * receiver that names objects by primary key. *out_found false otherwise.
 * Strings point into the delta. */
bool history_delta_primary_key(const history_delta *delta, ce_table_key table, ce_object_key object,
                               ce_value *out_value, bool *out_found);

#endif
