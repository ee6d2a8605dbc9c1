/*
 * node.h — the array node, the one building block of the file.
 *
 * Owns: the byte layout of a node (an 8-byte header, then bit-packed
 * integers or raw bytes), reading a node with every header field checked,
 * changing a dirty node (widening its integers when a larger value arrives),
 * copy-on-write of a committed node, freeing, and turning dirty nodes into
 * their final bytes at commit.
 * Never: knows what the integers mean, except that in a node flagged
 * HAS_REFS an even non-zero element is a ref to a child node and an odd one
 * is a tagged integer (value << 1 | 1). That one rule lets verify, free and
 * copy walk any tree without knowing the layer that built it.
 *
 * Header (little-endian):
 *   byte 0     flags: NODE_INNER, NODE_HAS_REFS, NODE_BYTES, NODE_CONTEXT
 *   byte 1     width code w: elements are 0,1,2,4,8,16,32,64 bits (w = 0..7)
 *   byte 2-3   the marker 0x4E 0xA1
 *   byte 4-7   element count (bytes, for a NODE_BYTES node)
 * Widths 1, 2 and 4 hold unsigned values; 8 to 64 hold signed values. The
 * node occupies 8 + the payload rounded up to a multiple of 8 bytes.
 */
#ifndef CE_NODE_H
#define CE_NODE_H

#include "space.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    NODE_INNER = 1,    /* an inner node of a tree (the tree layer decides what that means) */
    NODE_HAS_REFS = 2, /* even elements are refs to child nodes */
    NODE_BYTES = 4,    /* the payload is raw bytes (a blob or a string) */
    NODE_CONTEXT = 8,  /* a bit for the layer above */
    /* Frame of reference: the payload starts with an 8-byte base added to
     * every element, so values that lie close together pack narrow (object
     * keys, primary keys, timestamps). Only committed integer nodes (never
     * has-refs or bytes) have it: the commit chooses it when it makes the
     * node smaller, and a copy for writing drops it. node_read hands out the
     * other flags in node_view.flags and the base in node_view.base, so that
     * node_get and every check of flags work unchanged. */
    NODE_BASED = 16,
    NODE_FLAGS_ALL = 31
};

#define NODE_BASE_SIZE 8u

#define NODE_HEADER_SIZE 8u
#define NODE_MAX_COUNT 0x7FFFFFFFu
/* How deep a tree may go: node_free_tree, node_finalize_tree and
 * ce_db_verify's walk refuse deeper ones (damage, or a cycle). The object
 * store builds the deepest trees: 4 levels down to a table's cluster tree,
 * at most 16 inner levels and a leaf (CLUSTER_MAX_DEPTH), a column array,
 * a collection (a dictionary node, a chunked root, a chunk), then mixed
 * values nested up to 100 levels (Realm's limit), each at most 4 nodes
 * (the mixed node, a dictionary node, a chunked root, a chunk): about 430. */
#define NODE_MAX_TREE_DEPTH 512

/* A read view of one node. `payload` stays valid while the transaction
 * lasts (and, for a dirty node, until the node is next changed). */
typedef struct node_view {
    int64_t base; /* added to every element (NODE_BASED on disk); else 0 */
    bool based;   /* the node on disk has NODE_BASED (which `flags` leaves out) */
    const uint8_t *payload;
    uint32_t count;
    uint8_t flags;
    uint8_t width; /* bits per element */
} node_view;

/* Tagged integers in HAS_REFS nodes. */
static inline int64_t node_tag(int64_t value) { return (int64_t)(((uint64_t)value << 1) | 1u); }
static inline int64_t node_untag(int64_t tagged) { return tagged >> 1; }
static inline bool node_value_is_ref(int64_t value) { return value != 0 && (value & 1) == 0; }

/* Bytes a node of `count` elements of `width` bits occupies. */
static inline uint64_t node_size_for(uint8_t width, uint64_t count)
{
    uint64_t payload = (count * width + 7) / 8;
    return NODE_HEADER_SIZE + ((payload + 7) & ~7ull);
}

/* The first byte of a node as stored (its header): node_size bytes from here. */
static inline const uint8_t *node_start(const node_view *node)
{
    return node->payload - NODE_HEADER_SIZE - (node->based ? NODE_BASE_SIZE : 0);
}

static inline uint64_t node_size(const node_view *node)
{
    return node_size_for(node->width, node->count) + (node->based ? NODE_BASE_SIZE : 0);
}

/* Reads and checks a node header. Fails with CE_ERR_CORRUPT (naming the
 * offset) if the header or the node's extent is not valid. */
bool node_read(const space_state *space, space_ref ref, node_view *out_node);

