/*
 * test_query_arith.c — arithmetic in query comparisons (`n + 1 > 5`):
 * precedence and parentheses, each pair of number types, nil operands,
 * division by zero, constants and arguments, @count/@size and aggregates
 * as operands, paths through to-one links, and the errors for operands
 * that are not numbers. The rules are realm-core's (arith.c cites them).
 *
 * Owns: these cases, on a small table of their own.
 * Never: asks the engine what a predicate should match; the expected
 * counts are written out.
 */
#include "cengine.h"
#include "test_query_support.h"

#include <string.h>

static void expect_error_containing(ce_txn *txn, ce_table_key table, const char *predicate, const char *words)
{
    ce_query *query;
    if (ce_query_parse(txn, table, predicate, NULL, 0, &query)) {
        size_t count;
        bool counted = ce_query_count(query, txn, &count);
        ce_query_free(query);
        if (counted) {
            fprintf(stderr, "'%s' parsed; expected an error with '%s'\n", predicate, words);
            exit(1);
        }
    }
    if (!strstr(ce_last_error_message(), words)) {
        fprintf(stderr, "'%s': '%s' lacks '%s'\n", predicate, ce_last_error_message(), words);
        exit(1);
    }
}

#define EXPECT_COUNT_WITH(txn, table, predicate, arguments, n, expected)                                     \
    do {                                                                                                     \
        size_t counted_ = count_of((txn), (table), (predicate), (arguments), (n));                           \
        if (counted_ != (size_t)(expected)) {                                                                \
            fprintf(stderr, "%s:%d: '%s' matched %zu, expected %zu\n", __FILE__, __LINE__, (predicate), counted_, \
                    (size_t)(expected));                                                                     \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)
#define EXPECT_COUNT(txn, table, predicate, expected) EXPECT_COUNT_WITH(txn, table, predicate, NULL, 0, expected)

static ce_column_key add_property(ce_txn *txn, ce_table_key table, const char *name, ce_type type, bool nullable,
                                  ce_collection_type collection, ce_table_key target)
{
    ce_property_info info = {.name = name, .type = type, .nullable = nullable, .collection = collection, .link_target = target};
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

static ce_value int_value(int64_t v) { return (ce_value){.type = CE_TYPE_INT, .integer = v}; }
static ce_value double_value(double v) { return (ce_value){.type = CE_TYPE_DOUBLE, .double_value = v}; }
static ce_value text_value(const char *text) { return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}}; }
static ce_value decimal_value(const char *text)
{
    ce_value v = {.type = CE_TYPE_DECIMAL128};
    CHECK(ce_decimal128_from_string(text, &v.decimal));
    return v;
}

/*
 * Three items:
 *   r0: i 1,   n 10, f 1.5, d 2.5,  dec 0.1, m 3 (int),      s "a",   nums {1, 2, 3}, link -> r1
 *   r1: i nil, n 20, f 0.5, d -1.0, dec 0.2, m "x" (string), s "b",   nums {},        link nil
 *   r2: i 5,   n -7, f 2.0, d 4.0,  dec 0.3, m 1.5 (double), s "ccc", nums {10},      link -> r0
 */
typedef struct items {
    test_db t;
    ce_txn *txn;
    ce_table_key table;
} items;

