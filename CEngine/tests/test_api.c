/*
 * test_api.c — the conventions of cengine.h that a binding in another
 * language relies on: ce_value's stated layout and ce_value_size, the last
 * error after successful calls (unchanged, per thread), and
 * ce_results_get_range's bounds (its keys are checked against the model by
 * check_keys in every query program), and a value whose type tag is none of
 * ce_type's refused by every call that takes a value.
 *
 * Owns: the cases on those conventions.
 * Never: tests what a call does beyond them.
 */
#include "test_support.h"

#include <pthread.h>

TEST(value_layout)
{
    CHECK(ce_value_size() == sizeof(ce_value));
    CHECK(ce_value_size() == CE_VALUE_SIZE);
    CHECK(offsetof(ce_value, type) == 0);
    CHECK(offsetof(ce_value, integer) == CE_VALUE_DATA_OFFSET);
    CHECK(offsetof(ce_value, double_value) == CE_VALUE_DATA_OFFSET);
    CHECK(offsetof(ce_value, timestamp) == CE_VALUE_DATA_OFFSET);
    CHECK(offsetof(ce_value, uuid) == CE_VALUE_DATA_OFFSET);
    CHECK(offsetof(ce_value, binary.size) == CE_VALUE_DATA_OFFSET + 8);
    /* The bytes a binding writes land where C reads them. */
    unsigned char raw[CE_VALUE_SIZE];
    memset(raw, 0, sizeof raw);
    int32_t type = CE_TYPE_TIMESTAMP;
    int64_t seconds = -5;
    int32_t nanoseconds = -7;
    memcpy(raw, &type, 4);
    memcpy(raw + CE_VALUE_DATA_OFFSET, &seconds, 8);
    memcpy(raw + CE_VALUE_DATA_OFFSET + 8, &nanoseconds, 4);
    ce_value value;
    memcpy(&value, raw, sizeof value);
    CHECK(value.type == CE_TYPE_TIMESTAMP && value.timestamp.seconds == -5 && value.timestamp.nanoseconds == -7);
}

/* The error the case provokes first, and which every success after it
 * must leave as it is. */
static void expect_unchanged(const char *step, ce_error_code code, const char *message)
{
    if (ce_last_error_code() != code || strcmp(ce_last_error_message(), message) != 0) {
        fprintf(stderr, "after %s: last error [%d] '%s', expected it unchanged: [%d] '%s'\n", step,
                (int)ce_last_error_code(), ce_last_error_message(), (int)code, message);
        exit(1);
    }
}

static void *fail_on_another_thread(void *argument)
{
    ce_error_code *seen = argument;
    seen[0] = ce_last_error_code(); /* this thread has failed nothing yet */
    ce_decimal128 decimal;
    CHECK(!ce_decimal128_from_string("not a number", &decimal));
    seen[1] = ce_last_error_code();
    return NULL;
}

