/*
 * bptree.h — positional B+trees of integers: a data model for the tests,
 * the fuzzers and bench_w5, stored with the storage core's nodes. No
 * engine file uses it (the object store's lists are collection.c's
 * chunked sequences), so it lives beside the tests, not in CEngine/src.
 *
 * Owns: a sequence of 64-bit integers of any length, addressed by position,
 * stored as a tree of nodes: leaves hold up to BPTREE_LEAF_MAX elements;
 * inner nodes (NODE_INNER | NODE_HAS_REFS) hold pairs (child ref, tagged
 * element count of that child's subtree).
 * Never: interprets the integers (a tree created with NODE_HAS_REFS leaves
 * owns the nodes its elements refer to, and frees them with the tree).
 *
 * Every changing call takes the root by pointer: copy-on-write may give the
 * tree a new root, which the caller stores where the old one was.
 */
#ifndef CE_BPTREE_H
#define CE_BPTREE_H

#include "node.h"

#define BPTREE_LEAF_MAX 256
#define BPTREE_INNER_MAX 500 /* children */
#define BPTREE_MAX_DEPTH 24

/* An empty tree whose leaves have `leaf_flags` (0 or NODE_HAS_REFS). */
bool bptree_create(space_state *space, uint8_t leaf_flags, space_ref *out_root);

bool bptree_size(const space_state *space, space_ref root, size_t *out_size);
bool bptree_get(const space_state *space, space_ref root, size_t index, int64_t *out_value);

bool bptree_set(space_state *space, space_ref *root, size_t index, int64_t value);
bool bptree_insert(space_state *space, space_ref *root, size_t index, int64_t value);
bool bptree_append(space_state *space, space_ref *root, int64_t value);
bool bptree_append_bulk(space_state *space, space_ref *root, const int64_t *values, size_t count);
bool bptree_erase(space_state *space, space_ref *root, size_t index);

/* Frees every node of the tree (and, for NODE_HAS_REFS leaves, what they refer to). */
bool bptree_destroy(space_state *space, space_ref root);

/* Calls `visit` for each leaf in order with the position of its first
 * element; stops early (returning true) if `visit` sets *stop. */
typedef bool (*bptree_leaf_visitor)(void *context, const node_view *leaf, size_t first_index, bool *stop);
bool bptree_for_each_leaf(const space_state *space, space_ref root, bptree_leaf_visitor visit, void *context);

#endif
