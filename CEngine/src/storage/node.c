/*
 * node.c — the array node (see node.h for the layout).
 *
 * Owns: the bit packing of node.h's layout: reading a node with its header
 * checked, creating and editing dirty nodes, copy-on-write, freeing and
 * walking trees, and the re-packing of dirty nodes at commit.
 * Never: edits a committed node in place (node_make_writable copies it
 * first), or reads meaning into an element beyond node.h's rule for
 * HAS_REFS nodes.
 *
 * Dirty nodes hold the same bytes as they will on disk, so one reader
 * (node_read + node_get) serves both. A dirty node may be wider than it needs
 * (a value was overwritten by a smaller one, or it holds temporary refs,
 * which need 64 bits); node_finalize_tree re-packs it at its smallest width.
 */
#include "node.h"
#include "error.h"

#include <stdlib.h>

#define NODE_MARKER_0 0x4E
#define NODE_MARKER_1 0xA1

static const uint8_t width_of_code[8] = {0, 1, 2, 4, 8, 16, 32, 64};

static uint8_t code_of_width(uint8_t width)
{
    switch (width) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 2;
    case 4: return 3;
    case 8: return 4;
    case 16: return 5;
    case 32: return 6;
    default: return 7;
    }
}

static void write_header(uint8_t *bytes, uint8_t flags, uint8_t width, uint32_t count)
{
    bytes[0] = flags;
    bytes[1] = code_of_width(width);
    bytes[2] = NODE_MARKER_0;
    bytes[3] = NODE_MARKER_1;
    memcpy(bytes + 4, &count, 4);
}

static void set_count(uint8_t *bytes, uint32_t count) { memcpy(bytes + 4, &count, 4); }

static void put_element(uint8_t *payload, uint8_t width, size_t index, int64_t value)
{
    switch (width) {
    case 0: break;
    case 1: {
        unsigned shift = index & 7;
        payload[index >> 3] = (uint8_t)((payload[index >> 3] & ~(1u << shift)) | ((unsigned)(value & 1) << shift));
        break;
    }
    case 2: {
        unsigned shift = (index & 3) << 1;
        payload[index >> 2] = (uint8_t)((payload[index >> 2] & ~(3u << shift)) | ((unsigned)(value & 3) << shift));
        break;
    }
    case 4: {
        unsigned shift = (index & 1) << 2;
        payload[index >> 1] = (uint8_t)((payload[index >> 1] & ~(15u << shift)) | ((unsigned)(value & 15) << shift));
        break;
    }
    case 8: payload[index] = (uint8_t)(int8_t)value; break;
    case 16: { int16_t narrow = (int16_t)value; memcpy(payload + 2 * index, &narrow, 2); break; }
    case 32: { int32_t narrow = (int32_t)value; memcpy(payload + 4 * index, &narrow, 4); break; }
    default: memcpy(payload + 8 * index, &value, 8); break;
    }
}

static int64_t get_element(const uint8_t *payload, uint8_t width, size_t index)
{
    node_view view = {.base = 0, .payload = payload, .width = width};
    return node_get(&view, index);
}

/* Whether `element` is the ref of a committed node with `length` bytes
 * inside the version (what a hint may point at). */
static bool prefetch_ref(const space_state *space, int64_t element, size_t length)
{
    if (!node_value_is_ref(element) || ref_is_temporary((space_ref)element)) return false;
    space_ref ref = (space_ref)element;
    return ref % 8 == 0 && ref >= CE_HEADER_SIZE && ref < space->logical_size && space->logical_size - ref >= length;
}

const uint8_t *node_prefetchable(const space_state *space, int64_t element, size_t length)
{
    const uint8_t *bytes;
    if (!prefetch_ref(space, element, length) || !space_bytes(space, (space_ref)element, length, &bytes)) return NULL;
    return bytes;
}

void node_prefetch_header(const space_state *space, int64_t element)
{
    if (prefetch_ref(space, element, NODE_HEADER_SIZE)) prefetch_line(space->base + (space_ref)element);
}

void node_prefetch_at(const space_state *space, int64_t element, uint64_t offset)
{
    if (offset < space->logical_size && prefetch_ref(space, element, (size_t)offset + 1))
        prefetch_line(space->base + (space_ref)element + offset);
}

/* --- searching ascending elements --- */

/* A packed element plus the node's base (unsigned: a damaged base wraps). */
#define NODE_FULL(probe) ((int64_t)((uint64_t)base + (uint64_t)(int64_t)(probe)))

