/*
 * test_index.c — the index layer: an ordered multimap of (key, value) pairs
 * checked against a sorted array through random inserts and erases (duplicate
 * keys, negative keys, INT64_MIN/MAX), commits and rollbacks, ascending,
 * descending and random bulk loads, range and per-key iteration, counts, the
 * shape a bulk load leaves, damaged nodes, and a timing of point lookups
 * (printed, not asserted).
 */
#include "test_support.h"
#include "error.h"
#include "index.h"

#include <time.h>

#define RANDOM_SEED 0x5EED1DE5
static uint64_t random_state = RANDOM_SEED;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Every case starts from the seed: the same values alone as after others. */
static void seed_random(void) { random_state = RANDOM_SEED; }

/* --- the model: a sorted array of pairs --- */

typedef struct pair {
    int64_t key, value;
} pair;

typedef struct model {
    pair *pairs;
    size_t count, capacity;
} model;

static bool pair_less(pair a, pair b) { return a.key < b.key || (a.key == b.key && a.value < b.value); }

/* The first position whose pair is not below `target`. */
static size_t model_search(const model *m, pair target)
{
    size_t low = 0, high = m->count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (pair_less(m->pairs[middle], target)) low = middle + 1;
        else high = middle;
    }
    return low;
}

static bool model_contains(const model *m, pair target)
{
    size_t at = model_search(m, target);
    return at < m->count && m->pairs[at].key == target.key && m->pairs[at].value == target.value;
}

static void model_insert(model *m, pair target)
{
    if (m->count == m->capacity) {
        m->capacity = m->capacity ? m->capacity * 2 : 1024;
        m->pairs = realloc(m->pairs, m->capacity * sizeof *m->pairs);
        CHECK(m->pairs != NULL);
    }
    size_t at = model_search(m, target);
    memmove(m->pairs + at + 1, m->pairs + at, (m->count - at) * sizeof *m->pairs);
    m->pairs[at] = target;
    m->count++;
}

static void model_erase(model *m, pair target)
{
    size_t at = model_search(m, target);
    CHECK(at < m->count && m->pairs[at].key == target.key && m->pairs[at].value == target.value);
    memmove(m->pairs + at, m->pairs + at + 1, (m->count - at - 1) * sizeof *m->pairs);
    m->count--;
}

static void model_copy(model *target, const model *source)
{
    if (target->capacity < source->count) {
        target->capacity = source->count;
        target->pairs = realloc(target->pairs, target->capacity * sizeof *target->pairs);
        CHECK(target->pairs != NULL);
    }
    if (source->count) memcpy(target->pairs, source->pairs, source->count * sizeof *source->pairs);
    target->count = source->count;
}

static int compare_pairs(const void *a, const void *b)
{
    const pair *left = a, *right = b;
    return pair_less(*left, *right) ? -1 : pair_less(*right, *left) ? 1 : 0;
}

/* The model of a bulk load: the pairs, sorted (no memmove per pair). */
static void model_set(model *m, const pair *pairs, size_t count)
{
    model_copy(m, &(model){(pair *)pairs, count, count});
    if (count) qsort(m->pairs, count, sizeof *m->pairs, compare_pairs);
}

/* --- collecting what the index yields --- */

typedef struct collected {
    pair *pairs;
    size_t count, capacity;
    size_t stop_after; /* 0: never stop */
} collected;

static bool collect(void *context, int64_t key, int64_t value, bool *stop)
{
    collected *c = context;
    if (c->count == c->capacity) {
        c->capacity = c->capacity ? c->capacity * 2 : 1024;
        c->pairs = realloc(c->pairs, c->capacity * sizeof *c->pairs);
        CHECK(c->pairs != NULL);
    }
    c->pairs[c->count++] = (pair){key, value};
    if (c->stop_after && c->count == c->stop_after) *stop = true;
    return true;
}

