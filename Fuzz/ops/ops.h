/*
 * ops.h — fuzz_ops's operations: the state of one run and the operations
 * that apply a decoded step to the engine and to the model.
 *
 * Owns: the runner (the engine's handles and the models of one run), the
 * list of operations, and the declarations of ops_schema.c, ops_objects.c,
 * ops_collections.c and fuzz_ops.c (the entry point, for make_corpus.c).
 * Never: holds code but three small helpers that every operation uses.
 */
#ifndef FUZZ_OPS_OPS_H
#define FUZZ_OPS_OPS_H

#include "cengine.h"
#include "check.h"
#include "decode.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    MAX_OBJECTS = 3000, /* in all tables of the model together, for creates */
    COMMIT_SAMPLE = 8,  /* objects per table compared after a commit */
};

/* A results observer kept across commits (check_notify.c): a view of a
 * table, with a predicate over one property (or every object), sorted or
 * not, and the keys of its last change set's new version. */
typedef struct results_watch {
    ce_results_observer *observer; /* NULL: none yet */
    ce_results *results;           /* the view the observer watches, read in each new version */
    ce_table_key table;
    long column; /* the predicate's property, -1: TRUEPREDICATE */
    ce_type type;
    bool sorted, from_snapshots;
    ce_object_key *keys;
    size_t count;
} results_watch;

enum { RESULTS_WATCHES = 4 };

typedef struct runner {
    decoder in; /* the input; its arguments are picked from `current` */
    ce_db_options options;
    ce_db *db;
    ce_txn *txn; /* the current transaction, or NULL */
    bool txn_is_write;
    ce_txn *reader;                        /* a read transaction held across operations, or NULL */
    model current;                         /* what the current transaction sees */
    model committed;                       /* the latest commit: equal to current when no write is open */
    model snapshot;                        /* what the held reader sees */
    uint64_t version;                      /* the latest committed version, as ce_db_verify reports it */
    ce_collection *held;                   /* a collection handle kept open across operations, or NULL */
    struct collection_target *held_target; /* what it names */
    results_watch watches[RESULTS_WATCHES]; /* alive from one commit to the next, until a reopen */
} runner;

/* The transaction operations run in: a new write transaction when none is
 * open. */
static inline ce_txn *ops_transaction(runner *run)
{
    if (!run->txn) {
        MUST(ce_txn_begin_write(run->db, &run->txn));
        run->txn_is_write = true;
    }
    return run->txn;
}

static inline error_set ops_write_errors(const runner *run)
{
    return run->txn_is_write ? 0 : ERR(CE_ERR_WRONG_TRANSACTION_STATE);
}

/* Room for one more object of the model (embedded ones count). */
static inline bool ops_room_for_objects(const runner *run, size_t count)
{
    return model_total_objects(&run->current) + count <= MAX_OBJECTS;
}

enum operation {
    OP_ADD_TABLE,
    OP_REMOVE_TABLE,
    OP_ADD_PROPERTY,
    OP_REMOVE_PROPERTY,
    OP_CREATE,
    OP_CREATE_WITH_VALUES,
    OP_CREATE_OR_UPDATE,
    OP_CREATE_MANY,
    OP_DELETE,
    OP_DELETE_MANY,
    OP_SET,
    OP_GET,
    OP_FIND_PRIMARY_KEY,
    OP_FIND_FIRST,
    OP_COUNT,
    OP_KEY_AT,
    OP_EXISTS,
    OP_SCHEMA_VERSION,
    OP_COMMIT,
    OP_ROLLBACK,
    OP_REOPEN,
    OP_BEGIN_READ,
    OP_HOLD_READER,
    OP_TRANSACTION_MISUSE,
    OP_CHECK_TABLE,
    OP_ADD_EMBEDDED_TABLE,
    OP_CREATE_EMBEDDED,
    OP_LIST_EDIT,
    OP_SET_EDIT,
    OP_DICTIONARY_EDIT,
    OP_COLLECTION_READ,
    OP_COLLECTION_CLEAR,
    OP_BULK_INSERT,
    OP_BACKLINKS,
    OP_HOLD_COLLECTION,
    OP_NEST,
    OP_SET_INDEXED,
    OP_SET_RUN,
    OPERATION_COUNT
};

/* Weights out of OPERATION_SLOTS (fuzz_ops.c): the operation of an opcode
 * byte is fuzz_ops_operation_of_byte[byte & (OPERATION_SLOTS - 1)]. */
enum { OPERATION_SLOTS = 128 };

/* fuzz_ops.c: the entry point and its set-up (make_corpus.c runs every
 * seed through them). */
extern uint8_t fuzz_ops_operation_of_byte[OPERATION_SLOTS]; /* filled from the weights by fuzz_ops_set_up */
void fuzz_ops_set_up(void);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ops_schema.c: tables and properties. */
void ops_schema_add_table(runner *run, bool embedded);
void ops_schema_remove_table(runner *run);
void ops_schema_add_property(runner *run);
void ops_schema_remove_property(runner *run);
void ops_schema_set_indexed(runner *run);

/* ops_objects.c: objects, their values, embedded objects and backlinks. */
void ops_objects_create(runner *run);
void ops_objects_create_with_values(runner *run);
void ops_objects_create_or_update(runner *run);
void ops_objects_create_many(runner *run);
void ops_objects_delete(runner *run);
void ops_objects_delete_many(runner *run);
void ops_objects_set(runner *run);
void ops_objects_set_run(runner *run);
void ops_objects_get(runner *run);
void ops_objects_find_primary_key(runner *run);
void ops_objects_find_first(runner *run);
void ops_objects_count(runner *run);
void ops_objects_key_at(runner *run);
void ops_objects_exists(runner *run);
void ops_objects_create_embedded(runner *run);
void ops_objects_backlinks(runner *run);

/* ops_collections.c: lists, sets, dictionaries, nested collections and a
 * handle held across operations. */
void ops_collections_list_edit(runner *run);
void ops_collections_set_edit(runner *run);
void ops_collections_dictionary_edit(runner *run);
void ops_collections_read(runner *run);
void ops_collections_clear(runner *run);
void ops_collections_bulk_insert(runner *run);
void ops_collections_hold(runner *run);
void ops_collections_nest(runner *run);
void ops_collections_check_held(runner *run);
void ops_collections_release_held(runner *run);

/* check_notify.c: collection and results change sets. */
/* Every collection's change set between the two versions (both ways of
 * computing it), applied to the old model's contents, against the new. */
void check_notify_collections(ce_txn *old_txn, ce_txn *new_txn, const model *old_state, const model *new_state);
/* After a commit (`before` read the version before it, `after` reads it,
 * `previous` is its model): the collections' change sets, and the results
 * observers of the run updated (started when they are not). */
void check_notify_commit(runner *run, ce_txn *before, ce_txn *after, const model *previous);
/* Ends the results observers (before the database closes). */
void check_notify_release(runner *run);

#endif
