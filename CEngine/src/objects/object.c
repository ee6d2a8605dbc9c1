/*
 * object.c — objects through the public API (cengine.h, "Objects"):
 * creating, finding, reading and changing them (ce_object_delete hands the
 * deletion to links.c).
 *
 * Owns: the values of objects: the checks of the values given (whose
 * messages name the table, the property and the value), the form each is
 * stored in (links as key + 1, mixed values as trees, see mixed.c), and the
 * buffer that puts a bulk load into the cluster tree a whole leaf at a time
 * ("Appending").
 * Never: keeps backlinks true or deletes objects (links.c), edits
 * collections (containers.c), lays out column values (column.c), index
 * nodes (index.c) or the cluster tree (cluster.c), or touches the file.
 */
#include "cengine.h"
#include "cluster.h"
#include "collection.h"
#include "db.h"
#include "error.h"
#include "history.h"
#include "index.h"
#include "mixed.h"
#include "node.h"
#include "object_index.h"
#include "table_internal.h"
#include "value.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Values: the checks that name the table and property                     */
/* ------------------------------------------------------------------------ */

static void describe_value(const ce_value *value, char *text, size_t size)
{
    switch (value->type) {
    case CE_TYPE_NULL: snprintf(text, size, "null"); break;
    case CE_TYPE_INT: snprintf(text, size, "%lld", (long long)value->integer); break;
    case CE_TYPE_BOOL: snprintf(text, size, "%s", value->boolean ? "true" : "false"); break;
    case CE_TYPE_DOUBLE: snprintf(text, size, "%g", value->double_value); break;
    case CE_TYPE_FLOAT: snprintf(text, size, "%g", (double)value->float_value); break;
    case CE_TYPE_STRING:
        snprintf(text, size, "'%.*s'", value->string.size > 40 ? 40 : (int)value->string.size,
                 value->string.data ? value->string.data : "");
        break;
    case CE_TYPE_LINK:
        snprintf(text, size, "a link to object %lld of table %u", (long long)value->link.key, (unsigned)value->link.table);
        break;
    default: snprintf(text, size, "a %s", ce_type_name(value->type)); break;
    }
}

element_spec object_spec_of_property(const schema_table *table, const schema_property *property)
{
    element_spec spec = {property->type, (property->flags & PROPERTY_NULLABLE) != 0, property->link_target,
                         property->collection == CE_COLLECTION_SET, table->name, property->name};
    if (property->type == CE_TYPE_MIXED) spec.nullable = true;
    return spec;
}

element_spec object_nested_spec(const element_spec *parent)
{
    element_spec spec = *parent;
    spec.type = CE_TYPE_MIXED;
    spec.nullable = true;
    spec.in_set = false;
    return spec;
}

/* The column type and nullability an element is stored with. */
void object_storage_of(const element_spec *spec, ce_type *out_type, bool *out_nullable)
{
    *out_type = spec->type == CE_TYPE_LINK ? CE_TYPE_INT : spec->type == CE_TYPE_MIXED ? COLUMN_TYPE_OWNED_REFS : spec->type;
    *out_nullable = spec->type != CE_TYPE_LINK && spec->type != CE_TYPE_MIXED && spec->nullable;
}

bool object_bytes_missing(const element_spec *spec, const ce_value *value)
{
    return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': a %s value of %zu bytes has no data", SPEC_WHERE(spec),
                   ce_type_name(value->type), value->string.size);
}

static bool check_scalar_bytes(const element_spec *spec, const ce_value *value)
{
    if (value_bytes_missing(value)) return object_bytes_missing(spec, value);
    if (value->type == CE_TYPE_STRING && !utf8_is_valid(value->string.data, value->string.size))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': the string is not valid UTF-8", SPEC_WHERE(spec));
    /* The column layer refuses a malformed timestamp too, but only when it
     * writes the value: after cluster_insert has inserted the object's key
     * and the values of the columns before it (create with values), or
     * after the index has traded the old value for the new one (a set of an
     * indexed timestamp). Checked here, a bad value changes nothing. */
    if (value->type == CE_TYPE_TIMESTAMP && !value_timestamp_is_valid(value->timestamp))
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                       "property '%s.%s': the timestamp (%lld s, %d ns) is malformed: nanoseconds must lie within "
                       "+-999999999 and have the sign of seconds",
                       SPEC_WHERE(spec), (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
    if ((value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) && value->string.size > NODE_MAX_COUNT - 1)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': a value of %zu bytes is too large", SPEC_WHERE(spec),
                       value->string.size);
    return true;
}

/* The target of a link being stored: a live table (the property's target,
 * for a typed link), an existing object, and not an embedded one (those are
 * linked only when created, through their parent). */
static bool check_link_target(ce_txn *txn, schema *loaded, const element_spec *spec, ce_link link)
{
    if (spec->type == CE_TYPE_LINK && link.table != spec->link_target)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' links to table '%s', not to table %u", SPEC_WHERE(spec),
                       loaded->tables[spec->link_target].name, (unsigned)link.table);
    if (link.table >= loaded->table_count || (loaded->tables[link.table].flags & TABLE_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_TABLE, "property '%s.%s': no table with key %u to link to", SPEC_WHERE(spec),
                       (unsigned)link.table);
    const schema_table *target = &loaded->tables[link.table];
    if (target->flags & TABLE_EMBEDDED)
        return error_fail(CE_ERR_EMBEDDED_OBJECT,
                       "property '%s.%s': cannot set a link to an existing managed embedded object of type '%s' (create it "
                       "through its parent instead)",
                       SPEC_WHERE(spec), target->name);
    bool exists;
    if (!object_exists(txn, link.table, link.key, &exists)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "property '%s.%s': the linked object %lld of type '%s' does not exist",
                       SPEC_WHERE(spec), (long long)link.key, target->name);
    return true;
}

