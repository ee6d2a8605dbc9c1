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
#include "column.h"
#include "db.h"
#include "error.h"
#include "index.h"
#include "node.h"
#include "value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GROUP_SCHEMA = 0, GROUP_TABLES = 1, GROUP_VERSION = 2, GROUP_COUNT = 3 };
enum { TABLE_CLUSTER = 0, TABLE_NEXT_KEY = 1, TABLE_INDEXES = 2, TABLE_COUNT = 3 };

#define NAME_MAX_BYTES 63
#define NO_PRIMARY_KEY SIZE_MAX

enum { PROPERTY_REMOVED = 1, PROPERTY_NULLABLE = 2, PROPERTY_PRIMARY = 4, PROPERTY_INDEXED = 8 };
enum { TABLE_REMOVED = 1 };

typedef struct schema_property {
    char *name;
    ce_type type;
    uint8_t flags;
} schema_property;

typedef struct schema_table {
    char *name;
    uint8_t flags;
    size_t property_count;
    schema_property *properties;
    cluster_column *columns; /* derived: what the cluster tree needs */
    size_t primary_key;      /* column, or NO_PRIMARY_KEY */
} schema_table;

typedef struct schema {
    size_t table_count;
    schema_table *tables;
    ce_column_scratch scratch; /* compressed values read in this transaction */
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
    free(loaded);
}

static bool out_of_memory(void) { return ce_fail(CE_ERR_OUT_OF_MEMORY, "out of memory"); }

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
        columns[p].type = removed ? CE_TYPE_NULL : property->type;
        columns[p].nullable = (property->flags & PROPERTY_NULLABLE) != 0;
        if (!removed && (property->flags & PROPERTY_PRIMARY)) table->primary_key = p;
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
/*   u32 property count; per property: u8 flags, u8 type, u16 name length,  */
/*   name.                                                                   */
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
                !read_name(&reader, &property->name))
                return false;
            if (type < CE_TYPE_INT || type > CE_TYPE_UUID) return false;
            property->type = (ce_type)type;
        }
        if (!derive_columns(table)) return false;
    }
    return reader.offset == size;
}

static bool append_bytes(uint8_t **buffer, size_t *size, size_t *capacity, const void *data, size_t length)
{
    if (*size + length > *capacity) {
        size_t grown = *capacity ? *capacity * 2 : 256;
        while (grown < *size + length) grown *= 2;
        uint8_t *bigger = realloc(*buffer, grown);
        if (!bigger) return out_of_memory();
        *buffer = bigger;
        *capacity = grown;
    }
    memcpy(*buffer + *size, data, length);
    *size += length;
    return true;
}

static bool append_name(uint8_t **buffer, size_t *size, size_t *capacity, const char *name)
{
    uint16_t length = (uint16_t)strlen(name);
    return append_bytes(buffer, size, capacity, &length, 2) && append_bytes(buffer, size, capacity, name, length);
}

