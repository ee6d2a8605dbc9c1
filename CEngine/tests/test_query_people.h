/*
 * test_query_people.h — the data of the query programs on links and
 * collections: vets, dogs with a vet, people with a best dog, lists and
 * sets of dogs, lists of scores, sets of tags, dictionaries of ratings and
 * of dogs, and a mixed value; built at random, with a model of the same
 * data in plain C arrays.
 *
 * Owns: that data, its model and the fixture that builds both
 * (link_data_open).
 * Never: asks the engine what the data holds.
 */
#ifndef CE_TEST_QUERY_PEOPLE_H
#define CE_TEST_QUERY_PEOPLE_H

#include "test_query_support.h"

/* ------------------------------------------------------------------------ */
/* People, their dogs and the dogs' vets                                     */
/* ------------------------------------------------------------------------ */

enum { VETS = 6, DOGS = 70, PEOPLE = 300, MAX_ITEMS = 6 };

typedef struct vet_model {
    ce_object_key key;
    char name[8];
    double fee;
} vet_model;

typedef struct dog_model {
    ce_object_key key;
    char name[8];
    int64_t age;
    int vet; /* -1: none */
} dog_model;

typedef struct person_model {
    ce_object_key key;
    char name[8];
    bool has_age;
    int64_t age;
    int best;                      /* -1: none */
    int dogs[MAX_ITEMS], dog_count; /* a list: repeats allowed */
    int pets[MAX_ITEMS], pet_count; /* a set: distinct */
    bool score_null[MAX_ITEMS];
    int64_t scores[MAX_ITEMS];
    int score_count;
    const char *tags[MAX_ITEMS];
    int tag_count;
    const char *rating_keys[MAX_ITEMS]; /* distinct, sorted */
    bool rating_null[MAX_ITEMS];
    double ratings[MAX_ITEMS];
    int rating_count;
    const char *friend_keys[MAX_ITEMS];
    int friends[MAX_ITEMS]; /* -1: null */
    int friend_count;
    ce_value extra; /* mixed */
} person_model;

static vet_model vets[VETS];
static dog_model dogs[DOGS];
static person_model people[PEOPLE];
static ce_table_key vet_table, dog_table, person_table;

static inline ce_value link_to(ce_table_key table, ce_object_key key) { return (ce_value){.type = CE_TYPE_LINK, .link = {table, key}}; }

