/*
 * test_query_support.h — what the query test programs share: their random
 * numbers, the pools of values objects and constants come from, numbers
 * compared the model's way, and checks of results and of errors.
 *
 * Owns: the helpers every test_query_*.c program uses (test_query_model.h
 * adds the Thing table and its model).
 * Never: holds a case, or data of one program only.
 */
#ifndef CE_TEST_QUERY_SUPPORT_H
#define CE_TEST_QUERY_SUPPORT_H

#include "test_support.h"
#include "query.h"

#include <math.h>

static uint64_t random_state = 0x51DE5EED;
static inline uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline size_t pick(size_t n) { return (size_t)(next_random() % n); }

/* Every case starts its random numbers here (the fixtures do it): a case
 * run alone sees the numbers it sees among the others. */
static inline void random_restart(void) { random_state = 0x51DE5EED; }

static inline void expect_error(bool ok, ce_error_code code, const char *fragment)
{
    if (ok || ce_last_error_code() != code || (fragment && !strstr(ce_last_error_message(), fragment))) {
        fprintf(stderr, "expected error [%d] containing '%s', got %s [%d] %s\n", (int)code, fragment ? fragment : "",
                ok ? "success" : "failure", (int)ce_last_error_code(), ce_last_error_message());
        exit(1);
    }
}
typedef struct bytes {
    const char *data;
    size_t size;
} bytes;

/* Pools of values: objects take theirs from these, queries compare with them. */
static const int64_t int_pool[] = {0, 1, -1, 2, 3, 7, 100, -100, INT64_MAX, INT64_MIN};
static const float float_pool[] = {0.0f, -0.0f, 1.5f, -2.25f, 3.0f, NAN, INFINITY, 1e-3f};
static const double double_pool[] = {0.0, -0.0, 0.5, 1.5, -2.25, 3.0, NAN, -INFINITY, 1e300, 0.1};
static const bytes binary_pool[] = {{"", 0}, {"\0", 1}, {"\0\1", 2}, {"ab", 2}, {"abc", 3}, {"\xff\xfe", 2}, {"A", 1}};
#define TEXT(literal) {literal, sizeof(literal) - 1}
static const bytes string_pool[] = {
    TEXT(""), TEXT("a"), TEXT("A"), TEXT("abc"), TEXT("ABC"), TEXT("Ann"), TEXT("annabel"), TEXT("Zoë"), TEXT("zoe"),
    TEXT("ZOË"), TEXT("ÉLISE"), TEXT("élise"), TEXT("elise"), TEXT("naïve"), TEXT("NAÏVE"), TEXT("a*b?"), TEXT("łódź"),
    TEXT("ŁÓDŹ"), TEXT("Ά"), TEXT("ά"), TEXT("ё"), TEXT("Ё"), TEXT("日本"), TEXT("x\0y"), TEXT("Straße")};
static const ce_timestamp timestamp_pool[] = {{0, 0}, {1, 0}, {1, 5}, {-1, -5}, {1700000000, 0}, {1700000000, 999999999},
                                              {-62135596800, 0}};

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

/* A decimal128 (BID) from a coefficient below 2^63 and an exponent. */
static inline ce_decimal128 decimal(int64_t coefficient, int exponent)
{
    uint64_t magnitude = coefficient < 0 ? 0 - (uint64_t)coefficient : (uint64_t)coefficient;
    uint64_t biased = (uint64_t)(exponent + 6176);
    return (ce_decimal128){magnitude, (coefficient < 0 ? 1ull << 63 : 0) | (biased << 49)};
}
static inline ce_decimal128 decimal_nan(void) { return (ce_decimal128){0, 0x7C00000000000000ull}; }

typedef struct decimal_entry {
    int64_t coefficient;
    int exponent;
    bool nan;
    const char *text; /* a literal for it */
} decimal_entry;
static const decimal_entry decimal_pool[] = {{0, 0, false, "0"},       {15, -1, false, "1.5"},  {150, -2, false, "1.50"},
                                             {-3, 0, false, "-3"},     {1, 10, false, "1e10"},  {1, -1, false, "0.1"},
                                             {25, -1, false, "2.5"},   {0, 0, true, "nan"},     {-15, -1, false, "-1.5"}};
static inline ce_decimal128 decimal_of_entry(const decimal_entry *e) { return e->nan ? decimal_nan() : decimal(e->coefficient, e->exponent); }

static inline ce_object_id object_id_of(int k)
{
    ce_object_id id;
    for (int i = 0; i < 12; i++) id.bytes[i] = (uint8_t)(k == 3 ? 0xFF : k * 17 + (i == 11 ? k : 0));
    return id;
}
static inline ce_uuid uuid_of(int k)
{
    ce_uuid u;
    for (int i = 0; i < 16; i++) u.bytes[i] = (uint8_t)(k == 3 ? 0xFF : (k * 31 + i * (k & 1)) & 0xFF);
    return u;
}