static bool serialize_schema(const schema *loaded, uint8_t **out_bytes, size_t *out_size)
{
    uint8_t *buffer = NULL;
    size_t size = 0, capacity = 0;
    uint32_t table_count = (uint32_t)loaded->table_count;
    bool ok = append_bytes(&buffer, &size, &capacity, &table_count, 4);
    for (size_t t = 0; ok && t < loaded->table_count; t++) {
        const schema_table *table = &loaded->tables[t];
        uint32_t property_count = (uint32_t)table->property_count;
        ok = append_bytes(&buffer, &size, &capacity, &table->flags, 1) &&
             append_name(&buffer, &size, &capacity, table->name) &&
             append_bytes(&buffer, &size, &capacity, &property_count, 4);
        for (size_t p = 0; ok && p < table->property_count; p++) {
            const schema_property *property = &table->properties[p];
            uint8_t type = (uint8_t)property->type;
            ok = append_bytes(&buffer, &size, &capacity, &property->flags, 1) &&
                 append_bytes(&buffer, &size, &capacity, &type, 1) &&
                 append_name(&buffer, &size, &capacity, property->name);
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

static bool read_group(ce_txn *txn, ce_node *out_group)
{
    ce_ref root = db_txn_root(txn);
    if (!node_read(db_txn_space(txn), root, out_group)) return false;
    if ((out_group->flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS || out_group->count != GROUP_COUNT ||
        !node_value_is_ref(node_get(out_group, GROUP_SCHEMA)) || !node_value_is_ref(node_get(out_group, GROUP_TABLES)) ||
        (node_get(out_group, GROUP_VERSION) & 1) == 0)
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the group node is damaged");
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
        ce_node group, bytes;
        if (!read_group(txn, &group) || !node_read(db_txn_space(txn), (ce_ref)node_get(&group, GROUP_SCHEMA), &bytes)) {
            free_schema(loaded);
            return false;
        }
        if (!(bytes.flags & NODE_BYTES) || !parse_schema(bytes.payload, bytes.count, loaded)) {
            free_schema(loaded);
            return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the schema is damaged");
        }
        /* Every table slot must have a table node (or 0 for a removed table). */
        ce_node tables;
        if (!node_read(db_txn_space(txn), (ce_ref)node_get(&group, GROUP_TABLES), &tables) ||
            tables.count != loaded->table_count || !(tables.flags & NODE_HAS_REFS)) {
            free_schema(loaded);
            return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table list does not match the schema");
        }
    }
    db_txn_set_layer_state(txn, loaded, free_schema);
    *out_schema = loaded;
    return true;
}

/* Makes the group writable (creating it in a new file) and returns its ref. */
static bool writable_group(ce_txn *txn, ce_ref *out_group)
{
    if (!db_txn_require_write(txn)) return false;
    ce_space *space = db_txn_space(txn);
    ce_ref group = db_txn_root(txn);
    if (!group) {
        ce_ref schema_bytes, tables;
        uint32_t no_tables = 0;
        if (!node_create(space, NODE_HAS_REFS, GROUP_COUNT, 0, &group) ||
            !node_create_bytes(space, 0, &no_tables, 4, &schema_bytes) ||
            !node_create(space, NODE_HAS_REFS, 0, 0, &tables) ||
            !node_set(space, group, GROUP_SCHEMA, (int64_t)schema_bytes) ||
            !node_set(space, group, GROUP_TABLES, (int64_t)tables) ||
            !node_set(space, group, GROUP_VERSION, node_tag(0)))
            return false;
    } else {
        ce_node view;
        if (!read_group(txn, &view) || !node_make_writable(space, &group)) return false;
    }
    if (!db_txn_set_root(txn, group)) return false;
    *out_group = group;
    return true;
}

/* Writes the schema (after a change to it in memory) into the group. */
static bool store_schema(ce_txn *txn, const schema *loaded)
{
    ce_ref group;
    if (!writable_group(txn, &group)) return false;
    ce_space *space = db_txn_space(txn);
    uint8_t *bytes;
    size_t size;
    if (!serialize_schema(loaded, &bytes, &size)) return false;
    ce_node view;
    ce_ref schema_bytes;
    bool ok = node_read(space, group, &view) && node_free(space, (ce_ref)node_get(&view, GROUP_SCHEMA)) &&
              node_create_bytes(space, 0, bytes, size, &schema_bytes) &&
              node_set(space, group, GROUP_SCHEMA, (int64_t)schema_bytes);
    free(bytes);
    return ok;
}

/* The writable tables node of the group. */
static bool writable_tables(ce_txn *txn, ce_ref group, ce_ref *out_tables)
{
    ce_space *space = db_txn_space(txn);
    ce_node view;
    if (!node_read(space, group, &view)) return false;
    ce_ref tables = (ce_ref)node_get(&view, GROUP_TABLES);
    if (!node_make_writable(space, &tables) || !node_set(space, group, GROUP_TABLES, (int64_t)tables)) return false;
    *out_tables = tables;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Finding tables and properties                                             */
/* ------------------------------------------------------------------------ */

static bool find_table(ce_txn *txn, ce_table_key key, schema **out_schema, schema_table **out_table)
{
    if (!txn) return ce_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
    schema *loaded = NULL;
    if (!load_schema(txn, &loaded)) return false;
    if (key >= loaded->table_count || (loaded->tables[key].flags & TABLE_REMOVED))
        return ce_fail(CE_ERR_NO_SUCH_TABLE, "no table with key %u", (unsigned)key);
    *out_schema = loaded;
    *out_table = &loaded->tables[key];
    return true;
}

static bool find_column(const schema_table *table, ce_column_key column, const schema_property **out_property)
{
    if (column >= table->property_count || (table->properties[column].flags & PROPERTY_REMOVED))
        return ce_fail(CE_ERR_NO_SUCH_PROPERTY, "table '%s' has no property with key %u", table->name, (unsigned)column);
    *out_property = &table->properties[column];
    return true;
}

/* A table node, read-only: its cluster tree, next key and index. */
typedef struct table_refs {
    ce_ref table;
    ce_ref cluster;
    int64_t next_key;
    ce_ref indexes;
} table_refs;

static bool read_table_node(ce_txn *txn, ce_ref table_ref, table_refs *out)
{
    ce_node view;
    if (!node_read(db_txn_space(txn), table_ref, &view)) return false;
    if ((view.flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS || view.count != TABLE_COUNT ||
        !node_value_is_ref(node_get(&view, TABLE_CLUSTER)) || (node_get(&view, TABLE_NEXT_KEY) & 1) == 0 ||
        node_untag(node_get(&view, TABLE_NEXT_KEY)) < 0)
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table node at %llu is damaged",
                       (unsigned long long)table_ref);
    int64_t indexes = node_get(&view, TABLE_INDEXES);
    if (indexes != 0 && !node_value_is_ref(indexes))
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the table node at %llu is damaged",
                       (unsigned long long)table_ref);
    *out = (table_refs){table_ref, (ce_ref)node_get(&view, TABLE_CLUSTER), node_untag(node_get(&view, TABLE_NEXT_KEY)),
                        (ce_ref)indexes};
    return true;
}

static bool table_refs_for_read(ce_txn *txn, ce_table_key key, table_refs *out)
{
    ce_node group, tables;
    if (!read_group(txn, &group) || !node_read(db_txn_space(txn), (ce_ref)node_get(&group, GROUP_TABLES), &tables))
        return false;
    if (key >= tables.count || !node_value_is_ref(node_get(&tables, key)))
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: table %u has no node", (unsigned)key);
    return read_table_node(txn, (ce_ref)node_get(&tables, key), out);
}

/* Makes the path group → tables → table writable and returns the table's refs. */
static bool table_refs_for_write(ce_txn *txn, ce_table_key key, table_refs *out)
{
    ce_ref group, tables;
    if (!writable_group(txn, &group) || !writable_tables(txn, group, &tables)) return false;
    ce_space *space = db_txn_space(txn);
    ce_node view;
    if (!node_read(space, tables, &view)) return false;
    if (key >= view.count || !node_value_is_ref(node_get(&view, key)))
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: table %u has no node", (unsigned)key);
    ce_ref table = (ce_ref)node_get(&view, key);
    if (!read_table_node(txn, table, out) || !node_make_writable(space, &table) ||
        !node_set(space, tables, key, (int64_t)table))
        return false;
    out->table = table;
    return true;
}

/* Stores changed refs back into a writable table node. */
static bool store_table_refs(ce_txn *txn, const table_refs *refs)
{
    ce_space *space = db_txn_space(txn);
    return node_set(space, refs->table, TABLE_CLUSTER, (int64_t)refs->cluster) &&
           node_set(space, refs->table, TABLE_NEXT_KEY, node_tag(refs->next_key)) &&
           node_set(space, refs->table, TABLE_INDEXES, (int64_t)refs->indexes);
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

static bool check_name(const char *name, const char *what)
{
    if (!name) return ce_fail(CE_ERR_INVALID_ARGUMENT, "a %s name is required", what);
    size_t length = strlen(name);
    if (length == 0 || length > NAME_MAX_BYTES || !value_check_utf8(name, length))
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "'%s' is not a valid %s name (1 to %d bytes of UTF-8)", name, what,
                       NAME_MAX_BYTES);
    return true;
}

bool ce_table_count(ce_txn *txn, size_t *out_count)
{
    if (!txn || !out_count) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_count: arguments are required");
    schema *loaded = NULL;
    if (!load_schema(txn, &loaded)) return false;
    *out_count = loaded->table_count;
    return true;
}

bool ce_table_find(ce_txn *txn, const char *name, ce_table_key *out_table, bool *out_found)
{
    if (!txn || !name || !out_table || !out_found)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_find: arguments are required");
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
    if (!out_name) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_name: out_name is required");
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_name = table->name;
    return true;
}

bool ce_table_add(ce_txn *txn, const char *name, ce_table_key *out_table)
{
    schema *loaded = NULL;
    bool found;
    ce_table_key existing;
    if (!db_txn_require_write(txn) || !check_name(name, "table") || !out_table) return false;
    if (!ce_table_find(txn, name, &existing, &found) || !load_schema(txn, &loaded)) return false;
    if (found) return ce_fail(CE_ERR_DUPLICATE_NAME, "a table named '%s' exists already", name);
    schema_table *grown = realloc(loaded->tables, (loaded->table_count + 1) * sizeof *grown);
    if (!grown) return out_of_memory();
    loaded->tables = grown;
    schema_table *table = &loaded->tables[loaded->table_count];
    memset(table, 0, sizeof *table);
    table->name = strdup(name);
    table->primary_key = NO_PRIMARY_KEY;
    if (!table->name || !derive_columns(table)) return out_of_memory();
    loaded->table_count++;

    ce_space *space = db_txn_space(txn);
    ce_ref group, tables, table_node, cluster;
    cluster_schema empty = cluster_schema_of(table);
    if (!store_schema(txn, loaded) || !writable_group(txn, &group) || !writable_tables(txn, group, &tables) ||
        !cluster_create(space, &empty, &cluster) || !node_create(space, NODE_HAS_REFS, TABLE_COUNT, 0, &table_node) ||
        !node_set(space, table_node, TABLE_CLUSTER, (int64_t)cluster) ||
        !node_set(space, table_node, TABLE_NEXT_KEY, node_tag(0)) || !node_append(space, tables, (int64_t)table_node))
        return false;
    *out_table = (ce_table_key)(loaded->table_count - 1);
    return true;
}

bool ce_table_remove(ce_txn *txn, ce_table_key key)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !table_refs_for_write(txn, key, &refs))
        return false;
    ce_space *space = db_txn_space(txn);
    ce_ref group, tables;
    /* The index list is a has-refs tree: freeing it frees every index. */
    if (!cluster_destroy(space, refs.cluster) || (refs.indexes && !node_free_tree(space, refs.indexes)) ||
        !node_free(space, refs.table) || !writable_group(txn, &group) || !writable_tables(txn, group, &tables) ||
        !node_set(space, tables, key, 0))
        return false;
    table->flags |= TABLE_REMOVED;
    return store_schema(txn, loaded);
}

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
static bool column_index(ce_txn *txn, const table_refs *refs, size_t column, ce_ref *out_index)
{
    *out_index = 0;
    if (!refs->indexes) return true;
    ce_node list;
    if (!node_read(db_txn_space(txn), refs->indexes, &list)) return false;
    if ((list.flags & (NODE_HAS_REFS | NODE_INNER | NODE_BYTES)) != NODE_HAS_REFS)
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the index list at %llu is damaged",
                       (unsigned long long)refs->indexes);
    if (column >= list.count) return true;
    int64_t root = node_get(&list, column);
    if (root != 0 && !node_value_is_ref(root))
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: the index list at %llu is damaged",
                       (unsigned long long)refs->indexes);
    *out_index = (ce_ref)root;
    return true;
}

