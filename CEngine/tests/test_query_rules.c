/*
 * test_query_rules.c — the query rules where Realm decides something a
 * reader would not guess, each case with the source of the rule in Realm:
 * an empty or nil needle, nil with every operator, nulls on both sides of
 * <= and >=, a number compared with a float property, sorting and
 * distinct through a missing to-one link, the order of strings (code
 * point order, as realm-core 14), a null string before every string,
 * date literals before 1970, signed NaN literals, [c] on binaries (two
 * binary properties too), string operators with an argument
 * of the other kind, and a collection's @count through links to many.
 *
 * Owns: the cases on these rules, on small tables of their own.
 * Never: asks the engine what a predicate should match; the expected
 * counts and orders are written out.
 */
#include "cengine.h"
#include "test_query_support.h"

#include <math.h>
#include <string.h>

/* The predicate fails to parse with a message containing `words`. */
static void expect_error_containing(ce_txn *txn, ce_table_key table, const char *predicate,
                                    const ce_query_argument *arguments, size_t n, const char *words)
{
    ce_query *query;
    if (ce_query_parse(txn, table, predicate, arguments, n, &query)) {
        fprintf(stderr, "'%s' parsed; expected an error with '%s'\n", predicate, words);
        exit(1);
    }
    if (!strstr(ce_last_error_message(), words)) {
        fprintf(stderr, "'%s': '%s' lacks '%s'\n", predicate, ce_last_error_message(), words);
        exit(1);
    }
}

#define EXPECT_COUNT(txn, table, predicate, expected)                                                         \
    do {                                                                                                     \
        size_t counted_ = count_of((txn), (table), (predicate), NULL, 0);                                    \
        if (counted_ != (size_t)(expected)) {                                                                \
            fprintf(stderr, "%s:%d: '%s' matched %zu, expected %zu\n", __FILE__, __LINE__, (predicate), counted_, \
                    (size_t)(expected));                                                                     \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static ce_column_key add_property(ce_txn *txn, ce_table_key table, const char *name, ce_type type, bool nullable,
                                  ce_table_key target)
{
    ce_property_info info = {.name = name, .type = type, .nullable = nullable, .link_target = target};
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

static ce_value text_value(const char *text) { return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}}; }

static ce_value bytes_value(const char *bytes)
{
    return (ce_value){.type = CE_TYPE_BINARY, .binary = {(const uint8_t *)bytes, strlen(bytes)}};
}

static const ce_value null_value = {.type = CE_TYPE_NULL};

/* ------------------------------------------------------------------------ */
/* Strings and binaries: empty and nil needles, LIKE                          */
/* ------------------------------------------------------------------------ */

/*
 * Rows: s = 'abc', '', nil; other = '', 'b', nil; bin = 'abc', '', nil.
 *
 * Realm Swift's query builder (Realm/RLMQueryUtil.mm,
 * add_substring_constraint): "Foundation always returns false for
 * substring operations with a RHS of null or \"\"" — BEGINSWITH, ENDSWITH
 * and CONTAINS with '' or nil match nothing, with [c], [d] or not, for
 * strings and data, and against another property the needle's size is
 * checked first (`value.size() != 0 && condition`). Realm Swift's own
 * tests (QueryTests.m, testStringBeginsWith and the others) count 0 for
 * `stringCol BEGINSWITH ''`, `BEGINSWITH[c] ''`, `BEGINSWITH[cd] ''` and
 * `BEGINSWITH NULL`.
 *
 * LIKE goes to realm-core unchanged (src/realm/query_conditions.hpp, Like:
 * null matches only null; StringData::like: an empty pattern matches only
 * the empty string).
 */
TEST(empty_and_nil_needles)
{
    test_db t = test_db_open("query-rules-needles");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Text", &table));
    ce_column_key s = add_property(txn, table, "s", CE_TYPE_STRING, true, 0);
    ce_column_key other = add_property(txn, table, "other", CE_TYPE_STRING, true, 0);
    ce_column_key bin = add_property(txn, table, "bin", CE_TYPE_BINARY, true, 0);
    ce_value rows[3][3] = {{text_value("abc"), text_value(""), bytes_value("abc")},
                           {text_value(""), text_value("b"), bytes_value("")},
                           {null_value, null_value, null_value}};
    for (int r = 0; r < 3; r++) {
        ce_object_key object;
        CHECK(ce_object_create(txn, table, NULL, &object) && ce_object_set(txn, table, object, s, &rows[r][0]) &&
              ce_object_set(txn, table, object, other, &rows[r][1]) && ce_object_set(txn, table, object, bin, &rows[r][2]));
    }
    static const char *const none[] = {
        "s CONTAINS ''", "s BEGINSWITH ''", "s ENDSWITH ''", "s CONTAINS[c] ''", "s BEGINSWITH[c] ''",
        "s ENDSWITH[c] ''", "s CONTAINS[d] ''", "s BEGINSWITH[cd] ''", "s ENDSWITH[dc] ''", "s CONTAINS nil",
        "s BEGINSWITH NULL", "s ENDSWITH[c] nil", "bin CONTAINS B64\"\"", "bin BEGINSWITH B64\"\"",
        "bin ENDSWITH B64\"\"", "bin CONTAINS ''", "bin BEGINSWITH nil", "s CONTAINS other", "s BEGINSWITH[c] other",
        "NOT (s CONTAINS '') AND FALSEPREDICATE", "'abc' CONTAINS ''", "'abc' BEGINSWITH other"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) EXPECT_COUNT(txn, table, none[i], 0);
    /* The same needles as arguments. */
    ce_query_argument empty = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text_value("")};
    ce_query_argument nil = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = null_value};
    ce_query_argument no_bytes = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("")};
    CHECK(count_of(txn, table, "s CONTAINS $0", &empty, 1) == 0);
    CHECK(count_of(txn, table, "s BEGINSWITH[c] $0", &empty, 1) == 0);
    CHECK(count_of(txn, table, "s ENDSWITH $0", &nil, 1) == 0);
    CHECK(count_of(txn, table, "bin CONTAINS $0", &no_bytes, 1) == 0);
    /* NOT of nothing is everything. */
    EXPECT_COUNT(txn, table, "NOT s CONTAINS ''", 3);
    /* A non-empty needle: the other row's empty string is no match, nor nil. */
    EXPECT_COUNT(txn, table, "s CONTAINS 'b'", 1);
    /* LIKE: '' matches the empty string only, nil the null only. */
    EXPECT_COUNT(txn, table, "s LIKE ''", 1);
    EXPECT_COUNT(txn, table, "s LIKE[c] ''", 1);
    EXPECT_COUNT(txn, table, "s LIKE nil", 1);
    EXPECT_COUNT(txn, table, "s LIKE[c] NULL", 1);
    EXPECT_COUNT(txn, table, "bin LIKE B64\"\"", 1);
    EXPECT_COUNT(txn, table, "bin LIKE nil", 1);
    EXPECT_COUNT(txn, table, "s LIKE '*'", 2);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* nil with every operator; nulls on both sides                              */
/* ------------------------------------------------------------------------ */

/*
 * realm-core's conditions (src/realm/query_conditions.hpp): Equal, and
 * also LessEqual and GreaterEqual, are true when both sides are null ("if
 * (v1null && v2null) return true"); Less and Greater are false with a null
 * on either side; NotEqual is false only when both are null. Realm Swift
 * passes nil through to them for every operator (RLMQueryUtil.mm,
 * convert_null), so `i <= nil` matches the nulls, `i < nil` nothing.
 *
 * Rows (a, b, req): (nil, nil, 1), (1, 1, 2), (nil, 2, 3), (3, nil, 4).
 */
