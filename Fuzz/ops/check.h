/*
 * check.h — fuzz_ops's checker: how a call is held to what the model
 * expects, and how the engine's state is compared with the model's.
 *
 * Owns: the verdict on each call (EXPECT, MUST, CHECK, and the rules that
 * say which errors a value, a link or the path to a nested collection may
 * cause) and the comparisons of what the engine reads back with the model
 * (tables, objects, collections, backlinks), with the report of a bug.
 * Never: changes the model or the engine's data, or reads the input.
 */
#ifndef FUZZ_OPS_CHECK_H
#define FUZZ_OPS_CHECK_H

#include "cengine.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    MAX_PATH_DEPTH = 3, /* nested collections below a mixed value or element, for the operations */
    KEY_CAPACITY = 48,  /* dictionary keys the harness spells */
    CHECK_NESTING = 6,  /* nested levels a check reads (each level's calls find the path again) */
};

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------ */

extern bool check_verbose; /* FUZZ_OPS_VERBOSE=1: print every operation and failed call (for triage) */
extern size_t check_step;   /* the operation being run, for the report */
extern const char *check_operation;

typedef uint64_t error_set; /* a bit per ce_error_code the model allows */
#define ERR(code) ((error_set)1 << (code))

/* Aborts with a report: libFuzzer records the input as a crash. */
_Noreturn void check_bug(const char *what, const char *call);
void check_clear_error(void);
bool check_expect(bool ok, error_set expected, const char *call);

#define EXPECT(expected, expression) (check_clear_error(), check_expect((expression), (expected), #expression))
#define MUST(expression) EXPECT(0, expression)
#define CHECK(condition, what)                                                                                \
    do {                                                                                                      \
        if (!(condition)) check_bug(what, #condition);                                                        \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The errors the model allows                                               */
/* ------------------------------------------------------------------------ */

error_set check_element_errors(const model *state, const model_kind *kind, const ce_value *value);
error_set check_value_errors(const model *state, const model_property *property, const ce_value *value);
error_set check_row_value_errors(const model *state, const model_property *property, const ce_value *value);
error_set check_embedding_depth_errors(const model *state, ce_table_key key, ce_object_key object);

/* ------------------------------------------------------------------------ */
/* Collections: a handle's path, resolved in the model                       */
/* ------------------------------------------------------------------------ */

typedef struct dictionary_key {
    char bytes[KEY_CAPACITY];
    size_t size;
} dictionary_key;

/* One step into a nested collection: an index in a list, a key in a
 * dictionary (or the wrong one of the two, on purpose). */
typedef struct path_step {
    bool by_key;
    size_t index;
    dictionary_key key;
} path_step;

/* What a handle names: a collection property (or the collection a mixed
 * property holds), then steps into nested collections. */
typedef struct collection_target {
    ce_table_key table;
    ce_object_key object;
    ce_column_key column;
    bool through_mixed; /* ce_collection_open_mixed instead of ce_collection_open */
    size_t depth;
    path_step steps[MAX_PATH_DEPTH];
} collection_target;

/* A collection as the model has it. */
typedef struct model_view {
    ce_collection_type kind;
    model_kind element;               /* its elements (a dictionary's values) */
    const model_collection *elements; /* NULL: empty */
} model_view;

error_set check_resolve_top(const model *state, const collection_target *target, model_view *view);
error_set check_resolve_step(const model_view *parent, const path_step *step, model_view *view);

/* ------------------------------------------------------------------------ */
/* Comparing the engine with the model                                       */
/* ------------------------------------------------------------------------ */

void check_message_names(const model_table *table, const model_property *property, const char *call);
void check_same_value(const ce_value *engine, const ce_value *expected, const char *call);
void check_property_info(ce_txn *txn, const model_table *table, ce_table_key key, ce_column_key column);
/* The index-th of `samples` positions spread over `count`. */
size_t check_spread(size_t index, size_t samples, size_t count);
void check_collection(const ce_collection *handle, ce_collection_type kind, const model_kind *element,
                      const model_collection *expected, unsigned depth, unsigned max_depth);
void check_backlinks(ce_txn *txn, const model *state, ce_table_key key, size_t position);
void check_object(ce_txn *txn, const model *state, const model_table *table, ce_table_key key, size_t position);
void check_table(ce_txn *txn, const model *state, ce_table_key key, size_t samples);
void check_everything(ce_txn *txn, const model *state, size_t samples);
/* What ce_changes_compute(old_txn, new_txn) reports (per table: deleted,
 * inserted, modified objects and their columns; whether the schema
 * changed) against the diff of the two models those transactions read;
 * and, for Realm's default key-path filter on each table, the objects
 * ce_changes_matching_objects lists against ce_changes_object_matches. */
void check_changes(ce_txn *old_txn, ce_txn *new_txn, const model *old_state, const model *new_state);

#endif
