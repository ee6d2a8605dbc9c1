/*
 * test_results_changes.c — change sets of results views (notify/
 * results_changes.c): the diff of two key sequences (in key order, sorted
 * otherwise, with repeated objects), and the results observer over real
 * views (filter, sort, distinct, limit, collections, backlinks), every
 * change set checked by applying it to the old keys (test_apply_check).
 */
#include "results_changes.h"
#include "test_notify_support.h"

static ce_value *key_values(const ce_object_key *keys, size_t count)
{
    ce_value *values = calloc(count + 1, sizeof *values);
    for (size_t i = 0; i < count; i++) values[i] = (ce_value){.type = CE_TYPE_INT, .integer = keys[i]};
    return values;
}

static bool key_in(const ce_object_key *keys, size_t count, ce_object_key key)
{
    for (size_t i = 0; i < count; i++)
        if (keys[i] == key) return true;
    return false;
}

/* Diffs, applies, and checks that every object in `modified` that stays
 * in place is a modification and no other is. */
static void check_diff(const ce_object_key *old_keys, size_t old_count, const ce_object_key *new_keys, size_t new_count,
                       const ce_object_key *modified, size_t modified_count, ce_collection_change *out)
{
    CHECK(results_changes_diff(old_keys, old_count, new_keys, new_count, modified, modified_count, out));
    ce_value *old_values = key_values(old_keys, old_count), *new_values = key_values(new_keys, new_count);
    test_apply_check(old_values, old_count, new_values, new_count, out);
    for (size_t j = 0; j < new_count; j++) {
        if (test_index_listed(out->insertions, out->insertion_count, j, NULL)) continue;
        bool listed = test_index_listed(out->modifications_new, out->modification_new_count, j, NULL);
        CHECK(listed == key_in(modified, modified_count, new_keys[j]));
    }
    free(old_values);
    free(new_values);
}

TEST(diff_in_key_order)
{
    ce_object_key old_keys[] = {1, 3, 5, 7, 9}, new_keys[] = {1, 4, 5, 9, 11}, modified[] = {4, 5, 7};
    ce_collection_change change;
    check_diff(old_keys, 5, new_keys, 5, modified, 3, &change);
    CHECK(change.deletion_count == 2 && change.deletions[0] == 1 && change.deletions[1] == 3);
    CHECK(change.insertion_count == 2 && change.insertions[0] == 1 && change.insertions[1] == 4);
    /* 5 stays and changed; 4 is new, 7 deleted: no modifications. */
    CHECK(change.modification_count == 1 && change.modifications[0] == 2 && change.modifications_new[0] == 2);
    ce_collection_change_free(&change);
    /* Nothing before, nothing after. */
    check_diff(NULL, 0, new_keys, 5, NULL, 0, &change);
    CHECK(change.insertion_count == 5);
    ce_collection_change_free(&change);
    check_diff(old_keys, 5, NULL, 0, modified, 3, &change);
    CHECK(change.deletion_count == 5 && change.modification_count == 0);
    ce_collection_change_free(&change);
}

TEST(diff_of_a_sorted_view)
{
    /* Sorted by some property: 7 moved to the front, 3 left, 8 came. */
    ce_object_key old_keys[] = {5, 3, 9, 1, 7}, new_keys[] = {7, 5, 9, 8, 1}, modified[] = {1, 7};
    ce_collection_change change;
    check_diff(old_keys, 5, new_keys, 5, modified, 2, &change);
    /* 5 9 1 stay in order; 7 moved (a deletion and an insertion, not a
     * modification); 1 stays and changed. */
    CHECK(change.deletion_count == 2 && change.deletions[0] == 1 && change.deletions[1] == 4);
    CHECK(change.insertion_count == 2 && change.insertions[0] == 0 && change.insertions[1] == 3);
    CHECK(change.modification_count == 1 && change.modifications[0] == 3 && change.modifications_new[0] == 4);
    ce_collection_change_free(&change);
}

