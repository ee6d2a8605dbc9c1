/*
 * checksum.h — the 64-bit checksum of header pages and commits, and of
 * value hashes.
 *
 * Owns: one non-cryptographic hash function, fast enough to run over every
 * byte a commit writes (about 10 GB/s): a slot's checksum of itself and of
 * the runs its commit wrote (header.c, db.c), and the hashes value.c gives
 * values (value_hash).
 * Never: detects tampering: it catches torn and lost writes (encryption
 * authenticates pages for that).
 */
#ifndef CE_CHECKSUM_H
#define CE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* A running checksum over several pieces of memory, in order. */
typedef struct checksum_state {
    uint64_t lanes[4];
    uint8_t pending[32];
    size_t pending_length;
    uint64_t total_length;
} checksum_state;

void checksum_init(checksum_state *state, uint64_t seed);
void checksum_add(checksum_state *state, const void *data, size_t length);
uint64_t checksum_final(const checksum_state *state);

/* The checksum of one piece of memory. */
uint64_t checksum_of(const void *data, size_t length, uint64_t seed);

#endif
