/*
 * table.c — the object store: schema, tables, properties, objects and
 * primary keys, as the public API (cengine.h, "Schema" and "Objects") sees
 * them.
 *
 * Owns: the group node under the db layer's user root, the schema stored in
 * it, each table's node (cluster tree, next object key, primary-key index),
 * and every check that names a table, a property or a value in its message.
 * Never: lays out column values (column.c), walks the cluster tree
 * (cluster.c) or index nodes (index.c) itself, or touches the file.
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
 *
 * Every change writes through: the schema node is rewritten when the schema
 * changes, so a commit needs nothing from this layer. The parsed schema is
 * kept in the transaction's layer state.
 */
#include "cengine.h"
#include "cluster.h"
#include "collection.h"
#include "column.h"
#include "db.h"
#include "buf.h"
#include "error.h"
#include "index.h"
#include "node.h"
#include "table.h"
#include "value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GROUP_SCHEMA = 0, GROUP_TABLES = 1, GROUP_VERSION = 2, GROUP_COUNT = 3 };
enum { TABLE_CLUSTER = 0, TABLE_NEXT_KEY = 1, TABLE_INDEXES = 2, TABLE_KEYS_FOLLOW = 3, TABLE_COUNT = 4 };

#define NAME_MAX_BYTES 63
#define NO_PRIMARY_KEY SIZE_MAX

enum { PROPERTY_REMOVED = 1, PROPERTY_NULLABLE = 2, PROPERTY_PRIMARY = 4, PROPERTY_INDEXED = 8, PROPERTY_BACKLINK = 16 };
enum { TABLE_REMOVED = 1, TABLE_EMBEDDED = 2 };

/* How deep embedded objects and nested mixed collections may go (Realm
 * allows 100 levels of nesting); deeper is damage, or a cycle. */
#define MAX_NESTING 100

/* A property. Backlink properties (PROPERTY_BACKLINK) are the engine's: the
 * links of `link_target`.`origin_column` into this table; their name is
 * derived ("@links.<origin table>.<origin property>"), not stored. */
typedef struct schema_property {
    char *name;
    ce_type type;            /* for collections: the element type */
    uint8_t flags;
    uint8_t collection;      /* ce_collection_type */
    uint32_t link_target;    /* links: the target table; backlinks: the origin table */
    uint32_t origin_column;  /* backlinks: the origin property */
} schema_property;

typedef struct schema_table {
    char *name;
    uint8_t flags;
    size_t property_count;
    schema_property *properties;
    cluster_column *columns; /* derived: what the cluster tree needs */
    size_t primary_key;      /* column, or NO_PRIMARY_KEY */
    bool appendable;         /* derived: new objects may be buffered (see "Appending") */
} schema_table;

/* Objects created but not yet in the cluster tree: a bulk load fills whole
 * leaves at once (see "Appending"). Values column by column,
 * values[c * CLUSTER_LEAF_MAX + i]; the bytes of strings and binaries are
 * copied into `arena` (their data pointers are set when the buffer is flushed). */
typedef struct append_buffer {
    bool active;
    bool lost;                 /* a flush failed: objects reported created are gone, so the commit must fail */
    ce_table_key table;
    size_t count;
    ce_object_key first_key;   /* the key of the first buffered object */
    bool has_last_primary_key; /* the table's largest primary key, buffered ones included */
    int64_t last_primary_key;
    ce_value *values;
    size_t *arena_offsets;     /* per value: where its bytes start in the arena */
    size_t column_capacity;
    uint8_t *arena;
    size_t arena_size, arena_capacity;
} append_buffer;

typedef struct schema {
    size_t table_count;
    schema_table *tables;
    append_buffer append;
    struct table_refs *read_refs; /* read transactions: each table's refs, once read */
    cluster_hint *hints;          /* read transactions: each table's lookup hint (see table_refs_for_read) */
    column_scratch scratch;        /* compressed values handed out in this transaction */
    /* Compressed values the engine reads for itself (compared during a
     * search, hashed for an index): never handed out, so that a value the
     * caller passes in, read from the database, is not overwritten while
     * the engine still uses it. */
    column_scratch search_scratch;
    /* Compressed dictionary keys handed out (ce_dictionary_key_at): apart
     * from search_scratch, which a search through the keys for that very
     * key would overwrite while comparing. */
    column_scratch key_scratch;
} schema;

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
    free(loaded->read_refs);
    free(loaded->hints);
    free(loaded);
}

static bool out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory"); }

/* Recomputes a table's column list and primary key from its properties. */
static bool derive_columns(schema_table *table)
{
    cluster_column *columns = realloc(table->columns, (table->property_count + 1) * sizeof *columns);
    if (!columns) return out_of_memory();
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

static cluster_schema cluster_schema_of(const schema_table *table)
{
    return (cluster_schema){table->columns, table->property_count};
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
    if (!value_check_utf8(name, length) || memchr(name, 0, length)) {
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
static bool load_schema(ce_txn *txn, schema **out_schema)
{
    schema *loaded = db_txn_layer_state(txn);
    if (loaded) {
        *out_schema = loaded;
        return true;
    }
    loaded = calloc(1, sizeof *loaded);
    if (!loaded) return out_of_memory();
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

static bool find_table(ce_txn *txn, ce_table_key key, schema **out_schema, schema_table **out_table)
{
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    schema *loaded = NULL;
    if (!load_schema(txn, &loaded)) return false;
    if (key >= loaded->table_count || (loaded->tables[key].flags & TABLE_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_TABLE, "no table with key %u", (unsigned)key);
    *out_schema = loaded;
    *out_table = &loaded->tables[key];
    return true;
}

static bool find_column(const schema_table *table, ce_column_key column, const schema_property **out_property)
{
    if (column >= table->property_count || (table->properties[column].flags & PROPERTY_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_PROPERTY, "table '%s' has no property with key %u", table->name, (unsigned)column);
    *out_property = &table->properties[column];
    return true;
}

/* Whether a table's object keys follow its int primary key (the table
 * node's TABLE_KEYS_FOLLOW slot). Objects get the next key in creation
 * order; when ids are created in order too (an auto-incremented id, the
 * common case), every object's primary key is its key plus one constant,
 * and a lookup by primary key is a lookup by key: no index descent. The
 * first object after the primary key was added fixes the constant; an
 * object that breaks the rule (or a null key) turns it off for good. */
typedef enum keys_follow_state {
    KEYS_DO_NOT_FOLLOW, /* slot 0: lookups use the index */
    KEYS_FOLLOW_UNDECIDED, /* slot tag(0): no object since the primary key was added to the empty table */
    KEYS_FOLLOW,        /* slot tag(2 * offset + 1): every object's primary key is its key + offset */
} keys_follow_state;

/* The offset is stored doubled, so it must fit 61 bits. */
#define KEYS_FOLLOW_OFFSET_LIMIT (INT64_C(1) << 60)

/* A table node, read-only: its cluster tree, next key, index, and whether
 * its keys follow its primary key. */
typedef struct table_refs {
    space_ref table;
    space_ref cluster;
    int64_t next_key;
    space_ref indexes;
    keys_follow_state keys_follow;
    int64_t primary_key_offset; /* KEYS_FOLLOW: primary key - object key */
    cluster_hint *hint;         /* read transactions: the table's lookup hint; NULL in writes */
} table_refs;

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
                        (space_ref)indexes, KEYS_DO_NOT_FOLLOW, 0, NULL};
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

static bool flush_appends_of(ce_txn *txn, ce_table_key key);

/* A table's refs for reading. A read transaction's version never changes
 * under it: its table refs are read once, and come with the table's
 * cluster_hint (the leaf and root of its last lookup, so that reading
 * several properties of one object, or an object just found by its
 * primary key, reads the tree once). Both caches go with the layer state
 * when the transaction moves to another version. */
static bool table_refs_for_read(ce_txn *txn, ce_table_key key, table_refs *out)
{
    if (!flush_appends_of(txn, key)) return false;
    schema *loaded = db_txn_layer_state(txn);
    bool cacheable = loaded && !db_txn_space(txn)->writable && key < loaded->table_count;
    if (cacheable && loaded->read_refs && loaded->read_refs[key].table) {
        *out = loaded->read_refs[key];
        return true;
    }
    node_view group, tables;
    if (!read_group(txn, &group) || !node_read(db_txn_space(txn), (space_ref)node_get(&group, GROUP_TABLES), &tables))
        return false;
    if (key >= tables.count || !node_value_is_ref(node_get(&tables, key)))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: table %u has no node", (unsigned)key);
    if (!read_table_node(txn, (space_ref)node_get(&tables, key), out)) return false;
    if (cacheable) {
        if (!loaded->read_refs) loaded->read_refs = calloc(loaded->table_count + 1, sizeof *loaded->read_refs);
        if (!loaded->hints) loaded->hints = calloc(loaded->table_count + 1, sizeof *loaded->hints);
        if (loaded->hints) out->hint = &loaded->hints[key];
        if (loaded->read_refs) loaded->read_refs[key] = *out;
    }
    return true;
}

/* Makes the path group → tables → table writable and returns the table's refs. */
static bool table_refs_for_write(ce_txn *txn, ce_table_key key, table_refs *out)
{
    if (!flush_appends_of(txn, key)) return false;
    space_ref group, tables;
    if (!writable_group(txn, &group) || !writable_tables(txn, group, &tables)) return false;
    space_state *space = db_txn_space(txn);
    node_view view;
    if (!node_read(space, tables, &view)) return false;
    if (key >= view.count || !node_value_is_ref(node_get(&view, key)))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: table %u has no node", (unsigned)key);
    space_ref table = (space_ref)node_get(&view, key);
    if (!read_table_node(txn, table, out) || !node_make_writable(space, &table) ||
        !node_set(space, tables, key, (int64_t)table))
        return false;
    out->table = table;
    return true;
}

/* Stores changed refs back into a writable table node. */
static bool store_table_refs(ce_txn *txn, const table_refs *refs)
{
    space_state *space = db_txn_space(txn);
    int64_t follow = refs->keys_follow == KEYS_DO_NOT_FOLLOW     ? 0
                     : refs->keys_follow == KEYS_FOLLOW_UNDECIDED ? node_tag(0)
                                                                  : node_tag(2 * refs->primary_key_offset + 1);
    return node_set(space, refs->table, TABLE_CLUSTER, (int64_t)refs->cluster) &&
           node_set(space, refs->table, TABLE_NEXT_KEY, node_tag(refs->next_key)) &&
           node_set(space, refs->table, TABLE_INDEXES, (int64_t)refs->indexes) &&
           node_set(space, refs->table, TABLE_KEYS_FOLLOW, follow);
}

/* Keeps TABLE_KEYS_FOLLOW true for a new object of `key` whose primary key
 * is `primary_key` (the caller stores the refs). */
static void note_primary_key_of_new_object(table_refs *refs, ce_object_key key, const ce_value *primary_key)
{
    if (refs->keys_follow == KEYS_DO_NOT_FOLLOW) return;
    int64_t offset;
    if (primary_key->type != CE_TYPE_INT || __builtin_sub_overflow(primary_key->integer, key, &offset) ||
        offset >= KEYS_FOLLOW_OFFSET_LIMIT || offset <= -KEYS_FOLLOW_OFFSET_LIMIT ||
        (refs->keys_follow == KEYS_FOLLOW && offset != refs->primary_key_offset)) {
        refs->keys_follow = KEYS_DO_NOT_FOLLOW;
        return;
    }
    refs->keys_follow = KEYS_FOLLOW;
    refs->primary_key_offset = offset;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */
/* Indexes: one per indexed column, the primary key's among them             */
/* ------------------------------------------------------------------------ */

static bool indexable_type(ce_type type)
{
    return type == CE_TYPE_INT || type == CE_TYPE_BOOL || type == CE_TYPE_STRING || type == CE_TYPE_TIMESTAMP ||
           type == CE_TYPE_OBJECT_ID || type == CE_TYPE_UUID;
}

/* The integer a value is indexed under: ints and bools as themselves, null
 * as INT64_MIN, everything else as its hash. Lookups compare the actual
 * values of the candidates, so collisions cost time, never correctness. */
static int64_t index_key_of(const ce_value *value)
{
    if (value->type == CE_TYPE_INT) return value->integer;
    if (value->type == CE_TYPE_BOOL) return value->boolean;
    if (value->type == CE_TYPE_NULL) return INT64_MIN;
    return (int64_t)value_hash(value);
}

/* The root of a column's index, or 0. */
static bool column_index(ce_txn *txn, const table_refs *refs, size_t column, space_ref *out_index)
{
    *out_index = 0;
    if (!refs->indexes) return true;
    node_view list;
    if (!node_read(db_txn_space(txn), refs->indexes, &list)) return false;
    if ((list.flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the index list at %llu is damaged",
                       (unsigned long long)refs->indexes);
    if (column >= list.count) return true;
    int64_t root = node_get(&list, column);
    if (root != 0 && !node_value_is_ref(root))
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: the index list at %llu is damaged",
                       (unsigned long long)refs->indexes);
    *out_index = (space_ref)root;
    return true;
}

/* Stores a column's index root in the index list (made writable, created,
 * or grown to the table's column count as needed). */
static bool set_column_index(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, space_ref index)
{
    space_state *space = db_txn_space(txn);
    if (!refs->indexes) {
        if (!node_create(space, NODE_HAS_REFS, table->property_count, 0, &refs->indexes)) return false;
    } else if (!node_make_writable(space, &refs->indexes)) {
        return false;
    }
    node_view list;
    if (!node_read(space, refs->indexes, &list)) return false;
    for (size_t count = list.count; count < table->property_count; count++)
        if (!node_append(space, refs->indexes, 0)) return false;
    return node_set(space, refs->indexes, column, (int64_t)index);
}

static bool column_is_indexed(const schema_table *table, size_t column)
{
    uint8_t flags = table->properties[column].flags;
    return (flags & PROPERTY_INDEXED) && !(flags & PROPERTY_REMOVED);
}

/* Adds (or removes) an object's entry in one column's index. */
static bool update_index(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, const ce_value *value,
                         ce_object_key object, bool insert)
{
    space_ref root;
    if (!column_index(txn, refs, column, &root)) return false;
    if (!root) return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s.%s' is indexed but has no index",
                              table->name, table->properties[column].name);
    space_state *space = db_txn_space(txn);
    bool ok = insert ? index_insert(space, &root, index_key_of(value), object)
                     : index_erase(space, &root, index_key_of(value), object);
    return ok && set_column_index(txn, refs, table, column, root);
}

typedef struct value_search {
    ce_txn *txn;
    schema *schema;
    const table_refs *refs;
    const schema_table *table;
    size_t column;
    const ce_value *wanted;
    ce_object_key found_key;
    bool found;
} value_search;

static bool check_candidate(void *context, int64_t key, int64_t object, bool *stop)
{
    (void)key;
    value_search *search = context;
    ce_value actual;
    cluster_schema columns = cluster_schema_of(search->table);
    if (!cluster_get(db_txn_space(search->txn), search->refs->cluster, &columns, object, search->column,
                     &search->schema->search_scratch, NULL, &actual))
        return false;
    if (value_equal(&actual, search->wanted)) {
        search->found = true;
        search->found_key = object;
        *stop = true;
    }
    return true;
}

/* Checks every object of a leaf against the wanted value (a search without an index). */
static bool scan_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    value_search *search = context;
    const cluster_column *spec = &search->table->columns[search->column];
    space_ref column = cluster_leaf_column(leaf, search->column);
    for (size_t i = 0; i < leaf->key_offsets.count; i++) {
        ce_value actual;
        if (!column_get(db_txn_space(search->txn), column, spec->type, spec->nullable, i,
                        &search->schema->search_scratch, &actual))
            return false;
        if (value_equal(&actual, search->wanted)) {
            search->found = true;
            search->found_key = cluster_leaf_key(leaf, i);
            *stop = true;
            return true;
        }
    }
    return true;
}

/* The first object (in key order) whose `column` equals `value`: through
 * the column's index if it has one, else by a scan. */
static bool find_by_value(ce_txn *txn, schema *loaded, const table_refs *refs, const schema_table *table, size_t column,
                          const ce_value *value, ce_object_key *out_key, bool *out_found)
{
    if (column == table->primary_key && refs->keys_follow != KEYS_DO_NOT_FOLLOW && value->type == CE_TYPE_INT) {
        /* The keys follow the primary key: the object is the one with the
         * key it implies, if it exists (see keys_follow_state). */
        ce_object_key object;
        *out_found = false;
        if (refs->keys_follow == KEYS_FOLLOW_UNDECIDED ||
            __builtin_sub_overflow(value->integer, refs->primary_key_offset, &object) || object < 0 ||
            object >= refs->next_key)
            return true;
        cluster_position position;
        if (!cluster_find(db_txn_space(txn), refs->cluster, object, &position, out_found, refs->hint)) return false;
        *out_key = object;
        return true;
    }
    value_search search = {txn, loaded, refs, table, column, value, 0, false};
    space_ref root = 0;
    if (column_is_indexed(table, column) && !column_index(txn, refs, column, &root)) return false;
    if (root && ((value->type == CE_TYPE_INT && value->integer != INT64_MIN) || value->type == CE_TYPE_BOOL)) {
        /* A non-null int or bool is its own index key (INT64_MIN excepted:
         * null shares it): the index's first entry for it is the answer,
         * with no candidate to re-read. */
        int64_t object;
        if (!index_find_first(db_txn_space(txn), root, index_key_of(value), &object, out_found)) return false;
        *out_key = object;
        return true;
    }
    bool ok = root ? index_for_each_with_key(db_txn_space(txn), root, index_key_of(value), check_candidate, &search)
                   : cluster_for_each_leaf(db_txn_space(txn), refs->cluster, column, scan_leaf, &search);
    if (!ok) return false;
    *out_found = search.found;
    *out_key = search.found_key;
    return true;
}

/* Builds a column's index from the objects a table has (a property made
 * indexed, or added indexed, to a table with objects). */
typedef struct index_build {
    ce_txn *txn;
    schema *schema;
    const schema_table *table;
    size_t column;
    space_ref root;
} index_build;

static bool index_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    (void)stop;
    index_build *build = context;
    const cluster_column *spec = &build->table->columns[build->column];
    space_state *space = db_txn_space(build->txn);
    for (size_t i = 0; i < leaf->key_offsets.count; i++) {
        ce_value value;
        if (!column_get(space, cluster_leaf_column(leaf, build->column), spec->type, spec->nullable, i,
                        &build->schema->search_scratch, &value) ||
            !index_insert(space, &build->root, index_key_of(&value), cluster_leaf_key(leaf, i)))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

static bool delete_object(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, unsigned depth);
static bool remove_backlink_columns(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column);

static bool check_name(const char *name, const char *what)
{
    if (!name) return error_fail(CE_ERR_INVALID_ARGUMENT, "a %s name is required", what);
    size_t length = strlen(name);
    if (length == 0 || length > NAME_MAX_BYTES || !value_check_utf8(name, length))
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
    if (!load_schema(txn, &loaded)) return false;
    *out_count = loaded->table_count;
    return true;
}

bool ce_table_find(ce_txn *txn, const char *name, ce_table_key *out_table, bool *out_found)
{
    if (!txn || !name || !out_table || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_find: arguments are required");
    schema *loaded = NULL;
    if (!load_schema(txn, &loaded)) return false;
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
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_name = table->name;
    return true;
}

static bool add_table(ce_txn *txn, const char *name, uint8_t flags, ce_table_key *out_table)
{
    schema *loaded = NULL;
    bool found;
    ce_table_key existing;
    if (!db_txn_require_write(txn) || !check_name(name, "table") || !out_table) return false;
    if (!ce_table_find(txn, name, &existing, &found) || !load_schema(txn, &loaded)) return false;
    if (found) return error_fail(CE_ERR_DUPLICATE_NAME, "a table named '%s' exists already", name);
    schema_table *grown = realloc(loaded->tables, (loaded->table_count + 1) * sizeof *grown);
    if (!grown) return out_of_memory();
    loaded->tables = grown;
    schema_table *table = &loaded->tables[loaded->table_count];
    memset(table, 0, sizeof *table);
    table->name = strdup(name);
    table->flags = flags;
    table->primary_key = NO_PRIMARY_KEY;
    if (!table->name || !derive_columns(table)) return out_of_memory();
    loaded->table_count++;

    space_state *space = db_txn_space(txn);
    space_ref group, tables, table_node, cluster;
    cluster_schema empty = cluster_schema_of(table);
    if (!store_schema(txn, loaded) || !writable_group(txn, &group) || !writable_tables(txn, group, &tables) ||
        !cluster_create(space, &empty, &cluster) || !node_create(space, NODE_HAS_REFS, TABLE_COUNT, 0, &table_node) ||
        !node_set(space, table_node, TABLE_CLUSTER, (int64_t)cluster) ||
        !node_set(space, table_node, TABLE_NEXT_KEY, node_tag(0)) || !node_append(space, tables, (int64_t)table_node))
        return false;
    *out_table = (ce_table_key)(loaded->table_count - 1);
    return true;
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
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_embedded = (table->flags & TABLE_EMBEDDED) != 0;
    return true;
}

static bool property_is_live(const schema_property *property)
{
    return !(property->flags & PROPERTY_REMOVED);
}

/* A property that holds links (to-one, collections of links, mixed). */
static bool property_holds_links(const schema_property *property)
{
    return property_is_live(property) && !(property->flags & PROPERTY_BACKLINK) &&
           (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED);
}

bool ce_table_remove(ce_txn *txn, ce_table_key key)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    for (size_t t = 0; t < loaded->table_count; t++) {
        const schema_table *other = &loaded->tables[t];
        if (t == key || (other->flags & TABLE_REMOVED)) continue;
        for (size_t p = 0; p < other->property_count; p++) {
            const schema_property *property = &other->properties[p];
            if (property_holds_links(property) && property->type == CE_TYPE_LINK && property->link_target == key)
                return error_fail(CE_ERR_INVALID_SCHEMA, "table '%s' cannot be removed: property '%s.%s' links to it",
                               table->name, other->name, property->name);
        }
    }
    /* Deleting the objects one by one clears every link into them (mixed
     * links from other tables included) and out of them. */
    for (;;) {
        size_t count;
        ce_object_key object;
        if (!table_refs_for_read(txn, key, &refs) || !cluster_count(db_txn_space(txn), refs.cluster, &count)) return false;
        if (count == 0) break;
        if (!cluster_key_at(db_txn_space(txn), refs.cluster, 0, NULL, &object) || !delete_object(txn, loaded, key, object, 0))
            return false;
    }
    for (size_t p = 0; p < table->property_count; p++)
        if (property_holds_links(&table->properties[p]) && !remove_backlink_columns(txn, loaded, key, p)) return false;
    if (!table_refs_for_write(txn, key, &refs)) return false;
    space_state *space = db_txn_space(txn);
    space_ref group, tables;
    /* The index list is a has-refs tree: freeing it frees every index. */
    if (!cluster_destroy(space, refs.cluster) || (refs.indexes && !node_free_tree(space, refs.indexes)) ||
        !node_free(space, refs.table) || !writable_group(txn, &group) || !writable_tables(txn, group, &tables) ||
        !node_set(space, tables, key, 0))
        return false;
    table->flags |= TABLE_REMOVED;
    return store_schema(txn, loaded);
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
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        if (property_is_live(&table->properties[p]) && strcmp(table->properties[p].name, name) == 0) {
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
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_count = table->property_count;
    return true;
}

bool ce_property_get_info(ce_txn *txn, ce_table_key key, ce_column_key column, ce_property_info *out_info)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!out_info) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_get_info: out_info is required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property)) return false;
    bool backlink = (property->flags & PROPERTY_BACKLINK) != 0;
    *out_info = (ce_property_info){
        .name = property->name,
        .type = property->type,
        /* Every mixed value may be null, a collection's elements too (as
         * spec_of_property treats them), whatever the flag says. */
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
/* Builds a column's index from the objects the table has and stores its root. */
static bool build_column_index(ce_txn *txn, schema *loaded, table_refs *refs, const schema_table *table, size_t column)
{
    space_state *space = db_txn_space(txn);
    index_build build = {txn, loaded, table, column, 0};
    return index_create(space, &build.root) &&
           cluster_for_each_leaf(space, refs->cluster, column, index_leaf, &build) &&
           set_column_index(txn, refs, table, column, build.root);
}

static bool append_property(ce_txn *txn, schema *loaded, ce_table_key key, const schema_property *definition,
                            size_t *out_column)
{
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!table_refs_for_write(txn, key, &refs)) return false;
    schema_property *grown = realloc(table->properties, (table->property_count + 1) * sizeof *grown);
    if (!grown) return out_of_memory();
    table->properties = grown;
    schema_property *property = &table->properties[table->property_count];
    *property = *definition;
    property->name = strdup(definition->name);
    if (!property->name) return out_of_memory();
    table->property_count++;
    if (!derive_columns(table)) return false;
    cluster_schema columns = cluster_schema_of(table);
    space_state *space = db_txn_space(txn);
    size_t column = table->property_count - 1;
    if (!cluster_add_column(space, &refs.cluster, &columns, column)) return false;
    /* Existing objects have the default value: index them. */
    if (column_is_indexed(table, column) && !build_column_index(txn, loaded, &refs, table, column)) return false;
    /* A primary key is only added to an empty table. */
    if (definition->flags & PROPERTY_PRIMARY)
        refs.keys_follow = definition->type == CE_TYPE_INT ? KEYS_FOLLOW_UNDECIDED : KEYS_DO_NOT_FOLLOW;
    if (!store_table_refs(txn, &refs) || !store_schema(txn, loaded)) return false;
    *out_column = column;
    return true;
}

/* The backlink column of `target` for links from origin_table.origin_column. */
static bool find_backlink_column(const schema_table *target, ce_table_key origin_table, size_t origin_column,
                                 size_t *out_column, bool *out_found)
{
    *out_found = false;
    for (size_t p = 0; p < target->property_count; p++) {
        const schema_property *property = &target->properties[p];
        if (property_is_live(property) && (property->flags & PROPERTY_BACKLINK) && property->link_target == origin_table &&
            property->origin_column == origin_column) {
            *out_column = p;
            *out_found = true;
            return true;
        }
    }
    return true;
}

/* Finds or adds the backlink column (mixed links add theirs on first use). */
static bool ensure_backlink_column(ce_txn *txn, schema *loaded, ce_table_key target_key, ce_table_key origin_table,
                                   size_t origin_column, size_t *out_column)
{
    bool found;
    if (!find_backlink_column(&loaded->tables[target_key], origin_table, origin_column, out_column, &found)) return false;
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
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !check_name(info->name, "property"))
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
        if (!table_refs_for_read(txn, key, &refs) || !cluster_count(db_txn_space(txn), refs.cluster, &objects)) return false;
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
    if (info->type == CE_TYPE_LINK && !ensure_backlink_column(txn, loaded, info->link_target, key, column, &backlink))
        return false;
    *out_column = (ce_column_key)column;
    return true;
}

bool ce_property_set_indexed(ce_txn *txn, ce_table_key key, ce_column_key column, bool indexed)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    ce_property_info info;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
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
    if (!table_refs_for_write(txn, key, &refs)) return false;
    schema_property *changed = &table->properties[column];
    if (indexed) {
        changed->flags |= PROPERTY_INDEXED;
        if (!build_column_index(txn, loaded, &refs, table, column)) return false;
    } else {
        space_ref root;
        if (!column_index(txn, &refs, column, &root)) return false;
        if (root && (!index_destroy(db_txn_space(txn), root) || !set_column_index(txn, &refs, table, column, 0)))
            return false;
        changed->flags &= (uint8_t)~PROPERTY_INDEXED;
    }
    return derive_columns(table) && store_table_refs(txn, &refs) && store_schema(txn, loaded);
}

/* Removes one column of a table (its values, its index) from the schema. */
static bool remove_column(ce_txn *txn, schema *loaded, ce_table_key key, size_t column)
{
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!table_refs_for_write(txn, key, &refs)) return false;
    space_state *space = db_txn_space(txn);
    cluster_schema columns = cluster_schema_of(table);
    if (!cluster_remove_column(space, &refs.cluster, &columns, column)) return false;
    space_ref index;
    if (!column_index(txn, &refs, column, &index)) return false;
    if (index && (!index_destroy(space, index) || !set_column_index(txn, &refs, table, column, 0))) return false;
    if (column == table->primary_key) refs.keys_follow = KEYS_DO_NOT_FOLLOW;
    table->properties[column].flags |= PROPERTY_REMOVED;
    return derive_columns(table) && store_table_refs(txn, &refs) && store_schema(txn, loaded);
}