TEST(last_error_unchanged_by_success)
{
    char *dir = test_make_dir("api");
    char *missing = test_path(dir, "missing.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    options.no_create = true;
    ce_db *db = NULL;
    CHECK(!ce_db_open(missing, &options, &db));
    CHECK(ce_last_error_code() == CE_ERR_FILE_NOT_FOUND);
    char message[1024];
    snprintf(message, sizeof message, "%s", ce_last_error_message());
    CHECK(message[0] != '\0');
    const ce_error_code code = CE_ERR_FILE_NOT_FOUND;

    /* Every kind of call succeeding: opening, schema, objects, collections,
     * queries, results, aggregates, commits, copies, closing. */
    test_db t = test_db_open("api-success");
    expect_unchanged("ce_db_open", code, message);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key people;
    ce_column_key name_column, age_column, tags_column;
    CHECK(ce_table_add(txn, "Person", &people));
    ce_property_info name = {.name = "name", .type = CE_TYPE_STRING, .primary_key = true};
    ce_property_info age = {.name = "age", .type = CE_TYPE_INT};
    ce_property_info tags = {.name = "tags", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_LIST};
    CHECK(ce_property_add(txn, people, &name, &name_column));
    CHECK(ce_property_add(txn, people, &age, &age_column));
    CHECK(ce_property_add(txn, people, &tags, &tags_column));
    expect_unchanged("schema calls", code, message);
    ce_object_key ann;
    ce_value key = {.type = CE_TYPE_STRING, .string = {"Ann", 3}};
    CHECK(ce_object_create(txn, people, &key, &ann));
    ce_value forty = {.type = CE_TYPE_INT, .integer = 40};
    CHECK(ce_object_set(txn, people, ann, age_column, &forty));
    ce_value read;
    CHECK(ce_object_get(txn, people, ann, age_column, &read) && read.integer == 40);
    ce_collection *list;
    CHECK(ce_collection_open(txn, people, ann, tags_column, &list));
    ce_value tag = {.type = CE_TYPE_STRING, .string = {"a", 1}};
    CHECK(ce_list_insert(list, 0, &tag));
    ce_collection_close(list);
    bool found;
    ce_object_key again;
    CHECK(ce_object_find_primary_key(txn, people, &key, &again, &found) && found && again == ann);
    expect_unchanged("object and collection calls", code, message);
    CHECK(ce_txn_commit(txn));
    expect_unchanged("ce_txn_commit", code, message);

    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_query_argument minimum = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = {.type = CE_TYPE_INT, .integer = 18}};
    ce_query *query;
    CHECK(ce_query_parse(txn, people, "age >= $0", &minimum, 1, &query));
    size_t count;
    CHECK(ce_query_count(query, txn, &count) && count == 1);
    ce_results *results, *sorted;
    CHECK(ce_query_find_all(query, &results));
    ce_sort_key by_age = {"age", false};
    CHECK(ce_results_sort(txn, results, &by_age, 1, &sorted));
    ce_object_key keys[4];
    CHECK(ce_results_get_range(sorted, txn, 0, 4, keys, &count) && count == 1 && keys[0] == ann);
    ce_value sum;
    CHECK(ce_results_aggregate(sorted, txn, "age", CE_AGGREGATE_SUM, &sum, NULL) && sum.integer == 40);
    ce_results_free(sorted);
    ce_results_free(results);
    ce_query_free(query);
    ce_decimal128 decimal;
    CHECK(ce_decimal128_from_string("1.50", &decimal));
    ce_txn_end(txn);
    expect_unchanged("query and results calls", code, message);
    char *copy = test_path(dir, "copy.realm");
    CHECK(ce_db_write_copy(t.db, copy, NULL));
    CHECK(ce_db_verify(t.db, NULL));
    expect_unchanged("ce_db_write_copy", code, message);
    test_db_close(&t);
    expect_unchanged("ce_db_close", code, message);

    /* Each thread has its own: another thread starts at CE_OK, and its
     * failure leaves this thread's error as it was. */
    ce_error_code seen[2];
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, fail_on_another_thread, seen) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(seen[0] == CE_OK && seen[1] == CE_ERR_INVALID_ARGUMENT);
    expect_unchanged("a failure on another thread", code, message);

    /* The next failure replaces it. */
    CHECK(!ce_decimal128_from_string("x", &decimal));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT && strcmp(ce_last_error_message(), message) != 0);
    test_cleanup_dir(dir);
    free(copy);
    free(missing);
    free(dir);
}

TEST(results_get_range_bounds)
{
    test_db t = test_db_open("api-range");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key items;
    CHECK(ce_table_add(txn, "Item", &items));
    ce_object_key created[10];
    for (int i = 0; i < 10; i++) CHECK(ce_object_create(txn, items, NULL, &created[i]));
    ce_query *query;
    CHECK(ce_query_parse(txn, items, "TRUEPREDICATE", NULL, 0, &query));
    ce_results *results;
    CHECK(ce_query_find_all(query, &results));
    ce_object_key keys[16];
    size_t count = 99;
    /* In chunks of 3: 3, 3, 3, 1, then 0 at the end. */
    size_t at = 0;
    size_t chunks = 0;
    while (ce_results_get_range(results, txn, at, 3, keys + at, &count) && count > 0) {
        at += count;
        chunks++;
    }
    CHECK(at == 10 && chunks == 4 && count == 0);
    for (int i = 0; i < 10; i++) CHECK(keys[i] == created[i]);
    /* More room than objects: only the view's. */
    CHECK(ce_results_get_range(results, txn, 7, 16, keys, &count) && count == 3 && keys[0] == created[7]);
    CHECK(ce_results_get_range(results, txn, 10, 0, NULL, &count) && count == 0);
    /* Past the end, NULL arguments. */
    CHECK(!ce_results_get_range(results, txn, 11, 1, keys, &count));
    CHECK(ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS && strstr(ce_last_error_message(), "11"));
    CHECK(!ce_results_get_range(results, txn, 0, 1, NULL, &count));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_results_get_range(results, txn, 0, 1, keys, NULL));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!ce_results_get_range(NULL, txn, 0, 1, keys, &count));
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    /* Live: a deleted object leaves the next read. */
    CHECK(ce_object_delete(txn, items, created[0]));
    CHECK(ce_results_get_range(results, txn, 0, 16, keys, &count) && count == 9 && keys[0] == created[1]);
    ce_results_free(results);
    ce_query_free(query);
    ce_txn_end(txn);
    test_db_close(&t);
}

