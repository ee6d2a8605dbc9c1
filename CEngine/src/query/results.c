/*
 * results.c — results views: what a query matches (a scan), or the objects
 * of a collection of links, of backlinks, or of another view filtered;
 * then the view's sorts, distincts and limits in order. A view is lazy: it
 * is evaluated when read, and again when the transaction's state changed.
 * Also the aggregates of a view (ce_results_aggregate).
 *
 * Owns: ce_results (its source, descriptors and last evaluation), reading
 * bound paths for a view's entries, and the errors of a view whose
 * collection or object was deleted.
 * Never: keeps keys across states (a source names what it reads, and every
 * evaluation reads it again), or changes data.
 */
#include "results.h"
#include "aggregate.h"
#include "bind.h"
#include "buf.h"
#include "cluster.h"
#include "column.h"
#include "compare.h"
#include "db.h"
#include "error.h"
#include "handle.h"
#include "eval.h"
#include "parse.h"
#include "query_internal.h"
#include "scan.h"
#include "sort.h"
#include "table.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void descriptors_free(descriptor *descriptors, size_t count)
{
    for (size_t d = 0; d < count; d++) {
        for (size_t k = 0; k < descriptors[d].key_count; k++) free(descriptors[d].keys[k].text);
        free(descriptors[d].keys);
    }
    free(descriptors);
}

static void results_forget(ce_results *r)
{
    free(r->entries);
    free(r->by_key);
    free(r->by_key_position);
    r->entries = NULL;
    r->by_key = NULL;
    r->by_key_position = NULL;
    r->count = 0;
    r->evaluated = false;
}

/* Freed results handles, kept for new ones (handle.h). */
static handle_pool results_pool = HANDLE_POOL(0x4F52524553554C54ull, "ce_results");

ce_results *results_new(void) { return handle_new(&results_pool, sizeof(ce_results)); }

void results_discard(ce_results *results) { handle_delete(&results_pool, results, sizeof *results); }

bool results_check(const ce_results *results, const char *call) { return handle_check(&results_pool, results, call); }

void ce_results_free(ce_results *results)
{
    if (!results || !results_check(results, "ce_results_free")) return; /* freed twice: the error only */
    results_forget(results);
    descriptors_free(results->descriptors, results->descriptor_count);
    query_core_release(results->core);
    ce_results_free(results->source.base);
    results_discard(results);
}

ce_table_key ce_results_table(const ce_results *results)
{
    return handle_is_live(&results_pool, results) ? results->core->table : 0;
}

/* A new results view of the same query with the descriptors of `base` and
 * room for one more; `detached`: with a core of its own (and a view it
 * filters detached too). */
static bool results_copy_as(const ce_results *base, bool detached, ce_results **out);

bool results_copy(const ce_results *base, ce_results **out) { return results_copy_as(base, false, out); }

bool results_copy_detached(const ce_results *base, ce_results **out) { return results_copy_as(base, true, out); }

static bool results_copy_as(const ce_results *base, bool detached, ce_results **out)
{
    ce_results *r = results_new();
    if (!r) return query_out_of_memory();
    r->descriptors = calloc(base->descriptor_count + 1, sizeof *r->descriptors);
    if (!r->descriptors) {
        results_discard(r);
        return query_out_of_memory();
    }
    for (size_t d = 0; d < base->descriptor_count; d++) {
        const descriptor *from = &base->descriptors[d];
        descriptor *to = &r->descriptors[d];
        to->kind = from->kind;
        to->limit = from->limit;
        to->keys = calloc(from->key_count + 1, sizeof *to->keys);
        r->descriptor_count = d + 1;
        if (!to->keys) {
            ce_results_free(r);
            return query_out_of_memory();
        }
        to->key_count = from->key_count;
        for (size_t k = 0; k < from->key_count; k++) {
            to->keys[k] = from->keys[k];
            if (from->keys[k].text && !(to->keys[k].text = strdup(from->keys[k].text))) {
                to->keys[k].text = NULL;
                ce_results_free(r);
                return query_out_of_memory();
            }
        }
    }
    if (detached) {
        if (!query_core_clone(base->core, &r->core)) {
            ce_results_free(r);
            return false;
        }
    } else {
        atomic_fetch_add(&base->core->references, 1);
        r->core = base->core;
    }
    /* The filtered view is copied too: a view's evaluation state is its own. */
    r->source = base->source;
    r->source.base = NULL;
    if (base->source.base && !results_copy_as(base->source.base, detached, &r->source.base)) {
        ce_results_free(r);
        return false;
    }
    *out = r;
    return true;
}

/* The name realm-core gives a property's type in key path messages
 * (src/realm/object-store/property.hpp, string_for_property_type). */
static const char *realm_type_name(const table_property *property)
{
    switch (property->collection) {
    case CE_COLLECTION_LIST: return "array";
    case CE_COLLECTION_SET: return "set";
    case CE_COLLECTION_DICTIONARY: return "dictionary";
    default: break;
    }
    switch (property->type) {
    case CE_TYPE_INT: return "int";
    case CE_TYPE_BOOL: return "bool";
    case CE_TYPE_FLOAT: return "float";
    case CE_TYPE_DOUBLE: return "double";
    case CE_TYPE_STRING: return "string";
    case CE_TYPE_BINARY: return "data";
    case CE_TYPE_TIMESTAMP: return "date";
    case CE_TYPE_DECIMAL128: return "decimal128";
    case CE_TYPE_OBJECT_ID: return "object id";
    case CE_TYPE_UUID: return "uuid";
    case CE_TYPE_LINK: return "object";
    case CE_TYPE_MIXED: return "mixed";
    default: return ce_type_name(property->type);
    }
}

