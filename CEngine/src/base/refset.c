/*
 * refset.c — a set of visited refs (see refset.h).
 *
 * Owns: the hash table of refset.h.
 * Never: reads or frees what a ref names: refs are numbers here.
 */
#include "refset.h"
#include "error.h"

#include <stdlib.h>

/* Refs are multiples of 8: the low bits carry nothing to hash. */
static size_t slot_of(uint64_t ref, size_t capacity)
{
    return (size_t)((ref >> 3) * 0x9E3779B97F4A7C15ull) & (capacity - 1);
}

void refset_init(refset *set, size_t first_capacity, const char *activity)
{
    *set = (refset){NULL, 0, 0, first_capacity, activity};
}

bool refset_add(refset *set, uint64_t ref)
{
    if (2 * (set->count + 1) > set->capacity) {
        size_t capacity = set->capacity ? 2 * set->capacity : set->first_capacity;
        uint64_t *table = calloc(capacity, sizeof *table);
        if (!table) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory %s", set->activity);
        for (size_t i = 0; i < set->capacity; i++) {
            if (!set->slots[i]) continue;
            size_t slot = slot_of(set->slots[i], capacity);
            while (table[slot]) slot = (slot + 1) & (capacity - 1);
            table[slot] = set->slots[i];
        }
        free(set->slots);
        set->slots = table;
        set->capacity = capacity;
    }
    size_t slot = slot_of(ref, set->capacity);
    while (set->slots[slot]) {
        if (set->slots[slot] == ref)
            return error_fail(CE_ERR_CORRUPT, "invalid database: the node at offset %llu is referenced twice",
                              (unsigned long long)ref);
        slot = (slot + 1) & (set->capacity - 1);
    }
    set->slots[slot] = ref;
    set->count++;
    return true;
}

void refset_free(refset *set)
{
    free(set->slots);
    *set = (refset){NULL, 0, 0, set->first_capacity, set->activity};
}
