/*
 * test_query_core.c — constructs of realm-core's query language checked
 * one by one against its parser's rules (src/realm/parser/driver.cpp,
 * query_bison.yy) and tests (test/test_parser.cpp): a collection of links
 * compared with null, `@links.@count` (every link into an object),
 * `@keys` and `@values` of dictionaries, a dictionary of links counting
 * its links, names escaped with a backslash, keywords as names,
 * realm-core's number and string literals, @count after a to-one link,
 * and BETWEEN over several values.
 *
 * Owns: these cases, on a small table of people and dogs of their own.
 * Never: asks the engine what a predicate should match: every expected
 * result is written out from the objects built here.
 */
#include "test_links_support.h"

/* Dogs, in key order: 0 Rex (5), 1 Fido (2), 2 Ace (9).
 * People, in key order:
 *   0 Ann: dogs [Rex, Fido, Rex], best Ace, scores {"x": 1, "y": 5},
 *          pets {"a": Rex}
 *   1 Bob: dogs [Ace], best null, scores {"x": 3}, pets {"b": null}
 *   2 Cy:  dogs [], best Rex, scores {}, pets {}
 * and "shoe size" 40, 41, 42; "limit" 1, 0, 3; "contains" "ab", "b/", "".
 * Links into each dog: Rex 4 (twice from Ann's list, Cy's best, Ann's
 * pets), Fido 1, Ace 2; none into people. */
enum { DOGS = 3, PEOPLE = 3 };

typedef struct fixture {
    test_db t;
    ce_table_key dog, person;
    ce_column_key dog_name, age, name, dogs, best, scores, pets, spaced, limit, contains;
    ce_object_key dog_keys[DOGS], keys[PEOPLE];
} fixture;

static void edit(ce_txn *txn, ce_table_key table, ce_object_key key, ce_column_key column, const char *entry,
                 ce_value value)
{
    ce_collection *c;
    CHECK(ce_collection_open(txn, table, key, column, &c));
    if (entry) {
        CHECK(ce_dictionary_set(c, entry, strlen(entry), &value));
    } else {
        size_t size;
        CHECK(ce_collection_size(c, &size) && ce_list_insert(c, size, &value));
    }
    ce_collection_close(c);
}

static void build(fixture *f)
{
    f->t = test_db_open("query_core");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(f->t.db, &txn));
    f->dog = add_table(txn, "Dog", false);
    f->dog_name = add_scalar(txn, f->dog, "name", CE_TYPE_STRING, false);
    f->age = add_scalar(txn, f->dog, "age", CE_TYPE_INT, false);
    f->person = add_table(txn, "Person", false);
    f->name = add_scalar(txn, f->person, "name", CE_TYPE_STRING, false);
    f->dogs = add_property(txn, f->person, "dogs", CE_TYPE_LINK, false, CE_COLLECTION_LIST, f->dog);
    f->best = add_property(txn, f->person, "best", CE_TYPE_LINK, true, CE_COLLECTION_NONE, f->dog);
    f->scores = add_property(txn, f->person, "scores", CE_TYPE_INT, true, CE_COLLECTION_DICTIONARY, 0);
    f->pets = add_property(txn, f->person, "pets", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, f->dog);
    f->spaced = add_scalar(txn, f->person, "shoe size", CE_TYPE_INT, false);
    f->limit = add_scalar(txn, f->person, "limit", CE_TYPE_INT, false);
    f->contains = add_scalar(txn, f->person, "contains", CE_TYPE_STRING, false);
    static const char *const dog_names[DOGS] = {"Rex", "Fido", "Ace"};
    static const int64_t ages[DOGS] = {5, 2, 9};
    for (int i = 0; i < DOGS; i++) {
        f->dog_keys[i] = create_object(txn, f->dog);
        set_value(txn, f->dog, f->dog_keys[i], f->dog_name, string_value(dog_names[i]));
        set_value(txn, f->dog, f->dog_keys[i], f->age, int_value(ages[i]));
    }
    static const char *const names[PEOPLE] = {"Ann", "Bob", "Cy"};
    for (int i = 0; i < PEOPLE; i++) {
        f->keys[i] = create_object(txn, f->person);
        set_value(txn, f->person, f->keys[i], f->name, string_value(names[i]));
        set_value(txn, f->person, f->keys[i], f->spaced, int_value(40 + i));
        static const int64_t limits[PEOPLE] = {1, 0, 3};
        static const char *const texts[PEOPLE] = {"ab", "b/", ""};
        set_value(txn, f->person, f->keys[i], f->limit, int_value(limits[i]));
        set_value(txn, f->person, f->keys[i], f->contains, string_value(texts[i]));
    }
    ce_table_key pt = f->person;
    ce_object_key *k = f->keys, *d = f->dog_keys;
    edit(txn, pt, k[0], f->dogs, NULL, link_value(f->dog, d[0]));
    edit(txn, pt, k[0], f->dogs, NULL, link_value(f->dog, d[1]));
    edit(txn, pt, k[0], f->dogs, NULL, link_value(f->dog, d[0]));
    set_value(txn, pt, k[0], f->best, link_value(f->dog, d[2]));
    edit(txn, pt, k[0], f->scores, "x", int_value(1));
    edit(txn, pt, k[0], f->scores, "y", int_value(5));
    edit(txn, pt, k[0], f->pets, "a", link_value(f->dog, d[0]));
    edit(txn, pt, k[1], f->dogs, NULL, link_value(f->dog, d[2]));
    edit(txn, pt, k[1], f->scores, "x", int_value(3));
    edit(txn, pt, k[1], f->pets, "b", null_value());
    set_value(txn, pt, k[2], f->best, link_value(f->dog, d[0]));
    CHECK(ce_txn_commit(txn));
}

