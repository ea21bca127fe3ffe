"""pytest plugin of vsr2d (registered as the ``pytest11`` entry point ``vsr2d``): golden images and golden
numbers of scenarios against a baseline directory, with the rules, files and artefacts of ``vsr2d check``
(the same Rust code runs; docs/golden-images.md).

In a test::

    def test_walker(vsr2d_check):
        vsr2d_check("scenarios/walker.json", baseline="baselines", duration=2,
                    fields=[{"field": "x_distance", "abs": 0.01}])

``vsr2d_check(scenario, baseline, name=None, **case)`` checks one scenario (a path or a dict) as one
manifest case (``name`` defaults to the file's stem; ``case`` holds any other field of a case: ``at``,
``filmstrip``, ``size``, ``camera``, ``tolerance``, ``fields``, ...); ``vsr2d_check.manifest(path,
baseline)`` checks every case of a manifest. A difference or a missing baseline fails the test with the
counts and where the expected, actual, difference and composite images are (``--vsr2d-out``, default
``vsr2d-check-out`` in pytest's rootdir). ``pytest --vsr2d-update`` writes missing baselines and replaces
those beyond tolerance instead. ``assert_matches_baseline`` is the same check without the fixture.
"""

import json
import os
import pathlib
import tempfile

import pytest

from . import check as _check


def pytest_addoption(parser):
    group = parser.getgroup("vsr2d")
    group.addoption(
        "--vsr2d-update",
        action="store_true",
        default=False,
        help="vsr2d_check: write missing baselines and replace those beyond tolerance instead of failing",
    )
    group.addoption(
        "--vsr2d-out",
        default=None,
        metavar="DIR",
        help="vsr2d_check: where failing checks write expected, actual, difference and composite images "
        "(default: vsr2d-check-out in the rootdir)",
    )


def _fail(report):
    failing = [c for c in report["cases"] if c["status"] in ("fail", "missing_baseline")]
    if not failing:
        return
    lines = []
    for c in failing:
        lines.append(f"{c['name']}: {c['message']}")
        lines.extend(f"  {a}" for a in c["artefacts"])
    if any(c["status"] == "missing_baseline" for c in failing):
        lines.append("run pytest with --vsr2d-update to write the baselines, look at them and commit them")
    raise AssertionError("vsr2d check failed:\n" + "\n".join(lines))


def assert_matches_baseline(scenario, baseline, *, name=None, update=False, out=None, **case):
    """Checks one scenario (a path, or a dict) against ``baseline`` as the manifest case ``{"name": name,
    "scenarios": [scenario], **case}``; raises ``AssertionError`` on a difference or a missing baseline
    (unless ``update``). Returns the report (``vsr2d.check``'s)."""
    with tempfile.TemporaryDirectory(prefix="vsr2d-check-") as scratch:
        if isinstance(scenario, dict):
            path = pathlib.Path(scratch) / f"{name or 'scenario'}.json"
            path.write_text(json.dumps(scenario))
        else:
            path = pathlib.Path(os.fspath(scenario)).resolve()
        manifest = {"cases": [{"name": name or path.stem, "scenarios": [str(path)], **case}]}
        report = _check(manifest, baseline, update=update, out=out)
    _fail(report)
    return report


class Vsr2dCheck:
    """The ``vsr2d_check`` fixture's value: call it with a scenario, or ``.manifest(path, baseline)``."""

    def __init__(self, update, out):
        self.update = update
        self.out = out

    def __call__(self, scenario, baseline, *, name=None, **case):
        return assert_matches_baseline(scenario, baseline, name=name, update=self.update, out=self.out, **case)

    def manifest(self, manifest, baseline, **options):
        report = _check(manifest, baseline, update=self.update, out=self.out, **options)
        _fail(report)
        return report


@pytest.fixture
def vsr2d_check(request):
    config = request.config
    out = config.getoption("--vsr2d-out") or str(pathlib.Path(str(config.rootpath)) / "vsr2d-check-out")
    return Vsr2dCheck(update=config.getoption("--vsr2d-update"), out=out)
