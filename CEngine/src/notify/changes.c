/*
 * changes.c — what changed between two versions of a file: per table, the
 * objects deleted, inserted and modified (with the columns that changed),
 * and whether the schema changed (ce_changes_*).
 *
 * Owns: the change set (struct ce_changes) and its computation: from the
 * history's merged delta (history.h) when it covers the range, each object
 * it lists as modified checked column by column in both versions; else by
 * comparing the two snapshots: each table's cluster trees are walked where
 * they differ (cluster_diff: nodes are copy-on-write, so a subtree with the
 * same ref in both versions is skipped unread), the two ascending key
 * sequences merged, and the objects in both compared column by column.
 * Both ways give the same change set (test_changes compares them); a
 * table added or removed in between, or one the history names an object of
 * that a version lacks, is compared by snapshots.
 * Never: parses key paths or follows links to match a filter
 * (key_path_filter.c), or computes collection change sets (the notify
 * files that own them); never changes what either transaction sees (a
 * write transaction as the new version only has its buffered objects
 * stored, as a query does).
 *
 * What "modified" means: some column live in both versions (same
 * definition) holds a different value, one that reads back otherwise
 * (value_identical: floats and decimals bit for bit; a collection: another
 * size or another element; a mixed value: another value). Setting a
 * property to the value it had is no change (with CE_CHANGES_EVERY_SET and
 * the history: each set is, as in Realm); backlinks are not columns of
 * their object (a new link to it modifies the origin). Columns added or
 * removed are a schema change, not a modification.
 */
#include "changes.h"
#include "buf.h"
#include "cengine.h"
#include "cluster.h"
#include "column.h"
#include "db.h"
#include "error.h"
#include "handle.h"
#include "history.h"
#include "table.h"

#include <stdlib.h>
#include <string.h>

/* One table's change set. Arrays grow with buf_reserve. */
typedef struct changes_table {
    bool in_old, in_new;
    ce_object_key *deleted, *inserted, *modified;
    size_t deleted_count, inserted_count, modified_count;
    size_t deleted_capacity, inserted_capacity, modified_capacity;
    size_t *column_starts; /* modified_count + 1: the columns of modified[i] are columns[starts[i] .. starts[i + 1]) */
    size_t column_starts_capacity;
    ce_column_key *columns;
    size_t column_count, column_capacity;
} changes_table;

struct ce_changes {
    uint64_t magic; /* live or freed (handle.h): the first field */
    ce_txn *old_txn, *new_txn;
    bool used_history;
    bool every_set; /* CE_CHANGES_EVERY_SET: a column the history lists is modified, whatever its value */
    history_delta *delta; /* the history's delta of the range (NULL: from the snapshots) */
    bool schema_changed;
    size_t table_count; /* slots: the larger of the two versions' table counts */
    changes_table *tables;
    void *match_cache;
    void (*release_match_cache)(void *cache);
};

static bool changes_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory"); }

static bool push_key(ce_object_key **array, size_t *count, size_t *capacity, ce_object_key key)
{
    if (!buf_reserve((void **)array, capacity, *count + 1, sizeof **array)) return false;
    (*array)[(*count)++] = key;
    return true;
}

