/*
 * test_query_views.c — results views over the people data
 * (test_query_people.h) checked against the model: views of lists
 * (repeats), sets, dictionaries of links, lists of embedded objects and
 * backlinks; filters of them, of sorted views, chained, with SORT in the
 * predicate; sort, distinct, limit, index_of and aggregates on them;
 * liveness across write and read transactions; a deleted owner; wrong
 * types; aggregates of collections of values of the model.
 *
 * Owns: the cases on results views of collections and backlinks.
 * Never: asks the engine what a view should hold.
 */
#include "test_query_people.h"

/* ------------------------------------------------------------------------ */
/* Results views of collections and backlinks, filters of views, and        */
/* aggregates of collections of values                                       */
/* ------------------------------------------------------------------------ */

/* A view against the keys the model expects, in order: count, get,
 * index_of (the first position of each key; a missing key is not found)
 * and the bounds error past the end. */
static void check_view(const char *what, ce_results *view, ce_txn *txn, const ce_object_key *expected, size_t count)
{
    check_keys(what, view, txn, expected, count);
    ce_object_key key;
    expect_error(ce_results_get(view, txn, count, &key), CE_ERR_INDEX_OUT_OF_BOUNDS, "out of bounds");
    for (size_t i = 0; i < count; i++) {
        size_t first = 0, at = 0;
        bool found;
        while (expected[first] != expected[i]) first++;
        CHECK(ce_results_index_of(view, txn, expected[i], &at, &found));
        if (!found || at != first) {
            fprintf(stderr, "'%s': index_of(%lld) is %s %zu, the model %zu\n", what, (long long)expected[i],
                    found ? "found at" : "not found", at, first);
            exit(1);
        }
    }
    size_t at;
    bool found;
    CHECK(ce_results_index_of(view, txn, INT64_MAX, &at, &found) && !found);
    checked_queries++;
}

static const char *const dog_filters[] = {"age > 5",
                                          "vet.fee < 50",
                                          "name BEGINSWITH[c] 'r'",
                                          "age >= 3 AND vet != nil",
                                          "TRUEPREDICATE",
                                          "FALSEPREDICATE",
                                          "age IN {1, 4, 7} OR name ENDSWITH '0'"};

static bool dog_filter_match(int d, size_t k)
{
    const dog_model *dog = &dogs[d];
    switch (k) {
    case 0:
    case 1:
    case 2: return dog_matches(d, (int)k);
    case 3: return dog->age >= 3 && dog->vet >= 0;
    case 4: return true;
    case 5: return false;
    default: return dog->age == 1 || dog->age == 4 || dog->age == 7 || dog->name[strlen(dog->name) - 1] == '0';
    }
}

/* Dog indices stably sorted by age, descending, or by name (bytewise). */
static void model_sort_dogs(int *items, size_t count, bool by_name)
{
    for (size_t i = 1; i < count; i++) {
        int item = items[i];
        size_t j = i;
        while (j > 0 && (by_name ? strcmp(dogs[items[j - 1]].name, dogs[item].name) > 0
                                 : dogs[items[j - 1]].age < dogs[item].age)) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = item;
    }
}

static void sort_object_keys(ce_object_key *keys, size_t count)
{
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
            ce_object_key swap = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = swap;
        }
}

/* The aggregates of "age" (int) and "vet.fee" (double, null without a
 * vet) over a view of the given dogs, in that order. */
static void check_dog_aggregates(const char *what, ce_txn *txn, ce_results *view, const int *items, size_t count)
{
    int64_t age_sum = 0, age_min = 0, age_max = 0;
    double fee_sum = 0, fee_min = 0, fee_max = 0;
    size_t fees = 0;
    for (size_t i = 0; i < count; i++) {
        const dog_model *dog = &dogs[items[i]];
        age_sum += dog->age;
        if (i == 0 || dog->age < age_min) age_min = dog->age;
        if (i == 0 || dog->age > age_max) age_max = dog->age;
        if (dog->vet < 0) continue;
        double fee = vets[dog->vet].fee;
        fee_sum += fee;
        if (fees == 0 || fee < fee_min) fee_min = fee;
        if (fees == 0 || fee > fee_max) fee_max = fee;
        fees++;
    }
    ce_value value;
    size_t counted;
    CHECK(ce_results_aggregate(view, txn, "age", CE_AGGREGATE_SUM, &value, &counted) && counted == count);
    expect_int(what, &value, age_sum);
    CHECK(ce_results_aggregate(view, txn, "age", CE_AGGREGATE_COUNT, &value, NULL));
    expect_int(what, &value, (int64_t)count);
    CHECK(ce_results_aggregate(view, txn, "age", CE_AGGREGATE_MIN, &value, NULL));
    if (count) expect_int(what, &value, age_min);
    else CHECK(value.type == CE_TYPE_NULL);
    CHECK(ce_results_aggregate(view, txn, "age", CE_AGGREGATE_MAX, &value, NULL));
    if (count) expect_int(what, &value, age_max);
    else CHECK(value.type == CE_TYPE_NULL);
    CHECK(ce_results_aggregate(view, txn, "age", CE_AGGREGATE_AVG, &value, NULL));
    expect_double(what, &value, count == 0, count ? (double)age_sum / (double)count : 0);
    CHECK(ce_results_aggregate(view, txn, "vet.fee", CE_AGGREGATE_SUM, &value, &counted) && counted == fees);
    expect_double(what, &value, false, fee_sum);
    CHECK(ce_results_aggregate(view, txn, "vet.fee", CE_AGGREGATE_MIN, &value, NULL));
    expect_double(what, &value, fees == 0, fee_min);
    CHECK(ce_results_aggregate(view, txn, "vet.fee", CE_AGGREGATE_MAX, &value, NULL));
    expect_double(what, &value, fees == 0, fee_max);
    CHECK(ce_results_aggregate(view, txn, "vet.fee", CE_AGGREGATE_AVG, &value, NULL));
    expect_double(what, &value, fees == 0, fees ? fee_sum / (double)fees : 0);
}

