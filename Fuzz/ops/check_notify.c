/*
 * check_notify.c — fuzz_ops's checks of the change sets observers get:
 * every list, set and dictionary (and the collections nested in mixed
 * values) between two versions, and results observers kept alive across
 * commits, each held to the two models those versions have.
 *
 * Owns: applying a reported change set to the old contents (deletions
 * highest first, insertions lowest first; a dictionary's keys removed and
 * added) and comparing the outcome with the new contents, the verdict on
 * each reported modification, and the results observers of a run (which
 * views they watch, what they last reported).
 * Never: changes the model or the engine's data, or reads the input.
 *
 * Both ways of computing a change set are held to the same contents: the
 * history's (ce_changes_compute) and the snapshots' comparison
 * (changes_compute_from_snapshots). The modifications are exact when the
 * change set came from the snapshots: an element that stays is modified
 * if and only if its value reads back otherwise or, for a link (typed or
 * in a mixed value), the linked object changed as Realm's default filter
 * of its table sees it. From the history an element a recorded operation
 * set (ce_list_set, a dictionary's set) is modified even when the value is
 * the one it had, so there only the "if" half holds. A nested collection
 * is an element whose value is its type: what happens inside it does not
 * modify the element. A collection whose object was deleted (or a nested
 * one that is gone) reports collection_deleted and every old element
 * deleted; one that appears reports every element inserted; a nested
 * collection whose path holds a collection of the other kind in the old
 * version counts as new.
 */
#include "ops.h"

#include "changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    NOTIFY_NESTING = 3, /* nested levels below a property whose change sets are checked */
};

/* ------------------------------------------------------------------------ */
/* Linked objects: Realm's default filter of each table                     */
/* ------------------------------------------------------------------------ */

typedef struct notify_context {
    const ce_changes *changes;
    ce_txn *old_txn, *new_txn;
    bool from_history;
    size_t table_count;
    ce_key_path_filter **filters; /* per table of the new version, made when first needed */
} notify_context;

static ce_key_path_filter *default_filter(notify_context *c, ce_table_key table)
{
    CHECK(table < c->table_count, "a link to a table the new model does not have");
    if (!c->filters[table]) MUST(ce_key_path_filter_create(c->new_txn, table, NULL, 0, &c->filters[table]));
    return c->filters[table];
}

static bool linked_object_changed(notify_context *c, const ce_value *value)
{
    if (value->type != CE_TYPE_LINK) return false;
    bool changed;
    MUST(ce_changes_object_matches(c->changes, default_filter(c, value->link.table), value->link.key, &changed));
    return changed;
}

static void context_start(notify_context *c, const ce_changes *changes, ce_txn *old_txn, ce_txn *new_txn,
                          const model *new_state)
{
    c->changes = changes;
    c->old_txn = old_txn;
    c->new_txn = new_txn;
    c->from_history = ce_changes_used_history(changes);
    c->table_count = new_state->table_count;
    c->filters = model_allocate((c->table_count + 1) * sizeof *c->filters);
}

static void context_end(notify_context *c)
{
    for (size_t t = 0; t < c->table_count; t++) ce_key_path_filter_free(c->filters[t]);
    free(c->filters);
}

/* An element that stays (old -> new): its modification as the API promises
 * it (see the opening comment). */
static void check_stayed(notify_context *c, const ce_value *old_value, const ce_value *new_value, bool modified,
                         const char *what)
{
    bool same = model_same_value(old_value, new_value);
    bool linked_changed = linked_object_changed(c, new_value);
    if (!same && !modified) check_bug("an element that stays with another value is not modified", what);
    if (linked_changed && !modified) check_bug("an element whose linked object changed is not modified", what);
    if (modified && same && !linked_changed && !c->from_history)
        check_bug("an unchanged element is reported modified (snapshot comparison)", what);
}