/* Records a modified object with its columns (ascending keys). */
static bool push_modified(changes_table *table, ce_object_key key, const ce_column_key *columns, size_t count)
{
    if (!push_key(&table->modified, &table->modified_count, &table->modified_capacity, key) ||
        !buf_reserve((void **)&table->column_starts, &table->column_starts_capacity, table->modified_count + 1,
                     sizeof *table->column_starts) ||
        !buf_reserve((void **)&table->columns, &table->column_capacity, table->column_count + count,
                     sizeof *table->columns))
        return false;
    if (table->modified_count == 1) table->column_starts[0] = 0;
    memcpy(table->columns + table->column_count, columns, count * sizeof *columns);
    table->column_count += count;
    table->column_starts[table->modified_count] = table->column_count;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Comparing two versions of one table                                       */
/* ------------------------------------------------------------------------ */

/* A column compared between the versions: live in both with the same
 * definition (backlinks left out). */
typedef struct compared_column {
    size_t column;
    table_property property;
    cluster_column storage; /* how its leaves store it (the same in both versions) */
    bool owned;             /* a collection or mixed value: its stored value is a tree's ref */
} compared_column;

/* A position in a run of leaves of one version. */
typedef struct leaf_cursor {
    const space_state *space;
    size_t column_count;      /* of this version's leaves */
    const space_ref *refs;
    size_t count, leaf, index;
    bool loaded;
    cluster_leaf current;
    column_scan *scans;        /* per compared column, opened on first use in the current leaf */
    bool *scan_open;
} leaf_cursor;

typedef struct table_compare {
    changes_table *out;
    const compared_column *columns;
    size_t column_count;
    leaf_cursor old_cursor, new_cursor;
    column_scratch old_scratch, new_scratch;
    ce_column_key *changed; /* the columns of the object being compared */
    bool *row_changed;      /* aligned leaves: [row * column_count + c], CLUSTER_LEAF_MAX + 1 rows */
} table_compare;

static bool cursor_load(leaf_cursor *cursor, size_t compared_count)
{
    while (cursor->leaf < cursor->count) {
        if (!cursor->loaded) {
            if (!cluster_leaf_at(cursor->space, cursor->refs[cursor->leaf], cursor->column_count, &cursor->current))
                return false;
            cursor->loaded = true;
            cursor->index = 0;
            memset(cursor->scan_open, 0, compared_count * sizeof *cursor->scan_open);
        }
        if (cursor->index < cursor->current.key_offsets.count) return true;
        cursor->leaf++;
        cursor->loaded = false;
    }
    return true;
}

static bool cursor_at_end(const leaf_cursor *cursor) { return cursor->leaf >= cursor->count; }

static void cursor_step(leaf_cursor *cursor)
{
    if (++cursor->index >= cursor->current.key_offsets.count) {
        cursor->leaf++;
        cursor->loaded = false;
    }
}

static bool cursor_value(leaf_cursor *cursor, size_t compared, const compared_column *column, column_scratch *scratch,
                         ce_value *out_value)
{
    if (!cursor->scan_open[compared]) {
        if (!column_scan_open(cursor->space, cluster_leaf_column(&cursor->current, column->column),
                              column->storage.type, column->storage.nullable, &cursor->scans[compared]))
            return false;
        cursor->scan_open[compared] = true;
    }
    return column_scan_get(cursor->space, &cursor->scans[compared], cursor->index, scratch, out_value);
}

/* Whether a column's stored value is the same in both versions: a tree
 * with the same ref is the same tree. */
static bool stored_equal(const space_state *old_space, const space_state *new_space, const compared_column *column,
                         const ce_value *old_value, const ce_value *new_value, bool *out_equal)
{
    if (column->owned && old_value->type == CE_TYPE_INT && new_value->type == CE_TYPE_INT &&
        old_value->integer == new_value->integer) {
        *out_equal = true;
        return true;
    }
    return table_stored_equal(old_space, new_space, &column->property, old_value, new_value, out_equal);
}

/* Compares the object under both cursors (the same key) column by column. */
static bool compare_object(table_compare *compare, ce_object_key key)
{
    leaf_cursor *old_cursor = &compare->old_cursor, *new_cursor = &compare->new_cursor;
    size_t changed = 0;
    for (size_t c = 0; c < compare->column_count; c++) {
        const compared_column *column = &compare->columns[c];
        /* The same column array at the same position: the same value. */
        if (old_cursor->index == new_cursor->index &&
            cluster_leaf_column(&old_cursor->current, column->column) ==
                cluster_leaf_column(&new_cursor->current, column->column))
            continue;
        ce_value old_value, new_value;
        if (!cursor_value(old_cursor, c, column, &compare->old_scratch, &old_value) ||
            !cursor_value(new_cursor, c, column, &compare->new_scratch, &new_value))
            return false;
        bool equal;
        if (!stored_equal(old_cursor->space, new_cursor->space, column, &old_value, &new_value, &equal)) return false;
        if (!equal) compare->changed[changed++] = (ce_column_key)column->column;
    }
    return changed == 0 || push_modified(compare->out, key, compare->changed, changed);
}

/* Whether a column type's values are packed integers (column_numbers):
 * ints and links (key + 1), bools, floats and doubles (their bits). */
static bool numbers_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE;
}

/* Two leaves holding the same keys (the common case of objects modified in
 * place): compared column by column, a column array with the same ref
 * skipped whole, packed numbers compared as integers (their bits), other
 * values read in turn; then each object's changed columns recorded in key
 * order. The cursors stand at the start of the leaves and move past them. */
