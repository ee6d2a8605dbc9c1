/*
 * value.c — type names, timestamps, defaults, order, equality and hashing
 * of values (see value.h for the order).
 *
 * Owns: what value.h promises: ce_type_name, ce_value_size, the check of a
 * value's type tag (value_check_type), the validity of a timestamp,
 * a property's default value, value_compare, value_equal and value_hash.
 * Never: allocates, or reads the file.
 *
 * Hashes are computed over an explicit little-endian encoding of each value
 * (never over a struct's memory, which has padding and host byte order), so
 * that a hash is the same on every machine and may be stored in a file.
 * Decimal128 values are ordered and put in normal form by base/decimal.c.
 */
#include "value.h"
#include "checksum.h"
#include "decimal.h"
#include "error.h"

#include <math.h>
#include <string.h>

size_t ce_value_size(void) { return sizeof(ce_value); }

const char *ce_type_name(ce_type type)
{
    switch (type) {
    case CE_TYPE_NULL: return "null";
    case CE_TYPE_INT: return "int";
    case CE_TYPE_BOOL: return "bool";
    case CE_TYPE_FLOAT: return "float";
    case CE_TYPE_DOUBLE: return "double";
    case CE_TYPE_STRING: return "string";
    case CE_TYPE_BINARY: return "binary";
    case CE_TYPE_TIMESTAMP: return "timestamp";
    case CE_TYPE_DECIMAL128: return "decimal128";
    case CE_TYPE_OBJECT_ID: return "objectId";
    case CE_TYPE_UUID: return "uuid";
    case CE_TYPE_MIXED: return "mixed";
    case CE_TYPE_LINK: return "link";
    case CE_TYPE_LIST: return "list";
    case CE_TYPE_DICTIONARY: return "dictionary";
    }
    return "unknown";
}

/* ------------------------------------------------------------------------ */
/* Timestamps and defaults                                                   */
/* ------------------------------------------------------------------------ */

bool value_timestamp_is_valid(ce_timestamp timestamp)
{
    if (timestamp.nanoseconds <= -1000000000 || timestamp.nanoseconds >= 1000000000) return false;
    if (timestamp.seconds > 0 && timestamp.nanoseconds < 0) return false;
    if (timestamp.seconds < 0 && timestamp.nanoseconds > 0) return false;
    return true;
}

bool value_check_type(const ce_value *value)
{
    if ((unsigned)value->type <= CE_TYPE_DICTIONARY) return true;
    return error_fail(CE_ERR_INVALID_ARGUMENT, "the value's type %d is not a ce_type", (int)value->type);
}

bool value_bytes_missing(const ce_value *value)
{
    if (value->type == CE_TYPE_STRING) return value->string.size > 0 && !value->string.data;
    if (value->type == CE_TYPE_BINARY) return value->binary.size > 0 && !value->binary.data;
    return false;
}

ce_value value_default(ce_type type, bool nullable)
{
    ce_value value;
    memset(&value, 0, sizeof value);
    value.type = nullable ? CE_TYPE_NULL : type;
    if (nullable) return value;
    switch (type) {
    case CE_TYPE_STRING: value.string.data = ""; break;
    case CE_TYPE_BINARY: value.binary.data = (const uint8_t *)""; break;
    case CE_TYPE_DECIMAL128: value.decimal.high = VALUE_DECIMAL128_ZERO_HIGH; break;
    case CE_TYPE_NULL:
    case CE_TYPE_MIXED:
    case CE_TYPE_LINK:
    case CE_TYPE_LIST:
    case CE_TYPE_DICTIONARY: value.type = CE_TYPE_NULL; break;
    default: break;
    }
    return value;
}

/* ------------------------------------------------------------------------ */
/* Order and equality                                                        */
/* ------------------------------------------------------------------------ */

static int compare_numbers(double a, double b)
{
    bool a_is_nan = isnan(a), b_is_nan = isnan(b);
    if (a_is_nan || b_is_nan) return a_is_nan == b_is_nan ? 0 : (a_is_nan ? -1 : 1);
    return a < b ? -1 : (a > b ? 1 : 0); /* -0.0 == 0.0 */
}

#define COMPARE_SCALARS(a, b) ((a) < (b) ? -1 : ((a) > (b) ? 1 : 0))

