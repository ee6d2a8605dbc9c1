/*
 * test_lists.c — lists through the public API: lists of every element
 * type, required and optional, of mixed values and of links, changed at
 * random against a model (committed, rolled back, seen by a reader of the
 * version before), what they refuse, deleted targets, a reopen; lists of
 * thousands of values in chunks; values read from a collection or an
 * object written back into it (self-aliasing); collection handles that
 * follow changes made through other handles.
 *
 * Owns: the cases on lists and on collection handles.
 * Never: checks a result against anything but the model built here.
 */
#include "test_links_support.h"

/* ------------------------------------------------------------------------ */
/* Lists of every element type                                               */
/* ------------------------------------------------------------------------ */

typedef struct list_property {
    ce_type type;
    bool nullable;
    ce_column_key column;
    char name[32];
} list_property;

/* A value of another type than the list's elements (and not null). */
static ce_value wrong_type_value(ce_type type)
{
    if (type == CE_TYPE_MIXED) return (ce_value){.type = CE_TYPE_MIXED};
    return type == CE_TYPE_INT ? string_value("x") : int_value(1);
}

/* Random inserts, sets, erases, moves, swaps and finds on one list, each
 * checked against the model; rounds committed or rolled back. */
static void exercise_list(ce_db *db, ce_table_key table, ce_object_key object, const list_property *property,
                          model_collection **model, ce_object_key neighbour,
                          const model_collection *neighbour_model)
{
    char buffer[SAMPLE_BUFFER];
    for (int round = 0; round < 4; round++) {
        bool roll_back = round == 2;
        model_collection *saved = model_collection_share(*model);
        ce_txn *txn, *snapshot;
        ce_collection *list, *old_list;
        CHECK(ce_txn_begin_read(db, &snapshot));
        CHECK(ce_collection_open(snapshot, table, object, property->column, &old_list));
        CHECK(ce_txn_begin_write(db, &txn));
        CHECK(ce_collection_open(txn, table, object, property->column, &list));
        ce_collection_type kind;
        ce_type element_type;
        CHECK(ce_collection_kind(list, &kind, &element_type) && kind == CE_COLLECTION_LIST &&
              element_type == property->type);
        check_collection(list, *model, property->name);
        for (int step = 0; step < 36; step++) {
            size_t count = model_collection_count(*model), choice = random_below(12);
            ce_value value = property->nullable && random_below(6) == 0
                                 ? null_value()
                                 : sample_value(property->type, (unsigned)random_below(40), buffer);
            if (choice < 5 || count == 0) {
                size_t index = random_below(count + 1);
                CHECK(ce_list_insert(list, index, &value));
                model_list_insert(model, index, &value);
            } else if (choice < 7) {
                size_t index = random_below(count);
                CHECK(ce_list_set(list, index, &value));
                model_list_set(model, index, &value);
            } else if (choice < 8) {
                size_t index = random_below(count);
                CHECK(ce_list_erase(list, index));
                model_list_erase(model, index);
            } else if (choice < 9) {
                size_t from = random_below(count), to = random_below(count);
                CHECK(ce_list_move(list, from, to));
                model_list_move(model, from, to);
            } else if (choice < 10) {
                size_t a = random_below(count), b = random_below(count);
                CHECK(ce_list_swap(list, a, b));
                model_list_swap(model, a, b);
            } else {
                /* Find an element that is there, and maybe one that is not. */
                ce_value wanted = random_below(2) ? (*model)->elements[random_below(count)].value : value;
                size_t index, expected;
                bool expected_found = model_find(CE_COLLECTION_LIST, *model, &wanted, &expected), found;
                CHECK(ce_collection_find(list, &wanted, &index, &found));
                CHECK(found == expected_found);
                if (found) CHECK(index == expected);
            }
            check_collection(list, *model, property->name);
        }
        check_list_backlinks(txn, table, property->column,
                             (list_owner[]){{object, *model}, {neighbour, neighbour_model}}, 2);
        ce_collection_close(list);
        if (roll_back) {
            ce_txn_end(txn);
            model_collection_free(model);
            *model = saved;
            test_verify(db);
        } else {
            commit_and_verify(db, txn);
            /* A reader of the version before still sees the list as it was. */
            check_collection(old_list, saved, property->name);
            check_list_backlinks(snapshot, table, property->column,
                                 (list_owner[]){{object, saved}, {neighbour, neighbour_model}}, 2);
            model_collection_free(&saved);
        }
        ce_collection_close(old_list);
        ce_txn_end(snapshot);
        CHECK(ce_txn_begin_read(db, &txn));
        CHECK(ce_collection_open(txn, table, object, property->column, &list));
        check_collection(list, *model, property->name);
        check_list_backlinks(txn, table, property->column,
                             (list_owner[]){{object, *model}, {neighbour, neighbour_model}}, 2);
        /* A read transaction cannot change a list. */
        ce_value value = sample_value(property->type, 2, buffer);
        EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_WRONG_TRANSACTION_STATE, NULL);
        ce_collection_close(list);
        ce_txn_end(txn);
    }
}

/* What a list refuses, with the list unchanged after each refusal. */
static void check_list_errors(ce_db *db, ce_table_key table, ce_object_key object, const list_property *property,
                              const model_collection *model, ce_table_key other_table, ce_object_key other_object)
{
    char buffer[SAMPLE_BUFFER];
    ce_txn *txn;
    ce_collection *list;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, property->column, &list));
    size_t count = model_collection_count(model);
    ce_value good = sample_value(property->type, 3, buffer), value;
    EXPECT_ERROR(ce_collection_get(list, count, &value), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_insert(list, count + 1, &good), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_set(list, count, &good), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_erase(list, count), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_move(list, count, 0), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_move(list, 0, count), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_swap(list, 0, count), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_swap(list, SIZE_MAX, 0), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    value = null_value();
    if (!property->nullable && property->type != CE_TYPE_MIXED) {
        EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_NULL_NOT_ALLOWED, property->name);
        if (count) EXPECT_ERROR(ce_list_set(list, 0, &value), CE_ERR_NULL_NOT_ALLOWED, property->name);
    }
    value = wrong_type_value(property->type);
    EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_WRONG_TYPE, property->name);
    if (count) EXPECT_ERROR(ce_list_set(list, 0, &value), CE_ERR_WRONG_TYPE, property->name);
    EXPECT_ERROR(ce_list_insert(list, 0, NULL), CE_ERR_INVALID_ARGUMENT, NULL);
    if (property->type == CE_TYPE_STRING || property->type == CE_TYPE_MIXED) {
        value = (ce_value){.type = CE_TYPE_STRING, .string = {"\xC3\x28", 2}};
        EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_INVALID_ARGUMENT, "UTF-8");
    }
    if (property->type == CE_TYPE_TIMESTAMP || property->type == CE_TYPE_MIXED) {
        value = (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {-5, 7}};
        EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_INVALID_ARGUMENT, "malformed");
    }
    if (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED) {
        value = link_value(sample_table, 99999);
        EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_NO_SUCH_OBJECT, "does not exist");
        value = link_value(5000, 0);
        EXPECT_ERROR(ce_list_insert(list, 0, &value),
                     property->type == CE_TYPE_LINK ? CE_ERR_WRONG_TYPE : CE_ERR_NO_SUCH_TABLE, property->name);
    }
    if (property->type == CE_TYPE_LINK) {
        value = link_value(other_table, other_object);
        EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_WRONG_TYPE, property->name);
    }
    /* Set and dictionary calls do not apply to a list. */
    bool changed;
    EXPECT_ERROR(ce_set_insert(list, &good, &changed), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_dictionary_set(list, "k", 1, &good), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_dictionary_get(list, "k", 1, &value, &changed), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_dictionary_key_at(list, 0, &value), CE_ERR_WRONG_TYPE, NULL);
    check_collection(list, model, property->name);
    ce_collection_close(list);
    commit_and_verify(db, txn);
}

