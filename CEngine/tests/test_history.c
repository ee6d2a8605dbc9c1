/*
 * test_history.c — the change history (objects/history.c): every kind of
 * change recorded (objects inserted, deleted, modified per property type,
 * links, each list, set and dictionary op, nested mixed collections,
 * embedded cascades, create_or_update, bulk inserts through the append
 * buffer, schema changes), merged across versions, read after a reopen and
 * by another handle, trimmed once no reader needs it, bounded while a
 * reader stays pinned, and damaged bytes answered with an error.
 *
 * Owns: the cases on the history and its merged delta.
 * Never: checks a delta against anything but the changes each case makes.
 */
#include "history.h"
#include "node.h"
#include "test_support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct people {
    ce_table_key person, dog;
    ce_column_key id, name, age, score, flag, when, blob, any, friend, dogs, tags, labels, dog_name;
} people;

static ce_column_key add_property(ce_txn *txn, ce_table_key table, ce_property_info info)
{
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

/* Person(id int primary key, name, age, score double, flag bool, when
 * timestamp, blob binary, any mixed, friend -> Person, dogs list of Dog,
 * tags set of string, labels dictionary of int); Dog(name). */
static people make_schema(ce_db *db)
{
    people s;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Person", &s.person));
    CHECK(ce_table_add(txn, "Dog", &s.dog));
    s.id = add_property(txn, s.person, (ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true});
    s.name = add_property(txn, s.person, (ce_property_info){.name = "name", .type = CE_TYPE_STRING});
    s.age = add_property(txn, s.person, (ce_property_info){.name = "age", .type = CE_TYPE_INT});
    s.score = add_property(txn, s.person, (ce_property_info){.name = "score", .type = CE_TYPE_DOUBLE});
    s.flag = add_property(txn, s.person, (ce_property_info){.name = "flag", .type = CE_TYPE_BOOL});
    s.when = add_property(txn, s.person, (ce_property_info){.name = "when", .type = CE_TYPE_TIMESTAMP});
    s.blob = add_property(txn, s.person, (ce_property_info){.name = "blob", .type = CE_TYPE_BINARY});
    s.any = add_property(txn, s.person, (ce_property_info){.name = "any", .type = CE_TYPE_MIXED});
    s.friend = add_property(txn, s.person, (ce_property_info){.name = "friend", .type = CE_TYPE_LINK, .nullable = true,
                                                              .link_target = s.person});
    s.dog_name = add_property(txn, s.dog, (ce_property_info){.name = "name", .type = CE_TYPE_STRING});
    s.dogs = add_property(txn, s.person, (ce_property_info){.name = "dogs", .type = CE_TYPE_LINK,
                                                            .collection = CE_COLLECTION_LIST, .link_target = s.dog});
    s.tags = add_property(txn, s.person,
                          (ce_property_info){.name = "tags", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_SET});
    s.labels = add_property(txn, s.person, (ce_property_info){.name = "labels", .type = CE_TYPE_INT,
                                                              .collection = CE_COLLECTION_DICTIONARY});
    CHECK(ce_txn_commit(txn));
    return s;
}

static ce_value int_value(int64_t value) { return (ce_value){.type = CE_TYPE_INT, .integer = value}; }

static ce_value string_value(const char *text)
{
    return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}};
}

static ce_object_key create_person(ce_txn *txn, const people *s, int64_t id)
{
    ce_value key = int_value(id);
    ce_object_key object;
    CHECK(ce_object_create(txn, s->person, &key, &object));
    return object;
}

static uint64_t latest_version(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    uint64_t version = ce_txn_version(txn);
    ce_txn_end(txn);
    return version;
}

/* The delta of (from, latest] read by a new read transaction; NULL if the
 * history does not cover it. */
static history_delta *delta_since(ce_db *db, uint64_t from)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    history_delta *delta;
    bool covered;
    CHECK(history_delta_load(txn, from, &delta, &covered));
    ce_txn_end(txn); /* the delta owns what it hands out */
    CHECK(covered == (delta != NULL));
    return delta;
}

static bool keys_equal(const ce_object_key *keys, size_t count, const ce_object_key *expected, size_t expected_count)
{
    if (count != expected_count) return false;
    for (size_t i = 0; i < count; i++)
        if (keys[i] != expected[i]) return false;
    return true;
}

#define KEYS(...) ((const ce_object_key[]){__VA_ARGS__}), (sizeof((const ce_object_key[]){__VA_ARGS__}) / sizeof(ce_object_key))
#define NO_KEYS NULL, 0

static void check_table(const history_delta *delta, ce_table_key table, const ce_object_key *deleted,
                        size_t deleted_count, const ce_object_key *inserted, size_t inserted_count,
                        const ce_object_key *modified, size_t modified_count)
{
    const history_table_changes *changes = history_delta_find_table(delta, table);
    CHECK(changes != NULL);
    CHECK(changes->table == table);
    if (!keys_equal(changes->deleted, changes->deleted_count, deleted, deleted_count) ||
        !keys_equal(changes->inserted, changes->inserted_count, inserted, inserted_count) ||
        !keys_equal(changes->modified, changes->modified_count, modified, modified_count)) {
        fprintf(stderr, "table %u: %zu deleted, %zu inserted, %zu modified; expected %zu, %zu, %zu\n", (unsigned)table,
                changes->deleted_count, changes->inserted_count, changes->modified_count, deleted_count, inserted_count,
                modified_count);
        CHECK(false);
    }
}

static void check_columns(const history_delta *delta, ce_table_key table, ce_object_key object,
                          const ce_column_key *expected, size_t expected_count)
{
    ce_column_key columns[32];
    size_t count;
    history_delta_object_columns(delta, table, object, columns, 32, &count);
    CHECK(count == expected_count);
    for (size_t i = 0; i < count; i++) {
        CHECK(columns[i] == expected[i]);
        CHECK(history_delta_column_changed(delta, table, object, columns[i]));
    }
}

#define COLUMNS(...) ((const ce_column_key[]){__VA_ARGS__}), (sizeof((const ce_column_key[]){__VA_ARGS__}) / sizeof(ce_column_key))

/* The ops recorded on an object's collection property (depth 0). */
static const history_collection_changes *collection_of(const history_delta *delta, ce_table_key table,
                                                       ce_object_key object, ce_column_key column)
{
    history_collection_id id = {table, object, column, 0, NULL};
    return history_delta_find_collection(delta, &id);
}

static void check_op(const history_op *op, history_op_kind kind, uint64_t a, uint64_t b, const char *key)
{
    CHECK(op->kind == kind);
    CHECK(op->a == a);
    CHECK(op->b == b);
    if (key) CHECK(op->key_size == strlen(key) && memcmp(op->key, key, op->key_size) == 0);
}