static ce_results *view_of(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column)
{
    ce_collection *collection;
    ce_results *view;
    CHECK(ce_collection_open(txn, table, object, column, &collection));
    CHECK(ce_results_from_collection(txn, collection, &view));
    ce_collection_close(collection);
    return view;
}

static ce_results *filtered(ce_txn *txn, const ce_results *view, ce_query *query)
{
    ce_results *result;
    CHECK(ce_results_filter(txn, view, query, &result));
    return result;
}

static void parse_dog_filters(ce_txn *txn, ce_query **filters)
{
    for (size_t k = 0; k < COUNT_OF(dog_filters); k++)
        CHECK(ce_query_parse(txn, dog_table, dog_filters[k], NULL, 0, &filters[k]));
}

static void free_dog_filters(ce_query **filters)
{
    for (size_t k = 0; k < COUNT_OF(dog_filters); k++) ce_query_free(filters[k]);
}

/* A person's list and set of dogs as views, the list sorted by age
 * (descending), and the model's dogs in each one's order. */
typedef struct person_views {
    ce_results *list, *set, *sorted;
    int sorted_dogs[MAX_ITEMS], pets_in_order[MAX_ITEMS];
    size_t pet_count;
} person_views;

static person_views open_person_views(ce_txn *txn, const person_model *m)
{
    person_views v;
    v.list = view_of(txn, person_table, m->key, 3);
    v.set = view_of(txn, person_table, m->key, 4);
    const ce_sort_key by_age_descending = {"age", false};
    CHECK(ce_results_sort(txn, v.list, &by_age_descending, 1, &v.sorted));
    memcpy(v.sorted_dogs, m->dogs, sizeof v.sorted_dogs);
    model_sort_dogs(v.sorted_dogs, (size_t)m->dog_count, false);
    ce_object_key keys[MAX_ITEMS];
    v.pet_count = 0;
    for (int i = 0; i < m->pet_count; i++) keys[v.pet_count++] = dogs[m->pets[i]].key;
    sort_object_keys(keys, v.pet_count); /* a set of links is in link order */
    for (size_t i = 0; i < v.pet_count; i++)
        for (int d = 0; d < DOGS; d++)
            if (dogs[d].key == keys[i]) v.pets_in_order[i] = d;
    return v;
}

static void close_person_views(person_views *v)
{
    ce_results_free(v->sorted);
    ce_results_free(v->set);
    ce_results_free(v->list);
}

/* Each person's list and set of dogs as views (count, get, index_of),
 * the list's aggregates, and the list sorted by age. */
TEST(list_and_set_views)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    static ce_object_key expected[PEOPLE * MAX_ITEMS + 1];
    for (int p = 0; p < PEOPLE; p++) {
        const person_model *m = &people[p];
        person_views v = open_person_views(txn, m);
        ce_results *list = v.list, *set = v.set, *sorted = v.sorted;
        CHECK(ce_results_table(list) == dog_table && ce_results_table(set) == dog_table);
        size_t n = 0;
        for (int i = 0; i < m->dog_count; i++) expected[n++] = dogs[m->dogs[i]].key;
        check_view("person.dogs", list, txn, expected, n);
        check_dog_aggregates("person.dogs", txn, list, m->dogs, (size_t)m->dog_count);
        for (size_t i = 0; i < v.pet_count; i++) expected[i] = dogs[v.pets_in_order[i]].key;
        check_view("person.pets", set, txn, expected, v.pet_count);
        for (int i = 0; i < m->dog_count; i++) expected[i] = dogs[v.sorted_dogs[i]].key;
        check_view("person.dogs sorted by age", sorted, txn, expected, (size_t)m->dog_count);
        close_person_views(&v);
    }
    ce_txn_end(txn);
    close_verified(&t);
}

/* Filters of each person's list (in list order, repeats kept), of its
 * sorted view (the sort kept), of a filter of it (chained) and of the
 * set, with the list's aggregates after the filter. */
