/*
 * pagesum.c — the page checksums of a plain file (see pagesum.h).
 *
 * Owns: the directory of pages of checksums and its growth, the checksums
 * a commit computes and the entries it writes, and the check of a commit's
 * pages at open.
 * Never: writes an entry of a page that some version still uses, or lets a
 * page of checksums share a page with other nodes (its own entry is 0: it
 * is not checked as a page; a wrong entry in it fails the page it
 * describes).
 *
 * A commit writes only pages that no version uses (placement is page
 * aligned, as for an encrypted file), whole, with zeros where it placed
 * nothing, so a page's checksum is fixed from the commit that wrote it
 * until the page is free everywhere and rewritten. The entries of the
 * pages a commit writes are therefore the only entries that change, and an
 * existing page of checksums is rewritten in place with every other entry
 * unchanged (a torn write of it damages only entries of pages no durable
 * version uses), exactly as an encrypted file's metadata pages are. The
 * directory (a has-refs node of 64-bit refs, 0 = none) is copied on write,
 * and only when the file outgrows its pages of checksums.
 */
#include "pagesum.h"
#include "backwrite.h"
#include "error.h"
#include "node.h"
#include "pager.h"

#include <stdlib.h>
#include <string.h>

/* Room added to the directory when it grows (0 entries, filled later). */
#define GROWTH_MARGIN(count) ((count) / 8 + 1)

struct pagesum_commit {
    uint64_t *pages;     /* position of page of checksums k */
    size_t count;        /* entries of the new directory */
    size_t first_new;    /* pages[k] for first_new <= k < placed_until are placed by this commit */
    size_t placed_until; /* the rest of the directory is 0 (room to grow) */
    uint64_t directory;  /* the ref the new top names */
    bool grows;
    uint8_t **copies;    /* existing pages of checksums being rewritten, by k (a streamed commit fills them in pieces) */
};

static bool damaged_directory(const space_state *space, uint64_t ref)
{
    (void)space;
    return error_fail(CE_ERR_CORRUPT, "invalid database: the directory of page checksums (ref %llu) is damaged",
                      (unsigned long long)ref);
}

bool pagesum_attach(space_state *space, pager_state *verifier, const version_info *info)
{
    if (info->top_ref == 0) {
        space_set_page_sums(space, NULL, info->version, NULL, 0);
        return true;
    }
    /* Read as they are first (nothing verifies a page before the directory
     * is known); a damaged directory or top names wrong pages of
     * checksums, whose entries then fail the pages read next. */
    node_view top, directory;
    if (!node_read(space, info->top_ref, &top)) return false;
    if (!(top.flags & NODE_HAS_REFS) || top.count < TOP_COUNT_PAGE_SUMS)
        return error_fail(CE_ERR_CORRUPT, "invalid database: the top node of version %llu has no page checksums",
                          (unsigned long long)info->version);
    int64_t ref = node_get(&top, TOP_PAGE_SUMS);
    if (ref <= 0 || !node_value_is_ref(ref) || ref_is_temporary((space_ref)ref)) return damaged_directory(space, (uint64_t)ref);
    if (!node_read(space, (space_ref)ref, &directory)) return false;
    if (directory.flags != NODE_HAS_REFS || directory.width != 64) return damaged_directory(space, (uint64_t)ref);
    space_set_page_sums(space, verifier, info->version, directory.payload, directory.count);
    if (!verifier) return true;
    /* Now through the read barrier: the pages of both are verified. */
    return node_read(space, info->top_ref, &top) && node_read(space, (space_ref)ref, &directory);
}

uint64_t pagesum_bytes(const space_state *space)
{
    if (!space->sum_directory) return 0;
    uint64_t bytes = node_size_for(64, space->sum_count);
    for (uint64_t k = 0; k < space->sum_count; k++) {
        uint64_t ref;
        memcpy(&ref, space->sum_directory + 8 * k, 8);
        if (ref) bytes += PAGER_PAGE_SIZE;
    }
    return bytes;
}

/* --- the commit --- */

