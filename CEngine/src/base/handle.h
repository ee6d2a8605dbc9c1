/*
 * handle.h — stale-handle detection for the handle kinds above the
 * database layer (ce_collection, ce_query, ce_results, ce_changes,
 * ce_key_path_filter, ce_results_observer): docs/DESIGN.md §8.
 *
 * Owns: a pool per kind of the memory of freed handles, and the magic
 * number each handle starts with (its kind's while live, HANDLE_FREED
 * once freed).
 * Never: returns a handle's memory to malloc (a stale pointer then reads
 * memory the engine owns, not freed memory), or tells a stale pointer
 * from a newer handle of the same kind that took its memory.
 */
#ifndef CE_HANDLE_H
#define CE_HANDLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A handle struct's first field: `uint64_t magic`; the struct is larger
 * than 16 bytes (a freed handle keeps the pool's link after the magic). */
typedef struct handle_pool {
    pthread_mutex_t mutex;
    void *freed;      /* freed handles, linked through the bytes after the magic */
    uint64_t live;    /* the magic of a live handle of the kind */
    const char *name; /* "ce_collection", ... for messages */
} handle_pool;

#define HANDLE_POOL(live_magic, kind_name) {PTHREAD_MUTEX_INITIALIZER, NULL, (live_magic), (kind_name)}

/* Zeroed memory of `size` bytes with the live magic, or NULL (out of
 * memory: no error set). */
void *handle_new(handle_pool *pool, size_t size);

/* Zeroes the handle, marks it freed and keeps it for handle_new. */
void handle_delete(handle_pool *pool, void *handle, size_t size);

/* Whether `handle` is a live handle of the pool's kind; if not (NULL, or
 * freed), CE_ERR_INVALID_ARGUMENT naming `call`. */
bool handle_check(const handle_pool *pool, const void *handle, const char *call);

/* Whether `handle` is live (no error set). */
bool handle_is_live(const handle_pool *pool, const void *handle);

#endif
