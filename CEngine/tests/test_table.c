/*
 * test_table.c — the object store through the public API: tables and
 * properties, objects of every scalar type, primary keys, errors that name
 * the table, property and value, rollback of each, schema changes, and a
 * large table checked against a model. ce_db_verify after every commit.
 */
#include "test_support.h"

#include <math.h>

#define RANDOM_SEED 0x7AB1E
static uint64_t random_state = RANDOM_SEED;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A case that draws random values starts from the seed: the same values
 * whether it runs alone or after other cases. */
static void seed_random(void) { random_state = RANDOM_SEED; }

static ce_value int_value(int64_t v) { return (ce_value){.type = CE_TYPE_INT, .integer = v}; }
static ce_value string_value(const char *text)
{
    return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}};
}
static ce_value null_value(void) { return (ce_value){.type = CE_TYPE_NULL}; }

static void expect_error(bool ok, ce_error_code code, const char *fragment)
{
    if (ok || ce_last_error_code() != code || (fragment && !strstr(ce_last_error_message(), fragment))) {
        fprintf(stderr, "expected error [%d] containing '%s', got %s [%d] %s\n", (int)code, fragment ? fragment : "",
                ok ? "success" : "failure", (int)ce_last_error_code(), ce_last_error_message());
        exit(1);
    }
}

static ce_column_key add_property(ce_txn *txn, ce_table_key table, const char *name, ce_type type, bool nullable)
{
    ce_property_info info = {.name = name, .type = type, .nullable = nullable};
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

TEST(schema)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    size_t count;
    CHECK(ce_table_count(txn, &count) && count == 0);
    ce_table_key person, dog;
    CHECK(ce_table_add(txn, "Person", &person));
    CHECK(ce_table_add(txn, "Dog", &dog));
    expect_error(ce_table_add(txn, "Person", &dog), CE_ERR_DUPLICATE_NAME, "'Person'");
    expect_error(ce_table_add(txn, "", &dog), CE_ERR_INVALID_ARGUMENT, "not a valid table name");
    ce_column_key name = add_property(txn, person, "name", CE_TYPE_STRING, false);
    add_property(txn, person, "age", CE_TYPE_INT, false);
    expect_error(ce_property_add(txn, person, &(ce_property_info){.name = "name", .type = CE_TYPE_INT, .nullable = false, .primary_key = false, .indexed = false}, &name),
                 CE_ERR_DUPLICATE_NAME, "'name'");
    expect_error(ce_property_add(txn, person, &(ce_property_info){.name = "score", .type = CE_TYPE_DOUBLE, .nullable = false, .primary_key = true, .indexed = false}, &name),
                 CE_ERR_INVALID_SCHEMA, "primary key must be");
    CHECK(ce_set_schema_version(txn, 7));
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    CHECK(ce_txn_begin_read(db, &txn));
    ce_table_key found_key;
    bool found;
    CHECK(ce_table_find(txn, "Dog", &found_key, &found) && found && found_key == dog);
    CHECK(ce_table_find(txn, "Cat", &found_key, &found) && !found);
    const char *table_name;
    CHECK(ce_table_name(txn, person, &table_name) && strcmp(table_name, "Person") == 0);
    ce_column_key column;
    CHECK(ce_property_find(txn, person, "age", &column, &found) && found && column == 1);
    ce_property_info info;
    CHECK(ce_property_get_info(txn, person, column, &info));
    CHECK(strcmp(info.name, "age") == 0 && info.type == CE_TYPE_INT && !info.nullable && !info.primary_key);
    uint64_t version;
    CHECK(ce_schema_version(txn, &version) && version == 7);
    expect_error(ce_table_add(txn, "Cat", &found_key), CE_ERR_WRONG_TRANSACTION_STATE, NULL);
    expect_error(ce_property_get_info(txn, 99, 0, &info), CE_ERR_NO_SUCH_TABLE, NULL);
    expect_error(ce_property_get_info(txn, person, 99, &info), CE_ERR_NO_SUCH_PROPERTY, "'Person'");
    ce_txn_end(txn);

    /* A rolled-back schema change leaves nothing behind. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Cat", &found_key));
    add_property(txn, dog, "breed", CE_TYPE_STRING, true);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_table_find(txn, "Cat", &found_key, &found) && !found);
    CHECK(ce_property_find(txn, dog, "breed", &column, &found) && !found);
    ce_txn_end(txn);
    test_verify(db);
    test_db_close(&t);
}

/* One property of every scalar type, nullable and not; values round-trip
 * through commits and reopen. */
typedef struct typed_column {
    const char *name;
    ce_type type;
    bool nullable;
    ce_column_key key;
} typed_column;

static ce_value sample_value(ce_type type, int variant, char *buffer)
{
    ce_value value = {.type = type};
    switch (type) {
    case CE_TYPE_INT: value.integer = variant == 0 ? INT64_MIN : variant == 1 ? INT64_MAX : variant * 1000003LL; break;
    case CE_TYPE_BOOL: value.boolean = variant % 2; break;
    case CE_TYPE_FLOAT: value.float_value = variant == 0 ? -0.0f : (float)variant / 3.0f; break;
    case CE_TYPE_DOUBLE: value.double_value = variant == 0 ? -1e308 : variant / 7.0; break;
    case CE_TYPE_STRING:
        sprintf(buffer, "héllo %d ✓", variant);
        value.string.data = buffer;
        value.string.size = strlen(buffer);
        break;
    case CE_TYPE_BINARY:
        for (int i = 0; i < 20; i++) buffer[i] = (char)(variant * 31 + i);
        value.binary.data = (const uint8_t *)buffer;
        value.binary.size = (size_t)(variant % 20);
        break;
    case CE_TYPE_TIMESTAMP: value.timestamp = (ce_timestamp){variant * 86400LL - 5, variant * 1000}; break;
    case CE_TYPE_DECIMAL128: value.decimal = (ce_decimal128){(uint64_t)variant, 0x3040000000000000ull}; break;
    case CE_TYPE_OBJECT_ID: for (int i = 0; i < 12; i++) value.object_id.bytes[i] = (uint8_t)(variant + i); break;
    case CE_TYPE_UUID: for (int i = 0; i < 16; i++) value.uuid.bytes[i] = (uint8_t)(variant * 7 + i); break;
    default: break;
    }
    return value;
}

TEST(every_type)
{
    char *dir = test_make_dir("table");
    char *path = test_path(dir, "types.realm");
    static const ce_type types[] = {CE_TYPE_INT, CE_TYPE_BOOL, CE_TYPE_FLOAT, CE_TYPE_DOUBLE, CE_TYPE_STRING,
                                    CE_TYPE_BINARY, CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128, CE_TYPE_OBJECT_ID, CE_TYPE_UUID};
    enum { TYPE_COUNT = sizeof types / sizeof types[0], OBJECTS = 600 };
    typed_column columns[2 * TYPE_COUNT];
    char names[2 * TYPE_COUNT][32];
    ce_db *db = test_open(path);
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "AllTypes", &table));
    for (size_t i = 0; i < 2 * TYPE_COUNT; i++) {
        ce_type type = types[i % TYPE_COUNT];
        bool nullable = i >= TYPE_COUNT;
        snprintf(names[i], sizeof names[i], "%s%s", ce_type_name(type), nullable ? "Optional" : "");
        columns[i] = (typed_column){names[i], type, nullable, add_property(txn, table, names[i], type, nullable)};
    }
    /* Defaults of a new object. */
    ce_object_key first;
    CHECK(ce_object_create(txn, table, NULL, &first));
    for (size_t i = 0; i < 2 * TYPE_COUNT; i++) {
        ce_value value;
        CHECK(ce_object_get(txn, table, first, columns[i].key, &value));
        if (columns[i].nullable) CHECK(value.type == CE_TYPE_NULL);
        else CHECK(value.type == columns[i].type);
    }
    char buffer[64];
    for (int object = 1; object < OBJECTS; object++) {
        ce_object_key key;
        CHECK(ce_object_create(txn, table, NULL, &key));
        CHECK(key == object);
        for (size_t i = 0; i < 2 * TYPE_COUNT; i++) {
            ce_value value = sample_value(columns[i].type, object, buffer);
            if (columns[i].nullable && object % 3 == 0) value = null_value();
            CHECK(ce_object_set(txn, table, key, columns[i].key, &value));
        }
    }
    /* Wrong types and nulls are refused with the table and property named. */
    ce_value text = string_value("x");
    expect_error(ce_object_set(txn, table, 1, columns[0].key, &text), CE_ERR_WRONG_TYPE, "'AllTypes.int'");
    ce_value none = null_value();
    expect_error(ce_object_set(txn, table, 1, columns[0].key, &none), CE_ERR_NULL_NOT_ALLOWED, "'AllTypes.int'");
    ce_value bad_utf8 = {.type = CE_TYPE_STRING, .string = {"\xC3\x28", 2}};
    expect_error(ce_object_set(txn, table, 1, columns[4].key, &bad_utf8), CE_ERR_INVALID_ARGUMENT, "UTF-8");
    expect_error(ce_object_set(txn, table, 99999, columns[0].key, &(ce_value){.type = CE_TYPE_INT}),
                 CE_ERR_NO_SUCH_OBJECT, "'AllTypes'");
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));

    db = test_open(path);
    CHECK(ce_txn_begin_read(db, &txn));
    size_t count;
    CHECK(ce_object_count(txn, table, &count) && count == OBJECTS);
    for (int object = 1; object < OBJECTS; object++) {
        for (size_t i = 0; i < 2 * TYPE_COUNT; i++) {
            ce_value expected = sample_value(columns[i].type, object, buffer), actual;
            if (columns[i].nullable && object % 3 == 0) expected = null_value();
            CHECK(ce_object_get(txn, table, object, columns[i].key, &actual));
            if (!test_same_value(&expected, &actual)) {
                fprintf(stderr, "object %d, property %s: wrong value\n", object, columns[i].name);
                exit(1);
            }
        }
    }
    ce_txn_end(txn);
    /* Removing a property drops its values; the file verifies (nothing leaks). */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_property_remove(txn, table, columns[4].key));
    ce_value value;
    expect_error(ce_object_get(txn, table, 5, columns[4].key, &value), CE_ERR_NO_SUCH_PROPERTY, NULL);
    CHECK(ce_object_get(txn, table, 5, columns[5].key, &value) && value.type == CE_TYPE_BINARY);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_remove(txn, table));
    expect_error(ce_object_count(txn, table, &count), CE_ERR_NO_SUCH_TABLE, NULL);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

