/*
 * space.c — the address space of one transaction (see space.h).
 *
 * Owns: the bookkeeping behind space.h: the dirty nodes, the ranges a
 * transaction frees and their merge into the free list at commit, the
 * placement of a commit (one run where it fits, a gap after an appended
 * commit, whole pages for an encrypted file), the staging buffer of the
 * placed bytes, and the pages a reader found ready.
 * Never: writes to the file (space_write_runs lists the staged runs, and
 * a streamed commit hands finished runs to the db layer's sink: the db
 * layer has the pager write them), hands out a page that later pieces may
 * still reach, or places a node in a range freed by a version newer than
 * the oldest pinned one.
 */
#include "space.h"
#include "arena.h"
#include "buf.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* The flag of a space that has no pager: never set. */
static _Atomic bool no_pager_truncated;

void space_set_file(space_state *space, pager_state *pager)
{
    space->file_pager = pager;
    space->truncated = pager ? pager_truncated_flag(pager) : &no_pager_truncated;
}

bool space_truncated_error(const space_state *space)
{
    if (space->file_pager) return pager_truncated_error(space->file_pager);
    return error_fail(CE_ERR_CORRUPT, "invalid database: the file was truncated while it was open");
}

void space_init_read(space_state *space, const uint8_t *base, uint64_t logical_size)
{
    /* The ready-page bits outlive a new snapshot (their buffer; their
     * content is cleared by space_set_cipher_reader). */
    uint64_t *ready_bits = space->ready_bits;
    size_t ready_words = space->ready_words;
    memset(space, 0, sizeof *space);
    space->ready_bits = ready_bits;
    space->ready_words = ready_words;
    space->base = base;
    space->logical_size = logical_size;
    space->current_extent = SIZE_MAX;
    space->truncated = &no_pager_truncated;
}

bool space_init_write(space_state *space, const space_free_extent *free_list, size_t free_count,
                      uint64_t oldest_pinned_version, uint64_t new_version)
{
    uint64_t logical_size = space->logical_size;
    space->writable = true;
    space->oldest_pinned_version = oldest_pinned_version;
    space->new_version = new_version;
    space->placement_end = logical_size;
    if (!buf_reserve((void **)&space->free_list, &space->free_capacity, free_count + 1, sizeof *free_list))
        return false;
    for (size_t i = 0; i < free_count; i++) {
        const space_free_extent *extent = &free_list[i];
        if (extent->size == 0) continue;
        if (extent->position % 8 != 0 || extent->size % 8 != 0 || extent->position < CE_HEADER_SIZE ||
            extent->position > logical_size || extent->size > logical_size - extent->position) {
            space_release(space);
            return error_fail(CE_ERR_CORRUPT,
                           "invalid database: free-list entry %zu (offset %llu, %llu bytes) lies outside the file",
                           i, (unsigned long long)extent->position, (unsigned long long)extent->size);
        }
        space->free_list[space->free_count++] = *extent;
    }
    return true;
}

void space_set_cipher_reader(space_state *space, pager_state *pager, uint64_t version, uint64_t epoch)
{
    space->cipher_pager = pager;
    space->page_entries = pager_page_entries(pager);
    space->read_version = version;
    space->page_aligned = true;
    space_set_read_epoch(space, epoch);
}

void space_set_page_sums(space_state *space, pager_state *verifier, uint64_t version, const uint8_t *directory,
                         uint64_t count)
{
    if (verifier) space_set_cipher_reader(space, verifier, version, 0);
    space->sum_directory = directory;
    space->sum_count = count;
    space->page_aligned = true;
    space->sum_verified = NULL;
    uint64_t pages;
    const _Atomic uint64_t *verified = verifier ? pager_page_sums_verified(verifier, &pages) : NULL;
    /* Every ref of the version then indexes the array (version 0 never has
     * checksums; an element 0 is a page never verified). */
    if (verified && version != 0 && (space->logical_size + PAGER_PAGE_SIZE - 1) / PAGER_PAGE_SIZE <= pages)
        space->sum_verified = verified;
}

