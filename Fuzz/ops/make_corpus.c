/*
 * make_corpus.c — the seed generator of fuzz_ops: make_ops_corpus.
 *
 *   make_ops_corpus <directory>      (the committed corpus is Fuzz/corpus/ops)
 *
 * Owns: the seed programs, written in the input's encoding (decode.h): one
 * per area (every type, each kind of primary key, the errors, large values,
 * bulk creates and deletes, rollback, schema changes, read transactions, a
 * held reader, misuse, indexes, create with values and create or update,
 * links, collections of links, embedded objects, scalar collections, mixed
 * values with nested collections, bulk inserts past a chunk), then a few of
 * random bytes.
 * Never: writes a seed that trips the harness: each is run through
 * LLVMFuzzerTestOneInput (fuzz_ops.c, linked in) first. FUZZ_OPS_VERBOSE=1
 * prints what each one does. It rewrites its own seeds and leaves the
 * regression-* inputs (found by fuzzing, kept as they were found) in place.
 */
#include "ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static uint8_t program[16384];
static size_t program_size;

static void put(unsigned byte)
{
    if (program_size >= sizeof program) {
        fprintf(stderr, "make_ops_corpus: a program is too long\n");
        exit(1);
    }
    program[program_size++] = (uint8_t)byte;
}
static void put_u16(uint16_t value) { put(value & 0xFF), put(value >> 8); }
static void put_u32(uint32_t value) { put_u16((uint16_t)value), put_u16((uint16_t)(value >> 16)); }
static void put_u64(uint64_t value) { put_u32((uint32_t)value), put_u32((uint32_t)(value >> 32)); }

static void begin(unsigned options)
{
    program_size = 0;
    put(options);
}

static void operation(enum operation wanted)
{
    for (unsigned byte = 0; byte < OPERATION_SLOTS; byte++)
        if (fuzz_ops_operation_of_byte[byte] == wanted) {
            put(byte);
            return;
        }
    fprintf(stderr, "make_ops_corpus: operation %d has no weight\n", (int)wanted);
    exit(1);
}

/* Arguments: a live table, property or object by rank; a pooled name. */
static void table_rank(unsigned rank) { put(rank); }
static void column_rank(unsigned rank) { put(rank); }
static void object_rank(unsigned rank) { put_u16((uint16_t)rank); }
static void missing_object(void) { put_u16(0xE000); } /* the table's next key */
enum { PERSON, DOG, ID, NAME, AGE, P5, P6, P7, N_TILDE, CHECK_MARK, EMOJI, LONG63, LONG64, EMPTY, BAD_UTF8, SURROGATE };
static void name(unsigned pooled) { put(pooled); }

/* Values (the mode byte, then the body of the type). */
static void null_value(void) { put(0); }
static void int_value(int64_t value) { put(5), put(0xC0), put_u64((uint64_t)value); }
static void bool_value(bool value) { put(5), put(value); }
static void float_value(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, 4);
    put(5), put(0x80), put_u32(bits);
}
static void double_value(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, 8);
    put(5), put(0x80), put_u64(bits);
}
static void text_value(const char *ascii)
{
    put(5), put((unsigned)strlen(ascii));
    for (const char *c = ascii; *c; c++) put((unsigned)(*c - 0x20));
}
static void raw_string_value(const char *bytes)
{
    put(2), put((unsigned)strlen(bytes));
    for (const char *c = bytes; *c; c++) put((uint8_t)*c);
}
static void long_string_value(unsigned sixteens, uint32_t seed) { put(5), put(0xC0 + sixteens), put(0), put_u32(seed); }
static void binary_value(unsigned size, unsigned first)
{
    put(5), put(size);
    for (unsigned i = 0; i < size; i++) put(first + i);
}
static void timestamp_value(int64_t seconds, uint32_t nanoseconds)
{
    put(5), put(0xC0), put_u64((uint64_t)seconds);
    if (nanoseconds) put(0x80), put_u32(nanoseconds);
    else put(0);
}
static void raw_timestamp_value(int64_t seconds, int32_t nanoseconds)
{
    put(2), put(0xC0), put_u64((uint64_t)seconds), put(0), put_u32((uint32_t)nanoseconds);
}
static void decimal_value(unsigned coefficient, unsigned exponent_step, bool negative)
{
    put(5), put((exponent_step & 7) << 1 | negative), put(coefficient);
}
static void pooled_id_value(unsigned which) { put(5), put(which & 3); } /* object id or uuid */
static void large_value(unsigned size_index, bool repeated, uint32_t seed)
{
    put(3), put(size_index), put(repeated), put(3), put_u32(seed);
}
static void copied_value(unsigned object) { put(4), put(object); }
static void wrong_string_value(void) { put(1), put(4), put(1), put('x' - 0x20); }
static void wrong_int_value(void) { put(1), put(0), put(0x40); }

/* A typed value of any scalar type, for rows of every type. */
static void value_of(ce_type type, unsigned variant)
{
    switch (type) {
    case CE_TYPE_INT: int_value((int64_t)variant * 1000003 - 7); break;
    case CE_TYPE_BOOL: bool_value(variant & 1); break;
    case CE_TYPE_FLOAT: float_value((float)variant / 3.0f); break;
    case CE_TYPE_DOUBLE: double_value(variant / 7.0 - 1); break;
    case CE_TYPE_STRING: {
        char text[24];
        snprintf(text, sizeof text, "value %u", variant);
        text_value(text);
        break;
    }
    case CE_TYPE_BINARY: binary_value(variant % 20, variant); break;
    case CE_TYPE_TIMESTAMP: timestamp_value((int64_t)variant * 86400 - 5, variant * 1000); break;
    case CE_TYPE_DECIMAL128: decimal_value(variant, variant, variant & 1); break;
    default: pooled_id_value(variant); break;
    }
}

