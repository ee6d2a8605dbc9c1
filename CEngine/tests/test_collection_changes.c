/*
 * test_collection_changes.c — collection change sets (notify/
 * collection_changes.c): each list operation alone and combined, sets,
 * dictionaries, the comparison of contents without an operation log, and
 * random operation sequences, every change set checked by applying it to
 * the old contents (test_apply_check).
 */
#include "collection_changes.h"
#include "test_notify_support.h"

/* A list of int values with an operation log: each inserted or set
 * element gets a fresh value, so the test knows what every element is. */
typedef struct model_list {
    ce_value *values;
    size_t count;
    int64_t next;
    collection_op *ops;
    size_t op_count;
} model_list;

static model_list model_new(size_t count)
{
    model_list m = {calloc(4096, sizeof(ce_value)), count, (int64_t)count, calloc(4096, sizeof(collection_op)), 0};
    for (size_t i = 0; i < count; i++) m.values[i] = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)i};
    return m;
}

static void model_free(model_list *m)
{
    free(m->values);
    free(m->ops);
}

static void model_op(model_list *m, collection_op_kind kind, size_t a, size_t b)
{
    CHECK(m->op_count < 4096 && m->count < 4000);
    m->ops[m->op_count++] = (collection_op){kind, a, b};
    ce_value *v = m->values;
    switch (kind) {
    case COLLECTION_OP_INSERT:
        memmove(&v[a + 1], &v[a], (m->count - a) * sizeof *v);
        v[a] = (ce_value){.type = CE_TYPE_INT, .integer = m->next++};
        m->count++;
        break;
    case COLLECTION_OP_SET: v[a] = (ce_value){.type = CE_TYPE_INT, .integer = m->next++}; break;
    case COLLECTION_OP_ERASE:
        memmove(&v[a], &v[a + 1], (m->count - a - 1) * sizeof *v);
        m->count--;
        break;
    case COLLECTION_OP_MOVE: {
        ce_value moved = v[a];
        if (a < b) memmove(&v[a], &v[a + 1], (b - a) * sizeof *v);
        else memmove(&v[b + 1], &v[b], (a - b) * sizeof *v);
        v[b] = moved;
        break;
    }
    case COLLECTION_OP_SWAP: {
        ce_value held = v[a];
        v[a] = v[b];
        v[b] = held;
        break;
    }
    case COLLECTION_OP_CLEAR:
        m->ops[m->op_count - 1].a = m->count;
        m->count = 0;
        break;
    }
}

static void check_list(const size_t *got, size_t got_count, const size_t *want, size_t want_count)
{
    CHECK(got_count == want_count);
    for (size_t i = 0; i < want_count; i++) CHECK(got[i] == want[i]);
}

#define LIST(...) ((size_t[]){__VA_ARGS__, SIZE_MAX})
static size_t list_count(const size_t *list)
{
    size_t n = 0;
    while (list[n] != SIZE_MAX) n++;
    return n;
}
#define NONE LIST(SIZE_MAX)

/* Replays the model's log on the old contents, checks the change set
 * against the expected lists (NULL: not checked) and by applying it. */
static void check_ops(const ce_value *old_values, size_t old_count, const model_list *m, const size_t *deletions,
                      const size_t *insertions, const size_t *modifications, const size_t *modifications_new)
{
    collection_origin origin;
    CHECK(collection_origin_from_ops(old_count, m->ops, m->op_count, &origin));
    CHECK(origin.new_size == m->count);
    ce_collection_change change;
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    test_apply_check(old_values, old_count, m->values, m->count, &change);
    if (deletions) check_list(change.deletions, change.deletion_count, deletions, list_count(deletions));
    if (insertions) check_list(change.insertions, change.insertion_count, insertions, list_count(insertions));
    if (modifications) check_list(change.modifications, change.modification_count, modifications, list_count(modifications));
    if (modifications_new)
        check_list(change.modifications_new, change.modification_new_count, modifications_new,
                   list_count(modifications_new));
    CHECK(!change.collection_deleted);
    ce_collection_change_free(&change);
    CHECK(change.deletions == NULL && change.deletion_count == 0);
    collection_origin_free(&origin);
}