/* Removes the backlink columns that record the links of origin_table.origin_column. */
static bool remove_backlink_columns(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column)
{
    for (size_t t = 0; t < loaded->table_count; t++) {
        if (loaded->tables[t].flags & TABLE_REMOVED) continue;
        size_t column;
        bool found;
        if (!find_backlink_column(&loaded->tables[t], origin_table, origin_column, &column, &found)) return false;
        if (found && !remove_column(txn, loaded, (ce_table_key)t, column)) return false;
    }
    return true;
}

static bool clear_links_of_column(ce_txn *txn, schema *loaded, ce_table_key key, size_t column);

bool ce_property_remove(ce_txn *txn, ce_table_key key, ce_column_key column)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !find_column(table, column, &property))
        return false;
    if (property->flags & PROPERTY_BACKLINK)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s.%s' is a backlink property: it goes with the link property it records",
                       table->name, property->name);
    if (property_holds_links(property) &&
        (!clear_links_of_column(txn, loaded, key, column) || !remove_backlink_columns(txn, loaded, key, column)))
        return false;
    return remove_column(txn, loaded, key, column);
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

/* ------------------------------------------------------------------------ */
/* Values: the checks that name the table and property                     */
/* ------------------------------------------------------------------------ */

static void describe_value(const ce_value *value, char *text, size_t size)
{
    switch (value->type) {
    case CE_TYPE_NULL: snprintf(text, size, "null"); break;
    case CE_TYPE_INT: snprintf(text, size, "%lld", (long long)value->integer); break;
    case CE_TYPE_BOOL: snprintf(text, size, "%s", value->boolean ? "true" : "false"); break;
    case CE_TYPE_DOUBLE: snprintf(text, size, "%g", value->double_value); break;
    case CE_TYPE_FLOAT: snprintf(text, size, "%g", (double)value->float_value); break;
    case CE_TYPE_STRING:
        snprintf(text, size, "'%.*s'", value->string.size > 40 ? 40 : (int)value->string.size,
                 value->string.data ? value->string.data : "");
        break;
    case CE_TYPE_LINK:
        snprintf(text, size, "a link to object %lld of table %u", (long long)value->link.key, (unsigned)value->link.table);
        break;
    default: snprintf(text, size, "a %s", ce_type_name(value->type)); break;
    }
}

/* What one value slot holds: a property of one value, or the elements of a
 * collection, and the names messages give it ("Person.dogs"). */
typedef struct element_spec {
    ce_type type;            /* LINK, MIXED or a scalar type */
    bool nullable;
    ce_table_key link_target; /* LINK */
    bool in_set;             /* sets hold no nested collections */
    const char *table_name;  /* for messages: "table.property" */
    const char *property_name;
} element_spec;

/* The "%s.%s" arguments that name a spec's property in a message. */
#define SPEC_WHERE(spec) (spec)->table_name, (spec)->property_name

static element_spec spec_of_property(const schema_table *table, const schema_property *property)
{
    element_spec spec = {property->type, (property->flags & PROPERTY_NULLABLE) != 0, property->link_target,
                         property->collection == CE_COLLECTION_SET, table->name, property->name};
    if (property->type == CE_TYPE_MIXED) spec.nullable = true;
    return spec;
}

/* The column type and nullability an element is stored with. */
static void storage_of(const element_spec *spec, ce_type *out_type, bool *out_nullable)
{
    *out_type = spec->type == CE_TYPE_LINK ? CE_TYPE_INT : spec->type == CE_TYPE_MIXED ? COLUMN_TYPE_OWNED_REFS : spec->type;
    *out_nullable = spec->type != CE_TYPE_LINK && spec->type != CE_TYPE_MIXED && spec->nullable;
}

static bool check_scalar_bytes(const element_spec *spec, const ce_value *value)
{
    if (value->type == CE_TYPE_STRING && !value_check_utf8(value->string.data, value->string.size))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': the string is not valid UTF-8", SPEC_WHERE(spec));
    /* The column layer refuses a malformed timestamp too, but only when it
     * writes the value: after cluster_insert has inserted the object's key
     * and the values of the columns before it (create with values), or
     * after the index has traded the old value for the new one (a set of an
     * indexed timestamp). Checked here, a bad value changes nothing. */
    if (value->type == CE_TYPE_TIMESTAMP && !value_timestamp_is_valid(value->timestamp))
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                       "property '%s.%s': the timestamp (%lld s, %d ns) is malformed: nanoseconds must lie within "
                       "+-999999999 and have the sign of seconds",
                       SPEC_WHERE(spec), (long long)value->timestamp.seconds, (int)value->timestamp.nanoseconds);
    if ((value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) && value->string.size > 0 && !value->string.data)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': a value of %zu bytes has no data", SPEC_WHERE(spec),
                       value->string.size);
    if ((value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) && value->string.size > NODE_MAX_COUNT - 1)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': a value of %zu bytes is too large", SPEC_WHERE(spec),
                       value->string.size);
    return true;
}

static bool object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists);

/* The target of a link being stored: a live table (the property's target,
 * for a typed link), an existing object, and not an embedded one (those are
 * linked only when created, through their parent). */
