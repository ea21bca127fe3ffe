"""Hostile strings in the HTML pages vsr2d writes (issue 52): robot and object labels, titles and file names
that hold markup, comment openers, template syntax, character references or U+2028 reach the interactive
viewer (`vsr2d view`, `vsr2d render --html`, a study's viewer.html) and the reports (study, POM). Each page
is opened in Debian's Chromium through Playwright, as in test_viewer.py: it must become ready, show the
string as text, and run nothing injected (no dialog, no console error, no element or handler of ours)."""

import json
import pathlib

import pytest

from test_viewer import SCENARIOS, Page, browser, vsr2d  # noqa: F401 (browser is a fixture)

HOSTILE = [
    "<!--<script>",
    "</script><script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "\u2028",
    "{{ 7*7 }}",
    "&amp;",
    "<script>alert(2)</script><!--",
    "'><svg onload=alert(3)>",
    "javascript:alert(4)",
]
IDS = ["comment-script", "close-script", "attr-img", "u2028", "template", "entity", "open-script", "svg", "js-url"]


def hostile_path(root, s, suffix):
    """A path whose text holds `s` whole: each `/` of `s` is a directory boundary."""
    path = pathlib.Path(f"{root}/x{s}{suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    assert s in str(path)
    return path


def text_of(page, selector):
    return page.page.evaluate("(s) => document.querySelector(s).textContent", selector)


def assert_nothing_injected(page, scripts):
    assert page.dialogs == [], page.dialogs
    injected = page.page.evaluate(
        "() => ({scripts: document.scripts.length, imgs: document.querySelectorAll('img:not([src$=\".png\"])').length,"
        " svgs: document.querySelectorAll('svg').length,"
        " handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length})"
    )
    assert injected == {"scripts": scripts, "imgs": 0, "svgs": 0, "handlers": 0}, injected


def scenario_with(s):
    """A short worm labelled `s` beside an object labelled `s`."""
    scenario = json.loads((SCENARIOS / "worm.json").read_text())
    scenario["world"]["duration"] = 1
    scenario["robots"][0]["label"] = s
    scenario["objects"] = [{"label": s, "size": [0.4, 0.4], "position": [27.0, 0.2]}]
    return scenario


class Opened(Page):
    """A page of test_viewer.Page's kind that also records dialogs (alert, confirm: what the payloads call),
    and does not wait: whether it becomes ready is what is tested."""

    def __init__(self, context, path):
        self.page = context.new_page()
        self.errors, self.requests, self.dialogs = [], [], []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", self.on_dialog)
        self.url = pathlib.Path(path).resolve().as_uri()
        self.page.goto(self.url)

    def on_dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def close_report(self):
        """Closes a report page: no error, and nothing loaded from outside its directory."""
        assert self.errors == [], self.errors
        here = self.url.rsplit("/", 1)[0] + "/"
        assert all(r.startswith(here) for r in self.requests), self.requests
        self.page.close()


def assert_viewer_beside_report_runs_nothing(browser, path):
    """A viewer a report writes beside itself becomes ready and runs only its own three scripts."""
    page = Opened(browser, path)
    page.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
    assert_nothing_injected(page, scripts=3)
    page.close()


def assert_viewer_ready_with(page, s, title):
    # The page hangs in "script data double escaped" when `<!--<script>` reaches its data: ready never comes.
    page.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=15000)
    assert page.page.title() == title
    assert text_of(page, "h1") == title
    st = page.state()
    run = st["runs"][0]
    assert [r["label"] for r in run["robots"]] == [s]
    assert [o["label"] for o in run["objects"]] == [s]
    assert_nothing_injected(page, scripts=3)


@pytest.mark.parametrize("s", HOSTILE, ids=IDS)
def test_view_and_render_html_pages_show_hostile_strings_as_text(browser, tmp_path, s):
    scenario = hostile_path(tmp_path / "in", s, ".json")
    scenario.write_text(json.dumps(scenario_with(s)))
    # `vsr2d view` with the string as title, label and (in its directories) file name.
    page_path = hostile_path(tmp_path / "view", s, ".html")
    title = f"{s} · title"
    vsr2d("view", scenario, "-o", page_path, "--title", title, "--duration", 1, "-q")
    page = Opened(browser, page_path)
    assert_viewer_ready_with(page, s, title)
    data = page.page.evaluate("JSON.parse(document.getElementById('vsr2d-data').textContent)")
    assert data["runs"][0]["name"] == str(scenario) and data["title"] == title
    # No `<`, `>` or `&` stands in the page's JSON, so no `<!--`, `<script` or `</script` can.
    raw = text_of(page, "#vsr2d-data")
    assert sorted({c for c in raw if c in "<>&\u2028\u2029"}) == []
    page.close()
    # `vsr2d render --html`: its title is the page's file name.
    html = hostile_path(tmp_path / "render", s, ".html")
    vsr2d("render", scenario, "--html", html, "--duration", 1, "-q")
    page = Opened(browser, html)
    assert_viewer_ready_with(page, s, html.stem)
    page.close()


