/*
 * test_query_mixed.c — queries into the lists and dictionaries a mixed
 * property holds, as Realm Query Language has them: `v[0]`, `v['key']`,
 * `v[FIRST]`, `v[LAST]`, `v[*]` with ANY/ALL, nested steps (`v[2]['k']`,
 * `v[*][*]`), `v.@type` and `v.@size`/`@count`, subscripts from
 * arguments and through %K; the parse and bind errors of these paths.
 *
 * Owns: the cases on key paths into mixed values.
 * Never: asks the engine what a predicate should match: every expected
 * result is written out from the objects built here.
 */
#include "test_links_support.h"

/* The objects, in creation (key) order:
 *   0: [5, "a", {"k": "x", "n": 3}, [1, 2]]
 *   1: {"key": "x", "n": 5, "sub": [7, 8]}
 *   2: 5
 *   3: null
 *   4: []
 *   5: {}
 *   6: [3, 5]
 *   7: "abc"
 *   8: {"key": "y", "inner": {"k": "x"}}
 */
enum { OBJECTS = 9 };

typedef struct mixed_data {
    test_db t;
    ce_table_key table;
    ce_column_key v, anys, any_map;
    ce_object_key keys[OBJECTS];
} mixed_data;

static ce_collection *nested(ce_collection *parent, ce_value at)
{
    ce_collection *c;
    CHECK(ce_collection_open_nested(parent, &at, &c));
    return c;
}

static void set_key(ce_collection *dictionary, const char *key, ce_value value)
{
    CHECK(ce_dictionary_set(dictionary, key, strlen(key), &value));
}

static void append(ce_collection *list, ce_value value)
{
    size_t size;
    CHECK(ce_collection_size(list, &size) && ce_list_insert(list, size, &value));
}