static bool failing_visitor(void *context, int64_t key, int64_t value, bool *stop)
{
    (void)context, (void)key, (void)value, (void)stop;
    return error_fail(CE_ERR_FAIL, "the visitor failed");
}

/* Checks a range walk against the model's pairs with first <= key <= last. */
static void check_range(const space_state *space, space_ref root, const model *m, int64_t first, int64_t last)
{
    collected c = {0};
    CHECK(index_for_each_in_range(space, root, first, last, collect, &c));
    size_t at = first <= last ? model_search(m, (pair){first, INT64_MIN}) : m->count;
    size_t expected = 0;
    while (at + expected < m->count && first <= last && m->pairs[at + expected].key <= last) expected++;
    CHECK(c.count == expected);
    for (size_t i = 0; i < expected; i++)
        CHECK(c.pairs[i].key == m->pairs[at + i].key && c.pairs[i].value == m->pairs[at + i].value);
    free(c.pairs);
}

/* find_first, count_key and for_each_with_key for one key against the model. */
static void check_key(const space_state *space, space_ref root, const model *m, int64_t key)
{
    size_t at = model_search(m, (pair){key, INT64_MIN});
    size_t expected = 0;
    while (at + expected < m->count && m->pairs[at + expected].key == key) expected++;
    int64_t value = 0;
    bool found = true;
    CHECK(index_find_first(space, root, key, &value, &found));
    CHECK(found == (expected > 0));
    if (found) CHECK(value == m->pairs[at].value);
    size_t count = 12345;
    CHECK(index_count_key(space, root, key, &count));
    CHECK(count == expected);
    collected c = {0};
    CHECK(index_for_each_with_key(space, root, key, collect, &c));
    CHECK(c.count == expected);
    for (size_t i = 0; i < expected; i++) CHECK(c.pairs[i].key == key && c.pairs[i].value == m->pairs[at + i].value);
    free(c.pairs);
}

static int64_t random_key(int64_t range);

/* The whole index against the model: size, every pair in order, and
 * `probes` keys (of the model and random ones) and ranges. */
static void check_index(const space_state *space, space_ref root, const model *m, size_t probes)
{
    size_t size = 0;
    CHECK(index_size(space, root, &size));
    CHECK(size == m->count);
    check_range(space, root, m, INT64_MIN, INT64_MAX);
    for (size_t i = 0; i < probes; i++) {
        if (m->count) check_key(space, root, m, m->pairs[next_random() % m->count].key);
        check_key(space, root, m, random_key(1000));
        int64_t first = random_key(1000), width = (int64_t)(next_random() % 50);
        int64_t last = first > INT64_MAX - width ? INT64_MAX : first + width;
        check_range(space, root, m, first, last);
    }
    check_key(space, root, m, INT64_MIN);
    check_key(space, root, m, INT64_MAX);
    check_range(space, root, m, 5, 4); /* empty range */
}

/* Keys that collide often (small range, negatives) with the extremes mixed in. */
static int64_t random_key(int64_t range)
{
    switch (next_random() % 16) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return INT64_MIN + (int64_t)(next_random() % 3);
    case 3: return INT64_MAX - (int64_t)(next_random() % 3);
    case 4: return (int64_t)next_random();
    default: return (int64_t)(next_random() % (uint64_t)(2 * range)) - range;
    }
}

static int64_t random_value(void)
{
    switch (next_random() % 8) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return (int64_t)next_random();
    default: return (int64_t)(next_random() % 64) - 8;
    }
}

/* Makes `root` the user root, freeing the tree it replaces. */
static void replace_root(ce_txn *txn, space_ref root)
{
    space_ref old = db_txn_root(txn);
    if (old && old != root) CHECK(node_free_tree(db_txn_space(txn), old));
    CHECK(db_txn_set_root(txn, root));
}

static space_ref new_index(ce_txn *txn)
{
    space_ref root;
    CHECK(index_create(db_txn_space(txn), &root));
    replace_root(txn, root);
    return root;
}