/* ------------------------------------------------------------------------ */
/* Cases                                                                    */
/* ------------------------------------------------------------------------ */

TEST(insert_modify_delete)
{
    test_db t = test_db_open("history-basic");
    people s = make_schema(t.db);
    uint64_t v0 = latest_version(t.db);
    ce_txn *txn, *pin;
    CHECK(ce_txn_begin_read(t.db, &pin)); /* keeps the history since v0 */
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 10), b = create_person(txn, &s, 11), c = create_person(txn, &s, 12);
    ce_value name = string_value("Ada");
    CHECK(ce_object_set(txn, s.person, a, s.name, &name)); /* inserted then modified: inserted */
    CHECK(ce_txn_commit(txn));
    uint64_t v1 = latest_version(t.db);
    CHECK(v1 == v0 + 1);

    history_delta *delta = delta_since(t.db, v0);
    CHECK(delta);
    CHECK(!history_delta_schema_changed(delta));
    CHECK(history_delta_table_count(delta) == 1);
    check_table(delta, s.person, NO_KEYS, KEYS(a, b, c), NO_KEYS);
    CHECK(history_delta_find_table(delta, s.dog) == NULL);
    ce_value key;
    bool found;
    CHECK(history_delta_primary_key(delta, s.person, b, &key, &found) && found && key.type == CE_TYPE_INT &&
          key.integer == 11);
    history_delta_free(delta);

    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value age = int_value(36);
    CHECK(ce_object_set(txn, s.person, a, s.age, &age));
    CHECK(ce_object_set(txn, s.person, b, s.name, &name));
    CHECK(ce_object_set(txn, s.person, b, s.age, &age));
    CHECK(ce_object_delete(txn, s.person, c));
    ce_object_key d = create_person(txn, &s, 13);
    ce_object_key e = create_person(txn, &s, 14);
    CHECK(ce_object_delete(txn, s.person, e)); /* inserted then deleted: absent */
    CHECK(ce_txn_commit(txn));

    delta = delta_since(t.db, v1);
    CHECK(delta);
    check_table(delta, s.person, KEYS(c), KEYS(d), KEYS(a, b));
    check_columns(delta, s.person, a, COLUMNS(s.age));
    check_columns(delta, s.person, b, COLUMNS(s.name, s.age));
    check_columns(delta, s.person, d, NULL, 0);
    CHECK(history_delta_primary_key(delta, s.person, c, &key, &found) && found && key.integer == 12);
    CHECK(history_delta_primary_key(delta, s.person, d, &key, &found) && found && key.integer == 13);
    history_delta_free(delta);

    /* Both versions merged: c inserted then deleted is absent; a and b
     * inserted then modified are inserted. */
    delta = delta_since(t.db, v0);
    CHECK(delta);
    check_table(delta, s.person, NO_KEYS, KEYS(a, b, d), NO_KEYS);
    history_delta_free(delta);

    /* No change at all: an empty delta, covered. */
    delta = delta_since(t.db, latest_version(t.db));
    CHECK(delta && history_delta_table_count(delta) == 0 && history_delta_collection_count(delta) == 0);
    history_delta_free(delta);
    ce_txn_end(pin);
    test_db_close(&t);
}

TEST(every_property_type)
{
    test_db t = test_db_open("history-types");
    people s = make_schema(t.db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1), b = create_person(txn, &s, 2);
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);

    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value values[] = {
        string_value("x"),
        int_value(5),
        {.type = CE_TYPE_DOUBLE, .double_value = 2.5},
        {.type = CE_TYPE_BOOL, .boolean = true},
        {.type = CE_TYPE_TIMESTAMP, .timestamp = {100, 5}},
        {.type = CE_TYPE_BINARY, .binary = {(const uint8_t *)"\x01\x02", 2}},
        string_value("mixed"),
        {.type = CE_TYPE_LINK, .link = {s.person, b}},
    };
    ce_column_key columns[] = {s.name, s.age, s.score, s.flag, s.when, s.blob, s.any, s.friend};
    for (size_t i = 0; i < sizeof columns / sizeof *columns; i++)
        CHECK(ce_object_set(txn, s.person, a, columns[i], &values[i]));
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, v);
    CHECK(delta);
    /* The link's target b gains a backlink: not a change of b. */
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    check_columns(delta, s.person, a, COLUMNS(s.name, s.age, s.score, s.flag, s.when, s.blob, s.any, s.friend));
    history_delta_free(delta);

    /* Deleting b nullifies a's link to it: a's friend changes. */
    v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_object_delete(txn, s.person, b));
    CHECK(ce_txn_commit(txn));
    delta = delta_since(t.db, v);
    check_table(delta, s.person, KEYS(b), NO_KEYS, KEYS(a));
    check_columns(delta, s.person, a, COLUMNS(s.friend));
    history_delta_free(delta);
    test_db_close(&t);
}

