/*
 * column.c — column arrays (see column.h).
 *
 * Owns: the encoding of one property's values for one cluster leaf, and the
 * checks of those nodes when they are read.
 * Never: trusts a count, an offset, a flag or a ref read from the file
 * before checking it (docs/DESIGN.md invariant 5), and never replaces a
 * node without freeing the old one through the node layer (verify would
 * report the leak).
 *
 * Encodings. A column is one node, or a "top" node (flags HAS_REFS) whose
 * children are its parts: the value parts of its type, then, when the
 * property is nullable, the null bits (an integer node, 1 = null, one per
 * value). A column of one part without null bits is that part alone.
 *
 *   int, bool      values: integer node (bool 0/1)
 *   float          values: integer node of the float's 32 bits read as an
 *                  int32 (sign-extended: every float packs in 32 bits)
 *   double         values: integer node of the double's 64 bits as an int64
 *   timestamp      [seconds: integer node, nanoseconds: integer node]
 *   decimal128     values: bytes node of count x 16 bytes (low word, then
 *                  high word, each little-endian)
 *   objectId, uuid values: bytes node of count x 12 / 16 bytes
 *   string, binary [ends, bytes, large]: ends is an integer node (the end
 *                  offset of each value in bytes; a value starts where the
 *                  previous one ends), bytes a bytes node with the values one
 *                  after another, large 0 or a HAS_REFS node with one
 *                  element per value: 0, or the ref of a bytes node holding
 *                  that value alone (its bytes in `bytes` are then empty). A
 *                  value gets its own node when zstd (level 1) shrinks it by
 *                  at least an eighth (values of COLUMN_COMPRESS_MIN bytes or
 *                  more; the node has flag NODE_CONTEXT and holds one zstd
 *                  frame with its content size), or when it is larger than
 *                  COLUMN_INLINE_MAX. `large` is 0 while no value has its own
 *                  node.
 * A required string or binary column built at once (column_create_from_values,
 * no value with a node of its own) is instead one bytes node, "packed":
 * byte 0 the width in bits of its ends (8, 16 or 32), bytes 1-3 zero,
 * bytes 4-7 the number of values (u32), then the ends (signed, little-
 * endian, that width), then the values' bytes. A point read then reads one
 * node where the parts take three. Reading sees the same ends and bytes as
 * the parts (open_column makes views of them); a change first turns a
 * packed column into parts (unpack_for_change), so changes know one form.
 * A null holds the default in the value parts (0, empty, decimal 0E0).
 * Integer nodes are changed with node_set/node_insert at whatever width they
 * have; the commit re-packs each at its smallest width.
 *
 * Checks. Every read checks the shape: the top's flags and child count,
 * each part's flags, that the parts hold the same number of values, that
 * no ref repeats; a read of many values and a change also that the last end
 * equals the size of `bytes`. A read of one value checks what it uses (its offsets lie in order inside `bytes`,
 * a bool is 0 or 1, a null bit 0 or 1, ...). A change first checks every
 * value of a column that still has committed parts (a change copies and
 * rewrites them, so damage must be caught before it spreads); a column whose
 * parts this transaction made was checked when it was copied.
 */
#include "column.h"
#include "error.h"
#include "value.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

enum column_kind { KIND_INTEGER, KIND_TIMESTAMP, KIND_FIXED, KIND_VARIABLE, KIND_OWNED_REFS };

/* The children of a column's top node. The null bits come after the value
 * parts (shape.null_part). */
enum {
    PART_VALUES = 0,      /* integers, seconds, fixed-size values, or the ends of strings */
    PART_NANOSECONDS = 1, /* timestamps */
    PART_BYTES = 1,       /* strings and binaries */
    PART_LARGE = 2,       /* strings and binaries: the values with nodes of their own */
    PART_MAX = 4
};

typedef struct column_shape {
    ce_type type;
    enum column_kind kind;
    bool nullable;
    unsigned value_parts;
    unsigned parts;      /* value parts + the null bits */
    unsigned null_part;  /* PART_MAX when not nullable */
    bool has_top;        /* the column's ref is a top node; else it is its only part */
    size_t element_size; /* KIND_FIXED: bytes per value */
} column_shape;

/* A column as read: its parts and its number of values. */
typedef struct column_view {
    column_shape shape;
    space_ref ref;
    space_ref part_refs[PART_MAX]; /* 0: absent (only PART_LARGE may be, or the parts of a packed column) */
    node_view parts[PART_MAX];    /* valid until a part changes; re-read after */
    size_t count;
    bool packed;                /* one node: its ends and bytes are views of it (see the top) */
} column_view;

/* ------------------------------------------------------------------------ */
/* Shapes and checks                                                         */
/* ------------------------------------------------------------------------ */

static bool shape_of(ce_type type, bool nullable, column_shape *shape)
{
    memset(shape, 0, sizeof *shape);
    shape->type = type;
    shape->nullable = nullable;
    if (type == COLUMN_TYPE_OWNED_REFS) {
        if (nullable) return error_fail(CE_ERR_INVALID_ARGUMENT, "internal error: a column of owned refs is never nullable");
        shape->kind = KIND_OWNED_REFS, shape->value_parts = 1, shape->parts = 1, shape->null_part = PART_MAX;
        return true;
    }
    switch (type) {
    case CE_TYPE_INT:
    case CE_TYPE_BOOL:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE: shape->kind = KIND_INTEGER, shape->value_parts = 1; break;
    case CE_TYPE_TIMESTAMP: shape->kind = KIND_TIMESTAMP, shape->value_parts = 2; break;
    case CE_TYPE_DECIMAL128: shape->kind = KIND_FIXED, shape->value_parts = 1, shape->element_size = 16; break;
    case CE_TYPE_OBJECT_ID: shape->kind = KIND_FIXED, shape->value_parts = 1, shape->element_size = 12; break;
    case CE_TYPE_UUID: shape->kind = KIND_FIXED, shape->value_parts = 1, shape->element_size = 16; break;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: shape->kind = KIND_VARIABLE, shape->value_parts = 3; break;
    default:
        return error_fail(CE_ERR_INVALID_ARGUMENT, "%s properties are not supported by column arrays",
                       ce_type_name(type));
    }
    shape->parts = shape->value_parts + (nullable ? 1 : 0);
    shape->null_part = nullable ? shape->value_parts : PART_MAX;
    shape->has_top = shape->parts > 1;
    return true;
}

/* The flags every node of a part has. */
static uint8_t part_flags(const column_shape *shape, unsigned part)
{
    if (part == shape->null_part) return 0;
    if (shape->kind == KIND_FIXED) return NODE_BYTES;
    if (shape->kind == KIND_OWNED_REFS) return NODE_HAS_REFS;
    if (shape->kind == KIND_VARIABLE && part == PART_BYTES) return NODE_BYTES;
    if (shape->kind == KIND_VARIABLE && part == PART_LARGE) return NODE_HAS_REFS;
    return 0;
}

static const char *part_name(const column_shape *shape, unsigned part)
{
    if (part == shape->null_part) return "null bits";
    switch (shape->kind) {
    case KIND_TIMESTAMP: return part == PART_VALUES ? "seconds" : "nanoseconds";
    case KIND_VARIABLE: return part == PART_VALUES ? "ends" : part == PART_BYTES ? "bytes" : "large values";
    case KIND_INTEGER:
    case KIND_FIXED: break;
    case KIND_OWNED_REFS: return "owned refs";
    }
    return "values";
}

static bool corrupt(const column_view *view, const char *format, ...) CE_PRINTF(2, 3);
static bool corrupt(const column_view *view, const char *format, ...)
{
    char detail[256];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(detail, sizeof detail, format, arguments);
    va_end(arguments);
    return error_fail(CE_ERR_CORRUPT, "invalid database: the %s%s column at offset %llu is damaged: %s",
                   view->shape.nullable ? "nullable " : "",
                   view->shape.kind == KIND_OWNED_REFS ? "owned-refs" : ce_type_name(view->shape.type),
                   (unsigned long long)view->ref, detail);
}

/* Reads the node a HAS_REFS element names: a ref (even, non-zero), never a
 * dirty node under a committed parent (that can only be damage, and would
 * alias a node of this transaction). */
static bool read_child(const space_state *space, const column_view *view, space_ref parent, int64_t element,
                       const char *what, node_view *out_node)
{
    if (!node_value_is_ref(element))
        return corrupt(view, "its %s element is not a ref (%lld)", what, (long long)element);
    if (!ref_is_temporary(parent) && ref_is_temporary((space_ref)element))
        return corrupt(view, "its %s element is a bad ref (%llx)", what, (unsigned long long)element);
    return node_read(space, (space_ref)element, out_node);
}

