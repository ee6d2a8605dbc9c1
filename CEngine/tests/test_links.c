/*
 * test_links.c — links and backlinks through the public API: to-one links
 * against a model of people, their dogs and their best friends (set,
 * reset, deleted origins and targets, random changes committed or rolled
 * back, read back after a reopen); many origins to one target;
 * create_or_update with links; every kind of holder letting go of a
 * deleted target; schema changes of link properties, of the backlink
 * properties the engine adds and of the tables they link.
 *
 * Collections are in test_lists.c, test_sets.c and test_dictionaries.c,
 * embedded objects in test_embedded.c, mixed values in test_mixed.c; all
 * share test_links_support.h.
 *
 * Owns: the cases on links, backlinks and the schema of links.
 * Never: checks a result against anything but the expectation built here.
 */
#include "test_links_support.h"

/* ------------------------------------------------------------------------ */
/* To-one links: a model of people, their dogs and their best friends         */
/* ------------------------------------------------------------------------ */

enum { PEOPLE_MAX = 400, DOGS_MAX = 200 };

typedef struct people_model {
    bool person_alive[PEOPLE_MAX];
    ce_object_key dog_of[PEOPLE_MAX];  /* -1: null */
    ce_object_key best_of[PEOPLE_MAX]; /* -1: null */
    bool dog_alive[DOGS_MAX];
    size_t people, dogs; /* keys handed out */
} people_model;

typedef struct people_schema {
    ce_table_key person, dog, cat;
    ce_column_key name, dog_link, best_link, cat_name;
} people_schema;

static void check_people(ce_txn *txn, const people_schema *s, const people_model *m)
{
    ce_object_key *origins = malloc(PEOPLE_MAX * sizeof *origins);
    CHECK(origins != NULL);
    size_t alive_people = 0, alive_dogs = 0;
    for (size_t p = 0; p < m->people; p++) {
        CHECK(object_exists(txn, s->person, (ce_object_key)p) == m->person_alive[p]);
        if (!m->person_alive[p]) continue;
        alive_people++;
        ce_value dog = get_value(txn, s->person, (ce_object_key)p, s->dog_link);
        ce_value expected_dog = m->dog_of[p] < 0 ? null_value() : link_value(s->dog, m->dog_of[p]);
        check_same(&expected_dog, &dog, "Person.dog", p);
        ce_value best = get_value(txn, s->person, (ce_object_key)p, s->best_link);
        ce_value expected_best = m->best_of[p] < 0 ? null_value() : link_value(s->person, m->best_of[p]);
        check_same(&expected_best, &best, "Person.best", p);
        /* Who calls p their best friend (p itself included). */
        size_t count = 0;
        for (size_t q = 0; q < m->people; q++)
            if (m->person_alive[q] && m->best_of[q] == (ce_object_key)p) origins[count++] = (ce_object_key)q;
        check_backlinks(txn, s->person, (ce_object_key)p, s->person, s->best_link, origins, count);
        CHECK(backlink_total(txn, s->person, (ce_object_key)p) == count);
    }
    for (size_t d = 0; d < m->dogs; d++) {
        CHECK(object_exists(txn, s->dog, (ce_object_key)d) == m->dog_alive[d]);
        if (!m->dog_alive[d]) continue;
        alive_dogs++;
        size_t count = 0;
        for (size_t p = 0; p < m->people; p++)
            if (m->person_alive[p] && m->dog_of[p] == (ce_object_key)d) origins[count++] = (ce_object_key)p;
        check_backlinks(txn, s->dog, (ce_object_key)d, s->person, s->dog_link, origins, count);
        CHECK(backlink_total(txn, s->dog, (ce_object_key)d) == count);
    }
    CHECK(object_count(txn, s->person) == alive_people);
    CHECK(object_count(txn, s->dog) == alive_dogs);
    free(origins);
}

static ce_object_key random_alive(const bool *alive, size_t count)
{
    if (count == 0) return -1;
    for (int attempt = 0; attempt < 8; attempt++) {
        size_t key = random_below(count);
        if (alive[key]) return (ce_object_key)key;
    }
    return -1;
}

/* The tables of people, dogs and a cat (and the one cat), 40 people and 20
 * dogs with every link null, in the model too; the write transaction that
 * made them stays open. */
static ce_txn *people_begin(ce_db *db, people_schema *schema, people_model *m, ce_object_key *out_cat)
{
    people_schema s;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    s.person = add_table(txn, "Person", false);
    s.dog = add_table(txn, "Dog", false);
    s.cat = add_table(txn, "Cat", false);
    s.name = add_scalar(txn, s.person, "name", CE_TYPE_STRING, false);
    s.dog_link = add_property(txn, s.person, "dog", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.dog);
    s.best_link = add_property(txn, s.person, "best", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.person);
    s.cat_name = add_scalar(txn, s.cat, "name", CE_TYPE_STRING, false);
    ce_object_key cat = create_object(txn, s.cat);
    for (int i = 0; i < 40; i++) {
        ce_object_key key = create_object(txn, s.person);
        CHECK((size_t)key == m->people);
        m->person_alive[m->people] = true;
        m->dog_of[m->people] = m->best_of[m->people] = -1;
        m->people++;
    }
    for (int i = 0; i < 20; i++) {
        CHECK((size_t)create_object(txn, s.dog) == m->dogs);
        m->dog_alive[m->dogs++] = true;
    }
    *schema = s;
    *out_cat = cat;
    return txn;
}

/* A new object's link is null; set, get, reassign, null; many origins to
 * one target, a self link, a cycle of two. */
static void people_set_links(ce_txn *txn, const people_schema *schema, people_model *m)
{
    const people_schema s = *schema;
    check_people(txn, &s, m);
    set_value(txn, s.person, 0, s.dog_link, link_value(s.dog, 3));
    m->dog_of[0] = 3;
    check_people(txn, &s, m);
    set_value(txn, s.person, 0, s.dog_link, link_value(s.dog, 4));
    m->dog_of[0] = 4;
    check_people(txn, &s, m);
    set_value(txn, s.person, 0, s.dog_link, link_value(s.dog, 4)); /* the same link again */
    check_people(txn, &s, m);
    set_value(txn, s.person, 0, s.dog_link, null_value());
    m->dog_of[0] = -1;
    /* Many origins to one target; a self link; a cycle of two. */
    for (size_t p = 0; p < 30; p++) {
        set_value(txn, s.person, (ce_object_key)p, s.dog_link, link_value(s.dog, 7));
        m->dog_of[p] = 7;
    }
    set_value(txn, s.person, 5, s.best_link, link_value(s.person, 5));
    set_value(txn, s.person, 6, s.best_link, link_value(s.person, 5));
    set_value(txn, s.person, 8, s.best_link, link_value(s.person, 9));
    set_value(txn, s.person, 9, s.best_link, link_value(s.person, 8));
    m->best_of[5] = 5, m->best_of[6] = 5, m->best_of[8] = 9, m->best_of[9] = 8;
    check_people(txn, &s, m);
}