static bool compare_aligned_leaves(table_compare *compare)
{
    leaf_cursor *old_cursor = &compare->old_cursor, *new_cursor = &compare->new_cursor;
    size_t rows = old_cursor->current.key_offsets.count, columns = compare->column_count;
    memset(compare->row_changed, 0, rows * columns * sizeof *compare->row_changed);
    bool any = false;
    for (size_t c = 0; c < columns; c++) {
        const compared_column *column = &compare->columns[c];
        space_ref old_ref = cluster_leaf_column(&old_cursor->current, column->column);
        space_ref new_ref = cluster_leaf_column(&new_cursor->current, column->column);
        if (old_ref == new_ref) continue;
        if (numbers_type(column->storage.type)) {
            column_numbers a, b;
            if (!column_numbers_view(old_cursor->space, old_ref, column->storage.type, column->storage.nullable, &a) ||
                !column_numbers_view(new_cursor->space, new_ref, column->storage.type, column->storage.nullable, &b))
                return false;
            if (a.count != rows || b.count != rows)
                return error_fail(CE_ERR_CORRUPT, "invalid database: a column of leaf %llu holds %zu values for %zu objects",
                                  (unsigned long long)(a.count != rows ? old_cursor->current.ref : new_cursor->current.ref),
                                  a.count != rows ? a.count : b.count, rows);
            for (size_t i = 0; i < rows; i++) {
                bool a_null = a.has_nulls && node_get(&a.nulls, i), b_null = b.has_nulls && node_get(&b.nulls, i);
                if (a_null != b_null || (!a_null && node_get(&a.values, i) != node_get(&b.values, i))) {
                    compare->row_changed[i * columns + c] = true;
                    any = true;
                }
            }
            continue;
        }
        for (size_t i = 0; i < rows; i++) {
            ce_value old_value, new_value;
            bool equal;
            old_cursor->index = new_cursor->index = i;
            if (!cursor_value(old_cursor, c, column, &compare->old_scratch, &old_value) ||
                !cursor_value(new_cursor, c, column, &compare->new_scratch, &new_value) ||
                !stored_equal(old_cursor->space, new_cursor->space, column, &old_value, &new_value, &equal))
                return false;
            if (!equal) {
                compare->row_changed[i * columns + c] = true;
                any = true;
            }
        }
    }
    for (size_t i = 0; any && i < rows; i++) {
        size_t changed = 0;
        for (size_t c = 0; c < columns; c++)
            if (compare->row_changed[i * columns + c]) compare->changed[changed++] = (ce_column_key)compare->columns[c].column;
        if (changed && !push_modified(compare->out, cluster_leaf_key(&old_cursor->current, i), compare->changed, changed))
            return false;
    }
    old_cursor->leaf++, new_cursor->leaf++;
    old_cursor->loaded = new_cursor->loaded = false;
    return true;
}

/* Whether two loaded leaves hold the same keys. */
static bool same_keys(const cluster_leaf *a, const cluster_leaf *b)
{
    size_t count = a->key_offsets.count;
    if (count != b->key_offsets.count) return false;
    if (a->base_key == b->base_key && cluster_leaf_keys(a) == cluster_leaf_keys(b)) return true;
    for (size_t i = 0; i < count; i++)
        if (cluster_leaf_key(a, i) != cluster_leaf_key(b, i)) return false;
    return true;
}

/* One run of leaves that may differ: merges the two ascending key
 * sequences; a leaf that both runs reach at its start with the same ref is
 * the same node and is skipped. */
