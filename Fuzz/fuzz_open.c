/*
 * fuzz_open.c — arbitrary bytes as a database file: open, verify, read
 * everything a user can, write, verify again.
 *
 * Invariant 5 of docs/DESIGN.md: every byte read from a file is checked
 * before it is trusted; damage yields an error code and a message, never a
 * crash, a hang or undefined behaviour. This harness holds the engine to that for the
 * whole path a damaged file can take: choosing a header slot, the torn-commit
 * check, the top node, the free list, verify, reading the user root as a
 * generic node tree, then everything a user reads through cengine.h (the
 * schema, every property of every object, every collection and the
 * collections nested in mixed values, backlinks, primary-key and index
 * lookups), so that damage reaches the object store's readers; then a write
 * transaction that changes the user root as a list of integers (the tests'
 * B+tree: copy-on-write through damaged nodes, placement into a damaged free
 * list) and commits. Errors are expected. Reported as bugs besides
 * crashes, hangs, leaks and undefined behaviour: a false return without an
 * error code and message (invariant 8), a file descriptor left open after
 * close, and a file that verified but no longer verifies after a commit that
 * dropped no element (invariant 1).
 *
 * The input is the file, byte for byte. The last byte of the static header
 * page (offset 4095: no checksum covers it, and the engine looks at it only
 * to tell a blank header from a foreign file) selects the variant, so every
 * corpus file stays a real database file and a plain database (where that
 * byte is 0) gets the default variant:
 *   bit 0     open read-only (no write transaction then)
 *   bit 1     repair the header checksums before writing the file, so that
 *             mutations of header fields (versions, top refs, sizes, runs)
 *             reach the code behind the checksums instead of stopping there
 *   bits 2-3  the change the write transaction makes to the list: append,
 *             set, erase, insert at the front
 *   bit 4     keep a read transaction open during the write (the version it
 *             pins must not be reused)
 *   bit 5     durability "unsafe no sync" instead of "full"
 *   bit 6     commit the write transaction without changing anything first
 *             (the untouched roots of a damaged top go straight to commit)
 */
#include "bptree.h"
#include "cengine.h"
#include "checksum.h"
#include "db.h"
#include "error.h"
#include "node.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The header layout of header.c and header.h (page 0 static, pages 1-2
 * slots, page 3 sync record), repeated here only to repair checksums in
 * variant bit 1. If header.c changes it, the start-up self-check (repairing
 * a valid file must change nothing) stops the fuzzer with a message saying
 * so. */
enum {
    PAGE_BYTES = 4096,
    OPTIONS_OFFSET = PAGE_BYTES - 1,
    STATIC_CHECKED_BYTES = 64,                    /* the checksum follows them */
    SLOT_VERSION_OFFSET = 8,
    SLOT_RUNS_OFFSET = 48,                        /* (position, length) pairs */
    SLOT_DATA_CHECKSUM_OFFSET = 40,
    SLOT_CHECKSUM_OFFSET = PAGE_BYTES - 8,        /* over every byte before it */
    SLOT_MAX_RUNS = (SLOT_CHECKSUM_OFFSET - SLOT_RUNS_OFFSET) / 16,
    SYNC_CHECKED_BYTES = 16,
};
#define SEED_STATIC 0x53544154ull
#define SEED_SLOT 0x534C4F54ull
#define SEED_DATA 0x44415441ull
#define SEED_SYNC 0x53594E43ull

enum {
    OPTION_READ_ONLY = 1,
    OPTION_REPAIR_CHECKSUMS = 2,
    OPTION_OPERATION_SHIFT = 2,
    OPTION_HOLD_READER = 16,
    OPTION_NO_SYNC = 32,
    OPTION_EMPTY_COMMIT = 64,
};

enum { OPERATION_APPEND, OPERATION_SET, OPERATION_ERASE, OPERATION_INSERT_FRONT };

