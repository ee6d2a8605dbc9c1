/*
 * compare.c — how a query compares two values: numbers across types
 * (int, float, double, decimal128 by value), strings and binaries by bytes
 * with the string operators ([c] folds two binaries as text too), and
 * null, NaN and [c]/[d] as query.h says; a null string of the object
 * before every string constant (compare_null_string_result).
 *
 * Owns: the semantics of `a op b` for two values of any types
 * (compare_values), which the binder uses to fold constants and the
 * evaluation uses object by object.
 * Never: reads the database, or allocates beyond a folder's buffers.
 */
#include "compare.h"
#include "decimal.h"
#include "fold.h"
#include "query_internal.h"
#include "value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool compare_is_nan(const ce_value *v)
{
    switch (v->type) {
    case CE_TYPE_FLOAT: return isnan(v->float_value);
    case CE_TYPE_DOUBLE: return isnan(v->double_value);
    case CE_TYPE_DECIMAL128: return decimal_is_nan(v->decimal);
    default: return false;
    }
}

ce_decimal128 compare_decimal_of(const ce_value *v)
{
    switch (v->type) {
    case CE_TYPE_INT: return decimal_from_int(v->integer);
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE: return decimal_from_double(compare_real_of(v));
    default: return v->decimal;
    }
}

/* trunc, floor and ceil without libm (the engine links no math library). */
static double whole_part(double x)
{
    if (!(x < 4503599627370496.0 && x > -4503599627370496.0)) return x; /* integral already (or NaN) */
    return (double)(int64_t)x;
}
double compare_floor(double x)
{
    double whole = whole_part(x);
    return whole > x ? whole - 1 : whole;
}
double compare_ceil(double x)
{
    double whole = whole_part(x);
    return whole < x ? whole + 1 : whole;
}

int compare_int_double(int64_t i, double d)
{
    if (d >= 9223372036854775808.0) return -1;
    if (d < -9223372036854775808.0) return 1;
    double whole = whole_part(d);
    int64_t w = (int64_t)whole;
    if (i != w) return i < w ? -1 : 1;
    double fraction = d - whole;
    return fraction > 0 ? -1 : fraction < 0 ? 1 : 0;
}

int compare_numbers(const ce_value *a, const ce_value *b)
{
    if (compare_is_nan(a) || compare_is_nan(b)) return COMPARE_UNORDERED;
    if (a->type == CE_TYPE_DECIMAL128 || b->type == CE_TYPE_DECIMAL128) {
        return decimal_compare(compare_decimal_of(a), compare_decimal_of(b));
    }
    if (a->type == CE_TYPE_INT && b->type == CE_TYPE_INT)
        return a->integer < b->integer ? -1 : a->integer > b->integer;
    if (a->type == CE_TYPE_INT) return compare_int_double(a->integer, compare_real_of(b));
    if (b->type == CE_TYPE_INT) return -compare_int_double(b->integer, compare_real_of(a));
    double x = compare_real_of(a), y = compare_real_of(b);
    return x < y ? -1 : x > y;
}

/* The order of two non-null values: -1, 0, 1, COMPARE_UNORDERED (NaN) or
 * COMPARE_INCOMPARABLE (types that do not compare). */
static int order_values(const ce_value *a, const ce_value *b)
{
    if (compare_is_number(a->type) && compare_is_number(b->type)) return compare_numbers(a, b);
    if (compare_is_text(a->type) && compare_is_text(b->type)) {
        const char *x, *y;
        size_t x_size, y_size;
        compare_text_of(a, &x, &x_size);
        compare_text_of(b, &y, &y_size);
        return value_compare_bytes(x, x_size, y, y_size);
    }
    if (a->type != b->type) return COMPARE_INCOMPARABLE;
    return value_compare(a, b);
}

void compare_folder_free(folder *f)
{
    free(f->buffers[0]);
    free(f->buffers[1]);
    memset(f, 0, sizeof *f);
}

