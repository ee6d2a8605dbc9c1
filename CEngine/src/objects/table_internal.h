/*
 * table_internal.h — what the files of the table layer (the files of the
 * objects layer that know tables: schema.c, object.c, object_index.c,
 * links.c, containers.c, table_scan.c) share (internal): the schema in
 * memory and the table nodes (defined in schema.c), element specs and
 * stored values (object.c), link lists (links.c) and the collection handle
 * (containers.c).
 *
 * Owns: the declarations schema.c, object.c, links.c and containers.c
 * share, one section per defining file (object_index.c and table_scan.c
 * include it too).
 * Never: is included outside the objects layer: the query layer sees the
 * object store through table.h and cengine.h.
 *
 * Those four files call each other (a table removed deletes its objects, an
 * object created records its links, a link dropped may delete an embedded
 * object, a collection edited records its links, a deleted object is purged
 * from collections), so their shared internals are declared in this one
 * header, in one section per defining file, and every name says that file.
 * object_index.h and mixed.h (which call none of them) and table.h (the
 * query layer's view) are apart.
 *
 * The schema of a transaction's version is parsed once into a `schema` (the
 * transaction's layer state, which also holds the append buffer, the change
 * history's record of a write transaction (history.c), the read caches and
 * the scratch buffers of the table layer). A table's node is read
 * into a `table_refs`: its cluster tree, next object key, index list and
 * whether its object keys follow its primary key. Pointers into the schema
 * (tables, properties, names) stay valid until the transaction's schema
 * changes, it advances or it ends.
 */
#ifndef CE_TABLE_INTERNAL_H
#define CE_TABLE_INTERNAL_H

#include "cengine.h"
#include "cluster.h"
#include "column.h"
#include "db.h"
#include "error.h"
#include "node.h"
#include "table.h"

/* ======================================================================== */
/* schema.c: the schema in memory, table nodes                              */
/* ======================================================================== */

#define NO_PRIMARY_KEY SIZE_MAX

enum { PROPERTY_REMOVED = 1, PROPERTY_NULLABLE = 2, PROPERTY_PRIMARY = 4, PROPERTY_INDEXED = 8, PROPERTY_BACKLINK = 16 };
enum { TABLE_REMOVED = 1, TABLE_EMBEDDED = 2 };

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
    bool appendable;         /* derived: new objects may be buffered (see object.c, "Appending") */
} schema_table;

/* Objects created but not yet in the cluster tree: a bulk load fills whole
 * leaves at once (see object.c, "Appending"). Values column by column,
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
    struct history_record *history; /* write transactions: the changes recorded (history.c); NULL: none yet */
    /* Each table's refs, once read (see schema_table_refs_for_read), and
     * its hint (cluster.h), `table_caches` entries of each (0: none yet). */
    struct table_refs *read_refs;
    cluster_hint *hints;
    size_t table_caches;
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
    /* The decompressed strings and binaries ce_object_get_range handed
     * out, valid until its next call (object.c). */
    uint8_t *range_bytes;
    size_t range_size, range_capacity;
} schema;

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
    cluster_hint *hint;         /* the table's hint (cluster.h); NULL: none. Pass it to every cluster call */
    ce_table_key key;           /* the table */
} table_refs;

/* Sets CE_ERR_OUT_OF_MEMORY and returns false. */
bool schema_out_of_memory(void);

/* The parsed schema of the transaction's version (parsed once per version). */
bool schema_load(ce_txn *txn, schema **out_schema);

/* A live table by key (CE_ERR_NO_SUCH_TABLE otherwise), with the schema. */
bool schema_find_table_loading(ce_txn *txn, ce_table_key key, schema **out_schema, schema_table **out_table);

/* The same: inline, since every object call starts here; the schema is
 * usually parsed already. */
static inline bool schema_find_table(ce_txn *txn, ce_table_key key, schema **out_schema, schema_table **out_table)
{
    schema *loaded = txn ? db_txn_layer_state(txn) : NULL;
    if (loaded && key < loaded->table_count && !(loaded->tables[key].flags & TABLE_REMOVED)) {
        *out_schema = loaded;
        *out_table = &loaded->tables[key];
        return true;
    }
    return schema_find_table_loading(txn, key, out_schema, out_table);
}

/* A table's refs for reading, after the objects buffered for it are stored
 * (cached, with the table's hint: see schema.c). */
bool schema_table_refs_reading(ce_txn *txn, ce_table_key key, table_refs *out);

/* The same: inline, for the cached case of every object read. */
static inline bool schema_table_refs_for_read(ce_txn *txn, ce_table_key key, table_refs *out)
{
    schema *loaded = db_txn_layer_state(txn);
    if (loaded && key < loaded->table_caches && loaded->read_refs[key].table &&
        (!loaded->append.active || loaded->append.table != key)) {
        *out = loaded->read_refs[key];
        out->hint = &loaded->hints[key];
        return true;
    }
    return schema_table_refs_reading(txn, key, out);
}

