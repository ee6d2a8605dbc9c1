/*
 * containers.c — lists, sets and dictionaries (a property's, or nested in a
 * mixed value) through the public API (ce_collection_*, ce_list_*, ce_set_*,
 * ce_dictionary_*).
 *
 * Owns: the collection handle (the object, property and nested steps it
 * names), finding the collection it names in the transaction's current
 * state, and every edit of one: made at the collection, then written back up
 * the path (nested mixed nodes, the property), link bookkeeping last.
 * Never: lays out a collection's nodes (collection.c), keeps backlinks
 * (links.c), or checks a mixed value's node (mixed.c).
 */
#include "cengine.h"
#include "collection.h"
#include "db.h"
#include "error.h"
#include "handle.h"
#include "history.h"
#include "mixed.h"
#include "node.h"
#include "table.h"
#include "table_internal.h"
#include "value.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Collections: lists, sets, dictionaries, nested ones in mixed values       */
/* ------------------------------------------------------------------------ */

/* A dictionary is 0 or a NODE_HAS_REFS node [keys, values]: two
 * collections of the same size, keys sorted bytewise. */
bool containers_dictionary_parts(const space_state *space, space_ref dictionary, space_ref *out_keys,
                                 space_ref *out_values)
{
    *out_keys = *out_values = 0;
    if (dictionary == 0) return true;
    node_view node;
    if (!node_read(space, dictionary, &node)) return false;
    int64_t keys = node.count == 2 ? node_get(&node, 0) : 0, values = node.count == 2 ? node_get(&node, 1) : 0;
    bool committed = !ref_is_temporary(dictionary);
    if (node.flags != NODE_HAS_REFS || !node_value_is_ref(keys) || !node_value_is_ref(values) ||
        (committed && (ref_is_temporary((space_ref)keys) || ref_is_temporary((space_ref)values))))
        return error_fail(CE_ERR_CORRUPT, "invalid database: the dictionary at offset %llu is damaged",
                       (unsigned long long)dictionary);
    *out_keys = (space_ref)keys;
    *out_values = (space_ref)values;
    return true;
}

static ce_collection_type kind_of_nested(ce_type type)
{
    return type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY;
}

typedef struct key_search {
    const char *key;
    size_t size;
} key_search;

static bool compare_key(void *context, const ce_value *stored, int *out_sign)
{
    const key_search *search = context;
    *out_sign = value_compare_bytes(stored->string.data, stored->string.size, search->key, search->size);
    return true;
}

/* A dictionary key's position in the sorted keys. */
static bool find_key(const space_state *space, schema *loaded, space_ref keys, const char *key, size_t size,
                     size_t *out_index, bool *out_found)
{
    key_search search = {key, size};
    return collection_lower_bound(space, keys, CE_TYPE_STRING, false, &loaded->search_scratch, compare_key, &search,
                                  out_index, out_found);
}

/* The position of a step's element, and the collection holding the values
 * (a dictionary's values, or the list itself). */
static bool step_position(const space_state *space, schema *loaded, const found_collection *found,
                          const nested_step *step, size_t *out_index, space_ref *out_values)
{
    if (found->kind == CE_COLLECTION_LIST) {
        size_t count;
        if (step->by_key) return error_fail(CE_ERR_WRONG_TYPE, "a list element is reached by index, not by key");
        if (!collection_size(space, found->root, COLUMN_TYPE_OWNED_REFS, false, &count)) return false;
        if (step->index >= count)
            return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (the list holds %zu values)",
                           step->index, count);
        *out_index = step->index;
        *out_values = found->root;
        return true;
    }
    if (!step->by_key) return error_fail(CE_ERR_WRONG_TYPE, "a dictionary element is reached by key, not by index");
    space_ref keys;
    bool present;
    if (!containers_dictionary_parts(space, found->root, &keys, out_values) ||
        !find_key(space, loaded, keys, step->key, step->key_size, out_index, &present))
        return false;
    if (!present)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "the dictionary has no key '%.*s'", (int)step->key_size, step->key);
    return true;
}

/* The collection nested in the element a step names; *out_node is the
 * element's mixed node. */
static bool find_nested(const space_state *space, schema *loaded, const found_collection *found,
                        const nested_step *step, found_collection *out, space_ref *out_node)
{
    if (found->spec.type != CE_TYPE_MIXED || found->kind == CE_COLLECTION_SET)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': only lists and dictionaries of mixed values nest collections",
                       SPEC_WHERE(&found->spec));
    size_t index;
    space_ref values;
    ce_value stored, value;
    if (!step_position(space, loaded, found, step, &index, &values) ||
        !collection_get(space, values, COLUMN_TYPE_OWNED_REFS, false, index, NULL, &stored) ||
        !mixed_read(space, (space_ref)stored.integer, &value, &out->root))
        return false;
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': the element holds a %s, not a collection", SPEC_WHERE(&found->spec),
                       ce_type_name(value.type));
    out->kind = kind_of_nested(value.type);
    out->spec = object_nested_spec(&found->spec);
    *out_node = (space_ref)stored.integer;
    return true;
}

