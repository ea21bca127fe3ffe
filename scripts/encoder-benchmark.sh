#!/usr/bin/env bash
# The portable wheel's H.264 encoder (OpenH264) against the source build's (x264) on the showcase: a
# benchmark, not a test (docs/benchmarks.md quotes its output).
#
#   scripts/encoder-benchmark.sh WHEEL_VSR2D SOURCE_VSR2D [CRF ...]
#
# WHEEL_VSR2D   the `vsr2d` a wheel installs (its FFmpeg has only OpenH264)
# SOURCE_VSR2D  a source build (`cargo build`: Debian's FFmpeg, x264)
# CRF ...       the --crf values to give OpenH264 besides the default (a constant QP there)
#
# Renders the no-argument showcase (20 s, 601 frames at 1280×720, the default settings) with each, and
# once losslessly with x264 (`--crf 0`: exactly the yuv420p frames both encoders are given, converted in
# Rust); prints each file's size, its PSNR against the lossless frames (ffmpeg's psnr filter: Y and the
# average of Y, U, V over the frames), the render's wall time, and the encoder's own rate from
# `vsr2d render --bench --duration 20` (frames per second of time spent in the encoder, 1280×720, default
# settings). Needs ffmpeg and ffprobe (Debian's `ffmpeg` package) on the PATH.
set -euo pipefail
wheel_bin=$(realpath "${1:?usage: encoder-benchmark.sh WHEEL_VSR2D SOURCE_VSR2D [CRF ...]}")
source_bin=$(realpath "${2:?usage: encoder-benchmark.sh WHEEL_VSR2D SOURCE_VSR2D [CRF ...]}")
shift 2
crfs=("$@")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

render() { # OUT BIN ARGS...: renders the showcase, prints the wall seconds
    local out=$1 bin=$2
    shift 2
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" render -o "$out" "$@" >/dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
psnr() { # FILE: "Y dB, average dB" against ref.mp4
    ffmpeg -hide_banner -nostats -i "$1" -i ref.mp4 -lavfi "[0:v][1:v]psnr" -f null - 2>&1 |
        sed -n 's/.*PSNR y:\([0-9.inf]*\) u:[0-9.inf]* v:[0-9.inf]* average:\([0-9.inf]*\).*/\1 \2/p'
}
encode_fps() { # BIN: the encoder's frames per second at 1280×720 from render --bench
    "$1" render --bench --duration 20 | awk '/1280/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) v[++n] = $i; print v[n - 1]; exit }'
}

render ref.mp4 "$source_bin" --crf 0 >/dev/null
printf '%-34s %8s %12s %8s %10s %8s %12s\n' encoder "--crf" "size, bytes" "PSNR Y" "PSNR avg" "wall s" "encode fps"
row() { # NAME CRF BIN FILE WALL ENCODE_FPS
    read -r y avg < <(psnr "$4")
    printf '%-34s %8s %12s %8s %10s %8.2f %12s\n' "$1" "$2" "$(stat -c %s "$4")" "$y" "$avg" "$5" "$6"
}
wall=$(render x264.mp4 "$source_bin")
row "x264 (source build), superfast" 26 "$source_bin" x264.mp4 "$wall" "$(encode_fps "$source_bin")"
wall=$(render openh264.mp4 "$wheel_bin")
row "OpenH264 (wheel), QP = crf" 26 "$wheel_bin" openh264.mp4 "$wall" "$(encode_fps "$wheel_bin")"
for crf in "${crfs[@]}"; do
    wall=$(render "openh264-$crf.mp4" "$wheel_bin" --crf "$crf")
    row "OpenH264 (wheel), QP = crf" "$crf" "$wheel_bin" "openh264-$crf.mp4" "$wall" "-"
done
for f in x264.mp4 openh264.mp4; do
    printf '%s: %s\n' "$f" "$(ffprobe -v error -select_streams v -show_entries stream=codec_name,profile,pix_fmt,nb_frames -of csv=p=0 "$f")"
done
