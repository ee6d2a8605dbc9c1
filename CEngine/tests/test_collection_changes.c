/*
 * test_collection_changes.c — collection change sets (notify/
 * collection_changes.c): each list operation alone and combined, sets,
 * dictionaries, the comparison of contents without an operation log, and
 * random operation sequences, every change set checked by applying it to
 * the old contents (test_apply_check).
 */
#include "collection_changes.h"
#include "changes.h"
#include "history.h"
#include "key_path_filter.h"
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

/* ------------------------------------------------------------------------ */
/* Collections of a database between two versions                            */
/* ------------------------------------------------------------------------ */

typedef struct fixture {
    test_db t;
    ce_table_key person, dog, address;
    ce_column_key scores, tags, dogs, ratings, pets, addresses, any, dog_name, dog_age, city;
    ce_object_key ada, dog_keys[6];
} fixture;

static ce_column_key add_property(ce_txn *txn, ce_table_key table, ce_property_info info)
{
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

static ce_value str(const char *s) { return (ce_value){.type = CE_TYPE_STRING, .string = {s, strlen(s)}}; }
#define STR(literal) (&(ce_value){.type = CE_TYPE_STRING, .string = {literal, sizeof literal - 1}})

/* Person { scores: [int], tags: set<string>, dogs: [Dog], ratings: {string: int}, pets: {string: Dog},
 * addresses: [Address] (embedded), any: mixed }, Dog { name, age }, Address { city }; Ada with four
 * dogs and values in every collection. */
static fixture fixture_open(const char *name)
{
    fixture f;
    memset(&f, 0, sizeof f);
    f.t = test_db_open(name);
    ce_txn *w;
    CHECK(ce_txn_begin_write(f.t.db, &w));
    CHECK(ce_table_add(w, "Person", &f.person));
    CHECK(ce_table_add(w, "Dog", &f.dog));
    CHECK(ce_table_add_embedded(w, "Address", &f.address));
    f.dog_name = add_property(w, f.dog, (ce_property_info){.name = "name", .type = CE_TYPE_STRING});
    f.dog_age = add_property(w, f.dog, (ce_property_info){.name = "age", .type = CE_TYPE_INT});
    f.city = add_property(w, f.address, (ce_property_info){.name = "city", .type = CE_TYPE_STRING});
    f.scores = add_property(w, f.person, (ce_property_info){.name = "scores", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST});
    f.tags = add_property(w, f.person, (ce_property_info){.name = "tags", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_SET});
    f.dogs = add_property(w, f.person, (ce_property_info){.name = "dogs", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = f.dog});
    f.ratings = add_property(w, f.person, (ce_property_info){.name = "ratings", .type = CE_TYPE_INT, .collection = CE_COLLECTION_DICTIONARY});
    f.pets = add_property(w, f.person, (ce_property_info){.name = "pets", .type = CE_TYPE_LINK, .nullable = true, .collection = CE_COLLECTION_DICTIONARY, .link_target = f.dog});
    f.addresses = add_property(w, f.person, (ce_property_info){.name = "addresses", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = f.address});
    f.any = add_property(w, f.person, (ce_property_info){.name = "any", .type = CE_TYPE_MIXED, .nullable = true});
    CHECK(ce_object_create(w, f.person, NULL, &f.ada));
    static const char *const names[6] = {"Rex", "Fido", "Bella", "Max", "Luna", "Toby"};
    for (int d = 0; d < 6; d++) {
        CHECK(ce_object_create(w, f.dog, NULL, &f.dog_keys[d]));
        ce_value name_value = str(names[d]);
        CHECK(ce_object_set(w, f.dog, f.dog_keys[d], f.dog_name, &name_value));
    }
    ce_collection *c;
    CHECK(ce_collection_open(w, f.person, f.ada, f.scores, &c));
    for (int i = 0; i < 4; i++) CHECK(ce_list_insert(c, (size_t)i, &(ce_value){.type = CE_TYPE_INT, .integer = 10 * (i + 1)}));
    ce_collection_close(c);
    CHECK(ce_collection_open(w, f.person, f.ada, f.tags, &c));
    CHECK(ce_set_insert(c, STR("b"), NULL) && ce_set_insert(c, STR("d"), NULL) &&
          ce_set_insert(c, STR("f"), NULL));
    ce_collection_close(c);
    CHECK(ce_collection_open(w, f.person, f.ada, f.dogs, &c));
    for (int d = 0; d < 4; d++)
        CHECK(ce_list_insert(c, (size_t)d, &(ce_value){.type = CE_TYPE_LINK, .link = {f.dog, f.dog_keys[d]}}));
    ce_collection_close(c);
    CHECK(ce_collection_open(w, f.person, f.ada, f.ratings, &c));
    CHECK(ce_dictionary_set(c, "x", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 1}));
    CHECK(ce_dictionary_set(c, "y", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 2}));
    CHECK(ce_dictionary_set(c, "z", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 3}));
    ce_collection_close(c);
    CHECK(ce_collection_open(w, f.person, f.ada, f.pets, &c));
    CHECK(ce_dictionary_set(c, "p", 1, &(ce_value){.type = CE_TYPE_LINK, .link = {f.dog, f.dog_keys[0]}}));
    CHECK(ce_dictionary_set(c, "q", 1, &(ce_value){.type = CE_TYPE_LINK, .link = {f.dog, f.dog_keys[1]}}));
    ce_collection_close(c);
    CHECK(ce_collection_open(w, f.person, f.ada, f.addresses, &c));
    for (int i = 0; i < 3; i++) {
        ce_object_key embedded;
        CHECK(ce_list_insert_embedded(c, (size_t)i, &embedded));
        ce_value city = str(i == 0 ? "Oslo" : i == 1 ? "Rome" : "Lima");
        CHECK(ce_object_set(w, f.address, embedded, f.city, &city));
    }
    ce_collection_close(c);
    CHECK(ce_object_set(w, f.person, f.ada, f.any, &(ce_value){.type = CE_TYPE_LIST}));
    CHECK(ce_collection_open_mixed(w, f.person, f.ada, f.any, &c));
    for (int i = 0; i < 3; i++) CHECK(ce_list_insert(c, (size_t)i, &(ce_value){.type = CE_TYPE_INT, .integer = i}));
    ce_collection_close(c);
    CHECK(ce_txn_commit(w));
    return f;
}

