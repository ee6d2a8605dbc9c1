/*
 * pager.c — the file as memory (see pager.h).
 *
 * Owns: the state behind pager.h: the file's mappings, the decrypted view
 * and its page entries, the ring of decrypted pages and their eviction,
 * the nonces of each batch of writes, and early writeback.
 * Never: writes the file through a mapping (writes go through os.h), or
 * leaves a page that failed authentication readable (it is zeroed and
 * stays not ready).
 *
 * Mappings of the file are reserved larger than the file (twice the size,
 * at least 64 MiB): Linux lets a shared mapping extend past the end of the
 * file, and the pages become readable as the file grows, so remapping is
 * rare. Pages past the end are not touched while the file is whole: for a
 * plain file every ref is checked against the logical size of its version,
 * which is never beyond the end of the file; for an encrypted file the
 * pager checks the file's size before it reads a page through the mapping.
 * Another process may still truncate the file (damage): every transaction
 * begin and commit compares the file's size with its version
 * (pager_check_file), and a read that faults past the new end meanwhile
 * reads zeros and sets `truncated` (fault.h), which the readers check.
 *
 * The decrypted view of an encrypted file is reserved once, at open, as an
 * inaccessible private anonymous mapping (address space only: 256 GiB, or
 * four times the file if larger); the part the file's versions use is made
 * readable and writable as the file grows (MAP_NORESERVE: untouched pages
 * cost nothing). Regions of its first `limit` bytes that fill up are
 * collapsed into huge pages (see note_resident). The page entries are a second such mapping, one entry per
 * page. Both keep their addresses until close, so pointers into the view
 * need no translation: a ref is an offset from the view's base, as from the
 * file mapping's base for a plain file.
 *
 * Decryption reads the page and its metadata entry through the file's
 * shared mapping (no system call), under the pager's mutex (one EVP context
 * per direction). Eviction runs under the mutex too; it clears a page's
 * valid_through before it reads the page's epoch, the mirror of the reader
 * (pager_page_ready).
 */
#include "pager.h"
#include "error.h"
#include "checksum.h"
#include "fault.h"
#include "os.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#define MINIMUM_MAPPING (64ull << 20)
#define MINIMUM_GROWTH (1ull << 20)
#define VIEW_RESERVATION (256ull << 30)
#define VIEW_MINIMUM_RESERVATION (1ull << 30)
#define VIEW_GROWTH_STEP (64ull << 20)
#define HUGE_PAGE (2ull << 20)
#define WRITE_BATCH_PAGES 256u
#define CACHE_MINIMUM_BYTES (16ull << 20)
#define CACHE_MAXIMUM_BYTES (512ull << 20)

typedef struct mapping {
    const uint8_t *base;
    uint64_t length;
    int guard; /* its place in fault.c's table */
} mapping;

/* The state of an encrypted file (NULL for a plain one). */
typedef struct cipher_state {
    crypt_state *crypt;
    uint32_t group_pages;       /* data pages per metadata page */
    uint64_t cache_bytes;       /* as configured (0: the default) */
    uint8_t *view;              /* the decrypted view (aligned to a huge page) */
    uint8_t *view_mapping;      /* the reservation it lies in */
    uint64_t view_mapping_size;
    uint64_t view_reserved;     /* bytes of address space from view on */
    uint64_t view_usable;       /* the readable and writable prefix */
    pager_page_entry *entries;     /* one per page of the reservation */
    uint64_t entries_reserved;  /* bytes */
    /* The pages counted in the cache, oldest first (a ring). */
    uint64_t *ring;
    size_t ring_capacity, ring_head, ring_count;
    size_t limit_pages;         /* the cache's bound */
    size_t evict_at;            /* try to evict when ring_count exceeds this */
    /* Per 2 MiB region of the view's first `limit` bytes: how many of its
     * pages are counted in the cache (bit 15: collapsed). */
    uint16_t *region_pages;
    size_t region_count;
    /* Epochs of the readers of this handle. */
    uint64_t next_epoch;
    uint64_t *live_epochs;
    size_t live_count, live_capacity;
} cipher_state;

struct pager_state {
    int fd;
    bool read_only;
    bool early_writeback; /* see pager_set_early_writeback */
    /* Bytes written whose writeback has not been started (from == end:
     * none); see note_written. Only the writer writes. */
    uint64_t unstarted_from, unstarted_end;
    char *path;
    pthread_mutex_t mutex; /* guards the mapping list, the size cache and the cipher state */
    mapping *mappings;     /* the last one is the largest and current */
    size_t mapping_count;
    uint64_t known_file_size; /* a lower bound of the file's size */
    cipher_state *cipher;
    /* Set by fault.c's handler when a read of a mapping of the file faulted
     * past its end (another process truncated it); never cleared. */
    _Atomic bool truncated;
    /* The last size check that passed (pager_check_file): when, and the
     * size it found. */
    _Atomic uint64_t checked_at_ns;
    _Atomic uint64_t checked_size;
    /* A plain file with page checksums whose reads are verified, two dense
     * arrays indexed by page in one mapping reserved at open (address space
     * only, as an encrypted file's entries): the newest version each page
     * was verified for (0: never; read without a lock by the inline read
     * barrier, space_bytes) and the checksum it was verified against
     * (under the mutex). Dense, so that the barrier's one load per node
     * read stays in cache: 8 bytes a page where an entry takes 32. */
    _Atomic uint64_t *sum_verified;
    uint32_t *sum_checked;
    uint64_t sum_pages;    /* pages both arrays cover */
    uint64_t sum_reserved; /* bytes of their mapping */
};

