/*
 * fuzz_ops.c — random programs of schema and object operations, commits,
 * rollbacks and reopens over one database file, each step checked against a
 * model of the database in plain C.
 *
 * Invariants 1, 2, 6 and 8 of DESIGN.md for the object store (table.c and
 * the layers under it: cluster, column, index, node, alloc, db): what a
 * program wrote is what it reads back (get, count, key_at, exists, find by
 * primary key, find_first through an index or a scan), in the write
 * transaction, after a commit, in a read transaction that outlives later
 * commits, and after the file is closed and opened again, whether objects
 * were created one by one, with all their values, or by create_or_update
 * under each policy; a rolled-back transaction leaves nothing
 * behind; every commit leaves a file that ce_db_verify proves sound; bad
 * input from the API (a wrong type, a null in a required property, a string
 * that is not UTF-8, a malformed timestamp, a duplicate or changed primary
 * key, a missing table, property or object, a write outside a write
 * transaction, a bad name) fails with the right error code and a message and
 * changes nothing. Reported as bugs besides crashes, leaks and undefined
 * behaviour: a call that fails where the model says it must succeed or the
 * reverse, a failure with an error code the model does not allow, a failure
 * without a code and a message, any value, count, key or schema entry that
 * differs from the model, a file that does not verify after a commit, and a
 * file descriptor left open.
 *
 * The model (tables -> properties -> objects -> values, string and binary
 * bytes copied into reference-counted blobs so that copies of the model are
 * cheap) is changed only when a call succeeds. It keeps a committed copy:
 * a rollback and a reopen restore it, a held reader compares against the
 * copy taken when it began.
 *
 * Where several errors apply to one call (say a missing object and a value
 * of the wrong type) the model allows each of them: which check comes first
 * is the engine's business, that it fails with one of them is not.
 *
 * The input. Byte 0 holds options (bit 0: durability "unsafe no sync"
 * instead of "full"). Then operations, at most MAX_OPERATIONS, until the
 * input ends: one byte whose low 6 bits pick the operation through
 * operation_of_byte (weighted: sets and creates are common, reopens rare),
 * then the operation's arguments (see the decode_* functions and
 * run_operation). An input that runs out in the middle of an operation reads
 * zeros. Operations that need a transaction begin a write transaction when
 * none is open; BEGIN_READ makes the current transaction a read transaction
 * instead, in which every change must fail.
 *
 * Built with FUZZ_OPS_MAKE_CORPUS, this file is the seed generator instead
 * (make_ops_corpus, see Fuzz/CMakeLists.txt and the end of this file): it
 * assembles programs with the same encoding and runs each through the
 * harness before writing it.
 */
#include "cengine.h"
#include "error.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    MAX_OPERATIONS = 200,
    MAX_TABLE_SLOTS = 12,     /* add_table is skipped when the model has this many slots */
    MAX_PROPERTY_SLOTS = 20,  /* per table, for add_property */
    MAX_OBJECTS = 3000,       /* in all tables of the model together, for creates */
    MAX_LARGE_VALUES = 6,     /* values of 4 KiB .. 70 KiB per input */
    NAME_CAPACITY = 64,       /* the engine takes names of 1 to 63 bytes */
    COMMIT_SAMPLE = 8,        /* objects per table compared after a commit */
};

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------ */

static char *work_directory;
static char *database_path;
static char *lock_path;
static bool verbose; /* FUZZ_OPS_VERBOSE=1: print every operation and failed call (for triage) */

static size_t current_step;
static const char *current_operation = "open";

typedef uint64_t error_set; /* a bit per ce_error_code the model allows */
#define ERR(code) ((error_set)1 << (code))

static void print_error_set(error_set set)
{
    if (!set) fprintf(stderr, "success");
    for (int code = 0; code < 64; code++)
        if (set & ERR(code)) fprintf(stderr, "%s[%d] %s", set & (ERR(code) - 1) ? " or " : "", code,
                                     ce_error_name((ce_error_code)code));
}

/* Aborts with a report: libFuzzer records the input as a crash. */
static void harness_bug(const char *what, const char *call)
{
    fprintf(stderr, "fuzz_ops: step %zu (%s): %s (%s); last error [%d] %s\n", current_step, current_operation, what,
            call, (int)ce_last_error_code(), ce_last_error_message());
    abort();
}

/* Clears the thread's last error so that a failure can be seen to set it. */
static void clear_error(void) { ce_fail(CE_OK, "%s", ""); }

/* Holds a call to what the model expects: success when `expected` is empty,
 * else a failure with one of its codes, and a code and a message with every
 * failure (invariant 8). Returns whether the call succeeded. */
static bool expect(bool ok, error_set expected, const char *call)
{
    if (ok) {
        if (expected) {
            fprintf(stderr, "fuzz_ops: expected ");
            print_error_set(expected);
            fprintf(stderr, "\n");
            harness_bug("the call succeeded where the model expects an error", call);
        }
        return true;
    }
    ce_error_code code = ce_last_error_code();
    const char *message = ce_last_error_message();
    if (code == CE_OK || !message || !message[0]) harness_bug("a call failed without an error code and message", call);
    if (verbose) fprintf(stderr, "fuzz_ops:   %s -> [%d] %s\n", call, (int)code, message);
    if (!expected) harness_bug("the call failed where the model expects success", call);
    if ((unsigned)code >= 64 || !(expected & ERR(code))) {
        fprintf(stderr, "fuzz_ops: expected ");
        print_error_set(expected);
        fprintf(stderr, "\n");
        harness_bug("the call failed with an error code the model does not allow", call);
    }
    return false;
}
#define EXPECT(expected, expression) (clear_error(), expect((expression), (expected), #expression))
#define MUST(expression) EXPECT(0, expression)
#define CHECK(condition, what)                                                                                \
    do {                                                                                                      \
        if (!(condition)) harness_bug(what, #condition);                                                      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The input                                                                 */
/* ------------------------------------------------------------------------ */

/* Bytes of the input, or (data == NULL) of a pseudo-random stream: values
 * too long to spell out in the input (bulk creates, long strings) come from
 * a stream seeded by the input. */
typedef struct source {
    const uint8_t *data;
    size_t size, offset;
    uint64_t state;
} source;

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static source random_source(uint64_t seed) { return (source){NULL, 0, 0, seed}; }

static uint8_t take(source *from)
{
    if (!from->data) return (uint8_t)(next_random(&from->state) >> 56);
    return from->offset < from->size ? from->data[from->offset++] : 0;
}
static uint16_t take_u16(source *from) { return (uint16_t)(take(from) | take(from) << 8); }
static uint32_t take_u32(source *from) { return take_u16(from) | (uint32_t)take_u16(from) << 16; }
static uint64_t take_u64(source *from) { return take_u32(from) | (uint64_t)take_u32(from) << 32; }

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* Strict UTF-8 as cengine.h promises it (no overlong forms, no surrogates,
 * nothing above U+10FFFF, nothing truncated; U+0000 allowed), written apart
 * from value.c so that the two can disagree. */
static bool is_utf8(const uint8_t *bytes, size_t size)
{
    for (size_t i = 0; i < size;) {
        uint8_t lead = bytes[i];
        if (lead < 0x80) {
            i++;
            continue;
        }
        size_t length;
        uint32_t code_point, minimum;
        if ((lead & 0xE0) == 0xC0) length = 2, code_point = lead & 0x1F, minimum = 0x80;
        else if ((lead & 0xF0) == 0xE0) length = 3, code_point = lead & 0x0F, minimum = 0x800;
        else if ((lead & 0xF8) == 0xF0) length = 4, code_point = lead & 0x07, minimum = 0x10000;
        else return false;
        if (size - i < length) return false;
        for (size_t k = 1; k < length; k++) {
            if ((bytes[i + k] & 0xC0) != 0x80) return false;
            code_point = code_point << 6 | (bytes[i + k] & 0x3F);
        }
        if (code_point < minimum || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF))
            return false;
        i += length;
    }
    return true;
}

static bool timestamp_is_valid(ce_timestamp timestamp)
{
    if (timestamp.nanoseconds <= -1000000000 || timestamp.nanoseconds >= 1000000000) return false;
    return !(timestamp.seconds > 0 && timestamp.nanoseconds < 0) && !(timestamp.seconds < 0 && timestamp.nanoseconds > 0);
}

static bool is_scalar_type(ce_type type) { return type >= CE_TYPE_INT && type <= CE_TYPE_UUID; }
static bool is_bytes_type(ce_type type) { return type == CE_TYPE_STRING || type == CE_TYPE_BINARY; }
static bool is_primary_key_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_STRING || type == CE_TYPE_OBJECT_ID || type == CE_TYPE_UUID;
}
static bool is_indexable_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_STRING || type == CE_TYPE_TIMESTAMP ||
           type == CE_TYPE_OBJECT_ID || type == CE_TYPE_UUID;
}

static ce_value default_value(ce_type type, bool nullable)
{
    ce_value value;
    memset(&value, 0, sizeof value);
    value.type = nullable ? CE_TYPE_NULL : type;
    if (nullable) return value;
    if (type == CE_TYPE_STRING) value.string.data = "";
    if (type == CE_TYPE_BINARY) value.binary.data = (const uint8_t *)"";
    if (type == CE_TYPE_DECIMAL128) value.decimal.high = 0x3040000000000000ull; /* 0E0 */
    return value;
}

/* The same bits: the engine stores floats, doubles and decimals bit for bit,
 * so -0.0, NaN payloads and decimal cohorts must come back as they went in. */
static bool same_value(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case CE_TYPE_NULL: return true;
    case CE_TYPE_INT: return a->integer == b->integer;
    case CE_TYPE_BOOL: return a->boolean == b->boolean;
    case CE_TYPE_FLOAT: return memcmp(&a->float_value, &b->float_value, sizeof a->float_value) == 0;
    case CE_TYPE_DOUBLE: return memcmp(&a->double_value, &b->double_value, sizeof a->double_value) == 0;
    case CE_TYPE_STRING:
        return a->string.size == b->string.size &&
               (a->string.size == 0 || memcmp(a->string.data, b->string.data, a->string.size) == 0);
    case CE_TYPE_BINARY:
        return a->binary.size == b->binary.size &&
               (a->binary.size == 0 || memcmp(a->binary.data, b->binary.data, a->binary.size) == 0);
    case CE_TYPE_TIMESTAMP:
        return a->timestamp.seconds == b->timestamp.seconds && a->timestamp.nanoseconds == b->timestamp.nanoseconds;
    case CE_TYPE_DECIMAL128: return a->decimal.low == b->decimal.low && a->decimal.high == b->decimal.high;
    case CE_TYPE_OBJECT_ID: return memcmp(a->object_id.bytes, b->object_id.bytes, 12) == 0;
    case CE_TYPE_UUID: return memcmp(a->uuid.bytes, b->uuid.bytes, 16) == 0;
    default: return false;
    }
}

/* A decimal128 as a number (IEEE 754-2008, binary integer decimal): NaN,
 * infinity, zero (any sign, any exponent, and every non-canonical
 * coefficient), or a finite non-zero number reduced to the coefficient
 * without trailing zeros, so that equal numbers decode equal. */
typedef struct decimal_number {
    enum { NUMBER_NAN, NUMBER_INFINITY, NUMBER_ZERO, NUMBER_FINITE } kind;
    bool negative;
    int exponent;
    unsigned __int128 coefficient;
} decimal_number;

static decimal_number decode_decimal(ce_decimal128 decimal)
{
    decimal_number number = {NUMBER_ZERO, (decimal.high >> 63) != 0, 0, 0};
    if ((decimal.high >> 61 & 3) == 3) {
        unsigned prefix = (unsigned)(decimal.high >> 58 & 0x1F);
        if (prefix == 0x1F) number.kind = NUMBER_NAN;
        else if (prefix == 0x1E) number.kind = NUMBER_INFINITY;
        return number; /* else a coefficient of at least 2^113: non-canonical, zero */
    }
    unsigned __int128 largest = (unsigned __int128)10000000000000000ull * 10000000000000000ull * 100 - 1; /* 10^34 - 1 */
    number.coefficient = (unsigned __int128)(decimal.high & ((1ull << 49) - 1)) << 64 | decimal.low;
    number.exponent = (int)(decimal.high >> 49 & 0x3FFF) - 6176;
    if (number.coefficient == 0 || number.coefficient > largest) {
        number.coefficient = 0;
        return number;
    }
    number.kind = NUMBER_FINITE;
    while (number.coefficient % 10 == 0) number.coefficient /= 10, number.exponent++;
    return number;
}

/* Equality as the engine defines it for lookups (value.h): floats, doubles
 * and decimals by numeric value (-0.0 == 0.0, every NaN equal to every
 * other, 1E0 == 10E-1), everything else bit for bit. */
static bool equal_value(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    if (a->type == CE_TYPE_FLOAT || a->type == CE_TYPE_DOUBLE) {
        double x = a->type == CE_TYPE_FLOAT ? a->float_value : a->double_value;
        double y = b->type == CE_TYPE_FLOAT ? b->float_value : b->double_value;
        return (x != x && y != y) || x == y;
    }
    if (a->type == CE_TYPE_DECIMAL128) {
        decimal_number x = decode_decimal(a->decimal), y = decode_decimal(b->decimal);
        if (x.kind != y.kind) return false;
        if (x.kind == NUMBER_NAN || x.kind == NUMBER_ZERO) return true;
        if (x.negative != y.negative) return false;
        return x.kind == NUMBER_INFINITY || (x.exponent == y.exponent && x.coefficient == y.coefficient);
    }
    return same_value(a, b);
}

