/*
 * sort.h — sorting and distinct of a results view's entries (sort.c).
 */
#ifndef CE_SORT_H
#define CE_SORT_H

#include "query_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* Sorts the view's entries stably by the values of `paths` (the first
 * decides, the next break its ties), each ascending or descending. */
bool sort_apply(ce_results *r, ce_txn *txn, size_t column_count, const bound_path *paths, const bool *ascending,
                size_t key_count);

/* Keeps the first entry of each distinct combination of the paths' values. */
bool sort_distinct(ce_results *r, ce_txn *txn, size_t column_count, const bound_path *paths, size_t key_count);

#endif