/* The element types of the list properties: each required, then each
 * optional; then a list of mixed values and a list of links. */
static const ce_type types[] = {CE_TYPE_INT,        CE_TYPE_BOOL,      CE_TYPE_FLOAT, CE_TYPE_DOUBLE,
                                CE_TYPE_STRING,     CE_TYPE_BINARY,    CE_TYPE_TIMESTAMP,
                                CE_TYPE_DECIMAL128, CE_TYPE_OBJECT_ID, CE_TYPE_UUID};
enum { TYPES = sizeof types / sizeof types[0], PROPERTIES = 2 * TYPES + 2 };

/* The Lists table and its objects, and the model of their lists. */
typedef struct lists_fixture {
    list_property properties[PROPERTIES];
    model_collection *models[PROPERTIES], *untouched[PROPERTIES];
    ce_table_key table, other_table;
    ce_object_key object, neighbour, other_object;
} lists_fixture;

/* Sample targets, a table that is not one, and the Lists table (its
 * properties as ce_property_get_info reports them); what a list refuses
 * to be; an object with empty lists and a neighbour whose lists hold a few
 * values that must not move; committed. */
static void lists_open(ce_db *db, lists_fixture *f)
{
    memset(f, 0, sizeof *f);
    list_property *properties = f->properties;
    model_collection **untouched = f->untouched;
    char buffer[SAMPLE_BUFFER];
    ce_txn *txn;
    ce_table_key table, other_table;
    CHECK(ce_txn_begin_write(db, &txn));
    sample_table = add_table(txn, "ListTarget", false);
    add_scalar(txn, sample_table, "n", CE_TYPE_INT, false);
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) sample_targets[t] = create_object(txn, sample_table);
    other_table = add_table(txn, "NotListTarget", false);
    ce_object_key other_object = create_object(txn, other_table);
    table = add_table(txn, "Lists", false);
    for (size_t i = 0; i < PROPERTIES; i++) {
        list_property *property = &properties[i];
        property->type = i < 2 * TYPES ? types[i % TYPES] : i == 2 * TYPES ? CE_TYPE_MIXED : CE_TYPE_LINK;
        property->nullable = i >= TYPES && i < 2 * TYPES;
        snprintf(property->name, sizeof property->name, "Lists.%s%s", ce_type_name(property->type),
                 property->nullable ? "Optional" : "");
        property->column = add_property(txn, table, property->name + strlen("Lists."), property->type, property->nullable,
                                        CE_COLLECTION_LIST, property->type == CE_TYPE_LINK ? sample_table : 0);
        ce_property_info info;
        CHECK(ce_property_get_info(txn, table, property->column, &info));
        CHECK(info.collection == CE_COLLECTION_LIST && info.type == property->type && !info.backlink);
        CHECK(info.nullable == (property->nullable || property->type == CE_TYPE_MIXED));
        CHECK(info.link_target == (property->type == CE_TYPE_LINK ? sample_table : 0));
    }
    /* A list cannot be read or written as one value, nor opened as a mixed. */
    ce_object_key neighbour = create_object(txn, table), object = create_object(txn, table);
    ce_value value;
    EXPECT_ERROR(ce_object_get(txn, table, object, properties[0].column, &value), CE_ERR_WRONG_TYPE, "ce_collection_open");
    value = int_value(1);
    EXPECT_ERROR(ce_object_set(txn, table, object, properties[0].column, &value), CE_ERR_WRONG_TYPE, NULL);
    ce_collection *list;
    EXPECT_ERROR(ce_collection_open_mixed(txn, table, object, properties[0].column, &list), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_collection_open(txn, table, 12345, properties[0].column, &list), CE_ERR_NO_SUCH_OBJECT, NULL);
    /* The neighbour's lists hold a few values that must not move. */
    for (size_t i = 0; i < PROPERTIES; i++) {
        CHECK(ce_collection_open(txn, table, neighbour, properties[i].column, &list));
        for (unsigned v = 0; v < 3; v++) {
            value = sample_value(properties[i].type, v + 2, buffer);
            CHECK(ce_list_insert(list, v, &value));
            model_list_insert(&untouched[i], v, &value);
        }
        ce_collection_close(list);
    }
    commit_and_verify(db, txn);

    f->table = table;
    f->other_table = other_table;
    f->object = object;
    f->neighbour = neighbour;
    f->other_object = other_object;
}

static void lists_close(lists_fixture *f)
{
    for (size_t i = 0; i < PROPERTIES; i++) {
        model_collection_free(&f->models[i]);
        model_collection_free(&f->untouched[i]);
    }
}

/* Random operations on every list against its model; what each refuses. */
static void lists_exercise(ce_db *db, lists_fixture *f)
{
    list_property *properties = f->properties;
    model_collection **models = f->models, **untouched = f->untouched;
    ce_table_key table = f->table, other_table = f->other_table;
    ce_object_key object = f->object, neighbour = f->neighbour, other_object = f->other_object;
    for (size_t i = 0; i < PROPERTIES; i++) {
        exercise_list(db, table, object, &properties[i], &models[i], neighbour, untouched[i]);
        check_list_errors(db, table, object, &properties[i], models[i], other_table, other_object);
    }
}

/* Deleting targets takes them out of the lists; everything reads back
 * after a reopen; cleared lists; the lists of a deleted object. */
