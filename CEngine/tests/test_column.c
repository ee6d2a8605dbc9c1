/*
 * test_column.c — values (names, UTF-8, order, hashing, decimal128) and
 * column arrays: every type, nullable and not, through random insert, set,
 * erase and split sequences checked against an in-memory model, commits
 * and rollbacks with ce_db_verify after each commit (no leaked or doubly
 * owned node), the encodings of large and compressed values, rejected
 * values, and damaged nodes reported as corrupt.
 */
#include "test_support.h"
#include "column.h"
#include "utf8.h"
#include "value.h"

#include <float.h>
#include <math.h>

#define RANDOM_SEED 0xC01A7E5
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

static ce_db *open_fast(const char *path)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.durability = CE_DURABILITY_UNSAFE_NO_SYNC; /* hundreds of commits; durability is tested elsewhere */
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

/* A case's own database, opened with open_fast (test_db_close ends it). */
static test_db open_case_db(void)
{
    test_db t;
    t.dir = test_make_dir("column");
    t.path = test_path(t.dir, "column.realm");
    t.db = open_fast(t.path);
    return t;
}

static ce_value make_int(int64_t integer) { return (ce_value){.type = CE_TYPE_INT, .integer = integer}; }
static ce_value make_double(double number) { return (ce_value){.type = CE_TYPE_DOUBLE, .double_value = number}; }
static ce_value make_float(float number) { return (ce_value){.type = CE_TYPE_FLOAT, .float_value = number}; }
static ce_value make_string(const char *text)
{
    return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}};
}
static ce_value make_binary(const void *data, size_t size)
{
    return (ce_value){.type = CE_TYPE_BINARY, .binary = {data, size}};
}
static ce_value make_decimal(uint64_t high, uint64_t low)
{
    return (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = {low, high}};
}
static ce_value make_null(void) { return (ce_value){.type = CE_TYPE_NULL}; }

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

static void check_order(const ce_value *smaller, const ce_value *larger)
{
    CHECK(value_compare(smaller, larger) < 0);
    CHECK(value_compare(larger, smaller) > 0);
    CHECK(!value_equal(smaller, larger));
}

static void check_same(const ce_value *a, const ce_value *b)
{
    CHECK(value_compare(a, b) == 0);
    CHECK(value_compare(b, a) == 0);
    CHECK(value_equal(a, b));
    CHECK(value_hash(a) == value_hash(b));
}

TEST(type_names)
{
    static const char *const names[] = {"null",       "int",      "bool", "float", "double", "string", "binary",
                                        "timestamp", "decimal128", "objectId", "uuid", "mixed", "link"};
    for (int type = 0; type <= CE_TYPE_LINK; type++) CHECK(strcmp(ce_type_name((ce_type)type), names[type]) == 0);
    CHECK(strcmp(ce_type_name((ce_type)99), "unknown") == 0);
}

TEST(utf8)
{
    static const char *const valid[] = {"", "plain ascii", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9D\x84\x9E",
                                        "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF", "\xEE\x80\x80",
                                        "a long ascii run before a multibyte \xC3\xA9 and after"};
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) CHECK(utf8_is_valid(valid[i], strlen(valid[i])));
    CHECK(utf8_is_valid("a\0b", 3)); /* U+0000 is a character */
    static const char *const invalid[] = {
        "\x80",             /* a continuation without a lead */
        "\xC0\xAF",         /* overlong '/' */
        "\xC1\xBF",         /* overlong */
        "\xE0\x80\xAF",     /* overlong in three bytes */
        "\xF0\x80\x80\xAF", /* overlong in four bytes */
        "\xED\xA0\x80",     /* surrogate U+D800 */
        "\xED\xBF\xBF",     /* surrogate U+DFFF */
        "\xF4\x90\x80\x80", /* U+110000 */
        "\xF5\x80\x80\x80", /* past U+10FFFF by its lead */
        "\xFF",
        "\xE2\x82",         /* truncated */
        "\xC3",             /* truncated */
        "abc\xE2\x82xyz",   /* a missing continuation */
        "\xC3\x28",         /* a lead followed by ASCII */
        "0123456789abcdef\x80",
    };
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++)
        CHECK(!utf8_is_valid(invalid[i], strlen(invalid[i])));
}

TEST(scalar_order)
{
    ce_value null = make_null();
    check_same(&null, &null);
    ce_value minimum = make_int(INT64_MIN), minus_one = make_int(-1), zero = make_int(0), maximum = make_int(INT64_MAX);
    check_order(&minimum, &minus_one);
    check_order(&minus_one, &zero);
    check_order(&zero, &maximum);
    check_order(&null, &minimum); /* null first */
    ce_value yes = {.type = CE_TYPE_BOOL, .boolean = true}, no = {.type = CE_TYPE_BOOL, .boolean = false};
    check_order(&no, &yes);
    /* Types order by their number: any int before any bool. */
    check_order(&maximum, &no);

    ce_value nan = make_double(NAN), other_nan = make_double(-NAN), minus_infinity = make_double(-INFINITY);
    ce_value minus_zero = make_double(-0.0), plus_zero = make_double(0.0), tiny = make_double(5e-324);
    ce_value infinity = make_double(INFINITY);
    check_same(&nan, &other_nan);
    check_same(&minus_zero, &plus_zero);
    check_order(&nan, &minus_infinity);
    check_order(&minus_infinity, &minus_zero);
    check_order(&plus_zero, &tiny);
    check_order(&tiny, &infinity);
    ce_value float_nan = make_float(NAN), float_minus_zero = make_float(-0.0f), float_zero = make_float(0.0f);
    ce_value float_small = make_float(-1e-30f);
    check_same(&float_minus_zero, &float_zero);
    check_order(&float_nan, &float_small);
    check_order(&float_small, &float_zero);
    check_same(&float_nan, &(ce_value){.type = CE_TYPE_FLOAT, .float_value = -NAN});
    /* Same number, different types: not equal (types order by number). */
    ce_value one_float = make_float(1.0f), one_double = make_double(1.0);
    check_order(&one_float, &one_double);
    ce_value one_int = make_int(1);
    check_order(&one_int, &one_float);

    ce_value empty = make_string(""), a = make_string("a"), ab = make_string("ab"), b = make_string("b");
    check_order(&empty, &a);
    check_order(&a, &ab);
    check_order(&ab, &b);
    ce_value high = make_string("\xC3\xA9"); /* bytes compare unsigned */
    check_order(&b, &high);
    ce_value with_nul = {.type = CE_TYPE_STRING, .string = {"a\0", 2}};
    check_order(&a, &with_nul);
    ce_value copy = {.type = CE_TYPE_STRING, .string = {strdup("ab"), 2}};
    check_same(&ab, &copy);
    free((void *)copy.string.data);
    ce_value empty_binary = make_binary(NULL, 0), empty_binary_2 = make_binary("", 0);
    check_same(&empty_binary, &empty_binary_2);
    ce_value binary_ab = make_binary("ab", 2);
    check_order(&empty_binary, &binary_ab);
    CHECK(value_hash(&binary_ab) != value_hash(&ab)); /* different types, different seeds */

    ce_value before = {.type = CE_TYPE_TIMESTAMP, .timestamp = {-1, -500}};
    ce_value epoch = {.type = CE_TYPE_TIMESTAMP, .timestamp = {0, 0}};
    ce_value after = {.type = CE_TYPE_TIMESTAMP, .timestamp = {0, 1}};
    ce_value later = {.type = CE_TYPE_TIMESTAMP, .timestamp = {1, 0}};
    check_order(&before, &epoch);
    check_order(&epoch, &after);
    check_order(&after, &later);
    CHECK(value_timestamp_is_valid((ce_timestamp){0, -999999999}));
    CHECK(value_timestamp_is_valid((ce_timestamp){5, 999999999}));
    CHECK(!value_timestamp_is_valid((ce_timestamp){5, -1}));
    CHECK(!value_timestamp_is_valid((ce_timestamp){-5, 1}));
    CHECK(!value_timestamp_is_valid((ce_timestamp){0, 1000000000}));

    ce_value id_low = {.type = CE_TYPE_OBJECT_ID}, id_high = {.type = CE_TYPE_OBJECT_ID};
    id_high.object_id.bytes[11] = 1;
    check_order(&id_low, &id_high);
    id_low.object_id.bytes[0] = 0x80; /* the first byte decides */
    check_order(&id_high, &id_low);
    ce_value uuid_a = {.type = CE_TYPE_UUID}, uuid_b = {.type = CE_TYPE_UUID};
    uuid_b.uuid.bytes[15] = 0xFF;
    check_order(&uuid_a, &uuid_b);

    ce_value link_a = {.type = CE_TYPE_LINK, .link = {1, 500}}, link_b = {.type = CE_TYPE_LINK, .link = {2, 0}};
    ce_value link_c = {.type = CE_TYPE_LINK, .link = {2, 1}};
    check_order(&link_a, &link_b);
    check_order(&link_b, &link_c);
    check_same(&link_c, &(ce_value){.type = CE_TYPE_LINK, .link = {2, 1}});

    /* Defaults. */
    ce_value default_decimal = value_default(CE_TYPE_DECIMAL128, false);
    CHECK(default_decimal.decimal.high == 0x3040000000000000ull && default_decimal.decimal.low == 0);
    CHECK(value_default(CE_TYPE_INT, true).type == CE_TYPE_NULL);
    CHECK(value_default(CE_TYPE_STRING, false).string.data != NULL);
}

