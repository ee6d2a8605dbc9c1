/*
 * test_changes.c — change sets between two versions (ce_changes_*) and
 * key-path filters (ce_key_path_filter_*, ce_changes_object_matches).
 *
 * Owns: the cases on change sets: every kind of change (objects created
 * and deleted, every property type set, links, list, set and dictionary
 * edits, mixed values and the collections nested in them, embedded
 * objects and their cascades, tables and properties added and removed)
 * checked against a brute-force diff of the two snapshots written here
 * with public calls only (every object and property read through
 * ce_object_get and collection handles in both transactions); large
 * tables (one object changed among many; inserts and deletes that split
 * and merge leaves); key-path filters through a link and a list, through
 * backlinks, wildcards, Realm's default (depth, cycles); their errors and
 * those of the change set.
 * Never: checks a change set against the engine's own comparison.
 */
#include "changes.h"
#include "history.h"
#include "test_links_support.h"

/* ------------------------------------------------------------------------ */
/* The brute-force diff                                                      */
/* ------------------------------------------------------------------------ */

static bool same_collection(const ce_collection *a, const ce_collection *b);

/* Two values read from the two versions, nested collections included. */
static bool same_element(const ce_collection *a, const ce_collection *b, const ce_value *va, const ce_value *vb,
                         ce_value at)
{
    if (va->type != vb->type) return false;
    if (va->type != CE_TYPE_LIST && va->type != CE_TYPE_DICTIONARY) return test_same_value(va, vb);
    ce_collection *na, *nb;
    CHECK(ce_collection_open_nested(a, &at, &na));
    CHECK(ce_collection_open_nested(b, &at, &nb));
    bool same = same_collection(na, nb);
    ce_collection_close(na);
    ce_collection_close(nb);
    return same;
}

static bool same_collection(const ce_collection *a, const ce_collection *b)
{
    ce_collection_type ka, kb;
    ce_type ta, tb;
    size_t ca, cb;
    CHECK(ce_collection_kind(a, &ka, &ta) && ce_collection_kind(b, &kb, &tb));
    CHECK(ce_collection_size(a, &ca) && ce_collection_size(b, &cb));
    if (ka != kb || ta != tb || ca != cb) return false;
    for (size_t i = 0; i < ca; i++) {
        ce_value va, vb, at = int_value((int64_t)i);
        char key[256];
        if (ka == CE_COLLECTION_DICTIONARY) {
            ce_value kva, kvb;
            CHECK(ce_dictionary_key_at(a, i, &kva) && ce_dictionary_key_at(b, i, &kvb));
            if (!test_same_value(&kva, &kvb)) return false;
            CHECK(kva.string.size < sizeof key);
            memcpy(key, kva.string.data, kva.string.size);
            at = (ce_value){.type = CE_TYPE_STRING, .string = {key, kva.string.size}};
        }
        CHECK(ce_collection_get(a, i, &va));
        /* A compressed value is handed out from a buffer the next read
         * reuses: keep a copy of the first. */
        char *copy = NULL;
        if ((va.type == CE_TYPE_STRING || va.type == CE_TYPE_BINARY) && va.string.size) {
            copy = malloc(va.string.size);
            memcpy(copy, va.string.data, va.string.size);
            va.string.data = copy;
        }
        CHECK(ce_collection_get(b, i, &vb));
        bool same = same_element(a, b, &va, &vb, at);
        free(copy);
        if (!same) return false;
    }
    return true;
}

/* Whether one property of one object is the same in both versions. */
static bool same_property(ce_txn *old_txn, ce_txn *new_txn, ce_table_key table, ce_object_key key,
                          const ce_property_info *info, ce_column_key column)
{
    if (info->collection != CE_COLLECTION_NONE) {
        ce_collection *a, *b;
        CHECK(ce_collection_open(old_txn, table, key, column, &a));
        CHECK(ce_collection_open(new_txn, table, key, column, &b));
        bool same = same_collection(a, b);
        ce_collection_close(a);
        ce_collection_close(b);
        return same;
    }
    ce_value va, vb;
    CHECK(ce_object_get(old_txn, table, key, column, &va));
    char *copy = NULL;
    if ((va.type == CE_TYPE_STRING || va.type == CE_TYPE_BINARY) && va.string.size) {
        copy = malloc(va.string.size);
        memcpy(copy, va.string.data, va.string.size);
        va.string.data = copy;
    }
    CHECK(ce_object_get(new_txn, table, key, column, &vb));
    bool same;
    if (va.type == vb.type && (va.type == CE_TYPE_LIST || va.type == CE_TYPE_DICTIONARY)) {
        ce_collection *a, *b;
        CHECK(ce_collection_open_mixed(old_txn, table, key, column, &a));
        CHECK(ce_collection_open_mixed(new_txn, table, key, column, &b));
        same = same_collection(a, b);
        ce_collection_close(a);
        ce_collection_close(b);
    } else {
        same = test_same_value(&va, &vb);
    }
    free(copy);
    return same;
}

static bool table_live(ce_txn *txn, ce_table_key table)
{
    size_t count;
    const char *name;
    CHECK(ce_table_count(txn, &count));
    return table < count && ce_table_name(txn, table, &name);
}

static ce_object_key *all_keys(ce_txn *txn, ce_table_key table, size_t *out_count)
{
    *out_count = 0;
    if (!table_live(txn, table)) return NULL;
    CHECK(ce_object_count(txn, table, out_count));
    ce_object_key *keys = malloc((*out_count + 1) * sizeof *keys);
    for (size_t i = 0; i < *out_count; i++) CHECK(ce_object_key_at(txn, table, i, &keys[i]));
    return keys;
}

static void expect_keys(const char *what, ce_table_key table, const ce_object_key *actual, size_t actual_count,
                        const ce_object_key *expected, size_t expected_count)
{
    bool same = actual_count == expected_count;
    for (size_t i = 0; same && i < actual_count; i++) same = actual[i] == expected[i];
    if (same) return;
    fprintf(stderr, "table %u: %s: got %zu keys, expected %zu:", (unsigned)table, what, actual_count, expected_count);
    for (size_t i = 0; i < expected_count && i < 20; i++) fprintf(stderr, " %lld", (long long)expected[i]);
    fprintf(stderr, " / got");
    for (size_t i = 0; i < actual_count && i < 20; i++) fprintf(stderr, " %lld", (long long)actual[i]);
    fprintf(stderr, "\n");
    CHECK(same);
}

/* Checks `changes` against the brute-force diff of the two versions.
 * Returns the number of objects changed (all tables). */
