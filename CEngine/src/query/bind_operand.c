/*
 * bind_operand.c — one side of a comparison bound: a literal, an argument
 * (value, list or shape), a list literal '{...}', a geo literal, a key path
 * or %K, a SUBQUERY count, or an arithmetic expression over those.
 *
 * Owns: bind_operand (bind.h) and the binding of arithmetic expressions
 * (their operand types, realm-core's refusals, constants folded at bind
 * time), and the constants a comparison converts for the other side's
 * type (bind_numeric_strings).
 * Never: decides how a comparison is evaluated (bind_predicate.c), binds
 * a key path itself (bind.c), or computes an operator (arith.c).
 */
#include "arith.h"
#include "bind.h"
#include "compare.h"
#include "decimal.h"
#include "geo.h"
#include "parse.h"
#include "query_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A shape written in the predicate (geoBox(...), ...) as a ce_geo owned
 * by the bound query, its $N coordinates read from the arguments. */
static bool bind_geo_literal(binder *b, const parse_node *node, const ce_geo **out)
{
    const parse_geo_coordinate *c = &b->core->tree.geo[node->first_item];
    size_t n = node->item_count;
    char *bytes;
    if (!bind_keep_bytes(b->out, NULL, (n + 1) * sizeof(double), &bytes)) return false;
    double *v = (double *)(void *)bytes;
    for (size_t i = 0; i < n; i++) {
        v[i] = c[i].value;
        if (c[i].argument < 0) continue;
        if ((size_t)c[i].argument >= b->core->argument_count)
            return bind_error(b, c[i].position, "argument %d is missing (%zu arguments were given)", c[i].argument,
                              b->core->argument_count);
        const ce_query_argument *a = &b->core->arguments[c[i].argument];
        ce_type type = a->kind == CE_QUERY_ARGUMENT_VALUE ? a->value.type : CE_TYPE_NULL;
        if (type != CE_TYPE_INT && type != CE_TYPE_FLOAT && type != CE_TYPE_DOUBLE)
            return bind_error(b, c[i].position, "argument %d is a coordinate and must be a number, not %s", c[i].argument,
                              a->kind == CE_QUERY_ARGUMENT_VALUE ? ce_type_name(type) : "a list or a shape");
        v[i] = type == CE_TYPE_INT ? (double)a->value.integer : type == CE_TYPE_FLOAT ? a->value.float_value : a->value.double_value;
    }
    /* A point is three coordinates: longitude, latitude, altitude (NaN: none). */
    ce_geo geo = {.kind = (ce_geo_kind)node->geo_kind};
    char *altitude_bytes;
    if (!bind_keep_bytes(b->out, NULL, (n / 3 + 1) * sizeof(double), &altitude_bytes)) return false;
    double *altitudes = (double *)(void *)altitude_bytes;
    if (geo.kind == CE_GEO_BOX) {
        geo.corners[0] = (ce_geo_point){v[0], v[1]};
        geo.corners[1] = (ce_geo_point){v[3], v[4]};
        altitudes[0] = v[2];
        altitudes[1] = v[5];
    } else if (geo.kind == CE_GEO_CIRCLE) {
        geo.center = (ce_geo_point){v[0], v[1]};
        altitudes[0] = v[2];
        geo.radius_radians = v[3];
    } else {
        /* The ring count, then per ring its point count and its points. */
        geo.ring_count = (size_t)v[0];
        char *sizes, *points;
        if (!bind_keep_bytes(b->out, NULL, (geo.ring_count + 1) * sizeof(size_t), &sizes) ||
            !bind_keep_bytes(b->out, NULL, (n / 3 + 1) * sizeof(ce_geo_point), &points))
            return false;
        size_t *ring_sizes = (size_t *)(void *)sizes, at = 1, used = 0;
        ce_geo_point *kept = (ce_geo_point *)(void *)points;
        for (size_t r = 0; r < geo.ring_count; r++) {
            ring_sizes[r] = (size_t)v[at++];
            for (size_t k = 0; k < ring_sizes[r]; k++, at += 3) {
                altitudes[used] = v[at + 2];
                kept[used++] = (ce_geo_point){v[at], v[at + 1]};
            }
        }
        geo.ring_sizes = ring_sizes;
        geo.points = kept;
    }
    geo.altitudes = altitudes;
    char *kept_geo;
    if (!bind_keep_bytes(b->out, &geo, sizeof geo, &kept_geo)) return false;
    *out = (const ce_geo *)(const void *)kept_geo;
    return true;
}

static bool bind_arith(binder *b, int index, operand *out);