/* Refused changes change nothing. */
static void people_refuse(ce_txn *txn, const people_schema *schema, const people_model *m, ce_object_key cat)
{
    const people_schema s = *schema;
    ce_value value = link_value(s.dog, 999);
    EXPECT_ERROR(ce_object_set(txn, s.person, 1, s.dog_link, &value), CE_ERR_NO_SUCH_OBJECT, "'Person.dog'");
    value = link_value(s.cat, cat);
    EXPECT_ERROR(ce_object_set(txn, s.person, 1, s.dog_link, &value), CE_ERR_WRONG_TYPE, "'Person.dog' links to table 'Dog'");
    value = link_value(99, 0);
    EXPECT_ERROR(ce_object_set(txn, s.person, 1, s.dog_link, &value), CE_ERR_WRONG_TYPE, NULL);
    value = int_value(3);
    EXPECT_ERROR(ce_object_set(txn, s.person, 1, s.dog_link, &value), CE_ERR_WRONG_TYPE, "'Person.dog'");
    bool found;
    ce_object_key found_key;
    value = link_value(s.dog, 3);
    EXPECT_ERROR(ce_object_find_first(txn, s.person, s.dog_link, &value, &found_key, &found), CE_ERR_WRONG_TYPE,
                 "not a scalar property");
    value = link_value(s.dog, 3);
    EXPECT_ERROR(ce_object_set(txn, s.person, 1, s.name, &value), CE_ERR_WRONG_TYPE, "'Person.name'");
    EXPECT_ERROR(ce_object_set(txn, s.person, 999, s.dog_link, &value), CE_ERR_NO_SUCH_OBJECT, "'Person'");
    size_t count;
    EXPECT_ERROR(ce_object_backlink_count(txn, s.dog, 999, s.person, s.dog_link, &count), CE_ERR_NO_SUCH_OBJECT, NULL);
    EXPECT_ERROR(ce_object_backlink_count(txn, s.dog, 3, s.person, s.name, &count), CE_ERR_WRONG_TYPE, "holds no links");
    EXPECT_ERROR(ce_object_backlink_count(txn, s.dog, 3, s.person, 99, &count), CE_ERR_NO_SUCH_PROPERTY, NULL);
    /* A link property of another table has no backlinks here: none. */
    CHECK(backlink_count(txn, s.dog, 3, s.person, s.best_link) == 0);
    check_people(txn, &s, m);
}

/* Deleting an origin drops its backlinks; deleting a target nulls the
 * links into it; deleting a self-linked object. */
static void people_delete(ce_db *db, const people_schema *schema, people_model *m)
{
    const people_schema s = *schema;
    ce_txn *txn;
    ce_value value;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_delete(txn, s.person, 3));
    m->person_alive[3] = false;
    check_people(txn, &s, m);
    CHECK(ce_object_delete(txn, s.dog, 7));
    m->dog_alive[7] = false;
    for (size_t p = 0; p < m->people; p++)
        if (m->dog_of[p] == 7) m->dog_of[p] = -1;
    check_people(txn, &s, m);
    CHECK(ce_object_delete(txn, s.person, 5));
    m->person_alive[5] = false;
    m->best_of[6] = -1;
    CHECK(ce_object_delete(txn, s.person, 8));
    m->person_alive[8] = false;
    m->best_of[9] = -1;
    check_people(txn, &s, m);
    value = link_value(s.dog, 7);
    EXPECT_ERROR(ce_object_set(txn, s.person, 1, s.dog_link, &value), CE_ERR_NO_SUCH_OBJECT, "does not exist");
    commit_and_verify(db, txn);
}

/* Random changes against the model, committed or rolled back; a reader of
 * the version before each round keeps seeing it. */
static void people_random_rounds(ce_db *db, const people_schema *schema, people_model *m)
{
    const people_schema s = *schema;
    ce_txn *txn;
    for (int round = 0; round < 12; round++) {
        people_model *saved = malloc(sizeof *saved);
        CHECK(saved != NULL);
        *saved = *m;
        ce_txn *snapshot; /* keeps seeing the state before the round */
        CHECK(ce_txn_begin_read(db, &snapshot));
        CHECK(ce_txn_begin_write(db, &txn));
        for (int step = 0; step < 60; step++) {
            size_t choice = random_below(20);
            ce_object_key person = random_alive(m->person_alive, m->people);
            if (choice < 2 && m->people < PEOPLE_MAX) {
                CHECK((size_t)create_object(txn, s.person) == m->people);
                m->person_alive[m->people] = true;
                m->dog_of[m->people] = m->best_of[m->people] = -1;
                m->people++;
            } else if (choice < 3 && m->dogs < DOGS_MAX) {
                CHECK((size_t)create_object(txn, s.dog) == m->dogs);
                m->dog_alive[m->dogs++] = true;
            } else if (person < 0) {
                continue;
            } else if (choice < 9) {
                ce_object_key dog = random_alive(m->dog_alive, m->dogs);
                set_value(txn, s.person, person, s.dog_link, dog < 0 ? null_value() : link_value(s.dog, dog));
                m->dog_of[person] = dog;
            } else if (choice < 15) {
                ce_object_key best = random_alive(m->person_alive, m->people);
                set_value(txn, s.person, person, s.best_link, best < 0 ? null_value() : link_value(s.person, best));
                m->best_of[person] = best;
            } else if (choice < 17) {
                CHECK(ce_object_delete(txn, s.person, person));
                m->person_alive[person] = false;
                for (size_t p = 0; p < m->people; p++)
                    if (m->best_of[p] == person) m->best_of[p] = -1;
            } else {
                ce_object_key dog = random_alive(m->dog_alive, m->dogs);
                if (dog < 0) continue;
                CHECK(ce_object_delete(txn, s.dog, dog));
                m->dog_alive[dog] = false;
                for (size_t p = 0; p < m->people; p++)
                    if (m->dog_of[p] == dog) m->dog_of[p] = -1;
            }
        }
        check_people(txn, &s, m);
        if (round % 3 == 2) {
            ce_txn_end(txn);
            *m = *saved;
            test_verify(db);
        } else {
            commit_and_verify(db, txn);
        }
        check_people(snapshot, &s, saved);
        ce_txn_end(snapshot);
        free(saved);
        CHECK(ce_txn_begin_read(db, &txn));
        check_people(txn, &s, m);
        ce_txn_end(txn);
    }
}

/* What a to-one link property must be: nullable, of a live table, not in
 * a list or dictionary of null, not indexed. */