TEST(list_set_dictionary_ops)
{
    test_db t = test_db_open("history-collections");
    people s = make_schema(t.db);
    ce_txn *txn;
    ce_object_key dogs[4];
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    for (int i = 0; i < 4; i++) CHECK(ce_object_create(txn, s.dog, NULL, &dogs[i]));
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);

    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_collection *list, *set, *dictionary;
    CHECK(ce_collection_open(txn, s.person, a, s.dogs, &list));
    CHECK(ce_collection_open(txn, s.person, a, s.tags, &set));
    CHECK(ce_collection_open(txn, s.person, a, s.labels, &dictionary));
    for (int i = 0; i < 4; i++) {
        ce_value dog = {.type = CE_TYPE_LINK, .link = {s.dog, dogs[i]}};
        CHECK(ce_list_insert(list, (size_t)i, &dog));
    }
    ce_value dog0 = {.type = CE_TYPE_LINK, .link = {s.dog, dogs[0]}};
    CHECK(ce_list_set(list, 2, &dog0));
    CHECK(ce_list_move(list, 0, 3));
    CHECK(ce_list_swap(list, 1, 2));
    CHECK(ce_list_erase(list, 1));
    bool changed;
    ce_value tag_b = string_value("b"), tag_a = string_value("a"), tag_c = string_value("c");
    CHECK(ce_set_insert(set, &tag_b, &changed) && changed);
    CHECK(ce_set_insert(set, &tag_a, &changed) && changed); /* index 0: before "b" */
    CHECK(ce_set_insert(set, &tag_a, &changed) && !changed); /* no op */
    CHECK(ce_set_insert(set, &tag_c, &changed) && changed);
    CHECK(ce_set_erase(set, &tag_b, &changed) && changed);
    ce_value one = int_value(1), two = int_value(2);
    CHECK(ce_dictionary_set(dictionary, "k", 1, &one));
    CHECK(ce_dictionary_set(dictionary, "k", 1, &two));
    CHECK(ce_dictionary_set(dictionary, "j", 1, &one));
    bool erased;
    CHECK(ce_dictionary_erase(dictionary, "k", 1, &erased) && erased);
    CHECK(ce_collection_clear(set));
    ce_collection_close(list);
    ce_collection_close(set);
    ce_collection_close(dictionary);
    CHECK(ce_txn_commit(txn));

    history_delta *delta = delta_since(t.db, v);
    CHECK(delta);
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    check_columns(delta, s.person, a, COLUMNS(s.dogs, s.tags, s.labels));
    CHECK(history_delta_find_table(delta, s.dog) == NULL); /* backlinks only */
    CHECK(history_delta_collection_count(delta) == 3);
    const history_collection_changes *ops = collection_of(delta, s.person, a, s.dogs);
    CHECK(ops && ops->op_count == 8);
    for (uint64_t i = 0; i < 4; i++) check_op(&ops->ops[i], HISTORY_LIST_INSERT, i, 0, NULL);
    check_op(&ops->ops[4], HISTORY_LIST_SET, 2, 0, NULL);
    check_op(&ops->ops[5], HISTORY_LIST_MOVE, 0, 3, NULL);
    check_op(&ops->ops[6], HISTORY_LIST_SWAP, 1, 2, NULL);
    check_op(&ops->ops[7], HISTORY_LIST_ERASE, 1, 0, NULL);
    ops = collection_of(delta, s.person, a, s.tags);
    CHECK(ops && ops->op_count == 5);
    check_op(&ops->ops[0], HISTORY_SET_INSERT, 0, 0, NULL);
    check_op(&ops->ops[1], HISTORY_SET_INSERT, 0, 0, NULL);
    check_op(&ops->ops[2], HISTORY_SET_INSERT, 2, 0, NULL);
    check_op(&ops->ops[3], HISTORY_SET_ERASE, 1, 0, NULL);
    check_op(&ops->ops[4], HISTORY_CLEAR, 2, 0, NULL);
    ops = collection_of(delta, s.person, a, s.labels);
    CHECK(ops && ops->op_count == 4);
    check_op(&ops->ops[0], HISTORY_DICT_INSERT, 0, 0, "k");
    check_op(&ops->ops[1], HISTORY_DICT_SET, 0, 0, "k");
    check_op(&ops->ops[2], HISTORY_DICT_INSERT, 0, 0, "j");
    check_op(&ops->ops[3], HISTORY_DICT_ERASE, 0, 0, "k");
    CHECK(collection_of(delta, s.person, a, s.name) == NULL);
    history_delta_free(delta);

    /* Deleting a dog in the list: the list drops it (an erase at its index). */
    v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_collection_open(txn, s.person, a, s.dogs, &list));
    ce_value first;
    CHECK(ce_collection_get(list, 0, &first));
    ce_collection_close(list);
    CHECK(ce_object_delete(txn, s.dog, first.link.key));
    CHECK(ce_txn_commit(txn));
    delta = delta_since(t.db, v);
    check_table(delta, s.dog, KEYS(first.link.key), NO_KEYS, NO_KEYS);
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    ops = collection_of(delta, s.person, a, s.dogs);
    CHECK(ops && ops->op_count >= 1);
    for (size_t i = 0; i < ops->op_count; i++) CHECK(ops->ops[i].kind == HISTORY_LIST_ERASE);
    history_delta_free(delta);
    test_db_close(&t);
}

TEST(nested_mixed_collections)
{
    test_db t = test_db_open("history-nested");
    people s = make_schema(t.db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    ce_value list_value = {.type = CE_TYPE_LIST};
    CHECK(ce_object_set(txn, s.person, a, s.any, &list_value));
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);

    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_collection *list, *inner;
    CHECK(ce_collection_open_mixed(txn, s.person, a, s.any, &list));
    ce_value dictionary_value = {.type = CE_TYPE_DICTIONARY}, one = int_value(1), at = int_value(0);
    CHECK(ce_list_insert(list, 0, &one));
    CHECK(ce_list_insert(list, 0, &dictionary_value));
    CHECK(ce_collection_open_nested(list, &at, &inner));
    CHECK(ce_dictionary_set(inner, "key", 3, &one));
    history_path_step steps[4];
    history_collection_id inner_id;
    CHECK(history_collection_id_of(inner, steps, 4, &inner_id));
    CHECK(inner_id.depth == 1 && !inner_id.steps[0].by_key && inner_id.steps[0].index == 0);
    history_collection_id copy = inner_id;
    CHECK(history_collection_id_equal(&inner_id, &copy));
    ce_collection_close(inner);
    ce_collection_close(list);
    CHECK(ce_txn_commit(txn));

    history_delta *delta = delta_since(t.db, v);
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    check_columns(delta, s.person, a, COLUMNS(s.any));
    CHECK(history_delta_collection_count(delta) == 2);
    const history_collection_changes *ops = collection_of(delta, s.person, a, s.any);
    CHECK(ops && ops->op_count == 2);
    check_op(&ops->ops[0], HISTORY_LIST_INSERT, 0, 0, NULL);
    check_op(&ops->ops[1], HISTORY_LIST_INSERT, 0, 0, NULL);
    history_path_step step = {false, 0, NULL, 0};
    history_collection_id id = {s.person, a, s.any, 1, &step};
    ops = history_delta_find_collection(delta, &id);
    CHECK(ops && ops->op_count == 1);
    check_op(&ops->ops[0], HISTORY_DICT_INSERT, 0, 0, "key");
    CHECK(history_collection_id_equal(&ops->id, &id));
    history_delta_free(delta);

    /* The list's element 0 (the dictionary) set to a number: the
     * dictionary at [0] is cleared, then the list's element set. */
    v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_collection_open_mixed(txn, s.person, a, s.any, &list));
    CHECK(ce_list_set(list, 0, &one));
    ce_collection_close(list);
    CHECK(ce_txn_commit(txn));
    delta = delta_since(t.db, v);
    CHECK(history_delta_collection_count(delta) == 2);
    ops = history_delta_find_collection(delta, &id);
    CHECK(ops && ops->op_count == 1);
    check_op(&ops->ops[0], HISTORY_CLEAR, 1, 0, NULL);
    ops = collection_of(delta, s.person, a, s.any);
    CHECK(ops && ops->op_count == 1);
    check_op(&ops->ops[0], HISTORY_LIST_SET, 0, 0, NULL);
    history_delta_free(delta);

    /* The property set again: the list it held is cleared (a new, empty
     * dictionary takes its place). */
    v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_object_set(txn, s.person, a, s.any, &dictionary_value));
    CHECK(ce_txn_commit(txn));
    delta = delta_since(t.db, v);
    check_columns(delta, s.person, a, COLUMNS(s.any));
    ops = collection_of(delta, s.person, a, s.any);
    CHECK(ops && ops->op_count == 1);
    check_op(&ops->ops[0], HISTORY_CLEAR, 2, 0, NULL);
    history_delta_free(delta);
    test_db_close(&t);
}

