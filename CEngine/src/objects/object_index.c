/*
 * object_index.c — objects in the indexes of their table's columns, and
 * finding an object by a property's value.
 *
 * Owns: which key a value is indexed under, each table's index list (one
 * index root per column slot), and keeping an object's entries in step with
 * its values (the callers in object.c and links.c say when).
 * Never: lays out index nodes (index.c), decides which columns are indexed
 * (schema.c), or changes an object's values.
 */
#include "object_index.h"
#include "cengine.h"
#include "cluster.h"
#include "column.h"
#include "db.h"
#include "error.h"
#include "index.h"
#include "node.h"
#include "table_internal.h"
#include "value.h"

/* ------------------------------------------------------------------------ */
/* Indexes: one per indexed column, the primary key's among them             */
/* ------------------------------------------------------------------------ */

/* The integer a value is indexed under: ints and bools as themselves, null
 * as INT64_MIN, everything else as its hash. Lookups compare the actual
 * values of the candidates, so collisions cost time, never correctness. */
int64_t object_index_key_of(const ce_value *value)
{
    if (value->type == CE_TYPE_INT) return value->integer;
    if (value->type == CE_TYPE_BOOL) return value->boolean;
    if (value->type == CE_TYPE_NULL) return INT64_MIN;
    return (int64_t)value_hash(value);
}

/* The root of a column's index, or 0. */
bool object_index_root(ce_txn *txn, const table_refs *refs, size_t column, space_ref *out_index)
{
    *out_index = 0;
    if (!refs->indexes) return true;
    node_view list;
    if (!node_read(db_txn_space(txn), refs->indexes, &list)) return false;
    if ((list.flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the index list at %llu is damaged",
                       (unsigned long long)refs->indexes);
    if (column >= list.count) return true;
    int64_t root = node_get(&list, column);
    if (root != 0 && !node_value_is_ref(root))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the index list at %llu is damaged",
                       (unsigned long long)refs->indexes);
    *out_index = (space_ref)root;
    return true;
}

/* Stores a column's index root in the index list (made writable, created,
 * or grown to the table's column count as needed). */
bool object_index_set_root(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, space_ref index)
{
    space_state *space = db_txn_space(txn);
    if (!refs->indexes) {
        if (!node_create(space, NODE_HAS_REFS, table->property_count, 0, &refs->indexes)) return false;
    } else if (!node_make_writable(space, &refs->indexes)) {
        return false;
    }
    node_view list;
    if (!node_read(space, refs->indexes, &list)) return false;
    for (size_t count = list.count; count < table->property_count; count++)
        if (!node_append(space, refs->indexes, 0)) return false;
    return node_set(space, refs->indexes, column, (int64_t)index);
}

/* Adds (or removes) an object's entry in one column's index. */
bool object_index_update(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, const ce_value *value,
                         ce_object_key object, bool insert)
{
    space_ref root;
    if (!object_index_root(txn, refs, column, &root)) return false;
    if (!root) return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s.%s' is indexed but has no index",
                              table->name, table->properties[column].name);
    space_state *space = db_txn_space(txn);
    bool ok = insert ? index_insert(space, &root, object_index_key_of(value), object)
                     : index_erase(space, &root, object_index_key_of(value), object);
    return ok && object_index_set_root(txn, refs, table, column, root);
}

typedef struct search_by_value {
    ce_txn *txn;
    schema *schema;
    const table_refs *refs;
    const schema_table *table;
    size_t column;
    const ce_value *wanted;
    ce_object_key found_key;
    bool found;
} search_by_value;

static bool check_candidate(void *context, int64_t key, int64_t object, bool *stop)
{
    (void)key;
    search_by_value *search = context;
    ce_value actual;
    cluster_schema columns = schema_cluster_columns(search->table);
    if (!cluster_get(db_txn_space(search->txn), search->refs->cluster, &columns, object, search->column,
                     &search->schema->search_scratch, NULL, &actual))
        return false;
    if (value_equal(&actual, search->wanted)) {
        search->found = true;
        search->found_key = object;
        *stop = true;
    }
    return true;
}