TEST(to_one_link_schema_rules)
{
    test_db t = links_db_open("links");
    people_schema s;
    people_model *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    ce_object_key cat;
    ce_txn *txn = people_begin(t.db, &s, m, &cat);
    ce_column_key unused;
    EXPECT_ERROR(ce_property_add(txn, s.person, &(ce_property_info){.name = "pet", .type = CE_TYPE_LINK, .link_target = s.dog},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "must be nullable");
    EXPECT_ERROR(ce_property_add(txn, s.person,
                                 &(ce_property_info){.name = "pet", .type = CE_TYPE_LINK, .nullable = true, .link_target = 77},
                                 &unused),
                 CE_ERR_NO_SUCH_TABLE, "'Person.pet'");
    EXPECT_ERROR(ce_property_add(txn, s.person,
                                 &(ce_property_info){.name = "pets", .type = CE_TYPE_LINK, .nullable = true,
                                                     .collection = CE_COLLECTION_LIST, .link_target = s.dog},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "cannot hold null");
    EXPECT_ERROR(ce_property_add(txn, s.person,
                                 &(ce_property_info){.name = "pets", .type = CE_TYPE_LINK,
                                                     .collection = CE_COLLECTION_DICTIONARY, .link_target = s.dog},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "must be nullable");
    EXPECT_ERROR(ce_property_add(txn, s.person,
                                 &(ce_property_info){.name = "pets", .type = CE_TYPE_LINK, .nullable = true, .indexed = true,
                                                     .link_target = s.dog},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "cannot be indexed");
    commit_and_verify(t.db, txn);
    free(m);
    test_db_close(&t);
}

TEST(to_one_links)
{
    test_db t = links_db_open("links");
    people_schema s;
    people_model *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    ce_object_key cat;
    ce_txn *txn = people_begin(t.db, &s, m, &cat);
    people_set_links(txn, &s, m);
    commit_and_verify(t.db, txn);
    free(m);
    test_db_close(&t);
}

TEST(to_one_link_errors)
{
    test_db t = links_db_open("links");
    people_schema s;
    people_model *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    ce_object_key cat;
    ce_txn *txn = people_begin(t.db, &s, m, &cat);
    people_set_links(txn, &s, m);
    people_refuse(txn, &s, m, cat);
    commit_and_verify(t.db, txn);
    free(m);
    test_db_close(&t);
}

TEST(deleting_linked_objects)
{
    test_db t = links_db_open("links");
    people_schema s;
    people_model *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    ce_object_key cat;
    ce_txn *txn = people_begin(t.db, &s, m, &cat);
    people_set_links(txn, &s, m);
    people_refuse(txn, &s, m, cat);
    commit_and_verify(t.db, txn);
    people_delete(t.db, &s, m);
    free(m);
    test_db_close(&t);
}

/* After the deletes, random rounds; then all of it read back after a
 * reopen. */
TEST(random_link_changes)
{
    test_db t = links_db_open("links");
    people_schema s;
    people_model *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    ce_object_key cat;
    ce_txn *txn = people_begin(t.db, &s, m, &cat);
    people_set_links(txn, &s, m);
    people_refuse(txn, &s, m, cat);
    commit_and_verify(t.db, txn);
    people_delete(t.db, &s, m);
    people_random_rounds(t.db, &s, m);
    ce_db **db = &t.db;
    const char *path = t.path;
    *db = reopen(*db, path);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_people(txn, &s, m);
    ce_txn_end(txn);
    free(m);
    test_db_close(&t);
}

/* Many origins (over a thousand, across cluster leaves) to one target;
 * links written with the object's other values; lists of links into the
 * origin's own table (an object in its own list). */
TEST(many_origins)
{
    test_db t = links_db_open("links");
    ce_db *db = t.db;
    enum { FANS = 1500 };
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key idol = add_table(txn, "Idol", false), fan = add_table(txn, "Fan", false);
    ce_column_key idol_link = add_property(txn, fan, "idol", CE_TYPE_LINK, true, CE_COLLECTION_NONE, idol);
    add_scalar(txn, fan, "n", CE_TYPE_INT, false);
    ce_object_key i0 = create_object(txn, idol), i1 = create_object(txn, idol);
    bool *fan_alive = calloc(FANS + 1, sizeof *fan_alive);
    ce_object_key *origins = malloc((FANS + 1) * sizeof *origins);
    CHECK(fan_alive && origins);
    for (int i = 0; i < FANS; i++) {
        ce_value values[2] = {link_value(idol, i0), int_value(i)};
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, fan, values, 2, &key) && key == i);
        fan_alive[i] = true;
    }
    ce_value wrong[2] = {link_value(idol, 99), int_value(0)};
    ce_object_key key;
    EXPECT_ERROR(ce_object_create_with_values(txn, fan, wrong, 2, &key), CE_ERR_NO_SUCH_OBJECT, "'Fan.idol'");
    CHECK(object_count(txn, fan) == FANS);
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < 300; i++) {
        ce_object_key victim = (ce_object_key)random_below(FANS);
        if (!fan_alive[victim]) continue;
        CHECK(ce_object_delete(txn, fan, victim));
        fan_alive[victim] = false;
    }
    size_t count = 0;
    for (int i = 0; i < FANS; i++)
        if (fan_alive[i]) origins[count++] = i;
    check_backlinks(txn, idol, i0, fan, idol_link, origins, count);
    CHECK(count > 1000);
    /* A list of links to the origin's own table, added to a table that has
     * objects: every object starts with an empty list. */
    ce_column_key friends = add_property(txn, fan, "friends", CE_TYPE_LINK, false, CE_COLLECTION_LIST, fan);
    ce_object_key f0 = origins[0], f1 = origins[1];
    ce_collection *list;
    CHECK(ce_collection_open(txn, fan, origins[count - 1], friends, &list));
    size_t size;
    CHECK(ce_collection_size(list, &size) && size == 0);
    ce_collection_close(list);
    CHECK(ce_collection_open(txn, fan, f0, friends, &list));
    ce_value self = link_value(fan, f0), other = link_value(fan, f1);
    CHECK(ce_list_insert(list, 0, &self) && ce_list_insert(list, 1, &other) && ce_list_insert(list, 2, &self));
    ce_collection_close(list);
    CHECK(ce_collection_open(txn, fan, f1, friends, &list));
    CHECK(ce_list_insert(list, 0, &self));
    ce_collection_close(list);
    check_backlinks(txn, fan, f0, fan, friends, (ce_object_key[]){f0, f0, f1}, 3);
    check_backlinks(txn, fan, f1, fan, friends, (ce_object_key[]){f0}, 1);
    commit_and_verify(db, txn);
    /* Deleting the object in its own list, then the target of them all. */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_object_delete(txn, fan, f0));
    CHECK(backlink_total(txn, fan, f1) == 0);
    check_list_of(txn, fan, f1, friends, NULL, 0, "Fan.friends");
    CHECK(ce_object_delete(txn, idol, i0));
    for (size_t i = 1; i < count; i += 37) CHECK(get_value(txn, fan, origins[i], idol_link).type == CE_TYPE_NULL);
    set_value(txn, fan, f1, idol_link, link_value(idol, i1));
    CHECK(backlink_total(txn, idol, i1) == 1);
    commit_and_verify(db, txn);

    free(fan_alive);
    free(origins);
    test_db_close(&t);
}