static void lists_delete_reopen_clear(ce_db **db, const char *path, lists_fixture *f)
{
    list_property *properties = f->properties;
    model_collection **models = f->models, **untouched = f->untouched;
    ce_table_key table = f->table;
    ce_object_key object = f->object, neighbour = f->neighbour;
    ce_txn *txn;
    ce_collection *list;
    ce_value value;
    /* Deleting targets removes them from the list of links (duplicates
     * included) and from the list of mixed values. */
    CHECK(ce_txn_begin_write(*db, &txn));
    size_t link_list = PROPERTIES - 1, mixed_list = PROPERTIES - 2;
    CHECK(ce_collection_open(txn, table, object, properties[link_list].column, &list));
    value = link_value(sample_table, sample_targets[0]);
    for (int i = 0; i < 3; i++) {
        CHECK(ce_list_insert(list, 0, &value));
        model_list_insert(&models[link_list], 0, &value);
    }
    CHECK(backlink_count(txn, sample_table, sample_targets[0], table, properties[link_list].column) ==
          model_collection_links_to(models[link_list], (ce_link){sample_table, sample_targets[0]}));
    ce_collection_close(list);
    CHECK(ce_collection_open(txn, table, object, properties[mixed_list].column, &list));
    CHECK(ce_list_insert(list, 0, &value));
    model_list_insert(&models[mixed_list], 0, &value);
    ce_collection_close(list);
    CHECK(ce_object_delete(txn, sample_table, sample_targets[0]));
    for (size_t m = PROPERTIES - 2; m < PROPERTIES; m++) {
        for (size_t i = model_collection_count(models[m]); i-- > 0;)
            if (models[m]->elements[i].value.type == CE_TYPE_LINK && models[m]->elements[i].value.link.key == sample_targets[0])
                model_list_erase(&models[m], i);
        for (size_t i = model_collection_count(untouched[m]); i-- > 0;)
            if (untouched[m]->elements[i].value.type == CE_TYPE_LINK &&
                untouched[m]->elements[i].value.link.key == sample_targets[0])
                model_list_erase(&untouched[m], i);
    }
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_create(txn, sample_table, NULL, &sample_targets[0])); /* a new key: nothing links to it */
    CHECK(backlink_total(txn, sample_table, sample_targets[0]) == 0);
    commit_and_verify(*db, txn);

    /* Everything reads back after a reopen; clearing empties each list. */
    *db = reopen(*db, path);
    CHECK(ce_txn_begin_write(*db, &txn));
    for (size_t i = 0; i < PROPERTIES; i++) {
        CHECK(ce_collection_open(txn, table, object, properties[i].column, &list));
        check_collection(list, models[i], properties[i].name);
        check_list_backlinks(txn, table, properties[i].column,
                             (list_owner[]){{object, models[i]}, {neighbour, untouched[i]}}, 2);
        CHECK(ce_collection_clear(list));
        model_collection_clear(&models[i]);
        check_collection(list, models[i], properties[i].name);
        check_list_backlinks(txn, table, properties[i].column,
                             (list_owner[]){{object, models[i]}, {neighbour, untouched[i]}}, 2);
        CHECK(ce_collection_clear(list)); /* clearing an empty list */
        ce_collection_close(list);
        CHECK(ce_collection_open(txn, table, neighbour, properties[i].column, &list));
        check_collection(list, untouched[i], properties[i].name);
        ce_collection_close(list);
    }
    commit_and_verify(*db, txn);
    /* A deleted object's handle fails. */
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_collection_open(txn, table, neighbour, properties[PROPERTIES - 1].column, &list));
    CHECK(ce_object_delete(txn, table, neighbour));
    size_t count;
    EXPECT_ERROR(ce_collection_size(list, &count), CE_ERR_NO_SUCH_OBJECT, NULL);
    value = link_value(sample_table, sample_targets[1]);
    EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_NO_SUCH_OBJECT, NULL);
    ce_collection_close(list);
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) CHECK(backlink_total(txn, sample_table, sample_targets[t]) == 0);
    commit_and_verify(*db, txn);
}

TEST(list_properties)
{
    test_db t = links_db_open("lists");
    lists_fixture f;
    lists_open(t.db, &f);
    lists_close(&f);
    test_db_close(&t);
}

TEST(list_operations)
{
    test_db t = links_db_open("lists");
    lists_fixture f;
    lists_open(t.db, &f);
    lists_exercise(t.db, &f);
    lists_close(&f);
    test_db_close(&t);
}