static size_t check_against_snapshots(ce_txn *old_txn, ce_txn *new_txn, const ce_changes *changes)
{
    size_t old_tables, new_tables, total = 0;
    CHECK(ce_table_count(old_txn, &old_tables) && ce_table_count(new_txn, &new_tables));
    size_t tables = old_tables > new_tables ? old_tables : new_tables;
    for (ce_table_key t = 0; t < tables; t++) {
        bool in_old = table_live(old_txn, t), in_new = table_live(new_txn, t);
        if (!in_old && !in_new) {
            EXPECT_ERROR(ce_changes_table(changes, t, NULL, NULL, NULL, NULL, NULL, NULL), CE_ERR_NO_SUCH_TABLE, NULL);
            continue;
        }
        size_t old_count, new_count;
        ce_object_key *old_keys = all_keys(old_txn, t, &old_count), *new_keys = all_keys(new_txn, t, &new_count);
        ce_object_key *deleted = malloc((old_count + 1) * sizeof *deleted);
        ce_object_key *inserted = malloc((new_count + 1) * sizeof *inserted);
        ce_object_key *modified = malloc((old_count + 1) * sizeof *modified);
        size_t deleted_count = 0, inserted_count = 0, modified_count = 0;
        size_t old_columns = 0, new_columns = 0;
        if (in_old) CHECK(ce_property_count(old_txn, t, &old_columns));
        if (in_new) CHECK(ce_property_count(new_txn, t, &new_columns));
        size_t i = 0, j = 0;
        while (i < old_count || j < new_count) {
            if (j == new_count || (i < old_count && old_keys[i] < new_keys[j])) {
                deleted[deleted_count++] = old_keys[i++];
                continue;
            }
            if (i == old_count || new_keys[j] < old_keys[i]) {
                inserted[inserted_count++] = new_keys[j++];
                continue;
            }
            ce_object_key key = old_keys[i];
            ce_column_key changed[256];
            size_t changed_count = 0;
            for (ce_column_key c = 0; c < old_columns && c < new_columns; c++) {
                ce_property_info a, b;
                if (!ce_property_get_info(old_txn, t, c, &a) || !ce_property_get_info(new_txn, t, c, &b)) continue;
                if (a.backlink || b.backlink || a.type != b.type || a.collection != b.collection ||
                    a.nullable != b.nullable)
                    continue;
                if (!same_property(old_txn, new_txn, t, key, &b, c)) changed[changed_count++] = c;
            }
            ce_object_change_kind kind;
            ce_column_key columns[256];
            size_t column_count;
            CHECK(ce_changes_object(changes, t, key, &kind, columns, 256, &column_count));
            if (changed_count) {
                modified[modified_count++] = key;
                CHECK(kind == CE_OBJECT_MODIFIED);
                bool same = column_count == changed_count;
                for (size_t k = 0; same && k < changed_count; k++) same = columns[k] == changed[k];
                if (!same) {
                    fprintf(stderr, "table %u object %lld: %zu columns changed, reported %zu (first %u / %u)\n",
                            (unsigned)t, (long long)key, changed_count, column_count, (unsigned)changed[0],
                            column_count ? (unsigned)columns[0] : 999u);
                    CHECK(same);
                }
            } else {
                CHECK(kind == CE_OBJECT_UNCHANGED);
                CHECK(column_count == 0);
            }
            i++, j++;
        }
        const ce_object_key *rd, *ri, *rm;
        size_t rdc, ric, rmc;
        CHECK(ce_changes_table(changes, t, &rd, &rdc, &ri, &ric, &rm, &rmc));
        expect_keys("deleted", t, rd, rdc, deleted, deleted_count);
        expect_keys("inserted", t, ri, ric, inserted, inserted_count);
        expect_keys("modified", t, rm, rmc, modified, modified_count);
        for (size_t k = 0; k < deleted_count; k++) {
            ce_object_change_kind kind;
            CHECK(ce_changes_object(changes, t, deleted[k], &kind, NULL, 0, NULL) && kind == CE_OBJECT_DELETED);
        }
        for (size_t k = 0; k < inserted_count; k++) {
            ce_object_change_kind kind;
            CHECK(ce_changes_object(changes, t, inserted[k], &kind, NULL, 0, NULL) && kind == CE_OBJECT_INSERTED);
        }
        total += deleted_count + inserted_count + modified_count;
        free(old_keys), free(new_keys), free(deleted), free(inserted), free(modified);
    }
    return total;
}

/* How many change sets came from the history, of those computed between
 * two read transactions. */
static size_t from_history, between_reads;

/* Computes the changes from `old_txn` to `new_txn` both ways (from the
 * history when it covers the range, and by comparing the snapshots) and
 * checks each against the brute-force diff. */
static size_t compute_and_check(ce_txn *old_txn, ce_txn *new_txn, ce_changes **out_changes)
{
    ce_changes *changes, *snapshots;
    CHECK(ce_changes_compute(old_txn, new_txn, &changes));
    CHECK(changes_compute_from_snapshots(old_txn, new_txn, &snapshots));
    CHECK(!ce_changes_used_history(snapshots) && !changes_history_delta(snapshots));
    CHECK(!changes_history_delta(changes) == !ce_changes_used_history(changes));
    if (!ce_txn_is_write(new_txn)) {
        between_reads++;
        from_history += ce_changes_used_history(changes);
    } else {
        CHECK(!ce_changes_used_history(changes));
    }
    size_t total = check_against_snapshots(old_txn, new_txn, changes);
    CHECK(check_against_snapshots(old_txn, new_txn, snapshots) == total);
    CHECK(ce_changes_schema_changed(changes) == ce_changes_schema_changed(snapshots));
    ce_changes_free(snapshots);
    if (out_changes) *out_changes = changes;
    else ce_changes_free(changes);
    return total;
}

/* ce_changes_matching_objects against ce_changes_object_matches for every
 * object of the filter's table in the new version. */
static void check_matching_objects(const ce_changes *changes, ce_txn *new_txn, ce_table_key table,
                                   const ce_key_path_filter *filter)
{
    const ce_object_key *matching;
    size_t matching_count, count, next = 0;
    CHECK(ce_changes_matching_objects(changes, filter, &matching, &matching_count));
    CHECK(ce_object_count(new_txn, table, &count));
    for (size_t i = 0; i < count; i++) {
        ce_object_key key;
        bool changed;
        CHECK(ce_object_key_at(new_txn, table, i, &key));
        CHECK(ce_changes_object_matches(changes, filter, key, &changed));
        bool listed = next < matching_count && matching[next] == key;
        if (listed != changed) {
            fprintf(stderr, "table %u object %lld: matches %d, listed %d\n", (unsigned)table, (long long)key, changed,
                    listed);
            CHECK(listed == changed);
        }
        next += listed;
    }
    CHECK(next == matching_count);
}

/* ------------------------------------------------------------------------ */
/* A schema with every kind of property                                      */
/* ------------------------------------------------------------------------ */

static const ce_type scalar_types[] = {CE_TYPE_INT,       CE_TYPE_BOOL,       CE_TYPE_FLOAT,     CE_TYPE_DOUBLE,
                                       CE_TYPE_STRING,    CE_TYPE_BINARY,     CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128,
                                       CE_TYPE_OBJECT_ID, CE_TYPE_UUID};
enum { SCALAR_TYPES = sizeof scalar_types / sizeof scalar_types[0] };

typedef struct every_schema {
    ce_table_key thing, target, embedded;
    ce_column_key required[SCALAR_TYPES], optional[SCALAR_TYPES];
    ce_column_key mixed, link, ints, strings, doubles, dictionary, links, link_set, link_dictionary, mixed_list;
    ce_column_key child, children, target_value, embedded_value;
} every_schema;

