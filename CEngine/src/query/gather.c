/*
 * gather.c — the values a bound path yields from one object, read through
 * the object API: its own property, or through to-one links, lists, sets
 * and dictionaries of links (every target, or the one a subscript names)
 * and backlinks, to a property, the objects reached, a collection's
 * elements (or the one an index names) or a dictionary's keys or entry,
 * their @type names, or into the lists and dictionaries a mixed value
 * holds; and those values reduced by the path's @count, @sum, @avg, @min
 * or @max (once per collection when the path reaches collections through
 * a link to many objects: path_per_collection, query_internal.h).
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

const char *gather_type_name(ce_type type)
{
    switch (type) {
    case CE_TYPE_NULL: return "null";
    case CE_TYPE_INT: return "int";
    case CE_TYPE_BOOL: return "bool";
    case CE_TYPE_STRING: return "string";
    case CE_TYPE_BINARY: return "binary";
    case CE_TYPE_TIMESTAMP: return "date";
    case CE_TYPE_FLOAT: return "float";
    case CE_TYPE_DOUBLE: return "double";
    case CE_TYPE_DECIMAL128: return "decimal";
    case CE_TYPE_OBJECT_ID: return "objectid";
    case CE_TYPE_UUID: return "uuid";
    case CE_TYPE_LINK: return "object";
    case CE_TYPE_LIST: return "list";
    case CE_TYPE_DICTIONARY: return "dictionary";
    default: return "mixed";
    }
}

/* Where a mixed value lies, to open the collection it holds: the property
 * itself (parent NULL), or the element `at` of a nested collection. */
typedef struct mixed_place {
    ce_txn *txn;
    ce_table_key table;
    ce_object_key key;
    ce_column_key column;
    const ce_collection *parent;
    const ce_value *at;
    bool property_collection; /* the property is a list or dictionary of mixed values */
} mixed_place;

static bool mixed_open(const mixed_place *place, ce_collection **out)
{
    if (place->parent) return ce_collection_open_nested(place->parent, place->at, out);
    if (place->property_collection) return ce_collection_open(place->txn, place->table, place->key, place->column, out);
    return ce_collection_open_mixed(place->txn, place->table, place->key, place->column, out);
}

static bool mixed_walk(const bound_path *path, size_t step, const mixed_place *place, const ce_value *value, value_bag *bag);

/* A key step from a mixed value that links to an object: the object's
 * property of that name, if it has one holding one value (realm-core's
 * Collection::get_any goes on from a typed link by property name). */
static bool mixed_walk_object(const bound_path *path, size_t step, ce_txn *txn, const ce_link *link, value_bag *bag)
{
    const path_step *s = &path->mixed_steps[step];
    table_property property;
    bool found;
    if (!table_find_property(txn, link->table, s->key, s->key_size, &property, &found)) return false;
    if (!found || property.collection != CE_COLLECTION_NONE) return true;
    ce_value value;
    if (!ce_object_get(txn, link->table, link->key, property.column, &value)) return false;
    mixed_place next = {txn, link->table, link->key, property.column, NULL, NULL, false};
    return mixed_walk(path, step + 1, &next, &value, bag);
}

/* What the path's mixed steps from `step` on reach from `value` (found at
 * `place`), added to the bag. */
