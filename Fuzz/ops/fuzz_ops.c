/*
 * fuzz_ops.c — random programs of schema and object operations, commits,
 * rollbacks and reopens over one database file, each step checked against
 * the reference model (CEngine/tests/support/model.h). LLVMFuzzerTestOneInput
 * runs one program.
 *
 * Owns: a run from start to end: the set-up, the operation table (which
 * opcode byte is which operation, by weight), the dispatch of each step to
 * ops_schema.c, ops_objects.c and ops_collections.c, the transactions
 * (commit, rollback, reopen, read transactions, a held reader, misuse) and
 * the checks after every step and at the end.
 * Never: reads the input but through decode.h, or keeps a model of its own
 * (model.c).
 *
 * Invariants 1, 2, 6 and 8 of docs/DESIGN.md for the object store (the
 * objects layer and the layers under it): what a program wrote is what it
 * reads back (get, count, key_at, exists, find by primary key, find_first
 * through an index or a scan), in the write transaction, after a commit,
 * in a read transaction that outlives later commits, and after the file is
 * closed and opened again, whether objects were created one by one, with
 * all their values, or by create_or_update under each policy; links
 * (to-one, lists, sets and dictionaries of links), collections of every
 * scalar type, mixed values holding scalars, links and lists and
 * dictionaries nested in them, and embedded objects read back as written,
 * through collection handles opened level by level; every link has its
 * backlink (counts and origins per origin property, totals), a deleted
 * object's links are purged as links.c says and the embedded objects it
 * owned go with it, and so for removed link properties and tables; a
 * rolled-back transaction leaves nothing behind; every commit leaves a file
 * that ce_db_verify proves sound; after every commit, the change set
 * ce_changes_compute reports from the version before it (and from a held
 * reader's version, over several commits) is the diff of the two models:
 * the objects deleted, inserted and modified with their columns, whether
 * the schema changed; every collection's change set (check_notify.c),
 * computed from the history and by comparing the snapshots, applied to
 * the old model's contents, gives the new contents, and results
 * observers kept across commits report what turns their last view into
 * the new one; bad input from the API (a wrong type, a
 * null in a required property, a string that is not UTF-8, a malformed
 * timestamp, a duplicate or changed primary key, a missing table, property
 * or object, a write outside a write transaction, a bad name) fails with
 * the right error code and a message and changes nothing. Reported as bugs
 * besides crashes, leaks and undefined behaviour: a call that fails where
 * the model says it must succeed or the reverse, a failure with an error
 * code the model does not allow, a failure without a code and a message,
 * any value, count, key or schema entry that differs from the model, a file
 * that does not verify after a commit, and a file descriptor left open.
 *
 * The model is changed only when a call succeeds. The run keeps a committed
 * copy: a rollback and a reopen restore it, a held reader compares against
 * the copy taken when it began. The input is described in decode.h.
 * Operations that need a transaction begin a write transaction when none is
 * open; BEGIN_READ makes the current transaction a read transaction
 * instead, in which every change must fail.
 *
 * make_corpus.c, built with this file as make_ops_corpus, writes the seed
 * corpus (Fuzz/corpus/ops) in the same encoding.
 */
#include "ops.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    MAX_OPERATIONS = 200,
    MAX_LARGE_VALUES = 6, /* values of 4 KiB .. 70 KiB per input */
};

static char *work_directory;
static char *database_path;
static char *lock_path;

/* ------------------------------------------------------------------------ */
/* Operations                                                                */
/* ------------------------------------------------------------------------ */

static const char *const operation_names[OPERATION_COUNT] = {
    "add table", "remove table", "add property", "remove property", "create", "create with values", "create or update",
    "create many",
    "delete", "delete many", "set", "get", "find primary key", "find first", "count", "key at", "exists",
    "schema version", "commit",
    "rollback", "reopen", "begin read", "hold reader", "transaction misuse", "check table",
    "add embedded table", "create embedded", "list edit", "set edit", "dictionary edit", "collection read",
    "collection clear", "bulk insert", "backlinks", "hold collection", "nest", "set indexed", "set run",
};

