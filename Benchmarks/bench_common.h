/*
 * bench_common.h — what the benchmark programs share: the Person workload of
 * /work/shared/BENCHMARKS.md, timing and medians, and the choice and
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

int compare_double(const void *a, const void *b);

/* The median of `values` (sorted in place, so values[0] and
 * values[count - 1] are the spread afterwards). */
double median_of(double *values, size_t count);

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
