/*
 * test_links_support.h — what the link and collection test programs
 * (test_links, test_lists, test_sets, test_dictionaries, test_embedded,
 * test_mixed) share: their random numbers, values and schema helpers,
 * checks of backlinks and of values, sample values of every type, checks
 * of a collection against its model (a model_collection of the reference
 * model, model.h), and the fixture that opens a case's database.
 *
 * Owns: those helpers and the fixture (links_db_open, add_sample_targets).
 * Never: holds a case; models a collection itself (model.h does).
 */
#ifndef CE_TEST_LINKS_SUPPORT_H
#define CE_TEST_LINKS_SUPPORT_H

#include "model.h"
#include "node.h"
#include "test_support.h"

static uint64_t random_state = 0x11A4C5;
static inline uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline size_t random_below(size_t bound) { return (size_t)(next_random() % bound); }

static inline ce_value int_value(int64_t v) { return (ce_value){.type = CE_TYPE_INT, .integer = v}; }
static inline ce_value string_value(const char *text)
{
    return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}};
}
static inline ce_value null_value(void) { return (ce_value){.type = CE_TYPE_NULL}; }
static inline ce_value link_value(ce_table_key table, ce_object_key key)
{
    return (ce_value){.type = CE_TYPE_LINK, .link = {table, key}};
}
static inline ce_value nested_value(ce_type kind) { return (ce_value){.type = kind}; }

/* The call failed with `code`, its message containing `fragment` (if not NULL). */
static inline void expect_error_at(const char *file, int line, bool ok, ce_error_code code, const char *fragment)
{
    if (ok || ce_last_error_code() != code || (fragment && !strstr(ce_last_error_message(), fragment))) {
        fprintf(stderr, "%s:%d: expected error [%d] containing '%s', got %s [%d] %s\n", file, line, (int)code,
                fragment ? fragment : "", ok ? "success" : "failure", (int)ce_last_error_code(), ce_last_error_message());
        exit(1);
    }
}
#define EXPECT_ERROR(call, code, fragment) expect_error_at(__FILE__, __LINE__, (call), (code), (fragment))

static inline ce_column_key add_property(ce_txn *txn, ce_table_key table, const char *name, ce_type type, bool nullable,
                                         ce_collection_type collection, ce_table_key link_target)
{
    ce_property_info info = {.name = name, .type = type, .nullable = nullable, .collection = collection,
                             .link_target = link_target};
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    return column;
}

static inline ce_column_key add_scalar(ce_txn *txn, ce_table_key table, const char *name, ce_type type, bool nullable)
{
    return add_property(txn, table, name, type, nullable, CE_COLLECTION_NONE, 0);
}

static inline ce_table_key add_table(ce_txn *txn, const char *name, bool embedded)
{
    ce_table_key table;
    CHECK(embedded ? ce_table_add_embedded(txn, name, &table) : ce_table_add(txn, name, &table));
    return table;
}

static inline ce_object_key create_object(ce_txn *txn, ce_table_key table)
{
    ce_object_key key;
    CHECK(ce_object_create(txn, table, NULL, &key));
    return key;
}

static inline size_t object_count(ce_txn *txn, ce_table_key table)
{
    size_t count;
    CHECK(ce_object_count(txn, table, &count));
    return count;
}

static inline bool object_exists(ce_txn *txn, ce_table_key table, ce_object_key key)
{
    bool exists;
    CHECK(ce_object_exists(txn, table, key, &exists));
    return exists;
}

static inline ce_value get_value(ce_txn *txn, ce_table_key table, ce_object_key key, ce_column_key column)
{
    ce_value value;
    CHECK(ce_object_get(txn, table, key, column, &value));
    return value;
}

static inline void set_value(ce_txn *txn, ce_table_key table, ce_object_key key, ce_column_key column, ce_value value)
{
    CHECK(ce_object_set(txn, table, key, column, &value));
}

static inline size_t backlink_count(ce_txn *txn, ce_table_key table, ce_object_key key, ce_table_key origin_table,
                                    ce_column_key origin_column)
{
    size_t count;
    CHECK(ce_object_backlink_count(txn, table, key, origin_table, origin_column, &count));
    return count;
}

static inline size_t backlink_total(ce_txn *txn, ce_table_key table, ce_object_key key)
{
    size_t count;
    CHECK(ce_object_backlink_total(txn, table, key, &count));
    return count;
}