static bool read_part(const space_state *space, column_view *view, unsigned part, int64_t element)
{
    const column_shape *shape = &view->shape;
    if (element == 0 && shape->kind == KIND_VARIABLE && part == PART_LARGE) {
        view->part_refs[part] = 0;
        memset(&view->parts[part], 0, sizeof view->parts[part]);
        return true;
    }
    if (!read_child(space, view, view->ref, element, part_name(shape, part), &view->parts[part])) return false;
    uint8_t expected = part_flags(shape, part);
    if (view->parts[part].flags != expected)
        return corrupt(view, "its %s node has flags %u, not %u", part_name(shape, part), view->parts[part].flags,
                       expected);
    view->part_refs[part] = (space_ref)element;
    return true;
}

static bool check_null_bit(const column_view *view, size_t index, bool *out_null)
{
    *out_null = false;
    if (!view->shape.nullable) return true;
    int64_t bit = node_get(&view->parts[view->shape.null_part], index);
    if (bit != 0 && bit != 1) return corrupt(view, "null bit %zu is %lld", index, (long long)bit);
    *out_null = bit == 1;
    return true;
}

/* The end offset of value `index` in `bytes`. */
static bool end_at(const column_view *view, size_t index, size_t *out_end)
{
    int64_t end = node_get(&view->parts[PART_VALUES], index);
    if (end < 0 || (uint64_t)end > view->parts[PART_BYTES].count)
        return corrupt(view, "the end of value %zu (%lld) lies outside its %u bytes", index, (long long)end,
                       view->parts[PART_BYTES].count);
    *out_end = (size_t)end;
    return true;
}

/* Where value `index` lies in `bytes`. */
static bool range_at(const column_view *view, size_t index, size_t *out_start, size_t *out_end)
{
    *out_start = 0;
    if (index > 0 && !end_at(view, index - 1, out_start)) return false;
    if (!end_at(view, index, out_end)) return false;
    if (*out_end < *out_start)
        return corrupt(view, "value %zu ends (%zu) before it starts (%zu)", index, *out_end, *out_start);
    return true;
}

/* The node of a value stored alone (element of `large`). */
static bool read_large_value(const space_state *space, const column_view *view, size_t index, int64_t element,
                             node_view *out_node)
{
    char what[48];
    snprintf(what, sizeof what, "large value %zu", index);
    if (!read_child(space, view, view->part_refs[PART_LARGE], element, what, out_node)) return false;
    if (out_node->flags != NODE_BYTES && out_node->flags != (NODE_BYTES | NODE_CONTEXT))
        return corrupt(view, "the node of large value %zu has flags %u", index, out_node->flags);
    return true;
}

static bool check_integer(const column_view *view, size_t index, int64_t stored)
{
    if (view->shape.type == CE_TYPE_BOOL && stored != 0 && stored != 1)
        return corrupt(view, "bool %zu is %lld", index, (long long)stored);
    if (view->shape.type == CE_TYPE_FLOAT && (stored < INT32_MIN || stored > INT32_MAX))
        return corrupt(view, "float %zu (%lld) has more than 32 bits", index, (long long)stored);
    return true;
}

/* An element of a column of owned refs: 0, or the ref of a node that only
 * this element names (a committed column never names a dirty node). */
static bool check_owned_ref(const column_view *view, size_t index, int64_t element)
{
    if (element == 0) return true;
    if (!node_value_is_ref(element))
        return corrupt(view, "owned ref %zu is not a ref (%lld)", index, (long long)element);
    if (!ref_is_temporary(view->part_refs[PART_VALUES]) && ref_is_temporary((space_ref)element))
        return corrupt(view, "owned ref %zu is a bad ref (%llx)", index, (unsigned long long)element);
    return true;
}

static bool check_timestamp(const column_view *view, size_t index, ce_timestamp timestamp)
{
    if (!value_timestamp_is_valid(timestamp))
        return corrupt(view, "timestamp %zu (%lld s, %d ns) is malformed", index, (long long)timestamp.seconds,
                       (int)timestamp.nanoseconds);
    return true;
}

static int compare_refs(const void *a, const void *b)
{
    space_ref left = *(const space_ref *)a, right = *(const space_ref *)b;
    return (left > right) - (left < right);
}

/* No node may have two parents: freeing or copying one of them would free
 * the other's child too. The top, the parts and the large values of one
 * column are checked against each other. */
static bool check_distinct_refs(const column_view *view, const space_ref *large_refs, size_t large_count)
{
    size_t count = 0;
    space_ref *refs = malloc((large_count + PART_MAX + 1) * sizeof *refs);
    if (!refs) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory checking a column");
    if (view->shape.has_top) refs[count++] = view->ref;
    for (unsigned part = 0; part < view->shape.parts; part++)
        if (view->part_refs[part]) refs[count++] = view->part_refs[part];
    for (size_t i = 0; i < large_count; i++) refs[count++] = large_refs[i];
    qsort(refs, count, sizeof *refs, compare_refs);
    bool distinct = true;
    for (size_t i = 1; i < count && distinct; i++) distinct = refs[i] != refs[i - 1];
    free(refs);
    if (!distinct) return corrupt(view, "one of its nodes is referenced twice");
    return true;
}

/* Every value, before a change (see the top of this file). */
static bool check_every_value(const space_state *space, const column_view *view)
{
    const column_shape *shape = &view->shape;
    space_ref *large_refs = NULL;
    size_t large_count = 0;
    if ((view->part_refs[PART_LARGE] && shape->kind == KIND_VARIABLE) || shape->kind == KIND_OWNED_REFS) {
        large_refs = malloc(view->count * sizeof *large_refs + 1);
        if (!large_refs) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory checking a column");
    }
    bool ok = true;
    size_t previous_end = 0;
    for (size_t i = 0; i < view->count && ok; i++) {
        bool is_null;
        ok = check_null_bit(view, i, &is_null);
        if (!ok) break;
        switch (shape->kind) {
        case KIND_INTEGER: ok = check_integer(view, i, node_get(&view->parts[PART_VALUES], i)); break;
        case KIND_TIMESTAMP: {
            ce_timestamp timestamp = {node_get(&view->parts[PART_VALUES], i), 0};
            int64_t nanoseconds = node_get(&view->parts[PART_NANOSECONDS], i);
            timestamp.nanoseconds = nanoseconds < INT32_MIN || nanoseconds > INT32_MAX ? INT32_MAX : (int32_t)nanoseconds;
            ok = check_timestamp(view, i, timestamp);
            break;
        }
        case KIND_FIXED: break;
        case KIND_OWNED_REFS: {
            int64_t element = node_get(&view->parts[PART_VALUES], i);
            ok = check_owned_ref(view, i, element);
            if (ok && element != 0) large_refs[large_count++] = (space_ref)element;
            break;
        }
        case KIND_VARIABLE: {
            size_t end = 0;
            ok = end_at(view, i, &end);
            if (ok && end < previous_end) ok = corrupt(view, "value %zu ends (%zu) before it starts (%zu)", i, end, previous_end);
            int64_t element = view->part_refs[PART_LARGE] ? node_get(&view->parts[PART_LARGE], i) : 0;
            if (ok && element != 0) {
                node_view node;
                ok = read_large_value(space, view, i, element, &node);
                if (ok && end != previous_end) ok = corrupt(view, "large value %zu also has bytes inline", i);
                if (ok) large_refs[large_count++] = (space_ref)element;
            }
            if (ok && is_null && (end != previous_end || element != 0))
                ok = corrupt(view, "null value %zu holds bytes", i);
            previous_end = end;
            break;
        }
        }
    }
    if (ok) ok = check_distinct_refs(view, large_refs, large_count);
    free(large_refs);
    return ok;
}

/* The packed form (see the top of this file). */
enum { PACKED_HEADER_SIZE = 8 };

/* Views of a packed column's ends and bytes, its node read already. */
static bool open_packed(column_view *view, const node_view *node)
{
    const uint8_t *payload = node->payload;
    if (node->count < PACKED_HEADER_SIZE) return corrupt(view, "its packed node holds %u bytes", node->count);
    uint8_t width = payload[0];
    uint32_t count;
    memcpy(&count, payload + 4, 4);
    if ((width != 8 && width != 16 && width != 32) || payload[1] || payload[2] || payload[3])
        return corrupt(view, "its packed node has a bad header (ends of width %u)", width);
    if (count > COLUMN_MAX_COUNT) return corrupt(view, "it claims %u values (at most %u)", count, COLUMN_MAX_COUNT);
    size_t ends_size = (size_t)count * (width / 8);
    if (ends_size > node->count - PACKED_HEADER_SIZE)
        return corrupt(view, "its packed node of %u bytes cannot hold %u ends", node->count, count);
    view->packed = true;
    view->parts[PART_VALUES] = (node_view){.payload = payload + PACKED_HEADER_SIZE, .count = count, .width = width};
    view->parts[PART_BYTES] = (node_view){.payload = payload + PACKED_HEADER_SIZE + ends_size,
                                        .count = (uint32_t)(node->count - PACKED_HEADER_SIZE - ends_size),
                                        .flags = NODE_BYTES,
                                        .width = 8};
    return true;
}