/* create_or_update: links and mixed links kept true whatever the policy. */
TEST(create_or_update_keeps_links)
{
    test_db t = links_db_open("links");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key idol = add_table(txn, "Idol", false);
    create_object(txn, idol);
    ce_object_key i1 = create_object(txn, idol), key;
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key keyed = add_table(txn, "Keyed", false);
    ce_column_key id;
    CHECK(ce_property_add(txn, keyed, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true}, &id));
    ce_column_key to_idol = add_property(txn, keyed, "idol", CE_TYPE_LINK, true, CE_COLLECTION_NONE, idol);
    ce_column_key any = add_scalar(txn, keyed, "any", CE_TYPE_MIXED, true);
    ce_value values[3] = {int_value(1), link_value(idol, i1), link_value(idol, i1)};
    bool created;
    CHECK(ce_object_create_or_update(txn, keyed, values, 3, CE_UPDATE_MODIFIED, &key, &created) && created);
    for (int policy = CE_UPDATE_MODIFIED; policy <= CE_UPDATE_ALL; policy++) {
        ce_object_key again;
        CHECK(ce_object_create_or_update(txn, keyed, values, 3, (ce_update_policy)policy, &again, &created));
        CHECK(!created && again == key);
        check_backlinks(txn, idol, i1, keyed, to_idol, (ce_object_key[]){key}, 1);
        check_backlinks(txn, idol, i1, keyed, any, (ce_object_key[]){key}, 1);
    }
    values[1] = null_value();
    values[2] = nested_value(CE_TYPE_LIST);
    CHECK(ce_object_create_or_update(txn, keyed, values, 3, CE_UPDATE_MODIFIED, &key, &created) && !created);
    CHECK(backlink_count(txn, idol, i1, keyed, to_idol) == 0 && backlink_count(txn, idol, i1, keyed, any) == 0);
    CHECK(get_value(txn, keyed, key, any).type == CE_TYPE_LIST);
    commit_and_verify(db, txn);
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Deleting a target: every kind of holder lets go of it                     */
/* ------------------------------------------------------------------------ */

typedef struct purge_schema {
    ce_table_key target, owner;
    ce_column_key one, many, unique, named, any, anys, any_map;
    ce_object_key t[4], o0, o1;
} purge_schema;

/* The state before t[0] is deleted, or after. */
static void check_purge_state(ce_txn *txn, const purge_schema *s, bool deleted)
{
    ce_value t0 = link_value(s->target, s->t[0]), t1 = link_value(s->target, s->t[1]),
             t2 = link_value(s->target, s->t[2]), none = null_value();
    ce_value list = nested_value(CE_TYPE_LIST), dictionary = nested_value(CE_TYPE_DICTIONARY);
    CHECK(object_exists(txn, s->target, s->t[0]) == !deleted);
    ce_value one = get_value(txn, s->owner, s->o0, s->one);
    check_same(deleted ? &none : &t0, &one, "PurgeOwner.one", 0);
    one = get_value(txn, s->owner, s->o1, s->one);
    check_same(deleted ? &none : &t0, &one, "PurgeOwner.one", 1);
    ce_value any = get_value(txn, s->owner, s->o0, s->any);
    check_same(deleted ? &none : &t0, &any, "PurgeOwner.any", 0);
    if (deleted) {
        check_list_of(txn, s->owner, s->o0, s->many, (ce_value[]){t1, t2}, 2, "PurgeOwner.many");
        check_list_of(txn, s->owner, s->o1, s->many, NULL, 0, "PurgeOwner.many");
        check_list_of(txn, s->owner, s->o0, s->unique, (ce_value[]){t1}, 1, "PurgeOwner.unique");
        check_list_of(txn, s->owner, s->o0, s->named, (ce_value[]){none, t1, none}, 3, "PurgeOwner.named");
        check_list_of(txn, s->owner, s->o0, s->anys, (ce_value[]){list, dictionary}, 2, "PurgeOwner.anys");
    } else {
        check_list_of(txn, s->owner, s->o0, s->many, (ce_value[]){t0, t1, t0, t2, t0}, 5, "PurgeOwner.many");
        check_list_of(txn, s->owner, s->o1, s->many, (ce_value[]){t0, t0}, 2, "PurgeOwner.many");
        check_list_of(txn, s->owner, s->o0, s->unique, (ce_value[]){t0, t1}, 2, "PurgeOwner.unique");
        check_list_of(txn, s->owner, s->o0, s->named, (ce_value[]){t0, t1, t0}, 3, "PurgeOwner.named");
        check_list_of(txn, s->owner, s->o0, s->anys, (ce_value[]){t0, list, dictionary}, 3, "PurgeOwner.anys");
    }
    ce_collection *anys;
    CHECK(ce_collection_open(txn, s->owner, s->o0, s->anys, &anys));
    size_t offset = deleted ? 0 : 1;
    if (deleted) {
        check_nested_of(anys, int_value(0), (ce_value[]){t1}, 1, "PurgeOwner.anys[0]");
        check_nested_of(anys, int_value(1), (ce_value[]){none}, 1, "PurgeOwner.anys[1]");
    } else {
        check_nested_of(anys, int_value(1), (ce_value[]){t0, t1}, 2, "PurgeOwner.anys[1]");
        check_nested_of(anys, int_value(2), (ce_value[]){t0}, 1, "PurgeOwner.anys[2]");
    }
    ce_collection *nested;
    CHECK(ce_collection_open_nested(anys, &(ce_value){.type = CE_TYPE_INT, .integer = (int64_t)offset + 1}, &nested));
    ce_value key;
    CHECK(ce_dictionary_key_at(nested, 0, &key) && key.string.size == 1 && key.string.data[0] == 'x');
    ce_collection_close(nested);
    ce_collection_close(anys);
    /* The dictionary keeps its keys. */
    ce_collection *named;
    CHECK(ce_collection_open(txn, s->owner, s->o0, s->named, &named));
    const char *keys[] = {"a", "b", "c"};
    for (size_t i = 0; i < 3; i++) {
        CHECK(ce_dictionary_key_at(named, i, &key));
        CHECK(key.string.size == 1 && key.string.data[0] == keys[i][0]);
    }
    ce_collection_close(named);
    /* A dictionary of mixed values: a nested list drops t0, a value of t0
     * becomes null. */
    ce_collection *any_map;
    CHECK(ce_collection_open(txn, s->owner, s->o1, s->any_map, &any_map));
    check_nested_of(any_map, string_value("l"), deleted ? (ce_value[]){t1} : (ce_value[]){t0, t1}, deleted ? 1 : 2,
                    "PurgeOwner.anyMap[l]");
    ce_value held;
    bool found;
    CHECK(ce_dictionary_get(any_map, "d", 1, &held, &found) && found);
    check_same(deleted ? &none : &t0, &held, "PurgeOwner.anyMap[d]", 0);
    ce_collection_close(any_map);
    /* Backlinks: one entry per link (a list holding t0 three times gives
     * three), in origin key order. */
    if (!deleted) {
        check_backlinks(txn, s->target, s->t[0], s->owner, s->one, (ce_object_key[]){s->o0, s->o1}, 2);
        check_backlinks(txn, s->target, s->t[0], s->owner, s->many, (ce_object_key[]){s->o0, s->o0, s->o0, s->o1, s->o1}, 5);
        check_backlinks(txn, s->target, s->t[0], s->owner, s->unique, (ce_object_key[]){s->o0}, 1);
        check_backlinks(txn, s->target, s->t[0], s->owner, s->named, (ce_object_key[]){s->o0, s->o0}, 2);
        check_backlinks(txn, s->target, s->t[0], s->owner, s->any, (ce_object_key[]){s->o0}, 1);
        check_backlinks(txn, s->target, s->t[0], s->owner, s->anys, (ce_object_key[]){s->o0, s->o0, s->o0}, 3);
        check_backlinks(txn, s->target, s->t[0], s->owner, s->any_map, (ce_object_key[]){s->o1, s->o1}, 2);
        CHECK(backlink_total(txn, s->target, s->t[0]) == 16);
    }
    check_backlinks(txn, s->target, s->t[1], s->owner, s->any_map, (ce_object_key[]){s->o1}, 1);
    check_backlinks(txn, s->target, s->t[1], s->owner, s->many, (ce_object_key[]){s->o0}, 1);
    check_backlinks(txn, s->target, s->t[1], s->owner, s->unique, (ce_object_key[]){s->o0}, 1);
    check_backlinks(txn, s->target, s->t[1], s->owner, s->named, (ce_object_key[]){s->o0}, 1);
    check_backlinks(txn, s->target, s->t[1], s->owner, s->anys, (ce_object_key[]){s->o0}, 1);
    CHECK(backlink_total(txn, s->target, s->t[1]) == 5);
    CHECK(backlink_total(txn, s->target, s->t[2]) == 1);
    CHECK(backlink_total(txn, s->target, s->t[3]) == 0);
}

