/*
 * bind_predicate.c — a parsed predicate bound to the queried table: each
 * comparison checked (types, operators, nil, [c]/[d]) and given the kernel
 * that evaluates it: a leaf kernel over one column with its constant
 * converted to the column's domain (int, real, NaN, null, timestamp, fixed
 * bytes, text, a sorted list of ints or a set for IN), or a generic
 * comparison read object by object (paths through links and collections,
 * mixed values, SUBQUERY, ANY/ALL/NONE, BETWEEN over several values).
 *
 * Owns: the bound nodes of a predicate (bind.h's bind_predicate), the
 * choice of kernel per comparison, and the bind errors of comparisons.
 * Never: evaluates a predicate (eval.c), binds an operand (bind_operand.c)
 * or a key path itself (bind.c's bind_key_path).
 */
#include "arith.h"
#include "bind.h"
#include "buf.h"
#include "compare.h"
#include "decimal.h"
#include "fold.h"
#include "geo.h"
#include "parse.h"
#include "query_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "an int (5)", "a string ('abc')", "argument 2 (a string)", ... for messages. */
static void describe_operand_value(const operand *o, const ce_value *value, char *out, size_t size)
{
    char shown[96];
    switch (value->type) {
    case CE_TYPE_NULL: snprintf(shown, sizeof shown, "nil"); break;
    case CE_TYPE_INT: snprintf(shown, sizeof shown, "an int (%lld)", (long long)value->integer); break;
    case CE_TYPE_BOOL: snprintf(shown, sizeof shown, "a bool (%s)", value->boolean ? "true" : "false"); break;
    case CE_TYPE_FLOAT: snprintf(shown, sizeof shown, "a float (%g)", (double)value->float_value); break;
    case CE_TYPE_DOUBLE: snprintf(shown, sizeof shown, "a double (%g)", value->double_value); break;
    case CE_TYPE_STRING: {
        char text[40];
        size_t n = value->string.size < 32 ? value->string.size : 32, used = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)value->string.data[i];
            text[used++] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
        }
        text[used] = 0;
        snprintf(shown, sizeof shown, "a string ('%s%s')", text, value->string.size > 32 ? "..." : "");
        break;
    }
    case CE_TYPE_LINK: snprintf(shown, sizeof shown, "an object"); break;
    default: snprintf(shown, sizeof shown, "a %s", ce_type_name(value->type)); break;
    }
    if (o && o->from_argument) snprintf(out, size, "argument %d, %s", o->argument, shown);
    else snprintf(out, size, "%s", shown);
}

static bool new_bound_node(bound_query *bound, bound_kind kind, size_t position, size_t *out_index)
{
    if (!buf_reserve((void **)&bound->nodes, &bound->node_capacity, bound->node_count + 1, sizeof *bound->nodes)) return false;
    bound_node *node = &bound->nodes[bound->node_count];
    memset(node, 0, sizeof *node);
    node->kind = kind;
    node->position = position;
    *out_index = bound->node_count++;
    return true;
}

static bool constant_node(binder *b, bool value, size_t position, size_t *out)
{
    return new_bound_node(b->out, value ? BOUND_TRUE : BOUND_FALSE, position, out);
}

/* Whether a property's values and values of `type` compare at all. */
static bool types_compare(ce_type property, ce_type value)
{
    if (compare_is_number(property)) return compare_is_number(value);
    if (compare_is_text(property)) return compare_is_text(value);
    return property == value;
}

/* < <= > >= with [c] or [d] on strings, refused in Realm Swift's words
 * (RLMQueryUtil.mm): [c] alone reaches make_lexicographical_constraint
 * ("Lexicographical comparisons must be case-sensitive"), [d] the
 * diacritic-insensitive path, which has no ordering (unsupportedOperator). */
static bool ordered_flags_error(binder *b, size_t position, parse_op op, unsigned flags)
{
    if (flags & FOLD_DIACRITICS)
        return bind_error(b, position, "Operator '%s' not supported for type 'string'", parse_op_name(op));
    return bind_error(b, position, "Lexicographical comparisons must be case-sensitive");
}

/* `collection == x` or `ANY collection != x` for a to-many path of objects
 * and x nil or a link to no stored object (a key below 0: the Swift layer's
 * unmanaged or deleted object). */
static bool no_object_in_collection(const operand *left, parse_op op, const operand *right, parse_quantifier quantifier)
{
    if (left->kind != OPERAND_PATH || right->kind != OPERAND_VALUE) return false;
    if (op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL) return false;
    if (quantifier != PARSE_QUANTIFIER_NONE_GIVEN && quantifier != PARSE_QUANTIFIER_ANY) return false;
    const bound_path *path = &left->path;
    if (path->type != CE_TYPE_LINK || !path->multi || path->aggregate != PATH_ALL_VALUES) return false;
    return right->value.type == CE_TYPE_NULL || (right->value.type == CE_TYPE_LINK && right->value.link.key < 0);
}

/* Whether nil compares with the values of `path` in Realm Swift's
 * predicates: a property that can hold null (or a mixed value, a link, a
 * dictionary's entry), or what an aggregate or a length makes of one. */
static bool null_comparable(const bound_path *path)
{
    return path->nullable || path->size_of || path->aggregate != PATH_ALL_VALUES || path->type == CE_TYPE_MIXED ||
           path->type == CE_TYPE_LINK;
}

/* A value Realm Swift does not compare with the values of `path`, refused
 * in its words (RLMQueryUtil.mm, validate_property_value: "Expected object
 * of type %@ for property '%@' on object of type '%@', but received: %@";
 * for an element of an IN list, which it turns into ORed ==, "Expected
 * object of type %@ in IN clause for property '%@' on object of type '%@',
 * but received: %@"), at the value's position; `received` is the value as
 * Realm prints it. */
static bool realm_swift_value_error(binder *b, const bound_path *path, parse_op op, size_t position, const char *received)
{
    /* The description is "Class.key.path" from the queried class. */
    const char *dot = strchr(path->description, '.');
    const char *key_path = dot ? dot + 1 : path->description;
    const char *type = path->type == CE_TYPE_OBJECT_ID ? "object id" : path->type == CE_TYPE_TIMESTAMP ? "date"
                       : path->type == CE_TYPE_BINARY  ? "data"
                                                       : ce_type_name(path->type);
    return bind_error(b, position, "Expected object of type %s%s for property '%s' on object of type '%s', but received: %s",
                      type, op == PARSE_OP_IN ? " in IN clause" : "", key_path, b->table_name, received);
}

/* Whether `value`, the operand itself or an element of its list, came
 * from an argument ($n) rather than a literal: `{$0, 1}` holds both. */
static bool value_is_argument(const operand *o, const ce_value *value)
{
    if (o->kind == OPERAND_LIST && o->arguments && value >= o->list && value < o->list + o->list_count)
        return o->arguments[value - o->list];
    return o->from_argument;
}

/* Element i of a list operand as a value operand of its own (a bound of
 * BETWEEN): its text, and whether it is an argument. */
static operand list_element(const operand *list, size_t i)
{
    operand element = *list;
    element.kind = OPERAND_VALUE;
    element.value = list->list[i];
    element.text = list->texts ? list->texts[i] : NULL;
    element.from_argument = value_is_argument(list, &list->list[i]);
    element.arguments = NULL;
    return element;
}