static void build(mixed_data *d)
{
    d->t = test_db_open("query_mixed");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(d->t.db, &txn));
    d->table = add_table(txn, "Holder", false);
    d->v = add_scalar(txn, d->table, "v", CE_TYPE_MIXED, true);
    d->anys = add_property(txn, d->table, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    d->any_map = add_property(txn, d->table, "anyMap", CE_TYPE_MIXED, true, CE_COLLECTION_DICTIONARY, 0);
    /* Typed collections, for the errors of index subscripts on them. */
    add_property(txn, d->table, "ints", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    add_property(txn, d->table, "map", CE_TYPE_INT, false, CE_COLLECTION_DICTIONARY, 0);
    add_scalar(txn, d->table, "n", CE_TYPE_INT, false);
    for (int i = 0; i < OBJECTS; i++) d->keys[i] = create_object(txn, d->table);
    ce_collection *top, *inner;

    set_value(txn, d->table, d->keys[0], d->v, nested_value(CE_TYPE_LIST));
    CHECK(ce_collection_open_mixed(txn, d->table, d->keys[0], d->v, &top));
    append(top, int_value(5));
    append(top, string_value("a"));
    append(top, nested_value(CE_TYPE_DICTIONARY));
    append(top, nested_value(CE_TYPE_LIST));
    inner = nested(top, int_value(2));
    set_key(inner, "k", string_value("x"));
    set_key(inner, "n", int_value(3));
    ce_collection_close(inner);
    inner = nested(top, int_value(3));
    append(inner, int_value(1));
    append(inner, int_value(2));
    ce_collection_close(inner);
    ce_collection_close(top);

    set_value(txn, d->table, d->keys[1], d->v, nested_value(CE_TYPE_DICTIONARY));
    CHECK(ce_collection_open_mixed(txn, d->table, d->keys[1], d->v, &top));
    set_key(top, "key", string_value("x"));
    set_key(top, "n", int_value(5));
    set_key(top, "sub", nested_value(CE_TYPE_LIST));
    inner = nested(top, string_value("sub"));
    append(inner, int_value(7));
    append(inner, int_value(8));
    ce_collection_close(inner);
    ce_collection_close(top);

    set_value(txn, d->table, d->keys[2], d->v, int_value(5));
    set_value(txn, d->table, d->keys[4], d->v, nested_value(CE_TYPE_LIST));
    set_value(txn, d->table, d->keys[5], d->v, nested_value(CE_TYPE_DICTIONARY));

    set_value(txn, d->table, d->keys[6], d->v, nested_value(CE_TYPE_LIST));
    CHECK(ce_collection_open_mixed(txn, d->table, d->keys[6], d->v, &top));
    append(top, int_value(3));
    append(top, int_value(5));
    ce_collection_close(top);

    set_value(txn, d->table, d->keys[7], d->v, string_value("abc"));

    set_value(txn, d->table, d->keys[8], d->v, nested_value(CE_TYPE_DICTIONARY));
    CHECK(ce_collection_open_mixed(txn, d->table, d->keys[8], d->v, &top));
    set_key(top, "key", string_value("y"));
    set_key(top, "inner", nested_value(CE_TYPE_DICTIONARY));
    inner = nested(top, string_value("inner"));
    set_key(inner, "k", string_value("x"));
    ce_collection_close(inner);
    ce_collection_close(top);
    /* Collections of mixed values holding collections:
     *   0: anys [1, {"k": "x"}, [4, 5]], anyMap {"a": [1, 2], "b": 3}
     *   1: anys [2], anyMap {"a": {"k": "y"}} */
    CHECK(ce_collection_open(txn, d->table, d->keys[0], d->anys, &top));
    append(top, int_value(1));
    append(top, nested_value(CE_TYPE_DICTIONARY));
    append(top, nested_value(CE_TYPE_LIST));
    inner = nested(top, int_value(1));
    set_key(inner, "k", string_value("x"));
    ce_collection_close(inner);
    inner = nested(top, int_value(2));
    append(inner, int_value(4));
    append(inner, int_value(5));
    ce_collection_close(inner);
    ce_collection_close(top);
    CHECK(ce_collection_open(txn, d->table, d->keys[0], d->any_map, &top));
    set_key(top, "a", nested_value(CE_TYPE_LIST));
    set_key(top, "b", int_value(3));
    inner = nested(top, string_value("a"));
    append(inner, int_value(1));
    append(inner, int_value(2));
    ce_collection_close(inner);
    ce_collection_close(top);
    CHECK(ce_collection_open(txn, d->table, d->keys[1], d->anys, &top));
    append(top, int_value(2));
    ce_collection_close(top);
    CHECK(ce_collection_open(txn, d->table, d->keys[1], d->any_map, &top));
    set_key(top, "a", nested_value(CE_TYPE_DICTIONARY));
    inner = nested(top, string_value("a"));
    set_key(inner, "k", string_value("y"));
    ce_collection_close(inner);
    ce_collection_close(top);
    CHECK(ce_txn_commit(txn));
}

/* The predicate matches exactly the objects whose numbers are listed
 * (ending with -1), in key order. */
static void expect_matches_with(const mixed_data *d, ce_txn *txn, const char *predicate, const ce_query_argument *arguments,
                                size_t argument_count, const int *expected)
{
    ce_query *query;
    if (!ce_query_parse(txn, d->table, predicate, arguments, argument_count, &query)) {
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
        if (key != d->keys[expected[i]]) {
            fprintf(stderr, "'%s': match %zu is object %lld, expected object %d\n", predicate, i, (long long)key,
                    expected[i]);
            exit(1);
        }
    }
    ce_results_free(results);
    ce_query_free(query);
}

#define EXPECT_MATCHES(d, txn, predicate, ...) \
    expect_matches_with((d), (txn), (predicate), NULL, 0, (const int[]){__VA_ARGS__, -1})
#define EXPECT_NONE(d, txn, predicate) expect_matches_with((d), (txn), (predicate), NULL, 0, (const int[]){-1})

static void expect_invalid(const mixed_data *d, ce_txn *txn, const char *predicate, const ce_query_argument *arguments,
                           size_t argument_count, const char *fragment)
{
    test_expect_query_refused(txn, d->table, predicate, arguments, argument_count, fragment);
}

static ce_txn *read_txn(const mixed_data *d)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(d->t.db, &txn));
    return txn;
}

