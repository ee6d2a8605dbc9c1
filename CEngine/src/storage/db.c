/*
 * db.c — transactions: the file header, the lock file, the reader table,
 * versions, read and write transactions, and the commit protocol.
 *
 * Owns: which version is the latest, which versions readers pin, who may
 * write, and the order in which a commit reaches the disk.
 * Never: overwrites a node a durable version uses (invariant 1), lets a
 * reader see a partial commit (invariant 2), or reports a commit that did
 * not reach the disk (invariant 4).
 *
 * The file header (docs/FORMAT.md has the bytes) is four 4 KiB pages:
 *   page 0  static: magic, format version, flags
 *   page 1  slot A  (version, top ref, logical size, the runs the commit wrote
 *   page 2  slot B   and their checksum, the slot's own checksum)
 *   page 3  sync record: the newest version known to be on disk
 * A commit writes its nodes into free space, then the slot that does not hold
 * the latest version, then calls fdatasync once. If power fails before the
 * sync completes, the slot may have reached the disk without some of the
 * data: at the next open the slot's checksum over the runs it lists fails and
 * the other slot (the previous, durable commit) wins. A commit that wrote
 * more runs than a slot lists syncs its data first and the slot second.
 *
 * The lock file `<path>.lock` holds, in shared memory, the latest version
 * (under a sequence lock) and the reader table. Open-file-description locks
 * on its bytes say who is alive: byte 0 is held shared by every open handle
 * (exclusively by the one that initializes the file), byte 1 exclusively by
 * the writer, byte LIVENESS_BASE + pid shared by every handle of process pid.
 */
#include "db.h"
#include "checksum.h"
#include "error.h"
#include "node.h"
#include "crypt.h"
#include "os.h"
#include "pager.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* File header                                                               */
/* ------------------------------------------------------------------------ */

#define PAGE_SIZE_BYTES 4096u
#define FORMAT_VERSION 1u
static const uint8_t FILE_MAGIC[8] = {'O', 'R', 'E', 'A', 'L', 'M', 'D', 'B'};
static const uint8_t SLOT_MAGIC[8] = {'O', 'R', 'S', 'L', 'O', 'T', '0', '1'};
static const uint8_t SYNC_MAGIC[8] = {'O', 'R', 'S', 'Y', 'N', 'C', '0', '1'};

#define STATIC_PAGE 0u
#define SYNC_PAGE 3u
#define SYNC_RECORD_MINIMUM_BYTES (1u << 20)
#define SLOT_HEADER_SIZE 48u
#define SLOT_CHECKSUM_OFFSET (PAGE_SIZE_BYTES - 8u)
#define SLOT_MAX_RUNS ((SLOT_CHECKSUM_OFFSET - SLOT_HEADER_SIZE) / 16u)
/* Encrypted files: the slot's HMAC (over the bytes before it) sits before
 * the checksum, in the room of the last two runs. */
#define SLOT_MAC_OFFSET (SLOT_CHECKSUM_OFFSET - 40u)
#define SLOT_MAX_RUNS_ENCRYPTED ((SLOT_MAC_OFFSET - SLOT_HEADER_SIZE) / 16u)
#define STATIC_FLAG_ENCRYPTED 1u
#define STATIC_SALT_OFFSET 24u
#define STATIC_KEY_CHECK_OFFSET 40u
#define STATIC_GROUP_PAGES_OFFSET 56u
#define MAX_LOGICAL_SIZE (1ull << 48)
#define CHECKSUM_SEED_STATIC 0x53544154ull
#define CHECKSUM_SEED_SLOT 0x534C4F54ull
#define CHECKSUM_SEED_DATA 0x44415441ull
#define CHECKSUM_SEED_SYNC 0x53594E43ull

/* The top node of a version. */
enum { TOP_USER_ROOT = 0, TOP_FREE_LIST = 1, TOP_VERSION = 2, TOP_HISTORY = 3, TOP_COUNT = 4 };

typedef struct version_info {
    uint64_t version;
    space_ref top_ref;
    uint64_t logical_size;
} version_info;

typedef struct slot_record {
    version_info info;
    uint32_t run_count; /* 0: the data was synced before the slot */
    uint64_t data_checksum;
    uint64_t runs[SLOT_MAX_RUNS][2];
} slot_record;

static uint64_t load_u64(const uint8_t *bytes)
{
    uint64_t value;
    memcpy(&value, bytes, 8);
    return value;
}
static uint32_t load_u32(const uint8_t *bytes)
{
    uint32_t value;
    memcpy(&value, bytes, 4);
    return value;
}
static void store_u64(uint8_t *bytes, uint64_t value) { memcpy(bytes, &value, 8); }
static void store_u32(uint8_t *bytes, uint32_t value) { memcpy(bytes, &value, 4); }

/* What the static page says about encryption (nothing secret: the salt
 * and the key check value are stored in the file). */
typedef struct cipher_header {
    bool encrypted;
    uint8_t salt[CRYPT_SALT_SIZE];
    uint8_t key_check[CRYPT_CHECK_SIZE];
    uint32_t group_pages; /* data pages per metadata page */
} cipher_header;

static void encode_static_page(uint8_t *page, const cipher_header *cipher)
{
    memset(page, 0, PAGE_SIZE_BYTES);
    memcpy(page, FILE_MAGIC, 8);
    store_u32(page + 8, FORMAT_VERSION);
    store_u32(page + 12, cipher->encrypted ? STATIC_FLAG_ENCRYPTED : 0);
    store_u32(page + 16, PAGE_SIZE_BYTES);
    store_u32(page + 20, CE_HEADER_SIZE);
    if (cipher->encrypted) {
        memcpy(page + STATIC_SALT_OFFSET, cipher->salt, CRYPT_SALT_SIZE);
        memcpy(page + STATIC_KEY_CHECK_OFFSET, cipher->key_check, CRYPT_CHECK_SIZE);
        store_u32(page + STATIC_GROUP_PAGES_OFFSET, cipher->group_pages);
    }
    store_u64(page + 64, checksum_of(page, 64, CHECKSUM_SEED_STATIC));
}

/* Encrypted slots carry an HMAC, so that a slot cannot be forged without
 * the key (the data pages authenticate themselves). */
static bool encode_slot_page(uint8_t *page, const slot_record *slot, const pager_state *pager)
{
    memset(page, 0, PAGE_SIZE_BYTES);
    memcpy(page, SLOT_MAGIC, 8);
    store_u64(page + 8, slot->info.version);
    store_u64(page + 16, slot->info.top_ref);
    store_u64(page + 24, slot->info.logical_size);
    store_u32(page + 32, slot->run_count);
    store_u32(page + 36, 0);
    store_u64(page + 40, slot->data_checksum);
    for (uint32_t i = 0; i < slot->run_count; i++) {
        store_u64(page + SLOT_HEADER_SIZE + 16 * i, slot->runs[i][0]);
        store_u64(page + SLOT_HEADER_SIZE + 16 * i + 8, slot->runs[i][1]);
    }
    if (pager_is_encrypted(pager) && !pager_header_mac(pager, page, SLOT_MAC_OFFSET, page + SLOT_MAC_OFFSET))
        return false;
    /* The checksum covers the whole page and sits in its last bytes, so a
     * slot whose write stopped part-way (a short write, a torn sector) never
     * validates: only a completely written slot can name a version. */
    store_u64(page + SLOT_CHECKSUM_OFFSET, checksum_of(page, SLOT_CHECKSUM_OFFSET, CHECKSUM_SEED_SLOT));
    return true;
}

/* Decodes a slot page; false if it does not hold a valid slot. A plain
 * file's slot must lie within the file; an encrypted one's may reach past
 * its end (a truncated file then fails naming the missing page when it is
 * read, instead of silently opening an older version). */
static bool decode_slot_page(const uint8_t *page, uint64_t file_size, slot_record *slot, const pager_state *pager)
{
    if (memcmp(page, SLOT_MAGIC, 8) != 0) return false;
    if (checksum_of(page, SLOT_CHECKSUM_OFFSET, CHECKSUM_SEED_SLOT) != load_u64(page + SLOT_CHECKSUM_OFFSET))
        return false;
    bool encrypted = pager_is_encrypted(pager);
    if (encrypted) {
        uint8_t mac[CRYPT_MAC_SIZE];
        if (!pager_header_mac(pager, page, SLOT_MAC_OFFSET, mac) || !crypt_equal(mac, page + SLOT_MAC_OFFSET, sizeof mac))
            return false;
        file_size = MAX_LOGICAL_SIZE;
    }
    uint32_t run_count = load_u32(page + 32);
    if (run_count > (encrypted ? SLOT_MAX_RUNS_ENCRYPTED : SLOT_MAX_RUNS)) return false;
    slot->info.version = load_u64(page + 8);
    slot->info.top_ref = load_u64(page + 16);
    slot->info.logical_size = load_u64(page + 24);
    slot->run_count = run_count;
    slot->data_checksum = load_u64(page + 40);
    uint64_t logical = slot->info.logical_size;
    if (slot->info.version == 0 || logical < CE_HEADER_SIZE || logical > file_size || logical % 8 != 0 ||
        slot->info.top_ref < CE_HEADER_SIZE || slot->info.top_ref >= logical || slot->info.top_ref % 8 != 0)
        return false;
    for (uint32_t i = 0; i < run_count; i++) {
        uint64_t position = load_u64(page + SLOT_HEADER_SIZE + 16 * i);
        uint64_t length = load_u64(page + SLOT_HEADER_SIZE + 16 * i + 8);
        if (position < CE_HEADER_SIZE || position > logical || length > logical - position) return false;
        slot->runs[i][0] = position;
        slot->runs[i][1] = length;
    }
    return true;
}

#define RUNS_CHECK_CHUNK (1u << 20)

/* The checksum of the bytes of a slot's runs, as the file holds them now.
 * Encrypted: read through the decrypted view a chunk at a time, each under
 * an epoch of its own so that the cache may drop it after; a page that
 * fails authentication or is missing fails with CE_ERR_INVALID_DATABASE. */
