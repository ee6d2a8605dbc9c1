/*
 * pagesum.h — the page checksums of a plain file (docs/FORMAT.md, "Page
 * checksums"): attaching a version's pages of checksums to a transaction,
 * keeping them with each commit, and checking a commit's pages at open.
 *
 * Owns: the directory of pages of checksums that a top node names (element
 * TOP_PAGE_SUMS), where a commit places new pages of checksums when the file
 * outgrows them, the checksum of every page a commit writes and the entries
 * it updates.
 * Never: verifies a page a transaction reads (space.c's read barrier and
 * pager_verify_page do), or changes an entry of a page that a version
 * still uses (an entry changes only when its page is rewritten, and a
 * commit writes only pages no version uses: invariant 1 per page).
 */
#ifndef CE_PAGESUM_H
#define CE_PAGESUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db_internal.h"

/* Element 4 of the top node of a file with page checksums: the ref of its
 * directory; such a top node has 5 elements. */
enum { TOP_PAGE_SUMS = 4, TOP_COUNT_PAGE_SUMS = 5 };

/* Gives a transaction of a file with page checksums the directory of its
 * version (read through the mapping, then verified with the top node's
 * pages when `verifier` is given: the handle then verifies every page its
 * transactions read). Version 0 (no top node yet): placement only. */
bool pagesum_attach(space_state *space, pager_state *verifier, const version_info *info);

/* The bytes the version's page checksums occupy (its directory and pages
 * of checksums; 0 for a file without them). */
uint64_t pagesum_bytes(const space_state *space);

/* --- the commit (a write transaction of a file with page checksums) --- */

/* Before space_commit_prepare: decides whether the commit needs new pages
 * of checksums (the file may grow past those it has) and, if so, frees
 * the old directory. `extra_bytes`: an upper bound of what
 * pagesum_place adds to the commit. */
bool pagesum_prepare(ce_txn *txn, uint64_t *out_extra_bytes);

/* After space_plan_placement, before anything else is placed: places the
 * new pages of checksums (whole pages) and the new directory. */
bool pagesum_place(ce_txn *txn);

/* The directory's ref, for the new top node. */
uint64_t pagesum_directory(const ce_txn *txn);

/* Whether the commit places new pages of checksums (a new file's first
 * commit, a directory that grows). They are among its runs, and the
 * commits after it rewrite them in place (the entries of the pages those
 * write), so their bytes stop being this commit's: no header slot may
 * list its runs (an open after a crash would find them changed and reject
 * the slot). Its data is synced before its slot instead (group.h,
 * `listable`). */
bool pagesum_places_pages(const ce_txn *txn);

/* Writes the commit's runs as whole pages (zeros where nothing was
 * placed) with the checksum of each page in its page of checksums (a new
 * one in the runs; an existing one rewritten whole, its other entries
 * unchanged). A streamed commit (space_set_stream) calls it for each
 * piece, every page in one call only, and `last` for the final runs: the
 * existing pages of checksums are written with those. `background`: the
 * runs go to that writer (backwrite.h) instead of the pager, or NULL. */
bool pagesum_write_runs(ce_txn *txn, const pager_write_run *runs, size_t count, bool last,
                        struct backwrite_state *background);

/* Frees what the commit's bookkeeping holds (when the transaction ends). */
void pagesum_release(ce_txn *txn);

/* At open, for a commit the sync record does not vouch for: whether every
 * page its runs touch matches its checksum (a page of checksums that did
 * not reach the disk with the commit's data makes the commit incomplete). */
bool pagesum_commit_whole(pager_state *pager, const version_info *info, const uint64_t (*runs)[2], uint32_t run_count,
                          bool *out_whole);

#endif
