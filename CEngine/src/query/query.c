/*
 * query.c — ce_query: a predicate parsed, its arguments copied and its
 * tree bound to a table; counting, finding the first match, and making a
 * results view (cengine.h, section "Queries").
 *
 * Owns: query cores (the parsed tree, deep copies of the arguments, the
 * bound tree for the last schema state), shared by a ce_query and the
 * ce_results made from it through a reference count.
 * Never: binds, evaluates or sorts itself: it drives the layer's files.
 *
 * The query layer, in the order a query runs through it:
 *   parse.c      text -> syntax tree (parse.h)
 *   bind.c       key paths -> bound paths; a core bound to a schema state
 *   bind_predicate.c  comparisons -> bound nodes with their kernels
 *   compare.c    how two values compare (numbers across types, strings)
 *   fold.c       [c] and [d] folding, LIKE
 *   eval.c       a bound tree over one leaf as bit masks; object by object
 *   gather.c     the values a path yields from one object
 *   scan.c       every leaf, or an index's candidates; count/first/collect
 *   results.c    results views and their sources, ce_results_*
 *   sort.c       sort and distinct, ce_collection_sorted_indices and
 *                ce_collection_ordered_indices
 *   aggregate.c  @count/@sum/@avg/@min/@max, ce_collection_aggregate
 * query_internal.h holds the bound tree the files share; query.h states
 * the semantics every file keeps.
 */
#include "query.h"
#include "bind.h"
#include "error.h"
#include "handle.h"
#include "eval.h"
#include "parse.h"
#include "query_internal.h"
#include "results.h"
#include "scan.h"
#include "table.h"
#include "value.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Queries and their arguments                                               */
/* ------------------------------------------------------------------------ */

void query_core_release(query_core *core)
{
    if (!core || atomic_fetch_sub(&core->references, 1) != 1) return;
    parse_tree_free(&core->tree);
    for (size_t i = 0; i < core->argument_block_count; i++) free(core->argument_blocks[i]);
    free(core->argument_blocks);
    free(core->arguments);
    bind_query_free(&core->bound);
    free(core);
}

static bool keep_argument_bytes(query_core *core, const void *data, size_t size, const void **out)
{
    char **grown = realloc(core->argument_blocks, (core->argument_block_count + 1) * sizeof *grown);
    if (!grown) return query_out_of_memory();
    core->argument_blocks = grown;
    char *copy = malloc(size + 1);
    if (!copy) return query_out_of_memory();
    if (size) memcpy(copy, data, size);
    copy[size] = 0;
    core->argument_blocks[core->argument_block_count++] = copy;
    *out = copy;
    return true;
}

static bool check_argument_value(const ce_value *value, size_t index)
{
    if (!value_check_type(value)) return false;
    switch (value->type) {
    case CE_TYPE_NULL:
    case CE_TYPE_INT:
    case CE_TYPE_BOOL:
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE:
    case CE_TYPE_DECIMAL128:
    case CE_TYPE_OBJECT_ID:
    case CE_TYPE_UUID:
    case CE_TYPE_LINK: return true;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY:
        if (value->string.size && !value->string.data)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a %s of %zu bytes without data", index,
                           ce_type_name(value->type), value->string.size);
        return true;
    case CE_TYPE_TIMESTAMP:
        if (!value_timestamp_is_valid(value->timestamp))
            return error_fail(CE_ERR_INVALID_ARGUMENT,
                           "query argument %zu: the timestamp (%lld s, %d ns) is malformed: nanoseconds must lie "
                           "within +-999999999 and have the sign of seconds",
                           index, (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
        return true;
    case CE_TYPE_MIXED:
    case CE_TYPE_LIST:
    case CE_TYPE_DICTIONARY: break;
    }
    return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu has type %d, which is not a value a query compares",
                   index, (int)value->type);
}

/* A copy of a value whose bytes the core owns. */
static bool copy_argument_value(query_core *core, const ce_value *value, size_t index, ce_value *out)
{
    if (!check_argument_value(value, index)) return false;
    *out = *value;
    if (value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) {
        const void *copy;
        if (!keep_argument_bytes(core, value->string.data, value->string.size, &copy)) return false;
        if (value->type == CE_TYPE_STRING) out->string.data = copy;
        else out->binary.data = copy;
    }
    return true;
}

