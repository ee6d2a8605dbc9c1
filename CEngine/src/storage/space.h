/*
 * space.h — the address space of one transaction.
 *
 * Owns: how a ref (a byte offset in the file) becomes a pointer, the nodes a
 * write transaction has created or changed ("dirty" nodes, kept in heap
 * memory under temporary refs until commit), the free list and its version
 * tags, and where each dirty node lands in the file when the transaction
 * commits.
 * Never: writes to the file (the commit hands the placed bytes to the pager
 * through the db layer), and never reuses a range that a pinned version can
 * still reach.
 *
 * Refs. A committed node is addressed by its offset in the file: a multiple
 * of 8, at least CE_HEADER_SIZE. A dirty node is addressed by a temporary
 * ref with bit 62 set; it stays the same while the node grows or shrinks,
 * so a parent need not be told. At commit every dirty node is placed and its
 * temporary ref replaced by its offset (node_finalize_tree).
 *
 * Free space. A range freed by the commit that creates version V was used
 * by version V-1 and earlier, so it is tagged V and may be reused once no
 * reader pins a version older than V. Ranges created and freed inside one
 * transaction were never committed and are reused at once.
 */
#ifndef CE_SPACE_H
#define CE_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pager.h" /* pager_write_run, and the read barrier of encrypted files */

typedef uint64_t space_ref;

/* A page of checksums (plain files, storage/pagesum.h): a bytes node that
 * fills one page, its 8-byte header, then a 32-bit checksum per page. */
#define PAGESUM_HEADER_SIZE 8u
#define PAGESUM_PAGE_ENTRIES ((PAGER_PAGE_SIZE - PAGESUM_HEADER_SIZE) / 4u)
/* Its node header (bytes node, 8-bit elements, 4088 of them), which an
 * entry of 0 requires of its page (pagesum.c writes it with node.h). */
#define PAGESUM_PAGE_HEADER "\x04\x04\x4E\xA1\xF8\x0F\x00\x00"

/* The header occupies the first 16 KiB of every file (see docs/FORMAT.md). */
#define CE_HEADER_SIZE 16384u
#define CE_TEMP_REF_BIT (1ull << 62)

static inline bool ref_is_temporary(space_ref ref) { return (ref & CE_TEMP_REF_BIT) != 0; }

/* A temporary ref's entry in the transaction's table of dirty nodes. */
static inline size_t temporary_index(space_ref ref) { return (size_t)((ref & ~CE_TEMP_REF_BIT) >> 3); }

/* A free range of the file and the version that freed it. */
typedef struct space_free_extent {
    uint64_t position;
    uint64_t size;
    uint64_t freed_in_version;
} space_free_extent;

typedef struct space_dirty_node {
    uint8_t *bytes;    /* header + payload, the same layout as on disk */
    size_t capacity;   /* bytes allocated; 0 marks an unused (or placed) entry */
    bool fresh;        /* created in this transaction, not a copy of a committed node */
    bool in_arena;     /* `bytes` came from the transaction's arena (storage/arena.h), not malloc */
    uint64_t placed_at; /* at commit: where the node went (0 until then) */
} space_dirty_node;

typedef struct space_staged_piece {
    uint64_t position;
    size_t buffer_offset;
    size_t length;
} space_staged_piece;

/* Writes placed bytes of a commit before it ends (see space_set_stream). */
typedef bool (*space_stream_sink)(void *context, const pager_write_run *runs, size_t count);

