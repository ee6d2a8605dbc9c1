/*
 * decimal.c — decimal128 values: decoding, their order and normal form,
 * text in and out, conversions and arithmetic; ce_decimal128_* of cengine.h.
 *
 * Owns: every reading and writing of a decimal128's 128 bits in the engine
 * (value.c orders and hashes through it, the query layer converts and sums
 * through it, Swift's Decimal128 parses, prints, compares and computes
 * through the public functions).
 * Never: allocates, or uses a compiler-specific 128-bit type (coefficients
 * are handled as two or four 64-bit words).
 *
 * The encoding (IEEE 754-2008, binary integer decimal). Bit 127 is the
 * sign. If bits 126-125 are not 11, bits 126-113 are the biased exponent
 * and bits 112-0 the coefficient. If they are 11: bits 126-122 = 11110 is
 * an infinity, 11111 a NaN; otherwise bits 124-111 are the exponent and the
 * coefficient is 100 followed by bits 110-0, which is at least 2^113 and so
 * above the largest valid coefficient (10^34 - 1): such a number is
 * "non-canonical" and by the standard its value is zero, as is any
 * coefficient above 10^34 - 1 in the first form. The exponent bias is 6176:
 * exponents run from -6176 to 6111.
 */
#include "decimal.h"
#include "error.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DECIMAL_BIAS 6176
#define DECIMAL_MAX_BIASED 12287
#define DECIMAL_DIGITS 34

/* ------------------------------------------------------------------------ */
/* 128-bit and 256-bit unsigned integers                                     */
/* ------------------------------------------------------------------------ */

/* An unsigned 128-bit integer. */
typedef struct wide {
    uint64_t low, high;
} wide;

/* 10^34, one more than the largest coefficient. */
static const wide decimal_limit = {0x378D8E6400000000ull, 0x0001ED09BEAD87C0ull};

static int wide_compare(wide a, wide b)
{
    if (a.high != b.high) return a.high < b.high ? -1 : 1;
    if (a.low != b.low) return a.low < b.low ? -1 : 1;
    return 0;
}

static bool wide_is_zero(wide a) { return a.low == 0 && a.high == 0; }

static wide wide_add_small(wide a, uint64_t b)
{
    wide sum = {a.low + b, a.high};
    if (sum.low < a.low) sum.high++;
    return sum;
}

/* a * 10 (the callers keep it below 2^128). */
static wide wide_times_ten(wide a)
{
    wide eight = {a.low << 3, (a.high << 3) | (a.low >> 61)};
    wide two = {a.low << 1, (a.high << 1) | (a.low >> 63)};
    wide sum = {eight.low + two.low, eight.high + two.high};
    if (sum.low < eight.low) sum.high++;
    return sum;
}

/* a / divisor, by long division over 32-bit pieces. */
static wide wide_divide_small(wide a, uint32_t divisor, uint32_t *out_remainder)
{
    uint32_t pieces[4] = {(uint32_t)(a.high >> 32), (uint32_t)a.high, (uint32_t)(a.low >> 32), (uint32_t)a.low};
    uint64_t remainder = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t current = (remainder << 32) | pieces[i];
        pieces[i] = (uint32_t)(current / divisor);
        remainder = current % divisor;
    }
    *out_remainder = (uint32_t)remainder;
    return (wide){((uint64_t)pieces[2] << 32) | pieces[3], ((uint64_t)pieces[0] << 32) | pieces[1]};
}

/* The number of decimal digits of a non-zero coefficient (at most 34). */
static unsigned wide_digits(wide value)
{
    unsigned digits = 0;
    wide power = {1, 0};
    while (wide_compare(power, value) <= 0) {
        power = wide_times_ten(power);
        digits++;
    }
    return digits;
}

/* An unsigned 256-bit integer, little-endian 64-bit limbs. */
typedef struct big {
    uint64_t limbs[4];
} big;

static big big_of(wide value) { return (big){{value.low, value.high, 0, 0}}; }

static bool big_is_zero(const big *a) { return !(a->limbs[0] | a->limbs[1] | a->limbs[2] | a->limbs[3]); }

static int big_compare(const big *a, const big *b)
{
    for (int i = 3; i >= 0; i--)
        if (a->limbs[i] != b->limbs[i]) return a->limbs[i] < b->limbs[i] ? -1 : 1;
    return 0;
}