static void print_value(const char *label, const ce_value *value)
{
    fprintf(stderr, "fuzz_ops:   %s: %s", label, ce_type_name(value->type));
    const uint8_t *bytes = NULL;
    size_t size = 0;
    switch (value->type) {
    case CE_TYPE_INT: fprintf(stderr, " %lld", (long long)value->integer); break;
    case CE_TYPE_BOOL: fprintf(stderr, " %d", (int)value->boolean); break;
    case CE_TYPE_FLOAT: fprintf(stderr, " %a", (double)value->float_value); break;
    case CE_TYPE_DOUBLE: fprintf(stderr, " %a", value->double_value); break;
    case CE_TYPE_STRING: bytes = (const uint8_t *)value->string.data, size = value->string.size; break;
    case CE_TYPE_BINARY: bytes = value->binary.data, size = value->binary.size; break;
    case CE_TYPE_TIMESTAMP:
        fprintf(stderr, " %lld s %d ns", (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
        break;
    case CE_TYPE_DECIMAL128:
        fprintf(stderr, " %016llx:%016llx", (unsigned long long)value->decimal.high,
                (unsigned long long)value->decimal.low);
        break;
    case CE_TYPE_OBJECT_ID: bytes = value->object_id.bytes, size = 12; break;
    case CE_TYPE_UUID: bytes = value->uuid.bytes, size = 16; break;
    default: break;
    }
    if (bytes || size) {
        fprintf(stderr, " %zu bytes:", size);
        for (size_t i = 0; i < size && i < 24; i++) fprintf(stderr, " %02x", bytes[i]);
        if (size > 24) fprintf(stderr, " ...");
    }
    fprintf(stderr, "\n");
}

/* ------------------------------------------------------------------------ */
/* The model                                                                 */
/* ------------------------------------------------------------------------ */

/* The bytes of a string or binary, shared by the copies of the model. */
typedef struct blob {
    size_t references;
    size_t size;
    uint8_t bytes[];
} blob;

typedef struct stored_value {
    ce_value value; /* a string or binary points into `bytes` */
    blob *bytes;
} stored_value;

typedef struct model_property {
    char name[NAME_CAPACITY];
    ce_type type;
    bool nullable, primary_key, indexed, removed;
} model_property;

typedef struct model_table {
    char name[NAME_CAPACITY];
    bool removed;
    size_t property_count; /* slots: removed properties keep theirs */
    model_property *properties;
    size_t object_count, object_capacity;
    ce_object_key *keys;  /* ascending: the order of creation, as ce_object_key_at */
    stored_value *values; /* object_count rows of property_count values */
    ce_object_key next_key;
} model_table;

typedef struct model {
    size_t table_count; /* slots: removed tables keep theirs */
    model_table *tables;
    uint64_t schema_version;
} model;

static void *allocate(size_t size)
{
    void *memory = calloc(1, size ? size : 1);
    if (!memory) {
        fprintf(stderr, "fuzz_ops: out of memory\n");
        abort();
    }
    return memory;
}

static stored_value store_value(const ce_value *value)
{
    stored_value stored = {*value, NULL};
    if (!is_bytes_type(value->type)) return stored;
    size_t size = value->type == CE_TYPE_STRING ? value->string.size : value->binary.size;
    const void *data = value->type == CE_TYPE_STRING ? (const void *)value->string.data : value->binary.data;
    stored.bytes = allocate(sizeof(blob) + size);
    stored.bytes->references = 1;
    stored.bytes->size = size;
    if (size) memcpy(stored.bytes->bytes, data, size);
    if (value->type == CE_TYPE_STRING) stored.value.string.data = (const char *)stored.bytes->bytes;
    else stored.value.binary.data = stored.bytes->bytes;
    return stored;
}

static void release_value(stored_value *stored)
{
    if (stored->bytes && --stored->bytes->references == 0) free(stored->bytes);
    stored->bytes = NULL;
    stored->value = (ce_value){.type = CE_TYPE_NULL};
}

static stored_value *value_at(const model_table *table, size_t position, size_t column)
{
    return &table->values[position * table->property_count + column];
}

static void free_table(model_table *table)
{
    for (size_t i = 0; i < table->object_count * table->property_count; i++) release_value(&table->values[i]);
    free(table->values);
    free(table->keys);
    free(table->properties);
    table->values = NULL;
    table->keys = NULL;
    table->properties = NULL;
    table->object_count = table->object_capacity = table->property_count = 0;
}

static void model_free(model *state)
{
    for (size_t t = 0; t < state->table_count; t++) free_table(&state->tables[t]);
    free(state->tables);
    memset(state, 0, sizeof *state);
}

static void model_copy(model *out, const model *in)
{
    *out = *in;
    out->tables = allocate(in->table_count * sizeof *out->tables);
    for (size_t t = 0; t < in->table_count; t++) {
        const model_table *from = &in->tables[t];
        model_table *to = &out->tables[t];
        *to = *from;
        to->properties = allocate(from->property_count * sizeof *to->properties);
        if (from->property_count) memcpy(to->properties, from->properties, from->property_count * sizeof *to->properties);
        to->object_capacity = from->object_count;
        to->keys = allocate(from->object_count * sizeof *to->keys);
        if (from->object_count) memcpy(to->keys, from->keys, from->object_count * sizeof *to->keys);
        size_t values = from->object_count * from->property_count;
        to->values = allocate(values * sizeof *to->values);
        for (size_t i = 0; i < values; i++) {
            to->values[i] = from->values[i];
            if (to->values[i].bytes) to->values[i].bytes->references++;
        }
    }
}

static model_table *live_table(const model *state, ce_table_key key)
{
    if (key >= state->table_count || state->tables[key].removed) return NULL;
    return &state->tables[key];
}

static const model_property *live_property(const model_table *table, ce_column_key column)
{
    if (!table || column >= table->property_count || table->properties[column].removed) return NULL;
    return &table->properties[column];
}

/* The primary-key column, or -1. */
static long primary_key_of(const model_table *table)
{
    if (!table) return -1;
    for (size_t p = 0; p < table->property_count; p++)
        if (!table->properties[p].removed && table->properties[p].primary_key) return (long)p;
    return -1;
}

/* The position of an object, or -1. */
static long position_of(const model_table *table, ce_object_key key)
{
    if (!table) return -1;
    size_t low = 0, high = table->object_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (table->keys[middle] < key) low = middle + 1;
        else high = middle;
    }
    return low < table->object_count && table->keys[low] == key ? (long)low : -1;
}

/* The position of the object whose primary key equals `value`, or -1. */
static long position_of_primary_key(const model_table *table, const ce_value *value)
{
    long column = primary_key_of(table);
    if (column < 0) return -1;
    for (size_t i = 0; i < table->object_count; i++)
        if (same_value(&value_at(table, i, (size_t)column)->value, value)) return (long)i;
    return -1;
}

/* The position of the first object (in key order) whose `column` equals
 * `value` as the engine's lookups compare, or -1. */
static long first_position_equal(const model_table *table, size_t column, const ce_value *value)
{
    for (size_t i = 0; i < table->object_count; i++)
        if (equal_value(&value_at(table, i, column)->value, value)) return (long)i;
    return -1;
}

static size_t total_objects(const model *state)
{
    size_t total = 0;
    for (size_t t = 0; t < state->table_count; t++) total += state->tables[t].object_count;
    return total;
}

static const model_table *table_named(const model *state, const char *name)
{
    for (size_t t = 0; t < state->table_count; t++)
        if (!state->tables[t].removed && strcmp(state->tables[t].name, name) == 0) return &state->tables[t];
    return NULL;
}

static long property_named(const model_table *table, const char *name)
{
    for (size_t p = 0; p < table->property_count; p++)
        if (!table->properties[p].removed && strcmp(table->properties[p].name, name) == 0) return (long)p;
    return -1;
}

static void model_add_table(model *state, const char *name)
{
    model_table *grown = realloc(state->tables, (state->table_count + 1) * sizeof *grown);
    if (!grown) abort();
    state->tables = grown;
    model_table *table = &state->tables[state->table_count++];
    memset(table, 0, sizeof *table);
    snprintf(table->name, sizeof table->name, "%s", name);
}

static void model_remove_table(model_table *table)
{
    free_table(table);
    table->removed = true;
}

/* Re-lays the rows for one more property, which every object gets with its
 * default value. */
static void model_add_property(model_table *table, const ce_property_info *info)
{
    size_t old_count = table->property_count, new_count = old_count + 1;
    model_property *properties = allocate(new_count * sizeof *properties);
    if (old_count) memcpy(properties, table->properties, old_count * sizeof *properties);
    model_property *property = &properties[old_count];
    snprintf(property->name, sizeof property->name, "%s", info->name);
    property->type = info->type;
    property->nullable = info->nullable;
    property->primary_key = info->primary_key;
    property->indexed = info->indexed || info->primary_key;
    stored_value *values = allocate(table->object_capacity * new_count * sizeof *values);
    ce_value initial = default_value(info->type, info->nullable);
    for (size_t i = 0; i < table->object_count; i++) {
        if (old_count) memcpy(&values[i * new_count], &table->values[i * old_count], old_count * sizeof *values);
        values[i * new_count + old_count] = store_value(&initial);
    }
    free(table->properties);
    free(table->values);
    table->properties = properties;
    table->values = values;
    table->property_count = new_count;
}

static void model_remove_property(model_table *table, size_t column)
{
    for (size_t i = 0; i < table->object_count; i++) release_value(value_at(table, i, column));
    table->properties[column].removed = true;
}

/* Appends an object (keys only grow, so it is last) with `values` (one per
 * column slot), or with default values and `primary_key`. */
static void model_create(model_table *table, ce_object_key key, const ce_value *primary_key, const ce_value *values)
{
    if (table->object_count == table->object_capacity) {
        size_t capacity = table->object_capacity ? 2 * table->object_capacity : 16;
        ce_object_key *keys = realloc(table->keys, capacity * sizeof *keys);
        if (!keys) abort();
        table->keys = keys;
        stored_value *values = realloc(table->values, (capacity * table->property_count + 1) * sizeof *values);
        if (!values) abort();
        table->values = values;
        table->object_capacity = capacity;
    }
    size_t position = table->object_count++;
    table->keys[position] = key;
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        ce_value initial = property->removed ? (ce_value){.type = CE_TYPE_NULL}
                           : values          ? values[p]
                                             : default_value(property->type, property->nullable);
        bool given_key = property->primary_key && !property->removed && !values;
        *value_at(table, position, p) = store_value(given_key ? primary_key : &initial);
    }
    table->next_key = key + 1;
}

static void model_delete(model_table *table, size_t position)
{
    for (size_t p = 0; p < table->property_count; p++) release_value(value_at(table, position, p));
    size_t after = table->object_count - position - 1;
    memmove(&table->keys[position], &table->keys[position + 1], after * sizeof *table->keys);
    memmove(value_at(table, position, 0), value_at(table, position + 1, 0),
            after * table->property_count * sizeof *table->values);
    table->object_count--;
}

/* The new value is copied before the old one is released: it may be the
 * old one (a value copied from the model is written back). */
static void model_set(model_table *table, size_t position, size_t column, const ce_value *value)
{
    stored_value stored = store_value(value);
    release_value(value_at(table, position, column));
    *value_at(table, position, column) = stored;
}

/* ------------------------------------------------------------------------ */
/* The run                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct runner {
    source input;
    ce_db_options options;
    ce_db *db;
    ce_txn *txn;       /* the current transaction, or NULL */
    bool txn_is_write;
    ce_txn *reader;    /* a read transaction held across operations, or NULL */
    model current;     /* what the current transaction sees */
    model committed;   /* the latest commit: equal to current when no write is open */
    model snapshot;    /* what the held reader sees */
    uint64_t version;  /* the latest committed version, as ce_db_verify reports it */
    int large_values;  /* left for this input */
} runner;

/* The transaction operations run in: a new write transaction when none is
 * open. */
static ce_txn *transaction(runner *run)
{
    if (!run->txn) {
        MUST(ce_txn_begin_write(run->db, &run->txn));
        run->txn_is_write = true;
    }
    return run->txn;
}

static error_set write_errors(const runner *run) { return run->txn_is_write ? 0 : ERR(CE_ERR_WRONG_TRANSACTION_STATE); }

