/*
 * pager.h — the file as memory.
 *
 * Owns: the database file descriptor, the read-only shared mappings of the
 * file, file growth, and the writes and syncs of a commit.
 * Never: interprets the bytes it maps (the layers above check every byte
 * before trusting it), and never writes through a mapping.
 *
 * A mapping, once handed out, stays valid until pager_close: when the file
 * outgrows it, a larger mapping is made and the old one is kept, so a reader
 * holding a pointer into an older snapshot is never invalidated.
 */
#ifndef CE_PAGER_H
#define CE_PAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ce_pager ce_pager;

/* Opens the data file. `create`: create it if missing (it starts empty). */
bool pager_open(const char *path, bool read_only, bool create, ce_pager **out_pager);

/* Creates a new, empty file for writing; fails with CE_ERR_FILE_EXISTS if
 * `path` exists. */
bool pager_create_new(const char *path, ce_pager **out_pager);

void pager_close(ce_pager *pager);

const char *pager_path(const ce_pager *pager);

/* The file descriptor, for the layers that lock ranges or read the header. */
int pager_fd(const ce_pager *pager);

bool pager_read_only(const ce_pager *pager);

/* Returns the base address of a mapping that covers at least the first
 * `size` bytes of the file (which must exist: size <= the file's size).
 * Thread-safe. */
bool pager_map(ce_pager *pager, uint64_t size, const uint8_t **out_base);

/* Reads bytes with pread (for the header, before anything is mapped). */
bool pager_read(ce_pager *pager, uint64_t offset, void *buffer, size_t length);

/* Writes bytes at `offset` (pwrite, all of them). */
bool pager_write(ce_pager *pager, uint64_t offset, const void *buffer, size_t length);

/* Makes every write so far durable (fdatasync). */
bool pager_sync(ce_pager *pager);

/* The file's size on disk. */
bool pager_file_size(ce_pager *pager, uint64_t *out_size);

/* Grows the file so that at least `size` bytes exist, preallocating ahead
 * (an eighth of the file, at least 1 MiB) so that most commits write into
 * blocks that already exist and their sync need not change the file size. */
bool pager_ensure_size(ce_pager *pager, uint64_t size);

#endif
