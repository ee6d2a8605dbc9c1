/*
 * sort.c — sorting and distinct for results views (reading their key
 * paths entry by entry), and the order of a collection of values: a
 * stable LSD radix sort for numbers, bools and timestamps, a stable merge
 * sort for the rest, nulls first when ascending; distinct keeps the first
 * entry of each distinct combination of keys (of a collection of values:
 * the first of each value, after or between sorts by value).
 *
 * Owns: the order of sort keys (null first, then value.h's order) and the
 * equality of distinct keys (value_equal).
 * Never: binds key paths (results.c hands it bound paths), or changes
 * data; a value decompressed into a scratch buffer is copied before the
 * next read.
 */
#include "sort.h"
#include "buf.h"
#include "cluster.h"
#include "column.h"
#include "compare.h"
#include "db.h"
#include "error.h"
#include "eval.h"
#include "gather.h"
#include "node.h"
#include "query_internal.h"
#include "scan.h"
#include "table.h"
#include "value.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Reading key paths for entries                                             */
/* ------------------------------------------------------------------------ */

bool sort_reader_start(entry_reader *r, ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths,
                       size_t path_count)
{
    memset(r, 0, sizeof *r);
    r->txn = txn;
    r->table = table;
    r->space = db_txn_space(txn);
    r->column_count = column_count;
    r->paths = paths;
    r->path_count = path_count;
    r->scans = calloc(path_count + 1, sizeof *r->scans);
    r->opened = calloc(path_count + 1, sizeof *r->opened);
    if (!r->scans || !r->opened) {
        free(r->scans);
        free(r->opened);
        return query_out_of_memory();
    }
    return true;
}

void sort_reader_end(entry_reader *r)
{
    gather_bag_free(&r->bag);
    for (size_t i = 0; i < r->copy_count; i++) free(r->copies[i]);
    free(r->copies);
    free(r->scans);
    free(r->opened);
    column_scratch_free(&r->scratch);
}