int value_compare(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return COMPARE_SCALARS((int)a->type, (int)b->type);
    switch (a->type) {
    case CE_TYPE_INT: return COMPARE_SCALARS(a->integer, b->integer);
    case CE_TYPE_BOOL: return COMPARE_SCALARS((int)a->boolean, (int)b->boolean);
    case CE_TYPE_FLOAT: return compare_numbers(a->float_value, b->float_value);
    case CE_TYPE_DOUBLE: return compare_numbers(a->double_value, b->double_value);
    case CE_TYPE_STRING: return value_compare_bytes(a->string.data, a->string.size, b->string.data, b->string.size);
    case CE_TYPE_BINARY: return value_compare_bytes(a->binary.data, a->binary.size, b->binary.data, b->binary.size);
    case CE_TYPE_TIMESTAMP:
        if (a->timestamp.seconds != b->timestamp.seconds)
            return COMPARE_SCALARS(a->timestamp.seconds, b->timestamp.seconds);
        return COMPARE_SCALARS(a->timestamp.nanoseconds, b->timestamp.nanoseconds);
    case CE_TYPE_DECIMAL128: return decimal_compare(a->decimal, b->decimal);
    case CE_TYPE_OBJECT_ID: return value_compare_bytes(a->object_id.bytes, 12, b->object_id.bytes, 12);
    case CE_TYPE_UUID: return value_compare_bytes(a->uuid.bytes, 16, b->uuid.bytes, 16);
    case CE_TYPE_LINK:
        if (a->link.table != b->link.table) return COMPARE_SCALARS(a->link.table, b->link.table);
        return COMPARE_SCALARS(a->link.key, b->link.key);
    case CE_TYPE_NULL:
    case CE_TYPE_MIXED: /* a property type, never a value's: nothing to compare */
    case CE_TYPE_LIST:  /* nested collections: equal by type only */
    case CE_TYPE_DICTIONARY:
        break;
    }
    return 0;
}

bool value_equal(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    if (a->type == CE_TYPE_STRING) return value_bytes_equal(a->string.data, a->string.size, b->string.data, b->string.size);
    if (a->type == CE_TYPE_BINARY) return value_bytes_equal(a->binary.data, a->binary.size, b->binary.data, b->binary.size);
    return value_compare(a, b) == 0;
}

bool value_identical(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case CE_TYPE_FLOAT: return memcmp(&a->float_value, &b->float_value, sizeof a->float_value) == 0;
    case CE_TYPE_DOUBLE: return memcmp(&a->double_value, &b->double_value, sizeof a->double_value) == 0;
    case CE_TYPE_DECIMAL128: return a->decimal.low == b->decimal.low && a->decimal.high == b->decimal.high;
    default: return value_equal(a, b);
    }
}

/* ------------------------------------------------------------------------ */
/* Hashing                                                                   */
/* ------------------------------------------------------------------------ */

static void put_u64(uint8_t *target, uint64_t value)
{
    for (int i = 0; i < 8; i++) target[i] = (uint8_t)(value >> (8 * i));
}

static void put_u32(uint8_t *target, uint32_t value)
{
    for (int i = 0; i < 4; i++) target[i] = (uint8_t)(value >> (8 * i));
}

/* Each type hashes with its own seed, so that equal bytes of different
 * types (a string and a binary) do not collide by construction. */
static uint64_t hash_bytes(ce_type type, const void *data, size_t size)
{
    static const uint8_t nothing[1] = {0};
    return checksum_of(size ? data : nothing, size, 0x9E3779B97F4A7C15ull * ((uint64_t)type + 1));
}

static uint64_t hash_double(ce_type type, double value)
{
    /* Equal numbers must hash equal: one NaN for all, 0.0 for -0.0. */
    uint8_t bytes[8];
    uint64_t bits;
    if (isnan(value)) bits = 0x7FF8000000000000ull;
    else {
        if (value == 0) value = 0.0;
        memcpy(&bits, &value, 8);
    }
    put_u64(bytes, bits);
    return hash_bytes(type, bytes, 8);
}

static uint64_t hash_decimal(ce_decimal128 decimal)
{
    /* The normal form every representation of the number shares. */
    uint8_t bytes[DECIMAL_NORMAL_FORM_SIZE];
    decimal_normal_form(decimal, bytes);
    return hash_bytes(CE_TYPE_DECIMAL128, bytes, sizeof bytes);
}

uint64_t value_hash(const ce_value *value)
{
    uint8_t bytes[16];
    switch (value->type) {
    case CE_TYPE_INT:
        put_u64(bytes, (uint64_t)value->integer);
        return hash_bytes(value->type, bytes, 8);
    case CE_TYPE_BOOL:
        bytes[0] = value->boolean ? 1 : 0;
        return hash_bytes(value->type, bytes, 1);
    case CE_TYPE_FLOAT: return hash_double(value->type, value->float_value);
    case CE_TYPE_DOUBLE: return hash_double(value->type, value->double_value);
    case CE_TYPE_STRING: return hash_bytes(value->type, value->string.data, value->string.size);
    case CE_TYPE_BINARY: return hash_bytes(value->type, value->binary.data, value->binary.size);
    case CE_TYPE_TIMESTAMP:
        put_u64(bytes, (uint64_t)value->timestamp.seconds);
        put_u32(bytes + 8, (uint32_t)value->timestamp.nanoseconds);
        return hash_bytes(value->type, bytes, 12);
    case CE_TYPE_DECIMAL128: return hash_decimal(value->decimal);
    case CE_TYPE_OBJECT_ID: return hash_bytes(value->type, value->object_id.bytes, 12);
    case CE_TYPE_UUID: return hash_bytes(value->type, value->uuid.bytes, 16);
    case CE_TYPE_LINK:
        put_u32(bytes, value->link.table);
        put_u64(bytes + 4, (uint64_t)value->link.key);
        return hash_bytes(value->type, bytes, 12);
    case CE_TYPE_NULL:
    case CE_TYPE_MIXED:
    case CE_TYPE_LIST:
    case CE_TYPE_DICTIONARY:
        break;
    }
    return hash_bytes(value->type, NULL, 0);
}
