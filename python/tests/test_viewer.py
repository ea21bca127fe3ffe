"""The HTML viewer (`vsr2d view`, docs/viewer.md) in a real browser: Debian's Chromium driven through the
DevTools protocol by Playwright (scripts/install-system-deps.sh installs chromium, scripts/test-python.sh
installs playwright; no browser download). The pages are read from file:// with every request logged."""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary():
    """The vsr2d command line (scripts/test-python.sh sets VSR2D_BIN)."""
    path = os.environ.get("VSR2D_BIN") or shutil.which("vsr2d")
    assert path and os.path.exists(path), "set VSR2D_BIN to the vsr2d binary (cargo build)"
    return path


CHROMIUM = os.environ.get("VSR2D_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCENARIOS = ROOT / "fixtures" / "scenarios"
# The screenshot check: a pixel differs when a channel differs by more than TOLERANCE, and at most BUDGET of
# the pixels may differ. Chromium's and tiny-skia's anti-aliasing differ along edges, and the overlay's
# text is drawn by two different rasterizers of the same font (measured: 0.07–0.18 % of the pixels beyond
# 40 on these pages; a frame 1/30 s off differs in far more).
TOLERANCE = 40
BUDGET = "0.5%"


@pytest.fixture(scope="module")
def browser():
    assert os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: run scripts/install-system-deps.sh (Debian's chromium)"
    with sync_playwright() as p:
        profile = tempfile.mkdtemp(prefix="vsr2d-chromium-")
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=ARGS,
            headless=True,
            viewport={"width": 1400, "height": 1200},
            device_scale_factor=1,
        )
        yield context
        context.close()


class Page:
    """A viewer page open in the browser, with its console errors and requests."""

    def __init__(self, context, path, fragment="", timeout=30000):
        self.page = context.new_page()
        self.errors, self.requests = [], []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = pathlib.Path(path).resolve().as_uri()
        self.page.goto(self.url + fragment)
        # The page's CSP forbids eval, which wait_for_function's polling needs: wait for the flag it sets.
        try:
            self.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=timeout)
        except Exception:
            # A page that never got ready (a frozen tab) must not linger beside the next test's.
            self.page.close()
            raise

    def state(self):
        return self.page.evaluate("window.vsr2dViewer.state()")

    def slide_to(self, frame):
        """Moves the time slider as a user does (its value, then the input event)."""
        self.page.evaluate(
            "(k) => { const s = document.getElementById('vsr2d-slider'); s.value = k;"
            " s.dispatchEvent(new Event('input', {bubbles: true})); }",
            frame,
        )

    def canvas_png(self, path):
        clip = self.page.evaluate(
            "(() => { const c = document.getElementById('vsr2d-canvas'), r = c.getBoundingClientRect();"
            " return {x: r.left + c.clientLeft, y: r.top + c.clientTop, width: c.clientWidth, height: c.clientHeight}; })()"
        )
        self.page.screenshot(path=str(path), clip=clip)

    def close(self):
        assert self.errors == [], self.errors
        assert self.requests == [self.url] or all(r.startswith(self.url.split("#")[0]) for r in self.requests), self.requests
        self.page.close()


def vsr2d(*args):
    return subprocess.run([binary(), *map(str, args)], check=True, capture_output=True, text=True)


def record(tmp_path, scenario, duration, name):
    out = tmp_path / f"{name}.jsonl"
    vsr2d("simulate", scenario, "--duration", duration, "--record", out)
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()], out


def shown(snapshots, t):
    """The snapshot a frame at time t shows: the first with t' >= t - 1e-9, else the last (spec §12)."""
    return next((s for s in snapshots if s["t"] >= t - 1e-9), snapshots[-1])


def assert_voxels_match(page_run, snapshot, quantum):
    robots = [b for b in snapshot["bodies"] if b.get("kind", "voxel_robot") == "voxel_robot"]
    assert len(page_run["robots"]) == len(robots)
    for got, want in zip(page_run["robots"], robots):
        assert got["label"] == want["label"]
        assert len(got["voxels"]) == len(want["voxels"])
        for gv, wv in zip(got["voxels"], want["voxels"]):
            assert gv["cell"] == wv["cell"]
            for p, q in zip(gv["outline"], wv["outline"]):
                # Positions are rounded to the page's quantum; masses come back from their rigid
                # cluster's pose, which adds at most about one more quantum.
                assert abs(p[0] - q[0]) <= 2 * quantum and abs(p[1] - q[1]) <= 2 * quantum, (p, q, quantum)
            assert abs(gv["area_ratio"] - wv["area_ratio"]) <= 1 / 4096