static void check_ascending(const size_t *indices, size_t count, size_t bound, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        CHECK(indices[i] < bound, what);
        CHECK(i == 0 || indices[i - 1] < indices[i], what);
    }
}

static void print_indices(const char *label, const size_t *indices, size_t count)
{
    fprintf(stderr, " %s", label);
    for (size_t i = 0; i < count; i++) fprintf(stderr, "%s%zu", i ? "," : "", indices[i]);
}

/* FUZZ_OPS_VERBOSE=1: each collection change set checked. */
static void print_change(const ce_collection_change *change, size_t old_count, size_t new_count, bool from_history)
{
    fprintf(stderr, "change set (%s) %zu -> %zu elements:", from_history ? "history" : "snapshots", old_count,
            new_count);
    print_indices("deleted", change->deletions, change->deletion_count);
    print_indices("inserted", change->insertions, change->insertion_count);
    print_indices("modified", change->modifications, change->modification_count);
    print_indices("->", change->modifications_new, change->modification_new_count);
    fprintf(stderr, "%s\n", change->collection_deleted ? " (collection deleted)" : "");
}

/* ------------------------------------------------------------------------ */
/* Lists and sets                                                           */
/* ------------------------------------------------------------------------ */

/* `old_elements` is NULL-able (empty); in_old / in_new: the collection is in
 * that version at all. */
static void check_list_change(notify_context *c, const ce_collection_change *change, const model_collection *old_elements,
                              bool in_old, const model_collection *new_elements, bool in_new)
{
    const char *what = "ce_changes_collection";
    size_t old_count = in_old ? model_collection_count(old_elements) : 0;
    size_t new_count = in_new ? model_collection_count(new_elements) : 0;
    if (check_verbose) {
        fprintf(stderr, "fuzz_ops:   ");
        print_change(change, old_count, new_count, c->from_history);
    }
    CHECK(change->collection_deleted == (in_old && !in_new), "ce_changes_collection: collection_deleted is wrong");
    check_ascending(change->deletions, change->deletion_count, old_count,
                    "ce_changes_collection: deletions not ascending old indices");
    check_ascending(change->insertions, change->insertion_count, new_count,
                    "ce_changes_collection: insertions not ascending new indices");
    check_ascending(change->modifications, change->modification_count, old_count,
                    "ce_changes_collection: modifications not ascending old indices");
    check_ascending(change->modifications_new, change->modification_new_count, new_count,
                    "ce_changes_collection: modifications_new not ascending new indices");
    CHECK(change->modification_count == change->modification_new_count,
          "ce_changes_collection: modifications and modifications_new differ in count");
    CHECK(old_count - change->deletion_count + change->insertion_count == new_count,
          "ce_changes_collection: the old contents with the deletions and insertions applied have another size");
    /* Applied: the old elements not deleted, in order, are the new ones not
     * inserted. */
    size_t d = 0, n = 0, m = 0, i = 0, j = 0;
    for (;;) {
        while (i < old_count && d < change->deletion_count && change->deletions[d] == i) i++, d++;
        while (j < new_count && n < change->insertion_count && change->insertions[n] == j) j++, n++;
        if (i == old_count || j == new_count) break;
        bool modified = m < change->modification_count && change->modifications[m] == i;
        if (m < change->modification_count) CHECK(change->modifications[m] >= i, "ce_changes_collection: a deleted element is modified");
        if (modified) {
            CHECK(change->modifications_new[m] == j,
                  "ce_changes_collection: a modification's new index is not where its element went");
            m++;
        }
        check_stayed(c, &old_elements->elements[i].value, &new_elements->elements[j].value, modified, what);
        i++, j++;
    }
    CHECK(i == old_count && j == new_count, "ce_changes_collection: applying the change set does not give the new contents");
    CHECK(m == change->modification_count, "ce_changes_collection: a modification names a deleted or inserted element");
}

/* ------------------------------------------------------------------------ */
/* Dictionaries                                                             */
/* ------------------------------------------------------------------------ */

