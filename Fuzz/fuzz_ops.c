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
 * under each policy; links (to-one, lists, sets and dictionaries of links),
 * collections of every scalar type, mixed values holding scalars, links and
 * lists and dictionaries nested in them, and embedded objects read back as
 * written, through collection handles opened level by level; every link
 * has its backlink (counts and origins per origin property, totals), a
 * deleted object's links are purged as table.c says and the embedded
 * objects it owned go with it, and so for removed link properties and
 * tables; a rolled-back transaction leaves nothing
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
 * bytes copied into reference-counted blobs and collections shared until
 * one copy changes them, so that copies of the model are cheap) is changed
 * only when a call succeeds. Backlinks are not stored in it: they are
 * counted from the links its objects hold. It keeps a committed copy:
 * a rollback and a reopen restore it, a held reader compares against the
 * copy taken when it began.
 *
 * Where several errors apply to one call (say a missing object and a value
 * of the wrong type) the model allows each of them: which check comes first
 * is the engine's business, that it fails with one of them is not.
 *
 * The input. Byte 0 holds options (bit 0: durability "unsafe no sync"
 * instead of "full"). Then operations, at most MAX_OPERATIONS, until the
 * input ends: one byte whose low 7 bits pick the operation through
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
    /* Names of backlink properties: "@links.<table>.<property>" */
    PROPERTY_NAME_CAPACITY = 2 * NAME_CAPACITY + 16,
    MAX_COLLECTION_SIZE = 1500, /* elements of one collection: bulk inserts pass 1000 (one chunk) */
    MAX_PATH_DEPTH = 3,         /* nested collections below a mixed value or element, for the operations */
    KEY_CAPACITY = 48,          /* dictionary keys the harness spells */
    ELEMENT_SAMPLE = 24,        /* elements of a long collection compared in a check */
    MAX_EMBEDDING_DEPTH = 100,  /* embedded objects below one top-level object, as in Realm */
    MAX_NESTING_LEVEL = 100,    /* levels of collections nested in mixed values, as in Realm */
    CHECK_NESTING = 6,          /* nested levels a check reads (each level's calls find the path again) */
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
static void clear_error(void) { error_fail(CE_OK, "%s", ""); }

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
    case CE_TYPE_LINK: return a->link.table == b->link.table && a->link.key == b->link.key;
    case CE_TYPE_LIST:
    case CE_TYPE_DICTIONARY: return true; /* the contents are compared through a collection handle */
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

static int sign_of(long long difference) { return difference < 0 ? -1 : difference > 0; }

static int compare_bytes_of(const void *a, size_t a_size, const void *b, size_t b_size)
{
    /* memcmp with a null pointer is undefined even for 0 bytes. */
    int sign = a_size == 0 || b_size == 0 ? 0 : memcmp(a, b, a_size < b_size ? a_size : b_size);
    return sign ? (sign < 0 ? -1 : 1) : sign_of((long long)a_size - (long long)b_size);
}

static int compare_doubles(double x, double y)
{
    bool x_nan = x != x, y_nan = y != y;
    if (x_nan || y_nan) return x_nan == y_nan ? 0 : x_nan ? -1 : 1; /* every NaN first, all equal */
    return x < y ? -1 : x > y;                                        /* -0.0 == 0.0 */
}

static int decimal_digits(unsigned __int128 coefficient)
{
    int digits = 0;
    while (coefficient) coefficient /= 10, digits++;
    return digits;
}

/* Decimals by number: NaN, -infinity, negative numbers, zero, positive
 * numbers, +infinity (decode_decimal reduced the coefficients). */
static int compare_decimals(ce_decimal128 a, ce_decimal128 b)
{
    decimal_number x = decode_decimal(a), y = decode_decimal(b);
    int x_rank = x.kind == NUMBER_NAN ? 0 : x.kind == NUMBER_ZERO ? 3 : x.kind == NUMBER_INFINITY ? (x.negative ? 1 : 5)
                                                                                                  : (x.negative ? 2 : 4);
    int y_rank = y.kind == NUMBER_NAN ? 0 : y.kind == NUMBER_ZERO ? 3 : y.kind == NUMBER_INFINITY ? (y.negative ? 1 : 5)
                                                                                                  : (y.negative ? 2 : 4);
    if (x_rank != y_rank) return x_rank < y_rank ? -1 : 1;
    if (x_rank != 2 && x_rank != 4) return 0;
    /* Magnitudes: first by the exponent of the leading digit, then digit by
     * digit (the shorter coefficient scaled up, at most 34 digits). */
    int x_digits = decimal_digits(x.coefficient), y_digits = decimal_digits(y.coefficient);
    int magnitude = sign_of((long long)(x.exponent + x_digits) - (y.exponent + y_digits));
    if (!magnitude) {
        unsigned __int128 x_scaled = x.coefficient, y_scaled = y.coefficient;
        for (int i = x_digits; i < y_digits; i++) x_scaled *= 10;
        for (int i = y_digits; i < x_digits; i++) y_scaled *= 10;
        magnitude = x_scaled < y_scaled ? -1 : x_scaled > y_scaled;
    }
    return x_rank == 2 ? -magnitude : magnitude;
}

/* The engine's total order of values (value.h), written apart from value.c:
 * by type number first, then within the type. Sets keep their elements in
 * this order and treat order-equal values as one. */