/* Checks every object of a leaf against the wanted value (a search without an index). */
static bool search_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    search_by_value *search = context;
    const cluster_column *spec = &search->table->columns[search->column];
    space_ref column = cluster_leaf_column(leaf, search->column);
    for (size_t i = 0; i < leaf->key_offsets.count; i++) {
        ce_value actual;
        if (!column_get(db_txn_space(search->txn), column, spec->type, spec->nullable, i,
                        &search->schema->search_scratch, &actual))
            return false;
        if (value_equal(&actual, search->wanted)) {
            search->found = true;
            search->found_key = cluster_leaf_key(leaf, i);
            *stop = true;
            return true;
        }
    }
    return true;
}

/* The first object (in key order) whose `column` equals `value`: through
 * the column's index if it has one, else by a scan. */
bool object_index_find(ce_txn *txn, schema *loaded, const table_refs *refs, const schema_table *table, size_t column,
                       const ce_value *value, ce_object_key *out_key, bool *out_found)
{
    if (column == table->primary_key && refs->keys_follow != KEYS_DO_NOT_FOLLOW && value->type == CE_TYPE_INT) {
        /* The keys follow the primary key: the object is the one with the
         * key it implies, if it exists (see keys_follow_state). */
        ce_object_key object;
        *out_found = false;
        if (refs->keys_follow == KEYS_FOLLOW_UNDECIDED ||
            __builtin_sub_overflow(value->integer, refs->primary_key_offset, &object) || object < 0 ||
            object >= refs->next_key)
            return true;
        cluster_position position;
        if (!cluster_find(db_txn_space(txn), refs->cluster, object, &position, out_found, refs->hint)) return false;
        *out_key = object;
        return true;
    }
    search_by_value search = {txn, loaded, refs, table, column, value, 0, false};
    space_ref root = 0;
    if (schema_column_is_indexed(table, column) && !object_index_root(txn, refs, column, &root)) return false;
    if (root && ((value->type == CE_TYPE_INT && value->integer != INT64_MIN) || value->type == CE_TYPE_BOOL)) {
        /* A non-null int or bool is its own index key (INT64_MIN excepted:
         * null shares it): the index's first entry for it is the answer,
         * with no candidate to re-read. */
        int64_t object;
        if (!index_find_first(db_txn_space(txn), root, object_index_key_of(value), &object, out_found)) return false;
        *out_key = object;
        return true;
    }
    bool ok = root ? index_for_each_with_key(db_txn_space(txn), root, object_index_key_of(value), check_candidate,
                                             &search)
                   : cluster_for_each_leaf(db_txn_space(txn), refs->cluster, column, search_leaf, &search);
    if (!ok) return false;
    *out_found = search.found;
    *out_key = search.found_key;
    return true;
}

/* Builds a column's index from the objects a table has (a property made
 * indexed, or added indexed, to a table with objects). */
typedef struct build_context {
    ce_txn *txn;
    schema *schema;
    const schema_table *table;
    size_t column;
    space_ref root;
} build_context;

static bool build_from_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    (void)stop;
    build_context *build = context;
    const cluster_column *spec = &build->table->columns[build->column];
    space_state *space = db_txn_space(build->txn);
    for (size_t i = 0; i < leaf->key_offsets.count; i++) {
        ce_value value;
        if (!column_get(space, cluster_leaf_column(leaf, build->column), spec->type, spec->nullable, i,
                        &build->schema->search_scratch, &value) ||
            !index_insert(space, &build->root, object_index_key_of(&value), cluster_leaf_key(leaf, i)))
            return false;
    }
    return true;
}

/* Builds a column's index from the objects the table has and stores its root. */
bool object_index_build(ce_txn *txn, schema *loaded, table_refs *refs, const schema_table *table, size_t column)
{
    space_state *space = db_txn_space(txn);
    build_context build = {txn, loaded, table, column, 0};
    return index_create(space, &build.root) &&
           cluster_for_each_leaf(space, refs->cluster, column, build_from_leaf, &build) &&
           object_index_set_root(txn, refs, table, column, build.root);
}