TEST(nulls_on_both_sides_and_nil_operators)
{
    test_db t = test_db_open("query-rules-nulls");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Pair", &table));
    ce_column_key a = add_property(txn, table, "a", CE_TYPE_INT, true, 0);
    ce_column_key b = add_property(txn, table, "b", CE_TYPE_INT, true, 0);
    ce_column_key req = add_property(txn, table, "req", CE_TYPE_INT, false, 0);
    ce_column_key when = add_property(txn, table, "when", CE_TYPE_TIMESTAMP, true, 0);
    ce_column_key name = add_property(txn, table, "name", CE_TYPE_STRING, true, 0);
    int64_t rows[4][2] = {{-1, -1}, {1, 1}, {-1, 2}, {3, -1}}; /* -1: nil */
    for (int r = 0; r < 4; r++) {
        ce_object_key object;
        ce_value va = rows[r][0] < 0 ? null_value : (ce_value){.type = CE_TYPE_INT, .integer = rows[r][0]};
        ce_value vb = rows[r][1] < 0 ? null_value : (ce_value){.type = CE_TYPE_INT, .integer = rows[r][1]};
        ce_value vr = {.type = CE_TYPE_INT, .integer = r + 1};
        ce_value vt = rows[r][0] < 0 ? null_value : (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {rows[r][0], 0}};
        ce_value vn = rows[r][0] < 0 ? null_value : text_value("n");
        CHECK(ce_object_create(txn, table, NULL, &object) && ce_object_set(txn, table, object, a, &va) &&
              ce_object_set(txn, table, object, b, &vb) && ce_object_set(txn, table, object, req, &vr) &&
              ce_object_set(txn, table, object, when, &vt) && ce_object_set(txn, table, object, name, &vn));
    }
    /* Property against property. */
    EXPECT_COUNT(txn, table, "a <= b", 2); /* nil <= nil, 1 <= 1 */
    EXPECT_COUNT(txn, table, "a >= b", 2);
    EXPECT_COUNT(txn, table, "a == b", 2);
    EXPECT_COUNT(txn, table, "a < b", 0);
    EXPECT_COUNT(txn, table, "a > b", 0);
    EXPECT_COUNT(txn, table, "a != b", 2);
    EXPECT_COUNT(txn, table, "a =< b", 2);
    EXPECT_COUNT(txn, table, "b => a", 2);
    /* Property against nil, both ways round. */
    EXPECT_COUNT(txn, table, "a <= nil", 2);
    EXPECT_COUNT(txn, table, "a >= NULL", 2);
    EXPECT_COUNT(txn, table, "a < nil", 0);
    EXPECT_COUNT(txn, table, "a > nil", 0);
    EXPECT_COUNT(txn, table, "nil >= a", 2);
    EXPECT_COUNT(txn, table, "nil < a", 0);
    EXPECT_COUNT(txn, table, "when <= nil", 2);
    EXPECT_COUNT(txn, table, "when > nil", 0);
    EXPECT_COUNT(txn, table, "name <= nil", 2);
    EXPECT_COUNT(txn, table, "name LIKE nil", 2);
    EXPECT_COUNT(txn, table, "name BEGINSWITH nil", 0);
    EXPECT_COUNT(txn, table, "a BETWEEN {nil, 5}", 0); /* a >= nil AND a <= 5: the nulls fail the second */
    ce_query_argument nil = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = null_value};
    CHECK(count_of(txn, table, "a <= $0", &nil, 1) == 2);
    CHECK(count_of(txn, table, "a < %@", &nil, 1) == 0);
    /* A required property holds no null. */
    EXPECT_COUNT(txn, table, "req <= nil", 0);
    EXPECT_COUNT(txn, table, "req >= nil", 0);
    EXPECT_COUNT(txn, table, "req != nil", 4);
    /* Constants on both sides fold the same way. */
    EXPECT_COUNT(txn, table, "nil <= nil", 4);
    EXPECT_COUNT(txn, table, "nil < nil", 0);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Numbers against a float property                                          */
/* ------------------------------------------------------------------------ */

/*
 * Realm Swift unboxes a value compared with a float property as a float
 * (Realm/RLMQueryUtil.mm, value_of_type<float>: RLMStatelessAccessorContext
 * unbox<float>, [NSNumber floatValue]) before realm-core compares: `f ==
 * 0.1` holds for 0.1f, `f < 2.3` does not hold for 2.3f.
 *
 * Rows f: 0.1f, 2.3f, 16777216.0f; list fs: [0.1f].
 */
TEST(double_constants_against_float_properties)
{
    test_db t = test_db_open("query-rules-floats");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Measure", &table));
    ce_column_key f = add_property(txn, table, "f", CE_TYPE_FLOAT, false, 0);
    ce_column_key of = add_property(txn, table, "of", CE_TYPE_FLOAT, true, 0);
    ce_property_info list_info = {.name = "fs", .type = CE_TYPE_FLOAT, .collection = CE_COLLECTION_LIST};
    ce_column_key fs;
    CHECK(ce_property_add(txn, table, &list_info, &fs));
    float rows[3] = {0.1f, 2.3f, 16777216.0f};
    for (int r = 0; r < 3; r++) {
        ce_object_key object;
        ce_value value = {.type = CE_TYPE_FLOAT, .float_value = rows[r]};
        CHECK(ce_object_create(txn, table, NULL, &object) && ce_object_set(txn, table, object, f, &value) &&
              ce_object_set(txn, table, object, of, &value));
        if (r == 0) {
            ce_collection *list;
            CHECK(ce_collection_open(txn, table, object, fs, &list) && ce_list_insert(list, 0, &value));
            ce_collection_close(list);
        }
    }
    EXPECT_COUNT(txn, table, "f == 0.1", 1);
    EXPECT_COUNT(txn, table, "of == 0.1", 1);
    EXPECT_COUNT(txn, table, "0.1 == f", 1);
    EXPECT_COUNT(txn, table, "f != 0.1", 2);
    EXPECT_COUNT(txn, table, "f < 2.3", 1);
    EXPECT_COUNT(txn, table, "f <= 2.3", 2);
    EXPECT_COUNT(txn, table, "f >= 2.3", 2);
    EXPECT_COUNT(txn, table, "f > 2.3", 1);
    EXPECT_COUNT(txn, table, "f IN {0.1, 2.3}", 2);
    EXPECT_COUNT(txn, table, "f BETWEEN {0.1, 2.3}", 2);
    EXPECT_COUNT(txn, table, "ANY fs == 0.1", 1);
    EXPECT_COUNT(txn, table, "ANY fs IN {0.1}", 1);
    /* An int is made a float too: 16777217 is 16777216.0f. */
    EXPECT_COUNT(txn, table, "f == 16777217", 1);
    ce_query_argument tenth = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_DOUBLE, .double_value = 0.1}};
    CHECK(count_of(txn, table, "f == $0", &tenth, 1) == 1);
    ce_value pair[2] = {{.type = CE_TYPE_DOUBLE, .double_value = 0.1}, {.type = CE_TYPE_DOUBLE, .double_value = 2.3}};
    ce_query_argument list = {.kind = CE_QUERY_ARGUMENT_LIST, .list = pair, .list_count = 2};
    CHECK(count_of(txn, table, "f IN $0", &list, 1) == 2);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Sort and distinct through a missing to-one link                           */
/* ------------------------------------------------------------------------ */

static void expect_order(ce_txn *txn, ce_results *results, const ce_object_key *expected, size_t count)
{
    size_t got;
    CHECK(ce_results_count(results, txn, &got) && got == count);
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        CHECK(ce_results_get(results, txn, i, &key));
        if (key != expected[i]) {
            fprintf(stderr, "position %zu: object %lld, expected %lld\n", i, (long long)key, (long long)expected[i]);
            exit(1);
        }
    }
}

/*
 * realm-core's sorter (src/realm/sort_descriptor.cpp, Sorter::operator()):
 * "Sort null links at the end if m_ascending[t], else at beginning"; a
 * null value (the link is there, its property is nil) is the smallest
 * value, first when ascending. Its distinct: "Remove all rows which have a
 * null link along the way to the distinct columns".
 *
 * Owners: o0 -> pet (v = nil), o1 -> pet (v = 5), o2 -> no pet,
 * o3 -> pet (v = 5).
 */