/* Reads a column and checks its shape; `for_change`: also every value, if
 * some part is still committed. */
/* What a column is opened for: what open_column checks beyond the shape. */
typedef enum column_purpose {
    FOR_ONE_VALUE, /* a point read: the value's own checks suffice (the last end is not read: one cache line less) */
    FOR_READING,   /* reads of many values: also the last end against the size of `bytes` */
    FOR_CHANGE,    /* a change: also every value of a column with committed parts */
} column_purpose;

static bool open_column(const space_state *space, space_ref ref, ce_type type, bool nullable, column_purpose purpose,
                        column_view *view)
{
    memset(view, 0, sizeof *view);
    if (!shape_of(type, nullable, &view->shape)) return false;
    const column_shape *shape = &view->shape;
    view->ref = ref;
    if (shape->has_top) {
        node_view top;
        if (!read_child(space, view, ref, (int64_t)ref, "top", &top)) return false;
        if (top.flags == NODE_BYTES && shape->kind == KIND_VARIABLE && !shape->nullable) {
            if (!open_packed(view, &top)) return false;
        } else {
            if (top.flags != NODE_HAS_REFS || top.count != shape->parts)
                return corrupt(view, "its top node has flags %u and %u children, not %u and %u", top.flags,
                               top.count, NODE_HAS_REFS, shape->parts);
            /* The parts' headers are fetched together: their misses overlap. */
            for (unsigned part = 0; part < shape->parts; part++) node_prefetch_header(space, node_get(&top, part));
            for (unsigned part = 0; part < shape->parts; part++)
                if (!read_part(space, view, part, node_get(&top, part))) return false;
        }
    } else if (!read_part(space, view, PART_VALUES, (int64_t)ref)) {
        return false;
    }
    if (shape->kind == KIND_FIXED) {
        if (view->parts[PART_VALUES].count % shape->element_size != 0)
            return corrupt(view, "its %u bytes are not a whole number of %zu-byte values",
                           view->parts[PART_VALUES].count, shape->element_size);
        view->count = view->parts[PART_VALUES].count / shape->element_size;
    } else {
        view->count = view->parts[PART_VALUES].count;
    }
    if (view->count > COLUMN_MAX_COUNT)
        return corrupt(view, "it claims %zu values (at most %u)", view->count, COLUMN_MAX_COUNT);
    bool committed = !ref_is_temporary(ref);
    for (unsigned part = 0; part < shape->parts; part++) {
        if (!view->part_refs[part]) continue;
        committed = committed || !ref_is_temporary(view->part_refs[part]);
        if (part == PART_VALUES || (shape->kind == KIND_VARIABLE && part == PART_BYTES)) continue;
        if (view->parts[part].count != view->count)
            return corrupt(view, "its %s node holds %u values, its %s %zu", part_name(shape, part),
                           view->parts[part].count, part_name(shape, PART_VALUES), view->count);
    }
    for (unsigned a = 0; a < shape->parts; a++)
        for (unsigned b = a + 1; b < shape->parts; b++)
            if (view->part_refs[a] && view->part_refs[a] == view->part_refs[b])
                return corrupt(view, "its %s and %s are the same node", part_name(shape, a), part_name(shape, b));
    if (shape->kind == KIND_VARIABLE && purpose != FOR_ONE_VALUE) {
        size_t last_end = 0;
        if (view->count > 0 && !end_at(view, view->count - 1, &last_end)) return false;
        if (last_end != view->parts[PART_BYTES].count)
            return corrupt(view, "its values end at %zu but it holds %u bytes", last_end, view->parts[PART_BYTES].count);
    }
    if (purpose == FOR_CHANGE && committed) return check_every_value(space, view);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Encoding values                                                           */
/* ------------------------------------------------------------------------ */

static int64_t encode_integer(const ce_value *value)
{
    switch (value->type) {
    case CE_TYPE_BOOL: return value->boolean ? 1 : 0;
    case CE_TYPE_FLOAT: {
        int32_t bits;
        memcpy(&bits, &value->float_value, 4);
        return bits;
    }
    case CE_TYPE_DOUBLE: {
        int64_t bits;
        memcpy(&bits, &value->double_value, 8);
        return bits;
    }
    case CE_TYPE_INT: return value->integer;
    default: return 0; /* null */
    }
}

static void decode_integer(ce_type type, int64_t stored, ce_value *out_value)
{
    out_value->type = type;
    switch (type) {
    case CE_TYPE_BOOL: out_value->boolean = stored != 0; break;
    case CE_TYPE_FLOAT: {
        int32_t bits = (int32_t)stored;
        memcpy(&out_value->float_value, &bits, 4);
        break;
    }
    case CE_TYPE_DOUBLE: memcpy(&out_value->double_value, &stored, 8); break;
    default: out_value->integer = stored; break;
    }
}

static void put_u64(uint8_t *target, uint64_t value)
{
    for (int i = 0; i < 8; i++) target[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_u64(const uint8_t *source)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++) value |= (uint64_t)source[i] << (8 * i);
    return value;
}

/* The stored bytes of a fixed-size value (or of the default, for null). */
static void encode_fixed(ce_type type, const ce_value *value, uint8_t *out_bytes)
{
    memset(out_bytes, 0, 16);
    bool is_null = value == NULL || value->type == CE_TYPE_NULL;
    switch (type) {
    case CE_TYPE_DECIMAL128:
        put_u64(out_bytes, is_null ? 0 : value->decimal.low);
        put_u64(out_bytes + 8, is_null ? VALUE_DECIMAL128_ZERO_HIGH : value->decimal.high);
        break;
    case CE_TYPE_OBJECT_ID:
        if (!is_null) memcpy(out_bytes, value->object_id.bytes, 12);
        break;
    default:
        if (!is_null) memcpy(out_bytes, value->uuid.bytes, 16);
        break;
    }
}

static void decode_fixed(ce_type type, const uint8_t *bytes, ce_value *out_value)
{
    out_value->type = type;
    switch (type) {
    case CE_TYPE_DECIMAL128:
        out_value->decimal.low = get_u64(bytes);
        out_value->decimal.high = get_u64(bytes + 8);
        break;
    case CE_TYPE_OBJECT_ID: memcpy(out_value->object_id.bytes, bytes, 12); break;
    default: memcpy(out_value->uuid.bytes, bytes, 16); break;
    }
}

/* A value passed to column_set, checked before anything changes. */
/* Whether a value fits the column's type and nullability (what
 * column_create_from_values checks; check_value also its content). */
static CE_COLD bool check_value_type_fully(const column_shape *shape, const ce_value *value)
{
    if (value->type == CE_TYPE_NULL) {
        if (!shape->nullable)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "a non-nullable property of type %s cannot be set to null",
                           ce_type_name(shape->type));
        return true;
    }
    if (shape->kind == KIND_OWNED_REFS) {
        if (value->type != CE_TYPE_INT || (value->integer != 0 && !node_value_is_ref(value->integer)))
            return error_fail(CE_ERR_INVALID_ARGUMENT, "internal error: a column of owned refs holds refs, not %s",
                           ce_type_name(value->type));
        return true;
    }
    if (value->type != shape->type)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a property of type %s cannot hold a value of type %s",
                       ce_type_name(shape->type), ce_type_name(value->type));
    return true;
}

/* The common case inline (a value of the column's own type), the rest in
 * check_value_type_fully: a column built from a leaf of values checks each. */
static inline bool check_value_type(const column_shape *shape, const ce_value *value)
{
    if (value->type == shape->type && shape->kind != KIND_OWNED_REFS) return true;
    return check_value_type_fully(shape, value);
}

