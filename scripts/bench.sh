#!/usr/bin/env bash
# Builds the benchmark package in release mode and prints its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build -c release --package-path Benchmarks
Benchmarks/.build/release/BatonBenchmarks
