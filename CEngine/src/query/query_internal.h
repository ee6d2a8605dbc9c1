/*
 * query_internal.h — what the files of the query layer share: the bound
 * tree (a predicate bound to a table's columns) and the query core that a
 * ce_query and its ce_results hold.
 *
 * Owns: the types of the bound tree and of the query core.
 * Never: reads the database or allocates; included only by the query layer.
 */
#ifndef CE_QUERY_INTERNAL_H
#define CE_QUERY_INTERNAL_H

#include "cengine.h"
#include "db.h"
#include "error.h"
#include "parse.h"
#include "value.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool query_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory in a query"); }

/* ------------------------------------------------------------------------ */
/* The bound tree: a predicate bound to the schema of one state              */
/* ------------------------------------------------------------------------ */

/* A step of a key path from one object to others. */
typedef enum hop_kind {
    HOP_LINK,     /* from.column: a to-one link */
    HOP_LINKS,    /* from.column: a list, set or dictionary of links (every target) */
    HOP_BACKLINKS /* the objects of origin.origin_column that link to the object (in `from`) */
} hop_kind;


/* What a key path ends at, in the last table it reaches. */
typedef enum path_final {
    FINAL_COLUMN,     /* a property holding one value */
    FINAL_OBJECT,     /* the objects reached (a path ending at a link, or a SUBQUERY variable) */
    FINAL_COLLECTION, /* the elements of a list or set of values, or a dictionary's values */
    FINAL_KEYS,       /* a dictionary's keys */
    FINAL_ENTRY,      /* a dictionary's value under one key (null when the key is absent) */
    FINAL_MIXED,      /* a mixed property's value, or what its steps reach in the lists and
                         dictionaries it holds (mixed_steps), or its @type or @size */
    FINAL_TYPE,       /* `.@type` of a property that is not mixed: its type's name, the
                         same for every object (realm-core's constant TypeOfValue) */
    FINAL_BACKLINKS   /* `@links.@count`: the number of links into the object, from every
                         table and property */
} path_final;

/* A subscript: which elements of a list, set or dictionary a path goes on
 * with (into the lists and dictionaries a mixed value holds, from a
 * collection of links, or the elements of a collection of values). */
typedef enum path_step_kind {
    STEP_ALL,   /* [*], or no subscript: every element of a list or set, every value of a dictionary */
    STEP_KEY,   /* ['key']: a dictionary's value (null when the key is absent) */
    STEP_INDEX  /* [0], [FIRST], [LAST]: a list's (or set's) element (nothing when out of range) */
} path_step_kind;

typedef struct path_step {
    path_step_kind kind;
    const char *key; /* KEY, owned by the bound query */
    size_t key_size;
    int64_t index;   /* INDEX: -1 for LAST */
} path_step;

/* The position a STEP_INDEX step names in a collection of `size` elements
 * (LAST: the last one); false when it names none. */
static inline bool path_step_position(const path_step *step, size_t size, size_t *out)
{
    if (size == 0) return false;
    uint64_t index = step->index < 0 ? (uint64_t)size - 1 : (uint64_t)step->index;
    if (index >= size) return false;
    *out = (size_t)index;
    return true;
}

typedef struct path_hop {
    hop_kind kind;
    ce_table_key from;
    ce_column_key column;
    ce_table_key to;
    path_step select; /* HOP_LINKS: every target, or the one [0], [LAST] or ['key'] names */
} path_hop;

/* What a FINAL_MIXED path yields from the value its steps reach. */
typedef enum mixed_final {
    MIXED_FINAL_VALUE, /* the value */
    MIXED_FINAL_TYPE,  /* @type: its type's name, a string ("int", "list", ...) */
    MIXED_FINAL_SIZE   /* @size, @count: a list's or dictionary's size (nothing for other values) */
} mixed_final;

typedef enum path_aggregate { PATH_ALL_VALUES, PATH_COUNT, PATH_SUM, PATH_AVG, PATH_MIN, PATH_MAX } path_aggregate;

/* A property path bound to the queried table: a column of the object itself
 * (`local`: the leaf kernels read it), or a path through links,
 * collections, backlinks and dictionaries, read object by object. */