static char *work_directory;
static char *database_path;
static char *lock_path;
static bool verbose; /* FUZZ_OPEN_VERBOSE=1: print every failed call (for triage) */

/* Aborts with a report: libFuzzer records the input as a crash. */
static void harness_bug(const char *what, const char *call)
{
    fprintf(stderr, "fuzz_open: %s (%s); last error [%d] %s\n", what, call, (int)ce_last_error_code(),
            ce_last_error_message());
    abort();
}

/* Clears the thread's last error so that a failure can be seen to set it. */
static void clear_error(void) { error_fail(CE_OK, "%s", ""); }

/* Every call of the engine goes through CALL: a false return must carry an
 * error code and a message (invariant 8), and the error is cleared first so
 * that a stale one from an earlier call cannot pass for it. */
static bool check(bool result, const char *call)
{
    if (result) return true;
    if (ce_last_error_code() == CE_OK || ce_last_error_message()[0] == '\0')
        harness_bug("a call failed without an error code and message", call);
    if (verbose)
        fprintf(stderr, "fuzz_open: %s -> [%d] %s\n", call, (int)ce_last_error_code(), ce_last_error_message());
    return false;
}
#define CALL(expression) (clear_error(), check((expression), #expression))

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

static uint64_t load_u64(const uint8_t *bytes)
{
    uint64_t value;
    memcpy(&value, bytes, 8);
    return value;
}
static uint32_t load_u32(const uint8_t *bytes)
{
    uint32_t value;
    memcpy(&value, bytes, 4);
    return value;
}
static void store_u64(uint8_t *bytes, uint64_t value) { memcpy(bytes, &value, 8); }

/* Recomputes every header checksum from the fields as they are, so that a
 * mutated field is judged by the engine's own checks, not by the checksum.
 * The runs checksum is recomputed only for the newer slot (the older one's
 * runs may have been rewritten since: a later commit of a file with page
 * checksums rewrites pages of checksums in place) and only when every run
 * lies in the file. */
static void repair_checksums(uint8_t *file, size_t size)
{
    if (size < 4 * (size_t)PAGE_BYTES) return;
    store_u64(file + STATIC_CHECKED_BYTES, checksum_of(file, STATIC_CHECKED_BYTES, SEED_STATIC));
    uint64_t newest = load_u64(file + PAGE_BYTES + SLOT_VERSION_OFFSET) >=
                              load_u64(file + 2 * PAGE_BYTES + SLOT_VERSION_OFFSET)
                          ? 1
                          : 2;
    for (int slot = 1; slot <= 2; slot++) {
        uint8_t *page = file + (size_t)slot * PAGE_BYTES;
        uint32_t run_count = load_u32(page + 32);
        bool runs_inside = (uint64_t)slot == newest && run_count <= SLOT_MAX_RUNS;
        checksum_state data;
        checksum_init(&data, SEED_DATA);
        for (uint32_t i = 0; runs_inside && i < run_count; i++) {
            uint64_t position = load_u64(page + SLOT_RUNS_OFFSET + 16 * i);
            uint64_t length = load_u64(page + SLOT_RUNS_OFFSET + 16 * i + 8);
            if (position > size || length > size - position) runs_inside = false;
            else checksum_add(&data, file + position, (size_t)length);
        }
        if (runs_inside) store_u64(page + SLOT_DATA_CHECKSUM_OFFSET, checksum_final(&data));
        store_u64(page + SLOT_CHECKSUM_OFFSET, checksum_of(page, SLOT_CHECKSUM_OFFSET, SEED_SLOT));
    }
    uint8_t *sync = file + 3 * (size_t)PAGE_BYTES;
    store_u64(sync + SYNC_CHECKED_BYTES, checksum_of(sync, SYNC_CHECKED_BYTES, SEED_SYNC));
}

/* The repair must leave a sound file as it is; if it does not, the layout
 * above no longer matches header.c and variant bit 1 would only break files. */