/* The checks of `path op value` that do not depend on the value's content. */
static bool check_comparison(binder *b, const bound_path *path, parse_op op, unsigned flags, const operand *o,
                             const ce_value *value, size_t position)
{
    char shown[160];
    ce_type type = path_value_type(path);
    const char *type_name = path->size_of ? "length of a" : ce_type_name(path->type);
    if (value->type == CE_TYPE_NULL) {
        /* nil printed as Objective-C prints it. */
        if (b->core->realm_swift_values && !null_comparable(path)) return realm_swift_value_error(b, path, op, position, "(null)");
        /* Realm compares nil with every operator (realm-core's conditions,
         * query_conditions.hpp, take a null on either side): what a path
         * of objects or of non-text values cannot take with a value, it
         * cannot take with nil either. */
        if (type == CE_TYPE_LINK && op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL && op != PARSE_OP_IN)
            return bind_error(b, position, "objects ('%s') compare only by ==, != and IN, not %s", path->description,
                              parse_op_name(op));
        if (compare_is_string_operator(op) && !compare_is_text(type) && type != CE_TYPE_MIXED)
            return bind_error(b, position, "%s needs a string or binary property, and '%s' is %s %s", parse_op_name(op),
                              path->description, path->size_of ? "the" : "of type",
                              path->size_of ? "length of a text" : type_name);
        return true;
    }
    /* realm-core converts a literal to the property's type and refuses
     * the literal `inf` for a type that is not a number, or an int
     * (ConstantNode::visit, driver.cpp, case Type::INFINITY_VAL: "Infinity
     * not supported for int"); a mixed property is no number type there
     * either. An argument holding an infinity is no such literal: its case
     * (Type::ARG) compares the double as it is, inside a list `{$0}` too
     * (ListNode::visit visits each element as its own ConstantNode). */
    if (!b->core->realm_swift_values && !value_is_argument(o, value) &&
        ((value->type == CE_TYPE_DOUBLE && isinf(value->double_value)) ||
         (value->type == CE_TYPE_FLOAT && isinf(value->float_value))) &&
        (type == CE_TYPE_INT || (type != CE_TYPE_DOUBLE && type != CE_TYPE_FLOAT && type != CE_TYPE_DECIMAL128)))
        return bind_error(b, position, "Infinity not supported for %s", bind_core_type_name(type));
    if (b->core->realm_swift_values && path->type == CE_TYPE_INT && !path->size_of && path->aggregate == PATH_ALL_VALUES &&
        (value->type == CE_TYPE_FLOAT || value->type == CE_TYPE_DOUBLE)) {
        /* Realm Swift takes only integers for an int property (its
         * numberIsInteger); the number as NSNumber prints it. */
        char received[40];
        snprintf(received, sizeof received, "%.16g",
                 value->type == CE_TYPE_FLOAT ? (double)value->float_value : value->double_value);
        return realm_swift_value_error(b, path, op, position, received);
    }
    if (type == CE_TYPE_MIXED) return true; /* a mixed value compares with anything */
    if (type == CE_TYPE_LINK) {
        if (op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL && op != PARSE_OP_IN)
            return bind_error(b, position, "objects ('%s') compare only by ==, != and IN, not %s", path->description,
                              parse_op_name(op));
        if (flags) return bind_error(b, position, "[c] and [d] compare strings, and '%s' holds objects", path->description);
        if (value->type != CE_TYPE_LINK) {
            describe_operand_value(o, value, shown, sizeof shown);
            return bind_error(b, position, "'%s' holds objects: it compares with an object or nil, not %s",
                              path->description, shown);
        }
        return true;
    }
    if (value->type == CE_TYPE_LINK)
        return bind_error(b, position, "cannot compare %s property '%s' with an object: object equality needs a link",
                          ce_type_name(path->type), path->description);
    if (compare_is_string_operator(op) && !compare_is_text(type))
        return bind_error(b, position, "%s needs a string or binary property, and '%s' is %s %s", parse_op_name(op),
                          path->description, path->size_of ? "the" : "of type", path->size_of ? "length of a text" : type_name);
    if (!types_compare(type, value->type)) {
        describe_operand_value(o, value, shown, sizeof shown);
        return bind_error(b, position, "cannot compare %s%s property '%s' with %s", path->size_of ? "the length of " : "",
                          ce_type_name(path->type), path->description, shown);
    }
    if (flags) {
        /* realm-core takes [c] with a binary on the right
         * (verify_only_string_types, driver.cpp: "right side must be a
         * string or binary type") and a binary property then compares
         * case-insensitively (EqualityNode and StringOpsNode::visit pass
         * case_sensitive to Query::equal, begins_with, ... on the binary
         * column): the bytes fold as UTF-8 text. Its parser has no [d]. */
        bool binaries = type == CE_TYPE_BINARY && value->type == CE_TYPE_BINARY && flags == FOLD_CASE;
        if ((type != CE_TYPE_STRING || value->type != CE_TYPE_STRING) && !binaries)
            return bind_error(b, position, "[c] and [d] compare strings, and '%s' is %s %s", path->description,
                              path->size_of ? "the length of a" : "of type", ce_type_name(path->type));
        if (compare_is_ordered_operator(op)) return ordered_flags_error(b, position, op, flags);
    }
    return true;
}

static parse_op mirror(parse_op op)
{
    switch (op) {
    case PARSE_OP_LESS: return PARSE_OP_GREATER;
    case PARSE_OP_LESS_EQUAL: return PARSE_OP_GREATER_EQUAL;
    case PARSE_OP_GREATER: return PARSE_OP_LESS;
    case PARSE_OP_GREATER_EQUAL: return PARSE_OP_LESS_EQUAL;
    default: return op;
    }
}

/* Whether `path op value` orders a null before the string (compare.h,
 * compare_null_string_result): a string property of the queried object or
 * of a SUBQUERY's variable, not reached through links or collections,
 * against a non-null string, by <, <=, >, >= without [c] or [d]. */
static bool null_string_first(const bound_path *path, parse_op op, unsigned flags, const ce_value *value)
{
    return compare_is_ordered_operator(op) && !flags && value->type == CE_TYPE_STRING && path->type == CE_TYPE_STRING &&
           path->hop_count == 0 && path->final == FINAL_COLUMN && path->aggregate == PATH_ALL_VALUES && !path->size_of &&
           !path->multi;
}

/* `int op c` for a real c, as an int comparison: 0 none match, 1 all
 * (non-null) match, 2 compare with *out_op and *out_integer. */
static int int_domain(parse_op op, double c, parse_op *out_op, int64_t *out_integer)
{
    const double two63 = 9223372036854775808.0;
    if (isnan(c)) return op == PARSE_OP_NOT_EQUAL ? 1 : 0;
    *out_op = op;
    double low = compare_floor(c), high = compare_ceil(c);
    switch (op) {
    case PARSE_OP_EQUAL:
    case PARSE_OP_NOT_EQUAL:
        if (low != c || c < -two63 || c >= two63) return op == PARSE_OP_EQUAL ? 0 : 1;
        *out_integer = (int64_t)c;
        return 2;
    case PARSE_OP_GREATER: /* x > c  <=>  x > floor(c) */
        if (low >= two63) return 0;
        if (low < -two63) return 1;
        *out_integer = (int64_t)low;
        return 2;
    case PARSE_OP_GREATER_EQUAL: /* x >= c  <=>  x >= ceil(c) */
        if (high >= two63) return 0;
        if (high <= -two63) return 1;
        *out_integer = (int64_t)high;
        return 2;
    case PARSE_OP_LESS: /* x < c  <=>  x < ceil(c) */
        if (high >= two63) return 1;
        if (high <= -two63) return 0;
        *out_integer = (int64_t)high;
        return 2;
    case PARSE_OP_LESS_EQUAL: /* x <= c  <=>  x <= floor(c) */
        if (low >= two63) return 1;
        if (low < -two63) return 0;
        *out_integer = (int64_t)low;
        return 2;
    default: break;
    }
    return 0;
}

/* Whether an int converts to a double exactly. */
static bool int_is_exact_double(int64_t value) { return value >= -(1ll << 53) && value <= (1ll << 53); }

/* A comparison node reading `path` with kernel `kernel`. */
static bool kernel_node(binder *b, kernel_kind kernel, const bound_path *path, parse_op op, unsigned flags,
                        size_t position, size_t *out)
{
    if (!new_bound_node(b->out, BOUND_COMPARE, position, out)) return false;
    bound_node *node = &b->out->nodes[*out];
    node->kernel = kernel;
    node->path = *path;
    node->op = op;
    node->flags = flags;
    node->nulls_match = op == PARSE_OP_NOT_EQUAL && path->nullable;
    return true;
}

/* "matches every non-null value" (with nulls too when they match). */
static bool all_values_node(binder *b, const bound_path *path, bool nulls_match, size_t position, size_t *out)
{
    if (!path->nullable || nulls_match) return constant_node(b, true, position, out);
    if (!kernel_node(b, KERNEL_NULL, path, PARSE_OP_EQUAL, 0, position, out)) return false;
    b->out->nodes[*out].negate = true;
    b->out->nodes[*out].nulls_match = false;
    return true;
}

/* A number compared with a float property is first made a float, as Realm
 * Swift's query builder unboxes it for a float column ([NSNumber
 * floatValue], Realm/RLMQueryUtil.mm's value_of_type<float>): `f == 0.1`
 * matches a row holding 0.1f, `f < 2.3` does not match 2.3f. */
static ce_value float_constant(const bound_path *path, const ce_value *value)
{
    if (path_value_type(path) != CE_TYPE_FLOAT || path->size_of) return *value;
    if (value->type == CE_TYPE_DOUBLE) return (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)value->double_value};
    if (value->type == CE_TYPE_INT) return (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)value->integer};
    return *value;
}

/* A list of constants compared with a float property, made floats
 * (float_constant), owned by the bound query; other lists as they are. */
static bool float_list(binder *b, const bound_path *path, operand *list)
{
    if (path_value_type(path) != CE_TYPE_FLOAT || path->size_of || !list->list_count) return true;
    char *bytes;
    if (!bind_keep_bytes(b->out, NULL, list->list_count * sizeof(ce_value), &bytes)) return false;
    ce_value *values = (ce_value *)(void *)bytes;
    for (size_t i = 0; i < list->list_count; i++) values[i] = float_constant(path, &list->list[i]);
    list->list = values;
    return true;
}

/* A decimal for a numeric constant: from a literal's text when there is one
 * (exact), else converted. */
ce_decimal128 bind_constant_decimal(const ce_value *value, const char *text)
{
    ce_decimal128 decimal;
    if (text && value->type != CE_TYPE_DECIMAL128 && decimal_from_text(text, &decimal)) return decimal;
    return compare_decimal_of(value);
}

/* A string constant for a text kernel: folded with [c]/[d], owned. */
static bool text_constant(binder *b, ce_type property_type, const ce_value *value, unsigned flags, ce_value *out)
{
    const char *data;
    size_t size;
    compare_text_of(value, &data, &size);
    if (flags) {
        if (!fold_text(data, size, flags, &b->folder.buffers[0], &b->folder.capacities[0], &size)) return false;
        data = b->folder.buffers[0];
    }
    char *kept;
    if (!bind_keep_bytes(b->out, data, size, &kept)) return false;
    memset(out, 0, sizeof *out);
    out->type = property_type;
    if (property_type == CE_TYPE_STRING) {
        out->string.data = kept;
        out->string.size = size;
    } else {
        out->binary.data = (const uint8_t *)kept;
        out->binary.size = size;
    }
    return true;
}

