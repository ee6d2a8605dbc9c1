/*
 * test_query_subscripts.c — subscripts on typed collections in queries, as
 * realm-core's query parser takes them (src/realm/parser/query_bison.yy:
 * `path '[' NATURAL0 | FIRST | LAST | '*' | STRING | ARG ']'`, post_op
 * `'[' SIZE ']'`; driver.cpp: PathNode::visit, PropertyNode::visit):
 * `list[0]`, `list[FIRST]`, `list[LAST]`, `list[*]`, `list[SIZE]` on lists
 * and sets of values, `dict['key']`, `dict.key`, `dict[*]` on
 * dictionaries, `dogs[0].name`, `dogs[LAST].age`, `dogMap['a'].name` through
 * collections of links, with ANY/ALL/NONE and arguments (before a
 * dictionary's key too); `.@type` of properties that are not mixed and of
 * collections of any values; `.length` of lists and sets of strings and
 * binaries; and realm-core's messages for what it refuses (an index on
 * links followed by an operator, names after values).
 *
 * Owns: the cases on subscripts of typed collections and @type of typed
 * properties.
 * Never: asks the engine what a predicate should match: every expected
 * result is written out from the objects built here.
 */
#include "test_links_support.h"

/* Dogs, in key order: 0 Rex (5), 1 Fido (2), 2 Ace (9).
 * People, in key order:
 *   0: ints [1, 2, 3], tags {"b", "a"}, scores {"x": 1, "y": 5},
 *      dogs [Rex, Fido], dogSet {Fido, Ace}, dogMap {"a": Rex, "b": null},
 *      owner Ace, n 4, anySet {2, "s"}, anyMap {"k": 1.5},
 *      words ["alpha", "be"], blobs {3 bytes}
 *   1: ints [7], tags {"c"}, scores {"x": 3}, dogs [Ace], dogSet {Rex},
 *      dogMap {"b": Fido}, owner null, n 7, anySet {}, anyMap {"k": "t"},
 *      words ["", null], blobs {}
 *   2: all collections empty, owner Rex, n 0 */
enum { DOGS = 3, PEOPLE = 3 };

typedef struct people {
    test_db t;
    ce_table_key dog, person;
    ce_column_key name, age;
    ce_column_key ints, tags, scores, dogs, dog_set, dog_map, owner, n, any_set, any_map, words, blobs;
    ce_object_key dog_keys[DOGS], keys[PEOPLE];
} people;

static void append(ce_txn *txn, ce_table_key table, ce_object_key key, ce_column_key column, ce_value value)
{
    ce_collection *c;
    size_t size;
    CHECK(ce_collection_open(txn, table, key, column, &c));
    CHECK(ce_collection_size(c, &size) && ce_list_insert(c, size, &value));
    ce_collection_close(c);
}

static void add_to_set(ce_txn *txn, ce_table_key table, ce_object_key key, ce_column_key column, ce_value value)
{
    ce_collection *c;
    CHECK(ce_collection_open(txn, table, key, column, &c));
    CHECK(ce_set_insert(c, &value, NULL));
    ce_collection_close(c);
}

static void put(ce_txn *txn, ce_table_key table, ce_object_key key, ce_column_key column, const char *entry, ce_value value)
{
    ce_collection *c;
    CHECK(ce_collection_open(txn, table, key, column, &c));
    CHECK(ce_dictionary_set(c, entry, strlen(entry), &value));
    ce_collection_close(c);
}