# The built-in `pom-quadruped` (src/pom/example.rs), one gait cycle, small frames.
POM_QUADRUPED = {
    "lattice": {
        "pitch": 0.0762,
        "numbering": "pfea",
        "layers": {"z0": ["##", "##"], "z1": ["##", "##"]},
        "mass_voxels": [[2, 1, 0], [1, 2, 0]],
        "extensions": [
            {"id": "front_r", "attach": {"voxel": [1, 1, 0], "node": 3}, "offset": [0.0381, 0, -0.0381]},
            {"id": "front_l", "attach": {"voxel": [1, 1, 0], "node": 4}, "offset": [0, 0.0381, -0.0381]},
        ],
    },
    "controls": [
        {"id": "red", "voxel": [0, 1, 1], "node": 0, "push": "+z", "partner": {"voxel": [0, 1, 0], "node": 0}},
        {"id": "yellow", "voxel": [0, 0, 1], "node": 1, "push": "+z", "partner": {"voxel": [0, 0, 0], "node": 1}},
        {"id": "blue", "voxel": [0, 0, 1], "node": 0, "push": "+z", "partner": {"voxel": [0, 0, 0], "node": 0}},
        {"id": "green", "voxel": [1, 0, 1], "node": 1, "push": "+z", "partner": {"voxel": [1, 0, 0], "node": 1}},
    ],
    "effectors": [
        {"id": "foot_bl", "voxel": [0, 1, 0], "node": 2, "role": "foot"},
        {"id": "foot_br", "voxel": [1, 0, 0], "node": 2, "role": "foot"},
        {"id": "foot_fr", "extension": "front_r", "role": "foot"},
        {"id": "foot_fl", "extension": "front_l", "role": "foot"},
        {"id": "m1", "voxel": [0, 1, 1], "node": 5, "role": "marker"},
        {"id": "m2", "voxel": [0, 0, 1], "node": 5, "role": "marker"},
    ],
    "mode": "gait",
    "dt": 0.05,
    "gait": {
        "type": "tripod", "lift": 0.004, "stride": 0.004, "period": 8, "order": ["foot_fr", "foot_fl"],
        "cycles": 1, "ground_tol": 0.0001,
    },
    "render": {"size": [320, 180]},
}


def pom_id(s):
    """`s` as a POM id: ids may hold no comma, dot or quote (the rest of the markup stays)."""
    return "".join(c for c in s if c not in ",.\"'")


def pom_spec(s):
    """The quadruped with one control and one marker named after `s`."""
    spec = json.loads(json.dumps(POM_QUADRUPED))
    spec["controls"][0]["id"] = pom_id(s)
    spec["effectors"][4]["id"] = pom_id(s)
    return spec


@pytest.mark.parametrize("s", HOSTILE, ids=IDS)
def test_pom_report_shows_hostile_ids_and_file_name_as_text(browser, tmp_path, s):
    spec = hostile_path(tmp_path / "in", s, ".json")
    spec.write_text(json.dumps(pom_spec(s)))
    out = tmp_path / "report"
    vsr2d("pom", spec, "-o", out, "--no-video")
    page = Opened(browser, out / "index.html")
    page.page.wait_for_selector("#verdict", state="attached", timeout=15000)
    # The title and heading name the spec file; the control and marker ids head the J table.
    assert page.page.title() == f"vsr2d pom: {spec}"
    assert text_of(page, "h1") == f"Planes of Motion: {spec}"
    headers = page.page.evaluate("[...document.querySelectorAll('th')].map((t) => t.textContent)")
    assert pom_id(s) in headers, headers
    assert_nothing_injected(page, scripts=0)
    page.close_report()


@pytest.mark.parametrize("s", HOSTILE, ids=IDS)
def test_study_report_and_its_viewer_show_a_hostile_directory_as_text(browser, tmp_path, s):
    root = hostile_path(tmp_path / "studies", s, "")
    vsr2d(
        "study", "evodevo", "--quick", "--runs", "1", "--pop", "4", "--generations", "1", "--duration", "1",
        "--no-video", "-q", "-o", root,
    )
    page = Opened(browser, root / "index.html")
    page.page.wait_for_selector("#verdict", state="attached", timeout=15000)
    codes = page.page.evaluate("[...document.querySelectorAll('code')].map((c) => c.textContent)")
    assert any(str(root) in c for c in codes), codes
    assert_nothing_injected(page, scripts=0)
    page.close_report()
    assert_viewer_beside_report_runs_nothing(browser, root / "viewer.html")


@pytest.mark.parametrize("s", HOSTILE, ids=IDS)
def test_cantilever_report_in_a_hostile_directory_shows_its_verdicts_and_runs_nothing(browser, tmp_path, s):
    # The report takes no free text (its material file's name does not reach the page), so what can go
    # wrong is the path it is written under and read from: the page and its beam viewer must still load.
    material = hostile_path(tmp_path / "in", s, ".json")
    material.write_text(json.dumps({"preset": "default"}))
    out = hostile_path(tmp_path / "out", s, "")
    vsr2d(
        "cantilever", "--sizes", "5x2", "--fs", "8", "--only", "static", "--duration", "1", "--no-reference",
        "--no-convergence", "--material", material, "-o", out, "-q",
    )
    page = Opened(browser, out / "index.html")
    page.page.wait_for_selector("#sanity-verdict", state="attached", timeout=15000)
    assert text_of(page, "h1") == "Cantilever characterization"
    assert "Physical sanity checks" in text_of(page, "#sanity-verdict")
    assert_nothing_injected(page, scripts=0)
    page.close_report()
    assert_viewer_beside_report_runs_nothing(browser, out / "beam.html")
