/*
 * index.c — primary-key and secondary indexes (see index.h): an ordered
 * multimap of (int64 key, int64 value) pairs stored as a B+tree of nodes.
 *
 * Owns: the layout below, lookups, copy-on-write inserts and erases, and the
 * checks on every index node it reads.
 * Never: interprets keys or values, and never follows or searches a node it
 * has not checked: these bytes may come from a damaged file
 * (docs/DESIGN.md invariant 5), so a malformed node is CE_ERR_CORRUPT
 * naming its offset, never an out-of-bounds read or an endless loop.
 *
 * Layout (also in docs/FORMAT.md, "Indexes"). Pairs are ordered by key, then
 * by value.
 *   Leaf: a plain integer node (no HAS_REFS) with flags exactly NODE_CONTEXT,
 *     holding key0, value0, key1, value1, ... in strictly increasing pair
 *     order; at most 256 pairs. Only the root may be an empty leaf (the
 *     empty index).
 *   Inner: flags exactly NODE_INNER | NODE_HAS_REFS. Element 0 is the ref of
 *     its separator node, elements 1..n the refs of its n children
 *     (1 <= n <= 256). The separator node is a plain integer node (flags 0)
 *     of 2 (n - 1) integers: for each child i >= 1, the pair that was first
 *     in it when it was split off, strictly increasing. Every pair p under
 *     child i satisfies separator(i) <= p < separator(i + 1). Erases never
 *     update separators: they stay valid bounds.
 *   Depth: the root is at depth 0; no node lies deeper than 24.
 * Separators sit in their own node so that a lookup binary-searches plain
 * integers (no tagging, no refs in between), and the inner node stays a
 * HAS_REFS node that verify, free and copy-on-write walk like any other.
 *
 * Shape of the tree. An insert that overflows a leaf splits it in half,
 * except at the very end of the last leaf, where just the new pair moves to
 * a new leaf: ascending inserts (the common case for primary keys) leave
 * full leaves behind. Inner nodes split the same way. An erase that empties
 * a leaf removes it from its parent unless it is the only child (an emptied
 * only child empties its parent in turn), and a root inner node with one
 * child is replaced by that child, so an empty index is one empty leaf.
 *
 * Writes copy on the way up: the descent only reads, the leaf is changed
 * first and each parent is made writable after its child. An insert of a
 * pair already present or an erase of a missing one is found at the leaf,
 * before anything is copied, so such a call changes nothing.
 *
 * Checks. Every node gets its shape checked on every read (flags, counts,
 * the separator node's flags and count, the depth), and every child ref is
 * checked before it is followed. Order inside a node costs a pass over it,
 * so it is checked where that pass is cheap against the work: before a
 * committed node is copied by a write, and on every node an iteration reads
 * (which also checks that the pairs it yields increase). Point lookups, the
 * hot path of primary-key lookups, do not re-scan the nodes they search: a
 * binary search over unordered integers still ends inside the node after at
 * most log2(n) probes, so damage there can give a wrong answer, never a bad
 * read or a hang.
 */
#include "index.h"
#include "error.h"
#include "tree.h"

/* --- searches ---
 *
 * Pair i of a node is elements 2i (key) and 2i + 1 (value); separator nodes
 * have the same layout. A search by key is the node layer's (stride 2); a
 * search by pair runs here, per element width so that each probe is one
 * load, not a call through node_get's switch. */

/* A packed element plus the node's base (see NODE_BASED in node.h). */
#define INDEX_FULL(probe) ((int64_t)((uint64_t)base + (uint64_t)(int64_t)(probe)))

#define INDEX_DEFINE_SEARCHES(name, type)                                                                  \
    static size_t search_pair_##name(const uint8_t *payload, int64_t base, size_t low, size_t high,      \
                                     int64_t key,                                                      \
                                     int64_t value, bool after_equal)                                      \
    {                                                                                                      \
        while (low < high) {                                                                               \
            size_t middle = low + (high - low) / 2;                                                        \
            type probe_key;                                                                                \
            memcpy(&probe_key, payload + 2 * middle * sizeof(type), sizeof(type));                         \
            bool below = INDEX_FULL(probe_key) < key;                                                         \
            if (INDEX_FULL(probe_key) == key) {                                                               \
                type probe_value;                                                                          \
                memcpy(&probe_value, payload + (2 * middle + 1) * sizeof(type), sizeof(type));             \
                below = INDEX_FULL(probe_value) < value || (after_equal && INDEX_FULL(probe_value) == value);    \
            }                                                                                              \
            if (below) low = middle + 1;                                                                   \
            else high = middle;                                                                            \
        }                                                                                                  \
        return low;                                                                                        \
    }