/* A number literal compared with decimals is read as a decimal from its
 * text, as realm-core reads a constant with the other side's type as its
 * hint (ConstantNode::visit, driver.cpp: Decimal128(text) for type_Decimal),
 * whatever the path: a property, one through links, a list, a set, a
 * dictionary or an aggregate; `0.1 IN decimals` too. An argument stays
 * the double it is. The values (and a list's copy) are owned by the query. */
static bool decimal_literals(binder *b, const operand *path, operand *constant)
{
    if (path->kind != OPERAND_PATH || path_value_type(&path->path) != CE_TYPE_DECIMAL128 || path->path.size_of)
        return true;
    if (constant->kind == OPERAND_VALUE) {
        if (constant->text && compare_is_number(constant->value.type) && constant->value.type != CE_TYPE_DECIMAL128) {
            ce_value decimal = {.type = CE_TYPE_DECIMAL128, .decimal = bind_constant_decimal(&constant->value, constant->text)};
            constant->value = decimal;
        }
        return true;
    }
    if (constant->kind != OPERAND_LIST || !constant->texts || !constant->list_count) return true;
    char *bytes;
    if (!bind_keep_bytes(b->out, NULL, constant->list_count * sizeof(ce_value), &bytes)) return false;
    ce_value *values = (ce_value *)(void *)bytes;
    for (size_t i = 0; i < constant->list_count; i++) {
        values[i] = constant->list[i];
        if (constant->texts[i] && compare_is_number(values[i].type) && values[i].type != CE_TYPE_DECIMAL128)
            values[i] = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = bind_constant_decimal(&values[i], constant->texts[i])};
    }
    constant->list = values;
    return true;
}

/* A generic comparison: `left op right` evaluated object by object. */
static bool generic_node(binder *b, const operand *left, parse_op op, unsigned flags, const operand *right,
                         size_t position, size_t *out)
{
    operand left_copy = *left, right_copy = *right;
    if (!decimal_literals(b, left, &right_copy) || !decimal_literals(b, right, &left_copy)) return false;
    if (!new_bound_node(b->out, BOUND_COMPARE, position, out)) return false;
    bound_node *node = &b->out->nodes[*out];
    node->kernel = KERNEL_GENERIC;
    node->op = op;
    node->flags = flags;
    node->left = left_copy;
    node->right = right_copy;
    return true;
}

/* `path op value` (op: ==, !=, <, <=, >, >=, or a string operator). */
static bool bind_path_value(binder *b, const operand *left, parse_op op, unsigned flags, const operand *right,
                            size_t position, size_t *out)
{
    const bound_path *path = &left->path;
    ce_value rounded = float_constant(path, &right->value);
    const ce_value *value = &rounded;
    if (!check_comparison(b, path, op, flags, right, value, right->position)) return false;
    if (compare_empty_needle(op, value)) return constant_node(b, false, position, out);
    if (compare_is_string_operator(op) && compare_is_text(path_value_type(path)) && compare_is_text(value->type) &&
        path_value_type(path) != value->type && value_is_argument(right, &right->value))
        /* A string property and a binary argument, or the reverse:
         * realm-core's StringOpsNode::visit (driver.cpp) takes its column
         * fast path only for one type and otherwise builds
         * Compare<Contains> (BeginsWith, ...) over the values, whose
         * QueryValue overloads (query_conditions.hpp) take a string with a
         * string or a binary with a binary and are false otherwise, as on
         * a mixed value (eval.c, matches_right). */
        return constant_node(b, false, position, out);
    if (path->link_column) {
        /* A to-one link of the object: its column holds the target's key + 1 (0: null). */
        int64_t stored = 0;
        if (value->type == CE_TYPE_LINK) {
            if (value->link.table != path->final_table || value->link.key < 0 || value->link.key == INT64_MAX)
                return constant_node(b, op == PARSE_OP_NOT_EQUAL, position, out);
            stored = value->link.key + 1;
        }
        if (!kernel_node(b, KERNEL_INT, path, op, 0, position, out)) return false;
        b->out->nodes[*out].integer = stored;
        return true;
    }
    if (value->type == CE_TYPE_NULL) {
        /* == <= >= LIKE nil: the nulls; != nil: the others; < > nil: none
         * (compare_null_result). */
        bool nulls = compare_null_result(op, true, true), others = compare_null_result(op, false, true);
        if (!path->nullable || nulls == others) return constant_node(b, others, position, out);
        if (!kernel_node(b, KERNEL_NULL, path, PARSE_OP_EQUAL, 0, position, out)) return false;
        b->out->nodes[*out].negate = others;
        b->out->nodes[*out].nulls_match = false;
        return true;
    }
    bool nulls_match = op == PARSE_OP_NOT_EQUAL && path->nullable;
    switch (path_value_type(path)) {
    case CE_TYPE_INT:
    case CE_TYPE_BOOL: {
        int64_t integer;
        parse_op int_op = op;
        if (value->type == CE_TYPE_INT) {
            integer = value->integer;
        } else if (value->type == CE_TYPE_BOOL) {
            integer = value->boolean;
        } else if (value->type == CE_TYPE_FLOAT || value->type == CE_TYPE_DOUBLE) {
            int decided = int_domain(op, compare_real_of(value), &int_op, &integer);
            if (decided == 0) return constant_node(b, false, position, out);
            if (decided == 1) return all_values_node(b, path, nulls_match, position, out);
        } else {
            return generic_node(b, left, op, flags, right, position, out);
        }
        if (!kernel_node(b, KERNEL_INT, path, int_op, 0, position, out)) return false;
        b->out->nodes[*out].integer = integer;
        return true;
    }
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE: {
        double real;
        if (value->type == CE_TYPE_INT && int_is_exact_double(value->integer)) real = (double)value->integer;
        else if (value->type == CE_TYPE_FLOAT || value->type == CE_TYPE_DOUBLE) real = compare_real_of(value);
        else return generic_node(b, left, op, flags, right, position, out);
        if (isnan(real)) {
            if (op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL) return constant_node(b, false, position, out);
            if (!kernel_node(b, KERNEL_REAL_NAN, path, op, 0, position, out)) return false;
            b->out->nodes[*out].negate = op == PARSE_OP_NOT_EQUAL;
            return true;
        }
        if (!kernel_node(b, KERNEL_REAL, path, op, 0, position, out)) return false;
        b->out->nodes[*out].real = real;
        return true;
    }
    case CE_TYPE_DECIMAL128: {
        ce_value constant = {.type = CE_TYPE_DECIMAL128};
        constant.decimal = bind_constant_decimal(value, right->text);
        if (decimal_is_nan(constant.decimal) && compare_is_ordered_operator(op)) return constant_node(b, false, position, out);
        if (!kernel_node(b, KERNEL_FIXED, path, op, 0, position, out)) return false;
        b->out->nodes[*out].constant = constant;
        return true;
    }
    case CE_TYPE_TIMESTAMP:
    case CE_TYPE_OBJECT_ID:
    case CE_TYPE_UUID:
        if (!kernel_node(b, path->type == CE_TYPE_TIMESTAMP ? KERNEL_TIMESTAMP : KERNEL_FIXED, path, op, 0, position, out))
            return false;
        b->out->nodes[*out].constant = *value;
        return true;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: {
        ce_value constant;
        if (!text_constant(b, path->type, value, flags, &constant) ||
            !kernel_node(b, KERNEL_TEXT, path, op, flags, position, out))
            return false;
        b->out->nodes[*out].constant = constant;
        if (null_string_first(path, op, flags, value))
            b->out->nodes[*out].nulls_match = path->nullable && compare_null_string_result(op, true);
        return true;
    }
    default: break;
    }
    return bind_error(b, position, "properties of type %s cannot be queried", ce_type_name(path->type));
}

/* The value an IN-set holds for a list element, in the domain of the
 * property's values as the kernel reads them; false in *out_keep when no
 * value of the property can equal it. */
static bool set_value(binder *b, const bound_path *path, const ce_value *element, const char *text, unsigned flags,
                      ce_value *out, bool *out_keep)
{
    *out_keep = true;
    ce_value rounded = float_constant(path, element);
    element = &rounded;
    *out = rounded;
    if (element->type == CE_TYPE_NULL) return true;
    switch (path_value_type(path)) {
    case CE_TYPE_INT:
        if (element->type == CE_TYPE_INT) return true;
        if (element->type == CE_TYPE_DECIMAL128) {
            *out_keep = false; /* handled generically: see bind_in */
            return true;
        }
        {
            parse_op op;
            int64_t integer = 0;
            *out_keep = int_domain(PARSE_OP_EQUAL, compare_real_of(element), &op, &integer) == 2;
            *out = (ce_value){.type = CE_TYPE_INT, .integer = integer};
        }
        return true;
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE:
        if (element->type == CE_TYPE_DECIMAL128) {
            *out_keep = false;
            return true;
        }
        if (element->type == CE_TYPE_INT) {
            /* Equal to a double only if the double holds it exactly. */
            double real = (double)element->integer;
            *out_keep = compare_int_double(element->integer, real) == 0 && real < 9223372036854775808.0;
            *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = real};
            return true;
        }
        *out = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = compare_real_of(element)};
        return true;
    case CE_TYPE_DECIMAL128:
        *out = (ce_value){.type = CE_TYPE_DECIMAL128};
        out->decimal = bind_constant_decimal(element, text);
        return true;
    case CE_TYPE_STRING:
    case CE_TYPE_BINARY: return text_constant(b, path->type, element, flags, out);
    default: return true;
    }
}

