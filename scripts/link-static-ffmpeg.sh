#!/usr/bin/env bash
# The linker of the portable wheel's extension and `vsr2d` binary: scripts/build-wheel.sh passes it as
# `-C linker=` to the final rustc of those two (only: every other crate, ffmpeg-sys-next included, is the
# artifact `cargo test` built), together with the static archives of the minimal FFmpeg
# (scripts/build-ffmpeg.sh) as `-C link-arg=`s, which rustc puts at the end of the command line.
#
# ffmpeg-sys-next found Debian's FFmpeg through pkg-config and asks for it as -lavutil, -lavformat,
# -lswscale and -lavcodec (with -L/usr/lib/x86_64-linux-gnu first on the search path, so no -L of ours
# could shadow them). This drops exactly those four flags and runs cc with everything else, so the
# FFmpeg symbols resolve to the static archives given at the end and the output links no libav*/libsw*
# at all (scripts/build-wheel.sh checks that with readelf). The bindings ffmpeg-sys-next generated from
# Debian's headers describe the archives too: both are FFmpeg 5.1.x (libavcodec 59), whose structures do
# not change within a major version.
set -euo pipefail
args=()
for a in "$@"; do
    case $a in
        -lavutil | -lavformat | -lswscale | -lavcodec) ;;
        -lavdevice | -lavfilter | -lswresample | -lpostproc | @*)
            echo "link-static-ffmpeg: unexpected linker argument $a (not a library of the minimal FFmpeg, or a response file)" >&2
            exit 1
            ;;
        *) args+=("$a") ;;
    esac
done
exec cc "${args[@]}"