#define NODE_DEFINE_SEARCHES(name, type)                                                                         \
    static size_t lower_bound_##name(const uint8_t *payload, int64_t base, size_t stride, size_t low, size_t high, \
                                     int64_t key)                                                                \
    {                                                                                                            \
        while (low < high) {                                                                                     \
            size_t middle = low + (high - low) / 2;                                                              \
            type probe;                                                                                          \
            memcpy(&probe, payload + stride * middle * sizeof(type), sizeof(type));                              \
            if (NODE_FULL(probe) < key) low = middle + 1;                                                        \
            else high = middle;                                                                                  \
        }                                                                                                        \
        return low;                                                                                              \
    }                                                                                                            \
    /* Gallops from `guess` to a range that holds the answer, then searches it. */                               \
    static size_t lower_bound_near_##name(const uint8_t *payload, int64_t base, size_t stride, size_t items,     \
                                          int64_t key, size_t guess)                                             \
    {                                                                                                            \
        size_t low, high, step = 1;                                                                              \
        type probe;                                                                                              \
        memcpy(&probe, payload + stride * guess * sizeof(type), sizeof(type));                                   \
        if (NODE_FULL(probe) < key) {                                                                            \
            while (step < items - guess) {                                                                       \
                memcpy(&probe, payload + stride * (guess + step) * sizeof(type), sizeof(type));                  \
                if (NODE_FULL(probe) >= key) break;                                                              \
                step *= 2;                                                                                       \
            }                                                                                                    \
            low = guess + step / 2 + 1;                                                                          \
            high = step >= items - guess ? items : guess + step;                                                 \
        } else {                                                                                                 \
            while (step <= guess) {                                                                              \
                memcpy(&probe, payload + stride * (guess - step) * sizeof(type), sizeof(type));                  \
                if (NODE_FULL(probe) < key) break;                                                               \
                step *= 2;                                                                                       \
            }                                                                                                    \
            low = step > guess ? 0 : guess - step + 1;                                                           \
            high = guess - step / 2;                                                                             \
        }                                                                                                        \
        return lower_bound_##name(payload, base, stride, low, high, key);                                        \
    }

NODE_DEFINE_SEARCHES(8, int8_t)
NODE_DEFINE_SEARCHES(16, int16_t)
NODE_DEFINE_SEARCHES(32, int32_t)
NODE_DEFINE_SEARCHES(64, int64_t)

size_t node_lower_bound(const node_view *node, size_t stride, size_t low, size_t high, int64_t key)
{
    const uint8_t *payload = node->payload;
    int64_t base = node->base;
    switch (node->width) {
    case 8: return lower_bound_8(payload, base, stride, low, high, key);
    case 16: return lower_bound_16(payload, base, stride, low, high, key);
    case 32: return lower_bound_32(payload, base, stride, low, high, key);
    case 64: return lower_bound_64(payload, base, stride, low, high, key);
    default: /* widths 0 to 4: small values, through node_get */
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            if (node_get(node, stride * middle) < key) low = middle + 1;
            else high = middle;
        }
        return low;
    }
}

size_t node_lower_bound_near(const node_view *node, size_t stride, size_t items, int64_t key, size_t guess)
{
    const uint8_t *payload = node->payload;
    int64_t base = node->base;
    if (items == 0) return 0;
    if (guess >= items) guess = items - 1;
    switch (node->width) {
    case 8: return lower_bound_near_8(payload, base, stride, items, key, guess);
    case 16: return lower_bound_near_16(payload, base, stride, items, key, guess);
    case 32: return lower_bound_near_32(payload, base, stride, items, key, guess);
    case 64: return lower_bound_near_64(payload, base, stride, items, key, guess);
    default: return node_lower_bound(node, stride, 0, items, key);
    }
}

size_t node_guess_position(int64_t key, int64_t lower, int64_t upper, size_t items)
{
    if (key <= lower || upper <= lower) return 0;
    if (key >= upper) return items - 1;
    /* In doubles: upper - lower may not fit in an int64. */
    double fraction = ((double)key - (double)lower) / ((double)upper - (double)lower);
    double position = fraction * (double)(items - 1) + 0.5;
    if (!(position < (double)items)) return items - 1; /* also catches rounding up */
    return (size_t)position;
}

/* One loop of node_find_run for elements of type `type` (the base added). */
#define FIND_RUN(type)                                                                                              \
    for (; run < runs; run++) {                                                                                     \
        type packed;                                                                                                \
        memcpy(&packed, counts->payload + run * sizeof(type), sizeof(type));                                      \
        uint64_t count = base + (uint64_t)(int64_t)packed;                                                          \
        if (remaining < count) break;                                                                               \
        remaining -= count;                                                                                         \
    }

size_t node_find_run(const node_view *counts, size_t runs, uint64_t *position)
{
    if (runs > counts->count) runs = counts->count;
    uint64_t remaining = *position, base = (uint64_t)counts->base;
    size_t run = 0;
    switch (counts->width) {
    case 0: /* every run is `base` long (full leaves, stored as a base alone) */
        run = base == 0 ? runs : (size_t)(remaining / base < runs ? remaining / base : runs);
        remaining -= (uint64_t)run * base;
        break;
    case 8: FIND_RUN(int8_t) break;
    case 16: FIND_RUN(int16_t) break;
    case 32: FIND_RUN(int32_t) break;
    case 64: FIND_RUN(int64_t) break;
    case 1:
        /* Full leaves: counts of `base` or base + 1. Whole words of 64 runs
         * at a time while the position lies past them, then one at a time. */
        while (run + 64 <= runs && run % 64 == 0) {
            uint64_t bits;
            memcpy(&bits, counts->payload + run / 8, 8);
            uint64_t total = 64 * base + (uint64_t)__builtin_popcountll(bits);
            if (remaining < total) break;
            remaining -= total;
            run += 64;
        }
        __attribute__((fallthrough));
    default: /* widths 2 and 4, and the rest of width 1 */
        for (; run < runs; run++) {
            uint64_t count = (uint64_t)node_get(counts, run);
            if (remaining < count) break;
            remaining -= count;
        }
    }
    *position = remaining;
    return run;
}
#undef FIND_RUN