/* Schema operations. */
static void add_table(unsigned pooled) { operation(OP_ADD_TABLE), name(pooled); }
static void add_property(unsigned table, unsigned pooled, ce_type type, bool nullable, bool primary_key, bool indexed)
{
    operation(OP_ADD_PROPERTY), table_rank(table), name(pooled);
    put(type >= CE_TYPE_INT && type <= CE_TYPE_MIXED ? type - 1 : 0xF0);
    put((nullable ? 1 : 0) | (primary_key ? 6 : 0) | (indexed ? 8 : 0));
}
static void add_property_raw_name(unsigned table, const char *raw, ce_type type, bool nullable)
{
    operation(OP_ADD_PROPERTY), table_rank(table), put(0xF8), put((unsigned)strlen(raw));
    for (const char *c = raw; *c; c++) put((uint8_t)*c);
    put(type - 1), put(nullable ? 1 : 0);
}
static void create(unsigned table) { operation(OP_CREATE), table_rank(table), put(0); } /* a table without a key */
static void create_keyed(unsigned table) { operation(OP_CREATE), table_rank(table), put(0); } /* then the key's value */
static void create_duplicate(unsigned table, unsigned object) { operation(OP_CREATE), table_rank(table), put(0x18), put(object); }
static void set(unsigned table, unsigned object, unsigned column) { operation(OP_SET), table_rank(table), object_rank(object), column_rank(column); }
static void get(unsigned table, unsigned object, unsigned column)
{
    operation(OP_GET), table_rank(table), object_rank(object), column_rank(column);
}
static void simple(enum operation wanted) { operation(wanted); }
static void check_table_operation(unsigned table) { operation(OP_CHECK_TABLE), table_rank(table); }

static const char *output_directory;
static size_t seeds_written;

static void write_seed(const char *seed_name)
{
    if (check_verbose) fprintf(stderr, "make_ops_corpus: --- %s\n", seed_name);
    LLVMFuzzerTestOneInput(program, program_size);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", output_directory, seed_name);
    FILE *file = fopen(path, "wb");
    if (!file || fwrite(program, 1, program_size, file) != program_size || fclose(file) != 0) {
        fprintf(stderr, "make_ops_corpus: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    seeds_written++;
}

static const ce_type every_type[] = {CE_TYPE_INT,    CE_TYPE_BOOL,   CE_TYPE_FLOAT,      CE_TYPE_DOUBLE,
                                     CE_TYPE_STRING, CE_TYPE_BINARY, CE_TYPE_TIMESTAMP, CE_TYPE_DECIMAL128,
                                     CE_TYPE_OBJECT_ID, CE_TYPE_UUID};

static void seed_basic(unsigned options, const char *seed_name)
{
    begin(options);
    add_table(PERSON);
    add_property(0, NAME, CE_TYPE_STRING, false, false, false);
    add_property(0, AGE, CE_TYPE_INT, true, false, false);
    create(0), create(0), create(0);
    set(0, 0, 0), text_value("Ada");
    set(0, 1, 1), int_value(36);
    get(0, 0, 0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    get(0, 0, 0), get(0, 1, 1);
    operation(OP_COUNT), table_rank(0);
    operation(OP_KEY_AT), table_rank(0), put_u16(2);
    operation(OP_EXISTS), table_rank(0), object_rank(1);
    operation(OP_DELETE), table_rank(0), object_rank(1);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed(seed_name);
}

/* Every type, required and optional, in one table: defaults, values, nulls,
 * a commit and a reopen. */
static void seed_every_type(void)
{
    begin(0);
    add_table(DOG);
    for (unsigned i = 0; i < 20; i++) {
        char property_name[8];
        snprintf(property_name, sizeof property_name, "%c%u", i < 10 ? 'r' : 'o', i % 10);
        add_property_raw_name(0, property_name, every_type[i % 10], i >= 10);
    }
    create(0), create(0), create(0);
    for (unsigned object = 1; object < 3; object++)
        for (unsigned column = 0; column < 20; column++) {
            set(0, object, column);
            if (object == 2 && column >= 10) null_value();
            else value_of(every_type[column % 10], object * 10 + column);
        }
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    for (unsigned column = 0; column < 20; column++) get(0, 1, column);
    write_seed("every-type");
}

/* A table keyed by `type`: creates, a duplicate, finds, the key set (not
 * allowed), deletes, the key again after a delete. */
static void seed_primary_key(ce_type type, bool nullable, const char *seed_name)
{
    begin(0);
    add_table(PERSON);
    add_property(0, ID, type, nullable, true, false);
    add_property(0, NAME, CE_TYPE_STRING, true, false, true);
    for (unsigned i = 0; i < 3; i++) {
        create_keyed(0);
        if (type == CE_TYPE_STRING) text_value(i == 0 ? "a" : i == 1 ? "b" : "");
        else if (type == CE_TYPE_INT) int_value(i == 0 ? INT64_MIN : (int64_t)i);
        else pooled_id_value(i);
    }
    if (nullable) create_keyed(0), null_value(), create_keyed(0), null_value(); /* the second is a duplicate */
    create_duplicate(0, 1);
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), copied_value(2);
    set(0, 0, 0), copied_value(1); /* a primary key cannot change */
    set(0, 1, 1), text_value("named");
    operation(OP_FIND_FIRST), table_rank(0), column_rank(1), text_value("named");
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(0), object_rank(1);
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), copied_value(1);
    create_keyed(0);
    if (type == CE_TYPE_STRING) text_value("b");
    else if (type == CE_TYPE_INT) int_value(1);
    else pooled_id_value(1);
    create(0); /* no key for a keyed table */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    write_seed(seed_name);
}

/* Each error the API reports, once. */
static void seed_errors(void)
{
    begin(0);
    add_table(PERSON);
    add_table(PERSON);  /* duplicate */
    add_table(EMPTY);   /* invalid names */
    add_table(LONG64);
    add_table(BAD_UTF8);
    add_table(SURROGATE);
    add_table(LONG63);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);
    add_property(0, NAME, CE_TYPE_STRING, false, false, false);
    add_property(0, P5, CE_TYPE_TIMESTAMP, false, false, true);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);      /* duplicate */
    add_property(0, P6, CE_TYPE_NULL, false, false, false);      /* not a storable type */
    add_property(0, P6, CE_TYPE_DOUBLE, false, true, false);     /* not a key type */
    add_property(0, P6, CE_TYPE_DOUBLE, false, false, true);     /* not indexable */
    add_property(0, EMPTY, CE_TYPE_INT, false, false, false);    /* invalid name */
    create(0);
    add_property(0, ID, CE_TYPE_INT, false, true, false);        /* a key for a table with objects */
    set(0, 0, 0), wrong_string_value();
    set(0, 0, 0), null_value();
    set(0, 0, 1), raw_string_value("\xC3\x28");
    set(0, 0, 1), wrong_int_value();
    set(0, 0, 2), raw_timestamp_value(-5, 7);
    set(0, 0, 2), raw_timestamp_value(1, 1000000000);
    operation(OP_SET), table_rank(0), missing_object(), column_rank(0), int_value(1);
    operation(OP_SET), table_rank(0), object_rank(0), put(0xF9), int_value(1); /* no such property */
    operation(OP_SET), table_rank(0xFE), object_rank(0), column_rank(0), int_value(1); /* no such table */
    operation(OP_GET), table_rank(0), missing_object(), column_rank(0);
    operation(OP_DELETE), table_rank(0), missing_object();
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), int_value(1);    /* no key */
    operation(OP_KEY_AT), table_rank(0), put_u16(0xFFFF);
    operation(OP_SCHEMA_VERSION), put(0xFF), put_u64(UINT64_MAX);
    operation(OP_REMOVE_PROPERTY), table_rank(0), put(0xFF);
    simple(OP_COMMIT);
    operation(OP_REMOVE_TABLE), table_rank(1);
    operation(OP_REMOVE_TABLE), table_rank(0xF8);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("errors");
}