static bool open_with_flags(const char *path, int flags, bool read_only, pager_state **out_pager)
{
    int fd = os_open_regular(path, flags, 0644);
    if (fd < 0) return false;
    pager_state *pager = calloc(1, sizeof *pager);
    char *path_copy = strdup(path);
    if (!pager || !path_copy) {
        free(pager);
        free(path_copy);
        os_active->close(fd);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", path);
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

bool pager_open(const char *path, bool read_only, bool create, pager_state **out_pager)
{
    int flags = (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC;
    if (create && !read_only) flags |= O_CREAT;
    return open_with_flags(path, flags, read_only, out_pager);
}

bool pager_create_new(const char *path, pager_state **out_pager)
{
    return open_with_flags(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, false, out_pager);
}

static void free_cipher(cipher_state *cipher)
{
    if (!cipher) return;
    crypt_destroy(cipher->crypt);
    /* The decrypted pages are secrets too: dropped before the memory goes. */
    if (cipher->view) {
        if (cipher->view_usable) os_active->madvise(cipher->view, (size_t)cipher->view_usable, MADV_DONTNEED);
        os_active->munmap(cipher->view_mapping, (size_t)cipher->view_mapping_size);
    }
    if (cipher->entries) os_active->munmap(cipher->entries, (size_t)cipher->entries_reserved);
    free(cipher->ring);
    free(cipher->region_pages);
    free(cipher->live_epochs);
    free(cipher);
}

static void close_pager(pager_state *pager, bool descriptor_in_background)
{
    if (!pager) return;
    for (size_t i = 0; i < pager->mapping_count; i++) {
        fault_unguard(pager->mappings[i].guard);
        os_active->munmap((void *)pager->mappings[i].base, pager->mappings[i].length);
    }
    free(pager->mappings);
    free_cipher(pager->cipher);
    if (pager->sum_verified) os_active->munmap((void *)pager->sum_verified, (size_t)pager->sum_reserved);
    if (descriptor_in_background) {
        os_close_in_background(pager->fd);
    } else {
        os_active->close(pager->fd);
    }
    pthread_mutex_destroy(&pager->mutex);
    free(pager->path);
    free(pager);
}

void pager_close(pager_state *pager) { close_pager(pager, false); }

void pager_close_replaced(pager_state *pager) { close_pager(pager, true); }

const char *pager_path(const pager_state *pager) { return pager->path; }
int pager_fd(const pager_state *pager) { return pager->fd; }
bool pager_read_only(const pager_state *pager) { return pager->read_only; }
bool pager_is_encrypted(const pager_state *pager) { return pager->cipher != NULL; }
pager_page_entry *pager_page_entries(const pager_state *pager)
{
    return pager->cipher ? pager->cipher->entries : NULL;
}

/* The power of two at or above `value` (at least MINIMUM_MAPPING);
 * UINT64_MAX when there is none (a value past 2^63). */
static uint64_t round_up_power_of_two(uint64_t value)
{
    uint64_t result = MINIMUM_MAPPING;
    while (result < value) {
        if (result > UINT64_MAX / 2) return UINT64_MAX;
        result <<= 1;
    }
    return result;
}

/* A shared read-only mapping of the file covering `size` bytes. Called
 * with the mutex held. */
static bool map_file_locked(pager_state *pager, uint64_t size, const uint8_t **out_base)
{
    if (pager->mapping_count > 0 && pager->mappings[pager->mapping_count - 1].length >= size) {
        *out_base = pager->mappings[pager->mapping_count - 1].base;
        return true;
    }
    uint64_t length = size > UINT64_MAX / 4 ? UINT64_MAX : round_up_power_of_two(size * 2);
    if (length > (uint64_t)SIZE_MAX || length == UINT64_MAX)
        return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED, "cannot map %llu bytes of '%s'", (unsigned long long)size,
                       pager->path);
    mapping *grown = realloc(pager->mappings, (pager->mapping_count + 1) * sizeof *grown);
    if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory mapping '%s'", pager->path);
    pager->mappings = grown;
    void *base = os_active->mmap(NULL, (size_t)length, PROT_READ, MAP_SHARED, pager->fd, 0);
    if (base == MAP_FAILED) {
        if (errno == ENOMEM)
            return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED, "cannot map %llu bytes of '%s'",
                           (unsigned long long)length, pager->path);
        return error_fail_errno(errno, "map", pager->path);
    }
    /* Guarded: a page past the end of a file another process truncated
     * reads as zeros and sets `truncated`, instead of a SIGBUS. */
    int guard = fault_guard(base, (size_t)length, &pager->truncated);
    pager->mappings[pager->mapping_count++] = (mapping){base, length, guard};
    *out_base = base;
    return true;
}

/* --- the layout of an encrypted file --- */

static uint64_t data_page_offset(const cipher_state *cipher, uint64_t page)
{
    uint64_t data = page - PAGER_HEADER_PAGES;
    uint64_t group = data / cipher->group_pages;
    return (PAGER_HEADER_PAGES + group * (cipher->group_pages + 1u) + 1u + data % cipher->group_pages) *
           (uint64_t)PAGER_PAGE_SIZE;
}

static uint64_t metadata_page_offset(const cipher_state *cipher, uint64_t page)
{
    uint64_t group = (page - PAGER_HEADER_PAGES) / cipher->group_pages;
    return (PAGER_HEADER_PAGES + group * (cipher->group_pages + 1u)) * (uint64_t)PAGER_PAGE_SIZE;
}

static uint64_t metadata_entry_offset(const cipher_state *cipher, uint64_t page)
{
    return metadata_page_offset(cipher, page) +
           ((page - PAGER_HEADER_PAGES) % cipher->group_pages) * (uint64_t)PAGER_METADATA_ENTRY_SIZE;
}

uint64_t pager_physical_size(const pager_state *pager, uint64_t logical_size)
{
    const cipher_state *cipher = pager->cipher;
    uint64_t header = (uint64_t)PAGER_HEADER_PAGES * PAGER_PAGE_SIZE;
    if (!cipher || logical_size <= header) return logical_size;
    uint64_t data_pages = (logical_size - header + PAGER_PAGE_SIZE - 1) / PAGER_PAGE_SIZE;
    uint64_t groups = (data_pages + cipher->group_pages - 1) / cipher->group_pages;
    return header + (data_pages + groups) * (uint64_t)PAGER_PAGE_SIZE;
}

/* --- the decrypted view --- */

static uint64_t default_cache_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t memory = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : (1ull << 30);
    uint64_t bytes = memory / 16;
    if (bytes < CACHE_MINIMUM_BYTES) bytes = CACHE_MINIMUM_BYTES;
    if (bytes > CACHE_MAXIMUM_BYTES) bytes = CACHE_MAXIMUM_BYTES;
    return bytes;
}

