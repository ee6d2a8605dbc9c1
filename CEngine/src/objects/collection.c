/*
 * collection.c — collections as sequences of column arrays (see collection.h).
 *
 * Owns: the chunked root of a large collection, and the choice of which
 * chunk holds a position.
 * Never: trusts a count or a ref of the root before checking it (the column
 * layer checks each chunk when it opens it), and never leaves an empty
 * chunk or an empty root behind (an empty collection is 0).
 *
 * Chunks split in halves when an insert finds them full, and are removed
 * when their last value goes; a root left with one chunk gives way to that
 * chunk, so a collection that shrinks returns to the small form. Finding a
 * position walks the chunk counts: a million values are a thousand counts.
 */
#include "collection.h"
#include "error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_FLAGS (NODE_INNER | NODE_HAS_REFS)
#define ROOT_COUNTS 0

static bool corrupt(space_ref root, const char *detail)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the collection at offset %llu is damaged: %s",
                   (unsigned long long)root, detail);
}

/* A child of a committed root is committed (see node.c, check_committed_child). */
static bool child_ref(const collection_view *view, size_t slot, space_ref *out_child)
{
    int64_t element = node_get(&view->root_node, slot);
    if (!node_value_is_ref(element) || (!ref_is_temporary(view->root) && ref_is_temporary((space_ref)element)))
        return corrupt(view->root, "a chunk ref is not a ref");
    *out_child = (space_ref)element;
    return true;
}

static bool open_collection(const space_state *space, space_ref root, ce_type type, bool nullable, collection_view *view)
{
    memset(view, 0, sizeof *view);
    view->root = root;
    if (root == 0) return true;
    node_view node;
    if (!node_read(space, root, &node)) return false;
    if (!(node.flags & NODE_INNER)) {
        if (!column_size(space, root, type, nullable, &view->total)) return false;
        if (view->total == 0 || view->total > COLLECTION_CHUNK_MAX)
            return corrupt(root, "its only chunk holds no values, or too many");
        view->chunk_count = 1;
        return true;
    }
    if (node.flags != ROOT_FLAGS || node.count < 2) return corrupt(root, "its root node has a bad shape");
    view->chunked = true;
    view->root_node = node;
    view->chunk_count = node.count - 1;
    space_ref counts;
    if (!child_ref(view, ROOT_COUNTS, &counts) || !node_read(space, counts, &view->counts)) return false;
    if (view->counts.flags != 0 || view->counts.count != view->chunk_count)
        return corrupt(root, "its chunk counts do not match its chunks");
    for (size_t i = 0; i < view->chunk_count; i++) {
        int64_t count = node_get(&view->counts, i);
        if (count < 1 || count > (int64_t)COLLECTION_CHUNK_MAX) return corrupt(root, "a chunk count is out of range");
        view->total += (size_t)count;
    }
    return true;
}

/* The chunk that holds `index` and the position in it; index == total
 * gives the end of the last chunk (an append). */
static void locate(const collection_view *view, size_t index, size_t *out_chunk, size_t *out_offset)
{
    /* The last chunk takes whatever position lies past the others. */
    uint64_t offset = index;
    *out_chunk = view->chunk_count > 1 ? node_find_run(&view->counts, view->chunk_count - 1, &offset) : 0;
    *out_offset = (size_t)offset;
}

static bool chunk_ref(const collection_view *view, size_t chunk, space_ref *out_ref)
{
    if (!view->chunked) {
        *out_ref = view->root;
        return true;
    }
    return child_ref(view, 1 + chunk, out_ref);
}

static bool out_of_bounds(size_t index, size_t count)
{
    return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (the collection holds %zu values)", index,
                   count);
}

bool collection_size(const space_state *space, space_ref collection, ce_type type, bool nullable, size_t *out_count)
{
    collection_view view;
    if (!open_collection(space, collection, type, nullable, &view)) return false;
    *out_count = view.total;
    return true;
}

bool collection_get(const space_state *space, space_ref collection, ce_type type, bool nullable, size_t index,
                    column_scratch *scratch, ce_value *out_value)
{
    collection_view view;
    if (!open_collection(space, collection, type, nullable, &view)) return false;
    if (index >= view.total) return out_of_bounds(index, view.total);
    size_t chunk, offset;
    space_ref ref;
    locate(&view, index, &chunk, &offset);
    return chunk_ref(&view, chunk, &ref) && column_get(space, ref, type, nullable, offset, scratch, out_value);
}