/* `path IN list`. */
static bool bind_in(binder *b, const operand *left, unsigned flags, const operand *list, size_t position, size_t *out)
{
    const bound_path *path = &left->path;
    operand rounded = *list;
    if (!float_list(b, path, &rounded)) return false;
    const operand *right = &rounded;
    if (path->link_column) {
        /* Objects: their stored keys + 1 (0: null), sorted, distinct. */
        int64_t *integers = malloc((right->list_count + 1) * sizeof *integers);
        if (!integers) return query_out_of_memory();
        size_t count = 0;
        for (size_t i = 0; i < right->list_count; i++) {
            const ce_value *element = &right->list[i];
            if (!check_comparison(b, path, PARSE_OP_IN, flags, right, element, right->position)) {
                free(integers);
                return false;
            }
            if (element->type == CE_TYPE_NULL) integers[count++] = 0;
            else if (element->link.table == path->final_table && element->link.key >= 0 && element->link.key < INT64_MAX)
                integers[count++] = element->link.key + 1;
        }
        for (size_t i = 1; i < count; i++)
            for (size_t j = i; j > 0 && integers[j - 1] > integers[j]; j--) {
                int64_t swap = integers[j];
                integers[j] = integers[j - 1];
                integers[j - 1] = swap;
            }
        size_t distinct = 0;
        for (size_t i = 0; i < count; i++)
            if (distinct == 0 || integers[distinct - 1] != integers[i]) integers[distinct++] = integers[i];
        if (!kernel_node(b, KERNEL_INT_IN, path, PARSE_OP_IN, 0, position, out)) {
            free(integers);
            return false;
        }
        b->out->nodes[*out].integers = integers;
        b->out->nodes[*out].integer_count = distinct;
        b->out->nodes[*out].nulls_match = false;
        return true;
    }
    bool generic = false;
    for (size_t i = 0; i < right->list_count; i++) {
        const ce_value *element = &right->list[i];
        if (!check_comparison(b, path, PARSE_OP_IN, flags, right, element, right->position)) return false;
        if (element->type == CE_TYPE_DECIMAL128 && path_value_type(path) != CE_TYPE_DECIMAL128) generic = true;
        if (element->type == CE_TYPE_INT && compare_is_number(path->type) && path->type != CE_TYPE_INT && !path->size_of &&
            path->type != CE_TYPE_DECIMAL128 && !int_is_exact_double(element->integer))
            generic = true;
    }
    if (generic) {
        /* An OR of generic equalities: a decimal against an int or double
         * column, or an int beyond 2^53 against a double column. */
        size_t first = b->out->child_count;
        size_t *items = malloc((right->list_count + 1) * sizeof *items);
        if (!items) return query_out_of_memory();
        bool ok = true;
        for (size_t i = 0; ok && i < right->list_count; i++) {
            operand element = *right;
            element.kind = OPERAND_VALUE;
            element.value = right->list[i];
            element.text = right->texts ? right->texts[i] : NULL;
            ok = right->list[i].type == CE_TYPE_NULL ? bind_path_value(b, left, PARSE_OP_EQUAL, flags, &element, position, &items[i])
                                                     : generic_node(b, left, PARSE_OP_EQUAL, flags, &element, position, &items[i]);
        }
        for (size_t i = 0; ok && i < right->list_count; i++) {
            ok = buf_reserve((void **)&b->out->children, &b->out->child_capacity, b->out->child_count + 1,
                            sizeof *b->out->children);
            if (ok) b->out->children[b->out->child_count++] = items[i];
        }
        free(items);
        if (!ok || !new_bound_node(b->out, BOUND_OR, position, out)) return false;
        b->out->nodes[*out].first_child = first;
        b->out->nodes[*out].child_count = right->list_count;
        return true;
    }
    ce_type type = path_value_type(path);
    if (type == CE_TYPE_INT || type == CE_TYPE_BOOL) {
        int64_t *integers = malloc((right->list_count + 1) * sizeof *integers);
        if (!integers) return query_out_of_memory();
        size_t count = 0;
        bool has_null = false;
        for (size_t i = 0; i < right->list_count; i++) {
            ce_value converted;
            bool keep;
            const ce_value *element = &right->list[i];
            if (element->type == CE_TYPE_NULL) {
                has_null = true;
                continue;
            }
            if (element->type == CE_TYPE_BOOL) {
                integers[count++] = element->boolean;
                continue;
            }
            if (!set_value(b, path, element, NULL, flags, &converted, &keep)) {
                free(integers);
                return false;
            }
            if (keep) integers[count++] = converted.integer;
        }
        /* Sort (insertion sort on a small list; shell gaps for a long one) and drop repeats. */
        for (size_t gap = count / 2; gap > 0; gap /= 2)
            for (size_t i = gap; i < count; i++)
                for (size_t j = i; j >= gap && integers[j - gap] > integers[j]; j -= gap) {
                    int64_t swap = integers[j];
                    integers[j] = integers[j - gap];
                    integers[j - gap] = swap;
                }
        size_t distinct = 0;
        for (size_t i = 0; i < count; i++)
            if (distinct == 0 || integers[distinct - 1] != integers[i]) integers[distinct++] = integers[i];
        if (!kernel_node(b, KERNEL_INT_IN, path, PARSE_OP_IN, 0, position, out)) {
            free(integers);
            return false;
        }
        bound_node *node = &b->out->nodes[*out];
        node->integers = integers;
        node->integer_count = distinct;
        node->nulls_match = has_null && path->nullable;
        return true;
    }
    if (!kernel_node(b, KERNEL_IN_SET, path, PARSE_OP_IN, flags, position, out)) return false;
    value_set *set = &b->out->nodes[*out].set;
    for (size_t i = 0; i < right->list_count; i++) {
        ce_value converted;
        bool keep;
        if (!set_value(b, path, &right->list[i], right->texts ? right->texts[i] : NULL, flags, &converted, &keep))
            return false;
        if (keep && !bind_set_add(set, &converted)) return false;
    }
    if (!path->nullable) set->has_null = false;
    b->out->nodes[*out].nulls_match = set->has_null;
    return bind_set_index(set);
}

/* Whether an operand is read object by object (a path through links or
 * collections, a mixed property, a SUBQUERY, anything inside a SUBQUERY). */
static bool is_generic_operand(const binder *b, const operand *o)
{
    return o->kind == OPERAND_SUBQUERY || o->kind == OPERAND_ARITH || (o->kind == OPERAND_PATH && (b->variable || !o->path.local));
}

static ce_type operand_type(const operand *o)
{
    if (o->kind == OPERAND_SUBQUERY) return CE_TYPE_INT;
    if (o->kind == OPERAND_ARITH) return o->arith->type;
    if (o->kind == OPERAND_PATH) return path_value_type(&o->path);
    return o->value.type;
}

static const char *operand_description(const operand *o)
{
    return o->kind == OPERAND_PATH       ? o->path.description
           : o->kind == OPERAND_SUBQUERY ? "SUBQUERY(...).@count"
           : o->kind == OPERAND_ARITH    ? "an arithmetic expression"
                                         : "a value";
}

/* Whether [c]/[d] in `flags` apply between values of types a and c: two
 * strings; or two binaries with [c] alone, folded as UTF-8 text as
 * against a binary constant (check_comparison): realm-core's
 * EqualityNode::visit and StringOpsNode::visit (src/realm/parser/driver.cpp)
 * check only that the right side is a string or binary
 * (verify_only_string_types) and build the case-insensitive condition
 * (EqualIns, BeginsWithIns, ...) for two columns as for a column and a
 * constant. A string and a binary stay refused. */
static bool folds_both_sides(ce_type a, ce_type c, unsigned flags)
{
    if (a == CE_TYPE_STRING && c == CE_TYPE_STRING) return true;
    return a == CE_TYPE_BINARY && c == CE_TYPE_BINARY && flags == FOLD_CASE;
}

/* Two operands that both yield values from objects: whether they compare. */
static bool check_two_sides(binder *b, const operand *left, parse_op op, unsigned flags, const operand *right,
                            size_t position)
{
    ce_type a = operand_type(left), c = operand_type(right);
    if (a == CE_TYPE_MIXED || c == CE_TYPE_MIXED) return true;
    if (a == CE_TYPE_LINK || c == CE_TYPE_LINK) {
        if (a != c) return bind_error(b, position, "cannot compare objects with %s values", ce_type_name(a == CE_TYPE_LINK ? c : a));
        if (op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL && op != PARSE_OP_IN)
            return bind_error(b, position, "objects compare only by ==, != and IN, not %s", parse_op_name(op));
        return true;
    }
    if (!types_compare(a, c))
        return bind_error(b, position, "cannot compare %s values of '%s' with %s values of '%s'", ce_type_name(a),
                          operand_description(left), ce_type_name(c), operand_description(right));
    if (compare_is_string_operator(op) && !compare_is_text(a))
        return bind_error(b, position, "%s needs strings or binaries, and '%s' holds %s values", parse_op_name(op),
                          operand_description(left), ce_type_name(a));
    if (flags && !folds_both_sides(a, c, flags))
        return bind_error(b, position, "[c] and [d] compare strings with ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS and LIKE");
    if (flags && compare_is_ordered_operator(op)) return ordered_flags_error(b, position, op, flags);
    return true;
}

/* A number literal compared with an arithmetic expression takes the
 * expression's type as its hint (realm-core's ConstantNode::visit: a
 * decimal from the text, a float for a float), as it does with a path.
 * That type is the first operand's (Operator::get_type is its left
 * side's): `dec + {0.2, 0.5} == 0.3` reads 0.3 as a decimal, a list
 * first (any type, Mixed) leaves it a double. */