double node_sum_doubles(const node_view *values, size_t count)
{
    double partial[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        double quad[4];
        memcpy(quad, values->payload + 8 * i, sizeof quad);
        for (int lane = 0; lane < 4; lane++) partial[lane] += quad[lane];
    }
    for (; i < count; i++) {
        double value;
        memcpy(&value, values->payload + 8 * i, 8);
        partial[0] += value;
    }
    return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

uint8_t node_width_for(int64_t value)
{
    if (value == 0) return 0;
    if (value > 0) {
        if (value <= 1) return 1;
        if (value <= 3) return 2;
        if (value <= 15) return 4;
    }
    if (value >= INT8_MIN && value <= INT8_MAX) return 8;
    if (value >= INT16_MIN && value <= INT16_MAX) return 16;
    if (value >= INT32_MIN && value <= INT32_MAX) return 32;
    return 64;
}

static void integer_range(const node_view *node, int64_t *out_minimum, int64_t *out_maximum);

uint8_t node_width_for_values(const node_view *node)
{
    if (node->count == 0) return 0;
    if (node->base == 0) {
        /* node_width_for grows with the distance from 0 either way, so the
         * extremes decide: one typed pass instead of a call per element. */
        int64_t minimum, maximum;
        integer_range(node, &minimum, &maximum);
        uint8_t width = node_width_for(minimum), width_of_maximum = node_width_for(maximum);
        return width_of_maximum > width ? width_of_maximum : width;
    }
    uint8_t width = 0;
    for (size_t i = 0; i < node->count && width < 64; i++) {
        uint8_t needed = node_width_for(node_get(node, i));
        if (needed > width) width = needed;
    }
    return width;
}

/* Packs the `count` elements of `source` (node_get's values), each less
 * `subtract` (as unsigned arithmetic wraps), at `width` into `payload`,
 * which is zeroed where the widths below 8 put their bits. The byte widths
 * go through typed loops (the compiler vectorizes them); put_element
 * serves the rest. */
static void pack_elements(uint8_t *payload, uint8_t width, const node_view *source, int64_t subtract)
{
    const uint8_t *from = source->payload;
    size_t count = source->count;
    uint64_t offset = (uint64_t)source->base - (uint64_t)subtract;
#define PACK_LOOP(target_type, source_type)                                                                      \
    for (size_t i = 0; i < count; i++) {                                                                         \
        source_type value;                                                                                       \
        memcpy(&value, from + i * sizeof value, sizeof value);                                                   \
        target_type packed = (target_type)((uint64_t)(int64_t)value + offset);                                   \
        memcpy(payload + i * sizeof packed, &packed, sizeof packed);                                             \
    }
#define PACK_FROM(target_type)                                                                                   \
    switch (source->width) {                                                                                     \
    case 8: PACK_LOOP(target_type, int8_t) return;                                                               \
    case 16: PACK_LOOP(target_type, int16_t) return;                                                             \
    case 32: PACK_LOOP(target_type, int32_t) return;                                                             \
    case 64: PACK_LOOP(target_type, int64_t) return;                                                             \
    default: break;                                                                                              \
    }
    switch (width) {
    case 8: PACK_FROM(uint8_t) break;
    case 16: PACK_FROM(uint16_t) break;
    case 32: PACK_FROM(uint32_t) break;
    case 64: PACK_FROM(uint64_t) break;
    default: break;
    }
#undef PACK_FROM
#undef PACK_LOOP
    for (size_t i = 0; i < count; i++)
        put_element(payload, width, i, (int64_t)((uint64_t)node_get(source, i) - (uint64_t)subtract));
}

/* The errors of node_read, out of its way: the common path then keeps its
 * few values in registers. */
static CE_COLD bool invalid_node_header(space_ref ref)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: invalid node header at offset %llu", (unsigned long long)ref);
}

static CE_COLD bool node_past_end(space_ref ref, uint32_t count)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: node at offset %llu (%u elements) extends past the end of the file",
                   (unsigned long long)ref, count);
}

bool node_read(const space_state *space, space_ref ref, node_view *out_node)
{
    const uint8_t *bytes;
    if (!space_bytes(space, ref, NODE_HEADER_SIZE, &bytes)) return false;
    uint8_t flags = bytes[0], code = bytes[1];
    uint32_t count;
    memcpy(&count, bytes + 4, 4);
    bool based = (flags & NODE_BASED) != 0;
    if ((flags & ~NODE_FLAGS_ALL) != 0 || code > 7 || bytes[2] != NODE_MARKER_0 || bytes[3] != NODE_MARKER_1 ||
        count > NODE_MAX_COUNT || ((flags & NODE_BYTES) && (code != 4 || (flags & NODE_HAS_REFS))) ||
        (based && (ref_is_temporary(ref) || (flags & (NODE_HAS_REFS | NODE_BYTES))))) {
        /* Zeros where the file was truncated under the mapping: say so. */
        if (atomic_load(space->truncated)) return space_truncated_error(space);
        return invalid_node_header(ref);
    }
    uint8_t width = width_of_code[code];
    if (!ref_is_temporary(ref)) {
        /* (The header's read checked ref <= logical_size.) */
        uint64_t size = node_size_for(width, count) + (based ? NODE_BASE_SIZE : 0);
        if (size > space->logical_size - ref) return node_past_end(ref, count);
        /* A node that reaches past its header's page: an encrypted file's
         * read barrier covers the whole node (its page may fail here: that
         * error stands); for a plain file, see below. */
        if (ref % PAGER_PAGE_SIZE + size > PAGER_PAGE_SIZE) { /* past the header's page */
            if (space->cipher_pager) {
                if (!space_bytes(space, ref, (size_t)size, &bytes)) return false;
            } else {
                /* A plain file another process truncated faults past its
                 * new end (fault.h: the page then reads as zeros and the
                 * flag is set). Truncation removes a suffix, so when the
                 * node's last byte is there, all of it is: touched here,
                 * so that the caller never reads zeros as the node. */
                volatile const uint8_t *last = bytes + size - 1;
                (void)*last;
                if (atomic_load_explicit(space->truncated, memory_order_relaxed)) return space_truncated_error(space);
            }
        }
    }
    out_node->base = 0;
    out_node->based = based;
    if (based) {
        memcpy(&out_node->base, bytes + NODE_HEADER_SIZE, NODE_BASE_SIZE);
        bytes += NODE_BASE_SIZE;
    }
    out_node->payload = bytes + NODE_HEADER_SIZE;
    out_node->count = count;
    out_node->flags = (uint8_t)(flags & ~NODE_BASED);
    out_node->width = width;
    return true;
}