bool bind_operand(binder *b, int index, operand *out)
{
    const parse_tree *tree = &b->core->tree;
    const parse_node *node = &tree->nodes[index];
    memset(out, 0, sizeof *out);
    out->position = node->position;
    out->argument = -1;
    switch (node->kind) {
    case PARSE_LITERAL:
        out->kind = OPERAND_VALUE;
        out->value = node->literal.value;
        out->text = node->literal.text;
        return true;
    case PARSE_ARGUMENT: {
        if ((size_t)node->argument >= b->core->argument_count)
            return bind_error(b, node->position, "argument %d is missing (%zu arguments were given)", node->argument,
                              b->core->argument_count);
        const ce_query_argument *argument = &b->core->arguments[node->argument];
        out->from_argument = true;
        out->argument = node->argument;
        if (argument->kind == CE_QUERY_ARGUMENT_LIST) {
            out->kind = OPERAND_LIST;
            out->list = argument->list;
            out->list_count = argument->list_count;
        } else if (argument->kind == CE_QUERY_ARGUMENT_GEO) {
            out->kind = OPERAND_GEO;
            out->geo = argument->geo;
        } else {
            out->kind = OPERAND_VALUE;
            out->value = argument->value;
        }
        return true;
    }
    case PARSE_LIST: {
        out->kind = OPERAND_LIST;
        out->list_count = node->item_count;
        /* Room for the values and their texts, owned by the bound query. */
        char *values, *texts;
        if (!bind_keep_bytes(b->out, NULL, (node->item_count + 1) * sizeof(ce_value), &values) ||
            !bind_keep_bytes(b->out, NULL, (node->item_count + 1) * sizeof(char *), &texts))
            return false;
        char *arguments;
        if (!bind_keep_bytes(b->out, NULL, (node->item_count + 1) * sizeof(bool), &arguments)) return false;
        ce_value *list = (ce_value *)(void *)values;
        const char **list_texts = (const char **)(void *)texts;
        bool *list_arguments = (bool *)(void *)arguments;
        for (size_t i = 0; i < node->item_count; i++) {
            operand element;
            if (!bind_operand(b, tree->items[node->first_item + i], &element)) return false;
            if (element.kind != OPERAND_VALUE)
                return bind_error(b, element.position, "a list '{...}' holds values, not lists");
            list[i] = element.value;
            list_texts[i] = element.text;
            list_arguments[i] = element.from_argument;
        }
        out->list = list;
        out->texts = list_texts;
        out->arguments = list_arguments;
        return true;
    }
    case PARSE_GEO:
        out->kind = OPERAND_GEO;
        return bind_geo_literal(b, node, &out->geo);
    case PARSE_ARITH: return bind_arith(b, index, out);
    case PARSE_KEY_PATH:
        out->kind = OPERAND_PATH;
        return bind_key_path(b, tree, node, 0, false, &out->path);
    case PARSE_KEY_PATH_ARGUMENT:
        out->kind = OPERAND_PATH;
        return bind_key_path_argument(b, node, &out->path);
    case PARSE_SUBQUERY: {
        /* SUBQUERY(collection, $x, predicate).@count: the collection's
         * objects for which the predicate holds, with $x each of them. */
        const parse_node *collection = &tree->nodes[node->left];
        if (!bind_key_path(b, tree, collection, 0, false, &out->path)) return false;
        /* What is no collection of objects, in realm-core's words
         * (SubqueryNode::visit, driver.cpp), naming the last property. */
        const char *dot = strrchr(out->path.description, '.');
        const char *property = dot ? dot + 1 : out->path.description;
        if (out->path.final == FINAL_COLLECTION && out->path.aggregate == PATH_ALL_VALUES && !out->path.size_of)
            return bind_error(b, collection->position,
                              "A subquery can not operate on a list of primitive values (property '%s')", property);
        if (!out->path.multi && out->path.aggregate == PATH_ALL_VALUES && !out->path.size_of &&
            (out->path.final == FINAL_COLUMN || out->path.final == FINAL_OBJECT))
            return bind_error(b, collection->position, "A subquery must operate on a list property, but '%s' is type '%s'",
                              property, bind_core_type_name(out->path.final == FINAL_OBJECT ? CE_TYPE_LINK : out->path.type));
        if (out->path.local && !out->path.link_column)
            return bind_error(b, collection->position, "property '%s' is not a link/collection", out->path.description);
        if (out->path.final != FINAL_OBJECT || !out->path.multi || out->path.aggregate != PATH_ALL_VALUES)
            return bind_error(b, collection->position,
                              "SUBQUERY needs a list, set or dictionary of links or backlinks, and '%s' is not one",
                              out->path.description);
        /* A variable may not be declared again for objects of the same
         * class inside its SUBQUERY (SubqueryNode::visit, driver.cpp: the
         * key path mapping takes one name per table), in realm-core's words. */
        for (const subquery_scope *s = b->scopes; s; s = s->outer)
            if (s->table == out->path.final_table && strcmp(s->variable, node->variable) == 0)
                return bind_error(b, node->position,
                                  "Unable to create a subquery expression with variable '$%s' since an identical "
                                  "variable already exists in this context",
                                  node->variable);
        const char *outer_variable = b->variable;
        ce_table_key outer_table = b->variable_table;
        subquery_scope scope = {node->variable, out->path.final_table, b->scopes};
        b->variable = node->variable;
        b->variable_table = out->path.final_table;
        b->scopes = &scope;
        bool ok = bind_predicate(b, node->right, &out->subquery);
        b->variable = outer_variable;
        b->variable_table = outer_table;
        b->scopes = scope.outer;
        out->kind = OPERAND_SUBQUERY;
        return ok;
    }
    default: break;
    }
    return bind_error(b, node->position, "expected a value or a key path");
}