static uint64_t entries_bytes_for(uint64_t view_bytes)
{
    uint64_t bytes = view_bytes / PAGER_PAGE_SIZE * sizeof(pager_page_entry);
    return (bytes + PAGER_PAGE_SIZE - 1) & ~(uint64_t)(PAGER_PAGE_SIZE - 1);
}

/* Reserves address space: inaccessible until made usable. */
static void *reserve(uint64_t bytes)
{
    if (bytes > (uint64_t)SIZE_MAX) return NULL;
    void *memory = os_active->mmap(NULL, (size_t)bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

bool pager_enable_cipher(pager_state *pager, crypt_state *crypt, uint32_t group_pages, uint64_t cache_bytes)
{
    cipher_state *cipher = calloc(1, sizeof *cipher);
    if (!cipher) {
        crypt_destroy(crypt);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", pager->path);
    }
    cipher->crypt = crypt;
    cipher->group_pages = group_pages;
    cipher->cache_bytes = cache_bytes;
    uint64_t limit = (cache_bytes ? cache_bytes : default_cache_bytes()) / PAGER_PAGE_SIZE;
    cipher->limit_pages = limit < 64 ? 64 : (size_t)limit;
    cipher->evict_at = cipher->limit_pages;
    cipher->region_count = (size_t)((uint64_t)cipher->limit_pages * PAGER_PAGE_SIZE / HUGE_PAGE);
    cipher->region_pages = calloc(cipher->region_count ? cipher->region_count : 1, sizeof *cipher->region_pages);
    if (!cipher->region_pages) {
        free_cipher(cipher);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", pager->path);
    }
    uint64_t file_size = pager->known_file_size;
    uint64_t wanted = file_size > VIEW_RESERVATION / 4 ? 4 * file_size : VIEW_RESERVATION;
    uint64_t least = file_size > VIEW_MINIMUM_RESERVATION / 4 ? 4 * file_size : VIEW_MINIMUM_RESERVATION;
    /* Less where address space is limited (RLIMIT_AS, 32-bit): the file
     * can then grow to the reservation while the handle is open. */
    for (uint64_t size = wanted; size >= least && !cipher->view; size /= 2) {
        /* One huge page more, to start the view on a huge-page boundary. */
        cipher->view_mapping = reserve(size + HUGE_PAGE);
        if (!cipher->view_mapping) continue;
        cipher->entries = reserve(entries_bytes_for(size));
        if (!cipher->entries) {
            os_active->munmap(cipher->view_mapping, (size_t)(size + HUGE_PAGE));
            cipher->view_mapping = NULL;
            continue;
        }
        cipher->view_mapping_size = size + HUGE_PAGE;
        cipher->view = (uint8_t *)(((uintptr_t)cipher->view_mapping + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        cipher->view_reserved = size;
        cipher->entries_reserved = entries_bytes_for(size);
    }
    if (!cipher->view) {
        free_cipher(cipher);
        return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED,
                       "cannot reserve address space for the decrypted view of '%s' (%llu bytes)", pager->path,
                       (unsigned long long)least);
    }
    pager->cipher = cipher;
    return true;
}

bool pager_clone_cipher(const pager_state *pager, crypt_state **out_crypt, uint32_t *out_group_pages,
                        uint64_t *out_cache_bytes)
{
    if (!pager->cipher) return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s' is not encrypted", pager->path);
    *out_group_pages = pager->cipher->group_pages;
    *out_cache_bytes = pager->cipher->cache_bytes;
    return crypt_clone(pager->cipher->crypt, out_crypt);
}

bool pager_header_mac(const pager_state *pager, const void *data, size_t length, uint8_t out_mac[CRYPT_MAC_SIZE])
{
    if (!pager->cipher) return error_fail(CE_ERR_INVALID_ARGUMENT, "'%s' is not encrypted", pager->path);
    return crypt_mac(pager->cipher->crypt, data, length, out_mac);
}

/* Makes the first `size` bytes of the view usable. Mutex held. */
static bool grow_view_locked(pager_state *pager, uint64_t size)
{
    cipher_state *cipher = pager->cipher;
    if (size <= cipher->view_usable) return true;
    if (size > cipher->view_reserved)
        return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED,
                       "'%s' grew to %llu bytes, beyond the %llu bytes of address space its decrypted view "
                       "reserved at open; close and reopen the file",
                       pager->path, (unsigned long long)size, (unsigned long long)cipher->view_reserved);
    uint64_t usable = size * 2 > VIEW_GROWTH_STEP ? size * 2 : VIEW_GROWTH_STEP;
    usable = (usable + VIEW_GROWTH_STEP - 1) & ~(VIEW_GROWTH_STEP - 1);
    if (usable > cipher->view_reserved) usable = cipher->view_reserved;
    uint64_t old_entries = entries_bytes_for(cipher->view_usable), new_entries = entries_bytes_for(usable);
    if (os_active->mprotect(cipher->view + cipher->view_usable, (size_t)(usable - cipher->view_usable),
                        PROT_READ | PROT_WRITE) != 0 ||
        (new_entries > old_entries &&
         os_active->mprotect((uint8_t *)cipher->entries + old_entries, (size_t)(new_entries - old_entries),
                         PROT_READ | PROT_WRITE) != 0)) {
        if (errno == ENOMEM)
            return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED, "cannot make %llu bytes of the decrypted view of '%s' usable",
                           (unsigned long long)usable, pager->path);
        return error_fail_errno(errno, "protect memory", pager->path);
    }
    /* No huge page is allocated by a fault (also where the system's default
     * is "always"): a first read would zero 2 MiB per region it touches.
     * Regions that fill up are collapsed instead (see note_resident). */
    os_active->madvise(cipher->view + cipher->view_usable, (size_t)(usable - cipher->view_usable), MADV_NOHUGEPAGE);
    cipher->view_usable = usable;
    return true;
}

bool pager_map(pager_state *pager, uint64_t size, const uint8_t **out_base)
{
    pthread_mutex_lock(&pager->mutex);
    bool ok;
    if (pager->cipher) {
        ok = grow_view_locked(pager, size);
        if (ok) *out_base = pager->cipher->view;
    } else {
        ok = map_file_locked(pager, size, out_base);
    }
    pthread_mutex_unlock(&pager->mutex);
    return ok;
}

/* --- epochs and eviction --- */

bool pager_begin_reading(pager_state *pager, uint64_t *out_epoch)
{
    cipher_state *cipher = pager->cipher;
    *out_epoch = 0;
    if (!cipher) return true;
    pthread_mutex_lock(&pager->mutex);
    if (cipher->live_count == cipher->live_capacity) {
        /* Without a record, the epoch would not keep its pages. */
        size_t capacity = cipher->live_capacity ? 2 * cipher->live_capacity : 16;
        uint64_t *grown = realloc(cipher->live_epochs, capacity * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&pager->mutex);
            return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory beginning to read '%s'", pager->path);
        }
        cipher->live_epochs = grown;
        cipher->live_capacity = capacity;
    }
    *out_epoch = ++cipher->next_epoch;
    cipher->live_epochs[cipher->live_count++] = *out_epoch;
    pthread_mutex_unlock(&pager->mutex);
    return true;
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif
#define REGION_PAGES ((size_t)(HUGE_PAGE / PAGER_PAGE_SIZE))
#define REGION_COLLAPSED 0x8000u
/* A region is collapsed once this many of its pages are decrypted. */
#define REGION_COLLAPSE_AT (REGION_PAGES / 4)

/* Counts a page in or out of its region. A region of the view's first
 * `limit` bytes in which a quarter of the pages have been decrypted is
 * collapsed into one huge page (MADV_COLLAPSE copies the pages that are
 * there and keeps their addresses): a scan of decrypted pages then costs
 * the TLB no more than one of the page cache (W4 and W2 ran 15-20 % slower
 * on 4 KiB pages), while a first read that touches a few pages here and
 * there pays for 4 KiB pages only (a huge page allocated at the first fault
 * would zero 2 MiB per region it touches). A collapsed region holds all its
 * 2 MiB until close, so only those in the first `limit` bytes are: the
 * memory the view holds stays under twice the cache's limit. Advice only:
 * where the kernel cannot, nothing changes. Mutex held. */
static void note_resident(cipher_state *cipher, uint64_t page, bool resident)
{
    size_t region = (size_t)(page / REGION_PAGES);
    if (region >= cipher->region_count) return;
    uint16_t *count = &cipher->region_pages[region];
    uint16_t pages = (uint16_t)(*count & ~REGION_COLLAPSED);
    pages = resident ? (uint16_t)(pages + 1) : (uint16_t)(pages - (pages > 0));
    *count = (uint16_t)((*count & REGION_COLLAPSED) | pages);
    if (resident && pages == REGION_COLLAPSE_AT && !(*count & REGION_COLLAPSED)) {
        *count |= REGION_COLLAPSED;
        uint8_t *start = cipher->view + (uint64_t)region * HUGE_PAGE;
        if ((uint64_t)(region + 1) * HUGE_PAGE <= cipher->view_usable &&
            os_active->madvise(start, (size_t)HUGE_PAGE, MADV_HUGEPAGE) == 0)
            os_active->madvise(start, (size_t)HUGE_PAGE, MADV_COLLAPSE);
    }
}

static void ring_push(cipher_state *cipher, uint64_t page)
{
    if (cipher->ring_count == cipher->ring_capacity) {
        size_t capacity = cipher->ring_capacity ? 2 * cipher->ring_capacity : 1024;
        uint64_t *grown = malloc(capacity * sizeof *grown);
        if (!grown) return; /* uncounted: it stays decrypted until close or reset */
        for (size_t i = 0; i < cipher->ring_count; i++)
            grown[i] = cipher->ring[(cipher->ring_head + i) % cipher->ring_capacity];
        free(cipher->ring);
        cipher->ring = grown;
        cipher->ring_capacity = capacity;
        cipher->ring_head = 0;
    }
    cipher->ring[(cipher->ring_head + cipher->ring_count) % cipher->ring_capacity] = page;
    cipher->ring_count++;
    if (!cipher->entries[page].resident) note_resident(cipher, page, true);
    cipher->entries[page].resident = 1;
}

static uint64_t ring_pop(cipher_state *cipher)
{
    uint64_t page = cipher->ring[cipher->ring_head];
    cipher->ring_head = (cipher->ring_head + 1) % cipher->ring_capacity;
    cipher->ring_count--;
    return page;
}

static int compare_pages(const void *a, const void *b)
{
    uint64_t left = *(const uint64_t *)a, right = *(const uint64_t *)b;
    return (left > right) - (left < right);
}

/* Returns the victims' memory to the system, one madvise per run of
 * neighbouring pages. */
static void drop_pages(cipher_state *cipher, uint64_t *pages, size_t count)
{
    qsort(pages, count, sizeof *pages, compare_pages);
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (j < count && pages[j] == pages[j - 1] + 1) j++;
        os_active->madvise(cipher->view + pages[i] * PAGER_PAGE_SIZE, (size_t)(j - i) * PAGER_PAGE_SIZE, MADV_DONTNEED);
        i = j;
    }
}

