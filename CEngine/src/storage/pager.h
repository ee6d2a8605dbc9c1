/*
 * pager.h — the file as memory.
 *
 * Owns: the database file descriptor, the read-only shared mappings of the
 * file, file growth, and the writes and syncs of a commit. For an encrypted
 * file also: where each logical page lies in the file (between metadata
 * pages), the metadata pages (each page's nonce and tag), the decrypted view
 * of the file with its bounded page cache, and encrypting what a commit
 * writes.
 * Never: interprets the bytes of nodes (the layers above check every byte
 * before trusting it), never writes through a mapping, and never hands out
 * decrypted bytes whose authentication failed.
 *
 * Plain files. A mapping, once handed out, stays valid until pager_close:
 * when the file outgrows it, a larger mapping is made and the old one is
 * kept, so a reader holding a pointer into an older snapshot is never
 * invalidated.
 *
 * Encrypted files (see docs/FORMAT.md for the bytes). The layers above see
 * the same logical address space as for a plain file: refs are offsets in
 * it, and pager_map returns the base of the *decrypted view*, an anonymous
 * mapping reserved at open for the whole address range, into which pages
 * are decrypted on demand. Logical page p (p >= 4; pages 0-3 are the
 * header, not encrypted) is data page (p - 4) % G of group (p - 4) / G; a
 * group is one metadata page followed by its G data pages, so data pages
 * stay 4096-aligned in the file. Before reading committed bytes, a reader
 * makes their pages readable (the read barrier, called by space_bytes):
 * pager_page_ready checks each page's entry without a lock, and
 * pager_make_readable does the rest under the pager's mutex.
 *
 * Each page entry records up to which version its decrypted bytes are
 * known to be the file's (valid_through) and the newest transaction epoch
 * that read it. A transaction gets an epoch when it begins
 * (pager_begin_reading). The cache holds at most its limit of pages:
 * beyond it, pages that no live transaction of this handle has read are
 * evicted (madvise DONTNEED); pages read by a live transaction stay until it
 * ends, so a pointer into the view stays valid for the transaction that got
 * it, and a single transaction that reads more than the limit exceeds it.
 * Another process may rewrite a page once no version that reaches it is
 * pinned: an entry valid through an older version than the transaction's is
 * checked against the page's current nonce in the metadata page before it
 * is used, and decrypted again if the page was rewritten.
 */
#ifndef CE_PAGER_H
#define CE_PAGER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypt.h"

#define PAGER_PAGE_SIZE 4096u
#define PAGER_HEADER_PAGES 4u
/* Metadata entry of a data page: nonce (12 bytes), then tag (16 bytes). */
#define PAGER_METADATA_ENTRY_SIZE (CRYPT_NONCE_SIZE + CRYPT_TAG_SIZE)
/* The most data pages one metadata page describes. */
#define PAGER_MAX_GROUP_PAGES (PAGER_PAGE_SIZE / PAGER_METADATA_ENTRY_SIZE)

typedef struct pager_state pager_state;

/* A contiguous run of bytes a commit writes. */
typedef struct pager_write_run {
    uint64_t position;
    const uint8_t *bytes;
    size_t length;
} pager_write_run;

/* Opens the data file. `create`: create it if missing (it starts empty). */
bool pager_open(const char *path, bool read_only, bool create, pager_state **out_pager);

/* Creates a new, empty file for writing; fails with CE_ERR_FILE_EXISTS if
 * `path` exists. */
bool pager_create_new(const char *path, pager_state **out_pager);

/* Closes the file and releases the mappings; wipes the cipher's keys. */
void pager_close(pager_state *pager);

/* pager_close for a file that a rename has just replaced (compaction): its
 * descriptor is closed in the background (os_close_in_background), since
 * that last close is when the kernel frees the old file. */
void pager_close_replaced(pager_state *pager);

const char *pager_path(const pager_state *pager);

/* The file descriptor, for the layers that lock ranges or read the header. */
int pager_fd(const pager_state *pager);

bool pager_read_only(const pager_state *pager);

/* Returns the base of the logical address space (the file's mapping, or
 * the decrypted view) with at least the first `size` bytes usable (for a
 * plain file they must exist: size <= the file's size). Thread-safe. */
