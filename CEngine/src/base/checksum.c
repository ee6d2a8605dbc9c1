/*
 * checksum.c — a four-lane multiply-rotate hash (see checksum.h).
 *
 * Owns: the lanes, the constants, the absorption of 32-byte blocks and the
 * final mix of the engine's one checksum.
 * Never: allocates, or keeps state outside the caller's checksum_state.
 *
 * Four independent 64-bit lanes each absorb 8 bytes per step, so the CPU can
 * overlap the multiplications; the lanes are folded together at the end.
 * Odd 64-bit constants with well-mixed bits (taken from the golden ratio and
 * similar irrational numbers) spread every input bit over the state.
 */
#include "checksum.h"

#include <string.h>

#define PRIME_A 0x9E3779B185EBCA87ull
#define PRIME_B 0xC2B2AE3D27D4EB4Full
#define PRIME_C 0x165667B19E3779F9ull
#define PRIME_D 0x85EBCA77C2B2AE63ull

static inline uint64_t rotate_left(uint64_t value, int bits)
{
    return (value << bits) | (value >> (64 - bits));
}

static inline uint64_t read_u64(const uint8_t *bytes)
{
    uint64_t value;
    memcpy(&value, bytes, 8);
    return value;
}

static inline uint64_t absorb(uint64_t lane, uint64_t input)
{
    lane += input * PRIME_B;
    lane = rotate_left(lane, 31);
    return lane * PRIME_A;
}

void checksum_init(checksum_state *state, uint64_t seed)
{
    state->lanes[0] = seed + PRIME_A + PRIME_B;
    state->lanes[1] = seed + PRIME_B;
    state->lanes[2] = seed;
    state->lanes[3] = seed - PRIME_A;
    state->pending_length = 0;
    state->total_length = 0;
}

static void absorb_block(uint64_t lanes[4], const uint8_t *block)
{
    lanes[0] = absorb(lanes[0], read_u64(block));
    lanes[1] = absorb(lanes[1], read_u64(block + 8));
    lanes[2] = absorb(lanes[2], read_u64(block + 16));
    lanes[3] = absorb(lanes[3], read_u64(block + 24));
}

void checksum_add(checksum_state *state, const void *data, size_t length)
{
    const uint8_t *bytes = data;
    state->total_length += length;
    if (state->pending_length > 0) {
        size_t take = 32 - state->pending_length;
        if (take > length) take = length;
        memcpy(state->pending + state->pending_length, bytes, take);
        state->pending_length += take;
        bytes += take;
        length -= take;
        if (state->pending_length < 32) return;
        absorb_block(state->lanes, state->pending);
        state->pending_length = 0;
    }
    uint64_t lane0 = state->lanes[0], lane1 = state->lanes[1];
    uint64_t lane2 = state->lanes[2], lane3 = state->lanes[3];
    while (length >= 32) {
        lane0 = absorb(lane0, read_u64(bytes));
        lane1 = absorb(lane1, read_u64(bytes + 8));
        lane2 = absorb(lane2, read_u64(bytes + 16));
        lane3 = absorb(lane3, read_u64(bytes + 24));
        bytes += 32;
        length -= 32;
    }
    state->lanes[0] = lane0;
    state->lanes[1] = lane1;
    state->lanes[2] = lane2;
    state->lanes[3] = lane3;
    memcpy(state->pending, bytes, length);
    state->pending_length = length;
}

uint64_t checksum_final(const checksum_state *state)
{
    uint64_t hash = rotate_left(state->lanes[0], 1) + rotate_left(state->lanes[1], 7) +
                    rotate_left(state->lanes[2], 12) + rotate_left(state->lanes[3], 18);
    for (int i = 0; i < 4; i++) hash = (hash ^ absorb(0, state->lanes[i])) * PRIME_A + PRIME_D;
    hash += state->total_length;
    size_t index = 0;
    for (; index + 8 <= state->pending_length; index += 8)
        hash = rotate_left(hash ^ absorb(0, read_u64(state->pending + index)), 27) * PRIME_A + PRIME_D;
    for (; index < state->pending_length; index++)
        hash = rotate_left(hash ^ (state->pending[index] * PRIME_C), 11) * PRIME_A;
    hash ^= hash >> 33;
    hash *= PRIME_B;
    hash ^= hash >> 29;
    hash *= PRIME_C;
    hash ^= hash >> 32;
    return hash;
}

uint64_t checksum_of(const void *data, size_t length, uint64_t seed)
{
    checksum_state state;
    checksum_init(&state, seed);
    checksum_add(&state, data, length);
    return checksum_final(&state);
}
