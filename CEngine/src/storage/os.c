/*
 * os.c — the operating-system layer (see os.h).
 *
 * Owns: the default method table (the system's own calls), and the loops
 * of the os_* helpers.
 * Never: makes a file or memory system call except through os_active, or
 * keeps state about a file.
 *
 * The default table calls the system directly. The helpers retry EINTR and
 * short transfers, and report failures through error_fail_errno.
 */
#include "os.h"
#include "error.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int default_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
static int default_fcntl_lock(int fd, int command, struct flock *lock) { return fcntl(fd, command, lock); }
static int default_fcntl_flags(int fd, int command, int flags)
{
    return command == F_SETFL ? fcntl(fd, command, flags) : fcntl(fd, command);
}
static int default_fallocate(int fd, off_t offset, off_t length)
{
    int result = posix_fallocate(fd, offset, length);
    if (result != 0) {
        errno = result;
        return -1;
    }
    return 0;
}

static int default_rename_noreplace(const char *from, const char *to)
{
#if defined(SYS_renameat2)
    /* RENAME_NOREPLACE = 1; called through syscall() so that C libraries
     * without the renameat2 wrapper build too. */
    if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
    /* No RENAME_NOREPLACE here: link(2) also refuses an existing name. */
    if (link(from, to) != 0) return -1;
    unlink(from);
    return 0;
}

static int default_futex(_Atomic uint32_t *word, int operation, uint32_t value, const struct timespec *timeout)
{
    /* No C library wraps futex(2). */
    return (int)syscall(SYS_futex, word, operation, value, timeout, NULL, 0);
}

const os_methods os_default = {
    .open = default_open,
    .close = close,
    .pread = pread,
    .pwrite = pwrite,
    .fdatasync = fdatasync,
    .fsync = fsync,
    .ftruncate = ftruncate,
    .fallocate = default_fallocate,
    .fstat = fstat,
    .mmap = mmap,
    .munmap = munmap,
    .mprotect = mprotect,
    .madvise = madvise,
    .fcntl_lock = default_fcntl_lock,
    .fcntl_flags = default_fcntl_flags,
    .unlink = unlink,
    .rename = rename,
    .rename_noreplace = default_rename_noreplace,
    .sync_file_range = sync_file_range,
    .kill = kill,
    .opendir = opendir,
    .readdir = readdir,
    .closedir = closedir,
    .futex = default_futex,
};

const os_methods *os_active = &os_default;

bool os_read_exact(int fd, void *buffer, size_t length, uint64_t offset, const char *path)
{
    uint8_t *bytes = buffer;
    while (length > 0) {
        ssize_t done = os_active->pread(fd, bytes, length, (off_t)offset);
        if (done < 0) {
            if (errno == EINTR) continue;
            return error_fail_errno(errno, "read", path);
        }
        if (done == 0)
            return error_fail(CE_ERR_INVALID_DATABASE,
                           "invalid database: unexpected end of file at offset %llu in '%s'",
                           (unsigned long long)offset, path);
        bytes += done;
        length -= (size_t)done;
        offset += (uint64_t)done;
    }
    return true;
}

bool os_write_all(int fd, const void *buffer, size_t length, uint64_t offset, const char *path)
{
    const uint8_t *bytes = buffer;
    while (length > 0) {
        ssize_t done = os_active->pwrite(fd, bytes, length, (off_t)offset);
        if (done < 0) {
            if (errno == EINTR) continue;
            return error_fail_errno(errno, "write", path);
        }
        if (done == 0) return error_fail_errno(ENOSPC, "write", path);
        bytes += done;
        length -= (size_t)done;
        offset += (uint64_t)done;
    }
    return true;
}

bool os_sync(int fd, bool include_metadata, const char *path)
{
    for (;;) {
        int result = include_metadata ? os_active->fsync(fd) : os_active->fdatasync(fd);
        if (result == 0) return true;
        if (errno != EINTR) return error_fail_errno(errno, "fsync", path);
    }
}

void os_start_writeback(int fd, uint64_t offset, uint64_t length)
{
    int saved = errno;
    (void)os_active->sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
    errno = saved;
}

