/*
 * links.c — links between objects, and the backlinks that mirror them.
 *
 * Owns: the backlinks of every object (per origin property, a sorted
 * collection of origin keys, one entry per link), kept equal to the links
 * into it, and deleting objects (links_delete_object is the one way): an
 * object's embedded objects go with it (as does an embedded object its
 * parent lets go of), and every link into it is let go (to-one links and
 * mixed values become null, lists and sets drop it, dictionaries keep the
 * key with null).
 * Never: changes the schema itself (schema.c adds a backlink column on a
 * mixed link's first use), edits a collection for a caller (containers.c),
 * or lays out collection nodes (collection.c).
 */
#include "cengine.h"
#include "cluster.h"
#include "collection.h"
#include "db.h"
#include "buf.h"
#include "error.h"
#include "history.h"
#include "mixed.h"
#include "node.h"
#include "object_index.h"
#include "table_internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Links and backlinks                                                       */
/* ------------------------------------------------------------------------ */

bool links_list_push(link_list *list, ce_link link)
{
    if (!buf_reserve((void **)&list->items, &list->capacity, list->count + 1, sizeof *list->items)) return false;
    list->items[list->count++] = link;
    return true;
}

static bool too_deep(void)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: objects or collections nested more than %d levels deep (a cycle?)",
                   MAX_NESTING);
}

/* Every link held by the elements of a collection (nested ones included). */
bool links_collect_collection(const space_state *space, ce_collection_type kind, const element_spec *spec,
                              space_ref root, link_list *links, unsigned depth)
{
    if (spec->type != CE_TYPE_LINK && spec->type != CE_TYPE_MIXED) return true;
    if (depth > MAX_NESTING) return too_deep();
    space_ref values = root, keys;
    if (kind == CE_COLLECTION_DICTIONARY && !containers_dictionary_parts(space, root, &keys, &values)) return false;
    ce_type type;
    bool nullable;
    size_t count;
    object_storage_of(spec, &type, &nullable);
    if (!collection_size(space, values, type, nullable, &count)) return false;
    for (size_t i = 0; i < count; i++) {
        ce_value stored;
        if (!collection_get(space, values, type, nullable, i, NULL, &stored) ||
            !links_collect(space, spec, &stored, links, depth))
            return false;
    }
    return true;
}

/* The links held by one stored element (a to-one link, a mixed value). */
bool links_collect(const space_state *space, const element_spec *spec, const ce_value *stored, link_list *links,
                   unsigned depth)
{
    if (spec->type == CE_TYPE_LINK) {
        if (stored->integer < 0) return error_fail(CE_ERR_CORRUPT, "invalid database: property '%s.%s' holds a bad link", SPEC_WHERE(spec));
        return stored->integer == 0 || links_list_push(links, (ce_link){spec->link_target, stored->integer - 1});
    }
    if (spec->type != CE_TYPE_MIXED || stored->integer == 0) return true;
    ce_value value;
    space_ref root;
    if (!mixed_read(space, (space_ref)stored->integer, &value, &root)) return false;
    if (value.type == CE_TYPE_LINK) return links_list_push(links, value.link);
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY) return true;
    element_spec inner = object_nested_spec(spec);
    return links_collect_collection(space, value.type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY,
                                    &inner, root, links, depth + 1);
}

/* The links held by an object's property (one value or a collection). */
static bool collect_property_links(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                                   link_list *links)
{
    const schema_table *table = &loaded->tables[key];
    const schema_property *property = &table->properties[column];
    element_spec spec = object_spec_of_property(table, property);
    ce_value stored;
    if (!object_read_stored(txn, loaded, key, object, column, &stored)) return false;
    if (property->collection == CE_COLLECTION_NONE) return links_collect(db_txn_space(txn), &spec, &stored, links, 0);
    return links_collect_collection(db_txn_space(txn), (ce_collection_type)property->collection, &spec,
                                    (space_ref)stored.integer, links, 0);
}

static bool compare_origin(void *context, const ce_value *stored, int *out_sign)
{
    int64_t wanted = *(const int64_t *)context;
    *out_sign = stored->integer < wanted ? -1 : stored->integer > wanted;
    return true;
}

/* Adds or removes one entry "origin links here" in the target's backlinks:
 * a sorted collection of origin keys (one entry per link). */