static every_schema make_every_schema(ce_txn *txn)
{
    every_schema s;
    s.target = add_table(txn, "Target", false);
    s.thing = add_table(txn, "Thing", false);
    s.embedded = add_table(txn, "Part", true);
    s.target_value = add_scalar(txn, s.target, "value", CE_TYPE_INT, false);
    s.embedded_value = add_scalar(txn, s.embedded, "value", CE_TYPE_INT, false);
    for (int i = 0; i < SCALAR_TYPES; i++) {
        char name[32];
        snprintf(name, sizeof name, "r%s", ce_type_name(scalar_types[i]));
        s.required[i] = add_scalar(txn, s.thing, name, scalar_types[i], false);
        snprintf(name, sizeof name, "o%s", ce_type_name(scalar_types[i]));
        s.optional[i] = add_scalar(txn, s.thing, name, scalar_types[i], true);
    }
    s.mixed = add_scalar(txn, s.thing, "mixed", CE_TYPE_MIXED, true);
    s.link = add_property(txn, s.thing, "link", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.target);
    s.ints = add_property(txn, s.thing, "ints", CE_TYPE_INT, false, CE_COLLECTION_LIST, 0);
    s.strings = add_property(txn, s.thing, "strings", CE_TYPE_STRING, true, CE_COLLECTION_SET, 0);
    s.doubles = add_property(txn, s.thing, "doubles", CE_TYPE_DOUBLE, false, CE_COLLECTION_LIST, 0);
    s.dictionary = add_property(txn, s.thing, "dictionary", CE_TYPE_INT, true, CE_COLLECTION_DICTIONARY, 0);
    s.links = add_property(txn, s.thing, "links", CE_TYPE_LINK, false, CE_COLLECTION_LIST, s.target);
    s.link_set = add_property(txn, s.thing, "linkSet", CE_TYPE_LINK, false, CE_COLLECTION_SET, s.target);
    s.link_dictionary = add_property(txn, s.thing, "linkMap", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, s.target);
    s.mixed_list = add_property(txn, s.thing, "mixedList", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    s.child = add_property(txn, s.thing, "child", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.embedded);
    s.children = add_property(txn, s.thing, "children", CE_TYPE_LINK, false, CE_COLLECTION_LIST, s.embedded);
    sample_table = s.target;
    for (int i = 0; i < SAMPLE_TARGETS; i++) sample_targets[i] = create_object(txn, s.target);
    return s;
}

static ce_object_key random_key(ce_txn *txn, ce_table_key table, bool *out_found)
{
    size_t count = object_count(txn, table);
    *out_found = count > 0;
    if (!count) return 0;
    ce_object_key key;
    CHECK(ce_object_key_at(txn, table, random_below(count), &key));
    return key;
}

/* One random change to the objects of an every_schema database. */
static void random_change(ce_txn *txn, const every_schema *s)
{
    char buffer[SAMPLE_BUFFER];
    bool found;
    size_t what = random_below(20);
    if (what == 0 || object_count(txn, s->thing) < 4) {
        create_object(txn, s->thing);
        return;
    }
    ce_object_key thing = random_key(txn, s->thing, &found);
    unsigned variant = (unsigned)random_below(40);
    ce_collection *collection = NULL;
    switch (what) {
    case 1: CHECK(ce_object_delete(txn, s->thing, thing)); return;
    case 2: {
        ce_object_key target = random_key(txn, s->target, &found);
        set_value(txn, s->target, target, s->target_value, int_value((int64_t)variant));
        return;
    }
    case 3: {
        int i = (int)random_below(SCALAR_TYPES);
        ce_value value = sample_value(scalar_types[i], variant, buffer);
        set_value(txn, s->thing, thing, random_below(2) ? s->required[i] : s->optional[i], value);
        return;
    }
    case 4: {
        int i = (int)random_below(SCALAR_TYPES);
        set_value(txn, s->thing, thing, s->optional[i], null_value());
        return;
    }
    case 5: {
        ce_value value = random_below(6) == 0 ? nested_value(random_below(2) ? CE_TYPE_LIST : CE_TYPE_DICTIONARY)
                                              : sample_value(CE_TYPE_MIXED, variant, buffer);
        set_value(txn, s->thing, thing, s->mixed, value);
        return;
    }
    case 6: {
        ce_value value = random_below(4) ? sample_value(CE_TYPE_LINK, variant, buffer) : null_value();
        set_value(txn, s->thing, thing, s->link, value);
        return;
    }
    case 7: case 8: {
        ce_column_key column = what == 7 ? s->ints : s->links;
        CHECK(ce_collection_open(txn, s->thing, thing, column, &collection));
        size_t size;
        CHECK(ce_collection_size(collection, &size));
        ce_value value = what == 7 ? int_value((int64_t)variant) : sample_value(CE_TYPE_LINK, variant, buffer);
        size_t op = size ? random_below(5) : 0;
        if (op == 0) CHECK(ce_list_insert(collection, random_below(size + 1), &value));
        else if (op == 1) CHECK(ce_list_erase(collection, random_below(size)));
        else if (op == 2) CHECK(ce_list_set(collection, random_below(size), &value));
        else if (op == 3) CHECK(ce_list_move(collection, random_below(size), random_below(size)));
        else CHECK(ce_list_swap(collection, random_below(size), random_below(size)));
        break;
    }
    case 9: {
        CHECK(ce_collection_open(txn, s->thing, thing, s->doubles, &collection));
        ce_value value = sample_value(CE_TYPE_DOUBLE, variant, buffer);
        CHECK(ce_list_insert(collection, 0, &value));
        break;
    }
    case 10: case 11: {
        CHECK(ce_collection_open(txn, s->thing, thing, what == 10 ? s->strings : s->link_set, &collection));
        ce_value value = what == 10 ? (variant % 5 ? sample_value(CE_TYPE_STRING, variant % 9, buffer) : null_value())
                                    : sample_value(CE_TYPE_LINK, variant, buffer);
        if (random_below(3)) CHECK(ce_set_insert(collection, &value, NULL));
        else CHECK(ce_set_erase(collection, &value, NULL));
        break;
    }
    case 12: case 13: {
        CHECK(ce_collection_open(txn, s->thing, thing, what == 12 ? s->dictionary : s->link_dictionary, &collection));
        char key[8];
        snprintf(key, sizeof key, "k%u", variant % 6);
        ce_value value = what == 12 ? (variant % 4 ? int_value(variant) : null_value())
                                    : sample_value(CE_TYPE_LINK, variant, buffer);
        if (random_below(4)) CHECK(ce_dictionary_set(collection, key, strlen(key), &value));
        else CHECK(ce_dictionary_erase(collection, key, strlen(key), NULL));
        break;
    }
    case 14: {
        CHECK(ce_collection_open(txn, s->thing, thing, s->mixed_list, &collection));
        size_t size;
        CHECK(ce_collection_size(collection, &size));
        ce_value value = random_below(5) == 0 ? nested_value(CE_TYPE_LIST) : sample_value(CE_TYPE_MIXED, variant, buffer);
        if (size && random_below(3) == 0) {
            /* Into a nested list, if that element holds one. */
            ce_value at = int_value((int64_t)random_below(size)), element;
            CHECK(ce_collection_get(collection, (size_t)at.integer, &element));
            if (element.type == CE_TYPE_LIST) {
                ce_collection *nested;
                CHECK(ce_collection_open_nested(collection, &at, &nested));
                ce_value inner = sample_value(CE_TYPE_MIXED, variant, buffer);
                CHECK(ce_list_insert(nested, 0, &inner));
                ce_collection_close(nested);
                break;
            }
        }
        CHECK(ce_list_insert(collection, random_below(size + 1), &value));
        break;
    }
    case 15: {
        ce_object_key part;
        CHECK(ce_object_create_embedded(txn, s->thing, thing, s->child, &part));
        set_value(txn, s->embedded, part, s->embedded_value, int_value(variant));
        return;
    }
    case 16: {
        ce_value part = get_value(txn, s->thing, thing, s->child);
        if (part.type == CE_TYPE_LINK) set_value(txn, s->embedded, part.link.key, s->embedded_value, int_value(variant));
        else if (random_below(2)) set_value(txn, s->thing, thing, s->child, null_value());
        return;
    }
    case 17: {
        CHECK(ce_collection_open(txn, s->thing, thing, s->children, &collection));
        size_t size;
        CHECK(ce_collection_size(collection, &size));
        ce_object_key part;
        if (size && random_below(2)) CHECK(ce_list_erase(collection, random_below(size)));
        else CHECK(ce_list_insert_embedded(collection, random_below(size + 1), &part));
        break;
    }
    case 18: {
        /* The same value again: no change. */
        ce_value value = get_value(txn, s->thing, thing, s->required[0]);
        set_value(txn, s->thing, thing, s->required[0], value);
        return;
    }
    default: {
        ce_object_key target = random_key(txn, s->target, &found);
        if (random_below(8) == 0 && object_count(txn, s->target) > SAMPLE_TARGETS) {
            CHECK(ce_object_delete(txn, s->target, target));
        } else if (random_below(2)) {
            sample_targets[random_below(SAMPLE_TARGETS)] = create_object(txn, s->target);
        }
        return;
    }
    }
    ce_collection_close(collection);
}

/* ------------------------------------------------------------------------ */
/* Cases                                                                     */
/* ------------------------------------------------------------------------ */

TEST(every_kind_of_change_against_the_snapshots)
{
    test_db t = test_db_open("changes-every");
    ce_txn *write, *old_txn, *new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    every_schema s = make_every_schema(write);
    CHECK(ce_txn_commit(write));
    size_t changed = 0;
    for (int round = 0; round < 150; round++) {
        CHECK(ce_txn_begin_read(t.db, &old_txn));
        CHECK(ce_txn_begin_write(t.db, &write));
        size_t steps = 1 + random_below(round % 10 == 0 ? 40 : 4);
        for (size_t i = 0; i < steps; i++) random_change(write, &s);
        /* The write transaction itself as the new version, then committed. */
        changed += compute_and_check(old_txn, write, NULL);
        CHECK(ce_txn_commit(write));
        CHECK(ce_txn_begin_read(t.db, &new_txn));
        ce_changes *changes;
        changed += compute_and_check(old_txn, new_txn, &changes);
        CHECK(!ce_changes_schema_changed(changes));
        /* Filters through every kind of link, and Realm's default, on each
         * table: all matching objects at once against one by one. */
        static const struct {
            int table; /* 0 thing, 1 target, 2 part */
            const char *path;
        } filters[] = {{0, NULL},          {0, "link.value"},     {0, "links.value"},   {0, "linkSet.value"},
                       {0, "linkMap.value"}, {0, "child.value"},  {0, "children.value"}, {0, "ints"},
                       {0, "mixed"},       {0, "*"},              {1, NULL},            {1, "@links.Thing.links"},
                       {1, "@links.Thing.link.rint"}, {1, "@links.Thing.linkMap.linkSet.value"}, {2, NULL},
                       {2, "@links.Thing.children.links.value"}, {1, "@links.Thing.mixed.rint"}};
        for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
            ce_table_key table = filters[f].table == 0 ? s.thing : filters[f].table == 1 ? s.target : s.embedded;
            ce_key_path_filter *filter;
            /* A mixed property has backlinks once it first held a link. */
            if (!ce_key_path_filter_create(new_txn, table, filters[f].path ? &filters[f].path : NULL,
                                           filters[f].path ? 1 : 0, &filter)) {
                CHECK(strstr(filters[f].path, "mixed") != NULL);
                continue;
            }
            check_matching_objects(changes, new_txn, table, filter);
            ce_key_path_filter_free(filter);
        }
        ce_changes_free(changes);
        /* The same version on both sides: nothing. */
        CHECK(compute_and_check(new_txn, new_txn, NULL) == 0);
        ce_txn_end(old_txn);
        ce_txn_end(new_txn);
    }
    CHECK(changed > 150);
    /* Every range between two committed versions is in the history. */
    CHECK(between_reads >= 300 && from_history == between_reads);
    test_db_close(&t);
}

