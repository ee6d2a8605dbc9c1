/*
 * check.c — fuzz_ops's checker (check.h): the verdict on each call and the
 * comparison of the engine's state with the model's.
 *
 * Owns: EXPECT's verdict and the report of a bug; the rules of which errors
 * a value, a link or a path may cause; the comparisons of tables, objects,
 * collections and backlinks with the model (invariants 1, 2, 6 and 8 of
 * docs/DESIGN.md, as the opening comment of fuzz_ops.c says), and of a
 * change set (ce_changes_*) with the diff of two models.
 * Never: changes the model or the engine's data, or reads the input.
 *
 * Where several errors apply to one call (say a missing object and a value
 * of the wrong type) the model allows each of them: which check comes first
 * is the engine's business, that it fails with one of them is not.
 */
#include "check.h"

#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ELEMENT_SAMPLE = 24 }; /* elements of a long collection compared in a check */

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------ */

bool check_verbose;
size_t check_step;
const char *check_operation = "open";

static void print_error_set(error_set set)
{
    if (!set) fprintf(stderr, "success");
    for (int code = 0; code < 64; code++)
        if (set & ERR(code)) fprintf(stderr, "%s[%d] %s", set & (ERR(code) - 1) ? " or " : "", code,
                                     ce_error_name((ce_error_code)code));
}

/* Aborts with a report: libFuzzer records the input as a crash. */
_Noreturn void check_bug(const char *what, const char *call)
{
    fprintf(stderr, "fuzz_ops: step %zu (%s): %s (%s); last error [%d] %s\n", check_step, check_operation, what,
            call, (int)ce_last_error_code(), ce_last_error_message());
    abort();
}

/* Clears the thread's last error so that a failure can be seen to set it. */
void check_clear_error(void) { error_fail(CE_OK, "%s", ""); }

/* Holds a call to what the model expects: success when `expected` is empty,
 * else a failure with one of its codes, and a code and a message with every
 * failure (invariant 8). Returns whether the call succeeded. */