static void build(people *p)
{
    p->t = test_db_open("query_subscripts");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(p->t.db, &txn));
    p->dog = add_table(txn, "Dog", false);
    p->name = add_scalar(txn, p->dog, "name", CE_TYPE_STRING, false);
    p->age = add_scalar(txn, p->dog, "age", CE_TYPE_INT, false);
    p->person = add_table(txn, "Person", false);
    p->ints = add_property(txn, p->person, "ints", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    p->tags = add_property(txn, p->person, "tags", CE_TYPE_STRING, false, CE_COLLECTION_SET, 0);
    p->scores = add_property(txn, p->person, "scores", CE_TYPE_INT, true, CE_COLLECTION_DICTIONARY, 0);
    p->dogs = add_property(txn, p->person, "dogs", CE_TYPE_LINK, false, CE_COLLECTION_LIST, p->dog);
    p->dog_set = add_property(txn, p->person, "dogSet", CE_TYPE_LINK, false, CE_COLLECTION_SET, p->dog);
    p->dog_map = add_property(txn, p->person, "dogMap", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, p->dog);
    p->owner = add_property(txn, p->person, "owner", CE_TYPE_LINK, true, CE_COLLECTION_NONE, p->dog);
    p->n = add_scalar(txn, p->person, "n", CE_TYPE_INT, false);
    p->any_set = add_property(txn, p->person, "anySet", CE_TYPE_MIXED, true, CE_COLLECTION_SET, 0);
    p->any_map = add_property(txn, p->person, "anyMap", CE_TYPE_MIXED, true, CE_COLLECTION_DICTIONARY, 0);
    p->words = add_property(txn, p->person, "words", CE_TYPE_STRING, true, CE_COLLECTION_LIST, 0);
    p->blobs = add_property(txn, p->person, "blobs", CE_TYPE_BINARY, false, CE_COLLECTION_SET, 0);
    static const char *const names[DOGS] = {"Rex", "Fido", "Ace"};
    static const int64_t ages[DOGS] = {5, 2, 9};
    for (int i = 0; i < DOGS; i++) {
        p->dog_keys[i] = create_object(txn, p->dog);
        set_value(txn, p->dog, p->dog_keys[i], p->name, string_value(names[i]));
        set_value(txn, p->dog, p->dog_keys[i], p->age, int_value(ages[i]));
    }
    for (int i = 0; i < PEOPLE; i++) p->keys[i] = create_object(txn, p->person);
    ce_table_key pt = p->person;
    ce_object_key *k = p->keys, *d = p->dog_keys;
    for (int v = 1; v <= 3; v++) append(txn, pt, k[0], p->ints, int_value(v));
    add_to_set(txn, pt, k[0], p->tags, string_value("b"));
    add_to_set(txn, pt, k[0], p->tags, string_value("a"));
    put(txn, pt, k[0], p->scores, "x", int_value(1));
    put(txn, pt, k[0], p->scores, "y", int_value(5));
    append(txn, pt, k[0], p->dogs, link_value(p->dog, d[0]));
    append(txn, pt, k[0], p->dogs, link_value(p->dog, d[1]));
    add_to_set(txn, pt, k[0], p->dog_set, link_value(p->dog, d[2]));
    add_to_set(txn, pt, k[0], p->dog_set, link_value(p->dog, d[1]));
    put(txn, pt, k[0], p->dog_map, "a", link_value(p->dog, d[0]));
    put(txn, pt, k[0], p->dog_map, "b", null_value());
    set_value(txn, pt, k[0], p->owner, link_value(p->dog, d[2]));
    set_value(txn, pt, k[0], p->n, int_value(4));
    add_to_set(txn, pt, k[0], p->any_set, int_value(2));
    add_to_set(txn, pt, k[0], p->any_set, string_value("s"));
    put(txn, pt, k[0], p->any_map, "k", (ce_value){.type = CE_TYPE_DOUBLE, .double_value = 1.5});
    append(txn, pt, k[0], p->words, string_value("alpha"));
    append(txn, pt, k[0], p->words, string_value("be"));
    static const uint8_t bytes[3] = {1, 2, 3};
    add_to_set(txn, pt, k[0], p->blobs, (ce_value){.type = CE_TYPE_BINARY, .binary = {bytes, 3}});

    append(txn, pt, k[1], p->ints, int_value(7));
    add_to_set(txn, pt, k[1], p->tags, string_value("c"));
    put(txn, pt, k[1], p->scores, "x", int_value(3));
    append(txn, pt, k[1], p->dogs, link_value(p->dog, d[2]));
    add_to_set(txn, pt, k[1], p->dog_set, link_value(p->dog, d[0]));
    put(txn, pt, k[1], p->dog_map, "b", link_value(p->dog, d[1]));
    set_value(txn, pt, k[1], p->n, int_value(7));
    put(txn, pt, k[1], p->any_map, "k", string_value("t"));
    append(txn, pt, k[1], p->words, string_value(""));
    append(txn, pt, k[1], p->words, null_value());

    set_value(txn, pt, k[2], p->owner, link_value(p->dog, d[0]));
    CHECK(ce_txn_commit(txn));
}

