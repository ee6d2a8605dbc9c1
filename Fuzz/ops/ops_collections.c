/*
 * ops_collections.c — fuzz_ops's collection operations: lists, sets and
 * dictionaries (of scalars, of links, of mixed values with collections
 * nested in them) edited, read, cleared and filled in bulk through handles
 * opened level by level, collections nested a hundred levels deep, and a
 * handle held across operations.
 *
 * Owns: applying a decoded collection step to the engine and, when it
 * succeeds, to the model (the embedded objects a dropped element owned go
 * with it), with the comparison of the collection that follows it.
 * Never: reads the input but through decode.h, holds state of its own
 * beyond the runner's held handle (ops.h), or creates and deletes objects
 * other than embedded ones (ops_objects.c).
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_COLLECTION_SIZE = 1500, /* elements of one collection: bulk inserts pass 1000 (one chunk) */
    MAX_NESTING_LEVEL = 100,    /* levels of collections nested in mixed values, as in Realm */
};

/* ------------------------------------------------------------------------ */
/* A handle's path, opened in the engine                                     */
/* ------------------------------------------------------------------------ */

/* The target's collection in the model, made writable (and every level on
 * the way), for a change the engine made. The path resolves. */
static model_collection *writable_target(model *state, const collection_target *target)
{
    model_table *table = &state->tables[target->table];
    model_slot *slot = model_value_at(table, (size_t)model_position_of(table, target->object), target->column);
    model_collection **at = &slot->nested;
    for (size_t i = 0; i < target->depth; i++) {
        model_collection *collection = model_writable_collection(at);
        size_t position = target->steps[i].index;
        bool found;
        if (target->steps[i].by_key)
            position = model_key_position(collection, target->steps[i].key.bytes, target->steps[i].key.size, &found);
        at = &collection->elements[position].nested;
    }
    return model_writable_collection(at);
}

/* Opens the target level by level as the model says each open must go.
 * Returns the handle, or NULL when an open failed (as expected). */
static ce_collection *open_target(runner *run, const collection_target *target, model_view *view)
{
    ce_txn *txn = run->txn;
    ce_collection *handle = NULL;
    error_set expected = check_resolve_top(&run->current, target, view);
    bool ok = target->through_mixed
                  ? EXPECT(expected, ce_collection_open_mixed(txn, target->table, target->object, target->column, &handle))
                  : EXPECT(expected, ce_collection_open(txn, target->table, target->object, target->column, &handle));
    if (!ok) return NULL;
    for (size_t i = 0; i < target->depth; i++) {
        const path_step *step = &target->steps[i];
        model_view inner;
        expected = check_resolve_step(view, step, &inner);
        ce_value at = step->by_key ? (ce_value){.type = CE_TYPE_STRING, .string = {step->key.bytes, step->key.size}}
                                   : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)step->index};
        ce_collection *nested = NULL;
        ok = EXPECT(expected, ce_collection_open_nested(handle, &at, &nested));
        ce_collection_close(handle);
        if (!ok) return NULL;
        handle = nested;
        *view = inner;
    }
    return handle;
}

/* Re-reads the target in the model after a change and compares it with
 * the engine's. */
static void confirm_target(runner *run, const ce_collection *handle, const collection_target *target)
{
    model_view view;
    collection_target top = *target;
    top.depth = 0;
    if (check_resolve_top(&run->current, &top, &view)) {
        /* The object went (an embedded one deleted with its parent's element). */
        size_t count;
        EXPECT(ERR(CE_ERR_NO_SUCH_OBJECT), ce_collection_size(handle, &count));
        return;
    }
    for (size_t i = 0; i < target->depth; i++) {
        model_view inner;
        CHECK(check_resolve_step(&view, &target->steps[i], &inner) == 0, "the model lost a nested collection it edited");
        view = inner;
    }
    check_collection(handle, view.kind, &view.element, view.elements, 0, CHECK_NESTING);
}

/* ------------------------------------------------------------------------ */
/* Edits                                                                     */
/* ------------------------------------------------------------------------ */

/* A new element's link needs the target's backlink property; an element
 * dropped from a collection of links to an embedded table deletes the
 * object it owned (after the change, in `owned`). */
static void note_new_element(runner *run, const collection_target *target, const ce_value *value)
{
    if (value->type == CE_TYPE_LINK) model_ensure_backlink(&run->current, value->link.table, target->table, target->column);
}

