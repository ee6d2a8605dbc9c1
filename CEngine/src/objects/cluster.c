/*
 * cluster.c — the cluster tree (see cluster.h for the layout).
 *
 * Owns: the tree's nodes: finding, inserting, appending and erasing
 * objects, adding and removing columns in every leaf, walking the leaves
 * (of one version, or where two versions differ), and the checks of every
 * leaf and inner node it reads.
 * Never: interprets a column array (column.c does), or knows property
 * names, primary keys or links (schema.c, object_index.c and links.c do).
 *
 * Objects are kept in key order. A leaf stores keys as offsets from its base
 * key, so the consecutive keys of a table that only grows need 8 bits each.
 * Inserting descends by the children's first keys; a leaf that overflows at
 * its end splits off just the new object (so a table filled in key order has
 * full leaves), elsewhere in the middle. Every change is copy-on-write from
 * the root down, and the caller stores the root it gets back.
 */
#include "cluster.h"
#include "buf.h"
#include "column.h"
#include "error.h"
#include "tree.h"

#include <stdlib.h>

enum { LEAF_BASE_KEY = 0, LEAF_KEY_OFFSETS = 1, LEAF_FIRST_COLUMN = 2 };
enum { INNER_FIRST_KEYS = 0, INNER_COUNTS = 1, INNER_FIRST_CHILD = 2 };
/* An inner node's side arrays (tree.h): the first keys, then the counts. */
static const tree_layout INNER_LAYOUT = {2, {{1, false}, {1, false}}};

static bool corrupt_cluster(space_ref ref, const char *what)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: cluster node at offset %llu: %s", (unsigned long long)ref, what);
}

/* ------------------------------------------------------------------------ */
/* Reading nodes (every node from the file is checked before it is used)    */
/* ------------------------------------------------------------------------ */

typedef struct inner_view {
    node_view node;
    node_view first_keys;
    node_view counts;
    size_t children;
} inner_view;

static bool read_plain(const space_state *space, space_ref ref, node_view *out)
{
    if (!node_read(space, ref, out)) return false;
    if (out->flags & (NODE_HAS_REFS | NODE_BYTES | NODE_INNER)) return corrupt_cluster(ref, "expected an integer node");
    return true;
}

/* Checks a leaf whose node is read already (out->slots) and reads its keys. */
static bool check_leaf(const space_state *space, space_ref ref, size_t column_count, cluster_leaf *out)
{
    if ((out->slots.flags & (NODE_INNER | NODE_HAS_REFS | NODE_BYTES)) != NODE_HAS_REFS ||
        out->slots.count != LEAF_FIRST_COLUMN + column_count)
        return corrupt_cluster(ref, "not a leaf of this table");
    int64_t base = node_get(&out->slots, LEAF_BASE_KEY);
    int64_t offsets = node_get(&out->slots, LEAF_KEY_OFFSETS);
    if ((base & 1) == 0 || !node_value_is_ref(offsets)) return corrupt_cluster(ref, "bad leaf header");
    if (!read_plain(space, (space_ref)offsets, &out->key_offsets)) return false;
    /* One more than the maximum: a leaf between an insert and its split. */
    if (out->key_offsets.count > CLUSTER_LEAF_MAX + 1) return corrupt_cluster(ref, "too many objects in a leaf");
    out->ref = ref;
    out->base_key = node_untag(base);
    return true;
}

static bool read_leaf(const space_state *space, space_ref ref, size_t column_count, cluster_leaf *out)
{
    return node_read(space, ref, &out->slots) && check_leaf(space, ref, column_count, out);
}

/* A leaf's base key and key offsets, for the lookups that do not need its
 * columns (and so not the table's column count); the leaf's node is read
 * already. */
static bool leaf_keys_of(const space_state *space, space_ref ref, const node_view *leaf, int64_t *out_base, node_view *out_offsets)
{
    if (leaf->count < LEAF_FIRST_COLUMN || (node_get(leaf, LEAF_BASE_KEY) & 1) == 0 ||
        !node_value_is_ref(node_get(leaf, LEAF_KEY_OFFSETS)))
        return corrupt_cluster(ref, "bad leaf header");
    if (!read_plain(space, (space_ref)node_get(leaf, LEAF_KEY_OFFSETS), out_offsets)) return false;
    if (out_offsets->count > CLUSTER_LEAF_MAX + 1) return corrupt_cluster(ref, "too many objects in a leaf");
    *out_base = node_untag(node_get(leaf, LEAF_BASE_KEY));
    return true;
}

static bool read_leaf_keys(const space_state *space, space_ref ref, int64_t *out_base, node_view *out_offsets)
{
    node_view leaf;
    return node_read(space, ref, &leaf) && leaf_keys_of(space, ref, &leaf, out_base, out_offsets);
}

/* Checks the header of an inner node whose node is read already
 * (out->node). */
static bool check_inner_header(space_ref ref, inner_view *out)
{
    /* One child more than the maximum: an inner node between an insert and
     * its split. */
    if ((out->node.flags & (NODE_INNER | NODE_HAS_REFS)) != (NODE_INNER | NODE_HAS_REFS) ||
        out->node.count < INNER_FIRST_CHILD + 1 || out->node.count > INNER_FIRST_CHILD + CLUSTER_INNER_MAX + 1)
        return corrupt_cluster(ref, "bad inner node");
    out->children = out->node.count - INNER_FIRST_CHILD;
    return true;
}

/* Checks an inner node whose node is read already and reads its first
 * keys; check_inner reads the counts too. */
static bool read_inner_keys(const space_state *space, space_ref ref, inner_view *out);

static bool check_inner_keys(const space_state *space, space_ref ref, inner_view *out)
{
    return check_inner_header(ref, out) && read_inner_keys(space, ref, out);
}

/* Reads the first keys of an inner node whose header is checked. */
static bool read_inner_keys(const space_state *space, space_ref ref, inner_view *out)
{
    int64_t keys = node_get(&out->node, INNER_FIRST_KEYS);
    if (!node_value_is_ref(keys)) return corrupt_cluster(ref, "bad inner header");
    if (!read_plain(space, (space_ref)keys, &out->first_keys)) return false;
    if (out->first_keys.count != out->children) return corrupt_cluster(ref, "inner arrays disagree");
    /* Child refs are checked when followed (node_read checks every ref), not
     * all of them on every step down. */
    return true;
}

/* Reads the counts of an inner node whose header is checked. */
static bool read_inner_counts(const space_state *space, space_ref ref, inner_view *out)
{
    int64_t counts = node_get(&out->node, INNER_COUNTS);
    if (!node_value_is_ref(counts)) return corrupt_cluster(ref, "bad inner header");
    if (!read_plain(space, (space_ref)counts, &out->counts)) return false;
    if (out->counts.count != out->children) return corrupt_cluster(ref, "inner arrays disagree");
    return true;
}

static bool check_inner(const space_state *space, space_ref ref, inner_view *out)
{
    return check_inner_keys(space, ref, out) && read_inner_counts(space, ref, out);
}

static bool read_inner(const space_state *space, space_ref ref, inner_view *out)
{
    return node_read(space, ref, &out->node) && check_inner(space, ref, out);
}

static bool is_inner(const space_state *space, space_ref ref, bool *out_inner)
{
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    *out_inner = (node.flags & NODE_INNER) != 0;
    return true;
}

/* Where the child that covers `key` probably lies, from the node's own
 * first keys. Keys come from a counter, so the first keys of a table that
 * grew in order are evenly spaced: interpolation lands on the child (see
 * node.h). */
static size_t guess_child(const inner_view *inner, ce_object_key key)
{
    size_t children = inner->children;
    return node_guess_position(key, node_get(&inner->first_keys, 0), node_get(&inner->first_keys, children - 1),
                               children);
}

/* The same from the span [low, high) of the node's keys that its parent
 * gives (its first key there, and the next child's), before the node's
 * first keys are read: the line of the child's ref can then be fetched
 * together with them, and the node's last first key is not read at all. */
static size_t guess_child_in_span(size_t children, ce_object_key key, int64_t low, int64_t high)
{
    if (key <= low) return 0;
    if (key >= high) return children - 1;
    double position = ((double)key - (double)low) / ((double)high - (double)low) * (double)children;
    return position < (double)children ? (size_t)position : children - 1;
}

