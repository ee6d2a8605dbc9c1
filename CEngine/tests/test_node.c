/*
 * test_node.c — the node layer: bit-packing at every width, widening,
 * insert/erase/set, finalization at the smallest width; and the tests'
 * B+tree (support/bptree.c) checked against a plain array through random
 * operations and commits.
 */
#include "test_support.h"

static uint64_t random_state = 0x1234567;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Values that need every width, positive and negative. */
static const int64_t boundary_values[] = {0, 1, 2, 3, 4, 15, 16, 127, -1, -128, 128, 255, 32767, -32768, 32768,
                                          2147483647LL, -2147483648LL, 2147483648LL, INT64_MAX, INT64_MIN};
#define BOUNDARY_COUNT (sizeof boundary_values / sizeof boundary_values[0])

TEST(widths)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    CHECK(node_width_for(0) == 0);
    CHECK(node_width_for(1) == 1);
    CHECK(node_width_for(3) == 2);
    CHECK(node_width_for(15) == 4);
    CHECK(node_width_for(16) == 8);
    CHECK(node_width_for(-1) == 8);
    CHECK(node_width_for(128) == 16);
    CHECK(node_width_for(-32769) == 32);
    CHECK(node_width_for(INT64_MIN) == 64);

    /* A set of values takes the widest of their widths; a negative one
     * among small ones takes 8 bits. */
    const int64_t small[] = {0, 3, 1};
    const int64_t mixed[] = {2, -1, 15};
    const int64_t wide[] = {1, INT64_MIN, 4};
    node_view view = node_view_of_values(small, 0);
    CHECK(node_width_for_values(&view) == 0);
    view = node_view_of_values(small, 3);
    CHECK(node_width_for_values(&view) == 2);
    view = node_view_of_values(mixed, 3);
    CHECK(node_width_for_values(&view) == 8);
    view = node_view_of_values(wide, 3);
    CHECK(node_width_for_values(&view) == 64);

    /* Each value in a node of zeros: widening keeps every other element. */
    for (size_t v = 0; v < BOUNDARY_COUNT; v++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        space_state *space = db_txn_space(txn);
        space_ref ref;
        CHECK(node_create(space, 0, 37, 0, &ref));
        CHECK(node_set(space, ref, 11, boundary_values[v]));
        CHECK(node_append(space, ref, 1));
        node_view node;
        CHECK(node_read(space, ref, &node));
        CHECK(node.count == 38);
        CHECK(node.width == node_width_for(boundary_values[v]) || node.width >= node_width_for(boundary_values[v]));
        for (size_t i = 0; i < 37; i++) CHECK(node_get(&node, i) == (i == 11 ? boundary_values[v] : 0));
        CHECK(node_get(&node, 37) == 1);
        /* Finalize and read the committed bytes back (the old root is freed:
         * verify would report it as leaked otherwise). */
        if (db_txn_root(txn)) CHECK(node_free_tree(space, db_txn_root(txn)));
        CHECK(db_txn_set_root(txn, ref));
        CHECK(ce_txn_commit(txn));
        CHECK(ce_txn_begin_read(db, &txn));
        CHECK(node_read(db_txn_space(txn), db_txn_root(txn), &node));
        uint8_t expected_width = node_width_for(boundary_values[v]);
        if (expected_width < 1) expected_width = 1; /* the appended 1 */
        if (boundary_values[v] < 0 && expected_width < 8) expected_width = 8;
        /* With a base (a frame of reference), the node must come out smaller
         * than at the plain width; without, it has the plain width. */
        if (node.based) CHECK(node_size(&node) < node_size_for(expected_width, 38));
        else CHECK(node.width == expected_width && node.base == 0);
        for (size_t i = 0; i < 37; i++) CHECK(node_get(&node, i) == (i == 11 ? boundary_values[v] : 0));
        CHECK(node_get(&node, 37) == 1);
        ce_txn_end(txn);
        test_verify(db);
    }
    test_db_close(&t);
}

