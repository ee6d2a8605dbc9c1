/*
 * fuzz_query.c — arbitrary predicates and argument lists into the query
 * parser and evaluator, over a small fixed database.
 *
 * The database (built once per process): a table "Item" with a property of
 * every type, required and optional, some indexed, an int primary key, a
 * link, a list of links, a set, a list and a dictionary of values and a
 * mixed property, and 700 objects (three cluster leaves) of pseudo-random
 * values from small pools (so that comparisons find equal values), a few
 * deleted; a table "Other" that they link to; and a table "Bag" whose
 * objects hold a list of Items (with repeats) and a set of Items. One read
 * transaction serves every input.
 *
 * The input:
 *   byte 0       the number of arguments (low 3 bits), and options: bit 3
 *                a SORT/DISTINCT/LIMIT view of the results, bit 4 their
 *                aggregates
 *   arguments    each: one byte whose low 4 bits pick the kind and type
 *                (see decode_argument), then its bytes: 8 for numbers, 12
 *                and 16 for object ids and uuids, a length byte and that
 *                many bytes for strings and binaries, a count byte and that
 *                many values for a list
 *   byte         which property the view sorts and makes distinct by, and
 *                the limit
 *   the rest     the predicate, up to the first NUL (or the end)
 * An input that runs out reads zeros.
 *
 * Reported as bugs besides crashes, leaks and undefined behaviour: a failed
 * call without an error code and a message; a failure of ce_query_parse
 * with a code other than invalid query or invalid argument; a failure of an
 * evaluation of a query that parsed (the database is sound); results that
 * disagree with each other (the count of ce_query_count, of the results
 * view and of its sorted copy; find_first and the view's first object; an
 * object's index in the view; a sorted view that is not in order or not a
 * permutation; a distinct view with repeats; an aggregate count that
 * disagrees with the values read one by one).
 *
 * The same predicate also filters results views of collections (a Bag's
 * list and set of Items, and the Items whose `links` hold an Other:
 * backlinks), sorted or not: a filtered view must hold exactly the elements
 * of the collection that the query's own results hold, in the collection's
 * order (and as many of them through a sorted view). Aggregates of an
 * Item's `nums` and `dict` (ce_collection_aggregate) must agree with the
 * values read one by one, and their sorted positions
 * (ce_collection_sorted_indices) be a permutation in order.
 */
#include "cengine.h"
#include "error.h"
#include "parse.h"
#include "query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The fixed database                                                        */
/* ------------------------------------------------------------------------ */

typedef struct property_def {
    const char *name;
    ce_type type;
    bool nullable, indexed, primary;
} property_def;

enum { PROPERTY_COUNT = 21, OBJECT_COUNT = 700 };

static const property_def properties[PROPERTY_COUNT] = {
    {"pk", CE_TYPE_INT, false, true, true},        {"i", CE_TYPE_INT, false, false, false},
    {"oi", CE_TYPE_INT, true, true, false},        {"b", CE_TYPE_BOOL, false, false, false},
    {"ob", CE_TYPE_BOOL, true, true, false},       {"f", CE_TYPE_FLOAT, false, false, false},
    {"of", CE_TYPE_FLOAT, true, false, false},     {"d", CE_TYPE_DOUBLE, false, false, false},
    {"od", CE_TYPE_DOUBLE, true, false, false},    {"s", CE_TYPE_STRING, false, true, false},
    {"os", CE_TYPE_STRING, true, false, false},    {"bin", CE_TYPE_BINARY, false, false, false},
    {"obin", CE_TYPE_BINARY, true, false, false},  {"t", CE_TYPE_TIMESTAMP, false, false, false},
    {"ot", CE_TYPE_TIMESTAMP, true, true, false},  {"dec", CE_TYPE_DECIMAL128, false, false, false},
    {"odec", CE_TYPE_DECIMAL128, true, false, false}, {"oid", CE_TYPE_OBJECT_ID, false, false, false},
    {"ooid", CE_TYPE_OBJECT_ID, true, true, false}, {"u", CE_TYPE_UUID, false, false, false},
    {"ou", CE_TYPE_UUID, true, true, false},
};

static const char *const strings[] = {"", "a", "A", "abc", "Zoë", "zoe", "ÉLISE", "élise", "naïve", "a*b?", "łódź",
                                      "日本", "Straße", "x"};

static char *work_directory, *database_path;
static ce_db *db;
static ce_txn *txn;
static ce_table_key items, bags, other_table;

