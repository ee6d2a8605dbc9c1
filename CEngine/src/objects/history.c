/*
 * history.c — the change history: what each commit changed.
 *
 * Owns: the history's bytes and its tree (docs/FORMAT.md, "Change
 * history"): the record a write transaction keeps of its changes, the
 * entry the commit writes from it, trimming and bounding the entries, and
 * the merged delta read back between two versions.
 * Never: changes objects, or decides what a change means to an observer
 * (the notify layer); reads objects only for their primary keys.
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
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

#define HISTORY_FORMAT 1
#define ROOT_HEADER 3 /* format, covered since, entry bytes; then (version, entry) pairs */
#define COLUMN_CACHE 64

size_t history_max_versions = HISTORY_MAX_VERSIONS;
size_t history_max_bytes = HISTORY_MAX_BYTES;

/* ------------------------------------------------------------------------ */
/* Ranges of object keys                                                    */
/* ------------------------------------------------------------------------ */

typedef struct range {
    int64_t first, last;
} range;

typedef struct range_set {
    range *items;
    size_t count, capacity;
} range_set;

static bool ranges_push(range_set *set, int64_t first, int64_t last)
{
    if (set->count > 0 && set->items[set->count - 1].last + 1 >= first && set->items[set->count - 1].first <= first) {
        if (last > set->items[set->count - 1].last) set->items[set->count - 1].last = last;
        return true;
    }
    if (!buf_reserve((void **)&set->items, &set->capacity, set->count + 1, sizeof(range))) return false;
    set->items[set->count++] = (range){first, last};
    return true;
}

static int compare_ranges(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts and merges overlapping and adjacent ranges. */
static void ranges_normalize(range_set *set)
{
    if (set->count < 2) return;
    bool sorted = true;
    for (size_t i = 1; i < set->count && sorted; i++) sorted = set->items[i - 1].first <= set->items[i].first;
    if (!sorted) qsort(set->items, set->count, sizeof(range), compare_ranges);
    size_t out = 0;
    for (size_t i = 1; i < set->count; i++) {
        range *last = &set->items[out];
        if (set->items[i].first <= last->last + 1) {
            if (set->items[i].last > last->last) last->last = set->items[i].last;
        } else {
            set->items[++out] = set->items[i];
        }
    }
    set->count = out + 1;
}

/* a - b, both normalized, into out (emptied first). */
static bool ranges_subtract(const range_set *a, const range_set *b, range_set *out)
{
    out->count = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->count; i++) {
        int64_t first = a->items[i].first, last = a->items[i].last;
        while (j < b->count && b->items[j].last < first) j++;
        size_t k = j;
        while (first <= last && k < b->count && b->items[k].first <= last) {
            if (b->items[k].first > first && !ranges_push(out, first, b->items[k].first - 1)) return false;
            if (b->items[k].last >= last) {
                first = last + 1;
                break;
            }
            first = b->items[k].last + 1;
            k++;
        }
        if (first <= last && !ranges_push(out, first, last)) return false;
    }
    return true;
}

static bool ranges_contain(const range_set *set, int64_t key)
{
    size_t low = 0, high = set->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (set->items[middle].last < key) low = middle + 1;
        else high = middle;
    }
    return low < set->count && set->items[low].first <= key;
}

static size_t ranges_total(const range_set *set)
{
    size_t total = 0;
    for (size_t i = 0; i < set->count; i++) total += (size_t)(set->items[i].last - set->items[i].first + 1);
    return total;
}

static bool ranges_append_all(range_set *to, const range_set *from)
{
    if (from->count == 0) return true;
    if (!buf_reserve((void **)&to->items, &to->capacity, to->count + from->count, sizeof(range))) return false;
    memcpy(to->items + to->count, from->items, from->count * sizeof(range));
    to->count += from->count;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Bytes: LEB128 varints, bounds-checked reading                            */
/* ------------------------------------------------------------------------ */

typedef struct byte_buffer {
    uint8_t *bytes;
    size_t size, capacity;
} byte_buffer;

static bool put_bytes(byte_buffer *out, const void *bytes, size_t length)
{
    return buf_append(&out->bytes, &out->size, &out->capacity, bytes, length);
}

static bool put_uv(byte_buffer *out, uint64_t value)
{
    uint8_t bytes[10];
    size_t n = 0;
    do {
        bytes[n] = (uint8_t)(value & 0x7F);
        value >>= 7;
        if (value) bytes[n] |= 0x80;
        n++;
    } while (value);
    return put_bytes(out, bytes, n);
}

static bool put_sv(byte_buffer *out, int64_t value)
{
    return put_uv(out, ((uint64_t)value << 1) ^ (uint64_t)(value >> 63));
}

static bool put_u8(byte_buffer *out, uint8_t value) { return put_bytes(out, &value, 1); }

typedef struct byte_reader {
    const uint8_t *bytes;
    size_t size, at;
} byte_reader;

/* Both return false, visibly to the compiler (error_fail's value is not). */
static bool damaged(void)
{
    error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the change history is damaged");
    return false;
}

static bool out_of_memory(void)
{
    schema_out_of_memory();
    return false;
}

static bool get_uv(byte_reader *in, uint64_t *out)
{
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (in->at >= in->size) return damaged();
        uint8_t byte = in->bytes[in->at++];
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *out = value;
            return true;
        }
    }
    return damaged();
}

