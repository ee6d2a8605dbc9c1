/*
 * compare.h — how a query compares two values (compare.c): numbers across
 * types, strings and binaries by bytes, the string operators, null and NaN,
 * with the semantics query.h states.
 *
 * Owns: the comparison calls of the query layer (compare_*) and the
 * folder, the buffers [c] and [d] comparisons fold text into.
 * Never: reads the database.
 */
#ifndef CE_COMPARE_H
#define CE_COMPARE_H

#include "cengine.h"
#include "parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool compare_is_number(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE || type == CE_TYPE_DECIMAL128;
}

/* A float or double value as a double. */
static inline double compare_real_of(const ce_value *v)
{
    return v->type == CE_TYPE_FLOAT ? (double)v->float_value : v->double_value;
}

static inline bool compare_is_text(ce_type type) { return type == CE_TYPE_STRING || type == CE_TYPE_BINARY; }

/* The bytes of a string or binary value. */
static inline void compare_text_of(const ce_value *v, const char **out_data, size_t *out_size)
{
    if (v->type == CE_TYPE_STRING) {
        *out_data = v->string.data;
        *out_size = v->string.size;
    } else {
        *out_data = (const char *)v->binary.data;
        *out_size = v->binary.size;
    }
}

static inline bool compare_is_string_operator(parse_op op)
{
    return op == PARSE_OP_BEGINS_WITH || op == PARSE_OP_ENDS_WITH || op == PARSE_OP_CONTAINS || op == PARSE_OP_LIKE;
}

static inline bool compare_is_ordered_operator(parse_op op)
{
    return op == PARSE_OP_LESS || op == PARSE_OP_LESS_EQUAL || op == PARSE_OP_GREATER || op == PARSE_OP_GREATER_EQUAL;
}

/* Whether a float, double or decimal128 value is NaN. */
bool compare_is_nan(const ce_value *v);

/* A number value (int, float, double, decimal128) as a decimal128. */
ce_decimal128 compare_decimal_of(const ce_value *v);

/* floor and ceil without libm (the engine links no math library). */
double compare_floor(double x);
double compare_ceil(double x);

/* The order of an int and a double: -1, 0, 1 (the double is not NaN). */
int compare_int_double(int64_t i, double d);

/* What compare_numbers returns besides -1, 0 and 1. */
enum { COMPARE_INCOMPARABLE = 2, COMPARE_UNORDERED = 3 };

/* The order of two numbers of any numeric types: -1, 0, 1, or
 * COMPARE_UNORDERED when one is NaN. */
int compare_numbers(const ce_value *a, const ce_value *b);

/* Buffers for folding both sides of a comparison with [c] or [d]. */
typedef struct folder {
    char *buffers[2];
    size_t capacities[2];
} folder;

void compare_folder_free(folder *f);

/* `a op b` over bytes: ==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH,
 * CONTAINS, LIKE ('?' one byte when `bytes`, else one code point). */
bool compare_text_operator(parse_op op, const char *a, size_t a_size, const char *b, size_t b_size, bool bytes);

/* `a op b` when a or b (or both) is null, as realm-core's conditions
 * (src/realm/query_conditions.hpp) decide it: == true when both are null;
 * <= and >= too (LessEqual, GreaterEqual: "if (v1null && v2null) return
 * true"); LIKE too (Like: null matches only null); != when not both are;
 * <, > and BEGINSWITH, ENDSWITH, CONTAINS never. */
bool compare_null_result(parse_op op, bool a_null, bool b_null);

/* `a op b` (op: ==, !=, <, <=, >, >=, BEGINSWITH, ...) for a null string
 * and a non-null string, the null on the left when `null_on_left`: the
 * null orders before every string, the empty string too, as realm-core's
 * operator< of StringData orders them (src/realm/string_data.hpp: "Null
 * strings are smaller than all other strings, and not equal to empty
 * strings") and, since realm-core PR 7273 ("Lexicographical
 * comparison for string queries"), its query comparisons of strings
 * <, <=, >, >= do: `s < 'a'` and `s <= 'a'` hold for a null s, `s > 'a'`
 * and `s >= 'a'` do not. Other operators as compare_null_result. The
 * binder applies it to a string property of the queried object (or of a
 * SUBQUERY's variable) against a non-null string constant without [c] or
 * [d] (bind_predicate.c, null_string_first); elsewhere a null still
 * matches no ordering (compare_null_result). */
bool compare_null_string_result(parse_op op, bool null_on_left);

/* Whether `needle` makes BEGINSWITH, ENDSWITH or CONTAINS false for every
 * value: nil or an empty string or binary. Realm Swift's query builder
 * (Realm/RLMQueryUtil.mm, add_substring_constraint: "Foundation always
 * returns false for substring operations with a RHS of null or \"\"")
 * checks the needle before any [c]/[d] folding. False for other operators. */
bool compare_empty_needle(parse_op op, const ce_value *needle);

/* The result of `a op b` (op: ==, !=, <, <=, >, >=, or a string operator)
 * for any two values, with the semantics of query.h; [c]/[d] in `flags`
 * fold strings through `f`. False only when memory runs out. */
bool compare_values(const ce_value *a, parse_op op, const ce_value *b, unsigned flags, folder *f, bool *out);

#endif