TEST(embedded_cascade)
{
    test_db t = test_db_open("history-embedded");
    ce_txn *txn;
    ce_table_key parent, child;
    ce_column_key link, children, value;
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_add(txn, "Parent", &parent));
    CHECK(ce_table_add_embedded(txn, "Child", &child));
    value = add_property(txn, child, (ce_property_info){.name = "value", .type = CE_TYPE_INT});
    link = add_property(txn, parent, (ce_property_info){.name = "child", .type = CE_TYPE_LINK, .nullable = true,
                                                        .link_target = child});
    children = add_property(txn, parent, (ce_property_info){.name = "children", .type = CE_TYPE_LINK,
                                                            .collection = CE_COLLECTION_LIST, .link_target = child});
    ce_object_key p, c0, c1, c2;
    CHECK(ce_object_create(txn, parent, NULL, &p));
    CHECK(ce_object_create_embedded(txn, parent, p, link, &c0));
    ce_collection *list;
    CHECK(ce_collection_open(txn, parent, p, children, &list));
    CHECK(ce_list_insert_embedded(list, 0, &c1));
    CHECK(ce_list_insert_embedded(list, 1, &c2));
    ce_collection_close(list);
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);

    /* A changed embedded object; a replaced one (the old one deleted). */
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value seven = int_value(7);
    CHECK(ce_object_set(txn, child, c1, value, &seven));
    ce_object_key c3;
    CHECK(ce_object_create_embedded(txn, parent, p, link, &c3));
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, v);
    check_table(delta, child, KEYS(c0), KEYS(c3), KEYS(c1));
    check_table(delta, parent, NO_KEYS, NO_KEYS, KEYS(p));
    check_columns(delta, parent, p, COLUMNS(link));
    history_delta_free(delta);

    /* Deleting the parent deletes every embedded object. */
    v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_object_delete(txn, parent, p));
    CHECK(ce_txn_commit(txn));
    delta = delta_since(t.db, v);
    check_table(delta, parent, KEYS(p), NO_KEYS, NO_KEYS);
    check_table(delta, child, KEYS(c1, c2, c3), NO_KEYS, NO_KEYS);
    history_delta_free(delta);
    test_db_close(&t);
}

TEST(create_or_update)
{
    test_db t = test_db_open("history-upsert");
    people s = make_schema(t.db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    ce_value name = string_value("Ada");
    CHECK(ce_object_set(txn, s.person, a, s.name, &name));
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);

    CHECK(ce_txn_begin_write(t.db, &txn));
    size_t count;
    CHECK(ce_property_count(txn, s.person, &count));
    ce_value *values = calloc(count, sizeof *values);
    for (size_t c = 0; c < count; c++) values[c] = (ce_value){.type = CE_TYPE_NULL};
    values[s.id] = int_value(1);
    values[s.name] = string_value("Ada");
    values[s.age] = int_value(40);
    values[s.score] = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = 0};
    values[s.flag] = (ce_value){.type = CE_TYPE_BOOL, .boolean = false};
    values[s.when] = (ce_value){.type = CE_TYPE_TIMESTAMP};
    values[s.blob] = (ce_value){.type = CE_TYPE_BINARY};
    ce_object_key object;
    bool created;
    /* CE_UPDATE_MODIFIED: only age differs. */
    CHECK(ce_object_create_or_update(txn, s.person, values, count, CE_UPDATE_MODIFIED, &object, &created));
    CHECK(!created && object == a);
    values[s.id] = int_value(2);
    ce_object_key b;
    CHECK(ce_object_create_or_update(txn, s.person, values, count, CE_UPDATE_MODIFIED, &b, &created));
    CHECK(created);
    CHECK(ce_txn_commit(txn));
    free(values);
    history_delta *delta = delta_since(t.db, v);
    check_table(delta, s.person, NO_KEYS, KEYS(b), KEYS(a));
    check_columns(delta, s.person, a, COLUMNS(s.age));
    history_delta_free(delta);
    test_db_close(&t);
}

/* Objects created with values go through object.c's append buffer, a leaf
 * at a time: one range of keys, and primary keys that follow the keys
 * recorded as one offset. */
TEST(bulk_inserts)
{
    test_db t = test_db_open("history-bulk");
    ce_txn *txn;
    ce_table_key table, plain;
    ce_column_key id, name;
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_add(txn, "Item", &table));
    CHECK(ce_table_add(txn, "Plain", &plain));
    id = add_property(txn, table, (ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true});
    name = add_property(txn, table, (ce_property_info){.name = "name", .type = CE_TYPE_STRING});
    add_property(txn, plain, (ce_property_info){.name = "n", .type = CE_TYPE_INT});
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);
    enum { COUNT = 3000 };
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int64_t i = 0; i < COUNT; i++) {
        ce_value values[2] = {int_value(i + 100), string_value("x")};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &object));
        CHECK(object == i);
    }
    for (int64_t i = 0; i < COUNT; i++) {
        ce_value n = int_value(i);
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, plain, &n, 1, &object));
    }
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, v);
    const history_table_changes *changes = history_delta_find_table(delta, table);
    CHECK(changes && changes->inserted_count == COUNT && changes->deleted_count == 0 && changes->modified_count == 0);
    for (size_t i = 0; i < COUNT; i++) CHECK(changes->inserted[i] == (ce_object_key)i);
    changes = history_delta_find_table(delta, plain);
    CHECK(changes && changes->inserted_count == COUNT);
    ce_value key;
    bool found;
    CHECK(history_delta_primary_key(delta, table, 2999, &key, &found) && found && key.integer == 3099);
    CHECK(history_delta_primary_key(delta, plain, 5, &key, &found) && !found);
    history_delta_free(delta);

    /* One column set on every object: one range of keys. */
    v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value other = string_value("y");
    for (int64_t i = 0; i < COUNT; i++) CHECK(ce_object_set(txn, table, i, name, &other));
    CHECK(ce_txn_commit(txn));
    delta = delta_since(t.db, v);
    changes = history_delta_find_table(delta, table);
    CHECK(changes && changes->modified_count == COUNT && changes->inserted_count == 0);
    check_columns(delta, table, 1234, COLUMNS(name));
    CHECK(!history_delta_column_changed(delta, table, 1234, id));
    history_delta_free(delta);
    test_db_close(&t);
}