/*
 * Realm's rules for a sort or distinct key path given as text, with its
 * messages word for word: realm-core's object store parses both with one
 * function (src/realm/object-store/results.cpp, parse_keypath: "Cannot
 * sort on key path '%1': %2.", distinct included): a missing property
 * name, a property that does not exist, a collection, a link at the end,
 * a value before the end. The engine's own key paths (a component with
 * '@' or '[': aggregates, backlinks, dictionary entries) are the binder's.
 */
static bool check_realm_key_path(ce_txn *txn, ce_table_key table, const char *text)
{
    if (strpbrk(text, "@[")) return true;
    const char *begin = text, *end = text + strlen(text);
    char reason[256];
    ce_table_key current = table;
    if (begin == end) snprintf(reason, sizeof reason, "missing property name");
    while (begin != end) {
        const char *sep = memchr(begin, '.', (size_t)(end - begin));
        if (!sep) sep = end;
        if (sep == begin || sep + 1 == end) {
            snprintf(reason, sizeof reason, "missing property name");
            break;
        }
        const char *table_name;
        table_property property;
        bool found;
        if (!table_name_of(txn, current, &table_name) ||
            !table_find_property(txn, current, begin, (size_t)(sep - begin), &property, &found))
            return false;
        int length = (int)(sep - begin);
        bool last = sep == end;
        if (!found) {
            snprintf(reason, sizeof reason, "property '%.80s.%.*s' does not exist", table_name, length, begin);
            break;
        }
        if (property.collection != CE_COLLECTION_NONE) {
            snprintf(reason, sizeof reason, "property '%.80s.%.*s' is of unsupported type '%s'", table_name, length, begin,
                     realm_type_name(&property));
            break;
        }
        if (property.type == CE_TYPE_LINK && last) {
            snprintf(reason, sizeof reason,
                     "property '%.80s.%.*s' of type 'object' cannot be the final property in the key path", table_name, length,
                     begin);
            break;
        }
        if (property.type != CE_TYPE_LINK && !last) {
            snprintf(reason, sizeof reason, "property '%.80s.%.*s' of type '%s' may only be the final property in the key path",
                     table_name, length, begin, realm_type_name(&property));
            break;
        }
        current = property.link_target;
        begin = last ? end : sep + 1;
    }
    if (begin == end && text[0]) return true;
    return error_fail(CE_ERR_INVALID_QUERY, "Cannot sort on key path '%.80s': %s.", text, reason);
}

/* Binds a descriptor's key path to a column of the table (temporary slots
 * and descriptions go to `scratch`). */
static bool bind_descriptor_key(query_core *core, ce_txn *txn, const descriptor_key *key, const char *clause,
                                bound_query *scratch, bound_path *out)
{
    binder b;
    memset(&b, 0, sizeof b);
    b.core = core;
    b.txn = txn;
    b.out = scratch;
    if (!table_name_of(txn, core->table, &b.table_name)) return false;
    if (key->node >= 0) {
        b.clause = clause;
        b.text = core->tree.text;
        b.text_length = core->tree.text_length;
        b.subject = "Invalid predicate";
        const parse_node *node = &core->tree.nodes[key->node];
        if (node->kind == PARSE_KEY_PATH_ARGUMENT) return bind_key_path_argument(&b, node, out);
        return bind_key_path(&b, &core->tree, node, 0, false, out);
    }
    parse_tree tree;
    if (!parse_key_path(key->text, strlen(key->text), &tree)) {
        if (ce_last_error_code() != CE_ERR_INVALID_QUERY) return false;
        char reason[300];
        snprintf(reason, sizeof reason, "%s", ce_last_error_message());
        return error_fail(CE_ERR_INVALID_QUERY, "Invalid key path '%.80s': %s", key->text,
                       reason + (strncmp(reason, "Invalid predicate: ", 19) == 0 ? 19 : 0));
    }
    char subject[128];
    snprintf(subject, sizeof subject, "Invalid key path '%.80s'", key->text);
    b.text = tree.text;
    b.text_length = tree.text_length;
    b.subject = subject;
    bool ok = bind_key_path(&b, &tree, &tree.nodes[tree.root], 0, false, out);
    parse_tree_free(&tree);
    return ok;
}

/* Sorting, distinct and aggregates need one value per object. */
static bool check_single_value(const bound_path *path, const char *what)
{
    if (path->final == FINAL_OBJECT && path->aggregate == PATH_ALL_VALUES)
        return error_fail(CE_ERR_INVALID_QUERY, "cannot %s by '%s': it holds objects, not a value", what, path->description);
    if (path->multi && path->aggregate == PATH_ALL_VALUES)
        return error_fail(CE_ERR_INVALID_QUERY, "cannot %s by '%s': it holds several values (use @count, @sum, @min, ...)",
                       what, path->description);
    return true;
}

