/*
 * schema.c — the object store's schema: the group, its tables and their
 * properties, as the public API (cengine.h, "Schema") sees them.
 *
 * Owns: the group node under the db layer's user root, the schema stored in
 * it (on disk, and parsed in memory as the transaction's layer state), and
 * each table's node (cluster tree, next object key, index list, whether
 * object keys follow the primary key).
 * Never: reads or writes an object's values or an index's entries (when a
 * table or property goes, or a property is indexed, links.c and
 * object_index.c do that work), lays out column values (column.c), walks
 * the cluster tree (cluster.c) or index nodes (index.c) itself, or touches
 * the file.
 *
 * Group (the user root, NODE_HAS_REFS):
 *   [0] ref of the schema: a NODE_BYTES node (format in docs/FORMAT.md)
 *   [1] ref of the tables: a NODE_HAS_REFS node, one table node per table
 *       slot (0 for a removed table)
 *   [2] tagged schema version (the application's number)
 * Table (NODE_HAS_REFS):
 *   [0] ref of the cluster tree
 *   [1] tagged next object key
 *   [2] ref of the index list (0: no index): a NODE_HAS_REFS node with one
 *       element per column slot, the root of that column's index or 0. The
 *       primary key is an indexed column whose values are unique.
 *   [3] whether object keys follow the primary key (keys_follow_state)
 *
 * Every change writes through: the schema node is rewritten when the schema
 * changes, so a commit needs nothing from this layer. The parsed schema is
 * kept in the transaction's layer state.
 */
#include "cengine.h"
#include "buf.h"
#include "cluster.h"
#include "db.h"
#include "error.h"
#include "history.h"
#include "index.h"
#include "node.h"
#include "object_index.h"
#include "table_internal.h"
#include "value.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GROUP_SCHEMA = 0, GROUP_TABLES = 1, GROUP_VERSION = 2, GROUP_COUNT = 3 };
enum { TABLE_CLUSTER = 0, TABLE_NEXT_KEY = 1, TABLE_INDEXES = 2, TABLE_KEYS_FOLLOW = 3, TABLE_COUNT = 4 };

#define NAME_MAX_BYTES 63

/* ------------------------------------------------------------------------ */
/* The schema in memory                                                      */
/* ------------------------------------------------------------------------ */

static void free_schema(void *state)
{
    schema *loaded = state;
    if (!loaded) return;
    for (size_t t = 0; t < loaded->table_count; t++) {
        schema_table *table = &loaded->tables[t];
        for (size_t p = 0; p < table->property_count; p++) free(table->properties[p].name);
        free(table->properties);
        free(table->columns);
        free(table->name);
    }
    free(loaded->tables);
    column_scratch_free(&loaded->scratch);
    column_scratch_free(&loaded->search_scratch);
    column_scratch_free(&loaded->key_scratch);
    free(loaded->append.values);
    free(loaded->append.arena_offsets);
    free(loaded->append.arena);
    free(loaded->range_bytes);
    free(loaded->read_refs);
    free(loaded->hints);
    history_record_free(loaded->history);
    free(loaded);
}

bool schema_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory"); }

/* Recomputes a table's column list and primary key from its properties. */
static bool derive_columns(schema_table *table)
{
    cluster_column *columns = realloc(table->columns, (table->property_count + 1) * sizeof *columns);
    if (!columns) return schema_out_of_memory();
    table->columns = columns;
    table->primary_key = NO_PRIMARY_KEY;
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        bool removed = property->flags & PROPERTY_REMOVED;
        /* Links store key + 1 (0: null); collections, backlinks and mixed
         * values are trees that the object owns. */
        bool owned = property->collection != CE_COLLECTION_NONE || (property->flags & PROPERTY_BACKLINK) ||
                     property->type == CE_TYPE_MIXED;
        columns[p].type = removed ? CE_TYPE_NULL
                          : owned ? COLUMN_TYPE_OWNED_REFS
                          : property->type == CE_TYPE_LINK ? CE_TYPE_INT
                                                           : property->type;
        columns[p].nullable = !owned && property->type != CE_TYPE_LINK && (property->flags & PROPERTY_NULLABLE) != 0;
        if (!removed && (property->flags & PROPERTY_PRIMARY)) table->primary_key = p;
    }
    /* Buffered creation covers plain tables: scalar properties, no index but
     * an int primary key (whose ascending values prove uniqueness), no link
     * in or out, not embedded. */
    table->appendable = !(table->flags & TABLE_EMBEDDED);
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        if (property->flags & PROPERTY_REMOVED) continue;
        bool plain = property->collection == CE_COLLECTION_NONE && !(property->flags & PROPERTY_BACKLINK) &&
                     property->type != CE_TYPE_MIXED && property->type != CE_TYPE_LINK;
        bool index_ok = !(property->flags & PROPERTY_INDEXED) ||
                        ((property->flags & PROPERTY_PRIMARY) && property->type == CE_TYPE_INT &&
                         !(property->flags & PROPERTY_NULLABLE));
        if (!plain || !index_ok) table->appendable = false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* The schema on disk                                                        */
/*   u32 table count; per table: u8 flags, u16 name length, name,           */
/*   u32 property count; per property: u8 flags, u8 type, u8 collection,    */
/*   u32 link target, u32 origin column, u16 name length, name (length 0   */
/*   for backlinks: their name is derived).                                  */
/* ------------------------------------------------------------------------ */

typedef struct byte_reader {
    const uint8_t *bytes;
    size_t size, offset;
} byte_reader;