static inline void build_link_data(ce_db *db)
{
    ce_txn *txn;
    ce_column_key c;
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Vet", &vet_table) && ce_table_add(txn, "Dog", &dog_table) && ce_table_add(txn, "Person", &person_table));
    const ce_property_info vet_properties[] = {{.name = "name", .type = CE_TYPE_STRING}, {.name = "fee", .type = CE_TYPE_DOUBLE}};
    const ce_property_info dog_properties[] = {{.name = "name", .type = CE_TYPE_STRING},
                                               {.name = "age", .type = CE_TYPE_INT},
                                               {.name = "vet", .type = CE_TYPE_LINK, .nullable = true, .link_target = vet_table}};
    const ce_property_info person_properties[] = {
        {.name = "name", .type = CE_TYPE_STRING},
        {.name = "age", .type = CE_TYPE_INT, .nullable = true},
        {.name = "best", .type = CE_TYPE_LINK, .nullable = true, .link_target = dog_table},
        {.name = "dogs", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = dog_table},
        {.name = "pets", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_SET, .link_target = dog_table},
        {.name = "scores", .type = CE_TYPE_INT, .nullable = true, .collection = CE_COLLECTION_LIST},
        {.name = "tags", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_SET},
        {.name = "ratings", .type = CE_TYPE_DOUBLE, .nullable = true, .collection = CE_COLLECTION_DICTIONARY},
        {.name = "friends", .type = CE_TYPE_LINK, .nullable = true, .collection = CE_COLLECTION_DICTIONARY, .link_target = dog_table},
        {.name = "extra", .type = CE_TYPE_MIXED, .nullable = true}};
    for (size_t i = 0; i < COUNT_OF(vet_properties); i++) CHECK(ce_property_add(txn, vet_table, &vet_properties[i], &c));
    for (size_t i = 0; i < COUNT_OF(dog_properties); i++) CHECK(ce_property_add(txn, dog_table, &dog_properties[i], &c));
    for (size_t i = 0; i < COUNT_OF(person_properties); i++)
        CHECK(ce_property_add(txn, person_table, &person_properties[i], &c) && c == (ce_column_key)i);
    for (int v = 0; v < VETS; v++) {
        snprintf(vets[v].name, sizeof vets[v].name, "V%d", v);
        vets[v].fee = 20.0 * v + 5;
        ce_value values[2] = {{.type = CE_TYPE_STRING, .string = {vets[v].name, strlen(vets[v].name)}},
                              {.type = CE_TYPE_DOUBLE, .double_value = vets[v].fee}};
        CHECK(ce_object_create_with_values(txn, vet_table, values, 2, &vets[v].key));
    }
    static const char *const dog_names[] = {"Rex", "Fido", "Ada", "Bolt", "Zoë", "max"};
    for (int d = 0; d < DOGS; d++) {
        snprintf(dogs[d].name, sizeof dogs[d].name, "%s%d", dog_names[d % 6], d / 6);
        dogs[d].age = (int64_t)pick(10);
        dogs[d].vet = pick(4) ? (int)pick(VETS) : -1;
        ce_value values[3] = {{.type = CE_TYPE_STRING, .string = {dogs[d].name, strlen(dogs[d].name)}},
                              {.type = CE_TYPE_INT, .integer = dogs[d].age},
                              dogs[d].vet < 0 ? (ce_value){.type = CE_TYPE_NULL} : link_to(vet_table, vets[dogs[d].vet].key)};
        size_t column_count;
        CHECK(ce_property_count(txn, dog_table, &column_count));
        ce_value all[8] = {{.type = CE_TYPE_NULL}};
        for (size_t k = 0; k < 3; k++) all[k] = values[k];
        CHECK(ce_object_create_with_values(txn, dog_table, all, column_count, &dogs[d].key));
    }
    static const char *const tag_pool[] = {"red", "Red", "blue", "green", "rosé"};
    static const char *const key_pool[] = {"a", "b", "c", "d"};
    for (int p = 0; p < PEOPLE; p++) {
        person_model *m = &people[p];
        snprintf(m->name, sizeof m->name, "P%d", p);
        m->has_age = pick(6) != 0;
        m->age = (int64_t)pick(60);
        ce_object_key key;
        size_t column_count;
        CHECK(ce_property_count(txn, person_table, &column_count));
        ce_value values[16];
        for (size_t k = 0; k < column_count; k++) values[k] = (ce_value){.type = CE_TYPE_NULL};
        values[0] = (ce_value){.type = CE_TYPE_STRING, .string = {m->name, strlen(m->name)}};
        if (m->has_age) values[1] = (ce_value){.type = CE_TYPE_INT, .integer = m->age};
        CHECK(ce_object_create(txn, person_table, NULL, &key));
        m->key = key;
        CHECK(ce_object_set(txn, person_table, key, 0, &values[0]) && ce_object_set(txn, person_table, key, 1, &values[1]));
        m->best = pick(5) ? (int)pick(DOGS) : -1;
        ce_value best = m->best < 0 ? (ce_value){.type = CE_TYPE_NULL} : link_to(dog_table, dogs[m->best].key);
        CHECK(ce_object_set(txn, person_table, key, 2, &best));
        ce_collection *collection;
        CHECK(ce_collection_open(txn, person_table, key, 3, &collection));
        m->dog_count = (int)pick(MAX_ITEMS + 1);
        for (int i = 0; i < m->dog_count; i++) {
            m->dogs[i] = (int)pick(DOGS / 2); /* repeats happen */
            ce_value link = link_to(dog_table, dogs[m->dogs[i]].key);
            CHECK(ce_list_insert(collection, (size_t)i, &link));
        }
        ce_collection_close(collection);
        CHECK(ce_collection_open(txn, person_table, key, 4, &collection));
        m->pet_count = 0;
        for (int i = 0, n = (int)pick(MAX_ITEMS + 1); i < n; i++) {
            int dog = (int)pick(DOGS);
            bool changed;
            ce_value link = link_to(dog_table, dogs[dog].key);
            CHECK(ce_set_insert(collection, &link, &changed));
            if (changed) m->pets[m->pet_count++] = dog;
        }
        ce_collection_close(collection);
        CHECK(ce_collection_open(txn, person_table, key, 5, &collection));
        m->score_count = (int)pick(MAX_ITEMS + 1);
        for (int i = 0; i < m->score_count; i++) {
            m->score_null[i] = pick(6) == 0;
            m->scores[i] = (int64_t)pick(8);
            ce_value score = m->score_null[i] ? (ce_value){.type = CE_TYPE_NULL} : (ce_value){.type = CE_TYPE_INT, .integer = m->scores[i]};
            CHECK(ce_list_insert(collection, (size_t)i, &score));
        }
        ce_collection_close(collection);
        CHECK(ce_collection_open(txn, person_table, key, 6, &collection));
        m->tag_count = 0;
        for (int i = 0, n = (int)pick(4); i < n; i++) {
            const char *tag = tag_pool[pick(COUNT_OF(tag_pool))];
            bool changed;
            ce_value value = {.type = CE_TYPE_STRING, .string = {tag, strlen(tag)}};
            CHECK(ce_set_insert(collection, &value, &changed));
            if (changed) m->tags[m->tag_count++] = tag;
        }
        ce_collection_close(collection);
        CHECK(ce_collection_open(txn, person_table, key, 7, &collection));
        m->rating_count = 0;
        for (int k = 0; k < 4; k++) {
            if (pick(2)) continue;
            int i = m->rating_count++;
            m->rating_keys[i] = key_pool[k];
            m->rating_null[i] = pick(5) == 0;
            m->ratings[i] = (double)pick(10) / 2.0;
            ce_value value = m->rating_null[i] ? (ce_value){.type = CE_TYPE_NULL} : (ce_value){.type = CE_TYPE_DOUBLE, .double_value = m->ratings[i]};
            CHECK(ce_dictionary_set(collection, key_pool[k], 1, &value));
        }
        ce_collection_close(collection);
        CHECK(ce_collection_open(txn, person_table, key, 8, &collection));
        m->friend_count = 0;
        for (int k = 0; k < 4; k++) {
            if (pick(2)) continue;
            int i = m->friend_count++;
            m->friend_keys[i] = key_pool[k];
            m->friends[i] = pick(5) ? (int)pick(DOGS) : -1;
            ce_value value = m->friends[i] < 0 ? (ce_value){.type = CE_TYPE_NULL} : link_to(dog_table, dogs[m->friends[i]].key);
            CHECK(ce_dictionary_set(collection, key_pool[k], 1, &value));
        }
        ce_collection_close(collection);
        switch (pick(6)) {
        case 0: m->extra = (ce_value){.type = CE_TYPE_NULL}; break;
        case 1: m->extra = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)pick(6)}; break;
        case 2: m->extra = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = (double)pick(12) / 2}; break;
        case 3: m->extra = (ce_value){.type = CE_TYPE_STRING, .string = {"five", 4}}; break;
        case 4: m->extra = (ce_value){.type = CE_TYPE_BOOL, .boolean = pick(2)}; break;
        default: m->extra = link_to(dog_table, dogs[pick(DOGS)].key); break;
        }
        CHECK(ce_object_set(txn, person_table, key, 9, &m->extra));
    }
    CHECK(ce_txn_commit(txn));
    test_verify(db);
}