/* Evicts pages no live reader holds, oldest first, down to 7/8 of the
 * limit. Mutex held. */
static void evict_locked(cipher_state *cipher)
{
    uint64_t oldest = UINT64_MAX;
    for (size_t i = 0; i < cipher->live_count; i++)
        if (cipher->live_epochs[i] < oldest) oldest = cipher->live_epochs[i];
    size_t target = cipher->limit_pages - cipher->limit_pages / 8;
    uint64_t victims[256];
    size_t victim_count = 0;
    for (size_t scanned = 0, count = cipher->ring_count; cipher->ring_count > target && scanned < count; scanned++) {
        uint64_t page = ring_pop(cipher);
        pager_page_entry *entry = &cipher->entries[page];
        uint64_t valid = atomic_exchange(&entry->valid_through, 0);
        if (atomic_load(&entry->epoch) >= oldest) {
            /* A live reader may hold a pointer into it. */
            atomic_store(&entry->valid_through, valid);
            ring_push(cipher, page);
            continue;
        }
        entry->resident = 0;
        note_resident(cipher, page, false);
        victims[victim_count++] = page;
        if (victim_count == sizeof victims / sizeof victims[0]) {
            drop_pages(cipher, victims, victim_count);
            victim_count = 0;
        }
    }
    drop_pages(cipher, victims, victim_count);
    /* If live readers hold most of the cache, try again only after it has
     * grown by another eighth (or a reader ends): not at every page. */
    cipher->evict_at = cipher->ring_count > cipher->limit_pages ? cipher->ring_count + cipher->limit_pages / 8
                                                                : cipher->limit_pages;
}