static void note_dropped_element(runner *run, const model_kind *kind, const model_slot *element, model_link_vector *owned)
{
    if (model_owns_embedded(&run->current, kind) && element->value.type == CE_TYPE_LINK) model_link_vector_push(owned, element->value.link);
}

/* Replaces an element in the model (a link to the same object changes
 * nothing, as in the engine). */
static void replace_element(runner *run, const collection_target *target, const model_kind *kind,
                            model_collection *collection, size_t index, const ce_value *value, model_link_vector *owned)
{
    model_slot *element = &collection->elements[index];
    if (kind->type == CE_TYPE_LINK && model_same_value(&element->value, value)) return;
    note_dropped_element(run, kind, element, owned);
    model_slot stored = model_store_value(value);
    model_release_value(element);
    *element = stored;
    note_new_element(run, target, value);
}

/* After a change: the embedded objects dropped elements owned go, then the
 * collection (found again) is compared with the model's. */
static void finish_edit(runner *run, ce_collection *handle, const collection_target *target, model_link_vector *owned)
{
    model_delete_owned(&run->current, owned);
    free(owned->items);
    owned->items = NULL;
    confirm_target(run, handle, target);
}

void ops_collections_list_edit(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    uint8_t operation = decode_u8(&run->in.input) % 7;
    size_t count = resolved ? model_collection_count(view.elements) : 0;
    size_t index = decode_index(&run->in, count), other = decode_index(&run->in, count);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    if (operation <= 1 && resolved) decode_element_value(&run->in, &view.element, view.elements, &buffer);
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        decode_free_value(&buffer);
        return;
    }
    count = model_collection_count(view.elements);
    bool is_list = view.kind == CE_COLLECTION_LIST;
    error_set expected = ops_write_errors(run) | (is_list ? 0 : ERR(CE_ERR_WRONG_TYPE));
    model_link_vector owned = {0};
    bool ok;
    ce_object_key child = -2;
    switch (operation) {
    case 0: /* insert */
        expected |= check_element_errors(&run->current, &view.element, &buffer.value);
        if (index > count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (!expected && count >= MAX_COLLECTION_SIZE) break;
        if (EXPECT(expected, ce_list_insert(handle, index, &buffer.value))) {
            model_collection_insert_at(writable_target(&run->current, &target), index, model_store_value(&buffer.value), NULL);
            note_new_element(run, &target, &buffer.value);
        }
        break;
    case 1: /* set */
        expected |= check_element_errors(&run->current, &view.element, &buffer.value);
        if (index >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (EXPECT(expected, ce_list_set(handle, index, &buffer.value)))
            replace_element(run, &target, &view.element, writable_target(&run->current, &target), index,
                            &buffer.value, &owned);
        break;
    case 2: /* erase */
        if (index >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (EXPECT(expected, ce_list_erase(handle, index))) {
            model_collection *collection = writable_target(&run->current, &target);
            note_dropped_element(run, &view.element, &collection->elements[index], &owned);
            model_collection_erase_at(collection, index);
        }
        break;
    case 3: /* move */
    case 4: /* swap */
        if (index >= count || other >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        ok = operation == 3 ? EXPECT(expected, ce_list_move(handle, index, other))
                            : EXPECT(expected, ce_list_swap(handle, index, other));
        if (ok && index != other) {
            model_collection *collection = writable_target(&run->current, &target);
            if (operation == 4) model_list_swap(&collection, index, other);
            else model_list_move(&collection, index, other);
        }
        break;
    default: { /* insert or set a new embedded object */
        bool insert = operation == 5;
        if (!model_owns_embedded(&run->current, &view.element)) expected |= ERR(CE_ERR_EMBEDDED_OBJECT);
        if (insert ? index > count : index >= count) expected |= ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (!expected) expected |= check_embedding_depth_errors(&run->current, target.table, target.object);
        if (!expected && (!ops_room_for_objects(run, 1) || count >= MAX_COLLECTION_SIZE)) break;
        ok = insert ? EXPECT(expected, ce_list_insert_embedded(handle, index, &child))
                    : EXPECT(expected, ce_list_set_embedded(handle, index, &child));
        if (!ok) break;
        model_table *embedded = &run->current.tables[view.element.link_target];
        CHECK(child == embedded->next_key, "a new embedded object does not have the next key");
        model_create(embedded, child, NULL, NULL);
        ce_value link = {.type = CE_TYPE_LINK, .link = {view.element.link_target, child}};
        model_collection *collection = writable_target(&run->current, &target);
        if (insert) model_collection_insert_at(collection, index, model_store_value(&link), NULL);
        else replace_element(run, &target, &view.element, collection, index, &link, &owned);
        break;
    }
    }
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
    decode_free_value(&buffer);
}

void ops_collections_set_edit(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    bool insert = !(decode_u8(&run->in.input) & 1);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    model_kind kind = resolved ? view.element : model_nested_kind;
    decode_element_value(&run->in, &kind, resolved ? view.elements : NULL, &buffer);
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        decode_free_value(&buffer);
        return;
    }
    bool is_set = view.kind == CE_COLLECTION_SET, changed = false, found;
    error_set expected = ops_write_errors(run) | (is_set ? 0 : ERR(CE_ERR_WRONG_TYPE));
    /* An unknown type tag is refused before the collection's kind is looked at. */
    if ((unsigned)buffer.value.type > CE_TYPE_DICTIONARY) expected |= ERR(CE_ERR_INVALID_ARGUMENT);
    size_t position = model_set_position(view.elements, &buffer.value, &found);
    if (insert) {
        expected |= check_element_errors(&run->current, &view.element, &buffer.value);
        if (!expected && model_collection_count(view.elements) >= MAX_COLLECTION_SIZE) goto done;
        if (EXPECT(expected, ce_set_insert(handle, &buffer.value, &changed))) {
            CHECK(changed == !found, "ce_set_insert: 'changed' differs from the model");
            if (!found) {
                model_collection_insert_at(writable_target(&run->current, &target), position, model_store_value(&buffer.value), NULL);
                note_new_element(run, &target, &buffer.value);
            }
        }
    } else if (EXPECT(expected, ce_set_erase(handle, &buffer.value, &changed))) {
        /* No check of the value: one of another type is simply not there. */
        CHECK(changed == found, "ce_set_erase: 'changed' differs from the model");
        if (found) model_collection_erase_at(writable_target(&run->current, &target), position);
    }
done:;
    model_link_vector owned = {0};
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
    decode_free_value(&buffer);
}

void ops_collections_dictionary_edit(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    uint8_t operation = decode_u8(&run->in.input) % 3;
    dictionary_key key;
    decode_key(&run->in, resolved ? view.elements : NULL, resolved && view.kind == CE_COLLECTION_DICTIONARY, &key);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    if (operation == 0 && resolved) decode_element_value(&run->in, &view.element, view.elements, &buffer);
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        decode_free_value(&buffer);
        return;
    }
    bool is_dictionary = view.kind == CE_COLLECTION_DICTIONARY, found = false, erased = false;
    error_set expected = ops_write_errors(run) | (is_dictionary ? 0 : ERR(CE_ERR_WRONG_TYPE));
    error_set key_errors = decode_key_is_valid(&key) ? 0 : ERR(CE_ERR_INVALID_ARGUMENT);
    size_t position = is_dictionary ? model_key_position(view.elements, key.bytes, key.size, &found) : 0;
    size_t count = model_collection_count(view.elements);
    model_link_vector owned = {0};
    model_slot key_value;
    ce_value key_as_value = {.type = CE_TYPE_STRING, .string = {key.bytes, key.size}};
    if (operation == 0) {
        expected |= key_errors | check_element_errors(&run->current, &view.element, &buffer.value);
        if (!expected && !found && count >= MAX_COLLECTION_SIZE) goto done;
        if (EXPECT(expected, ce_dictionary_set(handle, key.bytes, key.size, &buffer.value))) {
            model_collection *collection = writable_target(&run->current, &target);
            if (found) {
                replace_element(run, &target, &view.element, collection, position, &buffer.value, &owned);
            } else {
                key_value = model_store_value(&key_as_value);
                model_collection_insert_at(collection, position, model_store_value(&buffer.value), &key_value);
                note_new_element(run, &target, &buffer.value);
            }
        }
    } else if (operation == 1) {
        if (EXPECT(expected, ce_dictionary_erase(handle, key.bytes, key.size, &erased))) {
            CHECK(erased == found, "ce_dictionary_erase: 'erased' differs from the model");
            if (found) {
                model_collection *collection = writable_target(&run->current, &target);
                note_dropped_element(run, &view.element, &collection->elements[position], &owned);
                model_collection_erase_at(collection, position);
            }
        }
    } else {
        ce_object_key child = -2;
        expected |= key_errors | (model_owns_embedded(&run->current, &view.element) ? 0 : ERR(CE_ERR_EMBEDDED_OBJECT));
        if (!expected) expected |= check_embedding_depth_errors(&run->current, target.table, target.object);
        if (!expected && (!ops_room_for_objects(run, 1) || (!found && count >= MAX_COLLECTION_SIZE))) goto done;
        if (EXPECT(expected, ce_dictionary_insert_embedded(handle, key.bytes, key.size, &child))) {
            model_table *embedded = &run->current.tables[view.element.link_target];
            CHECK(child == embedded->next_key, "a new embedded object does not have the next key");
            model_create(embedded, child, NULL, NULL);
            ce_value link = {.type = CE_TYPE_LINK, .link = {view.element.link_target, child}};
            model_collection *collection = writable_target(&run->current, &target);
            if (found) {
                replace_element(run, &target, &view.element, collection, position, &link, &owned);
            } else {
                key_value = model_store_value(&key_as_value);
                model_collection_insert_at(collection, position, model_store_value(&link), &key_value);
            }
        }
    }
done:
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
    decode_free_value(&buffer);
}

/* Reads: size, an element, a find, a dictionary's key and value by key. */
void ops_collections_read(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    uint8_t operation = decode_u8(&run->in.input) % 5;
    size_t index = decode_index(&run->in, resolved ? model_collection_count(view.elements) : 0);
    dictionary_key key;
    decode_key(&run->in, resolved ? view.elements : NULL, resolved && view.kind == CE_COLLECTION_DICTIONARY, &key);
    value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
    model_kind kind = resolved ? view.element : model_nested_kind;
    if (operation == 2) decode_element_value(&run->in, &kind, resolved ? view.elements : NULL, &buffer);
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) {
        decode_free_value(&buffer);
        return;
    }
    size_t count = model_collection_count(view.elements), engine_count, engine_index, model_index = 0;
    bool is_dictionary = view.kind == CE_COLLECTION_DICTIONARY, found;
    ce_value value;
    switch (operation) {
    case 0:
        MUST(ce_collection_size(handle, &engine_count));
        CHECK(engine_count == count, "ce_collection_size differs from the model");
        break;
    case 1:
        if (EXPECT(index < count ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS), ce_collection_get(handle, index, &value)))
            check_same_value(&value, &view.elements->elements[index].value, "ce_collection_get");
        break;
    case 2:
        if ((unsigned)buffer.value.type > CE_TYPE_DICTIONARY) {
            EXPECT(ERR(CE_ERR_INVALID_ARGUMENT), ce_collection_find(handle, &buffer.value, &engine_index, &found));
            break;
        }
        MUST(ce_collection_find(handle, &buffer.value, &engine_index, &found));
        CHECK(found == model_find(view.kind, view.elements, &buffer.value, &model_index) &&
                  (!found || engine_index == model_index),
              "ce_collection_find differs from the model");
        break;
    case 3: {
        error_set expected = !is_dictionary ? ERR(CE_ERR_WRONG_TYPE) : index < count ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        if (EXPECT(expected, ce_dictionary_key_at(handle, index, &value)))
            check_same_value(&value, &view.elements->keys[index].value, "ce_dictionary_key_at");
        break;
    }
    default: {
        if (!EXPECT(is_dictionary ? 0 : ERR(CE_ERR_WRONG_TYPE), ce_dictionary_get(handle, key.bytes, key.size, &value, &found)))
            break;
        bool model_found;
        size_t position = model_key_position(view.elements, key.bytes, key.size, &model_found);
        CHECK(found == model_found, "ce_dictionary_get differs from the model");
        if (found) check_same_value(&value, &view.elements->elements[position].value, "ce_dictionary_get");
        break;
    }
    }
    ce_collection_close(handle);
    decode_free_value(&buffer);
}

