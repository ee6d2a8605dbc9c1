/*
 * eval.c — evaluating a bound predicate over the objects of one cluster
 * leaf as bit masks: tight loops over a column's packed integers, floats
 * and doubles (SSE2, and AVX or POPCNT where the CPU has them, checked at
 * run time), per-leaf answers from a node's width, strings read in place,
 * and the comparisons that go object by object (paths through links and
 * collections, mixed values, SUBQUERY, geoWithin).
 *
 * Owns: the evaluation state of a leaf (its columns opened on first use),
 * the leaf kernels, and AND/OR/NOT over masks.
 * Never: resolves paths or chooses kernels (eval_start has bind.c bind the
 * core first), changes data, or trusts a column: lengths, offsets and null
 * bits are checked before use (a damaged file is CE_ERR_CORRUPT).
 */
#include "eval.h"
#include "arith.h"
#include "bind.h"
#include "cluster.h"
#include "column.h"
#include "compare.h"
#include "db.h"
#include "decimal.h"
#include "error.h"
#include "fold.h"
#include "gather.h"
#include "geo.h"
#include "node.h"
#include "query_internal.h"
#include "table.h"
#include "value.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* Instructions beyond x86-64's baseline, checked once at run time: AVX
 * (the processor and the operating system must both support it) and POPCNT. */
#include <cpuid.h>
#define QUERY_CPU_DISPATCH 1

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static bool avx_usable, popcnt_usable;

static void detect_cpu(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    popcnt_usable = (c & bit_POPCNT) != 0;
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX)) return;
    unsigned low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    avx_usable = (low & 6) == 6; /* the OS saves the SSE and AVX registers */
}

__attribute__((target("popcnt"))) static size_t mask_count_popcnt(const mask *m)
{
    size_t count = 0;
    for (size_t w = 0; w < MASK_WORDS; w++) count += (size_t)__builtin_popcountll(m->words[w]);
    return count;
}
#endif

/* Bits set in a word (SWAR: no call into libgcc without -mpopcnt). */
static inline size_t popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (size_t)((x * 0x0101010101010101ull) >> 56);
}

size_t eval_mask_count(const mask *m)
{
#if defined(QUERY_CPU_DISPATCH)
    pthread_once(&cpu_once, detect_cpu);
    if (popcnt_usable) return mask_count_popcnt(m);
#endif
    size_t count = 0;
    for (size_t w = 0; w < MASK_WORDS; w++) count += popcount64(m->words[w]);
    return count;
}

bool eval_start(evaluation *e, query_core *core, ce_txn *txn)
{
    memset(e, 0, sizeof *e);
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    if (!bind_core(core, txn) || !table_cluster(txn, core->table, &e->root, &e->columns)) return false;
    e->txn = txn;
    e->space = db_txn_space(txn);
    e->core = core;
    e->bound = &core->bound;
    size_t slots = core->bound.slot_count;
    e->scans = calloc(slots + 1, sizeof *e->scans);
    e->opened = calloc(slots + 1, sizeof *e->opened);
    if (!e->scans || !e->opened) {
        free(e->scans);
        free(e->opened);
        return query_out_of_memory();
    }
    return true;
}

void eval_end(evaluation *e)
{
    free(e->scans);
    free(e->opened);
    column_scratch_free(&e->scratch[0]);
    column_scratch_free(&e->scratch[1]);
    compare_folder_free(&e->folder);
    memset(e, 0, sizeof *e);
}

bool eval_corrupt_leaf(const cluster_leaf *leaf, const char *what)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the cluster leaf at offset %llu is damaged: %s",
                   (unsigned long long)leaf->ref, what);
}

bool eval_enter_leaf(evaluation *e, const cluster_leaf *leaf)
{
    if (leaf->key_offsets.count > MASK_WORDS * 64) return eval_corrupt_leaf(leaf, "it holds too many objects");
    e->leaf = leaf;
    e->count = leaf->key_offsets.count;
    memset(e->opened, 0, e->bound->slot_count * sizeof *e->opened);
    return true;
}

bool eval_open_column(const space_state *space, const cluster_leaf *leaf, ce_column_key column, ce_type type,
                      bool nullable, column_scan *out)
{
    if ((size_t)column + 2 >= leaf->slots.count) return eval_corrupt_leaf(leaf, "it has fewer columns than the table");
    space_ref ref = cluster_leaf_column(leaf, column);
    if (!node_value_is_ref((int64_t)ref)) return eval_corrupt_leaf(leaf, "a property's column is missing");
    if (!column_scan_open(space, ref, type, nullable, out)) return false;
    if (out->count != leaf->key_offsets.count) return eval_corrupt_leaf(leaf, "a column holds another number of values");
    return true;
}

bool eval_enter_prepared_leaf(evaluation *e, const cluster_leaf *leaf, column_scan *scans, bool *opened)
{
    if (leaf->key_offsets.count > MASK_WORDS * 64) return eval_corrupt_leaf(leaf, "it holds too many objects");
    e->leaf = leaf;
    e->count = leaf->key_offsets.count;
    e->scans = scans;
    e->opened = opened;
    return true;
}

static bool slot_scan(evaluation *e, unsigned slot, const column_scan **out)
{
    if (!e->opened[slot]) {
        if (!eval_open_column(e->space, e->leaf, e->bound->slot_columns[slot], e->bound->slot_types[slot],
                            e->bound->slot_nullable[slot], &e->scans[slot]))
            return false;
        e->opened[slot] = true;
    }
    *out = &e->scans[slot];
    return true;
}

bool eval_corrupt_column(const column_scan *scan, size_t index, const char *what)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the %s column at offset %llu is damaged: value %zu %s",
                   ce_type_name(scan->type), (unsigned long long)scan->ref, index, what);
}

bool eval_null_mask(const column_scan *scan, size_t count, mask *out)
{
    mask_clear(out);
    if (!scan->has_nulls || (scan->nulls.width == 0 && !scan->nulls.based)) return true;
    if (scan->nulls.width == 1 && !scan->nulls.based) {
        /* Width 1: element i is bit i of the little-endian payload. */
        memcpy(out->words, scan->nulls.payload, (count + 7) / 8);
        mask all;
        mask_first(&all, count);
        for (size_t w = 0; w < MASK_WORDS; w++) out->words[w] &= all.words[w];
        return true;
    }
    for (size_t i = 0; i < count; i++) {
        int64_t bit = node_get(&scan->nulls, i);
        if (bit != 0 && bit != 1) return eval_corrupt_column(scan, i, "has a null bit that is neither 0 nor 1");
        if (bit) mask_set(out, i);
    }
    return true;
}

