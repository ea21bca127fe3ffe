#!/usr/bin/env bash
# Builds the minimal static FFmpeg that the portable wheel links (scripts/build-wheel.sh): Debian's own
# FFmpeg source package (`apt-get source ffmpeg`, bookworm: 5.1.x with Debian's patches), configured with
# --disable-everything plus exactly what vsr2d uses:
#
#   encoder  libopenh264  H.264 through OpenH264 (BSD-2-Clause; Debian's libopenh264-dev static library)
#   muxer    mp4          the container
#   protocol file         reading and writing files
#   library  swscale      linked by ffmpeg-next's `software-scaling` (used only to decode videos in tests)
#
# and no decoder, no demuxer, no filter, no device, no network, no autodetected system library. The result is
# LGPL-2.1-or-later FFmpeg (no --enable-gpl, no --enable-nonfree) plus BSD-2-Clause OpenH264.
#
#   scripts/build-ffmpeg.sh            prints the install prefix (its lib/ holds the .a files) as its last line
#
# Cached: the prefix is target/ffmpeg/<Debian version>-<hash of this configuration>; a prefix with a
# complete build is reused at once (once per CI run, or per machine). Needs root (or sudo) the first time,
# to add a deb-src entry for Debian's archive and to install nasm, dpkg-dev and libopenh264-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive

# What FFmpeg is configured with. Changing it changes the cache key below.
config=(
    --disable-everything --disable-autodetect --disable-programs --disable-doc --disable-network
    --disable-avdevice --disable-avfilter --disable-swresample --disable-postproc
    --disable-debug --enable-static --disable-shared --enable-pic
    --enable-libopenh264 --enable-encoder=libopenh264
    --enable-muxer=mp4 --enable-protocol=file
)

step() { printf '== build-ffmpeg: %s\n' "$*" >&2; }

packages=(nasm dpkg-dev pkg-config libopenh264-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's source archive, next to the binary one the machine already uses (bookworm and its security
# updates: apt-get source then gives the FFmpeg the system's libavcodec-dev headers describe).
if ! apt-cache showsrc ffmpeg 2>/dev/null | grep -c '^Package: ffmpeg' >/dev/null; then
    step "adding Debian's deb-src entries (/etc/apt/sources.list.d/vsr2d-deb-src.sources)"
    "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/vsr2d-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    "${sudo_cmd[@]}" apt-get update -qq
elif [ ${#missing[@]} -ne 0 ]; then
    "${sudo_cmd[@]}" apt-get update -qq
fi
if [ ${#missing[@]} -ne 0 ]; then
    step "installing ${missing[*]}"
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
fi

# The FFmpeg the system's headers describe: ffmpeg-sys-next's bindings come from them, so the static
# libraries must be the same major version (libavcodec 59, FFmpeg 5.1): same struct layouts.
version=$(apt-cache showsrc ffmpeg | awk '/^Version:/ { print $2 }' | sort -V | tail -1)
system=$(dpkg-query -W -f='${Version}' libavcodec-dev 2>/dev/null || true)
if [ -n "$system" ] && [ "${system%%.*}" != "${version%%.*}" ]; then
    echo "build-ffmpeg: source ffmpeg $version but libavcodec-dev $system: not the same major version" >&2
    exit 1
fi
key=$(printf '%s\n' "$version" "${config[@]}" "$(dpkg-query -W -f='${Version}' libopenh264-dev)" | sha256sum | cut -c1-12)
base=$repo/target/ffmpeg
prefix=$base/${version//[:~]/_}-$key
if [ -f "$prefix/.complete" ]; then
    step "cached: $prefix"
    echo "$prefix"
    exit 0
fi

start=$(date +%s)
src=$base/src
rm -rf "$src" "$prefix"
mkdir -p "$src"
step "apt-get source ffmpeg=$version (Debian's source package, its patches applied)"
(cd "$src" && apt-get source -qq --only-source "ffmpeg=$version" >/dev/null)
tree=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'ffmpeg-*' | head -1)
[ -n "$tree" ] || { echo "build-ffmpeg: apt-get source gave no ffmpeg-* directory" >&2; exit 1; }

step "configure (${config[*]})"
cd "$tree"
./configure --prefix="$prefix" "${config[@]}" >"$src/configure.log" 2>&1 || {
    tail -30 "$src/configure.log" >&2
    tail -30 ffbuild/config.log >&2
    exit 1
}
step "make -j$(nproc) (about a minute on 2 cores)"
make -j"$(nproc)" >"$src/make.log" 2>&1 || { tail -40 "$src/make.log" >&2; exit 1; }
make install >>"$src/make.log" 2>&1
# The licences of what the libraries contain, for the wheel (scripts/build-wheel.sh copies them in).
mkdir -p "$prefix/licenses"
cp COPYING.LGPLv2.1 "$prefix/licenses/FFmpeg-COPYING.LGPLv2.1"
cp LICENSE.md "$prefix/licenses/FFmpeg-LICENSE.md"
cp /usr/share/doc/libopenh264-dev/copyright "$prefix/licenses/OpenH264-copyright"
cp /usr/lib/x86_64-linux-gnu/libopenh264.a "$prefix/lib/"
echo "$version" >"$prefix/debian-version"
cd "$repo"
rm -rf "$src"
touch "$prefix/.complete"
step "built in $(($(date +%s) - start)) s: $(du -sh "$prefix/lib" | cut -f1) of static libraries in $prefix/lib"
echo "$prefix"