TEST(each_property_type_set_alone)
{
    test_db t = test_db_open("changes-types");
    ce_txn *write, *old_txn, *new_txn;
    char buffer[SAMPLE_BUFFER];
    CHECK(ce_txn_begin_write(t.db, &write));
    every_schema s = make_every_schema(write);
    ce_object_key thing = create_object(write, s.thing);
    create_object(write, s.thing);
    CHECK(ce_txn_commit(write));
    ce_column_key columns[2 * SCALAR_TYPES + 1];
    ce_value values[2 * SCALAR_TYPES + 1];
    size_t count = 0;
    for (int i = 0; i < SCALAR_TYPES; i++) {
        columns[count] = s.required[i], values[count++] = sample_value(scalar_types[i], 3, buffer + 0);
        columns[count] = s.optional[i], values[count++] = sample_value(scalar_types[i], 4, buffer + 4096);
    }
    columns[count] = s.mixed, values[count++] = int_value(5);
    for (size_t i = 0; i < count; i++) {
        CHECK(ce_txn_begin_read(t.db, &old_txn));
        CHECK(ce_txn_begin_write(t.db, &write));
        set_value(write, s.thing, thing, columns[i], values[i]);
        CHECK(ce_txn_commit(write));
        CHECK(ce_txn_begin_read(t.db, &new_txn));
        ce_changes *changes;
        CHECK(compute_and_check(old_txn, new_txn, &changes) == 1);
        ce_object_change_kind kind;
        ce_column_key changed[4];
        size_t changed_count;
        CHECK(ce_changes_object(changes, s.thing, thing, &kind, changed, 4, &changed_count));
        CHECK(kind == CE_OBJECT_MODIFIED && changed_count == 1 && changed[0] == columns[i]);
        ce_changes_free(changes);
        ce_txn_end(old_txn);
        ce_txn_end(new_txn);
    }
    test_db_close(&t);
}

/* Values that compare equal but read back otherwise are changes; the same
 * bits are none. */
TEST(equal_values_that_differ)
{
    test_db t = test_db_open("changes-bits");
    ce_txn *write, *old_txn, *new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_table_key table = add_table(write, "Number", false);
    ce_column_key d = add_scalar(write, table, "d", CE_TYPE_DOUBLE, false);
    ce_column_key f = add_scalar(write, table, "f", CE_TYPE_FLOAT, false);
    ce_column_key dec = add_scalar(write, table, "dec", CE_TYPE_DECIMAL128, false);
    ce_column_key m = add_scalar(write, table, "m", CE_TYPE_MIXED, true);
    ce_object_key object = create_object(write, table);
    CHECK(ce_txn_commit(write));
    ce_decimal128 one, one_hundredths;
    CHECK(ce_decimal128_from_string("1.0", &one) && ce_decimal128_from_string("1.00", &one_hundredths));
    struct {
        ce_column_key column;
        ce_value value;
        bool changed;
    } steps[] = {
        {d, {.type = CE_TYPE_DOUBLE, .double_value = -0.0}, true},
        {d, {.type = CE_TYPE_DOUBLE, .double_value = -0.0}, false},
        {d, {.type = CE_TYPE_DOUBLE, .double_value = __builtin_nan("")}, true},
        {d, {.type = CE_TYPE_DOUBLE, .double_value = __builtin_nan("")}, false},
        {f, {.type = CE_TYPE_FLOAT, .float_value = -0.0f}, true},
        {dec, {.type = CE_TYPE_DECIMAL128, .decimal = one}, true},
        {dec, {.type = CE_TYPE_DECIMAL128, .decimal = one_hundredths}, true},
        {dec, {.type = CE_TYPE_DECIMAL128, .decimal = one_hundredths}, false},
        {m, {.type = CE_TYPE_DOUBLE, .double_value = 0.0}, true},
        {m, {.type = CE_TYPE_DOUBLE, .double_value = -0.0}, true},
        {m, {.type = CE_TYPE_DOUBLE, .double_value = -0.0}, false},
        {m, {.type = CE_TYPE_INT, .integer = 0}, true},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        CHECK(ce_txn_begin_read(t.db, &old_txn));
        CHECK(ce_txn_begin_write(t.db, &write));
        CHECK(ce_object_set(write, table, object, steps[i].column, &steps[i].value));
        CHECK(ce_txn_commit(write));
        CHECK(ce_txn_begin_read(t.db, &new_txn));
        CHECK(compute_and_check(old_txn, new_txn, NULL) == (steps[i].changed ? 1u : 0u));
        ce_txn_end(old_txn);
        ce_txn_end(new_txn);
    }
    test_db_close(&t);
}

/* CE_CHANGES_EVERY_SET: Realm's meaning of a change. Realm's transaction
 * log records every set, so its notifications report a property set to the
 * value it had (realm-swift's UpdatePolicy.all: "Overwrite all properties in
 * the existing object with the new values, even if they have not changed.
 * This results in change notifications reporting all properties as
 * changed"). Without the option the values are compared, as above. */
TEST(every_set_counts_with_the_option)
{
    test_db t = test_db_open("changes-every-set");
    ce_txn *write, *old_txn, *new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_table_key table = add_table(write, "Thing", false);
    ce_column_key number = add_scalar(write, table, "number", CE_TYPE_INT, false);
    ce_column_key link = add_property(write, table, "link", CE_TYPE_LINK, true, CE_COLLECTION_NONE, table);
    ce_object_key object = create_object(write, table), other = create_object(write, table);
    ce_value seven = int_value(7), target = {.type = CE_TYPE_LINK, .link = {table, other}};
    CHECK(ce_object_set(write, table, object, number, &seven));
    CHECK(ce_object_set(write, table, object, link, &target));
    CHECK(ce_txn_commit(write));
    for (int step = 0; step < 2; step++) {
        CHECK(ce_txn_begin_read(t.db, &old_txn));
        CHECK(ce_txn_begin_write(t.db, &write));
        if (step == 0) {
            /* The values it has: the number, the link to the same object. */
            CHECK(ce_object_set(write, table, object, number, &seven));
            CHECK(ce_object_set(write, table, object, link, &target));
        } else {
            /* Set to another value and back, in one transaction. */
            ce_value eight = int_value(8);
            CHECK(ce_object_set(write, table, object, number, &eight));
            CHECK(ce_object_set(write, table, object, number, &seven));
        }
        CHECK(ce_txn_commit(write));
        CHECK(ce_txn_begin_read(t.db, &new_txn));
        ce_changes *changes;
        CHECK(compute_and_check(old_txn, new_txn, NULL) == 0);
        CHECK(ce_changes_compute_with_options(old_txn, new_txn, CE_CHANGES_EVERY_SET, &changes));
        CHECK(ce_changes_used_history(changes));
        ce_object_change_kind kind;
        ce_column_key columns[4];
        size_t count;
        CHECK(ce_changes_object(changes, table, object, &kind, columns, 4, &count));
        CHECK(kind == CE_OBJECT_MODIFIED);
        CHECK(count == (step == 0 ? 2u : 1u) && columns[0] == number && (step == 1 || columns[1] == link));
        CHECK(ce_changes_object(changes, table, other, &kind, NULL, 0, &count) && kind == CE_OBJECT_UNCHANGED);
        ce_changes_free(changes);
        ce_txn_end(old_txn);
        ce_txn_end(new_txn);
    }
    /* An unknown option. */
    CHECK(ce_txn_begin_read(t.db, &old_txn));
    ce_changes *changes = NULL;
    CHECK(!ce_changes_compute_with_options(old_txn, old_txn, 1u << 7, &changes) && changes == NULL);
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    ce_txn_end(old_txn);
    test_db_close(&t);
}