static bool read_bytes(byte_reader *reader, void *out, size_t length)
{
    if (length > reader->size - reader->offset) return false;
    memcpy(out, reader->bytes + reader->offset, length);
    reader->offset += length;
    return true;
}

static bool read_name(byte_reader *reader, char **out_name)
{
    uint16_t length;
    if (!read_bytes(reader, &length, 2) || length == 0 || length > NAME_MAX_BYTES) return false;
    char *name = malloc((size_t)length + 1);
    if (!name || !read_bytes(reader, name, length)) {
        free(name);
        return false;
    }
    name[length] = 0;
    if (!utf8_is_valid(name, length) || memchr(name, 0, length)) {
        free(name);
        return false;
    }
    *out_name = name;
    return true;
}

static bool parse_schema(const uint8_t *bytes, size_t size, schema *out)
{
    byte_reader reader = {bytes, size, 0};
    uint32_t table_count;
    if (!read_bytes(&reader, &table_count, 4) || table_count > size) return false;
    out->tables = calloc(table_count + 1, sizeof *out->tables);
    if (!out->tables) return false;
    for (uint32_t t = 0; t < table_count; t++) {
        schema_table *table = &out->tables[t];
        out->table_count = t + 1;
        uint32_t property_count;
        if (!read_bytes(&reader, &table->flags, 1) || !read_name(&reader, &table->name) ||
            !read_bytes(&reader, &property_count, 4) || property_count > size)
            return false;
        table->properties = calloc(property_count + 1, sizeof *table->properties);
        if (!table->properties) return false;
        for (uint32_t p = 0; p < property_count; p++) {
            schema_property *property = &table->properties[p];
            uint8_t type;
            table->property_count = p + 1;
            if (!read_bytes(&reader, &property->flags, 1) || !read_bytes(&reader, &type, 1) ||
                !read_bytes(&reader, &property->collection, 1) || !read_bytes(&reader, &property->link_target, 4) ||
                !read_bytes(&reader, &property->origin_column, 4))
                return false;
            if (property->flags & PROPERTY_BACKLINK) {
                uint16_t length;
                if (!read_bytes(&reader, &length, 2) || length != 0) return false;
            } else if (!read_name(&reader, &property->name)) {
                return false;
            }
            if (type < CE_TYPE_INT || type > CE_TYPE_LINK || property->collection > CE_COLLECTION_DICTIONARY) return false;
            property->type = (ce_type)type;
        }
    }
    /* Links of live tables name live tables (a removed table keeps its
     * properties as they were: the table it linked to may be gone since);
     * backlinks name a link property of another table; then the derived
     * names and columns. */
    for (size_t t = 0; t < out->table_count; t++) {
        schema_table *table = &out->tables[t];
        for (size_t p = 0; p < table->property_count; p++) {
            schema_property *property = &table->properties[p];
            if (property->flags & PROPERTY_BACKLINK) {
                if (property->type != CE_TYPE_LINK || property->collection != CE_COLLECTION_NONE ||
                    property->link_target >= out->table_count)
                    return false;
                const schema_table *origin = &out->tables[property->link_target];
                if (property->origin_column >= origin->property_count ||
                    (origin->properties[property->origin_column].flags & PROPERTY_BACKLINK))
                    return false;
                char name[2 * NAME_MAX_BYTES + 16];
                snprintf(name, sizeof name, "@links.%s.%s", origin->name, origin->properties[property->origin_column].name);
                property->name = strdup(name);
                if (!property->name) return false;
            } else if (property->type == CE_TYPE_LINK && !(property->flags & PROPERTY_REMOVED) &&
                       !(table->flags & TABLE_REMOVED) &&
                       (property->link_target >= out->table_count ||
                        (out->tables[property->link_target].flags & TABLE_REMOVED))) {
                return false;
            }
        }
        if (!derive_columns(table)) return false;
    }
    return reader.offset == size;
}

static bool append_name(uint8_t **buffer, size_t *size, size_t *capacity, const char *name)
{
    uint16_t length = (uint16_t)strlen(name);
    return buf_append(buffer, size, capacity, &length, 2) && buf_append(buffer, size, capacity, name, length);
}