static bool check_link_target(ce_txn *txn, schema *loaded, const element_spec *spec, ce_link link)
{
    if (spec->type == CE_TYPE_LINK && link.table != spec->link_target)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' links to table '%s', not to table %u", SPEC_WHERE(spec),
                       loaded->tables[spec->link_target].name, (unsigned)link.table);
    if (link.table >= loaded->table_count || (loaded->tables[link.table].flags & TABLE_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_TABLE, "property '%s.%s': no table with key %u to link to", SPEC_WHERE(spec),
                       (unsigned)link.table);
    const schema_table *target = &loaded->tables[link.table];
    if (target->flags & TABLE_EMBEDDED)
        return error_fail(CE_ERR_EMBEDDED_OBJECT,
                       "property '%s.%s': cannot set a link to an existing managed embedded object of type '%s' (create it "
                       "through its parent instead)",
                       SPEC_WHERE(spec), target->name);
    bool exists;
    if (!object_exists(txn, link.table, link.key, &exists)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "property '%s.%s': the linked object %lld of type '%s' does not exist",
                       SPEC_WHERE(spec), (long long)link.key, target->name);
    return true;
}

/* Checks a value for an element (or a property of one value). */
static bool check_element(ce_txn *txn, schema *loaded, const element_spec *spec, const ce_value *value)
{
    if (!value) return error_fail(CE_ERR_INVALID_ARGUMENT, "a value is required");
    if (value->type == CE_TYPE_NULL) {
        if (spec->nullable) return true;
        return error_fail(CE_ERR_NULL_NOT_ALLOWED, "property '%s.%s' is required: it cannot be null", SPEC_WHERE(spec));
    }
    if (spec->type == CE_TYPE_MIXED) {
        if ((unsigned)value->type > CE_TYPE_DICTIONARY || value->type == CE_TYPE_MIXED)
            return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is mixed: it cannot hold a value of type %d", SPEC_WHERE(spec),
                           (int)value->type);
        if (spec->in_set && (value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY))
            return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': a set cannot hold a nested collection", SPEC_WHERE(spec));
        if (value->type == CE_TYPE_LINK) return check_link_target(txn, loaded, spec, value->link);
        return check_scalar_bytes(spec, value);
    }
    if (value->type != spec->type) {
        char text[96];
        describe_value(value, text, sizeof text);
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is of type %s, not %s (value %s)", SPEC_WHERE(spec),
                       ce_type_name(spec->type), ce_type_name(value->type), text);
    }
    if (value->type == CE_TYPE_LINK) return check_link_target(txn, loaded, spec, value->link);
    return check_scalar_bytes(spec, value);
}

static bool not_one_value(const schema_table *table, const schema_property *property)
{
    if (property->flags & PROPERTY_BACKLINK)
        return error_fail(CE_ERR_WRONG_TYPE, "'%s.%s' is a backlink property: read it with ce_object_backlink_count",
                       table->name, property->name);
    return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is a %s: open it with ce_collection_open", table->name,
                   property->name,
                   property->collection == CE_COLLECTION_LIST ? "list"
                   : property->collection == CE_COLLECTION_SET ? "set"
                                                               : "dictionary");
}

static bool holds_one_value(const schema_property *property)
{
    return property->collection == CE_COLLECTION_NONE && !(property->flags & PROPERTY_BACKLINK);
}

static bool check_value(ce_txn *txn, schema *loaded, const schema_table *table, const schema_property *property,
                        const ce_value *value)
{
    if (!holds_one_value(property)) return not_one_value(table, property);
    element_spec spec = spec_of_property(table, property);
    return check_element(txn, loaded, &spec, value);
}

/* Checks one value per column slot (a whole object's values). Collection
 * and backlink slots take null (a new object's collections are empty). */
static bool check_values(ce_txn *txn, schema *loaded, const schema_table *table, const ce_value *values,
                         size_t value_count)
{
    if (value_count != table->property_count)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has %zu column slots, %zu values were given", table->name,
                       table->property_count, value_count);
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (!property_is_live(property)) continue;
        if (!holds_one_value(property)) {
            if (values[c].type != CE_TYPE_NULL) return not_one_value(table, property);
            continue;
        }
        const ce_value *value = &values[c];
        /* The common case first: a value of the property's scalar type that
         * needs no further check (check_value finds and words any fault). */
        if (value->type == property->type && value->type != CE_TYPE_STRING && value->type != CE_TYPE_BINARY &&
            value->type != CE_TYPE_TIMESTAMP && value->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED)
            continue;
        if (value->type == CE_TYPE_STRING && property->type == CE_TYPE_STRING && value->string.size < 4096 &&
            (value->string.data || value->string.size == 0) && value_check_utf8(value->string.data, value->string.size))
            continue;
        if (!check_value(txn, loaded, table, property, value)) return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Mixed values: a tree owned by the element that holds it                   */
/*   0                       null                                            */
/*   NODE_BYTES node          [u8 type, the value's bytes]: a scalar or link */
/*   NODE_HAS_REFS node of 2  [tagged CE_TYPE_LIST/DICTIONARY, collection]   */
/* ------------------------------------------------------------------------ */

static void put_le(uint8_t *target, uint64_t value, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++) target[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t *source, size_t bytes)
{
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; i++) value |= (uint64_t)source[i] << (8 * i);
    return value;
}

/* The fixed payload size of a mixed scalar, or SIZE_MAX for strings and binaries. */
static size_t mixed_payload_size(ce_type type)
{
    switch (type) {
    case CE_TYPE_INT:
    case CE_TYPE_DOUBLE: return 8;
    case CE_TYPE_BOOL: return 1;
    case CE_TYPE_FLOAT: return 4;
    case CE_TYPE_TIMESTAMP:
    case CE_TYPE_LINK:
    case CE_TYPE_OBJECT_ID: return 12;
    case CE_TYPE_DECIMAL128:
    case CE_TYPE_UUID: return 16;
    default: return SIZE_MAX;
    }
}

static bool mixed_create(space_state *space, const ce_value *value, space_ref *out_ref)
{
    if (value->type == CE_TYPE_NULL) {
        *out_ref = 0;
        return true;
    }
    if (value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY)
        return node_create(space, NODE_HAS_REFS, 2, 0, out_ref) &&
               node_set(space, *out_ref, 0, node_tag(value->type));
    size_t size = mixed_payload_size(value->type);
    const void *variable = NULL;
    if (size == SIZE_MAX) {
        size = value->string.size;
        variable = value->type == CE_TYPE_STRING ? (const void *)value->string.data : (const void *)value->binary.data;
    }
    uint8_t *bytes = malloc(size + 1);
    if (!bytes) return out_of_memory();
    bytes[0] = (uint8_t)value->type;
    uint8_t *payload = bytes + 1;
    switch (value->type) {
    case CE_TYPE_INT: put_le(payload, (uint64_t)value->integer, 8); break;
    case CE_TYPE_BOOL: payload[0] = value->boolean ? 1 : 0; break;
    case CE_TYPE_FLOAT: memcpy(payload, &value->float_value, 4); break;
    case CE_TYPE_DOUBLE: memcpy(payload, &value->double_value, 8); break;
    case CE_TYPE_TIMESTAMP:
        put_le(payload, (uint64_t)value->timestamp.seconds, 8);
        put_le(payload + 8, (uint32_t)value->timestamp.nanoseconds, 4);
        break;
    case CE_TYPE_DECIMAL128:
        put_le(payload, value->decimal.low, 8);
        put_le(payload + 8, value->decimal.high, 8);
        break;
    case CE_TYPE_OBJECT_ID: memcpy(payload, value->object_id.bytes, 12); break;
    case CE_TYPE_UUID: memcpy(payload, value->uuid.bytes, 16); break;
    case CE_TYPE_LINK:
        put_le(payload, value->link.table, 4);
        put_le(payload + 4, (uint64_t)value->link.key, 8);
        break;
    default:
        if (size) memcpy(payload, variable, size);
        break;
    }
    bool ok = node_create_bytes(space, 0, bytes, size + 1, out_ref);
    free(bytes);
    return ok;
}

static bool mixed_corrupt(space_ref ref, const char *detail)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: the mixed value at offset %llu is damaged: %s",
                   (unsigned long long)ref, detail);
}

/* Reads a mixed value; a nested collection gives CE_TYPE_LIST or
 * CE_TYPE_DICTIONARY and, in *out_root (may be NULL), its collection. */
static bool mixed_read(const space_state *space, space_ref ref, ce_value *out_value, space_ref *out_root)
{
    memset(out_value, 0, sizeof *out_value);
    if (out_root) *out_root = 0;
    if (ref == 0) return true;
    node_view node;
    if (!node_read(space, ref, &node)) return false;
    if (node.flags == NODE_HAS_REFS) {
        int64_t tag = node_get(&node, 0), root = node.count == 2 ? node_get(&node, 1) : 1;
        if (node.count != 2 || !(tag & 1) || (node_untag(tag) != CE_TYPE_LIST && node_untag(tag) != CE_TYPE_DICTIONARY))
            return mixed_corrupt(ref, "a nested collection node has a bad shape");
        if (root != 0 && (!node_value_is_ref(root) || (!ref_is_temporary(ref) && ref_is_temporary((space_ref)root))))
            return mixed_corrupt(ref, "a nested collection has a bad ref");
        out_value->type = (ce_type)node_untag(tag);
        if (out_root) *out_root = (space_ref)root;
        return true;
    }
    if (node.flags != NODE_BYTES || node.count < 1) return mixed_corrupt(ref, "not a mixed value node");
    ce_type type = (ce_type)node.payload[0];
    const uint8_t *payload = node.payload + 1;
    size_t size = node.count - 1, expected = mixed_payload_size(type);
    if (type < CE_TYPE_INT || type > CE_TYPE_LINK || type == CE_TYPE_MIXED ||
        (expected != SIZE_MAX && size != expected))
        return mixed_corrupt(ref, "bad type or size");
    out_value->type = type;
    switch (type) {
    case CE_TYPE_INT: out_value->integer = (int64_t)get_le(payload, 8); break;
    case CE_TYPE_BOOL:
        if (payload[0] > 1) return mixed_corrupt(ref, "a bool is neither 0 nor 1");
        out_value->boolean = payload[0] == 1;
        break;
    case CE_TYPE_FLOAT: memcpy(&out_value->float_value, payload, 4); break;
    case CE_TYPE_DOUBLE: memcpy(&out_value->double_value, payload, 8); break;
    case CE_TYPE_TIMESTAMP:
        out_value->timestamp.seconds = (int64_t)get_le(payload, 8);
        out_value->timestamp.nanoseconds = (int32_t)(uint32_t)get_le(payload + 8, 4);
        if (!value_timestamp_is_valid(out_value->timestamp)) return mixed_corrupt(ref, "a malformed timestamp");
        break;
    case CE_TYPE_DECIMAL128:
        out_value->decimal.low = get_le(payload, 8);
        out_value->decimal.high = get_le(payload + 8, 8);
        break;
    case CE_TYPE_OBJECT_ID: memcpy(out_value->object_id.bytes, payload, 12); break;
    case CE_TYPE_UUID: memcpy(out_value->uuid.bytes, payload, 16); break;
    case CE_TYPE_LINK:
        out_value->link.table = (ce_table_key)get_le(payload, 4);
        out_value->link.key = (int64_t)get_le(payload + 4, 8);
        if (out_value->link.key < 0) return mixed_corrupt(ref, "a link to a negative key");
        break;
    case CE_TYPE_STRING:
        out_value->string.data = (const char *)payload;
        out_value->string.size = size;
        break;
    default:
        out_value->binary.data = payload;
        out_value->binary.size = size;
        break;
    }
    return true;
}

/* A value as stored in its column or collection (links as key + 1, mixed
 * values as the ref of a new tree). Checked before. */
static bool encode_element(space_state *space, const element_spec *spec, const ce_value *value, ce_value *out_stored)
{
    if (spec->type == CE_TYPE_LINK) {
        *out_stored = (ce_value){.type = CE_TYPE_INT, .integer = value->type == CE_TYPE_NULL ? 0 : value->link.key + 1};
        return true;
    }
    if (spec->type == CE_TYPE_MIXED) {
        space_ref ref;
        if (!mixed_create(space, value, &ref)) return false;
        *out_stored = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)ref};
        return true;
    }
    *out_stored = *value;
    return true;
}

static bool decode_element(const space_state *space, const element_spec *spec, const ce_value *stored, ce_value *out_value)
{
    if (spec->type == CE_TYPE_LINK) {
        if (stored->type != CE_TYPE_INT || stored->integer < 0)
            return error_fail(CE_ERR_CORRUPT, "invalid database: property '%s.%s' holds a bad link", SPEC_WHERE(spec));
        if (stored->integer == 0) *out_value = (ce_value){.type = CE_TYPE_NULL};
        else *out_value = (ce_value){.type = CE_TYPE_LINK, .link = {spec->link_target, stored->integer - 1}};
        return true;
    }
    if (spec->type == CE_TYPE_MIXED) return mixed_read(space, (space_ref)stored->integer, out_value, NULL);
    *out_value = *stored;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Stored values of one object                                               */
/* ------------------------------------------------------------------------ */

static bool read_stored(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                        ce_value *out_stored)
{
    table_refs refs;
    cluster_schema columns = cluster_schema_of(&loaded->tables[key]);
    return table_refs_for_read(txn, key, &refs) &&
           cluster_get(db_txn_space(txn), refs.cluster, &columns, object, column, &loaded->scratch,
                       refs.hint, out_stored);
}

static bool write_stored(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                         const ce_value *stored)
{
    table_refs refs;
    cluster_schema columns = cluster_schema_of(&loaded->tables[key]);
    return table_refs_for_write(txn, key, &refs) &&
           cluster_set(db_txn_space(txn), &refs.cluster, &columns, object, column, stored) && store_table_refs(txn, &refs);
}

static ce_value stored_ref(space_ref ref) { return (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)ref}; }

static bool object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists)
{
    table_refs refs;
    cluster_position position;
    return table_refs_for_read(txn, key, &refs) &&
           cluster_find(db_txn_space(txn), refs.cluster, object, &position, out_exists, NULL);
}

static bool require_object(ce_txn *txn, const table_refs *refs, const schema_table *table, ce_object_key object)
{
    bool exists;
    cluster_position position;
    if (!cluster_find(db_txn_space(txn), refs->cluster, object, &position, &exists, NULL)) return false;
    if (!exists)
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld of type '%s' does not exist (it was deleted, or never existed)",
                       (long long)object, table->name);
    return true;
}

/* After a call into the cluster tree failed, which reports a missing
 * object itself: that error gets require_object's message, which names the
 * table (one descent for the call, a second only on this error path). */
static bool fail_for_missing_object(ce_txn *txn, const table_refs *refs, const schema_table *table,
                                    ce_object_key object)
{
    if (ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT) (void)require_object(txn, refs, table, object);
    return false;
}

/* A dictionary is 0 or a NODE_HAS_REFS node [keys, values]: two
 * collections of the same size, keys sorted bytewise. */
static bool dictionary_parts(const space_state *space, space_ref dictionary, space_ref *out_keys, space_ref *out_values)
{
    *out_keys = *out_values = 0;
    if (dictionary == 0) return true;
    node_view node;
    if (!node_read(space, dictionary, &node)) return false;
    int64_t keys = node.count == 2 ? node_get(&node, 0) : 0, values = node.count == 2 ? node_get(&node, 1) : 0;
    bool committed = !ref_is_temporary(dictionary);
    if (node.flags != NODE_HAS_REFS || !node_value_is_ref(keys) || !node_value_is_ref(values) ||
        (committed && (ref_is_temporary((space_ref)keys) || ref_is_temporary((space_ref)values))))
        return error_fail(CE_ERR_CORRUPT, "invalid database: the dictionary at offset %llu is damaged",
                       (unsigned long long)dictionary);
    *out_keys = (space_ref)keys;
    *out_values = (space_ref)values;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Links and backlinks                                                       */
/* ------------------------------------------------------------------------ */

typedef struct link_list {
    ce_link *items;
    size_t count, capacity;
} link_list;

static bool link_list_push(link_list *list, ce_link link)
{
    if (list->count == list->capacity) {
        size_t grown = list->capacity ? list->capacity * 2 : 8;
        ce_link *items = realloc(list->items, grown * sizeof *items);
        if (!items) return out_of_memory();
        list->items = items;
        list->capacity = grown;
    }
    list->items[list->count++] = link;
    return true;
}

static element_spec nested_spec(const element_spec *parent)
{
    element_spec spec = *parent;
    spec.type = CE_TYPE_MIXED;
    spec.nullable = true;
    spec.in_set = false;
    return spec;
}

static bool too_deep(void)
{
    return error_fail(CE_ERR_CORRUPT, "invalid database: objects or collections nested more than %d levels deep (a cycle?)",
                   MAX_NESTING);
}

static bool collect_links(const space_state *space, const element_spec *spec, const ce_value *stored, link_list *links,
                          unsigned depth);

/* Every link held by the elements of a collection (nested ones included). */
static bool collect_collection_links(const space_state *space, ce_collection_type kind, const element_spec *spec,
                                     space_ref root, link_list *links, unsigned depth)
{
    if (spec->type != CE_TYPE_LINK && spec->type != CE_TYPE_MIXED) return true;
    if (depth > MAX_NESTING) return too_deep();
    space_ref values = root, keys;
    if (kind == CE_COLLECTION_DICTIONARY && !dictionary_parts(space, root, &keys, &values)) return false;
    ce_type type;
    bool nullable;
    size_t count;
    storage_of(spec, &type, &nullable);
    if (!collection_size(space, values, type, nullable, &count)) return false;
    for (size_t i = 0; i < count; i++) {
        ce_value stored;
        if (!collection_get(space, values, type, nullable, i, NULL, &stored) ||
            !collect_links(space, spec, &stored, links, depth))
            return false;
    }
    return true;
}

/* The links held by one stored element (a to-one link, a mixed value). */
static bool collect_links(const space_state *space, const element_spec *spec, const ce_value *stored, link_list *links,
                          unsigned depth)
{
    if (spec->type == CE_TYPE_LINK) {
        if (stored->integer < 0) return error_fail(CE_ERR_CORRUPT, "invalid database: property '%s.%s' holds a bad link", SPEC_WHERE(spec));
        return stored->integer == 0 || link_list_push(links, (ce_link){spec->link_target, stored->integer - 1});
    }
    if (spec->type != CE_TYPE_MIXED || stored->integer == 0) return true;
    ce_value value;
    space_ref root;
    if (!mixed_read(space, (space_ref)stored->integer, &value, &root)) return false;
    if (value.type == CE_TYPE_LINK) return link_list_push(links, value.link);
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY) return true;
    element_spec inner = nested_spec(spec);
    return collect_collection_links(space, value.type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY,
                                    &inner, root, links, depth + 1);
}