/* Makes the path group -> tables -> table writable and returns the table's
 * refs, after the objects buffered for it are stored. */
bool schema_table_refs_for_write(ce_txn *txn, ce_table_key key, table_refs *out);

/* A write transaction's refs of a table as the last change stored them,
 * when this transaction copied the path from the group down to the table's
 * cluster root already (false otherwise: use schema_table_refs_for_write).
 * A change that keeps the refs (a value set in a leaf, see cluster_set)
 * then needs no copy and no store, only schema_changed_in_place. */
bool schema_table_refs_copied(ce_txn *txn, ce_table_key key, table_refs *out);

/* Tells the transaction that what it sees changed, for a change that made
 * no node writable (whose path was writable already): what schema_table_refs_for_write
 * does otherwise (the transaction's stamp, see db_txn_stamp). */
bool schema_changed_in_place(ce_txn *txn);

/* Stores changed refs back into a writable table node. */
bool schema_store_table_refs(ce_txn *txn, const table_refs *refs);

/* The backlink column of `target` for links from origin_table.origin_column
 * (*out_found false if there is none). */
bool schema_find_backlink_column(const schema_table *target, ce_table_key origin_table, size_t origin_column,
                                 size_t *out_column, bool *out_found);

/* Finds or adds that backlink column (mixed links add theirs on first use). */
bool schema_ensure_backlink_column(ce_txn *txn, schema *loaded, ce_table_key target_key, ce_table_key origin_table,
                                   size_t origin_column, size_t *out_column);

/* A live property by column key (CE_ERR_NO_SUCH_PROPERTY otherwise); inline:
 * every object call looks its property up. */
static inline bool schema_find_column(const schema_table *table, ce_column_key column,
                                      const schema_property **out_property)
{
    if (column >= table->property_count || (table->properties[column].flags & PROPERTY_REMOVED))
        return error_fail(CE_ERR_NO_SUCH_PROPERTY, "table '%s' has no property with key %u", table->name, (unsigned)column);
    *out_property = &table->properties[column];
    return true;
}

/* What the cluster tree needs to read and change the table's objects. */
static inline cluster_schema schema_cluster_columns(const schema_table *table)
{
    return (cluster_schema){table->columns, table->property_count};
}

/* Whether a (live) column has an index. */
static inline bool schema_column_is_indexed(const schema_table *table, size_t column)
{
    uint8_t flags = table->properties[column].flags;
    return (flags & PROPERTY_INDEXED) && !(flags & PROPERTY_REMOVED);
}

static inline bool schema_property_is_live(const schema_property *property)
{
    return !(property->flags & PROPERTY_REMOVED);
}

/* A property that holds links (to-one, collections of links, mixed). */
static inline bool schema_property_holds_links(const schema_property *property)
{
    return schema_property_is_live(property) && !(property->flags & PROPERTY_BACKLINK) &&
           (property->type == CE_TYPE_LINK || property->type == CE_TYPE_MIXED);
}

/* ======================================================================== */
/* object.c: element specs, stored values, the append buffer                */
/* ======================================================================== */

/* Values are checked against an element_spec, then stored in their slot:
 * links as key + 1 (0: null), mixed values as the ref of their tree
 * (mixed.h), anything else as itself. */

/* How deep embedded objects and nested mixed collections may go (Realm
 * allows 100 levels of nesting); deeper is damage, or a cycle. */
#define MAX_NESTING 100

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

/* A ref (of a collection or a mixed value's tree) as the value that stores it. */
static inline ce_value object_stored_ref(space_ref ref)
{
    return (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)ref};
}

/* The spec of a property's values (or of its collection's elements). */
element_spec object_spec_of_property(const schema_table *table, const schema_property *property);

/* The spec of the elements of a collection nested in a mixed value. */
element_spec object_nested_spec(const element_spec *parent);

/* The column type and nullability an element is stored with. */
void object_storage_of(const element_spec *spec, ce_type *out_type, bool *out_nullable);

/* Fails with CE_ERR_INVALID_ARGUMENT naming the property: `value` is a
 * string or binary without data (value_bytes_missing). */
bool object_bytes_missing(const element_spec *spec, const ce_value *value);

/* Whether a stored element of `spec` (a mixed one) holds a list or a
 * dictionary, and how many values that holds. */
bool object_nested_size(const space_state *space, const element_spec *spec, const ce_value *stored, bool *out_holds,
                        size_t *out_count);

/* Checks a value for an element (or a property of one value). */
bool object_check_element(ce_txn *txn, schema *loaded, const element_spec *spec, const ce_value *value);

/* A checked value as stored in its slot (a mixed value's tree is created). */
bool object_encode_element(space_state *space, const element_spec *spec, const ce_value *value, ce_value *out_stored);

/* A stored value as the API returns it. */
bool object_decode_element(const space_state *space, const element_spec *spec, const ce_value *stored,
                           ce_value *out_value);

