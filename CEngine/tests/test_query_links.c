/*
 * test_query_links.c — queries through links, lists, sets, dictionaries,
 * backlinks, SUBQUERY and mixed values over the people data
 * (test_query_people.h), every result checked against the model: key
 * paths, @count, @sum/@avg/@min/@max, ANY/ALL/NONE, IN, dictionaries'
 * keys and values, backlinks, SUBQUERY; sort and distinct through links;
 * the errors of these paths.
 *
 * Owns: the cases on key paths through links and collections.
 * Never: asks the engine what a predicate should match.
 */
#include "test_query_people.h"

static bool model_case(int number, const person_model *m)
{
    int counted;
    switch (number) {
    case 0: return m->best >= 0 && strcmp(dogs[m->best].name, "Rex0") == 0;
    case 1: return m->best >= 0 && dogs[m->best].age > 5;
    case 2: return m->best >= 0 && dogs[m->best].vet >= 0 && strcmp(vets[dogs[m->best].vet].name, "V1") == 0;
    case 3: return m->best >= 0 && dogs[m->best].vet >= 0 && vets[dogs[m->best].vet].fee < 50;
    case 4: return m->best < 0;
    case 5: return m->best >= 0;
    case 6: return m->best == 3;
    case 7: return m->best == 3 || m->best == 7;
    case 8: return m->dog_count > 2;
    case 9: return m->dog_count == 0;
    case 10: return any_dog(m, 0);
    case 11: return all_dogs(m, 0);
    case 12: return !any_dog(m, 0);
    case 13: return any_dog(m, 0);
    case 14: {
        if (m->dog_count == 0) return false;
        long sum = 0;
        for (int i = 0; i < m->dog_count; i++) sum += dogs[m->dogs[i]].age;
        return (double)sum / m->dog_count > 4;
    }
    case 15: {
        long sum = 0;
        for (int i = 0; i < m->dog_count; i++) sum += dogs[m->dogs[i]].age;
        return sum >= 10;
    }
    case 16: {
        bool any = false;
        for (int i = 0; i < m->dog_count; i++) any = any || dogs[m->dogs[i]].age < 2;
        return any; /* @min < 2 */
    }
    case 17: {
        int64_t best = -1;
        for (int i = 0; i < m->dog_count; i++) best = dogs[m->dogs[i]].age > best ? dogs[m->dogs[i]].age : best;
        return m->dog_count > 0 && best == 9;
    }
    case 18: return any_dog(m, 1);
    case 19:
    case 20:
        for (int i = 0; i < m->dog_count; i++)
            if (m->dogs[i] == 3) return true;
        return false;
    case 21: return m->pet_count >= 2;
    case 22:
        for (int i = 0; i < m->pet_count; i++)
            if (strchr(dogs[m->pets[i]].name, 'a')) return true;
        return false;
    case 23: return m->score_count >= 3;
    case 24:
        for (int i = 0; i < m->score_count; i++)
            if (!m->score_null[i] && m->scores[i] > 5) return true;
        return false;
    case 25:
        for (int i = 0; i < m->score_count; i++)
            if (m->score_null[i] || m->scores[i] <= 5) return false;
        return true;
    case 26:
        for (int i = 0; i < m->score_count; i++)
            if (m->score_null[i]) return false;
        return true;
    case 27: return scores_sum(m, &counted) > 10;
    case 28: {
        int sum = scores_sum(m, &counted);
        return counted > 0 && (double)sum / counted > 3.5;
    }
    case 29: {
        int64_t low = 100;
        for (int i = 0; i < m->score_count; i++)
            if (!m->score_null[i] && m->scores[i] < low) low = m->scores[i];
        return low == 0;
    }
    case 30: {
        int64_t high = -1;
        bool any = false;
        for (int i = 0; i < m->score_count; i++)
            if (!m->score_null[i]) any = true, high = m->scores[i] > high ? m->scores[i] : high;
        return any && high < 5;
    }
    case 31:
        for (int i = 0; i < m->score_count; i++)
            if (!m->score_null[i] && m->scores[i] == 3) return true;
        return false;
    case 32:
        /* A list of values takes BETWEEN only after ALL (realm-core's
         * BetweenNode::visit): every score >= 2 and every score <= 4. */
        for (int i = 0; i < m->score_count; i++)
            if (m->score_null[i] || m->scores[i] < 2 || m->scores[i] > 4) return false;
        return true;
    case 57: {
        /* BETWEEN through links is >= and <= each with ANY, joined with
         * AND (BetweenNode::visit): one dog 3 or older and one 4 or
         * younger, maybe two dogs. */
        bool low = false, high = false;
        for (int i = 0; i < m->dog_count; i++) {
            low = low || dogs[m->dogs[i]].age >= 3;
            high = high || dogs[m->dogs[i]].age <= 4;
        }
        return low && high;
    }
    case 58: {
        bool low = false, high = false;
        for (int i = 0; i < m->dog_count; i++) {
            low = low || dogs[m->dogs[i]].age >= 3;
            high = high || dogs[m->dogs[i]].age <= 4;
        }
        return !low && !high;
    }
    case 33: return m->tag_count >= 2;
    case 34:
        for (int i = 0; i < m->tag_count; i++)
            if (strcmp(m->tags[i], "red") == 0) return true;
        return false;
    case 35:
        for (int i = 0; i < m->tag_count; i++)
            if (m->tags[i][0] == 'r' || m->tags[i][0] == 'R') return true;
        return false;
    case 36:
        for (int i = 0; i < m->rating_count; i++)
            if (strcmp(m->rating_keys[i], "a") == 0) return !m->rating_null[i] && m->ratings[i] > 1.5;
        return false;
    case 37:
        for (int i = 0; i < m->rating_count; i++)
            if (strcmp(m->rating_keys[i], "b") == 0) return m->rating_null[i];
        return true; /* absent: null */
    case 38: return m->rating_count > 1;
    case 39:
        for (int i = 0; i < m->rating_count; i++)
            if (strcmp(m->rating_keys[i], "b") == 0) return true;
        return false;
    case 40:
    case 41:
        for (int i = 0; i < m->rating_count; i++)
            if (!m->rating_null[i] && m->ratings[i] > 2) return true;
        return false;
    case 42: {
        double high = -1;
        for (int i = 0; i < m->rating_count; i++)
            if (!m->rating_null[i] && m->ratings[i] > high) high = m->ratings[i];
        return high > 3;
    }
    case 43:
        /* A dictionary of links counts the links it holds, not its null
         * values (LinkCount: LinkMap::map_links takes only the values that
         * are links, query_expression.cpp; Realm Swift's map.@count is the
         * same LinkCount, RLMQueryUtil.mm). */
        for (int i = 0; i < m->friend_count; i++)
            if (m->friends[i] >= 0) return true;
        return false;
    case 44:
        for (int i = 0; i < m->friend_count; i++)
            if (m->friends[i] >= 0 && dogs[m->friends[i]].age > 3) return true;
        return false;
    case 45: {
        int n = 0;
        for (int i = 0; i < m->dog_count; i++) n += dogs[m->dogs[i]].age > 3 && dog_matches(m->dogs[i], 1);
        return n > 1;
    }
    case 46: {
        int n = 0;
        for (int i = 0; i < m->pet_count; i++) n += dog_matches(m->pets[i], 2);
        return n == 0;
    }
    case 47: return (m->extra.type == CE_TYPE_INT && m->extra.integer == 5) ||
                    (m->extra.type == CE_TYPE_DOUBLE && m->extra.double_value == 5);
    case 48: return m->extra.type == CE_TYPE_STRING;
    case 49: return (m->extra.type == CE_TYPE_INT && m->extra.integer > 2) ||
                    (m->extra.type == CE_TYPE_DOUBLE && m->extra.double_value > 2);
    case 50: return m->extra.type == CE_TYPE_NULL;
    case 51: return m->extra.type == CE_TYPE_LINK && m->extra.link.key == dogs[5].key;
    case 52: return m->has_age && m->age > 30 && any_dog(m, 0);
    case 53: return !(m->best >= 0 && dogs[m->best].age > 5) || m->dog_count == 1;
    case 54: return m->best < 0 || dogs[m->best].vet < 0; /* a null link on the way reads as null */
    case 55: return m->best < 0 || dogs[m->best].age != 5;
    case 56: return m->best >= 0 && dogs[m->best].vet >= 0 && m->dog_count > 0;
    default: return false;
    }
}

