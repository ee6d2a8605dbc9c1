/*
 * decode.h — fuzz_ops's input decoder: bytes -> the arguments of the
 * operations (keys, names, values, rows, paths into nested collections).
 *
 * Owns: the encoding of an operation's arguments, and the pseudo-random
 * streams an input seeds for values too long to spell out.
 * Never: calls the engine or changes the model (it reads the model only to
 * pick live tables, objects, values and paths), or judges a call.
 *
 * The input. Byte 0 holds options (bit 0: durability "unsafe no sync"
 * instead of "full"). Then operations, at most MAX_OPERATIONS, until the
 * input ends: one byte whose low 7 bits pick the operation through
 * fuzz_ops_operation_of_byte (weighted: sets and creates are common,
 * reopens rare), then the operation's arguments (the decode_* functions,
 * called by the ops_* functions in the order they read them). An input that
 * runs out in the middle of an operation reads zeros. make_corpus.c writes
 * seeds in this encoding.
 */
#ifndef FUZZ_OPS_DECODE_H
#define FUZZ_OPS_DECODE_H

#include "cengine.h"
#include "check.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the input, or (data == NULL) of a pseudo-random stream: values
 * too long to spell out in the input (bulk creates, long strings) come from
 * a stream seeded by the input. */
typedef struct source {
    const uint8_t *data;
    size_t size, offset;
    uint64_t state;
} source;

/* What the arguments are decoded from: the input, and the model they are
 * picked from (what the current transaction sees). */
typedef struct decoder {
    source input;
    const model *state;
    int large_values; /* values of 4 KiB .. 70 KiB left for this input */
} decoder;

/* A value being decoded: its bytes, when it owns them. */
typedef struct value_buffer {
    ce_value value;
    uint8_t *bytes;
} value_buffer;

/* An object with a value for every column slot: mostly one count too many
 * or too few when the low three bits of the flags are set, a duplicate
 * primary key on purpose when bits 4-5 are; anything in the slots of
 * removed properties (ignored). */
typedef struct value_row {
    size_t count;
    value_buffer *buffers;
    ce_value *values;
} value_row;

enum { DECODE_POOLED_KEYS = 13 }; /* the dictionary keys of the pool (decode.c) */

uint64_t decode_next_random(uint64_t *state);
source decode_random_source(uint64_t seed);
uint8_t decode_u8(source *from);
uint16_t decode_u16(source *from);
uint32_t decode_u32(source *from);
uint64_t decode_u64(source *from);

ce_table_key decode_table(decoder *in);
ce_column_key decode_column(decoder *in, const model_table *table);
ce_object_key decode_object(decoder *in, const model_table *table);
void decode_name(decoder *in, char name[80]);
bool decode_name_is_valid(const char *name);
size_t decode_index(decoder *in, size_t count);

void decode_free_value(value_buffer *buffer);
void decode_typed_value(source *from, ce_type type, bool raw, value_buffer *buffer);
void decode_value(decoder *in, const model_table *table, long column, ce_type type, value_buffer *buffer);
void decode_slot_value(decoder *in, const model_table *table, ce_column_key column, value_buffer *buffer);
void decode_element_value(decoder *in, const model_kind *kind, const model_collection *collection,
                          value_buffer *buffer);
value_row decode_row(decoder *in, const model_table *table, uint8_t flags, bool existing_key);
void decode_free_row(value_row *row);
void decode_bulk_primary_key(ce_type type, uint32_t seed, size_t i, value_buffer *buffer);
void decode_stream_value(source *stream, const model_property *property, value_buffer *buffer);

void decode_key(decoder *in, const model_collection *dictionary, bool is_dictionary, dictionary_key *key);
bool decode_key_is_valid(const dictionary_key *key);
void decode_target(decoder *in, collection_target *target, model_view *view, bool *out_resolved);

#endif
