/*
 * scan.c — running an evaluation over a table: every leaf through a short
 * queue that prefetches the columns the predicate reads, or, when an
 * indexed == or IN names few objects, only the leaves of those candidates
 * (a primary key's own index key finds its object without a walk); and
 * what a scan does with the matches of each leaf (count them, take the
 * first, collect them, or aggregate a column of them).
 *
 * Owns: the choice between an index and a full scan, the prefetch queue,
 * and the scan goals.
 * Never: evaluates a predicate itself (eval.c), or trusts an index: a
 * candidate that names no object is CE_ERR_CORRUPT.
 */
#include "scan.h"
#include "aggregate.h"
#include "buf.h"
#include "cluster.h"
#include "column.h"
#include "compare.h"
#include "error.h"
#include "eval.h"
#include "node.h"
#include "query_internal.h"
#include "table.h"

#include <stdlib.h>
#include <string.h>

static bool add_entry(scan_state *s, ce_object_key key, space_ref leaf, size_t index)
{
    if (!buf_reserve((void **)&s->entries, &s->entry_capacity, s->entry_count + 1, sizeof *s->entries)) return false;
    s->entries[s->entry_count++] = (entry){key, leaf, index};
    return true;
}

static bool act_on_leaf(scan_state *s, const cluster_leaf *leaf, const mask *matched, bool *stop)
{
    switch (s->goal) {
    case GOAL_COUNT: s->count += eval_mask_count(matched); return true;
    case GOAL_FIRST:
        if (mask_is_empty(matched)) return true;
        FOR_EACH_BIT(matched, i, {
            s->first = cluster_leaf_key(leaf, i);
            s->found = true;
            *stop = true;
            return true;
        })
        return true;
    case GOAL_COLLECT:
        FOR_EACH_BIT(matched, i, {
            if (s->entry_count >= s->limit) {
                *stop = true;
                return true;
            }
            if (!add_entry(s, cluster_leaf_key(leaf, i), leaf->ref, i)) return false;
        })
        if (s->entry_count >= s->limit) *stop = true;
        return true;
    case GOAL_AGGREGATE: {
        if (mask_is_empty(matched)) return true;
        const bound_path *path = s->aggregate_path;
        if (!eval_open_column(s->e->space, leaf, path->column, path->type, path->nullable, &s->aggregate_scan)) return false;
        const column_scan *scan = &s->aggregate_scan;
        size_t objects = leaf->key_offsets.count;
        if (scan->type == CE_TYPE_DOUBLE && !path->size_of && !scan->has_nulls && scan->values.width == 64 &&
            !scan->values.based && eval_mask_count(matched) == objects &&
            (s->aggregate->aggregate == CE_AGGREGATE_SUM || s->aggregate->aggregate == CE_AGGREGATE_AVG)) {
            /* Every object of the leaf, a plain array of doubles: summed as
             * ce_table_sum sums it. */
            s->aggregate->real_sum += node_sum_doubles(&scan->values, objects);
            s->aggregate->counted += objects;
            return true;
        }
        if ((scan->type == CE_TYPE_DOUBLE || scan->type == CE_TYPE_INT) && !path->size_of &&
            (s->aggregate->aggregate == CE_AGGREGATE_SUM || s->aggregate->aggregate == CE_AGGREGATE_AVG ||
             s->aggregate->aggregate == CE_AGGREGATE_COUNT)) {
            /* Numbers straight from the packed array. */
            mask nulls;
            if (!eval_null_mask(scan, leaf->key_offsets.count, &nulls)) return false;
            FOR_EACH_BIT(matched, i, {
                if (mask_has(&nulls, i)) continue;
                int64_t stored = node_get(&scan->values, i);
                ce_value value;
                if (scan->type == CE_TYPE_INT) value = (ce_value){.type = CE_TYPE_INT, .integer = stored};
                else value = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = eval_real_from_stored(false, stored)};
                aggregate_add(s->aggregate, &value);
            })
            return true;
        }
        FOR_EACH_BIT(matched, i, {
            ce_value value;
            if (!eval_column_value(s->e->space, scan, path, i, &s->e->scratch[1], &value)) return false;
            aggregate_add(s->aggregate, &value);
        })
        return true;
    }
    }
    return true;
}

/*
 * A scan is bound by memory latency: the column arrays of consecutive
 * leaves lie apart, and the hardware cannot guess the next one. Leaves go
 * through a short queue: when a leaf enters it, the headers of the columns
 * the query reads are prefetched; PREFETCH_AHEAD leaves later those columns
 * are opened (the headers are in cache by then) and their values
 * prefetched; when the queue is full, its oldest leaf is evaluated with the
 * columns opened for it. A column that fails to open early is opened again
 * when its leaf is evaluated, which reports the error.
 */