/* Strings and binaries from 4 KiB to 70 KiB, compressible or not, around
 * the 64 KiB inline limit; overwritten, reopened, deleted. */
static void seed_large_values(void)
{
    begin(1);
    add_table(DOG);
    add_property(0, NAME, CE_TYPE_STRING, true, false, true);
    add_property(0, P5, CE_TYPE_BINARY, false, false, false);
    for (unsigned i = 0; i < 4; i++) create(0);
    set(0, 0, 0), large_value(4, true, 1);
    set(0, 1, 0), large_value(2, false, 2);
    set(0, 2, 1), large_value(3, false, 3);
    set(0, 3, 1), large_value(0, true, 4);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    set(0, 1, 1), large_value(4, false, 5);
    set(0, 0, 0), text_value("short again");
    set(0, 2, 0), long_string_value(40, 9); /* 640 characters */
    operation(OP_FIND_FIRST), table_rank(0), column_rank(0), copied_value(1);
    operation(OP_DELETE), table_rank(0), object_rank(2);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("large-values");
}

/* Hundreds of objects: leaves and index nodes split, then thin out. */
static void seed_bulk(ce_type key_type, bool with_values, const char *seed_name)
{
    begin(1);
    add_table(PERSON);
    add_property(0, ID, key_type, false, true, false);
    add_property(0, AGE, CE_TYPE_DOUBLE, false, false, false);
    add_property(0, NAME, CE_TYPE_STRING, true, false, true);
    operation(OP_CREATE_MANY), table_rank(0), put(255), column_rank(1), put(with_values), put_u32(7);
    simple(OP_COMMIT);
    operation(OP_CREATE_MANY), table_rank(0), put(200), column_rank(2), put(with_values), put_u32(1506);
    operation(OP_DELETE_MANY), table_rank(0), put(10), put(255), put(1);
    simple(OP_COMMIT);
    operation(OP_DELETE_MANY), table_rank(0), put(0), put(120), put(0);
    operation(OP_FIND_PRIMARY_KEY), table_rank(0), copied_value(100);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    write_seed(seed_name);
}

/* Runs of positional sets among creates and deletes (ops_objects_set_run):
 * in a table of several leaves, without and with a primary key, of an int,
 * a nullable int and a double. */
static void seed_set_runs(void)
{
    begin(1);
    add_table(PERSON);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);
    add_property(0, P5, CE_TYPE_INT, true, false, false);
    add_property(0, P6, CE_TYPE_DOUBLE, false, false, false);
    operation(OP_CREATE_MANY), table_rank(0), put(255), column_rank(0), put(0), put_u32(11);
    operation(OP_CREATE_MANY), table_rank(0), put(200), column_rank(1), put(0), put_u32(12);
    simple(OP_COMMIT);
    operation(OP_SET_RUN), table_rank(0), column_rank(0), put(0), put(255), put_u32(21);
    operation(OP_SET_RUN), table_rank(0), column_rank(1), put(128), put(255), put_u32(22);
    operation(OP_DELETE_MANY), table_rank(0), put(20), put(200), put(0);
    operation(OP_SET_RUN), table_rank(0), column_rank(2), put(0), put(255), put_u32(23);
    simple(OP_COMMIT);
    add_table(DOG);
    add_property(1, ID, CE_TYPE_INT, false, true, false);
    add_property(1, AGE, CE_TYPE_INT, false, false, false);
    operation(OP_CREATE_MANY), table_rank(1), put(255), column_rank(1), put(0), put_u32(31);
    operation(OP_SET_RUN), table_rank(1), column_rank(1), put(200), put(255), put_u32(32);
    simple(OP_ROLLBACK);
    operation(OP_SET_RUN), table_rank(0), column_rank(0), put(250), put(255), put_u32(24);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("set-runs");
}

/* A rolled-back transaction leaves nothing behind, schema included. */
static void seed_rollback(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, AGE, CE_TYPE_INT, false, false, true);
    create(0), create(0);
    simple(OP_COMMIT);
    add_table(DOG);
    add_property(0, NAME, CE_TYPE_STRING, false, false, false);
    set(0, 1, 0), int_value(5);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    operation(OP_SCHEMA_VERSION), put(9);
    operation(OP_CREATE_MANY), table_rank(0), put(150), column_rank(0), put(0), put_u32(3);
    simple(OP_ROLLBACK);
    check_table_operation(0);
    add_table(DOG);
    create(1);
    simple(OP_COMMIT);
    write_seed("rollback");
}

/* Properties and tables removed and added again under the same names. */
static void seed_schema_changes(void)
{
    begin(0);
    add_table(PERSON);
    add_table(DOG);
    add_property(0, AGE, CE_TYPE_INT, false, false, true);
    add_property(0, NAME, CE_TYPE_STRING, true, false, false);
    add_property(0, ID, CE_TYPE_UUID, false, false, true);
    create(0), create(0);
    set(0, 0, 1), text_value("x");
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(1);
    add_property(0, NAME, CE_TYPE_BINARY, false, false, false);
    create(0);
    simple(OP_COMMIT);
    operation(OP_REMOVE_TABLE), table_rank(0);
    add_table(PERSON);
    add_property(1, AGE, CE_TYPE_BOOL, false, false, true);
    create(1);
    operation(OP_SCHEMA_VERSION), put(3);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    write_seed("schema-changes");
}

