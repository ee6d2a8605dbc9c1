/*
 * cluster.h — the objects of one table, stored column by column.
 *
 * Owns: the cluster tree: a B+tree keyed by object key whose leaves
 * ("clusters") hold up to CLUSTER_LEAF_MAX objects as one column array per
 * property (column.h), so that a query reads a property as a packed array.
 * Never: knows property names, primary keys or links (schema.c,
 * object_index.c and links.c do), and never interprets a column array
 * itself (column.c does).
 *
 * Leaf (NODE_HAS_REFS):
 *   [0] tagged base key
 *   [1] ref of an integer node: each object's key minus the base, ascending
 *   [2 + c] ref of the column array of column c (0: a removed column)
 * Inner (NODE_INNER | NODE_HAS_REFS):
 *   [0] ref of an integer node: the first key of each child
 *   [1] ref of an integer node: the number of objects under each child
 *   [2 + i] ref of child i
 */
#ifndef CE_CLUSTER_H
#define CE_CLUSTER_H

#include "cengine.h"
#include "column.h"
#include "node.h"

#define CLUSTER_LEAF_MAX 256
#define CLUSTER_INNER_MAX 256
#define CLUSTER_MAX_DEPTH 16

/* The columns of a table as the cluster tree needs them: their types, in
 * column order. A removed column has type CE_TYPE_NULL. */
typedef struct cluster_column {
    ce_type type;
    bool nullable;
} cluster_column;

typedef struct cluster_schema {
    const cluster_column *columns;
    size_t column_count;
} cluster_schema;

/* Where an object lives: its leaf and its position in the leaf. */
typedef struct cluster_position {
    space_ref leaf;
    size_t index;
} cluster_position;

/* Remembers a tree's last access (see below). */
typedef struct cluster_hint cluster_hint;

bool cluster_create(space_state *space, const cluster_schema *schema, space_ref *out_root);

/* Frees the tree and every column array in it (and forgets `hint`, the
 * tree's hint or NULL, see cluster_hint). */
bool cluster_destroy(space_state *space, space_ref root, cluster_hint *hint);

bool cluster_count(const space_state *space, space_ref root, size_t *out_count);

/* What a transaction remembers of its last access to one table: the root
 * (when it is an inner node) and the leaf where the access ended, both read
 * and checked already, with the position of the leaf's first object when it
 * is known. The next lookup starts below the root, and one in the same leaf
 * (another property of the object, the object just found by its primary
 * key, the next position of a loop) reads no node of the tree at all.
 *
 * Read transactions: valid while the transaction reads the same snapshot
 * with the same read epoch, which keep every node it read in place (see
 * space.h); the caller drops it when the snapshot changes.
 *
 * Write transactions: the hint follows the tree as it changes, which is why
 * every call below that changes a tree takes the tree's hint (the one the
 * table layer keeps for that table, or NULL when it keeps none). A change of
 * one value (cluster_set) keeps it: it remembers the leaf it changed, and a
 * leaf this transaction copied already (its path to the root is then copied
 * too) is changed where it lies, with no descent and no copy. Every change
 * of the tree's structure (an insert, an append, an erase, a split, a root
 * that grows or shrinks, a column added or removed, the tree destroyed)
 * forgets it first, with cluster_hint_forget: the positions, the leaves and
 * the nodes it names may all have moved or been freed.
 *
 * Zeroed: empty. (struct cluster_hint is defined below.) */

/* Finds the leaf and position of `key`; *out_found is false if it is
 * absent. `hint` (or NULL) remembers the leaf when the object is found. */
bool cluster_find(const space_state *space, space_ref root, ce_object_key key, cluster_position *out_position,
                  bool *out_found, cluster_hint *hint);

/* The key of the object at `index` in key order. `hint` (or NULL): its
 * leaf answers positions in the same leaf, and the leaf found is
 * remembered with its first position. */
bool cluster_key_at(const space_state *space, space_ref root, size_t index, cluster_hint *hint, ce_object_key *out_key);

/* Inserts an object; a key that exists is an error. `values`: NULL for
 * default values, else one value per column (removed columns' ignored),
 * already checked against the columns' types by the caller. */
bool cluster_insert(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key key,
                    const ce_value *values, cluster_hint *hint);

/* Appends `count` objects with the keys first_key, first_key + 1, ...,
 * all above the table's last key: whole leaves are built at once (a last
 * leaf with room is filled first). Column c's values are
 * values[c * count + i], checked by the caller as for cluster_insert. */
bool cluster_append_objects(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key first_key,
                            size_t count, const ce_value *values, cluster_hint *hint);

/* Removes an object and its values. */
bool cluster_erase(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key key,
                   cluster_hint *hint);

/* Reads a value; a compressed string or binary is decompressed into
 * `scratch` (see column.h), valid until the next read with it.
 * `hint` (NULL for none, see cluster_hint): when the object is in the
 * leaf it remembers there is no descent and no node is read but the
 * value's; on return it remembers the leaf that held the object. */
bool cluster_get(const space_state *space, space_ref root, const cluster_schema *schema, ce_object_key key,
                 size_t column, column_scratch *scratch, cluster_hint *hint, ce_value *out_value);

