/*
 * model.c — the one reference model of the object store (model.h), shared
 * by the C tests and Fuzz/ops.
 *
 * Owns: the model's state and what each change does to it (model.h says
 * what that covers), and the engine's value semantics written apart from
 * value.c.
 * Never: calls the engine; decides which call must fail or compares
 * anything with the engine; aborts except when memory runs out.
 *
 * The state: tables -> properties -> objects -> value slots, string and
 * binary bytes copied into reference-counted blobs, and collections shared
 * until one copy changes them, so that copies of the model are cheap.
 * Backlinks are not stored: they are counted from the links the objects
 * hold. Changes follow the engine's rules for links (links.c): an object
 * deleted takes the embedded objects it owns with it, and every link into
 * it goes.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

void *model_allocate(size_t size)
{
    void *memory = calloc(1, size ? size : 1);
    if (!memory) {
        fprintf(stderr, "model: out of memory\n");
        abort();
    }
    return memory;
}

void *model_grow(void *memory, size_t size)
{
    void *grown = realloc(memory, size ? size : 1);
    if (!grown) {
        fprintf(stderr, "model: out of memory\n");
        abort();
    }
    return grown;
}

/* ------------------------------------------------------------------------ */
/* Values as the engine defines them                                         */
/* ------------------------------------------------------------------------ */

/* Strict UTF-8 as cengine.h promises it (no overlong forms, no surrogates,
 * nothing above U+10FFFF, nothing truncated; U+0000 allowed), written apart
 * from value.c so that the two can disagree. */
bool model_is_utf8(const uint8_t *bytes, size_t size)
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

bool model_timestamp_is_valid(ce_timestamp timestamp)
{
    if (timestamp.nanoseconds <= -1000000000 || timestamp.nanoseconds >= 1000000000) return false;
    return !(timestamp.seconds > 0 && timestamp.nanoseconds < 0) && !(timestamp.seconds < 0 && timestamp.nanoseconds > 0);
}

bool model_is_scalar_type(ce_type type) { return type >= CE_TYPE_INT && type <= CE_TYPE_UUID; }

bool model_is_bytes_type(ce_type type) { return type == CE_TYPE_STRING || type == CE_TYPE_BINARY; }

bool model_is_primary_key_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_STRING || type == CE_TYPE_OBJECT_ID || type == CE_TYPE_UUID;
}

bool model_is_indexable_type(ce_type type)
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
bool model_same_value(const ce_value *a, const ce_value *b)
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

