/*
 * make_corpus.c — writes the seed corpus of fuzz_open.
 *
 *   make_corpus <directory>      (the committed corpus is Fuzz/corpus/open)
 *
 * Seeds are what lets a fuzzer get past the magic numbers and checksums of
 * the header to the code behind them, so the corpus holds valid databases
 * built through the engine (an empty one, lists of integers as the user root
 * in one or several commits, one leaf or several, with and without refs, one
 * of the object store with links, collections, an embedded object and a
 * mixed value nested 40 levels deep), the
 * same with the variant byte of fuzz_open set (read-only, checksum repair,
 * other write operations), and damaged copies that each put the engine on
 * one error path: truncated files, flipped bytes in each header page, in the
 * top node, a leaf, an inner node, the free list, a torn last commit, blank
 * and random files, and structural damage that survives every checksum (a
 * cycle, a shared child, a leaf flagged as an inner node).
 *
 * Every file is cut to the logical size of its database (the engine grows
 * files by at least 1 MiB ahead of need; those zeros teach a fuzzer nothing).
 * The output is deterministic: regenerating it changes no file unless the
 * engine's format or placement changed.
 */
#include "bptree.h"
#include "cengine.h"
#include "checksum.h"
#include "db.h"
#include "node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The header layout of header.c: page 0 static, pages 1 and 2 the slots, page 3
 * the sync record. Repeated here to damage files precisely. */
enum {
    PAGE_BYTES = 4096,
    SLOT_A = PAGE_BYTES,
    SLOT_B = 2 * PAGE_BYTES,
    SYNC_PAGE = 3 * PAGE_BYTES,
    OPTIONS_OFFSET = PAGE_BYTES - 1, /* fuzz_open's variant byte */
};
#define SEED_STATIC 0x53544154ull

/* fuzz_open's variant bits. */
enum {
    OPTION_READ_ONLY = 1,
    OPTION_REPAIR_CHECKSUMS = 2,
    OPTION_SET = 1 << 2,
    OPTION_ERASE = 2 << 2,
    OPTION_INSERT_FRONT = 3 << 2,
    OPTION_HOLD_READER = 16,
    OPTION_NO_SYNC = 32,
    OPTION_EMPTY_COMMIT = 64,
};

/* The elements of a top node (db_internal.h). */
enum { TOP_USER_ROOT = 0, TOP_FREE_LIST = 1 };

typedef struct file_image {
    uint8_t *bytes;
    size_t size;
} file_image;

static const char *output_directory;
static char *scratch_directory;
static size_t files_written;
static size_t bytes_written;

static void fail(int line, const char *what)
{
    fprintf(stderr, "make_corpus.c:%d: %s; last error [%d] %s\n", line, what, (int)ce_last_error_code(),
            ce_last_error_message());
    exit(1);
}

#define REQUIRE(condition)                                                                                    \
    do {                                                                                                      \
        if (!(condition)) fail(__LINE__, #condition);                                                         \
    } while (0)

static uint64_t load_u64(const uint8_t *bytes)
{
    uint64_t value;
    memcpy(&value, bytes, 8);
    return value;
}
static void store_u64(uint8_t *bytes, uint64_t value) { memcpy(bytes, &value, 8); }
static void store_u32(uint8_t *bytes, uint32_t value) { memcpy(bytes, &value, 4); }

/* A fixed pseudo-random sequence (xorshift64*), so the output is reproducible. */
static uint64_t random_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    return random_state * 0x2545F4914F6CDD1Dull;
}

/* --- files ----------------------------------------------------------------- */

static char *path_in(const char *directory, const char *name)
{
    char *path = malloc(strlen(directory) + strlen(name) + 2);
    REQUIRE(path != NULL);
    sprintf(path, "%s/%s", directory, name);
    return path;
}

static file_image read_whole_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    REQUIRE(file != NULL);
    REQUIRE(fseek(file, 0, SEEK_END) == 0);
    long size = ftell(file);
    REQUIRE(size >= 0);
    rewind(file);
    file_image image = {malloc((size_t)size + 1), (size_t)size};
    REQUIRE(image.bytes != NULL);
    REQUIRE(fread(image.bytes, 1, image.size, file) == image.size);
    fclose(file);
    return image;
}