/* Frame of reference: values close together but far from 0 commit as a
 * base plus narrow offsets; a copy for writing holds the values again. */
TEST(based_nodes)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    int64_t values[256];
    for (int i = 0; i < 256; i++) values[i] = 5000000000LL + 3 * i;
    space_ref ref;
    CHECK(node_create_from(space, NODE_CONTEXT, values, 256, &ref));
    if (db_txn_root(txn)) CHECK(node_free_tree(space, db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, ref));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    node_view node;
    CHECK(node_read(db_txn_space(txn), db_txn_root(txn), &node));
    /* 256 values over a range of 766: 16 bits around the middle of the range. */
    CHECK(node.based && node.base == 5000000000LL + 32768 && node.width == 16 && node.flags == NODE_CONTEXT);
    CHECK(node_size(&node) == NODE_HEADER_SIZE + NODE_BASE_SIZE + 512);
    for (int i = 0; i < 256; i++) CHECK(node_get(&node, i) == values[i]);
    ce_txn_end(txn);
    test_verify(db);

    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    ref = db_txn_root(txn);
    CHECK(node_make_writable(space, &ref));
    CHECK(node_read(space, ref, &node));
    CHECK(!node.based && node.base == 0 && node.width == 64 && node.flags == NODE_CONTEXT);
    for (int i = 0; i < 256; i++) CHECK(node_get(&node, i) == values[i]);
    CHECK(node_set(space, ref, 7, -1));
    CHECK(db_txn_set_root(txn, ref));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(node_read(db_txn_space(txn), db_txn_root(txn), &node));
    CHECK(!node.based && node.width == 64); /* -1 .. 5e9: the range needs 64 bits anyway */
    for (int i = 0; i < 256; i++) CHECK(node_get(&node, i) == (i == 7 ? -1 : values[i]));
    ce_txn_end(txn);
    test_verify(db);
    test_db_close(&t);
}

/* The width of a set of values, element by element (node_width_for_values
 * takes it from the extremes). */
static uint8_t width_by_element(const int64_t *values, size_t count)
{
    uint8_t width = 0;
    for (size_t i = 0; i < count; i++)
        if (node_width_for(values[i]) > width) width = node_width_for(values[i]);
    return width;
}

/* Random values packed at every pair of widths: created from an array,
 * some widened in the transaction past what they need (a set of a wide
 * value, then of the old one back), committed (re-packed, with a base or
 * without), read back, and copied for writing again (a based node is
 * unpacked). Counts that end inside a byte of the narrow widths. */
