/*
 * history.c — the change history: what each commit changed.
 *
 * Owns: writing the history (docs/FORMAT.md, "Change history"): the
 * record a write transaction keeps of its changes, the entry the commit
 * writes from it, trimming and bounding the entries; and the byte format
 * history_delta.c reads back (history_internal.h).
 * Never: changes objects, merges entries for a reader (history_delta.c),
 * or decides what a change means to an observer (the notify layer); reads
 * objects only for their primary keys.
 *
 * Recording is on the hot path of every change (W6 sets one column on a
 * million objects), so it only appends to arrays: runs of consecutive
 * object keys per (table, column), extended in place while keys follow
 * each other. Everything else (sorting, merging, subtracting) happens once,
 * at commit, on ranges of keys, and a million consecutive keys stay one
 * range on disk.
 */
#include "history.h"
#include "buf.h"
#include "db.h"
#include "error.h"
#include "node.h"
#include "history_internal.h"
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

#define COLUMN_CACHE 64

size_t history_max_versions = HISTORY_MAX_VERSIONS;
size_t history_max_bytes = HISTORY_MAX_BYTES;

/* ------------------------------------------------------------------------ */
/* Ranges of object keys                                                    */
/* ------------------------------------------------------------------------ */

bool history_ranges_push(history_ranges *set, int64_t first, int64_t last)
{
    if (set->count > 0 && set->items[set->count - 1].last + 1 >= first && set->items[set->count - 1].first <= first) {
        if (last > set->items[set->count - 1].last) set->items[set->count - 1].last = last;
        return true;
    }
    if (!buf_reserve((void **)&set->items, &set->capacity, set->count + 1, sizeof(history_range))) return false;
    set->items[set->count++] = (history_range){first, last};
    return true;
}

static int compare_ranges(const void *a, const void *b)
{
    const history_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts and merges overlapping and adjacent ranges. */
void history_ranges_normalize(history_ranges *set)
{
    if (set->count < 2) return;
    bool sorted = true;
    for (size_t i = 1; i < set->count && sorted; i++) sorted = set->items[i - 1].first <= set->items[i].first;
    if (!sorted) qsort(set->items, set->count, sizeof(history_range), compare_ranges);
    size_t out = 0;
    for (size_t i = 1; i < set->count; i++) {
        history_range *last = &set->items[out];
        if (set->items[i].first <= last->last + 1) {
            if (set->items[i].last > last->last) last->last = set->items[i].last;
        } else {
            set->items[++out] = set->items[i];
        }
    }
    set->count = out + 1;
}

/* a - b, both normalized, into out (emptied first). */
bool history_ranges_subtract(const history_ranges *a, const history_ranges *b, history_ranges *out)
{
    out->count = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->count; i++) {
        int64_t first = a->items[i].first, last = a->items[i].last;
        while (j < b->count && b->items[j].last < first) j++;
        size_t k = j;
        while (first <= last && k < b->count && b->items[k].first <= last) {
            if (b->items[k].first > first && !history_ranges_push(out, first, b->items[k].first - 1)) return false;
            if (b->items[k].last >= last) {
                first = last + 1;
                break;
            }
            first = b->items[k].last + 1;
            k++;
        }
        if (first <= last && !history_ranges_push(out, first, last)) return false;
    }
    return true;
}

bool history_ranges_contain(const history_ranges *set, int64_t key)
{
    size_t low = 0, high = set->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (set->items[middle].last < key) low = middle + 1;
        else high = middle;
    }
    return low < set->count && set->items[low].first <= key;
}

size_t history_ranges_total(const history_ranges *set)
{
    size_t total = 0;
    for (size_t i = 0; i < set->count; i++) total += (size_t)(set->items[i].last - set->items[i].first + 1);
    return total;
}