/* One operation on [0 1 2 3 4] and its expected change set. */
static void check_one(collection_op_kind kind, size_t a, size_t b, const size_t *deletions, const size_t *insertions,
                      const size_t *modifications, const size_t *modifications_new)
{
    model_list m = model_new(5);
    ce_value old_values[5];
    memcpy(old_values, m.values, sizeof old_values);
    model_op(&m, kind, a, b);
    check_ops(old_values, 5, &m, deletions, insertions, modifications, modifications_new);
    model_free(&m);
}

TEST(list_operations_alone)
{
    check_one(COLLECTION_OP_INSERT, 2, 0, NONE, LIST(2), NONE, NONE);
    check_one(COLLECTION_OP_INSERT, 5, 0, NONE, LIST(5), NONE, NONE);
    check_one(COLLECTION_OP_ERASE, 0, 0, LIST(0), NONE, NONE, NONE);
    check_one(COLLECTION_OP_ERASE, 4, 0, LIST(4), NONE, NONE, NONE);
    check_one(COLLECTION_OP_SET, 3, 0, NONE, NONE, LIST(3), LIST(3));
    /* A move: a deletion at the old index and an insertion at the new one. */
    check_one(COLLECTION_OP_MOVE, 0, 3, LIST(0), LIST(3), NONE, NONE);
    check_one(COLLECTION_OP_MOVE, 4, 1, LIST(4), LIST(1), NONE, NONE);
    check_one(COLLECTION_OP_MOVE, 2, 2, NONE, NONE, NONE, NONE);
    /* A swap moves the two elements (of neighbours: one of them). */
    check_one(COLLECTION_OP_SWAP, 1, 2, NULL, NULL, NONE, NONE);
    check_one(COLLECTION_OP_SWAP, 0, 4, LIST(0, 4), LIST(0, 4), NONE, NONE);
    check_one(COLLECTION_OP_SWAP, 3, 3, NONE, NONE, NONE, NONE);
    check_one(COLLECTION_OP_CLEAR, 0, 0, LIST(0, 1, 2, 3, 4), NONE, NONE, NONE);
}

TEST(list_operations_combined)
{
    model_list m = model_new(6);
    ce_value old_values[6];
    memcpy(old_values, m.values, sizeof old_values);
    /* [0 1 2 3 4 5] -> insert at 0 -> [n 0 1 2 3 4 5]; set 3 (old 2) ->
     * modified; erase 1 (old 0); set 0 (the inserted one: no
     * modification); move 4 (old 4) to 1. */
    model_op(&m, COLLECTION_OP_INSERT, 0, 0);
    model_op(&m, COLLECTION_OP_SET, 3, 0);
    model_op(&m, COLLECTION_OP_ERASE, 1, 0);
    model_op(&m, COLLECTION_OP_SET, 0, 0);
    model_op(&m, COLLECTION_OP_MOVE, 4, 1);
    /* now [n 4 1 2' 3 5] */
    check_ops(old_values, 6, &m, LIST(0, 4), LIST(0, 1), LIST(2), LIST(3));
    model_free(&m);

    /* Inserted then erased: nothing. Set then erased: a deletion only. */
    m = model_new(3);
    memcpy(old_values, m.values, 3 * sizeof *old_values);
    model_op(&m, COLLECTION_OP_INSERT, 1, 0);
    model_op(&m, COLLECTION_OP_ERASE, 1, 0);
    model_op(&m, COLLECTION_OP_SET, 2, 0);
    model_op(&m, COLLECTION_OP_ERASE, 2, 0);
    check_ops(old_values, 3, &m, LIST(2), NONE, NONE, NONE);
    model_free(&m);

    /* Cleared then refilled: every old element deleted, every new one inserted. */
    m = model_new(3);
    memcpy(old_values, m.values, 3 * sizeof *old_values);
    model_op(&m, COLLECTION_OP_CLEAR, 0, 0);
    model_op(&m, COLLECTION_OP_INSERT, 0, 0);
    model_op(&m, COLLECTION_OP_INSERT, 1, 0);
    check_ops(old_values, 3, &m, LIST(0, 1, 2), LIST(0, 1), NONE, NONE);
    model_free(&m);

    /* A set element that then moves is a deletion and an insertion, not a
     * modification; moved back where it was, it stays (and is modified). */
    m = model_new(4);
    memcpy(old_values, m.values, 4 * sizeof *old_values);
    model_op(&m, COLLECTION_OP_SET, 1, 0);
    model_op(&m, COLLECTION_OP_MOVE, 1, 3);
    check_ops(old_values, 4, &m, LIST(1), LIST(3), NONE, NONE);
    model_op(&m, COLLECTION_OP_MOVE, 3, 1);
    check_ops(old_values, 4, &m, NONE, NONE, LIST(1), LIST(1));
    model_free(&m);
}

