#!/usr/bin/env bash
# Builds the benchmark package in release mode and prints its figures: the core's, then the
# network's (offer propagation and continuation latency between two batonds, beside the TLS floor).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build -c release --package-path Benchmarks
Benchmarks/.build/release/BatonBenchmarks
# The network figures run two real batonds (the debug build the tests use) on loopback.
swift build --product batond
Benchmarks/.build/release/PeerBenchmarks .build/debug/batond