/* Checks a value for an element (or a property of one value). */
bool object_check_element(ce_txn *txn, schema *loaded, const element_spec *spec, const ce_value *value)
{
    if (!value) return error_fail(CE_ERR_INVALID_ARGUMENT, "a value is required");
    if (!value_check_type(value)) return false;
    if (value->type == CE_TYPE_NULL) {
        if (spec->nullable) return true;
        return error_fail(CE_ERR_NULL_NOT_ALLOWED, "property '%s.%s' is required: it cannot be null", SPEC_WHERE(spec));
    }
    if (spec->type == CE_TYPE_MIXED) {
        if (value->type == CE_TYPE_MIXED)
            return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is mixed: it cannot hold a value of type %d", SPEC_WHERE(spec),
                           (int)value->type);
        if (spec->in_set && (value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY))
            return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': a set cannot hold a nested collection", SPEC_WHERE(spec));
        if (value->type == CE_TYPE_LINK) return check_link_target(txn, loaded, spec, value->link);
        return check_scalar_bytes(spec, value);
    }
    if (value->type != spec->type) {
        char text[96];
        describe_value(value, text, sizeof text);
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is of type %s, not %s (value %s)", SPEC_WHERE(spec),
                       ce_type_name(spec->type), ce_type_name(value->type), text);
    }
    if (value->type == CE_TYPE_LINK) return check_link_target(txn, loaded, spec, value->link);
    return check_scalar_bytes(spec, value);
}

static bool not_one_value(const schema_table *table, const schema_property *property)
{
    if (property->flags & PROPERTY_BACKLINK)
        return error_fail(CE_ERR_WRONG_TYPE, "'%s.%s' is a backlink property: read it with ce_object_backlink_count",
                       table->name, property->name);
    return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is a %s: open it with ce_collection_open", table->name,
                   property->name,
                   property->collection == CE_COLLECTION_LIST ? "list"
                   : property->collection == CE_COLLECTION_SET ? "set"
                                                               : "dictionary");
}

static bool holds_one_value(const schema_property *property)
{
    return property->collection == CE_COLLECTION_NONE && !(property->flags & PROPERTY_BACKLINK);
}

static bool check_value(ce_txn *txn, schema *loaded, const schema_table *table, const schema_property *property,
                        const ce_value *value)
{
    /* The common case first: a number or bool of the property's own type,
     * which needs no further check. */
    if (value && value->type == property->type && property->collection == CE_COLLECTION_NONE &&
        !(property->flags & PROPERTY_BACKLINK) &&
        (value->type == CE_TYPE_INT || value->type == CE_TYPE_DOUBLE || value->type == CE_TYPE_BOOL ||
         value->type == CE_TYPE_FLOAT))
        return true;
    if (!holds_one_value(property)) return not_one_value(table, property);
    element_spec spec = object_spec_of_property(table, property);
    return object_check_element(txn, loaded, &spec, value);
}

/* Checks one value per column slot (a whole object's values). Collection
 * and backlink slots take null (a new object's collections are empty). */
static bool check_values(ce_txn *txn, schema *loaded, const schema_table *table, const ce_value *values,
                         size_t value_count)
{
    if (value_count != table->property_count)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has %zu column slots, %zu values were given", table->name,
                       table->property_count, value_count);
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (!schema_property_is_live(property)) continue;
        if (!holds_one_value(property)) {
            if (values[c].type != CE_TYPE_NULL) return not_one_value(table, property);
            continue;
        }
        const ce_value *value = &values[c];
        /* The common case first: a value of the property's scalar type that
         * needs no further check (check_value finds and words any fault). */
        if (value->type == property->type && value->type != CE_TYPE_STRING && value->type != CE_TYPE_BINARY &&
            value->type != CE_TYPE_TIMESTAMP && value->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED)
            continue;
        if (value->type == CE_TYPE_STRING && property->type == CE_TYPE_STRING && value->string.size < 4096 &&
            (value->string.data || value->string.size == 0) && utf8_is_valid(value->string.data, value->string.size))
            continue;
        if (!check_value(txn, loaded, table, property, value)) return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Values: the form they are stored in (mixed values: mixed.c)              */
/* ------------------------------------------------------------------------ */

/* A value as stored in its column or collection (links as key + 1, mixed
 * values as the ref of a new tree). Checked before. */
bool object_encode_element(space_state *space, const element_spec *spec, const ce_value *value, ce_value *out_stored)
{
    if (spec->type == CE_TYPE_LINK) {
        *out_stored = (ce_value){.type = CE_TYPE_INT, .integer = value->type == CE_TYPE_NULL ? 0 : value->link.key + 1};
        return true;
    }
    if (spec->type == CE_TYPE_MIXED) {
        space_ref ref;
        if (!mixed_create(space, value, &ref)) return false;
        *out_stored = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)ref};
        return true;
    }
    *out_stored = *value;
    return true;
}