/* A handle used after ce_db_close, or a transaction after ce_txn_end (or
 * after a commit, which ends it): CE_ERR_INVALID_ARGUMENT naming the call,
 * never a use after free (docs/DESIGN.md §8, "Stale handles"). Before,
 * the second ce_txn_end freed the transaction twice. */
static void expect_stale(bool ok, const char *call)
{
    CHECK(!ok);
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), call) != NULL);
}

TEST(stale_handles)
{
    test_db t = test_db_open("api-stale");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key table;
    CHECK(ce_table_add(txn, "Thing", &table));
    CHECK(ce_txn_commit(txn)); /* ends it */
    expect_stale(ce_txn_commit(txn), "ce_txn_commit");
    ce_txn_end(txn); /* a second end: an error, no double free */
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(ce_txn_begin_read(t.db, &txn));
    ce_txn_end(txn);
    ce_txn_end(txn);
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    expect_stale(ce_txn_advance(txn), "ce_txn_advance");
    CHECK(ce_txn_version(txn) == 0);
    CHECK(!ce_txn_is_write(txn));
    size_t count;
    expect_stale(ce_table_count(txn, &count), "object store");
    expect_stale(ce_object_count(txn, table, &count), "object store");
    /* The handle still works; then closed, every call on it is refused. */
    ce_db_stats stats;
    CHECK(ce_db_verify(t.db, &stats));
    CHECK(ce_db_close(t.db));
    expect_stale(ce_db_close(t.db), "ce_db_close");
    expect_stale(ce_txn_begin_read(t.db, &txn), "ce_txn_begin_read");
    expect_stale(ce_txn_begin_write(t.db, &txn), "ce_txn_begin_write");
    expect_stale(ce_db_verify(t.db, &stats), "ce_db_verify");
    uint64_t version;
    expect_stale(ce_db_latest_version(t.db, &version), "ce_db_latest_version");
    CHECK(ce_db_path(t.db) == NULL);
    t.db = NULL;
    test_db_close(&t);
}

/* The other handle kinds: a collection, query, results, change set,
 * key-path filter or results observer used after it was closed or freed is
 * CE_ERR_INVALID_ARGUMENT naming the call; a second close or free sets
 * that error and does nothing. Before, each second free was a double
 * free. */