#define PACK_NODES 240
TEST(packing_at_every_width)
{
    static const unsigned spreads[] = {0, 1, 2, 3, 4, 7, 8, 12, 15, 16, 24, 31, 32, 40, 63, 64};
    static const size_t counts[] = {1, 2, 3, 5, 7, 9, 17, 64, 255, 256};
    static int64_t values[PACK_NODES][256];
    static size_t sizes[PACK_NODES];
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root;
    CHECK(node_create(space, NODE_HAS_REFS, PACK_NODES, 0, &root));
    for (size_t k = 0; k < PACK_NODES; k++) {
        unsigned spread = spreads[k % (sizeof spreads / sizeof spreads[0])];
        size_t count = counts[(k / 3) % (sizeof counts / sizeof counts[0])];
        int64_t offset = k % 3 == 0 ? 0 : k % 3 == 1 ? -(int64_t)(next_random() % 1000) : (int64_t)(next_random() >> 2);
        uint64_t mask = spread == 64 ? UINT64_MAX : (UINT64_C(1) << spread) - 1;
        for (size_t i = 0; i < count; i++) values[k][i] = (int64_t)((uint64_t)offset + (next_random() & mask));
        sizes[k] = count;
        node_view view = node_view_of_values(values[k], count);
        CHECK(node_width_for_values(&view) == width_by_element(values[k], count));
        space_ref ref;
        CHECK(node_create_from(space, 0, values[k], count, &ref));
        if (k % 2) {
            CHECK(node_set(space, ref, count - 1, INT64_MIN));
            CHECK(node_set(space, ref, count - 1, values[k][count - 1]));
        }
        node_view node;
        CHECK(node_read(space, ref, &node));
        CHECK(node.count == count);
        for (size_t i = 0; i < count; i++) CHECK(node_get(&node, i) == values[k][i]);
        CHECK(node_width_for_values(&node) == width_by_element(values[k], count));
        CHECK(node_set(space, root, k, (int64_t)ref));
    }
    if (db_txn_root(txn)) CHECK(node_free_tree(space, db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));

    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    node_view top;
    CHECK(node_read(space, db_txn_root(txn), &top));
    CHECK(top.count == PACK_NODES);
    for (size_t k = 0; k < PACK_NODES; k++) {
        space_ref ref = (space_ref)node_get(&top, k);
        node_view node;
        CHECK(node_read(space, ref, &node));
        CHECK(node.count == sizes[k]);
        for (size_t i = 0; i < sizes[k]; i++) CHECK(node_get(&node, i) == values[k][i]);
        uint8_t plain = width_by_element(values[k], sizes[k]);
        if (node.based) CHECK(node_size(&node) < node_size_for(plain, sizes[k]));
        else CHECK(node.width == plain);
        CHECK(node_width_for_values(&node) == plain);
        CHECK(node_make_writable(space, &ref));
        CHECK(node_read(space, ref, &node));
        CHECK(!node.based && node.count == sizes[k] && node.width == plain);
        for (size_t i = 0; i < sizes[k]; i++) CHECK(node_get(&node, i) == values[k][i]);
    }
    ce_txn_end(txn);
    test_verify(db);
    test_db_close(&t);
}

TEST(node_operations)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    int64_t model[600];
    size_t count = 0;
    space_ref ref;
    CHECK(node_create(space, 0, 0, 0, &ref));
    for (int step = 0; step < 5000; step++) {
        uint64_t choice = next_random() % 10;
        int64_t value = boundary_values[next_random() % BOUNDARY_COUNT];
        if (next_random() % 2) value = (int64_t)(next_random() % 20);
        if (choice < 4 && count < 600) {
            size_t at = count ? next_random() % (count + 1) : 0;
            CHECK(node_insert(space, ref, at, value));
            memmove(model + at + 1, model + at, (count - at) * sizeof *model);
            model[at] = value;
            count++;
        } else if (choice < 7 && count > 0) {
            size_t at = next_random() % count;
            CHECK(node_set(space, ref, at, value));
            model[at] = value;
        } else if (count > 0) {
            size_t at = next_random() % count;
            CHECK(node_erase(space, ref, at));
            memmove(model + at, model + at + 1, (count - at - 1) * sizeof *model);
            count--;
        }
        node_view node;
        CHECK(node_read(space, ref, &node));
        CHECK(node.count == count);
        for (size_t i = 0; i < count; i++) CHECK(node_get(&node, i) == model[i]);
    }
    /* Out-of-range positions are errors, not crashes. */
    CHECK(!node_set(space, ref, count, 1) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    CHECK(!node_insert(space, ref, count + 1, 1) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    CHECK(!node_erase(space, ref, count) && ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
    if (db_txn_root(txn)) CHECK(node_free_tree(space, db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, ref));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_read(db, &txn));
    node_view node;
    CHECK(node_read(db_txn_space(txn), db_txn_root(txn), &node));
    CHECK(node.count == count);
    for (size_t i = 0; i < count; i++) CHECK(node_get(&node, i) == model[i]);
    /* A committed node cannot be changed without copy-on-write. */
    CHECK(!node_set(db_txn_space(txn), db_txn_root(txn), 0, 1));
    ce_txn_end(txn);
    test_verify(db);
    test_db_close(&t);
}

TEST(bytes)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    char filler[300];
    memset(filler, 'x', sizeof filler - 1);
    filler[sizeof filler - 1] = 0;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref list;
    if (db_txn_root(txn)) CHECK(node_free_tree(space, db_txn_root(txn)));
    CHECK(bptree_create(space, NODE_HAS_REFS, &list));
    char text[300];
    for (int i = 0; i < 50; i++) {
        int length = snprintf(text, sizeof text, "string number %d %.*s", i, i * 5, filler);
        space_ref bytes;
        CHECK(node_create_bytes(space, 0, text, (size_t)length, &bytes));
        CHECK(bptree_append(space, &list, (int64_t)bytes));
    }
    CHECK(db_txn_set_root(txn, list));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    for (int i = 0; i < 50; i++) {
        int64_t ref;
        CHECK(bptree_get(db_txn_space(txn), db_txn_root(txn), (size_t)i, &ref));
        node_view node;
        CHECK(node_read(db_txn_space(txn), (space_ref)ref, &node));
        CHECK(node.flags & NODE_BYTES);
        int length = snprintf(text, sizeof text, "string number %d %.*s", i, i * 5, filler);
        CHECK(node.count == (uint32_t)length);
        CHECK(memcmp(node.payload, text, (size_t)length) == 0);
    }
    ce_txn_end(txn);
    /* Destroying the list frees the strings too: the file verifies (no leak). */
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(bptree_destroy(db_txn_space(txn), db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, 0));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    test_db_close(&t);
}

