/*
 * arena.c — the memory of a large write transaction's dirty nodes (see
 * arena.h).
 *
 * Owns: the chunks of one transaction, the buffers carved from them, the
 * thread that faults in the next chunks, and the unmapping of chunks.
 * Never: reuses freed bytes, grows a buffer, or keeps a chunk after
 * arena_release.
 *
 * A chunk is ARENA_CHUNK bytes aligned to its size, so the chunk of a
 * buffer is its address rounded down. Its first bytes hold a header: the
 * bytes of buffers live in it and its slot in the list of chunks. Each
 * lane carves from a chunk of its own, buffers one after another, 16-byte
 * aligned. Under AddressSanitizer every byte outside the headers and the
 * live buffers is poisoned, a gap of 16 bytes after each buffer too.
 *
 * The thread keeps ARENA_AHEAD chunks mapped and faulted in
 * (MADV_POPULATE_WRITE, else a write per page); the transaction takes one
 * when its chunk is full, or maps one itself when none is ready. Measured
 * on the machine of docs/BENCHMARKS.md: a page fault per 4 KiB costs the
 * transaction 2.3 GB/s of new memory; faulted in ahead, none of it. Huge
 * pages (MADV_HUGEPAGE) were tried: a fresh 2 MiB page costs that machine
 * (a VM) 0.5-1.2 GB/s, slower than small pages, and 10 GB/s only when the
 * memory was just freed by the same process.
 */
#include "arena.h"
#include "buf.h"
#include "os.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifndef ARENA_ASAN
#define ARENA_ASAN 0
#endif

#if ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(address, size) ASAN_POISON_MEMORY_REGION((address), (size))
#define ARENA_UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION((address), (size))
#define ARENA_GAP 16u /* poisoned bytes after each buffer */
#else
#define ARENA_POISON(address, size) ((void)(address), (void)(size))
#define ARENA_UNPOISON(address, size) ((void)(address), (void)(size))
#define ARENA_GAP 0u
#endif

#define ARENA_CHUNK ((size_t)8 << 20)
#define ARENA_AHEAD 2
#define ARENA_HEADER 64u

typedef struct chunk_header {
    uint64_t live; /* bytes of live buffers (with their gaps) */
    size_t slot;   /* in arena->chunks */
} chunk_header;

struct arena_state {
    uint8_t *current[ARENA_LANES]; /* the chunk each lane carves buffers from (NULL: none yet) */
    size_t used[ARENA_LANES];      /* bytes of it used */
    uint64_t live_bytes, freed_bytes;
    uint8_t **chunks; /* every chunk taken, NULL once unmapped */
    size_t chunk_count, chunk_capacity, chunks_mapped;
    /* The thread and the chunks it faulted in ahead. */
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    pthread_t thread;
    bool thread_running, stop;
    uint8_t *ahead[ARENA_AHEAD];
    size_t ahead_count;
};

static size_t block_size(size_t size) { return ((size + 15) & ~(size_t)15) + ARENA_GAP; }

static chunk_header *header_of(uint8_t *chunk) { return (chunk_header *)(void *)chunk; }

static uint8_t *chunk_of(uint8_t *bytes) { return (uint8_t *)((uintptr_t)bytes & ~(uintptr_t)(ARENA_CHUNK - 1)); }

/* A new chunk aligned to its size, or NULL. */
static uint8_t *map_chunk(void)
{
    size_t span = 2 * ARENA_CHUNK;
    uint8_t *mapped = os_active->mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return NULL;
    uint8_t *chunk = (uint8_t *)(((uintptr_t)mapped + ARENA_CHUNK - 1) & ~(uintptr_t)(ARENA_CHUNK - 1));
    size_t before = (size_t)(chunk - mapped), after = span - before - ARENA_CHUNK;
    if (before) os_active->munmap(mapped, before);
    if (after) os_active->munmap(chunk + ARENA_CHUNK, after);
    return chunk;
}

/* Faults the pages of a chunk in (before it is poisoned: the fallback
 * writes them). */
static void fault_in(uint8_t *chunk)
{
#if defined(MADV_POPULATE_WRITE)
    if (os_active->madvise(chunk, ARENA_CHUNK, MADV_POPULATE_WRITE) == 0) return;
#endif
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    for (size_t offset = 0; offset < ARENA_CHUNK; offset += (size_t)page) ((volatile uint8_t *)chunk)[offset] = 0;
}

static void *fault_in_ahead(void *argument)
{
    arena_state *arena = argument;
    pthread_mutex_lock(&arena->mutex);
    for (;;) {
        while (arena->ahead_count == ARENA_AHEAD && !arena->stop) pthread_cond_wait(&arena->changed, &arena->mutex);
        if (arena->stop) break;
        pthread_mutex_unlock(&arena->mutex);
        uint8_t *chunk = map_chunk();
        if (chunk) {
            fault_in(chunk);
            ARENA_POISON(chunk, ARENA_CHUNK);
        }
        pthread_mutex_lock(&arena->mutex);
        if (!chunk) break; /* out of memory: the transaction maps its own, or declines */
        arena->ahead[arena->ahead_count++] = chunk;
        pthread_cond_broadcast(&arena->changed);
    }
    pthread_mutex_unlock(&arena->mutex);
    return NULL;
}

