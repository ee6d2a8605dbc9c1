/*
 * buf.c — the engine's one growable array (see buf.h).
 *
 * Owns: the growth rule: a first capacity of 16 elements, then doubling,
 * and CE_ERR_OUT_OF_MEMORY, with the array unchanged, when the size would
 * overflow or realloc fails.
 * Never: shrinks or frees an array, or keeps state of its own.
 */
#include "buf.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

bool buf_reserve(void **array, size_t *capacity, size_t needed, size_t element_size)
{
    if (needed <= *capacity) return true;
    size_t larger = *capacity ? *capacity : 16;
    while (larger < needed) {
        if (larger > SIZE_MAX / 2) larger = needed;
        else larger *= 2;
    }
    if (element_size && larger > SIZE_MAX / element_size)
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu elements of %zu bytes)", larger, element_size);
    void *grown = realloc(*array, larger * element_size);
    if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", larger * element_size);
    *array = grown;
    *capacity = larger;
    return true;
}

bool buf_append(uint8_t **buffer, size_t *size, size_t *capacity, const void *data, size_t length)
{
    if (length > SIZE_MAX - *size) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (a buffer past SIZE_MAX)");
    if (!buf_reserve((void **)buffer, capacity, *size + length, 1)) return false;
    if (length) memcpy(*buffer + *size, data, length);
    *size += length;
    return true;
}
