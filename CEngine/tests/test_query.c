/*
 * test_query.c — the query engine through the public API on the Thing table
 * (test_query_model.h), every expected result checked against a
 * brute-force evaluation over a model of the same data (the reference
 * model, model.h, with test_query_model.h's own comparison, folding and
 * LIKE):
 *
 * - every operator on every property type, required and optional (null),
 *   with literals and with arguments, indexed and not, on several leaves;
 *   the same again inside a write transaction (dirty nodes) and after
 *   deletes;
 * - random AND / OR / NOT trees of those comparisons; property against
 *   property, a constant before the property, `.@count`/`.@size` of
 *   strings and binaries;
 * - sort (several keys, both directions, stability, sorting a sorted view),
 *   distinct (several keys, keeps the first), limit, descriptors in the
 *   predicate text, index_of, get;
 * - aggregates on every numeric type and on empty views;
 * - live results: re-evaluated when a write changes data and when a read
 *   transaction advances; a schema change re-binds;
 * - integer nodes stored with a base; sums of doubles over whole leaves and
 *   parts of them.
 *
 * The other query programs: test_query_parse.c (predicate text),
 * test_query_links.c and test_query_views.c (links, collections and their
 * views), test_query_collections.c (collections of values).
 *
 * Owns: the cases on what predicates, sort, distinct, limit and aggregates
 * give on the Thing table.
 * Never: asks the engine what a predicate should match.
 */
#include "test_query_model.h"

/* ------------------------------------------------------------------------ */
/* Every operator, random predicates                                         */
/* ------------------------------------------------------------------------ */

/* Every operator on every property with each constant of its pool. */
static void check_every_comparison(ce_txn *txn)
{
    for (int p = 0; p < P_COUNT; p++) {
        ce_type type = properties[p].type;
        for (int o = 0; o < OP_COUNT; o++) {
            if (!op_allowed(type, (op)o)) continue;
            for (int k = 0; k < 12; k++) {
                expression e = {.kind = 0};
                e.a.kind = ATOM_COMPARE;
                e.a.property = p;
                e.a.o = (op)o;
                e.a.constants[0] = k == 0 ? (ce_value){.type = CE_TYPE_NULL} : random_value(p);
                if (type == CE_TYPE_STRING && k % 3 == 1 && o != OP_LT && o != OP_LE && o != OP_GT && o != OP_GE)
                    e.a.flags = o == OP_LIKE ? FOLD_CASE : 1 + (unsigned)(k / 3 % 3); /* Realm refuses LIKE[d] */
                check_expression(txn, &e, k % 2 == 0);
            }
        }
    }
}

/* IN (an empty list too) and BETWEEN on every property. */
static void check_in_and_between(ce_txn *txn)
{
    for (int p = 0; p < P_COUNT; p++) {
        for (int k = 0; k < 6; k++) {
            expression e = {.kind = 0};
            e.a.kind = ATOM_IN;
            e.a.property = p;
            e.a.constant_count = k == 0 ? 0 : 1 + pick(5);
            for (size_t c = 0; c < e.a.constant_count; c++) e.a.constants[c] = random_constant(p);
            check_expression(txn, &e, k % 2 == 1);
            e.a.kind = ATOM_BETWEEN;
            for (int c = 0; c < 2; c++) {
                do e.a.constants[c] = random_constant(p);
                while (e.a.constants[c].type == CE_TYPE_NULL);
            }
            check_expression(txn, &e, false);
        }
    }
}

/* Random AND / OR / NOT trees, half of them with arguments. */
static void check_random_predicates(ce_txn *txn) { check_random_queries(txn, 1500); }
static void check_random_predicates_in_write(ce_txn *txn) { check_random_queries(txn, 600); }

TEST(every_comparison) { things_in_read(check_every_comparison); }

TEST(in_and_between) { things_in_read(check_in_and_between); }

TEST(random_predicates) { things_in_read(check_random_predicates); }

TEST(random_predicates_in_write) { things_in_write(check_random_predicates_in_write); }

/* ------------------------------------------------------------------------ */
/* Sort, distinct, limit                                                     */
/* ------------------------------------------------------------------------ */

/* Sort by 1 to 3 random keys, then again (the earlier sort breaks ties),
 * distinct, limit and index_of, against the model. */