/* The errors a value may cause in a property. */
static error_set value_errors(const model_property *property, const ce_value *value)
{
    if (value->type == CE_TYPE_NULL) return property->nullable ? 0 : ERR(CE_ERR_NULL_NOT_ALLOWED);
    if (value->type != property->type) return ERR(CE_ERR_WRONG_TYPE);
    if (value->type == CE_TYPE_STRING && !is_utf8((const uint8_t *)value->string.data, value->string.size))
        return ERR(CE_ERR_INVALID_ARGUMENT);
    if (value->type == CE_TYPE_TIMESTAMP && !timestamp_is_valid(value->timestamp)) return ERR(CE_ERR_INVALID_ARGUMENT);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Comparing the engine with the model                                      */
/* ------------------------------------------------------------------------ */

/* Invariant 6: the message of a failure about an object or a value names
 * the table, and the property when the failure is about a value of one
 * ('Table.property'). Failures of other kinds name other things. */
static void check_message_names(const model_table *table, const model_property *property, const char *call)
{
    ce_error_code code = ce_last_error_code();
    const char *message = ce_last_error_message();
    bool about_value = code == CE_ERR_WRONG_TYPE || code == CE_ERR_NULL_NOT_ALLOWED ||
                       code == CE_ERR_PRIMARY_KEY_IMMUTABLE || code == CE_ERR_INVALID_ARGUMENT;
    bool about_object = code == CE_ERR_NO_SUCH_OBJECT || code == CE_ERR_DUPLICATE_PRIMARY_KEY;
    if (!table || !(about_value || about_object)) return;
    char wanted[2 * NAME_CAPACITY + 4];
    if (about_value && property) snprintf(wanted, sizeof wanted, "'%s.%s'", table->name, property->name);
    else snprintf(wanted, sizeof wanted, "'%s", table->name);
    if (!strstr(message, wanted)) {
        fprintf(stderr, "fuzz_ops: the message does not name %s\n", wanted);
        harness_bug("an error message does not name the table and property", call);
    }
}

static void check_same_value(const ce_value *engine, const ce_value *expected, const char *call)
{
    if (same_value(engine, expected)) return;
    print_value("engine", engine);
    print_value("model ", expected);
    harness_bug("a value differs from the model", call);
}

static void check_property_info(ce_txn *txn, const model_table *table, ce_table_key key, ce_column_key column)
{
    ce_property_info info;
    const model_property *property = live_property(table, column);
    if (!EXPECT(property ? 0 : ERR(CE_ERR_NO_SUCH_PROPERTY), ce_property_get_info(txn, key, column, &info))) return;
    CHECK(strcmp(info.name, property->name) == 0 && info.type == property->type &&
              info.nullable == property->nullable && info.primary_key == property->primary_key &&
              info.indexed == property->indexed,
          "ce_property_get_info differs from the model");
    ce_column_key found_column;
    bool found;
    MUST(ce_property_find(txn, key, property->name, &found_column, &found));
    CHECK(found && found_column == column, "ce_property_find differs from the model");
}

/* Every property of the object at `position`, and its key and primary key. */
static void check_object(ce_txn *txn, const model_table *table, ce_table_key key, size_t position)
{
    ce_object_key object = table->keys[position], at;
    bool exists;
    MUST(ce_object_key_at(txn, key, position, &at));
    CHECK(at == object, "ce_object_key_at differs from the model");
    MUST(ce_object_exists(txn, key, object, &exists));
    CHECK(exists, "ce_object_exists: an object of the model is missing");
    for (size_t p = 0; p < table->property_count; p++) {
        ce_value value;
        if (!EXPECT(table->properties[p].removed ? ERR(CE_ERR_NO_SUCH_PROPERTY) : 0,
                    ce_object_get(txn, key, object, (ce_column_key)p, &value)))
            continue;
        check_same_value(&value, &value_at(table, position, p)->value, "ce_object_get");
        if (!table->properties[p].indexed) continue;
        /* The index finds the first object with this value (this one or an
         * earlier one). */
        bool found;
        MUST(ce_object_find_first(txn, key, (ce_column_key)p, &value_at(table, position, p)->value, &at, &found));
        long first = first_position_equal(table, p, &value_at(table, position, p)->value);
        CHECK(found && first >= 0 && at == table->keys[first], "ce_object_find_first (indexed) differs from the model");
    }
    long primary = primary_key_of(table);
    if (primary >= 0) {
        bool found;
        MUST(ce_object_find_primary_key(txn, key, &value_at(table, position, (size_t)primary)->value, &at, &found));
        CHECK(found && at == object, "ce_object_find_primary_key does not find an object of the model");
    }
}

static size_t spread(size_t index, size_t samples, size_t count)
{
    return samples >= count || samples < 2 ? index : index * (count - 1) / (samples - 1);
}

/* A table's name, schema, count, and `samples` objects spread over it (all
 * when it has no more). */
static void check_table(ce_txn *txn, const model *state, ce_table_key key, size_t samples)
{
    const model_table *table = live_table(state, key);
    size_t count;
    const char *name;
    if (!table) {
        EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_object_count(txn, key, &count));
        EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_table_name(txn, key, &name));
        EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_property_count(txn, key, &count));
        return;
    }
    MUST(ce_table_name(txn, key, &name));
    CHECK(strcmp(name, table->name) == 0, "ce_table_name differs from the model");
    ce_table_key found_key;
    bool found;
    MUST(ce_table_find(txn, table->name, &found_key, &found));
    CHECK(found && found_key == key, "ce_table_find differs from the model");
    MUST(ce_property_count(txn, key, &count));
    CHECK(count == table->property_count, "ce_property_count differs from the model");
    for (size_t p = 0; p < table->property_count; p++) check_property_info(txn, table, key, (ce_column_key)p);
    MUST(ce_object_count(txn, key, &count));
    CHECK(count == table->object_count, "ce_object_count differs from the model");
    size_t checked = samples < count ? samples : count;
    for (size_t i = 0; i < checked; i++) check_object(txn, table, key, spread(i, checked, count));
    ce_object_key at;
    bool exists;
    EXPECT(ERR(CE_ERR_INDEX_OUT_OF_BOUNDS), ce_object_key_at(txn, key, count, &at));
    MUST(ce_object_exists(txn, key, table->next_key, &exists));
    CHECK(!exists, "ce_object_exists: an object past the next key exists");
}

static void check_everything(ce_txn *txn, const model *state, size_t samples)
{
    size_t count;
    uint64_t version;
    MUST(ce_table_count(txn, &count));
    CHECK(count == state->table_count, "ce_table_count differs from the model");
    MUST(ce_schema_version(txn, &version));
    CHECK(version == state->schema_version, "ce_schema_version differs from the model");
    for (size_t t = 0; t < state->table_count; t++) check_table(txn, state, (ce_table_key)t, samples);
}

/* After a commit or an open: the file proves sound, has the version the
 * commits so far give it, and a new read transaction sees the committed
 * model. */
static void check_committed(runner *run)
{
    ce_db_stats stats;
    MUST(ce_db_verify(run->db, &stats));
    CHECK(stats.version == run->version, "ce_db_verify reports another version than the commits made");
    ce_txn *reader;
    MUST(ce_txn_begin_read(run->db, &reader));
    check_everything(reader, &run->committed, COMMIT_SAMPLE);
    ce_txn_end(reader);
    /* A reader that began before the commit still sees its version. */
    if (run->reader) check_everything(run->reader, &run->snapshot, COMMIT_SAMPLE / 2);
}

/* ------------------------------------------------------------------------ */
/* Decoding arguments                                                        */
/* ------------------------------------------------------------------------ */

/* A table key: mostly a live table (by rank), sometimes any slot (perhaps a
 * removed table), a key past the slots, or UINT32_MAX. */