TEST(diff_with_repeated_objects)
{
    /* A view of a list that holds 4 twice. */
    ce_object_key old_keys[] = {4, 2, 4, 6}, new_keys[] = {2, 4, 6, 4, 4}, modified[] = {4};
    ce_collection_change change;
    check_diff(old_keys, 4, new_keys, 5, modified, 1, &change);
    ce_collection_change_free(&change);
}

static int compare_keys(const void *a, const void *b)
{
    ce_object_key x = *(const ce_object_key *)a, y = *(const ce_object_key *)b;
    return x < y ? -1 : x > y;
}

/* Random views of up to 300 objects: in key order, shuffled, with
 * repeats; objects removed, added, moved and modified. */
TEST(diff_random)
{
    uint64_t seed = 0x2E5017;
    ce_object_key old_keys[300], new_keys[600], modified[100];
    for (int round = 0; round < 2000; round++) {
        int shape = round % 3; /* 0: key order, 1: shuffled, 2: repeats */
        size_t old_count = test_notify_below(&seed, 300), new_count = 0, modified_count = 0;
        ce_object_key next = 0;
        for (size_t i = 0; i < old_count; i++)
            old_keys[i] = shape == 2 ? (ce_object_key)test_notify_below(&seed, 40) : (next += 1 + (ce_object_key)test_notify_below(&seed, 3));
        if (shape == 1)
            for (size_t i = old_count; i > 1; i--) {
                size_t k = test_notify_below(&seed, i);
                ce_object_key t = old_keys[i - 1];
                old_keys[i - 1] = old_keys[k];
                old_keys[k] = t;
            }
        for (size_t i = 0; i < old_count; i++) {
            if (test_notify_below(&seed, 8) == 0) continue; /* removed */
            if (test_notify_below(&seed, 8) == 0) new_keys[new_count++] = next += 1 + (ce_object_key)test_notify_below(&seed, 3);
            new_keys[new_count++] = old_keys[i];
        }
        if (shape == 0) qsort(new_keys, new_count, sizeof *new_keys, compare_keys);
        if (shape != 0)
            for (int moves = (int)test_notify_below(&seed, 4); moves > 0 && new_count > 1; moves--) {
                size_t a = test_notify_below(&seed, new_count), b = test_notify_below(&seed, new_count);
                ce_object_key t = new_keys[a];
                new_keys[a] = new_keys[b];
                new_keys[b] = t;
            }
        for (ce_object_key k = 0; k <= next && modified_count < 100; k++)
            if (test_notify_below(&seed, 6) == 0) modified[modified_count++] = k;
        ce_collection_change change;
        check_diff(old_keys, old_count, new_keys, new_count, modified, modified_count, &change);
        ce_collection_change_free(&change);
    }
}

/* ------------------------------------------------------------------------ */
/* Results observers over a database                                         */
/* ------------------------------------------------------------------------ */

#include "key_path_filter.h"

typedef struct people {
    test_db t;
    ce_table_key person, dog, other, plain;
    ce_column_key age, score, name, friend, dogs, dog_age, other_value, plain_age, plain_score, plain_name;
    ce_object_key ada, dog_keys[8];
    uint64_t seed;
} people;

static ce_column_key add_column(ce_txn *txn, ce_table_key table, ce_property_info info)
{
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

static void random_person(people *p, ce_txn *w, ce_object_key key)
{
    ce_value age = {.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&p->seed, 100)};
    ce_value score = {.type = CE_TYPE_DOUBLE, .double_value = (double)test_notify_below(&p->seed, 1000) / 1000};
    CHECK(ce_object_set(w, p->person, key, p->age, &age));
    CHECK(ce_object_set(w, p->person, key, p->score, &score));
}