TEST(string_primary_keys)
{
    test_db t = test_db_open("history-string-keys");
    ce_txn *txn;
    ce_table_key table;
    ce_column_key code, n;
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_add(txn, "Code", &table));
    code = add_property(txn, table, (ce_property_info){.name = "code", .type = CE_TYPE_STRING, .primary_key = true});
    n = add_property(txn, table, (ce_property_info){.name = "n", .type = CE_TYPE_INT});
    ce_value key_a = string_value("alpha"), key_b = string_value("beta");
    ce_object_key a, b;
    CHECK(ce_object_create(txn, table, &key_a, &a));
    CHECK(ce_object_create(txn, table, &key_b, &b));
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value one = int_value(1);
    CHECK(ce_object_set(txn, table, a, n, &one));
    CHECK(ce_object_delete(txn, table, b));
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, v);
    check_table(delta, table, KEYS(b), NO_KEYS, KEYS(a));
    ce_value key;
    bool found;
    CHECK(history_delta_primary_key(delta, table, a, &key, &found) && found && key.type == CE_TYPE_STRING &&
          key.string.size == 5 && memcmp(key.string.data, "alpha", 5) == 0);
    CHECK(history_delta_primary_key(delta, table, b, &key, &found) && found && key.string.size == 4 &&
          memcmp(key.string.data, "beta", 4) == 0);
    (void)code;
    history_delta_free(delta);
    test_db_close(&t);
}

/* Found by fuzz_ops: an object deleted while its table had no primary key,
 * then a primary key added to the emptied table in the same commit. The
 * commit succeeds and names the object with a null primary key. */
TEST(primary_key_added_after_a_delete)
{
    test_db t = test_db_open("history-late-primary-key");
    ce_txn *txn;
    ce_table_key table;
    ce_object_key a;
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_add(txn, "Late", &table));
    add_property(txn, table, (ce_property_info){.name = "n", .type = CE_TYPE_INT});
    CHECK(ce_object_create(txn, table, NULL, &a));
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_object_delete(txn, table, a));
    add_property(txn, table, (ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true});
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, v);
    check_table(delta, table, KEYS(a), NO_KEYS, NO_KEYS);
    ce_value key;
    bool found;
    CHECK(history_delta_primary_key(delta, table, a, &key, &found) && found && key.type == CE_TYPE_NULL);
    history_delta_free(delta);
    test_db_close(&t);
}

TEST(schema_changes)
{
    test_db t = test_db_open("history-schema");
    people s = make_schema(t.db);
    uint64_t v = latest_version(t.db);
    ce_txn *txn, *pin;
    CHECK(ce_txn_begin_read(t.db, &pin)); /* keeps the history since v */
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key extra;
    CHECK(ce_table_add(txn, "Extra", &extra));
    ce_column_key column = add_property(txn, s.dog, (ce_property_info){.name = "age", .type = CE_TYPE_INT});
    CHECK(ce_property_remove(txn, s.person, s.score));
    add_property(txn, extra, (ce_property_info){.name = "code", .type = CE_TYPE_STRING, .primary_key = true});
    ce_value code = string_value("E1");
    ce_object_key e1;
    CHECK(ce_object_create(txn, extra, &code, &e1));
    CHECK(ce_txn_commit(txn));
    uint64_t middle = latest_version(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_remove(txn, extra)); /* its objects are deleted first, with their primary keys */
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, middle);
    check_table(delta, extra, KEYS(e1), NO_KEYS, NO_KEYS);
    ce_value key;
    bool found;
    CHECK(history_delta_primary_key(delta, extra, e1, &key, &found) && found && key.type == CE_TYPE_STRING &&
          key.string.size == 2 && memcmp(key.string.data, "E1", 2) == 0);
    history_delta_free(delta);
    delta = delta_since(t.db, v);
    check_table(delta, extra, NO_KEYS, NO_KEYS, NO_KEYS); /* created and deleted in the range */
    CHECK(history_delta_schema_changed(delta));
    CHECK(history_delta_schema_change_count(delta) == 5);
    const history_schema_change *change = history_delta_schema_change_at(delta, 0);
    CHECK(change->kind == HISTORY_TABLE_ADDED && change->table == extra);
    change = history_delta_schema_change_at(delta, 1);
    CHECK(change->kind == HISTORY_PROPERTY_ADDED && change->table == s.dog && change->column == column);
    change = history_delta_schema_change_at(delta, 2);
    CHECK(change->kind == HISTORY_PROPERTY_REMOVED && change->table == s.person && change->column == s.score);
    change = history_delta_schema_change_at(delta, 3);
    CHECK(change->kind == HISTORY_PROPERTY_ADDED && change->table == extra && change->column == 0);
    change = history_delta_schema_change_at(delta, 4);
    CHECK(change->kind == HISTORY_TABLE_REMOVED && change->table == extra);
    CHECK(history_delta_schema_change_at(delta, 5) == NULL);
    history_delta_free(delta);
    ce_txn_end(pin);
    test_db_close(&t);
}

/* The history is in the file: read after a reopen, and by a second handle. */
TEST(persisted_and_shared)
{
    test_db t = test_db_open("history-persisted");
    people s = make_schema(t.db);
    uint64_t v = latest_version(t.db);
    ce_db *other = test_open(t.path);
    ce_txn *reader;
    CHECK(ce_txn_begin_read(other, &reader)); /* pins v: its delta stays */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value age = int_value(3);
    CHECK(ce_object_set(txn, s.person, a, s.age, &age));
    CHECK(ce_txn_commit(txn));

    CHECK(ce_txn_advance(reader));
    history_delta *delta;
    bool covered;
    CHECK(history_delta_load(reader, v, &delta, &covered) && covered);
    check_table(delta, s.person, NO_KEYS, KEYS(a), NO_KEYS);
    history_delta_free(delta);
    CHECK(history_delta_load(reader, v + 1, &delta, &covered) && covered);
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    history_delta_free(delta);
    /* A version newer than the transaction's is refused. */
    CHECK(!history_delta_load(reader, v + 5, &delta, &covered));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(ce_txn_begin_read_at(other, v + 2, &txn));
    ce_txn_end(txn);
    /* Closing every handle keeps what the last commit left. */
    ce_txn_end(reader);
    CHECK(ce_db_close(other));
    CHECK(ce_db_close(t.db));
    t.db = test_open(t.path);
    delta = delta_since(t.db, v + 1);
    CHECK(delta);
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    check_columns(delta, s.person, a, COLUMNS(s.age));
    history_delta_free(delta);
    test_db_close(&t);
}

/* db_txn_flush_layer runs the before-commit call early: the entry it
 * wrote is replaced by the commit's, which holds every change. */