TEST(filters_of_views)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *filters[COUNT_OF(dog_filters)];
    parse_dog_filters(txn, filters);
    static ce_object_key expected[PEOPLE * MAX_ITEMS + 1];
    for (int p = 0; p < PEOPLE; p++) {
        const person_model *m = &people[p];
        person_views v = open_person_views(txn, m);
        ce_results *list = v.list, *set = v.set, *sorted = v.sorted;
        const int *sorted_dogs = v.sorted_dogs, *pets_in_order = v.pets_in_order;
        size_t n = v.pet_count;
        int kept[MAX_ITEMS];
        for (size_t k = 0; k < COUNT_OF(dog_filters); k++) {
            /* In list order, repeats kept. */
            ce_results *of_list = filtered(txn, list, filters[k]);
            size_t count = 0;
            for (int i = 0; i < m->dog_count; i++)
                if (dog_filter_match(m->dogs[i], k)) kept[count++] = m->dogs[i];
            for (size_t i = 0; i < count; i++) expected[i] = dogs[kept[i]].key;
            check_view(dog_filters[k], of_list, txn, expected, count);
            check_dog_aggregates(dog_filters[k], txn, of_list, kept, count);
            /* A filter of a sorted view keeps the sort. */
            ce_results *of_sorted = filtered(txn, sorted, filters[k]);
            count = 0;
            for (int i = 0; i < m->dog_count; i++)
                if (dog_filter_match(sorted_dogs[i], k)) expected[count++] = dogs[sorted_dogs[i]].key;
            check_view("filter of a sorted view", of_sorted, txn, expected, count);
            /* Chained filters. */
            ce_results *twice = filtered(txn, of_list, filters[(k + 1) % COUNT_OF(dog_filters)]);
            count = 0;
            for (int i = 0; i < m->dog_count; i++)
                if (dog_filter_match(m->dogs[i], k) && dog_filter_match(m->dogs[i], (k + 1) % COUNT_OF(dog_filters)))
                    expected[count++] = dogs[m->dogs[i]].key;
            check_view("chained filters", twice, txn, expected, count);
            /* The set. */
            ce_results *of_set = filtered(txn, set, filters[k]);
            count = 0;
            for (size_t i = 0; i < n; i++)
                if (dog_filter_match(pets_in_order[i], k)) expected[count++] = dogs[pets_in_order[i]].key;
            check_view("filter of a set", of_set, txn, expected, count);
            ce_results_free(of_set);
            ce_results_free(twice);
            ce_results_free(of_sorted);
            ce_results_free(of_list);
        }
        close_person_views(&v);
    }
    free_dog_filters(filters);
    ce_txn_end(txn);
    close_verified(&t);
}

/* SORT in a filter's predicate, distinct and limit, on each person's
 * list. */
TEST(sort_distinct_limit_of_views)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *sorting_filter;
    CHECK(ce_query_parse(txn, dog_table, "age > 2 SORT(name ASC)", NULL, 0, &sorting_filter));
    static ce_object_key expected[PEOPLE * MAX_ITEMS + 1];
    const char *const by_age[] = {"age"};
    for (int p = 0; p < PEOPLE; p++) {
        const person_model *m = &people[p];
        person_views v = open_person_views(txn, m);
        ce_results *list = v.list, *sorted = v.sorted;
        const int *sorted_dogs = v.sorted_dogs;
        int kept[MAX_ITEMS];
        /* The query's SORT applies to what the filter keeps. */
        ce_results *suffixed = filtered(txn, list, sorting_filter);
        size_t count = 0;
        for (int i = 0; i < m->dog_count; i++)
            if (dogs[m->dogs[i]].age > 2) kept[count++] = m->dogs[i];
        model_sort_dogs(kept, count, true);
        for (size_t i = 0; i < count; i++) expected[i] = dogs[kept[i]].key;
        check_view("age > 2 SORT(name ASC) of a list", suffixed, txn, expected, count);
        /* Distinct keeps the first dog of each age, limit the first two. */
        ce_results *distinct, *limited;
        CHECK(ce_results_distinct(txn, list, by_age, 1, &distinct) && ce_results_limit(sorted, 2, &limited));
        count = 0;
        for (int i = 0; i < m->dog_count; i++) {
            bool seen = false;
            for (int j = 0; j < i; j++) seen = seen || dogs[m->dogs[j]].age == dogs[m->dogs[i]].age;
            if (!seen) expected[count++] = dogs[m->dogs[i]].key;
        }
        check_view("distinct age of a list", distinct, txn, expected, count);
        count = m->dog_count < 2 ? (size_t)m->dog_count : 2;
        for (size_t i = 0; i < count; i++) expected[i] = dogs[sorted_dogs[i]].key;
        check_view("limit 2 of a sorted list", limited, txn, expected, count);
        ce_results_free(limited);
        ce_results_free(distinct);
        ce_results_free(suffixed);
        close_person_views(&v);
    }
    ce_query_free(sorting_filter);
    ce_txn_end(txn);
    close_verified(&t);
}

/* Each person's dictionary of links: its non-null values in key order,
 * filtered, sorted and aggregated as a list of them would be. */
