/*
 * key_path_filter.c — key-path filters (Realm's `keyPaths:`) and matching
 * an object against one in a change set (ce_key_path_filter_*,
 * ce_changes_object_matches).
 *
 * Owns: parsing key paths against a schema (with Realm's messages), the
 * resolved paths, and the walks through links that decide whether an
 * object changed as a filter sees it: forward from one object, with their
 * memo (kept in the change set: each linked object is walked once per
 * change set, not once per object that links to it), or backward from the
 * objects that changed to every object of a table that matches
 * (ce_changes_matching_objects).
 * Never: computes what changed (changes.c), or changes anything.
 *
 * Two walks, as realm-core's change checkers make them:
 *   - a filter's paths: at step d an object matches when the column the
 *     step names changed, or (d > 0) the object was inserted; otherwise
 *     the walk follows that column's links in the new version to step
 *     d + 1. Each (path, step, object) is decided once (memo).
 *   - Realm's default: the object changed in any column, or an object it
 *     links to (any link, collection of links or mixed link; not
 *     backlinks) did, up to MATCH_MAX_DEPTH levels. The walk keeps the
 *     (object, column) pairs it is inside of, so a cycle ends; an object
 *     whose whole reach was walked without meeting the depth limit or a
 *     cycle and found nothing is remembered as unchanged (memo), as
 *     DeepChangeChecker does.
 * The backward walks give the same objects: for Realm's default, the
 * objects modified and, through backlinks, those that reach an object
 * modified or inserted within three links (breadth first, each object at
 * its shortest distance); for a path, step by step from its last, the
 * objects of each step that changed there or reach one of the next step's.
 */
#include "key_path_filter.h"
#include "buf.h"
#include "cengine.h"
#include "changes.h"
#include "error.h"
#include "handle.h"
#include "table.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The object and three levels of links (realm-core's DeepChangeChecker
 * keeps a path of 4). */
#define MATCH_MAX_DEPTH 4
/* Collections nested in mixed values go at most 100 levels deep (Realm's
 * limit, MAX_NESTING of the objects layer). */
#define MAX_NESTED_WALK 100

typedef enum step_kind {
    STEP_VALUE,      /* a property of values: a path ends there */
    STEP_LINK,       /* a to-one link (an embedded object too) */
    STEP_COLLECTION, /* a list, set or dictionary of links */
    STEP_MIXED,      /* a mixed property, or a collection of mixed values: the links it holds */
    STEP_BACKLINK    /* the objects of origin_table whose origin_column links here */
} step_kind;

typedef struct filter_step {
    ce_table_key table; /* the table of the object at this step */
    ce_column_key column;
    step_kind kind;
    ce_table_key target;          /* links: the table linked to; backlinks: the origin table */
    ce_column_key origin_column;  /* backlinks */
} filter_step;

typedef struct filter_path {
    filter_step *steps;
    size_t count;
} filter_path;

struct ce_key_path_filter {
    uint64_t magic; /* live or freed (handle.h): the first field */
    ce_table_key table;
    uint32_t id;       /* names the filter in a change set's memo */
    bool realm_default; /* created with no key paths */
    filter_path *paths;
    size_t path_count, path_capacity;
};

static atomic_uint next_filter_id = 1; /* 0: Realm's default walk */

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct path_parse {
    ce_txn *txn;
    ce_key_path_filter *filter;
    const char *full_path;
    filter_step steps[64];
} path_parse;

static bool filter_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory"); }

static bool add_path(ce_key_path_filter *filter, const filter_step *steps, size_t count)
{
    if (!buf_reserve((void **)&filter->paths, &filter->path_capacity, filter->path_count + 1, sizeof *filter->paths))
        return false;
    filter_step *copy = malloc(count * sizeof *copy);
    if (!copy) return filter_out_of_memory();
    memcpy(copy, steps, count * sizeof *copy);
    filter->paths[filter->path_count++] = (filter_path){copy, count};
    return true;
}

static step_kind kind_of(const table_property *property)
{
    if (property->backlink) return STEP_BACKLINK;
    if (property->type == CE_TYPE_MIXED) return STEP_MIXED;
    if (property->type != CE_TYPE_LINK) return STEP_VALUE;
    return property->collection == CE_COLLECTION_NONE ? STEP_LINK : STEP_COLLECTION;
}

static filter_step step_of(ce_table_key table, const table_property *property)
{
    return (filter_step){table, property->column, kind_of(property), property->link_target, property->origin_column};
}

/* The length of the step at `text` (up to '.' or the end). */
static size_t step_length(const char *text)
{
    const char *dot = strchr(text, '.');
    return dot ? (size_t)(dot - text) : strlen(text);
}

/* Whether every step left in `text` is "*". */
static bool only_stars(const char *text)
{
    for (;;) {
        size_t length = step_length(text);
        if (length != 1 || text[0] != '*') return false;
        if (text[1] != '.') return true;
        text += 2;
    }
}

static bool resolve(path_parse *parse, ce_table_key table, const char *text, size_t depth, bool mandatory);

/* Continues a path after `step` (text: what follows its '.', or NULL at
 * the end). */
