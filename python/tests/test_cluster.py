"""Evolution evaluated anywhere (issue 36): ask/tell, `evolve(map=...)`, and a real local Ray cluster.

The reference is always the `vsr2d evolve` command line: every run directory written through Python
must be the same bytes (all files but `timing.jsonl`, which holds wall-clock seconds, and the command
line's pictures `fitness.png` and `best.mp4`).
"""

import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import pytest
import ray  # scripts/test-python.sh installs it: these tests run on a real cluster

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "fixtures" / "experiments" / "worm-phases-quick.json"
FIXTURES = sorted((ROOT / "fixtures" / "scenarios").glob("*.json"))
# Long enough to exercise every fixture's controller and task, short enough for CI.
DURATION = 2.0


def binary():
    path = os.environ.get("VSR2D_BIN")
    assert path and os.path.exists(path), "set VSR2D_BIN to the vsr2d binary (cargo build) to compare with it"
    return path


# Not the run's record: wall-clock seconds, and the command line's pictures for people.
NOT_COMPARED = {"timing.jsonl", "fitness.png", "archive.png", "front.png", "best.mp4"}


def run_files(directory):
    """Every file of a run directory but those NOT_COMPARED, by relative path."""
    directory = pathlib.Path(directory)
    files = {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name not in NOT_COMPARED
    }
    assert {"log.jsonl", "checkpoint.json", "best.json", "final_population.jsonl", "experiment.json"} <= set(files)
    return files


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "run"
    subprocess.run(
        [binary(), "evolve", str(EXPERIMENT), "-o", str(out), "--jobs", "2", "--no-media"], check=True, capture_output=True
    )
    return run_files(out)


def one_by_one(scenarios):
    """A map that evaluates in this process, one scenario at a time, in reverse order."""
    results = {i: vsr2d.evaluate_many([s], jobs=1, allow_large=True)[0] for i, s in reversed(list(enumerate(scenarios)))}
    return [results[i] for i in range(len(scenarios))]


def evaluate_one(scenario):
    return vsr2d.evaluate_many([scenario], jobs=1, allow_large=True)[0]


def test_evolve_with_any_map_writes_the_cli_run_byte_for_byte(cli_run, tmp_path):
    log = vsr2d.evolve(EXPERIMENT, tmp_path / "default")
    assert run_files(tmp_path / "default") == cli_run
    assert [g["gen"] for g in log] == list(range(json.loads(EXPERIMENT.read_text())["ea"]["n_gen"] + 1))
    vsr2d.evolve(EXPERIMENT, tmp_path / "serial", map=one_by_one)
    assert run_files(tmp_path / "serial") == cli_run


def docs_blocks():
    """The Python blocks of docs/clusters.md, in order."""
    text = (ROOT / "docs" / "clusters.md").read_text()
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def run_doc_block(block, tmp_path):
    """Runs a docs block as a script where the docs assume it runs: next to `fixtures/`."""
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    script = tmp_path / "block.py"
    script.write_text(block)
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, check=True, capture_output=True, text=True)


def test_the_docs_executor_recipe_writes_the_cli_run(cli_run, tmp_path):
    (block,) = [b for b in docs_blocks() if "ProcessPoolExecutor" in b]
    out = run_doc_block(block, tmp_path)
    assert run_files(tmp_path / "pool-run") == cli_run
    assert float(out.stdout.split()[-1]) == json.loads(cli_run["log.jsonl"].splitlines()[-1])["best"]


