/*
 * test_decimal.c — decimal128 values (base/decimal.c) through the public
 * ce_decimal128_* functions: text in and out (the strings Swift's
 * Decimal128 prints), the order, canonical forms, arithmetic against exact
 * integer models, and the value hashes that files may store.
 */
#include "test_support.h"
#include "decimal.h"
#include "value.h"

static uint64_t random_state = 0x5DEECE66Dull;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static ce_decimal128 parse(const char *text)
{
    ce_decimal128 d;
    CHECK(ce_decimal128_from_string(text, &d));
    return d;
}

static bool prints(ce_decimal128 d, const char *expected)
{
    char text[64];
    size_t length = ce_decimal128_to_string(d, text, sizeof text);
    if (length != strlen(expected) || strcmp(text, expected) != 0) {
        fprintf(stderr, "printed '%s', expected '%s'\n", text, expected);
        return false;
    }
    return true;
}

static bool same_bits(ce_decimal128 a, ce_decimal128 b) { return a.low == b.low && a.high == b.high; }

TEST(text_round_trip)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"0", "0"},
        {"-0", "-0"},
        {"1.50", "1.50"},
        {"-12.500", "-12.500"},
        {"19.99", "19.99"},
        {"0.1", "0.1"},
        {".5", "0.5"},
        {"5.", "5"},
        {"+7", "7"},
        {"0.000001", "0.000001"},
        {"0.0000001", "1E-7"},
        {"0.00", "0.00"},
        {"1E+3", "1E+3"},
        {"1000", "1000"},
        {"12E-3", "0.012"},
        {"1.2e40", "1.2E+40"},
        {"1.23456789012345678901234567890123456", "1.234567890123456789012345678901235"},
        {"12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"},
        {"9999999999999999999999999999999999.5", "1.000000000000000000000000000000000E+34"},
        {"nan", "NaN"},
        {"-NaN", "NaN"},
        {"Inf", "Inf"},
        {"-infinity", "-Inf"},
        {"1E-7000", "0E-6176"},
        {"1E+6120", "1.000000000E+6120"},
        {"1E+7000", "Inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK(prints(parse(cases[i].in), cases[i].out));
    static const char *const invalid[] = {"", "abc", "1e", "1e+", "1.2.3", " 1", "1 ", "+-1", "1_000", "e5", "--1", "0x10"};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        ce_decimal128 d;
        CHECK(!ce_decimal128_from_string(invalid[i], &d));
        CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    }
    /* snprintf's contract: the whole length, a truncated NUL-terminated copy. */
    char small[4] = {'x', 'x', 'x', 'x'};
    CHECK(ce_decimal128_to_string(parse("-12.500"), small, sizeof small) == 7);
    CHECK(strcmp(small, "-12") == 0);
    CHECK(ce_decimal128_to_string(parse("-12.500"), NULL, 0) == 7);
    /* Any bits print as a text that parses back to the same value. */
    for (int i = 0; i < 100000; i++) {
        ce_decimal128 d = {next_random(), next_random()};
        if (i % 2) d.high = (d.high & ~(0x3FFFull << 49)) | ((uint64_t)(6176 + (int)(next_random() % 80) - 40) << 49);
        char text[64];
        CHECK(ce_decimal128_to_string(d, text, sizeof text) < sizeof text);
        ce_decimal128 back = parse(text);
        CHECK(ce_decimal128_is_nan(d) == ce_decimal128_is_nan(back));
        CHECK(ce_decimal128_compare(d, back) == 0);
    }
}

TEST(conversions)
{
    CHECK(prints(ce_decimal128_from_int64(0), "0"));
    CHECK(prints(ce_decimal128_from_int64(-42), "-42"));
    CHECK(prints(ce_decimal128_from_int64(INT64_MIN), "-9223372036854775808"));
    CHECK(prints(ce_decimal128_from_double(0.1), "0.10000000000000001"));
    CHECK(prints(ce_decimal128_from_double(-2.5), "-2.5"));
    CHECK(prints(ce_decimal128_from_double(1e300), "1.0000000000000001E+300"));
    CHECK(ce_decimal128_is_nan(ce_decimal128_from_double(0.0 / 0.0)));
    CHECK(prints(ce_decimal128_from_double(-1.0 / 0.0), "-Inf"));
}

