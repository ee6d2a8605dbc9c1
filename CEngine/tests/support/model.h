/*
 * model.h — the one reference model of the object store, in plain C apart
 * from the engine: what a program wrote, so that what the engine reads back
 * can be compared with it. Shared by the C tests and Fuzz/ops (fuzz_ops);
 * built as the static library cengine_model (CEngine/tests/support).
 *
 * Owns: the model's state and what each change does to it: tables and their
 * properties (backlink properties included), objects in key order with their
 * values (strings and binaries copied), links with the engine's cascades
 * (embedded objects owned by their parent, links purged when their target
 * goes), lists, sets and dictionaries (nested ones in mixed values), and the
 * engine's value semantics (sameness, lookup equality, the total order sets
 * keep, strict UTF-8, timestamps), written apart from value.c so that the
 * two can disagree.
 * Never: calls the engine; decides which call must fail or compares
 * anything with the engine (the callers' business: Fuzz/ops/check.c, the
 * tests' checks); aborts except when memory runs out.
 *
 * Two ways in:
 *  - A whole store (`model`): tables -> properties -> objects -> slots. The
 *    model is changed only by what succeeded in the engine. Backlinks are
 *    not stored: they are counted from the links the objects hold
 *    (model_backlinks). Copies are cheap (model_copy shares bytes and
 *    collections, copied when one side changes them): keep one per commit
 *    or reader.
 *  - One collection on its own (a test's list, set or dictionary): a
 *    `model_collection *` that starts NULL (empty), changed through
 *    model_list_*, model_set_* and model_dictionary_*, read as
 *    collection->elements[i].value (and ->keys[i].value for a dictionary's
 *    keys), copied with model_collection_share and freed with
 *    model_collection_free.
 */
#ifndef CENGINE_TESTS_MODEL_H
#define CENGINE_TESTS_MODEL_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    MODEL_NAME_CAPACITY = 64, /* the engine takes names of 1 to 63 bytes */
    /* Names of backlink properties: "@links.<table>.<property>" */
    MODEL_PROPERTY_NAME_CAPACITY = 2 * MODEL_NAME_CAPACITY + 16,
    MODEL_MAX_EMBEDDING_DEPTH = 100, /* embedded objects below one top-level object, as in Realm */
};

/* ------------------------------------------------------------------------ */
/* The state                                                                 */
/* ------------------------------------------------------------------------ */

/* The bytes of a string or binary, shared by the copies of the model. */
typedef struct model_blob {
    size_t references;
    size_t size;
    uint8_t bytes[];
} model_blob;

typedef struct model_collection model_collection;

/* One value slot: a property's value, a collection property (its elements
 * in `nested`, value null), or an element of a collection. A mixed value
 * holding a nested list or dictionary has that type and its elements in
 * `nested`. NULL `nested` is an empty collection. */
typedef struct model_slot {
    ce_value value; /* a string or binary points into `bytes`; a link is {table, key} */
    model_blob *bytes;
    model_collection *nested;
} model_slot;

/* The elements of a list, set or dictionary (which of them the slot that
 * holds it says), shared by the copies of the model and copied on write:
 * a set's in the engine's value order (model_order_value), a dictionary's
 * with one string key each, keys bytewise ascending. */
struct model_collection {
    size_t references;
    size_t count, capacity;
    model_slot *elements;
    model_slot *keys; /* dictionaries only */
};

typedef struct model_property {
    char name[MODEL_PROPERTY_NAME_CAPACITY];
    ce_type type; /* collections: the element type */
    bool nullable, primary_key, indexed, removed;
    ce_collection_type collection;
    ce_table_key link_target; /* links: the target table; backlinks: the origin table */
    bool backlink;            /* the links of link_target.origin_column into this table */
    ce_column_key origin_column;
} model_property;

typedef struct model_table {
    char name[MODEL_NAME_CAPACITY];
    bool removed, embedded;
    size_t property_count; /* slots: removed properties keep theirs */
    model_property *properties;
    size_t object_count, object_capacity;
    ce_object_key *keys; /* ascending: the order of creation, as ce_object_key_at */
    model_slot *values;  /* object_count rows of property_count values */
    ce_object_key next_key;
} model_table;

typedef struct model {
    size_t table_count; /* slots: removed tables keep theirs */
    model_table *tables;
    uint64_t schema_version;
} model;

/* What the slots of a property or the elements of a collection hold. */
typedef struct model_kind {
    ce_type type; /* a scalar type, CE_TYPE_LINK or CE_TYPE_MIXED */
    bool nullable;
    ce_table_key link_target;
    bool in_set; /* a set's mixed elements hold no nested collections */
} model_kind;

/* What the elements of a list or dictionary nested in a mixed value hold. */
extern const model_kind model_nested_kind;

typedef struct model_link_vector {
    ce_link *items;
    size_t count, capacity;
} model_link_vector;

/* calloc and realloc that abort when memory runs out. */
void *model_allocate(size_t size);
void *model_grow(void *memory, size_t size);

/* ------------------------------------------------------------------------ */
/* Values as the engine defines them                                         */
/* ------------------------------------------------------------------------ */