static bool resolve_after(path_parse *parse, const filter_step *step, const char *property_name, size_t name_length,
                          const char *rest, size_t depth, bool mandatory)
{
    parse->steps[depth] = *step;
    if (!rest) return add_path(parse->filter, parse->steps, depth + 1);
    if (step->kind == STEP_VALUE || step->kind == STEP_MIXED) {
        if (!mandatory) return only_stars(rest) ? add_path(parse->filter, parse->steps, depth + 1) : true;
        return error_fail(CE_ERR_NO_SUCH_PROPERTY,
                          "Property '%.*s' in KeyPath '%s' is not a collection of objects or an object reference, so "
                          "it cannot be used as an intermediate keypath element.",
                          (int)name_length, property_name, parse->full_path);
    }
    return resolve(parse, step->target, rest, depth + 1, mandatory);
}

/* Resolves the steps `text` names from `table`, adding each path found. A
 * step "*" is every property (mandatory false below it: a path that cannot
 * continue is dropped, as Realm drops it). */
static bool resolve(path_parse *parse, ce_table_key table, const char *text, size_t depth, bool mandatory)
{
    if (depth >= sizeof parse->steps / sizeof parse->steps[0])
        return error_fail(CE_ERR_INVALID_ARGUMENT, "KeyPath '%s' has more than %zu steps", parse->full_path,
                          sizeof parse->steps / sizeof parse->steps[0]);
    const char *table_name;
    if (!ce_table_name(parse->txn, table, &table_name)) return false;
    size_t length = step_length(text);
    if (length == 1 && text[0] == '*') {
        const char *rest = text[1] == '.' ? text + 2 : NULL;
        size_t count;
        if (!ce_property_count(parse->txn, table, &count)) return false;
        for (size_t c = 0; c < count; c++) {
            table_property property;
            bool live;
            if (!table_property_at(parse->txn, table, (ce_column_key)c, &property, &live)) return false;
            if (!live || property.backlink) continue;
            filter_step step = step_of(table, &property);
            if (!resolve_after(parse, &step, property.name, strlen(property.name), rest, depth, false)) return false;
        }
        return true;
    }
    table_property property;
    bool found = false;
    const char *name = text;
    size_t name_length = length;
    if (length == 6 && memcmp(text, "@links", 6) == 0 && text[6] == '.') {
        /* @links.<Origin>.<property>: the backlinks of that link property. */
        const char *origin_name = text + 7;
        size_t origin_length = step_length(origin_name);
        const char *origin_property = origin_name + origin_length + (origin_name[origin_length] == '.');
        size_t property_length = origin_name[origin_length] == '.' ? step_length(origin_property) : 0;
        name_length = (size_t)(origin_property + property_length - text);
        ce_table_key origin;
        bool origin_found = false;
        table_property link = {0};
        if (!table_find_by_name(parse->txn, origin_name, origin_length, &origin, &origin_found)) return false;
        if (origin_found && property_length &&
            !table_find_property(parse->txn, origin, origin_property, property_length, &link, &found))
            return false;
        if (found && !table_find_backlink(parse->txn, table, origin, link.column, &property, &found)) return false;
    } else if (!table_find_property(parse->txn, table, text, length, &property, &found)) {
        return false;
    }
    if (!found) {
        if (!mandatory) return true;
        return error_fail(CE_ERR_NO_SUCH_PROPERTY, "Property '%.*s' in KeyPath '%s' is not a valid property in %s.",
                          (int)name_length, name, parse->full_path, table_name);
    }
    const char *end = name + name_length;
    filter_step step = step_of(table, &property);
    return resolve_after(parse, &step, name, name_length, *end == '.' ? end + 1 : NULL, depth, mandatory);
}

/* Freed filters, kept for new ones (handle.h). */
static handle_pool filter_pool = HANDLE_POOL(0x4F5246494C544552ull, "ce_key_path_filter");

bool key_path_filter_check(const ce_key_path_filter *filter, const char *call)
{
    return handle_check(&filter_pool, filter, call);
}

void ce_key_path_filter_free(ce_key_path_filter *filter)
{
    if (!filter || !key_path_filter_check(filter, "ce_key_path_filter_free")) return; /* freed twice: the error only */
    for (size_t i = 0; i < filter->path_count; i++) free(filter->paths[i].steps);
    free(filter->paths);
    handle_delete(&filter_pool, filter, sizeof *filter);
}

bool ce_key_path_filter_create(ce_txn *txn, ce_table_key table, const char *const *key_paths, size_t key_path_count,
                               ce_key_path_filter **out_filter)
{
    if (!out_filter) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_key_path_filter_create: out_filter is required");
    *out_filter = NULL;
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_key_path_filter_create: a transaction is required");
    if (key_path_count && !key_paths)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_key_path_filter_create: %zu key paths and no array",
                          key_path_count);
    const char *table_name;
    if (!ce_table_name(txn, table, &table_name)) return false;
    ce_key_path_filter *filter = handle_new(&filter_pool, sizeof *filter);
    if (!filter) return filter_out_of_memory();
    filter->table = table;
    filter->realm_default = key_path_count == 0;
    filter->id = atomic_fetch_add(&next_filter_id, 1);
    if (filter->id == 0) filter->id = atomic_fetch_add(&next_filter_id, 1);
    for (size_t i = 0; i < key_path_count; i++) {
        path_parse parse = {txn, filter, key_paths[i], {{0}}};
        bool ok = key_paths[i] != NULL;
        if (!ok) error_fail(CE_ERR_INVALID_ARGUMENT, "ce_key_path_filter_create: key path %zu is NULL", i);
        else ok = resolve(&parse, table, key_paths[i], 0, true);
        if (!ok) {
            ce_key_path_filter_free(filter);
            return false;
        }
    }
    *out_filter = filter;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The memo (per change set)                                                 */