/* A string or binary in place (or, stored alone, through `scratch`). */
static bool text_at(const evaluation *e, const column_scan *scan, size_t i, column_scratch *scratch,
                    const char **out_data, size_t *out_size)
{
    int64_t start = i ? node_get(&scan->values, i - 1) : 0, end = node_get(&scan->values, i);
    if (start < 0 || end < start || (uint64_t)end > scan->second.count)
        return eval_corrupt_column(scan, i, "lies outside the column's bytes");
    if (scan->has_large && node_get(&scan->large, i) != 0) {
        ce_value value;
        if (!column_scan_get(e->space, scan, i, scratch, &value)) return false;
        compare_text_of(&value, out_data, out_size);
        return true;
    }
    *out_data = (const char *)scan->second.payload + start;
    *out_size = (size_t)(end - start);
    return true;
}

/* The value of a path for object i of the leaf (null, or of the path's
 * value type). */
bool eval_column_value(const space_state *space, const column_scan *scan, const bound_path *path, size_t i,
                       column_scratch *scratch, ce_value *out)
{
    if (!column_scan_get(space, scan, i, scratch, out)) return false;
    if (path->size_of && out->type != CE_TYPE_NULL) {
        const char *data;
        size_t size;
        compare_text_of(out, &data, &size);
        *out = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)size};
    }
    return true;
}

static bool path_value(evaluation *e, const bound_path *path, size_t i, column_scratch *scratch, ce_value *out)
{
    const column_scan *scan;
    return slot_scan(e, path->slot, &scan) && eval_column_value(e->space, scan, path, i, scratch, out);
}

static inline bool int_matches(parse_op op, int64_t v, int64_t c)
{
    switch (op) {
    case PARSE_OP_EQUAL: return v == c;
    case PARSE_OP_NOT_EQUAL: return v != c;
    case PARSE_OP_LESS: return v < c;
    case PARSE_OP_LESS_EQUAL: return v <= c;
    case PARSE_OP_GREATER: return v > c;
    case PARSE_OP_GREATER_EQUAL: return v >= c;
    default: return false;
    }
}

static inline bool real_matches(parse_op op, double v, double c)
{
    switch (op) {
    case PARSE_OP_EQUAL: return v == c;
    case PARSE_OP_NOT_EQUAL: return !(v == c);
    case PARSE_OP_LESS: return v < c;
    case PARSE_OP_LESS_EQUAL: return v <= c;
    case PARSE_OP_GREATER: return v > c;
    case PARSE_OP_GREATER_EQUAL: return v >= c;
    default: return false;
    }
}

static inline bool order_matches(parse_op op, int order)
{
    switch (op) {
    case PARSE_OP_EQUAL: return order == 0;
    case PARSE_OP_NOT_EQUAL: return order != 0;
    case PARSE_OP_LESS: return order < 0;
    case PARSE_OP_LESS_EQUAL: return order <= 0;
    case PARSE_OP_GREATER: return order > 0;
    case PARSE_OP_GREATER_EQUAL: return order >= 0;
    default: return false;
    }
}

/* The bounds of what an integer node of a width can hold: a whole leaf is
 * decided by them when the constant lies outside (or the node holds one
 * value only). 1: all match, 0: none, -1: look at the values. */
static int decide_by_width(uint8_t width, parse_op op, int64_t c)
{
    int64_t low, high;
    switch (width) {
    case 0: low = high = 0; break;
    case 1: low = 0, high = 1; break;
    case 2: low = 0, high = 3; break;
    case 4: low = 0, high = 15; break;
    case 8: low = INT8_MIN, high = INT8_MAX; break;
    case 16: low = INT16_MIN, high = INT16_MAX; break;
    case 32: low = INT32_MIN, high = INT32_MAX; break;
    default: low = INT64_MIN, high = INT64_MAX; break;
    }
    switch (op) {
    case PARSE_OP_EQUAL: return (c < low || c > high) ? 0 : (low == high) ? 1 : -1;
    case PARSE_OP_NOT_EQUAL: return (c < low || c > high) ? 1 : (low == high) ? 0 : -1;
    case PARSE_OP_LESS: return high < c ? 1 : low >= c ? 0 : -1;
    case PARSE_OP_LESS_EQUAL: return high <= c ? 1 : low > c ? 0 : -1;
    case PARSE_OP_GREATER: return low > c ? 1 : high <= c ? 0 : -1;
    case PARSE_OP_GREATER_EQUAL: return low >= c ? 1 : high < c ? 0 : -1;
    default: return -1;
    }
}

/* The comparisons of a scan kernel, after constants were brought into the
 * range of the values: LE c is LT c+1, GE c is GT c-1. */
enum { SCAN_EQ, SCAN_NE, SCAN_LT, SCAN_GT };

/* A scalar loop over packed elements of one width (the tail of a vector
 * loop, and every loop where SSE2 is missing). */
#define SCALAR_LOOP(TYPE, FROM, TEST)                                                                                  \
    for (size_t i = (FROM); i < n; i++) {                                                                              \
        TYPE v;                                                                                                        \
        memcpy(&v, payload + i * sizeof(TYPE), sizeof(TYPE));                                                         \
        if (TEST) mask_set(out, i);                                                                                    \
    }

#define SCALAR_INTEGERS(TYPE, FROM)                                                                                    \
    do {                                                                                                               \
        TYPE k = (TYPE)c;                                                                                              \
        switch (scan_op) {                                                                                             \
        case SCAN_EQ: SCALAR_LOOP(TYPE, FROM, v == k) break;                                                           \
        case SCAN_NE: SCALAR_LOOP(TYPE, FROM, v != k) break;                                                           \
        case SCAN_LT: SCALAR_LOOP(TYPE, FROM, v < k) break;                                                            \
        default: SCALAR_LOOP(TYPE, FROM, v > k) break;                                                                 \
        }                                                                                                              \
    } while (0)