bool object_decode_element(const space_state *space, const element_spec *spec, const ce_value *stored, ce_value *out_value)
{
    if (spec->type == CE_TYPE_LINK) {
        if (stored->type != CE_TYPE_INT || stored->integer < 0)
            return error_fail(CE_ERR_CORRUPT, "invalid database: property '%s.%s' holds a bad link", SPEC_WHERE(spec));
        if (stored->integer == 0) *out_value = (ce_value){.type = CE_TYPE_NULL};
        else *out_value = (ce_value){.type = CE_TYPE_LINK, .link = {spec->link_target, stored->integer - 1}};
        return true;
    }
    if (spec->type == CE_TYPE_MIXED) return mixed_read(space, (space_ref)stored->integer, out_value, NULL);
    *out_value = *stored;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Stored values of one object                                               */
/* ------------------------------------------------------------------------ */

bool object_read_stored(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                        ce_value *out_stored)
{
    table_refs refs;
    cluster_schema columns = schema_cluster_columns(&loaded->tables[key]);
    return schema_table_refs_for_read(txn, key, &refs) &&
           cluster_get(db_txn_space(txn), refs.cluster, &columns, object, column, &loaded->scratch,
                       refs.hint, out_stored);
}

bool object_write_stored(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                         const ce_value *stored)
{
    table_refs refs;
    cluster_schema columns = schema_cluster_columns(&loaded->tables[key]);
    /* Backlinks are the engine's bookkeeping, not a change of the target
     * (as in Realm): the history records the origin's change only. */
    return schema_table_refs_for_write(txn, key, &refs) &&
           cluster_set(db_txn_space(txn), &refs.cluster, &columns, object, column, stored, refs.hint) &&
           schema_store_table_refs(txn, &refs) &&
           ((loaded->tables[key].properties[column].flags & PROPERTY_BACKLINK) ||
            history_object_modified(txn, key, object, (ce_column_key)column));
}

bool object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists)
{
    table_refs refs;
    cluster_position position;
    return schema_table_refs_for_read(txn, key, &refs) &&
           cluster_find(db_txn_space(txn), refs.cluster, object, &position, out_exists, NULL);
}

bool object_require(ce_txn *txn, const table_refs *refs, const schema_table *table, ce_object_key object)
{
    bool exists;
    cluster_position position;
    if (!cluster_find(db_txn_space(txn), refs->cluster, object, &position, &exists, NULL)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld of type '%s' does not exist (it was deleted, or never existed)",
                       (long long)object, table->name);
    return true;
}

/* After a call into the cluster tree failed, which reports a missing
 * object itself: that error gets object_require's message, which names the
 * table (one descent for the call, a second only on this error path). */
static bool fail_for_missing_object(ce_txn *txn, const table_refs *refs, const schema_table *table,
                                    ce_object_key object)
{
    if (ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT) (void)object_require(txn, refs, table, object);
    return false;
}

/* ------------------------------------------------------------------------ */
/* Objects                                                                   */
/* ------------------------------------------------------------------------ */

static bool duplicate_primary_key(const schema_table *table, const ce_value *value)
{
    char text[96];
    describe_value(value, text, sizeof text);
    return error_fail(CE_ERR_DUPLICATE_PRIMARY_KEY,
                   "Attempting to create an object of type '%s' with an existing primary key value %s.", table->name,
                   text);
}

static bool embedded_directly(const schema_table *table)
{
    return error_fail(CE_ERR_EMBEDDED_OBJECT,
                   "cannot create an object of embedded type '%s' directly: embedded objects are created through "
                   "their parent",
                   table->name);
}

/* Keeps TABLE_KEYS_FOLLOW true for a new object of `key` whose primary key
 * is `primary_key` (the caller stores the refs). */
static void note_primary_key_of_new_object(table_refs *refs, ce_object_key key, const ce_value *primary_key)
{
    if (refs->keys_follow == KEYS_DO_NOT_FOLLOW) return;
    int64_t offset;
    if (primary_key->type != CE_TYPE_INT || __builtin_sub_overflow(primary_key->integer, key, &offset) ||
        offset >= KEYS_FOLLOW_OFFSET_LIMIT || offset <= -KEYS_FOLLOW_OFFSET_LIMIT ||
        (refs->keys_follow == KEYS_FOLLOW && offset != refs->primary_key_offset)) {
        refs->keys_follow = KEYS_DO_NOT_FOLLOW;
        return;
    }
    refs->keys_follow = KEYS_FOLLOW;
    refs->primary_key_offset = offset;
}

/* Creates an object from checked values (one per column slot). */
static bool create_object(ce_txn *txn, schema *loaded, ce_table_key key, const ce_value *values,
                          ce_object_key *out_object)
{
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!schema_table_refs_for_write(txn, key, &refs)) return false;
    if (table->primary_key != NO_PRIMARY_KEY) {
        bool exists;
        ce_object_key existing;
        const ce_value *primary_key = &values[table->primary_key];
        if (!object_index_find(txn, loaded, &refs, table, table->primary_key, primary_key, &existing, &exists))
            return false;
        if (exists) return duplicate_primary_key(table, primary_key);
    }
    space_state *space = db_txn_space(txn);
    bool has_links = false;
    ce_value *stored = malloc((table->property_count + 1) * sizeof *stored);
    if (!stored) return schema_out_of_memory();
    bool ok = true;
    for (size_t c = 0; c < table->property_count && ok; c++) {
        const schema_property *property = &table->properties[c];
        stored[c] = values[c];
        if (!schema_property_is_live(property)) continue;
        if (!holds_one_value(property)) {
            stored[c] = object_stored_ref(0);
            continue;
        }
        has_links = has_links || schema_property_holds_links(property);
        element_spec spec = object_spec_of_property(table, property);
        ok = object_encode_element(space, &spec, &values[c], &stored[c]);
    }
    cluster_schema columns = schema_cluster_columns(table);
    ce_object_key object = refs.next_key;
    if (table->primary_key != NO_PRIMARY_KEY) note_primary_key_of_new_object(&refs, object, &values[table->primary_key]);
    ok = ok && cluster_insert(space, &refs.cluster, &columns, object, stored, refs.hint) && history_object_inserted(txn, key, object);
    for (size_t c = 0; c < table->property_count && ok; c++)
        if (schema_column_is_indexed(table, c))
            ok = object_index_update(txn, &refs, table, c, &values[c], object, true);
    refs.next_key = object + 1;
    ok = ok && schema_store_table_refs(txn, &refs);
    for (size_t c = 0; c < table->property_count && ok && has_links; c++) {
        if (!schema_property_holds_links(&table->properties[c]) || !holds_one_value(&table->properties[c])) continue;
        element_spec spec = object_spec_of_property(table, &table->properties[c]);
        link_list links = {0}, none = {0};
        link_origin origin = {key, c, object};
        ok = links_collect(space, &spec, &stored[c], &links, 0) &&
             links_apply_changes(txn, loaded, &origin, &links, &none, 0);
        free(links.items);
    }
    free(stored);
    if (!ok) return false;
    *out_object = object;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Appending: objects of a plain table created one after another are        */