/* 10^e without libm (the test links none). */
static inline long double power_of_ten(int e)
{
    long double result = 1;
    for (int i = 0; i < (e < 0 ? -e : e); i++) result *= 10;
    return e < 0 ? 1 / result : result;
}
static inline long double magnitude(long double x) { return x < 0 ? -x : x; }

static inline bool is_number(ce_type t) { return t == CE_TYPE_INT || t == CE_TYPE_FLOAT || t == CE_TYPE_DOUBLE; }
static inline long double number_of(const ce_value *v)
{
    return v->type == CE_TYPE_INT ? (long double)v->integer
           : v->type == CE_TYPE_FLOAT ? (long double)v->float_value
                                      : (long double)v->double_value;
}
static inline bool is_nan(const ce_value *v)
{
    return (v->type == CE_TYPE_FLOAT && isnan(v->float_value)) || (v->type == CE_TYPE_DOUBLE && isnan(v->double_value)) ||
           (v->type == CE_TYPE_DECIMAL128 && ((v->decimal.high >> 58) & 0x1F) == 0x1F);
}

static inline int bytes_order(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

/* Queries checked against a model, reported when the program ends. */
static size_t checked_queries;
__attribute__((destructor)) static void report_checked_queries(void)
{
    if (checked_queries) printf("%zu queries checked against the model\n", checked_queries);
}

static inline void check_keys(const char *predicate, ce_results *results, ce_txn *txn, const ce_object_key *expected, size_t count)
{
    size_t n;
    CHECK(ce_results_count(results, txn, &n));
    if (n != count) {
        fprintf(stderr, "'%s': results hold %zu objects, the model %zu\n", predicate, n, count);
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        CHECK(ce_results_get(results, txn, i, &key));
        if (key != expected[i]) {
            fprintf(stderr, "'%s': object %zu is %lld, the model says %lld\n", predicate, i, (long long)key,
                    (long long)expected[i]);
            exit(1);
        }
    }
    /* The same keys read in bulk: all at once, then in chunks of 7. */
    ce_object_key *bulk = malloc((count + 1) * sizeof *bulk);
    CHECK(bulk != NULL);
    size_t got;
    CHECK(ce_results_get_range(results, txn, 0, count + 1, bulk, &got) && got == count);
    CHECK(count == 0 || memcmp(bulk, expected, count * sizeof *bulk) == 0);
    for (size_t at = 0; at < count; at += got) {
        CHECK(ce_results_get_range(results, txn, at, 7, bulk, &got) && got == (count - at < 7 ? count - at : 7));
        CHECK(memcmp(bulk, expected + at, got * sizeof *bulk) == 0);
    }
    free(bulk);
}

/* Closes a case's database after ce_db_verify has checked all of it (the
 * programs verified their one database at the end). */
static inline void close_verified(test_db *t)
{
    test_verify(t->db);
    test_db_close(t);
}

/* The table expect_query_error parses against (the Thing table of
 * test_query_model.h, or another a case sets). */
static ce_table_key things;

static inline void expect_query_error(ce_txn *txn, const char *predicate, const ce_query_argument *arguments, size_t count,
                                      const char *fragment)
{
    ce_query *query = NULL;
    bool ok = ce_query_parse(txn, things, predicate, arguments, count, &query);
    if (ok) ce_query_free(query);
    if (ok || ce_last_error_code() != CE_ERR_INVALID_QUERY || !strstr(ce_last_error_message(), fragment)) {
        fprintf(stderr, "'%s': expected an invalid query error containing \"%s\", got %s: %s\n", predicate, fragment,
                ok ? "success" : "failure", ce_last_error_message());
        exit(1);
    }
}

static inline size_t count_of(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments, size_t n)
{
    ce_query *query;
    if (!ce_query_parse(txn, table, predicate, arguments, n, &query)) {
        fprintf(stderr, "'%s': %s\n", predicate, ce_last_error_message());
        exit(1);
    }
    size_t count;
    CHECK(ce_query_count(query, txn, &count));
    ce_query_free(query);
    return count;
}

static inline void expect_int(const char *what, const ce_value *value, int64_t expected)
{
    if (value->type != CE_TYPE_INT || value->integer != expected) {
        fprintf(stderr, "%s: got type %d value %lld, the model %lld\n", what, (int)value->type, (long long)value->integer,
                (long long)expected);
        exit(1);
    }
}

static inline void expect_double(const char *what, const ce_value *value, bool is_null, double expected)
{
    bool ok = is_null ? value->type == CE_TYPE_NULL
                      : value->type == CE_TYPE_DOUBLE &&
                            (value->double_value == expected || (isnan(value->double_value) && isnan(expected)));
    if (!ok) {
        fprintf(stderr, "%s: got type %d value %.17g, the model %s %.17g\n", what, (int)value->type,
                value->type == CE_TYPE_DOUBLE ? value->double_value : 0.0, is_null ? "null" : "", expected);
        exit(1);
    }
}

#endif
