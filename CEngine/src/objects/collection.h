/*
 * collection.h — the values of one list, set or dictionary: a sequence of
 * values of one column type, addressed by position.
 *
 * Owns: the nodes of one collection (column arrays from column.h, chunked
 * under a root once they outgrow one array) and the checks of those nodes.
 * Never: knows objects, links, keys or what a set or dictionary means
 * (containers.c and links.c keep sets and dictionary keys sorted through
 * collection_lower_bound, and mixed.c decodes mixed values); never
 * interprets the trees an owned-refs element names.
 *
 * A collection is 0 (empty) or the ref of either
 *   - one column array of 1..COLLECTION_CHUNK_MAX values (small collections), or
 *   - a chunked root (NODE_INNER | NODE_HAS_REFS): [0] the ref of an integer
 *     node holding the number of values in each chunk, [1 + i] chunk i, a
 *     column array of 1..COLLECTION_CHUNK_MAX values.
 * A column array's own node never has NODE_INNER, so the root's flags tell
 * the forms apart. Calls that change a collection take its ref by pointer:
 * it changes with copy-on-write, and becomes 0 when the last value goes.
 *
 * The element type is a column type (column.h), COLUMN_TYPE_OWNED_REFS
 * included; `nullable` as for columns.
 */
#ifndef CE_COLLECTION_H
#define CE_COLLECTION_H

#include "cengine.h"
#include "column.h"
#include "node.h"

#define COLLECTION_CHUNK_MAX 1000u

bool collection_size(const space_state *space, space_ref collection, ce_type type, bool nullable, size_t *out_count);

/* The value at `index` (see column_get for strings, binaries and scratch). */
bool collection_get(const space_state *space, space_ref collection, ce_type type, bool nullable, size_t index,
                    column_scratch *scratch, ce_value *out_value);

bool collection_set(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t index,
                    const ce_value *value);

/* Inserts `value` before `index` (index == size appends). The value's bytes
 * may point into this collection. */
bool collection_insert(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t index,
                       const ce_value *value);

/* Removes the value at `index` (an owned-refs element's tree is freed). */
bool collection_erase(space_state *space, space_ref *collection, ce_type type, bool nullable, size_t index);

/* The checked root of a collection (filled by collection_reader_open; its
 * fields are collection.c's). */
typedef struct collection_view {
    space_ref root;
    bool chunked;
    node_view root_node; /* chunked only */
    node_view counts;    /* chunked only: values per chunk */
    size_t chunk_count;
    size_t total;
} collection_view;

/*
 * A collection resolved once, for reading many of its values: the root and
 * the chunk counts are checked when it opens, and the chunk read last stays
 * open (a column_scan), so that reading the positions in order costs no
 * descent from the root. collection_get does all of that for each value.
 * Valid while the collection is unchanged and the transaction lasts.
 */
typedef struct collection_reader {
    const space_state *space;
    ce_type type;
    bool nullable;
    collection_view view;
    size_t chunk;       /* the chunk open in `scan`; SIZE_MAX: none */
    size_t chunk_start; /* the position of its first value */
    column_scan scan;
} collection_reader;

bool collection_reader_open(const space_state *space, space_ref collection, ce_type type, bool nullable,
                            collection_reader *out_reader);

/* How many values the collection holds. */
static inline size_t collection_reader_size(const collection_reader *reader) { return reader->view.total; }

/* The value at `index`, as collection_get reads it (scratch as for column_get). */
bool collection_reader_get(collection_reader *reader, size_t index, column_scratch *scratch, ce_value *out_value);

/* Frees every node of the collection (0 is the empty collection). */
bool collection_destroy(space_state *space, space_ref collection);

/* The sign of (stored value - the value searched for), for a sorted search. */
typedef bool (*collection_compare)(void *context, const ce_value *stored, int *out_sign);

/* In a collection sorted by `compare`: the first position whose value is
 * not below the one searched for, and whether the value there equals it. */
bool collection_lower_bound(const space_state *space, space_ref collection, ce_type type, bool nullable,
                            column_scratch *scratch, collection_compare compare, void *context,
                            size_t *out_index, bool *out_equal);

#endif