bool history_ranges_append(history_ranges *to, const history_ranges *from)
{
    if (from->count == 0) return true;
    if (!buf_reserve((void **)&to->items, &to->capacity, to->count + from->count, sizeof(history_range))) return false;
    memcpy(to->items + to->count, from->items, from->count * sizeof(history_range));
    to->count += from->count;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Bytes: LEB128 varints, bounds-checked reading                            */
/* ------------------------------------------------------------------------ */

bool history_put_bytes(history_buffer *out, const void *bytes, size_t length)
{
    return buf_append(&out->bytes, &out->size, &out->capacity, bytes, length);
}

bool history_put_uv(history_buffer *out, uint64_t value)
{
    uint8_t bytes[10];
    size_t n = 0;
    do {
        bytes[n] = (uint8_t)(value & 0x7F);
        value >>= 7;
        if (value) bytes[n] |= 0x80;
        n++;
    } while (value);
    return history_put_bytes(out, bytes, n);
}

static bool put_sv(history_buffer *out, int64_t value)
{
    return history_put_uv(out, ((uint64_t)value << 1) ^ (uint64_t)(value >> 63));
}

static bool put_u8(history_buffer *out, uint8_t value) { return history_put_bytes(out, &value, 1); }

/* Both return false, visibly to the compiler (error_fail's value is not). */
bool history_damaged(void)
{
    error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the change history is damaged");
    return false;
}

bool history_out_of_memory(void)
{
    schema_out_of_memory();
    return false;
}

bool history_get_uv(history_reader *in, uint64_t *out)
{
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (in->at >= in->size) return history_damaged();
        uint8_t byte = in->bytes[in->at++];
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *out = value;
            return true;
        }
    }
    return history_damaged();
}

bool history_get_sv(history_reader *in, int64_t *out)
{
    uint64_t value;
    if (!history_get_uv(in, &value)) return false;
    *out = (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
    return true;
}

bool history_get_u8(history_reader *in, uint8_t *out)
{
    if (in->at >= in->size) return history_damaged();
    *out = in->bytes[in->at++];
    return true;
}

/* `length` bytes in place. */
bool history_get_bytes(history_reader *in, size_t length, const uint8_t **out)
{
    if (length > in->size - in->at) return history_damaged();
    *out = in->bytes + in->at;
    in->at += length;
    return true;
}

/* A count of items of at least `min_bytes` each: bounded by the bytes left,
 * so that a damaged count cannot ask for a huge allocation. */
bool history_get_count(history_reader *in, size_t min_bytes, size_t *out)
{
    uint64_t count;
    if (!history_get_uv(in, &count)) return false;
    if (count > (in->size - in->at) / min_bytes) return history_damaged();
    *out = (size_t)count;
    return true;
}

/* An object key (>= 0). */
bool history_get_key(history_reader *in, int64_t *out)
{
    uint64_t value;
    if (!history_get_uv(in, &value)) return false;
    if (value > (uint64_t)INT64_MAX) return history_damaged();
    *out = (int64_t)value;
    return true;
}

/* Range lists: count, then per range the gap from the end of the previous
 * one (from 0 for the first) and the length less one. */
static bool put_ranges(history_buffer *out, const history_ranges *set)
{
    if (!history_put_uv(out, set->count)) return false;
    int64_t end = 0;
    for (size_t i = 0; i < set->count; i++) {
        if (!history_put_uv(out, (uint64_t)(set->items[i].first - end)) ||
            !history_put_uv(out, (uint64_t)(set->items[i].last - set->items[i].first)))
            return false;
        end = set->items[i].last + 1;
    }
    return true;
}

bool history_get_ranges(history_reader *in, history_ranges *out)
{
    size_t count;
    if (!history_get_count(in, 2, &count)) return false;
    uint64_t end = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t gap, length;
        if (!history_get_uv(in, &gap) || !history_get_uv(in, &length)) return false;
        if (gap > (uint64_t)INT64_MAX - end || length > (uint64_t)INT64_MAX - end - gap) return history_damaged();
        uint64_t first = end + gap, last = first + length;
        if (last == (uint64_t)INT64_MAX) return history_damaged();
        if (!history_ranges_push(out, (int64_t)first, (int64_t)last)) return false;
        end = last + 1;
    }
    return true;
}

/* A primary key value: the type, then its bytes. */
static bool put_value(history_buffer *out, const ce_value *value)
{
    if (!put_u8(out, (uint8_t)value->type)) return false;
    switch (value->type) {
    case CE_TYPE_NULL: return true;
    case CE_TYPE_INT: return put_sv(out, value->integer);
    case CE_TYPE_STRING: return history_put_uv(out, value->string.size) && history_put_bytes(out, value->string.data, value->string.size);
    case CE_TYPE_OBJECT_ID: return history_put_bytes(out, value->object_id.bytes, 12);
    case CE_TYPE_UUID: return history_put_bytes(out, value->uuid.bytes, 16);
    default: return error_fail(CE_ERR_FAIL, "internal error: a primary key of type %d", (int)value->type);
    }
}

