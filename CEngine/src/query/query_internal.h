/*
 * query_internal.h — what the files of the query layer share: the bound
 * tree (a predicate bound to a table's columns) and the query core that a
 * ce_query and its ce_results hold.
 *
 * Owns: the types of the bound tree; nothing here reads or allocates.
 * Never: included from outside CEngine/src/query.
 */
#ifndef CE_QUERY_INTERNAL_H
#define CE_QUERY_INTERNAL_H

#include "cengine.h"
#include "error.h"

#include <stdbool.h>
#include <stdint.h>

static inline bool query_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory in a query"); }

/* Decimal128 (query.c for now; base/decimal.c will hold all of it). */
bool decimal_from_text(const char *text, ce_decimal128 *out);
ce_decimal128 decimal_from_int(int64_t value);
ce_decimal128 decimal_from_double(double value);
bool decimal_is_nan(ce_decimal128 d);
ce_decimal128 decimal_add(ce_decimal128 x, ce_decimal128 y);
ce_decimal128 decimal_divide_by_count(ce_decimal128 x, uint64_t count);

#endif
