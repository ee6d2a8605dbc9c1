/*
 * test_notify_support.h — what the change-set tests share: applying a
 * collection change set to the old contents and checking that it gives
 * the new contents (test_apply_check), and a seeded random stream.
 */
#ifndef CE_TEST_NOTIFY_SUPPORT_H
#define CE_TEST_NOTIFY_SUPPORT_H

#include "test_support.h"

#include <stdint.h>

static inline uint64_t test_notify_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline size_t test_notify_below(uint64_t *state, size_t bound)
{
    return bound ? (size_t)(test_notify_random(state) % bound) : 0;
}

static inline void test_check_ascending(const size_t *indices, size_t count, size_t bound)
{
    for (size_t i = 0; i < count; i++) {
        CHECK(indices[i] < bound);
        if (i) CHECK(indices[i - 1] < indices[i]);
    }
}

static inline bool test_index_listed(const size_t *indices, size_t count, size_t index, size_t *out_at)
{
    for (size_t i = 0; i < count; i++)
        if (indices[i] == index) {
            if (out_at) *out_at = i;
            return true;
        }
    return false;
}

/*
 * Applies `change` to `old_values`: deletes the deletions (descending),
 * inserts the new values at the insertions (ascending), and checks that
 * every element that stayed and is not a modification holds its old value
 * at its new place, that each modification pairs an old index with the new
 * index its element went to, and that the result is `new_values` once the
 * modified elements take their new values (values compare with
 * test_same_value).
 */
static inline void test_apply_check(const ce_value *old_values, size_t old_count, const ce_value *new_values,
                                    size_t new_count, const ce_collection_change *change)
{
    test_check_ascending(change->deletions, change->deletion_count, old_count);
    test_check_ascending(change->insertions, change->insertion_count, new_count);
    test_check_ascending(change->modifications, change->modification_count, old_count);
    test_check_ascending(change->modifications_new, change->modification_new_count, new_count);
    CHECK(change->modification_count == change->modification_new_count);
    CHECK(old_count - change->deletion_count + change->insertion_count == new_count);
    for (size_t i = 0; i < change->modification_count; i++) {
        CHECK(!test_index_listed(change->deletions, change->deletion_count, change->modifications[i], NULL));
        CHECK(!test_index_listed(change->insertions, change->insertion_count, change->modifications_new[i], NULL));
    }
    /* Old indices of the elements that stay, then the new list as origins:
     * an old index, or SIZE_MAX for an inserted element. */
    size_t *origin = malloc((old_count + new_count + 1) * sizeof *origin);
    size_t size = 0;
    for (size_t i = 0; i < old_count; i++)
        if (!test_index_listed(change->deletions, change->deletion_count, i, NULL)) origin[size++] = i;
    for (size_t k = 0; k < change->insertion_count; k++) {
        size_t at = change->insertions[k];
        CHECK(at <= size);
        memmove(&origin[at + 1], &origin[at], (size - at) * sizeof *origin);
        origin[at] = SIZE_MAX;
        size++;
    }
    CHECK(size == new_count);
    for (size_t j = 0; j < new_count; j++) {
        if (origin[j] == SIZE_MAX) continue;
        size_t at;
        if (test_index_listed(change->modifications_new, change->modification_new_count, j, &at)) {
            CHECK(change->modifications[at] == origin[j]);
        } else {
            CHECK(test_same_value(&old_values[origin[j]], &new_values[j]));
        }
    }
    free(origin);
}

#endif