/* A copy of a shape (its rings' points and sizes too) that the core owns. */
static bool copy_geo_argument(query_core *core, const ce_geo *geo, size_t index, const ce_geo **out)
{
    if (!geo) return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a geospatial shape without a shape", index);
    const void *kept;
    if (!keep_argument_bytes(core, geo, sizeof *geo, &kept)) return false;
    ce_geo *copy = (ce_geo *)kept;
    if (geo->kind == CE_GEO_POLYGON) {
        if (geo->ring_count && !geo->ring_sizes)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a polygon of %zu rings without their sizes", index,
                              geo->ring_count);
        size_t points = 0;
        for (size_t r = 0; r < geo->ring_count; r++) {
            if (geo->ring_sizes[r] > SIZE_MAX / 2 / sizeof(ce_geo_point) - points)
                return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a polygon of too many points", index);
            points += geo->ring_sizes[r];
        }
        if (points && !geo->points)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a polygon of %zu points without points", index,
                              points);
        const void *sizes, *values;
        if (!keep_argument_bytes(core, geo->ring_sizes, geo->ring_count * sizeof(size_t), &sizes) ||
            !keep_argument_bytes(core, geo->points, points * sizeof(ce_geo_point), &values))
            return false;
        copy->ring_sizes = sizes;
        copy->points = values;
    } else {
        copy->ring_sizes = NULL;
        copy->points = NULL;
        copy->ring_count = 0;
    }
    *out = copy;
    return true;
}

static bool copy_arguments(query_core *core, const ce_query_argument *arguments, size_t count)
{
    if (count && !arguments) return error_fail(CE_ERR_INVALID_ARGUMENT, "%zu query arguments were announced but none given", count);
    core->arguments = calloc(count + 1, sizeof *core->arguments);
    if (!core->arguments) return query_out_of_memory();
    core->argument_count = count;
    for (size_t i = 0; i < count; i++) {
        const ce_query_argument *argument = &arguments[i];
        ce_query_argument *copy = &core->arguments[i];
        copy->kind = argument->kind;
        if (argument->kind == CE_QUERY_ARGUMENT_VALUE) {
            if (!copy_argument_value(core, &argument->value, i, &copy->value)) return false;
        } else if (argument->kind == CE_QUERY_ARGUMENT_LIST) {
            if (argument->list_count && !argument->list)
                return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu: a list of %zu values without values", i,
                               argument->list_count);
            const void *values;
            if (!keep_argument_bytes(core, argument->list, argument->list_count * sizeof(ce_value), &values)) return false;
            ce_value *list = (ce_value *)values;
            for (size_t k = 0; k < argument->list_count; k++) {
                if (argument->list[k].type == CE_TYPE_NULL) continue;
                if (!copy_argument_value(core, &argument->list[k], i, &list[k])) return false;
            }
            copy->list = list;
            copy->list_count = argument->list_count;
        } else if (argument->kind == CE_QUERY_ARGUMENT_GEO) {
            if (!copy_geo_argument(core, argument->geo, i, &copy->geo)) return false;
        } else {
            return error_fail(CE_ERR_INVALID_ARGUMENT, "query argument %zu has an unknown kind %d", i, (int)argument->kind);
        }
    }
    return true;
}