/* Hand-computed BID encodings: (high, low) = sign | biased exponent << 49 | coefficient. */
TEST(decimal_order)
{
    ce_value one = make_decimal(0x3040000000000000ull, 1);          /* 1E0 */
    ce_value one_tenths = make_decimal(0x303E000000000000ull, 10);  /* 10E-1 */
    ce_value one_big = make_decimal(0x2FFE314DC6448D93ull, 0x38C15B0A00000000ull); /* 10^33 E-33 */
    ce_value minus_one = make_decimal(0xB040000000000000ull, 1);
    ce_value zero = make_decimal(0x3040000000000000ull, 0);         /* 0E0 */
    ce_value minus_zero = make_decimal(0xB040000000000000ull, 0);
    ce_value zero_low_exponent = make_decimal(0, 0);                /* 0E-6176 */
    ce_value ten = make_decimal(0x3042000000000000ull, 1);          /* 1E+1 */
    ce_value nine = make_decimal(0x3040000000000000ull, 9);
    ce_value tenth = make_decimal(0x303E000000000000ull, 1);        /* 0.1 */
    ce_value tenth_2 = make_decimal(0x303C000000000000ull, 10);     /* 0.10 */
    ce_value eleven_hundredths = make_decimal(0x303C000000000000ull, 11);
    ce_value largest_coefficient = make_decimal(0x3041ED09BEAD87C0ull, 0x378D8E63FFFFFFFFull); /* (10^34-1)E0 */
    ce_value ten_to_34 = make_decimal(0x3084000000000000ull, 1);    /* 1E34 */
    ce_value largest = make_decimal(0x5FFFED09BEAD87C0ull, 0x378D8E63FFFFFFFFull); /* (10^34-1)E6111 */
    ce_value smallest_positive = make_decimal(0, 1);                 /* 1E-6176 */
    ce_value two_smallest = make_decimal(0, 2);
    ce_value infinity = make_decimal(0x7800000000000000ull, 0);
    ce_value minus_infinity = make_decimal(0xF800000000000000ull, 0);
    ce_value nan = make_decimal(0x7C00000000000000ull, 0);
    ce_value minus_nan = make_decimal(0xFC00000000000000ull, 5);
    ce_value signaling_nan = make_decimal(0x7E00000000000000ull, 0);
    /* Non-canonical: a coefficient of 10^34 (too large), and the "11" form (at least 2^113): both zero. */
    ce_value too_large_coefficient = make_decimal(0x3040000000000000ull | 0x1ED09BEAD87C0ull, 0x378D8E6400000000ull);
    ce_value eleven_form = make_decimal(0x6000000000000000ull | (6176ull << 47), 12345);
    ce_value a = make_decimal(0x3036000027E41B32ull, 0x46BEC9B16E398115ull); /* 12345678901234567890123456789E-5 */
    ce_value b = make_decimal(0x302C3CDE6FFF9732ull, 0xDE825CD07E96AB20ull); /* 1234567890123456789012345678900000E-10 */

    check_same(&one, &one_tenths);
    check_same(&one, &one_big);
    check_same(&one_tenths, &one_big);
    check_same(&zero, &minus_zero);
    check_same(&zero, &zero_low_exponent);
    check_same(&zero, &too_large_coefficient);
    check_same(&zero, &eleven_form);
    check_same(&tenth, &tenth_2);
    check_same(&a, &b);
    check_same(&nan, &minus_nan);
    check_same(&nan, &signaling_nan);
    check_order(&minus_one, &zero);
    check_order(&zero, &one);
    check_order(&minus_one, &one);
    check_order(&nine, &ten);
    check_order(&one, &ten);
    check_order(&tenth, &eleven_hundredths);
    check_order(&eleven_hundredths, &one);
    check_order(&largest_coefficient, &ten_to_34);
    check_order(&ten_to_34, &largest);
    check_order(&zero, &smallest_positive);
    check_order(&smallest_positive, &two_smallest);
    check_order(&largest, &infinity);
    check_order(&minus_infinity, &minus_one);
    check_order(&nan, &minus_infinity);
    check_order(&nan, &zero);
    ce_value minus_ten = make_decimal(0xB042000000000000ull, 1), minus_nine = make_decimal(0xB040000000000000ull, 9);
    check_order(&minus_ten, &minus_nine); /* larger magnitudes are smaller below zero */
    check_order(&minus_ten, &minus_one);
    CHECK(value_hash(&one) != value_hash(&ten));
    CHECK(value_hash(&infinity) != value_hash(&minus_infinity));
}

/* A reference for decimal order, independent of value.c: the decimal
 * digits of the coefficient (via the compiler's 128-bit integers) compared
 * after aligning the exponents. */