/* buffered and enter the cluster tree (and the primary-key index) a whole  */
/* leaf at a time. Every other access to the table goes through             */
/* schema_table_refs_for_read/_write (schema.c), which flush the buffer     */
/* first, and so does the commit; a rollback drops it with the rest of the  */
/* transaction.                                                             */
/* ------------------------------------------------------------------------ */

static bool store_buffered_objects(ce_txn *txn, schema *loaded)
{
    append_buffer *buffer = &loaded->append;
    if (!buffer->active) return true;
    buffer->active = false; /* the table_refs calls below must not flush again */
    size_t count = buffer->count;
    buffer->count = 0;
    if (count == 0) return true;
    ce_table_key key = buffer->table;
    schema_table *table = &loaded->tables[key];
    for (size_t c = 0; c < table->property_count; c++)
        for (size_t i = 0; i < count; i++) {
            ce_value *value = &buffer->values[c * CLUSTER_LEAF_MAX + i];
            if ((value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) && value->string.size > 0)
                value->string.data = (const char *)buffer->arena + buffer->arena_offsets[c * CLUSTER_LEAF_MAX + i];
        }
    buffer->arena_size = 0;
    /* cluster_append_objects reads column c's values at values[c * count + i]. */
    if (count < CLUSTER_LEAF_MAX)
        for (size_t c = 1; c < table->property_count; c++)
            memmove(&buffer->values[c * count], &buffer->values[c * CLUSTER_LEAF_MAX], count * sizeof *buffer->values);
    table_refs refs;
    space_state *space = db_txn_space(txn);
    cluster_schema columns = schema_cluster_columns(table);
    if (!schema_table_refs_for_write(txn, key, &refs) ||
        !cluster_append_objects(space, &refs.cluster, &columns, buffer->first_key, count, buffer->values, refs.hint))
        return false;
    if (table->primary_key != NO_PRIMARY_KEY) {
        int64_t pairs[2 * CLUSTER_LEAF_MAX];
        const ce_value *keys = &buffer->values[table->primary_key * count];
        for (size_t i = 0; i < count; i++) {
            pairs[2 * i] = keys[i].integer;
            pairs[2 * i + 1] = buffer->first_key + (int64_t)i;
            note_primary_key_of_new_object(&refs, buffer->first_key + (int64_t)i, &keys[i]);
        }
        space_ref root;
        if (!object_index_root(txn, &refs, table->primary_key, &root)) return false;
        if (!root) return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' has a primary key but no index",
                                  table->name);
        /* The index's leaves in a lane of the arena apart from the
         * cluster's (storage/arena.h): the commit places the cluster
         * first, and its memory goes back while the index is placed. */
        space_set_arena_lane(space, 1);
        bool appended = index_append(space, &root, pairs, count);
        space_set_arena_lane(space, 0);
        if (!appended || !object_index_set_root(txn, &refs, table, table->primary_key, root)) return false;
    }
    refs.next_key = buffer->first_key + (int64_t)count;
    return schema_store_table_refs(txn, &refs) && history_objects_inserted(txn, key, buffer->first_key, count);
}

bool object_flush_appends(ce_txn *txn, schema *loaded)
{
    if (store_buffered_objects(txn, loaded)) return true;
    loaded->append.lost = true;
    return false;
}

/* The commit's call (db.h, db_txn_set_before_commit; schema_load sets it
 * for every write transaction): the objects buffered go into their trees,
 * then the history writes what the transaction changed. */
bool object_before_commit(ce_txn *txn, void *state)
{
    schema *loaded = state;
    if (!object_flush_appends(txn, loaded)) return false;
    if (loaded->append.lost)
        return error_fail(CE_ERR_FAIL, "objects created in this transaction could not be stored (an earlier call failed): "
                                    "the transaction cannot commit; roll it back");
    return history_write(txn);
}