static ce_table_key decode_table(runner *run)
{
    const model *state = &run->current;
    uint8_t choice = take(&run->input);
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
static ce_column_key decode_column(runner *run, const model_table *table)
{
    uint8_t choice = take(&run->input);
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
static ce_object_key decode_object(runner *run, const model_table *table)
{
    uint16_t choice = take_u16(&run->input);
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
static void decode_name(runner *run, char name[80])
{
    uint8_t choice = take(&run->input);
    if (choice < 0xF8) {
        snprintf(name, 80, "%s", pooled_names[choice % POOLED_NAMES]);
        return;
    }
    size_t length = take(&run->input) % 72;
    for (size_t i = 0; i < length; i++) name[i] = (char)take(&run->input);
    name[length] = 0;
}

static bool name_is_valid(const char *name)
{
    size_t length = strlen(name);
    /* Names starting with "@" are the engine's (backlink properties). */
    return length >= 1 && length < NAME_CAPACITY && name[0] != '@' && is_utf8((const uint8_t *)name, length);
}

/* A value being decoded: its bytes, when it owns them. */
typedef struct value_buffer {
    ce_value value;
    uint8_t *bytes;
} value_buffer;

static void value_buffer_free(value_buffer *buffer)
{
    free(buffer->bytes);
    buffer->bytes = NULL;
}

static int64_t decode_integer(source *from)
{
    static const int64_t interesting[] = {0, 1, -1, INT64_MIN, INT64_MAX, INT64_MIN + 1, 255, (int64_t)1 << 32};
    uint8_t choice = take(from);
    if (choice < 0x80) return (int64_t)choice - 0x40;
    if (choice < 0xC0) return interesting[choice & 7];
    return (int64_t)take_u64(from);
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
    uint8_t choice = take(from);
    size_t count;
    source stream;
    source *characters = from;
    if (choice < 0xC0) {
        count = choice % 24;
    } else {
        count = (size_t)(choice - 0xC0) << 4 | (take(from) & 15);
        stream = random_source(take_u32(from));
        characters = &stream;
    }
    uint8_t *bytes = allocate(4 * count);
    size_t size = 0;
    for (size_t i = 0; i < count; i++) {
        if (type == CE_TYPE_STRING) size += append_character(bytes + size, take(characters));
        else bytes[size++] = take(characters);
    }
    set_bytes(buffer, type, bytes, size);
}

/* 4 KiB to 70 KiB: below, at and above COLUMN_INLINE_MAX (64 KiB), from a
 * short repeated pattern (zstd shrinks it) or a stream (a binary one does
 * not shrink). */
static void make_large_bytes(source *from, ce_type type, value_buffer *buffer)
{
    static const size_t sizes[] = {4096, 5000, 65536, 65537, 70 * 1024};
    size_t size = sizes[take(from) % 5];
    bool repeated = take(from) & 1;
    size_t pattern = 1 + take(from) % 8;
    source stream = random_source(take_u32(from));
    uint8_t *bytes = allocate(size);
    for (size_t i = 0; i < size; i++) {
        uint8_t byte = repeated && i >= pattern ? bytes[i - pattern] : take(&stream);
        bytes[i] = type == CE_TYPE_STRING ? (uint8_t)(0x20 + byte % 95) : byte;
    }
    set_bytes(buffer, type, bytes, size);
}

/* A value of `type` as a program would write it (some are malformed only
 * in `raw` mode: strings of raw bytes, timestamps with any nanoseconds). */
static void decode_typed_value(source *from, ce_type type, bool raw, value_buffer *buffer)
{
    ce_value *value = &buffer->value;
    memset(value, 0, sizeof *value);
    value->type = type;
    buffer->bytes = NULL;
    uint8_t choice;
    switch (type) {
    case CE_TYPE_INT: value->integer = decode_integer(from); break;
    case CE_TYPE_BOOL: value->boolean = take(from) & 1; break;
    case CE_TYPE_FLOAT: {
        static const uint32_t interesting[] = {0, 0x80000000u, 0x3F800000u, 0xBFC00000u,
                                               0x7FC00001u /* NaN with payload */, 0x7F800000u, 0xFF800000u, 1};
        choice = take(from);
        uint32_t bits = choice < 0x80 ? interesting[choice & 7] : take_u32(from);
        memcpy(&value->float_value, &bits, 4);
        break;
    }
    case CE_TYPE_DOUBLE: {
        static const uint64_t interesting[] = {0, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xC00C000000000000ull,
                                               0x7FF8000000000123ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 1};
        choice = take(from);
        uint64_t bits = choice < 0x80 ? interesting[choice & 7] : take_u64(from);
        memcpy(&value->double_value, &bits, 8);
        break;
    }
    case CE_TYPE_STRING:
        if (raw) {
            size_t size = take(from) % 24;
            uint8_t *bytes = allocate(size);
            for (size_t i = 0; i < size; i++) bytes[i] = take(from);
            set_bytes(buffer, type, bytes, size);
        } else {
            decode_short_bytes(from, type, buffer);
        }
        break;
    case CE_TYPE_BINARY: decode_short_bytes(from, type, buffer); break;
    case CE_TYPE_TIMESTAMP: {
        value->timestamp.seconds = decode_integer(from);
        choice = take(from);
        if (raw) {
            value->timestamp.nanoseconds = (int32_t)take_u32(from);
        } else if (choice >= 0x80) {
            int32_t nanoseconds = (int32_t)(take_u32(from) % 1000000000u);
            bool negative = value->timestamp.seconds < 0 || (value->timestamp.seconds == 0 && (choice & 1));
            value->timestamp.nanoseconds = negative ? -nanoseconds : nanoseconds;
        }
        break;
    }
    case CE_TYPE_DECIMAL128:
        choice = take(from);
        if (choice < 0x80) {
            /* Small coefficients with a few exponents and both signs:
             * several representations of one number. */
            value->decimal.low = take(from);
            value->decimal.high = (0x3040000000000000ull + ((uint64_t)(choice >> 1 & 7) << 49)) |
                                  ((uint64_t)(choice & 1) << 63);
        } else {
            value->decimal.low = take_u64(from);
            value->decimal.high = take_u64(from);
        }
        break;
    case CE_TYPE_OBJECT_ID:
    case CE_TYPE_UUID: {
        uint8_t *bytes = type == CE_TYPE_UUID ? value->uuid.bytes : value->object_id.bytes;
        size_t size = type == CE_TYPE_UUID ? 16 : 12;
        choice = take(from);
        /* Mostly one of four values, so that primary keys collide. */
        for (size_t i = 0; i < size; i++) bytes[i] = choice < 0x80 ? (uint8_t)(choice & 3) : take(from);
        break;
    }
    default: break; /* mixed, link and unknown types: only the type matters (wrong type) */
    }
}

/* A value for a property of `type` in `column` of `table` (either may be
 * absent): the first byte's low four bits pick null, a value of another
 * type, a raw value, a large value, a copy of another object's value in the
 * column, or (the rest) a value of the type. */
static void decode_value(runner *run, const model_table *table, long column, ce_type type, value_buffer *buffer)
{
    source *from = &run->input;
    uint8_t mode = take(from) & 15;
    buffer->bytes = NULL;
    switch (mode) {
    case 0: buffer->value = (ce_value){.type = CE_TYPE_NULL}; return;
    case 1: {
        static const ce_type others[] = {CE_TYPE_INT,      CE_TYPE_BOOL,       CE_TYPE_FLOAT,     CE_TYPE_DOUBLE,
                                         CE_TYPE_STRING,   CE_TYPE_BINARY,     CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128,
                                         CE_TYPE_OBJECT_ID, CE_TYPE_UUID,      CE_TYPE_MIXED,     CE_TYPE_LINK,
                                         (ce_type)99};
        ce_type other = others[take(from) % 13];
        if (other == type) other = (ce_type)99;
        decode_typed_value(from, other, false, buffer);
        return;
    }
    case 2: decode_typed_value(from, type, true, buffer); return;
    case 3:
        if (is_bytes_type(type) && run->large_values > 0) {
            run->large_values--;
            make_large_bytes(from, type, buffer);
            return;
        }
        break;
    case 4:
        if (table && column >= 0 && table->object_count > 0 && !table->properties[column].removed) {
            buffer->value = value_at(table, take(from) % table->object_count, (size_t)column)->value;
            return;
        }
        break;
    default: break;
    }
    decode_typed_value(from, type, false, buffer);
}

/* ------------------------------------------------------------------------ */
/* Operations                                                                */
/* ------------------------------------------------------------------------ */

enum operation {
    OP_ADD_TABLE,
    OP_REMOVE_TABLE,
    OP_ADD_PROPERTY,
    OP_REMOVE_PROPERTY,
    OP_CREATE,
    OP_CREATE_WITH_VALUES,
    OP_CREATE_OR_UPDATE,
    OP_CREATE_MANY,
    OP_DELETE,
    OP_DELETE_MANY,
    OP_SET,
    OP_GET,
    OP_FIND_PRIMARY_KEY,
    OP_FIND_FIRST,
    OP_COUNT,
    OP_KEY_AT,
    OP_EXISTS,
    OP_SCHEMA_VERSION,
    OP_COMMIT,
    OP_ROLLBACK,
    OP_REOPEN,
    OP_BEGIN_READ,
    OP_HOLD_READER,
    OP_TRANSACTION_MISUSE,
    OP_CHECK_TABLE,
    OPERATION_COUNT
};

static const char *const operation_names[OPERATION_COUNT] = {
    "add table", "remove table", "add property", "remove property", "create", "create with values", "create or update",
    "create many",
    "delete", "delete many", "set", "get", "find primary key", "find first", "count", "key at", "exists",
    "schema version", "commit",
    "rollback", "reopen", "begin read", "hold reader", "transaction misuse", "check table",
};

/* Weights out of 64: the operation of an opcode byte is
 * operation_of_byte[byte & 63]. */
static const struct {
    enum operation operation;
    unsigned weight;
} operation_weights[] = {
    {OP_SET, 8},          {OP_CREATE, 5},      {OP_CREATE_WITH_VALUES, 2}, {OP_CREATE_OR_UPDATE, 2}, {OP_GET, 5},
    {OP_ADD_PROPERTY, 5}, {OP_ADD_TABLE, 3},   {OP_DELETE, 3},      {OP_FIND_PRIMARY_KEY, 2},
    {OP_FIND_FIRST, 3},   {OP_COMMIT, 4},
    {OP_CREATE_MANY, 2},  {OP_DELETE_MANY, 1}, {OP_REMOVE_PROPERTY, 2}, {OP_REMOVE_TABLE, 1},
    {OP_COUNT, 1},        {OP_KEY_AT, 2},      {OP_EXISTS, 1},      {OP_SCHEMA_VERSION, 1},
    {OP_ROLLBACK, 2},     {OP_REOPEN, 2},      {OP_BEGIN_READ, 2},  {OP_HOLD_READER, 2},
    {OP_TRANSACTION_MISUSE, 1}, {OP_CHECK_TABLE, 2},
};
static uint8_t operation_of_byte[64];

static void build_operation_table(void)
{
    size_t next = 0;
    for (size_t i = 0; i < sizeof operation_weights / sizeof operation_weights[0]; i++)
        for (unsigned w = 0; w < operation_weights[i].weight; w++) {
            if (next >= 64) harness_bug("the operation weights exceed 64", "build_operation_table");
            operation_of_byte[next++] = (uint8_t)operation_weights[i].operation;
        }
    if (next != 64) harness_bug("the operation weights do not add up to 64", "build_operation_table");
}

static void end_write(runner *run)
{
    ce_txn_end(run->txn);
    run->txn = NULL;
    model_free(&run->current);
    model_copy(&run->current, &run->committed);
}

static void op_add_table(runner *run)
{
    char name[80];
    decode_name(run, name);
    ce_txn *txn = transaction(run);
    bool valid = name_is_valid(name);
    if (verbose) fprintf(stderr, "fuzz_ops:   name '%s' (%zu bytes, %s)\n", name, strlen(name), valid ? "valid" : "invalid");
    error_set expected = write_errors(run) | (valid ? 0 : ERR(CE_ERR_INVALID_ARGUMENT)) |
                         (valid && table_named(&run->current, name) ? ERR(CE_ERR_DUPLICATE_NAME) : 0);
    if (!expected && run->current.table_count >= MAX_TABLE_SLOTS) return;
    ce_table_key key = UINT32_MAX;
    size_t count;
    if (EXPECT(expected, ce_table_add(txn, name, &key))) {
        CHECK(key == run->current.table_count, "ce_table_add: the new table is not in the next slot");
        model_add_table(&run->current, name);
        check_table(txn, &run->current, key, 0);
    }
    MUST(ce_table_count(txn, &count));
    CHECK(count == run->current.table_count, "ce_table_count differs from the model");
    if (valid) {
        ce_table_key found_key;
        bool found;
        const model_table *table = table_named(&run->current, name);
        MUST(ce_table_find(txn, name, &found_key, &found));
        CHECK(found == (table != NULL) && (!found || found_key == (ce_table_key)(table - run->current.tables)),
              "ce_table_find differs from the model");
    }
}

static void op_remove_table(runner *run)
{
    ce_table_key key = decode_table(run);
    ce_txn *txn = transaction(run);
    model_table *table = live_table(&run->current, key);
    error_set expected = write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE));
    char name[NAME_CAPACITY] = "";
    if (table) snprintf(name, sizeof name, "%s", table->name);
    if (EXPECT(expected, ce_table_remove(txn, key))) model_remove_table(table);
    size_t count;
    MUST(ce_table_count(txn, &count));
    CHECK(count == run->current.table_count, "ce_table_count: a removed table must keep its slot");
    check_table(txn, &run->current, key, 2);
    if (name[0]) {
        ce_table_key found_key;
        bool found;
        MUST(ce_table_find(txn, name, &found_key, &found));
        CHECK(found == (table_named(&run->current, name) != NULL), "ce_table_find differs from the model");
    }
}

static void op_add_property(runner *run)
{
    ce_table_key key = decode_table(run);
    char name[80];
    decode_name(run, name);
    uint8_t type_choice = take(&run->input), flags = take(&run->input);
    static const ce_type unstorable[] = {CE_TYPE_NULL, CE_TYPE_LIST, CE_TYPE_DICTIONARY, (ce_type)15, (ce_type)99};
    ce_property_info info = {.name = name,
                             .type = type_choice < 0xF0 ? (ce_type)(1 + type_choice % 10) : unstorable[type_choice % 5],
                             .nullable = flags & 1, .primary_key = (flags & 6) == 6, .indexed = (flags & 8) != 0};
    ce_txn *txn = transaction(run);
    model_table *table = live_table(&run->current, key);
    bool valid = name_is_valid(name);
    error_set expected = write_errors(run) | (valid ? 0 : ERR(CE_ERR_INVALID_ARGUMENT));
    if (!table) {
        expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    } else {
        if (valid && property_named(table, name) >= 0) expected |= ERR(CE_ERR_DUPLICATE_NAME);
        if (!is_scalar_type(info.type)) expected |= ERR(CE_ERR_INVALID_SCHEMA);
        if (info.indexed && !info.primary_key && !is_indexable_type(info.type)) expected |= ERR(CE_ERR_INVALID_SCHEMA);
        if (info.primary_key && (!is_primary_key_type(info.type) || primary_key_of(table) >= 0 || table->object_count))
            expected |= ERR(CE_ERR_INVALID_SCHEMA);
        if (!expected && table->property_count >= MAX_PROPERTY_SLOTS) return;
    }
    size_t before = table ? table->property_count : 0, count;
    ce_column_key column = UINT32_MAX;
    if (EXPECT(expected, ce_property_add(txn, key, &info, &column))) {
        CHECK(column == before, "ce_property_add: the new property is not in the next slot");
        model_add_property(table, &info);
        check_property_info(txn, table, key, column);
        /* Existing objects have the default value: the first, the last and
         * one in the middle. */
        size_t checked = table->object_count < 3 ? table->object_count : 3;
        for (size_t i = 0; i < checked; i++) {
            size_t position = spread(i, checked, table->object_count);
            ce_value value;
            MUST(ce_object_get(txn, key, table->keys[position], column, &value));
            check_same_value(&value, &value_at(table, position, column)->value, "ce_object_get (a new property)");
        }
    }
    if (table) {
        MUST(ce_property_count(txn, key, &count));
        CHECK(count == table->property_count, "ce_property_count differs from the model");
    }
}

static void op_remove_property(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_column_key column = decode_column(run, table);
    ce_txn *txn = transaction(run);
    const model_property *property = live_property(table, column);
    error_set expected =
        write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE)) | (property ? 0 : ERR(CE_ERR_NO_SUCH_PROPERTY));
    if (!table) expected &= ~ERR(CE_ERR_NO_SUCH_PROPERTY);
    bool was_primary_key = property && property->primary_key;
    stored_value old_key = {{.type = CE_TYPE_NULL}, NULL};
    if (was_primary_key && table->object_count) old_key = store_value(&value_at(table, 0, column)->value);
    if (EXPECT(expected, ce_property_remove(txn, key, column))) {
        char name[NAME_CAPACITY];
        snprintf(name, sizeof name, "%s", property->name);
        model_remove_property(table, column);
        check_property_info(txn, table, key, column);
        ce_column_key found_column;
        bool found;
        MUST(ce_property_find(txn, key, name, &found_column, &found));
        CHECK(!found, "ce_property_find finds a removed property");
        ce_value value;
        if (table->object_count)
            EXPECT(ERR(CE_ERR_NO_SUCH_PROPERTY), ce_object_get(txn, key, table->keys[0], column, &value));
        if (was_primary_key && table->object_count) {
            /* The table has no primary key now: finding by one is an error. */
            ce_object_key object;
            EXPECT(ERR(CE_ERR_INVALID_ARGUMENT), ce_object_find_primary_key(txn, key, &old_key.value, &object, &found));
        }
    } else if (table) {
        check_table(txn, &run->current, key, 2);
    }
    release_value(&old_key);
}

/* The errors of creating an object in `table` with `primary_key` (NULL: no
 * key given). */
static error_set create_errors(const runner *run, const model_table *table, const ce_value *primary_key)
{
    error_set expected = write_errors(run);
    if (!table) return expected | ERR(CE_ERR_NO_SUCH_TABLE);
    long column = primary_key_of(table);
    if (column < 0) return expected | (primary_key ? ERR(CE_ERR_INVALID_ARGUMENT) : 0);
    if (!primary_key) return expected | ERR(CE_ERR_INVALID_ARGUMENT);
    error_set value = value_errors(&table->properties[column], primary_key);
    if (value) return expected | value;
    return expected | (position_of_primary_key(table, primary_key) >= 0 ? ERR(CE_ERR_DUPLICATE_PRIMARY_KEY) : 0);
}

/* The errors of creating an object in `table` from `values` (`count` of
 * them). Several apply at once (a malformed value in one column, a
 * duplicate key in another): any of them will do. */