/* Binds a descriptor's key paths (into `scratch`). */
static bool bind_descriptor(query_core *core, ce_txn *txn, const descriptor *d, bound_query *scratch, bound_path **out_paths,
                            bool **out_ascending)
{
    bound_path *paths = calloc(d->key_count + 1, sizeof *paths);
    bool *ascending = calloc(d->key_count + 1, sizeof *ascending);
    if (!paths || !ascending) {
        free(paths);
        free(ascending);
        return query_out_of_memory();
    }
    for (size_t k = 0; k < d->key_count; k++) {
        ascending[k] = d->keys[k].ascending;
        if ((d->keys[k].node < 0 && !check_realm_key_path(txn, core->table, d->keys[k].text)) ||
            !bind_descriptor_key(core, txn, &d->keys[k], d->kind == DESCRIPTOR_SORT ? "sort" : "distinct", scratch, &paths[k]) ||
            !check_single_value(&paths[k], d->kind == DESCRIPTOR_SORT ? "sort" : "make results distinct")) {
            free(paths);
            free(ascending);
            return false;
        }
    }
    *out_paths = paths;
    *out_ascending = ascending;
    return true;
}

static bool apply_descriptor(ce_results *r, ce_txn *txn, const descriptor *d)
{
    if (d->kind == DESCRIPTOR_LIMIT) {
        if (r->count > d->limit) r->count = d->limit;
        return true;
    }
    bound_query scratch;
    memset(&scratch, 0, sizeof scratch);
    bound_path *paths;
    bool *ascending;
    if (!bind_descriptor(r->core, txn, d, &scratch, &paths, &ascending)) {
        bind_query_free(&scratch);
        return false;
    }
    bool ok = d->kind == DESCRIPTOR_SORT
                  ? sort_entries(txn, r->core->table, r->core->column_count, paths, ascending, d->key_count, &r->entries,
                                 r->count)
                  : sort_distinct(txn, r->core->table, r->core->column_count, paths, d->key_count, r->entries, &r->count);
    /* Sorted entries are no longer in key order (index_of looks them up by key). */
    if (ok && d->kind == DESCRIPTOR_SORT && r->count >= 2) r->key_ordered = false;
    free(paths);
    free(ascending);
    bind_query_free(&scratch);
    return ok;
}

static bool results_evaluate(ce_results *r, ce_txn *txn);

/* ------------------------------------------------------------------------ */
/* Sources other than a table scan: a collection, backlinks, another view    */
/* ------------------------------------------------------------------------ */

/* The entries (leaf and position) of objects of `table` given by key, in
 * the order given; repeats stay. */
static bool entries_of_keys(ce_txn *txn, ce_table_key table, const ce_object_key *keys, size_t count, const char *source,
                            entry **out_entries)
{
    space_ref root;
    cluster_schema columns;
    if (!table_cluster(txn, table, &root, &columns)) return false;
    entry *entries = malloc((count + 1) * sizeof *entries);
    if (!entries) return query_out_of_memory();
    const space_state *space = db_txn_space(txn);
    for (size_t i = 0; i < count; i++) {
        cluster_position position;
        bool found;
        if (!cluster_find(space, root, keys[i], &position, &found, NULL)) {
            free(entries);
            return false;
        }
        if (!found) {
            const char *name = "?";
            (void)table_name_of(txn, table, &name);
            free(entries);
            return error_fail(CE_ERR_CORRUPT, "invalid database: %s names object %lld of '%s', which does not exist", source,
                           (long long)keys[i], name);
        }
        entries[i] = (entry){keys[i], position.leaf, position.index};
    }
    *out_entries = entries;
    return true;
}

/* A view of a collection or of backlinks reads them from an object that a
 * later transaction may have deleted: then, as Realm invalidates the List
 * or LinkingObjects, the view fails (and does not pretend to be empty). */
static bool check_owner(ce_txn *txn, const results_source *source, const char *what)
{
    bool exists;
    if (!ce_object_exists(txn, source->owner_table, source->owner, &exists)) return false;
    if (exists) return true;
    const char *table = "?";
    (void)table_name_of(txn, source->owner_table, &table);
    return error_fail(CE_ERR_NO_SUCH_OBJECT,
                   "the results view of %s is invalidated: its object %lld of '%s' was deleted", what,
                   (long long)source->owner, table);
}

/* The keys the source's collection holds, in its order (a dictionary's:
 * in key order, its null values left out). */
static bool keys_in_collection(ce_txn *txn, const results_source *source, key_list *out)
{
    if (!check_owner(txn, source, "a collection")) return false;
    ce_collection *collection;
    if (!ce_collection_open(txn, source->owner_table, source->owner, source->column, &collection)) return false;
    table_collection_reader *reader = NULL;
    size_t size;
    ce_collection_type kind;
    ce_type element;
    bool ok = ce_collection_kind(collection, &kind, &element) &&
              table_collection_reader_open(collection, false, &reader, &size);
    for (size_t i = 0; ok && i < size; i++) {
        ce_value link;
        ok = table_collection_reader_get(reader, i, &link);
        if (ok && link.type == CE_TYPE_NULL && kind == CE_COLLECTION_DICTIONARY) continue;
        if (ok && link.type != CE_TYPE_LINK)
            ok = error_fail(CE_ERR_WRONG_TYPE, "a results view of a collection holds links, but element %zu is a %s", i,
                         ce_type_name(link.type));
        if (ok) ok = scan_key_push(out, link.link.key);
    }
    table_collection_reader_close(reader);
    ce_collection_close(collection);
    return ok;
}

