#!/usr/bin/env bash
# Runs the whole test suite (unit, integration, golden images, video round trip, the Python package)
# on a fresh Debian machine: installs the system packages FFmpeg support needs, runs `cargo test`, then
# builds the Python package into a throw-away virtual environment and runs pytest on it, then installs
# the same portable wheel where there is no Rust and no system FFmpeg and runs the Python examples.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
cargo test --locked --all-targets
bash scripts/test-python.sh
bash scripts/test-wheel.sh