static bool backlink_change(ce_txn *txn, schema *loaded, ce_link target, ce_table_key origin_table, size_t origin_column,
                            ce_object_key origin, bool add)
{
    size_t column;
    bool found = true;
    if (add ? !schema_ensure_backlink_column(txn, loaded, target.table, origin_table, origin_column, &column)
            : !schema_find_backlink_column(&loaded->tables[target.table], origin_table, origin_column, &column, &found))
        return false;
    if (!found)
        return error_fail(CE_ERR_CORRUPT, "invalid database: table '%s' has no backlinks for '%s.%s'",
                       loaded->tables[target.table].name, loaded->tables[origin_table].name,
                       loaded->tables[origin_table].properties[origin_column].name);
    ce_value stored;
    if (!object_read_stored(txn, loaded, target.table, target.key, column, &stored)) return false;
    space_state *space = db_txn_space(txn);
    space_ref root = (space_ref)stored.integer;
    size_t position;
    bool equal;
    if (!collection_lower_bound(space, root, CE_TYPE_INT, false, NULL, compare_origin, &origin, &position, &equal))
        return false;
    if (add) {
        ce_value key = {.type = CE_TYPE_INT, .integer = origin};
        if (!collection_insert(space, &root, CE_TYPE_INT, false, position, &key)) return false;
    } else {
        if (!equal)
            return error_fail(CE_ERR_CORRUPT, "invalid database: object %lld of '%s' lacks the backlink from object %lld of '%s'",
                           (long long)target.key, loaded->tables[target.table].name, (long long)origin,
                           loaded->tables[origin_table].name);
        if (!collection_erase(space, &root, CE_TYPE_INT, false, position)) return false;
    }
    ce_value changed = object_stored_ref(root);
    return object_write_stored(txn, loaded, target.table, target.key, column, &changed);
}

/* Records new links and forgets dropped ones; a dropped link to an
 * embedded object deletes it (its parent let go of it). */
bool links_apply_changes(ce_txn *txn, schema *loaded, const link_origin *origin, const link_list *added,
                         const link_list *removed, unsigned depth)
{
    for (size_t i = 0; i < added->count; i++)
        if (!backlink_change(txn, loaded, added->items[i], origin->table, origin->column, origin->object, true))
            return false;
    for (size_t i = 0; i < removed->count; i++) {
        ce_link target = removed->items[i];
        if (!backlink_change(txn, loaded, target, origin->table, origin->column, origin->object, false)) return false;
        if ((loaded->tables[target.table].flags & TABLE_EMBEDDED) &&
            !links_delete_object(txn, loaded, target.table, target.key, depth + 1))
            return false;
    }
    return true;
}

/* Where a purge is, for the history: the collection (its path grows with
 * the nested collections the purge descends into). */
typedef struct purge_place {
    ce_txn *txn;
    schema *loaded;
    history_collection_id id;
    history_path_step steps[MAX_NESTING + 2];
} purge_place;

/* The key at `index` of a dictionary's keys, copied (the caller frees it). */
static bool dictionary_key_copy(const space_state *space, schema *loaded, space_ref keys, size_t index, char **out_key,
                                size_t *out_size)
{
    ce_value key;
    if (!collection_get(space, keys, CE_TYPE_STRING, false, index, &loaded->search_scratch, &key)) return false;
    *out_key = malloc(key.string.size + 1);
    if (!*out_key) return schema_out_of_memory();
    if (key.string.size) memcpy(*out_key, key.string.data, key.string.size);
    *out_size = key.string.size;
    return true;
}

/* Removes from a collection every element that is a link to `target`
 * (dictionaries: sets those values to null), nested collections included;
 * each removal is recorded in the history as an op on `place`. */
