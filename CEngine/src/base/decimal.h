/*
 * decimal.h — decimal128 values (decimal.c): IEEE 754-2008 decimal128 in
 * the binary integer decimal encoding, as ce_decimal128 holds them.
 *
 * Owns: the engine's calls on decimal128 values (decimal_*): order, normal
 * form, text, conversions and arithmetic. The public forms
 * (ce_decimal128_*, cengine.h) are the same functions.
 * Never: allocates, or leaves the encoding to a caller: every function
 * takes and returns the whole 128 bits.
 */
#ifndef CE_DECIMAL_H
#define CE_DECIMAL_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether a decimal is an infinity (either sign). */
static inline bool decimal_is_infinite(ce_decimal128 d) { return ((d.high >> 58) & 0x1F) == 0x1E; }

/* Whether a decimal is a NaN (quiet or signaling, either sign). */
static inline bool decimal_is_nan(ce_decimal128 d) { return ((d.high >> 58) & 0x1F) == 0x1F; }

/* -1, 0 or 1 in value.h's order: NaN first (all NaNs equal), then
 * -infinity, negative numbers, zero (every zero of any sign and exponent),
 * positive numbers, +infinity. Representations of one number are equal
 * (1E0 == 10E-1). */
int decimal_compare(ce_decimal128 a, ce_decimal128 b);

/* The bytes every representation of one value shares (a finite number's
 * coefficient without trailing zeros, with its exponent and sign; one form
 * for all zeros, for all NaNs, and for each infinity): what value.c hashes.
 * Stable across machines and versions: hashes may be stored. */
#define DECIMAL_NORMAL_FORM_SIZE 22
void decimal_normal_form(ce_decimal128 d, uint8_t out[DECIMAL_NORMAL_FORM_SIZE]);

/* The canonical representation of a value: a finite number's coefficient
 * without trailing zeros, +0E0 for every zero, one NaN, one bit pattern
 * for each infinity. Equal values give equal bits. */
ce_decimal128 decimal_canonical(ce_decimal128 d);

/* A decimal from text: [sign] digits [. digits] [e [sign] digits], or
 * inf, infinity, nan (any case). Rounds to 34 digits, half to even; an
 * exponent out of range gives infinity or rounds toward zero, as IEEE
 * 754 does. False when the text is not a decimal. */
bool decimal_from_text(const char *text, ce_decimal128 *out);

/* The decimal as text: "1.5", "-0.001", "1.2E+40", "0E-6176", "NaN",
 * "Inf", "-Inf" (plain notation when the exponent is at most 0 and the
 * adjusted exponent at least -6, else one digit, a point and E notation).
 * Writes at most size - 1 characters and a NUL (when size > 0); returns
 * the length of the whole text, as snprintf does. */
size_t decimal_to_text(ce_decimal128 d, char *buffer, size_t size);

/* An exact integer. */
ce_decimal128 decimal_from_int(int64_t value);

/* A double through its 17 significant digits ("%.17g"): 0.1 becomes
 * 0.10000000000000001. NaN and infinities stay what they are. */
ce_decimal128 decimal_from_double(double value);

/* IEEE 754 arithmetic rounded to 34 digits, half to even: NaN in gives
 * NaN, infinity - infinity and 0 * infinity are NaN, x / 0 is infinity
 * (0 / 0 is NaN). A sum's exponent is the smaller of the two, a product's
 * their sum, an exact quotient's the nearest to the difference. */
ce_decimal128 decimal_add(ce_decimal128 x, ce_decimal128 y);
ce_decimal128 decimal_subtract(ce_decimal128 x, ce_decimal128 y);
ce_decimal128 decimal_multiply(ce_decimal128 x, ce_decimal128 y);
ce_decimal128 decimal_divide(ce_decimal128 x, ce_decimal128 y);

/* x / count for an average (count > 0): NaN, infinities and zeros stay
 * what they are; a number keeps 34 digits (so 0.6 / 3 is
 * 0.2000000000000000000000000000000000, as averages always were). */
ce_decimal128 decimal_divide_by_count(ce_decimal128 x, uint64_t count);

#endif
