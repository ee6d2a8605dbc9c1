/*
 * ops_objects.c — fuzz_ops's object operations: creates (one by one, with
 * all their values, by create_or_update under each policy, many at once),
 * deletes, sets (one, or runs of them among creates and deletes) and gets,
 * finds by primary key and by value, counts, keys
 * and existence, embedded objects created through their parent, backlinks.
 *
 * Owns: applying a decoded object step to the engine and, when it
 * succeeds, to the model, with the checks that follow it, and the rules of
 * which errors a create may fail with.
 * Never: reads the input but through decode.h, holds state of its own (the
 * runner, ops.h, holds the run's), or edits collections (ops_collections.c).
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Creates                                                                   */
/* ------------------------------------------------------------------------ */

/* The errors of creating an object in `table` with `primary_key` (NULL: no
 * key given). */
static error_set create_errors(const runner *run, const model_table *table, const ce_value *primary_key)
{
    error_set expected = ops_write_errors(run);
    if (!table) return expected | ERR(CE_ERR_NO_SUCH_TABLE);
    if (table->embedded) return expected | ERR(CE_ERR_EMBEDDED_OBJECT); /* created through a parent only */
    long column = model_primary_key_of(table);
    if (column < 0) return expected | (primary_key ? ERR(CE_ERR_INVALID_ARGUMENT) : 0);
    if (!primary_key) return expected | ERR(CE_ERR_INVALID_ARGUMENT);
    error_set value = check_value_errors(&run->current, &table->properties[column], primary_key);
    if (value) return expected | value;
    return expected | (model_position_of_primary_key(table, primary_key) >= 0 ? ERR(CE_ERR_DUPLICATE_PRIMARY_KEY) : 0);
}

/* The errors of creating an object in `table` from `values` (`count` of
 * them). Several apply at once (a malformed value in one column, a
 * duplicate key in another): any of them will do. */
/* Whether a row of `count` values gives every slot the engine needs: all of
 * them, or all but backlink (and removed) slots left out at the end. */
static bool row_has_every_slot(const model_table *table, size_t count)
{
    if (count > table->property_count) return false;
    for (size_t p = count; p < table->property_count; p++)
        if (!table->properties[p].removed && !table->properties[p].backlink) return false;
    return true;
}

static error_set create_with_values_errors(const runner *run, const model_table *table, const ce_value *values,
                                           size_t count)
{
    error_set expected = ops_write_errors(run);
    if (!table) return expected | ERR(CE_ERR_NO_SUCH_TABLE);
    if (table->embedded) return expected | ERR(CE_ERR_EMBEDDED_OBJECT);
    if (!row_has_every_slot(table, count)) return expected | ERR(CE_ERR_INVALID_ARGUMENT);
    for (size_t p = 0; p < count; p++)
        if (!table->properties[p].removed) expected |= check_row_value_errors(&run->current, &table->properties[p], &values[p]);
    long primary = model_primary_key_of(table);
    if (primary >= 0 && !check_value_errors(&run->current, &table->properties[primary], &values[primary]) &&
        model_position_of_primary_key(table, &values[primary]) >= 0)
        expected |= ERR(CE_ERR_DUPLICATE_PRIMARY_KEY);
    return expected;
}

/* Creates one object with ce_object_create_with_values as the model says it
 * must go. Returns whether it was created. */