/* What the helper thread of os_close_in_background needs: the close of the
 * table in force when it was asked (tests swap the table; the thread must
 * not read it while they do). */
typedef struct background_close {
    int fd;
    int (*close)(int fd);
} background_close;

static void *close_on_helper_thread(void *argument)
{
    background_close *request = argument;
    (void)request->close(request->fd);
    free(request);
    return NULL;
}

void os_close_in_background(int fd)
{
    int saved = errno;
    background_close *request = malloc(sizeof *request);
    pthread_attr_t attributes;
    bool started = false;
    if (request && pthread_attr_init(&attributes) == 0) {
        *request = (background_close){fd, os_active->close};
        pthread_t thread;
        started = pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED) == 0 &&
                  pthread_create(&thread, &attributes, close_on_helper_thread, request) == 0;
        pthread_attr_destroy(&attributes);
    }
    if (!started) {
        free(request);
        (void)os_active->close(fd);
    }
    errno = saved;
}

bool os_sync_directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *directory = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!directory) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory syncing the directory of '%s'", path);
    int fd = os_active->open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) {
        bool result = error_fail_errno(errno, "open directory", directory);
        free(directory);
        return result;
    }
    bool ok = os_sync(fd, true, directory);
    os_active->close(fd);
    free(directory);
    return ok;
}

int os_open_regular(const char *path, int flags, mode_t mode)
{
    int fd = os_active->open(path, flags | O_NONBLOCK, mode);
    if (fd < 0) {
        if (errno == ENOENT) error_fail(CE_ERR_FILE_NOT_FOUND, "file not found: '%s'", path);
        else if (errno == EEXIST) error_fail(CE_ERR_FILE_EXISTS, "'%s' exists already", path);
        else error_fail_errno(errno, "open", path);
        return -1;
    }
    struct stat status;
    if (os_active->fstat(fd, &status) != 0) {
        error_fail_errno(errno, "stat", path);
        os_active->close(fd);
        return -1;
    }
    if (!S_ISREG(status.st_mode)) {
        error_fail(CE_ERR_INVALID_DATABASE, "'%s' is not a database: not a regular file", path);
        os_active->close(fd);
        return -1;
    }
    if (!(flags & O_NONBLOCK)) {
        int status_flags = os_active->fcntl_flags(fd, F_GETFL, 0);
        if (status_flags < 0 || os_active->fcntl_flags(fd, F_SETFL, status_flags & ~O_NONBLOCK) != 0) {
            error_fail_errno(errno, "fcntl", path);
            os_active->close(fd);
            return -1;
        }
    }
    return fd;
}

bool os_file_size(int fd, uint64_t *out_size, const char *path)
{
    struct stat status;
    if (os_active->fstat(fd, &status) != 0) return error_fail_errno(errno, "stat", path);
    *out_size = (uint64_t)status.st_size;
    return true;
}

bool os_grow_file(int fd, uint64_t size, const char *path)
{
    uint64_t current;
    if (!os_file_size(fd, &current, path)) return false;
    if (current >= size) return true;
    if (os_active->fallocate(fd, (off_t)current, (off_t)(size - current)) == 0) return true;
    /* File systems without fallocate (EOPNOTSUPP) still grow with ftruncate;
     * ENOSPC and real I/O errors are reported. */
    if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS)
        return error_fail_errno(errno, "allocate space", path);
    if (os_active->ftruncate(fd, (off_t)size) != 0) return error_fail_errno(errno, "grow file", path);
    return true;
}

/* Whether `text` is "<pid>-<n>", both decimal, pid > 0; *out_pid is the pid. */
static bool parse_orphan_suffix(const char *text, long *out_pid)
{
    const char *cursor = text;
    long pid = 0;
    if (*cursor < '0' || *cursor > '9') return false;
    while (*cursor >= '0' && *cursor <= '9') {
        if (pid > 99999999) return false; /* no pid is that long */
        pid = pid * 10 + (*cursor++ - '0');
    }
    if (*cursor++ != '-' || *cursor < '0' || *cursor > '9') return false;
    while (*cursor >= '0' && *cursor <= '9') cursor++;
    if (*cursor != '\0' || pid <= 0) return false;
    *out_pid = pid;
    return true;
}