/* Weights out of OPERATION_SLOTS: sets and creates are common, reopens rare. */
static const struct {
    enum operation operation;
    unsigned weight;
} operation_weights[] = {
    {OP_SET, 8},         {OP_CREATE, 8},      {OP_CREATE_WITH_VALUES, 3}, {OP_CREATE_OR_UPDATE, 3}, {OP_GET, 5},
    {OP_ADD_PROPERTY, 9}, {OP_ADD_TABLE, 4},  {OP_DELETE, 5},      {OP_FIND_PRIMARY_KEY, 2},
    {OP_FIND_FIRST, 3},   {OP_COMMIT, 6},
    {OP_CREATE_MANY, 2},  {OP_DELETE_MANY, 1}, {OP_REMOVE_PROPERTY, 3}, {OP_REMOVE_TABLE, 2},
    {OP_COUNT, 1},        {OP_KEY_AT, 2},      {OP_EXISTS, 1},      {OP_SCHEMA_VERSION, 1},
    {OP_ROLLBACK, 3},     {OP_REOPEN, 2},      {OP_BEGIN_READ, 2},  {OP_HOLD_READER, 2},
    {OP_TRANSACTION_MISUSE, 1}, {OP_CHECK_TABLE, 3},
    {OP_ADD_EMBEDDED_TABLE, 2}, {OP_CREATE_EMBEDDED, 4}, {OP_LIST_EDIT, 11}, {OP_SET_EDIT, 6},
    {OP_DICTIONARY_EDIT, 7}, {OP_COLLECTION_READ, 4}, {OP_COLLECTION_CLEAR, 2}, {OP_BULK_INSERT, 1},
    {OP_BACKLINKS, 3},    {OP_HOLD_COLLECTION, 2}, {OP_NEST, 1}, {OP_SET_INDEXED, 1},
    {OP_SET_RUN, 2},
};

uint8_t fuzz_ops_operation_of_byte[OPERATION_SLOTS]; /* filled from the weights by fuzz_ops_set_up */

static void build_operation_table(void)
{
    size_t next = 0;
    for (size_t i = 0; i < sizeof operation_weights / sizeof operation_weights[0]; i++)
        for (unsigned w = 0; w < operation_weights[i].weight; w++) {
            if (next >= OPERATION_SLOTS) check_bug("the operation weights exceed the slots", "build_operation_table");
            fuzz_ops_operation_of_byte[next++] = (uint8_t)operation_weights[i].operation;
        }
    if (next != OPERATION_SLOTS) check_bug("the operation weights do not fill the slots", "build_operation_table");
}

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */
/* ------------------------------------------------------------------------ */

/* After a commit or an open: the file proves sound, has the version the
 * commits so far give it, and a new read transaction sees the committed
 * model. */
static void confirm_committed(runner *run)
{
    ce_db_stats stats;
    MUST(ce_db_verify(run->db, &stats));
    CHECK(stats.version == run->version, "ce_db_verify reports another version than the commits made");
    ce_txn *reader;
    MUST(ce_txn_begin_read(run->db, &reader));
    check_everything(reader, &run->committed, COMMIT_SAMPLE);
    ce_txn_end(reader);
    /* A reader that began before the commit still sees its version. */
    if (run->reader) check_everything(run->reader, &run->snapshot, COMMIT_SAMPLE / 2);
}

static void end_write(runner *run)
{
    ce_txn_end(run->txn);
    run->txn = NULL;
    model_free(&run->current);
    model_copy(&run->current, &run->committed);
}

static void op_schema_version(runner *run)
{
    uint8_t choice = decode_u8(&run->in.input);
    uint64_t version = choice < 0xF0 ? choice : decode_u64(&run->in.input);
    ce_txn *txn = ops_transaction(run);
    error_set expected = ops_write_errors(run) | (version > (uint64_t)INT64_MAX >> 1 ? ERR(CE_ERR_INVALID_ARGUMENT) : 0);
    if (EXPECT(expected, ce_set_schema_version(txn, version))) run->current.schema_version = version;
    uint64_t stored;
    MUST(ce_schema_version(txn, &stored));
    CHECK(stored == run->current.schema_version, "ce_schema_version differs from the model");
}