/* Two owners holding target t0 through every kind of holder (a link, a
 * list, a set, a dictionary, a mixed value, a list of mixed values with a
 * list and a dictionary nested in it, a dictionary of mixed values),
 * committed. */
static void purge_build(ce_db *db, purge_schema *out)
{
    purge_schema s;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    s.target = add_table(txn, "PurgeTarget", false);
    s.owner = add_table(txn, "PurgeOwner", false);
    add_scalar(txn, s.target, "n", CE_TYPE_INT, false);
    s.one = add_property(txn, s.owner, "one", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.target);
    s.many = add_property(txn, s.owner, "many", CE_TYPE_LINK, false, CE_COLLECTION_LIST, s.target);
    s.unique = add_property(txn, s.owner, "unique", CE_TYPE_LINK, false, CE_COLLECTION_SET, s.target);
    s.named = add_property(txn, s.owner, "named", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, s.target);
    s.any = add_scalar(txn, s.owner, "any", CE_TYPE_MIXED, true);
    s.anys = add_property(txn, s.owner, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    s.any_map = add_property(txn, s.owner, "anyMap", CE_TYPE_MIXED, true, CE_COLLECTION_DICTIONARY, 0);
    for (int i = 0; i < 4; i++) s.t[i] = create_object(txn, s.target);
    s.o0 = create_object(txn, s.owner);
    s.o1 = create_object(txn, s.owner);
    ce_value t0 = link_value(s.target, s.t[0]), t1 = link_value(s.target, s.t[1]), t2 = link_value(s.target, s.t[2]);
    set_value(txn, s.owner, s.o0, s.one, t0);
    set_value(txn, s.owner, s.o1, s.one, t0);
    set_value(txn, s.owner, s.o0, s.any, t0);
    ce_collection *collection, *nested;
    CHECK(ce_collection_open(txn, s.owner, s.o0, s.many, &collection));
    const ce_value *many[] = {&t0, &t1, &t0, &t2, &t0};
    for (size_t i = 0; i < 5; i++) CHECK(ce_list_insert(collection, i, many[i]));
    ce_collection_close(collection);
    CHECK(ce_collection_open(txn, s.owner, s.o1, s.many, &collection));
    CHECK(ce_list_insert(collection, 0, &t0) && ce_list_insert(collection, 1, &t0));
    ce_collection_close(collection);
    CHECK(ce_collection_open(txn, s.owner, s.o0, s.unique, &collection));
    bool changed;
    CHECK(ce_set_insert(collection, &t1, &changed) && ce_set_insert(collection, &t0, &changed));
    CHECK(ce_set_insert(collection, &t0, &changed) && !changed);
    ce_collection_close(collection);
    CHECK(ce_collection_open(txn, s.owner, s.o0, s.named, &collection));
    CHECK(ce_dictionary_set(collection, "c", 1, &t0) && ce_dictionary_set(collection, "a", 1, &t0) &&
          ce_dictionary_set(collection, "b", 1, &t1));
    ce_collection_close(collection);
    CHECK(ce_collection_open(txn, s.owner, s.o0, s.anys, &collection));
    ce_value list = nested_value(CE_TYPE_LIST), dictionary = nested_value(CE_TYPE_DICTIONARY);
    CHECK(ce_list_insert(collection, 0, &t0) && ce_list_insert(collection, 1, &list) &&
          ce_list_insert(collection, 2, &dictionary));
    CHECK(ce_collection_open_nested(collection, &(ce_value){.type = CE_TYPE_INT, .integer = 1}, &nested));
    CHECK(ce_list_insert(nested, 0, &t0) && ce_list_insert(nested, 1, &t1));
    ce_collection_close(nested);
    CHECK(ce_collection_open_nested(collection, &(ce_value){.type = CE_TYPE_INT, .integer = 2}, &nested));
    CHECK(ce_dictionary_set(nested, "x", 1, &t0));
    ce_collection_close(nested);
    ce_collection_close(collection);
    CHECK(ce_collection_open(txn, s.owner, s.o1, s.any_map, &collection));
    CHECK(ce_dictionary_set(collection, "l", 1, &list) && ce_dictionary_set(collection, "d", 1, &t0));
    CHECK(ce_collection_open_nested(collection, &(ce_value){.type = CE_TYPE_STRING, .string = {"l", 1}}, &nested));
    CHECK(ce_list_insert(nested, 0, &t0) && ce_list_insert(nested, 1, &t1));
    ce_collection_close(nested);
    ce_collection_close(collection);
    check_purge_state(txn, &s, false);
    commit_and_verify(db, txn);

    *out = s;
}

/* Deleting the target, rolled back, then committed: every holder lets go
 * of it (read back after a reopen too). */
TEST(delete_target_purges_every_holder)
{
    test_db t = links_db_open("links");
    ce_db **db = &t.db;
    const char *path = t.path;
    purge_schema s;
    purge_build(t.db, &s);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_delete(txn, s.target, s.t[0]));
    check_purge_state(txn, &s, true);
    ce_txn_end(txn);
    test_verify(*db);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_purge_state(txn, &s, false);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_delete(txn, s.target, s.t[0]));
    EXPECT_ERROR(ce_object_delete(txn, s.target, s.t[0]), CE_ERR_NO_SUCH_OBJECT, "'PurgeTarget'");
    size_t count;
    EXPECT_ERROR(ce_object_backlink_count(txn, s.target, s.t[0], s.owner, s.many, &count), CE_ERR_NO_SUCH_OBJECT, NULL);
    check_purge_state(txn, &s, true);
    commit_and_verify(*db, txn);
    *db = reopen(*db, path);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_purge_state(txn, &s, true);
    ce_txn_end(txn);
    test_db_close(&t);
}