static bool check_value(const column_shape *shape, const ce_value *value)
{
    if (!check_value_type(shape, value)) return false;
    if (value->type == CE_TYPE_NULL || shape->kind == KIND_OWNED_REFS) return true;
    switch (value->type) {
    case CE_TYPE_STRING:
        if (value->string.size > 0 && !value->string.data)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "a string value of %zu bytes has no data", value->string.size);
        if (value->string.size > NODE_MAX_COUNT)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "a string value of %zu bytes is too large (at most %u)",
                           value->string.size, NODE_MAX_COUNT);
        if (!utf8_is_valid(value->string.data, value->string.size))
            return error_fail(CE_ERR_INVALID_ARGUMENT, "a string value is not valid UTF-8");
        break;
    case CE_TYPE_BINARY:
        if (value->binary.size > 0 && !value->binary.data)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "a binary value of %zu bytes has no data", value->binary.size);
        if (value->binary.size > NODE_MAX_COUNT)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "a binary value of %zu bytes is too large (at most %u)",
                           value->binary.size, NODE_MAX_COUNT);
        break;
    case CE_TYPE_TIMESTAMP:
        if (!value_timestamp_is_valid(value->timestamp))
            return error_fail(CE_ERR_INVALID_ARGUMENT,
                           "the timestamp (%lld s, %d ns) is malformed: nanoseconds must lie within "
                           "+-999999999 and have the sign of seconds",
                           (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
        break;
    default: break;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Large and compressed values                                               */
/* ------------------------------------------------------------------------ */

void column_scratch_free(column_scratch *scratch)
{
    free(scratch->buffer);
    ZSTD_freeDCtx(scratch->decompressor); /* accepts NULL */
    *scratch = (column_scratch)CE_COLUMN_SCRATCH_INIT;
}

/* Decides where a string or binary value goes: *out_own is the ref of a
 * new node holding it alone (compressed or not), or 0 for inline. */
static bool store_alone_if_large(space_state *space, const uint8_t *data, size_t size, space_ref *out_own)
{
    *out_own = 0;
    if (size >= COLUMN_COMPRESS_MIN) {
        size_t bound = ZSTD_compressBound(size);
        uint8_t *compressed = malloc(bound);
        if (!compressed) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", bound);
        size_t compressed_size = ZSTD_compress(compressed, bound, data, size, 1);
        if (ZSTD_isError(compressed_size)) {
            free(compressed);
            return error_fail(CE_ERR_FAIL, "zstd could not compress a value of %zu bytes: %s", size,
                           ZSTD_getErrorName(compressed_size));
        }
        bool worth_it = compressed_size <= size - size / 8;
        bool ok = !worth_it || node_create_bytes(space, NODE_CONTEXT, compressed, compressed_size, out_own);
        free(compressed);
        if (!ok || worth_it) return ok;
    }
    if (size > COLUMN_INLINE_MAX) return node_create_bytes(space, 0, data, size, out_own);
    return true;
}

static bool decompress(const column_view *view, size_t index, const node_view *node, column_scratch *scratch,
                       const uint8_t **out_data, size_t *out_size)
{
    unsigned long long size = ZSTD_getFrameContentSize(node->payload, node->count);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > NODE_MAX_COUNT)
        return corrupt(view, "compressed value %zu is not a zstd frame of a known size", index);
    /* Every block of a frame has a 3-byte header and yields at most
     * ZSTD_BLOCKSIZE_MAX bytes: a damaged size field cannot make a few
     * bytes claim gigabytes of buffer. */
    if (size > (unsigned long long)(node->count / 3) * ZSTD_BLOCKSIZE_MAX)
        return corrupt(view, "compressed value %zu claims %llu bytes from %u", index, size, node->count);
    if (scratch->capacity < size || !scratch->buffer) {
        uint8_t *grown = realloc(scratch->buffer, size ? (size_t)size : 1);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%llu bytes)", size);
        scratch->buffer = grown;
        scratch->capacity = size ? (size_t)size : 1;
    }
    if (!scratch->decompressor && !(scratch->decompressor = ZSTD_createDCtx()))
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (a zstd decompressor)");
    size_t result = ZSTD_decompressDCtx(scratch->decompressor, scratch->buffer, (size_t)size, node->payload, node->count);
    if (ZSTD_isError(result) || result != size) {
        /* A damaged frame may have claimed a huge size: do not keep the buffer. */
        free(scratch->buffer);
        scratch->buffer = NULL;
        scratch->capacity = 0;
        return corrupt(view, "compressed value %zu does not decompress (%s)", index,
                       ZSTD_isError(result) ? ZSTD_getErrorName(result) : "wrong size");
    }
    *out_data = scratch->buffer;
    *out_size = (size_t)size;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

static bool out_of_bounds(const column_view *view, size_t index)
{
    return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "position %zu is beyond the %zu values of the column", index,
                   view->count);
}

bool column_size(const space_state *space, space_ref column, ce_type type, bool nullable, size_t *out_count)
{
    column_view view;
    if (!open_column(space, column, type, nullable, FOR_READING, &view)) return false;
    *out_count = view.count;
    return true;
}

static bool get_variable(const space_state *space, const column_view *view, size_t index, column_scratch *scratch,
                         ce_value *out_value)
{
    size_t start, end;
    /* The line of the bytes if the values have about one size, fetched while the ends are read. */
    const node_view *bytes = &view->parts[PART_BYTES];
    if (index < view->count && bytes->count > 0) prefetch_line(bytes->payload + (uint64_t)index * bytes->count / view->count);
    if (!range_at(view, index, &start, &end)) return false;
    const uint8_t *data = view->parts[PART_BYTES].payload + start;
    size_t size = end - start;
    int64_t element = view->part_refs[PART_LARGE] ? node_get(&view->parts[PART_LARGE], index) : 0;
    if (element != 0) {
        node_view node;
        if (!read_large_value(space, view, index, element, &node)) return false;
        if (size != 0) return corrupt(view, "large value %zu also has bytes inline", index);
        if (node.flags & NODE_CONTEXT) {
            if (!decompress(view, index, &node, scratch, &data, &size)) return false;
        } else {
            data = node.payload;
            size = node.count;
        }
    }
    out_value->type = view->shape.type;
    if (view->shape.type == CE_TYPE_STRING) {
        out_value->string.data = (const char *)data;
        out_value->string.size = size;
    } else {
        out_value->binary.data = data;
        out_value->binary.size = size;
    }
    return true;
}

static bool view_get(const space_state *space, const column_view *view, size_t index, column_scratch *scratch,
                     ce_value *out_value);

bool column_get(const space_state *space, space_ref column, ce_type type, bool nullable, size_t index,
                column_scratch *scratch, ce_value *out_value)
{
    if (!nullable && (type == CE_TYPE_INT || type == CE_TYPE_DOUBLE || type == CE_TYPE_BOOL || type == CE_TYPE_FLOAT)) {
        /* The common case, a column of one integer node, in one read: what
         * open_column and view_get check of it. Anything else (damage
         * included) takes the general path, which reports it. */
        node_view node;
        if (node_value_is_ref((int64_t)column) && node_read(space, column, &node) && node.flags == 0 &&
            node.count <= COLUMN_MAX_COUNT && index < node.count) {
            int64_t stored = node_get(&node, index);
            if ((type != CE_TYPE_BOOL || stored == 0 || stored == 1) &&
                (type != CE_TYPE_FLOAT || (stored >= INT32_MIN && stored <= INT32_MAX))) {
                memset(out_value, 0, sizeof *out_value);
                decode_integer(type, stored, out_value);
                return true;
            }
        }
    }
    column_view view;
    if (!open_column(space, column, type, nullable, FOR_ONE_VALUE, &view)) return false;
    return view_get(space, &view, index, scratch, out_value);
}

/* The value at `index` of a column already opened (and checked). */
static bool view_get(const space_state *space, const column_view *view, size_t index, column_scratch *scratch,
                     ce_value *out_value)
{
    ce_type type = view->shape.type;
    if (view->shape.kind == KIND_VARIABLE && !scratch)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "internal error: reading a %s column needs a scratch buffer",
                       ce_type_name(type));
    if (index >= view->count) return out_of_bounds(view, index);
    memset(out_value, 0, sizeof *out_value);
    bool is_null;
    if (!check_null_bit(view, index, &is_null)) return false;
    if (is_null) {
        out_value->type = CE_TYPE_NULL;
        return true;
    }
    switch (view->shape.kind) {
    case KIND_INTEGER: {
        int64_t stored = node_get(&view->parts[PART_VALUES], index);
        if (!check_integer(view, index, stored)) return false;
        decode_integer(type, stored, out_value);
        return true;
    }
    case KIND_TIMESTAMP: {
        int64_t seconds = node_get(&view->parts[PART_VALUES], index);
        int64_t nanoseconds = node_get(&view->parts[PART_NANOSECONDS], index);
        ce_timestamp timestamp = {seconds, nanoseconds < INT32_MIN || nanoseconds > INT32_MAX ? INT32_MAX : (int32_t)nanoseconds};
        if (!check_timestamp(view, index, timestamp)) return false;
        out_value->type = type;
        out_value->timestamp = timestamp;
        return true;
    }
    case KIND_FIXED:
        decode_fixed(type, view->parts[PART_VALUES].payload + index * view->shape.element_size, out_value);
        return true;
    case KIND_OWNED_REFS: {
        int64_t element = node_get(&view->parts[PART_VALUES], index);
        if (!check_owned_ref(view, index, element)) return false;
        *out_value = (ce_value){.type = CE_TYPE_INT, .integer = element};
        return true;
    }
    case KIND_VARIABLE: break;
    }
    return get_variable(space, view, index, scratch, out_value);
}