/* The property's own collection (or the one its mixed value holds). */
static bool find_top(const ce_collection *collection, schema **out_schema, found_collection *out, ce_value *out_stored)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!containers_check(collection, "a collection call")) return false;
    if (!schema_find_table(collection->txn, collection->table, &loaded, &table) ||
        !schema_find_column(table, (ce_column_key)collection->column, &property))
        return false;
    out->spec = object_spec_of_property(table, property);
    if (!object_read_stored(collection->txn, loaded, collection->table, collection->object, collection->column,
                            out_stored)) {
        table_refs refs;
        if (ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT && schema_table_refs_for_read(collection->txn, collection->table, &refs))
            return object_require(collection->txn, &refs, table, collection->object);
        return false;
    }
    *out_schema = loaded;
    if (!collection->through_mixed) {
        out->kind = (ce_collection_type)property->collection;
        out->root = (space_ref)out_stored->integer;
        return true;
    }
    ce_value value;
    if (!mixed_read(db_txn_space(collection->txn), (space_ref)out_stored->integer, &value, &out->root)) return false;
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' holds a %s, not a collection", SPEC_WHERE(&out->spec),
                       ce_type_name(value.type));
    out->kind = kind_of_nested(value.type);
    out->spec = object_nested_spec(&out->spec);
    return true;
}

/* Where a found collection's elements are (a dictionary's values; the
 * collection itself otherwise) and their column type. */
bool containers_found_values(const space_state *space, const found_collection *found, space_ref *out_values, ce_type *out_type,
                             bool *out_nullable)
{
    space_ref keys;
    *out_values = found->root;
    object_storage_of(&found->spec, out_type, out_nullable);
    return found->kind != CE_COLLECTION_DICTIONARY ||
           containers_dictionary_parts(space, found->root, &keys, out_values);
}