void pagesum_release(ce_txn *txn)
{
    if (!txn->page_sums) return;
    if (txn->page_sums->copies)
        for (size_t k = 0; k < txn->page_sums->count; k++) free(txn->page_sums->copies[k]);
    free(txn->page_sums->copies);
    free(txn->page_sums->pages);
    free(txn->page_sums);
    txn->page_sums = NULL;
}

static uint64_t pages_of(uint64_t bytes) { return (bytes + PAGER_PAGE_SIZE - 1) / PAGER_PAGE_SIZE; }

bool pagesum_prepare(ce_txn *txn, uint64_t *out_extra_bytes)
{
    space_state *space = &txn->space;
    pagesum_release(txn);
    struct pagesum_commit *commit = calloc(1, sizeof *commit);
    if (!commit) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", txn->db->path);
    txn->page_sums = commit;
    uint64_t old_count = space->sum_count;
    uint64_t old_directory = 0;
    if (txn->info.top_ref) {
        node_view top;
        if (!node_read(space, txn->info.top_ref, &top)) return false;
        old_directory = (uint64_t)node_get(&top, TOP_PAGE_SUMS);
    }
    /* The most the file can reach with this commit: its nodes, the free
     * list, the top, the gaps placement leaves, and the pages of checksums
     * themselves. */
    uint64_t bound = txn->info.logical_size + node_dirty_size_bound(space) +
                     node_size_for(64, 3 * (space->free_count + space->freed_count + 16)) + (2u << 20);
    /* Leading entries in use (the directory keeps 0 entries for growth). */
    uint64_t have = 0;
    while (have < old_count) {
        uint64_t ref;
        memcpy(&ref, space->sum_directory + 8 * have, 8);
        if (!ref) break;
        have++;
    }
    uint64_t needed = have ? have : 1;
    for (;;) {
        uint64_t end = bound + PAGER_PAGE_SIZE * (needed - have + 2) + node_size_for(64, needed + GROWTH_MARGIN(needed));
        uint64_t more = (pages_of(end) + PAGESUM_PAGE_ENTRIES - 1) / PAGESUM_PAGE_ENTRIES;
        if (more <= needed) break;
        needed = more;
    }
    commit->grows = needed > have || !old_directory;
    uint64_t count = commit->grows ? needed + GROWTH_MARGIN(needed) : old_count;
    if (count < old_count) count = old_count;
    commit->count = (size_t)count;
    commit->pages = calloc(commit->count, sizeof *commit->pages);
    if (!commit->pages) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", txn->db->path);
    for (size_t k = 0; k < have; k++) memcpy(&commit->pages[k], space->sum_directory + 8 * k, 8);
    commit->first_new = (size_t)have;
    commit->placed_until = commit->grows ? (size_t)needed : (size_t)have;
    commit->directory = old_directory;
    *out_extra_bytes = 0;
    if (!commit->grows) return true;
    *out_extra_bytes = (commit->placed_until - commit->first_new + 1) * (uint64_t)PAGER_PAGE_SIZE +
                       node_size_for(64, commit->count);
    return !old_directory || node_free(space, old_directory);
}

bool pagesum_place(ce_txn *txn)
{
    struct pagesum_commit *commit = txn->page_sums;
    space_state *space = &txn->space;
    if (!commit->grows) return true;
    /* The pages of checksums first: placement starts on a page boundary
     * (page aligned), and each fills a page. */
    for (size_t k = commit->first_new; k < commit->placed_until; k++) {
        uint64_t position;
        uint8_t *bytes;
        if (!space_place(space, PAGER_PAGE_SIZE, true, &position, &bytes)) return false;
        if (position % PAGER_PAGE_SIZE != 0)
            return error_fail(CE_ERR_FAIL, "internal error: a page of checksums of '%s' was placed off a page boundary",
                              txn->db->path);
        memset(bytes, 0, PAGER_PAGE_SIZE);
        node_encode_header(bytes, NODE_BYTES, 8, PAGER_PAGE_SIZE - PAGESUM_HEADER_SIZE);
        if (memcmp(bytes, PAGESUM_PAGE_HEADER, PAGESUM_HEADER_SIZE) != 0)
            return error_fail(CE_ERR_FAIL, "internal error: the header of a page of checksums is not PAGESUM_PAGE_HEADER");
        commit->pages[k] = position;
    }
    uint64_t size = node_size_for(64, commit->count), position;
    uint8_t *bytes;
    if (!space_place(space, size, true, &position, &bytes)) return false;
    memset(bytes, 0, (size_t)size);
    node_encode_header(bytes, NODE_HAS_REFS, 64, (uint32_t)commit->count);
    for (size_t k = 0; k < commit->count; k++)
        node_encode_element(bytes + NODE_HEADER_SIZE, 64, k, (int64_t)commit->pages[k]);
    commit->directory = position;
    return true;
}