static bool compare_run(void *context, const space_ref *old_leaves, size_t old_count, const space_ref *new_leaves,
                        size_t new_count)
{
    table_compare *compare = context;
    leaf_cursor *old_cursor = &compare->old_cursor, *new_cursor = &compare->new_cursor;
    old_cursor->refs = old_leaves, old_cursor->count = old_count, old_cursor->leaf = 0, old_cursor->loaded = false;
    new_cursor->refs = new_leaves, new_cursor->count = new_count, new_cursor->leaf = 0, new_cursor->loaded = false;
    changes_table *out = compare->out;
    for (;;) {
        bool old_at_start = old_cursor->leaf < old_count && (!old_cursor->loaded || old_cursor->index == 0);
        bool new_at_start = new_cursor->leaf < new_count && (!new_cursor->loaded || new_cursor->index == 0);
        if (old_at_start && new_at_start && old_leaves[old_cursor->leaf] == new_leaves[new_cursor->leaf]) {
            old_cursor->leaf++;
            new_cursor->leaf++;
            old_cursor->loaded = new_cursor->loaded = false;
            continue;
        }
        if (!cursor_load(old_cursor, compare->column_count) || !cursor_load(new_cursor, compare->column_count))
            return false;
        bool old_done = cursor_at_end(old_cursor), new_done = cursor_at_end(new_cursor);
        if (old_done && new_done) return true;
        if (!old_done && !new_done && old_cursor->index == 0 && new_cursor->index == 0 &&
            same_keys(&old_cursor->current, &new_cursor->current)) {
            if (!compare_aligned_leaves(compare)) return false;
            continue;
        }
        ce_object_key old_key = old_done ? 0 : cluster_leaf_key(&old_cursor->current, old_cursor->index);
        ce_object_key new_key = new_done ? 0 : cluster_leaf_key(&new_cursor->current, new_cursor->index);
        if (new_done || (!old_done && old_key < new_key)) {
            if (!push_key(&out->deleted, &out->deleted_count, &out->deleted_capacity, old_key)) return false;
            cursor_step(old_cursor);
        } else if (old_done || new_key < old_key) {
            if (!push_key(&out->inserted, &out->inserted_count, &out->inserted_capacity, new_key)) return false;
            cursor_step(new_cursor);
        } else {
            if (!compare_object(compare, old_key)) return false;
            cursor_step(old_cursor);
            cursor_step(new_cursor);
        }
    }
}

/* The columns of `table` compared between the versions (live in both with
 * the same definition); *out_same_schema false if the table's properties
 * differ at all. Backlink properties are the engine's bookkeeping (the
 * first mixed link into a table adds one): they are neither compared nor
 * part of the schema. */
static bool compared_columns_of(ce_txn *old_txn, ce_txn *new_txn, ce_table_key table, bool in_old, bool in_new,
                                compared_column **out_columns, size_t *out_count, bool *out_same_schema)
{
    size_t old_count = 0, new_count = 0;
    *out_columns = NULL;
    *out_count = 0;
    *out_same_schema = in_old == in_new;
    if (!in_old || !in_new) return true;
    if (!ce_property_count(old_txn, table, &old_count) || !ce_property_count(new_txn, table, &new_count)) return false;
    size_t count = old_count > new_count ? old_count : new_count;
    compared_column *columns = calloc(count ? count : 1, sizeof *columns);
    if (!columns) return changes_out_of_memory();
    for (size_t c = 0; c < count; c++) {
        table_property old_property, new_property;
        bool old_live = false, new_live = false;
        if ((c < old_count && !table_property_at(old_txn, table, (ce_column_key)c, &old_property, &old_live)) ||
            (c < new_count && !table_property_at(new_txn, table, (ce_column_key)c, &new_property, &new_live))) {
            free(columns);
            return false;
        }
        if (old_live && old_property.backlink) old_live = false;
        if (new_live && new_property.backlink) new_live = false;
        if (old_live != new_live) {
            *out_same_schema = false;
            continue;
        }
        if (!old_live) continue;
        bool same = old_property.type == new_property.type && old_property.nullable == new_property.nullable &&
                    old_property.collection == new_property.collection &&
                    old_property.link_target == new_property.link_target;
        if (!same || strcmp(old_property.name, new_property.name) != 0 || old_property.indexed != new_property.indexed ||
            old_property.primary_key != new_property.primary_key)
            *out_same_schema = false;
        if (!same) continue;
        columns[*out_count] = (compared_column){c, new_property, {CE_TYPE_NULL, false},
                                                new_property.collection != CE_COLLECTION_NONE ||
                                                    new_property.type == CE_TYPE_MIXED};
        ++*out_count;
    }
    *out_columns = columns;
    return true;
}

/* ------------------------------------------------------------------------ */
/* One table from the history                                                */
/* ------------------------------------------------------------------------ */

/* The table's changes as the history lists them: its deleted and inserted
 * keys as they are; each modified object's columns read in both versions
 * and kept when their values differ (so that a property set to the value it
 * had, or set and set back, is no change, exactly as a comparison of the
 * snapshots finds), or, with `every_set` (CE_CHANGES_EVERY_SET), each
 * column the history lists, as Realm reports every set. *out_consistent
 * false when the history names an object that one version lacks: the caller
 * compares the snapshots instead. */
