/*
 * test_dictionaries.c — dictionaries through the public API: dictionaries
 * of several value types, of links and of mixed values, changed at random
 * against a model of keys (bytewise sorted) and values (committed, rolled
 * back); what keys and values they refuse; several keys to one deleted
 * target; a reopen; dictionaries emptied to nothing; a dictionary of
 * thousands of keys in chunks.
 *
 * Owns: the cases on dictionaries.
 * Never: checks a result against anything but the model built here.
 */
#include "test_links_support.h"

/* ------------------------------------------------------------------------ */
/* Dictionaries                                                              */
/* ------------------------------------------------------------------------ */

/* A dictionary against its model (a model_collection: keys bytewise sorted,
 * each with its value). */
static void check_dictionary(const ce_collection *dictionary, const model_collection *model, const char *where)
{
    check_collection(dictionary, model, where);
    for (size_t i = 0; i < model_collection_count(model); i++) {
        ce_value key, value;
        bool found;
        CHECK(ce_dictionary_key_at(dictionary, i, &key));
        check_same(&model->keys[i].value, &key, where, i);
        const ce_value *expected_key = &model->keys[i].value;
        CHECK(ce_dictionary_get(dictionary, expected_key->string.data, expected_key->string.size, &value, &found));
        CHECK(found);
        check_same(&model->elements[i].value, &value, where, i);
    }
    ce_value key;
    EXPECT_ERROR(ce_dictionary_key_at(dictionary, model_collection_count(model), &key), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
}

static const char *const dictionary_keys[] = {"", "a", "aa", "ab", "b", "B", "Z", "k0", "k1", "k2", "k10",
                                              "\xC3\xA9t\xC3\xA9", "z\xF0\x9F\x98\x80", "long key with spaces"};
enum { DICTIONARY_KEYS = sizeof dictionary_keys / sizeof dictionary_keys[0] };

typedef struct dictionary_property {
    ce_type type;
    bool nullable;
    ce_column_key column;
    const char *name;
} dictionary_property;

static void exercise_dictionary(ce_db *db, ce_table_key table, ce_object_key object,
                                const dictionary_property *property, model_collection **model)
{
    char buffer[SAMPLE_BUFFER];
    for (int round = 0; round < 4; round++) {
        model_collection *saved = model_collection_share(*model);
        ce_txn *txn;
        ce_collection *dictionary;
        CHECK(ce_txn_begin_write(db, &txn));
        CHECK(ce_collection_open(txn, table, object, property->column, &dictionary));
        ce_collection_type kind;
        ce_type element_type;
        CHECK(ce_collection_kind(dictionary, &kind, &element_type) && kind == CE_COLLECTION_DICTIONARY &&
              element_type == property->type);
        for (int step = 0; step < 40; step++) {
            const char *key = dictionary_keys[random_below(DICTIONARY_KEYS)];
            size_t key_size = strlen(key), choice = random_below(10);
            bool present, found;
            size_t position = model_key_position(*model, key, key_size, &present);
            ce_value value = property->nullable && random_below(6) == 0
                                 ? null_value()
                                 : sample_value(property->type, (unsigned)random_below(30), buffer);
            if (choice < 5) {
                CHECK(ce_dictionary_set(dictionary, key, key_size, &value));
                model_dictionary_set(model, key, key_size, &value);
            } else if (choice < 6 && present) {
                /* The value it holds already (a link: the same target). */
                ce_value same = (*model)->elements[position].value;
                CHECK(ce_dictionary_set(dictionary, key, key_size, &same));
            } else if (choice < 8) {
                bool erased;
                CHECK(ce_dictionary_erase(dictionary, key, key_size, &erased));
                CHECK(erased == present);
                model_dictionary_erase(model, key, key_size);
            } else if (choice < 9) {
                ce_value read;
                CHECK(ce_dictionary_get(dictionary, key, key_size, &read, &found));
                CHECK(found == present);
                if (found) check_same(&(*model)->elements[position].value, &read, property->name, position);
            } else {
                size_t index, expected;
                bool expected_found = model_find(CE_COLLECTION_DICTIONARY, *model, &value, &expected);
                CHECK(ce_collection_find(dictionary, &value, &index, &found));
                CHECK(found == expected_found);
                if (found) CHECK(index == expected);
            }
            check_dictionary(dictionary, *model, property->name);
        }
        ce_collection_close(dictionary);
        if (round == 2) {
            ce_txn_end(txn);
            model_collection_free(model);
            *model = saved;
            test_verify(db);
        } else {
            model_collection_free(&saved);
            commit_and_verify(db, txn);
        }
        CHECK(ce_txn_begin_read(db, &txn));
        CHECK(ce_collection_open(txn, table, object, property->column, &dictionary));
        check_dictionary(dictionary, *model, property->name);
        if (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
            check_list_backlinks(txn, table, property->column, (list_owner[]){{object, *model}}, 1);
        ce_collection_close(dictionary);
        ce_txn_end(txn);
    }
}

/* The dictionary properties of the Dicts table. */
static const dictionary_property dictionary_properties[] = {
        {CE_TYPE_INT, false, 0, "Dicts.ints"},     {CE_TYPE_STRING, true, 0, "Dicts.texts"},
        {CE_TYPE_BINARY, false, 0, "Dicts.blobs"}, {CE_TYPE_OBJECT_ID, true, 0, "Dicts.ids"},
        {CE_TYPE_LINK, true, 0, "Dicts.refs"},     {CE_TYPE_MIXED, true, 0, "Dicts.anys"},
    };
enum {
    PROPERTIES = sizeof dictionary_properties / sizeof dictionary_properties[0],
    REFS = PROPERTIES - 2,
    ANYS = PROPERTIES - 1
};

/* The Dicts table, its object and the model of its dictionaries. */
typedef struct dicts_fixture {
    dictionary_property properties[PROPERTIES];
    model_collection *models[PROPERTIES];
    ce_table_key table;
    ce_object_key object;
    tree_size empty; /* the user tree with every dictionary empty */
} dicts_fixture;

/* The Dicts table, an object whose dictionaries are empty, and the
 * backlink property of Dicts.anys, made by a first mixed link; committed. */
static void dicts_open(ce_db *db, dicts_fixture *f)
{
    memset(f, 0, sizeof *f);
    memcpy(f->properties, dictionary_properties, sizeof dictionary_properties);
    dictionary_property *properties = f->properties;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table = add_table(txn, "Dicts", false);
    for (size_t i = 0; i < PROPERTIES; i++)
        properties[i].column = add_property(txn, table, properties[i].name + strlen("Dicts."), properties[i].type,
                                            properties[i].nullable, CE_COLLECTION_DICTIONARY,
                                            properties[i].type == CE_TYPE_LINK ? sample_table : 0);
    ce_object_key object = create_object(txn, table);
    /* The first mixed link adds the backlink property of Dicts.anys. */
    ce_collection *dictionary;
    ce_value value = link_value(sample_table, sample_targets[0]);
    bool erased;
    CHECK(ce_collection_open(txn, table, object, properties[ANYS].column, &dictionary));
    CHECK(ce_dictionary_set(dictionary, "x", 1, &value) && ce_dictionary_erase(dictionary, "x", 1, &erased) && erased);
    ce_collection_close(dictionary);
    commit_and_verify(db, txn);
    tree_size empty = user_tree_size(db);
    f->table = table;
    f->object = object;
    f->empty = empty;
}

static void dicts_close(dicts_fixture *f)
{
    for (size_t i = 0; i < PROPERTIES; i++) {
        model_collection_free(&f->models[i]);
    }
}

/* Random sets, erases, gets and finds on every dictionary against its
 * model. */
static void dicts_exercise(ce_db *db, dicts_fixture *f)
{
    dictionary_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    for (size_t i = 0; i < PROPERTIES; i++) exercise_dictionary(db, table, object, &properties[i], &models[i]);
}

/* What keys and values a dictionary refuses, and the list and set calls;
 * a link to an object that does not exist. */
static void dicts_refuse(ce_txn *txn, dicts_fixture *f)
{
    dictionary_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    ce_collection *dictionary;
    ce_value value;
    bool erased, found;
    CHECK(ce_collection_open(txn, table, object, properties[0].column, &dictionary));
    /* Keys: UTF-8, not starting with '$', without '.'. */
    value = int_value(1);
    EXPECT_ERROR(ce_dictionary_set(dictionary, "$x", 2, &value), CE_ERR_INVALID_ARGUMENT, "must not start with '$'");
    EXPECT_ERROR(ce_dictionary_set(dictionary, "a.b", 3, &value), CE_ERR_INVALID_ARGUMENT, "must not contain '.'");
    EXPECT_ERROR(ce_dictionary_set(dictionary, "\xC3\x28", 2, &value), CE_ERR_INVALID_ARGUMENT, "UTF-8");
    EXPECT_ERROR(ce_dictionary_set(dictionary, NULL, 3, &value), CE_ERR_INVALID_ARGUMENT, NULL);
    CHECK(ce_dictionary_set(dictionary, "x$", 2, &value)); /* '$' inside a key is fine */
    CHECK(ce_dictionary_get(dictionary, "x$", 2, &value, &found) && found && value.integer == 1);
    CHECK(ce_dictionary_erase(dictionary, "x$", 2, &erased) && erased);
    CHECK(ce_dictionary_erase(dictionary, "x$", 2, &erased) && !erased);
    CHECK(ce_dictionary_get(dictionary, "nope", 4, &value, &found) && !found);
    /* Values: typed, not null in a required dictionary. */
    value = null_value();
    EXPECT_ERROR(ce_dictionary_set(dictionary, "k", 1, &value), CE_ERR_NULL_NOT_ALLOWED, "'Dicts.ints'");
    value = string_value("1");
    EXPECT_ERROR(ce_dictionary_set(dictionary, "k", 1, &value), CE_ERR_WRONG_TYPE, "'Dicts.ints'");
    /* List and set calls do not apply. */
    value = int_value(1);
    EXPECT_ERROR(ce_list_insert(dictionary, 0, &value), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_set_insert(dictionary, &value, &found), CE_ERR_WRONG_TYPE, NULL);
    check_dictionary(dictionary, models[0], "Dicts.ints");
    ce_collection_close(dictionary);
    CHECK(ce_collection_open(txn, table, object, properties[REFS].column, &dictionary));
    value = link_value(sample_table, 87654);
    EXPECT_ERROR(ce_dictionary_set(dictionary, "k", 1, &value), CE_ERR_NO_SUCH_OBJECT, "'Dicts.refs'");
    ce_collection_close(dictionary);
}

/* Several keys to one target (and a mixed value of it), which is then
 * deleted: the keys stay, with null; everything reads back after a reopen;
 * the dictionaries emptied, the user tree is as it was with empty ones. */
static void dicts_delete_reopen_empty(ce_db **db, const char *path, ce_txn *txn, dicts_fixture *f)
{
    dictionary_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    ce_collection *dictionary;
    ce_value value;
    bool erased;
    tree_size empty = f->empty;
    CHECK(ce_collection_open(txn, table, object, properties[REFS].column, &dictionary));
    /* Several keys to one target, then the target is deleted: the keys
     * stay, with null. */
    const char *linking[] = {"one", "two", "three"};
    for (size_t i = 0; i < 3; i++) {
        value = link_value(sample_table, sample_targets[3]);
        CHECK(ce_dictionary_set(dictionary, linking[i], strlen(linking[i]), &value));
        model_dictionary_set(&models[REFS], linking[i], strlen(linking[i]), &value);
    }
    ce_collection_close(dictionary);
    CHECK(ce_collection_open(txn, table, object, properties[ANYS].column, &dictionary));
    value = link_value(sample_table, sample_targets[3]);
    CHECK(ce_dictionary_set(dictionary, "mixed", 5, &value));
    model_dictionary_set(&models[ANYS], "mixed", 5, &value);
    ce_collection_close(dictionary);
    CHECK(backlink_count(txn, sample_table, sample_targets[3], table, properties[REFS].column) ==
          model_collection_links_to(models[REFS], (ce_link){sample_table, sample_targets[3]}));
    commit_and_verify(*db, txn);
    /* Setting a key of a committed dictionary to the link it holds changes
     * nothing. */
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_collection_open(txn, table, object, properties[REFS].column, &dictionary));
    value = link_value(sample_table, sample_targets[3]);
    CHECK(ce_dictionary_set(dictionary, "two", 3, &value));
    check_dictionary(dictionary, models[REFS], properties[REFS].name);
    ce_collection_close(dictionary);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_delete(txn, sample_table, sample_targets[3]));
    for (size_t m = REFS; m <= ANYS; m++)
        for (size_t i = 0; i < model_collection_count(models[m]); i++)
            if (models[m]->elements[i].value.type == CE_TYPE_LINK &&
                models[m]->elements[i].value.link.key == sample_targets[3]) {
                ce_value none = null_value();
                const ce_value *key = &models[m]->keys[i].value;
                model_dictionary_set(&models[m], key->string.data, key->string.size, &none);
            }
    for (size_t m = REFS; m <= ANYS; m++) {
        CHECK(ce_collection_open(txn, table, object, properties[m].column, &dictionary));
        check_dictionary(dictionary, models[m], properties[m].name);
        ce_collection_close(dictionary);
    }
    CHECK(ce_object_create(txn, sample_table, NULL, &sample_targets[3]));
    commit_and_verify(*db, txn);

    *db = reopen(*db, path);
    CHECK(ce_txn_begin_write(*db, &txn));
    for (size_t i = 0; i < PROPERTIES; i++) {
        CHECK(ce_collection_open(txn, table, object, properties[i].column, &dictionary));
        check_dictionary(dictionary, models[i], properties[i].name);
        if (properties[i].type == CE_TYPE_LINK || properties[i].type == CE_TYPE_MIXED)
            check_list_backlinks(txn, table, properties[i].column, (list_owner[]){{object, models[i]}}, 1);
        /* Emptied key by key (half of them) or cleared. */
        if (i % 2 == 0) {
            while (model_collection_count(models[i]) > 0) {
                const ce_value *key = &models[i]->keys[0].value;
                CHECK(ce_dictionary_erase(dictionary, key->string.data, key->string.size, &erased) && erased);
                model_dictionary_erase(&models[i], key->string.data, key->string.size);
            }
        } else {
            CHECK(ce_collection_clear(dictionary));
            model_collection_clear(&models[i]);
        }
        check_dictionary(dictionary, models[i], properties[i].name);
        ce_collection_close(dictionary);
    }
    commit_and_verify(*db, txn);
    /* Nodes only: target objects were replaced meanwhile. */
    CHECK(user_tree_size(*db).nodes == empty.nodes);
}

