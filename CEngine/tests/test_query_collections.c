/*
 * test_query_collections.c — collections of values through the query
 * layer: ce_collection_aggregate, ce_collection_sorted_indices and
 * ce_collection_ordered_indices (sorts and distincts chained) over
 * collections of every numeric type, timestamps and mixed values (empty,
 * all null, with NaN) against a brute-force model, ce_values_aggregate
 * against ce_collection_aggregate, and collections of several chunks read
 * by every loop of the query layer over a collection's values.
 *
 * Owns: the cases on aggregates, order and queries of collections of
 * values.
 * Never: compares with a result the engine computed another way unless
 * the case is about that agreement (values_aggregate_matches_collection).
 */
#include "test_query_support.h"

/* The value of a decimal128 of the model's pools (a coefficient below
 * 2^64, no NaN). */
static long double decimal_number(ce_decimal128 d)
{
    bool negative = d.high >> 63;
    int exponent = (int)((d.high >> 49) & 0x3FFF) - 6176;
    long double coefficient = (long double)d.low + (long double)(d.high & ((1ull << 49) - 1)) * 18446744073709551616.0L;
    long double value = exponent >= 0 ? coefficient * power_of_ten(exponent) : coefficient / power_of_ten(-exponent);
    return negative ? -value : value;
}

static bool numeric_value(const ce_value *v) { return is_number(v->type) || v->type == CE_TYPE_DECIMAL128; }

static long double any_number(const ce_value *v)
{
    return v->type == CE_TYPE_DECIMAL128 ? decimal_number(v->decimal) : number_of(v);
}

/* The model's min/max order of two values of one element type (NaN first,
 * numbers of a mixed collection by value, before its dates). */
static int model_aggregate_order(const ce_value *a, const ce_value *b)
{
    bool a_time = a->type == CE_TYPE_TIMESTAMP, b_time = b->type == CE_TYPE_TIMESTAMP;
    if (a_time != b_time) return a_time ? 1 : -1;
    if (a_time) {
        if (a->timestamp.seconds != b->timestamp.seconds) return a->timestamp.seconds < b->timestamp.seconds ? -1 : 1;
        return (a->timestamp.nanoseconds > b->timestamp.nanoseconds) - (a->timestamp.nanoseconds < b->timestamp.nanoseconds);
    }
    if (is_nan(a) || is_nan(b)) return is_nan(a) == is_nan(b) ? 0 : is_nan(a) ? -1 : 1;
    if (a->type == CE_TYPE_INT && b->type == CE_TYPE_INT) return (a->integer > b->integer) - (a->integer < b->integer);
    long double x = any_number(a), y = any_number(b);
    return (x > y) - (x < y);
}

static bool close_enough(long double got, long double expected)
{
    long double difference = magnitude(got - expected), scale = magnitude(expected) > 1 ? magnitude(expected) : 1;
    return difference <= scale * 1e-12L;
}

/* The element types of the numbers table, each a nullable list, and a set
 * of ints. */
enum { N_INT, N_FLOAT, N_DOUBLE, N_DECIMAL, N_TIMESTAMP, N_MIXED, N_INT_SET, N_COUNT, N_ITEMS = 9, N_OBJECTS = 40 };
static const ce_type number_types[N_COUNT] = {CE_TYPE_INT,       CE_TYPE_FLOAT, CE_TYPE_DOUBLE, CE_TYPE_DECIMAL128,
                                              CE_TYPE_TIMESTAMP, CE_TYPE_MIXED, CE_TYPE_INT};

static ce_value random_number_element(int n)
{
    if (n != N_MIXED && pick(4) == 0) return (ce_value){.type = CE_TYPE_NULL};
    switch (n) {
    case N_INT:
    case N_INT_SET: return (ce_value){.type = CE_TYPE_INT, .integer = int_pool[pick(COUNT_OF(int_pool))]};
    case N_FLOAT: return (ce_value){.type = CE_TYPE_FLOAT, .float_value = float_pool[pick(COUNT_OF(float_pool))]};
    case N_DOUBLE: return (ce_value){.type = CE_TYPE_DOUBLE, .double_value = double_pool[pick(COUNT_OF(double_pool))]};
    case N_DECIMAL: {
        const decimal_entry *e = &decimal_pool[pick(COUNT_OF(decimal_pool))];
        if (e->nan) e = &decimal_pool[0];
        return (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = decimal_of_entry(e)};
    }
    case N_TIMESTAMP: return (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = timestamp_pool[pick(COUNT_OF(timestamp_pool))]};
    default:
        switch (pick(8)) {
        case 0: return (ce_value){.type = CE_TYPE_NULL};
        case 1: return (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)pick(20) - 10};
        case 2: return (ce_value){.type = CE_TYPE_DOUBLE, .double_value = (double)pick(20) / 4 - 2};
        case 3: return (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)pick(8) / 2};
        case 4: return (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = decimal((int64_t)pick(30) - 15, -1)};
        case 5: return (ce_value){.type = CE_TYPE_STRING, .string = {"7", 1}};
        case 6: return (ce_value){.type = CE_TYPE_BOOL, .boolean = true};
        default: return (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {5, 0}};
        }
    }
}