bool check_expect(bool ok, error_set expected, const char *call)
{
    if (ok) {
        if (expected) {
            fprintf(stderr, "fuzz_ops: expected ");
            print_error_set(expected);
            fprintf(stderr, "\n");
            check_bug("the call succeeded where the model expects an error", call);
        }
        return true;
    }
    ce_error_code code = ce_last_error_code();
    const char *message = ce_last_error_message();
    if (code == CE_OK || !message || !message[0]) check_bug("a call failed without an error code and message", call);
    if (check_verbose) fprintf(stderr, "fuzz_ops:   %s -> [%d] %s\n", call, (int)code, message);
    if (!expected) check_bug("the call failed where the model expects success", call);
    if ((unsigned)code >= 64 || !(expected & ERR(code))) {
        fprintf(stderr, "fuzz_ops: expected ");
        print_error_set(expected);
        fprintf(stderr, "\n");
        check_bug("the call failed with an error code the model does not allow", call);
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* The errors the model allows                                               */
/* ------------------------------------------------------------------------ */

/* The errors of a link being stored where `kind` says: to the property's
 * target table (a typed link), to a live table, not to an embedded object
 * (those are linked only when created through their parent), to an
 * existing object. */
static error_set link_errors(const model *state, const model_kind *kind, ce_link link)
{
    if (kind->type == CE_TYPE_LINK && link.table != kind->link_target) return ERR(CE_ERR_WRONG_TYPE);
    const model_table *target = model_live_table(state, link.table);
    if (!target) return ERR(CE_ERR_NO_SUCH_TABLE);
    error_set expected = target->embedded ? ERR(CE_ERR_EMBEDDED_OBJECT) : 0;
    if (model_position_of(target, link.key) < 0) expected |= ERR(CE_ERR_NO_SUCH_OBJECT);
    return expected;
}

/* The errors a value may cause in a slot of `kind`. */
error_set check_element_errors(const model *state, const model_kind *kind, const ce_value *value)
{
    /* A tag that is none of ce_type's is refused first, whatever the slot. */
    if ((unsigned)value->type > CE_TYPE_DICTIONARY) return ERR(CE_ERR_INVALID_ARGUMENT);
    if (value->type == CE_TYPE_NULL) return kind->nullable ? 0 : ERR(CE_ERR_NULL_NOT_ALLOWED);
    if (kind->type == CE_TYPE_MIXED) {
        if (value->type == CE_TYPE_MIXED) return ERR(CE_ERR_WRONG_TYPE);
        if (kind->in_set && model_is_nested_type(value->type)) return ERR(CE_ERR_WRONG_TYPE);
    } else if (value->type != kind->type) {
        return ERR(CE_ERR_WRONG_TYPE);
    }
    if (value->type == CE_TYPE_LINK) return link_errors(state, kind, value->link);
    if (value->type == CE_TYPE_STRING && !model_is_utf8((const uint8_t *)value->string.data, value->string.size))
        return ERR(CE_ERR_INVALID_ARGUMENT);
    if (value->type == CE_TYPE_TIMESTAMP && !model_timestamp_is_valid(value->timestamp)) return ERR(CE_ERR_INVALID_ARGUMENT);
    return 0;
}

/* The errors a value may cause in a property: collections and backlinks
 * take no value (ce_collection_open, ce_object_backlink_count). */
error_set check_value_errors(const model *state, const model_property *property, const ce_value *value)
{
    if (!model_holds_one_value(property)) return ERR(CE_ERR_WRONG_TYPE);
    model_kind kind = model_kind_of_property(property);
    return check_element_errors(state, &kind, value);
}

/* The errors of a whole object's value in a slot: collection and backlink
 * slots take null (a new object's collections are empty). */
error_set check_row_value_errors(const model *state, const model_property *property, const ce_value *value)
{
    if (!model_holds_one_value(property)) return value->type == CE_TYPE_NULL ? 0 : ERR(CE_ERR_WRONG_TYPE);
    return check_value_errors(state, property, value);
}

error_set check_embedding_depth_errors(const model *state, ce_table_key key, ce_object_key object)
{
    const model_table *table = model_live_table(state, key);
    if (!table || model_position_of(table, object) < 0) return 0;
    return model_embedding_depth(state, key, object) >= MODEL_MAX_EMBEDDING_DEPTH ? ERR(CE_ERR_INVALID_ARGUMENT) : 0;
}

/* ------------------------------------------------------------------------ */
/* Collections: a handle's path, resolved in the model                       */
/* ------------------------------------------------------------------------ */

/* What opening the target's top collection gives: its errors, or the view. */
error_set check_resolve_top(const model *state, const collection_target *target, model_view *view)
{
    const model_table *table = model_live_table(state, target->table);
    if (!table) return ERR(CE_ERR_NO_SUCH_TABLE);
    const model_property *property = model_live_property(table, target->column);
    if (!property) return ERR(CE_ERR_NO_SUCH_PROPERTY);
    if (target->through_mixed ? property->type != CE_TYPE_MIXED || property->collection != CE_COLLECTION_NONE
                              : property->collection == CE_COLLECTION_NONE)
        return ERR(CE_ERR_WRONG_TYPE);
    long position = model_position_of(table, target->object);
    if (position < 0) return ERR(CE_ERR_NO_SUCH_OBJECT);
    const model_slot *slot = model_value_at(table, (size_t)position, target->column);
    if (!target->through_mixed) {
        *view = (model_view){property->collection, model_kind_of_property(property), slot->nested};
        return 0;
    }
    if (!model_is_nested_type(slot->value.type)) return ERR(CE_ERR_WRONG_TYPE);
    *view = (model_view){model_kind_of_nested_value(slot->value.type), model_nested_kind, slot->nested};
    return 0;
}

/* The element a step names: its position, or the errors of reaching it. */
static error_set step_position(const model_view *view, const path_step *step, size_t *out_position)
{
    if (view->kind == CE_COLLECTION_LIST) {
        if (step->by_key) return ERR(CE_ERR_WRONG_TYPE);
        if (step->index >= model_collection_count(view->elements)) return ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
        *out_position = step->index;
        return 0;
    }
    if (!step->by_key) return ERR(CE_ERR_WRONG_TYPE);
    bool found;
    *out_position = model_key_position(view->elements, step->key.bytes, step->key.size, &found);
    return found ? 0 : ERR(CE_ERR_INDEX_OUT_OF_BOUNDS);
}

/* What ce_collection_open_nested gives for a step from `parent`. */
error_set check_resolve_step(const model_view *parent, const path_step *step, model_view *view)
{
    if (parent->element.type != CE_TYPE_MIXED || parent->kind == CE_COLLECTION_SET) return ERR(CE_ERR_WRONG_TYPE);
    size_t position;
    error_set expected = step_position(parent, step, &position);
    if (expected) return expected;
    const model_slot *element = &parent->elements->elements[position];
    if (!model_is_nested_type(element->value.type)) return ERR(CE_ERR_WRONG_TYPE);
    *view = (model_view){model_kind_of_nested_value(element->value.type), model_nested_kind, element->nested};
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Comparing the engine with the model                                       */
/* ------------------------------------------------------------------------ */

static void print_value(const char *label, const ce_value *value)
{
    fprintf(stderr, "fuzz_ops:   %s: %s", label, ce_type_name(value->type));
    const uint8_t *bytes = NULL;
    size_t size = 0;
    switch (value->type) {
    case CE_TYPE_INT: fprintf(stderr, " %lld", (long long)value->integer); break;
    case CE_TYPE_BOOL: fprintf(stderr, " %d", (int)value->boolean); break;
    case CE_TYPE_FLOAT: fprintf(stderr, " %a", (double)value->float_value); break;
    case CE_TYPE_DOUBLE: fprintf(stderr, " %a", value->double_value); break;
    case CE_TYPE_STRING: bytes = (const uint8_t *)value->string.data, size = value->string.size; break;
    case CE_TYPE_BINARY: bytes = value->binary.data, size = value->binary.size; break;
    case CE_TYPE_TIMESTAMP:
        fprintf(stderr, " %lld s %d ns", (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
        break;
    case CE_TYPE_DECIMAL128:
        fprintf(stderr, " %016llx:%016llx", (unsigned long long)value->decimal.high,
                (unsigned long long)value->decimal.low);
        break;
    case CE_TYPE_OBJECT_ID: bytes = value->object_id.bytes, size = 12; break;
    case CE_TYPE_UUID: bytes = value->uuid.bytes, size = 16; break;
    case CE_TYPE_LINK: fprintf(stderr, " table %u key %lld", (unsigned)value->link.table, (long long)value->link.key); break;
    default: break;
    }
    if (bytes || size) {
        fprintf(stderr, " %zu bytes:", size);
        for (size_t i = 0; i < size && i < 24; i++) fprintf(stderr, " %02x", bytes[i]);
        if (size > 24) fprintf(stderr, " ...");
    }
    fprintf(stderr, "\n");
}

/* Invariant 6: the message of a failure about an object or a value names
 * the table, and the property when the failure is about a value of one
 * ('Table.property'). Failures of other kinds name other things. */
void check_message_names(const model_table *table, const model_property *property, const char *call)
{
    ce_error_code code = ce_last_error_code();
    const char *message = ce_last_error_message();
    bool about_value = code == CE_ERR_WRONG_TYPE || code == CE_ERR_NULL_NOT_ALLOWED ||
                       code == CE_ERR_PRIMARY_KEY_IMMUTABLE || code == CE_ERR_INVALID_ARGUMENT;
    bool about_object = code == CE_ERR_NO_SUCH_OBJECT || code == CE_ERR_DUPLICATE_PRIMARY_KEY;
    /* An unknown type tag is refused before any property is looked at, with
     * one message for every call that names the tag (test_api's
     * unknown_value_type_is_named), not the property. */
    if (code == CE_ERR_INVALID_ARGUMENT && strstr(message, "is not a ce_type")) return;
    if (!table || !(about_value || about_object)) return;
    char wanted[MODEL_NAME_CAPACITY + MODEL_PROPERTY_NAME_CAPACITY + 4];
    if (about_value && property) snprintf(wanted, sizeof wanted, "'%s.%s'", table->name, property->name);
    else snprintf(wanted, sizeof wanted, "'%s", table->name);
    if (!strstr(message, wanted)) {
        fprintf(stderr, "fuzz_ops: the message does not name %s\n", wanted);
        check_bug("an error message does not name the table and property", call);
    }
}

void check_same_value(const ce_value *engine, const ce_value *expected, const char *call)
{
    if (model_same_value(engine, expected)) return;
    print_value("engine", engine);
    print_value("model ", expected);
    check_bug("a value differs from the model", call);
}

void check_property_info(ce_txn *txn, const model_table *table, ce_table_key key, ce_column_key column)
{
    ce_property_info info;
    const model_property *property = model_live_property(table, column);
    if (!EXPECT(property ? 0 : ERR(CE_ERR_NO_SUCH_PROPERTY), ce_property_get_info(txn, key, column, &info))) return;
    CHECK(strcmp(info.name, property->name) == 0 && info.type == property->type &&
              info.nullable == property->nullable && info.primary_key == property->primary_key &&
              info.indexed == property->indexed && info.collection == property->collection &&
              info.link_target == property->link_target && info.backlink == property->backlink &&
              (!property->backlink ||
               (info.origin_table == property->link_target && info.origin_column == property->origin_column)),
          "ce_property_get_info differs from the model");
    ce_column_key found_column;
    bool found;
    MUST(ce_property_find(txn, key, property->name, &found_column, &found));
    CHECK(found && (long)found_column == model_property_found_by_name(table, property->name),
          "ce_property_find differs from the model");
}

size_t check_spread(size_t index, size_t samples, size_t count)
{
    return samples >= count || samples < 2 ? index : index * (count - 1) / (samples - 1);
}

/* Compares an open collection with the model's: kind, size, the elements
 * (all of a short collection, a spread of a long one) with their keys, a
 * find, and nested collections, recursively. */
void check_collection(const ce_collection *handle, ce_collection_type kind, const model_kind *element,
                      const model_collection *expected, unsigned depth, unsigned max_depth)
{
    ce_collection_type engine_kind;
    ce_type engine_type;
    MUST(ce_collection_kind(handle, &engine_kind, &engine_type));
    CHECK(engine_kind == kind && engine_type == element->type, "ce_collection_kind differs from the model");
    size_t count = model_collection_count(expected), engine_count;
    MUST(ce_collection_size(handle, &engine_count));
    if (engine_count != count) fprintf(stderr, "fuzz_ops:   size %zu, model %zu\n", engine_count, count);
    CHECK(engine_count == count, "ce_collection_size differs from the model");
    size_t samples = count <= 2 * ELEMENT_SAMPLE ? count : ELEMENT_SAMPLE;
    for (size_t s = 0; s < samples; s++) {
        size_t i = check_spread(s, samples, count);
        const model_slot *model_element = &expected->elements[i];
        ce_value value, key;
        MUST(ce_collection_get(handle, i, &value));
        check_same_value(&value, &model_element->value, "ce_collection_get");
        if (kind == CE_COLLECTION_DICTIONARY) {
            MUST(ce_dictionary_key_at(handle, i, &key));
            check_same_value(&key, &expected->keys[i].value, "ce_dictionary_key_at");
            ce_value found_value;
            bool found;
            MUST(ce_dictionary_get(handle, key.string.data, key.string.size, &found_value, &found));
            CHECK(found, "ce_dictionary_get does not find a key of the model");
            check_same_value(&found_value, &model_element->value, "ce_dictionary_get");
        }
        if (s == samples / 2 && !model_is_nested_type(value.type)) {
            size_t index, model_index = 0;
            bool found;
            MUST(ce_collection_find(handle, &model_element->value, &index, &found));
            bool model_found = model_find(kind, expected, &model_element->value, &model_index);
            CHECK(found == model_found && (!found || index == model_index), "ce_collection_find differs from the model");
        }
        if (model_is_nested_type(value.type) && depth < max_depth) {
            ce_value at = kind == CE_COLLECTION_DICTIONARY ? expected->keys[i].value
                                                           : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)i};
            ce_collection *inner;
            MUST(ce_collection_open_nested(handle, &at, &inner));
            check_collection(inner, model_kind_of_nested_value(value.type), &model_nested_kind, model_element->nested, depth + 1,
                             max_depth);
            ce_collection_close(inner);
        }
    }
    ce_value value;
    EXPECT(ERR(CE_ERR_INDEX_OUT_OF_BOUNDS), ce_collection_get(handle, count, &value));
}

/* The links into an object, per backlink property (count and origins) and
 * in total, against the links the model's objects hold. */
void check_backlinks(ce_txn *txn, const model *state, ce_table_key key, size_t position)
{
    const model_table *table = &state->tables[key];
    ce_link target = {key, table->keys[position]};
    size_t total = 0, engine_count;
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        if (property->removed || !property->backlink) continue;
        size_t count = model_backlinks(state, target, property->link_target, property->origin_column, NULL, 0);
        ce_object_key *origins = model_allocate(count * sizeof *origins), origin;
        model_backlinks(state, target, property->link_target, property->origin_column, origins, count);
        MUST(ce_object_backlink_count(txn, key, target.key, property->link_target, property->origin_column, &engine_count));
        if (engine_count != count)
            fprintf(stderr, "fuzz_ops:   backlinks of %lld from %s: %zu, model %zu\n", (long long)target.key,
                    property->name, engine_count, count);
        CHECK(engine_count == count, "ce_object_backlink_count differs from the model");
        size_t samples = count <= ELEMENT_SAMPLE ? count : ELEMENT_SAMPLE;
        for (size_t s = 0; s < samples; s++) {
            size_t i = check_spread(s, samples, count);
            MUST(ce_object_backlink_at(txn, key, target.key, property->link_target, property->origin_column, i, &origin));
            CHECK(origin == origins[i], "ce_object_backlink_at differs from the model");
        }
        EXPECT(ERR(CE_ERR_INDEX_OUT_OF_BOUNDS),
               ce_object_backlink_at(txn, key, target.key, property->link_target, property->origin_column, count, &origin));
        free(origins);
        total += count;
    }
    MUST(ce_object_backlink_total(txn, key, target.key, &engine_count));
    CHECK(engine_count == total, "ce_object_backlink_total differs from the model");
}

/* Every property of the object at `position` (collections and nested
 * collections through handles, backlinks), and its key and primary key. */
void check_object(ce_txn *txn, const model *state, const model_table *table, ce_table_key key, size_t position)
{
    ce_object_key object = table->keys[position], at;
    bool exists;
    MUST(ce_object_key_at(txn, key, position, &at));
    CHECK(at == object, "ce_object_key_at differs from the model");
    MUST(ce_object_exists(txn, key, object, &exists));
    CHECK(exists, "ce_object_exists: an object of the model is missing");
    for (size_t p = 0; p < table->property_count; p++) {
        const model_property *property = &table->properties[p];
        const model_slot *slot = model_value_at(table, position, p);
        ce_value value;
        error_set expected = property->removed ? ERR(CE_ERR_NO_SUCH_PROPERTY) : model_holds_one_value(property) ? 0
                                                                                                        : ERR(CE_ERR_WRONG_TYPE);
        if (!EXPECT(expected, ce_object_get(txn, key, object, (ce_column_key)p, &value))) {
            if (property->removed || property->backlink) continue;
            ce_collection *handle;
            MUST(ce_collection_open(txn, key, object, (ce_column_key)p, &handle));
            model_kind kind = model_kind_of_property(property);
            check_collection(handle, property->collection, &kind, slot->nested, 0, CHECK_NESTING);
            ce_collection_close(handle);
            continue;
        }
        check_same_value(&value, &slot->value, "ce_object_get");
        if (model_is_nested_type(value.type)) {
            ce_collection *handle;
            MUST(ce_collection_open_mixed(txn, key, object, (ce_column_key)p, &handle));
            check_collection(handle, model_kind_of_nested_value(value.type), &model_nested_kind, slot->nested, 1, CHECK_NESTING);
            ce_collection_close(handle);
        }
        if (!property->indexed) continue;
        /* The index finds the first object with this value (this one or an
         * earlier one). */
        bool found;
        MUST(ce_object_find_first(txn, key, (ce_column_key)p, &slot->value, &at, &found));
        long first = model_first_position_equal(table, p, &slot->value);
        CHECK(found && first >= 0 && at == table->keys[first], "ce_object_find_first (indexed) differs from the model");
    }
    long primary = model_primary_key_of(table);
    if (primary >= 0) {
        bool found;
        MUST(ce_object_find_primary_key(txn, key, &model_value_at(table, position, (size_t)primary)->value, &at, &found));
        CHECK(found && at == object, "ce_object_find_primary_key does not find an object of the model");
    }
    check_backlinks(txn, state, key, position);
}

/* A table's name, schema, count, and `samples` objects spread over it (all
 * when it has no more). */
void check_table(ce_txn *txn, const model *state, ce_table_key key, size_t samples)
{
    const model_table *table = model_live_table(state, key);
    size_t count;
    const char *name;
    if (!table) {
        EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_object_count(txn, key, &count));
        EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_table_name(txn, key, &name));
        EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_property_count(txn, key, &count));
        return;
    }
    MUST(ce_table_name(txn, key, &name));
    CHECK(strcmp(name, table->name) == 0, "ce_table_name differs from the model");
    bool embedded;
    MUST(ce_table_is_embedded(txn, key, &embedded));
    CHECK(embedded == table->embedded, "ce_table_is_embedded differs from the model");
    ce_table_key found_key;
    bool found;
    MUST(ce_table_find(txn, table->name, &found_key, &found));
    CHECK(found && found_key == key, "ce_table_find differs from the model");
    MUST(ce_property_count(txn, key, &count));
    CHECK(count == table->property_count, "ce_property_count differs from the model");
    for (size_t p = 0; p < table->property_count; p++) check_property_info(txn, table, key, (ce_column_key)p);
    MUST(ce_object_count(txn, key, &count));
    CHECK(count == table->object_count, "ce_object_count differs from the model");
    size_t checked = samples < count ? samples : count;
    for (size_t i = 0; i < checked; i++) check_object(txn, state, table, key, check_spread(i, checked, count));
    ce_object_key at;
    bool exists;
    EXPECT(ERR(CE_ERR_INDEX_OUT_OF_BOUNDS), ce_object_key_at(txn, key, count, &at));
    MUST(ce_object_exists(txn, key, table->next_key, &exists));
    CHECK(!exists, "ce_object_exists: an object past the next key exists");
}