#if defined(__SSE2__)
#include <emmintrin.h>

/* 16 comparison results (bytes of 0 or 0xFF) as 16 bits. */
static inline uint64_t byte_bits(__m128i compared) { return (uint64_t)(unsigned)_mm_movemask_epi8(compared); }

static inline __m128i not_lanes(__m128i v) { return _mm_xor_si128(v, _mm_set1_epi8(-1)); }

/* One loop per comparison (the choice is made once, not per element). The
 * bits of 64 elements gather in a register and are stored once: an |= into
 * the mask at every step would chain the steps through memory. A chunk
 * function compares the 16 elements from `at` and returns their bits. */
#define COMPARE_BY_OP(BITS, V)                                                                                         \
    (scan_op == SCAN_EQ   ? _mm_cmpeq_epi##BITS(V, k)                                                                 \
     : scan_op == SCAN_NE ? not_lanes(_mm_cmpeq_epi##BITS(V, k))                                                      \
     : scan_op == SCAN_LT ? _mm_cmplt_epi##BITS(V, k)                                                                 \
                          : _mm_cmpgt_epi##BITS(V, k))

static inline uint64_t chunk8(const uint8_t *payload, size_t at, __m128i k, int scan_op)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(payload + at));
    return byte_bits(COMPARE_BY_OP(8, v));
}

static inline uint64_t chunk16(const uint8_t *payload, size_t at, __m128i k, int scan_op)
{
    const __m128i *p = (const __m128i *)(const void *)(payload + 2 * at);
    __m128i a = _mm_loadu_si128(p), b = _mm_loadu_si128(p + 1);
    return byte_bits(_mm_packs_epi16(COMPARE_BY_OP(16, a), COMPARE_BY_OP(16, b)));
}

static inline uint64_t chunk32(const uint8_t *payload, size_t at, __m128i k, int scan_op)
{
    const __m128i *p = (const __m128i *)(const void *)(payload + 4 * at);
    __m128i a = _mm_loadu_si128(p), b = _mm_loadu_si128(p + 1), c = _mm_loadu_si128(p + 2), d = _mm_loadu_si128(p + 3);
    return byte_bits(_mm_packs_epi16(_mm_packs_epi32(COMPARE_BY_OP(32, a), COMPARE_BY_OP(32, b)),
                                     _mm_packs_epi32(COMPARE_BY_OP(32, c), COMPARE_BY_OP(32, d))));
}

/* scan_op is a constant in each copy of the loop, so the compiler drops the
 * other comparisons from it. */
#define LANES_LOOP(CHUNK, OP)                                                                                          \
    {                                                                                                                  \
        const int fixed_op = OP;                                                                                       \
        for (; done + 64 <= n; done += 64)                                                                             \
            out->words[done >> 6] = CHUNK(payload, done, k, fixed_op) | CHUNK(payload, done + 16, k, fixed_op) << 16 | \
                                    CHUNK(payload, done + 32, k, fixed_op) << 32 |                                    \
                                    CHUNK(payload, done + 48, k, fixed_op) << 48;                                     \
        for (; done + 16 <= n; done += 16) out->words[done >> 6] |= CHUNK(payload, done, k, fixed_op) << (done & 63);  \
    }

#define LANES_BY_OP(CHUNK)                                                                                             \
    switch (scan_op) {                                                                                                 \
    case SCAN_EQ: LANES_LOOP(CHUNK, SCAN_EQ) break;                                                                    \
    case SCAN_NE: LANES_LOOP(CHUNK, SCAN_NE) break;                                                                    \
    case SCAN_LT: LANES_LOOP(CHUNK, SCAN_LT) break;                                                                    \
    default: LANES_LOOP(CHUNK, SCAN_GT) break;                                                                         \
    }
#endif

/* Which of the n packed integers satisfy `v op c`. */
static void compare_integers(const node_view *values, size_t n, parse_op op, int64_t c, mask *out)
{
    mask_clear(out);
    if (values->base != 0) {
        /* A based node: v = base + packed, so compare packed with c - base
         * (values of a sound node never wrap). When c - base leaves the
         * int64 range, every packed value lies on one side of it. */
        int64_t shifted;
        if (__builtin_sub_overflow(c, values->base, &shifted)) {
            bool all_above = values->base > 0; /* c - base is below INT64_MIN */
            bool match = op == PARSE_OP_NOT_EQUAL ||
                         (all_above ? (op == PARSE_OP_GREATER || op == PARSE_OP_GREATER_EQUAL)
                                    : (op == PARSE_OP_LESS || op == PARSE_OP_LESS_EQUAL));
            if (match) mask_first(out, n);
            return;
        }
        c = shifted;
    }
    int decided = decide_by_width(values->width, op, c);
    if (decided >= 0) {
        if (decided) mask_first(out, n);
        return;
    }
    const uint8_t *payload = values->payload;
    if (values->width < 8) {
        for (size_t i = 0; i < n; i++)
            if (int_matches(op, node_get_packed(values, i), c)) mask_set(out, i);
        return;
    }
    /* Undecided by the width: c lies within the width's range, and so do
     * c + 1 for LE (c < the largest) and c - 1 for GE (c > the smallest). */
    int scan_op;
    switch (op) {
    case PARSE_OP_EQUAL: scan_op = SCAN_EQ; break;
    case PARSE_OP_NOT_EQUAL: scan_op = SCAN_NE; break;
    case PARSE_OP_LESS: scan_op = SCAN_LT; break;
    case PARSE_OP_LESS_EQUAL: scan_op = SCAN_LT, c = c + 1; break;
    case PARSE_OP_GREATER: scan_op = SCAN_GT; break;
    default: scan_op = SCAN_GT, c = c - 1; break;
    }
    size_t done = 0;
#if defined(__SSE2__)
    switch (values->width) {
    case 8: {
        __m128i k = _mm_set1_epi8((char)c);
        LANES_BY_OP(chunk8)
        break;
    }
    case 16: {
        __m128i k = _mm_set1_epi16((short)c);
        LANES_BY_OP(chunk16)
        break;
    }
    case 32: {
        __m128i k = _mm_set1_epi32((int)c);
        LANES_BY_OP(chunk32)
        break;
    }
    default: break; /* 64-bit integers: no SSE2 comparison */
    }
#endif
    switch (values->width) {
    case 8: SCALAR_INTEGERS(int8_t, done); break;
    case 16: SCALAR_INTEGERS(int16_t, done); break;
    case 32: SCALAR_INTEGERS(int32_t, done); break;
    default: SCALAR_INTEGERS(int64_t, done); break;
    }
}