static bool runs_checksum(pager_state *pager, const slot_record *slot, uint64_t *out_checksum)
{
    const uint8_t *base;
    if (!pager_map(pager, slot->info.logical_size, &base)) return false;
    checksum_state state;
    checksum_init(&state, CHECKSUM_SEED_DATA);
    bool encrypted = pager_is_encrypted(pager);
    for (uint32_t i = 0; i < slot->run_count; i++) {
        for (uint64_t done = 0; done < slot->runs[i][1];) {
            uint64_t position = slot->runs[i][0] + done;
            size_t length = (size_t)(slot->runs[i][1] - done < RUNS_CHECK_CHUNK ? slot->runs[i][1] - done : RUNS_CHECK_CHUNK);
            if (encrypted) {
                uint64_t epoch;
                if (!pager_begin_reading(pager, &epoch)) return false;
                bool ok = pager_make_readable(pager, position, length, slot->info.version, epoch);
                if (ok) checksum_add(&state, base + position, length);
                pager_end_reading(pager, epoch);
                if (!ok) return false;
            } else {
                checksum_add(&state, base + position, length);
            }
            done += length;
        }
    }
    *out_checksum = checksum_final(&state);
    return true;
}

static void encode_sync_page(uint8_t *page, uint64_t version)
{
    memset(page, 0, PAGE_SIZE_BYTES);
    memcpy(page, SYNC_MAGIC, 8);
    store_u64(page + 8, version);
    store_u64(page + 16, checksum_of(page, 16, CHECKSUM_SEED_SYNC));
}

static uint64_t decode_sync_page(const uint8_t *page)
{
    if (memcmp(page, SYNC_MAGIC, 8) != 0) return 0;
    if (checksum_of(page, 16, CHECKSUM_SEED_SYNC) != load_u64(page + 16)) return 0;
    return load_u64(page + 8);
}

static bool page_is_blank(const uint8_t *page)
{
    for (size_t i = 0; i < PAGE_SIZE_BYTES; i++)
        if (page[i]) return false;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Lock file                                                                 */
/* ------------------------------------------------------------------------ */

#define LOCK_MAGIC 0x4B434F4C4D4C524Full /* "ORLMLOCK" */
#define LOCK_LAYOUT_VERSION 2u
#define READER_SLOT_COUNT 1024u
#define INIT_LOCK_BYTE 0u
#define WRITER_LOCK_BYTE 1u
#define LIVENESS_BASE (1ull << 32)

typedef struct reader_slot {
    _Atomic uint64_t owner_pid; /* 0: free */
    _Atomic uint64_t version;   /* 0: claimed, not pinning yet */
} reader_slot;

typedef struct shared_state {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t slot_count;
    uint32_t structure_size;
    _Atomic uint32_t ready;
    _Atomic uint64_t latest_sequence; /* odd while the latest is being written */
    _Atomic uint64_t latest_version;
    _Atomic uint64_t latest_top_ref;
    _Atomic uint64_t latest_logical_size;
    _Atomic uint64_t committing_version; /* non-zero while a commit writes to the file */
    _Atomic uint32_t reader_high_water;  /* no slot at or past this index was ever claimed */
    reader_slot readers[READER_SLOT_COUNT];
} shared_state;

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

struct ce_db {
    char *path;
    char *lock_path;
    pager_state *pager;
    /* The user's key, from ce_db_open until the keys are derived (then
     * wiped); never written anywhere. */
    uint8_t key[CRYPT_KEY_SIZE];
    bool key_given;
    cipher_header cipher; /* what the static page says */
    int lock_fd;
    shared_state *shared;
    size_t shared_size;
    ce_db_options options;
    uint64_t pid;
    pthread_mutex_t mutex;        /* guards the fields below */
    pthread_cond_t writer_free;
    bool writer_busy;             /* a thread of this handle holds the write lock */
    pthread_t writer_thread;      /* which one, while writer_busy */
    size_t open_transactions;
    /* Compaction: while `exclusive` is set, the handle holds the lock file's
     * byte 0 exclusively and only `exclusive_thread` may begin transactions
     * (the others wait on `exclusive_over`). */
    bool exclusive;
    pthread_t exclusive_thread;
    pthread_cond_t exclusive_over;
    /* The live read transactions of this handle (see ce_txn_begin_read_at):
     * linked and unlinked under `mutex`, and their `info` changes under it. */
    ce_txn *readers;
};

static void write_sync_record(ce_db *db, uint64_t version);

size_t db_slot_run_limit = SLOT_MAX_RUNS;

struct ce_txn {
    ce_db *db;
    bool write;
    version_info info; /* the version read; for a write, the one it builds on */
    int reader_slot;   /* -1 for a write transaction */
    space_state space;
    uint64_t epoch; /* the pager's reader epoch (encrypted files; 0 otherwise) */
    space_ref user_root;
    space_ref free_list_ref;
    space_ref history_ref;
    void *layer_state;                 /* see db_txn_set_layer_state */
    void (*release_layer_state)(void *state);
    uint64_t stamp;                    /* see db_txn_stamp */
    bool (*before_commit)(ce_txn *txn, void *state); /* see db_txn_set_before_commit */
    ce_txn *next_reader, *previous_reader;           /* ce_db.readers */
};

/* Stamps are unique in the process: a new one for every begin, advance and
 * change of the root. */
static _Atomic uint64_t last_stamp;

static void new_stamp(ce_txn *txn) { txn->stamp = atomic_fetch_add(&last_stamp, 1) + 1; }

uint64_t db_txn_stamp(const ce_txn *txn) { return txn->stamp; }

static void release_layer_state(ce_txn *txn)
{
    if (txn->release_layer_state) txn->release_layer_state(txn->layer_state);
    txn->layer_state = NULL;
    txn->release_layer_state = NULL;
    txn->before_commit = NULL;
}

void *db_txn_layer_state(const ce_txn *txn) { return txn->layer_state; }

void db_txn_set_before_commit(ce_txn *txn, bool (*before_commit)(ce_txn *txn, void *state))
{
    txn->before_commit = before_commit;
}

void db_txn_set_layer_state(ce_txn *txn, void *state, void (*release)(void *state))
{
    release_layer_state(txn);
    txn->layer_state = state;
    txn->release_layer_state = release;
}

/* ------------------------------------------------------------------------ */
/* Publishing and reading the latest version                                */
/* ------------------------------------------------------------------------ */

static void publish_latest(shared_state *shared, const version_info *info)
{
    uint64_t sequence = atomic_load_explicit(&shared->latest_sequence, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_sequence, sequence + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&shared->latest_version, info->version, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_top_ref, info->top_ref, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_logical_size, info->logical_size, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_sequence, sequence + 2, memory_order_release);
}

static version_info read_latest(shared_state *shared)
{
    for (;;) {
        uint64_t before = atomic_load_explicit(&shared->latest_sequence, memory_order_acquire);
        if (before & 1) continue;
        version_info info;
        info.version = atomic_load_explicit(&shared->latest_version, memory_order_relaxed);
        info.top_ref = atomic_load_explicit(&shared->latest_top_ref, memory_order_relaxed);
        info.logical_size = atomic_load_explicit(&shared->latest_logical_size, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&shared->latest_sequence, memory_order_relaxed) == before) return info;
    }
}

/* ------------------------------------------------------------------------ */
/* Choosing the version at open                                              */
/* ------------------------------------------------------------------------ */

typedef enum header_state { HEADER_EMPTY, HEADER_VALID } header_state;

/* Checks the static page (magic, checksum, format, fields) and reads what
 * it says about encryption. */
static bool check_static_page(ce_db *db, const uint8_t *page, cipher_header *out_cipher)
{
    if (memcmp(page, FILE_MAGIC, 8) != 0)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' is not an OpenRealm database (bad magic)",
                       db->path);
    if (checksum_of(page, 64, CHECKSUM_SEED_STATIC) != load_u64(page + 64))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the header of '%s' is damaged (checksum mismatch)",
                       db->path);
    uint32_t format = load_u32(page + 8);
    if (format != FORMAT_VERSION)
        return error_fail(CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED, "'%s' has file format version %u; this engine reads version %u",
                       db->path, format, FORMAT_VERSION);
    uint32_t flags = load_u32(page + 12);
    memset(out_cipher, 0, sizeof *out_cipher);
    out_cipher->encrypted = (flags & STATIC_FLAG_ENCRYPTED) != 0;
    bool fields_ok = (flags & ~STATIC_FLAG_ENCRYPTED) == 0 && load_u32(page + 16) == PAGE_SIZE_BYTES &&
                     load_u32(page + 20) == CE_HEADER_SIZE && load_u32(page + 60) == 0;
    if (out_cipher->encrypted) {
        memcpy(out_cipher->salt, page + STATIC_SALT_OFFSET, CRYPT_SALT_SIZE);
        memcpy(out_cipher->key_check, page + STATIC_KEY_CHECK_OFFSET, CRYPT_CHECK_SIZE);
        out_cipher->group_pages = load_u32(page + STATIC_GROUP_PAGES_OFFSET);
        fields_ok = fields_ok && out_cipher->group_pages >= 1 && out_cipher->group_pages <= PAGER_MAX_GROUP_PAGES;
    } else {
        for (size_t i = STATIC_SALT_OFFSET; i < 60 && fields_ok; i++) fields_ok = page[i] == 0;
    }
    if (!fields_ok)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' has header fields this engine does not support",
                       db->path);
    return true;
}

/* Wipes this handle's copy of the user's key: once derived (or refused),
 * it is not needed again. */
static void wipe_key(ce_db *db)
{
    crypt_wipe(db->key, sizeof db->key);
}

/* Matches the key given at open with what the file says, and turns on the
 * pager's encryption for an encrypted file. Distinct errors for each way
 * the key can be wrong, before any data is read. */
static bool start_cipher(ce_db *db, const cipher_header *cipher)
{
    db->cipher = *cipher;
    if (!cipher->encrypted) {
        if (db->key_given)
            return error_fail(CE_ERR_INVALID_DATABASE,
                           "invalid database: decryption failed: '%s' is not encrypted, but an encryption key was given",
                           db->path);
        return true;
    }
    if (!db->key_given)
        return error_fail(CE_ERR_INVALID_DATABASE,
                       "invalid database: decryption failed: '%s' is encrypted and no encryption key was given",
                       db->path);
    crypt_state *crypt;
    uint8_t check[CRYPT_CHECK_SIZE];
    bool derived = crypt_create(db->key, cipher->salt, &crypt, check);
    wipe_key(db);
    if (!derived) return false;
    bool matches = crypt_equal(check, cipher->key_check, sizeof check);
    crypt_wipe(check, sizeof check);
    if (!matches) {
        crypt_destroy(crypt);
        return error_fail(CE_ERR_INVALID_DATABASE,
                       "invalid database: decryption failed: the encryption key is not the key of '%s'", db->path);
    }
    return pager_enable_cipher(db->pager, crypt, cipher->group_pages, db->options.encryption_cache_bytes);
}