typedef struct bound_path {
    size_t position;     /* in the predicate, for messages */
    ce_column_key column; /* the final property's column */
    ce_type type;        /* the final values' type (elements; CE_TYPE_LINK for objects; CE_TYPE_MIXED: any) */
    bool nullable;
    bool indexed;
    bool primary_key;
    bool size_of;        /* `.@count` / `.@size` of a string or binary, `.length` of a list or set of them: the length (an int) */
    unsigned slot;       /* the column's slot in an evaluation (local paths) */
    const char *description; /* "Table.property", owned by the bound query */
    bool local;
    const path_hop *hops; /* owned by the bound query */
    size_t hop_count;
    ce_table_key final_table;
    path_final final;
    path_aggregate aggregate;
    bool multi;          /* several values (before an aggregate makes one of them) */
    bool from_variable;  /* rooted at the SUBQUERY variable's object */
    const char *entry_key; /* FINAL_ENTRY */
    size_t entry_key_size;
    bool link_column;    /* a to-one link of the object itself, compared as its stored key + 1 */
    path_step element;   /* FINAL_COLLECTION: every element, or the one [0], [FIRST] or [LAST] names */
    bool element_type;   /* FINAL_COLLECTION: each element's @type name instead of the element */
    const char *type_name; /* FINAL_TYPE: the name @type yields (gather.c's names) */
    const char *type_text; /* FINAL_TYPE: realm-core's name of it, for messages */
    const path_step *mixed_steps; /* FINAL_MIXED, owned by the bound query */
    size_t mixed_step_count;
    mixed_final mixed_final;
    ce_type mixed_root;  /* FINAL_MIXED: CE_TYPE_LIST or _DICTIONARY when the property is a list or
                            dictionary of mixed values the steps start at, else CE_TYPE_NULL */
} bound_path;

/* Whether a path's aggregate applies to each collection of values it
 * reaches through a link to many objects (`dogs.ages.@count`: one count
 * per dog, compared ANY, as realm-core's ColumnListBase::get_lists reads
 * one list per linked object), rather than to all of its values at once. */
static inline bool path_per_collection(const bound_path *path)
{
    if (path->aggregate == PATH_ALL_VALUES || path->size_of || path->element.kind == STEP_INDEX) return false;
    if (path->final != FINAL_COLLECTION && path->final != FINAL_KEYS) return false;
    for (size_t i = 0; i < path->hop_count; i++)
        if (path->hops[i].kind == HOP_BACKLINKS || (path->hops[i].kind == HOP_LINKS && path->hops[i].select.kind == STEP_ALL))
            return true;
    return false;
}

/* The type of what a path yields (after its aggregate). */
static inline ce_type path_value_type(const bound_path *path)
{
    if (path->size_of || path->aggregate == PATH_COUNT) return CE_TYPE_INT;
    if (path->aggregate == PATH_AVG) return path->type == CE_TYPE_DECIMAL128 ? CE_TYPE_DECIMAL128 : CE_TYPE_DOUBLE;
    if (path->aggregate == PATH_SUM && path->type == CE_TYPE_FLOAT) return CE_TYPE_DOUBLE;
    return path->type;
}

typedef enum operand_kind {
    OPERAND_VALUE,
    OPERAND_LIST,
    OPERAND_PATH,
    OPERAND_SUBQUERY,
    OPERAND_GEO,
    OPERAND_ARITH /* `age + 1`: an arithmetic expression (arith), one value per object, or
                     several when an operand has several (`scores * 2`) */
} operand_kind;

struct arith_expr;

typedef struct operand {
    operand_kind kind;
    size_t position;
    ce_value value;        /* VALUE */
    const char *text;      /* VALUE: a number literal as written, else NULL */
    const ce_value *list;  /* LIST */
    const char **texts;    /* LIST: each element's number text or NULL */
    const bool *arguments; /* LIST '{...}': whether each element is an argument ($n), else NULL */
    size_t list_count;
    bool from_argument;    /* for messages */
    int argument;
    bound_path path;       /* PATH; SUBQUERY: the collection of objects */
    size_t subquery;       /* SUBQUERY: the bound predicate over the collection's objects */
    const ce_geo *geo;     /* GEO: a shape, owned by the bound query or the core's arguments */
    const struct arith_expr *arith; /* ARITH: the expression, owned by the bound query */
} operand;

/* An arithmetic expression bound (bind_operand.c) and evaluated per
 * object (eval.c, arith.c): an operator over two expressions, or a leaf
 * (op 0): a value, a list, a path (one value or several), or a SUBQUERY
 * count. */
typedef struct arith_expr {
    char op;      /* '+', '-', '*', '/'; 0 for a leaf */
    ce_type type; /* what it yields: CE_TYPE_INT, _FLOAT, _DOUBLE, _DECIMAL128, or _MIXED (known per object) */
    const struct arith_expr *left, *right;
    operand leaf;
} arith_expr;

typedef enum kernel_kind {
    KERNEL_INT,       /* int or bool column (or a length): values op integer */
    KERNEL_INT_IN,    /* the same, value in a sorted list of integers */
    KERNEL_REAL,      /* float or double column: values op real (not NaN) */
    KERNEL_REAL_NAN,  /* float or double column: value is NaN (negate: is not) */
    KERNEL_NULL,      /* value is null (negate: is not) */
    KERNEL_TIMESTAMP, /* values op constant */
    KERNEL_FIXED,     /* decimal128, object id, uuid: values op constant */
    KERNEL_TEXT,      /* string or binary: values op constant (folded with flags) */
    KERNEL_IN_SET,    /* any column: value in a set of constants */
    KERNEL_GENERIC,   /* per object: left op right, each a path or a value */
    KERNEL_GEO        /* per object: the embedded objects `path` reaches, their point within `geo` (geo.h) */
} kernel_kind;