/* The type an operand of an arithmetic expression yields (a list's
 * elements are of any type, as realm-core's ConstantMixedList is Mixed). */
static ce_type arith_operand_type(const operand *o)
{
    switch (o->kind) {
    case OPERAND_VALUE: return o->value.type;
    case OPERAND_LIST: return CE_TYPE_MIXED;
    case OPERAND_PATH: return path_value_type(&o->path);
    case OPERAND_SUBQUERY: return CE_TYPE_INT;
    case OPERAND_ARITH: return o->arith->type;
    default: return CE_TYPE_NULL;
    }
}

/* The text of a parse node, quoted in messages (at most 40 bytes). */
static void node_text(const binder *b, const parse_node *node, char *out, size_t size)
{
    size_t length = node->length;
    if (node->position >= b->text_length) length = 0;
    else if (length > b->text_length - node->position) length = b->text_length - node->position;
    bool cut = length > 40;
    if (cut) length = 40;
    snprintf(out, size, "%.*s%s", (int)length, b->text + node->position, cut ? "..." : "");
}

/* An arithmetic expression `left op right` (parse.c's PARSE_ARITH) bound:
 * folded to a value when both sides are single constants, as realm-core's
 * OperationNode::visit (src/realm/parser/driver.cpp) folds them with
 * Mixed's operators; else an OPERAND_ARITH evaluated object by object.
 * Each side yields numbers (int, float, double, decimal128, mixed; nil
 * gives nil): realm-core refuses other types with "Cannot perform '%1'
 * operation on '%2' and '%3'" (Mixed::is_numeric). A side may yield
 * several values, a list '{...}' or argument, or a path of several values
 * (`scores`, `dogs.age`): the operator applies to each of them with the
 * other side's one value (query_expression.hpp, ValueBase::fun and
 * fun_const), and the comparison takes ANY, ALL or NONE of the results;
 * two sides of several values are refused when evaluated (eval.c). A
 * number literal takes the
 * other side's type as realm-core's ConstantNode::visit(drv, hint) does: a
 * decimal read exactly from its text, a float for a float side; a double
 * argument that is a whole number next to an int side is that int
 * ("Only return an integer if it precisely represents val"). */