TEST(primary_keys)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key people, tags;
    ce_column_key id, name, label;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Customer", &people));
    CHECK(ce_property_add(txn, people, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false}, &id));
    name = add_property(txn, people, "name", CE_TYPE_STRING, false);
    CHECK(ce_table_add(txn, "Tag", &tags));
    CHECK(ce_property_add(txn, tags, &(ce_property_info){.name = "label", .type = CE_TYPE_STRING, .nullable = true, .primary_key = true, .indexed = false}, &label));
    expect_error(ce_property_add(txn, tags, &(ce_property_info){.name = "other", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false}, &id),
                 CE_ERR_INVALID_SCHEMA, "has a primary key already");
    for (int64_t i = 0; i < 5000; i++) {
        ce_object_key key;
        ce_value pk = int_value(i * 3 - 7000);
        CHECK(ce_object_create(txn, people, &pk, &key));
        char text[32];
        sprintf(text, "customer %lld", (long long)i);
        ce_value value = string_value(text);
        CHECK(ce_object_set(txn, people, key, name, &value));
    }
    ce_object_key key;
    ce_value duplicate = int_value(-7000);
    expect_error(ce_object_create(txn, people, &duplicate, &key), CE_ERR_DUPLICATE_PRIMARY_KEY,
                 "type 'Customer' with an existing primary key value -7000");
    expect_error(ce_object_create(txn, people, NULL, &key), CE_ERR_INVALID_ARGUMENT, "needs a primary key");
    ce_value text_key = string_value("1");
    expect_error(ce_object_create(txn, people, &text_key, &key), CE_ERR_WRONG_TYPE, "'Customer.id'");
    ce_value new_id = int_value(1);
    expect_error(ce_object_set(txn, people, 0, id, &new_id), CE_ERR_PRIMARY_KEY_IMMUTABLE, "'Customer.id'");
    /* An optional string key takes null once. */
    ce_value none = null_value();
    CHECK(ce_object_create(txn, tags, &none, &key));
    expect_error(ce_object_create(txn, tags, &none, &key), CE_ERR_DUPLICATE_PRIMARY_KEY, "null");
    for (int i = 0; i < 300; i++) {
        char text[16];
        sprintf(text, "tag-%d", i);
        ce_value pk = string_value(text);
        CHECK(ce_object_create(txn, tags, &pk, &key));
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    CHECK(ce_txn_begin_read(db, &txn));
    for (int64_t i = 0; i < 5000; i += 7) {
        bool found;
        ce_value pk = int_value(i * 3 - 7000), value;
        CHECK(ce_object_find_primary_key(txn, people, &pk, &key, &found) && found && key == i);
        CHECK(ce_object_get(txn, people, key, name, &value));
        char text[32];
        sprintf(text, "customer %lld", (long long)i);
        CHECK(value.string.size == strlen(text) && memcmp(value.string.data, text, value.string.size) == 0);
    }
    bool found;
    ce_value absent = int_value(1);
    CHECK(ce_object_find_primary_key(txn, people, &absent, &key, &found) && !found);
    ce_value tag = string_value("tag-123");
    CHECK(ce_object_find_primary_key(txn, tags, &tag, &key, &found) && found && key == 124);
    CHECK(ce_object_find_primary_key(txn, tags, &none, &key, &found) && found && key == 0);
    ce_txn_end(txn);

    /* Deleting frees the key for reuse; a deleted object is gone everywhere. */
    CHECK(ce_txn_begin_write(db, &txn));
    ce_value pk = int_value(-7000 + 3 * 10);
    CHECK(ce_object_find_primary_key(txn, people, &pk, &key, &found) && found);
    CHECK(ce_object_delete(txn, people, key));
    expect_error(ce_object_delete(txn, people, key), CE_ERR_NO_SUCH_OBJECT, "'Customer'");
    ce_value value;
    expect_error(ce_object_get(txn, people, key, name, &value), CE_ERR_NO_SUCH_OBJECT, NULL);
    CHECK(ce_object_find_primary_key(txn, people, &pk, &key, &found) && !found);
    ce_object_key again;
    CHECK(ce_object_create(txn, people, &pk, &again));
    CHECK(again == 5000); /* keys are never reused */
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

/* Random creates, sets and deletes against a model, with commits and
 * rollbacks: exercises splits and merges of the cluster tree. */
TEST(against_model)
{
    seed_random();
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    enum { CAPACITY = 30000 };
    int64_t *model = calloc(CAPACITY, sizeof *model);
    bool *alive = calloc(CAPACITY, sizeof *alive);
    ce_txn *txn;
    ce_table_key table;
    ce_column_key value_column;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Model", &table));
    value_column = add_property(txn, table, "value", CE_TYPE_INT, false);
    CHECK(ce_txn_commit(txn));
    int64_t next_key = 0;
    for (int round = 0; round < 40; round++) {
        int64_t *saved_model = malloc(CAPACITY * sizeof *model);
        bool *saved_alive = malloc(CAPACITY * sizeof *alive);
        memcpy(saved_model, model, CAPACITY * sizeof *model);
        memcpy(saved_alive, alive, CAPACITY * sizeof *alive);
        int64_t saved_next = next_key;
        CHECK(ce_txn_begin_write(db, &txn));
        for (int step = 0; step < 700; step++) {
            uint64_t choice = next_random() % 10;
            if (choice < 5 && next_key < CAPACITY) {
                ce_object_key key;
                CHECK(ce_object_create(txn, table, NULL, &key));
                CHECK(key == next_key);
                int64_t v = (int64_t)(next_random() % 1000000) - 500000;
                CHECK(ce_object_set(txn, table, key, value_column, &(ce_value){.type = CE_TYPE_INT, .integer = v}));
                model[key] = v;
                alive[key] = true;
                next_key++;
            } else if (next_key > 0) {
                int64_t key = (int64_t)(next_random() % (uint64_t)next_key);
                if (!alive[key]) continue;
                if (choice < 8) {
                    int64_t v = (int64_t)next_random();
                    CHECK(ce_object_set(txn, table, key, value_column, &(ce_value){.type = CE_TYPE_INT, .integer = v}));
                    model[key] = v;
                } else {
                    CHECK(ce_object_delete(txn, table, key));
                    alive[key] = false;
                }
            }
        }
        if (round % 4 == 3) {
            ce_txn_end(txn); /* roll back: the model goes back too */
            memcpy(model, saved_model, CAPACITY * sizeof *model);
            memcpy(alive, saved_alive, CAPACITY * sizeof *alive);
            next_key = saved_next;
        } else {
            CHECK(ce_txn_commit(txn));
        }
        free(saved_model);
        free(saved_alive);
        test_verify(db);
        CHECK(ce_txn_begin_read(db, &txn));
        size_t expected = 0, count;
        for (int64_t key = 0; key < next_key; key++) {
            bool exists;
            CHECK(ce_object_exists(txn, table, key, &exists));
            CHECK(exists == alive[key]);
            if (!alive[key]) continue;
            ce_value value;
            CHECK(ce_object_get(txn, table, key, value_column, &value) && value.integer == model[key]);
            ce_object_key at;
            CHECK(ce_object_key_at(txn, table, expected, &at) && at == key);
            expected++;
        }
        CHECK(ce_object_count(txn, table, &count) && count == expected);
        ce_txn_end(txn);
    }
    free(model);
    free(alive);
    test_db_close(&t);
}

/* A table large enough for inner nodes to split (over 256 leaves of 256
 * objects), filled in key order, then thinned from the middle and the ends. */
TEST(large_table)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    enum { OBJECTS = 150000 };
    ce_txn *txn;
    ce_table_key table;
    ce_column_key id, value_column;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Large", &table));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false}, &id));
    value_column = add_property(txn, table, "value", CE_TYPE_DOUBLE, false);
    for (int64_t i = 0; i < OBJECTS; i++) {
        ce_object_key key;
        ce_value pk = int_value(i + 1);
        CHECK(ce_object_create(txn, table, &pk, &key));
        CHECK(ce_object_set(txn, table, key, value_column, &(ce_value){.type = CE_TYPE_DOUBLE, .double_value = i * 0.5}));
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t key = 0; key < OBJECTS; key++)
        if (key % 3 == 0 || (key > 50000 && key < 90000)) CHECK(ce_object_delete(txn, table, key));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    size_t count, expected = 0;
    for (int64_t key = 0; key < OBJECTS; key++) {
        bool alive = !(key % 3 == 0 || (key > 50000 && key < 90000));
        if (!alive) continue;
        if (key % 101 == 1) {
            ce_value value;
            bool found;
            ce_object_key at;
            CHECK(ce_object_get(txn, table, key, value_column, &value) && value.double_value == key * 0.5);
            CHECK(ce_object_key_at(txn, table, expected, &at) && at == key);
            ce_value pk = int_value(key + 1);
            CHECK(ce_object_find_primary_key(txn, table, &pk, &at, &found) && found && at == key);
        }
        expected++;
    }
    CHECK(ce_object_count(txn, table, &count) && count == expected);
    ce_txn_end(txn);
    test_db_close(&t);
}

