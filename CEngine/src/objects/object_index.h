/*
 * object_index.h — an object's entries in its table's indexes (internal;
 * object_index.c defines what is declared here).
 *
 * Owns: the calls through which schema.c, object.c, links.c and
 * table_scan.c keep and read an object's index entries.
 * Never: lays out index nodes (index.c does), or decides which columns
 * are indexed (schema.c does).
 */
#ifndef CE_OBJECT_INDEX_H
#define CE_OBJECT_INDEX_H

#include "cengine.h"
#include "table_internal.h"

/* The integer a value is indexed under (ints and bools as themselves, null
 * as INT64_MIN, anything else as its hash). */
int64_t object_index_key_of(const ce_value *value);

/* The root of a column's index, or 0. */
bool object_index_root(ce_txn *txn, const table_refs *refs, size_t column, space_ref *out_index);

/* Stores a column's index root in the table's index list. */
bool object_index_set_root(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, space_ref index);

/* Adds (or removes) an object's entry in one column's index. */
bool object_index_update(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, const ce_value *value,
                         ce_object_key object, bool insert);

/* The first object (in key order) whose `column` equals `value`. */
bool object_index_find(ce_txn *txn, schema *loaded, const table_refs *refs, const schema_table *table, size_t column,
                       const ce_value *value, ce_object_key *out_key, bool *out_found);

/* Builds a column's index from the objects the table has and stores its root. */
bool object_index_build(ce_txn *txn, schema *loaded, table_refs *refs, const schema_table *table, size_t column);

#endif