static void random_plain(people *p, ce_txn *w, ce_object_key key)
{
    ce_value age = {.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&p->seed, 100)};
    ce_value score = {.type = CE_TYPE_DOUBLE, .double_value = (double)test_notify_below(&p->seed, 1000) / 1000};
    if (test_notify_below(&p->seed, 2)) CHECK(ce_object_set(w, p->plain, key, p->plain_age, &age));
    if (test_notify_below(&p->seed, 2)) CHECK(ce_object_set(w, p->plain, key, p->plain_score, &score));
}

/* Person { age, score, name, friend: Person?, dogs: [Dog] }, Dog { age },
 * Other { value }: 120 people, 8 dogs, Ada (the first) with 5 of them. */
static people people_open(const char *name)
{
    people p;
    memset(&p, 0, sizeof p);
    p.seed = 0xBEEF;
    p.t = test_db_open(name);
    ce_txn *w;
    CHECK(ce_txn_begin_write(p.t.db, &w));
    CHECK(ce_table_add(w, "Person", &p.person) && ce_table_add(w, "Dog", &p.dog) && ce_table_add(w, "Other", &p.other));
    p.age = add_column(w, p.person, (ce_property_info){.name = "age", .type = CE_TYPE_INT});
    p.score = add_column(w, p.person, (ce_property_info){.name = "score", .type = CE_TYPE_DOUBLE});
    p.name = add_column(w, p.person, (ce_property_info){.name = "name", .type = CE_TYPE_STRING});
    p.friend = add_column(w, p.person, (ce_property_info){.name = "friend", .type = CE_TYPE_LINK, .nullable = true, .link_target = p.person});
    p.dogs = add_column(w, p.person, (ce_property_info){.name = "dogs", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = p.dog});
    p.dog_age = add_column(w, p.dog, (ce_property_info){.name = "age", .type = CE_TYPE_INT});
    p.other_value = add_column(w, p.other, (ce_property_info){.name = "value", .type = CE_TYPE_INT});
    for (int i = 0; i < 120; i++) {
        ce_object_key key;
        CHECK(ce_object_create(w, p.person, NULL, &key));
        if (i == 0) p.ada = key;
        random_person(&p, w, key);
    }
    ce_collection *dogs;
    CHECK(ce_collection_open(w, p.person, p.ada, p.dogs, &dogs));
    for (int d = 0; d < 8; d++) {
        CHECK(ce_object_create(w, p.dog, NULL, &p.dog_keys[d]));
        if (d < 5) CHECK(ce_list_insert(dogs, (size_t)d, &(ce_value){.type = CE_TYPE_LINK, .link = {p.dog, p.dog_keys[d]}}));
    }
    ce_collection_close(dogs);
    ce_object_key other;
    CHECK(ce_object_create(w, p.other, NULL, &other));
    /* Plain { age, score, name }: no links, 150 objects. */
    CHECK(ce_table_add(w, "Plain", &p.plain));
    p.plain_age = add_column(w, p.plain, (ce_property_info){.name = "age", .type = CE_TYPE_INT});
    p.plain_score = add_column(w, p.plain, (ce_property_info){.name = "score", .type = CE_TYPE_DOUBLE});
    p.plain_name = add_column(w, p.plain, (ce_property_info){.name = "name", .type = CE_TYPE_STRING});
    for (int i = 0; i < 150; i++) {
        ce_object_key key;
        CHECK(ce_object_create(w, p.plain, NULL, &key));
        random_plain(&p, w, key);
    }
    CHECK(ce_txn_commit(w));
    return p;
}

/* Random commits: people changed, created, deleted, renamed, given a
 * friend; Ada's dogs reordered; a dog's age; the unrelated table. */