uint64_t pagesum_directory(const ce_txn *txn) { return txn->page_sums ? txn->page_sums->directory : 0; }

bool pagesum_places_pages(const ce_txn *txn)
{
    return txn->page_sums && txn->page_sums->grows && txn->page_sums->placed_until > txn->page_sums->first_new;
}

/* A page the commit writes that its runs do not cover whole: composed
 * (zeros, then the runs' bytes) and written after the runs. */
typedef struct composed_page {
    uint64_t position;
    uint8_t bytes[PAGER_PAGE_SIZE];
} composed_page;

bool pagesum_write_runs(ce_txn *txn, const pager_write_run *runs, size_t count, bool last, backwrite_state *background)
{
    struct pagesum_commit *commit = txn->page_sums;
    space_state *space = &txn->space;
    pager_state *pager = txn->db->pager;
    const char *path = txn->db->path;
    composed_page *composed = malloc((2 * count + 1) * sizeof *composed);
    if (!commit->copies) commit->copies = calloc(commit->count ? commit->count : 1, sizeof *commit->copies);
    uint8_t **copies = commit->copies; /* rewritten existing pages */
    uint8_t **fresh = calloc(commit->count ? commit->count : 1, sizeof *fresh);   /* placed by this commit */
    bool ok = composed && copies && fresh;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", path);
    size_t composed_count = 0, first_run = 0;
    uint64_t previous_page = UINT64_MAX;
    /* The new pages of checksums lie between these (placed one after the
     * other as a rule): a page outside is none of them. */
    uint64_t lowest_new = UINT64_MAX, highest_new = 0;
    for (size_t k = commit->first_new; k < commit->placed_until; k++) {
        if (commit->pages[k] < lowest_new) lowest_new = commit->pages[k];
        if (commit->pages[k] > highest_new) highest_new = commit->pages[k];
    }
    for (size_t r = 0; ok && r < count; r++) {
        uint64_t first = runs[r].position / PAGER_PAGE_SIZE;
        uint64_t last = (runs[r].position + runs[r].length - 1) / PAGER_PAGE_SIZE;
        for (uint64_t page = first; ok && page <= last; page++) {
            if (page == previous_page) continue; /* shared with the run before: done */
            previous_page = page;
            uint64_t start = page * PAGER_PAGE_SIZE, end = start + PAGER_PAGE_SIZE;
            size_t index = (size_t)(page / PAGESUM_PAGE_ENTRIES);
            if (index >= commit->count || !commit->pages[index]) {
                ok = error_fail(CE_ERR_FAIL, "internal error: page %llu of '%s' has no page of checksums",
                                (unsigned long long)page, path);
                break;
            }
            bool is_sum_page = false;
            if (start >= lowest_new && start <= highest_new)
                for (size_t k = commit->first_new; k < commit->placed_until; k++) is_sum_page |= commit->pages[k] == start;
            uint32_t sum = 0; /* a page of checksums is not checked as a page */
            if (!is_sum_page) {
                while (first_run < count && runs[first_run].position + runs[first_run].length <= start) first_run++;
                if (runs[r].position <= start && runs[r].position + runs[r].length >= end) {
                    sum = pager_page_sum(runs[r].bytes + (start - runs[r].position));
                } else {
                    composed_page *page_bytes = &composed[composed_count++];
                    page_bytes->position = start;
                    memset(page_bytes->bytes, 0, PAGER_PAGE_SIZE);
                    for (size_t k = first_run; k < count && runs[k].position < end; k++) {
                        uint64_t from = runs[k].position > start ? runs[k].position : start;
                        uint64_t to = runs[k].position + runs[k].length < end ? runs[k].position + runs[k].length : end;
                        memcpy(page_bytes->bytes + (from - start), runs[k].bytes + (from - runs[k].position),
                               (size_t)(to - from));
                    }
                    sum = pager_page_sum(page_bytes->bytes);
                }
            }
            /* A new page of checksums: its buffer, looked up once per call
             * (a streamed commit's pieces reach a few of them each). */
            bool placed_here = index >= commit->first_new && index < commit->placed_until;
            if (placed_here && !fresh[index] && !(fresh[index] = space_placed_buffer(space, commit->pages[index]))) {
                ok = error_fail(CE_ERR_FAIL, "internal error: a new page of checksums of '%s' is not staged", path);
                break;
            }
            uint8_t *target = fresh[index];
            if (!placed_here) {
                if (!copies[index]) {
                    copies[index] = malloc(PAGER_PAGE_SIZE);
                    if (!copies[index]) {
                        ok = error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", path);
                        break;
                    }
                    uint64_t at = commit->pages[index];
                    if (at > space->logical_size || space->logical_size - at < PAGER_PAGE_SIZE) {
                        ok = error_fail(CE_ERR_CORRUPT, "invalid database: a page of checksums of '%s' lies outside it",
                                        path);
                        break;
                    }
                    memcpy(copies[index], space->base + at, PAGER_PAGE_SIZE);
                }
                target = copies[index];
            }
            memcpy(target + PAGESUM_HEADER_SIZE + 4 * (page % PAGESUM_PAGE_ENTRIES), &sum, 4);
        }
    }
    /* The runs (with the new pages of checksums), the pages they cover in
     * part (whole, with zeros), then, with the last runs of the commit, the
     * rewritten pages of checksums; the commit's sync covers them all. */
    ok = ok && (background ? backwrite_put(background, runs, count) : pager_write_runs(pager, runs, count));
    for (size_t i = 0; ok && i < composed_count; i++) {
        pager_write_run page = {composed[i].position, composed[i].bytes, PAGER_PAGE_SIZE};
        ok = background ? backwrite_put(background, &page, 1) : pager_write_runs(pager, &page, 1);
    }
    for (size_t k = 0; last && copies && k < commit->count; k++) {
        if (ok && copies[k]) ok = pager_write(pager, commit->pages[k], copies[k], PAGER_PAGE_SIZE);
        free(copies[k]);
        copies[k] = NULL;
    }
    free(composed);
    free(fresh);
    return ok;
}