bool containers_find(const ce_collection *collection, schema **out_schema, found_collection *out)
{
    ce_value stored;
    if (!find_top(collection, out_schema, out, &stored)) return false;
    for (size_t i = 0; i < collection->depth; i++) {
        found_collection inner;
        space_ref node;
        if (!find_nested(db_txn_space(collection->txn), *out_schema, out, &collection->steps[i], &inner, &node))
            return false;
        *out = inner;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Editing: the change is made at the collection, then written back up the  */
/* path (nested mixed nodes, the property); link bookkeeping comes last.     */
/* ------------------------------------------------------------------------ */

typedef enum edit_operation {
    EDIT_LIST_INSERT,
    EDIT_LIST_SET,
    EDIT_LIST_ERASE,
    EDIT_LIST_MOVE,
    EDIT_LIST_SWAP,
    EDIT_CLEAR,
    EDIT_SET_INSERT,
    EDIT_SET_ERASE,
    EDIT_DICTIONARY_SET,
    EDIT_DICTIONARY_ERASE
} edit_operation;

typedef struct edit_request {
    edit_operation operation;
    size_t index, other;
    const ce_value *value; /* checked already */
    const char *key;
    size_t key_size;
    bool changed;
    link_list added, removed;
    /* What the history records of the edit (set when it changed something). */
    history_op_kind op;
    uint64_t op_a, op_b;
    bool replaced_nested;  /* a set replaced an element holding a collection... */
    size_t replaced_count; /* ...of that many values (recorded as its clear) */
} edit_request;

static void note_op(edit_request *request, history_op_kind op, uint64_t a, uint64_t b)
{
    request->op = op;
    request->op_a = a;
    request->op_b = b;
}

typedef struct element_search {
    const space_state *space;
    const element_spec *spec;
    const ce_value *wanted;
} element_search;

static bool compare_element(void *context, const ce_value *stored, int *out_sign)
{
    const element_search *search = context;
    ce_value value;
    if (!object_decode_element(search->space, search->spec, stored, &value)) return false;
    *out_sign = value_compare(&value, search->wanted);
    return true;
}

/* A copy of a string or binary that outlives changes to its node. */
static bool detach_bytes(ce_value *value, void **out_copy)
{
    *out_copy = NULL;
    if ((value->type != CE_TYPE_STRING && value->type != CE_TYPE_BINARY) || value->string.size == 0) return true;
    void *copy = malloc(value->string.size);
    if (!copy) return schema_out_of_memory();
    memcpy(copy, value->string.data, value->string.size);
    value->string.data = copy;
    *out_copy = copy;
    return true;
}

/* Replaces the element at `index` of `values` (links dropped and added). */
static bool replace_element(space_state *space, const element_spec *spec, space_ref *values, size_t index,
                            const ce_value *value, edit_request *request)
{
    ce_type type;
    bool nullable;
    object_storage_of(spec, &type, &nullable);
    ce_value old_stored = object_stored_ref(0), new_stored;
    /* Only a link or a mixed element is read (its links, its tree), never
     * through a scratch: a string or binary decompressed into
     * loaded->scratch would overwrite the value being written when the
     * caller read that value from this collection. */
    if ((spec->type == CE_TYPE_LINK || spec->type == CE_TYPE_MIXED) &&
        !collection_get(space, *values, type, nullable, index, NULL, &old_stored))
        return false;
    if (spec->type == CE_TYPE_LINK && old_stored.integer == (value->type == CE_TYPE_NULL ? 0 : value->link.key + 1))
        return true;
    request->changed = true;
    return object_nested_size(space, spec, &old_stored, &request->replaced_nested, &request->replaced_count) &&
           links_collect(space, spec, &old_stored, &request->removed, 0) &&
           object_encode_element(space, spec, value, &new_stored) &&
           collection_set(space, values, type, nullable, index, &new_stored) &&
           (spec->type != CE_TYPE_MIXED || old_stored.integer == 0 || node_free_tree(space, (space_ref)old_stored.integer)) &&
           links_collect(space, spec, &new_stored, &request->added, 0);
}

static bool insert_element(space_state *space, const element_spec *spec, space_ref *values, size_t index,
                           const ce_value *value, edit_request *request)
{
    ce_type type;
    bool nullable;
    object_storage_of(spec, &type, &nullable);
    ce_value stored;
    request->changed = true;
    return object_encode_element(space, spec, value, &stored) && collection_insert(space, values, type, nullable, index, &stored) &&
           links_collect(space, spec, &stored, &request->added, 0);
}

static bool erase_element(space_state *space, schema *loaded, const element_spec *spec, space_ref *values, size_t index,
                          edit_request *request)
{
    ce_type type;
    bool nullable;
    object_storage_of(spec, &type, &nullable);
    ce_value stored;
    request->changed = true;
    return collection_get(space, *values, type, nullable, index, &loaded->search_scratch, &stored) &&
           links_collect(space, spec, &stored, &request->removed, 0) &&
           collection_erase(space, values, type, nullable, index);
}

static bool check_index(size_t index, size_t count, bool end_allowed)
{
    if (index < count || (end_allowed && index == count)) return true;
    return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (the collection holds %zu values)", index, count);
}

static bool edit_list(space_state *space, schema *loaded, found_collection *found, edit_request *request)
{
    const element_spec *spec = &found->spec;
    ce_type type;
    bool nullable;
    size_t count;
    object_storage_of(spec, &type, &nullable);
    if (!collection_size(space, found->root, type, nullable, &count)) return false;
    switch (request->operation) {
    case EDIT_LIST_INSERT:
        note_op(request, HISTORY_LIST_INSERT, request->index, 0);
        return check_index(request->index, count, true) &&
               insert_element(space, spec, &found->root, request->index, request->value, request);
    case EDIT_LIST_SET:
        note_op(request, HISTORY_LIST_SET, request->index, 0);
        return check_index(request->index, count, false) &&
               replace_element(space, spec, &found->root, request->index, request->value, request);
    case EDIT_LIST_ERASE:
        note_op(request, HISTORY_LIST_ERASE, request->index, 0);
        return check_index(request->index, count, false) &&
               erase_element(space, loaded, spec, &found->root, request->index, request);
    case EDIT_LIST_MOVE: {
        if (!check_index(request->index, count, false) || !check_index(request->other, count, false)) return false;
        if (request->index == request->other) return true;
        note_op(request, HISTORY_LIST_MOVE, request->index, request->other);
        ce_value moved;
        void *copy = NULL;
        ce_value detached = object_stored_ref(0);
        request->changed = true;
        /* An owned tree is detached first so that the erase does not free it. */
        bool ok = collection_get(space, found->root, type, nullable, request->index, &loaded->scratch, &moved) &&
                  detach_bytes(&moved, &copy) &&
                  (type != COLUMN_TYPE_OWNED_REFS ||
                   collection_set(space, &found->root, type, nullable, request->index, &detached)) &&
                  collection_erase(space, &found->root, type, nullable, request->index) &&
                  collection_insert(space, &found->root, type, nullable, request->other, &moved);
        free(copy);
        return ok;
    }
    case EDIT_LIST_SWAP: {
        if (!check_index(request->index, count, false) || !check_index(request->other, count, false)) return false;
        if (request->index == request->other) return true;
        note_op(request, HISTORY_LIST_SWAP, request->index, request->other);
        ce_value a, b;
        void *copy_a = NULL, *copy_b = NULL;
        request->changed = true;
        bool ok = collection_get(space, found->root, type, nullable, request->index, &loaded->scratch, &a) &&
                  detach_bytes(&a, &copy_a) &&
                  collection_get(space, found->root, type, nullable, request->other, &loaded->scratch, &b) &&
                  detach_bytes(&b, &copy_b) && collection_set(space, &found->root, type, nullable, request->index, &b) &&
                  collection_set(space, &found->root, type, nullable, request->other, &a);
        free(copy_a);
        free(copy_b);
        return ok;
    }
    default: break;
    }
    return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': not a list operation", SPEC_WHERE(spec));
}

static bool edit_set(space_state *space, schema *loaded, found_collection *found, edit_request *request)
{
    const element_spec *spec = &found->spec;
    ce_type type;
    bool nullable, equal;
    size_t position;
    object_storage_of(spec, &type, &nullable);
    element_search search = {space, spec, request->value};
    if (!collection_lower_bound(space, found->root, type, nullable, &loaded->search_scratch, compare_element, &search,
                                &position, &equal))
        return false;
    note_op(request, request->operation == EDIT_SET_INSERT ? HISTORY_SET_INSERT : HISTORY_SET_ERASE, position, 0);
    if (request->operation == EDIT_SET_INSERT)
        return equal || insert_element(space, spec, &found->root, position, request->value, request);
    return !equal || erase_element(space, loaded, spec, &found->root, position, request);
}

static bool edit_dictionary(space_state *space, schema *loaded, found_collection *found, edit_request *request)
{
    space_ref keys, values;
    size_t position;
    bool present;
    if (!containers_dictionary_parts(space, found->root, &keys, &values) ||
        !find_key(space, loaded, keys, request->key, request->key_size, &position, &present))
        return false;
    note_op(request, request->operation == EDIT_DICTIONARY_ERASE ? HISTORY_DICT_ERASE
                     : present                                  ? HISTORY_DICT_SET
                                                                : HISTORY_DICT_INSERT,
            0, 0);
    if (request->operation == EDIT_DICTIONARY_ERASE) {
        if (!present) return true;
        if (!collection_erase(space, &keys, CE_TYPE_STRING, false, position) ||
            !erase_element(space, loaded, &found->spec, &values, position, request))
            return false;
    } else if (present) {
        if (!replace_element(space, &found->spec, &values, position, request->value, request)) return false;
    } else {
        ce_value key = {.type = CE_TYPE_STRING, .string = {request->key, request->key_size}};
        if (!collection_insert(space, &keys, CE_TYPE_STRING, false, position, &key) ||
            !insert_element(space, &found->spec, &values, position, request->value, request))
            return false;
    }
    /* A key set to the link it holds changes nothing: the root stays as it
     * is (a copy made writable here would never be stored, and the
     * committed root it replaces would be freed while still in use). */
    if (!request->changed) return true;
    if (keys == 0 || values == 0) { /* the last key went: the dictionary is empty */
        if ((keys && !collection_destroy(space, keys)) || (values && !collection_destroy(space, values)) ||
            !node_free(space, found->root))
            return false;
        found->root = 0;
        return true;
    }
    if (found->root == 0) {
        if (!node_create(space, NODE_HAS_REFS, 2, 0, &found->root)) return false;
    } else if (!node_make_writable(space, &found->root)) {
        return false;
    }
    return node_set(space, found->root, 0, (int64_t)keys) && node_set(space, found->root, 1, (int64_t)values);
}

static bool apply_edit(ce_txn *txn, schema *loaded, found_collection *found, edit_request *request)
{
    space_state *space = db_txn_space(txn);
    if (request->operation == EDIT_CLEAR) {
        if (found->root == 0) return true;
        space_ref values;
        ce_type type;
        bool nullable;
        size_t count;
        if (!containers_found_values(space, found, &values, &type, &nullable) ||
            !collection_size(space, values, type, nullable, &count))
            return false;
        note_op(request, HISTORY_CLEAR, count, 0);
        request->changed = true;
        if (!links_collect_collection(space, found->kind, &found->spec, found->root, &request->removed, 0) ||
            !node_free_tree(space, found->root))
            return false;
        found->root = 0;
        return true;
    }
    switch (found->kind) {
    case CE_COLLECTION_LIST: return edit_list(space, loaded, found, request);
    case CE_COLLECTION_SET:
        if (request->operation != EDIT_SET_INSERT && request->operation != EDIT_SET_ERASE) break;
        return edit_set(space, loaded, found, request);
    case CE_COLLECTION_DICTIONARY:
        if (request->operation != EDIT_DICTIONARY_SET && request->operation != EDIT_DICTIONARY_ERASE) break;
        return edit_dictionary(space, loaded, found, request);
    case CE_COLLECTION_NONE: break;
    }
    return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': that operation does not apply to a %s", SPEC_WHERE(&found->spec),
                   found->kind == CE_COLLECTION_LIST  ? "list"
                   : found->kind == CE_COLLECTION_SET ? "set"
                                                      : "dictionary");
}

/* Applies the edit at the end of the path and writes each level back. */
static bool edit_path(ce_txn *txn, schema *loaded, found_collection *found, const nested_step *steps,
                      size_t remaining, edit_request *request)
{
    if (remaining == 0) return apply_edit(txn, loaded, found, request);
    space_state *space = db_txn_space(txn);
    found_collection inner;
    space_ref node, values;
    size_t index;
    if (!find_nested(space, loaded, found, steps, &inner, &node) ||
        !edit_path(txn, loaded, &inner, steps + 1, remaining - 1, request))
        return false;
    if (!request->changed) return true;
    ce_value new_stored;
    if (!node_make_writable(space, &node) || !node_set(space, node, 1, (int64_t)inner.root) ||
        !step_position(space, loaded, found, steps, &index, &values))
        return false;
    new_stored = object_stored_ref(node);
    if (!collection_set(space, &values, COLUMN_TYPE_OWNED_REFS, false, index, &new_stored)) return false;
    if (found->kind == CE_COLLECTION_LIST) {
        found->root = values;
        return true;
    }
    return node_make_writable(space, &found->root) && node_set(space, found->root, 1, (int64_t)values);
}

/* The edit as an op of the collection's history. */
static bool record_edit(const ce_collection *collection, const edit_request *request)
{
    history_path_step steps[9], *path = steps;
    if (collection->depth + 1 > 9) {
        path = malloc((collection->depth + 1) * sizeof *path);
        if (!path) return schema_out_of_memory();
    }
    history_collection_id id;
    bool dictionary_op = request->op == HISTORY_DICT_INSERT || request->op == HISTORY_DICT_SET ||
                         request->op == HISTORY_DICT_ERASE;
    bool ok = history_collection_id_of(collection, path, collection->depth, &id);
    if (ok && request->replaced_nested && request->replaced_count > 0) {
        /* The collection the replaced element held, one step further, was
         * cleared first (a new one in its place starts empty). */
        path[collection->depth] = dictionary_op ? (history_path_step){true, 0, request->key, request->key_size}
                                                : (history_path_step){false, request->op_a, NULL, 0};
        history_collection_id nested = id;
        nested.depth++;
        ok = history_collection_op(collection->txn, &nested, HISTORY_CLEAR, request->replaced_count, 0, NULL, 0);
    }
    ok = ok && history_collection_op(collection->txn, &id, request->op, request->op_a, request->op_b,
                                     dictionary_op ? request->key : NULL, dictionary_op ? request->key_size : 0);
    if (path != steps) free(path);
    return ok;
}

static bool edit_collection(ce_collection *collection, edit_request *request)
{
    schema *loaded;
    found_collection found;
    ce_value stored;
    if (!collection || !db_txn_require_write(collection->txn) || !find_top(collection, &loaded, &found, &stored))
        return false;
    ce_txn *txn = collection->txn;
    bool ok = edit_path(txn, loaded, &found, collection->steps, collection->depth, request);
    if (ok && request->changed) {
        ce_value new_stored = object_stored_ref(found.root);
        if (collection->through_mixed) {
            space_ref node = (space_ref)stored.integer;
            ok = node_make_writable(db_txn_space(txn), &node) && node_set(db_txn_space(txn), node, 1, (int64_t)found.root);
            new_stored = object_stored_ref(node);
        }
        link_origin origin = {collection->table, collection->column, collection->object};
        ok = ok &&
             object_write_stored(txn, loaded, collection->table, collection->object, collection->column, &new_stored) &&
             record_edit(collection, request) &&
             links_apply_changes(txn, loaded, &origin, &request->added, &request->removed, 0);
    }
    free(request->added.items);
    free(request->removed.items);
    return ok;
}

/* Checks a value for the collection's elements before an edit. */
/* How many mixed values hold the collection: 0 for a collection property,
 * 1 for the collection of a mixed property or of an element of a
 * collection property, one more per step below. links_collect and
 * purge_collection count levels the same way and take more than
 * MAX_NESTING for damage, so no collection is created deeper. */
static size_t nesting_level(const ce_collection *collection)
{
    return collection->depth + (collection->through_mixed ? 1 : 0);
}

static bool too_deep_to_nest(void)
{
    return error_fail(CE_ERR_INVALID_ARGUMENT, "collections nest at most %d levels deep", MAX_NESTING);
}

static bool check_collection_value(const ce_collection *collection, const ce_value *value)
{
    schema *loaded;
    found_collection found;
    if (!containers_find(collection, &loaded, &found) ||
        !object_check_element(collection->txn, loaded, &found.spec, value))
        return false;
    if ((value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY) && nesting_level(collection) >= MAX_NESTING)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': collections nest at most %d levels deep",
                       SPEC_WHERE(&found.spec), MAX_NESTING);
    return true;
}