void pager_end_reading(pager_state *pager, uint64_t epoch)
{
    cipher_state *cipher = pager->cipher;
    if (!cipher || epoch == 0) return;
    pthread_mutex_lock(&pager->mutex);
    for (size_t i = 0; i < cipher->live_count; i++) {
        if (cipher->live_epochs[i] != epoch) continue;
        cipher->live_epochs[i] = cipher->live_epochs[--cipher->live_count];
        break;
    }
    if (cipher->ring_count > cipher->limit_pages) evict_locked(cipher);
    pthread_mutex_unlock(&pager->mutex);
}

void pager_reset_cache(pager_state *pager)
{
    cipher_state *cipher = pager->cipher;
    if (!cipher) return;
    pthread_mutex_lock(&pager->mutex);
    if (cipher->view_usable) {
        os_active->madvise(cipher->view, (size_t)cipher->view_usable, MADV_DONTNEED);
        os_active->madvise(cipher->entries, (size_t)entries_bytes_for(cipher->view_usable), MADV_DONTNEED);
    }
    cipher->ring_count = 0;
    cipher->ring_head = 0;
    cipher->evict_at = cipher->limit_pages;
    memset(cipher->region_pages, 0, cipher->region_count * sizeof *cipher->region_pages);
    pthread_mutex_unlock(&pager->mutex);
}

void pager_cache_usage(pager_state *pager, uint64_t *out_pages, uint64_t *out_limit_pages)
{
    *out_pages = *out_limit_pages = 0;
    if (!pager->cipher) return;
    pthread_mutex_lock(&pager->mutex);
    *out_pages = pager->cipher->ring_count;
    *out_limit_pages = pager->cipher->limit_pages;
    pthread_mutex_unlock(&pager->mutex);
}

/* --- reading an encrypted page --- */

static bool missing_page(const pager_state *pager, uint64_t page, uint64_t data_offset, uint64_t file_size)
{
    return error_fail(CE_ERR_CORRUPT,
                      "invalid database: page %llu of '%s' (file offset %llu) is missing: the file ends at %llu bytes "
                      "(it was truncated)",
                      (unsigned long long)page, pager->path, (unsigned long long)data_offset,
                      (unsigned long long)file_size);
}

/* Makes one page readable for `version`. Mutex held. */
static bool ready_page_locked(pager_state *pager, uint64_t page, uint64_t version, uint64_t epoch)
{
    cipher_state *cipher = pager->cipher;
    pager_page_entry *entry = &cipher->entries[page];
    uint64_t seen = atomic_load(&entry->epoch);
    while (seen < epoch && !atomic_compare_exchange_weak(&entry->epoch, &seen, epoch)) {
    }
    uint64_t valid = atomic_load(&entry->valid_through);
    if (valid != 0 && valid >= version) return true;
    if (page < PAGER_HEADER_PAGES || (page + 1) * PAGER_PAGE_SIZE > cipher->view_usable)
        return error_fail(CE_ERR_CORRUPT, "invalid database: page %llu of '%s' is outside the decrypted view",
                       (unsigned long long)page, pager->path);
    if (atomic_load(&pager->truncated)) return pager_truncated_error(pager);
    uint64_t data_offset = data_page_offset(cipher, page), entry_offset = metadata_entry_offset(cipher, page);
    uint64_t needed = data_offset + PAGER_PAGE_SIZE;
    if (needed > pager->known_file_size) {
        uint64_t size;
        if (!os_file_size(pager->fd, &size, pager->path)) return false;
        pager->known_file_size = size;
        if (needed > size) return missing_page(pager, page, data_offset, size);
    }
    const uint8_t *file;
    if (!map_file_locked(pager, needed, &file)) return false;
    const uint8_t *nonce = file + entry_offset, *tag = nonce + CRYPT_NONCE_SIZE;
    uint64_t nonce_check;
    memcpy(&nonce_check, nonce + CRYPT_NONCE_SIZE - 8, 8);
    if (valid != 0 && entry->nonce_check == nonce_check) {
        /* Not rewritten since it was decrypted: good for this version too. */
        atomic_store(&entry->valid_through, version);
        return true;
    }
    uint8_t *target = cipher->view + page * PAGER_PAGE_SIZE;
    bool authentic;
    if (!crypt_decrypt_page(cipher->crypt, page, nonce, tag, file + data_offset, target, &authentic)) return false;
    bool truncated = atomic_load(&pager->truncated);
    if (!authentic || truncated) {
        memset(target, 0, PAGER_PAGE_SIZE);
        atomic_store(&entry->valid_through, 0);
        if (!entry->resident) ring_push(cipher, page);
        /* The page or its nonce lay past the end: read as zeros (fault.h),
         * or as zeros past the end of the file's last page. */
        if (truncated) return pager_truncated_error(pager);
        uint64_t size;
        if (os_file_size(pager->fd, &size, pager->path) && size < needed)
            return missing_page(pager, page, data_offset, size);
        return error_fail(CE_ERR_INVALID_DATABASE,
                       "invalid database: decryption failed: page %llu of '%s' (file offset %llu) failed "
                       "authentication (it is damaged, or was written with another key)",
                       (unsigned long long)page, pager->path, (unsigned long long)data_offset);
    }
    entry->nonce_check = nonce_check;
    atomic_store(&entry->valid_through, version);
    if (!entry->resident) ring_push(cipher, page);
    return true;
}

