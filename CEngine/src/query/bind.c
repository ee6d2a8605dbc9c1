/*
 * bind.c — binding a parsed predicate to the queried table: key paths
 * resolved to columns through links, collections, backlinks and
 * dictionaries (with @count, @sum, @avg, @min, @max), with subscripts
 * ([0], [FIRST], [LAST], [*], ['key']) on lists, sets and dictionaries of
 * values or links and into the lists and dictionaries a mixed property
 * holds (with @type, @size), @type of every property, the memory the bound
 * tree owns, and the messages of bind errors.
 *
 * Owns: bound paths (bind_key_path), a core's bound tree for one schema
 * state (bind_core) and what it owns (descriptions, hops, constants, the
 * sets of IN), and the text of every bind error (position, token, table
 * and property).
 * Never: parses text itself (parse.c does, a %K argument's key path too),
 * reads the schema's nodes (table.h answers), or chooses kernels
 * (bind_predicate.c).
 */
#include "bind.h"
#include "buf.h"
#include "cluster.h"
#include "compare.h"
#include "db.h"
#include "error.h"
#include "gather.h"
#include "parse.h"
#include "query_internal.h"
#include "table.h"
#include "value.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* What the bound tree owns                                                  */
/* ------------------------------------------------------------------------ */

static void set_free(value_set *set)
{
    free(set->values);
    free(set->slots);
    memset(set, 0, sizeof *set);
}

void bind_query_free(bound_query *bound)
{
    for (size_t i = 0; i < bound->node_count; i++) {
        free(bound->nodes[i].integers);
        set_free(&bound->nodes[i].set);
    }
    for (size_t i = 0; i < bound->block_count; i++) free(bound->blocks[i]);
    free(bound->nodes);
    free(bound->children);
    free(bound->slot_columns);
    free(bound->slot_types);
    free(bound->slot_nullable);
    free(bound->blocks);
    memset(bound, 0, sizeof *bound);
}

bool bind_keep_bytes(bound_query *bound, const void *data, size_t size, char **out)
{
    if (!buf_reserve((void **)&bound->blocks, &bound->block_capacity, bound->block_count + 1, sizeof *bound->blocks))
        return false;
    /* Aligned for any type: lists of values live in blocks too. */
    char *block = calloc(1, size + 1);
    if (!block) return query_out_of_memory();
    if (size && data) memcpy(block, data, size);
    bound->blocks[bound->block_count++] = block;
    *out = block;
    return true;
}

bool bind_set_add(value_set *set, const ce_value *value)
{
    if (value->type == CE_TYPE_NULL) {
        set->has_null = true;
        return true;
    }
    ce_value *grown = realloc(set->values, (set->count + 1) * sizeof *grown);
    if (!grown) return query_out_of_memory();
    set->values = grown;
    set->values[set->count++] = *value;
    return true;
}

