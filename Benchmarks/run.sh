#!/bin/sh
# Builds one benchmark program in Release (build-bench/, -j2 at most: the
# machine is shared) and runs it under `chrt -f 1` (SCHED_FIFO, needs root),
# as docs/BENCHMARKS.md asks for figures that include durable commits. Results go
# to stdout, after the engine's source revision and the exact command.
#
# Usage: Benchmarks/run.sh PROGRAM [options of the program...]
#   PROGRAM: bench_w5, bench_objects, bench_crypt, bench_queries or bench_notify (see
#   run_w5.sh, run_objects.sh, run_crypt.sh, run_queries.sh, run_notify.sh)
set -eu

program=${1:?usage: Benchmarks/run.sh PROGRAM [options...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCENGINE_BUILD_TESTS=OFF -DCENGINE_BUILD_FUZZERS=OFF >/dev/null
cmake --build build-bench -j2 --target "$program" >/dev/null

bench=build-bench/Benchmarks/$program
if [ ! -x "$bench" ]; then
    echo "run.sh: $bench was not built (are libsqlite3-dev, liblmdb-dev and libsqlcipher-dev installed? see the cmake output)" >&2
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
    echo "      figures with durable commits are noisier when both cores are busy"
    exec "$bench" "$@"
fi
