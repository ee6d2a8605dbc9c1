/*
 * test_mixed.c — mixed values through the public API: every scalar type
 * round-trips; links in a mixed value and the backlink property they add
 * (gone with a rollback); collections nested five levels deep with links
 * at several levels, changed deep inside (rolled back), purged of a
 * deleted target at every level, freed when overwritten; a mixed value
 * holding a dictionary; lists and dictionaries of mixed values nesting
 * collections; a new object's mixed values; the limit of 100 levels of
 * nesting.
 *
 * Owns: the cases on mixed values and nested collections.
 * Never: checks a result against anything but the expectation built here.
 */
#include "test_links_support.h"

/* ------------------------------------------------------------------------ */
/* Mixed values and nested collections                                       */
/* ------------------------------------------------------------------------ */

typedef struct mixed_schema {
    ce_table_key target, emb, holder;
    ce_column_key any, anys, any_map, emb_link, n;
} mixed_schema;

/* The nested collections of h1.any, as built below: top list, its
 * dictionary at [2], that dictionary's list "x", its list at [2] (at [0]
 * once the links before it are purged), and that list's dictionary at [2]. */
typedef struct nested_path {
    ce_collection *top, *dictionary, *x, *level4, *level5;
} nested_path;

static nested_path open_path(ce_txn *txn, const mixed_schema *s, ce_object_key holder, int64_t level4_at)
{
    nested_path path;
    CHECK(ce_collection_open_mixed(txn, s->holder, holder, s->any, &path.top));
    path.dictionary = open_nested(path.top, int_value(2));
    path.x = open_nested(path.dictionary, string_value("x"));
    path.level4 = open_nested(path.x, int_value(level4_at));
    path.level5 = open_nested(path.level4, int_value(2));
    return path;
}

static void close_path(nested_path *path)
{
    ce_collection_close(path->level5);
    ce_collection_close(path->level4);
    ce_collection_close(path->x);
    ce_collection_close(path->dictionary);
    ce_collection_close(path->top);
}

/* Before or after the target t0 is deleted. */
static void check_nested_state(ce_txn *txn, const mixed_schema *s, ce_object_key holder, const ce_object_key *t,
                               bool t0_deleted)
{
    ce_value t0 = link_value(s->target, t[0]), t1 = link_value(s->target, t[1]), none = null_value();
    ce_value list = nested_value(CE_TYPE_LIST), dictionary = nested_value(CE_TYPE_DICTIONARY);
    ce_value any = get_value(txn, s->holder, holder, s->any);
    CHECK(any.type == CE_TYPE_LIST);
    nested_path path = open_path(txn, s, holder, t0_deleted ? 0 : 2);
    model_collection *model = NULL;
    ce_value top[] = {int_value(1), string_value("two"), dictionary, t0};
    for (size_t i = 0; i < (t0_deleted ? 3u : 4u); i++) model_list_insert(&model, i, &top[i]);
    check_collection(path.top, model, "any");
    model_collection_clear(&model);
    ce_value in_dictionary[] = {list, t1, {.type = CE_TYPE_DOUBLE, .double_value = 3.5}};
    for (size_t i = 0; i < 3; i++) model_list_insert(&model, i, &in_dictionary[i]);
    check_collection(path.dictionary, model, "any[2]");
    model_collection_clear(&model);
    ce_value in_x[] = {t0, t0, list};
    for (size_t i = 0; i < 3; i++) model_list_insert(&model, i, &in_x[i]);
    if (t0_deleted) model_list_erase(&model, 0), model_list_erase(&model, 0);
    check_collection(path.x, model, "any[2].x");
    model_collection_clear(&model);
    ce_value in_level4[] = {t1, int_value(7), dictionary};
    for (size_t i = 0; i < 3; i++) model_list_insert(&model, i, &in_level4[i]);
    check_collection(path.level4, model, "any[2].x[2]");
    model_collection_clear(&model);
    model_list_insert(&model, 0, t0_deleted ? &none : &t0);
    check_collection(path.level5, model, "any[2].x[2][2]");
    model_collection_free(&model);
    ce_value key;
    CHECK(ce_dictionary_key_at(path.level5, 0, &key) && key.string.size == 4 && memcmp(key.string.data, "deep", 4) == 0);
    ce_collection_type kind;
    ce_type element_type;
    CHECK(ce_collection_kind(path.level5, &kind, &element_type) && kind == CE_COLLECTION_DICTIONARY &&
          element_type == CE_TYPE_MIXED);
    CHECK(ce_collection_kind(path.x, &kind, &element_type) && kind == CE_COLLECTION_LIST && element_type == CE_TYPE_MIXED);
    close_path(&path);
    /* Links inside nested collections have backlinks. */
    if (!t0_deleted)
        check_backlinks(txn, s->target, t[0], s->holder, s->any, (ce_object_key[]){holder, holder, holder, holder}, 4);
    check_backlinks(txn, s->target, t[1], s->holder, s->any, (ce_object_key[]){holder, holder}, 2);
}

/* The scalar types a mixed value takes (besides null and links). */
static const ce_type types[] = {CE_TYPE_INT,    CE_TYPE_BOOL,      CE_TYPE_FLOAT,      CE_TYPE_DOUBLE,
                                CE_TYPE_STRING, CE_TYPE_BINARY,    CE_TYPE_TIMESTAMP,  CE_TYPE_DECIMAL128,
                                CE_TYPE_OBJECT_ID, CE_TYPE_UUID};