static big big_add(const big *a, const big *b)
{
    big sum;
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t partial = a->limbs[i] + carry;
        carry = partial < carry;
        sum.limbs[i] = partial + b->limbs[i];
        carry += sum.limbs[i] < partial;
    }
    return sum;
}

static big big_subtract(const big *a, const big *b) /* a >= b */
{
    big difference;
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t partial = a->limbs[i] - borrow;
        borrow = a->limbs[i] < borrow;
        difference.limbs[i] = partial - b->limbs[i];
        borrow += partial < b->limbs[i];
    }
    return difference;
}

static big big_times_ten(const big *a)
{
    big result;
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        /* a limb * 10 + carry, in 32-bit halves */
        uint64_t low = (a->limbs[i] & 0xFFFFFFFFull) * 10 + carry;
        uint64_t high = (a->limbs[i] >> 32) * 10 + (low >> 32);
        result.limbs[i] = (low & 0xFFFFFFFFull) | (high << 32);
        carry = high >> 32;
    }
    return result;
}

static big big_divide_small(const big *a, uint32_t divisor, uint32_t *out_remainder)
{
    big quotient;
    uint64_t remainder = 0;
    for (int i = 3; i >= 0; i--) {
        uint64_t high = (remainder << 32) | (a->limbs[i] >> 32);
        uint64_t q_high = high / divisor;
        remainder = high % divisor;
        uint64_t low = (remainder << 32) | (a->limbs[i] & 0xFFFFFFFFull);
        uint64_t q_low = low / divisor;
        remainder = low % divisor;
        quotient.limbs[i] = (q_high << 32) | q_low;
    }
    *out_remainder = (uint32_t)remainder;
    return quotient;
}

/* a / divisor (divisor below 2^127, not zero) by shift and subtract, once
 * per quotient: simplicity wins. *out_inexact when a remainder is left. */
static big big_divide(const big *a, wide divisor, bool *out_inexact)
{
    big quotient = {{0, 0, 0, 0}};
    wide remainder = {0, 0};
    for (int bit = 255; bit >= 0; bit--) {
        remainder = (wide){(remainder.low << 1) | ((a->limbs[bit / 64] >> (bit % 64)) & 1),
                           (remainder.high << 1) | (remainder.low >> 63)};
        if (wide_compare(remainder, divisor) >= 0) {
            wide difference = {remainder.low - divisor.low, remainder.high - divisor.high};
            if (remainder.low < divisor.low) difference.high--;
            remainder = difference;
            quotient.limbs[bit / 64] |= 1ull << (bit % 64);
        }
    }
    *out_inexact = !wide_is_zero(remainder);
    return quotient;
}