/* Creating objects with all their values at once: the same checks as one
 * value at a time, a removed property's slot ignored. */
TEST(create_with_values)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key id, name, gone, score;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Bulk", &table));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "id", .type = CE_TYPE_STRING, .nullable = false, .primary_key = true, .indexed = false}, &id));
    name = add_property(txn, table, "name", CE_TYPE_STRING, true);
    gone = add_property(txn, table, "gone", CE_TYPE_INT, false);
    score = add_property(txn, table, "score", CE_TYPE_DOUBLE, false);
    CHECK(ce_property_remove(txn, table, gone));
    char text[32];
    for (int i = 0; i < 2000; i++) {
        sprintf(text, "key-%d", i);
        ce_value values[4] = {string_value(text), i % 2 ? string_value("odd") : null_value(),
                              {.type = CE_TYPE_BOOL}, {.type = CE_TYPE_DOUBLE, .double_value = i / 4.0}};
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, 4, &key) && key == i);
    }
    ce_object_key key;
    ce_value duplicate[4] = {string_value("key-7"), null_value(), null_value(), {.type = CE_TYPE_DOUBLE}};
    expect_error(ce_object_create_with_values(txn, table, duplicate, 4, &key), CE_ERR_DUPLICATE_PRIMARY_KEY, "'key-7'");
    expect_error(ce_object_create_with_values(txn, table, duplicate, 3, &key), CE_ERR_INVALID_ARGUMENT, "4 column slots");
    ce_value wrong[4] = {string_value("new"), null_value(), null_value(), int_value(1)};
    expect_error(ce_object_create_with_values(txn, table, wrong, 4, &key), CE_ERR_WRONG_TYPE, "'Bulk.score'");
    ce_value missing[4] = {null_value(), null_value(), null_value(), {.type = CE_TYPE_DOUBLE}};
    expect_error(ce_object_create_with_values(txn, table, missing, 4, &key), CE_ERR_NULL_NOT_ALLOWED, "'Bulk.id'");
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    size_t count;
    CHECK(ce_object_count(txn, table, &count) && count == 2000);
    for (int i = 0; i < 2000; i += 37) {
        sprintf(text, "key-%d", i);
        ce_value pk = string_value(text), value;
        bool found;
        CHECK(ce_object_find_primary_key(txn, table, &pk, &key, &found) && found && key == i);
        CHECK(ce_object_get(txn, table, key, name, &value));
        CHECK(i % 2 ? value.type == CE_TYPE_STRING && value.string.size == 3 : value.type == CE_TYPE_NULL);
        CHECK(ce_object_get(txn, table, key, score, &value) && value.double_value == i / 4.0);
    }
    ce_txn_end(txn);
    test_db_close(&t);
}

/* Secondary indexes: built for the objects a table has when a property is
 * added indexed, kept through sets and deletes, and used by find_first,
 * whose answers match a scan of an unindexed twin property. */
TEST(secondary_indexes)
{
    seed_random();
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    enum { OBJECTS = 3000 };
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Indexed", &table));
    for (int i = 0; i < OBJECTS; i++) {
        ce_object_key key;
        CHECK(ce_object_create(txn, table, NULL, &key));
    }
    /* Added after the objects exist: the index starts from the defaults. */
    ce_column_key number, number_plain, text, text_plain, flag;
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "number", .type = CE_TYPE_INT, .nullable = true, .primary_key = false, .indexed = true}, &number));
    number_plain = add_property(txn, table, "numberPlain", CE_TYPE_INT, true);
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "text", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = true}, &text));
    text_plain = add_property(txn, table, "textPlain", CE_TYPE_STRING, false);
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "flag", .type = CE_TYPE_BOOL, .nullable = false, .primary_key = false, .indexed = true}, &flag));
    ce_column_key unused;
    expect_error(ce_property_add(txn, table, &(ce_property_info){.name = "real", .type = CE_TYPE_DOUBLE, .nullable = false, .primary_key = false, .indexed = true}, &unused),
                 CE_ERR_INVALID_SCHEMA, "cannot be indexed");
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    char buffer[32];
    for (int round = 0; round < 6; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int step = 0; step < 800; step++) {
            ce_object_key key = (ce_object_key)(next_random() % OBJECTS);
            bool exists;
            CHECK(ce_object_exists(txn, table, key, &exists));
            if (!exists) continue;
            if (next_random() % 40 == 0) {
                CHECK(ce_object_delete(txn, table, key));
                continue;
            }
            ce_value number_value = next_random() % 7 == 0 ? null_value() : int_value((int64_t)(next_random() % 50));
            sprintf(buffer, "t%d", (int)(next_random() % 60));
            ce_value text_value = string_value(buffer);
            CHECK(ce_object_set(txn, table, key, number, &number_value));
            CHECK(ce_object_set(txn, table, key, number_plain, &number_value));
            CHECK(ce_object_set(txn, table, key, text, &text_value));
            CHECK(ce_object_set(txn, table, key, text_plain, &text_value));
            CHECK(ce_object_set(txn, table, key, flag, &(ce_value){.type = CE_TYPE_BOOL, .boolean = key % 2}));
        }
        if (round == 3) ce_txn_end(txn);
        else CHECK(ce_txn_commit(txn));
        test_verify(db);
        CHECK(ce_txn_begin_read(db, &txn));
        for (int probe = -1; probe < 55; probe++) {
            ce_value wanted = probe < 0 ? null_value() : int_value(probe);
            ce_object_key with_index, with_scan;
            bool found_index, found_scan;
            CHECK(ce_object_find_first(txn, table, number, &wanted, &with_index, &found_index));
            CHECK(ce_object_find_first(txn, table, number_plain, &wanted, &with_scan, &found_scan));
            CHECK(found_index == found_scan && (!found_index || with_index == with_scan));
            sprintf(buffer, "t%d", probe);
            ce_value wanted_text = string_value(probe < 0 ? "" : buffer);
            CHECK(ce_object_find_first(txn, table, text, &wanted_text, &with_index, &found_index));
            CHECK(ce_object_find_first(txn, table, text_plain, &wanted_text, &with_scan, &found_scan));
            CHECK(found_index == found_scan && (!found_index || with_index == with_scan));
        }
        ce_object_key key;
        bool found;
        CHECK(ce_object_find_first(txn, table, flag, &(ce_value){.type = CE_TYPE_BOOL, .boolean = true}, &key, &found));
        CHECK(found && key % 2 == 1);
        ce_txn_end(txn);
    }
    /* Indexes made and dropped later (ce_property_set_indexed): numberPlain
     * gains one, number loses its own, a rolled-back change leaves textPlain
     * as it was; each lookup still agrees with the other column, before and
     * after more changes, and verify finds no leaked node. */
    ce_property_info info;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_property_set_indexed(txn, table, text_plain, true));
    ce_txn_end(txn); /* rolled back */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_property_get_info(txn, table, text_plain, &info) && !info.indexed);
    CHECK(ce_property_set_indexed(txn, table, number_plain, true));
    CHECK(ce_property_set_indexed(txn, table, number_plain, true)); /* no change: no error */
    CHECK(ce_property_set_indexed(txn, table, number, false));
    CHECK(ce_property_get_info(txn, table, number_plain, &info) && info.indexed);
    CHECK(ce_property_get_info(txn, table, number, &info) && !info.indexed);
    ce_column_key real = add_property(txn, table, "realPlain", CE_TYPE_DOUBLE, false);
    expect_error(ce_property_set_indexed(txn, table, real, true), CE_ERR_INVALID_SCHEMA, "cannot be indexed");
    for (int step = 0; step < 500; step++) {
        ce_object_key key = (ce_object_key)(next_random() % OBJECTS);
        bool exists;
        CHECK(ce_object_exists(txn, table, key, &exists));
        if (!exists) continue;
        ce_value number_value = next_random() % 5 == 0 ? null_value() : int_value((int64_t)(next_random() % 50));
        CHECK(ce_object_set(txn, table, key, number, &number_value));
        CHECK(ce_object_set(txn, table, key, number_plain, &number_value));
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_property_get_info(txn, table, number_plain, &info) && info.indexed);
    for (int probe = -1; probe < 55; probe++) {
        ce_value wanted = probe < 0 ? null_value() : int_value(probe);
        ce_object_key with_index, with_scan;
        bool found_index, found_scan;
        CHECK(ce_object_find_first(txn, table, number_plain, &wanted, &with_index, &found_index));
        CHECK(ce_object_find_first(txn, table, number, &wanted, &with_scan, &found_scan));
        CHECK(found_index == found_scan && (!found_index || with_index == with_scan));
    }
    ce_txn_end(txn);

    /* Removing an indexed property frees its index (verify: no leak). */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_property_remove(txn, table, text));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

