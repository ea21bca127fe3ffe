#!/usr/bin/env bash
# Renders the pictures of docs/terrains.md: the biped of fixtures/scenarios/biped.json on each terrain
# (docs/terrains/<name>.json, 30 s) at t = 30 s, through a fixed camera that shows the run-up and the
# first features, to docs/terrains/<name>.png. Deterministic: rerunning gives the same pictures.
#
#   scripts/terrain-pictures.sh [VSR2D]    (default: builds and uses target/debug/vsr2d)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-}
if [[ -z $bin ]]; then
    cargo build --locked --bin vsr2d
    bin=target/debug/vsr2d
fi

# name  size (px)  x0,y0,x1,y1 (the world rectangle shown, m, of the same aspect)
views=(
    "hilly    1200x300  6,-3,78,15"
    "steppy   1200x300  6,-3,78,15"
    "slope    1200x300  6,-3,78,15"
    "stairs   1200x300  6,-3,78,15"
    "gaps     960x400   6,-21.5,78,8.5"
    "hurdles  1200x300  6,-3,78,15"
    "ceiling  1200x300  6,-3,78,15"
)
for row in "${views[@]}"; do
    read -r name size view <<<"$row"
    "$bin" render "docs/terrains/$name.json" --png "docs/terrains/$name.png" --at 30 --size "$size" \
        --fixed-camera "$view" --quiet >/dev/null
    echo "docs/terrains/$name.png"
done
