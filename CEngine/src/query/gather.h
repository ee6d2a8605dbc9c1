/*
 * gather.h — the values a bound path yields from one object (gather.c).
 *
 * Owns: the value bag and the calls that fill one from a bound path
 * (gather_path) and reduce it by the path's aggregate (gather_aggregate).
 * Never: reads a column directly, or changes data.
 */
#ifndef CE_GATHER_H
#define CE_GATHER_H

#include "query_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* Values read from objects, with copies of their bytes (a value read
 * through the public API stays valid only until the next read). */
typedef struct value_bag {
    ce_value *values;
    size_t count, capacity;
    char **copies;
    size_t copy_count, copy_capacity;
} value_bag;

/* Empties a bag (keeping its room), frees it, adds a copy of a value. */
void gather_bag_clear(value_bag *bag);
void gather_bag_free(value_bag *bag);
bool gather_bag_push(value_bag *bag, const ce_value *value);

/* The values a path yields from object (table, key), from hop `hop` on,
 * added to `bag`. A path of to-one links only yields one value: null where
 * a link is null. */
bool gather_path(ce_txn *txn, const bound_path *path, size_t hop, ce_table_key table, ce_object_key key,
                 value_bag *bag);

/* Realm's @type name of a value of `type` ("int", "string", "list", ...). */
const char *gather_type_name(ce_type type);

/* A path's values reduced by its aggregate (@count, @sum, ...) to one; a path
 * whose aggregate reduces each collection it reaches (gather_aggregates_each)
 * already holds one result per collection, left as they are. */
bool gather_aggregate(const bound_path *path, value_bag *bag);

/* Whether gather_path reduces each collection of values the path reaches
 * through a to-many link by the path's aggregate (arrayCol.arrayInt.@count:
 * one count per object of arrayCol, compared as any of them). */
bool gather_aggregates_each(const bound_path *path);

#endif