static void random_commit(people *p)
{
    ce_txn *w;
    CHECK(ce_txn_begin_write(p->t.db, &w));
    size_t edits = 1 + test_notify_below(&p->seed, 6);
    for (size_t e = 0; e < edits; e++) {
        size_t count;
        CHECK(ce_object_count(w, p->person, &count));
        ce_object_key key;
        CHECK(ce_object_key_at(w, p->person, 1 + test_notify_below(&p->seed, count - 1), &key));
        if (test_notify_below(&p->seed, 4) == 0) {
            /* Plain: set, renamed, created, deleted. */
            size_t plain_count;
            CHECK(ce_object_count(w, p->plain, &plain_count));
            ce_object_key plain;
            CHECK(ce_object_key_at(w, p->plain, test_notify_below(&p->seed, plain_count), &plain));
            size_t choice = test_notify_below(&p->seed, 5);
            if (choice < 2) random_plain(p, w, plain);
            else if (choice == 2) {
                ce_value name = {.type = CE_TYPE_STRING, .string = {"xy", 1 + test_notify_below(&p->seed, 2)}};
                CHECK(ce_object_set(w, p->plain, plain, p->plain_name, &name));
            } else if (choice == 3) {
                CHECK(ce_object_create(w, p->plain, NULL, &plain));
                random_plain(p, w, plain);
            } else if (plain_count > 50) {
                CHECK(ce_object_delete(w, p->plain, plain));
            }
            continue;
        }
        switch (test_notify_below(&p->seed, 9)) {
        case 0: random_person(p, w, key); break;
        case 1: {
            ce_value score = {.type = CE_TYPE_DOUBLE, .double_value = (double)test_notify_below(&p->seed, 1000) / 1000};
            CHECK(ce_object_set(w, p->person, key, p->score, &score));
            break;
        }
        case 2: {
            ce_object_key created;
            CHECK(ce_object_create(w, p->person, NULL, &created));
            random_person(p, w, created);
            break;
        }
        case 3:
            if (count > 40) CHECK(ce_object_delete(w, p->person, key));
            break;
        case 4: {
            ce_value name = {.type = CE_TYPE_STRING, .string = {"n", 1 + test_notify_below(&p->seed, 1)}};
            CHECK(ce_object_set(w, p->person, key, p->name, &name));
            break;
        }
        case 5: {
            ce_object_key target;
            /* Ada half the time: the view of her backlinks changes. */
            CHECK(ce_object_key_at(w, p->person, test_notify_below(&p->seed, 2) ? 0 : test_notify_below(&p->seed, count), &target));
            CHECK(ce_object_set(w, p->person, key, p->friend, &(ce_value){.type = CE_TYPE_LINK, .link = {p->person, target}}));
            break;
        }
        case 6: {
            ce_collection *dogs;
            CHECK(ce_collection_open(w, p->person, p->ada, p->dogs, &dogs));
            size_t size;
            CHECK(ce_collection_size(dogs, &size));
            size_t choice = test_notify_below(&p->seed, 3);
            if (choice == 0 && size > 1) CHECK(ce_list_move(dogs, test_notify_below(&p->seed, size), test_notify_below(&p->seed, size)));
            else if (choice == 1 && size > 2) CHECK(ce_list_erase(dogs, test_notify_below(&p->seed, size)));
            else
                CHECK(ce_list_insert(dogs, test_notify_below(&p->seed, size + 1),
                                     &(ce_value){.type = CE_TYPE_LINK, .link = {p->dog, p->dog_keys[test_notify_below(&p->seed, 8)]}}));
            ce_collection_close(dogs);
            break;
        }
        case 7: {
            ce_value age = {.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&p->seed, 15)};
            CHECK(ce_object_set(w, p->dog, p->dog_keys[test_notify_below(&p->seed, 8)], p->dog_age, &age));
            break;
        }
        default: {
            ce_object_key other;
            CHECK(ce_object_key_at(w, p->other, 0, &other));
            CHECK(ce_object_set(w, p->other, other, p->other_value, &(ce_value){.type = CE_TYPE_INT, .integer = (int64_t)e}));
            break;
        }
        }
    }
    CHECK(ce_txn_commit(w));
}

