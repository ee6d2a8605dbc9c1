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
#include "collection_changes.h"
#include "error.h"

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