static int order_value(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    switch (a->type) {
    case CE_TYPE_INT: return a->integer < b->integer ? -1 : a->integer > b->integer;
    case CE_TYPE_BOOL: return sign_of((long long)a->boolean - (long long)b->boolean);
    case CE_TYPE_FLOAT: return compare_doubles(a->float_value, b->float_value);
    case CE_TYPE_DOUBLE: return compare_doubles(a->double_value, b->double_value);
    case CE_TYPE_STRING: return compare_bytes_of(a->string.data, a->string.size, b->string.data, b->string.size);
    case CE_TYPE_BINARY: return compare_bytes_of(a->binary.data, a->binary.size, b->binary.data, b->binary.size);
    case CE_TYPE_TIMESTAMP:
        if (a->timestamp.seconds != b->timestamp.seconds) return a->timestamp.seconds < b->timestamp.seconds ? -1 : 1;
        return sign_of((long long)a->timestamp.nanoseconds - b->timestamp.nanoseconds);
    case CE_TYPE_DECIMAL128: return compare_decimals(a->decimal, b->decimal);
    case CE_TYPE_OBJECT_ID: return compare_bytes_of(a->object_id.bytes, 12, b->object_id.bytes, 12);
    case CE_TYPE_UUID: return compare_bytes_of(a->uuid.bytes, 16, b->uuid.bytes, 16);
    case CE_TYPE_LINK:
        if (a->link.table != b->link.table) return a->link.table < b->link.table ? -1 : 1;
        return a->link.key < b->link.key ? -1 : a->link.key > b->link.key;
    default: return 0; /* null; nested collections are equal by type */
    }
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
    case CE_TYPE_LINK: fprintf(stderr, " table %u key %lld", (unsigned)value->link.table, (long long)value->link.key); break;
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

typedef struct model_collection model_collection;

/* One value slot: a property's value, a collection property (its elements
 * in `nested`, value null), or an element of a collection. A mixed value
 * holding a nested list or dictionary has that type and its elements in
 * `nested`. NULL `nested` is an empty collection. */
typedef struct stored_value {
    ce_value value; /* a string or binary points into `bytes`; a link is {table, key} */
    blob *bytes;
    model_collection *nested;
} stored_value;

/* The elements of a list, set or dictionary (which of them the slot that
 * holds it says), shared by the copies of the model and copied on write:
 * a set's in the engine's value order (order_value), a dictionary's with
 * one string key each, keys bytewise ascending. */
struct model_collection {
    size_t references;
    size_t count, capacity;
    stored_value *elements;
    stored_value *keys; /* dictionaries only */
};

typedef struct model_property {
    char name[PROPERTY_NAME_CAPACITY];
    ce_type type; /* collections: the element type */
    bool nullable, primary_key, indexed, removed;
    ce_collection_type collection;
    ce_table_key link_target; /* links: the target table; backlinks: the origin table */
    bool backlink;            /* the links of link_target.origin_column into this table */
    ce_column_key origin_column;
} model_property;

typedef struct model_table {
    char name[NAME_CAPACITY];
    bool removed, embedded;
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

/* What the slots of a property or the elements of a collection hold. */
typedef struct element_kind {
    ce_type type; /* a scalar type, CE_TYPE_LINK or CE_TYPE_MIXED */
    bool nullable;
    ce_table_key link_target;
    bool in_set; /* a set's mixed elements hold no nested collections */
} element_kind;

static void *allocate(size_t size)
{
    void *memory = calloc(1, size ? size : 1);
    if (!memory) {
        fprintf(stderr, "fuzz_ops: out of memory\n");
        abort();
    }
    return memory;
}

static void *grow(void *memory, size_t size)
{
    void *grown = realloc(memory, size ? size : 1);
    if (!grown) {
        fprintf(stderr, "fuzz_ops: out of memory\n");
        abort();
    }
    return grown;
}

static bool is_nested_type(ce_type type) { return type == CE_TYPE_LIST || type == CE_TYPE_DICTIONARY; }

/* A copy of a value in the model: the bytes copied into a blob; a nested
 * list or dictionary is a new empty one (as the engine stores it). */
static stored_value store_value(const ce_value *value)
{
    stored_value stored = {*value, NULL, NULL};
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

/* One more holder of a slot's bytes and elements. */
static void retain_value(stored_value *stored)
{
    if (stored->bytes) stored->bytes->references++;
    if (stored->nested) stored->nested->references++;
}

static void release_collection(model_collection *collection);

static void release_value(stored_value *stored)
{
    if (stored->bytes && --stored->bytes->references == 0) free(stored->bytes);
    if (stored->nested) release_collection(stored->nested);
    stored->bytes = NULL;
    stored->nested = NULL;
    stored->value = (ce_value){.type = CE_TYPE_NULL};
}

static void release_collection(model_collection *collection)
{
    if (--collection->references) return;
    for (size_t i = 0; i < collection->count; i++) {
        release_value(&collection->elements[i]);
        if (collection->keys) release_value(&collection->keys[i]);
    }
    free(collection->elements);
    free(collection->keys);
    free(collection);
}

static size_t collection_count(const model_collection *collection) { return collection ? collection->count : 0; }

/* The collection in *slot, made this holder's own (created when empty,
 * copied when shared) so that it can change. */
static model_collection *writable_collection(model_collection **slot)
{
    model_collection *shared = *slot;
    if (shared && shared->references == 1) return shared;
    model_collection *own = allocate(sizeof *own);
    own->references = 1;
    if (shared) {
        own->count = own->capacity = shared->count;
        own->elements = allocate(shared->count * sizeof *own->elements);
        if (shared->count) memcpy(own->elements, shared->elements, shared->count * sizeof *own->elements);
        if (shared->keys) {
            own->keys = allocate(shared->count * sizeof *own->keys);
            if (shared->count) memcpy(own->keys, shared->keys, shared->count * sizeof *own->keys);
        }
        for (size_t i = 0; i < own->count; i++) {
            retain_value(&own->elements[i]);
            if (own->keys) retain_value(&own->keys[i]);
        }
        shared->references--;
    }
    *slot = own;
    return own;
}

/* Inserts an element (and its key, for a dictionary) the collection takes over. */
static void collection_insert_at(model_collection *collection, size_t index, stored_value element, const stored_value *key)
{
    if (collection->count == collection->capacity) {
        collection->capacity = collection->capacity ? 2 * collection->capacity : 8;
        collection->elements = grow(collection->elements, collection->capacity * sizeof *collection->elements);
        if (key || collection->keys)
            collection->keys = grow(collection->keys, collection->capacity * sizeof *collection->keys);
    } else if (key && !collection->keys) {
        collection->keys = allocate(collection->capacity * sizeof *collection->keys);
    }
    size_t after = collection->count - index;
    memmove(&collection->elements[index + 1], &collection->elements[index], after * sizeof *collection->elements);
    collection->elements[index] = element;
    if (collection->keys) {
        memmove(&collection->keys[index + 1], &collection->keys[index], after * sizeof *collection->keys);
        collection->keys[index] = key ? *key : (stored_value){{.type = CE_TYPE_NULL}, NULL, NULL};
    }
    collection->count++;
}

static void collection_erase_at(model_collection *collection, size_t index)
{
    release_value(&collection->elements[index]);
    size_t after = collection->count - index - 1;
    memmove(&collection->elements[index], &collection->elements[index + 1], after * sizeof *collection->elements);
    if (collection->keys) {
        release_value(&collection->keys[index]);
        memmove(&collection->keys[index], &collection->keys[index + 1], after * sizeof *collection->keys);
    }
    collection->count--;
}

/* The position of a dictionary key, or where it would go. */
static size_t key_position(const model_collection *collection, const char *key, size_t size, bool *out_found)
{
    size_t low = 0, high = collection_count(collection);
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        const ce_value *at = &collection->keys[middle].value;
        if (compare_bytes_of(at->string.data, at->string.size, key, size) < 0) low = middle + 1;
        else high = middle;
    }
    *out_found = low < collection_count(collection) &&
                 compare_bytes_of(collection->keys[low].value.string.data, collection->keys[low].value.string.size, key,
                                  size) == 0;
    return low;
}

/* The first position of a set whose element is not below `value`. */
static size_t set_position(const model_collection *collection, const ce_value *value, bool *out_found)
{
    size_t low = 0, high = collection_count(collection);
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (order_value(&collection->elements[middle].value, value) < 0) low = middle + 1;
        else high = middle;
    }
    *out_found = low < collection_count(collection) && order_value(&collection->elements[low].value, value) == 0;
    return low;
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

/* A copy that shares bytes and collections with the original (collections
 * are copied when one side changes them). */
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
            retain_value(&to->values[i]);
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

/* A property of one value (not a collection, not backlinks). */
static bool holds_one_value(const model_property *property)
{
    return property->collection == CE_COLLECTION_NONE && !property->backlink;
}

/* A live property whose values may link: links, collections of links, mixed. */
static bool holds_links(const model_property *property)
{
    return !property->removed && !property->backlink && (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED);
}

static element_kind kind_of_property(const model_property *property)
{
    return (element_kind){property->type, property->nullable || property->type == CE_TYPE_MIXED, property->link_target,
                          property->collection == CE_COLLECTION_SET};
}

static const element_kind nested_kind = {CE_TYPE_MIXED, true, 0, false};

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

/* What ce_property_find gives for a name: the last live property of that
 * name. Only backlink names can repeat ("@links.a.b.c" is the backlinks of
 * a.b.c and of a.b's property c). */
static long property_found_by_name(const model_table *table, const char *name)
{
    long found = -1;
    for (size_t p = 0; p < table->property_count; p++)
        if (!table->properties[p].removed && strcmp(table->properties[p].name, name) == 0) found = (long)p;
    return found;
}

static void model_add_table(model *state, const char *name, bool embedded)
{
    state->tables = grow(state->tables, (state->table_count + 1) * sizeof *state->tables);
    model_table *table = &state->tables[state->table_count++];
    memset(table, 0, sizeof *table);
    snprintf(table->name, sizeof table->name, "%s", name);
    table->embedded = embedded;
}

static void model_remove_table(model_table *table)
{
    free_table(table);
    table->removed = true;
}

/* The value a property starts with: its type's default, null for links
 * and mixed, an empty collection, no backlinks. */
static ce_value initial_value(const model_property *property)
{
    if (property->removed || !holds_one_value(property) || !is_scalar_type(property->type))
        return (ce_value){.type = CE_TYPE_NULL};
    return default_value(property->type, property->nullable);
}

/* Re-lays the rows for one more property, which every object gets with its
 * initial value. */
static void model_append_property(model_table *table, const model_property *definition)
{
    size_t old_count = table->property_count, new_count = old_count + 1;
    model_property *properties = allocate(new_count * sizeof *properties);
    if (old_count) memcpy(properties, table->properties, old_count * sizeof *properties);
    properties[old_count] = *definition;
    stored_value *values = allocate(table->object_capacity * new_count * sizeof *values + sizeof *values);
    ce_value initial = initial_value(definition);
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

static void model_add_property(model_table *table, const ce_property_info *info)
{
    model_property property;
    memset(&property, 0, sizeof property);
    snprintf(property.name, sizeof property.name, "%s", info->name);
    property.type = info->type;
    property.nullable = info->nullable || info->type == CE_TYPE_MIXED; /* mixed elements take null too */
    property.primary_key = info->primary_key;
    property.indexed = info->indexed || info->primary_key;
    property.collection = info->collection;
    property.link_target = info->type == CE_TYPE_LINK ? info->link_target : 0;
    model_append_property(table, &property);
}

/* The backlink property of `target` for origin_table.origin_column, or -1. */
static long backlink_property(const model_table *target, ce_table_key origin_table, size_t origin_column)
{
    for (size_t p = 0; p < target->property_count; p++) {
        const model_property *property = &target->properties[p];
        if (!property->removed && property->backlink && property->link_target == origin_table &&
            property->origin_column == origin_column)
            return (long)p;
    }
    return -1;
}

/* A link from origin_table.origin_column into `target` needs the target's
 * backlink property: made with the link property, or (mixed) on the first
 * link into that table. */
static void model_ensure_backlink(model *state, ce_table_key target, ce_table_key origin_table, size_t origin_column)
{
    model_table *table = &state->tables[target];
    if (backlink_property(table, origin_table, origin_column) >= 0) return;
    const model_table *origin = &state->tables[origin_table];
    model_property property;
    memset(&property, 0, sizeof property);
    /* Link and mixed properties have user names: at most 63 bytes each. */
    snprintf(property.name, sizeof property.name, "@links.%.63s.%.63s", origin->name,
             origin->properties[origin_column].name);
    property.type = CE_TYPE_LINK;
    property.backlink = true;
    property.link_target = origin_table;
    property.origin_column = (ce_column_key)origin_column;
    model_append_property(table, &property);
}

static void model_remove_property(model_table *table, size_t column)
{
    for (size_t i = 0; i < table->object_count; i++) release_value(value_at(table, i, column));
    table->properties[column].removed = true;
}

/* Removes the backlink properties of origin_table.origin_column. */
static void model_remove_backlinks(model *state, ce_table_key origin_table, size_t origin_column)
{
    for (size_t t = 0; t < state->table_count; t++) {
        model_table *table = &state->tables[t];
        if (table->removed) continue;
        long column = backlink_property(table, origin_table, origin_column);
        if (column >= 0) model_remove_property(table, (size_t)column);
    }
}

/* Appends an object (keys only grow, so it is last) with `values` (one per
 * column slot), or with initial values and `primary_key`. */
static void model_create(model_table *table, ce_object_key key, const ce_value *primary_key, const ce_value *values)
{
    if (table->object_count == table->object_capacity) {
        size_t capacity = table->object_capacity ? 2 * table->object_capacity : 16;
        table->keys = grow(table->keys, capacity * sizeof *table->keys);
        table->values = grow(table->values, (capacity * table->property_count + 1) * sizeof *table->values);
        table->object_capacity = capacity;
    }
    size_t position = table->object_count++;
    table->keys[position] = key;
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        ce_value initial = values && !property->removed && holds_one_value(property) ? values[p] : initial_value(property);
        bool given_key = property->primary_key && !property->removed && !values;
        *value_at(table, position, p) = store_value(given_key ? primary_key : &initial);
    }
    table->next_key = key + 1;
}

/* Removes an object's row (nothing else: see model_delete_object). */
static void model_delete(model_table *table, size_t position)
{
    for (size_t p = 0; p < table->property_count; p++) release_value(value_at(table, position, p));
    size_t after = table->object_count - position - 1;
    memmove(&table->keys[position], &table->keys[position + 1], after * sizeof *table->keys);
    memmove(value_at(table, position, 0), value_at(table, position + 1, 0),
            after * table->property_count * sizeof *table->values);
    table->object_count--;
}

/* ------------------------------------------------------------------------ */
/* Links in the model                                                        */
/* ------------------------------------------------------------------------ */

typedef struct link_vector {
    ce_link *items;
    size_t count, capacity;
} link_vector;

static void link_vector_push(link_vector *vector, ce_link link)
{
    if (vector->count == vector->capacity) {
        vector->capacity = vector->capacity ? 2 * vector->capacity : 8;
        vector->items = grow(vector->items, vector->capacity * sizeof *vector->items);
    }
    vector->items[vector->count++] = link;
}

static bool is_link_to(const stored_value *stored, ce_link target)
{
    return stored->value.type == CE_TYPE_LINK && stored->value.link.table == target.table &&
           stored->value.link.key == target.key;
}

/* How many links to `target` a collection holds, nested ones included. */
static size_t collection_links_to(const model_collection *collection, ce_link target)
{
    size_t links = 0;
    for (size_t i = 0; i < collection_count(collection); i++) {
        const stored_value *element = &collection->elements[i];
        if (is_link_to(element, target)) links++;
        else if (element->nested) links += collection_links_to(element->nested, target);
    }
    return links;
}

/* How many links to `target` a slot holds (a link, a mixed value, a collection). */
static size_t slot_links_to(const stored_value *slot, ce_link target)
{
    return is_link_to(slot, target) ? 1 : collection_links_to(slot->nested, target);
}

/* The links held directly by a slot of a link property (to-one or a
 * collection of links): the embedded objects it owns, when its target is
 * an embedded table. */
static void owned_links(const model *state, const model_property *property, const stored_value *slot, link_vector *out)
{
    if (property->type != CE_TYPE_LINK || property->backlink || !state->tables[property->link_target].embedded) return;
    if (slot->value.type == CE_TYPE_LINK) link_vector_push(out, slot->value.link);
    for (size_t i = 0; i < collection_count(slot->nested); i++)
        if (slot->nested->elements[i].value.type == CE_TYPE_LINK) link_vector_push(out, slot->nested->elements[i].value.link);
}

/* Every link to `target` goes: lists and sets drop it (each occurrence),
 * dictionaries keep the key with null; in nested collections alike. */
static void purge_collection(model_collection **slot, bool dictionary, ce_link target)
{
    if (!collection_links_to(*slot, target)) return;
    model_collection *collection = writable_collection(slot);
    for (size_t i = collection->count; i-- > 0;) {
        stored_value *element = &collection->elements[i];
        if (is_link_to(element, target)) {
            if (dictionary) release_value(element);
            else collection_erase_at(collection, i);
        } else if (is_nested_type(element->value.type)) {
            purge_collection(&element->nested, element->value.type == CE_TYPE_DICTIONARY, target);
        }
    }
}

/* A to-one link or a mixed value to `target` becomes null. */
static void purge_slot(stored_value *slot, const model_property *property, ce_link target)
{
    if (is_link_to(slot, target)) {
        release_value(slot);
        return;
    }
    bool dictionary = property->collection == CE_COLLECTION_DICTIONARY ||
                      (property->collection == CE_COLLECTION_NONE && slot->value.type == CE_TYPE_DICTIONARY);
    if (slot->nested) purge_collection(&slot->nested, dictionary, target);
}

static void model_delete_object(model *state, ce_table_key key, ce_object_key object);

/* Deletes what the dropped links of an embedded table's parent owned. */
static void delete_owned(model *state, const link_vector *owned)
{
    for (size_t i = 0; i < owned->count; i++) model_delete_object(state, owned->items[i].table, owned->items[i].key);
}

/* Deletes an object as the engine does: the embedded objects it owns go
 * with it (recursively), every link into it goes (table.c, "Links and
 * backlinks"). The links into an object are found through the backlink
 * properties of its table. */
static void model_delete_object(model *state, ce_table_key key, ce_object_key object)
{
    model_table *table = &state->tables[key];
    long position = position_of(table, object);
    if (position < 0) return; /* deleted already, with its parent */
    link_vector owned = {0};
    for (size_t p = 0; p < table->property_count; p++)
        if (holds_links(&table->properties[p]))
            owned_links(state, &table->properties[p], value_at(table, (size_t)position, p), &owned);
    model_delete(table, (size_t)position);
    ce_link target = {key, object};
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *backlinks = &table->properties[p];
        if (backlinks->removed || !backlinks->backlink) continue;
        model_table *origin = &state->tables[backlinks->link_target];
        const model_property *property = &origin->properties[backlinks->origin_column];
        for (size_t i = 0; i < origin->object_count; i++)
            purge_slot(value_at(origin, i, backlinks->origin_column), property, target);
    }
    delete_owned(state, &owned);
    free(owned.items);
}

/* Writes a property of one value: a link to an embedded object that goes
 * deletes that object, a new link needs the target's backlink property. */
static void model_set(model *state, ce_table_key key, size_t position, size_t column, const ce_value *value)
{
    model_table *table = &state->tables[key];
    const model_property *property = &table->properties[column];
    stored_value *slot = value_at(table, position, column);
    if (property->type == CE_TYPE_LINK && same_value(&slot->value, value)) return; /* the same link: nothing changes */
    link_vector owned = {0};
    owned_links(state, property, slot, &owned);
    /* The new value is copied before the old one is released: it may be
     * the old one (a value copied from the model is written back). */
    stored_value stored = store_value(value);
    release_value(slot);
    *slot = stored;
    if (value->type == CE_TYPE_LINK) model_ensure_backlink(state, value->link.table, key, column);
    delete_owned(state, &owned);
    free(owned.items);
}

/* Empties a link property's slots (before it is removed): the embedded
 * objects it owned are deleted, its backlink properties removed. */
static void model_clear_link_property(model *state, ce_table_key key, size_t column)
{
    model_table *table = &state->tables[key];
    size_t count = table->object_count;
    ce_object_key *objects = allocate(count * sizeof *objects);
    if (count) memcpy(objects, table->keys, count * sizeof *objects);
    for (size_t i = 0; i < count; i++) {
        long position = position_of(table, objects[i]);
        if (position < 0) continue; /* deleted as an embedded object of an earlier one */
        link_vector owned = {0};
        owned_links(state, &table->properties[column], value_at(table, (size_t)position, column), &owned);
        release_value(value_at(table, (size_t)position, column));
        delete_owned(state, &owned);
        free(owned.items);
    }
    free(objects);
    model_remove_backlinks(state, key, column);
}

/* Every object of a table deleted as ce_object_delete would (the embedded
 * objects they own, links into them), then the table's backlink
 * properties elsewhere. */
static void model_remove_table_with_links(model *state, ce_table_key key)
{
    model_table *table = &state->tables[key];
    while (table->object_count) model_delete_object(state, key, table->keys[0]);
    for (size_t p = 0; p < table->property_count; p++)
        if (holds_links(&table->properties[p])) model_remove_backlinks(state, key, p);
    model_remove_table(table);
}

/* The origins of the links into an object from origin_table.origin_column,
 * in key order, one per link. */
static size_t model_backlinks(const model *state, ce_link target, ce_table_key origin_table, size_t origin_column,
                              ce_object_key *origins, size_t capacity)
{
    const model_table *origin = live_table(state, origin_table);
    if (!origin || origin_column >= origin->property_count || !holds_links(&origin->properties[origin_column])) return 0;
    size_t count = 0;
    for (size_t i = 0; i < origin->object_count; i++) {
        size_t links = slot_links_to(value_at(origin, i, origin_column), target);
        for (size_t k = 0; k < links; k++, count++)
            if (count < capacity) origins[count] = origin->keys[i];
    }
    return count;
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
    ce_collection *held;       /* a collection handle kept open across operations, or NULL */
    struct collection_target *held_target; /* what it names */
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

/* The errors of a link being stored where `kind` says: to the property's
 * target table (a typed link), to a live table, not to an embedded object
 * (those are linked only when created through their parent), to an
 * existing object. */
static error_set link_errors(const model *state, const element_kind *kind, ce_link link)
{
    if (kind->type == CE_TYPE_LINK && link.table != kind->link_target) return ERR(CE_ERR_WRONG_TYPE);
    const model_table *target = live_table(state, link.table);
    if (!target) return ERR(CE_ERR_NO_SUCH_TABLE);
    error_set expected = target->embedded ? ERR(CE_ERR_EMBEDDED_OBJECT) : 0;
    if (position_of(target, link.key) < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    return expected;
}

/* The errors a value may cause in a slot of `kind`. */
static error_set element_errors(const model *state, const element_kind *kind, const ce_value *value)
{
    if (value->type == CE_TYPE_NULL) return kind->nullable ? 0 : ERR(CE_ERR_NULL_NOT_ALLOWED);
    if (kind->type == CE_TYPE_MIXED) {
        if ((unsigned)value->type > CE_TYPE_DICTIONARY || value->type == CE_TYPE_MIXED) return ERR(CE_ERR_WRONG_TYPE);
        if (kind->in_set && is_nested_type(value->type)) return ERR(CE_ERR_WRONG_TYPE);
    } else if (value->type != kind->type) {
        return ERR(CE_ERR_WRONG_TYPE);
    }
    if (value->type == CE_TYPE_LINK) return link_errors(state, kind, value->link);
    if (value->type == CE_TYPE_STRING && !is_utf8((const uint8_t *)value->string.data, value->string.size))
        return ERR(CE_ERR_INVALID_ARGUMENT);
    if (value->type == CE_TYPE_TIMESTAMP && !timestamp_is_valid(value->timestamp)) return ERR(CE_ERR_INVALID_ARGUMENT);
    return 0;
}

/* The errors a value may cause in a property: collections and backlinks
 * take no value (ce_collection_open, ce_object_backlink_count). */
static error_set value_errors(const model *state, const model_property *property, const ce_value *value)
{
    if (!holds_one_value(property)) return ERR(CE_ERR_WRONG_TYPE);
    element_kind kind = kind_of_property(property);
    return element_errors(state, &kind, value);
}

/* The errors of a whole object's value in a slot: collection and backlink
 * slots take null (a new object's collections are empty). */
static error_set row_value_errors(const model *state, const model_property *property, const ce_value *value)
{
    if (!holds_one_value(property)) return value->type == CE_TYPE_NULL ? 0 : ERR(CE_ERR_WRONG_TYPE);
    return value_errors(state, property, value);
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
    char wanted[NAME_CAPACITY + PROPERTY_NAME_CAPACITY + 4];
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
              info.indexed == property->indexed && info.collection == property->collection &&
              info.link_target == property->link_target && info.backlink == property->backlink &&
              (!property->backlink ||
               (info.origin_table == property->link_target && info.origin_column == property->origin_column)),
          "ce_property_get_info differs from the model");
    ce_column_key found_column;
    bool found;
    MUST(ce_property_find(txn, key, property->name, &found_column, &found));
    CHECK(found && (long)found_column == property_found_by_name(table, property->name),
          "ce_property_find differs from the model");
}

static size_t spread(size_t index, size_t samples, size_t count)
{
    return samples >= count || samples < 2 ? index : index * (count - 1) / (samples - 1);
}

static ce_collection_type kind_of_nested_value(ce_type type)
{
    return type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY;
}

/* Where ce_collection_find finds `value` in the model: a set by its order
 * (the lower bound, when found), a list or dictionary at the first element
 * of the same type that equals it as the engine's lookups compare (nested
 * collections never). */
static bool model_find(ce_collection_type kind, const model_collection *collection, const ce_value *value,
                       size_t *out_index)
{
    bool found;
    if (kind == CE_COLLECTION_SET) {
        *out_index = set_position(collection, value, &found);
        return found;
    }
    for (size_t i = 0; i < collection_count(collection); i++) {
        const ce_value *element = &collection->elements[i].value;
        if (element->type == value->type && !is_nested_type(value->type) && equal_value(element, value)) {
            *out_index = i;
            return true;
        }
    }
    return false;
}

/* Compares an open collection with the model's: kind, size, the elements
 * (all of a short collection, a spread of a long one) with their keys, a
 * find, and nested collections, recursively. */
static void check_collection(const ce_collection *handle, ce_collection_type kind, const element_kind *element,
                             const model_collection *expected, unsigned depth, unsigned max_depth)
{
    ce_collection_type engine_kind;
    ce_type engine_type;
    MUST(ce_collection_kind(handle, &engine_kind, &engine_type));
    CHECK(engine_kind == kind && engine_type == element->type, "ce_collection_kind differs from the model");
    size_t count = collection_count(expected), engine_count;
    MUST(ce_collection_size(handle, &engine_count));
    if (engine_count != count) fprintf(stderr, "fuzz_ops:   size %zu, model %zu\n", engine_count, count);
    CHECK(engine_count == count, "ce_collection_size differs from the model");
    size_t samples = count <= 2 * ELEMENT_SAMPLE ? count : ELEMENT_SAMPLE;
    for (size_t s = 0; s < samples; s++) {
        size_t i = spread(s, samples, count);
        const stored_value *model_element = &expected->elements[i];
        ce_value value, key;
        MUST(ce_collection_get(handle, i, &value));
        check_same_value(&value, &model_element->value, "ce_collection_get");
        if (kind == CE_COLLECTION_DICTIONARY) {
            MUST(ce_dictionary_key_at(handle, i, &key));
            check_same_value(&key, &expected->keys[i].value, "ce_dictionary_key_at");
            ce_value found_value;
            bool found;
            MUST(ce_dictionary_get(handle, key.string.data, key.string.size, &found_value, &found));
            CHECK(found, "ce_dictionary_get does not find a key of the model");
            check_same_value(&found_value, &model_element->value, "ce_dictionary_get");
        }
        if (s == samples / 2 && !is_nested_type(value.type)) {
            size_t index, model_index = 0;
            bool found;
            MUST(ce_collection_find(handle, &model_element->value, &index, &found));
            bool model_found = model_find(kind, expected, &model_element->value, &model_index);
            CHECK(found == model_found && (!found || index == model_index), "ce_collection_find differs from the model");
        }
        if (is_nested_type(value.type) && depth < max_depth) {
            ce_value at = kind == CE_COLLECTION_DICTIONARY ? expected->keys[i].value
                                                           : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)i};
            ce_collection *inner;
            MUST(ce_collection_open_nested(handle, &at, &inner));
            check_collection(inner, kind_of_nested_value(value.type), &nested_kind, model_element->nested, depth + 1,
                             max_depth);
            ce_collection_close(inner);
        }
    }
    ce_value value;
    EXPECT(ERR(CE_ERR_INDEX_OUT_OF_BOUNDS), ce_collection_get(handle, count, &value));
}