/* The links held by an object's property (one value or a collection). */
static bool collect_property_links(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                                   link_list *links)
{
    const schema_table *table = &loaded->tables[key];
    const schema_property *property = &table->properties[column];
    element_spec spec = spec_of_property(table, property);
    ce_value stored;
    if (!read_stored(txn, loaded, key, object, column, &stored)) return false;
    if (property->collection == CE_COLLECTION_NONE) return collect_links(db_txn_space(txn), &spec, &stored, links, 0);
    return collect_collection_links(db_txn_space(txn), (ce_collection_type)property->collection, &spec,
                                    (space_ref)stored.integer, links, 0);
}

static bool compare_origin(void *context, const ce_value *stored, int *out_sign)
{
    int64_t wanted = *(const int64_t *)context;
    *out_sign = stored->integer < wanted ? -1 : stored->integer > wanted;
    return true;
}

/* Adds or removes one entry "origin links here" in the target's backlinks:
 * a sorted collection of origin keys (one entry per link). */
static bool backlink_change(ce_txn *txn, schema *loaded, ce_link target, ce_table_key origin_table, size_t origin_column,
                            ce_object_key origin, bool add)
{
    size_t column;
    bool found = true;
    if (add ? !ensure_backlink_column(txn, loaded, target.table, origin_table, origin_column, &column)
            : !find_backlink_column(&loaded->tables[target.table], origin_table, origin_column, &column, &found))
        return false;
    if (!found)
        return error_fail(CE_ERR_CORRUPT, "invalid database: table '%s' has no backlinks for '%s.%s'",
                       loaded->tables[target.table].name, loaded->tables[origin_table].name,
                       loaded->tables[origin_table].properties[origin_column].name);
    ce_value stored;
    if (!read_stored(txn, loaded, target.table, target.key, column, &stored)) return false;
    space_state *space = db_txn_space(txn);
    space_ref root = (space_ref)stored.integer;
    size_t position;
    bool equal;
    if (!collection_lower_bound(space, root, CE_TYPE_INT, false, NULL, compare_origin, &origin, &position, &equal))
        return false;
    if (add) {
        ce_value key = {.type = CE_TYPE_INT, .integer = origin};
        if (!collection_insert(space, &root, CE_TYPE_INT, false, position, &key)) return false;
    } else {
        if (!equal)
            return error_fail(CE_ERR_CORRUPT, "invalid database: object %lld of '%s' lacks the backlink from object %lld of '%s'",
                           (long long)target.key, loaded->tables[target.table].name, (long long)origin,
                           loaded->tables[origin_table].name);
        if (!collection_erase(space, &root, CE_TYPE_INT, false, position)) return false;
    }
    ce_value changed = stored_ref(root);
    return write_stored(txn, loaded, target.table, target.key, column, &changed);
}

/* Where links come from: a property of an object. */
typedef struct link_origin {
    ce_table_key table;
    size_t column;
    ce_object_key object;
} link_origin;

/* Records new links and forgets dropped ones; a dropped link to an
 * embedded object deletes it (its parent let go of it). */
static bool apply_link_changes(ce_txn *txn, schema *loaded, const link_origin *origin, const link_list *added,
                               const link_list *removed, unsigned depth)
{
    for (size_t i = 0; i < added->count; i++)
        if (!backlink_change(txn, loaded, added->items[i], origin->table, origin->column, origin->object, true))
            return false;
    for (size_t i = 0; i < removed->count; i++) {
        ce_link target = removed->items[i];
        if (!backlink_change(txn, loaded, target, origin->table, origin->column, origin->object, false)) return false;
        if ((loaded->tables[target.table].flags & TABLE_EMBEDDED) &&
            !delete_object(txn, loaded, target.table, target.key, depth + 1))
            return false;
    }
    return true;
}

/* Removes from a collection every element that is a link to `target`
 * (dictionaries: sets those values to null), nested collections included. */
static bool purge_collection(space_state *space, ce_collection_type kind, const element_spec *spec, space_ref *root,
                             ce_link target, bool *changed, unsigned depth)
{
    if (depth > MAX_NESTING) return too_deep();
    space_ref values = *root, keys;
    if (kind == CE_COLLECTION_DICTIONARY && !dictionary_parts(space, *root, &keys, &values)) return false;
    ce_type type;
    bool nullable, values_changed = false;
    size_t count;
    storage_of(spec, &type, &nullable);
    if (!collection_size(space, values, type, nullable, &count)) return false;
    for (size_t i = count; i-- > 0;) {
        ce_value stored, value;
        space_ref nested_root = 0;
        if (!collection_get(space, values, type, nullable, i, NULL, &stored)) return false;
        if (spec->type == CE_TYPE_LINK) {
            value = stored.integer == target.key + 1 ? (ce_value){.type = CE_TYPE_LINK, .link = target}
                                                     : (ce_value){.type = CE_TYPE_NULL};
        } else if (!mixed_read(space, (space_ref)stored.integer, &value, &nested_root)) {
            return false;
        }
        if (value.type == CE_TYPE_LINK && value.link.table == target.table && value.link.key == target.key) {
            values_changed = true;
            if (kind != CE_COLLECTION_DICTIONARY) {
                if (!collection_erase(space, &values, type, nullable, i)) return false;
                continue;
            }
            ce_value null_stored = stored_ref(0);
            if ((spec->type == CE_TYPE_MIXED && !node_free_tree(space, (space_ref)stored.integer)) ||
                !collection_set(space, &values, type, nullable, i, &null_stored))
                return false;
        } else if (value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY) {
            bool inner_changed = false;
            element_spec inner = nested_spec(spec);
            space_ref inner_root = nested_root;
            if (!purge_collection(space, value.type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY,
                                  &inner, &inner_root, target, &inner_changed, depth + 1))
                return false;
            if (!inner_changed) continue;
            space_ref node = (space_ref)stored.integer;
            ce_value new_stored;
            if (!node_make_writable(space, &node) || !node_set(space, node, 1, (int64_t)inner_root)) return false;
            new_stored = stored_ref(node);
            if (!collection_set(space, &values, type, nullable, i, &new_stored)) return false;
            values_changed = true;
        }
    }
    if (!values_changed) return true;
    *changed = true;
    if (kind != CE_COLLECTION_DICTIONARY) {
        *root = values;
        return true;
    }
    if (values == 0) { /* cannot happen: a dictionary keeps its values (set to null) */
        return error_fail(CE_ERR_CORRUPT, "invalid database: a dictionary lost its values");
    }
    return node_make_writable(space, root) && node_set(space, *root, 1, (int64_t)values);
}

/* The target is being deleted: the origin object's property lets go of it
 * (to-one links and mixed values become null, collections drop it,
 * dictionaries keep the key with null). The target's backlinks go with it. */
static bool remove_links_to(ce_txn *txn, schema *loaded, ce_table_key origin_table, size_t origin_column,
                            ce_object_key origin, ce_link target)
{
    const schema_table *table = &loaded->tables[origin_table];
    const schema_property *property = &table->properties[origin_column];
    element_spec spec = spec_of_property(table, property);
    space_state *space = db_txn_space(txn);
    ce_value stored;
    if (!read_stored(txn, loaded, origin_table, origin, origin_column, &stored)) return false;
    ce_value null_stored = stored_ref(0);
    if (property->collection != CE_COLLECTION_NONE) {
        space_ref root = (space_ref)stored.integer;
        bool changed = false;
        if (!purge_collection(space, (ce_collection_type)property->collection, &spec, &root, target, &changed, 0))
            return false;
        ce_value new_stored = stored_ref(root);
        return !changed || write_stored(txn, loaded, origin_table, origin, origin_column, &new_stored);
    }
    if (spec.type == CE_TYPE_LINK)
        return stored.integer != target.key + 1 || write_stored(txn, loaded, origin_table, origin, origin_column, &null_stored);
    ce_value value;
    space_ref nested_root;
    if (!mixed_read(space, (space_ref)stored.integer, &value, &nested_root)) return false;
    if (value.type == CE_TYPE_LINK && value.link.table == target.table && value.link.key == target.key)
        return write_stored(txn, loaded, origin_table, origin, origin_column, &null_stored) &&
               node_free_tree(space, (space_ref)stored.integer);
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY) return true;
    bool changed = false;
    element_spec inner = nested_spec(&spec);
    if (!purge_collection(space, value.type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY, &inner,
                          &nested_root, target, &changed, 1))
        return false;
    if (!changed) return true;
    space_ref node = (space_ref)stored.integer;
    if (!node_make_writable(space, &node) || !node_set(space, node, 1, (int64_t)nested_root)) return false;
    ce_value new_stored = stored_ref(node);
    return write_stored(txn, loaded, origin_table, origin, origin_column, &new_stored);
}

/* Deletes an object: its links out (embedded targets deleted with it), the
 * links into it, its index entries, its values. */
static bool delete_object(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, unsigned depth)
{
    if (depth > MAX_NESTING) return too_deep();
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!table_refs_for_read(txn, key, &refs) || !require_object(txn, &refs, table, object)) return false;
    link_list none = {0};
    for (size_t c = 0; c < table->property_count; c++) {
        if (!property_holds_links(&table->properties[c])) continue;
        link_list links = {0};
        link_origin origin = {key, c, object};
        bool ok = collect_property_links(txn, loaded, key, object, c, &links) &&
                  apply_link_changes(txn, loaded, &origin, &none, &links, depth);
        free(links.items);
        if (!ok) return false;
    }
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (!property_is_live(property) || !(property->flags & PROPERTY_BACKLINK)) continue;
        ce_table_key origin_table = property->link_target;
        size_t origin_column = property->origin_column, count;
        ce_value stored;
        space_state *space = db_txn_space(txn);
        if (!read_stored(txn, loaded, key, object, c, &stored) ||
            !collection_size(space, (space_ref)stored.integer, CE_TYPE_INT, false, &count))
            return false;
        int64_t *origins = malloc((count + 1) * sizeof *origins);
        if (!origins) return out_of_memory();
        bool ok = true;
        for (size_t i = 0; i < count && ok; i++) {
            ce_value origin;
            ok = collection_get(space, (space_ref)stored.integer, CE_TYPE_INT, false, i, NULL, &origin);
            origins[i] = origin.integer;
        }
        for (size_t i = 0; i < count && ok; i++)
            if (i == 0 || origins[i] != origins[i - 1])
                ok = remove_links_to(txn, loaded, origin_table, origin_column, origins[i], (ce_link){key, object});
        free(origins);
        if (!ok) return false;
    }
    if (!table_refs_for_write(txn, key, &refs)) return false;
    space_state *space = db_txn_space(txn);
    cluster_schema columns = cluster_schema_of(table);
    for (size_t c = 0; c < table->property_count; c++) {
        if (!column_is_indexed(table, c)) continue;
        ce_value value;
        if (!cluster_get(space, refs.cluster, &columns, object, c, &loaded->search_scratch, NULL, &value) ||
            !update_index(txn, &refs, table, c, &value, object, false))
            return false;
    }
    return cluster_erase(space, &refs.cluster, &columns, object) && store_table_refs(txn, &refs);
}

/* Empties one link-holding column of every object (before it is removed). */
static bool clear_links_of_column(ce_txn *txn, schema *loaded, ce_table_key key, size_t column)
{
    table_refs refs;
    size_t count;
    if (!table_refs_for_read(txn, key, &refs) || !cluster_count(db_txn_space(txn), refs.cluster, &count)) return false;
    ce_object_key *objects = malloc((count + 1) * sizeof *objects);
    if (!objects) return out_of_memory();
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) ok = cluster_key_at(db_txn_space(txn), refs.cluster, i, NULL, &objects[i]);
    link_list none = {0};
    for (size_t i = 0; i < count && ok; i++) {
        bool exists;
        ok = object_exists(txn, key, objects[i], &exists);
        if (!ok || !exists) continue; /* deleted as an embedded object of an earlier one */
        link_list links = {0};
        ce_value stored, empty = stored_ref(0);
        bool owned = loaded->tables[key].columns[column].type == COLUMN_TYPE_OWNED_REFS;
        link_origin origin = {key, column, objects[i]};
        ok = collect_property_links(txn, loaded, key, objects[i], column, &links) &&
             read_stored(txn, loaded, key, objects[i], column, &stored) &&
             write_stored(txn, loaded, key, objects[i], column, &empty) &&
             (!owned || stored.integer == 0 || node_free_tree(db_txn_space(txn), (space_ref)stored.integer)) &&
             apply_link_changes(txn, loaded, &origin, &none, &links, 0);
        free(links.items);
    }
    free(objects);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Objects                                                                   */
/* ------------------------------------------------------------------------ */

static bool duplicate_primary_key(const schema_table *table, const ce_value *value)
{
    char text[96];
    describe_value(value, text, sizeof text);
    return error_fail(CE_ERR_DUPLICATE_PRIMARY_KEY,
                   "Attempting to create an object of type '%s' with an existing primary key value %s.", table->name,
                   text);
}

static bool embedded_directly(const schema_table *table)
{
    return error_fail(CE_ERR_EMBEDDED_OBJECT,
                   "cannot create an object of embedded type '%s' directly: embedded objects are created through "
                   "their parent",
                   table->name);
}