static bool create_object_with_values(runner *run, ce_table_key key, model_table *table, const ce_value *values,
                                      size_t count, bool full_check)
{
    ce_txn *txn = run->txn;
    error_set expected = create_with_values_errors(run, table, values, count);
    if (!expected && model_total_objects(&run->current) >= MAX_OBJECTS) return false;
    ce_object_key object = -2;
    bool ok = EXPECT(expected, ce_object_create_with_values(txn, key, values, count, &object));
    if (ok) {
        CHECK(object == table->next_key, "ce_object_create_with_values: the new object does not have the next key");
        /* Slots left out (backlinks, at the end) hold null in the model. */
        ce_value *all = calloc(table->property_count + 1, sizeof *all);
        if (!all) abort();
        memcpy(all, values, (count < table->property_count ? count : table->property_count) * sizeof *all);
        model_create(table, object, NULL, all);
        model_note_links(&run->current, key, all, count);
        free(all);
        if (full_check) check_object(txn, &run->current, table, key, table->object_count - 1);
    }
    if (table && full_check) {
        size_t objects;
        bool exists;
        MUST(ce_object_count(txn, key, &objects));
        CHECK(objects == table->object_count, "ce_object_count differs from the model");
        MUST(ce_object_exists(txn, key, table->next_key, &exists));
        CHECK(!exists, "ce_object_exists: a failed create left an object behind");
        if (!ok && table->object_count) check_object(txn, &run->current, table, key, table->object_count - 1);
    }
    return ok;
}

/* Creates one object as the model says it must go. Returns whether it was
 * created. */
static bool create_object(runner *run, ce_table_key key, model_table *table, const ce_value *primary_key,
                          bool full_check)
{
    ce_txn *txn = run->txn;
    error_set expected = create_errors(run, table, primary_key);
    if (!expected && model_total_objects(&run->current) >= MAX_OBJECTS) return false;
    ce_object_key object = -2;
    size_t count;
    bool ok = EXPECT(expected, ce_object_create(txn, key, primary_key, &object));
    long primary = model_primary_key_of(table);
    if (!ok && run->txn_is_write && primary_key && primary >= 0)
        check_message_names(table, &table->properties[primary], "ce_object_create");
    if (ok) {
        CHECK(object == table->next_key, "ce_object_create: the new object does not have the next key");
        model_create(table, object, primary_key, NULL);
        if (full_check) check_object(txn, &run->current, table, key, table->object_count - 1);
    }
    if (table && full_check) {
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
        bool exists;
        MUST(ce_object_exists(txn, key, table->next_key, &exists));
        CHECK(!exists, "ce_object_exists: a failed create left an object behind");
        long existing = primary_key ? model_position_of_primary_key(table, primary_key) : -1;
        if (!ok && existing >= 0) check_object(txn, &run->current, table, key, (size_t)existing);
    }
    return ok;
}

void ops_objects_create(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    uint8_t flags = decode_u8(&run->in.input);
    long column = model_primary_key_of(table);
    bool mistake = (flags & 7) == 7; /* a key for a table without one, or none for a table with one */
    bool give_key = (column >= 0) != mistake;
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    if (give_key) {
        if (column >= 0 && (flags & 0x18) == 0x18 && table->object_count) {
            /* A duplicate on purpose. */
            buffer.value = model_value_at(table, decode_u8(&run->in.input) % table->object_count, (size_t)column)->value;
        } else {
            decode_value(&run->in, table, column, column >= 0 ? table->properties[column].type : CE_TYPE_INT, &buffer);
        }
    }
    ops_transaction(run);
    create_object(run, key, table, give_key ? &buffer.value : NULL, true);
    decode_free_value(&buffer);
}

/* An object with a value for every column slot; bits 4-5 of the flags set:
 * a duplicate primary key on purpose. */
void ops_objects_create_with_values(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    uint8_t flags = decode_u8(&run->in.input);
    value_row row = decode_row(&run->in, table, flags, (flags & 0x30) == 0x30);
    ops_transaction(run);
    create_object_with_values(run, key, table, row.values, row.count, true);
    decode_free_row(&row);
}

/* Create or update by primary key under a policy (flags & 3: error,
 * modified, all, or 3 + flags >> 6: modified keeping embedded objects, or
 * an unknown one), mostly with the key of an existing object (bits 4-5 not
 * both clear). */
