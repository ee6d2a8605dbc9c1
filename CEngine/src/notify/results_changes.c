/*
 * results_changes.c — change sets of results views: the diff of the keys a
 * view showed and shows, and the results observer, which remembers a
 * view's keys and, at each update, finds the new ones (not at all when
 * nothing the view reads changed; only the changed objects when the view
 * is a predicate over its table's own properties; else by evaluating it
 * again) and diffs them.
 *
 * Owns: results_changes_diff and ce_results_observer (the keys it
 * remembers, the version they belong to, its private copy of the view).
 * Never: evaluates a predicate itself (results.c does), or decides whether
 * an object changed (the key-path filter does).
 */
#include "results_changes.h"
#include "changes.h"
#include "collection_changes.h"
#include "error.h"
#include "handle.h"
#include "key_path_filter.h"
#include "results.h"

#include <stdlib.h>
#include <string.h>

static bool results_out_of_memory(void)
{
    return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory computing the change set of a results view");
}

static bool strictly_ascending(const ce_object_key *keys, size_t count)
{
    for (size_t i = 1; i < count; i++)
        if (keys[i - 1] >= keys[i]) return false;
    return true;
}

/* Both sequences ascend: one pass over both and over `modified`. */
static bool diff_ascending(const ce_object_key *old_keys, size_t old_count, const ce_object_key *new_keys, size_t new_count,
                           const ce_object_key *modified, size_t modified_count, ce_collection_change *out)
{
    memset(out, 0, sizeof *out);
    size_t room = (old_count < new_count ? old_count : new_count) + 1;
    if (modified_count + 1 < room) room = modified_count + 1;
    out->deletions = malloc((old_count + 1) * sizeof *out->deletions);
    out->insertions = malloc((new_count + 1) * sizeof *out->insertions);
    out->modifications = malloc(room * sizeof *out->modifications);
    out->modifications_new = malloc(room * sizeof *out->modifications_new);
    if (!out->deletions || !out->insertions || !out->modifications || !out->modifications_new) {
        ce_collection_change_free(out);
        return results_out_of_memory();
    }
    size_t i = 0, j = 0, m = 0;
    while (i < old_count && j < new_count) {
        ce_object_key old_key = old_keys[i], new_key = new_keys[j];
        if (old_key < new_key) {
            out->deletions[out->deletion_count++] = i++;
        } else if (old_key > new_key) {
            out->insertions[out->insertion_count++] = j++;
        } else {
            while (m < modified_count && modified[m] < old_key) m++;
            if (m < modified_count && modified[m] == old_key) {
                out->modifications[out->modification_count++] = i;
                out->modifications_new[out->modification_new_count++] = j;
            }
            i++;
            j++;
        }
    }
    while (i < old_count) out->deletions[out->deletion_count++] = i++;
    while (j < new_count) out->insertions[out->insertion_count++] = j++;
    return true;
}

/* A hash of the old positions by key: per slot a key and the first of its
 * positions, the others chained in order through `next`. */
#define USED_UP (SIZE_MAX - 1) /* a slot whose key has no unused position left */

typedef struct key_positions {
    ce_object_key *keys;
    size_t *first; /* SIZE_MAX: an empty slot */
    size_t *last;
    size_t *next;
    size_t mask;
} key_positions;

static size_t slot_of(const key_positions *h, ce_object_key key)
{
    uint64_t x = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    size_t slot = (size_t)(x >> 17) & h->mask;
    while (h->first[slot] != SIZE_MAX && h->keys[slot] != key) slot = (slot + 1) & h->mask;
    return slot;
}

static void key_positions_free(key_positions *h)
{
    free(h->keys);
    free(h->first);
    free(h->last);
    free(h->next);
}

static bool key_positions_build(const ce_object_key *keys, size_t count, key_positions *h)
{
    size_t capacity = 16;
    while (capacity < 2 * count) capacity *= 2;
    h->mask = capacity - 1;
    h->keys = malloc(capacity * sizeof *h->keys);
    h->first = malloc(capacity * sizeof *h->first);
    h->last = malloc(capacity * sizeof *h->last);
    h->next = malloc((count + 1) * sizeof *h->next);
    if (!h->keys || !h->first || !h->last || !h->next) {
        key_positions_free(h);
        return results_out_of_memory();
    }
    memset(h->first, 0xFF, capacity * sizeof *h->first);
    for (size_t i = 0; i < count; i++) {
        size_t slot = slot_of(h, keys[i]);
        h->next[i] = SIZE_MAX;
        if (h->first[slot] == SIZE_MAX) {
            h->keys[slot] = keys[i];
            h->first[slot] = i;
        } else {
            h->next[h->last[slot]] = i;
        }
        h->last[slot] = i;
    }
    return true;
}