INDEX_DEFINE_SEARCHES(8, int8_t)
INDEX_DEFINE_SEARCHES(16, int16_t)
INDEX_DEFINE_SEARCHES(32, int32_t)
INDEX_DEFINE_SEARCHES(64, int64_t)

/* The first pair in [low, high) whose key is at least `key` (high if none). */
static size_t search_key(const node_view *node, size_t low, size_t high, int64_t key)
{
    return node_lower_bound(node, 2, low, high, key);
}

/* The first pair in [low, high) that is at least (key, value), or above it
 * when `after_equal` (high if none). */
static size_t search_pair(const node_view *node, size_t low, size_t high, int64_t key, int64_t value, bool after_equal)
{
    switch (node->width) {
    case 8: return search_pair_8(node->payload, node->base, low, high, key, value, after_equal);
    case 16: return search_pair_16(node->payload, node->base, low, high, key, value, after_equal);
    case 32: return search_pair_32(node->payload, node->base, low, high, key, value, after_equal);
    case 64: return search_pair_64(node->payload, node->base, low, high, key, value, after_equal);
    default:
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            int64_t probe_key = node_get(node, 2 * middle), probe_value = node_get(node, 2 * middle + 1);
            bool below = probe_key < key || (probe_key == key && (probe_value < value || (after_equal && probe_value == value)));
            if (below) low = middle + 1;
            else high = middle;
        }
        return low;
    }
}

static inline bool pair_less(int64_t key, int64_t value, int64_t other_key, int64_t other_value)
{
    return key < other_key || (key == other_key && value < other_value);
}

/* --- reading and checking nodes --- */

typedef struct index_node {
    node_view node;         /* the leaf, or the inner node */
    node_view separators;   /* inner nodes: the separator node */
    space_ref separator_ref; /* inner nodes */
    size_t count;         /* pairs of a leaf, children of an inner node */
    bool inner;
} index_node;

static bool malformed(const char *what, space_ref ref, const node_view *node)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the %s of an index at offset %llu is malformed (%u elements, flags %u)",
                   what, (unsigned long long)ref, node->count, node->flags);
}

static bool out_of_order(const char *what, space_ref ref)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the %s of an index at offset %llu are out of order", what,
                   (unsigned long long)ref);
}

/* Element `index` of an inner node as a child ref. A committed node refers
 * only to committed nodes: a temporary ref in one is damage, and a write
 * transaction that followed it would take it for one of its own dirty nodes. */
static bool child_at(const node_view *inner, space_ref inner_ref, size_t index, space_ref *out_child)
{
    int64_t child = node_get(inner, index);
    if (!node_value_is_ref(child) || (!ref_is_temporary(inner_ref) && ref_is_temporary((space_ref)child)))
        return error_fail(CE_ERR_CORRUPT, "invalid database: the index node at offset %llu holds a bad ref (%llx)",
                       (unsigned long long)inner_ref, (unsigned long long)child);
    *out_child = (space_ref)child;
    return true;
}

/* Whether the pairs of a node (leaf or separators) strictly increase. */
static bool pairs_in_order(const node_view *node, size_t pairs)
{
    for (size_t i = 1; i < pairs; i++)
        if (!pair_less(node_get(node, 2 * i - 2), node_get(node, 2 * i - 1), node_get(node, 2 * i), node_get(node, 2 * i + 1)))
            return false;
    return true;
}

/* Reads an index node at `depth` and checks its shape (and, with
 * `check_order`, for a committed node, the order of its pairs and every
 * child ref). The shape bounds every loop and search over the node: a count
 * of 2^31 in an 8-byte node of width 0 would otherwise be seconds of work
 * per read. */
