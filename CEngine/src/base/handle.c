/*
 * handle.c — stale-handle detection for the handle kinds above the
 * database layer (see handle.h; ce_db and ce_txn have their own pools in
 * storage/db.c).
 *
 * Owns: the pools of freed handles and the magic numbers' check.
 * Never: frees a handle's memory, or reads a handle beyond its magic
 * before the magic says it is live.
 */
#include "handle.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

#define HANDLE_FREED 0x4F52465245454421ull /* freed: no kind's live magic */

void *handle_new(handle_pool *pool, size_t size)
{
    pthread_mutex_lock(&pool->mutex);
    uint8_t *handle = pool->freed;
    if (handle) memcpy(&pool->freed, handle + sizeof(uint64_t), sizeof(void *));
    pthread_mutex_unlock(&pool->mutex);
    if (!handle && !(handle = malloc(size))) return NULL;
    memset(handle, 0, size);
    memcpy(handle, &pool->live, sizeof pool->live);
    return handle;
}

void handle_delete(handle_pool *pool, void *handle, size_t size)
{
    if (!handle) return;
    uint8_t *bytes = handle;
    uint64_t freed = HANDLE_FREED;
    memset(bytes, 0, size);
    memcpy(bytes, &freed, sizeof freed);
    pthread_mutex_lock(&pool->mutex);
    memcpy(bytes + sizeof(uint64_t), &pool->freed, sizeof(void *));
    pool->freed = bytes;
    pthread_mutex_unlock(&pool->mutex);
}

bool handle_is_live(const handle_pool *pool, const void *handle)
{
    uint64_t magic;
    if (!handle) return false;
    memcpy(&magic, handle, sizeof magic);
    return magic == pool->live;
}

bool handle_check(const handle_pool *pool, const void *handle, const char *call)
{
    if (!handle) return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: the %s is required", call, pool->name);
    if (!handle_is_live(pool, handle))
        return error_fail(CE_ERR_INVALID_ARGUMENT, "%s: the %s was freed (or is not a %s)", call, pool->name, pool->name);
    return true;
}