TEST(lists_after_target_deleted_and_reopen)
{
    test_db t = links_db_open("lists");
    lists_fixture f;
    lists_open(t.db, &f);
    lists_exercise(t.db, &f);
    lists_delete_reopen_clear(&t.db, t.path, &f);
    lists_close(&f);
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Large lists: chunks                                                       */
/* ------------------------------------------------------------------------ */

static ce_value large_list_value(ce_type type, char *buffer)
{
    if (type == CE_TYPE_INT) {
        /* Small and wide values: the chunks' integer nodes change width. */
        uint64_t bits = next_random();
        return int_value(random_below(4) == 0 ? (int64_t)bits : (int64_t)(bits % 2000) - 1000);
    }
    if (type == CE_TYPE_STRING && random_below(8) == 0) return null_value();
    return sample_value(type, (unsigned)random_below(1000), buffer);
}

/* 2500+ inserts at random positions (chunks split), random changes (the
 * values of self-aliasing copies among them), commits and a rollback, then
 * erases back to empty: the list's root returns to 0 (the user tree is
 * exactly as before the list was filled). */
static void exercise_large_list(ce_db *db, ce_table_key table, ce_object_key object, ce_column_key column,
                                ce_type type, size_t target_size, const char *where)
{
    char buffer[SAMPLE_BUFFER];
    model_collection *model = NULL;
    tree_size before = user_tree_size(db);
    ce_txn *txn;
    ce_collection *list;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    for (size_t i = 0; i < target_size; i++) {
        ce_value value = large_list_value(type, buffer);
        size_t index = random_below(model_collection_count(model) + 1);
        CHECK(ce_list_insert(list, index, &value));
        model_list_insert(&model, index, &value);
        ce_value read;
        size_t probe = random_below(model_collection_count(model));
        CHECK(ce_collection_get(list, probe, &read));
        check_same(&model->elements[probe].value, &read, where, probe);
        if (i % 400 == 399) check_collection(list, model, where);
        if (i == target_size / 2) { /* the rest changes committed chunks */
            ce_collection_close(list);
            commit_and_verify(db, txn);
            CHECK(ce_txn_begin_write(db, &txn));
            CHECK(ce_collection_open(txn, table, object, column, &list));
        }
    }
    check_collection(list, model, where);
    ce_collection_close(list);
    commit_and_verify(db, txn);

    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    for (int step = 0; step < 600; step++) {
        size_t count = model_collection_count(model), choice = random_below(7);
        size_t a = random_below(count), b = random_below(count);
        if (choice == 0) {
            ce_value value = large_list_value(type, buffer);
            CHECK(ce_list_set(list, a, &value));
            model_list_set(&model, a, &value);
        } else if (choice == 1) {
            /* A value read from the list itself, written elsewhere in it. */
            ce_value value;
            CHECK(ce_collection_get(list, a, &value));
            CHECK(ce_list_set(list, b, &value));
            model_list_set(&model, b, &model->elements[a].value);
        } else if (choice == 2) {
            ce_value value;
            CHECK(ce_collection_get(list, a, &value));
            CHECK(ce_list_insert(list, b, &value));
            ce_value copied = model->elements[a].value; /* model_list_insert may move the elements */
            model_list_insert(&model, b, &copied);
        } else if (choice == 3) {
            CHECK(ce_list_move(list, a, b));
            model_list_move(&model, a, b);
        } else if (choice == 4) {
            CHECK(ce_list_swap(list, a, b));
            model_list_swap(&model, a, b);
        } else {
            CHECK(ce_list_erase(list, a));
            model_list_erase(&model, a);
        }
        ce_value read;
        size_t probe = random_below(model_collection_count(model));
        CHECK(ce_collection_get(list, probe, &read));
        check_same(&model->elements[probe].value, &read, where, probe);
    }
    check_collection(list, model, where);
    ce_collection_close(list);
    commit_and_verify(db, txn);

    /* Erasing half, rolled back. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    size_t full = model_collection_count(model);
    for (size_t i = 0; i < full / 2; i++) CHECK(ce_list_erase(list, random_below(full - i)));
    ce_collection_close(list);
    ce_txn_end(txn);
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    check_collection(list, model, where);
    ce_collection_close(list);
    ce_txn_end(txn);

    /* Erasing everything, at random positions. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    while (model_collection_count(model) > 0) {
        size_t index = random_below(model_collection_count(model));
        CHECK(ce_list_erase(list, index));
        model_list_erase(&model, index);
        if (model_collection_count(model) % 500 == 0) check_collection(list, model, where);
    }
    check_collection(list, model, where);
    ce_collection_close(list);
    commit_and_verify(db, txn);
    tree_size after = user_tree_size(db);
    if (after.nodes != before.nodes || after.bytes != before.bytes) {
        fprintf(stderr, "%s: emptied, the user tree has %llu nodes (%llu bytes without refs), before %llu (%llu)\n", where,
                (unsigned long long)after.nodes, (unsigned long long)after.bytes, (unsigned long long)before.nodes,
                (unsigned long long)before.bytes);
        exit(1);
    }
    model_collection_free(&model);
}

/* Links to one target from thousands of list elements (its backlinks are
 * chunked too), purged from every chunk when a target is deleted. */
static void exercise_large_link_list(ce_db *db, ce_table_key table, ce_object_key object, ce_column_key column)
{
    model_collection *model = NULL;
    ce_txn *txn;
    ce_collection *list;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    for (int i = 0; i < 1600; i++) {
        size_t target = random_below(10) < 7 ? 1 : random_below(SAMPLE_TARGETS);
        ce_value value = link_value(sample_table, sample_targets[target]);
        size_t index = random_below(model_collection_count(model) + 1);
        CHECK(ce_list_insert(list, index, &value));
        model_list_insert(&model, index, &value);
    }
    check_collection(list, model, "Big.refs");
    ce_collection_close(list);
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) {
        size_t expected = model_collection_links_to(model, (ce_link){sample_table, sample_targets[t]});
        CHECK(backlink_count(txn, sample_table, sample_targets[t], table, column) == expected);
        CHECK(backlink_total(txn, sample_table, sample_targets[t]) == expected);
        for (size_t i = 0; i < expected; i += 97) {
            ce_object_key origin;
            CHECK(ce_object_backlink_at(txn, sample_table, sample_targets[t], table, column, i, &origin) && origin == object);
        }
    }
    CHECK(model_collection_links_to(model, (ce_link){sample_table, sample_targets[1]}) > 1000);
    /* Deleting a target purges it from every chunk. */
    CHECK(ce_object_delete(txn, sample_table, sample_targets[2]));
    for (size_t i = model_collection_count(model); i-- > 0;)
        if (model->elements[i].value.link.key == sample_targets[2]) model_list_erase(&model, i);
    CHECK(ce_collection_open(txn, table, object, column, &list));
    check_collection(list, model, "Big.refs");
    ce_collection_close(list);
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_create(txn, sample_table, NULL, &sample_targets[2]));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    while (model_collection_count(model) > 0) {
        size_t index = random_below(model_collection_count(model));
        CHECK(ce_list_erase(list, index));
        model_list_erase(&model, index);
        if (model_collection_count(model) % 500 == 0) {
            check_collection(list, model, "Big.refs");
            for (size_t t = 0; t < SAMPLE_TARGETS; t++)
                CHECK(backlink_count(txn, sample_table, sample_targets[t], table, column) ==
                      model_collection_links_to(model, (ce_link){sample_table, sample_targets[t]}));
        }
    }
    ce_collection_close(list);
    commit_and_verify(db, txn);
    /* Deleting the origin of a chunked list of links drops every backlink. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, column, &list));
    for (int i = 0; i < 1200; i++) {
        ce_value value = link_value(sample_table, sample_targets[random_below(SAMPLE_TARGETS)]);
        CHECK(ce_list_insert(list, random_below((size_t)i + 1), &value));
    }
    ce_collection_close(list);
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_write(db, &txn));
    size_t total = 0;
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) total += backlink_count(txn, sample_table, sample_targets[t], table, column);
    CHECK(total == 1200);
    CHECK(ce_object_delete(txn, table, object));
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) CHECK(backlink_total(txn, sample_table, sample_targets[t]) == 0);
    commit_and_verify(db, txn);
    model_collection_free(&model);
}

/* The Big table: a list of ints, of optional strings, of mixed values and
 * of links to the sample targets, on the second of three objects. */
typedef struct big_lists {
    ce_table_key table;
    ce_column_key numbers, texts, anys, refs;
    ce_object_key object;
} big_lists;

static big_lists big_lists_open(ce_db *db)
{
    add_sample_targets(db);
    ce_txn *txn;
    ce_table_key table;
    ce_column_key numbers, texts, anys, refs;
    CHECK(ce_txn_begin_write(db, &txn));
    table = add_table(txn, "Big", false);
    numbers = add_property(txn, table, "numbers", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    texts = add_property(txn, table, "texts", CE_TYPE_STRING, true, CE_COLLECTION_LIST, 0);
    anys = add_property(txn, table, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    refs = add_property(txn, table, "refs", CE_TYPE_LINK, false, CE_COLLECTION_LIST, sample_table);
    create_object(txn, table);
    ce_object_key object = create_object(txn, table);
    create_object(txn, table);
    /* The first mixed link from Big.anys adds a backlink property to the
     * target table: it is there before the list is measured. */
    ce_collection *list;
    CHECK(ce_collection_open(txn, table, object, anys, &list));
    ce_value value = link_value(sample_table, sample_targets[0]);
    CHECK(ce_list_insert(list, 0, &value) && ce_collection_clear(list));
    ce_collection_close(list);
    commit_and_verify(db, txn);
    return (big_lists){table, numbers, texts, anys, refs, object};
}

/* When a case is done, no sample target has a backlink left. */
static void check_no_backlinks_left(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) CHECK(backlink_total(txn, sample_table, sample_targets[t]) == 0);
    ce_txn_end(txn);
}

TEST(large_int_list)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    big_lists b = big_lists_open(db);
    exercise_large_list(db, b.table, b.object, b.numbers, CE_TYPE_INT, 2600, "Big.numbers");
    check_no_backlinks_left(db);
    test_db_close(&t);
}

TEST(large_string_list)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    big_lists b = big_lists_open(db);
    exercise_large_list(db, b.table, b.object, b.texts, CE_TYPE_STRING, 2500, "Big.texts");
    check_no_backlinks_left(db);
    test_db_close(&t);
}