static bool mixed_walk(const bound_path *path, size_t step, const mixed_place *place, const ce_value *value, value_bag *bag)
{
    bool nested = value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY;
    if (step == path->mixed_step_count) {
        if (path->mixed_final == MIXED_FINAL_TYPE) {
            const char *name = gather_type_name(value->type);
            ce_value text = {.type = CE_TYPE_STRING, .string = {name, strlen(name)}};
            return gather_bag_push(bag, &text);
        }
        if (path->mixed_final == MIXED_FINAL_VALUE) return gather_bag_push(bag, value);
        if (!nested) return true;
    } else if (value->type == CE_TYPE_LINK && path->mixed_steps[step].kind == STEP_KEY) {
        return mixed_walk_object(path, step, place->txn, &value->link, bag);
    } else if (!nested) {
        return true; /* a step into a value that holds no collection reaches nothing */
    }
    ce_collection *collection;
    if (!mixed_open(place, &collection)) return false;
    size_t size;
    bool ok = ce_collection_size(collection, &size);
    if (ok && step == path->mixed_step_count) {
        ce_value count = {.type = CE_TYPE_INT, .integer = (int64_t)size};
        ok = gather_bag_push(bag, &count);
        ce_collection_close(collection);
        return ok;
    }
    const path_step *s = &path->mixed_steps[step];
    bool dictionary = value->type == CE_TYPE_DICTIONARY;
    ce_value element;
    if (!ok) {
    } else if (s->kind == STEP_KEY) {
        /* A list has no keys. A dictionary without the key reads null at
         * the end of the path, and reaches nothing before it; an empty
         * dictionary reaches nothing (realm-core's Collection::get_any,
         * collection.cpp). */
        bool found = false;
        if (dictionary && size) ok = ce_dictionary_get(collection, s->key, s->key_size, &element, &found);
        if (ok && dictionary && size && (found || step + 1 == path->mixed_step_count)) {
            if (!found) element = (ce_value){.type = CE_TYPE_NULL};
            ce_value at = {.type = CE_TYPE_STRING, .string = {s->key, s->key_size}};
            mixed_place next = {place->txn, 0, 0, 0, collection, &at, false};
            ok = mixed_walk(path, step + 1, &next, &element, bag);
        }
    } else if (s->kind == STEP_INDEX) {
        size_t index;
        if (!dictionary && path_step_position(s, size, &index)) {
            ok = ce_collection_get(collection, index, &element);
            ce_value at = {.type = CE_TYPE_INT, .integer = (int64_t)index};
            mixed_place next = {place->txn, 0, 0, 0, collection, &at, false};
            if (ok) ok = mixed_walk(path, step + 1, &next, &element, bag);
        }
    } else {
        for (size_t i = 0; ok && i < size; i++) {
            /* A dictionary's key is copied: the reads below reuse the bytes. */
            char *key = NULL;
            ce_value at = {.type = CE_TYPE_INT, .integer = (int64_t)i};
            if (dictionary) {
                ce_value read;
                ok = ce_dictionary_key_at(collection, i, &read);
                if (ok && !(key = malloc(read.string.size + 1))) ok = query_out_of_memory();
                if (ok) {
                    if (read.string.size) memcpy(key, read.string.data, read.string.size);
                    at = (ce_value){.type = CE_TYPE_STRING, .string = {key, read.string.size}};
                }
            }
            if (ok) ok = ce_collection_get(collection, i, &element);
            mixed_place next = {place->txn, 0, 0, 0, collection, &at, false};
            if (ok) ok = mixed_walk(path, step + 1, &next, &element, bag);
            free(key);
        }
    }
    ce_collection_close(collection);
    return ok;
}

