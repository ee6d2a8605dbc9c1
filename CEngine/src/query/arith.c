/*
 * arith.c — the value of an arithmetic expression in a query comparison:
 * the result type of +, -, * and / over two numbers, and the operators.
 *
 * Owns: arith.h's calls. The rules are realm-core's (src/realm/mixed.cpp,
 * Mixed::operator+, -, *, /, which query_expression.hpp's
 * Operator<Plus/Minus/Mul/Div> apply value by value):
 *   - null in, null out ("if (!is_null() && !rhs.is_null())", else {});
 *   - the common type is the larger DataType (get_common_type: std::max),
 *     so int op float is float, int op double and float op double are
 *     double, anything op decimal128 is decimal128; a bool or any other
 *     type there gives null (the `default:` of each switch);
 *   - int / 0 gives INT64_MAX, or INT64_MIN when the dividend is negative
 *     ("We don't want to throw here ... we would just expect a no match");
 *     float and double division by zero is IEEE (infinity or NaN).
 * Integers wrap on overflow (two's complement), where C++ leaves it
 * undefined; INT64_MIN / -1 wraps to INT64_MIN.
 * Never: reads objects or knows about paths.
 */
#include "arith.h"

#include <stdint.h>

bool arith_type_allowed(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE || type == CE_TYPE_DECIMAL128 ||
           type == CE_TYPE_MIXED;
}

/* realm-core's DataType order among the numbers: Int 0, Float 9, Double 10,
 * Decimal 11 (data_type.hpp); 0 for what is not a number. */
static int rank(ce_type type)
{
    switch (type) {
    case CE_TYPE_INT: return 1;
    case CE_TYPE_FLOAT: return 2;
    case CE_TYPE_DOUBLE: return 3;
    case CE_TYPE_DECIMAL128: return 4;
    default: return 0;
    }
}

ce_type arith_result_type(ce_type a, ce_type b)
{
    if (a == CE_TYPE_NULL || b == CE_TYPE_NULL) return CE_TYPE_NULL;
    if (a == CE_TYPE_MIXED || b == CE_TYPE_MIXED) return CE_TYPE_MIXED;
    return rank(a) >= rank(b) ? a : b;
}

static double as_double(const ce_value *v)
{
    switch (v->type) {
    case CE_TYPE_INT: return (double)v->integer;
    case CE_TYPE_FLOAT: return (double)v->float_value;
    default: return v->double_value;
    }
}

static float as_float(const ce_value *v)
{
    return v->type == CE_TYPE_INT ? (float)v->integer : v->float_value;
}

static ce_decimal128 as_decimal(const ce_value *v)
{
    switch (v->type) {
    case CE_TYPE_INT: return ce_decimal128_from_int64(v->integer);
    case CE_TYPE_FLOAT: return ce_decimal128_from_double((double)v->float_value);
    case CE_TYPE_DOUBLE: return ce_decimal128_from_double(v->double_value);
    default: return v->decimal;
    }
}

static int64_t int_apply(char op, int64_t a, int64_t b)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    switch (op) {
    case '+': return (int64_t)(x + y);
    case '-': return (int64_t)(x - y);
    case '*': return (int64_t)(x * y);
    default:
        if (b == 0) return a < 0 ? INT64_MIN : INT64_MAX;
        if (b == -1) return (int64_t)(0 - x);
        return a / b;
    }
}

void arith_apply(char op, const ce_value *a, const ce_value *b, ce_value *out)
{
    int ra = rank(a->type), rb = rank(b->type);
    if (!ra || !rb) {
        *out = (ce_value){.type = CE_TYPE_NULL};
        return;
    }
    switch (ra >= rb ? a->type : b->type) {
    case CE_TYPE_INT: *out = (ce_value){.type = CE_TYPE_INT, .integer = int_apply(op, a->integer, b->integer)}; return;
    case CE_TYPE_FLOAT: {
        float x = as_float(a), y = as_float(b);
        float r = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
        *out = (ce_value){.type = CE_TYPE_FLOAT, .float_value = r};
        return;
    }
    case CE_TYPE_DOUBLE: {
        double x = as_double(a), y = as_double(b);
        double r = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
        *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = r};
        return;
    }
    default: {
        ce_decimal128 x = as_decimal(a), y = as_decimal(b);
        ce_decimal128 r = op == '+'   ? ce_decimal128_add(x, y)
                          : op == '-' ? ce_decimal128_subtract(x, y)
                          : op == '*' ? ce_decimal128_multiply(x, y)
                                      : ce_decimal128_divide(x, y);
        *out = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = r};
        return;
    }
    }
}