TEST(large_mixed_list)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    big_lists b = big_lists_open(db);
    exercise_large_list(db, b.table, b.object, b.anys, CE_TYPE_MIXED, 1200, "Big.anys");
    check_no_backlinks_left(db);
    test_db_close(&t);
}

TEST(large_link_list)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    big_lists b = big_lists_open(db);
    exercise_large_link_list(db, b.table, b.object, b.refs);
    check_no_backlinks_left(db);
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Self-aliasing: values read from a collection (or an object), written back */
/* ------------------------------------------------------------------------ */

/* The values the cases write: long strings, stored compressed, and the
 * keys of dictionary entries that are as long. */
static char big_a[4200], big_b[7000], big_c[5600], key_one[8000], key_two[4500];

/* The Alias table: lists of strings, optional binaries and mixed values, a
 * dictionary of optional strings, a string and an indexed string; one
 * object; the strings a, b, c (long) and x. */
typedef struct alias_fixture {
    ce_table_key table;
    ce_column_key texts, blobs, anys, words, note, tag;
    ce_object_key object;
    ce_value a, b, c, x;
} alias_fixture;

static alias_fixture alias_open(ce_db *db)
{
    fill_compressible(big_a, sizeof big_a, 1);
    fill_compressible(big_b, sizeof big_b, 2);
    fill_compressible(big_c, sizeof big_c, 3);
    fill_compressible(key_one, sizeof key_one, 5);
    fill_compressible(key_two, sizeof key_two, 6);
    ce_value a = {.type = CE_TYPE_STRING, .string = {big_a, sizeof big_a}};
    ce_value b = {.type = CE_TYPE_STRING, .string = {big_b, sizeof big_b}};
    ce_value c = {.type = CE_TYPE_STRING, .string = {big_c, sizeof big_c}};
    ce_value x = string_value("x");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table = add_table(txn, "Alias", false);
    ce_column_key texts = add_property(txn, table, "texts", CE_TYPE_STRING, false, CE_COLLECTION_LIST, 0);
    ce_column_key blobs = add_property(txn, table, "blobs", CE_TYPE_BINARY, true, CE_COLLECTION_LIST, 0);
    ce_column_key anys = add_property(txn, table, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    ce_column_key words = add_property(txn, table, "words", CE_TYPE_STRING, true, CE_COLLECTION_DICTIONARY, 0);
    ce_column_key note = add_scalar(txn, table, "note", CE_TYPE_STRING, false);
    ce_column_key tag;
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "tag", .type = CE_TYPE_STRING, .indexed = true}, &tag));
    ce_object_key object = create_object(txn, table);
    commit_and_verify(db, txn);
    return (alias_fixture){table, texts, blobs, anys, words, note, tag, object, a, b, c, x};
}

/* Strings read from a list written back into it (over other elements,
 * onto themselves, inserted); between objects, through an index; between
 * an object's property and a list. */