TEST(embedded_cascades_and_deleted_targets)
{
    test_db t = test_db_open("changes-cascade");
    ce_txn *write, *old_txn, *new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    every_schema s = make_every_schema(write);
    ce_object_key thing = create_object(write, s.thing), other = create_object(write, s.thing);
    ce_object_key child, part[3];
    CHECK(ce_object_create_embedded(write, s.thing, thing, s.child, &child));
    ce_collection *children;
    CHECK(ce_collection_open(write, s.thing, thing, s.children, &children));
    for (int i = 0; i < 3; i++) CHECK(ce_list_insert_embedded(children, (size_t)i, &part[i]));
    ce_collection_close(children);
    ce_value target = link_value(s.target, sample_targets[0]);
    set_value(write, s.thing, other, s.link, target);
    CHECK(ce_txn_commit(write));

    /* Deleting the parent deletes its four embedded objects. */
    CHECK(ce_txn_begin_read(t.db, &old_txn));
    CHECK(ce_txn_begin_write(t.db, &write));
    CHECK(ce_object_delete(write, s.thing, thing));
    /* Deleting a target nulls the link to it: the origin is modified. */
    CHECK(ce_object_delete(write, s.target, sample_targets[0]));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    ce_changes *changes;
    CHECK(compute_and_check(old_txn, new_txn, &changes) == 7);
    const ce_object_key *deleted;
    size_t deleted_count, modified_count;
    const ce_object_key *modified;
    CHECK(ce_changes_table(changes, s.embedded, &deleted, &deleted_count, NULL, NULL, NULL, NULL));
    CHECK(deleted_count == 4);
    CHECK(ce_changes_table(changes, s.thing, NULL, NULL, NULL, NULL, &modified, &modified_count));
    CHECK(modified_count == 1 && modified[0] == other);
    ce_column_key columns[4];
    size_t column_count;
    ce_object_change_kind kind;
    CHECK(ce_changes_object(changes, s.thing, other, &kind, columns, 4, &column_count));
    CHECK(kind == CE_OBJECT_MODIFIED && column_count == 1 && columns[0] == s.link);
    CHECK(ce_changes_object(changes, s.thing, thing, &kind, columns, 4, &column_count));
    CHECK(kind == CE_OBJECT_DELETED && column_count == 0);
    ce_changes_free(changes);
    ce_txn_end(old_txn);
    ce_txn_end(new_txn);
    test_db_close(&t);
}

TEST(schema_changes)
{
    test_db t = test_db_open("changes-schema");
    ce_txn *write, *old_txn, *new_txn;
    ce_changes *changes;
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_table_key dog = add_table(write, "Dog", false);
    ce_column_key name = add_scalar(write, dog, "name", CE_TYPE_STRING, false);
    ce_object_key rex = create_object(write, dog);
    create_object(write, dog);
    CHECK(ce_txn_commit(write));

    /* A property added: a schema change, no object modified. */
    CHECK(ce_txn_begin_read(t.db, &old_txn));
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_column_key age = add_scalar(write, dog, "age", CE_TYPE_INT, false);
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    CHECK(compute_and_check(old_txn, new_txn, &changes) == 0);
    CHECK(ce_changes_schema_changed(changes));
    CHECK(!ce_changes_used_history(changes) || ce_changes_used_history(changes));
    ce_changes_free(changes);
    ce_txn_end(old_txn);

    /* A property removed and another set: only the one set is modified. */
    old_txn = new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    CHECK(ce_property_remove(write, dog, age));
    set_value(write, dog, rex, name, string_value("Rex"));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    CHECK(compute_and_check(old_txn, new_txn, &changes) == 1);
    CHECK(ce_changes_schema_changed(changes));
    ce_changes_free(changes);
    ce_txn_end(old_txn);

    /* A table added with objects: all inserted; then removed: all deleted. */
    old_txn = new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_table_key cat = add_table(write, "Cat", false);
    add_scalar(write, cat, "name", CE_TYPE_STRING, false);
    for (int i = 0; i < 300; i++) create_object(write, cat);
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    CHECK(compute_and_check(old_txn, new_txn, &changes) == 300);
    CHECK(ce_changes_schema_changed(changes));
    ce_changes_free(changes);
    ce_txn_end(old_txn);
    old_txn = new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    CHECK(ce_table_remove(write, cat));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    CHECK(compute_and_check(old_txn, new_txn, &changes) == 300);
    CHECK(ce_changes_schema_changed(changes));
    const ce_object_key *deleted;
    size_t deleted_count;
    CHECK(ce_changes_table(changes, cat, &deleted, &deleted_count, NULL, NULL, NULL, NULL) && deleted_count == 300);
    ce_changes_free(changes);
    ce_txn_end(old_txn);

    /* The schema version alone. */
    old_txn = new_txn;
    CHECK(ce_txn_begin_write(t.db, &write));
    CHECK(ce_set_schema_version(write, 7));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    CHECK(compute_and_check(old_txn, new_txn, &changes) == 0);
    CHECK(ce_changes_schema_changed(changes));
    ce_changes_free(changes);
    /* And nothing at all. */
    CHECK(ce_changes_compute(new_txn, new_txn, &changes));
    CHECK(!ce_changes_schema_changed(changes));
    ce_changes_free(changes);
    ce_txn_end(old_txn);
    ce_txn_end(new_txn);
    test_db_close(&t);
}

TEST(large_tables_one_change_among_many)
{
    test_db t = test_db_open("changes-large");
    ce_txn *write, *old_txn, *new_txn;
    ce_changes *changes;
    enum { OBJECTS = 70000 };
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_table_key item = add_table(write, "Item", false);
    ce_column_key value = add_scalar(write, item, "value", CE_TYPE_INT, false);
    ce_column_key label = add_scalar(write, item, "label", CE_TYPE_STRING, true);
    ce_table_key quiet = add_table(write, "Quiet", false);
    add_scalar(write, quiet, "value", CE_TYPE_INT, false);
    for (int i = 0; i < OBJECTS; i++) {
        ce_value values[2] = {int_value(i), null_value()};
        ce_object_key key;
        CHECK(ce_object_create_with_values(write, item, values, 2, &key));
    }
    for (int i = 0; i < 1000; i++) create_object(write, quiet);
    CHECK(ce_txn_commit(write));
    for (int round = 0; round < 12; round++) {
        CHECK(ce_txn_begin_read(t.db, &old_txn));
        CHECK(ce_txn_begin_write(t.db, &write));
        size_t count = object_count(write, item);
        ce_object_key key;
        CHECK(ce_object_key_at(write, item, random_below(count), &key));
        ce_object_key expected_modified = -1;
        switch (round % 4) {
        case 0: set_value(write, item, key, value, int_value(-round)), expected_modified = key; break;
        case 1: set_value(write, item, key, label, string_value("changed")), expected_modified = key; break;
        case 2:
            /* Enough deletes in a row to empty leaves; then inserts at the end. */
            for (int i = 0; i < 600 && count; i++, count--) {
                CHECK(ce_object_key_at(write, item, random_below(count), &key));
                CHECK(ce_object_delete(write, item, key));
            }
            break;
        default:
            for (int i = 0; i < 700; i++) create_object(write, item);
            break;
        }
        CHECK(ce_txn_commit(write));
        CHECK(ce_txn_begin_read(t.db, &new_txn));
        CHECK(compute_and_check(old_txn, new_txn, &changes) > 0);
        if (expected_modified >= 0) {
            const ce_object_key *modified;
            size_t modified_count, quiet_count;
            CHECK(ce_changes_table(changes, item, NULL, NULL, NULL, NULL, &modified, &modified_count));
            CHECK(modified_count == 1 && modified[0] == expected_modified);
            CHECK(ce_changes_table(changes, quiet, NULL, &quiet_count, NULL, NULL, NULL, NULL) && quiet_count == 0);
        }
        ce_changes_free(changes);
        ce_txn_end(old_txn);
        ce_txn_end(new_txn);
    }
    test_db_close(&t);
}

