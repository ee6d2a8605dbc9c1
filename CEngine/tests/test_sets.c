/*
 * test_sets.c — sets through the public API: sets of several element
 * types, of links and of mixed values, changed at random against a model
 * kept sorted as the engine keeps them (committed, rolled back); the order
 * of a set of mixed values; what sets refuse; decimals of one value;
 * deleted targets; a reopen; sets emptied to nothing; a set of thousands
 * of values in chunks.
 *
 * Owns: the cases on sets.
 * Never: checks a result against anything but the model built here.
 */
#include "test_links_support.h"

typedef struct set_property {
    ce_type type;
    bool nullable;
    ce_column_key column;
    const char *name;
} set_property;

static void exercise_set(ce_db *db, ce_table_key table, ce_object_key object, const set_property *property,
                         model_collection **model)
{
    char buffer[SAMPLE_BUFFER];
    for (int round = 0; round < 4; round++) {
        model_collection *saved = model_collection_share(*model);
        ce_txn *txn;
        ce_collection *set;
        CHECK(ce_txn_begin_write(db, &txn));
        CHECK(ce_collection_open(txn, table, object, property->column, &set));
        ce_collection_type kind;
        ce_type element_type;
        CHECK(ce_collection_kind(set, &kind, &element_type) && kind == CE_COLLECTION_SET && element_type == property->type);
        for (int step = 0; step < 40; step++) {
            ce_value value = property->nullable && random_below(8) == 0
                                 ? null_value()
                                 : sample_value(property->type, (unsigned)random_below(30), buffer);
            bool present, changed, found;
            size_t position = model_set_position(*model, &value, &present), index;
            size_t choice = random_below(4);
            if (choice < 2) {
                CHECK(ce_set_insert(set, &value, &changed));
                CHECK(changed == !present);
                model_set_insert(model, &value);
            } else if (choice == 2) {
                CHECK(ce_set_erase(set, &value, &changed));
                CHECK(changed == present);
                model_set_erase(model, &value);
            } else {
                CHECK(ce_collection_find(set, &value, &index, &found));
                CHECK(found == present);
                if (found) CHECK(index == position);
            }
            check_collection(set, *model, property->name);
        }
        ce_collection_close(set);
        if (round == 1) {
            ce_txn_end(txn);
            model_collection_free(model);
            *model = saved;
            test_verify(db);
        } else {
            model_collection_free(&saved);
            commit_and_verify(db, txn);
        }
        CHECK(ce_txn_begin_read(db, &txn));
        CHECK(ce_collection_open(txn, table, object, property->column, &set));
        check_collection(set, *model, property->name);
        if (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
            check_list_backlinks(txn, table, property->column, (list_owner[]){{object, *model}}, 1);
        ce_collection_close(set);
        ce_txn_end(txn);
    }
}

/* The set properties of the Sets table (each with a column of its own). */
static const set_property set_properties[] = {
        {CE_TYPE_INT, false, 0, "Sets.ints"},         {CE_TYPE_STRING, false, 0, "Sets.texts"},
        {CE_TYPE_DOUBLE, true, 0, "Sets.doubles"},     {CE_TYPE_TIMESTAMP, true, 0, "Sets.times"},
        {CE_TYPE_BINARY, false, 0, "Sets.blobs"},      {CE_TYPE_UUID, false, 0, "Sets.uuids"},
        {CE_TYPE_LINK, false, 0, "Sets.refs"},         {CE_TYPE_MIXED, true, 0, "Sets.anys"},
    };
enum { PROPERTIES = sizeof set_properties / sizeof set_properties[0] };

/* The Sets table, its object and the model of its sets. */
typedef struct sets_fixture {
    set_property properties[PROPERTIES];
    model_collection *models[PROPERTIES];
    ce_table_key table;
    ce_column_key decimals;
    ce_object_key object;
    tree_size empty_sets; /* the user tree with every set empty */
} sets_fixture;

/* The Sets table (and a set of links it refuses), an object whose sets
 * are empty, and the backlink property of Sets.anys, made by a first
 * mixed link; committed. */
static void sets_open(ce_db *db, sets_fixture *f)
{
    memset(f, 0, sizeof *f);
    memcpy(f->properties, set_properties, sizeof set_properties);
    set_property *properties = f->properties;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table = add_table(txn, "Sets", false);
    for (size_t i = 0; i < PROPERTIES; i++)
        properties[i].column = add_property(txn, table, properties[i].name + strlen("Sets."), properties[i].type,
                                            properties[i].nullable, CE_COLLECTION_SET,
                                            properties[i].type == CE_TYPE_LINK ? sample_table : 0);
    ce_column_key decimals = add_property(txn, table, "decimals", CE_TYPE_DECIMAL128, false, CE_COLLECTION_SET, 0);
    ce_column_key unused;
    EXPECT_ERROR(ce_property_add(txn, table,
                                 &(ce_property_info){.name = "bad", .type = CE_TYPE_LINK, .nullable = true,
                                                     .collection = CE_COLLECTION_SET, .link_target = sample_table},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "cannot hold null");
    ce_object_key object = create_object(txn, table);
    /* The first mixed link adds the backlink property of Sets.anys. */
    ce_collection *set;
    ce_value value = link_value(sample_table, sample_targets[0]);
    bool changed;
    CHECK(ce_collection_open(txn, table, object, properties[PROPERTIES - 1].column, &set));
    CHECK(ce_set_insert(set, &value, &changed) && changed && ce_set_erase(set, &value, &changed) && changed);
    ce_collection_close(set);
    commit_and_verify(db, txn);
    tree_size empty_sets = user_tree_size(db);
    f->table = table;
    f->decimals = decimals;
    f->object = object;
    f->empty_sets = empty_sets;
}

static void sets_close(sets_fixture *f)
{
    for (size_t i = 0; i < PROPERTIES; i++) model_collection_free(&f->models[i]);
}

/* Random inserts, erases and finds on every set against its model. */
static void sets_exercise(ce_db *db, sets_fixture *f)
{
    set_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    for (size_t i = 0; i < PROPERTIES; i++) exercise_set(db, table, object, &properties[i], &models[i]);
}

/* Sets of mixed values: no nested collections; an int and a double of the
 * same number are two values; ordered by type, then value. */
static void sets_mixed(ce_txn *txn, sets_fixture *f)
{
    set_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    ce_collection *set;
    ce_value value;
    bool changed;
    CHECK(ce_collection_open(txn, table, object, properties[PROPERTIES - 1].column, &set));
    value = nested_value(CE_TYPE_LIST);
    EXPECT_ERROR(ce_set_insert(set, &value, &changed), CE_ERR_WRONG_TYPE, "set cannot hold a nested collection");
    value = nested_value(CE_TYPE_DICTIONARY);
    EXPECT_ERROR(ce_set_insert(set, &value, &changed), CE_ERR_WRONG_TYPE, "set cannot hold a nested collection");
    CHECK(ce_collection_clear(set));
    model_collection_clear(&models[PROPERTIES - 1]);
    ce_value mixed[] = {string_value("b"), int_value(5), {.type = CE_TYPE_DOUBLE, .double_value = 5.0},
                        link_value(sample_table, sample_targets[1]), null_value(), {.type = CE_TYPE_BOOL, .boolean = true},
                        string_value("a"), int_value(-3)};
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
        CHECK(ce_set_insert(set, &mixed[i], &changed) && changed);
        model_set_insert(&models[PROPERTIES - 1], &mixed[i]);
    }
    ce_value expected_order[] = {null_value(), int_value(-3), int_value(5), {.type = CE_TYPE_BOOL, .boolean = true},
                                 {.type = CE_TYPE_DOUBLE, .double_value = 5.0}, string_value("a"), string_value("b"),
                                 link_value(sample_table, sample_targets[1])};
    for (size_t i = 0; i < sizeof expected_order / sizeof expected_order[0]; i++) {
        CHECK(ce_collection_get(set, i, &value));
        check_same(&expected_order[i], &value, "Sets.anys", i);
    }
    check_collection(set, models[PROPERTIES - 1], "Sets.anys");
    ce_collection_close(set);
}

/* Errors on a typed set; list and dictionary calls do not apply. */
static void sets_refuse(ce_txn *txn, sets_fixture *f)
{
    set_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    ce_collection *set;
    ce_value value;
    bool changed;
    CHECK(ce_collection_open(txn, table, object, properties[0].column, &set));
    value = null_value();
    EXPECT_ERROR(ce_set_insert(set, &value, &changed), CE_ERR_NULL_NOT_ALLOWED, "'Sets.ints'");
    value = string_value("5");
    EXPECT_ERROR(ce_set_insert(set, &value, &changed), CE_ERR_WRONG_TYPE, "'Sets.ints'");
    CHECK(ce_set_erase(set, &value, &changed) && !changed); /* nothing of another type is there */
    value = int_value(1);
    EXPECT_ERROR(ce_list_insert(set, 0, &value), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_list_erase(set, 0), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_dictionary_set(set, "k", 1, &value), CE_ERR_WRONG_TYPE, NULL);
    check_collection(set, models[0], "Sets.ints");
    ce_collection_close(set);
    CHECK(ce_collection_open(txn, table, object, properties[PROPERTIES - 2].column, &set));
    value = link_value(sample_table, 98765);
    EXPECT_ERROR(ce_set_insert(set, &value, &changed), CE_ERR_NO_SUCH_OBJECT, "'Sets.refs'");
    check_collection(set, models[PROPERTIES - 2], "Sets.refs");
    ce_collection_close(set);
}

/* Decimals: two representations of one number are one value. */
static void sets_decimals(ce_txn *txn, sets_fixture *f)
{
    ce_table_key table = f->table;
    ce_column_key decimals = f->decimals;
    ce_object_key object = f->object;
    ce_collection *set;
    ce_value value;
    bool changed;
    CHECK(ce_collection_open(txn, table, object, decimals, &set));
    ce_value one = {.type = CE_TYPE_DECIMAL128, .decimal = {1, 0x3040000000000000ull}};           /* 1E0 */
    ce_value ten_tenths = {.type = CE_TYPE_DECIMAL128, .decimal = {10, 0x303E000000000000ull}};   /* 10E-1 */
    ce_value two = {.type = CE_TYPE_DECIMAL128, .decimal = {2, 0x3040000000000000ull}};
    CHECK(ce_set_insert(set, &two, &changed) && changed);
    CHECK(ce_set_insert(set, &one, &changed) && changed);
    CHECK(ce_set_insert(set, &ten_tenths, &changed) && !changed);
    size_t count, index;
    bool found;
    CHECK(ce_collection_size(set, &count) && count == 2);
    CHECK(ce_collection_get(set, 0, &value));
    check_same(&one, &value, "Sets.decimals", 0);
    CHECK(ce_collection_find(set, &ten_tenths, &index, &found) && found && index == 0);
    CHECK(ce_set_erase(set, &ten_tenths, &changed) && changed);
    CHECK(ce_collection_size(set, &count) && count == 1);
    ce_collection_close(set);
}

/* Deleting a target removes it from the sets that hold it; everything
 * reads back after a reopen; the sets emptied, the user tree is as it was
 * with empty sets. */
static void sets_delete_reopen_empty(ce_db **db, const char *path, sets_fixture *f)
{
    set_property *properties = f->properties;
    model_collection **models = f->models;
    ce_table_key table = f->table;
    ce_object_key object = f->object;
    ce_collection *set;
    ce_value value;
    bool changed;
    ce_column_key decimals = f->decimals;
    tree_size empty_sets = f->empty_sets;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_collection_open(txn, table, object, properties[PROPERTIES - 2].column, &set));
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) {
        value = link_value(sample_table, sample_targets[t]);
        CHECK(ce_set_insert(set, &value, &changed));
        bool absent = model_set_insert(&models[PROPERTIES - 2], &value);
        CHECK(changed == absent);
    }
    ce_collection_close(set);
    CHECK(backlink_count(txn, sample_table, sample_targets[1], table, properties[PROPERTIES - 2].column) == 1);
    CHECK(backlink_count(txn, sample_table, sample_targets[1], table, properties[PROPERTIES - 1].column) == 1);
    CHECK(backlink_total(txn, sample_table, sample_targets[1]) == 2);
    CHECK(ce_object_delete(txn, sample_table, sample_targets[1]));
    for (size_t m = PROPERTIES - 2; m < PROPERTIES; m++)
        for (size_t i = model_collection_count(models[m]); i-- > 0;)
            if (models[m]->elements[i].value.type == CE_TYPE_LINK && models[m]->elements[i].value.link.key == sample_targets[1])
                model_set_erase(&models[m], &models[m]->elements[i].value);
    CHECK(ce_object_create(txn, sample_table, NULL, &sample_targets[1]));
    commit_and_verify(*db, txn);

    *db = reopen(*db, path);
    CHECK(ce_txn_begin_read(*db, &txn));
    for (size_t i = 0; i < PROPERTIES; i++) {
        CHECK(ce_collection_open(txn, table, object, properties[i].column, &set));
        check_collection(set, models[i], properties[i].name);
        if (properties[i].type == CE_TYPE_LINK || properties[i].type == CE_TYPE_MIXED)
            check_list_backlinks(txn, table, properties[i].column, (list_owner[]){{object, models[i]}}, 1);
        ce_collection_close(set);
    }
    ce_txn_end(txn);
    /* Cleared, or emptied one by one: the sets' roots return to 0 (the
     * user tree has the nodes it had before; one target object was
     * replaced meanwhile, so only nodes are counted). */
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_collection_open(txn, table, object, decimals, &set));
    CHECK(ce_collection_clear(set));
    ce_collection_close(set);
    for (size_t i = 0; i < PROPERTIES; i++) {
        CHECK(ce_collection_open(txn, table, object, properties[i].column, &set));
        while (model_collection_count(models[i]) > 0) {
            size_t victim = random_below(model_collection_count(models[i]));
            CHECK(ce_set_erase(set, &models[i]->elements[victim].value, &changed) && changed);
            model_set_erase(&models[i], &models[i]->elements[victim].value);
        }
        check_collection(set, models[i], properties[i].name);
        ce_collection_close(set);
    }
    commit_and_verify(*db, txn);
    CHECK(user_tree_size(*db).nodes == empty_sets.nodes);
}