static bool serialize_schema(const schema *loaded, uint8_t **out_bytes, size_t *out_size)
{
    uint8_t *buffer = NULL;
    size_t size = 0, capacity = 0;
    uint32_t table_count = (uint32_t)loaded->table_count;
    bool ok = buf_append(&buffer, &size, &capacity, &table_count, 4);
    for (size_t t = 0; ok && t < loaded->table_count; t++) {
        const schema_table *table = &loaded->tables[t];
        uint32_t property_count = (uint32_t)table->property_count;
        ok = buf_append(&buffer, &size, &capacity, &table->flags, 1) &&
             append_name(&buffer, &size, &capacity, table->name) &&
             buf_append(&buffer, &size, &capacity, &property_count, 4);
        for (size_t p = 0; ok && p < table->property_count; p++) {
            const schema_property *property = &table->properties[p];
            uint8_t type = (uint8_t)property->type;
            uint16_t no_name = 0;
            ok = buf_append(&buffer, &size, &capacity, &property->flags, 1) &&
                 buf_append(&buffer, &size, &capacity, &type, 1) &&
                 buf_append(&buffer, &size, &capacity, &property->collection, 1) &&
                 buf_append(&buffer, &size, &capacity, &property->link_target, 4) &&
                 buf_append(&buffer, &size, &capacity, &property->origin_column, 4) &&
                 ((property->flags & PROPERTY_BACKLINK) ? buf_append(&buffer, &size, &capacity, &no_name, 2)
                                                        : append_name(&buffer, &size, &capacity, property->name));
        }
    }
    if (!ok) {
        free(buffer);
        return false;
    }
    *out_bytes = buffer;
    *out_size = size;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The group                                                                 */
/* ------------------------------------------------------------------------ */

static bool read_group(ce_txn *txn, node_view *out_group)
{
    space_ref root = db_txn_root(txn);
    if (!node_read(db_txn_space(txn), root, out_group)) return false;
    if ((out_group->flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS || out_group->count != GROUP_COUNT ||
        !node_value_is_ref(node_get(out_group, GROUP_SCHEMA)) || !node_value_is_ref(node_get(out_group, GROUP_TABLES)) ||
        (node_get(out_group, GROUP_VERSION) & 1) == 0)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the group node is damaged");
    return true;
}

/* The parsed schema of the transaction's version (parsed once per version). */
bool schema_load(ce_txn *txn, schema **out_schema)
{
    /* Every object-store call reaches the schema first: an ended
     * transaction is refused here (db_txn_check). */
    if (!db_txn_check(txn, "the object store")) return false;
    schema *loaded = db_txn_layer_state(txn);
    if (loaded) {
        *out_schema = loaded;
        return true;
    }
    loaded = calloc(1, sizeof *loaded);
    if (!loaded) return schema_out_of_memory();
    if (db_txn_root(txn)) {
        node_view group, bytes;
        if (!read_group(txn, &group) || !node_read(db_txn_space(txn), (space_ref)node_get(&group, GROUP_SCHEMA), &bytes)) {
            free_schema(loaded);
            return false;
        }
        if (!(bytes.flags & NODE_BYTES) || !parse_schema(bytes.payload, bytes.count, loaded)) {
            free_schema(loaded);
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the schema is damaged");
        }
        /* Every table slot must have a table node (or 0 for a removed table). */
        node_view tables;
        if (!node_read(db_txn_space(txn), (space_ref)node_get(&group, GROUP_TABLES), &tables) ||
            tables.count != loaded->table_count || !(tables.flags & NODE_HAS_REFS)) {
            free_schema(loaded);
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table list does not match the schema");
        }
    }
    db_txn_set_layer_state(txn, loaded, free_schema);
    if (ce_txn_is_write(txn)) db_txn_set_before_commit(txn, object_before_commit);
    *out_schema = loaded;
    return true;
}

/* Makes the group writable (creating it in a new file) and returns its ref. */
static bool writable_group(ce_txn *txn, space_ref *out_group)
{
    if (!db_txn_require_write(txn)) return false;
    space_state *space = db_txn_space(txn);
    space_ref group = db_txn_root(txn);
    if (!group) {
        space_ref schema_bytes, tables;
        uint32_t no_tables = 0;
        if (!node_create(space, NODE_HAS_REFS, GROUP_COUNT, 0, &group) ||
            !node_create_bytes(space, 0, &no_tables, 4, &schema_bytes) ||
            !node_create(space, NODE_HAS_REFS, 0, 0, &tables) ||
            !node_set(space, group, GROUP_SCHEMA, (int64_t)schema_bytes) ||
            !node_set(space, group, GROUP_TABLES, (int64_t)tables) ||
            !node_set(space, group, GROUP_VERSION, node_tag(0)))
            return false;
    } else {
        node_view view;
        if (!read_group(txn, &view) || !node_make_writable(space, &group)) return false;
    }
    if (!db_txn_set_root(txn, group)) return false;
    *out_group = group;
    return true;
}

/* Writes the schema (after a change to it in memory) into the group. */
static bool store_schema(ce_txn *txn, const schema *loaded)
{
    space_ref group;
    if (!writable_group(txn, &group)) return false;
    space_state *space = db_txn_space(txn);
    uint8_t *bytes;
    size_t size;
    if (!serialize_schema(loaded, &bytes, &size)) return false;
    node_view view;
    space_ref schema_bytes;
    bool ok = node_read(space, group, &view) && node_free(space, (space_ref)node_get(&view, GROUP_SCHEMA)) &&
              node_create_bytes(space, 0, bytes, size, &schema_bytes) &&
              node_set(space, group, GROUP_SCHEMA, (int64_t)schema_bytes);
    free(bytes);
    return ok;
}

/* The writable tables node of the group. */
static bool writable_tables(ce_txn *txn, space_ref group, space_ref *out_tables)
{
    space_state *space = db_txn_space(txn);
    node_view view;
    if (!node_read(space, group, &view)) return false;
    space_ref tables = (space_ref)node_get(&view, GROUP_TABLES);
    if (!node_make_writable(space, &tables) || !node_set(space, group, GROUP_TABLES, (int64_t)tables)) return false;
    *out_tables = tables;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Finding tables and properties                                             */
/* ------------------------------------------------------------------------ */

bool schema_find_table_loading(ce_txn *txn, ce_table_key key, schema **out_schema, schema_table **out_table)
{
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    schema *loaded = NULL;
    if (!schema_load(txn, &loaded)) return false;
    if (key >= loaded->table_count || (loaded->tables[key].flags & TABLE_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_TABLE, "no table with key %u", (unsigned)key);
    *out_schema = loaded;
    *out_table = &loaded->tables[key];
    return true;
}

/* ------------------------------------------------------------------------ */
/* Table nodes (table_refs, table_internal.h)                               */
/* ------------------------------------------------------------------------ */

static bool read_table_node(ce_txn *txn, space_ref table_ref, table_refs *out)
{
    node_view view;
    if (!node_read(db_txn_space(txn), table_ref, &view)) return false;
    if ((view.flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS || view.count != TABLE_COUNT ||
        !node_value_is_ref(node_get(&view, TABLE_CLUSTER)) || (node_get(&view, TABLE_NEXT_KEY) & 1) == 0 ||
        node_untag(node_get(&view, TABLE_NEXT_KEY)) < 0)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table node at %llu is damaged",
                       (unsigned long long)table_ref);
    int64_t indexes = node_get(&view, TABLE_INDEXES), follow = node_get(&view, TABLE_KEYS_FOLLOW);
    if ((indexes != 0 && !node_value_is_ref(indexes)) || (follow != 0 && (follow & 1) == 0))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table node at %llu is damaged",
                       (unsigned long long)table_ref);
    *out = (table_refs){table_ref, (space_ref)node_get(&view, TABLE_CLUSTER), node_untag(node_get(&view, TABLE_NEXT_KEY)),
                        (space_ref)indexes, KEYS_DO_NOT_FOLLOW, 0, NULL, out->key};
    if (follow != 0) {
        int64_t stored = node_untag(follow);
        out->keys_follow = stored == 0 ? KEYS_FOLLOW_UNDECIDED : KEYS_FOLLOW;
        out->primary_key_offset = stored >> 1; /* (stored - 1) / 2, rounding down for negative offsets too */
        if (stored != 0 && (stored & 1) == 0)
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table node at %llu is damaged",
                           (unsigned long long)table_ref);
    }
    return true;
}

/* Makes room for every table's cached refs and hint (a write transaction
 * adds tables); false (and nothing cached) when memory runs out. */
static bool table_caches(schema *loaded)
{
    if (loaded->table_caches >= loaded->table_count) return true;
    size_t count = loaded->table_count;
    table_refs *refs = realloc(loaded->read_refs, count * sizeof *refs);
    if (refs) loaded->read_refs = refs;
    cluster_hint *hints = refs ? realloc(loaded->hints, count * sizeof *hints) : NULL;
    if (hints) loaded->hints = hints;
    if (!refs || !hints) return false;
    memset(refs + loaded->table_caches, 0, (count - loaded->table_caches) * sizeof *refs);
    memset(hints + loaded->table_caches, 0, (count - loaded->table_caches) * sizeof *hints);
    loaded->table_caches = count;
    return true;
}

/* A table's refs for reading. They are read once and cached with the
 * table's cluster_hint (the leaf and root of its last access, so that
 * reading several properties of one object, an object just found by its
 * primary key, or the next position of a loop reads the tree once). A read
 * transaction's version never changes under it; both caches go with the
 * layer state when the transaction moves to another version. In a write
 * transaction, schema_table_refs_for_write forgets a table's cached refs
 * (the caller is about to change them) and schema_store_table_refs caches
 * them again; the hint follows the tree through every change (cluster.h). */
bool schema_table_refs_reading(ce_txn *txn, ce_table_key key, table_refs *out)
{
    if (!object_flush_appends_of(txn, key)) return false;
    schema *loaded = db_txn_layer_state(txn);
    bool cacheable = loaded && key < loaded->table_count && table_caches(loaded);
    if (cacheable && loaded->read_refs[key].table) {
        *out = loaded->read_refs[key];
        out->hint = &loaded->hints[key];
        return true;
    }
    node_view group, tables;
    if (!read_group(txn, &group) || !node_read(db_txn_space(txn), (space_ref)node_get(&group, GROUP_TABLES), &tables))
        return false;
    if (key >= tables.count || !node_value_is_ref(node_get(&tables, key)))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: table %u has no node", (unsigned)key);
    out->key = key;
    if (!read_table_node(txn, (space_ref)node_get(&tables, key), out)) return false;
    if (cacheable) {
        loaded->read_refs[key] = *out;
        out->hint = &loaded->hints[key];
    }
    return true;
}

/* Makes the path group → tables → table writable and returns the table's refs. */
bool schema_table_refs_for_write(ce_txn *txn, ce_table_key key, table_refs *out)
{
    if (!object_flush_appends_of(txn, key)) return false;
    schema *loaded = db_txn_layer_state(txn);
    bool cacheable = loaded && key < loaded->table_count && table_caches(loaded);
    if (cacheable) loaded->read_refs[key].table = 0; /* the caller changes them, then stores them */
    space_ref group, tables;
    if (!writable_group(txn, &group) || !writable_tables(txn, group, &tables)) return false;
    space_state *space = db_txn_space(txn);
    node_view view;
    if (!node_read(space, tables, &view)) return false;
    if (key >= view.count || !node_value_is_ref(node_get(&view, key)))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: table %u has no node", (unsigned)key);
    space_ref table = (space_ref)node_get(&view, key);
    out->key = key;
    if (!read_table_node(txn, table, out) || !node_make_writable(space, &table) ||
        !node_set(space, tables, key, (int64_t)table))
        return false;
    out->table = table;
    if (cacheable) out->hint = &loaded->hints[key];
    return true;
}

bool schema_table_refs_copied(ce_txn *txn, ce_table_key key, table_refs *out)
{
    if (!object_flush_appends_of(txn, key)) return false;
    schema *loaded = db_txn_layer_state(txn);
    if (!loaded || key >= loaded->table_caches || !db_txn_space(txn)->writable) return false;
    /* A dirty table node was copied by schema_table_refs_for_write (or made
     * by add_table), after the group and the tables node. */
    const table_refs *cached = &loaded->read_refs[key];
    if (!cached->table || !ref_is_temporary(cached->table) || !ref_is_temporary(cached->cluster)) return false;
    *out = *cached;
    out->hint = &loaded->hints[key];
    return true;
}

bool schema_changed_in_place(ce_txn *txn) { return db_txn_set_root(txn, db_txn_root(txn)); }

/* Stores changed refs back into a writable table node. */
bool schema_store_table_refs(ce_txn *txn, const table_refs *refs)
{
    space_state *space = db_txn_space(txn);
    int64_t follow = refs->keys_follow == KEYS_DO_NOT_FOLLOW     ? 0
                     : refs->keys_follow == KEYS_FOLLOW_UNDECIDED ? node_tag(0)
                                                                  : node_tag(2 * refs->primary_key_offset + 1);
    if (!node_set(space, refs->table, TABLE_CLUSTER, (int64_t)refs->cluster) ||
        !node_set(space, refs->table, TABLE_NEXT_KEY, node_tag(refs->next_key)) ||
        !node_set(space, refs->table, TABLE_INDEXES, (int64_t)refs->indexes) ||
        !node_set(space, refs->table, TABLE_KEYS_FOLLOW, follow))
        return false;
    schema *loaded = db_txn_layer_state(txn);
    if (loaded && refs->key < loaded->table_caches) {
        loaded->read_refs[refs->key] = *refs;
        loaded->read_refs[refs->key].hint = NULL;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

static bool remove_backlink_columns(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column);

static bool check_name(const char *name, const char *what)
{
    if (!name) return error_fail(CE_ERR_INVALID_ARGUMENT, "a %s name is required", what);
    size_t length = strlen(name);
    if (length == 0 || length > NAME_MAX_BYTES || !utf8_is_valid(name, length))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s' is not a valid %s name (1 to %d bytes of UTF-8)", name, what,
                       NAME_MAX_BYTES);
    if (name[0] == '@')
        return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s' is not a valid %s name: names starting with '@' are the engine's",
                       name, what);
    /* A '.' separates the steps of a key path, and the parts of a backlink
     * property's name (@links.<table>.<property>): in a name it would make
     * both ambiguous. */
    if (strchr(name, '.'))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s' is not a valid %s name: names cannot contain '.'", name, what);
    return true;
}

bool ce_table_count(ce_txn *txn, size_t *out_count)
{
    if (!txn || !out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_count: arguments are required");
    schema *loaded = NULL;
    if (!schema_load(txn, &loaded)) return false;
    *out_count = loaded->table_count;
    return true;
}

bool ce_table_find(ce_txn *txn, const char *name, ce_table_key *out_table, bool *out_found)
{
    if (!txn || !name || !out_table || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_find: arguments are required");
    schema *loaded = NULL;
    if (!schema_load(txn, &loaded)) return false;
    *out_found = false;
    for (size_t t = 0; t < loaded->table_count; t++) {
        if (!(loaded->tables[t].flags & TABLE_REMOVED) && strcmp(loaded->tables[t].name, name) == 0) {
            *out_table = (ce_table_key)t;
            *out_found = true;
        }
    }
    return true;
}

bool ce_table_name(ce_txn *txn, ce_table_key key, const char **out_name)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_name) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_name: out_name is required");
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_name = table->name;
    return true;
}

static bool add_table(ce_txn *txn, const char *name, uint8_t flags, ce_table_key *out_table)
{
    schema *loaded = NULL;
    bool found;
    ce_table_key existing;
    if (!db_txn_require_write(txn) || !check_name(name, "table") || !out_table) return false;
    if (!ce_table_find(txn, name, &existing, &found) || !schema_load(txn, &loaded)) return false;
    if (found) return error_fail(CE_ERR_DUPLICATE_NAME, "a table named '%s' exists already", name);
    schema_table *grown = realloc(loaded->tables, (loaded->table_count + 1) * sizeof *grown);
    if (!grown) return schema_out_of_memory();
    loaded->tables = grown;
    schema_table *table = &loaded->tables[loaded->table_count];
    memset(table, 0, sizeof *table);
    table->name = strdup(name);
    table->flags = flags;
    table->primary_key = NO_PRIMARY_KEY;
    if (!table->name || !derive_columns(table)) return schema_out_of_memory();
    loaded->table_count++;

    space_state *space = db_txn_space(txn);
    space_ref group, tables, table_node, cluster;
    cluster_schema empty = schema_cluster_columns(table);
    if (!store_schema(txn, loaded) || !writable_group(txn, &group) || !writable_tables(txn, group, &tables) ||
        !cluster_create(space, &empty, &cluster) || !node_create(space, NODE_HAS_REFS, TABLE_COUNT, 0, &table_node) ||
        !node_set(space, table_node, TABLE_CLUSTER, (int64_t)cluster) ||
        !node_set(space, table_node, TABLE_NEXT_KEY, node_tag(0)) || !node_append(space, tables, (int64_t)table_node))
        return false;
    *out_table = (ce_table_key)(loaded->table_count - 1);
    return history_schema_changed(txn, HISTORY_TABLE_ADDED, *out_table, 0);
}

bool ce_table_add(ce_txn *txn, const char *name, ce_table_key *out_table)
{
    return add_table(txn, name, 0, out_table);
}

bool ce_table_add_embedded(ce_txn *txn, const char *name, ce_table_key *out_table)
{
    return add_table(txn, name, TABLE_EMBEDDED, out_table);
}

bool ce_table_is_embedded(ce_txn *txn, ce_table_key key, bool *out_embedded)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_embedded) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_is_embedded: out_embedded is required");
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_embedded = (table->flags & TABLE_EMBEDDED) != 0;
    return true;
}