/* Changes in a read transaction fail; commit of a read transaction too. */
static void seed_read_transaction(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, AGE, CE_TYPE_INT, false, false, false);
    create(0);
    simple(OP_COMMIT);
    simple(OP_BEGIN_READ);
    set(0, 0, 0), int_value(1);
    create(0);
    add_table(DOG);
    get(0, 0, 0);
    operation(OP_TRANSACTION_MISUSE), put(1); /* advance a read transaction */
    simple(OP_COMMIT);
    simple(OP_BEGIN_READ);
    simple(OP_BEGIN_READ);
    set(0, 0, 0), int_value(2);
    simple(OP_COMMIT);
    write_seed("read-transaction");
}

/* A reader that began before later commits still sees its version. */
static void seed_held_reader(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, NAME, CE_TYPE_STRING, false, false, true);
    create(0), create(0);
    set(0, 0, 0), text_value("before");
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    set(0, 0, 0), text_value("after");
    operation(OP_DELETE), table_rank(0), object_rank(1);
    simple(OP_COMMIT);
    operation(OP_CREATE_MANY), table_rank(0), put(40), column_rank(0), put(0), put_u32(5);
    simple(OP_COMMIT);
    operation(OP_TRANSACTION_MISUSE), put(2); /* advance the reader */
    simple(OP_REOPEN);                        /* close fails while it is open */
    simple(OP_HOLD_READER);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    write_seed("held-reader");
}

static void seed_misuse(void)
{
    begin(0);
    add_table(DOG);
    operation(OP_TRANSACTION_MISUSE), put(0); /* a second write transaction */
    operation(OP_TRANSACTION_MISUSE), put(1); /* advance a write transaction */
    simple(OP_COMMIT);
    simple(OP_COMMIT);                        /* an empty commit */
    operation(OP_SCHEMA_VERSION), put(0xF0), put_u64((uint64_t)INT64_MAX >> 1);
    simple(OP_REOPEN);
    write_seed("misuse");
}

/* Indexed properties of each indexable type: built over existing objects,
 * kept through sets and deletes, found by find_first; unindexed ones scanned
 * (floats, doubles and decimals by numeric value). */
static void seed_indexes(void)
{
    static const ce_type types[] = {CE_TYPE_INT, CE_TYPE_BOOL, CE_TYPE_STRING, CE_TYPE_TIMESTAMP, CE_TYPE_OBJECT_ID,
                                    CE_TYPE_UUID, CE_TYPE_FLOAT, CE_TYPE_DOUBLE, CE_TYPE_DECIMAL128};
    begin(0);
    add_table(PERSON);
    for (unsigned i = 0; i < 5; i++) create(0);
    for (unsigned i = 0; i < 9; i++) {
        char property_name[4] = {'i', (char)('0' + i), 0};
        operation(OP_ADD_PROPERTY), table_rank(0), put(0xF8), put(2), put(property_name[0]), put(property_name[1]);
        put(types[i] - 1), put((i & 1) | (i < 6 ? 8 : 0));
    }
    for (unsigned object = 0; object < 5; object++)
        for (unsigned column = 0; column < 9; column++) set(0, object, column), value_of(types[column], object % 3);
    set(0, 1, 7), double_value(-0.0);
    set(0, 2, 7), double_value(0.0);
    set(0, 3, 8), decimal_value(10, 0, false);
    set(0, 4, 8), decimal_value(1, 1, false); /* 1E1 == 10E0 */
    for (unsigned column = 0; column < 9; column++)
        operation(OP_FIND_FIRST), table_rank(0), column_rank(column), copied_value(4);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    simple(OP_COMMIT);
    check_table_operation(0);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(2);
    simple(OP_COMMIT);
    write_seed("indexes");
}

/* create_with_values and create_or_update under each policy. */
static void seed_rows(void)
{
    begin(0);
    add_table(PERSON);
    add_property(0, ID, CE_TYPE_STRING, false, true, false);
    add_property(0, NAME, CE_TYPE_STRING, true, false, false);
    add_property(0, AGE, CE_TYPE_DOUBLE, false, false, true); /* not indexable: refused */
    add_property(0, AGE, CE_TYPE_DOUBLE, false, false, false);
    add_property(0, P5, CE_TYPE_TIMESTAMP, false, false, true);
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(0), text_value("k1"), text_value("n1"), double_value(1.5),
        timestamp_value(10, 5);
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(0x30), put(0), null_value(), double_value(2), timestamp_value(0, 0);
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(0), text_value("k2"), null_value(), double_value(2),
        raw_timestamp_value(-1, 1); /* malformed */
    operation(OP_CREATE_WITH_VALUES), table_rank(0), put(7), text_value("k3"), null_value(), double_value(2); /* too few */
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x11), put(0), text_value("n2"), double_value(-0.0),
        timestamp_value(-3, 4);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x12), put(0), null_value(), double_value(0.0),
        timestamp_value(-3, 4);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x02), text_value("k4"), null_value(), double_value(4),
        timestamp_value(4, 4);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x13), put(0), null_value(), double_value(1),
        timestamp_value(1, 1); /* modified, keeping embedded objects */
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x53), put(0), null_value(), double_value(1),
        timestamp_value(1, 1); /* an unknown policy */
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(1);
    operation(OP_CREATE_OR_UPDATE), table_rank(0), put(0x01), text_value("k5"), wrong_string_value(), double_value(5),
        timestamp_value(5, 5); /* anything in a removed slot */
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("rows");
}