/* The predicate on `table` matches exactly the objects whose numbers are
 * listed (ending with -1), in key order. */
static void expect_in(const fixture *f, ce_txn *txn, ce_table_key table, const char *predicate,
                      const ce_query_argument *arguments, size_t argument_count, const int *expected)
{
    const ce_object_key *keys = table == f->person ? f->keys : f->dog_keys;
    ce_query *query;
    if (!ce_query_parse(txn, table, predicate, arguments, argument_count, &query)) {
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
        if (key != keys[expected[i]]) {
            fprintf(stderr, "'%s': match %zu is object %lld, expected object %d\n", predicate, i, (long long)key,
                    expected[i]);
            exit(1);
        }
    }
    ce_results_free(results);
    ce_query_free(query);
}

#define EXPECT_PEOPLE(f, txn, predicate, ...) \
    expect_in((f), (txn), (f)->person, (predicate), NULL, 0, (const int[]){__VA_ARGS__, -1})
#define EXPECT_NO_PEOPLE(f, txn, predicate) expect_in((f), (txn), (f)->person, (predicate), NULL, 0, (const int[]){-1})
#define EXPECT_DOGS(f, txn, predicate, ...) \
    expect_in((f), (txn), (f)->dog, (predicate), NULL, 0, (const int[]){__VA_ARGS__, -1})

static void expect_refused(const fixture *f, ce_txn *txn, const char *predicate, const ce_query_argument *arguments,
                           size_t argument_count, const char *fragment)
{
    test_expect_query_refused(txn, f->person, predicate, arguments, argument_count, fragment);
}
#define EXPECT_REFUSED(f, txn, predicate, fragment) expect_refused((f), (txn), (predicate), NULL, 0, (fragment))

static ce_txn *read_txn(const fixture *f)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(f->t.db, &txn));
    return txn;
}

static void finish(fixture *f, ce_txn *txn)
{
    ce_txn_end(txn);
    test_verify(f->t.db);
    test_db_close(&f->t);
}

/* realm-core compares no collection of links with null: "Cannot compare
 * linklist ('items') with NULL" (verify_conditions, driver.cpp; the
 * description is Columns<Link>'s, after its quantifier), whichever side
 * the null is on; test_parser.cpp, Parser_LinksToDifferentTable: "items ==
 * NULL", "items != NULL" and "items.discount == NULL" throw. A to-one link
 * and a property through a list compare with null as before. */
TEST(collection_of_links_with_null)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_REFUSED(&f, txn, "dogs == NULL", "Cannot compare linklist ('dogs') with NULL");
    EXPECT_REFUSED(&f, txn, "dogs != nil", "Cannot compare linklist ('dogs') with NULL");
    EXPECT_REFUSED(&f, txn, "NULL == dogs", "Cannot compare linklist ('dogs') with NULL");
    EXPECT_REFUSED(&f, txn, "ANY dogs == nil", "Cannot compare linklist ('ANY dogs') with NULL");
    EXPECT_REFUSED(&f, txn, "pets == nil", "Cannot compare linklist ('pets') with NULL");
    EXPECT_REFUSED(&f, txn, "dogs.@links.Person.dogs == nil", "Cannot compare linklist ('dogs.@links.Person.dogs') with NULL");
    ce_query_argument null_argument = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = null_value()};
    expect_refused(&f, txn, "dogs == $0", &null_argument, 1, "Cannot compare linklist ('dogs') with NULL");
    EXPECT_PEOPLE(&f, txn, "best == nil", 1);
    EXPECT_PEOPLE(&f, txn, "best != NULL", 0, 2);
    EXPECT_NO_PEOPLE(&f, txn, "dogs.name == nil");
    EXPECT_PEOPLE(&f, txn, "pets['b'] == nil", 0, 1, 2);
    finish(&f, txn);
}