static void fixture_close(fixture *f) { test_db_close(&f->t); }

/* A collection's elements (or a dictionary's keys and values), strings copied. */
typedef struct snapshot {
    ce_value *values, *dict_values;
    size_t count;
    bool present;
} snapshot;

static ce_value copy_value(ce_value v)
{
    if (v.type == CE_TYPE_STRING || v.type == CE_TYPE_BINARY) {
        char *bytes = malloc(v.string.size + 1);
        memcpy(bytes, v.string.data, v.string.size);
        v.string.data = bytes;
    }
    return v;
}

static void snapshot_free(snapshot *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (s->values[i].type == CE_TYPE_STRING || s->values[i].type == CE_TYPE_BINARY) free((void *)s->values[i].string.data);
        if (s->dict_values && s->dict_values[i].type == CE_TYPE_STRING) free((void *)s->dict_values[i].string.data);
    }
    free(s->values);
    free(s->dict_values);
}

static bool open_collection(ce_txn *txn, const fixture *f, ce_object_key owner, ce_column_key column, ce_collection **out)
{
    return column == f->any ? ce_collection_open_mixed(txn, f->person, owner, column, out)
                            : ce_collection_open(txn, f->person, owner, column, out);
}

static snapshot take(ce_txn *txn, const fixture *f, ce_object_key owner, ce_column_key column)
{
    snapshot s = {calloc(2048, sizeof(ce_value)), NULL, 0, false};
    bool exists;
    CHECK(ce_object_exists(txn, f->person, owner, &exists));
    if (!exists) return s;
    s.present = true;
    ce_collection *c;
    CHECK(open_collection(txn, f, owner, column, &c));
    ce_collection_type kind;
    ce_type element;
    CHECK(ce_collection_kind(c, &kind, &element));
    CHECK(ce_collection_size(c, &s.count));
    CHECK(s.count < 2048);
    if (kind == CE_COLLECTION_DICTIONARY) s.dict_values = calloc(2048, sizeof(ce_value));
    for (size_t i = 0; i < s.count; i++) {
        ce_value v;
        if (kind == CE_COLLECTION_DICTIONARY) {
            CHECK(ce_dictionary_key_at(c, i, &v));
            s.values[i] = copy_value(v);
            CHECK(ce_collection_get(c, i, &v));
            s.dict_values[i] = copy_value(v);
        } else {
            CHECK(ce_collection_get(c, i, &v));
            s.values[i] = copy_value(v);
        }
    }
    ce_collection_close(c);
    return s;
}

typedef void (*edit_fn)(fixture *f, ce_txn *w, void *context);

/* Edits in `commits` write transactions, then the change of `column`
 * of `owner` between the version before and the one after, checked by
 * applying it; *out_used_history says whether the change set came from
 * the history. The change is returned (free it). */
/* Whether list_change compares snapshots (changes_compute_from_snapshots:
 * the contents comparison) instead of reading the history. */
static bool from_snapshots;

static ce_collection_change list_change(fixture *f, ce_object_key owner, ce_column_key column, edit_fn edit, void *context,
                                        int commits, const char *const *paths, size_t path_count, bool *out_used_history)
{
    ce_txn *before, *after, *w;
    CHECK(ce_txn_begin_read(f->t.db, &before));
    snapshot old_snapshot = take(before, f, owner, column);
    for (int k = 0; k < commits; k++) {
        CHECK(ce_txn_begin_write(f->t.db, &w));
        edit(f, w, context);
        CHECK(ce_txn_commit(w));
    }
    CHECK(ce_txn_begin_read(f->t.db, &after));
    snapshot new_snapshot = take(after, f, owner, column);
    ce_changes *changes;
    CHECK(from_snapshots ? changes_compute_from_snapshots(before, after, &changes)
                         : ce_changes_compute(before, after, &changes));
    /* From the history, the collection's operations are replayed. */
    *out_used_history = ce_changes_used_history(changes);
    CHECK(*out_used_history == (changes_history_delta(changes) != NULL));
    if (from_snapshots) CHECK(!*out_used_history);
    ce_key_path_filter *filter = NULL;
    if (paths) CHECK(ce_key_path_filter_create(after, f->dog, paths, path_count, &filter));
    /* The handle may be opened in either version. */
    ce_collection *c;
    CHECK(open_collection(new_snapshot.present ? after : before, f, owner, column, &c));
    ce_collection_change change;
    CHECK(ce_changes_collection(changes, c, filter, &change));
    ce_collection_close(c);
    CHECK(change.collection_deleted == (old_snapshot.present && !new_snapshot.present));
    test_apply_check(old_snapshot.values, old_snapshot.count, new_snapshot.values, new_snapshot.count, &change);
    ce_key_path_filter_free(filter);
    ce_changes_free(changes);
    ce_txn_end(before);
    ce_txn_end(after);
    snapshot_free(&old_snapshot);
    snapshot_free(&new_snapshot);
    return change;
}

typedef struct list_edit {
    ce_column_key column;
    collection_op_kind kind;
    size_t a, b;
} list_edit;

static void edit_list(fixture *f, ce_txn *w, void *context)
{
    const list_edit *e = context;
    ce_collection *c;
    CHECK(open_collection(w, f, f->ada, e->column, &c));
    ce_value value = e->column == f->dogs ? (ce_value){.type = CE_TYPE_LINK, .link = {f->dog, f->dog_keys[5]}}
                                          : (ce_value){.type = CE_TYPE_INT, .integer = 99};
    switch (e->kind) {
    case COLLECTION_OP_INSERT: CHECK(ce_list_insert(c, e->a, &value)); break;
    case COLLECTION_OP_SET: CHECK(ce_list_set(c, e->a, &value)); break;
    case COLLECTION_OP_ERASE: CHECK(ce_list_erase(c, e->a)); break;
    case COLLECTION_OP_MOVE: CHECK(ce_list_move(c, e->a, e->b)); break;
    case COLLECTION_OP_SWAP: CHECK(ce_list_swap(c, e->a, e->b)); break;
    case COLLECTION_OP_CLEAR: CHECK(ce_collection_clear(c)); break;
    }
    ce_collection_close(c);
}

