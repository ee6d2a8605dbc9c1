/*
 * sort.h — sorting and distinct of a results view's entries, and reading
 * the values of key paths for entries (sort.c).
 *
 * Owns: the entry reader and the calls that sort entries and keep the
 * distinct ones.
 * Never: binds key paths (results.c hands it bound ones), or changes data.
 */
#ifndef CE_SORT_H
#define CE_SORT_H

#include "cluster.h"
#include "column.h"
#include "gather.h"
#include "query_internal.h"
#include "scan.h"
#include "space.h"

#include <stdbool.h>
#include <stddef.h>

/* Reads values of bound paths for entries, leaf by leaf. */
typedef struct entry_reader {
    ce_txn *txn;
    ce_table_key table;
    value_bag bag; /* a path through links: its value, read object by object */
    const space_state *space;
    size_t column_count;
    space_ref leaf_ref;
    cluster_leaf leaf;
    const bound_path *paths;
    size_t path_count;
    column_scan *scans;
    bool *opened;
    column_scratch scratch;
    char **copies; /* values that were decompressed into the scratch, copied */
    size_t copy_count, copy_capacity;
    bool missing_link; /* the last value read: a to-one link on its path is null (the value reads as null) */
} entry_reader;

/* Starts reading `path_count` bound paths of objects of `table`. */
bool sort_reader_start(entry_reader *r, ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths,
                       size_t path_count);
void sort_reader_end(entry_reader *r);

/* The value of path p for an entry; a string or binary that had to be
 * decompressed is copied (it must outlive the next read). A path through
 * to-one links whose link on the way is null reads as null, with
 * r->missing_link set. */
bool sort_reader_get(entry_reader *r, const entry *en, size_t p, ce_value *out);

/* Sorts `count` entries of objects of `table` stably by the values of
 * `paths` (the first decides, the next break its ties), each ascending or
 * descending; *entries is replaced by the sorted array. An entry whose
 * to-one link on a path is null sorts after every value when ascending and
 * before every value when descending, as realm-core's sorter does
 * (src/realm/sort_descriptor.cpp: "Sort null links at the end if
 * ascending, else at beginning"); a null value sorts first ascending. */
bool sort_entries(ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths, const bool *ascending,
                  size_t key_count, entry **entries, size_t count);

/* Keeps the first of the entries of each distinct combination of the
 * paths' values, in order (*count becomes how many). Entries whose to-one
 * link on a path is null are dropped, as realm-core's distinct does
 * (src/realm/sort_descriptor.cpp: "Remove all rows which have a null link
 * along the way to the distinct columns"). */
bool sort_distinct(ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths, size_t key_count,
                   entry *entries, size_t *count);

#endif