void check_everything(ce_txn *txn, const model *state, size_t samples)
{
    size_t count;
    uint64_t version;
    MUST(ce_table_count(txn, &count));
    CHECK(count == state->table_count, "ce_table_count differs from the model");
    MUST(ce_schema_version(txn, &version));
    CHECK(version == state->schema_version, "ce_schema_version differs from the model");
    for (size_t t = 0; t < state->table_count; t++) check_table(txn, state, (ce_table_key)t, samples);
}

/* ------------------------------------------------------------------------ */
/* Change sets against the diff of two models                                */
/* ------------------------------------------------------------------------ */

static bool same_elements(const model_collection *a, const model_collection *b, bool dictionary);

/* A slot's value in two models, nested collections included: the same
 * bits (a change is a value that reads back otherwise). */
static bool same_slot(const model_slot *a, const model_slot *b)
{
    if (!model_same_value(&a->value, &b->value)) return false;
    if (a->value.type == CE_TYPE_LIST || a->value.type == CE_TYPE_DICTIONARY)
        return same_elements(a->nested, b->nested, a->value.type == CE_TYPE_DICTIONARY);
    return true;
}

static bool same_elements(const model_collection *a, const model_collection *b, bool dictionary)
{
    size_t count = model_collection_count(a);
    if (count != model_collection_count(b)) return false;
    for (size_t i = 0; i < count; i++) {
        if (dictionary && !model_same_value(&a->keys[i].value, &b->keys[i].value)) return false;
        if (!same_slot(&a->elements[i], &b->elements[i])) return false;
    }
    return true;
}