static bool read_index_node(const space_state *space, space_ref ref, unsigned depth, bool check_order, index_node *out)
{
    if (depth > INDEX_MAX_DEPTH)
        return error_fail(CE_ERR_CORRUPT, "invalid database: an index is deeper than %d levels at offset %llu",
                       INDEX_MAX_DEPTH, (unsigned long long)ref);
    if (!node_read(space, ref, &out->node)) return false;
    const node_view *node = &out->node;
    bool committed = !ref_is_temporary(ref);
    if (node->flags == NODE_CONTEXT) {
        /* An empty leaf is removed from its parent, so only the root is one. */
        if (node->count % 2 != 0 || node->count > 2 * INDEX_LEAF_MAX_PAIRS || (node->count == 0 && depth > 0))
            return malformed("leaf", ref, node);
        out->inner = false;
        out->count = node->count / 2;
        if (check_order && committed && !pairs_in_order(node, out->count)) return out_of_order("pairs in the leaf", ref);
        return true;
    }
    /* A leaf lies at depth 24 at most, so an inner node there is too deep. */
    if (node->flags != (NODE_INNER | NODE_HAS_REFS) || node->count < 2 || node->count - 1 > INDEX_INNER_MAX_CHILDREN ||
        depth >= INDEX_MAX_DEPTH)
        return malformed("inner node", ref, node);
    out->inner = true;
    out->count = node->count - 1;
    if (!child_at(node, ref, 0, &out->separator_ref)) return false;
    if (!node_read(space, out->separator_ref, &out->separators)) return false;
    if (out->separators.flags != 0 || out->separators.count != 2 * (out->count - 1))
        return error_fail(CE_ERR_CORRUPT,
                       "invalid database: the separators of the index node at offset %llu are malformed "
                       "(%u elements, flags %u, for %zu children)",
                       (unsigned long long)ref, out->separators.count, out->separators.flags, out->count);
    if (check_order && committed) {
        if (!pairs_in_order(&out->separators, out->count - 1)) return out_of_order("separators of the node", ref);
        space_ref child;
        for (size_t i = 1; i <= out->count; i++)
            if (!child_at(node, ref, i, &child)) return false;
    }
    return true;
}

/* --- creating and looking up --- */

bool index_create(space_state *space, space_ref *out_root) { return node_create(space, NODE_CONTEXT, 0, 0, out_root); }

/* --- point lookups ---
 *
 * A point lookup misses the cache on nearly every probe of a large index,
 * so it guesses where the key lies before it searches: by interpolation
 * between the bounds the parent's separators give the node (or the node's
 * own first and last keys at the root and along the edges), then gallops
 * from the guess (1, 2, 4, ... pairs away) and finishes with a binary search
 * inside the last step. Primary keys from a counter land on the pair itself
 * (two probes on one cache line instead of eight spread over a 2 KiB leaf);
 * hashed keys land a few pairs away. Each step at least doubles or halves a
 * distance inside the node, so unordered (damaged) keys still end in
 * bounded time inside the node. */

/* The bounds of the keys of a node as the parent's separators state them. */
typedef struct key_bounds {
    bool has_lower, has_upper;
    int64_t lower, upper;
} key_bounds;

/* The first pair whose key is at least `key` among `pairs` pairs (pairs if
 * none), starting from an interpolated guess. */
static size_t search_key_guided(const node_view *node, size_t pairs, int64_t key, const key_bounds *bounds)
{
    if (pairs == 0) return 0;
    if (node->width < 8) return search_key(node, 0, pairs, key);
    int64_t lower = bounds->has_lower ? bounds->lower : node_get(node, 0);
    int64_t upper = bounds->has_upper ? bounds->upper : node_get(node, 2 * pairs - 2);
    return node_lower_bound_near(node, 2, pairs, key, node_guess_position(key, lower, upper, pairs));
}