def test_the_docs_slurm_array_merges_to_the_unsharded_eval(tmp_path):
    # Each array task is the script with Slurm's variables set; then the merge line of the docs.
    text = (ROOT / "docs" / "clusters.md").read_text()
    (script,) = [b.split("```", 1)[0] for b in text.split("```sh\n")[1:] if "--array=0-9" in b]
    merge = text.split("then merge by `line`:\n`", 1)[1].split("`.", 1)[0]
    jobs = [{"id": p.stem, "scenario": short(p)} for p in FIXTURES[:12]]
    (tmp_path / "jobs.jsonl").write_text("".join(json.dumps(j) + "\n" for j in jobs))
    env = dict(os.environ, PATH=f"{pathlib.Path(binary()).parent}:{os.environ['PATH']}", SLURM_CPUS_PER_TASK="1")
    for task in range(10):
        subprocess.run(["bash", "-c", script], cwd=tmp_path, check=True, env=dict(env, SLURM_ARRAY_TASK_ID=str(task)))
    subprocess.run(["bash", "-c", merge], cwd=tmp_path, check=True, env=env)
    subprocess.run(
        [binary(), "eval", "--input", "jobs.jsonl", "--output", "whole.jsonl", "--quiet"], cwd=tmp_path, check=True
    )
    assert (tmp_path / "results.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == len(jobs)


def test_ask_tell_stopped_and_resumed_equals_one_run(cli_run, tmp_path):
    run = vsr2d.Evolution(EXPERIMENT, tmp_path / "run")
    assert run.generation is None and not run.finished
    first = run.ask()
    assert first and all(isinstance(s, str) and s.startswith("{") for s in first)
    assert run.ask() == first  # asking again before telling gives the same scenarios
    with pytest.raises(ValueError, match="records for"):
        run.tell([])
    done = run.tell(vsr2d.evaluate_many(first, allow_large=True))
    assert done["generation"] == 0 and run.generation == 0
    for _ in range(3):
        run.tell(vsr2d.evaluate_many(run.ask(), allow_large=True))
    assert run.generation == 3
    pending = run.ask()  # a process that dies between ask and tell: the generation is asked again
    del run
    resumed = vsr2d.Evolution(EXPERIMENT, tmp_path / "run")
    assert resumed.generation == 3 and resumed.ask() == pending
    while not resumed.finished:
        resumed.tell(vsr2d.evaluate_many(resumed.ask(), allow_large=True))
    assert run_files(tmp_path / "run") == cli_run
    with pytest.raises(RuntimeError, match="finished"):
        resumed.ask()
    assert [g["gen"] for g in resumed.log()] == list(range(resumed.n_gen + 1))


def test_an_error_record_is_an_invalid_individual(tmp_path):
    run = vsr2d.Evolution(EXPERIMENT, tmp_path / "run")
    asked = run.ask()
    records = vsr2d.evaluate_many(asked, allow_large=True)
    records[0] = {"error": "lost on a node", "path": None}
    run.tell(records)
    log = run.log()
    assert log[0]["invalid"] >= 1 and log[0]["invalid_reasons"]["lost on a node"] >= 1


def test_without_ray_the_package_imports_and_vsr2d_ray_says_how_to_install():
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "import vsr2d\n"
        "try:\n    import vsr2d.ray\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert 'pip install "vsr2d[ray]"' in out


# --- A real Ray cluster, started the way a user starts one -------------------------------------------



@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    ray_cli = pathlib.Path(sys.executable).parent / "ray"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    subprocess.run([str(ray_cli), "stop", "--force"], capture_output=True, env=env)
    subprocess.run(
        [str(ray_cli), "start", "--head", "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats"],
        check=True,
        capture_output=True,
        env=env,
    )
    ray.init(address="auto", log_to_driver=False)
    yield
    ray.shutdown()
    subprocess.run([str(ray_cli), "stop", "--force"], capture_output=True, env=env)


def test_the_docs_ray_driver_runs_on_the_cluster(cluster, cli_run, tmp_path):
    (block,) = [b for b in docs_blocks() if "RayEvaluator" in b]
    out = run_doc_block(block, tmp_path)
    assert run_files(tmp_path / "ray-run") == cli_run
    velocity, best = map(float, out.stdout.split()[-2:])
    assert velocity == vsr2d.evaluate(ROOT / "fixtures" / "scenarios" / "worm.json")["robots"][0]["x_velocity"]
    assert best == json.loads(cli_run["log.jsonl"].splitlines()[-1])["best"]


def short(path):
    scenario = json.loads(path.read_text())
    scenario.setdefault("world", {})["duration"] = DURATION
    return scenario


def test_ray_results_equal_local_results_bit_for_bit(cluster):
    from vsr2d.ray import RayEvaluator

    scenarios = [short(p) for p in FIXTURES] + [{"robots": "not a list"}]
    local = vsr2d.evaluate_many(scenarios)
    with RayEvaluator(cpus_per_worker=1, chunk_size=3) as ev:
        assert len(ev.workers) == 2
        assert ev.map(scenarios) == local
    assert "error" in local[-1] and "path" in local[-1]
    assert sum("error" in r for r in local) == 1


def test_evolve_on_ray_writes_the_cli_run_byte_for_byte(cluster, cli_run, tmp_path):
    from vsr2d.ray import RayEvaluator

    with RayEvaluator(chunk_size=2) as ev:
        assert len(ev.workers) == 1  # one actor for the node's two CPUs
        vsr2d.evolve(EXPERIMENT, tmp_path / "run", map=ev)
    assert run_files(tmp_path / "run") == cli_run


@pytest.mark.parametrize("name", ["cma-es", "nsga2", "map-elites"])
def test_every_algorithm_on_ray_writes_the_cli_run_byte_for_byte(cluster, tmp_path, name):
    from vsr2d.ray import RayEvaluator

    experiment = json.loads((ROOT / "fixtures" / "experiments" / f"{name}-quick.json").read_text())
    experiment["algorithm"]["generations"] = 2
    path = tmp_path / "experiment.json"
    path.write_text(json.dumps(experiment))
    subprocess.run(
        [binary(), "evolve", str(path), "-o", str(tmp_path / "cli"), "--jobs", "2", "--no-media"],
        check=True,
        capture_output=True,
    )
    with RayEvaluator(chunk_size=4) as ev:
        vsr2d.evolve(path, tmp_path / "ray", map=ev)
    assert run_files(tmp_path / "ray") == run_files(tmp_path / "cli")


def test_a_killed_actor_loses_no_result(cluster):
    from vsr2d.ray import RayEvaluator, _worm

    # The paper's 12x3 worm for 10 s: about a tenth of a second per evaluation, one per chunk, so the
    # victim is busy when it is killed.
    scenarios = [_worm(12, 10.0 + 0.25 * k) for k in range(32)]
    expected = vsr2d.evaluate_many(scenarios)
    with RayEvaluator(cpus_per_worker=1, chunk_size=1) as ev:
        ev.map(scenarios[:2])  # both actors started
        victim = ev.workers[0]
        killer = threading.Timer(0.5, lambda: ray.kill(victim))
        killer.start()
        started = time.perf_counter()
        got = ev.map(scenarios)
        elapsed = time.perf_counter() - started
        killer.join()
        assert ev.retried_chunks >= 1, f"no chunk was lost: the map took {elapsed:.2f} s, the kill came at 0.5 s"
        assert victim not in ev.workers and len(ev.workers) == 2
        assert got == expected