bool space_page_sum(const space_state *space, uint64_t page, uint32_t *out_sum)
{
    uint64_t index = page / PAGESUM_PAGE_ENTRIES;
    uint64_t ref = 0;
    if (index < space->sum_count) memcpy(&ref, space->sum_directory + 8 * index, 8);
    /* Zeros where another process truncated the file (fault.h). */
    if (atomic_load(space->truncated)) return space_truncated_error(space);
    if (ref == 0 || ref % PAGER_PAGE_SIZE != 0 || ref < CE_HEADER_SIZE || ref > space->logical_size ||
        space->logical_size - ref < PAGER_PAGE_SIZE)
        return error_fail(CE_ERR_CORRUPT,
                          "invalid database: page %llu has no page of checksums (directory entry %llu of %llu is "
                          "%llu): the file is damaged",
                          (unsigned long long)page, (unsigned long long)index, (unsigned long long)space->sum_count,
                          (unsigned long long)ref);
    uint32_t sum;
    memcpy(&sum, space->base + ref + PAGESUM_HEADER_SIZE + 4 * (page % PAGESUM_PAGE_ENTRIES), 4);
    /* 0 only for a page of checksums: any other page with entry 0 lost
     * its entry (damage, or a page of checksums that never reached the
     * disk). */
    if (sum == 0 && ((page + 1) * PAGER_PAGE_SIZE > space->logical_size + PAGER_PAGE_SIZE ||
                     memcmp(space->base + page * PAGER_PAGE_SIZE, PAGESUM_PAGE_HEADER, PAGESUM_HEADER_SIZE) != 0)) {
        if (atomic_load(space->truncated)) return space_truncated_error(space);
        return error_fail(CE_ERR_CORRUPT,
                          "invalid database: page %llu (file offset %llu) has no checksum in its page of checksums "
                          "(at %llu): the file is damaged",
                          (unsigned long long)page, (unsigned long long)(page * PAGER_PAGE_SIZE),
                          (unsigned long long)ref);
    }
    if (atomic_load(space->truncated)) return space_truncated_error(space);
    *out_sum = sum;
    return true;
}

/* The read barrier of a plain file with page checksums: verifies the pages
 * of [first, last] not yet verified for this version. */
static bool verify_plain_pages(const space_state *space, uint64_t first, uint64_t last)
{
    for (uint64_t page = first; page <= last; page++) {
        if (space->sum_verified && atomic_load(&space->sum_verified[page]) >= space->read_version) continue;
        uint32_t expected;
        if (!space_page_sum(space, page, &expected) ||
            !pager_verify_page(space->cipher_pager, space->base, page, space->read_version, expected))
            return false;
    }
    return true;
}

void space_set_read_epoch(space_state *space, uint64_t epoch)
{
    space->read_epoch = epoch;
    space->ready_first = 1;
    space->ready_last = 0;
    if (space->ready_words) memset(space->ready_bits, 0, space->ready_words * sizeof *space->ready_bits);
}

void space_free_ready_pages(space_state *space)
{
    free(space->ready_bits);
    space->ready_bits = NULL;
    space->ready_words = 0;
}

/* Records pages [first, last] as ready for the transaction (no bits: out of
 * memory, or pages past SPACE_READY_BITS_PAGES, just miss the fast path). */
static void note_ready_pages(space_state *space, uint64_t first, uint64_t last)
{
    uint64_t pages = (space->logical_size + PAGER_PAGE_SIZE - 1) / PAGER_PAGE_SIZE;
    if (pages > SPACE_READY_BITS_PAGES) pages = SPACE_READY_BITS_PAGES;
    size_t words = (size_t)((pages + 63) / 64);
    if (space->ready_words < words) {
        uint64_t *grown = realloc(space->ready_bits, words * sizeof *grown);
        if (!grown) return;
        memset(grown + space->ready_words, 0, (words - space->ready_words) * sizeof *grown);
        space->ready_bits = grown;
        space->ready_words = words;
    }
    for (uint64_t page = first; page <= last && page < pages; page++) space->ready_bits[page >> 6] |= UINT64_C(1) << (page & 63);
}

/* How far the range of pages found ready may widen each way at a time. */
#define READY_RANGE_WIDENING 4096u

/* Widens [ready_first, ready_last] over the pages around it that the bits
 * show found ready, up to READY_RANGE_WIDENING each way: a scan through
 * pages read before then passes the inline check's first test (two
 * compares) rather than its bit test, for thousands of pages at a time.
 * Word at a time: a widening costs at most 64 steps each way. */