TEST(order)
{
    /* Ascending, with equal neighbours marked. */
    static const struct {
        const char *text;
        bool equal_to_previous;
    } order[] = {
        {"NaN", false}, {"-NaN", true}, {"-Inf", false}, {"-1E+6000", false}, {"-2", false}, {"-1.50", false},
        {"-1.5", true}, {"-0.000001", false}, {"0", false}, {"-0", true}, {"0E+300", true}, {"0.000", true},
        {"1E-6176", false}, {"0.1", false}, {"1", false}, {"1.0", true}, {"10E-1", true}, {"1.000000000000000000000000000000001", false},
        {"2", false}, {"9.999999999999999999999999999999999E+6144", false}, {"Inf", false}, {"infinity", true},
    };
    size_t count = sizeof order / sizeof order[0];
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < count; j++) {
            int expected = i == j ? 0 : i < j ? -1 : 1;
            size_t low = i < j ? i : j, high = i < j ? j : i;
            bool all_equal = true;
            for (size_t k = low + 1; k <= high; k++) all_equal = all_equal && order[k].equal_to_previous;
            if (all_equal) expected = 0;
            CHECK(ce_decimal128_compare(parse(order[i].text), parse(order[j].text)) == expected);
        }
    }
}

TEST(canonical)
{
    CHECK(same_bits(ce_decimal128_canonical(parse("1.50")), parse("1.5")));
    CHECK(same_bits(ce_decimal128_canonical(parse("1500")), parse("15E+2")));
    CHECK(same_bits(ce_decimal128_canonical(parse("-0.000")), parse("0")));
    CHECK(same_bits(ce_decimal128_canonical(parse("-NaN")), ce_decimal128_canonical(parse("NaN"))));
    CHECK(prints(ce_decimal128_canonical(parse("-120.00")), "-1.2E+2"));
    /* Equal values share one canonical form. */
    for (int i = 0; i < 10000; i++) {
        char a[64], b[64];
        uint64_t coefficient = next_random() % 100000;
        int zeros = (int)(next_random() % 6), exponent = (int)(next_random() % 20) - 10;
        snprintf(a, sizeof a, "%lluE%d", (unsigned long long)coefficient, exponent);
        unsigned long long scaled = coefficient;
        for (int k = 0; k < zeros; k++) scaled *= 10;
        snprintf(b, sizeof b, "%lluE%d", scaled, exponent - zeros);
        CHECK(ce_decimal128_compare(parse(a), parse(b)) == 0);
        CHECK(same_bits(ce_decimal128_canonical(parse(a)), ce_decimal128_canonical(parse(b))));
    }
}