#if defined(__SSE2__)
/* The bits of 8 doubles (or floats, widened) from `at`, compared by op. */
static inline __m128d compare_pd(__m128d v, __m128d k, parse_op op)
{
    switch (op) {
    case PARSE_OP_EQUAL: return _mm_cmpeq_pd(v, k);
    case PARSE_OP_NOT_EQUAL: return _mm_cmpneq_pd(v, k);
    case PARSE_OP_LESS: return _mm_cmplt_pd(v, k);
    case PARSE_OP_LESS_EQUAL: return _mm_cmple_pd(v, k);
    case PARSE_OP_GREATER: return _mm_cmpgt_pd(v, k);
    default: return _mm_cmpge_pd(v, k);
    }
}
static inline uint64_t double_chunk(const uint8_t *payload, size_t at, __m128d k, parse_op op)
{
    const double *p = (const double *)(const void *)(payload + 8 * at);
    return (uint64_t)_mm_movemask_pd(compare_pd(_mm_loadu_pd(p), k, op)) |
           (uint64_t)_mm_movemask_pd(compare_pd(_mm_loadu_pd(p + 2), k, op)) << 2 |
           (uint64_t)_mm_movemask_pd(compare_pd(_mm_loadu_pd(p + 4), k, op)) << 4 |
           (uint64_t)_mm_movemask_pd(compare_pd(_mm_loadu_pd(p + 6), k, op)) << 6;
}
static inline uint64_t float_chunk(const uint8_t *payload, size_t at, __m128d k, parse_op op)
{
    __m128 low = _mm_loadu_ps((const float *)(const void *)(payload + 4 * at));
    __m128 high = _mm_loadu_ps((const float *)(const void *)(payload + 4 * at + 16));
    return (uint64_t)_mm_movemask_pd(compare_pd(_mm_cvtps_pd(low), k, op)) |
           (uint64_t)_mm_movemask_pd(compare_pd(_mm_cvtps_pd(_mm_movehl_ps(low, low)), k, op)) << 2 |
           (uint64_t)_mm_movemask_pd(compare_pd(_mm_cvtps_pd(high), k, op)) << 4 |
           (uint64_t)_mm_movemask_pd(compare_pd(_mm_cvtps_pd(_mm_movehl_ps(high, high)), k, op)) << 6;
}
#define REAL_LOOP(CHUNK, OP)                                                                                           \
    {                                                                                                                  \
        const parse_op fixed_op = OP;                                                                                  \
        for (; done + 64 <= n; done += 64) {                                                                           \
            uint64_t word = 0;                                                                                         \
            for (size_t j = 0; j < 64; j += 8) word |= CHUNK(payload, done + j, k, fixed_op) << j;                     \
            out->words[done >> 6] = word;                                                                              \
        }                                                                                                              \
        for (; done + 8 <= n; done += 8) out->words[done >> 6] |= CHUNK(payload, done, k, fixed_op) << (done & 63);    \
    }
#define REAL_LANES_BY_OP(CHUNK)                                                                                        \
    switch (op) {                                                                                                      \
    case PARSE_OP_EQUAL: REAL_LOOP(CHUNK, PARSE_OP_EQUAL) break;                                                       \
    case PARSE_OP_NOT_EQUAL: REAL_LOOP(CHUNK, PARSE_OP_NOT_EQUAL) break;                                               \
    case PARSE_OP_LESS: REAL_LOOP(CHUNK, PARSE_OP_LESS) break;                                                         \
    case PARSE_OP_LESS_EQUAL: REAL_LOOP(CHUNK, PARSE_OP_LESS_EQUAL) break;                                             \
    case PARSE_OP_GREATER: REAL_LOOP(CHUNK, PARSE_OP_GREATER) break;                                                   \
    default: REAL_LOOP(CHUNK, PARSE_OP_GREATER_EQUAL) break;                                                           \
    }
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* With AVX (checked at run time: the processor and the operating system
 * must both support it), 4 doubles a comparison instead of 2. */
#include <immintrin.h>
#define QUERY_AVX_DOUBLES 1

#define AVX_BITS(P, PREDICATE) ((uint64_t)(unsigned)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(P), k, PREDICATE)))
#define AVX_LOOP(PREDICATE)                                                                                            \
    for (; done + 64 <= n; done += 64) {                                                                               \
        uint64_t word = 0;                                                                                             \
        for (size_t j = 0; j < 64; j += 16) {                                                                          \
            const double *p = (const double *)(const void *)(payload + 8 * (done + j));                               \
            uint64_t bits = AVX_BITS(p, PREDICATE) | AVX_BITS(p + 4, PREDICATE) << 4 |                                 \
                            AVX_BITS(p + 8, PREDICATE) << 8 | AVX_BITS(p + 12, PREDICATE) << 12;                       \
            word |= bits << j;                                                                                         \
        }                                                                                                              \
        out->words[done >> 6] = word;                                                                                  \
    }

/* The whole words of 64 doubles; returns how many doubles it did. */
__attribute__((target("avx"))) static size_t compare_doubles_avx(const uint8_t *payload, size_t n, parse_op op, double c,
                                                                 mask *out)
{
    __m256d k = _mm256_set1_pd(c);
    size_t done = 0;
    switch (op) {
    case PARSE_OP_EQUAL: AVX_LOOP(_CMP_EQ_OQ) break;
    case PARSE_OP_NOT_EQUAL: AVX_LOOP(_CMP_NEQ_UQ) break;
    case PARSE_OP_LESS: AVX_LOOP(_CMP_LT_OQ) break;
    case PARSE_OP_LESS_EQUAL: AVX_LOOP(_CMP_LE_OQ) break;
    case PARSE_OP_GREATER: AVX_LOOP(_CMP_GT_OQ) break;
    default: AVX_LOOP(_CMP_GE_OQ) break;
    }
    return done;
}
#endif

