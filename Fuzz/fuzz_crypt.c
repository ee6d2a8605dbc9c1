/*
 * fuzz_crypt.c — damaged encrypted files: a clean error every time, or the
 * data of a version the file committed; never a crash, a hang, undefined
 * behaviour or other data (docs/DESIGN.md §5, invariant 5).
 *
 * At start-up the harness writes two small encrypted databases with the
 * engine under a fixed 64-byte key: a list of integers (a B+tree, with free
 * space left by rewrites) and an object-store table (strings, an index),
 * and notes the contents of each one's last two versions (the two header
 * slots). The input is a damage program applied to a copy of one of them:
 *
 *   byte 0    bit 0     which base file
 *             bits 1-2  the key: 0, 1 the right one; 2 a wrong one (one bit
 *                       off); 3 none
 *             bit 3     after reading, commit a change and verify again
 *             bit 4     after reading, write a copy (re-keyed, or plain when
 *                       bit 6 is set) and read the copy back
 *             bit 5     a small page cache (64 pages: eviction all along)
 *             bit 6     see bit 4
 *   then 8-byte operations, byte 0 of each choosing (modulo 6):
 *     0  flip bit (byte 5 & 7) of the byte at offset (u32 at 1) % size
 *     1  truncate the file to (u32 at 1) % (size + 1) bytes
 *     2  swap pages (u16 at 1) and (u16 at 3) (modulo the page count); with
 *        byte 5 odd, their metadata entries too (as if moved whole)
 *     3  zero page (u16 at 1)
 *     4  write bytes 5-7 at offset (u32 at 1) % size
 *     5  copy page (u16 at 1) over page (u16 at 3)
 *
 * Reported as bugs: a crash, hang, leak or undefined behaviour (the
 * sanitizers and libFuzzer); a call that fails without an error code and
 * message; a wrong or missing key that opens the file; a file that opens,
 * verifies and reads but returns data other than one of its two versions;
 * a file that verified, took a commit that dropped nothing, and no longer
 * verifies; a copy that reads back other data than its source; a file
 * descriptor left open.
 */
#include "bptree.h"
#include "cengine.h"
#include "db.h"
#include "error.h"
#include "node.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u
#define OPERATION_SIZE 8u

enum {
    OPTION_BASE = 1,
    OPTION_KEY_SHIFT = 1,
    OPTION_COMMIT = 8,
    OPTION_COPY = 16,
    OPTION_SMALL_CACHE = 32,
    OPTION_PLAIN_COPY = 64,
};
enum { KEY_RIGHT_0, KEY_RIGHT_1, KEY_WRONG, KEY_NONE };

typedef struct base_file {
    uint8_t *bytes;
    size_t size;
    uint64_t versions[2]; /* fingerprints of the last two versions */
} base_file;

static char *work_directory, *database_path, *lock_path, *copy_path, *copy_lock_path;
static base_file bases[2];
static uint8_t key[64], wrong_key[64], copy_key[64];

__attribute__((noreturn)) static void harness_bug(const char *what, const char *call)
{
    fprintf(stderr, "fuzz_crypt: %s (%s); last error [%d] %s\n", what, call, (int)ce_last_error_code(),
            ce_last_error_message());
    abort();
}

static void clear_error(void) { error_fail(CE_OK, "%s", ""); }

static bool check(bool result, const char *call)
{
    if (result) return true;
    if (ce_last_error_code() == CE_OK || ce_last_error_message()[0] == '\0')
        harness_bug("a call failed without an error code and message", call);
    return false;
}
#define CALL(expression) (clear_error(), check((expression), #expression))

static void remove_work_directory(void)
{
    const char *files[] = {database_path, lock_path, copy_path, copy_lock_path};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i]) unlink(files[i]);
    if (work_directory) rmdir(work_directory);
}

/* No descriptor may remain open on a file of the work directory (the
 * database, its lock file, a copy, a temporary file, the directory). Other
 * descriptors are not the engine's: the sanitizers' symbolizer keeps pipes
 * open once it has run. */