/* The child whose keys cover `key`: the last one whose first key <= key,
 * searched from `guess` (any guess gives the right child). */
static size_t child_for_key_near(const inner_view *inner, ce_object_key key, size_t guess)
{
    size_t children = inner->children;
    if (key == INT64_MAX) return children - 1;
    /* The first key after the child's: usually the next one. */
    size_t after_guess = guess + 1 < children ? guess + 1 : children - 1;
    size_t after = node_lower_bound_near(&inner->first_keys, 1, children, key + 1, after_guess);
    return after == 0 ? 0 : after - 1;
}

static size_t child_for_key(const inner_view *inner, ce_object_key key)
{
    return child_for_key_near(inner, key, guess_child(inner, key));
}

/* Where the guess's first key probably lies in an inner node's first keys
 * (bytes from the node's start), from the span [low, high) of the node's
 * keys: its first keys then run from low to about a child's share below
 * high, packed as a commit packs them. */
static uint64_t first_key_offset(size_t children, size_t guess, int64_t low, int64_t high)
{
    double share = ((double)high - (double)low) * (double)(children - 1) / (double)children;
    return node_guess_offset(low, (int64_t)((double)low + share), children, guess);
}

/* Where the offset at `position` lies in the key offsets of a leaf
 * without gaps whose keys span `length` (0: not known): its offsets are
 * then 0 .. length - 1. */
static uint64_t key_offset_offset(uint64_t length, uint64_t position)
{
    if (length == 0 || length > CLUSTER_LEAF_MAX + 1) length = CLUSTER_LEAF_MAX;
    return node_guess_offset(0, (int64_t)length - 1, (size_t)length, (size_t)position);
}

/* Position of the first offset >= target in a leaf: where target lies when
 * the leaf's keys have no gaps, else near it. */
static size_t lower_bound(const node_view *offsets, int64_t target)
{
    size_t count = offsets->count;
    if (count == 0) return 0;
    size_t guess = target < 0 ? 0 : (uint64_t)target >= count ? count - 1 : (size_t)target;
    return node_lower_bound_near(offsets, 1, count, target, guess);
}

/* ------------------------------------------------------------------------ */
/* Creating and destroying                                                   */
/* ------------------------------------------------------------------------ */

static bool create_leaf(space_state *space, const cluster_schema *schema, int64_t base_key, space_ref *out_leaf)
{
    space_ref leaf, offsets;
    if (!node_create(space, NODE_HAS_REFS, LEAF_FIRST_COLUMN + schema->column_count, 0, &leaf)) return false;
    if (!node_create(space, 0, 0, 0, &offsets)) return false;
    if (!node_set(space, leaf, LEAF_BASE_KEY, node_tag(base_key)) ||
        !node_set(space, leaf, LEAF_KEY_OFFSETS, (int64_t)offsets))
        return false;
    for (size_t c = 0; c < schema->column_count; c++) {
        if (schema->columns[c].type == CE_TYPE_NULL) continue;
        space_ref column;
        if (!column_create(space, schema->columns[c].type, schema->columns[c].nullable, 0, &column)) return false;
        if (!node_set(space, leaf, LEAF_FIRST_COLUMN + c, (int64_t)column)) return false;
    }
    *out_leaf = leaf;
    return true;
}

bool cluster_create(space_state *space, const cluster_schema *schema, space_ref *out_root)
{
    return create_leaf(space, schema, 0, out_root);
}

bool cluster_destroy(space_state *space, space_ref root, cluster_hint *hint)
{
    cluster_hint_forget(hint);
    return node_free_tree(space, root);
}

/* ------------------------------------------------------------------------ */
/* Lookups                                                                   */
/* ------------------------------------------------------------------------ */

bool cluster_count(const space_state *space, space_ref root, size_t *out_count)
{
    bool inner;
    if (!is_inner(space, root, &inner)) return false;
    if (!inner) {
        node_view offsets;
        int64_t base;
        if (!read_leaf_keys(space, root, &base, &offsets)) return false;
        *out_count = offsets.count;
        return true;
    }
    inner_view view;
    if (!read_inner(space, root, &view)) return false;
    size_t total = 0;
    for (size_t i = 0; i < view.children; i++) {
        int64_t count = node_get(&view.counts, i);
        if (count < 0) return corrupt_cluster(root, "negative count");
        total += (size_t)count;
    }
    *out_count = total;
    return true;
}

/* The hint for a lookup of this read: emptied first if it was made in
 * another read epoch (its nodes may have left the cache; the snapshot is
 * the caller's). NULL stays NULL. */
static cluster_hint *hint_for_read(const space_state *space, cluster_hint *hint)
{
    if (hint && hint->read_epoch != space->read_epoch) *hint = (cluster_hint){.read_epoch = space->read_epoch};
    return hint;
}

/* The leaf that holds (or would hold) `key`, and its node. A root that is
 * an inner node is taken from the hint (hint_for_read's), or remembered in it.
 *
 * In a large table every node on the way is a cache miss, and each step
 * used to wait for one miss after another: the node, its first keys, the
 * line of the guess among them, then the line of the child's ref. Below the
 * root the parent's first keys give the span of a node's keys, so the guess
 * is made from the node's header alone: the child's ref is fetched together
 * with the first keys, and the child's header (at the guess) while the
 * guess is checked. A wrong guess costs only a useless prefetch. */
typedef struct key_span {
    bool known; /* the keys under the node lie in [low, high) */
    int64_t low, high;
    int64_t fetched_offsets; /* the key offsets fetched with the leaf (0: none) */
} key_span;

static int64_t prefetch_leaf_arrays_at(const space_state *space, const cluster_hint *hint, uint32_t columns,
                                       int64_t leaf, ce_object_key key, int64_t low, int64_t high);

static bool descend_to_leaf(const space_state *space, space_ref root, ce_object_key key, cluster_hint *hint,
                            uint32_t columns, space_ref *out_leaf, node_view *out_leaf_node, key_span *out_span)
{
    space_ref ref = root;
    bool spanned = false; /* the keys under `ref` lie in [low, high) */
    int64_t low = 0, high = 0;
    int64_t fetched_keys = 0;    /* the first keys whose line was fetched with `ref` */
    int64_t fetched_offsets = 0; /* the key offsets fetched with `ref` */
    for (unsigned depth = 0; depth <= CLUSTER_MAX_DEPTH; depth++) {
        inner_view view;
        size_t guess;
        bool child_fetched = false; /* the guessed child's header */
        if (depth == 0 && hint && hint->root == root) {
            view.node = hint->root_node;
            view.first_keys = hint->root_first_keys;
            view.children = view.node.count - INNER_FIRST_CHILD;
            guess = guess_child(&view, key);
        } else {
            if (!node_read(space, ref, &view.node)) return false;
            if (!(view.node.flags & NODE_INNER)) {
                if (hint) hint->leaf_depth = depth;
                *out_leaf = ref;
                *out_leaf_node = view.node;
                *out_span = (key_span){spanned && high > low, low, high, fetched_offsets};
                return true;
            }
            /* A lookup needs the first keys, not the counts. */
            if (!check_inner_header(ref, &view)) return false;
            if (spanned && high > low) {
                guess = guess_child_in_span(view.children, key, low, high);
                /* The line of the guessed child's ref (already on its way
                 * when the hint knew the node's shape), the first keys'
                 * header and the line of the guess among them as the span
                 * packs them (first_key_offset) are fetched together; then
                 * the child's header, before the first keys are read. */
                int64_t keys = node_get(&view.node, INNER_FIRST_KEYS);
                node_prefetch_element(&view.node, INNER_FIRST_CHILD + guess);
                if (keys != fetched_keys) {
                    node_prefetch_header(space, keys);
                    node_prefetch_at(space, keys, first_key_offset(view.children, guess, low, high));
                }
                node_prefetch_header(space, node_get(&view.node, INNER_FIRST_CHILD + guess));
                child_fetched = true;
                if (!read_inner_keys(space, ref, &view)) return false;
            } else {
                if (!read_inner_keys(space, ref, &view)) return false;
                guess = guess_child(&view, key);
            }
            if (depth == 0 && hint) {
                hint->root = root;
                hint->root_node = view.node;
                hint->root_first_keys = view.first_keys;
            }
            if (hint && depth < CLUSTER_HINT_SHAPES) {
                int64_t keys = node_get(&view.node, INNER_FIRST_KEYS);
                int64_t delta = ref_is_temporary(ref) || ref_is_temporary((space_ref)keys)
                                    ? 0
                                    : (int64_t)((uint64_t)keys - (uint64_t)ref);
                hint->shapes[depth] = (cluster_inner_shape){(uint16_t)view.children, view.node.width, delta};
            }
        }
        if (!child_fetched) node_prefetch_header(space, node_get(&view.node, INNER_FIRST_CHILD + guess));
        size_t index = child_for_key_near(&view, key, guess);
        int64_t child = node_get(&view.node, INNER_FIRST_CHILD + index);
        if (!node_value_is_ref(child)) return corrupt_cluster(ref, "bad child");
        /* The child's span: from its first key to the next child's (the
         * last child's ends where this node's does). */
        low = node_get(&view.first_keys, index);
        if (index + 1 < view.children) {
            high = node_get(&view.first_keys, index + 1);
            spanned = true;
        }
        ref = (space_ref)child;
        fetched_keys = fetched_offsets = 0;
        /* The line of the child's ref that the next step will guess, if
         * the child is an inner node shaped like the last one seen at its
         * depth (in a table that grew in key order they all are): fetched
         * with the child's header rather than after it. */
        if (hint && spanned && high > low && depth + 1 < CLUSTER_HINT_SHAPES && hint->shapes[depth + 1].children) {
            const cluster_inner_shape *shape = &hint->shapes[depth + 1];
            size_t next_guess = guess_child_in_span(shape->children, key, low, high);
            node_prefetch_at(space, child, NODE_HEADER_SIZE + (INNER_FIRST_CHILD + next_guess) * (shape->width / 8u));
            /* And the line of that guess among its first keys, where the
             * last node's lay from it (node.c places them right before
             * the node). */
            if (shape->keys_delta && !ref_is_temporary((space_ref)child)) {
                fetched_keys = (int64_t)((uint64_t)child + (uint64_t)shape->keys_delta);
                node_prefetch_header(space, fetched_keys);
                node_prefetch_at(space, fetched_keys, first_key_offset(shape->children, next_guess, low, high));
            }
        }
        /* The child is probably a leaf laid out like the last one found:
         * its arrays are fetched with it, the line of the key's offset too
         * (as prefetch_leaf does once the leaf is read). */
        if (hint && hint->leaf_depth == depth + 1)
            fetched_offsets = prefetch_leaf_arrays_at(space, hint, columns, child, key, low, spanned ? high : low);
    }
    return corrupt_cluster(root, "tree too deep");
}