bool ce_table_remove(ce_txn *txn, ce_table_key key)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table)) return false;
    for (size_t t = 0; t < loaded->table_count; t++) {
        const schema_table *other = &loaded->tables[t];
        if (t == key || (other->flags & TABLE_REMOVED)) continue;
        for (size_t p = 0; p < other->property_count; p++) {
            const schema_property *property = &other->properties[p];
            if (schema_property_holds_links(property) && property->type == CE_TYPE_LINK && property->link_target == key)
                return error_fail(CE_ERR_INVALID_SCHEMA, "table '%s' cannot be removed: property '%s.%s' links to it",
                               table->name, other->name, property->name);
        }
    }
    /* Deleting the objects one by one clears every link into them (mixed
     * links from other tables included) and out of them. */
    for (;;) {
        size_t count;
        ce_object_key object;
        if (!schema_table_refs_for_read(txn, key, &refs) || !cluster_count(db_txn_space(txn), refs.cluster, &count))
            return false;
        if (count == 0) break;
        if (!cluster_key_at(db_txn_space(txn), refs.cluster, 0, NULL, &object) || !links_delete_object(txn, loaded, key, object, 0))
            return false;
    }
    for (size_t p = 0; p < table->property_count; p++)
        if (schema_property_holds_links(&table->properties[p]) && !remove_backlink_columns(txn, loaded, key, p))
            return false;
    if (!schema_table_refs_for_write(txn, key, &refs)) return false;
    space_state *space = db_txn_space(txn);
    space_ref group, tables;
    /* The index list is a has-refs tree: freeing it frees every index. */
    if (!cluster_destroy(space, refs.cluster, refs.hint) || (refs.indexes && !node_free_tree(space, refs.indexes)) ||
        !node_free(space, refs.table) || !writable_group(txn, &group) || !writable_tables(txn, group, &tables) ||
        !node_set(space, tables, key, 0))
        return false;
    table->flags |= TABLE_REMOVED;
    return store_schema(txn, loaded) && history_schema_changed(txn, HISTORY_TABLE_REMOVED, key, 0);
}