bool pager_make_readable(pager_state *pager, uint64_t offset, size_t length, uint64_t version, uint64_t epoch)
{
    cipher_state *cipher = pager->cipher;
    uint64_t first = offset / PAGER_PAGE_SIZE;
    uint64_t last = length ? (offset + length - 1) / PAGER_PAGE_SIZE : first;
    pthread_mutex_lock(&pager->mutex);
    bool ok = true;
    for (uint64_t page = first; ok && page <= last; page++) ok = ready_page_locked(pager, page, version, epoch);
    if (ok && cipher->ring_count > cipher->evict_at) evict_locked(cipher);
    pthread_mutex_unlock(&pager->mutex);
    return ok;
}

/* --- writing --- */

bool pager_read(pager_state *pager, uint64_t offset, void *buffer, size_t length)
{
    return os_read_exact(pager->fd, buffer, length, offset, pager->path);
}

bool pager_write(pager_state *pager, uint64_t offset, const void *buffer, size_t length)
{
    if (pager->read_only)
        return error_fail(CE_ERR_READ_ONLY, "'%s' is open read-only", pager->path);
    return os_write_all(pager->fd, buffer, length, offset, pager->path);
}

/* Reads a page of the file; what lies past its end reads as zeros. */
static bool read_page_or_zeros(pager_state *pager, uint64_t offset, uint8_t *page)
{
    size_t done = 0;
    while (done < PAGER_PAGE_SIZE) {
        ssize_t got = os_active->pread(pager->fd, page + done, PAGER_PAGE_SIZE - done, (off_t)(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            return error_fail_errno(errno, "read", pager->path);
        }
        if (got == 0) break;
        done += (size_t)got;
    }
    memset(page + done, 0, PAGER_PAGE_SIZE - done);
    return true;
}

/* The nonce and tag a page was written with, for its metadata page. */
typedef struct written_page {
    uint64_t page;
    uint8_t entry[PAGER_METADATA_ENTRY_SIZE];
} written_page;

/* Writes the metadata pages of the written pages (sorted by page): each
 * touched metadata page is read, given the new entries, and written whole.
 * Its other entries are written back unchanged, so a torn write of it can
 * damage only the entries of pages this batch wrote, which no version uses
 * yet. */
static bool write_metadata(pager_state *pager, const written_page *written, size_t count, uint8_t *buffer)
{
    cipher_state *cipher = pager->cipher;
    for (size_t i = 0; i < count;) {
        uint64_t offset = metadata_page_offset(cipher, written[i].page);
        size_t j = i;
        while (j < count && metadata_page_offset(cipher, written[j].page) == offset) j++;
        if (j - i < cipher->group_pages && !read_page_or_zeros(pager, offset, buffer)) return false;
        if (j - i == cipher->group_pages) memset(buffer, 0, PAGER_PAGE_SIZE);
        for (size_t k = i; k < j; k++)
            memcpy(buffer + (metadata_entry_offset(cipher, written[k].page) - offset), written[k].entry,
                   PAGER_METADATA_ENTRY_SIZE);
        if (!os_write_all(pager->fd, buffer, PAGER_PAGE_SIZE, offset, pager->path)) return false;
        i = j;
    }
    return true;
}

static void nonce_for(const uint8_t base[CRYPT_NONCE_SIZE], uint64_t counter, uint8_t out[CRYPT_NONCE_SIZE])
{
    /* base + counter over the last 8 bytes (little-endian); the first 4 stay. */
    memcpy(out, base, CRYPT_NONCE_SIZE);
    uint64_t low;
    memcpy(&low, base + CRYPT_NONCE_SIZE - 8, 8);
    low += counter;
    memcpy(out + CRYPT_NONCE_SIZE - 8, &low, 8);
}

/* Early writeback: writes next to one another gather into one range (a
 * page apart at most: an encrypted file's metadata pages lie between its
 * groups of data pages), whose writeback starts as soon as it reaches
 * WRITEBACK_MINIMUM. A commit or copy of many megabytes then overlaps with
 * the device's work, and its sync waits for the last piece only; small
 * writes (a commit of a few pages) are left to the sync. */
#define WRITEBACK_CHUNK (4u << 20)
#define WRITEBACK_MINIMUM (1u << 20)

static void note_written(pager_state *pager, uint64_t offset, uint64_t length)
{
    if (!pager->early_writeback) return;
    if (pager->unstarted_from == pager->unstarted_end || offset < pager->unstarted_from ||
        offset > pager->unstarted_end + PAGER_PAGE_SIZE)
        pager->unstarted_from = pager->unstarted_end = offset;
    if (offset + length > pager->unstarted_end) pager->unstarted_end = offset + length;
    if (pager->unstarted_end - pager->unstarted_from < WRITEBACK_MINIMUM) return;
    os_start_writeback(pager->fd, pager->unstarted_from, pager->unstarted_end - pager->unstarted_from);
    pager->unstarted_from = pager->unstarted_end;
}

/* Writes bytes at `offset` in pieces of at most WRITEBACK_CHUNK, each
 * noted for early writeback. */
static bool write_bytes(pager_state *pager, const uint8_t *bytes, size_t length, uint64_t offset)
{
    while (length > 0) {
        size_t piece = length < WRITEBACK_CHUNK ? length : WRITEBACK_CHUNK;
        if (!os_write_all(pager->fd, bytes, piece, offset, pager->path)) return false;
        note_written(pager, offset, piece);
        bytes += piece;
        length -= piece;
        offset += piece;
    }
    return true;
}

static bool write_encrypted_runs(pager_state *pager, const pager_write_run *runs, size_t count)
{
    cipher_state *cipher = pager->cipher;
    uint64_t header = (uint64_t)PAGER_HEADER_PAGES * PAGER_PAGE_SIZE;
    size_t page_total = 0;
    for (size_t i = 0; i < count; i++) {
        if (runs[i].position < header || runs[i].length == 0)
            return error_fail(CE_ERR_FAIL, "internal error: a run at %llu of '%s' is empty or inside the header",
                           (unsigned long long)runs[i].position, pager->path);
        page_total += (size_t)((runs[i].position + runs[i].length - 1) / PAGER_PAGE_SIZE -
                               runs[i].position / PAGER_PAGE_SIZE + 1);
    }
    /* A fresh random base per batch, counting up: a nonce is never used
     * twice under the key, also after a crash that threw away a commit
     * (the next batch draws a new base). */
    uint8_t nonce_base[CRYPT_NONCE_SIZE], nonce[CRYPT_NONCE_SIZE];
    written_page *written = malloc((page_total ? page_total : 1) * sizeof *written);
    uint8_t *out = malloc((size_t)WRITE_BATCH_PAGES * PAGER_PAGE_SIZE);
    uint8_t *plain = malloc(PAGER_PAGE_SIZE);
    bool ok = written && out && plain;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", pager->path);
    ok = ok && crypt_random(nonce_base, sizeof nonce_base);
    size_t written_count = 0, out_pages = 0, first_run = 0;
    uint64_t out_offset = 0, previous_page = UINT64_MAX;
    for (size_t r = 0; ok && r < count; r++) {
        uint64_t first = runs[r].position / PAGER_PAGE_SIZE;
        uint64_t last = (runs[r].position + runs[r].length - 1) / PAGER_PAGE_SIZE;
        for (uint64_t page = first; ok && page <= last; page++) {
            if (page == previous_page) continue; /* shared with the run before: done */
            previous_page = page;
            uint64_t start = page * PAGER_PAGE_SIZE, end = start + PAGER_PAGE_SIZE;
            while (first_run < count && runs[first_run].position + runs[first_run].length <= start) first_run++;
            const uint8_t *source;
            if (runs[r].position <= start && runs[r].position + runs[r].length >= end) {
                source = runs[r].bytes + (start - runs[r].position);
            } else {
                memset(plain, 0, PAGER_PAGE_SIZE);
                for (size_t k = first_run; k < count && runs[k].position < end; k++) {
                    uint64_t from = runs[k].position > start ? runs[k].position : start;
                    uint64_t to = runs[k].position + runs[k].length < end ? runs[k].position + runs[k].length : end;
                    memcpy(plain + (from - start), runs[k].bytes + (from - runs[k].position), (size_t)(to - from));
                }
                source = plain;
            }
            uint64_t offset = data_page_offset(cipher, page);
            if (out_pages > 0 && (out_offset + out_pages * PAGER_PAGE_SIZE != offset || out_pages == WRITE_BATCH_PAGES)) {
                ok = write_bytes(pager, out, out_pages * PAGER_PAGE_SIZE, out_offset);
                out_pages = 0;
            }
            if (out_pages == 0) out_offset = offset;
            nonce_for(nonce_base, written_count, nonce);
            written_page *record = &written[written_count++];
            record->page = page;
            memcpy(record->entry, nonce, CRYPT_NONCE_SIZE);
            ok = ok && crypt_encrypt_page(cipher->crypt, page, nonce, source, out + out_pages * PAGER_PAGE_SIZE,
                                          record->entry + CRYPT_NONCE_SIZE);
            out_pages++;
        }
    }
    if (ok && out_pages > 0) ok = write_bytes(pager, out, out_pages * PAGER_PAGE_SIZE, out_offset);
    ok = ok && write_metadata(pager, written, written_count, plain);
    /* Whatever reached the file, the decrypted copies of these pages (of
     * versions no reader pins: the pages were free) are stale now. */
    if (written) {
        pthread_mutex_lock(&pager->mutex);
        for (size_t i = 0; i < written_count; i++)
            if ((written[i].page + 1) * PAGER_PAGE_SIZE <= cipher->view_usable)
                atomic_store(&cipher->entries[written[i].page].valid_through, 0);
        pthread_mutex_unlock(&pager->mutex);
    }
    if (plain) crypt_wipe(plain, PAGER_PAGE_SIZE); /* a page's plaintext */
    free(written);
    free(out);
    free(plain);
    return ok;
}

bool pager_write_runs(pager_state *pager, const pager_write_run *runs, size_t count)
{
    if (pager->read_only) return error_fail(CE_ERR_READ_ONLY, "'%s' is open read-only", pager->path);
    if (pager->cipher) return write_encrypted_runs(pager, runs, count);
    for (size_t i = 0; i < count; i++)
        if (!write_bytes(pager, runs[i].bytes, runs[i].length, runs[i].position)) return false;
    return true;
}

bool pager_sync(pager_state *pager) { return os_sync(pager->fd, false, pager->path); }

void pager_set_early_writeback(pager_state *pager, bool early) { pager->early_writeback = early; }

_Atomic bool *pager_truncated_flag(pager_state *pager) { return &pager->truncated; }

bool pager_truncated_error(const pager_state *pager)
{
    return error_fail(CE_ERR_CORRUPT,
                      "invalid database: '%s' was truncated while it was open (a read reached past its end); close "
                      "the handle",
                      pager->path);
}

static uint64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

bool pager_check_file(pager_state *pager, uint64_t logical_size, bool recent_ok)
{
    if (atomic_load(&pager->truncated)) return pager_truncated_error(pager);
    uint64_t size, needed = pager_physical_size(pager, logical_size);
    uint64_t now = monotonic_ns();
    if (recent_ok && atomic_load(&pager->checked_size) >= needed &&
        now - atomic_load(&pager->checked_at_ns) < PAGER_SIZE_CHECK_NS)
        return true;
    if (!pager_file_size(pager, &size)) return false;
    if (size < needed)
        return error_fail(CE_ERR_CORRUPT,
                          "invalid database: '%s' was truncated: it is %llu bytes long, but the version read needs "
                          "%llu bytes (page %llu and the pages after it are missing)",
                          pager->path, (unsigned long long)size, (unsigned long long)needed,
                          (unsigned long long)(size / PAGER_PAGE_SIZE));
    atomic_store(&pager->checked_size, size);
    atomic_store(&pager->checked_at_ns, now);
    return true;
}

bool pager_file_size(pager_state *pager, uint64_t *out_size)
{
    uint64_t size;
    if (!os_file_size(pager->fd, &size, pager->path)) return false;
    pthread_mutex_lock(&pager->mutex);
    pager->known_file_size = size;
    pthread_mutex_unlock(&pager->mutex);
    *out_size = size;
    return true;
}

/* Writes zeros over [from, to) in pieces of at most 64 KiB. */
static bool write_zeros(pager_state *pager, uint64_t from, uint64_t to)
{
    static const uint8_t zeros[64 * 1024];
    for (uint64_t offset = from; offset < to; offset += sizeof zeros) {
        uint64_t length = to - offset < sizeof zeros ? to - offset : sizeof zeros;
        if (!os_write_all(pager->fd, zeros, (size_t)length, offset, pager->path)) return false;
    }
    return true;
}

bool pager_ensure_size(pager_state *pager, uint64_t logical_size)
{
    return pager_ensure_size_for_runs(pager, logical_size, NULL, 0, 0);
}

bool pager_ensure_size_for_runs(pager_state *pager, uint64_t logical_size, const pager_write_run *runs,
                                 size_t count, uint64_t grown_from)
{
    uint64_t size = pager_physical_size(pager, logical_size);
    pthread_mutex_lock(&pager->mutex);
    uint64_t known = pager->known_file_size;
    pthread_mutex_unlock(&pager->mutex);
    if (known >= size) return true;
    uint64_t current;
    if (!pager_file_size(pager, &current)) return false;
    if (current >= size) return true;
    uint64_t growth = (grown_from && grown_from < current ? grown_from : current) / 8;
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
     * here, one sync pays for the whole step. A plain file's bytes that the
     * commit's runs cover get their data instead (positions are file
     * offsets only in a plain file; they are sorted and apart). */
    uint64_t from = current;
    for (size_t i = 0; !pager->cipher && i < count && from < target; i++) {
        uint64_t start = runs[i].position, end = runs[i].position + runs[i].length;
        if (end <= from) continue;
        if (start > from && !write_zeros(pager, from, start < target ? start : target)) return false;
        from = end;
    }
    if (from < target && !write_zeros(pager, from, target)) return false;
    pthread_mutex_lock(&pager->mutex);
    if (pager->known_file_size < target) pager->known_file_size = target;
    pthread_mutex_unlock(&pager->mutex);
    return true;
}