TEST(dictionary_operations)
{
    test_db t = links_db_open("dictionaries");
    add_sample_targets(t.db);
    dicts_fixture f;
    dicts_open(t.db, &f);
    dicts_exercise(t.db, &f);
    dicts_close(&f);
    test_db_close(&t);
}

/* On dictionaries that random operations filled. */
TEST(dictionary_errors)
{
    test_db t = links_db_open("dictionaries");
    add_sample_targets(t.db);
    dicts_fixture f;
    dicts_open(t.db, &f);
    dicts_exercise(t.db, &f);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    dicts_refuse(txn, &f);
    commit_and_verify(t.db, txn);
    dicts_close(&f);
    test_db_close(&t);
}

TEST(dictionaries_after_target_deleted_and_reopen)
{
    test_db t = links_db_open("dictionaries");
    add_sample_targets(t.db);
    dicts_fixture f;
    dicts_open(t.db, &f);
    dicts_exercise(t.db, &f);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    dicts_refuse(txn, &f);
    dicts_delete_reopen_empty(&t.db, t.path, txn, &f);
    dicts_close(&f);
    test_db_close(&t);
}

/* A dictionary of links under thousands of keys (in chunks, kept sorted);
 * a target deleted leaves its keys, with null, in every chunk; then erased
 * key by key and cleared: no backlinks, and the user tree has the nodes it
 * had before (a target was replaced: nodes only). */