/* The predicate matches exactly the people whose numbers are listed
 * (ending with -1), in key order. */
static void expect_with(const people *p, ce_txn *txn, const char *predicate, const ce_query_argument *arguments,
                        size_t argument_count, const int *expected)
{
    ce_query *query;
    if (!ce_query_parse(txn, p->person, predicate, arguments, argument_count, &query)) {
        fprintf(stderr, "'%s': %s\n", predicate, ce_last_error_message());
        exit(1);
    }
    ce_results *results;
    CHECK(ce_query_find_all(query, &results));
    size_t count, want = 0;
    while (expected[want] >= 0) want++;
    CHECK(ce_results_count(results, txn, &count));
    if (count != want) {
        fprintf(stderr, "'%s': %zu objects match, expected %zu\n", predicate, count, want);
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        CHECK(ce_results_get(results, txn, i, &key));
        if (key != p->keys[expected[i]]) {
            fprintf(stderr, "'%s': match %zu is person %lld, expected person %d\n", predicate, i, (long long)key,
                    expected[i]);
            exit(1);
        }
    }
    ce_results_free(results);
    ce_query_free(query);
}

#define EXPECT_MATCHES(p, txn, predicate, ...) \
    expect_with((p), (txn), (predicate), NULL, 0, (const int[]){__VA_ARGS__, -1})
#define EXPECT_NONE(p, txn, predicate) expect_with((p), (txn), (predicate), NULL, 0, (const int[]){-1})

static void expect_refused(const people *p, ce_txn *txn, const char *predicate, const ce_query_argument *arguments,
                           size_t argument_count, const char *fragment)
{
    test_expect_query_refused(txn, p->person, predicate, arguments, argument_count, fragment);
}
#define EXPECT_REFUSED(p, txn, predicate, fragment) expect_refused((p), (txn), (predicate), NULL, 0, (fragment))

static ce_txn *read_txn(const people *p)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(p->t.db, &txn));
    return txn;
}

static void finish(people *p, ce_txn *txn)
{
    ce_txn_end(txn);
    test_verify(p->t.db);
    test_db_close(&p->t);
}