/* Compared between the versions: live in both, not backlinks, defined
 * alike. */
static bool compared_property(const model_property *a, const model_property *b)
{
    return a && b && !a->backlink && !b->backlink && a->type == b->type && a->nullable == b->nullable &&
           a->collection == b->collection && a->link_target == b->link_target;
}

static bool schema_differs(const model *a, const model *b)
{
    if (a->table_count != b->table_count || a->schema_version != b->schema_version) return true;
    for (ce_table_key t = 0; t < a->table_count; t++) {
        const model_table *ta = model_live_table(a, t), *tb = model_live_table(b, t);
        if (!ta != !tb) return true;
        if (!ta) continue;
        if (strcmp(ta->name, tb->name) != 0 || ta->embedded != tb->embedded) return true;
        size_t count = ta->property_count > tb->property_count ? ta->property_count : tb->property_count;
        for (ce_column_key c = 0; c < count; c++) {
            const model_property *pa = model_live_property(ta, c), *pb = model_live_property(tb, c);
            if (pa && pa->backlink) pa = NULL;
            if (pb && pb->backlink) pb = NULL;
            if (!pa != !pb) return true;
            if (pa && (!compared_property(pa, pb) || strcmp(pa->name, pb->name) != 0 ||
                       pa->indexed != pb->indexed || pa->primary_key != pb->primary_key))
                return true;
        }
    }
    return false;
}