static int compare_key_bytes(const char *a, size_t a_size, const char *b, size_t b_size)
{
    size_t common = a_size < b_size ? a_size : b_size;
    int order = common ? memcmp(a, b, common) : 0;
    if (order) return order;
    return a_size < b_size ? -1 : a_size > b_size;
}

static int compare_keys(const ce_value *a, const ce_value *b)
{
    return compare_key_bytes(a->string.data, a->string.size, b->string.data, b->string.size);
}

/* Whether the next key of `list` (at *at) is `key`: taken if so. */
static bool take_key(const ce_value *list, size_t count, size_t *at, const ce_value *key)
{
    if (*at < count && compare_keys(&list[*at], key) == 0) {
        (*at)++;
        return true;
    }
    return false;
}

static void check_keys_ascending(const ce_value *keys, size_t count, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        CHECK(keys[i].type == CE_TYPE_STRING, what);
        CHECK(keys[i].string.data && keys[i].string.data[keys[i].string.size] == '\0', what);
        CHECK(i == 0 || compare_keys(&keys[i - 1], &keys[i]) < 0, what);
    }
}

static void check_dictionary_change(notify_context *c, const ce_dictionary_change *change,
                                    const model_collection *old_elements, bool in_old,
                                    const model_collection *new_elements, bool in_new)
{
    const char *what = "ce_changes_dictionary";
    size_t old_count = in_old ? model_collection_count(old_elements) : 0;
    size_t new_count = in_new ? model_collection_count(new_elements) : 0;
    CHECK(change->collection_deleted == (in_old && !in_new), "ce_changes_dictionary: collection_deleted is wrong");
    check_keys_ascending(change->deletions, change->deletion_count, "ce_changes_dictionary: deletions not ascending keys");
    check_keys_ascending(change->insertions, change->insertion_count, "ce_changes_dictionary: insertions not ascending keys");
    check_keys_ascending(change->modifications, change->modification_count,
                         "ce_changes_dictionary: modifications not ascending keys");
    /* Applied: the old keys less the deletions plus the insertions are the
     * new keys; a key in both versions is neither deleted nor inserted. */
    size_t i = 0, j = 0, d = 0, n = 0, m = 0;
    while (i < old_count || j < new_count) {
        int order = i == old_count ? 1 : j == new_count ? -1
                                                       : compare_keys(&old_elements->keys[i].value, &new_elements->keys[j].value);
        if (order < 0) {
            CHECK(take_key(change->deletions, change->deletion_count, &d, &old_elements->keys[i].value),
                  "ce_changes_dictionary: a key only in the old version is not deleted");
            i++;
        } else if (order > 0) {
            CHECK(take_key(change->insertions, change->insertion_count, &n, &new_elements->keys[j].value),
                  "ce_changes_dictionary: a key only in the new version is not inserted");
            j++;
        } else {
            bool modified = take_key(change->modifications, change->modification_count, &m, &new_elements->keys[j].value);
            check_stayed(c, &old_elements->elements[i].value, &new_elements->elements[j].value, modified, what);
            i++, j++;
        }
    }
    CHECK(d == change->deletion_count, "ce_changes_dictionary: a deleted key is not only in the old version");
    CHECK(n == change->insertion_count, "ce_changes_dictionary: an inserted key is not only in the new version");
    CHECK(m == change->modification_count, "ce_changes_dictionary: a modified key is not in both versions");
}

/* ------------------------------------------------------------------------ */
/* Walking the collections of two models                                    */
/* ------------------------------------------------------------------------ */

/* One collection in the two versions: a handle in each version it is in
 * (NULL where it is not), the model's elements there. */
typedef struct collection_pair {
    ce_collection *old_handle, *new_handle;
    ce_collection_type kind;
    const model_collection *old_elements, *new_elements;
    bool nests; /* its elements are mixed values that may hold collections */
} collection_pair;