def test_biped_page_plays_seeks_and_toggles_layers(browser, tmp_path):
    snapshots, rec = record(tmp_path, SCENARIOS / "biped.json", 10, "biped")
    html = tmp_path / "biped.html"
    vsr2d("view", rec, "-o", html)
    page = Page(browser, html)
    st = page.state()
    assert (st["frame"], st["frames"], st["fps"], st["playing"], st["follow"]) == (0, 301, 30, False, True)
    quantum = page.page.evaluate("JSON.parse(document.getElementById('vsr2d-data').textContent).runs[0].position_quantum")
    assert 0 < quantum <= 0.9 / 500
    for frame in (0, 97, 250, 300):
        page.slide_to(frame)
        st = page.state()
        assert st["frame"] == frame and abs(st["t"] - frame / 30) < 1e-12
        want = shown(snapshots, frame / 30)
        assert abs(st["runs"][0]["t"] - want["t"]) < 1e-5
        assert_voxels_match(st["runs"][0], want, quantum)
    # The arrow keys step one frame, shift+arrow one second.
    page.page.keyboard.press("ArrowLeft")
    assert page.state()["frame"] == 299
    page.page.keyboard.press("Shift+ArrowLeft")
    assert page.state()["frame"] == 269
    page.page.click("#vsr2d-fwd")
    assert page.state()["frame"] == 270
    # Space toggles play; playing moves the frame on.
    page.page.keyboard.press("Home")
    page.page.keyboard.press(" ")
    assert page.state()["playing"] is True
    for _ in range(200):
        if page.state()["frame"] > 5:
            break
        page.page.wait_for_timeout(50)
    assert page.state()["frame"] > 5
    page.page.keyboard.press(" ")
    assert page.state()["playing"] is False
    # A layer toggle changes what is drawn at once.
    page.slide_to(150)
    before = page.page.locator("#vsr2d-canvas").screenshot()
    page.page.click("#vsr2d-layer-masses")
    assert page.state()["layers"]["masses"] is True
    after = page.page.locator("#vsr2d-canvas").screenshot()
    assert before != after
    page.page.select_option("#vsr2d-measure", "actuation")
    assert page.state()["measure"] == "actuation"
    assert page.page.locator("#vsr2d-canvas").screenshot() != after
    page.close()


def test_fragment_opens_at_that_time(browser, tmp_path):
    html = tmp_path / "biped.html"
    vsr2d("view", SCENARIOS / "biped.json", "--duration", 8, "-o", html)
    page = Page(browser, html, "#t=5")
    st = page.state()
    assert (st["frame"], st["t"]) == (150, 5.0)
    assert st["overlay"][0][0] == "t = 5.00 s"
    page.close()


def test_a_huge_time_opens_at_the_last_frame_and_seek_returns(browser, tmp_path):
    html = tmp_path / "worm.html"
    vsr2d("view", SCENARIOS / "worm.json", "--duration", 2, "-o", html, "-q")
    # The frame of time t was found by stepping k from ceil(t·fps): past 2^53, k − 1 == k and the tab froze.
    page = Page(browser, html, "#t=1e300", timeout=5000)
    try:
        assert page.state()["frame"] == 60
        # seek() from a timer, then wait for its end: evaluating it directly would hang with a frozen tab.
        for t, frame in (("1e300", 60), ("-1e300", 0), ("Infinity", 60), ("NaN", 0), ("1e-300", 0), ("1", 30)):
            page.page.evaluate(
                "(t) => setTimeout(() => { window.vsr2dViewer.seek(+t); document.body.dataset.sought = t; }, 0)", t
            )
            page.page.wait_for_selector(f"body[data-sought='{t}']", state="attached", timeout=5000)
            assert page.state()["frame"] == frame, t
        # A fragment changed after load is clamped the same way.
        page.page.evaluate(
            "() => { addEventListener('hashchange', () => { document.body.dataset.hashed = '1'; });"
            " setTimeout(() => { location.hash = '#t=2e300'; }, 0); }"
        )
        page.page.wait_for_selector("body[data-hashed='1']", state="attached", timeout=5000)
        assert page.state()["frame"] == 60
    finally:
        page.close()


