/*
 * test_embedded.c — embedded objects through the public API: the schema
 * rules of embedded tables; to-one links, lists and dictionaries of
 * embedded objects, three levels deep; deleting a parent deletes its tree
 * (rolled back, then committed, read back after a reopen); setting a link
 * to null, erasing a key, deleting the person they link to; creation
 * rolled back; an embedded table that embeds itself.
 *
 * Owns: the cases on embedded objects.
 * Never: checks a result against anything but the expectation built here.
 */
#include "test_links_support.h"

typedef struct embedded_schema {
    ce_table_key parent, child, grand, leaf, person;
    ce_column_key child_link, children, by_name, any, name;
    ce_column_key value, grand_link, owner;
    ce_column_key leaf_link, grand_value, leaf_value;
} embedded_schema;

static void check_counts(ce_txn *txn, const embedded_schema *s, size_t children, size_t grands, size_t leaves)
{
    size_t child_count = object_count(txn, s->child), grand_count = object_count(txn, s->grand),
           leaf_count = object_count(txn, s->leaf);
    if (child_count != children || grand_count != grands || leaf_count != leaves) {
        fprintf(stderr, "embedded objects: %zu children, %zu grandchildren, %zu leaves; expected %zu, %zu, %zu\n",
                child_count, grand_count, leaf_count, children, grands, leaves);
        exit(1);
    }
}

/* The object a link property or list element holds (-1: null). */
static ce_object_key linked(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column)
{
    ce_value value = get_value(txn, table, object, column);
    if (value.type == CE_TYPE_NULL) return -1;
    CHECK(value.type == CE_TYPE_LINK);
    return value.link.key;
}

static void check_keys(const ce_collection *list, ce_table_key table, const ce_object_key *expected, size_t count,
                       const char *where)
{
    model_collection *model = NULL;
    for (size_t i = 0; i < count; i++) {
        ce_value value = expected[i] < 0 ? null_value() : link_value(table, expected[i]);
        model_list_insert(&model, i, &value);
    }
    check_collection(list, model, where);
    model_collection_free(&model);
}

/* A chain child -> grandchild -> leaf under `child`. */
static void grow_chain(ce_txn *txn, const embedded_schema *s, ce_object_key child, ce_object_key *out_grand,
                       ce_object_key *out_leaf)
{
    ce_object_key grand, leaf;
    CHECK(ce_object_create_embedded(txn, s->child, child, s->grand_link, &grand));
    CHECK(ce_object_create_embedded(txn, s->grand, grand, s->leaf_link, &leaf));
    set_value(txn, s->leaf, leaf, s->leaf_value, int_value(grand * 100 + leaf));
    if (out_grand) *out_grand = grand;
    if (out_leaf) *out_leaf = leaf;
}

/* The embedded schema, the objects the steps below make, and the write
 * transaction and collection handles the first steps share. */
typedef struct embedded_tree {
    embedded_schema s;
    ce_txn *txn;
    ce_collection *list, *dictionary;
    ce_object_key p0, p1, person;
    ce_object_key c1, c2;         /* p0's to-one child, and the one that replaced it */
    ce_object_key e1, e3;         /* in p0's list */
    ce_object_key d2;             /* in p0's dictionary */
    ce_object_key g0, l0, g1, l1; /* the chains under c2 and e1 */
} embedded_tree;

/* A person table, three embedded tables (leaf, grandchild, child) and a
 * parent table linking children by a link, a list, a dictionary and a
 * mixed value; two parents and a person; in a write transaction left
 * open. */
static void embedded_begin(ce_db *db, embedded_tree *tree)
{
    memset(tree, 0, sizeof *tree);
    embedded_schema s;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    s.person = add_table(txn, "EmbPerson", false);
    s.name = add_scalar(txn, s.person, "name", CE_TYPE_STRING, false);
    s.leaf = add_table(txn, "EmbLeaf", true);
    s.grand = add_table(txn, "EmbGrand", true);
    s.child = add_table(txn, "EmbChild", true);
    s.parent = add_table(txn, "EmbParent", false);
    s.leaf_value = add_scalar(txn, s.leaf, "value", CE_TYPE_INT, false);
    s.grand_value = add_scalar(txn, s.grand, "value", CE_TYPE_INT, false);
    s.leaf_link = add_property(txn, s.grand, "leaf", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.leaf);
    s.value = add_scalar(txn, s.child, "value", CE_TYPE_INT, false);
    s.grand_link = add_property(txn, s.child, "grand", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.grand);
    s.owner = add_property(txn, s.child, "owner", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.person);
    s.child_link = add_property(txn, s.parent, "child", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.child);
    s.children = add_property(txn, s.parent, "children", CE_TYPE_LINK, false, CE_COLLECTION_LIST, s.child);
    s.by_name = add_property(txn, s.parent, "byName", CE_TYPE_LINK, true, CE_COLLECTION_DICTIONARY, s.child);
    s.any = add_scalar(txn, s.parent, "any", CE_TYPE_MIXED, true);
    ce_object_key p0 = create_object(txn, s.parent), p1 = create_object(txn, s.parent);
    ce_object_key person = create_object(txn, s.person);
    check_counts(txn, &s, 0, 0, 0);
    tree->s = s;
    tree->txn = txn;
    tree->p0 = p0;
    tree->p1 = p1;
    tree->person = person;
}