/* Creates an object from checked values (one per column slot). */
static bool create_object(ce_txn *txn, schema *loaded, ce_table_key key, const ce_value *values,
                          ce_object_key *out_object)
{
    schema_table *table = &loaded->tables[key];
    table_refs refs;
    if (!table_refs_for_write(txn, key, &refs)) return false;
    if (table->primary_key != NO_PRIMARY_KEY) {
        bool exists;
        ce_object_key existing;
        const ce_value *primary_key = &values[table->primary_key];
        if (!find_by_value(txn, loaded, &refs, table, table->primary_key, primary_key, &existing, &exists))
            return false;
        if (exists) return duplicate_primary_key(table, primary_key);
    }
    space_state *space = db_txn_space(txn);
    bool has_links = false;
    ce_value *stored = malloc((table->property_count + 1) * sizeof *stored);
    if (!stored) return out_of_memory();
    bool ok = true;
    for (size_t c = 0; c < table->property_count && ok; c++) {
        const schema_property *property = &table->properties[c];
        stored[c] = values[c];
        if (!property_is_live(property)) continue;
        if (!holds_one_value(property)) {
            stored[c] = stored_ref(0);
            continue;
        }
        has_links = has_links || property_holds_links(property);
        element_spec spec = spec_of_property(table, property);
        ok = encode_element(space, &spec, &values[c], &stored[c]);
    }
    cluster_schema columns = cluster_schema_of(table);
    ce_object_key object = refs.next_key;
    if (table->primary_key != NO_PRIMARY_KEY) note_primary_key_of_new_object(&refs, object, &values[table->primary_key]);
    ok = ok && cluster_insert(space, &refs.cluster, &columns, object, stored);
    for (size_t c = 0; c < table->property_count && ok; c++)
        if (column_is_indexed(table, c)) ok = update_index(txn, &refs, table, c, &values[c], object, true);
    refs.next_key = object + 1;
    ok = ok && store_table_refs(txn, &refs);
    for (size_t c = 0; c < table->property_count && ok && has_links; c++) {
        if (!property_holds_links(&table->properties[c]) || !holds_one_value(&table->properties[c])) continue;
        element_spec spec = spec_of_property(table, &table->properties[c]);
        link_list links = {0}, none = {0};
        link_origin origin = {key, c, object};
        ok = collect_links(space, &spec, &stored[c], &links, 0) &&
             apply_link_changes(txn, loaded, &origin, &links, &none, 0);
        free(links.items);
    }
    free(stored);
    if (!ok) return false;
    *out_object = object;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Appending: objects of a plain table created one after another are        */
/* buffered and enter the cluster tree (and the primary-key index) a whole  */
/* leaf at a time. Every other access to the table goes through             */
/* table_refs_for_read/_write, which flush the buffer first, and so does    */
/* the commit; a rollback drops it with the rest of the transaction.        */
/* ------------------------------------------------------------------------ */

static bool store_buffered_objects(ce_txn *txn, schema *loaded)
{
    append_buffer *buffer = &loaded->append;
    if (!buffer->active) return true;
    buffer->active = false; /* the table_refs calls below must not flush again */
    size_t count = buffer->count;
    buffer->count = 0;
    if (count == 0) return true;
    ce_table_key key = buffer->table;
    schema_table *table = &loaded->tables[key];
    for (size_t c = 0; c < table->property_count; c++)
        for (size_t i = 0; i < count; i++) {
            ce_value *value = &buffer->values[c * CLUSTER_LEAF_MAX + i];
            if ((value->type == CE_TYPE_STRING || value->type == CE_TYPE_BINARY) && value->string.size > 0)
                value->string.data = (const char *)buffer->arena + buffer->arena_offsets[c * CLUSTER_LEAF_MAX + i];
        }
    buffer->arena_size = 0;
    /* cluster_append_objects reads column c's values at values[c * count + i]. */
    if (count < CLUSTER_LEAF_MAX)
        for (size_t c = 1; c < table->property_count; c++)
            memmove(&buffer->values[c * count], &buffer->values[c * CLUSTER_LEAF_MAX], count * sizeof *buffer->values);
    table_refs refs;
    space_state *space = db_txn_space(txn);
    cluster_schema columns = cluster_schema_of(table);
    if (!table_refs_for_write(txn, key, &refs) ||
        !cluster_append_objects(space, &refs.cluster, &columns, buffer->first_key, count, buffer->values))
        return false;
    if (table->primary_key != NO_PRIMARY_KEY) {
        int64_t pairs[2 * CLUSTER_LEAF_MAX];
        const ce_value *keys = &buffer->values[table->primary_key * count];
        for (size_t i = 0; i < count; i++) {
            pairs[2 * i] = keys[i].integer;
            pairs[2 * i + 1] = buffer->first_key + (int64_t)i;
            note_primary_key_of_new_object(&refs, buffer->first_key + (int64_t)i, &keys[i]);
        }
        space_ref root;
        if (!column_index(txn, &refs, table->primary_key, &root)) return false;
        if (!root) return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' has a primary key but no index",
                                  table->name);
        if (!index_append(space, &root, pairs, count) || !set_column_index(txn, &refs, table, table->primary_key, root))
            return false;
    }
    refs.next_key = buffer->first_key + (int64_t)count;
    return store_table_refs(txn, &refs);
}

static bool flush_appends(ce_txn *txn, schema *loaded)
{
    if (store_buffered_objects(txn, loaded)) return true;
    loaded->append.lost = true;
    return false;
}

static bool flush_appends_of(ce_txn *txn, ce_table_key key)
{
    schema *loaded = db_txn_layer_state(txn);
    if (!loaded || !loaded->append.active || loaded->append.table != key) return true;
    return flush_appends(txn, loaded);
}

/* The commit flushes what is buffered (db.h, db_txn_set_before_commit). */
static bool flush_before_commit(ce_txn *txn, void *state)
{
    schema *loaded = state;
    if (!flush_appends(txn, loaded)) return false;
    if (loaded->append.lost)
        return error_fail(CE_ERR_FAIL, "objects created in this transaction could not be stored (an earlier call failed): "
                                    "the transaction cannot commit; roll it back");
    return true;
}

static bool append_object(ce_txn *txn, schema *loaded, ce_table_key key, const ce_value *values,
                          ce_object_key *out_object)
{
    append_buffer *buffer = &loaded->append;
    schema_table *table = &loaded->tables[key];
    if (buffer->active && buffer->table != key && !flush_appends(txn, loaded)) return false;
    if (!buffer->active) {
        table_refs refs;
        if (!table_refs_for_read(txn, key, &refs)) return false;
        if (buffer->column_capacity < table->property_count + 1) {
            size_t slots = (table->property_count + 1) * CLUSTER_LEAF_MAX;
            ce_value *grown = realloc(buffer->values, slots * sizeof *grown);
            if (!grown) return out_of_memory();
            buffer->values = grown;
            size_t *offsets = realloc(buffer->arena_offsets, slots * sizeof *offsets);
            if (!offsets) return out_of_memory();
            buffer->arena_offsets = offsets;
            buffer->column_capacity = table->property_count + 1;
        }
        buffer->has_last_primary_key = false;
        if (table->primary_key != NO_PRIMARY_KEY) {
            space_ref root;
            int64_t last_object;
            if (!column_index(txn, &refs, table->primary_key, &root)) return false;
            if (root && !index_last(db_txn_space(txn), root, &buffer->last_primary_key, &last_object,
                                    &buffer->has_last_primary_key))
                return false;
        }
        *buffer = (append_buffer){.active = true, .lost = buffer->lost, .table = key, .count = 0,
                                  .first_key = refs.next_key, .has_last_primary_key = buffer->has_last_primary_key,
                                  .last_primary_key = buffer->last_primary_key, .values = buffer->values,
                                  .arena_offsets = buffer->arena_offsets, .column_capacity = buffer->column_capacity,
                                  .arena = buffer->arena, .arena_size = 0, .arena_capacity = buffer->arena_capacity};
        db_txn_set_before_commit(txn, flush_before_commit);
    }
    if (table->primary_key != NO_PRIMARY_KEY) {
        int64_t primary_key = values[table->primary_key].integer;
        if (buffer->has_last_primary_key && primary_key <= buffer->last_primary_key) {
            /* Not ascending: uniqueness needs the index. */
            return flush_appends(txn, loaded) && create_object(txn, loaded, key, values, out_object);
        }
        buffer->last_primary_key = primary_key;
        buffer->has_last_primary_key = true;
    }
    size_t at = buffer->count;
    for (size_t c = 0; c < table->property_count; c++) {
        ce_value value = values[c];
        if ((value.type == CE_TYPE_STRING || value.type == CE_TYPE_BINARY) && value.string.size > 0) {
            size_t size = value.string.size;
            if (buffer->arena_size + size > buffer->arena_capacity) {
                size_t grown = buffer->arena_capacity ? buffer->arena_capacity * 2 : 16384;
                while (grown < buffer->arena_size + size) grown *= 2;
                uint8_t *arena = realloc(buffer->arena, grown);
                if (!arena) return out_of_memory();
                buffer->arena = arena;
                buffer->arena_capacity = grown;
            }
            memcpy(buffer->arena + buffer->arena_size, value.string.data, size);
            buffer->arena_offsets[c * CLUSTER_LEAF_MAX + at] = buffer->arena_size;
            buffer->arena_size += size;
            value.string.data = NULL; /* set at the flush, when the arena no longer moves */
        }
        if (table->properties[c].flags & PROPERTY_REMOVED) value = (ce_value){.type = CE_TYPE_NULL};
        buffer->values[c * CLUSTER_LEAF_MAX + at] = value;
    }
    buffer->count++;
    *out_object = buffer->first_key + (int64_t)at;
    return buffer->count < CLUSTER_LEAF_MAX || flush_appends(txn, loaded);
}

/* A new object's values, one per column slot: each scalar property's
 * default, null for links, mixed values and collections (NULL when out of
 * memory; the caller frees the array). */
static ce_value *default_values(const schema_table *table)
{
    ce_value *values = malloc((table->property_count + 1) * sizeof *values);
    if (!values) return NULL;
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        values[c] = holds_one_value(property) && property->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED
                        ? value_default(property->type, (property->flags & PROPERTY_NULLABLE) != 0)
                        : (ce_value){.type = CE_TYPE_NULL};
    }
    return values;
}

bool ce_object_create(ce_txn *txn, ce_table_key key, const ce_value *primary_key, ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create: out_object is required");
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    if (table->flags & TABLE_EMBEDDED) return embedded_directly(table);
    if (table->primary_key == NO_PRIMARY_KEY && primary_key)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key, but one was given", table->name);
    if (table->primary_key != NO_PRIMARY_KEY) {
        const schema_property *property = &table->properties[table->primary_key];
        if (!primary_key)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' needs a primary key value ('%s')", table->name,
                           property->name);
        if (!check_value(txn, loaded, table, property, primary_key)) return false;
    }
    ce_value *values = default_values(table);
    if (!values) return out_of_memory();
    if (primary_key) values[table->primary_key] = *primary_key;
    bool ok = create_object(txn, loaded, key, values, out_object);
    free(values);
    return ok;
}

/* The values of a whole object, one per column slot. A caller may give
 * fewer when every slot past them is a backlink or removed property: the
 * first mixed link into a table adds a backlink slot to it, which a binding
 * that learned the column count before should not have to know about. Those
 * slots take null. *out_padded is NULL or an array the caller frees. */
static bool with_all_slots(const schema_table *table, const ce_value *values, size_t *value_count,
                           ce_value **out_padded)
{
    *out_padded = NULL;
    if (*value_count >= table->property_count) return true;
    for (size_t c = *value_count; c < table->property_count; c++)
        if (property_is_live(&table->properties[c]) && !(table->properties[c].flags & PROPERTY_BACKLINK)) return true;
    ce_value *padded = malloc((table->property_count + 1) * sizeof *padded);
    if (!padded) return out_of_memory();
    memcpy(padded, values, *value_count * sizeof *padded);
    for (size_t c = *value_count; c < table->property_count; c++) padded[c] = (ce_value){.type = CE_TYPE_NULL};
    *value_count = table->property_count;
    *out_padded = padded;
    return true;
}

bool ce_object_create_with_values(ce_txn *txn, ce_table_key key, const ce_value *values, size_t value_count,
                                  ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!values || !out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_with_values: arguments are required");
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    if (table->flags & TABLE_EMBEDDED) return embedded_directly(table);
    ce_value *padded;
    if (!with_all_slots(table, values, &value_count, &padded)) return false;
    if (padded) values = padded;
    bool ok = check_values(txn, loaded, table, values, value_count) &&
              (table->appendable ? append_object(txn, loaded, key, values, out_object)
                                 : create_object(txn, loaded, key, values, out_object));
    free(padded);
    return ok;
}

bool ce_object_create_or_update(ce_txn *txn, ce_table_key key, const ce_value *values, size_t value_count,
                                ce_update_policy policy, ce_object_key *out_object, bool *out_created)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!values || !out_object || !out_created)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_or_update: arguments are required");
    if (policy != CE_UPDATE_ERROR && policy != CE_UPDATE_MODIFIED && policy != CE_UPDATE_ALL)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "unknown update policy %d", (int)policy);
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    *out_created = true;
    if (policy == CE_UPDATE_ERROR) return ce_object_create_with_values(txn, key, values, value_count, out_object);
    if (table->primary_key == NO_PRIMARY_KEY)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key: objects cannot be updated by key",
                       table->name);
    ce_value *padded;
    if (!with_all_slots(table, values, &value_count, &padded)) return false;
    if (padded) {
        bool ok = ce_object_create_or_update(txn, key, padded, value_count, policy, out_object, out_created);
        free(padded);
        return ok;
    }
    if (!check_values(txn, loaded, table, values, value_count)) return false;
    bool exists;
    ce_object_key existing;
    if (!table_refs_for_read(txn, key, &refs) ||
        !find_by_value(txn, loaded, &refs, table, table->primary_key, &values[table->primary_key], &existing, &exists))
        return false;
    if (!exists) return create_object(txn, loaded, key, values, out_object);
    *out_created = false;
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (c == table->primary_key || !property_is_live(property) || !holds_one_value(property)) continue;
        if (policy == CE_UPDATE_MODIFIED) {
            ce_value current;
            if (!ce_object_get(txn, key, existing, (ce_column_key)c, &current)) return false;
            if (value_equal(&current, &values[c]) && current.type == values[c].type &&
                current.type != CE_TYPE_LIST && current.type != CE_TYPE_DICTIONARY)
                continue;
        }
        if (!ce_object_set(txn, key, existing, (ce_column_key)c, &values[c])) return false;
    }
    *out_object = existing;
    return true;
}

bool ce_object_find_primary_key(ce_txn *txn, ce_table_key key, const ce_value *primary_key,
                                ce_object_key *out_object, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!primary_key || !out_object || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_find_primary_key: arguments are required");
    if (!find_table(txn, key, &loaded, &table)) return false;
    if (table->primary_key == NO_PRIMARY_KEY)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key", table->name);
    if (!check_value(txn, loaded, table, &table->properties[table->primary_key], primary_key) ||
        !table_refs_for_read(txn, key, &refs))
        return false;
    return find_by_value(txn, loaded, &refs, table, table->primary_key, primary_key, out_object, out_found);
}

bool ce_object_find_first(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                          ce_object_key *out_object, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!value || !out_object || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_find_first: arguments are required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property)) return false;
    if (!holds_one_value(property) || property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
        return error_fail(CE_ERR_WRONG_TYPE, "ce_object_find_first: property '%s.%s' is not a scalar property",
                       table->name, property->name);
    if (!check_value(txn, loaded, table, property, value) || !table_refs_for_read(txn, key, &refs)) return false;
    return find_by_value(txn, loaded, &refs, table, column, value, out_object, out_found);
}

bool ce_object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_exists) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_exists: out_exists is required");
    if (!find_table(txn, key, &loaded, &table)) return false;
    return object_exists(txn, key, object, out_exists);
}

bool ce_object_delete(ce_txn *txn, ce_table_key key, ce_object_key object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    return delete_object(txn, loaded, key, object, 0);
}

bool ce_object_get(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column, ce_value *out_value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_value) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_get: out_value is required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
        !table_refs_for_read(txn, key, &refs))
        return false;
    if (!holds_one_value(property)) return not_one_value(table, property);
    cluster_schema columns = cluster_schema_of(table);
    if (!cluster_get(db_txn_space(txn), refs.cluster, &columns, object, column, &loaded->scratch, refs.hint,
                     out_value))
        return fail_for_missing_object(txn, &refs, table, object);
    if (property->type != CE_TYPE_LINK && property->type != CE_TYPE_MIXED) return true;
    ce_value stored = *out_value;
    element_spec spec = spec_of_property(table, property);
    return decode_element(db_txn_space(txn), &spec, &stored, out_value);
}

/* Replaces a link or mixed property's value, keeping backlinks true. */
static bool set_link_holder(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                            const ce_value *value)
{
    const schema_table *table = &loaded->tables[key];
    element_spec spec = spec_of_property(table, &table->properties[column]);
    space_state *space = db_txn_space(txn);
    ce_value old_stored, new_stored;
    if (!read_stored(txn, loaded, key, object, column, &old_stored)) return false;
    if (spec.type == CE_TYPE_LINK &&
        old_stored.integer == (value->type == CE_TYPE_NULL ? 0 : value->link.key + 1))
        return true; /* the same link: nothing changes (an embedded target stays) */
    link_list added = {0}, removed = {0};
    link_origin origin = {key, column, object};
    bool ok = collect_links(space, &spec, &old_stored, &removed, 0) && encode_element(space, &spec, value, &new_stored) &&
              write_stored(txn, loaded, key, object, column, &new_stored) &&
              (spec.type != CE_TYPE_MIXED || old_stored.integer == 0 || node_free_tree(space, (space_ref)old_stored.integer)) &&
              collect_links(space, &spec, &new_stored, &added, 0) &&
              apply_link_changes(txn, loaded, &origin, &added, &removed, 0);
    free(added.items);
    free(removed.items);
    return ok;
}

bool ce_object_set(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column, const ce_value *value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
        !check_value(txn, loaded, table, property, value))
        return false;
    if (table->primary_key == column)
        return error_fail(CE_ERR_PRIMARY_KEY_IMMUTABLE, "Primary key can't be changed after an object is inserted ('%s.%s').",
                       table->name, property->name);
    if (!table_refs_for_write(txn, key, &refs)) return false;
    if (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED)
        return require_object(txn, &refs, table, object) && set_link_holder(txn, loaded, key, object, column, value);
    cluster_schema columns = cluster_schema_of(table);
    space_state *space = db_txn_space(txn);
    if (column_is_indexed(table, column)) {
        ce_value old;
        if (!cluster_get(space, refs.cluster, &columns, object, column, &loaded->search_scratch, NULL, &old))
            return fail_for_missing_object(txn, &refs, table, object);
        if (!update_index(txn, &refs, table, column, &old, object, false) ||
            !update_index(txn, &refs, table, column, value, object, true))
            return false;
    }
    /* (A missing object is found before anything is copied.) */
    if (!cluster_set(space, &refs.cluster, &columns, object, column, value))
        return fail_for_missing_object(txn, &refs, table, object);
    return store_table_refs(txn, &refs);
}