/* The element at `index` (< count) as packed, before the base is added. */
static inline int64_t node_get_packed(const node_view *node, size_t index)
{
    const uint8_t *payload = node->payload;
    switch (node->width) {
    case 0: return 0;
    case 1: return (payload[index >> 3] >> (index & 7)) & 1;
    case 2: return (payload[index >> 2] >> ((index & 3) << 1)) & 3;
    case 4: return (payload[index >> 1] >> ((index & 1) << 2)) & 15;
    case 8: return (int8_t)payload[index];
    case 16: { int16_t value; memcpy(&value, payload + 2 * index, 2); return value; }
    case 32: { int32_t value; memcpy(&value, payload + 4 * index, 4); return value; }
    default: { int64_t value; memcpy(&value, payload + 8 * index, 8); return value; }
    }
}

/* The element at `index` (< count). A damaged base cannot overflow: the
 * sum wraps as unsigned arithmetic does. */
static inline int64_t node_get(const node_view *node, size_t index)
{
    return (int64_t)((uint64_t)node->base + (uint64_t)node_get_packed(node, index));
}

/* The smallest width that holds `value`. */
uint8_t node_width_for(int64_t value);

/* The smallest width that holds every element of `node` (its base added):
 * the width at which those values are packed. For values in an array, view
 * them with node_view_of_values. */
uint8_t node_width_for_values(const node_view *node);

/* A read view of `count` (<= NODE_MAX_COUNT) values in memory, as a node of
 * 64-bit elements. */
static inline node_view node_view_of_values(const int64_t *values, size_t count)
{
    return (node_view){.payload = (const uint8_t *)values, .count = (uint32_t)count, .width = 64};
}

/* A hint to fetch the cache line at `bytes`. GCC deletes a loop whose body
 * is __builtin_prefetch alone (it counts the call as free of effects), so on
 * x86-64 and AArch64 the instruction is written out; it never faults, and
 * every address given must lie inside the version (a node node_read checked,
 * or a ref checked against the version's size). */
static inline void prefetch_line(const uint8_t *bytes)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const volatile uint8_t *)bytes));
#elif defined(__GNUC__) && defined(__aarch64__)
    __asm__ volatile("prfm pldl1keep, %0" : : "Q"(*(const volatile uint8_t *)bytes));
#else
    __builtin_prefetch(bytes);
#endif
}

/* One prefetch per 64-byte line of [bytes, bytes + length): fetching a line
 * does not bring its neighbour on every processor (measured on AMD EPYC: a
 * prefetch per 128 bytes left a strided scan twice as slow as one per 64). */
static inline void prefetch_lines(const uint8_t *bytes, size_t length)
{
    for (size_t offset = 0; offset < length; offset += 64) prefetch_line(bytes + offset);
}

/* Prefetches the line of element `index` of a node read already (nothing
 * past its count, or for elements narrower than a byte): a search that
 * knows where it will land fetches that line together with others. */
static inline void node_prefetch_element(const node_view *node, size_t index)
{
    if (index < node->count && node->width >= 8) prefetch_line(node->payload + index * (node->width / 8u));
}

/* For prefetching: the bytes of the committed node whose ref is `element`
 * (an element read from a node), if `length` of them lie inside the
 * version; NULL for anything else (0, a tagged value, a dirty node, a ref
 * out of bounds). Nothing is trusted from what it returns but an address
 * to hint at. */
const uint8_t *node_prefetchable(const space_state *space, int64_t element, size_t length);

/* Prefetches the first line of the committed node whose ref is `element`
 * (as node_prefetchable, for a node whose bytes are not read here). No
 * read barrier: a prefetch reads nothing the program sees, so in an
 * encrypted file a page not yet decrypted for this transaction costs only
 * a useless hint, and a hot scan skips a page check per hint. */
void node_prefetch_header(const space_state *space, int64_t element);

/* Prefetches the line `offset` bytes into the committed node whose ref is
 * `element`, when that byte lies inside the version (as
 * node_prefetch_header, for a node whose header is not read yet: the offset
 * is a guess at where an element will be, so that its line is fetched
 * together with the header). */
void node_prefetch_at(const space_state *space, int64_t element, uint64_t offset);

/* --- searching ascending elements ---
 *
 * Item i of a search is element i * stride: stride 1 searches a sorted
 * node, stride 2 the keys of a node of (key, value) pairs. The searches run
 * per element width, so each probe is one load rather than a trip through
 * node_get's switch. Unordered (damaged) elements give some position in
 * range, in bounded time. */

/* The first item in [low, high) that is at least `key` (high if none), by
 * binary search. */
size_t node_lower_bound(const node_view *node, size_t stride, size_t low, size_t high, int64_t key);

/* The same over [0, items), starting from `guess` (< items): galloping
 * 1, 2, 4, ... items away, then a binary search inside the last step. A good
 * guess (node_guess_position) costs one or two probes on one cache line
 * instead of eight spread over the node. */
size_t node_lower_bound_near(const node_view *node, size_t stride, size_t items, int64_t key, size_t guess);

/* Where `key` would lie among `items` (> 0) items whose values span
 * [lower, upper], by linear interpolation: a guess in [0, items - 1]. Keys
 * from a counter (object keys, auto-incremented ids) land on their item. */