static inline ce_column_key find_property(ce_txn *txn, ce_table_key table, const char *name)
{
    ce_column_key column;
    bool found;
    CHECK(ce_property_find(txn, table, name, &column, &found));
    if (!found) {
        fprintf(stderr, "no property '%s' in table %u\n", name, (unsigned)table);
        exit(1);
    }
    return column;
}

static inline bool has_property(ce_txn *txn, ce_table_key table, const char *name)
{
    ce_column_key column;
    bool found;
    CHECK(ce_property_find(txn, table, name, &column, &found));
    return found;
}

static inline int compare_keys(const void *a, const void *b)
{
    ce_object_key left = *(const ce_object_key *)a, right = *(const ce_object_key *)b;
    return (left > right) - (left < right);
}

/* The backlinks of one object from one origin property are exactly
 * `expected` (any order here; the engine lists them in key order). */
static inline void check_backlinks(ce_txn *txn, ce_table_key table, ce_object_key key, ce_table_key origin_table,
                                   ce_column_key origin_column, const ce_object_key *expected, size_t expected_count)
{
    ce_object_key *sorted = malloc((expected_count + 1) * sizeof *sorted);
    CHECK(sorted != NULL);
    if (expected_count) memcpy(sorted, expected, expected_count * sizeof *sorted);
    qsort(sorted, expected_count, sizeof *sorted, compare_keys);
    size_t count = backlink_count(txn, table, key, origin_table, origin_column);
    if (count != expected_count) {
        fprintf(stderr, "object %lld of table %u: %zu backlinks from %u.%u, expected %zu\n", (long long)key,
                (unsigned)table, count, (unsigned)origin_table, (unsigned)origin_column, expected_count);
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        ce_object_key origin;
        CHECK(ce_object_backlink_at(txn, table, key, origin_table, origin_column, i, &origin));
        CHECK(origin == sorted[i]);
    }
    ce_object_key origin;
    EXPECT_ERROR(ce_object_backlink_at(txn, table, key, origin_table, origin_column, count, &origin),
                 CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    free(sorted);
}

static inline void describe(const ce_value *value, char *text, size_t size)
{
    switch (value->type) {
    case CE_TYPE_NULL: snprintf(text, size, "null"); break;
    case CE_TYPE_INT: snprintf(text, size, "int %lld", (long long)value->integer); break;
    case CE_TYPE_STRING:
        snprintf(text, size, "string of %zu bytes '%.*s'", value->string.size,
                 value->string.size > 24 ? 24 : (int)value->string.size, value->string.data);
        break;
    case CE_TYPE_LINK:
        snprintf(text, size, "link %u/%lld", (unsigned)value->link.table, (long long)value->link.key);
        break;
    default: snprintf(text, size, "a %s", ce_type_name(value->type)); break;
    }
}

static inline void check_same(const ce_value *expected, const ce_value *actual, const char *where, size_t index)
{
    if (test_same_value(expected, actual)) return;
    char want[96], got[96];
    describe(expected, want, sizeof want);
    describe(actual, got, sizeof got);
    fprintf(stderr, "%s[%zu]: expected %s, got %s\n", where, index, want, got);
    exit(1);
}

/* The nodes of the user's tree (the group and everything below it, not the
 * free lists): equal counts before and after a collection is filled and
 * emptied again mean its root went back to 0 and nothing of it stayed
 * behind. Bytes are counted for nodes without refs only: refs are file
 * offsets, and a file that grew needs wider ones. */
typedef struct tree_size {
    uint64_t nodes, bytes;
} tree_size;

static inline bool count_node(void *context, space_ref ref, const node_view *node)
{
    (void)ref;
    tree_size *size = context;
    size->nodes++;
    if (!(node->flags & NODE_HAS_REFS)) size->bytes += node_size(node);
    return true;
}

static inline tree_size user_tree_size(ce_db *db)
{
    ce_txn *txn;
    tree_size size = {0, 0};
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(node_walk_tree(db_txn_space(txn), db_txn_root(txn), NODE_MAX_TREE_DEPTH, count_node, &size));
    ce_txn_end(txn);
    return size;
}

static inline void commit_and_verify(ce_db *db, ce_txn *txn)
{
    CHECK(ce_txn_commit(txn));
    test_verify(db);
}

/* Commits reach the OS, not the disk: a close and reopen reads them back
 * all the same, and the test spends its time in the engine, not in fsync. */
static inline ce_db *open_db(const char *path)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.durability = CE_DURABILITY_UNSAFE_NO_SYNC;
    test_set_key(&options); /* the encrypted variant */
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

static inline ce_db *reopen(ce_db *db, const char *path)
{
    CHECK(ce_db_close(db));
    ce_db *reopened = open_db(path);
    test_verify(reopened);
    return reopened;
}

/* ------------------------------------------------------------------------ */
/* Sample values of every type                                               */
/* ------------------------------------------------------------------------ */

#define SAMPLE_BUFFER 8192
#define SAMPLE_TARGETS 6

/* Links in samples go to these objects. */
static ce_table_key sample_table;
static ce_object_key sample_targets[SAMPLE_TARGETS];

/* A text of `size` bytes that zstd shrinks well (stored compressed once it
 * reaches COLUMN_COMPRESS_MIN bytes). */
static inline void fill_compressible(char *buffer, size_t size, unsigned seed)
{
    static const char words[] = "lorem ipsum dolor sit amet ";
    int prefix = snprintf(buffer, size, "#%u:", seed);
    for (size_t i = (size_t)prefix; i < size; i++) buffer[i] = words[(i + seed) % (sizeof words - 1)];
}

static inline ce_value sample_value(ce_type type, unsigned variant, char *buffer)
{
    ce_value value = {.type = type};
    switch (type) {
    case CE_TYPE_INT:
        value.integer = variant == 0 ? INT64_MIN : variant == 1 ? INT64_MAX : (int64_t)variant * 7919 - 40000;
        break;
    case CE_TYPE_BOOL: value.boolean = variant & 1; break;
    case CE_TYPE_FLOAT: value.float_value = (float)variant * 0.25f + 0.5f; break;
    case CE_TYPE_DOUBLE: value.double_value = variant / 8.0 - 3.5; break;
    case CE_TYPE_STRING:
        if (variant % 7 == 3) {
            size_t size = 4200 + (variant % 5) * 700;
            fill_compressible(buffer, size, variant);
            value.string.data = buffer;
            value.string.size = size;
        } else if (variant % 7 == 5) {
            value.string.data = "";
            value.string.size = 0;
        } else {
            snprintf(buffer, SAMPLE_BUFFER, "s%u-\xC3\xA9t\xC3\xA9", variant);
            value.string.data = buffer;
            value.string.size = strlen(buffer);
        }
        break;
    case CE_TYPE_BINARY: {
        size_t size = variant % 7 == 3 ? 4500 + (variant % 3) * 800 : variant % 17;
        if (variant % 7 == 3) fill_compressible(buffer, size, variant);
        else
            for (size_t i = 0; i < size; i++) buffer[i] = (char)(variant * 31 + i);
        value.binary.data = (const uint8_t *)buffer;
        value.binary.size = size;
        break;
    }
    case CE_TYPE_TIMESTAMP: value.timestamp = (ce_timestamp){(int64_t)variant * 1000 + 1, (int32_t)variant * 1000}; break;
    case CE_TYPE_DECIMAL128: value.decimal = (ce_decimal128){variant, 0x3040000000000000ull}; break;
    case CE_TYPE_OBJECT_ID:
        for (int i = 0; i < 12; i++) value.object_id.bytes[i] = (uint8_t)(variant + i * 3);
        break;
    case CE_TYPE_UUID:
        for (int i = 0; i < 16; i++) value.uuid.bytes[i] = (uint8_t)(variant * 7 + i);
        break;
    case CE_TYPE_LINK: value.link = (ce_link){sample_table, sample_targets[variant % SAMPLE_TARGETS]}; break;
    case CE_TYPE_MIXED: {
        static const ce_type kinds[] = {CE_TYPE_INT,    CE_TYPE_STRING,    CE_TYPE_DOUBLE,    CE_TYPE_BOOL,
                                        CE_TYPE_NULL,   CE_TYPE_LINK,      CE_TYPE_TIMESTAMP, CE_TYPE_BINARY,
                                        CE_TYPE_FLOAT,  CE_TYPE_DECIMAL128, CE_TYPE_OBJECT_ID, CE_TYPE_UUID};
        enum { KINDS = sizeof kinds / sizeof kinds[0] };
        ce_type kind = kinds[variant % KINDS];
        if (kind == CE_TYPE_NULL) return null_value();
        return sample_value(kind, variant / KINDS + 2, buffer);
    }
    default: break;
    }
    return value;
}

/* ------------------------------------------------------------------------ */
/* Collections against the model (model.h: one model_collection each)        */
/* ------------------------------------------------------------------------ */

static inline void check_collection(const ce_collection *collection, const model_collection *expected,
                                    const char *where)
{
    size_t count;
    CHECK(ce_collection_size(collection, &count));
    if (count != model_collection_count(expected)) {
        fprintf(stderr, "%s: %zu elements, expected %zu\n", where, count, model_collection_count(expected));
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        ce_value value;
        CHECK(ce_collection_get(collection, i, &value));
        check_same(&expected->elements[i].value, &value, where, i);
    }
    ce_value value;
    EXPECT_ERROR(ce_collection_get(collection, count, &value), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
}

/* Backlinks from a list of links or of mixed values follow its elements:
 * those of `object` (its list is `model`) and of `neighbour` (`neighbour_model`). */
typedef struct list_owner {
    ce_object_key object;
    const model_collection *model;
} list_owner;

static inline void check_list_backlinks(ce_txn *txn, ce_table_key table, ce_column_key column, const list_owner *owners,
                                        size_t owner_count)
{
    ce_property_info info;
    CHECK(ce_property_get_info(txn, table, column, &info));
    if (info.type != CE_TYPE_LINK && info.type != CE_TYPE_MIXED) return;
    size_t capacity = 1;
    for (size_t o = 0; o < owner_count; o++) capacity += model_collection_count(owners[o].model);
    ce_object_key *origins = malloc(capacity * sizeof *origins);
    CHECK(origins != NULL);
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) {
        size_t count = 0;
        for (size_t o = 0; o < owner_count; o++) {
            size_t links = model_collection_links_to(owners[o].model, (ce_link){sample_table, sample_targets[t]});
            for (size_t i = 0; i < links; i++) origins[count++] = owners[o].object;
        }
        check_backlinks(txn, sample_table, sample_targets[t], table, column, origins, count);
    }
    free(origins);
}

static inline void check_list_of(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                                 const ce_value *expected, size_t count, const char *where)
{
    ce_collection *collection;
    CHECK(ce_collection_open(txn, table, object, column, &collection));
    model_collection *model = NULL;
    for (size_t i = 0; i < count; i++) model_list_insert(&model, i, &expected[i]);
    check_collection(collection, model, where);
    model_collection_free(&model);
    ce_collection_close(collection);
}

static inline void check_nested_of(const ce_collection *parent, ce_value at, const ce_value *expected, size_t count,
                                   const char *where)
{
    ce_collection *nested;
    CHECK(ce_collection_open_nested(parent, &at, &nested));
    model_collection *model = NULL;
    for (size_t i = 0; i < count; i++) model_list_insert(&model, i, &expected[i]);
    check_collection(nested, model, where);
    model_collection_free(&model);
    ce_collection_close(nested);
}

static inline ce_collection *open_nested(const ce_collection *parent, ce_value at)
{
    ce_collection *nested;
    CHECK(ce_collection_open_nested(parent, &at, &nested));
    return nested;
}

/* ------------------------------------------------------------------------ */
/* The fixture                                                               */
/* ------------------------------------------------------------------------ */

/* A case's own database, opened as open_db opens it; the random numbers
 * restart, so a case run alone sees the numbers it sees among the others.
 * test_db_close closes it. */
static inline test_db links_db_open(const char *name)
{
    random_state = 0x11A4C5;
    test_db t;
    t.dir = test_make_dir(name);
    t.path = test_path(t.dir, "links.realm");
    t.db = open_db(t.path);
    return t;
}

/* The objects sample links go to: SAMPLE_TARGETS objects of a table of
 * their own (ListTarget). */
static inline void add_sample_targets(ce_db *db)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    sample_table = add_table(txn, "ListTarget", false);
    add_scalar(txn, sample_table, "n", CE_TYPE_INT, false);
    for (size_t t = 0; t < SAMPLE_TARGETS; t++) sample_targets[t] = create_object(txn, sample_table);
    commit_and_verify(db, txn);
}

/* ------------------------------------------------------------------------ */
/* Large sets and dictionaries (test_sets.c, test_dictionaries.c)            */
/* ------------------------------------------------------------------------ */

/* The BigSorted table: a set of ints and a dictionary of links to the
 * sample targets (made first), on one object. */
typedef struct big_sorted {
    ce_table_key table;
    ce_column_key numbers, refs;
    ce_object_key object;
} big_sorted;

static inline big_sorted big_sorted_open(ce_db *db)
{
    add_sample_targets(db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table = add_table(txn, "BigSorted", false);
    ce_column_key numbers = add_property(txn, table, "numbers", CE_TYPE_INT, false, CE_COLLECTION_SET, 0);
    ce_column_key refs = add_property(txn, table, "refs", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, sample_table);
    ce_object_key object = create_object(txn, table);
    commit_and_verify(db, txn);
    return (big_sorted){table, numbers, refs, object};
}

#endif