TEST(self_aliasing_strings)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    alias_fixture f = alias_open(db);
    ce_table_key table = f.table;
    ce_column_key texts = f.texts, note = f.note, tag = f.tag;
    ce_object_key object = f.object;
    ce_value a = f.a, b = f.b, c = f.c, x = f.x;
    ce_txn *txn;
    for (int pass = 0; pass < 2; pass++) { /* in one transaction; then with committed nodes */
        CHECK(ce_txn_begin_write(db, &txn));
        ce_collection *list;
        model_collection *model = NULL;
        ce_value value;
        CHECK(ce_collection_open(txn, table, object, texts, &list));
        CHECK(ce_collection_clear(list));
        const ce_value *initial[] = {&a, &b, &x, &c};
        for (size_t i = 0; i < 4; i++) {
            CHECK(ce_list_insert(list, i, initial[i]));
            model_list_insert(&model, i, initial[i]);
        }
        if (pass == 1) {
            ce_collection_close(list);
            commit_and_verify(db, txn);
            CHECK(ce_txn_begin_write(db, &txn));
            CHECK(ce_collection_open(txn, table, object, texts, &list));
        }
        /* A decompressed value over an element of another size. */
        CHECK(ce_collection_get(list, 0, &value));
        CHECK(ce_list_set(list, 1, &value));
        model_list_set(&model, 1, &a);
        check_collection(list, model, "Alias.texts");
        CHECK(ce_collection_get(list, 3, &value));
        CHECK(ce_list_set(list, 3, &value)); /* onto itself */
        CHECK(ce_collection_get(list, 2, &value));
        CHECK(ce_list_set(list, 0, &value)); /* an inline value of the same node */
        model_list_set(&model, 0, &x);
        check_collection(list, model, "Alias.texts");
        CHECK(ce_collection_get(list, 3, &value));
        CHECK(ce_list_insert(list, 0, &value));
        model_list_insert(&model, 0, &c);
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_list_insert(list, 3, &value));
        model_list_insert(&model, 3, &x);
        check_collection(list, model, "Alias.texts");
        /* Between objects: a value read from a property, searched for (by a
         * scan of the property, and through an index) and written to another
         * object's indexed property. */
        ce_value read;
        ce_object_key other = pass == 0 ? create_object(txn, table) : object + 1, found_object;
        bool found;
        set_value(txn, table, object, note, a);
        set_value(txn, table, other, note, b);
        set_value(txn, table, object, tag, b);
        set_value(txn, table, other, tag, c);
        CHECK(ce_object_get(txn, table, other, note, &value));
        CHECK(ce_object_find_first(txn, table, note, &value, &found_object, &found) && found && found_object == other);
        CHECK(ce_object_get(txn, table, other, tag, &value));
        CHECK(ce_object_find_first(txn, table, tag, &value, &found_object, &found) && found && found_object == other);
        CHECK(ce_object_get(txn, table, object, tag, &value));
        CHECK(ce_object_set(txn, table, other, tag, &value));
        read = get_value(txn, table, other, tag);
        check_same(&b, &read, "Alias.tag", 1);
        CHECK(ce_object_find_first(txn, table, tag, &c, &found_object, &found) && !found);
        CHECK(ce_object_find_first(txn, table, tag, &b, &found_object, &found) && found && found_object == object);
        set_value(txn, table, object, tag, x);
        CHECK(ce_object_find_first(txn, table, tag, &b, &found_object, &found) && found && found_object == other);
        /* Between an object's property and a list. */
        CHECK(ce_object_set(txn, table, object, note, &b));
        CHECK(ce_object_get(txn, table, object, note, &value));
        CHECK(ce_list_set(list, 0, &value));
        model_list_set(&model, 0, &b);
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_object_set(txn, table, object, note, &value));
        read = get_value(txn, table, object, note);
        check_same(&model->elements[1].value, &read, "Alias.note", 0);
        check_collection(list, model, "Alias.texts");
        ce_collection_close(list);

        model_collection_free(&model);
        commit_and_verify(db, txn);
    }
    test_db_close(&t);
}

TEST(self_aliasing_binaries)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    alias_fixture f = alias_open(db);
    ce_table_key table = f.table;
    ce_column_key blobs = f.blobs;
    ce_object_key object = f.object;
    ce_txn *txn;
    for (int pass = 0; pass < 2; pass++) { /* in one transaction; then with committed nodes */
        CHECK(ce_txn_begin_write(db, &txn));
        ce_collection *list;
        model_collection *model = NULL;
        ce_value value;
        /* Binaries. */
        model_collection_clear(&model);
        CHECK(ce_collection_open(txn, table, object, blobs, &list));
        CHECK(ce_collection_clear(list));
        ce_value blob_a = {.type = CE_TYPE_BINARY, .binary = {(const uint8_t *)big_a, sizeof big_a}};
        ce_value blob_b = {.type = CE_TYPE_BINARY, .binary = {(const uint8_t *)big_b, sizeof big_b}};
        ce_value none = null_value();
        CHECK(ce_list_insert(list, 0, &blob_a) && ce_list_insert(list, 1, &blob_b) && ce_list_insert(list, 2, &none));
        model_list_insert(&model, 0, &blob_a);
        model_list_insert(&model, 1, &blob_b);
        model_list_insert(&model, 2, &none);
        CHECK(ce_collection_get(list, 0, &value));
        CHECK(ce_list_set(list, 1, &value));
        model_list_set(&model, 1, &blob_a);
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_list_set(list, 2, &value));
        model_list_set(&model, 2, &blob_a);
        check_collection(list, model, "Alias.blobs");
        /* A binary too large to lie inline that zstd cannot shrink: a node
         * of its own, read in place. */
        enum { NOISE = 70000 };
        uint8_t *noise = malloc(NOISE);
        CHECK(noise != NULL);
        for (size_t i = 0; i < NOISE; i++) noise[i] = (uint8_t)(next_random() >> 56);
        ce_value blob_noise = {.type = CE_TYPE_BINARY, .binary = {noise, NOISE}};
        CHECK(ce_list_insert(list, 1, &blob_noise));
        model_list_insert(&model, 1, &blob_noise);
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_list_set(list, 1, &value)); /* onto itself */
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_list_set(list, 0, &value));
        model_list_set(&model, 0, &blob_noise);
        CHECK(ce_collection_get(list, 0, &value));
        CHECK(ce_list_insert(list, 4, &value));
        model_list_insert(&model, 4, &blob_noise);
        check_collection(list, model, "Alias.blobs");
        CHECK(ce_list_erase(list, 1));
        model_list_erase(&model, 1);
        check_collection(list, model, "Alias.blobs");
        free(noise);
        ce_collection_close(list);

        model_collection_free(&model);
        commit_and_verify(db, txn);
    }
    test_db_close(&t);
}

TEST(self_aliasing_mixed)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    alias_fixture f = alias_open(db);
    ce_table_key table = f.table;
    ce_column_key anys = f.anys;
    ce_object_key object = f.object;
    ce_value b = f.b;
    ce_txn *txn;
    for (int pass = 0; pass < 2; pass++) { /* in one transaction; then with committed nodes */
        CHECK(ce_txn_begin_write(db, &txn));
        ce_collection *list;
        model_collection *model = NULL;
        ce_value value;
        /* Mixed values: a string read from one element, written over it and
         * over another. */
        model_collection_clear(&model);
        CHECK(ce_collection_open(txn, table, object, anys, &list));
        CHECK(ce_collection_clear(list));
        ce_value hello = string_value("hello");
        CHECK(ce_list_insert(list, 0, &hello) && ce_list_insert(list, 1, &b));
        model_list_insert(&model, 0, &hello);
        model_list_insert(&model, 1, &b);
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_list_set(list, 1, &value));
        CHECK(ce_collection_get(list, 1, &value));
        CHECK(ce_list_set(list, 0, &value));
        model_list_set(&model, 0, &b);
        CHECK(ce_collection_get(list, 0, &value));
        CHECK(ce_list_insert(list, 1, &value));
        model_list_insert(&model, 1, &b);
        check_collection(list, model, "Alias.anys");
        ce_collection_close(list);

        model_collection_free(&model);
        commit_and_verify(db, txn);
    }
    test_db_close(&t);
}

