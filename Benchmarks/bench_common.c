/*
 * bench_common.c — see bench_common.h.
 */
#include "bench_common.h"
#include "cengine.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The workload                                                              */
/* ------------------------------------------------------------------------ */

uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The decimal digits of `value` (what "%" PRIu64 prints), without snprintf:
 * building the Person is common to every system, so it should cost little
 * next to what is measured (snprintf alone is about 0.1 s per million). */
static size_t format_decimal(uint64_t value, char *out)
{
    char reversed[20];
    size_t length = 0;
    do {
        reversed[length++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t k = 0; k < length; k++) out[k] = reversed[length - 1 - k];
    return length;
}

void person_make(uint64_t i, person *p)
{
    p->id = (int64_t)i + 1;
    p->age = (int64_t)(i % 100);
    p->score = (double)(splitmix64(i ^ 0x5EEDull) >> 11) * 0x1.0p-53;
    memcpy(p->name, "name-", 5);
    p->name_length = 5 + format_decimal(i, p->name + 5);
    p->name[p->name_length] = 0;
}

/* ------------------------------------------------------------------------ */
/* Timing and statistics                                                     */
/* ------------------------------------------------------------------------ */

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_double);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

spread spread_of(double *values, size_t count)
{
    spread s;
    s.median = median_of(values, count);
    s.min = values[0];
    s.max = values[count - 1];
    return s;
}

/* ------------------------------------------------------------------------ */
/* Files, the machine and the run directory                                  */
/* ------------------------------------------------------------------------ */

uint64_t file_size_or_zero(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

char *join_path(const char *dir, const char *name)
{
    size_t length = strlen(dir) + strlen(name) + 2;
    char *path = malloc(length);
    if (!path) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    snprintf(path, length, "%s/%s", dir, name);
    return path;
}

void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (!file) return;
    char line[512];
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t') colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(out, size, "%s", colon);
            }
            break;
        }
    }
    fclose(file);
}

/* The mount (device, mount point, type) that holds `path`: the longest
 * mount point of /proc/self/mounts that prefixes its real path. */
void file_system_of(const char *path, char *out, size_t size)
{
    snprintf(out, size, "unknown");
    char real[PATH_MAX];
    if (!realpath(path, real)) return;
    FILE *file = fopen("/proc/self/mounts", "r");
    if (!file) return;
    char device[512], mount_point[1024], type[128];
    size_t best = 0;
    char line[2048];
    while (fgets(line, sizeof line, file)) {
        if (sscanf(line, "%511s %1023s %127s", device, mount_point, type) != 3) continue;
        size_t length = strlen(mount_point);
        bool prefix = strcmp(mount_point, "/") == 0 ||
                      (strncmp(real, mount_point, length) == 0 && (real[length] == '/' || real[length] == 0));
        if (prefix && (length >= best)) {
            best = length;
            snprintf(out, size, "%s on %s (mounted at %s)", type, device, mount_point);
        }
    }
    fclose(file);
}

#define TMPFS_MAGIC_NUMBER 0x01021994
#define RAMFS_MAGIC_NUMBER 0x858458f6

bool is_memory_file_system(const char *path)
{
    struct statfs fs;
    if (statfs(path, &fs) != 0) return false;
    return fs.f_type == TMPFS_MAGIC_NUMBER || (unsigned long)fs.f_type == RAMFS_MAGIC_NUMBER;
}

const char *default_base_dir(void)
{
    struct stat work;
    bool have_work = stat("/work", &work) == 0;
    const char *candidates[] = {getenv("TMPDIR"), "/var/tmp", "/tmp"};
    for (size_t k = 0; k < sizeof candidates / sizeof *candidates; k++) {
        const char *dir = candidates[k];
        struct stat st;
        if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) continue;
        if (is_memory_file_system(dir)) continue;
        if (have_work && st.st_dev != work.st_dev) continue;
        return dir;
    }
    return have_work ? "/work" : ".";
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    if (remove(path) != 0) fprintf(stderr, "warning: could not remove %s: %s\n", path, strerror(errno));
    return 0;
}

void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

char *make_run_dir(const char *base_dir, const char *program)
{
    if (!base_dir) base_dir = default_base_dir();
    char name[64];
    snprintf(name, sizeof name, "openrealm-%s-XXXXXX", program);
    char *run_dir = join_path(base_dir, name);
    if (!mkdtemp(run_dir)) {
        fprintf(stderr, "cannot create a directory under %s: %s\n", base_dir, strerror(errno));
        exit(1);
    }
    return run_dir;
}

void print_run_header(const char *run_dir, const char *noisier)
{
    char model[256], fs[2048], date[64];
    cpu_model(model, sizeof model);
    file_system_of(run_dir, fs, sizeof fs);
    struct utsname un;
    uname(&un);
    int policy = sched_getscheduler(0);
    struct sched_param param;
    sched_getparam(0, &param);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    printf("date:        %s\n", date);
    printf("machine:     %s, %ld online CPUs\n", model, sysconf(_SC_NPROCESSORS_ONLN));
    printf("kernel:      %s %s\n", un.sysname, un.release);
    printf("directory:   %s\n", run_dir);
    printf("file system: %s%s\n", fs, is_memory_file_system(run_dir) ? "  WARNING: in memory, fsync is free" : "");
    printf("scheduling:  %s (priority %d)",
           policy == SCHED_FIFO ? "SCHED_FIFO" : policy == SCHED_RR ? "SCHED_RR" : "SCHED_OTHER", param.sched_priority);
    if (policy != SCHED_FIFO) printf("  (not under chrt -f: %s)", noisier);
    printf("\n");
}