/* A committed node refers only to committed nodes: a dirty node exists only
 * in the memory of the transaction that made it. A value with the
 * temporary-ref bit in a committed HAS_REFS node (a negative even value has
 * it too) can only be damage, and a write transaction that followed it would
 * take it for one of its own dirty nodes: an index past the end of its table
 * of dirty nodes, a freed entry, or a live node given a second parent. */
static bool check_committed_child(space_ref parent, int64_t child)
{
    if (!ref_is_temporary(parent) && ref_is_temporary((space_ref)child))
        return error_fail(CE_ERR_CORRUPT, "invalid database: the node at offset %llu holds a bad ref (%llx)",
                       (unsigned long long)parent, (unsigned long long)child);
    return true;
}

/* The dirty node behind `ref`, as a view plus its buffer. */
static bool dirty_view(space_state *space, space_ref ref, node_view *out_node, uint8_t **out_bytes)
{
    if (!ref_is_temporary(ref))
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "internal error: node %llu changed without copy-on-write",
                       (unsigned long long)ref);
    uint8_t *bytes = space_dirty_bytes(space, ref);
    uint32_t count;
    memcpy(&count, bytes + 4, 4);
    out_node->base = 0;
    out_node->based = false;
    out_node->payload = bytes + NODE_HEADER_SIZE;
    out_node->count = count;
    out_node->flags = bytes[0];
    out_node->width = width_of_code[bytes[1]];
    *out_bytes = bytes;
    return true;
}

/* Makes the dirty node hold `count` elements of at least `width` bits,
 * widening the existing elements in place when needed. */
static bool ensure_room(space_state *space, space_ref ref, size_t count, uint8_t width, node_view *node, uint8_t **bytes)
{
    if (count > NODE_MAX_COUNT) return error_fail(CE_ERR_INVALID_ARGUMENT, "a node cannot hold %zu elements", count);
    uint8_t new_width = width > node->width ? width : node->width;
    size_t needed = (size_t)node_size_for(new_width, count > node->count ? count : node->count);
    if (!space_dirty_reserve(space, ref, needed, bytes)) return false;
    uint8_t *payload = *bytes + NODE_HEADER_SIZE;
    if (new_width != node->width) {
        /* Widen from the last element down, so no element is overwritten
         * before it is read (new positions are never below old ones). */
        for (size_t i = node->count; i-- > 0;)
            put_element(payload, new_width, i, get_element(payload, node->width, i));
        (*bytes)[1] = code_of_width(new_width);
    }
    node->payload = payload;
    node->width = new_width;
    return true;
}

bool node_create(space_state *space, uint8_t flags, size_t count, int64_t fill, space_ref *out_ref)
{
    if (count > NODE_MAX_COUNT) return error_fail(CE_ERR_INVALID_ARGUMENT, "a node cannot hold %zu elements", count);
    uint8_t width = (flags & NODE_BYTES) ? 8 : node_width_for(fill);
    if (ref_is_temporary((space_ref)fill)) width = 64;
    size_t size = (size_t)node_size_for(width, count);
    uint8_t *bytes;
    if (!space_dirty_create(space, size, true, out_ref, &bytes)) return false;
    memset(bytes, 0, size);
    write_header(bytes, flags, width, (uint32_t)count);
    if (fill != 0)
        for (size_t i = 0; i < count; i++) put_element(bytes + NODE_HEADER_SIZE, width, i, fill);
    return true;
}

bool node_create_from(space_state *space, uint8_t flags, const int64_t *values, size_t count, space_ref *out_ref)
{
    if (count > NODE_MAX_COUNT) return error_fail(CE_ERR_INVALID_ARGUMENT, "a node cannot hold %zu elements", count);
    node_view view = node_view_of_values(values, count);
    uint8_t width = node_width_for_values(&view);
    if (flags & NODE_HAS_REFS)
        for (size_t i = 0; i < count; i++)
            if (ref_is_temporary((space_ref)values[i])) width = 64;
    size_t size = (size_t)node_size_for(width, count);
    uint8_t *bytes;
    if (!space_dirty_create(space, size, true, out_ref, &bytes)) return false;
    memset(bytes, 0, size);
    write_header(bytes, flags, width, (uint32_t)count);
    if (width != 0) pack_elements(bytes + NODE_HEADER_SIZE, width, &view, 0);
    return true;
}