enum { TYPES = sizeof types / sizeof types[0] };

/* The mixed schema, its objects, and the write transaction mixed_begin
 * leaves open. */
typedef struct mixed_fixture {
    mixed_schema s;
    ce_txn *txn;
    ce_object_key t[3];              /* targets */
    ce_object_key holders[TYPES + 3]; /* one per scalar type, then h0, h1, h2 */
    ce_object_key h0, h1, h2;
} mixed_fixture;

/* A target table, an embedded table and the MixedHolder table (a mixed
 * property, a list and a dictionary of mixed values, a link to an
 * embedded object); three targets and the holders, whose mixed value is
 * null. */
static void mixed_begin(ce_db *db, mixed_fixture *m)
{
    mixed_schema s;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    s.target = add_table(txn, "MixedTarget", false);
    s.n = add_scalar(txn, s.target, "n", CE_TYPE_INT, false);
    s.emb = add_table(txn, "MixedEmb", true);
    add_scalar(txn, s.emb, "n", CE_TYPE_INT, false);
    s.holder = add_table(txn, "MixedHolder", false);
    s.any = add_scalar(txn, s.holder, "any", CE_TYPE_MIXED, false); /* nullable or not: mixed takes null */
    s.anys = add_property(txn, s.holder, "anys", CE_TYPE_MIXED, false, CE_COLLECTION_LIST, 0);
    s.any_map = add_property(txn, s.holder, "anyMap", CE_TYPE_MIXED, false, CE_COLLECTION_DICTIONARY, 0);
    s.emb_link = add_property(txn, s.holder, "emb", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.emb);
    ce_property_info info;
    CHECK(ce_property_get_info(txn, s.holder, s.any, &info) && info.type == CE_TYPE_MIXED && info.nullable &&
          info.collection == CE_COLLECTION_NONE);
    ce_object_key t[3];
    for (int i = 0; i < 3; i++) t[i] = create_object(txn, s.target);
    ce_object_key holders[TYPES + 3];
    for (int i = 0; i < TYPES + 3; i++) holders[i] = create_object(txn, s.holder);
    ce_value value = get_value(txn, s.holder, holders[0], s.any);
    CHECK(value.type == CE_TYPE_NULL); /* a new object's mixed is null */
    ce_object_key h0 = holders[TYPES], h1 = holders[TYPES + 1], h2 = holders[TYPES + 2];
    m->s = s;
    m->txn = txn;
    memcpy(m->t, t, sizeof t);
    memcpy(m->holders, holders, sizeof holders);
    m->h0 = h0;
    m->h1 = h1;
    m->h2 = h2;
}

/* Every scalar type round-trips, one holder per type keeps its last;
 * null; what a mixed value refuses; committed. */
static void mixed_scalars(ce_db *db, mixed_fixture *m)
{
    const mixed_schema s = m->s;
    ce_txn *txn = m->txn;
    ce_object_key *holders = m->holders, h0 = m->h0;
    char buffer[SAMPLE_BUFFER];
    ce_value value;
    /* Every scalar type round-trips, one holder per type keeps its last. */
    for (size_t i = 0; i < TYPES; i++) {
        for (unsigned variant = 0; variant < 5; variant++) {
            value = sample_value(types[i], variant * 3 + (unsigned)i, buffer);
            set_value(txn, s.holder, holders[i], s.any, value);
            ce_value read = get_value(txn, s.holder, holders[i], s.any);
            check_same(&value, &read, "MixedHolder.any", i);
        }
    }
    set_value(txn, s.holder, h0, s.any, string_value("will be null"));
    set_value(txn, s.holder, h0, s.any, null_value());
    value = get_value(txn, s.holder, h0, s.any);
    CHECK(value.type == CE_TYPE_NULL);
    value = (ce_value){.type = CE_TYPE_MIXED};
    EXPECT_ERROR(ce_object_set(txn, s.holder, h0, s.any, &value), CE_ERR_WRONG_TYPE, "'MixedHolder.any'");
    value = (ce_value){.type = (ce_type)99};
    EXPECT_ERROR(ce_object_set(txn, s.holder, h0, s.any, &value), CE_ERR_INVALID_ARGUMENT,
                 "the value's type 99 is not a ce_type");
    value = (ce_value){.type = CE_TYPE_STRING, .string = {"\xFF", 1}};
    EXPECT_ERROR(ce_object_set(txn, s.holder, h0, s.any, &value), CE_ERR_INVALID_ARGUMENT, "UTF-8");
    value = (ce_value){.type = CE_TYPE_TIMESTAMP, .timestamp = {1, -1}};
    EXPECT_ERROR(ce_object_set(txn, s.holder, h0, s.any, &value), CE_ERR_INVALID_ARGUMENT, "malformed");
    commit_and_verify(db, txn);
}

/* Links: the backlink property appears on first use (and goes with a
 * rollback). */