/* A reader older than the history keeps: the change set comes from the
 * snapshots, with the same answers. */
TEST(history_trimmed_falls_back_to_snapshots)
{
    char *dir = test_make_dir("changes-trimmed");
    char *path = test_path(dir, "test.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    test_set_key(&options);
    options.durability = CE_DURABILITY_UNSAFE_NO_SYNC;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    ce_txn *write, *pinned, *recent, *latest;
    CHECK(ce_txn_begin_write(db, &write));
    ce_table_key item = add_table(write, "Item", false);
    ce_column_key value = add_scalar(write, item, "value", CE_TYPE_INT, false);
    for (int i = 0; i < 50; i++) create_object(write, item);
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(db, &pinned));
    for (unsigned commit = 0; commit < HISTORY_MAX_VERSIONS + 5; commit++) {
        if (commit == HISTORY_MAX_VERSIONS) CHECK(ce_txn_begin_read(db, &recent));
        CHECK(ce_txn_begin_write(db, &write));
        set_value(write, item, (ce_object_key)(commit % 50), value, int_value((int64_t)commit + 1));
        if (commit % 100 == 7) create_object(write, item);
        /* Created then deleted in the range: in neither version. */
        if (commit % 100 == 9) CHECK(ce_object_delete(write, item, (ce_object_key)(50 + commit / 100)));
        CHECK(ce_txn_commit(write));
    }
    CHECK(ce_txn_begin_read(db, &latest));
    ce_changes *changes;
    CHECK(ce_changes_compute(pinned, latest, &changes));
    CHECK(!ce_changes_used_history(changes));
    CHECK(check_against_snapshots(pinned, latest, changes) == 50);
    ce_changes_free(changes);
    /* A range the history still holds. */
    CHECK(ce_changes_compute(recent, latest, &changes));
    CHECK(ce_changes_used_history(changes));
    CHECK(check_against_snapshots(recent, latest, changes) == 5);
    ce_changes_free(changes);
    ce_txn_end(pinned);
    ce_txn_end(recent);
    ce_txn_end(latest);
    CHECK(ce_db_close(db));
    test_cleanup_dir(dir);
    free(path);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Key-path filters                                                          */
/* ------------------------------------------------------------------------ */

typedef struct people_schema {
    ce_table_key person, dog;
    ce_column_key name, dogs, best, age, dog_name, friend;
    ce_object_key ada, bob, rex, fido;
} people_schema;

static people_schema make_people(ce_db *db)
{
    people_schema p;
    ce_txn *write;
    CHECK(ce_txn_begin_write(db, &write));
    p.person = add_table(write, "Person", false);
    p.dog = add_table(write, "Dog", false);
    p.name = add_scalar(write, p.person, "name", CE_TYPE_STRING, false);
    p.dogs = add_property(write, p.person, "dogs", CE_TYPE_LINK, false, CE_COLLECTION_LIST, p.dog);
    p.best = add_property(write, p.person, "best", CE_TYPE_LINK, true, CE_COLLECTION_NONE, p.dog);
    p.dog_name = add_scalar(write, p.dog, "name", CE_TYPE_STRING, false);
    p.age = add_scalar(write, p.dog, "age", CE_TYPE_INT, false);
    p.friend = add_property(write, p.dog, "friend", CE_TYPE_LINK, true, CE_COLLECTION_NONE, p.dog);
    p.ada = create_object(write, p.person);
    p.bob = create_object(write, p.person);
    p.rex = create_object(write, p.dog);
    p.fido = create_object(write, p.dog);
    ce_collection *dogs;
    CHECK(ce_collection_open(write, p.person, p.ada, p.dogs, &dogs));
    ce_value rex = link_value(p.dog, p.rex);
    CHECK(ce_list_insert(dogs, 0, &rex));
    ce_collection_close(dogs);
    set_value(write, p.person, p.bob, p.best, link_value(p.dog, p.fido));
    CHECK(ce_txn_commit(write));
    return p;
}

typedef void (*people_change)(ce_txn *txn, const people_schema *p);

/* Whether each of `paths` (NULL: the default) matches `object` after `change`. */
static void expect_matches(ce_db *db, const people_schema *p, people_change change, ce_table_key table,
                           ce_object_key object, const char *const *paths, const bool *expected, size_t count)
{
    ce_txn *old_txn, *write, *new_txn;
    CHECK(ce_txn_begin_read(db, &old_txn));
    CHECK(ce_txn_begin_write(db, &write));
    change(write, p);
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(db, &new_txn));
    ce_changes *changes;
    CHECK(ce_changes_compute(old_txn, new_txn, &changes));
    for (size_t i = 0; i < count; i++) {
        ce_key_path_filter *filter;
        CHECK(ce_key_path_filter_create(new_txn, table, paths[i] ? &paths[i] : NULL, paths[i] ? 1 : 0, &filter));
        bool changed;
        CHECK(ce_changes_object_matches(changes, filter, object, &changed));
        check_matching_objects(changes, new_txn, table, filter);
        if (changed != expected[i]) {
            fprintf(stderr, "key path '%s': changed %d, expected %d\n", paths[i] ? paths[i] : "(default)", changed,
                    expected[i]);
            CHECK(changed == expected[i]);
        }
        ce_key_path_filter_free(filter);
    }
    ce_changes_free(changes);
    ce_txn_end(old_txn);
    ce_txn_end(new_txn);
}

static void rex_ages(ce_txn *txn, const people_schema *p) { set_value(txn, p->dog, p->rex, p->age, int_value(4)); }
static void rex_renamed(ce_txn *txn, const people_schema *p)
{
    set_value(txn, p->dog, p->rex, p->dog_name, string_value("Rex II"));
}
static void fido_renamed(ce_txn *txn, const people_schema *p)
{
    static int renames;
    char name[32];
    snprintf(name, sizeof name, "Fido %d", ++renames);
    set_value(txn, p->dog, p->fido, p->dog_name, string_value(name));
}
static void ada_gets_fido(ce_txn *txn, const people_schema *p)
{
    ce_collection *dogs;
    CHECK(ce_collection_open(txn, p->person, p->ada, p->dogs, &dogs));
    ce_value fido = link_value(p->dog, p->fido);
    CHECK(ce_list_insert(dogs, 1, &fido));
    ce_collection_close(dogs);
}

TEST(key_path_filters_through_a_list_and_a_link)
{
    test_db t = test_db_open("changes-keypaths");
    people_schema p = make_people(t.db);
    const char *paths[] = {"dogs.name", "dogs.age", "dogs", "name", "best.name", NULL, "*", "dogs.*", "*.name"};
    /* Rex (in Ada's dogs) gets older: dogs.age and the default see it. */
    bool ages[] = {false, true, false, false, false, true, false, true, false};
    expect_matches(t.db, &p, rex_ages, p.person, p.ada, paths, ages, 9);
    bool renamed[] = {true, false, false, false, false, true, false, true, true};
    expect_matches(t.db, &p, rex_renamed, p.person, p.ada, paths, renamed, 9);
    /* Fido is Bob's best, in nobody's list: for Ada nothing changed. */
    bool fido_for_ada[] = {false, false, false, false, false, false, false, false, false};
    expect_matches(t.db, &p, fido_renamed, p.person, p.ada, paths, fido_for_ada, 9);
    bool fido_for_bob[] = {false, false, false, false, true, true, false, false, true};
    expect_matches(t.db, &p, fido_renamed, p.person, p.bob, paths, fido_for_bob, 9);
    /* The list itself changed: every path starting at dogs. */
    bool list_changed[] = {true, true, true, false, false, true, true, true, true};
    expect_matches(t.db, &p, ada_gets_fido, p.person, p.ada, paths, list_changed, 9);
    test_db_close(&t);
}