/* ------------------------------------------------------------------------ */
/* Changing parts                                                            */
/* ------------------------------------------------------------------------ */

/* Makes the column's own node writable (the top, or its only part). */
static bool writable_top(space_state *space, space_ref *column, column_view *view)
{
    if (!node_make_writable(space, column)) return false;
    view->ref = *column;
    if (!view->shape.has_top) view->part_refs[PART_VALUES] = *column;
    return true;
}

/* Makes a part writable: the top first, then the part, whose new ref the
 * top then names. */
static bool writable_part(space_state *space, space_ref *column, column_view *view, unsigned part)
{
    if (!writable_top(space, column, view)) return false;
    if (!view->shape.has_top || ref_is_temporary(view->part_refs[part])) return true;
    space_ref child = view->part_refs[part];
    if (!node_make_writable(space, &child)) return false;
    view->part_refs[part] = child;
    return node_set(space, *column, part, (int64_t)child);
}

static bool part_read(const space_state *space, const column_view *view, unsigned part, node_view *out_node)
{
    return node_read(space, view->part_refs[part], out_node);
}

/* Sets an integer of a part, copying the part only if the value changes. */
static bool part_set(space_state *space, space_ref *column, column_view *view, unsigned part, size_t index, int64_t value)
{
    node_view node;
    if (!part_read(space, view, part, &node)) return false;
    if (index < node.count && node_get(&node, index) == value) return true;
    return writable_part(space, column, view, part) && node_set(space, view->part_refs[part], index, value);
}

static bool part_insert(space_state *space, space_ref *column, column_view *view, unsigned part, size_t index, int64_t value)
{
    return writable_part(space, column, view, part) && node_insert(space, view->part_refs[part], index, value);
}

static bool part_erase(space_state *space, space_ref *column, column_view *view, unsigned part, size_t index)
{
    return writable_part(space, column, view, part) && node_erase(space, view->part_refs[part], index);
}

/* Replaces bytes [start, end) of a bytes part with `insert`. The new payload
 * is built apart first: `insert` may point into the part itself. */
static bool bytes_splice(space_state *space, space_ref *column, column_view *view, unsigned part, size_t start, size_t end,
                         const void *insert, size_t insert_size)
{
    node_view node;
    if (!part_read(space, view, part, &node)) return false;
    size_t total = node.count;
    if (end == start && insert_size == 0) return true;
    size_t new_total = total - (end - start) + insert_size;
    if (new_total > NODE_MAX_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "the values of one column array cannot exceed %u bytes", NODE_MAX_COUNT);
    uint8_t *buffer = malloc(new_total ? new_total : 1);
    if (!buffer) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", new_total);
    if (start) memcpy(buffer, node.payload, start);
    if (insert_size) memcpy(buffer + start, insert, insert_size);
    if (total > end) memcpy(buffer + start + insert_size, node.payload + end, total - end);
    bool ok = writable_part(space, column, view, part) && node_set_bytes(space, view->part_refs[part], buffer, new_total);
    free(buffer);
    return ok;
}

/* Adds `delta` to the ends of values [from, count). */
static bool shift_ends(space_state *space, space_ref *column, column_view *view, size_t from, int64_t delta)
{
    if (delta == 0) return true;
    node_view ends;
    if (!part_read(space, view, PART_VALUES, &ends)) return false;
    if (from >= ends.count) return true;
    if (!writable_part(space, column, view, PART_VALUES)) return false;
    for (size_t i = from;; i++) {
        if (!part_read(space, view, PART_VALUES, &ends)) return false; /* a widening set moves the payload */
        if (i >= ends.count) return true;
        if (!node_set(space, view->part_refs[PART_VALUES], i, node_get(&ends, i) + delta)) return false;
    }
}

/* Gives the column a `large` part of zeros, if it has none. */
static bool ensure_large(space_state *space, space_ref *column, column_view *view, size_t count)
{
    if (view->part_refs[PART_LARGE]) return true;
    space_ref large;
    if (!node_create(space, NODE_HAS_REFS, count, 0, &large)) return false;
    view->part_refs[PART_LARGE] = large;
    return writable_top(space, column, view) && node_set(space, *column, PART_LARGE, (int64_t)large);
}

/* Drops the `large` part once no value has a node of its own. */
static bool drop_large_if_unused(space_state *space, space_ref *column, column_view *view)
{
    if (!view->part_refs[PART_LARGE]) return true;
    node_view large;
    if (!part_read(space, view, PART_LARGE, &large)) return false;
    for (size_t i = 0; i < large.count; i++)
        if (node_get(&large, i) != 0) return true;
    if (!writable_top(space, column, view) || !node_set(space, *column, PART_LARGE, 0)) return false;
    space_ref old = view->part_refs[PART_LARGE];
    view->part_refs[PART_LARGE] = 0;
    return node_free(space, old);
}

/* Moves integers [from, count) of a part into a new node. */
static bool split_integers(space_state *space, space_ref *column, column_view *view, unsigned part, size_t from,
                           space_ref *out_right)
{
    node_view node;
    if (!part_read(space, view, part, &node)) return false;
    size_t moved = node.count - from;
    if (!node_create(space, part_flags(&view->shape, part), moved, 0, out_right)) return false;
    /* node_create and node_set on the new node leave the old one's payload where it is. */
    for (size_t i = 0; i < moved; i++) {
        int64_t value = node_get(&node, from + i);
        if (value != 0 && !node_set(space, *out_right, i, value)) return false;
    }
    return writable_part(space, column, view, part) && node_truncate(space, view->part_refs[part], from);
}

/* Moves the first `length` bytes of a bytes part, from `start`, into a new
 * node, and keeps [0, start). */
static bool split_bytes(space_state *space, space_ref *column, column_view *view, unsigned part, size_t start,
                        space_ref *out_right)
{
    node_view node;
    if (!part_read(space, view, part, &node)) return false;
    if (!node_create_bytes(space, 0, node.payload + start, node.count - start, out_right)) return false;
    return writable_part(space, column, view, part) && node_truncate(space, view->part_refs[part], start);
}

/* ------------------------------------------------------------------------ */
/* Creating, changing, splitting                                             */
/* ------------------------------------------------------------------------ */

/* The column's own node from its parts. */
static bool assemble(space_state *space, const column_shape *shape, const space_ref *parts, space_ref *out_column)
{
    if (!shape->has_top) {
        *out_column = parts[PART_VALUES];
        return true;
    }
    if (!node_create(space, NODE_HAS_REFS, shape->parts, 0, out_column)) return false;
    for (unsigned part = 0; part < shape->parts; part++)
        if (parts[part] && !node_set(space, *out_column, part, (int64_t)parts[part])) return false;
    return true;
}

/* A packed column (see the top of this file) of `count` values ending at
 * `ends`, their bytes `data`. */
static bool create_packed(space_state *space, const int64_t *ends, size_t count, const uint8_t *data, size_t data_size,
                          space_ref *out_column)
{
    int64_t last_end = count ? ends[count - 1] : 0;
    unsigned width = last_end <= INT8_MAX ? 8 : last_end <= INT16_MAX ? 16 : 32;
    size_t ends_size = count * (width / 8), size = PACKED_HEADER_SIZE + ends_size + data_size;
    if (last_end > INT32_MAX || size > NODE_MAX_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "the values of one column array cannot exceed %u bytes", NODE_MAX_COUNT);
    uint8_t *payload = malloc(size);
    if (!payload) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", size);
    uint32_t count32 = (uint32_t)count;
    memset(payload, 0, PACKED_HEADER_SIZE);
    payload[0] = (uint8_t)width;
    memcpy(payload + 4, &count32, 4);
    for (size_t i = 0; i < count; i++) node_encode_element(payload + PACKED_HEADER_SIZE, (uint8_t)width, i, ends[i]);
    if (data_size) memcpy(payload + PACKED_HEADER_SIZE + ends_size, data, data_size);
    bool ok = node_create_bytes(space, 0, payload, size, out_column);
    free(payload);
    return ok;
}

/* Turns a packed column into parts before a change (see the top of this
 * file); any other column is left as it is. */