/* Stores a column's index root in the index list (made writable, created,
 * or grown to the table's column count as needed). */
static bool set_column_index(ce_txn *txn, table_refs *refs, const schema_table *table, size_t column, ce_ref index)
{
    ce_space *space = db_txn_space(txn);
    if (!refs->indexes) {
        if (!node_create(space, NODE_HAS_REFS, table->property_count, 0, &refs->indexes)) return false;
    } else if (!node_make_writable(space, &refs->indexes)) {
        return false;
    }
    ce_node list;
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
    ce_ref root;
    if (!column_index(txn, refs, column, &root)) return false;
    if (!root) return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s.%s' is indexed but has no index",
                              table->name, table->properties[column].name);
    ce_space *space = db_txn_space(txn);
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
                     &search->schema->scratch, &actual))
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
    ce_ref column = cluster_leaf_column(leaf, search->column);
    for (size_t i = 0; i < leaf->key_offsets.count; i++) {
        ce_value actual;
        if (!column_get(db_txn_space(search->txn), column, spec->type, spec->nullable, i, &search->schema->scratch,
                        &actual))
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
    value_search search = {txn, loaded, refs, table, column, value, 0, false};
    ce_ref root = 0;
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
                   : cluster_for_each_leaf(db_txn_space(txn), refs->cluster, scan_leaf, &search);
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
    ce_ref root;
} index_build;