bool sort_reader_get(entry_reader *r, const entry *en, size_t p, ce_value *out)
{
    const bound_path *generic = &r->paths[p];
    r->missing_link = false;
    if (!generic->local) {
        /* One value (the descriptors' checks make sure), kept as a copy. The
         * to-one links on the way first: one of them null is told apart
         * from a null value. */
        gather_bag_clear(&r->bag);
        ce_table_key table = r->table;
        ce_object_key key = en->key;
        size_t hop = 0;
        if (!generic->multi && generic->aggregate == PATH_ALL_VALUES)
            for (; hop < generic->hop_count && generic->hops[hop].kind == HOP_LINK; hop++) {
                ce_value link;
                if (!ce_object_get(r->txn, table, key, generic->hops[hop].column, &link)) return false;
                if (link.type != CE_TYPE_LINK) {
                    r->missing_link = true;
                    *out = (ce_value){.type = CE_TYPE_NULL};
                    return true;
                }
                table = generic->hops[hop].to;
                key = link.link.key;
            }
        if (!gather_path(r->txn, generic, hop, table, key, &r->bag) || !gather_aggregate(generic, &r->bag)) return false;
        *out = r->bag.count ? r->bag.values[0] : (ce_value){.type = CE_TYPE_NULL};
        if (compare_is_text(out->type)) {
            const char *data;
            size_t size;
            compare_text_of(out, &data, &size);
            if (!buf_reserve((void **)&r->copies, &r->copy_capacity, r->copy_count + 1, sizeof *r->copies)) return false;
            char *copy = malloc(size + 1);
            if (!copy) return query_out_of_memory();
            if (size) memcpy(copy, data, size);
            r->copies[r->copy_count++] = copy;
            if (out->type == CE_TYPE_STRING) out->string.data = copy;
            else out->binary.data = (const uint8_t *)copy;
        }
        return true;
    }
    if (r->leaf_ref != en->leaf) {
        if (!cluster_leaf_at(r->space, en->leaf, r->column_count, &r->leaf)) return false;
        r->leaf_ref = en->leaf;
        memset(r->opened, 0, r->path_count * sizeof *r->opened);
    }
    const bound_path *path = &r->paths[p];
    if (!r->opened[p]) {
        if (!eval_open_column(r->space, &r->leaf, path->column, path->type, path->nullable, &r->scans[p])) return false;
        r->opened[p] = true;
    }
    if (en->index >= r->leaf.key_offsets.count) return eval_corrupt_leaf(&r->leaf, "an object's position lies past its end");
    const column_scan *scan = &r->scans[p];
    if (!path->size_of && (scan->type == CE_TYPE_INT || scan->type == CE_TYPE_DOUBLE)) {
        /* Numbers straight from the packed array (the common sort key). */
        if (scan->has_nulls) {
            int64_t bit = node_get(&scan->nulls, en->index);
            if (bit != 0 && bit != 1) return eval_corrupt_column(scan, en->index, "has a null bit that is neither 0 nor 1");
            if (bit) {
                *out = (ce_value){.type = CE_TYPE_NULL};
                return true;
            }
        }
        int64_t stored = node_get(&scan->values, en->index);
        if (scan->type == CE_TYPE_INT) *out = (ce_value){.type = CE_TYPE_INT, .integer = stored};
        else *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = eval_real_from_stored(false, stored)};
        return true;
    }
    if (!eval_column_value(r->space, scan, path, en->index, &r->scratch, out)) return false;
    if (compare_is_text(out->type) && r->scratch.buffer) {
        const char *data;
        size_t size;
        compare_text_of(out, &data, &size);
        if (size && data >= (const char *)r->scratch.buffer && data < (const char *)r->scratch.buffer + r->scratch.capacity) {
            if (!buf_reserve((void **)&r->copies, &r->copy_capacity, r->copy_count + 1, sizeof *r->copies)) return false;
            char *copy = malloc(size);
            if (!copy) return query_out_of_memory();
            memcpy(copy, data, size);
            r->copies[r->copy_count++] = copy;
            if (out->type == CE_TYPE_STRING) out->string.data = copy;
            else out->binary.data = (const uint8_t *)copy;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Orders and sorts                                                          */
/* ------------------------------------------------------------------------ */

/* The rank of a value's type among the values of a mixed property, as
 * realm-core's Mixed::compare orders them: booleans, numbers, strings and
 * binaries, dates, object ids, UUIDs, links. */
static int sort_rank(ce_type type)
{
    switch (type) {
    case CE_TYPE_BOOL: return 0;
    case CE_TYPE_INT:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE:
    case CE_TYPE_DECIMAL128: return 1;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: return 2;
    case CE_TYPE_TIMESTAMP: return 3;
    case CE_TYPE_OBJECT_ID: return 4;
    case CE_TYPE_UUID: return 5;
    default: return 6;
    }
}

/* Null first, then the order of value.h for values of one type. Values of
 * two types (a mixed property) as realm-core's Mixed::compare orders them:
 * numbers of any types by value (NaN first), a string and a binary by their
 * bytes, otherwise by sort_rank. */
static int sort_order(const ce_value *a, const ce_value *b)
{
    bool a_null = a->type == CE_TYPE_NULL, b_null = b->type == CE_TYPE_NULL;
    if (a_null || b_null) return a_null == b_null ? 0 : a_null ? -1 : 1;
    if (a->type == b->type) return value_compare(a, b);
    if (compare_is_number(a->type) && compare_is_number(b->type)) {
        int order = compare_numbers(a, b);
        if (order != COMPARE_UNORDERED) return order;
        bool a_nan = compare_is_nan(a), b_nan = compare_is_nan(b);
        return a_nan == b_nan ? 0 : a_nan ? -1 : 1;
    }
    if (compare_is_text(a->type) && compare_is_text(b->type)) {
        const char *a_data, *b_data;
        size_t a_size, b_size;
        compare_text_of(a, &a_data, &a_size);
        compare_text_of(b, &b_data, &b_size);
        return value_compare_bytes(a_data, a_size, b_data, b_size);
    }
    int a_rank = sort_rank(a->type), b_rank = sort_rank(b->type);
    return a_rank == b_rank ? value_compare(a, b) : a_rank < b_rank ? -1 : 1;
}

typedef struct row_order {
    const ce_value *values; /* row r, key k: values[r * key_count + k] */
    const bool *missing;    /* the same: a to-one link on the key's path is null (NULL: none is) */
    size_t key_count;
    const bool *ascending;
} row_order;

static int compare_rows(const row_order *o, size_t a, size_t b)
{
    for (size_t k = 0; k < o->key_count; k++) {
        size_t i = a * o->key_count + k, j = b * o->key_count + k;
        int order;
        if (o->missing && (o->missing[i] || o->missing[j])) {
            if (o->missing[i] && o->missing[j]) continue;
            order = o->missing[i] ? 1 : -1; /* after every value, whatever the direction's reversal */
            return o->ascending[k] ? order : -order;
        }
        order = sort_order(&o->values[i], &o->values[j]);
        if (order) return o->ascending[k] ? order : -order;
    }
    return 0;
}

/* A stable merge sort of row numbers. */
static void merge_sort(const row_order *o, size_t *rows, size_t *spare, size_t count)
{
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t start = 0; start < count; start += 2 * width) {
            size_t middle = start + width < count ? start + width : count;
            size_t end = start + 2 * width < count ? start + 2 * width : count;
            size_t i = start, j = middle, k = start;
            while (i < middle && j < end) spare[k++] = compare_rows(o, rows[j], rows[i]) < 0 ? rows[j++] : rows[i++];
            while (i < middle) spare[k++] = rows[i++];
            while (j < end) spare[k++] = rows[j++];
        }
        memcpy(rows, spare, count * sizeof *rows);
    }
}