/* To-one: created through the parent; a new one replaces (and deletes)
 * the old; an existing embedded object cannot be linked. */
static void embedded_to_one(embedded_tree *tree)
{
    const embedded_schema s = tree->s;
    ce_txn *txn = tree->txn;
    ce_object_key p0 = tree->p0, p1 = tree->p1, object;
    ce_object_key c1, c2;
    CHECK(ce_object_create_embedded(txn, s.parent, p0, s.child_link, &c1));
    set_value(txn, s.child, c1, s.value, int_value(1));
    CHECK(linked(txn, s.parent, p0, s.child_link) == c1);
    check_backlinks(txn, s.child, c1, s.parent, s.child_link, (ce_object_key[]){p0}, 1);
    CHECK(ce_object_create_embedded(txn, s.parent, p0, s.child_link, &c2));
    CHECK(c2 != c1 && !object_exists(txn, s.child, c1) && linked(txn, s.parent, p0, s.child_link) == c2);
    CHECK(get_value(txn, s.child, c2, s.value).integer == 0);
    check_counts(txn, &s, 1, 0, 0);
    ce_value value = link_value(s.child, c2);
    EXPECT_ERROR(ce_object_set(txn, s.parent, p1, s.child_link, &value), CE_ERR_EMBEDDED_OBJECT, "'EmbParent.child'");
    EXPECT_ERROR(ce_object_set(txn, s.parent, p0, s.child_link, &value), CE_ERR_EMBEDDED_OBJECT, NULL);
    EXPECT_ERROR(ce_object_set(txn, s.parent, p0, s.any, &value), CE_ERR_EMBEDDED_OBJECT, "'EmbParent.any'");
    EXPECT_ERROR(ce_object_create_embedded(txn, s.child, c2, s.owner, &object), CE_ERR_EMBEDDED_OBJECT,
                 "does not link to an embedded table");
    EXPECT_ERROR(ce_object_create_embedded(txn, s.parent, p0, s.any, &object), CE_ERR_EMBEDDED_OBJECT, NULL);
    EXPECT_ERROR(ce_object_create_embedded(txn, s.parent, 999, s.child_link, &object), CE_ERR_NO_SUCH_OBJECT, NULL);
    EXPECT_ERROR(ce_object_create_embedded(txn, s.parent, p0, s.children, &object), CE_ERR_WRONG_TYPE, NULL);
    check_counts(txn, &s, 1, 0, 0);
    tree->c1 = c1;
    tree->c2 = c2;
}

/* Lists of embedded objects: inserted, set (which deletes the one
 * replaced), erased, moved and swapped; a bad position creates nothing. */