TEST(arithmetic)
{
    ce_decimal128 price = parse("19.99");
    CHECK(prints(ce_decimal128_multiply(price, ce_decimal128_from_int64(3)), "59.97"));
    CHECK(prints(ce_decimal128_add(price, parse("0.01")), "20.00"));
    CHECK(prints(ce_decimal128_subtract(price, ce_decimal128_from_int64(20)), "-0.01"));
    CHECK(prints(ce_decimal128_subtract(price, price), "0.00"));
    CHECK(prints(ce_decimal128_divide(ce_decimal128_from_int64(1), ce_decimal128_from_int64(3)),
                 "0.3333333333333333333333333333333333"));
    CHECK(prints(ce_decimal128_divide(ce_decimal128_from_int64(2), ce_decimal128_from_int64(3)),
                 "0.6666666666666666666666666666666667"));
    CHECK(prints(ce_decimal128_divide(ce_decimal128_from_int64(6), ce_decimal128_from_int64(2)), "3"));
    CHECK(prints(ce_decimal128_divide(ce_decimal128_from_int64(1), ce_decimal128_from_int64(4)), "0.25"));
    CHECK(prints(ce_decimal128_divide(parse("1E+40"), ce_decimal128_from_int64(1)), "1E+40"));
    CHECK(prints(ce_decimal128_divide(parse("1.00"), parse("0.5")), "2.0"));
    CHECK(prints(ce_decimal128_divide(ce_decimal128_from_int64(1), ce_decimal128_from_int64(0)), "Inf"));
    CHECK(prints(ce_decimal128_divide(ce_decimal128_from_int64(-1), ce_decimal128_from_int64(0)), "-Inf"));
    CHECK(prints(ce_decimal128_divide(parse("0"), parse("0")), "NaN"));
    CHECK(prints(ce_decimal128_divide(parse("Inf"), parse("-Inf")), "NaN"));
    CHECK(prints(ce_decimal128_add(parse("Inf"), parse("-Inf")), "NaN"));
    CHECK(prints(ce_decimal128_add(parse("Inf"), parse("1")), "Inf"));
    CHECK(prints(ce_decimal128_multiply(parse("0"), parse("-Inf")), "NaN"));
    CHECK(prints(ce_decimal128_multiply(parse("-2"), parse("Inf")), "-Inf"));
    CHECK(prints(ce_decimal128_multiply(parse("9E+6000"), parse("9E+6000")), "Inf"));
    CHECK(prints(ce_decimal128_multiply(parse("1.5"), parse("-0")), "-0.0"));
    CHECK(ce_decimal128_is_nan(ce_decimal128_add(parse("NaN"), parse("1"))));
    /* Half to even at the 34th digit. */
    CHECK(prints(ce_decimal128_add(parse("1E+33"), parse("0.5")), "1000000000000000000000000000000000"));
    CHECK(prints(ce_decimal128_add(parse("1E+33"), parse("1.5")), "1000000000000000000000000000000002"));
    CHECK(prints(ce_decimal128_multiply(parse("3333333333333333333333333333333333"), parse("3")),
                 "9999999999999999999999999999999999"));
    CHECK(prints(ce_decimal128_multiply(parse("3333333333333333333333333333333334"), parse("3")),
                 "1.000000000000000000000000000000000E+34"));
    /* Against exact models: small integers with exponents, products in int64. */
    for (int i = 0; i < 200000; i++) {
        int64_t a = (int64_t)(next_random() % 2000001) - 1000000, b = (int64_t)(next_random() % 2000001) - 1000000;
        int ea = (int)(next_random() % 7) - 3, eb = (int)(next_random() % 7) - 3;
        char text_a[40], text_b[40], expected[80];
        snprintf(text_a, sizeof text_a, "%lldE%d", (long long)a, ea);
        snprintf(text_b, sizeof text_b, "%lldE%d", (long long)b, eb);
        ce_decimal128 x = parse(text_a), y = parse(text_b);
        /* The sum at the smaller exponent. */
        int e = ea < eb ? ea : eb;
        int64_t sa = a, sb = b;
        for (int k = e; k < ea; k++) sa *= 10;
        for (int k = e; k < eb; k++) sb *= 10;
        snprintf(expected, sizeof expected, "%lldE%d", (long long)(sa + sb), e);
        CHECK(ce_decimal128_compare(ce_decimal128_add(x, y), parse(expected)) == 0);
        snprintf(expected, sizeof expected, "%lldE%d", (long long)(sa - sb), e);
        CHECK(ce_decimal128_compare(ce_decimal128_subtract(x, y), parse(expected)) == 0);
        snprintf(expected, sizeof expected, "%lldE%d", (long long)(a * b), ea + eb);
        ce_decimal128 product = ce_decimal128_multiply(x, y);
        CHECK(ce_decimal128_compare(product, parse(expected)) == 0);
        /* An exact product divided by one factor gives the other back. */
        if (b != 0) CHECK(ce_decimal128_compare(ce_decimal128_divide(product, y), x) == 0);
        /* A quotient of 34 digits, rounded: q * b is within half a unit of
         * the last digit times |b| of a. */
        if (b != 0 && a != 0) {
            ce_decimal128 q = ce_decimal128_divide(x, y);
            ce_decimal128 back = ce_decimal128_multiply(q, y);
            ce_decimal128 error = ce_decimal128_subtract(back, x);
            ce_decimal128 bound = ce_decimal128_multiply(x, parse("1E-33"));
            if (ce_decimal128_compare(bound, parse("0")) < 0) bound = ce_decimal128_subtract(parse("0"), bound);
            if (ce_decimal128_compare(error, parse("0")) < 0) error = ce_decimal128_subtract(parse("0"), error);
            CHECK(ce_decimal128_compare(error, bound) <= 0);
        }
    }
}