void ops_objects_create_or_update(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    uint8_t flags = decode_u8(&run->in.input);
    ce_update_policy policy = (flags & 3) == 3 ? (ce_update_policy)(3 + (flags >> 6)) : (ce_update_policy)(flags & 3);
    value_row row = decode_row(&run->in, table, flags, (flags & 0x30) != 0);
    ce_txn *txn = ops_transaction(run);
    if (policy == CE_UPDATE_ERROR) {
        /* Exactly create_with_values. */
        ce_object_key object = -2;
        bool created = false;
        error_set expected = create_with_values_errors(run, table, row.values, row.count);
        if (expected || model_total_objects(&run->current) < MAX_OBJECTS) {
            if (EXPECT(expected, ce_object_create_or_update(txn, key, row.values, row.count, policy, &object, &created))) {
                CHECK(created && object == table->next_key, "ce_object_create_or_update did not create the next object");
                model_create(table, object, NULL, row.values);
                model_note_links(&run->current, key, row.values, row.count);
            }
        }
    } else {
        long primary = model_primary_key_of(table);
        error_set expected = policy > CE_UPDATE_MODIFIED_KEEP_EMBEDDED ? ERR(CE_ERR_INVALID_ARGUMENT) : 0;
        expected |= ops_write_errors(run);
        if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
        else if (primary < 0 || !row_has_every_slot(table, row.count)) expected |= ERR(CE_ERR_INVALID_ARGUMENT);
        else
            for (size_t p = 0; p < row.count; p++)
                if (!table->properties[p].removed) expected |= check_row_value_errors(&run->current, &table->properties[p], &row.values[p]);
        long existing = expected ? -1 : model_position_of_primary_key(table, &row.values[primary]);
        if (!expected && existing < 0 && model_total_objects(&run->current) >= MAX_OBJECTS) {
            decode_free_row(&row);
            return;
        }
        ce_object_key object = -2;
        bool created = false;
        if (EXPECT(expected, ce_object_create_or_update(txn, key, row.values, row.count, policy, &object, &created))) {
            if (existing < 0) {
                CHECK(created && object == table->next_key, "ce_object_create_or_update did not create the next object");
                model_create(table, object, NULL, row.values);
                model_note_links(&run->current, key, row.values, row.count);
            } else {
                CHECK(!created && object == table->keys[existing],
                      "ce_object_create_or_update did not update the object with the key");
                /* "modified" leaves a value that equals the new one as it
                 * is (0.0 stays 0.0 when -0.0 comes). */
                for (size_t p = 0; p < row.count; p++) {
                    if ((long)p == primary || table->properties[p].removed || !model_holds_one_value(&table->properties[p]))
                        continue;
                    /* "modified, keeping embedded objects": a null for a to-one
                     * link to an embedded table leaves the embedded object. */
                    if (policy == CE_UPDATE_MODIFIED_KEEP_EMBEDDED && row.values[p].type == CE_TYPE_NULL &&
                        table->properties[p].type == CE_TYPE_LINK &&
                        run->current.tables[table->properties[p].link_target].embedded)
                        continue;
                    if ((policy == CE_UPDATE_MODIFIED || policy == CE_UPDATE_MODIFIED_KEEP_EMBEDDED) &&
                        !model_is_nested_type(row.values[p].type) &&
                        model_equal_value(&model_value_at(table, (size_t)existing, p)->value, &row.values[p]))
                        continue;
                    model_set_value(&run->current, key, (size_t)existing, p, &row.values[p]);
                }
            }
        }
    }
    if (table) {
        size_t count;
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
        long position = row_has_every_slot(table, row.count) && model_primary_key_of(table) >= 0
                            ? model_position_of_primary_key(table, &row.values[model_primary_key_of(table)])
                            : -1;
        if (position >= 0) check_object(txn, &run->current, table, key, (size_t)position);
        if (table->object_count) check_object(txn, &run->current, table, key, table->object_count - 1);
    }
    decode_free_row(&row);
}

/* Up to 511 objects in one go, with primary keys from
 * decode_bulk_primary_key and one property (or, through create_with_values,
 * every property) from a stream the input seeds: leaves and index nodes
 * fill and split. */