static int reference_compare_finite(unsigned __int128 a, int a_exponent, unsigned __int128 b, int b_exponent)
{
    char a_digits[40], b_digits[40];
    int a_length = 0, b_length = 0;
    char reversed[40];
    int n = 0;
    for (unsigned __int128 v = a; v; v /= 10) reversed[n++] = (char)('0' + (int)(v % 10));
    for (int i = 0; i < n; i++) a_digits[i] = reversed[n - 1 - i];
    a_length = n;
    n = 0;
    for (unsigned __int128 v = b; v; v /= 10) reversed[n++] = (char)('0' + (int)(v % 10));
    for (int i = 0; i < n; i++) b_digits[i] = reversed[n - 1 - i];
    b_length = n;
    if (a_length + a_exponent != b_length + b_exponent) return a_length + a_exponent < b_length + b_exponent ? -1 : 1;
    int longest = a_length > b_length ? a_length : b_length;
    for (int i = 0; i < longest; i++) {
        char x = i < a_length ? a_digits[i] : '0', y = i < b_length ? b_digits[i] : '0';
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

static ce_value encode_decimal(bool negative, unsigned __int128 coefficient, int exponent)
{
    unsigned __int128 bits = ((unsigned __int128)negative << 127) | ((unsigned __int128)(exponent + 6176) << 113) | coefficient;
    return make_decimal((uint64_t)(bits >> 64), (uint64_t)bits);
}

TEST(decimal_random)
{
    seed_random();
    unsigned __int128 max_coefficient = 1;
    for (int i = 0; i < 34; i++) max_coefficient *= 10;
    max_coefficient -= 1;
    for (int round = 0; round < 20000; round++) {
        /* A random coefficient of 1 to 34 digits, then the same number
         * written with extra trailing zeros some of the time. */
        unsigned __int128 coefficient[2];
        int exponent[2];
        bool negative[2];
        for (int k = 0; k < 2; k++) {
            int digits = 1 + (int)(next_random() % 34);
            unsigned __int128 value = 0;
            for (int d = 0; d < digits; d++) value = value * 10 + next_random() % 10;
            if (value == 0) value = 1 + next_random() % 9;
            coefficient[k] = value;
            exponent[k] = (int)(next_random() % 41) - 20;
            negative[k] = next_random() % 4 == 0;
        }
        if (next_random() % 3 == 0) { /* the same number, other representation */
            coefficient[1] = coefficient[0];
            exponent[1] = exponent[0];
            negative[1] = negative[0];
            while (coefficient[1] * 10 <= max_coefficient && next_random() % 3) {
                coefficient[1] *= 10;
                exponent[1]--;
            }
        } else if (next_random() % 2 == 0) { /* the same digits at another scale */
            coefficient[1] = coefficient[0];
            negative[1] = negative[0];
        }
        ce_value a = encode_decimal(negative[0], coefficient[0], exponent[0]);
        ce_value b = encode_decimal(negative[1], coefficient[1], exponent[1]);
        int expected;
        if (negative[0] != negative[1]) expected = negative[0] ? -1 : 1;
        else {
            expected = reference_compare_finite(coefficient[0], exponent[0], coefficient[1], exponent[1]);
            if (negative[0]) expected = -expected;
        }
        CHECK(value_compare(&a, &b) == expected);
        CHECK(value_compare(&b, &a) == -expected);
        if (expected == 0) CHECK(value_hash(&a) == value_hash(&b));
    }
}

static uint64_t hash_of(ce_value value) { return value_hash(&value); }

TEST(hash_consistency)
{
    seed_random();
    ce_value s1 = make_string("hello"), s2 = {.type = CE_TYPE_STRING, .string = {"hello world", 5}};
    check_same(&s1, &s2);
    ce_value s3 = make_string("hellp");
    CHECK(value_hash(&s1) != value_hash(&s3));
    ce_value i1 = make_int(42), i2 = make_int(43);
    CHECK(value_hash(&i1) == hash_of(make_int(42)));
    CHECK(value_hash(&i1) != value_hash(&i2));
    ce_value t1 = {.type = CE_TYPE_TIMESTAMP, .timestamp = {10, 5}}, t2 = {.type = CE_TYPE_TIMESTAMP, .timestamp = {10, 5}};
    check_same(&t1, &t2);
    ce_value n1 = make_null(), n2 = make_null();
    check_same(&n1, &n2);
    /* Hashes spread: 1000 ints give 1000 distinct hashes. */
    uint64_t hashes[1000];
    for (int i = 0; i < 1000; i++) hashes[i] = hash_of(make_int(i));
    for (int i = 0; i < 1000; i++)
        for (int j = i + 1; j < 1000; j++) CHECK(hashes[i] != hashes[j]);
}

/* ------------------------------------------------------------------------ */
/* The model                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct model_value {
    ce_value value; /* strings and binaries point to `bytes` */
    uint8_t *bytes;
} model_value;

typedef struct model {
    model_value *values;
    size_t count, capacity;
} model;

static model_value model_value_copy(const ce_value *value)
{
    model_value copy = {*value, NULL};
    if (value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) {
        size_t size = value->type == CE_TYPE_STRING ? value->string.size : value->binary.size;
        const void *data = value->type == CE_TYPE_STRING ? (const void *)value->string.data : value->binary.data;
        copy.bytes = malloc(size + 1);
        CHECK(copy.bytes != NULL);
        if (size) memcpy(copy.bytes, data, size);
        if (value->type == CE_TYPE_STRING) copy.value.string.data = (const char *)copy.bytes;
        else copy.value.binary.data = copy.bytes;
    }
    return copy;
}

static void model_insert(model *m, size_t index, const ce_value *value)
{
    if (m->count == m->capacity) {
        m->capacity = m->capacity ? m->capacity * 2 : 64;
        m->values = realloc(m->values, m->capacity * sizeof *m->values);
        CHECK(m->values != NULL);
    }
    memmove(m->values + index + 1, m->values + index, (m->count - index) * sizeof *m->values);
    m->values[index] = model_value_copy(value);
    m->count++;
}

static void model_set(model *m, size_t index, const ce_value *value)
{
    model_value copy = model_value_copy(value); /* first: `value` may be this very element */
    free(m->values[index].bytes);
    m->values[index] = copy;
}

static void model_erase(model *m, size_t index)
{
    free(m->values[index].bytes);
    memmove(m->values + index, m->values + index + 1, (m->count - index - 1) * sizeof *m->values);
    m->count--;
}

static void model_clear(model *m)
{
    while (m->count) model_erase(m, m->count - 1);
}

static void model_free(model *m)
{
    model_clear(m);
    free(m->values);
    *m = (model){0};
}

static void model_copy(model *target, const model *source)
{
    model_clear(target);
    for (size_t i = 0; i < source->count; i++) model_insert(target, i, &source->values[i].value);
}

/* Exactly the value stored: floats bit for bit (NaN payloads, -0.0). */
static bool same_stored_value(const ce_value *a, const ce_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case CE_TYPE_FLOAT: return memcmp(&a->float_value, &b->float_value, 4) == 0;
    case CE_TYPE_DOUBLE: return memcmp(&a->double_value, &b->double_value, 8) == 0;
    case CE_TYPE_DECIMAL128: return a->decimal.low == b->decimal.low && a->decimal.high == b->decimal.high;
    default: return value_equal(a, b);
    }
}