static items open_items(const char *name)
{
    items x;
    x.t = test_db_open(name);
    CHECK(ce_txn_begin_write(x.t.db, &x.txn) && ce_table_add(x.txn, "Item", &x.table));
    ce_table_key table = x.table;
    ce_column_key i = add_property(x.txn, table, "i", CE_TYPE_INT, true, CE_COLLECTION_NONE, 0);
    ce_column_key n = add_property(x.txn, table, "n", CE_TYPE_INT, false, CE_COLLECTION_NONE, 0);
    ce_column_key f = add_property(x.txn, table, "f", CE_TYPE_FLOAT, false, CE_COLLECTION_NONE, 0);
    ce_column_key d = add_property(x.txn, table, "d", CE_TYPE_DOUBLE, false, CE_COLLECTION_NONE, 0);
    ce_column_key dec = add_property(x.txn, table, "dec", CE_TYPE_DECIMAL128, false, CE_COLLECTION_NONE, 0);
    ce_column_key m = add_property(x.txn, table, "m", CE_TYPE_MIXED, true, CE_COLLECTION_NONE, 0);
    ce_column_key s = add_property(x.txn, table, "s", CE_TYPE_STRING, false, CE_COLLECTION_NONE, 0);
    add_property(x.txn, table, "b", CE_TYPE_BOOL, false, CE_COLLECTION_NONE, 0);
    add_property(x.txn, table, "when", CE_TYPE_TIMESTAMP, true, CE_COLLECTION_NONE, 0);
    ce_column_key nums = add_property(x.txn, table, "nums", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    ce_column_key link = add_property(x.txn, table, "link", CE_TYPE_LINK, true, CE_COLLECTION_NONE, table);
    ce_object_key o[3];
    ce_value rows[3][7] = {
        {int_value(1), int_value(10), {.type = CE_TYPE_FLOAT, .float_value = 1.5f}, double_value(2.5),
         decimal_value("0.1"), int_value(3), text_value("a")},
        {{.type = CE_TYPE_NULL}, int_value(20), {.type = CE_TYPE_FLOAT, .float_value = 0.5f}, double_value(-1.0),
         decimal_value("0.2"), text_value("x"), text_value("b")},
        {int_value(5), int_value(-7), {.type = CE_TYPE_FLOAT, .float_value = 2.0f}, double_value(4.0),
         decimal_value("0.3"), double_value(1.5), text_value("ccc")},
    };
    ce_column_key columns[7] = {i, n, f, d, dec, m, s};
    const int64_t numbers[3][3] = {{1, 2, 3}, {0}, {10}};
    const size_t number_count[3] = {3, 0, 1};
    for (int r = 0; r < 3; r++) {
        CHECK(ce_object_create(x.txn, table, NULL, &o[r]));
        for (int c = 0; c < 7; c++) CHECK(ce_object_set(x.txn, table, o[r], columns[c], &rows[r][c]));
        ce_collection *list;
        CHECK(ce_collection_open(x.txn, table, o[r], nums, &list));
        for (size_t k = 0; k < number_count[r]; k++) {
            ce_value v = int_value(numbers[r][k]);
            CHECK(ce_list_insert(list, k, &v));
        }
        ce_collection_close(list);
    }
    ce_value to_r1 = {.type = CE_TYPE_LINK, .link = {table, o[1]}}, to_r0 = {.type = CE_TYPE_LINK, .link = {table, o[0]}};
    CHECK(ce_object_set(x.txn, table, o[0], link, &to_r1) && ce_object_set(x.txn, table, o[2], link, &to_r0));
    return x;
}

static void close_items(items *x)
{
    CHECK(ce_txn_commit(x->txn));
    test_db_close(&x->t);
}

/* '*' and '/' bind tighter than '+' and '-', all left to right
 * (query_bison.yy: %left '+' '-'; %left '*' '/'); parentheses group. */
TEST(arith_precedence_and_parentheses)
{
    items x = open_items("query-arith-precedence");
    EXPECT_COUNT(x.txn, x.table, "n + 2 * 3 == 16", 1);   /* not (10 + 2) * 3 */
    EXPECT_COUNT(x.txn, x.table, "(n + 2) * 3 == 36", 1);
    EXPECT_COUNT(x.txn, x.table, "n - 2 - 3 == 5", 1);    /* (10 - 2) - 3, not 10 - (2 - 3) */
    EXPECT_COUNT(x.txn, x.table, "n / 2 / 5 == 1", 1);    /* (10 / 2) / 5 */
    EXPECT_COUNT(x.txn, x.table, "2 * n - 1 == 19", 1);
    EXPECT_COUNT(x.txn, x.table, "((n + 1)) == 11", 1);
    EXPECT_COUNT(x.txn, x.table, "(n + 1) * 2 == 22 AND (i == 1)", 1);
    EXPECT_COUNT(x.txn, x.table, "NOT (n + 1 == 11)", 2);
    EXPECT_COUNT(x.txn, x.table, "(n + 1 == 11) OR (n * 2 == 40)", 2);
    EXPECT_COUNT(x.txn, x.table, "11 == n + 1", 1);      /* either side */
    EXPECT_COUNT(x.txn, x.table, "n + 1 > i * 2", 1);    /* both sides: r0 11 > 2; r1 i nil; r2 -6 > 10 */
    /* A sign before digits belongs to the number (query_flex.ll: NUMBER
     * is `[+-]?{int}`, and flex takes the longest match), so `n+1` is a
     * value after a value, which query_bison.yy's `expr` refuses; a space
     * after the operator, or none before a name, is fine. */
    expect_error_containing(x.txn, x.table, "n+1 == 11", "write 'a + 1', not 'a +1'");
    expect_error_containing(x.txn, x.table, "n -1 == 9", "after the value at position 0");
    expect_error_containing(x.txn, x.table, "n == 5 +5", "'+5'");
    EXPECT_COUNT(x.txn, x.table, "n+ 1 == 11", 1);
    EXPECT_COUNT(x.txn, x.table, "n*-1 == -10", 1);
    EXPECT_COUNT(x.txn, x.table, "n - 1 == 9", 1);
    /* Names go on over '-' (query_flex.ll's identifiers): n-1 is a name. */
    expect_error_containing(x.txn, x.table, "n-1 == 9", "n-1");
    close_items(&x);
}

/* Mixed::operator+ ... (mixed.cpp): the common type is the larger one;
 * int / int is an integer division; a literal takes the other side's type
 * (a decimal from its text, a float for a float). */
TEST(arith_type_pairs)
{
    items x = open_items("query-arith-types");
    EXPECT_COUNT(x.txn, x.table, "n / 3 == 3", 1);          /* int / int: 10 / 3 == 3 */
    EXPECT_COUNT(x.txn, x.table, "n / 3 == -2", 1);         /* -7 / 3 truncates to -2 */
    EXPECT_COUNT(x.txn, x.table, "n / 4.0 == 2.5", 1);      /* int / double is double */
    EXPECT_COUNT(x.txn, x.table, "n * 0.5 == 5", 1);
    EXPECT_COUNT(x.txn, x.table, "f * 2 == 3", 1);          /* float */
    EXPECT_COUNT(x.txn, x.table, "f + 0.1 == 1.6", 1);      /* float + float(0.1) == float(1.6) */
    EXPECT_COUNT(x.txn, x.table, "f + d == 4", 1);          /* float + double: 1.5 + 2.5 */
    EXPECT_COUNT(x.txn, x.table, "n + d == 19", 1);         /* int + double: 20 - 1 */
    EXPECT_COUNT(x.txn, x.table, "dec + 0.2 == 0.3", 1);    /* exact decimal, not 0.30000000000000004 */
    EXPECT_COUNT(x.txn, x.table, "dec * n == 1", 1);        /* decimal * int: 0.1 * 10 */
    EXPECT_COUNT(x.txn, x.table, "dec * n == 4", 1);
    EXPECT_COUNT(x.txn, x.table, "dec + d > 4", 1);         /* decimal + double: 0.3 + 4.0 */
    EXPECT_COUNT(x.txn, x.table, "m + 1 == 4", 1);          /* mixed int */
    EXPECT_COUNT(x.txn, x.table, "m * 2 == 3", 1);          /* mixed double */
    EXPECT_COUNT(x.txn, x.table, "m + 1 == nil", 1);        /* mixed string: not a number, nil */
    close_items(&x);
}

/* Null in, null out (Mixed's operators return {} for a null side). */
TEST(arith_null_operands)
{
    items x = open_items("query-arith-null");
    EXPECT_COUNT(x.txn, x.table, "i + 1 == 2", 1);
    EXPECT_COUNT(x.txn, x.table, "i + 1 == nil", 1);
    EXPECT_COUNT(x.txn, x.table, "i * 0 == 0", 2);          /* r1's nil stays nil */
    EXPECT_COUNT(x.txn, x.table, "i * 0 != 0", 1);
    EXPECT_COUNT(x.txn, x.table, "n + nil == nil", 3);
    EXPECT_COUNT(x.txn, x.table, "link.n + 1 == 21", 1);    /* r0 -> r1 */
    EXPECT_COUNT(x.txn, x.table, "link.n + 1 == nil", 1);   /* r1: no link */
    EXPECT_COUNT(x.txn, x.table, "link.i * 2 == 2", 1);     /* r2 -> r0 */
    close_items(&x);
}

/* int / 0 is INT64_MAX, or INT64_MIN for a negative dividend (Mixed::
 * operator/: "We don't want to throw here"); real division is IEEE. */
TEST(arith_division_by_zero)
{
    items x = open_items("query-arith-zero");
    EXPECT_COUNT(x.txn, x.table, "n / 0 == 9223372036854775807", 2);
    EXPECT_COUNT(x.txn, x.table, "n / 0 == -9223372036854775808", 1);
    EXPECT_COUNT(x.txn, x.table, "n / (n - n) > 0", 2);
    EXPECT_COUNT(x.txn, x.table, "d / 0 > 1000000", 2);
    EXPECT_COUNT(x.txn, x.table, "d / 0 < -1000000", 1);
    EXPECT_COUNT(x.txn, x.table, "1 / 0 == 9223372036854775807", 3); /* folded */
    close_items(&x);
}

/* Constants fold where both sides are constants (OperationNode::visit);
 * arguments are operands like literals; a double argument that is a whole
 * number next to an int is that int (ConstantNode::visit). */
TEST(arith_constants_and_arguments)
{
    items x = open_items("query-arith-arguments");
    EXPECT_COUNT(x.txn, x.table, "2 * 3 == 6", 3);
    EXPECT_COUNT(x.txn, x.table, "1 + 1 == 3", 0);
    EXPECT_COUNT(x.txn, x.table, "n == 5 * 2", 1);
    EXPECT_COUNT(x.txn, x.table, "n + 1 IN {11, 21}", 2);
    ce_query_argument args[2] = {{.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(5)},
                                 {.kind = CE_QUERY_ARGUMENT_VALUE, .value = int_value(15)}};
    EXPECT_COUNT_WITH(x.txn, x.table, "n + $0 == $1", args, 2, 1);
    EXPECT_COUNT_WITH(x.txn, x.table, "%@ * n == %@", args, 2, 0);
    ce_query_argument two = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = double_value(2.0)};
    EXPECT_COUNT_WITH(x.txn, x.table, "n / $0 == -3", &two, 1, 1);  /* int division: -7 / 2 */
    ce_query_argument half = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = double_value(0.5)};
    EXPECT_COUNT_WITH(x.txn, x.table, "n * $0 == 5", &half, 1, 1);
    close_items(&x);
}