static const char *const link_predicates[] = {
    "best.name == 'Rex0'", "best.age > 5", "best.vet.name == 'V1'", "best.vet.fee < 50.0", "best == nil",
    "best != nil", "best == $0", "best IN {$0, $1}", "dogs.@count > 2", "dogs.@size == 0",
    "ANY dogs.age > 5", "ALL dogs.age > 5", "NONE dogs.age > 5", "dogs.age > 5", "dogs.@avg.age > 4",
    "dogs.@sum.age >= 10", "dogs.@min.age < 2", "dogs.@max.age == 9", "ANY dogs.vet.fee < 50", "$0 IN dogs",
    "ANY dogs == $0", "pets.@count >= 2", "ANY pets.name CONTAINS 'a'", "scores.@count >= 3", "ANY scores > 5",
    "ALL scores > 5", "NONE scores == nil", "scores.@sum > 10", "scores.@avg > 3.5", "scores.@min == 0",
    "scores.@max < 5", "3 IN scores", "ALL scores BETWEEN {2, 4}", "tags.@count >= 2", "'red' IN tags",
    "ANY tags BEGINSWITH[c] 'R'", "ratings['a'] > 1.5", "ratings['b'] == nil", "ratings.@count > 1",
    "ANY ratings.@allKeys == 'b'", "ANY ratings.@allValues > 2", "ANY ratings > 2", "ratings.@max > 3",
    "friends.@count > 0", "ANY friends.@allValues.age > 3",
    "SUBQUERY(dogs, $d, $d.age > 3 AND $d.vet.fee < 50).@count > 1",
    "SUBQUERY(pets, $p, $p.name BEGINSWITH[c] 'r').@count == 0", "extra == 5", "extra == 'five'", "extra > 2",
    "extra == nil", "extra == $2", "age > 30 AND ANY dogs.age > 5", "NOT best.age > 5 OR dogs.@count == 1",
    "best.vet == nil", "best.age != 5", "best.vet != nil AND dogs.@count > 0", "dogs.age BETWEEN {3, 4}",
    "NONE dogs.age BETWEEN {3, 4}",
};

