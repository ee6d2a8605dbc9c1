/*
 * arena.h — the memory of a large write transaction's dirty nodes.
 *
 * Owns: chunks of anonymous memory mapped for one transaction, the node
 * buffers carved from them one after another, a thread that maps the next
 * chunks and faults their pages in ahead of the transaction, and the
 * return of each chunk to the system once no buffer in it is live.
 * Never: reuses a freed buffer's bytes (it declines allocations once the
 * freed bytes outweigh the live ones by a chunk: the caller's malloc
 * serves them then), grows a buffer (a growing node moves to malloc), or
 * outlives its transaction (arena_release).
 *
 * Why: a 100M-object insert fills 4.2 GB of node buffers, each page of
 * which costs a page fault on first touch (1.07M faults, 2.7 s of the
 * insert's 10.5 s on the machine of docs/BENCHMARKS.md). Faulted in on a
 * thread of their own, those pages are ready when the transaction reaches
 * them. space.c gives a transaction this arena only past
 * space_arena_bytes of buffers, so small transactions keep malloc's warm
 * heap.
 */
#ifndef CE_ARENA_H
#define CE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct arena_state arena_state;

/* The largest buffer the arena serves (larger ones: malloc). */
#define ARENA_MAX_BUFFER ((size_t)64 << 10)

/* A new arena, its thread started (an arena without the thread, if it
 * cannot start). NULL when out of memory: the caller uses malloc. */
arena_state *arena_create(void);

/* Lanes: the buffers of each lane come from chunks of their own. Nodes
 * that a commit places at different times (a table's cluster, placed
 * first, and its primary-key index, placed after it, whose leaves a bulk
 * insert creates one per leaf of the cluster) then leave whole chunks
 * free, given back while the commit goes on, instead of every chunk
 * holding some of both until the end. */
#define ARENA_LANES 2

/* A buffer of `size` bytes (<= ARENA_MAX_BUFFER, 16-byte aligned) in lane
 * `lane` (< ARENA_LANES), or NULL if the arena declines (out of memory, or
 * too much of it freed): the caller uses malloc then. */
uint8_t *arena_alloc(arena_state *arena, size_t size, unsigned lane);

/* Frees a buffer arena_alloc returned, with the size it was asked for. A
 * chunk whose buffers are all freed goes back to the system at once. */
void arena_free(arena_state *arena, uint8_t *bytes, size_t size);

/* Bytes of buffers live, and freed, in the arena (tests). */
uint64_t arena_live_bytes(const arena_state *arena);
uint64_t arena_freed_bytes(const arena_state *arena);
/* Chunks the transaction took and that are still mapped (not those
 * faulted in ahead, which the thread adds at any time) (tests). */
size_t arena_mapped_chunks(const arena_state *arena);

/* Ends the thread and unmaps every chunk (NULL: nothing). Every buffer
 * the arena gave is invalid after this. */
void arena_release(arena_state *arena);

#endif
