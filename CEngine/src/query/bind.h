/*
 * bind.h — binding (bind.c, bind_predicate.c, bind_operand.c): a core's parsed predicate,
 * or a key path on its own, bound to the schema of a transaction's state.
 *
 * Owns: the binder (the state of one binding) and the calls that bind a
 * core, a predicate or a key path, free a bound tree and report a bind
 * error.
 * Never: evaluates what it binds (eval.h does).
 */
#ifndef CE_BIND_H
#define CE_BIND_H

#include "compare.h"
#include "query_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* What a binding works with, and where it puts what it binds. */
/* The SUBQUERY variables a key path is bound inside, innermost first. */
typedef struct subquery_scope {
    const char *variable;
    ce_table_key table;
    const struct subquery_scope *outer;
} subquery_scope;

typedef struct binder {
    query_core *core;
    ce_txn *txn;
    bound_query *out;
    const char *table_name;
    folder folder;
    /* What messages quote: the predicate, or a key path given on its own. */
    const char *text;
    size_t text_length;
    const char *subject; /* "Invalid predicate", "Invalid key path '...'" */
    /* Inside SUBQUERY(collection, $x, ...): key paths start at $x, an object
     * of variable_table, and every comparison is evaluated object by object. */
    const char *variable;
    ce_table_key variable_table;
    const subquery_scope *scopes; /* every enclosing SUBQUERY's variable, innermost first */
    /* A key path of SORT(...) or DISTINCT(...) in the predicate: "sort" or
     * "distinct", which a missing property's message names; else NULL. */
    const char *clause;
} binder;

/* Binds the core's tree to the schema of the transaction's state, unless it
 * is bound to it already (core->bound, core->column_count). */
bool bind_core(query_core *core, ce_txn *txn);

/* Binds the predicate node `index` of the core's tree and what is under
 * it; *out is the bound node's index (bind_predicate.c). */
bool bind_predicate(binder *b, int index, size_t *out);

/* Binds the operand node `index` (one side of a comparison, or of an
 * arithmetic expression) into *out (bind_operand.c). */
bool bind_operand(binder *b, int index, operand *out);

/* A string literal or argument (or list element) compared with numbers
 * of `other` (an int, float, double or decimal128 property, @count, an
 * arithmetic expression) becomes that number when its text reads as one,
 * as realm-core's ConstantNode::visit converts it for its hint
 * (bind_operand.c). Not with ce_query_options.realm_swift_values. */
bool bind_numeric_strings(binder *b, operand *constant, const operand *other);

/* A decimal for a numeric constant: from a literal's text when there is
 * one (exact), else converted (bind_predicate.c). */
ce_decimal128 bind_constant_decimal(const ce_value *value, const char *text);

/*
 * Binds a key path of `tree` (the predicate's, or a %K argument's own tree)
 * to the queried table: property names, through to-one links, lists, sets
 * and dictionaries of links, and @links.Class.property backlinks, to a
 * property, the objects reached, a collection's elements, a dictionary's
 * keys, values or entry, with @count/@size, @sum, @avg, @min, @max; with
 * one subscript on a collection of values or links ([0], [FIRST], [LAST],
 * [*], ['key']: list[0], dogs[LAST].name, dict['key']); or a mixed
 * property's value, into the lists and dictionaries it holds (subscripts
 * and keys, nested), with @type or @size; @type of any property. Positions
 * in messages are the predicate's: `at` overrides the tree's own positions
 * for a %K argument.
 */
bool bind_key_path(binder *b, const parse_tree *tree, const parse_node *node, size_t at, bool use_at,
                   bound_path *out);

/* The key path a %K argument holds, bound. */
bool bind_key_path_argument(binder *b, const parse_node *node, bound_path *out);

/* Every bind error names the position and token of the predicate (or key
 * path) with b->subject; always returns false. */
bool bind_error(const binder *b, size_t position, const char *format, ...) CE_PRINTF(3, 4);

/* realm-core's name of a type in its query messages (get_data_type_name):
 * "int", "string", "timestamp", "decimal128", "objectId", "mixed", ... */
const char *bind_core_type_name(ce_type type);

/* Frees what a bound tree owns and empties it. */
void bind_query_free(bound_query *bound);

/* Bytes owned by the bound query: a copy of `data` (zeros if NULL),
 * NUL-terminated, aligned for any type. */
bool bind_keep_bytes(bound_query *bound, const void *data, size_t size, char **out);

/* Adds a value to an IN-set (a null sets has_null), then builds the set's
 * table once all values are in. */
bool bind_set_add(value_set *set, const ce_value *value);
bool bind_set_index(value_set *set);

#endif