/* @count, @size and aggregates are operands (test_parser.cpp's operations
 * on `items.@sum.price` and `@count`). */
TEST(arith_counts_and_aggregates)
{
    items x = open_items("query-arith-aggregates");
    EXPECT_COUNT(x.txn, x.table, "nums.@count * 2 == 6", 1);
    EXPECT_COUNT(x.txn, x.table, "nums.@size + 1 == 1", 1);
    EXPECT_COUNT(x.txn, x.table, "nums.@sum + 1 == 11", 1);
    EXPECT_COUNT(x.txn, x.table, "nums.@max - nums.@min == 2", 1);
    EXPECT_COUNT(x.txn, x.table, "nums.@avg * 2 == 4", 1);
    EXPECT_COUNT(x.txn, x.table, "s.@size + 1 == 2", 2);
    EXPECT_COUNT(x.txn, x.table, "link.nums.@count + n == 20", 1); /* r1: 0 + 20 */
    close_items(&x);
}

/* What is not a number is refused at bind time, in realm-core's words
 * ("Cannot perform '%1' operation on '%2' and '%3'", driver.cpp). */
TEST(arith_errors)
{
    items x = open_items("query-arith-errors");
    expect_error_containing(x.txn, x.table, "s + 1 == 2", "Cannot perform '+' operation on 's' and '1'");
    expect_error_containing(x.txn, x.table, "b * 2 == 2", "Cannot perform '*' operation on 'b' and '2'");
    expect_error_containing(x.txn, x.table, "when - 1 > 0", "timestamp");
    expect_error_containing(x.txn, x.table, "link + 1 == 1", "Cannot perform '+'");
    expect_error_containing(x.txn, x.table, "n + 'a' == 1", "string");
    expect_error_containing(x.txn, x.table, "n + 1 == 'a'", "an arithmetic expression compares with numbers");
    expect_error_containing(x.txn, x.table, "n + == 3", "expected a value");
    expect_error_containing(x.txn, x.table, "(n + 1 == 3", "')'");
    expect_error_containing(x.txn, x.table, "n * (1 + 2 == 3", "')'");
    /* ANY, ALL and NONE belong to the key path after them, which must be a
     * collection's ("The keypath following 'ALL' must contain a list"). */
    expect_error_containing(x.txn, x.table, "ALL n + 1 > 0", "is not a link/collection (ALL needs one)");
    expect_error_containing(x.txn, x.table, "ANY link.n + nums.@count > 0", "is not a link/collection (ANY needs one)");
    expect_error_containing(x.txn, x.table, "NONE 1 + nums > 0", "NONE needs the key path of a collection");
    /* query_bison.yy: `value BETWEEN list`, `value stringop value`. */
    expect_error_containing(x.txn, x.table, "n * 2 BETWEEN {15, 25}", "BETWEEN does not take an arithmetic expression");
    expect_error_containing(x.txn, x.table, "s BEGINSWITH n + 1", "BEGINSWITH does not take an arithmetic expression");
    /* A chain too deep to bind and evaluate by recursion is refused. */
    char chain[1024] = "n";
    for (int k = 0; k < 150; k++) strcat(chain, " + 1");
    strcat(chain, " > 0");
    expect_error_containing(x.txn, x.table, chain, "nested too deeply");
    EXPECT_COUNT(x.txn, x.table, "n + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 == 20", 1);
    /* No unary minus in realm-core's grammar either. */
    expect_error_containing(x.txn, x.table, "-n > 0", "");
    close_items(&x);
}