/* The links into an object, per backlink property (count and origins) and
 * in total, against the links the model's objects hold. */
static void check_backlinks(ce_txn *txn, const model *state, ce_table_key key, size_t position)
{
    const model_table *table = &state->tables[key];
    ce_link target = {key, table->keys[position]};
    size_t total = 0, engine_count;
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        if (property->removed || !property->backlink) continue;
        size_t count = model_backlinks(state, target, property->link_target, property->origin_column, NULL, 0);
        ce_object_key *origins = allocate(count * sizeof *origins), origin;
        model_backlinks(state, target, property->link_target, property->origin_column, origins, count);
        MUST(ce_object_backlink_count(txn, key, target.key, property->link_target, property->origin_column, &engine_count));
        if (engine_count != count)
            fprintf(stderr, "fuzz_ops:   backlinks of %lld from %s: %zu, model %zu\n", (long long)target.key,
                    property->name, engine_count, count);
        CHECK(engine_count == count, "ce_object_backlink_count differs from the model");
        size_t samples = count <= ELEMENT_SAMPLE ? count : ELEMENT_SAMPLE;
        for (size_t s = 0; s < samples; s++) {
            size_t i = spread(s, samples, count);
            MUST(ce_object_backlink_at(txn, key, target.key, property->link_target, property->origin_column, i, &origin));
            CHECK(origin == origins[i], "ce_object_backlink_at differs from the model");
        }
        EXPECT(ERR(CE_ERR_INDEX_OUT_OF_BOUNDS),
               ce_object_backlink_at(txn, key, target.key, property->link_target, property->origin_column, count, &origin));
        free(origins);
        total += count;
    }
    MUST(ce_object_backlink_total(txn, key, target.key, &engine_count));
    CHECK(engine_count == total, "ce_object_backlink_total differs from the model");
}

/* Every property of the object at `position` (collections and nested
 * collections through handles, backlinks), and its key and primary key. */
static void check_object(ce_txn *txn, const model *state, const model_table *table, ce_table_key key, size_t position)
{
    ce_object_key object = table->keys[position], at;
    bool exists;
    MUST(ce_object_key_at(txn, key, position, &at));
    CHECK(at == object, "ce_object_key_at differs from the model");
    MUST(ce_object_exists(txn, key, object, &exists));
    CHECK(exists, "ce_object_exists: an object of the model is missing");
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        const stored_value *slot = value_at(table, position, p);
        ce_value value;
        error_set expected = property->removed ? ERR(CE_ERR_NO_SUCH_PROPERTY) : holds_one_value(property) ? 0
                                                                                                        : ERR(CE_ERR_WRONG_TYPE);
        if (!EXPECT(expected, ce_object_get(txn, key, object, (ce_column_key)p, &value))) {
            if (property->removed || property->backlink) continue;
            ce_collection *handle;
            MUST(ce_collection_open(txn, key, object, (ce_column_key)p, &handle));
            element_kind kind = kind_of_property(property);
            check_collection(handle, property->collection, &kind, slot->nested, 0, CHECK_NESTING);
            ce_collection_close(handle);
            continue;
        }
        check_same_value(&value, &slot->value, "ce_object_get");
        if (is_nested_type(value.type)) {
            ce_collection *handle;
            MUST(ce_collection_open_mixed(txn, key, object, (ce_column_key)p, &handle));
            check_collection(handle, kind_of_nested_value(value.type), &nested_kind, slot->nested, 1, CHECK_NESTING);
            ce_collection_close(handle);
        }
        if (!property->indexed) continue;
        /* The index finds the first object with this value (this one or an
         * earlier one). */
        bool found;
        MUST(ce_object_find_first(txn, key, (ce_column_key)p, &slot->value, &at, &found));
        long first = first_position_equal(table, p, &slot->value);
        CHECK(found && first >= 0 && at == table->keys[first], "ce_object_find_first (indexed) differs from the model");
    }
    long primary = primary_key_of(table);
    if (primary >= 0) {
        bool found;
        MUST(ce_object_find_primary_key(txn, key, &value_at(table, position, (size_t)primary)->value, &at, &found));
        CHECK(found && at == object, "ce_object_find_primary_key does not find an object of the model");
    }
    check_backlinks(txn, state, key, position);
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
    bool embedded;
    MUST(ce_table_is_embedded(txn, key, &embedded));
    CHECK(embedded == table->embedded, "ce_table_is_embedded differs from the model");
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
    for (size_t i = 0; i < checked; i++) check_object(txn, state, table, key, spread(i, checked, count));
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
    /* Names starting with "@" are the engine's (backlink properties); a '.'
     * separates key path steps. */
    return length >= 1 && length < NAME_CAPACITY && name[0] != '@' && !strchr(name, '.') &&
           is_utf8((const uint8_t *)name, length);
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

/* A link for a property or element linking to `target`: mostly to an
 * object of the target (live, deleted or never made, as decode_object
 * picks), else null, a value of another type, or a link into another
 * table. */
static void decode_link(runner *run, ce_table_key target, value_buffer *buffer)
{
    uint8_t mode = take(&run->input) & 15;
    buffer->bytes = NULL;
    if (mode == 0) {
        buffer->value = (ce_value){.type = CE_TYPE_NULL};
        return;
    }
    if (mode == 1) {
        decode_typed_value(&run->input, CE_TYPE_INT, false, buffer);
        return;
    }
    ce_table_key table = mode == 2 ? decode_table(run) : target;
    ce_object_key object = decode_object(run, live_table(&run->current, table));
    buffer->value = (ce_value){.type = CE_TYPE_LINK, .link = {table, object}};
}

/* A mixed value: null, a new nested list or dictionary, a link to an
 * object of any table, a value of a type mixed cannot hold, a large
 * string or binary, a raw or a well-formed value of any scalar type. */