static tree_size mixed_links(ce_db **db, const mixed_fixture *m)
{
    const mixed_schema s = m->s;
    const ce_object_key *t = m->t;
    ce_object_key h0 = m->h0, h1 = m->h1;
    ce_txn *txn;
    ce_property_info info;
    ce_value value;
    bool found;
    ce_column_key backlink;
    CHECK(ce_txn_begin_write(*db, &txn));
    set_value(txn, s.holder, h0, s.any, link_value(s.target, t[0]));
    CHECK(ce_property_find(txn, s.target, "@links.MixedHolder.any", &backlink, &found) && found);
    ce_txn_end(txn);
    test_verify(*db);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(get_value(txn, s.holder, h0, s.any).type == CE_TYPE_NULL);
    CHECK(ce_property_find(txn, s.target, "@links.MixedHolder.any", &backlink, &found) && !found);
    CHECK(backlink_count(txn, s.target, t[0], s.holder, s.any) == 0);
    set_value(txn, s.holder, h0, s.any, link_value(s.target, t[0]));
    value = get_value(txn, s.holder, h0, s.any);
    ce_value expected = link_value(s.target, t[0]);
    check_same(&expected, &value, "MixedHolder.any", 0);
    CHECK(ce_property_find(txn, s.target, "@links.MixedHolder.any", &backlink, &found) && found);
    CHECK(ce_property_get_info(txn, s.target, backlink, &info));
    CHECK(info.backlink && info.type == CE_TYPE_LINK && info.origin_table == s.holder && info.origin_column == s.any &&
          strcmp(info.name, "@links.MixedHolder.any") == 0);
    check_backlinks(txn, s.target, t[0], s.holder, s.any, (ce_object_key[]){h0}, 1);
    set_value(txn, s.holder, h0, s.any, link_value(s.target, t[1]));
    CHECK(backlink_count(txn, s.target, t[0], s.holder, s.any) == 0);
    check_backlinks(txn, s.target, t[1], s.holder, s.any, (ce_object_key[]){h0}, 1);
    ce_object_key embedded;
    CHECK(ce_object_create_embedded(txn, s.holder, h0, s.emb_link, &embedded));
    value = link_value(s.emb, embedded);
    EXPECT_ERROR(ce_object_set(txn, s.holder, h1, s.any, &value), CE_ERR_EMBEDDED_OBJECT, "'MixedHolder.any'");
    value = link_value(s.target, 4444);
    EXPECT_ERROR(ce_object_set(txn, s.holder, h1, s.any, &value), CE_ERR_NO_SUCH_OBJECT, "'MixedHolder.any'");
    value = link_value(999, 0);
    EXPECT_ERROR(ce_object_set(txn, s.holder, h1, s.any, &value), CE_ERR_NO_SUCH_TABLE, "'MixedHolder.any'");
    set_value(txn, s.holder, h0, s.any, int_value(3));
    CHECK(backlink_total(txn, s.target, t[1]) == 0);
    set_value(txn, s.holder, h1, s.any, int_value(5));
    commit_and_verify(*db, txn);
    tree_size scalar_h1 = user_tree_size(*db);
    return scalar_h1;
}

