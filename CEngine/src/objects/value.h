/*
 * value.h — the shared vocabulary of values: type names, the validity of
 * a timestamp, the default value of a property, a total order, equality
 * and hashing (UTF-8 checking is base/utf8.h's).
 *
 * Owns: what it means for two ce_values to be equal or ordered, and a hash
 * that agrees with that equality, so that every layer (columns, indexes,
 * queries, sets and maps) sorts, deduplicates and looks up values the same
 * way.
 * Never: stores, allocates or reads the file. A value's bytes belong to the
 * caller; nothing here keeps a pointer past the call.
 *
 * The order, within one type:
 *   null           first, before every other value (and equal to null)
 *   int            numeric
 *   bool           false < true
 *   float, double  numeric; every NaN is equal to every other NaN and ordered
 *                  before all numbers; -0.0 equals 0.0
 *   string, binary bytewise: memcmp over the shorter length, then the shorter
 *                  first ("ab" < "abc" < "b")
 *   timestamp      by seconds, then nanoseconds
 *   decimal128     numeric (IEEE 754-2008, BID encoding): NaN first (all NaNs
 *                  equal), then -infinity, negative numbers, zero (every zero
 *                  of any sign and exponent), positive numbers, +infinity.
 *                  Representations of one number are equal: 1E0 == 10E-1.
 *   object id, uuid bytewise
 *   link           by table, then object key
 * Values of different types are ordered by their type number (ce_type):
 * null < int < bool < float < ... < link. No numeric comparison crosses types
 * here (an int 1 is not equal to a double 1.0); a query that wants that
 * converts first.
 */
#ifndef CE_VALUE_H
#define CE_VALUE_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The decimal128 zero with exponent 0 (BID: biased exponent 6176, coefficient 0). */
#define VALUE_DECIMAL128_ZERO_HIGH 0x3040000000000000ull

/* Whether a timestamp is well formed: |nanoseconds| < 1e9, and nanoseconds
 * has the sign of seconds (either sign when seconds is 0). */
bool value_timestamp_is_valid(ce_timestamp timestamp);

/* Whether a value's type tag is one of ce_type's; if not, fails with
 * CE_ERR_INVALID_ARGUMENT, "the value's type N is not a ce_type" (a value
 * a caller built from memory it did not initialize, or from a newer
 * header). Every call that takes a ce_value checks it first. */
bool value_check_type(const ce_value *value);

/* Whether a string or binary value claims bytes it has no data for
 * (size > 0, data == NULL): a value no call may read. */
bool value_bytes_missing(const ce_value *value);

/* The default value of a property of `type`: null when nullable, else 0,
 * false, 0.0, "", empty binary, timestamp 0, decimal128 0E0, all-zero object
 * id and uuid. Strings and binaries point to a static empty string. Types
 * without a default (null, mixed, link) give null. */
ce_value value_default(ce_type type, bool nullable);

/* -1, 0 or 1: the total order described above. */
int value_compare(const ce_value *a, const ce_value *b);

/* -1, 0 or 1: the order of strings and binaries above, over raw bytes.
 * A pointer may be NULL when its size is 0 (memcmp's may not be). */
static inline int value_compare_bytes(const void *a, size_t a_size, const void *b, size_t b_size)
{
    size_t shorter = a_size < b_size ? a_size : b_size;
    if (shorter > 0) {
        int order = memcmp(a, b, shorter);
        if (order != 0) return order < 0 ? -1 : 1;
    }
    return a_size < b_size ? -1 : (a_size > b_size ? 1 : 0);
}

/* Whether two byte strings are the same bytes (NULL allowed with size 0). */
static inline bool value_bytes_equal(const void *a, size_t a_size, const void *b, size_t b_size)
{
    return a_size == b_size && (a_size == 0 || memcmp(a, b, a_size) == 0);
}

/* value_compare(a, b) == 0; for strings and binaries exactly the same bytes. */
bool value_equal(const ce_value *a, const ce_value *b);

/* The same value stored: the same type and the same bits (floats, doubles
 * and decimals bit for bit: 0.0 and -0.0 differ, as do decimal 1.0 and
 * 1.00, and NaNs of other payloads), strings and binaries the same bytes.
 * What a change computation compares: a value that reads back otherwise
 * has changed, even if it compares equal. */
bool value_identical(const ce_value *a, const ce_value *b);

/* A hash that agrees with value_equal: equal values hash equal, including
 * -0.0 and 0.0, any two NaNs, and the representations of one decimal. */
uint64_t value_hash(const ce_value *value);

#endif
