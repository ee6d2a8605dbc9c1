/*
 * table_scan.c — the object store as the query layer reads it (table.h), and
 * ce_table_sum and ce_object_get_range.
 *
 * Owns: the answers to table.h: tables and properties by name, a table's
 * cluster tree and column types, lookups through a property's index,
 * collection readers that resolve a collection once for many reads, and
 * whether a stored value is the same in two versions.
 * Never: changes the schema, an object or an index (table_flush only has
 * object.c store the objects it buffered), or binds or evaluates a query
 * (the query layer does).
 */
#include "table.h"
#include "buf.h"
#include "cengine.h"
#include "cluster.h"
#include "collection.h"
#include "column.h"
#include "db.h"
#include "error.h"
#include "index.h"
#include "mixed.h"
#include "node.h"
#include "object_index.h"
#include "table_internal.h"
#include "value.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Scans                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct column_sum {
    const space_state *space;
    const cluster_column *spec;
    size_t column;
    uint64_t integer_sum; /* unsigned: wraps instead of overflowing */
    double double_sum;
    size_t counted;
} column_sum;

static bool sum_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    (void)stop;
    column_sum *sum = context;
    column_numbers numbers;
    if (!column_numbers_view(sum->space, cluster_leaf_column(leaf, sum->column), sum->spec->type, sum->spec->nullable,
                             &numbers))
        return false;
    const node_view *values = &numbers.values;
    if (sum->spec->type == CE_TYPE_DOUBLE && !numbers.has_nulls && values->width == 64 && !values->based) {
        /* The common case, a plain array of doubles: one tight loop. */
        sum->double_sum += node_sum_doubles(values, numbers.count);
        sum->counted += numbers.count;
        return true;
    }
    for (size_t i = 0; i < numbers.count; i++) {
        if (numbers.has_nulls && node_get(&numbers.nulls, i)) continue;
        int64_t bits = node_get(values, i);
        if (sum->spec->type == CE_TYPE_INT) {
            sum->integer_sum += (uint64_t)bits;
        } else if (sum->spec->type == CE_TYPE_DOUBLE) {
            double value;
            memcpy(&value, &bits, 8);
            sum->double_sum += value;
        } else {
            uint32_t narrow = (uint32_t)bits;
            float value;
            memcpy(&value, &narrow, 4);
            sum->double_sum += value;
        }
        sum->counted++;
    }
    return true;
}

bool ce_table_sum(ce_txn *txn, ce_table_key key, ce_column_key column, ce_value *out_sum, size_t *out_counted)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_sum) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_sum: out_sum is required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property)) return false;
    if (property->type != CE_TYPE_INT && property->type != CE_TYPE_FLOAT && property->type != CE_TYPE_DOUBLE)
        return error_fail(CE_ERR_WRONG_TYPE, "cannot sum property '%s.%s' of type %s", table->name, property->name,
                       ce_type_name(property->type));
    if (!schema_table_refs_for_read(txn, key, &refs)) return false;
    column_sum sum = {db_txn_space(txn), &table->columns[column], column, 0, 0, 0};
    if (!cluster_for_each_leaf(db_txn_space(txn), refs.cluster, column, sum_leaf, &sum)) return false;
    if (property->type == CE_TYPE_INT) *out_sum = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)sum.integer_sum};
    else *out_sum = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = sum.double_sum};
    if (out_counted) *out_counted = sum.counted;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Many objects at once                                                      */
/* ------------------------------------------------------------------------ */

/* Whether ce_object_get_range reads `property`: one scalar value. */
static bool range_readable(const schema_property *property)
{
    return property->collection == CE_COLLECTION_NONE && !(property->flags & PROPERTY_BACKLINK) &&
           property->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED;
}

/* Reads `run` objects from position `at` of `leaf` into out_values (rows of
 * column_count values), each column opened once. A string or binary that column_get decompressed into
 * `scratch` is copied to the end of the transaction's range bytes, its data
 * pointer replaced by its offset there, and its place recorded in *moved (the
 * caller points it at the bytes once they no longer move). */
