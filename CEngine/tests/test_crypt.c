/*
 * test_crypt.c — encrypted files (crypt.c, the encrypted pager;
 * docs/DESIGN.md §5).
 *
 *   - The cipher: every byte of the 64-byte key changes the derived keys;
 *     a page round-trips; a changed byte, tag, nonce or page number fails
 *     authentication.
 *   - Round trip: objects and a list written encrypted read back the same
 *     after reopening; the file holds none of the plaintext and none of the
 *     key; the handle keeps no byte of the key once open; key words
 *     left in the dead stack below the derivation (planted there, where a
 *     hash's frames lie) are overwritten before crypt_create returns.
 *   - Every key error at open, each with its own message: a wrong key (any
 *     one byte different), no key on an encrypted file, a key on a plain
 *     file, a key that is not 64 bytes; also for a second handle attaching
 *     while the first has the file open.
 *   - Damage: a bit flipped in every page of the file, pages swapped, the
 *     file truncated at many lengths: every read either fails with a clear
 *     error (naming the page for data pages) or returns exactly the
 *     original data; never a crash, never other data.
 *   - The page cache: opening a large file decrypts almost nothing; the
 *     cache stays within its bound across transactions, a transaction
 *     larger than the bound exceeds it only while it lasts, and a copy of a
 *     file larger than the cache stays within it.
 *   - Consistency: a handle with a warm cache sees every change made
 *     through another handle and through another process, while pages are
 *     rewritten; threads reading with a tiny cache while a writer commits
 *     only ever see whole versions.
 *   - Nonces: over many commits and a commit thrown away by a crash, no
 *     nonce is ever used for two different encryptions.
 *   - Re-keying through writeCopy: plain -> key A -> key B -> plain, each
 *     copy opening only with its own key; compaction keeps the key.
 */
#include "test_support.h"
#include "crypt.h"
#include "os.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define PAGE 4096u
#define GROUP_PAGES 146u

static uint64_t random_state = 0x5EC2E7;
static uint64_t next_random(void)
{
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static ce_db *open_with(const char *path, const uint8_t *key, size_t key_size, uint64_t cache_bytes)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.encryption_key = key;
    options.encryption_key_size = key_size;
    options.encryption_cache_bytes = cache_bytes;
    ce_db *db;
    CHECK(ce_db_open(path, &options, &db));
    return db;
}

static bool try_open(const char *path, const uint8_t *key, size_t key_size, ce_db **out_db)
{
    ce_db_options options;
    ce_db_options_init(&options);
    options.encryption_key = key;
    options.encryption_key_size = key_size;
    return ce_db_open(path, &options, out_db);
}

static void expect_open_error(const char *path, const uint8_t *key, size_t key_size, ce_error_code code,
                              const char *fragment)
{
    ce_db *db;
    if (try_open(path, key, key_size, &db)) {
        fprintf(stderr, "opening %s succeeded, expected [%d] '%s'\n", path, (int)code, fragment);
        exit(1);
    }
    if (ce_last_error_code() != code || !strstr(ce_last_error_message(), fragment)) {
        fprintf(stderr, "expected [%d] '%s', got [%d] %s\n", (int)code, fragment, (int)ce_last_error_code(),
                ce_last_error_message());
        exit(1);
    }
}

static uint8_t *read_whole_file(const char *path, size_t *out_size)
{
    FILE *file = fopen(path, "rb");
    CHECK(file != NULL);
    CHECK(fseek(file, 0, SEEK_END) == 0);
    long size = ftell(file);
    CHECK(size >= 0 && fseek(file, 0, SEEK_SET) == 0);
    uint8_t *bytes = malloc((size_t)size + 1);
    CHECK(fread(bytes, 1, (size_t)size, file) == (size_t)size);
    fclose(file);
    *out_size = (size_t)size;
    return bytes;
}

static void write_whole_file(const char *path, const uint8_t *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL);
    CHECK(fwrite(bytes, 1, size, file) == size);
    CHECK(fclose(file) == 0);
    char lock[4096];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
}

static bool contains(const uint8_t *haystack, size_t size, const void *needle, size_t length)
{
    for (size_t i = 0; i + length <= size; i++)
        if (memcmp(haystack + i, needle, length) == 0) return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Data                                                                      */
/* ------------------------------------------------------------------------ */

static bool hash_leaf(void *context, const node_view *leaf, size_t first_index, bool *stop)
{
    (void)first_index, (void)stop;
    uint64_t *hash = context;
    for (size_t i = 0; i < leaf->count; i++) *hash = (*hash ^ (uint64_t)node_get(leaf, i)) * 1099511628211ull;
    return true;
}

/* The list's contents as one number; false (with the error set) if reading
 * failed. */
static bool try_list_fingerprint(ce_db *db, uint64_t *out_print)
{
    ce_txn *txn;
    if (!ce_txn_begin_read(db, &txn)) return false;
    uint64_t hash = 1469598103934665603ull;
    size_t size = 0;
    bool ok = true;
    if (db_txn_root(txn)) {
        ok = bptree_size(db_txn_space(txn), db_txn_root(txn), &size) &&
             bptree_for_each_leaf(db_txn_space(txn), db_txn_root(txn), hash_leaf, &hash);
    }
    ce_txn_end(txn);
    *out_print = hash ^ size;
    return ok;
}

static uint64_t list_fingerprint(ce_db *db)
{
    uint64_t print;
    CHECK(try_list_fingerprint(db, &print));
    return print;
}

/* A list of `count` integers (value i * 7 + 1), then rewrites that free and
 * reuse space, on a file opened with `key`. */
static void make_list(const char *path, const uint8_t *key, int count)
{
    ce_db *db = open_with(path, key, key ? 64 : 0, 0);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (int i = 0; i < count; i++) test_list_append(txn, (int64_t)i * 7 + 1);
    CHECK(ce_txn_commit(txn));
    for (int round = 0; round < 5; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = round * 17; i < count; i += 911) test_list_set(txn, (size_t)i, (int64_t)i * 7 + 1);
        CHECK(ce_txn_commit(txn));
    }
    test_verify(db);
    CHECK(ce_db_close(db));
}

