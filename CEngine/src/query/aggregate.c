/*
 * aggregate.c — @count, @sum, @avg, @min and @max: one aggregator that
 * results, key paths (list.@sum.price) and collections of values share.
 *
 * Owns: what each aggregate yields for each type (int sums wrap, int
 * averages come from an exact 128-bit sum, decimal128 sums and averages are
 * exact decimal arithmetic, a mixed collection aggregates its numbers as
 * decimal128, and its min and max its numbers and dates), and the errors
 * for types an aggregate does not take.
 * Never: reads values itself except through a collection reader, or keeps
 * a pointer to a value's bytes (min and max of numbers and timestamps only).
 */
#include "aggregate.h"
#include "compare.h"
#include "decimal.h"
#include "error.h"
#include "query_internal.h"
#include "table.h"
#include "value.h"

#include <string.h>

bool aggregate_supported(ce_aggregate aggregate, ce_type type)
{
    switch (aggregate) {
    case CE_AGGREGATE_COUNT: return true;
    case CE_AGGREGATE_MIN:
    case CE_AGGREGATE_MAX: return compare_is_number(type) || type == CE_TYPE_TIMESTAMP;
    case CE_AGGREGATE_SUM:
    case CE_AGGREGATE_AVG: return compare_is_number(type);
    }
    return false;
}

const char *aggregate_name(ce_aggregate aggregate)
{
    switch (aggregate) {
    case CE_AGGREGATE_MIN: return "min";
    case CE_AGGREGATE_MAX: return "max";
    case CE_AGGREGATE_SUM: return "sum";
    case CE_AGGREGATE_AVG: return "average";
    case CE_AGGREGATE_COUNT: return "count";
    }
    return "?";
}

/* The order of two mixed values for min and max: numbers of any numeric
 * types by value, NaN first (as value_compare orders one type), before
 * timestamps (Realm's order of mixed values ranks numbers below dates). */
static int mixed_number_order(const ce_value *a, const ce_value *b)
{
    bool a_time = a->type == CE_TYPE_TIMESTAMP, b_time = b->type == CE_TYPE_TIMESTAMP;
    if (a_time || b_time) return a_time == b_time ? value_compare(a, b) : a_time ? 1 : -1;
    bool a_nan = compare_is_nan(a), b_nan = compare_is_nan(b);
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : a_nan ? -1 : 1;
    return compare_numbers(a, b);
}

void aggregate_init(aggregator *a, ce_aggregate aggregate, ce_type type)
{
    memset(a, 0, sizeof *a);
    a->aggregate = aggregate;
    a->type = type;
    a->decimal_sum = (ce_decimal128){0, VALUE_DECIMAL128_ZERO_HIGH};
}

/* The mean of the first `count` values from the mean of those before it. */
static ce_decimal128 next_mean(ce_decimal128 mean, ce_decimal128 value, uint64_t count)
{
    ce_decimal128 kept = decimal_subtract(mean, decimal_divide_by_count(mean, count));
    return decimal_add(kept, decimal_divide_by_count(value, count));
}

static void add_decimal(aggregator *a, ce_decimal128 value)
{
    ce_decimal128 sum = decimal_add(a->decimal_sum, value);
    if (a->aggregate == CE_AGGREGATE_AVG) {
        if (decimal_is_infinite(value) || decimal_is_nan(value)) a->decimal_nonfinite = true;
        if (a->decimal_sum_overflowed) {
            a->decimal_mean = next_mean(a->decimal_mean, value, a->counted);
        } else if (decimal_is_infinite(sum) && !a->decimal_nonfinite) {
            /* The sum of finite values overflowed, but their average is
             * finite: from here on the mean is kept instead (the first
             * value alone never overflows, so counted >= 2). */
            a->decimal_sum_overflowed = true;
            a->decimal_mean = next_mean(decimal_divide_by_count(a->decimal_sum, a->counted - 1), value, a->counted);
        }
    }
    a->decimal_sum = sum;
}

void aggregate_add(aggregator *a, const ce_value *value)
{
    if (value->type == CE_TYPE_NULL) return;
    a->counted++;
    switch (a->aggregate) {
    case CE_AGGREGATE_COUNT: return;
    case CE_AGGREGATE_MIN:
    case CE_AGGREGATE_MAX: {
        int order = !a->has_value ? 0 : a->type == CE_TYPE_MIXED ? mixed_number_order(value, &a->best)
                                                                  : value_compare(value, &a->best);
        if (!a->has_value || (a->aggregate == CE_AGGREGATE_MIN ? order < 0 : order > 0)) a->best = *value;
        a->has_value = true;
        return;
    }
    case CE_AGGREGATE_SUM:
    case CE_AGGREGATE_AVG:
        switch (value->type) {
        case CE_TYPE_INT: {
            a->int_sum += (uint64_t)value->integer;
            exact_sum addend = {(uint64_t)value->integer, value->integer < 0 ? ~0ull : 0};
            exact_sum sum = {a->int_total.low + addend.low, a->int_total.high + addend.high};
            if (sum.low < a->int_total.low) sum.high++;
            a->int_total = sum;
            break;
        }
        case CE_TYPE_FLOAT:
        case CE_TYPE_DOUBLE: a->real_sum += compare_real_of(value); break;
        case CE_TYPE_DECIMAL128: add_decimal(a, value->decimal); break;
        default: break;
        }
        return;
    }
}

