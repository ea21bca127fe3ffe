"""The pytest plugin vsr2d.testing (the `vsr2d_check` fixture and --vsr2d-update) in a temporary project
run by pytester, and vsr2d.compare / vsr2d.check: the same Rust code as `vsr2d check`, so the same
baselines, exit statuses and artefacts."""

import json
import pathlib
import shutil
import xml.etree.ElementTree as ET

import pytest

import vsr2d

pytest_plugins = ["pytester"]

ROOT = pathlib.Path(__file__).resolve().parents[2]
USER_REPO = ROOT / "tests" / "user-repo"

TEST_FILE = """
def test_worm(vsr2d_check):
    vsr2d_check("worm.json", baseline="baselines", duration=0.5, size="96x54",
                fields=[{"field": "x_distance", "abs": 1e-9}])
"""


def worm(amplitude=1.0):
    s = json.loads((USER_REPO / "scenarios" / "worm.json").read_text())
    for cell in s["robots"][0]["controller"]["cells"]:
        cell["function"]["amplitude"] = amplitude
    return json.dumps(s)


def test_the_plugin_is_registered_as_an_entry_point():
    from importlib.metadata import entry_points

    names = {e.name: e.value for e in entry_points(group="pytest11")}
    assert names.get("vsr2d") == "vsr2d.testing"


def test_the_plugin_fails_without_baseline_updates_passes_and_fails_with_artefacts(pytester):
    pytester.makefile(".json", worm=worm())
    pytester.makepyfile(test_robot=TEST_FILE)
    pytester.mkdir("baselines")

    missing = pytester.runpytest_subprocess()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*no baseline*", "*--vsr2d-update*"])

    pytester.runpytest_subprocess("--vsr2d-update").assert_outcomes(passed=1)
    base = pytester.path / "baselines"
    assert (base / "worm.png").is_file() and (base / "worm.json").is_file()
    record = json.loads((base / "worm.json").read_text())
    assert record["vsr2d_version"] == vsr2d.__version__ and record["images"] == ["worm.png"]
    pytester.runpytest_subprocess().assert_outcomes(passed=1)

    # The deliberate change: the robot moves less, the picture and the number change.
    pytester.makefile(".json", worm=worm(0.9))
    before = {p.name: p.read_bytes() for p in base.iterdir()}
    failed = pytester.runpytest_subprocess("--vsr2d-out", "artefacts")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*vsr2d check failed*", "*worm.png: * pixels differ*x_distance*"])
    out = pytester.path / "artefacts"
    for f in ["worm/expected.png", "worm/actual.png", "worm/diff.png", "worm-compare.png", "worm/numbers.md"]:
        assert (out / f).is_file(), f
    assert {p.name: p.read_bytes() for p in base.iterdir()} == before, "no --vsr2d-update: baselines untouched"

    pytester.runpytest_subprocess("--vsr2d-update").assert_outcomes(passed=1)
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


def test_check_returns_the_report_and_writes_junit_and_summary(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(USER_REPO, repo)
    manifest = repo / "vsr2d-check.json"
    report = vsr2d.check(manifest, repo / "baselines")
    assert report["exit_code"] == 0, report
    assert [c["status"] for c in report["cases"]] == ["pass", "pass"]

    biped = json.loads((repo / "scenarios" / "biped.json").read_text())
    for cell in biped["robots"][0]["controller"]["cells"]:
        cell["function"]["amplitude"] = 0.9
    (repo / "scenarios" / "biped.json").write_text(json.dumps(biped))
    report = vsr2d.check(
        manifest, repo / "baselines", out=tmp_path / "out", junit=tmp_path / "j.xml", summary=tmp_path / "s.md"
    )
    assert report["exit_code"] == 1
    biped = next(c for c in report["cases"] if c["name"] == "biped")
    assert biped["status"] == "fail" and biped["images"][0]["differing"] > 0
    tree = ET.parse(tmp_path / "j.xml")
    cases = tree.getroot().iter("testcase")
    failures = {c.get("name"): c.find("failure") for c in cases}
    assert set(failures) == {"biped", "worm"}
    assert failures["worm"] is None and "pixels differ" in failures["biped"].get("message")
    assert "| biped | ❌ fail |" in (tmp_path / "s.md").read_text()

    with pytest.raises(vsr2d.ScenarioError) as bad:
        vsr2d.check({"cases": [{"name": "a", "scenarios": ["x.json"], "size": "big"}]}, tmp_path / "b")
    assert bad.value.path == "cases[0].size" and "WIDTHxHEIGHT" in bad.value.message


def test_compare_counts_and_writes_a_composite(tmp_path):
    base = USER_REPO / "baselines"
    same = vsr2d.compare(base / "worm.png", base / "worm.png")
    assert same["match"] and same["differing"] == 0 and same["bbox"] is None
    other = vsr2d.compare(base / "biped.png", base / "worm.png", tolerance=8, budget="0.5%",
                          composite=tmp_path / "c.png")
    assert not other["match"] and other["differing"] > 0 and "sizes differ" in other["summary"]
    assert (tmp_path / "c.png").is_file()