static error_set create_with_values_errors(const runner *run, const model_table *table, const ce_value *values,
                                           size_t count)
{
    error_set expected = write_errors(run);
    if (!table) return expected | ERR(CE_ERR_NO_SUCH_TABLE);
    if (count != table->property_count) return expected | ERR(CE_ERR_INVALID_ARGUMENT);
    for (size_t p = 0; p < count; p++)
        if (!table->properties[p].removed) expected |= value_errors(&table->properties[p], &values[p]);
    long primary = primary_key_of(table);
    if (primary >= 0 && !value_errors(&table->properties[primary], &values[primary]) &&
        position_of_primary_key(table, &values[primary]) >= 0)
        expected |= ERR(CE_ERR_DUPLICATE_PRIMARY_KEY);
    return expected;
}

/* Creates one object with ce_object_create_with_values as the model says it
 * must go. Returns whether it was created. */
static bool create_object_with_values(runner *run, ce_table_key key, model_table *table, const ce_value *values,
                                      size_t count, bool full_check)
{
    ce_txn *txn = run->txn;
    error_set expected = create_with_values_errors(run, table, values, count);
    if (!expected && total_objects(&run->current) >= MAX_OBJECTS) return false;
    ce_object_key object = -2;
    bool ok = EXPECT(expected, ce_object_create_with_values(txn, key, values, count, &object));
    if (ok) {
        CHECK(object == table->next_key, "ce_object_create_with_values: the new object does not have the next key");
        model_create(table, object, NULL, values);
        if (full_check) check_object(txn, table, key, table->object_count - 1);
    }
    if (table && full_check) {
        size_t objects;
        bool exists;
        MUST(ce_object_count(txn, key, &objects));
        CHECK(objects == table->object_count, "ce_object_count differs from the model");
        MUST(ce_object_exists(txn, key, table->next_key, &exists));
        CHECK(!exists, "ce_object_exists: a failed create left an object behind");
        if (!ok && table->object_count) check_object(txn, table, key, table->object_count - 1);
    }
    return ok;
}

/* Creates one object as the model says it must go. Returns whether it was
 * created. */
static bool create_object(runner *run, ce_table_key key, model_table *table, const ce_value *primary_key,
                          bool full_check)
{
    ce_txn *txn = run->txn;
    error_set expected = create_errors(run, table, primary_key);
    if (!expected && total_objects(&run->current) >= MAX_OBJECTS) return false;
    ce_object_key object = -2;
    size_t count;
    bool ok = EXPECT(expected, ce_object_create(txn, key, primary_key, &object));
    long primary = primary_key_of(table);
    if (!ok && run->txn_is_write && primary_key && primary >= 0)
        check_message_names(table, &table->properties[primary], "ce_object_create");
    if (ok) {
        CHECK(object == table->next_key, "ce_object_create: the new object does not have the next key");
        model_create(table, object, primary_key, NULL);
        if (full_check) check_object(txn, table, key, table->object_count - 1);
    }
    if (table && full_check) {
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
        bool exists;
        MUST(ce_object_exists(txn, key, table->next_key, &exists));
        CHECK(!exists, "ce_object_exists: a failed create left an object behind");
        long existing = primary_key ? position_of_primary_key(table, primary_key) : -1;
        if (!ok && existing >= 0) check_object(txn, table, key, (size_t)existing);
    }
    return ok;
}

static void op_create(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    uint8_t flags = take(&run->input);
    long column = primary_key_of(table);
    bool mistake = (flags & 7) == 7; /* a key for a table without one, or none for a table with one */
    bool give_key = (column >= 0) != mistake;
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    if (give_key) {
        if (column >= 0 && (flags & 0x18) == 0x18 && table->object_count) {
            /* A duplicate on purpose. */
            buffer.value = value_at(table, take(&run->input) % table->object_count, (size_t)column)->value;
        } else {
            decode_value(run, table, column, column >= 0 ? table->properties[column].type : CE_TYPE_INT, &buffer);
        }
    }
    transaction(run);
    create_object(run, key, table, give_key ? &buffer.value : NULL, true);
    value_buffer_free(&buffer);
}

/* An object with a value for every column slot: mostly one count too many
 * or too few when the low three bits of the flags are set, a duplicate
 * primary key on purpose when bits 4-5 are; anything in the slots of
 * removed properties (ignored). */
typedef struct value_row {
    size_t count;
    value_buffer *buffers;
    ce_value *values;
} value_row;

/* A value for every column slot of `table` (a few for a missing table):
 * one too many or too few when the low three bits of `flags` are set, the
 * primary key of an existing object when `existing_key` says so, anything
 * in the slots of removed properties (they are ignored). */
static value_row decode_row(runner *run, const model_table *table, uint8_t flags, bool existing_key)
{
    size_t slots = table ? table->property_count : take(&run->input) % 4;
    value_row row = {slots, NULL, NULL};
    if ((flags & 7) == 7) row.count = (flags & 8) || slots == 0 ? slots + 1 : slots - 1;
    long primary = primary_key_of(table);
    row.buffers = allocate((row.count + 1) * sizeof *row.buffers);
    row.values = allocate((row.count + 1) * sizeof *row.values);
    for (size_t p = 0; p < row.count; p++) {
        const model_property *property = live_property(table, (ce_column_key)p);
        if ((long)p == primary && existing_key && table->object_count) {
            row.buffers[p].value = value_at(table, take(&run->input) % table->object_count, p)->value;
        } else {
            decode_value(run, property ? table : NULL, property ? (long)p : -1, property ? property->type : CE_TYPE_INT,
                         &row.buffers[p]);
        }
        row.values[p] = row.buffers[p].value;
    }
    return row;
}

static void free_row(value_row *row)
{
    for (size_t p = 0; p < row->count; p++) value_buffer_free(&row->buffers[p]);
    free(row->buffers);
    free(row->values);
}

/* An object with a value for every column slot; bits 4-5 of the flags set:
 * a duplicate primary key on purpose. */
static void op_create_with_values(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    uint8_t flags = take(&run->input);
    value_row row = decode_row(run, table, flags, (flags & 0x30) == 0x30);
    transaction(run);
    create_object_with_values(run, key, table, row.values, row.count, true);
    free_row(&row);
}

/* Create or update by primary key under a policy (flags & 3: error,
 * modified, all, or an unknown one), mostly with the key of an existing
 * object (bits 4-5 not both clear). */
static void op_create_or_update(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    uint8_t flags = take(&run->input);
    ce_update_policy policy = (flags & 3) == 3 ? (ce_update_policy)(3 + (flags >> 6)) : (ce_update_policy)(flags & 3);
    value_row row = decode_row(run, table, flags, (flags & 0x30) != 0);
    ce_txn *txn = transaction(run);
    if (policy == CE_UPDATE_ERROR) {
        /* Exactly create_with_values. */
        ce_object_key object = -2;
        bool created = false;
        error_set expected = create_with_values_errors(run, table, row.values, row.count);
        if (expected || total_objects(&run->current) < MAX_OBJECTS) {
            if (EXPECT(expected, ce_object_create_or_update(txn, key, row.values, row.count, policy, &object, &created))) {
                CHECK(created && object == table->next_key, "ce_object_create_or_update did not create the next object");
                model_create(table, object, NULL, row.values);
            }
        }
    } else {
        long primary = primary_key_of(table);
        error_set expected = policy > CE_UPDATE_ALL ? ERR(CE_ERR_INVALID_ARGUMENT) : 0;
        expected |= write_errors(run);
        if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
        else if (primary < 0 || row.count != table->property_count) expected |= ERR(CE_ERR_INVALID_ARGUMENT);
        else
            for (size_t p = 0; p < row.count; p++)
                if (!table->properties[p].removed) expected |= value_errors(&table->properties[p], &row.values[p]);
        long existing = expected ? -1 : position_of_primary_key(table, &row.values[primary]);
        if (!expected && existing < 0 && total_objects(&run->current) >= MAX_OBJECTS) {
            free_row(&row);
            return;
        }
        ce_object_key object = -2;
        bool created = false;
        if (EXPECT(expected, ce_object_create_or_update(txn, key, row.values, row.count, policy, &object, &created))) {
            if (existing < 0) {
                CHECK(created && object == table->next_key, "ce_object_create_or_update did not create the next object");
                model_create(table, object, NULL, row.values);
            } else {
                CHECK(!created && object == table->keys[existing],
                      "ce_object_create_or_update did not update the object with the key");
                /* "modified" leaves a value that equals the new one as it
                 * is (0.0 stays 0.0 when -0.0 comes). */
                for (size_t p = 0; p < row.count; p++) {
                    if ((long)p == primary || table->properties[p].removed) continue;
                    if (policy == CE_UPDATE_MODIFIED && equal_value(&value_at(table, (size_t)existing, p)->value, &row.values[p]))
                        continue;
                    model_set(table, (size_t)existing, p, &row.values[p]);
                }
            }
        }
    }
    if (table) {
        size_t count;
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
        long position = row.count == table->property_count && primary_key_of(table) >= 0
                            ? position_of_primary_key(table, &row.values[primary_key_of(table)])
                            : -1;
        if (position >= 0) check_object(txn, table, key, (size_t)position);
        if (table->object_count) check_object(txn, table, key, table->object_count - 1);
    }
    free_row(&row);
}

/* The primary key of the i-th object of a bulk create: distinct within the
 * batch (ints consecutive from a start the seed picks, so that batches
 * overlap sometimes). */
static void bulk_primary_key(ce_type type, uint32_t seed, size_t i, value_buffer *buffer)
{
    memset(buffer, 0, sizeof *buffer);
    buffer->value.type = type;
    if (type == CE_TYPE_INT) {
        buffer->value.integer = (int64_t)(seed % 2000) - 1000 + (int64_t)i;
    } else if (type == CE_TYPE_STRING) {
        char text[40];
        int length = snprintf(text, sizeof text, "key-%u-%zu", (unsigned)(seed % 4), i);
        uint8_t *bytes = allocate((size_t)length);
        memcpy(bytes, text, (size_t)length);
        set_bytes(buffer, type, bytes, (size_t)length);
    } else {
        uint8_t *bytes = type == CE_TYPE_UUID ? buffer->value.uuid.bytes : buffer->value.object_id.bytes;
        uint64_t counter = (uint64_t)(seed % 4) << 32 | i;
        memcpy(bytes, &counter, 8);
    }
}

/* Up to 511 objects in one go, with primary keys from bulk_primary_key and
 * one property (or, through create_with_values, every property) from a
 * stream the input seeds: leaves and index nodes fill and split. */
static void op_create_many(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    size_t count = 1 + 2 * (size_t)take(&run->input);
    ce_column_key column = decode_column(run, table);
    bool with_values = take(&run->input) & 1;
    uint32_t seed = take_u32(&run->input);
    ce_txn *txn = transaction(run);
    source stream = random_source(seed);
    long primary = primary_key_of(table);
    if (with_values && table) {
        /* Every column from the stream, through the fast path. */
        size_t slots = table->property_count;
        value_buffer *buffers = allocate((slots + 1) * sizeof *buffers);
        ce_value *values = allocate((slots + 1) * sizeof *values);
        for (size_t i = 0; i < count && run->txn_is_write; i++) {
            for (size_t p = 0; p < slots; p++) {
                const model_property *property = &table->properties[p];
                if (property->removed) buffers[p] = (value_buffer){{.type = CE_TYPE_NULL}, NULL};
                else if ((long)p == primary) bulk_primary_key(property->type, seed, i, &buffers[p]);
                else decode_typed_value(&stream, property->type, false, &buffers[p]);
                values[p] = buffers[p].value;
            }
            create_object_with_values(run, key, table, values, slots, false);
            for (size_t p = 0; p < slots; p++) value_buffer_free(&buffers[p]);
        }
        free(buffers);
        free(values);
        check_table(txn, &run->current, key, COMMIT_SAMPLE);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        value_buffer key_buffer = {{.type = CE_TYPE_NULL}, NULL};
        if (primary >= 0) bulk_primary_key(table->properties[primary].type, seed, i, &key_buffer);
        bool created = create_object(run, key, table, primary >= 0 ? &key_buffer.value : NULL, false);
        value_buffer_free(&key_buffer);
        if (!table || !run->txn_is_write) return; /* one failure tells it all */
        if (!created) continue;
        const model_property *property = live_property(table, column);
        if (!property || property->primary_key) continue;
        value_buffer buffer;
        decode_typed_value(&stream, property->type, false, &buffer);
        size_t position = table->object_count - 1;
        error_set expected = write_errors(run) | value_errors(property, &buffer.value);
        if (EXPECT(expected, ce_object_set(txn, key, table->keys[position], column, &buffer.value)))
            model_set(table, position, column, &buffer.value);
        value_buffer_free(&buffer);
    }
    check_table(txn, &run->current, key, COMMIT_SAMPLE);
}

static void check_deleted(runner *run, ce_table_key key, const model_table *table, ce_object_key object,
                          const ce_value *primary_key)
{
    ce_txn *txn = run->txn;
    bool exists;
    MUST(ce_object_exists(txn, key, object, &exists));
    CHECK(!exists, "ce_object_exists: a deleted object exists");
    for (size_t p = 0; p < table->property_count; p++) {
        if (table->properties[p].removed) continue;
        ce_value value;
        EXPECT(ERR(CE_ERR_NO_SUCH_OBJECT), ce_object_get(txn, key, object, (ce_column_key)p, &value));
        break;
    }
    if (primary_key) {
        ce_object_key found_object;
        bool found;
        MUST(ce_object_find_primary_key(txn, key, primary_key, &found_object, &found));
        CHECK(!found, "ce_object_find_primary_key finds a deleted object");
    }
}