/* The origins of the links into the source's object, in key order. */
static bool keys_of_backlinks(ce_txn *txn, const results_source *source, ce_table_key origin_table, key_list *out)
{
    if (!check_owner(txn, source, "backlinks")) return false;
    size_t count;
    if (!ce_object_backlink_count(txn, source->owner_table, source->owner, origin_table, source->column, &count))
        return false;
    for (size_t i = 0; i < count; i++) {
        ce_object_key origin;
        if (!ce_object_backlink_at(txn, source->owner_table, source->owner, origin_table, source->column, i, &origin) ||
            !scan_key_push(out, origin))
            return false;
    }
    return true;
}

typedef struct entry_place {
    space_ref leaf;
    size_t index;
    size_t position; /* in the view */
} entry_place;

static int compare_places(const void *a, const void *b)
{
    const entry_place *x = a, *y = b;
    if (x->leaf != y->leaf) return x->leaf < y->leaf ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* Keeps the entries whose objects match the core's predicate, in their
 * order. The entries are grouped by leaf so that the predicate runs as in
 * a scan: once per leaf, over a mask of the entries' positions there. */
static bool keep_matching(query_core *core, ce_txn *txn, entry *entries, size_t *count)
{
    size_t n = *count;
    if (n == 0) return true;
    evaluation e;
    if (!eval_start(&e, core, txn)) return false;
    entry_place *places = malloc(n * sizeof *places);
    bool *keep = calloc(n, sizeof *keep);
    bool ok = places && keep ? true : query_out_of_memory();
    if (ok) {
        for (size_t i = 0; i < n; i++) places[i] = (entry_place){entries[i].leaf, entries[i].index, i};
        qsort(places, n, sizeof *places, compare_places);
    }
    for (size_t i = 0; ok && i < n;) {
        cluster_leaf leaf;
        ok = cluster_leaf_at(e.space, places[i].leaf, e.columns.column_count, &leaf) && eval_enter_leaf(&e, &leaf);
        if (!ok) break;
        mask candidates, matched;
        mask_clear(&candidates);
        size_t end = i;
        for (; end < n && places[end].leaf == places[i].leaf; end++) {
            if (places[end].index >= e.count) {
                ok = eval_corrupt_leaf(&leaf, "an object's position lies past its end");
                break;
            }
            mask_set(&candidates, places[end].index);
        }
        if (ok) ok = eval_leaf(&e, &candidates, &matched);
        for (size_t k = i; ok && k < end; k++) keep[places[k].position] = mask_has(&matched, places[k].index);
        i = end;
    }
    if (ok) {
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (keep[i]) entries[kept++] = entries[i];
        *count = kept;
    }
    free(places);
    free(keep);
    eval_end(&e);
    return ok;
}

/* Fills r->entries and r->count from a source other than a table scan. */
static bool source_entries(ce_results *r, ce_txn *txn)
{
    const results_source *source = &r->source;
    if (source->kind == SOURCE_FILTER) {
        ce_results *base = source->base;
        if (!results_evaluate(base, txn)) return false;
        r->entries = malloc((base->count + 1) * sizeof *r->entries);
        if (!r->entries) return query_out_of_memory();
        if (base->count) memcpy(r->entries, base->entries, base->count * sizeof *r->entries);
        r->count = base->count;
        return keep_matching(r->core, txn, r->entries, &r->count);
    }
    key_list keys = {NULL, 0, 0};
    bool ok = source->kind == SOURCE_COLLECTION ? keys_in_collection(txn, source, &keys)
                                                : keys_of_backlinks(txn, source, r->core->table, &keys);
    if (ok) {
        ok = entries_of_keys(txn, r->core->table, keys.keys, keys.count,
                             source->kind == SOURCE_COLLECTION ? "a collection of links" : "a backlink", &r->entries);
        if (ok) r->count = keys.count;
    }
    free(keys.keys);
    return ok;
}

/* Evaluates the view unless it is up to date for the transaction's state. */
static bool results_evaluate(ce_results *r, ce_txn *txn)
{
    if (!r || !txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "results and a transaction are required");
    /* Objects the table buffered count: flushing them moves the stamp. */
    if (!table_flush(txn, r->core->table)) return false;
    if (r->evaluated && r->stamp == db_txn_stamp(txn)) return true;
    results_forget(r);
    bool ok = true;
    if (r->source.kind == SOURCE_TABLE) {
        evaluation e;
        if (!eval_start(&e, r->core, txn)) return false;
        scan_state s;
        memset(&s, 0, sizeof s);
        s.e = &e;
        s.goal = GOAL_COLLECT;
        s.limit = SIZE_MAX;
        if (r->descriptor_count && r->descriptors[0].kind == DESCRIPTOR_LIMIT) s.limit = r->descriptors[0].limit;
        ok = scan_run(&s);
        eval_end(&e);
        if (!ok) {
            free(s.entries);
            return false;
        }
        r->entries = s.entries;
        r->count = s.entry_count;
        r->key_ordered = true;
    } else {
        if (!source_entries(r, txn)) {
            results_forget(r);
            return false;
        }
        r->key_ordered = false;
    }
    for (size_t d = 0; ok && d < r->descriptor_count; d++) ok = apply_descriptor(r, txn, &r->descriptors[d]);
    if (!ok) {
        results_forget(r);
        return false;
    }
    r->evaluated = true;
    r->stamp = db_txn_stamp(txn);
    return true;
}

bool ce_results_count(ce_results *results, ce_txn *txn, size_t *out_count)
{
    if (!results_check(results, "ce_results_count")) return false;
    if (!results || !txn || !out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_count: arguments are required");
    if (!table_flush(txn, results->core->table)) return false;
    uint64_t stamp = db_txn_stamp(txn);
    if (results->evaluated && results->stamp == stamp) {
        *out_count = results->count;
        return true;
    }
    if (results->descriptor_count == 0 && results->source.kind == SOURCE_TABLE) {
        /* Counting needs no list of objects. */
        if (!(results->counted && results->count_stamp == stamp)) {
            evaluation e;
            if (!eval_start(&e, results->core, txn)) return false;
            scan_state s;
            memset(&s, 0, sizeof s);
            s.e = &e;
            s.goal = GOAL_COUNT;
            bool ok = scan_run(&s);
            eval_end(&e);
            if (!ok) return false;
            results->cached_count = s.count;
            results->counted = true;
            results->count_stamp = stamp;
        }
        *out_count = results->cached_count;
        return true;
    }
    if (!results_evaluate(results, txn)) return false;
    *out_count = results->count;
    return true;
}

bool ce_results_get(ce_results *results, ce_txn *txn, size_t index, ce_object_key *out_object)
{
    if (!results_check(results, "ce_results_get")) return false;
    if (!results || !txn || !out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_get: arguments are required");
    if (!results_evaluate(results, txn)) return false;
    if (index >= results->count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "Index %zu is out of bounds (must be less than %zu).", index,
                       results->count);
    *out_object = results->entries[index].key;
    return true;
}

bool ce_results_get_range(ce_results *results, ce_txn *txn, size_t start, size_t count, ce_object_key *out_objects,
                          size_t *out_count)
{
    if (!results_check(results, "ce_results_get_range")) return false;
    if (!results || !txn || !out_count || (count && !out_objects))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_get_range: arguments are required");
    if (!results_evaluate(results, txn)) return false;
    if (start > results->count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "Index %zu is out of bounds (must be at most %zu).", start,
                          results->count);
    size_t available = results->count - start;
    if (count > available) count = available;
    for (size_t i = 0; i < count; i++) out_objects[i] = results->entries[start + i].key;
    *out_count = count;
    return true;
}

/* By key, then by position (the index field of index_of's copy): a view of
 * a list may hold an object twice, and index_of names its first position. */
static int compare_entry_keys(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

bool ce_results_index_of(ce_results *results, ce_txn *txn, ce_object_key object, size_t *out_index, bool *out_found)
{
    if (!results_check(results, "ce_results_index_of")) return false;
    if (!results || !txn || !out_index || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_index_of: arguments are required");
    if (!results_evaluate(results, txn)) return false;
    const entry *entries = results->entries;
    if (!results->key_ordered && !results->by_key && results->count) {
        /* Entries by key, each with its position in the view (in the
         * index field: by_key is a private copy). */
        entry *by_key = malloc(results->count * sizeof *by_key);
        size_t *positions = malloc(results->count * sizeof *positions);
        if (!by_key || !positions) {
            free(by_key);
            free(positions);
            return query_out_of_memory();
        }
        for (size_t i = 0; i < results->count; i++) {
            by_key[i] = results->entries[i];
            by_key[i].index = i;
        }
        qsort(by_key, results->count, sizeof *by_key, compare_entry_keys);
        for (size_t i = 0; i < results->count; i++) positions[i] = by_key[i].index;
        results->by_key = by_key;
        results->by_key_position = positions;
    }
    if (!results->key_ordered) entries = results->by_key;
    size_t low = 0, high = results->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (entries[middle].key < object) low = middle + 1;
        else high = middle;
    }
    *out_found = low < results->count && entries[low].key == object;
    if (*out_found) *out_index = results->key_ordered ? low : results->by_key_position[low];
    return true;
}

bool ce_results_aggregate(ce_results *results, ce_txn *txn, const char *key_path, ce_aggregate aggregate,
                          ce_value *out_value, size_t *out_counted)
{
    if (!results_check(results, "ce_results_aggregate")) return false;
    if (!results || !txn || !key_path || !out_value)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_aggregate: arguments are required");
    if ((unsigned)aggregate > CE_AGGREGATE_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "unknown aggregate %d", (int)aggregate);
    descriptor_key key = {-1, (char *)key_path, true};
    bound_query scratch;
    memset(&scratch, 0, sizeof scratch);
    bound_path path;
    if (!table_flush(txn, results->core->table) || !bind_core(results->core, txn) ||
        !bind_descriptor_key(results->core, txn, &key, NULL, &scratch, &path)) {
        bind_query_free(&scratch);
        return false;
    }
    if (!check_single_value(&path, "aggregate")) {
        bind_query_free(&scratch);
        return false;
    }
    ce_type type = path_value_type(&path);
    if (!aggregate_supported(aggregate, type)) {
        bool ok = error_fail(CE_ERR_WRONG_TYPE, "cannot compute the %s of %s property '%s'", aggregate_name(aggregate),
                          path.size_of ? "the length of a" : ce_type_name(path.type), path.description);
        bind_query_free(&scratch);
        return ok;
    }
    aggregator a;
    aggregate_init(&a, aggregate, type);
    bool ok;
    if (path.local && results->descriptor_count == 0 && results->source.kind == SOURCE_TABLE &&
        !(results->evaluated && results->stamp == db_txn_stamp(txn))) {
        /* Straight from the leaves: no list of objects. */
        evaluation e;
        ok = eval_start(&e, results->core, txn);
        if (ok) {
            scan_state s;
            memset(&s, 0, sizeof s);
            s.e = &e;
            s.goal = GOAL_AGGREGATE;
            s.aggregate = &a;
            s.aggregate_path = &path;
            ok = scan_run(&s);
            eval_end(&e);
        }
    } else {
        entry_reader reader;
        ok = results_evaluate(results, txn) &&
             sort_reader_start(&reader, txn, results->core->table, results->core->column_count, &path, 1);
        if (ok) {
            for (size_t i = 0; ok && i < results->count; i++) {
                ce_value value;
                ok = sort_reader_get(&reader, &results->entries[i], 0, &value);
                if (ok) aggregate_add(&a, &value);
            }
            sort_reader_end(&reader);
        }
    }
    bind_query_free(&scratch);
    if (!ok) return false;
    aggregate_result(&a, out_value);
    if (out_counted) *out_counted = a.counted;
    return true;
}

bool results_add_descriptor(ce_results *r, descriptor_kind kind, size_t key_count, size_t limit, descriptor **out)
{
    descriptor *d = &r->descriptors[r->descriptor_count];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->limit = limit;
    d->keys = calloc(key_count + 1, sizeof *d->keys);
    if (!d->keys) return query_out_of_memory();
    r->descriptor_count++;
    *out = d;
    return true;
}

bool results_check_descriptor(query_core *core, ce_txn *txn, const descriptor *d)
{
    if (!bind_core(core, txn)) return false;
    bound_query scratch;
    memset(&scratch, 0, sizeof scratch);
    bound_path *paths;
    bool *ascending;
    bool ok = bind_descriptor(core, txn, d, &scratch, &paths, &ascending);
    if (ok) {
        free(paths);
        free(ascending);
    }
    bind_query_free(&scratch);
    return ok;
}

bool ce_results_sort(ce_txn *txn, const ce_results *results, const ce_sort_key *keys, size_t key_count,
                     ce_results **out_results)
{
    if (!results_check(results, "ce_results_sort")) return false;
    if (!txn || !results || (!keys && key_count) || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_sort: arguments are required");
    ce_results *r;
    descriptor *d;
    if (!results_copy(results, &r)) return false;
    if (!results_add_descriptor(r, DESCRIPTOR_SORT, key_count, 0, &d)) {
        ce_results_free(r);
        return false;
    }
    for (size_t k = 0; k < key_count; k++) {
        if (!keys[k].key_path) {
            ce_results_free(r);
            return error_fail(CE_ERR_INVALID_ARGUMENT, "sort key %zu has no key path", k);
        }
        d->keys[k] = (descriptor_key){-1, strdup(keys[k].key_path), keys[k].ascending};
        d->key_count = k + 1;
        if (!d->keys[k].text) {
            ce_results_free(r);
            return query_out_of_memory();
        }
    }
    if (!results_check_descriptor(r->core, txn, d)) {
        ce_results_free(r);
        return false;
    }
    *out_results = r;
    return true;
}

bool ce_results_distinct(ce_txn *txn, const ce_results *results, const char *const *key_paths, size_t key_path_count,
                         ce_results **out_results)
{
    if (!results_check(results, "ce_results_distinct")) return false;
    if (!txn || !results || (!key_paths && key_path_count) || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_distinct: arguments are required");
    ce_results *r;
    descriptor *d;
    if (!results_copy(results, &r)) return false;
    if (!results_add_descriptor(r, DESCRIPTOR_DISTINCT, key_path_count, 0, &d)) {
        ce_results_free(r);
        return false;
    }
    for (size_t k = 0; k < key_path_count; k++) {
        if (!key_paths[k]) {
            ce_results_free(r);
            return error_fail(CE_ERR_INVALID_ARGUMENT, "distinct key path %zu is missing", k);
        }
        d->keys[k] = (descriptor_key){-1, strdup(key_paths[k]), true};
        d->key_count = k + 1;
        if (!d->keys[k].text) {
            ce_results_free(r);
            return query_out_of_memory();
        }
    }
    if (!results_check_descriptor(r->core, txn, d)) {
        ce_results_free(r);
        return false;
    }
    *out_results = r;
    return true;
}

bool ce_results_limit(const ce_results *results, size_t limit, ce_results **out_results)
{
    if (!results_check(results, "ce_results_limit")) return false;
    if (!results || !out_results) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_limit: arguments are required");
    ce_results *r;
    descriptor *d;
    if (!results_copy(results, &r)) return false;
    if (!results_add_descriptor(r, DESCRIPTOR_LIMIT, 0, limit, &d)) {
        ce_results_free(r);
        return false;
    }
    *out_results = r;
    return true;
}

/* A view of every object of `table` (a TRUEPREDICATE query, which the
 * descriptors and aggregates bind their key paths through) read from
 * `source` instead of a scan. */
static bool results_of_source(ce_txn *txn, ce_table_key table, const results_source *source, ce_results **out_results)
{
    ce_query *every;
    if (!ce_query_parse(txn, table, "TRUEPREDICATE", NULL, 0, &every)) return false;
    ce_results *r;
    bool ok = ce_query_find_all(every, &r);
    ce_query_free(every);
    if (!ok) return false;
    r->source = *source;
    *out_results = r;
    return true;
}

bool ce_results_from_collection(ce_txn *txn, const ce_collection *collection, ce_results **out_results)
{
    if (!containers_check(collection, "ce_results_from_collection")) return false;
    if (!txn || !collection || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_from_collection: arguments are required");
    results_source source = {.kind = SOURCE_COLLECTION};
    bool nested;
    ce_collection_type kind;
    ce_type element;
    ce_property_info info;
    const char *table_name;
    if (!table_collection_owner(collection, &source.owner_table, &source.owner, &source.column, &nested) ||
        !ce_collection_kind(collection, &kind, &element) ||
        !ce_property_get_info(txn, source.owner_table, source.column, &info) ||
        !table_name_of(txn, source.owner_table, &table_name))
        return false;
    if (nested)
        return error_fail(CE_ERR_WRONG_TYPE,
                       "cannot make a results view of a collection in mixed property '%s.%s': its elements are mixed "
                       "values, not links to objects of one table",
                       table_name, info.name);
    if (element != CE_TYPE_LINK)
        return error_fail(CE_ERR_WRONG_TYPE,
                       "cannot make a results view of '%s.%s': it holds %s values, not links to objects (aggregate it "
                       "with ce_collection_aggregate)",
                       table_name, info.name, ce_type_name(element));
    return results_of_source(txn, info.link_target, &source, out_results);
}

bool ce_results_from_backlinks(ce_txn *txn, ce_table_key target_table, ce_object_key target, ce_table_key origin_table,
                               ce_column_key origin_column, ce_results **out_results)
{
    if (!txn || !out_results) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_from_backlinks: arguments are required");
    const char *target_name, *origin_name;
    ce_property_info origin;
    table_property backlink;
    bool found, exists;
    if (!table_name_of(txn, target_table, &target_name) || !table_name_of(txn, origin_table, &origin_name) ||
        !ce_property_get_info(txn, origin_table, origin_column, &origin) ||
        !table_find_backlink(txn, target_table, origin_table, origin_column, &backlink, &found))
        return false;
    if (!found)
        return error_fail(CE_ERR_NO_SUCH_PROPERTY, "'%s.%s' holds no links to '%s', so its objects have no such backlinks",
                       origin_name, origin.name, target_name);
    if (!ce_object_exists(txn, target_table, target, &exists)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "'%s' has no object %lld whose backlinks to view", target_name,
                       (long long)target);
    results_source source = {.kind = SOURCE_BACKLINKS, .owner_table = target_table, .owner = target, .column = origin_column};
    return results_of_source(txn, origin_table, &source, out_results);
}

bool ce_results_filter(ce_txn *txn, const ce_results *results, ce_query *query, ce_results **out_results)
{
    if (!results_check(results, "ce_results_filter")) return false;
    if (!query_check(query, "ce_results_filter")) return false;
    if (!txn || !results || !query || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_filter: arguments are required");
    if (query->core->table != results->core->table) {
        const char *query_table = "?", *results_table = "?";
        (void)table_name_of(txn, query->core->table, &query_table);
        (void)table_name_of(txn, results->core->table, &results_table);
        return error_fail(CE_ERR_INVALID_ARGUMENT, "cannot filter results of '%s' with a query on '%s': the tables differ",
                       results_table, query_table);
    }
    if (!bind_core(query->core, txn)) return false;
    ce_results *base, *r;
    if (!results_copy(results, &base)) return false;
    /* The query's own SORT/DISTINCT/LIMIT apply to what the filter keeps. */
    if (!ce_query_find_all(query, &r)) {
        ce_results_free(base);
        return false;
    }
    r->source = (results_source){.kind = SOURCE_FILTER, .base = base};
    *out_results = r;
    return true;
}


/* ------------------------------------------------------------------------ */
/* What the notify layer's results observer needs                            */
/* ------------------------------------------------------------------------ */

bool results_keys(ce_results *results, ce_txn *txn, ce_object_key **out_keys, size_t *out_count)
{
    if (!results_evaluate(results, txn)) return false;
    ce_object_key *keys = malloc((results->count + 1) * sizeof *keys);
    if (!keys) return query_out_of_memory();
    for (size_t i = 0; i < results->count; i++) keys[i] = results->entries[i].key;
    *out_keys = keys;
    *out_count = results->count;
    return true;
}

/* Adds a table to a sorted list without repeats. */
static bool reads_add(ce_table_key **tables, size_t *count, size_t *capacity, ce_table_key table)
{
    size_t at = 0;
    while (at < *count && (*tables)[at] < table) at++;
    if (at < *count && (*tables)[at] == table) return true;
    void *grown = *tables;
    if (!buf_reserve(&grown, capacity, *count + 1, sizeof **tables)) return false;
    *tables = grown;
    memmove(&(*tables)[at + 1], &(*tables)[at], (*count - at) * sizeof **tables);
    (*tables)[at] = table;
    (*count)++;
    return true;
}

/* The tables a bound path reaches; *local stays true only for a path of
 * the object's own columns. */
static bool reads_of_path(const bound_path *path, ce_table_key **tables, size_t *count, size_t *capacity, bool *local)
{
    if (path->hop_count || path->from_variable) *local = false;
    for (size_t h = 0; h < path->hop_count; h++)
        if (!reads_add(tables, count, capacity, path->hops[h].from) ||
            !reads_add(tables, count, capacity, path->hops[h].to))
            return false;
    return true;
}

/* The tables the paths of an arithmetic expression reach (its leaves). */
static bool reads_of_arith(const arith_expr *x, ce_table_key **tables, size_t *count, size_t *capacity, bool *local)
{
    if (x->op)
        return reads_of_arith(x->left, tables, count, capacity, local) &&
               reads_of_arith(x->right, tables, count, capacity, local);
    if (x->leaf.kind == OPERAND_SUBQUERY) *local = false;
    if (x->leaf.kind == OPERAND_PATH || x->leaf.kind == OPERAND_SUBQUERY)
        return reads_of_path(&x->leaf.path, tables, count, capacity, local);
    return true;
}

static bool reads_of_view(ce_results *r, ce_txn *txn, ce_table_key **tables, size_t *count, size_t *capacity, bool *local)
{
    if (!table_flush(txn, r->core->table) || !bind_core(r->core, txn)) return false;
    if (!reads_add(tables, count, capacity, r->core->table)) return false;
    const bound_query *bound = &r->core->bound;
    for (size_t n = 0; n < bound->node_count; n++) {
        const bound_node *node = &bound->nodes[n];
        if (node->kind != BOUND_COMPARE) continue;
        if (node->kernel == KERNEL_GEO) {
            /* The points lie in the embedded objects the path reaches. */
            *local = false;
            if (!reads_of_path(&node->path, tables, count, capacity, local) ||
                !reads_add(tables, count, capacity, node->path.final_table))
                return false;
            continue;
        }
        if (node->kernel != KERNEL_GENERIC) {
            if (!reads_of_path(&node->path, tables, count, capacity, local)) return false;
            continue;
        }
        const operand *sides[2] = {&node->left, &node->right};
        for (int side = 0; side < 2; side++) {
            if (sides[side]->kind == OPERAND_ARITH) {
                if (!reads_of_arith(sides[side]->arith, tables, count, capacity, local)) return false;
                continue;
            }
            if (sides[side]->kind == OPERAND_SUBQUERY) *local = false;
            if ((sides[side]->kind == OPERAND_PATH || sides[side]->kind == OPERAND_SUBQUERY) &&
                !reads_of_path(&sides[side]->path, tables, count, capacity, local))
                return false;
        }
    }
    if (r->descriptor_count) *local = false;
    for (size_t d = 0; d < r->descriptor_count; d++) {
        if (r->descriptors[d].kind == DESCRIPTOR_LIMIT) continue;
        bound_query scratch;
        memset(&scratch, 0, sizeof scratch);
        bound_path *paths;
        bool *ascending;
        if (!bind_descriptor(r->core, txn, &r->descriptors[d], &scratch, &paths, &ascending)) {
            bind_query_free(&scratch);
            return false;
        }
        bool ok = true;
        for (size_t k = 0; ok && k < r->descriptors[d].key_count; k++)
            ok = reads_of_path(&paths[k], tables, count, capacity, local);
        free(paths);
        free(ascending);
        bind_query_free(&scratch);
        if (!ok) return false;
    }
    if (r->source.kind != SOURCE_TABLE) *local = false;
    if (r->source.kind == SOURCE_COLLECTION || r->source.kind == SOURCE_BACKLINKS)
        return reads_add(tables, count, capacity, r->source.owner_table);
    if (r->source.kind == SOURCE_FILTER) return reads_of_view(r->source.base, txn, tables, count, capacity, local);
    return true;
}

bool results_reads(ce_results *results, ce_txn *txn, ce_table_key **out_tables, size_t *out_count, bool *out_local)
{
    ce_table_key *tables = NULL;
    size_t count = 0, capacity = 0;
    bool local = true;
    if (!reads_of_view(results, txn, &tables, &count, &capacity, &local)) {
        free(tables);
        return false;
    }
    *out_tables = tables;
    *out_count = count;
    *out_local = local;
    return true;
}

bool results_match_keys(ce_results *results, ce_txn *txn, const ce_object_key *keys, size_t count, bool *out_match)
{
    if (results->source.kind != SOURCE_TABLE)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "results_match_keys: the view does not read a table");
    memset(out_match, 0, count * sizeof *out_match);
    if (count == 0) return true;
    if (!table_flush(txn, results->core->table) || !bind_core(results->core, txn)) return false;
    entry *entries;
    if (!entries_of_keys(txn, results->core->table, keys, count, "a change set", &entries)) return false;
    size_t kept = count;
    bool ok = keep_matching(results->core, txn, entries, &kept);
    /* The kept entries are in the order of `keys`, which ascend. */
    for (size_t i = 0, k = 0; ok && i < count && k < kept; i++)
        if (keys[i] == entries[k].key) {
            out_match[i] = true;
            k++;
        }
    free(entries);
    return ok;
}