TEST(sort_and_distinct_through_missing_links)
{
    test_db t = test_db_open("query-rules-links");
    ce_txn *txn;
    ce_table_key pets, owners;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Pet", &pets) && ce_table_add(txn, "Owner", &owners));
    ce_column_key v = add_property(txn, pets, "v", CE_TYPE_INT, true, 0);
    ce_column_key pet = add_property(txn, owners, "pet", CE_TYPE_LINK, true, pets);
    ce_column_key rank = add_property(txn, owners, "rank", CE_TYPE_DOUBLE, false, 0);
    ce_object_key o[4];
    int64_t values[4] = {-1, 5, 0, 5}; /* -1: nil */
    for (int i = 0; i < 4; i++) {
        CHECK(ce_object_create(txn, owners, NULL, &o[i]));
        ce_value r = {.type = CE_TYPE_DOUBLE, .double_value = 4 - i};
        CHECK(ce_object_set(txn, owners, o[i], rank, &r));
        if (i == 2) continue;
        ce_object_key p;
        ce_value value = values[i] < 0 ? null_value : (ce_value){.type = CE_TYPE_INT, .integer = values[i]};
        ce_value link = {.type = CE_TYPE_LINK, .link = {pets, 0}};
        CHECK(ce_object_create(txn, pets, NULL, &p) && ce_object_set(txn, pets, p, v, &value));
        link.link.key = p;
        CHECK(ce_object_set(txn, owners, o[i], pet, &link));
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *query;
    ce_results *all, *sorted, *distinct;
    CHECK(ce_query_parse(txn, owners, "TRUEPREDICATE", NULL, 0, &query) && ce_query_find_all(query, &all));
    ce_sort_key up = {"pet.v", true}, down = {"pet.v", false};
    CHECK(ce_results_sort(txn, all, &up, 1, &sorted));
    expect_order(txn, sorted, (ce_object_key[]){o[0], o[1], o[3], o[2]}, 4);
    ce_results_free(sorted);
    CHECK(ce_results_sort(txn, all, &down, 1, &sorted));
    expect_order(txn, sorted, (ce_object_key[]){o[2], o[1], o[3], o[0]}, 4);
    ce_results_free(sorted);
    /* Two keys: the missing link ties with itself, the next key decides. */
    ce_sort_key two[2] = {{"pet.v", true}, {"rank", true}};
    CHECK(ce_results_sort(txn, all, two, 2, &sorted));
    expect_order(txn, sorted, (ce_object_key[]){o[0], o[3], o[1], o[2]}, 4);
    ce_results_free(sorted);
    /* In the predicate's SORT too. */
    ce_query *in_text;
    CHECK(ce_query_parse(txn, owners, "TRUEPREDICATE SORT(pet.v DESC)", NULL, 0, &in_text) &&
          ce_query_find_all(in_text, &sorted));
    expect_order(txn, sorted, (ce_object_key[]){o[2], o[1], o[3], o[0]}, 4);
    ce_results_free(sorted);
    ce_query_free(in_text);
    const char *by_value[] = {"pet.v"};
    CHECK(ce_results_distinct(txn, all, by_value, 1, &distinct));
    expect_order(txn, distinct, (ce_object_key[]){o[0], o[1]}, 2);
    ce_results_free(distinct);
    ce_results_free(all);
    ce_query_free(query);
    ce_txn_end(txn);
    test_db_close(&t);
}

/*
 * The order of strings: Unicode code point order, which for UTF-8 is the
 * order of the bytes as unsigned values. realm-core 14.0.0 (CHANGELOG.md,
 * 14.0.0-beta.0, Breaking changes): "Sorting order of strings has changed
 * to use standard unicode codepoint order instead of grouping similar
 * english letters together. A noticeable change will be from "aAbBzZ" to
 * "ABZabz"" (realm-core#2573, PR #6670, which dropped utf8_compare's
 * collation table from sorting); 13.27.0 made string <, <=, >, >= "a case
 * sensitive lexicographical comparison" (realm-core#3939).
 *
 * Rows name: a, A, b, B, z, Z, é (U+00E9).
 */
TEST(strings_order_by_code_point)
{
    test_db t = test_db_open("query-rules-string-order");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Word", &table));
    ce_column_key name = add_property(txn, table, "name", CE_TYPE_STRING, false, 0);
    const char *names[] = {"a", "A", "b", "B", "z", "Z", "\xC3\xA9"};
    ce_object_key o[7];
    for (int i = 0; i < 7; i++) {
        ce_value value = text_value(names[i]);
        CHECK(ce_object_create(txn, table, NULL, &o[i]) && ce_object_set(txn, table, o[i], name, &value));
    }
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query *query;
    ce_results *sorted;
    CHECK(ce_query_parse(txn, table, "TRUEPREDICATE SORT(name ASC)", NULL, 0, &query) &&
          ce_query_find_all(query, &sorted));
    /* "ABZabz", then é: not "aAbBzZ" (utf8_compare's table before 14). */
    expect_order(txn, sorted, (ce_object_key[]){o[1], o[3], o[5], o[0], o[2], o[4], o[6]}, 7);
    ce_results_free(sorted);
    ce_query_free(query);
    EXPECT_COUNT(txn, table, "name < 'a'", 3);             /* A B Z */
    EXPECT_COUNT(txn, table, "name > 'z'", 1);             /* é */
    EXPECT_COUNT(txn, table, "name BETWEEN {'B', 'b'}", 4); /* B Z a b */
    EXPECT_COUNT(txn, table, "name >= 'Z' AND name <= 'a'", 2);
    ce_txn_end(txn);
    test_db_close(&t);
}

/*
 * A null string orders before every string, the empty string too:
 * realm-core's operator< of StringData (src/realm/string_data.hpp: "Null
 * strings are smaller than all other strings, and not equal to empty
 * strings"), which its string queries <, <=, >, >= follow since realm-core
 * PR 7273 ("Lexicographical comparison for string queries"). So for a
 * string property of the queried object (or of a SUBQUERY's variable)
 * against a non-null string, `s < 'a'` and `s <= 'a'` match a null s and
 * `s > 'a'`, `s >= 'a'` do not; `'a' > s` is `s < 'a'`. The engine matched
 * no null by an ordering. Unchanged (README.md, "Differences from Realm
 * Swift"): nil on the other side, paths through links and lists, and two
 * properties, where a null still matches no ordering.
 *
 * Rows r0..r3: s (and si, indexed) = nil, '', 'a', 'b'; other = 'a';
 * link = r0; links = [the row itself].
 */
TEST(null_string_below_every_string)
{
    test_db t = test_db_open("query-rules-null-string-first");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Word", &table));
    ce_column_key s = add_property(txn, table, "s", CE_TYPE_STRING, true, 0);
    ce_property_info si_info = {.name = "si", .type = CE_TYPE_STRING, .nullable = true, .indexed = true};
    ce_column_key si;
    CHECK(ce_property_add(txn, table, &si_info, &si));
    ce_column_key other = add_property(txn, table, "other", CE_TYPE_STRING, true, 0);
    ce_column_key link = add_property(txn, table, "link", CE_TYPE_LINK, true, table);
    ce_property_info links_info = {.name = "links", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                                   .link_target = table};
    ce_column_key links;
    CHECK(ce_property_add(txn, table, &links_info, &links));
    ce_value rows[4] = {null_value, text_value(""), text_value("a"), text_value("b")};
    ce_value a = text_value("a");
    ce_object_key o[4];
    for (int r = 0; r < 4; r++)
        CHECK(ce_object_create(txn, table, NULL, &o[r]) && ce_object_set(txn, table, o[r], s, &rows[r]) &&
              ce_object_set(txn, table, o[r], si, &rows[r]) && ce_object_set(txn, table, o[r], other, &a));
    for (int r = 0; r < 4; r++) {
        ce_value first = {.type = CE_TYPE_LINK, .link = {table, o[0]}};
        ce_value self = {.type = CE_TYPE_LINK, .link = {table, o[r]}};
        ce_collection *list;
        CHECK(ce_object_set(txn, table, o[r], link, &first) && ce_collection_open(txn, table, o[r], links, &list));
        CHECK(ce_list_insert(list, 0, &self));
        ce_collection_close(list);
    }
    static const struct {
        const char *predicate;
        size_t count;
    } cases[] = {
        /* The property on the left: nil counts below 'a' and below ''. */
        {"s < 'a'", 2}, {"s <= 'a'", 3}, {"s > 'a'", 1}, {"s >= 'a'", 2},
        {"s < ''", 1}, {"s <= ''", 2}, {"s > ''", 2}, {"s >= ''", 3},
        {"si < 'a'", 2}, {"si <= 'a'", 3}, {"si > 'a'", 1}, {"si >= ''", 3},
        /* The constant on the left: mirrored. */
        {"'a' > s", 2}, {"'a' >= s", 3}, {"'a' < s", 1}, {"'a' <= s", 2}, {"'' > si", 1},
        {"NOT (s < 'a')", 2}, {"s < 'a' AND s != nil", 1},
        /* Inside a SUBQUERY: the variable's own string. */
        {"SUBQUERY(links, $x, $x.s < 'a').@count == 1", 2},
        {"SUBQUERY(links, $x, $x.s <= 'a').@count == 1", 3},
        {"SUBQUERY(links, $x, $x.s > 'a').@count == 1", 1},
        {"SUBQUERY(links, $x, 'a' > $x.s).@count == 1", 2},
        {"SUBQUERY(links, $x, $x.s >= '').@count == 1", 3},
        /* Unchanged: nil, links and lists, two properties, ==, !=. */
        {"s < nil", 0}, {"s <= nil", 1}, {"s > nil", 0},
        {"link.s < 'a'", 0}, {"link.s <= 'a'", 0}, {"link.s >= ''", 0},
        {"ANY links.s < 'a'", 1}, {"ANY links.s <= 'a'", 2},
        {"SUBQUERY(links, $x, $x.link.s < 'a').@count == 1", 0},
        {"s < other", 1}, {"s <= other", 2}, {"other > s", 1},
        {"s == 'a'", 1}, {"s != 'a'", 3}, {"s == ''", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) EXPECT_COUNT(txn, table, cases[i].predicate, cases[i].count);
    /* An argument is a constant too. */
    ce_query_argument arg = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text_value("a")};
    CHECK(count_of(txn, table, "s < $0", &arg, 1) == 2);
    CHECK(count_of(txn, table, "$0 > s", &arg, 1) == 2);
    CHECK(count_of(txn, table, "s >= $0", &arg, 1) == 2);
    CHECK(count_of(txn, table, "SUBQUERY(links, $x, $x.s <= $0).@count == 1", &arg, 1) == 3);
    /* [c] and [d] take no ordering (Realm Swift's words). */
    expect_error_containing(txn, table, "s <[c] 'a'", NULL, 0, "Lexicographical comparisons must be case-sensitive");
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Literals                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Dates before 1970: realm-core's query parser (src/realm/parser, the
 * YYYY-MM-DD@HH:MM:SS:NS conversion) takes the seconds from timegm and
 * "seconds determines the sign of the nanoseconds part": 1969-12-31@23:59:59:1
 * is T-1:-1 (-1.000000001 s). Signed NaN: realm-core's lexer
 * (src/realm/parser/query_flex.ll) reads `[+-]?(?i:nan)` as NaN. Dates
 * before 1900: refused by the same conversion.
 */
TEST(pre_1970_dates_and_signed_nan)
{
    test_db t = test_db_open("query-rules-literals");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Moment", &table));
    ce_column_key when = add_property(txn, table, "when", CE_TYPE_TIMESTAMP, false, 0);
    ce_column_key d = add_property(txn, table, "d", CE_TYPE_DOUBLE, false, 0);
    ce_timestamp moments[3] = {{-1, -1}, {0, -999999999}, {-2, -999999999}};
    double reals[3] = {NAN, 1.0, -INFINITY};
    for (int i = 0; i < 3; i++) {
        ce_object_key object;
        ce_value w = {.type = CE_TYPE_TIMESTAMP, .timestamp = moments[i]};
        ce_value r = {.type = CE_TYPE_DOUBLE, .double_value = reals[i]};
        CHECK(ce_object_create(txn, table, NULL, &object) && ce_object_set(txn, table, object, when, &w) &&
              ce_object_set(txn, table, object, d, &r));
    }
    EXPECT_COUNT(txn, table, "when == 1969-12-31@23:59:59:1", 1);
    EXPECT_COUNT(txn, table, "when == T-1:-1", 1);
    EXPECT_COUNT(txn, table, "when == 1969-12-31@23:59:58:999999999", 1); /* T-2:-999999999 */
    EXPECT_COUNT(txn, table, "when < 1969-12-31@23:59:59:1", 1);
    EXPECT_COUNT(txn, table, "when == 1969-12-31T23:59:59:0", 0); /* T-1:0 */
    EXPECT_COUNT(txn, table, "when == 1970-01-01@00:00:00:1", 0); /* T0:1 */
    EXPECT_COUNT(txn, table, "d == -NaN", 1);
    EXPECT_COUNT(txn, table, "d == +nan", 1);
    EXPECT_COUNT(txn, table, "d == nan", 1);
    EXPECT_COUNT(txn, table, "d == -inf", 1);
    EXPECT_COUNT(txn, table, "d < -nan", 0);
    /* Before 1900 (realm-core: "Conversion of dates before 1900 is not
     * supported."); 1900 itself and a timestamp before it are taken. */
    ce_query *refused = NULL;
    CHECK(!ce_query_parse(txn, table, "when > 1899-12-31@23:59:59", NULL, 0, &refused) && !refused);
    CHECK(ce_last_error_code() == CE_ERR_INVALID_QUERY);
    CHECK(strstr(ce_last_error_message(), "Conversion of dates before 1900 is not supported.") != NULL);
    CHECK(!ce_query_parse(txn, table, "when == 0001-01-01T00:00:00", NULL, 0, &refused));
    EXPECT_COUNT(txn, table, "when > 1900-01-01@00:00:00", 3);
    EXPECT_COUNT(txn, table, "when > T-2208988801:0", 3); /* 1899-12-31@23:59:59 */
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/*
 * Realm Swift refuses nil compared with a property that cannot hold null,
 * and a fractional number with an int property (RLMQueryUtil.mm,
 * validate_property_value: "Expected object of type %@ for property '%@' on
 * object of type '%@', but received: %@"): with
 * ce_query_options.realm_swift_values the engine does too, for every
 * operator and either side; nullable properties, mixed values, links,
 * lengths and aggregates still take nil, and ce_query_parse keeps its rule
 * (no object matches, every object with !=).
 */
TEST(realm_swift_refuses_nil_for_required)
{
    test_db t = test_db_open("query-rules-required-nil");
    ce_txn *txn;
    ce_table_key table, dogs;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Person", &table) && ce_table_add(txn, "Dog", &dogs));
    add_property(txn, table, "age", CE_TYPE_INT, false, 0);
    add_property(txn, table, "when", CE_TYPE_TIMESTAMP, false, 0);
    add_property(txn, table, "oid", CE_TYPE_OBJECT_ID, false, 0);
    add_property(txn, table, "name", CE_TYPE_STRING, true, 0);
    add_property(txn, table, "anything", CE_TYPE_MIXED, true, 0);
    add_property(txn, table, "dog", CE_TYPE_LINK, true, dogs);
    add_property(txn, dogs, "age", CE_TYPE_INT, false, 0);
    ce_object_key object;
    CHECK(ce_object_create(txn, table, NULL, &object));
    ce_query_options swift = {.realm_swift_values = true};
    static const struct {
        const char *predicate, *message;
    } refused[] = {
        {"age == nil", "Expected object of type int for property 'age' on object of type 'Person', but received: (null)"},
        {"nil != age", "Expected object of type int for property 'age'"},
        {"age > $0", "Expected object of type int for property 'age'"},
        {"when < nil", "Expected object of type date for property 'when'"},
        {"oid == nil", "Expected object of type object id for property 'oid'"},
        {"dog.age == nil", "Expected object of type int for property 'dog.age' on object of type 'Person'"},
        {"age > 2.5", "Expected object of type int for property 'age' on object of type 'Person', but received: 2.5"},
        {"3.0 == age", "Expected object of type int for property 'age' on object of type 'Person', but received: 3"},
        /* IN {...} is ORed == for Realm Swift, each element checked (RLMQueryUtil.mm,
         * apply_value_expression: "... in IN clause for property ..."). */
        {"age IN {1, nil}", "Expected object of type int in IN clause for property 'age' on object of type 'Person', but received: (null)"},
        {"age IN {nil}", "Expected object of type int in IN clause for property 'age'"},
        {"dog.age IN {2.5, 1}", "Expected object of type int in IN clause for property 'dog.age' on object of type 'Person', but received: 2.5"},
    };
    ce_query_argument null_argument = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_NULL}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        ce_query *query = NULL;
        bool parsed = ce_query_parse_with(txn, table, refused[i].predicate, &null_argument, 1, &swift, &query);
        if (parsed || query || ce_last_error_code() != CE_ERR_INVALID_QUERY ||
            !strstr(ce_last_error_message(), refused[i].message)) {
            fprintf(stderr, "'%s': %s\n", refused[i].predicate, parsed ? "parsed" : ce_last_error_message());
            exit(1);
        }
    }
    static const char *taken[] = {"name == nil", "anything == nil", "dog == nil", "name.@size == 0 OR name == nil",
                                  "age < 2 AND age >= 0", "anything != 2.5"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        ce_query *query = NULL;
        CHECK(ce_query_parse_with(txn, table, taken[i], NULL, 0, &swift, &query));
        size_t count;
        CHECK(ce_query_count(query, txn, &count) && count == 1);
        ce_query_free(query);
    }
    EXPECT_COUNT(txn, table, "age == nil", 0);
    EXPECT_COUNT(txn, table, "age != nil", 1);
    /* realm-core's parser (query_ast.cpp, ListNode::visit) keeps nil in a
     * constant list as a null element; EqualityNode compares the list
     * element by element, and a required column holds no null: nil matches
     * nothing, the other elements still match. */
    EXPECT_COUNT(txn, table, "age IN {0, nil}", 1);
    EXPECT_COUNT(txn, table, "age IN {nil}", 0);
    EXPECT_COUNT(txn, table, "NOT age IN {nil, 5}", 1);
    EXPECT_COUNT(txn, table, "name IN {nil}", 1);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/*
 * Realm Swift (RLMQueryUtil.mm, add_link_constraint): nil or an object that
 * is not stored, compared with a collection of objects, "effectively checks
 * if there are any objects in the array": `dogs == nil` and
 * `ANY dogs == <unmanaged>` match the objects whose list is empty, != the
 * others. With ce_query_options.realm_swift_values; a link to a stored
 * object keeps its meaning.
 */
TEST(realm_swift_no_object_in_a_collection)
{
    test_db t = test_db_open("query-rules-no-object");
    ce_txn *txn;
    ce_table_key people, dogs;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Person", &people) && ce_table_add(txn, "Dog", &dogs));
    add_property(txn, dogs, "age", CE_TYPE_INT, false, 0);
    ce_property_info list_info = {.name = "dogs", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                                  .link_target = dogs};
    ce_column_key dogs_column;
    CHECK(ce_property_add(txn, people, &list_info, &dogs_column));
    ce_object_key rex, empty, owner;
    CHECK(ce_object_create(txn, dogs, NULL, &rex) && ce_object_create(txn, people, NULL, &empty) &&
          ce_object_create(txn, people, NULL, &owner));
    ce_collection *list;
    ce_value link = {.type = CE_TYPE_LINK, .link = {dogs, rex}};
    CHECK(ce_collection_open(txn, people, owner, dogs_column, &list) && ce_list_insert(list, 0, &link));
    ce_collection_close(list);
    ce_query_options swift = {.realm_swift_values = true};
    ce_query_argument unstored = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_LINK, .link = {0, -1}}};
    ce_query_argument stored = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = link};
    static const struct {
        const char *predicate;
        bool stored;
        size_t count;
    } cases[] = {
        {"dogs == nil", false, 1},       {"ANY dogs == nil", false, 1},  {"dogs != nil", false, 1},
        {"ANY dogs == $0", false, 1},    {"ANY dogs != $0", false, 1},   {"NOT (dogs == $0)", false, 1},
        {"ANY dogs == $0", true, 1},     {"ANY dogs != $0", true, 0},    {"dogs.@count == 0", false, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ce_query *query;
        size_t count = 0;
        CHECK(ce_query_parse_with(txn, people, cases[i].predicate, cases[i].stored ? &stored : &unstored, 1, &swift, &query));
        CHECK(ce_query_count(query, txn, &count));
        ce_query_free(query);
        if (count != cases[i].count) {
            fprintf(stderr, "'%s' (%s object): %zu, expected %zu\n", cases[i].predicate,
                    cases[i].stored ? "a stored" : "no", count, cases[i].count);
            exit(1);
        }
    }
    /* Matches the empty list: the one without Rex. */
    ce_query *query;
    ce_object_key first;
    bool found;
    CHECK(ce_query_parse_with(txn, people, "ANY dogs == $0", &unstored, 1, &swift, &query));
    CHECK(ce_query_find_first(query, txn, &first, &found) && found && first == empty);
    ce_query_free(query);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Mixed values: a string needle in a binary                                 */
/* ------------------------------------------------------------------------ */

/*
 * realm-core's string operators on mixed values (src/realm/query_conditions.hpp,
 * the QueryValue overloads of Contains, BeginsWith, EndsWith, Like and
 * ContainsIns, BeginsWithIns, EndsWithIns, LikeIns) take a string with a
 * string or a binary with a binary and are false otherwise; Equal and
 * EqualIns compare a string with a binary as bytes
 * (Mixed::types_are_comparable, src/realm/mixed.cpp; EqualIns falls back to
 * `m1 == m2`, unfolded). Found by the differential query test
 * (python/tests/test_query_differential.py).
 *
 * Rows of m: binary 'abc', string 'abc', string 'ABC', int 1.
 */
TEST(mixed_string_operators_take_one_kind)
{
    test_db t = test_db_open("query-rules-mixed-text");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Any", &table));
    ce_column_key m = add_property(txn, table, "m", CE_TYPE_MIXED, true, 0);
    ce_value rows[4] = {bytes_value("abc"), text_value("abc"), text_value("ABC"), {.type = CE_TYPE_INT, .integer = 1}};
    for (int r = 0; r < 4; r++) {
        ce_object_key object;
        CHECK(ce_object_create(txn, table, NULL, &object) && ce_object_set(txn, table, object, m, &rows[r]));
    }
    EXPECT_COUNT(txn, table, "m BEGINSWITH 'a'", 1);
    EXPECT_COUNT(txn, table, "m ENDSWITH 'c'", 1);
    EXPECT_COUNT(txn, table, "m CONTAINS 'b'", 1);
    EXPECT_COUNT(txn, table, "m LIKE 'a*'", 1);
    EXPECT_COUNT(txn, table, "m CONTAINS[c] 'B'", 2);
    EXPECT_COUNT(txn, table, "m LIKE[c] '*B*'", 2);
    EXPECT_COUNT(txn, table, "m BEGINSWITH B64\"YQ==\"", 1); /* binary 'a' finds the binary only */
    ce_query_argument a = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("a")};
    CHECK(count_of(txn, table, "m BEGINSWITH $0", &a, 1) == 1);
    ce_query_argument haystack = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text_value("xabcx")};
    CHECK(count_of(txn, table, "$0 CONTAINS m", &haystack, 1) == 1); /* the string 'abc' only */
    /* == compares a string with a binary as bytes; ==[c] folds two strings only. */
    EXPECT_COUNT(txn, table, "m == 'abc'", 2);
    EXPECT_COUNT(txn, table, "m ==[c] 'abc'", 3);
    EXPECT_COUNT(txn, table, "m ==[c] 'ABC'", 2);
    EXPECT_COUNT(txn, table, "m != 'abc'", 2);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* A number literal against decimals, whatever the path                      */