static bool purge_collection(space_state *space, ce_collection_type kind, const element_spec *spec, space_ref *root,
                             ce_link target, bool *changed, unsigned depth, purge_place *place)
{
    if (depth > MAX_NESTING || place->id.depth > MAX_NESTING) return too_deep();
    space_ref values = *root, keys;
    if (kind == CE_COLLECTION_DICTIONARY && !containers_dictionary_parts(space, *root, &keys, &values)) return false;
    ce_type type;
    bool nullable, values_changed = false;
    size_t count;
    object_storage_of(spec, &type, &nullable);
    if (!collection_size(space, values, type, nullable, &count)) return false;
    for (size_t i = count; i-- > 0;) {
        ce_value stored, value;
        space_ref nested_root = 0;
        if (!collection_get(space, values, type, nullable, i, NULL, &stored)) return false;
        if (spec->type == CE_TYPE_LINK) {
            value = stored.integer == target.key + 1 ? (ce_value){.type = CE_TYPE_LINK, .link = target}
                                                     : (ce_value){.type = CE_TYPE_NULL};
        } else if (!mixed_read(space, (space_ref)stored.integer, &value, &nested_root)) {
            return false;
        }
        if (value.type == CE_TYPE_LINK && value.link.table == target.table && value.link.key == target.key) {
            values_changed = true;
            if (kind != CE_COLLECTION_DICTIONARY) {
                if (!collection_erase(space, &values, type, nullable, i) ||
                    !history_collection_op(place->txn, &place->id,
                                           kind == CE_COLLECTION_SET ? HISTORY_SET_ERASE : HISTORY_LIST_ERASE, i, 0, NULL, 0))
                    return false;
                continue;
            }
            ce_value null_stored = object_stored_ref(0);
            char *key;
            size_t key_size;
            if ((spec->type == CE_TYPE_MIXED && !node_free_tree(space, (space_ref)stored.integer)) ||
                !collection_set(space, &values, type, nullable, i, &null_stored) ||
                !dictionary_key_copy(space, place->loaded, keys, i, &key, &key_size))
                return false;
            bool ok = history_collection_op(place->txn, &place->id, HISTORY_DICT_SET, 0, 0, key, key_size);
            free(key);
            if (!ok) return false;
        } else if (value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY) {
            bool inner_changed = false;
            element_spec inner = object_nested_spec(spec);
            space_ref inner_root = nested_root;
            char *key = NULL;
            size_t key_size = 0;
            if (kind == CE_COLLECTION_DICTIONARY && !dictionary_key_copy(space, place->loaded, keys, i, &key, &key_size))
                return false;
            place->steps[place->id.depth++] = kind == CE_COLLECTION_DICTIONARY
                                                  ? (history_path_step){true, 0, key, key_size}
                                                  : (history_path_step){false, i, NULL, 0};
            bool ok = purge_collection(space, value.type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY,
                                       &inner, &inner_root, target, &inner_changed, depth + 1, place);
            place->id.depth--;
            free(key);
            if (!ok) return false;
            if (!inner_changed) continue;
            space_ref node = (space_ref)stored.integer;
            ce_value new_stored;
            if (!node_make_writable(space, &node) || !node_set(space, node, 1, (int64_t)inner_root)) return false;
            new_stored = object_stored_ref(node);
            if (!collection_set(space, &values, type, nullable, i, &new_stored)) return false;
            values_changed = true;
        }
    }
    if (!values_changed) return true;
    *changed = true;
    if (kind != CE_COLLECTION_DICTIONARY) {
        *root = values;
        return true;
    }
    if (values == 0) { /* cannot happen: a dictionary keeps its values (set to null) */
        return error_fail(CE_ERR_CORRUPT, "invalid database: a dictionary lost its values");
    }
    return node_make_writable(space, root) && node_set(space, *root, 1, (int64_t)values);
}

static bool remove_links_from(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column,
                              ce_object_key origin, ce_link target, const ce_value *stored_value, purge_place *place);

/* The target is being deleted: the origin object's property lets go of it
 * (to-one links and mixed values become null, collections drop it,
 * dictionaries keep the key with null). The target's backlinks go with it. */
static bool remove_links_to(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column,
                            ce_object_key origin, ce_link target)
{
    ce_value stored;
    if (!object_read_stored(txn, loaded, origin_table, origin, origin_column, &stored)) return false;
    purge_place place = {.txn = txn, .loaded = loaded};
    place.id = (history_collection_id){origin_table, origin, (ce_column_key)origin_column, 0, place.steps};
    return remove_links_from(txn, loaded, origin_table, origin_column, origin, target, &stored, &place);
}