typedef struct space_state {
    /* The committed version this transaction reads. */
    const uint8_t *base;    /* a mapping of the file, at least logical_size long */
    uint64_t logical_size;  /* every committed ref of this version lies below */
    bool writable;
    /* The file's pager (NULL: none, tests) and its flag of a read that
     * faulted past the end of the file (pager_truncated_flag; a flag never
     * set when there is no pager): checked by node_read, the one reader
     * of committed bytes, before it trusts them (not in space_bytes'
     * inline path: W2 ran 4 % more instructions when the check there
     * stopped the compiler from inlining it). */
    pager_state *file_pager;
    _Atomic bool *truncated;

    /* Encrypted files: the pager whose decrypted view `base` is (NULL for a
     * plain file), its page entries, and the version and epoch this
     * transaction reads with (see pager.h). Placement then puts a commit
     * only on pages that no version uses (page_aligned). */
    pager_state *cipher_pager;
    pager_page_entry *page_entries;
    uint64_t read_version, read_epoch;
    bool page_aligned;
    /* Plain files with page checksums (storage/pagesum.h): the version's
     * directory of pages of checksums (its 64-bit elements, in the
     * mapping) and their count. When the handle verifies pages,
     * cipher_pager is the plain file's pager and the read barrier below
     * verifies each page the first time the handle reads it, as it
     * decrypts an encrypted file's; placement is page_aligned either way. */
    const uint8_t *sum_directory;
    uint64_t sum_count;
    /* And when the handle verifies: its array of the version each page was
     * verified for (pager_page_sums_verified), shared by the handle's
     * transactions, so that a page is hashed once per handle and every
     * later read of it, in any transaction, costs one load and a compare.
     * Set only when every page of the version has an element (then no
     * bound check is needed); NULL otherwise, and the barrier takes the
     * ready range and bits below. */
    const _Atomic uint64_t *sum_verified;
    /* A run of pages this transaction found ready: those it last found,
     * widened over their neighbours already found (first > last: none). A
     * page stays ready for the transaction that found it so (its epoch keeps
     * it from eviction, and no commit rewrites a page it reaches), so the
     * next read in the same pages needs no check. Updated by space_bytes,
     * which is why a transaction belongs to one thread at a time. */
    uint64_t ready_first, ready_last;
    /* And every page this transaction found ready since its epoch began,
     * one bit per page of the first SPACE_READY_BITS_PAGES (allocated at
     * the first page found; kept by space_init_read, freed by
     * space_free_ready_pages): random reads return to pages read before,
     * and a bit is one load from a small array where a page entry is a
     * likely cache miss in a large one. */
    uint64_t *ready_bits;
    size_t ready_words; /* allocated words; 0 while none */

    /* Dirty nodes (write transactions only). */
    uint64_t dirty_allocated; /* bytes of their buffers allocated so far (only grows; see space_release) */
    struct arena_state *arena; /* past space_arena_bytes of them: where new buffers come from (NULL: none) */
    bool arena_failed;         /* arena_create failed: malloc only */
    unsigned arena_lane;       /* the arena's lane new buffers come from (space_set_arena_lane) */
    space_dirty_node *dirty;
    size_t dirty_count;     /* entries in use or free */
    size_t dirty_capacity;
    uint32_t *unused_entries; /* indexes of free table entries */
    size_t unused_count, unused_capacity;

    /* Committed ranges freed by this transaction (tagged at commit). */
    space_free_extent *freed;
    size_t freed_count, freed_capacity;

    /* The free list of the base version, then of the new one. */
    space_free_extent *free_list;
    size_t free_count, free_capacity;
    uint64_t oldest_pinned_version; /* ranges tagged <= this are reusable */
    uint64_t new_version;

    /* Placement at commit. */
    uint64_t placement_end;  /* the new logical size */
    size_t current_extent;   /* free-list entry being filled, or SIZE_MAX */
    bool current_entered;    /* page_aligned: its first page holds this commit's nodes only */
    bool appending;          /* placing at the end of the file */
    uint64_t expected_size;  /* the commit's size, as space_plan_placement was told */
    bool gap_pending;        /* appending: leave a gap before the first non-fresh node */
    uint8_t *stage;          /* the placed bytes, in placement order */
    size_t stage_length, stage_capacity;
    space_staged_piece *pieces;
    size_t piece_count, piece_capacity;
    /* A large commit written in pieces (space_set_stream): the sink, the
     * staged bytes that start a write, the pieces held for the final write
     * (the first stream_held), whether space_place writes now, and whether
     * it wrote. */
    space_stream_sink stream_sink;
    void *stream_context;
    size_t stream_window;
    size_t stream_held, stream_held_bytes;
    bool stream_active;
    bool streamed;
} space_state;

/* A read-only view of a committed version. */
void space_init_read(space_state *space, const uint8_t *base, uint64_t logical_size);

/* The pager whose file `base` maps (call after space_init_read;
 * space_init_write and space_release keep it). */
void space_set_file(space_state *space, pager_state *pager);

/* The error of a read that found the file truncated under it. */
bool space_truncated_error(const space_state *space);

/* Makes a read view of a committed version (space_init_read, and
 * space_set_cipher_reader for an encrypted file) writable, with the
 * version's free list (copied). What the read view holds stays: the
 * mapping, the cipher reader and the pages found ready. */
bool space_init_write(space_state *space, const space_free_extent *free_list, size_t free_count,
                      uint64_t oldest_pinned_version, uint64_t new_version);

/* Reads an encrypted file through `pager`'s decrypted view, as version
 * `version` with epoch `epoch` (call after space_init_read;
 * space_init_write and space_release keep it). */
void space_set_cipher_reader(space_state *space, pager_state *pager, uint64_t version, uint64_t epoch);