static void arith_literal(const operand *expr, operand *constant)
{
    if (expr->kind != OPERAND_ARITH || constant->kind != OPERAND_VALUE || !constant->text) return;
    const arith_expr *first = expr->arith;
    while (first->op) first = first->left;
    ce_type hint = first->type;
    if (hint == CE_TYPE_DECIMAL128 && compare_is_number(constant->value.type) &&
        constant->value.type != CE_TYPE_DECIMAL128)
        constant->value = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = bind_constant_decimal(&constant->value, constant->text)};
    else if (hint == CE_TYPE_FLOAT && constant->value.type == CE_TYPE_DOUBLE)
        constant->value = (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)constant->value.double_value};
}

/* A list or set of values (realm-core's ColumnListBase): its elements. */
static bool primitive_list(const bound_path *path)
{
    return path->final == FINAL_COLLECTION && path->aggregate == PATH_ALL_VALUES && !path->size_of &&
           path->element.kind == STEP_ALL && !path->element_type;
}

/* A comparison evaluated object by object: `left op right`, each side a
 * value, a list (IN, BETWEEN), a path (several values: ANY unless the
 * quantifier says ALL or NONE) or a SUBQUERY count. */
static bool bind_generic(binder *b, operand *left, parse_op op, unsigned flags, operand *right,
                         parse_quantifier quantifier, size_t position, size_t *out)
{
    if (left->kind == OPERAND_PATH && right->kind == OPERAND_VALUE) right->value = float_constant(&left->path, &right->value);
    if (right->kind == OPERAND_PATH && left->kind == OPERAND_VALUE) left->value = float_constant(&right->path, &left->value);
    if (left->kind == OPERAND_PATH && right->kind == OPERAND_LIST && !float_list(b, &left->path, right)) return false;
    arith_literal(left, right);
    arith_literal(right, left);
    if (op == PARSE_OP_BETWEEN) {
        if (right->kind != OPERAND_LIST || right->list_count != 2)
            return bind_error(b, right->position, "BETWEEN needs a list of two values, like {1, 10}");
        if (flags) return bind_error(b, position, "[c] and [d] do not apply to BETWEEN");
    }
    if (op == PARSE_OP_IN || op == PARSE_OP_BETWEEN) {
        if (right->kind == OPERAND_PATH && !right->path.multi)
            return bind_error(b, right->position, "property '%s' is not a link/collection", right->path.description);
        if (right->kind == OPERAND_VALUE || right->kind == OPERAND_SUBQUERY)
            return bind_error(b, right->position, "%s needs a list on its right: {...}, a list argument%s",
                              parse_op_name(op), op == PARSE_OP_IN ? " or a collection" : "");
        if (left->kind == OPERAND_LIST) return bind_error(b, left->position, "%s needs a value or a key path on its left",
                                                          parse_op_name(op));
        if (right->kind == OPERAND_LIST) {
            for (size_t i = 0; i < right->list_count; i++) {
                if (left->kind == OPERAND_PATH) {
                    if (op == PARSE_OP_BETWEEN && right->list[i].type == CE_TYPE_NULL)
                        return bind_error(b, right->position, "BETWEEN cannot compare '%s' with nil", left->path.description);
                    if (!check_comparison(b, &left->path, op == PARSE_OP_IN ? PARSE_OP_IN : PARSE_OP_LESS, flags, right,
                                          &right->list[i], right->position))
                        return false;
                }
            }
        } else if (left->kind == OPERAND_VALUE) {
            if (!check_comparison(b, &right->path, PARSE_OP_EQUAL, flags, left, &left->value, left->position)) return false;
        } else if (!check_two_sides(b, left, PARSE_OP_EQUAL, flags, right, position)) {
            return false;
        }
    } else {
        if (left->kind == OPERAND_LIST || right->kind == OPERAND_LIST) {
            const operand *list = left->kind == OPERAND_LIST ? left : right;
            const operand *other = list == left ? right : left;
            /* A list against several values compares element by element
             * (realm-core's ValueBase::compare); against one value it is
             * refused. */
            if (b->core->realm_swift_values || other->kind == OPERAND_VALUE || other->kind == OPERAND_LIST ||
                compare_is_string_operator(op))
                return bind_error(b, list->position, "a list is compared only by IN or BETWEEN, not by %s", parse_op_name(op));
            if (other->kind == OPERAND_PATH)
                for (size_t i = 0; i < list->list_count; i++)
                    if (!check_comparison(b, &other->path, list == right ? op : mirror(op), flags, list, &list->list[i],
                                          list->position))
                        return false;
        } else if (left->kind == OPERAND_PATH && right->kind == OPERAND_VALUE) {
            if (!check_comparison(b, &left->path, op, flags, right, &right->value, right->position)) return false;
        } else if (right->kind == OPERAND_PATH && left->kind == OPERAND_VALUE) {
            if (!check_comparison(b, &right->path, compare_is_string_operator(op) ? op : mirror(op), flags, left, &left->value,
                                  left->position))
                return false;
        } else if (left->kind != OPERAND_VALUE && right->kind != OPERAND_VALUE) {
            if (!check_two_sides(b, left, op, flags, right, position)) return false;
        } else {
            const operand *other = left->kind == OPERAND_VALUE ? left : right;
            const operand *count = left->kind == OPERAND_VALUE ? right : left;
            if (other->value.type != CE_TYPE_NULL && !compare_is_number(other->value.type))
                return bind_error(b, other->position, "%s compares with numbers, not a %s",
                                  count->kind == OPERAND_ARITH ? "an arithmetic expression" : "a SUBQUERY count",
                                  ce_type_name(other->value.type));
            (void)count;
        }
    }
    if (!b->core->realm_swift_values && left->kind == OPERAND_PATH && right->kind == OPERAND_PATH &&
        primitive_list(&left->path) && primitive_list(&right->path)) {
        /* realm-core's words (verify_conditions, driver.cpp). */
        const char *l = strchr(left->path.description, '.'), *r = strchr(right->path.description, '.');
        return bind_error(b, position, "Ordered comparison between two primitive lists is not implemented yet ('%s' and '%s')",
                          l ? l + 1 : left->path.description, r ? r + 1 : right->path.description);
    }
    if (!generic_node(b, left, op, flags, right, position, out)) return false;
    b->out->nodes[*out].quantifier = quantifier;
    b->out->nodes[*out].in_order = !b->core->realm_swift_values && quantifier == PARSE_QUANTIFIER_NONE_GIVEN;
    b->out->nodes[*out].null_string_first =
        (left->kind == OPERAND_PATH && right->kind == OPERAND_VALUE &&
         null_string_first(&left->path, op, flags, &right->value)) ||
        (right->kind == OPERAND_PATH && left->kind == OPERAND_VALUE &&
         null_string_first(&right->path, mirror(op), flags, &left->value));
    return true;
}

/* left op right, both bound. */
static bool bind_simple(binder *b, operand *left, parse_op op, unsigned flags, operand *right, size_t position,
                        size_t *out)
{
    if (is_generic_operand(b, left) || is_generic_operand(b, right))
        return bind_generic(b, left, op, flags, right, PARSE_QUANTIFIER_NONE_GIVEN, position, out);
    if (op == PARSE_OP_IN) {
        if (right->kind == OPERAND_PATH)
            return bind_error(b, right->position, "property '%s' is not a link/collection", right->path.description);
        if (right->kind != OPERAND_LIST)
            return bind_error(b, right->position, "IN needs a list on its right: {...} or a list argument");
        if (left->kind == OPERAND_LIST) return bind_error(b, left->position, "IN needs a value or a key path on its left");
        if (left->kind == OPERAND_VALUE) {
            bool any = false;
            for (size_t i = 0; i < right->list_count && !any; i++)
                if (!compare_values(&left->value, PARSE_OP_EQUAL, &right->list[i], flags, &b->folder, &any)) return false;
            return constant_node(b, any, position, out);
        }
        return bind_in(b, left, flags, right, position, out);
    }
    if (left->kind == OPERAND_LIST || right->kind == OPERAND_LIST) {
        const operand *list = left->kind == OPERAND_LIST ? left : right;
        const operand *other = list == left ? right : left;
        /* One value against a list: ANY of the list's values (realm-core's
         * ValueBase::compare takes ANY for a side without a comparison
         * type), so `n == {1, 2}` is `n IN {1, 2}` (EqualityNode::visit
         * builds Query::in for it). */
        if (!b->core->realm_swift_values && !compare_is_string_operator(op) && other->kind == OPERAND_PATH) {
            if (op == PARSE_OP_EQUAL && list == right) return bind_simple(b, left, PARSE_OP_IN, flags, right, position, out);
            return bind_generic(b, left, op, flags, right, PARSE_QUANTIFIER_NONE_GIVEN, position, out);
        }
        return bind_error(b, list->position, "a list is compared only by IN or BETWEEN, not by %s", parse_op_name(op));
    }
    if (left->kind == OPERAND_VALUE && right->kind == OPERAND_VALUE) {
        bool result;
        if (!compare_values(&left->value, op, &right->value, flags, &b->folder, &result)) return false;
        return constant_node(b, result, position, out);
    }
    if (left->kind == OPERAND_VALUE && !compare_is_string_operator(op)) {
        operand *swap = left;
        left = right;
        right = swap;
        op = mirror(op);
    }
    if (left->kind == OPERAND_PATH && right->kind == OPERAND_VALUE)
        return bind_path_value(b, left, op, flags, right, position, out);
    /* A value before a string operator ('abc' CONTAINS name), or two paths. */
    const bound_path *path = left->kind == OPERAND_PATH ? &left->path : &right->path;
    const operand *other = left->kind == OPERAND_PATH ? right : left;
    if (other->kind == OPERAND_VALUE) {
        if (!check_comparison(b, path, op, flags, other, &other->value, other->position)) return false;
    } else {
        ce_type a = path_value_type(&left->path), c = path_value_type(&right->path);
        if (!types_compare(a, c))
            return bind_error(b, position, "cannot compare %s property '%s' with %s property '%s'", ce_type_name(a),
                              left->path.description, ce_type_name(c), right->path.description);
        if (compare_is_string_operator(op) && !compare_is_text(a))
            return bind_error(b, position, "%s needs strings or binaries, and '%s' is of type %s", parse_op_name(op),
                              left->path.description, ce_type_name(a));
        if (flags && !folds_both_sides(a, c, flags))
            return bind_error(b, position, "[c] and [d] compare strings with ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE");
        if (flags && compare_is_ordered_operator(op)) return ordered_flags_error(b, position, op, flags);
    }
    return generic_node(b, left, op, flags, right, position, out);
}