static void finish(mixed_data *d, ce_txn *txn)
{
    ce_txn_end(txn);
    test_verify(d->t.db);
    test_db_close(&d->t);
}

TEST(mixed_type_of)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    EXPECT_MATCHES(&d, txn, "v.@type == 'list'", 0, 4, 6);
    EXPECT_MATCHES(&d, txn, "v.@type == 'dictionary'", 1, 5, 8);
    EXPECT_MATCHES(&d, txn, "v.@type == 'int'", 2);
    EXPECT_MATCHES(&d, txn, "v.@type == 'null'", 3);
    EXPECT_MATCHES(&d, txn, "v.@type == 'string'", 7);
    EXPECT_MATCHES(&d, txn, "v.@type IN {'int', 'string'}", 2, 7);
    EXPECT_MATCHES(&d, txn, "v.@type != 'list' AND v.@type != 'dictionary'", 2, 3, 7);
    EXPECT_MATCHES(&d, txn, "v[LAST].@type == 'list'", 0);
    EXPECT_MATCHES(&d, txn, "ANY v[*].@type == 'list'", 0, 1);
    /* Realm's names: case-insensitive, aliases, groups; != is none of them. */
    EXPECT_MATCHES(&d, txn, "v.@type == 'INTEGER'", 2);
    EXPECT_MATCHES(&d, txn, "v.@type == 'numeric'", 2);
    EXPECT_MATCHES(&d, txn, "v.@type == 'collection'", 0, 1, 4, 5, 6, 8);
    EXPECT_MATCHES(&d, txn, "v.@type != 'collection'", 2, 3, 7);
    EXPECT_MATCHES(&d, txn, "'string' == v.@type", 7);
    EXPECT_MATCHES(&d, txn, "v.@type IN {'numeric', 'null'}", 2, 3);
    EXPECT_MATCHES(&d, txn, "ALL v[*].@type == 'numeric' AND v.@type == 'list'", 4, 6);
    EXPECT_MATCHES(&d, txn, "ANY v[*].@type != 'numeric'", 0, 1, 8);
    EXPECT_MATCHES(&d, txn, "v[1].@type == 'string'", 0);
    EXPECT_MATCHES(&d, txn, "v.@type == v.@type", 0, 1, 2, 3, 4, 5, 6, 7, 8);
    EXPECT_NONE(&d, txn, "v.@type == v[0].@type");
    /* The whole value still compares. */
    EXPECT_MATCHES(&d, txn, "v == 5", 2);
    finish(&d, txn);
}