bool compare_text_operator(parse_op op, const char *a, size_t a_size, const char *b, size_t b_size, bool bytes)
{
    switch (op) {
    case PARSE_OP_BEGINS_WITH: return a_size >= b_size && (b_size == 0 || memcmp(a, b, b_size) == 0);
    case PARSE_OP_ENDS_WITH: return a_size >= b_size && (b_size == 0 || memcmp(a + a_size - b_size, b, b_size) == 0);
    case PARSE_OP_CONTAINS: return b_size == 0 || (a_size >= b_size && memmem(a, a_size, b, b_size) != NULL);
    case PARSE_OP_LIKE: return fold_like(a, a_size, b, b_size, bytes);
    case PARSE_OP_EQUAL: return value_bytes_equal(a, a_size, b, b_size);
    case PARSE_OP_NOT_EQUAL: return !value_bytes_equal(a, a_size, b, b_size);
    default: break;
    }
    int order = value_compare_bytes(a, a_size, b, b_size);
    switch (op) {
    case PARSE_OP_LESS: return order < 0;
    case PARSE_OP_LESS_EQUAL: return order <= 0;
    case PARSE_OP_GREATER: return order > 0;
    case PARSE_OP_GREATER_EQUAL: return order >= 0;
    default: return false;
    }
}

bool compare_null_result(parse_op op, bool a_null, bool b_null)
{
    switch (op) {
    case PARSE_OP_EQUAL:
    case PARSE_OP_LESS_EQUAL:
    case PARSE_OP_GREATER_EQUAL:
    case PARSE_OP_LIKE: return a_null && b_null;
    case PARSE_OP_NOT_EQUAL: return !(a_null && b_null);
    default: return false;
    }
}

bool compare_null_string_result(parse_op op, bool null_on_left)
{
    if (!compare_is_ordered_operator(op)) return compare_null_result(op, null_on_left, !null_on_left);
    int order = null_on_left ? -1 : 1; /* null < every string, '' too */
    switch (op) {
    case PARSE_OP_LESS: return order < 0;
    case PARSE_OP_LESS_EQUAL: return order <= 0;
    case PARSE_OP_GREATER: return order > 0;
    default: return order >= 0;
    }
}

bool compare_empty_needle(parse_op op, const ce_value *needle)
{
    if (op != PARSE_OP_BEGINS_WITH && op != PARSE_OP_ENDS_WITH && op != PARSE_OP_CONTAINS) return false;
    if (needle->type == CE_TYPE_NULL) return true;
    if (!compare_is_text(needle->type)) return false;
    const char *data;
    size_t size;
    compare_text_of(needle, &data, &size);
    return size == 0;
}

bool compare_values(const ce_value *a, parse_op op, const ce_value *b, unsigned flags, folder *f, bool *out)
{
    if (compare_empty_needle(op, b)) {
        *out = false;
        return true;
    }
    bool a_null = a->type == CE_TYPE_NULL, b_null = b->type == CE_TYPE_NULL;
    if (a_null || b_null) {
        *out = compare_null_result(op, a_null, b_null);
        return true;
    }
    if (compare_is_string_operator(op) || (compare_is_text(a->type) && compare_is_text(b->type))) {
        if (!compare_is_text(a->type) || !compare_is_text(b->type)) {
            *out = op == PARSE_OP_NOT_EQUAL;
            return true;
        }
        const char *x, *y;
        size_t x_size, y_size;
        compare_text_of(a, &x, &x_size);
        compare_text_of(b, &y, &y_size);
        bool strings = a->type == CE_TYPE_STRING && b->type == CE_TYPE_STRING;
        /* [c] folds two binaries as UTF-8 text too (realm-core's case
         * insensitive conditions on a binary column; see check_comparison,
         * bind_predicate.c); a string and a binary stay bytes. */
        bool binaries = a->type == CE_TYPE_BINARY && b->type == CE_TYPE_BINARY;
        if (flags && (strings || binaries)) {
            if (!fold_text(x, x_size, flags, &f->buffers[0], &f->capacities[0], &x_size) ||
                !fold_text(y, y_size, flags, &f->buffers[1], &f->capacities[1], &y_size))
                return false;
            x = f->buffers[0];
            y = f->buffers[1];
        }
        *out = compare_text_operator(op, x, x_size, y, y_size, !strings);
        return true;
    }
    int order = order_values(a, b);
    bool both_nan = order == COMPARE_UNORDERED && compare_is_nan(a) && compare_is_nan(b);
    switch (op) {
    case PARSE_OP_EQUAL: *out = order == 0 || both_nan; break;
    case PARSE_OP_NOT_EQUAL: *out = !(order == 0 || both_nan); break;
    case PARSE_OP_LESS: *out = order == -1; break;
    case PARSE_OP_LESS_EQUAL: *out = order == -1 || order == 0; break;
    case PARSE_OP_GREATER: *out = order == 1; break;
    case PARSE_OP_GREATER_EQUAL: *out = order == 1 || order == 0; break;
    default: *out = false; break;
    }
    return true;
}
