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

struct ce_results {
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

#endif