static bool append_object(ce_txn *txn, schema *loaded, ce_table_key key, const ce_value *values,
                          ce_object_key *out_object)
{
    append_buffer *buffer = &loaded->append;
    schema_table *table = &loaded->tables[key];
    if (buffer->active && buffer->table != key && !object_flush_appends(txn, loaded)) return false;
    if (!buffer->active) {
        table_refs refs;
        if (!schema_table_refs_for_read(txn, key, &refs)) return false;
        if (buffer->column_capacity < table->property_count + 1) {
            size_t slots = (table->property_count + 1) * CLUSTER_LEAF_MAX;
            ce_value *grown = realloc(buffer->values, slots * sizeof *grown);
            if (!grown) return schema_out_of_memory();
            buffer->values = grown;
            size_t *offsets = realloc(buffer->arena_offsets, slots * sizeof *offsets);
            if (!offsets) return schema_out_of_memory();
            buffer->arena_offsets = offsets;
            buffer->column_capacity = table->property_count + 1;
        }
        buffer->has_last_primary_key = false;
        if (table->primary_key != NO_PRIMARY_KEY) {
            space_ref root;
            int64_t last_object;
            if (!object_index_root(txn, &refs, table->primary_key, &root)) return false;
            if (root && !index_last(db_txn_space(txn), root, &buffer->last_primary_key, &last_object,
                                    &buffer->has_last_primary_key))
                return false;
        }
        *buffer = (append_buffer){.active = true, .lost = buffer->lost, .table = key, .count = 0,
                                  .first_key = refs.next_key, .has_last_primary_key = buffer->has_last_primary_key,
                                  .last_primary_key = buffer->last_primary_key, .values = buffer->values,
                                  .arena_offsets = buffer->arena_offsets, .column_capacity = buffer->column_capacity,
                                  .arena = buffer->arena, .arena_size = 0, .arena_capacity = buffer->arena_capacity};
    }
    if (table->primary_key != NO_PRIMARY_KEY) {
        int64_t primary_key = values[table->primary_key].integer;
        if (buffer->has_last_primary_key && primary_key <= buffer->last_primary_key) {
            /* Not ascending: uniqueness needs the index. */
            return object_flush_appends(txn, loaded) && create_object(txn, loaded, key, values, out_object);
        }
        buffer->last_primary_key = primary_key;
        buffer->has_last_primary_key = true;
    }
    size_t at = buffer->count;
    for (size_t c = 0; c < table->property_count; c++) {
        const ce_value *value = &values[c];
        ce_value *slot = &buffer->values[c * CLUSTER_LEAF_MAX + at];
        if (table->properties[c].flags & PROPERTY_REMOVED) {
            *slot = (ce_value){.type = CE_TYPE_NULL};
            continue;
        }
        /* Member by member, each as the caller wrote it: a wider load of a
         * value the caller has just stored in narrower pieces waits for
         * them to reach the cache (store forwarding fails). */
        slot->type = value->type;
        switch (value->type) {
        case CE_TYPE_INT: slot->integer = value->integer; break;
        case CE_TYPE_BOOL: slot->boolean = value->boolean; break;
        case CE_TYPE_FLOAT: slot->float_value = value->float_value; break;
        case CE_TYPE_DOUBLE: slot->double_value = value->double_value; break;
        case CE_TYPE_STRING:
        case CE_TYPE_BINARY: {
            size_t size = value->string.size;
            slot->string.size = size;
            slot->string.data = value->string.data;
            if (size == 0) break;
            if (buffer->arena_size + size > buffer->arena_capacity) {
                size_t grown = buffer->arena_capacity ? buffer->arena_capacity * 2 : 16384;
                while (grown < buffer->arena_size + size) grown *= 2;
                uint8_t *arena = realloc(buffer->arena, grown);
                if (!arena) return schema_out_of_memory();
                buffer->arena = arena;
                buffer->arena_capacity = grown;
            }
            memcpy(buffer->arena + buffer->arena_size, value->string.data, size);
            buffer->arena_offsets[c * CLUSTER_LEAF_MAX + at] = buffer->arena_size;
            buffer->arena_size += size;
            slot->string.data = NULL; /* set at the flush, when the arena no longer moves */
            break;
        }
        default: *slot = *value; break;
        }
    }
    buffer->count++;
    *out_object = buffer->first_key + (int64_t)at;
    return buffer->count < CLUSTER_LEAF_MAX || object_flush_appends(txn, loaded);
}

/* A new object's values, one per column slot: each scalar property's
 * default, null for links, mixed values and collections (NULL when out of
 * memory; the caller frees the array). */
static ce_value *default_values(const schema_table *table)
{
    ce_value *values = malloc((table->property_count + 1) * sizeof *values);
    if (!values) return NULL;
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        values[c] = holds_one_value(property) && property->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED
                        ? value_default(property->type, (property->flags & PROPERTY_NULLABLE) != 0)
                        : (ce_value){.type = CE_TYPE_NULL};
    }
    return values;
}

bool ce_object_create(ce_txn *txn, ce_table_key key, const ce_value *primary_key, ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create: out_object is required");
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table)) return false;
    if (table->flags & TABLE_EMBEDDED) return embedded_directly(table);
    if (table->primary_key == NO_PRIMARY_KEY && primary_key)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key, but one was given", table->name);
    if (table->primary_key != NO_PRIMARY_KEY) {
        const schema_property *property = &table->properties[table->primary_key];
        if (!primary_key)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' needs a primary key value ('%s')", table->name,
                           property->name);
        if (!check_value(txn, loaded, table, property, primary_key)) return false;
    }
    ce_value *values = default_values(table);
    if (!values) return schema_out_of_memory();
    if (primary_key) values[table->primary_key] = *primary_key;
    bool ok = create_object(txn, loaded, key, values, out_object);
    free(values);
    return ok;
}

/* The values of a whole object, one per column slot. A caller may give
 * fewer when every slot past them is a backlink or removed property: the
 * first mixed link into a table adds a backlink slot to it, which a binding
 * that learned the column count before should not have to know about. Those
 * slots take null. *out_padded is NULL or an array the caller frees. */
static bool with_all_slots(const schema_table *table, const ce_value *values, size_t *value_count,
                           ce_value **out_padded)
{
    *out_padded = NULL;
    if (*value_count >= table->property_count) return true;
    for (size_t c = *value_count; c < table->property_count; c++)
        if (schema_property_is_live(&table->properties[c]) && !(table->properties[c].flags & PROPERTY_BACKLINK))
            return true;
    ce_value *padded = malloc((table->property_count + 1) * sizeof *padded);
    if (!padded) return schema_out_of_memory();
    memcpy(padded, values, *value_count * sizeof *padded);
    for (size_t c = *value_count; c < table->property_count; c++) padded[c] = (ce_value){.type = CE_TYPE_NULL};
    *value_count = table->property_count;
    *out_padded = padded;
    return true;
}

bool ce_object_create_with_values(ce_txn *txn, ce_table_key key, const ce_value *values, size_t value_count,
                                  ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!values || !out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_with_values: arguments are required");
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table)) return false;
    if (table->flags & TABLE_EMBEDDED) return embedded_directly(table);
    ce_value *padded;
    if (!with_all_slots(table, values, &value_count, &padded)) return false;
    if (padded) values = padded;
    bool ok = check_values(txn, loaded, table, values, value_count) &&
              (table->appendable ? append_object(txn, loaded, key, values, out_object)
                                 : create_object(txn, loaded, key, values, out_object));
    free(padded);
    return ok;
}