static bool bind_arith(binder *b, int index, operand *out)
{
    const parse_node *node = &b->core->tree.nodes[index];
    const parse_node *children[2] = {&b->core->tree.nodes[node->left], &b->core->tree.nodes[node->right]};
    operand sides[2];
    if (!bind_operand(b, node->left, &sides[0]) || !bind_operand(b, node->right, &sides[1])) return false;
    for (int s = 0; s < 2; s++) {
        /* A list of one value is that value (realm-core's Operator takes a
         * side whose Value has_single_value as its constant). */
        operand *o = &sides[s];
        if (o->kind != OPERAND_LIST || o->list_count != 1) continue;
        o->kind = OPERAND_VALUE;
        o->value = o->list[0];
        o->text = o->texts ? o->texts[0] : NULL;
        if (o->arguments && o->arguments[0]) o->from_argument = true;
    }
    for (int s = 0; s < 2; s++) {
        const operand *o = &sides[s];
        ce_type type = arith_operand_type(o);
        char reason[96] = "";
        if (o->kind == OPERAND_GEO) snprintf(reason, sizeof reason, "it is a shape");
        else if (!(o->kind == OPERAND_VALUE && type == CE_TYPE_NULL) && !arith_type_allowed(type))
            snprintf(reason, sizeof reason, "it is of type %s", bind_core_type_name(type));
        if (reason[0]) {
            char left[64], right[64], side[64];
            node_text(b, children[0], left, sizeof left);
            node_text(b, children[1], right, sizeof right);
            node_text(b, children[s], side, sizeof side);
            return bind_error(b, node->position, "Cannot perform '%c' operation on '%s' and '%s': '%s' is not a number (%s)",
                              node->arith_op, left, right, side, reason);
        }
    }
    for (int s = 0; s < 2; s++) {
        operand *o = &sides[s];
        ce_type other = arith_operand_type(&sides[1 - s]);
        if (o->kind == OPERAND_LIST && o->texts) {
            /* A list literal's numbers take the hint too (ListNode::visit
             * visits each constant with it); the list is the bound query's. */
            ce_value *elements = (ce_value *)(uintptr_t)o->list;
            for (size_t i = 0; i < o->list_count; i++) {
                if (!o->texts[i] || !compare_is_number(elements[i].type)) continue;
                if (other == CE_TYPE_DECIMAL128 && elements[i].type != CE_TYPE_DECIMAL128)
                    elements[i] = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = bind_constant_decimal(&elements[i], o->texts[i])};
                else if (other == CE_TYPE_FLOAT && elements[i].type == CE_TYPE_DOUBLE)
                    elements[i] = (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)elements[i].double_value};
            }
            continue;
        }
        if (o->kind != OPERAND_VALUE || !compare_is_number(o->value.type)) continue;
        if (o->text && other == CE_TYPE_DECIMAL128 && o->value.type != CE_TYPE_DECIMAL128)
            o->value = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = bind_constant_decimal(&o->value, o->text)};
        else if (o->text && other == CE_TYPE_FLOAT && o->value.type == CE_TYPE_DOUBLE)
            o->value = (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)o->value.double_value};
        else if (o->from_argument && other == CE_TYPE_INT && o->value.type == CE_TYPE_DOUBLE &&
                 o->value.double_value >= -9223372036854775808.0 && o->value.double_value < 9223372036854775808.0 &&
                 (double)(int64_t)o->value.double_value == o->value.double_value)
            o->value = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)o->value.double_value};
    }
    memset(out, 0, sizeof *out);
    out->position = node->position;
    out->argument = -1;
    /* A list is not folded ("produces_multiple_values", OperationNode::visit). */
    if (sides[0].kind == OPERAND_VALUE && sides[1].kind == OPERAND_VALUE) {
        out->kind = OPERAND_VALUE;
        arith_apply(node->arith_op, &sides[0].value, &sides[1].value, &out->value);
        return true;
    }
    char *bytes;
    if (!bind_keep_bytes(b->out, NULL, 3 * sizeof(arith_expr), &bytes)) return false;
    arith_expr *expr = (arith_expr *)(void *)bytes;
    for (int s = 0; s < 2; s++) {
        if (sides[s].kind == OPERAND_ARITH) {
            (s ? &expr->right : &expr->left)[0] = sides[s].arith;
        } else {
            arith_expr *leaf = &expr[1 + s];
            leaf->type = arith_operand_type(&sides[s]);
            leaf->leaf = sides[s];
            (s ? &expr->right : &expr->left)[0] = leaf;
        }
    }
    expr->op = node->arith_op;
    expr->type = arith_result_type(expr->left->type, expr->right->type);
    if (expr->type == CE_TYPE_NULL) expr->type = CE_TYPE_MIXED; /* nil, whatever the object (see arith.c) */
    out->kind = OPERAND_ARITH;
    out->arith = expr;
    return true;
}

/* The number type a side compares as, for a constant on the other side:
 * a numeric property's (or @count's), an arithmetic expression's first
 * operand's (realm-core's Operator::get_type), a SUBQUERY count's; else
 * CE_TYPE_NULL (no conversion). */
static ce_type numeric_hint(const operand *o)
{
    ce_type type = CE_TYPE_NULL;
    if (o->kind == OPERAND_PATH) type = path_value_type(&o->path);
    else if (o->kind == OPERAND_SUBQUERY) type = CE_TYPE_INT;
    else if (o->kind == OPERAND_ARITH) {
        const arith_expr *first = o->arith;
        while (first->op) first = first->left;
        type = first->type;
    }
    return type == CE_TYPE_INT || type == CE_TYPE_FLOAT || type == CE_TYPE_DOUBLE || type == CE_TYPE_DECIMAL128
               ? type
               : CE_TYPE_NULL;
}