bool history_get_value(history_reader *in, ce_value *out)
{
    uint8_t type;
    const uint8_t *bytes;
    uint64_t size;
    if (!history_get_u8(in, &type)) return false;
    *out = (ce_value){.type = (ce_type)type};
    switch (type) {
    case CE_TYPE_NULL: return true;
    case CE_TYPE_INT: return history_get_sv(in, &out->integer);
    case CE_TYPE_STRING:
        if (!history_get_uv(in, &size) || !history_get_bytes(in, (size_t)size, &bytes)) return false;
        if (size > SIZE_MAX) return history_damaged();
        out->string.data = (const char *)bytes;
        out->string.size = (size_t)size;
        return true;
    case CE_TYPE_OBJECT_ID:
        if (!history_get_bytes(in, 12, &bytes)) return false;
        memcpy(out->object_id.bytes, bytes, 12);
        return true;
    case CE_TYPE_UUID:
        if (!history_get_bytes(in, 16, &bytes)) return false;
        memcpy(out->uuid.bytes, bytes, 16);
        return true;
    default: return history_damaged();
    }
}

/* ------------------------------------------------------------------------ */
/* The record of a write transaction                                        */
/* ------------------------------------------------------------------------ */

/* Consecutive keys of one table (and column, for modifications). */
typedef struct key_run {
    uint32_t table, column;
    int64_t first, last;
} key_run;

typedef struct run_list {
    key_run *items;
    size_t count, capacity;
} run_list;

struct history_record {
    run_list inserted, deleted, modified;
    /* For modifications: per column of `cache_table`, 1 + the index of its
     * last run (0: none), so that sets that alternate columns object by
     * object still extend their runs. */
    uint32_t cache_table;
    size_t column_cache[COLUMN_CACHE];
    history_buffer deleted_keys; /* per deleted object of a table with a primary key: uv table, uv key, value */
    history_buffer ops;          /* per collection op: uv id size, id, op */
    history_schema_change *schema;
    size_t schema_count, schema_capacity;
};

void history_record_free(history_record *record)
{
    if (!record) return;
    free(record->inserted.items);
    free(record->deleted.items);
    free(record->modified.items);
    free(record->deleted_keys.bytes);
    free(record->ops.bytes);
    free(record->schema);
    free(record);
}

static bool record_of(ce_txn *txn, history_record **out)
{
    schema *loaded = db_txn_layer_state(txn);
    if (!loaded) {
        error_fail(CE_ERR_FAIL, "internal error: a change recorded before the schema was loaded");
        return false;
    }
    if (!loaded->history) {
        loaded->history = calloc(1, sizeof *loaded->history);
        if (!loaded->history) return history_out_of_memory();
        loaded->history->cache_table = UINT32_MAX;
    }
    *out = loaded->history;
    return true;
}

static bool push_run(run_list *list, uint32_t table, uint32_t column, int64_t first, int64_t last)
{
    if (!buf_reserve((void **)&list->items, &list->capacity, list->count + 1, sizeof(key_run))) return false;
    list->items[list->count++] = (key_run){table, column, first, last};
    return true;
}

/* Extends the last run when the keys follow it. */
static bool add_keys(run_list *list, uint32_t table, int64_t first, int64_t last)
{
    if (list->count > 0) {
        key_run *run = &list->items[list->count - 1];
        if (run->table == table && first == run->last + 1) {
            run->last = last;
            return true;
        }
    }
    return push_run(list, table, 0, first, last);
}

bool history_object_inserted(ce_txn *txn, ce_table_key table, ce_object_key object)
{
    history_record *record;
    return record_of(txn, &record) && add_keys(&record->inserted, table, object, object);
}

bool history_objects_inserted(ce_txn *txn, ce_table_key table, ce_object_key first, size_t count)
{
    history_record *record;
    return count == 0 || (record_of(txn, &record) && add_keys(&record->inserted, table, first, first + (int64_t)count - 1));
}

bool history_object_deleted(ce_txn *txn, ce_table_key table, ce_object_key object)
{
    history_record *record;
    schema *loaded;
    if (!record_of(txn, &record) || !schema_load(txn, &loaded) || !add_keys(&record->deleted, table, object, object))
        return false;
    if (table >= loaded->table_count || loaded->tables[table].primary_key == NO_PRIMARY_KEY) return true;
    ce_value value;
    return object_read_stored(txn, loaded, table, object, loaded->tables[table].primary_key, &value) &&
           history_put_uv(&record->deleted_keys, table) && history_put_uv(&record->deleted_keys, (uint64_t)object) &&
           put_value(&record->deleted_keys, &value);
}

