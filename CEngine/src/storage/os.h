/*
 * os.h — the operating-system layer.
 *
 * Owns: every system call the engine makes on files and memory (open, read,
 * write, sync, size, map, protect, advise, lock, rename, unlink, listing a
 * directory), on processes (whether a pid is alive) and on words of shared
 * memory (waiting on one and waking its waiters: futex). Each goes
 * through the function table `os_active`, so that tests can replace entries to
 * inject EIO, ENOSPC, short writes or a crash at any call.
 * Never: interprets file contents, or keeps state about databases.
 *
 * Callers use the os_* helpers below, which loop over short reads and
 * writes and turn errno into the thread's last error.
 */
#ifndef CE_OS_H
#define CE_OS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <dirent.h>
#include <time.h>

/* The system calls, one entry each. Semantics and return values are those
 * of the POSIX/Linux call of the same name (-1 and errno on failure). */
typedef struct os_methods {
    int (*open)(const char *path, int flags, mode_t mode);
    int (*close)(int fd);
    ssize_t (*pread)(int fd, void *buffer, size_t length, off_t offset);
    ssize_t (*pwrite)(int fd, const void *buffer, size_t length, off_t offset);
    int (*fdatasync)(int fd);
    int (*fsync)(int fd);
    int (*ftruncate)(int fd, off_t length);
    int (*fallocate)(int fd, off_t offset, off_t length);
    int (*fstat)(int fd, struct stat *status);
    void *(*mmap)(void *address, size_t length, int protection, int flags, int fd, off_t offset);
    int (*munmap)(void *address, size_t length);
    int (*mprotect)(void *address, size_t length, int protection);
    int (*madvise)(void *address, size_t length, int advice);
    int (*fcntl_lock)(int fd, int command, struct flock *lock);
    /* fcntl(2) with F_GETFL or F_SETFL (the file status flags). */
    int (*fcntl_flags)(int fd, int command, int flags);
    int (*unlink)(const char *path);
    int (*rename)(const char *from, const char *to);
    /* rename(2) that fails with EEXIST instead of replacing `to`
     * (renameat2 RENAME_NOREPLACE, or link + unlink where the file system
     * does not support the flag). */
    int (*rename_noreplace)(const char *from, const char *to);
    /* Linux's sync_file_range(2); the engine uses it only to start the
     * writeback of a range early (os_start_writeback). */
    int (*sync_file_range)(int fd, off_t offset, off_t length, unsigned int flags);
    /* kill(2); the engine sends only signal 0, to ask whether a process is
     * alive (os_process_is_gone). */
    int (*kill)(pid_t pid, int signal);
    /* Listing a directory (os_remove_stale_copies). */
    DIR *(*opendir)(const char *path);
    struct dirent *(*readdir)(DIR *directory);
    int (*closedir)(DIR *directory);
    /* Linux's futex(2), FUTEX_WAIT (relative `timeout`, NULL: none) and
     * FUTEX_WAKE only, without FUTEX_PRIVATE_FLAG: the word is in memory
     * that several processes map (os_wait_on_word, os_wake_word). */
    int (*futex)(_Atomic uint32_t *word, int operation, uint32_t value, const struct timespec *timeout);
} os_methods;

/* The table in force. Tests may point it at their own table (and restore
 * os_default afterwards); production code never changes it. */
extern const os_methods *os_active;
extern const os_methods os_default;

/* Opens `path` with open(2)'s `flags` and `mode`, and refuses anything but
 * a regular file with CE_ERR_INVALID_DATABASE. The open itself is made with
 * O_NONBLOCK (cleared again before returning), so that a FIFO at `path`
 * fails instead of blocking in open(2) until a writer comes. Returns the
 * descriptor, or -1 with the thread's last error set (CE_ERR_FILE_NOT_FOUND
 * for ENOENT, CE_ERR_FILE_EXISTS for EEXIST, else from errno). */
int os_open_regular(const char *path, int flags, mode_t mode);

/* Reads exactly `length` bytes at `offset`; a file shorter than that is
 * CE_ERR_INVALID_DATABASE ("unexpected end of file"). */
bool os_read_exact(int fd, void *buffer, size_t length, uint64_t offset, const char *path);

/* Writes all `length` bytes at `offset`, retrying short writes. */
bool os_write_all(int fd, const void *buffer, size_t length, uint64_t offset, const char *path);

/* fdatasync (or fsync when `include_metadata`) with the error reported. */
bool os_sync(int fd, bool include_metadata, const char *path);

/* Starts writing the range to the device without waiting (so that a
 * large write overlaps with its own writeback, and a later os_sync waits
 * for less). Advisory: it makes nothing durable, and a failure (or a file
 * system without it) changes nothing, so none is reported. */
void os_start_writeback(int fd, uint64_t offset, uint64_t length);

/* Closes `fd` on a detached helper thread, or here when no thread can be
 * started. For a descriptor whose file has lost its name (a file replaced by
 * rename): its last close makes the kernel free the file's cached pages and
 * blocks, 10-20 ms for 30 MB on ext4, which nothing needs to wait for. The
 * close's result is not reported (a descriptor of a file no longer named
 * has nothing left to flush that a sync did not). */
void os_close_in_background(int fd);

/* Makes a rename or a new file in the directory that holds `path` durable
 * (fsync of the directory). */
bool os_sync_directory_of(const char *path);

/* The file's size in bytes. */
bool os_file_size(int fd, uint64_t *out_size, const char *path);

/* Grows the file to at least `size` bytes, allocating the blocks where the
 * file system can (so later writes and syncs do not change the size). */
bool os_grow_file(int fd, uint64_t size, const char *path);

/* Removes the files left by processes that died: every entry of the
 * directory of `prefix` whose path is exactly `prefix` followed by
 * "<pid>-<n>" (decimal digits only), where no process `pid` exists
 * (kill(pid, 0) fails with ESRCH). Files of a live process, of a pid this
 * process cannot signal (EPERM: alive), and every other name are kept.
 * Best effort: failures are ignored and change no error state. */
void os_remove_orphans(const char *prefix);

/* Sleeps while *word holds `expected`, at most `timeout_ns` nanoseconds
 * (negative: no limit), in any process that maps the word's memory shared.
 * Returns true when woken (os_wake_word), when the word did not hold
 * `expected`, at the timeout, on a signal, or spuriously: the caller checks
 * again what it waits for. False (the error set, naming `path`) only when
 * the system refuses the wait itself. */
bool os_wait_on_word(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns, const char *path);

/* Wakes every thread of every process sleeping in os_wait_on_word on the
 * word. Advisory: a failure is not reported (waiters still wake at their
 * timeout). */
void os_wake_word(_Atomic uint32_t *word);

/* Advisory byte-range locks that belong to the open file description (not
 * the process), so two handles in one process exclude each other too.
 * `exclusive` = write lock. Returns true when taken; when `wait` is false and
 * another description holds a conflicting lock, returns false with
 * *out_busy = true and no error set. */
bool os_lock_range(int fd, uint64_t start, uint64_t length, bool exclusive, bool wait,
                   bool *out_busy, const char *path);
bool os_unlock_range(int fd, uint64_t start, uint64_t length, const char *path);

/* Whether any other open file description holds a lock overlapping the range. */
bool os_range_is_locked(int fd, uint64_t start, uint64_t length, bool *out_locked, const char *path);

#endif