/* Links, collections, embedded objects and mixed values. */
static void raw_name(const char *text)
{
    put(0xF8), put((unsigned)strlen(text));
    for (const char *c = text; *c; c++) put((uint8_t)*c);
}
static void add_table_named(const char *text) { operation(OP_ADD_TABLE), raw_name(text); }
static void add_embedded_named(const char *text) { operation(OP_ADD_EMBEDDED_TABLE), raw_name(text); }
/* A link property with the nullability its kind needs (flag bit 7). */
static void add_link(unsigned table, const char *text, ce_collection_type collection, unsigned target)
{
    operation(OP_ADD_PROPERTY), table_rank(table), raw_name(text), put(CE_TYPE_LINK - 1), put(0x80 | collection << 4);
    table_rank(target);
}
static void add_typed(unsigned table, const char *text, ce_type type, ce_collection_type collection, bool nullable)
{
    operation(OP_ADD_PROPERTY), table_rank(table), raw_name(text), put(type - 1), put((nullable ? 1 : 0) | collection << 4);
}
/* A collection: table, object, rank among the table's collection and mixed
 * properties, then `depth` steps (each the rank among nested elements). */
static void target(unsigned table, unsigned object, unsigned collection_rank, unsigned depth)
{
    table_rank(table), object_rank(object), put(collection_rank), put(depth << 5);
}
static void fresh(void) { put(0x40); } /* an element value that is not a copy of an element */
static void link_value(unsigned object) { put(3), object_rank(object); }
static void mixed_int(int64_t value) { put(8), put(0), put(0xC0), put_u64((uint64_t)value); }
static void mixed_text(const char *ascii)
{
    put(8), put(4), put((unsigned)strlen(ascii));
    for (const char *c = ascii; *c; c++) put((unsigned)(*c - 0x20));
}
static void mixed_double(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, 8);
    put(8), put(3), put(0x80), put_u64(bits);
}
static void mixed_list(void) { put(1), put(0); }
static void mixed_dictionary(void) { put(2), put(0); }
static void mixed_link(unsigned table, unsigned object) { put(3), put(0), table_rank(table), object_rank(object); }
/* Pooled dictionary key i (see pooled_keys). */
enum { NEST_SEED = 7 }; /* a stream whose last choice puts a link at the bottom */
static void pooled_key(unsigned i) { put(0x80 + (i + DECODE_POOLED_KEYS - 0x80 % DECODE_POOLED_KEYS) % DECODE_POOLED_KEYS); }
enum { KEY_A, KEY_B, KEY_KEY, KEY_EMPTY, KEY_N_TILDE, KEY_DOLLAR, KEY_DOT, KEY_BAD_UTF8, KEY_NUL, KEY_ZZ };
enum { LIST_INSERT, LIST_SET, LIST_ERASE, LIST_MOVE, LIST_SWAP, LIST_INSERT_EMBEDDED, LIST_SET_EMBEDDED };
static void list_arguments(unsigned operation_code, unsigned index, unsigned other)
{
    put(operation_code), put(index), put(other);
}
static void backlinks(unsigned table, unsigned object, unsigned backlink_rank, unsigned index)
{
    operation(OP_BACKLINKS), table_rank(table), object_rank(object), put(backlink_rank), put(index);
}

/* To-one links (one to its own table), a list of links with a duplicate,
 * backlinks; deleting targets purges the links; a linked table cannot be
 * removed until its links go. */
static void seed_links(void)
{
    begin(0);
    add_table_named("Person");                       /* table 0 */
    add_table_named("Dog");                          /* table 1 */
    add_typed(0, "name", CE_TYPE_STRING, CE_COLLECTION_NONE, false);
    add_link(0, "friend", CE_COLLECTION_NONE, 0);    /* Person: name, friend, @links.Person.friend */
    add_link(0, "dogs", CE_COLLECTION_LIST, 1);      /* Person 3; Dog 0: @links.Person.dogs */
    add_link(1, "owner", CE_COLLECTION_NONE, 0);     /* Dog 1; Person 4: @links.Dog.owner */
    create(0), create(0), create(0), create(1), create(1), create(1);
    set(0, 0, 1), link_value(1);
    set(0, 1, 1), link_value(1); /* itself */
    set(0, 2, 1), put(3), missing_object(); /* no such object */
    set(1, 0, 1), link_value(0);
    set(1, 1, 1), put(2), table_rank(1), object_rank(0); /* a Dog where a Person goes */
    for (unsigned dog = 0; dog < 3; dog++) operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0xC0, 0), fresh(), link_value(dog);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 1, 0), fresh(), link_value(0); /* twice */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 0, 3);
    backlinks(1, 0, 0, 1);
    backlinks(0, 1, 0, 0);
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(1), object_rank(0); /* both occurrences go */
    operation(OP_DELETE), table_rank(0), object_rank(1); /* friends become null */
    check_table_operation(0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    operation(OP_REMOVE_TABLE), table_rank(1);            /* Person.dogs links to it */
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(3);
    operation(OP_REMOVE_TABLE), table_rank(0);            /* Dog.owner links to it */
    operation(OP_REMOVE_TABLE), table_rank(1);
    check_table_operation(0);
    simple(OP_COMMIT);
    write_seed("links");
}

/* Sets and dictionaries of links: a deleted target leaves a set, and a
 * dictionary keeps the key with null; clear; a held reader across it. */
static void seed_link_collections(void)
{
    begin(1);
    add_table_named("Person");
    add_table_named("Dog");
    add_link(0, "pets", CE_COLLECTION_SET, 1);
    add_link(0, "byName", CE_COLLECTION_DICTIONARY, 1);
    create(0), create(0);
    for (unsigned i = 0; i < 4; i++) create(1);
    for (unsigned dog = 4; dog-- > 0;) operation(OP_SET_EDIT), target(0, 0, 0, 0), put(0), fresh(), link_value(dog);
    operation(OP_SET_EDIT), target(0, 0, 0, 0), put(0), put(0); /* one it holds: unchanged */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_A), fresh(), link_value(2);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_N_TILDE), fresh(), link_value(1);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_EMPTY), fresh(), put(0); /* null */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(0), pooled_key(KEY_DOLLAR), fresh(), link_value(1);
    operation(OP_DICTIONARY_EDIT), target(0, 1, 1, 0), put(0), pooled_key(KEY_NUL), fresh(), link_value(2);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    operation(OP_DELETE), table_rank(1), object_rank(2);
    operation(OP_COLLECTION_READ), target(0, 0, 1, 0), put(4), put(0), pooled_key(KEY_A);
    operation(OP_SET_EDIT), target(0, 0, 0, 0), put(1), fresh(), link_value(0);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(1), pooled_key(KEY_N_TILDE);
    backlinks(1, 1, 1, 0);
    simple(OP_COMMIT);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 0, 0);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    write_seed("link-collections");
}

