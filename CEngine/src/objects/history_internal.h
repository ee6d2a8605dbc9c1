/*
 * history_internal.h — what history.c (recording, writing) and
 * history_delta.c (reading, merging) share (internal).
 *
 * Owns: the declarations of the history's byte format helpers: ranges of
 * object keys, LEB128 varints written and read with bounds checks, values,
 * collection ids, and the history root (docs/FORMAT.md, "Change history").
 * All are defined in history.c.
 * Never: is included outside those two files.
 */
#ifndef CE_HISTORY_INTERNAL_H
#define CE_HISTORY_INTERNAL_H

#include "cengine.h"
#include "space.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HISTORY_FORMAT 1
#define ROOT_HEADER 3 /* format, covered since, entry bytes; then (version, entry) pairs */

/* --- ranges of object keys --- */

typedef struct history_range {
    int64_t first, last;
} history_range;

/* Normalized: ascending, disjoint, not adjacent. */
typedef struct history_ranges {
    history_range *items;
    size_t count, capacity;
} history_ranges;

/* Appends [first, last], merged into the last range when it touches it. */
bool history_ranges_push(history_ranges *set, int64_t first, int64_t last);
/* Sorts and merges overlapping and adjacent ranges. */
void history_ranges_normalize(history_ranges *set);
/* a - b, both normalized, into out (emptied first). */
bool history_ranges_subtract(const history_ranges *a, const history_ranges *b, history_ranges *out);
bool history_ranges_contain(const history_ranges *set, int64_t key);
/* How many keys. */
size_t history_ranges_total(const history_ranges *set);
/* Appends every range of `from` (normalize afterwards). */
bool history_ranges_append(history_ranges *to, const history_ranges *from);

/* --- bytes --- */

typedef struct history_buffer {
    uint8_t *bytes;
    size_t size, capacity;
} history_buffer;

bool history_put_bytes(history_buffer *out, const void *bytes, size_t length);
bool history_put_uv(history_buffer *out, uint64_t value);
/* A collection id as an entry stores it (also the key collections sort by). */
struct history_collection_id; /* history.h */
bool history_put_collection_id(history_buffer *out, const struct history_collection_id *id);
/* The order of encoded collection ids: bytewise, a prefix first. */
int history_compare_ids(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size);

/* Reading: every call checks the bytes left and fails with
 * CE_ERR_INVALID_DATABASE ("the change history is damaged"). */
typedef struct history_reader {
    const uint8_t *bytes;
    size_t size, at;
} history_reader;

/* Set CE_ERR_INVALID_DATABASE / CE_ERR_OUT_OF_MEMORY and return false. */
bool history_damaged(void);
bool history_out_of_memory(void);
bool history_get_uv(history_reader *in, uint64_t *out);
bool history_get_sv(history_reader *in, int64_t *out);
bool history_get_u8(history_reader *in, uint8_t *out);
/* `length` bytes in place. */
bool history_get_bytes(history_reader *in, size_t length, const uint8_t **out);
/* A count of items of at least `min_bytes` each: bounded by the bytes left,
 * so that a damaged count cannot ask for a huge allocation. */
bool history_get_count(history_reader *in, size_t min_bytes, size_t *out);
/* An object key (>= 0). */
bool history_get_key(history_reader *in, int64_t *out);
/* A range list, appended to `out`. */
bool history_get_ranges(history_reader *in, history_ranges *out);
/* A primary key value (strings point into the reader's bytes). */
bool history_get_value(history_reader *in, ce_value *out);

/* --- the root --- */

typedef struct history_root_entry {
    uint64_t version;
    space_ref entry;
    uint64_t bytes;
} history_root_entry;

typedef struct history_root {
    uint64_t covered_since;
    history_root_entry *entries; /* ascending by version; the caller frees */
    size_t count;
} history_root;

/* Reads and checks the root and the sizes of its entries. */
bool history_read_root(const space_state *space, space_ref root, history_root *out);

#endif