TEST(operation_log_that_does_not_fit_is_damage)
{
    collection_op bad[][1] = {{{COLLECTION_OP_INSERT, 4, 0}}, {{COLLECTION_OP_ERASE, 3, 0}}, {{COLLECTION_OP_SET, 3, 0}},
                              {{COLLECTION_OP_MOVE, 0, 3}},   {{COLLECTION_OP_SWAP, 3, 0}},  {{COLLECTION_OP_CLEAR, 2, 0}}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        collection_origin origin;
        CHECK(!collection_origin_from_ops(3, bad[i], 1, &origin));
        CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
        CHECK(strstr(ce_last_error_message(), "does not fit the collection of 3 elements") != NULL);
    }
}

/* Sets: an insert or erase at the index the value got or had. */
TEST(set_operations)
{
    ce_value old_values[4], new_values[5];
    int64_t old_ints[4] = {10, 20, 30, 40}, new_ints[5] = {5, 10, 25, 30, 40};
    for (int i = 0; i < 4; i++) old_values[i] = (ce_value){.type = CE_TYPE_INT, .integer = old_ints[i]};
    for (int i = 0; i < 5; i++) new_values[i] = (ce_value){.type = CE_TYPE_INT, .integer = new_ints[i]};
    /* insert 5 (at 0), erase 20 (at 2), insert 25 (at 2) */
    collection_op ops[] = {{COLLECTION_OP_INSERT, 0, 0}, {COLLECTION_OP_ERASE, 2, 0}, {COLLECTION_OP_INSERT, 2, 0}};
    collection_origin from_ops, from_values;
    CHECK(collection_origin_from_ops(4, ops, 3, &from_ops));
    CHECK(collection_origin_from_values(old_values, 4, new_values, 5, true, false, &from_values));
    collection_origin *both[2] = {&from_ops, &from_values};
    for (int k = 0; k < 2; k++) {
        ce_collection_change change;
        CHECK(collection_change_build(both[k], NULL, NULL, &change));
        test_apply_check(old_values, 4, new_values, 5, &change);
        check_list(change.deletions, change.deletion_count, LIST(1), 1);
        check_list(change.insertions, change.insertion_count, LIST(0, 2), 2);
        CHECK(change.modification_count == 0);
        ce_collection_change_free(&change);
        collection_origin_free(both[k]);
    }
}