static bool table_from_history(bool every_set, const history_table_changes *listed, const history_delta *delta, ce_table_key table,
                               changes_table *out, const compared_column *columns, size_t column_count,
                               const space_state *old_space, space_ref old_root, const cluster_schema *old_schema,
                               const space_state *new_space, space_ref new_root, const cluster_schema *new_schema,
                               bool *out_consistent)
{
    *out_consistent = true;
    for (size_t i = 0; i < listed->deleted_count; i++)
        if (!push_key(&out->deleted, &out->deleted_count, &out->deleted_capacity, listed->deleted[i])) return false;
    for (size_t i = 0; i < listed->inserted_count; i++)
        if (!push_key(&out->inserted, &out->inserted_count, &out->inserted_capacity, listed->inserted[i])) return false;
    ce_column_key *listed_columns = NULL, *changed = NULL;
    size_t capacity = 0;
    column_scratch old_scratch = CE_COLUMN_SCRATCH_INIT, new_scratch = CE_COLUMN_SCRATCH_INIT;
    bool ok = true;
    for (size_t i = 0; ok && *out_consistent && i < listed->modified_count; i++) {
        ce_object_key key = listed->modified[i];
        size_t count;
        history_delta_object_columns(delta, table, key, NULL, 0, &count);
        if (count > capacity) {
            capacity = count;
            free(listed_columns);
            free(changed);
            listed_columns = malloc(capacity * sizeof *listed_columns);
            changed = malloc(capacity * sizeof *changed);
            if (!listed_columns || !changed) {
                ok = changes_out_of_memory();
                break;
            }
        }
        history_delta_object_columns(delta, table, key, listed_columns, capacity, &count);
        cluster_position position;
        bool in_old, in_new;
        if (!cluster_find(old_space, old_root, key, &position, &in_old, NULL) ||
            !cluster_find(new_space, new_root, key, &position, &in_new, NULL)) {
            ok = false;
            break;
        }
        if (!in_old || !in_new) {
            *out_consistent = false;
            break;
        }
        size_t changed_count = 0, c = 0;
        for (size_t l = 0; ok && l < count; l++) {
            while (c < column_count && columns[c].column < listed_columns[l]) c++;
            if (c == column_count || columns[c].column != listed_columns[l]) continue; /* not compared */
            if (every_set) {
                changed[changed_count++] = listed_columns[l];
                continue;
            }
            ce_value old_value, new_value;
            bool equal = true;
            ok = cluster_get(old_space, old_root, old_schema, key, columns[c].column, &old_scratch, NULL, &old_value) &&
                 cluster_get(new_space, new_root, new_schema, key, columns[c].column, &new_scratch, NULL, &new_value) &&
                 stored_equal(old_space, new_space, &columns[c], &old_value, &new_value, &equal);
            if (ok && !equal) changed[changed_count++] = listed_columns[l];
        }
        if (ok && changed_count) ok = push_modified(out, key, changed, changed_count);
    }
    free(listed_columns);
    free(changed);
    column_scratch_free(&old_scratch);
    column_scratch_free(&new_scratch);
    if (ok && !*out_consistent) out->deleted_count = out->inserted_count = out->modified_count = out->column_count = 0;
    return ok;
}

/* Compares one table slot between the versions: from the history's delta
 * (when not NULL) for a table in both, else by comparing the snapshots. */