/* A hash set of values (KERNEL_IN_SET): open addressing, slots hold index + 1. */
typedef struct value_set {
    ce_value *values;
    size_t count;
    size_t *slots;
    size_t capacity; /* a power of two, at least twice count */
    bool has_null;
} value_set;

/* Whether the set holds a value equal to `value` (value_equal). */
static inline bool value_set_find(const value_set *set, const ce_value *value)
{
    if (value->type == CE_TYPE_NULL) return set->has_null;
    if (!set->capacity) return false;
    size_t mask = set->capacity - 1;
    for (size_t slot = (size_t)value_hash(value) & mask;; slot = (slot + 1) & mask) {
        size_t entry = set->slots[slot];
        if (!entry) return false;
        if (value_equal(&set->values[entry - 1], value)) return true;
    }
}

typedef enum bound_kind { BOUND_TRUE, BOUND_FALSE, BOUND_AND, BOUND_OR, BOUND_NOT, BOUND_COMPARE } bound_kind;

typedef struct bound_node {
    bound_kind kind;
    size_t position;
    size_t first_child, child_count; /* AND, OR, NOT: indexes into bound_query.children */
    /* COMPARE */
    kernel_kind kernel;
    parse_op op;
    unsigned flags;   /* FOLD_CASE, FOLD_DIACRITICS */
    bool nulls_match; /* objects whose value is null match too (x != 5) */
    bool negate;      /* KERNEL_NULL, KERNEL_REAL_NAN */
    bool in_order;    /* KERNEL_GENERIC: two sides of several values with no ANY, ALL or NONE compare
                         element by element, in order (realm-core's ValueBase::compare) */
    bool null_string_first; /* KERNEL_GENERIC: a null string of the object orders before the string constant
                               (compare_null_string_result) */
    bound_path path;  /* every kernel but GENERIC */
    int64_t integer;  /* KERNEL_INT */
    double real;      /* KERNEL_REAL */
    ce_value constant; /* KERNEL_TIMESTAMP, KERNEL_FIXED, KERNEL_TEXT */
    int64_t *integers; /* KERNEL_INT_IN, sorted, distinct */
    size_t integer_count;
    value_set set;     /* KERNEL_IN_SET */
    operand left, right; /* KERNEL_GENERIC */
    parse_quantifier quantifier; /* KERNEL_GENERIC: over the left side's values; KERNEL_GEO: over the objects */
    parse_quantifier right_quantifier; /* KERNEL_GENERIC: over the right side's values (a list) */
    const struct geo_region *geo; /* KERNEL_GEO: the region, owned by the bound query's blocks */
    ce_column_key geo_type_column, geo_coordinates_column; /* KERNEL_GEO: `type` and `coordinates` */
} bound_node;

typedef struct bound_query {
    bound_node *nodes;
    size_t node_count, node_capacity;
    size_t *children;
    size_t child_count, child_capacity;
    size_t root;
    /* The columns the tree reads, one slot each. */
    ce_column_key *slot_columns;
    ce_type *slot_types;
    bool *slot_nullable;
    size_t slot_count, slot_capacity;
    char **blocks; /* owned bytes: descriptions, converted and folded constants */
    size_t block_count, block_capacity;
} bound_query;

/* What a ce_query and the ce_results made from it share. */
typedef struct query_core {
    atomic_int references;
    ce_table_key table;
    parse_tree tree;
    ce_query_argument *arguments; /* deep copies of the caller's */
    size_t argument_count;
    char **argument_blocks;
    size_t argument_block_count;
    /* The tree bound to the schema of the transaction state `stamp`. */
    bound_query bound;
    bool is_bound;
    uint64_t bound_stamp;
    size_t column_count; /* the table's column slots when bound */
    bool realm_swift_values; /* ce_query_options.realm_swift_values */
    db_file_id file;         /* the file it was made on (bind_core refuses another's transaction) */
} query_core;

/* Whether `query` is a live query handle (not freed): otherwise
 * CE_ERR_INVALID_ARGUMENT naming `call` (query.c). */
bool query_check(const ce_query *query, const char *call);

struct ce_query {
    uint64_t magic; /* live or freed (handle.h): the first field */
    query_core *core;
};

/* Drops a reference to a core; the last one frees it (query.c). */
void query_core_release(query_core *core);

/* A new core of the same predicate, arguments and table that shares
 * nothing with `core` (not yet bound), for a view another thread
 * evaluates (query.c). */
bool query_core_clone(const query_core *core, query_core **out_core);

#endif