/* A new object of an embedded table, with default values, not yet linked. */
static bool create_embedded(ce_txn *txn, schema *loaded, ce_table_key target, ce_object_key *out_object)
{
    const schema_table *table = &loaded->tables[target];
    ce_value *values = default_values(table);
    if (!values) return out_of_memory();
    bool ok = create_object(txn, loaded, target, values, out_object);
    free(values);
    return ok;
}

/* Refuses a parent that would put a new embedded object deeper than
 * MAX_NESTING levels below its top-level object: deleting deeper ones
 * would fail as damage (delete_object's guard against cycles). The parent
 * of an embedded object is the origin of its one backlink. */
static bool check_embedding_depth(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object)
{
    space_state *space = db_txn_space(txn);
    for (unsigned embedded_levels = 0; loaded->tables[key].flags & TABLE_EMBEDDED;) {
        if (++embedded_levels >= MAX_NESTING)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "embedded objects nest at most %d levels deep ('%s')", MAX_NESTING,
                           loaded->tables[key].name);
        const schema_table *table = &loaded->tables[key];
        bool found = false;
        for (size_t c = 0; c < table->property_count && !found; c++) {
            const schema_property *property = &table->properties[c];
            ce_value stored, origin;
            size_t count;
            if (!property_is_live(property) || !(property->flags & PROPERTY_BACKLINK)) continue;
            if (!read_stored(txn, loaded, key, object, c, &stored) ||
                !collection_size(space, (space_ref)stored.integer, CE_TYPE_INT, false, &count))
                return false;
            if (count == 0) continue;
            if (!collection_get(space, (space_ref)stored.integer, CE_TYPE_INT, false, 0, NULL, &origin)) return false;
            key = property->link_target;
            object = origin.integer;
            found = true;
        }
        if (!found) return true; /* no parent: nothing above it */
    }
    return true;
}

/* The embedded table a link property or collection of links targets. */
static bool require_embedded_target(const schema *loaded, const element_spec *spec)
{
    if (spec->type != CE_TYPE_LINK || !(loaded->tables[spec->link_target].flags & TABLE_EMBEDDED))
        return error_fail(CE_ERR_EMBEDDED_OBJECT, "property '%s.%s' does not link to an embedded table", SPEC_WHERE(spec));
    return true;
}

bool ce_object_create_embedded(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column,
                               ce_object_key *out_embedded)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_embedded) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_embedded: out_embedded is required");
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !find_column(table, column, &property))
        return false;
    if (!holds_one_value(property)) return not_one_value(table, property);
    element_spec spec = spec_of_property(table, property);
    if (!require_embedded_target(loaded, &spec) || !table_refs_for_read(txn, key, &refs) ||
        !require_object(txn, &refs, table, object) || !check_embedding_depth(txn, loaded, key, object))
        return false;
    ce_object_key child;
    ce_value old_stored, new_stored;
    link_list added = {0}, removed = {0};
    link_origin origin = {key, column, object};
    bool ok = create_embedded(txn, loaded, spec.link_target, &child) &&
              read_stored(txn, loaded, key, object, column, &old_stored) &&
              collect_links(db_txn_space(txn), &spec, &old_stored, &removed, 0) &&
              link_list_push(&added, (ce_link){spec.link_target, child});
    new_stored = (ce_value){.type = CE_TYPE_INT, .integer = child + 1};
    ok = ok && write_stored(txn, loaded, key, object, column, &new_stored) &&
         apply_link_changes(txn, loaded, &origin, &added, &removed, 0);
    free(added.items);
    free(removed.items);
    if (ok) *out_embedded = child;
    return ok;
}

/* The backlink column of `table` for links from origin_table.origin_column:
 * *out_found is false when that (mixed) property never linked here. */
static bool backlinks_of(ce_txn *txn, ce_table_key key, ce_table_key origin_table, ce_column_key origin_column,
                         schema **out_schema, size_t *out_column, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL, *origin = NULL;
    const schema_property *property = NULL;
    if (!find_table(txn, key, &loaded, &table) || !find_table(txn, origin_table, &loaded, &origin) ||
        !find_column(origin, origin_column, &property))
        return false;
    if (!property_holds_links(property))
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' holds no links", origin->name, property->name);
    *out_schema = loaded;
    return find_backlink_column(table, origin_table, origin_column, out_column, out_found);
}

bool ce_object_backlink_count(ce_txn *txn, ce_table_key key, ce_object_key object, ce_table_key origin_table,
                              ce_column_key origin_column, size_t *out_count)
{
    schema *loaded;
    size_t column;
    bool found;
    table_refs refs;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_backlink_count: out_count is required");
    if (!backlinks_of(txn, key, origin_table, origin_column, &loaded, &column, &found) ||
        !table_refs_for_read(txn, key, &refs) || !require_object(txn, &refs, &loaded->tables[key], object))
        return false;
    *out_count = 0;
    if (!found) return true;
    ce_value stored;
    return read_stored(txn, loaded, key, object, column, &stored) &&
           collection_size(db_txn_space(txn), (space_ref)stored.integer, CE_TYPE_INT, false, out_count);
}

bool ce_object_backlink_at(ce_txn *txn, ce_table_key key, ce_object_key object, ce_table_key origin_table,
                           ce_column_key origin_column, size_t index, ce_object_key *out_origin)
{
    schema *loaded;
    size_t column;
    bool found;
    table_refs refs;
    if (!out_origin) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_backlink_at: out_origin is required");
    if (!backlinks_of(txn, key, origin_table, origin_column, &loaded, &column, &found) ||
        !table_refs_for_read(txn, key, &refs) || !require_object(txn, &refs, &loaded->tables[key], object))
        return false;
    if (!found) return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (no backlinks)", index);
    ce_value stored, origin;
    if (!read_stored(txn, loaded, key, object, column, &stored) ||
        !collection_get(db_txn_space(txn), (space_ref)stored.integer, CE_TYPE_INT, false, index, NULL, &origin))
        return false;
    *out_origin = origin.integer;
    return true;
}

bool ce_object_backlink_total(ce_txn *txn, ce_table_key key, ce_object_key object, size_t *out_count)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_backlink_total: out_count is required");
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs) ||
        !require_object(txn, &refs, table, object))
        return false;
    *out_count = 0;
    for (size_t c = 0; c < table->property_count; c++) {
        const schema_property *property = &table->properties[c];
        if (!property_is_live(property) || !(property->flags & PROPERTY_BACKLINK)) continue;
        ce_value stored;
        size_t count;
        if (!read_stored(txn, loaded, key, object, c, &stored) ||
            !collection_size(db_txn_space(txn), (space_ref)stored.integer, CE_TYPE_INT, false, &count))
            return false;
        *out_count += count;
    }
    return true;
}

bool ce_object_count(ce_txn *txn, ce_table_key key, size_t *out_count)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_count: out_count is required");
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs)) return false;
    return cluster_count(db_txn_space(txn), refs.cluster, out_count);
}

bool ce_object_key_at(ce_txn *txn, ce_table_key key, size_t index, ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_object) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_key_at: out_object is required");
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs)) return false;
    return cluster_key_at(db_txn_space(txn), refs.cluster, index, refs.hint, out_object);
}

/* ------------------------------------------------------------------------ */
/* Collections: lists, sets, dictionaries, nested ones in mixed values       */
/* ------------------------------------------------------------------------ */

/* One step from a collection of mixed values into the one nested in an
 * element: a list index or a dictionary key. */
typedef struct collection_step {
    bool by_key;
    size_t index;
    char *key;
    size_t key_size;
} collection_step;

/* A reader of a collection handle's values (or a dictionary's keys),
 * resolved at transaction stamp `stamp` (db_txn_stamp): reads in a row then
 * find the object and descend into the collection once, not per read. Any
 * change in the transaction, and an advance, changes the stamp, and the next
 * read resolves the collection again. */
typedef struct cached_reader {
    table_collection_reader *reader; /* NULL: none yet */
    size_t count;                    /* how many values it reads */
    uint64_t stamp;
} cached_reader;

struct ce_collection {
    ce_txn *txn;
    ce_table_key table;
    ce_object_key object;
    size_t column;
    bool through_mixed; /* a mixed property: its value holds the first collection */
    size_t depth;
    collection_step *steps;
    cached_reader values, keys; /* the handle's own (a handle belongs to one thread) */
};

/* A collection as found in the transaction's current state. */
typedef struct found_collection {
    ce_collection_type kind;
    element_spec spec; /* its elements (a dictionary's: its values) */
    space_ref root;       /* 0: empty */
} found_collection;

static ce_collection_type kind_of_nested(ce_type type)
{
    return type == CE_TYPE_LIST ? CE_COLLECTION_LIST : CE_COLLECTION_DICTIONARY;
}

typedef struct key_search {
    const char *key;
    size_t size;
} key_search;

static bool compare_key(void *context, const ce_value *stored, int *out_sign)
{
    const key_search *search = context;
    *out_sign = value_compare_bytes(stored->string.data, stored->string.size, search->key, search->size);
    return true;
}

/* A dictionary key's position in the sorted keys. */
static bool find_key(const space_state *space, schema *loaded, space_ref keys, const char *key, size_t size,
                     size_t *out_index, bool *out_found)
{
    key_search search = {key, size};
    return collection_lower_bound(space, keys, CE_TYPE_STRING, false, &loaded->search_scratch, compare_key, &search,
                                  out_index, out_found);
}

/* The position of a step's element, and the collection holding the values
 * (a dictionary's values, or the list itself). */
static bool step_position(const space_state *space, schema *loaded, const found_collection *found,
                          const collection_step *step, size_t *out_index, space_ref *out_values)
{
    if (found->kind == CE_COLLECTION_LIST) {
        size_t count;
        if (step->by_key) return error_fail(CE_ERR_WRONG_TYPE, "a list element is reached by index, not by key");
        if (!collection_size(space, found->root, COLUMN_TYPE_OWNED_REFS, false, &count)) return false;
        if (step->index >= count)
            return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (the list holds %zu values)",
                           step->index, count);
        *out_index = step->index;
        *out_values = found->root;
        return true;
    }
    if (!step->by_key) return error_fail(CE_ERR_WRONG_TYPE, "a dictionary element is reached by key, not by index");
    space_ref keys;
    bool present;
    if (!dictionary_parts(space, found->root, &keys, out_values) ||
        !find_key(space, loaded, keys, step->key, step->key_size, out_index, &present))
        return false;
    if (!present)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "the dictionary has no key '%.*s'", (int)step->key_size, step->key);
    return true;
}

/* The collection nested in the element a step names; *out_node is the
 * element's mixed node. */
static bool find_nested(const space_state *space, schema *loaded, const found_collection *found,
                        const collection_step *step, found_collection *out, space_ref *out_node)
{
    if (found->spec.type != CE_TYPE_MIXED || found->kind == CE_COLLECTION_SET)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': only lists and dictionaries of mixed values nest collections",
                       SPEC_WHERE(&found->spec));
    size_t index;
    space_ref values;
    ce_value stored, value;
    if (!step_position(space, loaded, found, step, &index, &values) ||
        !collection_get(space, values, COLUMN_TYPE_OWNED_REFS, false, index, NULL, &stored) ||
        !mixed_read(space, (space_ref)stored.integer, &value, &out->root))
        return false;
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': the element holds a %s, not a collection", SPEC_WHERE(&found->spec),
                       ce_type_name(value.type));
    out->kind = kind_of_nested(value.type);
    out->spec = nested_spec(&found->spec);
    *out_node = (space_ref)stored.integer;
    return true;
}

/* The property's own collection (or the one its mixed value holds). */
static bool find_top(const ce_collection *collection, schema **out_schema, found_collection *out, ce_value *out_stored)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!collection) return error_fail(CE_ERR_INVALID_ARGUMENT, "a collection is required");
    if (!find_table(collection->txn, collection->table, &loaded, &table) ||
        !find_column(table, (ce_column_key)collection->column, &property))
        return false;
    out->spec = spec_of_property(table, property);
    if (!read_stored(collection->txn, loaded, collection->table, collection->object, collection->column, out_stored)) {
        table_refs refs;
        if (ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT && table_refs_for_read(collection->txn, collection->table, &refs))
            return require_object(collection->txn, &refs, table, collection->object);
        return false;
    }
    *out_schema = loaded;
    if (!collection->through_mixed) {
        out->kind = (ce_collection_type)property->collection;
        out->root = (space_ref)out_stored->integer;
        return true;
    }
    ce_value value;
    if (!mixed_read(db_txn_space(collection->txn), (space_ref)out_stored->integer, &value, &out->root)) return false;
    if (value.type != CE_TYPE_LIST && value.type != CE_TYPE_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' holds a %s, not a collection", SPEC_WHERE(&out->spec),
                       ce_type_name(value.type));
    out->kind = kind_of_nested(value.type);
    out->spec = nested_spec(&out->spec);
    return true;
}

/* Where a found collection's elements are (a dictionary's values; the
 * collection itself otherwise) and their column type. */
static bool found_values(const space_state *space, const found_collection *found, space_ref *out_values, ce_type *out_type,
                         bool *out_nullable)
{
    space_ref keys;
    *out_values = found->root;
    storage_of(&found->spec, out_type, out_nullable);
    return found->kind != CE_COLLECTION_DICTIONARY || dictionary_parts(space, found->root, &keys, out_values);
}