TEST(large_dictionary)
{
    test_db t = links_db_open("dictionaries");
    ce_db *db = t.db;
    big_sorted big = big_sorted_open(db);
    ce_table_key table = big.table;
    ce_column_key refs = big.refs;
    ce_object_key object = big.object;
    enum { VALUES = 2000, STEPS = 3000 };
    ce_txn *txn;
    tree_size before = user_tree_size(db);

    /* A dictionary of links under thousands of keys. */
    model_collection *dictionary_model = NULL;
    ce_collection *dictionary;
    char key[32];
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, refs, &dictionary));
    for (int step = 0; step < STEPS; step++) {
        snprintf(key, sizeof key, "key-%zu", random_below(4 * VALUES));
        bool erased;
        if (step % 4 == 3) {
            bool present = model_dictionary_erase(&dictionary_model, key, strlen(key));
            CHECK(ce_dictionary_erase(dictionary, key, strlen(key), &erased) && erased == present);
        } else {
            ce_value value = step % 7 == 0 ? null_value()
                                           : link_value(sample_table, sample_targets[random_below(SAMPLE_TARGETS)]);
            CHECK(ce_dictionary_set(dictionary, key, strlen(key), &value));
            model_dictionary_set(&dictionary_model, key, strlen(key), &value);
        }
        if (step == VALUES) check_dictionary(dictionary, dictionary_model, "BigSorted.refs");
    }
    CHECK(model_collection_count(dictionary_model) > 1500);
    check_dictionary(dictionary, dictionary_model, "BigSorted.refs");
    check_list_backlinks(txn, table, refs, (list_owner[]){{object, dictionary_model}}, 1);
    ce_collection_close(dictionary);
    commit_and_verify(db, txn);
    /* A target deleted: its keys stay, with null, in every chunk. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_delete(txn, sample_table, sample_targets[4]));
    for (size_t i = 0; i < model_collection_count(dictionary_model); i++)
        if (dictionary_model->elements[i].value.type == CE_TYPE_LINK &&
            dictionary_model->elements[i].value.link.key == sample_targets[4]) {
            ce_value none = null_value();
            const ce_value *key = &dictionary_model->keys[i].value;
            model_dictionary_set(&dictionary_model, key->string.data, key->string.size, &none);
        }
    CHECK(ce_object_create(txn, sample_table, NULL, &sample_targets[4]));
    CHECK(ce_collection_open(txn, table, object, refs, &dictionary));
    check_dictionary(dictionary, dictionary_model, "BigSorted.refs");
    check_list_backlinks(txn, table, refs, (list_owner[]){{object, dictionary_model}}, 1);
    ce_collection_close(dictionary);
    commit_and_verify(db, txn);

    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, refs, &dictionary));
    for (size_t i = 0; i < 700; i++) {
        const ce_value *first = &dictionary_model->keys[0].value;
        bool erased;
        CHECK(ce_dictionary_erase(dictionary, first->string.data, first->string.size, &erased) && erased);
        model_dictionary_erase(&dictionary_model, first->string.data, first->string.size);
    }
    check_dictionary(dictionary, dictionary_model, "BigSorted.refs");
    CHECK(ce_collection_clear(dictionary));
    ce_collection_close(dictionary);
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) CHECK(backlink_count(txn, sample_table, sample_targets[t], table, refs) == 0);
    commit_and_verify(db, txn);
    CHECK(user_tree_size(db).nodes == before.nodes); /* a target was replaced: nodes only */
    model_collection_free(&dictionary_model);
    test_db_close(&t);
}
