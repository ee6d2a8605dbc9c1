/*
 * fold.h — [c] and [d] for queries (fold.c): case and diacritic folding of
 * UTF-8 text, and LIKE.
 *
 * Owns: fold_text and fold_like, the one implementation of [c], [d] and
 * LIKE (the tests and fuzzers reach them through query.h).
 * Never: allocates beyond the caller's folding buffer.
 */
#ifndef CE_FOLD_H
#define CE_FOLD_H

#include <stdbool.h>
#include <stddef.h>

enum { FOLD_CASE = 1, FOLD_DIACRITICS = 2 };

/*
 * Folds UTF-8 text for a comparison with [c] (FOLD_CASE: simple case
 * folding of Latin-1 Supplement, Latin Extended-A, Latin Extended
 * Additional, Greek and Cyrillic), [d] (FOLD_DIACRITICS: letters with
 * diacritics of those scripts become their base letter, combining marks
 * U+0300-U+036F are dropped) or both. Bytes that are not valid UTF-8 are
 * kept as they are. *out_text is a buffer of *capacity bytes the caller owns
 * (realloc'ed as needed, free it when done); returns false only when memory
 * runs out.
 */
bool fold_text(const char *text, size_t size, unsigned flags, char **out_text, size_t *capacity, size_t *out_size);

/* Whether `text` matches the LIKE `pattern` ('*' any run, '?' one code
 * point, or one byte when `bytes`). Linear in memory, O(text x pattern)
 * time at worst. */
bool fold_like(const char *text, size_t text_size, const char *pattern, size_t pattern_size, bool bytes);

#endif