/* Nested collections, five levels, with links at several levels. */
static void mixed_nested(ce_db **db, const mixed_fixture *m)
{
    const mixed_schema s = m->s;
    const ce_object_key *t = m->t;
    ce_object_key h1 = m->h1;
    ce_txn *txn;
    ce_value value;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_collection *collection;
    EXPECT_ERROR(ce_collection_open_mixed(txn, s.holder, h1, s.any, &collection), CE_ERR_WRONG_TYPE, "not a collection");
    EXPECT_ERROR(ce_collection_open(txn, s.holder, h1, s.any, &collection), CE_ERR_WRONG_TYPE, "ce_collection_open_mixed");
    set_value(txn, s.holder, h1, s.any, nested_value(CE_TYPE_LIST));
    value = get_value(txn, s.holder, h1, s.any);
    CHECK(value.type == CE_TYPE_LIST);
    ce_collection *top;
    CHECK(ce_collection_open_mixed(txn, s.holder, h1, s.any, &top));
    ce_collection_type kind;
    ce_type element_type;
    CHECK(ce_collection_kind(top, &kind, &element_type) && kind == CE_COLLECTION_LIST && element_type == CE_TYPE_MIXED);
    size_t count;
    CHECK(ce_collection_size(top, &count) && count == 0);
    ce_value one = int_value(1), two = string_value("two"), list = nested_value(CE_TYPE_LIST),
             dictionary = nested_value(CE_TYPE_DICTIONARY), t0 = link_value(s.target, t[0]),
             t1 = link_value(s.target, t[1]);
    CHECK(ce_list_insert(top, 0, &one) && ce_list_insert(top, 1, &two) && ce_list_insert(top, 2, &dictionary) &&
          ce_list_insert(top, 3, &t0));
    ce_collection *in_dictionary = open_nested(top, int_value(2));
    ce_value real = {.type = CE_TYPE_DOUBLE, .double_value = 3.5};
    CHECK(ce_dictionary_set(in_dictionary, "z", 1, &real) && ce_dictionary_set(in_dictionary, "y", 1, &t1) &&
          ce_dictionary_set(in_dictionary, "x", 1, &list));
    ce_collection *x = open_nested(in_dictionary, string_value("x"));
    CHECK(ce_list_insert(x, 0, &t0) && ce_list_insert(x, 1, &list) && ce_list_insert(x, 1, &t0));
    ce_collection *level4 = open_nested(x, int_value(2));
    ce_value seven = int_value(7);
    CHECK(ce_list_insert(level4, 0, &dictionary) && ce_list_insert(level4, 0, &seven) && ce_list_insert(level4, 0, &t1));
    ce_collection *level5 = open_nested(level4, int_value(2));
    CHECK(ce_dictionary_set(level5, "deep", 4, &t0));
    /* Reaching into what is not a collection, or the wrong way. */
    ce_collection *bad;
    EXPECT_ERROR(ce_collection_open_nested(top, &one, &bad), CE_ERR_WRONG_TYPE, "not a collection");
    EXPECT_ERROR(ce_collection_open_nested(top, &(ce_value){.type = CE_TYPE_INT, .integer = 3}, &bad), CE_ERR_WRONG_TYPE,
                 NULL);
    EXPECT_ERROR(ce_collection_open_nested(top, &real, &bad), CE_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_ERROR(ce_collection_open_nested(top, &(ce_value){.type = CE_TYPE_STRING, .string = {"x", 1}}, &bad),
                 CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_collection_open_nested(in_dictionary, &one, &bad), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_collection_open_nested(top, &(ce_value){.type = CE_TYPE_INT, .integer = 10}, &bad),
                 CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_collection_open_nested(top, &(ce_value){.type = CE_TYPE_INT, .integer = -1}, &bad),
                 CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_collection_open_nested(in_dictionary, &(ce_value){.type = CE_TYPE_STRING, .string = {"no", 2}}, &bad),
                 CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    ce_collection *typed;
    CHECK(ce_collection_open(txn, s.holder, h1, s.anys, &typed));
    EXPECT_ERROR(ce_collection_open_nested(typed, &(ce_value){.type = CE_TYPE_INT, .integer = 0}, &bad),
                 CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    ce_collection_close(typed);
    ce_collection_close(level5);
    ce_collection_close(level4);
    ce_collection_close(x);
    ce_collection_close(in_dictionary);
    CHECK(ce_collection_get(top, 2, &value) && value.type == CE_TYPE_DICTIONARY);
    ce_collection_close(top);
    check_nested_state(txn, &s, h1, t, false);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_nested_state(txn, &s, h1, t, false);
    ce_txn_end(txn);
}

/* Changes deep inside, rolled back. */
static void mixed_nested_rolled_back(ce_db **db, const mixed_fixture *m)
{
    const mixed_schema s = m->s;
    const ce_object_key *t = m->t;
    ce_object_key h1 = m->h1;
    ce_value t2 = link_value(s.target, t[2]);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    nested_path nested = open_path(txn, &s, h1, 2);
    CHECK(ce_list_insert(nested.level4, 3, &t2) && ce_dictionary_set(nested.level5, "deep2", 5, &t2));
    CHECK(ce_list_erase(nested.x, 0));
    CHECK(backlink_count(txn, s.target, t[2], s.holder, s.any) == 2);
    CHECK(backlink_count(txn, s.target, t[0], s.holder, s.any) == 3);
    close_path(&nested);
    ce_txn_end(txn);
    test_verify(*db);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_nested_state(txn, &s, h1, t, false);
    CHECK(backlink_total(txn, s.target, t[2]) == 0);
    ce_txn_end(txn);
}

/* Deleting t0 purges it at every level (a dictionary keeps its key). */
static void mixed_purge_target(ce_db **db, const char *path, const mixed_fixture *m)
{
    const mixed_schema s = m->s;
    const ce_object_key *t = m->t, *holders = m->holders;
    ce_object_key h1 = m->h1;
    char buffer[SAMPLE_BUFFER];
    ce_txn *txn;
    ce_value value;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_delete(txn, s.target, t[0]));
    check_nested_state(txn, &s, h1, t, true);
    commit_and_verify(*db, txn);
    *db = reopen(*db, path);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_nested_state(txn, &s, h1, t, true);
    for (size_t i = 0; i < TYPES; i++) {
        value = get_value(txn, s.holder, holders[i], s.any);
        ce_value last = sample_value(types[i], 4 * 3 + (unsigned)i, buffer);
        check_same(&last, &value, "MixedHolder.any", i);
    }
    ce_txn_end(txn);
}

/* Overwriting the mixed frees the nested collections and their links;
 * a handle on them then fails. */
static void mixed_overwrite(ce_db **db, const mixed_fixture *m, tree_size scalar_h1)
{
    const mixed_schema s = m->s;
    const ce_object_key *t = m->t;
    ce_object_key h1 = m->h1;
    ce_value one = int_value(1);
    ce_txn *txn;
    nested_path nested;
    size_t count;
    CHECK(ce_txn_begin_write(*db, &txn));
    nested = open_path(txn, &s, h1, 0);
    set_value(txn, s.holder, h1, s.any, int_value(5));
    CHECK(backlink_total(txn, s.target, t[1]) == 0);
    EXPECT_ERROR(ce_collection_size(nested.top, &count), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_collection_size(nested.level5, &count), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_list_insert(nested.x, 0, &one), CE_ERR_WRONG_TYPE, NULL);
    close_path(&nested);
    commit_and_verify(*db, txn);
    if (user_tree_size(*db).nodes != scalar_h1.nodes) {
        fprintf(stderr, "the nested collections of MixedHolder.any were not all freed\n");
        exit(1);
    }
}

TEST(mixed_scalars)
{
    test_db t = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(t.db, &m);
    mixed_scalars(t.db, &m);
    test_db_close(&t);
}

TEST(mixed_links)
{
    test_db t = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(t.db, &m);
    mixed_scalars(t.db, &m);
    mixed_links(&t.db, &m);
    test_db_close(&t);
}

/* After the links (which leave MixedHolder.any holding an int in h1). */
TEST(nested_collections)
{
    test_db t = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(t.db, &m);
    mixed_scalars(t.db, &m);
    mixed_links(&t.db, &m);
    mixed_nested(&t.db, &m);
    test_db_close(&t);
}

TEST(nested_changes_rolled_back)
{
    test_db t = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(t.db, &m);
    mixed_scalars(t.db, &m);
    mixed_links(&t.db, &m);
    mixed_nested(&t.db, &m);
    mixed_nested_rolled_back(&t.db, &m);
    test_db_close(&t);
}

TEST(deleted_target_purged_at_every_level)
{
    test_db t = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(t.db, &m);
    mixed_scalars(t.db, &m);
    mixed_links(&t.db, &m);
    mixed_nested(&t.db, &m);
    mixed_nested_rolled_back(&t.db, &m);
    mixed_purge_target(&t.db, t.path, &m);
    test_db_close(&t);
}

/* After the purge: the user tree has the nodes it had with h1 holding a
 * scalar. */
TEST(overwriting_mixed_frees_nested)
{
    test_db t = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(t.db, &m);
    mixed_scalars(t.db, &m);
    tree_size scalar_h1 = mixed_links(&t.db, &m);
    mixed_nested(&t.db, &m);
    mixed_nested_rolled_back(&t.db, &m);
    mixed_purge_target(&t.db, t.path, &m);
    mixed_overwrite(&t.db, &m, scalar_h1);
    test_db_close(&t);
}

/* A mixed holding a dictionary; cleared, it stays an empty dictionary. */
TEST(mixed_dictionary)
{
    test_db tdb = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(tdb.db, &m);
    commit_and_verify(tdb.db, m.txn);
    ce_db **db = &tdb.db;
    const mixed_schema s = m.s;
    ce_object_key h1 = m.h1;
    const ce_object_key *t = m.t;
    ce_value one = int_value(1), list = nested_value(CE_TYPE_LIST), t1 = link_value(s.target, t[1]),
             t2 = link_value(s.target, t[2]);
    ce_txn *txn;
    ce_collection *top;
    ce_collection_type kind;
    ce_type element_type;
    ce_value value;
    size_t count;
    CHECK(ce_txn_begin_write(*db, &txn));
    set_value(txn, s.holder, h1, s.any, nested_value(CE_TYPE_DICTIONARY));
    CHECK(ce_collection_open_mixed(txn, s.holder, h1, s.any, &top));
    CHECK(ce_collection_kind(top, &kind, &element_type) && kind == CE_COLLECTION_DICTIONARY);
    EXPECT_ERROR(ce_list_insert(top, 0, &one), CE_ERR_WRONG_TYPE, NULL);
    CHECK(ce_dictionary_set(top, "a", 1, &t1) && ce_dictionary_set(top, "b", 1, &list));
    ce_collection *b = open_nested(top, string_value("b"));
    CHECK(ce_list_insert(b, 0, &t1) && ce_list_insert(b, 1, &t2));
    CHECK(backlink_total(txn, s.target, t[1]) == 2 && backlink_total(txn, s.target, t[2]) == 1);
    CHECK(ce_collection_clear(b)); /* a nested collection, cleared */
    CHECK(ce_collection_size(b, &count) && count == 0);
    CHECK(backlink_total(txn, s.target, t[1]) == 1 && backlink_total(txn, s.target, t[2]) == 0);
    CHECK(ce_list_insert(b, 0, &t1));
    CHECK(ce_collection_get(top, 1, &value) && value.type == CE_TYPE_LIST);
    ce_collection_close(b);
    CHECK(backlink_total(txn, s.target, t[1]) == 2);
    CHECK(ce_collection_clear(top));
    CHECK(backlink_total(txn, s.target, t[1]) == 0 && backlink_total(txn, s.target, t[2]) == 0);
    CHECK(ce_collection_size(top, &count) && count == 0);
    value = get_value(txn, s.holder, h1, s.any);
    CHECK(value.type == CE_TYPE_DICTIONARY);
    ce_collection_close(top);
    commit_and_verify(*db, txn);
    test_db_close(&tdb);
}

/* Lists and dictionaries of mixed values nest collections too; moving
 * and swapping elements keeps what they hold; erasing, overwriting or
 * deleting drops their links. */
TEST(lists_and_dictionaries_of_mixed_nest)
{
    test_db tdb = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(tdb.db, &m);
    commit_and_verify(tdb.db, m.txn);
    ce_db **db = &tdb.db;
    const mixed_schema s = m.s;
    ce_object_key h2 = m.h2;
    const ce_object_key *t = m.t;
    ce_value one = int_value(1), list = nested_value(CE_TYPE_LIST), dictionary = nested_value(CE_TYPE_DICTIONARY),
             t1 = link_value(s.target, t[1]), t2 = link_value(s.target, t[2]);
    ce_txn *txn;
    ce_collection *top;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_collection_open(txn, s.holder, h2, s.anys, &top));
    CHECK(ce_list_insert(top, 0, &dictionary) && ce_list_insert(top, 1, &list) && ce_list_insert(top, 2, &t2));
    ce_collection *first = open_nested(top, int_value(0)), *second = open_nested(top, int_value(1));
    CHECK(ce_dictionary_set(first, "k", 1, &t1));
    CHECK(ce_list_insert(second, 0, &t1) && ce_list_insert(second, 1, &t1));
    ce_collection_close(first);
    ce_collection_close(second);
    check_backlinks(txn, s.target, t[1], s.holder, s.anys, (ce_object_key[]){h2, h2, h2}, 3);
    CHECK(ce_list_move(top, 0, 2));
    check_list_of(txn, s.holder, h2, s.anys, (ce_value[]){list, t2, dictionary}, 3, "MixedHolder.anys");
    check_nested_of(top, int_value(2), (ce_value[]){t1}, 1, "MixedHolder.anys[2]");
    check_nested_of(top, int_value(0), (ce_value[]){t1, t1}, 2, "MixedHolder.anys[0]");
    CHECK(ce_list_swap(top, 0, 2));
    check_nested_of(top, int_value(0), (ce_value[]){t1}, 1, "MixedHolder.anys[0]");
    check_nested_of(top, int_value(2), (ce_value[]){t1, t1}, 2, "MixedHolder.anys[2]");
    CHECK(ce_list_erase(top, 0));
    check_backlinks(txn, s.target, t[1], s.holder, s.anys, (ce_object_key[]){h2, h2}, 2);
    CHECK(ce_list_set(top, 1, &one)); /* over the list holding two links */
    CHECK(backlink_count(txn, s.target, t[1], s.holder, s.anys) == 0);
    check_list_of(txn, s.holder, h2, s.anys, (ce_value[]){t2, one}, 2, "MixedHolder.anys");
    CHECK(ce_list_insert(top, 0, &list));
    second = open_nested(top, int_value(0));
    CHECK(ce_list_insert(second, 0, &t1));
    ce_collection_close(second);
    ce_collection_close(top);
    CHECK(ce_collection_open(txn, s.holder, h2, s.any_map, &top));
    CHECK(ce_dictionary_set(top, "n", 1, &list));
    second = open_nested(top, string_value("n"));
    CHECK(ce_list_insert(second, 0, &t1) && ce_list_insert(second, 1, &dictionary));
    ce_collection *deeper = open_nested(second, int_value(1));
    CHECK(ce_dictionary_set(deeper, "q", 1, &t1));
    ce_collection_close(deeper);
    ce_collection_close(second);
    check_backlinks(txn, s.target, t[1], s.holder, s.any_map, (ce_object_key[]){h2, h2}, 2);
    CHECK(ce_dictionary_set(top, "n", 1, &one));
    CHECK(backlink_count(txn, s.target, t[1], s.holder, s.any_map) == 0);
    CHECK(ce_dictionary_set(top, "m", 1, &dictionary));
    second = open_nested(top, string_value("m"));
    CHECK(ce_dictionary_set(second, "r", 1, &t1));
    ce_collection_close(second);
    ce_collection_close(top);
    check_backlinks(txn, s.target, t[1], s.holder, s.anys, (ce_object_key[]){h2}, 1);
    check_backlinks(txn, s.target, t[1], s.holder, s.any_map, (ce_object_key[]){h2}, 1);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_delete(txn, s.holder, h2));
    CHECK(backlink_total(txn, s.target, t[1]) == 0 && backlink_total(txn, s.target, t[2]) == 0);
    commit_and_verify(*db, txn);
    test_db_close(&tdb);
}

