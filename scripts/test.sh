#!/usr/bin/env bash
# Runs the whole test suite (unit, integration, golden images, video round trip, the Python package)
# on a fresh Debian machine: installs the system packages FFmpeg support needs, runs `cargo test`, then
# builds the Python package into a throw-away virtual environment and runs pytest on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
cargo test --locked --all-targets
bash scripts/test-python.sh