bool pager_map(pager_state *pager, uint64_t size, const uint8_t **out_base);

/* Reads bytes of the file with pread (the header pages). */
bool pager_read(pager_state *pager, uint64_t offset, void *buffer, size_t length);

/* Writes bytes of the file at `offset` (pwrite, all of them): the header
 * pages, and the data of a plain file. */
bool pager_write(pager_state *pager, uint64_t offset, const void *buffer, size_t length);

/* Writes a commit's runs (sorted by position, at or after the header, not
 * overlapping). Encrypted: every page a run touches is encrypted whole
 * under a new nonce (bytes of the page no run covers are written as zeros:
 * the allocator places an encrypted file's commits on pages no version
 * uses), then the metadata pages get the new nonces and tags. */
bool pager_write_runs(pager_state *pager, const pager_write_run *runs, size_t count);

/* Makes every write so far durable (fdatasync). */
bool pager_sync(pager_state *pager);

/* Whether writes of a megabyte or more start their writeback at once (see
 * os_start_writeback): for a file whose writes are synced soon after (a
 * durable commit, a copy), so that the sync waits for less. Off by
 * default: a file that is not synced leaves writeback to the kernel. */
void pager_set_early_writeback(pager_state *pager, bool early);

/* The file's size on disk. */
bool pager_file_size(pager_state *pager, uint64_t *out_size);

/* Another process may truncate the file (damage: invariant 5). Checked
 * when a transaction begins and before a commit writes: the file holds
 * the `logical_size` bytes of the version (fstat), and no read of the
 * handle faulted past its end. Else CE_ERR_CORRUPT naming the file.
 * `recent_ok` (transaction begins): a size this handle saw at least as
 * large less than PAGER_SIZE_CHECK_NS ago stands, without the fstat (a
 * read transaction's begin is ~0.1 µs; an fstat ~0.5-1 µs). A commit
 * passes false. */
#define PAGER_SIZE_CHECK_NS 1000000u
bool pager_check_file(pager_state *pager, uint64_t logical_size, bool recent_ok);

/* Set once a read through a mapping of the file faulted past its end (see
 * fault.h): the bytes of that page read as zeros, and whoever read them
 * must fail with pager_truncated_error. */
_Atomic bool *pager_truncated_flag(pager_state *pager);
bool pager_truncated_error(const pager_state *pager);

/* The size on disk of a file whose logical size is `logical_size`. */
uint64_t pager_physical_size(const pager_state *pager, uint64_t logical_size);

/* Grows the file so that the first `logical_size` bytes of the address
 * space exist, preallocating ahead (an eighth of the file, at least 1 MiB)
 * so that most commits write into blocks that already exist and their sync
 * need not change the file size. */
bool pager_ensure_size(pager_state *pager, uint64_t logical_size);

/* pager_ensure_size for a commit about to write `runs` (as
 * pager_write_runs takes them): a plain file's new blocks that the runs
 * cover are not zeroed first (their write makes them written blocks just
 * as well). `grown_from`: the file's size before the commit wrote the
 * pieces it wrote already (a streamed commit, which grew the file by
 * writing past its end), or 0; the eighth preallocated ahead is of that
 * size, as it would be had the commit written nothing yet. */
bool pager_ensure_size_for_runs(pager_state *pager, uint64_t logical_size, const pager_write_run *runs,
                                 size_t count, uint64_t grown_from);

/* --- encryption --- */

/* Encrypts the file from now on with `crypt` (the pager owns it, also on
 * failure), `group_pages` data pages per metadata page, and a cache of at
 * most `cache_bytes` decrypted bytes (0: 1/16 of physical memory, between
 * 16 MiB and 512 MiB). */
bool pager_enable_cipher(pager_state *pager, crypt_state *crypt, uint32_t group_pages, uint64_t cache_bytes);

bool pager_is_encrypted(const pager_state *pager);

/* The cipher's settings, for a file written with the same keys. */
bool pager_clone_cipher(const pager_state *pager, crypt_state **out_crypt, uint32_t *out_group_pages,
                        uint64_t *out_cache_bytes);