/* Realm's names for the types @type tells (realm-core's TypeOfValue,
 * query_value.cpp: case-insensitive, MongoDB's aliases, 'numeric' for any
 * number; 'list', 'dictionary' and 'collection' for the collections a mixed
 * value holds), each with the names @type yields (gather.c). */
typedef struct type_name_entry {
    const char *name;
    const char *yields[4];
} type_name_entry;

static const type_name_entry type_names[] = {
    {"null", {"null"}},           {"int", {"int"}},
    {"integer", {"int"}},         {"int16", {"int"}},
    {"int32", {"int"}},           {"int64", {"int"}},
    {"short", {"int"}},           {"long", {"int"}},
    {"byte", {"int"}},            {"char", {"int"}},
    {"bool", {"bool"}},           {"boolean", {"bool"}},
    {"string", {"string"}},       {"binary", {"binary"}},
    {"data", {"binary"}},         {"bytearray", {"binary"}},
    {"byte[]", {"binary"}},       {"date", {"date"}},
    {"datetimeoffset", {"date"}}, {"timestamp", {"date"}},
    {"float", {"float"}},         {"double", {"double"}},
    {"decimal128", {"decimal"}},  {"decimal", {"decimal"}},
    {"object", {"object"}},       {"link", {"object"}},
    {"objectid", {"objectid"}},   {"uuid", {"uuid"}},
    {"guid", {"uuid"}},           {"numeric", {"int", "double", "float", "decimal"}},
    {"bindata", {"binary"}},      {"list", {"list"}},
    {"dictionary", {"dictionary"}}, {"collection", {"list", "dictionary"}},
};

enum { COUNT_OF_TYPE_NAMES = sizeof type_names / sizeof *type_names * 4 };

/* Whether an operand is a key path ending in @type: a mixed value's (or
 * the values' of a collection that holds any type), or the constant one
 * of a property that is not mixed (FINAL_TYPE). */
static bool is_type_of(const operand *o)
{
    return o->kind == OPERAND_PATH && ((o->path.final == FINAL_MIXED && o->path.mixed_final == MIXED_FINAL_TYPE) ||
                                       o->path.element_type || o->path.final == FINAL_TYPE);
}

static bool is_constant_type(const operand *o) { return o->kind == OPERAND_PATH && o->path.final == FINAL_TYPE; }

/* realm-core compares a property's constant @type with nothing but a
 * mixed value's @type: with a constant (a type name, a list of them, or
 * another property's constant @type) it refuses "Comparison between two
 * constants is not supported" (verify_conditions, driver.cpp), quoting
 * each as it prints a TypeOfValue ("int", serializer.cpp). */
static bool constant_types_refused(binder *b, size_t position, const char *left, const char *right)
{
    return bind_error(b, position, "Comparison between two constants is not supported ('%s' and '%s')", left, right);
}

/* `v.@type op names`: == and IN match a value whose type one of the names
 * (a string or a list of strings) stands for, != one whose type none does;
 * the names become the list of what @type yields. */
static bool bind_type_of(binder *b, operand *path, parse_op op, operand *names, parse_quantifier quantifier,
                         size_t position, size_t *out)
{
    if (compare_is_ordered_operator(op))
        return bind_error(b, position,
                          "Unsupported operator %s in query. Only equal (==) and not equal (!=) are supported for this type.",
                          parse_op_name(op));
    if (op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL && op != PARSE_OP_IN)
        return bind_error(b, position, "'%s' compares only by ==, != and IN, not %s", path->path.description,
                          parse_op_name(op));
    if (names->kind != OPERAND_VALUE && names->kind != OPERAND_LIST)
        return bind_error(b, names->position, "'%s' compares with a type name like 'int', or a list of them",
                          path->path.description);
    size_t count = names->kind == OPERAND_LIST ? names->list_count : 1;
    const ce_value *given = names->kind == OPERAND_LIST ? names->list : &names->value;
    ce_value yields[COUNT_OF_TYPE_NAMES];
    size_t yield_count = 0;
    char described[384] = "";
    for (size_t i = 0; i < count; i++) {
        if (given[i].type != CE_TYPE_STRING)
            return bind_error(b, names->position, "'%s' compares with type names (strings), not %s values",
                              path->path.description, ce_type_name(given[i].type));
        const type_name_entry *entry = NULL;
        for (size_t t = 0; t < sizeof type_names / sizeof *type_names && !entry; t++) {
            const char *name = type_names[t].name;
            size_t n = strlen(name);
            if (n != given[i].string.size) continue;
            size_t c = 0;
            while (c < n && (char)tolower((unsigned char)given[i].string.data[c]) == name[c]) c++;
            if (c == n) entry = &type_names[t];
        }
        if (!entry) {
            char all[512] = "";
            for (size_t t = 0; t < sizeof type_names / sizeof *type_names; t++) {
                size_t used = strlen(all);
                snprintf(all + used, sizeof all - used, "%s%s", t ? ", " : "", type_names[t].name);
            }
            /* realm-core's words (query_value.cpp, get_single_from). */
            return bind_error(b, names->position,
                              "Unable to parse the type attribute string '%.*s', supported case insensitive values are: [%s]",
                              (int)(given[i].string.size > 64 ? 64 : given[i].string.size), given[i].string.data, all);
        }
        if (is_constant_type(path)) {
            /* The name as realm-core prints the type it stands for: the
             * first name of the same types. */
            const type_name_entry *first = type_names;
            while (memcmp(first->yields, entry->yields, sizeof entry->yields) != 0) first++;
            size_t used = strlen(described);
            snprintf(described + used, sizeof described - used, "%s\"%s\"", i ? ", " : "", first->name);
        }
        for (size_t y = 0; y < 4 && entry->yields[y]; y++) {
            bool seen = false;
            for (size_t k = 0; k < yield_count && !seen; k++) seen = strcmp(yields[k].string.data, entry->yields[y]) == 0;
            if (!seen)
                yields[yield_count++] = (ce_value){.type = CE_TYPE_STRING, .string = {entry->yields[y], strlen(entry->yields[y])}};
        }
    }
    if (is_constant_type(path)) {
        char quoted[64], text[sizeof described + 2];
        snprintf(quoted, sizeof quoted, "\"%s\"", path->path.type_text);
        snprintf(text, sizeof text, names->kind == OPERAND_LIST ? "{%s}" : "%s", described);
        return constant_types_refused(b, position, quoted, text);
    }
    char *kept;
    if (!bind_keep_bytes(b->out, yields, yield_count * sizeof *yields, &kept)) return false;
    operand list = *names;
    list.kind = OPERAND_LIST;
    list.list = (const ce_value *)(const void *)kept;
    list.texts = NULL;
    list.list_count = yield_count;
    if (!generic_node(b, path, PARSE_OP_IN, 0, &list, position, out)) return false;
    b->out->nodes[*out].quantifier = quantifier;
    b->out->nodes[*out].negate = op == PARSE_OP_NOT_EQUAL;
    return true;
}

/* `path GEOWITHIN shape`, or Realm Swift's `path IN shape`: the checks
 * and words of realm-core (parser/driver.cpp's GeoWithinNode, the
 * GeoWithinCompare expression) and the region prepared once (geo.c). */