/* Which of the n floats or doubles satisfy `v op c` (c is not NaN; a NaN
 * value satisfies only !=). */
static void compare_reals(const node_view *values, size_t n, bool is_float, parse_op op, double c, mask *out)
{
    mask_clear(out);
    const uint8_t *payload = values->payload;
    size_t done = 0;
    if (!is_float && values->width == 64 && !values->based) {
#if defined(QUERY_AVX_DOUBLES)
        pthread_once(&cpu_once, detect_cpu);
        if (avx_usable) done = compare_doubles_avx(payload, n, op, c, out);
#endif
#if defined(__SSE2__)
        __m128d k = _mm_set1_pd(c);
        REAL_LANES_BY_OP(double_chunk)
#endif
        SCALAR_LOOP(double, done, real_matches(op, v, c))
    } else if (is_float && values->width == 32 && !values->based) {
#if defined(__SSE2__)
        __m128d k = _mm_set1_pd(c);
        REAL_LANES_BY_OP(float_chunk)
#endif
        SCALAR_LOOP(float, done, real_matches(op, (double)v, c))
    } else {
        for (size_t i = 0; i < n; i++)
            if (real_matches(op, eval_real_from_stored(is_float, node_get(values, i)), c)) mask_set(out, i);
    }
}

static int compare_timestamps(int64_t seconds, int64_t nanoseconds, ce_timestamp c)
{
    if (seconds != c.seconds) return seconds < c.seconds ? -1 : 1;
    return nanoseconds < c.nanoseconds ? -1 : nanoseconds > c.nanoseconds;
}

/* The lengths of strings and binaries (@size): per candidate. */
static bool text_size_at(evaluation *e, const column_scan *scan, size_t i, int64_t *out_size)
{
    const char *data;
    size_t size;
    if (!text_at(e, scan, i, &e->scratch[0], &data, &size)) return false;
    *out_size = (int64_t)size;
    return true;
}

static bool int_in(const bound_node *node, int64_t v)
{
    size_t low = 0, high = node->integer_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (node->integers[middle] < v) low = middle + 1;
        else high = middle;
    }
    return low < node->integer_count && node->integers[low] == v;
}

/* The value an IN-set compares: the kernel's domain (see set_value). */
static bool set_probe(evaluation *e, const bound_node *node, size_t i, ce_value *out)
{
    if (!path_value(e, &node->path, i, &e->scratch[0], out)) return false;
    switch (out->type) {
    case CE_TYPE_FLOAT: *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = out->float_value}; break;
    case CE_TYPE_STRING:
        if (node->flags) {
            size_t size;
            if (!fold_text(out->string.data, out->string.size, node->flags, &e->folder.buffers[0],
                                 &e->folder.capacities[0], &size))
                return false;
            out->string.data = e->folder.buffers[0];
            out->string.size = size;
        }
        break;
    case CE_TYPE_BINARY: /* [c] on a binary: its bytes folded as text */
        if (node->flags) {
            size_t size;
            if (!fold_text((const char *)out->binary.data, out->binary.size, node->flags, &e->folder.buffers[0],
                           &e->folder.capacities[0], &size))
                return false;
            out->binary.data = (const uint8_t *)e->folder.buffers[0];
            out->binary.size = size;
        }
        break;
    default: break;
    }
    return true;
}

/* The values of a comparison's kernel for the objects in `in`, ignoring
 * nulls (the caller applies them): `matched` gets the bits of objects whose
 * non-null value satisfies the comparison. */
static bool kernel_values(evaluation *e, const bound_node *node, const column_scan *scan, const mask *in,
                          const mask *nulls, mask *matched)
{
    size_t n = e->count;
    switch (node->kernel) {
    case KERNEL_INT:
        if (node->path.size_of) {
            mask_clear(matched);
            FOR_EACH_BIT(in, i, {
                if (mask_has(nulls, i)) continue;
                int64_t size;
                if (!text_size_at(e, scan, i, &size)) return false;
                if (int_matches(node->op, size, node->integer)) mask_set(matched, i);
            })
            return true;
        }
        compare_integers(&scan->values, n, node->op, node->integer, matched);
        return true;
    case KERNEL_INT_IN:
        mask_clear(matched);
        FOR_EACH_BIT(in, i, {
            if (mask_has(nulls, i)) continue;
            int64_t v;
            if (node->path.size_of) {
                if (!text_size_at(e, scan, i, &v)) return false;
            } else {
                v = node_get(&scan->values, i);
            }
            if (int_in(node, v)) mask_set(matched, i);
        })
        return true;
    case KERNEL_REAL: compare_reals(&scan->values, n, scan->type == CE_TYPE_FLOAT, node->op, node->real, matched); return true;
    case KERNEL_REAL_NAN:
        mask_clear(matched);
        for (size_t i = 0; i < n; i++) {
            bool nan = isnan(eval_real_from_stored(scan->type == CE_TYPE_FLOAT, node_get(&scan->values, i)));
            if (nan != node->negate) mask_set(matched, i);
        }
        return true;
    case KERNEL_TIMESTAMP:
        mask_clear(matched);
        FOR_EACH_BIT(in, i, {
            int64_t seconds = node_get(&scan->values, i), nanoseconds = node_get(&scan->second, i);
            if (order_matches(node->op, compare_timestamps(seconds, nanoseconds, node->constant.timestamp)))
                mask_set(matched, i);
        })
        return true;
    case KERNEL_FIXED: {
        mask_clear(matched);
        size_t size = scan->element_size;
        const uint8_t *constant = scan->type == CE_TYPE_OBJECT_ID ? node->constant.object_id.bytes : node->constant.uuid.bytes;
        FOR_EACH_BIT(in, i, {
            const uint8_t *bytes = scan->values.payload + i * size;
            int order;
            if (scan->type == CE_TYPE_DECIMAL128) {
                ce_value value = {.type = CE_TYPE_DECIMAL128};
                uint64_t words[2] = {0, 0};
                for (int k = 0; k < 8; k++) {
                    words[0] |= (uint64_t)bytes[k] << (8 * k);
                    words[1] |= (uint64_t)bytes[8 + k] << (8 * k);
                }
                value.decimal.low = words[0];
                value.decimal.high = words[1];
                if (decimal_is_nan(value.decimal) && compare_is_ordered_operator(node->op)) continue;
                order = value_compare(&value, &node->constant);
            } else {
                order = memcmp(bytes, constant, size);
            }
            if (order_matches(node->op, order)) mask_set(matched, i);
        })
        return true;
    }
    case KERNEL_TEXT: {
        mask_clear(matched);
        const char *pattern;
        size_t pattern_size;
        compare_text_of(&node->constant, &pattern, &pattern_size);
        bool bytes = scan->type == CE_TYPE_BINARY;
        FOR_EACH_BIT(in, i, {
            if (mask_has(nulls, i)) continue;
            const char *data;
            size_t size;
            if (!text_at(e, scan, i, &e->scratch[0], &data, &size)) return false;
            if (node->flags) {
                if (!fold_text(data, size, node->flags, &e->folder.buffers[0], &e->folder.capacities[0], &size))
                    return false;
                data = e->folder.buffers[0];
            }
            if (compare_text_operator(node->op, data, size, pattern, pattern_size, bytes)) mask_set(matched, i);
        })
        return true;
    }
    case KERNEL_IN_SET:
        mask_clear(matched);
        FOR_EACH_BIT(in, i, {
            if (mask_has(nulls, i)) continue;
            ce_value probe;
            if (!set_probe(e, node, i, &probe)) return false;
            if (value_set_find(&node->set, &probe)) mask_set(matched, i);
        })
        return true;
    default: break;
    }
    return error_fail(CE_ERR_FAIL, "internal error: kernel %d has no values", (int)node->kernel);
}