void ops_objects_create_many(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    size_t count = 1 + 2 * (size_t)decode_u8(&run->in.input);
    ce_column_key column = decode_column(&run->in, table);
    bool with_values = decode_u8(&run->in.input) & 1;
    uint32_t seed = decode_u32(&run->in.input);
    ce_txn *txn = ops_transaction(run);
    source stream = decode_random_source(seed);
    long primary = model_primary_key_of(table);
    if (with_values && table) {
        /* Every column from the stream, through the fast path. */
        size_t slots = table->property_count;
        value_buffer *buffers = model_allocate((slots + 1) * sizeof *buffers);
        ce_value *values = model_allocate((slots + 1) * sizeof *values);
        for (size_t i = 0; i < count && run->txn_is_write; i++) {
            for (size_t p = 0; p < slots; p++) {
                const model_property *property = &table->properties[p];
                if (property->removed) buffers[p] = (value_buffer){{.type = CE_TYPE_NULL}, NULL};
                else if ((long)p == primary) decode_bulk_primary_key(property->type, seed, i, &buffers[p]);
                else decode_stream_value(&stream, property, &buffers[p]);
                values[p] = buffers[p].value;
            }
            create_object_with_values(run, key, table, values, slots, false);
            for (size_t p = 0; p < slots; p++) decode_free_value(&buffers[p]);
        }
        free(buffers);
        free(values);
        check_table(txn, &run->current, key, COMMIT_SAMPLE);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        value_buffer key_buffer = {{.type = CE_TYPE_NULL}, NULL};
        if (primary >= 0) decode_bulk_primary_key(table->properties[primary].type, seed, i, &key_buffer);
        bool created = create_object(run, key, table, primary >= 0 ? &key_buffer.value : NULL, false);
        decode_free_value(&key_buffer);
        if (!table || !run->txn_is_write || table->embedded) return; /* one failure tells it all */
        if (!created) continue;
        const model_property *property = model_live_property(table, column);
        if (!property || property->primary_key) continue;
        value_buffer buffer;
        decode_stream_value(&stream, property, &buffer);
        size_t position = table->object_count - 1;
        error_set expected = ops_write_errors(run) | check_value_errors(&run->current, property, &buffer.value);
        if (EXPECT(expected, ce_object_set(txn, key, table->keys[position], column, &buffer.value)))
            model_set_value(&run->current, key, position, column, &buffer.value);
        decode_free_value(&buffer);
    }
    check_table(txn, &run->current, key, COMMIT_SAMPLE);
}

/* ------------------------------------------------------------------------ */
/* Deletes                                                                   */
/* ------------------------------------------------------------------------ */

static void confirm_deleted(runner *run, ce_table_key key, const model_table *table, ce_object_key object,
                            const ce_value *primary_key)
{
    ce_txn *txn = run->txn;
    bool exists;
    MUST(ce_object_exists(txn, key, object, &exists));
    CHECK(!exists, "ce_object_exists: a deleted object exists");
    for (size_t p = 0; p < table->property_count; p++) {
        if (table->properties[p].removed || !model_holds_one_value(&table->properties[p])) continue;
        ce_value value;
        EXPECT(ERR(CE_ERR_NO_SUCH_OBJECT), ce_object_get(txn, key, object, (ce_column_key)p, &value));
        break;
    }
    if (primary_key) {
        ce_object_key found_object;
        bool found;
        MUST(ce_object_find_primary_key(txn, key, primary_key, &found_object, &found));
        CHECK(!found, "ce_object_find_primary_key finds a deleted object");
    }
}

