#!/bin/sh
# W5 (one durable commit per new Person) against SQLite WAL and LMDB.
#
# Builds the benchmarks in Release (build-bench/, -j2 at most: the machine is
# shared) and runs bench_w5 under `chrt -f 1` (SCHED_FIFO, needs root), as
# BENCHMARKS.md asks for fsync-bound figures. Results go to stdout.
#
# Usage: Benchmarks/run_w5.sh [bench_w5 options...]
#   e.g. Benchmarks/run_w5.sh --reps 7 --dir /path/on/the/disk/to/measure
# Defaults: --count 10000 --reps 5, files in a temp dir on /work's file system.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCENGINE_BUILD_TESTS=OFF -DCENGINE_BUILD_FUZZERS=OFF >/dev/null
cmake --build build-bench -j2 --target bench_w5 >/dev/null

bench=build-bench/Benchmarks/bench_w5
if [ ! -x "$bench" ]; then
    echo "run_w5.sh: $bench was not built (are libsqlite3-dev and liblmdb-dev installed? see the cmake output)" >&2
    exit 1
fi

revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- CEngine/src 2>/dev/null)" ]; then
    revision="$revision + uncommitted changes in CEngine/src"
fi
echo "engine source: $revision"
echo "command: chrt -f 1 $bench $*"
if chrt -f 1 true 2>/dev/null; then
    exec chrt -f 1 "$bench" "$@"
else
    echo "note: chrt -f 1 failed (not root, or no real-time scheduling here): running without it;"
    echo "      fsync-bound figures are noisier when both cores are busy"
    exec "$bench" "$@"
fi
