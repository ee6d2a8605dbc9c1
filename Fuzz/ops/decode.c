/*
 * decode.c — fuzz_ops's input decoder (decode.h): bytes -> the arguments
 * of the operations.
 *
 * Owns: the encoding of every argument (decode.h describes the input as a
 * whole) and the pseudo-random streams an input seeds.
 * Never: calls the engine or changes the model (it reads the model only to
 * pick live tables, objects, values and paths), or judges a call.
 */
#include "decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The input                                                                 */
/* ------------------------------------------------------------------------ */

uint64_t decode_next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

source decode_random_source(uint64_t seed) { return (source){NULL, 0, 0, seed}; }

uint8_t decode_u8(source *from)
{
    if (!from->data) return (uint8_t)(decode_next_random(&from->state) >> 56);
    return from->offset < from->size ? from->data[from->offset++] : 0;
}

uint16_t decode_u16(source *from) { return (uint16_t)(decode_u8(from) | decode_u8(from) << 8); }

uint32_t decode_u32(source *from) { return decode_u16(from) | (uint32_t)decode_u16(from) << 16; }

uint64_t decode_u64(source *from) { return decode_u32(from) | (uint64_t)decode_u32(from) << 32; }

/* ------------------------------------------------------------------------ */
/* Tables, properties, objects and names                                     */
/* ------------------------------------------------------------------------ */

/* A table key: mostly a live table (by rank), sometimes any slot (perhaps a
 * removed table), a key past the slots, or UINT32_MAX. */
ce_table_key decode_table(decoder *in)
{
    const model *state = in->state;
    uint8_t choice = decode_u8(&in->input);
    if (choice == 0xFF) return UINT32_MAX;
    if (choice >= 0xF8) return (ce_table_key)(state->table_count + (choice & 7));
    if (choice >= 0xF0) return state->table_count ? (ce_table_key)((choice & 7) % state->table_count) : 0;
    size_t live = 0;
    for (size_t t = 0; t < state->table_count; t++) live += !state->tables[t].removed;
    if (live == 0) return (ce_table_key)state->table_count;
    size_t rank = choice % live;
    for (size_t t = 0; t < state->table_count; t++)
        if (!state->tables[t].removed && rank-- == 0) return (ce_table_key)t;
    return 0;
}

/* A column key of the same kind as decode_table's. */
ce_column_key decode_column(decoder *in, const model_table *table)
{
    uint8_t choice = decode_u8(&in->input);
    size_t slots = table ? table->property_count : 0;
    if (choice == 0xFF) return UINT32_MAX;
    if (choice >= 0xF8) return (ce_column_key)(slots + (choice & 7));
    if (!table || choice >= 0xF0) return slots ? (ce_column_key)((choice & 7) % slots) : (ce_column_key)(choice & 7);
    size_t live = 0;
    for (size_t p = 0; p < slots; p++) live += !table->properties[p].removed;
    if (live == 0) return (ce_column_key)slots;
    size_t rank = choice % live;
    for (size_t p = 0; p < slots; p++)
        if (!table->properties[p].removed && rank-- == 0) return (ce_column_key)p;
    return 0;
}

/* An object key: two bytes, the top three bits the kind: 0-5 a live object
 * (by position), 6 any key the table ever gave (perhaps deleted), 7 a key it
 * never gave (the next one, one further, -1, the extremes). */
ce_object_key decode_object(decoder *in, const model_table *table)
{
    uint16_t choice = decode_u16(&in->input);
    unsigned kind = choice >> 13, low = choice & 0x1FFF;
    if (!table) return low;
    if (kind < 6) return table->object_count ? table->keys[low % table->object_count] : table->next_key;
    if (kind == 6) return table->next_key ? (ce_object_key)(low % (uint64_t)table->next_key) : 0;
    switch (low % 5) {
    case 0: return table->next_key;
    case 1: return table->next_key + 1 + low % 100;
    case 2: return -1;
    case 3: return INT64_MIN;
    default: return INT64_MAX;
    }
}

/* An index for a collection of `count` elements: mostly in [0, count],
 * sometimes past it or SIZE_MAX. */