TEST(dictionary_of_links_views)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *filters[COUNT_OF(dog_filters)];
    parse_dog_filters(txn, filters);
    static ce_object_key expected[PEOPLE * MAX_ITEMS + 1];
    const ce_sort_key by_age_descending = {"age", false};
    for (int p = 0; p < PEOPLE; p++) {
        const person_model *m = &people[p];
        int kept[MAX_ITEMS];
        size_t count;
        ce_results *friends = view_of(txn, person_table, m->key, 8);
        CHECK(ce_results_table(friends) == dog_table);
        int friend_dogs[MAX_ITEMS];
        size_t friend_count = 0;
        for (int i = 0; i < m->friend_count; i++)
            if (m->friends[i] >= 0) friend_dogs[friend_count++] = m->friends[i];
        for (size_t i = 0; i < friend_count; i++) expected[i] = dogs[friend_dogs[i]].key;
        check_view("person.friends (a dictionary)", friends, txn, expected, friend_count);
        check_dog_aggregates("person.friends", txn, friends, friend_dogs, friend_count);
        for (size_t k = 0; k < COUNT_OF(dog_filters); k++) {
            ce_results *of_friends = filtered(txn, friends, filters[k]);
            count = 0;
            for (size_t i = 0; i < friend_count; i++)
                if (dog_filter_match(friend_dogs[i], k)) kept[count++] = friend_dogs[i];
            for (size_t i = 0; i < count; i++) expected[i] = dogs[kept[i]].key;
            check_view("filter of a dictionary", of_friends, txn, expected, count);
            check_dog_aggregates("filter of a dictionary", txn, of_friends, kept, count);
            ce_results_free(of_friends);
        }
        ce_results *friends_by_age;
        CHECK(ce_results_sort(txn, friends, &by_age_descending, 1, &friends_by_age));
        model_sort_dogs(friend_dogs, friend_count, false);
        for (size_t i = 0; i < friend_count; i++) expected[i] = dogs[friend_dogs[i]].key;
        check_view("a dictionary sorted by age", friends_by_age, txn, expected, friend_count);
        ce_results_free(friends_by_age);
        ce_results_free(friends);
    }
    free_dog_filters(filters);
    ce_txn_end(txn);
    close_verified(&t);
}

/* A filter of a query's results, sorted by name. */
TEST(filter_of_sorted_query_results)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *filters[COUNT_OF(dog_filters)];
    parse_dog_filters(txn, filters);
    static ce_object_key expected[DOGS];
    ce_query *every_dog;
    ce_results *all_dogs_view, *by_name, *old_by_name;
    CHECK(ce_query_parse(txn, dog_table, "TRUEPREDICATE", NULL, 0, &every_dog) && ce_query_find_all(every_dog, &all_dogs_view));
    const ce_sort_key name_key = {"name", true};
    CHECK(ce_results_sort(txn, all_dogs_view, &name_key, 1, &by_name));
    old_by_name = filtered(txn, by_name, filters[0]);
    int all[DOGS];
    for (int d = 0; d < DOGS; d++) all[d] = d;
    model_sort_dogs(all, DOGS, true);
    size_t count = 0;
    for (int d = 0; d < DOGS; d++)
        if (dogs[all[d]].age > 5) expected[count++] = dogs[all[d]].key;
    check_view("filter of sorted query results", old_by_name, txn, expected, count);
    ce_results_free(old_by_name);
    ce_results_free(by_name);
    ce_results_free(all_dogs_view);
    ce_query_free(every_dog);
    free_dog_filters(filters);
    ce_txn_end(txn);
    close_verified(&t);
}

/* LinkingObjects of every dog through best, dogs and pets; filtered;
 * aggregated. */
TEST(backlink_views)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *old_people;
    CHECK(ce_query_parse(txn, person_table, "age > 30", NULL, 0, &old_people));
    static ce_object_key expected[PEOPLE * MAX_ITEMS + 1];
    for (int d = 0; d < DOGS; d++) {
        for (ce_column_key column = 2; column <= 4; column++) {
            ce_results *owners, *old_owners;
            CHECK(ce_results_from_backlinks(txn, dog_table, dogs[d].key, person_table, column, &owners));
            CHECK(ce_results_table(owners) == person_table);
            old_owners = filtered(txn, owners, old_people);
            size_t n = 0, old = 0;
            static ce_object_key old_expected[PEOPLE * MAX_ITEMS + 1];
            int64_t age_sum = 0;
            size_t ages = 0;
            for (int p = 0; p < PEOPLE; p++) {
                const person_model *m = &people[p];
                int links = 0;
                if (column == 2) links = m->best == d;
                for (int i = 0; column == 3 && i < m->dog_count; i++) links += m->dogs[i] == d;
                for (int i = 0; column == 4 && i < m->pet_count; i++) links += m->pets[i] == d;
                for (int i = 0; i < links; i++) {
                    expected[n++] = m->key;
                    if (m->has_age && m->age > 30) old_expected[old++] = m->key;
                    if (m->has_age) age_sum += m->age, ages++;
                }
            }
            check_view("backlinks", owners, txn, expected, n);
            check_view("filter of backlinks", old_owners, txn, old_expected, old);
            ce_value sum;
            size_t counted;
            CHECK(ce_results_aggregate(owners, txn, "age", CE_AGGREGATE_SUM, &sum, &counted) && counted == ages);
            expect_int("sum of the owners' ages", &sum, age_sum);
            ce_results_free(old_owners);
            ce_results_free(owners);
        }
    }
    ce_query_free(old_people);
    ce_txn_end(txn);
    close_verified(&t);
}

/* Aggregates of the lists of scores (int?) and dictionaries of ratings
 * (double?) of every person. */