TEST(stale_other_handles)
{
    test_db t = test_db_open("api-stale-other");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key table;
    CHECK(ce_table_add(txn, "Thing", &table));
    ce_property_info info = {.name = "numbers", .type = CE_TYPE_INT, .collection = CE_COLLECTION_LIST};
    ce_column_key column;
    CHECK(ce_property_add(txn, table, &info, &column));
    ce_object_key object;
    CHECK(ce_object_create(txn, table, NULL, &object));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(t.db, &txn));

    ce_collection *list;
    CHECK(ce_collection_open(txn, table, object, column, &list));
    size_t count;
    CHECK(ce_collection_size(list, &count) && count == 0);
    ce_collection_close(list);
    ce_collection_close(list);
    expect_stale(false, "ce_collection_close");
    expect_stale(ce_collection_size(list, &count), "collection");
    ce_value value;
    expect_stale(ce_collection_get(list, 0, &value), "collection");
    ce_collection_type kind;
    ce_type type;
    expect_stale(ce_collection_kind(list, &kind, &type), "collection");
    expect_stale(ce_collection_aggregate(list, CE_AGGREGATE_COUNT, &value), "ce_collection_aggregate");
    ce_results *results;
    expect_stale(ce_results_from_collection(txn, list, &results), "ce_results_from_collection");
    ce_value at = {.type = CE_TYPE_INT, .integer = 0};
    ce_collection *nested;
    expect_stale(ce_collection_open_nested(list, &at, &nested), "ce_collection_open_nested");

    ce_query *query;
    CHECK(ce_query_parse(txn, table, "TRUEPREDICATE", NULL, 0, &query));
    CHECK(ce_query_find_all(query, &results));
    ce_query_free(query);
    ce_query_free(query);
    expect_stale(false, "ce_query_free");
    expect_stale(ce_query_count(query, txn, &count), "ce_query_count");
    ce_results *more;
    expect_stale(ce_query_find_all(query, &more), "ce_query_find_all");
    expect_stale(ce_results_filter(txn, results, query, &more), "ce_results_filter");
    CHECK(ce_results_count(results, txn, &count) && count == 1); /* the results outlive the query */

    ce_key_path_filter *filter;
    CHECK(ce_key_path_filter_create(txn, table, NULL, 0, &filter));
    ce_results_observer *observer;
    CHECK(ce_results_observer_create(results, txn, filter, &observer));
    ce_changes *changes;
    CHECK(ce_changes_compute(txn, txn, &changes));
    ce_collection_change change;
    CHECK(ce_results_observer_update(observer, changes, &change));
    ce_collection_change_free(&change);
    /* Its borrowed filter freed first: refused, not read. */
    ce_key_path_filter *borrowed;
    ce_results_observer *filtered;
    CHECK(ce_key_path_filter_create(txn, table, NULL, 0, &borrowed));
    CHECK(ce_results_observer_create(results, txn, borrowed, &filtered));
    ce_key_path_filter_free(borrowed);
    expect_stale(ce_results_observer_update(filtered, changes, &change), "its filter");
    ce_results_observer_free(filtered);
    ce_results_observer_free(observer);
    ce_results_observer_free(observer);
    expect_stale(false, "ce_results_observer_free");
    expect_stale(ce_results_observer_update(observer, changes, &change), "ce_results_observer_update");

    ce_results_free(results);
    ce_results_free(results);
    expect_stale(false, "ce_results_free");
    expect_stale(ce_results_count(results, txn, &count), "ce_results_count");
    ce_object_key key;
    expect_stale(ce_results_get(results, txn, 0, &key), "ce_results_get");
    CHECK(ce_results_table(results) == 0);
    expect_stale(ce_results_observer_create(results, txn, NULL, &observer), "ce_results_observer_create");

    bool changed;
    ce_key_path_filter_free(filter);
    ce_key_path_filter_free(filter);
    expect_stale(false, "ce_key_path_filter_free");
    expect_stale(ce_changes_object_matches(changes, filter, object, &changed), "ce_changes_object_matches");

    ce_changes_free(changes);
    ce_changes_free(changes);
    expect_stale(false, "ce_changes_free");
    CHECK(!ce_changes_used_history(changes) && !ce_changes_schema_changed(changes));
    ce_object_change_kind change_kind;
    expect_stale(ce_changes_object(changes, table, object, &change_kind, NULL, 0, &count), "change set");
    ce_txn_end(txn);
    test_db_close(&t);
}

/* A query or results view made on one database file, used with a
 * transaction of another: the table key of the first file was looked up in
 * the second (another class, or the same name with other data) and the
 * calls answered from it as if nothing were wrong. Each is refused with
 * CE_ERR_INVALID_ARGUMENT naming the file; a second handle on the same file,
 * and a handle opened again after a close, go on working. */
static void make_people(ce_db *db, ce_table_key *out_table, int64_t first)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_column_key column;
    ce_property_info age = {.name = "age", .type = CE_TYPE_INT};
    CHECK(ce_table_add(txn, "Person", out_table) && ce_property_add(txn, *out_table, &age, &column));
    for (int64_t i = 0; i < 4; i++) {
        ce_object_key key;
        ce_value value = {.type = CE_TYPE_INT, .integer = first + i};
        CHECK(ce_object_create(txn, *out_table, NULL, &key) && ce_object_set(txn, *out_table, key, column, &value));
    }
    CHECK(ce_txn_commit(txn));
}