static void check_pair(notify_context *c, const collection_pair *pair, unsigned depth);

/* The collection nested at `at` of a collection opened in one version. */
static ce_collection *open_nested(const ce_collection *parent, const ce_value *at)
{
    ce_collection *nested;
    MUST(ce_collection_open_nested(parent, at, &nested));
    return nested;
}

static void check_nested(notify_context *c, const collection_pair *pair, unsigned depth)
{
    if (!pair->nests || depth >= NOTIFY_NESTING || pair->kind == CE_COLLECTION_SET) return;
    bool dictionary = pair->kind == CE_COLLECTION_DICTIONARY;
    size_t old_count = pair->old_handle ? model_collection_count(pair->old_elements) : 0;
    size_t new_count = pair->new_handle ? model_collection_count(pair->new_elements) : 0;
    /* Positions in both (a list: the same index; a dictionary: the same key). */
    size_t i = 0, j = 0;
    while (i < old_count || j < new_count) {
        const model_slot *old_slot = NULL, *new_slot = NULL;
        ce_value at;
        if (!dictionary) {
            at = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)(i > j ? i : j)};
            if (i < old_count) old_slot = &pair->old_elements->elements[i];
            if (j < new_count) new_slot = &pair->new_elements->elements[j];
            i++, j++;
        } else {
            int order = i == old_count ? 1 : j == new_count ? -1
                                                           : compare_keys(&pair->old_elements->keys[i].value,
                                                                          &pair->new_elements->keys[j].value);
            at = order <= 0 ? pair->old_elements->keys[i].value : pair->new_elements->keys[j].value;
            if (order <= 0) old_slot = &pair->old_elements->elements[i++];
            if (order >= 0) new_slot = &pair->new_elements->elements[j++];
        }
        bool old_nested = old_slot && model_is_nested_type(old_slot->value.type);
        bool new_nested = new_slot && model_is_nested_type(new_slot->value.type);
        if (old_nested && new_nested && old_slot->value.type != new_slot->value.type) old_nested = false;
        if (!old_nested && !new_nested) continue;
        collection_pair inner = {
            .old_handle = old_nested ? open_nested(pair->old_handle, &at) : NULL,
            .new_handle = new_nested ? open_nested(pair->new_handle, &at) : NULL,
            .kind = model_kind_of_nested_value((new_nested ? new_slot : old_slot)->value.type),
            .old_elements = old_nested ? old_slot->nested : NULL,
            .new_elements = new_nested ? new_slot->nested : NULL,
            .nests = true,
        };
        check_pair(c, &inner, depth + 1);
        ce_collection_close(inner.old_handle);
        ce_collection_close(inner.new_handle);
    }
}

static void check_pair(notify_context *c, const collection_pair *pair, unsigned depth)
{
    const ce_collection *handle = pair->new_handle ? pair->new_handle : pair->old_handle;
    bool in_old = pair->old_handle != NULL, in_new = pair->new_handle != NULL;
    if (pair->kind == CE_COLLECTION_DICTIONARY) {
        ce_dictionary_change change;
        MUST(ce_changes_dictionary(c->changes, handle, NULL, &change));
        check_dictionary_change(c, &change, pair->old_elements, in_old, pair->new_elements, in_new);
        ce_dictionary_change_free(&change);
    } else {
        ce_collection_change change;
        MUST(ce_changes_collection(c->changes, handle, NULL, &change));
        check_list_change(c, &change, pair->old_elements, in_old, pair->new_elements, in_new);
        ce_collection_change_free(&change);
    }
    check_nested(c, pair, depth);
}

/* A property's collection (or the one its mixed value holds) in the
 * version of `txn`; NULL when that version has none there. */
