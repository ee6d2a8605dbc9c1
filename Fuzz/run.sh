#!/usr/bin/env bash
# Fuzz/run.sh SECONDS [build-dir]
#
# Builds the libFuzzer harnesses with clang and runs each fuzz_<name> for
# SECONDS seconds on a scratch copy of Fuzz/corpus/<name>/ (new inputs go to
# the copy, never into the committed corpus), with Fuzz/<name>.dict as its
# dictionary when there is one. Crash, leak, timeout and out-of-memory
# inputs are copied to Fuzz/crashes-found/ (not committed). Exits non-zero if
# any fuzzer failed. Extra libFuzzer flags can be passed in FUZZ_FLAGS.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || ! $1 =~ ^[0-9]+$ ]]; then
    echo "usage: $0 SECONDS [build-dir]" >&2
    exit 2
fi
seconds=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${2:-$root/build-fuzz}

CC=${CC:-clang} cmake -S "$root" -B "$build" -DCENGINE_BUILD_TESTS=OFF -DCENGINE_BUILD_BENCHMARKS=OFF \
    -DCENGINE_BUILD_FUZZERS=ON >/dev/null
cmake --build "$build" --target fuzzers -j2

scratch=$(mktemp -d "${TMPDIR:-/tmp}/openrealm-fuzz-run-XXXXXX")
pid=
# On exit (also when interrupted): stop the fuzzer this script started, if it
# still runs, and remove the scratch copies.
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT
found="$root/Fuzz/crashes-found"
failed=()

shopt -s nullglob
fuzzers=("$build"/Fuzz/fuzz_*)
if [[ ${#fuzzers[@]} -eq 0 ]]; then
    echo "run.sh: no fuzzers were built in $build/Fuzz" >&2
    exit 1
fi
for fuzzer in "${fuzzers[@]}"; do
    [[ -x $fuzzer && -f $fuzzer ]] || continue
    name=${fuzzer##*/fuzz_}
    corpus="$scratch/corpus-$name"
    mkdir -p "$corpus" "$scratch/artifacts-$name"
    if [[ -d $root/Fuzz/corpus/$name ]]; then cp -R "$root/Fuzz/corpus/$name/." "$corpus/"; fi
    flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$scratch/artifacts-$name/")
    if [[ -f $root/Fuzz/$name.dict ]]; then flags+=(-dict="$root/Fuzz/$name.dict"); fi
    echo "=== fuzz_$name for ${seconds}s ($(ls "$corpus" | wc -l) seeds)"
    # In the background so that its pid is known: the harnesses name their
    # scratch directory after it, and a crash leaves that directory behind.
    # shellcheck disable=SC2086
    "$fuzzer" "${flags[@]}" ${FUZZ_FLAGS:-} "$corpus" &
    pid=$!
    status=0
    wait "$pid" || status=$?
    for directory in /dev/shm "${TMPDIR:-/tmp}"; do rm -rf "$directory"/openrealm-fuzz-*-"$pid"-*; done
    pid=
    if [[ $status -eq 0 ]]; then
        echo "=== fuzz_$name: clean"
    else
        failed+=("$name")
        mkdir -p "$found"
        cp "$scratch/artifacts-$name"/* "$found/" 2>/dev/null || true
        echo "=== fuzz_$name: FAILED (inputs copied to $found)" >&2
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "run.sh: failures in: ${failed[*]}" >&2
    exit 1
fi
echo "run.sh: every fuzzer ran ${seconds}s without a failure"