/* ------------------------------------------------------------------------ */

/*
 * realm-core reads a constant with the other side's type as its hint
 * (src/realm/parser/driver.cpp, ConstantNode::visit: a number with hint
 * type_Decimal is Decimal128(text)), so `0.1` against decimals is the
 * decimal 0.1, not the double nearest 0.1, through links, in lists, in
 * dictionaries and in `IN`; an argument is the double it holds
 * (Decimal128(double)). Found by the differential query test
 * (python/tests/test_query_differential.py): the engine read the literal as
 * text only for a decimal property of the object itself.
 *
 * Rows: d = 0.1, with decimals = [0.1, 7] and a link to itself; d = 2,
 * decimals = [] and no link.
 */
TEST(decimal_literals_through_every_path)
{
    test_db t = test_db_open("query-rules-decimal-literals");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Money", &table));
    ce_column_key d = add_property(txn, table, "d", CE_TYPE_DECIMAL128, false, 0);
    ce_column_key link = add_property(txn, table, "link", CE_TYPE_LINK, true, table);
    ce_property_info list_info = {.name = "decimals", .type = CE_TYPE_DECIMAL128, .collection = CE_COLLECTION_LIST};
    ce_column_key decimals;
    CHECK(ce_property_add(txn, table, &list_info, &decimals));
    ce_value tenth = {.type = CE_TYPE_DECIMAL128}, seven = {.type = CE_TYPE_DECIMAL128}, two = {.type = CE_TYPE_DECIMAL128};
    CHECK(ce_decimal128_from_string("0.1", &tenth.decimal) && ce_decimal128_from_string("7", &seven.decimal) &&
          ce_decimal128_from_string("2", &two.decimal));
    ce_object_key first, second;
    CHECK(ce_object_create(txn, table, NULL, &first) && ce_object_set(txn, table, first, d, &tenth) &&
          ce_object_create(txn, table, NULL, &second) && ce_object_set(txn, table, second, d, &two));
    ce_value self = {.type = CE_TYPE_LINK, .link = {table, first}};
    CHECK(ce_object_set(txn, table, first, link, &self));
    ce_collection *list;
    CHECK(ce_collection_open(txn, table, first, decimals, &list) && ce_list_insert(list, 0, &tenth) &&
          ce_list_insert(list, 1, &seven));
    ce_collection_close(list);
    EXPECT_COUNT(txn, table, "d == 0.1", 1);
    EXPECT_COUNT(txn, table, "link.d == 0.1", 1);
    EXPECT_COUNT(txn, table, "decimals == 0.1", 1);
    EXPECT_COUNT(txn, table, "ALL decimals != 0.1", 1); /* the second's empty list */
    EXPECT_COUNT(txn, table, "ANY decimals IN {0.1, 3}", 1);
    EXPECT_COUNT(txn, table, "decimals == {0.1, 7}", 1); /* element by element (test_query_rules lists_in_order) */
    EXPECT_COUNT(txn, table, "0.1 IN decimals", 1);
    EXPECT_COUNT(txn, table, "decimals.@min == 0.1", 1);
    EXPECT_COUNT(txn, table, "decimals.@sum == 7.1", 1);
    EXPECT_COUNT(txn, table, "link.d BETWEEN {0.1, 0.1}", 1);
    /* An argument is the double nearest 0.1, which no decimal 0.1 equals. */
    ce_query_argument double_tenth = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_DOUBLE, .double_value = 0.1}};
    CHECK(count_of(txn, table, "decimals == $0", &double_tenth, 1) == 0);
    CHECK(count_of(txn, table, "link.d == $0", &double_tenth, 1) == 0);
    CHECK(count_of(txn, table, "link.d < $0", &double_tenth, 1) == 1); /* 0.1 < 0.1000000000000000055... */
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* [c] on binaries                                                           */
/* ------------------------------------------------------------------------ */