/* A new cipher header (a fresh salt) for `key`, and the cipher it
 * derives. */
static bool new_cipher(const uint8_t key[CRYPT_KEY_SIZE], cipher_header *out_header, crypt_state **out_crypt)
{
    memset(out_header, 0, sizeof *out_header);
    out_header->encrypted = true;
    out_header->group_pages = PAGER_MAX_GROUP_PAGES;
    return crypt_random(out_header->salt, sizeof out_header->salt) &&
           crypt_create(key, out_header->salt, out_crypt, out_header->key_check);
}

/* Reads the header pages and picks the newest slot whose commit is whole.
 * `verify_data`: check the runs of a slot that the sync record does not
 * vouch for (the first opener after a possible power failure). */
static bool choose_version(ce_db *db, bool verify_data, header_state *out_state, version_info *out_info,
                           bool *out_needs_sync_record)
{
    uint64_t file_size;
    if (!pager_file_size(db->pager, &file_size)) return false;
    *out_needs_sync_record = false;
    if (file_size == 0) {
        *out_state = HEADER_EMPTY;
        return true;
    }
    if (file_size < CE_HEADER_SIZE)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' is too small (%llu bytes) to be a database",
                       db->path, (unsigned long long)file_size);
    uint8_t *pages = malloc(CE_HEADER_SIZE);
    slot_record *slots = malloc(2 * sizeof *slots);
    if (!pages || !slots) {
        free(pages);
        free(slots);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", db->path);
    }
    bool ok = false;
    if (!pager_read(db->pager, 0, pages, CE_HEADER_SIZE)) goto done;
    const uint8_t *static_page = pages;
    bool slots_blank = page_is_blank(pages + PAGE_SIZE_BYTES) && page_is_blank(pages + 2 * PAGE_SIZE_BYTES);
    if (memcmp(static_page, FILE_MAGIC, 8) != 0 && page_is_blank(static_page) && slots_blank) {
        /* Created, but the first commit never reached the disk. */
        *out_state = HEADER_EMPTY;
        ok = true;
        goto done;
    }
    cipher_header cipher;
    if (!check_static_page(db, static_page, &cipher)) goto done;
    if (slots_blank) {
        *out_state = HEADER_EMPTY; /* the header was written, the first commit was not */
        ok = true;
        goto done;
    }
    if (!start_cipher(db, &cipher)) goto done;
    bool valid[2];
    for (int i = 0; i < 2; i++)
        valid[i] = decode_slot_page(pages + (size_t)(1 + i) * PAGE_SIZE_BYTES, file_size, &slots[i], db->pager);
    uint64_t synced_version = decode_sync_page(pages + SYNC_PAGE * PAGE_SIZE_BYTES);
    /* The sync record names a version that reached the disk, and a slot of
     * that version or a newer one is never overwritten before a newer one
     * is durable: if no valid slot is that new, a slot was damaged after the
     * fact. For an encrypted file that is an error, not a silent return to
     * an older version (a plain file keeps the older slot, as before). */
    uint64_t newest_valid = 0;
    for (int i = 0; i < 2; i++)
        if (valid[i] && slots[i].info.version > newest_valid) newest_valid = slots[i].info.version;
    if (cipher.encrypted && synced_version > newest_valid) {
        error_fail(CE_ERR_INVALID_DATABASE,
                "invalid database: decryption failed: the header slot of version %llu of '%s' fails authentication",
                (unsigned long long)synced_version, db->path);
        goto done;
    }
    int order[2] = {0, 1};
    if (valid[1] && (!valid[0] || slots[1].info.version > slots[0].info.version)) {
        order[0] = 1;
        order[1] = 0;
    }
    for (int k = 0; k < 2; k++) {
        const slot_record *slot = &slots[order[k]];
        if (!valid[order[k]]) continue;
        bool trusted = !verify_data || slot->run_count == 0 || slot->info.version <= synced_version;
        if (!trusted) {
            uint64_t checksum;
            if (runs_checksum(db->pager, slot, &checksum)) {
                trusted = checksum == slot->data_checksum;
            } else if (ce_last_error_code() != CE_ERR_INVALID_DATABASE) {
                goto done; /* an I/O error: nothing is known */
            }
            /* (A page of an encrypted commit that fails authentication or
             * is missing: the commit did not reach the disk whole.) */
            *out_needs_sync_record = trusted;
        }
        if (trusted) {
            *out_info = slot->info;
            *out_state = HEADER_VALID;
            ok = true;
            goto done;
        }
    }
    error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' has no intact commit (both header slots are damaged)",
            db->path);
done:
    /* Pages read while checking a commit that lost are not the chosen
     * version's: forget them. */
    pager_reset_cache(db->pager);
    free(pages);
    free(slots);
    return ok;
}

/* A handle that attaches to a file another handle opened reads the static
 * page itself: its key must be checked too. */
static bool attach_header(ce_db *db)
{
    uint8_t *page = malloc(PAGE_SIZE_BYTES);
    if (!page) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", db->path);
    cipher_header cipher;
    bool ok = pager_read(db->pager, 0, page, PAGE_SIZE_BYTES) && check_static_page(db, page, &cipher) &&
              start_cipher(db, &cipher);
    free(page);
    return ok;
}

/* Writes the static page and blank slots of a new file, durably; with a
 * key, the file is encrypted from its first commit on. */
static bool write_new_header(ce_db *db)
{
    cipher_header cipher;
    memset(&cipher, 0, sizeof cipher);
    if (db->key_given) {
        crypt_state *crypt;
        bool created = new_cipher(db->key, &cipher, &crypt);
        wipe_key(db);
        if (!created ||
            !pager_enable_cipher(db->pager, crypt, cipher.group_pages, db->options.encryption_cache_bytes))
            return false;
    }
    db->cipher = cipher;
    uint8_t *pages = calloc(1, CE_HEADER_SIZE);
    if (!pages) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory creating '%s'", db->path);
    encode_static_page(pages, &cipher);
    bool ok = pager_write(db->pager, 0, pages, CE_HEADER_SIZE);
    free(pages);
    if (ok && db->options.durability == CE_DURABILITY_FULL) ok = pager_sync(db->pager);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Reader table                                                              */
/* ------------------------------------------------------------------------ */

static bool process_is_alive(ce_db *db, uint64_t pid, bool *out_alive)
{
    if (pid == db->pid) {
        *out_alive = true;
        return true;
    }
    return os_range_is_locked(db->lock_fd, LIVENESS_BASE + pid, 1, out_alive, db->lock_path);
}

/* The oldest version any reader pins (at most `latest`), and how many
 * distinct versions are live. Slots of processes that died are freed. */
static int compare_versions(const void *a, const void *b)
{
    uint64_t left = *(const uint64_t *)a, right = *(const uint64_t *)b;
    return (left > right) - (left < right);
}

static bool scan_readers(ce_db *db, uint64_t latest, uint64_t *out_oldest, uint64_t *out_active)
{
    uint64_t pinned[READER_SLOT_COUNT + 1];
    size_t pinned_count = 0;
    pinned[pinned_count++] = latest;
    uint32_t high_water = atomic_load(&db->shared->reader_high_water);
    for (uint32_t i = 0; i < high_water && i < READER_SLOT_COUNT; i++) {
        reader_slot *slot = &db->shared->readers[i];
        uint64_t owner = atomic_load(&slot->owner_pid);
        if (owner == 0) continue;
        uint64_t version = atomic_load(&slot->version);
        if (version == 0) continue;
        if (version < latest) {
            bool alive;
            if (!process_is_alive(db, owner, &alive)) return false;
            if (!alive) {
                /* A reader of a process that died: free its slot. */
                atomic_store(&slot->version, 0);
                uint64_t expected = owner;
                atomic_compare_exchange_strong(&slot->owner_pid, &expected, 0);
                continue;
            }
        }
        pinned[pinned_count++] = version;
    }
    qsort(pinned, pinned_count, sizeof *pinned, compare_versions);
    uint64_t active = 0;
    for (size_t i = 0; i < pinned_count; i++)
        if (i == 0 || pinned[i] != pinned[i - 1]) active++;
    *out_oldest = pinned[0];
    *out_active = active;
    return true;
}

static bool claim_reader_slot(ce_db *db, int *out_slot)
{
    static _Thread_local uint32_t hint;
    for (uint32_t attempt = 0; attempt < READER_SLOT_COUNT; attempt++) {
        uint32_t index = (hint + attempt) % READER_SLOT_COUNT;
        reader_slot *slot = &db->shared->readers[index];
        uint64_t expected = 0;
        if (atomic_load_explicit(&slot->owner_pid, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&slot->owner_pid, &expected, db->pid)) {
            hint = index + 1;
            /* Writers scan slots below the high-water mark only. */
            uint32_t high_water = atomic_load(&db->shared->reader_high_water);
            while (high_water < index + 1 &&
                   !atomic_compare_exchange_weak(&db->shared->reader_high_water, &high_water, index + 1)) {
            }
            *out_slot = (int)index;
            return true;
        }
    }
    return error_fail(CE_ERR_TOO_MANY_READERS, "too many read transactions on '%s' (%u are open)", db->path,
                   READER_SLOT_COUNT);
}

/* Pins the latest version in the slot: store, then check that it is still
 * the latest, so a writer that scanned before the store cannot have freed it. */
static version_info pin_latest(ce_db *db, int slot_index)
{
    reader_slot *slot = &db->shared->readers[slot_index];
    for (;;) {
        version_info info = read_latest(db->shared);
        atomic_store(&slot->version, info.version);
        if (atomic_load(&db->shared->latest_version) == info.version) return info;
    }
}

static void release_reader_slot(ce_db *db, int slot_index)
{
    reader_slot *slot = &db->shared->readers[slot_index];
    atomic_store(&slot->version, 0);
    atomic_store(&slot->owner_pid, 0);
}

/* ------------------------------------------------------------------------ */
/* Top node                                                                  */
/* ------------------------------------------------------------------------ */

static bool load_top(ce_txn *txn)
{
    node_view top;
    if (!node_read(&txn->space, txn->info.top_ref, &top)) return false;
    if (!(top.flags & NODE_HAS_REFS) || top.count < TOP_COUNT ||
        node_untag(node_get(&top, TOP_VERSION)) != (int64_t)txn->info.version)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the top node of version %llu in '%s' is damaged",
                       (unsigned long long)txn->info.version, txn->db->path);
    int64_t values[3] = {node_get(&top, TOP_USER_ROOT), node_get(&top, TOP_FREE_LIST), node_get(&top, TOP_HISTORY)};
    /* A ref with the temporary bit names a dirty node of some transaction,
     * never a node of the file: a write transaction that committed it would
     * look it up in its own (empty) table of dirty nodes. */
    for (int i = 0; i < 3; i++)
        if (values[i] != 0 && (!node_value_is_ref(values[i]) || ref_is_temporary((space_ref)values[i])))
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the top node of '%s' holds a bad ref", txn->db->path);
    txn->user_root = (space_ref)values[0];
    txn->free_list_ref = (space_ref)values[1];
    txn->history_ref = (space_ref)values[2];
    return true;
}