static void decode_mixed(runner *run, value_buffer *buffer)
{
    source *from = &run->input;
    uint8_t mode = take(from) & 15;
    buffer->bytes = NULL;
    ce_type scalar = (ce_type)(1 + take(from) % 10);
    switch (mode) {
    case 0: buffer->value = (ce_value){.type = CE_TYPE_NULL}; return;
    case 1: buffer->value = (ce_value){.type = CE_TYPE_LIST}; return;
    case 2: buffer->value = (ce_value){.type = CE_TYPE_DICTIONARY}; return;
    case 3:
    case 4: {
        ce_table_key table = decode_table(run);
        ce_object_key object = decode_object(run, live_table(&run->current, table));
        buffer->value = (ce_value){.type = CE_TYPE_LINK, .link = {table, object}};
        return;
    }
    case 5: buffer->value = (ce_value){.type = (scalar & 1) ? CE_TYPE_MIXED : (ce_type)99}; return;
    case 6:
        if (run->large_values > 0) {
            run->large_values--;
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
static void decode_slot_value(runner *run, const model_table *table, ce_column_key column, value_buffer *buffer)
{
    const model_property *property = live_property(table, column);
    if (!property || (is_scalar_type(property->type) && holds_one_value(property))) {
        decode_value(run, property ? table : NULL, property ? (long)column : -1, property ? property->type : CE_TYPE_INT,
                     buffer);
        return;
    }
    if (!holds_one_value(property)) {
        if (take(&run->input) < 0xF0) buffer->value = (ce_value){.type = CE_TYPE_NULL}, buffer->bytes = NULL;
        else decode_value(run, NULL, -1, CE_TYPE_INT, buffer);
        return;
    }
    if (property->type == CE_TYPE_LINK) {
        decode_link(run, property->link_target, buffer);
        return;
    }
    uint8_t choice = take(&run->input);
    if (choice < 0x20 && table->object_count) { /* another object's mixed value (a nested one comes new and empty) */
        buffer->value = value_at(table, choice % table->object_count, column)->value;
        buffer->bytes = NULL;
        return;
    }
    decode_mixed(run, buffer);
}

/* A value for an element of a collection of `kind`: sometimes a copy of an
 * element it holds (a set leaves it as it is). */
static void decode_element_value(runner *run, const element_kind *kind, const model_collection *collection,
                                 value_buffer *buffer)
{
    uint8_t choice = take(&run->input);
    buffer->bytes = NULL;
    if (choice < 0x30 && collection_count(collection)) {
        buffer->value = collection->elements[choice % collection->count].value;
        return;
    }
    if (kind->type == CE_TYPE_MIXED) decode_mixed(run, buffer);
    else if (kind->type == CE_TYPE_LINK) decode_link(run, kind->link_target, buffer);
    else decode_value(run, NULL, -1, kind->type, buffer);
}

/* Dictionary keys: valid ones (empty, ASCII, two-byte UTF-8, a NUL inside,
 * 40 bytes) and invalid ones ('$' first, a '.', bad UTF-8). */
static const struct {
    const char *bytes;
    size_t size;
} pooled_keys[] = {
    {"a", 1}, {"b", 1}, {"key", 3}, {"", 0}, {"\xC3\xB1", 2}, {"$x", 2}, {"a.b", 3}, {"\xC3\x28", 2},
    {"k\0z", 3}, {"zz", 2}, {"Z", 1}, {"a key of forty bytes, spelled in full..", 40}, {"x$", 2},
};
enum { POOLED_KEYS = sizeof pooled_keys / sizeof pooled_keys[0] };

typedef struct dictionary_key {
    char bytes[KEY_CAPACITY];
    size_t size;
} dictionary_key;

/* A key: mostly one the dictionary holds (when the model has it), else
 * from the pool, else up to 11 raw bytes. */
static void decode_key(runner *run, const model_collection *dictionary, bool is_dictionary, dictionary_key *key)
{
    uint8_t choice = take(&run->input);
    if (choice < 0x80 && is_dictionary && collection_count(dictionary)) {
        const ce_value *held = &dictionary->keys[choice % dictionary->count].value;
        key->size = held->string.size < KEY_CAPACITY ? held->string.size : KEY_CAPACITY;
        if (key->size) memcpy(key->bytes, held->string.data, key->size);
    } else if (choice < 0xF0) {
        key->size = pooled_keys[choice % POOLED_KEYS].size;
        memcpy(key->bytes, pooled_keys[choice % POOLED_KEYS].bytes, key->size);
    } else {
        key->size = take(&run->input) % 12;
        for (size_t i = 0; i < key->size; i++) key->bytes[i] = (char)take(&run->input);
    }
}

static bool key_is_valid(const dictionary_key *key)
{
    return is_utf8((const uint8_t *)key->bytes, key->size) && !(key->size && key->bytes[0] == '$') &&
           !memchr(key->bytes, '.', key->size);
}

/* ------------------------------------------------------------------------ */
/* Collections: a handle's path, resolved in the model                      */
/* ------------------------------------------------------------------------ */

/* One step into a nested collection: an index in a list, a key in a
 * dictionary (or the wrong one of the two, on purpose). */
typedef struct path_step {
    bool by_key;
    size_t index;
    dictionary_key key;
} path_step;

/* What a handle names: a collection property (or the collection a mixed
 * property holds), then steps into nested collections. */
typedef struct collection_target {
    ce_table_key table;
    ce_object_key object;
    ce_column_key column;
    bool through_mixed; /* ce_collection_open_mixed instead of ce_collection_open */
    size_t depth;
    path_step steps[MAX_PATH_DEPTH];
} collection_target;

/* A collection as the model has it. */
typedef struct model_view {
    ce_collection_type kind;
    element_kind element;             /* its elements (a dictionary's values) */
    const model_collection *elements; /* NULL: empty */
} model_view;

/* What opening the target's top collection gives: its errors, or the view. */
static error_set resolve_top(const model *state, const collection_target *target, model_view *view)
{
    const model_table *table = live_table(state, target->table);
    if (!table) return ERR(CE_ERR_NO_SUCH_TABLE);
    const model_property *property = live_property(table, target->column);
    if (!property) return ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (target->through_mixed ? property->type != CE_TYPE_MIXED || property->collection != CE_COLLECTION_NONE
                              : property->collection == CE_COLLECTION_NONE)
        return ERR(CE_ERR_WRONG_TYPE);
    long position = position_of(table, target->object);
    if (position < 0) return ERR(CE_ERR_NO_SUCH_OBJECT);
    const stored_value *slot = value_at(table, (size_t)position, target->column);
    if (!target->through_mixed) {
        *view = (model_view){property->collection, kind_of_property(property), slot->nested};
        return 0;
    }
    if (!is_nested_type(slot->value.type)) return ERR(CE_ERR_WRONG_TYPE);
    *view = (model_view){kind_of_nested_value(slot->value.type), nested_kind, slot->nested};
    return 0;
}

/* The element a step names: its position, or the errors of reaching it. */
static error_set step_position(const model_view *view, const path_step *step, size_t *out_position)
{
    if (view->kind == CE_COLLECTION_LIST) {
        if (step->by_key) return ERR(CE_ERR_WRONG_TYPE);
        if (step->index >= collection_count(view->elements)) return ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        *out_position = step->index;
        return 0;
    }
    if (!step->by_key) return ERR(CE_ERR_WRONG_TYPE);
    bool found;
    *out_position = key_position(view->elements, step->key.bytes, step->key.size, &found);
    return found ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
}

/* What ce_collection_open_nested gives for a step from `parent`. */
static error_set resolve_step(const model_view *parent, const path_step *step, model_view *view)
{
    if (parent->element.type != CE_TYPE_MIXED || parent->kind == CE_COLLECTION_SET) return ERR(CE_ERR_WRONG_TYPE);
    size_t position;
    error_set expected = step_position(parent, step, &position);
    if (expected) return expected;
    const stored_value *element = &parent->elements->elements[position];
    if (!is_nested_type(element->value.type)) return ERR(CE_ERR_WRONG_TYPE);
    *view = (model_view){kind_of_nested_value(element->value.type), nested_kind, element->nested};
    return 0;
}

/* The target's collection in the model, made writable (and every level on
 * the way), for a change the engine made. The path resolves. */
static model_collection *writable_target(model *state, const collection_target *target)
{
    model_table *table = &state->tables[target->table];
    stored_value *slot = value_at(table, (size_t)position_of(table, target->object), target->column);
    model_collection **at = &slot->nested;
    for (size_t i = 0; i < target->depth; i++) {
        model_collection *collection = writable_collection(at);
        size_t position = target->steps[i].index;
        bool found;
        if (target->steps[i].by_key)
            position = key_position(collection, target->steps[i].key.bytes, target->steps[i].key.size, &found);
        at = &collection->elements[position].nested;
    }
    return writable_collection(at);
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
static void decode_target(runner *run, collection_target *target, model_view *view, bool *out_resolved)
{
    memset(target, 0, sizeof *target);
    memset(view, 0, sizeof *view);
    target->table = decode_table(run);
    const model_table *table = live_table(&run->current, target->table);
    target->object = decode_object(run, table);
    uint8_t choice = take(&run->input);
    size_t candidates = 0;
    for (size_t p = 0; table && p < table->property_count; p++) candidates += is_collection_column(&table->properties[p]);
    if (choice < 0xE0 && candidates) {
        size_t rank = choice % candidates;
        for (size_t p = 0; p < table->property_count; p++)
            if (is_collection_column(&table->properties[p]) && rank-- == 0) target->column = (ce_column_key)p;
    } else {
        target->column = decode_column(run, table);
    }
    const model_property *property = live_property(table, target->column);
    uint8_t flags = take(&run->input);
    target->through_mixed = property && property->type == CE_TYPE_MIXED && property->collection == CE_COLLECTION_NONE;
    if ((flags & 0x1F) == 0x1F) target->through_mixed = !target->through_mixed;
    size_t depth = flags >> 5 & 3;
    *out_resolved = resolve_top(&run->current, target, view) == 0;
    for (size_t i = 0; i < depth; i++) {
        path_step *step = &target->steps[i];
        uint8_t at = take(&run->input);
        size_t count = *out_resolved ? collection_count(view->elements) : 0, nested = 0;
        for (size_t k = 0; k < count; k++) nested += is_nested_type(view->elements->elements[k].value.type);
        if (at < 0xC0) {
            if (!nested) break; /* nowhere to go: the operation works on this level */
            size_t rank = at % nested, position = 0;
            for (size_t k = 0; k < count; k++)
                if (is_nested_type(view->elements->elements[k].value.type) && rank-- == 0) position = k;
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
                decode_key(run, *out_resolved ? view->elements : NULL,
                           *out_resolved && view->kind == CE_COLLECTION_DICTIONARY, &step->key);
        }
        target->depth = i + 1;
        model_view inner;
        if (*out_resolved && resolve_step(view, step, &inner) == 0) *view = inner;
        else *out_resolved = false;
    }
}

/* Opens the target level by level as the model says each open must go.
 * Returns the handle, or NULL when an open failed (as expected). */
static ce_collection *open_target(runner *run, const collection_target *target, model_view *view)
{
    ce_txn *txn = run->txn;
    ce_collection *handle = NULL;
    error_set expected = resolve_top(&run->current, target, view);
    bool ok = target->through_mixed
                  ? EXPECT(expected, ce_collection_open_mixed(txn, target->table, target->object, target->column, &handle))
                  : EXPECT(expected, ce_collection_open(txn, target->table, target->object, target->column, &handle));
    if (!ok) return NULL;
    for (size_t i = 0; i < target->depth; i++) {
        const path_step *step = &target->steps[i];
        model_view inner;
        expected = resolve_step(view, step, &inner);
        ce_value at = step->by_key ? (ce_value){.type = CE_TYPE_STRING, .string = {step->key.bytes, step->key.size}}
                                   : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)step->index};
        ce_collection *nested = NULL;
        ok = EXPECT(expected, ce_collection_open_nested(handle, &at, &nested));
        ce_collection_close(handle);
        if (!ok) return NULL;
        handle = nested;
        *view = inner;
    }
    return handle;
}

/* Re-reads the target in the model after a change and compares it with
 * the engine's. */
static void check_target(runner *run, const ce_collection *handle, const collection_target *target)
{
    model_view view;
    collection_target top = *target;
    top.depth = 0;
    if (resolve_top(&run->current, &top, &view)) {
        /* The object went (an embedded one deleted with its parent's element). */
        size_t count;
        EXPECT(ERR(CE_ERR_NO_SUCH_OBJECT), ce_collection_size(handle, &count));
        return;
    }
    for (size_t i = 0; i < target->depth; i++) {
        model_view inner;
        CHECK(resolve_step(&view, &target->steps[i], &inner) == 0, "the model lost a nested collection it edited");
        view = inner;
    }
    check_collection(handle, view.kind, &view.element, view.elements, 0, CHECK_NESTING);
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
    OP_ADD_EMBEDDED_TABLE,
    OP_CREATE_EMBEDDED,
    OP_LIST_EDIT,
    OP_SET_EDIT,
    OP_DICTIONARY_EDIT,
    OP_COLLECTION_READ,
    OP_COLLECTION_CLEAR,
    OP_BULK_INSERT,
    OP_BACKLINKS,
    OP_HOLD_COLLECTION,
    OP_NEST,
    OP_SET_INDEXED,
    OPERATION_COUNT
};

static const char *const operation_names[OPERATION_COUNT] = {
    "add table", "remove table", "add property", "remove property", "create", "create with values", "create or update",
    "create many",
    "delete", "delete many", "set", "get", "find primary key", "find first", "count", "key at", "exists",
    "schema version", "commit",
    "rollback", "reopen", "begin read", "hold reader", "transaction misuse", "check table",
    "add embedded table", "create embedded", "list edit", "set edit", "dictionary edit", "collection read",
    "collection clear", "bulk insert", "backlinks", "hold collection", "nest", "set indexed",
};

/* Weights out of OPERATION_SLOTS: the operation of an opcode byte is
 * operation_of_byte[byte & (OPERATION_SLOTS - 1)]. */
enum { OPERATION_SLOTS = 128 };
static const struct {
    enum operation operation;
    unsigned weight;
} operation_weights[] = {
    {OP_SET, 10},         {OP_CREATE, 8},      {OP_CREATE_WITH_VALUES, 3}, {OP_CREATE_OR_UPDATE, 3}, {OP_GET, 5},
    {OP_ADD_PROPERTY, 9}, {OP_ADD_TABLE, 4},  {OP_DELETE, 5},      {OP_FIND_PRIMARY_KEY, 2},
    {OP_FIND_FIRST, 3},   {OP_COMMIT, 6},
    {OP_CREATE_MANY, 2},  {OP_DELETE_MANY, 1}, {OP_REMOVE_PROPERTY, 3}, {OP_REMOVE_TABLE, 2},
    {OP_COUNT, 1},        {OP_KEY_AT, 2},      {OP_EXISTS, 1},      {OP_SCHEMA_VERSION, 1},
    {OP_ROLLBACK, 3},     {OP_REOPEN, 2},      {OP_BEGIN_READ, 2},  {OP_HOLD_READER, 2},
    {OP_TRANSACTION_MISUSE, 1}, {OP_CHECK_TABLE, 3},
    {OP_ADD_EMBEDDED_TABLE, 2}, {OP_CREATE_EMBEDDED, 4}, {OP_LIST_EDIT, 11}, {OP_SET_EDIT, 6},
    {OP_DICTIONARY_EDIT, 7}, {OP_COLLECTION_READ, 4}, {OP_COLLECTION_CLEAR, 2}, {OP_BULK_INSERT, 1},
    {OP_BACKLINKS, 3},    {OP_HOLD_COLLECTION, 2}, {OP_NEST, 1}, {OP_SET_INDEXED, 1},
};
static uint8_t operation_of_byte[OPERATION_SLOTS];

static void build_operation_table(void)
{
    size_t next = 0;
    for (size_t i = 0; i < sizeof operation_weights / sizeof operation_weights[0]; i++)
        for (unsigned w = 0; w < operation_weights[i].weight; w++) {
            if (next >= OPERATION_SLOTS) harness_bug("the operation weights exceed the slots", "build_operation_table");
            operation_of_byte[next++] = (uint8_t)operation_weights[i].operation;
        }
    if (next != OPERATION_SLOTS) harness_bug("the operation weights do not fill the slots", "build_operation_table");
}

static void end_write(runner *run)
{
    ce_txn_end(run->txn);
    run->txn = NULL;
    model_free(&run->current);
    model_copy(&run->current, &run->committed);
}

static void op_add_table(runner *run, bool embedded)
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
    if (embedded ? EXPECT(expected, ce_table_add_embedded(txn, name, &key)) : EXPECT(expected, ce_table_add(txn, name, &key))) {
        CHECK(key == run->current.table_count, "ce_table_add: the new table is not in the next slot");
        model_add_table(&run->current, name, embedded);
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

/* A table that a link property of another table targets cannot go. */
static bool table_is_link_target(const model *state, ce_table_key key)
{
    for (size_t t = 0; t < state->table_count; t++) {
        const model_table *other = &state->tables[t];
        if (t == key || other->removed) continue;
        for (size_t p = 0; p < other->property_count; p++)
            if (holds_links(&other->properties[p]) && other->properties[p].type == CE_TYPE_LINK &&
                other->properties[p].link_target == key)
                return true;
    }
    return false;
}

static void op_remove_table(runner *run)
{
    ce_table_key key = decode_table(run);
    ce_txn *txn = transaction(run);
    model_table *table = live_table(&run->current, key);
    error_set expected = write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE));
    if (table && table_is_link_target(&run->current, key)) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    char name[NAME_CAPACITY] = "";
    if (table) snprintf(name, sizeof name, "%s", table->name);
    if (EXPECT(expected, ce_table_remove(txn, key))) model_remove_table_with_links(&run->current, key);
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

/* The errors of adding a property (cengine.h, "Schema"). */
static error_set add_property_errors(const model *state, const model_table *table, const ce_property_info *info)
{
    error_set expected = 0;
    if (property_named(table, info->name) >= 0) expected |= ERR(CE_ERR_DUPLICATE_NAME);
    if (info->type < CE_TYPE_INT || info->type > CE_TYPE_LINK || (unsigned)info->collection > CE_COLLECTION_DICTIONARY)
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    bool single = info->collection == CE_COLLECTION_NONE, keyed = info->primary_key || info->indexed;
    if (keyed && (!single || info->type == CE_TYPE_LINK || info->type == CE_TYPE_MIXED || table->embedded))
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    if (info->indexed && !info->primary_key && !is_indexable_type(info->type)) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    if (info->type == CE_TYPE_LINK) {
        const model_table *target = live_table(state, info->link_target);
        if (!target) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
        /* A to-one link and a dictionary of links hold null (a deleted
         * target leaves it), a list or set of links never does. */
        bool nullable_wanted = single || info->collection == CE_COLLECTION_DICTIONARY;
        if (info->nullable != nullable_wanted) expected |= ERR(CE_ERR_INVALID_SCHEMA);
        if (target && target->embedded && info->collection == CE_COLLECTION_SET) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    }
    if (info->primary_key && (!is_primary_key_type(info->type) || primary_key_of(table) >= 0 || table->object_count))
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    return expected;
}

/* A property: a type (any storable one, links with a target table, mixed,
 * or one the engine cannot store), a collection kind, flags. Bit 7 of the
 * flags makes a link's nullability what its kind needs. */
static void op_add_property(runner *run)
{
    ce_table_key key = decode_table(run);
    char name[80];
    decode_name(run, name);
    uint8_t type_choice = take(&run->input), flags = take(&run->input);
    static const ce_type unstorable[] = {CE_TYPE_NULL, CE_TYPE_LIST, CE_TYPE_DICTIONARY, (ce_type)15, (ce_type)99};
    ce_property_info info = {.name = name,
                             .type = type_choice < 0xF0 ? (ce_type)(1 + type_choice % 12) : unstorable[type_choice % 5],
                             .nullable = flags & 1, .primary_key = (flags & 6) == 6, .indexed = (flags & 8) != 0,
                             .collection = (ce_collection_type)((flags & 0x40 ? 4 : 0) + (flags >> 4 & 3))};
    if (info.type == CE_TYPE_LINK) {
        info.link_target = decode_table(run);
        if (flags & 0x80)
            info.nullable = info.collection == CE_COLLECTION_NONE || info.collection == CE_COLLECTION_DICTIONARY;
    }
    ce_txn *txn = transaction(run);
    model_table *table = live_table(&run->current, key);
    bool valid = name_is_valid(name);
    error_set expected = write_errors(run) | (valid ? 0 : ERR(CE_ERR_INVALID_ARGUMENT));
    if (!table) {
        expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    } else {
        if (valid) expected |= add_property_errors(&run->current, table, &info);
        if (!expected && table->property_count >= MAX_PROPERTY_SLOTS) return;
    }
    size_t before = table ? table->property_count : 0, count;
    ce_column_key column = UINT32_MAX;
    if (EXPECT(expected, ce_property_add(txn, key, &info, &column))) {
        CHECK(column == before, "ce_property_add: the new property is not in the next slot");
        model_add_property(table, &info);
        if (info.type == CE_TYPE_LINK) model_ensure_backlink(&run->current, info.link_target, key, column);
        check_property_info(txn, table, key, column);
        /* Existing objects have the initial value: the first, the last and
         * one in the middle. */
        size_t checked = table->object_count < 3 ? table->object_count : 3;
        for (size_t i = 0; i < checked; i++) check_object(txn, &run->current, table, key, spread(i, checked, table->object_count));
        if (info.type == CE_TYPE_LINK) check_table(txn, &run->current, info.link_target, 0);
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
    if (property && property->backlink) expected |= ERR(CE_ERR_INVALID_ARGUMENT); /* it goes with its link property */
    bool was_primary_key = property && property->primary_key;
    stored_value old_key = {{.type = CE_TYPE_NULL}, NULL, NULL};
    if (was_primary_key && table->object_count) old_key = store_value(&value_at(table, 0, column)->value);
    if (EXPECT(expected, ce_property_remove(txn, key, column))) {
        char name[PROPERTY_NAME_CAPACITY];
        snprintf(name, sizeof name, "%s", property ? property->name : ""); /* a success had a property */
        bool links = holds_links(property);
        ce_table_key target = property->link_target;
        if (links) model_clear_link_property(&run->current, key, column);
        model_remove_property(table, column);
        check_property_info(txn, table, key, column);
        if (links && property->type == CE_TYPE_LINK) check_table(txn, &run->current, target, 4);
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
    if (table->embedded) return expected | ERR(CE_ERR_EMBEDDED_OBJECT); /* created through a parent only */
    long column = primary_key_of(table);
    if (column < 0) return expected | (primary_key ? ERR(CE_ERR_INVALID_ARGUMENT) : 0);
    if (!primary_key) return expected | ERR(CE_ERR_INVALID_ARGUMENT);
    error_set value = value_errors(&run->current, &table->properties[column], primary_key);
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
    if (table->embedded) return expected | ERR(CE_ERR_EMBEDDED_OBJECT);
    if (count != table->property_count) {
        /* Backlink (and removed) slots may be left out at the end. */
        bool only_backlinks_left_out = count < table->property_count;
        for (size_t p = count; p < table->property_count && only_backlinks_left_out; p++)
            only_backlinks_left_out = table->properties[p].removed || table->properties[p].backlink;
        if (!only_backlinks_left_out) return expected | ERR(CE_ERR_INVALID_ARGUMENT);
    }
    for (size_t p = 0; p < count; p++)
        if (!table->properties[p].removed) expected |= row_value_errors(&run->current, &table->properties[p], &values[p]);
    long primary = primary_key_of(table);
    if (primary >= 0 && !value_errors(&run->current, &table->properties[primary], &values[primary]) &&
        position_of_primary_key(table, &values[primary]) >= 0)
        expected |= ERR(CE_ERR_DUPLICATE_PRIMARY_KEY);
    return expected;
}

/* A new object's links need their targets' backlink properties (a mixed
 * property's made on its first link into a table), in column order. */
static void model_note_links(model *state, ce_table_key key, const ce_value *values, size_t count)
{
    for (size_t p = 0; p < count; p++) {
        const model_property *property = &state->tables[key].properties[p];
        if (holds_links(property) && holds_one_value(property) && values[p].type == CE_TYPE_LINK)
            model_ensure_backlink(state, values[p].link.table, key, p);
    }
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
        /* Slots left out (backlinks, at the end) hold null in the model. */
        ce_value *all = calloc(table->property_count + 1, sizeof *all);
        if (!all) abort();
        memcpy(all, values, (count < table->property_count ? count : table->property_count) * sizeof *all);
        model_create(table, object, NULL, all);
        model_note_links(&run->current, key, all, count);
        free(all);
        if (full_check) check_object(txn, &run->current, table, key, table->object_count - 1);
    }
    if (table && full_check) {
        size_t objects;
        bool exists;
        MUST(ce_object_count(txn, key, &objects));
        CHECK(objects == table->object_count, "ce_object_count differs from the model");
        MUST(ce_object_exists(txn, key, table->next_key, &exists));
        CHECK(!exists, "ce_object_exists: a failed create left an object behind");
        if (!ok && table->object_count) check_object(txn, &run->current, table, key, table->object_count - 1);
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
        if (full_check) check_object(txn, &run->current, table, key, table->object_count - 1);
    }
    if (table && full_check) {
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
        bool exists;
        MUST(ce_object_exists(txn, key, table->next_key, &exists));
        CHECK(!exists, "ce_object_exists: a failed create left an object behind");
        long existing = primary_key ? position_of_primary_key(table, primary_key) : -1;
        if (!ok && existing >= 0) check_object(txn, &run->current, table, key, (size_t)existing);
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
            decode_slot_value(run, property ? table : NULL, (ce_column_key)p, &row.buffers[p]);
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
                model_note_links(&run->current, key, row.values, row.count);
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
                if (!table->properties[p].removed) expected |= row_value_errors(&run->current, &table->properties[p], &row.values[p]);
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
                model_note_links(&run->current, key, row.values, row.count);
            } else {
                CHECK(!created && object == table->keys[existing],
                      "ce_object_create_or_update did not update the object with the key");
                /* "modified" leaves a value that equals the new one as it
                 * is (0.0 stays 0.0 when -0.0 comes). */
                for (size_t p = 0; p < row.count; p++) {
                    if ((long)p == primary || table->properties[p].removed || !holds_one_value(&table->properties[p]))
                        continue;
                    if (policy == CE_UPDATE_MODIFIED && !is_nested_type(row.values[p].type) &&
                        equal_value(&value_at(table, (size_t)existing, p)->value, &row.values[p]))
                        continue;
                    model_set(&run->current, key, (size_t)existing, p, &row.values[p]);
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
        if (position >= 0) check_object(txn, &run->current, table, key, (size_t)position);
        if (table->object_count) check_object(txn, &run->current, table, key, table->object_count - 1);
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

/* A well-formed value for a property from a stream: scalars of its type,
 * mixed values of any scalar type, null for the rest. */
static void stream_value(source *stream, const model_property *property, value_buffer *buffer)
{
    if (holds_one_value(property) && is_scalar_type(property->type))
        decode_typed_value(stream, property->type, false, buffer);
    else if (holds_one_value(property) && property->type == CE_TYPE_MIXED)
        decode_typed_value(stream, (ce_type)(1 + take(stream) % 10), false, buffer);
    else
        *buffer = (value_buffer){{.type = CE_TYPE_NULL}, NULL};
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
                else stream_value(&stream, property, &buffers[p]);
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
        if (!table || !run->txn_is_write || table->embedded) return; /* one failure tells it all */
        if (!created) continue;
        const model_property *property = live_property(table, column);
        if (!property || property->primary_key) continue;
        value_buffer buffer;
        stream_value(&stream, property, &buffer);
        size_t position = table->object_count - 1;
        error_set expected = write_errors(run) | value_errors(&run->current, property, &buffer.value);
        if (EXPECT(expected, ce_object_set(txn, key, table->keys[position], column, &buffer.value)))
            model_set(&run->current, key, position, column, &buffer.value);
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
        if (table->properties[p].removed || !holds_one_value(&table->properties[p])) continue;
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
    stored_value primary_key = {{.type = CE_TYPE_NULL}, NULL, NULL};
    if (position >= 0 && primary >= 0) primary_key = store_value(&value_at(table, (size_t)position, (size_t)primary)->value);
    if (EXPECT(expected, ce_object_delete(txn, key, object))) {
        model_delete_object(&run->current, key, object);
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
        /* An earlier victim may have owned this one (an embedded table
         * linking to itself). */
        error_set expected = position_of(table, victims[i]) < 0 ? ERR(CE_ERR_NO_SUCH_OBJECT) : 0;
        if (EXPECT(expected, ce_object_delete(txn, key, victims[i])))
            model_delete_object(&run->current, key, victims[i]);
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
    decode_slot_value(run, table, column, &buffer);
    ce_txn *txn = transaction(run);
    long position = position_of(table, object);
    error_set expected = write_errors(run);
    if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else {
        expected |= value_errors(&run->current, property, &buffer.value);
        if (property->primary_key) expected |= ERR(CE_ERR_PRIMARY_KEY_IMMUTABLE);
        if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    }
    if (EXPECT(expected, ce_object_set(txn, key, object, column, &buffer.value)))
        model_set(&run->current, key, (size_t)position, column, &buffer.value);
    else if (run->txn_is_write)
        check_message_names(table, property, "ce_object_set");
    value_buffer_free(&buffer);
    /* The value as the model has it (new, or unchanged after a failure), and
     * its neighbours in the column (a large value moves bytes around). A
     * link set to null may have deleted objects of this table (an embedded
     * table that links to itself), and a mixed link into its own table
     * added a backlink property (the properties moved). */
    position = position_of(table, object);
    property = live_property(table, column);
    if (property && position >= 0 && holds_one_value(property)) {
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
    if (property && !holds_one_value(property)) expected |= ERR(CE_ERR_WRONG_TYPE); /* a collection, backlinks */
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
                                      : value_errors(&run->current, &table->properties[column], &buffer.value);
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
    error_set expected = !table                                            ? ERR(CE_ERR_NO_SUCH_TABLE)
                         : !property                                       ? ERR(CE_ERR_NO_SUCH_PROPERTY)
                         : !holds_one_value(property) || !is_scalar_type(property->type) ? ERR(CE_ERR_WRONG_TYPE)
                                                                           : value_errors(&run->current, property, &buffer.value);
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

/* ------------------------------------------------------------------------ */
/* Embedded objects, collections, backlinks                                  */
/* ------------------------------------------------------------------------ */

/* The links of a typed collection of links to an embedded table: what an
 * element it drops owned. */
static bool owns_embedded(const model *state, const element_kind *kind)
{
    return kind->type == CE_TYPE_LINK && state->tables[kind->link_target].embedded;
}

/* How many embedded objects lie from a top-level object down to this one
 * (0 for a top-level object; counted up to MAX_EMBEDDING_DEPTH): a parent
 * at that depth takes no new embedded object. An embedded object's parent
 * is the one object that links to it. */
static unsigned model_embedding_depth(const model *state, ce_table_key key, ce_object_key object)
{
    unsigned levels = 0;
    while (state->tables[key].embedded && levels < MAX_EMBEDDING_DEPTH) {
        levels++;
        const model_table *table = &state->tables[key];
        ce_link child = {key, object};
        bool found = false;
        for (size_t p = 0; p < table->property_count && !found; p++) {
            const model_property *backlinks = &table->properties[p];
            if (backlinks->removed || !backlinks->backlink) continue;
            const model_table *origin = &state->tables[backlinks->link_target];
            for (size_t i = 0; i < origin->object_count && !found; i++)
                if (slot_links_to(value_at(origin, i, backlinks->origin_column), child)) {
                    key = backlinks->link_target;
                    object = origin->keys[i];
                    found = true;
                }
        }
        if (!found) break;
    }
    return levels;
}

static error_set embedding_depth_errors(const runner *run, ce_table_key key, ce_object_key object)
{
    const model_table *table = live_table(&run->current, key);
    if (!table || position_of(table, object) < 0) return 0;
    return model_embedding_depth(&run->current, key, object) >= MAX_EMBEDDING_DEPTH ? ERR(CE_ERR_INVALID_ARGUMENT) : 0;
}

/* Room for one more object of the model (embedded ones count). */
static bool room_for_objects(const runner *run, size_t count) { return total_objects(&run->current) + count <= MAX_OBJECTS; }

/* ce_object_create_embedded on a to-one link (mostly one to an embedded
 * table, by rank): the new object replaces (and deletes) the old one. */
static void op_create_embedded(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_object_key object = decode_object(run, table);
    uint8_t choice = take(&run->input);
    ce_column_key column = 0;
    size_t candidates = 0;
    for (size_t p = 0; table && p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        bool owner = holds_links(property) && holds_one_value(property) && property->type == CE_TYPE_LINK &&
                     run->current.tables[property->link_target].embedded;
        if (owner && choice < 0xE0 && candidates++ == choice % 4) column = (ce_column_key)p;
    }
    if (!candidates || choice >= 0xE0) column = decode_column(run, table);
    ce_txn *txn = transaction(run);
    const model_property *property = live_property(table, column);
    long position = position_of(table, object);
    error_set expected = write_errors(run);
    if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else if (!holds_one_value(property)) expected |= ERR(CE_ERR_WRONG_TYPE);
    else {
        if (property->type != CE_TYPE_LINK || !run->current.tables[property->link_target].embedded)
            expected |= ERR(CE_ERR_EMBEDDED_OBJECT);
        if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
        if (!expected) expected |= embedding_depth_errors(run, key, object);
    }
    if (!expected && !room_for_objects(run, 1)) return;
    ce_object_key child = -2;
    if (!EXPECT(expected, ce_object_create_embedded(txn, key, object, column, &child))) return;
    ce_table_key target_key = property->link_target;
    model_table *target = &run->current.tables[target_key];
    CHECK(child == target->next_key, "ce_object_create_embedded: the new object does not have the next key");
    model_create(target, child, NULL, NULL);
    ce_value link = {.type = CE_TYPE_LINK, .link = {target_key, child}};
    model_set(&run->current, key, (size_t)position, column, &link);
    position = position_of(table, object);
    if (position >= 0) check_object(txn, &run->current, table, key, (size_t)position);
    check_object(txn, &run->current, target, target_key, (size_t)position_of(target, child));
}

/* An index for a collection of `count` elements: mostly in [0, count],
 * sometimes past it or SIZE_MAX. */
static size_t decode_index(runner *run, size_t count)
{
    uint8_t choice = take(&run->input);
    if (choice == 0xFF) return SIZE_MAX;
    if (choice >= 0xF0) return count + (choice & 7);
    if (choice >= 0xC0) return count; /* the end */
    return choice % (count + 1);
}

/* A new element's link needs the target's backlink property; an element
 * dropped from a collection of links to an embedded table deletes the
 * object it owned (after the change, in `owned`). */
static void note_new_element(runner *run, const collection_target *target, const ce_value *value)
{
    if (value->type == CE_TYPE_LINK) model_ensure_backlink(&run->current, value->link.table, target->table, target->column);
}

static void note_dropped_element(runner *run, const element_kind *kind, const stored_value *element, link_vector *owned)
{
    if (owns_embedded(&run->current, kind) && element->value.type == CE_TYPE_LINK) link_vector_push(owned, element->value.link);
}

/* Replaces an element in the model (a link to the same object changes
 * nothing, as in the engine). */
static void model_replace_element(runner *run, const collection_target *target, const element_kind *kind,
                                  model_collection *collection, size_t index, const ce_value *value, link_vector *owned)
{
    stored_value *element = &collection->elements[index];
    if (kind->type == CE_TYPE_LINK && same_value(&element->value, value)) return;
    note_dropped_element(run, kind, element, owned);
    stored_value stored = store_value(value);
    release_value(element);
    *element = stored;
    note_new_element(run, target, value);
}

/* After a change: the embedded objects dropped elements owned go, then the
 * collection (found again) is compared with the model's. */
static void finish_edit(runner *run, ce_collection *handle, const collection_target *target, link_vector *owned)
{
    delete_owned(&run->current, owned);
    free(owned->items);
    owned->items = NULL;
    check_target(run, handle, target);
}

static void op_list_edit(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    uint8_t operation = take(&run->input) % 7;
    size_t count = resolved ? collection_count(view.elements) : 0;
    size_t index = decode_index(run, count), other = decode_index(run, count);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    if (operation <= 1 && resolved) decode_element_value(run, &view.element, view.elements, &buffer);
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        value_buffer_free(&buffer);
        return;
    }
    count = collection_count(view.elements);
    bool is_list = view.kind == CE_COLLECTION_LIST;
    error_set expected = write_errors(run) | (is_list ? 0 : ERR(CE_ERR_WRONG_TYPE));
    link_vector owned = {0};
    bool ok;
    ce_object_key child = -2;
    switch (operation) {
    case 0: /* insert */
        expected |= element_errors(&run->current, &view.element, &buffer.value);
        if (index > count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (!expected && count >= MAX_COLLECTION_SIZE) break;
        if (EXPECT(expected, ce_list_insert(handle, index, &buffer.value))) {
            collection_insert_at(writable_target(&run->current, &target), index, store_value(&buffer.value), NULL);
            note_new_element(run, &target, &buffer.value);
        }
        break;
    case 1: /* set */
        expected |= element_errors(&run->current, &view.element, &buffer.value);
        if (index >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (EXPECT(expected, ce_list_set(handle, index, &buffer.value)))
            model_replace_element(run, &target, &view.element, writable_target(&run->current, &target), index,
                                  &buffer.value, &owned);
        break;
    case 2: /* erase */
        if (index >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (EXPECT(expected, ce_list_erase(handle, index))) {
            model_collection *collection = writable_target(&run->current, &target);
            note_dropped_element(run, &view.element, &collection->elements[index], &owned);
            collection_erase_at(collection, index);
        }
        break;
    case 3: /* move */
    case 4: /* swap */
        if (index >= count || other >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        ok = operation == 3 ? EXPECT(expected, ce_list_move(handle, index, other))
                            : EXPECT(expected, ce_list_swap(handle, index, other));
        if (ok && index != other) {
            model_collection *collection = writable_target(&run->current, &target);
            stored_value moved = collection->elements[index];
            if (operation == 4) {
                collection->elements[index] = collection->elements[other];
                collection->elements[other] = moved;
            } else {
                retain_value(&moved); /* collection_erase_at releases it */
                collection_erase_at(collection, index);
                collection_insert_at(collection, other, moved, NULL);
            }
        }
        break;
    default: { /* insert or set a new embedded object */
        bool insert = operation == 5;
        if (!owns_embedded(&run->current, &view.element)) expected |= ERR(CE_ERR_EMBEDDED_OBJECT);
        if (insert ? index > count : index >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (!expected) expected |= embedding_depth_errors(run, target.table, target.object);
        if (!expected && (!room_for_objects(run, 1) || count >= MAX_COLLECTION_SIZE)) break;
        ok = insert ? EXPECT(expected, ce_list_insert_embedded(handle, index, &child))
                    : EXPECT(expected, ce_list_set_embedded(handle, index, &child));
        if (!ok) break;
        model_table *embedded = &run->current.tables[view.element.link_target];
        CHECK(child == embedded->next_key, "a new embedded object does not have the next key");
        model_create(embedded, child, NULL, NULL);
        ce_value link = {.type = CE_TYPE_LINK, .link = {view.element.link_target, child}};
        model_collection *collection = writable_target(&run->current, &target);
        if (insert) collection_insert_at(collection, index, store_value(&link), NULL);
        else model_replace_element(run, &target, &view.element, collection, index, &link, &owned);
        break;
    }
    }
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
    value_buffer_free(&buffer);
}

static void op_set_edit(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    bool insert = !(take(&run->input) & 1);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    element_kind kind = resolved ? view.element : nested_kind;
    decode_element_value(run, &kind, resolved ? view.elements : NULL, &buffer);
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        value_buffer_free(&buffer);
        return;
    }
    bool is_set = view.kind == CE_COLLECTION_SET, changed = false, found;
    error_set expected = write_errors(run) | (is_set ? 0 : ERR(CE_ERR_WRONG_TYPE));
    size_t position = set_position(view.elements, &buffer.value, &found);
    if (insert) {
        expected |= element_errors(&run->current, &view.element, &buffer.value);
        if (!expected && collection_count(view.elements) >= MAX_COLLECTION_SIZE) goto done;
        if (EXPECT(expected, ce_set_insert(handle, &buffer.value, &changed))) {
            CHECK(changed == !found, "ce_set_insert: 'changed' differs from the model");
            if (!found) {
                collection_insert_at(writable_target(&run->current, &target), position, store_value(&buffer.value), NULL);
                note_new_element(run, &target, &buffer.value);
            }
        }
    } else if (EXPECT(expected, ce_set_erase(handle, &buffer.value, &changed))) {
        /* No check of the value: one of another type is simply not there. */
        CHECK(changed == found, "ce_set_erase: 'changed' differs from the model");
        if (found) collection_erase_at(writable_target(&run->current, &target), position);
    }
done:;
    link_vector owned = {0};
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
    value_buffer_free(&buffer);
}

static void op_dictionary_edit(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    uint8_t operation = take(&run->input) % 3;
    dictionary_key key;
    decode_key(run, resolved ? view.elements : NULL, resolved && view.kind == CE_COLLECTION_DICTIONARY, &key);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    if (operation == 0 && resolved) decode_element_value(run, &view.element, view.elements, &buffer);
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        value_buffer_free(&buffer);
        return;
    }
    bool is_dictionary = view.kind == CE_COLLECTION_DICTIONARY, found = false, erased = false;
    error_set expected = write_errors(run) | (is_dictionary ? 0 : ERR(CE_ERR_WRONG_TYPE));
    error_set key_errors = key_is_valid(&key) ? 0 : ERR(CE_ERR_INVALID_ARGUMENT);
    size_t position = is_dictionary ? key_position(view.elements, key.bytes, key.size, &found) : 0;
    size_t count = collection_count(view.elements);
    link_vector owned = {0};
    stored_value key_value;
    ce_value key_as_value = {.type = CE_TYPE_STRING, .string = {key.bytes, key.size}};
    if (operation == 0) {
        expected |= key_errors | element_errors(&run->current, &view.element, &buffer.value);
        if (!expected && !found && count >= MAX_COLLECTION_SIZE) goto done;
        if (EXPECT(expected, ce_dictionary_set(handle, key.bytes, key.size, &buffer.value))) {
            model_collection *collection = writable_target(&run->current, &target);
            if (found) {
                model_replace_element(run, &target, &view.element, collection, position, &buffer.value, &owned);
            } else {
                key_value = store_value(&key_as_value);
                collection_insert_at(collection, position, store_value(&buffer.value), &key_value);
                note_new_element(run, &target, &buffer.value);
            }
        }
    } else if (operation == 1) {
        if (EXPECT(expected, ce_dictionary_erase(handle, key.bytes, key.size, &erased))) {
            CHECK(erased == found, "ce_dictionary_erase: 'erased' differs from the model");
            if (found) {
                model_collection *collection = writable_target(&run->current, &target);
                note_dropped_element(run, &view.element, &collection->elements[position], &owned);
                collection_erase_at(collection, position);
            }
        }
    } else {
        ce_object_key child = -2;
        expected |= key_errors | (owns_embedded(&run->current, &view.element) ? 0 : ERR(CE_ERR_EMBEDDED_OBJECT));
        if (!expected) expected |= embedding_depth_errors(run, target.table, target.object);
        if (!expected && (!room_for_objects(run, 1) || (!found && count >= MAX_COLLECTION_SIZE))) goto done;
        if (EXPECT(expected, ce_dictionary_insert_embedded(handle, key.bytes, key.size, &child))) {
            model_table *embedded = &run->current.tables[view.element.link_target];
            CHECK(child == embedded->next_key, "a new embedded object does not have the next key");
            model_create(embedded, child, NULL, NULL);
            ce_value link = {.type = CE_TYPE_LINK, .link = {view.element.link_target, child}};
            model_collection *collection = writable_target(&run->current, &target);
            if (found) {
                model_replace_element(run, &target, &view.element, collection, position, &link, &owned);
            } else {
                key_value = store_value(&key_as_value);
                collection_insert_at(collection, position, store_value(&link), &key_value);
            }
        }
    }
done:
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
    value_buffer_free(&buffer);
}

/* Reads: size, an element, a find, a dictionary's key and value by key. */
static void op_collection_read(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    uint8_t operation = take(&run->input) % 5;
    size_t index = decode_index(run, resolved ? collection_count(view.elements) : 0);
    dictionary_key key;
    decode_key(run, resolved ? view.elements : NULL, resolved && view.kind == CE_COLLECTION_DICTIONARY, &key);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    element_kind kind = resolved ? view.element : nested_kind;
    if (operation == 2) decode_element_value(run, &kind, resolved ? view.elements : NULL, &buffer);
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        value_buffer_free(&buffer);
        return;
    }
    size_t count = collection_count(view.elements), engine_count, engine_index, model_index = 0;
    bool is_dictionary = view.kind == CE_COLLECTION_DICTIONARY, found;
    ce_value value;
    switch (operation) {
    case 0:
        MUST(ce_collection_size(handle, &engine_count));
        CHECK(engine_count == count, "ce_collection_size differs from the model");
        break;
    case 1:
        if (EXPECT(index < count ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS), ce_collection_get(handle, index, &value)))
            check_same_value(&value, &view.elements->elements[index].value, "ce_collection_get");
        break;
    case 2:
        MUST(ce_collection_find(handle, &buffer.value, &engine_index, &found));
        CHECK(found == model_find(view.kind, view.elements, &buffer.value, &model_index) &&
                  (!found || engine_index == model_index),
              "ce_collection_find differs from the model");
        break;
    case 3: {
        error_set expected = !is_dictionary ? ERR(CE_ERR_WRONG_TYPE) : index < count ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (EXPECT(expected, ce_dictionary_key_at(handle, index, &value)))
            check_same_value(&value, &view.elements->keys[index].value, "ce_dictionary_key_at");
        break;
    }
    default: {
        if (!EXPECT(is_dictionary ? 0 : ERR(CE_ERR_WRONG_TYPE), ce_dictionary_get(handle, key.bytes, key.size, &value, &found)))
            break;
        bool model_found;
        size_t position = key_position(view.elements, key.bytes, key.size, &model_found);
        CHECK(found == model_found, "ce_dictionary_get differs from the model");
        if (found) check_same_value(&value, &view.elements->elements[position].value, "ce_dictionary_get");
        break;
    }
    }
    ce_collection_close(handle);
    value_buffer_free(&buffer);
}

static void op_collection_clear(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) return;
    link_vector owned = {0};
    if (EXPECT(write_errors(run), ce_collection_clear(handle)) && collection_count(view.elements)) {
        model_collection *collection = writable_target(&run->current, &target);
        for (size_t i = 0; i < collection->count; i++) note_dropped_element(run, &view.element, &collection->elements[i], &owned);
        while (collection->count) collection_erase_at(collection, collection->count - 1);
    }
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
}

/* Elements from a stream the input seeds, into a list (appended, or at
 * positions from the stream), set or dictionary (keys "k<n>"): mostly up
 * to 64, one time in 16 over 1000 (a collection of more than one chunk).
 * Each insert is a call: under the sanitizers a thousand take a second. */
static void op_bulk_insert(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    uint8_t size_choice = take(&run->input);
    size_t wanted = size_choice < 0xF0 ? 1 + (size_t)(size_choice % 64) : 1001 + 8 * (size_t)(size_choice & 15);
    bool at_positions = take(&run->input) & 1;
    source stream = random_source(take_u32(&run->input));
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) return;
    const model_table *linked = view.element.type == CE_TYPE_LINK ? &run->current.tables[view.element.link_target] : NULL;
    if (!run->txn_is_write || (linked && (linked->embedded || !linked->object_count))) wanted = 0;
    for (size_t i = 0; i < wanted; i++) {
        model_collection *collection = writable_target(&run->current, &target);
        if (collection->count >= MAX_COLLECTION_SIZE) break;
        value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
        if (linked) {
            buffer.value = (ce_value){.type = CE_TYPE_LINK,
                                      .link = {view.element.link_target, linked->keys[take_u16(&stream) % linked->object_count]}};
        } else {
            ce_type type = view.element.type == CE_TYPE_MIXED ? (ce_type)(1 + take(&stream) % 10) : view.element.type;
            decode_typed_value(&stream, type, false, &buffer);
        }
        bool ok = true, found;
        if (view.kind == CE_COLLECTION_LIST) {
            size_t index = at_positions ? take_u16(&stream) % (collection->count + 1) : collection->count;
            ok = MUST(ce_list_insert(handle, index, &buffer.value));
            if (ok) collection_insert_at(collection, index, store_value(&buffer.value), NULL);
        } else if (view.kind == CE_COLLECTION_SET) {
            bool changed;
            size_t position = set_position(collection, &buffer.value, &found);
            ok = MUST(ce_set_insert(handle, &buffer.value, &changed));
            CHECK(changed == !found, "ce_set_insert: 'changed' differs from the model");
            if (!found) collection_insert_at(collection, position, store_value(&buffer.value), NULL);
        } else {
            char text[24];
            int length = snprintf(text, sizeof text, "k%u", (unsigned)(take_u16(&stream) % 4000));
            size_t position = key_position(collection, text, (size_t)length, &found);
            ok = MUST(ce_dictionary_set(handle, text, (size_t)length, &buffer.value));
            if (found) {
                stored_value stored = store_value(&buffer.value);
                release_value(&collection->elements[position]);
                collection->elements[position] = stored;
            } else {
                ce_value key_value = {.type = CE_TYPE_STRING, .string = {text, (size_t)length}};
                stored_value stored_key = store_value(&key_value);
                collection_insert_at(collection, position, store_value(&buffer.value), &stored_key);
            }
        }
        if (ok) note_new_element(run, &target, &buffer.value);
        value_buffer_free(&buffer);
    }
    link_vector owned = {0};
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
}

/* ce_object_backlink_count, _at and _total for an object and an origin
 * property (mostly one its table has backlinks of). */
static void op_backlinks(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_object_key object = decode_object(run, table);
    uint8_t choice = take(&run->input);
    ce_table_key origin_table = 0;
    ce_column_key origin_column = 0;
    size_t backlinks = 0;
    for (size_t p = 0; table && p < table->property_count; p++)
        backlinks += !table->properties[p].removed && table->properties[p].backlink;
    if (choice < 0xE0 && backlinks) {
        size_t rank = choice % backlinks;
        for (size_t p = 0; p < table->property_count; p++)
            if (!table->properties[p].removed && table->properties[p].backlink && rank-- == 0) {
                origin_table = table->properties[p].link_target;
                origin_column = table->properties[p].origin_column;
            }
    } else {
        origin_table = decode_table(run);
        origin_column = decode_column(run, live_table(&run->current, origin_table));
    }
    size_t index = take(&run->input);
    ce_txn *txn = transaction(run);
    const model_table *origin = live_table(&run->current, origin_table);
    const model_property *property = live_property(origin, origin_column);
    long position = position_of(table, object);
    error_set expected = 0;
    if (!table || !origin) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else if (!holds_links(property)) expected |= ERR(CE_ERR_WRONG_TYPE);
    else if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    size_t count;
    ce_object_key found;
    if (EXPECT(expected, ce_object_backlink_count(txn, key, object, origin_table, origin_column, &count))) {
        ce_link target = {key, object};
        size_t model_count = model_backlinks(&run->current, target, origin_table, origin_column, NULL, 0);
        CHECK(count == model_count, "ce_object_backlink_count differs from the model");
        ce_object_key *origins = allocate(model_count * sizeof *origins);
        model_backlinks(&run->current, target, origin_table, origin_column, origins, model_count);
        index = model_count ? index % (model_count + 1) : index % 2;
        if (EXPECT(index < model_count ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS),
                   ce_object_backlink_at(txn, key, object, origin_table, origin_column, index, &found)))
            CHECK(found == origins[index], "ce_object_backlink_at differs from the model");
        free(origins);
    } else {
        EXPECT(expected, ce_object_backlink_at(txn, key, object, origin_table, origin_column, 0, &found));
    }
    if (table && position >= 0) check_backlinks(txn, &run->current, key, (size_t)position);
}

/* The held handle finds its collection again in the current state: the
 * same errors as opening its path now would give, else the same contents. */
static void check_held(runner *run)
{
    const collection_target *target = run->held_target;
    collection_target top = *target;
    top.depth = 0;
    model_view view;
    error_set expected = resolve_top(&run->current, &top, &view);
    for (size_t i = 0; i < target->depth && !expected; i++) {
        model_view inner;
        expected = resolve_step(&view, &target->steps[i], &inner);
        view = inner;
    }
    size_t count;
    if (EXPECT(expected, ce_collection_size(run->held, &count)))
        check_collection(run->held, view.kind, &view.element, view.elements, 0, CHECK_NESTING);
}

static void release_held(runner *run)
{
    if (!run->held) return;
    ce_collection_close(run->held);
    run->held = NULL;
}

/* A handle opened now and kept until this operation comes again or the
 * transaction ends: after every step it is read again (it names a path,
 * so it follows the changes, and fails once the path leads nowhere). */
static void op_hold_collection(runner *run)
{
    if (run->held) {
        check_held(run);
        release_held(run);
        return;
    }
    model_view view;
    bool resolved;
    decode_target(run, run->held_target, &view, &resolved);
    transaction(run);
    run->held = open_target(run, run->held_target, &view);
}

/* Collections nested in one another from the target down: mostly a few
 * levels, one time in 32 over 100 (past the 100 levels a collection may
 * lie at: the last ones are refused), lists and dictionaries as a stream
 * says, a link at the bottom sometimes. The node trees of such values are
 * the deepest the object store builds. */
static void op_nest(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(run, &target, &view, &resolved);
    uint8_t size_choice = take(&run->input);
    size_t levels = size_choice < 0xF8 ? 1 + (size_t)(size_choice % 6) : 100 + (size_t)(size_choice % 8);
    source stream = random_source(take_u32(&run->input));
    ce_table_key link_table = decode_table(run);
    ce_object_key link_object = decode_object(run, live_table(&run->current, link_table));
    transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) return;
    if (!run->txn_is_write || view.element.type != CE_TYPE_MIXED || view.kind == CE_COLLECTION_SET) {
        ce_collection_close(handle);
        return;
    }
    /* The model follows level by level: below the target every collection
     * is new, so its pointers stay this operation's own. */
    model_collection **slot = NULL;
    size_t level = target.depth + (target.through_mixed ? 1 : 0);
    ce_collection_type kind = view.kind;
    for (size_t i = 0; i < levels; i++, level++) {
        ce_value nested = {.type = take(&stream) & 1 ? CE_TYPE_DICTIONARY : CE_TYPE_LIST};
        error_set expected = level >= MAX_NESTING_LEVEL ? ERR(CE_ERR_INVALID_ARGUMENT) : 0;
        model_collection *collection = slot ? writable_collection(slot) : writable_target(&run->current, &target);
        if (!expected && collection->count >= MAX_COLLECTION_SIZE) break;
        char key[8] = "n";
        size_t position = collection->count, key_size = 1;
        bool found = false;
        ce_value at = {.type = CE_TYPE_INT, .integer = (int64_t)position};
        if (kind == CE_COLLECTION_DICTIONARY) {
            key_size = (size_t)snprintf(key, sizeof key, "n%zu", i % 1000);
            position = key_position(collection, key, key_size, &found);
            at = (ce_value){.type = CE_TYPE_STRING, .string = {key, key_size}};
        }
        bool ok = kind == CE_COLLECTION_LIST ? EXPECT(expected, ce_list_insert(handle, position, &nested))
                                             : EXPECT(expected, ce_dictionary_set(handle, key, key_size, &nested));
        if (!ok) break;
        if (kind == CE_COLLECTION_LIST) {
            collection_insert_at(collection, position, store_value(&nested), NULL);
        } else if (found) {
            release_value(&collection->elements[position]);
            collection->elements[position] = store_value(&nested);
        } else {
            ce_value key_value = {.type = CE_TYPE_STRING, .string = {key, key_size}};
            stored_value stored_key = store_value(&key_value);
            collection_insert_at(collection, position, store_value(&nested), &stored_key);
        }
        slot = &collection->elements[position].nested;
        ce_collection *inner;
        MUST(ce_collection_open_nested(handle, &at, &inner));
        ce_collection_close(handle);
        handle = inner;
        kind = kind_of_nested_value(nested.type);
    }
    /* A link at the bottom, to be purged from there. */
    if (slot && (take(&stream) & 1)) {
        ce_value link = {.type = CE_TYPE_LINK, .link = {link_table, link_object}};
        error_set expected = element_errors(&run->current, &nested_kind, &link);
        bool ok = kind == CE_COLLECTION_LIST ? EXPECT(expected, ce_list_insert(handle, 0, &link))
                                             : EXPECT(expected, ce_dictionary_set(handle, "link", 4, &link));
        if (ok) {
            /* The bottom collection is new and empty: the link is its only element. */
            ce_value key_value = {.type = CE_TYPE_STRING, .string = {"link", 4}};
            stored_value stored_key = store_value(&key_value);
            collection_insert_at(writable_collection(slot), 0, store_value(&link),
                                 kind == CE_COLLECTION_DICTIONARY ? &stored_key : NULL);
            if (kind != CE_COLLECTION_DICTIONARY) release_value(&stored_key);
            model_ensure_backlink(&run->current, link_table, target.table, target.column);
        }
    }
    /* The bottom through its handle, the top levels from the target down
     * (every level between was opened on the way: each read of a level
     * finds the path from the top again, so reading them all again would
     * cost the square of the depth). */
    if (slot) check_collection(handle, kind, &nested_kind, *slot, 0, CHECK_NESTING);
    ce_collection_close(handle);
    handle = open_target(run, &target, &view);
    CHECK(handle != NULL, "the nested collections' target cannot be opened again");
    check_collection(handle, view.kind, &view.element, view.elements, 0, CHECK_NESTING);
    ce_collection_close(handle);
}

/* After every step in a transaction: the number of objects of every table
 * (a cascade deletes in other tables), and the backlinks of a few objects
 * of each table that has backlink properties. */
static void check_links_sample(runner *run)
{
    if (!run->txn) return;
    const model *state = &run->current;
    for (size_t t = 0; t < state->table_count; t++) {
        const model_table *table = &state->tables[t];
        size_t count;
        if (!table->removed) {
            MUST(ce_object_count(run->txn, (ce_table_key)t, &count));
            CHECK(count == table->object_count, "ce_object_count differs from the model");
        }
        bool has_backlinks = false;
        for (size_t p = 0; !table->removed && p < table->property_count; p++)
            has_backlinks |= !table->properties[p].removed && table->properties[p].backlink;
        if (!has_backlinks) continue;
        size_t samples = table->object_count < 2 ? table->object_count : 2;
        for (size_t i = 0; i < samples; i++)
            check_backlinks(run->txn, state, (ce_table_key)t, spread(i, samples, table->object_count));
    }
}

/* ce_property_set_indexed: the rules of an indexed property are those of
 * ce_property_add; the primary key keeps its index; no change is no error. */
static void op_set_indexed(runner *run)
{
    ce_table_key key = decode_table(run);
    model_table *table = live_table(&run->current, key);
    ce_column_key column = decode_column(run, table);
    bool indexed = take(&run->input) & 1;
    ce_txn *txn = transaction(run);
    model_property *property = live_property(table, column) ? &table->properties[column] : NULL;
    error_set expected =
        write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE)) | (property ? 0 : ERR(CE_ERR_NO_SUCH_PROPERTY));
    if (!table) expected &= ~ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (property && property->backlink) {
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    } else if (property && property->primary_key) {
        if (!indexed) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    } else if (property && property->indexed != indexed && indexed &&
               (property->collection != CE_COLLECTION_NONE || property->type == CE_TYPE_LINK ||
                property->type == CE_TYPE_MIXED || table->embedded || !is_indexable_type(property->type))) {
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    }
    if (EXPECT(expected, ce_property_set_indexed(txn, key, column, indexed))) {
        if (!property->primary_key) property->indexed = indexed;
        check_property_info(txn, table, key, column);
        check_table(txn, &run->current, key, 2);
    } else if (table) {
        check_table(txn, &run->current, key, 2);
    }
}

static void run_operation(runner *run, enum operation operation)
{
    current_operation = operation_names[operation];
    if (verbose) fprintf(stderr, "fuzz_ops: step %zu: %s\n", current_step, current_operation);
    /* A handle belongs to its transaction: closed before it ends. */
    if (operation == OP_COMMIT || operation == OP_ROLLBACK || operation == OP_REOPEN || operation == OP_BEGIN_READ)
        release_held(run);
    switch (operation) {
    case OP_ADD_TABLE: op_add_table(run, false); break;
    case OP_ADD_EMBEDDED_TABLE: op_add_table(run, true); break;
    case OP_CREATE_EMBEDDED: op_create_embedded(run); break;
    case OP_LIST_EDIT: op_list_edit(run); break;
    case OP_SET_EDIT: op_set_edit(run); break;
    case OP_DICTIONARY_EDIT: op_dictionary_edit(run); break;
    case OP_COLLECTION_READ: op_collection_read(run); break;
    case OP_COLLECTION_CLEAR: op_collection_clear(run); break;
    case OP_BULK_INSERT: op_bulk_insert(run); break;
    case OP_BACKLINKS: op_backlinks(run); break;
    case OP_HOLD_COLLECTION: op_hold_collection(run); break;
    case OP_NEST: op_nest(run); break;
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
    case OP_SET_INDEXED: op_set_indexed(run); break;
    default: break;
    }
    check_links_sample(run);
    if (run->held) check_held(run);
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
    run.held_target = allocate(sizeof *run.held_target);
    ce_db_options_init(&run.options);
    uint8_t options = take(&run.input);
    run.options.durability = (options & 1) ? CE_DURABILITY_UNSAFE_NO_SYNC : CE_DURABILITY_FULL;
    current_step = 0;
    current_operation = "open";
    open_database(&run);
    MUST(ce_db_latest_version(run.db, &run.version)); /* a new file's; every commit adds one */
    for (current_step = 1; current_step <= MAX_OPERATIONS && run.input.offset < run.input.size; current_step++)
        run_operation(&run, (enum operation)operation_of_byte[take(&run.input) & (OPERATION_SLOTS - 1)]);

    /* The end: what the open transaction sees, then everything rolled back
     * and the file closed. */
    current_operation = "end";
    release_held(&run);
    free(run.held_target);
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
 * indexes, create with values and create or update, links, collections of
 * links, embedded objects, scalar collections, mixed values with nested
 * collections, bulk inserts past a chunk), then a few of random
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
    for (unsigned byte = 0; byte < OPERATION_SLOTS; byte++)
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
    put(type >= CE_TYPE_INT && type <= CE_TYPE_MIXED ? type - 1 : 0xF0);
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
    add_property(0, P6, CE_TYPE_NULL, false, false, false);      /* not a storable type */
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

/* Links, collections, embedded objects and mixed values. */
static void raw_name(const char *text)
{
    put(0xF8), put((unsigned)strlen(text));
    for (const char *c = text; *c; c++) put((uint8_t)*c);
}
static void add_table_named(const char *text) { operation(OP_ADD_TABLE), raw_name(text); }
static void add_embedded_named(const char *text) { operation(OP_ADD_EMBEDDED_TABLE), raw_name(text); }
/* A link property with the nullability its kind needs (flag bit 7). */
static void add_link(unsigned table, const char *text, ce_collection_type collection, unsigned target)
{
    operation(OP_ADD_PROPERTY), table_rank(table), raw_name(text), put(CE_TYPE_LINK - 1), put(0x80 | collection << 4);
    table_rank(target);
}
static void add_typed(unsigned table, const char *text, ce_type type, ce_collection_type collection, bool nullable)
{
    operation(OP_ADD_PROPERTY), table_rank(table), raw_name(text), put(type - 1), put((nullable ? 1 : 0) | collection << 4);
}
/* A collection: table, object, rank among the table's collection and mixed
 * properties, then `depth` steps (each the rank among nested elements). */
static void target(unsigned table, unsigned object, unsigned collection_rank, unsigned depth)
{
    table_rank(table), object_rank(object), put(collection_rank), put(depth << 5);
}
static void fresh(void) { put(0x40); } /* an element value that is not a copy of an element */
static void link_value(unsigned object) { put(3), object_rank(object); }
static void mixed_int(int64_t value) { put(8), put(0), put(0xC0), put_u64((uint64_t)value); }
static void mixed_text(const char *ascii)
{
    put(8), put(4), put((unsigned)strlen(ascii));
    for (const char *c = ascii; *c; c++) put((unsigned)(*c - 0x20));
}
static void mixed_double(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, 8);
    put(8), put(3), put(0x80), put_u64(bits);
}
static void mixed_list(void) { put(1), put(0); }
static void mixed_dictionary(void) { put(2), put(0); }
static void mixed_link(unsigned table, unsigned object) { put(3), put(0), table_rank(table), object_rank(object); }
/* Pooled dictionary key i (see pooled_keys). */
enum { NEST_SEED = 7 }; /* a stream whose last choice puts a link at the bottom */
static void pooled_key(unsigned i) { put(0x80 + (i + POOLED_KEYS - 0x80 % POOLED_KEYS) % POOLED_KEYS); }
enum { KEY_A, KEY_B, KEY_KEY, KEY_EMPTY, KEY_N_TILDE, KEY_DOLLAR, KEY_DOT, KEY_BAD_UTF8, KEY_NUL, KEY_ZZ };
enum { LIST_INSERT, LIST_SET, LIST_ERASE, LIST_MOVE, LIST_SWAP, LIST_INSERT_EMBEDDED, LIST_SET_EMBEDDED };
static void list_arguments(unsigned operation_code, unsigned index, unsigned other)
{
    put(operation_code), put(index), put(other);
}
static void backlinks(unsigned table, unsigned object, unsigned backlink_rank, unsigned index)
{
    operation(OP_BACKLINKS), table_rank(table), object_rank(object), put(backlink_rank), put(index);
}

/* To-one links (one to its own table), a list of links with a duplicate,
 * backlinks; deleting targets purges the links; a linked table cannot be
 * removed until its links go. */
static void seed_links(void)
{
    begin(0);
    add_table_named("Person");                       /* table 0 */
    add_table_named("Dog");                          /* table 1 */
    add_typed(0, "name", CE_TYPE_STRING, CE_COLLECTION_NONE, false);
    add_link(0, "friend", CE_COLLECTION_NONE, 0);    /* Person: name, friend, @links.Person.friend */
    add_link(0, "dogs", CE_COLLECTION_LIST, 1);      /* Person 3; Dog 0: @links.Person.dogs */
    add_link(1, "owner", CE_COLLECTION_NONE, 0);     /* Dog 1; Person 4: @links.Dog.owner */
    create(0), create(0), create(0), create(1), create(1), create(1);
    set(0, 0, 1), link_value(1);
    set(0, 1, 1), link_value(1); /* itself */
    set(0, 2, 1), put(3), missing_object(); /* no such object */
    set(1, 0, 1), link_value(0);
    set(1, 1, 1), put(2), table_rank(1), object_rank(0); /* a Dog where a Person goes */
    for (unsigned dog = 0; dog < 3; dog++) operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0xC0, 0), fresh(), link_value(dog);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 1, 0), fresh(), link_value(0); /* twice */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 0, 3);
    backlinks(1, 0, 0, 1);
    backlinks(0, 1, 0, 0);
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(1), object_rank(0); /* both occurrences go */
    operation(OP_DELETE), table_rank(0), object_rank(1); /* friends become null */
    check_table_operation(0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    operation(OP_REMOVE_TABLE), table_rank(1);            /* Person.dogs links to it */
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(3);
    operation(OP_REMOVE_TABLE), table_rank(0);            /* Dog.owner links to it */
    operation(OP_REMOVE_TABLE), table_rank(1);
    check_table_operation(0);
    simple(OP_COMMIT);
    write_seed("links");
}