static void op_commit(runner *run)
{
    ce_txn *txn = ops_transaction(run);
    run->txn = NULL;
    if (!run->txn_is_write) {
        /* A failed commit leaves the handle open: it is ended here. */
        EXPECT(ERR(CE_ERR_WRONG_TRANSACTION_STATE), ce_txn_commit(txn));
        ce_txn_end(txn);
        return;
    }
    /* The version before the commit, to compare with the one after. */
    ce_txn *before;
    MUST(ce_txn_begin_read(run->db, &before));
    MUST(ce_txn_commit(txn));
    run->version++;
    model previous = run->committed;
    model_copy(&run->committed, &run->current);
    confirm_committed(run);
    ce_txn *after;
    MUST(ce_txn_begin_read(run->db, &after));
    check_changes(before, after, &previous, &run->committed);
    check_notify_commit(run, before, after, &previous);
    /* And from the held reader's version, over several commits. */
    if (run->reader) {
        check_changes(run->reader, after, &run->snapshot, &run->committed);
        check_notify_collections(run->reader, after, &run->snapshot, &run->committed);
    }
    ce_txn_end(after);
    ce_txn_end(before);
    model_free(&previous);
}

static void op_rollback(runner *run)
{
    if (!run->txn) return;
    if (run->txn_is_write) {
        end_write(run);
    } else {
        ce_txn_end(run->txn);
        run->txn = NULL;
    }
    ce_txn *reader;
    MUST(ce_txn_begin_read(run->db, &reader));
    check_everything(reader, &run->current, 2);
    ce_txn_end(reader);
}

static void open_database(runner *run)
{
    MUST(ce_db_open(database_path, &run->options, &run->db));
}

static void op_reopen(runner *run)
{
    if (run->txn || run->reader)
        EXPECT(ERR(CE_ERR_WRONG_TRANSACTION_STATE), ce_db_close(run->db)); /* and the handle stays open */
    if (run->txn && run->txn_is_write) end_write(run);
    else if (run->txn) ce_txn_end(run->txn);
    run->txn = NULL;
    if (run->reader) {
        ce_txn_end(run->reader);
        run->reader = NULL;
        model_free(&run->snapshot);
    }
    check_notify_release(run);
    MUST(ce_db_close(run->db));
    run->db = NULL;
    open_database(run);
    confirm_committed(run);
}

static void op_begin_read(runner *run)
{
    if (run->txn && run->txn_is_write) {
        end_write(run);
    } else if (run->txn) {
        ce_txn_end(run->txn);
        run->txn = NULL;
        return;
    }
    MUST(ce_txn_begin_read(run->db, &run->txn));
    run->txn_is_write = false;
}

static void op_hold_reader(runner *run)
{
    if (run->reader) {
        check_everything(run->reader, &run->snapshot, COMMIT_SAMPLE);
        ce_txn_end(run->reader);
        run->reader = NULL;
        model_free(&run->snapshot);
        return;
    }
    MUST(ce_txn_begin_read(run->db, &run->reader));
    model_copy(&run->snapshot, &run->committed);
}

static void op_transaction_misuse(runner *run)
{
    uint8_t choice = decode_u8(&run->in.input) % 3;
    ce_txn *txn = ops_transaction(run), *other = NULL;
    if (choice == 0 && run->txn_is_write) {
        /* A second write transaction on the thread that holds one would wait for itself. */
        EXPECT(ERR(CE_ERR_WRONG_TRANSACTION_STATE), ce_txn_begin_write(run->db, &other));
    } else if (choice == 1) {
        /* Only a read transaction advances. */
        error_set expected = run->txn_is_write ? ERR(CE_ERR_WRONG_TRANSACTION_STATE) : 0;
        if (EXPECT(expected, ce_txn_advance(txn))) check_everything(txn, &run->current, 2);
    } else if (run->reader) {
        MUST(ce_txn_advance(run->reader));
        model_free(&run->snapshot);
        model_copy(&run->snapshot, &run->committed);
        check_everything(run->reader, &run->snapshot, 2);
    }
}