TEST(subscripts_of_lists_and_sets)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    EXPECT_MATCHES(&p, txn, "ints[0] == 1", 0);
    EXPECT_MATCHES(&p, txn, "ints[FIRST] == 7", 1);
    EXPECT_MATCHES(&p, txn, "ints[LAST] == 3", 0);
    EXPECT_MATCHES(&p, txn, "ints[LAST] == 7", 1);
    EXPECT_MATCHES(&p, txn, "ints[1] == 2", 0);
    EXPECT_MATCHES(&p, txn, "ints[2] > 2", 0);
    EXPECT_MATCHES(&p, txn, "ints[first] >= 1", 0, 1);
    /* Out of range, or a list that is empty: no element, nothing matches
     * (ANY of none), though ALL and NONE of none hold. */
    EXPECT_NONE(&p, txn, "ints[3] == 3");
    EXPECT_NONE(&p, txn, "ints[1] == 7");
    EXPECT_NONE(&p, txn, "ints[5] != 0");
    EXPECT_MATCHES(&p, txn, "ALL ints[1] == 2", 0, 1, 2);
    EXPECT_MATCHES(&p, txn, "NONE ints[0] == 1", 1, 2);
    EXPECT_MATCHES(&p, txn, "ANY ints[LAST] == 3", 0);
    /* [*] is every element, as without a subscript. */
    EXPECT_MATCHES(&p, txn, "ints[*] == 2", 0);
    EXPECT_MATCHES(&p, txn, "ALL ints[*] > 0", 0, 1, 2);
    EXPECT_MATCHES(&p, txn, "ALL ints[*] > 1", 1, 2);
    EXPECT_MATCHES(&p, txn, "ints[*].@count == 3", 0);
    EXPECT_MATCHES(&p, txn, "ints[*].@max == 7", 1);
    /* [SIZE] is @size. */
    EXPECT_MATCHES(&p, txn, "ints[SIZE] == 3", 0);
    EXPECT_MATCHES(&p, txn, "ints[SIZE] == 0", 2);
    EXPECT_MATCHES(&p, txn, "tags[SIZE] == 1", 1);
    /* A set's elements in its order (values sorted, as Realm keeps them). */
    EXPECT_MATCHES(&p, txn, "tags[0] == 'a'", 0);
    EXPECT_MATCHES(&p, txn, "tags[LAST] == 'b'", 0);
    EXPECT_MATCHES(&p, txn, "tags[FIRST] BEGINSWITH 'c'", 1);
    EXPECT_MATCHES(&p, txn, "tags[*] == 'c'", 1);
    /* Compared with another property. */
    EXPECT_MATCHES(&p, txn, "ints[LAST] == n", 1);
    EXPECT_MATCHES(&p, txn, "ints[0] < n", 0);
    finish(&p, txn);
}

TEST(subscripts_of_dictionaries)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    EXPECT_MATCHES(&p, txn, "scores['x'] == 1", 0);
    EXPECT_MATCHES(&p, txn, "scores['x'] > 1", 1);
    EXPECT_MATCHES(&p, txn, "scores.y == 5", 0);
    EXPECT_MATCHES(&p, txn, "scores[\"y\"] == nil", 1, 2);
    EXPECT_MATCHES(&p, txn, "scores[*] == 5", 0);
    EXPECT_MATCHES(&p, txn, "ANY scores[*] == 3", 1);
    EXPECT_MATCHES(&p, txn, "ALL scores[*] < 4", 1, 2);
    EXPECT_MATCHES(&p, txn, "NONE scores[*] == 1", 1, 2);
    EXPECT_MATCHES(&p, txn, "scores[SIZE] == 2", 0);
    EXPECT_MATCHES(&p, txn, "scores[*].@sum == 6", 0);
    finish(&p, txn);
}