static void list_operations(void);

/* Each list operation alone, on a list of values, of links, nested in a
 * mixed value: from the history (the change sets are exact) and by
 * comparing the contents. */
TEST(db_list_operations)
{
    from_snapshots = false;
    list_operations();
    from_snapshots = true;
    list_operations();
    from_snapshots = false;
}

static void list_operations(void)
{
    ce_column_key columns[3];
    static const struct {
        collection_op_kind kind;
        size_t a, b;
        size_t deletions[4], deletion_count, insertions[4], insertion_count, modified;
    } cases[] = {
        {COLLECTION_OP_INSERT, 1, 0, {0}, 0, {1}, 1, SIZE_MAX},  {COLLECTION_OP_ERASE, 2, 0, {2}, 1, {0}, 0, SIZE_MAX},
        {COLLECTION_OP_SET, 0, 0, {0}, 0, {0}, 0, 0},            {COLLECTION_OP_MOVE, 0, 2, {0}, 1, {2}, 1, SIZE_MAX},
        {COLLECTION_OP_SWAP, 0, 2, {0, 2}, 2, {0, 2}, 2, SIZE_MAX}, {COLLECTION_OP_CLEAR, 0, 0, {0, 1, 2}, 3, {0}, 0, SIZE_MAX},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        fixture f = fixture_open("collchanges-list");
        columns[0] = f.scores, columns[1] = f.dogs, columns[2] = f.any;
        for (int col = 0; col < 3; col++) {
            /* Lists of 3 first: erase the 4th where there is one. */
            if (col < 2) {
                list_edit trim = {columns[col], COLLECTION_OP_ERASE, 3, 0};
                bool used;
                ce_collection_change change = list_change(&f, f.ada, columns[col], edit_list, &trim, 1, NULL, 0, &used);
                ce_collection_change_free(&change);
            }
            list_edit e = {columns[col], cases[k].kind, cases[k].a, cases[k].b};
            bool used_history;
            ce_collection_change change = list_change(&f, f.ada, columns[col], edit_list, &e, 1, NULL, 0, &used_history);
            /* A new file's history holds every commit. */
            CHECK(used_history == !from_snapshots);
            if (used_history) {
                check_list(change.deletions, change.deletion_count, cases[k].deletions, cases[k].deletion_count);
                check_list(change.insertions, change.insertion_count, cases[k].insertions, cases[k].insertion_count);
                CHECK(change.modification_count == (cases[k].modified != SIZE_MAX));
                if (change.modification_count) CHECK(change.modifications[0] == cases[k].modified);
            }
            ce_collection_change_free(&change);
        }
        fixture_close(&f);
    }
}

typedef struct random_edits {
    uint64_t seed;
    ce_column_key column;
} random_edits;

/* A few random operations on the list, and sometimes a dog renamed. */
static void edit_random(fixture *f, ce_txn *w, void *context)
{
    random_edits *r = context;
    ce_collection *c;
    CHECK(open_collection(w, f, f->ada, r->column, &c));
    size_t ops = 1 + test_notify_below(&r->seed, 6);
    for (size_t k = 0; k < ops; k++) {
        size_t count;
        CHECK(ce_collection_size(c, &count));
        size_t choice = test_notify_below(&r->seed, 20);
        ce_value value = r->column == f->dogs
                             ? (ce_value){.type = CE_TYPE_LINK, .link = {f->dog, f->dog_keys[test_notify_below(&r->seed, 6)]}}
                             : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&r->seed, 1000)};
        if (choice < 6 || count == 0) CHECK(ce_list_insert(c, test_notify_below(&r->seed, count + 1), &value));
        else if (choice < 10) CHECK(ce_list_erase(c, test_notify_below(&r->seed, count)));
        else if (choice < 14) CHECK(ce_list_set(c, test_notify_below(&r->seed, count), &value));
        else if (choice < 17) CHECK(ce_list_move(c, test_notify_below(&r->seed, count), test_notify_below(&r->seed, count)));
        else if (choice < 19) CHECK(ce_list_swap(c, test_notify_below(&r->seed, count), test_notify_below(&r->seed, count)));
        else if (test_notify_below(&r->seed, 3) == 0) CHECK(ce_collection_clear(c));
    }
    ce_collection_close(c);
    if (r->column == f->dogs && test_notify_below(&r->seed, 3) == 0) {
        ce_value age = {.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&r->seed, 20)};
        CHECK(ce_object_set(w, f->dog, f->dog_keys[test_notify_below(&r->seed, 6)], f->dog_age, &age));
    }
}

/* Random operation sequences over one to three commits, on lists of
 * values, of links (with dogs changing) and nested in a mixed value. */
TEST(db_random_list_changes)
{
    fixture f = fixture_open("collchanges-random");
    from_snapshots = false;
    random_edits r = {0xD0C5, 0};
    ce_column_key columns[3] = {f.scores, f.dogs, f.any};
    for (int round = 0; round < 150; round++) {
        r.column = columns[round % 3];
        bool used;
        /* Every other round by comparing the contents. */
        from_snapshots = round % 2 == 1;
        ce_collection_change change =
            list_change(&f, f.ada, r.column, edit_random, &r, 1 + (int)test_notify_below(&r.seed, 3), NULL, 0, &used);
        ce_collection_change_free(&change);
    }
    from_snapshots = false;
    fixture_close(&f);
}