static void check_column(const space_state *space, space_ref column, ce_type type, bool nullable, const model *m,
                         size_t first, size_t count)
{
    size_t size;
    CHECK(column_size(space, column, type, nullable, &size));
    CHECK(size == count);
    column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
    for (size_t i = 0; i < count; i++) {
        ce_value value;
        CHECK(column_get(space, column, type, nullable, i, &scratch, &value));
        if (!same_stored_value(&value, &m->values[first + i].value)) {
            fprintf(stderr, "%s%s column: value %zu differs (type %d, expected type %d)\n", nullable ? "nullable " : "",
                    ce_type_name(type), i, (int)value.type, (int)m->values[first + i].value.type);
            exit(1);
        }
    }
    ce_value past;
    CHECK(!column_get(space, column, type, nullable, count, &scratch, &past) &&
          ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    column_scratch_free(&scratch);
}

/* ------------------------------------------------------------------------ */
/* Random values                                                             */
/* ------------------------------------------------------------------------ */

#define BIG_VALUE_SIZE (110 * 1024)
static uint8_t value_buffer[BIG_VALUE_SIZE];

static const int64_t boundary_integers[] = {0, 1, -1, 2, 3, 15, 16, 127, -128, 128, 255, 32767, -32768, 32768,
                                            2147483647LL, -2147483648LL, 2147483648LL, INT64_MAX, INT64_MIN};

/* Text of `size` bytes: ASCII with some two-, three- and four-byte characters. */
static size_t random_text(uint8_t *target, size_t size, bool repetitive)
{
    static const char *const pieces[] = {"a", "b", "z", " ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "Q", "7"};
    size_t length = 0;
    while (length < size) {
        const char *piece = repetitive ? "the same words over and over " : pieces[next_random() % 9];
        size_t piece_length = strlen(piece);
        if (length + piece_length > size) break;
        memcpy(target + length, piece, piece_length);
        length += piece_length;
    }
    return length;
}

static void random_bytes(uint8_t *target, size_t size, bool repetitive)
{
    for (size_t i = 0; i < size; i++) target[i] = repetitive ? (uint8_t)(i % 7) : (uint8_t)next_random();
}

static ce_value random_value(ce_type type, bool nullable)
{
    if (nullable && next_random() % 6 == 0) return make_null();
    ce_value value = {.type = type};
    switch (type) {
    case CE_TYPE_INT:
        value.integer = next_random() % 2 ? boundary_integers[next_random() % (sizeof boundary_integers / 8)]
                                          : (int64_t)(next_random() % 1000) - 500;
        break;
    case CE_TYPE_BOOL: value.boolean = next_random() % 2; break;
    case CE_TYPE_FLOAT: {
        static const float specials[] = {0.0f, -0.0f, 1.5f, -2.25f, 3.4e38f, -1e-45f};
        switch (next_random() % 4) {
        case 0: value.float_value = specials[next_random() % 6]; break;
        case 1: value.float_value = NAN; break;
        default: {
            uint32_t bits = (uint32_t)next_random();
            memcpy(&value.float_value, &bits, 4);
        }
        }
        break;
    }
    case CE_TYPE_DOUBLE: {
        static const double specials[] = {0.0, -0.0, 1.0, -1e308, 5e-324, INFINITY};
        switch (next_random() % 4) {
        case 0: value.double_value = specials[next_random() % 6]; break;
        case 1: value.double_value = -NAN; break;
        default: {
            uint64_t bits = next_random();
            memcpy(&value.double_value, &bits, 8);
        }
        }
        break;
    }
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: {
        size_t size;
        bool repetitive = false;
        uint64_t kind = next_random() % 100;
        if (kind < 15) size = 0;
        else if (kind < 75) size = 1 + next_random() % 30;
        else if (kind < 88) size = 100 + next_random() % 900;
        else if (kind < 94) size = 4096 + next_random() % 2000, repetitive = next_random() % 2;
        else if (kind < 97) size = 60000 + next_random() % 8000, repetitive = next_random() % 2;
        else size = 70000 + next_random() % 30000, repetitive = next_random() % 2;
        if (type == CE_TYPE_STRING) {
            value.string.size = random_text(value_buffer, size, repetitive);
            value.string.data = (const char *)value_buffer;
        } else {
            random_bytes(value_buffer, size, repetitive);
            value.binary.data = value_buffer;
            value.binary.size = size;
        }
        break;
    }
    case CE_TYPE_TIMESTAMP: {
        int64_t seconds = next_random() % 3 ? (int64_t)(next_random() % 4000000000u) - 2000000000 : 0;
        int32_t nanoseconds = (int32_t)(next_random() % 1000000000u);
        if (seconds < 0 || (seconds == 0 && next_random() % 2)) nanoseconds = -nanoseconds;
        if (next_random() % 10 == 0) seconds = next_random() % 2 ? INT64_MAX : INT64_MIN, nanoseconds = 0;
        value.timestamp = (ce_timestamp){seconds, nanoseconds};
        break;
    }
    case CE_TYPE_DECIMAL128:
        value.decimal.low = next_random();
        value.decimal.high = next_random();
        break;
    case CE_TYPE_OBJECT_ID:
        for (int i = 0; i < 12; i++) value.object_id.bytes[i] = (uint8_t)next_random();
        break;
    case CE_TYPE_UUID:
        for (int i = 0; i < 16; i++) value.uuid.bytes[i] = (uint8_t)next_random();
        break;
    default:
        fprintf(stderr, "no random values of type %s\n", ce_type_name(type));
        exit(1);
    }
    return value;
}

/* ------------------------------------------------------------------------ */
/* Random operations against the model                                       */
/* ------------------------------------------------------------------------ */

static const ce_type column_types[] = {CE_TYPE_INT,       CE_TYPE_BOOL,        CE_TYPE_FLOAT,     CE_TYPE_DOUBLE,
                                       CE_TYPE_STRING,    CE_TYPE_BINARY,      CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128,
                                       CE_TYPE_OBJECT_ID, CE_TYPE_UUID};
#define COLUMN_TYPE_COUNT (sizeof column_types / sizeof *column_types)

/* Makes `column` the user root, freeing the previous root. */
static void replace_root(ce_txn *txn, space_ref column)
{
    space_ref old = db_txn_root(txn);
    if (old && old != column) CHECK(node_free_tree(db_txn_space(txn), old));
    CHECK(db_txn_set_root(txn, column));
}

/* A column of the model's values built at once (column_create_from_values:
 * the packed form for required strings and binaries without large values). */
static void build_from_model(space_state *space, ce_type type, bool nullable, const model *m, space_ref *out_column)
{
    ce_value *values = malloc((m->count + 1) * sizeof *values);
    CHECK(values != NULL);
    for (size_t i = 0; i < m->count; i++) values[i] = m->values[i].value;
    CHECK(column_create_from_values(space, type, nullable, values, m->count, out_column));
    bool small = true;
    for (size_t i = 0; i < m->count; i++)
        if ((type == CE_TYPE_STRING || type == CE_TYPE_BINARY) && values[i].type != CE_TYPE_NULL)
            small = small && values[i].string.size < COLUMN_COMPRESS_MIN;
    free(values);
    if ((type == CE_TYPE_STRING || type == CE_TYPE_BINARY) && !nullable && small) {
        node_view node;
        CHECK(node_read(space, *out_column, &node) && node.flags == NODE_BYTES); /* packed */
    }
}

static void random_operations(ce_db *db, ce_type type, bool nullable)
{
    model m = {0}, saved = {0};
    ce_value default_value = value_default(type, nullable);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    size_t initial = next_random() % 2 ? next_random() % 150 : 0;
    space_ref column;
    if (next_random() % 2) {
        CHECK(column_create(space, type, nullable, initial, &column));
        for (size_t i = 0; i < initial; i++) model_insert(&m, i, &default_value);
    } else {
        for (size_t i = 0; i < initial; i++) {
            ce_value value = random_value(type, nullable);
            model_insert(&m, i, &value);
        }
        build_from_model(space, type, nullable, &m, &column);
    }
    replace_root(txn, column);
    check_column(space, column, type, nullable, &m, 0, m.count);
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    for (int round = 0; round < 20; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        space = db_txn_space(txn);
        column = db_txn_root(txn);
        model_copy(&saved, &m);
        for (int step = 0; step < 40; step++) {
            /* Inserts outnumber erases, so the column grows to leaf sizes
             * (up to 200); a split now and then cuts it back. */
            uint64_t choice = next_random() % 200;
            if (m.count == 0 || (choice < 90 && m.count < 200)) {
                size_t at = next_random() % (m.count + 1);
                CHECK(column_insert_default(space, &column, type, nullable, at));
                model_insert(&m, at, &default_value);
            } else if (choice < 150) {
                size_t at = next_random() % m.count;
                ce_value value = random_value(type, nullable);
                CHECK(column_set(space, &column, type, nullable, at, &value));
                model_set(&m, at, &value);
            } else if (choice < 160) {
                /* Copy a value within the column: the source points into it. */
                size_t from = next_random() % m.count, to = next_random() % m.count;
                column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
                ce_value value;
                CHECK(column_get(space, column, type, nullable, from, &scratch, &value));
                CHECK(column_set(space, &column, type, nullable, to, &value));
                column_scratch_free(&scratch);
                model_set(&m, to, &m.values[from].value);
            } else if (choice < 199) {
                size_t at = next_random() % m.count;
                CHECK(column_erase(space, &column, type, nullable, at));
                model_erase(&m, at);
            } else {
                size_t from = next_random() % (m.count + 1);
                space_ref right;
                CHECK(column_split(space, &column, type, nullable, from, &right));
                check_column(space, column, type, nullable, &m, 0, from);
                check_column(space, right, type, nullable, &m, from, m.count - from);
                bool keep_left = from >= m.count - from;
                if (next_random() % 4 == 0) keep_left = !keep_left;
                if (keep_left) {
                    CHECK(column_destroy(space, right));
                    while (m.count > from) model_erase(&m, m.count - 1);
                } else { /* keep the right part */
                    CHECK(db_txn_set_root(txn, right));
                    CHECK(column_destroy(space, column));
                    column = right;
                    for (size_t i = 0; i < from; i++) model_erase(&m, 0);
                }
            }
            CHECK(db_txn_set_root(txn, column));
            if (step % 8 == 7) check_column(space, column, type, nullable, &m, 0, m.count);
        }
        /* A rejected change leaves the column as it was. */
        if (m.count > 0) {
            ce_value wrong = type == CE_TYPE_INT ? make_string("x") : make_int(1);
            space_ref before = column;
            CHECK(!column_set(space, &column, type, nullable, 0, &wrong) &&
                  ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
            CHECK(column == before);
        }
        check_column(space, column, type, nullable, &m, 0, m.count);
        if (round % 3 == 1) {
            /* Built again at once (packed, for a required string or
             * binary): the next round changes the committed packed form. */
            space_ref rebuilt;
            build_from_model(space, type, nullable, &m, &rebuilt);
            CHECK(db_txn_set_root(txn, rebuilt));
            CHECK(column_destroy(space, column));
            column = rebuilt;
            check_column(space, column, type, nullable, &m, 0, m.count);
        }
        if (round % 5 == 4) {
            ce_txn_end(txn); /* rollback */
            model_copy(&m, &saved);
        } else {
            CHECK(ce_txn_commit(txn));
        }
        test_verify(db);
        CHECK(ce_txn_begin_read(db, &txn));
        check_column(db_txn_space(txn), db_txn_root(txn), type, nullable, &m, 0, m.count);
        ce_txn_end(txn);
    }
    /* Destroying the column frees every node (verify proves it). */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(column_destroy(db_txn_space(txn), db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, 0));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    model_free(&m);
    model_free(&saved);
}

/* Every column type, required and nullable. */
TEST(random_operations)
{
    seed_random();
    test_db t = open_case_db();
    for (size_t c = 0; c < COLUMN_TYPE_COUNT; c++) {
        random_operations(t.db, column_types[c], false);
        random_operations(t.db, column_types[c], true);
    }
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Encodings and boundaries                                                  */
/* ------------------------------------------------------------------------ */

/* How a string or binary value is stored: -1 inline, else the flags of its
 * own node (NODE_CONTEXT: compressed). Reads the layout of column.c. */
static int storage_of(const space_state *space, space_ref column, size_t index)
{
    node_view top, large, value;
    CHECK(node_read(space, column, &top));
    int64_t large_ref = node_get(&top, 2);
    if (large_ref == 0) return -1;
    CHECK(node_read(space, (space_ref)large_ref, &large));
    int64_t value_ref = node_get(&large, index);
    if (value_ref == 0) return -1;
    CHECK(node_read(space, (space_ref)value_ref, &value));
    return value.flags;
}

TEST(boundaries)
{
    seed_random();
    test_db t = open_case_db();
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);

    /* The user root holds several columns, one per child. */
    enum { INTS, STRINGS, BINARIES, FLOATS, DOUBLES, DECIMALS, NULLABLE_STRINGS, COLUMN_COUNT };
    space_ref root;
    CHECK(node_create(space, NODE_HAS_REFS, COLUMN_COUNT, 0, &root));
    space_ref columns[COLUMN_COUNT];

    /* Ints: widening from 0 bits to 64 bits and back. */
    CHECK(column_create(space, CE_TYPE_INT, false, 4, &columns[INTS]));
    ce_value values[4] = {make_int(0), make_int(1), make_int(INT64_MIN), make_int(INT64_MAX)};
    for (size_t i = 0; i < 4; i++) CHECK(column_set(space, &columns[INTS], CE_TYPE_INT, false, i, &values[i]));

    /* Strings and binaries: empty, large, compressible, incompressible. */
    static uint8_t big[100 * 1024];
    CHECK(column_create(space, CE_TYPE_STRING, false, 4, &columns[STRINGS]));
    size_t text_size = random_text(big, sizeof big, false);
    ce_value strings[4] = {make_string(""), make_string("short"), {.type = CE_TYPE_STRING, .string = {(const char *)big, text_size}},
                           make_string("")};
    for (size_t i = 0; i < 4; i++) CHECK(column_set(space, &columns[STRINGS], CE_TYPE_STRING, false, i, &strings[i]));

    static uint8_t compressible[64 * 1024], incompressible[64 * 1024], huge_random[100 * 1024];
    random_bytes(compressible, sizeof compressible, true);
    random_bytes(incompressible, sizeof incompressible, false);
    random_bytes(huge_random, sizeof huge_random, false);
    CHECK(column_create(space, CE_TYPE_BINARY, false, 5, &columns[BINARIES]));
    ce_value binaries[5] = {make_binary(NULL, 0), make_binary(compressible, sizeof compressible),
                            make_binary(incompressible, sizeof incompressible),
                            make_binary(huge_random, sizeof huge_random), make_binary("\0\1\2", 3)};
    for (size_t i = 0; i < 5; i++) CHECK(column_set(space, &columns[BINARIES], CE_TYPE_BINARY, false, i, &binaries[i]));
    CHECK(storage_of(space, columns[BINARIES], 0) == -1);
    CHECK(storage_of(space, columns[BINARIES], 1) == (NODE_BYTES | NODE_CONTEXT)); /* zstd */
    CHECK(storage_of(space, columns[BINARIES], 2) == -1);                          /* 64 KiB random: inline */
    CHECK(storage_of(space, columns[BINARIES], 3) == NODE_BYTES);                  /* 100 KiB random: alone */
    CHECK(storage_of(space, columns[BINARIES], 4) == -1);
    /* The 100 KiB text compresses (an alphabet of 9 pieces): stored alone, compressed. */
    CHECK(storage_of(space, columns[STRINGS], 2) == (NODE_BYTES | NODE_CONTEXT));

    /* NaN and -0.0 keep their bits. */
    CHECK(column_create(space, CE_TYPE_FLOAT, true, 4, &columns[FLOATS]));
    ce_value floats[4] = {make_float(NAN), make_float(-0.0f), make_float(-INFINITY), make_null()};
    for (size_t i = 0; i < 4; i++) CHECK(column_set(space, &columns[FLOATS], CE_TYPE_FLOAT, true, i, &floats[i]));
    CHECK(column_create(space, CE_TYPE_DOUBLE, false, 3, &columns[DOUBLES]));
    ce_value doubles[3] = {make_double(-NAN), make_double(-0.0), make_double(DBL_MIN / 4)};
    for (size_t i = 0; i < 3; i++) CHECK(column_set(space, &columns[DOUBLES], CE_TYPE_DOUBLE, false, i, &doubles[i]));

    /* Decimals: the default is 0E0; a set value keeps its exact bits. */
    CHECK(column_create(space, CE_TYPE_DECIMAL128, false, 2, &columns[DECIMALS]));
    ce_value one_tenths = make_decimal(0x303E000000000000ull, 10);
    CHECK(column_set(space, &columns[DECIMALS], CE_TYPE_DECIMAL128, false, 1, &one_tenths));

    /* A nullable string column: null, "" and a value are three things. */
    CHECK(column_create(space, CE_TYPE_STRING, true, 3, &columns[NULLABLE_STRINGS]));
    ce_value empty = make_string(""), word = make_string("word");
    CHECK(column_set(space, &columns[NULLABLE_STRINGS], CE_TYPE_STRING, true, 1, &empty));
    CHECK(column_set(space, &columns[NULLABLE_STRINGS], CE_TYPE_STRING, true, 2, &word));

    for (size_t i = 0; i < COLUMN_COUNT; i++) CHECK(node_set(space, root, i, (int64_t)columns[i]));
    replace_root(txn, root);
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    CHECK(ce_txn_begin_read(db, &txn));
    space = db_txn_space(txn);
    node_view root_node;
    CHECK(node_read(space, db_txn_root(txn), &root_node));
    for (size_t i = 0; i < COLUMN_COUNT; i++) columns[i] = (space_ref)node_get(&root_node, i);
    column_scratch scratch = CE_COLUMN_SCRATCH_INIT, other = CE_COLUMN_SCRATCH_INIT;
    ce_value value;
    for (size_t i = 0; i < 4; i++) {
        CHECK(column_get(space, columns[INTS], CE_TYPE_INT, false, i, NULL, &value));
        CHECK(value.type == CE_TYPE_INT && value.integer == values[i].integer);
    }
    node_view ints;
    CHECK(node_read(space, columns[INTS], &ints));
    CHECK(ints.width == 64);
    for (size_t i = 0; i < 4; i++) {
        CHECK(column_get(space, columns[STRINGS], CE_TYPE_STRING, false, i, &scratch, &value));
        CHECK(same_stored_value(&value, &strings[i]));
    }
    for (size_t i = 0; i < 5; i++) {
        CHECK(column_get(space, columns[BINARIES], CE_TYPE_BINARY, false, i, &scratch, &value));
        CHECK(same_stored_value(&value, &binaries[i]));
        CHECK(value.binary.data != NULL);
    }
    /* Two compressed values at once need two scratches. */
    ce_value text, bytes;
    CHECK(column_get(space, columns[STRINGS], CE_TYPE_STRING, false, 2, &scratch, &text));
    CHECK(column_get(space, columns[BINARIES], CE_TYPE_BINARY, false, 1, &other, &bytes));
    CHECK(same_stored_value(&text, &strings[2]) && same_stored_value(&bytes, &binaries[1]));
    CHECK(!column_get(space, columns[STRINGS], CE_TYPE_STRING, false, 1, NULL, &value) &&
          ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < 4; i++) {
        CHECK(column_get(space, columns[FLOATS], CE_TYPE_FLOAT, true, i, NULL, &value));
        CHECK(same_stored_value(&value, &floats[i]));
    }
    CHECK(column_get(space, columns[FLOATS], CE_TYPE_FLOAT, true, 1, NULL, &value) && signbit(value.float_value));
    for (size_t i = 0; i < 3; i++) {
        CHECK(column_get(space, columns[DOUBLES], CE_TYPE_DOUBLE, false, i, NULL, &value));
        CHECK(same_stored_value(&value, &doubles[i]));
    }
    CHECK(column_get(space, columns[DECIMALS], CE_TYPE_DECIMAL128, false, 0, NULL, &value));
    CHECK(value.decimal.high == VALUE_DECIMAL128_ZERO_HIGH && value.decimal.low == 0);
    CHECK(column_get(space, columns[DECIMALS], CE_TYPE_DECIMAL128, false, 1, NULL, &value));
    CHECK(same_stored_value(&value, &one_tenths));
    CHECK(column_get(space, columns[NULLABLE_STRINGS], CE_TYPE_STRING, true, 0, &scratch, &value) &&
          value.type == CE_TYPE_NULL);
    CHECK(column_get(space, columns[NULLABLE_STRINGS], CE_TYPE_STRING, true, 1, &scratch, &value) &&
          value.type == CE_TYPE_STRING && value.string.size == 0);
    CHECK(column_get(space, columns[NULLABLE_STRINGS], CE_TYPE_STRING, true, 2, &scratch, &value) &&
          same_stored_value(&value, &word));
    /* A read transaction cannot change a column. */
    space_ref committed = columns[INTS];
    CHECK(!column_set(space, &committed, CE_TYPE_INT, false, 0, &values[1]));
    column_scratch_free(&scratch);
    column_scratch_free(&other);
    ce_txn_end(txn);

    /* Replacing large values frees their nodes; the large part goes once
     * no value needs it (verify would report a leak otherwise). */
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    CHECK(node_make_writable(space, &root));
    CHECK(node_read(space, root, &root_node));
    space_ref binaries_column = (space_ref)node_get(&root_node, BINARIES);
    ce_value small = make_binary("small", 5);
    CHECK(column_set(space, &binaries_column, CE_TYPE_BINARY, false, 1, &small));
    CHECK(storage_of(space, binaries_column, 3) == NODE_BYTES);
    CHECK(column_erase(space, &binaries_column, CE_TYPE_BINARY, false, 3));
    node_view top;
    CHECK(node_read(space, binaries_column, &top));
    CHECK(node_get(&top, 2) == 0);
    CHECK(node_set(space, root, BINARIES, (int64_t)binaries_column));
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(node_free_tree(db_txn_space(txn), db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, 0));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

TEST(rejected_values)
{
    test_db t = open_case_db();
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref ints, strings, timestamps;
    CHECK(column_create(space, CE_TYPE_INT, false, 2, &ints));
    CHECK(column_create(space, CE_TYPE_STRING, true, 2, &strings));
    CHECK(column_create(space, CE_TYPE_TIMESTAMP, false, 1, &timestamps));

    ce_value text = make_string("text"), number = make_int(5), null = make_null();
    CHECK(!column_set(space, &ints, CE_TYPE_INT, false, 0, &text));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "int") && strstr(ce_last_error_message(), "string"));
    CHECK(!column_set(space, &ints, CE_TYPE_INT, false, 0, &null));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT && strstr(ce_last_error_message(), "null"));
    CHECK(!column_set(space, &strings, CE_TYPE_STRING, true, 0, &number));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_value double_value = make_double(1.0);
    CHECK(!column_set(space, &ints, CE_TYPE_INT, false, 0, &double_value));
    CHECK(strstr(ce_last_error_message(), "double"));

    static const char *const bad_texts[] = {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "ok\xE2\x82"};
    for (size_t i = 0; i < 4; i++) {
        ce_value bad = make_string(bad_texts[i]);
        CHECK(!column_set(space, &strings, CE_TYPE_STRING, true, 1, &bad));
        CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT && strstr(ce_last_error_message(), "UTF-8"));
    }
    ce_value no_data = {.type = CE_TYPE_STRING, .string = {NULL, 3}};
    CHECK(!column_set(space, &strings, CE_TYPE_STRING, true, 1, &no_data));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_value bad_time = {.type = CE_TYPE_TIMESTAMP, .timestamp = {1, -5}};
    CHECK(!column_set(space, &timestamps, CE_TYPE_TIMESTAMP, false, 0, &bad_time));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_value nanos_too_large = {.type = CE_TYPE_TIMESTAMP, .timestamp = {1, 1000000000}};
    CHECK(!column_set(space, &timestamps, CE_TYPE_TIMESTAMP, false, 0, &nanos_too_large));

    /* Positions past the end. */
    CHECK(!column_set(space, &ints, CE_TYPE_INT, false, 2, &number) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    CHECK(!column_insert_default(space, &ints, CE_TYPE_INT, false, 3) &&
          ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    CHECK(!column_erase(space, &ints, CE_TYPE_INT, false, 2) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    space_ref right;
    CHECK(!column_split(space, &ints, CE_TYPE_INT, false, 3, &right) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);

    /* Mixed and link are the table layer's; null is not a property type. */
    space_ref unsupported;
    static const ce_type others[] = {CE_TYPE_MIXED, CE_TYPE_LINK, CE_TYPE_NULL, (ce_type)77};
    for (size_t i = 0; i < 4; i++) {
        CHECK(!column_create(space, others[i], true, 1, &unsupported));
        CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT && strstr(ce_last_error_message(), "not supported"));
    }
    CHECK(!column_create(space, CE_TYPE_INT, false, COLUMN_MAX_COUNT + 1, &unsupported));
    /* A column read as another type or nullability has the wrong shape. */
    size_t count;
    CHECK(!column_size(space, strings, CE_TYPE_STRING, false, &count) && ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(!column_size(space, ints, CE_TYPE_DECIMAL128, false, &count) && ce_last_error_code() == CE_ERR_CORRUPT);

    /* Nothing above changed the columns. */
    ce_value value;
    CHECK(column_get(space, ints, CE_TYPE_INT, false, 0, NULL, &value) && value.type == CE_TYPE_INT && value.integer == 0);
    column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
    CHECK(column_get(space, strings, CE_TYPE_STRING, true, 1, &scratch, &value) && value.type == CE_TYPE_NULL);
    column_scratch_free(&scratch);
    ce_txn_end(txn);
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Damaged columns                                                           */
/* ------------------------------------------------------------------------ */

static space_ref int_node(space_state *space, const int64_t *values, size_t count)
{
    space_ref ref;
    CHECK(node_create(space, 0, count, 0, &ref));
    for (size_t i = 0; i < count; i++) CHECK(node_set(space, ref, i, values[i]));
    return ref;
}

static space_ref top_node(space_state *space, const space_ref *children, size_t count)
{
    space_ref ref;
    CHECK(node_create(space, NODE_HAS_REFS, count, 0, &ref));
    for (size_t i = 0; i < count; i++) CHECK(node_set(space, ref, i, (int64_t)children[i]));
    return ref;
}

typedef struct damaged_column {
    ce_type type;
    bool nullable;
    const char *what;
    space_ref ref;
    bool size_fails; /* the shape is wrong (else only reading a value or a change fails) */
    size_t bad_index;
    bool change_allowed; /* a change does not read the damaged bytes (a compressed value is
                            decompressed only when read), and may replace them */
} damaged_column;

TEST(damaged_columns)
{
    seed_random();
    char *dir = test_make_dir("column");
    char *path = test_path(dir, "damaged.realm");
    ce_db *db = open_fast(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    damaged_column damaged[16];
    size_t count = 0;

    { /* null bits shorter than the values */
        space_ref parts[2] = {int_node(space, (int64_t[]){1, 2, 3}, 3), int_node(space, (int64_t[]){0, 0}, 2)};
        damaged[count++] = (damaged_column){CE_TYPE_INT, true, "short null bits", top_node(space, parts, 2), true, 0, false};
    }
    { /* a top node with a child too many */
        space_ref parts[3] = {int_node(space, (int64_t[]){1}, 1), int_node(space, (int64_t[]){0}, 1),
                           int_node(space, (int64_t[]){0}, 1)};
        damaged[count++] = (damaged_column){CE_TYPE_INT, true, "three children", top_node(space, parts, 3), true, 0, false};
    }
    { /* string ends that go backwards */
        space_ref bytes;
        CHECK(node_create_bytes(space, 0, "abcde", 5, &bytes));
        space_ref parts[3] = {int_node(space, (int64_t[]){3, 2, 5}, 3), bytes, 0};
        damaged[count++] = (damaged_column){CE_TYPE_STRING, false, "ends backwards", top_node(space, parts, 3), false, 1, false};
    }
    { /* string ends past the bytes */
        space_ref bytes;
        CHECK(node_create_bytes(space, 0, "abcde", 5, &bytes));
        space_ref parts[3] = {int_node(space, (int64_t[]){3, 10}, 2), bytes, 0};
        damaged[count++] = (damaged_column){CE_TYPE_STRING, false, "ends past bytes", top_node(space, parts, 3), true, 1, false};
    }
    { /* a negative end */
        space_ref bytes;
        CHECK(node_create_bytes(space, 0, "abcde", 5, &bytes));
        space_ref parts[3] = {int_node(space, (int64_t[]){-4, 5}, 2), bytes, 0};
        damaged[count++] = (damaged_column){CE_TYPE_BINARY, false, "negative end", top_node(space, parts, 3), false, 0, false};
    }
    { /* a bool of 2 */
        damaged[count++] = (damaged_column){CE_TYPE_BOOL, false, "bool 2", int_node(space, (int64_t[]){0, 2}, 2), false, 1, false};
    }
    { /* a null bit of 3 */
        space_ref parts[2] = {int_node(space, (int64_t[]){0, 0}, 2), int_node(space, (int64_t[]){0, 3}, 2)};
        damaged[count++] = (damaged_column){CE_TYPE_DOUBLE, true, "null bit 3", top_node(space, parts, 2), false, 1, false};
    }
    { /* a float wider than 32 bits */
        damaged[count++] = (damaged_column){CE_TYPE_FLOAT, false, "wide float",
                                             int_node(space, (int64_t[]){0, 1ll << 40}, 2), false, 1, false};
    }
    { /* nanoseconds out of range */
        space_ref parts[2] = {int_node(space, (int64_t[]){5}, 1), int_node(space, (int64_t[]){2000000000}, 1)};
        damaged[count++] = (damaged_column){CE_TYPE_TIMESTAMP, false, "nanoseconds", top_node(space, parts, 2), false, 0, false};
    }
    { /* 17 bytes of decimals */
        space_ref bytes;
        CHECK(node_create_bytes(space, 0, "0123456789abcdefg", 17, &bytes));
        damaged[count++] = (damaged_column){CE_TYPE_DECIMAL128, false, "17 bytes", bytes, true, 0, false};
    }
    { /* a width-0 node that claims a million values */
        space_ref values;
        CHECK(node_create(space, 0, 1000000, 0, &values));
        damaged[count++] = (damaged_column){CE_TYPE_INT, false, "huge count", values, true, 0, false};
    }
    { /* a compressed value that is not a zstd frame */
        space_ref bytes, garbage, large;
        CHECK(node_create_bytes(space, 0, "", 0, &bytes));
        CHECK(node_create_bytes(space, NODE_CONTEXT, "definitely not zstd", 19, &garbage));
        CHECK(node_create(space, NODE_HAS_REFS, 1, 0, &large));
        CHECK(node_set(space, large, 0, (int64_t)garbage));
        space_ref parts[3] = {int_node(space, (int64_t[]){0}, 1), bytes, large};
        damaged[count++] = (damaged_column){CE_TYPE_BINARY, false, "bad zstd", top_node(space, parts, 3), false, 0, true};
    }
    { /* a large value that also has inline bytes */
        space_ref bytes, alone, large;
        CHECK(node_create_bytes(space, 0, "xy", 2, &bytes));
        CHECK(node_create_bytes(space, 0, "alone", 5, &alone));
        CHECK(node_create(space, NODE_HAS_REFS, 1, 0, &large));
        CHECK(node_set(space, large, 0, (int64_t)alone));
        space_ref parts[3] = {int_node(space, (int64_t[]){2}, 1), bytes, large};
        damaged[count++] = (damaged_column){CE_TYPE_STRING, false, "large and inline", top_node(space, parts, 3), false, 0, false};
    }
    { /* a values part flagged as bytes */
        space_ref bytes;
        CHECK(node_create_bytes(space, 0, "abcdefgh", 8, &bytes));
        damaged[count++] = (damaged_column){CE_TYPE_INT, false, "int as bytes", bytes, true, 0, false};
    }
    { /* a top whose child is a tagged integer */
        space_ref parts[2] = {int_node(space, (int64_t[]){1}, 1), (space_ref)node_tag(7)};
        damaged[count++] = (damaged_column){CE_TYPE_INT, true, "tagged child", top_node(space, parts, 2), true, 0, false};
    }

    space_ref root = top_node(space, (space_ref[]){damaged[0].ref, damaged[1].ref, damaged[2].ref, damaged[3].ref,
                                              damaged[4].ref, damaged[5].ref, damaged[6].ref, damaged[7].ref,
                                              damaged[8].ref, damaged[9].ref, damaged[10].ref, damaged[11].ref,
                                              damaged[12].ref, damaged[13].ref, damaged[14].ref},
                           count);
    CHECK(count == 15);
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db); /* the nodes are sound as nodes; only their meaning is damaged */

    CHECK(ce_txn_begin_read(db, &txn));
    space = db_txn_space(txn);
    node_view root_node;
    CHECK(node_read(space, db_txn_root(txn), &root_node));
    column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
    for (size_t i = 0; i < count; i++) {
        damaged_column *column = &damaged[i];
        column->ref = (space_ref)node_get(&root_node, i);
        size_t size;
        ce_value value;
        bool size_ok = column_size(space, column->ref, column->type, column->nullable, &size);
        bool get_ok = column_get(space, column->ref, column->type, column->nullable, column->bad_index, &scratch, &value);
        if (size_ok == column->size_fails || get_ok) {
            fprintf(stderr, "damaged column '%s' was not reported (size %d, get %d)\n", column->what, size_ok, get_ok);
            exit(1);
        }
        CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
        CHECK(strstr(ce_last_error_message(), "invalid database") != NULL);
    }
    column_scratch_free(&scratch);
    ce_txn_end(txn);

    /* Every change checks every value first, and changes nothing. */
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    CHECK(node_read(space, db_txn_root(txn), &root_node));
    for (size_t i = 0; i < count; i++) {
        damaged_column *column = &damaged[i];
        if (column->change_allowed) continue;
        space_ref ref = column->ref;
        ce_value value = value_default(column->type, false);
        if (column->type == CE_TYPE_BOOL) value.boolean = true;
        CHECK(!column_set(space, &ref, column->type, column->nullable, 0, &value));
        CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
        CHECK(!column_insert_default(space, &ref, column->type, column->nullable, 0));
        CHECK(!column_erase(space, &ref, column->type, column->nullable, 0));
        space_ref right;
        CHECK(!column_split(space, &ref, column->type, column->nullable, 0, &right));
        CHECK(ref == column->ref);
    }
    ce_txn_end(txn);

    /* A node with two parents (uncommitted: verify would reject the file). */
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    space_ref shared = int_node(space, (int64_t[]){0, 0}, 2);
    space_ref twice = top_node(space, (space_ref[]){shared, shared}, 2);
    size_t size;
    CHECK(!column_size(space, twice, CE_TYPE_INT, true, &size) && ce_last_error_code() == CE_ERR_CORRUPT);
    ce_txn_end(txn);

    CHECK(ce_db_close(db));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Random bytes of a file of columns damaged: every call returns (true or
 * an error), none crashes or reads out of bounds (run under ASan). */
static void exercise_column(ce_txn *txn, space_ref column, ce_type type, bool nullable)
{
    space_state *space = db_txn_space(txn);
    column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
    size_t count = 0;
    if (column_size(space, column, type, nullable, &count)) {
        for (size_t i = 0; i < count; i++) {
            ce_value value;
            (void)column_get(space, column, type, nullable, i, &scratch, &value);
        }
    }
    if (ce_txn_is_write(txn)) {
        ce_value value = random_value(type, nullable);
        space_ref ref = column, right;
        (void)column_set(space, &ref, type, nullable, 0, &value);
        (void)column_insert_default(space, &ref, type, nullable, 1);
        (void)column_erase(space, &ref, type, nullable, 0);
        (void)column_split(space, &ref, type, nullable, 1, &right);
    }
    column_scratch_free(&scratch);
}

typedef struct node_list {
    space_ref refs[512];
    uint64_t sizes[512];
    size_t count;
} node_list;

static bool collect_node(void *context, space_ref ref, const node_view *node)
{
    node_list *list = context;
    CHECK(list->count < 512);
    list->refs[list->count] = ref;
    list->sizes[list->count++] = node_size(node);
    return true;
}

TEST(random_damage)
{
    seed_random();
    char *dir = test_make_dir("column");
    char *path = test_path(dir, "pristine.realm");
    char *copy_path = test_path(dir, "damaged-copy.realm");
    ce_db *db = open_fast(path);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref columns[2 * COLUMN_TYPE_COUNT];
    for (size_t t = 0; t < 2 * COLUMN_TYPE_COUNT; t++) {
        ce_type type = column_types[t / 2];
        bool nullable = t % 2;
        CHECK(column_create(space, type, nullable, 0, &columns[t]));
        for (size_t i = 0; i < 12; i++) {
            ce_value value = random_value(type, nullable);
            if ((type == CE_TYPE_STRING || type == CE_TYPE_BINARY) && i % 4 == 0) {
                /* Compressed and large values too. */
                size_t size = i % 8 == 0 ? 5000 : 70000;
                value.type = type;
                if (type == CE_TYPE_STRING) {
                    value.string.size = random_text(value_buffer, size, i % 8 == 0);
                    value.string.data = (const char *)value_buffer;
                } else {
                    random_bytes(value_buffer, size, false);
                    value.binary.data = value_buffer;
                    value.binary.size = size;
                }
            }
            CHECK(column_insert_default(space, &columns[t], type, nullable, i));
            CHECK(column_set(space, &columns[t], type, nullable, i, &value));
        }
    }
    space_ref root = top_node(space, columns, 2 * COLUMN_TYPE_COUNT);
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    /* The nodes of the columns: damage goes into them, header or payload,
     * each node as likely as any other (most bytes of the file are large
     * values, where a flip only changes a value). */
    node_list nodes = {0};
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(node_walk_tree(db_txn_space(txn), db_txn_root(txn), 16, collect_node, &nodes));
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    CHECK(nodes.count > 2 * COLUMN_TYPE_COUNT);

    FILE *file = fopen(path, "rb");
    CHECK(file != NULL);
    CHECK(fseek(file, 0, SEEK_END) == 0);
    long file_size = ftell(file);
    CHECK(file_size > (long)CE_HEADER_SIZE);
    uint8_t *pristine = malloc((size_t)file_size), *damaged = malloc((size_t)file_size);
    CHECK(pristine && damaged);
    rewind(file);
    CHECK(fread(pristine, 1, (size_t)file_size, file) == (size_t)file_size);
    fclose(file);

    for (int round = 0; round < 400; round++) {
        memcpy(damaged, pristine, (size_t)file_size);
        int flips = 1 + (int)(next_random() % 4);
        for (int f = 0; f < flips; f++) {
            size_t node = next_random() % nodes.count;
            /* Headers and the first bytes (counts, offsets, refs) matter most. */
            uint64_t span = next_random() % 2 ? 16 : nodes.sizes[node];
            if (span > nodes.sizes[node]) span = nodes.sizes[node];
            size_t at = (size_t)(nodes.refs[node] + next_random() % span);
            CHECK(at < (size_t)file_size);
            damaged[at] ^= (uint8_t)(1u << (next_random() % 8));
        }
        file = fopen(copy_path, "wb");
        CHECK(file != NULL);
        CHECK(fwrite(damaged, 1, (size_t)file_size, file) == (size_t)file_size);
        fclose(file);
        ce_db_options options;
        ce_db_options_init(&options);
        options.durability = CE_DURABILITY_UNSAFE_NO_SYNC;
        if (!ce_db_open(copy_path, &options, &db)) continue; /* the top node itself was hit */
        for (int write = 0; write < 2; write++) {
            if (!(write ? ce_txn_begin_write(db, &txn) : ce_txn_begin_read(db, &txn))) continue;
            node_view root_node;
            if (node_read(db_txn_space(txn), db_txn_root(txn), &root_node) && root_node.count == 2 * COLUMN_TYPE_COUNT) {
                for (size_t t = 0; t < 2 * COLUMN_TYPE_COUNT; t++)
                    exercise_column(txn, (space_ref)node_get(&root_node, t), column_types[t / 2], t % 2);
            }
            ce_txn_end(txn);
        }
        CHECK(ce_db_close(db));
    }
    free(pristine);
    free(damaged);
    free(path);
    free(copy_path);
    test_cleanup_dir(dir);
    free(dir);
}

/* The packed form of a required string or binary column (column.c): ends of
 * each width at their limits read back, each kind of change unpacks it into
 * parts first, and a damaged packed node is reported, never read. */
TEST(packed_columns)
{
    test_db t = open_case_db();
    ce_db *db = t.db;
    /* Values whose last ends fall on the limits of 8-, 16- and 32-bit ends. */
    static const size_t last_ends[] = {0, 1, 127, 128, 255, 256, 32767, 32768, 70000};
    static uint8_t text[70000];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)('a' + i % 26);
    for (size_t e = 0; e < sizeof last_ends / sizeof *last_ends; e++) {
        for (int change = 0; change < 5; change++) {
            ce_type type = change % 2 ? CE_TYPE_BINARY : CE_TYPE_STRING;
            model m = {0};
            /* Three values: two short ones and the rest, so the last end is
             * last_ends[e] (values stay below the compression threshold). */
            size_t total = last_ends[e], sizes[3] = {total / 4, total / 4, total - 2 * (total / 4)};
            size_t at = 0;
            for (size_t i = 0; i < 3; i++) {
                ce_value value = {.type = type};
                size_t size = sizes[i] < COLUMN_COMPRESS_MIN ? sizes[i] : COLUMN_COMPRESS_MIN - 1;
                if (type == CE_TYPE_STRING) {
                    value.string.data = (const char *)text + at;
                    value.string.size = size;
                } else {
                    value.binary.data = text + at;
                    value.binary.size = size;
                }
                at += size;
                model_insert(&m, i, &value);
            }
            ce_txn *txn;
            CHECK(ce_txn_begin_write(db, &txn));
            space_state *space = db_txn_space(txn);
            space_ref column;
            build_from_model(space, type, false, &m, &column);
            replace_root(txn, column);
            check_column(space, column, type, false, &m, 0, m.count);
            CHECK(ce_txn_commit(txn));
            test_verify(db);
            CHECK(ce_txn_begin_write(db, &txn));
            space = db_txn_space(txn);
            column = db_txn_root(txn);
            check_column(space, column, type, false, &m, 0, m.count);
            ce_value short_value = make_string("xyz");
            if (type == CE_TYPE_BINARY) {
                short_value.type = type;
                short_value.binary.data = text;
                short_value.binary.size = 3;
            }
            switch (change) {
            case 0:
                CHECK(column_set(space, &column, type, false, 1, &short_value));
                model_set(&m, 1, &short_value);
                break;
            case 1:
                CHECK(column_insert(space, &column, type, false, 3, &short_value));
                model_insert(&m, 3, &short_value);
                break;
            case 2:
                CHECK(column_erase(space, &column, type, false, 0));
                model_erase(&m, 0);
                break;
            case 3: CHECK(column_insert_default(space, &column, type, false, 0));
                model_insert(&m, 0, &(ce_value){.type = type});
                break;
            default: {
                space_ref right;
                CHECK(column_split(space, &column, type, false, 1, &right));
                check_column(space, right, type, false, &m, 1, 2);
                CHECK(column_destroy(space, right));
                model_erase(&m, 2);
                model_erase(&m, 1);
                break;
            }
            }
            CHECK(db_txn_set_root(txn, column));
            node_view node;
            CHECK(node_read(space, column, &node) && node.flags == NODE_HAS_REFS); /* parts now */
            check_column(space, column, type, false, &m, 0, m.count);
            CHECK(ce_txn_commit(txn));
            test_verify(db);
            CHECK(ce_txn_begin_write(db, &txn));
            CHECK(column_destroy(db_txn_space(txn), db_txn_root(txn)));
            CHECK(db_txn_set_root(txn, 0));
            CHECK(ce_txn_commit(txn));
            model_free(&m);
        }
    }

    /* Damaged packed nodes: header, count, ends, last end. */
    static const struct {
        uint8_t bytes[24];
        size_t size;
        const char *message;
    } damaged[] = {
        {{8, 0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 'c'}, 12, NULL},              /* sound: "abc" */
        {{12, 0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 'c'}, 12, "bad header"},      /* width 12 */
        {{8, 0, 1, 0, 1, 0, 0, 0, 3, 'a', 'b', 'c'}, 12, "bad header"},       /* padding */
        {{8, 0, 0, 0, 9, 0, 0, 0, 3, 'a', 'b', 'c'}, 12, "cannot hold"},      /* 9 ends in 4 bytes */
        {{8, 0, 0, 0, 1, 0, 2, 0, 3, 'a', 'b', 'c'}, 12, "at most"},          /* 131073 values */
        {{8, 0, 0, 0, 1, 0, 0, 0, 9, 'a', 'b', 'c'}, 12, "lies outside"},     /* end past the bytes */
        {{8, 0, 0, 0, 1, 0, 0, 0, 2, 'a', 'b', 'c'}, 12, "holds 3 bytes"},    /* last end short */
        {{8, 0, 0, 0}, 4, "holds 4 bytes"},                                    /* header cut */
        {{16, 0, 0, 0, 3, 0, 0, 0, 3, 0, 1, 0, 3, 0, 'a', 'b', 'c'}, 17, "before it starts"}, /* ends out of order */
    };
    for (size_t d = 0; d < sizeof damaged / sizeof *damaged; d++) {
        /* Committed, as damage read from the file is. */
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        space_ref column;
        CHECK(node_create_bytes(db_txn_space(txn), 0, damaged[d].bytes, damaged[d].size, &column));
        CHECK(db_txn_set_root(txn, column));
        CHECK(ce_txn_commit(txn));
        CHECK(ce_txn_begin_write(db, &txn));
        space_state *space = db_txn_space(txn);
        column = db_txn_root(txn);
        column_scratch scratch = CE_COLUMN_SCRATCH_INIT;
        ce_value value;
        size_t count = 0;
        bool read = column_size(space, column, CE_TYPE_STRING, false, &count);
        for (size_t i = 0; i < count && read; i++) read = column_get(space, column, CE_TYPE_STRING, false, i, &scratch, &value);
        if (!damaged[d].message) {
            CHECK(read && value.string.size == 3 && memcmp(value.string.data, "abc", 3) == 0);
        } else {
            CHECK(!read && ce_last_error_code() == CE_ERR_CORRUPT && strstr(ce_last_error_message(), damaged[d].message));
            /* A change reports it too, and leaves the column as it was. */
            space_ref before = column;
            CHECK(!column_set(space, &column, CE_TYPE_STRING, false, 0, &(ce_value){.type = CE_TYPE_STRING}));
            CHECK(ce_last_error_code() == CE_ERR_CORRUPT && column == before);
        }
        column_scratch_free(&scratch);
        CHECK(node_free(space, column) && db_txn_set_root(txn, 0));
        CHECK(ce_txn_commit(txn));
        test_verify(db);
    }
    test_db_close(&t);
}