static bool check_dictionary_key(const char *key, size_t size)
{
    if (!key && size > 0) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key of %zu bytes has no data", size);
    if (!utf8_is_valid(key, size)) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key is not valid UTF-8");
    if (size > 0 && key[0] == '$')
        return error_fail(CE_ERR_INVALID_ARGUMENT, "dictionary key '%.*s' must not start with '$'", (int)size, key);
    if (memchr(key, '.', size))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "dictionary key '%.*s' must not contain '.'", (int)size, key);
    return true;
}

/* ------------------------------------------------------------------------ */
/* The public collection calls                                               */
/* ------------------------------------------------------------------------ */

/* Closed collection handles, kept for new ones (handle.h). */
static handle_pool collection_pool = HANDLE_POOL(0x4F52434F4C4C4543ull, "ce_collection");

bool containers_check(const ce_collection *collection, const char *call)
{
    return handle_check(&collection_pool, collection, call);
}

static bool open_handle(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column, bool through_mixed,
                        ce_collection **out_collection)
{
    if (!out_collection) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_open: out_collection is required");
    ce_collection *collection = handle_new(&collection_pool, sizeof *collection);
    if (!collection) return schema_out_of_memory();
    collection->txn = txn;
    collection->table = table;
    collection->object = object;
    collection->column = column;
    collection->through_mixed = through_mixed;
    schema *loaded;
    found_collection found;
    if (!containers_find(collection, &loaded, &found)) {
        handle_delete(&collection_pool, collection, sizeof *collection);
        return false;
    }
    *out_collection = collection;
    return true;
}