static bool bind_geo(binder *b, const parse_node *node, const operand *left, const operand *right, size_t *out)
{
    if (left->kind == OPERAND_GEO) return bind_error(b, left->position, "a geospatial shape goes on the right of GEOWITHIN or IN");
    if (right->kind != OPERAND_GEO)
        return bind_error(b, right->position,
                          "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is '%s'",
                          right->kind == OPERAND_LIST     ? "list"
                          : right->kind == OPERAND_VALUE ? ce_type_name(right->value.type)
                                                         : "property");
    if (node->op != PARSE_OP_GEO_WITHIN && node->op != PARSE_OP_IN)
        return bind_error(b, node->op_position, "a geospatial shape is compared only by GEOWITHIN or IN, not %s",
                          parse_op_name(node->op));
    if (left->kind != OPERAND_PATH || path_value_type(&left->path) != CE_TYPE_LINK || left->path.final != FINAL_OBJECT)
        return bind_error(b, left->position,
                          "The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is '%s'",
                          left->kind == OPERAND_PATH    ? ce_type_name(path_value_type(&left->path))
                          : left->kind == OPERAND_VALUE ? ce_type_name(left->value.type)
                                                        : "list");
    if (node->quantifier != PARSE_QUANTIFIER_NONE_GIVEN && !left->path.multi) {
        static const char *const names[] = {"", "ANY", "ALL", "NONE"};
        return bind_error(b, left->position, "property '%s' is not a link/collection (%s needs one)", left->path.description,
                          names[node->quantifier]);
    }
    char shape[256];
    geo_describe(right->geo, shape, sizeof shape);
    const char *dot = strchr(left->path.description, '.');
    const char *key_path = dot ? dot + 1 : left->path.description;
    ce_table_key target = left->path.final_table;
    ce_column_key columns[2];
    static const char *const names[2] = {"type", "coordinates"};
    bool shaped = true;
    for (int i = 0; i < 2 && shaped; i++) {
        ce_property_info info;
        if (!ce_property_find(b->txn, target, names[i], &columns[i], &shaped)) return false;
        if (shaped && !ce_property_get_info(b->txn, target, columns[i], &info)) return false;
        if (shaped)
            shaped = i == 0 ? info.type == CE_TYPE_STRING && info.collection == CE_COLLECTION_NONE
                            : info.type == CE_TYPE_DOUBLE && info.collection == CE_COLLECTION_LIST;
    }
    if (!shaped)
        return bind_error(b, node->position, "Query '%s GEOWITHIN %s' links to data in the wrong format for a geoWithin query",
                          key_path, shape);
    bool embedded;
    const char *target_name;
    if (!ce_table_is_embedded(b->txn, target, &embedded) || !ce_table_name(b->txn, target, &target_name)) return false;
    if (!embedded)
        return bind_error(b, node->position,
                          "A GEOWITHIN query can only operate on a link to an embedded class but '%s' is at the top level",
                          target_name);
    geo_region *region;
    char reason[512];
    if (!buf_reserve((void **)&b->out->blocks, &b->out->block_capacity, b->out->block_count + 1, sizeof *b->out->blocks))
        return false;
    if (!geo_region_make(right->geo, &region, reason, sizeof reason)) {
        if (!reason[0]) return false;
        if (right->from_argument && node->op == PARSE_OP_GEO_WITHIN)
            return bind_error(b, right->position, "The Geospatial query argument region is invalid: '%s'", reason);
        return bind_error(b, right->position, "Invalid region in GEOWITHIN query for parameter '%s': '%s'", shape, reason);
    }
    b->out->blocks[b->out->block_count++] = (char *)region;
    if (!kernel_node(b, KERNEL_GEO, &left->path, node->op, 0, node->position, out)) return false;
    bound_node *bound = &b->out->nodes[*out];
    bound->geo = region;
    bound->geo_type_column = columns[0];
    bound->geo_coordinates_column = columns[1];
    bound->quantifier = node->quantifier;
    return true;
}

/* `path` reaches several objects (a list, set or dictionary of links, or
 * backlinks, on the way) and `value` is null. */
static bool objects_with_null(const operand *path, const operand *value)
{
    return path->kind == OPERAND_PATH && path->path.final == FINAL_OBJECT && path->path.multi &&
           path->path.aggregate == PATH_ALL_VALUES && value->kind == OPERAND_VALUE && value->value.type == CE_TYPE_NULL;
}

/* Whether ANY, ALL or NONE may precede a path that yields one value:
 * realm-core takes them before a key path whose link chain passes a list,
 * set or dictionary of links or backlinks (LinkChain::column, driver.cpp:
 * "The keypath following 'ANY' must contain a list" otherwise), as
 * `ANY dogMap['a'].age` does, and before a dictionary's entry
 * (`ANY scores['x']`: Columns<Dictionary>, never checked). The path is
 * then a collection's: a key with no object under it reaches none. */
static bool quantifier_allowed(bound_path *path)
{
    if (path->multi) return true;
    bool collection = path->final == FINAL_ENTRY;
    for (size_t i = 0; i < path->hop_count && !collection; i++)
        collection = path->hops[i].kind != HOP_LINK;
    if (collection) path->multi = true;
    return collection;
}

/* Joins two bound comparisons with AND into *out. */
static bool and_node(binder *b, const size_t children[2], size_t position, size_t *out)
{
    size_t first = b->out->child_count;
    for (int i = 0; i < 2; i++) {
        if (!buf_reserve((void **)&b->out->children, &b->out->child_capacity, b->out->child_count + 1,
                         sizeof *b->out->children))
            return false;
        b->out->children[b->out->child_count++] = children[i];
    }
    if (!new_bound_node(b->out, BOUND_AND, position, out)) return false;
    b->out->nodes[*out].first_child = first;
    b->out->nodes[*out].child_count = 2;
    return true;
}

/* BETWEEN after a path of several values: realm-core makes it two
 * comparisons joined with AND, each with the path's quantifier (ANY when
 * none is given): `>= low` and `<= high` (BetweenNode::visit, driver.cpp),
 * so `dogs.age BETWEEN {3, 4}` holds when one dog is 3 or older and one
 * (maybe another) 4 or younger; and it takes only ALL before a list of
 * values ("Only 'ALL' supported for operator 'BETWEEN' when applied to
 * lists."). Realm Swift's predicates differ through links to many
 * objects (below). */
static bool bind_between_of_many(binder *b, operand *left, unsigned flags, operand *right, parse_quantifier quantifier,
                                  const parse_node *node, size_t *out)
{
    const bound_path *path = &left->path;
    if (quantifier == PARSE_QUANTIFIER_NONE_GIVEN) quantifier = PARSE_QUANTIFIER_ANY;
    if (b->core->realm_swift_values) {
        /* Realm Swift (RLMQueryUtil.mm, add_between_constraint): through
         * links to many objects, one object within both bounds (a
         * subquery); otherwise the two comparisons, as realm-core. */
        for (size_t i = 0; i < path->hop_count; i++)
            if (path->hops[i].kind != HOP_LINK)
                return bind_generic(b, left, PARSE_OP_BETWEEN, flags, right, quantifier, node->position, out);
    } else {
        bool values = (path->final == FINAL_COLLECTION && !path->size_of) || path->final == FINAL_ENTRY ||
                      (path->final == FINAL_MIXED && path->mixed_root != CE_TYPE_NULL);
        if (values && quantifier != PARSE_QUANTIFIER_ALL)
            return bind_error(b, node->position, "Only 'ALL' supported for operator 'BETWEEN' when applied to lists.");
    }
    if (right->kind != OPERAND_LIST || right->list_count != 2)
        return bind_error(b, right->position, "BETWEEN needs a list of two values, like {1, 10}%s",
                          right->from_argument ? " (the argument is not one)" : "");
    if (flags) return bind_error(b, node->op_position, "[c] and [d] do not apply to BETWEEN");
    for (int i = 0; i < 2; i++)
        if (right->list[i].type == CE_TYPE_NULL)
            return bind_error(b, right->position, "BETWEEN cannot compare '%s' with nil", path->description);
    operand low = list_element(right, 0), high = list_element(right, 1);
    size_t children[2];
    operand left_copy = *left;
    return bind_generic(b, left, PARSE_OP_GREATER_EQUAL, 0, &low, quantifier, node->position, &children[0]) &&
           bind_generic(b, &left_copy, PARSE_OP_LESS_EQUAL, 0, &high, quantifier, node->position, &children[1]) &&
           and_node(b, children, node->position, out);
}

/* `ALL scores * 2 > 5`: the quantifier belongs to the key path it
 * precedes, the expression's first operand (query_bison.yy: `prop :
 * comp_type path post_op`), which must be a collection's; the expression
 * takes it (realm-core's Operator::get_comparison_type gives its left
 * side's when that is not a constant) and the comparison applies it to
 * the expression's values. */
static bool bind_quantified_arith(binder *b, operand *left, const parse_node *node, unsigned flags, operand *right,
                                  size_t *out)
{
    static const char *const names[] = {"", "ANY", "ALL", "NONE"};
    const arith_expr *first = left->arith;
    while (first->op) first = first->left;
    /* The expression's leaves are the bound query's (bind_arith). */
    operand *leaf = (operand *)(uintptr_t)&first->leaf;
    if (leaf->kind != OPERAND_PATH)
        return bind_error(b, node->position, "%s needs the key path of a collection after it", names[node->quantifier]);
    bool into_mixed = leaf->path.final == FINAL_MIXED && leaf->path.mixed_step_count > 0;
    if ((!into_mixed && !quantifier_allowed(&leaf->path)) ||
        (leaf->path.aggregate != PATH_ALL_VALUES && !path_per_collection(&leaf->path)))
        return bind_error(b, leaf->position, "property '%s' is not a link/collection (%s needs one)",
                          leaf->path.description, names[node->quantifier]);
    return bind_generic(b, left, node->op, flags, right, node->quantifier, node->position, out);
}

/* `n == ALL {1, 2}`, `n IN NONE $0`: ANY, ALL or NONE of the list on the
 * right (realm-core's ValueBase::compare takes each side's comparison
 * type; query_bison.yy puts one before a list or an argument), with the
 * left side's own quantifier if it has several values. An argument that
 * is no list is refused in realm-core's words (ConstantNode::visit). */