/* A new object's values can hold a link or a new empty collection. */
TEST(new_object_mixed_values)
{
    test_db tdb = links_db_open("mixed");
    mixed_fixture m;
    mixed_begin(tdb.db, &m);
    commit_and_verify(tdb.db, m.txn);
    ce_db **db = &tdb.db;
    const mixed_schema s = m.s;
    ce_object_key h0 = m.h0;
    const ce_object_key *t = m.t;
    ce_value one = int_value(1), list = nested_value(CE_TYPE_LIST), t1 = link_value(s.target, t[1]);
    ce_txn *txn;
    ce_collection *top;
    ce_value value;
    size_t count;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_value values[4] = {t1, null_value(), null_value(), null_value()};
    ce_object_key created;
    CHECK(ce_object_create_with_values(txn, s.holder, values, 4, &created));
    check_backlinks(txn, s.target, t[1], s.holder, s.any, (ce_object_key[]){created}, 1);
    values[0] = list;
    CHECK(ce_object_create_with_values(txn, s.holder, values, 4, &created));
    CHECK(get_value(txn, s.holder, created, s.any).type == CE_TYPE_LIST);
    CHECK(ce_collection_open_mixed(txn, s.holder, created, s.any, &top));
    CHECK(ce_collection_size(top, &count) && count == 0);
    ce_collection_close(top);
    /* A link to an object of the holder's own table, the first such: the
     * backlink property is added to the table the object is created in. */
    CHECK(!has_property(txn, s.holder, "@links.MixedHolder.any"));
    values[0] = link_value(s.holder, h0);
    CHECK(ce_object_create_with_values(txn, s.holder, values, 4, &created));
    CHECK(has_property(txn, s.holder, "@links.MixedHolder.any"));
    check_backlinks(txn, s.holder, h0, s.holder, s.any, (ce_object_key[]){created}, 1);
    value = get_value(txn, s.holder, created, s.any);
    ce_value self_link = link_value(s.holder, h0);
    check_same(&self_link, &value, "MixedHolder.any", 0);
    ce_value five_values[5] = {int_value(2), one, null_value(), null_value(), null_value()};
    /* A collection slot takes only null; so does a backlink slot. */
    EXPECT_ERROR(ce_object_create_with_values(txn, s.holder, five_values, 5, &created), CE_ERR_WRONG_TYPE,
                 "'MixedHolder.anys'");
    five_values[1] = null_value();
    five_values[4] = link_value(s.holder, h0);
    EXPECT_ERROR(ce_object_create_with_values(txn, s.holder, five_values, 5, &created), CE_ERR_WRONG_TYPE,
                 "backlink property");
    commit_and_verify(*db, txn);
    test_db_close(&tdb);
}