TEST(subscripts_through_links)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    EXPECT_MATCHES(&p, txn, "dogs[0].name == 'Rex'", 0);
    EXPECT_MATCHES(&p, txn, "dogs[FIRST].age > 3", 0, 1);
    EXPECT_MATCHES(&p, txn, "dogs[LAST].age < 3", 0);
    EXPECT_MATCHES(&p, txn, "dogs[1].name == 'Fido'", 0);
    EXPECT_NONE(&p, txn, "dogs[2].name == 'Fido'");
    EXPECT_MATCHES(&p, txn, "dogs[*].age == 9", 1);
    EXPECT_MATCHES(&p, txn, "ALL dogs[*].age > 1", 0, 1, 2);
    EXPECT_MATCHES(&p, txn, "ALL dogs[LAST].age > 5", 1, 2);
    EXPECT_MATCHES(&p, txn, "dogSet[LAST].name == owner.name", 0);
    EXPECT_NONE(&p, txn, "dogs[0].name == owner.name");
    EXPECT_MATCHES(&p, txn, "dogSet[0].name == 'Fido'", 0);
    EXPECT_MATCHES(&p, txn, "dogSet[LAST].age == 9", 0);
    EXPECT_MATCHES(&p, txn, "dogSet[FIRST].name == 'Rex'", 1);
    /* A dictionary of links: the object under a key (null when the key is
     * absent or its link null), every value's ([*]). */
    EXPECT_MATCHES(&p, txn, "dogMap['a'].name == 'Rex'", 0);
    EXPECT_MATCHES(&p, txn, "dogMap['b'].age == 2", 1);
    EXPECT_MATCHES(&p, txn, "dogMap['b'].name == nil", 0, 2);
    EXPECT_MATCHES(&p, txn, "dogMap[*].age < 3", 1);
    ce_query_argument rex = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = link_value(p.dog, p.dog_keys[0])};
    expect_with(&p, txn, "dogMap['a'] == %@", &rex, 1, (const int[]){0, -1});
    expect_with(&p, txn, "dogMap['b'] == nil", NULL, 0, (const int[]){0, 2, -1});
    /* Indexes and keys from arguments, and a key path from %K. */
    ce_query_argument arguments[2] = {{.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(1)},
                                      {.kind = CE_QUERY_ARGUMENT_VALUE, .value = string_value("Fido")}};
    expect_with(&p, txn, "dogs[%@].name == %@", arguments, 2, (const int[]){0, -1});
    arguments[0].value = int_value(-1); /* realm-core casts it to size_t: LAST */
    expect_with(&p, txn, "dogs[$0].name == $1", arguments, 2, (const int[]){0, -1});
    arguments[0].value = int_value(-2); /* no element */
    expect_with(&p, txn, "ints[$0] > 0", arguments, 1, (const int[]){-1});
    arguments[0].value = string_value("b");
    expect_with(&p, txn, "dogMap[%@].name == %@", arguments, 2, (const int[]){1, -1});
    arguments[0].value = string_value("dogs[LAST].age");
    arguments[1].value = int_value(9);
    expect_with(&p, txn, "%K == %@", arguments, 2, (const int[]){1, -1});
    arguments[0].value = string_value("ints[SIZE]");
    arguments[1].value = int_value(1);
    expect_with(&p, txn, "%K == %@", arguments, 2, (const int[]){1, -1});
    /* A key path argument followed by more of the path (query_bison.yy:
     * path: "keypath" | path '[' ... ']' | path '.' id). */
    arguments[0].value = string_value("ints");
    arguments[1].value = int_value(7);
    expect_with(&p, txn, "%K[0] == %@", arguments, 2, (const int[]){1, -1});
    expect_with(&p, txn, "%K[SIZE] == 3", arguments, 1, (const int[]){0, -1});
    arguments[0].value = string_value("dogs");
    arguments[1].value = string_value("Ace");
    expect_with(&p, txn, "%K[LAST].name == %@", arguments, 2, (const int[]){1, -1});
    arguments[0].value = string_value("owner");
    expect_with(&p, txn, "%K.name == %@", arguments, 2, (const int[]){0, -1});
    /* Descending, objects without the link first (test_query_rules). */
    expect_with(&p, txn, "TRUEPREDICATE SORT(%K.age DESC)", arguments, 1, (const int[]){1, 0, 2, -1});
    finish(&p, txn);
}

TEST(type_of_typed_properties)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    /* A collection of any values: each value's type (realm-core's
     * ColumnsCollection<Mixed>::type_of_value; a dictionary's values are
     * of that kind whatever their type). */
    EXPECT_MATCHES(&p, txn, "anySet.@type == 'string'", 0);
    EXPECT_MATCHES(&p, txn, "ANY anySet.@type == 'numeric'", 0);
    EXPECT_MATCHES(&p, txn, "ALL anySet.@type == 'int'", 1, 2);
    EXPECT_MATCHES(&p, txn, "anyMap.@type == 'double'", 0);
    EXPECT_MATCHES(&p, txn, "anyMap['k'].@type == 'string'", 1);
    EXPECT_MATCHES(&p, txn, "scores.@type == 'int'", 0, 1);
    EXPECT_MATCHES(&p, txn, "scores['y'].@type == 'null'", 1, 2);
    EXPECT_MATCHES(&p, txn, "scores[*].@type IN {'null', 'int'}", 0, 1);
    /* A property that is not mixed: a constant of its type, comparable
     * with a mixed value's type (anyMap['k'] holds a double in person 0,
     * a string in person 1). */
    EXPECT_NONE(&p, txn, "anyMap['k'].@type == n.@type");
    EXPECT_MATCHES(&p, txn, "n.@type != anyMap['k'].@type", 0, 1); /* person 2's map is empty */
    EXPECT_MATCHES(&p, txn, "anyMap.@type == dogs[0].name.@type", 1);
    finish(&p, txn);
}

