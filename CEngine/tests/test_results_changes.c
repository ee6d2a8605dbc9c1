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
    ce_value *values = malloc((count + 1) * sizeof *values);
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