/* `@links.@count` (or @size): every link into the object, from any table
 * and property (BacklinkCount, made by PropertyNode::visit for a path
 * ending at "@links", driver.cpp; Obj::get_backlink_count); after links,
 * one number: the sum over the objects reached, 0 when none
 * (LinkMap::count_all_backlinks, query_expression.hpp). test_parser.cpp's
 * valid queries list "p.@links.class.prop.@count > 2" beside it. */
TEST(count_of_every_link_into_an_object)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_DOGS(&f, txn, "@links.@count == 4", 0);
    EXPECT_DOGS(&f, txn, "@links.@size == 1", 1);
    EXPECT_DOGS(&f, txn, "@links.@count >= 2", 0, 2);
    EXPECT_DOGS(&f, txn, "@links.@count > @links.Person.dogs.@count", 0, 2);
    EXPECT_PEOPLE(&f, txn, "@links.@count == 0", 0, 1, 2);
    EXPECT_PEOPLE(&f, txn, "best.@links.@count == 2", 0);
    EXPECT_PEOPLE(&f, txn, "best.@links.@count == 4", 2);
    EXPECT_PEOPLE(&f, txn, "best.@links.@count == 0", 1);
    EXPECT_PEOPLE(&f, txn, "dogs.@links.@count == 9", 0);
    EXPECT_PEOPLE(&f, txn, "dogs.@links.@count == 2", 1);
    EXPECT_PEOPLE(&f, txn, "dogs.@links.@size == 0", 2);
    ce_query_argument nine = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(9)};
    expect_in(&f, txn, f.person, "dogs.@links.@count BETWEEN {3, $0}", &nine, 1, (const int[]){0, -1});
    /* Sorted by it: Bob's none (0), Ann's Ace (2), Cy's Rex (4). */
    expect_in(&f, txn, f.person, "TRUEPREDICATE SORT(best.@links.@count ASC)", NULL, 0, (const int[]){1, 0, 2, -1});
    EXPECT_REFUSED(&f, txn, "@links.@max > 1", "'@links' is followed by a class and a property");
    EXPECT_REFUSED(&f, txn, "@links.@count.x > 1", "'@links' is followed by a class and a property");
    finish(&f, txn);
}

/* `dict.@keys` and `dict.@values` (realm-core's keywords: KEY_VAL in
 * query_flex.ll; ColumnDictionaryKeys for @keys in PropertyNode::visit,
 * @values passed over by PathNode::visit, driver.cpp), as NSPredicate's
 * @allKeys and @allValues; through a dictionary of links @values leads
 * on to the objects. */
TEST(keys_and_values_of_dictionaries)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "scores.@keys == 'y'", 0);
    EXPECT_PEOPLE(&f, txn, "ALL scores.@keys == 'x'", 1, 2);
    EXPECT_PEOPLE(&f, txn, "scores.@keys BEGINSWITH 'x'", 0, 1);
    EXPECT_PEOPLE(&f, txn, "scores.@values > 2", 0, 1);
    EXPECT_PEOPLE(&f, txn, "NONE scores.@values == 3", 0, 2);
    EXPECT_PEOPLE(&f, txn, "scores.@values.@sum == 6", 0);
    EXPECT_PEOPLE(&f, txn, "scores.@values.@count == 1", 1);
    EXPECT_PEOPLE(&f, txn, "pets.@keys == 'b'", 1);
    EXPECT_PEOPLE(&f, txn, "pets.@values.name == 'Rex'", 0);
    EXPECT_PEOPLE(&f, txn, "pets.@values.@max.age == 5", 0);
    finish(&f, txn);
}

/* A dictionary of links counts the links it holds: realm-core's @count of
 * a link column is LinkCount, and LinkMap::map_links takes only the
 * dictionary's values that are links (query_expression.cpp); Realm
 * Swift's map.@count is the same LinkCount (RLMQueryUtil.mm). Bob's pets
 * hold one null value. */
TEST(dictionary_of_links_counts_links)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "pets.@count == 0", 1, 2);
    EXPECT_PEOPLE(&f, txn, "pets.@size == 1", 0);
    EXPECT_PEOPLE(&f, txn, "pets.@values.@count == 1", 0);
    EXPECT_PEOPLE(&f, txn, "pets[*].@count == 0", 1, 2);
    /* A dictionary of values counts its entries, nulls too. */
    EXPECT_PEOPLE(&f, txn, "scores.@count == 1", 1);
    finish(&f, txn);
}