bool history_object_modified(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column)
{
    history_record *record;
    if (!record_of(txn, &record)) return false;
    run_list *list = &record->modified;
    if (record->cache_table != table) {
        memset(record->column_cache, 0, sizeof record->column_cache);
        record->cache_table = table;
    } else if (column < COLUMN_CACHE && record->column_cache[column]) {
        key_run *run = &list->items[record->column_cache[column] - 1];
        if (object == run->last + 1) {
            run->last = object;
            return true;
        }
        if (object >= run->first && object <= run->last) return true;
    }
    if (column >= COLUMN_CACHE && list->count > 0) { /* no cache: the last run only */
        key_run *run = &list->items[list->count - 1];
        if (run->table == table && run->column == column && object == run->last + 1) {
            run->last = object;
            return true;
        }
    }
    if (!push_run(list, table, column, object, object)) return false;
    if (column < COLUMN_CACHE) record->column_cache[column] = list->count;
    return true;
}

bool history_put_collection_id(history_buffer *out, const history_collection_id *id)
{
    if (!history_put_uv(out, id->table) || !history_put_uv(out, (uint64_t)id->object) || !history_put_uv(out, id->column) ||
        !history_put_uv(out, id->depth))
        return false;
    for (size_t i = 0; i < id->depth; i++) {
        const history_path_step *step = &id->steps[i];
        if (!put_u8(out, step->by_key ? 1 : 0)) return false;
        if (step->by_key ? !(history_put_uv(out, step->key_size) && history_put_bytes(out, step->key, step->key_size))
                         : !history_put_uv(out, step->index))
            return false;
    }
    return true;
}

bool history_collection_op(ce_txn *txn, const history_collection_id *id, history_op_kind op, uint64_t a, uint64_t b,
                           const char *key, size_t key_size)
{
    history_record *record;
    if (!record_of(txn, &record)) return false;
    /* The id is written twice: once to learn its size, which precedes it. */
    history_buffer id_bytes = {0};
    bool ok = history_put_collection_id(&id_bytes, id) && history_put_uv(&record->ops, id_bytes.size) &&
              history_put_bytes(&record->ops, id_bytes.bytes, id_bytes.size) && put_u8(&record->ops, (uint8_t)op) &&
              history_put_uv(&record->ops, a) && history_put_uv(&record->ops, b) && history_put_uv(&record->ops, key ? key_size : 0) &&
              (!key || history_put_bytes(&record->ops, key, key_size));
    free(id_bytes.bytes);
    return ok && history_object_modified(txn, id->table, id->object, id->column);
}

bool history_schema_changed(ce_txn *txn, history_schema_kind kind, ce_table_key table, ce_column_key column)
{
    history_record *record;
    if (!record_of(txn, &record) ||
        !buf_reserve((void **)&record->schema, &record->schema_capacity, record->schema_count + 1,
                     sizeof(history_schema_change)))
        return false;
    record->schema[record->schema_count++] = (history_schema_change){kind, table, column};
    return true;
}

bool history_collection_id_of(const ce_collection *collection, history_path_step *out_steps, size_t step_capacity,
                              history_collection_id *out_id)
{
    if (!collection || !out_id || (collection->depth > 0 && !out_steps))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "history_collection_id_of: arguments are required");
    if (collection->depth > step_capacity)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "the collection is nested %zu levels deep, more than %zu",
                          collection->depth, step_capacity);
    for (size_t i = 0; i < collection->depth; i++) {
        const nested_step *step = &collection->steps[i];
        out_steps[i] = (history_path_step){step->by_key, step->index, step->key, step->key_size};
    }
    *out_id = (history_collection_id){collection->table, collection->object, (ce_column_key)collection->column,
                                      collection->depth, out_steps};
    return true;
}

