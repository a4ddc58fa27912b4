#!/usr/bin/env bash
# Sets everything up, then runs the main job: for now the walk-through of the core.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift run BatonCoreDemo