static bool range_read_leaf(const space_state *space, schema *loaded, const schema_table *table,
                            const cluster_leaf *leaf, size_t at, size_t run, const ce_column_key *columns,
                            size_t column_count, ce_value *out_values, column_scratch *scratch, size_t **moved,
                            size_t *moved_count, size_t *moved_capacity, size_t first_slot)
{
    for (size_t c = 0; c < column_count; c++) {
        const cluster_column *spec = &table->columns[columns[c]];
        column_scan scan;
        if (!column_scan_open(space, cluster_leaf_column(leaf, columns[c]), spec->type, spec->nullable, &scan))
            return false;
        for (size_t i = 0; i < run; i++) {
            size_t slot = first_slot + i * column_count + c;
            ce_value *value = &out_values[slot];
            if (!column_scan_get(space, &scan, at + i, scratch, value)) return false;
            if ((value->type != CE_TYPE_STRING && value->type != CE_TYPE_BINARY) || value->string.size == 0 ||
                !scratch->buffer)
                continue;
            const uint8_t *data = (const uint8_t *)value->string.data;
            if (data < scratch->buffer || data >= scratch->buffer + scratch->capacity) continue;
            size_t offset = loaded->range_size;
            if (!buf_append(&loaded->range_bytes, &loaded->range_size, &loaded->range_capacity, data,
                            value->string.size) ||
                !buf_reserve((void **)moved, moved_capacity, *moved_count + 1, sizeof **moved))
                return false;
            (*moved)[(*moved_count)++] = slot;
            value->string.data = (const char *)(uintptr_t)offset;
        }
    }
    return true;
}

bool ce_object_get_range(ce_txn *txn, ce_table_key key, size_t first, size_t count, const ce_column_key *columns,
                         size_t column_count, ce_object_key *out_objects, ce_value *out_values, size_t *out_read)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_read || (count && column_count && (!columns || !out_values)))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_get_range: arguments are required");
    *out_read = 0;
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    for (size_t c = 0; c < column_count; c++) {
        const schema_property *property = NULL;
        if (!schema_find_column(table, columns[c], &property)) return false;
        if (!range_readable(property))
            return error_fail(CE_ERR_WRONG_TYPE,
                              "property '%s.%s' is not a scalar: read it with ce_object_get or ce_collection_open",
                              table->name, property->name);
    }
    if (!schema_table_refs_for_read(txn, key, &refs)) return false;
    const space_state *space = db_txn_space(txn);
    size_t total;
    if (!cluster_count(space, refs.cluster, &total)) return false;
    if (first > total)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "object index %zu is out of bounds (table '%s' has %zu objects)",
                          first, table->name, total);
    if (count > total - first) count = total - first;
    cluster_hint own = {.read_epoch = space->read_epoch};
    cluster_hint *hint = refs.hint ? refs.hint : &own;
    column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
    size_t *moved = NULL, moved_count = 0, moved_capacity = 0;
    loaded->range_size = 0;
    bool ok = true;
    size_t done = 0;
    ce_object_key previous = 0;
    while (ok && done < count) {
        ce_object_key object;
        if (!(ok = cluster_key_at(space, refs.cluster, first + done, hint, &object))) break;
        cluster_leaf leaf = hint->leaf;
        size_t at = first + done - hint->leaf_first_index;
        size_t run = leaf.key_offsets.count - at;
        if (run > count - done) run = count - done;
        ok = range_read_leaf(space, loaded, table, &leaf, at, run, columns, column_count, out_values, &scratch, &moved,
                             &moved_count, &moved_capacity, done * column_count);
        /* Keys ascend strictly: a damaged leaf that repeats or reorders
         * them would name one object's values with another's key. */
        for (size_t i = 0; ok && i < run; i++) {
            ce_object_key next = cluster_leaf_key(&leaf, at + i);
            if (done + i > 0 && next <= previous)
                ok = error_fail(CE_ERR_CORRUPT, "invalid database: the objects of table '%s' are out of key order at index %zu",
                                table->name, first + done + i);
            previous = next;
            if (out_objects) out_objects[done + i] = next;
        }
        done += run;
    }
    for (size_t m = 0; ok && m < moved_count; m++) {
        ce_value *value = &out_values[moved[m]];
        value->string.data = (const char *)loaded->range_bytes + (uintptr_t)value->string.data;
    }
    free(moved);
    column_scratch_free(&scratch);
    if (ok) *out_read = count;
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Internal interface for the query layer (table.h)                          */
/* ------------------------------------------------------------------------ */