static void embedded_lists(embedded_tree *tree)
{
    const embedded_schema s = tree->s;
    ce_txn *txn = tree->txn;
    ce_object_key p0 = tree->p0, c2 = tree->c2, object;
    ce_value value = link_value(s.child, c2);
    ce_collection *list;
    ce_object_key e0, e1, e2, e3;
    CHECK(ce_collection_open(txn, s.parent, p0, s.children, &list));
    EXPECT_ERROR(ce_list_insert(list, 0, &value), CE_ERR_EMBEDDED_OBJECT, "'EmbParent.children'");
    CHECK(ce_list_insert_embedded(list, 0, &e0));
    CHECK(ce_list_insert_embedded(list, 1, &e1));
    CHECK(ce_list_insert_embedded(list, 0, &e2));
    check_keys(list, s.child, (ce_object_key[]){e2, e0, e1}, 3, "EmbParent.children");
    CHECK(ce_list_set_embedded(list, 1, &e3));
    CHECK(!object_exists(txn, s.child, e0));
    check_keys(list, s.child, (ce_object_key[]){e2, e3, e1}, 3, "EmbParent.children");
    value = link_value(s.child, e1);
    EXPECT_ERROR(ce_list_set(list, 0, &value), CE_ERR_EMBEDDED_OBJECT, NULL);
    /* A bad position creates nothing. */
    EXPECT_ERROR(ce_list_insert_embedded(list, 4, &object), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    EXPECT_ERROR(ce_list_set_embedded(list, 3, &object), CE_ERR_INDEX_OUT_OF_BOUNDS, NULL);
    check_counts(txn, &s, 4, 0, 0);
    CHECK(ce_list_erase(list, 0));
    CHECK(!object_exists(txn, s.child, e2));
    check_keys(list, s.child, (ce_object_key[]){e3, e1}, 2, "EmbParent.children");
    /* Moves and swaps keep the objects. */
    CHECK(ce_list_swap(list, 0, 1) && ce_list_move(list, 0, 1) && ce_list_move(list, 1, 0));
    check_keys(list, s.child, (ce_object_key[]){e1, e3}, 2, "EmbParent.children");
    check_backlinks(txn, s.child, e3, s.parent, s.children, (ce_object_key[]){p0}, 1);
    check_counts(txn, &s, 3, 0, 0);
    tree->list = list;
    tree->e1 = e1;
    tree->e3 = e3;
}

/* Dictionaries of embedded objects; the call of the other kind of
 * collection creates nothing. */
static void embedded_dictionaries(embedded_tree *tree)
{
    const embedded_schema s = tree->s;
    ce_txn *txn = tree->txn;
    ce_object_key p0 = tree->p0, object;
    ce_collection *list = tree->list, *dictionary;
    ce_value value;
    ce_object_key d1, d2;
    CHECK(ce_collection_open(txn, s.parent, p0, s.by_name, &dictionary));
    CHECK(ce_dictionary_insert_embedded(dictionary, "a", 1, &d1));
    CHECK(ce_dictionary_insert_embedded(dictionary, "a", 1, &d2));
    CHECK(!object_exists(txn, s.child, d1));
    EXPECT_ERROR(ce_dictionary_insert_embedded(dictionary, "$a", 2, &object), CE_ERR_INVALID_ARGUMENT, NULL);
    value = link_value(s.child, d2);
    EXPECT_ERROR(ce_dictionary_set(dictionary, "b", 1, &value), CE_ERR_EMBEDDED_OBJECT, NULL);
    value = null_value();
    CHECK(ce_dictionary_set(dictionary, "b", 1, &value));
    check_keys(dictionary, s.child, (ce_object_key[]){d2, -1}, 2, "EmbParent.byName");
    check_counts(txn, &s, 4, 0, 0);
    /* The call of the other kind of collection creates nothing either. */
    EXPECT_ERROR(ce_list_insert_embedded(dictionary, 0, &object), CE_ERR_WRONG_TYPE, NULL);
    EXPECT_ERROR(ce_dictionary_insert_embedded(list, "k", 1, &object), CE_ERR_WRONG_TYPE, NULL);
    check_counts(txn, &s, 4, 0, 0);
    tree->dictionary = dictionary;
    tree->d2 = d2;
}

/* Three levels deep: a chain under the to-one child, a list element and a
 * dictionary value; committed. */
static void embedded_three_levels(ce_db *db, embedded_tree *tree)
{
    const embedded_schema s = tree->s;
    ce_txn *txn = tree->txn;
    ce_object_key c2 = tree->c2, e1 = tree->e1, e3 = tree->e3, d2 = tree->d2, person = tree->person;
    ce_collection *list = tree->list, *dictionary = tree->dictionary;
    ce_object_key g0, l0, g1, l1, g2, l2;
    grow_chain(txn, &s, c2, &g0, &l0);
    grow_chain(txn, &s, e1, &g1, &l1);
    grow_chain(txn, &s, d2, &g2, &l2);
    set_value(txn, s.child, e3, s.owner, link_value(s.person, person));
    check_backlinks(txn, s.person, person, s.child, s.owner, (ce_object_key[]){e3}, 1);
    check_counts(txn, &s, 4, 3, 3);
    ce_collection_close(list);
    ce_collection_close(dictionary);
    commit_and_verify(db, txn);
    tree->g0 = g0;
    tree->l0 = l0;
    tree->g1 = g1;
    tree->l1 = l1;
}

/* Deleting the parent deletes the tree under it; rolled back first, then
 * (after a reopen) embedded objects deleted directly and the list cleared,
 * rolled back too; then committed. */
static void embedded_delete_parent(ce_db **db, const char *path, embedded_tree *tree)
{
    const embedded_schema s = tree->s;
    ce_object_key p0 = tree->p0, person = tree->person, c2 = tree->c2, e1 = tree->e1, e3 = tree->e3, d2 = tree->d2;
    ce_object_key g0 = tree->g0, g1 = tree->g1, l1 = tree->l1;
    ce_txn *txn;
    ce_collection *list, *dictionary;
    for (int pass = 0; pass < 2; pass++) {
        CHECK(ce_txn_begin_write(*db, &txn));
        CHECK(ce_object_delete(txn, s.parent, p0));
        check_counts(txn, &s, 0, 0, 0);
        CHECK(backlink_total(txn, s.person, person) == 0);
        if (pass == 0) {
            ce_txn_end(txn);
            test_verify(*db);
            CHECK(ce_txn_begin_read(*db, &txn));
            check_counts(txn, &s, 4, 3, 3);
            CHECK(get_value(txn, s.leaf, l1, s.leaf_value).integer == g1 * 100 + l1);
            CHECK(linked(txn, s.child, e1, s.grand_link) == g1 && linked(txn, s.grand, g1, s.leaf_link) == l1);
            ce_txn_end(txn);
            *db = reopen(*db, path);
            /* Deleting an embedded object directly takes it out of its
             * parent (and its own tree with it). */
            CHECK(ce_txn_begin_write(*db, &txn));
            CHECK(ce_object_delete(txn, s.child, e3));
            CHECK(ce_collection_open(txn, s.parent, p0, s.children, &list));
            check_keys(list, s.child, (ce_object_key[]){e1}, 1, "EmbParent.children");
            ce_collection_close(list);
            CHECK(ce_object_delete(txn, s.child, d2));
            CHECK(ce_collection_open(txn, s.parent, p0, s.by_name, &dictionary));
            check_keys(dictionary, s.child, (ce_object_key[]){-1, -1}, 2, "EmbParent.byName");
            ce_collection_close(dictionary);
            CHECK(ce_object_delete(txn, s.grand, g0));
            CHECK(linked(txn, s.child, c2, s.grand_link) == -1);
            check_counts(txn, &s, 2, 1, 1);
            CHECK(ce_object_delete(txn, s.child, c2));
            CHECK(linked(txn, s.parent, p0, s.child_link) == -1);
            check_counts(txn, &s, 1, 1, 1);
            /* Clearing the list deletes the rest, three levels. */
            CHECK(ce_collection_open(txn, s.parent, p0, s.children, &list));
            CHECK(ce_collection_clear(list));
            ce_collection_close(list);
            check_counts(txn, &s, 0, 0, 0);
            ce_txn_end(txn);
        } else {
            commit_and_verify(*db, txn);
        }
    }
}

/* What embedded tables refuse: a primary key, an index, a set of them,
 * objects created on their own. */
TEST(embedded_schema_rules)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    const embedded_schema s = tree.s;
    ce_txn *txn = tree.txn;
    ce_column_key unused;
    bool embedded;
    CHECK(ce_table_is_embedded(txn, s.child, &embedded) && embedded);
    CHECK(ce_table_is_embedded(txn, s.parent, &embedded) && !embedded);
    /* Embedded tables: no primary key, no index. */
    EXPECT_ERROR(ce_property_add(txn, s.child, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .primary_key = true},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "embedded tables have no primary key");
    EXPECT_ERROR(ce_property_add(txn, s.child, &(ce_property_info){.name = "id", .type = CE_TYPE_INT, .indexed = true},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "embedded tables");
    /* A set of embedded objects is refused. */
    EXPECT_ERROR(ce_property_add(txn, s.parent,
                                 &(ce_property_info){.name = "bag", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_SET,
                                                     .link_target = s.child},
                                 &unused),
                 CE_ERR_INVALID_SCHEMA, "a set cannot hold embedded objects");
    ce_object_key object;
    EXPECT_ERROR(ce_object_create(txn, s.child, NULL, &object), CE_ERR_EMBEDDED_OBJECT, "'EmbChild'");
    ce_value values[3] = {int_value(1), null_value(), null_value()};
    EXPECT_ERROR(ce_object_create_with_values(txn, s.child, values, 3, &object), CE_ERR_EMBEDDED_OBJECT, "'EmbChild'");
    commit_and_verify(t.db, txn);
    test_db_close(&t);
}

TEST(embedded_to_one)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    embedded_to_one(&tree);
    commit_and_verify(t.db, tree.txn);
    test_db_close(&t);
}