static void rename_dog(fixture *f, ce_txn *w, void *context)
{
    const int *which = context;
    ce_value name = str("Renamed");
    CHECK(ce_object_set(w, f->dog, f->dog_keys[which[0]], which[1] ? f->dog_age : f->dog_name,
                        which[1] ? &(ce_value){.type = CE_TYPE_INT, .integer = 7} : &name));
}

/* A linked object that changed is a modification of its element, as the
 * key-path filter sees it. */
TEST(db_links_to_changed_objects)
{
    fixture f = fixture_open("collchanges-links");
    bool used;
    int rename_second[2] = {1, 0}, age_of_third[2] = {2, 1}, rename_unlisted[2] = {5, 0};
    ce_collection_change change = list_change(&f, f.ada, f.dogs, rename_dog, rename_second, 1, NULL, 0, &used);
    check_list(change.modifications, change.modification_count, LIST(1), 1);
    check_list(change.modifications_new, change.modification_new_count, LIST(1), 1);
    CHECK(change.deletion_count == 0 && change.insertion_count == 0);
    ce_collection_change_free(&change);
    /* Filtered on "age": a rename is no change, an age is. */
    const char *age_path[] = {"age"};
    change = list_change(&f, f.ada, f.dogs, rename_dog, rename_second, 1, age_path, 1, &used);
    CHECK(change.modification_count == 0);
    ce_collection_change_free(&change);
    change = list_change(&f, f.ada, f.dogs, rename_dog, age_of_third, 1, age_path, 1, &used);
    check_list(change.modifications, change.modification_count, LIST(2), 1);
    ce_collection_change_free(&change);
    /* A dog the list does not hold. */
    change = list_change(&f, f.ada, f.dogs, rename_dog, rename_unlisted, 1, NULL, 0, &used);
    CHECK(change.modification_count == 0 && change.deletion_count == 0 && change.insertion_count == 0);
    ce_collection_change_free(&change);
    fixture_close(&f);
}

static void edit_city(fixture *f, ce_txn *w, void *context)
{
    (void)context;
    ce_collection *c;
    CHECK(ce_collection_open(w, f->person, f->ada, f->addresses, &c));
    ce_value second;
    CHECK(ce_collection_get(c, 1, &second));
    ce_value city = str("Kyiv");
    CHECK(ce_object_set(w, f->address, second.link.key, f->city, &city));
    ce_object_key added;
    CHECK(ce_list_insert_embedded(c, 0, &added));
    ce_collection_close(c);
}

/* A list of embedded objects: one changed, one added. */
TEST(db_embedded_list)
{
    fixture f = fixture_open("collchanges-embedded");
    bool used;
    ce_collection_change change = list_change(&f, f.ada, f.addresses, edit_city, NULL, 1, NULL, 0, &used);
    check_list(change.insertions, change.insertion_count, LIST(0), 1);
    check_list(change.modifications, change.modification_count, LIST(1), 1);
    check_list(change.modifications_new, change.modification_new_count, LIST(2), 1);
    CHECK(change.deletion_count == 0);
    ce_collection_change_free(&change);
    fixture_close(&f);
}

static void delete_owner(fixture *f, ce_txn *w, void *context)
{
    (void)context;
    CHECK(ce_object_delete(w, f->person, f->ada));
}

/* The object deleted: every old element deleted, collection_deleted; the
 * same for a dictionary. */
TEST(db_owner_deleted)
{
    fixture f = fixture_open("collchanges-owner");
    bool used;
    ce_collection_change change = list_change(&f, f.ada, f.dogs, delete_owner, NULL, 1, NULL, 0, &used);
    CHECK(change.collection_deleted);
    check_list(change.deletions, change.deletion_count, LIST(0, 1, 2, 3), 4);
    CHECK(change.insertion_count == 0 && change.modification_count == 0);
    ce_collection_change_free(&change);
    fixture_close(&f);

    f = fixture_open("collchanges-owner-dict");
    ce_txn *before, *after, *w;
    CHECK(ce_txn_begin_read(f.t.db, &before));
    ce_collection *ratings;
    CHECK(ce_collection_open(before, f.person, f.ada, f.ratings, &ratings));
    CHECK(ce_txn_begin_write(f.t.db, &w));
    CHECK(ce_object_delete(w, f.person, f.ada));
    CHECK(ce_txn_commit(w));
    CHECK(ce_txn_begin_read(f.t.db, &after));
    ce_changes *changes;
    CHECK(ce_changes_compute(before, after, &changes));
    ce_dictionary_change dchange;
    CHECK(ce_changes_dictionary(changes, ratings, NULL, &dchange));
    CHECK(dchange.collection_deleted && dchange.deletion_count == 3 && dchange.insertion_count == 0);
    ce_dictionary_change_free(&dchange);
    ce_collection_close(ratings);
    ce_changes_free(changes);
    ce_txn_end(before);
    ce_txn_end(after);
    fixture_close(&f);
}

/* An object created in between: every element inserted. */
TEST(db_owner_inserted)
{
    fixture f = fixture_open("collchanges-new-owner");
    ce_txn *before, *after, *w;
    CHECK(ce_txn_begin_read(f.t.db, &before));
    CHECK(ce_txn_begin_write(f.t.db, &w));
    ce_object_key bob;
    CHECK(ce_object_create(w, f.person, NULL, &bob));
    ce_collection *c;
    CHECK(ce_collection_open(w, f.person, bob, f.scores, &c));
    CHECK(ce_list_insert(c, 0, &(ce_value){.type = CE_TYPE_INT, .integer = 5}));
    CHECK(ce_list_insert(c, 1, &(ce_value){.type = CE_TYPE_INT, .integer = 6}));
    ce_collection_close(c);
    CHECK(ce_txn_commit(w));
    CHECK(ce_txn_begin_read(f.t.db, &after));
    ce_changes *changes;
    CHECK(ce_changes_compute(before, after, &changes));
    CHECK(ce_collection_open(after, f.person, bob, f.scores, &c));
    ce_collection_change change;
    CHECK(ce_changes_collection(changes, c, NULL, &change));
    check_list(change.insertions, change.insertion_count, LIST(0, 1), 2);
    CHECK(change.deletion_count == 0 && !change.collection_deleted);
    ce_collection_change_free(&change);
    ce_collection_close(c);
    ce_changes_free(changes);
    ce_txn_end(before);
    ce_txn_end(after);
    fixture_close(&f);
}