/* Nested collections go at most 100 levels deep; the deepest allowed
 * structure can still be changed, overwritten and deleted. */
static void nesting_begin(ce_db *db, ce_txn **out_txn, ce_table_key *out_target, ce_table_key *out_table,
                          ce_column_key *out_any, ce_column_key *out_anys, ce_column_key *out_any_map,
                          ce_object_key *out_object, ce_object_key *out_linked)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key target = add_table(txn, "DeepTarget", false);
    ce_table_key table = add_table(txn, "Deep", false);
    ce_column_key any = add_scalar(txn, table, "any", CE_TYPE_MIXED, true);
    ce_column_key anys = add_property(txn, table, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    ce_column_key any_map = add_scalar(txn, table, "anyMap", CE_TYPE_MIXED, true);
    ce_object_key object = create_object(txn, table), linked_object = create_object(txn, target);
    *out_txn = txn;
    *out_target = target;
    *out_table = table;
    *out_any = any;
    *out_anys = anys;
    *out_any_map = any_map;
    *out_object = object;
    *out_linked = linked_object;
}

/* Lists nested through a mixed value (level 1 first) and through a list
 * property (level 0 first), to the limit; deleting the target purges all
 * levels. */
TEST(list_nesting_limit)
{
    test_db t = links_db_open("mixed");
    ce_db *db = t.db;
    enum { LEVELS = 100 };
    ce_txn *txn;
    ce_table_key target, table;
    ce_column_key any, anys, any_map;
    ce_object_key object, linked_object;
    nesting_begin(db, &txn, &target, &table, &any, &anys, &any_map, &object, &linked_object);
    ce_value list = nested_value(CE_TYPE_LIST), link = link_value(target, linked_object);
    for (int through_mixed = 1; through_mixed >= 0; through_mixed--) {
        ce_collection *collection;
        if (through_mixed) {
            set_value(txn, table, object, any, list);
            CHECK(ce_collection_open_mixed(txn, table, object, any, &collection));
        } else {
            CHECK(ce_collection_open(txn, table, object, anys, &collection));
        }
        /* The levels of nesting: the mixed property's list is held by a
         * mixed value (level 1), the list property by none (level 0). */
        int level = through_mixed ? 1 : 0;
        for (;;) {
            CHECK(ce_list_insert(collection, 0, &link));
            if (!ce_list_insert(collection, 1, &list)) {
                EXPECT_ERROR(false, CE_ERR_INVALID_ARGUMENT, "levels");
                break;
            }
            ce_collection *nested = open_nested(collection, int_value(1));
            ce_collection_close(collection);
            collection = nested;
            level++;
            CHECK(level <= LEVELS);
        }
        ce_collection_close(collection);
        if (level != LEVELS) {
            fprintf(stderr, "nested collections reached level %d (through a mixed: %d)\n", level, through_mixed);
            exit(1);
        }
        CHECK(backlink_count(txn, target, linked_object, table, through_mixed ? any : anys) ==
              (size_t)LEVELS + !through_mixed);
    }
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_write(db, &txn));
    set_value(txn, table, object, any, int_value(1));
    CHECK(backlink_count(txn, target, linked_object, table, any) == 0);
    CHECK(ce_object_delete(txn, target, linked_object)); /* purges the list property's 100 levels */
    CHECK(ce_object_delete(txn, table, object));
    commit_and_verify(db, txn);
    test_db_close(&t);
}