static void check_repair_matches_engine(void)
{
    ce_db_options options;
    ce_db_options_init(&options);
    ce_db *db;
    ce_txn *txn;
    space_ref root;
    if (!ce_db_open(database_path, &options, &db) || !ce_txn_begin_write(db, &txn) ||
        !bptree_create(db_txn_space(txn), 0, &root) || !bptree_append(db_txn_space(txn), &root, 1) ||
        !db_txn_set_root(txn, root) || !ce_txn_commit(txn) || !ce_db_close(db))
        harness_bug("cannot create the self-check database", "check_repair_matches_engine");
    struct stat status;
    int descriptor = open(database_path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0 || fstat(descriptor, &status) != 0)
        harness_bug("cannot open the self-check database", "check_repair_matches_engine");
    size_t size = (size_t)status.st_size;
    uint8_t *file = malloc(size), *repaired = malloc(size);
    if (!file || !repaired || pread(descriptor, file, size, 0) != (ssize_t)size)
        harness_bug("cannot read the self-check database", "check_repair_matches_engine");
    close(descriptor);
    memcpy(repaired, file, size);
    repair_checksums(repaired, size);
    if (memcmp(file, repaired, size) != 0)
        harness_bug("repair_checksums changed a sound file: its header layout no longer matches header.c; "
                    "update the layout constants at the top of Fuzz/fuzz_open.c",
                    "check_repair_matches_engine");
    free(file);
    free(repaired);
    unlink(database_path);
    unlink(lock_path);
}