void ops_collections_clear(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) return;
    model_link_vector owned = {0};
    if (EXPECT(ops_write_errors(run), ce_collection_clear(handle)) && model_collection_count(view.elements)) {
        model_collection *collection = writable_target(&run->current, &target);
        for (size_t i = 0; i < collection->count; i++) note_dropped_element(run, &view.element, &collection->elements[i], &owned);
        model_collection_clear(&collection);
    }
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
}

/* Elements from a stream the input seeds, into a list (appended, or at
 * positions from the stream), set or dictionary (keys "k<n>"): mostly up
 * to 64, one time in 16 over 1000 (a collection of more than one chunk).
 * Each insert is a call: under the sanitizers a thousand take a second. */
void ops_collections_bulk_insert(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    uint8_t size_choice = decode_u8(&run->in.input);
    size_t wanted = size_choice < 0xF0 ? 1 + (size_t)(size_choice % 64) : 1001 + 8 * (size_t)(size_choice & 15);
    bool at_positions = decode_u8(&run->in.input) & 1;
    source stream = decode_random_source(decode_u32(&run->in.input));
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) return;
    const model_table *linked = view.element.type == CE_TYPE_LINK ? &run->current.tables[view.element.link_target] : NULL;
    if (!run->txn_is_write || (linked && (linked->embedded || !linked->object_count))) wanted = 0;
    for (size_t i = 0; i < wanted; i++) {
        model_collection *collection = writable_target(&run->current, &target);
        if (collection->count >= MAX_COLLECTION_SIZE) break;
        value_buffer buffer = {{.type = CE_TYPE_NULL}, NULL};
        if (linked) {
            buffer.value = (ce_value){.type = CE_TYPE_LINK,
                                      .link = {view.element.link_target, linked->keys[decode_u16(&stream) % linked->object_count]}};
        } else {
            ce_type type = view.element.type == CE_TYPE_MIXED ? (ce_type)(1 + decode_u8(&stream) % 10) : view.element.type;
            decode_typed_value(&stream, type, false, &buffer);
        }
        bool ok = true;
        if (view.kind == CE_COLLECTION_LIST) {
            size_t index = at_positions ? decode_u16(&stream) % (collection->count + 1) : collection->count;
            ok = MUST(ce_list_insert(handle, index, &buffer.value));
            if (ok) model_list_insert(&collection, index, &buffer.value);
        } else if (view.kind == CE_COLLECTION_SET) {
            bool changed;
            ok = MUST(ce_set_insert(handle, &buffer.value, &changed));
            bool inserted = model_set_insert(&collection, &buffer.value);
            CHECK(changed == inserted, "ce_set_insert: 'changed' differs from the model");
        } else {
            char text[24];
            int length = snprintf(text, sizeof text, "k%u", (unsigned)(decode_u16(&stream) % 4000));
            ok = MUST(ce_dictionary_set(handle, text, (size_t)length, &buffer.value));
            model_dictionary_set(&collection, text, (size_t)length, &buffer.value);
        }
        if (ok) note_new_element(run, &target, &buffer.value);
        decode_free_value(&buffer);
    }
    model_link_vector owned = {0};
    finish_edit(run, handle, &target, &owned);
    ce_collection_close(handle);
}