/* Arithmetic over several values applies to each value (query_expression.hpp,
 * ValueBase::fun and fun_const: a side from a list, with the other side's
 * one value), and the comparison takes ANY of the results unless the key
 * path's ANY, ALL or NONE says otherwise (Operator::get_comparison_type
 * gives its non-constant side's). nums: r0 {1, 2, 3}, r1 {}, r2 {10}. */
TEST(arith_over_several_values)
{
    items x = open_items("query-arith-several");
    EXPECT_COUNT(x.txn, x.table, "nums * 2 > 5", 2);        /* r0: 6; r2: 20 */
    EXPECT_COUNT(x.txn, x.table, "ANY nums * 2 > 5", 2);
    EXPECT_COUNT(x.txn, x.table, "ALL nums * 2 > 5", 2);    /* r0: 2, 4 fail; r1: none to fail */
    EXPECT_COUNT(x.txn, x.table, "NONE nums * 2 > 5", 1);   /* r1 */
    EXPECT_COUNT(x.txn, x.table, "ALL nums * 2 + 1 > 2", 3); /* the first operand's quantifier, however deep */
    EXPECT_COUNT(x.txn, x.table, "nums + n == 13", 1);      /* r0: 11, 12, 13 */
    EXPECT_COUNT(x.txn, x.table, "n * 2 < nums", 1);        /* r2: -14 < 10; r0: 20 against 1..3 */
    EXPECT_COUNT(x.txn, x.table, "25 < nums * 3", 1);       /* either side */
    EXPECT_COUNT(x.txn, x.table, "ANY nums - 1 IN {0, 9}", 2);
    EXPECT_COUNT(x.txn, x.table, "nums - 1 IN {0, 1, 2}", 1); /* no ANY: element by element, r0 */
    EXPECT_COUNT(x.txn, x.table, "nums / 0 == 9223372036854775807", 2);
    EXPECT_COUNT(x.txn, x.table, "link.nums * 2 == 4", 1);  /* r2 -> r0: 2, 4, 6; r0 -> r1: none */
    close_items(&x);
}