/* Realm's UpdatePolicy through create_or_update. */
TEST(update_policies)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key id, name, age;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Updated", &table));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false}, &id));
    name = add_property(txn, table, "name", CE_TYPE_STRING, false);
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "age", .type = CE_TYPE_INT, .nullable = false, .primary_key = false, .indexed = true}, &age));
    ce_value first[3] = {int_value(1), string_value("Ada"), int_value(36)};
    ce_object_key key, again;
    bool created;
    CHECK(ce_object_create_or_update(txn, table, first, 3, CE_UPDATE_ALL, &key, &created) && created);
    ce_value second[3] = {int_value(1), string_value("Ada Lovelace"), int_value(37)};
    expect_error(ce_object_create_or_update(txn, table, second, 3, CE_UPDATE_ERROR, &again, &created),
                 CE_ERR_DUPLICATE_PRIMARY_KEY, "existing primary key value 1");
    CHECK(ce_object_create_or_update(txn, table, second, 3, CE_UPDATE_MODIFIED, &again, &created));
    CHECK(!created && again == key);
    ce_value value;
    CHECK(ce_object_get(txn, table, key, name, &value) && value.string.size == 12);
    bool found;
    CHECK(ce_object_find_first(txn, table, age, &second[2], &again, &found) && found && again == key);
    CHECK(ce_object_find_first(txn, table, age, &first[2], &again, &found) && !found); /* the index moved on */
    CHECK(ce_object_create_or_update(txn, table, first, 3, CE_UPDATE_ALL, &again, &created) && !created);
    CHECK(ce_object_get(txn, table, key, age, &value) && value.integer == 36);
    ce_value other[3] = {int_value(2), string_value("Grace"), int_value(85)};
    CHECK(ce_object_create_or_update(txn, table, other, 3, CE_UPDATE_MODIFIED, &again, &created) && created);
    expect_error(ce_object_create_or_update(txn, table, other, 3, (ce_update_policy)9, &again, &created),
                 CE_ERR_INVALID_ARGUMENT, "policy");
    size_t count;
    CHECK(ce_object_count(txn, table, &count) && count == 2);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

/* CE_UPDATE_MODIFIED_KEEP_EMBEDDED: a null for a link to an embedded table
 * keeps the embedded object (Realm Swift's add(_:update: .modified) then
 * updates it in place: realm-core's CreatePolicy::UpdateModified keeps
 * embedded objects, RealmSwift/Tests/ModernObjectCreationTests.swift
 * testAddAndUpdateChangedEmbedded); CE_UPDATE_MODIFIED replaces it. */
TEST(update_keeps_embedded)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key parent, child;
    ce_column_key id, part, value;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "KeptParent", &parent) && ce_table_add_embedded(txn, "KeptChild", &child));
    CHECK(ce_property_add(txn, parent, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true}, &id));
    CHECK(ce_property_add(txn, parent, &(ce_property_info){.name = "part", .type = CE_TYPE_LINK, .nullable = true, .link_target = child}, &part));
    value = add_property(txn, child, "value", CE_TYPE_INT, false);
    ce_value values[2] = {int_value(1), {.type = CE_TYPE_NULL}};
    ce_object_key key, again, embedded;
    bool created;
    CHECK(ce_object_create_or_update(txn, parent, values, 2, CE_UPDATE_ALL, &key, &created) && created);
    CHECK(ce_object_create_embedded(txn, parent, key, part, &embedded));
    ce_value seven = int_value(7);
    CHECK(ce_object_set(txn, child, embedded, value, &seven));
    CHECK(ce_object_create_or_update(txn, parent, values, 2, CE_UPDATE_MODIFIED_KEEP_EMBEDDED, &again, &created));
    CHECK(!created && again == key);
    ce_value link;
    CHECK(ce_object_get(txn, parent, key, part, &link) && link.type == CE_TYPE_LINK && link.link.key == embedded);
    size_t count;
    CHECK(ce_object_count(txn, child, &count) && count == 1);
    CHECK(ce_object_create_or_update(txn, parent, values, 2, CE_UPDATE_MODIFIED, &again, &created) && !created);
    CHECK(ce_object_get(txn, parent, key, part, &link) && link.type == CE_TYPE_NULL);
    CHECK(ce_object_count(txn, child, &count) && count == 0);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

/* A malformed timestamp is refused before anything changes (found by
 * Fuzz/fuzz_ops). The column layer refused it only when it wrote the value:
 * create_with_values had by then inserted the object's key into a leaf this
 * transaction had copied already (the table counted a phantom object), and
 * a set of an indexed timestamp had moved the index entry to the new value
 * (a later delete found no entry to erase). */
TEST(malformed_timestamp)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key when;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Event", &table));
    add_property(txn, table, "count", CE_TYPE_INT, false);
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "when", .type = CE_TYPE_TIMESTAMP, .nullable = false, .primary_key = false, .indexed = true}, &when));
    ce_value good = {.type = CE_TYPE_TIMESTAMP, .timestamp = {100, 5}};
    ce_value values[2] = {int_value(1), good};
    ce_object_key key, other;
    CHECK(ce_object_create_with_values(txn, table, values, 2, &key));
    ce_value bad = {.type = CE_TYPE_TIMESTAMP, .timestamp = {-5, 7}}; /* nanoseconds of the other sign */
    ce_value bad_values[2] = {int_value(2), bad};
    expect_error(ce_object_create_with_values(txn, table, bad_values, 2, &other), CE_ERR_INVALID_ARGUMENT,
                 "'Event.when'");
    size_t count;
    CHECK(ce_object_count(txn, table, &count) && count == 1);
    bad.timestamp = (ce_timestamp){1, 1000000000};
    expect_error(ce_object_set(txn, table, key, when, &bad), CE_ERR_INVALID_ARGUMENT, "'Event.when'");
    bool found;
    CHECK(ce_object_find_first(txn, table, when, &good, &other, &found) && found && other == key);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_delete(txn, table, key)); /* erases the index entry of the stored value */
    CHECK(ce_object_count(txn, table, &count) && count == 0);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

/* Sums read the columns leaf by leaf: checked against the values summed one
 * object at a time, with nulls, deletions and several leaves. */
TEST(sums)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Sums", &table));
    ce_column_key whole = add_property(txn, table, "whole", CE_TYPE_INT, false);
    ce_column_key maybe = add_property(txn, table, "maybe", CE_TYPE_INT, true);
    ce_column_key real = add_property(txn, table, "real", CE_TYPE_DOUBLE, false);
    ce_column_key small = add_property(txn, table, "small", CE_TYPE_FLOAT, true);
    ce_column_key text = add_property(txn, table, "text", CE_TYPE_STRING, false);
    int64_t whole_total = 0, maybe_total = 0;
    double real_total = 0, small_total = 0;
    size_t maybe_count = 0, small_count = 0;
    for (int i = 0; i < 5000; i++) {
        ce_object_key key;
        CHECK(ce_object_create(txn, table, NULL, &key));
        int64_t w = (int64_t)(next_random() % 2001) - 1000;
        double r = (double)(next_random() % 1000) / 8.0;
        CHECK(ce_object_set(txn, table, key, whole, &(ce_value){.type = CE_TYPE_INT, .integer = w}));
        CHECK(ce_object_set(txn, table, key, real, &(ce_value){.type = CE_TYPE_DOUBLE, .double_value = r}));
        if (i % 3) {
            CHECK(ce_object_set(txn, table, key, maybe, &(ce_value){.type = CE_TYPE_INT, .integer = i}));
            CHECK(ce_object_set(txn, table, key, small, &(ce_value){.type = CE_TYPE_FLOAT, .float_value = 0.5f}));
        }
        if (i % 7 == 0) {
            CHECK(ce_object_delete(txn, table, key));
            continue;
        }
        whole_total += w;
        real_total += r;
        if (i % 3) {
            maybe_total += i;
            maybe_count++;
            small_total += 0.5;
            small_count++;
        }
    }
    ce_value sum;
    size_t counted;
    CHECK(ce_table_sum(txn, table, whole, &sum, &counted) && sum.type == CE_TYPE_INT && sum.integer == whole_total);
    CHECK(ce_table_sum(txn, table, maybe, &sum, &counted) && sum.integer == maybe_total && counted == maybe_count);
    CHECK(ce_table_sum(txn, table, small, &sum, &counted) && sum.type == CE_TYPE_DOUBLE && sum.double_value == small_total &&
          counted == small_count);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    /* Eighths of integers add up exactly in a double. */
    CHECK(ce_table_sum(txn, table, real, &sum, NULL) && sum.double_value == real_total);
    expect_error(ce_table_sum(txn, table, text, &sum, NULL), CE_ERR_WRONG_TYPE, "'Sums.text'");
    ce_txn_end(txn);
    test_db_close(&t);
}

/* The append buffer copies each value member by member (object.c): every
 * scalar type, empty and non-empty strings and binaries, and a removed
 * property's slot (null whatever was given) come back as given. */