static void check_sort_distinct_limit(ce_txn *txn)
{
    static size_t rows[MAX_OBJECTS];
    ce_query *query;
    CHECK(ce_query_parse(txn, things, "TRUEPREDICATE", NULL, 0, &query));
    ce_results *all;
    CHECK(ce_query_find_all(query, &all));
    for (int round = 0; round < 60; round++) {
        /* Sort by 1 to 3 random keys, then maybe again, then distinct, limit. */
        sort_spec keys[3];
        ce_sort_key sort_keys[3];
        size_t key_count = 1 + pick(3);
        for (size_t k = 0; k < key_count; k++) {
            keys[k] = (sort_spec){(int)pick(P_COUNT), pick(2) == 0};
            sort_keys[k] = (ce_sort_key){properties[keys[k].property].name, keys[k].ascending};
        }
        size_t count = model_rows(rows, NULL);
        ce_results *sorted, *again = NULL, *distinct = NULL, *limited = NULL;
        CHECK(ce_results_sort(txn, all, sort_keys, key_count, &sorted));
        model_sort(rows, count, keys, key_count);
        check_rows("sort", sorted, txn, rows, count);
        /* Sorting a sorted view: the earlier sort breaks ties. */
        sort_spec second = {(int)pick(P_COUNT), pick(2) == 0};
        ce_sort_key second_key = {properties[second.property].name, second.ascending};
        CHECK(ce_results_sort(txn, sorted, &second_key, 1, &again));
        model_sort(rows, count, &second, 1);
        check_rows("sort of a sort", again, txn, rows, count);
        /* Distinct on one or two keys keeps the first of each. */
        int distinct_keys[2] = {(int)pick(P_COUNT), (int)pick(P_COUNT)};
        size_t distinct_count = 1 + pick(2);
        const char *distinct_names[2] = {properties[distinct_keys[0]].name, properties[distinct_keys[1]].name};
        CHECK(ce_results_distinct(txn, again, distinct_names, distinct_count, &distinct));
        count = model_distinct(rows, count, distinct_keys, distinct_count);
        check_rows("distinct", distinct, txn, rows, count);
        size_t limit = pick(count + 3);
        CHECK(ce_results_limit(distinct, limit, &limited));
        check_rows("limit", limited, txn, rows, count < limit ? count : limit);
        /* index_of on a sorted view. */
        if (count) {
            size_t k = pick(count), index;
            bool found;
            CHECK(ce_results_index_of(distinct, txn, store.tables[0].keys[rows[k]], &index, &found) && found && index == k);
        }
        ce_results_free(limited);
        ce_results_free(distinct);
        ce_results_free(again);
        ce_results_free(sorted);
    }
    ce_results_free(all);
    ce_query_free(query);
}

/* A stable sort of a bool keeps key order among equal values. */
static void check_stable_sort(ce_txn *txn)
{
    ce_query *query;
    CHECK(ce_query_parse(txn, things, "TRUEPREDICATE", NULL, 0, &query));
    ce_results *all;
    CHECK(ce_query_find_all(query, &all));
    ce_results *by_bool;
    ce_sort_key bool_key = {"b", true};
    CHECK(ce_results_sort(txn, all, &bool_key, 1, &by_bool));
    size_t count;
    CHECK(ce_results_count(by_bool, txn, &count));
    ce_object_key previous = -1;
    bool previous_value = false;
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        ce_value value;
        CHECK(ce_results_get(by_bool, txn, i, &key) && ce_object_get(txn, things, key, columns[P_B], &value));
        if (i > 0 && value.boolean == previous_value) CHECK(key > previous);
        CHECK(i == 0 || value.boolean >= previous_value);
        previous = key;
        previous_value = value.boolean;
    }
    ce_results_free(by_bool);
    ce_results_free(all);
    ce_query_free(query);
}