/* `text` read as realm-core's string_to<T> reads it (driver.cpp: an
 * istringstream in the classic locale, then NaN and infinities for
 * floating types; a decimal from the whole text, not NaN): white space
 * first, then the longest number; false when there is none. */
static bool number_of_text(ce_type type, const char *data, size_t size, ce_value *out)
{
    char text[128];
    if (size >= sizeof text) return false;
    memcpy(text, data, size);
    text[size] = 0;
    if (type == CE_TYPE_DECIMAL128) {
        ce_decimal128 d;
        if (!decimal_from_text(text, &d) || ce_decimal128_is_nan(d)) return false;
        *out = (ce_value){.type = CE_TYPE_DECIMAL128, .decimal = d};
        return true;
    }
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    size_t n = 0;
    if (p[n] == '+' || p[n] == '-') n++;
    size_t digits = 0;
    while (isdigit((unsigned char)p[n + digits])) digits++;
    if (type == CE_TYPE_INT) {
        if (!digits) return false;
        errno = 0;
        char number[128];
        memcpy(number, p, n + digits);
        number[n + digits] = 0;
        long long value = strtoll(number, NULL, 10);
        if (errno == ERANGE) return false;
        *out = (ce_value){.type = CE_TYPE_INT, .integer = value};
        return true;
    }
    size_t end = n + digits;
    if (p[end] == '.') {
        size_t fraction = 0;
        while (isdigit((unsigned char)p[end + 1 + fraction])) fraction++;
        if (digits || fraction) end += 1 + fraction, digits += fraction;
    }
    if (digits && (p[end] == 'e' || p[end] == 'E')) {
        size_t e = end + 1;
        if (p[e] == '+' || p[e] == '-') e++;
        size_t exponent = 0;
        while (isdigit((unsigned char)p[e + exponent])) exponent++;
        if (exponent) end = e + exponent;
    }
    double value;
    if (digits) {
        char number[128];
        memcpy(number, p, end);
        number[end] = 0;
        value = strtod(number, NULL);
        if (isinf(value) || (type == CE_TYPE_FLOAT && isinf((float)value))) return false; /* out of range: failbit */
    } else {
        /* try_parse_specials: the whole text, any case. */
        char lower[128];
        size_t i = 0;
        for (; text[i]; i++) lower[i] = (char)tolower((unsigned char)text[i]);
        lower[i] = 0;
        if (!strcmp(lower, "nan") || !strcmp(lower, "+nan")) value = NAN;
        else if (!strcmp(lower, "-nan")) value = -NAN;
        else if (!strcmp(lower, "inf") || !strcmp(lower, "+inf") || !strcmp(lower, "infinity") || !strcmp(lower, "+infinity"))
            value = INFINITY;
        else if (!strcmp(lower, "-inf") || !strcmp(lower, "-infinity")) value = -INFINITY;
        else return false;
    }
    *out = type == CE_TYPE_FLOAT ? (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)value}
                                 : (ce_value){.type = CE_TYPE_DOUBLE, .double_value = value};
    return true;
}

bool bind_numeric_strings(binder *b, operand *constant, const operand *other)
{
    ce_type type = numeric_hint(other);
    if (b->core->realm_swift_values || type == CE_TYPE_NULL) return true;
    if (constant->kind == OPERAND_VALUE) {
        ce_value number;
        if (constant->value.type == CE_TYPE_STRING &&
            number_of_text(type, constant->value.string.data, constant->value.string.size, &number)) {
            constant->value = number;
            constant->text = NULL;
        }
        return true;
    }
    if (constant->kind != OPERAND_LIST) return true;
    size_t strings = 0;
    for (size_t i = 0; i < constant->list_count; i++) strings += constant->list[i].type == CE_TYPE_STRING;
    if (!strings) return true;
    /* A copy the bound query owns (an argument's list is the caller's). */
    char *bytes;
    if (!bind_keep_bytes(b->out, constant->list, constant->list_count * sizeof(ce_value), &bytes)) return false;
    ce_value *values = (ce_value *)(void *)bytes;
    for (size_t i = 0; i < constant->list_count; i++) {
        ce_value number;
        if (values[i].type == CE_TYPE_STRING && number_of_text(type, values[i].string.data, values[i].string.size, &number))
            values[i] = number;
    }
    constant->list = values;
    return true;
}