TEST(buffered_creation_of_every_type)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Typed", &table));
    ce_property_info infos[] = {
        {.name = "flag", .type = CE_TYPE_BOOL},       {.name = "ratio", .type = CE_TYPE_FLOAT},
        {.name = "blob", .type = CE_TYPE_BINARY},     {.name = "text", .type = CE_TYPE_STRING},
        {.name = "amount", .type = CE_TYPE_DECIMAL128}, {.name = "uuid", .type = CE_TYPE_UUID},
        {.name = "gone", .type = CE_TYPE_INT},
    };
    enum { TYPED_COLUMNS = 7, TYPED_OBJECTS = 700 };
    ce_column_key columns[TYPED_COLUMNS];
    for (int c = 0; c < TYPED_COLUMNS; c++) CHECK(ce_property_add(txn, table, &infos[c], &columns[c]));
    CHECK(ce_property_remove(txn, table, columns[6]));
    CHECK(ce_txn_commit(txn));

    static const uint8_t bytes[] = {0, 1, 2, 3, 255, 254};
    CHECK(ce_txn_begin_write(db, &txn));
    size_t slots;
    CHECK(ce_property_count(txn, table, &slots));
    CHECK(slots == TYPED_COLUMNS);
    for (int i = 0; i < TYPED_OBJECTS; i++) {
        /* The caller's bytes change after the call: the buffer holds copies. */
        uint8_t given_bytes[sizeof bytes];
        char given_text[9];
        memcpy(given_bytes, bytes, sizeof bytes);
        memcpy(given_text, "abcdefgh", sizeof given_text);
        ce_value values[TYPED_COLUMNS] = {
            {.type = CE_TYPE_BOOL, .boolean = i % 2 == 1},
            {.type = CE_TYPE_FLOAT, .float_value = (float)i / 4},
            {.type = CE_TYPE_BINARY, .binary = {i % 3 ? given_bytes : NULL, (size_t)(i % 3 ? i % 7 : 0)}},
            {.type = CE_TYPE_STRING, .string = {i % 4 ? given_text : NULL, (size_t)(i % 4 ? i % 9 : 0)}},
            {.type = CE_TYPE_DECIMAL128, .decimal = {.low = (uint64_t)i, .high = 0x3040000000000000ull}},
            {.type = CE_TYPE_UUID},
            int_value(i),
        };
        values[5].uuid.bytes[15] = (uint8_t)i;
        values[5].uuid.bytes[0] = (uint8_t)(i >> 8);
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, TYPED_COLUMNS, &key));
        CHECK(key == i);
        memset(given_bytes, 0x5A, sizeof given_bytes);
        memset(given_text, 'z', sizeof given_text);
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));

    CHECK(ce_txn_begin_read(db, &txn));
    for (int i = 0; i < TYPED_OBJECTS; i++) {
        ce_value value;
        CHECK(ce_object_get(txn, table, i, columns[0], &value));
        CHECK(value.type == CE_TYPE_BOOL && value.boolean == (i % 2 == 1));
        CHECK(ce_object_get(txn, table, i, columns[1], &value));
        CHECK(value.type == CE_TYPE_FLOAT && value.float_value == (float)i / 4);
        CHECK(ce_object_get(txn, table, i, columns[2], &value));
        size_t blob = (size_t)(i % 3 ? i % 7 : 0);
        CHECK(value.type == CE_TYPE_BINARY && value.binary.size == blob &&
              (blob == 0 || memcmp(value.binary.data, bytes, blob) == 0));
        CHECK(ce_object_get(txn, table, i, columns[3], &value));
        size_t text = (size_t)(i % 4 ? i % 9 : 0);
        CHECK(value.type == CE_TYPE_STRING && value.string.size == text &&
              (text == 0 || memcmp(value.string.data, "abcdefgh", text) == 0));
        CHECK(ce_object_get(txn, table, i, columns[4], &value));
        CHECK(value.type == CE_TYPE_DECIMAL128 && value.decimal.low == (uint64_t)i &&
              value.decimal.high == 0x3040000000000000ull);
        CHECK(ce_object_get(txn, table, i, columns[5], &value));
        CHECK(value.type == CE_TYPE_UUID && value.uuid.bytes[15] == (uint8_t)i && value.uuid.bytes[0] == (uint8_t)(i >> 8));
    }
    ce_txn_end(txn);
    test_db_close(&t);
}

/* Objects created one after another in a plain table are buffered and
 * enter the tree a leaf at a time: every way of looking at the table in
 * the same transaction, the commit and a rollback must see exactly what was
 * created, and a non-ascending or duplicate primary key must still be
 * caught. */
TEST(buffered_creation)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Buffered", &table));
    ce_property_info infos[] = {
        {.name = "id", .type = CE_TYPE_INT, .primary_key = true},
        {.name = "name", .type = CE_TYPE_STRING},
        {.name = "maybe", .type = CE_TYPE_DOUBLE, .nullable = true},
        {.name = "oid", .type = CE_TYPE_OBJECT_ID},
        {.name = "when", .type = CE_TYPE_TIMESTAMP, .nullable = true},
    };
    ce_column_key columns[5];
    for (int c = 0; c < 5; c++) CHECK(ce_property_add(txn, table, &infos[c], &columns[c]));
    CHECK(ce_txn_commit(txn));

    /* 1000 objects; a read of the table after 300 (mid-buffer) and a few
     * large strings (compressed, stored alone) on the way. */
    char *big = malloc(10000);
    for (int i = 0; i < 10000; i++) big[i] = (char)('a' + i % 3);
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 1000; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%d", i);
        ce_value values[5] = {int_value(2 * i + 10), i % 97 == 0 ? (ce_value){.type = CE_TYPE_STRING, .string = {big, 10000}}
                                                                 : string_value(name),
                              i % 3 ? (ce_value){.type = CE_TYPE_DOUBLE, .double_value = i * 0.5} : null_value(),
                              {.type = CE_TYPE_OBJECT_ID}, i % 5 ? (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {i, 7}} : null_value()};
        values[3].object_id.bytes[11] = (uint8_t)i;
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, 5, &key));
        CHECK(key == i);
        if (i == 300) {
            size_t count;
            ce_value name_value;
            CHECK(ce_object_count(txn, table, &count));
            CHECK(count == 301);
            CHECK(ce_object_get(txn, table, 299, columns[1], &name_value));
            CHECK(name_value.string.size == 4 && memcmp(name_value.string.data, "n299", 4) == 0);
        }
    }
    /* A key that is not above the last one goes through the index: a
     * duplicate is refused, a gap below is accepted. */
    ce_value duplicate[5] = {int_value(20), string_value("dup"), null_value(), {.type = CE_TYPE_OBJECT_ID}, null_value()};
    ce_object_key key;
    expect_error(ce_object_create_with_values(txn, table, duplicate, 5, &key), CE_ERR_DUPLICATE_PRIMARY_KEY, "20");
    ce_value below[5] = {int_value(11), string_value("odd"), null_value(), {.type = CE_TYPE_OBJECT_ID}, null_value()};
    CHECK(ce_object_create_with_values(txn, table, below, 5, &key));
    CHECK(key == 1000);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));

    CHECK(ce_txn_begin_read(db, &txn));
    size_t count;
    CHECK(ce_object_count(txn, table, &count));
    CHECK(count == 1001);
    for (int i = 0; i < 1000; i++) {
        ce_object_key found;
        bool present;
        ce_value value, id = int_value(2 * i + 10);
        CHECK(ce_object_find_primary_key(txn, table, &id, &found, &present));
        CHECK(present && found == i);
        CHECK(ce_object_get(txn, table, i, columns[1], &value));
        if (i % 97 == 0) {
            CHECK(value.string.size == 10000 && memcmp(value.string.data, big, 10000) == 0);
        } else {
            char name[32];
            snprintf(name, sizeof name, "n%d", i);
            CHECK(value.string.size == strlen(name) && memcmp(value.string.data, name, value.string.size) == 0);
        }
        CHECK(ce_object_get(txn, table, i, columns[2], &value));
        CHECK(i % 3 ? value.type == CE_TYPE_DOUBLE && value.double_value == i * 0.5 : value.type == CE_TYPE_NULL);
        CHECK(ce_object_get(txn, table, i, columns[3], &value));
        CHECK(value.type == CE_TYPE_OBJECT_ID && value.object_id.bytes[11] == (uint8_t)i && value.object_id.bytes[0] == 0);
        CHECK(ce_object_get(txn, table, i, columns[4], &value));
        CHECK(i % 5 ? value.type == CE_TYPE_TIMESTAMP && value.timestamp.seconds == i : value.type == CE_TYPE_NULL);
    }
    ce_value odd = int_value(11);
    ce_object_key found;
    bool present;
    CHECK(ce_object_find_primary_key(txn, table, &odd, &found, &present));
    CHECK(present && found == 1000);
    ce_txn_end(txn);

    /* A rollback drops buffered objects; the next write starts from the
     * committed state, and appends after a partial last leaf fill it. */
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 600; i++) {
        ce_value values[5] = {int_value(100000 + i), string_value("gone"), null_value(), {.type = CE_TYPE_OBJECT_ID}, null_value()};
        CHECK(ce_object_create_with_values(txn, table, values, 5, &key));
    }
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_count(txn, table, &count));
    CHECK(count == 1001);
    for (int i = 0; i < 300; i++) {
        ce_value values[5] = {int_value(200000 + i), string_value("kept"), null_value(), {.type = CE_TYPE_OBJECT_ID}, null_value()};
        CHECK(ce_object_create_with_values(txn, table, values, 5, &key));
        CHECK(key == 1001 + i);
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_object_count(txn, table, &count));
    CHECK(count == 1301);
    ce_value last = int_value(200299);
    CHECK(ce_object_find_primary_key(txn, table, &last, &found, &present));
    CHECK(present && found == 1300);
    ce_txn_end(txn);
    free(big);
    test_db_close(&t);
}