bool table_name_of(ce_txn *txn, ce_table_key key, const char **out_name) { return ce_table_name(txn, key, out_name); }

bool table_find_by_name(ce_txn *txn, const char *name, size_t length, ce_table_key *out_table, bool *out_found)
{
    schema *loaded = NULL;
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    if (!schema_load(txn, &loaded)) return false;
    *out_found = false;
    for (size_t t = 0; t < loaded->table_count; t++) {
        const schema_table *table = &loaded->tables[t];
        if (!(table->flags & TABLE_REMOVED) && strlen(table->name) == length && memcmp(table->name, name, length) == 0) {
            *out_table = (ce_table_key)t;
            *out_found = true;
        }
    }
    return true;
}

static void describe_for_query(const schema_table *table, size_t column, table_property *out)
{
    const schema_property *property = &table->properties[column];
    *out = (table_property){property->name,
                            (ce_column_key)column,
                            property->type,
                            (property->flags & PROPERTY_NULLABLE) != 0,
                            schema_column_is_indexed(table, column),
                            (property->flags & PROPERTY_PRIMARY) != 0,
                            (ce_collection_type)property->collection,
                            (property->flags & PROPERTY_BACKLINK) != 0,
                            (ce_table_key)property->link_target,
                            (ce_column_key)property->origin_column};
}

bool table_find_property(ce_txn *txn, ce_table_key key, const char *name, size_t length, table_property *out_property,
                         bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        if (!schema_property_is_live(property) || (property->flags & PROPERTY_BACKLINK) ||
            strlen(property->name) != length || memcmp(property->name, name, length) != 0)
            continue;
        describe_for_query(table, p, out_property);
        *out_found = true;
    }
    return true;
}

bool table_find_backlink(ce_txn *txn, ce_table_key key, ce_table_key origin_table, ce_column_key origin_column,
                         table_property *out_property, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        if (!schema_property_is_live(property) || !(property->flags & PROPERTY_BACKLINK) ||
            property->link_target != origin_table || property->origin_column != origin_column)
            continue;
        describe_for_query(table, p, out_property);
        *out_found = true;
    }
    return true;
}

bool table_flush(ce_txn *txn, ce_table_key key)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    return schema_find_table(txn, key, &loaded, &table) && object_flush_appends_of(txn, key);
}

bool table_cluster(ce_txn *txn, ce_table_key key, space_ref *out_root, cluster_schema *out_columns)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_table_refs_for_read(txn, key, &refs)) return false;
    *out_root = refs.cluster;
    *out_columns = schema_cluster_columns(table);
    return true;
}

/* The root of an indexed column's index (0: the column has no index). */
static bool indexed_column_root(ce_txn *txn, ce_table_key key, ce_column_key column, space_ref *out_root)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    *out_root = 0;
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property)) return false;
    if (!schema_column_is_indexed(table, column)) return true;
    if (!schema_table_refs_for_read(txn, key, &refs) || !object_index_root(txn, &refs, column, out_root)) return false;
    if (!*out_root)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s.%s' is indexed but has no index", table->name,
                       property->name);
    return true;
}

typedef struct candidate_walk {
    table_object_visitor visit;
    void *context;
} candidate_walk;

static bool visit_candidate(void *context, int64_t key, int64_t object, bool *stop)
{
    (void)key;
    const candidate_walk *walk = context;
    return walk->visit(walk->context, object, stop);
}