/* Embedded objects: to-one, in a list, in a dictionary, two levels deep;
 * replaced and removed links delete them, deleting the parent deletes them
 * all; they cannot be created directly nor linked to. */
static void seed_embedded(void)
{
    begin(0);
    add_table_named("Person");                     /* table 0 */
    add_embedded_named("Address");                 /* table 1 */
    add_embedded_named("Geo");                     /* table 2 */
    add_typed(1, "street", CE_TYPE_STRING, CE_COLLECTION_NONE, true);
    add_link(1, "geo", CE_COLLECTION_NONE, 2);     /* Address: street, geo; Geo: @links.Address.geo */
    add_typed(2, "lat", CE_TYPE_DOUBLE, CE_COLLECTION_NONE, false);
    add_link(0, "home", CE_COLLECTION_NONE, 1);    /* Person 0; Address 2: @links */
    add_link(0, "past", CE_COLLECTION_LIST, 1);    /* Person 1; Address 3 */
    add_link(0, "named", CE_COLLECTION_DICTIONARY, 1);
    add_link(0, "bad", CE_COLLECTION_SET, 1);      /* a set of embedded objects: refused */
    create(0), create(0);
    create(1);                                     /* embedded: refused */
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0);
    operation(OP_CREATE_EMBEDDED), table_rank(1), object_rank(0), put(0); /* Address.geo */
    set(1, 0, 0), text_value("Main St");
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0); /* replaces, deletes the old one */
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(1), put(0);
    for (unsigned i = 0; i < 3; i++)
        operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT_EMBEDDED, 0xC0, 0);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_SET_EMBEDDED, 1, 0);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), link_value(0); /* an existing one */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_ERASE, 0, 0);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT_EMBEDDED, 0, 0); /* a dictionary */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(2), pooled_key(KEY_KEY);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 1, 0), put(2), pooled_key(KEY_KEY); /* replaces */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 0), put(2), pooled_key(KEY_B);   /* a list */
    set(0, 1, 0), put(0);                          /* home = null deletes it */
    set(0, 0, 0), link_value(0);                   /* a link to an existing embedded object */
    backlinks(1, 0, 0, 0);
    simple(OP_COMMIT);
    operation(OP_HOLD_COLLECTION), target(0, 0, 0, 0); /* Person 0's list, until its object goes */
    operation(OP_DELETE), table_rank(0), object_rank(0);
    check_table_operation(1), check_table_operation(2);
    simple(OP_COMMIT);
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(0); /* deletes what it owned */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    write_seed("embedded");
}

/* A chain of embedded objects as deep as they go (100 below the top-level
 * object; the next one is refused), replaced from the top, deleted with
 * its top-level object. */
static void seed_embedded_deep(void)
{
    begin(1);
    add_table_named("Root");                        /* table 0 */
    add_embedded_named("Node");                     /* table 1 */
    add_link(0, "head", CE_COLLECTION_NONE, 1);
    add_link(1, "next", CE_COLLECTION_NONE, 1);     /* Node: @links.Root.head, next, @links.Node.next */
    create(0);
    operation(OP_CREATE_EMBEDDED), table_rank(0), object_rank(0), put(0);
    for (unsigned depth = 1; depth <= 100; depth++) /* the last one is refused */
        operation(OP_CREATE_EMBEDDED), table_rank(1), object_rank(depth - 1), put(0);
    simple(OP_COMMIT);
    operation(OP_CREATE_EMBEDDED), table_rank(1), object_rank(50), put(0); /* the 50 below it go */
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    simple(OP_COMMIT);
    write_seed("embedded-deep");
}

/* Mixed collections nested 100 levels (the next ones refused) with a link
 * at the bottom: committed, reopened, the link purged from there, the
 * whole replaced; a few levels in a list of mixed values. */
static void seed_nested_deep(void)
{
    begin(1);
    add_table_named("Doc");
    add_table_named("Tag");
    add_typed(0, "any", CE_TYPE_MIXED, CE_COLLECTION_NONE, true);
    add_typed(0, "items", CE_TYPE_MIXED, CE_COLLECTION_LIST, true);
    create(0), create(1);
    set(0, 0, 0), fresh(), mixed_list();
    operation(OP_NEST), target(0, 0, 0, 0), put(0xFF), put_u32(NEST_SEED), table_rank(1), object_rank(0); /* 107 */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    operation(OP_NEST), target(0, 0, 1, 0), put(3), put_u32(NEST_SEED), table_rank(1), object_rank(0);
    backlinks(1, 0, 0, 0);
    operation(OP_DELETE), table_rank(1), object_rank(0);
    simple(OP_COMMIT);
    set(0, 0, 0), fresh(), mixed_int(1);
    simple(OP_COMMIT);
    check_table_operation(0);
    write_seed("nested-deep");
}

/* Change sets of collections across commits: lists nested in a mixed list
 * whose paths an insert before them shifts in the same commit as an edit
 * inside them (the history files nested ops by path), a nested dictionary's
 * value replaced, a double set from 0.0 to -0.0 in place (a change that
 * compares equal), and a list and a dictionary of links whose targets
 * change; every commit's change sets are applied to the old contents. */