static bool get_sv(byte_reader *in, int64_t *out)
{
    uint64_t value;
    if (!get_uv(in, &value)) return false;
    *out = (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
    return true;
}

static bool get_u8(byte_reader *in, uint8_t *out)
{
    if (in->at >= in->size) return damaged();
    *out = in->bytes[in->at++];
    return true;
}

/* `length` bytes in place. */
static bool get_bytes(byte_reader *in, size_t length, const uint8_t **out)
{
    if (length > in->size - in->at) return damaged();
    *out = in->bytes + in->at;
    in->at += length;
    return true;
}

/* A count of items of at least `min_bytes` each: bounded by the bytes left,
 * so that a damaged count cannot ask for a huge allocation. */
static bool get_count(byte_reader *in, size_t min_bytes, size_t *out)
{
    uint64_t count;
    if (!get_uv(in, &count)) return false;
    if (count > (in->size - in->at) / min_bytes) return damaged();
    *out = (size_t)count;
    return true;
}

/* An object key (>= 0). */
static bool get_key(byte_reader *in, int64_t *out)
{
    uint64_t value;
    if (!get_uv(in, &value)) return false;
    if (value > (uint64_t)INT64_MAX) return damaged();
    *out = (int64_t)value;
    return true;
}

/* Range lists: count, then per range the gap from the end of the previous
 * one (from 0 for the first) and the length less one. */
static bool put_ranges(byte_buffer *out, const range_set *set)
{
    if (!put_uv(out, set->count)) return false;
    int64_t end = 0;
    for (size_t i = 0; i < set->count; i++) {
        if (!put_uv(out, (uint64_t)(set->items[i].first - end)) ||
            !put_uv(out, (uint64_t)(set->items[i].last - set->items[i].first)))
            return false;
        end = set->items[i].last + 1;
    }
    return true;
}

static bool get_ranges(byte_reader *in, range_set *out)
{
    size_t count;
    if (!get_count(in, 2, &count)) return false;
    uint64_t end = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t gap, length;
        if (!get_uv(in, &gap) || !get_uv(in, &length)) return false;
        if (gap > (uint64_t)INT64_MAX - end || length > (uint64_t)INT64_MAX - end - gap) return damaged();
        uint64_t first = end + gap, last = first + length;
        if (last == (uint64_t)INT64_MAX) return damaged();
        if (!ranges_push(out, (int64_t)first, (int64_t)last)) return false;
        end = last + 1;
    }
    return true;
}

/* A primary key value: the type, then its bytes. */
static bool put_value(byte_buffer *out, const ce_value *value)
{
    if (!put_u8(out, (uint8_t)value->type)) return false;
    switch (value->type) {
    case CE_TYPE_NULL: return true;
    case CE_TYPE_INT: return put_sv(out, value->integer);
    case CE_TYPE_STRING: return put_uv(out, value->string.size) && put_bytes(out, value->string.data, value->string.size);
    case CE_TYPE_OBJECT_ID: return put_bytes(out, value->object_id.bytes, 12);
    case CE_TYPE_UUID: return put_bytes(out, value->uuid.bytes, 16);
    default: return error_fail(CE_ERR_FAIL, "internal error: a primary key of type %d", (int)value->type);
    }
}

