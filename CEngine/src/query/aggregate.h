/*
 * aggregate.h — the aggregator of @count, @sum, @avg, @min and @max
 * (aggregate.c), fed one value at a time.
 *
 * Owns: the aggregator's state (an exact sum included) and its calls:
 * which types an aggregate takes, start, add one value, result.
 * Never: reads the database: scan.c, gather.c and results.c feed it.
 */
#ifndef CE_AGGREGATE_H
#define CE_AGGREGATE_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A signed 128-bit sum, two's complement, as two words. */
typedef struct exact_sum {
    uint64_t low, high;
} exact_sum;

typedef struct aggregator {
    ce_aggregate aggregate;
    ce_type type; /* the values' type */
    size_t counted;
    bool has_value;
    ce_value best;       /* MIN, MAX */
    uint64_t int_sum;    /* SUM of ints (wraps) */
    exact_sum int_total; /* AVG of ints: the exact sum */
    double real_sum;
    ce_decimal128 decimal_sum;
    /* AVG of decimals once the sum of finite values overflowed: the mean
     * so far, kept as mean * (k-1)/k + value/k, which cannot overflow. */
    bool decimal_sum_overflowed, decimal_nonfinite;
    ce_decimal128 decimal_mean;
    bool numbers_only; /* values of a mixed collection: only numbers count (COUNT excepted) */
} aggregator;

/* Whether an aggregate takes values of `type`. */
bool aggregate_supported(ce_aggregate aggregate, ce_type type);

/* "min", "max", "sum", "average", "count", for messages. */
const char *aggregate_name(ce_aggregate aggregate);

/* Starts an aggregate of values of `type` (CE_TYPE_MIXED: numbers of any
 * type, compared by value for min and max). */
void aggregate_init(aggregator *a, ce_aggregate aggregate, ce_type type);

/* Adds a value (null is skipped). */
void aggregate_add(aggregator *a, const ce_value *value);

/* The aggregate of the values added: null for the min, max or average of
 * none, 0 for their sum or count. */
void aggregate_result(const aggregator *a, ce_value *out);

#endif
