/*
 * scan.h — running an evaluation over a table's leaves (scan.c).
 *
 * Owns: the scan state, its goals (count, first, collect, aggregate), the
 * entries a scan collects, and key lists.
 * Never: evaluates a predicate itself (eval.h does).
 */
#ifndef CE_SCAN_H
#define CE_SCAN_H

#include "aggregate.h"
#include "column.h"
#include "eval.h"
#include "query_internal.h"
#include "space.h"

#include <stdbool.h>
#include <stddef.h>

/* An object of a results view: its key and where it lives. */
typedef struct entry {
    ce_object_key key;
    space_ref leaf;
    size_t index;
} entry;

typedef enum scan_goal { GOAL_COUNT, GOAL_FIRST, GOAL_COLLECT, GOAL_AGGREGATE } scan_goal;

typedef struct scan_state {
    evaluation *e;
    scan_goal goal;
    size_t count;
    bool found;
    ce_object_key first;
    entry *entries;
    size_t entry_count, entry_capacity;
    size_t limit; /* GOAL_COLLECT: stop after this many */
    /* GOAL_AGGREGATE */
    aggregator *aggregate;
    const bound_path *aggregate_path;
    column_scan aggregate_scan;
} scan_state;

/* Runs the scan: through an index when one names few candidates, else
 * over every leaf. */
bool scan_run(scan_state *s);

/* Object keys, in the order pushed. */
typedef struct key_list {
    ce_object_key *keys;
    size_t count, capacity;
} key_list;

bool scan_key_push(key_list *list, ce_object_key key);

#endif
