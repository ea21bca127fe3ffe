#!/usr/bin/env bash
# The main job: renders the bundled showcase to showcase.mp4 and writes the full cantilever report
# to cantilever-report/ and the soft-cell report to cells-report/, installing system packages and
# building the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
cargo build --release --locked
./target/release/vsr2d render
./target/release/vsr2d cantilever
./target/release/vsr2d cells-report