/* The first mixed link into a table adds a backlink slot to it: a caller
 * that learned the column count before may leave that slot out. */
TEST(backlink_slots_may_be_left_out)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key target, origin;
    ce_column_key number, any;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "SlotTarget", &target));
    CHECK(ce_table_add(txn, "SlotOrigin", &origin));
    CHECK(ce_property_add(txn, target, &(ce_property_info){.name = "number", .type = CE_TYPE_INT}, &number));
    CHECK(ce_property_add(txn, origin, &(ce_property_info){.name = "any", .type = CE_TYPE_MIXED}, &any));
    ce_value one = int_value(1);
    ce_object_key first, holder, second;
    CHECK(ce_object_create_with_values(txn, target, &one, 1, &first));
    CHECK(ce_object_create(txn, origin, NULL, &holder));
    CHECK(ce_object_set(txn, origin, holder, any, &(ce_value){.type = CE_TYPE_LINK, .link = {target, first}}));
    size_t slots;
    CHECK(ce_property_count(txn, target, &slots));
    CHECK(slots == 2); /* number, @links.SlotOrigin.any */
    ce_value two = int_value(2);
    CHECK(ce_object_create_with_values(txn, target, &two, 1, &second));
    ce_value read;
    CHECK(ce_object_get(txn, target, second, number, &read));
    CHECK(read.type == CE_TYPE_INT && read.integer == 2);
    expect_error(ce_object_create_with_values(txn, origin, NULL, 0, &second), CE_ERR_INVALID_ARGUMENT, "arguments");
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));
    test_db_close(&t);
}

/* The deepest nesting the API allows commits, verifies and deletes:
 * mixed lists 100 levels deep (the node layer once refused trees deeper
 * than 64 nodes, about 30 levels: such a transaction could not commit), a
 * chain of 100 embedded objects (deleting a deeper one failed as damage).
 * One level more is refused. */
TEST(nesting_limits)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key doc, tag, root, node;
    ce_column_key any, head, next;
    ce_object_key document, target, parent, child;
    CHECK(ce_table_add(txn, "NestedDoc", &doc) && ce_table_add(txn, "NestedTag", &tag));
    ce_property_info mixed = {.name = "any", .type = CE_TYPE_MIXED};
    CHECK(ce_property_add(txn, doc, &mixed, &any));
    CHECK(ce_object_create(txn, doc, NULL, &document) && ce_object_create(txn, tag, NULL, &target));
    ce_value list = {.type = CE_TYPE_LIST}, first = {.type = CE_TYPE_INT, .integer = 0};
    ce_value link = {.type = CE_TYPE_LINK, .link = {tag, target}};
    CHECK(ce_object_set(txn, doc, document, any, &list));
    ce_collection *level;
    CHECK(ce_collection_open_mixed(txn, doc, document, any, &level));
    for (int depth = 1; depth < 100; depth++) {
        ce_collection *inner;
        CHECK(ce_list_insert(level, 0, &list) && ce_collection_open_nested(level, &first, &inner));
        ce_collection_close(level);
        level = inner;
    }
    expect_error(ce_list_insert(level, 0, &list), CE_ERR_INVALID_ARGUMENT, "'NestedDoc.any'");
    CHECK(ce_list_insert(level, 0, &link));
    ce_collection_close(level);

    CHECK(ce_table_add(txn, "NestedRoot", &root) && ce_table_add_embedded(txn, "NestedNode", &node));
    ce_property_info head_info = {.name = "head", .type = CE_TYPE_LINK, .nullable = true, .link_target = node};
    ce_property_info next_info = {.name = "next", .type = CE_TYPE_LINK, .nullable = true, .link_target = node};
    CHECK(ce_property_add(txn, root, &head_info, &head) && ce_property_add(txn, node, &next_info, &next));
    CHECK(ce_object_create(txn, root, NULL, &parent) && ce_object_create_embedded(txn, root, parent, head, &child));
    for (int depth = 2; depth <= 100; depth++) CHECK(ce_object_create_embedded(txn, node, child, next, &child));
    expect_error(ce_object_create_embedded(txn, node, child, next, &child), CE_ERR_INVALID_ARGUMENT, "100 levels");
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));

    CHECK(ce_txn_begin_write(db, &txn));
    size_t count;
    CHECK(ce_object_backlink_total(txn, tag, target, &count) && count == 1);
    CHECK(ce_object_delete(txn, tag, target)); /* reaches the link 100 levels down */
    CHECK(ce_object_delete(txn, root, parent));
    CHECK(ce_object_count(txn, node, &count) && count == 0);
    ce_value null = {.type = CE_TYPE_NULL};
    CHECK(ce_object_set(txn, doc, document, any, &null)); /* frees the 100 levels */
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));
    test_db_close(&t);
}

/* Lookups by an int primary key skip the index while every object's key
 * follows its primary key (ids created in order; see keys_follow_state in
 * table_internal.h). Each phase checks every lookup (present, deleted, never
 * created, far out of range, extremes) against a model: while the rule
 * holds, after one object breaks it, with a nullable key and a null, after
 * rollbacks, after the key property is removed and another added, and in
 * read and write transactions. */
typedef struct follow_model {
    int64_t primary_keys[600];
    ce_object_key keys[600];
    bool live[600];
    size_t count;
} follow_model;

static void check_follow_lookups(ce_txn *txn, ce_table_key table, const follow_model *model, int64_t low, int64_t high)
{
    for (int64_t id = low; id <= high; id++) {
        ce_value wanted = int_value(id);
        ce_object_key found_key = -1;
        bool found;
        CHECK(ce_object_find_primary_key(txn, table, &wanted, &found_key, &found));
        bool expected = false;
        ce_object_key expected_key = -1;
        for (size_t i = 0; i < model->count; i++)
            if (model->live[i] && model->primary_keys[i] == id) expected = true, expected_key = model->keys[i];
        if (found != expected || (found && found_key != expected_key)) {
            fprintf(stderr, "lookup of %lld: found %d key %lld, expected %d key %lld\n", (long long)id, found,
                    (long long)found_key, expected, (long long)expected_key);
            exit(1);
        }
    }
    int64_t extremes[] = {INT64_MIN, INT64_MIN + 1, -1, INT64_MAX, INT64_MAX - 1, (int64_t)1 << 61, -((int64_t)1 << 61)};
    for (size_t e = 0; e < sizeof extremes / sizeof *extremes; e++) {
        bool expected = false;
        for (size_t i = 0; i < model->count; i++)
            if (model->live[i] && model->primary_keys[i] == extremes[e]) expected = true;
        ce_value wanted = int_value(extremes[e]);
        ce_object_key found_key;
        bool found;
        CHECK(ce_object_find_primary_key(txn, table, &wanted, &found_key, &found));
        CHECK(found == expected);
    }
}

static void create_following(ce_txn *txn, ce_table_key table, follow_model *model, int64_t id)
{
    ce_value primary_key = int_value(id);
    ce_object_key key;
    CHECK(ce_object_create_with_values(txn, table, &primary_key, 1, &key));
    model->primary_keys[model->count] = id;
    model->keys[model->count] = key;
    model->live[model->count] = true;
    model->count++;
}