TEST(hashes_stay)
{
    /* value_hash of decimals (base/decimal.c's normal form) may be stored
     * in files: these are the hashes the engine has always given. */
    static const struct {
        const char *text;
        uint64_t hash;
    } pinned[] = {
        {"0", 0x55899501BF6DA418ull},    {"1", 0xCB7A1C5DBED18502ull},     {"1.0", 0xCB7A1C5DBED18502ull},
        {"-2.5", 0x2052EE9FF8876083ull}, {"1E+40", 0x73F62BA145913DB3ull}, {"NaN", 0xEDB7AA94E81C8DC5ull},
        {"-Inf", 0x260F20720A2804D4ull},
    };
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
        ce_value value = {.type = CE_TYPE_DECIMAL128};
        value.decimal = parse(pinned[i].text);
        CHECK(value_hash(&value) == pinned[i].hash);
    }
}

TEST(average_divides_as_divide)
{
    /* decimal_divide_by_count (averages) keeps 34 digits; its value is the
     * correctly rounded quotient, as ce_decimal128_divide's. */
    CHECK(prints(decimal_divide_by_count(parse("0.6"), 3), "0.2000000000000000000000000000000000"));
    for (int i = 0; i < 20000; i++) {
        char text[64];
        snprintf(text, sizeof text, "%lluE%d", (unsigned long long)(next_random() % 100000000000ull),
                 (int)(next_random() % 40) - 20);
        uint64_t count = 1 + next_random() % 1000;
        ce_decimal128 x = parse(text);
        CHECK(ce_decimal128_compare(decimal_divide_by_count(x, count),
                                    ce_decimal128_divide(x, ce_decimal128_from_int64((int64_t)count))) == 0);
    }
}

static ce_decimal128 average_of(const ce_decimal128 *values, size_t count)
{
    ce_value in[8];
    CHECK(count <= 8);
    for (size_t i = 0; i < count; i++) in[i] = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = values[i]};
    ce_value out;
    CHECK(ce_values_aggregate(in, count, CE_TYPE_DECIMAL128, CE_AGGREGATE_AVG, &out) && out.type == CE_TYPE_DECIMAL128);
    ce_value mixed_out;
    CHECK(ce_values_aggregate(in, count, CE_TYPE_MIXED, CE_AGGREGATE_AVG, &mixed_out) &&
          mixed_out.type == CE_TYPE_DECIMAL128 && same_bits(mixed_out.decimal, out.decimal));
    return out.decimal;
}

/* An average whose sum overflows but whose exact value is finite is that
 * value (it was +Infinity: the sum overflowed first); an infinity or a NaN
 * among the values still makes the average one. */
TEST(average_of_huge_values)
{
    ce_decimal128 max = parse("9999999999999999999999999999999999E6111");
    ce_decimal128 min = parse("-9999999999999999999999999999999999E6111");
    ce_decimal128 zero = parse("0"), infinity = parse("inf");
    CHECK(same_bits(average_of((ce_decimal128[]){max, max, max}, 3), max));
    CHECK(same_bits(average_of((ce_decimal128[]){min, min, min}, 3), min));
    CHECK(prints(average_of((ce_decimal128[]){max, max, zero}, 3), "6.666666666666666666666666666666666E+6144"));
    CHECK(prints(average_of((ce_decimal128[]){max, max, infinity}, 3), "Inf"));
    CHECK(prints(average_of((ce_decimal128[]){max, max, infinity, parse("-inf")}, 4), "NaN"));
    /* Without overflow, the average is the sum divided, as before. */
    CHECK(ce_decimal128_compare(average_of((ce_decimal128[]){parse("0.1"), parse("0.2"), parse("0.6")}, 3), parse("0.3")) == 0);
}