enum { BAG_COUNT = 4, OTHER_COUNT = 8 };
static ce_object_key bag_keys[BAG_COUNT], other_keys[OTHER_COUNT], item_keys[OBJECT_COUNT];

static uint64_t seed = 0xF022;
static uint64_t next_random(void)
{
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void must(bool ok, const char *what)
{
    if (ok) return;
    fprintf(stderr, "fuzz_query: %s failed: [%d] %s\n", what, (int)ce_last_error_code(), ce_last_error_message());
    abort();
}

static ce_value random_value(const property_def *def, int64_t pk)
{
    ce_value v = {.type = def->type};
    if (def->primary) {
        v.integer = pk;
        return v;
    }
    if (def->nullable && next_random() % 5 == 0) return (ce_value){.type = CE_TYPE_NULL};
    uint64_t r = next_random();
    switch (def->type) {
    case CE_TYPE_INT: {
        static const int64_t pool[] = {0, 1, -1, 2, 7, 100, INT64_MAX, INT64_MIN};
        v.integer = pool[r % 8];
        break;
    }
    case CE_TYPE_BOOL: v.boolean = r & 1; break;
    case CE_TYPE_FLOAT: {
        static const float pool[] = {0.0f, -0.0f, 1.5f, -2.25f, 3.0f, 1e30f, -1e-30f};
        v.float_value = pool[r % 7];
        if (r % 9 == 8) memcpy(&v.float_value, &(uint32_t){0x7FC00000u}, 4); /* NaN */
        break;
    }
    case CE_TYPE_DOUBLE: {
        static const double pool[] = {0.0, -0.0, 0.5, 1.5, -2.25, 3.0, 1e300, 0.1};
        v.double_value = pool[r % 8];
        if (r % 11 == 10) memcpy(&v.double_value, &(uint64_t){0x7FF8000000000000ull}, 8); /* NaN */
        break;
    }
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: {
        const char *text = strings[r % (sizeof strings / sizeof *strings)];
        v.string.data = text;
        v.string.size = strlen(text);
        break;
    }
    case CE_TYPE_TIMESTAMP: {
        static const ce_timestamp pool[] = {{0, 0}, {1, 0}, {1, 5}, {-1, -5}, {1700000000, 999999999}};
        v.timestamp = pool[r % 5];
        break;
    }
    case CE_TYPE_DECIMAL128: {
        static const int64_t coefficients[] = {0, 15, 150, 3, 1, 25};
        static const int exponents[] = {0, -1, -2, 0, 10, -1};
        size_t k = r % 6;
        v.decimal.low = (uint64_t)coefficients[k];
        v.decimal.high = ((uint64_t)(exponents[k] + 6176) << 49) | ((r >> 8) & 1 ? 1ull << 63 : 0);
        break;
    }
    case CE_TYPE_OBJECT_ID:
        for (int i = 0; i < 12; i++) v.object_id.bytes[i] = (uint8_t)((r % 4) * 17 + i);
        break;
    case CE_TYPE_UUID:
        for (int i = 0; i < 16; i++) v.uuid.bytes[i] = (uint8_t)((r % 4) * 31 + i);
        break;
    default: break;
    }
    return v;
}

static void remove_work_directory(void)
{
    if (txn) ce_txn_end(txn);
    if (db) ce_db_close(db);
    char lock[4096];
    snprintf(lock, sizeof lock, "%s.lock", database_path);
    unlink(database_path);
    unlink(lock);
    rmdir(work_directory);
}

static void set_up(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base) base = "/tmp";
    size_t length = strlen(base) + 96;
    work_directory = malloc(length);
    database_path = malloc(length + 16);
    if (!work_directory || !database_path) abort();
    /* The pid in the name lets Fuzz/run.sh remove the directory of a run
     * that crashed (a crash skips the atexit handler). */
    snprintf(work_directory, length, "%s/openrealm-fuzz-query-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(work_directory)) {
        perror("fuzz_query: mkdtemp");
        abort();
    }
    snprintf(database_path, length + 16, "%s/query.db", work_directory);
    atexit(remove_work_directory);
    ce_db_options options;
    ce_db_options_init(&options);
    options.durability = CE_DURABILITY_UNSAFE_NO_SYNC;
    must(ce_db_open(database_path, &options, &db), "ce_db_open");
    ce_txn *write;
    ce_column_key column;
    ce_table_key other;
    ce_object_key *others = other_keys, *keys = item_keys;
    must(ce_txn_begin_write(db, &write), "begin write");
    must(ce_table_add(write, "Item", &items), "add Item");
    for (int p = 0; p < PROPERTY_COUNT; p++) {
        ce_property_info info = {.name = properties[p].name, .type = properties[p].type, .nullable = properties[p].nullable,
                                 .primary_key = properties[p].primary, .indexed = properties[p].indexed};
        must(ce_property_add(write, items, &info, &column), "add property");
    }
    must(ce_table_add(write, "Other", &other), "add Other");
    other_table = other;
    ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    ce_property_info score = {.name = "score", .type = CE_TYPE_INT, .nullable = true};
    must(ce_property_add(write, other, &name, &column) && ce_property_add(write, other, &score, &column), "add Other's");
    /* Links, collections and a mixed value (after the scalar properties,
     * so that their columns are PROPERTY_COUNT ...). */
    const ce_property_info more[] = {
        {.name = "link", .type = CE_TYPE_LINK, .nullable = true, .link_target = other},
        {.name = "links", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = other},
        {.name = "tags", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_SET},
        {.name = "nums", .type = CE_TYPE_INT, .nullable = true, .collection = CE_COLLECTION_LIST},
        {.name = "dict", .type = CE_TYPE_DOUBLE, .nullable = true, .collection = CE_COLLECTION_DICTIONARY},
        {.name = "m", .type = CE_TYPE_MIXED, .nullable = true}};
    for (size_t k = 0; k < sizeof more / sizeof *more; k++) must(ce_property_add(write, items, &more[k], &column), "add more");
    for (int k = 0; k < OTHER_COUNT; k++) {
        ce_value values[2] = {{.type = CE_TYPE_STRING, .string = {strings[k], strlen(strings[k])}},
                              k % 3 ? (ce_value){.type = CE_TYPE_INT, .integer = k} : (ce_value){.type = CE_TYPE_NULL}};
        size_t column_count;
        must(ce_property_count(write, other, &column_count), "count Other's columns");
        ce_value all[8];
        for (size_t c = 0; c < column_count; c++) all[c] = c < 2 ? values[c] : (ce_value){.type = CE_TYPE_NULL};
        must(ce_object_create_with_values(write, other, all, column_count, &others[k]), "create Other");
    }
    size_t item_columns;
    must(ce_property_count(write, items, &item_columns), "count Item's columns");
    for (int k = 0; k < OBJECT_COUNT; k++) {
        ce_value values[PROPERTY_COUNT + 8];
        for (size_t p = 0; p < item_columns; p++)
            values[p] = p < PROPERTY_COUNT ? random_value(&properties[p], k + 1) : (ce_value){.type = CE_TYPE_NULL};
        uint64_t r = next_random();
        if (r % 4) values[PROPERTY_COUNT] = (ce_value){.type = CE_TYPE_LINK, .link = {other, others[r % 8]}};
        must(ce_object_create_with_values(write, items, values, item_columns, &keys[k]), "create");
        ce_collection *collection;
        must(ce_collection_open(write, items, keys[k], PROPERTY_COUNT + 1, &collection), "open links");
        for (uint64_t n = 0; n < r % 4; n++) {
            ce_value link = {.type = CE_TYPE_LINK, .link = {other, others[(r >> (8 + n)) % 8]}};
            must(ce_list_insert(collection, n, &link), "insert link");
        }
        ce_collection_close(collection);
        must(ce_collection_open(write, items, keys[k], PROPERTY_COUNT + 2, &collection), "open tags");
        for (uint64_t n = 0; n < (r >> 4) % 3; n++) {
            const char *tag = strings[(r >> (12 + n)) % 6];
            ce_value value = {.type = CE_TYPE_STRING, .string = {tag, strlen(tag)}};
            bool changed;
            must(ce_set_insert(collection, &value, &changed), "insert tag");
        }
        ce_collection_close(collection);
        must(ce_collection_open(write, items, keys[k], PROPERTY_COUNT + 3, &collection), "open nums");
        for (uint64_t n = 0; n < (r >> 20) % 4; n++) {
            ce_value value = (r >> (24 + n)) % 5 ? (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)((r >> (30 + n)) % 9)}
                                                 : (ce_value){.type = CE_TYPE_NULL};
            must(ce_list_insert(collection, n, &value), "insert num");
        }
        ce_collection_close(collection);
        must(ce_collection_open(write, items, keys[k], PROPERTY_COUNT + 4, &collection), "open dict");
        for (uint64_t n = 0; n < (r >> 40) % 3; n++) {
            const char key[2] = {(char)('a' + (r >> (44 + n)) % 3), 0};
            ce_value value = {.type = CE_TYPE_DOUBLE, .double_value = (double)((r >> (48 + n)) % 7) / 2};
            must(ce_dictionary_set(collection, key, 1, &value), "set dict");
        }
        ce_collection_close(collection);
        ce_value mixed = (r >> 56) % 4 == 0 ? (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)(r % 5)}
                         : (r >> 56) % 4 == 1 ? (ce_value){.type = CE_TYPE_STRING, .string = {"x", 1}}
                         : (r >> 56) % 4 == 2 ? (ce_value){.type = CE_TYPE_LINK, .link = {other, others[r % 8]}}
                                               : (ce_value){.type = CE_TYPE_NULL};
        must(ce_object_set(write, items, keys[k], PROPERTY_COUNT + 5, &mixed), "set mixed");
    }
    /* Bags of Items: lists with repeats, sets; the deletes below take
     * some of their elements out. */
    ce_column_key bag_list, bag_set;
    must(ce_table_add(write, "Bag", &bags), "add Bag");
    const ce_property_info bag_list_info = {.name = "items", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST,
                                            .link_target = items};
    const ce_property_info bag_set_info = {.name = "item_set", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_SET,
                                           .link_target = items};
    must(ce_property_add(write, bags, &bag_list_info, &bag_list) && ce_property_add(write, bags, &bag_set_info, &bag_set),
         "add Bag's");
    for (int b = 0; b < BAG_COUNT; b++) {
        must(ce_object_create(write, bags, NULL, &bag_keys[b]), "create Bag");
        ce_collection *list, *set;
        must(ce_collection_open(write, bags, bag_keys[b], bag_list, &list) &&
                 ce_collection_open(write, bags, bag_keys[b], bag_set, &set),
             "open Bag's");
        size_t length = b == 0 ? 0 : (size_t)(next_random() % (b * 40));
        for (size_t n = 0; n < length; n++) {
            /* Repeats: a narrow range of Items for the list. */
            ce_value in_list = {.type = CE_TYPE_LINK, .link = {items, keys[next_random() % (OBJECT_COUNT / 8)]}};
            ce_value in_set = {.type = CE_TYPE_LINK, .link = {items, keys[next_random() % OBJECT_COUNT]}};
            bool changed;
            must(ce_list_insert(list, n, &in_list) && ce_set_insert(set, &in_set, &changed), "fill Bag");
        }
        ce_collection_close(list);
        ce_collection_close(set);
    }
    for (int k = 0; k < OBJECT_COUNT; k += 37) must(ce_object_delete(write, items, keys[k]), "delete");
    must(ce_txn_commit(write), "commit");
    must(ce_txn_begin_read(db, &txn), "begin read");
}

