/*
 * test_inplace.c — the write path's in-place changes: a write transaction
 * keeps the leaf it changed last and changes a leaf it copied already where
 * it lies (cluster_set, column_set_in_place), and ce_object_set_many writes
 * one property of many objects in one call. Checked against a model through
 * every structural change that must make the transaction forget that leaf.
 */
#include "test_support.h"

#define RANDOM_SEED 0x1A9ACE
static uint64_t random_state = RANDOM_SEED;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void seed_random(void) { random_state = RANDOM_SEED; }

static ce_value int_value(int64_t v) { return (ce_value){.type = CE_TYPE_INT, .integer = v}; }
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

/* The write path's in-place sets (cluster_set, column_set_in_place): a
 * write transaction keeps the leaf it changed last and changes a copied
 * leaf where it lies, so every structural change must make it forget that
 * leaf. Positional loops of gets and sets (as W6 and Realm's setValue do)
 * are interleaved with creates (the last leaf fills and splits), deletes
 * (positions shift, leaves empty and are freed, their nodes reused), runs of
 * deletes, a property added and a rollback; every position, key and value
 * is checked against the model inside the write transaction, where a stale
 * leaf would answer, and again after the commit. */
/* Two int, double or null values, equal and of one type. */
static bool same_number(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    if (a->type == CE_TYPE_INT) return a->integer == b->integer;
    if (a->type == CE_TYPE_DOUBLE) return a->double_value == b->double_value;
    return a->type == CE_TYPE_NULL;
}

TEST(in_place_sets_against_model)
{
    seed_random();
    test_db t = test_db_open("inplace");
    ce_db *db = t.db;
    enum { CAPACITY = 6000, COLUMNS = 4 };
    /* keys[0, count): the live objects in key order; values per key and column. */
    ce_object_key *keys = calloc(CAPACITY, sizeof *keys), *saved_keys = calloc(CAPACITY, sizeof *keys);
    ce_value *values = calloc((size_t)CAPACITY * COLUMNS, sizeof *values);
    ce_value *saved_values = calloc((size_t)CAPACITY * COLUMNS, sizeof *values);
    size_t count = 0, saved_count = 0, columns = 3;
    int64_t next_key = 0, saved_next = 0;
    ce_txn *txn;
    ce_table_key table;
    ce_column_key column[COLUMNS];
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Counter", &table));
    column[0] = add_property(txn, table, "value", CE_TYPE_INT, false);
    column[1] = add_property(txn, table, "maybe", CE_TYPE_INT, true);
    column[2] = add_property(txn, table, "ratio", CE_TYPE_DOUBLE, false);
    CHECK(ce_txn_commit(txn));
    for (size_t k = 0; k < (size_t)CAPACITY * COLUMNS; k++) values[k] = (ce_value){.type = CE_TYPE_INT};
    for (size_t k = 0; k < CAPACITY; k++) {
        values[k * COLUMNS + 1] = null_value();
        values[k * COLUMNS + 2] = (ce_value){.type = CE_TYPE_DOUBLE};
        values[k * COLUMNS + 3] = null_value();
    }
#define VALUE_OF(key, c) values[(size_t)(key) * COLUMNS + (c)]
    /* Eight leaves to start with. */
    CHECK(ce_txn_begin_write(db, &txn));
    for (; count < 2048; count++, next_key++) CHECK(ce_object_create(txn, table, NULL, &keys[count]) && keys[count] == next_key);
    CHECK(ce_txn_commit(txn));
    for (int round = 0; round < 24; round++) {
        memcpy(saved_keys, keys, CAPACITY * sizeof *keys);
        memcpy(saved_values, values, (size_t)CAPACITY * COLUMNS * sizeof *values);
        saved_count = count, saved_next = next_key;
        size_t saved_columns = columns;
        CHECK(ce_txn_begin_write(db, &txn));
        for (int step = 0; step < 600; step++) {
            uint64_t choice = next_random() % 40;
            if (choice < 22 && count > 0) {
                /* A run of positions: key_at, get, set, get. */
                size_t position = (size_t)(next_random() % count), length = 1 + (size_t)(next_random() % 40);
                size_t c = (size_t)(next_random() % columns);
                for (size_t i = 0; i < length && position + i < count; i++) {
                    ce_object_key key;
                    CHECK(ce_object_key_at(txn, table, position + i, &key) && key == keys[position + i]);
                    ce_value value;
                    CHECK(ce_object_get(txn, table, key, column[c], &value));
                    CHECK(same_number(&value, &VALUE_OF(key, c)));
                    ce_value next;
                    if (c == 0) /* wraps around in uint64_t: a signed overflow would be undefined */
                        next = int_value((int64_t)((uint64_t)value.integer + (next_random() % 3 ? 1 : next_random())));
                    else if (c == 2) next = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = (double)(next_random() % 1000) / 8};
                    else next = next_random() % 4 ? int_value((int64_t)(next_random() % 100000)) : null_value();
                    CHECK(ce_object_set(txn, table, key, column[c], &next));
                    VALUE_OF(key, c) = next;
                    CHECK(ce_object_get(txn, table, key, column[c], &value) && same_number(&value, &next));
                }
            } else if (choice < 30 && next_key < CAPACITY) {
                /* A create (the last leaf fills, then splits). */
                ce_object_key key;
                CHECK(ce_object_create(txn, table, NULL, &key) && key == next_key);
                keys[count++] = key;
                next_key++;
            } else if (choice < 37 && count > 0) {
                size_t position = (size_t)(next_random() % count);
                CHECK(ce_object_delete(txn, table, keys[position]));
                memmove(&keys[position], &keys[position + 1], (count - position - 1) * sizeof *keys);
                count--;
            } else if (choice < 39 && count > 0) {
                /* A run of deletes: leaves empty and go. */
                size_t position = (size_t)(next_random() % count), run = 1 + (size_t)(next_random() % 300);
                if (run > count - position) run = count - position;
                for (size_t i = 0; i < run; i++) CHECK(ce_object_delete(txn, table, keys[position + i]));
                memmove(&keys[position], &keys[position + run], (count - position - run) * sizeof *keys);
                count -= run;
            } else if (choice == 39 && columns < COLUMNS && round % 8 == 5) {
                column[columns] = add_property(txn, table, "added", CE_TYPE_INT, true);
                columns++;
            }
        }
        size_t objects;
        CHECK(ce_object_count(txn, table, &objects) && objects == count);
        if (round % 5 == 4) {
            ce_txn_end(txn); /* roll back: the model goes back too */
            memcpy(keys, saved_keys, CAPACITY * sizeof *keys);
            memcpy(values, saved_values, (size_t)CAPACITY * COLUMNS * sizeof *values);
            count = saved_count, next_key = saved_next, columns = saved_columns;
        } else {
            CHECK(ce_txn_commit(txn));
            test_verify(db);
        }
        CHECK(ce_txn_begin_read(db, &txn));
        CHECK(ce_object_count(txn, table, &objects) && objects == count);
        for (size_t position = 0; position < count; position++) {
            ce_object_key key;
            CHECK(ce_object_key_at(txn, table, position, &key) && key == keys[position]);
            for (size_t c = 0; c < columns; c++) {
                ce_value value;
                CHECK(ce_object_get(txn, table, key, column[c], &value) && same_number(&value, &VALUE_OF(key, c)));
            }
        }
        ce_txn_end(txn);
    }