/* ------------------------------------------------------------------------ */
/* Object by object: paths through links, collections and backlinks          */
/* ------------------------------------------------------------------------ */

/* The object a comparison is evaluated for: the queried object, or the
 * object a SUBQUERY variable stands for. `leaf_index` is the queried
 * object's position in the current leaf (SIZE_MAX inside a SUBQUERY, where
 * no local column is read). */
typedef struct object_context {
    ce_table_key table;
    ce_object_key key;
    size_t leaf_index;
} object_context;

static bool eval_object(evaluation *e, size_t index, const object_context *context, bool *out);

/* The values of one side of a comparison for an object; *out_many when they
 * are several values (a collection's) rather than one. */
static bool operand_bag(evaluation *e, const operand *o, const object_context *context, value_bag *bag, bool *out_many);

/* Keeps the numbers of `from` in `to` (anything else becomes null), so
 * nothing in `to` points into `from`'s copies once it is freed. */
static bool keep_numbers(const value_bag *from, size_t count, value_bag *to)
{
    static const ce_value null_value = {.type = CE_TYPE_NULL};
    for (size_t i = 0; i < count; i++)
        if (!gather_bag_push(to, compare_is_number(from->values[i].type) ? &from->values[i] : &null_value)) return false;
    return true;
}

/* The values of an arithmetic expression for an object (arith.h), in
 * `out`; *out_many when they are a collection's (realm-core's m_from_list)
 * rather than one value. A leaf of one value yields it (null when it
 * reads nothing); a leaf of several values (a list, a path through a
 * collection) yields each. An operator applies to each value of its side
 * of several values with the other side's one value (query_expression.hpp,
 * ValueBase::fun and fun_const); two sides of several values are refused,
 * in realm-core's words ("Operations involving two lists are not
 * supported", ValueBase::fun), as realm-core does when it evaluates them. */
static bool arith_values(evaluation *e, const arith_expr *x, const object_context *context, value_bag *out,
                         bool *out_many)
{
    if (!x->op) {
        value_bag bag = {0};
        bool ok = operand_bag(e, &x->leaf, context, &bag, out_many);
        if (ok && *out_many) ok = keep_numbers(&bag, bag.count, out);
        else if (ok && bag.count) ok = keep_numbers(&bag, 1, out);
        else if (ok) ok = gather_bag_push(out, &(ce_value){.type = CE_TYPE_NULL});
        gather_bag_free(&bag);
        return ok;
    }
    value_bag sides[2] = {{0}, {0}};
    bool many[2];
    bool ok = arith_values(e, x->left, context, &sides[0], &many[0]) &&
              arith_values(e, x->right, context, &sides[1], &many[1]);
    if (ok && many[0] && many[1])
        ok = error_fail(CE_ERR_INVALID_QUERY, "Operations involving two lists are not supported");
    *out_many = ok && (many[0] || many[1]);
    size_t count = *out_many ? sides[many[0] ? 0 : 1].count : 1;
    for (size_t i = 0; ok && i < count; i++) {
        ce_value value;
        arith_apply(x->op, &sides[0].values[many[0] ? i : 0], &sides[1].values[many[1] ? i : 0], &value);
        ok = gather_bag_push(out, &value);
    }
    gather_bag_free(&sides[0]);
    gather_bag_free(&sides[1]);
    return ok;
}

static bool operand_bag(evaluation *e, const operand *o, const object_context *context, value_bag *bag, bool *out_many)
{
    *out_many = false;
    switch (o->kind) {
    case OPERAND_VALUE: return gather_bag_push(bag, &o->value);
    case OPERAND_ARITH: return arith_values(e, o->arith, context, bag, out_many);
    case OPERAND_GEO: return error_fail(CE_ERR_FAIL, "internal error: a shape outside GEOWITHIN");
    case OPERAND_LIST:
        *out_many = true;
        for (size_t i = 0; i < o->list_count; i++)
            if (!gather_bag_push(bag, &o->list[i])) return false;
        return true;
    case OPERAND_PATH:
        if (o->path.local && context->leaf_index != SIZE_MAX) {
            ce_value value;
            return path_value(e, &o->path, context->leaf_index, &e->scratch[0], &value) && gather_bag_push(bag, &value);
        }
        if (!gather_path(e->txn, &o->path, 0, context->table, context->key, bag)) return false;
        *out_many = o->path.multi && (o->path.aggregate == PATH_ALL_VALUES || path_per_collection(&o->path));
        return gather_aggregate(&o->path, bag);
    case OPERAND_SUBQUERY: {
        value_bag objects = {0};
        bool ok = gather_path(e->txn, &o->path, 0, context->table, context->key, &objects);
        int64_t matches = 0;
        for (size_t i = 0; ok && i < objects.count; i++) {
            object_context element = {objects.values[i].link.table, objects.values[i].link.key, SIZE_MAX};
            bool match;
            ok = eval_object(e, o->subquery, &element, &match);
            matches += ok && match;
        }
        gather_bag_free(&objects);
        ce_value count = {.type = CE_TYPE_INT, .integer = matches};
        return ok && gather_bag_push(bag, &count);
    }
    }
    return true;
}

