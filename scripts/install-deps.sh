#!/usr/bin/env bash
# Installs the Debian packages the build needs, when they are missing.
#   scripts/install-deps.sh            what the library and the demo need
#   scripts/install-deps.sh --tests    also what the tests, fuzzers and benchmarks need
set -euo pipefail
packages=(libssl-dev libzstd-dev)
if [ "${1:-}" = "--tests" ]; then
  # make: CMake's default generator (a cmake without Recommends lacks it).
  # pkg-config: scripts/check-packaging.sh reads the installed cengine.pc.
  # python3: scripts/check-layers.py. python3-venv: the virtual environment
  # scripts/test.sh installs the Python package and pytest into (with pip).
  # sqlite3 (the shell) and bc: Benchmarks/run_export.sh times the shell beside openrealm.
  packages+=(cmake make pkg-config python3 python3-venv libsqlite3-dev liblmdb-dev libsqlcipher-dev sqlite3 bc)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps.sh: missing packages: ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
  sudo="sudo"
fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
