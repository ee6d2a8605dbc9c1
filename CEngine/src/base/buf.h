/*
 * buf.h — the engine's one growable array.
 *
 * Owns: growing a heap array (of any element size) or a byte buffer by
 * doubling, with the size arithmetic checked for overflow.
 * Never: shrinks, frees, or keeps state of its own: the caller holds the
 * pointer, the count and the capacity, and frees the array with free().
 */
#ifndef CE_BUF_H
#define CE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes *array hold at least `needed` elements of `element_size` bytes,
 * doubling *capacity (from 16) as needed. On failure (out of memory, or a
 * size that overflows) sets CE_ERR_OUT_OF_MEMORY and leaves *array and
 * *capacity as they were. */
bool buf_reserve(void **array, size_t *capacity, size_t needed, size_t element_size);

/* Appends `length` bytes to the byte buffer *buffer holding *size of
 * *capacity bytes, growing it as buf_reserve does. */
bool buf_append(uint8_t **buffer, size_t *size, size_t *capacity, const void *data, size_t length);

#endif