/* Every predicate of link_predicates, counted and found, against
 * model_case. */
TEST(link_and_collection_paths)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query_argument arguments[3] = {{.kind = CE_QUERY_ARGUMENT_VALUE, .value = link_to(dog_table, dogs[3].key)},
                                      {.kind = CE_QUERY_ARGUMENT_VALUE, .value = link_to(dog_table, dogs[7].key)},
                                      {.kind = CE_QUERY_ARGUMENT_VALUE, .value = link_to(dog_table, dogs[5].key)}};
    static ce_object_key expected[PEOPLE];
    for (size_t k = 0; k < COUNT_OF(link_predicates); k++) {
        ce_query *query;
        if (!ce_query_parse(txn, person_table, link_predicates[k], arguments, 3, &query)) {
            fprintf(stderr, "'%s': %s\n", link_predicates[k], ce_last_error_message());
            exit(1);
        }
        size_t count = 0;
        for (int p = 0; p < PEOPLE; p++)
            if (model_case((int)k, &people[p])) expected[count++] = people[p].key;
        size_t n;
        CHECK(ce_query_count(query, txn, &n));
        if (n != count) {
            fprintf(stderr, "'%s': count %zu, the model %zu\n", link_predicates[k], n, count);
            exit(1);
        }
        ce_results *results;
        CHECK(ce_query_find_all(query, &results));
        check_keys(link_predicates[k], results, txn, expected, count);
        ce_results_free(results);
        ce_query_free(query);
        checked_queries++;
    }
    ce_txn_end(txn);
    close_verified(&t);
}

