/*
 * column.h — column arrays: the values of one property for the objects of
 * one cluster leaf.
 *
 * Owns: the nodes that hold one column of one leaf (a few hundred values at
 * most), their encoding per property type (see column.c and docs/FORMAT.md),
 * checking those nodes when they are read, type checks of values written,
 * zstd compression of large strings and binaries.
 * Never: knows tables, properties, object keys or the cluster tree (the
 * caller names the table and property in its messages); never interprets
 * the trees of an owned-refs column (see COLUMN_TYPE_OWNED_REFS) or mixed
 * or link properties (object.c, mixed.c and links.c do).
 *
 * Every call takes the property's type and nullability: the column's nodes
 * do not repeat them, and a column whose nodes do not have the shape of that
 * type is damage (CE_ERR_CORRUPT). Calls that change a column take its ref
 * by pointer: copy-on-write may give it a new ref, which the caller stores
 * where the old one was.
 *
 * Failures: a bad value (wrong type, null in a non-nullable column, invalid
 * UTF-8, a malformed timestamp) is CE_ERR_INVALID_ARGUMENT and is detected
 * before anything changes; a position past the end is
 * CE_ERR_INDEX_OUT_OF_BOUNDS; damaged nodes are CE_ERR_CORRUPT. A failure
 * after the checks (out of memory) may leave the column half changed: the
 * write transaction must then be rolled back, as for every layer.
 */
#ifndef CE_COLUMN_H
#define CE_COLUMN_H

#include "cengine.h"
#include "node.h"

/* The most values a column array holds. Cluster leaves hold a few hundred;
 * a larger count read from the file is damage (a node of width 0 holds any
 * count in 8 bytes, and would make every operation loop for seconds). */
#define COLUMN_MAX_COUNT 65536u

/* A column type of the engine's own (not a property type): each element is
 * 0 or the ref of a tree that the element owns (an object's list, set,
 * dictionary, backlinks or mixed value). column_get hands an element out as
 * a CE_TYPE_INT value holding the ref; column_set stores one without freeing
 * what the element named before (the caller changed that tree in place, or
 * freed it); column_erase and column_destroy free the trees they drop.
 * Never nullable. */
#define COLUMN_TYPE_OWNED_REFS ((ce_type)64)

/* Strings and binaries larger than this get a node of their own. */
#define COLUMN_INLINE_MAX 65536u
/* Strings and binaries of at least this many bytes are compressed with zstd
 * (level 1) when that saves at least an eighth of their size. */
#define COLUMN_COMPRESS_MIN 4096u

/*
 * Where column_get puts a value it had to decompress. Owned by the caller:
 * initialize with CE_COLUMN_SCRATCH_INIT (or zeros), release with
 * column_scratch_free. A decompressed value stays valid until the next
 * column_get with the same scratch, or column_scratch_free. One scratch per
 * value the caller needs at the same time (e.g. two for a comparison).
 */
typedef struct column_scratch {
    uint8_t *buffer;
    size_t capacity;
    void *decompressor; /* a ZSTD_DCtx, kept between calls */
} column_scratch;

#define CE_COLUMN_SCRATCH_INIT {NULL, 0, NULL}

void column_scratch_free(column_scratch *scratch);

/* A new column of `count` default values (null when nullable; else 0, false,
 * 0.0, "", empty binary, timestamp 0, decimal128 0E0, all-zero object id and
 * uuid). */
bool column_create(space_state *space, ce_type type, bool nullable, size_t count, space_ref *out_column);

bool column_size(const space_state *space, space_ref column, ce_type type, bool nullable, size_t *out_count);

/*
 * The value at `index`: of the column's type, or CE_TYPE_NULL. Strings and
 * binaries point into the database (valid until the transaction changes this
 * column or ends) or, for a compressed value, into `scratch` (see above).
 * `scratch` may be NULL for columns other than string and binary; a string
 * or binary column needs one (CE_ERR_INVALID_ARGUMENT without).
 */