static decimal_number decimal_as_number(ce_decimal128 decimal)
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
bool model_equal_value(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    if (a->type == CE_TYPE_FLOAT || a->type == CE_TYPE_DOUBLE) {
        double x = a->type == CE_TYPE_FLOAT ? a->float_value : a->double_value;
        double y = b->type == CE_TYPE_FLOAT ? b->float_value : b->double_value;
        return (x != x && y != y) || x == y;
    }
    if (a->type == CE_TYPE_DECIMAL128) {
        decimal_number x = decimal_as_number(a->decimal), y = decimal_as_number(b->decimal);
        if (x.kind != y.kind) return false;
        if (x.kind == NUMBER_NAN || x.kind == NUMBER_ZERO) return true;
        if (x.negative != y.negative) return false;
        return x.kind == NUMBER_INFINITY || (x.exponent == y.exponent && x.coefficient == y.coefficient);
    }
    return model_same_value(a, b);
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
 * numbers, +infinity (decimal_as_number reduced the coefficients). */
static int compare_decimals(ce_decimal128 a, ce_decimal128 b)
{
    decimal_number x = decimal_as_number(a), y = decimal_as_number(b);
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
int model_order_value(const ce_value *a, const ce_value *b)
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

bool model_is_nested_type(ce_type type) { return type == CE_TYPE_LIST || type == CE_TYPE_DICTIONARY; }

/* ------------------------------------------------------------------------ */
/* Slots and collections                                                     */
/* ------------------------------------------------------------------------ */

/* A copy of a value in the model: the bytes copied into a blob; a nested
 * list or dictionary is a new empty one (as the engine stores it). */
model_slot model_store_value(const ce_value *value)
{
    model_slot stored = {*value, NULL, NULL};
    if (!model_is_bytes_type(value->type)) return stored;
    size_t size = value->type == CE_TYPE_STRING ? value->string.size : value->binary.size;
    const void *data = value->type == CE_TYPE_STRING ? (const void *)value->string.data : value->binary.data;
    stored.bytes = model_allocate(sizeof(model_blob) + size);
    stored.bytes->references = 1;
    stored.bytes->size = size;
    if (size) memcpy(stored.bytes->bytes, data, size);
    if (value->type == CE_TYPE_STRING) stored.value.string.data = (const char *)stored.bytes->bytes;
    else stored.value.binary.data = stored.bytes->bytes;
    return stored;
}

/* One more holder of a slot's bytes and elements. */
void model_retain_value(model_slot *stored)
{
    if (stored->bytes) stored->bytes->references++;
    if (stored->nested) stored->nested->references++;
}

static void model_release_collection(model_collection *collection);

void model_release_value(model_slot *stored)
{
    if (stored->bytes && --stored->bytes->references == 0) free(stored->bytes);
    if (stored->nested) model_release_collection(stored->nested);
    stored->bytes = NULL;
    stored->nested = NULL;
    stored->value = (ce_value){.type = CE_TYPE_NULL};
}

static void model_release_collection(model_collection *collection)
{
    if (--collection->references) return;
    for (size_t i = 0; i < collection->count; i++) {
        model_release_value(&collection->elements[i]);
        if (collection->keys) model_release_value(&collection->keys[i]);
    }
    free(collection->elements);
    free(collection->keys);
    free(collection);
}

size_t model_collection_count(const model_collection *collection) { return collection ? collection->count : 0; }

/* The collection in *slot, made this holder's own (created when empty,
 * copied when shared) so that it can change. */
model_collection *model_writable_collection(model_collection **slot)
{
    model_collection *shared = *slot;
    if (shared && shared->references == 1) return shared;
    model_collection *own = model_allocate(sizeof *own);
    own->references = 1;
    if (shared) {
        own->count = own->capacity = shared->count;
        own->elements = model_allocate(shared->count * sizeof *own->elements);
        if (shared->count) memcpy(own->elements, shared->elements, shared->count * sizeof *own->elements);
        if (shared->keys) {
            own->keys = model_allocate(shared->count * sizeof *own->keys);
            if (shared->count) memcpy(own->keys, shared->keys, shared->count * sizeof *own->keys);
        }
        for (size_t i = 0; i < own->count; i++) {
            model_retain_value(&own->elements[i]);
            if (own->keys) model_retain_value(&own->keys[i]);
        }
        shared->references--;
    }
    *slot = own;
    return own;
}

/* Inserts an element (and its key, for a dictionary) the collection takes over. */
void model_collection_insert_at(model_collection *collection, size_t index, model_slot element, const model_slot *key)
{
    if (collection->count == collection->capacity) {
        collection->capacity = collection->capacity ? 2 * collection->capacity : 8;
        collection->elements = model_grow(collection->elements, collection->capacity * sizeof *collection->elements);
        if (key || collection->keys)
            collection->keys = model_grow(collection->keys, collection->capacity * sizeof *collection->keys);
    } else if (key && !collection->keys) {
        collection->keys = model_allocate(collection->capacity * sizeof *collection->keys);
    }
    size_t after = collection->count - index;
    memmove(&collection->elements[index + 1], &collection->elements[index], after * sizeof *collection->elements);
    collection->elements[index] = element;
    if (collection->keys) {
        memmove(&collection->keys[index + 1], &collection->keys[index], after * sizeof *collection->keys);
        collection->keys[index] = key ? *key : (model_slot){{.type = CE_TYPE_NULL}, NULL, NULL};
    }
    collection->count++;
}

void model_collection_erase_at(model_collection *collection, size_t index)
{
    model_release_value(&collection->elements[index]);
    size_t after = collection->count - index - 1;
    memmove(&collection->elements[index], &collection->elements[index + 1], after * sizeof *collection->elements);
    if (collection->keys) {
        model_release_value(&collection->keys[index]);
        memmove(&collection->keys[index], &collection->keys[index + 1], after * sizeof *collection->keys);
    }
    collection->count--;
}

/* The position of a dictionary key, or where it would go. */
size_t model_key_position(const model_collection *collection, const char *key, size_t size, bool *out_found)
{
    size_t low = 0, high = model_collection_count(collection);
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        const ce_value *at = &collection->keys[middle].value;
        if (compare_bytes_of(at->string.data, at->string.size, key, size) < 0) low = middle + 1;
        else high = middle;
    }
    *out_found = low < model_collection_count(collection) &&
                 compare_bytes_of(collection->keys[low].value.string.data, collection->keys[low].value.string.size, key,
                                  size) == 0;
    return low;
}

/* The first position of a set whose element is not below `value`. */
size_t model_set_position(const model_collection *collection, const ce_value *value, bool *out_found)
{
    size_t low = 0, high = model_collection_count(collection);
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (model_order_value(&collection->elements[middle].value, value) < 0) low = middle + 1;
        else high = middle;
    }
    *out_found = low < model_collection_count(collection) && model_order_value(&collection->elements[low].value, value) == 0;
    return low;
}

