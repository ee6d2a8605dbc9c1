/*
 * table.h — the object store as the query layer sees it (internal).
 *
 * Owns: the query layer's view of the schema and the tables, beyond
 * cengine.h: properties by name, the cluster tree of a table in the
 * transaction's version, lookups through a property's index, and
 * collection readers.
 * Never: changes the schema, an object or an index itself (table_flush
 * only has object.c store the objects a bulk load buffered), or declares
 * what the files of the objects layer share among themselves
 * (table_internal.h does).
 *
 * The public half of the object store is in cengine.h ("Schema",
 * "Objects"). This header is implemented in table_scan.c, over what
 * schema.c (the schema, the table nodes), object_index.c (the mapping of
 * values to index keys) and containers.c (collection handles) own.
 *
 * Pointers handed out (names, column lists) stay valid until the
 * transaction's schema changes, it advances or it ends.
 */
#ifndef CE_TABLE_H
#define CE_TABLE_H

#include "cengine.h"
#include "cluster.h"

/* A property of a table, as a query binds it. */
typedef struct table_property {
    const char *name;
    ce_column_key column;
    ce_type type;                  /* for collections: the element type */
    bool nullable;                 /* for collections: the elements */
    bool indexed;                  /* has an index (the primary key has one) */
    bool primary_key;
    ce_collection_type collection; /* CE_COLLECTION_NONE: one value */
    bool backlink;                 /* the links of origin_table.origin_column into this table */
    ce_table_key link_target;      /* links: the table linked to; backlinks: the origin table */
    ce_column_key origin_column;   /* backlinks */
} table_property;

/* The table's name (as ce_table_name). */
bool table_name_of(ce_txn *txn, ce_table_key table, const char **out_name);

/* A table by a name of `length` bytes (not NUL-terminated). */
bool table_find_by_name(ce_txn *txn, const char *name, size_t length, ce_table_key *out_table, bool *out_found);

/* A property by a name of `length` bytes; *out_found is false if the table
 * has no such (live) property. Backlink properties have no name of their
 * own: table_find_backlink finds them. */
bool table_find_property(ce_txn *txn, ce_table_key table, const char *name, size_t length, table_property *out_property,
                         bool *out_found);

/* The backlink property of `table` that holds the links of
 * origin_table.origin_column into it; *out_found is false if there is none
 * (the origin property is no link to this table). */
bool table_find_backlink(ce_txn *txn, ce_table_key table, ce_table_key origin_table, ce_column_key origin_column,
                         table_property *out_property, bool *out_found);

/* Puts objects the table buffered (a bulk load in a write transaction) into
 * its cluster tree, so that what a query reads is complete; a flush sets
 * the transaction's root (a new db_txn_stamp). Nothing to do otherwise. */
bool table_flush(ce_txn *txn, ce_table_key table);

/* The root of the table's cluster tree in the transaction's version (after
 * a flush), and the column types that reading its leaves needs (one per column slot; a
 * removed column has type CE_TYPE_NULL). */
bool table_cluster(ce_txn *txn, ce_table_key table, space_ref *out_root, cluster_schema *out_columns);

/* Called with each candidate object of an index lookup, in key order;
 * setting *stop ends the walk. */
typedef bool (*table_object_visitor)(void *context, ce_object_key object, bool *stop);

/*
 * The objects an indexed property's index lists under `value` (of the
 * property's type, or null): a superset of the objects whose value equals
 * it (strings, timestamps, object ids and uuids are indexed by hash, so a
 * candidate's value must be checked). *out_indexed is false (and nothing is
 * visited) when the property has no index.
 */
bool table_index_candidates(ce_txn *txn, ce_table_key table, ce_column_key column, const ce_value *value,
                            table_object_visitor visit, void *context, bool *out_indexed);

/* The first candidate of a lookup alone (the smallest object key listed
 * under `value`): for a primary key whose values are their own index keys
 * (ints other than INT64_MIN, which null shares), the one object that can
 * match. *out_indexed is false when the property has no index. */
bool table_index_first(ce_txn *txn, ce_table_key table, ce_column_key column, const ce_value *value,
                       ce_object_key *out_object, bool *out_found, bool *out_indexed);

/* How many candidates table_index_candidates would visit (0 and
 * *out_indexed false without an index). */
bool table_index_candidate_count(ce_txn *txn, ce_table_key table, ce_column_key column, const ce_value *value,
                                 size_t *out_count, bool *out_indexed);

/* What a collection handle names: the object and property that hold it,
 * and whether it lies in a mixed property (its own or nested in one; then
 * `column` is that mixed property). The query layer keeps these, not the
 * handle, to find the collection again in later transactions. */
bool table_collection_owner(const ce_collection *collection, ce_table_key *out_table, ce_object_key *out_object,
                            ce_column_key *out_column, bool *out_nested);

/*
 * A collection resolved once, for reading its values in turn: the object and
 * property found, the steps into nested collections followed, the root
 * checked. ce_collection_get and ce_dictionary_key_at do all of that on
 * every call. `keys`: a dictionary's keys (as ce_dictionary_key_at), else
 * its values (as ce_collection_get). *out_count is how many there are. The
 * reader stays valid while the collection is unchanged and the transaction
 * lasts; close it with table_collection_reader_close.
 */
typedef struct table_collection_reader table_collection_reader;
/* Whether `collection` is a live collection handle (not closed): otherwise
 * CE_ERR_INVALID_ARGUMENT naming `call` (containers.c). */
bool containers_check(const ce_collection *collection, const char *call);

bool table_collection_reader_open(const ce_collection *collection, bool keys, table_collection_reader **out_reader,
                                  size_t *out_count);

/* The value at `index` (< *out_count), as ce_collection_get or
 * ce_dictionary_key_at returns it (its bytes valid until the next read). */
bool table_collection_reader_get(table_collection_reader *reader, size_t index, ce_value *out_value);

/* NULL is ignored. */
void table_collection_reader_close(table_collection_reader *reader);

/* Table slot `table` (< ce_table_count): whether it holds a live table
 * (removed tables keep their slot). No error for a removed one. */
bool table_slot_live(ce_txn *txn, ce_table_key table, bool *out_live);

/* Column slot `column` (< ce_property_count) of a live table: its property
 * (backlinks too, whose name is NULL), or *out_live false for a removed
 * one. No error for a removed one. */
bool table_property_at(ce_txn *txn, ce_table_key table, ce_column_key column, table_property *out_property,
                       bool *out_live);

/* Whether a property's stored value (what its column array in a cluster
 * leaf holds: a link as key + 1, a collection or mixed value as the ref of
 * its tree) is the same in two versions of the file, `old_stored` read
 * through `old_space` and `new_stored` through `new_space` (both pinned).
 * Scalars compare as value_identical does (the same bits); a tree with
 * the same ref in both is the same (copy-on-write), other trees are
 * compared element by element: lists and sets in order, a dictionary's keys and values, mixed
 * values by value, the collections nested in them in turn. Not for
 * backlink properties. */
bool table_stored_equal(const space_state *old_space, const space_state *new_space, const table_property *property,
                        const ce_value *old_stored, const ce_value *new_stored, bool *out_equal);

#endif
