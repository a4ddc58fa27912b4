#!/usr/bin/env bash
# Sets everything up, then builds and runs every test of Baton.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build --build-tests
swift test --skip-build