static void check_tree_matches(ce_txn *txn, const int64_t *model, size_t count)
{
    CHECK(test_list_size(txn) == count);
    for (size_t i = 0; i < count; i += 1 + next_random() % 7) CHECK(test_list_get(txn, i) == model[i]);
    if (count) CHECK(test_list_get(txn, count - 1) == model[count - 1]);
}

static void run_bptree_against_model(void)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    size_t capacity = 200000, count = 0;
    int64_t *model = malloc(capacity * sizeof *model);
    ce_txn *txn;
    /* A large tree by appends (several levels: 1000 per leaf, 500 per inner). */
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t i = 0; i < 120000; i++) {
        test_list_append(txn, (int64_t)(i * 7));
        model[count++] = (int64_t)(i * 7);
    }
    check_tree_matches(txn, model, count);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    for (int round = 0; round < 30; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        space_state *space = db_txn_space(txn);
        for (int step = 0; step < 300; step++) {
            space_ref root = test_list_root(txn);
            uint64_t choice = next_random() % 3;
            int64_t value = (int64_t)next_random();
            if (choice == 0 && count < capacity) {
                size_t at = next_random() % (count + 1);
                CHECK(bptree_insert(space, &root, at, value));
                memmove(model + at + 1, model + at, (count - at) * sizeof *model);
                model[at] = value;
                count++;
            } else if (choice == 1 && count > 0) {
                size_t at = next_random() % count;
                CHECK(bptree_set(space, &root, at, value));
                model[at] = value;
            } else if (count > 0) {
                size_t at = next_random() % count;
                CHECK(bptree_erase(space, &root, at));
                memmove(model + at, model + at + 1, (count - at - 1) * sizeof *model);
                count--;
            }
            CHECK(db_txn_set_root(txn, root));
        }
        CHECK(!bptree_erase(space, &(space_ref){test_list_root(txn)}, count) &&
              ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS);
        check_tree_matches(txn, model, count);
        if (round % 5 == 4) {
            ce_txn_end(txn); /* rollback: the model goes back too */
            CHECK(ce_txn_begin_read(db, &txn));
            size_t committed = test_list_size(txn);
            ce_txn_end(txn);
            /* Rebuild the model from the committed tree. */
            CHECK(ce_txn_begin_read(db, &txn));
            for (size_t i = 0; i < committed; i++) model[i] = test_list_get(txn, i);
            count = committed;
            ce_txn_end(txn);
        } else {
            CHECK(ce_txn_commit(txn));
        }
        test_verify(db);
        CHECK(ce_txn_begin_read(db, &txn));
        check_tree_matches(txn, model, count);
        ce_txn_end(txn);
    }
    /* Erase everything: a root that shrinks back to one leaf. */
    CHECK(ce_txn_begin_write(db, &txn));
    space_ref root = test_list_root(txn);
    while (count > 0) {
        CHECK(bptree_erase(db_txn_space(txn), &root, count - 1 - (next_random() % count) / 2));
        count--;
        if (count % 10000 == 0) {
            size_t size;
            CHECK(bptree_size(db_txn_space(txn), root, &size));
            CHECK(size == count);
        }
    }
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    free(model);
    test_db_close(&t);
}