/* remove_links_to, once the origin's stored value is read. */
static bool remove_links_from(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column,
                              ce_object_key origin, ce_link target, const ce_value *stored_value, purge_place *place)
{
    const schema_table *table = &loaded->tables[origin_table];
    const schema_property *property = &table->properties[origin_column];
    element_spec spec = object_spec_of_property(table, property);
    space_state *space = db_txn_space(txn);
    ce_value stored = *stored_value, null_stored = object_stored_ref(0);
    if (property->collection != CE_COLLECTION_NONE) {
        space_ref root = (space_ref)stored.integer;
        bool changed = false;
        if (!purge_collection(space, (ce_collection_type)property->collection, &spec, &root, target, &changed, 0, place))
            return false;
        ce_value new_stored = object_stored_ref(root);
        return !changed || object_write_stored(txn, loaded, origin_table, origin, origin_column, &new_stored);
    }
    if (spec.type == CE_TYPE_LINK)
        return stored.integer != target.key + 1 || object_write_stored(txn, loaded, origin_table, origin, origin_column, &null_stored);
    ce_value value;
    space_ref nested_root;
    if (!mixed_read(space, (space_ref)stored.integer, &value, &nested_root)) return false;
    if (value.type == CE_TYPE_LINK && value.link.table == target.table && value.link.key == target.key)
        return object_write_stored(txn, loaded, origin_table, origin, origin_column, &null_stored) &&
               node_free_tree(space, (space_ref)stored.integer);
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY) return true;
    bool changed = false;
    element_spec inner = object_nested_spec(&spec);
    if (!purge_collection(space, value.type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY, &inner,
                          &nested_root, target, &changed, 1, place))
        return false;
    if (!changed) return true;
    space_ref node = (space_ref)stored.integer;
    if (!node_make_writable(space, &node) || !node_set(space, node, 1, (int64_t)nested_root)) return false;
    ce_value new_stored = object_stored_ref(node);
    return object_write_stored(txn, loaded, origin_table, origin, origin_column, &new_stored);
}

/* Deletes an object: its links out (embedded targets deleted with it), the
 * links into it, its index entries, its values. */
bool links_delete_object(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, unsigned depth)
{
    if (depth > MAX_NESTING) return too_deep();
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!schema_table_refs_for_read(txn, key, &refs) || !object_require(txn, &refs, table, object) ||
        !history_object_deleted(txn, key, object))
        return false;
    link_list none = {0};
    for (size_t c = 0; c < table->property_count; c++) {
        if (!schema_property_holds_links(&table->properties[c])) continue;
        link_list links = {0};
        link_origin origin = {key, c, object};
        bool ok = collect_property_links(txn, loaded, key, object, c, &links) &&
                  links_apply_changes(txn, loaded, &origin, &none, &links, depth);
        free(links.items);
        if (!ok) return false;
    }
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (!schema_property_is_live(property) || !(property->flags & PROPERTY_BACKLINK)) continue;
        ce_table_key origin_table = property->link_target;
        size_t origin_column = property->origin_column, count;
        ce_value stored;
        space_state *space = db_txn_space(txn);
        if (!object_read_stored(txn, loaded, key, object, c, &stored) ||
            !collection_size(space, (space_ref)stored.integer, CE_TYPE_INT, false, &count))
            return false;
        int64_t *origins = malloc((count + 1) * sizeof *origins);
        if (!origins) return schema_out_of_memory();
        bool ok = true;
        for (size_t i = 0; i < count && ok; i++) {
            ce_value origin;
            ok = collection_get(space, (space_ref)stored.integer, CE_TYPE_INT, false, i, NULL, &origin);
            origins[i] = origin.integer;
        }
        for (size_t i = 0; i < count && ok; i++)
            if (i == 0 || origins[i] != origins[i - 1])
                ok = remove_links_to(txn, loaded, origin_table, origin_column, origins[i], (ce_link){key, object});
        free(origins);
        if (!ok) return false;
    }
    if (!schema_table_refs_for_write(txn, key, &refs)) return false;
    space_state *space = db_txn_space(txn);
    cluster_schema columns = schema_cluster_columns(table);
    for (size_t c = 0; c < table->property_count; c++) {
        if (!schema_column_is_indexed(table, c)) continue;
        ce_value value;
        if (!cluster_get(space, refs.cluster, &columns, object, c, &loaded->search_scratch, NULL, &value) ||
            !object_index_update(txn, &refs, table, c, &value, object, false))
            return false;
    }
    return cluster_erase(space, &refs.cluster, &columns, object, refs.hint) && schema_store_table_refs(txn, &refs);
}