/* ce_collection_aggregate of each aggregate against a brute-force one of
 * the elements as read back (a set's are in its own order). */
static void check_collection_aggregates(ce_collection *collection, int n, const ce_value *elements, size_t count)
{
    ce_type type = number_types[n];
    bool mixed = type == CE_TYPE_MIXED;
    size_t non_null = 0, numbers = 0;
    const ce_value *low = NULL, *high = NULL;
    uint64_t int_sum = 0;
    double real_sum = 0;
    long double exact_sum = 0;
    for (size_t i = 0; i < count; i++) {
        const ce_value *v = &elements[i];
        if (v->type == CE_TYPE_NULL) continue;
        non_null++;
        /* A mixed collection's min and max take its numbers and dates
         * (Realm's order ranks numbers below dates), its sum and average
         * its numbers. */
        if (mixed && !numeric_value(v) && v->type != CE_TYPE_TIMESTAMP) continue;
        if (!low || model_aggregate_order(v, low) < 0) low = v;
        if (!high || model_aggregate_order(v, high) > 0) high = v;
        if (mixed && v->type == CE_TYPE_TIMESTAMP) continue;
        numbers++;
        if (v->type == CE_TYPE_INT) int_sum += (uint64_t)v->integer;
        if (v->type == CE_TYPE_FLOAT || v->type == CE_TYPE_DOUBLE) real_sum += v->type == CE_TYPE_FLOAT ? (double)v->float_value : v->double_value;
        if (v->type != CE_TYPE_TIMESTAMP) exact_sum += any_number(v);
    }
    ce_value value;
    CHECK(ce_collection_aggregate(collection, CE_AGGREGATE_COUNT, &value));
    expect_int("count of a collection", &value, (int64_t)non_null);
    for (int a = CE_AGGREGATE_MIN; a <= CE_AGGREGATE_MAX; a++) {
        CHECK(ce_collection_aggregate(collection, (ce_aggregate)a, &value));
        const ce_value *best = a == CE_AGGREGATE_MIN ? low : high;
        bool same = best ? value.type == best->type && model_aggregate_order(&value, best) == 0 : value.type == CE_TYPE_NULL;
        if (!same) {
            fprintf(stderr, "%s of a collection of %s: got a %s, the model a %s\n", a == CE_AGGREGATE_MIN ? "min" : "max",
                    ce_type_name(type), ce_type_name(value.type), best ? ce_type_name(best->type) : "null");
            exit(1);
        }
    }
    if (type == CE_TYPE_TIMESTAMP) {
        expect_error(ce_collection_aggregate(collection, CE_AGGREGATE_SUM, &value), CE_ERR_WRONG_TYPE,
                     "sum of a collection of timestamp values");
        expect_error(ce_collection_aggregate(collection, CE_AGGREGATE_AVG, &value), CE_ERR_WRONG_TYPE,
                     "average of a collection of timestamp values");
        return;
    }
    ce_value sum, average;
    CHECK(ce_collection_aggregate(collection, CE_AGGREGATE_SUM, &sum));
    CHECK(ce_collection_aggregate(collection, CE_AGGREGATE_AVG, &average));
    if (numbers == 0) CHECK(average.type == CE_TYPE_NULL);
    switch (type) {
    case CE_TYPE_INT:
        expect_int("sum of ints", &sum, (int64_t)int_sum);
        if (numbers) CHECK(average.type == CE_TYPE_DOUBLE && close_enough(average.double_value, exact_sum / numbers));
        break;
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE:
        expect_double("sum of reals", &sum, false, real_sum);
        if (numbers) expect_double("average of reals", &average, false, real_sum / (double)numbers);
        break;
    default: /* decimal128, and mixed (summed as decimal128) */
        CHECK(sum.type == CE_TYPE_DECIMAL128 && close_enough(decimal_number(sum.decimal), exact_sum));
        if (numbers)
            CHECK(average.type == CE_TYPE_DECIMAL128 && close_enough(decimal_number(average.decimal), exact_sum / numbers));
        break;
    }
}