bool bind_set_index(value_set *set)
{
    size_t capacity = 4;
    while (capacity < 2 * set->count + 1) capacity *= 2;
    set->slots = calloc(capacity, sizeof *set->slots);
    if (!set->slots) return query_out_of_memory();
    set->capacity = capacity;
    for (size_t i = 0; i < set->count; i++) {
        if (value_set_find(set, &set->values[i])) continue;
        size_t slot = (size_t)value_hash(&set->values[i]) & (capacity - 1);
        while (set->slots[slot]) slot = (slot + 1) & (capacity - 1);
        set->slots[slot] = i + 1;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

bool bind_error(const binder *b, size_t position, const char *format, ...)
{
    char what[384];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(what, sizeof what, format, arguments);
    va_end(arguments);
    return parse_fail_at(b->text, b->text_length, position, b->subject, what);
}

/* ------------------------------------------------------------------------ */
/* Key paths                                                                 */
/* ------------------------------------------------------------------------ */

static bool path_slot(bound_query *bound, const bound_path *path, unsigned *out_slot)
{
    for (size_t i = 0; i < bound->slot_count; i++) {
        if (bound->slot_columns[i] == path->column) {
            *out_slot = (unsigned)i;
            return true;
        }
    }
    size_t capacity = bound->slot_capacity;
    if (!buf_reserve((void **)&bound->slot_columns, &capacity, bound->slot_count + 1, sizeof *bound->slot_columns))
        return false;
    size_t other = bound->slot_capacity;
    if (!buf_reserve((void **)&bound->slot_types, &other, bound->slot_count + 1, sizeof *bound->slot_types)) return false;
    other = bound->slot_capacity;
    if (!buf_reserve((void **)&bound->slot_nullable, &other, bound->slot_count + 1, sizeof *bound->slot_nullable))
        return false;
    bound->slot_capacity = capacity;
    bound->slot_columns[bound->slot_count] = path->column;
    bound->slot_types[bound->slot_count] = path->type;
    bound->slot_nullable[bound->slot_count] = path->nullable;
    *out_slot = (unsigned)bound->slot_count++;
    return true;
}

static bool not_a_collection(const binder *b, size_t position, const char *table, const char *property)
{
    return bind_error(b, position, "property '%s.%s' is not a link/collection", table, property);
}

static const char *kind_name(const table_property *property)
{
    if (property->collection == CE_COLLECTION_LIST) return property->type == CE_TYPE_LINK ? "list of links" : "list";
    if (property->collection == CE_COLLECTION_SET) return property->type == CE_TYPE_LINK ? "set of links" : "set";
    if (property->collection == CE_COLLECTION_DICTIONARY)
        return property->type == CE_TYPE_LINK ? "dictionary of links" : "dictionary";
    if (property->type == CE_TYPE_LINK) return "link";
    if (property->type == CE_TYPE_MIXED) return "mixed property";
    return ce_type_name(property->type);
}

static bool is_aggregate_name(const char *name)
{
    return strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0 || strcmp(name, "min") == 0 || strcmp(name, "max") == 0;
}

static path_aggregate aggregate_of_name(const char *name)
{
    if (strcmp(name, "count") == 0 || strcmp(name, "size") == 0) return PATH_COUNT;
    if (strcmp(name, "sum") == 0) return PATH_SUM;
    if (strcmp(name, "avg") == 0) return PATH_AVG;
    if (strcmp(name, "min") == 0) return PATH_MIN;
    return PATH_MAX;
}

/* A path under construction. */
typedef struct path_builder {
    path_hop hops[16];
    size_t hop_count;
    char description[256];
} path_builder;

static bool add_hop(binder *b, path_builder *builder, size_t position, hop_kind kind, ce_table_key from,
                    ce_column_key column, ce_table_key to)
{
    if (builder->hop_count == sizeof builder->hops / sizeof *builder->hops)
        return bind_error(b, position, "the key path goes through more than %zu links",
                          sizeof builder->hops / sizeof *builder->hops);
    builder->hops[builder->hop_count++] = (path_hop){kind, from, column, to, {.kind = STEP_ALL}};
    return true;
}

static void describe_more(path_builder *builder, const char *separator, const char *name)
{
    size_t used = strlen(builder->description);
    snprintf(builder->description + used, sizeof builder->description - used, "%s%s", separator, name);
}

/* Finishes a path: its description and hops kept by the bound query, and
 * the slot of a local column. */
static bool finish_path(binder *b, path_builder *builder, bound_path *out)
{
    if ((out->aggregate == PATH_SUM || out->aggregate == PATH_AVG) && !compare_is_number(out->type))
        return bind_error(b, out->position, "'@%s' needs numbers, and '%s' holds %s values",
                          out->aggregate == PATH_SUM ? "sum" : "avg", builder->description, ce_type_name(out->type));
    if ((out->aggregate == PATH_MIN || out->aggregate == PATH_MAX) && !compare_is_number(out->type) &&
        out->type != CE_TYPE_TIMESTAMP)
        return bind_error(b, out->position, "'@%s' needs numbers or timestamps, and '%s' holds %s values",
                          out->aggregate == PATH_MIN ? "min" : "max", builder->description, ce_type_name(out->type));
    char *kept;
    if (!bind_keep_bytes(b->out, builder->description, strlen(builder->description), &kept)) return false;
    out->description = kept;
    out->hop_count = builder->hop_count;
    if (builder->hop_count) {
        if (!bind_keep_bytes(b->out, builder->hops, builder->hop_count * sizeof *builder->hops, &kept)) return false;
        out->hops = (const path_hop *)(const void *)kept;
    }
    out->local = !out->from_variable && builder->hop_count == 0 && out->final == FINAL_COLUMN &&
                 out->aggregate == PATH_ALL_VALUES && out->type != CE_TYPE_MIXED;
    /* A to-one link of the object itself: its column holds the target's key
     * + 1 (0: null), which the leaf kernels compare. */
    if (!out->from_variable && builder->hop_count == 1 && builder->hops[0].kind == HOP_LINK && out->final == FINAL_OBJECT &&
        out->aggregate == PATH_ALL_VALUES) {
        out->link_column = true;
        out->local = true;
        out->column = builder->hops[0].column;
    }
    if (!out->local) return true;
    bound_path slot_path = *out;
    if (out->link_column) slot_path.type = CE_TYPE_INT, slot_path.nullable = false;
    if (!path_slot(b->out, &slot_path, &out->slot)) return false;
    return true;
}

/* A key path being bound, component by component: what a step reads and
 * what it leaves for the next one. */
typedef struct key_path_walk {
    binder *b;
    const parse_component *components;
    size_t count;
    size_t at;   /* a %K argument's position in the predicate, */
    bool use_at; /* which messages quote instead of the components' own */
    size_t position; /* the path's */
    size_t i;    /* the next component */
    ce_table_key table; /* the table the path has reached */
    const char *table_name;
    bool ended; /* the path reached a value: only an operator may follow */
    path_builder builder;
    bound_path *out;
} key_path_walk;

/* The position messages quote for component i. */
static size_t walk_at(const key_path_walk *w, size_t i) { return w->use_at ? w->at : w->components[i].position; }

/* Moves the path on to `table` (through a hop just added). */
static bool walk_to(key_path_walk *w, ce_table_key table)
{
    w->table = table;
    return table_name_of(w->b->txn, table, &w->table_name);
}

/* After a hop: a path that ends here yields the objects it reached. */
static void end_at_objects_if_last(key_path_walk *w)
{
    if (w->i != w->count) return;
    w->out->final = FINAL_OBJECT;
    w->out->type = CE_TYPE_LINK;
    w->out->final_table = w->table;
    w->ended = true;
}

static bool is_operator(const parse_component *component, const char *name)
{
    return component && component->kind == PARSE_COMPONENT_OPERATOR && strcmp(component->name, name) == 0;
}

/* @links.Class.property: the objects of Class whose `property` links here.
 * `@links.@count` (or @size) alone: the number of links into the object
 * from every table and property (realm-core's BacklinkCount, made by
 * PropertyNode::visit, driver.cpp); after links, one number, their sum
 * over the objects reached (LinkMap::count_all_backlinks: 0 when none). */
static bool bind_backlinks_step(key_path_walk *w)
{
    binder *b = w->b;
    const parse_component *components = w->components;
    size_t i = w->i;
    if (i + 2 == w->count && (is_operator(&components[i + 1], "count") || is_operator(&components[i + 1], "size"))) {
        bound_path *out = w->out;
        out->final = FINAL_BACKLINKS;
        out->type = CE_TYPE_INT;
        out->nullable = false;
        out->final_table = w->table;
        if (w->builder.hop_count) {
            out->multi = true;
            out->aggregate = PATH_SUM;
        }
        describe_more(&w->builder, ".@links.@", components[i + 1].name);
        w->ended = true;
        w->i += 2;
        return true;
    }
    if (i + 2 >= w->count || components[i + 1].kind != PARSE_COMPONENT_NAME || components[i + 2].kind != PARSE_COMPONENT_NAME)
        return bind_error(b, walk_at(w, i), "'@links' is followed by a class and a property: @links.Class.property");
    ce_table_key origin;
    bool found;
    if (!table_find_by_name(b->txn, components[i + 1].name, components[i + 1].name_length, &origin, &found)) return false;
    /* A missing class or property: realm-core's words (ParserDriver::backlink,
     * driver.cpp; test_parser.cpp, Parser_Backlinks). */
    if (!found)
        return bind_error(b, walk_at(w, i + 1), "No property '%s' found in type '%s' which links to type '%s'",
                          components[i + 2].name, components[i + 1].name, w->table_name);
    table_property origin_property, backlink;
    if (!table_find_property(b->txn, origin, components[i + 2].name, components[i + 2].name_length, &origin_property,
                             &found))
        return false;
    if (!found)
        return bind_error(b, walk_at(w, i + 2), "No property '%s' found in type '%s' which links to type '%s'",
                          components[i + 2].name, components[i + 1].name, w->table_name);
    if (origin_property.type != CE_TYPE_LINK && origin_property.type != CE_TYPE_MIXED)
        return not_a_collection(b, walk_at(w, i + 2), components[i + 1].name, components[i + 2].name);
    if (!table_find_backlink(b->txn, w->table, origin, origin_property.column, &backlink, &found)) return false;
    if (!found)
        return bind_error(b, walk_at(w, i + 2), "'%s.%s' does not link to class '%s'", components[i + 1].name,
                          components[i + 2].name, w->table_name);
    if (!add_hop(b, &w->builder, walk_at(w, i), HOP_BACKLINKS, w->table, origin_property.column, origin)) return false;
    describe_more(&w->builder, ".@links.", components[i + 1].name);
    describe_more(&w->builder, ".", components[i + 2].name);
    w->out->multi = true;
    if (!walk_to(w, origin)) return false;
    w->i += 3;
    end_at_objects_if_last(w);
    return true;
}

static void end_at_type(key_path_walk *w, ce_type type);

/* @count, @sum, ... after objects reached through links: their number,
 * or an aggregate of one property of theirs (dogs.@avg.age, best.@count). */
static bool bind_objects_aggregate_step(key_path_walk *w)
{
    binder *b = w->b;
    bound_path *out = w->out;
    const parse_component *components = w->components, *component = &components[w->i];
    size_t i = w->i;
    if (strcmp(component->name, "type") == 0 && i + 1 == w->count && w->builder.hop_count &&
        w->builder.hops[w->builder.hop_count - 1].kind != HOP_BACKLINKS) {
        end_at_type(w, CE_TYPE_LINK); /* owner.@type, dogs.@type: 'object' */
        w->i++;
        return true;
    }
    if (w->builder.hop_count == 0)
        return bind_error(b, walk_at(w, i), "'@%s' must follow the key path of a collection (like list.@%s)",
                          component->name, component->name);
    /* After a to-one link too: the one object or none (realm-core's
     * LinkCount and link aggregates take any Columns<Link>; test_parser.cpp,
     * Parser_TwoColumnExpressionBasics: "ints == link.@count"). A null link
     * reaches nothing. */
    out->multi = true;
    if (strcmp(component->name, "count") == 0 || strcmp(component->name, "size") == 0) {
        if (i + 1 != w->count) return bind_error(b, walk_at(w, i + 1), "nothing may follow '@%s'", component->name);
        out->final = FINAL_OBJECT;
        out->type = CE_TYPE_LINK;
        out->final_table = w->table;
        out->aggregate = PATH_COUNT;
        describe_more(&w->builder, ".@", component->name);
        w->ended = true;
        w->i++;
        return true;
    }
    if (!is_aggregate_name(component->name))
        return bind_error(b, walk_at(w, i), "'@%s' does not apply to links: @count, @size, @sum, @avg, @min and @max do",
                          component->name);
    if (i + 2 != w->count || components[i + 1].kind != PARSE_COMPONENT_NAME)
        return bind_error(b, walk_at(w, i), "'@%s' over links needs one property of the objects after it, like dogs.@%s.age",
                          component->name, component->name);
    table_property property;
    bool found;
    if (!table_find_property(b->txn, w->table, components[i + 1].name, components[i + 1].name_length, &property, &found))
        return false;
    if (!found)
        return bind_error(b, walk_at(w, i + 1), "class '%s' has no property '%s'", w->table_name, components[i + 1].name);
    if (property.collection != CE_COLLECTION_NONE || property.type == CE_TYPE_LINK)
        return bind_error(b, walk_at(w, i + 1), "'@%s' needs a property holding one value, and '%s.%s' is a %s",
                          component->name, w->table_name, property.name, kind_name(&property));
    out->aggregate = aggregate_of_name(component->name);
    out->final = FINAL_COLUMN;
    out->column = property.column;
    out->type = property.type;
    out->nullable = property.nullable;
    out->final_table = w->table;
    describe_more(&w->builder, ".@", component->name);
    describe_more(&w->builder, ".", property.name);
    w->ended = true;
    w->i += 2;
    return true;
}

static bool subscript_refused(key_path_walk *w, size_t i, const table_property *property);
static bool is_subscript(const key_path_walk *w, size_t i);
static size_t subscripts_from(const key_path_walk *w, size_t i);
static bool bind_subscript(key_path_walk *w, size_t i, path_step *out);
static void describe_step(const path_step *step, char *out, size_t size);

/* A to-one link, or a list or set of links: on to the objects it links
 * to, or (dogs[0].name, dogs[LAST].name) to the one an index names; [*]
 * is all of them. realm-core takes one subscript after a collection of
 * links (PathNode::visit and LinkChain::index, driver.cpp), refuses one
 * after a to-one link ("[FIRST] not expected") and an index that ends the
 * path or is followed by an operator (ParserDriver::column). */
static bool bind_link_step(key_path_walk *w, const table_property *property)
{
    bool many = property->collection != CE_COLLECTION_NONE;
    path_step step = {0};
    size_t i = w->i;
    bool subscript = is_subscript(w, i + 1);
    if (subscript) {
        if (!bind_subscript(w, i + 1, &step)) return false;
        if (!many) {
            char text[96];
            describe_step(&step, text, sizeof text);
            return bind_error(w->b, walk_at(w, i + 1), "[%s] not expected", text);
        }
        /* An index followed by @count, @size, @type or an aggregate ends
         * the link chain there too: realm-core makes the collection's
         * column and finds an index on it (ParserDriver::column, then
         * PropertyNode::visit), before the operator. */
        const parse_component *after = i + 2 < w->count ? &w->components[i + 2] : NULL;
        bool operator_after = after && after->kind == PARSE_COMPONENT_OPERATOR && !is_operator(after, "links");
        if (subscripts_from(w, i + 1) > 1 || step.kind == STEP_KEY ||
            (step.kind == STEP_INDEX && (i + 2 == w->count || operator_after)))
            return subscript_refused(w, i + 1, property);
    }
    if (!add_hop(w->b, &w->builder, walk_at(w, i), many ? HOP_LINKS : HOP_LINK, w->table, property->column,
                 property->link_target))
        return false;
    w->builder.hops[w->builder.hop_count - 1].select = step;
    if (subscript) describe_more(&w->builder, step.kind == STEP_ALL ? "[*]" : "[...]", "");
    w->out->multi = w->out->multi || many;
    if (!walk_to(w, property->link_target)) return false;
    w->i += subscript ? 2 : 1;
    end_at_objects_if_last(w);
    return true;
}

/* Whether component i is [0], [FIRST], [LAST], [*] or ['key']. */
static bool is_subscript(const key_path_walk *w, size_t i)
{
    if (i >= w->count) return false;
    parse_component_kind kind = w->components[i].kind;
    return kind == PARSE_COMPONENT_SUBSCRIPT || kind == PARSE_COMPONENT_INDEX || kind == PARSE_COMPONENT_ALL;
}

/* The subscripts (or, where a key is meant, names) from component i on. */
static size_t subscripts_from(const key_path_walk *w, size_t i)
{
    size_t n = 0;
    while (is_subscript(w, i + n)) n++;
    return n;
}

const char *bind_core_type_name(ce_type type)
{
    switch (type) {
    case CE_TYPE_INT: return "int";
    case CE_TYPE_BOOL: return "bool";
    case CE_TYPE_STRING: return "string";
    case CE_TYPE_BINARY: return "binary";
    case CE_TYPE_TIMESTAMP: return "timestamp";
    case CE_TYPE_FLOAT: return "float";
    case CE_TYPE_DOUBLE: return "double";
    case CE_TYPE_DECIMAL128: return "decimal128";
    case CE_TYPE_OBJECT_ID: return "objectId";
    case CE_TYPE_UUID: return "uuid";
    case CE_TYPE_LINK: return "link";
    case CE_TYPE_MIXED: return "mixed";
    default: return ce_type_name(type);
    }
}

/* A subscript as realm-core prints it in messages (PathElement's <<,
 * collection_parent.cpp): FIRST for index 0, LAST, the index, *, 'key'. */
static void describe_step(const path_step *step, char *out, size_t size)
{
    if (step->kind == STEP_ALL) snprintf(out, size, "*");
    else if (step->kind == STEP_KEY) snprintf(out, size, "'%.*s'", (int)(step->key_size > 64 ? 64 : step->key_size), step->key);
    else if (step->index == 0) snprintf(out, size, "FIRST");
    else if (step->index == -1) snprintf(out, size, "LAST");
    else snprintf(out, size, "%lld", (long long)step->index);
}

/* Component i ([0], [FIRST], [LAST], [*], ['key'], [%@], [$0], or a name
 * where a key is meant) as a step; its key kept by the bound query (a %K
 * argument's tree, where names point, is freed once bound). An argument
 * holds an index or a key: realm-core's ParserDriver::get_arg_for_index
 * (driver.cpp) refuses a null or a list ("Invalid index parameter") and
 * any other type ("Invalid index type"), and takes -1 as LAST (it casts
 * the index to size_t); other negative indexes name no element. */
static bool bind_subscript(key_path_walk *w, size_t i, path_step *out)
{
    binder *b = w->b;
    const parse_component *c = &w->components[i];
    memset(out, 0, sizeof *out);
    const char *key = c->name;
    size_t key_size = c->name_length;
    if (c->kind == PARSE_COMPONENT_ALL) {
        out->kind = STEP_ALL;
        return true;
    }
    if (c->kind == PARSE_COMPONENT_INDEX) {
        out->kind = STEP_INDEX;
        out->index = c->index;
        return true;
    }
    if (c->kind == PARSE_COMPONENT_SUBSCRIPT && c->argument >= 0) {
        const ce_query_argument *argument =
            (size_t)c->argument < b->core->argument_count ? &b->core->arguments[c->argument] : NULL;
        if (!argument)
            return bind_error(b, walk_at(w, i), "argument %d is missing (%zu arguments were given)", c->argument,
                              b->core->argument_count);
        if (argument->kind != CE_QUERY_ARGUMENT_VALUE || argument->value.type == CE_TYPE_NULL)
            return bind_error(b, walk_at(w, i), "Invalid index parameter");
        if (argument->value.type == CE_TYPE_INT) {
            out->kind = STEP_INDEX;
            out->index = argument->value.integer >= -1 ? argument->value.integer : INT64_MAX;
            return true;
        }
        if (argument->value.type != CE_TYPE_STRING) return bind_error(b, walk_at(w, i), "Invalid index type");
        key = argument->value.string.data;
        key_size = argument->value.string.size;
    }
    char *kept;
    if (!bind_keep_bytes(b->out, key, key_size, &kept)) return false;
    out->kind = STEP_KEY;
    out->key = kept;
    out->key_size = key_size;
    return true;
}

/* A mixed property with what follows it: ['key'] (or .key), [0], [FIRST],
 * [LAST], [*] into the lists and dictionaries it holds (nested to any
 * depth; a key on a value linking to an object reaches the object's
 * property of that name), then optionally @type or @size/@count ([SIZE]).
 * Without any of them it is a value (bind_value_step). A list or
 * dictionary of mixed values followed by such steps is walked the same way
 * from the collection itself; `all_first` starts with [*] (anys.@type). */
static bool bind_mixed_walk(key_path_walk *w, const table_property *property, bool all_first)
{
    binder *b = w->b;
    bound_path *out = w->out;
    path_step steps[32];
    size_t count = 0;
    size_t i = w->i + 1;
    if (all_first) {
        memset(&steps[0], 0, sizeof steps[0]);
        steps[count++].kind = STEP_ALL;
        out->multi = true;
    }
    for (; i < w->count; i++) {
        const parse_component *c = &w->components[i];
        if (!is_subscript(w, i) && c->kind != PARSE_COMPONENT_NAME) break;
        if (count == sizeof steps / sizeof *steps)
            return bind_error(b, walk_at(w, i), "a key path goes at most %zu levels into a mixed value",
                              sizeof steps / sizeof *steps);
        if (!bind_subscript(w, i, &steps[count])) return false;
        if (steps[count++].kind == STEP_ALL) out->multi = true;
    }
    out->final = FINAL_MIXED;
    out->mixed_root = property->collection == CE_COLLECTION_LIST         ? CE_TYPE_LIST
                      : property->collection == CE_COLLECTION_DICTIONARY ? CE_TYPE_DICTIONARY
                                                                         : CE_TYPE_NULL;
    out->column = property->column;
    out->final_table = w->table;
    out->type = CE_TYPE_MIXED;
    out->nullable = true;
    out->mixed_final = MIXED_FINAL_VALUE;
    if (count) describe_more(&w->builder, "[...]", "");
    const parse_component *next = i < w->count ? &w->components[i] : NULL;
    if (is_operator(next, "type")) {
        out->mixed_final = MIXED_FINAL_TYPE;
        out->type = CE_TYPE_STRING;
        out->nullable = false;
    } else if (is_operator(next, "size") || is_operator(next, "count")) {
        out->mixed_final = MIXED_FINAL_SIZE;
        out->type = CE_TYPE_INT;
        out->nullable = false;
    } else if (next && next->kind == PARSE_COMPONENT_OPERATOR) {
        return bind_error(b, walk_at(w, i), "'@%s' does not apply to a mixed value: @type, @size and @count do", next->name);
    } else if (next) {
        return bind_error(b, walk_at(w, i), "a mixed value has no properties: use [...] to reach into the list or dictionary it holds");
    }
    if (next) {
        describe_more(&w->builder, ".@", next->name);
        i++;
    }
    if (count) {
        char *kept;
        if (!bind_keep_bytes(b->out, steps, count * sizeof *steps, &kept)) return false;
        out->mixed_steps = (const path_step *)(const void *)kept;
        out->mixed_step_count = count;
    }
    w->ended = true;
    w->i = i;
    return true;
}

/* A subscript (or several) after a property that takes none, or not
 * this one, refused in realm-core's words (PropertyNode::visit,
 * driver.cpp): more than one on a property that is not mixed, then a key
 * ("has no property") or an index ("does not support index"). */
static bool subscript_refused(key_path_walk *w, size_t i, const table_property *property)
{
    if (property->type != CE_TYPE_MIXED && subscripts_from(w, i) > 1)
        return bind_error(w->b, walk_at(w, i), "Only Property of type 'any' can have nested collections");
    path_step step;
    if (!bind_subscript(w, i, &step)) return false;
    if (step.kind == STEP_KEY)
        return bind_error(w->b, walk_at(w, i), "Property '%s.%s' has no property '%.*s'", w->table_name, property->name,
                          (int)(step.key_size > 64 ? 64 : step.key_size), step.key);
    char text[96];
    describe_step(&step, text, sizeof text);
    return bind_error(w->b, walk_at(w, i), "Property '%s.%s' does not support index '%s'", w->table_name, property->name,
                      text);
}

/* `.@type` after a collection whose values may be of any type (a
 * dictionary's, a mixed list's or set's): each value's type name
 * (realm-core's ColumnsCollection<Mixed>::type_of_value); a list or set
 * of one type refuses it (PostOpNode::visit). */
static bool bind_element_type(key_path_walk *w, const table_property *property, size_t at)
{
    bound_path *out = w->out;
    if (property->collection != CE_COLLECTION_DICTIONARY && property->type != CE_TYPE_MIXED)
        return bind_error(w->b, walk_at(w, at), "Operation '@type' is not supported on property of type '%s'",
                          bind_core_type_name(property->type));
    out->element_type = true;
    out->type = CE_TYPE_STRING;
    out->nullable = false;
    describe_more(&w->builder, ".@", "type");
    return true;
}

/* dict['key'] (or dict.key), dict[*], dict.@allKeys, dict.@allValues,
 * dict.@count, dict.@sum, ..., dict.@type, dict (its values); a dictionary
 * of links leads on to the objects its values link to (null values
 * skipped, its @count too: realm-core's LinkCount counts links), or to the
 * one ['key'] names. */
static bool bind_dictionary_step(key_path_walk *w, const table_property *property)
{
    binder *b = w->b;
    bound_path *out = w->out;
    size_t i = w->i;
    const parse_component *next = i + 1 < w->count ? &w->components[i + 1] : NULL;
    out->column = property->column;
    out->final_table = w->table;
    out->nullable = property->nullable;
    bool links = property->type == CE_TYPE_LINK;
    /* @allKeys and @allValues (NSPredicate's), @keys and @values (realm-core's
     * query language: ColumnDictionaryKeys, and PathNode::visit passing over
     * @values, driver.cpp). */
    bool all_keys = is_operator(next, "allKeys") || is_operator(next, "keys");
    bool all_values = is_operator(next, "allValues") || is_operator(next, "values");
    /* Keys: ['key'], [%@], or (not for links, whose names are their
     * objects' properties) .key. */
    size_t keys = subscripts_from(w, i + 1);
    if (!links && !keys && next && next->kind == PARSE_COMPONENT_NAME) keys = 1;
    const parse_component *after = i + 1 + keys < w->count ? &w->components[i + 1 + keys] : NULL;
    if (property->type == CE_TYPE_MIXED && keys &&
        (keys > 1 || (after && after->kind == PARSE_COMPONENT_NAME) || is_operator(after, "type") ||
         is_operator(after, "size") || is_operator(after, "count")))
        return bind_mixed_walk(w, property, false); /* anyMap['k'][0], anyMap['k'].@type */
    if (keys > 1) return subscript_refused(w, i + 1, property);
    path_step step;
    if (keys && !bind_subscript(w, i + 1, &step)) return false;
    if (keys && step.kind == STEP_INDEX) return subscript_refused(w, i + 1, property);
    if (links && (!keys || step.kind == STEP_ALL) && !all_keys) {
        if (!add_hop(b, &w->builder, walk_at(w, i), HOP_LINKS, w->table, property->column, property->link_target))
            return false;
        out->multi = true;
        if (!walk_to(w, property->link_target)) return false;
        w->i += all_values || keys ? 2 : 1;
        if (keys) describe_more(&w->builder, "[*]", "");
        end_at_objects_if_last(w);
        return true;
    }
    if (links && keys) {
        /* dict['key'].name, dict['key'] == obj: the one object (null when
         * the key is absent or its link null). */
        if (!add_hop(b, &w->builder, walk_at(w, i), HOP_LINKS, w->table, property->column, property->link_target))
            return false;
        w->builder.hops[w->builder.hop_count - 1].select = step;
        describe_more(&w->builder, "[...]", "");
        if (!walk_to(w, property->link_target)) return false;
        w->i += 2;
        end_at_objects_if_last(w);
        return true;
    }
    if (keys && step.kind == STEP_KEY) {
        out->final = FINAL_ENTRY;
        out->entry_key = step.key;
        out->entry_key_size = step.key_size;
        out->type = property->type;
        out->nullable = true; /* an absent key reads as null */
        describe_more(&w->builder, "[...]", "");
        w->i += 2;
    } else if (all_keys) {
        out->final = FINAL_KEYS;
        out->type = CE_TYPE_STRING;
        out->nullable = false;
        out->multi = true;
        describe_more(&w->builder, ".@", next->name);
        w->i += 2;
        w->ended = true;
        return true;
    } else {
        out->final = FINAL_COLLECTION;
        out->type = property->type;
        out->multi = true;
        if (keys) describe_more(&w->builder, "[*]", "");
        w->i += all_values || keys ? 2 : 1;
    }
    w->ended = true;
    if (is_operator(w->i < w->count ? &w->components[w->i] : NULL, "type")) {
        if (!bind_element_type(w, property, w->i)) return false;
        w->i++;
    }
    return true;
}

/* A name after a list or set of values: `length` (any case) ending the
 * path gives each string's or binary's length (realm-core's
 * ColumnListBase::get_element_length, reached by is_length_suffix in
 * PropertyNode::visit, driver.cpp: `strings.length > 3` is ANY element
 * longer than 3; of a list of mixed values, its strings' and binaries');
 * realm-core refuses any other name, and `length` on other types or
 * followed by more of the path, in these words. */
static bool bind_element_length(key_path_walk *w, const table_property *property)
{
    const parse_component *c = &w->components[w->i];
    bool length = c->name_length == 6;
    for (size_t k = 0; length && k < 6; k++) length = (c->name[k] | 0x20) == "length"[k];
    const parse_component *next = w->i + 1 < w->count ? &w->components[w->i + 1] : NULL;
    if (length && next && next->kind == PARSE_COMPONENT_OPERATOR && is_aggregate_name(next->name))
        return bind_error(w->b, walk_at(w, w->i + 1), "Cannot use aggregate '.@%s' for this type of property", next->name);
    if (!length || w->i + 1 != w->count ||
        (property->type != CE_TYPE_STRING && property->type != CE_TYPE_BINARY && property->type != CE_TYPE_MIXED))
        return bind_error(w->b, walk_at(w, w->i), "Property '%s.%s' has no property '%s'", w->table_name, property->name,
                          c->name);
    w->out->size_of = true;
    describe_more(&w->builder, ".", c->name);
    w->i++;
    return true;
}

/* A list or set of values: its elements, or the one [0], [FIRST] or
 * [LAST] names ([*]: all of them); or of a mixed list, what the steps
 * into the lists and dictionaries it holds reach. */
static bool bind_collection_step(key_path_walk *w, const table_property *property)
{
    if (property->type == CE_TYPE_MIXED && property->collection == CE_COLLECTION_LIST && is_subscript(w, w->i + 1))
        return bind_mixed_walk(w, property, false); /* anyList[0], anyList[*]['k'] */
    bound_path *out = w->out;
    out->final = FINAL_COLLECTION;
    out->column = property->column;
    out->type = property->type;
    out->nullable = property->nullable;
    out->final_table = w->table;
    out->multi = true;
    w->ended = true;
    w->i++;
    if (is_subscript(w, w->i)) {
        /* realm-core: one subscript on a list or set of values, an index
         * or [*] (ColumnListBase::index, driver.cpp's PropertyNode::visit). */
        path_step step;
        if (subscripts_from(w, w->i) > 1 || !bind_subscript(w, w->i, &step) || step.kind == STEP_KEY)
            return subscript_refused(w, w->i, property);
        out->element = step;
        describe_more(&w->builder, step.kind == STEP_ALL ? "[*]" : "[...]", "");
        w->i++;
    } else if (w->i < w->count && w->components[w->i].kind == PARSE_COMPONENT_NAME) {
        return bind_element_length(w, property);
    }
    if (is_operator(w->i < w->count ? &w->components[w->i] : NULL, "type")) {
        if (!bind_element_type(w, property, w->i)) return false;
        w->i++;
    }
    return true;
}

/* realm-core's name of a property type that @type yields on a property
 * that is not mixed (TypeOfValue(ColKey)::to_string, query_value.cpp: the
 * first name of its attribute), for messages. */
static const char *type_text(ce_type type)
{
    switch (type) {
    case CE_TYPE_TIMESTAMP: return "date";
    case CE_TYPE_DECIMAL128: return "decimal128";
    default: return gather_type_name(type);
    }
}

/* `.@type` of a property that is not mixed, or of the objects a link
 * reaches: realm-core makes it a constant of the property's type
 * (PostOpNode::visit, TypeOfValue(ColKey)), whatever each object holds. */
static void end_at_type(key_path_walk *w, ce_type type)
{
    bound_path *out = w->out;
    out->final = FINAL_TYPE;
    out->type = CE_TYPE_STRING;
    out->nullable = false;
    out->multi = false;
    out->type_name = gather_type_name(type);
    out->type_text = type_text(type);
    out->final_table = w->table;
    describe_more(&w->builder, ".@", "type");
    w->ended = true;
}

/* A property holding one value (mixed included), or a string's or
 * binary's length (.@count, .@size), or its type (.@type). */
static bool bind_value_step(key_path_walk *w, const table_property *property)
{
    bound_path *out = w->out;
    out->final = FINAL_COLUMN;
    out->column = property->column;
    out->type = property->type;
    out->nullable = property->nullable || property->type == CE_TYPE_MIXED;
    out->indexed = property->indexed;
    out->primary_key = property->primary_key;
    out->final_table = w->table;
    w->ended = true;
    w->i++;
    const parse_component *next = w->i < w->count ? &w->components[w->i] : NULL;
    if ((is_operator(next, "count") || is_operator(next, "size")) &&
        (property->type == CE_TYPE_STRING || property->type == CE_TYPE_BINARY) && w->i + 1 == w->count) {
        out->size_of = true;
        describe_more(&w->builder, ".@", next->name);
        w->i++;
    }
    if (is_operator(next, "type") && property->type != CE_TYPE_MIXED) {
        end_at_type(w, property->type);
        w->i++;
        return true;
    }
    if (is_subscript(w, w->i)) return subscript_refused(w, w->i, property);
    /* A name after a value: realm-core takes it as a key and refuses it
     * (PropertyNode::visit, driver.cpp). */
    if (w->i < w->count && w->components[w->i].kind == PARSE_COMPONENT_NAME)
        return bind_error(w->b, walk_at(w, w->i), "Property '%s.%s' has no property '%s'", w->table_name, property->name,
                          w->components[w->i].name);
    if (w->i < w->count) return not_a_collection(w->b, w->position, w->table_name, property->name);
    return true;
}

/* A property of the table the path has reached, bound by its kind. */
static bool bind_property_step(key_path_walk *w)
{
    const parse_component *component = &w->components[w->i];
    if (component->kind != PARSE_COMPONENT_NAME)
        return bind_error(w->b, walk_at(w, w->i), "expected a property name in the key path");
    table_property property;
    bool found;
    if (!table_find_property(w->b->txn, w->table, component->name, component->name_length, &property, &found))
        return false;
    if (!found && w->b->clause)
        /* realm-core's words (DescriptorOrderingNode::visit, driver.cpp). */
        return bind_error(w->b, walk_at(w, w->i), "No property '%s' found on object type '%s' specified in '%s' clause",
                          component->name, w->table_name, w->b->clause);
    if (!found)
        return bind_error(w->b, walk_at(w, w->i), "class '%s' has no property '%s'", w->table_name, component->name);
    describe_more(&w->builder, ".", property.name);
    if (property.type == CE_TYPE_LINK && property.collection != CE_COLLECTION_DICTIONARY) return bind_link_step(w, &property);
    if (property.collection == CE_COLLECTION_DICTIONARY) return bind_dictionary_step(w, &property);
    if (property.collection != CE_COLLECTION_NONE) return bind_collection_step(w, &property);
    if (property.type == CE_TYPE_MIXED && w->i + 1 < w->count) return bind_mixed_walk(w, &property, false);
    return bind_value_step(w, &property);
}

/* After a collection's values: @count, @size, @sum, @avg, @min, @max. */
static bool bind_collection_aggregate(key_path_walk *w)
{
    const parse_component *component = &w->components[w->i];
    if (component->kind == PARSE_COMPONENT_INDEX || component->kind == PARSE_COMPONENT_ALL ||
        component->kind == PARSE_COMPONENT_SUBSCRIPT)
        return bind_error(w->b, walk_at(w, w->i), "a subscript ('[...]') must follow the name of a collection property");
    if (component->kind != PARSE_COMPONENT_OPERATOR ||
        (strcmp(component->name, "count") != 0 && strcmp(component->name, "size") != 0 && !is_aggregate_name(component->name)))
        return bind_error(w->b, walk_at(w, w->i), "only @count, @size, @sum, @avg, @min or @max may follow a collection here");
    if (!w->out->multi || w->out->aggregate != PATH_ALL_VALUES || w->out->element.kind == STEP_INDEX ||
        w->out->element_type)
        return bind_error(w->b, walk_at(w, w->i), "'@%s' must follow the key path of a collection", component->name);
    if (w->i + 1 != w->count) return bind_error(w->b, walk_at(w, w->i + 1), "nothing may follow '@%s'", component->name);
    w->out->aggregate = aggregate_of_name(component->name);
    describe_more(&w->builder, ".@", component->name);
    w->i++;
    return true;
}

bool bind_key_path(binder *b, const parse_tree *tree, const parse_node *node, size_t at, bool use_at,
                   bound_path *out)
{
    key_path_walk w;
    memset(&w, 0, sizeof w);
    w.b = b;
    w.components = &tree->components[node->first_item];
    w.count = node->item_count;
    w.at = at;
    w.use_at = use_at;
    w.position = walk_at(&w, 0);
    w.table = b->core->table;
    w.table_name = b->table_name;
    w.out = out;
    memset(out, 0, sizeof *out);
    out->position = w.position;
    const parse_component *first = &w.components[0];
    if (first->kind == PARSE_COMPONENT_VARIABLE) {
        if (!b->variable || strcmp(first->name, b->variable) != 0) {
            if (b->variable)
                return bind_error(b, w.position, "'$%s' is not defined here: this SUBQUERY's variable is $%s",
                                  first->name, b->variable);
            return bind_error(b, w.position, "'$%s' is not defined here: a variable exists only inside SUBQUERY(collection, $%s, ...)",
                              first->name, first->name);
        }
        out->from_variable = true;
        if (!walk_to(&w, b->variable_table)) return false;
        w.i = 1;
    } else if (b->variable) {
        return bind_error(b, w.position, "inside SUBQUERY, a key path starts with its variable ($%s)", b->variable);
    }
    snprintf(w.builder.description, sizeof w.builder.description, "%s", w.table_name);
    if (w.i == w.count) {
        /* The variable alone: the object itself. */
        end_at_objects_if_last(&w);
        return finish_path(b, &w.builder, out);
    }
    while (w.i < w.count && !w.ended) {
        const parse_component *component = &w.components[w.i];
        bool ok = is_operator(component, "links")                  ? bind_backlinks_step(&w)
                  : component->kind == PARSE_COMPONENT_OPERATOR ? bind_objects_aggregate_step(&w)
                                                                : bind_property_step(&w);
        if (!ok) return false;
    }
    if (w.i < w.count && !bind_collection_aggregate(&w)) return false;
    if (w.i != w.count) return bind_error(b, walk_at(&w, w.i), "the key path goes on after a value");
    return finish_path(b, &w.builder, out);
}

bool bind_key_path_argument(binder *b, const parse_node *node, bound_path *out)
{
    if ((size_t)node->argument >= b->core->argument_count)
        return bind_error(b, node->position, "argument %d is missing (%zu arguments were given)", node->argument,
                          b->core->argument_count);
    const ce_query_argument *argument = &b->core->arguments[node->argument];
    if (argument->kind != CE_QUERY_ARGUMENT_VALUE || argument->value.type != CE_TYPE_STRING)
        return bind_error(b, node->position, "argument %d for %%K must be a string holding a key path", node->argument);
    parse_tree path;
    if (!parse_key_path(argument->value.string.data, argument->value.string.size, &path)) {
        if (ce_last_error_code() != CE_ERR_INVALID_QUERY) return false;
        char reason[300];
        snprintf(reason, sizeof reason, "%s", ce_last_error_message());
        return bind_error(b, node->position, "argument %d for %%K is not a key path: %s", node->argument,
                          reason + (strncmp(reason, "Invalid predicate: ", 19) == 0 ? 19 : 0));
    }
    /* %K[0], %K.name: the argument's components, then those after %K
     * in the predicate. */
    const parse_node *root = &path.nodes[path.root];
    if (node->item_count) {
        size_t count = root->item_count + node->item_count;
        parse_component *joined = malloc(count * sizeof *joined);
        if (!joined) {
            parse_tree_free(&path);
            return query_out_of_memory();
        }
        memcpy(joined, &path.components[root->first_item], root->item_count * sizeof *joined);
        memcpy(joined + root->item_count, &b->core->tree.components[node->first_item], node->item_count * sizeof *joined);
        parse_tree combined = path;
        combined.components = joined;
        combined.component_count = count;
        parse_node whole = *root;
        whole.first_item = 0;
        whole.item_count = count;
        bool ok = bind_key_path(b, &combined, &whole, node->position, true, out);
        free(joined);
        parse_tree_free(&path);
        return ok;
    }
    bool ok = bind_key_path(b, &path, root, node->position, true, out);
    parse_tree_free(&path);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* A core bound to a state                                                   */
/* ------------------------------------------------------------------------ */

bool bind_core(query_core *core, ce_txn *txn)
{
    if (!db_txn_check_file(txn, &core->file)) return false;
    uint64_t stamp = db_txn_stamp(txn);
    if (core->is_bound && core->bound_stamp == stamp) return true;
    bind_query_free(&core->bound);
    core->is_bound = false;
    binder b;
    memset(&b, 0, sizeof b);
    b.core = core;
    b.txn = txn;
    b.out = &core->bound;
    b.text = core->tree.text;
    b.text_length = core->tree.text_length;
    b.subject = "Invalid predicate";
    space_ref root;
    cluster_schema columns;
    bool ok = table_name_of(txn, core->table, &b.table_name) && table_cluster(txn, core->table, &root, &columns) &&
              bind_predicate(&b, core->tree.root, &core->bound.root);
    compare_folder_free(&b.folder);
    if (!ok) {
        bind_query_free(&core->bound);
        return false;
    }
    core->column_count = columns.column_count;
    core->is_bound = true;
    core->bound_stamp = stamp;
    return true;
}