void ops_objects_delete(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_object_key object = decode_object(&run->in, table);
    ce_txn *txn = ops_transaction(run);
    long position = model_position_of(table, object);
    error_set expected = ops_write_errors(run) | (!table ? ERR(CE_ERR_NO_SUCH_TABLE)
                                                         : position < 0 ? ERR(CE_ERR_NO_SUCH_OBJECT) : 0);
    long primary = model_primary_key_of(table);
    model_slot primary_key = {{.type = CE_TYPE_NULL}, NULL, NULL};
    if (position >= 0 && primary >= 0) primary_key = model_store_value(&model_value_at(table, (size_t)position, (size_t)primary)->value);
    if (EXPECT(expected, ce_object_delete(txn, key, object))) {
        model_delete_object(&run->current, key, object);
        confirm_deleted(run, key, table, object, primary >= 0 ? &primary_key.value : NULL);
        EXPECT(ERR(CE_ERR_NO_SUCH_OBJECT), ce_object_delete(txn, key, object));
    } else if (run->txn_is_write) {
        check_message_names(table, NULL, "ce_object_delete");
    }
    model_release_value(&primary_key);
    if (table) {
        size_t count;
        MUST(ce_object_count(txn, key, &count));
        CHECK(count == table->object_count, "ce_object_count differs from the model");
    }
}

/* Deletes up to 511 objects from a position on, every `stride`-th: leaves
 * empty and merge. */
void ops_objects_delete_many(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    uint8_t start = decode_u8(&run->in.input), count = decode_u8(&run->in.input), stride = decode_u8(&run->in.input);
    ce_txn *txn = ops_transaction(run);
    if (!table || !run->txn_is_write) {
        EXPECT(ops_write_errors(run) | (table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE)), ce_object_delete(txn, key, 0));
        return;
    }
    size_t objects = table->object_count, step = 1 + stride % 4, deletions = 1 + 2 * (size_t)count;
    if (objects == 0) return;
    ce_object_key *victims = model_allocate(deletions * sizeof *victims);
    size_t victim_count = 0;
    for (size_t position = start * objects / 256; position < objects && victim_count < deletions; position += step)
        victims[victim_count++] = table->keys[position];
    for (size_t i = 0; i < victim_count; i++) {
        /* An earlier victim may have owned this one (an embedded table
         * linking to itself). */
        error_set expected = model_position_of(table, victims[i]) < 0 ? ERR(CE_ERR_NO_SUCH_OBJECT) : 0;
        if (EXPECT(expected, ce_object_delete(txn, key, victims[i])))
            model_delete_object(&run->current, key, victims[i]);
    }
    free(victims);
    check_table(txn, &run->current, key, COMMIT_SAMPLE);
}

/* ------------------------------------------------------------------------ */
/* Values, finds, counts                                                     */
/* ------------------------------------------------------------------------ */

void ops_objects_set(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_object_key object = decode_object(&run->in, table);
    ce_column_key column = decode_column(&run->in, table);
    const model_property *property = model_live_property(table, column);
    value_buffer buffer;
    decode_slot_value(&run->in, table, column, &buffer);
    ce_txn *txn = ops_transaction(run);
    long position = model_position_of(table, object);
    error_set expected = ops_write_errors(run);
    if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else {
        expected |= check_value_errors(&run->current, property, &buffer.value);
        if (property->primary_key) expected |= ERR(CE_ERR_PRIMARY_KEY_IMMUTABLE);
        if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    }
    if (EXPECT(expected, ce_object_set(txn, key, object, column, &buffer.value)))
        model_set_value(&run->current, key, (size_t)position, column, &buffer.value);
    else if (run->txn_is_write)
        check_message_names(table, property, "ce_object_set");
    decode_free_value(&buffer);
    /* The value as the model has it (new, or unchanged after a failure), and
     * its neighbours in the column (a large value moves bytes around). A
     * link set to null may have deleted objects of this table (an embedded
     * table that links to itself), and a mixed link into its own table
     * added a backlink property (the properties moved). */
    position = model_position_of(table, object);
    property = model_live_property(table, column);
    if (property && position >= 0 && model_holds_one_value(property)) {
        for (long neighbour = position - 1; neighbour <= position + 1; neighbour++) {
            if (neighbour < 0 || (size_t)neighbour >= table->object_count) continue;
            ce_value value;
            MUST(ce_object_get(txn, key, table->keys[neighbour], column, &value));
            check_same_value(&value, &model_value_at(table, (size_t)neighbour, column)->value, "ce_object_get after a set");
        }
    }
}