static void check_descriptors(void)
{
    DIR *descriptors = opendir("/proc/self/fd");
    if (!descriptors) return; /* no /proc: nothing to check with */
    size_t prefix = strlen(work_directory);
    struct dirent *entry;
    while ((entry = readdir(descriptors)) != NULL) {
        char link[300], target[1024];
        snprintf(link, sizeof link, "/proc/self/fd/%s", entry->d_name);
        ssize_t length = readlink(link, target, sizeof target - 1);
        if (length <= 0) continue;
        target[length] = '\0';
        if (strncmp(target, work_directory, prefix) == 0) {
            fprintf(stderr, "fuzz_crypt: descriptor %s is open on %s\n", entry->d_name, target);
            harness_bug("a file descriptor was left open", "ce_db_open .. ce_db_close");
        }
    }
    closedir(descriptors);
}

/* --- contents --------------------------------------------------------- */

static bool hash_leaf(void *context, const node_view *leaf, size_t first_index, bool *stop)
{
    (void)first_index, (void)stop;
    uint64_t *hash = context;
    if (leaf->width == 0) return true;
    for (size_t i = 0; i < leaf->count; i++) *hash = (*hash ^ (uint64_t)node_get(leaf, i)) * 1099511628211ull;
    return true;
}

static uint64_t mix(uint64_t hash, const void *data, size_t length)
{
    const uint8_t *bytes = data;
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 1099511628211ull;
    return hash;
}

/* Base 0: the list; base 1: the table "Item". False with the error set if
 * reading failed. */
static bool fingerprint(ce_db *db, int base, uint64_t *out)
{
    ce_txn *txn;
    if (!CALL(ce_txn_begin_read(db, &txn))) return false;
    uint64_t hash = 1469598103934665603ull;
    bool ok = true;
    if (base == 0) {
        space_ref root = db_txn_root(txn);
        size_t size = 0;
        ok = !root || (CALL(bptree_size(db_txn_space(txn), root, &size)) &&
                       CALL(bptree_for_each_leaf(db_txn_space(txn), root, hash_leaf, &hash)));
        hash ^= size;
    } else {
        ce_table_key table;
        bool found = false;
        size_t count = 0, columns = 0;
        ok = CALL(ce_table_find(txn, "Item", &table, &found));
        if (ok && found) ok = CALL(ce_object_count(txn, table, &count)) && CALL(ce_property_count(txn, table, &columns));
        for (size_t i = 0; ok && i < count; i++) {
            ce_object_key object;
            ok = CALL(ce_object_key_at(txn, table, i, &object));
            hash = mix(hash, &object, sizeof object);
            for (ce_column_key column = 0; ok && column < columns; column++) {
                ce_value value;
                ok = CALL(ce_object_get(txn, table, object, column, &value));
                if (!ok) break;
                hash = mix(hash, &value.type, sizeof value.type);
                if (value.type == CE_TYPE_INT) hash = mix(hash, &value.integer, sizeof value.integer);
                if (value.type == CE_TYPE_STRING) hash = mix(hash, value.string.data, value.string.size);
            }
        }
        if (ok && found) {
            ce_value id = {.type = CE_TYPE_INT, .integer = 7};
            ce_object_key object;
            bool exists;
            ok = CALL(ce_object_find_primary_key(txn, table, &id, &object, &exists));
            hash = mix(hash, &exists, sizeof exists);
        }
        hash ^= count;
    }
    ce_txn_end(txn);
    *out = hash;
    return ok;
}

/* --- the base files --------------------------------------------------- */

static ce_db *open_database(const char *path, const uint8_t *with_key, uint64_t cache_bytes)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.encryption_key = with_key;
    options.encryption_key_size = with_key ? 64 : 0;
    options.encryption_cache_bytes = cache_bytes;
    ce_db *db = NULL;
    return CALL(ce_db_open(path, &options, &db)) ? db : NULL;
}