TEST(aggregates_of_scores_and_ratings)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    for (int p = 0; p < PEOPLE; p++) {
        const person_model *m = &people[p];
        ce_collection *scores, *ratings;
        CHECK(ce_collection_open(txn, person_table, m->key, 5, &scores) &&
              ce_collection_open(txn, person_table, m->key, 7, &ratings));
        int counted;
        int sum = scores_sum(m, &counted);
        int64_t low = INT64_MAX, high = INT64_MIN;
        for (int i = 0; i < m->score_count; i++) {
            if (m->score_null[i]) continue;
            if (m->scores[i] < low) low = m->scores[i];
            if (m->scores[i] > high) high = m->scores[i];
        }
        ce_value value;
        CHECK(ce_collection_aggregate(scores, CE_AGGREGATE_SUM, &value));
        expect_int("scores.sum()", &value, sum);
        CHECK(ce_collection_aggregate(scores, CE_AGGREGATE_COUNT, &value));
        expect_int("scores.count", &value, counted);
        CHECK(ce_collection_aggregate(scores, CE_AGGREGATE_MIN, &value));
        if (counted) expect_int("scores.min()", &value, low);
        else CHECK(value.type == CE_TYPE_NULL);
        CHECK(ce_collection_aggregate(scores, CE_AGGREGATE_MAX, &value));
        if (counted) expect_int("scores.max()", &value, high);
        else CHECK(value.type == CE_TYPE_NULL);
        CHECK(ce_collection_aggregate(scores, CE_AGGREGATE_AVG, &value));
        expect_double("scores.average()", &value, counted == 0, counted ? (double)sum / counted : 0);
        double rating_sum = 0;
        size_t rated = 0;
        for (int i = 0; i < m->rating_count; i++)
            if (!m->rating_null[i]) rating_sum += m->ratings[i], rated++;
        CHECK(ce_collection_aggregate(ratings, CE_AGGREGATE_SUM, &value));
        expect_double("ratings.sum()", &value, false, rating_sum);
        CHECK(ce_collection_aggregate(ratings, CE_AGGREGATE_AVG, &value));
        expect_double("ratings.average()", &value, rated == 0, rated ? rating_sum / (double)rated : 0);
        ce_collection_close(ratings);
        ce_collection_close(scores);
    }
    ce_txn_end(txn);
    close_verified(&t);
}