/* A run of positional sets in one table (key_at, set, get, position
 * after position, as W6 and Realm's setValue(forKey:) change objects),
 * interleaved with creates (the last leaf fills and splits) and deletes
 * (positions shift, leaves empty and go). The write transaction keeps the
 * leaf it changed last and changes it where it lies (cluster_set), so a
 * structural change that failed to make it forget that leaf shows here: a
 * key at a position, or a value read back, that differs from the model. */
void ops_objects_set_run(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_column_key column = decode_column(&run->in, table);
    uint8_t start = decode_u8(&run->in.input), length = decode_u8(&run->in.input);
    uint32_t seed = decode_u32(&run->in.input);
    ce_txn *txn = ops_transaction(run);
    const model_property *property = model_live_property(table, column);
    /* Values of one column, no links (a link set may delete objects). */
    if (!table || table->embedded || !run->txn_is_write || !property || property->primary_key ||
        !model_holds_one_value(property) || property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
        return;
    source stream = decode_random_source(seed);
    long primary = model_primary_key_of(table);
    size_t position = (size_t)start * table->object_count / 256;
    for (size_t step = 0; step <= (size_t)length; step++) {
        uint8_t action = decode_u8(&stream) % 16;
        if (action < 11 && table->object_count > 0) {
            if (position >= table->object_count) position = 0;
            ce_object_key object;
            MUST(ce_object_key_at(txn, key, position, &object));
            CHECK(object == table->keys[position], "ce_object_key_at in a run of sets differs from the model");
            value_buffer buffer;
            decode_stream_value(&stream, property, &buffer);
            if (EXPECT(check_value_errors(&run->current, property, &buffer.value),
                       ce_object_set(txn, key, object, column, &buffer.value)))
                model_set_value(&run->current, key, position, column, &buffer.value);
            decode_free_value(&buffer);
            ce_value value;
            MUST(ce_object_get(txn, key, object, column, &value));
            check_same_value(&value, &model_value_at(table, position, column)->value, "ce_object_get in a run of sets");
            position++;
        } else if (action < 14) {
            if (!ops_room_for_objects(run, 1)) continue;
            value_buffer key_buffer = {{.type = CE_TYPE_NULL}, NULL};
            if (primary >= 0) decode_bulk_primary_key(table->properties[primary].type, seed, step, &key_buffer);
            create_object(run, key, table, primary >= 0 ? &key_buffer.value : NULL, false);
            decode_free_value(&key_buffer);
        } else if (table->object_count > 0) {
            ce_object_key object = table->keys[(size_t)decode_u8(&stream) * table->object_count / 256];
            if (EXPECT(0, ce_object_delete(txn, key, object))) model_delete_object(&run->current, key, object);
        }
    }
    check_table(txn, &run->current, key, COMMIT_SAMPLE);
}

void ops_objects_get(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_object_key object = decode_object(&run->in, table);
    ce_column_key column = decode_column(&run->in, table);
    ce_txn *txn = ops_transaction(run);
    const model_property *property = model_live_property(table, column);
    long position = model_position_of(table, object);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE) : 0;
    if (table && !property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (table && position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    if (property && !model_holds_one_value(property)) expected |= ERR(CE_ERR_WRONG_TYPE); /* a collection, backlinks */
    ce_value value;
    if (EXPECT(expected, ce_object_get(txn, key, object, column, &value)))
        check_same_value(&value, &model_value_at(table, (size_t)position, column)->value, "ce_object_get");
}

void ops_objects_find_primary_key(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    long column = model_primary_key_of(table);
    value_buffer buffer;
    decode_value(&run->in, table, column, column >= 0 ? table->properties[column].type : CE_TYPE_INT, &buffer);
    ce_txn *txn = ops_transaction(run);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE)
                         : column < 0 ? ERR(CE_ERR_INVALID_ARGUMENT)
                                      : check_value_errors(&run->current, &table->properties[column], &buffer.value);
    ce_object_key object;
    bool found;
    if (EXPECT(expected, ce_object_find_primary_key(txn, key, &buffer.value, &object, &found))) {
        long position = model_position_of_primary_key(table, &buffer.value);
        CHECK(found == (position >= 0), "ce_object_find_primary_key differs from the model");
        CHECK(!found || object == table->keys[position], "ce_object_find_primary_key finds another object");
    }
    decode_free_value(&buffer);
}

void ops_objects_find_first(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_column_key column = decode_column(&run->in, table);
    const model_property *property = model_live_property(table, column);
    value_buffer buffer;
    decode_value(&run->in, table, property ? (long)column : -1, property ? property->type : CE_TYPE_INT, &buffer);
    ce_txn *txn = ops_transaction(run);
    error_set expected = !table                                            ? ERR(CE_ERR_NO_SUCH_TABLE)
                         : !property                                       ? ERR(CE_ERR_NO_SUCH_PROPERTY)
                         : !model_holds_one_value(property) || !model_is_scalar_type(property->type) ? ERR(CE_ERR_WRONG_TYPE)
                                                                           : check_value_errors(&run->current, property, &buffer.value);
    ce_object_key object;
    bool found;
    if (EXPECT(expected, ce_object_find_first(txn, key, column, &buffer.value, &object, &found))) {
        long position = model_first_position_equal(table, column, &buffer.value);
        CHECK(found == (position >= 0), "ce_object_find_first differs from the model");
        CHECK(!found || object == table->keys[position], "ce_object_find_first finds another object");
    }
    decode_free_value(&buffer);
}

void ops_objects_count(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_txn *txn = ops_transaction(run);
    size_t count;
    if (EXPECT(table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE), ce_object_count(txn, key, &count)))
        CHECK(count == table->object_count, "ce_object_count differs from the model");
}