/* Whether the object `values` describes is sure to be new without a look in
 * the primary-key index: its table buffers creations (an int primary key)
 * and the key is above every key of the table, buffered ones included. Keys
 * given in ascending order (an import, a load) are then appended, without
 * the index lookup and the flush of the buffer it would need. */
static bool primary_key_above_all(ce_txn *txn, schema *loaded, ce_table_key key, const schema_table *table,
                                  const ce_value *values, bool *out_above)
{
    const append_buffer *buffer = &loaded->append;
    *out_above = false;
    if (!table->appendable || table->primary_key == NO_PRIMARY_KEY) return true;
    int64_t primary_key = values[table->primary_key].integer;
    if (buffer->active && buffer->table == key) {
        *out_above = !buffer->has_last_primary_key || primary_key > buffer->last_primary_key;
        return true;
    }
    table_refs refs;
    space_ref root;
    int64_t last_primary_key, last_object;
    bool has_last = false;
    if (!schema_table_refs_for_read(txn, key, &refs) || !object_index_root(txn, &refs, table->primary_key, &root))
        return false;
    if (root && !index_last(db_txn_space(txn), root, &last_primary_key, &last_object, &has_last)) return false;
    *out_above = !has_last || primary_key > last_primary_key;
    return true;
}

bool ce_object_create_or_update(ce_txn *txn, ce_table_key key, const ce_value *values, size_t value_count,
                                ce_update_policy policy, ce_object_key *out_object, bool *out_created)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!values || !out_object || !out_created)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_or_update: arguments are required");
    if (policy != CE_UPDATE_ERROR && policy != CE_UPDATE_MODIFIED && policy != CE_UPDATE_ALL &&
        policy != CE_UPDATE_MODIFIED_KEEP_EMBEDDED)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "unknown update policy %d", (int)policy);
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table)) return false;
    *out_created = true;
    if (policy == CE_UPDATE_ERROR) return ce_object_create_with_values(txn, key, values, value_count, out_object);
    if (table->primary_key == NO_PRIMARY_KEY)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key: objects cannot be updated by key",
                       table->name);
    ce_value *padded;
    if (!with_all_slots(table, values, &value_count, &padded)) return false;
    if (padded) {
        bool ok = ce_object_create_or_update(txn, key, padded, value_count, policy, out_object, out_created);
        free(padded);
        return ok;
    }
    if (!check_values(txn, loaded, table, values, value_count)) return false;
    bool above;
    if (!primary_key_above_all(txn, loaded, key, table, values, &above)) return false;
    if (above) return append_object(txn, loaded, key, values, out_object);
    bool exists;
    ce_object_key existing;
    if (!schema_table_refs_for_read(txn, key, &refs) ||
        !object_index_find(txn, loaded, &refs, table, table->primary_key, &values[table->primary_key], &existing,
                           &exists))
        return false;
    if (!exists) return create_object(txn, loaded, key, values, out_object);
    *out_created = false;
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (c == table->primary_key || !schema_property_is_live(property) || !holds_one_value(property)) continue;
        if (policy == CE_UPDATE_MODIFIED_KEEP_EMBEDDED && values[c].type == CE_TYPE_NULL && property->type == CE_TYPE_LINK &&
            (loaded->tables[property->link_target].flags & TABLE_EMBEDDED))
            continue;
        if (policy == CE_UPDATE_MODIFIED || policy == CE_UPDATE_MODIFIED_KEEP_EMBEDDED) {
            ce_value current;
            if (!ce_object_get(txn, key, existing, (ce_column_key)c, &current)) return false;
            if (value_equal(&current, &values[c]) && current.type == values[c].type &&
                current.type != CE_TYPE_LIST && current.type != CE_TYPE_DICTIONARY)
                continue;
        }
        if (!ce_object_set(txn, key, existing, (ce_column_key)c, &values[c])) return false;
    }
    *out_object = existing;
    return true;
}

bool ce_object_find_primary_key(ce_txn *txn, ce_table_key key, const ce_value *primary_key,
                                ce_object_key *out_object, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!primary_key || !out_object || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_find_primary_key: arguments are required");
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    if (table->primary_key == NO_PRIMARY_KEY)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key", table->name);
    if (!check_value(txn, loaded, table, &table->properties[table->primary_key], primary_key) ||
        !schema_table_refs_for_read(txn, key, &refs))
        return false;
    return object_index_find(txn, loaded, &refs, table, table->primary_key, primary_key, out_object, out_found);
}

bool ce_object_find_first(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                          ce_object_key *out_object, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!value || !out_object || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_find_first: arguments are required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property)) return false;
    if (!holds_one_value(property) || property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
        return error_fail(CE_ERR_WRONG_TYPE, "ce_object_find_first: property '%s.%s' is not a scalar property",
                       table->name, property->name);
    if (!check_value(txn, loaded, table, property, value) || !schema_table_refs_for_read(txn, key, &refs)) return false;
    return object_index_find(txn, loaded, &refs, table, column, value, out_object, out_found);
}

bool ce_object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_exists) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_exists: out_exists is required");
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    return object_exists(txn, key, object, out_exists);
}

bool ce_object_delete(ce_txn *txn, ce_table_key key, ce_object_key object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table)) return false;
    return links_delete_object(txn, loaded, key, object, 0);
}