bool pagesum_commit_whole(pager_state *pager, const version_info *info, const uint64_t (*runs)[2], uint32_t run_count,
                          bool *out_whole)
{
    *out_whole = false;
    uint64_t file_size;
    const uint8_t *base;
    if (!pager_file_size(pager, &file_size) || !pager_map(pager, info->logical_size, &base)) return false;
    space_state space;
    memset(&space, 0, sizeof space);
    space_init_read(&space, base, info->logical_size);
    space_set_file(&space, pager);
    bool ok = pagesum_attach(&space, NULL, info);
    for (uint32_t i = 0; ok && i < run_count; i++) {
        if (runs[i][1] == 0) continue;
        uint64_t first = runs[i][0] / PAGER_PAGE_SIZE, last = (runs[i][0] + runs[i][1] - 1) / PAGER_PAGE_SIZE;
        for (uint64_t page = first; page <= last; page++) {
            uint32_t expected;
            if (!space_page_sum(&space, page, &expected)) {
                ok = false;
                break;
            }
            if (expected == 0) continue; /* a page of checksums (space_page_sum checked its header) */
            if ((page + 1) * PAGER_PAGE_SIZE > file_size || pager_page_sum(base + page * PAGER_PAGE_SIZE) != expected) {
                space_free_ready_pages(&space);
                return true; /* not whole */
            }
        }
    }
    space_free_ready_pages(&space);
    if (!ok) {
        /* A damaged directory or top: this commit is not whole either. */
        return ce_last_error_code() == CE_ERR_CORRUPT || ce_last_error_code() == CE_ERR_INVALID_DATABASE ? true : false;
    }
    *out_whole = true;
    return true;
}