def test_cell_scene_shows_the_recorded_membranes(browser, tmp_path):
    snapshots, rec = record(tmp_path, SCENARIOS / "cells-connect.json", 4, "cells")
    html = tmp_path / "cells.html"
    vsr2d("view", rec, "-o", html)
    page = Page(browser, html)
    quantum = page.page.evaluate("JSON.parse(document.getElementById('vsr2d-data').textContent).runs[0].position_quantum")
    for frame in (0, 60, 120):
        page.slide_to(frame)
        st = page.state()
        want = shown(snapshots, frame / 30)
        cells = [b for b in want["bodies"] if b.get("kind") == "cell"]
        assert len(st["runs"][0]["cells"]) == len(cells) > 0
        for got, c in zip(st["runs"][0]["cells"], cells):
            assert got["label"] == c["label"] and len(got["bodies"]) == len(c["bodies"])
            err = max(max(abs(p[0] - q[0]), abs(p[1] - q[1])) for p, q in zip(got["bodies"], c["bodies"]))
            assert err <= quantum / 2 + 1e-12, err
    page.close()


def layer_switches(page):
    return page.page.evaluate("[...document.querySelectorAll('#vsr2d-layers input')].map((i) => i.id.replace('vsr2d-layer-', ''))")


def test_cell_controls_only_on_pages_with_cells(browser, tmp_path):
    cell_switches = {"membranes", "connectors"}
    pages = {}
    for name, scenarios in {"voxels": ["biped.json"], "cells": ["cells-connect.json"], "both": ["worm.json", "cells-connect.json"]}.items():
        pages[name] = tmp_path / f"{name}.html"
        vsr2d("view", *[SCENARIOS / s for s in scenarios], "--duration", 2, "-o", pages[name])
    # A voxel-only run: the voxels' switches and none for cells (they would do nothing).
    page = Page(browser, pages["voxels"])
    switches = layer_switches(page)
    assert {"voxels", "masses", "materials"} <= set(switches) and not cell_switches & set(switches), switches
    assert not cell_switches & set(page.state()["layers"])
    page.close()
    # A run with cells, alone or beside a voxel run: both switches, on, and they hide what they name.
    for name in ("cells", "both"):
        page = Page(browser, pages[name])
        assert cell_switches <= set(layer_switches(page)), name
        assert all(page.state()["layers"][k] is True for k in cell_switches)
        before = page.page.locator("#vsr2d-canvas").screenshot()
        page.page.click("#vsr2d-layer-membranes")
        assert page.state()["layers"]["membranes"] is False
        assert page.page.locator("#vsr2d-canvas").screenshot() != before
        page.close()