/* The values of the key paths for every entry (row-major), and whether a
 * to-one link on the way was null (*out_missing: NULL when none was). */
static bool read_rows(entry_reader *reader, const entry *entries, size_t count, ce_value **out_values, bool **out_missing)
{
    size_t keys = reader->path_count;
    ce_value *values = malloc((count * keys + 1) * sizeof *values);
    bool *missing = calloc(count * keys + 1, sizeof *missing);
    if (!values || !missing) {
        free(values);
        free(missing);
        return query_out_of_memory();
    }
    bool any_missing = false;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < keys; k++) {
            if (!sort_reader_get(reader, &entries[i], k, &values[i * keys + k])) {
                free(values);
                free(missing);
                return false;
            }
            missing[i * keys + k] = reader->missing_link;
            any_missing = any_missing || reader->missing_link;
        }
    if (!any_missing) {
        free(missing);
        missing = NULL;
    }
    *out_values = values;
    *out_missing = missing;
    return true;
}

/*
 * Sorting by numbers is a stable LSD radix sort of 64-bit keys that order
 * as the values do: ints with the sign bit flipped, floats and doubles by
 * their bits made monotonic (NaN first, -0.0 as 0.0), bools as 0 and 1,
 * timestamps as two passes (nanoseconds, then seconds). Nulls come first
 * (a stable partition after the passes). Descending sorts the complemented
 * keys and puts nulls last: exactly the reverse order, equal values still
 * in their previous order.
 */
typedef struct radix_item {
    uint64_t key;
    size_t row;
} radix_item;

static bool radix_sortable(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE ||
           type == CE_TYPE_TIMESTAMP;
}

static uint64_t double_key(double value)
{
    if (value != value) return 0; /* NaN: before every number */
    if (value == 0) value = 0.0;  /* -0.0 == 0.0 */
    uint64_t bits;
    memcpy(&bits, &value, 8);
    return (bits >> 63) ? ~bits : bits | (1ull << 63);
}

/* The radix key of a non-null value; `pass` 0 or 1 for timestamps. */
static uint64_t radix_key(const ce_value *v, int pass)
{
    switch (v->type) {
    case CE_TYPE_INT: return (uint64_t)v->integer ^ (1ull << 63);
    case CE_TYPE_BOOL: return v->boolean ? 1 : 0;
    case CE_TYPE_FLOAT: return double_key(v->float_value);
    case CE_TYPE_DOUBLE: return double_key(v->double_value);
    case CE_TYPE_TIMESTAMP:
        return pass == 0 ? (uint64_t)(int64_t)v->timestamp.nanoseconds ^ (1ull << 63)
                         : (uint64_t)v->timestamp.seconds ^ (1ull << 63);
    default: return 0;
    }
}