bool ce_collection_open(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                        ce_collection **out_collection)
{
    schema *loaded = NULL;
    schema_table *found_table = NULL;
    const schema_property *property = NULL;
    if (!schema_find_table(txn, table, &loaded, &found_table) || !schema_find_column(found_table, column, &property))
        return false;
    if (property->collection == CE_COLLECTION_NONE)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a collection%s", found_table->name, property->name,
                       property->type == CE_TYPE_MIXED ? " (a mixed value: use ce_collection_open_mixed)" : "");
    return open_handle(txn, table, object, column, false, out_collection);
}

bool ce_collection_open_mixed(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                              ce_collection **out_collection)
{
    schema *loaded = NULL;
    schema_table *found_table = NULL;
    const schema_property *property = NULL;
    if (!schema_find_table(txn, table, &loaded, &found_table) || !schema_find_column(found_table, column, &property))
        return false;
    if (property->type != CE_TYPE_MIXED || property->collection != CE_COLLECTION_NONE)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a mixed property", found_table->name, property->name);
    return open_handle(txn, table, object, column, true, out_collection);
}

bool ce_collection_open_nested(const ce_collection *parent, const ce_value *at, ce_collection **out_collection)
{
    if (!containers_check(parent, "ce_collection_open_nested")) return false;
    if (!at || !out_collection)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_open_nested: arguments are required");
    if (nesting_level(parent) >= MAX_NESTING) return too_deep_to_nest();
    if (at->type != CE_TYPE_INT && at->type != CE_TYPE_STRING)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a nested collection is reached by an index (int) or a key (string)");
    if (value_bytes_missing(at))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a nested collection's key of %zu bytes has no data", at->string.size);
    if (at->type == CE_TYPE_INT && at->integer < 0)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %lld is out of bounds", (long long)at->integer);
    ce_collection *collection = handle_new(&collection_pool, sizeof *collection);
    nested_step *steps = calloc(parent->depth + 1, sizeof *steps);
    if (!collection || !steps) {
        if (collection) handle_delete(&collection_pool, collection, sizeof *collection);
        free(steps);
        return schema_out_of_memory();
    }
    *collection = *parent;
    collection->values = collection->keys = (cached_reader){NULL, 0, 0}; /* the parent's are its own */
    collection->steps = steps;
    collection->depth = parent->depth + 1;
    bool ok = true;
    for (size_t i = 0; i < collection->depth && ok; i++) {
        const nested_step *source = i < parent->depth ? &parent->steps[i] : NULL;
        nested_step step = source ? *source
                                  : (nested_step){at->type == CE_TYPE_STRING,
                                                  at->type == CE_TYPE_INT ? (size_t)at->integer : 0,
                                                  (char *)at->string.data, at->string.size};
        if (!step.by_key) {
            steps[i] = (nested_step){false, step.index, NULL, 0};
            continue;
        }
        steps[i] = (nested_step){true, 0, malloc(step.key_size + 1), step.key_size};
        ok = steps[i].key != NULL;
        if (ok && step.key_size) memcpy(steps[i].key, step.key, step.key_size);
    }
    schema *loaded;
    found_collection found;
    if (!ok) {
        ce_collection_close(collection);
        return schema_out_of_memory();
    }
    if (!containers_find(collection, &loaded, &found)) {
        ce_collection_close(collection);
        return false;
    }
    *out_collection = collection;
    return true;
}

