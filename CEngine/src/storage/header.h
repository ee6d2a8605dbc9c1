/*
 * header.h — the file header of a database, for the files of the db layer
 * (db.c, lockfile.c, writer.c): its page layout, the slot record, and the
 * calls that encode, decode and choose (version_info and cipher_header,
 * which the handle holds too, are in db_internal.h).
 *
 * Owns: the header's layout constants, the slot record and the calls of
 * header.c.
 * Never: is included above the db layer.
 *
 * The header (docs/FORMAT.md has the bytes) is four 4 KiB pages:
 *   page 0  static: magic, format version, flags (and the cipher's salt and
 *           key check value for an encrypted file)
 *   page 1  slot A  (version, top ref, logical size, the runs the commit wrote
 *   page 2  slot B   and their checksum, the slot's own checksum)
 *   page 3  sync record: the newest version known to be on disk
 */
#ifndef CE_HEADER_H
#define CE_HEADER_H

#include "cengine.h"
#include "crypt.h"
#include "db_internal.h"
#include "pager.h"

#include <stdbool.h>
#include <stdint.h>

#define PAGE_SIZE_BYTES 4096u
#define SYNC_PAGE 3u
#define SLOT_HEADER_SIZE 48u
#define SLOT_CHECKSUM_OFFSET (PAGE_SIZE_BYTES - 8u)
#define SLOT_MAX_RUNS ((SLOT_CHECKSUM_OFFSET - SLOT_HEADER_SIZE) / 16u)
/* Encrypted files: the slot's HMAC (over the bytes before it) sits before
 * the checksum, in the room of the last two runs. */
#define SLOT_MAC_OFFSET (SLOT_CHECKSUM_OFFSET - 40u)
#define SLOT_MAX_RUNS_ENCRYPTED ((SLOT_MAC_OFFSET - SLOT_HEADER_SIZE) / 16u)
#define CHECKSUM_SEED_DATA 0x44415441ull
/* A new file's first commit (version 1, an empty top: under a page of
 * nodes) writes no byte at or past this offset: its page follows a page of
 * checksums (a plain file with page checksums) or its group's metadata page
 * (an encrypted file). A file with blank slots and a non-zero byte here or
 * later is a damaged file, not a creation that was interrupted. */
#define HEADER_FIRST_COMMIT_END (CE_HEADER_SIZE + 2u * PAGE_SIZE_BYTES)
/* No slot names a logical size beyond this. */
#define HEADER_MAX_LOGICAL_SIZE (1ull << 48)

typedef struct slot_record {
    version_info info;
    uint32_t run_count; /* 0: the data was synced before the slot */
    uint64_t data_checksum;
    uint64_t runs[SLOT_MAX_RUNS][2];
} slot_record;

typedef enum header_state { HEADER_EMPTY, HEADER_VALID } header_state;

/* The static page of a file with `cipher` (PAGE_SIZE_BYTES bytes). */
void header_encode_static_page(uint8_t *page, const cipher_header *cipher);

/* A slot page; encrypted slots carry an HMAC, so that a slot cannot be
 * forged without the key. */
bool header_encode_slot_page(uint8_t *page, const slot_record *slot, const pager_state *pager);

/* Decodes a slot page; false if it does not hold a valid slot. */
bool header_decode_slot_page(const uint8_t *page, uint64_t file_size, slot_record *slot, const pager_state *pager);

/* The sync record saying that `version` is on stable storage. */
void header_encode_sync_page(uint8_t *page, uint64_t version);

/* The version the file's sync record names (0: none, or not intact). */
bool header_read_sync_record(pager_state *pager, uint64_t *out_version);

/* Wipes the handle's copy of the user's key: once derived (or refused),
 * it is not needed again. */
void header_wipe_key(ce_db *db);

/* A new cipher header (a fresh salt) for `key`, and the cipher it
 * derives. */
bool header_new_cipher(const uint8_t key[CRYPT_KEY_SIZE], cipher_header *out_header, crypt_state **out_crypt);

/* Reads the header pages and picks the newest slot whose commit is whole.
 * `verify_data`: check the runs of a slot that the sync record does not
 * vouch for (the first opener after a possible power failure). */
bool header_choose_version(ce_db *db, bool verify_data, header_state *out_state, version_info *out_info,
                           bool *out_needs_sync_record);

/* Whether the data file's own header confirms `info` as a committed
 * version: one of the two slots holds it, field for field; version 0 (a
 * file being created) is confirmed while neither slot is valid.
 * *out_newest: the newest version a valid slot names (0: none), so that
 * the caller can tell a version no slot names yet (a grouped commit not
 * yet synced, group.h) from one the header lost. False only with an I/O
 * error. The lock file's latest version is never used before this (or
 * group_confirm_pending) or an equal version was confirmed (lockfile.c). */
bool header_confirm_version(ce_db *db, const version_info *info, bool *out_confirmed, uint64_t *out_newest);

/* The valid slot of the newest version (all zero and *out_page 0 when
 * neither slot is valid); *out_page is its page (1 or 2). */
bool header_read_newest_slot(ce_db *db, slot_record *out_slot, uint32_t *out_page);

/* A handle that attaches to a file another handle opened reads the static
 * page itself: its key must be checked too. */
bool header_attach(ce_db *db);

/* Writes the static page and blank slots of a new file, durably; with a
 * key, the file is encrypted from its first commit on. */
bool header_write_new(ce_db *db);

#endif
