"""The optimizer examples of examples/python/ run unmodified with the real pycma, pyribs and pymoo
(scripts/test-python.sh installs them) and find something: the output's numbers are checked, not only
the exit code."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"


def run(name, tmp_path):
    """Runs an example as a user would (from another directory) and returns its output."""
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], cwd=tmp_path, check=True, capture_output=True, text=True, timeout=600
    )
    print(out.stdout)
    return out.stdout


def number(pattern, text):
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in the output:\n{text}"
    return float(match.group(1))


def test_pycma_improves_the_worms_mlp(tmp_path):
    out = run("pycma_mlp.py", tmp_path)
    first = number(r"best of generation 0: ([-\d.]+) m/s", out)
    best = number(r"best found: ([-\d.]+) m/s", out)
    assert number(r"(\d+) evaluations", out) == 20 * 16
    assert best > first + 0.2, (first, best)


def test_pyribs_fills_the_archive(tmp_path):
    out = run("pyribs_map_elites.py", tmp_path)
    first = number(r"iteration 0: (\d+) elites", out)
    filled = number(r"archive: (\d+) of 100 bins filled", out)
    first_qd = number(r"iteration 0: .*QD score ([-\d.]+)", out)
    qd = number(r"bins filled, QD score ([-\d.]+)", out)
    assert filled >= 50 and filled > first + 20 and qd > first_qd, (first, filled, first_qd, qd)
    assert "body:" in out


def test_pymoo_finds_a_front_of_speed_against_effort(tmp_path):
    out = run("pymoo_nsga2.py", tmp_path)
    first = number(r"generation 0: .*hypervolume ([\d.]+)", out)
    final = number(r"final: .*hypervolume ([\d.]+)", out)
    size = number(r"final: front of (\d+)", out)
    assert final > first * 1.5 and size >= 5, (first, final, size)
    # The front itself: faster costs more effort, member by member.
    rows = [tuple(map(float, line.split())) for line in out.split("control_effort):\n", 1)[1].splitlines() if line.strip()]
    assert len(rows) == size
    speeds, efforts = zip(*rows)
    assert list(speeds) == sorted(speeds, reverse=True) and list(efforts) == sorted(efforts, reverse=True)
