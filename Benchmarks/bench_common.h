/*
 * bench_common.h — what the benchmark programs share: the Person workload of
 * docs/BENCHMARKS.md, timing and medians, and the choice and
 * description of the run directory (on /work's file system, never in
 * memory). Compiled into each benchmark with bench_common.c.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lmdb.h>
#include <sqlite3.h>

#include "cengine.h"

/* ------------------------------------------------------------------------ */
/* The workload                                                              */
/* ------------------------------------------------------------------------ */

uint64_t splitmix64(uint64_t x);

/* Person i (0-based): id = i + 1, name = "name-<i>", age = i % 100,
 * score = splitmix64(i ^ 0x5EED) mapped to [0, 1) (top 53 bits * 2^-53). */
typedef struct person {
    int64_t id;
    int64_t age;
    double score;
    size_t name_length;
    char name[32]; /* NUL-terminated */
} person;

void person_make(uint64_t i, person *p);

/* ------------------------------------------------------------------------ */
/* Timing and statistics                                                     */
/* ------------------------------------------------------------------------ */

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);

static inline double seconds_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e9; }

/* The W2 stream: the id of lookup k among `count` objects; `salt` 0 for W2
 * itself, another value for a stream of its own (bench_queries' W3i). */
static inline int64_t lookup_id(uint64_t k, size_t count, uint64_t salt)
{
    return (int64_t)(splitmix64(k ^ salt) % count) + 1;
}

/* A cheap order-sensitive hash of a name (8-byte chunks): the same small
 * cost for every system, so the names are really read. */
static inline uint64_t name_hash(const char *data, size_t length)
{
    uint64_t h = (uint64_t)length * 0x9E3779B97F4A7C15ull;
    while (length > 0) {
        uint64_t chunk = 0;
        size_t n = length < 8 ? length : 8;
        memcpy(&chunk, data, n);
        h = (h ^ chunk) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
        data += n;
        length -= n;
    }
    return h;
}

/* Keeps the compiler from assuming it knows the memory behind `pointer`
 * (so a repeated pass over the same data is really repeated). */
static inline void escape(const void *pointer) { __asm__ __volatile__("" : : "r"(pointer) : "memory"); }

int compare_double(const void *a, const void *b);

/* The median of `values` (sorted in place, so values[0] and
 * values[count - 1] are the spread afterwards). */
double median_of(double *values, size_t count);

/* The median of `values` and their spread (sorted in place, count > 0). */
typedef struct spread {
    double median, min, max;
} spread;

spread spread_of(double *values, size_t count);

/* ------------------------------------------------------------------------ */
/* Files, the machine and the run directory                                  */
/* ------------------------------------------------------------------------ */

uint64_t file_size_or_zero(const char *path);

/* "dir/name", malloc'ed (exits on out of memory). */
char *join_path(const char *dir, const char *name);

/* The CPU's model name from /proc/cpuinfo ("unknown" if none). */
void cpu_model(char *out, size_t size);

/* "type on device (mounted at point)" for the mount that holds `path`. */
void file_system_of(const char *path, char *out, size_t size);

/* Whether `path` is on tmpfs or ramfs (fsync is free there). */
bool is_memory_file_system(const char *path);

/* A directory for the default run directory: $TMPDIR, /var/tmp or /tmp,
 * the first that is writable, not in memory, and on the same file system
 * as /work when /work exists (else /work itself, or "."). */
const char *default_base_dir(void);

/* Removes a directory tree (warnings on stderr, never fatal). */
void remove_tree(const char *path);

/* The directory of a run: a new "openrealm-<program>-XXXXXX" under
 * `base_dir` (default_base_dir() when NULL), malloc'ed; exits if it cannot
 * be created. */
char *make_run_dir(const char *base_dir, const char *program);

/* The lines that describe where and how a run goes: date, machine, kernel,
 * directory, file system (with a warning when it is in memory) and
 * scheduling; `noisier` ends the scheduling line's note when the program is
 * not under chrt -f ("figures are noisier"). */
void print_run_header(const char *run_dir, const char *noisier);

/* A fresh directory for repetition `rep` (1-based) of `system`:
 * "<run_dir>/rep<rep>-<system>", malloc'ed; exits if it cannot be created. */
char *make_rep_dir(const char *run_dir, size_t rep, const char *system);

/* After a repetition: removes its directory (unless `keep`) and frees the path. */
void end_rep_dir(char *dir, bool keep);

/* After the run: removes its directory, or says where the files were kept. */
void end_run_dir(const char *run_dir, bool keep);

/* The page cache and the process's memory (the scale runs).
 * drop_file_cache: syncs `path` and asks the kernel to drop its cached pages
 * (posix_fadvise POSIX_FADV_DONTNEED; pages still mapped by a process stay,
 * so every handle on the file must be closed first); exits on failure.
 * resident_fraction: the fraction of `path`'s pages in the page cache
 * (mincore over a read-only mapping), to show the drop worked; -1 if it
 * cannot be read. peak_rss_mib: getrusage's ru_maxrss of this process. */
void drop_file_cache(const char *path);
double resident_fraction(const char *path);
double peak_rss_mib(void);

/* W9 of docs/BENCHMARKS.md for the engine: opens the existing file at
 * `path` with `options` (a new handle), begins a read transaction, finds
 * Person and its `name` column and reads one object by primary key (among
 * `count`, checked), ends the transaction; the close is not timed. Returns
 * the median in ms of `opens` runs. */
double ours_open_and_read_ms(const char *path, const ce_db_options *options, size_t count, size_t opens);

/* Checks shared by the benchmark programs: each prints what failed and
 * exits, since a benchmark that goes on after a failure measures nothing. */
void ours_check(bool ok, const char *what);
void sqlite_check(sqlite3 *db, int rc, int expected, const char *what);
void sqlite_exec(sqlite3 *db, const char *sql);
void sqlite_step_reset(sqlite3 *db, sqlite3_stmt *statement, const char *what);
void lmdb_check(int rc, const char *what);

/* LMDB's record of a Person: a packed struct, then the name's bytes. */
typedef struct __attribute__((packed)) lmdb_person {
    int64_t id;
    int32_t age;
    double score;
    uint32_t name_length;
    char name[]; /* name_length bytes */
} lmdb_person;

/* Packs a Person into `buffer` (at least sizeof(lmdb_person) + the name). */
size_t lmdb_pack(const person *p, uint8_t *buffer);

/* LMDB's key: the id big-endian, so keys sort by id. */
static inline void lmdb_key(int64_t id, uint8_t key[8])
{
    uint64_t big = __builtin_bswap64((uint64_t)id);
    memcpy(key, &big, 8);
}

#endif