/* a * b, exactly (each below 2^128, so the product is below 2^256). */
static big big_multiply(wide a, wide b)
{
    uint32_t x[4] = {(uint32_t)a.low, (uint32_t)(a.low >> 32), (uint32_t)a.high, (uint32_t)(a.high >> 32)};
    uint32_t y[4] = {(uint32_t)b.low, (uint32_t)(b.low >> 32), (uint32_t)b.high, (uint32_t)(b.high >> 32)};
    uint32_t product[8] = {0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 4; j++) {
            uint64_t t = (uint64_t)x[i] * y[j] + product[i + j] + carry;
            product[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        product[i + 4] = (uint32_t)carry;
    }
    big result;
    for (int i = 0; i < 4; i++) result.limbs[i] = (uint64_t)product[2 * i] | (uint64_t)product[2 * i + 1] << 32;
    return result;
}

/* ------------------------------------------------------------------------ */
/* Decoding and encoding                                                     */
/* ------------------------------------------------------------------------ */

enum decimal_kind { DECIMAL_NAN, DECIMAL_INFINITY, DECIMAL_ZERO, DECIMAL_FINITE };

typedef struct decimal_parts {
    enum decimal_kind kind;
    bool negative;
    int exponent;     /* unbiased; for a zero too (a non-canonical one's as encoded) */
    wide coefficient; /* non-zero for DECIMAL_FINITE, zero otherwise */
} decimal_parts;

static decimal_parts decimal_decode(ce_decimal128 decimal)
{
    decimal_parts parts = {DECIMAL_ZERO, (decimal.high >> 63) != 0, 0, {0, 0}};
    if (((decimal.high >> 61) & 3) == 3) {
        unsigned prefix = (unsigned)(decimal.high >> 58) & 0x1F;
        if (prefix == 0x1F) parts.kind = DECIMAL_NAN;
        else if (prefix == 0x1E) parts.kind = DECIMAL_INFINITY;
        /* else: a coefficient of at least 2^113, non-canonical: zero */
        else parts.exponent = (int)((decimal.high >> 47) & 0x3FFF) - DECIMAL_BIAS;
        return parts;
    }
    parts.exponent = (int)((decimal.high >> 49) & 0x3FFF) - DECIMAL_BIAS;
    wide coefficient = {decimal.low, decimal.high & ((1ull << 49) - 1)};
    if (!wide_is_zero(coefficient) && wide_compare(coefficient, decimal_limit) < 0) {
        parts.kind = DECIMAL_FINITE;
        parts.coefficient = coefficient;
    }
    return parts;
}

static ce_decimal128 decimal_special(bool negative, bool nan)
{
    ce_decimal128 d = {0, (nan ? 0x7C00000000000000ull : 0x7800000000000000ull) | (negative ? 1ull << 63 : 0)};
    return d;
}

/* A decimal from a coefficient below 10^34 and an exponent, brought into
 * the representable range (rounding half to even when digits are lost). */
static ce_decimal128 decimal_make(bool negative, wide coefficient, int64_t exponent)
{
    if (wide_is_zero(coefficient)) {
        if (exponent < -DECIMAL_BIAS) exponent = -DECIMAL_BIAS;
        if (exponent > DECIMAL_MAX_BIASED - DECIMAL_BIAS) exponent = DECIMAL_MAX_BIASED - DECIMAL_BIAS;
    }
    while (exponent > DECIMAL_MAX_BIASED - DECIMAL_BIAS) {
        wide larger = wide_times_ten(coefficient);
        if (wide_compare(larger, decimal_limit) >= 0) return decimal_special(negative, false);
        coefficient = larger;
        exponent--;
    }
    bool sticky = false;
    uint32_t last = 0;
    bool dropped = false;
    while (exponent < -DECIMAL_BIAS) {
        if (dropped && last) sticky = true;
        coefficient = wide_divide_small(coefficient, 10, &last);
        dropped = true;
        exponent++;
    }
    if (dropped && (last > 5 || (last == 5 && (sticky || (coefficient.low & 1))))) coefficient = wide_add_small(coefficient, 1);
    uint64_t biased = (uint64_t)(exponent + DECIMAL_BIAS);
    ce_decimal128 d = {coefficient.low, (negative ? 1ull << 63 : 0) | (biased << 49) | coefficient.high};
    return d;
}

/* Rounds a coefficient to at most 34 digits (half to even, `sticky` when
 * nonzero digits were dropped before) and packs it. */
static ce_decimal128 decimal_pack(bool negative, big coefficient, int64_t exponent, bool sticky)
{
    big limit = big_of(decimal_limit);
    uint32_t last = 0;
    bool dropped = false;
    while (big_compare(&coefficient, &limit) >= 0) {
        if (dropped && last) sticky = true;
        coefficient = big_divide_small(&coefficient, 10, &last);
        dropped = true;
        exponent++;
    }
    if (dropped && (last > 5 || (last == 5 && (sticky || (coefficient.limbs[0] & 1))))) {
        big one = {{1, 0, 0, 0}};
        coefficient = big_add(&coefficient, &one);
        if (big_compare(&coefficient, &limit) >= 0) {
            coefficient = big_divide_small(&coefficient, 10, &last);
            exponent++;
        }
    }
    return decimal_make(negative, (wide){coefficient.limbs[0], coefficient.limbs[1]}, exponent);
}

/* ------------------------------------------------------------------------ */
/* Order and normal form                                                     */
/* ------------------------------------------------------------------------ */

/* Compares |a| and |b| for two finite non-zero decimals. */
static int decimal_compare_magnitude(const decimal_parts *a, const decimal_parts *b)
{
    /* c·10^e lies in [10^(d+e-1), 10^(d+e)) for a coefficient of d digits:
     * a larger d+e is a larger number. With equal d+e, give both
     * coefficients the same number of digits (at most 34: no overflow) and
     * compare them. */
    int digits_a = (int)wide_digits(a->coefficient), digits_b = (int)wide_digits(b->coefficient);
    int magnitude_a = digits_a + a->exponent, magnitude_b = digits_b + b->exponent;
    if (magnitude_a != magnitude_b) return magnitude_a < magnitude_b ? -1 : 1;
    wide coefficient_a = a->coefficient, coefficient_b = b->coefficient;
    for (int i = digits_a; i < digits_b; i++) coefficient_a = wide_times_ten(coefficient_a);
    for (int i = digits_b; i < digits_a; i++) coefficient_b = wide_times_ten(coefficient_b);
    return wide_compare(coefficient_a, coefficient_b);
}

/* NaN, -inf, negative, zero, positive, +inf. */
static int decimal_rank(const decimal_parts *parts)
{
    switch (parts->kind) {
    case DECIMAL_NAN: return 0;
    case DECIMAL_INFINITY: return parts->negative ? 1 : 5;
    case DECIMAL_FINITE: return parts->negative ? 2 : 4;
    case DECIMAL_ZERO: break;
    }
    return 3;
}

int decimal_compare(ce_decimal128 a, ce_decimal128 b)
{
    decimal_parts parts_a = decimal_decode(a), parts_b = decimal_decode(b);
    int rank_a = decimal_rank(&parts_a), rank_b = decimal_rank(&parts_b);
    if (rank_a != rank_b) return rank_a < rank_b ? -1 : 1;
    if (parts_a.kind != DECIMAL_FINITE) return 0;
    int magnitude = decimal_compare_magnitude(&parts_a, &parts_b);
    return parts_a.negative ? -magnitude : magnitude;
}

/* A finite number's coefficient without trailing zeros (1.0E0 = 10E-1 ->
 * 1E0), which every representation of it shares. */
static void strip_trailing_zeros(wide *coefficient, int *exponent)
{
    for (;;) {
        uint32_t remainder;
        wide quotient = wide_divide_small(*coefficient, 10, &remainder);
        if (remainder != 0) break;
        *coefficient = quotient;
        (*exponent)++;
    }
}

static void put_u64(uint8_t *target, uint64_t value)
{
    for (int i = 0; i < 8; i++) target[i] = (uint8_t)(value >> (8 * i));
}

void decimal_normal_form(ce_decimal128 d, uint8_t out[DECIMAL_NORMAL_FORM_SIZE])
{
    decimal_parts parts = decimal_decode(d);
    memset(out, 0, DECIMAL_NORMAL_FORM_SIZE);
    out[0] = (uint8_t)parts.kind;
    if (parts.kind == DECIMAL_INFINITY) out[1] = parts.negative;
    if (parts.kind == DECIMAL_FINITE) {
        wide coefficient = parts.coefficient;
        int exponent = parts.exponent;
        strip_trailing_zeros(&coefficient, &exponent);
        out[1] = parts.negative;
        for (int i = 0; i < 4; i++) out[2 + i] = (uint8_t)((uint32_t)exponent >> (8 * i));
        put_u64(out + 6, coefficient.low);
        put_u64(out + 14, coefficient.high);
    }
}

ce_decimal128 decimal_canonical(ce_decimal128 d)
{
    decimal_parts parts = decimal_decode(d);
    switch (parts.kind) {
    case DECIMAL_NAN: return decimal_special(false, true);
    case DECIMAL_INFINITY: return decimal_special(parts.negative, false);
    case DECIMAL_ZERO: return decimal_make(false, (wide){0, 0}, 0);
    case DECIMAL_FINITE: break;
    }
    strip_trailing_zeros(&parts.coefficient, &parts.exponent);
    return decimal_make(parts.negative, parts.coefficient, parts.exponent);
}

/* ------------------------------------------------------------------------ */
/* Text and conversions                                                      */
/* ------------------------------------------------------------------------ */

bool decimal_from_text(const char *text, ce_decimal128 *out)
{
    const char *c = text;
    bool negative = false;
    if (*c == '-' || *c == '+') negative = *c++ == '-';
    if (strcasecmp(c, "inf") == 0 || strcasecmp(c, "infinity") == 0) {
        *out = decimal_special(negative, false);
        return true;
    }
    if (strcasecmp(c, "nan") == 0) {
        *out = decimal_special(false, true);
        return true;
    }
    wide coefficient = {0, 0};
    int digits = 0, round_digit = -1;
    bool sticky = false, seen_point = false, any_digit = false;
    int64_t adjust = 0;
    for (; *c; c++) {
        if (*c >= '0' && *c <= '9') {
            unsigned digit = (unsigned)(*c - '0');
            any_digit = true;
            if (digits == 0 && digit == 0) {
                if (seen_point) adjust--;
            } else if (digits < DECIMAL_DIGITS) {
                coefficient = wide_add_small(wide_times_ten(coefficient), digit);
                digits++;
                if (seen_point) adjust--;
            } else {
                if (round_digit < 0) round_digit = (int)digit;
                else if (digit) sticky = true;
                if (!seen_point) adjust++;
            }
        } else if (*c == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    if (!any_digit) return false;
    int64_t exponent = 0;
    if (*c == 'e' || *c == 'E') {
        c++;
        bool negative_exponent = false;
        if (*c == '-' || *c == '+') negative_exponent = *c++ == '-';
        if (!(*c >= '0' && *c <= '9')) return false;
        for (; *c >= '0' && *c <= '9'; c++)
            if (exponent < 1000000) exponent = exponent * 10 + (*c - '0');
        if (negative_exponent) exponent = -exponent;
    }
    if (*c) return false;
    exponent += adjust;
    if (round_digit > 5 || (round_digit == 5 && (sticky || (coefficient.low & 1)))) {
        coefficient = wide_add_small(coefficient, 1);
        if (wide_compare(coefficient, decimal_limit) == 0) {
            uint32_t remainder;
            coefficient = wide_divide_small(coefficient, 10, &remainder);
            exponent++;
        }
    }
    *out = decimal_make(negative, coefficient, exponent);
    return true;
}

size_t decimal_to_text(ce_decimal128 d, char *buffer, size_t size)
{
    decimal_parts parts = decimal_decode(d);
    /* At most: a sign, "0.", 5 zeros, 34 digits; or a sign, 34 digits, a
     * point, "E+" and 4 digits of exponent. */
    char text[64];
    size_t length = 0;
    if (parts.kind == DECIMAL_NAN) {
        length = (size_t)snprintf(text, sizeof text, "NaN");
    } else if (parts.kind == DECIMAL_INFINITY) {
        length = (size_t)snprintf(text, sizeof text, "%sInf", parts.negative ? "-" : "");
    } else {
        /* The coefficient's digits, most significant first ("0" for zero). */
        char digits[DECIMAL_DIGITS + 1];
        size_t count = 0;
        wide coefficient = parts.coefficient;
        do {
            uint32_t digit;
            coefficient = wide_divide_small(coefficient, 10, &digit);
            digits[count++] = (char)('0' + digit);
        } while (!wide_is_zero(coefficient));
        for (size_t i = 0; i < count / 2; i++) {
            char swap = digits[i];
            digits[i] = digits[count - 1 - i];
            digits[count - 1 - i] = swap;
        }
        digits[count] = 0;
        int exponent = parts.exponent;
        int adjusted = exponent + (int)count - 1;
        if (parts.negative) text[length++] = '-';
        if (exponent <= 0 && adjusted >= -6) {
            int point = (int)count + exponent; /* digits before the point */
            if (exponent == 0) {
                memcpy(text + length, digits, count);
                length += count;
            } else if (point > 0) {
                memcpy(text + length, digits, (size_t)point);
                length += (size_t)point;
                text[length++] = '.';
                memcpy(text + length, digits + point, count - (size_t)point);
                length += count - (size_t)point;
            } else {
                text[length++] = '0';
                text[length++] = '.';
                for (int i = point; i < 0; i++) text[length++] = '0';
                memcpy(text + length, digits, count);
                length += count;
            }
        } else {
            text[length++] = digits[0];
            if (count > 1) {
                text[length++] = '.';
                memcpy(text + length, digits + 1, count - 1);
                length += count - 1;
            }
            length += (size_t)snprintf(text + length, sizeof text - length, "E%s%d", adjusted >= 0 ? "+" : "", adjusted);
        }
        text[length] = 0;
    }
    if (size > 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(buffer, text, copied);
        buffer[copied] = 0;
    }
    return length;
}

ce_decimal128 decimal_from_int(int64_t value)
{
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    return decimal_make(value < 0, (wide){magnitude, 0}, 0);
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

ce_decimal128 decimal_from_double(double value)
{
    if (isnan(value)) return decimal_special(false, true);
    if (isinf(value)) return decimal_special(value < 0, false);
    pthread_once(&c_locale_once, make_c_locale);
    char text[64];
    locale_t previous = c_locale ? uselocale(c_locale) : (locale_t)0;
    snprintf(text, sizeof text, "%.17g", value);
    if (c_locale) uselocale(previous);
    ce_decimal128 result;
    if (!decimal_from_text(text, &result)) result = decimal_special(false, true);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Arithmetic                                                                */
/* ------------------------------------------------------------------------ */

ce_decimal128 decimal_add(ce_decimal128 x, ce_decimal128 y)
{
    decimal_parts a = decimal_decode(x), b = decimal_decode(y);
    if (a.kind == DECIMAL_NAN || b.kind == DECIMAL_NAN) return decimal_special(false, true);
    if (a.kind == DECIMAL_INFINITY || b.kind == DECIMAL_INFINITY) {
        if (a.kind == DECIMAL_INFINITY && b.kind == DECIMAL_INFINITY && a.negative != b.negative)
            return decimal_special(false, true);
        return decimal_special(a.kind == DECIMAL_INFINITY ? a.negative : b.negative, false);
    }
    if (a.kind == DECIMAL_ZERO) return y;
    if (b.kind == DECIMAL_ZERO) return x;
    if (a.exponent < b.exponent) {
        decimal_parts swap = a;
        a = b;
        b = swap;
    }
    /* a has the larger exponent: give it 34 digits first (no value
     * changes), then bring b's exponent up to a's by scaling a. */
    big limit = big_of(decimal_limit);
    big a_coefficient = big_of(a.coefficient), b_coefficient = big_of(b.coefficient);
    int64_t a_exponent = a.exponent, b_exponent = b.exponent;
    while (a_exponent > b_exponent) {
        big larger = big_times_ten(&a_coefficient);
        if (big_compare(&larger, &limit) >= 0) break;
        a_coefficient = larger;
        a_exponent--;
    }
    if (a_exponent - b_exponent > 36) {
        /* |b| is below a hundredth of a's last digit: the sum rounds to a. */
        return decimal_pack(a.negative, a_coefficient, a_exponent, false);
    }
    while (a_exponent > b_exponent) {
        a_coefficient = big_times_ten(&a_coefficient);
        a_exponent--;
    }
    big sum;
    bool negative;
    if (a.negative == b.negative) {
        sum = big_add(&a_coefficient, &b_coefficient);
        negative = a.negative;
    } else if (big_compare(&a_coefficient, &b_coefficient) >= 0) {
        sum = big_subtract(&a_coefficient, &b_coefficient);
        negative = a.negative;
    } else {
        sum = big_subtract(&b_coefficient, &a_coefficient);
        negative = b.negative;
    }
    if (big_is_zero(&sum)) negative = false;
    return decimal_pack(negative, sum, b_exponent, false);
}

ce_decimal128 decimal_subtract(ce_decimal128 x, ce_decimal128 y)
{
    ce_decimal128 negated = {y.low, y.high ^ (1ull << 63)};
    return decimal_add(x, negated);
}

ce_decimal128 decimal_multiply(ce_decimal128 x, ce_decimal128 y)
{
    decimal_parts a = decimal_decode(x), b = decimal_decode(y);
    bool negative = a.negative != b.negative;
    if (a.kind == DECIMAL_NAN || b.kind == DECIMAL_NAN) return decimal_special(false, true);
    if (a.kind == DECIMAL_INFINITY || b.kind == DECIMAL_INFINITY) {
        if (a.kind == DECIMAL_ZERO || b.kind == DECIMAL_ZERO) return decimal_special(false, true);
        return decimal_special(negative, false);
    }
    int64_t exponent = (int64_t)a.exponent + b.exponent;
    if (a.kind == DECIMAL_ZERO || b.kind == DECIMAL_ZERO) return decimal_make(negative, (wide){0, 0}, exponent);
    return decimal_pack(negative, big_multiply(a.coefficient, b.coefficient), exponent, false);
}

ce_decimal128 decimal_divide(ce_decimal128 x, ce_decimal128 y)
{
    decimal_parts a = decimal_decode(x), b = decimal_decode(y);
    bool negative = a.negative != b.negative;
    if (a.kind == DECIMAL_NAN || b.kind == DECIMAL_NAN) return decimal_special(false, true);
    if (a.kind == DECIMAL_INFINITY) {
        if (b.kind == DECIMAL_INFINITY) return decimal_special(false, true);
        return decimal_special(negative, false);
    }
    int64_t ideal = (int64_t)a.exponent - b.exponent;
    if (b.kind == DECIMAL_INFINITY) return decimal_make(negative, (wide){0, 0}, -DECIMAL_BIAS);
    if (b.kind == DECIMAL_ZERO) return decimal_special(negative && a.kind != DECIMAL_ZERO, a.kind == DECIMAL_ZERO);
    if (a.kind == DECIMAL_ZERO) return decimal_make(negative, (wide){0, 0}, ideal);
    /* Scale the dividend so that the quotient has 35 digits or more (the
     * scaled dividend stays below 10^69 < 2^256), divide, round to 34
     * digits. An exact quotient gives back the trailing zeros the scaling
     * added, down to the ideal exponent. */
    int scale = DECIMAL_DIGITS + 1 + (int)wide_digits(b.coefficient) - (int)wide_digits(a.coefficient);
    big dividend = big_of(a.coefficient);
    for (int i = 0; i < scale; i++) dividend = big_times_ten(&dividend);
    bool inexact;
    big quotient = big_divide(&dividend, b.coefficient, &inexact);
    int64_t exponent = ideal - scale;
    while (!inexact && exponent < ideal) {
        uint32_t remainder;
        big shorter = big_divide_small(&quotient, 10, &remainder);
        if (remainder != 0) break;
        quotient = shorter;
        exponent++;
    }
    return decimal_pack(negative, quotient, exponent, inexact);
}

ce_decimal128 decimal_divide_by_count(ce_decimal128 x, uint64_t count)
{
    decimal_parts a = decimal_decode(x);
    if (a.kind != DECIMAL_FINITE) return x; /* NaN, infinity and zero stay what they are */
    /* Scale the coefficient to about 54 digits, so the quotient keeps 34
     * or more whatever the count (below 10^20). */
    big scaled = big_of(a.coefficient);
    int64_t exponent = a.exponent;
    big bound = big_of(decimal_limit);
    for (int i = 0; i < 20; i++) bound = big_times_ten(&bound); /* 10^54 */
    for (;;) {
        big larger = big_times_ten(&scaled);
        if (big_compare(&larger, &bound) >= 0) break;
        scaled = larger;
        exponent--;
    }
    bool inexact;
    big quotient = big_divide(&scaled, (wide){count, 0}, &inexact);
    return decimal_pack(a.negative, quotient, exponent, inexact);
}

/* ------------------------------------------------------------------------ */
/* The public API (cengine.h)                                                */
/* ------------------------------------------------------------------------ */

bool ce_decimal128_from_string(const char *text, ce_decimal128 *out)
{
    if (!text || !out) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_decimal128_from_string: arguments are required");
    if (!decimal_from_text(text, out))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "'%.80s' is not a decimal128 (digits with an optional point, sign "
                                                   "and exponent, or inf, infinity, nan)",
                          text);
    return true;
}

size_t ce_decimal128_to_string(ce_decimal128 value, char *buffer, size_t size)
{
    return decimal_to_text(value, size ? buffer : NULL, size);
}

int ce_decimal128_compare(ce_decimal128 a, ce_decimal128 b) { return decimal_compare(a, b); }
ce_decimal128 ce_decimal128_canonical(ce_decimal128 value) { return decimal_canonical(value); }
ce_decimal128 ce_decimal128_from_int64(int64_t value) { return decimal_from_int(value); }
ce_decimal128 ce_decimal128_from_double(double value) { return decimal_from_double(value); }
bool ce_decimal128_is_nan(ce_decimal128 value) { return decimal_is_nan(value); }
ce_decimal128 ce_decimal128_add(ce_decimal128 a, ce_decimal128 b) { return decimal_add(a, b); }
ce_decimal128 ce_decimal128_subtract(ce_decimal128 a, ce_decimal128 b) { return decimal_subtract(a, b); }
ce_decimal128 ce_decimal128_multiply(ce_decimal128 a, ce_decimal128 b) { return decimal_multiply(a, b); }
ce_decimal128 ce_decimal128_divide(ce_decimal128 a, ce_decimal128 b) { return decimal_divide(a, b); }