static bool compare_table(ce_changes *changes, const history_delta *delta, ce_table_key table, bool *out_same_schema)
{
    changes_table *out = &changes->tables[table];
    compared_column *columns = NULL;
    size_t column_count = 0;
    if (!compared_columns_of(changes->old_txn, changes->new_txn, table, out->in_old, out->in_new, &columns,
                             &column_count, out_same_schema))
        return false;
    space_ref old_root = 0, new_root = 0;
    cluster_schema old_schema = {NULL, 0}, new_schema = {NULL, 0};
    bool ok = (!out->in_old || table_cluster(changes->old_txn, table, &old_root, &old_schema)) &&
              (!out->in_new || table_cluster(changes->new_txn, table, &new_root, &new_schema));
    /* How the leaves store each compared column: the same definition stores
     * the same way in both versions. */
    for (size_t c = 0; ok && c < column_count; c++) {
        size_t column = columns[c].column;
        if (column >= old_schema.column_count || column >= new_schema.column_count ||
            old_schema.columns[column].type != new_schema.columns[column].type ||
            old_schema.columns[column].nullable != new_schema.columns[column].nullable)
            ok = error_fail(CE_ERR_CORRUPT, "invalid database: table %u stores column %zu two ways", (unsigned)table,
                            column);
        else columns[c].storage = new_schema.columns[column];
    }
    const history_table_changes *listed = NULL;
    if (ok && delta && out->in_old && out->in_new && (listed = history_delta_find_table(delta, table)) != NULL) {
        bool consistent;
        ok = table_from_history(changes->every_set, listed, delta, table, out, columns, column_count, db_txn_space(changes->old_txn),
                                old_root, &old_schema, db_txn_space(changes->new_txn), new_root, &new_schema,
                                &consistent);
        if (ok && consistent) {
            free(columns);
            return true;
        }
    } else if (ok && delta && out->in_old && out->in_new) {
        /* No object of the table changed. */
        free(columns);
        return true;
    }
    if (ok && old_root != new_root) {
        table_compare compare = {out, columns, column_count, {0}, {0}, CE_COLUMN_SCRATCH_INIT, CE_COLUMN_SCRATCH_INIT,
                                 NULL, NULL};
        size_t slots = column_count ? column_count : 1;
        compare.old_cursor = (leaf_cursor){.space = db_txn_space(changes->old_txn), .column_count = old_schema.column_count};
        compare.new_cursor = (leaf_cursor){.space = db_txn_space(changes->new_txn), .column_count = new_schema.column_count};
        compare.old_cursor.scans = malloc(slots * sizeof(column_scan));
        compare.new_cursor.scans = malloc(slots * sizeof(column_scan));
        compare.old_cursor.scan_open = calloc(slots, sizeof(bool));
        compare.new_cursor.scan_open = calloc(slots, sizeof(bool));
        compare.changed = malloc(slots * sizeof *compare.changed);
        compare.row_changed = malloc((CLUSTER_LEAF_MAX + 1) * slots * sizeof *compare.row_changed);
        if (!compare.old_cursor.scans || !compare.new_cursor.scans || !compare.old_cursor.scan_open ||
            !compare.new_cursor.scan_open || !compare.changed || !compare.row_changed)
            ok = changes_out_of_memory();
        else
            ok = cluster_diff(compare.old_cursor.space, old_root, compare.new_cursor.space, new_root, compare_run,
                              &compare);
        free(compare.old_cursor.scans);
        free(compare.new_cursor.scans);
        free(compare.old_cursor.scan_open);
        free(compare.new_cursor.scan_open);
        free(compare.changed);
        free(compare.row_changed);
        column_scratch_free(&compare.old_scratch);
        column_scratch_free(&compare.new_scratch);
    }
    free(columns);
    return ok;
}

/* Whether the tables' definitions (names, embedded) differ. */
static bool table_definitions_differ(ce_txn *old_txn, ce_txn *new_txn, ce_table_key table, bool *out_differ)
{
    const char *old_name, *new_name;
    bool old_embedded, new_embedded;
    if (!ce_table_name(old_txn, table, &old_name) || !ce_table_name(new_txn, table, &new_name) ||
        !ce_table_is_embedded(old_txn, table, &old_embedded) || !ce_table_is_embedded(new_txn, table, &new_embedded))
        return false;
    *out_differ = strcmp(old_name, new_name) != 0 || old_embedded != new_embedded;
    return true;
}

/* Every table slot, from the history's delta when it is not NULL. */
static bool compare_versions(ce_changes *changes, const history_delta *delta)
{
    uint64_t old_schema_version, new_schema_version;
    if (!ce_schema_version(changes->old_txn, &old_schema_version) ||
        !ce_schema_version(changes->new_txn, &new_schema_version))
        return false;
    if (old_schema_version != new_schema_version) changes->schema_changed = true;
    for (size_t t = 0; t < changes->table_count; t++) {
        changes_table *table = &changes->tables[t];
        bool same_schema, differ = false;
        if (!compare_table(changes, delta, (ce_table_key)t, &same_schema)) return false;
        if (table->in_old && table->in_new && !table_definitions_differ(changes->old_txn, changes->new_txn,
                                                                        (ce_table_key)t, &differ))
            return false;
        if (!same_schema || differ) changes->schema_changed = true;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* The public API                                                            */
/* ------------------------------------------------------------------------ */

/* Freed change sets, kept for new ones (handle.h). */
static handle_pool changes_pool = HANDLE_POOL(0x4F524348414E4745ull, "ce_changes");

bool changes_check(const ce_changes *changes, const char *call) { return handle_check(&changes_pool, changes, call); }

void ce_changes_free(ce_changes *changes)
{
    if (!changes || !changes_check(changes, "ce_changes_free")) return; /* freed twice: the error only */
    for (size_t t = 0; t < changes->table_count; t++) {
        changes_table *table = &changes->tables[t];
        free(table->deleted);
        free(table->inserted);
        free(table->modified);
        free(table->column_starts);
        free(table->columns);
    }
    free(changes->tables);
    history_delta_free(changes->delta);
    if (changes->release_match_cache) changes->release_match_cache(changes->match_cache);
    handle_delete(&changes_pool, changes, sizeof *changes);
}

static bool check_transactions(ce_txn *old_txn, ce_txn *new_txn)
{
    if (!old_txn || !new_txn)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_compute: both transactions are required");
    if (db_txn_db(old_txn) != db_txn_db(new_txn))
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                          "ce_changes_compute: the transactions belong to different database handles");
    if (ce_txn_is_write(old_txn))
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE,
                          "ce_changes_compute: the old version must be read by a read transaction, not a write "
                          "transaction (its changes are not committed)");
    if (ce_txn_version(old_txn) > ce_txn_version(new_txn))
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                          "ce_changes_compute: the old transaction reads version %llu, after the new one's %llu",
                          (unsigned long long)ce_txn_version(old_txn), (unsigned long long)ce_txn_version(new_txn));
    return true;
}