TEST(mixed_subscripts)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    EXPECT_MATCHES(&d, txn, "v[0] == 5", 0);
    EXPECT_MATCHES(&d, txn, "v[0] == 3", 6);
    EXPECT_MATCHES(&d, txn, "v[1] == 'a'", 0);
    EXPECT_MATCHES(&d, txn, "v[0] > 2", 0, 6);
    EXPECT_MATCHES(&d, txn, "v[FIRST] == 5", 0);
    EXPECT_MATCHES(&d, txn, "v[LAST] == 5", 6);
    EXPECT_MATCHES(&d, txn, "v['key'] == 'x'", 1);
    EXPECT_MATCHES(&d, txn, "v['key'] == 'y'", 8);
    EXPECT_MATCHES(&d, txn, "v['key'] ==[c] 'X'", 1);
    EXPECT_MATCHES(&d, txn, "v['key'] BEGINSWITH 'x'", 1);
    EXPECT_MATCHES(&d, txn, "v[\"n\"] > 4", 1);
    /* A key a non-empty dictionary lacks reads null (an empty one reaches
     * nothing: realm-core's Collection::get_any, collection.cpp, looks a
     * key up only `if (size_t finish = keys.size())`); a list has no keys,
     * a dictionary no indexes, and a value holding no collection neither. */
    EXPECT_MATCHES(&d, txn, "v['missing'] == nil", 1, 8);
    EXPECT_NONE(&d, txn, "v[9] == 5");
    EXPECT_NONE(&d, txn, "v[0] == nil");
    EXPECT_NONE(&d, txn, "v['key'] == nil AND v.@type == 'list'");
    /* Nested. */
    EXPECT_MATCHES(&d, txn, "v[2]['k'] == 'x'", 0);
    EXPECT_MATCHES(&d, txn, "v[2]['n'] == 3", 0);
    EXPECT_MATCHES(&d, txn, "v[3][LAST] == 2", 0);
    EXPECT_MATCHES(&d, txn, "v['inner']['k'] == 'x'", 8);
    EXPECT_MATCHES(&d, txn, "v['sub'][1] == 8", 1);
    /* A sort key: objects whose path reaches nothing sort as null, first. */
    EXPECT_MATCHES(&d, txn, "TRUEPREDICATE SORT(v[0] ASC)", 1, 2, 3, 4, 5, 7, 8, 6, 0);
    EXPECT_MATCHES(&d, txn, "v.@type == 'dictionary' SORT(v['key'] DESC)", 8, 1, 5);
    /* Keys and indexes from arguments, and a key path from %K. */
    ce_query_argument arguments[2] = {{.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(1)},
                                      {.kind = CE_QUERY_ARGUMENT_VALUE, .value = string_value("a")}};
    expect_matches_with(&d, txn, "v[%@] == %@", arguments, 2, (const int[]){0, -1});
    arguments[0].value = string_value("key");
    arguments[1].value = string_value("x");
    expect_matches_with(&d, txn, "v[$0] == $1", arguments, 2, (const int[]){1, -1});
    arguments[0].value = string_value("v['n']");
    arguments[1].value = int_value(5);
    expect_matches_with(&d, txn, "%K == %@", arguments, 2, (const int[]){1, -1});
    arguments[0].value = string_value("v[2]['k']");
    arguments[1].value = string_value("x");
    expect_matches_with(&d, txn, "%K == %@", arguments, 2, (const int[]){0, -1});
    finish(&d, txn);
}

TEST(mixed_wildcards)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    /* [*] is every element of a list, every value of a dictionary. */
    EXPECT_MATCHES(&d, txn, "v[*] == 5", 0, 1, 6);
    EXPECT_MATCHES(&d, txn, "ANY v[*] == 3", 6);
    EXPECT_MATCHES(&d, txn, "v[*] == 'x'", 1);
    EXPECT_MATCHES(&d, txn, "v.@type == 'list' AND ALL v[*] > 2", 4, 6);
    EXPECT_MATCHES(&d, txn, "v.@type == 'list' AND NONE v[*] == 5", 4);
    EXPECT_NONE(&d, txn, "v[*] IN {1, 8}");
    /* Nested: [*] of [*], and a step after [*]. */
    EXPECT_MATCHES(&d, txn, "v[*][*] == 8", 1);
    EXPECT_MATCHES(&d, txn, "v[*][*] == 3", 0);
    EXPECT_MATCHES(&d, txn, "ANY v[*][*] IN {1, 8}", 0, 1);
    EXPECT_MATCHES(&d, txn, "v[*]['k'] == 'x'", 0, 8);
    EXPECT_MATCHES(&d, txn, "v[*][0] == 7", 1);
    finish(&d, txn);
}

TEST(mixed_size)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    EXPECT_MATCHES(&d, txn, "v.@size == 2", 6, 8);
    EXPECT_MATCHES(&d, txn, "v.@size == 0", 4, 5);
    EXPECT_MATCHES(&d, txn, "v.@count > 2", 0, 1);
    EXPECT_MATCHES(&d, txn, "v[2].@size == 2", 0);
    EXPECT_MATCHES(&d, txn, "v['sub'].@count == 2", 1);
    EXPECT_MATCHES(&d, txn, "ANY v[*].@size == 1", 8);
    /* A value that holds no collection has no size. */
    EXPECT_NONE(&d, txn, "v.@size == 0 AND v.@type == 'int'");
    finish(&d, txn);
}

