/*
 * bptree.c — positional B+trees (see bptree.h), for the tests, the fuzzers
 * and bench_w5.
 *
 * Owns: the shape of the tree: descending by counts, splitting, collapsing.
 * Never: trusts a count, a flag or a depth read from a node before checking
 * it (read_tree_node): the fuzzers and the tests hand it damaged files.
 *
 * Inner node element 2i is the ref of child i, element 2i+1 its subtree's
 * element count, tagged. Descending subtracts counts until the position
 * falls inside a child. Appends go straight to the last child at each level,
 * and a leaf that overflows at its end splits off just the new element, so a
 * tree built by appending has full leaves. Erase removes a child only when it
 * empties and is not the last one; a root with one child is collapsed.
 */
#include "bptree.h"
#include "error.h"

typedef struct split_result {
    bool happened;
    space_ref right;         /* the new right sibling */
    size_t left_count;    /* elements left in the original */
    size_t right_count;   /* elements in the new sibling */
} split_result;

static bool corrupt_tree(space_ref ref)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: inconsistent tree counts at offset %llu", (unsigned long long)ref);
}

/* Reads a node of the tree on the way down, and checks the shape every node
 * this file builds has: inserts split a leaf before it passes
 * BPTREE_LEAF_MAX elements and an inner node before it passes
 * BPTREE_INNER_MAX children, and inner nodes are HAS_REFS with a (child,
 * count) pair per child. Anything else is damage that must not be trusted:
 * a node of width 0 takes 8 bytes whatever its count, so a count of 2^31
 * would cost a 16 KiB file seconds of looping per read and gigabytes of
 * memory per insert; and an inner node without HAS_REFS would hide its
 * children from verify, free and copy-on-write. */
static bool read_tree_node(const space_state *space, space_ref ref, node_view *out_node)
{
    if (!node_read(space, ref, out_node)) return false;
    bool inner = (out_node->flags & NODE_INNER) != 0;
    /* A tree's nodes are never byte nodes (a leaf of a list of strings holds
     * refs to them): a damaged flag would make one a leaf to write into. */
    if ((out_node->flags & NODE_BYTES) ||
        (inner ? !(out_node->flags & NODE_HAS_REFS) || out_node->count == 0 || out_node->count % 2 != 0 ||
                     out_node->count / 2 > BPTREE_INNER_MAX
               : out_node->count > BPTREE_LEAF_MAX))
        return error_fail(CE_ERR_CORRUPT, "invalid database: the %s node of a tree at offset %llu is malformed (%u elements, flags %u)",
                       inner ? "inner" : "leaf", (unsigned long long)ref, out_node->count, out_node->flags);
    return true;
}

bool bptree_create(space_state *space, uint8_t leaf_flags, space_ref *out_root)
{
    return node_create(space, (uint8_t)(leaf_flags & ~NODE_INNER), 0, 0, out_root);
}

static bool subtree_size(const node_view *node, size_t *out_size)
{
    if (!(node->flags & NODE_INNER)) {
        *out_size = node->count;
        return true;
    }
    size_t total = 0;
    for (size_t i = 1; i < node->count; i += 2) {
        int64_t tagged = node_get(node, i);
        int64_t count = node_untag(tagged);
        if ((tagged & 1) == 0 || count < 0) return corrupt_tree(0);
        total += (size_t)count;
    }
    *out_size = total;
    return true;
}

bool bptree_size(const space_state *space, space_ref root, size_t *out_size)
{
    node_view node;
    if (!read_tree_node(space, root, &node)) return false;
    return subtree_size(&node, out_size);
}

/* Finds the child holding `*index`; on return *index is the position inside it. */
static bool find_child(const node_view *inner, space_ref ref, size_t *index, size_t *out_child, bool for_insert)
{
    size_t children = inner->count / 2;
    if (children == 0 || inner->count % 2 != 0) return corrupt_tree(ref);
    size_t position = *index;
    for (size_t child = 0; child < children; child++) {
        /* A count slot holds a tagged integer, a child slot a ref: a damaged
         * node that swaps them would have a ref overwritten by a count (and
         * the node it named leaked) when the path is copied. */
        int64_t tagged = node_get(inner, 2 * child + 1);
        int64_t count = node_untag(tagged);
        if ((tagged & 1) == 0 || count < 0 || !node_value_is_ref(node_get(inner, 2 * child))) return corrupt_tree(ref);
        bool last = child + 1 == children;
        if (position < (size_t)count || (for_insert && last && position == (size_t)count)) {
            *out_child = child;
            *index = position;
            return true;
        }
        position -= (size_t)count;
    }
    return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "position %zu is beyond the end of the list", *index);
}