/* Sets and dictionaries of links: a deleted target leaves a set, and a
 * dictionary keeps the key with null; clear; a held reader across it. */
static void seed_link_collections(void)
{
    begin(1);
    add_table_named("Person");
    add_table_named("Dog");
    add_link(0, "pets", CE_COLLECTION_SET, 1);
    add_link(0, "byName", CE_COLLECTION_DICTIONARY, 1);
    create(0), create(0);
    for (unsigned i = 0; i < 4; i++) create(1);
    for (unsigned dog = 4; dog-- > 0;) operation(OP_SET_EDIT), target(0, 0, 0, 0), put(0), fresh(), link_value(dog);
    operation(OP_SET_EDIT), target(0, 0, 0, 0), put(0), put(0); /* one it holds: unchanged */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_A), fresh(), link_value(2);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_N_TILDE), fresh(), link_value(1);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_EMPTY), fresh(), put(0); /* null */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_DOLLAR), fresh(), link_value(1);
    operation(OP_DICTIONARY_EDIT), target(0, 1, 1, 0), put(0), pooled_key(KEY_NUL), fresh(), link_value(2);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    operation(OP_DELETE), table_rank(1), object_rank(2);
    operation(OP_COLLECTION_READ), target(0, 0, 1, 0), put(4), put(0), pooled_key(KEY_A);
    operation(OP_SET_EDIT), target(0, 0, 0, 0), put(1), fresh(), link_value(0);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(1), pooled_key(KEY_N_TILDE);
    backlinks(1, 1, 1, 0);
    simple(OP_COMMIT);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 0, 0);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    write_seed("link-collections");
}