/* Dictionaries (a node more per level than lists), 100 levels, read back;
 * set to null, their links go. */
TEST(dictionary_nesting_limit)
{
    test_db t = links_db_open("mixed");
    ce_db *db = t.db;
    enum { LEVELS = 100 };
    ce_txn *txn;
    ce_table_key target, table;
    ce_column_key any, anys, any_map;
    ce_object_key object, linked_object;
    nesting_begin(db, &txn, &target, &table, &any, &anys, &any_map, &object, &linked_object);
    ce_value list = nested_value(CE_TYPE_LIST), link = link_value(target, linked_object);
    ce_collection *collection;
    ce_value dictionary = nested_value(CE_TYPE_DICTIONARY);
    set_value(txn, table, object, any_map, dictionary);
    CHECK(ce_collection_open_mixed(txn, table, object, any_map, &collection));
    for (int level = 1;; level++) {
        CHECK(ce_dictionary_set(collection, "link", 4, &link));
        if (level == LEVELS) {
            EXPECT_ERROR(ce_dictionary_set(collection, "next", 4, &dictionary), CE_ERR_INVALID_ARGUMENT, "levels");
            EXPECT_ERROR(ce_dictionary_set(collection, "next", 4, &list), CE_ERR_INVALID_ARGUMENT, "levels");
            break;
        }
        CHECK(ce_dictionary_set(collection, "next", 4, &dictionary));
        ce_collection *nested = open_nested(collection, string_value("next"));
        ce_collection_close(collection);
        collection = nested;
    }
    ce_collection *too_deep;
    EXPECT_ERROR(ce_collection_open_nested(collection, &(ce_value){.type = CE_TYPE_STRING, .string = {"next", 4}},
                                           &too_deep),
                 CE_ERR_INVALID_ARGUMENT, "levels");
    ce_collection_close(collection);
    CHECK(backlink_count(txn, target, linked_object, table, any_map) == (size_t)LEVELS);
    commit_and_verify(db, txn);
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(ce_collection_open_mixed(txn, table, object, any_map, &collection));
    for (int level = 1; level < LEVELS; level++) {
        size_t count;
        CHECK(ce_collection_size(collection, &count) && count == 2);
        ce_collection *nested = open_nested(collection, string_value("next"));
        ce_collection_close(collection);
        collection = nested;
    }
    ce_collection_close(collection);
    ce_txn_end(txn);
    CHECK(ce_txn_begin_write(db, &txn));
    set_value(txn, table, object, any_map, null_value());
    CHECK(backlink_count(txn, target, linked_object, table, any_map) == 0);
    commit_and_verify(db, txn);
    test_db_close(&t);
}