/* Whether `value op right` holds for one of the right side's values (IN:
 * equal to one of them; BETWEEN: within the two). */
static bool matches_right(evaluation *e, const bound_node *node, const ce_value *value, const value_bag *right, bool *out)
{
    *out = false;
    if (node->op == PARSE_OP_BETWEEN) {
        bool low, high;
        if (!compare_values(value, PARSE_OP_GREATER_EQUAL, &right->values[0], 0, &e->folder, &low) ||
            !compare_values(value, PARSE_OP_LESS_EQUAL, &right->values[1], 0, &e->folder, &high))
            return false;
        *out = low && high;
        return true;
    }
    parse_op op = node->op == PARSE_OP_IN ? PARSE_OP_EQUAL : node->op;
    /* realm-core's string operators on mixed values (the QueryValue
     * overloads of Contains, BeginsWith, EndsWith, Like and their [c]
     * forms, src/realm/query_conditions.hpp) take a string with a string or
     * a binary with a binary and are false otherwise; == and != compare a
     * string with a binary as bytes (Mixed::types_are_comparable). So do
     * a string or binary property's values with an argument of the other
     * kind (StringOpsNode::visit, driver.cpp, uses the same overloads when
     * the two types differ; see bind_path_value). */
    ce_type left_type = node->left.kind == OPERAND_PATH ? path_value_type(&node->left.path) : CE_TYPE_NULL;
    ce_type right_type = node->right.kind == OPERAND_PATH ? path_value_type(&node->right.path) : CE_TYPE_NULL;
    bool one_text_kind = compare_is_string_operator(op) &&
                         (left_type == CE_TYPE_MIXED || right_type == CE_TYPE_MIXED ||
                          (compare_is_text(left_type) && node->right.kind == OPERAND_VALUE && node->right.from_argument) ||
                          (compare_is_text(right_type) && node->left.kind == OPERAND_VALUE && node->left.from_argument));
    /* ANY of the right side's values, unless a quantifier before a list
     * says ALL or NONE (realm-core's ValueBase::compare, right_matches). */
    parse_quantifier quantifier = node->right_quantifier;
    bool any = false, all = true;
    for (size_t i = 0; i < right->count && (quantifier == PARSE_QUANTIFIER_ALL ? all : !any); i++) {
        bool match = false;
        bool value_null = value->type == CE_TYPE_NULL, right_null = right->values[i].type == CE_TYPE_NULL;
        if (one_text_kind && compare_is_text(value->type) && compare_is_text(right->values[i].type) &&
            value->type != right->values[i].type)
            match = false;
        else if (node->null_string_first && value_null != right_null)
            /* $x.s < 'a' inside a SUBQUERY: the null string first (bind_predicate.c). */
            match = compare_null_string_result(op, value_null);
        else if (!compare_values(value, op, &right->values[i], node->flags, &e->folder, &match))
            return false;
        any = any || match;
        all = all && match;
    }
    *out = quantifier == PARSE_QUANTIFIER_ALL ? all : quantifier == PARSE_QUANTIFIER_NONE ? !any : any;
    return true;
}

/* A generic comparison for one object: the left side's values against the
 * right side's, ANY of the left ones unless the quantifier says ALL or NONE. */
static bool generic_match(evaluation *e, const bound_node *node, const object_context *context, bool *out)
{
    value_bag left = {0}, right = {0};
    bool left_many, right_many;
    bool ok = operand_bag(e, &node->left, context, &left, &left_many) &&
              operand_bag(e, &node->right, context, &right, &right_many);
    if (ok && node->in_order && left_many && right_many) {
        /* Two collections' values with no ANY, ALL or NONE: the same
         * number of them, each pair matching in order (realm-core's
         * ValueBase::compare: "simple element by element comparison";
         * != holds for lists of different sizes). */
        *out = left.count == right.count || node->op == PARSE_OP_NOT_EQUAL;
        for (size_t i = 0; ok && *out && left.count == right.count && i < left.count; i++) {
            value_bag one = {.values = &right.values[i], .count = 1};
            ok = matches_right(e, node, &left.values[i], &one, out);
        }
        gather_bag_free(&left);
        gather_bag_free(&right);
        return ok;
    }
    bool any = false, all = true;
    for (size_t i = 0; ok && i < left.count; i++) {
        bool match;
        ok = matches_right(e, node, &left.values[i], &right, &match);
        match = match != node->negate; /* v.@type != 'numeric' (bind_type_of) */
        any = any || match;
        all = all && match;
    }
    if (ok) {
        switch (node->quantifier) {
        case PARSE_QUANTIFIER_ALL: *out = all; break;
        case PARSE_QUANTIFIER_NONE: *out = !any; break;
        default: *out = any; break;
        }
    }
    gather_bag_free(&left);
    gather_bag_free(&right);
    return ok;
}

/* Whether the embedded object (table, key) holds a point within the
 * node's region (realm-core's Geospatial::point_from_obj and
 * GeoRegion::contains): type "Point" in any case, coordinates
 * [longitude, latitude, ...]. Another type, fewer than two coordinates
 * or a point out of range (geo_region_contains) is no point and matches
 * nothing. */