bool collection_reader_open(const space_state *space, space_ref collection, ce_type type, bool nullable,
                            collection_reader *out_reader)
{
    out_reader->space = space;
    out_reader->type = type;
    out_reader->nullable = nullable;
    out_reader->chunk = SIZE_MAX;
    out_reader->chunk_start = 0;
    return open_collection(space, collection, type, nullable, &out_reader->view);
}

bool collection_reader_get(collection_reader *reader, size_t index, column_scratch *scratch, ce_value *out_value)
{
    const collection_view *view = &reader->view;
    if (index >= view->total) return out_of_bounds(index, view->total);
    if (reader->chunk == SIZE_MAX || index < reader->chunk_start || index - reader->chunk_start >= reader->scan.count) {
        size_t chunk, offset;
        space_ref ref;
        locate(view, index, &chunk, &offset);
        reader->chunk = SIZE_MAX;
        if (!chunk_ref(view, chunk, &ref) ||
            !column_scan_open(reader->space, ref, reader->type, reader->nullable, &reader->scan))
            return false;
        /* The chunk must hold what its count says: else a position past
         * its end would fall into no chunk, or the next one twice. */
        size_t expected = view->chunked ? (size_t)node_get(&view->counts, chunk) : view->total;
        if (reader->scan.count != expected) return corrupt(view->root, "a chunk does not hold its count of values");
        reader->chunk = chunk;
        reader->chunk_start = index - offset;
    }
    return column_scan_get(reader->space, &reader->scan, index - reader->chunk_start, scratch, out_value);
}

/* Writable root and counts of a chunked collection; returns the counts' ref. */
static bool writable_root(space_state *space, space_ref *collection, collection_view *view, space_ref *out_counts)
{
    if (!node_make_writable(space, collection)) return false;
    view->root = *collection;
    if (!node_read(space, *collection, &view->root_node)) return false;
    space_ref counts = (space_ref)node_get(&view->root_node, ROOT_COUNTS);
    if (!node_make_writable(space, &counts) || !node_set(space, *collection, ROOT_COUNTS, (int64_t)counts)) return false;
    *out_counts = counts;
    return node_read(space, *collection, &view->root_node) && node_read(space, counts, &view->counts);
}

/* Stores a chunk's new ref and count in a writable chunked root. */
static bool store_chunk(space_state *space, space_ref root, space_ref counts, size_t chunk, space_ref ref, size_t count)
{
    return node_set(space, root, 1 + chunk, (int64_t)ref) && node_set(space, counts, chunk, (int64_t)count);
}

bool collection_set(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t index,
                    const ce_value *value)
{
    collection_view view;
    if (!open_collection(space, *collection, type, nullable, &view)) return false;
    if (index >= view.total) return out_of_bounds(index, view.total);
    if (!view.chunked) return column_set(space, collection, type, nullable, index, value);
    size_t chunk, offset;
    space_ref ref, counts;
    locate(&view, index, &chunk, &offset);
    if (!chunk_ref(&view, chunk, &ref)) return false;
    size_t count = (size_t)node_get(&view.counts, chunk);
    if (!column_set(space, &ref, type, nullable, offset, value)) return false;
    return writable_root(space, collection, &view, &counts) && store_chunk(space, *collection, counts, chunk, ref, count);
}

/* Turns a full single chunk into a chunked root of two halves. */
static bool make_chunked(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t count)
{
    space_ref right, root, counts;
    size_t half = count / 2;
    if (!column_split(space, collection, type, nullable, half, &right)) return false;
    if (!node_create(space, 0, 2, 0, &counts) || !node_set(space, counts, 0, (int64_t)half) ||
        !node_set(space, counts, 1, (int64_t)(count - half)) || !node_create(space, ROOT_FLAGS, 3, 0, &root) ||
        !node_set(space, root, ROOT_COUNTS, (int64_t)counts) || !node_set(space, root, 1, (int64_t)*collection) ||
        !node_set(space, root, 2, (int64_t)right))
        return false;
    *collection = root;
    return true;
}

/* Splits a full chunk of a chunked collection in halves. */
static bool split_chunk(space_state *space, space_ref *collection, collection_view *view, ce_type type, bool nullable,
                        size_t chunk)
{
    space_ref ref, right, counts;
    size_t count = (size_t)node_get(&view->counts, chunk), half = count / 2;
    if (!chunk_ref(view, chunk, &ref) || !column_split(space, &ref, type, nullable, half, &right) ||
        !writable_root(space, collection, view, &counts) || !store_chunk(space, *collection, counts, chunk, ref, half) ||
        !node_insert(space, *collection, 2 + chunk, (int64_t)right) ||
        !node_insert(space, counts, chunk + 1, (int64_t)(count - half)))
        return false;
    return open_collection(space, *collection, type, nullable, view);
}

