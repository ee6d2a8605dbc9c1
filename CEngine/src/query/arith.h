/*
 * arith.h — the value of an arithmetic expression in a query comparison
 * (`age + 1 > 5`, `price * 2 <= budget`): the result type of an operator
 * over two operand types, and one operator applied to two values (arith.c).
 *
 * Owns: realm-core's rules for +, -, * and / on numbers (the common type,
 * null in gives null out, integer division by zero, wrapping).
 * Never: parses (parse.c), binds paths (bind_predicate.c) or reads objects
 * (eval.c walks the expression and calls arith_apply per operator).
 */
#ifndef CE_ARITH_H
#define CE_ARITH_H

#include "cengine.h"

#include <stdbool.h>

/* Whether values of `type` may be operands: int, float, double,
 * decimal128, or mixed (a number per object, else the result is null). */
bool arith_type_allowed(ce_type type);

/* The type `a op b` yields: the more advanced of the two (int < float <
 * double < decimal128), CE_TYPE_MIXED when either is mixed (decided per
 * object), CE_TYPE_NULL when either is a null constant. */
ce_type arith_result_type(ce_type a, ce_type b);

/* `a op b` (op: '+', '-', '*', '/'): null when either is null or not a
 * number (a mixed value holding a string, say). */
void arith_apply(char op, const ce_value *a, const ce_value *b, ce_value *out);

#endif