/* A stable sort of items by key, 8 bits a pass; passes where every item
 * has the same digit are skipped. */
static void radix_sort(radix_item *items, radix_item *spare, size_t count)
{
    radix_item *from = items, *to = spare;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t counts[256] = {0};
        for (size_t i = 0; i < count; i++) counts[(from[i].key >> shift) & 255]++;
        if (counts[(from[0].key >> shift) & 255] == count) continue;
        size_t position = 0;
        for (int digit = 0; digit < 256; digit++) {
            size_t here = counts[digit];
            counts[digit] = position;
            position += here;
        }
        for (size_t i = 0; i < count; i++) to[counts[(from[i].key >> shift) & 255]++] = from[i];
        radix_item *swap = from;
        from = to;
        to = swap;
    }
    if (from != items) memcpy(items, from, count * sizeof *items);
}

/* Stably sorts `order` (row numbers) by one key whose values, by row, are
 * in values[row * stride + k] (and missing[row * stride + k]: a to-one
 * link on the way is null; `missing` may be NULL). */
static bool sort_by_key(size_t *order, size_t count, const ce_value *values, const bool *missing, size_t stride, size_t k,
                        bool ascending, ce_type type)
{
    if (radix_sortable(type)) {
        radix_item *items = malloc(count * sizeof *items), *spare = malloc(count * sizeof *spare);
        if (!items || !spare) {
            free(items);
            free(spare);
            return query_out_of_memory();
        }
        for (int pass = 0; pass < (type == CE_TYPE_TIMESTAMP ? 2 : 1); pass++) {
            for (size_t i = 0; i < count; i++) {
                const ce_value *v = &values[order[i] * stride + k];
                uint64_t key = v->type == CE_TYPE_NULL ? 0 : radix_key(v, pass);
                items[i] = (radix_item){ascending ? key : ~key, order[i]};
            }
            radix_sort(items, spare, count);
            for (size_t i = 0; i < count; i++) order[i] = items[i].row;
        }
        /* Three stable runs: ascending nulls, values, missing links;
         * descending missing links, values, nulls. */
        size_t in_class[3] = {0, 0, 0};
        for (size_t i = 0; i < count; i++) {
            size_t row = order[i] * stride + k;
            in_class[missing && missing[row] ? 2 : values[row].type == CE_TYPE_NULL ? 0 : 1]++;
        }
        if (in_class[1] != count) {
            size_t at[3];
            at[ascending ? 0 : 2] = 0;
            at[1] = in_class[ascending ? 0 : 2];
            at[ascending ? 2 : 0] = in_class[ascending ? 0 : 2] + in_class[1];
            for (size_t i = 0; i < count; i++) spare[i].row = order[i];
            for (size_t i = 0; i < count; i++) {
                size_t row = spare[i].row, at_key = row * stride + k;
                order[at[missing && missing[at_key] ? 2 : values[at_key].type == CE_TYPE_NULL ? 0 : 1]++] = row;
            }
        }
        free(items);
        free(spare);
        return true;
    }
    size_t *spare = malloc(count * sizeof *spare);
    if (!spare) return query_out_of_memory();
    /* A merge sort by this one key: compare_rows reads values[row]. */
    row_order o = {values, missing, 1, &ascending};
    if (stride == 1) {
        merge_sort(&o, order, spare, count);
    } else {
        ce_value *column = malloc(count * sizeof *column);
        bool *column_missing = missing ? malloc(count * sizeof *column_missing) : NULL;
        if (!column || (missing && !column_missing)) {
            free(column);
            free(column_missing);
            free(spare);
            return query_out_of_memory();
        }
        for (size_t row = 0; row < count; row++) {
            column[row] = values[row * stride + k];
            if (missing) column_missing[row] = missing[row * stride + k];
        }
        o.values = column;
        o.missing = column_missing;
        merge_sort(&o, order, spare, count);
        free(column);
        free(column_missing);
    }
    free(spare);
    return true;
}