/* HMAC of a header page under the file's header key (encrypted files). */
bool pager_header_mac(const pager_state *pager, const void *data, size_t length, uint8_t out_mac[CRYPT_MAC_SIZE]);

/* The state of one logical page of an encrypted file's view. */
typedef struct pager_page_entry {
    _Atomic uint64_t valid_through; /* 0: not decrypted; else the newest version its bytes are known good for */
    _Atomic uint64_t epoch;         /* the newest epoch of a transaction that read it */
    uint64_t nonce_check;           /* 8 bytes of the nonce it was decrypted with (under the mutex) */
    uint64_t resident;              /* 1 while counted in the cache (under the mutex) */
} pager_page_entry;

/* The page entries, indexed by logical page number (NULL: a plain file). */
pager_page_entry *pager_page_entries(const pager_state *pager);

/* Epochs: a transaction (or any reader of the view) takes one before
 * reading and returns it when it no longer holds pointers into the view.
 * 0 for a plain file. */
bool pager_begin_reading(pager_state *pager, uint64_t *out_epoch);
void pager_end_reading(pager_state *pager, uint64_t epoch);

/* The lock-free half of the read barrier: records that the reader of
 * `epoch` reads the page (first, so that an evictor that does not see it
 * sees the page not ready), then tells whether its bytes are good for
 * `version`. The seq_cst order of the two against the evictor's (clear
 * valid_through, then read epoch) makes a page that the reader found
 * ready never evicted under it. */
static inline bool pager_page_ready(pager_page_entry *entry, uint64_t version, uint64_t epoch)
{
    uint64_t seen = atomic_load(&entry->epoch);
    while (seen < epoch && !atomic_compare_exchange_weak(&entry->epoch, &seen, epoch)) {
    }
    uint64_t valid = atomic_load(&entry->valid_through);
    return valid != 0 && valid >= version;
}

/* The rest of the read barrier: makes the pages of [offset, offset +
 * length) of the view readable for a transaction of `version` and `epoch`
 * (the range is inside that version's logical size). Fails with
 * CE_ERR_INVALID_DATABASE naming the page if it fails authentication or
 * lies beyond the end of the file. */
bool pager_make_readable(pager_state *pager, uint64_t offset, size_t length, uint64_t version, uint64_t epoch);

/* --- page checksums of plain files (docs/FORMAT.md, "Page checksums") ---
 *
 * A plain file whose static page says so carries a 32-bit checksum of
 * every page a commit writes (the pages of checksums are regular nodes the
 * db layer places; see storage/pagesum.h). The pager remembers, per page,
 * for which version and against which checksum it verified the page, the
 * way it remembers decrypted pages: a page is hashed the first time a
 * transaction of the handle reads it, and again only after a commit
 * rewrote it. The mapping of the file stays the read path. */
#define PAGER_PAGE_SUM_SEED 0x50414745ull

/* Turns on the verification of page checksums for this handle. */
bool pager_enable_page_sums(pager_state *pager);
bool pager_verifies_page_sums(const pager_state *pager);

/* The verifying handle's array of the newest version each page was
 * verified for (0: never), indexed by page, `*out_pages` long (NULL: the
 * handle does not verify). A page whose element is at least a
 * transaction's version holds bytes good for that version: read without a
 * lock (acquire), written by pager_verify_page. */
const _Atomic uint64_t *pager_page_sums_verified(const pager_state *pager, uint64_t *out_pages);

/* The checksum of a page's 4096 bytes (never 0: 0 marks a page that has
 * none, a page of checksums). */
uint32_t pager_page_sum(const uint8_t *page);

/* Verifies page `page` of the file's mapping `base` for a transaction of
 * `version`, against the checksum `expected` its version records (0: the
 * page holds checksums and is not itself checked). CE_ERR_CORRUPT naming
 * the page when it does not match. */
bool pager_verify_page(pager_state *pager, const uint8_t *base, uint64_t page, uint64_t version, uint32_t expected);

/* Forgets every decrypted page (at open, after pages were read for a
 * version that might not be the one chosen). */
void pager_reset_cache(pager_state *pager);

/* How many pages the cache holds now, and its limit (tests, benchmarks). */
void pager_cache_usage(pager_state *pager, uint64_t *out_pages, uint64_t *out_limit_pages);

#endif