/* ANY, ALL and NONE before a key path whose link chain passes a
 * collection, though a subscript picks one element of it: realm-core
 * checks only that the chain holds a list, set, dictionary or backlinks
 * ("The keypath following 'ANY' must contain a list", LinkChain::column,
 * src/realm/parser/driver.cpp), and a dictionary's entry is never checked
 * (Columns<Dictionary>). A link column that is a collection is never
 * unary in realm-core's LinkMap (LinkMap::set_base_table,
 * query_expression.cpp), so a key with no object under it reaches none:
 * ALL and NONE of nothing hold. */
TEST(quantifiers_before_subscripts)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    EXPECT_MATCHES(&p, txn, "ANY dogMap['a'].age == 5", 0);
    EXPECT_MATCHES(&p, txn, "SOME dogMap['a'].name == 'Rex'", 0);
    EXPECT_MATCHES(&p, txn, "ALL dogMap['a'].age == 5", 0, 1, 2);
    EXPECT_MATCHES(&p, txn, "NONE dogMap['a'].age == 5", 1, 2);
    EXPECT_MATCHES(&p, txn, "ALL dogMap['b'].name == nil", 0, 2); /* person 0's 'b' holds a null link */
    EXPECT_MATCHES(&p, txn, "NONE dogMap['b'].name == nil", 0, 1, 2);
    EXPECT_MATCHES(&p, txn, "ANY dogMap['b'].age < dogs[0].age", 1);
    ce_query_argument key = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = string_value("b")};
    expect_with(&p, txn, "ANY dogMap[%@].age == 2", &key, 1, (const int[]){1, -1});
    expect_with(&p, txn, "ALL dogMap[$0].age == 2", &key, 1, (const int[]){0, 1, 2, -1});
    /* A dictionary of values: its entry, null when the key is absent. */
    EXPECT_MATCHES(&p, txn, "ANY scores['x'] == 1", 0);
    EXPECT_MATCHES(&p, txn, "ALL scores['y'] == nil", 1, 2);
    EXPECT_MATCHES(&p, txn, "NONE scores['y'] == 5", 1, 2);
    EXPECT_MATCHES(&p, txn, "ANY scores.x > 2", 1);
    /* A to-one link holds no list: refused as before. */
    EXPECT_REFUSED(&p, txn, "ANY owner.age == 5", "is not a link/collection (ANY needs one)");
    EXPECT_REFUSED(&p, txn, "ALL n == 5", "is not a link/collection (ALL needs one)");
    finish(&p, txn);
}

/* An index on a list or set of links followed by @count, @size, @type
 * or an aggregate: realm-core makes the collection's column and then
 * finds the index on it, which it refuses before the operator applies
 * (ParserDriver::column, PropertyNode::visit, LinkAggrNode::visit,
 * src/realm/parser/driver.cpp); [*] is all of them and stays. */