/* A new database holding the link data (the random numbers restarted:
 * every case sees the same data). */
static inline test_db link_data_open(void)
{
    random_restart();
    test_db t = test_db_open("query-links");
    build_link_data(t.db);
    return t;
}

/* The model's view of a person, for a predicate chosen by number. */
static inline bool dog_matches(int d, int which)
{
    switch (which) {
    case 0: return dogs[d].age > 5;
    case 1: return dogs[d].vet >= 0 && vets[dogs[d].vet].fee < 50;
    default: return dogs[d].name[0] == 'R' || dogs[d].name[0] == 'r';
    }
}

static inline bool any_dog(const person_model *m, int which)
{
    for (int i = 0; i < m->dog_count; i++)
        if (dog_matches(m->dogs[i], which)) return true;
    return false;
}

static inline bool all_dogs(const person_model *m, int which)
{
    for (int i = 0; i < m->dog_count; i++)
        if (!dog_matches(m->dogs[i], which)) return false;
    return true;
}

static inline int scores_sum(const person_model *m, int *out_counted)
{
    int sum = 0, counted = 0;
    for (int i = 0; i < m->score_count; i++)
        if (!m->score_null[i]) sum += (int)m->scores[i], counted++;
    *out_counted = counted;
    return sum;
}

#endif