static bool compute(ce_txn *old_txn, ce_txn *new_txn, bool use_history, bool every_set, ce_changes **out_changes)
{
    if (!out_changes) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_compute: out_changes is required");
    *out_changes = NULL;
    if (!check_transactions(old_txn, new_txn)) return false;
    size_t old_tables, new_tables;
    if (!ce_table_count(old_txn, &old_tables) || !ce_table_count(new_txn, &new_tables)) return false;
    ce_changes *changes = handle_new(&changes_pool, sizeof *changes);
    if (!changes) return changes_out_of_memory();
    changes->old_txn = old_txn;
    changes->new_txn = new_txn;
    changes->every_set = every_set;
    changes->table_count = old_tables > new_tables ? old_tables : new_tables;
    changes->tables = calloc(changes->table_count ? changes->table_count : 1, sizeof *changes->tables);
    if (!changes->tables) {
        handle_delete(&changes_pool, changes, sizeof *changes);
        return changes_out_of_memory();
    }
    if (old_tables != new_tables) changes->schema_changed = true;
    bool ok = true;
    for (size_t t = 0; ok && t < changes->table_count; t++) {
        changes_table *table = &changes->tables[t];
        ok = (t >= old_tables || table_slot_live(old_txn, (ce_table_key)t, &table->in_old)) &&
             (t >= new_tables || table_slot_live(new_txn, (ce_table_key)t, &table->in_new));
    }
    /* The history covers committed versions: a write transaction's own
     * changes are not in it yet. */
    history_delta *delta = NULL;
    bool covered = false;
    if (ok && use_history && !ce_txn_is_write(new_txn))
        ok = history_delta_load(new_txn, ce_txn_version(old_txn), &delta, &covered);
    changes->used_history = ok && covered;
    changes->delta = delta;
    if (ok) ok = compare_versions(changes, covered ? delta : NULL);
    if (!ok) {
        ce_changes_free(changes);
        return false;
    }
    *out_changes = changes;
    return true;
}

bool ce_changes_compute(ce_txn *old_txn, ce_txn *new_txn, ce_changes **out_changes)
{
    return compute(old_txn, new_txn, true, false, out_changes);
}

bool ce_changes_compute_with_options(ce_txn *old_txn, ce_txn *new_txn, uint32_t options, ce_changes **out_changes)
{
    if (options & ~(uint32_t)CE_CHANGES_EVERY_SET)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_compute_with_options: unknown options 0x%x",
                          (unsigned)(options & ~(uint32_t)CE_CHANGES_EVERY_SET));
    return compute(old_txn, new_txn, true, (options & CE_CHANGES_EVERY_SET) != 0, out_changes);
}

bool changes_compute_from_snapshots(ce_txn *old_txn, ce_txn *new_txn, ce_changes **out_changes)
{
    return compute(old_txn, new_txn, false, false, out_changes);
}

bool ce_changes_used_history(const ce_changes *changes)
{
    return handle_is_live(&changes_pool, changes) && changes->used_history;
}

bool ce_changes_schema_changed(const ce_changes *changes)
{
    return handle_is_live(&changes_pool, changes) && changes->schema_changed;
}

/* The change set of a table in either version. */
static bool find_table(const ce_changes *changes, ce_table_key table, const changes_table **out_table)
{
    if (!changes_check(changes, "a change set call")) return false;
    if (table >= changes->table_count || (!changes->tables[table].in_old && !changes->tables[table].in_new))
        return error_fail(CE_ERR_NO_SUCH_TABLE, "no table with key %u in either version of the change set",
                          (unsigned)table);
    *out_table = &changes->tables[table];
    return true;
}