bool node_create_bytes(space_state *space, uint8_t flags, const void *data, size_t length, space_ref *out_ref)
{
    if (length > NODE_MAX_COUNT) return error_fail(CE_ERR_INVALID_ARGUMENT, "a value of %zu bytes is too large", length);
    size_t size = (size_t)node_size_for(8, length);
    uint8_t *bytes;
    if (!space_dirty_create(space, size, true, out_ref, &bytes)) return false;
    memset(bytes + size - 8, 0, 8);
    write_header(bytes, (uint8_t)(flags | NODE_BYTES), 8, (uint32_t)length);
    if (length) memcpy(bytes + NODE_HEADER_SIZE, data, length);
    return true;
}

bool node_make_writable(space_state *space, space_ref *ref)
{
    if (ref_is_temporary(*ref)) return true;
    node_view node;
    if (!node_read(space, *ref, &node)) return false;
    /* The copy turns committed bytes into a dirty node, whose refs the
     * write paths follow without further checks: check them here, once.
     * Widths below 8 hold only values 0 to 15, never a temporary ref. */
    if ((node.flags & NODE_HAS_REFS) && node.width >= 8) {
        for (size_t i = 0; i < node.count; i++) {
            int64_t child = node_get(&node, i);
            if (node_value_is_ref(child) && !check_committed_child(*ref, child)) return false;
        }
    }
    size_t size = (size_t)node_size(&node);
    space_ref copy;
    uint8_t *bytes;
    if (node.based) {
        /* Dirty nodes have no base: the copy holds the values themselves. */
        uint8_t width = node_width_for_values(&node);
        size_t copy_size = (size_t)node_size_for(width, node.count);
        if (!space_dirty_create(space, copy_size, false, &copy, &bytes)) return false;
        memset(bytes, 0, copy_size);
        write_header(bytes, node.flags, width, node.count);
        pack_elements(bytes + NODE_HEADER_SIZE, width, &node, 0);
    } else {
        if (!space_dirty_create(space, size, false, &copy, &bytes)) return false;
        memcpy(bytes, node_start(&node), size);
    }
    if (!space_free(space, *ref, size)) return false;
    *ref = copy;
    return true;
}

static uint8_t width_for_stored(int64_t value)
{
    return ref_is_temporary((space_ref)value) ? 64 : node_width_for(value);
}

bool node_set(space_state *space, space_ref ref, size_t index, int64_t value)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (index >= node.count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is beyond the node's %u elements", index, node.count);
    if (node_get(&node, index) == value) return true; /* (a ref stored again, a table's counters unchanged) */
    if (!ensure_room(space, ref, node.count, width_for_stored(value), &node, &bytes)) return false;
    put_element(bytes + NODE_HEADER_SIZE, node.width, index, value);
    return true;
}

bool node_insert(space_state *space, space_ref ref, size_t index, int64_t value)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (index > node.count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "insert position %zu is beyond the node's %u elements", index, node.count);
    if (!ensure_room(space, ref, (size_t)node.count + 1, width_for_stored(value), &node, &bytes)) return false;
    uint8_t *payload = bytes + NODE_HEADER_SIZE;
    if (node.width >= 8) {
        size_t element = node.width / 8;
        memmove(payload + (index + 1) * element, payload + index * element, (node.count - index) * element);
    } else {
        for (size_t i = node.count; i > index; i--)
            put_element(payload, node.width, i, get_element(payload, node.width, i - 1));
    }
    put_element(payload, node.width, index, value);
    set_count(bytes, node.count + 1);
    return true;
}

bool node_append(space_state *space, space_ref ref, int64_t value)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (!ensure_room(space, ref, (size_t)node.count + 1, width_for_stored(value), &node, &bytes)) return false;
    put_element(bytes + NODE_HEADER_SIZE, node.width, node.count, value);
    set_count(bytes, node.count + 1);
    return true;
}

bool node_erase(space_state *space, space_ref ref, size_t index)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (index >= node.count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is beyond the node's %u elements", index, node.count);
    uint8_t *payload = bytes + NODE_HEADER_SIZE;
    if (node.width >= 8) {
        size_t element = node.width / 8;
        memmove(payload + index * element, payload + (index + 1) * element, (node.count - index - 1) * element);
    } else {
        for (size_t i = index; i + 1 < node.count; i++)
            put_element(payload, node.width, i, get_element(payload, node.width, i + 1));
    }
    set_count(bytes, node.count - 1);
    return true;
}

bool node_truncate(space_state *space, space_ref ref, size_t count)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (count > node.count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "cannot truncate %u elements to %zu", node.count, count);
    set_count(bytes, (uint32_t)count);
    return true;
}

bool node_set_bytes(space_state *space, space_ref ref, const void *data, size_t length)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (!(node.flags & NODE_BYTES)) return error_fail(CE_ERR_INVALID_ARGUMENT, "internal error: not a byte node");
    if (length > NODE_MAX_COUNT) return error_fail(CE_ERR_INVALID_ARGUMENT, "a value of %zu bytes is too large", length);
    if (!space_dirty_reserve(space, ref, (size_t)node_size_for(8, length), &bytes)) return false;
    if (length) memcpy(bytes + NODE_HEADER_SIZE, data, length);
    set_count(bytes, (uint32_t)length);
    return true;
}