/* --- tests --- */

TEST(basics)
{
    seed_random();
    test_db t = test_db_open("index");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root = new_index(txn);
    model m = {0};
    check_index(space, root, &m, 5);

    const pair pairs[] = {{5, 1}, {5, 0}, {-3, 7}, {INT64_MIN, INT64_MAX}, {INT64_MAX, INT64_MIN},
                          {INT64_MIN, INT64_MIN}, {INT64_MAX, INT64_MAX}, {0, 0}, {5, -1}, {5, 1000000000000LL}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        CHECK(index_insert(space, &root, pairs[i].key, pairs[i].value));
        model_insert(&m, pairs[i]);
        check_index(space, root, &m, 3);
    }
    /* The same pair twice is an argument error and changes nothing. */
    CHECK(!index_insert(space, &root, 5, 1) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!index_insert(space, &root, INT64_MIN, INT64_MAX) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    /* A missing pair is an index that disagrees with its data. */
    CHECK(!index_erase(space, &root, 5, 2) && ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(strstr(ce_last_error_message(), "index entry missing") != NULL);
    CHECK(!index_erase(space, &root, 6, 1) && ce_last_error_code() == CE_ERR_CORRUPT);
    check_index(space, root, &m, 3);

    /* A visitor can stop a walk (true) or fail it (false, its error kept). */
    collected c = {.stop_after = 2};
    CHECK(index_for_each_in_range(space, root, INT64_MIN, INT64_MAX, collect, &c));
    CHECK(c.count == 2 && c.pairs[0].key == INT64_MIN && c.pairs[0].value == INT64_MIN);
    free(c.pairs);
    CHECK(!index_for_each_with_key(space, root, 5, failing_visitor, NULL) && ce_last_error_code() == CE_ERR_FAIL);
    CHECK(index_for_each_with_key(space, root, 6, failing_visitor, NULL)); /* no pair: not called */

    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    /* Failed calls on a committed index copy nothing: the commit verifies
     * (a copied-then-abandoned node would show as a leak or a lost range). */
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    CHECK(!index_insert(space, &root, 5, 0) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(!index_erase(space, &root, 7, 7) && ce_last_error_code() == CE_ERR_CORRUPT);
    CHECK(root == db_txn_root(txn));
    CHECK(index_insert(space, &root, 4, 4));
    model_insert(&m, (pair){4, 4});
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    CHECK(ce_txn_begin_read(db, &txn));
    check_index(db_txn_space(txn), db_txn_root(txn), &m, 10);
    ce_txn_end(txn);

    /* Erase everything: one empty leaf remains. */
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    while (m.count) {
        pair p = m.pairs[next_random() % m.count];
        CHECK(index_erase(space, &root, p.key, p.value));
        model_erase(&m, p);
        check_index(space, root, &m, 2);
    }
    node_view node;
    CHECK(node_read(space, root, &node) && node.flags == NODE_CONTEXT && node.count == 0);
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    free(m.pairs);
    test_db_close(&t);
}

/* Random inserts and erases in write transactions that commit or roll back,
 * in a key range small enough for many values per key. */
static void random_against_model(ce_db *db, int64_t key_range, int rounds, int steps)
{
    model m = {0}, committed = {0};
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    new_index(txn);
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    for (int round = 0; round < rounds; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        space_state *space = db_txn_space(txn);
        space_ref root = db_txn_root(txn);
        /* Mostly inserts in early rounds, mostly erases in late ones. */
        unsigned insert_share = round < rounds / 2 ? 7 : 4;
        for (int step = 0; step < steps; step++) {
            uint64_t choice = next_random() % 10;
            if (choice < insert_share || m.count == 0) {
                pair p = {random_key(key_range), random_value()};
                if (model_contains(&m, p)) {
                    CHECK(!index_insert(space, &root, p.key, p.value) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
                } else {
                    CHECK(index_insert(space, &root, p.key, p.value));
                    model_insert(&m, p);
                }
            } else if (choice < 9) {
                pair p = m.pairs[next_random() % m.count];
                CHECK(index_erase(space, &root, p.key, p.value));
                model_erase(&m, p);
            } else {
                pair p = {random_key(key_range), random_value()};
                if (!model_contains(&m, p))
                    CHECK(!index_erase(space, &root, p.key, p.value) && ce_last_error_code() == CE_ERR_CORRUPT);
            }
            if (step % 97 == 0) check_key(space, root, &m, m.count ? m.pairs[next_random() % m.count].key : 0);
        }
        check_index(space, root, &m, 20);
        CHECK(db_txn_set_root(txn, root));
        if (round % 4 == 3) {
            ce_txn_end(txn); /* rollback: the model goes back too */
            model_copy(&m, &committed);
        } else {
            CHECK(ce_txn_commit(txn));
            model_copy(&committed, &m);
        }
        test_verify(db);
        CHECK(ce_txn_begin_read(db, &txn));
        check_index(db_txn_space(txn), db_txn_root(txn), &m, 20);
        ce_txn_end(txn);
    }
    free(m.pairs);
    free(committed.pairs);
}

/* Many values per key, small leaves of keys. */
TEST(random_small_key_range)
{
    seed_random();
    test_db t = test_db_open("index");
    random_against_model(t.db, 8, 24, 400);
    test_db_close(&t);
}

/* Several levels. */
TEST(random_several_levels)
{
    seed_random();
    test_db t = test_db_open("index");
    random_against_model(t.db, 2000, 24, 3000);
    test_db_close(&t);
}

/* One key with values across many leaves, and neighbours on both sides:
 * the first value of a key may sit in a later leaf than the descent picks
 * (after the earlier ones were erased), and counts span leaves. */
TEST(many_values_per_key)
{
    seed_random();
    test_db t = test_db_open("index");
    ce_db *db = t.db;
    model m = {0};
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root = new_index(txn);
    for (int64_t key = -2; key <= 2; key++) {
        /* Values in a scrambled order, so leaves split in the middle. */
        for (int64_t i = 0; i < 1500; i++) {
            int64_t value = (i * 7919) % 1500;
            CHECK(index_insert(space, &root, key, value));
            model_insert(&m, (pair){key, value});
        }
    }
    check_index(space, root, &m, 10);
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    /* Erase the values of key 0 from the smallest up, checking each time. */
    for (int64_t value = 0; value < 1500; value++) {
        CHECK(index_erase(space, &root, 0, value));
        model_erase(&m, (pair){0, value});
        if (value % 16 == 0 || value > 1490) {
            check_key(space, root, &m, 0);
            check_key(space, root, &m, -1);
            check_key(space, root, &m, 1);
        }
    }
    check_index(space, root, &m, 10);
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    check_index(db_txn_space(txn), db_txn_root(txn), &m, 50);
    ce_txn_end(txn);
    free(m.pairs);
    test_db_close(&t);
}

typedef struct shape {
    size_t leaves, pairs, inner, max_depth_seen;
} shape;

static bool count_shape(void *context, space_ref ref, const node_view *node)
{
    (void)ref;
    shape *s = context;
    if (node->flags == NODE_CONTEXT) {
        s->leaves++;
        s->pairs += node->count / 2;
    } else if (node->flags & NODE_INNER) {
        s->inner++;
    }
    return true;
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* 1M ascending keys (the primary-key case): full leaves, every key found,
 * and the lookup timing. */
TEST(ascending_bulk)
{
    seed_random();
    test_db t = test_db_open("index");
    ce_db *db = t.db;
    const int64_t count = 1000000;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root = new_index(txn);
    double start = seconds_now();
    for (int64_t key = 0; key < count; key++) CHECK(index_insert(space, &root, key, key));
    double insert_seconds = seconds_now() - start;
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);

    CHECK(ce_txn_begin_read(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    shape s = {0};
    CHECK(node_walk_tree(space, root, 64, count_shape, &s));
    CHECK(s.pairs == (size_t)count);
    CHECK(s.leaves == ((size_t)count + INDEX_LEAF_MAX_PAIRS - 1) / INDEX_LEAF_MAX_PAIRS); /* full leaves */
    size_t size = 0;
    CHECK(index_size(space, root, &size) && size == (size_t)count);
    for (int64_t key = 0; key < count; key++) {
        int64_t value;
        bool found;
        CHECK(index_find_first(space, root, key, &value, &found) && found && value == key);
    }
    int64_t value;
    bool found;
    CHECK(index_find_first(space, root, -1, &value, &found) && !found);
    CHECK(index_find_first(space, root, count, &value, &found) && !found);

    /* The timing: random lookups in a read transaction after the commit. */
    const int lookups = 1000000;
    int64_t *keys = malloc(lookups * sizeof *keys);
    for (int i = 0; i < lookups; i++) keys[i] = (int64_t)(next_random() % (uint64_t)count);
    int64_t checksum = 0;
    double best = 1e9;
    for (int run = 0; run < 3; run++) {
        start = seconds_now();
        for (int i = 0; i < lookups; i++) {
            index_find_first(space, root, keys[i], &value, &found);
            checksum += value;
        }
        double elapsed = seconds_now() - start;
        if (elapsed < best) best = elapsed;
    }
    int64_t expected = 0;
    for (int i = 0; i < lookups; i++) expected += keys[i];
    CHECK(checksum == 3 * expected);
    printf("index: %lld ascending inserts in %.3f s (%.0f ns each); %zu leaves, %zu inner nodes\n", (long long)count,
           insert_seconds, insert_seconds * 1e9 / (double)count, s.leaves, s.inner);
    printf("index: index_find_first, %d random lookups in a %lld-entry index: %.1f ns per lookup (best of 3)\n", lookups,
           (long long)count, best * 1e9 / lookups);
    free(keys);
    ce_txn_end(txn);

    /* Range walks over the big index, then erase a stretch and every 3rd key. */
    CHECK(ce_txn_begin_write(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    collected c = {0};
    CHECK(index_for_each_in_range(space, root, 123456, 223455, collect, &c));
    CHECK(c.count == 100000);
    for (size_t i = 0; i < c.count; i++) CHECK(c.pairs[i].key == 123456 + (int64_t)i && c.pairs[i].value == c.pairs[i].key);
    free(c.pairs);
    for (int64_t key = 0; key < count; key += 3) CHECK(index_erase(space, &root, key, key));
    for (int64_t key = 500000; key < 600000; key++)
        if (key % 3 != 0) CHECK(index_erase(space, &root, key, key));
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_txn_begin_read(db, &txn));
    space = db_txn_space(txn);
    root = db_txn_root(txn);
    for (int64_t key = 0; key < count; key += 1 + (int64_t)(next_random() % 17)) {
        bool present = key % 3 != 0 && (key < 500000 || key >= 600000);
        CHECK(index_find_first(space, root, key, &value, &found) && found == present);
        if (present) CHECK(value == key);
        size_t n;
        CHECK(index_count_key(space, root, key, &n) && n == (present ? 1u : 0u));
    }
    size_t remaining = 0;
    for (int64_t key = 0; key < count; key++) remaining += key % 3 != 0 && (key < 500000 || key >= 600000);
    CHECK(index_size(space, root, &size) && size == remaining);
    ce_txn_end(txn);
    test_db_close(&t);
}

/* Descending and random bulk loads, checked against the model, then erased
 * to nothing in random order across several commits. */
TEST(bulk_orders)
{
    seed_random();
    test_db t = test_db_open("index");
    ce_db *db = t.db;
    const size_t count = 200000;
    pair *pairs = malloc(count * sizeof *pairs);
    for (int order = 0; order < 2; order++) {
        model m = {0};
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        space_state *space = db_txn_space(txn);
        space_ref root = new_index(txn);
        for (size_t i = 0; i < count; i++) {
            /* Random keys of 64 bits do not repeat here; values do. */
            pairs[i] = order == 0 ? (pair){(int64_t)(count - i), -(int64_t)i}
                                  : (pair){(int64_t)next_random(), (int64_t)(next_random() % 3)};
            CHECK(index_insert(space, &root, pairs[i].key, pairs[i].value));
        }
        model_set(&m, pairs, count);
        check_index(space, root, &m, 100);
        CHECK(db_txn_set_root(txn, root));
        CHECK(ce_txn_commit(txn));
        test_verify(db);
        CHECK(ce_txn_begin_read(db, &txn));
        check_index(db_txn_space(txn), db_txn_root(txn), &m, 100);
        ce_txn_end(txn);
        /* Erase in a shuffled order, 60000 a commit. */
        for (size_t i = count; i > 1; i--) {
            size_t j = next_random() % i;
            pair swap = pairs[i - 1];
            pairs[i - 1] = pairs[j];
            pairs[j] = swap;
        }
        for (size_t erased = 0; erased < count;) {
            CHECK(ce_txn_begin_write(db, &txn));
            space = db_txn_space(txn);
            root = db_txn_root(txn);
            for (size_t i = 0; i < 60000 && erased < count; i++, erased++)
                CHECK(index_erase(space, &root, pairs[erased].key, pairs[erased].value));
            model_set(&m, pairs + erased, count - erased);
            check_index(space, root, &m, 20);
            CHECK(db_txn_set_root(txn, root));
            CHECK(ce_txn_commit(txn));
            test_verify(db);
        }
        CHECK(ce_txn_begin_read(db, &txn));
        node_view node;
        CHECK(node_read(db_txn_space(txn), db_txn_root(txn), &node) && node.flags == NODE_CONTEXT && node.count == 0);
        ce_txn_end(txn);
        free(m.pairs);
    }
    free(pairs);
    test_db_close(&t);
}

/* --- damaged indexes --- */

static space_ref make_node(space_state *space, uint8_t flags, const int64_t *elements, size_t count)
{
    space_ref ref;
    CHECK(node_create(space, flags, count, 0, &ref));
    for (size_t i = 0; i < count; i++) CHECK(node_set(space, ref, i, elements[i]));
    return ref;
}

static space_ref make_leaf(space_state *space, int64_t first_key, size_t pairs)
{
    space_ref ref;
    CHECK(node_create(space, NODE_CONTEXT, 2 * pairs, 0, &ref));
    for (size_t i = 0; i < pairs; i++) {
        CHECK(node_set(space, ref, 2 * i, first_key + (int64_t)i));
        CHECK(node_set(space, ref, 2 * i + 1, 0));
    }
    return ref;
}

/* An inner node over `children`, with the given separators. */
static space_ref make_inner(space_state *space, const space_ref *children, size_t count, const int64_t *separators,
                         size_t separator_count)
{
    space_ref separator_node = make_node(space, 0, separators, separator_count);
    space_ref ref;
    CHECK(node_create(space, NODE_INNER | NODE_HAS_REFS, 1 + count, 0, &ref));
    CHECK(node_set(space, ref, 0, (int64_t)separator_node));
    for (size_t i = 0; i < count; i++) CHECK(node_set(space, ref, 1 + i, (int64_t)children[i]));
    return ref;
}

typedef enum damage {
    LEAF_WITHOUT_CONTEXT,
    LEAF_ODD_COUNT,
    LEAF_TOO_LARGE,
    LEAF_OUT_OF_ORDER,
    EMPTY_CHILD_LEAF,
    SEPARATOR_COUNT,
    SEPARATORS_OUT_OF_ORDER,
    SEPARATOR_FLAGS,
    TOO_MANY_CHILDREN,
    TAGGED_CHILD,
    TOO_DEEP,
    LEAVES_OVERLAP,
    DAMAGE_KINDS
} damage;

static space_ref build_damaged(space_state *space, damage kind)
{
    space_ref leaves[3] = {make_leaf(space, 0, 10), make_leaf(space, 100, 10), make_leaf(space, 200, 10)};
    int64_t separators[4] = {100, 0, 200, 0};
    switch (kind) {
    case LEAF_WITHOUT_CONTEXT: return make_node(space, 0, (int64_t[]){1, 2}, 2);
    case LEAF_ODD_COUNT: return make_node(space, NODE_CONTEXT, (int64_t[]){1, 2, 3}, 3);
    case LEAF_TOO_LARGE: {
        space_ref ref;
        CHECK(node_create(space, NODE_CONTEXT, 2 * INDEX_LEAF_MAX_PAIRS + 2, 0, &ref));
        return ref;
    }
    case LEAF_OUT_OF_ORDER: leaves[1] = make_node(space, NODE_CONTEXT, (int64_t[]){150, 0, 120, 0}, 4); break;
    case EMPTY_CHILD_LEAF: leaves[1] = make_node(space, NODE_CONTEXT, NULL, 0); break;
    case SEPARATOR_COUNT: return make_inner(space, leaves, 3, separators, 2);
    case SEPARATORS_OUT_OF_ORDER: separators[2] = 50; break;
    case SEPARATOR_FLAGS: {
        space_ref ref = make_inner(space, leaves, 3, separators, 4);
        node_view node;
        CHECK(node_read(space, ref, &node));
        CHECK(node_set_flags(space, (space_ref)node_get(&node, 0), NODE_CONTEXT));
        return ref;
    }
    case TOO_MANY_CHILDREN: {
        enum { CHILDREN = INDEX_INNER_MAX_CHILDREN + 1 };
        space_ref children[CHILDREN];
        int64_t bounds[2 * (CHILDREN - 1)];
        for (size_t i = 0; i < CHILDREN; i++) {
            children[i] = make_leaf(space, 10 * (int64_t)i, 1);
            if (i) bounds[2 * i - 2] = 10 * (int64_t)i, bounds[2 * i - 1] = 0;
        }
        return make_inner(space, children, CHILDREN, bounds, 2 * (CHILDREN - 1));
    }
    case TAGGED_CHILD: {
        space_ref ref = make_inner(space, leaves, 3, separators, 4);
        CHECK(node_set(space, ref, 2, node_tag(1000)));
        CHECK(node_free(space, leaves[1]));
        return ref;
    }
    case TOO_DEEP: {
        /* A chain of inner nodes of one child each, deeper than allowed. */
        space_ref ref = leaves[0];
        CHECK(node_free(space, leaves[1]) && node_free(space, leaves[2]));
        for (int level = 0; level < INDEX_MAX_DEPTH + 2; level++) ref = make_inner(space, &ref, 1, NULL, 0);
        return ref;
    }
    case LEAVES_OVERLAP: /* each node sound, the pairs repeat across leaves */
        CHECK(node_free(space, leaves[2]));
        leaves[2] = make_leaf(space, 105, 10);
        break;
    case DAMAGE_KINDS: break;
    }
    return make_inner(space, leaves, 3, separators, 4);
}

static void expect_corrupt(const char *what, damage kind)
{
    if (ce_last_error_code() != CE_ERR_CORRUPT || strstr(ce_last_error_message(), "offset") == NULL) {
        fprintf(stderr, "damage %d, %s: expected a corrupt error naming an offset, got [%d] %s\n", (int)kind, what,
                (int)ce_last_error_code(), ce_last_error_message());
        exit(1);
    }
}

/* Each kind of damage, committed to the file, then read and written: every
 * call that meets it fails with CE_ERR_CORRUPT naming an offset (or, for
 * order inside a node on the lookup path, answers without a bad read). */
TEST(damage)
{
    seed_random();
    test_db t = test_db_open("index");
    ce_db *db = t.db;
    for (int kind = 0; kind < DAMAGE_KINDS; kind++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_write(db, &txn));
        space_state *space = db_txn_space(txn);
        replace_root(txn, build_damaged(space, (damage)kind));
        CHECK(ce_txn_commit(txn));
        test_verify(db); /* sound nodes, an unsound index */

        CHECK(ce_txn_begin_read(db, &txn));
        space = db_txn_space(txn);
        space_ref root = db_txn_root(txn);
        size_t size;
        CHECK(!index_size(space, root, &size));
        expect_corrupt("index_size", (damage)kind);
        collected c = {0};
        CHECK(!index_for_each_in_range(space, root, INT64_MIN, INT64_MAX, collect, &c));
        expect_corrupt("index_for_each_in_range", (damage)kind);
        free(c.pairs);
        bool lookup_sees_it = kind != LEAF_OUT_OF_ORDER && kind != SEPARATORS_OUT_OF_ORDER && kind != EMPTY_CHILD_LEAF &&
                              kind != TAGGED_CHILD && kind != LEAVES_OVERLAP;
        for (int64_t key = -1; key < 300; key += 7) {
            int64_t value;
            bool found;
            size_t n;
            bool ok = index_find_first(space, root, key, &value, &found);
            if (lookup_sees_it) {
                CHECK(!ok);
                expect_corrupt("index_find_first", (damage)kind);
            } else if (!ok) {
                expect_corrupt("index_find_first", (damage)kind);
            }
            if (!index_count_key(space, root, key, &n)) expect_corrupt("index_count_key", (damage)kind);
        }
        ce_txn_end(txn);

        /* Writes refuse the damage before copying anything. */
        CHECK(ce_txn_begin_write(db, &txn));
        space = db_txn_space(txn);
        root = db_txn_root(txn);
        bool inserted = index_insert(space, &root, 105, 1);
        if (!inserted) expect_corrupt("index_insert", (damage)kind);
        bool erased = index_erase(space, &root, 105, 0);
        if (!erased) {
            CHECK(ce_last_error_code() == CE_ERR_CORRUPT);
            if (strstr(ce_last_error_message(), "missing") == NULL) expect_corrupt("index_erase", (damage)kind);
        }
        /* Damage on the path of (105, *) stops both; overlapping leaves are
         * sound on that path (the walks above found them). */
        if (kind != LEAVES_OVERLAP) CHECK(!inserted && !erased);
        ce_txn_end(txn);

        /* Remove it (generically: index_destroy refuses a damaged root). */
        CHECK(ce_txn_begin_write(db, &txn));
        root = db_txn_root(txn);
        if (kind == LEAF_WITHOUT_CONTEXT || kind == LEAF_ODD_COUNT || kind == LEAF_TOO_LARGE || kind == SEPARATOR_COUNT ||
            kind == SEPARATOR_FLAGS || kind == TOO_MANY_CHILDREN)
            CHECK(!index_destroy(db_txn_space(txn), root));
        CHECK(node_free_tree(db_txn_space(txn), root));
        CHECK(db_txn_set_root(txn, 0));
        CHECK(ce_txn_commit(txn));
        test_verify(db);
    }
    test_db_close(&t);
}

TEST(destroy)
{
    seed_random();
    test_db t = test_db_open("index");
    ce_db *db = t.db;
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root = new_index(txn);
    for (int64_t i = 0; i < 20000; i++) CHECK(index_insert(space, &root, (int64_t)(next_random() % 5000), i));
    CHECK(db_txn_set_root(txn, root));
    CHECK(ce_txn_commit(txn));
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(index_destroy(db_txn_space(txn), db_txn_root(txn)));
    CHECK(db_txn_set_root(txn, 0));
    CHECK(ce_txn_commit(txn));
    test_verify(db); /* every node freed */
    test_db_close(&t);
}