bool column_get(const space_state *space, space_ref column, ce_type type, bool nullable, size_t index,
                column_scratch *scratch, ce_value *out_value);

/* A new column holding `count` values, built in one pass: how a cluster
 * leaf is filled at once. Each value's type and nullability are checked;
 * its content (UTF-8, sizes, timestamps) must have been checked already, as
 * column_set checks it (object.c checks every value it buffers). */
bool column_create_from_values(space_state *space, ce_type type, bool nullable, const ce_value *values, size_t count,
                               space_ref *out_column);

/* Replaces the value at `index`. The value must have the column's type, or
 * be null in a nullable column. Its bytes are copied; they may point into the
 * database, even into this column. */
bool column_set(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index, const ce_value *value);

/* column_set's fast case: replaces the value at `index` of an int, bool,
 * float, double or timestamp column (nullable or not) whose nodes this
 * transaction made or copied already (temporary refs: checked when they
 * were copied), in the nodes where they lie. The column's ref never
 * changes; a node is widened only when the value needs more bits.
 * *out_done false, and nothing changed, for anything else (another type, a
 * committed node, a value of the wrong type): the caller then calls
 * column_set, which copies, checks and reports. An index past the end
 * fails with CE_ERR_INDEX_OUT_OF_BOUNDS, as in column_set. */
bool column_set_in_place(space_state *space, space_ref column, ce_type type, bool nullable, size_t index,
                         const ce_value *value, bool *out_done);

/* Inserts the default value before `index` (index == count appends). */
bool column_insert_default(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index);

/* Inserts `value` before `index` (index == count appends): what
 * column_insert_default and column_set do together, in one pass. */
bool column_insert(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index, const ce_value *value);

bool column_erase(space_state *space, space_ref *column, ce_type type, bool nullable, size_t index);

/* Moves the values [from, count) into a new column *out_right; the column
 * keeps [0, from). */
bool column_split(space_state *space, space_ref *column, ce_type type, bool nullable, size_t from, space_ref *out_right);

/* Frees every node of the column (its large values included). */
/* The packed numbers of an int, bool, float or double column, for scans
 * that read a whole leaf at once (sums, counts, comparisons): `values` holds
 * the integers (for float and double: their bits, as column.c stores them),
 * and `nulls`, when `has_nulls`, a 0/1 element per value (1 = null). */
typedef struct column_numbers {
    node_view values;
    node_view nulls;
    bool has_nulls;
    size_t count;
} column_numbers;

bool column_numbers_view(const space_state *space, space_ref column, ce_type type, bool nullable, column_numbers *out);

bool column_destroy(space_state *space, space_ref column);

/*
 * A whole column array of any type, opened and checked once, for scans that
 * read many of its values (the query layer's leaf evaluation):
 *   int, bool, float, double  values: the integers (as column_numbers)
 *   timestamp                 values: seconds, second: nanoseconds
 *   decimal128, objectId, uuid values: a bytes node, element_size bytes a value
 *   string, binary            values: the ends, second: the bytes, large: the
 *                             values stored alone (has_large; see column.c)
 *   nullable                  nulls: one 0/1 element per value (1 = null)
 * The shape is checked; the values are not (a reader checks what it uses:
 * ends in order within the bytes, a large value through column_scan_get).
 */
typedef struct column_scan {
    ce_type type;
    bool nullable;
    size_t count;
    node_view values;
    node_view second;
    node_view large;
    bool has_large;
    node_view nulls;
    bool has_nulls;
    size_t element_size;
    space_ref ref;          /* the column, and its parts: for column_scan_get */
    space_ref part_refs[4]; /* values, second, large, nulls */
} column_scan;

bool column_scan_open(const space_state *space, space_ref column, ce_type type, bool nullable, column_scan *out);

/* The value at `index`, as column_get reads it (every check included). */
bool column_scan_get(const space_state *space, const column_scan *scan, size_t index, column_scratch *scratch,
                     ce_value *out_value);

#endif