/* ------------------------------------------------------------------------ */
/* The input                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct source {
    const uint8_t *data;
    size_t size, at;
} source;

static uint8_t take(source *in) { return in->at < in->size ? in->data[in->at++] : 0; }

static uint64_t take_u64(source *in)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++) value |= (uint64_t)take(in) << (8 * i);
    return value;
}

/* Bytes of the input (strings and binaries point into it: it outlives the call). */
static void take_bytes(source *in, const uint8_t **out, size_t *out_size)
{
    size_t length = take(in);
    if (length > in->size - in->at) length = in->size - in->at;
    *out = in->data + in->at;
    *out_size = length;
    in->at += length;
}

static ce_value decode_value(source *in, unsigned selector)
{
    ce_value v;
    memset(&v, 0, sizeof v);
    switch (selector % 12) {
    case 0: v.type = CE_TYPE_NULL; break;
    case 1: v.type = CE_TYPE_INT, v.integer = (int64_t)take_u64(in); break;
    case 2: v.type = CE_TYPE_BOOL, v.boolean = take(in) & 1; break;
    case 3: {
        uint32_t bits = (uint32_t)take_u64(in);
        v.type = CE_TYPE_FLOAT;
        memcpy(&v.float_value, &bits, 4);
        break;
    }
    case 4: {
        uint64_t bits = take_u64(in);
        v.type = CE_TYPE_DOUBLE;
        memcpy(&v.double_value, &bits, 8);
        break;
    }
    case 5:
    case 6: {
        const uint8_t *bytes;
        size_t size;
        take_bytes(in, &bytes, &size);
        v.type = selector % 12 == 5 ? CE_TYPE_STRING : CE_TYPE_BINARY;
        v.binary.data = bytes;
        v.binary.size = size;
        break;
    }
    case 7:
        v.type = CE_TYPE_TIMESTAMP;
        v.timestamp.seconds = (int64_t)take_u64(in);
        v.timestamp.nanoseconds = (int32_t)(take_u64(in) % 2000000000) - 1000000000;
        break;
    case 8: v.type = CE_TYPE_DECIMAL128, v.decimal.low = take_u64(in), v.decimal.high = take_u64(in); break;
    case 9:
        v.type = CE_TYPE_OBJECT_ID;
        for (int i = 0; i < 12; i++) v.object_id.bytes[i] = take(in);
        break;
    case 10:
        v.type = CE_TYPE_UUID;
        for (int i = 0; i < 16; i++) v.uuid.bytes[i] = take(in);
        break;
    default: v.type = CE_TYPE_LINK, v.link.table = take(in) % 3, v.link.key = (int64_t)(take(in) % 8); break;
    }
    return v;
}