static void op_delete(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_object_key object = decode_object(run, table);
    ce_txn *txn = transaction(run);
    long position = position_of(table, object);
    error_set expected = write_errors(run) | (!table ? ERR(CE_ERR_NO_SUCH_TABLE)
                                                     : position < 0 ? ERR(CE_ERR_NO_SUCH_OBJECT) : 0);
    long primary = primary_key_of(table);
    stored_value primary_key = {{.type = CE_TYPE_NULL}, NULL};
    if (position >= 0 && primary >= 0) primary_key = store_value(&value_at(table, (size_t)position, (size_t)primary)->value);
    if (EXPECT(expected, ce_object_delete(txn, key, object))) {
        model_delete(table, (size_t)position);
        check_deleted(run, key, table, object, primary >= 0 ? &primary_key.value : NULL);
        EXPECT(ERR(CE_ERR_NO_SUCH_OBJECT), ce_object_delete(txn, key, object));
    } else if (run->txn_is_write) {
        check_message_names(table, NULL, "ce_object_delete");
    }
    release_value(&primary_key);
    if (table) {
        size_t count;
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
    }
}

/* Deletes up to 511 objects from a position on, every `stride`-th: leaves
 * empty and merge. */
static void op_delete_many(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    uint8_t start = take(&run->input), count = take(&run->input), stride = take(&run->input);
    ce_txn *txn = transaction(run);
    if (!table || !run->txn_is_write) {
        EXPECT(write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE)), ce_object_delete(txn, key, 0));
        return;
    }
    size_t objects = table->object_count, step = 1 + stride % 4, deletions = 1 + 2 * (size_t)count;
    if (objects == 0) return;
    ce_object_key *victims = allocate(deletions * sizeof *victims);
    size_t victim_count = 0;
    for (size_t position = start * objects / 256; position < objects && victim_count < deletions; position += step)
        victims[victim_count++] = table->keys[position];
    for (size_t i = 0; i < victim_count; i++) {
        MUST(ce_object_delete(txn, key, victims[i]));
        model_delete(table, (size_t)position_of(table, victims[i]));
    }
    free(victims);
    check_table(txn, &run->current, key, COMMIT_SAMPLE);
}

static void op_set(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_object_key object = decode_object(run, table);
    ce_column_key column = decode_column(run, table);
    const model_property *property = live_property(table, column);
    value_buffer buffer;
    decode_value(run, table, property ? (long)column : -1, property ? property->type : CE_TYPE_INT, &buffer);
    ce_txn *txn = transaction(run);
    long position = position_of(table, object);
    error_set expected = write_errors(run);
    if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else {
        expected |= value_errors(property, &buffer.value);
        if (property->primary_key) expected |= ERR(CE_ERR_PRIMARY_KEY_IMMUTABLE);
        if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    }
    if (EXPECT(expected, ce_object_set(txn, key, object, column, &buffer.value)))
        model_set(table, (size_t)position, column, &buffer.value);
    else if (run->txn_is_write)
        check_message_names(table, property, "ce_object_set");
    value_buffer_free(&buffer);
    /* The value as the model has it (new, or unchanged after a failure), and
     * its neighbours in the column (a large value moves bytes around). */
    if (property && position >= 0) {
        for (long neighbour = position - 1; neighbour <= position + 1; neighbour++) {
            if (neighbour < 0 || (size_t)neighbour >= table->object_count) continue;
            ce_value value;
            MUST(ce_object_get(txn, key, table->keys[neighbour], column, &value));
            check_same_value(&value, &value_at(table, (size_t)neighbour, column)->value, "ce_object_get after a set");
        }
    }
}

static void op_get(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_object_key object = decode_object(run, table);
    ce_column_key column = decode_column(run, table);
    ce_txn *txn = transaction(run);
    const model_property *property = live_property(table, column);
    long position = position_of(table, object);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE) : 0;
    if (table && !property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (table && position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    ce_value value;
    if (EXPECT(expected, ce_object_get(txn, key, object, column, &value)))
        check_same_value(&value, &value_at(table, (size_t)position, column)->value, "ce_object_get");
}

static void op_find_primary_key(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    long column = primary_key_of(table);
    value_buffer buffer;
    decode_value(run, table, column, column >= 0 ? table->properties[column].type : CE_TYPE_INT, &buffer);
    ce_txn *txn = transaction(run);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE)
                         : column < 0 ? ERR(CE_ERR_INVALID_ARGUMENT)
                                      : value_errors(&table->properties[column], &buffer.value);
    ce_object_key object;
    bool found;
    if (EXPECT(expected, ce_object_find_primary_key(txn, key, &buffer.value, &object, &found))) {
        long position = position_of_primary_key(table, &buffer.value);
        CHECK(found == (position >= 0), "ce_object_find_primary_key differs from the model");
        CHECK(!found || object == table->keys[position], "ce_object_find_primary_key finds another object");
    }
    value_buffer_free(&buffer);
}

static void op_find_first(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_column_key column = decode_column(run, table);
    const model_property *property = live_property(table, column);
    value_buffer buffer;
    decode_value(run, table, property ? (long)column : -1, property ? property->type : CE_TYPE_INT, &buffer);
    ce_txn *txn = transaction(run);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE)
                         : !property ? ERR(CE_ERR_NO_SUCH_PROPERTY)
                                     : value_errors(property, &buffer.value);
    ce_object_key object;
    bool found;
    if (EXPECT(expected, ce_object_find_first(txn, key, column, &buffer.value, &object, &found))) {
        long position = first_position_equal(table, column, &buffer.value);
        CHECK(found == (position >= 0), "ce_object_find_first differs from the model");
        CHECK(!found || object == table->keys[position], "ce_object_find_first finds another object");
    }
    value_buffer_free(&buffer);
}

static void op_count(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_txn *txn = transaction(run);
    size_t count;
    if (EXPECT(table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE), ce_object_count(txn, key, &count)))
        CHECK(count == table->object_count, "ce_object_count differs from the model");
}

static void op_key_at(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    uint16_t choice = take_u16(&run->input);
    ce_txn *txn = transaction(run);
    size_t count = table ? table->object_count : 0;
    size_t index = choice >= 0xFFF0 ? SIZE_MAX - (choice & 15) : choice % (count + 1);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE) : index >= count ? ERR(CE_ERR_INDEX_OUT_OF_BOUNDS) : 0;
    ce_object_key object;
    if (EXPECT(expected, ce_object_key_at(txn, key, index, &object)))
        CHECK(object == table->keys[index], "ce_object_key_at differs from the model");
}

static void op_exists(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_object_key object = decode_object(run, table);
    ce_txn *txn = transaction(run);
    bool exists;
    if (EXPECT(table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE), ce_object_exists(txn, key, object, &exists)))
        CHECK(exists == (position_of(table, object) >= 0), "ce_object_exists differs from the model");
}

static void op_schema_version(runner *run)
{
    uint8_t choice = take(&run->input);
    uint64_t version = choice < 0xF0 ? choice : take_u64(&run->input);
    ce_txn *txn = transaction(run);
    error_set expected = write_errors(run) | (version > (uint64_t)INT64_MAX >> 1 ? ERR(CE_ERR_INVALID_ARGUMENT) : 0);
    if (EXPECT(expected, ce_set_schema_version(txn, version))) run->current.schema_version = version;
    uint64_t stored;
    MUST(ce_schema_version(txn, &stored));
    CHECK(stored == run->current.schema_version, "ce_schema_version differs from the model");
}

static void op_commit(runner *run)
{
    ce_txn *txn = transaction(run);
    run->txn = NULL;
    if (!run->txn_is_write) {
        /* The handle is released either way. */
        EXPECT(ERR(CE_ERR_WRONG_TRANSACTION_STATE), ce_txn_commit(txn));
        return;
    }
    MUST(ce_txn_commit(txn));
    run->version++;
    model_free(&run->committed);
    model_copy(&run->committed, &run->current);
    check_committed(run);
}

static void op_rollback(runner *run)
{
    if (!run->txn) return;
    if (run->txn_is_write) {
        end_write(run);
    } else {
        ce_txn_end(run->txn);
        run->txn = NULL;
    }
    ce_txn *reader;
    MUST(ce_txn_begin_read(run->db, &reader));
    check_everything(reader, &run->current, 2);
    ce_txn_end(reader);
}

static void open_database(runner *run)
{
    MUST(ce_db_open(database_path, &run->options, &run->db));
}

static void op_reopen(runner *run)
{
    if (run->txn || run->reader)
        EXPECT(ERR(CE_ERR_WRONG_TRANSACTION_STATE), ce_db_close(run->db)); /* and the handle stays open */
    if (run->txn && run->txn_is_write) end_write(run);
    else if (run->txn) ce_txn_end(run->txn);
    run->txn = NULL;
    if (run->reader) {
        ce_txn_end(run->reader);
        run->reader = NULL;
        model_free(&run->snapshot);
    }
    MUST(ce_db_close(run->db));
    run->db = NULL;
    open_database(run);
    check_committed(run);
}

static void op_begin_read(runner *run)
{
    if (run->txn && run->txn_is_write) {
        end_write(run);
    } else if (run->txn) {
        ce_txn_end(run->txn);
        run->txn = NULL;
        return;
    }
    MUST(ce_txn_begin_read(run->db, &run->txn));
    run->txn_is_write = false;
}

static void op_hold_reader(runner *run)
{
    if (run->reader) {
        check_everything(run->reader, &run->snapshot, COMMIT_SAMPLE);
        ce_txn_end(run->reader);
        run->reader = NULL;
        model_free(&run->snapshot);
        return;
    }
    MUST(ce_txn_begin_read(run->db, &run->reader));
    model_copy(&run->snapshot, &run->committed);
}

static void op_transaction_misuse(runner *run)
{
    uint8_t choice = take(&run->input) % 3;
    ce_txn *txn = transaction(run), *other = NULL;
    if (choice == 0 && run->txn_is_write) {
        /* A second write transaction on the thread that holds one would wait for itself. */
        EXPECT(ERR(CE_ERR_WRONG_TRANSACTION_STATE), ce_txn_begin_write(run->db, &other));
    } else if (choice == 1) {
        /* Only a read transaction advances. */
        error_set expected = run->txn_is_write ? ERR(CE_ERR_WRONG_TRANSACTION_STATE) : 0;
        if (EXPECT(expected, ce_txn_advance(txn))) check_everything(txn, &run->current, 2);
    } else if (run->reader) {
        MUST(ce_txn_advance(run->reader));
        model_free(&run->snapshot);
        model_copy(&run->snapshot, &run->committed);
        check_everything(run->reader, &run->snapshot, 2);
    }
}

static void op_check_table(runner *run)
{
    ce_table_key key = decode_table(run);
    check_table(transaction(run), &run->current, key, 64);
}