/* Reads a plain file with page checksums: `directory` points at the
 * `count` 64-bit refs of the version's pages of checksums (in the
 * mapping); `verifier` (NULL: the handle does not verify) checks each page
 * the first time a transaction of `version` reads it. Placement then puts
 * a commit only on pages no version uses, as for an encrypted file. */
void space_set_page_sums(space_state *space, pager_state *verifier, uint64_t version, const uint8_t *directory,
                         uint64_t count);

/* The checksum the version records for page `page` (0: a page of
 * checksums), or CE_ERR_CORRUPT if its page of checksums is missing. */
bool space_page_sum(const space_state *space, uint64_t page, uint32_t *out_sum);

/* A new reader epoch (the transaction let go of the pages it read). */
void space_set_read_epoch(space_state *space, uint64_t epoch);

/* Pages past this many have no bit (a 1 GiB file's bits take 32 KiB). */
#define SPACE_READY_BITS_PAGES (UINT64_C(1) << 18)

/* Frees the ready-page bits (when the transaction ends). */
void space_free_ready_pages(space_state *space);

/* Releases every dirty node and buffer (the rollback of a write, and the
 * end of a commit). A transaction that allocated at least
 * space_return_heap_bytes of dirty-node buffers then gives the heap's free
 * memory back to the system (glibc: malloc_trim; elsewhere the allocator
 * decides): the allocator would otherwise keep them, and the file's pages
 * mapped by later reads would come on top (a 100M-object insert: 4.2 GB of
 * buffers). Smaller ones keep it for the next transaction's nodes, which
 * then need no page faults. */
void space_release(space_state *space);

/* A write transaction's dirty-node buffers come from malloc until it has
 * allocated this many bytes of them, then from an arena of its own
 * (storage/arena.h: its pages faulted in ahead on a thread, and each chunk
 * unmapped once its buffers are freed). Tests lower it. */
#define SPACE_ARENA_BYTES (UINT64_C(64) << 20)
extern uint64_t space_arena_bytes;

/* Puts the dirty nodes created from here on in arena lane `lane` (<
 * ARENA_LANES; 0 is the default): see arena.h. A hint only: what a node
 * holds, and where the commit places it, do not change. */
static inline void space_set_arena_lane(space_state *space, unsigned lane) { space->arena_lane = lane; }

/* The threshold of space_release (SPACE_RETURN_HEAP_BYTES; tests lower it). */
#define SPACE_RETURN_HEAP_BYTES (UINT64_C(256) << 20)
extern uint64_t space_return_heap_bytes;

/* The bytes at a ref: a dirty node's buffer, or the mapped file after a
 * bounds check that `length` bytes from `ref` lie inside the version. For
 * an encrypted file this is the read barrier: the pages of the range are
 * made readable (decrypted) first. */
static inline bool space_bytes(const space_state *space, space_ref ref, size_t length, const uint8_t **out_bytes);

/* space_bytes for what its inline part leaves: dirty nodes, encrypted pages
 * not yet found ready, and every error. */
bool space_bytes_general(const space_state *space, space_ref ref, size_t length, const uint8_t **out_bytes);

/* Every node read starts here, so the common cases stay inline: a committed
 * ref in bounds (a temporary ref has bit 62 set and so fails the bounds test)
 * of a plain file, of a plain file with checksums in pages the handle
 * verified, or of an encrypted file in the pages found ready; and a dirty
 * node of the transaction. Always inlined: node_read's constant header
 * length folds the page arithmetic, and gcc stopped inlining it once the
 * checksum test was added (W2 +2 % instructions, with or without
 * checksums). */