static void rex_befriends_fido(ce_txn *txn, const people_schema *p)
{
    set_value(txn, p->dog, p->rex, p->friend, link_value(p->dog, p->fido));
}
static void bob_renamed(ce_txn *txn, const people_schema *p)
{
    set_value(txn, p->person, p->bob, p->name, string_value("Robert"));
}

TEST(key_path_filters_through_backlinks)
{
    test_db t = test_db_open("changes-backlinks");
    people_schema p = make_people(t.db);
    const char *paths[] = {"@links.Person.dogs.name", "@links.Person.best.name", "@links.Person.dogs", "name"};
    /* Fido gets a second owner through Ada's list. */
    bool owner_added[] = {false, false, true, false};
    expect_matches(t.db, &p, ada_gets_fido, p.dog, p.fido, paths, owner_added, 4);
    /* Bob (whose best is Fido) renamed. */
    bool owner_renamed[] = {false, true, false, false};
    expect_matches(t.db, &p, bob_renamed, p.dog, p.fido, paths, owner_renamed, 4);
    /* Nothing for Rex there. */
    bool nothing[] = {false, false, false, false};
    expect_matches(t.db, &p, rex_befriends_fido, p.dog, p.fido, paths, nothing, 4);
    test_db_close(&t);
}

/* A filter made before its properties were removed still answers: a
 * property removed links nowhere and does not change. */
TEST(filters_outlive_schema_changes)
{
    test_db t = test_db_open("changes-filter-schema");
    people_schema p = make_people(t.db);
    ce_txn *made, *write, *after;
    CHECK(ce_txn_begin_read(t.db, &made));
    const char *paths[] = {"best.name", "@links.Person.best.name", "name"};
    ce_key_path_filter *people_filter, *dog_filter;
    CHECK(ce_key_path_filter_create(made, p.person, paths, 1, &people_filter));
    CHECK(ce_key_path_filter_create(made, p.dog, paths + 1, 1, &dog_filter));
    CHECK(ce_txn_begin_write(t.db, &write));
    CHECK(ce_property_remove(write, p.person, p.best));
    set_value(write, p.dog, p.fido, p.dog_name, string_value("Fido after"));
    set_value(write, p.person, p.bob, p.name, string_value("Bob after"));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &after));
    ce_changes *changes;
    CHECK(ce_changes_compute(made, after, &changes));
    CHECK(ce_changes_schema_changed(changes));
    bool changed = true;
    CHECK(ce_changes_object_matches(changes, people_filter, p.bob, &changed) && !changed);
    changed = true;
    CHECK(ce_changes_object_matches(changes, dog_filter, p.fido, &changed) && !changed);
    ce_key_path_filter_free(people_filter);
    ce_key_path_filter_free(dog_filter);
    ce_changes_free(changes);
    ce_txn_end(made);
    ce_txn_end(after);
    test_db_close(&t);
}

/* Owners with an embedded address, a dictionary and a set of links, and a
 * mixed value holding a link. */
typedef struct owner_schema {
    ce_table_key owner, address, pet;
    ce_column_key home, city, pets, friends, any, pet_name, nickname;
    ce_object_key ann, cy, tom, home_of_ann;
} owner_schema;

static owner_schema owners;

static void make_owners(ce_db *db)
{
    owner_schema *o = &owners;
    ce_txn *write;
    CHECK(ce_txn_begin_write(db, &write));
    o->owner = add_table(write, "Owner", false);
    o->address = add_table(write, "Address", true);
    o->pet = add_table(write, "Pet", false);
    o->city = add_scalar(write, o->address, "city", CE_TYPE_STRING, false);
    o->pet_name = add_scalar(write, o->pet, "name", CE_TYPE_STRING, false);
    o->nickname = add_scalar(write, o->owner, "nickname", CE_TYPE_STRING, false);
    o->home = add_property(write, o->owner, "home", CE_TYPE_LINK, true, CE_COLLECTION_NONE, o->address);
    o->pets = add_property(write, o->owner, "pets", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, o->pet);
    o->friends = add_property(write, o->owner, "friends", CE_TYPE_LINK, false, CE_COLLECTION_SET, o->owner);
    o->any = add_scalar(write, o->owner, "any", CE_TYPE_MIXED, true);
    o->ann = create_object(write, o->owner);
    o->cy = create_object(write, o->owner);
    o->tom = create_object(write, o->pet);
    CHECK(ce_object_create_embedded(write, o->owner, o->ann, o->home, &o->home_of_ann));
    ce_collection *pets, *friends;
    CHECK(ce_collection_open(write, o->owner, o->ann, o->pets, &pets));
    ce_value tom = link_value(o->pet, o->tom), cy = link_value(o->owner, o->cy);
    CHECK(ce_dictionary_set(pets, "cat", 3, &tom));
    ce_collection_close(pets);
    CHECK(ce_collection_open(write, o->owner, o->ann, o->friends, &friends));
    CHECK(ce_set_insert(friends, &cy, NULL));
    ce_collection_close(friends);
    set_value(write, o->owner, o->cy, o->any, tom);
    CHECK(ce_txn_commit(write));
}

static void ann_moves(ce_txn *txn, const people_schema *p)
{
    (void)p;
    set_value(txn, owners.address, owners.home_of_ann, owners.city, string_value("Lyon"));
}
static void tom_renamed(ce_txn *txn, const people_schema *p)
{
    (void)p;
    static int renames;
    char name[32];
    snprintf(name, sizeof name, "Tom %d", ++renames);
    set_value(txn, owners.pet, owners.tom, owners.pet_name, string_value(name));
}
static void cy_renamed(ce_txn *txn, const people_schema *p)
{
    (void)p;
    set_value(txn, owners.owner, owners.cy, owners.nickname, string_value("Cyril"));
}

TEST(key_path_filters_through_embedded_objects_dictionaries_sets_and_mixed)
{
    test_db t = test_db_open("changes-owners");
    people_schema unused;
    memset(&unused, 0, sizeof unused);
    make_owners(t.db);
    const char *paths[] = {"home.city", "pets.name", "friends.nickname", "friends.any", "nickname", NULL, "any"};
    bool moved[] = {true, false, false, false, false, true, false};
    expect_matches(t.db, &unused, ann_moves, owners.owner, owners.ann, paths, moved, 7);
    /* Tom is in Ann's pets, and in Cy's mixed value (a friend of Ann's):
     * the default reaches him both ways. */
    bool tom_for_ann[] = {false, true, false, false, false, true, false};
    expect_matches(t.db, &unused, tom_renamed, owners.owner, owners.ann, paths, tom_for_ann, 7);
    bool tom_for_cy[] = {false, false, false, false, false, true, false};
    expect_matches(t.db, &unused, tom_renamed, owners.owner, owners.cy, paths, tom_for_cy, 7);
    bool cy_for_ann[] = {false, false, true, false, false, true, false};
    expect_matches(t.db, &unused, cy_renamed, owners.owner, owners.ann, paths, cy_for_ann, 7);
    test_db_close(&t);
}

/* A chain of dogs, each the friend of the next: d0 -> d1 -> d2 -> d3 -> d4. */
static ce_object_key chain[5];
static size_t chain_changed;
static void chain_change(ce_txn *txn, const people_schema *p)
{
    set_value(txn, p->dog, chain[chain_changed], p->age, int_value(99 + (int64_t)chain_changed));
}