/* Backlinks, from the dogs' side, against the model. */
TEST(backlink_paths)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    static const char *const dog_predicates[] = {"@links.Person.best.@count > 0", "ANY @links.Person.dogs.name == 'P3'",
                                                 "@links.Person.dogs.@count >= 2",
                                                 "SUBQUERY(@links.Person.dogs, $p, $p.age > 30).@count == 0",
                                                 "vet == nil", "vet.fee >= 45"};
    for (size_t k = 0; k < COUNT_OF(dog_predicates); k++) {
        size_t count = 0;
        for (int d = 0; d < DOGS; d++) {
            int best_links = 0, list_links = 0, old_owners = 0;
            bool named = false;
            for (int p = 0; p < PEOPLE; p++) {
                best_links += people[p].best == d;
                for (int i = 0; i < people[p].dog_count; i++) {
                    if (people[p].dogs[i] != d) continue;
                    list_links++;
                    named = named || strcmp(people[p].name, "P3") == 0;
                    old_owners += people[p].has_age && people[p].age > 30;
                }
            }
            bool match = k == 0 ? best_links > 0 : k == 1 ? named : k == 2 ? list_links >= 2 : k == 3 ? old_owners == 0
                         : k == 4 ? dogs[d].vet < 0 : dogs[d].vet >= 0 && vets[dogs[d].vet].fee >= 45;
            count += match;
        }
        if (count_of(txn, dog_table, dog_predicates[k], NULL, 0) != count) {
            fprintf(stderr, "'%s': expected %zu\n", dog_predicates[k], count);
            exit(1);
        }
        checked_queries++;
    }
    ce_txn_end(txn);
    close_verified(&t);
}

/* SUBQUERY variables as realm-core takes them (SubqueryNode::visit and
 * query_flex.ll; test_parser.cpp, Parser_Subquery): a variable is an
 * identifier, so it goes on over '-' and '$' ("$anyNAME_-0123456789"); an
 * inner SUBQUERY may reuse a variable for objects of another class, but
 * not for the class an enclosing SUBQUERY's same variable stands for,
 * however deep ("Unable to create a subquery expression with variable
 * '$x' since an identical variable already exists in this context"). */
TEST(subquery_variables)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    size_t plain = count_of(txn, person_table, "SUBQUERY(dogs, $d, $d.age > 3).@count > 0", NULL, 0);
    CHECK(plain > 0 && plain < PEOPLE);
    CHECK(count_of(txn, person_table, "SUBQUERY(dogs, $d-1$, $d-1$.age > 3).@count > 0", NULL, 0) == plain);
    CHECK(count_of(txn, person_table, "SUBQUERY(dogs, $any_NAME-09, $any_NAME-09.age > 3).@count > 0", NULL, 0) == plain);
    /* $d for the dogs, then $d for their owners (another class): allowed. */
    size_t owners = count_of(txn, person_table,
                             "SUBQUERY(dogs, $d, SUBQUERY($d.@links.Person.dogs, $d, $d.age > 30).@count > 0).@count > 0",
                             NULL, 0);
    CHECK(owners == count_of(txn, person_table,
                             "SUBQUERY(dogs, $d, SUBQUERY($d.@links.Person.dogs, $p, $p.age > 30).@count > 0).@count > 0",
                             NULL, 0));
    static const char identical[] = "Unable to create a subquery expression with variable '$d' since an identical variable "
                                    "already exists in this context";
    ce_table_key saved = things;
    things = person_table;
    expect_query_error(txn, "SUBQUERY(dogs, $d, SUBQUERY($d.@links.Person.dogs.dogs, $d, $d.age > 1).@count > 0).@count > 0",
                       NULL, 0, identical);
    expect_query_error(txn,
                       "SUBQUERY(dogs, $d, SUBQUERY($d.@links.Person.dogs, $p, "
                       "SUBQUERY($p.dogs, $d, $d.age > 1).@count > 0).@count > 0).@count > 0",
                       NULL, 0, identical);
    things = saved;
    ce_txn_end(txn);
    close_verified(&t);
}

/* A collection of values reached through a to-many link is reduced by its
 * @count, @sum or @max one reached object at a time, and the object matches
 * when any of them does (realm-core's SizeOperator over a link chain:
 * arrayCol.arrayInt.@count < 2); a dog no person lists matches none. */