static void run_operation(runner *run, enum operation operation)
{
    current_operation = operation_names[operation];
    if (verbose) fprintf(stderr, "fuzz_ops: step %zu: %s\n", current_step, current_operation);
    switch (operation) {
    case OP_ADD_TABLE: op_add_table(run); break;
    case OP_REMOVE_TABLE: op_remove_table(run); break;
    case OP_ADD_PROPERTY: op_add_property(run); break;
    case OP_REMOVE_PROPERTY: op_remove_property(run); break;
    case OP_CREATE: op_create(run); break;
    case OP_CREATE_WITH_VALUES: op_create_with_values(run); break;
    case OP_CREATE_OR_UPDATE: op_create_or_update(run); break;
    case OP_CREATE_MANY: op_create_many(run); break;
    case OP_DELETE: op_delete(run); break;
    case OP_DELETE_MANY: op_delete_many(run); break;
    case OP_SET: op_set(run); break;
    case OP_GET: op_get(run); break;
    case OP_FIND_PRIMARY_KEY: op_find_primary_key(run); break;
    case OP_FIND_FIRST: op_find_first(run); break;
    case OP_COUNT: op_count(run); break;
    case OP_KEY_AT: op_key_at(run); break;
    case OP_EXISTS: op_exists(run); break;
    case OP_SCHEMA_VERSION: op_schema_version(run); break;
    case OP_COMMIT: op_commit(run); break;
    case OP_ROLLBACK: op_rollback(run); break;
    case OP_REOPEN: op_reopen(run); break;
    case OP_BEGIN_READ: op_begin_read(run); break;
    case OP_HOLD_READER: op_hold_reader(run); break;
    case OP_TRANSACTION_MISUSE: op_transaction_misuse(run); break;
    case OP_CHECK_TABLE: op_check_table(run); break;
    default: break;
    }
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static void remove_work_directory(void)
{
    if (database_path) unlink(database_path);
    if (lock_path) unlink(lock_path);
    if (work_directory) rmdir(work_directory);
}

static int lowest_free_descriptor(void)
{
    int descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (descriptor >= 0) close(descriptor);
    return descriptor;
}

/* One directory per process (libFuzzer's -jobs and -fork run several), on
 * tmpfs when there is one: every input writes a database. */
static void set_up(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base) base = "/tmp";
    size_t length = strlen(base) + 96;
    work_directory = allocate(length);
    database_path = allocate(length + 16);
    lock_path = allocate(length + 32);
    /* The pid in the name lets Fuzz/run.sh remove the directory of a run
     * that crashed (a crash skips the atexit handler). */
    snprintf(work_directory, length, "%s/openrealm-fuzz-ops-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(work_directory)) {
        perror("fuzz_ops: mkdtemp");
        abort();
    }
    snprintf(database_path, length + 16, "%s/ops.db", work_directory);
    snprintf(lock_path, length + 32, "%s.lock", database_path);
    atexit(remove_work_directory);
    build_operation_table();
    const char *setting = getenv("FUZZ_OPS_VERBOSE");
    verbose = setting && setting[0] == '1';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!work_directory) set_up();
    unlink(database_path);
    unlink(lock_path);
    /* Taken per input: between inputs libFuzzer may open descriptors of its
     * own (the pipes of the symbolizer that prints NEW_FUNC lines). */
    int baseline_descriptor = lowest_free_descriptor();
    runner run;
    memset(&run, 0, sizeof run);
    run.input = (source){data, size, 0, 0};
    run.large_values = MAX_LARGE_VALUES;
    ce_db_options_init(&run.options);
    uint8_t options = take(&run.input);
    run.options.durability = (options & 1) ? CE_DURABILITY_UNSAFE_NO_SYNC : CE_DURABILITY_FULL;
    current_step = 0;
    current_operation = "open";
    open_database(&run);
    MUST(ce_db_latest_version(run.db, &run.version)); /* a new file's; every commit adds one */
    for (current_step = 1; current_step <= MAX_OPERATIONS && run.input.offset < run.input.size; current_step++)
        run_operation(&run, (enum operation)operation_of_byte[take(&run.input) & 63]);

    /* The end: what the open transaction sees, then everything rolled back
     * and the file closed. */
    current_operation = "end";
    if (run.txn) check_everything(run.txn, &run.current, 2);
    if (run.txn && run.txn_is_write) end_write(&run);
    else if (run.txn) ce_txn_end(run.txn);
    if (run.reader) {
        check_everything(run.reader, &run.snapshot, 2);
        ce_txn_end(run.reader);
    }
    MUST(ce_db_close(run.db));
    model_free(&run.current);
    model_free(&run.committed);
    model_free(&run.snapshot);
    unlink(database_path);
    unlink(lock_path);
    if (lowest_free_descriptor() != baseline_descriptor)
        harness_bug("a file descriptor was left open", "ce_db_open .. ce_db_close");
    return 0;
}

#ifdef FUZZ_OPS_MAKE_CORPUS
/* ------------------------------------------------------------------------ */
/* The seed corpus                                                           */
/* ------------------------------------------------------------------------ */

/*
 *   make_ops_corpus <directory>      (the committed corpus is Fuzz/corpus/ops)
 *
 * Writes programs in the encoding above: one per area (every type, each
 * kind of primary key, the errors, large values, bulk creates and deletes,
 * rollback, schema changes, read transactions, a held reader, misuse,
 * indexes, create with values and create or update), then a few of random
 * bytes. Each is run through the harness first, so a seed that trips it is
 * never written. FUZZ_OPS_VERBOSE=1 prints what each one does.
 */
#include <errno.h>
#include <sys/stat.h>

static uint8_t program[16384];
static size_t program_size;

static void put(unsigned byte)
{
    if (program_size >= sizeof program) {
        fprintf(stderr, "make_ops_corpus: a program is too long\n");
        exit(1);
    }
    program[program_size++] = (uint8_t)byte;
}
static void put_u16(uint16_t value) { put(value & 0xFF), put(value >> 8); }
static void put_u32(uint32_t value) { put_u16((uint16_t)value), put_u16((uint16_t)(value >> 16)); }
static void put_u64(uint64_t value) { put_u32((uint32_t)value), put_u32((uint32_t)(value >> 32)); }

static void begin(unsigned options)
{
    program_size = 0;
    put(options);
}

static void operation(enum operation wanted)
{
    for (unsigned byte = 0; byte < 64; byte++)
        if (operation_of_byte[byte] == wanted) {
            put(byte);
            return;
        }
    fprintf(stderr, "make_ops_corpus: operation %d has no weight\n", (int)wanted);
    exit(1);
}

/* Arguments: a live table, property or object by rank; a pooled name. */
static void table_rank(unsigned rank) { put(rank); }
static void column_rank(unsigned rank) { put(rank); }
static void object_rank(unsigned rank) { put_u16((uint16_t)rank); }
static void missing_object(void) { put_u16(0xE000); } /* the table's next key */
enum { PERSON, DOG, ID, NAME, AGE, P5, P6, P7, N_TILDE, CHECK_MARK, EMOJI, LONG63, LONG64, EMPTY, BAD_UTF8, SURROGATE };
static void name(unsigned pooled) { put(pooled); }

/* Values (the mode byte, then the body of the type). */
static void null_value(void) { put(0); }
static void int_value(int64_t value) { put(5), put(0xC0), put_u64((uint64_t)value); }
static void bool_value(bool value) { put(5), put(value); }
static void float_value(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, 4);
    put(5), put(0x80), put_u32(bits);
}
static void double_value(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, 8);
    put(5), put(0x80), put_u64(bits);
}
static void text_value(const char *ascii)
{
    put(5), put((unsigned)strlen(ascii));
    for (const char *c = ascii; *c; c++) put((unsigned)(*c - 0x20));
}
static void raw_string_value(const char *bytes)
{
    put(2), put((unsigned)strlen(bytes));
    for (const char *c = bytes; *c; c++) put((uint8_t)*c);
}
static void long_string_value(unsigned sixteens, uint32_t seed) { put(5), put(0xC0 + sixteens), put(0), put_u32(seed); }
static void binary_value(unsigned size, unsigned first)
{
    put(5), put(size);
    for (unsigned i = 0; i < size; i++) put(first + i);
}
static void timestamp_value(int64_t seconds, uint32_t nanoseconds)
{
    put(5), put(0xC0), put_u64((uint64_t)seconds);
    if (nanoseconds) put(0x80), put_u32(nanoseconds);
    else put(0);
}
static void raw_timestamp_value(int64_t seconds, int32_t nanoseconds)
{
    put(2), put(0xC0), put_u64((uint64_t)seconds), put(0), put_u32((uint32_t)nanoseconds);
}
static void decimal_value(unsigned coefficient, unsigned exponent_step, bool negative)
{
    put(5), put((exponent_step & 7) << 1 | negative), put(coefficient);
}
static void pooled_id_value(unsigned which) { put(5), put(which & 3); } /* object id or uuid */
static void large_value(unsigned size_index, bool repeated, uint32_t seed)
{
    put(3), put(size_index), put(repeated), put(3), put_u32(seed);
}
static void copied_value(unsigned object) { put(4), put(object); }
static void wrong_string_value(void) { put(1), put(4), put(1), put('x' - 0x20); }
static void wrong_int_value(void) { put(1), put(0), put(0x40); }

/* A typed value of any scalar type, for rows of every type. */
static void value_of(ce_type type, unsigned variant)
{
    switch (type) {
    case CE_TYPE_INT: int_value((int64_t)variant * 1000003 - 7); break;
    case CE_TYPE_BOOL: bool_value(variant & 1); break;
    case CE_TYPE_FLOAT: float_value((float)variant / 3.0f); break;
    case CE_TYPE_DOUBLE: double_value(variant / 7.0 - 1); break;
    case CE_TYPE_STRING: {
        char text[24];
        snprintf(text, sizeof text, "value %u", variant);
        text_value(text);
        break;
    }
    case CE_TYPE_BINARY: binary_value(variant % 20, variant); break;
    case CE_TYPE_TIMESTAMP: timestamp_value((int64_t)variant * 86400 - 5, variant * 1000); break;
    case CE_TYPE_DECIMAL128: decimal_value(variant, variant, variant & 1); break;
    default: pooled_id_value(variant); break;
    }
}

/* Schema operations. */
static void add_table(unsigned pooled) { operation(OP_ADD_TABLE), name(pooled); }
static void add_property(unsigned table, unsigned pooled, ce_type type, bool nullable, bool primary_key, bool indexed)
{
    operation(OP_ADD_PROPERTY), table_rank(table), name(pooled);
    put(type >= CE_TYPE_INT && type <= CE_TYPE_UUID ? type - 1 : 0xF0 + (type == CE_TYPE_MIXED ? 1 : 0));
    put((nullable ? 1 : 0) | (primary_key ? 6 : 0) | (indexed ? 8 : 0));
}
static void add_property_raw_name(unsigned table, const char *raw, ce_type type, bool nullable)
{
    operation(OP_ADD_PROPERTY), table_rank(table), put(0xF8), put((unsigned)strlen(raw));
    for (const char *c = raw; *c; c++) put((uint8_t)*c);
    put(type - 1), put(nullable ? 1 : 0);
}
static void create(unsigned table) { operation(OP_CREATE), table_rank(table), put(0); } /* a table without a key */
static void create_keyed(unsigned table) { operation(OP_CREATE), table_rank(table), put(0); } /* then the key's value */
static void create_duplicate(unsigned table, unsigned object) { operation(OP_CREATE), table_rank(table), put(0x18), put(object); }
static void set(unsigned table, unsigned object, unsigned column) { operation(OP_SET), table_rank(table), object_rank(object), column_rank(column); }
static void get(unsigned table, unsigned object, unsigned column)
{
    operation(OP_GET), table_rank(table), object_rank(object), column_rank(column);
}
static void simple(enum operation wanted) { operation(wanted); }
static void check_table_operation(unsigned table) { operation(OP_CHECK_TABLE), table_rank(table); }

static const char *output_directory;
static size_t seeds_written;

static void write_seed(const char *seed_name)
{
    if (verbose) fprintf(stderr, "make_ops_corpus: --- %s\n", seed_name);
    LLVMFuzzerTestOneInput(program, program_size);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", output_directory, seed_name);
    FILE *file = fopen(path, "wb");
    if (!file || fwrite(program, 1, program_size, file) != program_size || fclose(file) != 0) {
        fprintf(stderr, "make_ops_corpus: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    seeds_written++;
}

static const ce_type every_type[] = {CE_TYPE_INT,    CE_TYPE_BOOL,   CE_TYPE_FLOAT,      CE_TYPE_DOUBLE,
                                     CE_TYPE_STRING, CE_TYPE_BINARY, CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128,
                                     CE_TYPE_OBJECT_ID, CE_TYPE_UUID};

static void seed_basic(unsigned options, const char *seed_name)
{
    begin(options);
    add_table(PERSON);
    add_property(0, NAME, CE_TYPE_STRING, false, false, false);
    add_property(0, AGE, CE_TYPE_INT, true, false, false);
    create(0), create(0), create(0);
    set(0, 0, 0), text_value("Ada");
    set(0, 1, 1), int_value(36);
    get(0, 0, 0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    get(0, 0, 0), get(0, 1, 1);
    operation(OP_COUNT), table_rank(0);
    operation(OP_KEY_AT), table_rank(0), put_u16(2);
    operation(OP_EXISTS), table_rank(0), object_rank(1);
    operation(OP_DELETE), table_rank(0), object_rank(1);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed(seed_name);
}

/* Every type, required and optional, in one table: defaults, values, nulls,
 * a commit and a reopen. */
static void seed_every_type(void)
{
    begin(0);
    add_table(DOG);
    for (unsigned i = 0; i < 20; i++) {
        char property_name[8];
        snprintf(property_name, sizeof property_name, "%c%u", i < 10 ? 'r' : 'o', i % 10);
        add_property_raw_name(0, property_name, every_type[i % 10], i >= 10);
    }
    create(0), create(0), create(0);
    for (unsigned object = 1; object < 3; object++)
        for (unsigned column = 0; column < 20; column++) {
            set(0, object, column);
            if (object == 2 && column >= 10) null_value();
            else value_of(every_type[column % 10], object * 10 + column);
        }
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    for (unsigned column = 0; column < 20; column++) get(0, 1, column);
    write_seed("every-type");
}

/* A table keyed by `type`: creates, a duplicate, finds, the key set (not
 * allowed), deletes, the key again after a delete. */
static void seed_primary_key(ce_type type, bool nullable, const char *seed_name)
{
    begin(0);
    add_table(PERSON);
    add_property(0, ID, type, nullable, true, false);
    add_property(0, NAME, CE_TYPE_STRING, true, false, true);
    for (unsigned i = 0; i < 3; i++) {
        create_keyed(0);
        if (type == CE_TYPE_STRING) text_value(i == 0 ? "a" : i == 1 ? "b" : "");
        else if (type == CE_TYPE_INT) int_value(i == 0 ? INT64_MIN : (int64_t)i);
        else pooled_id_value(i);
    }
    if (nullable) create_keyed(0), null_value(), create_keyed(0), null_value(); /* the second is a duplicate */
    create_duplicate(0, 1);
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), copied_value(2);
    set(0, 0, 0), copied_value(1); /* a primary key cannot change */
    set(0, 1, 1), text_value("named");
    operation(OP_FIND_FIRST), table_rank(0), column_rank(1), text_value("named");
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(0), object_rank(1);
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), copied_value(1);
    create_keyed(0);
    if (type == CE_TYPE_STRING) text_value("b");
    else if (type == CE_TYPE_INT) int_value(1);
    else pooled_id_value(1);
    create(0); /* no key for a keyed table */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    write_seed(seed_name);
}

/* Each error the API reports, once. */
static void seed_errors(void)
{
    begin(0);
    add_table(PERSON);
    add_table(PERSON);  /* duplicate */
    add_table(EMPTY);   /* invalid names */
    add_table(LONG64);
    add_table(BAD_UTF8);
    add_table(SURROGATE);
    add_table(LONG63);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);
    add_property(0, NAME, CE_TYPE_STRING, false, false, false);
    add_property(0, P5, CE_TYPE_TIMESTAMP, false, false, true);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);      /* duplicate */
    add_property(0, P6, CE_TYPE_MIXED, false, false, false);     /* not stored */
    add_property(0, P6, CE_TYPE_DOUBLE, false, true, false);     /* not a key type */
    add_property(0, P6, CE_TYPE_DOUBLE, false, false, true);     /* not indexable */
    add_property(0, EMPTY, CE_TYPE_INT, false, false, false);    /* invalid name */
    create(0);
    add_property(0, ID, CE_TYPE_INT, false, true, false);        /* a key for a table with objects */
    set(0, 0, 0), wrong_string_value();
    set(0, 0, 0), null_value();
    set(0, 0, 1), raw_string_value("\xC3\x28");
    set(0, 0, 1), wrong_int_value();
    set(0, 0, 2), raw_timestamp_value(-5, 7);
    set(0, 0, 2), raw_timestamp_value(1, 1000000000);
    operation(OP_SET), table_rank(0), missing_object(), column_rank(0), int_value(1);
    operation(OP_SET), table_rank(0), object_rank(0), put(0xF9), int_value(1); /* no such property */
    operation(OP_SET), table_rank(0xFE), object_rank(0), column_rank(0), int_value(1); /* no such table */
    operation(OP_GET), table_rank(0), missing_object(), column_rank(0);
    operation(OP_DELETE), table_rank(0), missing_object();
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), int_value(1);    /* no key */
    operation(OP_KEY_AT), table_rank(0), put_u16(0xFFFF);
    operation(OP_SCHEMA_VERSION), put(0xFF), put_u64(UINT64_MAX);
    operation(OP_REMOVE_PROPERTY), table_rank(0), put(0xFF);
    simple(OP_COMMIT);
    operation(OP_REMOVE_TABLE), table_rank(1);
    operation(OP_REMOVE_TABLE), table_rank(0xF8);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("errors");
}

