"""The optimizer examples of examples/python/ run unmodified with the real pycma, pyribs and pymoo
(scripts/test-python.sh installs them) and find something: the output's numbers are checked, not only
the exit code."""

import pathlib
import re
import subprocess
import sys

import pytest

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


def docs_blocks():
    """The Python blocks of docs/python.md's optimizer section, in order."""
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## Optimizers:", 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]


def run_block(block, tmp_path):
    """Runs a docs block as a script where the docs run it: the repository's root (here, a directory
    with `fixtures/` beside it, so the run directories it writes stay in tmp_path)."""
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    (tmp_path / "block.py").write_text(block)
    out = subprocess.run([sys.executable, "block.py"], cwd=tmp_path, check=True, capture_output=True, text=True, timeout=600)
    print(out.stdout)
    return out.stdout


def quoted(block):
    """The output a block quotes in its `#   ` comment lines."""
    return [line.strip()[1:].strip() for line in block.splitlines() if line.strip().startswith("#   ")]


def test_the_docs_ask_tell_block_runs_and_prints_what_it_quotes(tmp_path):
    (block,) = [b for b in docs_blocks() if "vsr2d.Evolution(" in b]
    out = run_block(block, tmp_path)
    assert out.splitlines() == quoted(block)
    assert (tmp_path / "map-elites-run" / "archive.jsonl").exists()


def test_the_docs_representation_block_runs(tmp_path):
    (block,) = [b for b in docs_blocks() if "vsr2d.Representation(" in b]
    lines = run_block(block, tmp_path).splitlines()
    assert lines[0] == "104 (-1.0, 1.0)" and lines[2].startswith("80 [")


def test_the_docs_evosax_recipe_runs_where_evosax_is_installed(tmp_path):
    # Not in CI (JAX is not installed there): run by hand with evosax 0.3.2, which printed what it quotes.
    pytest.importorskip("evosax")
    (block,) = [b for b in docs_blocks() if "evosax" in b]
    lines = run_block(block, tmp_path).splitlines()
    first, last = quoted(block)[0].split("...")[0:3:2]
    assert lines[0].startswith(first.strip()) and lines[-1].startswith(last.strip()), lines