TEST(embedded_lists)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    embedded_to_one(&tree);
    embedded_lists(&tree);
    ce_collection_close(tree.list);
    commit_and_verify(t.db, tree.txn);
    test_db_close(&t);
}

TEST(embedded_dictionaries)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    embedded_to_one(&tree);
    embedded_lists(&tree);
    embedded_dictionaries(&tree);
    ce_collection_close(tree.list);
    ce_collection_close(tree.dictionary);
    commit_and_verify(t.db, tree.txn);
    test_db_close(&t);
}

TEST(embedded_three_levels)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    embedded_to_one(&tree);
    embedded_lists(&tree);
    embedded_dictionaries(&tree);
    embedded_three_levels(t.db, &tree);
    test_db_close(&t);
}

TEST(deleting_parent_deletes_tree)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    embedded_to_one(&tree);
    embedded_lists(&tree);
    embedded_dictionaries(&tree);
    embedded_three_levels(t.db, &tree);
    embedded_delete_parent(&t.db, t.path, &tree);
    test_db_close(&t);
}

/* Setting a to-one link to null deletes its object; a list of
 * embedded objects is cleared when its parent is deleted; an embedded
 * object's own links go when it goes. */
TEST(null_link_deletes_embedded)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    commit_and_verify(t.db, tree.txn);
    ce_db **db = &t.db;
    const embedded_schema s = tree.s;
    ce_object_key p1 = tree.p1, person = tree.person, c1, object;
    ce_txn *txn;
    ce_collection *list;
    ce_value value;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_create_embedded(txn, s.parent, p1, s.child_link, &c1));
    grow_chain(txn, &s, c1, NULL, NULL);
    set_value(txn, s.child, c1, s.owner, link_value(s.person, person));
    set_value(txn, s.parent, p1, s.child_link, null_value());
    check_counts(txn, &s, 0, 0, 0);
    CHECK(backlink_total(txn, s.person, person) == 0);
    CHECK(ce_collection_open(txn, s.parent, p1, s.children, &list));
    for (int i = 0; i < 5; i++) {
        CHECK(ce_list_insert_embedded(list, (size_t)i, &object));
        grow_chain(txn, &s, object, NULL, NULL);
        set_value(txn, s.child, object, s.owner, link_value(s.person, person));
    }
    ce_collection_close(list);
    check_counts(txn, &s, 5, 5, 5);
    CHECK(backlink_count(txn, s.person, person, s.child, s.owner) == 5);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    /* Deleting the person the embedded objects link to nulls their links. */
    ce_object_key person2 = create_object(txn, s.person);
    CHECK(ce_object_delete(txn, s.person, person));
    CHECK(ce_collection_open(txn, s.parent, p1, s.children, &list));
    for (size_t i = 0; i < 5; i++) {
        CHECK(ce_collection_get(list, i, &value) && value.type == CE_TYPE_LINK);
        CHECK(linked(txn, s.child, value.link.key, s.owner) == -1);
        set_value(txn, s.child, value.link.key, s.owner, link_value(s.person, person2));
    }
    ce_collection_close(list);
    CHECK(ce_object_delete(txn, s.parent, p1));
    check_counts(txn, &s, 0, 0, 0);
    CHECK(backlink_total(txn, s.person, person2) == 0);
    commit_and_verify(*db, txn);
    test_db_close(&t);
}