static void check_keys(const ce_object_key *engine, size_t engine_count, const ce_object_key *expected,
                       size_t expected_count, const char *what)
{
    CHECK(engine_count == expected_count, what);
    for (size_t i = 0; i < expected_count; i++) CHECK(engine[i] == expected[i], what);
}

/* One table slot: the merge of the two models' keys against the engine's
 * lists, and each object in both against ce_changes_object. */
static void check_table_changes(const ce_changes *changes, ce_table_key key, const model_table *old_table,
                                const model_table *new_table)
{
    size_t old_count = old_table ? old_table->object_count : 0, new_count = new_table ? new_table->object_count : 0;
    ce_object_key *deleted = malloc((old_count + 1) * sizeof *deleted);
    ce_object_key *inserted = malloc((new_count + 1) * sizeof *inserted);
    ce_object_key *modified = malloc((old_count + 1) * sizeof *modified);
    size_t column_capacity = (old_table ? old_table->property_count : 0) + 1;
    ce_column_key *expected_columns = malloc(column_capacity * sizeof *expected_columns);
    ce_column_key *engine_columns = malloc(column_capacity * sizeof *engine_columns);
    if (!deleted || !inserted || !modified || !expected_columns || !engine_columns)
        check_bug("out of memory", "check_table_changes");
    size_t deleted_count = 0, inserted_count = 0, modified_count = 0, i = 0, j = 0;
    while (i < old_count || j < new_count) {
        if (j == new_count || (i < old_count && old_table->keys[i] < new_table->keys[j])) {
            deleted[deleted_count++] = old_table->keys[i++];
            continue;
        }
        if (i == old_count || new_table->keys[j] < old_table->keys[i]) {
            inserted[inserted_count++] = new_table->keys[j++];
            continue;
        }
        size_t changed = 0;
        for (ce_column_key c = 0; c < old_table->property_count && c < new_table->property_count; c++) {
            const model_property *a = model_live_property(old_table, c), *b = model_live_property(new_table, c);
            if (!compared_property(a, b)) continue;
            const model_slot *sa = model_value_at(old_table, i, c), *sb = model_value_at(new_table, j, c);
            bool same = a->collection == CE_COLLECTION_NONE
                            ? same_slot(sa, sb)
                            : same_elements(sa->nested, sb->nested, a->collection == CE_COLLECTION_DICTIONARY);
            if (!same) expected_columns[changed++] = c;
        }
        ce_object_change_kind kind;
        size_t engine_count = 0;
        MUST(ce_changes_object(changes, key, old_table->keys[i], &kind, engine_columns, column_capacity,
                               &engine_count));
        CHECK(kind == (changed ? CE_OBJECT_MODIFIED : CE_OBJECT_UNCHANGED),
              "ce_changes_object: another kind of change than the models' diff");
        CHECK(engine_count == changed, "ce_changes_object: another number of columns changed than the models' diff");
        for (size_t k = 0; k < changed; k++)
            CHECK(engine_columns[k] == expected_columns[k], "ce_changes_object: other columns than the models' diff");
        if (changed) modified[modified_count++] = old_table->keys[i];
        i++, j++;
    }
    const ce_object_key *engine_deleted, *engine_inserted, *engine_modified;
    size_t engine_deleted_count, engine_inserted_count, engine_modified_count;
    MUST(ce_changes_table(changes, key, &engine_deleted, &engine_deleted_count, &engine_inserted,
                          &engine_inserted_count, &engine_modified, &engine_modified_count));
    check_keys(engine_deleted, engine_deleted_count, deleted, deleted_count,
               "ce_changes_table: other deleted objects than the models' diff");
    check_keys(engine_inserted, engine_inserted_count, inserted, inserted_count,
               "ce_changes_table: other inserted objects than the models' diff");
    check_keys(engine_modified, engine_modified_count, modified, modified_count,
               "ce_changes_table: other modified objects than the models' diff");
    for (size_t k = 0; k < deleted_count; k++) {
        ce_object_change_kind kind;
        MUST(ce_changes_object(changes, key, deleted[k], &kind, NULL, 0, NULL));
        CHECK(kind == CE_OBJECT_DELETED, "ce_changes_object: a deleted object is not reported deleted");
    }
    for (size_t k = 0; k < inserted_count; k++) {
        ce_object_change_kind kind;
        MUST(ce_changes_object(changes, key, inserted[k], &kind, NULL, 0, NULL));
        CHECK(kind == CE_OBJECT_INSERTED, "ce_changes_object: an inserted object is not reported inserted");
    }
    free(deleted), free(inserted), free(modified), free(expected_columns), free(engine_columns);
}