static void build_list(ce_db *db, uint64_t *versions)
{
    ce_txn *txn;
    space_ref root;
    if (!CALL(ce_txn_begin_write(db, &txn)) || !CALL(bptree_create(db_txn_space(txn), 0, &root)))
        harness_bug("cannot build the list base", "build_list");
    for (int i = 0; i < 5000; i++)
        if (!CALL(bptree_append(db_txn_space(txn), &root, (int64_t)i * 5 + 3))) harness_bug("append", "build_list");
    if (!CALL(db_txn_set_root(txn, root)) || !CALL(ce_txn_commit(txn))) harness_bug("commit", "build_list");
    for (int round = 0; round < 4; round++) {
        if (!CALL(ce_txn_begin_write(db, &txn))) harness_bug("begin", "build_list");
        root = db_txn_root(txn);
        for (int i = round; i < 5000; i += 300)
            if (!CALL(bptree_set(db_txn_space(txn), &root, (size_t)i, -(int64_t)i - round)))
                harness_bug("set", "build_list");
        if (!CALL(db_txn_set_root(txn, root)) || !CALL(ce_txn_commit(txn))) harness_bug("commit", "build_list");
        if (round >= 2 && !fingerprint(db, 0, &versions[round - 2])) harness_bug("fingerprint", "build_list");
    }
}

static void build_table(ce_db *db, uint64_t *versions)
{
    ce_txn *txn;
    ce_table_key table;
    if (!CALL(ce_txn_begin_write(db, &txn)) || !CALL(ce_table_add(txn, "Item", &table)))
        harness_bug("cannot build the table base", "build_table");
    ce_property_info properties[] = {
        {.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false},
        {.name = "name", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = true},
        {.name = "count", .type = CE_TYPE_INT, .nullable = true, .primary_key = false, .indexed = false},
    };
    for (int i = 0; i < 3; i++) {
        ce_column_key column;
        if (!CALL(ce_property_add(txn, table, &properties[i], &column))) harness_bug("property", "build_table");
    }
    for (int i = 0; i < 400; i++) {
        char name[40];
        snprintf(name, sizeof name, "item-%d-%s", i, i % 3 ? "short" : "a somewhat longer name");
        ce_value values[3] = {
            {.type = CE_TYPE_INT, .integer = i},
            {.type = CE_TYPE_STRING, .string = {name, strlen(name)}},
            i % 5 ? (ce_value){.type = CE_TYPE_INT, .integer = i * 3} : (ce_value){.type = CE_TYPE_NULL},
        };
        ce_object_key object;
        if (!CALL(ce_object_create_with_values(txn, table, values, 3, &object))) harness_bug("create", "build_table");
    }
    if (!CALL(ce_txn_commit(txn))) harness_bug("commit", "build_table");
    for (int round = 0; round < 2; round++) {
        if (!CALL(ce_txn_begin_write(db, &txn))) harness_bug("begin", "build_table");
        for (ce_object_key object = round; object < 400; object += 30) {
            ce_value count = {.type = CE_TYPE_INT, .integer = -object};
            if (!CALL(ce_object_set(txn, table, object, 2, &count))) harness_bug("set", "build_table");
        }
        if (!CALL(ce_txn_commit(txn))) harness_bug("commit", "build_table");
        if (!fingerprint(db, 1, &versions[round])) harness_bug("fingerprint", "build_table");
    }
}

static void make_base(int index)
{
    unlink(database_path);
    unlink(lock_path);
    ce_db *db = open_database(database_path, key, 0);
    if (!db) harness_bug("cannot create a base file", "make_base");
    if (index == 0) build_list(db, bases[index].versions);
    else build_table(db, bases[index].versions);
    if (!CALL(ce_db_close(db))) harness_bug("close", "make_base");
    int descriptor = open(database_path, O_RDONLY | O_CLOEXEC);
    struct stat status;
    if (descriptor < 0 || fstat(descriptor, &status) != 0) harness_bug("cannot read a base file", "make_base");
    bases[index].size = (size_t)status.st_size;
    bases[index].bytes = malloc(bases[index].size);
    if (!bases[index].bytes || pread(descriptor, bases[index].bytes, bases[index].size, 0) != (ssize_t)bases[index].size)
        harness_bug("cannot read a base file", "make_base");
    close(descriptor);
}