bool query_core_clone(const query_core *core, query_core **out_core)
{
    query_core *copy = calloc(1, sizeof *copy);
    if (!copy) return query_out_of_memory();
    atomic_init(&copy->references, 1);
    copy->table = core->table;
    copy->file = core->file;
    /* The same text parses to the same tree (descriptors name its nodes). */
    if (!parse_predicate(core->tree.text, core->tree.text_length, &copy->tree) ||
        !copy_arguments(copy, core->arguments, core->argument_count)) {
        query_core_release(copy);
        return false;
    }
    *out_core = copy;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

/* Freed query handles, kept for new ones (handle.h). */
static handle_pool query_pool = HANDLE_POOL(0x4F52515545525921ull, "ce_query");

bool query_check(const ce_query *query, const char *call) { return handle_check(&query_pool, query, call); }

bool ce_query_parse(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                    size_t argument_count, ce_query **out_query)
{
    return ce_query_parse_with(txn, table, predicate, arguments, argument_count, NULL, out_query);
}

bool ce_query_parse_with(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                         size_t argument_count, const ce_query_options *options, ce_query **out_query)
{
    if (!txn || !predicate || !out_query) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_parse: arguments are required");
    const char *name;
    if (!table_name_of(txn, table, &name)) return false;
    query_core *core = calloc(1, sizeof *core);
    ce_query *query = handle_new(&query_pool, sizeof *query);
    if (!core || !query) {
        free(core);
        if (query) handle_delete(&query_pool, query, sizeof *query);
        return query_out_of_memory();
    }
    atomic_init(&core->references, 1);
    core->table = table;
    core->realm_swift_values = options && options->realm_swift_values;
    core->file = db_txn_file_id(txn);
    query->core = core;
    bool ok = parse_predicate(predicate, strlen(predicate), &core->tree) &&
              copy_arguments(core, arguments, argument_count) && bind_core(core, txn);
    /* SORT/DISTINCT key paths of the text must bind too. */
    for (size_t d = 0; ok && d < core->tree.descriptor_count; d++) {
        const parse_descriptor *written = &core->tree.descriptors[d];
        if (written->kind == PARSE_LIMIT) continue;
        descriptor check = {written->kind == PARSE_SORT ? DESCRIPTOR_SORT : DESCRIPTOR_DISTINCT, NULL, written->key_count, 0};
        check.keys = calloc(written->key_count + 1, sizeof *check.keys);
        if (!check.keys) {
            ok = query_out_of_memory();
            break;
        }
        for (size_t k = 0; k < written->key_count; k++) {
            const parse_key *key = &core->tree.keys[written->first_key + k];
            check.keys[k] = (descriptor_key){key->key_path, NULL, key->ascending};
        }
        ok = results_check_descriptor(core, txn, &check);
        free(check.keys);
    }
    if (!ok) {
        ce_query_free(query);
        return false;
    }
    *out_query = query;
    return true;
}

void ce_query_free(ce_query *query)
{
    if (!query || !query_check(query, "ce_query_free")) return; /* freed twice: the error only */
    query_core_release(query->core);
    handle_delete(&query_pool, query, sizeof *query);
}

bool ce_query_count(ce_query *query, ce_txn *txn, size_t *out_count)
{
    if (!query_check(query, "ce_query_count")) return false;
    if (!txn || !out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_count: arguments are required");
    evaluation e;
    if (!eval_start(&e, query->core, txn)) return false;
    scan_state s;
    memset(&s, 0, sizeof s);
    s.e = &e;
    s.goal = GOAL_COUNT;
    bool ok = scan_run(&s);
    eval_end(&e);
    if (ok) *out_count = s.count;
    return ok;
}

bool ce_query_find_first(ce_query *query, ce_txn *txn, ce_object_key *out_object, bool *out_found)
{
    if (!query_check(query, "ce_query_find_first")) return false;
    if (!txn || !out_object || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_find_first: arguments are required");
    evaluation e;
    if (!eval_start(&e, query->core, txn)) return false;
    scan_state s;
    memset(&s, 0, sizeof s);
    s.e = &e;
    s.goal = GOAL_FIRST;
    bool ok = scan_run(&s);
    eval_end(&e);
    if (ok) {
        *out_found = s.found;
        if (s.found) *out_object = s.first;
    }
    return ok;
}

bool ce_query_find_all(ce_query *query, ce_results **out_results)
{
    if (!query_check(query, "ce_query_find_all")) return false;
    if (!out_results) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_query_find_all: arguments are required");
    query_core *core = query->core;
    ce_results *r = results_new();
    if (!r) return query_out_of_memory();
    r->descriptors = calloc(core->tree.descriptor_count + 1, sizeof *r->descriptors);
    if (!r->descriptors) {
        results_discard(r);
        return query_out_of_memory();
    }
    atomic_fetch_add(&core->references, 1);
    r->core = core;
    for (size_t d = 0; d < core->tree.descriptor_count; d++) {
        const parse_descriptor *written = &core->tree.descriptors[d];
        descriptor *to;
        descriptor_kind kind = written->kind == PARSE_SORT ? DESCRIPTOR_SORT
                               : written->kind == PARSE_DISTINCT ? DESCRIPTOR_DISTINCT
                                                                 : DESCRIPTOR_LIMIT;
        size_t limit = written->limit > SIZE_MAX ? SIZE_MAX : (size_t)written->limit;
        if (!results_add_descriptor(r, kind, written->key_count, limit, &to)) {
            ce_results_free(r);
            return false;
        }
        for (size_t k = 0; k < written->key_count; k++) {
            const parse_key *key = &core->tree.keys[written->first_key + k];
            to->keys[k] = (descriptor_key){key->key_path, NULL, key->ascending};
        }
        to->key_count = written->key_count;
    }
    *out_results = r;
    return true;
}