bool node_set_flags(space_state *space, space_ref ref, uint8_t flags)
{
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    bytes[0] = flags;
    return true;
}

bool node_free(space_state *space, space_ref ref)
{
    if (ref_is_temporary(ref)) return space_free(space, ref, 0);
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    return space_free(space, ref, node_size(&node));
}

static bool free_tree(space_state *space, space_ref ref, unsigned depth, uint64_t *visited_bytes)
{
    if (depth > NODE_MAX_TREE_DEPTH)
        return error_fail(CE_ERR_CORRUPT, "invalid database: tree deeper than %d at offset %llu", NODE_MAX_TREE_DEPTH,
                       (unsigned long long)ref);
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (!node_charge_visit(space, ref, &node, visited_bytes)) return false;
    if ((node.flags & NODE_HAS_REFS) && node.width > 0) {
        for (size_t i = 0; i < node.count; i++) {
            int64_t child = node_get(&node, i);
            if (!node_value_is_ref(child)) continue;
            /* Freeing a "dirty" child named by a committed node would free
             * memory that another part of the transaction still uses. */
            if (!check_committed_child(ref, child) || !free_tree(space, (space_ref)child, depth + 1, visited_bytes))
                return false;
            /* A dirty parent's buffer does not move when a child is freed. */
        }
    }
    return node_free(space, ref);
}

bool node_free_tree(space_state *space, space_ref ref)
{
    uint64_t visited_bytes = 0;
    return free_tree(space, ref, 0, &visited_bytes);
}

/* The smallest and largest element of an integer node without refs and
 * without a base (0 and 0 when empty): typed loops in the element's own
 * type for the byte widths (the compiler vectorizes them), node_get for the
 * narrow ones. */
static void integer_range(const node_view *node, int64_t *out_minimum, int64_t *out_maximum)
{
    const uint8_t *payload = node->payload;
    size_t count = node->count;
    int64_t minimum = 0, maximum = 0;
    if (count == 0) {
        *out_minimum = *out_maximum = 0;
        return;
    }
#define RANGE_OF(type)                                                                                           \
    {                                                                                                            \
        type low, high;                                                                                          \
        memcpy(&low, payload, sizeof low);                                                                       \
        high = low;                                                                                              \
        for (size_t i = 1; i < count; i++) {                                                                     \
            type value;                                                                                          \
            memcpy(&value, payload + i * sizeof value, sizeof value);                                            \
            low = value < low ? value : low;                                                                     \
            high = value > high ? value : high;                                                                  \
        }                                                                                                        \
        minimum = low;                                                                                           \
        maximum = high;                                                                                          \
    }
    switch (node->width) {
    case 8: RANGE_OF(int8_t) break;
    case 16: RANGE_OF(int16_t) break;
    case 32: RANGE_OF(int32_t) break;
    case 64: RANGE_OF(int64_t) break;
    default:
        minimum = maximum = node_get(node, 0);
        for (size_t i = 1; i < count; i++) {
            int64_t value = node_get(node, i);
            if (value < minimum) minimum = value;
            if (value > maximum) maximum = value;
        }
        break;
    }
#undef RANGE_OF
    *out_minimum = minimum;
    *out_maximum = maximum;
}

/* The width, and the base if any, a committed integer node of `count`
 * values in [minimum, maximum] is written with (`may_base`: a node
 * without refs). A base when the offsets from it pack enough narrower to
 * pay for its 8 bytes: the minimum for the unsigned widths 1, 2 and 4; for
 * the signed ones the middle of the range, so that 256 values fit 8 bits. */
static void packing_for(int64_t minimum, int64_t maximum, size_t count, bool may_base, uint8_t *out_width,
                        bool *out_based, int64_t *out_base)
{
    uint8_t width = node_width_for(minimum);
    uint8_t width_of_maximum = node_width_for(maximum);
    if (width_of_maximum > width) width = width_of_maximum;
    if (minimum < 0 && width < 8) width = 8;
    *out_based = false;
    *out_base = 0;
    uint64_t range = (uint64_t)maximum - (uint64_t)minimum;
    if (may_base && count > 0 && (minimum != 0 || range >= 128)) {
        static const uint8_t candidates[] = {1, 2, 4, 8, 16, 32};
        for (size_t c = 0; c < sizeof candidates; c++) {
            uint8_t candidate = candidates[c];
            if (range >= (1ull << candidate)) continue;
            if (node_size_for(candidate, count) + NODE_BASE_SIZE < node_size_for(width, count)) {
                *out_based = true;
                *out_base = candidate < 8 ? minimum : (int64_t)((uint64_t)minimum + (1ull << (candidate - 1)));
                width = candidate;
            }
            break;
        }
    }
    *out_width = width;
}

uint64_t node_guess_offset(int64_t minimum, int64_t maximum, size_t count, size_t index)
{
    uint8_t width;
    bool based;
    int64_t base;
    packing_for(minimum, maximum, count, true, &width, &based, &base);
    return NODE_HEADER_SIZE + (based ? NODE_BASE_SIZE : 0) + (uint64_t)index * width / 8;
}