bool index_find_first(const space_state *space, space_ref root, int64_t key, int64_t *out_value, bool *out_found)
{
    *out_found = false;
    /* The descent takes, at each level, the last child whose separator has a
     * smaller key: the first pair with `key` is in that child, or else it is
     * the first pair of the next subtree in order, which is worth a look only
     * when that subtree's separator has `key` itself. */
    space_ref ref = root, next_subtree = 0;
    unsigned next_depth = 0;
    key_bounds bounds = {false, false, 0, 0};
    index_node node;
    for (unsigned depth = 0;; depth++) {
        if (!read_index_node(space, ref, depth, false, &node)) return false;
        if (!node.inner) break;
        size_t separators = node.count - 1;
        size_t child = search_key_guided(&node.separators, separators, key, &bounds);
        if (child > 0) {
            bounds.has_lower = true;
            bounds.lower = node_get(&node.separators, 2 * child - 2);
        }
        if (child < separators) {
            int64_t next_key = node_get(&node.separators, 2 * child);
            bounds.has_upper = true;
            bounds.upper = next_key;
            next_subtree = 0;
            if (next_key == key) {
                if (!child_at(&node.node, ref, child + 2, &next_subtree)) return false;
                next_depth = depth + 1;
            }
        }
        if (!child_at(&node.node, ref, child + 1, &ref)) return false;
    }
    size_t at = search_key_guided(&node.node, node.count, key, &bounds);
    if (at < node.count) {
        if (node_get(&node.node, 2 * at) == key) {
            *out_value = node_get(&node.node, 2 * at + 1);
            *out_found = true;
        }
        return true;
    }
    if (!next_subtree) return true;
    ref = next_subtree;
    for (unsigned depth = next_depth;; depth++) {
        if (!read_index_node(space, ref, depth, false, &node)) return false;
        if (!node.inner) break;
        if (!child_at(&node.node, ref, 1, &ref)) return false;
    }
    /* Not the root, so not empty (read_index_node checked). */
    if (node_get(&node.node, 0) == key) {
        *out_value = node_get(&node.node, 1);
        *out_found = true;
    }
    return true;
}

/* --- iteration --- */

/* A position in the index: the inner nodes from the root down, the child
 * taken in each, and a pair of a leaf. */
typedef struct index_cursor {
    const space_state *space;
    unsigned levels; /* inner nodes on the path */
    index_node path[INDEX_MAX_DEPTH];
    space_ref path_ref[INDEX_MAX_DEPTH];
    size_t path_child[INDEX_MAX_DEPTH];
    index_node leaf;
    space_ref leaf_ref;
    size_t position; /* a pair of the leaf */
    /* A damaged file can give a node several parents: every node read is
     * charged (node_charge_visit), so a walk ends within the version's size. */
    uint64_t visited_bytes;
    /* The last pair passed, to check that pairs increase across leaves. */
    bool has_previous;
    int64_t previous_key, previous_value;
} index_cursor;

/* Descends from `ref` at `depth` to a leaf: to the first pair with a key of
 * at least `key`, or with `leftmost` to the first pair of the subtree. */
static bool cursor_descend(index_cursor *cursor, space_ref ref, unsigned depth, bool leftmost, int64_t key)
{
    for (;;) {
        index_node node;
        if (!read_index_node(cursor->space, ref, depth, true, &node) ||
            !node_charge_visit(cursor->space, ref, &node.node, &cursor->visited_bytes))
            return false;
        if (!node.inner) {
            cursor->leaf = node;
            cursor->leaf_ref = ref;
            cursor->position = leftmost ? 0 : search_key(&node.node, 0, node.count, key);
            return true;
        }
        if (!node_charge_visit(cursor->space, node.separator_ref, &node.separators, &cursor->visited_bytes)) return false;
        /* read_index_node refused an inner node at depth INDEX_MAX_DEPTH. */
        size_t child = leftmost ? 0 : search_key(&node.separators, 0, node.count - 1, key);
        cursor->path[depth] = node;
        cursor->path_ref[depth] = ref;
        cursor->path_child[depth] = child;
        cursor->levels = depth + 1;
        if (!child_at(&node.node, ref, child + 1, &ref)) return false;
        depth++;
    }
}

/* Moves to the first pair of the next leaf; *out_at_end if there is none. */
static bool cursor_next_leaf(index_cursor *cursor, bool *out_at_end)
{
    while (cursor->levels > 0) {
        unsigned level = cursor->levels - 1;
        if (cursor->path_child[level] + 1 < cursor->path[level].count) {
            size_t child = ++cursor->path_child[level];
            space_ref child_ref;
            if (!child_at(&cursor->path[level].node, cursor->path_ref[level], child + 1, &child_ref)) return false;
            *out_at_end = false;
            return cursor_descend(cursor, child_ref, level + 1, true, 0);
        }
        cursor->levels--;
    }
    *out_at_end = true;
    return true;
}