TEST(self_aliasing_dictionary)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    alias_fixture f = alias_open(db);
    ce_table_key table = f.table;
    ce_column_key words = f.words;
    ce_object_key object = f.object;
    ce_value a = f.a, b = f.b;
    ce_txn *txn;
    for (int pass = 0; pass < 2; pass++) { /* in one transaction; then with committed nodes */
        CHECK(ce_txn_begin_write(db, &txn));
        ce_value value;
        bool found;
        /* Dictionaries: a value read from one key written under another; a
         * key read with key_at used to get, set and erase. */
        ce_collection *dictionary;
        CHECK(ce_collection_open(txn, table, object, words, &dictionary));
        CHECK(ce_collection_clear(dictionary));
        ce_value one = string_value("one"), two = string_value("two");
        CHECK(ce_dictionary_set(dictionary, "a", 1, &a) && ce_dictionary_set(dictionary, "b", 1, &b));
        CHECK(ce_dictionary_set(dictionary, key_one, sizeof key_one, &one));
        CHECK(ce_dictionary_set(dictionary, key_two, sizeof key_two, &two));
        if (pass == 1) {
            ce_collection_close(dictionary);
            commit_and_verify(db, txn);
            CHECK(ce_txn_begin_write(db, &txn));
            CHECK(ce_collection_open(txn, table, object, words, &dictionary));
        }
        CHECK(ce_dictionary_get(dictionary, "a", 1, &value, &found) && found);
        CHECK(ce_dictionary_set(dictionary, "b", 1, &value));
        CHECK(ce_dictionary_get(dictionary, "b", 1, &value, &found) && found);
        check_same(&a, &value, "Alias.words[b]", 0);
        /* Keys in bytewise order: '#' < 'a' < 'b'. */
        ce_value key;
        CHECK(ce_dictionary_key_at(dictionary, 0, &key));
        CHECK(key.type == CE_TYPE_STRING && key.string.size == sizeof key_one &&
              memcmp(key.string.data, key_one, sizeof key_one) == 0);
        CHECK(ce_dictionary_get(dictionary, key.string.data, key.string.size, &value, &found));
        CHECK(found);
        check_same(&one, &value, "Alias.words[key one]", 0);
        CHECK(ce_dictionary_key_at(dictionary, 0, &key));
        ce_value uno = string_value("uno");
        CHECK(ce_dictionary_set(dictionary, key.string.data, key.string.size, &uno));
        CHECK(ce_dictionary_get(dictionary, key_one, sizeof key_one, &value, &found) && found);
        check_same(&uno, &value, "Alias.words[key one]", 0);
        /* The second key (the search passes the first: its bytes are
         * decompressed on the way). */
        CHECK(ce_dictionary_key_at(dictionary, 1, &key));
        CHECK(key.string.size == sizeof key_two && memcmp(key.string.data, key_two, sizeof key_two) == 0);
        CHECK(ce_dictionary_get(dictionary, key.string.data, key.string.size, &value, &found) && found);
        check_same(&two, &value, "Alias.words[key two]", 0);
        CHECK(ce_dictionary_key_at(dictionary, 1, &key));
        ce_value dos = string_value("dos");
        CHECK(ce_dictionary_set(dictionary, key.string.data, key.string.size, &dos));
        CHECK(ce_dictionary_get(dictionary, key_two, sizeof key_two, &value, &found) && found);
        check_same(&dos, &value, "Alias.words[key two]", 0);
        CHECK(ce_dictionary_get(dictionary, key_one, sizeof key_one, &value, &found) && found);
        check_same(&uno, &value, "Alias.words[key one]", 0);
        /* A key read with key_at, used as the value of a dictionary of strings. */
        CHECK(ce_dictionary_key_at(dictionary, 1, &key));
        CHECK(ce_dictionary_set(dictionary, "a", 1, &key));
        CHECK(ce_dictionary_get(dictionary, "a", 1, &value, &found) && found);
        ce_value expected_key = {.type = CE_TYPE_STRING, .string = {key_two, sizeof key_two}};
        check_same(&expected_key, &value, "Alias.words[a]", 0);
        two = dos;
        size_t count;
        CHECK(ce_collection_size(dictionary, &count) && count == 4);
        CHECK(ce_dictionary_key_at(dictionary, 0, &key));
        bool erased;
        CHECK(ce_dictionary_erase(dictionary, key.string.data, key.string.size, &erased) && erased);
        CHECK(ce_dictionary_get(dictionary, key_one, sizeof key_one, &value, &found) && !found);
        CHECK(ce_dictionary_get(dictionary, key_two, sizeof key_two, &value, &found) && found);
        check_same(&two, &value, "Alias.words[key two]", 0);
        ce_collection_close(dictionary);
        commit_and_verify(db, txn);
    }
    test_db_close(&t);
}

/* Reads through a collection handle in the values the transaction sees now:
 * the handle keeps a reader between reads, which must not outlive a change
 * made through another handle, a change of the object, a deletion, or an
 * advance of a read transaction. */
