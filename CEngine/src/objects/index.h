/*
 * index.h — the storage of primary-key and secondary indexes.
 *
 * Owns: an ordered multimap of (int64 key, int64 value) pairs, kept sorted by
 * (key, value), stored as a B+tree of nodes with copy-on-write (the layout is
 * in index.c and docs/FORMAT.md, "Indexes").
 * Never: knows what keys and values mean. The layer above stores the root
 * ref, maps property values to keys (an int as itself; a string, uuid or
 * object id as a 64-bit hash, checking the real value on lookup, since two
 * values may share a hash) and uses object keys as values.
 *
 * Every changing call takes the root by pointer: copy-on-write may give the
 * index a new root, which the caller stores where the old one was. A call
 * that fails because of its arguments (a pair already present, a pair
 * missing) changes nothing. Errors on bytes read from the file are
 * CE_ERR_CORRUPT with a message naming the offset.
 */
#ifndef CE_INDEX_H
#define CE_INDEX_H

#include "node.h"

#define INDEX_LEAF_MAX_PAIRS 256
#define INDEX_INNER_MAX_CHILDREN 256
#define INDEX_MAX_DEPTH 24 /* the root is at depth 0; no node lies deeper */

/* An empty index (one empty leaf). */
bool index_create(space_state *space, space_ref *out_root);

/* Adds a pair; the same pair twice is CE_ERR_INVALID_ARGUMENT (and the
 * index is unchanged). */
bool index_insert(space_state *space, space_ref *root, int64_t key, int64_t value);

/* Adds `pair_count` pairs (pairs[2i] = key, pairs[2i + 1] = value), in
 * increasing order and all after the index's last pair, filling whole leaves
 * at once (a bulk load). */
bool index_append(space_state *space, space_ref *root, const int64_t *pairs, size_t pair_count);

/* The last pair; *out_found is false for an empty index. */
bool index_last(const space_state *space, space_ref root, int64_t *out_key, int64_t *out_value, bool *out_found);

/* Removes a pair; a missing pair is CE_ERR_CORRUPT "index entry missing"
 * (the layer above only erases what it inserted, so the index disagrees with
 * the data), and the index is unchanged. */
bool index_erase(space_state *space, space_ref *root, int64_t key, int64_t value);

/* The smallest value stored with `key`; *out_found is false if none. */
bool index_find_first(const space_state *space, space_ref root, int64_t key, int64_t *out_value, bool *out_found);

/* How many pairs have `key`. */
bool index_count_key(const space_state *space, space_ref root, int64_t key, size_t *out_count);

/* Called for each pair in (key, value) order; setting *stop ends the walk
 * early (the call then still returns true); returning false ends it with
 * false (the visitor has set the error). The index must not change while it
 * is being visited. */
typedef bool (*index_visitor)(void *context, int64_t key, int64_t value, bool *stop);

bool index_for_each_with_key(const space_state *space, space_ref root, int64_t key, index_visitor visit, void *context);

/* Every pair with first_key <= key <= last_key, in order. */
bool index_for_each_in_range(const space_state *space, space_ref root, int64_t first_key, int64_t last_key,
                             index_visitor visit, void *context);

/* The number of pairs. */
bool index_size(const space_state *space, space_ref root, size_t *out_count);

/* Frees every node of the index. */
bool index_destroy(space_state *space, space_ref root);

#endif