static void set_up(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base) base = "/tmp";
    size_t length = strlen(base) + 96;
    work_directory = malloc(length);
    database_path = malloc(length + 16);
    lock_path = malloc(length + 32);
    copy_path = malloc(length + 16);
    copy_lock_path = malloc(length + 32);
    if (!work_directory || !database_path || !lock_path || !copy_path || !copy_lock_path) abort();
    /* The pid in the name lets Fuzz/run.sh remove it after a crash. */
    snprintf(work_directory, length, "%s/openrealm-fuzz-crypt-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(work_directory)) {
        perror("fuzz_crypt: mkdtemp");
        abort();
    }
    snprintf(database_path, length + 16, "%s/input.db", work_directory);
    snprintf(lock_path, length + 32, "%s.lock", database_path);
    snprintf(copy_path, length + 16, "%s/copy.db", work_directory);
    snprintf(copy_lock_path, length + 32, "%s.lock", copy_path);
    atexit(remove_work_directory);
    for (int i = 0; i < 64; i++) {
        key[i] = (uint8_t)(i * 29 + 11);
        copy_key[i] = (uint8_t)(i * 31 + 5);
    }
    memcpy(wrong_key, key, 64);
    wrong_key[37] ^= 0x08;
    make_base(0);
    make_base(1);
    unlink(database_path);
    unlink(lock_path);
}

/* --- damage ----------------------------------------------------------- */

static uint32_t load_u32(const uint8_t *bytes) { return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24; }
static uint16_t load_u16(const uint8_t *bytes) { return (uint16_t)(bytes[0] | bytes[1] << 8); }

/* The metadata entry of physical page `page` (a data page), or SIZE_MAX. */
static size_t metadata_entry_of(size_t page)
{
    if (page < 4 || (page - 4) % 147 == 0) return SIZE_MAX;
    size_t group_start = page - 1 - ((page - 4) % 147 - 1);
    return group_start * PAGE + ((page - 4) % 147 - 1) * 28;
}

