/*
 * ops_schema.c — fuzz_ops's schema operations: tables (plain and embedded)
 * and properties added and removed, a property's index set or dropped.
 *
 * Owns: applying a decoded schema step to the engine and, when it
 * succeeds, to the model, with the checks that follow it.
 * Never: reads the input but through decode.h, or holds state of its own
 * (the runner, ops.h, holds the run's).
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_TABLE_SLOTS = 12,    /* add_table is skipped when the model has this many slots */
    MAX_PROPERTY_SLOTS = 20, /* per table, for add_property */
};

void ops_schema_add_table(runner *run, bool embedded)
{
    char name[80];
    decode_name(&run->in, name);
    ce_txn *txn = ops_transaction(run);
    bool valid = decode_name_is_valid(name);
    if (check_verbose) fprintf(stderr, "fuzz_ops:   name '%s' (%zu bytes, %s)\n", name, strlen(name), valid ? "valid" : "invalid");
    error_set expected = ops_write_errors(run) | (valid ? 0 : ERR(CE_ERR_INVALID_ARGUMENT)) |
                         (valid && model_table_named(&run->current, name) ? ERR(CE_ERR_DUPLICATE_NAME) : 0);
    if (!expected && run->current.table_count >= MAX_TABLE_SLOTS) return;
    ce_table_key key = UINT32_MAX;
    size_t count;
    if (embedded ? EXPECT(expected, ce_table_add_embedded(txn, name, &key)) : EXPECT(expected, ce_table_add(txn, name, &key))) {
        CHECK(key == run->current.table_count, "ce_table_add: the new table is not in the next slot");
        model_add_table(&run->current, name, embedded);
        check_table(txn, &run->current, key, 0);
    }
    MUST(ce_table_count(txn, &count));
    CHECK(count == run->current.table_count, "ce_table_count differs from the model");
    if (valid) {
        ce_table_key found_key;
        bool found;
        const model_table *table = model_table_named(&run->current, name);
        MUST(ce_table_find(txn, name, &found_key, &found));
        CHECK(found == (table != NULL) && (!found || found_key == (ce_table_key)(table - run->current.tables)),
              "ce_table_find differs from the model");
    }
}

void ops_schema_remove_table(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    ce_txn *txn = ops_transaction(run);
    model_table *table = model_live_table(&run->current, key);
    error_set expected = ops_write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE));
    if (table && model_table_is_link_target(&run->current, key)) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    char name[MODEL_NAME_CAPACITY] = "";
    if (table) snprintf(name, sizeof name, "%s", table->name);
    if (EXPECT(expected, ce_table_remove(txn, key))) model_remove_table_with_links(&run->current, key);
    size_t count;
    MUST(ce_table_count(txn, &count));
    CHECK(count == run->current.table_count, "ce_table_count: a removed table must keep its slot");
    check_table(txn, &run->current, key, 2);
    if (name[0]) {
        ce_table_key found_key;
        bool found;
        MUST(ce_table_find(txn, name, &found_key, &found));
        CHECK(found == (model_table_named(&run->current, name) != NULL), "ce_table_find differs from the model");
    }
}

/* The errors of adding a property (cengine.h, "Schema"). */
static error_set add_property_errors(const model *state, const model_table *table, const ce_property_info *info)
{
    error_set expected = 0;
    if (model_property_named(table, info->name) >= 0) expected |= ERR(CE_ERR_DUPLICATE_NAME);
    if (info->type < CE_TYPE_INT || info->type > CE_TYPE_LINK || (unsigned)info->collection > CE_COLLECTION_DICTIONARY)
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    bool single = info->collection == CE_COLLECTION_NONE, keyed = info->primary_key || info->indexed;
    if (keyed && (!single || info->type == CE_TYPE_LINK || info->type == CE_TYPE_MIXED || table->embedded))
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    if (info->indexed && !info->primary_key && !model_is_indexable_type(info->type)) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    if (info->type == CE_TYPE_LINK) {
        const model_table *target = model_live_table(state, info->link_target);
        if (!target) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
        /* A to-one link and a dictionary of links hold null (a deleted
         * target leaves it), a list or set of links never does. */
        bool nullable_wanted = single || info->collection == CE_COLLECTION_DICTIONARY;
        if (info->nullable != nullable_wanted) expected |= ERR(CE_ERR_INVALID_SCHEMA);
        if (target && target->embedded && info->collection == CE_COLLECTION_SET) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    }
    if (info->primary_key && (!model_is_primary_key_type(info->type) || model_primary_key_of(table) >= 0 || table->object_count))
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    return expected;
}

/* A property: a type (any storable one, links with a target table, mixed,
 * or one the engine cannot store), a collection kind, flags. Bit 7 of the
 * flags makes a link's nullability what its kind needs. */
