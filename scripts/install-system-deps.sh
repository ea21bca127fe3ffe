#!/usr/bin/env bash
# Installs the Debian packages vsr2d needs to build (FFmpeg headers for ffmpeg-next, libclang for bindgen),
# to verify videos (ffprobe), to open the PDF figures in a real reader (poppler's pdftoppm) and to test the
# HTML viewer in a real browser (chromium, driven by Playwright from scripts/test-python.sh). Does nothing when everything is already there; needs root (or sudo).
set -euo pipefail

packages=(pkg-config clang libclang-dev libavcodec-dev libavformat-dev libavutil-dev libswscale-dev ffmpeg poppler-utils chromium)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "vsr2d: installing system packages: ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