/* Creating embedded objects in a new parent, rolled back: nothing stays. */
static void embedded_create_rolled_back(ce_db **db, const embedded_tree *tree, ce_object_key *out_p3)
{
    const embedded_schema s = tree->s;
    ce_object_key c1, object;
    ce_txn *txn;
    ce_collection *list, *dictionary;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_object_key p3 = create_object(txn, s.parent);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_object_create_embedded(txn, s.parent, p3, s.child_link, &c1));
    grow_chain(txn, &s, c1, NULL, NULL);
    CHECK(ce_collection_open(txn, s.parent, p3, s.children, &list));
    CHECK(ce_list_insert_embedded(list, 0, &object));
    ce_collection_close(list);
    CHECK(ce_collection_open(txn, s.parent, p3, s.by_name, &dictionary));
    CHECK(ce_dictionary_insert_embedded(dictionary, "k", 1, &object));
    ce_collection_close(dictionary);
    check_counts(txn, &s, 3, 1, 1);
    ce_txn_end(txn);
    test_verify(*db);
    CHECK(ce_txn_begin_read(*db, &txn));
    check_counts(txn, &s, 0, 0, 0);
    CHECK(linked(txn, s.parent, p3, s.child_link) == -1);
    check_list_of(txn, s.parent, p3, s.children, NULL, 0, "EmbParent.children");
    ce_txn_end(txn);
    *out_p3 = p3;
}

