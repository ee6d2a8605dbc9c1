/*
 * query.c — ce_query: a predicate parsed, its arguments copied and its
 * tree bound to a table; counting, finding the first match, and making a
 * results view (cengine.h, section "Queries").
 *
 * Owns: query cores (the parsed tree, deep copies of the arguments, the
 * bound tree for the last schema state), shared by a ce_query and the
 * ce_results made from it through a reference count.
 * Never: binds, evaluates or sorts itself: it drives the layer's files.
 *
 * The query layer, in the order a query runs through it:
 *   parse.c      text -> syntax tree (parse.h)
 *   bind.c       key paths -> bound paths; a core bound to a schema state
 *   bind_predicate.c  comparisons -> bound nodes with their kernels
 *   compare.c    how two values compare (numbers across types, strings)
 *   fold.c       [c] and [d] folding, LIKE
 *   eval.c       a bound tree over one leaf as bit masks; object by object
 *   gather.c     the values a path yields from one object
 *   scan.c       every leaf, or an index's candidates; count/first/collect
 *   results.c    results views and their sources, ce_results_*
 *   sort.c       sort and distinct, ce_collection_sorted_indices
 *   aggregate.c  @count/@sum/@avg/@min/@max, ce_collection_aggregate
 * query_internal.h holds the bound tree the files share; query.h states
 * the semantics every file keeps.
 */
#include "query.h"
#include "query_internal.h"
#include "bind.h"
#include "eval.h"
#include "results.h"
#include "scan.h"
#include "table.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
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
        ok = results_check_descriptor(core, txn, &check);
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
        if (!results_add_descriptor(r, kind, written->key_count, limit, &to)) {
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