TEST(mixed_collections_of_mixed)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    EXPECT_MATCHES(&d, txn, "anys[0] == 1", 0);
    EXPECT_MATCHES(&d, txn, "anys[0] == 2", 1);
    EXPECT_MATCHES(&d, txn, "anys[1]['k'] == 'x'", 0);
    EXPECT_MATCHES(&d, txn, "anys[LAST][0] == 4", 0);
    EXPECT_MATCHES(&d, txn, "anys[LAST] == 2", 1);
    EXPECT_MATCHES(&d, txn, "anys[*][*] == 5", 0);
    EXPECT_MATCHES(&d, txn, "anys[*] == 2", 1);
    EXPECT_MATCHES(&d, txn, "anys[2].@size == 2", 0);
    EXPECT_MATCHES(&d, txn, "anys[1].@type == 'dictionary'", 0);
    EXPECT_MATCHES(&d, txn, "anyMap['a'][1] == 2", 0);
    EXPECT_MATCHES(&d, txn, "anyMap['a']['k'] == 'y'", 1);
    EXPECT_MATCHES(&d, txn, "anyMap['a'].@type == 'list'", 0);
    EXPECT_MATCHES(&d, txn, "anyMap['a'].@size == 2", 0);
    EXPECT_MATCHES(&d, txn, "anyMap['a'][*] == 2", 0);
    /* What was there before: an entry, the elements, the count. */
    EXPECT_MATCHES(&d, txn, "anyMap['b'] == 3", 0);
    EXPECT_MATCHES(&d, txn, "anys == 2", 1);
    EXPECT_MATCHES(&d, txn, "anys.@count == 3", 0);
    /* An entry's key from a %K key path: the bound query keeps its own
     * copy (the argument's parse tree is freed once bound; ASan). */
    ce_query_argument arguments[2] = {{.kind = CE_QUERY_ARGUMENT_VALUE, .value = string_value("anyMap['b']")},
                                      {.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(3)}};
    expect_matches_with(&d, txn, "%K == %@", arguments, 2, (const int[]){0, -1});
    finish(&d, txn);
}