/* Strict UTF-8 as cengine.h promises it (U+0000 allowed). */
bool model_is_utf8(const uint8_t *bytes, size_t size);
bool model_timestamp_is_valid(ce_timestamp timestamp);
bool model_is_scalar_type(ce_type type);
bool model_is_bytes_type(ce_type type);
bool model_is_primary_key_type(ce_type type);
bool model_is_indexable_type(ce_type type);
bool model_is_nested_type(ce_type type);
/* The same bits (what the engine stores and reads back). */
bool model_same_value(const ce_value *a, const ce_value *b);
/* Equality of lookups: floats, doubles and decimals by number. */
bool model_equal_value(const ce_value *a, const ce_value *b);
/* The engine's total order (by type number first): sets keep it. */
int model_order_value(const ce_value *a, const ce_value *b);

/* ------------------------------------------------------------------------ */
/* Slots and collections                                                     */
/* ------------------------------------------------------------------------ */

model_slot model_store_value(const ce_value *value);
void model_retain_value(model_slot *stored);
void model_release_value(model_slot *stored);
size_t model_collection_count(const model_collection *collection);
model_collection *model_writable_collection(model_collection **slot);
void model_collection_insert_at(model_collection *collection, size_t index, model_slot element, const model_slot *key);
void model_collection_erase_at(model_collection *collection, size_t index);
size_t model_key_position(const model_collection *collection, const char *key, size_t size, bool *out_found);
size_t model_set_position(const model_collection *collection, const ce_value *value, bool *out_found);
ce_collection_type model_kind_of_nested_value(ce_type type);
bool model_find(ce_collection_type kind, const model_collection *collection, const ce_value *value,
                size_t *out_index);
size_t model_collection_links_to(const model_collection *collection, ce_link target);

/* One collection on its own (NULL: empty). Each change copies the
 * collection first when it is shared (model_collection_share). Values are
 * copied in; a nested list or dictionary comes in new and empty. */
void model_list_insert(model_collection **collection, size_t index, const ce_value *value);
void model_list_set(model_collection **collection, size_t index, const ce_value *value);
void model_list_erase(model_collection **collection, size_t index);
void model_list_move(model_collection **collection, size_t from, size_t to);
void model_list_swap(model_collection **collection, size_t a, size_t b);
/* Whether the set changed (the value was not there / was there). */
bool model_set_insert(model_collection **collection, const ce_value *value);
bool model_set_erase(model_collection **collection, const ce_value *value);
void model_dictionary_set(model_collection **collection, const char *key, size_t size, const ce_value *value);
bool model_dictionary_erase(model_collection **collection, const char *key, size_t size);
/* The value of a key, or NULL. */
const ce_value *model_dictionary_get(const model_collection *collection, const char *key, size_t size);
void model_collection_clear(model_collection **collection);
/* Another holder of the same elements: a copy made in O(1). */
model_collection *model_collection_share(model_collection *collection);
void model_collection_free(model_collection **collection);

/* ------------------------------------------------------------------------ */
/* Tables and objects                                                        */
/* ------------------------------------------------------------------------ */

void model_free(model *state);
void model_copy(model *out, const model *in);
model_slot *model_value_at(const model_table *table, size_t position, size_t column);
model_table *model_live_table(const model *state, ce_table_key key);
const model_property *model_live_property(const model_table *table, ce_column_key column);
bool model_holds_one_value(const model_property *property);
bool model_holds_links(const model_property *property);
model_kind model_kind_of_property(const model_property *property);
long model_primary_key_of(const model_table *table);
long model_position_of(const model_table *table, ce_object_key key);
long model_position_of_primary_key(const model_table *table, const ce_value *value);
long model_first_position_equal(const model_table *table, size_t column, const ce_value *value);
size_t model_total_objects(const model *state);
const model_table *model_table_named(const model *state, const char *name);
long model_property_named(const model_table *table, const char *name);
long model_property_found_by_name(const model_table *table, const char *name);
bool model_table_is_link_target(const model *state, ce_table_key key);

void model_add_table(model *state, const char *name, bool embedded);
void model_add_property(model_table *table, const ce_property_info *info);
void model_ensure_backlink(model *state, ce_table_key target, ce_table_key origin_table, size_t origin_column);
void model_remove_property(model_table *table, size_t column);
void model_clear_link_property(model *state, ce_table_key key, size_t column);
void model_remove_table_with_links(model *state, ce_table_key key);
void model_create(model_table *table, ce_object_key key, const ce_value *primary_key, const ce_value *values);
void model_note_links(model *state, ce_table_key key, const ce_value *values, size_t count);
void model_delete(model_table *table, size_t position);
void model_delete_object(model *state, ce_table_key key, ce_object_key object);
void model_set_value(model *state, ce_table_key key, size_t position, size_t column, const ce_value *value);

/* ------------------------------------------------------------------------ */
/* Links                                                                     */
/* ------------------------------------------------------------------------ */

void model_link_vector_push(model_link_vector *vector, ce_link link);
size_t model_slot_links_to(const model_slot *slot, ce_link target);
void model_delete_owned(model *state, const model_link_vector *owned);
size_t model_backlinks(const model *state, ce_link target, ce_table_key origin_table, size_t origin_column,
                       ce_object_key *origins, size_t capacity);
bool model_owns_embedded(const model *state, const model_kind *kind);
unsigned model_embedding_depth(const model *state, ce_table_key key, ce_object_key object);

#endif
