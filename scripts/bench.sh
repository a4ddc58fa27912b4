#!/usr/bin/env bash
# Builds the benchmark package in release mode and prints its figures: the core's (ordo-one/benchmark:
# time, CPU and mallocs per operation, each beside its target), then the network's (offer propagation
# and continuation latency between two release-built batonds, beside the TLS floor, where the
# continuation's time goes, the same through a private strelaysrv relay (as is, and with 50 ms
# added each way on each device's path to it), batond's memory and wake-ups at rest, beside
# kdeconnectd's with one paired device, and offer fan-out to 10 paired batonds beside one). Exits
# non-zero only when a build or a run fails; a missed target is printed as MISS.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# One product at a time: a plain `swift build` would also build ordo-one's driver for the host,
# which nothing here runs.
swift build -c release --package-path Benchmarks --product BenchmarkReport
swift build -c release --package-path Benchmarks --product PeerBenchmarks
# Builds ordo-one's driver (BenchmarkTool) and BatonBenchmarks, and lists the benchmarks.
swift package --package-path Benchmarks benchmark list
Benchmarks/.build/release/BenchmarkReport --package-path Benchmarks
# The network figures run real batonds, release-built here, on loopback: two for the
# continuation and its breakdown, two linked only through a private strelaysrv (which
# setup.sh unpacks; no root needed), then one alone and one with 1 and 10 paired peers at rest
# (beside two paired kdeconnectd in network namespaces, as root) and the fan-out to its 10 peers.
swift build -c release --package-path Benchmarks --product batond
Benchmarks/.build/release/PeerBenchmarks Benchmarks/.build/release/batond
