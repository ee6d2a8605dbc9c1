/*
 * header.c — the file header: the static page, the two slots, the sync
 * record, and the choice of the version a file opens at.
 *
 * Owns: the four header pages (see header.h): their bytes, the match of
 * the user's key with the static page, which slot names the latest
 * whole commit, and whether blank slots are a new file or a damaged
 * header (data past the first commit's pages).
 * Never: writes a slot that names a version (the commit in db.c and the
 * writer in writer.c do, with header_encode_slot_page), or accepts a slot
 * whose checksum, HMAC or fields fail: a damaged slot is no slot, and the
 * other one wins.
 *
 * The slots take turns: a commit, or the sync of a group of grouped
 * commits, writes the one that does not hold the newest slot (group.c has
 * the order of the writes), so that the other one still names the
 * previous, durable version.
 */
#include "header.h"
#include "pagesum.h"
#include "checksum.h"
#include "db_internal.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

#define FORMAT_VERSION 1u
static const uint8_t FILE_MAGIC[8] = {'O', 'R', 'E', 'A', 'L', 'M', 'D', 'B'};
static const uint8_t SLOT_MAGIC[8] = {'O', 'R', 'S', 'L', 'O', 'T', '0', '1'};
static const uint8_t SYNC_MAGIC[8] = {'O', 'R', 'S', 'Y', 'N', 'C', '0', '1'};

#define STATIC_PAGE 0u
#define STATIC_FLAG_ENCRYPTED 1u
#define STATIC_FLAG_PAGE_SUMS 2u
#define STATIC_SALT_OFFSET 24u
#define STATIC_KEY_CHECK_OFFSET 40u
#define STATIC_GROUP_PAGES_OFFSET 56u
#define CHECKSUM_SEED_STATIC 0x53544154ull
#define CHECKSUM_SEED_SLOT 0x534C4F54ull
#define CHECKSUM_SEED_SYNC 0x53594E43ull

/* ------------------------------------------------------------------------ */
/* Encoding and decoding the pages                                           */
/* ------------------------------------------------------------------------ */

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