static void edit_tags(fixture *f, ce_txn *w, void *context)
{
    (void)context;
    ce_collection *c;
    CHECK(ce_collection_open(w, f->person, f->ada, f->tags, &c));
    bool changed;
    CHECK(ce_set_insert(c, STR("a"), &changed) && changed);
    CHECK(ce_set_erase(c, STR("d"), &changed) && changed);
    CHECK(ce_set_insert(c, STR("e"), &changed) && changed);
    CHECK(ce_set_insert(c, STR("b"), &changed) && !changed);
    ce_collection_close(c);
}

TEST(db_set)
{
    fixture f = fixture_open("collchanges-set");
    bool used;
    /* {b d f} -> {a b e f} */
    ce_collection_change change = list_change(&f, f.ada, f.tags, edit_tags, NULL, 1, NULL, 0, &used);
    check_list(change.deletions, change.deletion_count, LIST(1), 1);
    check_list(change.insertions, change.insertion_count, LIST(0, 2), 2);
    CHECK(change.modification_count == 0);
    ce_collection_change_free(&change);
    fixture_close(&f);
}

static void edit_dictionaries(fixture *f, ce_txn *w, void *context)
{
    (void)context;
    ce_collection *c;
    CHECK(ce_collection_open(w, f->person, f->ada, f->ratings, &c));
    bool erased;
    CHECK(ce_dictionary_erase(c, "x", 1, &erased) && erased);
    CHECK(ce_dictionary_set(c, "y", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 20}));
    CHECK(ce_dictionary_set(c, "w", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 0}));
    ce_collection_close(c);
    /* pets: q's dog renamed, a new key. */
    ce_value name = str("Fido II");
    CHECK(ce_object_set(w, f->dog, f->dog_keys[1], f->dog_name, &name));
    CHECK(ce_collection_open(w, f->person, f->ada, f->pets, &c));
    CHECK(ce_dictionary_set(c, "r", 1, &(ce_value){.type = CE_TYPE_LINK, .link = {f->dog, f->dog_keys[2]}}));
    ce_collection_close(c);
}

static void check_dict_keys(const ce_value *keys, size_t count, const char *want)
{
    CHECK(count == strlen(want));
    for (size_t i = 0; i < count; i++) CHECK(keys[i].string.size == 1 && keys[i].string.data[0] == want[i]);
}

TEST(db_dictionaries)
{
    fixture f = fixture_open("collchanges-dict");
    ce_txn *before, *after, *w;
    CHECK(ce_txn_begin_read(f.t.db, &before));
    CHECK(ce_txn_begin_write(f.t.db, &w));
    edit_dictionaries(&f, w, NULL);
    CHECK(ce_txn_commit(w));
    CHECK(ce_txn_begin_read(f.t.db, &after));
    ce_changes *changes;
    CHECK(ce_changes_compute(before, after, &changes));
    ce_collection *ratings, *pets;
    CHECK(ce_collection_open(after, f.person, f.ada, f.ratings, &ratings));
    CHECK(ce_collection_open(before, f.person, f.ada, f.pets, &pets));
    ce_dictionary_change change;
    CHECK(ce_changes_dictionary(changes, ratings, NULL, &change));
    check_dict_keys(change.deletions, change.deletion_count, "x");
    check_dict_keys(change.insertions, change.insertion_count, "w");
    check_dict_keys(change.modifications, change.modification_count, "y");
    ce_dictionary_change_free(&change);
    CHECK(ce_changes_dictionary(changes, pets, NULL, &change));
    CHECK(change.deletion_count == 0);
    check_dict_keys(change.insertions, change.insertion_count, "r");
    check_dict_keys(change.modifications, change.modification_count, "q");
    ce_dictionary_change_free(&change);
    /* Wrong calls. */
    ce_collection_change list_change_out;
    CHECK(!ce_changes_collection(changes, ratings, NULL, &list_change_out));
    CHECK(ce_last_error_code() == CE_ERR_WRONG_TYPE);
    ce_collection *scores;
    CHECK(ce_collection_open(after, f.person, f.ada, f.scores, &scores));
    CHECK(!ce_changes_dictionary(changes, scores, NULL, &change));
    CHECK(ce_last_error_code() == CE_ERR_WRONG_TYPE);
    CHECK(!ce_changes_collection(NULL, scores, NULL, &list_change_out));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_changes_dictionary(changes, NULL, NULL, &change));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_collection_close(scores);
    ce_collection_close(ratings);
    ce_collection_close(pets);
    ce_changes_free(changes);
    ce_txn_end(before);
    ce_txn_end(after);
    fixture_close(&f);
}

static bool key_listed(const ce_value *keys, size_t count, const ce_value *key)
{
    for (size_t i = 0; i < count; i++)
        if (test_same_value(&keys[i], key)) return true;
    return false;
}

/* Random edits of both dictionaries (values set, set again, erased, dogs
 * renamed) over one or two commits: the old keys less the deletions plus
 * the insertions are the new keys, and a key in both versions whose value
 * differs is a modification. */
