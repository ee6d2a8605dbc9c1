/*
 * utf8.h — UTF-8 (utf8.c): validating, decoding and encoding code points.
 *
 * Owns: the calls every layer checks, decodes and encodes UTF-8 with
 * (utf8.c is the one implementation).
 * Never: allocates, reads past `size`, or takes for UTF-8 what is not
 * strict UTF-8: no overlong forms, no surrogates (U+D800 to U+DFFF),
 * nothing above U+10FFFF, no truncated sequence. U+0000 is a code point
 * like any other.
 */
#ifndef CE_UTF8_H
#define CE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length of the longest prefix of `data` that is strict UTF-8: `size`
 * when all of it is, else the offset of the first byte that does not start
 * a valid sequence. */
size_t utf8_valid_prefix(const char *data, size_t size);

/* Whether `data` is strict UTF-8. */
static inline bool utf8_is_valid(const char *data, size_t size) { return utf8_valid_prefix(data, size) == size; }

/* The code point at text[*at] (at < size), advancing *at past it. A byte
 * that does not start a valid sequence yields itself, advances *at by one
 * and sets *out_valid false. */
uint32_t utf8_decode(const char *text, size_t size, size_t *at, bool *out_valid);

/* The longest encoding, in bytes. */
#define UTF8_MAX_BYTES 4

/* Writes the encoding of a code point (at most U+10FFFF) to `out` and
 * returns its length (1 to 4 bytes). */
size_t utf8_encode(uint32_t code_point, char *out);

#endif
