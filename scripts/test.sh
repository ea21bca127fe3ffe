#!/usr/bin/env bash
# Runs the whole test suite (unit, integration, golden images, video round trip, the Python package)
# on a fresh Debian machine: installs the system packages FFmpeg support needs, runs `cargo test`, then
# builds the portable wheel once (dev profile; it reuses `cargo test`'s dependencies, but vsr2d is compiled
# again with the features numpy and pyo3 unify) and runs pytest on it in a throw-away virtual environment, then installs the same
# wheel where there is no Rust and no system FFmpeg (scripts/test-wheel.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh
cargo test --locked --all-targets
# `--all-targets` leaves out the doc examples (the crate root's front-door example among them).
cargo test --locked --doc -p vsr2d -p vsr2d-report
# The source build (Debian's FFmpeg, x264), kept before the wheel's link replaces target/debug/vsr2d: the
# Python package and the wheel's command line are compared with it.
target_dir=${CARGO_TARGET_DIR:-target}
mkdir -p "$target_dir/source-build"
cp "$target_dir/debug/vsr2d" "$target_dir/source-build/vsr2d"
wheel=$(bash scripts/build-wheel.sh --profile dev --out target/wheels-test | tail -1)
VSR2D_WHEEL=$wheel VSR2D_BIN=$target_dir/source-build/vsr2d bash scripts/test-python.sh
VSR2D_WHEEL=$wheel VSR2D_SOURCE_BIN=$target_dir/source-build/vsr2d bash scripts/test-wheel.sh
