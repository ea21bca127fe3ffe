#!/usr/bin/env bash
# Profile-guided optimisation for the shipped build: builds the wheel's `vsr2d` binary instrumented, runs
# it on a training set of what users run, and merges the counts into one profile for
# `-Cprofile-use`. Called by scripts/build-wheel.sh for `--profile dist`; its last line is the path of the
# merged profile.
#
#   scripts/pgo-profile.sh PROFILE LINK_ARGS...   (the Cargo profile and the final link's rustc arguments)
#
# Why: the step loop is a few hot functions whose inlining and block layout the compiler guesses without a
# profile; with one, the 12×3 legacy-1.0 worm runs 4–7 % faster (docs/benchmarks.md, against the warm original).
# Results are bit-identical: a profile changes which code is inlined and where it sits, never the floating-
# point operations (no fast-math).
#
# The training set: the step loop under both rule sets (legacy-1.0 worms of the yardstick's three widths,
# the default preset's benchmark rows), the tasks and soft cells, and a short render: 7 s on 2 vCPUs,
# enough, as what the compiler reads from a profile is how often each path runs relative to the others.
# llvm-profdata comes with rustup's `llvm-tools` component (installed here if missing), which matches the
# compiler's LLVM; Debian's llvm-profdata is older and cannot read its counts.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
profile=${1:?usage: pgo-profile.sh PROFILE LINK_ARGS...}
shift

target_dir=${CARGO_TARGET_DIR:-$repo/target}
pgo=$target_dir/pgo
gen_target=$pgo/build
raw=$pgo/raw
rm -rf "$raw"
mkdir -p "$raw"

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
    command -v rustup > /dev/null || {
        echo "pgo: no $profdata and no rustup to install it (the llvm-tools component); build with --no-pgo" >&2
        exit 1
    }
    echo "pgo: installing rustup's llvm-tools component (llvm-profdata)" >&2
    rustup component add llvm-tools >&2
fi

echo "pgo: the instrumented build (target dir $gen_target)" >&2
# Its own target dir: the instrumented artifacts would otherwise replace the shipped build's.
CARGO_TARGET_DIR=$gen_target RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$raw" \
    cargo rustc --locked -p vsr2d-python --bin vsr2d --profile "$profile" -- "$@" >&2
case $profile in dev) dir=debug ;; *) dir=$profile ;; esac
bin=$gen_target/$dir/vsr2d
# Build scripts ran instrumented too; their counts are not the program's.
rm -rf "$raw"
mkdir -p "$raw"

echo "pgo: the training runs" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LLVM_PROFILE_FILE="$raw/vsr2d-%p-%m.profraw"
train() { # train ARGS...: one training run of the instrumented binary; its output is only shown if it fails
    "$bin" "$@" > "$work/run.log" 2>&1 || {
        tail -20 "$work/run.log" >&2
        echo "pgo: the training run \`vsr2d $*\` failed" >&2
        exit 1
    }
}
# legacy-1.0 worms as the warm yardstick runs them (../shared/reference/java-bench/sxs.sh): uneven5,
# a w×3 worm, sin(-2πt + πx/w) per cell, Δt 1/60 s.
for w in 3 12 45; do
    python3 - "$w" > "$work/worm$w.json" <<'EOF'
import json, math, sys
w = int(sys.argv[1])
cells = [{"cell": [x, y], "function": {"type": "sin", "amplitude": 1.0, "frequency": -1.0,
                                       "phase": math.pi * x / w, "offset": 0.0}}
         for y in range(3) for x in range(w)]
print(json.dumps({
    "world": {"terrain": {"type": "uneven", "height": 5, "spacing": 40, "seed": 1},
              "dt": 1 / 60, "duration": 20, "control_interval": 1, "compat": "legacy-1.0"},
    "robots": [{"body": ["#" * w] * 3, "materials": {"#": {"scaffolding": "all"}},
                "controller": {"type": "time_functions", "cells": cells}}],
    "task": {"type": "locomotion"}}))
EOF
    train simulate "$work/worm$w.json"
done
train bench --quick --widths 3,12,45 --no-sweep
for s in biped carrying climbing pushing jumping cells-muscle-chain cells-fold-F; do
    train simulate "fixtures/scenarios/$s.json" --duration 5
done
train render -o "$work/showcase.mp4" --duration 2

"$profdata" merge -o "$work/merged.profdata" "$raw"/*.profraw
# Named by its content: cargo's fingerprint sees RUSTFLAGS as a string, so a new profile under the old
# name would leave the dependencies compiled with the old one.
merged=$pgo/vsr2d-$(sha256sum "$work/merged.profdata" | cut -c1-16).profdata
rm -f "$pgo"/vsr2d-*.profdata
mv "$work/merged.profdata" "$merged"
echo "pgo: $(ls "$raw" | wc -l) training processes merged into $merged" >&2
echo "$merged"