/*
 * realm-core takes [c] with a binary on the right (src/realm/parser/driver.cpp,
 * verify_only_string_types: "right side must be a string or binary type"),
 * and EqualityNode::visit and StringOpsNode::visit pass case_sensitive on to
 * Query::equal, begins_with, ends_with, contains and like of a binary
 * column: the bytes compare case-insensitively, as text. Its parser has
 * no [d], which stays refused for binaries. The engine refused [c] on a
 * binary ("[c] and [d] compare strings"). Found by the differential query
 * test (python/tests/test_query_differential.py). Between two binary
 * properties the same: EqualityNode::visit and StringOpsNode::visit check
 * only the right side's type and build EqualIns, BeginsWithIns, ... over
 * the two columns; the engine still refused [c] there until the same fix
 * reached two properties (bind_predicate.c, folds_both_sides). A binary
 * and a string property stay refused, as do [d] and orderings with [c].
 *
 * Rows: bin = 'abc', 'ABC', 'xyz', nil, each with a link to the first;
 * other = 'ABC', 'abc', 'XY', nil; s = 'abc' in each.
 */
TEST(binary_case_insensitive)
{
    test_db t = test_db_open("query-rules-binary-case");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Blob", &table));
    ce_column_key bin = add_property(txn, table, "bin", CE_TYPE_BINARY, true, 0);
    ce_column_key link = add_property(txn, table, "link", CE_TYPE_LINK, true, table);
    ce_value rows[4] = {bytes_value("abc"), bytes_value("ABC"), bytes_value("xyz"), null_value};
    ce_object_key objects[4];
    for (int r = 0; r < 4; r++)
        CHECK(ce_object_create(txn, table, NULL, &objects[r]) && ce_object_set(txn, table, objects[r], bin, &rows[r]));
    ce_value first = {.type = CE_TYPE_LINK, .link = {table, objects[0]}};
    for (int r = 0; r < 4; r++) CHECK(ce_object_set(txn, table, objects[r], link, &first));
    ce_query_argument upper = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("aBC")};
    ce_query_argument b = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("B")};
    CHECK(count_of(txn, table, "bin == $0", &upper, 1) == 0);
    CHECK(count_of(txn, table, "bin ==[c] $0", &upper, 1) == 2);
    CHECK(count_of(txn, table, "bin !=[c] $0", &upper, 1) == 2); /* 'xyz' and nil */
    CHECK(count_of(txn, table, "bin CONTAINS[c] $0", &b, 1) == 2);
    CHECK(count_of(txn, table, "bin BEGINSWITH[c] $0", &upper, 1) == 2);
    CHECK(count_of(txn, table, "bin IN[c] {$0}", &upper, 1) == 2);
    CHECK(count_of(txn, table, "link.bin ==[c] $0", &upper, 1) == 4); /* through a link: the generic path */
    EXPECT_COUNT(txn, table, "bin LIKE[c] B64\"KkIq\"", 2);            /* '*B*' */
    expect_error_containing(txn, table, "bin ==[d] $0", &upper, 1, "[c] and [d] compare strings");
    /* Two binary properties. */
    ce_column_key other = add_property(txn, table, "other", CE_TYPE_BINARY, true, 0);
    ce_column_key s = add_property(txn, table, "s", CE_TYPE_STRING, false, 0);
    ce_value others[4] = {bytes_value("ABC"), bytes_value("abc"), bytes_value("XY"), null_value};
    for (int r = 0; r < 4; r++) {
        ce_value abc = text_value("abc");
        CHECK(ce_object_set(txn, table, objects[r], other, &others[r]) && ce_object_set(txn, table, objects[r], s, &abc));
    }
    static const struct {
        const char *predicate;
        size_t count;
    } two[] = {
        {"bin == other", 1},              /* nil == nil only */
        {"bin ==[c] other", 3},           /* 'abc' 'ABC', 'ABC' 'abc', nil nil */
        {"bin !=[c] other", 1},           /* 'xyz' 'XY' */
        {"other ==[c] bin", 3},
        {"bin BEGINSWITH[c] other", 3},   /* nil needle: no match */
        {"bin BEGINSWITH other", 0},
        {"bin ENDSWITH[c] other", 2},
        {"bin CONTAINS[c] other", 3},
        {"bin LIKE[c] other", 3},         /* nil LIKE nil */
        {"NOT bin ==[c] other", 1},
        {"link.bin ==[c] other", 2},      /* 'abc' against each: the generic path */
        {"other CONTAINS[c] link.bin", 2},
    };
    for (size_t i = 0; i < sizeof two / sizeof *two; i++) EXPECT_COUNT(txn, table, two[i].predicate, two[i].count);
    expect_error_containing(txn, table, "bin ==[d] other", NULL, 0, "[c] and [d] compare strings");
    expect_error_containing(txn, table, "bin ==[c] s", NULL, 0, "[c] and [d] compare strings");
    expect_error_containing(txn, table, "link.bin ==[cd] other", NULL, 0, "[c] and [d] compare strings");
    expect_error_containing(txn, table, "bin <[c] other", NULL, 0, "Lexicographical comparisons must be case-sensitive");
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Two sides of several values                                               */
/* ------------------------------------------------------------------------ */