TEST(deleting_owners_drops_backlinks)
{
    test_db t = links_db_open("links");
    ce_db **db = &t.db;
    purge_schema s;
    purge_build(t.db, &s);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_delete(txn, s.owner, s.o0));
    CHECK(ce_object_delete(txn, s.owner, s.o1));
    for (int i = 1; i < 4; i++) CHECK(backlink_total(txn, s.target, s.t[i]) == 0);
    commit_and_verify(*db, txn);
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Schema changes                                                            */
/* ------------------------------------------------------------------------ */

typedef struct schema_keys {
    ce_table_key origin, target, emb;
    ce_column_key to_one, to_many, emb_one, emb_many, any, other_any;
} schema_keys;

/* The backlink property of a link property, as ce_property_get_info
 * reports both. */
static void check_link_info(ce_txn *txn, ce_table_key origin, ce_column_key column, const char *name, ce_table_key target,
                            ce_collection_type collection, bool nullable)
{
    ce_property_info info;
    CHECK(ce_property_get_info(txn, origin, column, &info));
    CHECK(strcmp(info.name, name) == 0 && info.type == CE_TYPE_LINK && info.link_target == target &&
          info.collection == collection && info.nullable == nullable && !info.backlink && !info.primary_key &&
          !info.indexed);
    const char *origin_name;
    CHECK(ce_table_name(txn, origin, &origin_name));
    char backlink_name[160];
    snprintf(backlink_name, sizeof backlink_name, "@links.%s.%s", origin_name, name);
    ce_column_key backlink = find_property(txn, target, backlink_name);
    CHECK(ce_property_get_info(txn, target, backlink, &info));
    CHECK(info.backlink && strcmp(info.name, backlink_name) == 0 && info.type == CE_TYPE_LINK &&
          info.origin_table == origin && info.origin_column == column && info.collection == CE_COLLECTION_NONE);
}

/* The schema keys and objects schema_build leaves. */
typedef struct schema_fixture {
    schema_keys k;
    ce_table_key other;
    ce_object_key t0, t1, o0, o1, x0;
} schema_fixture;

/* Link properties of every kind (to-one, list, embedded to-one and list,
 * mixed, a mixed list in another table), their backlink properties, data
 * through each, and what the schema refuses about them; committed. */