bool ce_object_get(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column, ce_value *out_value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_value) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_get: out_value is required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property) ||
        !schema_table_refs_for_read(txn, key, &refs))
        return false;
    if (!holds_one_value(property)) return not_one_value(table, property);
    cluster_schema columns = schema_cluster_columns(table);
    if (!cluster_get(db_txn_space(txn), refs.cluster, &columns, object, column, &loaded->scratch, refs.hint,
                     out_value))
        return fail_for_missing_object(txn, &refs, table, object);
    if (property->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED) return true;
    ce_value stored = *out_value;
    element_spec spec = object_spec_of_property(table, property);
    return object_decode_element(db_txn_space(txn), &spec, &stored, out_value);
}

bool object_nested_size(const space_state *space, const element_spec *spec, const ce_value *stored, bool *out_holds,
                        size_t *out_count)
{
    ce_value value;
    space_ref root, values;
    *out_holds = false;
    *out_count = 0;
    if (spec->type != CE_TYPE_MIXED || stored->integer == 0) return true;
    if (!mixed_read(space, (space_ref)stored->integer, &value, &root)) return false;
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY) return true;
    values = root;
    if (value.type == CE_TYPE_DICTIONARY && root && !containers_dictionary_parts(space, root, &root, &values)) return false;
    element_spec inner = object_nested_spec(spec);
    ce_type type;
    bool nullable;
    object_storage_of(&inner, &type, &nullable);
    *out_holds = true;
    return collection_size(space, values, type, nullable, out_count);
}

/* A mixed property's value about to be replaced: if it holds a list or a
 * dictionary, the history records that collection cleared (the new value's
 * collection, if any, starts empty). */
static bool record_replaced_collection(ce_txn *txn, const element_spec *spec, ce_table_key key, ce_object_key object,
                                       size_t column, const ce_value *old_stored)
{
    bool holds;
    size_t count;
    if (!object_nested_size(db_txn_space(txn), spec, old_stored, &holds, &count)) return false;
    history_collection_id id = {key, object, (ce_column_key)column, 0, NULL};
    return !holds || count == 0 || history_collection_op(txn, &id, HISTORY_CLEAR, count, 0, NULL, 0);
}

/* Replaces a link or mixed property's value, keeping backlinks true. */
static bool set_link_holder(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                            const ce_value *value)
{
    const schema_table *table = &loaded->tables[key];
    element_spec spec = object_spec_of_property(table, &table->properties[column]);
    space_state *space = db_txn_space(txn);
    ce_value old_stored, new_stored;
    if (!object_read_stored(txn, loaded, key, object, column, &old_stored)) return false;
    if (spec.type == CE_TYPE_LINK &&
        old_stored.integer == (value->type == CE_TYPE_NULL ? 0 : value->link.key + 1))
        /* The same link: nothing changes (an embedded target stays), but the
         * set is recorded, as Realm's transaction log records every set. */
        return history_object_modified(txn, key, object, column);
    link_list added = {0}, removed = {0};
    link_origin origin = {key, column, object};
    bool ok = record_replaced_collection(txn, &spec, key, object, column, &old_stored) &&
              links_collect(space, &spec, &old_stored, &removed, 0) && object_encode_element(space, &spec, value, &new_stored) &&
              object_write_stored(txn, loaded, key, object, column, &new_stored) &&
              (spec.type != CE_TYPE_MIXED || old_stored.integer == 0 || node_free_tree(space, (space_ref)old_stored.integer)) &&
              links_collect(space, &spec, &new_stored, &added, 0) &&
              links_apply_changes(txn, loaded, &origin, &added, &removed, 0);
    free(added.items);
    free(removed.items);
    return ok;
}

bool ce_object_set(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column, const ce_value *value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property) ||
        !check_value(txn, loaded, table, property, value))
        return false;
    if (table->primary_key == column)
        return error_fail(CE_ERR_PRIMARY_KEY_IMMUTABLE, "Primary key can't be changed after an object is inserted ('%s.%s').",
                       table->name, property->name);
    /* The common case, a value of a property without an index in a table
     * this transaction changed already: the path down to the tree's root is
     * writable, and the tree keeps the leaf it changed last (cluster_set),
     * so the change is a write into the leaf's column where it lies. */
    bool in_place = property->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED &&
                    !schema_column_is_indexed(table, column) && schema_table_refs_copied(txn, key, &refs);
    if (!in_place && !schema_table_refs_for_write(txn, key, &refs)) return false;
    if (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
        return object_require(txn, &refs, table, object) && set_link_holder(txn, loaded, key, object, column, value);
    cluster_schema columns = schema_cluster_columns(table);
    space_state *space = db_txn_space(txn);
    space_ref root = refs.cluster;
    if (in_place) {
        if (!cluster_set(space, &refs.cluster, &columns, object, column, value, refs.hint))
            return fail_for_missing_object(txn, &refs, table, object);
        /* (A writable root stays where it is.) */
        return (refs.cluster == root ? schema_changed_in_place(txn) : schema_store_table_refs(txn, &refs)) &&
               history_object_modified(txn, key, object, column);
    }
    if (schema_column_is_indexed(table, column)) {
        ce_value old;
        if (!cluster_get(space, refs.cluster, &columns, object, column, &loaded->search_scratch, NULL, &old))
            return fail_for_missing_object(txn, &refs, table, object);
        if (!object_index_update(txn, &refs, table, column, &old, object, false) ||
            !object_index_update(txn, &refs, table, column, value, object, true))
            return false;
    }
    /* (A missing object is found before anything is copied.) */
    if (!cluster_set(space, &refs.cluster, &columns, object, column, value, refs.hint))
        return fail_for_missing_object(txn, &refs, table, object);
    return schema_store_table_refs(txn, &refs) && history_object_modified(txn, key, object, column);
}