static void widen_ready_range(space_state *space)
{
    uint64_t bit_pages = (uint64_t)space->ready_words * 64;
    uint64_t first = space->ready_first, last = space->ready_last;
    if (first > last || last >= bit_pages) return;
    const uint64_t *bits = space->ready_bits;
    /* Upward from last + 1: the run of ones from each position. */
    uint64_t ceiling = bit_pages - last - 1 < READY_RANGE_WIDENING ? bit_pages : last + 1 + READY_RANGE_WIDENING;
    uint64_t page = last + 1;
    while (page < ceiling) {
        unsigned offset = (unsigned)(page & 63);
        uint64_t ones_from_here = ~(bits[page >> 6] >> offset); /* zero where ready */
        unsigned run = ones_from_here == 0 ? 64u : (unsigned)__builtin_ctzll(ones_from_here);
        if (run > 64 - offset) run = 64 - offset;
        page += run;
        if (run < 64 - offset) break; /* a page not found ready */
    }
    space->ready_last = (page < ceiling ? page : ceiling) - 1;
    /* Downward from first - 1, the same way. */
    uint64_t floor = first > READY_RANGE_WIDENING ? first - READY_RANGE_WIDENING : 0;
    page = first; /* the lowest page known ready */
    while (page > floor) {
        uint64_t below = page - 1;
        unsigned offset = (unsigned)(below & 63);
        uint64_t ones_down = ~(bits[below >> 6] << (63 - offset)); /* zero where ready, from bit 63 down */
        unsigned run = ones_down == 0 ? 64u : (unsigned)__builtin_clzll(ones_down);
        if (run > offset + 1) run = offset + 1;
        page -= run;
        if (run < offset + 1) break;
    }
    space->ready_first = page > floor ? page : floor;
}

uint64_t space_return_heap_bytes = SPACE_RETURN_HEAP_BYTES;
uint64_t space_arena_bytes = SPACE_ARENA_BYTES;

/* A buffer for a dirty node: from the arena once the transaction has
 * allocated space_arena_bytes (NULL: out of memory, the error set). */
static uint8_t *new_dirty_buffer(space_state *space, size_t capacity, bool *out_in_arena)
{
    *out_in_arena = false;
    if (space->dirty_allocated >= space_arena_bytes && capacity <= ARENA_MAX_BUFFER && !space->arena_failed) {
        if (!space->arena && !(space->arena = arena_create())) space->arena_failed = true;
        uint8_t *bytes = space->arena ? arena_alloc(space->arena, capacity, space->arena_lane) : NULL;
        if (bytes) {
            space->dirty_allocated += capacity;
            *out_in_arena = true;
            return bytes;
        }
    }
    uint8_t *bytes = malloc(capacity);
    if (!bytes) {
        error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", capacity);
        return NULL;
    }
    space->dirty_allocated += capacity;
    return bytes;
}

static void free_dirty_buffer(space_state *space, space_dirty_node *node)
{
    if (node->in_arena) arena_free(space->arena, node->bytes, node->capacity);
    else free(node->bytes);
}