/*
 * realm-core compares two sides of several values (each "from a list": a
 * collection's values, values through a to-many link, a list '{...}' or a
 * list argument) with no ANY, ALL or NONE on either element by element,
 * in order: the same number of values, each pair matching (query_
 * expression.hpp, ValueBase::compare: "Both lists and no ANY, NONE, ALL
 * specified - simple element by element comparison"; != holds for lists
 * of different sizes, and otherwise needs every pair to differ). So
 * `scores IN {1, 2}` and `scores == {1, 2}` hold for the list [1, 2]
 * only; with ANY (or ALL, NONE) each value is looked up in the list. Two
 * lists of values of the objects themselves are refused
 * (verify_conditions, driver.cpp). Realm Swift's predicates keep ANY.
 *
 * Rows: scores = [1, 2], [2, 1], [], [1, 2, 3]; dogs (ages) = [1, 2], [2], [], [].
 */
TEST(lists_in_order)
{
    test_db t = test_db_open("query-rules-lists-in-order");
    ce_txn *txn;
    ce_table_key table, dogs_table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Owner", &table) && ce_table_add(txn, "Dog", &dogs_table));
    ce_column_key age = add_property(txn, dogs_table, "age", CE_TYPE_INT, false, 0);
    ce_property_info scores_info = {.name = "scores", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST};
    ce_property_info dogs_info = {.name = "dogs", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = dogs_table};
    ce_property_info other_info = {.name = "other", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST};
    ce_column_key scores, dogs, other;
    CHECK(ce_property_add(txn, table, &scores_info, &scores) && ce_property_add(txn, table, &dogs_info, &dogs) &&
          ce_property_add(txn, table, &other_info, &other));
    ce_object_key dog[2];
    for (int k = 0; k < 2; k++) {
        ce_value years = {.type = CE_TYPE_INT, .integer = k + 1};
        CHECK(ce_object_create(txn, dogs_table, NULL, &dog[k]) && ce_object_set(txn, dogs_table, dog[k], age, &years));
    }
    static const int64_t lists[4][3] = {{1, 2}, {2, 1}, {0}, {1, 2, 3}};
    static const size_t sizes[4] = {2, 2, 0, 3};
    static const int dog_lists[4][2] = {{0, 1}, {1}, {0}, {0}};
    static const size_t dog_sizes[4] = {2, 1, 0, 0};
    for (int r = 0; r < 4; r++) {
        ce_object_key object;
        CHECK(ce_object_create(txn, table, NULL, &object));
        ce_collection *list;
        CHECK(ce_collection_open(txn, table, object, scores, &list));
        for (size_t k = 0; k < sizes[r]; k++) {
            ce_value v = {.type = CE_TYPE_INT, .integer = lists[r][k]};
            CHECK(ce_list_insert(list, k, &v));
        }
        ce_collection_close(list);
        CHECK(ce_collection_open(txn, table, object, dogs, &list));
        for (size_t k = 0; k < dog_sizes[r]; k++) {
            ce_value v = {.type = CE_TYPE_LINK, .link = {dogs_table, dog[dog_lists[r][k]]}};
            CHECK(ce_list_insert(list, k, &v));
        }
        ce_collection_close(list);
    }
    static const struct {
        const char *predicate;
        size_t count;
    } cases[] = {
        {"scores IN {1, 2}", 1},       {"scores == {1, 2}", 1},      {"{1, 2} == scores", 1},
        {"scores != {1, 2}", 3},       /* [2, 1] differs at each place; [] and [1, 2, 3] in size */
        {"scores == {}", 1},           {"scores < {2, 3}", 1},       {"scores == {1, 2, 3}", 1},
        {"ANY scores IN {1, 2}", 3},   {"ALL scores IN {1, 2}", 3},  {"NONE scores IN {1, 2}", 1},
        {"ANY scores == {2}", 3},      {"dogs.age IN {1, 2}", 1},    {"dogs.age == {2}", 1},
        {"scores == dogs.age", 2},     /* [1, 2] and [1, 2]; [] and [] */
        {"scores * 10 == {10, 20}", 1}, {"2 IN scores", 3},          {"scores IN {2}", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) EXPECT_COUNT(txn, table, cases[k].predicate, cases[k].count);
    ce_value pair[2] = {{.type = CE_TYPE_INT, .integer = 2}, {.type = CE_TYPE_INT, .integer = 1}};
    ce_query_argument list_argument = {.kind = CE_QUERY_ARGUMENT_LIST, .list = pair, .list_count = 2};
    CHECK(count_of(txn, table, "scores IN $0", &list_argument, 1) == 1);
    CHECK(count_of(txn, table, "ANY scores IN $0", &list_argument, 1) == 3);
    expect_error_containing(txn, table, "scores == other", NULL, 0,
                            "Ordered comparison between two primitive lists is not implemented yet ('scores' and 'other')");
    expect_error_containing(txn, table, "scores BEGINSWITH {1}", NULL, 0, "a list is compared only by IN or BETWEEN");
    /* Realm Swift's predicates: a list's values looked up one by one. */
    ce_query_options swift = {.realm_swift_values = true};
    ce_query *query;
    size_t count;
    CHECK(ce_query_parse_with(txn, table, "ANY scores IN {1, 2}", NULL, 0, &swift, &query));
    CHECK(ce_query_count(query, txn, &count) && count == 3);
    ce_query_free(query);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/*
 * One value against a list: realm-core takes ANY for a side without a
 * comparison type (ValueBase::compare: "if one side omitted a comparison
 * type, assume ANY"), with every comparison operator, and EqualityNode::
 * visit (driver.cpp) builds Query::in for `property == {...}`: so `n ==
 * {1, 2}` is `n IN {1, 2}`, `n != {1, 2}` holds when one of them differs,
 * `n < {2, 3}` when n is below one of them; an empty list matches
 * nothing. The engine refused a list with any operator but IN and
 * BETWEEN. Realm Swift's predicates still refuse it.
 *
 * Rows: n = 1, 2, 3; link -> the first row from the second.
 */
TEST(one_value_against_a_list)
{
    test_db t = test_db_open("query-rules-value-list");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Row", &table));
    ce_column_key n = add_property(txn, table, "n", CE_TYPE_INT, false, 0);
    ce_column_key link = add_property(txn, table, "link", CE_TYPE_LINK, true, table);
    ce_object_key objects[3];
    for (int r = 0; r < 3; r++) {
        ce_value v = {.type = CE_TYPE_INT, .integer = r + 1};
        CHECK(ce_object_create(txn, table, NULL, &objects[r]) && ce_object_set(txn, table, objects[r], n, &v));
    }
    ce_value first = {.type = CE_TYPE_LINK, .link = {table, objects[0]}};
    CHECK(ce_object_set(txn, table, objects[1], link, &first));
    static const struct {
        const char *predicate;
        size_t count;
    } cases[] = {
        {"n == {1, 2}", 2}, {"{1, 2} == n", 2}, {"n != {1, 2}", 3}, {"n != {1, 1}", 2}, {"n < {2, 3}", 2},
        {"n >= {3}", 1},    {"n == {}", 0},     {"n != {}", 0},     {"link.n == {1, 5}", 1}, {"n + 1 == {2, 3}", 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) EXPECT_COUNT(txn, table, cases[k].predicate, cases[k].count);
    ce_value pair[2] = {{.type = CE_TYPE_INT, .integer = 1}, {.type = CE_TYPE_INT, .integer = 3}};
    ce_query_argument list = {.kind = CE_QUERY_ARGUMENT_LIST, .list = pair, .list_count = 2};
    CHECK(count_of(txn, table, "n == $0", &list, 1) == 2);
    ce_query_options swift = {.realm_swift_values = true};
    ce_query *query;
    CHECK(!ce_query_parse_with(txn, table, "n == {1, 2}", NULL, 0, &swift, &query));
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/*
 * ANY, ALL or NONE before a list or an argument on the right
 * (query_bison.yy: `list : comp_type '{' list_content '}'`, `constant :
 * comp_type ARG`): the comparison takes ANY, ALL or NONE of the list's
 * values (ValueBase::compare, right_matches), with the left side's own
 * quantifier over its values. An argument that is no list is refused in
 * realm-core's words (ConstantNode::visit). The engine refused the
 * keyword there ("expected a value or a key path, not a keyword").
 *
 * Rows: n = 1, 2, 3; scores = [1, 2], [3], [].
 */
TEST(list_quantifiers)
{
    test_db t = test_db_open("query-rules-list-quantifiers");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Row", &table));
    ce_column_key n = add_property(txn, table, "n", CE_TYPE_INT, false, 0);
    ce_property_info scores_info = {.name = "scores", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST};
    ce_column_key scores;
    CHECK(ce_property_add(txn, table, &scores_info, &scores));
    static const int64_t lists[3][2] = {{1, 2}, {3}, {0}};
    static const size_t sizes[3] = {2, 1, 0};
    for (int r = 0; r < 3; r++) {
        ce_object_key object;
        ce_value v = {.type = CE_TYPE_INT, .integer = r + 1};
        CHECK(ce_object_create(txn, table, NULL, &object) && ce_object_set(txn, table, object, n, &v));
        ce_collection *list;
        CHECK(ce_collection_open(txn, table, object, scores, &list));
        for (size_t k = 0; k < sizes[r]; k++) {
            ce_value s = {.type = CE_TYPE_INT, .integer = lists[r][k]};
            CHECK(ce_list_insert(list, k, &s));
        }
        ce_collection_close(list);
    }
    static const struct {
        const char *predicate;
        size_t count;
    } cases[] = {
        {"n == ANY {1, 2}", 2},          {"n == SOME {1, 2}", 2},         {"n == ALL {1, 1}", 1},
        {"n == NONE {1, 2}", 1},         {"n < ALL {3, 4}", 2},           {"n IN ALL {1, 1}", 1},
        {"n IN NONE {1, 2}", 1},         {"n == ALL {}", 3},              {"n == NONE {}", 3},
        {"n == ANY {}", 0},              {"scores == ANY {1, 3}", 2},     {"ALL scores == ANY {1, 2}", 2},
        {"NONE scores == ANY {1, 2}", 2}, {"scores == ALL {1, 1}", 1},    {"n + 1 > ALL {1, 2}", 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) EXPECT_COUNT(txn, table, cases[k].predicate, cases[k].count);
    ce_value pair[2] = {{.type = CE_TYPE_INT, .integer = 2}, {.type = CE_TYPE_INT, .integer = 2}};
    ce_query_argument list = {.kind = CE_QUERY_ARGUMENT_LIST, .list = pair, .list_count = 2};
    CHECK(count_of(txn, table, "n == ALL $0", &list, 1) == 1);
    CHECK(count_of(txn, table, "n != ANY %@", &list, 1) == 2);
    ce_query_argument one = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_INT, .integer = 1}};
    expect_error_containing(txn, table, "n == ALL $0", &one, 1,
                            "ANY/ALL/NONE are only allowed on arguments which contain a list but '$0' is not a list.");
    expect_error_containing(txn, table, "ANY n == ALL {1}", NULL, 0, "ANY needs the key path of a collection after it");
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* A string compared with numbers                                            */
/* ------------------------------------------------------------------------ */

/*
 * realm-core reads a string constant compared with numbers as a number of
 * the other side's type when its text reads as one (ConstantNode::visit,
 * src/realm/parser/driver.cpp, convert_if_needed: string_to<T>, an
 * istringstream in the classic locale, then NaN and infinities for
 * floating types; Decimal128 from the whole text): test_parser.cpp,
 * Parser_ChainedIntEqualQueries, matches "a == '5'" on an int column. A
 * literal or an argument, alone or in a list; a text that reads as no
 * number stays a string and is refused. Realm Swift's predicates
 * (realm_swift_values) keep refusing a string for a number.
 *
 * Rows: i = 5, 7, -3; d = 1.5, 2.0, nil; dec = 0.1, 2, 3; f = 0.5, 1, 2.
 */
TEST(numeric_strings)
{
    test_db t = test_db_open("query-rules-numeric-strings");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Row", &table));
    ce_column_key i = add_property(txn, table, "i", CE_TYPE_INT, false, 0);
    ce_column_key d = add_property(txn, table, "d", CE_TYPE_DOUBLE, true, 0);
    ce_column_key dec = add_property(txn, table, "dec", CE_TYPE_DECIMAL128, false, 0);
    ce_column_key f = add_property(txn, table, "f", CE_TYPE_FLOAT, false, 0);
    ce_value rows[3][4] = {
        {{.type = CE_TYPE_INT, .integer = 5}, {.type = CE_TYPE_DOUBLE, .double_value = 1.5},
         {.type = CE_TYPE_DECIMAL128, .decimal = decimal(1, -1)}, {.type = CE_TYPE_FLOAT, .float_value = 0.5f}},
        {{.type = CE_TYPE_INT, .integer = 7}, {.type = CE_TYPE_DOUBLE, .double_value = 2.0},
         {.type = CE_TYPE_DECIMAL128, .decimal = decimal(2, 0)}, {.type = CE_TYPE_FLOAT, .float_value = 1.0f}},
        {{.type = CE_TYPE_INT, .integer = -3}, null_value, {.type = CE_TYPE_DECIMAL128, .decimal = decimal(3, 0)},
         {.type = CE_TYPE_FLOAT, .float_value = 2.0f}}};
    ce_column_key columns[4] = {i, d, dec, f};
    for (int r = 0; r < 3; r++) {
        ce_object_key object;
        CHECK(ce_object_create(txn, table, NULL, &object));
        for (int c = 0; c < 4; c++) CHECK(ce_object_set(txn, table, object, columns[c], &rows[r][c]));
    }
    static const struct {
        const char *predicate;
        size_t count;
    } cases[] = {
        {"i == '5'", 1},        {"i == ' 7'", 1},       {"i > '0'", 2},           {"i == '-3'", 1},
        {"i == '5abc'", 1},     /* the longest number first, as an istringstream reads */
        {"i == '1.9'", 0},      /* reads 1 */
        {"i IN {'5', '7'}", 2}, {"i BETWEEN {'0', '6'}", 1}, {"'7' == i", 1},      {"i != '5'", 2},
        {"d == '1.5'", 1},      {"d < '2e0'", 1},       {"d == 'inf'", 0},        {"d > '-Infinity'", 2},
        {"dec == '0.1'", 1},    {"dec >= '2'", 2},      {"f == '0.5'", 1},        {"f IN {'1', 2}", 2},
        {"i + 1 == '6'", 1},    /* an expression's type is its first operand's */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) EXPECT_COUNT(txn, table, cases[k].predicate, cases[k].count);
    ce_query_argument seven = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text_value("7")};
    CHECK(count_of(txn, table, "i == $0", &seven, 1) == 1);
    ce_value texts[2] = {text_value("5"), text_value("-3")};
    ce_query_argument list = {.kind = CE_QUERY_ARGUMENT_LIST, .list = texts, .list_count = 2};
    CHECK(count_of(txn, table, "i IN $0", &list, 1) == 2);
    /* A text that reads as no number stays a string. */
    expect_error_containing(txn, table, "i == 'x'", NULL, 0, "cannot compare int property 'Row.i' with a string");
    expect_error_containing(txn, table, "dec == '1.5x'", NULL, 0, "cannot compare decimal128 property");
    expect_error_containing(txn, table, "i == '99999999999999999999'", NULL, 0, "cannot compare int property");
    /* Realm Swift's predicates refuse a string for a number. */
    ce_query_options swift = {.realm_swift_values = true};
    ce_query *query;
    CHECK(!ce_query_parse_with(txn, table, "i == '5'", NULL, 0, &swift, &query));
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* A string property and a binary argument (or the reverse)                  */
/* ------------------------------------------------------------------------ */

/*
 * realm-core's StringOpsNode::visit (src/realm/parser/driver.cpp) takes
 * the column's own begins_with/ends_with/contains/like only when the
 * argument has the property's type; otherwise it builds Compare<BeginsWith>
 * (EndsWith, Contains, Like) over the values, whose QueryValue overloads
 * (src/realm/query_conditions.hpp) take a string with a string or a binary
 * with a binary and are false otherwise, as on a mixed value
 * (mixed_string_operators_take_one_kind above). == and != still compare a
 * string with a binary as bytes. The engine compared the bytes. Found by
 * the differential query test (python/tests/test_query_differential.py).
 *
 * Rows: s = 'abc' with strings = ['abc'] and bin = 'abc'; s = nil with
 * strings = [] and bin = nil.
 */
TEST(string_operators_with_an_argument_of_the_other_kind)
{
    test_db t = test_db_open("query-rules-other-kind");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Text", &table));
    ce_column_key s = add_property(txn, table, "s", CE_TYPE_STRING, true, 0);
    ce_column_key bin = add_property(txn, table, "bin", CE_TYPE_BINARY, true, 0);
    ce_property_info list_info = {.name = "strings", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_LIST};
    ce_column_key strings;
    CHECK(ce_property_add(txn, table, &list_info, &strings));
    ce_object_key first, second;
    ce_value abc = text_value("abc"), abc_bytes = bytes_value("abc");
    CHECK(ce_object_create(txn, table, NULL, &first) && ce_object_set(txn, table, first, s, &abc) &&
          ce_object_set(txn, table, first, bin, &abc_bytes) && ce_object_create(txn, table, NULL, &second));
    ce_collection *list;
    CHECK(ce_collection_open(txn, table, first, strings, &list) && ce_list_insert(list, 0, &abc));
    ce_collection_close(list);
    ce_query_argument b_bytes = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("b")};
    ce_query_argument b_text = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text_value("b")};
    ce_query_argument all_bytes = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("abc")};
    CHECK(count_of(txn, table, "s CONTAINS $0", &b_bytes, 1) == 0);
    CHECK(count_of(txn, table, "s BEGINSWITH $0", &all_bytes, 1) == 0);
    CHECK(count_of(txn, table, "s LIKE $0", &all_bytes, 1) == 0);
    CHECK(count_of(txn, table, "NOT s ENDSWITH $0", &all_bytes, 1) == 2);
    CHECK(count_of(txn, table, "ANY strings CONTAINS $0", &b_bytes, 1) == 0);
    CHECK(count_of(txn, table, "ALL strings CONTAINS $0", &b_bytes, 1) == 1); /* the empty list */
    CHECK(count_of(txn, table, "bin CONTAINS $0", &b_text, 1) == 0);
    /* One kind still finds it; == compares a string with a binary as bytes. */
    CHECK(count_of(txn, table, "s CONTAINS $0", &b_text, 1) == 1);
    CHECK(count_of(txn, table, "bin CONTAINS $0", &b_bytes, 1) == 1);
    CHECK(count_of(txn, table, "s == $0", &all_bytes, 1) == 1);
    /* The value before the operator too ('xabcx' CONTAINS s). */
    ce_query_argument haystack_bytes = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bytes_value("xabcx")};
    ce_query_argument haystack_text = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = text_value("xabcx")};
    CHECK(count_of(txn, table, "$0 CONTAINS s", &haystack_bytes, 1) == 0);
    CHECK(count_of(txn, table, "$0 CONTAINS s", &haystack_text, 1) == 1);
    CHECK(count_of(txn, table, "$0 CONTAINS bin", &haystack_text, 1) == 0);
    CHECK(count_of(txn, table, "$0 CONTAINS bin", &haystack_bytes, 1) == 1);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* A collection's @count and aggregates through a link to many objects       */
