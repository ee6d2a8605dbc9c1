/*
 * query.c — queries: binding a parsed predicate to a table, evaluating it
 * leaf by leaf over column arrays, results (sort, distinct, limit) and
 * aggregates; the public API of cengine.h's "Queries" section.
 *
 * Owns: the bound query tree (property paths resolved to columns, constants
 * converted to each property's type, a kernel chosen per comparison), the
 * evaluation of that tree as bit masks over the objects of one cluster leaf
 * (tight loops over bit-packed integers and doubles, per-leaf bounds from a
 * node's width, strings read in place), index lookups for == and IN on
 * indexed properties, results as a lazy view re-evaluated when the
 * transaction's stamp changes, sorting, distinct, limits and aggregates, the
 * string folding of [c] and [d], and every bind error's message (position,
 * token, table and property).
 * Never: parses text (parse.c), reads the schema or table nodes itself
 * (table.h), interprets a column's nodes beyond the views column.h gives,
 * changes data, or trusts what it reads: lengths, offsets and bits from a
 * column are checked before use (a damaged file is CE_ERR_CORRUPT).
 *
 * Links, lists, sets, dictionaries, backlinks and mixed properties are not
 * stored by the table layer yet. Their syntax parses; binding a path that
 * would go through one fails with "property 'T.p' is not a
 * link/collection", which is also the right message for a scalar property
 * used that way. A bound path is a column of the queried table; when the
 * table layer grows links, a path gains hops before its final column.
 */
#include "query.h"
#include "query_internal.h"
#include "compare.h"
#include "bind.h"
#include "aggregate.h"
#include "eval.h"
#include "gather.h"
#include "scan.h"
#include "cluster.h"
#include "column.h"
#include "db.h"
#include "buf.h"
#include "error.h"
#include "node.h"
#include "parse.h"
#include "table.h"
#include "value.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* ------------------------------------------------------------------------ */
/* Numbers across types, and decimal128                                      */
/* ------------------------------------------------------------------------ */

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* An unsigned 128-bit integer (no compiler-specific type). */
typedef struct wide {
    uint64_t low, high;
} wide;

static int wide_compare(wide a, wide b)
{
    if (a.high != b.high) return a.high < b.high ? -1 : 1;
    if (a.low != b.low) return a.low < b.low ? -1 : 1;
    return 0;
}

static wide wide_add_small(wide a, uint64_t b)
{
    wide sum = {a.low + b, a.high};
    if (sum.low < a.low) sum.high++;
    return sum;
}

/* a * 10 (the callers keep it below 2^128). */
static wide wide_times_ten(wide a)
{
    wide eight = {a.low << 3, (a.high << 3) | (a.low >> 61)};
    wide two = {a.low << 1, (a.high << 1) | (a.low >> 63)};
    wide sum = {eight.low + two.low, eight.high + two.high};
    if (sum.low < eight.low) sum.high++;
    return sum;
}

static wide wide_divide_small(wide a, uint32_t divisor, uint32_t *out_remainder)
{
    uint32_t pieces[4] = {(uint32_t)(a.high >> 32), (uint32_t)a.high, (uint32_t)(a.low >> 32), (uint32_t)a.low};
    uint64_t remainder = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t current = (remainder << 32) | pieces[i];
        pieces[i] = (uint32_t)(current / divisor);
        remainder = current % divisor;
    }
    *out_remainder = (uint32_t)remainder;
    return (wide){((uint64_t)pieces[2] << 32) | pieces[3], ((uint64_t)pieces[0] << 32) | pieces[1]};
}

static bool wide_is_zero(wide a) { return a.low == 0 && a.high == 0; }

#define DECIMAL_BIAS 6176
#define DECIMAL_MAX_BIASED 12287
#define DECIMAL_DIGITS 34
/* 10^34 */
static const wide decimal_limit = {0x378D8E6400000000ull, 0x0001ED09BEAD87C0ull};

static ce_decimal128 decimal_special(bool negative, bool nan)
{
    ce_decimal128 d = {0, (nan ? 0x7C00000000000000ull : 0x7800000000000000ull) | (negative ? 1ull << 63 : 0)};
    return d;
}

/* A decimal from a coefficient below 10^34 and an exponent, brought into
 * the representable range (rounding half to even when digits are lost). */
static ce_decimal128 decimal_make(bool negative, wide coefficient, int64_t exponent)
{
    if (wide_is_zero(coefficient)) {
        if (exponent < -DECIMAL_BIAS) exponent = -DECIMAL_BIAS;
        if (exponent > DECIMAL_MAX_BIASED - DECIMAL_BIAS) exponent = DECIMAL_MAX_BIASED - DECIMAL_BIAS;
    }
    while (exponent > DECIMAL_MAX_BIASED - DECIMAL_BIAS) {
        wide larger = wide_times_ten(coefficient);
        if (wide_compare(larger, decimal_limit) >= 0) return decimal_special(negative, false);
        coefficient = larger;
        exponent--;
    }
    bool sticky = false;
    uint32_t last = 0;
    bool dropped = false;
    while (exponent < -DECIMAL_BIAS) {
        if (dropped && last) sticky = true;
        coefficient = wide_divide_small(coefficient, 10, &last);
        dropped = true;
        exponent++;
    }
    if (dropped && (last > 5 || (last == 5 && (sticky || (coefficient.low & 1))))) coefficient = wide_add_small(coefficient, 1);
    uint64_t biased = (uint64_t)(exponent + DECIMAL_BIAS);
    ce_decimal128 d = {coefficient.low, (negative ? 1ull << 63 : 0) | (biased << 49) | coefficient.high};
    return d;
}

/* A decimal from text: [sign] digits [. digits] [e [sign] digits], or
 * inf, infinity, nan. Rounds to 34 digits, half to even. */