static void expect_other_file(bool result)
{
    CHECK(!result);
    CHECK(ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ce_last_error_message(), "another database file") != NULL);
}

TEST(handles_of_another_file_are_refused)
{
    char *dir = test_make_dir("api-other-file");
    char *path_a = test_path(dir, "a.realm"), *path_b = test_path(dir, "b.realm");
    ce_db *a = test_open(path_a), *b = test_open(path_b);
    ce_table_key table_a, table_b;
    make_people(a, &table_a, 0);
    make_people(b, &table_b, 100);
    CHECK(table_a == table_b);
    ce_txn *txn_a, *txn_b;
    CHECK(ce_txn_begin_read(a, &txn_a) && ce_txn_begin_read(b, &txn_b));
    ce_query *query;
    ce_results *results;
    CHECK(ce_query_parse(txn_a, table_a, "age >= 1", NULL, 0, &query) && ce_query_find_all(query, &results));
    size_t count;
    CHECK(ce_results_count(results, txn_a, &count) && count == 3);
    ce_object_key key;
    bool found;
    ce_value value;
    size_t counted;
    ce_results *derived;
    ce_sort_key by_age = {.key_path = "age", .ascending = true};
    const char *paths[] = {"age"};
    ce_results_observer *observer;
    expect_other_file(ce_query_count(query, txn_b, &count));
    expect_other_file(ce_query_find_first(query, txn_b, &key, &found));
    expect_other_file(ce_results_count(results, txn_b, &count));
    expect_other_file(ce_results_get(results, txn_b, 0, &key));
    expect_other_file(ce_results_aggregate(results, txn_b, "age", CE_AGGREGATE_SUM, &value, &counted));
    expect_other_file(ce_results_sort(txn_b, results, &by_age, 1, &derived));
    expect_other_file(ce_results_distinct(txn_b, results, paths, 1, &derived));
    expect_other_file(ce_results_filter(txn_b, results, query, &derived));
    expect_other_file(ce_results_observer_create(results, txn_b, NULL, &observer));
    /* A second handle on the same file, and the file opened again. */
    ce_db *a2 = test_open(path_a);
    ce_txn *txn_a2;
    CHECK(ce_txn_begin_read(a2, &txn_a2));
    CHECK(ce_results_count(results, txn_a2, &count) && count == 3);
    CHECK(ce_query_count(query, txn_a2, &count) && count == 3);
    ce_txn_end(txn_a2);
    CHECK(ce_db_close(a2));
    ce_txn_end(txn_a);
    CHECK(ce_db_close(a));
    a = test_open(path_a);
    CHECK(ce_txn_begin_read(a, &txn_a));
    CHECK(ce_results_count(results, txn_a, &count) && count == 3);
    ce_txn_end(txn_a);
    ce_results_free(results);
    ce_query_free(query);
    ce_txn_end(txn_b);
    CHECK(ce_db_close(a) && ce_db_close(b));
    free(path_a);
    free(path_b);
    test_cleanup_dir(dir);
    free(dir);
}

/* A value whose type tag is none of ce_type's (memory the caller did not
 * initialize, a header from a newer engine) is refused by every call that
 * takes a value, with one message that names the number, and changes
 * nothing. */
static void expect_not_a_type(const char *call, bool ok)
{
    if (ok || ce_last_error_code() != CE_ERR_INVALID_ARGUMENT ||
        strcmp(ce_last_error_message(), "the value's type 99 is not a ce_type") != 0) {
        fprintf(stderr, "%s: expected the unknown type 99 refused, got %s [%d] %s\n", call, ok ? "success" : "failure",
                (int)ce_last_error_code(), ce_last_error_message());
        exit(1);
    }
}