static void op_check_table(runner *run)
{
    ce_table_key key = decode_table(&run->in);
    check_table(ops_transaction(run), &run->current, key, 64);
}

/* ------------------------------------------------------------------------ */
/* A step                                                                    */
/* ------------------------------------------------------------------------ */

/* After every step in a transaction: the number of objects of every table
 * (a cascade deletes in other tables), and the backlinks of a few objects
 * of each table that has backlink properties. */
static void confirm_links_sample(runner *run)
{
    if (!run->txn) return;
    const model *state = &run->current;
    for (size_t t = 0; t < state->table_count; t++) {
        const model_table *table = &state->tables[t];
        size_t count;
        if (!table->removed) {
            MUST(ce_object_count(run->txn, (ce_table_key)t, &count));
            CHECK(count == table->object_count, "ce_object_count differs from the model");
        }
        bool has_backlinks = false;
        for (size_t p = 0; !table->removed && p < table->property_count; p++)
            has_backlinks |= !table->properties[p].removed && table->properties[p].backlink;
        if (!has_backlinks) continue;
        size_t samples = table->object_count < 2 ? table->object_count : 2;
        for (size_t i = 0; i < samples; i++)
            check_backlinks(run->txn, state, (ce_table_key)t, check_spread(i, samples, table->object_count));
    }
}