void ops_objects_key_at(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    uint16_t choice = decode_u16(&run->in.input);
    ce_txn *txn = ops_transaction(run);
    size_t count = table ? table->object_count : 0;
    size_t index = choice >= 0xFFF0 ? SIZE_MAX - (choice & 15) : choice % (count + 1);
    error_set expected = !table ? ERR(CE_ERR_NO_SUCH_TABLE) : index >= count ? ERR(CE_ERR_INDEX_OUT_OF_BOUNDS) : 0;
    ce_object_key object;
    if (EXPECT(expected, ce_object_key_at(txn, key, index, &object)))
        CHECK(object == table->keys[index], "ce_object_key_at differs from the model");
}

void ops_objects_exists(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_object_key object = decode_object(&run->in, table);
    ce_txn *txn = ops_transaction(run);
    bool exists;
    if (EXPECT(table ? 0 : ERR(CE_ERR_NO_SUCH_TABLE), ce_object_exists(txn, key, object, &exists)))
        CHECK(exists == (model_position_of(table, object) >= 0), "ce_object_exists differs from the model");
}

/* ------------------------------------------------------------------------ */
/* Embedded objects and backlinks                                            */
/* ------------------------------------------------------------------------ */

/* ce_object_create_embedded on a to-one link (mostly one to an embedded
 * table, by rank): the new object replaces (and deletes) the old one. */
