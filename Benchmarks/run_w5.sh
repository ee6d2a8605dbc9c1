#!/bin/sh
# W5 (one durable commit per new Person) against SQLite WAL and LMDB.
# Usage: Benchmarks/run_w5.sh [bench_w5 options...]
#   e.g. Benchmarks/run_w5.sh --reps 7 --dir /path/on/the/disk/to/measure
# Defaults: --count 10000 --reps 5, files in a temp dir on /work's file system.
exec "$(dirname "$0")/run.sh" bench_w5 "$@"
