#!/usr/bin/env bash
# Tests that the portable wheel installs and runs without Rust and without the system's FFmpeg:
# builds it with scripts/build-wheel.sh (by default with the `dev` profile, the one
# scripts/test-python.sh builds, so it is built once: the bundling of the FFmpeg libraries is what is
# tested, not the optimisation),
# installs it into a fresh virtual environment from a clean environment whose PATH has no cargo or
# rustc, and, in a mount namespace where the system's libav*/libsw* files are hidden, evaluates a
# fixture (the same bits as `vsr2d simulate`), renders it to mp4 and runs the Python examples
# random_search.py and gym_rollout.py.
#
#   scripts/test-wheel.sh [--profile NAME]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

profile=dev
[[ ${1:-} == --profile ]] && profile=${2:?--profile needs a name}

out=target/wheels-test
wheel=$(bash scripts/build-wheel.sh --profile "$profile" --out "$out" | tail -1)
echo "test-wheel: $wheel"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A clean environment: only system directories on PATH (no ~/.cargo/bin), a throw-away HOME.
clean=(env -i HOME="$tmp/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8)
mkdir -p "$tmp/home"
if "${clean[@]}" bash -c 'command -v cargo || command -v rustc' >/dev/null; then
    echo "test-wheel: cargo or rustc is still on the clean PATH" >&2
    exit 1
fi
python=$(python3 -c "import sys; print(sys.executable)")
"${clean[@]}" "$python" -m venv "$tmp/venv"
"${clean[@]}" "$tmp/venv/bin/pip" install -q --disable-pip-version-check "$wheel" "gymnasium>=0.29"

so=$(ls "$tmp"/venv/lib/python3*/site-packages/vsr2d/_vsr2d*.so)
ffmpeg_libs=$(ldd "$so" | grep -E 'libav|libsw' || true)
echo "test-wheel: the extension's FFmpeg libraries:"
echo "$ffmpeg_libs" | sed 's/^/    /'
outside=$(awk '!/vsr2d\.libs\// { n++ } END { print n + 0 }' <<<"$ffmpeg_libs")
if [ -z "$ffmpeg_libs" ] || [ "$outside" -ne 0 ]; then
    echo "test-wheel: the extension links an FFmpeg library outside the wheel" >&2
    exit 1
fi

# The command line's result, to compare with (it links the system's FFmpeg, so it runs out here).
[ -x target/debug/vsr2d ] || cargo build --locked --bin vsr2d
target/debug/vsr2d simulate fixtures/scenarios/jumping.json >"$tmp/cli.json"

# The check itself, run with no cargo/rustc on PATH and, where a mount namespace can be made (root),
# with the system's FFmpeg libraries hidden.
cat >"$tmp/check.sh" <<EOF
set -euo pipefail
cd "$tmp"
for f in /usr/lib/x86_64-linux-gnu/lib{avcodec,avformat,avutil,avdevice,avfilter,swscale,swresample}.so.*; do
    if [ -f "\$f" ] && [ ! -L "\$f" ]; then mount --bind /dev/null "\$f"; fi
done
"$tmp/venv/bin/python" - <<'PY'
import json, vsr2d
fixture = "$repo/fixtures/scenarios/jumping.json"
result = vsr2d.evaluate(fixture)
cli = json.load(open("$tmp/cli.json"))
assert result == cli, "the wheel's result differs from vsr2d simulate's"
scenario = json.load(open(fixture))
scenario["world"]["duration"] = 1.0
vsr2d.render([scenario], "jump.mp4", size=(320, 180))
head = open("jump.mp4", "rb").read()
assert head[4:8] == b"ftyp" and b"avc1" in head, "an H.264 mp4"
print("test-wheel: evaluate equals vsr2d simulate; jump.mp4", len(head), "bytes")
PY
"$tmp/venv/bin/python" "$repo/examples/python/random_search.py"
"$tmp/venv/bin/python" "$repo/examples/python/gym_rollout.py" "$tmp/rollout.gif"
EOF
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    "${clean[@]}" unshare -m bash "$tmp/check.sh"
    echo "test-wheel: ran with the system's FFmpeg libraries hidden"
else
    sed -i '/mount --bind/d' "$tmp/check.sh"
    "${clean[@]}" bash "$tmp/check.sh"
    echo "test-wheel: no mount namespace here: ran with the system's FFmpeg libraries present"
fi
echo "test-wheel: 1 passed, 0 failed"
