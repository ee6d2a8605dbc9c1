/*
 * gather.c — the values a bound path yields from one object, read through
 * the object API: its own property, or through to-one links, lists, sets
 * and dictionaries of links and backlinks, to a property, the objects
 * reached, a collection's elements or a dictionary's keys or entry; and
 * those values reduced by the path's @count, @sum, @avg, @min or @max.
 *
 * Owns: value bags (values with copies of their bytes, which outlive the
 * next read).
 * Never: reads a column directly (eval.c reads the local ones), or changes
 * data.
 */
#include "gather.h"
#include "aggregate.h"
#include "buf.h"
#include "compare.h"
#include "query_internal.h"
#include "table.h"

#include <stdlib.h>
#include <string.h>

void gather_bag_clear(value_bag *bag)
{
    for (size_t i = 0; i < bag->copy_count; i++) free(bag->copies[i]);
    bag->copy_count = 0;
    bag->count = 0;
}

void gather_bag_free(value_bag *bag)
{
    gather_bag_clear(bag);
    free(bag->values);
    free(bag->copies);
    memset(bag, 0, sizeof *bag);
}

bool gather_bag_push(value_bag *bag, const ce_value *value)
{
    if (!buf_reserve((void **)&bag->values, &bag->capacity, bag->count + 1, sizeof *bag->values)) return false;
    ce_value copy = *value;
    if (compare_is_text(value->type)) {
        const char *data;
        size_t size;
        compare_text_of(value, &data, &size);
        if (!buf_reserve((void **)&bag->copies, &bag->copy_capacity, bag->copy_count + 1, sizeof *bag->copies)) return false;
        char *bytes = malloc(size + 1);
        if (!bytes) return query_out_of_memory();
        if (size) memcpy(bytes, data, size);
        bag->copies[bag->copy_count++] = bytes;
        if (value->type == CE_TYPE_STRING) copy.string.data = bytes;
        else copy.binary.data = (const uint8_t *)bytes;
    }
    bag->values[bag->count++] = copy;
    return true;
}

/* The values of a path's final step at object (table, key). */
static bool gather_final(ce_txn *txn, const bound_path *path, ce_table_key table, ce_object_key key, value_bag *bag)
{
    ce_value value;
    switch (path->final) {
    case FINAL_OBJECT:
        value = (ce_value){.type = CE_TYPE_LINK, .link = {table, key}};
        return gather_bag_push(bag, &value);
    case FINAL_COLUMN:
        if (!ce_object_get(txn, table, key, path->column, &value)) return false;
        if (path->size_of && compare_is_text(value.type)) {
            const char *data;
            size_t size;
            compare_text_of(&value, &data, &size);
            value = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)size};
        }
        return gather_bag_push(bag, &value);
    case FINAL_COLLECTION:
    case FINAL_KEYS:
    case FINAL_ENTRY: {
        ce_collection *collection;
        if (!ce_collection_open(txn, table, key, path->column, &collection)) return false;
        bool ok = true;
        if (path->final == FINAL_ENTRY) {
            bool found;
            ok = ce_dictionary_get(collection, path->entry_key, path->entry_key_size, &value, &found);
            if (ok && !found) value = (ce_value){.type = CE_TYPE_NULL};
            if (ok) ok = gather_bag_push(bag, &value);
        } else {
            table_collection_reader *reader = NULL;
            size_t size;
            ok = table_collection_reader_open(collection, path->final == FINAL_KEYS, &reader, &size);
            for (size_t i = 0; ok && i < size; i++)
                ok = table_collection_reader_get(reader, i, &value) && gather_bag_push(bag, &value);
            table_collection_reader_close(reader);
        }
        ce_collection_close(collection);
        return ok;
    }
    }
    return true;
}

bool gather_path(ce_txn *txn, const bound_path *path, size_t hop, ce_table_key table, ce_object_key key,
                 value_bag *bag)
{
    if (hop == path->hop_count) return gather_final(txn, path, table, key, bag);
    const path_hop *h = &path->hops[hop];
    switch (h->kind) {
    case HOP_LINK: {
        ce_value link;
        if (!ce_object_get(txn, table, key, h->column, &link)) return false;
        if (link.type == CE_TYPE_LINK) return gather_path(txn, path, hop + 1, h->to, link.link.key, bag);
        if (path->multi) return true;
        ce_value null = {.type = CE_TYPE_NULL};
        return gather_bag_push(bag, &null);
    }
    case HOP_LINKS: {
        ce_collection *collection;
        table_collection_reader *reader = NULL;
        size_t size;
        if (!ce_collection_open(txn, table, key, h->column, &collection)) return false;
        bool ok = table_collection_reader_open(collection, false, &reader, &size);
        for (size_t i = 0; ok && i < size; i++) {
            ce_value link;
            ok = table_collection_reader_get(reader, i, &link);
            if (ok && link.type == CE_TYPE_LINK) ok = gather_path(txn, path, hop + 1, h->to, link.link.key, bag);
        }
        table_collection_reader_close(reader);
        ce_collection_close(collection);
        return ok;
    }
    case HOP_BACKLINKS: {
        size_t count;
        if (!ce_object_backlink_count(txn, table, key, h->to, h->column, &count)) return false;
        for (size_t i = 0; i < count; i++) {
            ce_object_key origin;
            if (!ce_object_backlink_at(txn, table, key, h->to, h->column, i, &origin) ||
                !gather_path(txn, path, hop + 1, h->to, origin, bag))
                return false;
        }
        return true;
    }
    }
    return true;
}

bool gather_aggregate(const bound_path *path, value_bag *bag)
{
    if (path->aggregate == PATH_ALL_VALUES) return true;
    ce_value result;
    if (path->aggregate == PATH_COUNT) {
        result = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)bag->count};
    } else {
        aggregator a;
        static const ce_aggregate kinds[] = {CE_AGGREGATE_COUNT, CE_AGGREGATE_COUNT, CE_AGGREGATE_SUM,
                                             CE_AGGREGATE_AVG, CE_AGGREGATE_MIN, CE_AGGREGATE_MAX};
        aggregate_init(&a, kinds[path->aggregate], path->type);
        for (size_t i = 0; i < bag->count; i++) aggregate_add(&a, &bag->values[i]);
        aggregate_result(&a, &result);
        /* Min and max hand out one of the values, whose bytes the bag keeps:
         * numbers and timestamps only, so nothing to keep. */
    }
    bag->count = 0;
    return gather_bag_push(bag, &result);
}