bool results_changes_diff(const ce_object_key *old_keys, size_t old_count, const ce_object_key *new_keys,
                          size_t new_count, const ce_object_key *modified, size_t modified_count,
                          ce_collection_change *out)
{
    if (strictly_ascending(old_keys, old_count) && strictly_ascending(new_keys, new_count))
        return diff_ascending(old_keys, old_count, new_keys, new_count, modified, modified_count, out);
    key_positions h;
    if (!key_positions_build(old_keys, old_count, &h)) return false;
    collection_origin origin;
    memset(&origin, 0, sizeof origin);
    origin.old_size = old_count;
    origin.new_size = new_count;
    origin.origin = malloc((new_count + 1) * sizeof *origin.origin);
    origin.set = calloc(old_count + 1, sizeof *origin.set);
    bool ok = origin.origin && origin.set ? true : results_out_of_memory();
    /* The modified objects' old elements. */
    for (size_t m = 0; ok && m < modified_count; m++) {
        size_t slot = slot_of(&h, modified[m]);
        for (size_t p = h.first[slot]; p != SIZE_MAX; p = h.next[p]) origin.set[p] = true;
    }
    /* Each new element takes the next unused old position of its key; a
     * used-up key keeps its slot (USED_UP), so probe chains stay whole. */
    for (size_t j = 0; ok && j < new_count; j++) {
        size_t slot = slot_of(&h, new_keys[j]);
        size_t position = h.first[slot];
        if (position == SIZE_MAX || position == USED_UP) {
            origin.origin[j] = COLLECTION_NEW;
        } else {
            origin.origin[j] = position;
            h.first[slot] = h.next[position] == SIZE_MAX ? USED_UP : h.next[position];
        }
    }
    key_positions_free(&h);
    if (ok) ok = collection_change_build(&origin, NULL, NULL, out);
    collection_origin_free(&origin);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* The results observer                                                      */
/* ------------------------------------------------------------------------ */

struct ce_results_observer {
    uint64_t magic; /* live or freed (handle.h): the first field */
    ce_results *results;              /* a private copy of the view */
    const ce_key_path_filter *filter; /* borrowed; NULL: Realm's default */
    ce_table_key table;
    ce_object_key *keys; /* the view's objects at `version`, in its order */
    size_t count, capacity;
    ce_object_key *spare; /* the previous keys' array, reused by the next update */
    size_t spare_capacity;
    bool ascending;   /* the keys ascend (a view in key order) */
    bool invalidated; /* a view of a collection or backlinks whose object is deleted */
    uint64_t version;
};

/* Freed observers, kept for new ones (handle.h). */
static handle_pool observer_pool = HANDLE_POOL(0x4F524F4253525652ull, "ce_results_observer");

bool ce_results_observer_create(ce_results *results, ce_txn *txn, const ce_key_path_filter *filter,
                                ce_results_observer **out_observer)
{
    if (!results_check(results, "ce_results_observer_create") ||
        (filter && !key_path_filter_check(filter, "ce_results_observer_create")))
        return false;
    if (!txn || !out_observer)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_observer_create: results, a transaction and out_observer are required");
    ce_results_observer *o = handle_new(&observer_pool, sizeof *o);
    if (!o) return results_out_of_memory();
    o->filter = filter;
    o->table = ce_results_table(results);
    o->version = ce_txn_version(txn);
    if (!results_copy_detached(results, &o->results) || !results_keys(o->results, txn, &o->keys, &o->count)) {
        ce_results_observer_free(o);
        return false;
    }
    o->capacity = o->count + 1;
    o->ascending = strictly_ascending(o->keys, o->count);
    *out_observer = o;
    return true;
}

void ce_results_observer_free(ce_results_observer *observer)
{
    if (!observer || !handle_check(&observer_pool, observer, "ce_results_observer_free")) return; /* freed twice */
    ce_results_free(observer->results);
    free(observer->keys);
    free(observer->spare);
    handle_delete(&observer_pool, observer, sizeof *observer);
}

/* Whether a table has changes (a table in neither version has none). */
static bool table_changed(const ce_changes *changes, ce_table_key table, bool *out_changed)
{
    size_t deleted, inserted, modified;
    if (!ce_changes_table(changes, table, NULL, &deleted, NULL, &inserted, NULL, &modified)) {
        if (ce_last_error_code() != CE_ERR_NO_SUCH_TABLE) return false;
        deleted = inserted = modified = 0;
    }
    *out_changed = deleted || inserted || modified;
    return true;
}

/* The lower bound of `key` in the ascending keys[from, count), found by
 * galloping from `from` (changes are few and far apart). */
static size_t gallop(const ce_object_key *keys, size_t count, size_t from, ce_object_key key)
{
    size_t low = from, high = from, step = 1;
    while (high < count && keys[high] < key) {
        low = high + 1;
        high += step;
        step *= 2;
    }
    if (high > count) high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (keys[middle] < key) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* Room for a change set of at most `deletions` deletions, `insertions`
 * insertions and `modifications` modifications. */
static bool change_reserve(ce_collection_change *out, size_t deletions, size_t insertions, size_t modifications)
{
    memset(out, 0, sizeof *out);
    out->deletions = malloc((deletions + 1) * sizeof *out->deletions);
    out->insertions = malloc((insertions + 1) * sizeof *out->insertions);
    out->modifications = malloc((modifications + 1) * sizeof *out->modifications);
    out->modifications_new = malloc((modifications + 1) * sizeof *out->modifications_new);
    if (out->deletions && out->insertions && out->modifications && out->modifications_new) return true;
    ce_collection_change_free(out);
    return results_out_of_memory();
}

/*
 * The view's new keys and change set when it is a predicate of its
 * table's own properties in key order (or nothing it reads changed): only
 * the table's deleted, modified and inserted objects can have left or
 * joined it (the modified and inserted ones are matched again), and only
 * the objects in `changed` (ascending: those that changed as the filter
 * sees it) are modifications. The keys are copied run by run between
 * those objects: O(changes · log n) plus one copy of the keys.
 */
static bool update_incremental(ce_results_observer *o, ce_txn *new_txn, const ce_changes *changes,
                               const ce_object_key *changed, size_t changed_count, ce_collection_change *out,
                               ce_object_key **out_keys, size_t *out_count)
{
    const ce_object_key *deleted = NULL, *inserted = NULL, *modified = NULL;
    size_t deleted_count = 0, inserted_count = 0, modified_count = 0;
    if (!ce_changes_table(changes, o->table, &deleted, &deleted_count, &inserted, &inserted_count, &modified,
                          &modified_count))
        return false;
    /* The candidates: modified and inserted, ascending (the two are disjoint). */
    size_t candidate_count = modified_count + inserted_count;
    ce_object_key *candidates = malloc((candidate_count + 1) * sizeof *candidates);
    bool *match = malloc((candidate_count + 1) * sizeof *match);
    /* The new keys go to the spare array (no new pages to fault in). */
    size_t needed = o->count + candidate_count + 1;
    if (o->spare_capacity < needed) {
        free(o->spare);
        o->spare_capacity = needed + needed / 4;
        if (!(o->spare = malloc(o->spare_capacity * sizeof *o->spare))) o->spare_capacity = 0;
    }
    ce_object_key *keys = o->spare;
    bool ok = candidates && match && keys ? true : results_out_of_memory();
    if (ok) {
        size_t m = 0, i = 0, c = 0;
        while (m < modified_count || i < inserted_count)
            candidates[c++] = i == inserted_count || (m < modified_count && modified[m] < inserted[i]) ? modified[m++]
                                                                                                     : inserted[i++];
        ok = results_match_keys(o->results, new_txn, candidates, candidate_count, match) &&
             change_reserve(out, deleted_count + modified_count, candidate_count,
                            changed_count < o->count ? changed_count : o->count);
    }
    /* The changed objects in key order: deleted (d), candidates (c) and
     * those the filter sees changed (k); a key may be a candidate and
     * changed. */
    size_t count = 0, position = 0;
    for (size_t d = 0, c = 0, k = 0; ok && (d < deleted_count || c < candidate_count || k < changed_count);) {
        ce_object_key key = INT64_MAX;
        if (d < deleted_count && deleted[d] < key) key = deleted[d];
        if (c < candidate_count && candidates[c] < key) key = candidates[c];
        if (k < changed_count && changed[k] < key) key = changed[k];
        bool is_deleted = d < deleted_count && deleted[d] == key, is_candidate = c < candidate_count && candidates[c] == key,
             is_changed = k < changed_count && changed[k] == key;
        size_t at = gallop(o->keys, o->count, position, key);
        memcpy(&keys[count], &o->keys[position], (at - position) * sizeof *keys);
        count += at - position;
        position = at;
        bool present = position < o->count && o->keys[position] == key;
        /* An object neither deleted nor modified keeps its membership. */
        bool now = is_deleted ? false : is_candidate ? match[c] : present;
        size_t old_index = position, new_index = count;
        if (present) position++;
        if (now) keys[count++] = key;
        if (present && !now) out->deletions[out->deletion_count++] = old_index;
        if (!present && now) out->insertions[out->insertion_count++] = new_index;
        if (present && now && is_changed) {
            out->modifications[out->modification_count++] = old_index;
            out->modifications_new[out->modification_new_count++] = new_index;
        }
        d += is_deleted;
        c += is_candidate;
        k += is_changed;
    }
    if (ok) {
        memcpy(&keys[count], &o->keys[position], (o->count - position) * sizeof *keys);
        count += o->count - position;
    }
    free(candidates);
    free(match);
    if (!ok) {
        ce_collection_change_free(out);
        return false;
    }
    *out_keys = keys;
    *out_count = count;
    return true;
}

bool ce_results_observer_update(ce_results_observer *observer, const ce_changes *changes, ce_collection_change *out_change)
{
    if (!handle_check(&observer_pool, observer, "ce_results_observer_update") ||
        !changes_check(changes, "ce_results_observer_update") ||
        (observer->filter && !key_path_filter_check(observer->filter, "ce_results_observer_update (its filter)")))
        return false;
    if (!out_change)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_observer_update: an observer, a change set and out_change are required");
    memset(out_change, 0, sizeof *out_change);
    ce_results_observer *o = observer;
    ce_txn *old_txn = changes_old_txn(changes), *new_txn = changes_new_txn(changes);
    uint64_t from = ce_txn_version(old_txn), to = ce_txn_version(new_txn);
    if (o->version != from)
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                          "ce_results_observer_update: the change set starts at version %llu, but the observer last saw "
                          "version %llu",
                          (unsigned long long)from, (unsigned long long)o->version);
    bool schema_changed = ce_changes_schema_changed(changes);
    ce_table_key *tables;
    size_t table_count;
    bool local;
    if (!results_reads(o->results, new_txn, &tables, &table_count, &local)) return false;
    bool reads_changed = schema_changed, ok = true;
    for (size_t t = 0; ok && t < table_count && !reads_changed; t++) ok = table_changed(changes, tables[t], &reads_changed);
    free(tables);
    /* The objects that changed as the filter sees it, found backwards from
     * the changes (key_path_filter.c): the modifications among those that
     * stay. */
    const ce_object_key *changed;
    size_t changed_count;
    if (!ok || !key_path_filter_changed_objects(changes, o->filter, o->table, &changed, &changed_count)) return false;
    ce_object_key *keys = o->keys;
    size_t count = o->count;
    if (!reads_changed && changed_count == 0) {
        /* Nothing the view reads changed, nor any object it holds. */
        o->version = to;
        return change_reserve(out_change, 0, 0, 0);
    }
    bool incremental = o->ascending && (!reads_changed || (local && !schema_changed));
    if (incremental) {
        if (!update_incremental(o, new_txn, changes, changed, changed_count, out_change, &keys, &count)) return false;
    } else {
        bool invalidated = false;
        if (reads_changed && !results_keys(o->results, new_txn, &keys, &count)) {
            /* A view of a collection or of backlinks whose object was
             * deleted is invalidated: every object it held is deleted, as
             * Realm reports for a List whose object is deleted. */
            if (ce_last_error_code() != CE_ERR_NO_SUCH_OBJECT) return false;
            if (!(keys = malloc(sizeof *keys))) return results_out_of_memory();
            count = 0;
            invalidated = true;
        }
        if (!results_changes_diff(o->keys, o->count, keys, count, changed, changed_count, out_change)) {
            if (keys != o->keys) free(keys);
            return false;
        }
        out_change->collection_deleted = invalidated && !o->invalidated;
        o->invalidated = o->invalidated || invalidated;
    }
    if (keys != o->keys) {
        /* The old keys' array becomes the spare. */
        size_t capacity = incremental ? o->spare_capacity : count + 1;
        if (!incremental) free(o->spare);
        o->spare = o->keys;
        o->spare_capacity = o->capacity;
        o->keys = keys;
        o->count = count;
        o->capacity = capacity;
        o->ascending = incremental || strictly_ascending(keys, count);
    }
    o->version = to;
    return true;
}