static bool find_collection(const ce_collection *collection, schema **out_schema, found_collection *out)
{
    ce_value stored;
    if (!find_top(collection, out_schema, out, &stored)) return false;
    for (size_t i = 0; i < collection->depth; i++) {
        found_collection inner;
        space_ref node;
        if (!find_nested(db_txn_space(collection->txn), *out_schema, out, &collection->steps[i], &inner, &node))
            return false;
        *out = inner;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Editing: the change is made at the collection, then written back up the  */
/* path (nested mixed nodes, the property); link bookkeeping comes last.     */
/* ------------------------------------------------------------------------ */

typedef enum edit_operation {
    EDIT_LIST_INSERT,
    EDIT_LIST_SET,
    EDIT_LIST_ERASE,
    EDIT_LIST_MOVE,
    EDIT_LIST_SWAP,
    EDIT_CLEAR,
    EDIT_SET_INSERT,
    EDIT_SET_ERASE,
    EDIT_DICTIONARY_SET,
    EDIT_DICTIONARY_ERASE
} edit_operation;

typedef struct edit_request {
    edit_operation operation;
    size_t index, other;
    const ce_value *value; /* checked already */
    const char *key;
    size_t key_size;
    bool changed;
    link_list added, removed;
} edit_request;

typedef struct value_search_context {
    const space_state *space;
    const element_spec *spec;
    const ce_value *wanted;
} value_search_context;

static bool compare_element(void *context, const ce_value *stored, int *out_sign)
{
    const value_search_context *search = context;
    ce_value value;
    if (!decode_element(search->space, search->spec, stored, &value)) return false;
    *out_sign = value_compare(&value, search->wanted);
    return true;
}

/* A copy of a string or binary that outlives changes to its node. */
static bool detach_bytes(ce_value *value, void **out_copy)
{
    *out_copy = NULL;
    if ((value->type != CE_TYPE_STRING && value->type != CE_TYPE_BINARY) || value->string.size == 0) return true;
    void *copy = malloc(value->string.size);
    if (!copy) return out_of_memory();
    memcpy(copy, value->string.data, value->string.size);
    value->string.data = copy;
    *out_copy = copy;
    return true;
}

/* Replaces the element at `index` of `values` (links dropped and added). */
static bool replace_element(space_state *space, const element_spec *spec, space_ref *values, size_t index,
                            const ce_value *value, edit_request *request)
{
    ce_type type;
    bool nullable;
    storage_of(spec, &type, &nullable);
    ce_value old_stored = stored_ref(0), new_stored;
    /* Only a link or a mixed element is read (its links, its tree), never
     * through a scratch: a string or binary decompressed into
     * loaded->scratch would overwrite the value being written when the
     * caller read that value from this collection. */
    if ((spec->type == CE_TYPE_LINK || spec->type == CE_TYPE_MIXED) &&
        !collection_get(space, *values, type, nullable, index, NULL, &old_stored))
        return false;
    if (spec->type == CE_TYPE_LINK && old_stored.integer == (value->type == CE_TYPE_NULL ? 0 : value->link.key + 1))
        return true;
    request->changed = true;
    return collect_links(space, spec, &old_stored, &request->removed, 0) &&
           encode_element(space, spec, value, &new_stored) &&
           collection_set(space, values, type, nullable, index, &new_stored) &&
           (spec->type != CE_TYPE_MIXED || old_stored.integer == 0 || node_free_tree(space, (space_ref)old_stored.integer)) &&
           collect_links(space, spec, &new_stored, &request->added, 0);
}

static bool insert_element(space_state *space, const element_spec *spec, space_ref *values, size_t index,
                           const ce_value *value, edit_request *request)
{
    ce_type type;
    bool nullable;
    storage_of(spec, &type, &nullable);
    ce_value stored;
    request->changed = true;
    return encode_element(space, spec, value, &stored) && collection_insert(space, values, type, nullable, index, &stored) &&
           collect_links(space, spec, &stored, &request->added, 0);
}

static bool erase_element(space_state *space, schema *loaded, const element_spec *spec, space_ref *values, size_t index,
                          edit_request *request)
{
    ce_type type;
    bool nullable;
    storage_of(spec, &type, &nullable);
    ce_value stored;
    request->changed = true;
    return collection_get(space, *values, type, nullable, index, &loaded->search_scratch, &stored) &&
           collect_links(space, spec, &stored, &request->removed, 0) &&
           collection_erase(space, values, type, nullable, index);
}

static bool check_index(size_t index, size_t count, bool end_allowed)
{
    if (index < count || (end_allowed && index == count)) return true;
    return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %zu is out of bounds (the collection holds %zu values)", index, count);
}

static bool edit_list(space_state *space, schema *loaded, found_collection *found, edit_request *request)
{
    const element_spec *spec = &found->spec;
    ce_type type;
    bool nullable;
    size_t count;
    storage_of(spec, &type, &nullable);
    if (!collection_size(space, found->root, type, nullable, &count)) return false;
    switch (request->operation) {
    case EDIT_LIST_INSERT:
        return check_index(request->index, count, true) &&
               insert_element(space, spec, &found->root, request->index, request->value, request);
    case EDIT_LIST_SET:
        return check_index(request->index, count, false) &&
               replace_element(space, spec, &found->root, request->index, request->value, request);
    case EDIT_LIST_ERASE:
        return check_index(request->index, count, false) &&
               erase_element(space, loaded, spec, &found->root, request->index, request);
    case EDIT_LIST_MOVE: {
        if (!check_index(request->index, count, false) || !check_index(request->other, count, false)) return false;
        if (request->index == request->other) return true;
        ce_value moved;
        void *copy = NULL;
        ce_value detached = stored_ref(0);
        request->changed = true;
        /* An owned tree is detached first so that the erase does not free it. */
        bool ok = collection_get(space, found->root, type, nullable, request->index, &loaded->scratch, &moved) &&
                  detach_bytes(&moved, &copy) &&
                  (type != COLUMN_TYPE_OWNED_REFS ||
                   collection_set(space, &found->root, type, nullable, request->index, &detached)) &&
                  collection_erase(space, &found->root, type, nullable, request->index) &&
                  collection_insert(space, &found->root, type, nullable, request->other, &moved);
        free(copy);
        return ok;
    }
    case EDIT_LIST_SWAP: {
        if (!check_index(request->index, count, false) || !check_index(request->other, count, false)) return false;
        if (request->index == request->other) return true;
        ce_value a, b;
        void *copy_a = NULL, *copy_b = NULL;
        request->changed = true;
        bool ok = collection_get(space, found->root, type, nullable, request->index, &loaded->scratch, &a) &&
                  detach_bytes(&a, &copy_a) &&
                  collection_get(space, found->root, type, nullable, request->other, &loaded->scratch, &b) &&
                  detach_bytes(&b, &copy_b) && collection_set(space, &found->root, type, nullable, request->index, &b) &&
                  collection_set(space, &found->root, type, nullable, request->other, &a);
        free(copy_a);
        free(copy_b);
        return ok;
    }
    default: break;
    }
    return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': not a list operation", SPEC_WHERE(spec));
}

static bool edit_set(space_state *space, schema *loaded, found_collection *found, edit_request *request)
{
    const element_spec *spec = &found->spec;
    ce_type type;
    bool nullable, equal;
    size_t position;
    storage_of(spec, &type, &nullable);
    value_search_context search = {space, spec, request->value};
    if (!collection_lower_bound(space, found->root, type, nullable, &loaded->search_scratch, compare_element, &search,
                                &position, &equal))
        return false;
    if (request->operation == EDIT_SET_INSERT)
        return equal || insert_element(space, spec, &found->root, position, request->value, request);
    return !equal || erase_element(space, loaded, spec, &found->root, position, request);
}

static bool edit_dictionary(space_state *space, schema *loaded, found_collection *found, edit_request *request)
{
    space_ref keys, values;
    size_t position;
    bool present;
    if (!dictionary_parts(space, found->root, &keys, &values) ||
        !find_key(space, loaded, keys, request->key, request->key_size, &position, &present))
        return false;
    if (request->operation == EDIT_DICTIONARY_ERASE) {
        if (!present) return true;
        if (!collection_erase(space, &keys, CE_TYPE_STRING, false, position) ||
            !erase_element(space, loaded, &found->spec, &values, position, request))
            return false;
    } else if (present) {
        if (!replace_element(space, &found->spec, &values, position, request->value, request)) return false;
    } else {
        ce_value key = {.type = CE_TYPE_STRING, .string = {request->key, request->key_size}};
        if (!collection_insert(space, &keys, CE_TYPE_STRING, false, position, &key) ||
            !insert_element(space, &found->spec, &values, position, request->value, request))
            return false;
    }
    /* A key set to the link it holds changes nothing: the root stays as it
     * is (a copy made writable here would never be stored, and the
     * committed root it replaces would be freed while still in use). */
    if (!request->changed) return true;
    if (keys == 0 || values == 0) { /* the last key went: the dictionary is empty */
        if ((keys && !collection_destroy(space, keys)) || (values && !collection_destroy(space, values)) ||
            !node_free(space, found->root))
            return false;
        found->root = 0;
        return true;
    }
    if (found->root == 0) {
        if (!node_create(space, NODE_HAS_REFS, 2, 0, &found->root)) return false;
    } else if (!node_make_writable(space, &found->root)) {
        return false;
    }
    return node_set(space, found->root, 0, (int64_t)keys) && node_set(space, found->root, 1, (int64_t)values);
}

static bool apply_edit(ce_txn *txn, schema *loaded, found_collection *found, edit_request *request)
{
    space_state *space = db_txn_space(txn);
    if (request->operation == EDIT_CLEAR) {
        if (found->root == 0) return true;
        request->changed = true;
        if (!collect_collection_links(space, found->kind, &found->spec, found->root, &request->removed, 0) ||
            !node_free_tree(space, found->root))
            return false;
        found->root = 0;
        return true;
    }
    switch (found->kind) {
    case CE_COLLECTION_LIST: return edit_list(space, loaded, found, request);
    case CE_COLLECTION_SET:
        if (request->operation != EDIT_SET_INSERT && request->operation != EDIT_SET_ERASE) break;
        return edit_set(space, loaded, found, request);
    case CE_COLLECTION_DICTIONARY:
        if (request->operation != EDIT_DICTIONARY_SET && request->operation != EDIT_DICTIONARY_ERASE) break;
        return edit_dictionary(space, loaded, found, request);
    case CE_COLLECTION_NONE: break;
    }
    return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': that operation does not apply to a %s", SPEC_WHERE(&found->spec),
                   found->kind == CE_COLLECTION_LIST  ? "list"
                   : found->kind == CE_COLLECTION_SET ? "set"
                                                      : "dictionary");
}

/* Applies the edit at the end of the path and writes each level back. */
static bool edit_path(ce_txn *txn, schema *loaded, found_collection *found, const collection_step *steps,
                      size_t remaining, edit_request *request)
{
    if (remaining == 0) return apply_edit(txn, loaded, found, request);
    space_state *space = db_txn_space(txn);
    found_collection inner;
    space_ref node, values;
    size_t index;
    if (!find_nested(space, loaded, found, steps, &inner, &node) ||
        !edit_path(txn, loaded, &inner, steps + 1, remaining - 1, request))
        return false;
    if (!request->changed) return true;
    ce_value new_stored;
    if (!node_make_writable(space, &node) || !node_set(space, node, 1, (int64_t)inner.root) ||
        !step_position(space, loaded, found, steps, &index, &values))
        return false;
    new_stored = stored_ref(node);
    if (!collection_set(space, &values, COLUMN_TYPE_OWNED_REFS, false, index, &new_stored)) return false;
    if (found->kind == CE_COLLECTION_LIST) {
        found->root = values;
        return true;
    }
    return node_make_writable(space, &found->root) && node_set(space, found->root, 1, (int64_t)values);
}

static bool edit_collection(ce_collection *collection, edit_request *request)
{
    schema *loaded;
    found_collection found;
    ce_value stored;
    if (!collection || !db_txn_require_write(collection->txn) || !find_top(collection, &loaded, &found, &stored))
        return false;
    ce_txn *txn = collection->txn;
    bool ok = edit_path(txn, loaded, &found, collection->steps, collection->depth, request);
    if (ok && request->changed) {
        ce_value new_stored = stored_ref(found.root);
        if (collection->through_mixed) {
            space_ref node = (space_ref)stored.integer;
            ok = node_make_writable(db_txn_space(txn), &node) && node_set(db_txn_space(txn), node, 1, (int64_t)found.root);
            new_stored = stored_ref(node);
        }
        link_origin origin = {collection->table, collection->column, collection->object};
        ok = ok && write_stored(txn, loaded, collection->table, collection->object, collection->column, &new_stored) &&
             apply_link_changes(txn, loaded, &origin, &request->added, &request->removed, 0);
    }
    free(request->added.items);
    free(request->removed.items);
    return ok;
}

/* Checks a value for the collection's elements before an edit. */
/* How many mixed values hold the collection: 0 for a collection property,
 * 1 for the collection of a mixed property or of an element of a
 * collection property, one more per step below. collect_links and
 * purge_collection count levels the same way and take more than
 * MAX_NESTING for damage, so no collection is created deeper. */
static size_t nesting_level(const ce_collection *collection)
{
    return collection->depth + (collection->through_mixed ? 1 : 0);
}

static bool too_deep_to_nest(void)
{
    return error_fail(CE_ERR_INVALID_ARGUMENT, "collections nest at most %d levels deep", MAX_NESTING);
}

static bool check_collection_value(const ce_collection *collection, const ce_value *value)
{
    schema *loaded;
    found_collection found;
    if (!find_collection(collection, &loaded, &found) || !check_element(collection->txn, loaded, &found.spec, value))
        return false;
    if ((value->type == CE_TYPE_LIST || value->type == CE_TYPE_DICTIONARY) && nesting_level(collection) >= MAX_NESTING)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': collections nest at most %d levels deep",
                       SPEC_WHERE(&found.spec), MAX_NESTING);
    return true;
}

static bool check_dictionary_key(const char *key, size_t size)
{
    if (!key && size > 0) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key of %zu bytes has no data", size);
    if (!value_check_utf8(key, size)) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key is not valid UTF-8");
    if (size > 0 && key[0] == '$')
        return error_fail(CE_ERR_INVALID_ARGUMENT, "dictionary key '%.*s' must not start with '$'", (int)size, key);
    if (memchr(key, '.', size))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "dictionary key '%.*s' must not contain '.'", (int)size, key);
    return true;
}

/* ------------------------------------------------------------------------ */
/* The public collection calls                                               */
/* ------------------------------------------------------------------------ */

static bool open_handle(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column, bool through_mixed,
                        ce_collection **out_collection)
{
    if (!out_collection) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_open: out_collection is required");
    ce_collection *collection = calloc(1, sizeof *collection);
    if (!collection) return out_of_memory();
    *collection = (ce_collection){txn, table, object, column, through_mixed, 0, NULL, {NULL, 0, 0}, {NULL, 0, 0}};
    schema *loaded;
    found_collection found;
    if (!find_collection(collection, &loaded, &found)) {
        free(collection);
        return false;
    }
    *out_collection = collection;
    return true;
}

bool ce_collection_open(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                        ce_collection **out_collection)
{
    schema *loaded = NULL;
    schema_table *found_table = NULL;
    const schema_property *property = NULL;
    if (!find_table(txn, table, &loaded, &found_table) || !find_column(found_table, column, &property)) return false;
    if (property->collection == CE_COLLECTION_NONE)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a collection%s", found_table->name, property->name,
                       property->type == CE_TYPE_MIXED ? " (a mixed value: use ce_collection_open_mixed)" : "");
    return open_handle(txn, table, object, column, false, out_collection);
}

bool ce_collection_open_mixed(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                              ce_collection **out_collection)
{
    schema *loaded = NULL;
    schema_table *found_table = NULL;
    const schema_property *property = NULL;
    if (!find_table(txn, table, &loaded, &found_table) || !find_column(found_table, column, &property)) return false;
    if (property->type != CE_TYPE_MIXED || property->collection != CE_COLLECTION_NONE)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a mixed property", found_table->name, property->name);
    return open_handle(txn, table, object, column, true, out_collection);
}

bool ce_collection_open_nested(const ce_collection *parent, const ce_value *at, ce_collection **out_collection)
{
    if (!parent || !at || !out_collection)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_open_nested: arguments are required");
    if (nesting_level(parent) >= MAX_NESTING) return too_deep_to_nest();
    if (at->type != CE_TYPE_INT && at->type != CE_TYPE_STRING)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "a nested collection is reached by an index (int) or a key (string)");
    if (at->type == CE_TYPE_INT && at->integer < 0)
        return error_fail(CE_ERR_INDEX_OUT_OF_BOUNDS, "index %lld is out of bounds", (long long)at->integer);
    ce_collection *collection = calloc(1, sizeof *collection);
    collection_step *steps = calloc(parent->depth + 1, sizeof *steps);
    if (!collection || !steps) {
        free(collection);
        free(steps);
        return out_of_memory();
    }
    *collection = *parent;
    collection->values = collection->keys = (cached_reader){NULL, 0, 0}; /* the parent's are its own */
    collection->steps = steps;
    collection->depth = parent->depth + 1;
    bool ok = true;
    for (size_t i = 0; i < collection->depth && ok; i++) {
        const collection_step *source = i < parent->depth ? &parent->steps[i] : NULL;
        collection_step step = source ? *source
                                      : (collection_step){at->type == CE_TYPE_STRING,
                                                          at->type == CE_TYPE_INT ? (size_t)at->integer : 0,
                                                          (char *)at->string.data, at->string.size};
        if (!step.by_key) {
            steps[i] = (collection_step){false, step.index, NULL, 0};
            continue;
        }
        steps[i] = (collection_step){true, 0, malloc(step.key_size + 1), step.key_size};
        ok = steps[i].key != NULL;
        if (ok && step.key_size) memcpy(steps[i].key, step.key, step.key_size);
    }
    schema *loaded;
    found_collection found;
    if (!ok) {
        ce_collection_close(collection);
        return out_of_memory();
    }
    if (!find_collection(collection, &loaded, &found)) {
        ce_collection_close(collection);
        return false;
    }
    *out_collection = collection;
    return true;
}

void ce_collection_close(ce_collection *collection)
{
    if (!collection) return;
    table_collection_reader_close(collection->values.reader);
    table_collection_reader_close(collection->keys.reader);
    for (size_t i = 0; i < collection->depth; i++) free(collection->steps[i].key);
    free(collection->steps);
    free(collection);
}

bool ce_collection_kind(const ce_collection *collection, ce_collection_type *out_kind, ce_type *out_element_type)
{
    schema *loaded;
    found_collection found;
    if (!out_kind || !out_element_type) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_kind: arguments are required");
    if (!find_collection(collection, &loaded, &found)) return false;
    *out_kind = found.kind;
    *out_element_type = found.spec.type;
    return true;
}

/* The handle's reader of its values (`keys`: of a dictionary's keys) in the
 * transaction's current state: the cached one, unless anything changed
 * since it was resolved. */
static bool current_reader(const ce_collection *collection, bool keys, table_collection_reader **out_reader,
                           size_t *out_count)
{
    ce_collection *own = (ce_collection *)collection; /* every handle is allocated writable; only its cache changes */
    cached_reader *cached = keys ? &own->keys : &own->values;
    if (!cached->reader || cached->stamp != db_txn_stamp(collection->txn)) {
        table_collection_reader_close(cached->reader);
        cached->reader = NULL;
        if (!table_collection_reader_open(collection, keys, &cached->reader, &cached->count)) return false;
        /* (Taken after: resolving may flush objects the table layer buffered.) */
        cached->stamp = db_txn_stamp(collection->txn);
    }
    *out_reader = cached->reader;
    if (out_count) *out_count = cached->count;
    return true;
}

bool ce_collection_size(const ce_collection *collection, size_t *out_count)
{
    table_collection_reader *reader;
    if (!out_count) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_size: out_count is required");
    return current_reader(collection, false, &reader, out_count);
}

bool ce_collection_get(const ce_collection *collection, size_t index, ce_value *out_value)
{
    table_collection_reader *reader;
    if (!out_value) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_get: out_value is required");
    return current_reader(collection, false, &reader, NULL) && table_collection_reader_get(reader, index, out_value);
}