TEST(db_random_dictionary_changes)
{
    fixture f = fixture_open("collchanges-random-dict");
    uint64_t seed = 0xD1C7;
    static const char *const keys[6] = {"a", "b", "p", "q", "x", "y"};
    for (int round = 0; round < 120; round++) {
        ce_column_key column = round % 2 ? f.pets : f.ratings;
        ce_txn *before, *after, *w;
        CHECK(ce_txn_begin_read(f.t.db, &before));
        snapshot old_snapshot = take(before, &f, f.ada, column);
        for (int c = 1 + (int)test_notify_below(&seed, 2); c > 0; c--) {
            CHECK(ce_txn_begin_write(f.t.db, &w));
            ce_collection *d;
            CHECK(ce_collection_open(w, f.person, f.ada, column, &d));
            for (size_t k = 1 + test_notify_below(&seed, 4); k > 0; k--) {
                const char *key = keys[test_notify_below(&seed, 6)];
                ce_value value = column == f.pets
                                     ? (ce_value){.type = CE_TYPE_LINK, .link = {f.dog, f.dog_keys[test_notify_below(&seed, 6)]}}
                                     : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&seed, 4)};
                if (test_notify_below(&seed, 3) == 0) CHECK(ce_dictionary_erase(d, key, 1, NULL));
                else CHECK(ce_dictionary_set(d, key, 1, &value));
            }
            ce_collection_close(d);
            if (test_notify_below(&seed, 3) == 0) {
                ce_value age = {.type = CE_TYPE_INT, .integer = (int64_t)test_notify_below(&seed, 30)};
                CHECK(ce_object_set(w, f.dog, f.dog_keys[test_notify_below(&seed, 6)], f.dog_age, &age));
            }
            CHECK(ce_txn_commit(w));
        }
        CHECK(ce_txn_begin_read(f.t.db, &after));
        snapshot new_snapshot = take(after, &f, f.ada, column);
        ce_changes *changes;
        CHECK(ce_changes_compute(before, after, &changes));
        ce_collection *d;
        CHECK(ce_collection_open(after, f.person, f.ada, column, &d));
        ce_dictionary_change change;
        CHECK(ce_changes_dictionary(changes, d, NULL, &change));
        ce_collection_close(d);
        for (size_t i = 0; i < old_snapshot.count; i++) {
            const ce_value *key = &old_snapshot.values[i];
            bool deleted = key_listed(change.deletions, change.deletion_count, key);
            CHECK(deleted == !key_listed(new_snapshot.values, new_snapshot.count, key));
        }
        for (size_t j = 0; j < new_snapshot.count; j++) {
            const ce_value *key = &new_snapshot.values[j];
            size_t old_index = SIZE_MAX;
            for (size_t i = 0; i < old_snapshot.count; i++)
                if (test_same_value(&old_snapshot.values[i], key)) old_index = i;
            CHECK(key_listed(change.insertions, change.insertion_count, key) == (old_index == SIZE_MAX));
            bool modified = key_listed(change.modifications, change.modification_count, key);
            if (old_index == SIZE_MAX) {
                CHECK(!modified);
                continue;
            }
            const ce_value *new_value = &new_snapshot.dict_values[j];
            if (!test_same_value(&old_snapshot.dict_values[old_index], new_value)) CHECK(modified);
            else if (new_value->type == CE_TYPE_LINK) {
                /* The same dog: modified when it changed, or its key was set again. */
                bool changed;
                CHECK(key_path_filter_matches(changes, NULL, f.dog, new_value->link.key, &changed));
                if (changed) CHECK(modified);
            }
        }
        CHECK(old_snapshot.count - change.deletion_count + change.insertion_count == new_snapshot.count);
        ce_dictionary_change_free(&change);
        ce_changes_free(changes);
        ce_txn_end(before);
        ce_txn_end(after);
        snapshot_free(&old_snapshot);
        snapshot_free(&new_snapshot);
    }
    fixture_close(&f);
}

/* ------------------------------------------------------------------------ */
/* Found by fuzz_ops                                                        */
/* ------------------------------------------------------------------------ */

/* The elements of a collection as `txn` reads them (strings copied). */
static snapshot take_handle(const ce_collection *c)
{
    snapshot s;
    memset(&s, 0, sizeof s);
    s.present = true;
    CHECK(ce_collection_size(c, &s.count));
    s.values = calloc(s.count + 1, sizeof *s.values);
    for (size_t i = 0; i < s.count; i++) {
        ce_value v;
        CHECK(ce_collection_get(c, i, &v));
        s.values[i] = copy_value(v);
    }
    return s;
}

/* A collection of a table (or a property) added in between is new: every
 * element inserted; one removed in between is gone (collection_deleted).
 * Both used to fail with "no table with key ...". */
TEST(db_collection_of_added_or_removed_table)
{
    for (int pass = 0; pass < 2; pass++) {
        test_db t = test_db_open(pass ? "coll_added_table_snap" : "coll_added_table");
        ce_txn *before, *after, *w;
        CHECK(ce_txn_begin_read(t.db, &before));
        CHECK(ce_txn_begin_write(t.db, &w));
        ce_table_key table;
        ce_column_key column;
        ce_object_key object;
        CHECK(ce_table_add(w, "Bag", &table));
        column = add_property(w, table, (ce_property_info){.name = "items", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST});
        CHECK(ce_object_create(w, table, NULL, &object));
        ce_collection *c;
        CHECK(ce_collection_open(w, table, object, column, &c));
        for (int i = 0; i < 3; i++) CHECK(ce_list_insert(c, (size_t)i, &(ce_value){.type = CE_TYPE_INT, .integer = i}));
        ce_collection_close(c);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(t.db, &after));
        ce_changes *changes;
        CHECK(pass ? changes_compute_from_snapshots(before, after, &changes) : ce_changes_compute(before, after, &changes));
        CHECK(ce_collection_open(after, table, object, column, &c));
        ce_collection_change change;
        CHECK(ce_changes_collection(changes, c, NULL, &change));
        CHECK(change.insertion_count == 3 && change.deletion_count == 0 && !change.collection_deleted);
        ce_collection_change_free(&change);
        ce_collection_close(c);
        ce_changes_free(changes);
        ce_txn_end(before);
        /* Removed: the property, then the table. */
        for (int removal = 0; removal < 2; removal++) {
            CHECK(ce_txn_begin_write(t.db, &w));
            CHECK(removal ? ce_table_remove(w, table) : ce_property_remove(w, table, column));
            CHECK(ce_txn_commit(w));
            ce_txn *latest;
            CHECK(ce_txn_begin_read(t.db, &latest));
            CHECK(pass ? changes_compute_from_snapshots(after, latest, &changes) : ce_changes_compute(after, latest, &changes));
            CHECK(ce_collection_open(after, table, object, column, &c));
            CHECK(ce_changes_collection(changes, c, NULL, &change));
            CHECK(change.deletion_count == 3 && change.insertion_count == 0 && change.collection_deleted);
            ce_collection_change_free(&change);
            ce_collection_close(c);
            ce_changes_free(changes);
            ce_txn_end(latest);
            if (removal == 0) {
                /* Again with the property back, to remove the table. */
                CHECK(ce_txn_begin_write(t.db, &w));
                column = add_property(w, table, (ce_property_info){.name = "items", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST});
                CHECK(ce_collection_open(w, table, object, column, &c));
                for (int i = 0; i < 3; i++) CHECK(ce_list_insert(c, (size_t)i, &(ce_value){.type = CE_TYPE_INT, .integer = i}));
                ce_collection_close(c);
                CHECK(ce_txn_commit(w));
                ce_txn_end(after);
                CHECK(ce_txn_begin_read(t.db, &after));
            }
        }
        ce_txn_end(after);
        test_db_close(&t);
    }
}