/* ------------------------------------------------------------------------ */
/* Properties                                                                */
/* ------------------------------------------------------------------------ */

static bool primary_key_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_STRING || type == CE_TYPE_OBJECT_ID || type == CE_TYPE_UUID;
}

bool ce_property_find(ce_txn *txn, ce_table_key key, const char *name, ce_column_key *out_column, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!name || !out_column || !out_found) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_find: arguments are required");
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        if (schema_property_is_live(&table->properties[p]) && strcmp(table->properties[p].name, name) == 0) {
            *out_column = (ce_column_key)p;
            *out_found = true;
        }
    }
    return true;
}

bool ce_property_count(ce_txn *txn, ce_table_key key, size_t *out_count)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_count: out_count is required");
    if (!schema_find_table(txn, key, &loaded, &table)) return false;
    *out_count = table->property_count;
    return true;
}

bool ce_property_get_info(ce_txn *txn, ce_table_key key, ce_column_key column, ce_property_info *out_info)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!out_info) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_get_info: out_info is required");
    if (!schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property)) return false;
    bool backlink = (property->flags & PROPERTY_BACKLINK) != 0;
    *out_info = (ce_property_info){
        .name = property->name,
        .type = property->type,
        /* Every mixed value may be null, a collection's elements too (as
         * object_spec_of_property treats them), whatever the flag says. */
        .nullable = (property->flags & PROPERTY_NULLABLE) != 0 || (!backlink && property->type == CE_TYPE_MIXED),
        .primary_key = (property->flags & PROPERTY_PRIMARY) != 0,
        .indexed = (property->flags & PROPERTY_INDEXED) != 0,
        .collection = (ce_collection_type)property->collection,
        .link_target = property->link_target,
        .backlink = backlink,
        .origin_table = backlink ? property->link_target : 0,
        .origin_column = backlink ? property->origin_column : 0,
    };
    return true;
}