bool table_index_candidates(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                            table_object_visitor visit, void *context, bool *out_indexed)
{
    space_ref root;
    if (!indexed_column_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    candidate_walk walk = {visit, context};
    return index_for_each_with_key(db_txn_space(txn), root, object_index_key_of(value), visit_candidate, &walk);
}

bool table_index_first(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                       ce_object_key *out_object, bool *out_found, bool *out_indexed)
{
    space_ref root;
    *out_found = false;
    if (!indexed_column_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    int64_t object;
    if (!index_find_first(db_txn_space(txn), root, object_index_key_of(value), &object, out_found)) return false;
    if (*out_found) *out_object = object;
    return true;
}

bool table_index_candidate_count(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                                 size_t *out_count, bool *out_indexed)
{
    space_ref root;
    *out_count = 0;
    if (!indexed_column_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    return index_count_key(db_txn_space(txn), root, object_index_key_of(value), out_count);
}

bool table_collection_owner(const ce_collection *collection, ce_table_key *out_table, ce_object_key *out_object,
                            ce_column_key *out_column, bool *out_nested)
{
    if (!collection) return error_fail(CE_ERR_INVALID_ARGUMENT, "a collection is required");
    *out_table = collection->table;
    *out_object = collection->object;
    *out_column = (ce_column_key)collection->column;
    *out_nested = collection->through_mixed || collection->depth > 0;
    return true;
}

struct table_collection_reader {
    const space_state *space;
    element_spec spec; /* how the values decode; unused for keys */
    bool keys;
    column_scratch *scratch;
    collection_reader values;
};

bool table_collection_reader_open(const ce_collection *collection, bool keys, table_collection_reader **out_reader,
                                  size_t *out_count)
{
    schema *loaded;
    found_collection found;
    if (!containers_find(collection, &loaded, &found)) return false;
    if (keys && found.kind != CE_COLLECTION_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a dictionary", SPEC_WHERE(&found.spec));
    const space_state *space = db_txn_space(collection->txn);
    space_ref values, dictionary_values;
    ce_type type = CE_TYPE_STRING;
    bool nullable = false;
    if (keys ? !containers_dictionary_parts(space, found.root, &values, &dictionary_values)
             : !containers_found_values(space, &found, &values, &type, &nullable))
        return false;
    table_collection_reader *reader = malloc(sizeof *reader);
    if (!reader) return schema_out_of_memory();
    reader->space = space;
    reader->spec = found.spec;
    reader->keys = keys;
    reader->scratch = keys ? &loaded->key_scratch : &loaded->scratch;
    if (!collection_reader_open(space, values, type, nullable, &reader->values)) {
        free(reader);
        return false;
    }
    *out_reader = reader;
    *out_count = collection_reader_size(&reader->values);
    return true;
}

bool table_collection_reader_get(table_collection_reader *reader, size_t index, ce_value *out_value)
{
    if (reader->keys) return collection_reader_get(&reader->values, index, reader->scratch, out_value);
    ce_value stored;
    return collection_reader_get(&reader->values, index, reader->scratch, &stored) &&
           object_decode_element(reader->space, &reader->spec, &stored, out_value);
}

void table_collection_reader_close(table_collection_reader *reader) { free(reader); }

/* ------------------------------------------------------------------------ */
/* Slots and values across two versions (the notify layer)                   */
/* ------------------------------------------------------------------------ */

bool table_slot_live(ce_txn *txn, ce_table_key key, bool *out_live)
{
    schema *loaded = NULL;
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    if (!schema_load(txn, &loaded)) return false;
    *out_live = key < loaded->table_count && !(loaded->tables[key].flags & TABLE_REMOVED);
    return true;
}

bool table_property_at(ce_txn *txn, ce_table_key key, ce_column_key column, table_property *out_property,
                       bool *out_live)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_live = column < table->property_count && schema_property_is_live(&table->properties[column]);
    if (*out_live) describe_for_query(table, column, out_property);
    return true;
}

/* Two versions' spaces and the scratch buffers their compressed values
 * are read into. */
typedef struct version_pair {
    const space_state *old_space, *new_space;
    column_scratch old_scratch, new_scratch;
} version_pair;

static bool mixed_equal(version_pair *pair, space_ref old_ref, space_ref new_ref, unsigned depth, bool *out_equal);

/* Two collections of `type` elements (COLUMN_TYPE_OWNED_REFS: mixed
 * values), element by element. */
static bool collections_equal(version_pair *pair, space_ref old_root, space_ref new_root, ce_type type, bool nullable,
                              unsigned depth, bool *out_equal)
{
    *out_equal = true;
    if (old_root == new_root) return true;
    collection_reader old_reader, new_reader;
    if (!collection_reader_open(pair->old_space, old_root, type, nullable, &old_reader) ||
        !collection_reader_open(pair->new_space, new_root, type, nullable, &new_reader))
        return false;
    size_t count = collection_reader_size(&old_reader);
    if (count != collection_reader_size(&new_reader)) {
        *out_equal = false;
        return true;
    }
    for (size_t i = 0; i < count && *out_equal; i++) {
        ce_value old_value, new_value;
        if (!collection_reader_get(&old_reader, i, &pair->old_scratch, &old_value) ||
            !collection_reader_get(&new_reader, i, &pair->new_scratch, &new_value))
            return false;
        if (type != COLUMN_TYPE_OWNED_REFS) *out_equal = value_identical(&old_value, &new_value);
        else if (!mixed_equal(pair, (space_ref)old_value.integer, (space_ref)new_value.integer, depth + 1, out_equal))
            return false;
    }
    return true;
}

static bool dictionaries_equal(version_pair *pair, space_ref old_root, space_ref new_root, ce_type type, bool nullable,
                               unsigned depth, bool *out_equal)
{
    *out_equal = true;
    if (old_root == new_root) return true;
    space_ref old_keys, old_values, new_keys, new_values;
    if (!containers_dictionary_parts(pair->old_space, old_root, &old_keys, &old_values) ||
        !containers_dictionary_parts(pair->new_space, new_root, &new_keys, &new_values) ||
        !collections_equal(pair, old_keys, new_keys, CE_TYPE_STRING, false, depth, out_equal))
        return false;
    return !*out_equal || collections_equal(pair, old_values, new_values, type, nullable, depth, out_equal);
}

static bool mixed_equal(version_pair *pair, space_ref old_ref, space_ref new_ref, unsigned depth, bool *out_equal)
{
    *out_equal = true;
    if (old_ref == new_ref) return true;
    if (depth > MAX_NESTING)
        return error_fail(CE_ERR_CORRUPT, "invalid database: mixed values nest deeper than %d levels", MAX_NESTING);
    ce_value old_value, new_value;
    space_ref old_root, new_root;
    if (!mixed_read(pair->old_space, old_ref, &old_value, &old_root) ||
        !mixed_read(pair->new_space, new_ref, &new_value, &new_root))
        return false;
    if (old_value.type != new_value.type) {
        *out_equal = false;
        return true;
    }
    if (old_value.type == CE_TYPE_LIST)
        return collections_equal(pair, old_root, new_root, COLUMN_TYPE_OWNED_REFS, false, depth, out_equal);
    if (old_value.type == CE_TYPE_DICTIONARY)
        return dictionaries_equal(pair, old_root, new_root, COLUMN_TYPE_OWNED_REFS, false, depth, out_equal);
    *out_equal = value_identical(&old_value, &new_value);
    return true;
}

bool table_stored_equal(const space_state *old_space, const space_state *new_space, const table_property *property,
                        const ce_value *old_stored, const ce_value *new_stored, bool *out_equal)
{
    bool owned = property->collection != CE_COLLECTION_NONE || property->type == CE_TYPE_MIXED;
    if (property->backlink)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "backlink property of table %u: not a stored value",
                          (unsigned)property->link_target);
    if (!owned) {
        *out_equal = value_identical(old_stored, new_stored);
        return true;
    }
    if (old_stored->type != CE_TYPE_INT || new_stored->type != CE_TYPE_INT)
        return error_fail(CE_ERR_CORRUPT, "invalid database: property '%s' holds no tree", property->name);
    space_ref old_root = (space_ref)old_stored->integer, new_root = (space_ref)new_stored->integer;
    version_pair pair = {old_space, new_space, CE_COLUMN_SCRATCH_INIT, CE_COLUMN_SCRATCH_INIT};
    element_spec spec = {property->type, property->nullable, property->link_target, false, "", property->name};
    ce_type type;
    bool nullable, ok;
    object_storage_of(&spec, &type, &nullable);
    if (property->collection == CE_COLLECTION_NONE) ok = mixed_equal(&pair, old_root, new_root, 0, out_equal);
    else if (property->collection == CE_COLLECTION_DICTIONARY)
        ok = dictionaries_equal(&pair, old_root, new_root, type, nullable, 0, out_equal);
    else ok = collections_equal(&pair, old_root, new_root, type, nullable, 0, out_equal);
    column_scratch_free(&pair.old_scratch);
    column_scratch_free(&pair.new_scratch);
    return ok;
}