TEST(aggregate_of_each_collection_through_backlinks)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    static const char *const predicates[] = {"@links.Person.dogs.scores.@count < 2", "@links.Person.dogs.scores.@count > 3",
                                             "@links.Person.dogs.scores.@sum >= 12", "@links.Person.dogs.scores.@max == 7"};
    for (size_t k = 0; k < COUNT_OF(predicates); k++) {
        size_t count = 0;
        for (int d = 0; d < DOGS; d++) {
            bool match = false;
            for (int p = 0; p < PEOPLE; p++) {
                const person_model *m = &people[p];
                bool lists = false;
                for (int i = 0; i < m->dog_count; i++) lists = lists || m->dogs[i] == d;
                if (!lists) continue;
                int64_t sum = 0, max = INT64_MIN;
                for (int i = 0; i < m->score_count; i++) {
                    if (m->score_null[i]) continue;
                    sum += m->scores[i];
                    max = m->scores[i] > max ? m->scores[i] : max;
                }
                match = match || (k == 0 ? m->score_count < 2 : k == 1 ? m->score_count > 3 : k == 2 ? sum >= 12 : max == 7);
            }
            count += match;
        }
        size_t found = count_of(txn, dog_table, predicates[k], NULL, 0);
        if (found != count) {
            fprintf(stderr, "'%s': count %zu, the model %zu\n", predicates[k], found, count);
            exit(1);
        }
        checked_queries++;
    }
    ce_txn_end(txn);
    close_verified(&t);
}

/* Sorting and distinct through links, aggregates of the results, and
 * the keys they refuse. */