static bool indexable_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_STRING || type == CE_TYPE_TIMESTAMP ||
           type == CE_TYPE_OBJECT_ID || type == CE_TYPE_UUID;
}

/* The checks of a new property's definition that need no data. */
static bool check_property_definition(ce_txn *txn, schema *loaded, const schema_table *table, const ce_property_info *info)
{
    const char *kind = info->collection == CE_COLLECTION_LIST         ? "a list"
                       : info->collection == CE_COLLECTION_SET        ? "a set"
                       : info->collection == CE_COLLECTION_DICTIONARY ? "a dictionary"
                                                                      : "a property";
    if (info->type < CE_TYPE_INT || info->type > CE_TYPE_LINK)
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': the engine does not store properties of type %s",
                       table->name, info->name, ce_type_name(info->type));
    if ((unsigned)info->collection > CE_COLLECTION_DICTIONARY)
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': unknown collection type %d", table->name, info->name,
                       (int)info->collection);
    bool single = info->collection == CE_COLLECTION_NONE;
    if ((info->primary_key || info->indexed) && (!single || info->type == CE_TYPE_LINK || info->type == CE_TYPE_MIXED))
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': %s of type %s cannot be %s", table->name, info->name,
                       kind, ce_type_name(info->type), info->primary_key ? "a primary key" : "indexed");
    if ((info->primary_key || info->indexed) && (table->flags & TABLE_EMBEDDED))
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': embedded tables have no primary key and no indexes",
                       table->name, info->name);
    if (info->indexed && !info->primary_key && !indexable_type(info->type))
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': properties of type %s cannot be indexed", table->name,
                       info->name, ce_type_name(info->type));
    if (info->type != CE_TYPE_LINK) return true;
    if (info->link_target >= loaded->table_count || (loaded->tables[info->link_target].flags & TABLE_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_TABLE, "property '%s.%s' links to table %u, which does not exist", table->name,
                       info->name, (unsigned)info->link_target);
    const schema_table *target = &loaded->tables[info->link_target];
    (void)txn;
    if (single && !info->nullable)
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': a link to '%s' must be nullable (optional)", table->name,
                       info->name, target->name);
    if ((info->collection == CE_COLLECTION_LIST || info->collection == CE_COLLECTION_SET) && info->nullable)
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': %s of links to '%s' cannot hold null", table->name,
                       info->name, kind, target->name);
    if (info->collection == CE_COLLECTION_DICTIONARY && !info->nullable)
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': a dictionary of links to '%s' must be nullable",
                       table->name, info->name, target->name);
    if (info->collection == CE_COLLECTION_SET && (target->flags & TABLE_EMBEDDED))
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': a set cannot hold embedded objects ('%s')", table->name,
                       info->name, target->name);
    return true;
}