static bool load_free_list(ce_txn *txn, space_free_extent **out_list, size_t *out_count)
{
    *out_list = NULL;
    *out_count = 0;
    if (!txn->free_list_ref) return true;
    node_view list;
    if (!node_read(&txn->space, txn->free_list_ref, &list)) return false;
    /* build_new_version writes the free list at a width that holds file
     * positions (at least 16 bits: every position is 16384 or more). Checking
     * the width also bounds the allocation below by the node's bytes: at
     * width 0 a count of 2^31 takes 8 bytes of file and would ask for 17 GB. */
    if ((list.flags & (NODE_HAS_REFS | NODE_BYTES)) || list.width < 16 || list.count % 3 != 0)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the free list of '%s' is damaged", txn->db->path);
    size_t count = list.count / 3;
    space_free_extent *extents = malloc((count + 1) * sizeof *extents);
    if (!extents) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the free list");
    for (size_t i = 0; i < count; i++) {
        extents[i].position = (uint64_t)node_get(&list, 3 * i);
        extents[i].size = (uint64_t)node_get(&list, 3 * i + 1);
        extents[i].freed_in_version = (uint64_t)node_get(&list, 3 * i + 2);
    }
    *out_list = extents;
    *out_count = count;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

void ce_db_options_init(ce_db_options *options)
{
    memset(options, 0, sizeof *options);
    options->durability = CE_DURABILITY_FULL;
}

static char *in_memory_path(const char *identifier)
{
    const char *directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!directory) directory = "/tmp";
    size_t length = strlen(identifier);
    char *path = malloc(strlen(directory) + 64 + 3 * length);
    if (!path) return NULL;
    char *cursor = path + sprintf(path, "%s/openrealm-%u-", directory, (unsigned)getuid());
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)identifier[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
            *cursor++ = (char)c;
        else
            cursor += sprintf(cursor, "%%%02X", c);
    }
    strcpy(cursor, ".realm");
    return path;
}

static void close_lock_file(ce_db *db)
{
    if (db->shared) os_active->munmap(db->shared, db->shared_size);
    db->shared = NULL;
    if (db->lock_fd >= 0) os_active->close(db->lock_fd);
    db->lock_fd = -1;
}

static bool map_lock_file(ce_db *db)
{
    void *memory = os_active->mmap(NULL, db->shared_size, PROT_READ | PROT_WRITE, MAP_SHARED, db->lock_fd, 0);
    if (memory == MAP_FAILED) return error_fail_errno(errno, "map lock file", db->lock_path);
    db->shared = memory;
    return true;
}

/* Sets up the data file and the lock file when this handle is the only one. */
static bool initialize_as_first(ce_db *db)
{
    /* Reset by zeroing it through the mapping, not by truncating it to
     * zero: ext4 flushes a file truncated to zero when it is closed
     * (auto_da_alloc), and the next open then waits for that I/O, a few
     * milliseconds for a file that never needs to reach the disk. */
    uint64_t size;
    if (!os_file_size(db->lock_fd, &size, db->lock_path)) return false;
    if (size != db->shared_size && os_active->ftruncate(db->lock_fd, (off_t)db->shared_size) != 0)
        return error_fail_errno(errno, "reset lock file", db->lock_path);
    if (!map_lock_file(db)) return false;
    memset(db->shared, 0, db->shared_size);
    shared_state *shared = db->shared;
    shared->magic = LOCK_MAGIC;
    shared->layout_version = LOCK_LAYOUT_VERSION;
    shared->slot_count = READER_SLOT_COUNT;
    shared->structure_size = (uint32_t)sizeof(shared_state);

    header_state state = HEADER_EMPTY;
    version_info info = {0};
    bool needs_sync_record = false;
    if (!choose_version(db, true, &state, &info, &needs_sync_record)) return false;
    if (state == HEADER_EMPTY) {
        if (db->options.read_only)
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' is empty and was opened read-only", db->path);
        if (!write_new_header(db)) return false;
        info = (version_info){0, 0, CE_HEADER_SIZE};
    } else if (needs_sync_record && !db->options.read_only && db->options.durability == CE_DURABILITY_FULL) {
        /* The commit verified from the page cache; make sure it is on disk
         * before the sync record vouches for it. */
        uint8_t page[PAGE_SIZE_BYTES];
        encode_sync_page(page, info.version);
        if (!pager_sync(db->pager) || !pager_write(db->pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, sizeof page))
            return false;
    }
    publish_latest(shared, &info);
    atomic_store(&shared->ready, 1);
    return true;
}

static bool attach_as_other(ce_db *db, bool *out_retry)
{
    *out_retry = false;
    uint64_t size;
    if (!os_file_size(db->lock_fd, &size, db->lock_path)) return false;
    if (size < db->shared_size) {
        *out_retry = true; /* the initializer died before sizing it */
        return true;
    }
    if (!map_lock_file(db)) return false;
    shared_state *shared = db->shared;
    if (atomic_load(&shared->ready) != 1) {
        close_lock_file(db);
        *out_retry = true;
        return true;
    }
    if (shared->magic != LOCK_MAGIC || shared->layout_version != LOCK_LAYOUT_VERSION ||
        shared->slot_count != READER_SLOT_COUNT || shared->structure_size != sizeof(shared_state))
        return error_fail(CE_ERR_INCOMPATIBLE_LOCK_FILE,
                       "the lock file '%s' was made by an incompatible version of the engine", db->lock_path);
    return true;
}

/* The data file is opened only once this handle holds byte 0 of the lock
 * file: compaction replaces the file while it holds that byte exclusively,
 * so a descriptor opened before could name the replaced file. */
static bool open_data_file(ce_db *db)
{
    bool create = !db->options.read_only && !db->options.no_create;
    if (!pager_open(db->path, db->options.read_only, create, &db->pager)) return false;
    pager_set_early_writeback(db->pager, db->options.durability == CE_DURABILITY_FULL);
    return true;
}

static void close_data_file(ce_db *db)
{
    pager_close(db->pager);
    db->pager = NULL;
}

static bool open_lock_file(ce_db *db)
{
    db->shared_size = (sizeof(shared_state) + 4095) & ~(size_t)4095;
    for (int attempt = 0; attempt < 100; attempt++) {
        db->lock_fd = os_active->open(db->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (db->lock_fd < 0) return error_fail_errno(errno, "open lock file", db->lock_path);
        bool busy;
        if (os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, true, false, &busy, db->lock_path)) {
            /* Deleted since it was opened (ce_db_delete_files, the last close
             * of an in-memory database): a handle that initialized it would
             * be alone with it. Start again with the file at the path. */
            struct stat status;
            if (os_active->fstat(db->lock_fd, &status) == 0 && status.st_nlink == 0) {
                close_lock_file(db);
                continue;
            }
            if (!open_data_file(db) || !initialize_as_first(db)) {
                /* Leave no lock file beside a file we could not open. A
                 * process waiting on this one finds it not ready and
                 * retries with a new lock file. */
                os_active->unlink(db->lock_path);
                return false;
            }
            /* Downgrade: from now on others may attach. */
            if (!os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, false, true, NULL, db->lock_path)) return false;
            return true;
        }
        if (!busy) return false;
        if (!os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, false, true, NULL, db->lock_path)) return false;
        bool retry;
        if (!attach_as_other(db, &retry)) return false;
        if (!retry) return open_data_file(db) && attach_header(db);
        close_lock_file(db);
    }
    return error_fail(CE_ERR_INCOMPATIBLE_LOCK_FILE, "could not attach to the lock file '%s'", db->lock_path);
}

static void free_db(ce_db *db)
{
    wipe_key(db); /* if the open failed before the keys were derived */
    close_lock_file(db);
    close_data_file(db); /* wipes the derived keys and the decrypted pages */
    pthread_mutex_destroy(&db->mutex);
    pthread_cond_destroy(&db->writer_free);
    pthread_cond_destroy(&db->exclusive_over);
    free(db->path);
    free(db->lock_path);
    free(db);
}

bool ce_db_open(const char *path, const ce_db_options *options, ce_db **out_db)
{
    if (!options || !out_db) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_open: options and out_db are required");
    *out_db = NULL;
    if (options->encryption_key && options->encryption_key_size != CRYPT_KEY_SIZE)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "the encryption key must be %u bytes long (it is %zu)", CRYPT_KEY_SIZE,
                       options->encryption_key_size);
    if (!options->encryption_key && options->encryption_key_size != 0)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "encryption_key_size is %zu but encryption_key is NULL",
                       options->encryption_key_size);
    ce_db *db = calloc(1, sizeof *db);
    if (!db) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    db->lock_fd = -1;
    db->options = *options;
    /* The key is copied (the caller's buffer stays the caller's) and the
     * handle keeps no pointer to it. */
    if (options->encryption_key) {
        memcpy(db->key, options->encryption_key, CRYPT_KEY_SIZE);
        db->key_given = true;
    }
    db->options.encryption_key = NULL;
    db->pid = (uint64_t)getpid();
    pthread_mutex_init(&db->mutex, NULL);
    pthread_cond_init(&db->writer_free, NULL);
    pthread_cond_init(&db->exclusive_over, NULL);
    if (path) {
        db->path = strdup(path);
    } else if (options->durability == CE_DURABILITY_MEMORY_ONLY && options->in_memory_identifier) {
        db->path = in_memory_path(options->in_memory_identifier);
    } else {
        free_db(db);
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_open: a path is required (or an in-memory identifier)");
    }
    if (!db->path || !(db->lock_path = malloc(strlen(db->path) + 6))) {
        free_db(db);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    sprintf(db->lock_path, "%s.lock", db->path);
    if (options->read_only && options->durability == CE_DURABILITY_MEMORY_ONLY) {
        free_db(db);
        return error_fail(CE_ERR_INVALID_ARGUMENT, "an in-memory database cannot be opened read-only");
    }
    if (!open_lock_file(db)) {
        free_db(db);
        return false;
    }
    if (!os_lock_range(db->lock_fd, LIVENESS_BASE + db->pid, 1, false, true, NULL, db->lock_path)) {
        free_db(db);
        return false;
    }
    version_info latest = read_latest(db->shared);
    if (latest.version == 0) {
        /* A new file: the first commit creates version 1 with an empty top. */
        ce_txn *txn;
        if (!ce_txn_begin_write(db, &txn) || !ce_txn_commit(txn)) {
            error_saved saved;
            error_save(&saved);
            free_db(db);
            return error_restore(&saved);
        }
    }
    *out_db = db;
    return true;
}

