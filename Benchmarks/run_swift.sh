#!/bin/sh
# W1-W4 and W6 through OpenRealm's Swift API against GRDB (SQLite through Swift) and against
# OpenRealm's C API called from Swift, in one process run (Benchmarks/SwiftBench).
# Builds the SwiftBench package in release (-j 2: the machine is shared) into
# Benchmarks/SwiftBench/.build-swiftbench (git-ignored) and runs it under `chrt -f 1`, as the
# C runners do (run.sh). GRDB comes from the local package mirror.
#
# Usage: Benchmarks/run_swift.sh [swiftbench options...]
#   e.g. Benchmarks/run_swift.sh --reps 5
#        Benchmarks/run_swift.sh --async          (issue 15: W5g and the server-shaped run)
# Defaults: --count 1000000 --lookups 1000000 --w4-runs 5 --w3-runs 20 --reps 3,
#   systems openrealm,capi,grdb,grdb-records, files in a temp dir on /work's file system.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
package=Benchmarks/SwiftBench
scratch=$package/.build-swiftbench

# A cached build plan can miss source files added to the root package since (seen after a
# merge): let swift build plan again (it recompiles only what changed).
rm -f "$scratch/release.yaml" "$scratch/release/description.json"
swift build -c release -j 2 --package-path "$package" --scratch-path "$scratch" >/dev/null
bench=$scratch/release/swiftbench
if [ ! -x "$bench" ]; then
    echo "run_swift.sh: $bench was not built" >&2
    exit 1
fi

revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- CEngine/src Sources/OpenRealm 2>/dev/null)" ]; then
    revision="$revision + uncommitted changes in CEngine/src or Sources/OpenRealm"
fi
OPENREALM_REVISION=$revision
export OPENREALM_REVISION
echo "engine source: $revision"
echo "swift: $(swift --version 2>/dev/null | head -n 1)"
echo "command: chrt -f 1 $bench $*"
if chrt -f 1 true 2>/dev/null; then
    exec chrt -f 1 "$bench" "$@"
else
    echo "note: chrt -f 1 failed (not root, or no real-time scheduling here): running without it;"
    echo "      figures with durable commits are noisier when both cores are busy"
    exec "$bench" "$@"
fi