/* Strings and binaries from 4 KiB to 70 KiB, compressible or not, around
 * the 64 KiB inline limit; overwritten, reopened, deleted. */
static void seed_large_values(void)
{
    begin(1);
    add_table(DOG);
    add_property(0, NAME, CE_TYPE_STRING, true, false, true);
    add_property(0, P5, CE_TYPE_BINARY, false, false, false);
    for (unsigned i = 0; i < 4; i++) create(0);
    set(0, 0, 0), large_value(4, true, 1);
    set(0, 1, 0), large_value(2, false, 2);
    set(0, 2, 1), large_value(3, false, 3);
    set(0, 3, 1), large_value(0, true, 4);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    set(0, 1, 1), large_value(4, false, 5);
    set(0, 0, 0), text_value("short again");
    set(0, 2, 0), long_string_value(40, 9); /* 640 characters */
    operation(OP_FIND_FIRST), table_rank(0), column_rank(0), copied_value(1);
    operation(OP_DELETE), table_rank(0), object_rank(2);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("large-values");
}

/* Hundreds of objects: leaves and index nodes split, then thin out. */
static void seed_bulk(ce_type key_type, bool with_values, const char *seed_name)
{
    begin(1);
    add_table(PERSON);
    add_property(0, ID, key_type, false, true, false);
    add_property(0, AGE, CE_TYPE_DOUBLE, false, false, false);
    add_property(0, NAME, CE_TYPE_STRING, true, false, true);
    operation(OP_CREATE_MANY), table_rank(0), put(255), column_rank(1), put(with_values), put_u32(7);
    simple(OP_COMMIT);
    operation(OP_CREATE_MANY), table_rank(0), put(200), column_rank(2), put(with_values), put_u32(1506);
    operation(OP_DELETE_MANY), table_rank(0), put(10), put(255), put(1);
    simple(OP_COMMIT);
    operation(OP_DELETE_MANY), table_rank(0), put(0), put(120), put(0);
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), copied_value(100);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    write_seed(seed_name);
}

/* A rolled-back transaction leaves nothing behind, schema included. */
static void seed_rollback(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, AGE, CE_TYPE_INT, false, false, true);
    create(0), create(0);
    simple(OP_COMMIT);
    add_table(DOG);
    add_property(0, NAME, CE_TYPE_STRING, false, false, false);
    set(0, 1, 0), int_value(5);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    operation(OP_SCHEMA_VERSION), put(9);
    operation(OP_CREATE_MANY), table_rank(0), put(150), column_rank(0), put(0), put_u32(3);
    simple(OP_ROLLBACK);
    check_table_operation(0);
    add_table(DOG);
    create(1);
    simple(OP_COMMIT);
    write_seed("rollback");
}

/* Properties and tables removed and added again under the same names. */
static void seed_schema_changes(void)
{
    begin(0);
    add_table(PERSON);
    add_table(DOG);
    add_property(0, AGE, CE_TYPE_INT, false, false, true);
    add_property(0, NAME, CE_TYPE_STRING, true, false, false);
    add_property(0, ID, CE_TYPE_UUID, false, false, true);
    create(0), create(0);
    set(0, 0, 1), text_value("x");
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(1);
    add_property(0, NAME, CE_TYPE_BINARY, false, false, false);
    create(0);
    simple(OP_COMMIT);
    operation(OP_REMOVE_TABLE), table_rank(0);
    add_table(PERSON);
    add_property(1, AGE, CE_TYPE_BOOL, false, false, true);
    create(1);
    operation(OP_SCHEMA_VERSION), put(3);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    write_seed("schema-changes");
}

/* Changes in a read transaction fail; commit of a read transaction too. */
static void seed_read_transaction(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);
    create(0);
    simple(OP_COMMIT);
    simple(OP_BEGIN_READ);
    set(0, 0, 0), int_value(1);
    create(0);
    add_table(DOG);
    get(0, 0, 0);
    operation(OP_TRANSACTION_MISUSE), put(1); /* advance a read transaction */
    simple(OP_COMMIT);
    simple(OP_BEGIN_READ);
    simple(OP_BEGIN_READ);
    set(0, 0, 0), int_value(2);
    simple(OP_COMMIT);
    write_seed("read-transaction");
}

/* A reader that began before later commits still sees its version. */
static void seed_held_reader(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, NAME, CE_TYPE_STRING, false, false, true);
    create(0), create(0);
    set(0, 0, 0), text_value("before");
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    set(0, 0, 0), text_value("after");
    operation(OP_DELETE), table_rank(0), object_rank(1);
    simple(OP_COMMIT);
    operation(OP_CREATE_MANY), table_rank(0), put(40), column_rank(0), put(0), put_u32(5);
    simple(OP_COMMIT);
    operation(OP_TRANSACTION_MISUSE), put(2); /* advance the reader */
    simple(OP_REOPEN);                        /* close fails while it is open */
    simple(OP_HOLD_READER);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    write_seed("held-reader");
}

static void seed_misuse(void)
{
    begin(0);
    add_table(DOG);
    operation(OP_TRANSACTION_MISUSE), put(0); /* a second write transaction */
    operation(OP_TRANSACTION_MISUSE), put(1); /* advance a write transaction */
    simple(OP_COMMIT);
    simple(OP_COMMIT);                        /* an empty commit */
    operation(OP_SCHEMA_VERSION), put(0xF0), put_u64((uint64_t)INT64_MAX >> 1);
    simple(OP_REOPEN);
    write_seed("misuse");
}

/* Indexed properties of each indexable type: built over existing objects,
 * kept through sets and deletes, found by find_first; unindexed ones scanned
 * (floats, doubles and decimals by numeric value). */
static void seed_indexes(void)
{
    static const ce_type types[] = {CE_TYPE_INT, CE_TYPE_BOOL, CE_TYPE_STRING, CE_TYPE_TIMESTAMP, CE_TYPE_OBJECT_ID,
                                    CE_TYPE_UUID, CE_TYPE_FLOAT, CE_TYPE_DOUBLE, CE_TYPE_DECIMAL128};
    begin(0);
    add_table(PERSON);
    for (unsigned i = 0; i < 5; i++) create(0);
    for (unsigned i = 0; i < 9; i++) {
        char property_name[4] = {'i', (char)('0' + i), 0};
        operation(OP_ADD_PROPERTY), table_rank(0), put(0xF8), put(2), put(property_name[0]), put(property_name[1]);
        put(types[i] - 1), put((i & 1) | (i < 6 ? 8 : 0));
    }
    for (unsigned object = 0; object < 5; object++)
        for (unsigned column = 0; column < 9; column++) set(0, object, column), value_of(types[column], object % 3);
    set(0, 1, 7), double_value(-0.0);
    set(0, 2, 7), double_value(0.0);
    set(0, 3, 8), decimal_value(10, 0, false);
    set(0, 4, 8), decimal_value(1, 1, false); /* 1E1 == 10E0 */
    for (unsigned column = 0; column < 9; column++)
        operation(OP_FIND_FIRST), table_rank(0), column_rank(column), copied_value(4);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    simple(OP_COMMIT);
    check_table_operation(0);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(2);
    simple(OP_COMMIT);
    write_seed("indexes");
}

/* create_with_values and create_or_update under each policy. */
static void seed_rows(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, ID, CE_TYPE_STRING, false, true, false);
    add_property(0, NAME, CE_TYPE_STRING, true, false, false);
    add_property(0, AGE, CE_TYPE_DOUBLE, false, false, true); /* not indexable: refused */
    add_property(0, AGE, CE_TYPE_DOUBLE, false, false, false);
    add_property(0, P5, CE_TYPE_TIMESTAMP, false, false, true);
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(0), text_value("k1"), text_value("n1"), double_value(1.5),
        timestamp_value(10, 5);
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(0x30), put(0), null_value(), double_value(2), timestamp_value(0, 0);
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(0), text_value("k2"), null_value(), double_value(2),
        raw_timestamp_value(-1, 1); /* malformed */
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(7), text_value("k3"), null_value(), double_value(2); /* too few */
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x11), put(0), text_value("n2"), double_value(-0.0),
        timestamp_value(-3, 4);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x12), put(0), null_value(), double_value(0.0),
        timestamp_value(-3, 4);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x02), text_value("k4"), null_value(), double_value(4),
        timestamp_value(4, 4);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x13), put(0), null_value(), double_value(1), timestamp_value(1, 1);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(1);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x01), text_value("k5"), wrong_string_value(), double_value(5),
        timestamp_value(5, 5); /* anything in a removed slot */
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("rows");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_ops_corpus <directory>\n");
        return 2;
    }
    output_directory = argv[1];
    if (mkdir(output_directory, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "make_ops_corpus: cannot create %s: %s\n", output_directory, strerror(errno));
        return 1;
    }
    set_up();
    seed_basic(0, "basic");
    seed_basic(1, "basic-no-sync");
    seed_every_type();
    seed_primary_key(CE_TYPE_INT, false, "primary-key-int");
    seed_primary_key(CE_TYPE_INT, true, "primary-key-int-nullable");
    seed_primary_key(CE_TYPE_STRING, false, "primary-key-string");
    seed_primary_key(CE_TYPE_STRING, true, "primary-key-string-nullable");
    seed_primary_key(CE_TYPE_OBJECT_ID, false, "primary-key-object-id");
    seed_primary_key(CE_TYPE_UUID, true, "primary-key-uuid-nullable");
    seed_errors();
    seed_large_values();
    seed_bulk(CE_TYPE_INT, false, "bulk-int-key");
    seed_bulk(CE_TYPE_INT, true, "bulk-int-key-with-values");
    seed_bulk(CE_TYPE_STRING, false, "bulk-string-key");
    seed_bulk(CE_TYPE_UUID, true, "bulk-uuid-key-with-values");
    seed_rollback();
    seed_schema_changes();
    seed_read_transaction();
    seed_held_reader();
    seed_misuse();
    seed_indexes();
    seed_rows();
    /* Random programs of a few lengths: whatever the weights make of them. */
    uint64_t state = 0x0F5EED;
    for (unsigned i = 0; i < 8; i++) {
        begin(i & 1);
        size_t length = 64u << (i % 5);
        while (program_size < length) put((uint8_t)(next_random(&state) >> 56));
        char seed_name[32];
        snprintf(seed_name, sizeof seed_name, "random-%u", i);
        write_seed(seed_name);
    }
    printf("make_ops_corpus: %zu seeds written to %s\n", seeds_written, output_directory);
    return 0;
}
#endif