def boxes_meet(a, b):
    """Whether two [x, y, w, h] boxes overlap."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_plot_names_stay_off_their_curves(browser, tmp_path):
    html = tmp_path / "two.html"
    vsr2d("view", SCENARIOS / "biped.json", SCENARIOS / "worm.json", "--duration", 6, "-o", html)
    page = Page(browser, html)
    for frame in (0, 90, 180):
        page.slide_to(frame)
        plots = page.page.evaluate("window.vsr2dViewer.plots()")
        assert [p["cell"] for p in plots] == [0, 1]
        for plot in plots:
            assert [q["name"] for q in plot["panels"]] == ["x (m)", "mean speed (m/s)"]
            for q in plot["panels"]:
                frame_box, label, curve = q["frame"], q["label"], q["curve"]
                assert curve is not None and label[2] > 20 and label[3] > 5, q
                # The curve stays in its frame (half its 1.2 px line beyond), and the name outside it.
                assert curve[0] >= frame_box[0] and curve[0] + curve[2] <= frame_box[0] + frame_box[2] + 1e-9, q
                assert curve[1] >= frame_box[1] and curve[1] + curve[3] <= frame_box[1] + frame_box[3] + 1e-9, q
                grown = [frame_box[0] - 1, frame_box[1] - 1, frame_box[2] + 2, frame_box[3] + 2]
                assert not boxes_meet(label, grown), q
    # On the pixels: no curve blue (#0050c8) inside any name's box, plenty inside each frame.
    counts = page.page.evaluate(
        """() => [...document.querySelectorAll('#vsr2d-plots canvas')].map((c, i) => {
             const g = c.getContext('2d');
             const blue = ([x, y, w, h]) => {
               const d = g.getImageData(Math.floor(x), Math.floor(y), Math.ceil(w) + 1, Math.ceil(h) + 1).data;
               let n = 0;
               for (let k = 0; k < d.length; k += 4) n += d[k + 2] > 120 && d[k] < 90 && d[k + 2] - d[k + 1] > 60;
               return n;
             };
             return window.vsr2dViewer.plots()[i].panels.map((q) => [blue(q.label), blue(q.frame)]);
           })"""
    )
    for panels in counts:
        for in_label, in_frame in panels:
            assert in_label == 0 and in_frame > 50, counts
    page.close()


def test_two_runs_side_by_side_each_show_their_recording(browser, tmp_path):
    biped, rec_b = record(tmp_path, SCENARIOS / "biped.json", 6, "biped")
    worm, rec_w = record(tmp_path, SCENARIOS / "worm.json", 6, "worm")
    html = tmp_path / "two.html"
    vsr2d("view", rec_b, rec_w, "-o", html)
    page = Page(browser, html)
    data = page.page.evaluate("JSON.parse(document.getElementById('vsr2d-data').textContent)")
    assert [c["run"] for c in data["cells"]] == [0, 1]
    assert [r["name"] for r in data["runs"]] == [str(rec_b), str(rec_w)]
    assert data["cells"][0]["rect"] == [0, 0, 640, 720] and data["cells"][1]["rect"] == [640, 0, 640, 720]
    page.slide_to(123)
    st = page.state()
    for run, snapshots, info in zip(st["runs"], (biped, worm), data["runs"]):
        assert_voxels_match(run, shown(snapshots, 123 / 30), info["position_quantum"])
    # Each cell has its linked plot; clicking one seeks.
    plots = page.page.locator("#vsr2d-plots canvas")
    assert plots.count() == 2
    box = plots.nth(1).bounding_box()
    page.page.mouse.click(box["x"] + 48 + (box["width"] - 56) * 0.5, box["y"] + box["height"] / 2)
    assert abs(page.state()["t"] - 3.0) <= 1 / 30 + 1e-9
    page.close()


@pytest.mark.parametrize(
    "inputs,at,layers",
    [
        (["biped.json"], 12.5, []),
        (["biped.json"], 12.5, ["springs", "masses", "ropes", "welds"]),
        (["worm-10x3-uneven.json"], 7.0, []),
        (["biped.json", "worm.json"], 3.3, []),
        (["cells-connect.json"], 2.0, []),
    ],
    ids=["biped", "biped-layers", "uneven-worm", "two-runs", "cells"],
)
def test_screenshot_matches_the_rendered_frame(browser, tmp_path, inputs, at, layers):
    paths = [SCENARIOS / name for name in inputs]
    html, png, shot = tmp_path / "page.html", tmp_path / "render.png", tmp_path / "page.png"
    vsr2d("view", *paths, "--duration", 15, "-o", html)
    vsr2d("render", *paths, "--duration", 15, "--png", png, "--at", at, "-q", *[f"--{layer}" for layer in layers])
    page = Page(browser, html, f"#t={at}")
    for layer in layers:
        page.page.click(f"#vsr2d-layer-{layer}")
    page.canvas_png(shot)
    page.close()
    verdict = subprocess.run(
        [binary(), "compare", png, shot, "--tolerance", str(TOLERANCE), "--budget", BUDGET],
        capture_output=True,
        text=True,
    )
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr


def test_a_malformed_recording_gives_the_error_of_render_from(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"step": 0, "t": 0.0, "bodies": []}\n{"step": 1, "t": oops}\n')
    view = subprocess.run([binary(), "view", bad, "-o", tmp_path / "x.html"], capture_output=True, text=True)
    render = subprocess.run([binary(), "render", "--from", bad, "--png", tmp_path / "x.png"], capture_output=True, text=True)
    assert view.returncode == render.returncode == 2
    assert view.stderr == render.stderr and f"{bad}:2: not a vsr2d snapshot" in view.stderr
    assert not (tmp_path / "x.html").exists()


def test_python_view_writes_the_same_kind_of_page(browser, tmp_path):
    import vsr2d as lib

    scenario = json.loads((SCENARIOS / "biped.json").read_text())
    scenario["world"]["duration"] = 3
    stats = lib.view(scenario, tmp_path / "py.html")
    assert stats["frames"] == 91 and stats["keep_every"] == 1
    assert stats["page_bytes"] == (tmp_path / "py.html").stat().st_size
    page = Page(browser, tmp_path / "py.html")
    page.page.click("#vsr2d-layer-springs")
    assert page.state()["layers"]["springs"] is True
    page.close()