TEST(flush_then_commit)
{
    test_db t = test_db_open("history-flush");
    people s = make_schema(t.db);
    uint64_t v = latest_version(t.db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    CHECK(db_txn_flush_layer(txn));
    ce_object_key b = create_person(txn, &s, 2);
    CHECK(db_txn_flush_layer(txn));
    CHECK(ce_txn_commit(txn));
    history_delta *delta = delta_since(t.db, v);
    check_table(delta, s.person, NO_KEYS, KEYS(a, b), NO_KEYS);
    history_delta_free(delta);
    CHECK(ce_db_verify(t.db, NULL)); /* the replaced entry was freed */
    test_db_close(&t);
}

/* With no reader, each commit drops the entries before it: an older
 * version is no longer covered. */
TEST(trimmed_without_readers)
{
    test_db t = test_db_open("history-trim");
    people s = make_schema(t.db);
    uint64_t v = latest_version(t.db);
    for (int i = 0; i < 5; i++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(t.db, &txn));
        create_person(txn, &s, i);
        CHECK(ce_txn_commit(txn));
    }
    CHECK(delta_since(t.db, v) == NULL);
    history_delta *delta = delta_since(t.db, v + 4);
    CHECK(delta);
    CHECK(history_delta_find_table(delta, s.person)->inserted_count == 1);
    history_delta_free(delta);
    /* A file without history (a new one) covers nothing before its first commit. */
    test_db_close(&t);
}

/* A reader pinned at an old version keeps the history it needs, up to the
 * bound: beyond HISTORY_MAX_VERSIONS entries the oldest go anyway. */
TEST(bounded_with_a_pinned_reader)
{
    test_db t = test_db_open("history-bound");
    people s = make_schema(t.db);
    ce_txn *pinned, *txn;
    CHECK(ce_txn_begin_read(t.db, &pinned));
    uint64_t v = ce_txn_version(pinned);
    ce_object_key a;
    CHECK(ce_txn_begin_write(t.db, &txn));
    a = create_person(txn, &s, 1);
    CHECK(ce_txn_commit(txn));
    /* 100 commits: all kept for the pinned reader. */
    for (int i = 0; i < 100; i++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        ce_value age = int_value(i);
        CHECK(ce_object_set(txn, s.person, a, s.age, &age));
        CHECK(ce_txn_commit(txn));
    }
    history_delta *delta = delta_since(t.db, v);
    CHECK(delta);
    check_table(delta, s.person, NO_KEYS, KEYS(a), NO_KEYS);
    history_delta_free(delta);
    /* Sustained commits: the history stops growing at the bound. */
    db_space_usage before, after;
    for (unsigned i = 0; i < HISTORY_MAX_VERSIONS + 200; i++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        ce_value age = int_value(i);
        CHECK(ce_object_set(txn, s.person, a, s.age, &age));
        CHECK(ce_txn_commit(txn));
        if (i == HISTORY_MAX_VERSIONS + 50) {
            ce_txn *read;
            CHECK(ce_txn_begin_read(t.db, &read));
            CHECK(db_txn_space_usage(read, &before));
            ce_txn_end(read);
        }
    }
    uint64_t latest = latest_version(t.db);
    CHECK(delta_since(t.db, v) == NULL); /* the pinned reader's range is gone */
    delta = delta_since(t.db, latest - HISTORY_MAX_VERSIONS);
    CHECK(delta); /* the last HISTORY_MAX_VERSIONS versions are kept */
    check_table(delta, s.person, NO_KEYS, NO_KEYS, KEYS(a));
    history_delta_free(delta);
    CHECK(delta_since(t.db, latest - HISTORY_MAX_VERSIONS - 1) == NULL);
    ce_txn *read;
    CHECK(ce_txn_begin_read(t.db, &read));
    CHECK(db_txn_space_usage(read, &after));
    ce_txn_end(read);
    /* 150 more commits at the bound: the data (history included) stays put. */
    CHECK(after.data_bytes <= before.data_bytes + 4096);
    ce_txn_end(pinned);
    /* Once the reader is gone, the next commit trims to what nobody pins. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value age = int_value(-1);
    CHECK(ce_object_set(txn, s.person, a, s.age, &age));
    CHECK(ce_txn_commit(txn));
    CHECK(delta_since(t.db, latest - 1) == NULL);
    CHECK(ce_txn_begin_read(t.db, &read));
    db_space_usage trimmed;
    CHECK(db_txn_space_usage(read, &trimmed));
    ce_txn_end(read);
    CHECK(trimmed.data_bytes < after.data_bytes);
    /* Nothing the trimming freed leaked, nothing is referenced twice. */
    CHECK(ce_db_verify(t.db, NULL));
    test_db_close(&t);
}

/* The byte bound: the oldest entries go once the entries exceed it, and
 * an entry alone larger than it is not stored (the history restarts after
 * it). Lowered to 4 KiB so that small commits reach it. */
static void set_every_other(ce_db *db, const people *s, size_t count, int64_t value)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_value age = int_value(value);
    for (size_t i = 0; i < count; i++) CHECK(ce_object_set(txn, s->person, (ce_object_key)(2 * i), s->age, &age));
    CHECK(ce_txn_commit(txn));
}

TEST(bounded_in_bytes)
{
    test_db t = test_db_open("history-bytes");
    people s = make_schema(t.db);
    ce_txn *txn, *pinned;
    CHECK(ce_txn_begin_write(t.db, &txn));
    for (int64_t i = 0; i < 6000; i++) create_person(txn, &s, i);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(t.db, &pinned));
    uint64_t v = ce_txn_version(pinned);
    size_t saved = history_max_bytes;
    history_max_bytes = 4096;
    /* 300 ranges of one key: an entry of about 600 bytes. */
    for (int i = 0; i < 20; i++) set_every_other(t.db, &s, 300, i);
    uint64_t latest = latest_version(t.db);
    CHECK(delta_since(t.db, v) == NULL);
    history_delta *delta = delta_since(t.db, latest - 5); /* 5 entries fit in 4 KiB */
    CHECK(delta);
    CHECK(history_delta_find_table(delta, s.person)->modified_count == 300);
    history_delta_free(delta);
    CHECK(delta_since(t.db, latest - 8) == NULL); /* 8 do not */
    /* An entry alone over the bound is not stored. */
    set_every_other(t.db, &s, 2500, 99); /* about 5,000 bytes */
    latest = latest_version(t.db);
    CHECK(delta_since(t.db, latest - 1) == NULL);
    delta = delta_since(t.db, latest);
    CHECK(delta && history_delta_table_count(delta) == 0);
    history_delta_free(delta);
    /* The next one starts again. */
    set_every_other(t.db, &s, 10, 7);
    delta = delta_since(t.db, latest);
    CHECK(delta && history_delta_find_table(delta, s.person)->modified_count == 10);
    history_delta_free(delta);
    history_max_bytes = saved;
    ce_txn_end(pinned);
    CHECK(ce_db_verify(t.db, NULL));
    test_db_close(&t);
}

/* Random commits (creates, deletes, sets of always new values), then the
 * delta between every pair of versions against a brute-force comparison of
 * the two snapshots: deleted, inserted, modified, and each object's
 * changed columns. */