TEST(index_of_links_before_operator)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    EXPECT_REFUSED(&p, txn, "dogs[0].@count == 1", "Property 'Person.dogs' does not support index 'FIRST'");
    EXPECT_REFUSED(&p, txn, "dogs[LAST].@size == 1", "Property 'Person.dogs' does not support index 'LAST'");
    EXPECT_REFUSED(&p, txn, "dogs[1].@type == 'object'", "Property 'Person.dogs' does not support index '1'");
    EXPECT_REFUSED(&p, txn, "dogs[0].@max.age == 5", "Property 'Person.dogs' does not support index 'FIRST'");
    EXPECT_REFUSED(&p, txn, "dogSet[FIRST].@size == 1", "Property 'Person.dogSet' does not support index 'FIRST'");
    EXPECT_MATCHES(&p, txn, "dogs[*].@count == 2", 0);
    EXPECT_MATCHES(&p, txn, "dogs[*].@max.age == 9", 1);
    finish(&p, txn);
}

/* `length` after a list or set of strings, binaries or mixed values: each
 * element's length (realm-core: is_length_suffix and
 * ColumnListBase::get_element_length in PropertyNode::visit,
 * src/realm/parser/driver.cpp; the name in any case), compared as any
 * collection's values. */
TEST(length_of_collection_elements)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    EXPECT_MATCHES(&p, txn, "words.length == 5", 0);
    EXPECT_MATCHES(&p, txn, "words.length == 0", 1);
    EXPECT_MATCHES(&p, txn, "words.LENGTH < 3", 0, 1);
    EXPECT_MATCHES(&p, txn, "ALL words.length > 1", 0, 2);
    EXPECT_MATCHES(&p, txn, "NONE words.Length == 2", 1, 2);
    /* A null string's length is 0 (realm-core's ColumnListElementLength;
     * test/test_parser.cpp, Parser_list_of_primitive_strings: "strings.length
     * == 0" matches {""} and {null}). */
    EXPECT_MATCHES(&p, txn, "ALL words.length == 0", 1, 2);
    EXPECT_NONE(&p, txn, "words.length == nil");
    /* A set of mixed values: its strings' lengths; its int 2 has none
     * (Parser_list_of_primitive_mixed: "values.length == 3" counts the
     * strings). */
    EXPECT_MATCHES(&p, txn, "anySet.length == 1", 0);
    EXPECT_NONE(&p, txn, "anySet.length == 2");
    EXPECT_MATCHES(&p, txn, "ANY words.length IN {5, 9}", 0);
    EXPECT_MATCHES(&p, txn, "words.length BETWEEN {2, 3}", 0);
    /* BETWEEN is >= and <= each over the values (BetweenNode::visit):
     * "be" (2) is at most 3 and "alpha" (5) at least 3. */
    EXPECT_MATCHES(&p, txn, "words.length BETWEEN {3, 3}", 0);
    EXPECT_MATCHES(&p, txn, "words.length < n", 0, 1);
    EXPECT_MATCHES(&p, txn, "blobs.length == 3", 0);
    EXPECT_MATCHES(&p, txn, "tags.length == 1", 0, 1);
    ce_query_argument five = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(5)};
    expect_with(&p, txn, "words.length >= $0", &five, 1, (const int[]){0, -1});
    /* realm-core's words for what it refuses: `length` of other types,
     * of a value (a key it does not find), followed by an operator (a
     * post-op makes it a key) or by an aggregate (AggrNode::aggregate). */
    EXPECT_REFUSED(&p, txn, "ints.length == 1", "Property 'Person.ints' has no property 'length'");
    EXPECT_REFUSED(&p, txn, "words.size == 1", "Property 'Person.words' has no property 'size'");
    EXPECT_REFUSED(&p, txn, "words.length.@size == 1", "Property 'Person.words' has no property 'length'");
    EXPECT_REFUSED(&p, txn, "words.length.@max == 1", "Cannot use aggregate '.@max' for this type of property");
    EXPECT_REFUSED(&p, txn, "owner.name.length == 3", "Property 'Dog.name' has no property 'length'");
    EXPECT_REFUSED(&p, txn, "dogs.name.length == 3", "Property 'Dog.name' has no property 'length'");
    finish(&p, txn);
}

