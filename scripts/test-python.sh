#!/usr/bin/env bash
# Tests the Python package (python/): installs the portable wheel (VSR2D_WHEEL, or built here by
# scripts/build-wheel.sh --profile dev) into a throw-away virtual environment under target/, then runs its
# pytest suite, which compares it with the vsr2d command line (VSR2D_BIN: ./scripts/test.sh gives the
# source build; by default the wheel's own `vsr2d`, installed in the same environment), and the HTML viewer's browser tests (python/tests/test_viewer.py: Playwright
# driving Debian's /usr/bin/chromium, which scripts/install-system-deps.sh installs; Playwright's own browser
# download is never used), and the cluster tests (python/tests/test_cluster.py), which start a real local
# Ray cluster with `ray start` and stop it, and the optimizer examples with the real pycma, pyribs and pymoo
# (python/tests/test_examples.py). Installs a Python with venv and pip from Debian if there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "vsr2d: installing python3-venv" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends python3-venv python3-pip >/dev/null
fi

venv=target/py-venv
rm -rf "$venv"
python3 -m venv "$venv"
# The optimizers the examples of examples/python/ drive (python/tests/test_examples.py runs them): pycma,
# pyribs and pymoo, pinned to the major (for pyribs, 0.x: the minor) versions the examples are written for.
"$venv/bin/pip" install -q --disable-pip-version-check "numpy>=1.21" "pytest>=7" "gymnasium>=0.29" "playwright>=1.40" "ray>=2.9" \
    "cma>=4,<5" "ribs>=0.12,<0.13" "pymoo>=0.6.1,<0.7"
# The portable wheel (scripts/build-wheel.sh; VSR2D_WHEEL when ./scripts/test.sh built it already) with the
# dev profile (opt-level 3, no LTO; the test profile inherits it, so the wheel reuses every crate `cargo
# test` compiled and only its two final links differ) instead of the whole-program-optimised `dist` (for
# shipping); scripts/test-wheel.sh then installs the same wheel without Rust.
wheel=${VSR2D_WHEEL:-}
[ -n "$wheel" ] || wheel=$(bash scripts/build-wheel.sh --profile dev --out target/wheels-test | tail -1)
"$venv/bin/pip" install -q --disable-pip-version-check "$wheel"

# The command line the package is compared with: VSR2D_BIN (./scripts/test.sh gives the source build), or
# the wheel's own `vsr2d`, installed in the venv with the package.
bin="${VSR2D_BIN:-$venv/bin/vsr2d}"
VSR2D_BIN="$(realpath "$bin")" "$venv/bin/python" -m pytest -q python/tests