void header_encode_static_page(uint8_t *page, const cipher_header *cipher)
{
    memset(page, 0, PAGE_SIZE_BYTES);
    memcpy(page, FILE_MAGIC, 8);
    store_u32(page + 8, FORMAT_VERSION);
    store_u32(page + 12, cipher->encrypted ? STATIC_FLAG_ENCRYPTED : cipher->page_sums ? STATIC_FLAG_PAGE_SUMS : 0);
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
bool header_encode_slot_page(uint8_t *page, const slot_record *slot, const pager_state *pager)
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
bool header_decode_slot_page(const uint8_t *page, uint64_t file_size, slot_record *slot, const pager_state *pager)
{
    if (memcmp(page, SLOT_MAGIC, 8) != 0) return false;
    if (checksum_of(page, SLOT_CHECKSUM_OFFSET, CHECKSUM_SEED_SLOT) != load_u64(page + SLOT_CHECKSUM_OFFSET))
        return false;
    bool encrypted = pager_is_encrypted(pager);
    if (encrypted) {
        uint8_t mac[CRYPT_MAC_SIZE];
        if (!pager_header_mac(pager, page, SLOT_MAC_OFFSET, mac) || !crypt_equal(mac, page + SLOT_MAC_OFFSET, sizeof mac))
            return false;
        file_size = HEADER_MAX_LOGICAL_SIZE;
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

void header_encode_sync_page(uint8_t *page, uint64_t version)
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

bool header_read_sync_record(pager_state *pager, uint64_t *out_version)
{
    uint8_t *page = malloc(PAGE_SIZE_BYTES);
    if (!page) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading a file's header");
    bool ok = pager_read(pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, PAGE_SIZE_BYTES);
    if (ok) *out_version = decode_sync_page(page);
    free(page);
    return ok;
}

static bool page_is_blank(const uint8_t *page)
{
    for (size_t i = 0; i < PAGE_SIZE_BYTES; i++)
        if (page[i]) return false;
    return true;
}

/* Whether every byte of the file from `from` on is zero (read only for a
 * file whose slots are blank: a new file, or a damaged one). */
static bool tail_is_blank(ce_db *db, uint64_t from, uint64_t file_size, bool *out_blank)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *chunk = malloc(CHUNK);
    if (!chunk) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", db->path);
    *out_blank = true;
    bool ok = true;
    for (uint64_t at = from; ok && *out_blank && at < file_size; at += CHUNK) {
        size_t length = file_size - at < CHUNK ? (size_t)(file_size - at) : CHUNK;
        ok = pager_read(db->pager, at, chunk, length);
        for (size_t i = 0; ok && i < length; i++)
            if (chunk[i]) {
                *out_blank = false;
                break;
            }
    }
    free(chunk);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Choosing the version at open                                              */
/* ------------------------------------------------------------------------ */

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
    out_cipher->page_sums = (flags & STATIC_FLAG_PAGE_SUMS) != 0;
    /* Page checksums are for plain files (encrypted pages authenticate). */
    bool fields_ok = (flags & ~(STATIC_FLAG_ENCRYPTED | STATIC_FLAG_PAGE_SUMS)) == 0 &&
                     !(out_cipher->encrypted && out_cipher->page_sums) && load_u32(page + 16) == PAGE_SIZE_BYTES &&
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
void header_wipe_key(ce_db *db)
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
        /* Verified on read unless the handle turned it off; kept by every
         * commit either way (pagesum.c). */
        if (cipher->page_sums && !db->options.disable_page_checksums) return pager_enable_page_sums(db->pager);
        return true;
    }
    if (!db->key_given)
        return error_fail(CE_ERR_INVALID_DATABASE,
                       "invalid database: decryption failed: '%s' is encrypted and no encryption key was given",
                       db->path);
    crypt_state *crypt;
    uint8_t check[CRYPT_CHECK_SIZE];
    bool derived = crypt_create(db->key, cipher->salt, &crypt, check);
    header_wipe_key(db);
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
bool header_new_cipher(const uint8_t key[CRYPT_KEY_SIZE], cipher_header *out_header, crypt_state **out_crypt)
{
    memset(out_header, 0, sizeof *out_header);
    out_header->encrypted = true;
    out_header->group_pages = PAGER_MAX_GROUP_PAGES;
    return crypt_random(out_header->salt, sizeof out_header->salt) &&
           crypt_create(key, out_header->salt, out_crypt, out_header->key_check);
}

bool header_read_newest_slot(ce_db *db, slot_record *out_slot, uint32_t *out_page)
{
    uint64_t file_size;
    uint8_t *pages = malloc(2 * PAGE_SIZE_BYTES);
    slot_record *slot = malloc(sizeof *slot);
    bool ok = pages && slot;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the header of '%s'", db->path);
    ok = ok && pager_file_size(db->pager, &file_size) && pager_read(db->pager, PAGE_SIZE_BYTES, pages, 2 * PAGE_SIZE_BYTES);
    if (ok) {
        memset(out_slot, 0, sizeof *out_slot);
        *out_page = 0;
        for (uint32_t i = 0; i < 2; i++)
            if (header_decode_slot_page(pages + (size_t)i * PAGE_SIZE_BYTES, file_size, slot, db->pager) &&
                slot->info.version > out_slot->info.version) {
                *out_slot = *slot;
                *out_page = 1 + i;
            }
    }
    free(pages);
    free(slot);
    return ok;
}

bool header_confirm_version(ce_db *db, const version_info *info, bool *out_confirmed, uint64_t *out_newest)
{
    *out_confirmed = false;
    *out_newest = 0;
    uint64_t file_size;
    uint8_t *pages = malloc(2 * PAGE_SIZE_BYTES);
    slot_record *slot = malloc(sizeof *slot);
    bool ok = pages && slot;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the header of '%s'", db->path);
    ok = ok && pager_file_size(db->pager, &file_size) && pager_read(db->pager, PAGE_SIZE_BYTES, pages, 2 * PAGE_SIZE_BYTES);
    bool any_valid = false;
    for (int i = 0; ok && i < 2; i++) {
        if (!header_decode_slot_page(pages + (size_t)i * PAGE_SIZE_BYTES, file_size, slot, db->pager)) continue;
        any_valid = true;
        if (slot->info.version > *out_newest) *out_newest = slot->info.version;
        if (slot->info.version == info->version && slot->info.top_ref == info->top_ref &&
            slot->info.logical_size == info->logical_size)
            *out_confirmed = true;
    }
    if (ok && info->version == 0)
        *out_confirmed = !any_valid && info->top_ref == 0 && info->logical_size == CE_HEADER_SIZE;
    free(pages);
    free(slot);
    return ok;
}

bool header_choose_version(ce_db *db, bool verify_data, header_state *out_state, version_info *out_info,
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
    uint64_t synced_version = decode_sync_page(pages + SYNC_PAGE * PAGE_SIZE_BYTES);
    /* Blank slots are a new file whose first commit never reached the disk
     * (and which that commit's bytes may follow), unless the sync record
     * says a commit did: then the header was zeroed, and opening the file
     * as new would overwrite its data. */
    if (slots_blank && synced_version != 0) {
        error_fail(CE_ERR_INVALID_DATABASE,
                   "invalid database: the header slots of '%s' are blank, but its sync record says version %llu "
                   "reached the disk: the header was damaged (the file is left as it is)",
                   db->path, (unsigned long long)synced_version);
        goto done;
    }
    if (memcmp(static_page, FILE_MAGIC, 8) != 0 && page_is_blank(static_page) && slots_blank) {
        /* Created, but the first commit never reached the disk: the static
         * page is made durable before any commit writes after the header,
         * so bytes there mean that a header that existed was zeroed. */
        bool tail_blank = true;
        if (file_size > CE_HEADER_SIZE && !tail_is_blank(db, CE_HEADER_SIZE, file_size, &tail_blank)) goto done;
        if (!tail_blank) {
            error_fail(CE_ERR_INVALID_DATABASE,
                       "invalid database: the header of '%s' is blank, but the file holds data after it: the header "
                       "was damaged (the file is left as it is)",
                       db->path);
            goto done;
        }
        *out_state = HEADER_EMPTY;
        ok = true;
        goto done;
    }
    cipher_header cipher;
    if (!check_static_page(db, static_page, &cipher)) goto done;
    if (slots_blank) {
        /* The header was written, the first commit was not, or not whole:
         * that commit writes nothing past HEADER_FIRST_COMMIT_END, so bytes
         * there mean commits that a damaged header no longer names (a file
         * without a sync record: not durable, or its record zeroed too). */
        bool tail_blank = true;
        if (file_size > HEADER_FIRST_COMMIT_END && !tail_is_blank(db, HEADER_FIRST_COMMIT_END, file_size, &tail_blank))
            goto done;
        if (!tail_blank) {
            error_fail(CE_ERR_INVALID_DATABASE,
                       "invalid database: the header slots of '%s' are blank, but the file holds data past its first "
                       "commit: the header was damaged (the file is left as it is)",
                       db->path);
            goto done;
        }
        *out_state = HEADER_EMPTY;
        ok = true;
        goto done;
    }
    if (!start_cipher(db, &cipher)) goto done;
    bool valid[2];
    for (int i = 0; i < 2; i++)
        valid[i] = header_decode_slot_page(pages + (size_t)(1 + i) * PAGE_SIZE_BYTES, file_size, &slots[i], db->pager);
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
    /* A plain file likewise: its newest slot is damaged, or the file was
     * truncated (a plain slot's logical size must lie within the file). */
    if (synced_version > newest_valid && newest_valid != 0) {
        error_fail(CE_ERR_CORRUPT,
                   "invalid database: the header slot of version %llu of '%s' is damaged or the file was truncated "
                   "(the sync record says that version reached the disk; the newest intact one is %llu)",
                   (unsigned long long)synced_version, db->path, (unsigned long long)newest_valid);
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
                /* The pages of checksums the commit rewrote in place are
                 * not among its runs: its pages must match them too. */
                if (trusted && cipher.page_sums &&
                    !pagesum_commit_whole(db->pager, &slot->info, slot->runs, slot->run_count, &trusted))
                    goto done;
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
    /* Slots that are whole but reach past the end of the file: the file was
     * cut, which the message says (its header is not what is damaged). */
    uint64_t needed = 0;
    for (int i = 0; i < 2; i++)
        if (!valid[i] && header_decode_slot_page(pages + (size_t)(1 + i) * PAGE_SIZE_BYTES, HEADER_MAX_LOGICAL_SIZE,
                                                 &slots[i], db->pager) &&
            slots[i].info.logical_size > file_size && slots[i].info.logical_size > needed)
            needed = slots[i].info.logical_size;
    if (needed != 0)
        error_fail(CE_ERR_INVALID_DATABASE,
                   "invalid database: '%s' was truncated: it holds %llu bytes, and its newest commit needs %llu",
                   db->path, (unsigned long long)file_size, (unsigned long long)needed);
    else
        error_fail(CE_ERR_INVALID_DATABASE,
                   "invalid database: '%s' has no intact commit (both header slots are damaged)", db->path);
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
bool header_attach(ce_db *db)
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
bool header_write_new(ce_db *db)
{
    cipher_header cipher;
    memset(&cipher, 0, sizeof cipher);
    cipher.page_sums = !db->key_given && !db->options.disable_page_checksums;
    if (cipher.page_sums && !pager_enable_page_sums(db->pager)) return false;
    if (db->key_given) {
        crypt_state *crypt;
        bool created = header_new_cipher(db->key, &cipher, &crypt);
        header_wipe_key(db);
        if (!created ||
            !pager_enable_cipher(db->pager, crypt, cipher.group_pages, db->options.encryption_cache_bytes))
            return false;
    }
    db->cipher = cipher;
    uint8_t *pages = calloc(1, CE_HEADER_SIZE);
    if (!pages) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory creating '%s'", db->path);
    header_encode_static_page(pages, &cipher);
    /* The last page first: one page, so the file is either as before or
     * the whole header long. A kill in the middle of a longer write stops
     * at a page boundary and would leave a file shorter than a header,
     * which no open accepts ("too small"); with the header's length in
     * place, whatever prefix of pages 0-2 follows opens as a new file (a
     * static page, valid or blank, and blank slots). */
    size_t last = CE_HEADER_SIZE - PAGE_SIZE_BYTES;
    bool ok = pager_write(db->pager, last, pages + last, PAGE_SIZE_BYTES) && pager_write(db->pager, 0, pages, last);
    free(pages);
    if (ok && db->options.durability == CE_DURABILITY_FULL) ok = pager_sync(db->pager);
    return ok;
}