/* An object that is looked up is usually read next: the arrays of a leaf's
 * first columns are fetched while its key offsets are searched, so their
 * cache misses overlap instead of following one another. At most
 * PREFETCH_LEAF_COLUMNS: a wide table's reads touch few of its columns. */
#define PREFETCH_LEAF_COLUMNS 8

static void prefetch_leaf_columns(const space_state *space, const node_view *leaf, uint32_t columns)
{
    size_t end = leaf->count < LEAF_FIRST_COLUMN + PREFETCH_LEAF_COLUMNS ? leaf->count
                                                                         : LEAF_FIRST_COLUMN + PREFETCH_LEAF_COLUMNS;
    for (size_t slot = LEAF_FIRST_COLUMN; slot < end; slot++)
        if (columns & (1u << (slot - LEAF_FIRST_COLUMN))) node_prefetch_header(space, node_get(leaf, slot));
}

/* The columns a lookup fetches with its leaf: those read since the last
 * descent, else all (of the first PREFETCH_LEAF_COLUMNS); forgotten for
 * the next one. A fetch to another page is not free (it may wait for a
 * page walk), so columns nobody reads are left alone. */
static uint32_t columns_to_fetch(cluster_hint *hint)
{
    uint32_t columns = hint && hint->columns_read ? hint->columns_read : (1u << PREFETCH_LEAF_COLUMNS) - 1;
    if (hint) hint->columns_read = 0;
    return columns;
}

/* What a lookup reads next in a leaf whose node just arrived, fetched at
 * once so that the misses overlap instead of following one another: the
 * arrays of its first columns (`columns`), its key offsets' header, and
 * the line of the offset of `key` if the leaf has no gaps (its offsets are
 * then 0, 1, 2, ...: at position key - base, key_offset_offset). */
static void prefetch_leaf(const space_state *space, const node_view *leaf, ce_object_key key, const key_span *span,
                          uint32_t columns)
{
    if (leaf->count < LEAF_FIRST_COLUMN) return;
    int64_t offsets = node_get(leaf, LEAF_KEY_OFFSETS);
    /* Fetched with the leaf already (its arrays lay as guessed). */
    if (offsets == span->fetched_offsets) return;
    int64_t base = node_untag(node_get(leaf, LEAF_BASE_KEY));
    node_prefetch_header(space, offsets);
    if (key >= base && (uint64_t)key - (uint64_t)base <= CLUSTER_LEAF_MAX) {
        uint64_t length = span->known && span->high > base ? (uint64_t)span->high - (uint64_t)base : 0;
        node_prefetch_at(space, offsets, key_offset_offset(length, (uint64_t)key - (uint64_t)base));
    }
    prefetch_leaf_columns(space, leaf, columns);
}

/* The arrays of `leaf`, not read yet, where the hint's leaf has its own
 * from it (a wrong guess costs a useless prefetch): its key offsets, with
 * the line of the offset of `key` if its keys [low, high) have no gaps,
 * and the columns in `columns`. Returns the key offsets' guessed ref (0:
 * none fetched). */
static int64_t prefetch_leaf_arrays_at(const space_state *space, const cluster_hint *hint, uint32_t columns,
                                       int64_t leaf, ce_object_key key, int64_t low, int64_t high)
{
    const cluster_leaf *last = &hint->leaf;
    if (!last->ref || ref_is_temporary(last->ref) || !node_value_is_ref(leaf) || ref_is_temporary((space_ref)leaf) ||
        last->slots.count < LEAF_FIRST_COLUMN)
        return 0;
    uint64_t shift = (uint64_t)leaf - (uint64_t)last->ref;
    int64_t offsets = node_get(&last->slots, LEAF_KEY_OFFSETS);
    if (!node_value_is_ref(offsets) || ref_is_temporary((space_ref)offsets)) return 0;
    offsets = (int64_t)((uint64_t)offsets + shift);
    node_prefetch_header(space, offsets);
    if (key >= low && (uint64_t)key - (uint64_t)low <= CLUSTER_LEAF_MAX) {
        uint64_t length = high > low ? (uint64_t)high - (uint64_t)low : 0;
        node_prefetch_at(space, offsets, key_offset_offset(length, (uint64_t)key - (uint64_t)low));
    }
    size_t end = last->slots.count < LEAF_FIRST_COLUMN + PREFETCH_LEAF_COLUMNS ? last->slots.count
                                                                              : LEAF_FIRST_COLUMN + PREFETCH_LEAF_COLUMNS;
    for (size_t slot = LEAF_FIRST_COLUMN; slot < end; slot++) {
        int64_t array = node_get(&last->slots, slot);
        if (!(columns & (1u << (slot - LEAF_FIRST_COLUMN))) || !node_value_is_ref(array) ||
            ref_is_temporary((space_ref)array))
            continue;
        node_prefetch_header(space, (int64_t)((uint64_t)array + shift));
    }
    return offsets;
}

/* Whether the hint's leaf may stand for a leaf of this table in this read. */
static bool hint_leaf_usable(const cluster_hint *hint, size_t column_count)
{
    return hint && hint->leaf.ref && hint->leaf.slots.count == LEAF_FIRST_COLUMN + column_count &&
           (hint->leaf.slots.flags & (NODE_INNER | NODE_HAS_REFS | NODE_BYTES)) == NODE_HAS_REFS;
}

/* Remembers `leaf` in the hint, with the position of its first object
 * (SIZE_MAX: not known, for a leaf found by key; the same leaf keeps the
 * position known before). */
static void remember_leaf(cluster_hint *hint, const cluster_leaf *leaf, size_t first_index)
{
    if (!hint) return;
    if (first_index == SIZE_MAX && hint->leaf.ref == leaf->ref) first_index = hint->leaf_first_index;
    hint->leaf = *leaf;
    hint->leaf_first_index = first_index;
}