/* Embedded objects: to-one, in a list, in a dictionary, two levels deep;
 * replaced and removed links delete them, deleting the parent deletes them
 * all; they cannot be created directly nor linked to. */
static void seed_embedded(void)
{
    begin(0);
    add_table_named("Person");                     /* table 0 */
    add_embedded_named("Address");                 /* table 1 */
    add_embedded_named("Geo");                     /* table 2 */
    add_typed(1, "street", CE_TYPE_STRING, CE_COLLECTION_NONE, true);
    add_link(1, "geo", CE_COLLECTION_NONE, 2);     /* Address: street, geo; Geo: @links.Address.geo */
    add_typed(2, "lat", CE_TYPE_DOUBLE, CE_COLLECTION_NONE, false);
    add_link(0, "home", CE_COLLECTION_NONE, 1);    /* Person 0; Address 2: @links */
    add_link(0, "past", CE_COLLECTION_LIST, 1);    /* Person 1; Address 3 */
    add_link(0, "named", CE_COLLECTION_DICTIONARY, 1);
    add_link(0, "bad", CE_COLLECTION_SET, 1);      /* a set of embedded objects: refused */
    create(0), create(0);
    create(1);                                     /* embedded: refused */
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0);
    operation(OP_CREATE_EMBEDDED), table_rank(1), object_rank(0), put(0); /* Address.geo */
    set(1, 0, 0), text_value("Main St");
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0); /* replaces, deletes the old one */
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(1), put(0);
    for (unsigned i = 0; i < 3; i++)
        operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT_EMBEDDED, 0xC0, 0);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_SET_EMBEDDED, 1, 0);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), link_value(0); /* an existing one */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_ERASE, 0, 0);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT_EMBEDDED, 0, 0); /* a dictionary */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(2), pooled_key(KEY_KEY);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(2), pooled_key(KEY_KEY); /* replaces */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 0), put(2), pooled_key(KEY_B);   /* a list */
    set(0, 1, 0), put(0);                          /* home = null deletes it */
    set(0, 0, 0), link_value(0);                   /* a link to an existing embedded object */
    backlinks(1, 0, 0, 0);
    simple(OP_COMMIT);
    operation(OP_HOLD_COLLECTION), target(0, 0, 0, 0); /* Person 0's list, until its object goes */
    operation(OP_DELETE), table_rank(0), object_rank(0);
    check_table_operation(1), check_table_operation(2);
    simple(OP_COMMIT);
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(0); /* deletes what it owned */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    write_seed("embedded");
}