void ce_collection_close(ce_collection *collection)
{
    if (!collection || !containers_check(collection, "ce_collection_close")) return; /* closed twice: the error only */
    table_collection_reader_close(collection->values.reader);
    table_collection_reader_close(collection->keys.reader);
    for (size_t i = 0; i < collection->depth; i++) free(collection->steps[i].key);
    free(collection->steps);
    handle_delete(&collection_pool, collection, sizeof *collection);
}

bool ce_collection_kind(const ce_collection *collection, ce_collection_type *out_kind, ce_type *out_element_type)
{
    schema *loaded;
    found_collection found;
    if (!out_kind || !out_element_type) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_kind: arguments are required");
    if (!containers_find(collection, &loaded, &found)) return false;
    *out_kind = found.kind;
    *out_element_type = found.spec.type;
    return true;
}

/* The handle's reader of its values (`keys`: of a dictionary's keys) in the
 * transaction's current state: the cached one, unless anything changed
 * since it was resolved. */
static bool current_reader(const ce_collection *collection, bool keys, table_collection_reader **out_reader,
                           size_t *out_count)
{
    if (!containers_check(collection, "a collection call")) return false;
    ce_collection *own = (ce_collection *)collection; /* every handle is allocated writable; only its cache changes */
    cached_reader *cached = keys ? &own->keys : &own->values;
    if (!cached->reader || cached->stamp != db_txn_stamp(collection->txn)) {
        table_collection_reader_close(cached->reader);
        cached->reader = NULL;
        if (!table_collection_reader_open(collection, keys, &cached->reader, &cached->count)) return false;
        /* (Taken after: resolving may flush objects object.c buffered.) */
        cached->stamp = db_txn_stamp(collection->txn);
    }
    *out_reader = cached->reader;
    if (out_count) *out_count = cached->count;
    return true;
}