static void swap_bytes(uint8_t *a, uint8_t *b, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        uint8_t t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* Applies the operations to `file` (of capacity `*size`); returns the new size. */
static size_t apply_damage(uint8_t *file, size_t size, const uint8_t *program, size_t length)
{
    for (size_t at = 0; at + OPERATION_SIZE <= length && size > 0; at += OPERATION_SIZE) {
        const uint8_t *operation = program + at;
        size_t pages = size / PAGE;
        switch (operation[0] % 6) {
        case 0: file[load_u32(operation + 1) % size] ^= (uint8_t)(1u << (operation[5] & 7)); break;
        case 1: size = load_u32(operation + 1) % (size + 1); break;
        case 2:
            if (pages > 0) {
                size_t a = load_u16(operation + 1) % pages, b = load_u16(operation + 3) % pages;
                if (a == b) break;
                swap_bytes(file + a * PAGE, file + b * PAGE, PAGE);
                size_t entry_a = metadata_entry_of(a), entry_b = metadata_entry_of(b);
                if ((operation[5] & 1) && entry_a != SIZE_MAX && entry_b != SIZE_MAX && entry_a + 28 <= size &&
                    entry_b + 28 <= size)
                    swap_bytes(file + entry_a, file + entry_b, 28);
            }
            break;
        case 3:
            if (pages > 0) memset(file + (load_u16(operation + 1) % pages) * PAGE, 0, PAGE);
            break;
        case 4: {
            size_t offset = load_u32(operation + 1) % size;
            for (size_t i = 0; i < 3 && offset + i < size; i++) file[offset + i] = operation[5 + i];
            break;
        }
        default:
            if (pages > 0) {
                size_t from = load_u16(operation + 1) % pages, to = load_u16(operation + 3) % pages;
                memmove(file + to * PAGE, file + from * PAGE, PAGE);
            }
            break;
        }
    }
    return size;
}

static void write_file(const char *path, const uint8_t *bytes, size_t size)
{
    int descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = descriptor >= 0;
    for (size_t done = 0; ok && done < size;) {
        ssize_t written = write(descriptor, bytes + done, size - done);
        if (written <= 0) ok = false;
        else done += (size_t)written;
    }
    if (descriptor >= 0) close(descriptor);
    if (!ok) {
        perror("fuzz_crypt: cannot write the input file");
        abort();
    }
}

/* --- one input -------------------------------------------------------- */

/* Writes a copy of the damaged file and reads it back: it must hold what
 * the source read (or the copy must fail cleanly). */
static void check_copy(ce_db *db, int base, uint64_t expected, bool plain)
{
    unlink(copy_path);
    unlink(copy_lock_path);
    ce_copy_options options;
    ce_copy_options_init(&options);
    options.encryption_key = plain ? NULL : copy_key;
    options.encryption_key_size = plain ? 0 : 64;
    if (!CALL(ce_db_write_copy(db, copy_path, &options))) return;
    ce_db *copy = open_database(copy_path, plain ? NULL : copy_key, 0);
    if (!copy) harness_bug("a copy that was written does not open", "ce_db_open(copy)");
    ce_db_stats stats;
    uint64_t print;
    if (!CALL(ce_db_verify(copy, &stats)) || !fingerprint(copy, base, &print))
        harness_bug("a copy that was written does not verify or read", "ce_db_verify(copy)");
    if (print != expected) harness_bug("a copy holds other data than its source", "fingerprint(copy)");
    if (!CALL(ce_db_close(copy))) harness_bug("close of the copy failed", "ce_db_close");
    unlink(copy_path);
    unlink(copy_lock_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!work_directory) set_up();
    if (size == 0) return 0;
    uint8_t options = data[0];
    int base = options & OPTION_BASE;
    int key_mode = (options >> OPTION_KEY_SHIFT) & 3;
    const base_file *source = &bases[base];
    uint8_t *file = malloc(source->size);
    if (!file) abort();
    memcpy(file, source->bytes, source->size);
    size_t file_size = apply_damage(file, source->size, data + 1, size - 1);
    write_file(database_path, file, file_size);
    /* Damage that left no header slot at all (an empty file, both slot
     * pages zero) makes the file look like one whose first commit never
     * happened: the engine starts it anew, empty, with whatever key. */
    bool looks_new = file_size == 0;
    if (file_size >= 3 * PAGE) {
        looks_new = true;
        for (size_t i = PAGE; i < 3 * PAGE && looks_new; i++) looks_new = file[i] == 0;
    }
    free(file);
    unlink(lock_path);

    const uint8_t *open_key = key_mode == KEY_WRONG ? wrong_key : key_mode == KEY_NONE ? NULL : key;
    ce_db *db = open_database(database_path, open_key, (options & OPTION_SMALL_CACHE) ? 64 * PAGE : 0);
    if (open_key != key && db) {
        /* A wrong or missing key never opens an encrypted file, damaged or
         * not (only one the engine started anew). */
        if (!looks_new) harness_bug("a wrong or missing key opened the file", "ce_db_open");
        if (!CALL(ce_db_close(db))) harness_bug("close failed", "ce_db_close");
    } else if (db) {
        ce_db_stats stats;
        uint64_t print = 0;
        bool sound = CALL(ce_db_verify(db, &stats));
        bool readable = fingerprint(db, base, &print);
        if (sound && readable && print != source->versions[0] && print != source->versions[1] && !looks_new)
            harness_bug("a damaged file returned data of no version it committed", "fingerprint");
        if (readable && (options & OPTION_COPY)) check_copy(db, base, print, (options & OPTION_PLAIN_COPY) != 0);
        if (options & OPTION_COMMIT) {
            ce_txn *txn;
            bool committed = false;
            if (CALL(ce_txn_begin_write(db, &txn))) {
                space_state *space = db_txn_space(txn);
                space_ref root = db_txn_root(txn);
                bool ok = true;
                if (base == 0) {
                    ok = root && CALL(bptree_append(space, &root, 12345)) && CALL(db_txn_set_root(txn, root));
                } else {
                    ce_table_key table;
                    bool found = false;
                    ok = CALL(ce_table_find(txn, "Item", &table, &found)) && found;
                    ce_value values[3] = {{.type = CE_TYPE_INT, .integer = 1000000},
                                          {.type = CE_TYPE_STRING, .string = {"new", 3}},
                                          {.type = CE_TYPE_NULL}};
                    ce_object_key object;
                    ok = ok && CALL(ce_object_create_with_values(txn, table, values, 3, &object));
                }
                if (ok) committed = CALL(ce_txn_commit(txn));
                if (!committed) ce_txn_end(txn);
            }
            if (!CALL(ce_db_verify(db, &stats)) && sound && readable && committed)
                harness_bug("a file that verified does not verify after a commit", "ce_db_verify");
            uint64_t after;
            (void)fingerprint(db, base, &after);
        }
        if (!CALL(ce_db_close(db))) harness_bug("close failed with every transaction ended", "ce_db_close");
    }
    unlink(database_path);
    unlink(lock_path);
    check_descriptors();
    return 0;
}