static void seed_collection_changes(void)
{
    begin(1);
    add_table_named("Doc");                                                  /* table 0 */
    add_table_named("Tag");                                                  /* table 1 */
    add_typed(0, "items", CE_TYPE_MIXED, CE_COLLECTION_LIST, true);
    add_typed(0, "reals", CE_TYPE_DOUBLE, CE_COLLECTION_LIST, false);
    add_typed(1, "label", CE_TYPE_STRING, CE_COLLECTION_NONE, false);
    add_link(0, "tags", CE_COLLECTION_LIST, 1);
    add_link(0, "byName", CE_COLLECTION_DICTIONARY, 1);
    create(0), create(1), create(1);
    for (unsigned i = 0; i < 2; i++) operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, i, 0), fresh(), mixed_list();
    const char *const texts[2][2] = {{"a", "d"}, {"b", "c"}};
    for (unsigned i = 0; i < 2; i++)
        for (unsigned k = 0; k < 2; k++)
            operation(OP_LIST_EDIT), target(0, 0, 0, 1), put(i), list_arguments(LIST_INSERT, k, 0), fresh(), mixed_text(texts[i][k]);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 2, 0), fresh(), mixed_dictionary();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(2), put(0), pooled_key(KEY_A), fresh(), mixed_list();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(2), put(0), pooled_key(KEY_B), fresh(), mixed_int(5);
    for (unsigned i = 0; i < 3; i++) operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, i, 0), fresh(), double_value(i);
    for (unsigned i = 0; i < 2; i++) operation(OP_LIST_EDIT), target(0, 0, 2, 0), list_arguments(LIST_INSERT, i, 0), fresh(), link_value(i);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 3, 0), put(0), pooled_key(KEY_A), fresh(), link_value(1);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    /* items[1][0] = "z", then a list inserted at items[0]: items[1] is the old items[0]. */
    operation(OP_LIST_EDIT), target(0, 0, 0, 1), put(1), list_arguments(LIST_SET, 0, 0), fresh(), mixed_text("z");
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_SET, 0, 0), fresh(), double_value(-0.0);
    set(1, 1, 0), fresh(), text_value("renamed");
    simple(OP_COMMIT);
    /* The nested dictionary's list replaced by a value, a list moved before it. */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(3), put(0), pooled_key(KEY_A), fresh(), mixed_int(7);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 3, 0);
    operation(OP_LIST_EDIT), target(0, 0, 2, 0), list_arguments(LIST_SWAP, 0, 1);
    set(1, 0, 0), fresh(), text_value("first");
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(1), object_rank(1);
    simple(OP_COMMIT);
    simple(OP_HOLD_READER);
    write_seed("collection-changes");
}

/* Lists, sets and dictionaries of scalars, required and optional: every
 * list operation, a set in value order (-0.0 is 0.0, decimals by number),
 * dictionary keys in byte order and the keys refused. */
static void seed_scalar_collections(void)
{
    begin(0);
    add_table_named("Box");
    add_typed(0, "ints", CE_TYPE_INT, CE_COLLECTION_LIST, false);
    add_typed(0, "texts", CE_TYPE_STRING, CE_COLLECTION_LIST, true);
    add_typed(0, "doubles", CE_TYPE_DOUBLE, CE_COLLECTION_SET, false);
    add_typed(0, "decimals", CE_TYPE_DECIMAL128, CE_COLLECTION_SET, true);
    add_typed(0, "counts", CE_TYPE_INT, CE_COLLECTION_DICTIONARY, true);
    add_typed(0, "stamps", CE_TYPE_TIMESTAMP, CE_COLLECTION_DICTIONARY, false);
    create(0), create(0);
    for (unsigned i = 0; i < 5; i++) operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, i / 2, 0), fresh(), int_value((int64_t)i * 7 - 3);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), null_value();   /* required */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 9, 0), fresh(), int_value(1);   /* past the end */
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_SET, 2, 0), fresh(), int_value(INT64_MIN);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 0, 4);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_SWAP, 1, 3);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_ERASE, 2, 0);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), null_value();
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), text_value("b");
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), raw_string_value("\xC3\x28");
    operation(OP_LIST_EDIT), target(0, 0, 2, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), double_value(1); /* a set */
    double doubles[] = {2.5, -0.0, 0.0, -1e300, 1.0 / 0.0};
    for (unsigned i = 0; i < 5; i++) operation(OP_SET_EDIT), target(0, 0, 2, 0), put(0), fresh(), double_value(doubles[i]);
    operation(OP_SET_EDIT), target(0, 0, 2, 0), put(0), fresh(), int_value(3); /* wrong type */
    operation(OP_SET_EDIT), target(0, 0, 2, 0), put(1), fresh(), double_value(0.0);
    for (unsigned i = 0; i < 4; i++) operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), decimal_value(10 * (i & 1) + 1, i, i == 2);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), decimal_value(10, 0, false); /* 10E0 == 1E1 */
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), null_value();
    static const unsigned keys[] = {KEY_ZZ, KEY_A, KEY_EMPTY, KEY_NUL, KEY_N_TILDE, KEY_DOLLAR, KEY_DOT, KEY_BAD_UTF8};
    for (unsigned i = 0; i < 8; i++)
        operation(OP_DICTIONARY_EDIT), target(0, 0, 4, 0), put(0), pooled_key(keys[i]), fresh(), int_value((int64_t)i);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 4, 0), put(0), pooled_key(KEY_A), fresh(), null_value();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 4, 0), put(1), pooled_key(KEY_ZZ);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 5, 0), put(0), pooled_key(KEY_B), fresh(), timestamp_value(-5, 0);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 5, 0), put(0), pooled_key(KEY_A), fresh(), raw_timestamp_value(1, -1);
    operation(OP_COLLECTION_READ), target(0, 0, 4, 0), put(3), put(1), put(0);
    operation(OP_COLLECTION_READ), target(0, 0, 2, 0), put(2), put(0), put(0), fresh(), double_value(-0.0);
    operation(OP_COLLECTION_READ), target(0, 0, 0, 0), put(1), put(9), put(0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 4, 0);
    simple(OP_ROLLBACK);
    check_table_operation(0);
    write_seed("scalar-collections");
}

/* Mixed values: scalars, links (the target table gets its backlink
 * property then), lists and dictionaries nested three levels; deleting a
 * linked object clears it at every level. */