void ops_schema_add_property(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    char name[80];
    decode_name(&run->in, name);
    uint8_t type_choice = decode_u8(&run->in.input), flags = decode_u8(&run->in.input);
    static const ce_type unstorable[] = {CE_TYPE_NULL, CE_TYPE_LIST, CE_TYPE_DICTIONARY, (ce_type)15, (ce_type)99};
    ce_property_info info = {.name = name,
                             .type = type_choice < 0xF0 ? (ce_type)(1 + type_choice % 12) : unstorable[type_choice % 5],
                             .nullable = flags & 1, .primary_key = (flags & 6) == 6, .indexed = (flags & 8) != 0,
                             .collection = (ce_collection_type)((flags & 0x40 ? 4 : 0) + (flags >> 4 & 3))};
    if (info.type == CE_TYPE_LINK) {
        info.link_target = decode_table(&run->in);
        if (flags & 0x80)
            info.nullable = info.collection == CE_COLLECTION_NONE || info.collection == CE_COLLECTION_DICTIONARY;
    }
    ce_txn *txn = ops_transaction(run);
    model_table *table = model_live_table(&run->current, key);
    bool valid = decode_name_is_valid(name);
    error_set expected = ops_write_errors(run) | (valid ? 0 : ERR(CE_ERR_INVALID_ARGUMENT));
    if (!table) {
        expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    } else {
        if (valid) expected |= add_property_errors(&run->current, table, &info);
        if (!expected && table->property_count >= MAX_PROPERTY_SLOTS) return;
    }
    size_t before = table ? table->property_count : 0, count;
    ce_column_key column = UINT32_MAX;
    if (EXPECT(expected, ce_property_add(txn, key, &info, &column))) {
        CHECK(column == before, "ce_property_add: the new property is not in the next slot");
        model_add_property(table, &info);
        if (info.type == CE_TYPE_LINK) model_ensure_backlink(&run->current, info.link_target, key, column);
        check_property_info(txn, table, key, column);
        /* Existing objects have the initial value: the first, the last and
         * one in the middle. */
        size_t checked = table->object_count < 3 ? table->object_count : 3;
        for (size_t i = 0; i < checked; i++) check_object(txn, &run->current, table, key, check_spread(i, checked, table->object_count));
        if (info.type == CE_TYPE_LINK) check_table(txn, &run->current, info.link_target, 0);
    }
    if (table) {
        MUST(ce_property_count(txn, key, &count));
        CHECK(count == table->property_count, "ce_property_count differs from the model");
    }
}

void ops_schema_remove_property(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_column_key column = decode_column(&run->in, table);
    ce_txn *txn = ops_transaction(run);
    const model_property *property = model_live_property(table, column);
    error_set expected =
        ops_write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE)) | (property ? 0 : ERR(CE_ERR_NO_SUCH_PROPERTY));
    if (!table) expected &= ~ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (property && property->backlink) expected |= ERR(CE_ERR_INVALID_ARGUMENT); /* it goes with its link property */
    bool was_primary_key = property && property->primary_key;
    model_slot old_key = {{.type = CE_TYPE_NULL}, NULL, NULL};
    if (was_primary_key && table->object_count) old_key = model_store_value(&model_value_at(table, 0, column)->value);
    if (EXPECT(expected, ce_property_remove(txn, key, column))) {
        char name[MODEL_PROPERTY_NAME_CAPACITY];
        snprintf(name, sizeof name, "%s", property ? property->name : ""); /* a success had a property */
        bool links = model_holds_links(property);
        ce_table_key target = property->link_target;
        if (links) model_clear_link_property(&run->current, key, column);
        model_remove_property(table, column);
        check_property_info(txn, table, key, column);
        if (links && property->type == CE_TYPE_LINK) check_table(txn, &run->current, target, 4);
        ce_column_key found_column;
        bool found;
        MUST(ce_property_find(txn, key, name, &found_column, &found));
        CHECK(!found, "ce_property_find finds a removed property");
        ce_value value;
        if (table->object_count)
            EXPECT(ERR(CE_ERR_NO_SUCH_PROPERTY), ce_object_get(txn, key, table->keys[0], column, &value));
        if (was_primary_key && table->object_count) {
            /* The table has no primary key now: finding by one is an error. */
            ce_object_key object;
            EXPECT(ERR(CE_ERR_INVALID_ARGUMENT), ce_object_find_primary_key(txn, key, &old_key.value, &object, &found));
        }
    } else if (table) {
        check_table(txn, &run->current, key, 2);
    }
    model_release_value(&old_key);
}

/* ce_property_set_indexed: the rules of an indexed property are those of
 * ce_property_add; the primary key keeps its index; no change is no error. */
void ops_schema_set_indexed(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_column_key column = decode_column(&run->in, table);
    bool indexed = decode_u8(&run->in.input) & 1;
    ce_txn *txn = ops_transaction(run);
    model_property *property = model_live_property(table, column) ? &table->properties[column] : NULL;
    error_set expected =
        ops_write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE)) | (property ? 0 : ERR(CE_ERR_NO_SUCH_PROPERTY));
    if (!table) expected &= ~ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (property && property->backlink) {
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    } else if (property && property->primary_key) {
        if (!indexed) expected |= ERR(CE_ERR_INVALID_SCHEMA);
    } else if (property && property->indexed != indexed && indexed &&
               (property->collection != CE_COLLECTION_NONE || property->type == CE_TYPE_LINK ||
                property->type == CE_TYPE_MIXED || table->embedded || !model_is_indexable_type(property->type))) {
        expected |= ERR(CE_ERR_INVALID_SCHEMA);
    }
    if (EXPECT(expected, ce_property_set_indexed(txn, key, column, indexed))) {
        if (!property->primary_key) property->indexed = indexed;
        check_property_info(txn, table, key, column);
        check_table(txn, &run->current, key, 2);
    } else if (table) {
        check_table(txn, &run->current, key, 2);
    }
}
