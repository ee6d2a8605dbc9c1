/*
 * eval.h — evaluating a bound predicate (eval.c): bit masks over the
 * objects of one cluster leaf, and the evaluation state a scan drives leaf
 * by leaf.
 *
 * Owns: the leaf mask, the evaluation state, and the calls that open a
 * leaf's columns and evaluate the predicate over it.
 * Never: walks the cluster tree or chooses the leaves (scan.c does).
 */
#ifndef CE_EVAL_H
#define CE_EVAL_H

#include "cluster.h"
#include "column.h"
#include "compare.h"
#include "query_internal.h"
#include "space.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One bit per object of a leaf (a leaf holds at most CLUSTER_LEAF_MAX + 1). */
#define MASK_WORDS ((CLUSTER_LEAF_MAX + 1 + 63) / 64)
typedef struct mask {
    uint64_t words[MASK_WORDS];
} mask;

static inline void mask_clear(mask *m) { memset(m, 0, sizeof *m); }

static inline void mask_first(mask *m, size_t count)
{
    for (size_t w = 0; w < MASK_WORDS; w++) {
        size_t start = w * 64;
        m->words[w] = count >= start + 64 ? ~0ull : count > start ? (1ull << (count - start)) - 1 : 0;
    }
}

static inline bool mask_is_empty(const mask *m)
{
    uint64_t any = 0;
    for (size_t w = 0; w < MASK_WORDS; w++) any |= m->words[w];
    return any == 0;
}

static inline bool mask_has(const mask *m, size_t i) { return (m->words[i >> 6] >> (i & 63)) & 1; }
static inline void mask_set(mask *m, size_t i) { m->words[i >> 6] |= 1ull << (i & 63); }

/* Runs the body (the variadic part) with `i` bound to each set bit of MASK,
 * in order; `continue` goes on to the next bit. */
#define FOR_EACH_BIT(MASK, i, ...)                                                                                     \
    for (size_t word_ = 0; word_ < MASK_WORDS; word_++) {                                                              \
        uint64_t bits_ = (MASK)->words[word_];                                                                         \
        while (bits_) {                                                                                                \
            size_t i = word_ * 64 + (size_t)__builtin_ctzll(bits_);                                                    \
            bits_ &= bits_ - 1;                                                                                        \
            __VA_ARGS__                                                                                                \
        }                                                                                                              \
    }

/* The objects of the leaf set in a mask (POPCNT where the CPU has it). */
size_t eval_mask_count(const mask *m);

/* A float or double from the integer its column stores. */
static inline double eval_real_from_stored(bool is_float, int64_t stored)
{
    if (is_float) {
        uint32_t bits = (uint32_t)stored;
        float value;
        memcpy(&value, &bits, 4);
        return value;
    }
    double value;
    memcpy(&value, &stored, 8);
    return value;
}

/* A bound predicate evaluated over the leaves of its table. */
typedef struct evaluation {
    ce_txn *txn;
    const space_state *space;
    query_core *core;
    const bound_query *bound;
    space_ref root;
    cluster_schema columns;
    /* The current leaf and its columns, opened on first use. */
    const cluster_leaf *leaf;
    size_t count;
    column_scan *scans;
    bool *opened;
    column_scratch scratch[2];
    folder folder;
} evaluation;

/* Binds the core to the transaction's state (bind_core) and starts an
 * evaluation of its predicate; eval_end frees it. */
bool eval_start(evaluation *e, query_core *core, ce_txn *txn);
void eval_end(evaluation *e);

/* Makes `leaf` the current leaf; its columns open on first use. */
bool eval_enter_leaf(evaluation *e, const cluster_leaf *leaf);

/* A leaf whose columns were opened already (the scan pipeline's): the
 * evaluation reads them from `scans` (opened[slot] says which). */
bool eval_enter_prepared_leaf(evaluation *e, const cluster_leaf *leaf, column_scan *scans, bool *opened);

/* The matches among the objects of `candidates` in the current leaf. */
bool eval_leaf(evaluation *e, const mask *candidates, mask *out);

/* The column array of `column` in a leaf, opened and checked. */
bool eval_open_column(const space_state *space, const cluster_leaf *leaf, ce_column_key column, ce_type type,
                      bool nullable, column_scan *out);

/* The value of `path` for object i of a leaf whose column is open in
 * `scan` (a string's or binary's length for `.@size`). */
bool eval_column_value(const space_state *space, const column_scan *scan, const bound_path *path, size_t i,
                       column_scratch *scratch, ce_value *out);

/* The null bits of a column as a mask (nothing for a required one). */
bool eval_null_mask(const column_scan *scan, size_t count, mask *out);

/* CE_ERR_CORRUPT naming a damaged leaf, or a damaged value of a column;
 * always false. */
bool eval_corrupt_leaf(const cluster_leaf *leaf, const char *what);
bool eval_corrupt_column(const column_scan *scan, size_t index, const char *what);

#endif