static ce_collection *open_property(ce_txn *txn, const model_table *table, long position, ce_table_key key,
                                    ce_column_key column, ce_collection_type *kind, const model_collection **elements)
{
    if (!table || position < 0) return NULL;
    const model_property *property = model_live_property(table, column);
    if (!property || property->backlink) return NULL;
    const model_slot *slot = model_value_at(table, (size_t)position, column);
    ce_collection *handle;
    if (property->collection != CE_COLLECTION_NONE) {
        MUST(ce_collection_open(txn, key, table->keys[position], column, &handle));
        *kind = property->collection;
    } else {
        if (!model_is_nested_type(slot->value.type)) return NULL;
        MUST(ce_collection_open_mixed(txn, key, table->keys[position], column, &handle));
        *kind = model_kind_of_nested_value(slot->value.type);
    }
    *elements = slot->nested;
    return handle;
}

/* Whether a property holds a collection or a mixed value (that may hold one). */
static bool holds_collections(const model_property *property)
{
    return property && !property->backlink &&
           (property->collection != CE_COLLECTION_NONE || property->type == CE_TYPE_MIXED);
}

static void check_object_collections(notify_context *c, ce_table_key key, const model_table *old_table, long old_position,
                                     const model_table *new_table, long new_position)
{
    size_t columns = old_table ? old_table->property_count : 0;
    if (new_table && new_table->property_count > columns) columns = new_table->property_count;
    for (ce_column_key column = 0; column < columns; column++) {
        const model_property *a = old_position >= 0 ? model_live_property(old_table, column) : NULL;
        const model_property *b = new_position >= 0 ? model_live_property(new_table, column) : NULL;
        /* A property in one version only (added or removed): its collection
         * appears or goes. */
        if (!holds_collections(a ? a : b)) continue;
        if (a && b && (a->type != b->type || a->collection != b->collection)) continue;
        collection_pair pair = {.nests = (a ? a : b)->type == CE_TYPE_MIXED};
        ce_collection_type old_kind = CE_COLLECTION_NONE, new_kind = CE_COLLECTION_NONE;
        pair.old_handle = open_property(c->old_txn, old_table, old_position, key, column, &old_kind, &pair.old_elements);
        pair.new_handle = open_property(c->new_txn, new_table, new_position, key, column, &new_kind, &pair.new_elements);
        if (pair.old_handle && pair.new_handle && old_kind != new_kind) {
            /* A mixed value that held the other kind of collection. */
            ce_collection_close(pair.old_handle);
            pair.old_handle = NULL;
            pair.old_elements = NULL;
        }
        pair.kind = pair.new_handle ? new_kind : old_kind;
        if (pair.old_handle || pair.new_handle) check_pair(c, &pair, 0);
        ce_collection_close(pair.old_handle);
        ce_collection_close(pair.new_handle);
    }
}

static void check_collections_with(notify_context *c, const model *old_state, const model *new_state)
{
    size_t tables = old_state->table_count > new_state->table_count ? old_state->table_count : new_state->table_count;
    for (ce_table_key t = 0; t < tables; t++) {
        const model_table *old_table = model_live_table(old_state, t), *new_table = model_live_table(new_state, t);
        if (!old_table && !new_table) continue;
        size_t old_count = old_table ? old_table->object_count : 0, new_count = new_table ? new_table->object_count : 0;
        size_t i = 0, j = 0;
        while (i < old_count || j < new_count) {
            long old_position = -1, new_position = -1;
            if (j == new_count || (i < old_count && old_table->keys[i] < new_table->keys[j])) {
                old_position = (long)i++;
            } else if (i == old_count || new_table->keys[j] < old_table->keys[i]) {
                new_position = (long)j++;
            } else {
                old_position = (long)i++;
                new_position = (long)j++;
            }
            check_object_collections(c, t, old_table, old_position, new_table, new_position);
        }
    }
}

/* Both change sets of the range: the history's (when it covers it) and the
 * snapshots'. */
static void compute_both(ce_txn *old_txn, ce_txn *new_txn, ce_changes *changes[2])
{
    MUST(ce_changes_compute(old_txn, new_txn, &changes[0]));
    MUST(changes_compute_from_snapshots(old_txn, new_txn, &changes[1]));
    CHECK(!ce_changes_used_history(changes[1]), "changes_compute_from_snapshots used the history");
}