/* A list nested in a mixed list is named by its index: an element
 * inserted before it in the same commit moves it to another index, and
 * the operations made at the old index belong to another collection than
 * the one now at that index. any = [[a, d], [b, c]]; one commit sets
 * any[1][0] = z, then inserts a list at any[0]: any[1] is now [a, d] (was
 * [b, c]); the change set of any[1] must turn [b, c] into [a, d]. */
TEST(db_nested_list_shifted_by_an_insert_before_it)
{
    for (int pass = 0; pass < 2; pass++) {
        fixture f = fixture_open(pass ? "coll_nested_shift_snap" : "coll_nested_shift");
        ce_txn *w, *before, *after;
        CHECK(ce_txn_begin_write(f.t.db, &w));
        CHECK(ce_object_set(w, f.person, f.ada, f.any, &(ce_value){.type = CE_TYPE_LIST}));
        ce_collection *any, *inner;
        CHECK(ce_collection_open_mixed(w, f.person, f.ada, f.any, &any));
        const char *const values[2][2] = {{"a", "d"}, {"b", "c"}};
        for (int i = 0; i < 2; i++) {
            CHECK(ce_list_insert(any, (size_t)i, &(ce_value){.type = CE_TYPE_LIST}));
            CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = i}, &inner));
            for (int k = 0; k < 2; k++) {
                ce_value v = str(values[i][k]);
                CHECK(ce_list_insert(inner, (size_t)k, &v));
            }
            ce_collection_close(inner);
        }
        ce_collection_close(any);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(f.t.db, &before));
        CHECK(ce_txn_begin_write(f.t.db, &w));
        CHECK(ce_collection_open_mixed(w, f.person, f.ada, f.any, &any));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 1}, &inner));
        CHECK(ce_list_set(inner, 0, STR("z")));
        ce_collection_close(inner);
        CHECK(ce_list_insert(any, 0, &(ce_value){.type = CE_TYPE_LIST}));
        ce_collection_close(any);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(f.t.db, &after));
        ce_changes *changes;
        CHECK(pass ? changes_compute_from_snapshots(before, after, &changes) : ce_changes_compute(before, after, &changes));
        CHECK(ce_changes_used_history(changes) == !pass);
        ce_collection *old_inner, *new_inner;
        CHECK(ce_collection_open_mixed(before, f.person, f.ada, f.any, &any));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 1}, &old_inner));
        ce_collection_close(any);
        CHECK(ce_collection_open_mixed(after, f.person, f.ada, f.any, &any));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 1}, &new_inner));
        ce_collection_close(any);
        snapshot old_snapshot = take_handle(old_inner), new_snapshot = take_handle(new_inner);
        ce_collection_change change;
        CHECK(ce_changes_collection(changes, new_inner, NULL, &change));
        test_apply_check(old_snapshot.values, old_snapshot.count, new_snapshot.values, new_snapshot.count, &change);
        ce_collection_change_free(&change);
        snapshot_free(&old_snapshot);
        snapshot_free(&new_snapshot);
        ce_collection_close(old_inner);
        ce_collection_close(new_inner);
        ce_changes_free(changes);
        ce_txn_end(before);
        ce_txn_end(after);
        fixture_close(&f);
    }
}

/* An element set from 0.0 to -0.0 (equal as numbers, another value bit
 * for bit, as the object's change set counts it) is modified, from the
 * history and by comparing contents; a set's and a dictionary's too. */