TEST(bptree_against_model) { run_bptree_against_model(); }

/* The same with every dirty node in the transaction's arena
 * (storage/arena.h) rather than malloc: buffers created, copied, grown
 * (moved to malloc), freed, placed, and released at commit and rollback. */
TEST(bptree_against_model_in_arena)
{
    uint64_t saved = space_arena_bytes;
    space_arena_bytes = 0;
    run_bptree_against_model();
    space_arena_bytes = saved;
}

/* node_find_run against a plain loop, for counts stored at every width
 * (committed nodes may be based: a base and small deltas, or a base alone)
 * and for in-memory views, at every position up to past the total. */
static size_t model_find_run(const int64_t *counts, size_t runs, uint64_t *position)
{
    size_t run = 0;
    for (; run < runs && *position >= (uint64_t)counts[run]; run++) *position -= (uint64_t)counts[run];
    return run;
}

static void check_find_run(const node_view *node, const int64_t *counts, size_t count)
{
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++) total += (uint64_t)counts[i];
    const size_t limits[] = {count, count > 0 ? count - 1 : 0, count / 2, 0};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        for (uint64_t position = 0; position <= total + 3; position += 1 + total / 997) {
            uint64_t expected_inside = position, inside = position;
            size_t expected = model_find_run(counts, limits[l], &expected_inside);
            CHECK(node_find_run(node, limits[l], &inside) == expected && inside == expected_inside);
        }
    }
}

TEST(find_run)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    static int64_t counts[300];
    for (int pattern = 0; pattern < 8; pattern++) {
        const size_t lengths[] = {1, 63, 64, 65, 130, 300};
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            size_t count = lengths[l];
            for (size_t i = 0; i < count; i++) {
                uint64_t r = (uint64_t)(i * 2654435761u + (size_t)pattern * 40503u);
                switch (pattern) {
                case 0: counts[i] = 256; break;                          /* full leaves: a base alone */
                case 1: counts[i] = 256 + (int64_t)(r % 7 == 0); break;  /* a base and one bit */
                case 2: counts[i] = (int64_t)(r % 4); break;             /* 2 bits, zeros among them */
                case 3: counts[i] = 100 + (int64_t)(r % 16); break;      /* a base and 4 bits */
                case 4: counts[i] = (int64_t)(r % 120); break;           /* 8 bits */
                case 5: counts[i] = (int64_t)(r % 30000); break;         /* 16 bits */
                case 6: counts[i] = (int64_t)(r % 3000000); break;       /* 32 bits */
                default: counts[i] = (int64_t)(r % 7) * 1000000000000LL; /* 64 bits */
                }
            }
            node_view view = node_view_of_values(counts, count);
            check_find_run(&view, counts, count);
            ce_txn *txn;
            CHECK(ce_txn_begin_write(db, &txn));
            space_ref ref;
            CHECK(node_create_from(db_txn_space(txn), NODE_CONTEXT, counts, count, &ref));
            if (db_txn_root(txn)) CHECK(node_free_tree(db_txn_space(txn), db_txn_root(txn)));
            CHECK(db_txn_set_root(txn, ref));
            CHECK(ce_txn_commit(txn));
            CHECK(ce_txn_begin_read(db, &txn));
            node_view node;
            CHECK(node_read(db_txn_space(txn), db_txn_root(txn), &node));
            check_find_run(&node, counts, count);
            ce_txn_end(txn);
        }
    }
    test_verify(db);
    test_db_close(&t);
}