/* Empties one link-holding column of every object (before it is removed). */
bool links_clear_column(ce_txn *txn, schema *loaded, ce_table_key key, size_t column)
{
    table_refs refs;
    size_t count;
    if (!schema_table_refs_for_read(txn, key, &refs) || !cluster_count(db_txn_space(txn), refs.cluster, &count))
        return false;
    ce_object_key *objects = malloc((count + 1) * sizeof *objects);
    if (!objects) return schema_out_of_memory();
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) ok = cluster_key_at(db_txn_space(txn), refs.cluster, i, NULL, &objects[i]);
    link_list none = {0};
    for (size_t i = 0; i < count && ok; i++) {
        bool exists;
        ok = object_exists(txn, key, objects[i], &exists);
        if (!ok || !exists) continue; /* deleted as an embedded object of an earlier one */
        link_list links = {0};
        ce_value stored, empty = object_stored_ref(0);
        bool owned = loaded->tables[key].columns[column].type == COLUMN_TYPE_OWNED_REFS;
        link_origin origin = {key, column, objects[i]};
        ok = collect_property_links(txn, loaded, key, objects[i], column, &links) &&
             object_read_stored(txn, loaded, key, objects[i], column, &stored) &&
             object_write_stored(txn, loaded, key, objects[i], column, &empty) &&
             (!owned || stored.integer == 0 || node_free_tree(db_txn_space(txn), (space_ref)stored.integer)) &&
             links_apply_changes(txn, loaded, &origin, &none, &links, 0);
        free(links.items);
    }
    free(objects);
    return ok;
}

/* The backlink column of `table` for links from origin_table.origin_column:
 * *out_found is false when that (mixed) property never linked here. */
static bool backlinks_of(ce_txn *txn, ce_table_key key, ce_table_key origin_table, ce_column_key origin_column,
                         schema **out_schema, size_t *out_column, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL, *origin = NULL;
    const schema_property *property = NULL;
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_find_table(txn, origin_table, &loaded, &origin) ||
        !schema_find_column(origin, origin_column, &property))
        return false;
    if (!schema_property_holds_links(property))
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' holds no links", origin->name, property->name);
    *out_schema = loaded;
    return schema_find_backlink_column(table, origin_table, origin_column, out_column, out_found);
}

bool ce_object_backlink_count(ce_txn *txn, ce_table_key key, ce_object_key object, ce_table_key origin_table,
                              ce_column_key origin_column, size_t *out_count)
{
    schema *loaded;
    size_t column;
    bool found;
    table_refs refs;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_backlink_count: out_count is required");
    if (!backlinks_of(txn, key, origin_table, origin_column, &loaded, &column, &found) ||
        !schema_table_refs_for_read(txn, key, &refs) || !object_require(txn, &refs, &loaded->tables[key], object))
        return false;
    *out_count = 0;
    if (!found) return true;
    ce_value stored;
    return object_read_stored(txn, loaded, key, object, column, &stored) &&
           collection_size(db_txn_space(txn), (space_ref)stored.integer, CE_TYPE_INT, false, out_count);
}

bool ce_object_backlink_at(ce_txn *txn, ce_table_key key, ce_object_key object, ce_table_key origin_table,
                           ce_column_key origin_column, size_t index, ce_object_key *out_origin)
{
    schema *loaded;
    size_t column;
    bool found;
    table_refs refs;
    if (!out_origin) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_backlink_at: out_origin is required");
    if (!backlinks_of(txn, key, origin_table, origin_column, &loaded, &column, &found) ||
        !schema_table_refs_for_read(txn, key, &refs) || !object_require(txn, &refs, &loaded->tables[key], object))
        return false;
    if (!found) return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (no backlinks)", index);
    ce_value stored, origin;
    if (!object_read_stored(txn, loaded, key, object, column, &stored) ||
        !collection_get(db_txn_space(txn), (space_ref)stored.integer, CE_TYPE_INT, false, index, NULL, &origin))
        return false;
    *out_origin = origin.integer;
    return true;
}

bool ce_object_backlink_total(ce_txn *txn, ce_table_key key, ce_object_key object, size_t *out_count)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_backlink_total: out_count is required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_table_refs_for_read(txn, key, &refs) ||
        !object_require(txn, &refs, table, object))
        return false;
    *out_count = 0;
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (!schema_property_is_live(property) || !(property->flags & PROPERTY_BACKLINK)) continue;
        ce_value stored;
        size_t count;
        if (!object_read_stored(txn, loaded, key, object, c, &stored) ||
            !collection_size(db_txn_space(txn), (space_ref)stored.integer, CE_TYPE_INT, false, &count))
            return false;
        *out_count += count;
    }
    return true;
}