TEST(embedded_creation_rolled_back)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    commit_and_verify(t.db, tree.txn);
    ce_object_key p3;
    embedded_create_rolled_back(&t.db, &tree, &p3);
    test_db_close(&t);
}

/* A dictionary's embedded object is deleted when its key is set to
 * null or erased. */
TEST(dictionary_null_or_erase_deletes_embedded)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    commit_and_verify(t.db, tree.txn);
    ce_object_key p3;
    embedded_create_rolled_back(&t.db, &tree, &p3);
    ce_db **db = &t.db;
    const embedded_schema s = tree.s;
    ce_object_key c1, c2;
    ce_txn *txn;
    ce_collection *dictionary;
    ce_value value;
    CHECK(ce_txn_begin_write(*db, &txn));
    CHECK(ce_collection_open(txn, s.parent, p3, s.by_name, &dictionary));
    CHECK(ce_collection_clear(dictionary));
    CHECK(ce_dictionary_insert_embedded(dictionary, "c", 1, &c1) && ce_dictionary_insert_embedded(dictionary, "d", 1, &c2));
    grow_chain(txn, &s, c1, NULL, NULL);
    check_counts(txn, &s, 2, 1, 1);
    value = null_value();
    CHECK(ce_dictionary_set(dictionary, "c", 1, &value));
    check_counts(txn, &s, 1, 0, 0);
    bool erased;
    CHECK(ce_dictionary_erase(dictionary, "d", 1, &erased) && erased);
    check_counts(txn, &s, 0, 0, 0);
    check_keys(dictionary, s.child, (ce_object_key[]){-1}, 1, "EmbParent.byName");
    ce_collection_close(dictionary);
    commit_and_verify(*db, txn);
    test_db_close(&t);
}

/* An embedded table whose objects embed objects of the same table (a
 * chain of six), one of them linking back to the top-level parent. */
TEST(embedded_table_embeds_itself)
{
    test_db t = links_db_open("embedded");
    embedded_tree tree;
    embedded_begin(t.db, &tree);
    commit_and_verify(t.db, tree.txn);
    ce_db **db = &t.db;
    const embedded_schema s = tree.s;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(*db, &txn));
    ce_table_key node = add_table(txn, "EmbNode", true);
    ce_column_key next = add_property(txn, node, "next", CE_TYPE_LINK, true, CE_COLLECTION_NONE, node);
    ce_column_key back = add_property(txn, node, "back", CE_TYPE_LINK, true, CE_COLLECTION_NONE, s.parent);
    ce_column_key head = add_property(txn, s.parent, "head", CE_TYPE_LINK, true, CE_COLLECTION_NONE, node);
    ce_object_key p2 = create_object(txn, s.parent), at;
    CHECK(ce_object_create_embedded(txn, s.parent, p2, head, &at));
    set_value(txn, node, at, back, link_value(s.parent, p2));
    for (int i = 0; i < 5; i++) CHECK(ce_object_create_embedded(txn, node, at, next, &at));
    CHECK(object_count(txn, node) == 6);
    check_backlinks(txn, s.parent, p2, node, back, (ce_object_key[]){0}, 1);
    commit_and_verify(*db, txn);
    CHECK(ce_txn_begin_write(*db, &txn));
    /* A new object under the chain's third drops the three below it. */
    ce_object_key third = linked(txn, node, linked(txn, s.parent, p2, head), next);
    third = linked(txn, node, third, next);
    CHECK(ce_object_create_embedded(txn, node, third, next, &at));
    CHECK(object_count(txn, node) == 4);
    CHECK(ce_object_delete(txn, s.parent, p2));
    CHECK(object_count(txn, node) == 0);
    commit_and_verify(*db, txn);
    test_db_close(&t);
}