TEST(keys_follow_primary_keys)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key id_column;
    follow_model model = {0};
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Following", &table));
    ce_property_info id_info = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    CHECK(ce_property_add(txn, table, &id_info, &id_column));
    expect_error(ce_property_set_indexed(txn, table, id_column, false), CE_ERR_INVALID_SCHEMA, "primary key");
    CHECK(ce_property_set_indexed(txn, table, id_column, true));
    ce_column_key dotted;
    ce_table_key dotted_table;
    expect_error(ce_property_add(txn, table, &(ce_property_info){.name = "a.b", .type = CE_TYPE_INT}, &dotted),
                 CE_ERR_INVALID_ARGUMENT, "cannot contain '.'");
    expect_error(ce_table_add(txn, "Dotted.Name", &dotted_table), CE_ERR_INVALID_ARGUMENT, "cannot contain '.'");
    check_follow_lookups(txn, table, &model, -3, 3); /* empty: nothing is found */
    /* Ids 100.. in order: buffered creation, then a lookup mid-buffer. */
    for (int64_t id = 100; id < 400; id++) create_following(txn, table, &model, id);
    check_follow_lookups(txn, table, &model, 95, 405);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));

    CHECK(ce_txn_begin_read(db, &txn));
    check_follow_lookups(txn, table, &model, 95, 405);
    ce_txn_end(txn);

    /* Deleting keeps the rule; a rolled-back object that would break it
     * changes nothing. */
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t i = 0; i < model.count; i += 7) {
        CHECK(ce_object_delete(txn, table, model.keys[i]));
        model.live[i] = false;
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(db, &txn));
    ce_value out_of_order = int_value(50);
    ce_object_key ignored;
    CHECK(ce_object_create_with_values(txn, table, &out_of_order, 1, &ignored));
    ce_txn_end(txn); /* a write ended without commit rolls back */
    CHECK(ce_txn_begin_read(db, &txn));
    check_follow_lookups(txn, table, &model, 40, 405);
    ce_txn_end(txn);

    /* An id out of order breaks the rule for good: later ids in order
     * again, a duplicate of a deleted id, and every lookup still right. */
    CHECK(ce_txn_begin_write(db, &txn));
    create_following(txn, table, &model, 50);
    for (int64_t id = 400; id < 450; id++) create_following(txn, table, &model, id);
    create_following(txn, table, &model, 100); /* deleted above (i = 0) */
    ce_value duplicate = int_value(101);
    expect_error(ce_object_create_with_values(txn, table, &duplicate, 1, &ignored), CE_ERR_DUPLICATE_PRIMARY_KEY, "101");
    check_follow_lookups(txn, table, &model, 40, 455);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));
    CHECK(ce_txn_begin_read(db, &txn));
    check_follow_lookups(txn, table, &model, 40, 455);
    ce_txn_end(txn);

    /* The key property removed (the table keeps its objects) and a nullable
     * int key added to an emptied table: ids follow keys from a new offset
     * until a null arrives. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_property_remove(txn, table, id_column));
    for (size_t i = 0; i < model.count; i++)
        if (model.live[i]) CHECK(ce_object_delete(txn, table, model.keys[i]));
    memset(&model, 0, sizeof model);
    ce_property_info nullable_info = {.name = "maybe", .type = CE_TYPE_INT, .nullable = true, .primary_key = true};
    CHECK(ce_property_add(txn, table, &nullable_info, &id_column));
    check_follow_lookups(txn, table, &model, -2, 2);
    for (int64_t id = -5; id < 20; id++) {
        ce_value values[2] = {null_value(), int_value(id)};
        ce_object_key key;
        /* Column 0 is the removed "id": creation takes one value per slot. */
        CHECK(ce_object_create_with_values(txn, table, values, 2, &key));
        model.primary_keys[model.count] = id;
        model.keys[model.count] = key;
        model.live[model.count++] = true;
    }
    check_follow_lookups(txn, table, &model, -10, 25);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(db, &txn));
    ce_value with_null[2] = {null_value(), null_value()};
    ce_object_key null_key;
    CHECK(ce_object_create_with_values(txn, table, with_null, 2, &null_key));
    ce_value null_id = null_value();
    ce_object_key found_key;
    bool found;
    CHECK(ce_object_find_primary_key(txn, table, &null_id, &found_key, &found) && found && found_key == null_key);
    for (int64_t id = 20; id < 30; id++) {
        ce_value values[2] = {null_value(), int_value(id)};
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &key));
        model.primary_keys[model.count] = id;
        model.keys[model.count] = key;
        model.live[model.count++] = true;
    }
    check_follow_lookups(txn, table, &model, -10, 35);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));
    CHECK(ce_txn_begin_read(db, &txn));
    check_follow_lookups(txn, table, &model, -10, 35);
    CHECK(ce_object_find_primary_key(txn, table, &null_id, &found_key, &found) && found && found_key == null_key);
    ce_txn_end(txn);
    test_db_close(&t);
}

/* The lookup hints of a read transaction (the root and the leaf of its last
 * lookup per table, cluster_hint) stand for its snapshot only: lookups that
 * alternate between two tables and jump between leaves read the right
 * objects, a commit by another transaction changes nothing a reader sees,
 * and after ce_txn_advance the reader sees the new version (changed names in
 * the leaf it last read, deleted objects, a tree that grew a level). */
typedef struct hint_model {
    int64_t ids;      /* objects with ids 1 ... ids */
    int version[3000]; /* per id: the version in its name; -1 when deleted */
} hint_model;

static void hint_name(char *buffer, size_t size, int64_t id, int version)
{
    snprintf(buffer, size, "name-%lld-v%d", (long long)id, version);
}

static void check_hint_lookups(ce_txn *txn, ce_table_key table, ce_column_key name, ce_table_key other,
                               const hint_model *model, int rounds)
{
    char expected[64];
    for (int round = 0; round < rounds; round++) {
        int64_t id = (int64_t)(next_random() % (uint64_t)(model->ids + 5)) + 1;
        ce_object_key object;
        bool found;
        ce_value key = int_value(id);
        CHECK(ce_object_find_primary_key(txn, table, &key, &object, &found));
        bool live = id <= model->ids && model->version[id] >= 0;
        CHECK(found == live);
        if (live) {
            ce_value value;
            CHECK(ce_object_get(txn, table, object, name, &value) && value.type == CE_TYPE_STRING);
            hint_name(expected, sizeof expected, id, model->version[id]);
            CHECK(value.string.size == strlen(expected) && memcmp(value.string.data, expected, value.string.size) == 0);
        }
        /* The other table's hint moves too: its objects are read between. */
        ce_value other_key = int_value(id % 300 + 1), other_value;
        CHECK(ce_object_find_primary_key(txn, other, &other_key, &object, &found) && found);
        CHECK(ce_object_get(txn, other, object, 1, &other_value) && other_value.integer == (id % 300 + 1) * 7);
    }
}

/* Positions read through ce_object_key_at (which keeps its leaf and the
 * leaf's first position in the same hint): runs of neighbouring positions,
 * jumps, and lookups by key between them that move the hint to other
 * leaves. Ids grow with the object keys, so the object at position p has
 * the p-th live id. */
static void check_hint_positions(ce_txn *txn, ce_table_key table, ce_column_key id_column, const hint_model *model,
                                 int rounds)
{
    static int64_t live[3000];
    size_t count = 0;
    for (int64_t id = 1; id <= model->ids; id++)
        if (model->version[id] >= 0) live[count++] = id;
    size_t position = 0;
    for (int round = 0; round < rounds; round++) {
        uint64_t choice = next_random() % 8;
        if (choice == 0) position = (size_t)(next_random() % count);                 /* a jump */
        if (choice == 1) position = position > 300 ? position - 300 : count - 1; /* back a leaf or so */
        if (choice == 2) {
            /* A lookup by key somewhere else moves the hint's leaf. */
            ce_value key = int_value(live[next_random() % count]);
            ce_object_key object;
            bool found;
            CHECK(ce_object_find_primary_key(txn, table, &key, &object, &found) && found);
        }
        ce_object_key object;
        ce_value id;
        CHECK(ce_object_key_at(txn, table, position, &object));
        CHECK(ce_object_get(txn, table, object, id_column, &id) && id.integer == live[position]);
        position = (position + 1) % count;
    }
    ce_object_key object;
    CHECK(ce_object_key_at(txn, table, count - 1, &object));
    CHECK(!ce_object_key_at(txn, table, count, &object) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
}

TEST(lookup_hints)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    static hint_model model;
    ce_txn *txn;
    ce_table_key table, other;
    ce_column_key id_column, name, other_id, other_value;
    char text[64];
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Hinted", &table));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true},
                          &id_column));
    name = add_property(txn, table, "name", CE_TYPE_STRING, false);
    CHECK(ce_table_add(txn, "HintedOther", &other));
    CHECK(ce_property_add(txn, other, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true},
                          &other_id));
    other_value = add_property(txn, other, "value", CE_TYPE_INT, false);
    CHECK(other_value == 1);
    model.ids = 2000;
    for (int64_t id = 1; id <= model.ids; id++) {
        hint_name(text, sizeof text, id, 0);
        ce_value values[2] = {int_value(id), string_value(text)};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &object));
    }
    for (int64_t id = 1; id <= 300; id++) {
        ce_value values[2] = {int_value(id), int_value(id * 7)};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, other, values, 2, &object));
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    ce_txn *reader;
    CHECK(ce_txn_begin_read(db, &reader));
    check_hint_lookups(reader, table, name, other, &model, 3000);
    check_hint_positions(reader, table, id_column, &model, 5000);
    /* The reader's last lookup left a hint in some leaf; the next commit
     * renames every object, deletes some and grows the tree. */
    hint_model before = model;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int64_t id = 1; id <= model.ids; id++) {
        ce_object_key object;
        bool found;
        ce_value key = int_value(id);
        CHECK(ce_object_find_primary_key(txn, table, &key, &object, &found) && found);
        if (id % 13 == 0) {
            CHECK(ce_object_delete(txn, table, object));
            model.version[id] = -1;
        } else {
            hint_name(text, sizeof text, id, 1);
            ce_value value = string_value(text);
            CHECK(ce_object_set(txn, table, object, name, &value));
            model.version[id] = 1;
        }
    }
    for (int64_t id = model.ids + 1; id <= 2900; id++) {
        hint_name(text, sizeof text, id, 1);
        ce_value values[2] = {int_value(id), string_value(text)};
        ce_object_key object;
        CHECK(ce_object_create_with_values(txn, table, values, 2, &object));
        model.version[id] = 1;
    }
    model.ids = 2900;
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    check_hint_lookups(reader, table, name, other, &before, 3000);
    check_hint_positions(reader, table, id_column, &before, 5000);
    CHECK(ce_txn_advance(reader));
    check_hint_positions(reader, table, id_column, &model, 5000);
    check_hint_lookups(reader, table, name, other, &model, 3000);
    /* Setting a value of a missing object (deleted, or a key never used)
     * fails naming the table and changes nothing: the tree is searched
     * before any node of it is copied. */
    CHECK(ce_txn_begin_write(db, &txn));
    ce_object_key twelve;
    bool twelve_found;
    ce_value twelve_id = int_value(12);
    CHECK(ce_object_find_primary_key(txn, table, &twelve_id, &twelve, &twelve_found) && twelve_found);
    /* id 13's object (deleted above: ids grow with the keys), and a key far past the last */
    const ce_object_key missing[2] = {twelve + 1, twelve + 1000000};
    for (int m = 0; m < 2; m++) {
        ce_value renamed = string_value("renamed");
        expect_error(ce_object_set(txn, table, missing[m], name, &renamed), CE_ERR_NO_SUCH_OBJECT, "'Hinted'");
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    /* An object deleted under the hinted leaf is reported missing. */
    ce_value key = int_value(12), value;
    ce_object_key object;
    bool found;
    CHECK(ce_object_find_primary_key(reader, table, &key, &object, &found) && found);
    CHECK(ce_object_get(reader, table, object + 1, name, &value) == false);
    CHECK(ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT);
    ce_txn_end(reader);
    test_db_close(&t);
}