TEST(mixed_path_errors)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    expect_invalid(&d, txn, "v.@sum > 1", NULL, 0, "'@sum' does not apply to a mixed value");
    expect_invalid(&d, txn, "v[-1] == 1", NULL, 0, "an index in '[...]' is a whole number from 0");
    expect_invalid(&d, txn, "v[1.5] == 1", NULL, 0, "an index in '[...]' is a whole number from 0");
    expect_invalid(&d, txn, "v[foo] == 1", NULL, 0, "expected a string, an index, FIRST, LAST, SIZE, '*' or an argument");
    expect_invalid(&d, txn, "v[] == 1", NULL, 0, "expected a string, an index, FIRST, LAST, SIZE, '*' or an argument");
    expect_invalid(&d, txn, "v.@type == 5", NULL, 0, "compares with type names (strings), not int values");
    expect_invalid(&d, txn, "v.@type == 'word'", NULL, 0,
                   "Unable to parse the type attribute string 'word', supported case insensitive values are: [null, int,");
    expect_invalid(&d, txn, "v.@type > 'int'", NULL, 0,
                   "Unsupported operator > in query. Only equal (==) and not equal (!=) are supported for this type.");
    expect_invalid(&d, txn, "ANY v.@type == 'int'", NULL, 0, "ANY, ALL and NONE need the key path of a collection");
    expect_invalid(&d, txn, "v.@size == 'x'", NULL, 0, "Holder.v");
    ce_query_argument real = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_DOUBLE, .double_value = 1.5}};
    expect_invalid(&d, txn, "v[%@] == 1", &real, 1, "Invalid index type");
    expect_invalid(&d, txn, "v * 'x' == 1", NULL, 0, "Cannot perform '*' operation"); /* arithmetic on a string */
    /* Subscripts on properties that are not mixed: realm-core's words
     * (PropertyNode::visit, src/realm/parser/driver.cpp; an index prints
     * as PathElement's << does: FIRST for 0, LAST). */
    expect_invalid(&d, txn, "ints[0][1] == 1", NULL, 0, "Only Property of type 'any' can have nested collections");
    expect_invalid(&d, txn, "map['a'][0] == 1", NULL, 0, "Only Property of type 'any' can have nested collections");
    expect_invalid(&d, txn, "map[LAST] == 1", NULL, 0, "Property 'Holder.map' does not support index 'LAST'");
    expect_invalid(&d, txn, "ints['a'] == 1", NULL, 0, "Property 'Holder.ints' has no property 'a'");
    expect_invalid(&d, txn, "n[0] == 1", NULL, 0, "Property 'Holder.n' does not support index 'FIRST'");
    expect_invalid(&d, txn, "n['k'] == 1", NULL, 0, "Property 'Holder.n' has no property 'k'");
    /* @type of a property that is not mixed is a constant of its type,
     * which realm-core will not compare with another constant
     * (verify_conditions, driver.cpp). */
    expect_invalid(&d, txn, "n.@type == 'int'", NULL, 0, "Comparison between two constants is not supported ('\"int\"' and '\"int\"')");
    expect_invalid(&d, txn, "ints.@type == 'int'", NULL, 0, "Operation '@type' is not supported on property of type 'int'");
    /* An argument as an index (ParserDriver::get_arg_for_index). */
    ce_query_argument null_argument = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_NULL}};
    expect_invalid(&d, txn, "v[%@] == 1", &null_argument, 1, "Invalid index parameter");
    finish(&d, txn);
}

/* What realm-core's Collection::get_any (src/realm/collection.cpp) reaches
 * along a path into a mixed value, the rules these cases check:
 *   - a step into a value that holds no collection reaches nothing (no
 *     branch takes it);
 *   - an index past the end reaches nothing (`if (start < sz) finish =
 *     start + 1;` else the loop runs from start >= sz);
 *   - a key on a list, an index on a dictionary reach nothing (a
 *     dictionary takes `pe.is_key() || pe.is_all()`, a list
 *     `pe.is_ndx() || pe.is_all()`);
 *   - a key a non-empty dictionary lacks reads null at the end of the
 *     path, nothing before it; an empty dictionary reaches nothing;
 *   - a key on a value linking to an object reaches the object's property
 *     of that name (`val.is_type(type_TypedLink) && pe.is_key()`).
 * Nothing reached is no value: ANY (the default) of none is false, ALL and
 * NONE of none are true; realm-core takes ANY, ALL and NONE before such a
 * path ("Having a path implies a collection", LinkChain::column,
 * src/realm/parser/driver.cpp). @type names are realm-core's
 * (query_value.cpp, attribute_map), 'list', 'dictionary' and 'collection'
 * for the collections a mixed value holds. */
TEST(mixed_paths_reaching_nothing)
{
    mixed_data d;
    build(&d);
    ce_txn *txn = read_txn(&d);
    /* Object 2 holds 5, object 7 "abc", object 3 null. */
    EXPECT_NONE(&d, txn, "v[0] == 5 AND v.@type != 'list'");
    EXPECT_NONE(&d, txn, "v['k'] == nil AND v.@type != 'dictionary'");
    EXPECT_MATCHES(&d, txn, "ALL v[0] == 99 AND v.@type != 'list'", 1, 2, 3, 5, 7, 8);
    EXPECT_MATCHES(&d, txn, "NONE v[0] == 5", 1, 2, 3, 4, 5, 6, 7, 8);
    /* Out of range. */
    EXPECT_NONE(&d, txn, "v[4] != 0");
    EXPECT_MATCHES(&d, txn, "ALL v[2] == 'x' AND v.@type == 'list'", 4, 6);
    /* A key on a list, an index on a dictionary. */
    EXPECT_NONE(&d, txn, "v['key'] != 'q' AND v.@type == 'list'");
    EXPECT_MATCHES(&d, txn, "NONE v['key'] == 'x'", 0, 2, 3, 4, 5, 6, 7, 8);
    EXPECT_NONE(&d, txn, "v[0] != 'q' AND v.@type == 'dictionary'");
    /* A key a dictionary lacks: null at the end, nothing before it. */
    EXPECT_MATCHES(&d, txn, "v['nope'] == nil", 1, 8);
    EXPECT_NONE(&d, txn, "v['nope'][0] == nil");
    EXPECT_NONE(&d, txn, "v['nope']['x'] == nil");
    /* .key is ['key'] (a path element realm-core reads as a key). */
    EXPECT_MATCHES(&d, txn, "v.key == 'x'", 1);
    EXPECT_MATCHES(&d, txn, "v.inner.k == 'x'", 8);
    finish(&d, txn);
}