bool ce_collection_find(const ce_collection *collection, const ce_value *value, size_t *out_index, bool *out_found)
{
    schema *loaded;
    found_collection found;
    if (!value || !out_index || !out_found)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_collection_find: arguments are required");
    if (!find_collection(collection, &loaded, &found)) return false;
    const space_state *space = db_txn_space(collection->txn);
    ce_type type;
    bool nullable;
    storage_of(&found.spec, &type, &nullable);
    *out_found = false;
    if (found.kind == CE_COLLECTION_SET) {
        value_search_context search = {space, &found.spec, value};
        return collection_lower_bound(space, found.root, type, nullable, &loaded->search_scratch, compare_element,
                                      &search, out_index, out_found);
    }
    space_ref values;
    collection_reader reader;
    if (!found_values(space, &found, &values, &type, &nullable) ||
        !collection_reader_open(space, values, type, nullable, &reader))
        return false;
    for (size_t i = 0; i < collection_reader_size(&reader); i++) {
        ce_value stored, element;
        if (!collection_reader_get(&reader, i, &loaded->search_scratch, &stored) ||
            !decode_element(space, &found.spec, &stored, &element))
            return false;
        if (element.type == value->type && value_equal(&element, value) && element.type != CE_TYPE_LIST &&
            element.type != CE_TYPE_DICTIONARY) {
            *out_index = i;
            *out_found = true;
            return true;
        }
    }
    return true;
}

bool ce_collection_clear(ce_collection *collection)
{
    edit_request request = {.operation = EDIT_CLEAR};
    return edit_collection(collection, &request);
}

static bool edit_with_value(ce_collection *collection, edit_operation operation, size_t index, const ce_value *value)
{
    if (!check_collection_value(collection, value)) return false;
    edit_request request = {.operation = operation, .index = index, .value = value};
    return edit_collection(collection, &request);
}

bool ce_list_insert(ce_collection *list, size_t index, const ce_value *value)
{
    return edit_with_value(list, EDIT_LIST_INSERT, index, value);
}

bool ce_list_set(ce_collection *list, size_t index, const ce_value *value)
{
    return edit_with_value(list, EDIT_LIST_SET, index, value);
}

bool ce_list_erase(ce_collection *list, size_t index)
{
    edit_request request = {.operation = EDIT_LIST_ERASE, .index = index};
    return edit_collection(list, &request);
}

bool ce_list_move(ce_collection *list, size_t from, size_t to)
{
    edit_request request = {.operation = EDIT_LIST_MOVE, .index = from, .other = to};
    return edit_collection(list, &request);
}

bool ce_list_swap(ce_collection *list, size_t a, size_t b)
{
    edit_request request = {.operation = EDIT_LIST_SWAP, .index = a, .other = b};
    return edit_collection(list, &request);
}

/* A new embedded object stored by an edit (inserted, or replacing). */
static bool edit_embedded(ce_collection *collection, edit_operation operation, size_t index, const char *key,
                          size_t key_size, ce_object_key *out_embedded)
{
    schema *loaded;
    found_collection found;
    if (!out_embedded) return error_fail(CE_ERR_INVALID_ARGUMENT, "out_embedded is required");
    if (!collection || !db_txn_require_write(collection->txn) || !find_collection(collection, &loaded, &found) ||
        !require_embedded_target(loaded, &found.spec))
        return false;
    /* The kind of collection and the position are checked before the
     * object exists, so that a call that fails creates nothing (an
     * embedded object without a parent). */
    ce_collection_type kind = operation == EDIT_DICTIONARY_SET ? CE_COLLECTION_DICTIONARY : CE_COLLECTION_LIST;
    if (found.kind != kind)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s': that operation does not apply to a %s", SPEC_WHERE(&found.spec),
                       found.kind == CE_COLLECTION_LIST ? "list" : "dictionary");
    if (operation != EDIT_DICTIONARY_SET) {
        size_t count;
        if (!ce_collection_size(collection, &count) || !check_index(index, count, operation == EDIT_LIST_INSERT))
            return false;
    }
    if (!check_embedding_depth(collection->txn, loaded, collection->table, collection->object)) return false;
    ce_object_key child;
    if (!create_embedded(collection->txn, loaded, found.spec.link_target, &child)) return false;
    ce_value link = {.type = CE_TYPE_LINK, .link = {found.spec.link_target, child}};
    edit_request request = {.operation = operation, .index = index, .value = &link, .key = key, .key_size = key_size};
    if (!edit_collection(collection, &request)) return false;
    *out_embedded = child;
    return true;
}

bool ce_list_insert_embedded(ce_collection *list, size_t index, ce_object_key *out_embedded)
{
    return edit_embedded(list, EDIT_LIST_INSERT, index, NULL, 0, out_embedded);
}

bool ce_list_set_embedded(ce_collection *list, size_t index, ce_object_key *out_embedded)
{
    return edit_embedded(list, EDIT_LIST_SET, index, NULL, 0, out_embedded);
}

bool ce_set_insert(ce_collection *set, const ce_value *value, bool *out_changed)
{
    if (!check_collection_value(set, value)) return false;
    edit_request request = {.operation = EDIT_SET_INSERT, .value = value};
    if (!edit_collection(set, &request)) return false;
    if (out_changed) *out_changed = request.changed;
    return true;
}

bool ce_set_erase(ce_collection *set, const ce_value *value, bool *out_changed)
{
    if (!value) return error_fail(CE_ERR_INVALID_ARGUMENT, "a value is required");
    edit_request request = {.operation = EDIT_SET_ERASE, .value = value};
    if (!edit_collection(set, &request)) return false;
    if (out_changed) *out_changed = request.changed;
    return true;
}

bool ce_dictionary_get(const ce_collection *dictionary, const char *key, size_t key_size, ce_value *out_value,
                       bool *out_found)
{
    schema *loaded;
    found_collection found;
    if (!out_value || !out_found) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_dictionary_get: arguments are required");
    if (!key && key_size) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key of %zu bytes has no data", key_size);
    if (!find_collection(dictionary, &loaded, &found)) return false;
    if (found.kind != CE_COLLECTION_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a dictionary", SPEC_WHERE(&found.spec));
    const space_state *space = db_txn_space(dictionary->txn);
    space_ref keys, values;
    size_t position;
    ce_type type;
    bool nullable;
    ce_value stored;
    storage_of(&found.spec, &type, &nullable);
    if (!dictionary_parts(space, found.root, &keys, &values) ||
        !find_key(space, loaded, keys, key ? key : "", key_size, &position, out_found))
        return false;
    if (!*out_found) return true;
    return collection_get(space, values, type, nullable, position, &loaded->scratch, &stored) &&
           decode_element(space, &found.spec, &stored, out_value);
}

bool ce_dictionary_key_at(const ce_collection *dictionary, size_t index, ce_value *out_key)
{
    table_collection_reader *reader;
    if (!out_key) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_dictionary_key_at: out_key is required");
    return current_reader(dictionary, true, &reader, NULL) && table_collection_reader_get(reader, index, out_key);
}

bool ce_dictionary_set(ce_collection *dictionary, const char *key, size_t key_size, const ce_value *value)
{
    if (!check_dictionary_key(key, key_size) || !check_collection_value(dictionary, value)) return false;
    edit_request request = {.operation = EDIT_DICTIONARY_SET, .value = value, .key = key ? key : "", .key_size = key_size};
    return edit_collection(dictionary, &request);
}

bool ce_dictionary_erase(ce_collection *dictionary, const char *key, size_t key_size, bool *out_erased)
{
    if (!key && key_size) return error_fail(CE_ERR_INVALID_ARGUMENT, "a dictionary key of %zu bytes has no data", key_size);
    edit_request request = {.operation = EDIT_DICTIONARY_ERASE, .key = key ? key : "", .key_size = key_size};
    if (!edit_collection(dictionary, &request)) return false;
    if (out_erased) *out_erased = request.changed;
    return true;
}

bool ce_dictionary_insert_embedded(ce_collection *dictionary, const char *key, size_t key_size,
                                   ce_object_key *out_embedded)
{
    if (!check_dictionary_key(key, key_size)) return false;
    return edit_embedded(dictionary, EDIT_DICTIONARY_SET, 0, key ? key : "", key_size, out_embedded);
}

/* ------------------------------------------------------------------------ */
/* Scans                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct column_sum {
    const space_state *space;
    const cluster_column *spec;
    size_t column;
    uint64_t integer_sum; /* unsigned: wraps instead of overflowing */
    double double_sum;
    size_t counted;
} column_sum;

static bool sum_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    (void)stop;
    column_sum *sum = context;
    column_numbers numbers;
    if (!column_numbers_view(sum->space, cluster_leaf_column(leaf, sum->column), sum->spec->type, sum->spec->nullable,
                             &numbers))
        return false;
    const node_view *values = &numbers.values;
    if (sum->spec->type == CE_TYPE_DOUBLE && !numbers.has_nulls && values->width == 64 && !values->based) {
        /* The common case, a plain array of doubles: one tight loop. */
        sum->double_sum += node_sum_doubles(values, numbers.count);
        sum->counted += numbers.count;
        return true;
    }
    for (size_t i = 0; i < numbers.count; i++) {
        if (numbers.has_nulls && node_get(&numbers.nulls, i)) continue;
        int64_t bits = node_get(values, i);
        if (sum->spec->type == CE_TYPE_INT) {
            sum->integer_sum += (uint64_t)bits;
        } else if (sum->spec->type == CE_TYPE_DOUBLE) {
            double value;
            memcpy(&value, &bits, 8);
            sum->double_sum += value;
        } else {
            uint32_t narrow = (uint32_t)bits;
            float value;
            memcpy(&value, &narrow, 4);
            sum->double_sum += value;
        }
        sum->counted++;
    }
    return true;
}

bool ce_table_sum(ce_txn *txn, ce_table_key key, ce_column_key column, ce_value *out_sum, size_t *out_counted)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_sum) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_sum: out_sum is required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property)) return false;
    if (property->type != CE_TYPE_INT && property->type != CE_TYPE_FLOAT && property->type != CE_TYPE_DOUBLE)
        return error_fail(CE_ERR_WRONG_TYPE, "cannot sum property '%s.%s' of type %s", table->name, property->name,
                       ce_type_name(property->type));
    if (!table_refs_for_read(txn, key, &refs)) return false;
    column_sum sum = {db_txn_space(txn), &table->columns[column], column, 0, 0, 0};
    if (!cluster_for_each_leaf(db_txn_space(txn), refs.cluster, column, sum_leaf, &sum)) return false;
    if (property->type == CE_TYPE_INT) *out_sum = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)sum.integer_sum};
    else *out_sum = (ce_value){.type = CE_TYPE_DOUBLE, .double_value = sum.double_sum};
    if (out_counted) *out_counted = sum.counted;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Internal interface for the query layer (table.h)                          */
/* ------------------------------------------------------------------------ */

#include "table.h"

bool table_name_of(ce_txn *txn, ce_table_key key, const char **out_name) { return ce_table_name(txn, key, out_name); }

bool table_find_by_name(ce_txn *txn, const char *name, size_t length, ce_table_key *out_table, bool *out_found)
{
    schema *loaded = NULL;
    if (!txn) return error_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    if (!load_schema(txn, &loaded)) return false;
    *out_found = false;
    for (size_t t = 0; t < loaded->table_count; t++) {
        const schema_table *table = &loaded->tables[t];
        if (!(table->flags & TABLE_REMOVED) && strlen(table->name) == length && memcmp(table->name, name, length) == 0) {
            *out_table = (ce_table_key)t;
            *out_found = true;
        }
    }
    return true;
}

static void describe_for_query(const schema_table *table, size_t column, table_property *out)
{
    const schema_property *property = &table->properties[column];
    *out = (table_property){property->name,
                            (ce_column_key)column,
                            property->type,
                            (property->flags & PROPERTY_NULLABLE) != 0,
                            column_is_indexed(table, column),
                            (property->flags & PROPERTY_PRIMARY) != 0,
                            (ce_collection_type)property->collection,
                            (property->flags & PROPERTY_BACKLINK) != 0,
                            (ce_table_key)property->link_target,
                            (ce_column_key)property->origin_column};
}

bool table_find_property(ce_txn *txn, ce_table_key key, const char *name, size_t length, table_property *out_property,
                         bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        if (!property_is_live(property) || (property->flags & PROPERTY_BACKLINK) || strlen(property->name) != length ||
            memcmp(property->name, name, length) != 0)
            continue;
        describe_for_query(table, p, out_property);
        *out_found = true;
    }
    return true;
}

bool table_find_backlink(ce_txn *txn, ce_table_key key, ce_table_key origin_table, ce_column_key origin_column,
                         table_property *out_property, bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        if (!property_is_live(property) || !(property->flags & PROPERTY_BACKLINK) ||
            property->link_target != origin_table || property->origin_column != origin_column)
            continue;
        describe_for_query(table, p, out_property);
        *out_found = true;
    }
    return true;
}

bool table_flush(ce_txn *txn, ce_table_key key)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    return find_table(txn, key, &loaded, &table) && flush_appends_of(txn, key);
}

bool table_cluster(ce_txn *txn, ce_table_key key, space_ref *out_root, cluster_schema *out_columns)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs)) return false;
    *out_root = refs.cluster;
    *out_columns = cluster_schema_of(table);
    return true;
}

/* The root of an indexed column's index (0: the column has no index). */
static bool query_index_root(ce_txn *txn, ce_table_key key, ce_column_key column, space_ref *out_root)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    *out_root = 0;
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property)) return false;
    if (!column_is_indexed(table, column)) return true;
    if (!table_refs_for_read(txn, key, &refs) || !column_index(txn, &refs, column, out_root)) return false;
    if (!*out_root)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s.%s' is indexed but has no index", table->name,
                       property->name);
    return true;
}

typedef struct candidate_walk {
    table_object_visitor visit;
    void *context;
} candidate_walk;

static bool visit_candidate(void *context, int64_t key, int64_t object, bool *stop)
{
    (void)key;
    const candidate_walk *walk = context;
    return walk->visit(walk->context, object, stop);
}

bool table_index_candidates(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                            table_object_visitor visit, void *context, bool *out_indexed)
{
    space_ref root;
    if (!query_index_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    candidate_walk walk = {visit, context};
    return index_for_each_with_key(db_txn_space(txn), root, index_key_of(value), visit_candidate, &walk);
}

bool table_index_first(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                       ce_object_key *out_object, bool *out_found, bool *out_indexed)
{
    space_ref root;
    *out_found = false;
    if (!query_index_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    int64_t object;
    if (!index_find_first(db_txn_space(txn), root, index_key_of(value), &object, out_found)) return false;
    if (*out_found) *out_object = object;
    return true;
}

bool table_index_candidate_count(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                                 size_t *out_count, bool *out_indexed)
{
    space_ref root;
    *out_count = 0;
    if (!query_index_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    return index_count_key(db_txn_space(txn), root, index_key_of(value), out_count);
}

bool table_collection_owner(const ce_collection *collection, ce_table_key *out_table, ce_object_key *out_object,
                            ce_column_key *out_column, bool *out_nested)
{
    if (!collection) return error_fail(CE_ERR_INVALID_ARGUMENT, "a collection is required");
    *out_table = collection->table;
    *out_object = collection->object;
    *out_column = (ce_column_key)collection->column;
    *out_nested = collection->through_mixed || collection->depth > 0;
    return true;
}

struct table_collection_reader {
    const space_state *space;
    element_spec spec; /* how the values decode; unused for keys */
    bool keys;
    column_scratch *scratch;
    collection_reader values;
};

bool table_collection_reader_open(const ce_collection *collection, bool keys, table_collection_reader **out_reader,
                                  size_t *out_count)
{
    schema *loaded;
    found_collection found;
    if (!find_collection(collection, &loaded, &found)) return false;
    if (keys && found.kind != CE_COLLECTION_DICTIONARY)
        return error_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is not a dictionary", SPEC_WHERE(&found.spec));
    const space_state *space = db_txn_space(collection->txn);
    space_ref values, dictionary_values;
    ce_type type = CE_TYPE_STRING;
    bool nullable = false;
    if (keys ? !dictionary_parts(space, found.root, &values, &dictionary_values)
             : !found_values(space, &found, &values, &type, &nullable))
        return false;
    table_collection_reader *reader = malloc(sizeof *reader);
    if (!reader) return out_of_memory();
    reader->space = space;
    reader->spec = found.spec;
    reader->keys = keys;
    reader->scratch = keys ? &loaded->key_scratch : &loaded->scratch;
    if (!collection_reader_open(space, values, type, nullable, &reader->values)) {
        free(reader);
        return false;
    }
    *out_reader = reader;
    *out_count = collection_reader_size(&reader->values);
    return true;
}

bool table_collection_reader_get(table_collection_reader *reader, size_t index, ce_value *out_value)
{
    if (reader->keys) return collection_reader_get(&reader->values, index, reader->scratch, out_value);
    ce_value stored;
    return collection_reader_get(&reader->values, index, reader->scratch, &stored) &&
           decode_element(reader->space, &reader->spec, &stored, out_value);
}

void table_collection_reader_close(table_collection_reader *reader) { free(reader); }