static void check_collections_both(ce_changes *const changes[2], ce_txn *old_txn, ce_txn *new_txn,
                                   const model *old_state, const model *new_state)
{
    for (int k = 0; k < 2; k++) {
        notify_context c = {0};
        context_start(&c, changes[k], old_txn, new_txn, new_state);
        check_collections_with(&c, old_state, new_state);
        context_end(&c);
    }
}

void check_notify_collections(ce_txn *old_txn, ce_txn *new_txn, const model *old_state, const model *new_state)
{
    ce_changes *changes[2];
    compute_both(old_txn, new_txn, changes);
    check_collections_both(changes, old_txn, new_txn, old_state, new_state);
    ce_changes_free(changes[0]);
    ce_changes_free(changes[1]);
}

/* ------------------------------------------------------------------------ */
/* Results observers across commits                                         */
/* ------------------------------------------------------------------------ */

/* The predicate of a watch over a property of `type`, and whether a value
 * matches it (nulls never do). */
static const char *predicate_for(ce_type type)
{
    switch (type) {
    case CE_TYPE_INT:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE: return "%K > 0";
    case CE_TYPE_BOOL: return "%K == true";
    case CE_TYPE_STRING: return "%K > 'm'";
    default: return NULL;
    }
}

static bool predicate_matches(const ce_value *value)
{
    switch (value->type) {
    case CE_TYPE_INT: return value->integer > 0;
    case CE_TYPE_FLOAT: return value->float_value > 0;
    case CE_TYPE_DOUBLE: return value->double_value > 0;
    case CE_TYPE_BOOL: return value->boolean;
    case CE_TYPE_STRING: return compare_key_bytes(value->string.data, value->string.size, "m", 1) > 0;
    default: return false;
    }
}

/* A name a key path spells as it is (a property's name may be any UTF-8,
 * or a word of the query language). */
static bool plain_name(const char *name)
{
    static const char *const reserved[] = {"any", "all", "none", "some", "and", "or", "not", "true", "false", "nil",
                                           "null", "in", "between", "beginswith", "endswith", "contains", "like",
                                           "subquery", "truepredicate", "falsepredicate", "sort", "distinct", "limit",
                                           "asc", "desc", "ascending", "descending", "uuid", "oid", "t", "b64", "inf",
                                           "infinity", "nan", "self"};
    for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++)
        if (strcasecmp(name, reserved[r]) == 0) return false;
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) return false;
    for (const char *at = name; *at; at++)
        if (!((*at >= 'a' && *at <= 'z') || (*at >= 'A' && *at <= 'Z') || (*at >= '0' && *at <= '9') || *at == '_'))
            return false;
    return true;
}

/* Whether an object of the model is in the watch's view. */
static bool watch_matches(const results_watch *watch, const model_table *table, size_t position)
{
    if (watch->column < 0) return true;
    return predicate_matches(&model_value_at(table, position, (size_t)watch->column)->value);
}

/* The watch's table and property still there, as they were made. */
static bool watch_valid(const results_watch *watch, const model *state)
{
    const model_table *table = model_live_table(state, watch->table);
    if (!table || table->embedded) return false;
    if (watch->column < 0) return true;
    const model_property *property = model_live_property(table, (ce_column_key)watch->column);
    return property && !property->backlink && property->type == watch->type &&
           property->collection == CE_COLLECTION_NONE;
}

static int compare_object_keys(const void *a, const void *b)
{
    ce_object_key x = *(const ce_object_key *)a, y = *(const ce_object_key *)b;
    return x < y ? -1 : x > y;
}

/* The view's objects as `txn` reads them, held to the model: the objects
 * that match, in key order unless sorted. */