#define PIPELINE_DEPTH 8
#define PREFETCH_AHEAD 4


static void prefetch_node(const node_view *node)
{
    if (node->payload) prefetch_lines(node->payload, (size_t)node_size(node) - NODE_HEADER_SIZE);
}

static void prefetch_headers(const evaluation *e, const cluster_leaf *leaf)
{
    for (size_t slot = 0; slot < e->bound->slot_count; slot++) {
        ce_column_key column = e->bound->slot_columns[slot];
        if ((size_t)column + 2 >= leaf->slots.count) continue;
        node_prefetch_header(e->space, (int64_t)cluster_leaf_column(leaf, column));
    }
}

typedef struct pipeline {
    scan_state *scan;
    cluster_leaf leaves[PIPELINE_DEPTH];
    column_scan *scans; /* PIPELINE_DEPTH x slots */
    bool *opened;
    size_t slots;
    size_t first, count;
    bool stopped;
} pipeline;

/* Opens the columns of the leaf at ring position `at` and prefetches their values. */
static void prepare_leaf(pipeline *q, size_t at)
{
    const evaluation *e = q->scan->e;
    const cluster_leaf *leaf = &q->leaves[at];
    for (size_t slot = 0; slot < q->slots; slot++) {
        column_scan *scan = &q->scans[at * q->slots + slot];
        bool opened = eval_open_column(e->space, leaf, e->bound->slot_columns[slot], e->bound->slot_types[slot],
                                     e->bound->slot_nullable[slot], scan);
        q->opened[at * q->slots + slot] = opened;
        if (!opened) continue;
        prefetch_node(&scan->values);
        if (scan->type == CE_TYPE_TIMESTAMP || scan->type == CE_TYPE_STRING || scan->type == CE_TYPE_BINARY)
            prefetch_node(&scan->second);
        if (scan->has_nulls) prefetch_node(&scan->nulls);
    }
}

static bool evaluate_oldest(pipeline *q, bool *stop)
{
    size_t at = q->first;
    q->first = (q->first + 1) % PIPELINE_DEPTH;
    q->count--;
    evaluation *e = q->scan->e;
    column_scan *own_scans = e->scans;
    bool *own_opened = e->opened;
    mask all, matched;
    bool ok = eval_enter_prepared_leaf(e, &q->leaves[at], &q->scans[at * q->slots], &q->opened[at * q->slots]);
    if (ok) {
        mask_first(&all, e->count);
        ok = eval_leaf(e, &all, &matched) && act_on_leaf(q->scan, &q->leaves[at], &matched, stop);
    }
    e->scans = own_scans;
    e->opened = own_opened;
    return ok;
}

static bool queue_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    pipeline *q = context;
    prefetch_headers(q->scan->e, leaf);
    q->leaves[(q->first + q->count) % PIPELINE_DEPTH] = *leaf;
    q->count++;
    if (q->count > PREFETCH_AHEAD) prepare_leaf(q, (q->first + q->count - 1 - PREFETCH_AHEAD) % PIPELINE_DEPTH);
    if (q->count < PIPELINE_DEPTH) return true;
    if (!evaluate_oldest(q, stop)) return false;
    q->stopped = *stop;
    return true;
}

/* Every leaf of the table, through the queue. */
static bool scan_all_leaves(scan_state *s)
{
    size_t slots = s->e->bound->slot_count;
    pipeline *q = calloc(1, sizeof *q);
    if (q) {
        q->scans = calloc(PIPELINE_DEPTH * slots + 1, sizeof *q->scans);
        q->opened = calloc(PIPELINE_DEPTH * slots + 1, sizeof *q->opened);
    }
    if (!q || !q->scans || !q->opened) {
        if (q) free(q->scans), free(q->opened);
        free(q);
        return query_out_of_memory();
    }
    q->scan = s;
    q->slots = slots;
    /* An aggregate's column is read from every leaf: prefetched ahead, as
     * ce_table_sum's is. */
    size_t read_column = s->goal == GOAL_AGGREGATE ? (size_t)s->aggregate_path->column : CLUSTER_NO_COLUMN;
    bool ok = cluster_for_each_leaf(s->e->space, s->e->root, read_column, queue_leaf, q);
    for (size_t i = q->count > PREFETCH_AHEAD ? q->count - PREFETCH_AHEAD : 0; ok && i < q->count; i++)
        prepare_leaf(q, (q->first + i) % PIPELINE_DEPTH);
    while (ok && !q->stopped && q->count > 0) ok = evaluate_oldest(q, &q->stopped);
    free(q->scans);
    free(q->opened);
    free(q);
    return ok;
}