static void make_objects(ce_db *db, int count)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    CHECK(ce_table_add(txn, "Person", &table));
    ce_property_info properties[] = {
        {.name = "id", .type = CE_TYPE_INT, .nullable = false, .primary_key = true, .indexed = false},
        {.name = "name", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = false},
        {.name = "score", .type = CE_TYPE_DOUBLE, .nullable = false, .primary_key = false, .indexed = false},
    };
    for (int i = 0; i < 3; i++) {
        ce_column_key column;
        CHECK(ce_property_add(txn, table, &properties[i], &column));
    }
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "secret-name-%d", i);
        ce_value values[3] = {
            {.type = CE_TYPE_INT, .integer = i + 1},
            {.type = CE_TYPE_STRING, .string = {name, strlen(name)}},
            {.type = CE_TYPE_DOUBLE, .double_value = i * 0.25},
        };
        ce_object_key key;
        CHECK(ce_object_create_with_values(txn, table, values, 3, &key));
    }
    CHECK(ce_txn_commit(txn));
}

static void check_objects(ce_db *db, int count)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    size_t objects;
    CHECK(ce_object_count(txn, table, &objects) && objects == (size_t)count);
    for (int i = 0; i < count; i += 7) {
        ce_value id = {.type = CE_TYPE_INT, .integer = i + 1}, name, score;
        ce_object_key key;
        CHECK(ce_object_find_primary_key(txn, table, &id, &key, &found) && found);
        CHECK(ce_object_get(txn, table, key, 1, &name) && ce_object_get(txn, table, key, 2, &score));
        char expected[32];
        snprintf(expected, sizeof expected, "secret-name-%d", i);
        CHECK(name.type == CE_TYPE_STRING && name.string.size == strlen(expected) &&
              memcmp(name.string.data, expected, name.string.size) == 0);
        CHECK(score.type == CE_TYPE_DOUBLE && score.double_value == i * 0.25);
    }
    ce_txn_end(txn);
}

/* ------------------------------------------------------------------------ */
/* The cipher                                                                */
/* ------------------------------------------------------------------------ */

TEST(cipher)
{
    uint8_t key[64], salt[16], check[16], other_check[16];
    memcpy(key, test_fixed_key(3), 64);
    memset(salt, 0x5A, sizeof salt);
    crypt_state *crypt, *other;
    CHECK(crypt_create(key, salt, &crypt, check));
    /* Every byte of the key matters (HKDF over all 64 bytes). */
    for (int i = 0; i < 64; i++) {
        key[i] ^= 0x01;
        CHECK(crypt_create(key, salt, &other, other_check));
        CHECK(memcmp(check, other_check, sizeof check) != 0);
        crypt_destroy(other);
        key[i] ^= 0x01;
    }
    /* So does the salt: the same key gives other keys in another file. */
    salt[15] ^= 1;
    CHECK(crypt_create(key, salt, &other, other_check) && memcmp(check, other_check, sizeof check) != 0);
    crypt_destroy(other);
    salt[15] ^= 1;

    uint8_t plain[PAGE], cipher[PAGE], back[PAGE], nonce[12], tag[16];
    for (size_t i = 0; i < PAGE; i++) plain[i] = (uint8_t)(i * 31 + 7);
    CHECK(crypt_random(nonce, sizeof nonce));
    CHECK(crypt_encrypt_page(crypt, 77, nonce, plain, cipher, tag));
    CHECK(memcmp(plain, cipher, PAGE) != 0);
    bool authentic;
    CHECK(crypt_decrypt_page(crypt, 77, nonce, tag, cipher, back, &authentic) && authentic);
    CHECK(memcmp(plain, back, PAGE) == 0);
    /* In place too. */
    memcpy(back, cipher, PAGE);
    CHECK(crypt_decrypt_page(crypt, 77, nonce, tag, back, back, &authentic) && authentic && memcmp(plain, back, PAGE) == 0);
    /* A clone decrypts what the original encrypted. */
    CHECK(crypt_clone(crypt, &other));
    CHECK(crypt_decrypt_page(other, 77, nonce, tag, cipher, back, &authentic) && authentic);
    crypt_destroy(other);
    /* Any change fails authentication. */
    cipher[1234] ^= 0x10;
    CHECK(crypt_decrypt_page(crypt, 77, nonce, tag, cipher, back, &authentic) && !authentic);
    cipher[1234] ^= 0x10;
    CHECK(crypt_decrypt_page(crypt, 78, nonce, tag, cipher, back, &authentic) && !authentic); /* another page */
    nonce[0] ^= 1;
    CHECK(crypt_decrypt_page(crypt, 77, nonce, tag, cipher, back, &authentic) && !authentic);
    nonce[0] ^= 1;
    tag[15] ^= 0x80;
    CHECK(crypt_decrypt_page(crypt, 77, nonce, tag, cipher, back, &authentic) && !authentic);
    tag[15] ^= 0x80;
    CHECK(crypt_decrypt_page(crypt, 77, nonce, tag, cipher, back, &authentic) && authentic);
    /* Another key fails. */
    key[0] ^= 0xFF;
    CHECK(crypt_create(key, salt, &other, other_check));
    CHECK(crypt_decrypt_page(other, 77, nonce, tag, cipher, back, &authentic) && !authentic);
    crypt_destroy(other);
    /* The MAC depends on every byte. */
    uint8_t mac[32], mac2[32];
    CHECK(crypt_mac(crypt, plain, 100, mac));
    plain[99] ^= 1;
    CHECK(crypt_mac(crypt, plain, 100, mac2) && memcmp(mac, mac2, 32) != 0);
    crypt_destroy(crypt);
}