/* What results views, collection aggregates and sorted indices refuse. */
TEST(view_errors)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *old_people;
    CHECK(ce_query_parse(txn, person_table, "age > 30", NULL, 0, &old_people));
    ce_collection *scores, *ratings, *friends, *tags, *dogs_list;
    const person_model *first = &people[0];
    CHECK(ce_collection_open(txn, person_table, first->key, 5, &scores) &&
          ce_collection_open(txn, person_table, first->key, 7, &ratings) &&
          ce_collection_open(txn, person_table, first->key, 8, &friends) &&
          ce_collection_open(txn, person_table, first->key, 6, &tags) &&
          ce_collection_open(txn, person_table, first->key, 3, &dogs_list));
    ce_results *bad = NULL, *list = view_of(txn, person_table, first->key, 3);
    expect_error(ce_results_from_collection(txn, scores, &bad), CE_ERR_WRONG_TYPE, "'Person.scores': it holds int values");
    expect_error(ce_results_from_collection(txn, ratings, &bad), CE_ERR_WRONG_TYPE, "holds double values");
    expect_error(ce_results_from_collection(txn, NULL, &bad), CE_ERR_INVALID_ARGUMENT, "ce_results_from_collection");
    ce_value value;
    expect_error(ce_collection_aggregate(dogs_list, CE_AGGREGATE_SUM, &value), CE_ERR_WRONG_TYPE,
                 "sum of a collection of links");
    CHECK(ce_collection_aggregate(dogs_list, CE_AGGREGATE_COUNT, &value));
    expect_int("dogs.count", &value, first->dog_count);
    expect_error(ce_collection_aggregate(tags, CE_AGGREGATE_AVG, &value), CE_ERR_WRONG_TYPE,
                 "average of a collection of string values");
    expect_error(ce_collection_aggregate(tags, CE_AGGREGATE_MIN, &value), CE_ERR_WRONG_TYPE, "min of a collection of string");
    CHECK(ce_collection_aggregate(tags, CE_AGGREGATE_COUNT, &value));
    expect_int("tags.count", &value, first->tag_count);
    size_t order[MAX_ITEMS + 1], ordered = 0;
    CHECK(ce_collection_sorted_indices(tags, true, order, MAX_ITEMS + 1, &ordered) && ordered == (size_t)first->tag_count);
    for (size_t i = 0; i < ordered; i++) CHECK(order[i] == i); /* a set is in value order already */
    expect_error(ce_collection_sorted_indices(dogs_list, true, order, MAX_ITEMS + 1, &ordered), CE_ERR_WRONG_TYPE,
                 "cannot sort a collection of links");
    expect_error(ce_collection_aggregate(scores, (ce_aggregate)9, &value), CE_ERR_INVALID_ARGUMENT, "unknown aggregate 9");
    expect_error(ce_results_filter(txn, list, old_people, &bad), CE_ERR_INVALID_ARGUMENT,
                 "cannot filter results of 'Dog' with a query on 'Person'");
    expect_error(ce_results_from_backlinks(txn, dog_table, dogs[0].key, person_table, 0, &bad), CE_ERR_NO_SUCH_PROPERTY,
                 "'Person.name' holds no links to 'Dog'");
    expect_error(ce_results_from_backlinks(txn, vet_table, vets[0].key, person_table, 3, &bad), CE_ERR_NO_SUCH_PROPERTY,
                 "'Person.dogs' holds no links to 'Vet'");
    expect_error(ce_results_from_backlinks(txn, dog_table, (ce_object_key)1 << 40, person_table, 3, &bad),
                 CE_ERR_NO_SUCH_OBJECT, "'Dog' has no object");
    expect_error(ce_results_aggregate(list, txn, "agee", CE_AGGREGATE_SUM, &value, NULL), CE_ERR_INVALID_QUERY,
                 "no property 'agee'");
    expect_error(ce_results_aggregate(list, txn, "name", CE_AGGREGATE_SUM, &value, NULL), CE_ERR_WRONG_TYPE,
                 "sum of string property");
    const ce_sort_key wrong = {"nope", true};
    expect_error(ce_results_sort(txn, list, &wrong, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'nope': property 'Dog.nope' does not exist.");
    CHECK(bad == NULL);
    ce_results_free(list);
    ce_collection_close(dogs_list);
    ce_collection_close(tags);
    ce_collection_close(friends);
    ce_collection_close(ratings);
    ce_collection_close(scores);
    ce_query_free(old_people);
    ce_txn_end(txn);
    close_verified(&t);
}

/* ------------------------------------------------------------------------ */
/* Live views                                                                */
/* ------------------------------------------------------------------------ */

/* A person's list of dogs as a view, sorted by name, filtered (age > 5),
 * and the backlinks of its first dog, as live_list_story leaves them. */
typedef struct live_list {
    ce_object_key holder;
    ce_results *view, *sorted, *old, *owners;
    ce_query *older;
    ce_txn *reader; /* advanced past the second of three writes */
} live_list;

/* The model's answers for each view, checked in a transaction. */
static void check_live(ce_results *view, ce_results *old, ce_txn *txn, const int *live_dogs, size_t live_count)
{
    ce_object_key expected[16];
    int items[16];
    for (size_t i = 0; i < live_count; i++) expected[i] = dogs[live_dogs[i]].key;
    check_view("live list", view, txn, expected, live_count);
    check_dog_aggregates("live list", txn, view, live_dogs, live_count);
    memcpy(items, live_dogs, sizeof items);
    model_sort_dogs(items, live_count, true);
    size_t kept_ = 0;
    for (size_t i = 0; i < live_count; i++)
        if (dogs[items[i]].age > 5) expected[kept_++] = dogs[items[i]].key;
    check_view("live filter of a sorted list", old, txn, expected, kept_);
}
#define CHECK_LIVE(TXN) check_live(view, old, (TXN), live_dogs, live_count)

/* Views stay live across transactions: a write transaction sees its
 * changes at once, a read transaction once it advances; a deleted dog
 * leaves the list. */
static live_list live_list_story(ce_db *db)
{
    ce_txn *writer, *reader;
    CHECK(ce_txn_begin_write(db, &writer));
    ce_object_key holder;
    CHECK(ce_object_create(writer, person_table, NULL, &holder));
    ce_collection *list;
    CHECK(ce_collection_open(writer, person_table, holder, 3, &list));
    int live_dogs[16] = {0, 1, 0};
    size_t live_count = 3;
    for (size_t i = 0; i < live_count; i++) {
        ce_value link = link_to(dog_table, dogs[live_dogs[i]].key);
        CHECK(ce_list_insert(list, i, &link));
    }
    ce_results *view, *sorted, *old, *owners;
    CHECK(ce_results_from_collection(writer, list, &view));
    ce_collection_close(list);
    ce_query *older;
    CHECK(ce_query_parse(writer, dog_table, "age > 5", NULL, 0, &older));
    const ce_sort_key by_name = {"name", true};
    CHECK(ce_results_sort(writer, view, &by_name, 1, &sorted));
    old = filtered(writer, sorted, older);
    CHECK(ce_results_from_backlinks(writer, dog_table, dogs[0].key, person_table, 3, &owners));
    CHECK_LIVE(writer);
    CHECK(ce_txn_commit(writer));
    CHECK(ce_txn_begin_read(db, &reader));
    CHECK_LIVE(reader);

    /* A later write: the same handles answer for it at once, the reader
     * keeps its snapshot until it advances. */
    CHECK(ce_txn_begin_write(db, &writer));
    CHECK(ce_collection_open(writer, person_table, holder, 3, &list));
    CHECK(ce_list_erase(list, 0));
    ce_value link = link_to(dog_table, dogs[5].key);
    CHECK(ce_list_insert(list, 2, &link));
    link = link_to(dog_table, dogs[6].key);
    CHECK(ce_list_insert(list, 0, &link));
    CHECK(ce_list_move(list, 3, 1));
    ce_collection_close(list);
    int changed[] = {6, 5, 1, 0};
    int before[16];
    size_t before_count = live_count;
    memcpy(before, live_dogs, sizeof before);
    memcpy(live_dogs, changed, sizeof changed);
    live_count = 4;
    /* A dog of the list grows old: the filter sees it. */
    dogs[1].age = 9;
    ce_value age = {.type = CE_TYPE_INT, .integer = 9};
    CHECK(ce_object_set(writer, dog_table, dogs[1].key, 1, &age));
    CHECK_LIVE(writer);
    CHECK(ce_txn_commit(writer));
    {
        size_t n;
        CHECK(ce_results_count(view, reader, &n) && n == before_count);
        ce_object_key key;
        CHECK(ce_results_get(view, reader, 0, &key) && key == dogs[before[0]].key);
    }
    CHECK(ce_txn_advance(reader));
    CHECK_LIVE(reader);

    /* Deleting a dog takes it out of the list. */
    CHECK(ce_txn_begin_write(db, &writer));
    CHECK(ce_object_delete(writer, dog_table, dogs[5].key));
    live_dogs[1] = live_dogs[2], live_dogs[2] = live_dogs[3];
    live_count = 3;
    CHECK_LIVE(writer);
    ce_results *dead_dog_owners;
    expect_error(ce_results_from_backlinks(writer, dog_table, dogs[5].key, person_table, 3, &dead_dog_owners),
                 CE_ERR_NO_SUCH_OBJECT, "has no object");
    CHECK(ce_txn_commit(writer));
    return (live_list){holder, view, sorted, old, owners, older, reader};
}
#undef CHECK_LIVE

static void live_list_close(live_list *l)
{
    ce_results_free(l->owners);
    ce_results_free(l->old);
    ce_results_free(l->sorted);
    ce_results_free(l->view);
    ce_query_free(l->older);
    ce_txn_end(l->reader);
}

TEST(live_list_view)
{
    test_db t = link_data_open();
    live_list l = live_list_story(t.db);
    live_list_close(&l);
    close_verified(&t);
}

TEST(deleted_owner_invalidates_views)
{
    test_db t = link_data_open();
    ce_db *db = t.db;
    live_list l = live_list_story(db);
    ce_results *view = l.view, *sorted = l.sorted, *old = l.old, *owners = l.owners;
    ce_txn *writer, *reader = l.reader;
    ce_object_key holder = l.holder;
    /* Deleting the owner invalidates the views made from its list; the
     * reader's snapshot still has it. Backlinks of a deleted target too. */
    CHECK(ce_txn_begin_write(db, &writer));
    size_t n, owners_before;
    CHECK(ce_results_count(owners, writer, &owners_before));
    CHECK(ce_object_delete(writer, person_table, holder));
    expect_error(ce_results_count(view, writer, &n), CE_ERR_NO_SUCH_OBJECT,
                 "the results view of a collection is invalidated: its object");
    expect_error(ce_results_count(sorted, writer, &n), CE_ERR_NO_SUCH_OBJECT, "invalidated");
    expect_error(ce_results_count(old, writer, &n), CE_ERR_NO_SUCH_OBJECT, "invalidated");
    ce_object_key key;
    expect_error(ce_results_get(old, writer, 0, &key), CE_ERR_NO_SUCH_OBJECT, "invalidated");
    ce_value value;
    expect_error(ce_results_aggregate(view, writer, "age", CE_AGGREGATE_SUM, &value, NULL), CE_ERR_NO_SUCH_OBJECT,
                 "invalidated");
    CHECK(ce_results_count(owners, writer, &n) && n == owners_before - 1); /* the holder listed dogs[0] once */
    CHECK(ce_results_count(view, reader, &n) && n == 4); /* its snapshot: before the dog was deleted */
    CHECK(ce_object_delete(writer, dog_table, dogs[0].key));
    expect_error(ce_results_count(owners, writer, &n), CE_ERR_NO_SUCH_OBJECT,
                 "the results view of backlinks is invalidated");
    ce_txn_end(writer); /* rolled back: the views work again */
    CHECK(ce_txn_begin_write(db, &writer));
    CHECK(ce_results_count(view, writer, &n) && n == 3);
    CHECK(ce_results_count(owners, writer, &n) && n == owners_before);
    ce_txn_end(writer);
    live_list_close(&l);
    close_verified(&t);
}

TEST(embedded_list_view)
{
    test_db t = test_db_open("query-views");
    ce_txn *writer;
    CHECK(ce_txn_begin_write(t.db, &writer));
    ce_collection *list;
    ce_value value;
    /* A list of embedded objects. */
    ce_table_key address_table, holder_table;
    ce_column_key zip, street, addresses;
    CHECK(ce_table_add_embedded(writer, "Address", &address_table) && ce_table_add(writer, "Holder", &holder_table));
    ce_property_info zip_info = {.name = "zip", .type = CE_TYPE_INT}, street_info = {.name = "street", .type = CE_TYPE_STRING};
    ce_property_info addresses_info = {.name = "addresses", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                                       .link_target = address_table};
    CHECK(ce_property_add(writer, address_table, &zip_info, &zip) &&
          ce_property_add(writer, address_table, &street_info, &street) &&
          ce_property_add(writer, holder_table, &addresses_info, &addresses));
    ce_object_key home;
    CHECK(ce_object_create(writer, holder_table, NULL, &home));
    CHECK(ce_collection_open(writer, holder_table, home, addresses, &list));
    ce_object_key embedded[6];
    int64_t zips[6] = {5, 1, 9, 1, 3, 7}, zip_sum = 0;
    for (size_t i = 0; i < 6; i++) {
        CHECK(ce_list_insert_embedded(list, i, &embedded[i]));
        ce_value z = {.type = CE_TYPE_INT, .integer = zips[i]};
        CHECK(ce_object_set(writer, address_table, embedded[i], zip, &z));
        zip_sum += zips[i];
    }
    ce_results *homes, *far, *by_zip;
    CHECK(ce_results_from_collection(writer, list, &homes));
    CHECK(ce_results_table(homes) == address_table);
    check_view("a list of embedded objects", homes, writer, embedded, 6);
    ce_query *zip_query;
    CHECK(ce_query_parse(writer, address_table, "zip > 2", NULL, 0, &zip_query));
    far = filtered(writer, homes, zip_query);
    ce_object_key far_expected[] = {embedded[0], embedded[2], embedded[4], embedded[5]};
    check_view("filter of embedded objects", far, writer, far_expected, 4);
    const ce_sort_key zip_key = {"zip", true};
    CHECK(ce_results_sort(writer, homes, &zip_key, 1, &by_zip));
    ce_object_key zip_order[] = {embedded[1], embedded[3], embedded[4], embedded[0], embedded[5], embedded[2]};
    check_view("embedded objects by zip", by_zip, writer, zip_order, 6);
    CHECK(ce_results_aggregate(homes, writer, "zip", CE_AGGREGATE_SUM, &value, NULL));
    expect_int("sum of zips", &value, zip_sum);
    CHECK(ce_list_erase(list, 2)); /* deletes the embedded object */
    ce_object_key after_erase[] = {embedded[0], embedded[1], embedded[3], embedded[4], embedded[5]};
    check_view("a list of embedded objects after an erase", homes, writer, after_erase, 5);
    ce_collection_close(list);
    ce_results_free(by_zip);
    ce_results_free(far);
    ce_results_free(homes);
    ce_query_free(zip_query);
    ce_txn_end(writer);
    close_verified(&t);
}

TEST(nested_mixed_list_view)
{
    test_db t = link_data_open();
    ce_txn *writer;
    CHECK(ce_txn_begin_write(t.db, &writer));
    ce_collection *list;
    ce_value link, value;
    /* A list nested in a mixed property holds mixed values, not objects. */
    ce_value nested = {.type = CE_TYPE_LIST};
    CHECK(ce_object_set(writer, person_table, people[0].key, 9, &nested));
    CHECK(ce_collection_open_mixed(writer, person_table, people[0].key, 9, &list));
    link = link_to(dog_table, dogs[2].key);
    CHECK(ce_list_insert(list, 0, &link));
    ce_results *bad;
    expect_error(ce_results_from_collection(writer, list, &bad), CE_ERR_WRONG_TYPE,
                 "collection in mixed property 'Person.extra'");
    ce_value number = {.type = CE_TYPE_INT, .integer = 4};
    CHECK(ce_list_insert(list, 1, &number));
    CHECK(ce_collection_aggregate(list, CE_AGGREGATE_MAX, &value));
    expect_int("max of a nested mixed list", &value, 4);
    CHECK(ce_collection_aggregate(list, CE_AGGREGATE_COUNT, &value));
    expect_int("count of a nested mixed list", &value, 2);
    ce_collection_close(list);
    ce_txn_end(writer);
    close_verified(&t);
}

TEST(live_dictionary_of_links)
{
    test_db t = link_data_open();
    ce_txn *writer;
    CHECK(ce_txn_begin_write(t.db, &writer));
    ce_query *older;
    CHECK(ce_query_parse(writer, dog_table, "age > 5", NULL, 0, &older));
    ce_value link;
    size_t n;
    /* A dictionary of links, live: a key set to null and a deleted target
     * leave null values, which the view leaves out. */
    ce_object_key keeper;
    ce_collection *friends;
    CHECK(ce_object_create(writer, person_table, NULL, &keeper));
    CHECK(ce_collection_open(writer, person_table, keeper, 8, &friends));
    const char *friend_keys[] = {"d", "b", "a", "c"};
    int friend_dogs[] = {3, 2, 4, 2}; /* by key: a: 4, b: 2, c: 2, d: 3 */
    for (size_t i = 0; i < 4; i++) {
        link = link_to(dog_table, dogs[friend_dogs[i]].key);
        CHECK(ce_dictionary_set(friends, friend_keys[i], 1, &link));
    }
    ce_results *pals, *old_pals;
    CHECK(ce_results_from_collection(writer, friends, &pals));
    old_pals = filtered(writer, pals, older);
    ce_object_key by_key[] = {dogs[4].key, dogs[2].key, dogs[2].key, dogs[3].key};
    check_view("a dictionary of links", pals, writer, by_key, 4);
    int by_key_dogs[] = {4, 2, 2, 3}, kept_count = 0;
    ce_object_key old_expected[4];
    for (size_t i = 0; i < 4; i++)
        if (dogs[by_key_dogs[i]].age > 5) old_expected[kept_count++] = dogs[by_key_dogs[i]].key;
    check_view("a filtered dictionary of links", old_pals, writer, old_expected, (size_t)kept_count);
    check_dog_aggregates("a dictionary of links", writer, pals, by_key_dogs, 4);
    ce_value null_value = {.type = CE_TYPE_NULL};
    CHECK(ce_dictionary_set(friends, "b", 1, &null_value));
    ce_object_key without_b[] = {dogs[4].key, dogs[2].key, dogs[3].key};
    check_view("a dictionary with a key set to null", pals, writer, without_b, 3);
    CHECK(ce_object_delete(writer, dog_table, dogs[2].key));
    ce_object_key without_dog[] = {dogs[4].key, dogs[3].key};
    check_view("a dictionary whose dog was deleted", pals, writer, without_dog, 2);
    int left_dogs[] = {4, 3};
    check_dog_aggregates("a dictionary whose dog was deleted", writer, pals, left_dogs, 2);
    size_t size;
    CHECK(ce_collection_size(friends, &size) && size == 4); /* the keys stay, with null values */
    ce_collection_close(friends);
    CHECK(ce_object_delete(writer, person_table, keeper));
    expect_error(ce_results_count(pals, writer, &n), CE_ERR_NO_SUCH_OBJECT, "invalidated");
    ce_results_free(old_pals);
    ce_results_free(pals);
    ce_query_free(older);
    ce_txn_end(writer);
    close_verified(&t);
}