static bool index_leaf(void *context, const cluster_leaf *leaf, bool *stop)
{
    (void)stop;
    index_build *build = context;
    const cluster_column *spec = &build->table->columns[build->column];
    ce_space *space = db_txn_space(build->txn);
    for (size_t i = 0; i < leaf->key_offsets.count; i++) {
        ce_value value;
        if (!column_get(space, cluster_leaf_column(leaf, build->column), spec->type, spec->nullable, i,
                        &build->schema->scratch, &value) ||
            !index_insert(space, &build->root, index_key_of(&value), cluster_leaf_key(leaf, i)))
            return false;
    }
    return true;
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
    if (!name || !out_column || !out_found) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_find: arguments are required");
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        if (!(table->properties[p].flags & PROPERTY_REMOVED) && strcmp(table->properties[p].name, name) == 0) {
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
    if (!out_count) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_count: out_count is required");
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_count = table->property_count;
    return true;
}

bool ce_property_get_info(ce_txn *txn, ce_table_key key, ce_column_key column, ce_property_info *out_info)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    if (!out_info) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_get_info: out_info is required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property)) return false;
    *out_info = (ce_property_info){property->name, property->type, (property->flags & PROPERTY_NULLABLE) != 0,
                                   (property->flags & PROPERTY_PRIMARY) != 0, (property->flags & PROPERTY_INDEXED) != 0};
    return true;
}