bool history_collection_id_equal(const history_collection_id *a, const history_collection_id *b)
{
    if (a->table != b->table || a->object != b->object || a->column != b->column || a->depth != b->depth) return false;
    for (size_t i = 0; i < a->depth; i++) {
        const history_path_step *x = &a->steps[i], *y = &b->steps[i];
        if (x->by_key != y->by_key) return false;
        if (x->by_key ? x->key_size != y->key_size || (x->key_size && memcmp(x->key, y->key, x->key_size) != 0)
                      : x->index != y->index)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* The entry of a commit                                                    */
/* ------------------------------------------------------------------------ */

static int compare_runs(const void *a, const void *b)
{
    const key_run *x = a, *y = b;
    if (x->table != y->table) return x->table < y->table ? -1 : 1;
    if (x->column != y->column) return x->column < y->column ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Byte `digit` (0-15, least significant first) of a run's sort key
 * (table, column, first key). */
static inline unsigned run_digit(const key_run *run, unsigned digit)
{
    uint64_t word = digit < 8 ? (uint64_t)run->first : ((uint64_t)run->table << 32) | run->column;
    return (unsigned)(word >> (8 * (digit & 7))) & 0xFF;
}

/* Sorts by (table, column, first key). Runs arrive mostly in order (a loop
 * over objects); the million runs of random sets are sorted by radix, one
 * pass per byte of the key that is not the same in every run (three for a
 * million keys of one column), since a comparison sort of them cost a
 * third of a second at commit. */
static void sort_runs(run_list *list)
{
    bool sorted = true;
    for (size_t i = 1; i < list->count && sorted; i++) sorted = compare_runs(&list->items[i - 1], &list->items[i]) <= 0;
    if (sorted) return;
    key_run *other = malloc(list->count * sizeof(key_run));
    if (!other) {
        qsort(list->items, list->count, sizeof(key_run), compare_runs);
        return;
    }
    key_run *from = list->items, *to = other;
    for (unsigned digit = 0; digit < 16; digit++) {
        size_t counts[256] = {0};
        for (size_t i = 0; i < list->count; i++) counts[run_digit(&from[i], digit)]++;
        if (counts[run_digit(&from[0], digit)] == list->count) continue; /* the same in every run */
        size_t position = 0;
        for (unsigned d = 0; d < 256; d++) {
            size_t count = counts[d];
            counts[d] = position;
            position += count;
        }
        for (size_t i = 0; i < list->count; i++) to[counts[run_digit(&from[i], digit)]++] = from[i];
        key_run *swap = from;
        from = to;
        to = swap;
    }
    if (from != list->items) memcpy(list->items, from, list->count * sizeof(key_run));
    free(other);
}

/* The normalized ranges of the runs of `table` (and `column`, unless
 * any_column) starting at *at; *at moves past them. */
static bool take_runs(const run_list *list, size_t *at, uint32_t table, bool any_column, uint32_t column,
                      history_ranges *out)
{
    out->count = 0;
    while (*at < list->count && list->items[*at].table == table && (any_column || list->items[*at].column == column)) {
        if (!history_ranges_push(out, list->items[*at].first, list->items[*at].last)) return false;
        (*at)++;
    }
    history_ranges_normalize(out);
    return true;
}

typedef struct op_ref {
    const uint8_t *id;
    size_t id_size;
    const uint8_t *op;
    size_t op_size;
    size_t sequence;
} op_ref;

int history_compare_ids(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size)
{
    int order = memcmp(a, b, a_size < b_size ? a_size : b_size);
    if (order != 0) return order;
    return a_size < b_size ? -1 : a_size > b_size;
}

static int compare_op_refs(const void *a, const void *b)
{
    const op_ref *x = a, *y = b;
    int order = history_compare_ids(x->id, x->id_size, y->id, y->id_size);
    if (order != 0) return order;
    return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

/* Splits the record's op bytes into refs sorted by collection (op order
 * kept within one). */
static bool split_ops(const history_buffer *ops, op_ref **out_refs, size_t *out_count)
{
    op_ref *refs = NULL;
    size_t count = 0, capacity = 0;
    history_reader in = {ops->bytes, ops->size, 0};
    while (in.at < in.size) {
        uint64_t id_size, a, b, key_size;
        uint8_t kind;
        const uint8_t *id, *key;
        size_t op_start;
        if (!history_get_uv(&in, &id_size) || !history_get_bytes(&in, (size_t)id_size, &id)) goto fail;
        op_start = in.at;
        if (!history_get_u8(&in, &kind) || !history_get_uv(&in, &a) || !history_get_uv(&in, &b) || !history_get_uv(&in, &key_size) ||
            !history_get_bytes(&in, (size_t)key_size, &key) ||
            !buf_reserve((void **)&refs, &capacity, count + 1, sizeof(op_ref)))
            goto fail;
        refs[count] = (op_ref){id, (size_t)id_size, in.bytes + op_start, in.at - op_start, count};
        count++;
    }
    if (count > 1) qsort(refs, count, sizeof(op_ref), compare_op_refs);
    *out_refs = refs;
    *out_count = count;
    return true;
fail:
    free(refs);
    return false;
}

/* The primary keys the record kept for deleted objects, sorted by (table, key). */
typedef struct kept_key {
    uint32_t table;
    ce_object_key key;
    ce_value value;
} kept_key;

static int compare_kept_keys(const void *a, const void *b)
{
    const kept_key *x = a, *y = b;
    if (x->table != y->table) return x->table < y->table ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static bool kept_keys_of(const history_record *record, kept_key **out, size_t *out_count)
{
    kept_key *keys = NULL;
    size_t count = 0, capacity = 0;
    history_reader in = {record->deleted_keys.bytes, record->deleted_keys.size, 0};
    while (in.at < in.size) {
        uint64_t table;
        kept_key key;
        if (!history_get_uv(&in, &table) || !history_get_key(&in, &key.key) || !history_get_value(&in, &key.value) ||
            !buf_reserve((void **)&keys, &capacity, count + 1, sizeof(kept_key))) {
            free(keys);
            return false;
        }
        key.table = (uint32_t)table;
        keys[count++] = key;
    }
    if (count > 1) qsort(keys, count, sizeof(kept_key), compare_kept_keys);
    *out = keys;
    *out_count = count;
    return true;
}

/* The primary keys of the objects a table's part of an entry names (the
 * ascending union `names`): one run "key + offset" when the table's keys
 * follow its int primary key, else each value (deleted objects' as the
 * record kept them, the others read now). */
static bool put_primary_keys(ce_txn *txn, schema *loaded, uint32_t table_key, const history_ranges *names,
                             const history_ranges *deleted, const kept_key *kept, size_t kept_count, history_buffer *out)
{
    const schema_table *table = &loaded->tables[table_key];
    if (table->primary_key == NO_PRIMARY_KEY) return put_u8(out, 0);
    if (!put_u8(out, 1)) return false;
    size_t total = history_ranges_total(names);
    if (total == 0) return history_put_uv(out, 0);
    if (!(table->flags & TABLE_REMOVED)) {
        table_refs refs;
        if (!schema_table_refs_for_read(txn, table_key, &refs)) return false;
        if (refs.keys_follow == KEYS_FOLLOW)
            return history_put_uv(out, 1) && history_put_uv(out, total) && put_u8(out, 0) && put_sv(out, refs.primary_key_offset);
    }
    if (!history_put_uv(out, 1) || !history_put_uv(out, total) || !put_u8(out, 1)) return false;
    for (size_t r = 0; r < names->count; r++)
        for (int64_t key = names->items[r].first; key <= names->items[r].last; key++) {
            ce_value value;
            if (history_ranges_contain(deleted, key)) {
                kept_key wanted = {.table = table_key, .key = key};
                const kept_key *found =
                    kept_count ? bsearch(&wanted, kept, kept_count, sizeof(kept_key), compare_kept_keys) : NULL;
                /* None kept: the table had no primary key when the object
                 * was deleted (one was added to the emptied table later in
                 * the transaction): null. */
                value = found ? found->value : (ce_value){.type = CE_TYPE_NULL};
            } else if (!object_read_stored(txn, loaded, table_key, key, table->primary_key, &value)) {
                return false;
            }
            if (!put_value(out, &value)) return false;
        }
    return true;
}

static bool same_id(const op_ref *a, const op_ref *b)
{
    return a->id_size == b->id_size && memcmp(a->id, b->id, a->id_size) == 0;
}

static bool encode_entry(ce_txn *txn, history_record *record, history_buffer *out)
{
    schema *loaded;
    if (!schema_load(txn, &loaded)) return false;
    sort_runs(&record->inserted);
    sort_runs(&record->deleted);
    sort_runs(&record->modified);
    record->cache_table = UINT32_MAX; /* the runs moved */
    bool ok = put_u8(out, HISTORY_FORMAT) && history_put_uv(out, record->schema_count);
    for (size_t i = 0; i < record->schema_count && ok; i++)
        ok = put_u8(out, (uint8_t)record->schema[i].kind) && history_put_uv(out, record->schema[i].table) &&
             history_put_uv(out, record->schema[i].column);
    /* Tables: count them first (a table whose changes cancel out is left out). */
    history_ranges inserted = {0}, deleted = {0}, new_keys = {0}, gone = {0}, column = {0}, modified = {0}, names = {0};
    history_buffer tables = {0};
    kept_key *kept = NULL;
    size_t kept_count = 0;
    ok = ok && kept_keys_of(record, &kept, &kept_count);
    size_t table_count = 0, i = 0, d = 0, m = 0;
    while (ok && (i < record->inserted.count || d < record->deleted.count || m < record->modified.count)) {
        uint32_t table = UINT32_MAX;
        if (i < record->inserted.count) table = record->inserted.items[i].table;
        if (d < record->deleted.count && record->deleted.items[d].table < table) table = record->deleted.items[d].table;
        if (m < record->modified.count && record->modified.items[m].table < table) table = record->modified.items[m].table;
        ok = take_runs(&record->inserted, &i, table, true, 0, &inserted) &&
             take_runs(&record->deleted, &d, table, true, 0, &deleted) &&
             history_ranges_subtract(&inserted, &deleted, &new_keys) && history_ranges_subtract(&deleted, &inserted, &gone);
        if (!ok) break;
        /* Modified: not inserted, not deleted in this transaction. */
        history_ranges both = {0};
        ok = history_ranges_append(&both, &inserted) && history_ranges_append(&both, &deleted);
        history_ranges_normalize(&both);
        history_buffer columns = {0};
        size_t column_count = 0;
        names.count = 0;
        ok = ok && history_ranges_append(&names, &new_keys) && history_ranges_append(&names, &gone);
        while (ok && m < record->modified.count && record->modified.items[m].table == table) {
            uint32_t column_key = record->modified.items[m].column;
            ok = take_runs(&record->modified, &m, table, false, column_key, &column) &&
                 history_ranges_subtract(&column, &both, &modified);
            if (!ok || modified.count == 0) continue;
            column_count++;
            ok = history_put_uv(&columns, column_key) && put_ranges(&columns, &modified) && history_ranges_append(&names, &modified);
        }
        free(both.items);
        history_ranges_normalize(&names);
        if (ok && (new_keys.count || gone.count || column_count) && table < loaded->table_count) {
            table_count++;
            ok = history_put_uv(&tables, table) && put_ranges(&tables, &new_keys) && put_ranges(&tables, &gone) &&
                 history_put_uv(&tables, column_count) && history_put_bytes(&tables, columns.bytes, columns.size) &&
                 put_primary_keys(txn, loaded, table, &names, &deleted, kept, kept_count, &tables);
        }
        free(columns.bytes);
    }
    ok = ok && history_put_uv(out, table_count) && history_put_bytes(out, tables.bytes, tables.size);
    free(tables.bytes);
    free(inserted.items);
    free(deleted.items);
    free(new_keys.items);
    free(gone.items);
    free(column.items);
    free(modified.items);
    free(names.items);
    free(kept);
    /* Collections, grouped; each one's ops in order. */
    op_ref *refs = NULL;
    size_t ref_count = 0;
    ok = ok && split_ops(&record->ops, &refs, &ref_count);
    size_t collections = 0;
    for (size_t r = 0; r < ref_count; r++) collections += r == 0 || !same_id(&refs[r], &refs[r - 1]);
    ok = ok && history_put_uv(out, collections);
    for (size_t r = 0; r < ref_count && ok;) {
        size_t end = r + 1;
        while (end < ref_count && same_id(&refs[end], &refs[r])) end++;
        ok = history_put_bytes(out, refs[r].id, refs[r].id_size) && history_put_uv(out, end - r);
        for (size_t k = r; k < end && ok; k++) ok = history_put_bytes(out, refs[k].op, refs[k].op_size);
        r = end;
    }
    free(refs);
    return ok;
}

static bool record_is_empty(const history_record *record)
{
    return !record || (record->inserted.count == 0 && record->deleted.count == 0 && record->modified.count == 0 &&
                       record->ops.size == 0 && record->schema_count == 0);
}

/* ------------------------------------------------------------------------ */
/* The history root                                                         */
/* ------------------------------------------------------------------------ */

/* Reads and checks the root and its entries' sizes (entries ascending by
 * version, each a bytes node). */
bool history_read_root(const space_state *space, space_ref root, history_root *out)
{
    *out = (history_root){0};
    node_view view;
    if (!node_read(space, root, &view)) return false;
    if ((view.flags & (NODE_HAS_REFS | NODE_BYTES | NODE_INNER)) != NODE_HAS_REFS || view.count < ROOT_HEADER ||
        (view.count - ROOT_HEADER) % 2 != 0 || node_get(&view, 0) != node_tag(HISTORY_FORMAT) ||
        !(node_get(&view, 1) & 1) || node_get(&view, 1) < 0)
        return history_damaged();
    out->covered_since = (uint64_t)node_untag(node_get(&view, 1));
    size_t count = (view.count - ROOT_HEADER) / 2;
    out->entries = malloc((count + 1) * sizeof(history_root_entry));
    if (!out->entries) return history_out_of_memory();
    for (size_t i = 0; i < count; i++) {
        int64_t version = node_get(&view, ROOT_HEADER + 2 * i), entry = node_get(&view, ROOT_HEADER + 2 * i + 1);
        node_view entry_view;
        if (!(version & 1) || version < 0 || !node_value_is_ref(entry) ||
            (uint64_t)node_untag(version) <= out->covered_since ||
            (i > 0 && (uint64_t)node_untag(version) <= out->entries[i - 1].version) ||
            !node_read(space, (space_ref)entry, &entry_view) || !(entry_view.flags & NODE_BYTES)) {
            free(out->entries);
            out->entries = NULL;
            /* A page that fails its checksum or authentication stays that
             * error (damage reported as damage, naming the page). */
            return ce_last_error_code() == CE_ERR_INVALID_DATABASE || ce_last_error_code() == CE_ERR_CORRUPT
                       ? false
                       : history_damaged();
        }
        out->entries[i] = (history_root_entry){(uint64_t)node_untag(version), (space_ref)entry, entry_view.count};
    }
    out->count = count;
    return true;
}

bool history_write(ce_txn *txn)
{
    schema *loaded = db_txn_layer_state(txn);
    history_record *record = loaded ? loaded->history : NULL;
    if (record_is_empty(record)) return true;
    space_state *space = db_txn_space(txn);
    uint64_t base = ce_txn_version(txn), new_version = base + 1, oldest = space->oldest_pinned_version;
    space_ref root = db_txn_history(txn);
    history_root old = {.covered_since = base};
    if (root && !history_read_root(space, root, &old)) return false;
    history_buffer entry = {0};
    bool ok = encode_entry(txn, record, &entry);
    /* Which entries stay: those a reader may need, within the bounds. */
    size_t first = 0, end = old.count;
    while (end > 0 && old.entries[end - 1].version >= new_version) end--; /* an earlier run of this commit */
    while (first < end && old.entries[first].version <= oldest) first++;
    bool store_new = ok && entry.size <= history_max_bytes;
    if (!store_new) first = end; /* the history restarts after this version */
    uint64_t bytes = store_new ? entry.size : 0;
    for (size_t i = first; i < end; i++) bytes += old.entries[i].bytes;
    while (first < end && (end - first + (store_new ? 1 : 0) > history_max_versions || bytes > history_max_bytes))
        bytes -= old.entries[first++].bytes;
    uint64_t covered_since = old.covered_since;
    if (first > 0 && old.entries[first - 1].version > covered_since) covered_since = old.entries[first - 1].version;
    if (!store_new) covered_since = new_version;
    for (size_t i = 0; i < old.count && ok; i++)
        if (i < first || i >= end) ok = node_free(space, old.entries[i].entry);
    size_t kept = end - first + (store_new ? 1 : 0);
    int64_t *values = ok ? malloc((ROOT_HEADER + 2 * kept) * sizeof *values) : NULL;
    if (ok && !values) ok = history_out_of_memory();
    space_ref new_root = 0, entry_ref = 0;
    if (ok) {
        values[0] = node_tag(HISTORY_FORMAT);
        values[1] = node_tag((int64_t)covered_since);
        values[2] = node_tag((int64_t)bytes);
        size_t at = ROOT_HEADER;
        for (size_t i = first; i < end; i++) {
            values[at++] = node_tag((int64_t)old.entries[i].version);
            values[at++] = (int64_t)old.entries[i].entry;
        }
        if (store_new) {
            ok = node_create_bytes(space, 0, entry.bytes, entry.size, &entry_ref);
            values[at++] = node_tag((int64_t)new_version);
            values[at++] = (int64_t)entry_ref;
        }
        ok = ok && (!root || node_free(space, root)) &&
             node_create_from(space, NODE_HAS_REFS, values, ROOT_HEADER + 2 * kept, &new_root) &&
             db_txn_set_history(txn, new_root);
    }
    free(values);
    free(entry.bytes);
    free(old.entries);
    return ok;
}