static void keys_of(ce_results *results, ce_txn *txn, ce_value **out, size_t *out_count)
{
    size_t count;
    CHECK(ce_results_count(results, txn, &count));
    ce_value *values = malloc((count + 1) * sizeof *values);
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        CHECK(ce_results_get(results, txn, i, &key));
        values[i] = (ce_value){.type = CE_TYPE_INT, .integer = key};
    }
    *out = values;
    *out_count = count;
}

/* Observes `results` over `rounds` rounds of one or two random commits:
 * each change set applied to the old keys gives the new ones, and the
 * objects that stay in place are modifications exactly when the filter
 * (key paths on the results' table; NULL: Realm's default) says they
 * changed. */
static void observe_rounds(people *p, ce_results *results, const char *const *paths, size_t path_count, int rounds)
{
    ce_txn *before, *after;
    CHECK(ce_txn_begin_read(p->t.db, &before));
    ce_key_path_filter *filter = NULL;
    if (paths) CHECK(ce_key_path_filter_create(before, ce_results_table(results), paths, path_count, &filter));
    ce_results_observer *observer;
    CHECK(ce_results_observer_create(results, before, filter, &observer));
    ce_value *old_keys;
    size_t old_count;
    keys_of(results, before, &old_keys, &old_count);
    size_t changed_rounds = 0;
    for (int round = 0; round < rounds; round++) {
        for (int c = 1 + (int)test_notify_below(&p->seed, 2); c > 0; c--) random_commit(p);
        CHECK(ce_txn_begin_read(p->t.db, &after));
        ce_changes *changes;
        CHECK(ce_changes_compute(before, after, &changes));
        ce_collection_change change;
        CHECK(ce_results_observer_update(observer, changes, &change));
        ce_value *new_keys;
        size_t new_count;
        keys_of(results, after, &new_keys, &new_count);
        test_apply_check(old_keys, old_count, new_keys, new_count, &change);
        for (size_t j = 0; j < new_count; j++) {
            if (test_index_listed(change.insertions, change.insertion_count, j, NULL)) continue;
            bool changed;
            CHECK(key_path_filter_matches(changes, filter, ce_results_table(results), new_keys[j].integer, &changed));
            CHECK(changed == test_index_listed(change.modifications_new, change.modification_new_count, j, NULL));
        }
        changed_rounds += change.deletion_count + change.insertion_count + change.modification_count > 0;
        ce_collection_change_free(&change);
        /* The same change set again: the observer has moved on. */
        CHECK(!ce_results_observer_update(observer, changes, &change));
        CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
        ce_changes_free(changes);
        ce_txn_end(before);
        before = after;
        free(old_keys);
        old_keys = new_keys;
        old_count = new_count;
    }
    CHECK(changed_rounds > 0);
    free(old_keys);
    ce_results_observer_free(observer);
    ce_key_path_filter_free(filter);
    ce_txn_end(before);
}

static ce_results *query_results(people *p, const char *predicate)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p->t.db, &txn));
    ce_query *query;
    CHECK(ce_query_parse(txn, p->person, predicate, NULL, 0, &query));
    ce_results *results;
    CHECK(ce_query_find_all(query, &results));
    ce_query_free(query);
    ce_txn_end(txn);
    return results;
}

/* W3's predicate: a view of the table's own properties, updated from the
 * changed objects alone; and through a link (evaluated again). */
TEST(observer_filter)
{
    people p = people_open("observer-filter");
    ce_results *results = query_results(&p, "age >= 50 AND score < 0.5");
    observe_rounds(&p, results, NULL, 0, 60);
    const char *score_only[] = {"score"};
    observe_rounds(&p, results, score_only, 1, 30);
    ce_results_free(results);
    results = query_results(&p, "friend.age > 30 OR ANY dogs.age > 10");
    observe_rounds(&p, results, NULL, 0, 40);
    ce_results_free(results);
    results = query_results(&p, "TRUEPREDICATE");
    const char *friend_age[] = {"friend.age"};
    observe_rounds(&p, results, friend_age, 1, 30);
    ce_results_free(results);
    test_db_close(&p.t);
}