/* A list '{...}' in an expression is several values too (realm-core does
 * not fold it: OperationNode::visit, "produces_multiple_values"), but a
 * list of one value is that value (Operator takes a side whose value
 * has_single_value as its constant); a list argument the same. */
TEST(arith_with_lists)
{
    items x = open_items("query-arith-lists");
    EXPECT_COUNT(x.txn, x.table, "n + {1, 2} == 12", 1);    /* r0: 11, 12 */
    EXPECT_COUNT(x.txn, x.table, "{1, 2} * 10 == n", 2);     /* r0 10, r1 20 */
    EXPECT_COUNT(x.txn, x.table, "{1, 'a'} + n == nil", 3); /* 'a' + n is nil */
    EXPECT_COUNT(x.txn, x.table, "nums + {1} == 11", 1);     /* one value: r2's 10 + 1 */
    EXPECT_COUNT(x.txn, x.table, "dec + {0.2, 0.5} == 0.3", 1); /* the decimal hint reaches the elements */
    ce_value pair[2] = {int_value(-7), int_value(3)};
    ce_query_argument list = {.kind = CE_QUERY_ARGUMENT_LIST, .list = pair, .list_count = 2};
    EXPECT_COUNT_WITH(x.txn, x.table, "$0 * 2 == n * 2", &list, 1, 1); /* r2: -7 */
    close_items(&x);
}