arena_state *arena_create(void)
{
    arena_state *arena = calloc(1, sizeof *arena);
    if (!arena) return NULL;
    if (pthread_mutex_init(&arena->mutex, NULL) != 0) {
        free(arena);
        return NULL;
    }
    if (pthread_cond_init(&arena->changed, NULL) != 0) {
        pthread_mutex_destroy(&arena->mutex);
        free(arena);
        return NULL;
    }
    arena->thread_running = pthread_create(&arena->thread, NULL, fault_in_ahead, arena) == 0;
    return arena;
}

/* The chunk's buffers are all freed: back to the system. */
static void unmap_chunk(arena_state *arena, uint8_t *chunk)
{
    arena->chunks[header_of(chunk)->slot] = NULL;
    arena->chunks_mapped--;
    ARENA_UNPOISON(chunk, ARENA_CHUNK);
    os_active->munmap(chunk, ARENA_CHUNK);
}

static bool is_current(const arena_state *arena, const uint8_t *chunk)
{
    for (unsigned lane = 0; lane < ARENA_LANES; lane++)
        if (arena->current[lane] == chunk) return true;
    return false;
}

/* Makes a new chunk current in `lane`: one faulted in ahead, else a new
 * mapping. */
static bool next_chunk(arena_state *arena, unsigned lane)
{
    if (!buf_reserve((void **)&arena->chunks, &arena->chunk_capacity, arena->chunk_count + 1, sizeof *arena->chunks))
        return false;
    uint8_t *chunk = NULL;
    pthread_mutex_lock(&arena->mutex);
    if (arena->ahead_count > 0) {
        chunk = arena->ahead[0];
        memmove(arena->ahead, arena->ahead + 1, --arena->ahead_count * sizeof *arena->ahead);
        pthread_cond_broadcast(&arena->changed);
    }
    pthread_mutex_unlock(&arena->mutex);
    if (!chunk) {
        chunk = map_chunk();
        if (!chunk) return false;
        ARENA_POISON(chunk, ARENA_CHUNK);
    }
    uint8_t *previous = arena->current[lane];
    ARENA_UNPOISON(chunk, ARENA_HEADER);
    *header_of(chunk) = (chunk_header){.live = 0, .slot = arena->chunk_count};
    arena->chunks[arena->chunk_count++] = chunk;
    arena->chunks_mapped++;
    arena->current[lane] = chunk;
    arena->used[lane] = ARENA_HEADER;
    if (previous && header_of(previous)->live == 0) unmap_chunk(arena, previous);
    return true;
}

uint8_t *arena_alloc(arena_state *arena, size_t size, unsigned lane)
{
    if (size == 0 || size > ARENA_MAX_BUFFER || lane >= ARENA_LANES ||
        arena->freed_bytes > arena->live_bytes + ARENA_CHUNK)
        return NULL;
    size_t block = block_size(size);
    if (!arena->current[lane] || ARENA_CHUNK - arena->used[lane] < block) {
        if (!next_chunk(arena, lane)) return NULL;
    }
    uint8_t *bytes = arena->current[lane] + arena->used[lane];
    arena->used[lane] += block;
    header_of(arena->current[lane])->live += block;
    arena->live_bytes += block;
    ARENA_UNPOISON(bytes, size);
    return bytes;
}

void arena_free(arena_state *arena, uint8_t *bytes, size_t size)
{
    size_t block = block_size(size);
    uint8_t *chunk = chunk_of(bytes);
    ARENA_POISON(bytes, size);
    header_of(chunk)->live -= block;
    arena->live_bytes -= block;
    arena->freed_bytes += block;
    if (header_of(chunk)->live == 0 && !is_current(arena, chunk)) unmap_chunk(arena, chunk);
}

uint64_t arena_live_bytes(const arena_state *arena) { return arena->live_bytes; }

uint64_t arena_freed_bytes(const arena_state *arena) { return arena->freed_bytes; }

size_t arena_mapped_chunks(const arena_state *arena) { return arena->chunks_mapped; }

void arena_release(arena_state *arena)
{
    if (!arena) return;
    pthread_mutex_lock(&arena->mutex);
    arena->stop = true;
    pthread_cond_broadcast(&arena->changed);
    pthread_mutex_unlock(&arena->mutex);
    if (arena->thread_running) pthread_join(arena->thread, NULL);
    for (size_t i = 0; i < arena->ahead_count; i++) {
        ARENA_UNPOISON(arena->ahead[i], ARENA_CHUNK);
        os_active->munmap(arena->ahead[i], ARENA_CHUNK);
    }
    for (size_t i = 0; i < arena->chunk_count; i++)
        if (arena->chunks[i]) {
            ARENA_UNPOISON(arena->chunks[i], ARENA_CHUNK);
            os_active->munmap(arena->chunks[i], ARENA_CHUNK);
        }
    free(arena->chunks);
    pthread_cond_destroy(&arena->changed);
    pthread_mutex_destroy(&arena->mutex);
    free(arena);
}