static bool write_input(const uint8_t *data, size_t size, uint8_t options)
{
    uint8_t *copy = NULL;
    if ((options & OPTION_REPAIR_CHECKSUMS) && size >= 4 * (size_t)PAGE_BYTES) {
        copy = malloc(size);
        if (!copy) abort();
        memcpy(copy, data, size);
        repair_checksums(copy, size);
        data = copy;
    }
    int descriptor = open(database_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = descriptor >= 0;
    for (size_t done = 0; ok && done < size;) {
        ssize_t written = write(descriptor, data + done, size - done);
        if (written <= 0) ok = false;
        else done += (size_t)written;
    }
    if (descriptor >= 0) close(descriptor);
    free(copy);
    return ok;
}

/* --- reading everything ---------------------------------------------------- */

static volatile uint64_t sink; /* keeps the reads from being optimized away */

/* Reads every element (or byte) of a node, so that a node whose extent the
 * engine accepted but which reaches past the mapping is caught by ASan. */
static uint64_t read_node(const node_view *node)
{
    uint64_t sum = node->flags;
    if (node->width == 0) return sum; /* every element is 0 and reads no memory */
    if (node->flags & NODE_BYTES) {
        for (uint32_t i = 0; i < node->count; i++) sum += node->payload[i];
    } else {
        for (uint32_t i = 0; i < node->count; i++) sum += (uint64_t)node_get(node, i);
    }
    return sum;
}

typedef struct walk_state {
    uint64_t nodes;
    uint64_t sum;
} walk_state;

static bool visit_node(void *context, space_ref ref, const node_view *node)
{
    walk_state *state = context;
    state->nodes++;
    state->sum += ref + read_node(node);
    return true;
}

/* Every read of the object store (an object, a value, an element) spends
 * from a budget: a file of a few hundred kilobytes can hold a million small
 * objects, and a run must stay well within libFuzzer's timeout. A read of
 * an element of a collection nested `depth` levels deep in mixed values
 * costs `depth`: the engine finds the collection again from its object,
 * level by level, on every call. */
#define READ_BUDGET 50000
#define MAX_NESTING 128 /* mixed collections nest at most 100 levels */
static size_t reads_left;

static bool spend(size_t cost)
{
    if (reads_left < cost) {
        reads_left = 0;
        return false;
    }
    reads_left -= cost;
    return true;
}

/* Touches every byte a value points to (ASan catches a string that reaches
 * past the mapping), and looks a link's target up. */
static void read_value(ce_txn *txn, const ce_value *value, walk_state *state)
{
    state->sum += (uint64_t)value->type;
    switch (value->type) {
    case CE_TYPE_STRING:
        for (size_t i = 0; i < value->string.size; i++) state->sum += (uint8_t)value->string.data[i];
        break;
    case CE_TYPE_BINARY:
        for (size_t i = 0; i < value->binary.size; i++) state->sum += value->binary.data[i];
        break;
    case CE_TYPE_LINK: {
        bool exists;
        if (CALL(ce_object_exists(txn, value->link.table, value->link.key, &exists))) state->sum += exists;
        break;
    }
    case CE_TYPE_INT: state->sum += (uint64_t)value->integer; break;
    case CE_TYPE_BOOL: state->sum += value->boolean; break;
    case CE_TYPE_FLOAT: state->sum += (uint64_t)(value->float_value != 0); break;
    case CE_TYPE_DOUBLE: state->sum += (uint64_t)(value->double_value != 0); break;
    case CE_TYPE_TIMESTAMP: state->sum += (uint64_t)value->timestamp.seconds + (uint64_t)value->timestamp.nanoseconds; break;
    case CE_TYPE_DECIMAL128: state->sum += value->decimal.low + value->decimal.high; break;
    case CE_TYPE_OBJECT_ID: state->sum += value->object_id.bytes[0] + value->object_id.bytes[11]; break;
    case CE_TYPE_UUID: state->sum += value->uuid.bytes[0] + value->uuid.bytes[15]; break;
    default: break;
    }
}

/* Every element of a collection (and a dictionary's keys), the collections
 * nested in its mixed elements, and a search for its first element. */
static void read_collection(ce_txn *txn, const ce_collection *collection, unsigned depth, walk_state *state)
{
    ce_collection_type kind;
    ce_type element_type;
    size_t size;
    if (!CALL(ce_collection_kind(collection, &kind, &element_type)) || !CALL(ce_collection_size(collection, &size)))
        return;
    state->sum += (uint64_t)kind + (uint64_t)element_type + size;
    for (size_t i = 0; i < size && spend(depth); i++) {
        ce_value value, at = {.type = CE_TYPE_INT, .integer = (int64_t)i};
        if (!CALL(ce_collection_get(collection, i, &value))) continue;
        read_value(txn, &value, state);
        if (kind == CE_COLLECTION_DICTIONARY) {
            if (!CALL(ce_dictionary_key_at(collection, i, &at))) continue;
            read_value(txn, &at, state);
        }
        if ((value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY) && depth < MAX_NESTING) {
            ce_collection *nested;
            if (CALL(ce_collection_open_nested(collection, &at, &nested))) {
                read_collection(txn, nested, depth + 1, state);
                ce_collection_close(nested);
            }
        }
    }
    ce_value first;
    size_t index;
    bool found;
    if (size > 0 && spend(depth) && CALL(ce_collection_get(collection, 0, &first)) &&
        CALL(ce_collection_find(collection, &first, &index, &found)))
        state->sum += index + found;
}

/* One property of one object, read as a user would: a backlink property as
 * its origins, a collection opened, a value (and the collection a mixed
 * value holds), and the value looked up again through the primary key or
 * the index. */
static void read_property(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                          const ce_property_info *info, walk_state *state)
{
    if (!spend(1)) return;
    ce_collection *collection;
    if (info->backlink) {
        size_t count;
        if (!CALL(ce_object_backlink_count(txn, table, object, info->origin_table, info->origin_column, &count)))
            return;
        for (size_t i = 0; i < count && spend(1); i++) {
            ce_object_key origin;
            if (!CALL(ce_object_backlink_at(txn, table, object, info->origin_table, info->origin_column, i, &origin)))
                return;
            state->sum += (uint64_t)origin;
        }
        return;
    }
    if (info->collection != CE_COLLECTION_NONE) {
        if (CALL(ce_collection_open(txn, table, object, column, &collection))) {
            read_collection(txn, collection, 1, state);
            ce_collection_close(collection);
        }
        return;
    }
    ce_value value;
    if (!CALL(ce_object_get(txn, table, object, column, &value))) return;
    read_value(txn, &value, state);
    if (value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY) {
        if (CALL(ce_collection_open_mixed(txn, table, object, column, &collection))) {
            read_collection(txn, collection, 1, state);
            ce_collection_close(collection);
        }
        return;
    }
    ce_object_key found_object;
    bool found = false;
    if (info->primary_key) CALL(ce_object_find_primary_key(txn, table, &value, &found_object, &found));
    else if (info->indexed) CALL(ce_object_find_first(txn, table, column, &value, &found_object, &found));
    state->sum += found;
}

/* The scalar properties of a table again, many objects per call
 * (ce_object_get_range): where the object-by-object read of the same value
 * succeeds too, both give the same value. */
static void read_ranges(ce_txn *txn, ce_table_key table, const ce_property_info *infos, const bool *live,
                        size_t columns, size_t objects, walk_state *state)
{
    enum { ROWS = 16, COLUMNS = 64 };
    ce_column_key scalar[COLUMNS];
    size_t count = 0;
    for (size_t c = 0; c < columns && count < COLUMNS; c++)
        if (live[c] && !infos[c].backlink && infos[c].collection == CE_COLLECTION_NONE &&
            infos[c].type != CE_TYPE_LINK && infos[c].type != CE_TYPE_MIXED)
            scalar[count++] = (ce_column_key)c;
    static ce_value values[ROWS * COLUMNS];
    ce_object_key keys[ROWS];
    for (size_t first = 0; first < objects && spend(1);) {
        size_t got;
        if (!CALL(ce_object_get_range(txn, table, first, ROWS, scalar, count, keys, values, &got)) || got == 0) return;
        for (size_t i = 0; i < got && spend(1); i++) {
            for (size_t c = 0; c < count; c++) {
                const ce_value *ranged = &values[i * count + c];
                ce_value one;
                if (!CALL(ce_object_get(txn, table, keys[i], scalar[c], &one))) continue;
                bool bytes = one.type == CE_TYPE_STRING || one.type == CE_TYPE_BINARY;
                if (one.type != ranged->type ||
                    (bytes && (one.string.size != ranged->string.size ||
                               (one.string.size && memcmp(one.string.data, ranged->string.data, one.string.size) != 0))))
                    harness_bug("ce_object_get_range and ce_object_get read different values", "ce_object_get_range");
                state->sum += (uint64_t)one.type + (bytes ? one.string.size : 0);
            }
        }
        first += got;
    }
}

/* The schema of one table, then every object's every property. */
static void read_table(ce_txn *txn, ce_table_key table, walk_state *state)
{
    const char *name;
    bool embedded, found;
    ce_table_key again;
    size_t columns, objects;
    /* (A removed table keeps its slot: an error here, and no damage.) */
    if (!CALL(ce_table_name(txn, table, &name)) || !CALL(ce_table_is_embedded(txn, table, &embedded)) ||
        !CALL(ce_table_find(txn, name, &again, &found)) || !CALL(ce_property_count(txn, table, &columns)))
        return;
    state->sum += strlen(name) + embedded + again + found + columns;
    ce_property_info *infos = calloc(columns ? columns : 1, sizeof *infos);
    bool *live = calloc(columns ? columns : 1, sizeof *live);
    if (!infos || !live) abort();
    for (size_t c = 0; c < columns && spend(1); c++) {
        ce_column_key column;
        live[c] = CALL(ce_property_get_info(txn, table, (ce_column_key)c, &infos[c])) &&
                  CALL(ce_property_find(txn, table, infos[c].name, &column, &found));
        if (live[c]) state->sum += strlen(infos[c].name) + (uint64_t)infos[c].type + column + found;
    }
    if (CALL(ce_object_count(txn, table, &objects))) {
        for (size_t i = 0; i < objects && spend(1); i++) {
            ce_object_key object;
            bool exists;
            size_t backlinks;
            if (!CALL(ce_object_key_at(txn, table, i, &object))) break;
            if (CALL(ce_object_exists(txn, table, object, &exists))) state->sum += exists;
            if (CALL(ce_object_backlink_total(txn, table, object, &backlinks))) state->sum += backlinks;
            for (size_t c = 0; c < columns; c++)
                if (live[c]) read_property(txn, table, object, (ce_column_key)c, &infos[c], state);
        }
        read_ranges(txn, table, infos, live, columns, objects, state);
    }
    free(infos);
    free(live);
}

/* Reads the user root as a generic node tree, then as the object store
 * through cengine.h alone: what any user of the engine can read. */
static void read_user_root(ce_txn *txn)
{
    space_state *space = db_txn_space(txn);
    space_ref root = db_txn_root(txn);
    if (!root) return;
    walk_state state = {0, 0};
    CALL(node_walk_tree(space, root, NODE_MAX_TREE_DEPTH, visit_node, &state));
    reads_left = READ_BUDGET;
    uint64_t schema_version;
    size_t tables;
    if (CALL(ce_schema_version(txn, &schema_version))) state.sum += schema_version;
    if (CALL(ce_table_count(txn, &tables)))
        for (size_t t = 0; t < tables && spend(1); t++) read_table(txn, (ce_table_key)t, &state);
    sink = state.sum + state.nodes;
}

/* --- the write ------------------------------------------------------------- */

/* Finds the leaf that holds a position: with NODE_HAS_REFS its elements own
 * the nodes they refer to, and whoever overwrites or erases one frees it. */
typedef struct leaf_search {
    size_t position;
    bool has_refs;
} leaf_search;

static bool find_leaf(void *context, const node_view *leaf, size_t first_index, bool *stop)
{
    leaf_search *search = context;
    if (search->position >= first_index && search->position - first_index < leaf->count) {
        search->has_refs = (leaf->flags & NODE_HAS_REFS) != 0;
        *stop = true;
    }
    return true;
}

/* Makes one change to the user root and commits it. Returns whether it
 * committed a change that drops no element (append, insert, or nothing):
 * after such a commit a file that verified must still verify. */
static bool change_user_root(ce_db *db, int operation, bool empty_commit)
{
    ce_txn *txn;
    if (!CALL(ce_txn_begin_write(db, &txn))) return false;
    if (empty_commit) {
        if (CALL(ce_txn_commit(txn))) return true;
        ce_txn_end(txn);
        return false;
    }
    space_state *space = db_txn_space(txn);
    space_ref root = db_txn_root(txn);
    bool ok = true;
    if (!root) ok = CALL(bptree_create(space, 0, &root));
    size_t size = 0;
    ok = ok && CALL(bptree_size(space, root, &size));
    /* A tagged value (odd) is a plain integer in a leaf with or without refs. */
    int64_t value = node_tag(12345);
    bool drops_nothing = operation == OPERATION_APPEND || operation == OPERATION_INSERT_FRONT;
    if (ok && (operation == OPERATION_SET || operation == OPERATION_ERASE) && size > 0) {
        int64_t old_value;
        leaf_search search = {size / 2, false};
        ok = CALL(bptree_get(space, root, size / 2, &old_value)) &&
             CALL(bptree_for_each_leaf(space, root, find_leaf, &search));
        if (operation == OPERATION_SET) ok = ok && CALL(bptree_set(space, &root, size / 2, value));
        else ok = ok && CALL(bptree_erase(space, &root, size / 2));
        if (ok && search.has_refs && node_value_is_ref(old_value))
            ok = CALL(node_free_tree(space, (space_ref)old_value));
    } else if (ok && operation == OPERATION_APPEND) {
        ok = CALL(bptree_append(space, &root, value));
    } else if (ok && operation == OPERATION_INSERT_FRONT) {
        ok = CALL(bptree_insert(space, &root, 0, value));
    }
    ok = ok && CALL(db_txn_set_root(txn, root));
    if (!ok) {
        ce_txn_end(txn);
        return false;
    }
    if (!CALL(ce_txn_commit(txn))) {
        ce_txn_end(txn);
        return false;
    }
    return drops_nothing;
}

/* --- entry point ----------------------------------------------------------- */

/* One directory per process (libFuzzer's -jobs and -fork run several),
 * on tmpfs when there is one: the harness writes a file per input. */
static void set_up(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base) base = "/tmp";
    size_t length = strlen(base) + 96;
    work_directory = malloc(length);
    database_path = malloc(length + 16);
    lock_path = malloc(length + 32);
    if (!work_directory || !database_path || !lock_path) abort();
    /* The pid in the name lets Fuzz/run.sh remove the directory of a run
     * that crashed (a crash skips the atexit handler). */
    snprintf(work_directory, length, "%s/openrealm-fuzz-open-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(work_directory)) {
        perror("fuzz_open: mkdtemp");
        abort();
    }
    snprintf(database_path, length + 16, "%s/input.db", work_directory);
    snprintf(lock_path, length + 32, "%s.lock", database_path);
    atexit(remove_work_directory);
    check_repair_matches_engine();
    const char *setting = getenv("FUZZ_OPEN_VERBOSE");
    verbose = setting && setting[0] == '1';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!work_directory) set_up();
    /* Taken per input: between inputs libFuzzer may open descriptors of its
     * own (the pipes of the symbolizer that prints NEW_FUNC lines). */
    int baseline_descriptor = lowest_free_descriptor();
    uint8_t options = size > OPTIONS_OFFSET ? data[OPTIONS_OFFSET] : 0;
    if (!write_input(data, size, options)) {
        perror("fuzz_open: cannot write the input file");
        abort();
    }
    unlink(lock_path); /* a fresh lock file each time: the input is the data file alone */

    ce_db_options db_options;
    ce_db_options_init(&db_options);
    db_options.read_only = (options & OPTION_READ_ONLY) != 0;
    db_options.durability = (options & OPTION_NO_SYNC) ? CE_DURABILITY_UNSAFE_NO_SYNC : CE_DURABILITY_FULL;
    ce_db *db;
    if (CALL(ce_db_open(database_path, &db_options, &db))) {
        ce_db_stats stats;
        bool sound = CALL(ce_db_verify(db, &stats));
        ce_txn *reader = NULL;
        if (CALL(ce_txn_begin_read(db, &reader))) {
            read_user_root(reader);
            if (!(options & OPTION_HOLD_READER)) {
                ce_txn_end(reader);
                reader = NULL;
            }
        }
        if (!db_options.read_only) {
            bool kept_everything =
                change_user_root(db, (options >> OPTION_OPERATION_SHIFT) & 3, (options & OPTION_EMPTY_COMMIT) != 0);
            /* Copy-on-write, freeing and placement must keep a sound file
             * sound (invariant 1): a commit must not leak, overlap or lose
             * what verify had accounted for. */
            if (!CALL(ce_db_verify(db, &stats)) && sound && kept_everything)
                harness_bug("a file that verified does not verify after a successful commit", "ce_db_verify");
            ce_txn *after;
            if (CALL(ce_txn_begin_read(db, &after))) {
                read_user_root(after);
                ce_txn_end(after);
            }
        }
        if (reader) ce_txn_end(reader);
        if (!CALL(ce_db_close(db))) harness_bug("close failed with every transaction ended", "ce_db_close");
    }
    unlink(database_path);
    unlink(lock_path);
    if (lowest_free_descriptor() != baseline_descriptor)
        harness_bug("a file descriptor was left open", "ce_db_open .. ce_db_close");
    return 0;
}