TEST(unknown_value_type_is_named)
{
    test_db t = test_db_open("api-unknown-type");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key people;
    ce_column_key id_column, age_column, any_column, tags_column, names_column, labels_column;
    CHECK(ce_table_add(txn, "Person", &people));
    ce_property_info id = {.name = "id", .type = CE_TYPE_INT, .primary_key = true};
    ce_property_info age = {.name = "age", .type = CE_TYPE_INT, .nullable = true};
    ce_property_info any = {.name = "any", .type = CE_TYPE_MIXED, .nullable = true};
    ce_property_info tags = {.name = "tags", .type = CE_TYPE_MIXED, .nullable = true, .collection = CE_COLLECTION_LIST};
    ce_property_info names = {.name = "names", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_SET};
    ce_property_info labels = {.name = "labels", .type = CE_TYPE_INT, .collection = CE_COLLECTION_DICTIONARY};
    CHECK(ce_property_add(txn, people, &id, &id_column));
    CHECK(ce_property_add(txn, people, &age, &age_column));
    CHECK(ce_property_add(txn, people, &any, &any_column));
    CHECK(ce_property_add(txn, people, &tags, &tags_column));
    CHECK(ce_property_add(txn, people, &names, &names_column));
    CHECK(ce_property_add(txn, people, &labels, &labels_column));
    ce_value bad = {.type = (ce_type)99, .integer = 5};
    ce_value one = {.type = CE_TYPE_INT, .integer = 1};
    ce_object_key object, found_key;
    bool found, changed;
    expect_not_a_type("ce_object_create", ce_object_create(txn, people, &bad, &object));
    ce_value row[6] = {{.type = CE_TYPE_INT, .integer = 2}, bad};
    expect_not_a_type("ce_object_create_with_values", ce_object_create_with_values(txn, people, row, 6, &object));
    size_t count;
    CHECK(ce_object_count(txn, people, &count) && count == 0);
    CHECK(ce_object_create(txn, people, &one, &object));
    expect_not_a_type("ce_object_set (int)", ce_object_set(txn, people, object, age_column, &bad));
    expect_not_a_type("ce_object_set (mixed)", ce_object_set(txn, people, object, any_column, &bad));
    expect_not_a_type("ce_object_set_many", ce_object_set_many(txn, people, &object, 1, age_column, &bad));
    expect_not_a_type("ce_object_find_primary_key", ce_object_find_primary_key(txn, people, &bad, &found_key, &found));
    expect_not_a_type("ce_object_find_first", ce_object_find_first(txn, people, age_column, &bad, &found_key, &found));
    ce_collection *list, *set, *dictionary;
    CHECK(ce_collection_open(txn, people, object, tags_column, &list));
    CHECK(ce_collection_open(txn, people, object, names_column, &set));
    CHECK(ce_collection_open(txn, people, object, labels_column, &dictionary));
    expect_not_a_type("ce_list_insert", ce_list_insert(list, 0, &bad));
    CHECK(ce_list_insert(list, 0, &one));
    expect_not_a_type("ce_list_set", ce_list_set(list, 0, &bad));
    size_t index;
    expect_not_a_type("ce_collection_find", ce_collection_find(list, &bad, &index, &found));
    expect_not_a_type("ce_set_insert", ce_set_insert(set, &bad, &changed));
    expect_not_a_type("ce_set_erase", ce_set_erase(set, &bad, &changed));
    expect_not_a_type("ce_dictionary_set", ce_dictionary_set(dictionary, "a", 1, &bad));
    ce_value first;
    CHECK(ce_collection_get(list, 0, &first) && first.type == CE_TYPE_INT && first.integer == 1);
    ce_collection_close(list);
    ce_collection_close(set);
    ce_collection_close(dictionary);
    ce_query_argument argument = {.kind = CE_QUERY_ARGUMENT_VALUE, .value = bad};
    ce_query *query;
    expect_not_a_type("ce_query_parse", ce_query_parse(txn, people, "age == $0", &argument, 1, &query));
    ce_value values[2] = {one, bad}, total;
    expect_not_a_type("ce_values_aggregate", ce_values_aggregate(values, 2, CE_TYPE_INT, CE_AGGREGATE_SUM, &total));
    ce_value age_now;
    CHECK(ce_object_get(txn, people, object, age_column, &age_now) && age_now.type == CE_TYPE_NULL);
    CHECK(ce_txn_commit(txn));
    test_db_close(&t);
}
