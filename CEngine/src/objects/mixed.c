/*
 * mixed.c — the tree a mixed value is stored as.
 *
 * Owns: the nodes of one mixed value (the layout below) and the checks of
 * those nodes: a node read from the file is checked before it is used.
 * Never: knows tables, properties or what a link points to, or reads the
 * elements of a nested collection (containers.c and links.c do).
 */
#include "mixed.h"
#include "cengine.h"
#include "error.h"
#include "node.h"
#include "value.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Mixed values: a tree owned by the element that holds it                   */
/*   0                       null                                            */
/*   NODE_BYTES node          [u8 type, the value's bytes]: a scalar or link */
/*   NODE_HAS_REFS node of 2  [tagged CE_TYPE_LIST/DICTIONARY, collection]   */
/* ------------------------------------------------------------------------ */

static void put_le(uint8_t *target, uint64_t value, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++) target[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t *source, size_t bytes)
{
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; i++) value |= (uint64_t)source[i] << (8 * i);
    return value;
}

/* The fixed payload size of a mixed scalar, or SIZE_MAX for strings and binaries. */
static size_t mixed_payload_size(ce_type type)
{
    switch (type) {
    case CE_TYPE_INT:
    case CE_TYPE_DOUBLE: return 8;
    case CE_TYPE_BOOL: return 1;
    case CE_TYPE_FLOAT: return 4;
    case CE_TYPE_TIMESTAMP:
    case CE_TYPE_LINK:
    case CE_TYPE_OBJECT_ID: return 12;
    case CE_TYPE_DECIMAL128:
    case CE_TYPE_UUID: return 16;
    default: return SIZE_MAX;
    }
}

bool mixed_create(space_state *space, const ce_value *value, space_ref *out_ref)
{
    if (value->type == CE_TYPE_NULL) {
        *out_ref = 0;
        return true;
    }
    if (value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY)
        return node_create(space, NODE_HAS_REFS, 2, 0, out_ref) &&
               node_set(space, *out_ref, 0, node_tag(value->type));
    size_t size = mixed_payload_size(value->type);
    const void *variable = NULL;
    if (size == SIZE_MAX) {
        size = value->string.size;
        variable = value->type == CE_TYPE_STRING ? (const void *)value->string.data : (const void *)value->binary.data;
    }
    uint8_t *bytes = malloc(size + 1);
    if (!bytes) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    bytes[0] = (uint8_t)value->type;
    uint8_t *payload = bytes + 1;
    switch (value->type) {
    case CE_TYPE_INT: put_le(payload, (uint64_t)value->integer, 8); break;
    case CE_TYPE_BOOL: payload[0] = value->boolean ? 1 : 0; break;
    case CE_TYPE_FLOAT: memcpy(payload, &value->float_value, 4); break;
    case CE_TYPE_DOUBLE: memcpy(payload, &value->double_value, 8); break;
    case CE_TYPE_TIMESTAMP:
        put_le(payload, (uint64_t)value->timestamp.seconds, 8);
        put_le(payload + 8, (uint32_t)value->timestamp.nanoseconds, 4);
        break;
    case CE_TYPE_DECIMAL128:
        put_le(payload, value->decimal.low, 8);
        put_le(payload + 8, value->decimal.high, 8);
        break;
    case CE_TYPE_OBJECT_ID: memcpy(payload, value->object_id.bytes, 12); break;
    case CE_TYPE_UUID: memcpy(payload, value->uuid.bytes, 16); break;
    case CE_TYPE_LINK:
        put_le(payload, value->link.table, 4);
        put_le(payload + 4, (uint64_t)value->link.key, 8);
        break;
    default:
        if (size) memcpy(payload, variable, size);
        break;
    }
    bool ok = node_create_bytes(space, 0, bytes, size + 1, out_ref);
    free(bytes);
    return ok;
}

static bool mixed_corrupt(space_ref ref, const char *detail)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the mixed value at offset %llu is damaged: %s",
                   (unsigned long long)ref, detail);
}

/* Reads a mixed value; a nested collection gives CE_TYPE_LIST or
 * CE_TYPE_DICTIONARY and, in *out_root (may be NULL), its collection. */
bool mixed_read(const space_state *space, space_ref ref, ce_value *out_value, space_ref *out_root)
{
    memset(out_value, 0, sizeof *out_value);
    if (out_root) *out_root = 0;
    if (ref == 0) return true;
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (node.flags == NODE_HAS_REFS) {
        int64_t tag = node_get(&node, 0), root = node.count == 2 ? node_get(&node, 1) : 1;
        if (node.count != 2 || !(tag & 1) || (node_untag(tag) != CE_TYPE_LIST && node_untag(tag) != CE_TYPE_DICTIONARY))
            return mixed_corrupt(ref, "a nested collection node has a bad shape");
        if (root != 0 && (!node_value_is_ref(root) || (!ref_is_temporary(ref) && ref_is_temporary((space_ref)root))))
            return mixed_corrupt(ref, "a nested collection has a bad ref");
        out_value->type = (ce_type)node_untag(tag);
        if (out_root) *out_root = (space_ref)root;
        return true;
    }
    if (node.flags != NODE_BYTES || node.count < 1) return mixed_corrupt(ref, "not a mixed value node");
    ce_type type = (ce_type)node.payload[0];
    const uint8_t *payload = node.payload + 1;
    size_t size = node.count - 1, expected = mixed_payload_size(type);
    if (type < CE_TYPE_INT || type > CE_TYPE_LINK || type == CE_TYPE_MIXED ||
        (expected != SIZE_MAX && size != expected))
        return mixed_corrupt(ref, "bad type or size");
    out_value->type = type;
    switch (type) {
    case CE_TYPE_INT: out_value->integer = (int64_t)get_le(payload, 8); break;
    case CE_TYPE_BOOL:
        if (payload[0] > 1) return mixed_corrupt(ref, "a bool is neither 0 nor 1");
        out_value->boolean = payload[0] == 1;
        break;
    case CE_TYPE_FLOAT: memcpy(&out_value->float_value, payload, 4); break;
    case CE_TYPE_DOUBLE: memcpy(&out_value->double_value, payload, 8); break;
    case CE_TYPE_TIMESTAMP:
        out_value->timestamp.seconds = (int64_t)get_le(payload, 8);
        out_value->timestamp.nanoseconds = (int32_t)(uint32_t)get_le(payload + 8, 4);
        if (!value_timestamp_is_valid(out_value->timestamp)) return mixed_corrupt(ref, "a malformed timestamp");
        break;
    case CE_TYPE_DECIMAL128:
        out_value->decimal.low = get_le(payload, 8);
        out_value->decimal.high = get_le(payload + 8, 8);
        break;
    case CE_TYPE_OBJECT_ID: memcpy(out_value->object_id.bytes, payload, 12); break;
    case CE_TYPE_UUID: memcpy(out_value->uuid.bytes, payload, 16); break;
    case CE_TYPE_LINK:
        out_value->link.table = (ce_table_key)get_le(payload, 4);
        out_value->link.key = (int64_t)get_le(payload + 4, 8);
        if (out_value->link.key < 0) return mixed_corrupt(ref, "a link to a negative key");
        break;
    case CE_TYPE_STRING:
        out_value->string.data = (const char *)payload;
        out_value->string.size = size;
        break;
    default:
        out_value->binary.data = payload;
        out_value->binary.size = size;
        break;
    }
    return true;
}