bool cluster_find(const space_state *space, space_ref root, ce_object_key key, cluster_position *out_position,
                  bool *out_found, cluster_hint *hint)
{
    cluster_leaf leaf = {0};
    hint = hint_for_read(space, hint);
    key_span span;
    uint32_t columns = columns_to_fetch(hint);
    if (!descend_to_leaf(space, root, key, hint, columns, &leaf.ref, &leaf.slots, &span)) return false;
    prefetch_leaf(space, &leaf.slots, key, &span, columns);
    if (!leaf_keys_of(space, leaf.ref, &leaf.slots, &leaf.base_key, &leaf.key_offsets)) return false;
    int64_t base = leaf.base_key;
    size_t index = key >= base ? lower_bound(&leaf.key_offsets, key - base) : 0;
    *out_found = key >= base && index < leaf.key_offsets.count && node_get(&leaf.key_offsets, index) == key - base;
    out_position->leaf = leaf.ref;
    out_position->index = index;
    if (*out_found) remember_leaf(hint, &leaf, SIZE_MAX);
    return true;
}

bool cluster_key_at(const space_state *space, space_ref root, size_t index, cluster_hint *hint, ce_object_key *out_key)
{
    hint = hint_for_read(space, hint);
    /* Positions in a row (a Results iterated, every object updated) stay
     * in the leaf remembered last. */
    if (hint && hint->leaf.ref && hint->leaf_first_index != SIZE_MAX && index >= hint->leaf_first_index &&
        index - hint->leaf_first_index < hint->leaf.key_offsets.count) {
        *out_key = cluster_leaf_key(&hint->leaf, index - hint->leaf_first_index);
        return true;
    }
    space_ref ref = root;
    size_t first_index = 0; /* the position of the first object under ref */
    for (unsigned depth = 0; depth <= CLUSTER_MAX_DEPTH; depth++) {
        inner_view view;
        if (!node_read(space, ref, &view.node)) return false;
        if (!(view.node.flags & NODE_INNER)) {
            cluster_leaf leaf = {.ref = ref, .slots = view.node};
            if (!leaf_keys_of(space, ref, &leaf.slots, &leaf.base_key, &leaf.key_offsets)) return false;
            if (index >= leaf.key_offsets.count)
                return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "object index %zu is out of bounds", first_index + index);
            *out_key = cluster_leaf_key(&leaf, index);
            remember_leaf(hint, &leaf, first_index);
            return true;
        }
        /* (Positions need the counts, not the first keys.) */
        if (!check_inner_header(ref, &view) || !read_inner_counts(space, ref, &view)) return false;
        uint64_t inside = index;
        size_t child = node_find_run(&view.counts, view.children, &inside);
        first_index += index - (size_t)inside;
        index = (size_t)inside;
        if (child == view.children)
            return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "object index %zu is out of bounds", first_index + index);
        ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD + child);
    }
    return corrupt_cluster(root, "tree too deep");
}

/* Where `key` lies in a leaf: its index, if the leaf holds it. */
static bool leaf_index_of(const cluster_leaf *leaf, ce_object_key key, size_t *out_index)
{
    if (key < leaf->base_key) return false;
    /* A leaf without gaps holds each key at its offset. */
    if ((uint64_t)(key - leaf->base_key) < leaf->key_offsets.count &&
        node_get(&leaf->key_offsets, (size_t)(key - leaf->base_key)) == key - leaf->base_key) {
        *out_index = (size_t)(key - leaf->base_key);
        return true;
    }
    *out_index = lower_bound(&leaf->key_offsets, key - leaf->base_key);
    return *out_index < leaf->key_offsets.count && node_get(&leaf->key_offsets, *out_index) == key - leaf->base_key;
}

bool cluster_get(const space_state *space, space_ref root, const cluster_schema *schema, ce_object_key key, size_t column,
                 column_scratch *scratch, cluster_hint *hint, ce_value *out_value)
{
    const cluster_leaf *found;
    cluster_leaf leaf;
    size_t index;
    hint = hint_for_read(space, hint);
    if (hint_leaf_usable(hint, schema->column_count) && leaf_index_of(&hint->leaf, key, &index)) {
        found = &hint->leaf;
    } else {
        /* One descent, and the leaf read once. */
        key_span span;
        uint32_t columns = columns_to_fetch(hint);
        if (!descend_to_leaf(space, root, key, hint, columns, &leaf.ref, &leaf.slots, &span)) return false;
        prefetch_leaf(space, &leaf.slots, key, &span, columns);
        if (!check_leaf(space, leaf.ref, schema->column_count, &leaf)) return false;
        if (!leaf_index_of(&leaf, key, &index))
            return error_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld does not exist", (long long)key);
        remember_leaf(hint, &leaf, SIZE_MAX);
        found = &leaf;
    }
    if (hint && column < PREFETCH_LEAF_COLUMNS) hint->columns_read |= 1u << column;
    const cluster_column *spec = &schema->columns[column];
    return column_get(space, cluster_leaf_column(found, column), spec->type, spec->nullable, index, scratch,
                      out_value);
}

/* ------------------------------------------------------------------------ */
/* Changing (copy-on-write along the path to a leaf)                        */
/* ------------------------------------------------------------------------ */

typedef struct split_result {
    bool happened;
    space_ref right;
    int64_t right_first_key;
    size_t left_count, right_count;
} split_result;

/* Adds `delta` to every element of a plain integer node. */
static bool shift_offsets(space_state *space, space_ref *offsets, int64_t delta)
{
    if (!node_make_writable(space, offsets)) return false;
    node_view node;
    if (!node_read(space, *offsets, &node)) return false;
    for (size_t i = 0; i < node.count; i++) {
        if (!node_read(space, *offsets, &node)) return false;
        if (!node_set(space, *offsets, i, node_get(&node, i) + delta)) return false;
    }
    return true;
}

/* Moves objects [from, count) of a writable leaf into a new leaf. */
static bool split_leaf(space_state *space, space_ref leaf_ref, const cluster_schema *schema, size_t from,
                       split_result *out)
{
    cluster_leaf leaf;
    if (!read_leaf(space, leaf_ref, schema->column_count, &leaf)) return false;
    size_t count = leaf.key_offsets.count;
    int64_t right_base = leaf.base_key + node_get(&leaf.key_offsets, from);
    space_ref right, right_offsets;
    if (!node_create(space, NODE_HAS_REFS, LEAF_FIRST_COLUMN + schema->column_count, 0, &right)) return false;
    if (!node_create(space, 0, 0, 0, &right_offsets)) return false;
    space_ref offsets = (space_ref)node_get(&leaf.slots, LEAF_KEY_OFFSETS);
    for (size_t i = from; i < count; i++) {
        node_view view;
        if (!node_read(space, offsets, &view)) return false;
        if (!node_append(space, right_offsets, leaf.base_key + node_get(&view, i) - right_base)) return false;
    }
    if (!node_truncate(space, offsets, from)) return false;
    if (!node_set(space, right, LEAF_BASE_KEY, node_tag(right_base)) ||
        !node_set(space, right, LEAF_KEY_OFFSETS, (int64_t)right_offsets))
        return false;
    for (size_t c = 0; c < schema->column_count; c++) {
        const cluster_column *spec = &schema->columns[c];
        if (spec->type == CE_TYPE_NULL) continue;
        node_view slots;
        if (!node_read(space, leaf_ref, &slots)) return false;
        space_ref column = (space_ref)node_get(&slots, LEAF_FIRST_COLUMN + c), right_column;
        if (!column_split(space, &column, spec->type, spec->nullable, from, &right_column)) return false;
        if (!node_set(space, leaf_ref, LEAF_FIRST_COLUMN + c, (int64_t)column) ||
            !node_set(space, right, LEAF_FIRST_COLUMN + c, (int64_t)right_column))
            return false;
    }
    *out = (split_result){true, right, right_base, from, count - from};
    return true;
}