bool decimal_from_text(const char *text, ce_decimal128 *out)
{
    const char *c = text;
    bool negative = false;
    if (*c == '-' || *c == '+') negative = *c++ == '-';
    if (strcasecmp(c, "inf") == 0 || strcasecmp(c, "infinity") == 0) {
        *out = decimal_special(negative, false);
        return true;
    }
    if (strcasecmp(c, "nan") == 0) {
        *out = decimal_special(false, true);
        return true;
    }
    wide coefficient = {0, 0};
    int digits = 0, round_digit = -1;
    bool sticky = false, seen_point = false, any_digit = false;
    int64_t adjust = 0;
    for (; *c; c++) {
        if (*c >= '0' && *c <= '9') {
            unsigned digit = (unsigned)(*c - '0');
            any_digit = true;
            if (digits == 0 && digit == 0) {
                if (seen_point) adjust--;
            } else if (digits < DECIMAL_DIGITS) {
                coefficient = wide_add_small(wide_times_ten(coefficient), digit);
                digits++;
                if (seen_point) adjust--;
            } else {
                if (round_digit < 0) round_digit = (int)digit;
                else if (digit) sticky = true;
                if (!seen_point) adjust++;
            }
        } else if (*c == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    if (!any_digit) return false;
    int64_t exponent = 0;
    if (*c == 'e' || *c == 'E') {
        c++;
        bool negative_exponent = false;
        if (*c == '-' || *c == '+') negative_exponent = *c++ == '-';
        if (!(*c >= '0' && *c <= '9')) return false;
        for (; *c >= '0' && *c <= '9'; c++)
            if (exponent < 1000000) exponent = exponent * 10 + (*c - '0');
        if (negative_exponent) exponent = -exponent;
    }
    if (*c) return false;
    exponent += adjust;
    if (round_digit > 5 || (round_digit == 5 && (sticky || (coefficient.low & 1)))) {
        coefficient = wide_add_small(coefficient, 1);
        if (wide_compare(coefficient, decimal_limit) == 0) {
            uint32_t remainder;
            coefficient = wide_divide_small(coefficient, 10, &remainder);
            exponent++;
        }
    }
    *out = decimal_make(negative, coefficient, exponent);
    return true;
}

ce_decimal128 decimal_from_int(int64_t value)
{
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    return decimal_make(value < 0, (wide){magnitude, 0}, 0);
}

ce_decimal128 decimal_from_double(double value)
{
    if (isnan(value)) return decimal_special(false, true);
    if (isinf(value)) return decimal_special(value < 0, false);
    pthread_once(&c_locale_once, make_c_locale);
    char text[64];
    locale_t previous = c_locale ? uselocale(c_locale) : (locale_t)0;
    snprintf(text, sizeof text, "%.17g", value);
    if (c_locale) uselocale(previous);
    ce_decimal128 result;
    if (!decimal_from_text(text, &result)) result = decimal_special(false, true);
    return result;
}

bool decimal_is_nan(ce_decimal128 d) { return ((d.high >> 58) & 0x1F) == 0x1F; }

/* ------------------------------------------------------------------------ */
/* Queries and their arguments                                               */
/* ------------------------------------------------------------------------ */

void query_core_release(query_core *core)
{
    if (!core || atomic_fetch_sub(&core->references, 1) != 1) return;
    parse_tree_free(&core->tree);
    for (size_t i = 0; i < core->argument_block_count; i++) free(core->argument_blocks[i]);
    free(core->argument_blocks);
    free(core->arguments);
    bind_query_free(&core->bound);
    free(core);
}

static bool keep_argument_bytes(query_core *core, const void *data, size_t size, const void **out)
{
    char **grown = realloc(core->argument_blocks, (core->argument_block_count + 1) * sizeof *grown);
    if (!grown) return query_out_of_memory();
    core->argument_blocks = grown;
    char *copy = malloc(size + 1);
    if (!copy) return query_out_of_memory();
    if (size) memcpy(copy, data, size);
    copy[size] = 0;
    core->argument_blocks[core->argument_block_count++] = copy;
    *out = copy;
    return true;
}

static bool check_argument_value(const ce_value *value, size_t index)
{
    switch (value->type) {
    case CE_TYPE_NULL:
    case CE_TYPE_INT:
    case CE_TYPE_BOOL:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE:
    case CE_TYPE_DECIMAL128:
    case CE_TYPE_OBJECT_ID:
    case CE_TYPE_UUID:
    case CE_TYPE_LINK: return true;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY:
        if (value->string.size && !value->string.data)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a %s of %zu bytes without data", index,
                           ce_type_name(value->type), value->string.size);
        return true;
    case CE_TYPE_TIMESTAMP:
        if (!value_timestamp_is_valid(value->timestamp))
            return error_fail(CE_ERR_INVALID_ARGUMENT,
                           "query argument %zu: the timestamp (%lld s, %d ns) is malformed: nanoseconds must lie "
                           "within +-999999999 and have the sign of seconds",
                           index, (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
        return true;
    case CE_TYPE_MIXED:
    case CE_TYPE_LIST:
    case CE_TYPE_DICTIONARY: break;
    }
    return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu has type %d, which is not a value a query compares",
                   index, (int)value->type);
}

/* A copy of a value whose bytes the core owns. */
static bool copy_argument_value(query_core *core, const ce_value *value, size_t index, ce_value *out)
{
    if (!check_argument_value(value, index)) return false;
    *out = *value;
    if (value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) {
        const void *copy;
        if (!keep_argument_bytes(core, value->string.data, value->string.size, &copy)) return false;
        if (value->type == CE_TYPE_STRING) out->string.data = copy;
        else out->binary.data = copy;
    }
    return true;
}

static bool copy_arguments(query_core *core, const ce_query_argument *arguments, size_t count)
{
    if (count && !arguments) return error_fail(CE_ERR_INVALID_ARGUMENT, "%zu query arguments were announced but none given", count);
    core->arguments = calloc(count + 1, sizeof *core->arguments);
    if (!core->arguments) return query_out_of_memory();
    core->argument_count = count;
    for (size_t i = 0; i < count; i++) {
        const ce_query_argument *argument = &arguments[i];
        ce_query_argument *copy = &core->arguments[i];
        copy->kind = argument->kind;
        if (argument->kind == CE_QUERY_ARGUMENT_VALUE) {
            if (!copy_argument_value(core, &argument->value, i, &copy->value)) return false;
        } else if (argument->kind == CE_QUERY_ARGUMENT_LIST) {
            if (argument->list_count && !argument->list)
                return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a list of %zu values without values", i,
                               argument->list_count);
            const void *values;
            if (!keep_argument_bytes(core, argument->list, argument->list_count * sizeof(ce_value), &values)) return false;
            ce_value *list = (ce_value *)values;
            for (size_t k = 0; k < argument->list_count; k++) {
                if (argument->list[k].type == CE_TYPE_NULL) continue;
                if (!copy_argument_value(core, &argument->list[k], i, &list[k])) return false;
            }
            copy->list = list;
            copy->list_count = argument->list_count;
        } else {
            return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu has an unknown kind %d", i, (int)argument->kind);
        }
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Decimal arithmetic for sums and averages                                  */
/* ------------------------------------------------------------------------ */

/* An unsigned 256-bit integer, little-endian 64-bit limbs. */
typedef struct big {
    uint64_t limbs[4];
} big;

static big big_of(wide value) { return (big){{value.low, value.high, 0, 0}}; }

static bool big_is_zero(const big *a) { return !(a->limbs[0] | a->limbs[1] | a->limbs[2] | a->limbs[3]); }

static int big_compare(const big *a, const big *b)
{
    for (int i = 3; i >= 0; i--)
        if (a->limbs[i] != b->limbs[i]) return a->limbs[i] < b->limbs[i] ? -1 : 1;
    return 0;
}

static big big_add(const big *a, const big *b)
{
    big sum;
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t partial = a->limbs[i] + carry;
        carry = partial < carry;
        sum.limbs[i] = partial + b->limbs[i];
        carry += sum.limbs[i] < partial;
    }
    return sum;
}

static big big_subtract(const big *a, const big *b) /* a >= b */
{
    big difference;
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t partial = a->limbs[i] - borrow;
        borrow = a->limbs[i] < borrow;
        difference.limbs[i] = partial - b->limbs[i];
        borrow += partial < b->limbs[i];
    }
    return difference;
}

static big big_times_ten(const big *a)
{
    big result;
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        /* a limb * 10 + carry, in 32-bit halves */
        uint64_t low = (a->limbs[i] & 0xFFFFFFFFull) * 10 + carry;
        uint64_t high = (a->limbs[i] >> 32) * 10 + (low >> 32);
        result.limbs[i] = (low & 0xFFFFFFFFull) | (high << 32);
        carry = high >> 32;
    }
    return result;
}

static big big_divide_small(const big *a, uint32_t divisor, uint32_t *out_remainder)
{
    big quotient;
    uint64_t remainder = 0;
    for (int i = 3; i >= 0; i--) {
        uint64_t high = (remainder << 32) | (a->limbs[i] >> 32);
        uint64_t q_high = high / divisor;
        remainder = high % divisor;
        uint64_t low = (remainder << 32) | (a->limbs[i] & 0xFFFFFFFFull);
        uint64_t q_low = low / divisor;
        remainder = low % divisor;
        quotient.limbs[i] = (q_high << 32) | q_low;
    }
    *out_remainder = (uint32_t)remainder;
    return quotient;
}

/* a / divisor by shift and subtract (once per average: simplicity wins). */
static big big_divide(const big *a, uint64_t divisor, bool *out_inexact)
{
    big quotient = {{0, 0, 0, 0}};
    uint64_t remainder = 0;
    for (int bit = 255; bit >= 0; bit--) {
        bool top = remainder >> 63;
        remainder = (remainder << 1) | ((a->limbs[bit / 64] >> (bit % 64)) & 1);
        if (top || remainder >= divisor) {
            remainder -= divisor;
            quotient.limbs[bit / 64] |= 1ull << (bit % 64);
        }
    }
    *out_inexact = remainder != 0;
    return quotient;
}

typedef struct decimal_value {
    int kind; /* 0 NaN, 1 infinity, 2 zero, 3 finite */
    bool negative;
    int64_t exponent;
    big coefficient;
} decimal_value;

static decimal_value decimal_unpack(ce_decimal128 d)
{
    decimal_value v = {2, (d.high >> 63) != 0, 0, {{0, 0, 0, 0}}};
    if (((d.high >> 61) & 3) == 3) {
        unsigned prefix = (unsigned)(d.high >> 58) & 0x1F;
        v.kind = prefix == 0x1F ? 0 : prefix == 0x1E ? 1 : 2;
        return v;
    }
    v.exponent = (int64_t)((d.high >> 49) & 0x3FFF) - DECIMAL_BIAS;
    wide coefficient = {d.low, d.high & ((1ull << 49) - 1)};
    if (!wide_is_zero(coefficient) && wide_compare(coefficient, decimal_limit) < 0) {
        v.kind = 3;
        v.coefficient = big_of(coefficient);
    }
    return v;
}

/* Rounds a coefficient to at most 34 digits (half to even, `sticky` when
 * nonzero digits were dropped before) and packs it. */
static ce_decimal128 decimal_pack(bool negative, big coefficient, int64_t exponent, bool sticky)
{
    big limit = big_of(decimal_limit);
    uint32_t last = 0;
    bool dropped = false;
    while (big_compare(&coefficient, &limit) >= 0) {
        if (dropped && last) sticky = true;
        coefficient = big_divide_small(&coefficient, 10, &last);
        dropped = true;
        exponent++;
    }
    if (dropped && (last > 5 || (last == 5 && (sticky || (coefficient.limbs[0] & 1))))) {
        big one = {{1, 0, 0, 0}};
        coefficient = big_add(&coefficient, &one);
        if (big_compare(&coefficient, &limit) >= 0) {
            coefficient = big_divide_small(&coefficient, 10, &last);
            exponent++;
        }
    }
    return decimal_make(negative, (wide){coefficient.limbs[0], coefficient.limbs[1]}, exponent);
}