bool sort_entries(ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths, const bool *ascending,
                  size_t key_count, entry **entries, size_t count)
{
    if (count < 2) return true;
    entry_reader reader;
    ce_value *values = NULL;
    bool *missing = NULL;
    if (!sort_reader_start(&reader, txn, table, column_count, paths, key_count)) return false;
    bool ok = read_rows(&reader, *entries, count, &values, &missing);
    size_t *order = ok ? malloc(count * sizeof *order) : NULL;
    entry *sorted = ok ? malloc(count * sizeof *sorted) : NULL;
    if (ok && (!order || !sorted)) ok = query_out_of_memory();
    if (ok) {
        for (size_t i = 0; i < count; i++) order[i] = i;
        /* Stable sorts from the last key to the first: the first key decides,
         * the next ones break its ties. */
        for (size_t k = key_count; ok && k-- > 0;)
            ok = sort_by_key(order, count, values, missing, key_count, k, ascending[k], path_value_type(&paths[k]));
    }
    if (ok) {
        for (size_t i = 0; i < count; i++) sorted[i] = (*entries)[order[i]];
        free(*entries);
        *entries = sorted;
        sorted = NULL;
    }
    free(sorted);
    free(order);
    free(values);
    free(missing);
    sort_reader_end(&reader);
    return ok;
}

static uint64_t row_hash(const ce_value *row, size_t key_count)
{
    uint64_t hash = 0x51ED270B27A3F1C5ull;
    for (size_t k = 0; k < key_count; k++) {
        uint64_t part = row[k].type == CE_TYPE_NULL ? 0x9E3779B97F4A7C15ull : value_hash(&row[k]);
        hash = (hash ^ part) * 0xFF51AFD7ED558CCDull;
        hash ^= hash >> 29;
    }
    return hash;
}

static bool rows_equal(const ce_value *a, const ce_value *b, size_t key_count)
{
    for (size_t k = 0; k < key_count; k++) {
        if (a[k].type != b[k].type) return false;
        if (a[k].type != CE_TYPE_NULL && !value_equal(&a[k], &b[k])) return false;
    }
    return true;
}

bool sort_distinct(ce_txn *txn, ce_table_key table, size_t column_count, const bound_path *paths, size_t key_count,
                   entry *entries, size_t *count)
{
    if (*count < 2) return true;
    entry_reader reader;
    ce_value *values = NULL;
    bool *missing = NULL;
    if (!sort_reader_start(&reader, txn, table, column_count, paths, key_count)) return false;
    bool ok = read_rows(&reader, entries, *count, &values, &missing);
    size_t capacity = 4;
    while (capacity < 2 * *count) capacity *= 2;
    size_t *slots = ok ? calloc(capacity, sizeof *slots) : NULL;
    if (ok && !slots) ok = query_out_of_memory();
    if (ok) {
        size_t kept = 0;
        for (size_t i = 0; i < *count; i++) {
            const ce_value *row = &values[i * key_count];
            bool dropped = false;
            for (size_t k = 0; missing && k < key_count && !dropped; k++) dropped = missing[i * key_count + k];
            if (dropped) continue;
            size_t slot = (size_t)row_hash(row, key_count) & (capacity - 1);
            bool seen = false;
            while (slots[slot]) {
                if (rows_equal(&values[(slots[slot] - 1) * key_count], row, key_count)) {
                    seen = true;
                    break;
                }
                slot = (slot + 1) & (capacity - 1);
            }
            if (seen) continue;
            slots[slot] = i + 1;
            entries[kept++] = entries[i];
        }
        *count = kept;
    }
    free(slots);
    free(values);
    free(missing);
    sort_reader_end(&reader);
    return ok;
}

/* Keeps the first of each run of equal values among values[order[i]]
 * (value_equal, null one value), in order; *count the number kept. */