static schema_fixture schema_build(ce_db **db)
{
    schema_keys k;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    k.target = add_table(txn, "SchemaTarget", false);
    k.emb = add_table(txn, "SchemaEmb", true);
    k.origin = add_table(txn, "SchemaOrigin", false);
    ce_table_key other = add_table(txn, "SchemaOther", false);
    add_scalar(txn, k.target, "n", CE_TYPE_INT, false);
    add_scalar(txn, k.emb, "n", CE_TYPE_INT, false);
    k.to_one = add_property(txn, k.origin, "toOne", CE_TYPE_LINK, true, CE_COLLECTION_NONE, k.target);
    k.to_many = add_property(txn, k.origin, "toMany", CE_TYPE_LINK, false, CE_COLLECTION_LIST, k.target);
    k.emb_one = add_property(txn, k.origin, "embOne", CE_TYPE_LINK, true, CE_COLLECTION_NONE, k.emb);
    k.emb_many = add_property(txn, k.origin, "embMany", CE_TYPE_LINK, false, CE_COLLECTION_LIST, k.emb);
    k.any = add_scalar(txn, k.origin, "any", CE_TYPE_MIXED, true);
    k.other_any = add_property(txn, other, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    size_t count;
    CHECK(ce_property_count(txn, k.target, &count) && count == 3); /* n and two backlink properties */
    check_link_info(txn, k.origin, k.to_one, "toOne", k.target, CE_COLLECTION_NONE, true);
    check_link_info(txn, k.origin, k.to_many, "toMany", k.target, CE_COLLECTION_LIST, false);
    check_link_info(txn, k.origin, k.emb_many, "embMany", k.emb, CE_COLLECTION_LIST, false);
    /* Backlink properties are read only, and named by the engine. */
    ce_column_key backlink = find_property(txn, k.target, "@links.SchemaOrigin.toMany");
    EXPECT_ERROR(ce_property_remove(txn, k.target, backlink), CE_ERR_INVALID_ARGUMENT, "backlink property");
    ce_column_key unused;
    EXPECT_ERROR(ce_property_add(txn, k.target,
                                 &(ce_property_info){.name = "@links.SchemaOrigin.x", .type = CE_TYPE_INT}, &unused),
                 CE_ERR_INVALID_ARGUMENT, "names starting with '@'");
    ce_object_key t0 = create_object(txn, k.target), t1 = create_object(txn, k.target);
    ce_object_key o0 = create_object(txn, k.origin), o1 = create_object(txn, k.origin);
    ce_object_key x0 = create_object(txn, other);
    ce_value value;
    EXPECT_ERROR(ce_object_get(txn, k.target, t0, backlink, &value), CE_ERR_WRONG_TYPE, "backlink property");
    value = link_value(k.origin, o0);
    EXPECT_ERROR(ce_object_set(txn, k.target, t0, backlink, &value), CE_ERR_WRONG_TYPE, "backlink property");
    ce_collection *collection;
    EXPECT_ERROR(ce_collection_open(txn, k.target, t0, backlink, &collection), CE_ERR_WRONG_TYPE, NULL);
    /* Data through every link property. */
    set_value(txn, k.origin, o0, k.to_one, link_value(k.target, t0));
    set_value(txn, k.origin, o1, k.to_one, link_value(k.target, t0));
    set_value(txn, k.origin, o0, k.any, link_value(k.target, t1));
    CHECK(ce_collection_open(txn, k.origin, o0, k.to_many, &collection));
    value = link_value(k.target, t0);
    CHECK(ce_list_insert(collection, 0, &value) && ce_list_insert(collection, 0, &value));
    ce_collection_close(collection);
    ce_object_key e;
    CHECK(ce_object_create_embedded(txn, k.origin, o0, k.emb_one, &e));
    CHECK(ce_object_create_embedded(txn, k.origin, o1, k.emb_one, &e));
    CHECK(ce_collection_open(txn, k.origin, o0, k.emb_many, &collection));
    for (int i = 0; i < 3; i++) CHECK(ce_list_insert_embedded(collection, 0, &e));
    ce_collection_close(collection);
    /* A mixed list in another table holds links to the target, nested too. */
    CHECK(ce_collection_open(txn, other, x0, k.other_any, &collection));
    ce_value list = nested_value(CE_TYPE_LIST), t1_link = link_value(k.target, t1);
    CHECK(ce_list_insert(collection, 0, &t1_link) && ce_list_insert(collection, 1, &list));
    ce_collection *nested = open_nested(collection, int_value(1));
    CHECK(ce_list_insert(nested, 0, &t1_link));
    ce_collection_close(nested);
    ce_collection_close(collection);
    CHECK(object_count(txn, k.emb) == 5);
    CHECK(backlink_total(txn, k.target, t0) == 4 && backlink_total(txn, k.target, t1) == 3);
    /* Tables that a link property targets stay. */
    EXPECT_ERROR(ce_table_remove(txn, k.target), CE_ERR_INVALID_SCHEMA, "'SchemaOrigin.toOne' links to it");
    EXPECT_ERROR(ce_table_remove(txn, k.emb), CE_ERR_INVALID_SCHEMA, "'SchemaOrigin.embOne' links to it");
    commit_and_verify(*db, txn);
    return (schema_fixture){k, other, t0, t1, o0, o1, x0};
}

/* The schema, backlink names included, survives a reopen. */
static void schema_read_back(ce_db **db, const char *path, const schema_fixture *f)
{
    schema_keys k = f->k;
    ce_table_key other = f->other;
    ce_object_key t0 = f->t0, t1 = f->t1, o0 = f->o0, x0 = f->x0;
    ce_txn *txn;
    *db = reopen(*db, path);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_link_info(txn, k.origin, k.to_one, "toOne", k.target, CE_COLLECTION_NONE, true);
    check_link_info(txn, k.origin, k.to_many, "toMany", k.target, CE_COLLECTION_LIST, false);
    check_link_info(txn, k.origin, k.emb_one, "embOne", k.emb, CE_COLLECTION_NONE, true);
    check_link_info(txn, k.origin, k.emb_many, "embMany", k.emb, CE_COLLECTION_LIST, false);
    CHECK(has_property(txn, k.target, "@links.SchemaOrigin.any") && has_property(txn, k.target, "@links.SchemaOther.anys"));
    bool embedded;
    CHECK(ce_table_is_embedded(txn, k.emb, &embedded) && embedded);
    check_backlinks(txn, k.target, t0, k.origin, k.to_many, (ce_object_key[]){o0, o0}, 2);
    check_backlinks(txn, k.target, t1, other, k.other_any, (ce_object_key[]){x0, x0}, 2);
    ce_txn_end(txn);
}

/* Removing link properties (rolled back once): the backlink property
 * goes, embedded targets are deleted, other links stay. */
static void schema_remove_link_properties(ce_db **db, const schema_fixture *f)
{
    schema_keys k = f->k;
    ce_object_key t0 = f->t0, t1 = f->t1, o0 = f->o0, o1 = f->o1;
    ce_txn *txn;
    ce_collection *collection;
    for (int pass = 0; pass < 2; pass++) {
        CHECK(ce_txn_begin_write(*db, &txn));
        CHECK(ce_property_remove(txn, k.origin, k.emb_one));
        CHECK(object_count(txn, k.emb) == 3);
        CHECK(!has_property(txn, k.emb, "@links.SchemaOrigin.embOne"));
        CHECK(has_property(txn, k.emb, "@links.SchemaOrigin.embMany"));
        CHECK(ce_property_remove(txn, k.origin, k.emb_many));
        CHECK(object_count(txn, k.emb) == 0);
        CHECK(!has_property(txn, k.emb, "@links.SchemaOrigin.embMany"));
        EXPECT_ERROR(ce_collection_open(txn, k.origin, o0, k.emb_many, &collection), CE_ERR_NO_SUCH_PROPERTY, NULL);
        CHECK(ce_table_remove(txn, k.emb)); /* nothing links to it now */
        CHECK(ce_property_remove(txn, k.origin, k.to_many));
        CHECK(!has_property(txn, k.target, "@links.SchemaOrigin.toMany"));
        size_t c;
        EXPECT_ERROR(ce_object_backlink_count(txn, k.target, t0, k.origin, k.to_many, &c), CE_ERR_NO_SUCH_PROPERTY, NULL);
        CHECK(backlink_total(txn, k.target, t0) == 2);
        CHECK(ce_property_remove(txn, k.origin, k.to_one));
        CHECK(backlink_total(txn, k.target, t0) == 0);
        CHECK(backlink_total(txn, k.target, t1) == 3);
        CHECK(ce_property_count(txn, k.target, &c) && c == 5); /* slots stay */
        if (pass == 0) {
            ce_txn_end(txn);
            test_verify(*db);
            CHECK(ce_txn_begin_read(*db, &txn));
            CHECK(object_count(txn, k.emb) == 5);
            check_link_info(txn, k.origin, k.emb_one, "embOne", k.emb, CE_COLLECTION_NONE, true);
            check_backlinks(txn, k.target, t0, k.origin, k.to_one, (ce_object_key[]){o0, o1}, 2);
            ce_txn_end(txn);
        } else {
            commit_and_verify(*db, txn);
        }
    }
}

/* Adding a link property, rolled back: its backlink property goes too. */
static void schema_add_link_property_rolled_back(ce_db **db, const schema_fixture *f)
{
    schema_keys k = f->k;
    ce_object_key t1 = f->t1, o0 = f->o0;
    ce_value t1_link = link_value(k.target, t1);
    ce_txn *txn;
    ce_collection *collection;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_column_key added = add_property(txn, k.origin, "added", CE_TYPE_LINK, false, CE_COLLECTION_LIST, k.target);
    CHECK(has_property(txn, k.target, "@links.SchemaOrigin.added"));
    CHECK(ce_collection_open(txn, k.origin, o0, added, &collection));
    CHECK(ce_list_insert(collection, 0, &t1_link));
    ce_collection_close(collection);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_read(*db, &txn));
    CHECK(!has_property(txn, k.origin, "added") && !has_property(txn, k.target, "@links.SchemaOrigin.added"));
    CHECK(backlink_total(txn, k.target, t1) == 3);
    ce_txn_end(txn);
}

