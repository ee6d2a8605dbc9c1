/*
 * results.h — results views (results.c): a query's matches, or a
 * collection's or backlinks' objects, then sorts, distincts and limits,
 * evaluated lazily.
 *
 * Owns: the layout of a results view (struct ce_results: its source, its
 * descriptors and its last evaluation), which query.c and results.c share.
 * Never: keeps object keys across states: a source names what it reads,
 * and every evaluation reads it again.
 */
#ifndef CE_RESULTS_H
#define CE_RESULTS_H

#include "query_internal.h"
#include "scan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum descriptor_kind { DESCRIPTOR_SORT, DESCRIPTOR_DISTINCT, DESCRIPTOR_LIMIT } descriptor_kind;

/* A key path of a sort or distinct: a node of the predicate's tree (SORT(...)
 * in the text), or a key path given through the API. */
typedef struct descriptor_key {
    int node;   /* in the core's tree, or -1 */
    char *text; /* when node is -1: owned */
    bool ascending;
} descriptor_key;

typedef struct descriptor {
    descriptor_kind kind;
    descriptor_key *keys;
    size_t key_count;
    size_t limit;
} descriptor;

/* Where a view's objects come from, before its descriptors apply. */
typedef enum source_kind {
    SOURCE_TABLE,      /* the objects of core->table that match core's predicate, in key order */
    SOURCE_COLLECTION, /* the objects a list, set or dictionary of links holds, in its order */
    SOURCE_BACKLINKS,  /* the objects of core->table whose `column` links to the owner */
    SOURCE_FILTER      /* the objects of `base` that match core's predicate, in base's order */
} source_kind;

/* A source names what it reads (an object and a property), never the keys
 * it found: every evaluation reads them again from the transaction. */
typedef struct results_source {
    source_kind kind;
    ce_table_key owner_table; /* COLLECTION: the collection's object; BACKLINKS: the linked object */
    ce_object_key owner;
    ce_column_key column; /* COLLECTION: the owner's property; BACKLINKS: the origin property of core->table */
    ce_results *base;     /* FILTER: a private copy of the view filtered */
} results_source;

/* A new results handle (zeroed), or NULL; results_discard returns one that
 * holds nothing yet. results_check: whether `results` is live (not
 * freed), otherwise CE_ERR_INVALID_ARGUMENT naming `call`. */
ce_results *results_new(void);
void results_discard(ce_results *results);
bool results_check(const ce_results *results, const char *call);

struct ce_results {
    uint64_t magic; /* live or freed (handle.h): the first field */
    query_core *core; /* the predicate (TRUEPREDICATE for a collection or backlinks) and its table */
    results_source source;
    descriptor *descriptors;
    size_t descriptor_count;
    /* The view as last evaluated, at transaction stamp `stamp`. */
    bool evaluated;
    uint64_t stamp;
    entry *entries;
    size_t count;
    bool key_ordered;       /* entries in key order (no sort applied) */
    entry *by_key;          /* index_of on a sorted view: the entries ordered by key, */
    size_t *by_key_position; /* and their positions in the view */
    /* A count without the entries (no descriptors). */
    bool counted;
    uint64_t count_stamp;
    size_t cached_count;
};

/* Adds a descriptor of `kind` with room for `key_count` keys to a view
 * (its descriptors array has room for it). */
bool results_add_descriptor(ce_results *r, descriptor_kind kind, size_t key_count, size_t limit, descriptor **out);

/* Checks that every key path of a new descriptor binds. */
bool results_check_descriptor(query_core *core, ce_txn *txn, const descriptor *d);

/* A copy of a view: its query, source and descriptors, not its
 * evaluation. results_copy shares the query's core (bound once for both);
 * results_copy_detached gives the copy a core of its own, so that another
 * thread may evaluate it while the original is used. */
bool results_copy(const ce_results *base, ce_results **out);
bool results_copy_detached(const ce_results *base, ce_results **out);

/* The keys of the view's objects at `txn`, in its order (an array the
 * caller frees). */
bool results_keys(ce_results *results, ce_txn *txn, ce_object_key **out_keys, size_t *out_count);

/* The tables what the view shows depends on, ascending (an array the
 * caller frees): its own, those its predicate's and descriptors' key paths
 * reach, the object holding its collection or backlinks, and those of a
 * view it filters. *out_local: the view is the objects of its table that
 * match a predicate of their own properties only, in key order (a table
 * source, no path through links or SUBQUERY, no descriptor): an object's
 * membership then changes only when that object is inserted, deleted or
 * modified. */
bool results_reads(ce_results *results, ce_txn *txn, ce_table_key **out_tables, size_t *out_count, bool *out_local);

/* Whether each of `keys` (objects of the view's table at `txn`, ascending)
 * matches the predicate of a view of a table (its descriptors aside):
 * out_match[i]. */
bool results_match_keys(ce_results *results, ce_txn *txn, const ce_object_key *keys, size_t count, bool *out_match);

#endif