static ce_object_key *read_view(results_watch *watch, ce_txn *txn, const model *state, size_t *out_count)
{
    size_t count, got;
    MUST(ce_results_count(watch->results, txn, &count));
    ce_object_key *keys = model_allocate((count + 1) * sizeof *keys);
    MUST(ce_results_get_range(watch->results, txn, 0, count, keys, &got));
    CHECK(got == count, "ce_results_get_range: fewer objects than ce_results_count");
    const model_table *table = model_live_table(state, watch->table);
    ce_object_key *expected = model_allocate((table->object_count + 1) * sizeof *expected);
    size_t expected_count = 0;
    for (size_t p = 0; p < table->object_count; p++)
        if (watch_matches(watch, table, p)) expected[expected_count++] = table->keys[p];
    ce_object_key *order = keys;
    if (watch->sorted) {
        order = model_allocate((count + 1) * sizeof *order);
        memcpy(order, keys, count * sizeof *keys);
        qsort(order, count, sizeof *order, compare_object_keys);
    }
    CHECK(count == expected_count, "a results view holds another number of objects than the model's");
    for (size_t k = 0; k < count; k++) CHECK(order[k] == expected[k], "a results view holds other objects than the model's");
    if (order != keys) free(order);
    free(expected);
    *out_count = count;
    return keys;
}

static void release_watch(results_watch *watch)
{
    ce_results_observer_free(watch->observer);
    ce_results_free(watch->results);
    free(watch->keys);
    memset(watch, 0, sizeof *watch);
}

void check_notify_release(runner *run)
{
    for (size_t w = 0; w < RESULTS_WATCHES; w++) release_watch(&run->watches[w]);
}

/* Watches 0 and 1: a predicate over a property; 2 and 3: the same sorted
 * by it, descending. Even watches are fed the history's change sets, odd
 * ones the snapshots'. The table is the first live top-level one from a
 * place the version picks. */
static void start_watch(runner *run, results_watch *watch, size_t number, ce_txn *txn)
{
    const model *state = &run->committed;
    if (state->table_count == 0) return;
    const model_table *table = NULL;
    ce_table_key key = 0;
    for (size_t k = 0; k < state->table_count && !table; k++) {
        key = (ce_table_key)((run->version + number / 2 + k) % state->table_count);
        table = model_live_table(state, key);
        if (table && table->embedded) table = NULL;
    }
    if (!table) return;
    watch->table = key;
    watch->column = -1;
    for (size_t p = 0; p < table->property_count && watch->column < 0; p++) {
        const model_property *property = model_live_property(table, (ce_column_key)p);
        if (property && !property->backlink && property->collection == CE_COLLECTION_NONE &&
            predicate_for(property->type) && !property->primary_key && plain_name(property->name)) {
            watch->column = (long)p;
            watch->type = property->type;
        }
    }
    watch->sorted = number >= 2 && watch->column >= 0;
    watch->from_snapshots = number % 2 == 1;
    ce_query *query;
    if (watch->column < 0) {
        MUST(ce_query_parse(txn, key, "TRUEPREDICATE", NULL, 0, &query));
    } else {
        const char *name = table->properties[watch->column].name;
        ce_query_argument argument = {.kind = CE_QUERY_ARGUMENT_VALUE,
                                      .value = {.type = CE_TYPE_STRING, .string = {name, strlen(name)}}};
        MUST(ce_query_parse(txn, key, predicate_for(watch->type), &argument, 1, &query));
    }
    MUST(ce_query_find_all(query, &watch->results));
    ce_query_free(query);
    if (watch->sorted) {
        ce_sort_key by = {table->properties[watch->column].name, false};
        ce_results *sorted;
        MUST(ce_results_sort(txn, watch->results, &by, 1, &sorted));
        ce_results_free(watch->results);
        watch->results = sorted;
    }
    MUST(ce_results_observer_create(watch->results, txn, NULL, &watch->observer));
    watch->keys = read_view(watch, txn, state, &watch->count);
}

