/*
 * tree.h — the inner nodes the cluster tree and the indexes share.
 *
 * Owns: the layout both trees give an inner node (NODE_INNER |
 * NODE_HAS_REFS): first the refs of its side arrays, then the refs of its
 * children. A side array is a plain integer node that holds, for each child
 * in order, `stride` integers that describe it (its first key, its object
 * count, its separator pair); a side whose entries are separators has none
 * for the first child (`skip_first`). Inserting a child, splitting an inner
 * node in two and growing a root above two nodes keep the sides in step
 * with the children:
 *   cluster.c  sides {first keys: stride 1} {counts: stride 1}
 *   index.c    side  {separators: stride 2, skip_first}
 * Never: checks a node: the caller checked each inner node it hands over,
 * and its side arrays, when it read them from the file, and made the inner
 * node writable. What an entry means, and where a tree splits, stay the
 * caller's.
 */
#ifndef CE_TREE_H
#define CE_TREE_H

#include "node.h"

#define TREE_MAX_SIDES 2

typedef struct tree_side {
    size_t stride;   /* integers per child */
    bool skip_first; /* no entry for the first child (a separator before each other child) */
} tree_side;

typedef struct tree_layout {
    size_t side_count; /* 1 to TREE_MAX_SIDES */
    tree_side sides[TREE_MAX_SIDES];
} tree_layout;

/* Inserts `child` at position `at` (at least 1) of the writable inner node,
 * with its entries: `entries` holds side 0's `stride` integers, then side
 * 1's. */
bool tree_insert_child(space_state *space, space_ref inner, const tree_layout *layout, size_t at,
                       const int64_t *entries, space_ref child);

/* Moves children [from, count) of the writable inner node, with their
 * entries, into a new inner node *out_right (0 < from < count). The entry
 * of child `from` in a skip_first side leaves the node (the new node's
 * first child has none): it goes into `raised`, in the order of `entries`,
 * for the parent to keep as the new node's. */
bool tree_split_inner(space_state *space, space_ref inner, const tree_layout *layout, size_t from,
                      space_ref *out_right, int64_t *raised);

/* A new root with two children, `left` (the old root) and `right`, and
 * their entries (`left_entries` leaves out the skip_first sides). */
bool tree_grow_root(space_state *space, const tree_layout *layout, space_ref left, const int64_t *left_entries,
                    space_ref right, const int64_t *right_entries, space_ref *out_root);

#endif