static bool insert_into_leaf(space_state *space, space_ref *leaf_ref, const cluster_schema *schema, ce_object_key key,
                             const ce_value *values, split_result *out)
{
    if (!node_make_writable(space, leaf_ref)) return false;
    cluster_leaf leaf;
    if (!read_leaf(space, *leaf_ref, schema->column_count, &leaf)) return false;
    space_ref offsets = (space_ref)node_get(&leaf.slots, LEAF_KEY_OFFSETS);
    size_t count = leaf.key_offsets.count;
    if (!node_make_writable(space, &offsets) || !node_set(space, *leaf_ref, LEAF_KEY_OFFSETS, (int64_t)offsets))
        return false;
    int64_t base = leaf.base_key;
    if (count == 0 || key < base) {
        /* The new key becomes the base: existing offsets grow by the difference. */
        if (count > 0 && !shift_offsets(space, &offsets, base - key)) return false;
        base = key;
        if (!node_set(space, *leaf_ref, LEAF_BASE_KEY, node_tag(base)) ||
            !node_set(space, *leaf_ref, LEAF_KEY_OFFSETS, (int64_t)offsets))
            return false;
    }
    node_view offsets_view;
    if (!node_read(space, offsets, &offsets_view)) return false;
    size_t position = lower_bound(&offsets_view, key - base);
    if (position < count && node_get(&offsets_view, position) == key - base)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "an object with key %lld exists already", (long long)key);
    if (!node_insert(space, offsets, position, key - base)) return false;
    for (size_t c = 0; c < schema->column_count; c++) {
        const cluster_column *spec = &schema->columns[c];
        if (spec->type == CE_TYPE_NULL) continue;
        node_view slots;
        if (!node_read(space, *leaf_ref, &slots)) return false;
        space_ref column = (space_ref)node_get(&slots, LEAF_FIRST_COLUMN + c);
        if (values ? !column_insert(space, &column, spec->type, spec->nullable, position, &values[c])
                   : !column_insert_default(space, &column, spec->type, spec->nullable, position))
            return false;
        if (!node_set(space, *leaf_ref, LEAF_FIRST_COLUMN + c, (int64_t)column)) return false;
    }
    out->happened = false;
    if (count + 1 <= CLUSTER_LEAF_MAX) return true;
    /* Full: split off just the new object when it went at the end (a table
     * filled in key order keeps full leaves), else half. */
    size_t from = position == count ? count : (count + 1) / 2;
    return split_leaf(space, *leaf_ref, schema, from, out);
}

/* Inserts (first key, count, child) at `at` in a writable inner node. */
static bool inner_insert_child(space_state *space, space_ref inner, size_t at, int64_t first_key, size_t count,
                               space_ref child)
{
    return tree_insert_child(space, inner, &INNER_LAYOUT, at, (int64_t[]){first_key, (int64_t)count}, child);
}

/* Updates child i's first key and count in a writable inner node. */
static bool inner_update_child(space_state *space, space_ref inner, size_t child, int64_t first_key, size_t count)
{
    node_view node;
    if (!node_read(space, inner, &node)) return false;
    space_ref keys = (space_ref)node_get(&node, INNER_FIRST_KEYS), counts = (space_ref)node_get(&node, INNER_COUNTS);
    if (!node_make_writable(space, &keys) || !node_make_writable(space, &counts)) return false;
    if (!node_set(space, keys, child, first_key) || !node_set(space, counts, child, (int64_t)count)) return false;
    return node_set(space, inner, INNER_FIRST_KEYS, (int64_t)keys) && node_set(space, inner, INNER_COUNTS, (int64_t)counts);
}

/* Moves children [from, n) of a writable inner node into a new inner node. */
static bool split_inner(space_state *space, space_ref inner, size_t from, split_result *out)
{
    inner_view view;
    if (!read_inner(space, inner, &view)) return false;
    size_t left_total = 0, right_total = 0;
    for (size_t i = 0; i < view.children; i++) {
        size_t count = (size_t)node_get(&view.counts, i);
        if (i < from) left_total += count;
        else right_total += count;
    }
    int64_t right_first_key = node_get(&view.first_keys, from);
    space_ref right;
    if (!tree_split_inner(space, inner, &INNER_LAYOUT, from, &right, NULL)) return false;
    *out = (split_result){true, right, right_first_key, left_total, right_total};
    return true;
}

static bool insert_into(space_state *space, space_ref *ref, const cluster_schema *schema, ce_object_key key,
                        const ce_value *values, unsigned depth, split_result *out)
{
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(*ref, "tree too deep");
    bool inner;
    if (!is_inner(space, *ref, &inner)) return false;
    if (!inner) return insert_into_leaf(space, ref, schema, key, values, out);
    if (!node_make_writable(space, ref)) return false;
    inner_view view;
    if (!read_inner(space, *ref, &view)) return false;
    size_t child = child_for_key(&view, key);
    space_ref child_ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD + child);
    int64_t first_key = node_get(&view.first_keys, child);
    size_t count = (size_t)node_get(&view.counts, child);
    split_result child_split;
    if (!insert_into(space, &child_ref, schema, key, values, depth + 1, &child_split)) return false;
    if (!node_set(space, *ref, INNER_FIRST_CHILD + child, (int64_t)child_ref)) return false;
    if (key < first_key) first_key = key;
    out->happened = false;
    if (!child_split.happened) return inner_update_child(space, *ref, child, first_key, count + 1);
    if (!inner_update_child(space, *ref, child, first_key, child_split.left_count) ||
        !inner_insert_child(space, *ref, child + 1, child_split.right_first_key, child_split.right_count,
                            child_split.right))
        return false;
    if (view.children + 1 <= CLUSTER_INNER_MAX) return true;
    size_t children = view.children + 1;
    size_t from = child + 2 == children ? children - 1 : children / 2;
    return split_inner(space, *ref, from, out);
}

/* A new root above the two halves of a root that split. */
static bool grow_root(space_state *space, space_ref *root, const split_result *split)
{
    ce_object_key first;
    if (!cluster_key_at(space, *root, 0, NULL, &first)) return false;
    return tree_grow_root(space, &INNER_LAYOUT, *root, (int64_t[]){first, (int64_t)split->left_count}, split->right,
                          (int64_t[]){split->right_first_key, (int64_t)split->right_count}, root);
}

bool cluster_insert(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key key,
                    const ce_value *values, cluster_hint *hint)
{
    cluster_hint_forget(hint);
    if (key < 0) return error_fail(CE_ERR_INVALID_ARGUMENT, "object keys are not negative (%lld)", (long long)key);
    split_result split;
    if (!insert_into(space, root, schema, key, values, 0, &split)) return false;
    return !split.happened || grow_root(space, root, &split);
}

/* ------------------------------------------------------------------------ */
/* Appending whole leaves                                                    */
/* ------------------------------------------------------------------------ */

/* The rightmost leaf: its number of objects and its last key (-1 if none). */
static bool rightmost_leaf(const space_state *space, space_ref root, size_t *out_count, int64_t *out_last_key)
{
    space_ref ref = root;
    for (unsigned depth = 0;; depth++) {
        if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(root, "tree too deep");
        bool inner;
        if (!is_inner(space, ref, &inner)) return false;
        if (!inner) break;
        inner_view view;
        if (!read_inner(space, ref, &view)) return false;
        ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD + view.children - 1);
    }
    int64_t base;
    node_view offsets;
    if (!read_leaf_keys(space, ref, &base, &offsets)) return false;
    *out_count = offsets.count;
    *out_last_key = offsets.count ? base + node_get(&offsets, offsets.count - 1) : -1;
    return true;
}

/* A new leaf of `count` objects with consecutive keys from first_key;
 * column c's values are values[c * stride + i]. */
static bool build_leaf(space_state *space, const cluster_schema *schema, ce_object_key first_key, size_t count,
                       const ce_value *values, size_t stride, space_ref *out_leaf)
{
    int64_t offsets[CLUSTER_LEAF_MAX];
    for (size_t i = 0; i < count; i++) offsets[i] = (int64_t)i;
    space_ref leaf, offsets_ref;
    if (!node_create(space, NODE_HAS_REFS, LEAF_FIRST_COLUMN + schema->column_count, 0, &leaf) ||
        !node_create_from(space, 0, offsets, count, &offsets_ref) ||
        !node_set(space, leaf, LEAF_BASE_KEY, node_tag(first_key)) ||
        !node_set(space, leaf, LEAF_KEY_OFFSETS, (int64_t)offsets_ref))
        return false;
    for (size_t c = 0; c < schema->column_count; c++) {
        const cluster_column *spec = &schema->columns[c];
        if (spec->type == CE_TYPE_NULL) continue;
        space_ref column;
        if (!column_create_from_values(space, spec->type, spec->nullable, values + c * stride, count, &column) ||
            !node_set(space, leaf, LEAF_FIRST_COLUMN + c, (int64_t)column))
            return false;
    }
    *out_leaf = leaf;
    return true;
}

