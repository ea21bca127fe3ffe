#!/usr/bin/env bash
# The main job: renders the bundled showcase to showcase.mp4 and writes the full cantilever report
# to cantilever-report/ and the soft-cell report at its quick size to cells-report/, installing system
# packages and building the release binary first. The full soft-cell acceptance run is its own command,
# `vsr2d cells-report` (about 7 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
cargo build --release --locked
./target/release/vsr2d render
./target/release/vsr2d cantilever
./target/release/vsr2d cells-report --quick