enum { MAX_ARGUMENTS = 7, MAX_LIST = 16 };

static void decode_argument(source *in, ce_query_argument *out, ce_value *list_storage)
{
    unsigned selector = take(in);
    memset(out, 0, sizeof *out);
    if ((selector & 0x0F) == 15) {
        /* A list. */
        size_t count = take(in) % (MAX_LIST + 1);
        for (size_t k = 0; k < count; k++) list_storage[k] = decode_value(in, take(in));
        out->kind = CE_QUERY_ARGUMENT_LIST;
        out->list = list_storage;
        out->list_count = count;
        return;
    }
    out->kind = CE_QUERY_ARGUMENT_VALUE;
    out->value = decode_value(in, selector & 0x0F);
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */
/* ------------------------------------------------------------------------ */

static const char *current_predicate;

static void bug(const char *what)
{
    fprintf(stderr, "fuzz_query: %s\n  predicate: %s\n  last error: [%d] %s\n", what, current_predicate,
            (int)ce_last_error_code(), ce_last_error_message());
    abort();
}

static void clear_error(void) { error_fail(CE_OK, "%s", ""); }

/* A failure must leave a code and a message. */
static void check_failure(void)
{
    const char *message = ce_last_error_message();
    if (ce_last_error_code() == CE_OK || !message || !message[0]) bug("a call failed without an error code and message");
}

/* The filter of one collection view (and of its sorted copy) by the
 * query, against the query's own results `matches` (a view of every
 * matching Item, when `membership` says it holds them all). `ordered`: the
 * filter keeps the collection's order (the predicate has no SORT). */
static void check_collection_view(ce_results *collection_view, ce_query *query, ce_results *matches, bool membership,
                                  bool ordered, unsigned view)
{
    size_t size, kept;
    ce_results *filtered, *sorted, *sorted_filtered;
    if (!ce_results_count(collection_view, txn, &size)) bug("ce_results_count of a collection view failed");
    if (!ce_results_filter(txn, collection_view, query, &filtered)) bug("ce_results_filter failed");
    if (!ce_results_count(filtered, txn, &kept)) bug("ce_results_count of a filtered view failed");
    const property_def *by = &properties[view % PROPERTY_COUNT];
    ce_sort_key key = {by->name, (view >> 6) & 1};
    if (!ce_results_sort(txn, collection_view, &key, 1, &sorted)) bug("ce_results_sort of a collection view failed");
    if (!ce_results_filter(txn, sorted, query, &sorted_filtered)) bug("ce_results_filter of a sorted view failed");
    size_t sorted_kept;
    if (!ce_results_count(sorted_filtered, txn, &sorted_kept)) bug("ce_results_count of a filtered sorted view failed");
    if (membership) {
        size_t expected = 0;
        for (size_t i = 0; i < size; i++) {
            ce_object_key element, kept_element;
            size_t index;
            bool matched;
            if (!ce_results_get(collection_view, txn, i, &element)) bug("ce_results_get of a collection view failed");
            if (!ce_results_index_of(matches, txn, element, &index, &matched)) bug("ce_results_index_of failed");
            if (!matched) continue;
            if (ordered && expected < kept && (!ce_results_get(filtered, txn, expected, &kept_element) || kept_element != element))
                bug("a filtered collection view is not the matching elements in the collection's order");
            expected++;
        }
        if (kept != expected) bug("a filtered collection view holds another number of objects than match");
        if (sorted_kept != expected) bug("a filtered sorted collection view holds another number of objects than match");
    }
    if (kept > size && membership) bug("a filtered collection view holds more objects than the collection");
    ce_value out;
    size_t counted;
    clear_error();
    if (ce_results_aggregate(filtered, txn, by->name, (ce_aggregate)(view % 5), &out, &counted)) {
        if (counted > kept) bug("an aggregate of a filtered collection view counted more values than it holds");
    } else {
        check_failure();
        if (ce_last_error_code() != CE_ERR_WRONG_TYPE) bug("an aggregate of a filtered view failed other than by its type");
    }
    ce_results_free(sorted_filtered);
    ce_results_free(sorted);
    ce_results_free(filtered);
}

static void evaluate_collections(ce_query *query, ce_results *matches, bool membership, bool ordered, unsigned view)
{
    ce_column_key bag_column = (ce_column_key)(view & 1); /* the list or the set */
    ce_collection *collection;
    ce_results *collection_view;
    if (!ce_collection_open(txn, bags, bag_keys[(view >> 1) % BAG_COUNT], bag_column, &collection))
        bug("ce_collection_open of a Bag failed");
    if (!ce_results_from_collection(txn, collection, &collection_view)) bug("ce_results_from_collection failed");
    ce_collection_close(collection);
    check_collection_view(collection_view, query, matches, membership, ordered, view);
    ce_results_free(collection_view);
    /* The Items whose `links` hold an Other. */
    if (!ce_results_from_backlinks(txn, other_table, other_keys[(view >> 3) % OTHER_COUNT], items, PROPERTY_COUNT + 1,
                                   &collection_view))
        bug("ce_results_from_backlinks failed");
    check_collection_view(collection_view, query, matches, membership, ordered, view);
    ce_results_free(collection_view);
}

/* ce_collection_aggregate of an Item's `nums` (int?) and `dict` (double?)
 * against their values read one by one. */
static void check_collection_aggregates(unsigned view)
{
    ce_object_key item = item_keys[(view * 7) % OBJECT_COUNT];
    bool exists;
    if (!ce_object_exists(txn, items, item, &exists)) bug("ce_object_exists failed");
    if (!exists) return;
    for (ce_column_key column = PROPERTY_COUNT + 3; column <= PROPERTY_COUNT + 4; column++) {
        ce_collection *collection;
        size_t size = 0, counted = 0;
        int64_t int_sum = 0;
        double real_sum = 0;
        ce_value low = {.type = CE_TYPE_NULL}, high = {.type = CE_TYPE_NULL}, out;
        if (!ce_collection_open(txn, items, item, column, &collection) || !ce_collection_size(collection, &size))
            bug("reading a collection of values failed");
        bool ints = column == PROPERTY_COUNT + 3;
        for (size_t i = 0; i < size; i++) {
            ce_value v;
            if (!ce_collection_get(collection, i, &v)) bug("ce_collection_get failed");
            if (v.type == CE_TYPE_NULL) continue;
            counted++;
            if (ints) int_sum += v.integer;
            else real_sum += v.double_value;
            if (low.type == CE_TYPE_NULL || (ints ? v.integer < low.integer : v.double_value < low.double_value)) low = v;
            if (high.type == CE_TYPE_NULL || (ints ? v.integer > high.integer : v.double_value > high.double_value)) high = v;
        }
        for (int aggregate = 0; aggregate <= CE_AGGREGATE_COUNT; aggregate++) {
            if (!ce_collection_aggregate(collection, (ce_aggregate)aggregate, &out)) bug("ce_collection_aggregate failed");
            bool right;
            switch (aggregate) {
            case CE_AGGREGATE_MIN:
            case CE_AGGREGATE_MAX: {
                const ce_value *best = aggregate == CE_AGGREGATE_MIN ? &low : &high;
                right = out.type == best->type &&
                        (best->type == CE_TYPE_NULL || (ints ? out.integer == best->integer : out.double_value == best->double_value));
                break;
            }
            case CE_AGGREGATE_SUM:
                right = ints ? out.type == CE_TYPE_INT && out.integer == int_sum
                             : out.type == CE_TYPE_DOUBLE && out.double_value == real_sum;
                break;
            case CE_AGGREGATE_AVG:
                right = counted == 0 ? out.type == CE_TYPE_NULL
                                     : out.type == CE_TYPE_DOUBLE &&
                                           out.double_value == (ints ? (double)int_sum : real_sum) / (double)counted;
                break;
            default: right = out.type == CE_TYPE_INT && (size_t)out.integer == counted; break;
            }
            if (!right) bug("ce_collection_aggregate disagrees with the values read one by one");
        }
        /* Sorted positions: a permutation, in order (null first). */
        size_t order[16], sorted_count = 0;
        bool ascending = (view >> 2) & 1;
        if (size <= 16) {
            if (!ce_collection_sorted_indices(collection, ascending, order, 16, &sorted_count) || sorted_count != size)
                bug("ce_collection_sorted_indices failed");
            bool seen[16] = {false};
            ce_value previous = {.type = CE_TYPE_NULL};
            for (size_t i = 0; i < size; i++) {
                ce_value v;
                if (order[i] >= size || seen[order[i]]) bug("sorted indices are not a permutation");
                seen[order[i]] = true;
                if (!ce_collection_get(collection, order[i], &v)) bug("ce_collection_get failed");
                if (i > 0) {
                    int sign = previous.type == CE_TYPE_NULL || v.type == CE_TYPE_NULL
                                   ? (previous.type != CE_TYPE_NULL) - (v.type != CE_TYPE_NULL)
                                   : ints ? (previous.integer > v.integer) - (previous.integer < v.integer)
                                          : (previous.double_value > v.double_value) - (previous.double_value < v.double_value);
                    if (ascending ? sign > 0 : sign < 0) bug("sorted indices are out of order");
                }
                previous = v;
            }
        }
        ce_collection_close(collection);
    }
}

static void evaluate(ce_query *query, unsigned options, unsigned view, bool membership, bool ordered)
{
    size_t count, view_count;
    ce_object_key first;
    bool found;
    if (!ce_query_count(query, txn, &count)) bug("ce_query_count failed on a query that parsed");
    if (!ce_query_find_first(query, txn, &first, &found)) bug("ce_query_find_first failed");
    if (found != (count > 0)) bug("find_first and count disagree");
    ce_results *results;
    if (!ce_query_find_all(query, &results)) bug("ce_query_find_all failed");
    /* A predicate with SORT/DISTINCT/LIMIT of its own: the view need not
     * hold `count` objects; read it all the same. */
    if (!ce_results_count(results, txn, &view_count)) bug("ce_results_count failed");
    bool plain = view_count == count;
    if (plain && count) {
        ce_object_key key;
        size_t index;
        bool in_view;
        if (!ce_results_get(results, txn, 0, &key)) bug("ce_results_get failed");
        if (!ce_results_index_of(results, txn, key, &index, &in_view) || !in_view || index != 0)
            bug("index_of the first object is not 0");
    }
    if (options & 1) {
        const property_def *by = &properties[view % PROPERTY_COUNT];
        ce_sort_key key = {by->name, (view >> 5) & 1};
        const char *distinct_key = properties[(view / 3) % PROPERTY_COUNT].name;
        ce_results *sorted, *distinct, *limited;
        if (!ce_results_sort(txn, results, &key, 1, &sorted)) bug("ce_results_sort failed");
        size_t sorted_count;
        if (!ce_results_count(sorted, txn, &sorted_count) || sorted_count != view_count)
            bug("a sorted view holds another number of objects");
        /* In order by the key, and every object once (key sums agree). */
        ce_value previous = {.type = CE_TYPE_NULL};
        uint64_t sum_sorted = 0, sum_view = 0;
        for (size_t i = 0; i < sorted_count; i++) {
            ce_object_key a = 0, b = 0;
            ce_value value;
            if (!ce_results_get(sorted, txn, i, &a) || !ce_results_get(results, txn, i, &b)) bug("get failed");
            sum_sorted += (uint64_t)a * 0x9E3779B97F4A7C15ull;
            sum_view += (uint64_t)b * 0x9E3779B97F4A7C15ull;
            if (!ce_object_get(txn, items, a, (ce_column_key)(view % PROPERTY_COUNT), &value)) bug("ce_object_get failed");
            if (i > 0 && value.type != CE_TYPE_NULL && previous.type != CE_TYPE_NULL &&
                (by->type == CE_TYPE_INT || by->type == CE_TYPE_TIMESTAMP)) {
                bool ordered = by->type == CE_TYPE_INT
                                   ? (key.ascending ? previous.integer <= value.integer : previous.integer >= value.integer)
                                   : (key.ascending ? previous.timestamp.seconds <= value.timestamp.seconds
                                                    : previous.timestamp.seconds >= value.timestamp.seconds);
                if (!ordered) bug("a sorted view is out of order");
            }
            previous = value;
        }
        if (sum_sorted != sum_view) bug("a sorted view is not a permutation of the view");
        if (!ce_results_distinct(txn, sorted, &distinct_key, 1, &distinct)) bug("ce_results_distinct failed");
        if (!ce_results_limit(distinct, view % 7, &limited)) bug("ce_results_limit failed");
        size_t distinct_count, limited_count;
        if (!ce_results_count(distinct, txn, &distinct_count) || distinct_count > sorted_count ||
            (sorted_count > 0 && distinct_count == 0))
            bug("a distinct view holds a wrong number of objects");
        if (!ce_results_count(limited, txn, &limited_count) ||
            limited_count != (distinct_count < view % 7 ? distinct_count : view % 7))
            bug("a limited view holds a wrong number of objects");
        ce_results_free(limited);
        ce_results_free(distinct);
        ce_results_free(sorted);
    }
    if (options & 2) {
        for (int p = 0; p < PROPERTY_COUNT; p += 1 + (int)(view % 4)) {
            for (int aggregate = 0; aggregate <= CE_AGGREGATE_COUNT; aggregate++) {
                ce_value out;
                size_t counted;
                clear_error();
                if (!ce_results_aggregate(results, txn, properties[p].name, (ce_aggregate)aggregate, &out, &counted)) {
                    check_failure();
                    if (ce_last_error_code() != CE_ERR_WRONG_TYPE) bug("an aggregate failed other than by its type");
                    continue;
                }
                if (aggregate == CE_AGGREGATE_COUNT && (out.type != CE_TYPE_INT || (size_t)out.integer != counted))
                    bug("an aggregate count disagrees with its counted values");
                if (counted > view_count) bug("an aggregate counted more values than the view holds");
            }
        }
    }
    evaluate_collections(query, results, membership && plain, ordered, view);
    ce_results_free(results);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db) set_up();
    source in = {data, size, 0};
    uint8_t header = take(&in);
    size_t argument_count = header & 7;
    unsigned options = (header >> 3) & 3;
    ce_query_argument arguments[MAX_ARGUMENTS];
    static ce_value lists[MAX_ARGUMENTS][MAX_LIST];
    for (size_t a = 0; a < argument_count; a++) decode_argument(&in, &arguments[a], lists[a]);
    unsigned view = take(&in);
    /* The predicate: the rest, up to a NUL. */
    size_t length = 0;
    while (in.at + length < size && data[in.at + length] != 0) length++;
    char *predicate = malloc(length + 1);
    if (!predicate) abort();
    memcpy(predicate, data + in.at, length);
    predicate[length] = 0;
    current_predicate = predicate;

    /* The parser alone, on the same text as a key path, and folding and LIKE. */
    parse_tree tree;
    clear_error();
    if (parse_key_path(predicate, length, &tree)) parse_tree_free(&tree);
    else check_failure();
    char *folded = NULL;
    size_t capacity = 0, folded_size;
    if (!fold_text(predicate, length, FOLD_CASE | FOLD_DIACRITICS, &folded, &capacity, &folded_size))
        bug("fold_text failed");
    size_t half = length / 2;
    (void)fold_like(predicate, half, predicate + half, length - half, (view & 1) != 0);
    free(folded);

    check_collection_aggregates(view);

    ce_query *query;
    clear_error();
    if (ce_query_parse(txn, items, predicate, arguments, argument_count, &query)) {
        /* Whether the query's results hold every match (no DISTINCT or
         * LIMIT of its own) and keep key order (no SORT either). */
        bool membership = true, ordered = true;
        if (parse_predicate(predicate, length, &tree)) {
            for (size_t d = 0; d < tree.descriptor_count; d++) {
                ordered = false;
                if (tree.descriptors[d].kind != PARSE_SORT) membership = false;
            }
            parse_tree_free(&tree);
        } else {
            bug("a predicate that ce_query_parse took does not parse");
        }
        evaluate(query, options, view, membership, ordered);
        ce_query_free(query);
    } else {
        check_failure();
        ce_error_code code = ce_last_error_code();
        if (code != CE_ERR_INVALID_QUERY && code != CE_ERR_INVALID_ARGUMENT) bug("ce_query_parse failed with an unexpected code");
    }
    free(predicate);
    return 0;
}