void os_remove_orphans(const char *prefix)
{
    int saved = errno;
    const char *slash = strrchr(prefix, '/');
    const char *name_prefix = slash ? slash + 1 : prefix;
    size_t name_prefix_length = strlen(name_prefix);
    char *directory = slash ? strndup(prefix, slash == prefix ? 1 : (size_t)(slash - prefix)) : strdup(".");
    DIR *listing = directory ? os_active->opendir(directory) : NULL;
    if (listing) {
        size_t capacity = strlen(prefix) + 64;
        char *victim = malloc(capacity);
        struct dirent *entry;
        while (victim && (entry = os_active->readdir(listing)) != NULL) {
            long pid;
            if (name_prefix_length == 0 || strncmp(entry->d_name, name_prefix, name_prefix_length) != 0 ||
                !parse_orphan_suffix(entry->d_name + name_prefix_length, &pid))
                continue;
            if (pid == (long)getpid()) continue;
            if (os_active->kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
            /* Rebuilt from `prefix`, so the file removed is in its directory. */
            int written = snprintf(victim, capacity, "%s%s", prefix, entry->d_name + name_prefix_length);
            if (written > 0 && (size_t)written < capacity) (void)os_active->unlink(victim);
        }
        free(victim);
        os_active->closedir(listing);
    }
    free(directory);
    errno = saved;
}

static void fill_lock(struct flock *lock, short type, uint64_t start, uint64_t length)
{
    lock->l_type = type;
    lock->l_whence = SEEK_SET;
    lock->l_start = (off_t)start;
    lock->l_len = (off_t)length;
    lock->l_pid = 0; /* required to be 0 for open-file-description locks */
}

bool os_lock_range(int fd, uint64_t start, uint64_t length, bool exclusive, bool wait,
                   bool *out_busy, const char *path)
{
    struct flock lock;
    if (out_busy) *out_busy = false;
    for (;;) {
        fill_lock(&lock, exclusive ? F_WRLCK : F_RDLCK, start, length);
        if (os_active->fcntl_lock(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock) == 0) return true;
        if (errno == EINTR) continue;
        if (!wait && (errno == EAGAIN || errno == EACCES)) {
            if (out_busy) *out_busy = true;
            return false;
        }
        return error_fail_errno(errno, "lock", path);
    }
}

bool os_unlock_range(int fd, uint64_t start, uint64_t length, const char *path)
{
    struct flock lock;
    fill_lock(&lock, F_UNLCK, start, length);
    if (os_active->fcntl_lock(fd, F_OFD_SETLK, &lock) != 0) return error_fail_errno(errno, "unlock", path);
    return true;
}

bool os_range_is_locked(int fd, uint64_t start, uint64_t length, bool *out_locked, const char *path)
{
    struct flock lock;
    fill_lock(&lock, F_WRLCK, start, length);
    if (os_active->fcntl_lock(fd, F_OFD_GETLK, &lock) != 0) return error_fail_errno(errno, "query lock", path);
    *out_locked = lock.l_type != F_UNLCK;
    return true;
}

bool os_wait_on_word(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns, const char *path)
{
    struct timespec timeout;
    if (timeout_ns >= 0) {
        timeout.tv_sec = (time_t)(timeout_ns / 1000000000);
        timeout.tv_nsec = (long)(timeout_ns % 1000000000);
    }
    int saved = errno;
    if (os_active->futex(word, FUTEX_WAIT, expected, timeout_ns >= 0 ? &timeout : NULL) == 0) return true;
    /* EAGAIN: the word had changed already; ETIMEDOUT; EINTR: a signal.
     * The caller looks again in each case. */
    if (errno == EAGAIN || errno == ETIMEDOUT || errno == EINTR) {
        errno = saved;
        return true;
    }
    return error_fail_errno(errno, "futex wait on the lock file", path);
}

void os_wake_word(_Atomic uint32_t *word)
{
    int saved = errno;
    (void)os_active->futex(word, FUTEX_WAKE, INT_MAX, NULL);
    errno = saved;
}