/* The model's order of sorted collections: null first, then by type, then
 * by value within the type (NaN first, strings by bytes). */
static int model_value_order(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) {
        if (a->type == CE_TYPE_NULL || b->type == CE_TYPE_NULL) return a->type == CE_TYPE_NULL ? -1 : 1;
        return a->type < b->type ? -1 : 1;
    }
    switch (a->type) {
    case CE_TYPE_NULL: return 0;
    case CE_TYPE_BOOL: return (int)a->boolean - (int)b->boolean;
    case CE_TYPE_STRING: return bytes_order(a->string.data, a->string.size, b->string.data, b->string.size);
    default: return model_aggregate_order(a, b);
    }
}

/* The rank of a type among a mixed collection's values when two differ
 * (realm-core's Mixed::compare): bools, numbers, strings and binaries,
 * dates, object ids, UUIDs, links. */
static int model_type_rank(ce_type type)
{
    switch (type) {
    case CE_TYPE_BOOL: return 0;
    case CE_TYPE_INT:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE:
    case CE_TYPE_DECIMAL128: return 1;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: return 2;
    case CE_TYPE_TIMESTAMP: return 3;
    case CE_TYPE_OBJECT_ID: return 4;
    case CE_TYPE_UUID: return 5;
    default: return 6;
    }
}

/* The model's sort order (realm-core's): null first; values of one type
 * as model_value_order; of two types by rank, numbers of two types by
 * value (NaN first). Distinct compares with model_value_order. */
static int model_sort_order(const ce_value *a, const ce_value *b)
{
    if (a->type == b->type || a->type == CE_TYPE_NULL || b->type == CE_TYPE_NULL) return model_value_order(a, b);
    int a_rank = model_type_rank(a->type), b_rank = model_type_rank(b->type);
    if (a_rank != b_rank) return a_rank < b_rank ? -1 : 1;
    return model_aggregate_order(a, b);
}

/* ce_collection_sorted_indices against a stable insertion sort. */
static void check_sorted_indices(ce_collection *collection, const ce_value *elements, size_t count)
{
    for (int direction = 0; direction < 2; direction++) {
        bool ascending = direction == 0;
        size_t expected[N_ITEMS + 1], got[N_ITEMS + 1], n = 0;
        for (size_t i = 0; i < count; i++) {
            size_t j = i;
            while (j > 0) {
                int order = model_sort_order(&elements[expected[j - 1]], &elements[i]);
                if (!(ascending ? order > 0 : order < 0)) break;
                expected[j] = expected[j - 1];
                j--;
            }
            expected[j] = i;
        }
        CHECK(ce_collection_sorted_indices(collection, ascending, got, N_ITEMS + 1, &n) && n == count);
        for (size_t i = 0; i < count; i++) {
            if (got[i] != expected[i]) {
                fprintf(stderr, "sorted indices (%s) of a collection of %s: position %zu is %zu, the model %zu\n",
                        ascending ? "ascending" : "descending", ce_type_name(elements[expected[i]].type), i, got[i],
                        expected[i]);
                exit(1);
            }
        }
    }
    if (count > 0) {
        size_t n = 0, room[1];
        expect_error(ce_collection_sorted_indices(collection, true, room, count - 1 < 1 ? count - 1 : 1, &n),
                     CE_ERR_INVALID_ARGUMENT, "room for");
        CHECK(n == count);
    }
}

/* ce_collection_ordered_indices of chains of sorts and distincts against
 * the model: a stable insertion sort by model_value_order, and distinct
 * keeping the first of each value equal by it (one type, null one value). */