bool bptree_get(const space_state *space, space_ref root, size_t index, int64_t *out_value)
{
    space_ref ref = root;
    for (unsigned depth = 0; depth <= BPTREE_MAX_DEPTH; depth++) {
        node_view node;
        if (!read_tree_node(space, ref, &node)) return false;
        if (!(node.flags & NODE_INNER)) {
            if (index >= node.count)
                return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "position %zu is beyond the end of the list", index);
            *out_value = node_get(&node, index);
            return true;
        }
        size_t child;
        if (!find_child(&node, ref, &index, &child, false)) return false;
        ref = (space_ref)node_get(&node, 2 * child);
    }
    return corrupt_tree(root);
}

static bool set_in(space_state *space, space_ref *ref, size_t index, int64_t value, unsigned depth)
{
    if (depth > BPTREE_MAX_DEPTH) return corrupt_tree(*ref);
    node_view node;
    /* Checked before the copy, so a damaged node is named by its offset. */
    if (!read_tree_node(space, *ref, &node) || !node_make_writable(space, ref) || !node_read(space, *ref, &node))
        return false;
    if (!(node.flags & NODE_INNER)) {
        if (index >= node.count)
            return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "position %zu is beyond the end of the list", index);
        return node_set(space, *ref, index, value);
    }
    size_t child;
    if (!find_child(&node, *ref, &index, &child, false)) return false;
    space_ref child_ref = (space_ref)node_get(&node, 2 * child);
    if (!set_in(space, &child_ref, index, value, depth + 1)) return false;
    return node_set(space, *ref, 2 * child, (int64_t)child_ref);
}

bool bptree_set(space_state *space, space_ref *root, size_t index, int64_t value)
{
    return set_in(space, root, index, value, 0);
}

/* Moves elements [from, count) of a dirty node into a new node with the same flags. */
static bool split_off(space_state *space, space_ref ref, size_t from, space_ref *out_right)
{
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (!node_create(space, node.flags, 0, 0, out_right)) return false;
    for (size_t i = from; i < node.count; i++) {
        if (!node_read(space, ref, &node)) return false;
        if (!node_append(space, *out_right, node_get(&node, i))) return false;
    }
    return node_truncate(space, ref, from);
}

static bool insert_into(space_state *space, space_ref *ref, size_t index, int64_t value, unsigned depth, split_result *out)
{
    out->happened = false;
    if (depth > BPTREE_MAX_DEPTH) return corrupt_tree(*ref);
    node_view node;
    /* Checked before the copy, so a damaged node is named by its offset. */
    if (!read_tree_node(space, *ref, &node) || !node_make_writable(space, ref) || !node_read(space, *ref, &node))
        return false;
    if (!(node.flags & NODE_INNER)) {
        if (index > node.count)
            return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "position %zu is beyond the end of the list", index);
        bool at_end = index == node.count;
        if (!node_insert(space, *ref, index, value)) return false;
        size_t count = (size_t)node.count + 1;
        if (count <= BPTREE_LEAF_MAX) return true;
        size_t from = at_end ? count - 1 : count / 2;
        if (!split_off(space, *ref, from, &out->right)) return false;
        *out = (split_result){true, out->right, from, count - from};
        return true;
    }
    size_t child;
    if (!find_child(&node, *ref, &index, &child, true)) return false;
    space_ref child_ref = (space_ref)node_get(&node, 2 * child);
    int64_t child_count = node_untag(node_get(&node, 2 * child + 1));
    split_result child_split;
    if (!insert_into(space, &child_ref, index, value, depth + 1, &child_split)) return false;
    if (!node_set(space, *ref, 2 * child, (int64_t)child_ref)) return false;
    if (!child_split.happened) return node_set(space, *ref, 2 * child + 1, node_tag(child_count + 1));
    if (!node_set(space, *ref, 2 * child + 1, node_tag((int64_t)child_split.left_count))) return false;
    if (!node_insert(space, *ref, 2 * child + 2, (int64_t)child_split.right)) return false;
    if (!node_insert(space, *ref, 2 * child + 3, node_tag((int64_t)child_split.right_count))) return false;
    if (!node_read(space, *ref, &node)) return false;
    size_t children = node.count / 2;
    if (children <= BPTREE_INNER_MAX) return true;
    bool at_end = child + 2 == children;
    size_t keep = at_end ? children - 1 : children / 2;
    size_t left_total = 0, right_total = 0;
    for (size_t i = 0; i < children; i++) {
        size_t count = (size_t)node_untag(node_get(&node, 2 * i + 1));
        if (i < keep) left_total += count;
        else right_total += count;
    }
    space_ref right;
    if (!split_off(space, *ref, 2 * keep, &right)) return false;
    *out = (split_result){true, right, left_total, right_total};
    return true;
}