static bool geo_point_within(evaluation *e, const bound_node *node, ce_table_key table, ce_object_key key, bool *out)
{
    *out = false;
    ce_value type;
    if (!ce_object_get(e->txn, table, key, node->geo_type_column, &type)) return false;
    static const char point[] = "point";
    bool is_point = type.type == CE_TYPE_STRING && type.string.size == 5;
    for (size_t i = 0; is_point && i < 5; i++) is_point = (type.string.data[i] | 0x20) == point[i];
    if (!is_point) return true;
    ce_collection *coordinates;
    if (!ce_collection_open(e->txn, table, key, node->geo_coordinates_column, &coordinates)) return false;
    size_t size;
    ce_value longitude, latitude;
    bool ok = ce_collection_size(coordinates, &size);
    if (ok && size >= 2) {
        ok = ce_collection_get(coordinates, 0, &longitude) && ce_collection_get(coordinates, 1, &latitude);
        if (ok && longitude.type == CE_TYPE_DOUBLE && latitude.type == CE_TYPE_DOUBLE)
            *out = geo_region_contains(node->geo, longitude.double_value, latitude.double_value);
    }
    ce_collection_close(coordinates);
    return ok;
}

/* A GEOWITHIN comparison for one object: ANY of the embedded objects its
 * path reaches within the region (ALL: at least one, and every one; NONE:
 * not one), as realm-core's GeoWithinCompare maps the links. */
static bool geo_match(evaluation *e, const bound_node *node, const object_context *context, bool *out)
{
    value_bag objects = {0};
    bool ok = gather_path(e->txn, &node->path, 0, context->table, context->key, &objects);
    size_t reached = 0, within = 0;
    for (size_t i = 0; ok && i < objects.count; i++) {
        if (objects.values[i].type != CE_TYPE_LINK) continue;
        bool match;
        ok = geo_point_within(e, node, objects.values[i].link.table, objects.values[i].link.key, &match);
        reached++;
        within += ok && match;
        if (ok && node->quantifier != PARSE_QUANTIFIER_ALL && match) break;
    }
    gather_bag_free(&objects);
    if (!ok) return false;
    switch (node->quantifier) {
    case PARSE_QUANTIFIER_ALL: *out = reached > 0 && within == reached; break;
    case PARSE_QUANTIFIER_NONE: *out = within == 0; break;
    default: *out = within > 0; break;
    }
    return true;
}

/* A predicate inside a SUBQUERY, for one object. */
static bool eval_object(evaluation *e, size_t index, const object_context *context, bool *out)
{
    const bound_node *node = &e->bound->nodes[index];
    switch (node->kind) {
    case BOUND_TRUE: *out = true; return true;
    case BOUND_FALSE: *out = false; return true;
    case BOUND_NOT:
        if (!eval_object(e, e->bound->children[node->first_child], context, out)) return false;
        *out = !*out;
        return true;
    case BOUND_AND:
    case BOUND_OR:
        *out = node->kind == BOUND_AND;
        for (size_t c = 0; c < node->child_count && *out == (node->kind == BOUND_AND); c++)
            if (!eval_object(e, e->bound->children[node->first_child + c], context, out)) return false;
        return true;
    case BOUND_COMPARE:
        if (node->kernel == KERNEL_GENERIC) return generic_match(e, node, context, out);
        if (node->kernel == KERNEL_GEO) return geo_match(e, node, context, out);
        break;
    }
    return error_fail(CE_ERR_FAIL, "internal error: a SUBQUERY holds a comparison of kind %d", (int)node->kernel);
}

static bool eval_compare(evaluation *e, const bound_node *node, const mask *in, mask *out)
{
    if (node->kernel == KERNEL_GENERIC || node->kernel == KERNEL_GEO) {
        mask_clear(out);
        FOR_EACH_BIT(in, i, {
            object_context context = {e->core->table, cluster_leaf_key(e->leaf, i), i};
            bool result;
            if (!(node->kernel == KERNEL_GEO ? geo_match(e, node, &context, &result) : generic_match(e, node, &context, &result)))
                return false;
            if (result) mask_set(out, i);
        })
        return true;
    }
    const column_scan *scan;
    mask nulls;
    if (!slot_scan(e, node->path.slot, &scan) || !eval_null_mask(scan, e->count, &nulls)) return false;
    if (node->kernel == KERNEL_NULL) {
        for (size_t w = 0; w < MASK_WORDS; w++)
            out->words[w] = in->words[w] & (node->negate ? ~nulls.words[w] : nulls.words[w]);
        return true;
    }
    mask matched;
    if (!kernel_values(e, node, scan, in, &nulls, &matched)) return false;
    for (size_t w = 0; w < MASK_WORDS; w++)
        out->words[w] = in->words[w] & ((matched.words[w] & ~nulls.words[w]) | (node->nulls_match ? nulls.words[w] : 0));
    return true;
}

static bool eval_node(evaluation *e, size_t index, const mask *in, mask *out)
{
    const bound_node *node = &e->bound->nodes[index];
    switch (node->kind) {
    case BOUND_TRUE: *out = *in; return true;
    case BOUND_FALSE: mask_clear(out); return true;
    case BOUND_AND: {
        mask current = *in;
        for (size_t c = 0; c < node->child_count && !mask_is_empty(&current); c++) {
            mask next;
            if (!eval_node(e, e->bound->children[node->first_child + c], &current, &next)) return false;
            current = next;
        }
        *out = current;
        return true;
    }
    case BOUND_OR: {
        mask result, remaining = *in;
        mask_clear(&result);
        for (size_t c = 0; c < node->child_count && !mask_is_empty(&remaining); c++) {
            mask matched;
            if (!eval_node(e, e->bound->children[node->first_child + c], &remaining, &matched)) return false;
            for (size_t w = 0; w < MASK_WORDS; w++) {
                result.words[w] |= matched.words[w];
                remaining.words[w] &= ~matched.words[w];
            }
        }
        *out = result;
        return true;
    }
    case BOUND_NOT: {
        mask matched;
        if (!eval_node(e, e->bound->children[node->first_child], in, &matched)) return false;
        for (size_t w = 0; w < MASK_WORDS; w++) out->words[w] = in->words[w] & ~matched.words[w];
        return true;
    }
    case BOUND_COMPARE: return eval_compare(e, node, in, out);
    }
    return error_fail(CE_ERR_FAIL, "internal error: bound node of kind %d", (int)node->kind);
}

bool eval_leaf(evaluation *e, const mask *candidates, mask *out)
{
    return eval_node(e, e->bound->root, candidates, out);
}

