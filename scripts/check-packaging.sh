#!/usr/bin/env bash
# Checks that others can depend on this repository (run by scripts/test.sh):
#   1. `cmake --install --prefix P` writes a cengine.pc whose prefix is P, and
#      a CMake package: a consumer project finds it with find_package(CEngine),
#      links the shared and the static library, and runs;
#   2. a scratch SwiftPM package depends on a tagged clone of this repository
#      with `.package(url:from:)` (no unsafe flags may be in the way), builds
#      and runs.
# Usage: scripts/check-packaging.sh [c|swift]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
what=${1:-all}
work=$(mktemp -d "${TMPDIR:-/tmp}/openrealm-packaging-XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=$(nproc)

if [ "$what" = all ] || [ "$what" = c ]; then
  echo "-- C: install, pkg-config, find_package"
  cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCENGINE_BUILD_TESTS=OFF \
    -DCENGINE_BUILD_BENCHMARKS=OFF -DCENGINE_BUILD_FUZZERS=OFF >/dev/null
  cmake --build "$work/build" -j "$jobs" >/dev/null
  prefix="$work/prefix"
  cmake --install "$work/build" --prefix "$prefix" >/dev/null
  pc=$(find "$prefix" -name cengine.pc)
  pc_prefix=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=prefix cengine)
  if [ "$pc_prefix" != "$prefix" ]; then
    echo "cengine.pc says prefix=$pc_prefix, installed into $prefix"; exit 1
  fi
  cc $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags cengine) scripts/packaging/c-consumer/consumer.c \
    -o "$work/consumer_pc" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --libs cengine)
  LD_LIBRARY_PATH=$(dirname "$(dirname "$pc")") "$work/consumer_pc" "$work/pc.realm"
  cmake -S scripts/packaging/c-consumer -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/consumer" -j "$jobs" >/dev/null
  "$work/consumer/consumer_shared" "$work/shared.realm"
  "$work/consumer/consumer_static" "$work/static.realm"
fi

if [ "$what" = all ] || [ "$what" = swift ]; then
  echo "-- Swift: a versioned dependency on a tagged clone"
  git clone -q "$repo" "$work/openrealm"
  git -C "$work/openrealm" tag -f 0.1.0 >/dev/null
  mkdir -p "$work/consumer-swift"
  cp -r scripts/packaging/swift-consumer/Sources "$work/consumer-swift/"
  cat >"$work/consumer-swift/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [.package(url: "file://$work/openrealm", from: "0.1.0")],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [.product(name: "OpenRealm", package: "openrealm")]),
    ],
    swiftLanguageModes: [.v6]
)
SWIFT
  (cd "$work/consumer-swift" && swift build -j "$jobs" 2>&1 | tail -1)
  output=$(cd "$work/consumer-swift" && .build/debug/Consumer)
  echo "$output"
  grep -q "works as a versioned dependency" <<<"$output"
fi
echo "-- packaging checks passed"