/* Without an operation log: the equal prefix and suffix stay. */
TEST(contents_comparison)
{
    ce_value a[6], b[6];
    int64_t old_ints[6] = {1, 2, 3, 4, 5, 6}, same_length[6] = {1, 2, 9, 4, 8, 6}, shorter[4] = {1, 2, 7, 6};
    for (int i = 0; i < 6; i++) a[i] = (ce_value){.type = CE_TYPE_INT, .integer = old_ints[i]};
    for (int i = 0; i < 6; i++) b[i] = (ce_value){.type = CE_TYPE_INT, .integer = same_length[i]};
    collection_origin origin;
    ce_collection_change change;
    /* A list of values of the same length: modifications in place (the
     * equal 4 in the middle stays unmodified). */
    CHECK(collection_origin_from_values(a, 6, b, 6, false, true, &origin));
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    test_apply_check(a, 6, b, 6, &change);
    CHECK(change.deletion_count == 0 && change.insertion_count == 0);
    check_list(change.modifications, change.modification_count, LIST(2, 4), 2);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
    /* Links (not in place): the differing middle is deleted and inserted. */
    CHECK(collection_origin_from_values(a, 6, b, 6, false, false, &origin));
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    test_apply_check(a, 6, b, 6, &change);
    check_list(change.deletions, change.deletion_count, LIST(2, 3, 4), 3);
    check_list(change.insertions, change.insertion_count, LIST(2, 3, 4), 3);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
    /* Different lengths. */
    for (int i = 0; i < 4; i++) b[i] = (ce_value){.type = CE_TYPE_INT, .integer = shorter[i]};
    CHECK(collection_origin_from_values(a, 6, b, 4, false, true, &origin));
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    test_apply_check(a, 6, b, 4, &change);
    check_list(change.deletions, change.deletion_count, LIST(2, 3, 4), 3);
    check_list(change.insertions, change.insertion_count, LIST(2), 1);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
    /* Empty to something and back. */
    CHECK(collection_origin_from_values(a, 0, b, 4, false, true, &origin));
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    test_apply_check(a, 0, b, 4, &change);
    CHECK(change.insertion_count == 4 && change.deletion_count == 0);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
    CHECK(collection_origin_from_values(a, 6, b, 0, false, true, &origin));
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    CHECK(change.deletion_count == 6 && change.insertion_count == 0);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
}

/* The callback marks elements that stay as modified (a linked object
 * changed); it is asked only about elements that stay in place. */
static bool odd_new_index_changed(void *context, size_t old_index, size_t new_index, bool *out_changed)
{
    size_t *calls = context;
    (*calls)++;
    (void)old_index;
    *out_changed = new_index % 2 == 1;
    return true;
}

TEST(linked_objects_changed)
{
    model_list m = model_new(5);
    ce_value old_values[5];
    memcpy(old_values, m.values, sizeof old_values);
    model_op(&m, COLLECTION_OP_ERASE, 0, 0); /* [1 2 3 4] */
    collection_origin origin;
    CHECK(collection_origin_from_ops(5, m.ops, m.op_count, &origin));
    ce_collection_change change;
    size_t calls = 0;
    CHECK(collection_change_build(&origin, odd_new_index_changed, &calls, &change));
    CHECK(calls == 4);
    check_list(change.deletions, change.deletion_count, LIST(0), 1);
    check_list(change.modifications, change.modification_count, LIST(2, 4), 2);
    check_list(change.modifications_new, change.modification_new_count, LIST(1, 3), 2);
    test_apply_check(old_values, 5, m.values, m.count, &change);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
    model_free(&m);
}

static ce_value key_value(const char *key) { return (ce_value){.type = CE_TYPE_STRING, .string = {key, strlen(key)}}; }
static ce_value int_value(int64_t i) { return (ce_value){.type = CE_TYPE_INT, .integer = i}; }

static bool link_value_changed(void *context, const ce_value *value, bool *out_changed)
{
    (void)context;
    *out_changed = value->type == CE_TYPE_LINK && value->link.key == 7;
    return true;
}

static void check_keys(const ce_value *got, size_t count, const char *const *want, size_t want_count)
{
    CHECK(count == want_count);
    for (size_t i = 0; i < count; i++) {
        CHECK(got[i].type == CE_TYPE_STRING);
        CHECK(got[i].string.size == strlen(want[i]) && memcmp(got[i].string.data, want[i], got[i].string.size) == 0);
        CHECK(got[i].string.data[got[i].string.size] == '\0');
    }
}