void ops_objects_create_embedded(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_object_key object = decode_object(&run->in, table);
    uint8_t choice = decode_u8(&run->in.input);
    ce_column_key column = 0;
    size_t candidates = 0;
    for (size_t p = 0; table && p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        bool owner = model_holds_links(property) && model_holds_one_value(property) && property->type == CE_TYPE_LINK &&
                     run->current.tables[property->link_target].embedded;
        if (owner && choice < 0xE0 && candidates++ == choice % 4) column = (ce_column_key)p;
    }
    if (!candidates || choice >= 0xE0) column = decode_column(&run->in, table);
    ce_txn *txn = ops_transaction(run);
    const model_property *property = model_live_property(table, column);
    long position = model_position_of(table, object);
    error_set expected = ops_write_errors(run);
    if (!table) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else if (!model_holds_one_value(property)) expected |= ERR(CE_ERR_WRONG_TYPE);
    else {
        if (property->type != CE_TYPE_LINK || !run->current.tables[property->link_target].embedded)
            expected |= ERR(CE_ERR_EMBEDDED_OBJECT);
        if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
        if (!expected) expected |= check_embedding_depth_errors(&run->current, key, object);
    }
    if (!expected && !ops_room_for_objects(run, 1)) return;
    ce_object_key child = -2;
    if (!EXPECT(expected, ce_object_create_embedded(txn, key, object, column, &child))) return;
    ce_table_key target_key = property->link_target;
    model_table *target = &run->current.tables[target_key];
    CHECK(child == target->next_key, "ce_object_create_embedded: the new object does not have the next key");
    model_create(target, child, NULL, NULL);
    ce_value link = {.type = CE_TYPE_LINK, .link = {target_key, child}};
    model_set_value(&run->current, key, (size_t)position, column, &link);
    position = model_position_of(table, object);
    if (position >= 0) check_object(txn, &run->current, table, key, (size_t)position);
    check_object(txn, &run->current, target, target_key, (size_t)model_position_of(target, child));
}

/* ce_object_backlink_count, _at and _total for an object and an origin
 * property (mostly one its table has backlinks of). */
void ops_objects_backlinks(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    model_table *table = model_live_table(&run->current, key);
    ce_object_key object = decode_object(&run->in, table);
    uint8_t choice = decode_u8(&run->in.input);
    ce_table_key origin_table = 0;
    ce_column_key origin_column = 0;
    size_t backlinks = 0;
    for (size_t p = 0; table && p < table->property_count; p++)
        backlinks += !table->properties[p].removed && table->properties[p].backlink;
    if (choice < 0xE0 && backlinks) {
        size_t rank = choice % backlinks;
        for (size_t p = 0; p < table->property_count; p++)
            if (!table->properties[p].removed && table->properties[p].backlink && rank-- == 0) {
                origin_table = table->properties[p].link_target;
                origin_column = table->properties[p].origin_column;
            }
    } else {
        origin_table = decode_table(&run->in);
        origin_column = decode_column(&run->in, model_live_table(&run->current, origin_table));
    }
    size_t index = decode_u8(&run->in.input);
    ce_txn *txn = ops_transaction(run);
    const model_table *origin = model_live_table(&run->current, origin_table);
    const model_property *property = model_live_property(origin, origin_column);
    long position = model_position_of(table, object);
    error_set expected = 0;
    if (!table || !origin) expected |= ERR(CE_ERR_NO_SUCH_TABLE);
    else if (!property) expected |= ERR(CE_ERR_NO_SUCH_PROPERTY);
    else if (!model_holds_links(property)) expected |= ERR(CE_ERR_WRONG_TYPE);
    else if (position < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    size_t count;
    ce_object_key found;
    if (EXPECT(expected, ce_object_backlink_count(txn, key, object, origin_table, origin_column, &count))) {
        ce_link target = {key, object};
        size_t model_count = model_backlinks(&run->current, target, origin_table, origin_column, NULL, 0);
        CHECK(count == model_count, "ce_object_backlink_count differs from the model");
        ce_object_key *origins = model_allocate(model_count * sizeof *origins);
        model_backlinks(&run->current, target, origin_table, origin_column, origins, model_count);
        index = model_count ? index % (model_count + 1) : index % 2;
        if (EXPECT(index < model_count ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS),
                   ce_object_backlink_at(txn, key, object, origin_table, origin_column, index, &found)))
            CHECK(found == origins[index], "ce_object_backlink_at differs from the model");
        free(origins);
    } else {
        EXPECT(expected, ce_object_backlink_at(txn, key, object, origin_table, origin_column, 0, &found));
    }
    if (table && position >= 0) check_backlinks(txn, &run->current, key, (size_t)position);
}