static void check_ordered_indices(ce_collection *collection, const ce_value *elements, size_t count)
{
    static const ce_values_step chains[][3] = {
        {CE_VALUES_DISTINCT},
        {CE_VALUES_ASCENDING, CE_VALUES_DISTINCT},
        {CE_VALUES_DISTINCT, CE_VALUES_DESCENDING},
        {CE_VALUES_DESCENDING, CE_VALUES_ASCENDING, CE_VALUES_DISTINCT},
        {CE_VALUES_DESCENDING, CE_VALUES_DISTINCT, CE_VALUES_DISTINCT},
    };
    static const size_t lengths[] = {1, 2, 2, 3, 3};
    for (size_t c = 0; c <= COUNT_OF(chains); c++) {
        size_t steps = c < COUNT_OF(chains) ? lengths[c] : 0; /* the last: no step */
        size_t expected[N_ITEMS + 1], got[N_ITEMS + 1], n = count, kept = 0;
        for (size_t i = 0; i < count; i++) expected[i] = i;
        for (size_t s = 0; s < steps; s++) {
            ce_values_step step = chains[c][s];
            if (step == CE_VALUES_DISTINCT) {
                size_t k = 0;
                for (size_t i = 0; i < n; i++) {
                    bool seen = false;
                    for (size_t j = 0; j < k && !seen; j++)
                        seen = model_value_order(&elements[expected[j]], &elements[expected[i]]) == 0;
                    if (!seen) expected[k++] = expected[i];
                }
                n = k;
                continue;
            }
            for (size_t i = 1; i < n; i++) {
                size_t moving = expected[i], j = i;
                while (j > 0) {
                    int order = model_sort_order(&elements[expected[j - 1]], &elements[moving]);
                    if (!(step == CE_VALUES_ASCENDING ? order > 0 : order < 0)) break;
                    expected[j] = expected[j - 1];
                    j--;
                }
                expected[j] = moving;
            }
        }
        CHECK(ce_collection_ordered_indices(collection, steps ? chains[c] : NULL, steps, got, N_ITEMS + 1, &kept));
        if (kept != n) {
            fprintf(stderr, "ordered indices (chain %zu) of %zu elements: %zu kept, the model %zu\n", c, count, kept, n);
            exit(1);
        }
        for (size_t i = 0; i < n; i++) {
            if (got[i] != expected[i]) {
                fprintf(stderr, "ordered indices (chain %zu): position %zu is %zu, the model %zu\n", c, i, got[i],
                        expected[i]);
                exit(1);
            }
        }
    }
    ce_values_step bad = (ce_values_step)7;
    size_t n = 0, room[N_ITEMS + 1];
    expect_error(ce_collection_ordered_indices(collection, &bad, 1, room, N_ITEMS + 1, &n), CE_ERR_INVALID_ARGUMENT,
                 "not a ce_values_step");
    if (count > 0) {
        ce_values_step distinct = CE_VALUES_DISTINCT;
        expect_error(ce_collection_ordered_indices(collection, &distinct, 1, room, count - 1, &n), CE_ERR_INVALID_ARGUMENT,
                     "room for");
        CHECK(n == count);
    }
}

/* ce_values_aggregate of a collection's elements copied out gives what
 * ce_collection_aggregate gives, bit for bit, for every aggregate (errors
 * included). */