/* A chain of embedded objects as deep as they go (100 below the top-level
 * object; the next one is refused), replaced from the top, deleted with
 * its top-level object. */
static void seed_embedded_deep(void)
{
    begin(1);
    add_table_named("Root");                        /* table 0 */
    add_embedded_named("Node");                     /* table 1 */
    add_link(0, "head", CE_COLLECTION_NONE, 1);
    add_link(1, "next", CE_COLLECTION_NONE, 1);     /* Node: @links.Root.head, next, @links.Node.next */
    create(0);
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0);
    for (unsigned depth = 1; depth <= 100; depth++) /* the last one is refused */
        operation(OP_CREATE_EMBEDDED), table_rank(1), object_rank(depth - 1), put(0);
    simple(OP_COMMIT);
    operation(OP_CREATE_EMBEDDED), table_rank(1), object_rank(50), put(0); /* the 50 below it go */
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    simple(OP_COMMIT);
    write_seed("embedded-deep");
}

/* Mixed collections nested 100 levels (the next ones refused) with a link
 * at the bottom: committed, reopened, the link purged from there, the
 * whole replaced; a few levels in a list of mixed values. */
static void seed_nested_deep(void)
{
    begin(1);
    add_table_named("Doc");
    add_table_named("Tag");
    add_typed(0, "any", CE_TYPE_MIXED, CE_COLLECTION_NONE, true);
    add_typed(0, "items", CE_TYPE_MIXED, CE_COLLECTION_LIST, true);
    create(0), create(1);
    set(0, 0, 0), fresh(), mixed_list();
    operation(OP_NEST), target(0, 0, 0, 0), put(0xFF), put_u32(NEST_SEED), table_rank(1), object_rank(0); /* 107 */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    operation(OP_NEST), target(0, 0, 1, 0), put(3), put_u32(NEST_SEED), table_rank(1), object_rank(0);
    backlinks(1, 0, 0, 0);
    operation(OP_DELETE), table_rank(1), object_rank(0);
    simple(OP_COMMIT);
    set(0, 0, 0), fresh(), mixed_int(1);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("nested-deep");
}