/* --- page checksums of a plain file --- */

bool pager_enable_page_sums(pager_state *pager)
{
    if (pager->cipher || pager->sum_verified) return true;
    /* Address space only (MAP_NORESERVE): the entries of pages never read
     * cost nothing. Less where address space is limited. */
    for (uint64_t size = VIEW_RESERVATION; size >= VIEW_MINIMUM_RESERVATION; size /= 2) {
        uint64_t pages = size / PAGER_PAGE_SIZE;
        uint64_t bytes = pages * (sizeof(uint64_t) + sizeof(uint32_t));
        void *memory = os_active->mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) continue;
        pager->sum_verified = memory;
        pager->sum_checked = (uint32_t *)((uint8_t *)memory + pages * sizeof(uint64_t));
        pager->sum_pages = pages;
        pager->sum_reserved = bytes;
        return true;
    }
    return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED, "cannot reserve address space for the page checks of '%s'",
                      pager->path);
}

bool pager_verifies_page_sums(const pager_state *pager) { return pager->sum_verified != NULL; }

const _Atomic uint64_t *pager_page_sums_verified(const pager_state *pager, uint64_t *out_pages)
{
    *out_pages = pager->sum_pages;
    return pager->sum_verified;
}

uint32_t pager_page_sum(const uint8_t *page)
{
    uint64_t sum = checksum_of(page, PAGER_PAGE_SIZE, PAGER_PAGE_SUM_SEED);
    uint32_t folded = (uint32_t)(sum ^ (sum >> 32));
    return folded ? folded : 1u; /* 0 marks a page without a checksum */
}