bool ce_property_add(ce_txn *txn, ce_table_key key, const ce_property_info *info, ce_column_key *out_column)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!info || !out_column) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_property_add: arguments are required");
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !check_name(info->name, "property"))
        return false;
    bool found;
    ce_column_key existing;
    if (!ce_property_find(txn, key, info->name, &existing, &found)) return false;
    if (found) return ce_fail(CE_ERR_DUPLICATE_NAME, "table '%s' has a property named '%s' already", table->name, info->name);
    if (info->type < CE_TYPE_INT || info->type > CE_TYPE_UUID)
        return ce_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': the engine does not store properties of type %s",
                       table->name, info->name, ce_type_name(info->type));
    if (info->indexed && !info->primary_key && !indexable_type(info->type))
        return ce_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': properties of type %s cannot be indexed", table->name,
                       info->name, ce_type_name(info->type));
    table_refs refs;
    if (!table_refs_for_write(txn, key, &refs)) return false;
    if (info->primary_key) {
        size_t objects;
        if (!primary_key_type(info->type))
            return ce_fail(CE_ERR_INVALID_SCHEMA, "property '%s.%s': a primary key must be int, string, objectId or uuid, not %s",
                           table->name, info->name, ce_type_name(info->type));
        if (table->primary_key != NO_PRIMARY_KEY)
            return ce_fail(CE_ERR_INVALID_SCHEMA, "table '%s' has a primary key already ('%s')", table->name,
                           table->properties[table->primary_key].name);
        if (!cluster_count(db_txn_space(txn), refs.cluster, &objects)) return false;
        if (objects > 0)
            return ce_fail(CE_ERR_INVALID_SCHEMA, "table '%s' has objects: a primary key can only be added to an empty table",
                           table->name);
    }
    schema_property *grown = realloc(table->properties, (table->property_count + 1) * sizeof *grown);
    if (!grown) return out_of_memory();
    table->properties = grown;
    schema_property *property = &table->properties[table->property_count];
    property->name = strdup(info->name);
    property->type = info->type;
    property->flags = (uint8_t)((info->nullable ? PROPERTY_NULLABLE : 0) | (info->primary_key ? PROPERTY_PRIMARY : 0) |
                                (info->indexed || info->primary_key ? PROPERTY_INDEXED : 0));
    if (!property->name) return out_of_memory();
    table->property_count++;
    if (!derive_columns(table)) return false;
    cluster_schema columns = cluster_schema_of(table);
    ce_space *space = db_txn_space(txn);
    size_t column = table->property_count - 1;
    if (!cluster_add_column(space, &refs.cluster, &columns, column)) return false;
    if (column_is_indexed(table, column)) {
        /* Existing objects have the default value: index them. */
        index_build build = {txn, loaded, table, column, 0};
        if (!index_create(space, &build.root) || !cluster_for_each_leaf(space, refs.cluster, index_leaf, &build) ||
            !set_column_index(txn, &refs, table, column, build.root))
            return false;
    }
    if (!store_table_refs(txn, &refs) || !store_schema(txn, loaded)) return false;
    *out_column = (ce_column_key)(table->property_count - 1);
    return true;
}

bool ce_property_remove(ce_txn *txn, ce_table_key key, ce_column_key column)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
        !table_refs_for_write(txn, key, &refs))
        return false;
    ce_space *space = db_txn_space(txn);
    cluster_schema columns = cluster_schema_of(table);
    if (!cluster_remove_column(space, &refs.cluster, &columns, column)) return false;
    ce_ref index;
    if (!column_index(txn, &refs, column, &index)) return false;
    if (index && (!index_destroy(space, index) || !set_column_index(txn, &refs, table, column, 0))) return false;
    table->properties[column].flags |= PROPERTY_REMOVED;
    return derive_columns(table) && store_table_refs(txn, &refs) && store_schema(txn, loaded);
}

bool ce_schema_version(ce_txn *txn, uint64_t *out_version)
{
    if (!txn || !out_version) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_schema_version: arguments are required");
    if (!db_txn_root(txn)) {
        *out_version = 0;
        return true;
    }
    ce_node group;
    if (!read_group(txn, &group)) return false;
    *out_version = (uint64_t)node_untag(node_get(&group, GROUP_VERSION));
    return true;
}

