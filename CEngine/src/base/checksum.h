/*
 * checksum.h — the 64-bit checksum used for headers and commit verification.
 *
 * Owns: one non-cryptographic hash function, fast enough to run over every
 * byte a commit writes (about 10 GB/s). It detects torn and lost writes, not
 * tampering (encryption authenticates pages for that).
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