static void check_list_reads(ce_collection *list, const int64_t *expected, size_t count)
{
    size_t size;
    CHECK(ce_collection_size(list, &size));
    CHECK(size == count);
    for (size_t i = 0; i < count; i++) {
        ce_value value;
        CHECK(ce_collection_get(list, i, &value));
        CHECK(value.type == CE_TYPE_INT && value.integer == expected[i]);
    }
    ce_value past;
    EXPECT_ERROR(ce_collection_get(list, count, &past), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
}

/* The Handles table (a list of ints, a dictionary of ints, an int), an
 * object and one to delete, in a write transaction left open. */
typedef struct handles_fixture {
    ce_txn *txn;
    ce_table_key table;
    ce_column_key numbers, names, label;
    ce_object_key object, doomed;
} handles_fixture;

static handles_fixture handles_open(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table = add_table(txn, "Handles", false);
    ce_column_key numbers = add_property(txn, table, "numbers", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    ce_column_key names = add_property(txn, table, "names", CE_TYPE_INT, false, CE_COLLECTION_DICTIONARY, 0);
    ce_column_key label = add_scalar(txn, table, "label", CE_TYPE_INT, false);
    ce_object_key object = create_object(txn, table), doomed = create_object(txn, table);
    return (handles_fixture){txn, table, numbers, names, label, object, doomed};
}

/* Two handles on one list: what one writes, the other reads at once, and
 * after a change of the object elsewhere; the model and its count are
 * left for a read transaction to check. */
static void list_handles(handles_fixture *h, int64_t *out_model, size_t *out_count)
{
    ce_txn *txn = h->txn;
    ce_table_key table = h->table;
    ce_column_key numbers = h->numbers, label = h->label;
    ce_object_key object = h->object;
    ce_collection *reading, *writing;
    CHECK(ce_collection_open(txn, table, object, numbers, &reading));
    CHECK(ce_collection_open(txn, table, object, numbers, &writing));
    int64_t model[8] = {0};
    size_t count = 0;
    check_list_reads(reading, model, count);
    for (int64_t v = 1; v <= 5; v++) {
        ce_value value = int_value(10 * v);
        CHECK(ce_list_insert(writing, count, &value));
        model[count++] = 10 * v;
        check_list_reads(reading, model, count);
    }
    ce_value value = int_value(99);
    CHECK(ce_list_set(writing, 2, &value));
    model[2] = 99;
    check_list_reads(reading, model, count);
    CHECK(ce_list_erase(writing, 0));
    memmove(model, model + 1, --count * sizeof *model);
    check_list_reads(reading, model, count);
    /* A change elsewhere in the object. */
    value = int_value(7);
    CHECK(ce_object_set(txn, table, object, label, &value));
    check_list_reads(reading, model, count);
    ce_collection_close(writing);
    ce_collection_close(reading);
    memcpy(out_model, model, sizeof model);
    *out_count = count;
}

TEST(list_handles_follow_changes)
{
    test_db t = links_db_open("lists");
    handles_fixture h = handles_open(t.db);
    int64_t model[8];
    size_t count;
    list_handles(&h, model, &count);
    commit_and_verify(t.db, h.txn);
    test_db_close(&t);
}

TEST(nested_handle_has_its_own_reader)
{
    test_db t = links_db_open("lists");
    handles_fixture h = handles_open(t.db);
    ce_txn *txn = h.txn;
    ce_table_key table = h.table;
    ce_object_key object = h.object;
    ce_value value;
    /* A nested handle opened from one that holds a reader must not share it
     * (closing both would free it twice: ASan). */
    ce_column_key anything = add_scalar(txn, table, "anything", CE_TYPE_MIXED, true);
    value = (ce_value){.type = CE_TYPE_LIST};
    CHECK(ce_object_set(txn, table, object, anything, &value));
    ce_collection *outer, *inner;
    CHECK(ce_collection_open_mixed(txn, table, object, anything, &outer));
    CHECK(ce_list_insert(outer, 0, &value)); /* element 0: a list */
    ce_value element;
    CHECK(ce_collection_get(outer, 0, &element) && element.type == CE_TYPE_LIST);
    ce_value at = int_value(0);
    CHECK(ce_collection_open_nested(outer, &at, &inner));
    value = int_value(5);
    CHECK(ce_list_insert(inner, 0, &value));
    ce_collection_close(outer);
    int64_t five = 5;
    check_list_reads(inner, &five, 1);
    ce_collection_close(inner);
    commit_and_verify(t.db, txn);
    test_db_close(&t);
}

TEST(dictionary_handles_follow_changes)
{
    test_db t = links_db_open("lists");
    handles_fixture h = handles_open(t.db);
    ce_txn *txn = h.txn;
    ce_table_key table = h.table;
    ce_column_key names = h.names;
    ce_object_key object = h.object;
    ce_value value;
    /* A dictionary's keys and values, read and changed through two handles. */
    ce_collection *dictionary_reading, *dictionary_writing;
    CHECK(ce_collection_open(txn, table, object, names, &dictionary_reading));
    CHECK(ce_collection_open(txn, table, object, names, &dictionary_writing));
    static const char *const keys[] = {"b", "d", "a", "c"};
    for (size_t k = 0; k < 4; k++) {
        value = int_value((int64_t)k);
        CHECK(ce_dictionary_set(dictionary_writing, keys[k], 1, &value));
        size_t size;
        CHECK(ce_collection_size(dictionary_reading, &size));
        CHECK(size == k + 1);
        /* Key order is bytewise: the new key's position among those read before. */
        ce_value key, stored;
        bool seen = false;
        for (size_t i = 0; i < size; i++) {
            CHECK(ce_dictionary_key_at(dictionary_reading, i, &key) && ce_collection_get(dictionary_reading, i, &stored));
            CHECK(key.type == CE_TYPE_STRING && key.string.size == 1);
            if (key.string.data[0] == keys[k][0]) {
                seen = true;
                CHECK(stored.type == CE_TYPE_INT && stored.integer == (int64_t)k);
            }
        }
        CHECK(seen);
    }
    ce_collection_close(dictionary_reading);
    ce_collection_close(dictionary_writing);
    commit_and_verify(t.db, txn);
    test_db_close(&t);
}

TEST(handle_of_deleted_object)
{
    test_db t = links_db_open("lists");
    handles_fixture h = handles_open(t.db);
    ce_txn *txn = h.txn;
    ce_table_key table = h.table;
    ce_column_key numbers = h.numbers;
    ce_object_key doomed = h.doomed;
    ce_value value;
    int64_t model[8] = {0};
    /* A handle whose object is deleted reports it, as before the first read. */
    ce_collection *orphan;
    CHECK(ce_collection_open(txn, table, doomed, numbers, &orphan));
    check_list_reads(orphan, model, 0);
    CHECK(ce_object_delete(txn, table, doomed));
    size_t size;
    EXPECT_ERROR(ce_collection_size(orphan, &size), CE_ERR_NO_SUCH_OBJECT, NULL);
    EXPECT_ERROR(ce_collection_get(orphan, 0, &value), CE_ERR_NO_SUCH_OBJECT, NULL);
    ce_collection_close(orphan);
    commit_and_verify(t.db, txn);
    test_db_close(&t);
}

TEST(read_handle_follows_advance)
{
    test_db t = links_db_open("lists");
    ce_db *db = t.db;
    handles_fixture h = handles_open(db);
    ce_txn *txn;
    ce_table_key table = h.table;
    ce_column_key numbers = h.numbers;
    ce_object_key object = h.object;
    int64_t model[8];
    size_t count;
    list_handles(&h, model, &count);
    commit_and_verify(db, h.txn);
    ce_collection *reading, *writing;
    ce_value value;
    /* A read transaction's handle, before and after it advances past a commit. */
    ce_txn *reader;
    CHECK(ce_txn_begin_read(db, &reader));
    CHECK(ce_collection_open(reader, table, object, numbers, &reading));
    check_list_reads(reading, model, count);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, numbers, &writing));
    value = int_value(123);
    CHECK(ce_list_insert(writing, 0, &value));
    ce_collection_close(writing);
    commit_and_verify(db, txn);
    check_list_reads(reading, model, count); /* still the version it reads */
    CHECK(ce_txn_advance(reader));
    memmove(model + 1, model, count++ * sizeof *model);
    model[0] = 123;
    check_list_reads(reading, model, count);
    ce_collection_close(reading);
    ce_txn_end(reader);
    test_db_close(&t);
}