bool ce_set_schema_version(ce_txn *txn, uint64_t version)
{
    ce_ref group;
    if (version > (uint64_t)INT64_MAX >> 1) return ce_fail(CE_ERR_INVALID_ARGUMENT, "schema version %llu is too large",
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
    default: snprintf(text, size, "a %s", ce_type_name(value->type)); break;
    }
}

static bool check_value(const schema_table *table, const schema_property *property, const ce_value *value)
{
    if (!value) return ce_fail(CE_ERR_INVALID_ARGUMENT, "a value is required");
    if (value->type == CE_TYPE_NULL) {
        if (property->flags & PROPERTY_NULLABLE) return true;
        return ce_fail(CE_ERR_NULL_NOT_ALLOWED, "property '%s.%s' is required: it cannot be null", table->name,
                       property->name);
    }
    if (value->type != property->type) {
        char text[64];
        describe_value(value, text, sizeof text);
        return ce_fail(CE_ERR_WRONG_TYPE, "property '%s.%s' is of type %s, not %s (value %s)", table->name,
                       property->name, ce_type_name(property->type), ce_type_name(value->type), text);
    }
    if (value->type == CE_TYPE_STRING && !value_check_utf8(value->string.data, value->string.size))
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "property '%s.%s': the string is not valid UTF-8", table->name,
                       property->name);
    /* The column layer refuses a malformed timestamp too, but only when it
     * writes the value: after cluster_insert has inserted the object's key
     * and the values of the columns before it (create with values), or
     * after the index has traded the old value for the new one (a set of an
     * indexed timestamp). Checked here, a bad value changes nothing. */
    if (value->type == CE_TYPE_TIMESTAMP && !value_timestamp_is_valid(value->timestamp))
        return ce_fail(CE_ERR_INVALID_ARGUMENT,
                       "property '%s.%s': the timestamp (%lld s, %d ns) is malformed: nanoseconds must lie within "
                       "+-999999999 and have the sign of seconds",
                       table->name, property->name, (long long)value->timestamp.seconds,
                       (int)value->timestamp.nanoseconds);
    return true;
}

/* Checks one value per column slot (a whole object's values). */
static bool check_values(const schema_table *table, const ce_value *values, size_t value_count)
{
    if (value_count != table->property_count)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has %zu column slots, %zu values were given", table->name,
                       table->property_count, value_count);
    for (size_t c = 0; c < table->property_count; c++)
        if (!(table->properties[c].flags & PROPERTY_REMOVED) && !check_value(table, &table->properties[c], &values[c]))
            return false;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Objects                                                                   */
/* ------------------------------------------------------------------------ */

static bool duplicate_primary_key(const schema_table *table, const ce_value *value)
{
    char text[64];
    describe_value(value, text, sizeof text);
    return ce_fail(CE_ERR_DUPLICATE_PRIMARY_KEY,
                   "Attempting to create an object of type '%s' with an existing primary key value %s.", table->name,
                   text);
}

/* Creates an object from checked values (one per column slot). */
static bool create_object(ce_txn *txn, schema *loaded, ce_table_key key, schema_table *table, const ce_value *values,
                          ce_object_key *out_object)
{
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
    ce_space *space = db_txn_space(txn);
    cluster_schema columns = cluster_schema_of(table);
    ce_object_key object = refs.next_key;
    if (!cluster_insert(space, &refs.cluster, &columns, object, values)) return false;
    for (size_t c = 0; c < table->property_count; c++)
        if (column_is_indexed(table, c) && !update_index(txn, &refs, table, c, &values[c], object, true)) return false;
    refs.next_key = object + 1;
    if (!store_table_refs(txn, &refs)) return false;
    *out_object = object;
    return true;
}

bool ce_object_create(ce_txn *txn, ce_table_key key, const ce_value *primary_key, ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!out_object) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create: out_object is required");
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    if (table->primary_key == NO_PRIMARY_KEY && primary_key)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key, but one was given", table->name);
    if (table->primary_key != NO_PRIMARY_KEY) {
        const schema_property *property = &table->properties[table->primary_key];
        if (!primary_key)
            return ce_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' needs a primary key value ('%s')", table->name,
                           property->name);
        if (!check_value(table, property, primary_key)) return false;
    }
    ce_value *values = malloc((table->property_count + 1) * sizeof *values);
    if (!values) return out_of_memory();
    for (size_t c = 0; c < table->property_count; c++)
        values[c] = value_default(table->columns[c].type, table->columns[c].nullable);
    if (primary_key) values[table->primary_key] = *primary_key;
    bool ok = create_object(txn, loaded, key, table, values, out_object);
    free(values);
    return ok;
}

bool ce_object_create_with_values(ce_txn *txn, ce_table_key key, const ce_value *values, size_t value_count,
                                  ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!values || !out_object) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_with_values: arguments are required");
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    if (!check_values(table, values, value_count)) return false;
    return create_object(txn, loaded, key, table, values, out_object);
}

