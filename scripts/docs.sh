#!/usr/bin/env bash
# Builds the documentation of the OpenRealm module (the doc comments of Sources/OpenRealm and
# the articles of Sources/OpenRealm/OpenRealm.docc) with swift-docc-plugin, warnings as errors:
# an unresolved symbol link, an ambiguous one, or a broken article fails the build.
#   scripts/docs.sh              the archive: .build/plugins/Swift-DocC/outputs/OpenRealm.doccarchive
#   scripts/docs.sh ARGS...      extra arguments for the plugin or docc (e.g. --output-path DIR)
# OPENREALM_DOCS=1 makes Package.swift add the plugin as a dependency; without it, building
# the package (as every user of the library does) never resolves or builds the plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
OPENREALM_DOCS=1 swift package generate-documentation --target OpenRealm --warnings-as-errors "$@"
