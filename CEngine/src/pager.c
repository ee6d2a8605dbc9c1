/*
 * pager.c — the file as memory (see pager.h).
 *
 * Mappings are reserved larger than the file (twice the size, at least
 * 64 MiB): Linux lets a shared mapping extend past the end of the file, and
 * the pages become readable as the file grows, so remapping is rare. Pages
 * past the end are never touched because every ref is checked against the
 * logical size of its version, which is never beyond the end of the file.
 */
#include "pager.h"
#include "error.h"
#include "os.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MINIMUM_MAPPING (64ull << 20)
#define MINIMUM_GROWTH (1ull << 20)

typedef struct mapping {
    const uint8_t *base;
    uint64_t length;
} mapping;

struct ce_pager {
    int fd;
    bool read_only;
    char *path;
    pthread_mutex_t mutex; /* guards the mapping list and the size cache */
    mapping *mappings;     /* the last one is the largest and current */
    size_t mapping_count;
    uint64_t known_file_size; /* a lower bound of the file's size */
};

static bool open_with_flags(const char *path, int flags, bool read_only, ce_pager **out_pager)
{
    int fd = ce_os->open(path, flags, 0644);
    if (fd < 0) {
        if (errno == ENOENT)
            return ce_fail(CE_ERR_FILE_NOT_FOUND, "file not found: '%s'", path);
        if (errno == EEXIST) return ce_fail(CE_ERR_FILE_EXISTS, "'%s' exists already", path);
        return ce_fail_errno(errno, "open", path);
    }
    ce_pager *pager = calloc(1, sizeof *pager);
    char *path_copy = strdup(path);
    if (!pager || !path_copy) {
        free(pager);
        free(path_copy);
        ce_os->close(fd);
        return ce_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", path);
    }
    pager->fd = fd;
    pager->read_only = read_only;
    pager->path = path_copy;
    pthread_mutex_init(&pager->mutex, NULL);
    if (!os_file_size(fd, &pager->known_file_size, path)) {
        pager_close(pager);
        return false;
    }
    *out_pager = pager;
    return true;
}

bool pager_open(const char *path, bool read_only, bool create, ce_pager **out_pager)
{
    int flags = (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC;
    if (create && !read_only) flags |= O_CREAT;
    return open_with_flags(path, flags, read_only, out_pager);
}

bool pager_create_new(const char *path, ce_pager **out_pager)
{
    return open_with_flags(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, false, out_pager);
}

void pager_close(ce_pager *pager)
{
    if (!pager) return;
    for (size_t i = 0; i < pager->mapping_count; i++)
        ce_os->munmap((void *)pager->mappings[i].base, pager->mappings[i].length);
    free(pager->mappings);
    ce_os->close(pager->fd);
    pthread_mutex_destroy(&pager->mutex);
    free(pager->path);
    free(pager);
}

const char *pager_path(const ce_pager *pager) { return pager->path; }
int pager_fd(const ce_pager *pager) { return pager->fd; }
bool pager_read_only(const ce_pager *pager) { return pager->read_only; }

static uint64_t round_up_power_of_two(uint64_t value)
{
    uint64_t result = MINIMUM_MAPPING;
    while (result < value) result <<= 1;
    return result;
}

bool pager_map(ce_pager *pager, uint64_t size, const uint8_t **out_base)
{
    pthread_mutex_lock(&pager->mutex);
    if (pager->mapping_count > 0 && pager->mappings[pager->mapping_count - 1].length >= size) {
        *out_base = pager->mappings[pager->mapping_count - 1].base;
        pthread_mutex_unlock(&pager->mutex);
        return true;
    }
    uint64_t length = round_up_power_of_two(size * 2);
    if (length > (uint64_t)SIZE_MAX) {
        pthread_mutex_unlock(&pager->mutex);
        return ce_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED, "cannot map %llu bytes of '%s'",
                       (unsigned long long)size, pager->path);
    }
    mapping *grown = realloc(pager->mappings, (pager->mapping_count + 1) * sizeof *grown);
    if (!grown) {
        pthread_mutex_unlock(&pager->mutex);
        return ce_fail(CE_ERR_OUT_OF_MEMORY, "out of memory mapping '%s'", pager->path);
    }
    pager->mappings = grown;
    void *base = ce_os->mmap(NULL, (size_t)length, PROT_READ, MAP_SHARED, pager->fd, 0);
    if (base == MAP_FAILED) {
        int error_number = errno;
        pthread_mutex_unlock(&pager->mutex);
        if (error_number == ENOMEM)
            return ce_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED, "cannot map %llu bytes of '%s'",
                           (unsigned long long)length, pager->path);
        return ce_fail_errno(error_number, "map", pager->path);
    }
    pager->mappings[pager->mapping_count++] = (mapping){base, length};
    *out_base = base;
    pthread_mutex_unlock(&pager->mutex);
    return true;
}

bool pager_read(ce_pager *pager, uint64_t offset, void *buffer, size_t length)
{
    return os_read_exact(pager->fd, buffer, length, offset, pager->path);
}

bool pager_write(ce_pager *pager, uint64_t offset, const void *buffer, size_t length)
{
    if (pager->read_only)
        return ce_fail(CE_ERR_READ_ONLY, "'%s' is open read-only", pager->path);
    return os_write_all(pager->fd, buffer, length, offset, pager->path);
}

bool pager_sync(ce_pager *pager) { return os_sync(pager->fd, false, pager->path); }

bool pager_file_size(ce_pager *pager, uint64_t *out_size)
{
    uint64_t size;
    if (!os_file_size(pager->fd, &size, pager->path)) return false;
    pthread_mutex_lock(&pager->mutex);
    pager->known_file_size = size;
    pthread_mutex_unlock(&pager->mutex);
    *out_size = size;
    return true;
}

bool pager_ensure_size(ce_pager *pager, uint64_t size)
{
    pthread_mutex_lock(&pager->mutex);
    uint64_t known = pager->known_file_size;
    pthread_mutex_unlock(&pager->mutex);
    if (known >= size) return true;
    uint64_t current;
    if (!pager_file_size(pager, &current)) return false;
    if (current >= size) return true;
    uint64_t growth = current / 8;
    if (growth < MINIMUM_GROWTH) growth = MINIMUM_GROWTH;
    uint64_t target = size + growth;
    target = (target + 4095) & ~4095ull;
    if (!os_grow_file(pager->fd, target, pager->path)) {
        /* Out of space for the slack: try for exactly what is needed. */
        if (ce_last_error_code() != CE_ERR_OUT_OF_DISK_SPACE || !os_grow_file(pager->fd, size, pager->path))
            return false;
        target = size;
    }
    /* Write zeros over the new blocks once: fallocate leaves them "unwritten"
     * (ext4, XFS), and the first write into such a block makes the sync of
     * every commit that touches it commit file-system metadata as well. Done
     * here, one sync pays for the whole step. */
    static const uint8_t zeros[64 * 1024];
    for (uint64_t offset = current; offset < target; offset += sizeof zeros) {
        uint64_t length = target - offset < sizeof zeros ? target - offset : sizeof zeros;
        if (!os_write_all(pager->fd, zeros, (size_t)length, offset, pager->path)) return false;
    }
    pthread_mutex_lock(&pager->mutex);
    if (pager->known_file_size < target) pager->known_file_size = target;
    pthread_mutex_unlock(&pager->mutex);
    return true;
}