static void check_values_aggregates(const ce_collection *collection, ce_type element, const ce_value *elements, size_t size)
{
    for (int aggregate = CE_AGGREGATE_MIN; aggregate <= CE_AGGREGATE_COUNT; aggregate++) {
        ce_value stored, copied;
        bool stored_ok = ce_collection_aggregate(collection, (ce_aggregate)aggregate, &stored);
        ce_error_code stored_code = stored_ok ? CE_OK : ce_last_error_code();
        bool copied_ok = ce_values_aggregate(elements, size, element, (ce_aggregate)aggregate, &copied);
        CHECK(stored_ok == copied_ok);
        if (!stored_ok) {
            CHECK(ce_last_error_code() == stored_code);
            continue;
        }
        if (!test_same_value(&stored, &copied)) {
            fprintf(stderr, "ce_values_aggregate(aggregate %d of %s) differs from ce_collection_aggregate\n", aggregate,
                    ce_type_name(element));
            exit(1);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* ce_values_aggregate                                                       */
/* ------------------------------------------------------------------------ */

/* ce_values_aggregate: exact decimal sums, mixed values, errors. */
TEST(values_aggregate)
{
    ce_decimal128 tenth = decimal(1, -1), one = decimal(10, -1);
    ce_value tenths[10];
    for (int i = 0; i < 10; i++) tenths[i] = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = tenth};
    ce_value value, expected = {.type = CE_TYPE_DECIMAL128, .decimal = one};
    CHECK(ce_values_aggregate(tenths, 10, CE_TYPE_DECIMAL128, CE_AGGREGATE_SUM, &value) && test_same_value(&value, &expected));
    /* The average: 10^33 x 10^-34, 0.1 exactly at full precision. */
    expected.decimal = (ce_decimal128){0x38c15b0a00000000ull, (6176ull - 34) << 49 | 0x314dc6448d93ull};
    CHECK(ce_values_aggregate(tenths, 10, CE_TYPE_DECIMAL128, CE_AGGREGATE_AVG, &value) && test_same_value(&value, &expected));
    /* Mixed: the numbers among them, as decimal128; a string is skipped. */
    ce_value mixed[] = {{.type = CE_TYPE_INT, .integer = 2}, {.type = CE_TYPE_STRING, .string = {"x", 1}},
                        {.type = CE_TYPE_DECIMAL128, .decimal = tenth}, {.type = CE_TYPE_NULL},
                        {.type = CE_TYPE_DOUBLE, .double_value = 0.5}};
    expected.decimal = decimal(26, -1);
    CHECK(ce_values_aggregate(mixed, 5, CE_TYPE_MIXED, CE_AGGREGATE_SUM, &value) && test_same_value(&value, &expected));
    CHECK(ce_values_aggregate(mixed, 5, CE_TYPE_MIXED, CE_AGGREGATE_MAX, &value) && value.type == CE_TYPE_INT &&
          value.integer == 2);
    CHECK(ce_values_aggregate(mixed, 5, CE_TYPE_MIXED, CE_AGGREGATE_COUNT, &value) && value.integer == 4);
    /* Min and max of mixed values take dates too, after the numbers. */
    ce_value dated[] = {{.type = CE_TYPE_TIMESTAMP, .timestamp = {200, 0}}, {.type = CE_TYPE_INT, .integer = 7},
                        {.type = CE_TYPE_TIMESTAMP, .timestamp = {100, 5}}};
    CHECK(ce_values_aggregate(dated, 3, CE_TYPE_MIXED, CE_AGGREGATE_MIN, &value) && value.type == CE_TYPE_INT &&
          value.integer == 7);
    CHECK(ce_values_aggregate(dated, 3, CE_TYPE_MIXED, CE_AGGREGATE_MAX, &value) && value.type == CE_TYPE_TIMESTAMP &&
          value.timestamp.seconds == 200);
    CHECK(ce_values_aggregate(dated + 2, 1, CE_TYPE_MIXED, CE_AGGREGATE_MIN, &value) &&
          value.type == CE_TYPE_TIMESTAMP && value.timestamp.nanoseconds == 5);
    CHECK(ce_values_aggregate(dated, 3, CE_TYPE_MIXED, CE_AGGREGATE_SUM, &value) && value.type == CE_TYPE_DECIMAL128);
    CHECK(ce_values_aggregate(NULL, 0, CE_TYPE_INT, CE_AGGREGATE_SUM, &value) && value.type == CE_TYPE_INT &&
          value.integer == 0);
    CHECK(ce_values_aggregate(NULL, 0, CE_TYPE_INT, CE_AGGREGATE_AVG, &value) && value.type == CE_TYPE_NULL);
    expect_error(ce_values_aggregate(mixed, 5, CE_TYPE_INT, CE_AGGREGATE_SUM, &value), CE_ERR_WRONG_TYPE,
                 "value 1 is a string, not a int");
    expect_error(ce_values_aggregate(mixed, 1, CE_TYPE_STRING, CE_AGGREGATE_SUM, &value), CE_ERR_WRONG_TYPE,
                 "sum of a collection of string values");
    expect_error(ce_values_aggregate(NULL, 1, CE_TYPE_INT, CE_AGGREGATE_SUM, &value), CE_ERR_INVALID_ARGUMENT,
                 "ce_values_aggregate");
    expect_error(ce_values_aggregate(mixed, 1, CE_TYPE_INT, (ce_aggregate)9, &value), CE_ERR_INVALID_ARGUMENT,
                 "unknown aggregate");
}

/* ------------------------------------------------------------------------ */
/* Collections of numbers, timestamps and mixed values                       */
/* ------------------------------------------------------------------------ */

/* What a case checks on one collection of the Numbers table (of element
 * type number_types[n]), given its elements as read back. */
typedef void numbers_check(ce_txn *txn, ce_collection *collection, int n, const ce_value *elements, size_t size);

/* A Numbers table of N_OBJECTS objects with a collection of each type in
 * number_types (object 0's are empty, object 1's hold only nulls); `check`
 * runs on every collection in the write transaction that filled them,
 * then after the commit. */
static void numbers_each(numbers_check *check)
{
    random_restart();
    test_db t = test_db_open("query-collections");
    ce_db *db = t.db;
    static const char *const names[N_COUNT] = {"ints", "floats", "doubles", "decimals", "times", "mixeds", "int_set"};
    ce_txn *txn;
    ce_table_key numbers;
    ce_column_key columns_of[N_COUNT];
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Numbers", &numbers));
    for (int n = 0; n < N_COUNT; n++) {
        ce_property_info info = {.name = names[n], .type = number_types[n], .nullable = true,
                                 .collection = n == N_INT_SET ? CE_COLLECTION_SET : CE_COLLECTION_LIST};
        CHECK(ce_property_add(txn, numbers, &info, &columns_of[n]));
    }
    ce_object_key keys[N_OBJECTS];
    for (int o = 0; o < N_OBJECTS; o++) {
        CHECK(ce_object_create(txn, numbers, NULL, &keys[o]));
        for (int n = 0; n < N_COUNT; n++) {
            ce_collection *collection;
            CHECK(ce_collection_open(txn, numbers, keys[o], columns_of[n], &collection));
            /* Object 0: empty collections; object 1: only nulls. */
            size_t length = o == 0 ? 0 : 1 + pick(N_ITEMS);
            for (size_t i = 0; i < length; i++) {
                ce_value element = o == 1 ? (ce_value){.type = CE_TYPE_NULL} : random_number_element(n);
                if (n == N_INT_SET) CHECK(ce_set_insert(collection, &element, NULL));
                else CHECK(ce_list_insert(collection, i, &element));
            }
            ce_collection_close(collection);
        }
    }
    /* Checked in the write transaction, then after the commit. */
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            CHECK(ce_txn_commit(txn));
            CHECK(ce_txn_begin_read(db, &txn));
        }
        for (int o = 0; o < N_OBJECTS; o++) {
            for (int n = 0; n < N_COUNT; n++) {
                ce_collection *collection;
                ce_value elements[N_ITEMS];
                size_t size;
                CHECK(ce_collection_open(txn, numbers, keys[o], columns_of[n], &collection));
                CHECK(ce_collection_size(collection, &size) && size <= N_ITEMS);
                for (size_t i = 0; i < size; i++) CHECK(ce_collection_get(collection, i, &elements[i]));
                check(txn, collection, n, elements, size);
                ce_collection_close(collection);
                checked_queries++;
            }
        }
    }
    ce_txn_end(txn);
    close_verified(&t);
}