/* A table without links: the change set comes from its changed objects
 * alone (the observer's direct path). */
TEST(observer_plain_table)
{
    people p = people_open("observer-plain");
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    ce_query *query;
    CHECK(ce_query_parse(txn, p.plain, "age >= 50 AND score < 0.5", NULL, 0, &query));
    ce_results *results;
    CHECK(ce_query_find_all(query, &results));
    ce_query_free(query);
    ce_txn_end(txn);
    observe_rounds(&p, results, NULL, 0, 80);
    const char *score_only[] = {"score"};
    observe_rounds(&p, results, score_only, 1, 40);
    ce_results_free(results);
    test_db_close(&p.t);
}

/* Sorted views report moves as deletions and insertions; distinct and
 * limit. */
TEST(observer_sort_distinct_limit)
{
    people p = people_open("observer-sort");
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    ce_results *all = query_results(&p, "age < 70"), *sorted, *distinct, *limited;
    ce_sort_key by_score = {"score", false};
    CHECK(ce_results_sort(txn, all, &by_score, 1, &sorted));
    const char *by_age[] = {"age"};
    CHECK(ce_results_distinct(txn, sorted, by_age, 1, &distinct));
    CHECK(ce_results_limit(sorted, 10, &limited));
    ce_txn_end(txn);
    observe_rounds(&p, sorted, NULL, 0, 40);
    observe_rounds(&p, distinct, NULL, 0, 30);
    observe_rounds(&p, limited, NULL, 0, 30);
    ce_results_free(limited);
    ce_results_free(distinct);
    ce_results_free(sorted);
    ce_results_free(all);
    test_db_close(&p.t);
}

/* Views of a list (Ada's dogs, reordered, with repeats) and of backlinks
 * (the people whose friend is Ada), and a filter of one. */
TEST(observer_collection_and_backlinks)
{
    people p = people_open("observer-collection");
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p.t.db, &txn));
    ce_collection *dogs;
    CHECK(ce_collection_open(txn, p.person, p.ada, p.dogs, &dogs));
    ce_results *ada_dogs, *young, *friends;
    CHECK(ce_results_from_collection(txn, dogs, &ada_dogs));
    ce_collection_close(dogs);
    ce_query *query;
    CHECK(ce_query_parse(txn, p.dog, "age < 8", NULL, 0, &query));
    CHECK(ce_results_filter(txn, ada_dogs, query, &young));
    ce_query_free(query);
    CHECK(ce_results_from_backlinks(txn, p.person, p.ada, p.person, p.friend, &friends));
    ce_txn_end(txn);
    observe_rounds(&p, ada_dogs, NULL, 0, 50);
    observe_rounds(&p, young, NULL, 0, 60);
    observe_rounds(&p, friends, NULL, 0, 50);
    ce_results_free(friends);
    ce_results_free(young);
    ce_results_free(ada_dogs);
    test_db_close(&p.t);
}

/* Ada deleted: the views of her dogs and of her backlinks report every
 * object deleted and collection_deleted, once; then nothing. */