bool ce_collection_size(const ce_collection *collection, size_t *out_count)
{
    table_collection_reader *reader;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_size: out_count is required");
    return current_reader(collection, false, &reader, out_count);
}

bool ce_collection_get(const ce_collection *collection, size_t index, ce_value *out_value)
{
    table_collection_reader *reader;
    if (!out_value) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_get: out_value is required");
    return current_reader(collection, false, &reader, NULL) && table_collection_reader_get(reader, index, out_value);
}

bool ce_collection_find(const ce_collection *collection, const ce_value *value, size_t *out_index, bool *out_found)
{
    schema *loaded;
    found_collection found;
    if (!value || !out_index || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_find: arguments are required");
    if (!value_check_type(value) || !containers_find(collection, &loaded, &found)) return false;
    if (value_bytes_missing(value)) return object_bytes_missing(&found.spec, value);
    const space_state *space = db_txn_space(collection->txn);
    ce_type type;
    bool nullable;
    object_storage_of(&found.spec, &type, &nullable);
    *out_found = false;
    if (found.kind == CE_COLLECTION_SET) {
        element_search search = {space, &found.spec, value};
        return collection_lower_bound(space, found.root, type, nullable, &loaded->search_scratch, compare_element,
                                      &search, out_index, out_found);
    }
    space_ref values;
    collection_reader reader;
    if (!containers_found_values(space, &found, &values, &type, &nullable) ||
        !collection_reader_open(space, values, type, nullable, &reader))
        return false;
    for (size_t i = 0; i < collection_reader_size(&reader); i++) {
        ce_value stored, element;
        if (!collection_reader_get(&reader, i, &loaded->search_scratch, &stored) ||
            !object_decode_element(space, &found.spec, &stored, &element))
            return false;
        if (element.type == value->type && value_equal(&element, value) && element.type != CE_TYPE_LIST &&
            element.type != CE_TYPE_DICTIONARY) {
            *out_index = i;
            *out_found = true;
            return true;
        }
    }
    return true;
}

bool ce_collection_clear(ce_collection *collection)
{
    edit_request request = {.operation = EDIT_CLEAR};
    return edit_collection(collection, &request);
}

static bool edit_with_value(ce_collection *collection, edit_operation operation, size_t index, const ce_value *value)
{
    if (!check_collection_value(collection, value)) return false;
    edit_request request = {.operation = operation, .index = index, .value = value};
    return edit_collection(collection, &request);
}

bool ce_list_insert(ce_collection *list, size_t index, const ce_value *value)
{
    return edit_with_value(list, EDIT_LIST_INSERT, index, value);
}

bool ce_list_set(ce_collection *list, size_t index, const ce_value *value)
{
    return edit_with_value(list, EDIT_LIST_SET, index, value);
}

bool ce_list_erase(ce_collection *list, size_t index)
{
    edit_request request = {.operation = EDIT_LIST_ERASE, .index = index};
    return edit_collection(list, &request);
}

bool ce_list_move(ce_collection *list, size_t from, size_t to)
{
    edit_request request = {.operation = EDIT_LIST_MOVE, .index = from, .other = to};
    return edit_collection(list, &request);
}

bool ce_list_swap(ce_collection *list, size_t a, size_t b)
{
    edit_request request = {.operation = EDIT_LIST_SWAP, .index = a, .other = b};
    return edit_collection(list, &request);
}

/* A new embedded object stored by an edit (inserted, or replacing). */
static bool edit_embedded(ce_collection *collection, edit_operation operation, size_t index, const char *key,
                          size_t key_size, ce_object_key *out_embedded)
{
    schema *loaded;
    found_collection found;
    if (!out_embedded) return error_fail(CE_ERR_INVALID_ARGUMENT, "out_embedded is required");
    if (!collection || !db_txn_require_write(collection->txn) || !containers_find(collection, &loaded, &found) ||
        !object_require_embedded_target(loaded, &found.spec))
        return false;
    /* The kind of collection and the position are checked before the
     * object exists, so that a call that fails creates nothing (an
     * embedded object without a parent). */
    ce_collection_type kind = operation == EDIT_DICTIONARY_SET ? CE_COLLECTION_DICTIONARY : CE_COLLECTION_LIST;
    if (found.kind != kind)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': that operation does not apply to a %s", SPEC_WHERE(&found.spec),
                       found.kind == CE_COLLECTION_LIST ? "list" : "dictionary");
    if (operation != EDIT_DICTIONARY_SET) {
        size_t count;
        if (!ce_collection_size(collection, &count) || !check_index(index, count, operation == EDIT_LIST_INSERT))
            return false;
    }
    if (!object_check_embedding_depth(collection->txn, loaded, collection->table, collection->object)) return false;
    ce_object_key child;
    if (!object_create_embedded(collection->txn, loaded, found.spec.link_target, &child)) return false;
    ce_value link = {.type = CE_TYPE_LINK, .link = {found.spec.link_target, child}};
    edit_request request = {.operation = operation, .index = index, .value = &link, .key = key, .key_size = key_size};
    if (!edit_collection(collection, &request)) return false;
    *out_embedded = child;
    return true;
}