/* Two sides of several values: realm-core throws "Operations involving two
 * lists are not supported" (ValueBase::fun) when it evaluates them, so a
 * table with no object matches nothing. */
TEST(arith_two_lists_refused)
{
    items x = open_items("query-arith-two-lists");
    ce_query *query;
    CHECK(ce_query_parse(x.txn, x.table, "nums * nums > 0", NULL, 0, &query));
    size_t count;
    expect_error(ce_query_count(query, x.txn, &count), CE_ERR_INVALID_QUERY,
                 "Operations involving two lists are not supported");
    ce_query_free(query);
    expect_error_containing(x.txn, x.table, "nums + {1, 2} > 0", "Operations involving two lists are not supported");
    expect_error_containing(x.txn, x.table, "(nums + 1) * {2, 3} > 0", "Operations involving two lists are not supported");
    ce_table_key empty;
    CHECK(ce_table_add(x.txn, "Empty", &empty));
    add_property(x.txn, empty, "ints", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    EXPECT_COUNT(x.txn, empty, "ints * ints > 0", 0);
    close_items(&x);
}

/* Decimal division by zero is IEEE 754's (realm-core's Decimal128::operator/
 * is bid128_div): a signed infinity, and NaN for 0 / 0. dec: 0.1, 0.2, 0.3. */
TEST(arith_decimal_division_by_zero)
{
    items x = open_items("query-arith-decimal-zero");
    EXPECT_COUNT(x.txn, x.table, "dec / 0 > 1000000", 3);
    EXPECT_COUNT(x.txn, x.table, "(0 - dec) / 0 < -1000000", 3);
    EXPECT_COUNT(x.txn, x.table, "dec / 0 == dec / 0", 3);
    EXPECT_COUNT(x.txn, x.table, "(dec - dec) / 0 == 0", 0);
    EXPECT_COUNT(x.txn, x.table, "(dec - dec) / 0 > 0", 0);
    close_items(&x);
}