/* Checks ce_object_get_range over `table` against ce_object_get: windows
 * of several sizes from several starts, keys and every column. */
static void check_ranges(ce_txn *txn, ce_table_key table, const ce_column_key *columns, size_t column_count)
{
    size_t total;
    CHECK(ce_object_count(txn, table, &total));
    static const size_t windows[] = {1, 7, 255, 256, 257, 1000, 5000};
    static const size_t starts[] = {0, 1, 200, 255, 256, 999};
    ce_value *values = malloc(5000 * column_count * sizeof *values);
    ce_object_key *keys = malloc(5000 * sizeof *keys);
    for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
        for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
            size_t first = starts[s], got;
            if (first > total) continue;
            CHECK(ce_object_get_range(txn, table, first, windows[w], columns, column_count, keys, values, &got));
            CHECK(got == (windows[w] < total - first ? windows[w] : total - first));
            for (size_t i = 0; i < got; i++) {
                ce_object_key key;
                CHECK(ce_object_key_at(txn, table, first + i, &key) && key == keys[i]);
                for (size_t c = 0; c < column_count; c++) {
                    ce_value expected;
                    const ce_value *value = &values[i * column_count + c];
                    CHECK(ce_object_get(txn, table, key, columns[c], &expected));
                    CHECK(value->type == expected.type);
                    if (value->type == CE_TYPE_STRING)
                        CHECK(value->string.size == expected.string.size &&
                              memcmp(value->string.data, expected.string.data, value->string.size) == 0);
                    else if (value->type == CE_TYPE_INT)
                        CHECK(value->integer == expected.integer);
                    else if (value->type == CE_TYPE_DOUBLE)
                        CHECK(value->double_value == expected.double_value);
                    else if (value->type == CE_TYPE_TIMESTAMP)
                        CHECK(value->timestamp.seconds == expected.timestamp.seconds &&
                              value->timestamp.nanoseconds == expected.timestamp.nanoseconds);
                    else
                        CHECK(value->type == CE_TYPE_NULL);
                }
            }
        }
    }
    /* Without keys, and after the first reads: the same values. */
    size_t got;
    CHECK(ce_object_get_range(txn, table, 0, 5000, columns, column_count, NULL, values, &got));
    CHECK(got == (total < 5000 ? total : 5000));
    free(values);
    free(keys);
}

/* ce_object_get_range, and create-or-update of ascending primary keys
 * (appended without an index lookup) mixed with updates and keys below. */
TEST(get_range_and_ascending_updates)
{
    test_db t = test_db_open("table");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key table, other;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Ranged", &table));
    CHECK(ce_table_add(txn, "Other", &other));
    ce_property_info infos[] = {
        {.name = "id", .type = CE_TYPE_INT, .primary_key = true},
        {.name = "name", .type = CE_TYPE_STRING},
        {.name = "maybe", .type = CE_TYPE_DOUBLE, .nullable = true},
        {.name = "when", .type = CE_TYPE_TIMESTAMP, .nullable = true},
    };
    ce_column_key columns[4];
    for (int c = 0; c < 4; c++) CHECK(ce_property_add(txn, table, &infos[c], &columns[c]));
    ce_column_key list, link;
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "list", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST}, &list));
    CHECK(ce_property_add(txn, table, &(ce_property_info){.name = "link", .type = CE_TYPE_LINK, .nullable = true, .link_target = other}, &link));
    CHECK(ce_txn_commit(txn));

    char *big = malloc(10000);
    for (int i = 0; i < 10000; i++) big[i] = (char)('a' + i % 5);
    CHECK(ce_txn_begin_write(db, &txn));
    size_t got;
    ce_value empty[4];
    CHECK(ce_object_get_range(txn, table, 0, 1, columns, 4, NULL, empty, &got) && got == 0);
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%d", i);
        /* Ascending ids with a gap every 10; every 100th an update of the
         * object before; every 300th a new id in a gap below. */
        int64_t id = 10 * i + 10;
        bool update = i % 100 == 99, gap = i % 300 == 150;
        if (update) id = 10 * (i - 1) + 10;
        if (gap) id = 10 * (i - 50) + 15;
        ce_value values[6] = {int_value(id),
                              i % 97 == 0 ? (ce_value){.type = CE_TYPE_STRING, .string = {big, 10000 - i}} : string_value(name),
                              i % 3 ? (ce_value){.type = CE_TYPE_DOUBLE, .double_value = i * 0.5} : null_value(),
                              i % 5 ? (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {i, 7}} : null_value(),
                              null_value(), null_value()};
        ce_object_key key;
        bool created;
        CHECK(ce_object_create_or_update(txn, table, values, 6, CE_UPDATE_MODIFIED, &key, &created));
        CHECK(created == !update);
        if (i == 1500) check_ranges(txn, table, columns, 4); /* mid-buffer, in the write transaction */
    }
    /* An id that exists, given again in ascending order's place: updated,
     * not appended twice. */
    ce_value again[6] = {int_value(10 * 2998 + 10), string_value("again"), null_value(), null_value(), null_value(), null_value()};
    ce_object_key key;
    bool created;
    CHECK(ce_object_create_or_update(txn, table, again, 6, CE_UPDATE_MODIFIED, &key, &created) && !created);
    ce_value duplicate[6] = {int_value(20), string_value("dup"), null_value(), null_value(), null_value(), null_value()};
    expect_error(ce_object_create_with_values(txn, table, duplicate, 6, &key), CE_ERR_DUPLICATE_PRIMARY_KEY, "20");
    check_ranges(txn, table, columns, 4);
    CHECK(ce_txn_commit(txn));
    CHECK(ce_db_verify(db, NULL));

    CHECK(ce_txn_begin_read(db, &txn));
    size_t count;
    CHECK(ce_object_count(txn, table, &count));
    CHECK(count == 3000 - 30); /* 30 updates */
    for (int i = 0; i < 3000; i++) {
        int64_t id = i % 300 == 150 ? 10 * (i - 50) + 15 : 10 * i + 10;
        if (i % 100 == 99) continue;
        ce_value wanted = int_value(id), name;
        ce_object_key found;
        bool present;
        CHECK(ce_object_find_primary_key(txn, table, &wanted, &found, &present) && present);
        CHECK(ce_object_get(txn, table, found, columns[1], &name));
        char text[32];
        snprintf(text, sizeof text, "n%d", i + (i % 100 == 98));
        if (i == 2998) snprintf(text, sizeof text, "again");
        if ((i + (i % 100 == 98)) % 97 == 0 && i != 2998)
            CHECK(name.string.size == (size_t)(10000 - (i + (i % 100 == 98))));
        else
            CHECK(name.string.size == strlen(text) && memcmp(name.string.data, text, name.string.size) == 0);
    }
    check_ranges(txn, table, columns, 4);
    /* Columns in any order and repeated; none at all. */
    ce_column_key mixed_order[3] = {columns[3], columns[0], columns[3]};
    ce_value values[3 * 10];
    CHECK(ce_object_get_range(txn, table, 5, 10, mixed_order, 3, NULL, values, &got) && got == 10);
    ce_object_key keys[10];
    CHECK(ce_object_get_range(txn, table, 5, 10, NULL, 0, keys, NULL, &got) && got == 10);
    /* Errors. */
    CHECK(ce_object_get_range(txn, table, count, 10, columns, 4, NULL, values, &got) && got == 0);
    expect_error(ce_object_get_range(txn, table, count + 1, 10, columns, 4, NULL, values, &got),
                 CE_ERR_INDEX_OUT_OF_BOUNDS, "out of bounds");
    expect_error(ce_object_get_range(txn, table, 0, 1, &list, 1, NULL, values, &got), CE_ERR_WRONG_TYPE, "'Ranged.list'");
    expect_error(ce_object_get_range(txn, table, 0, 1, &link, 1, NULL, values, &got), CE_ERR_WRONG_TYPE, "'Ranged.link'");
    ce_column_key missing = 99;
    expect_error(ce_object_get_range(txn, table, 0, 1, &missing, 1, NULL, values, &got), CE_ERR_NO_SUCH_PROPERTY, NULL);
    expect_error(ce_object_get_range(txn, table, 0, 1, columns, 4, NULL, NULL, &got), CE_ERR_INVALID_ARGUMENT, "required");
    expect_error(ce_object_get_range(txn, 77, 0, 1, columns, 4, NULL, values, &got), CE_ERR_NO_SUCH_TABLE, NULL);
    ce_txn_end(txn);
    free(big);
    test_db_close(&t);
}