TEST(observer_owner_deleted)
{
    people p = people_open("observer-owner");
    ce_txn *before, *after, *w;
    CHECK(ce_txn_begin_read(p.t.db, &before));
    ce_collection *dogs;
    CHECK(ce_collection_open(before, p.person, p.ada, p.dogs, &dogs));
    ce_results *views[2];
    CHECK(ce_results_from_collection(before, dogs, &views[0]));
    ce_collection_close(dogs);
    CHECK(ce_txn_begin_write(p.t.db, &w));
    ce_object_key bob;
    CHECK(ce_object_key_at(w, p.person, 1, &bob));
    CHECK(ce_object_set(w, p.person, bob, p.friend, &(ce_value){.type = CE_TYPE_LINK, .link = {p.person, p.ada}}));
    CHECK(ce_txn_commit(w));
    ce_txn_end(before);
    CHECK(ce_txn_begin_read(p.t.db, &before));
    CHECK(ce_results_from_backlinks(before, p.person, p.ada, p.person, p.friend, &views[1]));
    ce_results_observer *observers[2];
    size_t counts[2];
    for (int v = 0; v < 2; v++) {
        CHECK(ce_results_observer_create(views[v], before, NULL, &observers[v]));
        CHECK(ce_results_count(views[v], before, &counts[v]) && counts[v] > 0);
    }
    for (int round = 0; round < 2; round++) {
        CHECK(ce_txn_begin_write(p.t.db, &w));
        if (round == 0) CHECK(ce_object_delete(w, p.person, p.ada));
        else CHECK(ce_object_delete(w, p.person, bob));
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(p.t.db, &after));
        ce_changes *changes;
        CHECK(ce_changes_compute(before, after, &changes));
        for (int v = 0; v < 2; v++) {
            ce_collection_change change;
            CHECK(ce_results_observer_update(observers[v], changes, &change));
            CHECK(change.collection_deleted == (round == 0));
            CHECK(change.deletion_count == (round == 0 ? counts[v] : 0));
            CHECK(change.insertion_count == 0 && change.modification_count == 0);
            ce_collection_change_free(&change);
        }
        ce_changes_free(changes);
        ce_txn_end(before);
        before = after;
    }
    for (int v = 0; v < 2; v++) {
        ce_results_observer_free(observers[v]);
        ce_results_free(views[v]);
    }
    ce_txn_end(before);
    test_db_close(&p.t);
}

/* A commit that touches nothing the view reads: no change; bad calls. */
TEST(observer_unrelated_commit_and_errors)
{
    people p = people_open("observer-errors");
    ce_results *results = query_results(&p, "age >= 50");
    ce_txn *before, *after, *w;
    CHECK(ce_txn_begin_read(p.t.db, &before));
    ce_results_observer *observer;
    CHECK(ce_results_observer_create(results, before, NULL, &observer));
    ce_results_free(results); /* the observer has its own copy */
    CHECK(ce_txn_begin_write(p.t.db, &w));
    ce_object_key other;
    CHECK(ce_object_key_at(w, p.other, 0, &other));
    CHECK(ce_object_set(w, p.other, other, p.other_value, &(ce_value){.type = CE_TYPE_INT, .integer = 9}));
    CHECK(ce_txn_commit(w));
    CHECK(ce_txn_begin_read(p.t.db, &after));
    ce_changes *changes;
    CHECK(ce_changes_compute(before, after, &changes));
    ce_collection_change change;
    CHECK(ce_results_observer_update(observer, changes, &change));
    CHECK(change.deletion_count == 0 && change.insertion_count == 0 && change.modification_count == 0);
    ce_collection_change_free(&change);
    CHECK(!ce_results_observer_update(NULL, changes, &change));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_results_observer_create(NULL, after, NULL, &observer));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    /* A filter of another table than the view's. */
    ce_key_path_filter *dog_filter;
    const char *dog_age[] = {"age"};
    CHECK(ce_key_path_filter_create(before, p.dog, dog_age, 1, &dog_filter));
    ce_results *people_view = query_results(&p, "age >= 50");
    ce_results_observer *mismatched;
    CHECK(ce_results_observer_create(people_view, before, dog_filter, &mismatched));
    CHECK(!ce_results_observer_update(mismatched, changes, &change));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_results_observer_free(mismatched);
    ce_results_free(people_view);
    ce_key_path_filter_free(dog_filter);
    ce_results_observer_free(observer);
    ce_results_observer_free(NULL);
    ce_changes_free(changes);
    ce_txn_end(before);
    ce_txn_end(after);
    test_db_close(&p.t);
}