/* ------------------------------------------------------------------------ */

/* Decided questions: `tag` names the walk (0: the default; else filter id,
 * path and step), then the object. An open-addressing table. */
typedef struct memo_entry {
    uint64_t tag;
    ce_object_key object;
    uint32_t table;
    uint8_t used, answer;
} memo_entry;

typedef struct match_memo {
    memo_entry *entries;
    size_t capacity, count; /* capacity: a power of two */
} match_memo;

/* What a change set keeps for the matcher: the memo, and the arrays of
 * matching objects handed out (they live as long as the change set). */
typedef struct match_cache {
    match_memo memo;
    ce_object_key **results;
    size_t result_count, result_capacity;
} match_cache;

static void cache_release(void *context)
{
    match_cache *cache = context;
    if (!cache) return;
    free(cache->memo.entries);
    for (size_t i = 0; i < cache->result_count; i++) free(cache->results[i]);
    free(cache->results);
    free(cache);
}

static uint64_t memo_hash(uint64_t tag, uint32_t table, ce_object_key object)
{
    uint64_t h = tag * 0x9e3779b97f4a7c15ull ^ ((uint64_t)table << 40) ^ (uint64_t)object;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static memo_entry *memo_slot(const match_memo *memo, uint64_t tag, uint32_t table, ce_object_key object)
{
    size_t mask = memo->capacity - 1;
    for (size_t i = (size_t)memo_hash(tag, table, object) & mask;; i = (i + 1) & mask) {
        memo_entry *entry = &memo->entries[i];
        if (!entry->used || (entry->tag == tag && entry->table == table && entry->object == object)) return entry;
    }
}

static bool memo_find(const match_memo *memo, uint64_t tag, uint32_t table, ce_object_key object, bool *out_answer)
{
    if (!memo->capacity) return false;
    const memo_entry *entry = memo_slot(memo, tag, table, object);
    if (!entry->used) return false;
    *out_answer = entry->answer;
    return true;
}

static bool memo_put(match_memo *memo, uint64_t tag, uint32_t table, ce_object_key object, bool answer)
{
    if ((memo->count + 1) * 2 > memo->capacity) {
        size_t capacity = memo->capacity ? memo->capacity * 2 : 256;
        memo_entry *entries = calloc(capacity, sizeof *entries);
        if (!entries) return filter_out_of_memory();
        match_memo grown = {entries, capacity, memo->count};
        for (size_t i = 0; i < memo->capacity; i++)
            if (memo->entries[i].used)
                *memo_slot(&grown, memo->entries[i].tag, memo->entries[i].table, memo->entries[i].object) =
                    memo->entries[i];
        free(memo->entries);
        *memo = grown;
    }
    memo_entry *entry = memo_slot(memo, tag, table, object);
    if (!entry->used) memo->count++;
    *entry = (memo_entry){tag, object, table, 1, answer};
    return true;
}

static bool cache_of(const ce_changes *changes, match_cache **out_cache)
{
    match_cache *cache = changes_match_cache(changes);
    if (!cache) {
        cache = calloc(1, sizeof *cache);
        if (!cache) return filter_out_of_memory();
        changes_set_match_cache(changes, cache, cache_release);
    }
    *out_cache = cache;
    return true;
}

static bool memo_of(const ce_changes *changes, match_memo **out_memo)
{
    match_cache *cache;
    if (!cache_of(changes, &cache)) return false;
    *out_memo = &cache->memo;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Following links in the new version                                        */
/* ------------------------------------------------------------------------ */

/* Called with each object a column links to; sets *stop to end the walk. */
typedef bool (*target_visitor)(void *context, ce_table_key table, ce_object_key object, bool *stop);

static bool visit_link_value(const ce_value *value, target_visitor visit, void *context, bool *stop)
{
    if (value->type != CE_TYPE_LINK) return true;
    return visit(context, value->link.table, value->link.key, stop);
}

/* The links among a collection's elements, and those of the collections
 * nested in its mixed elements (as the backlinks record them). */
static bool visit_collection(ce_collection *collection, target_visitor visit, void *context, bool *stop, unsigned depth)
{
    size_t count;
    ce_collection_type kind;
    ce_type element;
    if (!ce_collection_size(collection, &count) || !ce_collection_kind(collection, &kind, &element)) return false;
    for (size_t i = 0; i < count && !*stop; i++) {
        ce_value value;
        if (!ce_collection_get(collection, i, &value)) return false;
        if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY) {
            if (!visit_link_value(&value, visit, context, stop)) return false;
            continue;
        }
        if (depth >= MAX_NESTED_WALK)
            return error_fail(CE_ERR_CORRUPT, "invalid database: collections nest deeper than %d levels", MAX_NESTED_WALK);
        ce_value at = {.type = CE_TYPE_INT, .integer = (int64_t)i};
        char *key = NULL;
        if (kind == CE_COLLECTION_DICTIONARY) {
            ce_value name;
            if (!ce_dictionary_key_at(collection, i, &name)) return false;
            key = malloc(name.string.size + 1);
            if (!key) return filter_out_of_memory();
            if (name.string.size) memcpy(key, name.string.data, name.string.size);
            at = (ce_value){.type = CE_TYPE_STRING, .string = {key, name.string.size}};
        }
        ce_collection *nested;
        bool ok = ce_collection_open_nested(collection, &at, &nested);
        free(key);
        if (!ok) return false;
        ok = visit_collection(nested, visit, context, stop, depth + 1);
        ce_collection_close(nested);
        if (!ok) return false;
    }
    return true;
}

/* Whether the property a step reads exists in `txn` (for a backlink step:
 * the origin's link property, and the backlinks it keeps here, which a
 * mixed property only gets with its first link), and its definition. */
static bool step_property(ce_txn *txn, const filter_step *step, table_property *out_property, bool *out_live)
{
    ce_table_key table = step->kind == STEP_BACKLINK ? step->target : step->table;
    ce_column_key column = step->kind == STEP_BACKLINK ? step->origin_column : step->column;
    if (!table_slot_live(txn, table, out_live) ||
        (*out_live && !table_property_at(txn, table, column, out_property, out_live)))
        return false;
    if (!*out_live || step->kind != STEP_BACKLINK) return true;
    table_property backlink;
    return table_find_backlink(txn, step->table, step->target, step->origin_column, &backlink, out_live);
}

/* The objects `column` of `object` links to in `txn` (a mixed value's
 * link, or the links among the elements of the collection it holds, nested
 * ones included; a backlink step: the origins). A property removed since the
 * filter was made links nowhere. */
static bool for_each_target(ce_txn *txn, const filter_step *step, ce_object_key object, target_visitor visit,
                            void *context)
{
    bool stop = false;
    ce_collection *collection = NULL;
    bool ok = true, live;
    table_property property;
    if (step->kind == STEP_VALUE) return true;
    if (!step_property(txn, step, &property, &live)) return false;
    if (!live) return true;
    switch (step->kind) {
    case STEP_VALUE: return true;
    case STEP_BACKLINK: {
        size_t count;
        if (!ce_object_backlink_count(txn, step->table, object, step->target, step->origin_column, &count)) return false;
        for (size_t i = 0; i < count && !stop; i++) {
            ce_object_key origin;
            if (!ce_object_backlink_at(txn, step->table, object, step->target, step->origin_column, i, &origin) ||
                !visit(context, step->target, origin, &stop))
                return false;
        }
        return true;
    }
    case STEP_LINK: {
        ce_value value;
        return ce_object_get(txn, step->table, object, step->column, &value) &&
               visit_link_value(&value, visit, context, &stop);
    }
    case STEP_COLLECTION: ok = ce_collection_open(txn, step->table, object, step->column, &collection); break;
    case STEP_MIXED: {
        if (property.collection != CE_COLLECTION_NONE) {
            ok = ce_collection_open(txn, step->table, object, step->column, &collection);
            break;
        }
        ce_value value;
        if (!ce_object_get(txn, step->table, object, step->column, &value)) return false;
        if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY)
            return visit_link_value(&value, visit, context, &stop);
        ok = ce_collection_open_mixed(txn, step->table, object, step->column, &collection);
        break;
    }
    }
    if (ok) ok = visit_collection(collection, visit, context, &stop, 0);
    ce_collection_close(collection);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* A filter's paths                                                          */
/* ------------------------------------------------------------------------ */

typedef struct path_walk {
    const ce_changes *changes;
    match_memo *memo;
    const ce_key_path_filter *filter;
    size_t path;
    size_t step;       /* the step the visited targets are at */
    bool found;
} path_walk;

static bool path_matches(const ce_changes *changes, match_memo *memo, const ce_key_path_filter *filter, size_t path,
                         size_t step, ce_object_key object, bool *out_changed);

static bool visit_path_target(void *context, ce_table_key table, ce_object_key object, bool *stop)
{
    (void)table;
    path_walk *walk = context;
    if (!path_matches(walk->changes, walk->memo, walk->filter, walk->path, walk->step, object, &walk->found))
        return false;
    *stop = walk->found;
    return true;
}

/* The origins of a backlink in one version, ascending (NULL when none). */
static bool origins_of(ce_txn *txn, const filter_step *step, ce_object_key object, ce_object_key **out_origins,
                       size_t *out_count)
{
    size_t count;
    table_property property;
    bool live;
    *out_origins = NULL;
    *out_count = 0;
    if (!step_property(txn, step, &property, &live)) return false;
    if (!live) return true;
    if (!ce_object_backlink_count(txn, step->table, object, step->target, step->origin_column, &count)) return false;
    *out_count = count;
    if (!count) return true;
    ce_object_key *origins = malloc(count * sizeof *origins);
    if (!origins) return filter_out_of_memory();
    for (size_t i = 0; i < count; i++)
        if (!ce_object_backlink_at(txn, step->table, object, step->target, step->origin_column, i, &origins[i])) {
            free(origins);
            return false;
        }
    *out_origins = origins;
    return true;
}

/* Whether the objects linking to `object` through a backlink step differ
 * between the versions. */
static bool backlinks_changed(const ce_changes *changes, const filter_step *step, ce_object_key object,
                              bool *out_changed)
{
    ce_object_key *old_origins = NULL, *new_origins = NULL;
    size_t old_count = 0, new_count = 0;
    bool ok = origins_of(changes_old_txn(changes), step, object, &old_origins, &old_count) &&
              origins_of(changes_new_txn(changes), step, object, &new_origins, &new_count);
    if (ok)
        *out_changed = old_count != new_count ||
                       (old_count && memcmp(old_origins, new_origins, old_count * sizeof *old_origins) != 0);
    free(old_origins);
    free(new_origins);
    return ok;
}

static bool path_matches(const ce_changes *changes, match_memo *memo, const ce_key_path_filter *filter, size_t path,
                         size_t step, ce_object_key object, bool *out_changed)
{
    const filter_path *steps = &filter->paths[path];
    const filter_step *at = &steps->steps[step];
    uint64_t tag = ((uint64_t)filter->id << 32) | ((uint64_t)path << 8) | step;
    if (memo_find(memo, tag, at->table, object, out_changed)) return true;
    ce_object_change_kind kind = changes_kind_of(changes, at->table, object);
    bool changed = false;
    if (kind == CE_OBJECT_DELETED) {
        changed = false; /* not in the new version: reached through a link of the old one only */
    } else if ((step > 0 && kind == CE_OBJECT_INSERTED) ||
               (at->kind != STEP_BACKLINK && changes_column_modified(changes, at->table, object, at->column))) {
        changed = true;
    } else if (at->kind == STEP_BACKLINK && step + 1 == steps->count) {
        if (kind != CE_OBJECT_INSERTED && !backlinks_changed(changes, at, object, &changed)) return false;
    } else if (step + 1 < steps->count) {
        path_walk walk = {changes, memo, filter, path, step + 1, false};
        if (!for_each_target(changes_new_txn(changes), at, object, visit_path_target, &walk)) return false;
        changed = walk.found;
    }
    *out_changed = changed;
    return memo_put(memo, tag, at->table, object, changed);
}

/* ------------------------------------------------------------------------ */
/* Realm's default: the object and what it links to, MATCH_MAX_DEPTH levels */
/* ------------------------------------------------------------------------ */

typedef struct deep_walk {
    const ce_changes *changes;
    match_memo *memo;
    struct {
        ce_table_key table;
        ce_object_key object;
        ce_column_key column;
        bool depth_exceeded;
    } path[MATCH_MAX_DEPTH];
    size_t depth; /* of the targets being visited */
    bool found;
} deep_walk;

static bool check_row(deep_walk *walk, ce_table_key table, ce_object_key object, size_t depth, bool *out_changed);

static bool visit_deep_target(void *context, ce_table_key table, ce_object_key object, bool *stop)
{
    deep_walk *walk = context;
    size_t depth = walk->depth;
    bool changed;
    if (!check_row(walk, table, object, depth, &changed)) return false;
    walk->depth = depth;
    walk->found = changed;
    *stop = changed;
    return true;
}

/* Whether an object `object` links to (any link column) changed. */
static bool check_outgoing(deep_walk *walk, ce_table_key table, ce_object_key object, size_t depth, bool *out_changed)
{
    size_t count;
    *out_changed = false;
    if (!ce_property_count(changes_new_txn(walk->changes), table, &count)) return false;
    for (size_t c = 0; c < count && !*out_changed; c++) {
        table_property property;
        bool live;
        if (!table_property_at(changes_new_txn(walk->changes), table, (ce_column_key)c, &property, &live)) return false;
        if (!live || property.backlink || (property.type != CE_TYPE_LINK && property.type != CE_TYPE_MIXED)) continue;
        /* Already inside this (object, column): a cycle. What the walks
         * below it decided is not final for them. */
        bool cycle = false;
        for (size_t d = 0; d < depth; d++)
            if (walk->path[d].table == table && walk->path[d].object == object && walk->path[d].column == c) {
                for (size_t e = d; e < depth; e++) walk->path[e].depth_exceeded = true;
                cycle = true;
                break;
            }
        if (cycle) continue;
        walk->path[depth].table = table;
        walk->path[depth].object = object;
        walk->path[depth].column = (ce_column_key)c;
        walk->path[depth].depth_exceeded = false;
        filter_step step = step_of(table, &property);
        walk->depth = depth + 1;
        walk->found = false;
        if (!for_each_target(changes_new_txn(walk->changes), &step, object, visit_deep_target, walk)) return false;
        *out_changed = walk->found;
    }
    return true;
}

static bool check_row(deep_walk *walk, ce_table_key table, ce_object_key object, size_t depth, bool *out_changed)
{
    *out_changed = false;
    if (depth >= MATCH_MAX_DEPTH) {
        /* What the objects on the path decide is not final: a walk from
         * them with more levels left might reach a change. */
        for (size_t d = 0; d < MATCH_MAX_DEPTH; d++) walk->path[d].depth_exceeded = true;
        return true;
    }
    ce_object_change_kind kind = changes_kind_of(walk->changes, table, object);
    if (depth > 0 && (kind == CE_OBJECT_MODIFIED || kind == CE_OBJECT_INSERTED)) {
        *out_changed = true;
        return true;
    }
    bool unchanged;
    if (memo_find(walk->memo, 0, table, object, &unchanged)) return true;
    if (!check_outgoing(walk, table, object, depth, out_changed)) return false;
    if (!*out_changed && (depth == 0 || !walk->path[depth - 1].depth_exceeded))
        return memo_put(walk->memo, 0, table, object, true);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                  */
/* ------------------------------------------------------------------------ */

bool key_path_filter_matches(const ce_changes *changes, const ce_key_path_filter *filter, ce_table_key table,
                             ce_object_key object, bool *out_changed)
{
    if (!changes || !out_changed)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_object_matches: a change set and out_changed are required");
    if (filter && filter->table != table)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_object_matches: the filter is for table %u, not %u",
                          (unsigned)filter->table, (unsigned)table);
    ce_txn *txn = changes_new_txn(changes);
    bool exists;
    if (!ce_object_exists(txn, table, object, &exists)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "ce_changes_object_matches: object %lld of table %u is not in the new version",
                          (long long)object, (unsigned)table);
    *out_changed = false;
    ce_object_change_kind kind = changes_kind_of(changes, table, object);
    if (kind == CE_OBJECT_INSERTED) return true;
    match_memo *memo = NULL;
    if (!memo_of(changes, &memo)) return false;
    if (!filter || filter->realm_default) {
        if (kind == CE_OBJECT_MODIFIED) {
            *out_changed = true;
            return true;
        }
        deep_walk walk;
        memset(&walk, 0, sizeof walk);
        walk.changes = changes;
        walk.memo = memo;
        return check_row(&walk, table, object, 0, out_changed);
    }
    for (size_t path = 0; path < filter->path_count && !*out_changed; path++)
        if (!path_matches(changes, memo, filter, path, 0, object, out_changed)) return false;
    return true;
}

bool ce_changes_object_matches(const ce_changes *changes, const ce_key_path_filter *filter, ce_object_key object,
                               bool *out_changed)
{
    if (!key_path_filter_check(filter, "ce_changes_object_matches") || !changes_check(changes, "ce_changes_object_matches"))
        return false;
    return key_path_filter_matches(changes, filter, filter->table, object, out_changed);
}

/* ------------------------------------------------------------------------ */
/* Every object that matches, from the changes backwards                     */
/* ------------------------------------------------------------------------ */

/* A set of objects (the memo's table as a set: answer unused). */
typedef struct object_list {
    ce_link *items;
    size_t count, capacity;
} object_list;

static bool list_push(object_list *list, ce_table_key table, ce_object_key object)
{
    if (!buf_reserve((void **)&list->items, &list->capacity, list->count + 1, sizeof *list->items)) return false;
    list->items[list->count++] = (ce_link){table, object};
    return true;
}

/* Adds (table, object) to `list` unless `seen` has it. */
static bool add_once(match_memo *seen, object_list *list, ce_table_key table, ce_object_key object)
{
    bool unused;
    if (memo_find(seen, 1, table, object, &unused)) return true;
    return memo_put(seen, 1, table, object, true) && list_push(list, table, object);
}

typedef struct reverse_walk {
    match_memo *seen;
    object_list *out;
    ce_table_key only_table; /* targets of other tables are left out */
} reverse_walk;

static bool collect_target(void *context, ce_table_key table, ce_object_key object, bool *stop)
{
    (void)stop;
    reverse_walk *walk = context;
    return table != walk->only_table || add_once(walk->seen, walk->out, table, object);
}

/* Which objects of the changes changed_seeds adds. */
typedef enum seed_kind {
    SEED_MODIFIED = 1,  /* modified (in `column`, or any column when it is ANY_COLUMN) */
    SEED_INSERTED = 2,
} seed_kind;
#define ANY_COLUMN SIZE_MAX
#define ANY_TABLE UINT32_MAX

/* The objects of the changes of `only` (or every table: ANY_TABLE) that
 * `kinds` asks for, once each (`seen`). */
static bool changed_seeds(const ce_changes *changes, ce_table_key only, unsigned kinds, size_t column,
                          match_memo *seen, object_list *out)
{
    size_t tables;
    if (!ce_table_count(changes_new_txn(changes), &tables)) return false;
    for (ce_table_key t = 0; t < tables; t++) {
        if (only != ANY_TABLE && t != only) continue;
        const ce_object_key *keys[2];
        size_t counts[2];
        if (!ce_changes_table(changes, t, NULL, NULL, &keys[1], &counts[1], &keys[0], &counts[0])) {
            if (ce_last_error_code() == CE_ERR_NO_SUCH_TABLE) continue;
            return false;
        }
        for (size_t i = 0; (kinds & SEED_MODIFIED) && i < counts[0]; i++)
            if ((column == ANY_COLUMN || changes_column_modified(changes, t, keys[0][i], (ce_column_key)column)) &&
                !add_once(seen, out, t, keys[0][i]))
                return false;
        for (size_t i = 0; (kinds & SEED_INSERTED) && i < counts[1]; i++)
            if (!add_once(seen, out, t, keys[1][i])) return false;
    }
    return true;
}

/* The objects that link to `object` through any link property (each
 * backlink property of its table). */
static bool for_each_origin(ce_txn *txn, ce_table_key table, ce_object_key object, target_visitor visit, void *context)
{
    size_t count;
    bool live, stop = false;
    if (!table_slot_live(txn, table, &live)) return false;
    if (!live) return true;
    if (!ce_property_count(txn, table, &count)) return false;
    for (ce_column_key c = 0; c < count && !stop; c++) {
        table_property property;
        if (!table_property_at(txn, table, c, &property, &live)) return false;
        if (!live || !property.backlink) continue;
        filter_step step = step_of(table, &property);
        if (!for_each_target(txn, &step, object, visit, context)) return false;
    }
    return true;
}

typedef struct origin_walk {
    match_memo *seen;
    object_list *next;
} origin_walk;

static bool collect_origin(void *context, ce_table_key table, ce_object_key object, bool *stop)
{
    (void)stop;
    origin_walk *walk = context;
    return add_once(walk->seen, walk->next, table, object);
}

/* Realm's default: the objects of `table` modified, or linking within
 * three links to an object modified or inserted: a breadth-first walk
 * from those objects through the backlinks (the new version's), each
 * object expanded once, at its shortest distance. */
static bool default_matches(const ce_changes *changes, ce_table_key table, object_list *out)
{
    match_memo seen = {0}, found = {0};
    object_list frontier = {0}, next = {0};
    ce_txn *txn = changes_new_txn(changes);
    bool ok = changed_seeds(changes, table, SEED_MODIFIED, ANY_COLUMN, &found, out) &&
              changed_seeds(changes, ANY_TABLE, SEED_MODIFIED | SEED_INSERTED, ANY_COLUMN, &seen, &frontier);
    for (size_t hop = 1; ok && hop < MATCH_MAX_DEPTH && frontier.count; hop++) {
        next.count = 0;
        origin_walk walk = {&seen, &next};
        for (size_t i = 0; ok && i < frontier.count; i++)
            ok = for_each_origin(txn, frontier.items[i].table, frontier.items[i].key, collect_origin, &walk);
        for (size_t i = 0; ok && i < next.count; i++)
            if (next.items[i].table == table &&
                changes_kind_of(changes, table, next.items[i].key) != CE_OBJECT_INSERTED)
                ok = add_once(&found, out, table, next.items[i].key);
        object_list swap = frontier;
        frontier = next;
        next = swap;
    }
    free(frontier.items);
    free(next.items);
    free(seen.entries);
    free(found.entries);
    return ok;
}

typedef struct backlink_step_walk {
    match_memo *seen;
    object_list *out;
    const filter_step *step;
} backlink_step_walk;

/* The objects of one path's step `step` that match there, from those of
 * the next step (`after`, NULL for the last step), into `out`. */
static bool step_matches(const ce_changes *changes, const filter_path *path, size_t step, const object_list *after,
                         object_list *out)
{
    const filter_step *at = &path->steps[step];
    ce_txn *txn = changes_new_txn(changes);
    match_memo seen = {0};
    bool ok = true;
    if (at->kind != STEP_BACKLINK) ok = changed_seeds(changes, at->table, SEED_MODIFIED, at->column, &seen, out);
    if (ok && step > 0) ok = changed_seeds(changes, at->table, SEED_INSERTED, ANY_COLUMN, &seen, out);
    if (ok && after) {
        /* Objects whose step column reaches one that matches next. */
        filter_step reverse = *at;
        reverse_walk walk = {&seen, out, at->table};
        for (size_t i = 0; ok && i < after->count; i++) {
            ce_object_key object = after->items[i].key;
            if (at->kind == STEP_BACKLINK) {
                /* Back through a backlink: where the origin's link goes. */
                reverse = (filter_step){at->target, at->origin_column, STEP_LINK, at->table, 0};
                table_property property;
                bool live;
                ok = step_property(txn, &reverse, &property, &live);
                if (ok && live) {
                    reverse.kind = kind_of(&property);
                    ok = for_each_target(txn, &reverse, object, collect_target, &walk);
                }
            } else {
                /* Back through a link: the backlinks of the object reached. */
                table_property backlink;
                bool found;
                ok = table_find_backlink(txn, after->items[i].table, at->table, at->column, &backlink, &found);
                if (ok && found) {
                    reverse = step_of(after->items[i].table, &backlink);
                    ok = for_each_target(txn, &reverse, object, collect_target, &walk);
                }
            }
        }
    } else if (ok && at->kind == STEP_BACKLINK) {
        /* The last step a backlink: the objects whose origins changed,
         * found through the origins that changed (their link modified,
         * or they were inserted or deleted), as both versions link. */
        object_list origins = {0}, candidates = {0};
        match_memo seen_origins = {0}, seen_candidates = {0};
        ok = changed_seeds(changes, at->target, SEED_MODIFIED | SEED_INSERTED, at->origin_column, &seen_origins,
                           &origins);
        const ce_object_key *deleted = NULL;
        size_t deleted_count = 0;
        if (ok) ok = ce_changes_table(changes, at->target, &deleted, &deleted_count, NULL, NULL, NULL, NULL);
        filter_step forward = {at->target, at->origin_column, STEP_LINK, at->table, 0};
        table_property property;
        bool live;
        reverse_walk walk = {&seen_candidates, &candidates, at->table};
        for (int version = 0; ok && version < 2; version++) {
            ce_txn *read = version ? txn : changes_old_txn(changes);
            ok = step_property(read, &forward, &property, &live);
            if (!ok || !live) continue;
            forward.kind = kind_of(&property);
            for (size_t i = 0; ok && i < origins.count; i++) {
                ce_object_change_kind kind = changes_kind_of(changes, at->target, origins.items[i].key);
                if ((version == 0 && kind == CE_OBJECT_INSERTED)) continue;
                ok = for_each_target(read, &forward, origins.items[i].key, collect_target, &walk);
            }
            for (size_t i = 0; ok && version == 0 && i < deleted_count; i++)
                ok = for_each_target(read, &forward, deleted[i], collect_target, &walk);
        }
        for (size_t i = 0; ok && i < candidates.count; i++) {
            bool changed = false, exists;
            ok = ce_object_exists(txn, at->table, candidates.items[i].key, &exists);
            if (ok && exists && changes_kind_of(changes, at->table, candidates.items[i].key) != CE_OBJECT_INSERTED)
                ok = backlinks_changed(changes, at, candidates.items[i].key, &changed);
            if (ok && changed) ok = add_once(&seen, out, at->table, candidates.items[i].key);
        }
        free(origins.items);
        free(candidates.items);
        free(seen_origins.entries);
        free(seen_candidates.entries);
    }
    free(seen.entries);
    return ok;
}

static int compare_links(const void *a, const void *b)
{
    ce_object_key x = ((const ce_link *)a)->key, y = ((const ce_link *)b)->key;
    return x < y ? -1 : x > y;
}

bool key_path_filter_changed_objects(const ce_changes *changes, const ce_key_path_filter *filter, ce_table_key table,
                                     const ce_object_key **out_objects, size_t *out_count)
{
    object_list result = {0};
    match_memo unique = {0};
    match_cache *cache;
    bool ok = true, live;
    if (!changes || !out_objects || !out_count)
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                          "ce_changes_matching_objects: a change set, out_objects and out_count are required");
    *out_objects = NULL;
    *out_count = 0;
    if (filter && filter->table != table)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_matching_objects: the filter is for table %u, not %u",
                          (unsigned)filter->table, (unsigned)table);
    if (!table_slot_live(changes_new_txn(changes), table, &live)) return false;
    if (!live)
        return error_fail(CE_ERR_NO_SUCH_TABLE, "ce_changes_matching_objects: no table with key %u in the new version",
                          (unsigned)table);
    if (!cache_of(changes, &cache) ||
        !buf_reserve((void **)&cache->results, &cache->result_capacity, cache->result_count + 1,
                     sizeof *cache->results))
        return false;
    if (!filter || filter->realm_default) {
        ok = default_matches(changes, table, &result);
    } else {
        for (size_t p = 0; ok && p < filter->path_count; p++) {
            const filter_path *path = &filter->paths[p];
            object_list after = {0}, here = {0};
            for (size_t step = path->count; ok && step-- > 0;) {
                here.count = 0;
                ok = step_matches(changes, path, step, step + 1 < path->count ? &after : NULL, &here);
                object_list swap = after;
                after = here;
                here = swap;
            }
            /* `after` holds the objects of the path's first step: roots. */
            for (size_t i = 0; ok && i < after.count; i++)
                if (changes_kind_of(changes, table, after.items[i].key) != CE_OBJECT_INSERTED)
                    ok = add_once(&unique, &result, table, after.items[i].key);
            free(after.items);
            free(here.items);
        }
    }
    free(unique.entries);
    if (!ok) {
        free(result.items);
        return false;
    }
    if (result.count) qsort(result.items, result.count, sizeof *result.items, compare_links);
    ce_object_key *keys = malloc((result.count ? result.count : 1) * sizeof *keys);
    if (!keys) {
        free(result.items);
        return filter_out_of_memory();
    }
    for (size_t i = 0; i < result.count; i++) keys[i] = result.items[i].key;
    free(result.items);
    cache->results[cache->result_count++] = keys;
    *out_objects = keys;
    *out_count = result.count;
    return true;
}

bool ce_changes_matching_objects(const ce_changes *changes, const ce_key_path_filter *filter,
                                 const ce_object_key **out_objects, size_t *out_count)
{
    if (!key_path_filter_check(filter, "ce_changes_matching_objects") ||
        !changes_check(changes, "ce_changes_matching_objects"))
        return false;
    return key_path_filter_changed_objects(changes, filter, filter->table, out_objects, out_count);
}