/* A property name with a space, written with a backslash before it
 * (query_flex.ll takes `\ `, `\t`, `\r` and `\n` in an identifier, and
 * '-' and '$' after its first character; check_escapes, driver.cpp, turns
 * them into the white space; test_parser.cpp, Parser_basic_serialisation:
 * "float\ fees > 2.0E0"; valid_queries: "a$a = a", "not-1=1"). */
TEST(escaped_names)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "shoe\\ size == 41", 1);
    EXPECT_PEOPLE(&f, txn, "shoe\\ size > 40 AND name != 'Cy'", 1);
    expect_in(&f, txn, f.person, "TRUEPREDICATE SORT(shoe\\ size DESC)", NULL, 0, (const int[]){2, 1, 0, -1});
    EXPECT_REFUSED(&f, txn, "shoe size == 41", "");
    /* '-' and '$' go on a name too (query_flex.ll's id_char): no minus here. */
    EXPECT_REFUSED(&f, txn, "shoe\\ size-1 == 41", "has no property 'shoe size-1'");
    EXPECT_REFUSED(&f, txn, "name$x == 'Ann'", "has no property 'name$x'");
    finish(&f, txn);
}

/* realm-core takes the words of its operators and descriptors as names
 * (query_bison.yy's `id`: beginswith, endswith, contains, like, between,
 * in, text, sort, distinct, limit, ascending, descending; test_parser.cpp's
 * valid queries: "sort > 0", "contains contains 'contains'",
 * "TRUEPREDICATE SORT(limit ASC)"). */
TEST(keywords_as_names)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "limit > 0", 0, 2);
    EXPECT_PEOPLE(&f, txn, "limit IN {1, 3}", 0, 2);
    EXPECT_PEOPLE(&f, txn, "contains contains 'b'", 0, 1);
    EXPECT_PEOPLE(&f, txn, "contains BEGINSWITH 'a' OR limit == 0", 0, 1);
    EXPECT_PEOPLE(&f, txn, "NOT contains == ''", 0, 1);
    expect_in(&f, txn, f.person, "TRUEPREDICATE SORT(limit DESC)", NULL, 0, (const int[]){2, 0, 1, -1});
    expect_in(&f, txn, f.person, "limit >= 0 SORT(contains ASC) LIMIT(2)", NULL, 0, (const int[]){2, 0, -1});
    EXPECT_REFUSED(&f, txn, "and > 0", "expected a value or a key path, not a keyword");
    finish(&f, txn);
}

/* realm-core's number literals (query_flex.ll: NUMBER, FLOAT with
 * `{int}"."{optint}` and `{optint}"."{int}`, an optional exponent and 'f'
 * for a float; a letter after a number starts the next token:
 * test_parser.cpp's valid "10. = -.034" and "a=1AND NOTb=2"), its
 * string escapes (`escape`: \/ \b \f besides \n \r \t \0 \\ \' \"),
 * and LIMIT of decimal digits only (LIMIT '(' NATURAL0 ')'; invalid
 * "a=b LIMIT(0xFFEE)"). */
TEST(number_and_string_literals)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "limit == 1.", 0);
    EXPECT_PEOPLE(&f, txn, "limit < .5", 1);
    EXPECT_PEOPLE(&f, txn, "limit > -.5", 0, 1, 2);
    EXPECT_PEOPLE(&f, txn, "limit == 3f", 2);
    EXPECT_PEOPLE(&f, txn, "limit == 1.0f OR limit == .0e1f", 0, 1);
    EXPECT_PEOPLE(&f, txn, "limit == 1AND contains == 'ab'", 0);
    EXPECT_PEOPLE(&f, txn, "contains == 'b\\/'", 1);
    EXPECT_PEOPLE(&f, txn, "contains != '\\b\\f'", 0, 1, 2);
    EXPECT_REFUSED(&f, txn, "limit == 12abc", "at position 11 ('abc')");
    EXPECT_REFUSED(&f, txn, "contains == '\\q'", "unknown escape");
    EXPECT_REFUSED(&f, txn, "TRUEPREDICATE LIMIT(0x2)", "LIMIT needs a number of objects");
    EXPECT_REFUSED(&f, txn, "TRUEPREDICATE LIMIT(1.)", "LIMIT needs a number of objects");
    finish(&f, txn);
}