static void emit(const char *name, const file_image *image)
{
    char *path = path_in(output_directory, name);
    FILE *file = fopen(path, "wb");
    REQUIRE(file != NULL);
    REQUIRE(fwrite(image->bytes, 1, image->size, file) == image->size);
    REQUIRE(fclose(file) == 0);
    free(path);
    files_written++;
    bytes_written += image->size;
}

static file_image copy_image(const file_image *image)
{
    file_image copy = {malloc(image->size + 1), image->size};
    REQUIRE(copy.bytes != NULL);
    memcpy(copy.bytes, image->bytes, image->size);
    return copy;
}

/* Emits a copy of `image` with the variant byte of fuzz_open set. */
static void emit_with_options(const char *name, const file_image *image, uint8_t options)
{
    file_image copy = copy_image(image);
    REQUIRE(copy.size > OPTIONS_OFFSET);
    copy.bytes[OPTIONS_OFFSET] = options;
    emit(name, &copy);
    free(copy.bytes);
}

/* --- building databases through the engine --------------------------------- */

static ce_db *open_new(const char *name, ce_durability durability)
{
    char *path = path_in(scratch_directory, name);
    char *lock = malloc(strlen(path) + 6);
    REQUIRE(lock != NULL);
    sprintf(lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
    ce_db_options options;
    ce_db_options_init(&options);
    options.durability = durability;
    ce_db *db;
    REQUIRE(ce_db_open(path, &options, &db));
    free(path);
    free(lock);
    return db;
}

typedef enum list_change { CHANGE_APPEND, CHANGE_SET, CHANGE_ERASE } list_change;

/* One commit that changes the user root, a B+tree of integers (created with
 * `leaf_flags` if the file has none yet). */
static void commit_change(ce_db *db, uint8_t leaf_flags, list_change change, const int64_t *values, size_t count)
{
    ce_txn *txn;
    REQUIRE(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root = db_txn_root(txn);
    if (!root) REQUIRE(bptree_create(space, leaf_flags, &root));
    for (size_t i = 0; i < count; i++) {
        switch (change) {
        case CHANGE_APPEND: REQUIRE(bptree_append(space, &root, values[i])); break;
        case CHANGE_SET: REQUIRE(bptree_set(space, &root, (size_t)values[i], node_tag(7))); break;
        case CHANGE_ERASE: REQUIRE(bptree_erase(space, &root, (size_t)values[i])); break;
        }
    }
    REQUIRE(db_txn_set_root(txn, root));
    REQUIRE(ce_txn_commit(txn));
}

/* A commit that appends refs to byte nodes ("strings") and tagged integers
 * to a list whose leaves have NODE_HAS_REFS. */
static void commit_strings(ce_db *db, size_t count)
{
    ce_txn *txn;
    REQUIRE(ce_txn_begin_write(db, &txn));
    space_state *space = db_txn_space(txn);
    space_ref root = db_txn_root(txn);
    if (!root) REQUIRE(bptree_create(space, NODE_HAS_REFS, &root));
    for (size_t i = 0; i < count; i++) {
        if (i % 3 == 2) {
            REQUIRE(bptree_append(space, &root, node_tag((int64_t)i)));
            continue;
        }
        char text[64];
        int length = snprintf(text, sizeof text, "string number %zu of the seed corpus", i);
        space_ref string;
        REQUIRE(node_create_bytes(space, 0, text, (size_t)length, &string));
        REQUIRE(bptree_append(space, &root, (int64_t)string));
    }
    REQUIRE(db_txn_set_root(txn, root));
    REQUIRE(ce_txn_commit(txn));
}

/* A database of the object store (fuzz_open reads its group as any tree of
 * nodes): links, a list, a set and a dictionary, an embedded object, and a
 * mixed value of lists nested 40 levels deep with a link at the bottom,
 * a tree deeper than 64 nodes, and a packed string column. Two commits, the
 * second changing most. */
static void commit_objects(ce_db *db)
{
    ce_txn *txn;
    REQUIRE(ce_txn_begin_write(db, &txn));
    ce_table_key person, dog, address;
    REQUIRE(ce_table_add(txn, "Person", &person));
    REQUIRE(ce_table_add(txn, "Dog", &dog));
    REQUIRE(ce_table_add_embedded(txn, "Address", &address));
    ce_property_info properties[] = {
        {.name = "name", .type = CE_TYPE_STRING},
        {.name = "friend", .type = CE_TYPE_LINK, .nullable = true, .link_target = person},
        {.name = "dogs", .type = CE_TYPE_LINK, .collection = CE_COLLECTION_LIST, .link_target = dog},
        {.name = "tags", .type = CE_TYPE_STRING, .collection = CE_COLLECTION_SET},
        {.name = "scores", .type = CE_TYPE_DOUBLE, .collection = CE_COLLECTION_DICTIONARY},
        {.name = "any", .type = CE_TYPE_MIXED},
        {.name = "home", .type = CE_TYPE_LINK, .nullable = true, .link_target = address},
    };
    ce_column_key columns[7], street;
    for (int i = 0; i < 7; i++) REQUIRE(ce_property_add(txn, person, &properties[i], &columns[i]));
    ce_property_info street_info = {.name = "street", .type = CE_TYPE_STRING};
    REQUIRE(ce_property_add(txn, address, &street_info, &street));
    ce_object_key people[3], dogs[2], home;
    for (int i = 0; i < 3; i++) REQUIRE(ce_object_create(txn, person, NULL, &people[i]));
    for (int i = 0; i < 2; i++) REQUIRE(ce_object_create(txn, dog, NULL, &dogs[i]));
    ce_value text = {.type = CE_TYPE_STRING, .string = {"Ada", 3}};
    ce_value link = {.type = CE_TYPE_LINK, .link = {person, people[1]}};
    REQUIRE(ce_object_set(txn, person, people[0], columns[0], &text));
    REQUIRE(ce_object_set(txn, person, people[0], columns[1], &link));
    ce_collection *collection;
    REQUIRE(ce_collection_open(txn, person, people[0], columns[2], &collection));
    for (int i = 0; i < 3; i++) {
        ce_value to_dog = {.type = CE_TYPE_LINK, .link = {dog, dogs[i % 2]}};
        REQUIRE(ce_list_insert(collection, (size_t)i, &to_dog));
    }
    ce_collection_close(collection);
    REQUIRE(ce_collection_open(txn, person, people[0], columns[3], &collection));
    const char *tags[] = {"b", "a", "c"};
    for (int i = 0; i < 3; i++) {
        ce_value tag = {.type = CE_TYPE_STRING, .string = {tags[i], 1}};
        REQUIRE(ce_set_insert(collection, &tag, NULL));
    }
    ce_collection_close(collection);
    REQUIRE(ce_collection_open(txn, person, people[1], columns[4], &collection));
    ce_value score = {.type = CE_TYPE_DOUBLE, .double_value = 2.5};
    REQUIRE(ce_dictionary_set(collection, "math", 4, &score));
    REQUIRE(ce_dictionary_set(collection, "art", 3, &score));
    ce_collection_close(collection);
    REQUIRE(ce_object_create_embedded(txn, person, people[2], columns[6], &home));
    REQUIRE(ce_object_set(txn, address, home, street, &text));
    ce_value list = {.type = CE_TYPE_LIST}, first = {.type = CE_TYPE_INT, .integer = 0};
    REQUIRE(ce_object_set(txn, person, people[1], columns[5], &list));
    REQUIRE(ce_collection_open_mixed(txn, person, people[1], columns[5], &collection));
    for (int depth = 1; depth < 40; depth++) {
        ce_collection *inner;
        REQUIRE(ce_list_insert(collection, 0, &list));
        REQUIRE(ce_collection_open_nested(collection, &first, &inner));
        ce_collection_close(collection);
        collection = inner;
    }
    ce_value to_dog = {.type = CE_TYPE_LINK, .link = {dog, dogs[1]}};
    REQUIRE(ce_list_insert(collection, 0, &to_dog));
    ce_collection_close(collection);
    /* Objects created with their values are built a leaf at once: a
     * required string column in the packed form (see column.c). */
    ce_table_key note;
    ce_column_key note_text;
    REQUIRE(ce_table_add(txn, "Note", &note));
    REQUIRE(ce_property_add(txn, note, &(ce_property_info){.name = "text", .type = CE_TYPE_STRING}, &note_text));
    for (int i = 0; i < 20; i++) {
        char words[32];
        int length = snprintf(words, sizeof words, "note %d", i);
        ce_value note_value = {.type = CE_TYPE_STRING, .string = {words, (size_t)length}};
        ce_object_key created;
        REQUIRE(ce_object_create_with_values(txn, note, &note_value, 1, &created));
    }
    REQUIRE(ce_txn_commit(txn));

    REQUIRE(ce_txn_begin_write(db, &txn));
    REQUIRE(ce_object_delete(txn, dog, dogs[0]));         /* purged from the list */
    REQUIRE(ce_object_delete(txn, person, people[2]));    /* and its embedded address */
    REQUIRE(ce_collection_open(txn, person, people[1], columns[4], &collection));
    REQUIRE(ce_dictionary_erase(collection, "art", 3, NULL));
    ce_collection_close(collection);
    REQUIRE(ce_txn_commit(txn));
}

/* Verifies, closes, and returns the file cut to its logical size. */
static file_image finish(ce_db *db)
{
    ce_db_stats stats;
    REQUIRE(ce_db_verify(db, &stats));
    char *path = strdup(ce_db_path(db));
    REQUIRE(path != NULL);
    REQUIRE(ce_db_close(db));
    file_image image = read_whole_file(path);
    REQUIRE(stats.logical_size <= image.size);
    image.size = (size_t)stats.logical_size;
    char *lock = malloc(strlen(path) + 6);
    REQUIRE(lock != NULL);
    sprintf(lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
    free(lock);
    free(path);
    return image;
}

/* --- finding and changing nodes in an image -------------------------------- */

/* The offset of the slot that holds the newest version, and that version. */
static size_t latest_slot(const file_image *image, uint64_t *out_version)
{
    uint64_t version_a = load_u64(image->bytes + SLOT_A + 8), version_b = load_u64(image->bytes + SLOT_B + 8);
    *out_version = version_a > version_b ? version_a : version_b;
    return version_a > version_b ? SLOT_A : SLOT_B;
}

static space_ref top_ref_of(const file_image *image)
{
    uint64_t version;
    return load_u64(image->bytes + latest_slot(image, &version) + 16);
}

static node_view node_at(const file_image *image, space_ref ref)
{
    REQUIRE(ref + NODE_HEADER_SIZE <= image->size);
    const uint8_t *bytes = image->bytes + ref;
    node_view node = {0}; /* base 0: these files have no based nodes where it looks */
    node.flags = bytes[0];
    node.width = bytes[1] == 0 ? 0 : (uint8_t)(1u << (bytes[1] - 1));
    memcpy(&node.count, bytes + 4, 4);
    node.payload = bytes + NODE_HEADER_SIZE;
    return node;
}

static int64_t element_of(const file_image *image, space_ref ref, size_t index)
{
    node_view node = node_at(image, ref);
    REQUIRE(index < node.count);
    return node_get(&node, index);
}

/* The largest value an element of the node can hold (the engine packs each
 * node at the smallest width its values need, so a patch must fit it). */
static int64_t largest_element(const file_image *image, space_ref ref)
{
    node_view node = node_at(image, ref);
    REQUIRE(node.width >= 8);
    return node.width == 64 ? INT64_MAX : ((int64_t)1 << (node.width - 1)) - 1;
}

/* Overwrites one element in place; the node's width must hold the value. */
static void patch_element(file_image *image, space_ref ref, size_t index, int64_t value)
{
    node_view node = node_at(image, ref);
    REQUIRE(index < node.count && node.width >= 8);
    if (node.width < 64) {
        int64_t limit = (int64_t)1 << (node.width - 1);
        REQUIRE(value >= -limit && value < limit);
    }
    memcpy(image->bytes + ref + NODE_HEADER_SIZE + index * (node.width / 8), &value, node.width / 8);
}

static void emit_flipped(const char *name, const file_image *image, size_t offset, uint8_t mask)
{
    file_image copy = copy_image(image);
    REQUIRE(offset < copy.size);
    copy.bytes[offset] ^= mask;
    emit(name, &copy);
    free(copy.bytes);
}

static void emit_truncated(const char *name, const file_image *image, size_t size)
{
    file_image copy = {image->bytes, size < image->size ? size : image->size};
    emit(name, &copy);
}

static void emit_blank(const char *name, size_t size)
{
    file_image image = {calloc(1, size + 1), size};
    REQUIRE(image.bytes != NULL);
    emit(name, &image);
    free(image.bytes);
}

/* --- the corpus ------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
        return 2;
    }
    output_directory = argv[1];
    if (mkdir(output_directory, 0755) != 0 && errno != EEXIST)
        fail(__LINE__, "cannot create the output directory (its parent must exist)");
    const char *temporary = getenv("TMPDIR");
    scratch_directory = path_in(temporary ? temporary : "/tmp", "openrealm-make-corpus-XXXXXX");
    REQUIRE(mkdtemp(scratch_directory) != NULL);

    /* Valid databases. */
    file_image empty = finish(open_new("empty", CE_DURABILITY_FULL));
    emit("valid-empty", &empty);

    ce_db *db = open_new("small", CE_DURABILITY_FULL);
    int64_t small_values[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    commit_change(db, 0, CHANGE_APPEND, small_values, 10);
    file_image small = finish(db);
    emit("valid-small-list", &small);

    db = open_new("objects", CE_DURABILITY_FULL);
    commit_objects(db);
    file_image objects = finish(db);
    emit("valid-objects", &objects);
    free(objects.bytes);

    /* Several commits: appends, a set, an erase, so the free list has
     * entries of several versions. */
    db = open_new("commits", CE_DURABILITY_FULL);
    for (int commit = 0; commit < 4; commit++) {
        int64_t values[40];
        for (int i = 0; i < 40; i++) values[i] = commit * 1000 + i * 37 - 500;
        commit_change(db, 0, CHANGE_APPEND, values, 40);
    }
    int64_t set_positions[3] = {3, 70, 150};
    commit_change(db, 0, CHANGE_SET, set_positions, 3);
    int64_t erase_positions[2] = {10, 100};
    commit_change(db, 0, CHANGE_ERASE, erase_positions, 2);
    file_image commits = finish(db);
    emit("valid-commits", &commits);

    /* An inner root over three leaves, values of every width. */
    db = open_new("leaves", CE_DURABILITY_FULL);
    int64_t *many = malloc(2500 * sizeof *many);
    REQUIRE(many != NULL);
    for (int i = 0; i < 2500; i++) many[i] = (i % 5 == 0) ? i : (i % 5 == 1) ? -i : (int64_t)(i * 1009) % 30000;
    commit_change(db, 0, CHANGE_APPEND, many, 2500);
    int64_t middle[1] = {1500};
    commit_change(db, 0, CHANGE_SET, middle, 1);
    free(many);
    file_image leaves = finish(db);
    emit("valid-multi-leaf", &leaves);

    /* 64-bit values in one leaf. */
    db = open_new("wide", CE_DURABILITY_FULL);
    int64_t wide_values[6] = {INT64_MAX, INT64_MIN, 1ll << 40, -(1ll << 50), 42, -1};
    commit_change(db, 0, CHANGE_APPEND, wide_values, 6);
    file_image wide = finish(db);
    emit("valid-wide-values", &wide);

    /* Leaves with refs to byte nodes. */
    db = open_new("strings", CE_DURABILITY_FULL);
    commit_strings(db, 12);
    commit_strings(db, 6);
    file_image strings = finish(db);
    emit("valid-strings", &strings);

    /* Commits without fsync: slots list no runs. */
    db = open_new("no-sync", CE_DURABILITY_UNSAFE_NO_SYNC);
    commit_change(db, 0, CHANGE_APPEND, small_values, 10);
    commit_change(db, 0, CHANGE_APPEND, small_values, 5);
    file_image no_sync = finish(db);
    emit("valid-no-sync-commits", &no_sync);

    /* No sync record: the first opener checks the last commit's runs. */
    file_image unsynced = copy_image(&commits);
    memset(unsynced.bytes + SYNC_PAGE, 0, PAGE_BYTES);
    emit("valid-sync-record-missing", &unsynced);

    /* The same files under the other variants of fuzz_open. */
    emit_with_options("option-read-only", &commits, OPTION_READ_ONLY);
    emit_with_options("option-repair-checksums", &commits, OPTION_REPAIR_CHECKSUMS);
    emit_with_options("option-set-hold-reader", &leaves, OPTION_SET | OPTION_HOLD_READER);
    emit_with_options("option-erase", &leaves, OPTION_ERASE);
    emit_with_options("option-insert-front-no-sync", &strings, OPTION_INSERT_FRONT | OPTION_NO_SYNC);
    emit_with_options("option-repair-sync-missing", &unsynced, OPTION_REPAIR_CHECKSUMS | OPTION_ERASE);

    /* Truncated. */
    emit_truncated("truncated-one-page", &commits, PAGE_BYTES);
    emit_truncated("truncated-header-only", &commits, 4 * PAGE_BYTES);
    emit_truncated("truncated-half", &commits, (4 * PAGE_BYTES + commits.size) / 2 & ~(size_t)7);
    emit_truncated("truncated-last-node", &commits, commits.size - 8);

    /* Header damage. */
    uint64_t latest_version;
    size_t latest = latest_slot(&commits, &latest_version);
    size_t previous = latest == SLOT_A ? SLOT_B : SLOT_A;
    emit_flipped("static-magic-flipped", &commits, 3, 0x20);
    emit_flipped("static-checksum-flipped", &commits, 64, 0x01);
    file_image newer = copy_image(&commits);
    newer.bytes[8] = 2; /* format version 2, with a checksum that matches */
    store_u64(newer.bytes + 64, checksum_of(newer.bytes, 64, SEED_STATIC));
    emit("static-newer-format", &newer);
    free(newer.bytes);
    emit_flipped("slot-latest-top-flipped", &commits, latest + 16, 0x08);
    file_image both = copy_image(&commits);
    both.bytes[latest + 24] ^= 0x10;
    both.bytes[previous + 24] ^= 0x10;
    emit("slot-both-flipped", &both);
    free(both.bytes);
    emit_flipped("sync-record-flipped", &commits, SYNC_PAGE + 8, 0x01);

    /* Node damage (the sync record vouches for the data: no checksum stops it). */
    space_ref top = top_ref_of(&commits);
    space_ref root = (space_ref)element_of(&commits, top, TOP_USER_ROOT);
    space_ref free_list = (space_ref)element_of(&commits, top, TOP_FREE_LIST);
    emit_flipped("node-top-marker-flipped", &commits, top + 2, 0x01);
    emit_flipped("node-top-root-odd", &commits, top + NODE_HEADER_SIZE, 0x01);
    emit_flipped("node-root-count-high", &commits, root + 5, 0x40);
    emit_flipped("node-root-width-flipped", &commits, root + 1, 0x02);
    emit_flipped("node-root-payload-flipped", &commits, root + NODE_HEADER_SIZE + 5, 0x10);
    file_image overlapping = copy_image(&commits);
    patch_element(&overlapping, free_list, 0, (int64_t)root); /* a free range over a live node */
    emit("free-list-over-live-node", &overlapping);
    free(overlapping.bytes);
    file_image outside = copy_image(&commits);
    patch_element(&outside, free_list, 1, largest_element(&outside, free_list)); /* a free range past the end */
    emit("free-list-past-end", &outside);
    free(outside.bytes);

    /* A torn last commit: no sync record, a byte of the commit's data lost.
     * The previous slot must win. */
    file_image torn = copy_image(&unsynced);
    torn.bytes[root + NODE_HEADER_SIZE] ^= 0x01;
    emit("torn-last-commit", &torn);
    free(torn.bytes);

    /* Structure that passes every checksum. */
    space_ref inner = (space_ref)element_of(&leaves, top_ref_of(&leaves), TOP_USER_ROOT);
    REQUIRE(node_at(&leaves, inner).flags & NODE_INNER);
    space_ref first_leaf = (space_ref)element_of(&leaves, inner, 0);
    file_image cycle = copy_image(&leaves);
    patch_element(&cycle, inner, 2, (int64_t)inner); /* the second child is the root itself */
    emit("tree-cycle", &cycle);
    free(cycle.bytes);
    file_image shared = copy_image(&leaves);
    patch_element(&shared, inner, 2, (int64_t)first_leaf); /* two children share one leaf */
    emit("tree-shared-leaf", &shared);
    emit_with_options("tree-shared-leaf-erase", &shared, OPTION_ERASE);
    free(shared.bytes);
    file_image counts = copy_image(&leaves);
    patch_element(&counts, inner, 1, node_tag(5000)); /* a count larger than the leaf */
    emit("tree-wrong-count", &counts);
    free(counts.bytes);
    emit_flipped("tree-leaf-as-inner", &leaves, first_leaf, NODE_INNER | NODE_HAS_REFS);
    /* Width 0 costs 8 bytes whatever the count: a count of 2^31 must not
     * cost 2^31 steps or bytes of memory. */
    file_image zero_width = copy_image(&leaves);
    zero_width.bytes[inner + 1] = 0;
    store_u32(zero_width.bytes + inner + 4, 0x7FFFFFFE);
    emit("tree-inner-width-zero-huge-count", &zero_width);
    free(zero_width.bytes);
    zero_width = copy_image(&leaves);
    zero_width.bytes[first_leaf + 1] = 0;
    store_u32(zero_width.bytes + first_leaf + 4, 0x7FFFFFFF);
    emit_with_options("tree-leaf-width-zero-huge-count-insert", &zero_width, OPTION_INSERT_FRONT);
    free(zero_width.bytes);
    zero_width = copy_image(&commits);
    zero_width.bytes[free_list + 1] = 0;
    store_u32(zero_width.bytes + free_list + 4, 0x7FFFFFFE);
    emit("free-list-width-zero-huge-count", &zero_width);
    free(zero_width.bytes);
    space_ref wide_leaf = (space_ref)element_of(&wide, top_ref_of(&wide), TOP_USER_ROOT);
    file_image lookalike = copy_image(&wide);
    lookalike.bytes[wide_leaf] |= NODE_HAS_REFS;
    patch_element(&lookalike, wide_leaf, 0, (int64_t)(1ull << 62)); /* looks like a dirty node's ref */
    emit("tree-refs-to-memory", &lookalike);
    emit_with_options("tree-refs-to-memory-erase", &lookalike, OPTION_ERASE);
    free(lookalike.bytes);

    /* A chain of 20 inner nodes of 4 children each, every child the next
     * node of the chain: under 1 KiB, and 4^20 paths to its one leaf. The
     * nodes are added past the end; fuzz_open's checksum repair makes the
     * slot's new logical size stick. */
    file_image chain = {malloc(leaves.size + 20 * 24), leaves.size + 20 * 24};
    REQUIRE(chain.bytes != NULL);
    memcpy(chain.bytes, leaves.bytes, leaves.size);
    for (size_t level = 0; level < 20; level++) {
        space_ref ref = leaves.size + 24 * level;
        space_ref child = level + 1 < 20 ? ref + 24 : first_leaf;
        uint8_t *node = chain.bytes + ref;
        memset(node, 0, 24);
        node[0] = NODE_INNER | NODE_HAS_REFS;
        node[1] = 5; /* 16-bit elements */
        node[2] = 0x4E;
        node[3] = 0xA1;
        node[4] = 8;
        for (int child_index = 0; child_index < 4; child_index++) {
            int16_t pair[2] = {(int16_t)child, (int16_t)node_tag(1)};
            REQUIRE(child < 32768);
            memcpy(node + NODE_HEADER_SIZE + 4 * child_index, pair, 4);
        }
    }
    patch_element(&chain, top_ref_of(&chain), TOP_USER_ROOT, (int64_t)leaves.size);
    uint64_t chain_version;
    store_u64(chain.bytes + latest_slot(&chain, &chain_version) + 24, chain.size);
    emit_with_options("tree-shared-chain", &chain, OPTION_REPAIR_CHECKSUMS);
    emit_with_options("tree-shared-chain-erase", &chain, OPTION_REPAIR_CHECKSUMS | OPTION_ERASE);
    free(chain.bytes);
    emit_with_options("option-empty-commit", &commits, OPTION_EMPTY_COMMIT);

    /* Not databases. */
    emit_blank("blank-empty", 0);
    emit_blank("blank-one-page", PAGE_BYTES);
    emit_blank("blank-header", 4 * PAGE_BYTES);
    file_image noise = {malloc(5 * PAGE_BYTES), 5 * PAGE_BYTES};
    REQUIRE(noise.bytes != NULL);
    for (size_t i = 0; i < noise.size; i += 8) store_u64(noise.bytes + i, next_random());
    emit("random-bytes", &noise);
    memcpy(noise.bytes, commits.bytes, 4 * PAGE_BYTES); /* a good header over random data */
    emit("random-after-header", &noise);
    free(noise.bytes);

    rmdir(scratch_directory);
    printf("make_corpus: %zu files, %zu bytes in %s\n", files_written, bytes_written, output_directory);
    return 0;
}