bool bptree_insert(space_state *space, space_ref *root, size_t index, int64_t value)
{
    split_result split;
    if (!insert_into(space, root, index, value, 0, &split)) return false;
    if (!split.happened) return true;
    space_ref new_root;
    if (!node_create(space, NODE_INNER | NODE_HAS_REFS, 4, 0, &new_root)) return false;
    if (!node_set(space, new_root, 0, (int64_t)*root) || !node_set(space, new_root, 1, node_tag((int64_t)split.left_count)) ||
        !node_set(space, new_root, 2, (int64_t)split.right) || !node_set(space, new_root, 3, node_tag((int64_t)split.right_count)))
        return false;
    *root = new_root;
    return true;
}

bool bptree_append(space_state *space, space_ref *root, int64_t value)
{
    size_t size;
    if (!bptree_size(space, *root, &size)) return false;
    return bptree_insert(space, root, size, value);
}

bool bptree_append_bulk(space_state *space, space_ref *root, const int64_t *values, size_t count)
{
    size_t size;
    if (!bptree_size(space, *root, &size)) return false;
    for (size_t i = 0; i < count; i++)
        if (!bptree_insert(space, root, size + i, values[i])) return false;
    return true;
}

static bool erase_from(space_state *space, space_ref *ref, size_t index, unsigned depth)
{
    if (depth > BPTREE_MAX_DEPTH) return corrupt_tree(*ref);
    node_view node;
    /* Checked before the copy, so a damaged node is named by its offset. */
    if (!read_tree_node(space, *ref, &node) || !node_make_writable(space, ref) || !node_read(space, *ref, &node))
        return false;
    if (!(node.flags & NODE_INNER)) return node_erase(space, *ref, index);
    size_t child;
    if (!find_child(&node, *ref, &index, &child, false)) return false;
    space_ref child_ref = (space_ref)node_get(&node, 2 * child);
    int64_t child_count = node_untag(node_get(&node, 2 * child + 1));
    if (!erase_from(space, &child_ref, index, depth + 1)) return false;
    if (child_count == 1 && node.count > 2) {
        /* The child is empty now and has siblings: drop it. */
        if (!node_free_tree(space, child_ref)) return false;
        if (!node_erase(space, *ref, 2 * child + 1)) return false;
        return node_erase(space, *ref, 2 * child);
    }
    if (!node_set(space, *ref, 2 * child, (int64_t)child_ref)) return false;
    return node_set(space, *ref, 2 * child + 1, node_tag(child_count - 1));
}

bool bptree_erase(space_state *space, space_ref *root, size_t index)
{
    if (!erase_from(space, root, index, 0)) return false;
    for (;;) {
        node_view node;
        if (!node_read(space, *root, &node)) return false;
        if (!(node.flags & NODE_INNER) || node.count != 2) return true;
        space_ref only_child = (space_ref)node_get(&node, 0);
        if (!node_free(space, *root)) return false;
        *root = only_child;
    }
}

bool bptree_destroy(space_state *space, space_ref root) { return node_free_tree(space, root); }

static bool visit_leaves(const space_state *space, space_ref ref, size_t *first_index, unsigned depth,
                         bptree_leaf_visitor visit, void *context, bool *stop, uint64_t *visited_bytes)
{
    if (depth > BPTREE_MAX_DEPTH) return corrupt_tree(ref);
    node_view node;
    if (!read_tree_node(space, ref, &node)) return false;
    /* A damaged inner node may name one child many times: without the
     * charge, 24 levels of shared children are exponentially many leaves. */
    if (!node_charge_visit(space, ref, &node, visited_bytes)) return false;
    if (!(node.flags & NODE_INNER)) {
        if (!visit(context, &node, *first_index, stop)) return false;
        *first_index += node.count;
        return true;
    }
    if (node.count % 2 != 0) return corrupt_tree(ref);
    for (size_t i = 0; i < node.count && !*stop; i += 2) {
        if (!visit_leaves(space, (space_ref)node_get(&node, i), first_index, depth + 1, visit, context, stop, visited_bytes))
            return false;
        if (!node_read(space, ref, &node)) return false;
    }
    return true;
}

bool bptree_for_each_leaf(const space_state *space, space_ref root, bptree_leaf_visitor visit, void *context)
{
    size_t first_index = 0;
    bool stop = false;
    uint64_t visited_bytes = 0;
    return visit_leaves(space, root, &first_index, 0, visit, context, &stop, &visited_bytes);
}