ce_decimal128 decimal_add(ce_decimal128 x, ce_decimal128 y)
{
    decimal_value a = decimal_unpack(x), b = decimal_unpack(y);
    if (a.kind == 0 || b.kind == 0) return decimal_special(false, true);
    if (a.kind == 1 || b.kind == 1) {
        if (a.kind == 1 && b.kind == 1 && a.negative != b.negative) return decimal_special(false, true);
        return decimal_special(a.kind == 1 ? a.negative : b.negative, false);
    }
    if (a.kind == 2) return y;
    if (b.kind == 2) return x;
    if (a.exponent < b.exponent) {
        decimal_value swap = a;
        a = b;
        b = swap;
    }
    /* a has the larger exponent: give it 34 digits first (no value
     * changes), then bring b's exponent up to a's by scaling a. */
    big limit = big_of(decimal_limit);
    while (a.exponent > b.exponent) {
        big larger = big_times_ten(&a.coefficient);
        if (big_compare(&larger, &limit) >= 0) break;
        a.coefficient = larger;
        a.exponent--;
    }
    if (a.exponent - b.exponent > 36) {
        /* |b| is below a hundredth of a's last digit: the sum rounds to a. */
        return decimal_pack(a.negative, a.coefficient, a.exponent, false);
    }
    while (a.exponent > b.exponent) {
        a.coefficient = big_times_ten(&a.coefficient);
        a.exponent--;
    }
    big sum;
    bool negative;
    if (a.negative == b.negative) {
        sum = big_add(&a.coefficient, &b.coefficient);
        negative = a.negative;
    } else if (big_compare(&a.coefficient, &b.coefficient) >= 0) {
        sum = big_subtract(&a.coefficient, &b.coefficient);
        negative = a.negative;
    } else {
        sum = big_subtract(&b.coefficient, &a.coefficient);
        negative = b.negative;
    }
    if (big_is_zero(&sum)) negative = false;
    return decimal_pack(negative, sum, b.exponent, false);
}

ce_decimal128 decimal_divide_by_count(ce_decimal128 x, uint64_t count)
{
    decimal_value a = decimal_unpack(x);
    if (a.kind != 3) return x; /* NaN, infinity and zero stay what they are */
    /* Scale the coefficient to about 54 digits, so the quotient keeps 34
     * or more whatever the count (below 10^20). */
    big scaled = a.coefficient;
    int64_t exponent = a.exponent;
    big bound = big_of(decimal_limit);
    for (int i = 0; i < 20; i++) bound = big_times_ten(&bound); /* 10^54 */
    for (;;) {
        big larger = big_times_ten(&scaled);
        if (big_compare(&larger, &bound) >= 0) break;
        scaled = larger;
        exponent--;
    }
    bool inexact;
    big quotient = big_divide(&scaled, count, &inexact);
    return decimal_pack(a.negative, quotient, exponent, inexact);
}

/* ------------------------------------------------------------------------ */
/* Results: a query, then sorts, distincts and limits, evaluated lazily      */
/* ------------------------------------------------------------------------ */

typedef enum descriptor_kind { DESCRIPTOR_SORT, DESCRIPTOR_DISTINCT, DESCRIPTOR_LIMIT } descriptor_kind;

/* A key path of a sort or distinct: a node of the predicate's tree (SORT(...)
 * in the text), or a key path given through the API. */
typedef struct descriptor_key {
    int node;   /* in the core's tree, or -1 */
    char *text; /* when node is -1: owned */
    bool ascending;
} descriptor_key;

typedef struct descriptor {
    descriptor_kind kind;
    descriptor_key *keys;
    size_t key_count;
    size_t limit;
} descriptor;

/* Where a view's objects come from, before its descriptors apply. */
typedef enum source_kind {
    SOURCE_TABLE,      /* the objects of core->table that match core's predicate, in key order */
    SOURCE_COLLECTION, /* the objects a list, set or dictionary of links holds, in its order */
    SOURCE_BACKLINKS,  /* the objects of core->table whose `column` links to the owner */
    SOURCE_FILTER      /* the objects of `base` that match core's predicate, in base's order */
} source_kind;

/* A source names what it reads (an object and a property), never the keys
 * it found: every evaluation reads them again from the transaction. */
typedef struct results_source {
    source_kind kind;
    ce_table_key owner_table; /* COLLECTION: the collection's object; BACKLINKS: the linked object */
    ce_object_key owner;
    ce_column_key column; /* COLLECTION: the owner's property; BACKLINKS: the origin property of core->table */
    ce_results *base;     /* FILTER: a private copy of the view filtered */
} results_source;

struct ce_results {
    query_core *core; /* the predicate (TRUEPREDICATE for a collection or backlinks) and its table */
    results_source source;
    descriptor *descriptors;
    size_t descriptor_count;
    /* The view as last evaluated, at transaction stamp `stamp`. */
    bool evaluated;
    uint64_t stamp;
    entry *entries;
    size_t count;
    bool key_ordered;       /* entries in key order (no sort applied) */
    entry *by_key;          /* index_of on a sorted view: the entries ordered by key, */
    size_t *by_key_position; /* and their positions in the view */
    /* A count without the entries (no descriptors). */
    bool counted;
    uint64_t count_stamp;
    size_t cached_count;
};

static void descriptors_free(descriptor *descriptors, size_t count)
{
    for (size_t d = 0; d < count; d++) {
        for (size_t k = 0; k < descriptors[d].key_count; k++) free(descriptors[d].keys[k].text);
        free(descriptors[d].keys);
    }
    free(descriptors);
}

static void results_forget(ce_results *r)
{
    free(r->entries);
    free(r->by_key);
    free(r->by_key_position);
    r->entries = NULL;
    r->by_key = NULL;
    r->by_key_position = NULL;
    r->count = 0;
    r->evaluated = false;
}

void ce_results_free(ce_results *results)
{
    if (!results) return;
    results_forget(results);
    descriptors_free(results->descriptors, results->descriptor_count);
    query_core_release(results->core);
    ce_results_free(results->source.base);
    free(results);
}

ce_table_key ce_results_table(const ce_results *results) { return results ? results->core->table : 0; }

/* A new results view of the same query with the descriptors of `base` and
 * room for one more. */
static bool results_copy(const ce_results *base, ce_results **out)
{
    ce_results *r = calloc(1, sizeof *r);
    if (!r) return query_out_of_memory();
    r->descriptors = calloc(base->descriptor_count + 1, sizeof *r->descriptors);
    if (!r->descriptors) {
        free(r);
        return query_out_of_memory();
    }
    for (size_t d = 0; d < base->descriptor_count; d++) {
        const descriptor *from = &base->descriptors[d];
        descriptor *to = &r->descriptors[d];
        to->kind = from->kind;
        to->limit = from->limit;
        to->keys = calloc(from->key_count + 1, sizeof *to->keys);
        r->descriptor_count = d + 1;
        if (!to->keys) {
            ce_results_free(r);
            return query_out_of_memory();
        }
        to->key_count = from->key_count;
        for (size_t k = 0; k < from->key_count; k++) {
            to->keys[k] = from->keys[k];
            if (from->keys[k].text && !(to->keys[k].text = strdup(from->keys[k].text))) {
                to->keys[k].text = NULL;
                ce_results_free(r);
                return query_out_of_memory();
            }
        }
    }
    atomic_fetch_add(&base->core->references, 1);
    r->core = base->core;
    /* The filtered view is copied too: a view's evaluation state is its own. */
    r->source = base->source;
    r->source.base = NULL;
    if (base->source.base && !results_copy(base->source.base, &r->source.base)) {
        ce_results_free(r);
        return false;
    }
    *out = r;
    return true;
}

/* Binds a descriptor's key path to a column of the table (temporary slots
 * and descriptions go to `scratch`). */
static bool bind_descriptor_key(query_core *core, ce_txn *txn, const descriptor_key *key, bound_query *scratch,
                                bound_path *out)
{
    binder b;
    memset(&b, 0, sizeof b);
    b.core = core;
    b.txn = txn;
    b.out = scratch;
    if (!table_name_of(txn, core->table, &b.table_name)) return false;
    if (key->node >= 0) {
        b.text = core->tree.text;
        b.text_length = core->tree.text_length;
        b.subject = "Invalid predicate";
        const parse_node *node = &core->tree.nodes[key->node];
        if (node->kind == PARSE_KEY_PATH_ARGUMENT) return bind_key_path_argument(&b, node, out);
        return bind_key_path(&b, &core->tree, node, 0, false, out);
    }
    parse_tree tree;
    if (!parse_key_path(key->text, strlen(key->text), &tree)) {
        if (ce_last_error_code() != CE_ERR_INVALID_QUERY) return false;
        char reason[300];
        snprintf(reason, sizeof reason, "%s", ce_last_error_message());
        return error_fail(CE_ERR_INVALID_QUERY, "Invalid key path '%.80s': %s", key->text,
                       reason + (strncmp(reason, "Invalid predicate: ", 19) == 0 ? 19 : 0));
    }
    char subject[128];
    snprintf(subject, sizeof subject, "Invalid key path '%.80s'", key->text);
    b.text = tree.text;
    b.text_length = tree.text_length;
    b.subject = subject;
    bool ok = bind_key_path(&b, &tree, &tree.nodes[tree.root], 0, false, out);
    parse_tree_free(&tree);
    return ok;
}