bool ce_object_set_many(ce_txn *txn, ce_table_key key, const ce_object_key *objects, size_t count,
                        ce_column_key column, const ce_value *value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (count == 0) return true;
    if (!objects) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_set_many: objects are required");
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table) ||
        !schema_find_column(table, column, &property) || !check_value(txn, loaded, table, property, value))
        return false;
    if (table->primary_key == column)
        return error_fail(CE_ERR_PRIMARY_KEY_IMMUTABLE, "Primary key can't be changed after an object is inserted ('%s.%s').",
                       table->name, property->name);
    if (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED || schema_column_is_indexed(table, column)) {
        /* Backlinks, mixed values' own trees, index entries: per object. */
        for (size_t i = 0; i < count; i++)
            if (!ce_object_set(txn, key, objects[i], column, value)) return false;
        return true;
    }
    /* One value into one column of many leaves: the tree keeps the leaf it
     * changed last (cluster_set), so objects in key order take no descent. */
    bool copied = schema_table_refs_copied(txn, key, &refs);
    if (!copied && !schema_table_refs_for_write(txn, key, &refs)) return false;
    cluster_schema columns = schema_cluster_columns(table);
    space_state *space = db_txn_space(txn);
    space_ref root = refs.cluster;
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        ok = cluster_set(space, &refs.cluster, &columns, objects[i], column, value, refs.hint);
        if (!ok) (void)fail_for_missing_object(txn, &refs, table, objects[i]);
        ok = ok && history_object_modified(txn, key, objects[i], column);
    }
    /* The objects changed so far stay changed, as one by one. */
    bool stored = copied && refs.cluster == root ? schema_changed_in_place(txn) : schema_store_table_refs(txn, &refs);
    return ok && stored;
}

/* A new object of an embedded table, with default values, not yet linked. */
bool object_create_embedded(ce_txn *txn, schema *loaded, ce_table_key target, ce_object_key *out_object)
{
    const schema_table *table = &loaded->tables[target];
    ce_value *values = default_values(table);
    if (!values) return schema_out_of_memory();
    bool ok = create_object(txn, loaded, target, values, out_object);
    free(values);
    return ok;
}

/* Refuses a parent that would put a new embedded object deeper than
 * MAX_NESTING levels below its top-level object: deleting deeper ones
 * would fail as damage (links_delete_object's guard against cycles). The parent
 * of an embedded object is the origin of its one backlink. */
bool object_check_embedding_depth(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object)
{
    space_state *space = db_txn_space(txn);
    for (unsigned embedded_levels = 0; loaded->tables[key].flags & TABLE_EMBEDDED;) {
        if (++embedded_levels >= MAX_NESTING)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "embedded objects nest at most %d levels deep ('%s')", MAX_NESTING,
                           loaded->tables[key].name);
        const schema_table *table = &loaded->tables[key];
        bool found = false;
        for (size_t c = 0; c < table->property_count && !found; c++) {
            const schema_property *property = &table->properties[c];
            ce_value stored, origin;
            size_t count;
            if (!schema_property_is_live(property) || !(property->flags & PROPERTY_BACKLINK)) continue;
            if (!object_read_stored(txn, loaded, key, object, c, &stored) ||
                !collection_size(space, (space_ref)stored.integer, CE_TYPE_INT, false, &count))
                return false;
            if (count == 0) continue;
            if (!collection_get(space, (space_ref)stored.integer, CE_TYPE_INT, false, 0, NULL, &origin)) return false;
            key = property->link_target;
            object = origin.integer;
            found = true;
        }
        if (!found) return true; /* no parent: nothing above it */
    }
    return true;
}

/* The embedded table a link property or collection of links targets. */
bool object_require_embedded_target(const schema *loaded, const element_spec *spec)
{
    if (spec->type != CE_TYPE_LINK || !(loaded->tables[spec->link_target].flags & TABLE_EMBEDDED))
        return error_fail(CE_ERR_EMBEDDED_OBJECT, "property '%s.%s' does not link to an embedded table", SPEC_WHERE(spec));
    return true;
}

bool ce_object_create_embedded(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column,
                               ce_object_key *out_embedded)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_embedded) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_embedded: out_embedded is required");
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table) ||
        !schema_find_column(table, column, &property))
        return false;
    if (!holds_one_value(property)) return not_one_value(table, property);
    element_spec spec = object_spec_of_property(table, property);
    if (!object_require_embedded_target(loaded, &spec) || !schema_table_refs_for_read(txn, key, &refs) ||
        !object_require(txn, &refs, table, object) || !object_check_embedding_depth(txn, loaded, key, object))
        return false;
    ce_object_key child;
    ce_value old_stored, new_stored;
    link_list added = {0}, removed = {0};
    link_origin origin = {key, column, object};
    bool ok = object_create_embedded(txn, loaded, spec.link_target, &child) &&
              object_read_stored(txn, loaded, key, object, column, &old_stored) &&
              links_collect(db_txn_space(txn), &spec, &old_stored, &removed, 0) &&
              links_list_push(&added, (ce_link){spec.link_target, child});
    new_stored = (ce_value){.type = CE_TYPE_INT, .integer = child + 1};
    ok = ok && object_write_stored(txn, loaded, key, object, column, &new_stored) &&
         links_apply_changes(txn, loaded, &origin, &added, &removed, 0);
    free(added.items);
    free(removed.items);
    if (ok) *out_embedded = child;
    return ok;
}

bool ce_object_count(ce_txn *txn, ce_table_key key, size_t *out_count)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_count: out_count is required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_table_refs_for_read(txn, key, &refs)) return false;
    return cluster_count(db_txn_space(txn), refs.cluster, out_count);
}

bool ce_object_key_at(ce_txn *txn, ce_table_key key, size_t index, ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_key_at: out_object is required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_table_refs_for_read(txn, key, &refs)) return false;
    return cluster_key_at(db_txn_space(txn), refs.cluster, index, refs.hint, out_object);
}