static void aggregates_of(ce_txn *txn, ce_collection *collection, int n, const ce_value *elements, size_t size)
{
    check_collection_aggregates(collection, n, elements, size);
    ce_results *bad;
    expect_error(ce_results_from_collection(txn, collection, &bad), CE_ERR_WRONG_TYPE, "not links to objects");
}

static void values_aggregates_of(ce_txn *txn, ce_collection *collection, int n, const ce_value *elements, size_t size)
{
    (void)txn;
    check_values_aggregates(collection, number_types[n], elements, size);
}

static void sorted_indices_of(ce_txn *txn, ce_collection *collection, int n, const ce_value *elements, size_t size)
{
    (void)txn, (void)n;
    check_sorted_indices(collection, elements, size);
}

static void ordered_indices_of(ce_txn *txn, ce_collection *collection, int n, const ce_value *elements, size_t size)
{
    (void)txn, (void)n;
    check_ordered_indices(collection, elements, size);
}

/* Every aggregate of every collection; results of values are refused. */
TEST(collection_aggregates) { numbers_each(aggregates_of); }

/* ce_values_aggregate of the elements copied out agrees, bit for bit. */
TEST(values_aggregate_matches_collection) { numbers_each(values_aggregates_of); }

/* Sorted indices, both directions, and too little room for them. */
TEST(collection_sorted_indices) { numbers_each(sorted_indices_of); }

/* Chains of sorts and distincts, no step, a bad step, too little room. */
TEST(collection_ordered_indices) { numbers_each(ordered_indices_of); }

/* ------------------------------------------------------------------------ */
/* Collections of several chunks                                             */
/* ------------------------------------------------------------------------ */

/* Collections of several chunks (more than COLLECTION_CHUNK_MAX values,
 * inserted at random positions so that the chunks differ in size), read by
 * every loop of the query layer over a collection's values: each position
 * must come from its own chunk. */