TEST(default_filter_depth_and_cycles)
{
    test_db t = test_db_open("changes-depth");
    people_schema p = make_people(t.db);
    ce_txn *write;
    CHECK(ce_txn_begin_write(t.db, &write));
    for (int i = 0; i < 5; i++) chain[i] = create_object(write, p.dog);
    for (int i = 0; i < 4; i++) set_value(write, p.dog, chain[i], p.friend, link_value(p.dog, chain[i + 1]));
    /* And a cycle back: d4 -> d0. */
    set_value(write, p.dog, chain[4], p.friend, link_value(p.dog, chain[0]));
    CHECK(ce_txn_commit(write));
    const char *paths[] = {NULL, "friend.friend.friend.age", "friend.friend.friend.friend.age"};
    for (chain_changed = 0; chain_changed < 5; chain_changed++) {
        /* From d0: the object and three levels of links (d1, d2, d3). */
        bool expected[] = {chain_changed <= 3, chain_changed == 3, chain_changed == 4};
        expect_matches(t.db, &p, chain_change, p.dog, chain[0], paths, expected, 3);
    }
    /* A change outside the cycle: every object of it walks the whole cycle
     * and finds nothing. */
    ce_txn *old_txn, *new_txn;
    CHECK(ce_txn_begin_read(t.db, &old_txn));
    CHECK(ce_txn_begin_write(t.db, &write));
    set_value(write, p.person, p.ada, p.name, string_value("Ada L."));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));
    ce_changes *changes;
    CHECK(ce_changes_compute(old_txn, new_txn, &changes));
    ce_key_path_filter *filter;
    CHECK(ce_key_path_filter_create(new_txn, p.dog, NULL, 0, &filter));
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 5; i++) {
            bool changed = true;
            CHECK(ce_changes_object_matches(changes, filter, chain[i], &changed));
            CHECK(!changed);
        }
    ce_key_path_filter_free(filter);
    ce_changes_free(changes);
    ce_txn_end(old_txn);
    ce_txn_end(new_txn);
    test_db_close(&t);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

TEST(errors)
{
    test_db t = test_db_open("changes-errors");
    people_schema p = make_people(t.db);
    ce_txn *old_txn, *new_txn, *write;
    ce_changes *changes;
    CHECK(ce_txn_begin_read(t.db, &old_txn));
    CHECK(ce_txn_begin_write(t.db, &write));
    ce_object_key rover = create_object(write, p.dog);
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &new_txn));

    EXPECT_ERROR(ce_changes_compute(NULL, new_txn, &changes), CE_ERR_INVALID_ARGUMENT, "both transactions");
    EXPECT_ERROR(ce_changes_compute(old_txn, NULL, &changes), CE_ERR_INVALID_ARGUMENT, "both transactions");
    EXPECT_ERROR(ce_changes_compute(old_txn, new_txn, NULL), CE_ERR_INVALID_ARGUMENT, "out_changes");
    EXPECT_ERROR(ce_changes_compute(new_txn, old_txn, &changes), CE_ERR_INVALID_ARGUMENT, "after the new one");
    /* Another handle on the same file. */
    ce_db *other = test_open(t.path);
    ce_txn *other_txn;
    CHECK(ce_txn_begin_read(other, &other_txn));
    EXPECT_ERROR(ce_changes_compute(old_txn, other_txn, &changes), CE_ERR_INVALID_ARGUMENT,
                 "different database handles");
    ce_txn_end(other_txn);
    CHECK(ce_db_close(other));
    /* The old version in a write transaction. */
    CHECK(ce_txn_begin_write(t.db, &write));
    EXPECT_ERROR(ce_changes_compute(write, write, &changes), CE_ERR_WRONG_TRANSACTION_STATE, "read transaction");
    ce_txn_end(write);

    CHECK(ce_changes_compute(old_txn, new_txn, &changes));
    EXPECT_ERROR(ce_changes_table(changes, 99, NULL, NULL, NULL, NULL, NULL, NULL), CE_ERR_NO_SUCH_TABLE, "99");
    EXPECT_ERROR(ce_changes_table(NULL, p.dog, NULL, NULL, NULL, NULL, NULL, NULL), CE_ERR_INVALID_ARGUMENT, NULL);
    ce_object_change_kind kind;
    EXPECT_ERROR(ce_changes_object(changes, 99, rover, &kind, NULL, 0, NULL), CE_ERR_NO_SUCH_TABLE, NULL);
    EXPECT_ERROR(ce_changes_object(changes, p.dog, rover, NULL, NULL, 0, NULL), CE_ERR_INVALID_ARGUMENT, "out_kind");
    CHECK(ce_changes_object(changes, p.dog, rover, &kind, NULL, 0, NULL) && kind == CE_OBJECT_INSERTED);
    CHECK(ce_changes_object(changes, p.dog, 12345, &kind, NULL, 0, NULL) && kind == CE_OBJECT_UNCHANGED);
    CHECK(!ce_changes_used_history(NULL) && !ce_changes_schema_changed(NULL));
    /* Too little room for the columns: the count, and an error. */
    ce_changes *renamed;
    ce_txn *after;
    CHECK(ce_txn_begin_write(t.db, &write));
    set_value(write, p.dog, p.rex, p.dog_name, string_value("Rex III"));
    set_value(write, p.dog, p.rex, p.age, int_value(9));
    CHECK(ce_txn_commit(write));
    CHECK(ce_txn_begin_read(t.db, &after));
    CHECK(ce_changes_compute(new_txn, after, &renamed));
    ce_column_key one_column[1];
    size_t column_count = 0;
    EXPECT_ERROR(ce_changes_object(renamed, p.dog, p.rex, &kind, one_column, 1, &column_count),
                 CE_ERR_INVALID_ARGUMENT, "capacity");
    CHECK(column_count == 2);
    CHECK(ce_changes_object(renamed, p.dog, p.rex, &kind, NULL, 0, &column_count) && column_count == 2);
    ce_changes_free(renamed);
    ce_txn_end(after);

    /* Key paths: Realm's messages. */
    ce_key_path_filter *filter;
    const char *unknown[] = {"dogs.nmae"};
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.person, unknown, 1, &filter), CE_ERR_NO_SUCH_PROPERTY,
                 "Property 'nmae' in KeyPath 'dogs.nmae' is not a valid property in Dog.");
    const char *top[] = {"name", "agee"};
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.person, top, 2, &filter), CE_ERR_NO_SUCH_PROPERTY,
                 "Property 'agee' in KeyPath 'agee' is not a valid property in Person.");
    const char *intermediate[] = {"name.first"};
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.person, intermediate, 1, &filter), CE_ERR_NO_SUCH_PROPERTY,
                 "Property 'name' in KeyPath 'name.first' is not a collection of objects or an object reference, so "
                 "it cannot be used as an intermediate keypath element.");
    const char *backlink[] = {"@links.Person.cats"};
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.dog, backlink, 1, &filter), CE_ERR_NO_SUCH_PROPERTY,
                 "Property '@links.Person.cats' in KeyPath '@links.Person.cats' is not a valid property in Dog.");
    const char *empty[] = {""};
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.dog, empty, 1, &filter), CE_ERR_NO_SUCH_PROPERTY,
                 "Property '' in KeyPath '' is not a valid property in Dog.");
    const char *null_path[] = {NULL};
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.dog, null_path, 1, &filter), CE_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, 99, NULL, 0, &filter), CE_ERR_NO_SUCH_TABLE, NULL);
    EXPECT_ERROR(ce_key_path_filter_create(NULL, p.dog, NULL, 0, &filter), CE_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_ERROR(ce_key_path_filter_create(new_txn, p.dog, NULL, 0, NULL), CE_ERR_INVALID_ARGUMENT, NULL);

    CHECK(ce_key_path_filter_create(new_txn, p.dog, NULL, 0, &filter));
    bool changed;
    EXPECT_ERROR(ce_changes_object_matches(changes, NULL, rover, &changed), CE_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_ERROR(ce_changes_object_matches(NULL, filter, rover, &changed), CE_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_ERROR(ce_changes_object_matches(changes, filter, 12345, &changed), CE_ERR_NO_SUCH_OBJECT, "12345");
    /* An inserted object is no modification. */
    CHECK(ce_changes_object_matches(changes, filter, rover, &changed) && !changed);
    const ce_object_key *matching;
    size_t matching_count;
    CHECK(ce_changes_matching_objects(changes, filter, &matching, &matching_count) && matching_count == 0);
    EXPECT_ERROR(ce_changes_matching_objects(changes, NULL, &matching, &matching_count), CE_ERR_INVALID_ARGUMENT,
                 "filter");
    EXPECT_ERROR(ce_changes_matching_objects(NULL, filter, &matching, &matching_count), CE_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_ERROR(ce_changes_matching_objects(changes, filter, NULL, &matching_count), CE_ERR_INVALID_ARGUMENT, NULL);
    ce_key_path_filter_free(filter);
    ce_key_path_filter_free(NULL);
    ce_changes_free(changes);
    ce_changes_free(NULL);
    ce_txn_end(old_txn);
    ce_txn_end(new_txn);
    test_db_close(&t);
}