/* Adds a leaf after the last one, splitting inner nodes on the way up as
 * an insert would. The last leaf itself, of `last_count` objects (the
 * caller read it), is left as it is. */
static bool append_leaf_into(space_state *space, space_ref *ref, space_ref leaf, ce_object_key first_key, size_t count,
                             size_t last_count, unsigned depth, split_result *out)
{
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(*ref, "tree too deep");
    bool inner;
    if (!is_inner(space, *ref, &inner)) return false;
    if (!inner) {
        *out = (split_result){true, leaf, first_key, last_count, count};
        return true;
    }
    if (!node_make_writable(space, ref)) return false;
    inner_view view;
    if (!read_inner(space, *ref, &view)) return false;
    size_t child = view.children - 1;
    space_ref child_ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD + child);
    int64_t child_first_key = node_get(&view.first_keys, child);
    size_t child_count = (size_t)node_get(&view.counts, child);
    split_result child_split;
    if (!append_leaf_into(space, &child_ref, leaf, first_key, count, last_count, depth + 1, &child_split) ||
        !node_set(space, *ref, INNER_FIRST_CHILD + child, (int64_t)child_ref))
        return false;
    out->happened = false;
    if (!child_split.happened) return inner_update_child(space, *ref, child, child_first_key, child_count + count);
    if (!inner_update_child(space, *ref, child, child_first_key, child_split.left_count) ||
        !inner_insert_child(space, *ref, child + 1, child_split.right_first_key, child_split.right_count,
                            child_split.right))
        return false;
    if (view.children + 1 <= CLUSTER_INNER_MAX) return true;
    return split_inner(space, *ref, view.children, out);
}

bool cluster_append_objects(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key first_key,
                            size_t count, const ce_value *values, cluster_hint *hint)
{
    cluster_hint_forget(hint);
    size_t last_count = 0;
    int64_t last_key = -1;
    if (count == 0) return true;
    if (!rightmost_leaf(space, *root, &last_count, &last_key)) return false;
    if (first_key <= last_key || first_key < 0 || (uint64_t)first_key + count > (uint64_t)INT64_MAX)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "appended keys must follow the last key (%lld), not start at %lld",
                       (long long)last_key, (long long)first_key);
    size_t done = 0;
    /* A last leaf with room is filled first, object by object, so that
     * appends in several transactions still leave full leaves. */
    if (last_count > 0 && last_count < CLUSTER_LEAF_MAX) {
        ce_value *row = malloc((schema->column_count + 1) * sizeof *row);
        if (!row) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory appending objects");
        bool ok = true;
        for (; ok && done < count && last_count + done < CLUSTER_LEAF_MAX; done++) {
            for (size_t c = 0; c < schema->column_count; c++) row[c] = values[c * count + done];
            ok = cluster_insert(space, root, schema, first_key + (int64_t)done, row, hint);
        }
        free(row);
        if (!ok) return false;
        last_count += done; /* full now, unless the objects ran out */
    }
    while (done < count) {
        size_t batch = count - done < CLUSTER_LEAF_MAX ? count - done : CLUSTER_LEAF_MAX;
        space_ref leaf;
        if (!build_leaf(space, schema, first_key + (int64_t)done, batch, values + done, count, &leaf)) return false;
        if (last_count == 0) {
            /* The empty root leaf of an empty table gives way. */
            if (!node_free_tree(space, *root)) return false;
            *root = leaf;
        } else {
            split_result split;
            if (!append_leaf_into(space, root, leaf, first_key + (int64_t)done, batch, last_count, 0, &split) ||
                (split.happened && !grow_root(space, root, &split)))
                return false;
        }
        last_count = batch;
        done += batch;
    }
    return true;
}

/* Erases `key` below `ref`. On return *out_count is the subtree's new object
 * count and *out_first_key its new first key (when the count is not 0). */
static bool erase_from(space_state *space, space_ref *ref, const cluster_schema *schema, ce_object_key key, unsigned depth,
                       size_t *out_count, int64_t *out_first_key)
{
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(*ref, "tree too deep");
    bool inner;
    if (!is_inner(space, *ref, &inner)) return false;
    if (!node_make_writable(space, ref)) return false;
    if (!inner) {
        cluster_leaf leaf;
        if (!read_leaf(space, *ref, schema->column_count, &leaf)) return false;
        size_t count = leaf.key_offsets.count;
        size_t position = key >= leaf.base_key ? lower_bound(&leaf.key_offsets, key - leaf.base_key) : count;
        if (position >= count || node_get(&leaf.key_offsets, position) != key - leaf.base_key)
            return error_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld does not exist", (long long)key);
        space_ref offsets = (space_ref)node_get(&leaf.slots, LEAF_KEY_OFFSETS);
        if (!node_make_writable(space, &offsets) || !node_erase(space, offsets, position) ||
            !node_set(space, *ref, LEAF_KEY_OFFSETS, (int64_t)offsets))
            return false;
        for (size_t c = 0; c < schema->column_count; c++) {
            const cluster_column *spec = &schema->columns[c];
            if (spec->type == CE_TYPE_NULL) continue;
            node_view slots;
            if (!node_read(space, *ref, &slots)) return false;
            space_ref column = (space_ref)node_get(&slots, LEAF_FIRST_COLUMN + c);
            if (!column_erase(space, &column, spec->type, spec->nullable, position)) return false;
            if (!node_set(space, *ref, LEAF_FIRST_COLUMN + c, (int64_t)column)) return false;
        }
        *out_count = count - 1;
        if (count > 1) {
            node_view view;
            if (!node_read(space, offsets, &view)) return false;
            *out_first_key = leaf.base_key + node_get(&view, 0);
        }
        return true;
    }
    inner_view view;
    if (!read_inner(space, *ref, &view)) return false;
    size_t child = child_for_key(&view, key);
    space_ref child_ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD + child);
    size_t child_count = 0;
    int64_t child_first = 0;
    if (!erase_from(space, &child_ref, schema, key, depth + 1, &child_count, &child_first)) return false;
    if (!node_set(space, *ref, INNER_FIRST_CHILD + child, (int64_t)child_ref)) return false;
    if (child_count == 0 && view.children > 1) {
        /* The child emptied: drop it (its empty column arrays with it). */
        if (!node_free_tree(space, child_ref)) return false;
        space_ref keys = (space_ref)node_get(&view.node, INNER_FIRST_KEYS), counts = (space_ref)node_get(&view.node, INNER_COUNTS);
        if (!node_make_writable(space, &keys) || !node_make_writable(space, &counts) ||
            !node_erase(space, keys, child) || !node_erase(space, counts, child) ||
            !node_set(space, *ref, INNER_FIRST_KEYS, (int64_t)keys) || !node_set(space, *ref, INNER_COUNTS, (int64_t)counts) ||
            !node_erase(space, *ref, INNER_FIRST_CHILD + child))
            return false;
    } else if (!inner_update_child(space, *ref, child, child_count ? child_first : node_get(&view.first_keys, child),
                                   child_count)) {
        return false;
    }
    if (!read_inner(space, *ref, &view)) return false;
    size_t total = 0;
    for (size_t i = 0; i < view.children; i++) total += (size_t)node_get(&view.counts, i);
    *out_count = total;
    *out_first_key = node_get(&view.first_keys, 0);
    return true;
}

bool cluster_erase(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key key,
                   cluster_hint *hint)
{
    cluster_hint_forget(hint);
    size_t count;
    int64_t first_key;
    if (!erase_from(space, root, schema, key, 0, &count, &first_key)) return false;
    for (;;) { /* a root with one child gives way to it */
        bool inner;
        if (!is_inner(space, *root, &inner)) return false;
        if (!inner) return true;
        inner_view view;
        if (!read_inner(space, *root, &view)) return false;
        if (view.children != 1) return true;
        space_ref only_child = (space_ref)node_get(&view.node, INNER_FIRST_CHILD);
        if (!node_free(space, (space_ref)node_get(&view.node, INNER_FIRST_KEYS)) ||
            !node_free(space, (space_ref)node_get(&view.node, INNER_COUNTS)) || !node_free(space, *root))
            return false;
        *root = only_child;
    }
}