/* ------------------------------------------------------------------------ */

/*
 * realm-core reads one list per object a link to many reaches
 * (src/realm/query_expression.cpp, ColumnListBase::get_lists: one list ref
 * per linked object) and sizes or aggregates each (SizeOperator and
 * ListColumnAggregate in query_expression.hpp): `links.nums.@count == 2`
 * holds when one linked object has two numbers, ANY of them. Through
 * to-one links only, a null link reads list ref 0, the empty list. A list
 * of links (`links.@count`, `links.@sum.n`) still counts or aggregates
 * every object reached (LinkCount, the link aggregates). The engine counted
 * all the linked objects' numbers together. Found by the differential query
 * test (python/tests/test_query_differential.py).
 *
 * Rows: o0 nums [1, 2], links []; o1 nums [], links [o0, o2];
 * o2 nums [5], links [o0]; no to-one link.
 */
TEST(collection_sizes_per_linked_object)
{
    test_db t = test_db_open("query-rules-per-collection");
    ce_txn *txn;
    ce_table_key table;
    CHECK(ce_txn_begin_write(t.db, &txn) && ce_table_add(txn, "Node", &table));
    add_property(txn, table, "link", CE_TYPE_LINK, true, table);
    ce_property_info nums_info = {.name = "nums", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST};
    ce_property_info links_info = {.name = "links", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                                   .link_target = table};
    ce_column_key nums, links;
    CHECK(ce_property_add(txn, table, &nums_info, &nums) && ce_property_add(txn, table, &links_info, &links));
    ce_object_key o[3];
    for (int r = 0; r < 3; r++) CHECK(ce_object_create(txn, table, NULL, &o[r]));
    const int64_t numbers[3][2] = {{1, 2}, {0, 0}, {5, 0}};
    const size_t number_count[3] = {2, 0, 1};
    const int targets[3][2] = {{0, 0}, {0, 2}, {0, 0}};
    const size_t target_count[3] = {0, 2, 1};
    for (int r = 0; r < 3; r++) {
        ce_collection *list;
        CHECK(ce_collection_open(txn, table, o[r], nums, &list));
        for (size_t k = 0; k < number_count[r]; k++) {
            ce_value v = {.type = CE_TYPE_INT, .integer = numbers[r][k]};
            CHECK(ce_list_insert(list, k, &v));
        }
        ce_collection_close(list);
        CHECK(ce_collection_open(txn, table, o[r], links, &list));
        for (size_t k = 0; k < target_count[r]; k++) {
            ce_value v = {.type = CE_TYPE_LINK, .link = {table, o[targets[r][k]]}};
            CHECK(ce_list_insert(list, k, &v));
        }
        ce_collection_close(list);
    }
    EXPECT_COUNT(txn, table, "links.nums.@count == 2", 2); /* o1 and o2, through o0 */
    EXPECT_COUNT(txn, table, "links.nums.@count == 3", 0); /* no one list holds 3 */
    EXPECT_COUNT(txn, table, "links.nums.@size == 0", 0);  /* o0 links to nothing: no list */
    EXPECT_COUNT(txn, table, "links.nums.@sum == 5", 1);   /* o1, through o2 */
    EXPECT_COUNT(txn, table, "links.nums.@max == 2", 2);
    EXPECT_COUNT(txn, table, "links.@count == 2", 1);      /* links themselves: the total */
    EXPECT_COUNT(txn, table, "link.nums.@count == 0", 3);  /* a null link: the empty list */
    /* A quantifier takes each object's count (driver.cpp accepts ANY, ALL
     * and NONE before a key path through a list). */
    EXPECT_COUNT(txn, table, "ALL links.nums.@count >= 1", 3); /* o0: no linked object */
    EXPECT_COUNT(txn, table, "NONE links.nums.@count == 1", 2);
    EXPECT_COUNT(txn, table, "ANY links.nums.@sum == 5", 1);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}