/* Reads values of bound paths for entries, leaf by leaf. */
typedef struct entry_reader {
    ce_txn *txn;
    ce_table_key table;
    value_bag bag; /* a path through links: its value, read object by object */
    const space_state *space;
    size_t column_count;
    space_ref leaf_ref;
    cluster_leaf leaf;
    const bound_path *paths;
    size_t path_count;
    column_scan *scans;
    bool *opened;
    column_scratch scratch;
    char **copies; /* values that were decompressed into the scratch, copied */
    size_t copy_count, copy_capacity;
} entry_reader;

static bool reader_start(entry_reader *r, ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths,
                         size_t path_count)
{
    memset(r, 0, sizeof *r);
    r->txn = txn;
    r->table = table;
    r->space = db_txn_space(txn);
    r->column_count = column_count;
    r->paths = paths;
    r->path_count = path_count;
    r->scans = calloc(path_count + 1, sizeof *r->scans);
    r->opened = calloc(path_count + 1, sizeof *r->opened);
    if (!r->scans || !r->opened) {
        free(r->scans);
        free(r->opened);
        return query_out_of_memory();
    }
    return true;
}

static void reader_end(entry_reader *r)
{
    gather_bag_free(&r->bag);
    for (size_t i = 0; i < r->copy_count; i++) free(r->copies[i]);
    free(r->copies);
    free(r->scans);
    free(r->opened);
    column_scratch_free(&r->scratch);
}

/* The value of path p for an entry; a string or binary that had to be
 * decompressed is copied (it must outlive the next read). */
static bool reader_get(entry_reader *r, const entry *en, size_t p, ce_value *out)
{
    const bound_path *generic = &r->paths[p];
    if (!generic->local) {
        /* One value (the descriptors' checks make sure), kept as a copy. */
        gather_bag_clear(&r->bag);
        if (!gather_path(r->txn, generic, 0, r->table, en->key, &r->bag) || !gather_aggregate(generic, &r->bag)) return false;
        *out = r->bag.count ? r->bag.values[0] : (ce_value){.type = CE_TYPE_NULL};
        if (compare_is_text(out->type)) {
            const char *data;
            size_t size;
            compare_text_of(out, &data, &size);
            if (!buf_reserve((void **)&r->copies, &r->copy_capacity, r->copy_count + 1, sizeof *r->copies)) return false;
            char *copy = malloc(size + 1);
            if (!copy) return query_out_of_memory();
            if (size) memcpy(copy, data, size);
            r->copies[r->copy_count++] = copy;
            if (out->type == CE_TYPE_STRING) out->string.data = copy;
            else out->binary.data = (const uint8_t *)copy;
        }
        return true;
    }
    if (r->leaf_ref != en->leaf) {
        if (!cluster_leaf_at(r->space, en->leaf, r->column_count, &r->leaf)) return false;
        r->leaf_ref = en->leaf;
        memset(r->opened, 0, r->path_count * sizeof *r->opened);
    }
    const bound_path *path = &r->paths[p];
    if (!r->opened[p]) {
        if (!eval_open_column(r->space, &r->leaf, path->column, path->type, path->nullable, &r->scans[p])) return false;
        r->opened[p] = true;
    }
    if (en->index >= r->leaf.key_offsets.count) return eval_corrupt_leaf(&r->leaf, "an object's position lies past its end");
    const column_scan *scan = &r->scans[p];
    if (!path->size_of && (scan->type == CE_TYPE_INT || scan->type == CE_TYPE_DOUBLE)) {
        /* Numbers straight from the packed array (the common sort key). */
        if (scan->has_nulls) {
            int64_t bit = node_get(&scan->nulls, en->index);
            if (bit != 0 && bit != 1) return eval_corrupt_column(scan, en->index, "has a null bit that is neither 0 nor 1");
            if (bit) {
                *out = (ce_value){.type = CE_TYPE_NULL};
                return true;
            }
        }
        int64_t stored = node_get(&scan->values, en->index);
        if (scan->type == CE_TYPE_INT) *out = (ce_value){.type = CE_TYPE_INT, .integer = stored};
        else *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = eval_real_from_stored(false, stored)};
        return true;
    }
    if (!scan_value(r->space, scan, path, en->index, &r->scratch, out)) return false;
    if (compare_is_text(out->type) && r->scratch.buffer) {
        const char *data;
        size_t size;
        compare_text_of(out, &data, &size);
        if (size && data >= (const char *)r->scratch.buffer && data < (const char *)r->scratch.buffer + r->scratch.capacity) {
            if (!buf_reserve((void **)&r->copies, &r->copy_capacity, r->copy_count + 1, sizeof *r->copies)) return false;
            char *copy = malloc(size);
            if (!copy) return query_out_of_memory();
            memcpy(copy, data, size);
            r->copies[r->copy_count++] = copy;
            if (out->type == CE_TYPE_STRING) out->string.data = copy;
            else out->binary.data = (const uint8_t *)copy;
        }
    }
    return true;
}

/* Null first, then the order of value.h. */
static int sort_order(const ce_value *a, const ce_value *b)
{
    bool a_null = a->type == CE_TYPE_NULL, b_null = b->type == CE_TYPE_NULL;
    if (a_null || b_null) return a_null == b_null ? 0 : a_null ? -1 : 1;
    return value_compare(a, b);
}

typedef struct row_order {
    const ce_value *values; /* row r, key k: values[r * key_count + k] */
    size_t key_count;
    const bool *ascending;
} row_order;

static int compare_rows(const row_order *o, size_t a, size_t b)
{
    for (size_t k = 0; k < o->key_count; k++) {
        int order = sort_order(&o->values[a * o->key_count + k], &o->values[b * o->key_count + k]);
        if (order) return o->ascending[k] ? order : -order;
    }
    return 0;
}

/* A stable merge sort of row numbers. */
static void merge_sort(const row_order *o, size_t *rows, size_t *spare, size_t count)
{
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t start = 0; start < count; start += 2 * width) {
            size_t middle = start + width < count ? start + width : count;
            size_t end = start + 2 * width < count ? start + 2 * width : count;
            size_t i = start, j = middle, k = start;
            while (i < middle && j < end) spare[k++] = compare_rows(o, rows[j], rows[i]) < 0 ? rows[j++] : rows[i++];
            while (i < middle) spare[k++] = rows[i++];
            while (j < end) spare[k++] = rows[j++];
        }
        memcpy(rows, spare, count * sizeof *rows);
    }
}

/* The values of the key paths for every entry (row-major). */
static bool read_rows(entry_reader *reader, const entry *entries, size_t count, ce_value **out_values)
{
    size_t keys = reader->path_count;
    ce_value *values = malloc((count * keys + 1) * sizeof *values);
    if (!values) return query_out_of_memory();
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < keys; k++)
            if (!reader_get(reader, &entries[i], k, &values[i * keys + k])) {
                free(values);
                return false;
            }
    *out_values = values;
    return true;
}

/*
 * Sorting by numbers is a stable LSD radix sort of 64-bit keys that order
 * as the values do: ints with the sign bit flipped, floats and doubles by
 * their bits made monotonic (NaN first, -0.0 as 0.0), bools as 0 and 1,
 * timestamps as two passes (nanoseconds, then seconds). Nulls come first
 * (a stable partition after the passes). Descending sorts the complemented
 * keys and puts nulls last: exactly the reverse order, equal values still
 * in their previous order.
 */
typedef struct radix_item {
    uint64_t key;
    size_t row;
} radix_item;

static bool radix_sortable(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE ||
           type == CE_TYPE_TIMESTAMP;
}

static uint64_t double_key(double value)
{
    if (value != value) return 0; /* NaN: before every number */
    if (value == 0) value = 0.0;  /* -0.0 == 0.0 */
    uint64_t bits;
    memcpy(&bits, &value, 8);
    return (bits >> 63) ? ~bits : bits | (1ull << 63);
}

/* The radix key of a non-null value; `pass` 0 or 1 for timestamps. */
static uint64_t radix_key(const ce_value *v, int pass)
{
    switch (v->type) {
    case CE_TYPE_INT: return (uint64_t)v->integer ^ (1ull << 63);
    case CE_TYPE_BOOL: return v->boolean ? 1 : 0;
    case CE_TYPE_FLOAT: return double_key(v->float_value);
    case CE_TYPE_DOUBLE: return double_key(v->double_value);
    case CE_TYPE_TIMESTAMP:
        return pass == 0 ? (uint64_t)(int64_t)v->timestamp.nanoseconds ^ (1ull << 63)
                         : (uint64_t)v->timestamp.seconds ^ (1ull << 63);
    default: return 0;
    }
}

/* A stable sort of items by key, 8 bits a pass; passes where every item
 * has the same digit are skipped. */