TEST(subscript_errors)
{
    people p;
    build(&p);
    ce_txn *txn = read_txn(&p);
    /* realm-core's words (PropertyNode::visit, driver.cpp; indexes print
     * as PathElement's <<: FIRST for 0, LAST, '*'). */
    EXPECT_REFUSED(&p, txn, "ints[0][0] == 1", "Only Property of type 'any' can have nested collections");
    EXPECT_REFUSED(&p, txn, "ints['a'] == 1", "Property 'Person.ints' has no property 'a'");
    EXPECT_REFUSED(&p, txn, "scores[0] == 1", "Property 'Person.scores' does not support index 'FIRST'");
    EXPECT_REFUSED(&p, txn, "scores[3] == 1", "Property 'Person.scores' does not support index '3'");
    EXPECT_REFUSED(&p, txn, "scores['a']['b'] == 1", "Only Property of type 'any' can have nested collections");
    EXPECT_REFUSED(&p, txn, "n[LAST] == 1", "Property 'Person.n' does not support index 'LAST'");
    EXPECT_REFUSED(&p, txn, "dogs[0] == nil", "Property 'Person.dogs' does not support index 'FIRST'");
    EXPECT_REFUSED(&p, txn, "dogs['a'].age == 1", "Property 'Person.dogs' has no property 'a'");
    EXPECT_REFUSED(&p, txn, "dogMap[1].age == 1", "Property 'Person.dogMap' does not support index '1'");
    EXPECT_REFUSED(&p, txn, "owner[0].age == 1", "[FIRST] not expected");
    EXPECT_REFUSED(&p, txn, "ints[0].@count == 1", "'@count' must follow the key path of a collection");
    /* @type of a property that is not mixed is a constant
     * (TypeOfValue(ColKey), query_value.cpp), and realm-core compares no
     * two constants (verify_conditions, driver.cpp), printing each as a
     * TypeOfValue prints (serializer.cpp: quoted). */
    EXPECT_REFUSED(&p, txn, "n.@type == 'int'", "Comparison between two constants is not supported ('\"int\"' and '\"int\"')");
    EXPECT_REFUSED(&p, txn, "'integer' == n.@type", "Comparison between two constants is not supported ('\"int\"' and '\"int\"')");
    EXPECT_REFUSED(&p, txn, "n.@type IN {'string', 'numeric'}",
                   "Comparison between two constants is not supported ('\"int\"' and '{\"string\", \"numeric\"}')");
    EXPECT_REFUSED(&p, txn, "owner.@type == 'object'",
                   "Comparison between two constants is not supported ('\"object\"' and '\"object\"')");
    EXPECT_REFUSED(&p, txn, "n.@type == dogs[0].age.@type",
                   "Comparison between two constants is not supported ('\"int\"' and '\"int\"')");
    EXPECT_REFUSED(&p, txn, "n.@type == 'word'", "Unable to parse the type attribute string 'word'");
    EXPECT_REFUSED(&p, txn, "ints.@type == 'int'", "Operation '@type' is not supported on property of type 'int'");
    EXPECT_REFUSED(&p, txn, "tags.@type == 'string'", "Operation '@type' is not supported on property of type 'string'");
    EXPECT_REFUSED(&p, txn, "n.@type > anySet.@type",
                   "Unsupported operator > in query. Only equal (==) and not equal (!=) are supported for this type.");
    /* Arguments as indexes (ParserDriver::get_arg_for_index). */
    ce_query_argument argument = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = null_value()};
    expect_refused(&p, txn, "ints[%@] == 1", &argument, 1, "Invalid index parameter");
    argument.value = (ce_value){.type = CE_TYPE_BOOL, .boolean = true};
    expect_refused(&p, txn, "ints[%@] == 1", &argument, 1, "Invalid index type");
    argument.value = string_value("k");
    expect_refused(&p, txn, "ints[%@] == 1", &argument, 1, "Property 'Person.ints' has no property 'k'");
    finish(&p, txn);
}