size_t decode_index(decoder *in, size_t count)
{
    uint8_t choice = decode_u8(&in->input);
    if (choice == 0xFF) return SIZE_MAX;
    if (choice >= 0xF0) return count + (choice & 7);
    if (choice >= 0xC0) return count; /* the end */
    return choice % (count + 1);
}

#define LONG_NAME_63 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk"

#define LONG_NAME_64 LONG_NAME_63 "l"

static const char *const pooled_names[] = {
    "Person", "Dog", "id", "name", "age", "p5", "p6", "p7", "\xC3\x91" "ame" /* Ñame */,
    "\xE2\x9C\x93" /* ✓ */, "\xF0\x9F\x98\x80" /* 😀 */, LONG_NAME_63,
    LONG_NAME_64 /* too long */, "" /* empty */, "\xC3\x28" /* bad UTF-8 */, "\xED\xA0\x80" /* a surrogate */,
};

enum { POOLED_NAMES = sizeof pooled_names / sizeof pooled_names[0] };

/* A name: mostly from the pool (valid ones and four invalid ones), else up
 * to 71 raw bytes (cut at the first zero, as a C string is). */
void decode_name(decoder *in, char name[80])
{
    uint8_t choice = decode_u8(&in->input);
    if (choice < 0xF8) {
        snprintf(name, 80, "%s", pooled_names[choice % POOLED_NAMES]);
        return;
    }
    size_t length = decode_u8(&in->input) % 72;
    for (size_t i = 0; i < length; i++) name[i] = (char)decode_u8(&in->input);
    name[length] = 0;
}

