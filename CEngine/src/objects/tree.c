/*
 * tree.c — the inner nodes the cluster tree and the indexes share (see
 * tree.h).
 *
 * Owns: keeping an inner node's side arrays in step with its children when
 * a child is inserted, when the node splits, and when a root grows.
 * Never: checks a node, decides where a tree splits, or knows what an
 * entry means (cluster.c and index.c do all three).
 */
#include "tree.h"

/* Where the entries of child `child` start in a side array. */
static size_t entry_start(const tree_side *side, size_t child)
{
    return (child - (side->skip_first ? 1 : 0)) * side->stride;
}

bool tree_insert_child(space_state *space, space_ref inner, const tree_layout *layout, size_t at,
                       const int64_t *entries, space_ref child)
{
    node_view node;
    if (!node_read(space, inner, &node)) return false;
    space_ref sides[TREE_MAX_SIDES];
    for (size_t j = 0; j < layout->side_count; j++) {
        sides[j] = (space_ref)node_get(&node, j);
        if (!node_make_writable(space, &sides[j])) return false;
    }
    for (size_t j = 0; j < layout->side_count; j++) {
        const tree_side *side = &layout->sides[j];
        for (size_t k = 0; k < side->stride; k++)
            if (!node_insert(space, sides[j], entry_start(side, at) + k, *entries++)) return false;
    }
    for (size_t j = 0; j < layout->side_count; j++)
        if (!node_set(space, inner, j, (int64_t)sides[j])) return false;
    return node_insert(space, inner, layout->side_count + at, (int64_t)child);
}

bool tree_split_inner(space_state *space, space_ref inner, const tree_layout *layout, size_t from,
                      space_ref *out_right, int64_t *raised)
{
    node_view node;
    if (!node_read(space, inner, &node)) return false;
    size_t side_count = layout->side_count, children = node.count - side_count;
    space_ref right, right_sides[TREE_MAX_SIDES];
    if (!node_create(space, NODE_INNER | NODE_HAS_REFS, side_count, 0, &right)) return false;
    for (size_t j = 0; j < side_count; j++)
        if (!node_create(space, 0, 0, 0, &right_sides[j])) return false;
    for (size_t j = 0; j < side_count; j++) {
        const tree_side *side = &layout->sides[j];
        if (!node_read(space, inner, &node)) return false;
        space_ref left_side = (space_ref)node_get(&node, j);
        if (!node_make_writable(space, &left_side) || !node_set(space, inner, j, (int64_t)left_side)) return false;
        /* The left node keeps the entries of children [0, from); a
         * skip_first side's entry of child `from` is raised, the rest move. */
        size_t keep = entry_start(side, from), moved = keep, end = entry_start(side, children);
        node_view values;
        if (!node_read(space, left_side, &values)) return false;
        if (side->skip_first)
            for (size_t k = 0; k < side->stride; k++) *raised++ = node_get(&values, moved++);
        for (size_t i = moved; i < end; i++) {
            if (!node_read(space, left_side, &values)) return false;
            if (!node_append(space, right_sides[j], node_get(&values, i))) return false;
        }
        if (!node_truncate(space, left_side, keep) || !node_set(space, right, j, (int64_t)right_sides[j])) return false;
    }
    for (size_t i = from; i < children; i++) {
        if (!node_read(space, inner, &node)) return false;
        if (!node_append(space, right, node_get(&node, side_count + i))) return false;
    }
    *out_right = right;
    return node_truncate(space, inner, side_count + from);
}

bool tree_grow_root(space_state *space, const tree_layout *layout, space_ref left, const int64_t *left_entries,
                    space_ref right, const int64_t *right_entries, space_ref *out_root)
{
    space_ref root, side_ref;
    if (!node_create(space, NODE_INNER | NODE_HAS_REFS, layout->side_count, 0, &root)) return false;
    for (size_t j = 0; j < layout->side_count; j++) {
        const tree_side *side = &layout->sides[j];
        if (!node_create(space, 0, 0, 0, &side_ref)) return false;
        for (size_t k = 0; k < side->stride && !side->skip_first; k++)
            if (!node_append(space, side_ref, *left_entries++)) return false;
        for (size_t k = 0; k < side->stride; k++)
            if (!node_append(space, side_ref, *right_entries++)) return false;
        if (!node_set(space, root, j, (int64_t)side_ref)) return false;
    }
    if (!node_append(space, root, (int64_t)left) || !node_append(space, root, (int64_t)right)) return false;
    *out_root = root;
    return true;
}