bool ce_list_insert_embedded(ce_collection *list, size_t index, ce_object_key *out_embedded)
{
    return edit_embedded(list, EDIT_LIST_INSERT, index, NULL, 0, out_embedded);
}

bool ce_list_set_embedded(ce_collection *list, size_t index, ce_object_key *out_embedded)
{
    return edit_embedded(list, EDIT_LIST_SET, index, NULL, 0, out_embedded);
}

bool ce_set_insert(ce_collection *set, const ce_value *value, bool *out_changed)
{
    if (!check_collection_value(set, value)) return false;
    edit_request request = {.operation = EDIT_SET_INSERT, .value = value};
    if (!edit_collection(set, &request)) return false;
    if (out_changed) *out_changed = request.changed;
    return true;
}

bool ce_set_erase(ce_collection *set, const ce_value *value, bool *out_changed)
{
    if (!value) return error_fail(CE_ERR_INVALID_ARGUMENT, "a value is required");
    if (!value_check_type(value)) return false;
    if (value_bytes_missing(value)) {
        schema *loaded;
        found_collection found;
        return containers_find(set, &loaded, &found) && object_bytes_missing(&found.spec, value);
    }
    edit_request request = {.operation = EDIT_SET_ERASE, .value = value};
    if (!edit_collection(set, &request)) return false;
    if (out_changed) *out_changed = request.changed;
    return true;
}

bool ce_dictionary_get(const ce_collection *dictionary, const char *key, size_t key_size, ce_value *out_value,
                       bool *out_found)
{
    schema *loaded;
    found_collection found;
    if (!out_value || !out_found) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_dictionary_get: arguments are required");
    if (!key && key_size) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key of %zu bytes has no data", key_size);
    if (!containers_find(dictionary, &loaded, &found)) return false;
    if (found.kind != CE_COLLECTION_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a dictionary", SPEC_WHERE(&found.spec));
    const space_state *space = db_txn_space(dictionary->txn);
    space_ref keys, values;
    size_t position;
    ce_type type;
    bool nullable;
    ce_value stored;
    object_storage_of(&found.spec, &type, &nullable);
    if (!containers_dictionary_parts(space, found.root, &keys, &values) ||
        !find_key(space, loaded, keys, key ? key : "", key_size, &position, out_found))
        return false;
    if (!*out_found) return true;
    return collection_get(space, values, type, nullable, position, &loaded->scratch, &stored) &&
           object_decode_element(space, &found.spec, &stored, out_value);
}

bool ce_dictionary_key_at(const ce_collection *dictionary, size_t index, ce_value *out_key)
{
    table_collection_reader *reader;
    if (!out_key) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_dictionary_key_at: out_key is required");
    return current_reader(dictionary, true, &reader, NULL) && table_collection_reader_get(reader, index, out_key);
}

bool ce_dictionary_set(ce_collection *dictionary, const char *key, size_t key_size, const ce_value *value)
{
    if (!check_dictionary_key(key, key_size) || !check_collection_value(dictionary, value)) return false;
    edit_request request = {.operation = EDIT_DICTIONARY_SET, .value = value, .key = key ? key : "", .key_size = key_size};
    return edit_collection(dictionary, &request);
}

bool ce_dictionary_erase(ce_collection *dictionary, const char *key, size_t key_size, bool *out_erased)
{
    if (!key && key_size) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key of %zu bytes has no data", key_size);
    edit_request request = {.operation = EDIT_DICTIONARY_ERASE, .key = key ? key : "", .key_size = key_size};
    if (!edit_collection(dictionary, &request)) return false;
    if (out_erased) *out_erased = request.changed;
    return true;
}

bool ce_dictionary_insert_embedded(ce_collection *dictionary, const char *key, size_t key_size,
                                   ce_object_key *out_embedded)
{
    if (!check_dictionary_key(key, key_size)) return false;
    return edit_embedded(dictionary, EDIT_DICTIONARY_SET, 0, key ? key : "", key_size, out_embedded);
}