#define CHUNKED_VALUES 2600

/* `name` followed by x's: 4999 bytes, stored compressed. */
static ce_value chunked_long_name(const char *name, size_t length)
{
    static char long_name[5000];
    memset(long_name, 'x', sizeof long_name - 1);
    memcpy(long_name, name, length);
    return (ce_value){.type = CE_TYPE_STRING, .string = {long_name, sizeof long_name - 1}};
}

/* The chunked collections of one owner and their model, as chunked_each
 * built them. */
typedef struct chunked {
    ce_table_key owners;
    ce_column_key links_column, ints_column;
    ce_object_key owner;
    const int64_t *order;             /* the values in list order */
    const ce_object_key *target_keys; /* the target of each value */
    int64_t sum;
} chunked;

typedef void chunked_check(ce_txn *txn, const chunked *c);

/* An owner with a list of links, a list of ints, a list of names and a
 * dictionary, each of CHUNKED_VALUES values inserted at random positions;
 * `check` runs in the write transaction that filled them (dirty nodes),
 * then after the commit. */
static void chunked_each(chunked_check *check)
{
    random_restart();
    test_db t = test_db_open("query-chunked");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key owners, targets;
    ce_column_key value_column, links_column, ints_column, names_column, tags_column;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "ChunkTarget", &targets));
    CHECK(ce_table_add(txn, "ChunkOwner", &owners));
    ce_property_info value_info = {.name = "value", .type = CE_TYPE_INT};
    ce_property_info links_info = {.name = "links", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                                   .link_target = targets};
    ce_property_info ints_info = {.name = "ints", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST};
    ce_property_info names_info = {.name = "names", .type = CE_TYPE_STRING, .nullable = true,
                                   .collection = CE_COLLECTION_LIST};
    ce_property_info tags_info = {.name = "tags", .type = CE_TYPE_INT, .collection = CE_COLLECTION_DICTIONARY};
    CHECK(ce_property_add(txn, targets, &value_info, &value_column));
    CHECK(ce_property_add(txn, owners, &links_info, &links_column));
    CHECK(ce_property_add(txn, owners, &ints_info, &ints_column));
    CHECK(ce_property_add(txn, owners, &names_info, &names_column));
    CHECK(ce_property_add(txn, owners, &tags_info, &tags_column));
    ce_object_key owner;
    CHECK(ce_object_create(txn, owners, NULL, &owner));
    /* The model: the values in list order. Value v is the target's value,
     * the int, the name "name-v" (a long compressible one every 500) and
     * the dictionary key "k%05d". */
    static int64_t order[CHUNKED_VALUES];
    static ce_object_key target_keys[CHUNKED_VALUES];
    ce_collection *links, *ints, *names, *tags;
    CHECK(ce_collection_open(txn, owners, owner, links_column, &links));
    CHECK(ce_collection_open(txn, owners, owner, ints_column, &ints));
    CHECK(ce_collection_open(txn, owners, owner, names_column, &names));
    CHECK(ce_collection_open(txn, owners, owner, tags_column, &tags));
    int64_t sum = 0;
    for (size_t v = 0; v < CHUNKED_VALUES; v++) {
        size_t at = pick(v + 1);
        memmove(order + at + 1, order + at, (v - at) * sizeof *order);
        order[at] = (int64_t)v;
        sum += (int64_t)v;
        CHECK(ce_object_create(txn, targets, NULL, &target_keys[v]));
        ce_value number = {.type = CE_TYPE_INT, .integer = (int64_t)v};
        CHECK(ce_object_set(txn, targets, target_keys[v], value_column, &number));
        ce_value link = {.type = CE_TYPE_LINK, .link = {targets, target_keys[v]}};
        char name[32];
        int length = snprintf(name, sizeof name, "name-%zu", v);
        ce_value text = {.type = CE_TYPE_STRING, .string = {name, (size_t)length}};
        if (v % 500 == 7) text = chunked_long_name(name, (size_t)length);
        CHECK(ce_list_insert(links, at, &link));
        CHECK(ce_list_insert(ints, at, &number));
        CHECK(ce_list_insert(names, at, &text));
        char key[16];
        length = snprintf(key, sizeof key, "k%05zu", v);
        CHECK(ce_dictionary_set(tags, key, (size_t)length, &number));
    }
    ce_collection_close(links);
    ce_collection_close(ints);
    ce_collection_close(names);
    ce_collection_close(tags);
    chunked c = {owners, links_column, ints_column, owner, order, target_keys, sum};
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            CHECK(ce_txn_commit(txn));
            CHECK(ce_txn_begin_read(db, &txn));
        }
        check(txn, &c);
    }
    ce_txn_end(txn);
    close_verified(&t);
}