/* Whether `value` is the ref of a dirty node not placed yet that has refs
 * (`with_refs`) or has none. Committed children are not read: that would
 * verify their pages, and cost a read, in a commit. */
static bool unplaced_dirty(const space_state *space, int64_t value, bool with_refs)
{
    return node_value_is_ref(value) && ref_is_temporary((space_ref)value) &&
           !space_dirty_placed_at(space, (space_ref)value) &&
           ((space_dirty_bytes(space, (space_ref)value)[0] & NODE_HAS_REFS) != 0) == with_refs;
}

/* How many leading elements of an inner node not placed yet are the refs
 * of its new or changed side arrays (tree.h: a cluster's first keys and
 * counts, an index's separators): the dirty plain nodes it starts with,
 * when a later child is a dirty node with refs. 0 for any other node, and
 * for an inner node whose children have no refs (a chunked collection's
 * root: its chunks are plain). The first pass leaves them, and finalize
 * places them right before the node, so that a descent finds a node and
 * the side array it searches on the same or neighbouring pages. */
static size_t side_arrays_of(const space_state *space, const node_view *node)
{
    if ((node->flags & (NODE_INNER | NODE_HAS_REFS)) != (NODE_INNER | NODE_HAS_REFS)) return 0;
    size_t sides = 0;
    while (sides < node->count && unplaced_dirty(space, node_get(node, sides), false)) sides++;
    if (sides == 0) return 0;
    for (size_t i = sides; i < node->count; i++)
        if (unplaced_dirty(space, node_get(node, i), true)) return sides;
    return 0;
}

static bool finalize(space_state *space, space_ref ref, space_ref *out_final, unsigned depth)
{
    if (!ref_is_temporary(ref)) {
        *out_final = ref;
        return true;
    }
    uint64_t placed = space_dirty_placed_at(space, ref);
    if (placed) { /* placed by the first pass */
        *out_final = placed;
        return true;
    }
    if (depth > NODE_MAX_TREE_DEPTH)
        return error_fail(CE_ERR_CORRUPT, "internal error: tree deeper than %d", NODE_MAX_TREE_DEPTH);
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    int64_t minimum = 0, maximum = 0;
    if (!(node.flags & (NODE_BYTES | NODE_HAS_REFS))) integer_range(&node, &minimum, &maximum);
    /* An inner node's children without refs not placed yet (its new side
     * arrays, which the first pass leaves, and changed copies of them or,
     * in a chunked collection, of chunks) go last, the last one first: they
     * then lie right before the node, the first side array (what a descent
     * searches) nearest. */
    bool inner = (node.flags & (NODE_INNER | NODE_HAS_REFS)) == (NODE_INNER | NODE_HAS_REFS);
    for (size_t k = 0; k < 2 * (size_t)node.count && (node.flags & NODE_HAS_REFS); k++) {
        bool last_round = k >= node.count;
        size_t i = last_round ? 2 * (size_t)node.count - 1 - k : k;
        int64_t value = node_get(&node, i);
        if (inner && unplaced_dirty(space, value, false) != last_round) continue;
        if ((node.flags & NODE_HAS_REFS) && ref_is_temporary((space_ref)value) && node_value_is_ref(value)) {
            space_ref child_final;
            if (!finalize(space, (space_ref)value, &child_final, depth + 1)) return false;
            value = (int64_t)child_final;
            dirty_view(space, ref, &node, &bytes); /* re-read: placing may not move it, but be exact */
            put_element(bytes + NODE_HEADER_SIZE, node.width, i, value);
        }
        if (value < minimum) minimum = value;
        if (value > maximum) maximum = value;
    }
    uint8_t width = 8;
    bool based = false;
    int64_t base = 0;
    if (!(node.flags & NODE_BYTES))
        packing_for(minimum, maximum, node.count, (node.flags & NODE_HAS_REFS) == 0, &width, &based, &base);
    uint64_t size = node_size_for(width, node.count) + (based ? NODE_BASE_SIZE : 0);
    uint64_t position;
    uint8_t *target;
    if (!space_place(space, size, space_dirty_is_fresh(space, ref), &position, &target)) return false;
    write_header(target, (uint8_t)(node.flags | (based ? NODE_BASED : 0)), width, node.count);
    if (based) {
        memcpy(target + NODE_HEADER_SIZE, &base, NODE_BASE_SIZE);
        target += NODE_BASE_SIZE; /* the elements follow the base */
        size -= NODE_BASE_SIZE;
    }
    /* Zero what the payload does not fill (the tail of the last 8 bytes);
     * the rest is written below. */
    uint64_t payload_bytes = (node.flags & NODE_BYTES) ? node.count : ((uint64_t)node.count * width + 7) / 8;
    memset(target + NODE_HEADER_SIZE + payload_bytes, 0, (size_t)(size - NODE_HEADER_SIZE - payload_bytes));
    if ((based || width != node.width) && !(node.flags & NODE_BYTES))
        memset(target + NODE_HEADER_SIZE, 0, (size_t)payload_bytes); /* put_element reads the bytes it masks into */
    if (based) {
        pack_elements(target + NODE_HEADER_SIZE, width, &node, base);
    } else if (node.flags & NODE_BYTES) {
        memcpy(target + NODE_HEADER_SIZE, node.payload, node.count);
    } else if (width == node.width) {
        size_t used_bits = (size_t)node.count * width;
        memcpy(target + NODE_HEADER_SIZE, node.payload, (used_bits + 7) / 8);
        /* Clear the bits past the last element that the dirty buffer may hold. */
        if (used_bits % 8) target[NODE_HEADER_SIZE + used_bits / 8] &= (uint8_t)((1u << (used_bits % 8)) - 1);
    } else {
        pack_elements(target + NODE_HEADER_SIZE, width, &node, 0);
    }
    space_dirty_mark_placed(space, ref, position);
    *out_final = position;
    return true;
}