TEST(set_operations)
{
    test_db t = links_db_open("sets");
    add_sample_targets(t.db);
    sets_fixture f;
    sets_open(t.db, &f);
    sets_exercise(t.db, &f);
    sets_close(&f);
    test_db_close(&t);
}

TEST(mixed_set_order)
{
    test_db t = links_db_open("sets");
    add_sample_targets(t.db);
    sets_fixture f;
    sets_open(t.db, &f);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    sets_mixed(txn, &f);
    commit_and_verify(t.db, txn);
    sets_close(&f);
    test_db_close(&t);
}

/* On sets that random operations filled. */
TEST(set_errors)
{
    test_db t = links_db_open("sets");
    add_sample_targets(t.db);
    sets_fixture f;
    sets_open(t.db, &f);
    sets_exercise(t.db, &f);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    sets_refuse(txn, &f);
    commit_and_verify(t.db, txn);
    sets_close(&f);
    test_db_close(&t);
}

TEST(decimal_set)
{
    test_db t = links_db_open("sets");
    add_sample_targets(t.db);
    sets_fixture f;
    sets_open(t.db, &f);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    sets_decimals(txn, &f);
    commit_and_verify(t.db, txn);
    sets_close(&f);
    test_db_close(&t);
}

TEST(sets_after_target_deleted_and_reopen)
{
    test_db t = links_db_open("sets");
    add_sample_targets(t.db);
    sets_fixture f;
    sets_open(t.db, &f);
    sets_exercise(t.db, &f);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    sets_mixed(txn, &f);
    sets_refuse(txn, &f);
    sets_decimals(txn, &f);
    commit_and_verify(t.db, txn);
    sets_delete_reopen_empty(&t.db, t.path, &f);
    sets_close(&f);
    test_db_close(&t);
}