/* Positions the cursor at the first pair with a key of at least `key`. */
static bool cursor_seek(index_cursor *cursor, const space_state *space, space_ref root, int64_t key, bool *out_at_end)
{
    cursor->space = space;
    cursor->levels = 0;
    cursor->visited_bytes = 0;
    cursor->has_previous = false;
    if (!cursor_descend(cursor, root, 0, false, key)) return false;
    *out_at_end = false;
    if (cursor->position < cursor->leaf.count) return true;
    /* Every pair of the leaf is below `key`: the next one in order is the
     * first of the next leaf. */
    return cursor_next_leaf(cursor, out_at_end);
}

/* Checks that (key, value) comes after the last pair passed, and records it. */
static bool cursor_pass(index_cursor *cursor, int64_t key, int64_t value)
{
    if (cursor->has_previous && !pair_less(cursor->previous_key, cursor->previous_value, key, value))
        return out_of_order("pairs in the leaf", cursor->leaf_ref);
    cursor->has_previous = true;
    cursor->previous_key = key;
    cursor->previous_value = value;
    return true;
}

bool index_for_each_in_range(const space_state *space, space_ref root, int64_t first_key, int64_t last_key,
                             index_visitor visit, void *context)
{
    if (first_key > last_key) return true;
    index_cursor cursor;
    bool at_end;
    if (!cursor_seek(&cursor, space, root, first_key, &at_end)) return false;
    while (!at_end) {
        const node_view *leaf = &cursor.leaf.node;
        for (size_t i = cursor.position; i < cursor.leaf.count; i++) {
            int64_t key = node_get(leaf, 2 * i), value = node_get(leaf, 2 * i + 1);
            /* In a sound index the seek lands on a key >= first_key. */
            if (key < first_key) return out_of_order("pairs in the leaf", cursor.leaf_ref);
            if (key > last_key) return true;
            if (!cursor_pass(&cursor, key, value)) return false;
            bool stop = false;
            if (!visit(context, key, value, &stop)) return false;
            if (stop) return true;
        }
        if (!cursor_next_leaf(&cursor, &at_end)) return false;
    }
    return true;
}

bool index_for_each_with_key(const space_state *space, space_ref root, int64_t key, index_visitor visit, void *context)
{
    return index_for_each_in_range(space, root, key, key, visit, context);
}

bool index_count_key(const space_state *space, space_ref root, int64_t key, size_t *out_count)
{
    *out_count = 0;
    index_cursor cursor;
    bool at_end;
    if (!cursor_seek(&cursor, space, root, key, &at_end)) return false;
    size_t total = 0;
    /* Counted a leaf at a time: the end of the run of `key` in a leaf is one
     * more binary search, so a key with many values costs a read per leaf. */
    while (!at_end) {
        const node_view *leaf = &cursor.leaf.node;
        size_t first = cursor.position, pairs = cursor.leaf.count;
        if (!cursor_pass(&cursor, node_get(leaf, 2 * first), node_get(leaf, 2 * first + 1))) return false;
        if (node_get(leaf, 2 * first) != key) break;
        size_t end = key == INT64_MAX ? pairs : search_key(leaf, first + 1, pairs, key + 1);
        total += end - first;
        if (end < pairs) break;
        cursor.previous_key = node_get(leaf, 2 * pairs - 2);
        cursor.previous_value = node_get(leaf, 2 * pairs - 1);
        if (!cursor_next_leaf(&cursor, &at_end)) return false;
    }
    *out_count = total;
    return true;
}

bool index_size(const space_state *space, space_ref root, size_t *out_count)
{
    *out_count = 0;
    index_cursor cursor;
    bool at_end;
    if (!cursor_seek(&cursor, space, root, INT64_MIN, &at_end)) return false;
    size_t total = 0;
    while (!at_end) {
        const node_view *leaf = &cursor.leaf.node;
        size_t pairs = cursor.leaf.count;
        /* Leaves were checked in order when read; the check here is across them. */
        if (!cursor_pass(&cursor, node_get(leaf, 0), node_get(leaf, 1))) return false;
        cursor.previous_key = node_get(leaf, 2 * pairs - 2);
        cursor.previous_value = node_get(leaf, 2 * pairs - 1);
        total += pairs;
        if (!cursor_next_leaf(&cursor, &at_end)) return false;
    }
    *out_count = total;
    return true;
}