/* One update of a watch: its change set applied to the keys it last
 * reported gives the view's new keys; modifications exactly the objects
 * that stay in place and changed as Realm's default filter sees it. */
static void update_watch(results_watch *watch, const ce_changes *changes, ce_txn *new_txn, const model *new_state)
{
    ce_collection_change change;
    MUST(ce_results_observer_update(watch->observer, changes, &change));
    size_t new_count;
    ce_object_key *new_keys = read_view(watch, new_txn, new_state, &new_count);
    size_t old_count = watch->count;
    if (check_verbose) {
        fprintf(stderr, "fuzz_ops:   results observer %s%s of table %u: ", watch->sorted ? "sorted" : "unsorted",
                watch->column < 0 ? " (every object)" : "", (unsigned)watch->table);
        print_change(&change, old_count, new_count, !watch->from_snapshots);
    }
    CHECK(!change.collection_deleted, "ce_results_observer_update: collection_deleted for a table's view");
    check_ascending(change.deletions, change.deletion_count, old_count, "ce_results_observer_update: bad deletions");
    check_ascending(change.insertions, change.insertion_count, new_count, "ce_results_observer_update: bad insertions");
    check_ascending(change.modifications, change.modification_count, old_count,
                    "ce_results_observer_update: bad modifications");
    check_ascending(change.modifications_new, change.modification_new_count, new_count,
                    "ce_results_observer_update: bad modifications_new");
    CHECK(change.modification_count == change.modification_new_count,
          "ce_results_observer_update: modifications and modifications_new differ in count");
    CHECK(old_count - change.deletion_count + change.insertion_count == new_count,
          "ce_results_observer_update: applying the change set gives another number of objects");
    ce_key_path_filter *filter;
    MUST(ce_key_path_filter_create(new_txn, watch->table, NULL, 0, &filter));
    size_t d = 0, n = 0, m = 0, i = 0, j = 0;
    for (;;) {
        while (i < old_count && d < change.deletion_count && change.deletions[d] == i) i++, d++;
        while (j < new_count && n < change.insertion_count && change.insertions[n] == j) j++, n++;
        if (i == old_count || j == new_count) break;
        CHECK(watch->keys[i] == new_keys[j], "ce_results_observer_update: applying the change set does not give the new view");
        bool modified = m < change.modification_count && change.modifications[m] == i;
        if (m < change.modification_count)
            CHECK(change.modifications[m] >= i, "ce_results_observer_update: a deleted object is modified");
        if (modified) {
            CHECK(change.modifications_new[m] == j, "ce_results_observer_update: a modification's new index is wrong");
            m++;
        }
        bool changed;
        MUST(ce_changes_object_matches(changes, filter, new_keys[j], &changed));
        CHECK(changed == modified, "ce_results_observer_update: an object that stays is modified unless it changed");
        i++, j++;
    }
    CHECK(i == old_count && j == new_count, "ce_results_observer_update: applying the change set does not give the new view");
    CHECK(m == change.modification_count, "ce_results_observer_update: a modification names a deleted or inserted object");
    ce_key_path_filter_free(filter);
    ce_collection_change_free(&change);
    free(watch->keys);
    watch->keys = new_keys;
    watch->count = new_count;
}

void check_notify_commit(runner *run, ce_txn *before, ce_txn *after, const model *previous)
{
    ce_changes *changes[2];
    compute_both(before, after, changes);
    check_collections_both(changes, before, after, previous, &run->committed);
    for (size_t w = 0; w < RESULTS_WATCHES; w++) {
        results_watch *watch = &run->watches[w];
        if (watch->observer && !watch_valid(watch, &run->committed)) release_watch(watch);
        if (watch->observer) update_watch(watch, changes[watch->from_snapshots], after, &run->committed);
        else start_watch(run, watch, w, after);
    }
    ce_changes_free(changes[0]);
    ce_changes_free(changes[1]);
}