char *make_rep_dir(const char *run_dir, size_t rep, const char *system)
{
    char name[64];
    snprintf(name, sizeof name, "rep%zu-%s", rep, system);
    char *dir = join_path(run_dir, name);
    if (mkdir(dir, 0755) != 0) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    return dir;
}

void end_rep_dir(char *dir, bool keep)
{
    if (!keep) remove_tree(dir);
    free(dir);
}

void end_run_dir(const char *run_dir, bool keep)
{
    if (keep)
        printf("(files kept in %s)\n", run_dir);
    else
        remove_tree(run_dir);
}

/* ------------------------------------------------------------------------ */
/* The page cache and the process's memory                                   */
/* ------------------------------------------------------------------------ */

void drop_file_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fdatasync(fd) != 0) {
        fprintf(stderr, "cannot sync %s: %s\n", path, strerror(errno));
        exit(1);
    }
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (rc != 0) {
        fprintf(stderr, "posix_fadvise(POSIX_FADV_DONTNEED) on %s: %s\n", path, strerror(rc));
        exit(1);
    }
}

double resident_fraction(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) {
        close(fd);
        return -1;
    }
    size_t length = (size_t)st.st_size, page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (length + page - 1) / page;
    void *map = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return -1;
    unsigned char *vector = malloc(pages);
    double fraction = -1;
    if (vector && mincore(map, length, vector) == 0) {
        size_t resident = 0;
        for (size_t k = 0; k < pages; k++) resident += vector[k] & 1;
        fraction = (double)resident / (double)pages;
    }
    free(vector);
    munmap(map, length);
    return fraction;
}

double peak_rss_mib(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_maxrss / 1024.0; /* KiB on Linux */
}

/* ------------------------------------------------------------------------ */
/* W9: open an existing file and read one object                             */
/* ------------------------------------------------------------------------ */

double ours_open_and_read_ms(const char *path, const ce_db_options *options, size_t count, size_t opens)
{
    double *times = malloc(opens * sizeof *times);
    ours_check(times != NULL, "allocating W9's times");
    for (size_t run = 0; run < opens; run++) {
        person p;
        person_make((uint64_t)(splitmix64(run) % count), &p);
        uint64_t t0 = now_ns();
        ce_db *db;
        ours_check(ce_db_open(path, options, &db), "W9 ce_db_open");
        ce_txn *txn;
        ours_check(ce_txn_begin_read(db, &txn), "W9 begin read");
        ce_table_key table;
        ce_column_key name_column;
        bool found;
        ours_check(ce_table_find(txn, "Person", &table, &found) && found &&
                       ce_property_find(txn, table, "name", &name_column, &found) && found,
                   "W9 schema");
        ce_value id = {.type = CE_TYPE_INT, .integer = p.id}, name;
        ce_object_key object;
        ours_check(ce_object_find_primary_key(txn, table, &id, &object, &found) && found &&
                       ce_object_get(txn, table, object, name_column, &name),
                   "W9 read");
        ours_check(name.string.size == p.name_length && memcmp(name.string.data, p.name, p.name_length) == 0,
                   "W9 read the right name");
        ce_txn_end(txn);
        times[run] = (double)(now_ns() - t0) / 1e6;
        ours_check(ce_db_close(db), "W9 close");
    }
    double median = median_of(times, opens);
    free(times);
    return median;
}

/* ------------------------------------------------------------------------ */
/* Checks and the LMDB record                                                */
/* ------------------------------------------------------------------------ */

void ours_check(bool ok, const char *what)
{
    if (ok) return;
    fprintf(stderr, "OpenRealm: %s failed: [%d %s] %s\n", what, (int)ce_last_error_code(),
            ce_error_name(ce_last_error_code()), ce_last_error_message());
    exit(1);
}

void sqlite_check(sqlite3 *db, int rc, int expected, const char *what)
{
    if (rc == expected) return;
    fprintf(stderr, "SQLite: %s failed: %d %s\n", what, rc, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    exit(1);
}

void sqlite_exec(sqlite3 *db, const char *sql)
{
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "SQLite: %s failed: %s\n", sql, message ? message : "?");
        exit(1);
    }
}

void sqlite_step_reset(sqlite3 *db, sqlite3_stmt *statement, const char *what)
{
    sqlite_check(db, sqlite3_step(statement), SQLITE_DONE, what);
    sqlite_check(db, sqlite3_reset(statement), SQLITE_OK, what);
}

void lmdb_check(int rc, const char *what)
{
    if (rc == MDB_SUCCESS) return;
    fprintf(stderr, "LMDB: %s failed: %s\n", what, mdb_strerror(rc));
    exit(1);
}

size_t lmdb_pack(const person *p, uint8_t *buffer)
{
    lmdb_person header = {.id = p->id, .age = (int32_t)p->age, .score = p->score,
                          .name_length = (uint32_t)p->name_length};
    memcpy(buffer, &header, sizeof header);
    memcpy(buffer + sizeof header, p->name, p->name_length);
    return sizeof header + p->name_length;
}