bool collection_insert(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t index,
                       const ce_value *value)
{
    collection_view view;
    if (!open_collection(space, *collection, type, nullable, &view)) return false;
    if (index > view.total) return out_of_bounds(index, view.total);
    /* A split or a new root moves chunks around; a string or binary that
     * points into one is copied first. */
    ce_value copy = *value;
    void *bytes = NULL;
    if ((value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) && value->string.size > 0) {
        bytes = malloc(value->string.size);
        if (!bytes) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (%zu bytes)", value->string.size);
        memcpy(bytes, value->string.data, value->string.size);
        copy.string.data = bytes;
    }
    bool ok = true;
    if (*collection == 0) {
        ok = column_create(space, type, nullable, 0, collection) &&
             column_insert(space, collection, type, nullable, 0, &copy);
    } else {
        if (!view.chunked && view.total == COLLECTION_CHUNK_MAX)
            ok = make_chunked(space, collection, type, nullable, view.total) &&
                 open_collection(space, *collection, type, nullable, &view);
        if (ok && !view.chunked) {
            ok = column_insert(space, collection, type, nullable, index, &copy);
        } else if (ok) {
            size_t chunk, offset;
            locate(&view, index, &chunk, &offset);
            if ((size_t)node_get(&view.counts, chunk) == COLLECTION_CHUNK_MAX) {
                ok = split_chunk(space, collection, &view, type, nullable, chunk);
                if (ok) locate(&view, index, &chunk, &offset);
            }
            space_ref ref = 0, counts;
            size_t count = ok ? (size_t)node_get(&view.counts, chunk) : 0;
            ok = ok && chunk_ref(&view, chunk, &ref) && column_insert(space, &ref, type, nullable, offset, &copy) &&
                 writable_root(space, collection, &view, &counts) &&
                 store_chunk(space, *collection, counts, chunk, ref, count + 1);
        }
    }
    free(bytes);
    return ok;
}

bool collection_erase(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t index)
{
    collection_view view;
    if (!open_collection(space, *collection, type, nullable, &view)) return false;
    if (index >= view.total) return out_of_bounds(index, view.total);
    if (!view.chunked) {
        if (view.total > 1) return column_erase(space, collection, type, nullable, index);
        if (!column_destroy(space, *collection)) return false;
        *collection = 0;
        return true;
    }
    size_t chunk, offset;
    space_ref ref, counts;
    locate(&view, index, &chunk, &offset);
    size_t count = (size_t)node_get(&view.counts, chunk);
    if (!chunk_ref(&view, chunk, &ref) || !writable_root(space, collection, &view, &counts)) return false;
    if (count > 1)
        return column_erase(space, &ref, type, nullable, offset) &&
               store_chunk(space, *collection, counts, chunk, ref, count - 1);
    if (!column_destroy(space, ref) || !node_erase(space, *collection, 1 + chunk) || !node_erase(space, counts, chunk))
        return false;
    if (view.chunk_count - 1 > 1) return true;
    /* One chunk left: it becomes the collection. */
    node_view root;
    if (!node_read(space, *collection, &root)) return false;
    space_ref last = (space_ref)node_get(&root, 1);
    if (!node_free(space, counts) || !node_free(space, *collection)) return false;
    *collection = last;
    return true;
}

bool collection_destroy(space_state *space, space_ref collection)
{
    return collection == 0 || node_free_tree(space, collection);
}

bool collection_lower_bound(const space_state *space, space_ref collection, ce_type type, bool nullable,
                            column_scratch *scratch, collection_compare compare, void *context,
                            size_t *out_index, bool *out_equal)
{
    size_t low = 0, high;
    if (!collection_size(space, collection, type, nullable, &high)) return false;
    *out_equal = false;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        ce_value stored;
        int sign;
        if (!collection_get(space, collection, type, nullable, middle, scratch, &stored) ||
            !compare(context, &stored, &sign))
            return false;
        if (sign < 0) {
            low = middle + 1;
        } else {
            high = middle;
            if (sign == 0) *out_equal = true;
        }
    }
    /* *out_equal was set by the probe that left `high` at this position only
     * if no later probe moved it; check the final position to be exact. */
    if (*out_equal) {
        ce_value stored;
        int sign;
        if (!collection_get(space, collection, type, nullable, low, scratch, &stored) || !compare(context, &stored, &sign))
            return false;
        *out_equal = sign == 0;
    }
    *out_index = low;
    return true;
}
