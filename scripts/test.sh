#!/usr/bin/env bash
# Runs every test: the layering check, the Swift tests, the documentation build (DocC,
# warnings as errors), the C tests (a plain
# build and an ASan+UBSan build), the Python package's tests (pip install
# ./python and pytest, in a virtual environment under build/), each fuzzer
# for FUZZ_SECONDS (default 60), and the packaging checks (install,
# find_package, a versioned SwiftPM dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
jobs=$(nproc)
fuzz_seconds=${FUZZ_SECONDS:-60}

echo "== Layers: includes and imports against docs/ARCHITECTURE.md"
python3 scripts/check-layers.py

echo "== Swift: build and test"
swift build
swift test

echo "== Documentation: DocC of OpenRealm, warnings as errors"
start=$SECONDS
scripts/docs.sh >/dev/null
echo "documentation built in $((SECONDS - start)) s"

echo "== C: build and ctest"
cmake -S . -B build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/test -j "$jobs"
ctest --test-dir build/test --output-on-failure

echo "== Python: pip install ./python into build/python-venv, then pytest"
# The package builds its own copy of libcengine (build/python-cengine) and
# bundles it, as a user's `pip install ./python` does; pytest comes from PyPI.
python3 -m venv build/python-venv
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" build/python-venv/bin/pip install --quiet --disable-pip-version-check "./python[test]"
build/python-venv/bin/python -m pytest -q python/tests

echo "== C: ASan + UBSan build and ctest"
CC=clang cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DCENGINE_SANITIZE=ON \
  -DCENGINE_BUILD_BENCHMARKS=OFF -DCENGINE_BUILD_FUZZERS=OFF >/dev/null
cmake --build build/sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure

echo "== Python: pytest against the ASan + UBSan library"
# The sanitized build's libcengine.so, with the ASan runtime preloaded and
# Python allocating through malloc (so that ASan sees its buffers too);
# leaks are not checked: the interpreter keeps memory until exit.
PYTHONMALLOC=malloc LD_PRELOAD="$(clang -print-file-name="libclang_rt.asan-$(uname -m).so")" \
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  OPENREALM_LIBRARY="$PWD/build/sanitize/libcengine.so" build/python-venv/bin/python -m pytest -q -p no:cacheprovider python/tests

echo "== Fuzzers: ${fuzz_seconds} s each"
bash Fuzz/run.sh "$fuzz_seconds" build/fuzz
echo "== Packaging"
scripts/check-packaging.sh
echo "== all tests passed"