static bool unpack_for_change(space_state *space, space_ref *column, ce_type type, bool nullable)
{
    if ((type != CE_TYPE_STRING && type != CE_TYPE_BINARY) || nullable) return true;
    /* A glance at the column's own node: a column of parts is opened (and
     * checked) once, by the change itself. */
    node_view node;
    if (!node_value_is_ref((int64_t)*column)) return true; /* the change reports it */
    if (!node_read(space, *column, &node)) return false;
    if (node.flags != NODE_BYTES) return true;
    column_view view;
    /* Checked as a change checks committed parts: the parts made here are
     * not checked again. */
    if (!open_column(space, *column, type, nullable, FOR_CHANGE, &view)) return false;
    int64_t *ends = malloc((view.count + 1) * sizeof *ends);
    if (!ends) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory unpacking a column of %zu values", view.count);
    for (size_t i = 0; i < view.count; i++) ends[i] = node_get(&view.parts[PART_VALUES], i);
    space_ref parts[PART_MAX] = {0};
    space_ref packed = *column;
    /* The new parts copy the bytes before the packed node is freed. */
    bool ok = node_create_from(space, 0, ends, view.count, &parts[PART_VALUES]) &&
              node_create_bytes(space, 0, view.parts[PART_BYTES].payload, view.parts[PART_BYTES].count,
                                &parts[PART_BYTES]) &&
              node_free(space, packed) && assemble(space, &view.shape, parts, column);
    free(ends);
    return ok;
}