static inline __attribute__((always_inline)) bool space_bytes(const space_state *space, space_ref ref, size_t length,
                                                            const uint8_t **out_bytes)
{
    if (ref % 8 == 0 && ref >= CE_HEADER_SIZE && ref <= space->logical_size && length <= space->logical_size - ref) {
        if (!space->cipher_pager) {
            /* (A file truncated under the mapping: node_read checks.) */
            *out_bytes = space->base + ref;
            return true;
        }
        /* A read of at most 8 bytes at a multiple of 8 (a node's header)
         * lies in one page: known when `length` is a constant. */
        uint64_t first = ref / PAGER_PAGE_SIZE;
        uint64_t last = length <= 8 ? first : (ref + length - 1) / PAGER_PAGE_SIZE;
        const _Atomic uint64_t *verified = space->sum_verified;
        if (verified) {
            /* A plain file with page checksums (see sum_verified). */
            uint64_t version = space->read_version;
            if (atomic_load_explicit(&verified[first], memory_order_acquire) >= version &&
                (last == first ||
                 (last - first == 1 && atomic_load_explicit(&verified[last], memory_order_acquire) >= version))) {
                *out_bytes = space->base + ref;
                return true;
            }
        } else if ((first >= space->ready_first && last <= space->ready_last) ||
                   /* A node spans one page or, when larger, often two. */
                   (last - first <= 1 && (last >> 6) < space->ready_words &&
                    ((space->ready_bits[first >> 6] >> (first & 63)) & (space->ready_bits[last >> 6] >> (last & 63)) &
                     1))) {
            *out_bytes = space->base + ref;
            return true;
        }
    } else if (ref_is_temporary(ref)) {
        /* A write transaction's own node (the nodes above a change stay
         * dirty for the rest of the transaction, and are read on every
         * change after it). */
        size_t index = temporary_index(ref);
        if (index < space->dirty_count && space->dirty[index].capacity >= length) {
            *out_bytes = space->dirty[index].bytes;
            return true;
        }
    }
    return space_bytes_general(space, ref, length, out_bytes);
}

/* Creates a dirty node with room for `size` bytes and returns its temporary
 * ref. `fresh`: a new node (not a copy of a committed one); placement puts
 * those first, see node_finalize_tree. */
bool space_dirty_create(space_state *space, size_t size, bool fresh, space_ref *out_ref, uint8_t **out_bytes);

/* Whether a dirty node was created fresh in this transaction. */
bool space_dirty_is_fresh(const space_state *space, space_ref ref);

/* At commit: records that a dirty node was placed at `position` and
 * releases its buffer; later lookups of the temporary ref get the position. */
void space_dirty_mark_placed(space_state *space, space_ref ref, uint64_t position);

/* Where a dirty node was placed at this commit, or 0 if not yet. */
uint64_t space_dirty_placed_at(const space_state *space, space_ref ref);

/* The buffer of a dirty node. */
uint8_t *space_dirty_bytes(const space_state *space, space_ref ref);

/* Makes room for `size` bytes in a dirty node (its contents are kept). */
bool space_dirty_reserve(space_state *space, space_ref ref, size_t size, uint8_t **out_bytes);

/* Frees a node: a dirty one at once; a committed one is added to the ranges
 * this transaction frees, of `size` bytes. */
bool space_free(space_state *space, space_ref ref, uint64_t size);

/* --- commit --- */

/* Moves this transaction's freed ranges into the free list, tagged with the
 * new version, and merges neighbours. Call once, before placing. */
bool space_commit_prepare(space_state *space);

/* Chooses where the commit starts placing, given an upper bound of the bytes
 * it will place (call after space_commit_prepare, before space_place). */
bool space_plan_placement(space_state *space, uint64_t expected_size);

/* Chooses where `size` bytes go in the file (right after the previous node
 * (`fresh`: a node created by this transaction rather than a copy)
 * when it fits, else the largest reusable free range that holds it, else the
 * end of the file) and returns a buffer of that size to fill. The buffer is
 * valid until the next call. */
bool space_place(space_state *space, uint64_t size, bool fresh, uint64_t *out_position, uint8_t **out_buffer);

/* The buffer of an already placed piece (by its position), to fill late. */
uint8_t *space_placed_buffer(space_state *space, uint64_t position);

/* The free list as it stands after placement. */
const space_free_extent *space_free_list(const space_state *space, size_t *out_count);

/* The placed bytes as contiguous runs sorted by position; the array is
 * allocated and owned by the caller (free()). After a streamed commit:
 * the bytes the sink was not given. */
bool space_write_runs(space_state *space, pager_write_run **out_runs, size_t *out_count);

/* --- a large commit, written in pieces --- */

/* Before space_plan_placement: a commit whose staged bytes reach `window`
 * is written in pieces while it is placed, so that its staging buffer
 * stays near `window` instead of the commit's size. Nothing is written
 * until space_stream_begin. */
void space_set_stream(space_state *space, size_t window, space_stream_sink sink, void *context);

/* From here to space_stream_end, space_place first gives the sink what it
 * may write already whenever `window` bytes are staged: runs of bytes
 * whose placement is final and, when placement is page aligned, only
 * whole pages no later piece reaches (a page is written once, whole). The
 * pieces placed before this call are held for the final write (their
 * buffers are filled late: space_placed_buffer). */
void space_stream_begin(space_state *space);
void space_stream_end(space_state *space);

/* Whether the sink wrote part of this commit. */
static inline bool space_streamed(const space_state *space) { return space->streamed; }

#endif
