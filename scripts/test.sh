#!/usr/bin/env bash
# Runs the whole test suite (unit, integration, golden images, video round trip) on a fresh Debian
# machine: installs the system packages FFmpeg support needs, then `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
cargo test --locked --all-targets