/* --- inserting --- */

typedef struct split_result {
    bool happened;
    space_ref right;                          /* the new right sibling */
    int64_t separator_key, separator_value; /* the first pair under it */
} split_result;

/* Moves pairs [from, count) of a dirty leaf into a new leaf. */
static bool split_leaf(space_state *space, space_ref ref, size_t from, split_result *out)
{
    node_view node;
    space_ref right;
    if (!node_read(space, ref, &node)) return false;
    size_t elements = node.count - 2 * from;
    if (!node_create(space, NODE_CONTEXT, elements, 0, &right)) return false;
    /* Widening the new node never moves the old one's buffer: `node` stays valid. */
    for (size_t i = 0; i < elements; i++)
        if (!node_set(space, right, i, node_get(&node, 2 * from + i))) return false;
    *out = (split_result){true, right, node_get(&node, 2 * from), node_get(&node, 2 * from + 1)};
    return node_truncate(space, ref, 2 * from);
}

/* An inner node's one side array (tree.h): a separator pair before each
 * child but the first. */
static const tree_layout INNER_LAYOUT = {1, {{2, true}}};

/* Moves children [keep, count) of a dirty inner node, whose separator node
 * is dirty too, into a new inner node; the separator of child `keep` goes up. */
static bool split_inner(space_state *space, space_ref ref, size_t keep, split_result *out)
{
    int64_t separator[2];
    space_ref right;
    if (!tree_split_inner(space, ref, &INNER_LAYOUT, keep, &right, separator)) return false;
    *out = (split_result){true, right, separator[0], separator[1]};
    return true;
}

/* Inserts the new sibling of a child that split (child + 1, after it) in a
 * dirty inner node, with its separator. */
static bool insert_split_child(space_state *space, space_ref ref, size_t child, const split_result *child_split)
{
    return tree_insert_child(space, ref, &INNER_LAYOUT, child + 1,
                             (int64_t[]){child_split->separator_key, child_split->separator_value}, child_split->right);
}

/* `rightmost`: the node is the last one on its level, where an insert at the
 * very end splits off only the new entry. */
static bool insert_into(space_state *space, space_ref *ref, int64_t key, int64_t value, unsigned depth, bool rightmost,
                        split_result *out)
{
    out->happened = false;
    index_node node;
    if (!read_index_node(space, *ref, depth, true, &node)) return false;
    if (!node.inner) {
        size_t at = search_pair(&node.node, 0, node.count, key, value, false);
        if (at < node.count && node_get(&node.node, 2 * at) == key && node_get(&node.node, 2 * at + 1) == value)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "the index already holds the entry (key %lld, value %lld)",
                           (long long)key, (long long)value);
        if (!node_make_writable(space, ref) || !node_insert(space, *ref, 2 * at, key) ||
            !node_insert(space, *ref, 2 * at + 1, value))
            return false;
        size_t pairs = node.count + 1;
        if (pairs <= INDEX_LEAF_MAX_PAIRS) return true;
        return split_leaf(space, *ref, rightmost && at == node.count ? pairs - 1 : pairs / 2, out);
    }
    /* The last child whose separator is at most the pair. */
    size_t child = search_pair(&node.separators, 0, node.count - 1, key, value, true);
    space_ref child_ref, original_child;
    if (!child_at(&node.node, *ref, child + 1, &child_ref)) return false;
    original_child = child_ref;
    split_result child_split;
    if (!insert_into(space, &child_ref, key, value, depth + 1, rightmost && child + 1 == node.count, &child_split))
        return false;
    /* A dirty child has a dirty parent already (its copy was stored here). */
    if (child_ref == original_child && !child_split.happened) return true;
    if (!node_make_writable(space, ref) || !node_set(space, *ref, 1 + child, (int64_t)child_ref)) return false;
    if (!child_split.happened) return true;
    if (!insert_split_child(space, *ref, child, &child_split)) return false;
    size_t children = node.count + 1;
    if (children <= INDEX_INNER_MAX_CHILDREN) return true;
    bool at_end = rightmost && child + 2 == children;
    return split_inner(space, *ref, at_end ? children - 1 : children / 2, out);
}