TEST(db_negative_zero_is_a_change)
{
    for (int pass = 0; pass < 2; pass++) {
        test_db t = test_db_open(pass ? "coll_negative_zero_snap" : "coll_negative_zero");
        ce_txn *w, *before, *after;
        ce_table_key table;
        ce_object_key object;
        CHECK(ce_txn_begin_write(t.db, &w));
        CHECK(ce_table_add(w, "Box", &table));
        ce_column_key list = add_property(w, table, (ce_property_info){.name = "reals", .type = CE_TYPE_DOUBLE, .collection = CE_COLLECTION_LIST});
        ce_column_key dict = add_property(w, table, (ce_property_info){.name = "named", .type = CE_TYPE_DOUBLE, .collection = CE_COLLECTION_DICTIONARY});
        CHECK(ce_object_create(w, table, NULL, &object));
        ce_collection *c;
        CHECK(ce_collection_open(w, table, object, list, &c));
        for (int i = 0; i < 3; i++) CHECK(ce_list_insert(c, (size_t)i, &(ce_value){.type = CE_TYPE_DOUBLE, .double_value = i}));
        ce_collection_close(c);
        CHECK(ce_collection_open(w, table, object, dict, &c));
        CHECK(ce_dictionary_set(c, "a", 1, &(ce_value){.type = CE_TYPE_DOUBLE, .double_value = 0.0}));
        ce_collection_close(c);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(t.db, &before));
        CHECK(ce_txn_begin_write(t.db, &w));
        CHECK(ce_collection_open(w, table, object, list, &c));
        CHECK(ce_list_set(c, 0, &(ce_value){.type = CE_TYPE_DOUBLE, .double_value = -0.0}));
        ce_collection_close(c);
        CHECK(ce_collection_open(w, table, object, dict, &c));
        CHECK(ce_dictionary_set(c, "a", 1, &(ce_value){.type = CE_TYPE_DOUBLE, .double_value = -0.0}));
        ce_collection_close(c);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(t.db, &after));
        ce_changes *changes;
        CHECK(pass ? changes_compute_from_snapshots(before, after, &changes) : ce_changes_compute(before, after, &changes));
        ce_object_change_kind kind;
        CHECK(ce_changes_object(changes, table, object, &kind, NULL, 0, NULL) && kind == CE_OBJECT_MODIFIED);
        CHECK(ce_collection_open(after, table, object, list, &c));
        ce_collection_change change;
        CHECK(ce_changes_collection(changes, c, NULL, &change));
        CHECK(change.deletion_count == 0 && change.insertion_count == 0);
        CHECK(change.modification_count == 1 && change.modifications[0] == 0 && change.modifications_new[0] == 0);
        ce_collection_change_free(&change);
        ce_collection_close(c);
        CHECK(ce_collection_open(after, table, object, dict, &c));
        ce_dictionary_change dictionary_change;
        CHECK(ce_changes_dictionary(changes, c, NULL, &dictionary_change));
        CHECK(dictionary_change.modification_count == 1 && dictionary_change.deletion_count == 0 &&
              dictionary_change.insertion_count == 0);
        ce_dictionary_change_free(&dictionary_change);
        ce_collection_close(c);
        ce_changes_free(changes);
        ce_txn_end(before);
        ce_txn_end(after);
        test_db_close(&t);
    }
    /* A set by contents: the merge keeps equal values, set when they differ
     * in bits. */
    ce_value old_values[2] = {{.type = CE_TYPE_DOUBLE, .double_value = 0.0}, {.type = CE_TYPE_DOUBLE, .double_value = 1.0}};
    ce_value new_values[2] = {{.type = CE_TYPE_DOUBLE, .double_value = -0.0}, {.type = CE_TYPE_DOUBLE, .double_value = 1.0}};
    collection_origin origin;
    CHECK(collection_origin_from_values(old_values, 2, new_values, 2, true, true, &origin));
    ce_collection_change change;
    CHECK(collection_change_build(&origin, NULL, NULL, &change));
    CHECK(change.modification_count == 1 && change.modifications[0] == 0 && change.deletion_count == 0);
    ce_collection_change_free(&change);
    collection_origin_free(&origin);
}

/* A mixed list element that held a dictionary and now holds a list (or
 * the reverse) at the same path: the list is new (every element
 * inserted), not a change of the dictionary's values. */
TEST(db_nested_collection_of_the_other_kind)
{
    for (int pass = 0; pass < 2; pass++) {
        fixture f = fixture_open(pass ? "coll_other_kind_snap" : "coll_other_kind");
        ce_txn *w, *before, *after;
        ce_collection *any, *inner;
        CHECK(ce_txn_begin_write(f.t.db, &w));
        CHECK(ce_object_set(w, f.person, f.ada, f.any, &(ce_value){.type = CE_TYPE_LIST}));
        CHECK(ce_collection_open_mixed(w, f.person, f.ada, f.any, &any));
        CHECK(ce_list_insert(any, 0, &(ce_value){.type = CE_TYPE_DICTIONARY}));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 0}, &inner));
        CHECK(ce_dictionary_set(inner, "a", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 1}));
        CHECK(ce_dictionary_set(inner, "b", 1, &(ce_value){.type = CE_TYPE_INT, .integer = 2}));
        ce_collection_close(inner);
        ce_collection_close(any);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(f.t.db, &before));
        CHECK(ce_txn_begin_write(f.t.db, &w));
        CHECK(ce_collection_open_mixed(w, f.person, f.ada, f.any, &any));
        CHECK(ce_list_insert(any, 0, &(ce_value){.type = CE_TYPE_LIST}));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 0}, &inner));
        for (int i = 0; i < 2; i++) CHECK(ce_list_insert(inner, (size_t)i, &(ce_value){.type = CE_TYPE_INT, .integer = 7}));
        ce_collection_close(inner);
        ce_collection_close(any);
        CHECK(ce_txn_commit(w));
        CHECK(ce_txn_begin_read(f.t.db, &after));
        ce_changes *changes;
        CHECK(pass ? changes_compute_from_snapshots(before, after, &changes) : ce_changes_compute(before, after, &changes));
        CHECK(ce_collection_open_mixed(after, f.person, f.ada, f.any, &any));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 0}, &inner));
        ce_collection_close(any);
        ce_collection_change change;
        CHECK(ce_changes_collection(changes, inner, NULL, &change));
        CHECK(change.insertion_count == 2 && change.deletion_count == 0 && change.modification_count == 0);
        CHECK(!change.collection_deleted);
        ce_collection_change_free(&change);
        ce_collection_close(inner);
        /* The dictionary, now at index 1, as seen from the old version: at
         * index 0 the new version holds a list, so the dictionary there is gone. */
        CHECK(ce_collection_open_mixed(before, f.person, f.ada, f.any, &any));
        CHECK(ce_collection_open_nested(any, &(ce_value){.type = CE_TYPE_INT, .integer = 0}, &inner));
        ce_collection_close(any);
        ce_dictionary_change dictionary_change;
        CHECK(ce_changes_dictionary(changes, inner, NULL, &dictionary_change));
        CHECK(dictionary_change.deletion_count == 2 && dictionary_change.insertion_count == 0);
        CHECK(dictionary_change.collection_deleted);
        ce_dictionary_change_free(&dictionary_change);
        ce_collection_close(inner);
        ce_changes_free(changes);
        ce_txn_end(before);
        ce_txn_end(after);
        fixture_close(&f);
    }
}
