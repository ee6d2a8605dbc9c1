/*
 * history_delta.c — the merged delta of the change history between two
 * versions.
 *
 * Owns: reading the entries of versions (from, to] (every byte checked:
 * damage is CE_ERR_INVALID_DATABASE, never a crash), merging them by the
 * rules of history.h (inserted then deleted = absent, inserted then
 * modified = inserted, modified then deleted = deleted), and the delta's
 * accessors.
 * Never: writes the history (history.c), or reads the objects themselves.
 */
#include "history.h"
#include "buf.h"
#include "db.h"
#include "error.h"
#include "history_internal.h"
#include "node.h"

#include <stdlib.h>
#include <string.h>

typedef struct column_changes {
    ce_column_key column;
    history_ranges keys;
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
    history_ranges inserted, deleted; /* every key inserted / deleted in the range (before merging) */
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
static int64_t nth_key(const history_ranges *set, size_t *range_at, uint64_t *offset_at)
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

static bool load_primary_keys(history_reader *in, delta_table *table, const history_ranges *names)
{
    uint8_t mode;
    if (!history_get_u8(in, &mode)) return false;
    if (mode == 0) return true;
    if (mode != 1) return history_damaged();
    size_t runs, total = history_ranges_total(names), done = 0, range_at = 0;
    uint64_t offset_at = 0;
    if (!history_get_count(in, 2, &runs)) return false;
    for (size_t r = 0; r < runs; r++) {
        uint64_t count;
        uint8_t kind;
        if (!history_get_uv(in, &count) || !history_get_u8(in, &kind)) return false;
        if (count > total - done) return history_damaged();
        if (kind == 0) {
            int64_t offset;
            if (!history_get_sv(in, &offset)) return false;
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
            if (count > in->size - in->at) return history_damaged();
            for (uint64_t k = 0; k < count; k++) {
                key_value pair;
                pair.key = nth_key(names, &range_at, &offset_at);
                if (!history_get_value(in, &pair.value) ||
                    !buf_reserve((void **)&table->keys, &table->key_capacity, table->key_count + 1, sizeof(key_value)))
                    return false;
                table->keys[table->key_count++] = pair;
            }
        } else {
            return history_damaged();
        }
        done += (size_t)count;
    }
    return done == total || history_damaged();
}

static bool load_tables(history_reader *in, history_delta *delta)
{
    size_t count;
    if (!history_get_count(in, 4, &count)) return false;
    history_ranges inserted = {0}, deleted = {0}, names = {0}, keys = {0};
    bool ok = true;
    for (size_t t = 0; t < count && ok; t++) {
        uint64_t table_key;
        delta_table *table;
        size_t columns = 0;
        inserted.count = deleted.count = names.count = 0;
        ok = history_get_uv(in, &table_key) && (table_key <= UINT32_MAX || history_damaged()) &&
             delta_table_for(delta, (ce_table_key)table_key, &table) && history_get_ranges(in, &inserted) &&
             history_get_ranges(in, &deleted) && history_ranges_append(&table->inserted, &inserted) &&
             history_ranges_append(&table->deleted, &deleted) && history_ranges_append(&names, &inserted) &&
             history_ranges_append(&names, &deleted) && history_get_count(in, 2, &columns);
        for (size_t c = 0; c < columns && ok; c++) {
            uint64_t column_key;
            column_changes *column;
            keys.count = 0;
            ok = history_get_uv(in, &column_key) && (column_key <= UINT32_MAX || history_damaged()) && history_get_ranges(in, &keys) &&
                 delta_column_for(table, (ce_column_key)column_key, &column) && history_ranges_append(&column->keys, &keys) &&
                 history_ranges_append(&names, &keys);
        }
        if (!ok) break;
        history_ranges_normalize(&names);
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
    return history_compare_ids(x->id, x->id_size, y->id, y->id_size);
}

static bool read_collection_id(history_reader *in, history_collection_id *id, history_path_step **out_steps)
{
    uint64_t table, object, column;
    size_t depth;
    *out_steps = NULL;
    if (!history_get_uv(in, &table) || !history_get_uv(in, &object) || !history_get_uv(in, &column) || !history_get_count(in, 2, &depth)) return false;
    if (table > UINT32_MAX || column > UINT32_MAX || object > (uint64_t)INT64_MAX) return history_damaged();
    history_path_step *steps = depth ? calloc(depth, sizeof *steps) : NULL;
    if (depth && !steps) return history_out_of_memory();
    for (size_t i = 0; i < depth; i++) {
        uint8_t by_key;
        uint64_t value;
        const uint8_t *key;
        if (!history_get_u8(in, &by_key) || by_key > 1 || !history_get_uv(in, &value) ||
            (by_key && !history_get_bytes(in, (size_t)value, &key))) {
            free(steps);
            return ce_last_error_code() == CE_ERR_INVALID_DATABASE ? false : history_damaged();
        }
        steps[i] = by_key ? (history_path_step){true, 0, (const char *)key, (size_t)value}
                          : (history_path_step){false, value, NULL, 0};
    }
    *id = (history_collection_id){(ce_table_key)table, (ce_object_key)object, (ce_column_key)column, depth, steps};
    *out_steps = steps;
    return true;
}

static bool load_collections(history_reader *in, history_delta *delta)
{
    size_t count;
    if (!history_get_count(in, 5, &count)) return false;
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
        if (!history_get_count(in, 4, &ops)) return false;
        for (size_t k = 0; k < ops; k++) {
            uint8_t kind;
            uint64_t a, b, key_size;
            const uint8_t *key;
            if (!history_get_u8(in, &kind) || !history_get_uv(in, &a) || !history_get_uv(in, &b) || !history_get_uv(in, &key_size) ||
                !history_get_bytes(in, (size_t)key_size, &key))
                return false;
            if (kind >= HISTORY_OP_KIND_COUNT) return history_damaged();
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
    history_reader in = {bytes, size, 0};
    uint8_t format;
    size_t schema_count;
    if (!history_get_u8(&in, &format)) return false;
    if (format != HISTORY_FORMAT) return history_damaged();
    if (!history_get_count(&in, 3, &schema_count)) return false;
    for (size_t i = 0; i < schema_count; i++) {
        uint8_t kind;
        uint64_t table, column;
        if (!history_get_u8(&in, &kind) || !history_get_uv(&in, &table) || !history_get_uv(&in, &column)) return false;
        if (kind < HISTORY_TABLE_ADDED || kind > HISTORY_PROPERTY_REMOVED || table > UINT32_MAX || column > UINT32_MAX)
            return history_damaged();
        if (!buf_reserve((void **)&delta->schema, &delta->schema_capacity, delta->schema_count + 1,
                         sizeof(history_schema_change)))
            return false;
        delta->schema[delta->schema_count++] =
            (history_schema_change){(history_schema_kind)kind, (ce_table_key)table, (ce_column_key)column};
        delta->schema_changed = true;
    }
    if (!load_tables(&in, delta) || !load_collections(&in, delta)) return false;
    return in.at == in.size || history_damaged();
}

static void expand(const history_ranges *set, ce_object_key *out)
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

static int compare_follow_runs(const void *a, const void *b)
{
    const follow_run *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Applies the merge rules: inserted then deleted = absent, inserted then
 * modified = inserted, modified then deleted = deleted. */
static bool finish_table(delta_table *table)
{
    history_ranges inserted = {0}, deleted = {0}, gone = {0}, modified = {0}, all = {0};
    history_ranges_normalize(&table->inserted);
    history_ranges_normalize(&table->deleted);
    bool ok = history_ranges_subtract(&table->inserted, &table->deleted, &inserted) &&
              history_ranges_subtract(&table->deleted, &table->inserted, &deleted) &&
              history_ranges_append(&gone, &table->inserted) && history_ranges_append(&gone, &table->deleted);
    history_ranges_normalize(&gone);
    size_t kept = 0, c = 0;
    for (; c < table->column_count && ok; c++) {
        column_changes *column = &table->columns[c];
        history_ranges_normalize(&column->keys);
        ok = history_ranges_subtract(&column->keys, &gone, &modified);
        if (!ok) break;
        history_ranges swap = column->keys;
        column->keys = modified;
        modified = swap;
        if (column->keys.count == 0) {
            free(column->keys.items);
            continue;
        }
        table->columns[kept++] = *column;
        ok = history_ranges_append(&all, &column->keys);
    }
    /* (On failure, the columns not reached yet keep their ranges.) */
    for (; c < table->column_count; c++) table->columns[kept++] = table->columns[c];
    table->column_count = kept;
    if (table->column_count > 1) qsort(table->columns, table->column_count, sizeof(column_changes), compare_columns);
    history_ranges_normalize(&all);
    size_t counts[3] = {history_ranges_total(&deleted), history_ranges_total(&inserted), history_ranges_total(&all)};
    if (ok) {
        table->arrays = malloc((counts[0] + counts[1] + counts[2] + 1) * sizeof(ce_object_key));
        if (!table->arrays) ok = history_out_of_memory();
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
        /* Follow runs by first key, overlapping ones (several entries
         * name an object) merged: a lookup is a binary search. */
        if (table->follow_count > 1) {
            qsort(table->follows, table->follow_count, sizeof(follow_run), compare_follow_runs);
            size_t out = 0;
            for (size_t i = 1; i < table->follow_count; i++) {
                follow_run *last = &table->follows[out];
                if (table->follows[i].offset == last->offset && table->follows[i].first <= last->last + 1) {
                    if (table->follows[i].last > last->last) last->last = table->follows[i].last;
                } else {
                    table->follows[++out] = table->follows[i];
                }
            }
            table->follow_count = out + 1;
        }
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
    history_root view = {0};
    if (from_version < to) {
        if (!root) return true;
        if (!history_read_root(db_txn_space(txn), root, &view)) return false;
        if (from_version < view.covered_since) {
            free(view.entries);
            return true;
        }
    }
    history_delta *delta = calloc(1, sizeof *delta);
    bool ok = delta != NULL || history_out_of_memory();
    size_t wanted = 0;
    for (size_t i = 0; i < view.count; i++) wanted += view.entries[i].version > from_version && view.entries[i].version <= to;
    if (ok && wanted) {
        delta->payloads = calloc(wanted, sizeof *delta->payloads);
        ok = delta->payloads != NULL || history_out_of_memory();
    }
    for (size_t i = 0; i < view.count && ok; i++) {
        if (view.entries[i].version <= from_version || view.entries[i].version > to) continue;
        node_view entry;
        ok = node_read(db_txn_space(txn), view.entries[i].entry, &entry);
        if (!ok) break;
        uint8_t *copy = malloc(entry.count + 1);
        if (!copy) {
            ok = history_out_of_memory();
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
        if (!history_ranges_contain(&found->columns[c].keys, object)) continue;
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
        if (found->columns[c].column == column) return history_ranges_contain(&found->columns[c].keys, object);
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
    history_buffer wanted = {0};
    if (!history_put_collection_id(&wanted, id)) return NULL;
    size_t low = 0, high = delta->collection_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (history_compare_ids(delta->collections[middle].id, delta->collections[middle].id_size, wanted.bytes,
                                wanted.size) < 0)
            low = middle + 1;
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
    size_t low = 0, high = found->follow_count; /* the first run that starts after the object */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (found->follows[middle].first <= object) low = middle + 1;
        else high = middle;
    }
    if (low > 0 && object <= found->follows[low - 1].last) {
        *out_value = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)((uint64_t)object + (uint64_t)found->follows[low - 1].offset)};
        *out_found = true;
        return true;
    }
    low = 0;
    high = found->key_count;
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