/* ------------------------------------------------------------------------ */
/* A handle held across operations; nested collections                       */
/* ------------------------------------------------------------------------ */

/* The held handle finds its collection again in the current state: the
 * same errors as opening its path now would give, else the same contents. */
void ops_collections_check_held(runner *run)
{
    const collection_target *target = run->held_target;
    collection_target top = *target;
    top.depth = 0;
    model_view view;
    error_set expected = check_resolve_top(&run->current, &top, &view);
    for (size_t i = 0; i < target->depth && !expected; i++) {
        model_view inner;
        expected = check_resolve_step(&view, &target->steps[i], &inner);
        view = inner;
    }
    size_t count;
    if (EXPECT(expected, ce_collection_size(run->held, &count)))
        check_collection(run->held, view.kind, &view.element, view.elements, 0, CHECK_NESTING);
}

void ops_collections_release_held(runner *run)
{
    if (!run->held) return;
    ce_collection_close(run->held);
    run->held = NULL;
}

/* A handle opened now and kept until this operation comes again or the
 * transaction ends: after every step it is read again (it names a path,
 * so it follows the changes, and fails once the path leads nowhere). */
void ops_collections_hold(runner *run)
{
    if (run->held) {
        ops_collections_check_held(run);
        ops_collections_release_held(run);
        return;
    }
    model_view view;
    bool resolved;
    decode_target(&run->in, run->held_target, &view, &resolved);
    ops_transaction(run);
    run->held = open_target(run, run->held_target, &view);
}