/* The list of links as a results view, the ints' sum, their sorted
 * indices and finds: each position read from its own chunk. */
static void chunked_reads(ce_txn *txn, const chunked *c)
{
    ce_table_key owners = c->owners;
    ce_column_key links_column = c->links_column, ints_column = c->ints_column;
    ce_object_key owner = c->owner;
    const int64_t *order = c->order;
    int64_t sum = c->sum;
    const ce_object_key *target_keys = c->target_keys;
    ce_collection *links, *ints;
    static size_t sorted[CHUNKED_VALUES];
    CHECK(ce_collection_open(txn, owners, owner, links_column, &links));
    CHECK(ce_collection_open(txn, owners, owner, ints_column, &ints));
    ce_results *results;
    size_t count;
    CHECK(ce_results_from_collection(txn, links, &results));
    CHECK(ce_results_count(results, txn, &count) && count == CHUNKED_VALUES);
    for (size_t i = 0; i < CHUNKED_VALUES; i++) {
        ce_object_key key;
        CHECK(ce_results_get(results, txn, i, &key) && key == target_keys[order[i]]);
    }
    ce_results_free(results);
    ce_value total;
    CHECK(ce_collection_aggregate(ints, CE_AGGREGATE_SUM, &total));
    CHECK(total.type == CE_TYPE_INT && total.integer == sum);
    CHECK(ce_collection_sorted_indices(ints, false, sorted, CHUNKED_VALUES, &count) && count == CHUNKED_VALUES);
    for (size_t i = 0; i < CHUNKED_VALUES; i++) CHECK(order[sorted[i]] == (int64_t)(CHUNKED_VALUES - 1 - i));
    for (size_t i = 0; i < CHUNKED_VALUES; i += 433) {
        ce_value wanted = {.type = CE_TYPE_INT, .integer = order[i]};
        size_t index;
        bool found;
        CHECK(ce_collection_find(ints, &wanted, &index, &found) && found && index == i);
    }
    ce_collection_close(links);
    ce_collection_close(ints);
}

/* A value in each chunk, and one nowhere, found by queries through the
 * links, the ints, the names and the dictionary's keys. */
static void chunked_queries(ce_txn *txn, const chunked *c)
{
    ce_table_key owners = c->owners;
    const int64_t *order = c->order;
    int64_t sum = c->sum;
    const int64_t probes[] = {order[0], order[700], order[1400], order[CHUNKED_VALUES - 1], 7, 2007, -1};
    for (size_t p = 0; p < COUNT_OF(probes); p++) {
        size_t expected = probes[p] >= 0;
        char name[32], key[16];
        int name_length = snprintf(name, sizeof name, "name-%lld", (long long)probes[p]);
        int key_length = snprintf(key, sizeof key, "k%05lld", (long long)probes[p]);
        ce_value text = {.type = CE_TYPE_STRING, .string = {name, (size_t)name_length}};
        if (probes[p] % 500 == 7) text = chunked_long_name(name, (size_t)name_length);
        ce_query_argument arguments[3] = {
            {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_INT, .integer = probes[p]}},
            {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text},
            {.kind = CE_QUERY_ARGUMENT_VALUE,
             .value = {.type = CE_TYPE_STRING, .string = {key, (size_t)key_length}}}};
        CHECK(count_of(txn, owners, "ANY links.value == $0", arguments, 3) == expected);
        CHECK(count_of(txn, owners, "ANY ints == $0", arguments, 3) == expected);
        CHECK(count_of(txn, owners, "ANY names == $1", arguments, 3) == expected);
        CHECK(count_of(txn, owners, "ANY tags.@allKeys == $2", arguments, 3) == expected);
    }
    ce_query_argument total_argument = {.kind = CE_QUERY_ARGUMENT_VALUE,
                                        .value = {.type = CE_TYPE_INT, .integer = sum}};
    CHECK(count_of(txn, owners, "links.@count == 2600 AND ints.@sum == $0", &total_argument, 1) == 1);
}

TEST(chunked_collection_reads) { chunked_each(chunked_reads); }

TEST(chunked_collection_queries) { chunked_each(chunked_queries); }