size_t node_guess_position(int64_t key, int64_t lower, int64_t upper, size_t items);

/* Where element `index` probably lies, in bytes from the node's start, in
 * a committed integer node (no refs) of `count` values in [minimum,
 * maximum]: as a commit packs such a node (its width, and its base when it
 * has one). For a prefetch before the node's header is read: a node's
 * side array, or a leaf's key offsets, from the span its parent gives. */
uint64_t node_guess_offset(int64_t minimum, int64_t maximum, size_t count, size_t index);

/* For a node whose elements are the lengths of consecutive runs (an inner
 * node's object counts, a collection's chunk counts): the run among the
 * first `runs` that holds position *position, which becomes the position
 * inside that run. Past them: returns `runs`, *position less their total.
 * A loop per width, since a wide node's counts are summed on every
 * positional read. */
size_t node_find_run(const node_view *counts, size_t runs, uint64_t *position);

/* The sum of the first `count` elements of a plain (not based) node of
 * 64-bit elements read as doubles: four running sums, so that the additions
 * do not wait on each other (the order of the additions differs from one
 * after another in the last bits only). */
double node_sum_doubles(const node_view *values, size_t count);

/* --- creating and changing (write transactions) --- */

/* A new dirty node of `count` elements, each `fill`. */
bool node_create(space_state *space, uint8_t flags, size_t count, int64_t fill, space_ref *out_ref);

/* A new dirty node holding `values` (at the smallest width that holds them all). */
bool node_create_from(space_state *space, uint8_t flags, const int64_t *values, size_t count, space_ref *out_ref);

/* A new dirty NODE_BYTES node holding a copy of `bytes`. */
bool node_create_bytes(space_state *space, uint8_t flags, const void *bytes, size_t length, space_ref *out_ref);

/* Makes the node writable: a committed node is copied into a new dirty node
 * (and its range freed), *ref is updated; a dirty node is left as it is.
 * Store the new ref in the parent if it changed. */
bool node_make_writable(space_state *space, space_ref *ref);

/* The following require a dirty ref (from node_create or node_make_writable). */
bool node_set(space_state *space, space_ref ref, size_t index, int64_t value);
bool node_insert(space_state *space, space_ref ref, size_t index, int64_t value);
bool node_append(space_state *space, space_ref ref, int64_t value);
bool node_erase(space_state *space, space_ref ref, size_t index);
/* Keeps the first `count` elements (count <= current count). */
bool node_truncate(space_state *space, space_ref ref, size_t count);
/* Replaces the payload of a NODE_BYTES node. */
bool node_set_bytes(space_state *space, space_ref ref, const void *bytes, size_t length);
/* Sets the flags (the payload is unchanged). */
bool node_set_flags(space_state *space, space_ref ref, uint8_t flags);

/* Frees one node (not its children). */
bool node_free(space_state *space, space_ref ref);

/* Frees a node and, through HAS_REFS, everything below it. */
bool node_free_tree(space_state *space, space_ref ref);

/* Writes the header and the elements of a node whose bytes are laid out by
 * hand in a placed buffer: the free list, which must be placed before its
 * contents are known. */
void node_encode_header(uint8_t *target, uint8_t flags, uint8_t width, uint32_t count);
void node_encode_element(uint8_t *payload, uint8_t width, size_t index, int64_t value);

/* An upper bound of the bytes the dirty nodes will occupy once finalized
 * (finalizing only ever narrows a node). */
uint64_t node_dirty_size_bound(const space_state *space);

/* Commit: places every dirty node below and including `ref` in the file,
 * children first, with each node re-packed at its smallest width, and
 * returns the final ref. A committed ref is returned unchanged. */
bool node_finalize_tree(space_state *space, space_ref ref, space_ref *out_final);

/* Walks every node reachable from `ref` (itself included), calling `visit`
 * with each ref and its read view; stops with false if `visit` returns false
 * or a node is invalid. Depth beyond `max_depth` is reported as corrupt. */
typedef bool (*node_visitor)(void *context, space_ref ref, const node_view *node);
bool node_walk_tree(const space_state *space, space_ref ref, unsigned max_depth, node_visitor visit, void *context);

/* Shared children and cycles. In a sound version every node has one parent,
 * so the committed nodes of one tree occupy distinct bytes and together fit
 * in the version. A damaged file can give a node several parents (or make it
 * its own descendant), and a depth limit alone then lets a walk follow
 * exponentially many paths (a chain of 20 nodes of 4 children each is 4^20
 * paths in under 1 KiB). Every walk over a whole tree charges each committed
 * node it meets here (*visited_bytes starting at 0) and stops with
 * CE_ERR_CORRUPT once it has met more bytes than the version holds. Dirty
 * nodes are not charged: the transaction made them, one parent each. */
bool node_charge_visit(const space_state *space, space_ref ref, const node_view *node, uint64_t *visited_bytes);

#endif