static void run_operation(runner *run, enum operation operation)
{
    check_operation = operation_names[operation];
    if (check_verbose) fprintf(stderr, "fuzz_ops: step %zu: %s\n", check_step, check_operation);
    /* A handle belongs to its transaction: closed before it ends. */
    if (operation == OP_COMMIT || operation == OP_ROLLBACK || operation == OP_REOPEN || operation == OP_BEGIN_READ)
        ops_collections_release_held(run);
    switch (operation) {
    case OP_ADD_TABLE: ops_schema_add_table(run, false); break;
    case OP_ADD_EMBEDDED_TABLE: ops_schema_add_table(run, true); break;
    case OP_CREATE_EMBEDDED: ops_objects_create_embedded(run); break;
    case OP_LIST_EDIT: ops_collections_list_edit(run); break;
    case OP_SET_EDIT: ops_collections_set_edit(run); break;
    case OP_DICTIONARY_EDIT: ops_collections_dictionary_edit(run); break;
    case OP_COLLECTION_READ: ops_collections_read(run); break;
    case OP_COLLECTION_CLEAR: ops_collections_clear(run); break;
    case OP_BULK_INSERT: ops_collections_bulk_insert(run); break;
    case OP_BACKLINKS: ops_objects_backlinks(run); break;
    case OP_HOLD_COLLECTION: ops_collections_hold(run); break;
    case OP_NEST: ops_collections_nest(run); break;
    case OP_REMOVE_TABLE: ops_schema_remove_table(run); break;
    case OP_ADD_PROPERTY: ops_schema_add_property(run); break;
    case OP_REMOVE_PROPERTY: ops_schema_remove_property(run); break;
    case OP_CREATE: ops_objects_create(run); break;
    case OP_CREATE_WITH_VALUES: ops_objects_create_with_values(run); break;
    case OP_CREATE_OR_UPDATE: ops_objects_create_or_update(run); break;
    case OP_CREATE_MANY: ops_objects_create_many(run); break;
    case OP_DELETE: ops_objects_delete(run); break;
    case OP_DELETE_MANY: ops_objects_delete_many(run); break;
    case OP_SET: ops_objects_set(run); break;
    case OP_GET: ops_objects_get(run); break;
    case OP_FIND_PRIMARY_KEY: ops_objects_find_primary_key(run); break;
    case OP_FIND_FIRST: ops_objects_find_first(run); break;
    case OP_COUNT: ops_objects_count(run); break;
    case OP_KEY_AT: ops_objects_key_at(run); break;
    case OP_EXISTS: ops_objects_exists(run); break;
    case OP_SCHEMA_VERSION: op_schema_version(run); break;
    case OP_COMMIT: op_commit(run); break;
    case OP_ROLLBACK: op_rollback(run); break;
    case OP_REOPEN: op_reopen(run); break;
    case OP_BEGIN_READ: op_begin_read(run); break;
    case OP_HOLD_READER: op_hold_reader(run); break;
    case OP_TRANSACTION_MISUSE: op_transaction_misuse(run); break;
    case OP_CHECK_TABLE: op_check_table(run); break;
    case OP_SET_INDEXED: ops_schema_set_indexed(run); break;
    case OP_SET_RUN: ops_objects_set_run(run); break;
    default: break;
    }
    confirm_links_sample(run);
    if (run->held) ops_collections_check_held(run);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static void remove_work_directory(void)
{
    if (database_path) unlink(database_path);
    if (lock_path) unlink(lock_path);
    if (work_directory) rmdir(work_directory);
}

static int lowest_free_descriptor(void)
{
    int descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (descriptor >= 0) close(descriptor);
    return descriptor;
}

/* One directory per process (libFuzzer's -jobs and -fork run several), on
 * tmpfs when there is one: every input writes a database. */
void fuzz_ops_set_up(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base) base = "/tmp";
    size_t length = strlen(base) + 96;
    work_directory = model_allocate(length);
    database_path = model_allocate(length + 16);
    lock_path = model_allocate(length + 32);
    /* The pid in the name lets Fuzz/run.sh remove the directory of a run
     * that crashed (a crash skips the atexit handler). */
    snprintf(work_directory, length, "%s/openrealm-fuzz-ops-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(work_directory)) {
        perror("fuzz_ops: mkdtemp");
        abort();
    }
    snprintf(database_path, length + 16, "%s/ops.db", work_directory);
    snprintf(lock_path, length + 32, "%s.lock", database_path);
    atexit(remove_work_directory);
    build_operation_table();
    const char *setting = getenv("FUZZ_OPS_VERBOSE");
    check_verbose = setting && setting[0] == '1';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!work_directory) fuzz_ops_set_up();
    unlink(database_path);
    unlink(lock_path);
    /* Taken per input: between inputs libFuzzer may open descriptors of its
     * own (the pipes of the symbolizer that prints NEW_FUNC lines). */
    int baseline_descriptor = lowest_free_descriptor();
    runner run;
    memset(&run, 0, sizeof run);
    run.in.input = (source){data, size, 0, 0};
    run.in.state = &run.current;
    run.in.large_values = MAX_LARGE_VALUES;
    run.held_target = model_allocate(sizeof *run.held_target);
    ce_db_options_init(&run.options);
    uint8_t options = decode_u8(&run.in.input);
    run.options.durability = (options & 1) ? CE_DURABILITY_UNSAFE_NO_SYNC : CE_DURABILITY_FULL;
    check_step = 0;
    check_operation = "open";
    open_database(&run);
    MUST(ce_db_latest_version(run.db, &run.version)); /* a new file's; every commit adds one */
    for (check_step = 1; check_step <= MAX_OPERATIONS && run.in.input.offset < run.in.input.size; check_step++)
        run_operation(&run, (enum operation)fuzz_ops_operation_of_byte[decode_u8(&run.in.input) & (OPERATION_SLOTS - 1)]);

    /* The end: what the open transaction sees, then everything rolled back
     * and the file closed. */
    check_operation = "end";
    ops_collections_release_held(&run);
    free(run.held_target);
    if (run.txn) check_everything(run.txn, &run.current, 2);
    if (run.txn && run.txn_is_write) end_write(&run);
    else if (run.txn) ce_txn_end(run.txn);
    if (run.reader) {
        check_everything(run.reader, &run.snapshot, 2);
        ce_txn_end(run.reader);
    }
    check_notify_release(&run);
    MUST(ce_db_close(run.db));
    model_free(&run.current);
    model_free(&run.committed);
    model_free(&run.snapshot);
    unlink(database_path);
    unlink(lock_path);
    if (lowest_free_descriptor() != baseline_descriptor)
        check_bug("a file descriptor was left open", "ce_db_open .. ce_db_close");
    return 0;
}