/* Lists, sets and dictionaries of scalars, required and optional: every
 * list operation, a set in value order (-0.0 is 0.0, decimals by number),
 * dictionary keys in byte order and the keys refused. */
static void seed_scalar_collections(void)
{
    begin(0);
    add_table_named("Box");
    add_typed(0, "ints", CE_TYPE_INT, CE_COLLECTION_LIST, false);
    add_typed(0, "texts", CE_TYPE_STRING, CE_COLLECTION_LIST, true);
    add_typed(0, "doubles", CE_TYPE_DOUBLE, CE_COLLECTION_SET, false);
    add_typed(0, "decimals", CE_TYPE_DECIMAL128, CE_COLLECTION_SET, true);
    add_typed(0, "counts", CE_TYPE_INT, CE_COLLECTION_DICTIONARY, true);
    add_typed(0, "stamps", CE_TYPE_TIMESTAMP, CE_COLLECTION_DICTIONARY, false);
    create(0), create(0);
    for (unsigned i = 0; i < 5; i++) operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, i / 2, 0), fresh(), int_value((int64_t)i * 7 - 3);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), null_value();   /* required */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 9, 0), fresh(), int_value(1);   /* past the end */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_SET, 2, 0), fresh(), int_value(INT64_MIN);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 0, 4);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_SWAP, 1, 3);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_ERASE, 2, 0);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), null_value();
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), text_value("b");
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), raw_string_value("\xC3\x28");
    operation(OP_LIST_EDIT), target(0, 0, 2, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), double_value(1); /* a set */
    double doubles[] = {2.5, -0.0, 0.0, -1e300, 1.0 / 0.0};
    for (unsigned i = 0; i < 5; i++) operation(OP_SET_EDIT), target(0, 0, 2, 0), put(0), fresh(), double_value(doubles[i]);
    operation(OP_SET_EDIT), target(0, 0, 2, 0), put(0), fresh(), int_value(3); /* wrong type */
    operation(OP_SET_EDIT), target(0, 0, 2, 0), put(1), fresh(), double_value(0.0);
    for (unsigned i = 0; i < 4; i++) operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), decimal_value(10 * (i & 1) + 1, i, i == 2);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), decimal_value(10, 0, false); /* 10E0 == 1E1 */
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), null_value();
    static const unsigned keys[] = {KEY_ZZ, KEY_A, KEY_EMPTY, KEY_NUL, KEY_N_TILDE, KEY_DOLLAR, KEY_DOT, KEY_BAD_UTF8};
    for (unsigned i = 0; i < 8; i++)
        operation(OP_DICTIONARY_EDIT), target(0, 0, 4, 0), put(0), pooled_key(keys[i]), fresh(), int_value((int64_t)i);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 4, 0), put(0), pooled_key(KEY_A), fresh(), null_value();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 4, 0), put(1), pooled_key(KEY_ZZ);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 5, 0), put(0), pooled_key(KEY_B), fresh(), timestamp_value(-5, 0);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 5, 0), put(0), pooled_key(KEY_A), fresh(), raw_timestamp_value(1, -1);
    operation(OP_COLLECTION_READ), target(0, 0, 4, 0), put(3), put(1), put(0);
    operation(OP_COLLECTION_READ), target(0, 0, 2, 0), put(2), put(0), put(0), fresh(), double_value(-0.0);
    operation(OP_COLLECTION_READ), target(0, 0, 0, 0), put(1), put(9), put(0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 4, 0);
    simple(OP_ROLLBACK);
    check_table_operation(0);
    write_seed("scalar-collections");
}

/* Mixed values: scalars, links (the target table gets its backlink
 * property then), lists and dictionaries nested three levels; deleting a
 * linked object clears it at every level. */
static void seed_mixed(void)
{
    begin(0);
    add_table_named("Doc");                          /* table 0 */
    add_table_named("Tag");                          /* table 1 */
    add_typed(0, "any", CE_TYPE_MIXED, CE_COLLECTION_NONE, true);
    add_typed(0, "items", CE_TYPE_MIXED, CE_COLLECTION_LIST, true);
    add_typed(0, "fields", CE_TYPE_MIXED, CE_COLLECTION_DICTIONARY, true);
    add_typed(0, "kinds", CE_TYPE_MIXED, CE_COLLECTION_SET, true);
    create(0), create(0), create(1), create(1);
    set(0, 0, 0), fresh(), mixed_int(42);
    set(0, 1, 0), fresh(), mixed_link(1, 0);         /* Tag gets @links.Doc.any */
    set(0, 0, 0), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_text("x");
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0xC0, 0), fresh(), mixed_dictionary();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(0), put(0), pooled_key(KEY_A), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 0, 2), put(0), put(0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_link(1, 1);
    operation(OP_LIST_EDIT), target(0, 0, 0, 2), put(0), put(0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_double(-0.0);
    operation(OP_HOLD_COLLECTION), target(0, 0, 0, 2), put(0), put(0); /* the list in any[1]["a"] */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(0), put(0), pooled_key(KEY_B), fresh(), mixed_link(1, 1);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 1, 1), put(0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_link(1, 1);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 2, 0), put(0), pooled_key(KEY_KEY), fresh(), mixed_dictionary();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 2, 1), put(0), put(0), pooled_key(KEY_A), fresh(), mixed_int(-1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_text("b");
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_int(1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_double(1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_link(1, 1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_list(); /* a set nests nothing */
    operation(OP_COLLECTION_READ), target(0, 0, 0, 0), put(2), put(0), put(0), fresh(), mixed_text("x");
    backlinks(1, 1, 0, 2);
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(1), object_rank(1);
    check_table_operation(0);
    set(0, 1, 0), fresh(), mixed_text("replaced");
    /* A link in a dictionary nested in a dictionary, then the outer one
     * cleared: the link goes with it, and its backlink. */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 2, 1), put(0), put(0), pooled_key(KEY_B), fresh(), mixed_link(1, 0);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 2, 0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(0);
    operation(OP_REMOVE_TABLE), table_rank(1);
    simple(OP_COMMIT);
    write_seed("mixed");
}

/* A bulk insert past one chunk (1000 elements), more at positions in it,
 * smaller ones into a list of strings, a set and a dictionary; then edits
 * at the ends and in the middle, a commit, a reopen. */
static void seed_bulk_collections(void)
{
    begin(1);
    add_table_named("Log");
    add_typed(0, "lines", CE_TYPE_INT, CE_COLLECTION_LIST, false);
    add_typed(0, "names", CE_TYPE_STRING, CE_COLLECTION_LIST, true);
    add_typed(0, "seen", CE_TYPE_UUID, CE_COLLECTION_SET, false);
    add_typed(0, "index", CE_TYPE_DOUBLE, CE_COLLECTION_DICTIONARY, false);
    create(0);
    operation(OP_BULK_INSERT), target(0, 0, 0, 0), put(0xF3), put(0), put_u32(11); /* 1025 */
    operation(OP_BULK_INSERT), target(0, 0, 1, 0), put(63), put(1), put_u32(12);
    simple(OP_COMMIT);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 0, 0xC0 - 1);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_ERASE, 100, 0);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0xC0, 0), fresh(), text_value("last");
    operation(OP_BULK_INSERT), target(0, 0, 2, 0), put(50), put(0), put_u32(13);
    operation(OP_BULK_INSERT), target(0, 0, 3, 0), put(60), put(0), put_u32(14);
    operation(OP_BULK_INSERT), target(0, 0, 0, 0), put(40), put(1), put_u32(15); /* into the chunks */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 1, 0);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    simple(OP_COMMIT);
    write_seed("bulk-collections");
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
    seed_links();
    seed_link_collections();
    seed_embedded();
    seed_embedded_deep();
    seed_nested_deep();
    seed_scalar_collections();
    seed_mixed();
    seed_bulk_collections();
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
