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

#endif