TEST(sort_distinct_aggregate_through_links)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *all_query;
    ce_results *all, *sorted, *distinct;
    CHECK(ce_query_parse(txn, person_table, "TRUEPREDICATE", NULL, 0, &all_query) && ce_query_find_all(all_query, &all));
    ce_sort_key keys[2] = {{"best.age", false}, {"dogs.@count", true}};
    CHECK(ce_results_sort(txn, all, keys, 2, &sorted));
    size_t count;
    CHECK(ce_results_count(sorted, txn, &count) && count == PEOPLE);
    for (size_t i = 1; i < count; i++) {
        ce_object_key a, b;
        CHECK(ce_results_get(sorted, txn, i - 1, &a) && ce_results_get(sorted, txn, i, &b));
        const person_model *x = &people[a], *y = &people[b]; /* keys are 0 .. PEOPLE - 1 */
        /* Descending: people without a best dog first (realm-core's
         * sorter, src/realm/sort_descriptor.cpp: "Sort null links at the
         * end if ascending, else at beginning"), then by age. */
        int64_t xa = x->best < 0 ? INT64_MAX : dogs[x->best].age, ya = y->best < 0 ? INT64_MAX : dogs[y->best].age;
        CHECK(xa >= ya);
        if (xa == ya) CHECK(x->dog_count < y->dog_count || (x->dog_count == y->dog_count && a < b));
    }
    const char *by_vet[] = {"best.vet.name"};
    CHECK(ce_results_distinct(txn, all, by_vet, 1, &distinct));
    size_t vet_names = 0;
    bool seen[VETS + 1] = {false};
    for (int p = 0; p < PEOPLE; p++) {
        /* realm-core's distinct drops the objects with a null link on the
         * way (src/realm/sort_descriptor.cpp: "Remove all rows which have a
         * null link along the way to the distinct columns"). */
        if (people[p].best < 0 || dogs[people[p].best].vet < 0) continue;
        int v = dogs[people[p].best].vet;
        if (!seen[v]) seen[v] = true, vet_names++;
    }
    CHECK(ce_results_count(distinct, txn, &count) && count == vet_names);
    ce_value out;
    size_t counted;
    int64_t age_sum = 0;
    size_t with_best = 0;
    for (int p = 0; p < PEOPLE; p++)
        if (people[p].best >= 0) age_sum += dogs[people[p].best].age, with_best++;
    CHECK(ce_results_aggregate(all, txn, "best.age", CE_AGGREGATE_SUM, &out, &counted) && out.integer == age_sum &&
          counted == with_best);
    int max_dogs = 0;
    for (int p = 0; p < PEOPLE; p++) max_dogs = people[p].dog_count > max_dogs ? people[p].dog_count : max_dogs;
    CHECK(ce_results_aggregate(all, txn, "dogs.@count", CE_AGGREGATE_MAX, &out, &counted) && out.integer == max_dogs &&
          counted == PEOPLE);
    ce_results *bad;
    ce_sort_key by_dogs = {"dogs", true}, by_ages = {"dogs.age", true};
    /* realm-core's messages (src/realm/object-store/results.cpp, parse_keypath). */
    expect_error(ce_results_sort(txn, all, &by_dogs, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'dogs': property 'Person.dogs' is of unsupported type 'array'.");
    expect_error(ce_results_sort(txn, all, &by_ages, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'dogs.age': property 'Person.dogs' is of unsupported type 'array'.");
    ce_sort_key by_best = {"best", true}, through_age = {"name.x", true};
    expect_error(ce_results_sort(txn, all, &by_best, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'best': property 'Person.best' of type 'object' cannot be the final property in "
                 "the key path.");
    expect_error(ce_results_sort(txn, all, &through_age, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'name.x': property 'Person.name' of type 'string' may only be the final property "
                 "in the key path.");
    const char *by_missing[] = {"best.nope"};
    expect_error(ce_results_distinct(txn, all, by_missing, 1, &bad), CE_ERR_INVALID_QUERY,
                 "Cannot sort on key path 'best.nope': property 'Dog.nope' does not exist.");
    /* The engine's own key paths still bind: an aggregate of a collection. */
    ce_results *by_count;
    ce_sort_key dog_count = {"dogs.@count", true};
    CHECK(ce_results_sort(txn, all, &dog_count, 1, &by_count));
    ce_results_free(by_count);
    expect_error(ce_results_aggregate(all, txn, "scores", CE_AGGREGATE_SUM, &out, &counted), CE_ERR_INVALID_QUERY,
                 "several values");
    ce_results_free(distinct);
    ce_results_free(sorted);
    ce_results_free(all);
    ce_query_free(all_query);
    ce_txn_end(txn);
    close_verified(&t);
}

TEST(link_path_errors)
{
    test_db t = link_data_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    /* Errors of these paths. */
    ce_table_key saved = things;
    things = person_table;
    expect_query_error(txn, "ANY best.age > 5", NULL, 0, "property 'Person.best.age' is not a link/collection (ANY needs one)");
    /* A to-one link counts its object (test_query_core), but a value
     * holds no objects. */
    expect_query_error(txn, "age.@count > 1", NULL, 0, "is not a link/collection");
    expect_query_error(txn, "dogs > 5", NULL, 0, "objects ('Person.dogs') compare only by ==, != and IN");
    expect_query_error(txn, "best.age == 'x'", NULL, 0, "cannot compare int property 'Person.best.age' with a string");
    expect_query_error(txn, "dogs.@avg.name > 1", NULL, 0, "'@avg' needs numbers");
    expect_query_error(txn, "tags.@sum > 1", NULL, 0, "'@sum' needs numbers");
    expect_query_error(txn, "dogs.@avg > 1", NULL, 0, "needs one property of the objects after it");
    expect_query_error(txn, "dogs.@count.age > 1", NULL, 0, "nothing may follow '@count'");
    expect_query_error(txn, "scores.@count.x > 1", NULL, 0, "nothing may follow '@count'");
    expect_query_error(txn, "best.nope == 1", NULL, 0, "class 'Dog' has no property 'nope'");
    expect_query_error(txn, "@links.Vet.name.@count > 0", NULL, 0, "property 'Vet.name' is not a link/collection");
    expect_query_error(txn, "@links.Dog.vet.@count > 0", NULL, 0, "'Dog.vet' does not link to class 'Person'");
    /* realm-core's words (SubqueryNode::visit, driver.cpp). */
    expect_query_error(txn, "SUBQUERY(best, $d, $d.age > 1).@count > 0", NULL, 0,
                       "A subquery must operate on a list property, but 'best' is type 'link'");
    expect_query_error(txn, "SUBQUERY(best.age, $d, $d.age > 1).@count > 0", NULL, 0,
                       "A subquery must operate on a list property, but 'age' is type 'int'");
    expect_query_error(txn, "SUBQUERY(dogs.age, $d, $d.age > 1).@count > 0", NULL, 0, "SUBQUERY needs a list");
    expect_query_error(txn, "SUBQUERY(scores, $s, $s > 1).@count > 0", NULL, 0,
                       "A subquery can not operate on a list of primitive values (property 'scores')");
    expect_query_error(txn, "SUBQUERY(dogs, $d, age > 1).@count > 0", NULL, 0, "a key path starts with its variable ($d)");
    expect_query_error(txn, "SUBQUERY(dogs, $d, $e.age > 1).@count > 0", NULL, 0, "this SUBQUERY's variable is $d");
    expect_query_error(txn, "SUBQUERY(dogs, $d, $d.age > 1).@count > 'x'", NULL, 0, "a SUBQUERY count compares with numbers");
    things = saved;
    ce_txn_end(txn);
    close_verified(&t);
}