/* Sort and distinct refuse what is not a property of the table. */
static void check_sort_errors(ce_txn *txn)
{
    ce_query *query;
    CHECK(ce_query_parse(txn, things, "TRUEPREDICATE", NULL, 0, &query));
    ce_results *all;
    CHECK(ce_query_find_all(query, &all));
    ce_results *bad;
    ce_sort_key missing = {"nope", true};
    /* realm-core's messages (src/realm/object-store/results.cpp,
     * parse_keypath), distinct's too. */
    expect_error(ce_results_sort(txn, all, &missing, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'nope': property 'Thing.nope' does not exist.");
    ce_sort_key link = {"s.name", true};
    expect_error(ce_results_sort(txn, all, &link, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 's.name': property 'Thing.s' of type 'string' may only be the final property in "
                 "the key path.");
    const char *bad_path[] = {"i..x"};
    expect_error(ce_results_distinct(txn, all, bad_path, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'i..x': property 'Thing.i' of type 'int' may only be the final property in the "
                 "key path.");
    const char *empty[] = {"", "i.", ".i"};
    for (int k = 0; k < 3; k++) {
        char expected[64];
        snprintf(expected, sizeof expected, "Cannot sort on key path '%s': missing property name.", empty[k]);
        expect_error(ce_results_distinct(txn, all, &empty[k], 1, &bad), CE_ERR_INVALID_QUERY, expected);
    }
    ce_results_free(all);
    ce_query_free(query);
}

/* Descriptors written in the predicate apply in order. */
static void check_descriptors_in_predicate(ce_txn *txn)
{
    static size_t rows[MAX_OBJECTS];
    ce_query *query;
    ce_results *all;
    size_t count;
    for (int round = 0; round < 20; round++) {
        expression *e = random_expression(1);
        text t = {.used = 0};
        put_expression(&t, NULL, e);
        sort_spec key = {(int)pick(P_COUNT), pick(2) == 0};
        int distinct_key = (int)pick(P_COUNT);
        size_t limit = pick(50);
        bool distinct_first = pick(2);
        if (distinct_first) put(&t, " DISTINCT(%s)", properties[distinct_key].name);
        put(&t, " SORT(%s %s)", properties[key.property].name, key.ascending ? (pick(2) ? "ASC" : "ascending") : (pick(2) ? "DESC" : "descending"));
        if (!distinct_first) put(&t, " DISTINCT(%s)", properties[distinct_key].name);
        put(&t, " LIMIT(%zu)", limit);
        CHECK(ce_query_parse(txn, things, t.data, NULL, 0, &query));
        CHECK(ce_query_find_all(query, &all));
        count = model_rows(rows, e);
        if (distinct_first) count = model_distinct(rows, count, &distinct_key, 1);
        model_sort(rows, count, &key, 1);
        if (!distinct_first) count = model_distinct(rows, count, &distinct_key, 1);
        check_rows(t.data, all, txn, rows, count < limit ? count : limit);
        ce_results_free(all);
        ce_query_free(query);
        free_expression(e);
    }
}

TEST(sort_distinct_limit) { things_in_read(check_sort_distinct_limit); }

TEST(sort_distinct_limit_in_write) { things_in_write(check_sort_distinct_limit); }

TEST(stable_sort) { things_in_read(check_stable_sort); }

TEST(stable_sort_in_write) { things_in_write(check_stable_sort); }

TEST(sort_errors) { things_in_read(check_sort_errors); }

TEST(sort_errors_in_write) { things_in_write(check_sort_errors); }

TEST(descriptors_in_predicate) { things_in_read(check_descriptors_in_predicate); }

TEST(descriptors_in_predicate_in_write) { things_in_write(check_descriptors_in_predicate); }

/* ------------------------------------------------------------------------ */
/* Aggregates                                                                */
/* ------------------------------------------------------------------------ */

static void check_aggregates(ce_txn *txn, const expression *e, ce_results *results)
{
    static size_t rows[MAX_OBJECTS];
    size_t count = model_rows(rows, e);
    const model_table *thing = &store.tables[0];
    const int numeric[] = {P_I, P_OI, P_F, P_OF, P_D, P_OD, P_DEC, P_ODEC, P_T, P_OT, P_S, P_B};
    for (size_t n = 0; n < COUNT_OF(numeric); n++) {
        int p = numeric[n];
        ce_type type = properties[p].type;
        for (int aggregate = 0; aggregate <= CE_AGGREGATE_COUNT; aggregate++) {
            ce_value out;
            size_t counted;
            bool supported = aggregate == CE_AGGREGATE_COUNT ||
                             ((aggregate == CE_AGGREGATE_MIN || aggregate == CE_AGGREGATE_MAX) &&
                              (is_number(type) || type == CE_TYPE_DECIMAL128 || type == CE_TYPE_TIMESTAMP)) ||
                             ((aggregate == CE_AGGREGATE_SUM || aggregate == CE_AGGREGATE_AVG) &&
                              (is_number(type) || type == CE_TYPE_DECIMAL128));
            bool ok = ce_results_aggregate(results, txn, properties[p].name, (ce_aggregate)aggregate, &out, &counted);
            if (!supported) {
                expect_error(ok, CE_ERR_WRONG_TYPE, properties[p].name);
                continue;
            }
            CHECK(ok);
            /* The model. */
            size_t values = 0;
            ce_value best = {.type = CE_TYPE_NULL};
            uint64_t int_sum = 0;
            long double real_sum = 0;
            long double decimal_sum = 0;
            bool decimal_nan_seen = false;
            for (size_t r = 0; r < count; r++) {
                const ce_value *v = &model_value_at(thing, rows[r], (size_t)p)->value;
                if (v->type == CE_TYPE_NULL) continue;
                values++;
                if (best.type == CE_TYPE_NULL ||
                    (aggregate == CE_AGGREGATE_MIN ? model_sort_order(v, &best) < 0 : model_sort_order(v, &best) > 0))
                    best = *v;
                if (type == CE_TYPE_INT) int_sum += (uint64_t)v->integer;
                else if (type == CE_TYPE_DECIMAL128) {
                    if (is_nan(v)) decimal_nan_seen = true;
                    else {
                        long double x = (long double)(int64_t)v->decimal.low * power_of_ten((int)((v->decimal.high >> 49) & 0x3FFF) - 6176);
                        decimal_sum += (v->decimal.high >> 63) ? -x : x;
                    }
                } else if (is_number(type)) real_sum += number_of(v);
            }
            CHECK(counted == values);
            switch (aggregate) {
            case CE_AGGREGATE_COUNT: CHECK(out.type == CE_TYPE_INT && out.integer == (int64_t)values); break;
            case CE_AGGREGATE_MIN:
            case CE_AGGREGATE_MAX:
                if (values == 0) CHECK(out.type == CE_TYPE_NULL);
                else CHECK(out.type == type && model_sort_order(&out, &best) == 0);
                break;
            case CE_AGGREGATE_SUM:
            case CE_AGGREGATE_AVG:
                if (aggregate == CE_AGGREGATE_AVG && values == 0) {
                    CHECK(out.type == CE_TYPE_NULL);
                    break;
                }
                if (type == CE_TYPE_INT && aggregate == CE_AGGREGATE_SUM) {
                    CHECK(out.type == CE_TYPE_INT && (uint64_t)out.integer == int_sum);
                } else if (type == CE_TYPE_INT) {
                    /* The exact sum of the pool's values can exceed 64 bits: compare as long doubles. */
                    __int128 exact = 0;
                    for (size_t r = 0; r < count; r++) {
                        const ce_value *v = &model_value_at(thing, rows[r], (size_t)p)->value;
                        if (v->type == CE_TYPE_INT) exact += v->integer;
                    }
                    long double expected = (long double)exact / (long double)values;
                    CHECK(out.type == CE_TYPE_DOUBLE && magnitude((long double)out.double_value - expected) <= 1e-9L * (magnitude(expected) + 1));
                } else if (type == CE_TYPE_DECIMAL128) {
                    CHECK(out.type == CE_TYPE_DECIMAL128);
                    if (decimal_nan_seen) {
                        CHECK(is_nan(&out));
                        break;
                    }
                    /* Back to a long double: sums of the pool stay exact in 34 digits. */
                    ce_value zero = {.type = CE_TYPE_DECIMAL128, .decimal = decimal(0, 0)};
                    (void)zero;
                    long double expected = aggregate == CE_AGGREGATE_SUM ? decimal_sum : decimal_sum / (long double)values;
                    /* out as coefficient * 10^exponent (coefficients of sums fit 113 bits; use both words). */
                    long double coefficient = (long double)out.decimal.low +
                                              (long double)(out.decimal.high & ((1ull << 49) - 1)) * 18446744073709551616.0L;
                    long double got = coefficient * power_of_ten((int)((out.decimal.high >> 49) & 0x3FFF) - 6176);
                    if (out.decimal.high >> 63) got = -got;
                    if (magnitude(got - expected) > 1e-12L * (magnitude(expected) + 1)) {
                        fprintf(stderr, "decimal %s: %Lg, expected %Lg\n", aggregate == CE_AGGREGATE_SUM ? "sum" : "avg", got, expected);
                        exit(1);
                    }
                } else {
                    CHECK(out.type == CE_TYPE_DOUBLE);
                    long double expected = aggregate == CE_AGGREGATE_SUM ? real_sum : real_sum / (long double)(values ? values : 1);
                    if (isnan((double)expected)) CHECK(isnan(out.double_value));
                    else if (isinf((double)expected)) CHECK(out.double_value == (double)expected);
                    else CHECK(magnitude((long double)out.double_value - expected) <= 1e-9L * (magnitude(expected) + 1));
                }
                break;
            }
        }
    }
    ce_value out;
    expect_error(ce_results_aggregate(results, txn, "nope", CE_AGGREGATE_SUM, &out, NULL), CE_ERR_INVALID_QUERY, "no property 'nope'");
}

/* The aggregates of the results of random predicates (the first matches
 * nothing), and of the same results sorted. */
static void check_results_aggregates(ce_txn *txn)
{
    for (int round = 0; round < 12; round++) {
        expression *e = round == 0 ? NULL : random_expression(1);
        text t = {.used = 0};
        if (e) put_expression(&t, NULL, e);
        else put(&t, "FALSEPREDICATE");
        expression none = {.kind = 5};
        ce_query *query;
        CHECK(ce_query_parse(txn, things, t.data, NULL, 0, &query));
        ce_results *results, *sorted;
        CHECK(ce_query_find_all(query, &results));
        check_aggregates(txn, e ? e : &none, results);
        /* Through a sorted view (entries instead of leaves): the same. */
        ce_sort_key key = {"d", false};
        CHECK(ce_results_sort(txn, results, &key, 1, &sorted));
        check_aggregates(txn, e ? e : &none, sorted);
        ce_results_free(sorted);
        ce_results_free(results);
        ce_query_free(query);
        if (e) free_expression(e);
    }
}

TEST(aggregates) { things_in_read(check_results_aggregates); }

TEST(aggregates_in_write) { things_in_write(check_results_aggregates); }

/* ------------------------------------------------------------------------ */
/* Live results, schema changes                                              */
/* ------------------------------------------------------------------------ */

/* A schema change re-binds: a new property shifts nothing; removing the
 * queried property makes evaluation fail with a clear error. */
static void check_schema_change_rebinds(ce_txn *writer)
{
    size_t count;
    ce_table_key extra;
    ce_column_key a, gone;
    CHECK(ce_table_add(writer, "Extra", &extra));
    const ce_property_info info_a = {.name = "a", .type = CE_TYPE_INT, .nullable = false, .primary_key = false, .indexed = false};
    const ce_property_info info_gone = {.name = "gone", .type = CE_TYPE_INT, .nullable = false, .primary_key = false, .indexed = false};
    CHECK(ce_property_add(writer, extra, &info_a, &a) && ce_property_add(writer, extra, &info_gone, &gone));
    ce_object_key k;
    ce_value values[2] = {{.type = CE_TYPE_INT, .integer = 1}, {.type = CE_TYPE_INT, .integer = 2}};
    CHECK(ce_object_create_with_values(writer, extra, values, 2, &k));
    ce_query *on_gone;
    CHECK(ce_query_parse(writer, extra, "gone == 2", NULL, 0, &on_gone));
    CHECK(ce_query_count(on_gone, writer, &count) && count == 1);
    const ce_property_info info_more = {.name = "more", .type = CE_TYPE_STRING, .nullable = true, .primary_key = false, .indexed = false};
    ce_column_key more;
    CHECK(ce_property_add(writer, extra, &info_more, &more));
    CHECK(ce_query_count(on_gone, writer, &count) && count == 1);
    CHECK(ce_property_remove(writer, extra, gone));
    expect_error(ce_query_count(on_gone, writer, &count), CE_ERR_INVALID_QUERY, "class 'Extra' has no property 'gone'");
    ce_query_free(on_gone);
}

/* A plain table buffers the objects a write creates: results see them. */
static void check_results_see_created_objects(ce_txn *writer)
{
    size_t count;
    ce_column_key a;
    ce_object_key k, top;
    ce_table_key plain;
    const ce_property_info plain_key = {.name = "key", .type = CE_TYPE_INT, .primary_key = true};
    const ce_property_info value = {.name = "value", .type = CE_TYPE_DOUBLE};
    CHECK(ce_table_add(writer, "Plain", &plain) && ce_property_add(writer, plain, &plain_key, &a) &&
          ce_property_add(writer, plain, &value, &a));
    ce_query *on_plain;
    ce_results *plain_results, *plain_sorted;
    CHECK(ce_query_parse(writer, plain, "value > 0.1", NULL, 0, &on_plain) && ce_query_find_all(on_plain, &plain_results));
    ce_sort_key by_value = {"value", false};
    CHECK(ce_results_sort(writer, plain_results, &by_value, 1, &plain_sorted));
    CHECK(ce_results_count(plain_results, writer, &count) && count == 0);
    CHECK(ce_results_count(plain_sorted, writer, &count) && count == 0);
    for (int i = 1; i <= 300; i++) {
        ce_value row[2] = {{.type = CE_TYPE_INT, .integer = i}, {.type = CE_TYPE_DOUBLE, .double_value = i / 300.0}};
        CHECK(ce_object_create_with_values(writer, plain, row, 2, &k));
        if (i % 100 == 0) {
            size_t expected = (size_t)(i - 30); /* value > 0.1: i > 30 */
            CHECK(ce_results_count(plain_results, writer, &count) && count == expected);
            CHECK(ce_results_count(plain_sorted, writer, &count) && count == expected);
            ce_value sum;
            size_t counted;
            CHECK(ce_results_aggregate(plain_results, writer, "value", CE_AGGREGATE_COUNT, &sum, &counted) &&
                  counted == expected);
        }
    }
    CHECK(ce_query_count(on_plain, writer, &count) && count == 270);
    CHECK(ce_results_get(plain_sorted, writer, 0, &top));
    ce_value top_value;
    CHECK(ce_object_get(writer, plain, top, 1, &top_value) && top_value.double_value == 1.0);
    ce_results_free(plain_sorted);
    ce_results_free(plain_results);
    ce_query_free(on_plain);
}

/* Results, sorted results and index_of follow a write at once, a read
 * transaction once it advances; they outlive their query and a rolled
 * back write that changed the schema. */
TEST(live_results)
{
    test_db t = things_open();
    ce_db *db = t.db;
    ce_txn *reader, *writer;
    CHECK(ce_txn_begin_read(db, &reader));
    ce_query *query;
    CHECK(ce_query_parse(reader, things, "i > 5 AND NOT (s == 'zzz')", NULL, 0, &query));
    ce_results *results, *sorted;
    CHECK(ce_query_find_all(query, &results));
    ce_sort_key key = {"pk", false};
    CHECK(ce_results_sort(reader, results, &key, 1, &sorted));
    size_t before, sorted_before, count;
    CHECK(ce_results_count(results, reader, &before) && ce_results_count(sorted, reader, &sorted_before));
    CHECK(before == sorted_before);
    /* A write transaction sees its own changes at once. */
    CHECK(ce_txn_begin_write(db, &writer));
    CHECK(ce_results_count(results, writer, &count) && count == before);
    ce_value values[P_COUNT];
    for (int p = 0; p < P_COUNT; p++) values[p] = random_value(p);
    values[P_PK] = (ce_value){.type = CE_TYPE_INT, .integer = next_pk++};
    values[P_I] = (ce_value){.type = CE_TYPE_INT, .integer = 100};
    values[P_S] = (ce_value){.type = CE_TYPE_STRING, .string = {"new", 3}};
    ce_object_key fresh = create_thing(writer, values);
    size_t position = store.tables[0].object_count - 1; /* the newest key is the last */
    CHECK(ce_results_count(results, writer, &count) && count == before + 1);
    ce_object_key top;
    CHECK(ce_results_get(sorted, writer, 0, &top) && top == fresh);
    ce_value changed = {.type = CE_TYPE_STRING, .string = {"zzz", 3}};
    CHECK(ce_object_set(writer, things, fresh, columns[P_S], &changed));
    model_set_value(&store, things, position, P_S, &changed);
    CHECK(ce_results_count(results, writer, &count) && count == before);
    changed = (ce_value){.type = CE_TYPE_STRING, .string = {"back", 4}};
    CHECK(ce_object_set(writer, things, fresh, columns[P_S], &changed));
    model_set_value(&store, things, position, P_S, &changed);
    CHECK(ce_results_count(sorted, writer, &count) && count == before + 1);
    CHECK(ce_txn_commit(writer));
    /* The reader still sees its snapshot, until it advances. */
    CHECK(ce_results_count(results, reader, &count) && count == before);
    CHECK(ce_results_count(sorted, reader, &count) && count == before);
    CHECK(ce_txn_advance(reader));
    CHECK(ce_results_count(results, reader, &count) && count == before + 1);
    CHECK(ce_results_get(sorted, reader, 0, &top) && top == fresh);
    size_t index;
    bool found;
    CHECK(ce_results_index_of(results, reader, fresh, &index, &found) && found && index == before);
    CHECK(ce_results_index_of(results, reader, -5, &index, &found) && !found);
    expect_error(ce_results_get(results, reader, before + 1, &top), CE_ERR_INDEX_OUT_OF_BOUNDS, "out of bounds");
    ce_txn_end(reader);

    CHECK(ce_txn_begin_write(db, &writer));
    check_schema_change_rebinds(writer);
    check_results_see_created_objects(writer);
    ce_txn_end(writer); /* rolled back */

    ce_results_free(sorted);
    ce_query_free(query); /* the results keep what they need */
    CHECK(ce_txn_begin_read(db, &reader));
    CHECK(ce_results_count(results, reader, &count) && count == before + 1);
    ce_txn_end(reader);
    ce_results_free(results);
    close_verified(&t);
}

TEST(query_rebinds_after_schema_change)
{
    test_db t = test_db_open("query");
    ce_txn *writer;
    CHECK(ce_txn_begin_write(t.db, &writer));
    check_schema_change_rebinds(writer);
    ce_txn_end(writer);
    close_verified(&t);
}

TEST(results_see_created_objects)
{
    test_db t = test_db_open("query");
    ce_txn *writer;
    CHECK(ce_txn_begin_write(t.db, &writer));
    check_results_see_created_objects(writer);
    ce_txn_end(writer);
    close_verified(&t);
}

/* ------------------------------------------------------------------------ */
/* Numbers as stored: based integer nodes, sums of doubles                   */
/* ------------------------------------------------------------------------ */

/* Integer nodes the commit stores with a base (frame of reference): values
 * close together in one leaf, and null bits that are all 1. */
static ce_table_key add_based_table(ce_db *db, int64_t *values)
{
    ce_txn *txn;
    ce_table_key table;
    ce_column_key column;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Based", &table));
    const ce_property_info v = {.name = "v", .type = CE_TYPE_INT};
    const ce_property_info none = {.name = "absent", .type = CE_TYPE_INT, .nullable = true};
    const ce_property_info some = {.name = "part", .type = CE_TYPE_INT, .nullable = true};
    CHECK(ce_property_add(txn, table, &v, &column) && ce_property_add(txn, table, &none, &column) &&
          ce_property_add(txn, table, &some, &column));
    for (int i = 0; i < 300; i++) {
        values[i] = 1000000000 + (i * 7) % 11;
        ce_value row[3] = {{.type = CE_TYPE_INT, .integer = values[i]},
                           {.type = CE_TYPE_NULL},
                           i % 3 ? (ce_value){.type = CE_TYPE_INT, .integer = -5000000000 + i % 4} : (ce_value){.type = CE_TYPE_NULL}};
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, row, 3, &key));
    }
    CHECK(ce_txn_commit(txn));
    return table;
}

TEST(based_node_comparisons)
{
    test_db t = test_db_open("query");
    ce_db *db = t.db;
    int64_t values[300];
    ce_table_key table = add_based_table(db, values);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    for (int o = 0; o < 6; o++) {
        for (int64_t c = 999999998; c <= 1000000012; c++) {
            char predicate[96];
            snprintf(predicate, sizeof predicate, "v %s %lld", ops[o], (long long)c);
            size_t expected = 0;
            for (int i = 0; i < 300; i++) {
                int64_t x = values[i];
                expected += o == 0 ? x == c : o == 1 ? x != c : o == 2 ? x < c : o == 3 ? x <= c : o == 4 ? x > c : x >= c;
            }
            if (count_of(txn, table, predicate, NULL, 0) != expected) {
                fprintf(stderr, "'%s': expected %zu\n", predicate, expected);
                exit(1);
            }
        }
        char predicate[96];
        snprintf(predicate, sizeof predicate, "v %s -9223372036854775808", ops[o]);
        CHECK(count_of(txn, table, predicate, NULL, 0) == (o == 1 || o >= 4 ? 300u : 0u));
        snprintf(predicate, sizeof predicate, "part %s -4999999998", ops[o]);
        size_t expected = 0;
        for (int i = 0; i < 300; i++) {
            if (i % 3 == 0) {
                expected += o == 1;
                continue;
            }
            int64_t x = -5000000000 + i % 4, c = -4999999998;
            expected += o == 0 ? x == c : o == 1 ? x != c : o == 2 ? x < c : o == 3 ? x <= c : o == 4 ? x > c : x >= c;
        }
        CHECK(count_of(txn, table, predicate, NULL, 0) == expected);
    }
    ce_txn_end(txn);
    close_verified(&t);
}

TEST(based_node_nulls)
{
    test_db t = test_db_open("query");
    ce_db *db = t.db;
    int64_t values[300];
    ce_table_key table = add_based_table(db, values);
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    /* 256 nulls in the first leaf: null bits of 1 only, stored as a base. */
    CHECK(count_of(txn, table, "absent == nil", NULL, 0) == 300);
    CHECK(count_of(txn, table, "absent != nil", NULL, 0) == 0);
    CHECK(count_of(txn, table, "part == nil", NULL, 0) == 100);
    size_t in_list = 0;
    for (int i = 0; i < 300; i++) in_list += i % 3 != 0 && i % 4 < 2;
    CHECK(count_of(txn, table, "part IN {-5000000000, -4999999999}", NULL, 0) == in_list);
    ce_txn_end(txn);
    close_verified(&t);
}

/* Sums of a required double property over results whose leaves match
 * whole (summed from the leaf's array, as ce_table_sum does: the two agree
 * to the bit) and in part (one value at a time), against a model. */
TEST(double_sums)
{
    test_db t = test_db_open("query");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key value_column, flag_column;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Sums", &table));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "value", .type = CE_TYPE_DOUBLE}, &value_column));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "flag", .type = CE_TYPE_INT}, &flag_column));
    enum { OBJECTS = 700 };
    long double all_total = 0, flagged_total = 0;
    size_t flagged = 0;
    for (int i = 0; i < OBJECTS; i++) {
        double value = (double)((i * 7919) % 1000) / 7.0 - 50.0;
        ce_value values[2] = {{.type = CE_TYPE_DOUBLE, .double_value = value}, {.type = CE_TYPE_INT, .integer = i % 3}};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &object));
        all_total += value;
        if (i % 3 == 0) flagged_total += value, flagged++;
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    ce_query *all_query, *flagged_query;
    ce_results *all, *some;
    CHECK(ce_query_parse(txn, table, "TRUEPREDICATE", NULL, 0, &all_query) && ce_query_find_all(all_query, &all));
    CHECK(ce_query_parse(txn, table, "flag == 0", NULL, 0, &flagged_query) && ce_query_find_all(flagged_query, &some));
    ce_value sum, table_sum, average;
    size_t counted;
    CHECK(ce_results_aggregate(all, txn, "value", CE_AGGREGATE_SUM, &sum, &counted) && counted == OBJECTS);
    CHECK(ce_table_sum(txn, table, value_column, &table_sum, NULL) && sum.double_value == table_sum.double_value);
    CHECK(fabsl((long double)sum.double_value - all_total) < 1e-6L);
    CHECK(ce_results_aggregate(all, txn, "value", CE_AGGREGATE_AVG, &average, &counted) && counted == OBJECTS);
    CHECK(average.double_value == sum.double_value / OBJECTS);
    CHECK(ce_results_aggregate(some, txn, "value", CE_AGGREGATE_SUM, &sum, &counted) && counted == flagged);
    CHECK(fabsl((long double)sum.double_value - flagged_total) < 1e-6L);
    ce_results_free(all);
    ce_results_free(some);
    ce_query_free(all_query);
    ce_query_free(flagged_query);
    ce_txn_end(txn);
    close_verified(&t);
}