static void radix_sort(radix_item *items, radix_item *spare, size_t count)
{
    radix_item *from = items, *to = spare;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t counts[256] = {0};
        for (size_t i = 0; i < count; i++) counts[(from[i].key >> shift) & 255]++;
        if (counts[(from[0].key >> shift) & 255] == count) continue;
        size_t position = 0;
        for (int digit = 0; digit < 256; digit++) {
            size_t here = counts[digit];
            counts[digit] = position;
            position += here;
        }
        for (size_t i = 0; i < count; i++) to[counts[(from[i].key >> shift) & 255]++] = from[i];
        radix_item *swap = from;
        from = to;
        to = swap;
    }
    if (from != items) memcpy(items, from, count * sizeof *items);
}

/* Stably sorts `order` (row numbers) by one key whose values, by row, are
 * in values[row * stride + k]. */
static bool sort_by_key(size_t *order, size_t count, const ce_value *values, size_t stride, size_t k, bool ascending,
                        ce_type type)
{
    if (radix_sortable(type)) {
        radix_item *items = malloc(count * sizeof *items), *spare = malloc(count * sizeof *spare);
        if (!items || !spare) {
            free(items);
            free(spare);
            return query_out_of_memory();
        }
        for (int pass = 0; pass < (type == CE_TYPE_TIMESTAMP ? 2 : 1); pass++) {
            for (size_t i = 0; i < count; i++) {
                const ce_value *v = &values[order[i] * stride + k];
                uint64_t key = v->type == CE_TYPE_NULL ? 0 : radix_key(v, pass);
                items[i] = (radix_item){ascending ? key : ~key, order[i]};
            }
            radix_sort(items, spare, count);
            for (size_t i = 0; i < count; i++) order[i] = items[i].row;
        }
        /* Nulls first (ascending) or last (descending), each side in order. */
        size_t nulls = 0, placed = 0;
        for (size_t i = 0; i < count; i++) nulls += values[order[i] * stride + k].type == CE_TYPE_NULL;
        if (nulls) {
            size_t null_at = ascending ? 0 : count - nulls, value_at = ascending ? nulls : 0;
            for (size_t i = 0; i < count; i++) spare[placed++].row = order[i];
            for (size_t i = 0; i < count; i++) {
                size_t row = spare[i].row;
                if (values[row * stride + k].type == CE_TYPE_NULL) order[null_at++] = row;
                else order[value_at++] = row;
            }
        }
        free(items);
        free(spare);
        return true;
    }
    size_t *spare = malloc(count * sizeof *spare);
    if (!spare) return query_out_of_memory();
    /* A merge sort by this one key: compare_rows reads values[row]. */
    row_order o = {values, 1, &ascending};
    if (stride == 1) {
        merge_sort(&o, order, spare, count);
    } else {
        ce_value *column = malloc(count * sizeof *column);
        if (!column) {
            free(spare);
            return query_out_of_memory();
        }
        for (size_t row = 0; row < count; row++) column[row] = values[row * stride + k];
        o.values = column;
        merge_sort(&o, order, spare, count);
        free(column);
    }
    free(spare);
    return true;
}

static bool apply_sort(ce_results *r, ce_txn *txn, size_t column_count, const bound_path *paths, const bool *ascending,
                       size_t key_count)
{
    if (r->count < 2) return true;
    entry_reader reader;
    ce_value *values = NULL;
    if (!reader_start(&reader, txn, r->core->table, column_count, paths, key_count)) return false;
    bool ok = read_rows(&reader, r->entries, r->count, &values);
    size_t *order = ok ? malloc(r->count * sizeof *order) : NULL;
    entry *sorted = ok ? malloc(r->count * sizeof *sorted) : NULL;
    if (ok && (!order || !sorted)) ok = query_out_of_memory();
    if (ok) {
        for (size_t i = 0; i < r->count; i++) order[i] = i;
        /* Stable sorts from the last key to the first: the first key decides,
         * the next ones break its ties. */
        for (size_t k = key_count; ok && k-- > 0;)
            ok = sort_by_key(order, r->count, values, key_count, k, ascending[k], path_value_type(&paths[k]));
    }
    if (ok) {
        for (size_t i = 0; i < r->count; i++) sorted[i] = r->entries[order[i]];
        free(r->entries);
        r->entries = sorted;
        sorted = NULL;
        r->key_ordered = false;
    }
    free(sorted);
    free(order);
    free(values);
    reader_end(&reader);
    return ok;
}

static uint64_t row_hash(const ce_value *row, size_t key_count)
{
    uint64_t hash = 0x51ED270B27A3F1C5ull;
    for (size_t k = 0; k < key_count; k++) {
        uint64_t part = row[k].type == CE_TYPE_NULL ? 0x9E3779B97F4A7C15ull : value_hash(&row[k]);
        hash = (hash ^ part) * 0xFF51AFD7ED558CCDull;
        hash ^= hash >> 29;
    }
    return hash;
}

static bool rows_equal(const ce_value *a, const ce_value *b, size_t key_count)
{
    for (size_t k = 0; k < key_count; k++) {
        if (a[k].type != b[k].type) return false;
        if (a[k].type != CE_TYPE_NULL && !value_equal(&a[k], &b[k])) return false;
    }
    return true;
}

static bool apply_distinct(ce_results *r, ce_txn *txn, size_t column_count, const bound_path *paths, size_t key_count)
{
    if (r->count < 2) return true;
    entry_reader reader;
    ce_value *values = NULL;
    if (!reader_start(&reader, txn, r->core->table, column_count, paths, key_count)) return false;
    bool ok = read_rows(&reader, r->entries, r->count, &values);
    size_t capacity = 4;
    while (capacity < 2 * r->count) capacity *= 2;
    size_t *slots = ok ? calloc(capacity, sizeof *slots) : NULL;
    if (ok && !slots) ok = query_out_of_memory();
    if (ok) {
        size_t kept = 0;
        for (size_t i = 0; i < r->count; i++) {
            const ce_value *row = &values[i * key_count];
            size_t slot = (size_t)row_hash(row, key_count) & (capacity - 1);
            bool seen = false;
            while (slots[slot]) {
                if (rows_equal(&values[(slots[slot] - 1) * key_count], row, key_count)) {
                    seen = true;
                    break;
                }
                slot = (slot + 1) & (capacity - 1);
            }
            if (seen) continue;
            slots[slot] = i + 1;
            r->entries[kept++] = r->entries[i];
        }
        r->count = kept;
    }
    free(slots);
    free(values);
    reader_end(&reader);
    return ok;
}

/* Binds a descriptor's key paths (into `scratch`). */
/* Sorting, distinct and aggregates need one value per object. */
static bool check_single_value(const bound_path *path, const char *what)
{
    if (path->final == FINAL_OBJECT && path->aggregate == PATH_ALL_VALUES)
        return error_fail(CE_ERR_INVALID_QUERY, "cannot %s by '%s': it holds objects, not a value", what, path->description);
    if (path->multi && path->aggregate == PATH_ALL_VALUES)
        return error_fail(CE_ERR_INVALID_QUERY, "cannot %s by '%s': it holds several values (use @count, @sum, @min, ...)",
                       what, path->description);
    return true;
}

static bool bind_descriptor(query_core *core, ce_txn *txn, const descriptor *d, bound_query *scratch, bound_path **out_paths,
                            bool **out_ascending)
{
    bound_path *paths = calloc(d->key_count + 1, sizeof *paths);
    bool *ascending = calloc(d->key_count + 1, sizeof *ascending);
    if (!paths || !ascending) {
        free(paths);
        free(ascending);
        return query_out_of_memory();
    }
    for (size_t k = 0; k < d->key_count; k++) {
        ascending[k] = d->keys[k].ascending;
        if (!bind_descriptor_key(core, txn, &d->keys[k], scratch, &paths[k]) ||
            !check_single_value(&paths[k], d->kind == DESCRIPTOR_SORT ? "sort" : "make results distinct")) {
            free(paths);
            free(ascending);
            return false;
        }
    }
    *out_paths = paths;
    *out_ascending = ascending;
    return true;
}

static bool apply_descriptor(ce_results *r, ce_txn *txn, const descriptor *d)
{
    if (d->kind == DESCRIPTOR_LIMIT) {
        if (r->count > d->limit) r->count = d->limit;
        return true;
    }
    bound_query scratch;
    memset(&scratch, 0, sizeof scratch);
    bound_path *paths;
    bool *ascending;
    if (!bind_descriptor(r->core, txn, d, &scratch, &paths, &ascending)) {
        bind_query_free(&scratch);
        return false;
    }
    bool ok = d->kind == DESCRIPTOR_SORT
                  ? apply_sort(r, txn, r->core->column_count, paths, ascending, d->key_count)
                  : apply_distinct(r, txn, r->core->column_count, paths, d->key_count);
    free(paths);
    free(ascending);
    bind_query_free(&scratch);
    return ok;
}

static bool results_evaluate(ce_results *r, ce_txn *txn);

/* ------------------------------------------------------------------------ */
/* Sources other than a table scan: a collection, backlinks, another view    */
/* ------------------------------------------------------------------------ */

/* The entries (leaf and position) of objects of `table` given by key, in
 * the order given; repeats stay. */