static void seed_mixed(void)
{
    begin(0);
    add_table_named("Doc");                          /* table 0 */
    add_table_named("Tag");                          /* table 1 */
    add_typed(0, "any", CE_TYPE_MIXED, CE_COLLECTION_NONE, true);
    add_typed(0, "items", CE_TYPE_MIXED, CE_COLLECTION_LIST, true);
    add_typed(0, "fields", CE_TYPE_MIXED, CE_COLLECTION_DICTIONARY, true);
    add_typed(0, "kinds", CE_TYPE_MIXED, CE_COLLECTION_SET, true);
    create(0), create(0), create(1), create(1);
    set(0, 0, 0), fresh(), mixed_int(42);
    set(0, 1, 0), fresh(), mixed_link(1, 0);         /* Tag gets @links.Doc.any */
    set(0, 0, 0), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_text("x");
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_INSERT, 0xC0, 0), fresh(), mixed_dictionary();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(0), put(0), pooled_key(KEY_A), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 0, 2), put(0), put(0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_link(1, 1);
    operation(OP_LIST_EDIT), target(0, 0, 0, 2), put(0), put(0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_double(-0.0);
    operation(OP_HOLD_COLLECTION), target(0, 0, 0, 2), put(0), put(0); /* the list in any[1]["a"] */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 0, 1), put(0), put(0), pooled_key(KEY_B), fresh(), mixed_link(1, 1);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_list();
    operation(OP_LIST_EDIT), target(0, 0, 1, 1), put(0), list_arguments(LIST_INSERT, 0, 0), fresh(), mixed_link(1, 1);
    operation(OP_DICTIONARY_EDIT), target(0, 0, 2, 0), put(0), pooled_key(KEY_KEY), fresh(), mixed_dictionary();
    operation(OP_DICTIONARY_EDIT), target(0, 0, 2, 1), put(0), put(0), pooled_key(KEY_A), fresh(), mixed_int(-1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_text("b");
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_int(1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_double(1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_link(1, 1);
    operation(OP_SET_EDIT), target(0, 0, 3, 0), put(0), fresh(), mixed_list(); /* a set nests nothing */
    operation(OP_COLLECTION_READ), target(0, 0, 0, 0), put(2), put(0), put(0), fresh(), mixed_text("x");
    backlinks(1, 1, 0, 2);
    simple(OP_COMMIT);
    operation(OP_DELETE), table_rank(1), object_rank(1);
    check_table_operation(0);
    set(0, 1, 0), fresh(), mixed_text("replaced");
    /* A link in a dictionary nested in a dictionary, then the outer one
     * cleared: the link goes with it, and its backlink. */
    operation(OP_DICTIONARY_EDIT), target(0, 0, 2, 1), put(0), put(0), pooled_key(KEY_B), fresh(), mixed_link(1, 0);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 2, 0);
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0), check_table_operation(1);
    operation(OP_REMOVE_PROPERTY), table_rank(0), column_rank(0);
    operation(OP_REMOVE_TABLE), table_rank(1);
    simple(OP_COMMIT);
    write_seed("mixed");
}

/* A bulk insert past one chunk (1000 elements), more at positions in it,
 * smaller ones into a list of strings, a set and a dictionary; then edits
 * at the ends and in the middle, a commit, a reopen. */
static void seed_bulk_collections(void)
{
    begin(1);
    add_table_named("Log");
    add_typed(0, "lines", CE_TYPE_INT, CE_COLLECTION_LIST, false);
    add_typed(0, "names", CE_TYPE_STRING, CE_COLLECTION_LIST, true);
    add_typed(0, "seen", CE_TYPE_UUID, CE_COLLECTION_SET, false);
    add_typed(0, "index", CE_TYPE_DOUBLE, CE_COLLECTION_DICTIONARY, false);
    create(0);
    operation(OP_BULK_INSERT), target(0, 0, 0, 0), put(0xF3), put(0), put_u32(11); /* 1025 */
    operation(OP_BULK_INSERT), target(0, 0, 1, 0), put(63), put(1), put_u32(12);
    simple(OP_COMMIT);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_MOVE, 0, 0xC0 - 1);
    operation(OP_LIST_EDIT), target(0, 0, 0, 0), list_arguments(LIST_ERASE, 100, 0);
    operation(OP_LIST_EDIT), target(0, 0, 1, 0), list_arguments(LIST_INSERT, 0xC0, 0), fresh(), text_value("last");
    operation(OP_BULK_INSERT), target(0, 0, 2, 0), put(50), put(0), put_u32(13);
    operation(OP_BULK_INSERT), target(0, 0, 3, 0), put(60), put(0), put_u32(14);
    operation(OP_BULK_INSERT), target(0, 0, 0, 0), put(40), put(1), put_u32(15); /* into the chunks */
    simple(OP_COMMIT);
    simple(OP_REOPEN);
    check_table_operation(0);
    operation(OP_COLLECTION_CLEAR), target(0, 0, 1, 0);
    operation(OP_DELETE), table_rank(0), object_rank(0);
    simple(OP_COMMIT);
    write_seed("bulk-collections");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_ops_corpus <directory>\n");
        return 2;
    }
    output_directory = argv[1];
    if (mkdir(output_directory, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "make_ops_corpus: cannot create %s: %s\n", output_directory, strerror(errno));
        return 1;
    }
    fuzz_ops_set_up();
    seed_basic(0, "basic");
    seed_basic(1, "basic-no-sync");
    seed_every_type();
    seed_primary_key(CE_TYPE_INT, false, "primary-key-int");
    seed_primary_key(CE_TYPE_INT, true, "primary-key-int-nullable");
    seed_primary_key(CE_TYPE_STRING, false, "primary-key-string");
    seed_primary_key(CE_TYPE_STRING, true, "primary-key-string-nullable");
    seed_primary_key(CE_TYPE_OBJECT_ID, false, "primary-key-object-id");
    seed_primary_key(CE_TYPE_UUID, true, "primary-key-uuid-nullable");
    seed_errors();
    seed_large_values();
    seed_bulk(CE_TYPE_INT, false, "bulk-int-key");
    seed_bulk(CE_TYPE_INT, true, "bulk-int-key-with-values");
    seed_bulk(CE_TYPE_STRING, false, "bulk-string-key");
    seed_bulk(CE_TYPE_UUID, true, "bulk-uuid-key-with-values");
    seed_rollback();
    seed_set_runs();
    seed_schema_changes();
    seed_read_transaction();
    seed_held_reader();
    seed_misuse();
    seed_indexes();
    seed_rows();
    seed_links();
    seed_link_collections();
    seed_embedded();
    seed_embedded_deep();
    seed_nested_deep();
    seed_scalar_collections();
    seed_mixed();
    seed_collection_changes();
    seed_bulk_collections();
    /* Random programs of a few lengths: whatever the weights make of them. */
    uint64_t state = 0x0F5EED;
    for (unsigned i = 0; i < 8; i++) {
        begin(i & 1);
        size_t length = 64u << (i % 5);
        while (program_size < length) put((uint8_t)(decode_next_random(&state) >> 56));
        char seed_name[32];
        snprintf(seed_name, sizeof seed_name, "random-%u", i);
        write_seed(seed_name);
    }
    printf("make_ops_corpus: %zu seeds written to %s\n", seeds_written, output_directory);
    return 0;
}