/* Appends a property to a table: schema, cluster columns, index. */
static bool append_property(ce_txn *txn, schema *loaded, ce_table_key key, const schema_property *definition,
                            size_t *out_column)
{
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!schema_table_refs_for_write(txn, key, &refs)) return false;
    schema_property *grown = realloc(table->properties, (table->property_count + 1) * sizeof *grown);
    if (!grown) return schema_out_of_memory();
    table->properties = grown;
    schema_property *property = &table->properties[table->property_count];
    *property = *definition;
    property->name = strdup(definition->name);
    if (!property->name) return schema_out_of_memory();
    table->property_count++;
    if (!derive_columns(table)) return false;
    cluster_schema columns = schema_cluster_columns(table);
    space_state *space = db_txn_space(txn);
    size_t column = table->property_count - 1;
    if (!cluster_add_column(space, &refs.cluster, &columns, column, refs.hint)) return false;
    /* Existing objects have the default value: index them. */
    if (schema_column_is_indexed(table, column) && !object_index_build(txn, loaded, &refs, table, column)) return false;
    /* A primary key is only added to an empty table. */
    if (definition->flags & PROPERTY_PRIMARY)
        refs.keys_follow = definition->type == CE_TYPE_INT ? KEYS_FOLLOW_UNDECIDED : KEYS_DO_NOT_FOLLOW;
    if (!schema_store_table_refs(txn, &refs) || !store_schema(txn, loaded)) return false;
    *out_column = column;
    return true;
}

/* The backlink column of `target` for links from origin_table.origin_column. */
bool schema_find_backlink_column(const schema_table *target, ce_table_key origin_table, size_t origin_column,
                                 size_t *out_column, bool *out_found)
{
    *out_found = false;
    for (size_t p = 0; p < target->property_count; p++) {
        const schema_property *property = &target->properties[p];
        if (schema_property_is_live(property) && (property->flags & PROPERTY_BACKLINK) && property->link_target == origin_table &&
            property->origin_column == origin_column) {
            *out_column = p;
            *out_found = true;
            return true;
        }
    }
    return true;
}

/* Finds or adds the backlink column (mixed links add theirs on first use). */
bool schema_ensure_backlink_column(ce_txn *txn, schema *loaded, ce_table_key target_key, ce_table_key origin_table,
                                   size_t origin_column, size_t *out_column)
{
    bool found;
    if (!schema_find_backlink_column(&loaded->tables[target_key], origin_table, origin_column, out_column, &found)) return false;
    if (found) return true;
    const schema_table *origin = &loaded->tables[origin_table];
    char name[2 * NAME_MAX_BYTES + 16];
    snprintf(name, sizeof name, "@links.%s.%s", origin->name, origin->properties[origin_column].name);
    schema_property backlink = {name, CE_TYPE_LINK, PROPERTY_BACKLINK, CE_COLLECTION_NONE, origin_table,
                                (uint32_t)origin_column};
    return append_property(txn, loaded, target_key, &backlink, out_column);
}

bool ce_property_add(ce_txn *txn, ce_table_key key, const ce_property_info *info, ce_column_key *out_column)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!info || !out_column) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_add: arguments are required");
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table) ||
        !check_name(info->name, "property"))
        return false;
    bool found;
    ce_column_key existing;
    if (!ce_property_find(txn, key, info->name, &existing, &found)) return false;
    if (found) return error_fail(CE_ERR_DUPLICATE_NAME, "table '%s' has a property named '%s' already", table->name, info->name);
    if (!check_property_definition(txn, loaded, table, info)) return false;
    if (info->primary_key) {
        size_t objects;
        table_refs refs;
        if (!primary_key_type(info->type))
            return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': a primary key must be int, string, objectId or uuid, not %s",
                           table->name, info->name, ce_type_name(info->type));
        if (table->primary_key != NO_PRIMARY_KEY)
            return error_fail(CE_ERR_INVALID_SCHEMA, "table '%s' has a primary key already ('%s')", table->name,
                           table->properties[table->primary_key].name);
        if (!schema_table_refs_for_read(txn, key, &refs) || !cluster_count(db_txn_space(txn), refs.cluster, &objects)) return false;
        if (objects > 0)
            return error_fail(CE_ERR_INVALID_SCHEMA, "table '%s' has objects: a primary key can only be added to an empty table",
                           table->name);
    }
    bool nullable = info->nullable || (info->type == CE_TYPE_MIXED && info->collection == CE_COLLECTION_NONE);
    schema_property definition = {
        (char *)info->name, info->type,
        (uint8_t)((nullable ? PROPERTY_NULLABLE : 0) | (info->primary_key ? PROPERTY_PRIMARY : 0) |
                  (info->indexed || info->primary_key ? PROPERTY_INDEXED : 0)),
        (uint8_t)info->collection, info->type == CE_TYPE_LINK ? info->link_target : 0, 0};
    size_t column, backlink;
    if (!append_property(txn, loaded, key, &definition, &column)) return false;
    if (info->type == CE_TYPE_LINK &&
        !schema_ensure_backlink_column(txn, loaded, info->link_target, key, column, &backlink))
        return false;
    *out_column = (ce_column_key)column;
    return history_schema_changed(txn, HISTORY_PROPERTY_ADDED, key, (ce_column_key)column);
}