/* ------------------------------------------------------------------------ */
/* Round trip, key errors, key handling                                      */
/* ------------------------------------------------------------------------ */

TEST(round_trip)
{
    char *dir = test_make_dir("crypt");
    char *path = test_path(dir, "round.realm");
    uint8_t key[64];
    memcpy(key, test_fixed_key(0), 64);
    uint8_t key_copy[64];
    memcpy(key_copy, key, 64);
    ce_db *db = open_with(path, key, 64, 0);
    CHECK(!db_holds_key(db));                    /* wiped once derived */
    CHECK(memcmp(key, key_copy, 64) == 0);       /* the caller's buffer is the caller's */
    make_objects(db, 3000);
    check_objects(db, 3000);
    test_verify(db);
    CHECK(ce_db_close(db));

    db = open_with(path, key, 64, 0);
    CHECK(!db_holds_key(db));
    check_objects(db, 3000);
    test_verify(db);
    /* More commits on the reopened file. */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    ce_table_key table;
    bool found;
    CHECK(ce_table_find(txn, "Person", &table, &found) && found);
    ce_value score = {.type = CE_TYPE_DOUBLE, .double_value = -1};
    CHECK(ce_object_set(txn, table, 0, 2, &score));
    CHECK(ce_txn_commit(txn));
    test_verify(db);
    CHECK(ce_db_close(db));

    /* The file holds no plaintext and no key. */
    size_t size;
    uint8_t *bytes = read_whole_file(path, &size);
    CHECK(!contains(bytes, size, "secret-name-", 12));
    CHECK(!contains(bytes, size, "Person", 6));
    CHECK(!contains(bytes, size, key, 16) && !contains(bytes, size, key + 48, 16));
    uint32_t flags;
    memcpy(&flags, bytes + 12, 4);
    CHECK(memcmp(bytes, "OREALMDB", 8) == 0 && flags == 1);
    free(bytes);
    /* The same data in a plain file does show it (so the check can fail). */
    char *plain_path = test_path(dir, "round-plain.realm");
    db = open_with(plain_path, NULL, 0, 0);
    make_objects(db, 10);
    CHECK(ce_db_close(db));
    bytes = read_whole_file(plain_path, &size);
    CHECK(contains(bytes, size, "secret-name-", 12));
    free(bytes);
    free(plain_path);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Opens an encrypted file (creating it the first time) and closes it, in a
 * frame of its own: what the calls below it used is dead stack afterwards. */
static __attribute__((noinline)) void open_and_close(const char *path, const uint8_t *key)
{
    ce_db *db = open_with(path, key, 64, 0);
    CHECK(ce_db_close(db));
}

/* Whether the dead stack below this frame (up to 48 KiB down) holds the
 * `length` bytes of `pattern`. Reads below the stack pointer on purpose
 * (mapped: the calls before used it), so not instrumented. */
static __attribute__((noinline, no_sanitize("address"))) bool dead_stack_holds(const uint8_t *pattern, size_t length)
{
    const volatile uint8_t *top = (const volatile uint8_t *)(uintptr_t)__builtin_frame_address(0);
    for (size_t offset = 512; offset < (48u << 10); offset++) {
        const volatile uint8_t *at = top - offset;
        size_t k = 0;
        while (k < length && at[k] == pattern[k]) k++;
        if (k == length) return true;
    }
    return false;
}

/* Invariant 7: after a close, no 8 bytes of the key remain on the stack
 * (OpenSSL's HKDF left bytes 48-63, its SHA-256 message schedule, in a
 * dead frame; crypt_create overwrites the stack below it). */
TEST(key_leaves_no_trace_on_the_stack)
{
    char *dir = test_make_dir("crypt-stack");
    char *path = test_path(dir, "stack.realm");
    const uint8_t *key = test_fixed_key(3);
    for (int round = 0; round < 2; round++) { /* create, then reopen */
        open_and_close(path, key);
        /* Any 8 bytes of the key, as they are or as SHA-256's
         * big-endian words. */
        for (size_t from = 0; from + 8 <= 64; from += 4) {
            uint8_t swapped[8];
            for (int k = 0; k < 4; k++) swapped[k] = key[from + 3 - k], swapped[4 + k] = key[from + 7 - k];
            CHECK(!dead_stack_holds(key + from, 8));
            CHECK(!dead_stack_holds(swapped, 8));
        }
    }
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* The dead stack crypt_create's callees may leave key words in: from
 * PLANT_SKIP_BYTES below the caller's frame (crypt_create's own frame and
 * its caller's lie above) down PLANT_BYTES more, well inside the 32 KiB
 * crypt_create overwrites below its frame. */
#define PLANT_SKIP_BYTES (2u << 10)
#define PLANT_BYTES (16u << 10)

/* Fills the stack from PLANT_SKIP_BYTES below the caller's frame down
 * PLANT_BYTES with copies of the key: what a SHA-256 block function that
 * keeps its message schedule in its frame leaves there (the residue
 * OpenSSL left on the machine that found it, and that does not reproduce
 * on every CPU: SHA-NI keeps the schedule in registers). */
static __attribute__((noinline)) void plant_key_below(const uint8_t key[CRYPT_KEY_SIZE])
{
    volatile uint8_t region[PLANT_SKIP_BYTES + PLANT_BYTES];
    for (size_t i = 0; i < PLANT_BYTES; i++) region[i] = key[i % CRYPT_KEY_SIZE]; /* the lowest addresses */
    __asm__ volatile("" : : "r"(region) : "memory");
}

/* Derives keys with crypt_create from a frame at the planter's depth. */
static __attribute__((noinline)) crypt_state *derive_keys(const uint8_t key[CRYPT_KEY_SIZE])
{
    uint8_t salt[CRYPT_SALT_SIZE], check[CRYPT_CHECK_SIZE];
    for (size_t i = 0; i < sizeof salt; i++) salt[i] = (uint8_t)(0xC0 + i);
    crypt_state *crypt = NULL;
    CHECK(crypt_create(key, salt, &crypt, check));
    return crypt;
}

/* Any 8 bytes of the key, plain or as SHA-256's big-endian words, in the
 * dead stack below the caller (dead_stack_holds). */
static bool dead_stack_holds_key(const uint8_t key[CRYPT_KEY_SIZE])
{
    for (size_t from = 0; from + 8 <= CRYPT_KEY_SIZE; from += 4) {
        uint8_t swapped[8];
        for (int k = 0; k < 4; k++) swapped[k] = key[from + 3 - k], swapped[4 + k] = key[from + 7 - k];
        if (dead_stack_holds(key + from, 8) || dead_stack_holds(swapped, 8)) return true;
    }
    return false;
}

/* Invariant 7, whatever the hash leaves: key words in the dead stack where
 * the derivation's callees run are gone once crypt_create returns (it
 * overwrites 32 KiB below its frame). The planted copies are found when
 * nothing overwrites them, so the check can fail: removing the wipe from
 * crypt_create fails this test. */
TEST(key_derivation_wipes_the_stack_below)
{
    const uint8_t *key = test_fixed_key(7);
    plant_key_below(key);
    CHECK(dead_stack_holds_key(key)); /* planted where the scan looks */
    plant_key_below(key);
    crypt_state *crypt = derive_keys(key);
    bool held = dead_stack_holds_key(key);
    crypt_destroy(crypt);
    CHECK(!held);
}

TEST(key_errors)
{
    char *dir = test_make_dir("crypt");
    char *encrypted = test_path(dir, "keys.realm");
    char *plain = test_path(dir, "keys-plain.realm");
    const uint8_t *key = test_fixed_key(0);
    make_list(encrypted, key, 5000);
    make_list(plain, NULL, 5000);
    uint8_t wrong[64];
    memcpy(wrong, key, 64);

    for (int attached = 0; attached < 2; attached++) {
        /* attached: a second handle attaches while a first has it open. */
        ce_db *first = attached ? open_with(encrypted, key, 64, 0) : NULL;
        ce_db *first_plain = attached ? open_with(plain, NULL, 0, 0) : NULL;
        for (int i = 0; i < 64; i += attached ? 21 : 1) {
            wrong[i] ^= 0x40;
            expect_open_error(encrypted, wrong, 64, CE_ERR_INVALID_DATABASE,
                              "decryption failed: the encryption key is not the key");
            wrong[i] ^= 0x40;
        }
        expect_open_error(encrypted, NULL, 0, CE_ERR_INVALID_DATABASE,
                          "decryption failed: '");
        expect_open_error(encrypted, NULL, 0, CE_ERR_INVALID_DATABASE, "is encrypted and no encryption key was given");
        expect_open_error(plain, key, 64, CE_ERR_INVALID_DATABASE,
                          "is not encrypted, but an encryption key was given");
        expect_open_error(encrypted, key, 63, CE_ERR_INVALID_ARGUMENT, "must be 64 bytes long (it is 63)");
        expect_open_error(encrypted, key, 65, CE_ERR_INVALID_ARGUMENT, "must be 64 bytes long (it is 65)");
        expect_open_error(plain, NULL, 64, CE_ERR_INVALID_ARGUMENT, "encryption_key is NULL");
        /* The right key still opens it, and sees the data. */
        ce_db *db = open_with(encrypted, key, 64, 0);
        uint64_t print = list_fingerprint(db);
        CHECK(ce_db_close(db));
        if (first) {
            CHECK(list_fingerprint(first) == print);
            CHECK(ce_db_close(first));
            CHECK(ce_db_close(first_plain));
        }
    }
    /* A failed open leaves no lock file behind when it was the only one. */
    char *lock = test_path(dir, "keys.realm.lock");
    unlink(lock);
    wrong[0] ^= 1;
    expect_open_error(encrypted, wrong, 64, CE_ERR_INVALID_DATABASE, "decryption failed");
    CHECK(access(lock, F_OK) != 0);
    free(lock);
    free(encrypted);
    free(plain);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Damage                                                                    */
/* ------------------------------------------------------------------------ */

/* Opens, verifies and reads the damaged file: an error, or exactly the
 * original data. Returns 1 if an error was reported. */
static int judge_damaged(const char *path, const uint8_t *key, uint64_t original, bool data_page, const char *what)
{
    ce_db *db;
    bool ok = try_open(path, key, 64, &db);
    uint64_t print = 0;
    if (ok) {
        ce_db_stats stats;
        ok = ce_db_verify(db, &stats) && try_list_fingerprint(db, &print);
        CHECK(ce_db_close(db));
    }
    if (ok) {
        if (print != original) {
            fprintf(stderr, "%s: the damaged file returned other data\n", what);
            exit(1);
        }
        return 0;
    }
    ce_error_code code = ce_last_error_code();
    const char *message = ce_last_error_message();
    if ((code != CE_ERR_INVALID_DATABASE && code != CE_ERR_CORRUPT) || message[0] == '\0') {
        fprintf(stderr, "%s: unexpected error [%d] %s\n", what, (int)code, message);
        exit(1);
    }
    /* A data page that fails authentication is named. */
    if (data_page && !(strstr(message, "page ") && (strstr(message, "failed authentication") || strstr(message, "missing")))) {
        fprintf(stderr, "%s: the error does not name the page: %s\n", what, message);
        exit(1);
    }
    return 1;
}

/* The logical pages that hold a node of the user root's tree (a flip
 * there must fail: the page is read, and fails authentication). */
typedef struct live_pages {
    bool *pages;
    size_t count;
    uint64_t end;
} live_pages;

static bool note_live(void *context, space_ref ref, const node_view *node)
{
    live_pages *live = context;
    uint64_t end = ref + node_size(node);
    for (uint64_t page = ref / PAGE; page <= (end - 1) / PAGE && page < live->count; page++) live->pages[page] = true;
    if (end > live->end) live->end = end;
    return true;
}

static size_t physical_page_of(size_t logical_page)
{
    return 4 + (logical_page - 4) / GROUP_PAGES * (GROUP_PAGES + 1) + 1 + (logical_page - 4) % GROUP_PAGES;
}

static bool is_data_page(size_t physical_page) { return physical_page >= 4 && (physical_page - 4) % (GROUP_PAGES + 1) != 0; }

static size_t logical_page_of(size_t physical_page)
{
    return 4 + (physical_page - 4) / (GROUP_PAGES + 1) * GROUP_PAGES + (physical_page - 4) % (GROUP_PAGES + 1) - 1;
}

TEST(damage)
{
    char *dir = test_make_dir("crypt");
    char *path = test_path(dir, "damage.realm");
    char *work = test_path(dir, "damage-work.realm");
    const uint8_t *key = test_fixed_key(0);
    make_list(path, key, 120000);
    ce_db *db = open_with(path, key, 64, 0);
    uint64_t original = list_fingerprint(db);
    size_t size;
    uint8_t *bytes = read_whole_file(path, &size);
    size_t pages = size / PAGE;
    live_pages live = {calloc(pages * 2, sizeof(bool)), pages * 2, 0};
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    CHECK(node_walk_tree(db_txn_space(txn), db_txn_root(txn), 64, note_live, &live));
    ce_txn_end(txn);
    CHECK(ce_db_close(db));
    uint8_t *damaged = malloc(size);

    /* A flipped bit in every page, at a random place. */
    int errors = 0, required = 0;
    for (size_t page = 0; page < pages; page++) {
        memcpy(damaged, bytes, size);
        size_t offset = page * PAGE + (size_t)(next_random() % PAGE);
        damaged[offset] ^= (uint8_t)(1u << (next_random() % 8));
        write_whole_file(work, damaged, size);
        bool data = is_data_page(page);
        char what[64];
        snprintf(what, sizeof what, "bit flip at %zu", offset);
        int error = judge_damaged(work, key, original, data, what);
        errors += error;
        if (data && live.pages[logical_page_of(page)]) {
            required++;
            if (!error) {
                fprintf(stderr, "%s: a live page was damaged and nothing failed\n", what);
                exit(1);
            }
        }
    }
    /* The metadata entries of every data page: nonce and tag bytes. */
    int metadata_errors = 0;
    for (size_t page = 4; page < pages; page++) {
        if (!is_data_page(page)) continue;
        size_t logical = logical_page_of(page);
        size_t group_start = page - 1 - (logical - 4) % GROUP_PAGES;
        memcpy(damaged, bytes, size);
        damaged[group_start * PAGE + ((logical - 4) % GROUP_PAGES) * 28 + (size_t)(next_random() % 28)] ^= 0x04;
        write_whole_file(work, damaged, size);
        int error = judge_damaged(work, key, original, true, "metadata flip");
        metadata_errors += error;
        CHECK(error || !live.pages[logical]);
    }
    /* Two data pages swapped (with their metadata entries: the page number
     * is authenticated too). */
    int swap_errors = 0;
    for (int round = 0; round < 40; round++) {
        size_t a = 4 + (size_t)(next_random() % (GROUP_PAGES - 1)), b = a + 1; /* logical pages of group 0 */
        size_t pa = physical_page_of(a), pb = physical_page_of(b);
        memcpy(damaged, bytes, size);
        memcpy(damaged + pa * PAGE, bytes + pb * PAGE, PAGE);
        memcpy(damaged + pb * PAGE, bytes + pa * PAGE, PAGE);
        memcpy(damaged + 4 * PAGE + (a - 4) * 28, bytes + 4 * PAGE + (b - 4) * 28, 28);
        memcpy(damaged + 4 * PAGE + (b - 4) * 28, bytes + 4 * PAGE + (a - 4) * 28, 28);
        write_whole_file(work, damaged, size);
        int error = judge_damaged(work, key, original, true, "swapped pages");
        swap_errors += error;
        CHECK(error || (!live.pages[a] && !live.pages[b]));
    }
    /* Truncated: pages off the end, mid-page cuts, down into the header.
     * A cut that removes part of a live node's page must fail; one that
     * removes only free pages (the growth slack, gaps) may return the data. */
    uint64_t must_fail_below = (physical_page_of((size_t)((live.end - 1) / PAGE)) + 1) * PAGE;
    int truncation_errors = 0, truncations = 0, truncations_required = 0;
    for (size_t cut = size - PAGE; cut > PAGE;) {
        write_whole_file(work, bytes, cut);
        int error = judge_damaged(work, key, original, cut >= 16384, "truncation");
        truncation_errors += error;
        truncations++;
        if (cut < must_fail_below) {
            truncations_required++;
            CHECK(error);
        }
        size_t step = PAGE * (1 + (size_t)(next_random() % 9)) + 1000;
        cut = cut > step + PAGE ? cut - step : PAGE;
    }
    printf("crypt: damage: %zu pages flipped (%d errors, %d required: live pages), %d metadata entries flipped "
           "failed, %d/40 swaps failed, %d/%d truncations failed (%d required); never other data\n",
           pages, errors, required, metadata_errors, swap_errors, truncation_errors, truncations,
           truncations_required);
    CHECK(required > 50 && truncations_required > 10);
    free(live.pages);
    free(bytes);
    free(damaged);
    free(path);
    free(work);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* The page cache                                                            */
/* ------------------------------------------------------------------------ */

typedef struct copy_watch {
    ce_db *db;
    uint64_t most_pages;
} copy_watch;

static void watch_cache(void *context, uint64_t done, uint64_t total)
{
    (void)done, (void)total;
    copy_watch *watch = context;
    uint64_t pages, limit;
    db_cache_usage(watch->db, &pages, &limit);
    if (pages > watch->most_pages) watch->most_pages = pages;
}

TEST(cache_bound)
{
    char *dir = test_make_dir("crypt");
    char *path = test_path(dir, "large.realm");
    const uint8_t *key = test_fixed_key(0);
    make_list(path, key, 1500000); /* about 12 MB */
    ce_db *full = open_with(path, key, 64, 0);
    uint64_t original = list_fingerprint(full);
    CHECK(ce_db_close(full));

    uint64_t cache = 1u << 20; /* 256 pages */
    ce_db *db = open_with(path, key, 64, cache);
    uint64_t pages, limit;
    db_cache_usage(db, &pages, &limit);
    CHECK(limit == cache / PAGE);
    CHECK(pages <= 4); /* open decrypted the top node's page, not the file */

    /* Point reads in many transactions: within the bound. */
    for (int i = 0; i < 3000; i++) {
        ce_txn *txn;
        CHECK(ce_txn_begin_read(db, &txn));
        size_t index = (size_t)(next_random() % 1500000);
        int64_t value = test_list_get(txn, index);
        CHECK(value == (int64_t)index * 7 + 1);
        ce_txn_end(txn);
        db_cache_usage(db, &pages, &limit);
        CHECK(pages <= limit);
    }
    /* One transaction reading everything holds what it reads... */
    ce_txn *txn;
    CHECK(ce_txn_begin_read(db, &txn));
    uint64_t hash = 1469598103934665603ull;
    CHECK(bptree_for_each_leaf(db_txn_space(txn), db_txn_root(txn), hash_leaf, &hash));
    db_cache_usage(db, &pages, &limit);
    CHECK(pages > limit);
    ce_txn_end(txn);
    /* ... until it ends. */
    db_cache_usage(db, &pages, &limit);
    CHECK(pages <= limit);
    CHECK(list_fingerprint(db) == original);
    test_verify(db);

    /* A copy of a file twelve times the cache stays near the bound: it
     * lets go of what it read every megabyte. */
    char *copy = test_path(dir, "large-copy.realm");
    copy_watch watch = {db, 0};
    ce_copy_options options;
    ce_copy_options_init(&options);
    options.encryption_key = key;
    options.encryption_key_size = 64;
    options.progress = watch_cache;
    options.progress_context = &watch;
    CHECK(ce_db_write_copy(db, copy, &options));
    CHECK(watch.most_pages <= 2 * limit + 300);
    CHECK(ce_db_close(db));
    db = open_with(copy, key, 64, cache);
    CHECK(list_fingerprint(db) == original);
    CHECK(ce_db_close(db));
    printf("crypt: cache bound passed (limit %llu pages, a copy held at most %llu)\n", (unsigned long long)limit,
           (unsigned long long)watch.most_pages);
    free(copy);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Consistency across handles, processes and threads                         */
/* ------------------------------------------------------------------------ */

/* Round r sets element i to r * 1000003 + i for every i in a stride that
 * varies by round: many leaves (pages) are rewritten, and with no reader
 * pinning old versions, their pages are reused. */
static void rewrite_round(ce_db *db, int round, size_t count)
{
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    for (size_t i = (size_t)round % 5; i < count; i += 5) test_list_set(txn, i, (int64_t)round * 1000003 + (int64_t)i);
    CHECK(ce_txn_commit(txn));
}

TEST(cross_handle)
{
    char *dir = test_make_dir("crypt");
    char *path = test_path(dir, "shared.realm");
    const uint8_t *key = test_fixed_key(0);
    size_t count = 60000;
    make_list(path, key, (int)count);
    ce_db *reader = open_with(path, key, 64, 0);
    ce_db *writer = open_with(path, key, 64, 0);
    for (int round = 1; round <= 30; round++) {
        (void)list_fingerprint(reader); /* the reader's cache holds every page */
        rewrite_round(writer, round, count);
        CHECK(list_fingerprint(reader) == list_fingerprint(writer));
    }
    CHECK(ce_db_close(writer));

    /* Another process writes. */
    for (int round = 31; round <= 50; round++) {
        (void)list_fingerprint(reader);
        int pipe_fds[2];
        CHECK(pipe(pipe_fds) == 0);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
            ce_db *mine = open_with(path, key, 64, 0);
            for (int k = 0; k < 3; k++) rewrite_round(mine, round * 3 + k, count);
            uint64_t print = list_fingerprint(mine);
            CHECK(ce_db_close(mine));
            if (write(pipe_fds[1], &print, sizeof print) != sizeof print) _exit(2);
            _exit(0);
        }
        uint64_t expected;
        CHECK(read(pipe_fds[0], &expected, sizeof expected) == sizeof expected);
        int status;
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        CHECK(list_fingerprint(reader) == expected);
    }
    test_verify(reader);
    CHECK(ce_db_close(reader));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* Threads: readers with a tiny cache check that every element i holds
 * stamp * 2^20 + i with stamp <= element 0, the commit counter; a writer
 * commits stamps. */
#define THREAD_ELEMENTS 40000
typedef struct thread_state {
    ce_db *db;
    _Atomic bool stop;
    _Atomic uint64_t checks;
} thread_state;

static void *reader_thread(void *argument)
{
    thread_state *state = argument;
    uint64_t seed = (uint64_t)(uintptr_t)&seed;
    while (!atomic_load(&state->stop)) {
        ce_txn *txn;
        CHECK(ce_txn_begin_read(state->db, &txn));
        int64_t counter = test_list_get(txn, 0);
        for (int k = 0; k < 200; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t i = 1 + (size_t)((seed >> 33) % (THREAD_ELEMENTS - 1));
            int64_t value = test_list_get(txn, i);
            if ((value & 0xFFFFF) != (int64_t)i || (value >> 20) > counter) {
                fprintf(stderr, "thread read element %zu = %lld with counter %lld\n", i, (long long)value,
                        (long long)counter);
                exit(1);
            }
        }
        CHECK(test_list_get(txn, 0) == counter);
        ce_txn_end(txn);
        atomic_fetch_add(&state->checks, 1);
    }
    return NULL;
}

TEST(threads)
{
    char *dir = test_make_dir("crypt");
    char *path = test_path(dir, "threads.realm");
    const uint8_t *key = test_fixed_key(0);
    ce_db *db = open_with(path, key, 64, 256 * 1024); /* 64 pages */
    ce_txn *txn;
    CHECK(ce_txn_begin_write(db, &txn));
    test_list_append(txn, 0);
    for (int i = 1; i < THREAD_ELEMENTS; i++) test_list_append(txn, i);
    CHECK(ce_txn_commit(txn));
    thread_state state = {db, false, 0};
    pthread_t readers[3];
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&readers[i], NULL, reader_thread, &state) == 0);
    for (int64_t stamp = 1; stamp <= 150; stamp++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int k = 0; k < 300; k++) {
            size_t i = 1 + (size_t)(next_random() % (THREAD_ELEMENTS - 1));
            test_list_set(txn, i, (stamp << 20) | (int64_t)i);
        }
        test_list_set(txn, 0, stamp);
        CHECK(ce_txn_commit(txn));
    }
    atomic_store(&state.stop, true);
    for (int i = 0; i < 3; i++) CHECK(pthread_join(readers[i], NULL) == 0);
    CHECK(atomic_load(&state.checks) > 10);
    test_verify(db);
    CHECK(ce_db_close(db));
    printf("crypt: threads passed (%llu reader checks)\n", (unsigned long long)atomic_load(&state.checks));
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Nonces                                                                    */
/* ------------------------------------------------------------------------ */

/* Every metadata entry written (page number, nonce, tag), taken from the
 * writes of metadata pages. */
typedef struct nonce_record {
    uint64_t page;
    uint8_t nonce[12];
    uint8_t tag[16];
} nonce_record;

static struct {
    nonce_record *records;
    size_t count, capacity;
    bool crash_at_slot;
    bool crashed;
} nonces;

static ssize_t recording_pwrite(int fd, const void *buffer, size_t length, off_t offset)
{
    if (nonces.crashed) {
        errno = EIO;
        return -1;
    }
    uint64_t start = (uint64_t)offset;
    /* The header slots: a "crash" there throws the commit away. */
    if (nonces.crash_at_slot && (start == PAGE || start == 2 * PAGE) && length == PAGE) {
        nonces.crashed = true;
        errno = EIO;
        return -1;
    }
    for (uint64_t page_offset = start; page_offset + PAGE <= start + length; page_offset += PAGE) {
        uint64_t page = page_offset / PAGE;
        if (page < 4 || (page - 4) % (GROUP_PAGES + 1) != 0) continue;
        const uint8_t *metadata = (const uint8_t *)buffer + (page_offset - start);
        for (unsigned i = 0; i < GROUP_PAGES; i++) {
            const uint8_t *entry = metadata + 28 * i;
            bool blank = true;
            for (int b = 0; b < 28 && blank; b++) blank = entry[b] == 0;
            if (blank) continue;
            if (nonces.count == nonces.capacity) {
                nonces.capacity = nonces.capacity ? 2 * nonces.capacity : 4096;
                nonces.records = realloc(nonces.records, nonces.capacity * sizeof *nonces.records);
            }
            nonce_record *record = &nonces.records[nonces.count++];
            record->page = 4 + ((page - 4) / (GROUP_PAGES + 1)) * GROUP_PAGES + i;
            memcpy(record->nonce, entry, 12);
            memcpy(record->tag, entry + 12, 16);
        }
    }
    return pwrite(fd, buffer, length, offset);
}

static int compare_records(const void *a, const void *b)
{
    const nonce_record *left = a, *right = b;
    int order = memcmp(left->nonce, right->nonce, 12);
    if (order) return order;
    if (left->page != right->page) return left->page < right->page ? -1 : 1;
    return memcmp(left->tag, right->tag, 16);
}

TEST(nonces)
{
    char *dir = test_make_dir("crypt");
    char *path = test_path(dir, "nonces.realm");
    const uint8_t *key = test_fixed_key(0);
    os_methods recording = os_default;
    recording.pwrite = recording_pwrite;
    os_active = &recording;
    ce_db *db = open_with(path, key, 64, 0);
    ce_txn *txn;
    for (int round = 0; round < 60; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (int i = 0; i < 2000; i++) test_list_append(txn, round * 2000 + i);
        if (round > 0) test_list_set(txn, (size_t)round * 7, -round);
        /* Every tenth commit is thrown away by a crash at its slot; the next
         * commit writes the same pages again. */
        nonces.crash_at_slot = round % 10 == 5;
        bool committed = ce_txn_commit(txn);
        CHECK(committed == !nonces.crash_at_slot);
        if (!committed) ce_txn_end(txn); /* a failed commit leaves it to be ended */
        if (nonces.crashed) {
            nonces.crashed = nonces.crash_at_slot = false;
            CHECK(ce_db_close(db));
            db = open_with(path, key, 64, 0);
        }
    }
    test_verify(db);
    CHECK(ce_db_close(db));
    os_active = &os_default;
    /* The same nonce may appear again only for the same page and tag (an
     * entry rewritten unchanged with its metadata page). */
    qsort(nonces.records, nonces.count, sizeof *nonces.records, compare_records);
    size_t distinct = 0;
    for (size_t i = 0; i < nonces.count; i++) {
        if (i > 0 && memcmp(nonces.records[i].nonce, nonces.records[i - 1].nonce, 12) == 0) {
            CHECK(nonces.records[i].page == nonces.records[i - 1].page &&
                  memcmp(nonces.records[i].tag, nonces.records[i - 1].tag, 16) == 0);
            continue;
        }
        distinct++;
    }
    CHECK(distinct > 100); /* about three pages a commit */
    printf("crypt: nonces: %zu entries written, %zu distinct nonces, none reused\n", nonces.count, distinct);
    free(nonces.records);
    free(path);
    test_cleanup_dir(dir);
    free(dir);
}

/* ------------------------------------------------------------------------ */
/* Re-keying and compaction                                                  */
/* ------------------------------------------------------------------------ */

static void copy_with_key(const char *from, const uint8_t *from_key, const char *to, const uint8_t *to_key)
{
    ce_db *db = open_with(from, from_key, from_key ? 64 : 0, 0);
    ce_copy_options options;
    ce_copy_options_init(&options);
    options.encryption_key = to_key;
    options.encryption_key_size = to_key ? 64 : 0;
    CHECK(ce_db_write_copy(db, to, &options));
    CHECK(ce_db_close(db));
}

TEST(rekey)
{
    char *dir = test_make_dir("crypt");
    const uint8_t *key_a = test_fixed_key(2), *key_b = test_fixed_key(3);
    char *plain = test_path(dir, "rekey-plain.realm");
    char *with_a = test_path(dir, "rekey-a.realm");
    char *with_b = test_path(dir, "rekey-b.realm");
    char *plain_again = test_path(dir, "rekey-plain-again.realm");
    make_list(plain, NULL, 80000);
    ce_db *db = open_with(plain, NULL, 0, 0);
    uint64_t print = list_fingerprint(db);
    CHECK(ce_db_close(db));

    copy_with_key(plain, NULL, with_a, key_a);
    copy_with_key(with_a, key_a, with_b, key_b);
    copy_with_key(with_b, key_b, plain_again, NULL);
    const char *paths[3] = {with_a, with_b, plain_again};
    const uint8_t *keys[3] = {key_a, key_b, NULL};
    for (int i = 0; i < 3; i++) {
        db = open_with(paths[i], keys[i], keys[i] ? 64 : 0, 0);
        CHECK(list_fingerprint(db) == print);
        ce_db_stats stats;
        CHECK(ce_db_verify(db, &stats) && stats.free_bytes == 0);
        CHECK(ce_db_close(db));
    }
    expect_open_error(with_a, key_b, 64, CE_ERR_INVALID_DATABASE, "not the key");
    expect_open_error(with_b, key_a, 64, CE_ERR_INVALID_DATABASE, "not the key");
    expect_open_error(with_b, NULL, 0, CE_ERR_INVALID_DATABASE, "no encryption key was given");
    expect_open_error(plain_again, key_a, 64, CE_ERR_INVALID_DATABASE, "not encrypted");
    /* A bad key size for a copy is refused before anything is written. */
    db = open_with(with_a, key_a, 64, 0);
    ce_copy_options options;
    ce_copy_options_init(&options);
    options.encryption_key = key_b;
    options.encryption_key_size = 32;
    char *never = test_path(dir, "never.realm");
    CHECK(!ce_db_write_copy(db, never, &options) && ce_last_error_code() == CE_ERR_INVALID_ARGUMENT);
    CHECK(access(never, F_OK) != 0);

    /* Compaction of an encrypted file keeps its key. */
    ce_txn *txn;
    for (int round = 0; round < 8; round++) {
        CHECK(ce_txn_begin_write(db, &txn));
        for (size_t i = (size_t)round; i < 80000; i += 97) test_list_set(txn, i, test_list_get(txn, i));
        CHECK(ce_txn_commit(txn));
    }
    ce_db_stats before, after;
    CHECK(ce_db_verify(db, &before) && before.free_bytes > 0);
    CHECK(ce_db_compact(db, NULL));
    CHECK(list_fingerprint(db) == print);
    CHECK(ce_db_verify(db, &after) && after.free_bytes == 0 && after.file_size < before.file_size);
    CHECK(ce_db_close(db));
    db = open_with(with_a, key_a, 64, 0);
    CHECK(list_fingerprint(db) == print);
    CHECK(ce_db_close(db));
    expect_open_error(with_a, key_b, 64, CE_ERR_INVALID_DATABASE, "not the key");
    free(plain);
    free(with_a);
    free(with_b);
    free(plain_again);
    free(never);
    test_cleanup_dir(dir);
    free(dir);
}