static bool entries_of_keys(ce_txn *txn, ce_table_key table, const ce_object_key *keys, size_t count, const char *source,
                            entry **out_entries)
{
    space_ref root;
    cluster_schema columns;
    if (!table_cluster(txn, table, &root, &columns)) return false;
    entry *entries = malloc((count + 1) * sizeof *entries);
    if (!entries) return query_out_of_memory();
    const space_state *space = db_txn_space(txn);
    for (size_t i = 0; i < count; i++) {
        cluster_position position;
        bool found;
        if (!cluster_find(space, root, keys[i], &position, &found, NULL)) {
            free(entries);
            return false;
        }
        if (!found) {
            const char *name = "?";
            (void)table_name_of(txn, table, &name);
            free(entries);
            return error_fail(CE_ERR_CORRUPT, "invalid database: %s names object %lld of '%s', which does not exist", source,
                           (long long)keys[i], name);
        }
        entries[i] = (entry){keys[i], position.leaf, position.index};
    }
    *out_entries = entries;
    return true;
}

/* A view of a collection or of backlinks reads them from an object that a
 * later transaction may have deleted: then, as Realm invalidates the List
 * or LinkingObjects, the view fails (and does not pretend to be empty). */
static bool check_owner(ce_txn *txn, const results_source *source, const char *what)
{
    bool exists;
    if (!ce_object_exists(txn, source->owner_table, source->owner, &exists)) return false;
    if (exists) return true;
    const char *table = "?";
    (void)table_name_of(txn, source->owner_table, &table);
    return error_fail(CE_ERR_NO_SUCH_OBJECT,
                   "the results view of %s is invalidated: its object %lld of '%s' was deleted", what,
                   (long long)source->owner, table);
}

/* The keys the source's collection holds, in its order (a dictionary's:
 * in key order, its null values left out). */
static bool keys_in_collection(ce_txn *txn, const results_source *source, key_list *out)
{
    if (!check_owner(txn, source, "a collection")) return false;
    ce_collection *collection;
    if (!ce_collection_open(txn, source->owner_table, source->owner, source->column, &collection)) return false;
    table_collection_reader *reader = NULL;
    size_t size;
    ce_collection_type kind;
    ce_type element;
    bool ok = ce_collection_kind(collection, &kind, &element) &&
              table_collection_reader_open(collection, false, &reader, &size);
    for (size_t i = 0; ok && i < size; i++) {
        ce_value link;
        ok = table_collection_reader_get(reader, i, &link);
        if (ok && link.type == CE_TYPE_NULL && kind == CE_COLLECTION_DICTIONARY) continue;
        if (ok && link.type != CE_TYPE_LINK)
            ok = error_fail(CE_ERR_WRONG_TYPE, "a results view of a collection holds links, but element %zu is a %s", i,
                         ce_type_name(link.type));
        if (ok) ok = scan_key_push(out, link.link.key);
    }
    table_collection_reader_close(reader);
    ce_collection_close(collection);
    return ok;
}

/* The origins of the links into the source's object, in key order. */
static bool keys_of_backlinks(ce_txn *txn, const results_source *source, ce_table_key origin_table, key_list *out)
{
    if (!check_owner(txn, source, "backlinks")) return false;
    size_t count;
    if (!ce_object_backlink_count(txn, source->owner_table, source->owner, origin_table, source->column, &count))
        return false;
    for (size_t i = 0; i < count; i++) {
        ce_object_key origin;
        if (!ce_object_backlink_at(txn, source->owner_table, source->owner, origin_table, source->column, i, &origin) ||
            !scan_key_push(out, origin))
            return false;
    }
    return true;
}

typedef struct entry_place {
    space_ref leaf;
    size_t index;
    size_t position; /* in the view */
} entry_place;