/* Collections nested in one another from the target down: mostly a few
 * levels, one time in 32 over 100 (past the 100 levels a collection may
 * lie at: the last ones are refused), lists and dictionaries as a stream
 * says, a link at the bottom sometimes. The node trees of such values are
 * the deepest the object store builds. */
void ops_collections_nest(runner *run)
{
    collection_target target;
    model_view view;
    bool resolved;
    decode_target(&run->in, &target, &view, &resolved);
    uint8_t size_choice = decode_u8(&run->in.input);
    size_t levels = size_choice < 0xF8 ? 1 + (size_t)(size_choice % 6) : 100 + (size_t)(size_choice % 8);
    source stream = decode_random_source(decode_u32(&run->in.input));
    ce_table_key link_table = decode_table(&run->in);
    ce_object_key link_object = decode_object(&run->in, model_live_table(&run->current, link_table));
    ops_transaction(run);
    ce_collection *handle = open_target(run, &target, &view);
    if (!handle) return;
    if (!run->txn_is_write || view.element.type != CE_TYPE_MIXED || view.kind == CE_COLLECTION_SET) {
        ce_collection_close(handle);
        return;
    }
    /* The model follows level by level: below the target every collection
     * is new, so its pointers stay this operation's own. */
    model_collection **slot = NULL;
    size_t level = target.depth + (target.through_mixed ? 1 : 0);
    ce_collection_type kind = view.kind;
    for (size_t i = 0; i < levels; i++, level++) {
        ce_value nested = {.type = decode_u8(&stream) & 1 ? CE_TYPE_DICTIONARY : CE_TYPE_LIST};
        error_set expected = level >= MAX_NESTING_LEVEL ? ERR(CE_ERR_INVALID_ARGUMENT) : 0;
        model_collection *collection = slot ? model_writable_collection(slot) : writable_target(&run->current, &target);
        if (!expected && collection->count >= MAX_COLLECTION_SIZE) break;
        char key[8] = "n";
        size_t position = collection->count, key_size = 1;
        bool found = false;
        ce_value at = {.type = CE_TYPE_INT, .integer = (int64_t)position};
        if (kind == CE_COLLECTION_DICTIONARY) {
            key_size = (size_t)snprintf(key, sizeof key, "n%zu", i % 1000);
            position = model_key_position(collection, key, key_size, &found);
            at = (ce_value){.type = CE_TYPE_STRING, .string = {key, key_size}};
        }
        bool ok = kind == CE_COLLECTION_LIST ? EXPECT(expected, ce_list_insert(handle, position, &nested))
                                             : EXPECT(expected, ce_dictionary_set(handle, key, key_size, &nested));
        if (!ok) break;
        if (kind == CE_COLLECTION_LIST) {
            model_collection_insert_at(collection, position, model_store_value(&nested), NULL);
        } else if (found) {
            model_release_value(&collection->elements[position]);
            collection->elements[position] = model_store_value(&nested);
        } else {
            ce_value key_value = {.type = CE_TYPE_STRING, .string = {key, key_size}};
            model_slot stored_key = model_store_value(&key_value);
            model_collection_insert_at(collection, position, model_store_value(&nested), &stored_key);
        }
        slot = &collection->elements[position].nested;
        ce_collection *inner;
        MUST(ce_collection_open_nested(handle, &at, &inner));
        ce_collection_close(handle);
        handle = inner;
        kind = model_kind_of_nested_value(nested.type);
    }
    /* A link at the bottom, to be purged from there. */
    if (slot && (decode_u8(&stream) & 1)) {
        ce_value link = {.type = CE_TYPE_LINK, .link = {link_table, link_object}};
        error_set expected = check_element_errors(&run->current, &model_nested_kind, &link);
        bool ok = kind == CE_COLLECTION_LIST ? EXPECT(expected, ce_list_insert(handle, 0, &link))
                                             : EXPECT(expected, ce_dictionary_set(handle, "link", 4, &link));
        if (ok) {
            /* The bottom collection is new and empty: the link is its only element. */
            ce_value key_value = {.type = CE_TYPE_STRING, .string = {"link", 4}};
            model_slot stored_key = model_store_value(&key_value);
            model_collection_insert_at(model_writable_collection(slot), 0, model_store_value(&link),
                                       kind == CE_COLLECTION_DICTIONARY ? &stored_key : NULL);
            if (kind != CE_COLLECTION_DICTIONARY) model_release_value(&stored_key);
            model_ensure_backlink(&run->current, link_table, target.table, target.column);
        }
    }
    /* The bottom through its handle, the top levels from the target down
     * (every level between was opened on the way: each read of a level
     * finds the path from the top again, so reading them all again would
     * cost the square of the depth). */
    if (slot) check_collection(handle, kind, &model_nested_kind, *slot, 0, CHECK_NESTING);
    ce_collection_close(handle);
    handle = open_target(run, &target, &view);
    CHECK(handle != NULL, "the nested collections' target cannot be opened again");
    check_collection(handle, view.kind, &view.element, view.elements, 0, CHECK_NESTING);
    ce_collection_close(handle);
}