bool pager_verify_page(pager_state *pager, const uint8_t *base, uint64_t page, uint64_t version, uint32_t expected)
{
    if (page >= pager->sum_pages)
        return error_fail(CE_ERR_ADDRESS_SPACE_EXHAUSTED,
                          "'%s' grew beyond the %llu pages whose checks this handle reserved at open; close and "
                          "reopen the file",
                          pager->path, (unsigned long long)pager->sum_pages);
    _Atomic uint64_t *verified = &pager->sum_verified[page];
    uint32_t *checked = &pager->sum_checked[page];
    pthread_mutex_lock(&pager->mutex);
    uint64_t valid = atomic_load(verified);
    bool ok = true;
    if (valid != 0 && valid >= version) {
        /* Another transaction of the handle verified it meanwhile. */
    } else if (expected == 0 || (valid != 0 && *checked == expected)) {
        /* A page of checksums (verified entry by entry: a wrong entry only
         * fails the page it describes), or a page verified before and not
         * rewritten since: good for this version too. */
        *checked = expected;
        atomic_store(verified, version);
    } else {
        uint32_t actual = pager_page_sum(base + page * PAGER_PAGE_SIZE);
        if (atomic_load(&pager->truncated)) {
            ok = pager_truncated_error(pager);
        } else if (actual != expected) {
            ok = error_fail(CE_ERR_CORRUPT,
                            "invalid database: page %llu of '%s' (file offset %llu) fails its checksum: the file is "
                            "damaged",
                            (unsigned long long)page, pager->path, (unsigned long long)(page * PAGER_PAGE_SIZE));
        } else {
            *checked = expected;
            atomic_store(verified, version);
        }
    }
    pthread_mutex_unlock(&pager->mutex);
    return ok;
}