/* The values an index lookup for a comparison node needs; *out_usable
 * false if the node cannot use an index. */
static bool lookup_values(const bound_node *node, ce_value **out_values, size_t *out_count, bool *out_usable)
{
    *out_usable = false;
    *out_values = NULL;
    *out_count = 0;
    if (node->kind != BOUND_COMPARE || !node->path.indexed || node->path.size_of || node->flags) return true;
    ce_type type = node->path.type;
    ce_value *values = NULL;
    size_t count = 0;
    switch (node->kernel) {
    case KERNEL_INT:
    case KERNEL_TEXT:
    case KERNEL_TIMESTAMP:
    case KERNEL_FIXED:
        if (node->op != PARSE_OP_EQUAL || type == CE_TYPE_BINARY || type == CE_TYPE_DECIMAL128) return true;
        if (!(values = malloc(sizeof *values))) return query_out_of_memory();
        if (node->kernel == KERNEL_INT)
            values[0] = type == CE_TYPE_BOOL ? (ce_value){.type = CE_TYPE_BOOL, .boolean = node->integer != 0}
                                             : (ce_value){.type = CE_TYPE_INT, .integer = node->integer};
        else values[0] = node->constant;
        count = 1;
        break;
    case KERNEL_NULL:
        if (node->negate) return true;
        if (!(values = malloc(sizeof *values))) return query_out_of_memory();
        values[count++] = (ce_value){.type = CE_TYPE_NULL};
        break;
    case KERNEL_INT_IN:
        if (!(values = malloc((node->integer_count + 1) * sizeof *values))) return query_out_of_memory();
        for (size_t i = 0; i < node->integer_count; i++)
            values[count++] = type == CE_TYPE_BOOL ? (ce_value){.type = CE_TYPE_BOOL, .boolean = node->integers[i] != 0}
                                                   : (ce_value){.type = CE_TYPE_INT, .integer = node->integers[i]};
        if (node->nulls_match) values[count++] = (ce_value){.type = CE_TYPE_NULL};
        break;
    case KERNEL_IN_SET:
        if (type == CE_TYPE_BINARY || type == CE_TYPE_DECIMAL128 || compare_is_number(type)) return true;
        if (!(values = malloc((node->set.count + 1) * sizeof *values))) return query_out_of_memory();
        for (size_t i = 0; i < node->set.count; i++) values[count++] = node->set.values[i];
        if (node->set.has_null) values[count++] = (ce_value){.type = CE_TYPE_NULL};
        break;
    default: return true;
    }
    *out_values = values;
    *out_count = count;
    *out_usable = true;
    return true;
}

bool scan_key_push(key_list *list, ce_object_key key)
{
    if (!buf_reserve((void **)&list->keys, &list->capacity, list->count + 1, sizeof *list->keys)) return false;
    list->keys[list->count++] = key;
    return true;
}

static bool collect_candidate(void *context, ce_object_key object, bool *stop)
{
    (void)stop;
    return scan_key_push(context, object);
}

static int compare_keys(const void *a, const void *b)
{
    ce_object_key x = *(const ce_object_key *)a, y = *(const ce_object_key *)b;
    return x < y ? -1 : x > y;
}

/* Whether every value of a lookup is a primary key's own index key: a
 * non-null int other than INT64_MIN (which null shares). Such a key lists
 * one object at most, found without a walk of the index. */
static bool primary_key_lookup(const ce_value *values, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (values[i].type != CE_TYPE_INT || values[i].integer == INT64_MIN) return false;
    return true;
}

/* Chooses an indexed == or IN among the root or the root's AND terms, the
 * one with the fewest candidates; *out_used false when a scan is cheaper. */