/* Realm's default filter on a table: every object ce_changes_matching_objects
 * lists is one ce_changes_object_matches says changed, and the reverse. */
static void check_default_matches(const ce_changes *changes, ce_txn *new_txn, ce_table_key key,
                                  const model_table *table)
{
    ce_key_path_filter *filter;
    MUST(ce_key_path_filter_create(new_txn, key, NULL, 0, &filter));
    const ce_object_key *matching;
    size_t matching_count, next = 0;
    MUST(ce_changes_matching_objects(changes, filter, &matching, &matching_count));
    for (size_t i = 0; i < table->object_count; i++) {
        bool changed, listed = next < matching_count && matching[next] == table->keys[i];
        MUST(ce_changes_object_matches(changes, filter, table->keys[i], &changed));
        CHECK(changed == listed, "ce_changes_matching_objects and ce_changes_object_matches disagree");
        next += listed;
    }
    CHECK(next == matching_count, "ce_changes_matching_objects lists an object the table does not have");
    ce_key_path_filter_free(filter);
}

void check_changes(ce_txn *old_txn, ce_txn *new_txn, const model *old_state, const model *new_state)
{
    ce_changes *changes;
    MUST(ce_changes_compute(old_txn, new_txn, &changes));
    CHECK(ce_changes_schema_changed(changes) == schema_differs(old_state, new_state),
          "ce_changes_schema_changed differs from the models' diff");
    size_t tables = old_state->table_count > new_state->table_count ? old_state->table_count : new_state->table_count;
    for (ce_table_key t = 0; t < tables; t++) {
        const model_table *old_table = model_live_table(old_state, t), *new_table = model_live_table(new_state, t);
        if (!old_table && !new_table) {
            EXPECT(ERR(CE_ERR_NO_SUCH_TABLE), ce_changes_table(changes, t, NULL, NULL, NULL, NULL, NULL, NULL));
            continue;
        }
        check_table_changes(changes, t, old_table, new_table);
        if (new_table) check_default_matches(changes, new_txn, t, new_table);
    }
    ce_changes_free(changes);
}