bool ce_object_create_or_update(ce_txn *txn, ce_table_key key, const ce_value *values, size_t value_count,
                                ce_update_policy policy, ce_object_key *out_object, bool *out_created)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!values || !out_object || !out_created)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_create_or_update: arguments are required");
    if (policy != CE_UPDATE_ERROR && policy != CE_UPDATE_MODIFIED && policy != CE_UPDATE_ALL)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "unknown update policy %d", (int)policy);
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table)) return false;
    *out_created = true;
    if (policy == CE_UPDATE_ERROR) return ce_object_create_with_values(txn, key, values, value_count, out_object);
    if (table->primary_key == NO_PRIMARY_KEY)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key: objects cannot be updated by key",
                       table->name);
    if (!check_values(table, values, value_count)) return false;
    bool exists;
    ce_object_key existing;
    if (!table_refs_for_read(txn, key, &refs) ||
        !find_by_value(txn, loaded, &refs, table, table->primary_key, &values[table->primary_key], &existing, &exists))
        return false;
    if (!exists) return create_object(txn, loaded, key, table, values, out_object);
    *out_created = false;
    for (size_t c = 0; c < table->property_count; c++) {
        if (c == table->primary_key || (table->properties[c].flags & PROPERTY_REMOVED)) continue;
        if (policy == CE_UPDATE_MODIFIED) {
            ce_value current;
            if (!ce_object_get(txn, key, existing, (ce_column_key)c, &current)) return false;
            if (value_equal(&current, &values[c]) && current.type == values[c].type) continue;
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
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_find_primary_key: arguments are required");
    if (!find_table(txn, key, &loaded, &table)) return false;
    if (table->primary_key == NO_PRIMARY_KEY)
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "table '%s' has no primary key", table->name);
    if (!check_value(table, &table->properties[table->primary_key], primary_key) ||
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
        return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_find_first: arguments are required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
        !check_value(table, property, value) || !table_refs_for_read(txn, key, &refs))
        return false;
    return find_by_value(txn, loaded, &refs, table, column, value, out_object, out_found);
}

bool ce_object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_exists) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_exists: out_exists is required");
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs)) return false;
    cluster_position position;
    return cluster_find(db_txn_space(txn), refs.cluster, object, &position, out_exists);
}

static bool require_object(ce_txn *txn, const table_refs *refs, const schema_table *table, ce_object_key object)
{
    bool exists;
    cluster_position position;
    if (!cluster_find(db_txn_space(txn), refs->cluster, object, &position, &exists)) return false;
    if (!exists)
        return ce_fail(CE_ERR_NO_SUCH_OBJECT, "object %lld of type '%s' does not exist (it was deleted, or never existed)",
                       (long long)object, table->name);
    return true;
}

bool ce_object_delete(ce_txn *txn, ce_table_key key, ce_object_key object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !table_refs_for_write(txn, key, &refs) ||
        !require_object(txn, &refs, table, object))
        return false;
    ce_space *space = db_txn_space(txn);
    cluster_schema columns = cluster_schema_of(table);
    for (size_t c = 0; c < table->property_count; c++) {
        if (!column_is_indexed(table, c)) continue;
        ce_value value;
        if (!cluster_get(space, refs.cluster, &columns, object, c, &loaded->scratch, &value) ||
            !update_index(txn, &refs, table, c, &value, object, false))
            return false;
    }
    return cluster_erase(space, &refs.cluster, &columns, object) && store_table_refs(txn, &refs);
}

bool ce_object_get(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column, ce_value *out_value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!out_value) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_get: out_value is required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
        !table_refs_for_read(txn, key, &refs))
        return false;
    cluster_schema columns = cluster_schema_of(table);
    /* One descent: the cluster tree reports a missing object itself; only
     * its message gains the table's name here. */
    if (cluster_get(db_txn_space(txn), refs.cluster, &columns, object, column, &loaded->scratch, out_value)) return true;
    if (ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT) return require_object(txn, &refs, table, object);
    return false;
}