bool ce_property_set_indexed(ce_txn *txn, ce_table_key key, ce_column_key column, bool indexed)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    ce_property_info info;
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table) || !schema_find_column(table, column, &property) ||
        !ce_property_get_info(txn, key, column, &info))
        return false;
    if (info.backlink)
        return error_fail(CE_ERR_INVALID_SCHEMA, "'%s.%s' is a backlink property: it has no index", table->name,
                       property->name);
    if (info.primary_key) {
        if (indexed) return true;
        return error_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s' is the primary key: its index cannot be removed",
                       table->name, property->name);
    }
    if (info.indexed == indexed) return true;
    /* The rules of an indexed property are those of ce_property_add. */
    info.indexed = indexed;
    if (indexed && !check_property_definition(txn, loaded, table, &info)) return false;
    table_refs refs;
    if (!schema_table_refs_for_write(txn, key, &refs)) return false;
    schema_property *changed = &table->properties[column];
    if (indexed) {
        changed->flags |= PROPERTY_INDEXED;
        if (!object_index_build(txn, loaded, &refs, table, column)) return false;
    } else {
        space_ref root;
        if (!object_index_root(txn, &refs, column, &root)) return false;
        if (root && (!index_destroy(db_txn_space(txn), root) || !object_index_set_root(txn, &refs, table, column, 0)))
            return false;
        changed->flags &= (uint8_t)~PROPERTY_INDEXED;
    }
    return derive_columns(table) && schema_store_table_refs(txn, &refs) && store_schema(txn, loaded);
}

/* Removes one column of a table (its values, its index) from the schema. */
static bool remove_column(ce_txn *txn, schema *loaded, ce_table_key key, size_t column)
{
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!schema_table_refs_for_write(txn, key, &refs)) return false;
    space_state *space = db_txn_space(txn);
    cluster_schema columns = schema_cluster_columns(table);
    if (!cluster_remove_column(space, &refs.cluster, &columns, column, refs.hint)) return false;
    space_ref index;
    if (!object_index_root(txn, &refs, column, &index)) return false;
    if (index && (!index_destroy(space, index) || !object_index_set_root(txn, &refs, table, column, 0))) return false;
    if (column == table->primary_key) refs.keys_follow = KEYS_DO_NOT_FOLLOW;
    table->properties[column].flags |= PROPERTY_REMOVED;
    return derive_columns(table) && schema_store_table_refs(txn, &refs) && store_schema(txn, loaded);
}

/* Removes the backlink columns that record the links of origin_table.origin_column. */
static bool remove_backlink_columns(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column)
{
    for (size_t t = 0; t < loaded->table_count; t++) {
        if (loaded->tables[t].flags & TABLE_REMOVED) continue;
        size_t column;
        bool found;
        if (!schema_find_backlink_column(&loaded->tables[t], origin_table, origin_column, &column, &found))
            return false;
        if (found && !remove_column(txn, loaded, (ce_table_key)t, column)) return false;
    }
    return true;
}

bool ce_property_remove(ce_txn *txn, ce_table_key key, ce_column_key column)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!db_txn_require_write(txn) || !schema_find_table(txn, key, &loaded, &table) ||
        !schema_find_column(table, column, &property))
        return false;
    if (property->flags & PROPERTY_BACKLINK)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s.%s' is a backlink property: it goes with the link property it records",
                       table->name, property->name);
    if (schema_property_holds_links(property) &&
        (!links_clear_column(txn, loaded, key, column) || !remove_backlink_columns(txn, loaded, key, column)))
        return false;
    return remove_column(txn, loaded, key, column) && history_schema_changed(txn, HISTORY_PROPERTY_REMOVED, key, column);
}

bool ce_schema_version(ce_txn *txn, uint64_t *out_version)
{
    if (!txn || !out_version) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_schema_version: arguments are required");
    if (!db_txn_root(txn)) {
        *out_version = 0;
        return true;
    }
    node_view group;
    if (!read_group(txn, &group)) return false;
    *out_version = (uint64_t)node_untag(node_get(&group, GROUP_VERSION));
    return true;
}

bool ce_set_schema_version(ce_txn *txn, uint64_t version)
{
    space_ref group;
    if (version > (uint64_t)INT64_MAX >> 1) return error_fail(CE_ERR_INVALID_ARGUMENT, "schema version %llu is too large",
                                                          (unsigned long long)version);
    if (!writable_group(txn, &group)) return false;
    return node_set(db_txn_space(txn), group, GROUP_VERSION, node_tag((int64_t)version));
}

