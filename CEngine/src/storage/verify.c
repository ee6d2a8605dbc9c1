/*
 * verify.c — ce_db_verify: the proof that the latest version is sound.
 *
 * Owns: walking every node the latest version reaches and its free list,
 * and checking that they tile the file from the header to the logical size
 * exactly: nothing overlaps, nothing is referenced twice, nothing leaks
 * (docs/FORMAT.md; the figures of ce_db_stats).
 * Never: changes the file or the version (it reads through a read
 * transaction of its own), or trusts a ref or a size before the node layer
 * and its own checks have bounded it.
 */
#include "cengine.h"
#include "db.h"
#include "db_internal.h"
#include "error.h"
#include "lockfile.h"
#include "node.h"
#include "pager.h"
#include "refset.h"

#include <stdlib.h>
#include <string.h>

typedef struct extent_list {
    space_free_extent *items; /* freed_in_version unused: 1 = free range, 0 = node */
    size_t count, capacity;
    refset seen;              /* the nodes visited */
    uint64_t node_bytes, node_count;
    ce_progress_fn progress;  /* NULL: no progress reports */
    void *progress_context;
    uint64_t total, reported; /* the logical size; bytes at the last report */
} extent_list;

#define VERIFY_PROGRESS_INTERVAL (1u << 20) /* bytes between progress reports, as a copy's */

/* Reports `done` (capped below the total: the last report, done == total,
 * comes only once the file proved sound) about every megabyte. */
static void report_progress(extent_list *list, uint64_t done)
{
    if (!list->progress || done < list->reported + VERIFY_PROGRESS_INTERVAL) return;
    list->reported = done;
    list->progress(list->progress_context, done < list->total ? done : list->total - 1, list->total);
}

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

static bool collect_node(void *context, space_ref ref, const node_view *node)
{
    extent_list *list = context;
    if (!refset_add(&list->seen, ref)) return false;
    list->node_bytes += node_size(node);
    list->node_count++;
    report_progress(list, CE_HEADER_SIZE + list->node_bytes);
    return add_extent(list, ref, node_size(node), 0);
}

static int compare_positions(const void *a, const void *b)
{
    const space_free_extent *left = a, *right = b;
    return (left->position > right->position) - (left->position < right->position);
}

bool ce_db_verify(ce_db *db, ce_db_stats *out_stats)
{
    return ce_db_verify_with_progress(db, out_stats, NULL, NULL);
}

bool ce_db_verify_with_progress(ce_db *db, ce_db_stats *out_stats, ce_progress_fn progress, void *progress_context)
{
    if (!db_check_handle(db, "ce_db_verify")) return false;
    ce_txn *txn;
    if (!ce_txn_begin_read(db, &txn)) return false;
    extent_list list = {0};
    list.progress = progress;
    list.progress_context = progress_context;
    list.total = txn->info.logical_size;
    refset_init(&list.seen, 1024, "verifying");
    bool ok = false;
    uint64_t free_bytes = 0, free_extents = 0;
    const space_state *space = &txn->space;
    if (!node_walk_tree(space, txn->info.top_ref, NODE_MAX_TREE_DEPTH, collect_node, &list)) goto done;
    space_free_extent *free_list = NULL;
    size_t free_count = 0;
    if (!db_load_free_list(txn, &free_list, &free_count)) goto done;
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
        report_progress(&list, CE_HEADER_SIZE + list.node_bytes + free_bytes);
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
        if (lockfile_scan_readers(db, lockfile_read_latest(db->shared).version, &oldest, &active)) out_stats->active_versions = active;
    }
    if (progress) progress(progress_context, list.total, list.total);
    ok = true;
done:
    free(list.items);
    refset_free(&list.seen);
    ce_txn_end(txn);
    return ok;
}