/* Gives the heap's free memory back to the system (see space_release). */
static void return_heap(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void space_release(space_state *space)
{
    bool large = space->dirty_allocated >= space_return_heap_bytes;
    for (size_t i = 0; i < space->dirty_count; i++)
        if (space->dirty[i].bytes) free_dirty_buffer(space, &space->dirty[i]);
    arena_release(space->arena);
    free(space->dirty);
    free(space->unused_entries);
    free(space->freed);
    free(space->free_list);
    free(space->stage);
    free(space->pieces);
    space_state kept = *space;
    space_init_read(space, kept.base, kept.logical_size);
    space_set_file(space, kept.file_pager);
    if (kept.cipher_pager) space_set_cipher_reader(space, kept.cipher_pager, kept.read_version, kept.read_epoch);
    space->sum_directory = kept.sum_directory;
    space->sum_count = kept.sum_count;
    space->sum_verified = kept.sum_verified;
    space->page_aligned = kept.page_aligned;
    space->ready_first = kept.ready_first;
    space->ready_last = kept.ready_last;
    if (large) return_heap();
}


bool space_bytes_general(const space_state *space, space_ref ref, size_t length, const uint8_t **out_bytes)
{
    if (ref_is_temporary(ref)) {
        size_t index = temporary_index(ref);
        if (index >= space->dirty_count || space->dirty[index].capacity < length)
            return error_fail(CE_ERR_CORRUPT, "internal error: unknown temporary ref %llx", (unsigned long long)ref);
        *out_bytes = space->dirty[index].bytes;
        return true;
    }
    if (ref % 8 != 0 || ref < CE_HEADER_SIZE || ref > space->logical_size ||
        length > space->logical_size - ref)
        return error_fail(CE_ERR_CORRUPT,
                       "invalid database: ref %llu (%zu bytes) is outside the file (%llu bytes) or misaligned",
                       (unsigned long long)ref, length, (unsigned long long)space->logical_size);
    if (atomic_load(space->truncated)) return space_truncated_error(space);
    if (space->cipher_pager) {
        /* The read barrier of an encrypted file: usually the pages last
         * found ready, else one page found decrypted and current without a
         * lock. */
        uint64_t first = ref / PAGER_PAGE_SIZE, last = (ref + (length ? length - 1 : 0)) / PAGER_PAGE_SIZE;
        if (first < space->ready_first || last > space->ready_last) {
            if (space->sum_directory) {
                /* A plain file with page checksums. */
                if (!verify_plain_pages(space, first, last)) return false;
                /* Remembered in the handle's array when there is one. */
                if (space->sum_verified) {
                    *out_bytes = space->base + ref;
                    return true;
                }
            } else {
                for (uint64_t page = first; page <= last; page++) {
                    if (!pager_page_ready(&space->page_entries[page], space->read_version, space->read_epoch)) {
                        if (!pager_make_readable(space->cipher_pager, page * PAGER_PAGE_SIZE,
                                                 (size_t)((last - page + 1) * PAGER_PAGE_SIZE), space->read_version,
                                                 space->read_epoch))
                            return false;
                        break;
                    }
                }
            }
            /* The space is the transaction's own (see ready_first). */
            space_state *mutable_space = (space_state *)space;
            mutable_space->ready_first = first;
            mutable_space->ready_last = last;
            note_ready_pages(mutable_space, first, last);
            widen_ready_range(mutable_space);
        }
    }
    *out_bytes = space->base + ref;
    return true;
}

bool space_dirty_create(space_state *space, size_t size, bool fresh, space_ref *out_ref, uint8_t **out_bytes)
{
    if (!space->writable) return error_fail(CE_ERR_WRONG_TRANSACTION_STATE, "cannot modify data outside a write transaction");
    size_t capacity = size < 64 ? 64 : size;
    bool in_arena;
    uint8_t *bytes = new_dirty_buffer(space, capacity, &in_arena);
    if (!bytes) return false;
    size_t index;
    if (space->unused_count > 0) {
        index = space->unused_entries[--space->unused_count];
    } else {
        if (!buf_reserve((void **)&space->dirty, &space->dirty_capacity, space->dirty_count + 1, sizeof *space->dirty)) {
            space_dirty_node unused = {.bytes = bytes, .capacity = capacity, .in_arena = in_arena};
            free_dirty_buffer(space, &unused);
            return false;
        }
        index = space->dirty_count++;
    }
    space->dirty[index] = (space_dirty_node){.bytes = bytes, .capacity = capacity, .fresh = fresh, .in_arena = in_arena};
    *out_ref = CE_TEMP_REF_BIT | ((uint64_t)index << 3);
    *out_bytes = bytes;
    return true;
}

uint8_t *space_dirty_bytes(const space_state *space, space_ref ref) { return space->dirty[temporary_index(ref)].bytes; }

bool space_dirty_is_fresh(const space_state *space, space_ref ref) { return space->dirty[temporary_index(ref)].fresh; }

void space_dirty_mark_placed(space_state *space, space_ref ref, uint64_t position)
{
    space_dirty_node *node = &space->dirty[temporary_index(ref)];
    free_dirty_buffer(space, node);
    node->bytes = NULL;
    node->capacity = 0;
    node->in_arena = false;
    node->placed_at = position;
}

uint64_t space_dirty_placed_at(const space_state *space, space_ref ref)
{
    size_t index = temporary_index(ref);
    return index < space->dirty_count ? space->dirty[index].placed_at : 0;
}

bool space_dirty_reserve(space_state *space, space_ref ref, size_t size, uint8_t **out_bytes)
{
    space_dirty_node *node = &space->dirty[temporary_index(ref)];
    if (node->capacity < size) {
        size_t capacity = node->capacity * 2;
        if (capacity < size) capacity = size;
        if (node->in_arena) {
            /* The arena does not grow buffers: a growing node moves to malloc. */
            uint8_t *moved = malloc(capacity);
            if (!moved) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", capacity);
            memcpy(moved, node->bytes, node->capacity);
            arena_free(space->arena, node->bytes, node->capacity);
            space->dirty_allocated += capacity;
            node->bytes = moved;
            node->in_arena = false;
        } else {
            uint8_t *grown = realloc(node->bytes, capacity);
            if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", capacity);
            space->dirty_allocated += capacity - node->capacity;
            node->bytes = grown;
        }
        node->capacity = capacity;
    }
    *out_bytes = node->bytes;
    return true;
}

bool space_free(space_state *space, space_ref ref, uint64_t size)
{
    if (ref_is_temporary(ref)) {
        size_t index = temporary_index(ref);
        if (space->dirty[index].bytes) free_dirty_buffer(space, &space->dirty[index]);
        space->dirty[index] = (space_dirty_node){0};
        if (!buf_reserve((void **)&space->unused_entries, &space->unused_capacity, space->unused_count + 1,
                        sizeof *space->unused_entries))
            return false;
        space->unused_entries[space->unused_count++] = (uint32_t)index;
        return true;
    }
    if (!buf_reserve((void **)&space->freed, &space->freed_capacity, space->freed_count + 1, sizeof *space->freed))
        return false;
    space->freed[space->freed_count++] = (space_free_extent){ref, size, 0};
    return true;
}

static int compare_extents(const void *a, const void *b)
{
    const space_free_extent *left = a, *right = b;
    return (left->position > right->position) - (left->position < right->position);
}

bool space_commit_prepare(space_state *space)
{
    /* The free list of the base version is sorted (each commit writes it in
     * order); only the ranges this transaction freed need sorting, and the
     * two sorted lists are merged. The whole list is re-sorted only if the
     * file's list turns out not to be in order. */
    size_t base_count = space->free_count, freed_count = space->freed_count;
    if (!buf_reserve((void **)&space->free_list, &space->free_capacity, 2 * (base_count + freed_count) + 1,
                    sizeof *space->free_list))
        return false;
    for (size_t i = 0; i < freed_count; i++) space->freed[i].freed_in_version = space->new_version;
    if (freed_count > 1) qsort(space->freed, freed_count, sizeof *space->freed, compare_extents);
    space->freed_count = 0;
    bool base_sorted = true;
    for (size_t i = 1; i < base_count && base_sorted; i++)
        base_sorted = space->free_list[i - 1].position <= space->free_list[i].position;
    if (!base_sorted) qsort(space->free_list, base_count, sizeof *space->free_list, compare_extents);
    /* (base_sorted is false only with two or more entries.) */
    /* Merge into the upper half of the array, then move down. */
    space_free_extent *merged = space->free_list + base_count + freed_count + 1;
    size_t left = 0, right = 0, count = 0;
    while (left < base_count || right < freed_count) {
        bool take_left = right == freed_count ||
                         (left < base_count && space->free_list[left].position <= space->freed[right].position);
        space_free_extent extent = take_left ? space->free_list[left++] : space->freed[right++];
        /* Entries of size 0 (padding read from the file) are dropped: kept,
         * they would sit where the next range starts. */
        if (extent.size > 0) merged[count++] = extent;
    }
    memmove(space->free_list, merged, count * sizeof *merged);
    space->free_count = count;
    size_t kept = 0;
    for (size_t i = 0; i < space->free_count; i++) {
        space_free_extent extent = space->free_list[i];
        if (kept > 0) {
            space_free_extent *previous = &space->free_list[kept - 1];
            if (extent.position < previous->position + previous->size)
                return error_fail(CE_ERR_CORRUPT,
                               "invalid database: free ranges at %llu and %llu overlap",
                               (unsigned long long)previous->position, (unsigned long long)extent.position);
            bool adjacent = previous->position + previous->size == extent.position;
            bool both_reusable = previous->freed_in_version <= space->oldest_pinned_version &&
                                 extent.freed_in_version <= space->oldest_pinned_version;
            if (adjacent && (both_reusable || previous->freed_in_version == extent.freed_in_version)) {
                previous->size += extent.size;
                if (extent.freed_in_version > previous->freed_in_version)
                    previous->freed_in_version = extent.freed_in_version;
                continue;
            }
        }
        space->free_list[kept++] = extent;
    }
    /* Reusable free space at the end of the file is given back to the end:
     * new nodes are appended over it, and the logical size shrinks. */
    while (kept > 0) {
        space_free_extent *last = &space->free_list[kept - 1];
        if (last->freed_in_version > space->oldest_pinned_version || last->position + last->size != space->placement_end)
            break;
        space->placement_end = last->position;
        kept--;
    }
    space->free_count = kept;
    space->current_extent = SIZE_MAX;
    return true;
}

static bool stage_piece(space_state *space, uint64_t position, uint64_t size, uint8_t **out_buffer)
{
    if (!buf_reserve((void **)&space->stage, &space->stage_capacity, space->stage_length + size, 1)) return false;
    if (!buf_reserve((void **)&space->pieces, &space->piece_capacity, space->piece_count + 1, sizeof *space->pieces))
        return false;
    space->pieces[space->piece_count++] = (space_staged_piece){position, space->stage_length, (size_t)size};
    *out_buffer = space->stage + space->stage_length;
    space->stage_length += size;
    return true;
}

#define APPEND_GAP_MINIMUM 4096u
#define APPEND_GAP_MAXIMUM (256u << 10)

static bool reusable(const space_state *space, const space_free_extent *extent)
{
    return extent->size > 0 && extent->freed_in_version <= space->oldest_pinned_version;
}

/* Encrypted files are written a whole page at a time (a page is encrypted
 * as one), and a torn page write must only ever damage pages that no
 * durable version uses (docs/DESIGN.md invariant 1, which holds per page
 * in an encrypted file). So a commit is placed only on pages that are free
 * as a whole, or that it has started itself: within a free range, from its
 * first page boundary, up to its last; at the end of the file, from the
 * next page boundary. */
#define PLACEMENT_PAGE ((uint64_t)PAGER_PAGE_SIZE)
static uint64_t page_up(uint64_t value) { return (value + PLACEMENT_PAGE - 1) & ~(PLACEMENT_PAGE - 1); }
static uint64_t page_down(uint64_t value) { return value & ~(PLACEMENT_PAGE - 1); }

/* The bytes of free-list entry `index` that this commit may place into. */
static uint64_t usable_size(const space_state *space, size_t index)
{
    const space_free_extent *extent = &space->free_list[index];
    if (!space->page_aligned) return extent->size;
    bool entered = index == space->current_extent && space->current_entered;
    uint64_t start = entered ? extent->position : page_up(extent->position);
    uint64_t end = page_down(extent->position + extent->size);
    return end > start ? end - start : 0;
}

/* Begins placing into the current entry: for an encrypted file, its bytes
 * before the first page boundary become an entry of their own (their page
 * holds another version's nodes). */
static bool enter_current_extent(space_state *space)
{
    size_t index = space->current_extent;
    space_free_extent *extent = &space->free_list[index];
    uint64_t start = space->page_aligned ? page_up(extent->position) : extent->position;
    if (start != extent->position) {
        if (!buf_reserve((void **)&space->free_list, &space->free_capacity, space->free_count + 1,
                        sizeof *space->free_list))
            return false;
        extent = &space->free_list[index];
        memmove(extent + 1, extent, (space->free_count - index) * sizeof *extent);
        space->free_count++;
        uint64_t head = start - extent->position;
        extent->size = head;
        extent = &space->free_list[index + 1];
        extent->position = start;
        extent->size -= head;
        space->current_extent = index + 1;
    }
    space->current_entered = true;
    return true;
}

/* Starts placing at the end of the file (for an encrypted file at the next
 * page boundary; the bytes before it stay free). */
static bool start_appending(space_state *space)
{
    space->appending = true;
    space->current_extent = SIZE_MAX;
    space->current_entered = false;
    if (space->page_aligned && space->placement_end % PLACEMENT_PAGE != 0) {
        if (!buf_reserve((void **)&space->free_list, &space->free_capacity, space->free_count + 1,
                        sizeof *space->free_list))
            return false;
        uint64_t start = page_up(space->placement_end);
        /* Never part of any version: reusable at once (tag 0). */
        space->free_list[space->free_count++] = (space_free_extent){space->placement_end, start - space->placement_end, 0};
        space->placement_end = start;
    }
    return true;
}

/* A commit appended at the end leaves a gap of about half its size free
 * between its new nodes and its copies of changed nodes: when those copies
 * are rewritten and freed, gap and copies merge into a range that holds the
 * next commit, which is a little larger (leaves grow), so commits come back
 * to the ranges they freed instead of growing the file. The new nodes stay
 * out of the way, before the gap. */
static bool leave_gap(space_state *space)
{
    space->gap_pending = false;
    uint64_t gap = space->expected_size / 2;
    if (gap < APPEND_GAP_MINIMUM) gap = APPEND_GAP_MINIMUM;
    if (gap > APPEND_GAP_MAXIMUM) gap = APPEND_GAP_MAXIMUM;
    gap &= ~7ull;
    /* Encrypted: the copies begin on a page of their own. */
    if (space->page_aligned) gap = page_up(space->placement_end + gap) - space->placement_end;
    if (!buf_reserve((void **)&space->free_list, &space->free_capacity, space->free_count + 1, sizeof *space->free_list))
        return false;
    /* Never part of any version, so reusable at once (tag 0). */
    space->free_list[space->free_count++] = (space_free_extent){space->placement_end, gap, 0};
    space->placement_end += gap;
    return true;
}

/* The staging buffer of a large commit is reserved whole at once, to the
 * bound placement is given, rather than doubled as it fills. (Huge pages
 * for it, tried: fewer page faults, but W1's writes and sync became slower
 * and spiky, 0.02 s -> 0.05-0.1 s.) Without the memory, stage_piece grows
 * it as it can. */
static void reserve_stage(space_state *space, uint64_t expected_size)
{
    /* A streamed commit stages about its window at a time. */
    if (space->stream_sink && expected_size > 2 * (uint64_t)space->stream_window)
        expected_size = 2 * (uint64_t)space->stream_window;
    if (expected_size < (4u << 20) || expected_size > SIZE_MAX / 2 || space->stage_capacity >= expected_size) return;
    uint8_t *stage = realloc(space->stage, (size_t)expected_size);
    if (!stage) return;
    space->stage = stage;
    space->stage_capacity = (size_t)expected_size;
}

bool space_plan_placement(space_state *space, uint64_t expected_size)
{
    reserve_stage(space, expected_size);
    /* The whole commit goes into one range, so that it reaches the disk as
     * one run (a sync costs more for each separate range) and leftovers stay
     * whole: the smallest reusable range that holds it (keeping larger ones
     * for larger commits), else the end of the file. */
    space->expected_size = expected_size;
    space->current_extent = SIZE_MAX;
    space->current_entered = false;
    size_t best_fit = SIZE_MAX;
    uint64_t best_size = 0;
    for (size_t i = 0; i < space->free_count; i++) {
        uint64_t usable = usable_size(space, i);
        if (reusable(space, &space->free_list[i]) && usable >= expected_size &&
            (best_fit == SIZE_MAX || usable < best_size)) {
            best_fit = i;
            best_size = usable;
        }
    }
    space->appending = false;
    space->current_extent = best_fit;
    space->gap_pending = false;
    if (best_fit == SIZE_MAX) {
        if (!start_appending(space)) return false;
        /* No gap in an empty file: there is nothing to come back to. */
        space->gap_pending = space->placement_end > CE_HEADER_SIZE;
    }
    return true;
}

static bool stream_flush(space_state *space);

bool space_place(space_state *space, uint64_t size, bool fresh, uint64_t *out_position, uint8_t **out_buffer)
{
    /* The piece placed before this call is filled: what may be written now is. */
    if (space->stream_active && space->stage_length - space->stream_held_bytes >= space->stream_window &&
        !stream_flush(space))
        return false;
    size_t chosen = space->current_extent;
    if (!space->appending && (chosen == SIZE_MAX || usable_size(space, chosen) < size)) {
        /* More than planned: the largest reusable range that holds this node,
         * else the end of the file from now on. */
        chosen = SIZE_MAX;
        uint64_t chosen_size = 0;
        for (size_t i = 0; i < space->free_count; i++) {
            uint64_t usable = usable_size(space, i);
            if (reusable(space, &space->free_list[i]) && usable >= size && (chosen == SIZE_MAX || usable > chosen_size)) {
                chosen = i;
                chosen_size = usable;
            }
        }
        space->current_extent = chosen;
        space->current_entered = false;
        if (chosen == SIZE_MAX && !start_appending(space)) return false;
    }
    if (space->appending && space->gap_pending && !fresh && !leave_gap(space)) return false;
    uint64_t position;
    if (!space->appending) {
        if (!space->current_entered && !enter_current_extent(space)) return false;
        space_free_extent *extent = &space->free_list[space->current_extent];
        position = extent->position;
        extent->position += size;
        extent->size -= size;
    } else {
        /* Reusable space at the end was already given back to the end by
         * space_commit_prepare. */
        position = space->placement_end;
        space->placement_end += size;
    }
    *out_position = position;
    return stage_piece(space, position, size, out_buffer);
}

uint8_t *space_placed_buffer(space_state *space, uint64_t position)
{
    for (size_t i = space->piece_count; i-- > 0;)
        if (space->pieces[i].position == position) return space->stage + space->pieces[i].buffer_offset;
    return NULL;
}

const space_free_extent *space_free_list(const space_state *space, size_t *out_count)
{
    *out_count = space->free_count;
    return space->free_list;
}

static int compare_pieces(const void *a, const void *b)
{
    const space_staged_piece *left = a, *right = b;
    return (left->position > right->position) - (left->position < right->position);
}

bool space_write_runs(space_state *space, pager_write_run **out_runs, size_t *out_count)
{
    /* Placed in order as a rule (an appended commit): sorted only if not. */
    bool sorted = true;
    for (size_t i = 1; i < space->piece_count && sorted; i++)
        sorted = space->pieces[i - 1].position < space->pieces[i].position;
    if (!sorted) qsort(space->pieces, space->piece_count, sizeof *space->pieces, compare_pieces);
    pager_write_run *runs = malloc((space->piece_count + 1) * sizeof *runs);
    if (!runs) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory listing writes");
    size_t count = 0;
    for (size_t i = 0; i < space->piece_count; i++) {
        const space_staged_piece *piece = &space->pieces[i];
        if (count > 0) {
            pager_write_run *last = &runs[count - 1];
            if (last->position + last->length == piece->position &&
                last->bytes + last->length == space->stage + piece->buffer_offset) {
                last->length += piece->length;
                continue;
            }
        }
        runs[count++] = (pager_write_run){piece->position, space->stage + piece->buffer_offset, piece->length};
    }
    *out_runs = runs;
    *out_count = count;
    return true;
}

void space_set_stream(space_state *space, size_t window, space_stream_sink sink, void *context)
{
    space->stream_window = window;
    space->stream_sink = sink;
    space->stream_context = context;
}

void space_stream_begin(space_state *space)
{
    space->stream_held = space->piece_count;
    space->stream_held_bytes = space->stage_length;
    space->stream_active = space->stream_sink && space->stream_window > 0;
}

void space_stream_end(space_state *space) { space->stream_active = false; }

/* Gives the sink the staged bytes a streamed commit may write now and
 * keeps the rest: the held pieces (at the front of the stage, as placed)
 * and what is left of each run. A run is the placed bytes that follow one
 * another in the file; when placement is page aligned (encrypted, page
 * checksums) its first and last pages stay unless it covers them whole,
 * as they may hold bytes of a held piece or of pieces to come (the page
 * placement is in), and a page is written once, whole. Every other page
 * of a run is final: placement never comes back to a page it left (a
 * range it enters again starts on a page boundary). */
static bool stream_flush(space_state *space)
{
    size_t held = space->stream_held, count = space->piece_count - held;
    space_staged_piece *pieces = space->pieces + held;
    if (count == 0) return true;
    bool sorted = true;
    for (size_t i = 1; i < count && sorted; i++) sorted = pieces[i - 1].position < pieces[i].position;
    if (!sorted) qsort(pieces, count, sizeof *pieces, compare_pieces);
    pager_write_run *writes = malloc(count * sizeof *writes);
    space_staged_piece *kept = malloc(2 * count * sizeof *kept);
    if (!writes || !kept) {
        free(writes);
        free(kept);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing a commit");
    }
    size_t write_count = 0, kept_count = 0, kept_bytes = 0;
    for (size_t i = 0; i < count;) {
        uint64_t start = pieces[i].position, end = start + pieces[i].length;
        size_t offset = pieces[i].buffer_offset, next = offset + pieces[i].length;
        for (i++; i < count && pieces[i].position == end && pieces[i].buffer_offset == next; i++) {
            end += pieces[i].length;
            next += pieces[i].length;
        }
        uint64_t from = space->page_aligned ? page_up(start) : start;
        uint64_t to = space->page_aligned ? page_down(end) : end;
        if (from >= to) from = to = end; /* kept whole */
        if (from < to) writes[write_count++] = (pager_write_run){from, space->stage + offset + (from - start), (size_t)(to - from)};
        if (start < from) {
            kept[kept_count++] = (space_staged_piece){start, offset, (size_t)(from - start)};
            kept_bytes += (size_t)(from - start);
        }
        if (to < end) {
            kept[kept_count++] = (space_staged_piece){to, offset + (size_t)(to - start), (size_t)(end - to)};
            kept_bytes += (size_t)(end - to);
        }
    }
    bool ok = write_count == 0 || space->stream_sink(space->stream_context, writes, write_count);
    free(writes);
    /* The kept bytes move to the front, after the held pieces. */
    uint8_t *copy = ok && kept_bytes ? malloc(kept_bytes) : NULL;
    if (ok && kept_bytes && !copy) ok = error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing a commit");
    if (ok) {
        size_t at = 0;
        for (size_t k = 0; k < kept_count; k++) {
            memcpy(copy + at, space->stage + kept[k].buffer_offset, kept[k].length);
            at += kept[k].length;
        }
        if (kept_bytes) memcpy(space->stage + space->stream_held_bytes, copy, kept_bytes);
        at = space->stream_held_bytes;
        for (size_t k = 0; k < kept_count; k++) {
            pieces[k] = (space_staged_piece){kept[k].position, at, kept[k].length};
            at += kept[k].length;
        }
        space->piece_count = held + kept_count;
        space->stage_length = at;
        space->streamed = space->streamed || write_count > 0;
        /* Runs too short to write stay: a window that fills up with them
         * doubles, so that each byte is copied a bounded number of times. */
        if (kept_bytes > space->stream_window / 2) space->stream_window *= 2;
    }
    free(copy);
    free(kept);
    return ok;
}