static bool get_value(byte_reader *in, ce_value *out)
{
    uint8_t type;
    const uint8_t *bytes;
    uint64_t size;
    if (!get_u8(in, &type)) return false;
    *out = (ce_value){.type = (ce_type)type};
    switch (type) {
    case CE_TYPE_NULL: return true;
    case CE_TYPE_INT: return get_sv(in, &out->integer);
    case CE_TYPE_STRING:
        if (!get_uv(in, &size) || !get_bytes(in, (size_t)size, &bytes)) return false;
        if (size > SIZE_MAX) return damaged();
        out->string.data = (const char *)bytes;
        out->string.size = (size_t)size;
        return true;
    case CE_TYPE_OBJECT_ID:
        if (!get_bytes(in, 12, &bytes)) return false;
        memcpy(out->object_id.bytes, bytes, 12);
        return true;
    case CE_TYPE_UUID:
        if (!get_bytes(in, 16, &bytes)) return false;
        memcpy(out->uuid.bytes, bytes, 16);
        return true;
    default: return damaged();
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
    byte_buffer deleted_keys; /* per deleted object of a table with a primary key: uv table, uv key, value */
    byte_buffer ops;          /* per collection op: uv id size, id, op */
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
        if (!loaded->history) return out_of_memory();
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
           put_uv(&record->deleted_keys, table) && put_uv(&record->deleted_keys, (uint64_t)object) &&
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

static bool put_collection_id(byte_buffer *out, const history_collection_id *id)
{
    if (!put_uv(out, id->table) || !put_uv(out, (uint64_t)id->object) || !put_uv(out, id->column) ||
        !put_uv(out, id->depth))
        return false;
    for (size_t i = 0; i < id->depth; i++) {
        const history_path_step *step = &id->steps[i];
        if (!put_u8(out, step->by_key ? 1 : 0)) return false;
        if (step->by_key ? !(put_uv(out, step->key_size) && put_bytes(out, step->key, step->key_size))
                         : !put_uv(out, step->index))
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
    byte_buffer id_bytes = {0};
    bool ok = put_collection_id(&id_bytes, id) && put_uv(&record->ops, id_bytes.size) &&
              put_bytes(&record->ops, id_bytes.bytes, id_bytes.size) && put_u8(&record->ops, (uint8_t)op) &&
              put_uv(&record->ops, a) && put_uv(&record->ops, b) && put_uv(&record->ops, key ? key_size : 0) &&
              (!key || put_bytes(&record->ops, key, key_size));
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
                      range_set *out)
{
    out->count = 0;
    while (*at < list->count && list->items[*at].table == table && (any_column || list->items[*at].column == column)) {
        if (!ranges_push(out, list->items[*at].first, list->items[*at].last)) return false;
        (*at)++;
    }
    ranges_normalize(out);
    return true;
}

typedef struct op_ref {
    const uint8_t *id;
    size_t id_size;
    const uint8_t *op;
    size_t op_size;
    size_t sequence;
} op_ref;

static int compare_op_refs(const void *a, const void *b)
{
    const op_ref *x = a, *y = b;
    size_t common = x->id_size < y->id_size ? x->id_size : y->id_size;
    int order = memcmp(x->id, y->id, common);
    if (order != 0) return order;
    if (x->id_size != y->id_size) return x->id_size < y->id_size ? -1 : 1;
    return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

/* Splits the record's op bytes into refs sorted by collection (op order
 * kept within one). */
static bool split_ops(const byte_buffer *ops, op_ref **out_refs, size_t *out_count)
{
    op_ref *refs = NULL;
    size_t count = 0, capacity = 0;
    byte_reader in = {ops->bytes, ops->size, 0};
    while (in.at < in.size) {
        uint64_t id_size, a, b, key_size;
        uint8_t kind;
        const uint8_t *id, *key;
        size_t op_start;
        if (!get_uv(&in, &id_size) || !get_bytes(&in, (size_t)id_size, &id)) goto fail;
        op_start = in.at;
        if (!get_u8(&in, &kind) || !get_uv(&in, &a) || !get_uv(&in, &b) || !get_uv(&in, &key_size) ||
            !get_bytes(&in, (size_t)key_size, &key) ||
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
    byte_reader in = {record->deleted_keys.bytes, record->deleted_keys.size, 0};
    while (in.at < in.size) {
        uint64_t table;
        kept_key key;
        if (!get_uv(&in, &table) || !get_key(&in, &key.key) || !get_value(&in, &key.value) ||
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
static bool put_primary_keys(ce_txn *txn, schema *loaded, uint32_t table_key, const range_set *names,
                             const range_set *deleted, const kept_key *kept, size_t kept_count, byte_buffer *out)
{
    const schema_table *table = &loaded->tables[table_key];
    if (table->primary_key == NO_PRIMARY_KEY) return put_u8(out, 0);
    if (!put_u8(out, 1)) return false;
    size_t total = ranges_total(names);
    if (total == 0) return put_uv(out, 0);
    if (!(table->flags & TABLE_REMOVED)) {
        table_refs refs;
        if (!schema_table_refs_for_read(txn, table_key, &refs)) return false;
        if (refs.keys_follow == KEYS_FOLLOW)
            return put_uv(out, 1) && put_uv(out, total) && put_u8(out, 0) && put_sv(out, refs.primary_key_offset);
    }
    if (!put_uv(out, 1) || !put_uv(out, total) || !put_u8(out, 1)) return false;
    for (size_t r = 0; r < names->count; r++)
        for (int64_t key = names->items[r].first; key <= names->items[r].last; key++) {
            ce_value value;
            if (ranges_contain(deleted, key)) {
                kept_key wanted = {.table = table_key, .key = key};
                const kept_key *found = bsearch(&wanted, kept, kept_count, sizeof(kept_key), compare_kept_keys);
                if (!found) return error_fail(CE_ERR_FAIL, "internal error: no primary key kept for a deleted object");
                value = found->value;
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

static bool encode_entry(ce_txn *txn, history_record *record, byte_buffer *out)
{
    schema *loaded;
    if (!schema_load(txn, &loaded)) return false;
    sort_runs(&record->inserted);
    sort_runs(&record->deleted);
    sort_runs(&record->modified);
    record->cache_table = UINT32_MAX; /* the runs moved */
    bool ok = put_u8(out, HISTORY_FORMAT) && put_uv(out, record->schema_count);
    for (size_t i = 0; i < record->schema_count && ok; i++)
        ok = put_u8(out, (uint8_t)record->schema[i].kind) && put_uv(out, record->schema[i].table) &&
             put_uv(out, record->schema[i].column);
    /* Tables: count them first (a table whose changes cancel out is left out). */
    range_set inserted = {0}, deleted = {0}, new_keys = {0}, gone = {0}, column = {0}, modified = {0}, names = {0};
    byte_buffer tables = {0};
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
             ranges_subtract(&inserted, &deleted, &new_keys) && ranges_subtract(&deleted, &inserted, &gone);
        if (!ok) break;
        /* Modified: not inserted, not deleted in this transaction. */
        range_set both = {0};
        ok = ranges_append_all(&both, &inserted) && ranges_append_all(&both, &deleted);
        ranges_normalize(&both);
        byte_buffer columns = {0};
        size_t column_count = 0;
        names.count = 0;
        ok = ok && ranges_append_all(&names, &new_keys) && ranges_append_all(&names, &gone);
        while (ok && m < record->modified.count && record->modified.items[m].table == table) {
            uint32_t column_key = record->modified.items[m].column;
            ok = take_runs(&record->modified, &m, table, false, column_key, &column) &&
                 ranges_subtract(&column, &both, &modified);
            if (!ok || modified.count == 0) continue;
            column_count++;
            ok = put_uv(&columns, column_key) && put_ranges(&columns, &modified) && ranges_append_all(&names, &modified);
        }
        free(both.items);
        ranges_normalize(&names);
        if (ok && (new_keys.count || gone.count || column_count) && table < loaded->table_count) {
            table_count++;
            ok = put_uv(&tables, table) && put_ranges(&tables, &new_keys) && put_ranges(&tables, &gone) &&
                 put_uv(&tables, column_count) && put_bytes(&tables, columns.bytes, columns.size) &&
                 put_primary_keys(txn, loaded, table, &names, &deleted, kept, kept_count, &tables);
        }
        free(columns.bytes);
    }
    ok = ok && put_uv(out, table_count) && put_bytes(out, tables.bytes, tables.size);
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
    ok = ok && put_uv(out, collections);
    for (size_t r = 0; r < ref_count && ok;) {
        size_t end = r + 1;
        while (end < ref_count && same_id(&refs[end], &refs[r])) end++;
        ok = put_bytes(out, refs[r].id, refs[r].id_size) && put_uv(out, end - r);
        for (size_t k = r; k < end && ok; k++) ok = put_bytes(out, refs[k].op, refs[k].op_size);
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

typedef struct root_entry {
    uint64_t version;
    space_ref entry;
    uint64_t bytes;
} root_entry;

typedef struct root_view {
    uint64_t covered_since;
    root_entry *entries;
    size_t count;
} root_view;

/* Reads and checks the root and its entries' sizes (entries ascending by
 * version, each a bytes node). */
static bool read_root(const space_state *space, space_ref root, root_view *out)
{
    *out = (root_view){0};
    node_view view;
    if (!node_read(space, root, &view)) return false;
    if ((view.flags & (NODE_HAS_REFS | NODE_BYTES | NODE_INNER)) != NODE_HAS_REFS || view.count < ROOT_HEADER ||
        (view.count - ROOT_HEADER) % 2 != 0 || node_get(&view, 0) != node_tag(HISTORY_FORMAT) ||
        !(node_get(&view, 1) & 1) || node_get(&view, 1) < 0)
        return damaged();
    out->covered_since = (uint64_t)node_untag(node_get(&view, 1));
    size_t count = (view.count - ROOT_HEADER) / 2;
    out->entries = malloc((count + 1) * sizeof(root_entry));
    if (!out->entries) return out_of_memory();
    for (size_t i = 0; i < count; i++) {
        int64_t version = node_get(&view, ROOT_HEADER + 2 * i), entry = node_get(&view, ROOT_HEADER + 2 * i + 1);
        node_view entry_view;
        if (!(version & 1) || version < 0 || !node_value_is_ref(entry) ||
            (uint64_t)node_untag(version) <= out->covered_since ||
            (i > 0 && (uint64_t)node_untag(version) <= out->entries[i - 1].version) ||
            !node_read(space, (space_ref)entry, &entry_view) || !(entry_view.flags & NODE_BYTES)) {
            free(out->entries);
            out->entries = NULL;
            return ce_last_error_code() == CE_ERR_INVALID_DATABASE ? false : damaged();
        }
        out->entries[i] = (root_entry){(uint64_t)node_untag(version), (space_ref)entry, entry_view.count};
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
    root_view old = {.covered_since = base};
    if (root && !read_root(space, root, &old)) return false;
    byte_buffer entry = {0};
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
    if (ok && !values) ok = out_of_memory();
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

/* ------------------------------------------------------------------------ */
/* The merged delta                                                         */
/* ------------------------------------------------------------------------ */

typedef struct column_changes {
    ce_column_key column;
    range_set keys;
} column_changes;

typedef struct key_value {
    ce_object_key key;
    ce_value value;
} key_value;

typedef struct follow_run {
    int64_t first, last, offset;
} follow_run;

typedef struct delta_table {
    history_table_changes changes;
    range_set inserted, deleted; /* every key inserted / deleted in the range (before merging) */
    column_changes *columns;
    size_t column_count, column_capacity;
    follow_run *follows;
    size_t follow_count, follow_capacity;
    key_value *keys;
    size_t key_count, key_capacity;
    ce_object_key *arrays; /* the three key arrays, in one allocation */
} delta_table;

typedef struct delta_collection {
    history_collection_changes changes;
    const uint8_t *id; /* encoded: the sort key */
    size_t id_size;
    history_path_step *steps;
    history_op *ops;
    size_t op_capacity;
} delta_collection;

struct history_delta {
    uint8_t **payloads; /* copies of the entries: strings point into them */
    size_t payload_count;
    bool schema_changed;
    history_schema_change *schema;
    size_t schema_count, schema_capacity;
    delta_table *tables;
    size_t table_count, table_capacity;
    delta_collection *collections;
    size_t collection_count, collection_capacity;
};

void history_delta_free(history_delta *delta)
{
    if (!delta) return;
    for (size_t i = 0; i < delta->payload_count; i++) free(delta->payloads[i]);
    free(delta->payloads);
    free(delta->schema);
    for (size_t t = 0; t < delta->table_count; t++) {
        delta_table *table = &delta->tables[t];
        free(table->inserted.items);
        free(table->deleted.items);
        for (size_t c = 0; c < table->column_count; c++) free(table->columns[c].keys.items);
        free(table->columns);
        free(table->follows);
        free(table->keys);
        free(table->arrays);
    }
    free(delta->tables);
    for (size_t c = 0; c < delta->collection_count; c++) {
        free(delta->collections[c].steps);
        free(delta->collections[c].ops);
    }
    free(delta->collections);
    free(delta);
}

static bool delta_table_for(history_delta *delta, ce_table_key key, delta_table **out)
{
    for (size_t t = 0; t < delta->table_count; t++)
        if (delta->tables[t].changes.table == key) {
            *out = &delta->tables[t];
            return true;
        }
    if (!buf_reserve((void **)&delta->tables, &delta->table_capacity, delta->table_count + 1, sizeof(delta_table)))
        return false;
    *out = &delta->tables[delta->table_count++];
    **out = (delta_table){.changes = {.table = key}};
    return true;
}

static bool delta_column_for(delta_table *table, ce_column_key column, column_changes **out)
{
    for (size_t c = 0; c < table->column_count; c++)
        if (table->columns[c].column == column) {
            *out = &table->columns[c];
            return true;
        }
    if (!buf_reserve((void **)&table->columns, &table->column_capacity, table->column_count + 1, sizeof(column_changes)))
        return false;
    *out = &table->columns[table->column_count++];
    **out = (column_changes){.column = column};
    return true;
}

/* The k-th key (from 0) of a normalized set. */
static int64_t nth_key(const range_set *set, size_t *range_at, uint64_t *offset_at)
{
    int64_t key = set->items[*range_at].first + (int64_t)*offset_at;
    if (key == set->items[*range_at].last) {
        (*range_at)++;
        *offset_at = 0;
    } else {
        (*offset_at)++;
    }
    return key;
}

static bool load_primary_keys(byte_reader *in, delta_table *table, const range_set *names)
{
    uint8_t mode;
    if (!get_u8(in, &mode)) return false;
    if (mode == 0) return true;
    if (mode != 1) return damaged();
    size_t runs, total = ranges_total(names), done = 0, range_at = 0;
    uint64_t offset_at = 0;
    if (!get_count(in, 2, &runs)) return false;
    for (size_t r = 0; r < runs; r++) {
        uint64_t count;
        uint8_t kind;
        if (!get_uv(in, &count) || !get_u8(in, &kind)) return false;
        if (count > total - done) return damaged();
        if (kind == 0) {
            int64_t offset;
            if (!get_sv(in, &offset)) return false;
            for (uint64_t left = count; left > 0;) {
                /* One follow run per range (or part of one) of names. */
                int64_t first = names->items[range_at].first + (int64_t)offset_at;
                uint64_t in_range = (uint64_t)(names->items[range_at].last - first) + 1;
                uint64_t take = in_range < left ? in_range : left;
                if (!buf_reserve((void **)&table->follows, &table->follow_capacity, table->follow_count + 1,
                                 sizeof(follow_run)))
                    return false;
                table->follows[table->follow_count++] = (follow_run){first, first + (int64_t)take - 1, offset};
                if (take == in_range) {
                    range_at++;
                    offset_at = 0;
                } else {
                    offset_at += take;
                }
                left -= take;
            }
        } else if (kind == 1) {
            if (count > in->size - in->at) return damaged();
            for (uint64_t k = 0; k < count; k++) {
                key_value pair;
                pair.key = nth_key(names, &range_at, &offset_at);
                if (!get_value(in, &pair.value) ||
                    !buf_reserve((void **)&table->keys, &table->key_capacity, table->key_count + 1, sizeof(key_value)))
                    return false;
                table->keys[table->key_count++] = pair;
            }
        } else {
            return damaged();
        }
        done += (size_t)count;
    }
    return done == total || damaged();
}

static bool load_tables(byte_reader *in, history_delta *delta)
{
    size_t count;
    if (!get_count(in, 4, &count)) return false;
    range_set inserted = {0}, deleted = {0}, names = {0}, keys = {0};
    bool ok = true;
    for (size_t t = 0; t < count && ok; t++) {
        uint64_t table_key;
        delta_table *table;
        size_t columns = 0;
        inserted.count = deleted.count = names.count = 0;
        ok = get_uv(in, &table_key) && (table_key <= UINT32_MAX || damaged()) &&
             delta_table_for(delta, (ce_table_key)table_key, &table) && get_ranges(in, &inserted) &&
             get_ranges(in, &deleted) && ranges_append_all(&table->inserted, &inserted) &&
             ranges_append_all(&table->deleted, &deleted) && ranges_append_all(&names, &inserted) &&
             ranges_append_all(&names, &deleted) && get_count(in, 2, &columns);
        for (size_t c = 0; c < columns && ok; c++) {
            uint64_t column_key;
            column_changes *column;
            keys.count = 0;
            ok = get_uv(in, &column_key) && (column_key <= UINT32_MAX || damaged()) && get_ranges(in, &keys) &&
                 delta_column_for(table, (ce_column_key)column_key, &column) && ranges_append_all(&column->keys, &keys) &&
                 ranges_append_all(&names, &keys);
        }
        if (!ok) break;
        ranges_normalize(&names);
        ok = load_primary_keys(in, table, &names);
    }
    free(inserted.items);
    free(deleted.items);
    free(names.items);
    free(keys.items);
    return ok;
}

static int compare_collections(const void *a, const void *b)
{
    const delta_collection *x = a, *y = b;
    return compare_op_refs(&(op_ref){x->id, x->id_size, 0, 0, 0}, &(op_ref){y->id, y->id_size, 0, 0, 0});
}

static bool read_collection_id(byte_reader *in, history_collection_id *id, history_path_step **out_steps)
{
    uint64_t table, object, column;
    size_t depth;
    *out_steps = NULL;
    if (!get_uv(in, &table) || !get_uv(in, &object) || !get_uv(in, &column) || !get_count(in, 2, &depth)) return false;
    if (table > UINT32_MAX || column > UINT32_MAX || object > (uint64_t)INT64_MAX) return damaged();
    history_path_step *steps = depth ? calloc(depth, sizeof *steps) : NULL;
    if (depth && !steps) return out_of_memory();
    for (size_t i = 0; i < depth; i++) {
        uint8_t by_key;
        uint64_t value;
        const uint8_t *key;
        if (!get_u8(in, &by_key) || by_key > 1 || !get_uv(in, &value) ||
            (by_key && !get_bytes(in, (size_t)value, &key))) {
            free(steps);
            return ce_last_error_code() == CE_ERR_INVALID_DATABASE ? false : damaged();
        }
        steps[i] = by_key ? (history_path_step){true, 0, (const char *)key, (size_t)value}
                          : (history_path_step){false, value, NULL, 0};
    }
    *id = (history_collection_id){(ce_table_key)table, (ce_object_key)object, (ce_column_key)column, depth, steps};
    *out_steps = steps;
    return true;
}

static bool load_collections(byte_reader *in, history_delta *delta)
{
    size_t count;
    if (!get_count(in, 5, &count)) return false;
    for (size_t c = 0; c < count; c++) {
        size_t id_start = in->at, ops;
        history_collection_id id;
        history_path_step *steps;
        if (!read_collection_id(in, &id, &steps)) return false;
        const uint8_t *id_bytes = in->bytes + id_start;
        size_t id_size = in->at - id_start;
        delta_collection *collection = NULL;
        for (size_t k = 0; k < delta->collection_count && !collection; k++)
            if (delta->collections[k].id_size == id_size && memcmp(delta->collections[k].id, id_bytes, id_size) == 0)
                collection = &delta->collections[k];
        if (collection) {
            free(steps);
        } else {
            if (!buf_reserve((void **)&delta->collections, &delta->collection_capacity, delta->collection_count + 1,
                             sizeof(delta_collection))) {
                free(steps);
                return false;
            }
            collection = &delta->collections[delta->collection_count++];
            *collection = (delta_collection){.changes = {.id = id}, .id = id_bytes, .id_size = id_size, .steps = steps};
        }
        if (!get_count(in, 4, &ops)) return false;
        for (size_t k = 0; k < ops; k++) {
            uint8_t kind;
            uint64_t a, b, key_size;
            const uint8_t *key;
            if (!get_u8(in, &kind) || !get_uv(in, &a) || !get_uv(in, &b) || !get_uv(in, &key_size) ||
                !get_bytes(in, (size_t)key_size, &key))
                return false;
            if (kind >= HISTORY_OP_KIND_COUNT) return damaged();
            if (!buf_reserve((void **)&collection->ops, &collection->op_capacity, collection->changes.op_count + 1,
                             sizeof(history_op)))
                return false;
            collection->ops[collection->changes.op_count++] =
                (history_op){(history_op_kind)kind, a, b, key_size ? (const char *)key : NULL, (size_t)key_size};
        }
    }
    return true;
}

static bool load_entry(history_delta *delta, const uint8_t *bytes, size_t size)
{
    byte_reader in = {bytes, size, 0};
    uint8_t format;
    size_t schema_count;
    if (!get_u8(&in, &format)) return false;
    if (format != HISTORY_FORMAT) return damaged();
    if (!get_count(&in, 3, &schema_count)) return false;
    for (size_t i = 0; i < schema_count; i++) {
        uint8_t kind;
        uint64_t table, column;
        if (!get_u8(&in, &kind) || !get_uv(&in, &table) || !get_uv(&in, &column)) return false;
        if (kind < HISTORY_TABLE_ADDED || kind > HISTORY_PROPERTY_REMOVED || table > UINT32_MAX || column > UINT32_MAX)
            return damaged();
        if (!buf_reserve((void **)&delta->schema, &delta->schema_capacity, delta->schema_count + 1,
                         sizeof(history_schema_change)))
            return false;
        delta->schema[delta->schema_count++] =
            (history_schema_change){(history_schema_kind)kind, (ce_table_key)table, (ce_column_key)column};
        delta->schema_changed = true;
    }
    if (!load_tables(&in, delta) || !load_collections(&in, delta)) return false;
    return in.at == in.size || damaged();
}

static void expand(const range_set *set, ce_object_key *out)
{
    size_t at = 0;
    for (size_t r = 0; r < set->count; r++)
        for (int64_t key = set->items[r].first; key <= set->items[r].last; key++) out[at++] = key;
}

static int compare_tables(const void *a, const void *b)
{
    const delta_table *x = a, *y = b;
    return x->changes.table < y->changes.table ? -1 : x->changes.table > y->changes.table;
}

static int compare_columns(const void *a, const void *b)
{
    const column_changes *x = a, *y = b;
    return x->column < y->column ? -1 : x->column > y->column;
}

static int compare_key_values(const void *a, const void *b)
{
    const key_value *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Applies the merge rules: inserted then deleted = absent, inserted then
 * modified = inserted, modified then deleted = deleted. */
static bool finish_table(delta_table *table)
{
    range_set inserted = {0}, deleted = {0}, gone = {0}, modified = {0}, all = {0};
    ranges_normalize(&table->inserted);
    ranges_normalize(&table->deleted);
    bool ok = ranges_subtract(&table->inserted, &table->deleted, &inserted) &&
              ranges_subtract(&table->deleted, &table->inserted, &deleted) &&
              ranges_append_all(&gone, &table->inserted) && ranges_append_all(&gone, &table->deleted);
    ranges_normalize(&gone);
    size_t kept = 0, c = 0;
    for (; c < table->column_count && ok; c++) {
        column_changes *column = &table->columns[c];
        ranges_normalize(&column->keys);
        ok = ranges_subtract(&column->keys, &gone, &modified);
        if (!ok) break;
        range_set swap = column->keys;
        column->keys = modified;
        modified = swap;
        if (column->keys.count == 0) {
            free(column->keys.items);
            continue;
        }
        table->columns[kept++] = *column;
        ok = ranges_append_all(&all, &column->keys);
    }
    /* (On failure, the columns not reached yet keep their ranges.) */
    for (; c < table->column_count; c++) table->columns[kept++] = table->columns[c];
    table->column_count = kept;
    if (table->column_count > 1) qsort(table->columns, table->column_count, sizeof(column_changes), compare_columns);
    ranges_normalize(&all);
    size_t counts[3] = {ranges_total(&deleted), ranges_total(&inserted), ranges_total(&all)};
    if (ok) {
        table->arrays = malloc((counts[0] + counts[1] + counts[2] + 1) * sizeof(ce_object_key));
        if (!table->arrays) ok = out_of_memory();
    }
    if (ok) {
        expand(&deleted, table->arrays);
        expand(&inserted, table->arrays + counts[0]);
        expand(&all, table->arrays + counts[0] + counts[1]);
        table->changes.deleted = table->arrays;
        table->changes.deleted_count = counts[0];
        table->changes.inserted = table->arrays + counts[0];
        table->changes.inserted_count = counts[1];
        table->changes.modified = table->arrays + counts[0] + counts[1];
        table->changes.modified_count = counts[2];
        if (table->key_count > 1) qsort(table->keys, table->key_count, sizeof(key_value), compare_key_values);
    }
    free(inserted.items);
    free(deleted.items);
    free(gone.items);
    free(modified.items);
    free(all.items);
    return ok;
}

bool history_delta_load(ce_txn *txn, uint64_t from_version, history_delta **out_delta, bool *out_covered)
{
    if (!txn || !out_delta || !out_covered)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "history_delta_load: arguments are required");
    *out_delta = NULL;
    *out_covered = false;
    uint64_t to = ce_txn_version(txn);
    if (from_version > to)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "history_delta_load: version %llu is newer than the transaction's (%llu)",
                          (unsigned long long)from_version, (unsigned long long)to);
    space_ref root = db_txn_history(txn);
    root_view view = {0};
    if (from_version < to) {
        if (!root) return true;
        if (!read_root(db_txn_space(txn), root, &view)) return false;
        if (from_version < view.covered_since) {
            free(view.entries);
            return true;
        }
    }
    history_delta *delta = calloc(1, sizeof *delta);
    bool ok = delta != NULL || out_of_memory();
    size_t wanted = 0;
    for (size_t i = 0; i < view.count; i++) wanted += view.entries[i].version > from_version && view.entries[i].version <= to;
    if (ok && wanted) {
        delta->payloads = calloc(wanted, sizeof *delta->payloads);
        ok = delta->payloads != NULL || out_of_memory();
    }
    for (size_t i = 0; i < view.count && ok; i++) {
        if (view.entries[i].version <= from_version || view.entries[i].version > to) continue;
        node_view entry;
        ok = node_read(db_txn_space(txn), view.entries[i].entry, &entry);
        if (!ok) break;
        uint8_t *copy = malloc(entry.count + 1);
        if (!copy) {
            ok = out_of_memory();
            break;
        }
        memcpy(copy, entry.payload, entry.count);
        delta->payloads[delta->payload_count++] = copy;
        ok = load_entry(delta, copy, entry.count);
    }
    free(view.entries);
    for (size_t t = 0; t < (delta ? delta->table_count : 0) && ok; t++) ok = finish_table(&delta->tables[t]);
    if (ok && delta) {
        if (delta->table_count > 1) qsort(delta->tables, delta->table_count, sizeof(delta_table), compare_tables);
        if (delta->collection_count > 1)
            qsort(delta->collections, delta->collection_count, sizeof(delta_collection), compare_collections);
        for (size_t c = 0; c < delta->collection_count; c++) {
            delta->collections[c].changes.id.steps = delta->collections[c].steps;
            delta->collections[c].changes.ops = delta->collections[c].ops;
        }
    }
    if (!ok) {
        history_delta_free(delta);
        return false;
    }
    *out_delta = delta;
    *out_covered = true;
    return true;
}

/* --- accessors --- */

bool history_delta_schema_changed(const history_delta *delta) { return delta->schema_changed; }
size_t history_delta_schema_change_count(const history_delta *delta) { return delta->schema_count; }

const history_schema_change *history_delta_schema_change_at(const history_delta *delta, size_t index)
{
    return index < delta->schema_count ? &delta->schema[index] : NULL;
}

size_t history_delta_table_count(const history_delta *delta) { return delta->table_count; }

const history_table_changes *history_delta_table_at(const history_delta *delta, size_t index)
{
    return index < delta->table_count ? &delta->tables[index].changes : NULL;
}

static const delta_table *find_table(const history_delta *delta, ce_table_key key)
{
    size_t low = 0, high = delta->table_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (delta->tables[middle].changes.table < key) low = middle + 1;
        else high = middle;
    }
    return low < delta->table_count && delta->tables[low].changes.table == key ? &delta->tables[low] : NULL;
}

const history_table_changes *history_delta_find_table(const history_delta *delta, ce_table_key table)
{
    const delta_table *found = find_table(delta, table);
    return found ? &found->changes : NULL;
}

void history_delta_object_columns(const history_delta *delta, ce_table_key table, ce_object_key object,
                                  ce_column_key *out_columns, size_t capacity, size_t *out_count)
{
    const delta_table *found = find_table(delta, table);
    size_t count = 0;
    for (size_t c = 0; found && c < found->column_count; c++) {
        if (!ranges_contain(&found->columns[c].keys, object)) continue;
        if (out_columns && count < capacity) out_columns[count] = found->columns[c].column;
        count++;
    }
    if (out_count) *out_count = count;
}

bool history_delta_column_changed(const history_delta *delta, ce_table_key table, ce_object_key object,
                                  ce_column_key column)
{
    const delta_table *found = find_table(delta, table);
    for (size_t c = 0; found && c < found->column_count; c++)
        if (found->columns[c].column == column) return ranges_contain(&found->columns[c].keys, object);
    return false;
}

size_t history_delta_collection_count(const history_delta *delta) { return delta->collection_count; }

const history_collection_changes *history_delta_collection_at(const history_delta *delta, size_t index)
{
    return index < delta->collection_count ? &delta->collections[index].changes : NULL;
}

const history_collection_changes *history_delta_find_collection(const history_delta *delta,
                                                                const history_collection_id *id)
{
    byte_buffer wanted = {0};
    if (!put_collection_id(&wanted, id)) return NULL;
    size_t low = 0, high = delta->collection_count;
    op_ref key = {wanted.bytes, wanted.size, 0, 0, 0};
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        op_ref probe = {delta->collections[middle].id, delta->collections[middle].id_size, 0, 0, 0};
        if (compare_op_refs(&probe, &key) < 0) low = middle + 1;
        else high = middle;
    }
    const history_collection_changes *found = NULL;
    if (low < delta->collection_count && delta->collections[low].id_size == wanted.size &&
        memcmp(delta->collections[low].id, wanted.bytes, wanted.size) == 0)
        found = &delta->collections[low].changes;
    free(wanted.bytes);
    return found;
}

bool history_delta_primary_key(const history_delta *delta, ce_table_key table, ce_object_key object,
                               ce_value *out_value, bool *out_found)
{
    if (!delta || !out_value || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "history_delta_primary_key: arguments are required");
    *out_found = false;
    const delta_table *found = find_table(delta, table);
    if (!found) return true;
    for (size_t i = 0; i < found->follow_count; i++)
        if (object >= found->follows[i].first && object <= found->follows[i].last) {
            *out_value = (ce_value){.type = CE_TYPE_INT, .integer = object + found->follows[i].offset};
            *out_found = true;
            return true;
        }
    size_t low = 0, high = found->key_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (found->keys[middle].key < object) low = middle + 1;
        else high = middle;
    }
    if (low < found->key_count && found->keys[low].key == object) {
        *out_value = found->keys[low].value;
        *out_found = true;
    }
    return true;
}