/* Makes the path to `key`'s leaf writable and returns the leaf; *out_found
 * false (and nothing copied) when the leaf does not hold `key`. The nodes
 * are copied from the leaf up, once the key is found: a set of a missing
 * object must change nothing, and copying a node frees its committed bytes
 * while its parent may still name them until the parent is copied too. */
static bool writable_leaf(space_state *space, space_ref *ref, ce_object_key key, unsigned depth, space_ref *out_leaf,
                          bool *out_found)
{
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(*ref, "tree too deep");
    inner_view view;
    if (!node_read(space, *ref, &view.node)) return false;
    if (!(view.node.flags & NODE_INNER)) {
        int64_t base;
        node_view offsets;
        if (!leaf_keys_of(space, *ref, &view.node, &base, &offsets)) return false;
        size_t position = key >= base ? lower_bound(&offsets, key - base) : offsets.count;
        *out_found = position < offsets.count && node_get(&offsets, position) == key - base;
        if (!*out_found) return true;
        if (!node_make_writable(space, ref)) return false;
        *out_leaf = *ref;
        return true;
    }
    if (!check_inner_keys(space, *ref, &view)) return false;
    size_t child = child_for_key(&view, key);
    space_ref child_ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD + child), before = child_ref;
    if (!writable_leaf(space, &child_ref, key, depth + 1, out_leaf, out_found)) return false;
    if (!*out_found) return true;
    /* A child made writable before keeps its (temporary) ref. */
    return node_make_writable(space, ref) &&
           (child_ref == before || node_set(space, *ref, INNER_FIRST_CHILD + child, (int64_t)child_ref));
}