static bool scan_by_index(scan_state *s, bool *out_used)
{
    evaluation *e = s->e;
    const bound_query *bound = e->bound;
    const bound_node *root = &bound->nodes[bound->root];
    size_t terms = root->kind == BOUND_AND ? root->child_count : 1;
    ce_value *best = NULL;
    size_t best_count = 0, best_candidates = SIZE_MAX, best_term = 0;
    *out_used = false;
    for (size_t t = 0; t < terms; t++) {
        const bound_node *node = root->kind == BOUND_AND ? &bound->nodes[bound->children[root->first_child + t]] : root;
        ce_value *values;
        size_t count;
        bool usable;
        if (!lookup_values(node, &values, &count, &usable)) {
            free(best);
            return false;
        }
        if (!usable) continue;
        size_t candidates = 0;
        bool ok = true;
        bool unique = node->path.primary_key && primary_key_lookup(values, count);
        /* Unique values that are their own index keys: one object each at most. */
        if (unique) candidates = count;
        for (size_t i = 0; ok && !unique && i < count; i++) {
            size_t n;
            bool indexed;
            ok = table_index_candidate_count(e->txn, e->core->table, node->path.column, &values[i], &n, &indexed);
            if (ok && !indexed) candidates = SIZE_MAX;
            if (ok && candidates != SIZE_MAX) candidates += n;
        }
        if (!ok) {
            free(values);
            free(best);
            return false;
        }
        if (candidates < best_candidates) {
            free(best);
            best = values;
            best_count = count;
            best_candidates = candidates;
            best_term = t;
        } else {
            free(values);
        }
    }
    if (!best) return true;
    size_t objects;
    if (!cluster_count(e->space, e->root, &objects)) {
        free(best);
        return false;
    }
    /* A scan reads every leaf at memory speed; a candidate costs a descent
     * of the tree. Use the index when it names few objects. */
    if (best_candidates > objects / 16 + 64) {
        free(best);
        return true;
    }
    const bound_node *node = root->kind == BOUND_AND ? &bound->nodes[bound->children[root->first_child + best_term]] : root;
    key_list list = {NULL, 0, 0};
    bool ok = true;
    bool unique = node->path.primary_key && primary_key_lookup(best, best_count);
    for (size_t i = 0; ok && i < best_count; i++) {
        bool indexed, found;
        ce_object_key object;
        if (!unique) {
            ok = table_index_candidates(e->txn, e->core->table, node->path.column, &best[i], collect_candidate, &list,
                                        &indexed);
        } else if ((ok = table_index_first(e->txn, e->core->table, node->path.column, &best[i], &object, &found,
                                           &indexed)) &&
                   found) {
            bool stop = false;
            ok = collect_candidate(&list, object, &stop);
        }
    }
    free(best);
    if (!ok) {
        free(list.keys);
        return false;
    }
    *out_used = true;
    if (list.count) qsort(list.keys, list.count, sizeof *list.keys, compare_keys);
    /* Group the candidates by leaf (keys in order: leaves in order), and
     * evaluate the whole predicate on each leaf's candidates. */
    bool stop = false;
    for (size_t i = 0; ok && i < list.count && !stop;) {
        cluster_position position;
        bool found;
        ok = cluster_find(e->space, e->root, list.keys[i], &position, &found, NULL);
        if (!ok) break;
        if (!found) {
            ok = error_fail(CE_ERR_CORRUPT, "invalid database: the index of '%s' names object %lld, which does not exist",
                         node->path.description, (long long)list.keys[i]);
            break;
        }
        cluster_leaf leaf;
        ok = cluster_leaf_at(e->space, position.leaf, e->columns.column_count, &leaf) && eval_enter_leaf(e, &leaf);
        if (!ok) break;
        mask candidates;
        mask_clear(&candidates);
        /* The following candidates in the same leaf. */
        size_t j = i;
        while (j < list.count) {
            if (j > i && list.keys[j] == list.keys[j - 1]) {
                j++;
                continue;
            }
            if (j > i) {
                ok = cluster_find(e->space, e->root, list.keys[j], &position, &found, NULL);
                if (!ok) break;
                if (!found) {
                    ok = error_fail(CE_ERR_CORRUPT, "invalid database: the index of '%s' names object %lld, which does not exist",
                                 node->path.description, (long long)list.keys[j]);
                    break;
                }
                if (position.leaf != leaf.ref) break;
            }
            if (position.index >= e->count) {
                ok = eval_corrupt_leaf(&leaf, "an object's position lies past its end");
                break;
            }
            mask_set(&candidates, position.index);
            j++;
        }
        if (!ok) break;
        mask matched;
        ok = eval_leaf(e, &candidates, &matched) && act_on_leaf(s, &leaf, &matched, &stop);
        i = j;
    }
    free(list.keys);
    return ok;
}

bool scan_run(scan_state *s)
{
    bool used_index = false;
    if (!scan_by_index(s, &used_index)) return false;
    if (used_index) return true;
    return scan_all_leaves(s);
}