/* Replaces a value. `hint` (the tree's, or NULL; see cluster_hint): a leaf
 * it remembers that this transaction copied already is changed in place;
 * on return it remembers the leaf changed. */
bool cluster_set(space_state *space, space_ref *root, const cluster_schema *schema, ce_object_key key, size_t column,
                 const ce_value *value, cluster_hint *hint);

/* Adds column `column` (== the schema's last column) to every leaf, with
 * default values; removes one from every leaf, freeing its arrays. */
bool cluster_add_column(space_state *space, space_ref *root, const cluster_schema *schema, size_t column,
                        cluster_hint *hint);
bool cluster_remove_column(space_state *space, space_ref *root, const cluster_schema *schema, size_t column,
                           cluster_hint *hint);

/* A leaf as visitors see it. */
typedef struct cluster_leaf {
    space_ref ref;
    int64_t base_key;
    node_view key_offsets; /* count = objects in the leaf */
    node_view slots;       /* the leaf node: slot 2 + c holds column c */
    size_t first_index;  /* position of the leaf's first object in the table */
} cluster_leaf;

/* The shape of an inner node a lookup read (children 0: none). */
typedef struct cluster_inner_shape {
    uint16_t children;
    uint8_t width;      /* bits per element */
    int64_t keys_delta; /* its first keys' ref less its own (0: not known) */
} cluster_inner_shape;

#define CLUSTER_HINT_SHAPES 8

struct cluster_hint {
    uint64_t read_epoch;
    cluster_leaf leaf;        /* leaf.ref == 0: none remembered */
    size_t leaf_first_index;  /* the position of its first object; SIZE_MAX: not known */
    space_ref root;              /* 0: none remembered */
    node_view root_node, root_first_keys;
    /* Per depth, the last inner node read there: where the next lookup's
     * child ref probably lies, fetched before that node's header arrives
     * (a prefetch only; nothing is read from it). */
    cluster_inner_shape shapes[CLUSTER_HINT_SHAPES];
    /* The depth of the last leaf a descent reached (0: none): the leaves of
     * a table that grew in key order lie alike (node.c places each right
     * after its arrays), so the next lookup fetches the arrays of the leaf
     * it descends to where `leaf`'s lay from it, together with the leaf (a
     * prefetch only). */
    unsigned leaf_depth;
    /* The columns (of the first 8) read since the last descent (bit c:
     * column c): the arrays the next descent fetches with its leaf (0: all
     * of them). */
    uint32_t columns_read;
};

/* Forgets everything a hint remembers (NULL: nothing to forget). Every
 * change of a tree's structure calls it, before it changes anything. */
static inline void cluster_hint_forget(cluster_hint *hint)
{
    if (hint) *hint = (cluster_hint){.read_epoch = hint->read_epoch};
}

/* Column c's array in a visited leaf (0 for a removed column). */
static inline space_ref cluster_leaf_column(const cluster_leaf *leaf, size_t column)
{
    return (space_ref)node_get(&leaf->slots, 2 + column);
}

/* The ref of a visited leaf's key offsets (two leaves with the same one,
 * and the same base key, hold the same keys). */
static inline space_ref cluster_leaf_keys(const cluster_leaf *leaf) { return (space_ref)node_get(&leaf->slots, 1); }

static inline ce_object_key cluster_leaf_key(const cluster_leaf *leaf, size_t index)
{
    return leaf->base_key + node_get(&leaf->key_offsets, index);
}

/* Calls `visit` for each leaf in key order; stops early if it sets *stop.
 * The visitor must not change the tree (each node is read once). The
 * arrays of `read_column` (CLUSTER_NO_COLUMN: none), the column the visitor
 * reads, are prefetched a few leaves ahead with the leaves themselves. */
typedef bool (*cluster_leaf_visitor)(void *context, const cluster_leaf *leaf, bool *stop);
#define CLUSTER_NO_COLUMN SIZE_MAX
bool cluster_for_each_leaf(const space_state *space, space_ref root, size_t read_column, cluster_leaf_visitor visit,
                           void *context);

/* The leaf at `leaf_ref` (a cluster_position's leaf), checked to hold
 * `column_count` columns; its first_index is SIZE_MAX (unknown). */
bool cluster_leaf_at(const space_state *space, space_ref leaf_ref, size_t column_count, cluster_leaf *out);

/* Two versions of one table's tree, for a change computation: calls
 * `visit` with runs of leaves that may differ, each the leaves of the old
 * and of the new tree (refs, in key order) that hold one key range; keys
 * outside every run visited are in leaves that are the same node in both
 * trees. Nodes are copy-on-write, so a subtree with the same ref in both
 * versions is the same and is skipped unread; two inner nodes with the same
 * first keys are compared child by child (their children cover the same
 * ranges); otherwise the run is every leaf below the two nodes (inner nodes
 * read, leaves not). A root of 0 is a tree without leaves. Both versions
 * must stay pinned meanwhile (a ref of the old version is never reused
 * while a transaction reads it, so an equal ref means an equal subtree). */
typedef bool (*cluster_diff_visitor)(void *context, const space_ref *old_leaves, size_t old_count,
                                     const space_ref *new_leaves, size_t new_count);
bool cluster_diff(const space_state *old_space, space_ref old_root, const space_state *new_space, space_ref new_root,
                  cluster_diff_visitor visit, void *context);

#endif