/* A new root above a root that split. */
static bool grow_root(space_state *space, space_ref *root, const split_result *split)
{
    return tree_grow_root(space, &INNER_LAYOUT, *root, NULL, split->right,
                          (int64_t[]){split->separator_key, split->separator_value}, root);
}

bool index_insert(space_state *space, space_ref *root, int64_t key, int64_t value)
{
    split_result split;
    if (!insert_into(space, root, key, value, 0, true, &split)) return false;
    return !split.happened || grow_root(space, root, &split);
}

/* --- appending whole leaves --- */

/* The last leaf: its pair count and its last pair. */
static bool last_leaf(const space_state *space, space_ref root, size_t *out_pairs, int64_t *out_key, int64_t *out_value)
{
    space_ref ref = root;
    for (unsigned depth = 0;; depth++) {
        index_node node;
        if (!read_index_node(space, ref, depth, false, &node)) return false;
        if (!node.inner) {
            *out_pairs = node.count;
            if (node.count) {
                *out_key = node_get(&node.node, 2 * node.count - 2);
                *out_value = node_get(&node.node, 2 * node.count - 1);
            }
            return true;
        }
        if (!child_at(&node.node, ref, node.count, &ref)) return false;
    }
}

/* Adds a leaf after the last one (its first pair the separator), splitting
 * inner nodes on the way up as an insert at the end would. */
static bool append_leaf_into(space_state *space, space_ref *ref, space_ref leaf, int64_t first_key, int64_t first_value,
                             unsigned depth, split_result *out)
{
    out->happened = false;
    index_node node;
    if (!read_index_node(space, *ref, depth, false, &node)) return false;
    if (!node.inner) {
        *out = (split_result){true, leaf, first_key, first_value};
        return true;
    }
    size_t child = node.count - 1;
    space_ref child_ref, original_child;
    split_result child_split;
    if (!child_at(&node.node, *ref, child + 1, &child_ref)) return false;
    original_child = child_ref;
    if (!append_leaf_into(space, &child_ref, leaf, first_key, first_value, depth + 1, &child_split)) return false;
    if (!child_split.happened) {
        /* The child took the leaf (it may be a copy now); no new sibling here. */
        if (child_ref == original_child) return true;
        return node_make_writable(space, ref) && node_set(space, *ref, 1 + child, (int64_t)child_ref);
    }
    if (!node_make_writable(space, ref) || !node_set(space, *ref, 1 + child, (int64_t)child_ref) ||
        !insert_split_child(space, *ref, child, &child_split))
        return false;
    size_t children = node.count + 1;
    if (children <= INDEX_INNER_MAX_CHILDREN) return true;
    return split_inner(space, *ref, children - 1, out);
}

bool index_append(space_state *space, space_ref *root, const int64_t *pairs, size_t pair_count)
{
    if (pair_count == 0) return true;
    for (size_t i = 1; i < pair_count; i++)
        if (!pair_less(pairs[2 * i - 2], pairs[2 * i - 1], pairs[2 * i], pairs[2 * i + 1]))
            return error_fail(CE_ERR_INVALID_ARGUMENT, "index_append: the pairs are not in increasing order");
    size_t last_pairs = 0;
    int64_t last_key = 0, last_value = 0;
    if (!last_leaf(space, *root, &last_pairs, &last_key, &last_value)) return false;
    if (last_pairs > 0 && !pair_less(last_key, last_value, pairs[0], pairs[1]))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "index_append: the pairs do not follow the index's last pair");
    size_t done = 0;
    /* A last leaf with room is filled first, so that leaves stay full. */
    for (; done < pair_count && last_pairs > 0 && last_pairs + done < INDEX_LEAF_MAX_PAIRS; done++)
        if (!index_insert(space, root, pairs[2 * done], pairs[2 * done + 1])) return false;
    while (done < pair_count) {
        size_t batch = pair_count - done < INDEX_LEAF_MAX_PAIRS ? pair_count - done : INDEX_LEAF_MAX_PAIRS;
        space_ref leaf;
        if (!node_create_from(space, NODE_CONTEXT, pairs + 2 * done, 2 * batch, &leaf)) return false;
        if (last_pairs == 0) {
            /* The empty root leaf of an empty index gives way. */
            if (!node_free(space, *root)) return false;
            *root = leaf;
        } else {
            split_result split;
            if (!append_leaf_into(space, root, leaf, pairs[2 * done], pairs[2 * done + 1], 0, &split) ||
                (split.happened && !grow_root(space, root, &split)))
                return false;
        }
        last_pairs = batch;
        done += batch;
    }
    return true;
}