bool ce_db_close(ce_db *db)
{
    if (!db) return true;
    pthread_mutex_lock(&db->mutex);
    size_t open_transactions = db->open_transactions;
    pthread_mutex_unlock(&db->mutex);
    if (open_transactions > 0)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot close '%s': %zu transactions are still open", db->path,
                       open_transactions);
    write_sync_record(db, read_latest(db->shared).version);
    if (db->options.durability == CE_DURABILITY_MEMORY_ONLY) {
        bool busy;
        /* The last handle of an in-memory database removes its files. */
        if (os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, true, false, &busy, db->lock_path)) {
            os_active->unlink(db->path);
            os_active->unlink(db->lock_path);
        }
    }
    free_db(db);
    return true;
}

const char *ce_db_path(const ce_db *db) { return db->path; }

/* Removes `path` if it exists; whether it did, or false with the error. */
static bool remove_if_exists(const char *path, bool *out_removed)
{
    *out_removed = false;
    if (os_active->unlink(path) == 0) {
        *out_removed = true;
        return true;
    }
    if (errno == ENOENT) return true;
    return error_fail_errno(errno, "unlink", path);
}

bool ce_db_delete_files(const char *path, bool *out_deleted)
{
    if (!path) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_delete_files: path is required");
    if (out_deleted) *out_deleted = false;
    size_t length = strlen(path) + 16;
    char *lock_path = malloc(length), *compact_path = malloc(length);
    if (!lock_path || !compact_path) {
        free(lock_path);
        free(compact_path);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    snprintf(lock_path, length, "%s.lock", path);
    snprintf(compact_path, length, "%s.compact", path);
    bool ok = true;
    int lock_fd = os_active->open(lock_path, O_RDWR | O_CLOEXEC, 0);
    if (lock_fd < 0 && errno != ENOENT) ok = error_fail_errno(errno, "open lock file", lock_path);
    if (ok && lock_fd >= 0) {
        /* Every handle holds byte 0 of the lock file shared while it is
         * open: holding it exclusively proves that none is, in any process. */
        bool busy;
        if (!os_lock_range(lock_fd, INIT_LOCK_BYTE, 1, true, false, &busy, lock_path)) {
            ok = busy ? error_fail(CE_ERR_ALREADY_OPEN, "Cannot delete files of an open Realm: '%s' is still in use.", path)
                      : false;
        } else if (os_active->ftruncate(lock_fd, 0) != 0) {
            /* Emptied first: a handle that opened the lock file before it is
             * unlinked finds it uninitialized and starts again with a new
             * one, instead of attaching to the deleted one. */
            ok = error_fail_errno(errno, "truncate", lock_path);
        }
    }
    bool removed = false, ignored;
    if (ok) ok = remove_if_exists(path, &removed);
    if (ok) ok = remove_if_exists(compact_path, &ignored);
    if (ok && lock_fd >= 0) ok = remove_if_exists(lock_path, &ignored);
    if (lock_fd >= 0) os_active->close(lock_fd); /* releases the lock */
    if (ok && out_deleted) *out_deleted = removed;
    free(lock_path);
    free(compact_path);
    return ok;
}

bool ce_db_latest_version(ce_db *db, uint64_t *out_version)
{
    if (!db || !out_version) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_latest_version: arguments are required");
    *out_version = read_latest(db->shared).version;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */
/* ------------------------------------------------------------------------ */

/* Counts a transaction that begins; waits while another thread of this
 * handle compacts the file (the file is being replaced under the handle). */
static void enter_transaction(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    while (db->exclusive && !pthread_equal(db->exclusive_thread, pthread_self()))
        pthread_cond_wait(&db->exclusive_over, &db->mutex);
    db->open_transactions++;
    pthread_mutex_unlock(&db->mutex);
}

static void leave_transaction(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    db->open_transactions--;
    pthread_mutex_unlock(&db->mutex);
}

static bool attach_snapshot(ce_txn *txn)
{
    const uint8_t *base;
    pager_state *pager = txn->db->pager;
    if (!pager_map(pager, txn->info.logical_size, &base)) return false;
    space_init_read(&txn->space, base, txn->info.logical_size);
    if (pager_is_encrypted(pager)) space_set_cipher_reader(&txn->space, pager, txn->info.version, txn->epoch);
    new_stamp(txn);
    if (txn->info.top_ref == 0) { /* version 0: the file is being created */
        txn->user_root = txn->free_list_ref = txn->history_ref = 0;
        return true;
    }
    return load_top(txn);
}

/* Links a read transaction into its handle's list (db->mutex held). */
static void link_reader(ce_db *db, ce_txn *txn)
{
    txn->previous_reader = NULL;
    txn->next_reader = db->readers;
    if (db->readers) db->readers->previous_reader = txn;
    db->readers = txn;
}

static void unlink_reader(ce_db *db, ce_txn *txn)
{
    pthread_mutex_lock(&db->mutex);
    if (txn->previous_reader) txn->previous_reader->next_reader = txn->next_reader;
    else if (db->readers == txn) db->readers = txn->next_reader;
    if (txn->next_reader) txn->next_reader->previous_reader = txn->previous_reader;
    txn->next_reader = txn->previous_reader = NULL;
    pthread_mutex_unlock(&db->mutex);
}

/* Begins a read transaction: at the latest version (`at` NULL), or at the
 * version `*at` that a live read transaction of the handle pins. */
static bool begin_read(ce_db *db, const uint64_t *at, ce_txn **out_txn)
{
    ce_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    txn->db = db;
    enter_transaction(db);
    if (!claim_reader_slot(db, &txn->reader_slot)) {
        leave_transaction(db);
        free(txn);
        return false;
    }
    if (at) {
        /* The version is pinned by `pinning` for as long as we hold the
         * mutex (it unlinks itself under it before it releases its slot, and
         * advances under it): pin it in our slot before letting go. */
        pthread_mutex_lock(&db->mutex);
        ce_txn *pinning = db->readers;
        while (pinning && pinning->info.version != *at) pinning = pinning->next_reader;
        if (pinning) {
            txn->info = pinning->info;
            atomic_store(&db->shared->readers[txn->reader_slot].version, txn->info.version);
        }
        pthread_mutex_unlock(&db->mutex);
        if (!pinning) {
            release_reader_slot(db, txn->reader_slot);
            leave_transaction(db);
            free(txn);
            return error_fail(CE_ERR_WRONG_TRANSACTION_STATE,
                           "cannot begin a read transaction at version %llu of '%s': no live read transaction of this "
                           "handle pins it (a version nobody pins may already be overwritten)",
                           (unsigned long long)*at, db->path);
        }
    } else {
        txn->info = pin_latest(db, txn->reader_slot);
    }
    if (!pager_begin_reading(db->pager, &txn->epoch) || !attach_snapshot(txn)) {
        pager_end_reading(db->pager, txn->epoch);
        release_reader_slot(db, txn->reader_slot);
        leave_transaction(db);
        space_free_ready_pages(&txn->space);
        free(txn);
        return false;
    }
    pthread_mutex_lock(&db->mutex);
    link_reader(db, txn);
    pthread_mutex_unlock(&db->mutex);
    *out_txn = txn;
    return true;
}

bool ce_txn_begin_read(ce_db *db, ce_txn **out_txn)
{
    if (!db || !out_txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_begin_read: arguments are required");
    return begin_read(db, NULL, out_txn);
}

bool ce_txn_begin_read_at(ce_db *db, uint64_t version, ce_txn **out_txn)
{
    if (!db || !out_txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_begin_read_at: arguments are required");
    return begin_read(db, &version, out_txn);
}

bool ce_txn_advance(ce_txn *txn)
{
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_advance: txn is required");
    if (txn->write) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot advance a write transaction");
    ce_db *db = txn->db;
    release_layer_state(txn);
    /* The new version is pinned in a second slot, and the old slot let go
     * only once the new snapshot is attached: if attaching fails (the file
     * cannot be mapped that far), the transaction stays on its version,
     * which its own slot kept pinned all along, so no writer reused it. */
    int next_slot;
    if (!claim_reader_slot(db, &next_slot)) return false;
    version_info previous = txn->info;
    int previous_slot = txn->reader_slot;
    uint64_t previous_epoch = txn->epoch;
    /* Pointers from before the advance are no longer valid: a new epoch. */
    if (!pager_begin_reading(db->pager, &txn->epoch)) {
        txn->epoch = previous_epoch;
        release_reader_slot(db, next_slot);
        return false;
    }
    /* Under the mutex: ce_txn_begin_read_at reads `info` of the handle's readers. */
    pthread_mutex_lock(&db->mutex);
    txn->info = pin_latest(db, next_slot);
    txn->reader_slot = next_slot;
    pthread_mutex_unlock(&db->mutex);
    if (!attach_snapshot(txn)) {
        /* Back to the previous snapshot, which the old slot kept pinned
         * (its error is the one reported; mapping and reading that
         * version worked before). */
        pager_end_reading(db->pager, txn->epoch);
        txn->epoch = previous_epoch;
        pthread_mutex_lock(&db->mutex);
        txn->info = previous;
        txn->reader_slot = previous_slot;
        pthread_mutex_unlock(&db->mutex);
        release_reader_slot(db, next_slot);
        error_saved saved;
        error_save(&saved);
        attach_snapshot(txn);
        return error_restore(&saved);
    }
    release_reader_slot(db, previous_slot);
    pager_end_reading(db->pager, previous_epoch);
    return true;
}

void db_txn_release_pages(ce_txn *txn)
{
    if (!pager_is_encrypted(txn->db->pager)) return;
    uint64_t previous = txn->epoch, epoch;
    /* Out of memory: the pages stay (the cache is then over its limit). */
    if (!pager_begin_reading(txn->db->pager, &epoch)) return;
    txn->epoch = epoch;
    space_set_read_epoch(&txn->space, txn->epoch);
    pager_end_reading(txn->db->pager, previous);
}

/* Takes the write lock: first among this handle's threads, then among
 * handles and processes (an exclusive lock on byte 1 of the lock file). */
static bool acquire_writer(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    if (db->writer_busy && pthread_equal(db->writer_thread, pthread_self())) {
        /* Waiting would wait for ourselves forever. */
        pthread_mutex_unlock(&db->mutex);
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "The Realm is already in a write transaction");
    }
    while (db->writer_busy) pthread_cond_wait(&db->writer_free, &db->mutex);
    db->writer_busy = true;
    db->writer_thread = pthread_self();
    pthread_mutex_unlock(&db->mutex);
    if (!os_lock_range(db->lock_fd, WRITER_LOCK_BYTE, 1, true, true, NULL, db->lock_path)) {
        pthread_mutex_lock(&db->mutex);
        db->writer_busy = false;
        pthread_cond_signal(&db->writer_free);
        pthread_mutex_unlock(&db->mutex);
        return false;
    }
    return true;
}

static void release_writer(ce_db *db)
{
    os_unlock_range(db->lock_fd, WRITER_LOCK_BYTE, 1, db->lock_path);
    pthread_mutex_lock(&db->mutex);
    db->writer_busy = false;
    pthread_cond_signal(&db->writer_free);
    pthread_mutex_unlock(&db->mutex);
}

/* A writer that died after writing its slot but before publishing leaves
 * the header ahead of the lock file (and committing_version set): adopt the
 * header's slot if it is whole. A commit that failed cleanly clears the
 * mark, so its slot is never adopted. */
static bool catch_up_with_header(ce_db *db, version_info *latest)
{
    if (atomic_load(&db->shared->committing_version) == 0) return true;
    atomic_store(&db->shared->committing_version, 0);
    if (latest->version == 0) return true;
    uint64_t file_size;
    uint8_t *pages = malloc(2 * PAGE_SIZE_BYTES);
    slot_record *slot = malloc(sizeof *slot);
    bool ok = pages && slot;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the header of '%s'", db->path);
    ok = ok && pager_file_size(db->pager, &file_size) && pager_read(db->pager, PAGE_SIZE_BYTES, pages, 2 * PAGE_SIZE_BYTES);
    for (int i = 0; ok && i < 2; i++) {
        if (decode_slot_page(pages + (size_t)i * PAGE_SIZE_BYTES, file_size, slot, db->pager) &&
            slot->info.version == latest->version + 1) {
            *latest = slot->info;
            publish_latest(db->shared, latest);
        }
    }
    free(pages);
    free(slot);
    return ok;
}

bool ce_txn_begin_write(ce_db *db, ce_txn **out_txn)
{
    if (!db || !out_txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_begin_write: arguments are required");
    if (db->options.read_only) return error_fail(CE_ERR_READ_ONLY, "cannot write to '%s': it was opened read-only", db->path);
    ce_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    txn->db = db;
    txn->write = true;
    txn->reader_slot = -1;
    enter_transaction(db);
    if (!acquire_writer(db)) {
        leave_transaction(db);
        free(txn);
        return false;
    }
    version_info latest = read_latest(db->shared);
    uint64_t oldest, active;
    space_free_extent *free_list = NULL;
    size_t free_count = 0;
    if (!catch_up_with_header(db, &latest) || !scan_readers(db, latest.version, &oldest, &active)) goto fail;
    if (db->options.max_active_versions > 0 && active > db->options.max_active_versions) {
        error_fail(CE_ERR_TOO_MANY_VERSIONS, "Number of active versions (%llu) in the Realm exceeded the limit of %llu",
                (unsigned long long)active, (unsigned long long)db->options.max_active_versions);
        goto fail;
    }
    txn->info = latest;
    if (!pager_begin_reading(db->pager, &txn->epoch) || !attach_snapshot(txn) ||
        !load_free_list(txn, &free_list, &free_count))
        goto fail;
    /* The snapshot's read view (its cipher reader included) becomes writable. */
    if (!space_init_write(&txn->space, free_list, free_count, oldest, latest.version + 1)) goto fail;
    free(free_list);
    *out_txn = txn;
    return true;
fail:
    free(free_list);
    space_release(&txn->space);
    space_free_ready_pages(&txn->space);
    pager_end_reading(db->pager, txn->epoch);
    release_writer(db);
    leave_transaction(db);
    free(txn);
    return false;
}

bool ce_txn_is_write(const ce_txn *txn) { return txn && txn->write; }
uint64_t ce_txn_version(const ce_txn *txn) { return txn ? txn->info.version : 0; }

space_state *db_txn_space(ce_txn *txn) { return &txn->space; }

ce_db *db_txn_db(const ce_txn *txn) { return txn->db; }

bool db_txn_flush_layer(ce_txn *txn)
{
    if (!txn->write) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "only a write transaction buffers changes");
    return !txn->before_commit || txn->before_commit(txn, txn->layer_state);
}
space_ref db_txn_root(const ce_txn *txn) { return txn->user_root; }
space_ref db_txn_history(const ce_txn *txn) { return txn->history_ref; }

bool db_txn_require_write(const ce_txn *txn)
{
    if (!txn || !txn->write)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "Cannot modify managed objects outside of a write transaction.");
    return true;
}

bool db_txn_set_root(ce_txn *txn, space_ref root)
{
    if (!db_txn_require_write(txn)) return false;
    txn->user_root = root;
    new_stamp(txn);
    return true;
}

static void end_transaction(ce_txn *txn)
{
    ce_db *db = txn->db;
    release_layer_state(txn);
    if (txn->write) {
        space_release(&txn->space);
        release_writer(db);
    } else {
        unlink_reader(db, txn);
        release_reader_slot(db, txn->reader_slot);
    }
    space_free_ready_pages(&txn->space);
    pager_end_reading(db->pager, txn->epoch);
    leave_transaction(db);
    free(txn);
}

void ce_txn_end(ce_txn *txn)
{
    if (txn) end_transaction(txn);
}

/* ------------------------------------------------------------------------ */
/* Commit                                                                    */
/* ------------------------------------------------------------------------ */

/* Places every dirty node of the new version and fills in the free list.
 * On return the space holds the bytes to write and `out_info` the version. */
static bool build_new_version(ce_txn *txn, version_info *out_info)
{
    space_state *space = &txn->space;
    uint64_t new_version = txn->info.version + 1;
    if (txn->info.top_ref && !node_free(space, txn->info.top_ref)) return false;
    if (txn->free_list_ref && !node_free(space, txn->free_list_ref)) return false;
    /* Every committed range this transaction frees is known now: merge them
     * into the free list before anything is placed. */
    if (!space_commit_prepare(space)) return false;
    size_t free_count;
    space_free_list(space, &free_count);
    /* The free list may gain the gap entry of space_plan_placement: +2. */
    if (!space_plan_placement(space, node_dirty_size_bound(space) + node_size_for(64, TOP_COUNT) +
                                         node_size_for(64, 3 * (free_count + 2))))
        return false;
    space_ref root = 0, history = 0;
    if (txn->user_root && !node_finalize_tree(space, txn->user_root, &root)) return false;
    if (txn->history_ref && !node_finalize_tree(space, txn->history_ref, &history)) return false;

    /* The free list describes the space after every placement, including its
     * own: reserve it first, place the top, then fill it in. Placing adds at
     * most one entry (the gap of an appended commit), so the current count
     * plus two is an upper bound; its width holds every position, size and
     * version it can hold (the end of the file grows by at most the list, the
     * gap and the top: a megabyte of margin). */
    space_free_list(space, &free_count);
    size_t reserved_entries = free_count + 2;
    uint64_t largest_value = space->placement_end + node_size_for(64, 3 * reserved_entries) + (1u << 20);
    if (new_version > largest_value) largest_value = new_version;
    uint8_t list_width = node_width_for((int64_t)largest_value);
    uint64_t list_size = node_size_for(list_width, 3 * reserved_entries);
    uint64_t list_position;
    uint8_t *list_bytes;
    if (!space_place(space, list_size, false, &list_position, &list_bytes)) return false;

    space_ref top;
    if (!node_create(space, NODE_HAS_REFS, TOP_COUNT, 0, &top)) return false;
    if (!node_set(space, top, TOP_USER_ROOT, (int64_t)root) ||
        !node_set(space, top, TOP_FREE_LIST, (int64_t)list_position) ||
        !node_set(space, top, TOP_VERSION, node_tag((int64_t)new_version)) ||
        !node_set(space, top, TOP_HISTORY, (int64_t)history))
        return false;
    space_ref top_final;
    if (!node_finalize_tree(space, top, &top_final)) return false;

    const space_free_extent *extents = space_free_list(space, &free_count);
    if (free_count > reserved_entries || space->placement_end > largest_value)
        return error_fail(CE_ERR_FAIL, "internal error: the free list outgrew its reservation");
    list_bytes = space_placed_buffer(space, list_position);
    memset(list_bytes, 0, (size_t)list_size);
    node_encode_header(list_bytes, 0, list_width, (uint32_t)(3 * reserved_entries));
    uint8_t *entries = list_bytes + NODE_HEADER_SIZE;
    size_t written = 0;
    for (size_t i = 0; i < free_count; i++) {
        if (extents[i].size == 0) continue; /* a range placement used up */
        node_encode_element(entries, list_width, 3 * written, (int64_t)extents[i].position);
        node_encode_element(entries, list_width, 3 * written + 1, (int64_t)extents[i].size);
        node_encode_element(entries, list_width, 3 * written + 2, (int64_t)extents[i].freed_in_version);
        written++;
    }
    *out_info = (version_info){new_version, top_final, space->placement_end};
    return true;
}

/* Records that `version` is on stable storage. Not synced: the next commit's
 * sync carries it, and until then a missing or torn record only costs a
 * verification at open. Written after large commits and at close only: every
 * separate page a sync has to flush makes it slower. */
static void write_sync_record(ce_db *db, uint64_t version)
{
    if (db->options.durability != CE_DURABILITY_FULL || db->options.read_only || version == 0) return;
    uint8_t page[PAGE_SIZE_BYTES];
    encode_sync_page(page, version);
    pager_write(db->pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, sizeof page);
}

/* After a failed sync the slot may or may not be on disk: overwrite it so
 * that the commit we report as failed cannot appear at the next open. */
static void invalidate_slot(ce_db *db, uint64_t slot_offset)
{
    uint8_t page[PAGE_SIZE_BYTES];
    memset(page, 0, sizeof page);
    if (pager_write(db->pager, slot_offset, page, sizeof page) && db->options.durability == CE_DURABILITY_FULL)
        pager_sync(db->pager);
}

static bool write_new_version(ce_txn *txn, const version_info *info, uint64_t *out_bytes_written)
{
    ce_db *db = txn->db;
    bool sync = db->options.durability == CE_DURABILITY_FULL;
    pager_write_run *runs = NULL;
    size_t run_count = 0;
    slot_record *slot = calloc(1, sizeof *slot);
    uint8_t *page = malloc(PAGE_SIZE_BYTES);
    bool ok = false, slot_written = false;
    uint64_t slot_offset = (uint64_t)(1 + info->version % 2) * PAGE_SIZE_BYTES;
    if (!slot || !page) {
        error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", db->path);
        goto done;
    }
    if (!space_write_runs(&txn->space, &runs, &run_count)) goto done;
    atomic_store(&db->shared->committing_version, info->version);
    if (!pager_ensure_size(db->pager, info->logical_size)) goto done;
    slot->info = *info;
    checksum_state data;
    checksum_init(&data, CHECKSUM_SEED_DATA);
    *out_bytes_written = 0;
    size_t slot_room = pager_is_encrypted(db->pager) ? SLOT_MAX_RUNS_ENCRYPTED : SLOT_MAX_RUNS;
    bool listed = sync && run_count <= db_slot_run_limit && run_count <= slot_room;
    if (!pager_write_runs(db->pager, runs, run_count)) goto done;
    for (size_t i = 0; i < run_count; i++) {
        *out_bytes_written += runs[i].length;
        if (listed) {
            /* Over the bytes as the layers above wrote them: for an
             * encrypted file, what its pages decrypt to. */
            checksum_add(&data, runs[i].bytes, runs[i].length);
            slot->runs[i][0] = runs[i].position;
            slot->runs[i][1] = runs[i].length;
        }
    }
    if (listed) {
        slot->run_count = (uint32_t)run_count;
        slot->data_checksum = checksum_final(&data);
    } else if (sync && !pager_sync(db->pager)) {
        goto done; /* too many runs for one slot: data first, then the slot */
    }
    if (!encode_slot_page(page, slot, db->pager)) goto done;
    slot_written = true;
    if (!pager_write(db->pager, slot_offset, page, PAGE_SIZE_BYTES)) goto done;
    if (sync && !pager_sync(db->pager)) goto done;
    ok = true;
done:
    if (!ok && slot_written) {
        error_saved saved;
        error_save(&saved);
        invalidate_slot(db, slot_offset);
        error_restore(&saved);
    }
    free(runs);
    free(slot);
    free(page);
    return ok;
}

bool ce_txn_commit(ce_txn *txn)
{
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_commit: txn is required");
    if (!txn->write) {
        ce_txn_end(txn);
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot commit a read transaction");
    }
    ce_db *db = txn->db;
    version_info info = {0};
    uint64_t bytes_written = 0;
    bool ok = (!txn->before_commit || txn->before_commit(txn, txn->layer_state)) && build_new_version(txn, &info) &&
              write_new_version(txn, &info, &bytes_written);
    if (ok) {
        publish_latest(db->shared, &info);
        /* After a large commit, vouch for it so that an open after a crash
         * need not read it all back; a small one is cheap to check, and one
         * more page in the next sync is not (see write_sync_record). */
        if (bytes_written >= SYNC_RECORD_MINIMUM_BYTES) write_sync_record(db, info.version);
    }
    atomic_store(&db->shared->committing_version, 0);
    end_transaction(txn);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Verify                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct extent_list {
    space_free_extent *items; /* freed_in_version unused: 1 = free range, 0 = node */
    size_t count, capacity;
    space_ref *seen;          /* open-addressing set of visited refs */
    size_t seen_capacity, seen_count;
    uint64_t node_bytes, node_count;
} extent_list;

static bool add_extent(extent_list *list, uint64_t position, uint64_t size, uint64_t is_free)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 256;
        space_free_extent *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory verifying");
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = (space_free_extent){position, size, is_free};
    return true;
}

static bool mark_seen(extent_list *list, space_ref ref)
{
    if (2 * (list->seen_count + 1) > list->seen_capacity) {
        size_t capacity = list->seen_capacity ? list->seen_capacity * 2 : 1024;
        space_ref *table = calloc(capacity, sizeof *table);
        if (!table) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory verifying");
        for (size_t i = 0; i < list->seen_capacity; i++) {
            space_ref old = list->seen[i];
            if (!old) continue;
            size_t slot = (size_t)((old >> 3) * 0x9E3779B97F4A7C15ull) & (capacity - 1);
            while (table[slot]) slot = (slot + 1) & (capacity - 1);
            table[slot] = old;
        }
        free(list->seen);
        list->seen = table;
        list->seen_capacity = capacity;
    }
    size_t slot = (size_t)((ref >> 3) * 0x9E3779B97F4A7C15ull) & (list->seen_capacity - 1);
    while (list->seen[slot]) {
        if (list->seen[slot] == ref)
            return error_fail(CE_ERR_CORRUPT, "invalid database: the node at offset %llu is referenced twice",
                           (unsigned long long)ref);
        slot = (slot + 1) & (list->seen_capacity - 1);
    }
    list->seen[slot] = ref;
    list->seen_count++;
    return true;
}

static bool collect_node(void *context, space_ref ref, const node_view *node)
{
    extent_list *list = context;
    if (!mark_seen(list, ref)) return false;
    list->node_bytes += node_size(node);
    list->node_count++;
    return add_extent(list, ref, node_size(node), 0);
}

static int compare_positions(const void *a, const void *b)
{
    const space_free_extent *left = a, *right = b;
    return (left->position > right->position) - (left->position < right->position);
}

bool ce_db_verify(ce_db *db, ce_db_stats *out_stats)
{
    if (!db) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_verify: db is required");
    ce_txn *txn;
    if (!ce_txn_begin_read(db, &txn)) return false;
    extent_list list = {0};
    bool ok = false;
    uint64_t free_bytes = 0, free_extents = 0;
    const space_state *space = &txn->space;
    if (!node_walk_tree(space, txn->info.top_ref, NODE_MAX_TREE_DEPTH, collect_node, &list)) goto done;
    space_free_extent *free_list = NULL;
    size_t free_count = 0;
    if (!load_free_list(txn, &free_list, &free_count)) goto done;
    for (size_t i = 0; i < free_count; i++) {
        if (free_list[i].size == 0) continue;
        if (free_list[i].freed_in_version > txn->info.version) {
            /* The message reads the entry: free the list after it. */
            error_fail(CE_ERR_CORRUPT, "invalid database: free range at %llu is tagged with future version %llu",
                    (unsigned long long)free_list[i].position, (unsigned long long)free_list[i].freed_in_version);
            free(free_list);
            goto done;
        }
        free_bytes += free_list[i].size;
        free_extents++;
        if (!add_extent(&list, free_list[i].position, free_list[i].size, 1)) {
            free(free_list);
            goto done;
        }
    }
    free(free_list);
    if (list.count > 1) qsort(list.items, list.count, sizeof *list.items, compare_positions);
    uint64_t expected = CE_HEADER_SIZE;
    for (size_t i = 0; i < list.count; i++) {
        const space_free_extent *item = &list.items[i];
        if (item->position < expected) {
            error_fail(CE_ERR_CORRUPT, "invalid database: %s at offset %llu overlaps the range before it (which ends at %llu)",
                    item->freed_in_version ? "a free range" : "a node", (unsigned long long)item->position,
                    (unsigned long long)expected);
            goto done;
        }
        if (item->position > expected) {
            error_fail(CE_ERR_CORRUPT, "invalid database: %llu bytes at offset %llu are neither used nor free (leaked)",
                    (unsigned long long)(item->position - expected), (unsigned long long)expected);
            goto done;
        }
        expected = item->position + item->size;
    }
    if (expected != txn->info.logical_size) {
        error_fail(CE_ERR_CORRUPT, "invalid database: the file's used and free ranges end at %llu, its logical size is %llu",
                (unsigned long long)expected, (unsigned long long)txn->info.logical_size);
        goto done;
    }
    if (out_stats) {
        uint64_t oldest, active;
        memset(out_stats, 0, sizeof *out_stats);
        out_stats->version = txn->info.version;
        pager_file_size(db->pager, &out_stats->file_size);
        out_stats->logical_size = txn->info.logical_size;
        out_stats->used_bytes = list.node_bytes + CE_HEADER_SIZE;
        out_stats->free_bytes = free_bytes;
        out_stats->node_count = list.node_count;
        out_stats->free_extent_count = free_extents;
        if (scan_readers(db, read_latest(db->shared).version, &oldest, &active)) out_stats->active_versions = active;
    }
    ok = true;
done:
    free(list.items);
    free(list.seen);
    ce_txn_end(txn);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Copies: a new file written front to back, and replacing the file          */
/* ------------------------------------------------------------------------ */

bool db_txn_space_usage(ce_txn *txn, db_space_usage *out_usage)
{
    memset(out_usage, 0, sizeof *out_usage);
    space_free_extent *free_list = NULL;
    size_t free_count = 0;
    if (!pager_file_size(txn->db->pager, &out_usage->file_size) || !load_free_list(txn, &free_list, &free_count))
        return false;
    uint64_t free_bytes = 0;
    for (size_t i = 0; i < free_count; i++) free_bytes += free_list[i].size;
    free(free_list);
    /* The db layer's own nodes: the top and the free list. */
    uint64_t own_bytes = 0;
    node_view node;
    if (txn->info.top_ref) {
        if (!node_read(&txn->space, txn->info.top_ref, &node)) return false;
        own_bytes += node_size(&node);
    }
    if (txn->free_list_ref) {
        if (!node_read(&txn->space, txn->free_list_ref, &node)) return false;
        own_bytes += node_size(&node);
    }
    uint64_t logical = txn->info.logical_size;
    if (free_bytes > logical - CE_HEADER_SIZE || own_bytes > logical - CE_HEADER_SIZE - free_bytes)
        return error_fail(CE_ERR_CORRUPT,
                       "invalid database: the free list of '%s' holds more bytes (%llu) than the file has free",
                       txn->db->path, (unsigned long long)free_bytes);
    out_usage->logical_size = logical;
    out_usage->free_bytes = free_bytes;
    out_usage->data_bytes = logical - CE_HEADER_SIZE - free_bytes - own_bytes;
    out_usage->compacted_size =
        pager_physical_size(txn->db->pager, CE_HEADER_SIZE + out_usage->data_bytes + node_size_for(64, TOP_COUNT));
    return true;
}

#define WRITER_FLUSH_BYTES (1u << 20)

bool db_file_writer_syncs = true;

struct db_file_writer {
    ce_db *source;
    pager_state *pager;
    char *path;
    uint8_t *buffer;          /* bytes not yet written, from buffer_position on */
    size_t length, capacity;
    uint64_t buffer_position; /* a multiple of the page size */
    version_info info;        /* once finished */
};

bool db_path_exists(const char *path)
{
    int fd = os_active->open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0);
    if (fd >= 0) {
        os_active->close(fd);
        return true;
    }
    return errno != ENOENT; /* a name that cannot be opened (a link, no permission) is there */
}

bool db_file_writer_create(ce_db *source, const char *temporary_path, bool replace_stale,
                           const db_copy_encryption *encryption, db_file_writer **out_writer)
{
    if (replace_stale) os_active->unlink(temporary_path);
    if (encryption->same_as_source && encryption->key)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "internal error: a copy with both the source's key and a new one");
    db_file_writer *writer = calloc(1, sizeof *writer);
    uint8_t *header = calloc(1, CE_HEADER_SIZE);
    if (!writer || !header || !(writer->path = strdup(temporary_path))) {
        free(writer ? writer->path : NULL);
        free(writer);
        free(header);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory creating '%s'", temporary_path);
    }
    writer->source = source;
    writer->buffer_position = CE_HEADER_SIZE;
    if (!pager_create_new(temporary_path, &writer->pager)) {
        free(writer->path);
        free(writer);
        free(header);
        return false;
    }
    pager_set_early_writeback(writer->pager, db_file_writer_syncs);
    /* The copy's cipher: the source's keys (its salt, so its key opens the
     * copy), keys derived from a new key under a new salt, or none. */
    cipher_header cipher;
    memset(&cipher, 0, sizeof cipher);
    crypt_state *crypt = NULL;
    uint64_t cache_bytes = source->options.encryption_cache_bytes;
    bool ok = true;
    if (encryption->same_as_source && source->cipher.encrypted) {
        cipher = source->cipher;
        uint32_t group_pages;
        ok = pager_clone_cipher(source->pager, &crypt, &group_pages, &cache_bytes);
    } else if (encryption->key) {
        ok = new_cipher(encryption->key, &cipher, &crypt);
    }
    if (ok && crypt) ok = pager_enable_cipher(writer->pager, crypt, cipher.group_pages, cache_bytes);
    /* The static page now, blank slots: until the slot is written last, the
     * file holds no version. */
    if (ok) {
        encode_static_page(header, &cipher);
        ok = pager_write(writer->pager, 0, header, CE_HEADER_SIZE);
    }
    free(header);
    if (!ok) {
        db_file_writer_discard(writer);
        return false;
    }
    *out_writer = writer;
    return true;
}

/* Writes the whole pages of the buffer (all of it when `everything`): a
 * page is written once, complete. */
static bool flush_writer(db_file_writer *writer, bool everything)
{
    size_t length = everything ? writer->length : writer->length & ~(size_t)(PAGE_SIZE_BYTES - 1);
    if (length == 0) return true;
    pager_write_run run = {writer->buffer_position, writer->buffer, length};
    if (!pager_write_runs(writer->pager, &run, 1)) return false;
    memmove(writer->buffer, writer->buffer + length, writer->length - length);
    writer->length -= length;
    writer->buffer_position += length;
    return true;
}

bool db_file_writer_reserve(db_file_writer *writer, size_t size, space_ref *out_position, uint8_t **out_bytes)
{
    if (writer->length >= WRITER_FLUSH_BYTES && !flush_writer(writer, false)) return false;
    if (writer->length + size > writer->capacity) {
        size_t capacity = writer->capacity ? writer->capacity : 2 * WRITER_FLUSH_BYTES;
        while (capacity < writer->length + size) capacity *= 2;
        uint8_t *grown = realloc(writer->buffer, capacity);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", writer->path);
        writer->buffer = grown;
        writer->capacity = capacity;
    }
    *out_position = writer->buffer_position + writer->length;
    *out_bytes = writer->buffer + writer->length;
    writer->length += size;
    return true;
}

bool db_file_writer_finish(db_file_writer *writer, uint64_t version, space_ref user_root, space_ref history)
{
    int64_t top_values[TOP_COUNT];
    top_values[TOP_USER_ROOT] = (int64_t)user_root;
    top_values[TOP_FREE_LIST] = 0; /* nothing is free in a compacted file */
    top_values[TOP_VERSION] = node_tag((int64_t)version);
    top_values[TOP_HISTORY] = (int64_t)history;
    uint8_t width = 0;
    for (int i = 0; i < TOP_COUNT; i++)
        if (node_width_for(top_values[i]) > width) width = node_width_for(top_values[i]);
    space_ref top_ref;
    uint8_t *top;
    size_t top_size = (size_t)node_size_for(width, TOP_COUNT);
    if (!db_file_writer_reserve(writer, top_size, &top_ref, &top)) return false;
    memset(top, 0, top_size);
    node_encode_header(top, NODE_HAS_REFS, width, TOP_COUNT);
    for (int i = 0; i < TOP_COUNT; i++) node_encode_element(top + NODE_HEADER_SIZE, width, (size_t)i, top_values[i]);
    writer->info = (version_info){version, top_ref, writer->buffer_position + writer->length};
    if (!flush_writer(writer, true)) return false;
    /* One sync for the data and the slot after it: the file gets its name
     * (db_file_writer_install, db_replace_file) only once the sync is done,
     * so no open can meet the slot without the data. The slot therefore
     * lists no runs, and the sync record vouches for the version. */
    slot_record *slot = calloc(1, sizeof *slot);
    uint8_t *page = malloc(PAGE_SIZE_BYTES);
    bool ok = slot && page;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", writer->path);
    if (ok) {
        slot->info = writer->info;
        ok = encode_slot_page(page, slot, writer->pager) &&
             pager_write(writer->pager, (uint64_t)(1 + version % 2) * PAGE_SIZE_BYTES, page, PAGE_SIZE_BYTES);
    }
    if (ok) {
        encode_sync_page(page, version);
        ok = pager_write(writer->pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, PAGE_SIZE_BYTES) &&
             (!db_file_writer_syncs || pager_sync(writer->pager));
    }
    free(slot);
    free(page);
    return ok;
}

uint64_t db_file_writer_size(const db_file_writer *writer) { return writer->info.logical_size; }

static void release_writer_memory(db_file_writer *writer)
{
    free(writer->buffer);
    free(writer->path);
    free(writer);
}

void db_file_writer_discard(db_file_writer *writer)
{
    if (!writer) return;
    pager_close(writer->pager);
    os_active->unlink(writer->path);
    release_writer_memory(writer);
}

bool db_file_writer_install(db_file_writer *writer, const char *path)
{
    if (os_active->rename_noreplace(writer->path, path) != 0) {
        if (errno == EEXIST)
            return error_fail(CE_ERR_FILE_EXISTS, "cannot write a copy to '%s': the file exists", path);
        return error_fail_errno(errno, "rename", path);
    }
    pager_close(writer->pager);
    release_writer_memory(writer);
    return os_sync_directory_of(path);
}

void db_cache_usage(ce_db *db, uint64_t *out_pages, uint64_t *out_limit_pages)
{
    pager_cache_usage(db->pager, out_pages, out_limit_pages);
}

bool db_holds_key(const ce_db *db)
{
    uint8_t any = 0;
    for (size_t i = 0; i < sizeof db->key; i++) any |= db->key[i];
    return any != 0;
}

bool db_begin_exclusive(ce_db *db)
{
    if (db->options.read_only)
        return error_fail(CE_ERR_READ_ONLY, "cannot compact '%s': it was opened read-only", db->path);
    pthread_mutex_lock(&db->mutex);
    size_t open_transactions = db->open_transactions;
    bool busy = db->exclusive;
    if (open_transactions == 0 && !busy) {
        db->exclusive = true;
        db->exclusive_thread = pthread_self();
    }
    pthread_mutex_unlock(&db->mutex);
    if (busy) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "'%s' is being compacted by another thread", db->path);
    if (open_transactions > 0)
        return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot compact '%s': %zu transactions of the handle are open",
                       db->path, open_transactions);
    /* Every handle holds byte 0 shared: an exclusive lock is granted only
     * when this handle is the only one (in any process). */
    bool others;
    if (os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, true, false, &others, db->lock_path)) return true;
    if (others)
        error_fail(CE_ERR_ALREADY_OPEN, "cannot compact '%s': it is open in another handle or process", db->path);
    pthread_mutex_lock(&db->mutex);
    db->exclusive = false;
    pthread_cond_broadcast(&db->exclusive_over);
    pthread_mutex_unlock(&db->mutex);
    return false;
}

void db_end_exclusive(ce_db *db)
{
    /* Back to shared (waiting: nobody else can hold it now). A failure
     * would leave the byte exclusive: other handles would wait to open. */
    os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, false, true, NULL, db->lock_path);
    pthread_mutex_lock(&db->mutex);
    db->exclusive = false;
    pthread_cond_broadcast(&db->exclusive_over);
    pthread_mutex_unlock(&db->mutex);
}

bool db_replace_file(ce_db *db, db_file_writer *writer)
{
    if (os_active->rename(writer->path, db->path) != 0) {
        bool result = error_fail_errno(errno, "rename", db->path);
        db_file_writer_discard(writer);
        return result;
    }
    /* From here the new file is the file: the handle continues on the
     * writer's descriptor, which names it. The lock file is this handle's
     * alone, so the latest version is simply republished. */
    pager_close_replaced(db->pager);
    db->pager = writer->pager;
    atomic_store(&db->shared->committing_version, 0);
    publish_latest(db->shared, &writer->info);
    release_writer_memory(writer);
    return os_sync_directory_of(db->path);
}

const char *ce_engine_version(void) { return "0.1.0"; }