bool cluster_set(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key key, size_t column,
                 const ce_value *value, cluster_hint *hint)
{
    cluster_leaf copied;
    const cluster_leaf *leaf = &copied;
    size_t position, first_index = SIZE_MAX;
    hint = hint_for_read(space, hint);
    bool remembered = hint_leaf_usable(hint, schema->column_count) && leaf_index_of(&hint->leaf, key, &position);
    if (remembered && ref_is_temporary(hint->leaf.ref)) {
        /* A leaf this transaction copied: its path to the root is copied
         * too (writable_leaf copies from the leaf up), so nothing above it
         * changes. */
        leaf = &hint->leaf;
    } else {
        if (remembered) first_index = hint->leaf_first_index; /* the same objects, once copied */
        space_ref leaf_ref = 0;
        bool found;
        if (!writable_leaf(space, root, key, 0, &leaf_ref, &found)) return false;
        if (!found) return error_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld does not exist", (long long)key);
        if (!read_leaf(space, leaf_ref, schema->column_count, &copied)) return false;
        if (!leaf_index_of(&copied, key, &position))
            return error_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld does not exist", (long long)key);
        if (hint) {
            /* The copy changed the inner nodes on the path (their children's
             * refs): the root's views go; the copied leaf is remembered. */
            hint->root = 0;
            remember_leaf(hint, &copied, first_index);
        }
    }
    const cluster_column *spec = &schema->columns[column];
    space_ref leaf_ref = leaf->ref, column_ref = cluster_leaf_column(leaf, column), before = column_ref;
    bool done;
    if (!column_set_in_place(space, column_ref, spec->type, spec->nullable, position, value, &done)) return false;
    if (done) return true;
    if (!column_set(space, &column_ref, spec->type, spec->nullable, position, value)) return false;
    if (column_ref == before) return true;
    if (!node_set(space, leaf_ref, LEAF_FIRST_COLUMN + column, (int64_t)column_ref)) return false;
    /* The leaf's node changed (and may have moved, if it widened): the
     * hint's view of it is read again. */
    if (hint && hint->leaf.ref == leaf_ref && !node_read(space, leaf_ref, &hint->leaf.slots)) return false;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Columns and leaves                                                        */
/* ------------------------------------------------------------------------ */

/* Applies `change` to every leaf, copy-on-write. */
typedef bool (*leaf_change)(space_state *space, space_ref leaf, const cluster_schema *schema, size_t column);

static bool change_every_leaf(space_state *space, space_ref *ref, const cluster_schema *schema, size_t column,
                              leaf_change change, unsigned depth)
{
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(*ref, "tree too deep");
    bool inner;
    if (!is_inner(space, *ref, &inner)) return false;
    if (!node_make_writable(space, ref)) return false;
    if (!inner) return change(space, *ref, schema, column);
    inner_view view;
    if (!read_inner(space, *ref, &view)) return false;
    for (size_t i = 0; i < view.children; i++) {
        node_view node;
        if (!node_read(space, *ref, &node)) return false;
        space_ref child = (space_ref)node_get(&node, INNER_FIRST_CHILD + i);
        if (!change_every_leaf(space, &child, schema, column, change, depth + 1)) return false;
        if (!node_set(space, *ref, INNER_FIRST_CHILD + i, (int64_t)child)) return false;
    }
    return true;
}

static bool add_column_to_leaf(space_state *space, space_ref leaf, const cluster_schema *schema, size_t column)
{
    node_view slots, offsets;
    if (!node_read(space, leaf, &slots)) return false;
    if (slots.count != LEAF_FIRST_COLUMN + column) return corrupt_cluster(leaf, "column count disagrees");
    if (!read_plain(space, (space_ref)node_get(&slots, LEAF_KEY_OFFSETS), &offsets)) return false;
    space_ref array = 0;
    const cluster_column *spec = &schema->columns[column];
    if (spec->type != CE_TYPE_NULL && !column_create(space, spec->type, spec->nullable, offsets.count, &array))
        return false;
    return node_append(space, leaf, (int64_t)array);
}

static bool remove_column_from_leaf(space_state *space, space_ref leaf, const cluster_schema *schema, size_t column)
{
    (void)schema;
    node_view slots;
    if (!node_read(space, leaf, &slots)) return false;
    int64_t array = node_get(&slots, LEAF_FIRST_COLUMN + column);
    if (node_value_is_ref(array) && !column_destroy(space, (space_ref)array)) return false;
    return node_set(space, leaf, LEAF_FIRST_COLUMN + column, 0);
}

bool cluster_add_column(space_state *space, space_ref *root, const cluster_schema *schema, size_t column,
                        cluster_hint *hint)
{
    cluster_hint_forget(hint);
    return change_every_leaf(space, root, schema, column, add_column_to_leaf, 0);
}

bool cluster_remove_column(space_state *space, space_ref *root, const cluster_schema *schema, size_t column,
                           cluster_hint *hint)
{
    cluster_hint_forget(hint);
    return change_every_leaf(space, root, schema, column, remove_column_from_leaf, 0);
}

/* Scans are bound by memory latency: the leaves of an inner node lie apart,
 * the hardware cannot guess the next one, and each step inside a leaf (its
 * key offsets, the array of the column read) is a read that depends on the
 * one before. So while child i is visited, child i + 3k gets its node
 * prefetched, child i + 2k (whose node is in cache by then) its key offsets
 * and the header of the column read, and child i + k that column's values.
 * These are hints: only committed refs inside the version are touched, what
 * is read is never trusted for anything else, and nothing here can fail or
 * change the last error. */
#define VISIT_PREFETCH_AHEAD 2

/* A view of the node whose header is at `bytes` (in cache), or false if the
 * header is not plausible; only for prefetching: nothing checked it. */
static bool prefetch_view(const uint8_t *bytes, node_view *out)
{
    uint8_t code = bytes[1];
    uint32_t count;
    memcpy(&count, bytes + 4, 4);
    if (code > 7) return false;
    bool based = (bytes[0] & NODE_BASED) != 0; /* a based node's base (not read here) precedes its payload */
    *out = (node_view){.payload = bytes + NODE_HEADER_SIZE + (based ? NODE_BASE_SIZE : 0), .based = based,
                     .count = count, .flags = bytes[0], .width = (uint8_t)(code ? 1u << (code - 1) : 0)};
    return true;
}

typedef enum prefetch_stage { PREFETCH_NODE, PREFETCH_HEADERS, PREFETCH_VALUES } prefetch_stage;

static void prefetch_child(const space_state *space, const inner_view *view, size_t child, size_t read_column,
                           prefetch_stage stage)
{
    if (child >= view->children) return;
    int64_t child_ref = node_get(&view->node, INNER_FIRST_CHILD + child);
    if (stage == PREFETCH_NODE) {
        node_prefetch_header(space, child_ref);
        return;
    }
    /* Later stages read the leaf's header and slots: through the barrier. */
    const uint8_t *bytes = node_prefetchable(space, child_ref, NODE_HEADER_SIZE + 16);
    if (!bytes) return;
    node_view leaf;
    if (!prefetch_view(bytes, &leaf) || !(leaf.flags & NODE_HAS_REFS) || (leaf.flags & NODE_INNER) ||
        leaf.count <= LEAF_KEY_OFFSETS)
        return;
    /* Element 1 (the key offsets' ref) lies in the 16 bytes after the
     * header at any width; the column's slot may not: check it is there. */
    bool has_column = read_column != CLUSTER_NO_COLUMN && read_column < leaf.count - LEAF_FIRST_COLUMN &&
                      node_size_for(leaf.width, LEAF_FIRST_COLUMN + read_column + 1) <=
                          space->logical_size - (uint64_t)(bytes - space->base);
    if (stage == PREFETCH_HEADERS) {
        node_prefetch_header(space, node_get(&leaf, LEAF_KEY_OFFSETS));
        if (has_column) node_prefetch_header(space, node_get(&leaf, LEAF_FIRST_COLUMN + read_column));
        return;
    }
    /* The values: the column's header is read to size them. */
    const uint8_t *column = has_column ? node_prefetchable(space, node_get(&leaf, LEAF_FIRST_COLUMN + read_column),
                                                      NODE_HEADER_SIZE)
                                       : NULL;
    node_view values;
    if (!column || !prefetch_view(column, &values)) return;
    uint64_t size = node_size(&values);
    if (size > space->logical_size - (uint64_t)(column - space->base) || size > 64 * 1024) return;
    prefetch_lines(column + 64, size > 64 ? (size_t)size - 64 : 0); /* the header's line came at PREFETCH_HEADERS */
}

static bool visit_leaves(const space_state *space, space_ref ref, size_t column_count, size_t read_column,
                         size_t *first_index, unsigned depth, cluster_leaf_visitor visit, void *context, bool *stop,
                         uint64_t *visited_bytes)
{
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(ref, "tree too deep");
    /* Each node is read once: visitors read the tree, they never change it. */
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (!(node.flags & NODE_INNER)) {
        cluster_leaf leaf;
        leaf.slots = node;
        if (!check_leaf(space, ref, column_count, &leaf)) return false;
        if (!node_charge_visit(space, ref, &leaf.slots, visited_bytes)) return false;
        leaf.first_index = *first_index;
        if (!visit(context, &leaf, stop)) return false;
        *first_index += leaf.key_offsets.count;
        return true;
    }
    inner_view view;
    view.node = node;
    if (!check_inner(space, ref, &view)) return false;
    if (!node_charge_visit(space, ref, &view.node, visited_bytes)) return false;
    for (size_t i = 0; i < view.children && !*stop; i++) {
        prefetch_child(space, &view, i + 3 * VISIT_PREFETCH_AHEAD, read_column, PREFETCH_NODE);
        prefetch_child(space, &view, i + 2 * VISIT_PREFETCH_AHEAD, read_column, PREFETCH_HEADERS);
        prefetch_child(space, &view, i + VISIT_PREFETCH_AHEAD, read_column, PREFETCH_VALUES);
        if (!visit_leaves(space, (space_ref)node_get(&view.node, INNER_FIRST_CHILD + i), column_count, read_column,
                          first_index, depth + 1, visit, context, stop, visited_bytes))
            return false;
    }
    return true;
}

bool cluster_for_each_leaf(const space_state *space, space_ref root, size_t read_column, cluster_leaf_visitor visit,
                           void *context)
{
    /* The column count is read from the first leaf's own size: visitors get
     * every slot; read_leaf checks all leaves agree. */
    space_ref ref = root;
    size_t column_count = 0;
    for (unsigned depth = 0; depth <= CLUSTER_MAX_DEPTH; depth++) {
        bool inner;
        if (!is_inner(space, ref, &inner)) return false;
        if (!inner) {
            node_view leaf;
            if (!node_read(space, ref, &leaf)) return false;
            if (leaf.count < LEAF_FIRST_COLUMN) return corrupt_cluster(ref, "bad leaf header");
            column_count = leaf.count - LEAF_FIRST_COLUMN;
            break;
        }
        inner_view view;
        if (!read_inner(space, ref, &view)) return false;
        ref = (space_ref)node_get(&view.node, INNER_FIRST_CHILD);
    }
    size_t first_index = 0;
    bool stop = false;
    uint64_t visited_bytes = 0;
    return visit_leaves(space, root, column_count, read_column, &first_index, 0, visit, context, &stop,
                        &visited_bytes);
}

/* ------------------------------------------------------------------------ */
/* One leaf by its ref (objects the query layer found through an index)     */
/* ------------------------------------------------------------------------ */

bool cluster_leaf_at(const space_state *space, space_ref leaf_ref, size_t column_count, cluster_leaf *out)
{
    if (!read_leaf(space, leaf_ref, column_count, out)) return false;
    out->first_index = SIZE_MAX; /* unknown without a walk from the root */
    return true;
}

/* ------------------------------------------------------------------------ */
/* Two versions of a tree (a change computation)                            */
/* ------------------------------------------------------------------------ */

typedef struct leaf_run {
    space_ref *refs;
    size_t count, capacity;
} leaf_run;

/* Appends the leaves below `ref` (0: none) to `run`, in key order. */
static bool collect_leaves(const space_state *space, space_ref ref, unsigned depth, leaf_run *run)
{
    if (ref == 0) return true;
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(ref, "tree too deep");
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (!(node.flags & NODE_INNER)) {
        if (!buf_reserve((void **)&run->refs, &run->capacity, run->count + 1, sizeof *run->refs)) return false;
        run->refs[run->count++] = ref;
        return true;
    }
    inner_view view = {.node = node};
    if (!check_inner_header(ref, &view)) return false;
    for (size_t i = 0; i < view.children; i++)
        if (!collect_leaves(space, (space_ref)node_get(&view.node, INNER_FIRST_CHILD + i), depth + 1, run)) return false;
    return true;
}

typedef struct tree_diff {
    const space_state *old_space, *new_space;
    cluster_diff_visitor visit;
    void *context;
    leaf_run old_run, new_run;
} tree_diff;

static bool diff_nodes(tree_diff *diff, space_ref old_ref, space_ref new_ref, unsigned depth)
{
    if (old_ref == new_ref) return true;
    if (depth > CLUSTER_MAX_DEPTH) return corrupt_cluster(new_ref, "tree too deep");
    if (old_ref != 0 && new_ref != 0) {
        inner_view old_view, new_view;
        if (!node_read(diff->old_space, old_ref, &old_view.node) || !node_read(diff->new_space, new_ref, &new_view.node))
            return false;
        if ((old_view.node.flags & NODE_INNER) && (new_view.node.flags & NODE_INNER)) {
            if (!check_inner_keys(diff->old_space, old_ref, &old_view) ||
                !check_inner_keys(diff->new_space, new_ref, &new_view))
                return false;
            bool aligned = old_view.children == new_view.children;
            for (size_t i = 0; aligned && i < old_view.children; i++)
                aligned = node_get(&old_view.first_keys, i) == node_get(&new_view.first_keys, i);
            if (aligned) {
                for (size_t i = 0; i < old_view.children; i++)
                    if (!diff_nodes(diff, (space_ref)node_get(&old_view.node, INNER_FIRST_CHILD + i),
                                    (space_ref)node_get(&new_view.node, INNER_FIRST_CHILD + i), depth + 1))
                        return false;
                return true;
            }
        }
    }
    diff->old_run.count = diff->new_run.count = 0;
    return collect_leaves(diff->old_space, old_ref, depth, &diff->old_run) &&
           collect_leaves(diff->new_space, new_ref, depth, &diff->new_run) &&
           diff->visit(diff->context, diff->old_run.refs, diff->old_run.count, diff->new_run.refs, diff->new_run.count);
}

bool cluster_diff(const space_state *old_space, space_ref old_root, const space_state *new_space, space_ref new_root,
                  cluster_diff_visitor visit, void *context)
{
    tree_diff diff = {old_space, new_space, visit, context, {NULL, 0, 0}, {NULL, 0, 0}};
    bool ok = diff_nodes(&diff, old_root, new_root, 0);
    free(diff.old_run.refs);
    free(diff.new_run.refs);
    return ok;
}