/* Thousands of numbers inserted and erased at random (the set in chunks,
 * kept sorted) and found; then erased one by one: the user tree has the
 * nodes it had before. */
TEST(large_set)
{
    test_db t = links_db_open("sets");
    ce_db *db = t.db;
    big_sorted big = big_sorted_open(db);
    ce_table_key table = big.table;
    ce_column_key numbers = big.numbers;
    ce_object_key object = big.object;
    enum { VALUES = 2000, STEPS = 3000 };
    ce_txn *txn;
    tree_size before = user_tree_size(db);

    /* A set of random numbers, inserted and erased at random. */
    model_collection *set_model = NULL;
    ce_collection *set;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, numbers, &set));
    for (int step = 0; step < STEPS; step++) {
        ce_value value = int_value((int64_t)random_below(4 * VALUES) * 1000003 - 5000000);
        bool changed;
        if (step % 5 == 4) {
            bool present = model_set_erase(&set_model, &value);
            CHECK(ce_set_erase(set, &value, &changed) && changed == present);
        } else {
            bool absent = model_set_insert(&set_model, &value);
            CHECK(ce_set_insert(set, &value, &changed) && changed == absent);
        }
        if (step % 1000 == 999) check_collection(set, set_model, "BigSorted.numbers");
        if (step == VALUES) {
            ce_collection_close(set);
            commit_and_verify(db, txn);
            CHECK(ce_txn_begin_write(db, &txn));
            CHECK(ce_collection_open(txn, table, object, numbers, &set));
        }
    }
    CHECK(model_collection_count(set_model) > 1500); /* in chunks */
    check_collection(set, set_model, "BigSorted.numbers");
    for (int probe = 0; probe < 200; probe++) {
        size_t index, wanted = random_below(model_collection_count(set_model));
        bool found;
        CHECK(ce_collection_find(set, &set_model->elements[wanted].value, &index, &found) && found && index == wanted);
    }
    ce_collection_close(set);
    commit_and_verify(db, txn);

    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_collection_open(txn, table, object, numbers, &set));
    while (model_collection_count(set_model) > 0) {
        size_t victim = random_below(model_collection_count(set_model));
        bool changed;
        CHECK(ce_set_erase(set, &set_model->elements[victim].value, &changed) && changed);
        model_set_erase(&set_model, &set_model->elements[victim].value);
    }
    check_collection(set, set_model, "BigSorted.numbers");
    ce_collection_close(set);
    commit_and_verify(db, txn);
    CHECK(user_tree_size(db).nodes == before.nodes);
    model_collection_free(&set_model);
    test_db_close(&t);
}