bool decode_name_is_valid(const char *name)
{
    size_t length = strlen(name);
    /* Names starting with "@" are the engine's (backlink properties); a '.'
     * separates key path steps. */
    return length >= 1 && length < MODEL_NAME_CAPACITY && name[0] != '@' && !strchr(name, '.') &&
           model_is_utf8((const uint8_t *)name, length);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

void decode_free_value(value_buffer *buffer)
{
    free(buffer->bytes);
    buffer->bytes = NULL;
}

static int64_t decode_integer(source *from)
{
    static const int64_t interesting[] = {0, 1, -1, INT64_MIN, INT64_MAX, INT64_MIN + 1, 255, (int64_t)1 << 32};
    uint8_t choice = decode_u8(from);
    if (choice < 0x80) return (int64_t)choice - 0x40;
    if (choice < 0xC0) return interesting[choice & 7];
    return (int64_t)decode_u64(from);
}

/* Appends one code point (from one byte) to a valid string: ASCII, U+0000,
 * two-, three- and four-byte forms, the last ones below the surrogates and
 * U+10FFFF. */
static size_t append_character(uint8_t *out, uint8_t choice)
{
    uint32_t code_point;
    if (choice < 0x60) code_point = 0x20 + choice;
    else if (choice == 0x60) code_point = 0;
    else if (choice < 0xA0) code_point = 0xE9 + (choice - 0x61);
    else if (choice < 0xE0) code_point = (choice & 1) ? 0xD7FF - (choice - 0xA0) : 0xE000 + (choice - 0xA0) * 97;
    else if (choice == 0xFF) code_point = 0x10FFFF;
    else code_point = 0x1F600 + (choice - 0xE0);
    if (code_point < 0x80) {
        out[0] = (uint8_t)code_point;
        return 1;
    }
    if (code_point < 0x800) {
        out[0] = (uint8_t)(0xC0 | code_point >> 6);
        out[1] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 2;
    }
    if (code_point < 0x10000) {
        out[0] = (uint8_t)(0xE0 | code_point >> 12);
        out[1] = (uint8_t)(0x80 | (code_point >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | code_point >> 18);
    out[1] = (uint8_t)(0x80 | (code_point >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (code_point >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (code_point & 0x3F));
    return 4;
}

static void set_bytes(value_buffer *buffer, ce_type type, uint8_t *bytes, size_t size)
{
    buffer->bytes = bytes;
    buffer->value.type = type;
    if (type == CE_TYPE_STRING) buffer->value.string.data = (const char *)bytes, buffer->value.string.size = size;
    else buffer->value.binary.data = bytes, buffer->value.binary.size = size;
}

/* A string (valid UTF-8) or binary of up to 23 characters spelled out in the
 * input, or up to 1023 from a stream the input seeds. */
static void decode_short_bytes(source *from, ce_type type, value_buffer *buffer)
{
    uint8_t choice = decode_u8(from);
    size_t count;
    source stream;
    source *characters = from;
    if (choice < 0xC0) {
        count = choice % 24;
    } else {
        count = (size_t)(choice - 0xC0) << 4 | (decode_u8(from) & 15);
        stream = decode_random_source(decode_u32(from));
        characters = &stream;
    }
    uint8_t *bytes = model_allocate(4 * count);
    size_t size = 0;
    for (size_t i = 0; i < count; i++) {
        if (type == CE_TYPE_STRING) size += append_character(bytes + size, decode_u8(characters));
        else bytes[size++] = decode_u8(characters);
    }
    set_bytes(buffer, type, bytes, size);
}

/* 4 KiB to 70 KiB: below, at and above COLUMN_INLINE_MAX (64 KiB), from a
 * short repeated pattern (zstd shrinks it) or a stream (a binary one does
 * not shrink). */
static void make_large_bytes(source *from, ce_type type, value_buffer *buffer)
{
    static const size_t sizes[] = {4096, 5000, 65536, 65537, 70 * 1024};
    size_t size = sizes[decode_u8(from) % 5];
    bool repeated = decode_u8(from) & 1;
    size_t pattern = 1 + decode_u8(from) % 8;
    source stream = decode_random_source(decode_u32(from));
    uint8_t *bytes = model_allocate(size);
    for (size_t i = 0; i < size; i++) {
        uint8_t byte = repeated && i >= pattern ? bytes[i - pattern] : decode_u8(&stream);
        bytes[i] = type == CE_TYPE_STRING ? (uint8_t)(0x20 + byte % 95) : byte;
    }
    set_bytes(buffer, type, bytes, size);
}

/* A value of `type` as a program would write it (some are malformed only
 * in `raw` mode: strings of raw bytes, timestamps with any nanoseconds). */
void decode_typed_value(source *from, ce_type type, bool raw, value_buffer *buffer)
{
    ce_value *value = &buffer->value;
    memset(value, 0, sizeof *value);
    value->type = type;
    buffer->bytes = NULL;
    uint8_t choice;
    switch (type) {
    case CE_TYPE_INT: value->integer = decode_integer(from); break;
    case CE_TYPE_BOOL: value->boolean = decode_u8(from) & 1; break;
    case CE_TYPE_FLOAT: {
        static const uint32_t interesting[] = {0, 0x80000000u, 0x3F800000u, 0xBFC00000u,
                                               0x7FC00001u /* NaN with payload */, 0x7F800000u, 0xFF800000u, 1};
        choice = decode_u8(from);
        uint32_t bits = choice < 0x80 ? interesting[choice & 7] : decode_u32(from);
        memcpy(&value->float_value, &bits, 4);
        break;
    }
    case CE_TYPE_DOUBLE: {
        static const uint64_t interesting[] = {0, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xC00C000000000000ull,
                                               0x7FF8000000000123ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 1};
        choice = decode_u8(from);
        uint64_t bits = choice < 0x80 ? interesting[choice & 7] : decode_u64(from);
        memcpy(&value->double_value, &bits, 8);
        break;
    }
    case CE_TYPE_STRING:
        if (raw) {
            size_t size = decode_u8(from) % 24;
            uint8_t *bytes = model_allocate(size);
            for (size_t i = 0; i < size; i++) bytes[i] = decode_u8(from);
            set_bytes(buffer, type, bytes, size);
        } else {
            decode_short_bytes(from, type, buffer);
        }
        break;
    case CE_TYPE_BINARY: decode_short_bytes(from, type, buffer); break;
    case CE_TYPE_TIMESTAMP: {
        value->timestamp.seconds = decode_integer(from);
        choice = decode_u8(from);
        if (raw) {
            value->timestamp.nanoseconds = (int32_t)decode_u32(from);
        } else if (choice >= 0x80) {
            int32_t nanoseconds = (int32_t)(decode_u32(from) % 1000000000u);
            bool negative = value->timestamp.seconds < 0 || (value->timestamp.seconds == 0 && (choice & 1));
            value->timestamp.nanoseconds = negative ? -nanoseconds : nanoseconds;
        }
        break;
    }
    case CE_TYPE_DECIMAL128:
        choice = decode_u8(from);
        if (choice < 0x80) {
            /* Small coefficients with a few exponents and both signs:
             * several representations of one number. */
            value->decimal.low = decode_u8(from);
            value->decimal.high = (0x3040000000000000ull + ((uint64_t)(choice >> 1 & 7) << 49)) |
                                  ((uint64_t)(choice & 1) << 63);
        } else {
            value->decimal.low = decode_u64(from);
            value->decimal.high = decode_u64(from);
        }
        break;
    case CE_TYPE_OBJECT_ID:
    case CE_TYPE_UUID: {
        uint8_t *bytes = type == CE_TYPE_UUID ? value->uuid.bytes : value->object_id.bytes;
        size_t size = type == CE_TYPE_UUID ? 16 : 12;
        choice = decode_u8(from);
        /* Mostly one of four values, so that primary keys collide. */
        for (size_t i = 0; i < size; i++) bytes[i] = choice < 0x80 ? (uint8_t)(choice & 3) : decode_u8(from);
        break;
    }
    default: break; /* mixed, link and unknown types: only the type matters (wrong type) */
    }
}

/* A value for a property of `type` in `column` of `table` (either may be
 * absent): the first byte's low four bits pick null, a value of another
 * type, a raw value, a large value, a copy of another object's value in the
 * column, or (the rest) a value of the type. */
void decode_value(decoder *in, const model_table *table, long column, ce_type type, value_buffer *buffer)
{
    source *from = &in->input;
    uint8_t mode = decode_u8(from) & 15;
    buffer->bytes = NULL;
    switch (mode) {
    case 0: buffer->value = (ce_value){.type = CE_TYPE_NULL}; return;
    case 1: {
        static const ce_type others[] = {CE_TYPE_INT,      CE_TYPE_BOOL,       CE_TYPE_FLOAT,     CE_TYPE_DOUBLE,
                                         CE_TYPE_STRING,   CE_TYPE_BINARY,     CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128,
                                         CE_TYPE_OBJECT_ID, CE_TYPE_UUID,      CE_TYPE_MIXED,     CE_TYPE_LINK,
                                         (ce_type)99};
        ce_type other = others[decode_u8(from) % 13];
        if (other == type) other = (ce_type)99;
        decode_typed_value(from, other, false, buffer);
        return;
    }
    case 2: decode_typed_value(from, type, true, buffer); return;
    case 3:
        if (model_is_bytes_type(type) && in->large_values > 0) {
            in->large_values--;
            make_large_bytes(from, type, buffer);
            return;
        }
        break;
    case 4:
        if (table && column >= 0 && table->object_count > 0 && !table->properties[column].removed) {
            buffer->value = model_value_at(table, decode_u8(from) % table->object_count, (size_t)column)->value;
            return;
        }
        break;
    default: break;
    }
    decode_typed_value(from, type, false, buffer);
}

/* A link for a property or element linking to `target`: mostly to an
 * object of the target (live, deleted or never made, as decode_object
 * picks), else null, a value of another type, or a link into another
 * table. */
static void decode_link(decoder *in, ce_table_key target, value_buffer *buffer)
{
    uint8_t mode = decode_u8(&in->input) & 15;
    buffer->bytes = NULL;
    if (mode == 0) {
        buffer->value = (ce_value){.type = CE_TYPE_NULL};
        return;
    }
    if (mode == 1) {
        decode_typed_value(&in->input, CE_TYPE_INT, false, buffer);
        return;
    }
    ce_table_key table = mode == 2 ? decode_table(in) : target;
    ce_object_key object = decode_object(in, model_live_table(in->state, table));
    buffer->value = (ce_value){.type = CE_TYPE_LINK, .link = {table, object}};
}

/* A mixed value: null, a new nested list or dictionary, a link to an
 * object of any table, a value of a type mixed cannot hold, a large
 * string or binary, a raw or a well-formed value of any scalar type. */
static void decode_mixed(decoder *in, value_buffer *buffer)
{
    source *from = &in->input;
    uint8_t mode = decode_u8(from) & 15;
    buffer->bytes = NULL;
    ce_type scalar = (ce_type)(1 + decode_u8(from) % 10);
    switch (mode) {
    case 0: buffer->value = (ce_value){.type = CE_TYPE_NULL}; return;
    case 1: buffer->value = (ce_value){.type = CE_TYPE_LIST}; return;
    case 2: buffer->value = (ce_value){.type = CE_TYPE_DICTIONARY}; return;
    case 3:
    case 4: {
        ce_table_key table = decode_table(in);
        ce_object_key object = decode_object(in, model_live_table(in->state, table));
        buffer->value = (ce_value){.type = CE_TYPE_LINK, .link = {table, object}};
        return;
    }
    case 5: buffer->value = (ce_value){.type = (scalar & 1) ? CE_TYPE_MIXED : (ce_type)99}; return;
    case 6:
        if (in->large_values > 0) {
            in->large_values--;
            make_large_bytes(from, (scalar & 1) ? CE_TYPE_STRING : CE_TYPE_BINARY, buffer);
            return;
        }
        break;
    case 7: decode_typed_value(from, scalar, true, buffer); return;
    default: break;
    }
    decode_typed_value(from, scalar, false, buffer);
}

/* A value for column `column` of `table` (either may be missing), as its
 * property takes it: collections and backlinks take no value (mostly null
 * is given, to see it refused otherwise), links and mixed values their own. */
void decode_slot_value(decoder *in, const model_table *table, ce_column_key column, value_buffer *buffer)
{
    const model_property *property = model_live_property(table, column);
    if (!property || (model_is_scalar_type(property->type) && model_holds_one_value(property))) {
        decode_value(in, property ? table : NULL, property ? (long)column : -1, property ? property->type : CE_TYPE_INT,
                     buffer);
        return;
    }
    if (!model_holds_one_value(property)) {
        if (decode_u8(&in->input) < 0xF0) buffer->value = (ce_value){.type = CE_TYPE_NULL}, buffer->bytes = NULL;
        else decode_value(in, NULL, -1, CE_TYPE_INT, buffer);
        return;
    }
    if (property->type == CE_TYPE_LINK) {
        decode_link(in, property->link_target, buffer);
        return;
    }
    uint8_t choice = decode_u8(&in->input);
    if (choice < 0x20 && table->object_count) { /* another object's mixed value (a nested one comes new and empty) */
        buffer->value = model_value_at(table, choice % table->object_count, column)->value;
        buffer->bytes = NULL;
        return;
    }
    decode_mixed(in, buffer);
}

/* A value for an element of a collection of `kind`: sometimes a copy of an
 * element it holds (a set leaves it as it is). */
void decode_element_value(decoder *in, const model_kind *kind, const model_collection *collection,
                          value_buffer *buffer)
{
    uint8_t choice = decode_u8(&in->input);
    buffer->bytes = NULL;
    if (choice < 0x30 && model_collection_count(collection)) {
        buffer->value = collection->elements[choice % collection->count].value;
        return;
    }
    if (kind->type == CE_TYPE_MIXED) decode_mixed(in, buffer);
    else if (kind->type == CE_TYPE_LINK) decode_link(in, kind->link_target, buffer);
    else decode_value(in, NULL, -1, kind->type, buffer);
}

/* ------------------------------------------------------------------------ */
/* Rows and streams of values                                                */
/* ------------------------------------------------------------------------ */

/* A value for every column slot of `table` (a few for a missing table):
 * one too many or too few when the low three bits of `flags` are set, the
 * primary key of an existing object when `existing_key` says so, anything
 * in the slots of removed properties (they are ignored). */
value_row decode_row(decoder *in, const model_table *table, uint8_t flags, bool existing_key)
{
    size_t slots = table ? table->property_count : decode_u8(&in->input) % 4;
    value_row row = {slots, NULL, NULL};
    if ((flags & 7) == 7) row.count = (flags & 8) || slots == 0 ? slots + 1 : slots - 1;
    long primary = model_primary_key_of(table);
    row.buffers = model_allocate((row.count + 1) * sizeof *row.buffers);
    row.values = model_allocate((row.count + 1) * sizeof *row.values);
    for (size_t p = 0; p < row.count; p++) {
        const model_property *property = model_live_property(table, (ce_column_key)p);
        if ((long)p == primary && existing_key && table->object_count) {
            row.buffers[p].value = model_value_at(table, decode_u8(&in->input) % table->object_count, p)->value;
        } else {
            decode_slot_value(in, property ? table : NULL, (ce_column_key)p, &row.buffers[p]);
        }
        row.values[p] = row.buffers[p].value;
    }
    return row;
}

void decode_free_row(value_row *row)
{
    for (size_t p = 0; p < row->count; p++) decode_free_value(&row->buffers[p]);
    free(row->buffers);
    free(row->values);
}

/* The primary key of the i-th object of a bulk create: distinct within the
 * batch (ints consecutive from a start the seed picks, so that batches
 * overlap sometimes). */
void decode_bulk_primary_key(ce_type type, uint32_t seed, size_t i, value_buffer *buffer)
{
    memset(buffer, 0, sizeof *buffer);
    buffer->value.type = type;
    if (type == CE_TYPE_INT) {
        buffer->value.integer = (int64_t)(seed % 2000) - 1000 + (int64_t)i;
    } else if (type == CE_TYPE_STRING) {
        char text[40];
        int length = snprintf(text, sizeof text, "key-%u-%zu", (unsigned)(seed % 4), i);
        uint8_t *bytes = model_allocate((size_t)length);
        memcpy(bytes, text, (size_t)length);
        set_bytes(buffer, type, bytes, (size_t)length);
    } else {
        uint8_t *bytes = type == CE_TYPE_UUID ? buffer->value.uuid.bytes : buffer->value.object_id.bytes;
        uint64_t counter = (uint64_t)(seed % 4) << 32 | i;
        memcpy(bytes, &counter, 8);
    }
}

/* A well-formed value for a property from a stream: scalars of its type,
 * mixed values of any scalar type, null for the rest. */
void decode_stream_value(source *stream, const model_property *property, value_buffer *buffer)
{
    if (model_holds_one_value(property) && model_is_scalar_type(property->type))
        decode_typed_value(stream, property->type, false, buffer);
    else if (model_holds_one_value(property) && property->type == CE_TYPE_MIXED)
        decode_typed_value(stream, (ce_type)(1 + decode_u8(stream) % 10), false, buffer);
    else
        *buffer = (value_buffer){{.type = CE_TYPE_NULL}, NULL};
}

/* ------------------------------------------------------------------------ */
/* Dictionary keys and paths into nested collections                         */
/* ------------------------------------------------------------------------ */

/* Dictionary keys: valid ones (empty, ASCII, two-byte UTF-8, a NUL inside,
 * 40 bytes) and invalid ones ('$' first, a '.', bad UTF-8). */
static const struct {
    const char *bytes;
    size_t size;
} pooled_keys[] = {
    {"a", 1}, {"b", 1}, {"key", 3}, {"", 0}, {"\xC3\xB1", 2}, {"$x", 2}, {"a.b", 3}, {"\xC3\x28", 2},
    {"k\0z", 3}, {"zz", 2}, {"Z", 1}, {"a key of forty bytes, spelled in full..", 40}, {"x$", 2},
};
_Static_assert(sizeof pooled_keys / sizeof pooled_keys[0] == DECODE_POOLED_KEYS, "decode.h counts the pooled keys");

/* A key: mostly one the dictionary holds (when the model has it), else
 * from the pool, else up to 11 raw bytes. */
void decode_key(decoder *in, const model_collection *dictionary, bool is_dictionary, dictionary_key *key)
{
    uint8_t choice = decode_u8(&in->input);
    if (choice < 0x80 && is_dictionary && model_collection_count(dictionary)) {
        const ce_value *held = &dictionary->keys[choice % dictionary->count].value;
        key->size = held->string.size < KEY_CAPACITY ? held->string.size : KEY_CAPACITY;
        if (key->size) memcpy(key->bytes, held->string.data, key->size);
    } else if (choice < 0xF0) {
        key->size = pooled_keys[choice % DECODE_POOLED_KEYS].size;
        memcpy(key->bytes, pooled_keys[choice % DECODE_POOLED_KEYS].bytes, key->size);
    } else {
        key->size = decode_u8(&in->input) % 12;
        for (size_t i = 0; i < key->size; i++) key->bytes[i] = (char)decode_u8(&in->input);
    }
}

bool decode_key_is_valid(const dictionary_key *key)
{
    return model_is_utf8((const uint8_t *)key->bytes, key->size) && !(key->size && key->bytes[0] == '$') &&
           !memchr(key->bytes, '.', key->size);
}

static bool is_collection_column(const model_property *property)
{
    return !property->removed && !property->backlink &&
           (property->collection != CE_COLLECTION_NONE || property->type == CE_TYPE_MIXED);
}

/* A target: a table, an object, mostly a collection or mixed property (by
 * rank among those), opened as its kind says (else the other way, to be
 * refused), and up to MAX_PATH_DEPTH steps that mostly lead into nested
 * collections the model has (a path stops where there are none). */
void decode_target(decoder *in, collection_target *target, model_view *view, bool *out_resolved)
{
    memset(target, 0, sizeof *target);
    memset(view, 0, sizeof *view);
    target->table = decode_table(in);
    const model_table *table = model_live_table(in->state, target->table);
    target->object = decode_object(in, table);
    uint8_t choice = decode_u8(&in->input);
    size_t candidates = 0;
    for (size_t p = 0; table && p < table->property_count; p++) candidates += is_collection_column(&table->properties[p]);
    if (choice < 0xE0 && candidates) {
        size_t rank = choice % candidates;
        for (size_t p = 0; p < table->property_count; p++)
            if (is_collection_column(&table->properties[p]) && rank-- == 0) target->column = (ce_column_key)p;
    } else {
        target->column = decode_column(in, table);
    }
    const model_property *property = model_live_property(table, target->column);
    uint8_t flags = decode_u8(&in->input);
    target->through_mixed = property && property->type == CE_TYPE_MIXED && property->collection == CE_COLLECTION_NONE;
    if ((flags & 0x1F) == 0x1F) target->through_mixed = !target->through_mixed;
    size_t depth = flags >> 5 & 3;
    *out_resolved = check_resolve_top(in->state, target, view) == 0;
    for (size_t i = 0; i < depth; i++) {
        path_step *step = &target->steps[i];
        uint8_t at = decode_u8(&in->input);
        size_t count = *out_resolved ? model_collection_count(view->elements) : 0, nested = 0;
        for (size_t k = 0; k < count; k++) nested += model_is_nested_type(view->elements->elements[k].value.type);
        if (at < 0xC0) {
            if (!nested) break; /* nowhere to go: the operation works on this level */
            size_t rank = at % nested, position = 0;
            for (size_t k = 0; k < count; k++)
                if (model_is_nested_type(view->elements->elements[k].value.type) && rank-- == 0) position = k;
            step->by_key = view->kind == CE_COLLECTION_DICTIONARY;
            step->index = position;
            if (step->by_key) {
                step->key.size = view->elements->keys[position].value.string.size;
                if (step->key.size > KEY_CAPACITY) step->key.size = KEY_CAPACITY;
                memcpy(step->key.bytes, view->elements->keys[position].value.string.data, step->key.size);
            }
        } else {
            /* Any index (perhaps past the end), or a key (perhaps to a list). */
            step->by_key = at & 1;
            step->index = (at >> 1 & 7) % (count + 1);
            if (step->by_key)
                decode_key(in, *out_resolved ? view->elements : NULL,
                           *out_resolved && view->kind == CE_COLLECTION_DICTIONARY, &step->key);
        }
        target->depth = i + 1;
        model_view inner;
        if (*out_resolved && check_resolve_step(view, step, &inner) == 0) *view = inner;
        else *out_resolved = false;
    }
}