bool ce_changes_table(const ce_changes *changes, ce_table_key table, const ce_object_key **out_deleted,
                      size_t *out_deleted_count, const ce_object_key **out_inserted, size_t *out_inserted_count,
                      const ce_object_key **out_modified, size_t *out_modified_count)
{
    const changes_table *found = NULL;
    if (!find_table(changes, table, &found)) return false;
    if (out_deleted) *out_deleted = found->deleted;
    if (out_deleted_count) *out_deleted_count = found->deleted_count;
    if (out_inserted) *out_inserted = found->inserted;
    if (out_inserted_count) *out_inserted_count = found->inserted_count;
    if (out_modified) *out_modified = found->modified;
    if (out_modified_count) *out_modified_count = found->modified_count;
    return true;
}

/* Whether an ascending array holds `key`, and where. */
static bool search_keys(const ce_object_key *keys, size_t count, ce_object_key key, size_t *out_index)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (keys[middle] < key) low = middle + 1;
        else high = middle;
    }
    *out_index = low;
    return low < count && keys[low] == key;
}

/* The kind of change and, when modified, where its columns are. */
static ce_object_change_kind kind_in(const changes_table *table, ce_object_key object, size_t *out_modified_index)
{
    size_t index;
    if (search_keys(table->modified, table->modified_count, object, &index)) {
        *out_modified_index = index;
        return CE_OBJECT_MODIFIED;
    }
    if (search_keys(table->inserted, table->inserted_count, object, &index)) return CE_OBJECT_INSERTED;
    if (search_keys(table->deleted, table->deleted_count, object, &index)) return CE_OBJECT_DELETED;
    return CE_OBJECT_UNCHANGED;
}

bool ce_changes_object(const ce_changes *changes, ce_table_key table, ce_object_key object,
                       ce_object_change_kind *out_kind, ce_column_key *out_columns, size_t capacity,
                       size_t *out_column_count)
{
    const changes_table *found = NULL;
    if (!out_kind) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_object: out_kind is required");
    if (!find_table(changes, table, &found)) return false;
    size_t index = 0, count = 0;
    *out_kind = kind_in(found, object, &index);
    if (*out_kind == CE_OBJECT_MODIFIED) {
        const ce_column_key *columns = found->columns + found->column_starts[index];
        count = found->column_starts[index + 1] - found->column_starts[index];
        if (out_columns) {
            if (capacity < count) {
                if (out_column_count) *out_column_count = count;
                return error_fail(CE_ERR_INVALID_ARGUMENT,
                                  "ce_changes_object: %zu columns changed, more than the capacity %zu", count, capacity);
            }
            memcpy(out_columns, columns, count * sizeof *columns);
        }
    }
    if (out_column_count) *out_column_count = count;
    return true;
}

/* ------------------------------------------------------------------------ */
/* What the other notify files ask (changes.h)                               */
/* ------------------------------------------------------------------------ */

ce_txn *changes_old_txn(const ce_changes *changes) { return changes->old_txn; }

ce_txn *changes_new_txn(const ce_changes *changes) { return changes->new_txn; }

const history_delta *changes_history_delta(const ce_changes *changes)
{
    return changes->used_history ? changes->delta : NULL;
}

ce_object_change_kind changes_kind_of(const ce_changes *changes, ce_table_key table, ce_object_key object)
{
    size_t index;
    if (table >= changes->table_count) return CE_OBJECT_UNCHANGED;
    return kind_in(&changes->tables[table], object, &index);
}

bool changes_column_modified(const ce_changes *changes, ce_table_key table, ce_object_key object, ce_column_key column)
{
    size_t index;
    if (table >= changes->table_count) return false;
    const changes_table *found = &changes->tables[table];
    if (!search_keys(found->modified, found->modified_count, object, &index)) return false;
    for (size_t i = found->column_starts[index]; i < found->column_starts[index + 1]; i++)
        if (found->columns[i] == column) return true;
    return false;
}

void *changes_match_cache(const ce_changes *changes) { return changes->match_cache; }

void changes_set_match_cache(const ce_changes *changes, void *cache, void (*release)(void *cache))
{
    /* The cache is the matcher's memo, not part of the change set's value. */
    ce_changes *mutable_changes = (ce_changes *)changes;
    mutable_changes->match_cache = cache;
    mutable_changes->release_match_cache = release;
}