static uint64_t random_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* The objects of a snapshot: keys ascending and their (a, b) values. */
typedef struct snapshot_object {
    ce_object_key key;
    int64_t a;
    char b[24];
} snapshot_object;

static snapshot_object *read_snapshot(ce_txn *txn, ce_table_key table, ce_column_key a, ce_column_key b,
                                      size_t *out_count)
{
    size_t count;
    CHECK(ce_object_count(txn, table, &count));
    snapshot_object *objects = calloc(count + 1, sizeof *objects);
    for (size_t i = 0; i < count; i++) {
        ce_value value;
        CHECK(ce_object_key_at(txn, table, i, &objects[i].key));
        CHECK(ce_object_get(txn, table, objects[i].key, a, &value));
        objects[i].a = value.integer;
        CHECK(ce_object_get(txn, table, objects[i].key, b, &value));
        CHECK(value.string.size < sizeof objects[i].b);
        memcpy(objects[i].b, value.string.data, value.string.size);
    }
    *out_count = count;
    return objects;
}

static const snapshot_object *find_object(const snapshot_object *objects, size_t count, ce_object_key key)
{
    for (size_t low = 0, high = count; low < high;) {
        size_t middle = low + (high - low) / 2;
        if (objects[middle].key == key) return &objects[middle];
        if (objects[middle].key < key) low = middle + 1;
        else high = middle;
    }
    return NULL;
}

static bool key_listed(const ce_object_key *keys, size_t count, ce_object_key key)
{
    for (size_t i = 0; i < count; i++)
        if (keys[i] == key) return true;
    return false;
}

TEST(random_commits_against_snapshots)
{
    test_db t = test_db_open("history-random");
    ce_txn *txn;
    ce_table_key table;
    ce_column_key id, a, b;
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_table_add(txn, "Item", &table));
    id = add_property(txn, table, (ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true});
    a = add_property(txn, table, (ce_property_info){.name = "a", .type = CE_TYPE_INT});
    b = add_property(txn, table, (ce_property_info){.name = "b", .type = CE_TYPE_STRING});
    CHECK(ce_txn_commit(txn));
    enum { COMMITS = 24 };
    ce_txn *readers[COMMITS + 1];
    CHECK(ce_txn_begin_read(t.db, &readers[0]));
    uint64_t state = 0x9E3779B97F4A7C15ull;
    int64_t next_id = 1000, next_value = 1;
    for (int c = 1; c <= COMMITS; c++) {
        CHECK(ce_txn_begin_write(t.db, &txn));
        int ops = 1 + (int)(random_next(&state) % 40);
        for (int o = 0; o < ops; o++) {
            size_t count;
            CHECK(ce_object_count(txn, table, &count));
            unsigned kind = (unsigned)(random_next(&state) % 10);
            if (count == 0 || kind < 3) {
                /* ids mostly ascending, sometimes not (then keys stop following them) */
                int64_t key_id = random_next(&state) % 8 == 0 ? -next_id : next_id;
                next_id++;
                ce_value key = int_value(key_id);
                ce_object_key object;
                CHECK(ce_object_create(txn, table, &key, &object));
                continue;
            }
            ce_object_key object;
            CHECK(ce_object_key_at(txn, table, random_next(&state) % count, &object));
            if (kind < 5) {
                CHECK(ce_object_delete(txn, table, object));
            } else if (kind < 8) {
                ce_value value = int_value(next_value++);
                CHECK(ce_object_set(txn, table, object, a, &value));
            } else {
                char text[24];
                int length = snprintf(text, sizeof text, "v%lld", (long long)next_value++);
                ce_value value = {.type = CE_TYPE_STRING, .string = {text, (size_t)length}};
                CHECK(ce_object_set(txn, table, object, b, &value));
            }
        }
        CHECK(ce_txn_commit(txn));
        CHECK(ce_txn_begin_read(t.db, &readers[c]));
    }
    size_t pairs = 0;
    for (int from = 0; from <= COMMITS; from++)
        for (int to = from; to <= COMMITS; to += 5) {
            size_t old_count, new_count;
            snapshot_object *old = read_snapshot(readers[from], table, a, b, &old_count);
            snapshot_object *new = read_snapshot(readers[to], table, a, b, &new_count);
            history_delta *delta;
            bool covered;
            CHECK(history_delta_load(readers[to], ce_txn_version(readers[from]), &delta, &covered) && covered);
            const history_table_changes *changes = history_delta_find_table(delta, table);
            history_table_changes none = {.table = table};
            if (!changes) changes = &none;
            size_t deleted = 0, inserted = 0, modified = 0;
            for (size_t i = 0; i < old_count; i++) {
                const snapshot_object *now = find_object(new, new_count, old[i].key);
                if (!now) {
                    deleted++;
                    CHECK(key_listed(changes->deleted, changes->deleted_count, old[i].key));
                    ce_value key;
                    bool found;
                    CHECK(history_delta_primary_key(delta, table, old[i].key, &key, &found) && found);
                    continue;
                }
                bool a_changed = now->a != old[i].a, b_changed = strcmp(now->b, old[i].b) != 0;
                CHECK(history_delta_column_changed(delta, table, old[i].key, a) == a_changed);
                CHECK(history_delta_column_changed(delta, table, old[i].key, b) == b_changed);
                CHECK(!history_delta_column_changed(delta, table, old[i].key, id));
                if (a_changed || b_changed) {
                    modified++;
                    CHECK(key_listed(changes->modified, changes->modified_count, old[i].key));
                }
            }
            for (size_t i = 0; i < new_count; i++)
                if (!find_object(old, old_count, new[i].key)) {
                    inserted++;
                    CHECK(key_listed(changes->inserted, changes->inserted_count, new[i].key));
                    ce_value key, stored;
                    bool found;
                    CHECK(history_delta_primary_key(delta, table, new[i].key, &key, &found) && found);
                    CHECK(ce_object_get(readers[to], table, new[i].key, id, &stored));
                    CHECK(key.type == CE_TYPE_INT && key.integer == stored.integer);
                }
            CHECK(changes->deleted_count == deleted && changes->inserted_count == inserted &&
                  changes->modified_count == modified);
            for (size_t i = 1; i < changes->modified_count; i++) CHECK(changes->modified[i - 1] < changes->modified[i]);
            history_delta_free(delta);
            free(old);
            free(new);
            pairs++;
        }
    CHECK(pairs == 75); /* every pair (from, from + 5k) */
    for (int c = 0; c <= COMMITS; c++) ce_txn_end(readers[c]);
    test_db_close(&t);
}

/* A copy (writeCopy, compaction) leaves the history out: the copy's first
 * commit starts a new one. */