TEST(mixed_link_paths)
{
    mixed_data d;
    build(&d);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(d.t.db, &txn));
    /* Object 3's value links to an object of Other {label: "L", count: 4}. */
    ce_table_key other = add_table(txn, "Other", false);
    ce_column_key label = add_scalar(txn, other, "label", CE_TYPE_STRING, false);
    ce_column_key count = add_scalar(txn, other, "count", CE_TYPE_INT, false);
    ce_object_key target = create_object(txn, other);
    set_value(txn, other, target, label, string_value("L"));
    set_value(txn, other, target, count, int_value(4));
    set_value(txn, d.table, d.keys[3], d.v, link_value(other, target));
    CHECK(ce_txn_commit(txn));
    txn = read_txn(&d);
    EXPECT_MATCHES(&d, txn, "v.label == 'L'", 3);
    EXPECT_MATCHES(&d, txn, "v['count'] > 3", 3);
    EXPECT_MATCHES(&d, txn, "v.@type == 'object'", 3);
    EXPECT_NONE(&d, txn, "v.nothing == nil AND v.@type == 'object'");
    finish(&d, txn);
}

/* Sorting a mixed property whose values have several types, as realm-core's
 * Mixed::compare orders them (realm-core src/realm/mixed.cpp, sorting_rank
 * and Mixed::compare; Realm Swift's SectionedResultsTests section a
 * List<AnyRealmValue> sorted this way): null, booleans, numbers of any
 * type by value, strings and binaries by their bytes, dates, object ids. */
TEST(mixed_sort_across_types)
{
    mixed_data d = {0};
    d.t = test_db_open("query_mixed_sort");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(d.t.db, &txn));
    d.table = add_table(txn, "Holder", false);
    d.v = add_scalar(txn, d.table, "v", CE_TYPE_MIXED, true);
    static const uint8_t one[] = {1};
    ce_value values[] = {
        string_value("apple"),
        int_value(2),
        (ce_value){.type = CE_TYPE_BOOL, .boolean = true},
        (ce_value){.type = CE_TYPE_BINARY, .binary = {one, 1}},
        (ce_value){.type = CE_TYPE_DOUBLE, .double_value = 1.5},
        (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {0, 0}},
        null_value(),
        (ce_value){.type = CE_TYPE_FLOAT, .float_value = 2.5f},
        (ce_value){.type = CE_TYPE_BOOL, .boolean = false},
    };
    for (int i = 0; i < 9; i++) {
        d.keys[i] = create_object(txn, d.table);
        set_value(txn, d.table, d.keys[i], d.v, values[i]);
    }
    CHECK(ce_txn_commit(txn));
    txn = read_txn(&d);
    EXPECT_MATCHES(&d, txn, "TRUEPREDICATE SORT(v ASC)", 6, 8, 2, 4, 1, 7, 3, 0, 5);
    EXPECT_MATCHES(&d, txn, "TRUEPREDICATE SORT(v DESC)", 5, 0, 3, 7, 1, 4, 2, 8, 6);
    finish(&d, txn);
}