bool column_create(space_state *space, ce_type type, bool nullable, size_t count, space_ref *out_column)
{
    column_shape shape;
    if (!shape_of(type, nullable, &shape)) return false;
    if (count > COLUMN_MAX_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a column array holds at most %u values, not %zu", COLUMN_MAX_COUNT, count);
    space_ref parts[PART_MAX] = {0};
    bool ok = true;
    switch (shape.kind) {
    case KIND_INTEGER: ok = node_create(space, 0, count, 0, &parts[PART_VALUES]); break;
    case KIND_OWNED_REFS: ok = node_create(space, NODE_HAS_REFS, count, 0, &parts[PART_VALUES]); break;
    case KIND_TIMESTAMP:
        ok = node_create(space, 0, count, 0, &parts[PART_VALUES]) &&
             node_create(space, 0, count, 0, &parts[PART_NANOSECONDS]);
        break;
    case KIND_FIXED: {
        uint8_t element[16];
        encode_fixed(type, NULL, element);
        size_t size = count * shape.element_size;
        uint8_t *bytes = malloc(size ? size : 1);
        if (!bytes) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", size);
        for (size_t i = 0; i < count; i++) memcpy(bytes + i * shape.element_size, element, shape.element_size);
        ok = node_create_bytes(space, 0, bytes, size, &parts[PART_VALUES]);
        free(bytes);
        break;
    }
    case KIND_VARIABLE:
        ok = node_create(space, 0, count, 0, &parts[PART_VALUES]) &&
             node_create_bytes(space, 0, "", 0, &parts[PART_BYTES]);
        break;
    }
    if (ok && nullable) ok = node_create(space, 0, count, 1, &parts[shape.null_part]);
    return ok && assemble(space, &shape, parts, out_column);
}

/* A column holding `values`, built in one pass (a cluster leaf filled at
 * once). Values that would get a node of their own go through column_insert. */
bool column_create_from_values(space_state *space, ce_type type, bool nullable, const ce_value *values, size_t count,
                               space_ref *out_column)
{
    column_shape shape;
    if (!shape_of(type, nullable, &shape)) return false;
    if (count > COLUMN_MAX_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a column array holds at most %u values, not %zu", COLUMN_MAX_COUNT, count);
    size_t bytes_total = 0;
    for (size_t i = 0; i < count; i++) {
        /* The content was checked when the values were given (see column.h). */
        if (!check_value_type(&shape, &values[i])) return false;
        if (shape.kind == KIND_VARIABLE && values[i].type != CE_TYPE_NULL) {
            if (values[i].string.size >= COLUMN_COMPRESS_MIN) {
                /* Rare: a large value decides compression on its own. */
                if (!column_create(space, type, nullable, 0, out_column)) return false;
                for (size_t j = 0; j < count; j++)
                    if (!column_insert(space, out_column, type, nullable, j, &values[j])) return false;
                return true;
            }
            bytes_total += values[i].string.size;
        }
    }
    int64_t *first = malloc((2 * count + 1) * sizeof *first);
    uint8_t *bytes = malloc(shape.kind == KIND_FIXED ? count * shape.element_size + 1 : bytes_total + 1);
    if (!first || !bytes) {
        free(first);
        free(bytes);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory building a column of %zu values", count);
    }
    int64_t *second = first + count; /* nanoseconds, or null bits */
    space_ref parts[PART_MAX] = {0};
    bool ok = true;
    switch (shape.kind) {
    case KIND_INTEGER:
    case KIND_OWNED_REFS:
        for (size_t i = 0; i < count; i++)
            first[i] = shape.kind == KIND_OWNED_REFS ? values[i].integer : encode_integer(&values[i]);
        ok = node_create_from(space, part_flags(&shape, PART_VALUES), first, count, &parts[PART_VALUES]);
        break;
    case KIND_TIMESTAMP:
        for (size_t i = 0; i < count; i++) {
            bool is_null = values[i].type == CE_TYPE_NULL;
            first[i] = is_null ? 0 : values[i].timestamp.seconds;
            second[i] = is_null ? 0 : values[i].timestamp.nanoseconds;
        }
        ok = node_create_from(space, 0, first, count, &parts[PART_VALUES]) &&
             node_create_from(space, 0, second, count, &parts[PART_NANOSECONDS]);
        break;
    case KIND_FIXED:
        for (size_t i = 0; i < count; i++) {
            uint8_t element[16]; /* encode_fixed writes 16 bytes; an object id keeps 12 */
            encode_fixed(type, values[i].type == CE_TYPE_NULL ? NULL : &values[i], element);
            memcpy(bytes + i * shape.element_size, element, shape.element_size);
        }
        ok = node_create_bytes(space, 0, bytes, count * shape.element_size, &parts[PART_VALUES]);
        break;
    case KIND_VARIABLE: {
        size_t end = 0;
        for (size_t i = 0; i < count; i++) {
            if (values[i].type != CE_TYPE_NULL && values[i].string.size > 0) {
                memcpy(bytes + end, values[i].string.data, values[i].string.size);
                end += values[i].string.size;
            }
            first[i] = (int64_t)end;
        }
        if (!nullable) {
            /* No null bits and no value alone: the packed form. */
            ok = create_packed(space, first, count, bytes, end, out_column);
            free(first);
            free(bytes);
            return ok;
        }
        ok = node_create_from(space, 0, first, count, &parts[PART_VALUES]) &&
             node_create_bytes(space, 0, bytes, end, &parts[PART_BYTES]);
        break;
    }
    }
    if (ok && nullable) {
        for (size_t i = 0; i < count; i++) second[i] = values[i].type == CE_TYPE_NULL ? 1 : 0;
        ok = node_create_from(space, 0, second, count, &parts[shape.null_part]);
    }
    free(first);
    free(bytes);
    return ok && assemble(space, &shape, parts, out_column);
}

static bool set_variable(space_state *space, space_ref *column, column_view *view, size_t index, const ce_value *value)
{
    bool is_null = value->type == CE_TYPE_NULL;
    const uint8_t *data = NULL;
    size_t size = 0;
    if (!is_null) {
        data = view->shape.type == CE_TYPE_STRING ? (const uint8_t *)value->string.data : value->binary.data;
        size = view->shape.type == CE_TYPE_STRING ? value->string.size : value->binary.size;
    }
    /* The new value's own node first: `data` may point into this column. */
    space_ref own = 0;
    if (!is_null && !store_alone_if_large(space, data, size, &own)) return false;
    size_t inline_size = own ? 0 : size;
    size_t start, end;
    if (!range_at(view, index, &start, &end)) return false;
    int64_t old_own = view->part_refs[PART_LARGE] ? node_get(&view->parts[PART_LARGE], index) : 0;
    if (end - start != inline_size || (inline_size && memcmp(view->parts[PART_BYTES].payload + start, data, inline_size) != 0)) {
        if (!bytes_splice(space, column, view, PART_BYTES, start, end, data, inline_size)) return false;
        if (!shift_ends(space, column, view, index, (int64_t)inline_size - (int64_t)(end - start))) return false;
    }
    if (own || old_own) {
        if (own && !ensure_large(space, column, view, view->count)) return false;
        if (!part_set(space, column, view, PART_LARGE, index, (int64_t)own)) return false;
        if (old_own && !node_free_tree(space, (space_ref)old_own)) return false;
        if (!drop_large_if_unused(space, column, view)) return false;
    }
    return true;
}

bool column_set(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index, const ce_value *value)
{
    column_view view;
    if (!unpack_for_change(space, column, type, nullable)) return false;
    if (!open_column(space, *column, type, nullable, FOR_CHANGE, &view)) return false;
    if (!check_value(&view.shape, value)) return false;
    if (index >= view.count) return out_of_bounds(&view, index);
    bool is_null = value->type == CE_TYPE_NULL;
    bool ok = true;
    switch (view.shape.kind) {
    case KIND_INTEGER: ok = part_set(space, column, &view, PART_VALUES, index, encode_integer(value)); break;
    case KIND_OWNED_REFS: ok = part_set(space, column, &view, PART_VALUES, index, value->integer); break;
    case KIND_TIMESTAMP:
        ok = part_set(space, column, &view, PART_VALUES, index, is_null ? 0 : value->timestamp.seconds) &&
             part_set(space, column, &view, PART_NANOSECONDS, index, is_null ? 0 : value->timestamp.nanoseconds);
        break;
    case KIND_FIXED: {
        uint8_t element[16];
        encode_fixed(type, value, element);
        size_t size = view.shape.element_size, at = index * size;
        if (memcmp(view.parts[PART_VALUES].payload + at, element, size) != 0)
            ok = bytes_splice(space, column, &view, PART_VALUES, at, at + size, element, size);
        break;
    }
    case KIND_VARIABLE: ok = set_variable(space, column, &view, index, value); break;
    }
    if (ok && nullable) ok = part_set(space, column, &view, view.shape.null_part, index, is_null ? 1 : 0);
    return ok;
}

bool column_set_in_place(space_state *space, space_ref column, ce_type type, bool nullable, size_t index,
                         const ce_value *value, bool *out_done)
{
    *out_done = false;
    unsigned value_parts;
    switch (type) {
    case CE_TYPE_INT:
    case CE_TYPE_BOOL:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE: value_parts = 1; break;
    case CE_TYPE_TIMESTAMP: value_parts = 2; break;
    default: return true; /* not of fixed width: column_set */
    }
    bool is_null = value->type == CE_TYPE_NULL;
    /* Anything column_set would refuse, it refuses itself, with its message. */
    if (is_null ? !nullable : value->type != type) return true;
    if (type == CE_TYPE_TIMESTAMP && !is_null && !value_timestamp_is_valid(value->timestamp)) return true;
    if (!ref_is_temporary(column)) return true;
    unsigned parts = value_parts + (nullable ? 1u : 0u);
    int64_t refs[3] = {(int64_t)column, 0, 0};
    if (parts > 1) {
        node_view top;
        if (!node_read(space, column, &top)) return false;
        if (top.flags != NODE_HAS_REFS || top.count != parts) return true; /* column_set reports the damage */
        for (unsigned part = 0; part < parts; part++) refs[part] = node_get(&top, part);
    }
    /* Every part dirty, else column_set (which copies and checks): a dirty
     * part was checked when it was copied or made (its flags, as many values
     * as the other parts and the leaf), and node_set refuses an index past
     * the end, so a column of one part is not read first. */
    for (unsigned part = 0; part < parts; part++)
        if (!node_value_is_ref(refs[part]) || !ref_is_temporary((space_ref)refs[part])) return true;
    int64_t stored[3];
    if (type == CE_TYPE_TIMESTAMP) {
        stored[0] = is_null ? 0 : value->timestamp.seconds;
        stored[1] = is_null ? 0 : value->timestamp.nanoseconds;
    } else {
        stored[0] = is_null ? 0 : encode_integer(value);
    }
    if (nullable) stored[value_parts] = is_null ? 1 : 0;
    /* Where the node lies, widened only when the value needs more bits. */
    for (unsigned part = 0; part < parts; part++)
        if (!node_set(space, (space_ref)refs[part], index, stored[part])) return false;
    *out_done = true;
    return true;
}

bool column_insert_default(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index)
{
    column_view view;
    if (!unpack_for_change(space, column, type, nullable)) return false;
    if (!open_column(space, *column, type, nullable, FOR_CHANGE, &view)) return false;
    if (index > view.count) return out_of_bounds(&view, index);
    if (view.count >= COLUMN_MAX_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a column array holds at most %u values", COLUMN_MAX_COUNT);
    bool ok = true;
    switch (view.shape.kind) {
    case KIND_INTEGER:
    case KIND_OWNED_REFS: ok = part_insert(space, column, &view, PART_VALUES, index, 0); break;
    case KIND_TIMESTAMP:
        ok = part_insert(space, column, &view, PART_VALUES, index, 0) &&
             part_insert(space, column, &view, PART_NANOSECONDS, index, 0);
        break;
    case KIND_FIXED: {
        uint8_t element[16];
        encode_fixed(type, NULL, element);
        size_t at = index * view.shape.element_size;
        ok = bytes_splice(space, column, &view, PART_VALUES, at, at, element, view.shape.element_size);
        break;
    }
    case KIND_VARIABLE: {
        size_t start = 0;
        ok = (index == 0 || end_at(&view, index - 1, &start)) &&
             part_insert(space, column, &view, PART_VALUES, index, (int64_t)start);
        if (ok && view.part_refs[PART_LARGE]) ok = part_insert(space, column, &view, PART_LARGE, index, 0);
        break;
    }
    }
    if (ok && nullable) ok = part_insert(space, column, &view, view.shape.null_part, index, 1);
    return ok;
}

bool column_insert(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index, const ce_value *value)
{
    column_view view;
    if (!unpack_for_change(space, column, type, nullable)) return false;
    if (!open_column(space, *column, type, nullable, FOR_CHANGE, &view)) return false;
    if (!check_value(&view.shape, value)) return false;
    if (index > view.count) return out_of_bounds(&view, index);
    if (view.count >= COLUMN_MAX_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a column array holds at most %u values", COLUMN_MAX_COUNT);
    bool is_null = value->type == CE_TYPE_NULL;
    bool ok = true;
    switch (view.shape.kind) {
    case KIND_INTEGER: ok = part_insert(space, column, &view, PART_VALUES, index, encode_integer(value)); break;
    case KIND_OWNED_REFS: ok = part_insert(space, column, &view, PART_VALUES, index, value->integer); break;
    case KIND_TIMESTAMP:
        ok = part_insert(space, column, &view, PART_VALUES, index, is_null ? 0 : value->timestamp.seconds) &&
             part_insert(space, column, &view, PART_NANOSECONDS, index, is_null ? 0 : value->timestamp.nanoseconds);
        break;
    case KIND_FIXED: {
        uint8_t element[16];
        encode_fixed(type, is_null ? NULL : value, element);
        size_t at = index * view.shape.element_size;
        ok = bytes_splice(space, column, &view, PART_VALUES, at, at, element, view.shape.element_size);
        break;
    }
    case KIND_VARIABLE: {
        const uint8_t *data = NULL;
        size_t size = 0, start = 0;
        if (!is_null) {
            data = type == CE_TYPE_STRING ? (const uint8_t *)value->string.data : value->binary.data;
            size = type == CE_TYPE_STRING ? value->string.size : value->binary.size;
        }
        /* The value's own node first: `data` may point into this column. */
        space_ref own = 0;
        if (!is_null && !store_alone_if_large(space, data, size, &own)) return false;
        size_t inline_size = own ? 0 : size;
        ok = (index == 0 || end_at(&view, index - 1, &start)) &&
             bytes_splice(space, column, &view, PART_BYTES, start, start, data, inline_size) &&
             part_insert(space, column, &view, PART_VALUES, index, (int64_t)(start + inline_size)) &&
             shift_ends(space, column, &view, index + 1, (int64_t)inline_size);
        if (ok && own) ok = ensure_large(space, column, &view, view.count);
        if (ok && view.part_refs[PART_LARGE]) ok = part_insert(space, column, &view, PART_LARGE, index, (int64_t)own);
        break;
    }
    }
    if (ok && nullable) ok = part_insert(space, column, &view, view.shape.null_part, index, is_null ? 1 : 0);
    return ok;
}

bool column_erase(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index)
{
    column_view view;
    if (!unpack_for_change(space, column, type, nullable)) return false;
    if (!open_column(space, *column, type, nullable, FOR_CHANGE, &view)) return false;
    if (index >= view.count) return out_of_bounds(&view, index);
    bool ok = true;
    switch (view.shape.kind) {
    case KIND_INTEGER: ok = part_erase(space, column, &view, PART_VALUES, index); break;
    case KIND_OWNED_REFS: {
        int64_t element = node_get(&view.parts[PART_VALUES], index);
        ok = check_owned_ref(&view, index, element) && part_erase(space, column, &view, PART_VALUES, index) &&
             (element == 0 || node_free_tree(space, (space_ref)element));
        break;
    }
    case KIND_TIMESTAMP:
        ok = part_erase(space, column, &view, PART_VALUES, index) &&
             part_erase(space, column, &view, PART_NANOSECONDS, index);
        break;
    case KIND_FIXED: {
        size_t size = view.shape.element_size;
        ok = bytes_splice(space, column, &view, PART_VALUES, index * size, (index + 1) * size, NULL, 0);
        break;
    }
    case KIND_VARIABLE: {
        size_t start, end;
        if (!range_at(&view, index, &start, &end)) return false;
        int64_t own = view.part_refs[PART_LARGE] ? node_get(&view.parts[PART_LARGE], index) : 0;
        ok = bytes_splice(space, column, &view, PART_BYTES, start, end, NULL, 0) &&
             part_erase(space, column, &view, PART_VALUES, index) &&
             shift_ends(space, column, &view, index, -(int64_t)(end - start));
        if (ok && view.part_refs[PART_LARGE]) {
            ok = part_erase(space, column, &view, PART_LARGE, index) && (!own || node_free_tree(space, (space_ref)own)) &&
                 drop_large_if_unused(space, column, &view);
        }
        break;
    }
    }
    if (ok && nullable) ok = part_erase(space, column, &view, view.shape.null_part, index);
    return ok;
}

static bool split_variable(space_state *space, space_ref *column, column_view *view, size_t from, space_ref *right_parts)
{
    size_t base = 0;
    if (from > 0 && !end_at(view, from - 1, &base)) return false;
    /* The ends of the moved values, less the bytes that stay. */
    if (!split_integers(space, column, view, PART_VALUES, from, &right_parts[PART_VALUES])) return false;
    node_view right_ends;
    for (size_t i = 0;; i++) {
        if (!node_read(space, right_parts[PART_VALUES], &right_ends)) return false;
        if (i >= right_ends.count) break;
        if (!node_set(space, right_parts[PART_VALUES], i, node_get(&right_ends, i) - (int64_t)base)) return false;
    }
    if (!split_bytes(space, column, view, PART_BYTES, base, &right_parts[PART_BYTES])) return false;
    if (!view->part_refs[PART_LARGE]) return true;
    node_view large;
    if (!part_read(space, view, PART_LARGE, &large)) return false;
    bool any_moved = false;
    for (size_t i = from; i < large.count && !any_moved; i++) any_moved = node_get(&large, i) != 0;
    if (any_moved) {
        if (!split_integers(space, column, view, PART_LARGE, from, &right_parts[PART_LARGE])) return false;
    } else if (!writable_part(space, column, view, PART_LARGE) ||
               !node_truncate(space, view->part_refs[PART_LARGE], from)) {
        return false;
    }
    return drop_large_if_unused(space, column, view);
}

bool column_split(space_state *space, space_ref *column, ce_type type, bool nullable, size_t from, space_ref *out_right)
{
    column_view view;
    if (!unpack_for_change(space, column, type, nullable)) return false;
    if (!open_column(space, *column, type, nullable, FOR_CHANGE, &view)) return false;
    if (from > view.count) return out_of_bounds(&view, from);
    space_ref right_parts[PART_MAX] = {0};
    bool ok = true;
    switch (view.shape.kind) {
    case KIND_INTEGER:
    case KIND_OWNED_REFS: ok = split_integers(space, column, &view, PART_VALUES, from, &right_parts[PART_VALUES]); break;
    case KIND_TIMESTAMP:
        ok = split_integers(space, column, &view, PART_VALUES, from, &right_parts[PART_VALUES]) &&
             split_integers(space, column, &view, PART_NANOSECONDS, from, &right_parts[PART_NANOSECONDS]);
        break;
    case KIND_FIXED:
        ok = split_bytes(space, column, &view, PART_VALUES, from * view.shape.element_size, &right_parts[PART_VALUES]);
        break;
    case KIND_VARIABLE: ok = split_variable(space, column, &view, from, right_parts); break;
    }
    if (ok && nullable)
        ok = split_integers(space, column, &view, view.shape.null_part, from, &right_parts[view.shape.null_part]);
    return ok && assemble(space, &view.shape, right_parts, out_right);
}

bool column_numbers_view(const space_state *space, space_ref column, ce_type type, bool nullable, column_numbers *out)
{
    if (type != CE_TYPE_INT && type != CE_TYPE_BOOL && type != CE_TYPE_FLOAT && type != CE_TYPE_DOUBLE)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a %s column has no packed numbers", ce_type_name(type));
    column_view view;
    if (!open_column(space, column, type, nullable, FOR_READING, &view)) return false;
    out->values = view.parts[PART_VALUES];
    out->has_nulls = view.shape.null_part != PART_MAX;
    if (out->has_nulls) out->nulls = view.parts[view.shape.null_part];
    out->count = view.count;
    return true;
}

bool column_destroy(space_state *space, space_ref column)
{
    return node_free_tree(space, column);
}

/* ------------------------------------------------------------------------ */
/* Scans: a whole column array at once (the query layer)                     */
/* ------------------------------------------------------------------------ */

bool column_scan_open(const space_state *space, space_ref column, ce_type type, bool nullable, column_scan *out)
{
    /* The common case, a column of one node (a required number, decimal,
     * object id or uuid): the checks of open_column, without its setup. */
    if (!nullable && (type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE)) {
        node_view node;
        if (node_value_is_ref((int64_t)column) && node_read(space, column, &node) && node.flags == 0 &&
            node.count <= COLUMN_MAX_COUNT) {
            out->type = type;
            out->nullable = false;
            out->count = node.count;
            out->values = node;
            out->has_large = out->has_nulls = false;
            out->element_size = 0;
            out->ref = column;
            out->part_refs[0] = column;
            out->part_refs[1] = out->part_refs[2] = out->part_refs[3] = 0;
            return true;
        }
        /* Anything else: open_column says what is wrong. */
    }
    column_view view;
    if (!open_column(space, column, type, nullable, FOR_READING, &view)) return false;
    memset(out, 0, sizeof *out);
    out->type = type;
    out->nullable = nullable;
    out->count = view.count;
    out->ref = column;
    out->values = view.parts[PART_VALUES];
    out->part_refs[0] = view.part_refs[PART_VALUES];
    switch (view.shape.kind) {
    case KIND_INTEGER: break;
    case KIND_TIMESTAMP:
        out->second = view.parts[PART_NANOSECONDS];
        out->part_refs[1] = view.part_refs[PART_NANOSECONDS];
        break;
    case KIND_FIXED: out->element_size = view.shape.element_size; break;
    case KIND_VARIABLE:
        out->second = view.parts[PART_BYTES];
        out->part_refs[1] = view.part_refs[PART_BYTES];
        out->has_large = view.part_refs[PART_LARGE] != 0;
        if (out->has_large) out->large = view.parts[PART_LARGE];
        out->part_refs[2] = view.part_refs[PART_LARGE];
        break;
    case KIND_OWNED_REFS: break; /* values: the refs */
    }
    out->has_nulls = view.shape.null_part != PART_MAX;
    if (out->has_nulls) {
        out->nulls = view.parts[view.shape.null_part];
        out->part_refs[3] = view.part_refs[view.shape.null_part];
    }
    return true;
}

bool column_scan_get(const space_state *space, const column_scan *scan, size_t index, column_scratch *scratch,
                     ce_value *out_value)
{
    column_view view;
    memset(&view, 0, sizeof view);
    if (!shape_of(scan->type, scan->nullable, &view.shape)) return false;
    view.ref = scan->ref;
    view.count = scan->count;
    view.parts[PART_VALUES] = scan->values;
    view.part_refs[PART_VALUES] = scan->part_refs[0];
    if (view.shape.kind == KIND_TIMESTAMP || view.shape.kind == KIND_VARIABLE) {
        view.parts[1] = scan->second;
        view.part_refs[1] = scan->part_refs[1];
    }
    if (view.shape.kind == KIND_VARIABLE && scan->has_large) {
        view.parts[PART_LARGE] = scan->large;
        view.part_refs[PART_LARGE] = scan->part_refs[2];
    }
    if (scan->has_nulls) {
        view.parts[view.shape.null_part] = scan->nulls;
        view.part_refs[view.shape.null_part] = scan->part_refs[3];
    }
    return view_get(space, &view, index, scratch, out_value);
}