#undef VALUE_OF
    free(keys);
    free(saved_keys);
    free(values);
    free(saved_values);
    test_db_close(&t);
}

/* ce_object_set_many: one value into one property of many objects, in
 * key order, in reverse order and with repeats; strings, nulls, timestamps,
 * bools and floats set twice (the second time in place), an index,
 * links (backlinks follow); the errors checked before anything changes;
 * a missing object stops the run; nothing needed for an empty list. */
TEST(set_many)
{
    test_db t = test_db_open("setmany");
    ce_db *db = t.db;
    ce_txn *txn;
    ce_table_key person, dog;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Person", &person));
    CHECK(ce_table_add(txn, "Dog", &dog));
    ce_property_info id_info = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    ce_column_key id, age, name, city, owner;
    CHECK(ce_property_add(txn, person, &id_info, &id));
    age = add_property(txn, person, "age", CE_TYPE_INT, false);
    name = add_property(txn, person, "name", CE_TYPE_STRING, true);
    ce_property_info city_info = {.name = "city", .type = CE_TYPE_STRING, .indexed = true};
    CHECK(ce_property_add(txn, person, &city_info, &city));
    ce_property_info owner_info = {.name = "owner", .type = CE_TYPE_LINK, .nullable = true, .link_target = dog};
    CHECK(ce_property_add(txn, person, &owner_info, &owner));
    enum { COUNT = 1000 };
    ce_object_key keys[COUNT], reversed[COUNT];
    for (int i = 0; i < COUNT; i++) {
        ce_value key = int_value(i + 1);
        CHECK(ce_object_create(txn, person, &key, &keys[i]));
        reversed[COUNT - 1 - i] = keys[i];
    }
    ce_object_key rex;
    CHECK(ce_object_create(txn, dog, NULL, &rex));
    CHECK(ce_txn_commit(txn));

    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_object_set_many(txn, person, keys, 0, age, NULL)); /* nothing to do, in any transaction */
    expect_error(ce_object_set_many(txn, person, keys, 1, age, &(ce_value){.type = CE_TYPE_INT}),
                 CE_ERR_WRONG_TRANSACTION_STATE, NULL);
    ce_txn_end(txn);

    CHECK(ce_txn_begin_write(db, &txn));
    ce_value thirty = int_value(30), text = {.type = CE_TYPE_STRING, .string = {"Ada", 3}};
    expect_error(ce_object_set_many(txn, person, keys, COUNT, id, &thirty), CE_ERR_PRIMARY_KEY_IMMUTABLE, "Primary key");
    expect_error(ce_object_set_many(txn, person, keys, COUNT, age, &text), CE_ERR_WRONG_TYPE, "Person.age");
    expect_error(ce_object_set_many(txn, person, keys, COUNT, age, &(ce_value){.type = CE_TYPE_NULL}),
                 CE_ERR_NULL_NOT_ALLOWED, "Person.age");
    expect_error(ce_object_set_many(txn, person, keys, COUNT, 99, &thirty), CE_ERR_NO_SUCH_PROPERTY, NULL);
    ce_value value;
    CHECK(ce_object_get(txn, person, keys[5], age, &value) && value.integer == 0); /* nothing changed */
    CHECK(ce_object_set_many(txn, person, keys, COUNT, age, &thirty));
    CHECK(ce_object_set_many(txn, person, reversed, COUNT / 2, name, &text));
    ce_object_key repeated[] = {keys[7], keys[7], keys[900], keys[3]};
    CHECK(ce_object_set_many(txn, person, repeated, 4, city, &text));
    CHECK(ce_object_set_many(txn, person, keys, 10, owner, &(ce_value){.type = CE_TYPE_LINK, .link = {dog, rex}}));
    for (int i = 0; i < COUNT; i++) {
        CHECK(ce_object_get(txn, person, keys[i], age, &value) && value.type == CE_TYPE_INT && value.integer == 30);
        CHECK(ce_object_get(txn, person, keys[i], name, &value));
        CHECK(i >= COUNT / 2 ? value.type == CE_TYPE_STRING && value.string.size == 3 : value.type == CE_TYPE_NULL);
        CHECK(ce_object_get(txn, person, keys[i], owner, &value));
        CHECK(i < 10 ? value.type == CE_TYPE_LINK && value.link.key == rex : value.type == CE_TYPE_NULL);
    }
    size_t backlinks;
    CHECK(ce_object_backlink_total(txn, dog, rex, &backlinks) && backlinks == 10);
    ce_object_key found;
    bool exists;
    CHECK(ce_object_find_first(txn, person, city, &text, &found, &exists) && exists && found == keys[3]);
    /* A missing object stops the run: the objects before it are changed. */
    CHECK(ce_object_delete(txn, person, keys[500]));
    ce_value forty = int_value(40);
    expect_error(ce_object_set_many(txn, person, keys, COUNT, age, &forty), CE_ERR_NO_SUCH_OBJECT, "Person");
    CHECK(ce_object_get(txn, person, keys[499], age, &value) && value.integer == 40);
    CHECK(ce_object_get(txn, person, keys[501], age, &value) && value.integer == 30);
    /* Timestamps (two parts and null bits), bools and floats, in place
     * once their leaves are copied: twice over the same objects. */
    ce_column_key born = add_property(txn, person, "born", CE_TYPE_TIMESTAMP, true);
    ce_column_key happy = add_property(txn, person, "happy", CE_TYPE_BOOL, false);
    ce_column_key weight = add_property(txn, person, "weight", CE_TYPE_FLOAT, true);
    for (int round = 0; round < 2; round++) {
        ce_value when = {.type = CE_TYPE_TIMESTAMP, .timestamp = {1700000000 + round, 500 * round}};
        ce_value yes = {.type = CE_TYPE_BOOL, .boolean = round == 0};
        ce_value kilos = round ? null_value() : (ce_value){.type = CE_TYPE_FLOAT, .float_value = 4.5f};
        CHECK(ce_object_set_many(txn, person, keys, 400, born, &when));
        CHECK(ce_object_set_many(txn, person, reversed, 300, happy, &yes));
        CHECK(ce_object_set_many(txn, person, keys, 400, weight, &kilos));
        for (int i = 0; i < 400; i++) {
            CHECK(ce_object_get(txn, person, keys[i], born, &value) && value.type == CE_TYPE_TIMESTAMP &&
                  value.timestamp.seconds == when.timestamp.seconds &&
                  value.timestamp.nanoseconds == when.timestamp.nanoseconds);
            CHECK(ce_object_get(txn, person, keys[i], weight, &value) && value.type == kilos.type &&
                  (round || value.float_value == 4.5f));
        }
        CHECK(ce_object_get(txn, person, keys[999], happy, &value) && value.boolean == (round == 0));
        CHECK(ce_object_get(txn, person, keys[0], happy, &value) && !value.boolean);
        if (round == 0) {
            CHECK(ce_object_set(txn, person, keys[600], born, &(ce_value){.type = CE_TYPE_NULL}));
            CHECK(ce_object_get(txn, person, keys[600], born, &value) && value.type == CE_TYPE_NULL);
        }
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_object_get(txn, person, keys[399], born, &value) && value.timestamp.seconds == 1700000001 &&
          value.timestamp.nanoseconds == 500);
    CHECK(ce_object_get(txn, person, keys[0], age, &value) && value.integer == 40);
    CHECK(ce_object_get(txn, person, keys[999], age, &value) && value.integer == 30);
    CHECK(ce_object_get(txn, person, keys[999], name, &value) && value.type == CE_TYPE_STRING);
    ce_txn_end(txn);
    test_db_close(&t);
}