/* Removing a mixed property drops the links it held, nested ones too,
 * and its backlink property. */
static void schema_remove_mixed_property(ce_db **db, const schema_fixture *f)
{
    schema_keys k = f->k;
    ce_object_key t1 = f->t1, o0 = f->o0, o1 = f->o1;
    ce_value list = nested_value(CE_TYPE_LIST), t1_link = link_value(k.target, t1);
    ce_txn *txn;
    ce_collection *collection, *nested;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_column_key extra = add_scalar(txn, k.origin, "extra", CE_TYPE_MIXED, true);
    set_value(txn, k.origin, o1, extra, list);
    CHECK(ce_collection_open_mixed(txn, k.origin, o1, extra, &collection));
    CHECK(ce_list_insert(collection, 0, &t1_link) && ce_list_insert(collection, 1, &list));
    nested = open_nested(collection, int_value(1));
    CHECK(ce_list_insert(nested, 0, &t1_link));
    ce_collection_close(nested);
    ce_collection_close(collection);
    set_value(txn, k.origin, o0, extra, t1_link);
    check_backlinks(txn, k.target, t1, k.origin, extra, (ce_object_key[]){o0, o1, o1}, 3);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_property_remove(txn, k.origin, extra));
    CHECK(!has_property(txn, k.target, "@links.SchemaOrigin.extra"));
    CHECK(backlink_total(txn, k.target, t1) == 3);
    commit_and_verify(*db, txn);
}

/* Removing a table that mixed values link into clears those links
 * (nested ones too); rolled back once. */
static void schema_remove_linked_table(ce_db **db, const schema_fixture *f)
{
    schema_keys k = f->k;
    ce_table_key other = f->other;
    ce_object_key t1 = f->t1, o0 = f->o0, x0 = f->x0;
    ce_value list = nested_value(CE_TYPE_LIST), value;
    ce_txn *txn;
    ce_collection *collection;
    size_t count;
    for (int pass = 0; pass < 2; pass++) {
        CHECK(ce_txn_begin_write(*db, &txn));
        CHECK(ce_table_remove(txn, k.target));
        value = get_value(txn, k.origin, o0, k.any);
        CHECK(value.type == CE_TYPE_NULL);
        CHECK(ce_collection_open(txn, other, x0, k.other_any, &collection));
        check_list_of(txn, other, x0, k.other_any, (ce_value[]){list}, 1, "SchemaOther.anys");
        check_nested_of(collection, int_value(0), NULL, 0, "SchemaOther.anys[0]");
        ce_collection_close(collection);
        bool found;
        ce_table_key key;
        CHECK(ce_table_find(txn, "SchemaTarget", &key, &found) && !found);
        EXPECT_ERROR(ce_object_count(txn, k.target, &count), CE_ERR_NO_SUCH_TABLE, NULL);
        value = link_value(k.target, t1);
        EXPECT_ERROR(ce_object_set(txn, k.origin, o0, k.any, &value), CE_ERR_NO_SUCH_TABLE, NULL);
        if (pass == 0) {
            ce_txn_end(txn);
            test_verify(*db);
            CHECK(ce_txn_begin_read(*db, &txn));
            check_backlinks(txn, k.target, t1, other, k.other_any, (ce_object_key[]){x0, x0}, 2);
            check_backlinks(txn, k.target, t1, k.origin, k.any, (ce_object_key[]){o0}, 1);
            ce_txn_end(txn);
        } else {
            commit_and_verify(*db, txn);
        }
    }
}

/* A table that links to another is removed, then that other table:
 * the file still opens (the removed table's link names a removed table). */
static void schema_remove_chained_tables(ce_db **db, const char *path, const schema_fixture *f)
{
    schema_keys k = f->k;
    ce_object_key o0 = f->o0;
    ce_value value;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_table_key chain_b = add_table(txn, "ChainB", false);
    ce_table_key chain_a = add_table(txn, "ChainA", false);
    ce_column_key chain_link = add_property(txn, chain_a, "b", CE_TYPE_LINK, true, CE_COLLECTION_NONE, chain_b);
    ce_object_key a0 = create_object(txn, chain_a), b0 = create_object(txn, chain_b);
    set_value(txn, chain_a, a0, chain_link, link_value(chain_b, b0));
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    EXPECT_ERROR(ce_table_remove(txn, chain_b), CE_ERR_INVALID_SCHEMA, "'ChainA.b'");
    CHECK(ce_table_remove(txn, chain_a));
    CHECK(backlink_total(txn, chain_b, b0) == 0);
    CHECK(!has_property(txn, chain_b, "@links.ChainA.b"));
    CHECK(ce_table_remove(txn, chain_b));
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_read(*db, &txn));
    bool found;
    ce_table_key key;
    CHECK(ce_table_find(txn, "ChainA", &key, &found) && !found);
    CHECK(ce_table_find(txn, "ChainB", &key, &found) && !found);
    ce_txn_end(txn);
    *db = reopen(*db, path);
    CHECK(ce_txn_begin_read(*db, &txn));
    CHECK(ce_table_find(txn, "SchemaOrigin", &key, &found) && found && key == k.origin);
    value = get_value(txn, k.origin, o0, k.any);
    CHECK(value.type == CE_TYPE_NULL);
    ce_txn_end(txn);
}

TEST(link_schema)
{
    test_db t = links_db_open("links");
    schema_fixture f = schema_build(&t.db);
    schema_read_back(&t.db, t.path, &f);
    test_db_close(&t);
}

TEST(removing_link_properties)
{
    test_db t = links_db_open("links");
    schema_fixture f = schema_build(&t.db);
    schema_remove_link_properties(&t.db, &f);
    test_db_close(&t);
}

TEST(adding_link_property_rolled_back)
{
    test_db t = links_db_open("links");
    schema_fixture f = schema_build(&t.db);
    schema_add_link_property_rolled_back(&t.db, &f);
    test_db_close(&t);
}

TEST(removing_mixed_property)
{
    test_db t = links_db_open("links");
    schema_fixture f = schema_build(&t.db);
    schema_remove_mixed_property(&t.db, &f);
    test_db_close(&t);
}

/* After the link properties into it are gone. */
TEST(removing_linked_table)
{
    test_db t = links_db_open("links");
    schema_fixture f = schema_build(&t.db);
    schema_remove_link_properties(&t.db, &f);
    schema_remove_linked_table(&t.db, &f);
    test_db_close(&t);
}

/* After the linked table is gone: the file, reopened, still has the rest. */
TEST(removing_chained_tables)
{
    test_db t = links_db_open("links");
    schema_fixture f = schema_build(&t.db);
    schema_remove_link_properties(&t.db, &f);
    schema_remove_linked_table(&t.db, &f);
    schema_remove_chained_tables(&t.db, t.path, &f);
    test_db_close(&t);
}