static bool distinct_positions(const ce_value *values, size_t *order, size_t *count)
{
    if (*count < 2) return true;
    size_t capacity = 4;
    while (capacity < 2 * *count) capacity *= 2;
    size_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return query_out_of_memory();
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++) {
        const ce_value *value = &values[order[i]];
        size_t slot = (size_t)row_hash(value, 1) & (capacity - 1);
        bool seen = false;
        while (slots[slot]) {
            if (rows_equal(&values[slots[slot] - 1], value, 1)) {
                seen = true;
                break;
            }
            slot = (slot + 1) & (capacity - 1);
        }
        if (seen) continue;
        slots[slot] = order[i] + 1;
        order[kept++] = order[i];
    }
    *count = kept;
    free(slots);
    return true;
}

/* The positions of a collection's values after `steps` (sorts by value and
 * distincts, in order), for the public functions below (`function` names
 * the one called in messages). */
static bool collection_ordered_indices(const char *function, const ce_collection *collection,
                                       const ce_values_step *steps, size_t step_count, size_t *out_indices,
                                       size_t capacity, size_t *out_count)
{
    if (!containers_check(collection, function)) return false;
    if (!collection || !out_count || (capacity && !out_indices) || (step_count && !steps))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: arguments are required", function);
    for (size_t s = 0; s < step_count; s++)
        if (steps[s] != CE_VALUES_ASCENDING && steps[s] != CE_VALUES_DESCENDING && steps[s] != CE_VALUES_DISTINCT)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: step %zu is not a ce_values_step (%d)", function, s,
                              (int)steps[s]);
    ce_collection_type kind;
    ce_type element;
    if (!ce_collection_kind(collection, &kind, &element)) return false;
    if (element == CE_TYPE_LINK)
        return error_fail(CE_ERR_WRONG_TYPE, "cannot sort a collection of links by value: sort its objects by a property "
                                          "through ce_results_from_collection and ce_results_sort");
    table_collection_reader *reader;
    size_t size;
    if (!table_collection_reader_open(collection, false, &reader, &size)) return false;
    *out_count = size;
    bool ok = capacity >= size || error_fail(CE_ERR_INVALID_ARGUMENT,
                                          "%s: room for %zu indices, but the collection holds %zu", function,
                                          capacity, size);
    /* The values are copied (gather_bag_push): a large string read from a
     * compressed node lives in a buffer that the next read reuses. */
    value_bag bag;
    memset(&bag, 0, sizeof bag);
    size_t *spare = ok ? malloc((size + 1) * sizeof *spare) : NULL;
    if (ok && !spare) ok = query_out_of_memory();
    for (size_t i = 0; ok && i < size; i++) {
        ce_value value;
        ok = table_collection_reader_get(reader, i, &value) && gather_bag_push(&bag, &value);
        out_indices[i] = i;
    }
    table_collection_reader_close(reader);
    size_t count = size;
    for (size_t s = 0; ok && s < step_count; s++) {
        if (steps[s] == CE_VALUES_DISTINCT) {
            ok = distinct_positions(bag.values, out_indices, &count);
            continue;
        }
        bool ascending = steps[s] == CE_VALUES_ASCENDING;
        row_order order = {bag.values, NULL, 1, &ascending};
        merge_sort(&order, out_indices, spare, count);
    }
    if (ok) *out_count = count;
    free(spare);
    gather_bag_free(&bag);
    return ok;
}

bool ce_collection_sorted_indices(const ce_collection *collection, bool ascending, size_t *out_indices, size_t capacity,
                                  size_t *out_count)
{
    ce_values_step step = ascending ? CE_VALUES_ASCENDING : CE_VALUES_DESCENDING;
    return collection_ordered_indices("ce_collection_sorted_indices", collection, &step, 1, out_indices, capacity,
                                      out_count);
}

bool ce_collection_ordered_indices(const ce_collection *collection, const ce_values_step *steps, size_t step_count,
                                   size_t *out_indices, size_t capacity, size_t *out_count)
{
    return collection_ordered_indices("ce_collection_ordered_indices", collection, steps, step_count, out_indices,
                                      capacity, out_count);
}