ce_collection_type model_kind_of_nested_value(ce_type type)
{
    return type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY;
}

/* Where ce_collection_find finds `value` in the model: a set by its order
 * (the lower bound, when found), a list or dictionary at the first element
 * of the same type that equals it as the engine's lookups compare (nested
 * collections never). */
bool model_find(ce_collection_type kind, const model_collection *collection, const ce_value *value,
                size_t *out_index)
{
    bool found;
    if (kind == CE_COLLECTION_SET) {
        *out_index = model_set_position(collection, value, &found);
        return found;
    }
    for (size_t i = 0; i < model_collection_count(collection); i++) {
        const ce_value *element = &collection->elements[i].value;
        if (element->type == value->type && !model_is_nested_type(value->type) && model_equal_value(element, value)) {
            *out_index = i;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* One collection on its own                                                 */
/* ------------------------------------------------------------------------ */

/* What a test keeps for one list, set or dictionary: the same collections
 * as the store's, held by a pointer of its own (NULL: empty). */

void model_list_insert(model_collection **collection, size_t index, const ce_value *value)
{
    model_collection_insert_at(model_writable_collection(collection), index, model_store_value(value), NULL);
}

/* The new value is copied before the old one is released: it may be the
 * old one (an element of the model written back). */
void model_list_set(model_collection **collection, size_t index, const ce_value *value)
{
    model_collection *own = model_writable_collection(collection);
    model_slot stored = model_store_value(value);
    model_release_value(&own->elements[index]);
    own->elements[index] = stored;
}

void model_list_erase(model_collection **collection, size_t index)
{
    model_collection_erase_at(model_writable_collection(collection), index);
}

void model_list_move(model_collection **collection, size_t from, size_t to)
{
    model_collection *own = model_writable_collection(collection);
    model_slot moved = own->elements[from];
    model_retain_value(&moved); /* model_collection_erase_at releases it */
    model_collection_erase_at(own, from);
    model_collection_insert_at(own, to, moved, NULL);
}

void model_list_swap(model_collection **collection, size_t a, size_t b)
{
    model_collection *own = model_writable_collection(collection);
    model_slot held = own->elements[a];
    own->elements[a] = own->elements[b];
    own->elements[b] = held;
}

bool model_set_insert(model_collection **collection, const ce_value *value)
{
    bool found;
    size_t position = model_set_position(*collection, value, &found);
    if (!found) model_collection_insert_at(model_writable_collection(collection), position, model_store_value(value), NULL);
    return !found;
}

bool model_set_erase(model_collection **collection, const ce_value *value)
{
    bool found;
    size_t position = model_set_position(*collection, value, &found);
    if (found) model_collection_erase_at(model_writable_collection(collection), position);
    return found;
}

void model_dictionary_set(model_collection **collection, const char *key, size_t size, const ce_value *value)
{
    bool found;
    size_t position = model_key_position(*collection, key, size, &found);
    if (found) {
        model_list_set(collection, position, value);
        return;
    }
    ce_value key_value = {.type = CE_TYPE_STRING, .string = {key, size}};
    model_slot stored_key = model_store_value(&key_value);
    model_collection_insert_at(model_writable_collection(collection), position, model_store_value(value), &stored_key);
}

bool model_dictionary_erase(model_collection **collection, const char *key, size_t size)
{
    bool found;
    size_t position = model_key_position(*collection, key, size, &found);
    if (found) model_collection_erase_at(model_writable_collection(collection), position);
    return found;
}

const ce_value *model_dictionary_get(const model_collection *collection, const char *key, size_t size)
{
    bool found;
    size_t position = model_key_position(collection, key, size, &found);
    return found ? &collection->elements[position].value : NULL;
}

void model_collection_clear(model_collection **collection)
{
    if (!model_collection_count(*collection)) return;
    model_collection *own = model_writable_collection(collection);
    while (own->count) model_collection_erase_at(own, own->count - 1);
}

model_collection *model_collection_share(model_collection *collection)
{
    if (collection) collection->references++;
    return collection;
}

void model_collection_free(model_collection **collection)
{
    if (*collection) model_release_collection(*collection);
    *collection = NULL;
}

/* ------------------------------------------------------------------------ */
/* Tables and objects                                                        */
/* ------------------------------------------------------------------------ */

model_slot *model_value_at(const model_table *table, size_t position, size_t column)
{
    return &table->values[position * table->property_count + column];
}

static void free_table(model_table *table)
{
    for (size_t i = 0; i < table->object_count * table->property_count; i++) model_release_value(&table->values[i]);
    free(table->values);
    free(table->keys);
    free(table->properties);
    table->values = NULL;
    table->keys = NULL;
    table->properties = NULL;
    table->object_count = table->object_capacity = table->property_count = 0;
}

void model_free(model *state)
{
    for (size_t t = 0; t < state->table_count; t++) free_table(&state->tables[t]);
    free(state->tables);
    memset(state, 0, sizeof *state);
}

/* A copy that shares bytes and collections with the original (collections
 * are copied when one side changes them). */
void model_copy(model *out, const model *in)
{
    *out = *in;
    out->tables = model_allocate(in->table_count * sizeof *out->tables);
    for (size_t t = 0; t < in->table_count; t++) {
        const model_table *from = &in->tables[t];
        model_table *to = &out->tables[t];
        *to = *from;
        to->properties = model_allocate(from->property_count * sizeof *to->properties);
        if (from->property_count) memcpy(to->properties, from->properties, from->property_count * sizeof *to->properties);
        to->object_capacity = from->object_count;
        to->keys = model_allocate(from->object_count * sizeof *to->keys);
        if (from->object_count) memcpy(to->keys, from->keys, from->object_count * sizeof *to->keys);
        size_t values = from->object_count * from->property_count;
        to->values = model_allocate(values * sizeof *to->values);
        for (size_t i = 0; i < values; i++) {
            to->values[i] = from->values[i];
            model_retain_value(&to->values[i]);
        }
    }
}

model_table *model_live_table(const model *state, ce_table_key key)
{
    if (key >= state->table_count || state->tables[key].removed) return NULL;
    return &state->tables[key];
}

const model_property *model_live_property(const model_table *table, ce_column_key column)
{
    if (!table || column >= table->property_count || table->properties[column].removed) return NULL;
    return &table->properties[column];
}

/* A property of one value (not a collection, not backlinks). */
bool model_holds_one_value(const model_property *property)
{
    return property->collection == CE_COLLECTION_NONE && !property->backlink;
}

/* A live property whose values may link: links, collections of links, mixed. */
bool model_holds_links(const model_property *property)
{
    return !property->removed && !property->backlink && (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED);
}

model_kind model_kind_of_property(const model_property *property)
{
    return (model_kind){property->type, property->nullable || property->type == CE_TYPE_MIXED, property->link_target,
                          property->collection == CE_COLLECTION_SET};
}

const model_kind model_nested_kind = {CE_TYPE_MIXED, true, 0, false};

/* The primary-key column, or -1. */
long model_primary_key_of(const model_table *table)
{
    if (!table) return -1;
    for (size_t p = 0; p < table->property_count; p++)
        if (!table->properties[p].removed && table->properties[p].primary_key) return (long)p;
    return -1;
}

/* The position of an object, or -1. */
long model_position_of(const model_table *table, ce_object_key key)
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
long model_position_of_primary_key(const model_table *table, const ce_value *value)
{
    long column = model_primary_key_of(table);
    if (column < 0) return -1;
    for (size_t i = 0; i < table->object_count; i++)
        if (model_same_value(&model_value_at(table, i, (size_t)column)->value, value)) return (long)i;
    return -1;
}

/* The position of the first object (in key order) whose `column` equals
 * `value` as the engine's lookups compare, or -1. */
long model_first_position_equal(const model_table *table, size_t column, const ce_value *value)
{
    for (size_t i = 0; i < table->object_count; i++)
        if (model_equal_value(&model_value_at(table, i, column)->value, value)) return (long)i;
    return -1;
}

size_t model_total_objects(const model *state)
{
    size_t total = 0;
    for (size_t t = 0; t < state->table_count; t++) total += state->tables[t].object_count;
    return total;
}

const model_table *model_table_named(const model *state, const char *name)
{
    for (size_t t = 0; t < state->table_count; t++)
        if (!state->tables[t].removed && strcmp(state->tables[t].name, name) == 0) return &state->tables[t];
    return NULL;
}

long model_property_named(const model_table *table, const char *name)
{
    for (size_t p = 0; p < table->property_count; p++)
        if (!table->properties[p].removed && strcmp(table->properties[p].name, name) == 0) return (long)p;
    return -1;
}

/* What ce_property_find gives for a name: the last live property of that
 * name. Only backlink names can repeat ("@links.a.b.c" is the backlinks of
 * a.b.c and of a.b's property c). */
long model_property_found_by_name(const model_table *table, const char *name)
{
    long found = -1;
    for (size_t p = 0; p < table->property_count; p++)
        if (!table->properties[p].removed && strcmp(table->properties[p].name, name) == 0) found = (long)p;
    return found;
}

void model_add_table(model *state, const char *name, bool embedded)
{
    state->tables = model_grow(state->tables, (state->table_count + 1) * sizeof *state->tables);
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
    if (property->removed || !model_holds_one_value(property) || !model_is_scalar_type(property->type))
        return (ce_value){.type = CE_TYPE_NULL};
    return default_value(property->type, property->nullable);
}

/* Re-lays the rows for one more property, which every object gets with its
 * initial value. */
static void model_append_property(model_table *table, const model_property *definition)
{
    size_t old_count = table->property_count, new_count = old_count + 1;
    model_property *properties = model_allocate(new_count * sizeof *properties);
    if (old_count) memcpy(properties, table->properties, old_count * sizeof *properties);
    properties[old_count] = *definition;
    model_slot *values = model_allocate(table->object_capacity * new_count * sizeof *values + sizeof *values);
    ce_value initial = initial_value(definition);
    for (size_t i = 0; i < table->object_count; i++) {
        if (old_count) memcpy(&values[i * new_count], &table->values[i * old_count], old_count * sizeof *values);
        values[i * new_count + old_count] = model_store_value(&initial);
    }
    free(table->properties);
    free(table->values);
    table->properties = properties;
    table->values = values;
    table->property_count = new_count;
}

void model_add_property(model_table *table, const ce_property_info *info)
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
void model_ensure_backlink(model *state, ce_table_key target, ce_table_key origin_table, size_t origin_column)
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

void model_remove_property(model_table *table, size_t column)
{
    for (size_t i = 0; i < table->object_count; i++) model_release_value(model_value_at(table, i, column));
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
void model_create(model_table *table, ce_object_key key, const ce_value *primary_key, const ce_value *values)
{
    if (table->object_count == table->object_capacity) {
        size_t capacity = table->object_capacity ? 2 * table->object_capacity : 16;
        table->keys = model_grow(table->keys, capacity * sizeof *table->keys);
        table->values = model_grow(table->values, (capacity * table->property_count + 1) * sizeof *table->values);
        table->object_capacity = capacity;
    }
    size_t position = table->object_count++;
    table->keys[position] = key;
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        ce_value initial = values && !property->removed && model_holds_one_value(property) ? values[p] : initial_value(property);
        bool given_key = property->primary_key && !property->removed && !values;
        *model_value_at(table, position, p) = model_store_value(given_key ? primary_key : &initial);
    }
    table->next_key = key + 1;
}

/* Removes an object's row (nothing else: see model_delete_object). */
void model_delete(model_table *table, size_t position)
{
    for (size_t p = 0; p < table->property_count; p++) model_release_value(model_value_at(table, position, p));
    size_t after = table->object_count - position - 1;
    memmove(&table->keys[position], &table->keys[position + 1], after * sizeof *table->keys);
    memmove(model_value_at(table, position, 0), model_value_at(table, position + 1, 0),
            after * table->property_count * sizeof *table->values);
    table->object_count--;
}

/* A table that a link property of another table targets cannot go. */
bool model_table_is_link_target(const model *state, ce_table_key key)
{
    for (size_t t = 0; t < state->table_count; t++) {
        const model_table *other = &state->tables[t];
        if (t == key || other->removed) continue;
        for (size_t p = 0; p < other->property_count; p++)
            if (model_holds_links(&other->properties[p]) && other->properties[p].type == CE_TYPE_LINK &&
                other->properties[p].link_target == key)
                return true;
    }
    return false;
}

/* A new object's links need their targets' backlink properties (a mixed
 * property's made on its first link into a table), in column order. */
void model_note_links(model *state, ce_table_key key, const ce_value *values, size_t count)
{
    for (size_t p = 0; p < count; p++) {
        const model_property *property = &state->tables[key].properties[p];
        if (model_holds_links(property) && model_holds_one_value(property) && values[p].type == CE_TYPE_LINK)
            model_ensure_backlink(state, values[p].link.table, key, p);
    }
}

/* ------------------------------------------------------------------------ */
/* Links, cascades and backlinks                                             */
/* ------------------------------------------------------------------------ */

void model_link_vector_push(model_link_vector *vector, ce_link link)
{
    if (vector->count == vector->capacity) {
        vector->capacity = vector->capacity ? 2 * vector->capacity : 8;
        vector->items = model_grow(vector->items, vector->capacity * sizeof *vector->items);
    }
    vector->items[vector->count++] = link;
}

static bool is_link_to(const model_slot *stored, ce_link target)
{
    return stored->value.type == CE_TYPE_LINK && stored->value.link.table == target.table &&
           stored->value.link.key == target.key;
}

/* How many links to `target` a collection holds, nested ones included. */
size_t model_collection_links_to(const model_collection *collection, ce_link target)
{
    size_t links = 0;
    for (size_t i = 0; i < model_collection_count(collection); i++) {
        const model_slot *element = &collection->elements[i];
        if (is_link_to(element, target)) links++;
        else if (element->nested) links += model_collection_links_to(element->nested, target);
    }
    return links;
}

/* How many links to `target` a slot holds (a link, a mixed value, a collection). */
size_t model_slot_links_to(const model_slot *slot, ce_link target)
{
    return is_link_to(slot, target) ? 1 : model_collection_links_to(slot->nested, target);
}

/* The links held directly by a slot of a link property (to-one or a
 * collection of links): the embedded objects it owns, when its target is
 * an embedded table. */
static void owned_links(const model *state, const model_property *property, const model_slot *slot, model_link_vector *out)
{
    if (property->type != CE_TYPE_LINK || property->backlink || !state->tables[property->link_target].embedded) return;
    if (slot->value.type == CE_TYPE_LINK) model_link_vector_push(out, slot->value.link);
    for (size_t i = 0; i < model_collection_count(slot->nested); i++)
        if (slot->nested->elements[i].value.type == CE_TYPE_LINK) model_link_vector_push(out, slot->nested->elements[i].value.link);
}

/* Every link to `target` goes: lists and sets drop it (each occurrence),
 * dictionaries keep the key with null; in nested collections alike. */
static void purge_collection(model_collection **slot, bool dictionary, ce_link target)
{
    if (!model_collection_links_to(*slot, target)) return;
    model_collection *collection = model_writable_collection(slot);
    for (size_t i = collection->count; i-- > 0;) {
        model_slot *element = &collection->elements[i];
        if (is_link_to(element, target)) {
            if (dictionary) model_release_value(element);
            else model_collection_erase_at(collection, i);
        } else if (model_is_nested_type(element->value.type)) {
            purge_collection(&element->nested, element->value.type == CE_TYPE_DICTIONARY, target);
        }
    }
}

/* A to-one link or a mixed value to `target` becomes null. */
static void purge_slot(model_slot *slot, const model_property *property, ce_link target)
{
    if (is_link_to(slot, target)) {
        model_release_value(slot);
        return;
    }
    bool dictionary = property->collection == CE_COLLECTION_DICTIONARY ||
                      (property->collection == CE_COLLECTION_NONE && slot->value.type == CE_TYPE_DICTIONARY);
    if (slot->nested) purge_collection(&slot->nested, dictionary, target);
}

/* Deletes what the dropped links of an embedded table's parent owned. */
void model_delete_owned(model *state, const model_link_vector *owned)
{
    for (size_t i = 0; i < owned->count; i++) model_delete_object(state, owned->items[i].table, owned->items[i].key);
}

/* Deletes an object as the engine does: the embedded objects it owns go
 * with it (recursively), every link into it goes (links.c). The links into
 * an object are found through the backlink properties of its table. */
void model_delete_object(model *state, ce_table_key key, ce_object_key object)
{
    model_table *table = &state->tables[key];
    long position = model_position_of(table, object);
    if (position < 0) return; /* deleted already, with its parent */
    model_link_vector owned = {0};
    for (size_t p = 0; p < table->property_count; p++)
        if (model_holds_links(&table->properties[p]))
            owned_links(state, &table->properties[p], model_value_at(table, (size_t)position, p), &owned);
    model_delete(table, (size_t)position);
    ce_link target = {key, object};
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *backlinks = &table->properties[p];
        if (backlinks->removed || !backlinks->backlink) continue;
        model_table *origin = &state->tables[backlinks->link_target];
        const model_property *property = &origin->properties[backlinks->origin_column];
        for (size_t i = 0; i < origin->object_count; i++)
            purge_slot(model_value_at(origin, i, backlinks->origin_column), property, target);
    }
    model_delete_owned(state, &owned);
    free(owned.items);
}

/* Writes a property of one value: a link to an embedded object that goes
 * deletes that object, a new link needs the target's backlink property. */
void model_set_value(model *state, ce_table_key key, size_t position, size_t column, const ce_value *value)
{
    model_table *table = &state->tables[key];
    const model_property *property = &table->properties[column];
    model_slot *slot = model_value_at(table, position, column);
    if (property->type == CE_TYPE_LINK && model_same_value(&slot->value, value)) return; /* the same link: nothing changes */
    model_link_vector owned = {0};
    owned_links(state, property, slot, &owned);
    /* The new value is copied before the old one is released: it may be
     * the old one (a value copied from the model is written back). */
    model_slot stored = model_store_value(value);
    model_release_value(slot);
    *slot = stored;
    if (value->type == CE_TYPE_LINK) model_ensure_backlink(state, value->link.table, key, column);
    model_delete_owned(state, &owned);
    free(owned.items);
}

/* Empties a link property's slots (before it is removed): the embedded
 * objects it owned are deleted, its backlink properties removed. */
void model_clear_link_property(model *state, ce_table_key key, size_t column)
{
    model_table *table = &state->tables[key];
    size_t count = table->object_count;
    ce_object_key *objects = model_allocate(count * sizeof *objects);
    if (count) memcpy(objects, table->keys, count * sizeof *objects);
    for (size_t i = 0; i < count; i++) {
        long position = model_position_of(table, objects[i]);
        if (position < 0) continue; /* deleted as an embedded object of an earlier one */
        model_link_vector owned = {0};
        owned_links(state, &table->properties[column], model_value_at(table, (size_t)position, column), &owned);
        model_release_value(model_value_at(table, (size_t)position, column));
        model_delete_owned(state, &owned);
        free(owned.items);
    }
    free(objects);
    model_remove_backlinks(state, key, column);
}

/* Every object of a table deleted as ce_object_delete would (the embedded
 * objects they own, links into them), then the table's backlink
 * properties elsewhere. */
void model_remove_table_with_links(model *state, ce_table_key key)
{
    model_table *table = &state->tables[key];
    while (table->object_count) model_delete_object(state, key, table->keys[0]);
    for (size_t p = 0; p < table->property_count; p++)
        if (model_holds_links(&table->properties[p])) model_remove_backlinks(state, key, p);
    model_remove_table(table);
}

/* The origins of the links into an object from origin_table.origin_column,
 * in key order, one per link. */
size_t model_backlinks(const model *state, ce_link target, ce_table_key origin_table, size_t origin_column,
                       ce_object_key *origins, size_t capacity)
{
    const model_table *origin = model_live_table(state, origin_table);
    if (!origin || origin_column >= origin->property_count || !model_holds_links(&origin->properties[origin_column])) return 0;
    size_t count = 0;
    for (size_t i = 0; i < origin->object_count; i++) {
        size_t links = model_slot_links_to(model_value_at(origin, i, origin_column), target);
        for (size_t k = 0; k < links; k++, count++)
            if (count < capacity) origins[count] = origin->keys[i];
    }
    return count;
}

/* The links of a typed collection of links to an embedded table: what an
 * element it drops owned. */
bool model_owns_embedded(const model *state, const model_kind *kind)
{
    return kind->type == CE_TYPE_LINK && state->tables[kind->link_target].embedded;
}

/* How many embedded objects lie from a top-level object down to this one
 * (0 for a top-level object; counted up to MODEL_MAX_EMBEDDING_DEPTH): a
 * parent at that depth takes no new embedded object. An embedded object's
 * parent is the one object that links to it. */
unsigned model_embedding_depth(const model *state, ce_table_key key, ce_object_key object)
{
    unsigned levels = 0;
    while (state->tables[key].embedded && levels < MODEL_MAX_EMBEDDING_DEPTH) {
        levels++;
        const model_table *table = &state->tables[key];
        ce_link child = {key, object};
        bool found = false;
        for (size_t p = 0; p < table->property_count && !found; p++) {
            const model_property *backlinks = &table->properties[p];
            if (backlinks->removed || !backlinks->backlink) continue;
            const model_table *origin = &state->tables[backlinks->link_target];
            for (size_t i = 0; i < origin->object_count && !found; i++)
                if (model_slot_links_to(model_value_at(origin, i, backlinks->origin_column), child)) {
                    key = backlinks->link_target;
                    object = origin->keys[i];
                    found = true;
                }
        }
        if (!found) break;
    }
    return levels;
}