bool ce_object_set(ce_txn *txn, ce_table_key key, ce_object_key object, ce_column_key column, const ce_value *value)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    const schema_property *property = NULL;
    table_refs refs;
    if (!db_txn_require_write(txn) || !find_table(txn, key, &loaded, &table) || !find_column(table, column, &property) ||
        !check_value(table, property, value))
        return false;
    if (table->primary_key == column)
        return ce_fail(CE_ERR_PRIMARY_KEY_IMMUTABLE, "Primary key can't be changed after an object is inserted ('%s.%s').",
                       table->name, property->name);
    if (!table_refs_for_write(txn, key, &refs) || !require_object(txn, &refs, table, object)) return false;
    cluster_schema columns = cluster_schema_of(table);
    ce_space *space = db_txn_space(txn);
    if (column_is_indexed(table, column)) {
        ce_value old;
        if (!cluster_get(space, refs.cluster, &columns, object, column, &loaded->scratch, &old) ||
            !update_index(txn, &refs, table, column, &old, object, false) ||
            !update_index(txn, &refs, table, column, value, object, true))
            return false;
    }
    return cluster_set(space, &refs.cluster, &columns, object, column, value) && store_table_refs(txn, &refs);
}

bool ce_object_count(ce_txn *txn, ce_table_key key, size_t *out_count)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_count) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_count: out_count is required");
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs)) return false;
    return cluster_count(db_txn_space(txn), refs.cluster, out_count);
}

bool ce_object_key_at(ce_txn *txn, ce_table_key key, size_t index, ce_object_key *out_object)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    table_refs refs;
    if (!out_object) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_object_key_at: out_object is required");
    if (!find_table(txn, key, &loaded, &table) || !table_refs_for_read(txn, key, &refs)) return false;
    return cluster_key_at(db_txn_space(txn), refs.cluster, index, out_object);
}

/* ------------------------------------------------------------------------ */
/* Scans                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct column_sum {
    const ce_space *space;
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
    const ce_node *values = &numbers.values;
    if (sum->spec->type == CE_TYPE_DOUBLE && !numbers.has_nulls && values->width == 64) {
        /* The common case, a plain array of doubles: one tight loop. */
        double total = 0;
        for (size_t i = 0; i < numbers.count; i++) {
            double value;
            memcpy(&value, values->payload + 8 * i, 8);
            total += value;
        }
        sum->double_sum += total;
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
    if (!out_sum) return ce_fail(CE_ERR_INVALID_ARGUMENT, "ce_table_sum: out_sum is required");
    if (!find_table(txn, key, &loaded, &table) || !find_column(table, column, &property)) return false;
    if (property->type != CE_TYPE_INT && property->type != CE_TYPE_FLOAT && property->type != CE_TYPE_DOUBLE)
        return ce_fail(CE_ERR_WRONG_TYPE, "cannot sum property '%s.%s' of type %s", table->name, property->name,
                       ce_type_name(property->type));
    if (!table_refs_for_read(txn, key, &refs)) return false;
    column_sum sum = {db_txn_space(txn), &table->columns[column], column, 0, 0, 0};
    if (!cluster_for_each_leaf(db_txn_space(txn), refs.cluster, sum_leaf, &sum)) return false;
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
    if (!txn) return ce_fail(CE_ERR_INVALID_ARGUMENT, "a transaction is required");
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

bool table_find_property(ce_txn *txn, ce_table_key key, const char *name, size_t length, table_property *out_property,
                         bool *out_found)
{
    schema *loaded = NULL;
    schema_table *table = NULL;
    if (!find_table(txn, key, &loaded, &table)) return false;
    *out_found = false;
    for (size_t p = 0; p < table->property_count; p++) {
        const schema_property *property = &table->properties[p];
        if ((property->flags & PROPERTY_REMOVED) || strlen(property->name) != length ||
            memcmp(property->name, name, length) != 0)
            continue;
        *out_property = (table_property){property->name, (ce_column_key)p, property->type,
                                         (property->flags & PROPERTY_NULLABLE) != 0, column_is_indexed(table, p),
                                         (property->flags & PROPERTY_PRIMARY) != 0};
        *out_found = true;
    }
    return true;
}

bool table_cluster(ce_txn *txn, ce_table_key key, ce_ref *out_root, cluster_schema *out_columns)
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
static bool query_index_root(ce_txn *txn, ce_table_key key, ce_column_key column, ce_ref *out_root)
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
        return ce_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s.%s' is indexed but has no index", table->name,
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
    ce_ref root;
    if (!query_index_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    candidate_walk walk = {visit, context};
    return index_for_each_with_key(db_txn_space(txn), root, index_key_of(value), visit_candidate, &walk);
}

bool table_index_first(ce_txn *txn, ce_table_key key, ce_column_key column, const ce_value *value,
                       ce_object_key *out_object, bool *out_found, bool *out_indexed)
{
    ce_ref root;
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
    ce_ref root;
    *out_count = 0;
    if (!query_index_root(txn, key, column, &root)) return false;
    *out_indexed = root != 0;
    if (!root) return true;
    return index_count_key(db_txn_space(txn), root, index_key_of(value), out_count);
}