/* The stored value of one property of an object (links as key + 1,
 * collections and mixed values as refs). */
bool object_read_stored(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                        ce_value *out_stored);

/* Replaces the stored value of one property of an object. */
bool object_write_stored(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, size_t column,
                         const ce_value *stored);

bool object_exists(ce_txn *txn, ce_table_key key, ce_object_key object, bool *out_exists);

/* CE_ERR_NO_SUCH_OBJECT, naming the table, unless the object exists. */
bool object_require(ce_txn *txn, const table_refs *refs, const schema_table *table, ce_object_key object);

/* Stores the objects buffered in a write transaction (see object.c,
 * "Appending"); if that fails, the transaction cannot commit. */
bool object_flush_appends(ce_txn *txn, schema *loaded);

/* The same, when the objects buffered are of table `key` (every access to a
 * table's refs flushes first, so it is inline). */
static inline bool object_flush_appends_of(ce_txn *txn, ce_table_key key)
{
    schema *loaded = db_txn_layer_state(txn);
    if (!loaded || !loaded->append.active || loaded->append.table != key) return true;
    return object_flush_appends(txn, loaded);
}

/* The before-commit call of every write transaction (schema_load sets it):
 * stores the objects buffered, then writes the history (history_write). */
bool object_before_commit(ce_txn *txn, void *state);

/* A new object of an embedded table, with default values, not yet linked. */
bool object_create_embedded(ce_txn *txn, schema *loaded, ce_table_key target, ce_object_key *out_object);

/* Refuses a parent whose new embedded object would nest too deep. */
bool object_check_embedding_depth(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object);

/* CE_ERR_EMBEDDED_OBJECT unless the spec's links go to an embedded table. */
bool object_require_embedded_target(const schema *loaded, const element_spec *spec);

/* ======================================================================== */
/* links.c: links gathered, applied and purged                              */
/* ======================================================================== */

/* Links gathered from stored values (the caller frees `items`). */
typedef struct link_list {
    ce_link *items;
    size_t count, capacity;
} link_list;

/* Where links come from: a property of an object. */
typedef struct link_origin {
    ce_table_key table;
    size_t column;
    ce_object_key object;
} link_origin;

bool links_list_push(link_list *list, ce_link link);

/* The links held by one stored element (a to-one link, a mixed value). */
bool links_collect(const space_state *space, const element_spec *spec, const ce_value *stored, link_list *links,
                   unsigned depth);

/* Every link held by the elements of a collection (nested ones included). */
bool links_collect_collection(const space_state *space, ce_collection_type kind, const element_spec *spec,
                              space_ref root, link_list *links, unsigned depth);

/* Records new links and forgets dropped ones; a dropped link to an
 * embedded object deletes it. */
bool links_apply_changes(ce_txn *txn, schema *loaded, const link_origin *origin, const link_list *added,
                         const link_list *removed, unsigned depth);

/* Deletes an object: its links out (embedded targets deleted with it), the
 * links into it, its index entries, its values. */
bool links_delete_object(ce_txn *txn, schema *loaded, ce_table_key key, ce_object_key object, unsigned depth);

/* Empties one link-holding column of every object (before it is removed). */
bool links_clear_column(ce_txn *txn, schema *loaded, ce_table_key key, size_t column);

/* ======================================================================== */
/* containers.c: the collection handle                                      */
/* ======================================================================== */

/* One step from a collection of mixed values into the one nested in an
 * element: a list index or a dictionary key. */
typedef struct nested_step {
    bool by_key;
    size_t index;
    char *key;
    size_t key_size;
} nested_step;

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
    uint64_t magic; /* live or freed (handle.h): the first field */
    ce_txn *txn;
    ce_table_key table;
    ce_object_key object;
    size_t column;
    bool through_mixed; /* a mixed property: its value holds the first collection */
    size_t depth;
    nested_step *steps;
    cached_reader values, keys; /* the handle's own (a handle belongs to one thread) */
};

/* A collection as found in the transaction's current state. */
typedef struct found_collection {
    ce_collection_type kind;
    element_spec spec; /* its elements (a dictionary's: its values) */
    space_ref root;       /* 0: empty */
} found_collection;

/* A dictionary is 0 or a NODE_HAS_REFS node [keys, values]: two
 * collections of the same size, keys sorted bytewise. */
bool containers_dictionary_parts(const space_state *space, space_ref dictionary, space_ref *out_keys,
                                 space_ref *out_values);

/* The collection a handle names, in the transaction's current state. */
bool containers_find(const ce_collection *collection, schema **out_schema, found_collection *out);

/* Where a found collection's elements are (a dictionary's values; the
 * collection itself otherwise) and their column type. */
bool containers_found_values(const space_state *space, const found_collection *found, space_ref *out_values,
                             ce_type *out_type, bool *out_nullable);

#endif