TEST(copies_drop_the_history)
{
    test_db t = test_db_open("history-copy");
    people s = make_schema(t.db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    CHECK(ce_txn_commit(txn));
    uint64_t v = latest_version(t.db);
    CHECK(ce_txn_begin_read(t.db, &txn));
    CHECK(db_txn_history(txn) != 0);
    ce_txn_end(txn);
    char *copy_path = test_path(t.dir, "copy.realm");
    CHECK(ce_db_write_copy(t.db, copy_path, NULL));
    ce_db_options plain; /* a copy written without a key is plain, whatever the source */
    ce_db_options_init(&plain);
    ce_db *copy;
    CHECK(ce_db_open(copy_path, &plain, &copy));
    {
        CHECK(ce_txn_begin_read(copy, &txn));
        CHECK(ce_txn_version(txn) == v && db_txn_history(txn) == 0);
        history_delta *delta;
        bool covered;
        CHECK(history_delta_load(txn, v - 1, &delta, &covered) && !covered && delta == NULL);
        ce_txn_end(txn);
        CHECK(ce_txn_begin_write(copy, &txn));
        ce_value age = int_value(5);
        CHECK(ce_object_set(txn, s.person, a, s.age, &age));
        CHECK(ce_txn_commit(txn));
        history_delta *delta2 = delta_since(copy, v);
        check_table(delta2, s.person, NO_KEYS, NO_KEYS, KEYS(a));
        history_delta_free(delta2);
        CHECK(ce_db_verify(copy, NULL));
        CHECK(ce_db_close(copy));
    }
    CHECK(ce_db_compact(t.db, NULL));
    CHECK(ce_txn_begin_read(t.db, &txn));
    CHECK(db_txn_history(txn) == 0);
    ce_txn_end(txn);
    CHECK(ce_db_verify(t.db, NULL));
    free(copy_path);
    test_db_close(&t);
}

/* The history root of the read transaction's version, with the entry's
 * bytes replaced by `bytes` (written by hand in a write transaction that
 * does not load the objects layer, so its commit keeps them). */
static void replace_entry(ce_db *db, const uint8_t *bytes, size_t size, uint64_t version)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref entry, root;
    CHECK(node_create_bytes(space, 0, bytes, size, &entry));
    int64_t values[5] = {node_tag(1), node_tag((int64_t)version - 1), node_tag((int64_t)size),
                         node_tag((int64_t)version), (int64_t)entry};
    CHECK(node_create_from(space, NODE_HAS_REFS, values, 5, &root));
    CHECK(db_txn_set_history(txn, root));
    CHECK(ce_txn_commit(txn));
}

/* Invariant 5: damaged bytes in a history node give an error, never a
 * crash: every byte of a real entry changed, every length cut short. */
TEST(damaged_history)
{
    test_db t = test_db_open("history-damaged");
    people s = make_schema(t.db);
    ce_txn *txn;
    ce_txn *pinned;
    CHECK(ce_txn_begin_read(t.db, &pinned));
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_object_key a = create_person(txn, &s, 1);
    ce_collection *dictionary;
    CHECK(ce_collection_open(txn, s.person, a, s.labels, &dictionary));
    ce_value one = int_value(1);
    CHECK(ce_dictionary_set(dictionary, "key", 3, &one));
    ce_collection_close(dictionary);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_value age = int_value(1);
    CHECK(ce_object_set(txn, s.person, a, s.age, &age));
    CHECK(ce_object_delete(txn, s.person, a));
    CHECK(ce_txn_commit(txn));
    /* Read the real entries' bytes. */
    ce_txn *read;
    CHECK(ce_txn_begin_read(t.db, &read));
    node_view root, entry;
    CHECK(node_read(db_txn_space(read), db_txn_history(read), &root));
    CHECK(root.count >= 5);
    CHECK(node_read(db_txn_space(read), (space_ref)node_get(&root, 4), &entry));
    size_t size = entry.count;
    uint8_t *good = malloc(size), *bad = malloc(size + 1);
    memcpy(good, entry.payload, size);
    ce_txn_end(read);
    size_t errors = 0;
    for (size_t i = 0; i < size; i++)
        for (int flip = 0; flip < 3; flip++) {
            memcpy(bad, good, size);
            bad[i] = flip == 0 ? 0xFF : flip == 1 ? 0x00 : (uint8_t)(bad[i] ^ 0x40);
            uint64_t version = latest_version(t.db) + 1;
            replace_entry(t.db, bad, size, version);
            CHECK(ce_txn_begin_read(t.db, &read));
            history_delta *delta;
            bool covered;
            if (history_delta_load(read, version - 1, &delta, &covered)) {
                CHECK(covered);
                history_delta_free(delta);
            } else {
                CHECK(ce_last_error_code() == CE_ERR_INVALID_DATABASE);
                errors++;
            }
            ce_txn_end(read);
        }
    CHECK(errors > 0);
    for (size_t cut = 0; cut < size; cut++) {
        uint64_t version = latest_version(t.db) + 1;
        replace_entry(t.db, good, cut, version);
        CHECK(ce_txn_begin_read(t.db, &read));
        history_delta *delta;
        bool covered;
        CHECK(!history_delta_load(read, version - 1, &delta, &covered));
        CHECK(ce_last_error_code() == CE_ERR_INVALID_DATABASE);
        ce_txn_end(read);
    }
    /* A damaged root: not a history root at all. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    space_ref bogus;
    int64_t values[3] = {node_tag(99), node_tag(0), node_tag(0)};
    CHECK(node_create_from(db_txn_space(txn), NODE_HAS_REFS, values, 3, &bogus));
    CHECK(db_txn_set_history(txn, bogus));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(t.db, &read));
    history_delta *delta;
    bool covered;
    CHECK(!history_delta_load(read, ce_txn_version(read) - 1, &delta, &covered));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_DATABASE);
    ce_txn_end(read);
    /* A writer meeting it fails its commit with the same error. */
    CHECK(ce_txn_begin_write(t.db, &txn));
    CHECK(ce_txn_commit(txn)); /* nothing recorded: the history is not written */
    CHECK(ce_txn_begin_write(t.db, &txn));
    create_person(txn, &s, 2);
    CHECK(!ce_txn_commit(txn));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_DATABASE);
    ce_txn_end(txn);
    ce_txn_end(pinned);
    free(good);
    free(bad);
    test_db_close(&t);
}

/* Misuse: arguments required. */
TEST(bad_arguments)
{
    test_db t = test_db_open("history-args");
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    history_delta *delta;
    bool covered;
    CHECK(!history_delta_load(NULL, 0, &delta, &covered));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!history_delta_load(txn, 0, NULL, &covered));
    CHECK(history_delta_load(txn, ce_txn_version(txn), &delta, &covered) && covered); /* from == to: nothing */
    CHECK(history_delta_table_count(delta) == 0 && !history_delta_schema_changed(delta));
    history_delta_free(delta);
    ce_txn_end(txn);
    test_db_close(&t);
}