static int compare_places(const void *a, const void *b)
{
    const entry_place *x = a, *y = b;
    if (x->leaf != y->leaf) return x->leaf < y->leaf ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* Keeps the entries whose objects match the core's predicate, in their
 * order. The entries are grouped by leaf so that the predicate runs as in
 * a scan: once per leaf, over a mask of the entries' positions there. */
static bool keep_matching(query_core *core, ce_txn *txn, entry *entries, size_t *count)
{
    size_t n = *count;
    if (n == 0) return true;
    evaluation e;
    if (!eval_start(&e, core, txn)) return false;
    entry_place *places = malloc(n * sizeof *places);
    bool *keep = calloc(n, sizeof *keep);
    bool ok = places && keep ? true : query_out_of_memory();
    if (ok) {
        for (size_t i = 0; i < n; i++) places[i] = (entry_place){entries[i].leaf, entries[i].index, i};
        qsort(places, n, sizeof *places, compare_places);
    }
    for (size_t i = 0; ok && i < n;) {
        cluster_leaf leaf;
        ok = cluster_leaf_at(e.space, places[i].leaf, e.columns.column_count, &leaf) && eval_enter_leaf(&e, &leaf);
        if (!ok) break;
        mask candidates, matched;
        mask_clear(&candidates);
        size_t end = i;
        for (; end < n && places[end].leaf == places[i].leaf; end++) {
            if (places[end].index >= e.count) {
                ok = eval_corrupt_leaf(&leaf, "an object's position lies past its end");
                break;
            }
            mask_set(&candidates, places[end].index);
        }
        if (ok) ok = eval_leaf(&e, &candidates, &matched);
        for (size_t k = i; ok && k < end; k++) keep[places[k].position] = mask_has(&matched, places[k].index);
        i = end;
    }
    if (ok) {
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (keep[i]) entries[kept++] = entries[i];
        *count = kept;
    }
    free(places);
    free(keep);
    eval_end(&e);
    return ok;
}

/* Fills r->entries and r->count from a source other than a table scan. */
static bool source_entries(ce_results *r, ce_txn *txn)
{
    const results_source *source = &r->source;
    if (source->kind == SOURCE_FILTER) {
        ce_results *base = source->base;
        if (!results_evaluate(base, txn)) return false;
        r->entries = malloc((base->count + 1) * sizeof *r->entries);
        if (!r->entries) return query_out_of_memory();
        if (base->count) memcpy(r->entries, base->entries, base->count * sizeof *r->entries);
        r->count = base->count;
        return keep_matching(r->core, txn, r->entries, &r->count);
    }
    key_list keys = {NULL, 0, 0};
    bool ok = source->kind == SOURCE_COLLECTION ? keys_in_collection(txn, source, &keys)
                                                : keys_of_backlinks(txn, source, r->core->table, &keys);
    if (ok) {
        ok = entries_of_keys(txn, r->core->table, keys.keys, keys.count,
                             source->kind == SOURCE_COLLECTION ? "a collection of links" : "a backlink", &r->entries);
        if (ok) r->count = keys.count;
    }
    free(keys.keys);
    return ok;
}

/* Evaluates the view unless it is up to date for the transaction's state. */
static bool results_evaluate(ce_results *r, ce_txn *txn)
{
    if (!r || !txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "results and a transaction are required");
    /* Objects the table buffered count: flushing them moves the stamp. */
    if (!table_flush(txn, r->core->table)) return false;
    if (r->evaluated && r->stamp == db_txn_stamp(txn)) return true;
    results_forget(r);
    bool ok = true;
    if (r->source.kind == SOURCE_TABLE) {
        evaluation e;
        if (!eval_start(&e, r->core, txn)) return false;
        scan_state s;
        memset(&s, 0, sizeof s);
        s.e = &e;
        s.goal = GOAL_COLLECT;
        s.limit = SIZE_MAX;
        if (r->descriptor_count && r->descriptors[0].kind == DESCRIPTOR_LIMIT) s.limit = r->descriptors[0].limit;
        ok = scan_run(&s);
        eval_end(&e);
        if (!ok) {
            free(s.entries);
            return false;
        }
        r->entries = s.entries;
        r->count = s.entry_count;
        r->key_ordered = true;
    } else {
        if (!source_entries(r, txn)) {
            results_forget(r);
            return false;
        }
        r->key_ordered = false;
    }
    for (size_t d = 0; ok && d < r->descriptor_count; d++) ok = apply_descriptor(r, txn, &r->descriptors[d]);
    if (!ok) {
        results_forget(r);
        return false;
    }
    r->evaluated = true;
    r->stamp = db_txn_stamp(txn);
    return true;
}

bool ce_results_count(ce_results *results, ce_txn *txn, size_t *out_count)
{
    if (!results || !txn || !out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_count: arguments are required");
    if (!table_flush(txn, results->core->table)) return false;
    uint64_t stamp = db_txn_stamp(txn);
    if (results->evaluated && results->stamp == stamp) {
        *out_count = results->count;
        return true;
    }
    if (results->descriptor_count == 0 && results->source.kind == SOURCE_TABLE) {
        /* Counting needs no list of objects. */
        if (!(results->counted && results->count_stamp == stamp)) {
            evaluation e;
            if (!eval_start(&e, results->core, txn)) return false;
            scan_state s;
            memset(&s, 0, sizeof s);
            s.e = &e;
            s.goal = GOAL_COUNT;
            bool ok = scan_run(&s);
            eval_end(&e);
            if (!ok) return false;
            results->cached_count = s.count;
            results->counted = true;
            results->count_stamp = stamp;
        }
        *out_count = results->cached_count;
        return true;
    }
    if (!results_evaluate(results, txn)) return false;
    *out_count = results->count;
    return true;
}

bool ce_results_get(ce_results *results, ce_txn *txn, size_t index, ce_object_key *out_object)
{
    if (!results || !txn || !out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_get: arguments are required");
    if (!results_evaluate(results, txn)) return false;
    if (index >= results->count)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "Index %zu is out of bounds (must be less than %zu).", index,
                       results->count);
    *out_object = results->entries[index].key;
    return true;
}

/* By key, then by position (the index field of index_of's copy): a view of
 * a list may hold an object twice, and index_of names its first position. */
static int compare_entry_keys(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

bool ce_results_index_of(ce_results *results, ce_txn *txn, ce_object_key object, size_t *out_index, bool *out_found)
{
    if (!results || !txn || !out_index || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_index_of: arguments are required");
    if (!results_evaluate(results, txn)) return false;
    const entry *entries = results->entries;
    if (!results->key_ordered && !results->by_key && results->count) {
        /* Entries by key, each with its position in the view (in the
         * index field: by_key is a private copy). */
        entry *by_key = malloc(results->count * sizeof *by_key);
        size_t *positions = malloc(results->count * sizeof *positions);
        if (!by_key || !positions) {
            free(by_key);
            free(positions);
            return query_out_of_memory();
        }
        for (size_t i = 0; i < results->count; i++) {
            by_key[i] = results->entries[i];
            by_key[i].index = i;
        }
        qsort(by_key, results->count, sizeof *by_key, compare_entry_keys);
        for (size_t i = 0; i < results->count; i++) positions[i] = by_key[i].index;
        results->by_key = by_key;
        results->by_key_position = positions;
    }
    if (!results->key_ordered) entries = results->by_key;
    size_t low = 0, high = results->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (entries[middle].key < object) low = middle + 1;
        else high = middle;
    }
    *out_found = low < results->count && entries[low].key == object;
    if (*out_found) *out_index = results->key_ordered ? low : results->by_key_position[low];
    return true;
}

bool ce_results_aggregate(ce_results *results, ce_txn *txn, const char *key_path, ce_aggregate aggregate,
                          ce_value *out_value, size_t *out_counted)
{
    if (!results || !txn || !key_path || !out_value)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_aggregate: arguments are required");
    if ((unsigned)aggregate > CE_AGGREGATE_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "unknown aggregate %d", (int)aggregate);
    descriptor_key key = {-1, (char *)key_path, true};
    bound_query scratch;
    memset(&scratch, 0, sizeof scratch);
    bound_path path;
    if (!table_flush(txn, results->core->table) || !bind_core(results->core, txn) ||
        !bind_descriptor_key(results->core, txn, &key, &scratch, &path)) {
        bind_query_free(&scratch);
        return false;
    }
    if (!check_single_value(&path, "aggregate")) {
        bind_query_free(&scratch);
        return false;
    }
    ce_type type = path_value_type(&path);
    if (!aggregate_supported(aggregate, type)) {
        bool ok = error_fail(CE_ERR_WRONG_TYPE, "cannot compute the %s of %s property '%s'", aggregate_name(aggregate),
                          path.size_of ? "the length of a" : ce_type_name(path.type), path.description);
        bind_query_free(&scratch);
        return ok;
    }
    aggregator a;
    aggregate_init(&a, aggregate, type);
    bool ok;
    if (path.local && results->descriptor_count == 0 && results->source.kind == SOURCE_TABLE &&
        !(results->evaluated && results->stamp == db_txn_stamp(txn))) {
        /* Straight from the leaves: no list of objects. */
        evaluation e;
        ok = eval_start(&e, results->core, txn);
        if (ok) {
            scan_state s;
            memset(&s, 0, sizeof s);
            s.e = &e;
            s.goal = GOAL_AGGREGATE;
            s.aggregate = &a;
            s.aggregate_path = &path;
            ok = scan_run(&s);
            eval_end(&e);
        }
    } else {
        entry_reader reader;
        ok = results_evaluate(results, txn) &&
             reader_start(&reader, txn, results->core->table, results->core->column_count, &path, 1);
        if (ok) {
            for (size_t i = 0; ok && i < results->count; i++) {
                ce_value value;
                ok = reader_get(&reader, &results->entries[i], 0, &value);
                if (ok) aggregate_add(&a, &value);
            }
            reader_end(&reader);
        }
    }
    bind_query_free(&scratch);
    if (!ok) return false;
    aggregate_result(&a, out_value);
    if (out_counted) *out_counted = a.counted;
    return true;
}

static bool add_descriptor(ce_results *r, descriptor_kind kind, size_t key_count, size_t limit, descriptor **out)
{
    descriptor *d = &r->descriptors[r->descriptor_count];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->limit = limit;
    d->keys = calloc(key_count + 1, sizeof *d->keys);
    if (!d->keys) return query_out_of_memory();
    r->descriptor_count++;
    *out = d;
    return true;
}

/* Checks that every key path of a new descriptor binds. */
static bool check_descriptor(query_core *core, ce_txn *txn, const descriptor *d)
{
    if (!bind_core(core, txn)) return false;
    bound_query scratch;
    memset(&scratch, 0, sizeof scratch);
    bound_path *paths;
    bool *ascending;
    bool ok = bind_descriptor(core, txn, d, &scratch, &paths, &ascending);
    if (ok) {
        free(paths);
        free(ascending);
    }
    bind_query_free(&scratch);
    return ok;
}

bool ce_results_sort(ce_txn *txn, const ce_results *results, const ce_sort_key *keys, size_t key_count,
                     ce_results **out_results)
{
    if (!txn || !results || (!keys && key_count) || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_sort: arguments are required");
    ce_results *r;
    descriptor *d;
    if (!results_copy(results, &r)) return false;
    if (!add_descriptor(r, DESCRIPTOR_SORT, key_count, 0, &d)) {
        ce_results_free(r);
        return false;
    }
    for (size_t k = 0; k < key_count; k++) {
        if (!keys[k].key_path) {
            ce_results_free(r);
            return error_fail(CE_ERR_INVALID_ARGUMENT, "sort key %zu has no key path", k);
        }
        d->keys[k] = (descriptor_key){-1, strdup(keys[k].key_path), keys[k].ascending};
        d->key_count = k + 1;
        if (!d->keys[k].text) {
            ce_results_free(r);
            return query_out_of_memory();
        }
    }
    if (!check_descriptor(r->core, txn, d)) {
        ce_results_free(r);
        return false;
    }
    *out_results = r;
    return true;
}

bool ce_results_distinct(ce_txn *txn, const ce_results *results, const char *const *key_paths, size_t key_path_count,
                         ce_results **out_results)
{
    if (!txn || !results || (!key_paths && key_path_count) || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_distinct: arguments are required");
    ce_results *r;
    descriptor *d;
    if (!results_copy(results, &r)) return false;
    if (!add_descriptor(r, DESCRIPTOR_DISTINCT, key_path_count, 0, &d)) {
        ce_results_free(r);
        return false;
    }
    for (size_t k = 0; k < key_path_count; k++) {
        if (!key_paths[k]) {
            ce_results_free(r);
            return error_fail(CE_ERR_INVALID_ARGUMENT, "distinct key path %zu is missing", k);
        }
        d->keys[k] = (descriptor_key){-1, strdup(key_paths[k]), true};
        d->key_count = k + 1;
        if (!d->keys[k].text) {
            ce_results_free(r);
            return query_out_of_memory();
        }
    }
    if (!check_descriptor(r->core, txn, d)) {
        ce_results_free(r);
        return false;
    }
    *out_results = r;
    return true;
}

bool ce_results_limit(const ce_results *results, size_t limit, ce_results **out_results)
{
    if (!results || !out_results) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_limit: arguments are required");
    ce_results *r;
    descriptor *d;
    if (!results_copy(results, &r)) return false;
    if (!add_descriptor(r, DESCRIPTOR_LIMIT, 0, limit, &d)) {
        ce_results_free(r);
        return false;
    }
    *out_results = r;
    return true;
}

/* A view of every object of `table` (a TRUEPREDICATE query, which the
 * descriptors and aggregates bind their key paths through) read from
 * `source` instead of a scan. */
static bool results_of_source(ce_txn *txn, ce_table_key table, const results_source *source, ce_results **out_results)
{
    ce_query *every;
    if (!ce_query_parse(txn, table, "TRUEPREDICATE", NULL, 0, &every)) return false;
    ce_results *r;
    bool ok = ce_query_find_all(every, &r);
    ce_query_free(every);
    if (!ok) return false;
    r->source = *source;
    *out_results = r;
    return true;
}

bool ce_results_from_collection(ce_txn *txn, const ce_collection *collection, ce_results **out_results)
{
    if (!txn || !collection || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_from_collection: arguments are required");
    results_source source = {.kind = SOURCE_COLLECTION};
    bool nested;
    ce_collection_type kind;
    ce_type element;
    ce_property_info info;
    const char *table_name;
    if (!table_collection_owner(collection, &source.owner_table, &source.owner, &source.column, &nested) ||
        !ce_collection_kind(collection, &kind, &element) ||
        !ce_property_get_info(txn, source.owner_table, source.column, &info) ||
        !table_name_of(txn, source.owner_table, &table_name))
        return false;
    if (nested)
        return error_fail(CE_ERR_WRONG_TYPE,
                       "cannot make a results view of a collection in mixed property '%s.%s': its elements are mixed "
                       "values, not links to objects of one table",
                       table_name, info.name);
    if (element != CE_TYPE_LINK)
        return error_fail(CE_ERR_WRONG_TYPE,
                       "cannot make a results view of '%s.%s': it holds %s values, not links to objects (aggregate it "
                       "with ce_collection_aggregate)",
                       table_name, info.name, ce_type_name(element));
    return results_of_source(txn, info.link_target, &source, out_results);
}

bool ce_results_from_backlinks(ce_txn *txn, ce_table_key target_table, ce_object_key target, ce_table_key origin_table,
                               ce_column_key origin_column, ce_results **out_results)
{
    if (!txn || !out_results) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_from_backlinks: arguments are required");
    const char *target_name, *origin_name;
    ce_property_info origin;
    table_property backlink;
    bool found, exists;
    if (!table_name_of(txn, target_table, &target_name) || !table_name_of(txn, origin_table, &origin_name) ||
        !ce_property_get_info(txn, origin_table, origin_column, &origin) ||
        !table_find_backlink(txn, target_table, origin_table, origin_column, &backlink, &found))
        return false;
    if (!found)
        return error_fail(CE_ERR_NO_SUCH_PROPERTY, "'%s.%s' holds no links to '%s', so its objects have no such backlinks",
                       origin_name, origin.name, target_name);
    if (!ce_object_exists(txn, target_table, target, &exists)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "'%s' has no object %lld whose backlinks to view", target_name,
                       (long long)target);
    results_source source = {.kind = SOURCE_BACKLINKS, .owner_table = target_table, .owner = target, .column = origin_column};
    return results_of_source(txn, origin_table, &source, out_results);
}

bool ce_results_filter(ce_txn *txn, const ce_results *results, ce_query *query, ce_results **out_results)
{
    if (!txn || !results || !query || !out_results)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_results_filter: arguments are required");
    if (query->core->table != results->core->table) {
        const char *query_table = "?", *results_table = "?";
        (void)table_name_of(txn, query->core->table, &query_table);
        (void)table_name_of(txn, results->core->table, &results_table);
        return error_fail(CE_ERR_INVALID_ARGUMENT, "cannot filter results of '%s' with a query on '%s': the tables differ",
                       results_table, query_table);
    }
    if (!bind_core(query->core, txn)) return false;
    ce_results *base, *r;
    if (!results_copy(results, &base)) return false;
    /* The query's own SORT/DISTINCT/LIMIT apply to what the filter keeps. */
    if (!ce_query_find_all(query, &r)) {
        ce_results_free(base);
        return false;
    }
    r->source = (results_source){.kind = SOURCE_FILTER, .base = base};
    *out_results = r;
    return true;
}

bool ce_collection_sorted_indices(const ce_collection *collection, bool ascending, size_t *out_indices, size_t capacity,
                                  size_t *out_count)
{
    if (!collection || !out_count || (capacity && !out_indices))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_sorted_indices: arguments are required");
    ce_collection_type kind;
    ce_type element;
    if (!ce_collection_kind(collection, &kind, &element)) return false;
    if (element == CE_TYPE_LINK)
        return error_fail(CE_ERR_WRONG_TYPE, "cannot sort a collection of links by value: sort its objects by a property "
                                          "through ce_results_from_collection and ce_results_sort");
    table_collection_reader *reader;
    size_t size;
    if (!table_collection_reader_open(collection, false, &reader, &size)) return false;
    *out_count = size;
    bool ok = capacity >= size || error_fail(CE_ERR_INVALID_ARGUMENT,
                                          "ce_collection_sorted_indices: room for %zu indices, but the collection "
                                          "holds %zu",
                                          capacity, size);
    /* The values are copied (gather_bag_push): a large string read from a
     * compressed node lives in a buffer that the next read reuses. */
    value_bag bag;
    memset(&bag, 0, sizeof bag);
    size_t *spare = ok ? malloc((size + 1) * sizeof *spare) : NULL;
    if (ok && !spare) ok = query_out_of_memory();
    for (size_t i = 0; ok && i < size; i++) {
        ce_value value;
        ok = table_collection_reader_get(reader, i, &value) && gather_bag_push(&bag, &value);
        out_indices[i] = i;
    }
    table_collection_reader_close(reader);
    if (ok) {
        row_order order = {bag.values, 1, &ascending};
        merge_sort(&order, out_indices, spare, size);
    }
    free(spare);
    gather_bag_free(&bag);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

bool ce_query_parse(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                    size_t argument_count, ce_query **out_query)
{
    if (!txn || !predicate || !out_query) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_parse: arguments are required");
    const char *name;
    if (!table_name_of(txn, table, &name)) return false;
    query_core *core = calloc(1, sizeof *core);
    ce_query *query = calloc(1, sizeof *query);
    if (!core || !query) {
        free(core);
        free(query);
        return query_out_of_memory();
    }
    atomic_init(&core->references, 1);
    core->table = table;
    query->core = core;
    bool ok = parse_predicate(predicate, strlen(predicate), &core->tree) &&
              copy_arguments(core, arguments, argument_count) && bind_core(core, txn);
    /* SORT/DISTINCT key paths of the text must bind too. */
    for (size_t d = 0; ok && d < core->tree.descriptor_count; d++) {
        const parse_descriptor *written = &core->tree.descriptors[d];
        if (written->kind == PARSE_LIMIT) continue;
        descriptor check = {written->kind == PARSE_SORT ? DESCRIPTOR_SORT : DESCRIPTOR_DISTINCT, NULL, written->key_count, 0};
        check.keys = calloc(written->key_count + 1, sizeof *check.keys);
        if (!check.keys) {
            ok = query_out_of_memory();
            break;
        }
        for (size_t k = 0; k < written->key_count; k++) {
            const parse_key *key = &core->tree.keys[written->first_key + k];
            check.keys[k] = (descriptor_key){key->key_path, NULL, key->ascending};
        }
        ok = check_descriptor(core, txn, &check);
        free(check.keys);
    }
    if (!ok) {
        ce_query_free(query);
        return false;
    }
    *out_query = query;
    return true;
}

void ce_query_free(ce_query *query)
{
    if (!query) return;
    query_core_release(query->core);
    free(query);
}

bool ce_query_count(ce_query *query, ce_txn *txn, size_t *out_count)
{
    if (!query || !txn || !out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_count: arguments are required");
    evaluation e;
    if (!eval_start(&e, query->core, txn)) return false;
    scan_state s;
    memset(&s, 0, sizeof s);
    s.e = &e;
    s.goal = GOAL_COUNT;
    bool ok = scan_run(&s);
    eval_end(&e);
    if (ok) *out_count = s.count;
    return ok;
}

bool ce_query_find_first(ce_query *query, ce_txn *txn, ce_object_key *out_object, bool *out_found)
{
    if (!query || !txn || !out_object || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_find_first: arguments are required");
    evaluation e;
    if (!eval_start(&e, query->core, txn)) return false;
    scan_state s;
    memset(&s, 0, sizeof s);
    s.e = &e;
    s.goal = GOAL_FIRST;
    bool ok = scan_run(&s);
    eval_end(&e);
    if (ok) {
        *out_found = s.found;
        if (s.found) *out_object = s.first;
    }
    return ok;
}

bool ce_query_find_all(ce_query *query, ce_results **out_results)
{
    if (!query || !out_results) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_find_all: arguments are required");
    query_core *core = query->core;
    ce_results *r = calloc(1, sizeof *r);
    if (!r) return query_out_of_memory();
    r->descriptors = calloc(core->tree.descriptor_count + 1, sizeof *r->descriptors);
    if (!r->descriptors) {
        free(r);
        return query_out_of_memory();
    }
    atomic_fetch_add(&core->references, 1);
    r->core = core;
    for (size_t d = 0; d < core->tree.descriptor_count; d++) {
        const parse_descriptor *written = &core->tree.descriptors[d];
        descriptor *to;
        descriptor_kind kind = written->kind == PARSE_SORT ? DESCRIPTOR_SORT
                               : written->kind == PARSE_DISTINCT ? DESCRIPTOR_DISTINCT
                                                                 : DESCRIPTOR_LIMIT;
        size_t limit = written->limit > SIZE_MAX ? SIZE_MAX : (size_t)written->limit;
        if (!add_descriptor(r, kind, written->key_count, limit, &to)) {
            ce_results_free(r);
            return false;
        }
        for (size_t k = 0; k < written->key_count; k++) {
            const parse_key *key = &core->tree.keys[written->first_key + k];
            to->keys[k] = (descriptor_key){key->key_path, NULL, key->ascending};
        }
        to->key_count = written->key_count;
    }
    *out_results = r;
    return true;
}