void aggregate_result(const aggregator *a, ce_value *out)
{
    memset(out, 0, sizeof *out);
    switch (a->aggregate) {
    case CE_AGGREGATE_COUNT: *out = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)a->counted}; return;
    case CE_AGGREGATE_MIN:
    case CE_AGGREGATE_MAX:
        if (a->has_value) *out = a->best;
        else out->type = CE_TYPE_NULL;
        return;
    case CE_AGGREGATE_SUM:
        if (a->type == CE_TYPE_INT) *out = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)a->int_sum};
        else if (a->type == CE_TYPE_DECIMAL128) *out = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = a->decimal_sum};
        else *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = a->real_sum};
        return;
    case CE_AGGREGATE_AVG:
        if (a->counted == 0) {
            out->type = CE_TYPE_NULL;
        } else if (a->type == CE_TYPE_INT) {
            exact_sum total = a->int_total;
            bool negative = (total.high >> 63) != 0;
            if (negative) {
                total.low = ~total.low + 1;
                total.high = ~total.high + (total.low == 0);
            }
            double magnitude = (double)total.high * 18446744073709551616.0 + (double)total.low;
            *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = (negative ? -magnitude : magnitude) / (double)a->counted};
        } else if (a->type == CE_TYPE_DECIMAL128) {
            ce_decimal128 average = a->decimal_sum_overflowed && !a->decimal_nonfinite
                                        ? a->decimal_mean
                                        : decimal_divide_by_count(a->decimal_sum, a->counted);
            *out = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = average};
        } else {
            *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = a->real_sum / (double)a->counted};
        }
        return;
    }
}

/* ------------------------------------------------------------------------ */
/* Aggregates of a collection of values                                      */
/* ------------------------------------------------------------------------ */

/* Starts the aggregate of a collection of `element` values (checked):
 * a mixed collection aggregates the numbers among it, summed and averaged
 * exactly as decimal128 (as Realm does), and its numbers and dates by min
 * and max; other values are skipped like nulls, except by count. */
static bool values_aggregator_start(aggregator *a, ce_aggregate aggregate, ce_type element)
{
    if ((unsigned)aggregate > CE_AGGREGATE_COUNT)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "unknown aggregate %d", (int)aggregate);
    bool mixed = element == CE_TYPE_MIXED;
    if (element == CE_TYPE_LINK && aggregate != CE_AGGREGATE_COUNT)
        return error_fail(CE_ERR_WRONG_TYPE,
                       "cannot compute the %s of a collection of links: aggregate a property of its objects through "
                       "ce_results_from_collection and ce_results_aggregate",
                       aggregate_name(aggregate));
    if (!mixed && !aggregate_supported(aggregate, element))
        return error_fail(CE_ERR_WRONG_TYPE, "cannot compute the %s of a collection of %s values", aggregate_name(aggregate),
                       ce_type_name(element));
    bool as_decimal = mixed && (aggregate == CE_AGGREGATE_SUM || aggregate == CE_AGGREGATE_AVG);
    aggregate_init(a, aggregate, as_decimal ? CE_TYPE_DECIMAL128 : element);
    a->numbers_only = mixed && aggregate != CE_AGGREGATE_COUNT;
    return true;
}

static void values_aggregator_add(aggregator *a, ce_value value)
{
    if (a->numbers_only) {
        /* Min and max of mixed values also take dates (Realm returns the earliest or
         * latest date of a collection of dates); sum and average take numbers. */
        bool ordered = a->aggregate == CE_AGGREGATE_MIN || a->aggregate == CE_AGGREGATE_MAX;
        if (!compare_is_number(value.type) && !(ordered && value.type == CE_TYPE_TIMESTAMP)) return;
        if (a->type == CE_TYPE_DECIMAL128) value = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = compare_decimal_of(&value)};
    }
    aggregate_add(a, &value);
}

bool ce_collection_aggregate(const ce_collection *collection, ce_aggregate aggregate, ce_value *out_value)
{
    if (!containers_check(collection, "ce_collection_aggregate")) return false;
    if (!collection || !out_value) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_aggregate: arguments are required");
    ce_collection_type kind;
    ce_type element;
    aggregator a;
    if (!ce_collection_kind(collection, &kind, &element) || !values_aggregator_start(&a, aggregate, element))
        return false;
    table_collection_reader *reader = NULL;
    size_t size;
    bool ok = table_collection_reader_open(collection, false, &reader, &size);
    for (size_t i = 0; ok && i < size; i++) {
        ce_value value;
        ok = table_collection_reader_get(reader, i, &value);
        if (ok) values_aggregator_add(&a, value);
    }
    table_collection_reader_close(reader);
    if (ok) aggregate_result(&a, out_value);
    return ok;
}

bool ce_values_aggregate(const ce_value *values, size_t count, ce_type element, ce_aggregate aggregate, ce_value *out_value)
{
    if ((count && !values) || !out_value)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_values_aggregate: arguments are required");
    aggregator a;
    if (!values_aggregator_start(&a, aggregate, element)) return false;
    for (size_t i = 0; i < count; i++) {
        if (!value_check_type(&values[i])) return false;
        ce_type type = values[i].type;
        if (type != CE_TYPE_NULL && element != CE_TYPE_MIXED && type != element)
            return error_fail(CE_ERR_WRONG_TYPE, "ce_values_aggregate: value %zu is a %s, not a %s", i, ce_type_name(type),
                           ce_type_name(element));
        values_aggregator_add(&a, values[i]);
    }
    aggregate_result(&a, out_value);
    return true;
}