/* The last pair; *out_found is false for an empty index. */
bool index_last(const space_state *space, space_ref root, int64_t *out_key, int64_t *out_value, bool *out_found)
{
    size_t pairs = 0;
    if (!last_leaf(space, root, &pairs, out_key, out_value)) return false;
    *out_found = pairs > 0;
    return true;
}

/* --- erasing --- */

/* *out_emptied: the subtree holds no pair any more (and its parent removes
 * it, unless it is the only child). */
static bool erase_from(space_state *space, space_ref *ref, int64_t key, int64_t value, unsigned depth, bool *out_emptied)
{
    *out_emptied = false;
    index_node node;
    if (!read_index_node(space, *ref, depth, true, &node)) return false;
    if (!node.inner) {
        size_t at = search_pair(&node.node, 0, node.count, key, value, false);
        if (at == node.count || node_get(&node.node, 2 * at) != key || node_get(&node.node, 2 * at + 1) != value)
            return error_fail(CE_ERR_CORRUPT, "index entry missing: the index holds no entry (key %lld, value %lld)",
                           (long long)key, (long long)value);
        if (!node_make_writable(space, ref) || !node_erase(space, *ref, 2 * at) || !node_erase(space, *ref, 2 * at))
            return false;
        *out_emptied = node.count == 1;
        return true;
    }
    size_t child = search_pair(&node.separators, 0, node.count - 1, key, value, true);
    space_ref child_ref, original_child;
    if (!child_at(&node.node, *ref, child + 1, &child_ref)) return false;
    original_child = child_ref;
    bool child_emptied;
    if (!erase_from(space, &child_ref, key, value, depth + 1, &child_emptied)) return false;
    if (child_emptied && node.count > 1) {
        /* Drop the child and one separator: its own, or for the first child
         * the next one's (the new first child needs none). */
        space_ref separator_ref = node.separator_ref;
        size_t separator = child == 0 ? 0 : child - 1;
        return node_make_writable(space, ref) && node_make_writable(space, &separator_ref) &&
               node_set(space, *ref, 0, (int64_t)separator_ref) && node_free_tree(space, child_ref) &&
               node_erase(space, *ref, 1 + child) && node_erase(space, separator_ref, 2 * separator) &&
               node_erase(space, separator_ref, 2 * separator);
    }
    *out_emptied = child_emptied;
    if (child_ref == original_child) return true;
    return node_make_writable(space, ref) && node_set(space, *ref, 1 + child, (int64_t)child_ref);
}

bool index_erase(space_state *space, space_ref *root, int64_t key, int64_t value)
{
    bool emptied;
    if (!erase_from(space, root, key, value, 0, &emptied)) return false;
    /* A root with one child gives way to it (repeatedly: an emptied chain of
     * only children ends as one empty leaf). */
    for (unsigned level = 0; level <= INDEX_MAX_DEPTH; level++) {
        index_node node;
        if (!read_index_node(space, *root, 0, false, &node)) return false;
        if (!node.inner || node.count != 1) return true;
        space_ref only_child;
        if (!child_at(&node.node, *root, 1, &only_child)) return false;
        if (!node_free(space, node.separator_ref) || !node_free(space, *root)) return false;
        *root = only_child;
    }
    return error_fail(CE_ERR_CORRUPT, "invalid database: an index is deeper than %d levels at offset %llu",
                   INDEX_MAX_DEPTH, (unsigned long long)*root);
}

bool index_destroy(space_state *space, space_ref root)
{
    /* The free walk is generic (and bounded against damage); the root is
     * checked so that a ref to something else is not freed as an index. */
    index_node node;
    if (!read_index_node(space, root, 0, false, &node)) return false;
    return node_free_tree(space, root);
}