/* The values of a path's final step at object (table, key). */
static bool gather_final(ce_txn *txn, const bound_path *path, ce_table_key table, ce_object_key key, value_bag *bag)
{
    ce_value value;
    switch (path->final) {
    case FINAL_OBJECT:
        value = (ce_value){.type = CE_TYPE_LINK, .link = {table, key}};
        return gather_bag_push(bag, &value);
    case FINAL_TYPE:
        value = (ce_value){.type = CE_TYPE_STRING, .string = {path->type_name, strlen(path->type_name)}};
        return gather_bag_push(bag, &value);
    case FINAL_BACKLINKS: {
        size_t count;
        if (!ce_object_backlink_total(txn, table, key, &count)) return false;
        value = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)count};
        return gather_bag_push(bag, &value);
    }
    case FINAL_COLUMN:
        if (!ce_object_get(txn, table, key, path->column, &value)) return false;
        if (path->size_of && compare_is_text(value.type)) {
            const char *data;
            size_t size;
            compare_text_of(&value, &data, &size);
            value = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)size};
        }
        return gather_bag_push(bag, &value);
    case FINAL_MIXED: {
        /* A list or dictionary of mixed values: the steps start at it. */
        mixed_place place = {txn, table, key, path->column, NULL, NULL, path->mixed_root != CE_TYPE_NULL};
        if (path->mixed_root != CE_TYPE_NULL) value = (ce_value){.type = path->mixed_root};
        else if (!ce_object_get(txn, table, key, path->column, &value)) return false;
        return mixed_walk(path, 0, &place, &value, bag);
    }
    case FINAL_COLLECTION:
    case FINAL_KEYS:
    case FINAL_ENTRY: {
        if (path_per_collection(path)) {
            /* realm-core reads one list per object a link to many reaches
             * (ColumnListBase::get_lists, query_expression.cpp: one list
             * ref per linked object) and sizes or aggregates each (SizeOperator,
             * ListColumnAggregate): one value per collection, compared ANY. */
            bound_path whole = *path;
            whole.hop_count = 0;
            value_bag own = {0};
            bool ok = gather_final(txn, &whole, table, key, &own) && gather_aggregate(&whole, &own) &&
                      gather_bag_push(bag, &own.values[0]);
            gather_bag_free(&own);
            return ok;
        }
        ce_collection *collection;
        if (!ce_collection_open(txn, table, key, path->column, &collection)) return false;
        bool ok = true;
        if (path->final == FINAL_ENTRY) {
            bool found;
            ok = ce_dictionary_get(collection, path->entry_key, path->entry_key_size, &value, &found);
            if (ok && !found) value = (ce_value){.type = CE_TYPE_NULL};
            if (ok && path->element_type) {
                const char *name = gather_type_name(value.type);
                value = (ce_value){.type = CE_TYPE_STRING, .string = {name, strlen(name)}};
            }
            if (ok) ok = gather_bag_push(bag, &value);
        } else {
            table_collection_reader *reader = NULL;
            size_t size, first = 0, end = 0;
            ok = table_collection_reader_open(collection, path->final == FINAL_KEYS, &reader, &size);
            if (ok) end = size;
            /* list[0], list[LAST]: the one element (nothing out of range). */
            if (ok && path->element.kind == STEP_INDEX) {
                if (path_step_position(&path->element, size, &first)) end = first + 1;
                else end = 0;
            }
            for (size_t i = first; ok && i < end; i++) {
                ok = table_collection_reader_get(reader, i, &value);
                /* strings.length: each element's length, a null string's 0
                 * (realm-core's ColumnListElementLength; test_parser.cpp,
                 * Parser_list_of_primitive_strings: {null} has length 0); of
                 * a list of mixed values, its strings' and binaries' lengths
                 * (nothing else has one: null). */
                if (ok && path->size_of) {
                    if (compare_is_text(value.type)) {
                        const char *data;
                        size_t text_size;
                        compare_text_of(&value, &data, &text_size);
                        value = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)text_size};
                    } else if (value.type == CE_TYPE_NULL && path->type != CE_TYPE_MIXED) {
                        value = (ce_value){.type = CE_TYPE_INT, .integer = 0};
                    } else {
                        value = (ce_value){.type = CE_TYPE_NULL};
                    }
                }
                if (ok && path->element_type) {
                    const char *name = gather_type_name(value.type);
                    value = (ce_value){.type = CE_TYPE_STRING, .string = {name, strlen(name)}};
                }
                if (ok) ok = gather_bag_push(bag, &value);
            }
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
        size_t size, first = 0;
        if (!ce_collection_open(txn, table, key, h->column, &collection)) return false;
        if (h->select.kind == STEP_KEY) {
            /* dict['key'].property: the one object (null when the key is
             * absent or its link null, as a to-one link reads). */
            ce_value link;
            bool found;
            bool ok = ce_dictionary_get(collection, h->select.key, h->select.key_size, &link, &found);
            ce_collection_close(collection);
            if (!ok) return false;
            if (found && link.type == CE_TYPE_LINK) return gather_path(txn, path, hop + 1, h->to, link.link.key, bag);
            if (path->multi) return true;
            ce_value null = {.type = CE_TYPE_NULL};
            return gather_bag_push(bag, &null);
        }
        bool ok = table_collection_reader_open(collection, false, &reader, &size);
        /* list[0].property, list[LAST].property: the one object. */
        if (ok && h->select.kind == STEP_INDEX) {
            if (path_step_position(&h->select, size, &first)) size = first + 1;
            else size = 0;
        }
        for (size_t i = first; ok && i < size; i++) {
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
    if (path->aggregate == PATH_ALL_VALUES || path_per_collection(path)) return true;
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