static bool bind_quantified_list(binder *b, operand *left, const parse_node *node, unsigned flags, operand *right,
                                 size_t *out)
{
    static const char *const names[] = {"", "ANY", "ALL", "NONE"};
    if (right->kind != OPERAND_LIST) {
        if (right->from_argument)
            return bind_error(b, right->position,
                              "ANY/ALL/NONE are only allowed on arguments which contain a list but '$%d' is not a list.",
                              right->argument);
        return bind_error(b, right->position, "%s needs a list or a list argument after it", names[node->right_quantifier]);
    }
    if (left->kind != OPERAND_PATH && left->kind != OPERAND_ARITH && left->kind != OPERAND_SUBQUERY)
        return bind_error(b, left->position, "%s {...} needs a key path on the other side", names[node->right_quantifier]);
    if (node->op == PARSE_OP_BETWEEN || compare_is_string_operator(node->op))
        return bind_error(b, node->op_position, "%s takes no list", parse_op_name(node->op));
    if (node->quantifier != PARSE_QUANTIFIER_NONE_GIVEN &&
        (left->kind != OPERAND_PATH || !quantifier_allowed(&left->path) ||
         (left->path.aggregate != PATH_ALL_VALUES && !path_per_collection(&left->path))))
        return bind_error(b, left->position, "%s needs the key path of a collection after it", names[node->quantifier]);
    if (!bind_generic(b, left, node->op, flags, right, node->quantifier, node->position, out)) return false;
    b->out->nodes[*out].right_quantifier = node->right_quantifier;
    b->out->nodes[*out].in_order = false;
    return true;
}

static bool bind_compare(binder *b, const parse_node *node, size_t *out)
{
    operand left, right;
    if (!bind_operand(b, node->left, &left) || !bind_operand(b, node->right, &right)) return false;
    if (node->op == PARSE_OP_GEO_WITHIN || left.kind == OPERAND_GEO || right.kind == OPERAND_GEO)
        return bind_geo(b, node, &left, &right, out);
    /* `age == '5'`: a string that reads as a number of the other side's type. */
    if (!compare_is_string_operator(node->op) &&
        (!bind_numeric_strings(b, &right, &left) || !bind_numeric_strings(b, &left, &right)))
        return false;
    unsigned flags = (node->flags & PARSE_CASE_INSENSITIVE ? FOLD_CASE : 0) |
                     (node->flags & PARSE_DIACRITIC_INSENSITIVE ? FOLD_DIACRITICS : 0);
    /* Realm Swift refuses LIKE[d] and LIKE[cd] (RLMQueryUtil.mm,
     * add_string_constraint), in these words. */
    if (node->op == PARSE_OP_LIKE && (flags & FOLD_DIACRITICS))
        return bind_error(b, node->op_position, "Operator 'LIKE' not supported with diacritic-insensitive modifier.");
    if (b->core->realm_swift_values && no_object_in_collection(&left, node->op, &right, node->quantifier)) {
        /* Realm Swift (RLMQueryUtil.mm, add_link_constraint): nil, or an
         * object that is not stored (unmanaged or deleted), compared with a
         * collection of objects "effectively checks if there are any
         * objects in the array": == matches the empty ones, != the others. */
        left.path.aggregate = PATH_COUNT;
        left.path.multi = false;
        right.value = (ce_value){.type = CE_TYPE_INT, .integer = 0};
        right.text = NULL;
        return bind_simple(b, &left, node->op, 0, &right, node->position, out);
    }
    if (!b->core->realm_swift_values && (objects_with_null(&left, &right) || objects_with_null(&right, &left))) {
        /* realm-core compares no collection of links with null
         * (verify_conditions, driver.cpp), in these words; the key path
         * as it describes one, after the quantifier if any. */
        const operand *objects = left.kind == OPERAND_PATH ? &left : &right;
        static const char *const names[] = {"", "ANY ", "ALL ", "NONE "};
        const char *dot = strchr(objects->path.description, '.');
        return bind_error(b, node->position, "Cannot compare linklist ('%s%s') with NULL", names[node->quantifier],
                          dot ? dot + 1 : objects->path.description);
    }
    if (is_type_of(&left) || is_type_of(&right)) {
        if (node->quantifier != PARSE_QUANTIFIER_NONE_GIVEN && (!is_type_of(&left) || !left.path.multi))
            return bind_error(b, node->position, "ANY, ALL and NONE need the key path of a collection after them");
        if (is_constant_type(&left) && is_constant_type(&right)) {
            char first[64], second[64];
            snprintf(first, sizeof first, "\"%s\"", right.path.type_text);
            snprintf(second, sizeof second, "\"%s\"", left.path.type_text);
            return constant_types_refused(b, node->position, first, second);
        }
        if (is_type_of(&left) && is_type_of(&right) && node->op != PARSE_OP_EQUAL && node->op != PARSE_OP_NOT_EQUAL)
            return bind_error(b, node->op_position,
                              "Unsupported operator %s in query. Only equal (==) and not equal (!=) are supported for "
                              "this type.",
                              parse_op_name(node->op));
        if (is_type_of(&left) && !is_type_of(&right))
            return bind_type_of(b, &left, node->op, &right, node->quantifier, node->position, out);
        if (is_type_of(&right) && !is_type_of(&left) && node->op != PARSE_OP_IN)
            return bind_type_of(b, &right, node->op, &left, node->quantifier, node->position, out);
    }
    if (node->right_quantifier != PARSE_QUANTIFIER_NONE_GIVEN) return bind_quantified_list(b, &left, node, flags, &right, out);
    if (node->quantifier != PARSE_QUANTIFIER_NONE_GIVEN && left.kind == OPERAND_ARITH)
        return bind_quantified_arith(b, &left, node, flags, &right, out);
    if (node->quantifier != PARSE_QUANTIFIER_NONE_GIVEN) {
        static const char *const names[] = {"", "ANY", "ALL", "NONE"};
        if (left.kind != OPERAND_PATH)
            return bind_error(b, node->position, "%s needs the key path of a collection after it", names[node->quantifier]);
        /* A path into the lists and dictionaries a mixed value holds is a
         * collection's for realm-core ("Having a path implies a
         * collection", LinkChain::column, driver.cpp). */
        bool into_mixed = left.path.final == FINAL_MIXED && left.path.mixed_step_count > 0;
        /* A collection's @count or aggregate through a link to many
         * objects is one value per object: ANY, ALL or NONE of them
         * (path_per_collection). */
        if ((!into_mixed && !quantifier_allowed(&left.path)) ||
            (left.path.aggregate != PATH_ALL_VALUES && !path_per_collection(&left.path)))
            return bind_error(b, left.position, "property '%s' is not a link/collection (%s needs one)",
                              left.path.description, names[node->quantifier]);
        if (node->op == PARSE_OP_BETWEEN) return bind_between_of_many(b, &left, flags, &right, node->quantifier, node, out);
        return bind_generic(b, &left, node->op, flags, &right, node->quantifier, node->position, out);
    }
    if (left.kind == OPERAND_PATH && left.path.multi && left.path.aggregate == PATH_ALL_VALUES &&
        node->op == PARSE_OP_BETWEEN)
        return bind_between_of_many(b, &left, flags, &right, PARSE_QUANTIFIER_NONE_GIVEN, node, out);
    if (node->op == PARSE_OP_BETWEEN) {
        if (right.kind != OPERAND_LIST || right.list_count != 2)
            return bind_error(b, right.position, "BETWEEN needs a list of two values, like {1, 10}%s",
                              right.from_argument ? " (the argument is not one)" : "");
        if (flags) return bind_error(b, node->op_position, "[c] and [d] do not apply to BETWEEN");
        operand low = list_element(&right, 0), high = list_element(&right, 1);
        size_t children[2];
        operand left_copy = left;
        return bind_simple(b, &left, PARSE_OP_GREATER_EQUAL, 0, &low, node->position, &children[0]) &&
               bind_simple(b, &left_copy, PARSE_OP_LESS_EQUAL, 0, &high, node->position, &children[1]) &&
               and_node(b, children, node->position, out);
    }
    return bind_simple(b, &left, node->op, flags, &right, node->position, out);
}

bool bind_predicate(binder *b, int index, size_t *out)
{
    const parse_node *node = &b->core->tree.nodes[index];
    switch (node->kind) {
    case PARSE_TRUE: return constant_node(b, true, node->position, out);
    case PARSE_FALSE: return constant_node(b, false, node->position, out);
    case PARSE_COMPARE: return bind_compare(b, node, out);
    case PARSE_NOT:
    case PARSE_AND:
    case PARSE_OR: {
        size_t count = node->kind == PARSE_NOT ? 1 : node->item_count;
        size_t *items = malloc(count * sizeof *items);
        if (!items) return query_out_of_memory();
        bool ok = true;
        for (size_t i = 0; ok && i < count; i++)
            ok = bind_predicate(b, node->kind == PARSE_NOT ? node->left : b->core->tree.items[node->first_item + i],
                                &items[i]);
        size_t first = b->out->child_count;
        for (size_t i = 0; ok && i < count; i++) {
            ok = buf_reserve((void **)&b->out->children, &b->out->child_capacity, b->out->child_count + 1,
                            sizeof *b->out->children);
            if (ok) b->out->children[b->out->child_count++] = items[i];
        }
        free(items);
        bound_kind kind = node->kind == PARSE_NOT ? BOUND_NOT : node->kind == PARSE_AND ? BOUND_AND : BOUND_OR;
        if (!ok || !new_bound_node(b->out, kind, node->position, out)) return false;
        b->out->nodes[*out].first_child = first;
        b->out->nodes[*out].child_count = count;
        return true;
    }
    default: break;
    }
    return bind_error(b, node->position, "expected a predicate (a comparison, TRUEPREDICATE or FALSEPREDICATE)");
}