/* A string or binary value with size > 0 and no data (data == NULL) is
 * refused on every way in, naming the property where the call has one:
 * it was once read through NULL (a mixed property's UTF-8 check ran before
 * the check for data; finding in or erasing from a collection and opening
 * a nested one by key did not check at all). */
TEST(bytes_without_data_refused)
{
    test_db t = links_db_open("mixed");
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    ce_table_key table = add_table(txn, "Bytes", false);
    ce_column_key any = add_scalar(txn, table, "any", CE_TYPE_MIXED, true);
    ce_column_key text = add_scalar(txn, table, "text", CE_TYPE_STRING, true);
    ce_column_key texts = add_property(txn, table, "texts", CE_TYPE_STRING, false, CE_COLLECTION_SET, 0);
    ce_column_key anys = add_property(txn, table, "anys", CE_TYPE_MIXED, true, CE_COLLECTION_LIST, 0);
    ce_object_key object = create_object(txn, table);
    ce_value string = {.type = CE_TYPE_STRING, .string = {NULL, 5}};
    ce_value binary = {.type = CE_TYPE_BINARY, .binary = {NULL, 5}};
    EXPECT_ERROR(ce_object_set(txn, table, object, any, &string), CE_ERR_INVALID_ARGUMENT, "'Bytes.any'");
    EXPECT_ERROR(ce_object_set(txn, table, object, any, &binary), CE_ERR_INVALID_ARGUMENT, "'Bytes.any'");
    EXPECT_ERROR(ce_object_set(txn, table, object, text, &string), CE_ERR_INVALID_ARGUMENT, "'Bytes.text'");
    ce_object_key found_object;
    bool found;
    EXPECT_ERROR(ce_object_find_first(txn, table, text, &string, &found_object, &found), CE_ERR_INVALID_ARGUMENT,
                 "'Bytes.text'");
    ce_collection *set, *list, *nested;
    CHECK(ce_collection_open(txn, table, object, texts, &set));
    ce_value a = string_value("a");
    CHECK(ce_set_insert(set, &a, NULL));
    EXPECT_ERROR(ce_set_insert(set, &string, NULL), CE_ERR_INVALID_ARGUMENT, "'Bytes.texts'");
    size_t index;
    EXPECT_ERROR(ce_collection_find(set, &string, &index, &found), CE_ERR_INVALID_ARGUMENT, "'Bytes.texts'");
    bool changed;
    EXPECT_ERROR(ce_set_erase(set, &string, &changed), CE_ERR_INVALID_ARGUMENT, "'Bytes.texts'");
    CHECK(ce_collection_open(txn, table, object, anys, &list));
    ce_value one = int_value(1), dictionary = nested_value(CE_TYPE_DICTIONARY);
    CHECK(ce_list_insert(list, 0, &one));
    CHECK(ce_list_insert(list, 1, &dictionary));
    EXPECT_ERROR(ce_list_insert(list, 0, &binary), CE_ERR_INVALID_ARGUMENT, "'Bytes.anys'");
    EXPECT_ERROR(ce_collection_find(list, &binary, &index, &found), CE_ERR_INVALID_ARGUMENT, "'Bytes.anys'");
    EXPECT_ERROR(ce_collection_find(list, &string, &index, &found), CE_ERR_INVALID_ARGUMENT, "'Bytes.anys'");
    EXPECT_ERROR(ce_collection_open_nested(list, &string, &nested), CE_ERR_INVALID_ARGUMENT, "no data");
    /* Nothing changed. */
    CHECK(get_value(txn, table, object, any).type == CE_TYPE_NULL);
    size_t size;
    CHECK(ce_collection_size(set, &size) && size == 1);
    CHECK(ce_collection_size(list, &size) && size == 2);
    ce_collection_close(list);
    ce_collection_close(set);
    commit_and_verify(t.db, txn);
    test_db_close(&t);
}
