#!/bin/sh
# Prints Baton's version, BatonVersion.string in Sources/BatonBus/BatonVersion.swift: the one
# place it is kept. scripts/package.sh, scripts/tests/packages.sh and debian/rules read it here.
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/.*static let string = "\([0-9][0-9.]*\)".*/\1/p' Sources/BatonBus/BatonVersion.swift)
[ -n "$version" ] || { echo "baton-version: no version in Sources/BatonBus/BatonVersion.swift" >&2; exit 1; }
echo "$version"