TEST(dictionary_changes)
{
    ce_value old_keys[] = {key_value("a"), key_value("b"), key_value("c"), key_value("d")};
    ce_value old_values[] = {int_value(1), int_value(2), int_value(3), int_value(4)};
    ce_value new_keys[] = {key_value("b"), key_value("c"), key_value("d"), key_value("e")};
    ce_value new_values[] = {int_value(2), int_value(30), int_value(4), int_value(5)};
    ce_dictionary_change change;
    CHECK(collection_dictionary_change_build(old_keys, old_values, 4, new_keys, new_values, 4, NULL, 0, NULL, NULL, &change));
    check_keys(change.deletions, change.deletion_count, (const char *[]){"a"}, 1);
    check_keys(change.insertions, change.insertion_count, (const char *[]){"e"}, 1);
    check_keys(change.modifications, change.modification_count, (const char *[]){"c"}, 1);
    CHECK(!change.collection_deleted);
    ce_dictionary_change_free(&change);
    CHECK(change.deletions == NULL && change.modification_count == 0);
    /* A key an operation set to the same value is modified too. */
    ce_value touched[] = {key_value("b"), key_value("zz")};
    CHECK(collection_dictionary_change_build(old_keys, old_values, 4, new_keys, new_values, 4, touched, 2, NULL, NULL,
                                             &change));
    check_keys(change.modifications, change.modification_count, (const char *[]){"b", "c"}, 2);
    ce_dictionary_change_free(&change);
    /* A linked object that changed. */
    ce_value links_old[] = {{.type = CE_TYPE_LINK, .link = {1, 7}}, {.type = CE_TYPE_LINK, .link = {1, 8}}};
    ce_value keys2[] = {key_value("x"), key_value("y")};
    CHECK(collection_dictionary_change_build(keys2, links_old, 2, keys2, links_old, 2, NULL, 0, link_value_changed, NULL,
                                             &change));
    check_keys(change.modifications, change.modification_count, (const char *[]){"x"}, 1);
    CHECK(change.deletion_count == 0 && change.insertion_count == 0);
    ce_dictionary_change_free(&change);
}

/* Random operation sequences (seeded) on lists of up to 60 elements: the
 * change set from the log and the one from the contents both apply. */
TEST(random_operation_sequences)
{
    uint64_t seed = 0x14C0111C;
    for (int round = 0; round < 3000; round++) {
        size_t old_count = test_notify_below(&seed, 40);
        model_list m = model_new(old_count);
        ce_value old_values[64];
        memcpy(old_values, m.values, old_count * sizeof *old_values);
        size_t op_count = 1 + test_notify_below(&seed, round % 10 == 0 ? 60 : 8);
        for (size_t k = 0; k < op_count; k++) {
            size_t choice = test_notify_below(&seed, 20), count = m.count;
            if (choice < 6 || count == 0) {
                if (count < 60) model_op(&m, COLLECTION_OP_INSERT, test_notify_below(&seed, count + 1), 0);
            } else if (choice < 10) {
                model_op(&m, COLLECTION_OP_ERASE, test_notify_below(&seed, count), 0);
            } else if (choice < 14) {
                model_op(&m, COLLECTION_OP_SET, test_notify_below(&seed, count), 0);
            } else if (choice < 17) {
                model_op(&m, COLLECTION_OP_MOVE, test_notify_below(&seed, count), test_notify_below(&seed, count));
            } else if (choice < 19) {
                model_op(&m, COLLECTION_OP_SWAP, test_notify_below(&seed, count), test_notify_below(&seed, count));
            } else {
                model_op(&m, COLLECTION_OP_CLEAR, 0, 0);
            }
        }
        check_ops(old_values, old_count, &m, NULL, NULL, NULL, NULL);
        for (int in_place = 0; in_place < 2; in_place++) {
            collection_origin origin;
            CHECK(collection_origin_from_values(old_values, old_count, m.values, m.count, false, in_place, &origin));
            ce_collection_change change;
            CHECK(collection_change_build(&origin, NULL, NULL, &change));
            test_apply_check(old_values, old_count, m.values, m.count, &change);
            ce_collection_change_free(&change);
            collection_origin_free(&origin);
        }
        model_free(&m);
    }
}
