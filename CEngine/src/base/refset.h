/*
 * refset.h — a set of visited refs, to find a node reached twice.
 *
 * Owns: an open-addressing hash set of non-zero 64-bit refs (multiples of
 * 8, as every ref is), grown by doubling at half full.
 * Never: stores 0 (an empty slot), or forgets a ref before refset_free.
 *
 * ce_db_verify and the copy of compact.c walk every node a version reaches
 * and add each one here: a ref met twice is a node with two parents (a
 * shared child, or a cycle), which is damage.
 */
#ifndef CE_REFSET_H
#define CE_REFSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct refset {
    uint64_t *slots; /* 0: empty */
    size_t capacity, count;
    size_t first_capacity; /* a power of two: the table's size once it is made */
    const char *activity;  /* what the caller does, for "out of memory <activity>" */
} refset;

/* An empty set; it allocates nothing until the first refset_add. */
void refset_init(refset *set, size_t first_capacity, const char *activity);

/* Adds `ref` (non-zero). Fails with CE_ERR_CORRUPT "the node at offset ...
 * is referenced twice" if it is in the set already, or with
 * CE_ERR_OUT_OF_MEMORY. */
bool refset_add(refset *set, uint64_t ref);

void refset_free(refset *set);

#endif