/* The commit places a new inner node's side arrays (the leading plain
 * children of a node with the inner flag whose later children have refs)
 * right before the node, the last one first: [counts][first keys][node];
 * a new node whose children are all new plain nodes right after them. And
 * node_guess_offset finds an element where the commit packed it. */
TEST(side_arrays_placed_before_their_inner_node)
{
    test_db t = test_db_open("node");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    enum { CHILDREN = 40 };
    int64_t first_keys[CHILDREN], counts[CHILDREN], inner_elements[2 + CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        int64_t values[256];
        for (int i = 0; i < 256; i++) values[i] = i;
        space_ref values_ref, leaf;
        CHECK(node_create_from(space, 0, values, 256, &values_ref));
        int64_t leaf_elements[2] = {node_tag(1000000 + 256 * c), (int64_t)values_ref};
        CHECK(node_create_from(space, NODE_HAS_REFS, leaf_elements, 2, &leaf));
        first_keys[c] = 1000000 + 256 * c;
        counts[c] = 256;
        inner_elements[2 + c] = (int64_t)leaf;
    }
    space_ref keys_ref, counts_ref, inner;
    CHECK(node_create_from(space, 0, first_keys, CHILDREN, &keys_ref));
    CHECK(node_create_from(space, 0, counts, CHILDREN, &counts_ref));
    inner_elements[0] = (int64_t)keys_ref;
    inner_elements[1] = (int64_t)counts_ref;
    CHECK(node_create_from(space, NODE_INNER | NODE_HAS_REFS, inner_elements, 2 + CHILDREN, &inner));
    if (db_txn_root(txn)) CHECK(node_free_tree(space, db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, inner));
    CHECK(ce_txn_commit(txn));

    CHECK(ce_txn_begin_read(db, &txn));
    space = db_txn_space(txn);
    space_ref root = db_txn_root(txn);
    node_view node, keys, count_view;
    CHECK(node_read(space, root, &node));
    CHECK(node.flags == (NODE_INNER | NODE_HAS_REFS) && node.count == 2 + CHILDREN);
    CHECK(node_read(space, (space_ref)node_get(&node, 0), &keys));
    CHECK(node_read(space, (space_ref)node_get(&node, 1), &count_view));
    CHECK((space_ref)node_get(&node, 0) + node_size(&keys) == root);
    CHECK((space_ref)node_get(&node, 1) + node_size(&count_view) == (space_ref)node_get(&node, 0));
    for (int c = 0; c < CHILDREN; c++) {
        CHECK(node_get(&keys, (size_t)c) == first_keys[c]);
        /* The guess from the span [first key, first key + CHILDREN * 256). */
        uint64_t offset = node_guess_offset(first_keys[0], first_keys[CHILDREN - 1], CHILDREN, (size_t)c);
        CHECK(node_start(&keys) + offset == keys.payload + (size_t)c * keys.width / 8);
        node_view leaf, values;
        space_ref leaf_ref = (space_ref)node_get(&node, 2 + (size_t)c);
        CHECK(node_read(space, leaf_ref, &leaf));
        CHECK(node_read(space, (space_ref)node_get(&leaf, 1), &values));
        CHECK((space_ref)node_get(&leaf, 1) + node_size(&values) == leaf_ref);
        CHECK(node_start(&values) + node_guess_offset(0, 255, 256, 77) == values.payload + 77 * values.width / 8);
    }
    ce_txn_end(txn);
    test_verify(db);
    test_db_close(&t);
}