void node_encode_header(uint8_t *target, uint8_t flags, uint8_t width, uint32_t count)
{
    write_header(target, flags, width, count);
}

void node_encode_element(uint8_t *payload, uint8_t width, size_t index, int64_t value)
{
    put_element(payload, width, index, value);
}

uint64_t node_dirty_size_bound(const space_state *space)
{
    uint64_t total = 0;
    for (size_t i = 0; i < space->dirty_count; i++) {
        const space_dirty_node *dirty = &space->dirty[i];
        if (dirty->capacity == 0) continue;
        uint32_t count;
        memcpy(&count, dirty->bytes + 4, 4);
        total += node_size_for(width_of_code[dirty->bytes[1]], count);
    }
    return total;
}

/* The first pass: places the new nodes that have no children (new values,
 * new leaves) before everything else, each new node whose children are all
 * such nodes right after them (see below). A commit's nodes then lie as
 * [new data][copies of changed nodes]; the copies are what the next commits
 * rewrite and free, and with the new data kept out of their way, the space
 * they free stays one range that the next commit can use whole. */
static bool place_fresh_leaves(space_state *space, space_ref ref, unsigned depth)
{
    if (!ref_is_temporary(ref) || space_dirty_placed_at(space, ref)) return true;
    if (depth > NODE_MAX_TREE_DEPTH)
        return error_fail(CE_ERR_CORRUPT, "internal error: tree deeper than %d", NODE_MAX_TREE_DEPTH);
    node_view node = {0};
    uint8_t *bytes = NULL;
    if (!dirty_view(space, ref, &node, &bytes)) return false;
    if (!(node.flags & NODE_HAS_REFS)) {
        space_ref final;
        return !space_dirty_is_fresh(space, ref) || finalize(space, ref, &final, depth);
    }
    /* A new node whose children are all new nodes without children (a
     * cluster leaf of new objects: its keys and its columns) goes right
     * after them, so that a lookup finds the node and its children on the
     * same pages (one TLB entry and page walk fewer per lookup in a large
     * file). */
    bool beside_children = space_dirty_is_fresh(space, ref);
    /* An inner node's side arrays are placed with the node (finalize). */
    size_t sides = side_arrays_of(space, &node);
    for (size_t i = sides; i < node.count; i++) {
        int64_t value = node_get(&node, i);
        if (!node_value_is_ref(value)) continue;
        if (!ref_is_temporary((space_ref)value)) {
            beside_children = false;
            continue;
        }
        if (beside_children && !space_dirty_placed_at(space, (space_ref)value)) {
            node_view child;
            uint8_t *child_bytes;
            if (!dirty_view(space, (space_ref)value, &child, &child_bytes)) return false;
            beside_children = !(child.flags & NODE_HAS_REFS) && space_dirty_is_fresh(space, (space_ref)value);
        }
        if (!place_fresh_leaves(space, (space_ref)value, depth + 1)) return false;
    }
    space_ref final;
    return !beside_children || finalize(space, ref, &final, depth);
}

bool node_finalize_tree(space_state *space, space_ref ref, space_ref *out_final)
{
    return place_fresh_leaves(space, ref, 0) && finalize(space, ref, out_final, 0);
}

bool node_charge_visit(const space_state *space, space_ref ref, const node_view *node, uint64_t *visited_bytes)
{
    if (ref_is_temporary(ref)) return true;
    *visited_bytes += node_size(node);
    if (*visited_bytes > space->logical_size)
        return error_fail(CE_ERR_CORRUPT,
                       "invalid database: the node at offset %llu is reached more than once (a shared child or a cycle)",
                       (unsigned long long)ref);
    return true;
}

static bool walk(const space_state *space, space_ref ref, unsigned depth, unsigned max_depth, node_visitor visit,
                 void *context, uint64_t *visited_bytes)
{
    if (depth > max_depth)
        return error_fail(CE_ERR_CORRUPT, "invalid database: tree deeper than %u at offset %llu", max_depth,
                       (unsigned long long)ref);
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (!node_charge_visit(space, ref, &node, visited_bytes)) return false;
    if (!visit(context, ref, &node)) return false;
    /* Width 0: every element is 0, no child; a count of 2^31 costs 8 bytes. */
    if ((node.flags & NODE_HAS_REFS) && node.width > 0) {
        for (size_t i = 0; i < node.count; i++) {
            int64_t child = node_get(&node, i);
            if (node_value_is_ref(child) &&
                !walk(space, (space_ref)child, depth + 1, max_depth, visit, context, visited_bytes))
                return false;
        }
    }
    return true;
}

bool node_walk_tree(const space_state *space, space_ref ref, unsigned max_depth, node_visitor visit, void *context)
{
    uint64_t visited_bytes = 0;
    return walk(space, ref, 0, max_depth, visit, context, &visited_bytes);
}