/* @count, @size and the aggregates after a to-one link: the one object or
 * none (realm-core: PostOpNode::visit takes any Columns<Link>, its count
 * LinkCount; LinkAggrNode::visit the same; test_parser.cpp,
 * Parser_TwoColumnExpressionBasics: "ints == link.@count" matches row 0
 * with no link and row 1 with one; Parser_TwoColumnAggregates:
 * "discount.@count < name.@count"). */
TEST(count_and_aggregates_of_a_to_one_link)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "best.@count == 1", 0, 2);
    EXPECT_PEOPLE(&f, txn, "best.@size == 0", 1);
    EXPECT_PEOPLE(&f, txn, "best.@count < dogs.@count", 0, 1);
    EXPECT_PEOPLE(&f, txn, "limit == best.@count", 0, 1);
    EXPECT_PEOPLE(&f, txn, "best.@max.age == 9", 0);
    EXPECT_PEOPLE(&f, txn, "best.@sum.age == 0", 1);
    EXPECT_PEOPLE(&f, txn, "best.@avg.age == nil", 1);
    EXPECT_PEOPLE(&f, txn, "best.@min.age < 6", 2);
    expect_in(&f, txn, f.person, "TRUEPREDICATE SORT(best.@count ASC, name DESC)", NULL, 0, (const int[]){1, 2, 0, -1});
    finish(&f, txn);
}

/* BETWEEN after a path of several values: realm-core's BetweenNode::visit
 * (driver.cpp) joins `>= low` and `<= high` with AND, each with the path's
 * quantifier, so through links different objects may satisfy each; and it
 * takes only ALL before a list, set or dictionary of values ("Only 'ALL'
 * supported for operator 'BETWEEN' when applied to lists."). */
TEST(between_over_several_values)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    EXPECT_PEOPLE(&f, txn, "dogs.age BETWEEN {3, 4}", 0); /* Rex 5 >= 3, Fido 2 <= 4 */
    EXPECT_PEOPLE(&f, txn, "ANY dogs.age BETWEEN {6, 9}", 1);
    EXPECT_PEOPLE(&f, txn, "ALL dogs.age BETWEEN {2, 5}", 0, 2);
    EXPECT_PEOPLE(&f, txn, "NONE dogs.age BETWEEN {3, 4}", 2);
    EXPECT_PEOPLE(&f, txn, "ALL scores BETWEEN {1, 3}", 1, 2);
    EXPECT_PEOPLE(&f, txn, "best.age BETWEEN {5, 9}", 0, 2);
    EXPECT_REFUSED(&f, txn, "scores BETWEEN {1, 3}", "Only 'ALL' supported for operator 'BETWEEN' when applied to lists.");
    EXPECT_REFUSED(&f, txn, "NONE scores BETWEEN {1, 3}", "Only 'ALL' supported for operator 'BETWEEN' when applied to lists.");
    EXPECT_REFUSED(&f, txn, "ANY scores['x'] BETWEEN {1, 3}", "Only 'ALL' supported for operator 'BETWEEN'");
    finish(&f, txn);
}

/* The count of people matching `predicate` read as Realm Swift's
 * predicates (ce_query_options.realm_swift_values). */
static size_t swift_count(const fixture *f, ce_txn *txn, const char *predicate)
{
    ce_query_options swift = {.realm_swift_values = true};
    ce_query *query;
    if (!ce_query_parse_with(txn, f->person, predicate, NULL, 0, &swift, &query)) {
        fprintf(stderr, "'%s': %s\n", predicate, ce_last_error_message());
        exit(1);
    }
    size_t count;
    CHECK(ce_query_count(query, txn, &count));
    ce_query_free(query);
    return count;
}

/* Realm Swift's BETWEEN (RLMQueryUtil.mm, add_between_constraint):
 * through links to many objects, one object within both bounds (a
 * subquery); on a list of values, the two comparisons joined with AND,
 * without realm-core's demand for ALL. */
TEST(between_in_realm_swift_predicates)
{
    fixture f;
    build(&f);
    ce_txn *txn = read_txn(&f);
    CHECK(swift_count(&f, txn, "dogs.age BETWEEN {3, 4}") == 0);  /* no dog aged 3 or 4 */
    CHECK(swift_count(&f, txn, "ANY dogs.age BETWEEN {2, 3}") == 1); /* Fido */
    CHECK(swift_count(&f, txn, "scores BETWEEN {2, 3}") == 2);     /* Ann's 5 >= 2 and 1 <= 3, Bob's 3 */
    CHECK(swift_count(&f, txn, "best.age BETWEEN {5, 9}") == 2);
    finish(&f, txn);
}
