"""Every built-in algorithm from Python, and the representations for outside optimizers (issue 47 §5).

- `vsr2d.Evolution` drives `cma_es`, `nsga2` and `map_elites` experiments through ask/tell into run
  directories byte-identical to `vsr2d evolve`'s (all files but `timing.jsonl` and the pictures).
- `tell` checks every record before it records anything (issue 52): a bad one raises ValueError naming
  its index and leaves the generation asked.
- `vsr2d.Representation` decodes genomes to exactly the scenarios `vsr2d evolve` simulates, and reads
  a result's numbers as the experiments do.
"""

import json
import os
import pathlib
import pickle
import subprocess

import numpy as np
import pytest

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "fixtures" / "experiments"
NOT_COMPARED = {"timing.jsonl", "fitness.png", "best.mp4", "archive.png", "front.png"}


def binary():
    path = os.environ.get("VSR2D_BIN")
    assert path and os.path.exists(path), "set VSR2D_BIN to the vsr2d binary (cargo build) to compare with it"
    return path


def run_files(directory):
    directory = pathlib.Path(directory)
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name not in NOT_COMPARED
    }


def quick(name, generations=2, duration=5.0):
    """A quick fixture experiment with fewer generations and shorter simulations (CI time)."""
    experiment = json.loads((EXPERIMENTS / f"{name}-quick.json").read_text())
    experiment["algorithm"]["generations"] = generations
    experiment["scenario"]["world"]["duration"] = duration
    return experiment


def cli_evolve(experiment, out, tmp_path):
    path = tmp_path / f"{experiment['name']}.json"
    path.write_text(json.dumps(experiment))
    subprocess.run([binary(), "evolve", str(path), "-o", str(out), "--jobs", "2", "--no-media"], check=True, capture_output=True)
    return path


def decode_or_none(rep, genome):
    try:
        return rep.decode(genome)
    except vsr2d.ScenarioError as e:
        assert "empty body" in str(e)  # an invalid individual: nothing to simulate
        return None


ALGORITHMS = {"cma-es": "cma_es", "nsga2": "nsga2", "map-elites": "map_elites"}


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_ask_tell_writes_the_cli_run_byte_for_byte(name, tmp_path):
    experiment = quick(name)
    path = cli_evolve(experiment, tmp_path / "cli", tmp_path)
    expected = run_files(tmp_path / "cli")
    own_file = {"nsga2": "front.jsonl", "map-elites": "archive.jsonl"}.get(name)
    assert own_file is None or own_file in expected

    run = vsr2d.Evolution(path.read_text(), tmp_path / "py")
    assert run.algorithm == ALGORITHMS[name] and run.n_gen == 2
    assert run.asked_genomes() is None
    rep = run.representation
    while not run.finished:
        asked = run.ask()
        genomes = run.asked_genomes()
        assert genomes.shape[1] == rep.size
        # Every asked scenario is the decoding of an asked genome (the rest are cache hits).
        decoded = [decode_or_none(rep, g) for g in genomes]
        assert all(json.loads(a) in decoded for a in asked)
        run.tell(vsr2d.evaluate_many(asked, jobs=2, allow_large=True))
        assert run.asked_genomes() is None
    assert run_files(tmp_path / "py") == expected
    log = run.log()
    assert [g["gen"] for g in log] == [0, 1, 2]
    if name == "nsga2":
        assert log[-1]["hypervolume"] > 0 and len(log[-1]["objectives"]) == experiment["algorithm"]["population"]
    elif name == "map-elites":
        assert 0 < log[-1]["coverage"] <= 1 and log[-1]["hypervolume"] is None
    else:
        assert all(g["best"] is not None and len(g["best_genome"]) == rep.size for g in log)


def test_the_representation_decodes_to_what_evolve_simulated(tmp_path):
    # The archive's elites: their genomes decoded and evaluated here give the logged numbers, bit for bit.
    experiment = quick("map-elites", generations=1)
    cli_evolve(experiment, tmp_path / "cli", tmp_path)
    rep = vsr2d.Representation.from_experiment(experiment)
    elites = [json.loads(line) for line in (tmp_path / "cli" / "archive.jsonl").read_text().splitlines()]
    assert elites
    for elite in elites[:4]:
        scenario = rep.decode(np.array(elite["genome"]))
        assert scenario == elite["scenario"] == rep.decode(elite["genome"])
        result = vsr2d.evaluate(scenario)
        assert rep.fitness(result) == elite["fitness"]
        assert rep.descriptors(result) == elite["descriptors"]
        # The experiment's descriptors by name, and by JSON pointer.
        assert rep.descriptors(result, ["voxels", "/robots/0/morphology/elongation"]) == elite["descriptors"]


def test_representation_from_a_spec():
    rep = vsr2d.Representation(
        {"type": "mlp_weights", "body": "worm"},
        scenario={"world": {"duration": 2}, "task": {"type": "locomotion"}},
        name="w",
    )
    assert rep.size == 104 and rep.init_box == (-1.0, 1.0) and rep.type == "mlp_weights"
    assert rep.spec["features"] == "paper6" and "Representation(mlp_weights, size=104" in repr(rep)
    scenario = rep.decode(np.zeros(104))
    assert scenario["robots"][0]["label"] == "w" and scenario["world"]["duration"] == 2
    assert rep.decode([0.0] * 104) == scenario == rep.decode(np.zeros(104, dtype=np.float32))
    result = vsr2d.evaluate(scenario)
    assert rep.descriptors(result, ["x_velocity", "control_effort"]) == [
        result["robots"][0]["x_velocity"],
        result["robots"][0]["control_effort"],
    ]
    assert rep.fitness(result) == result["robots"][0]["relative_x_velocity"]  # the experiments' default
    assert rep.descriptors({"error": "lost"}, ["x_velocity"]) is None
    # JSON text works as well as a dict, and the object pickles (process pools, Ray).
    assert vsr2d.Representation('{"type": "phases", "body": "biped"}').size == 6
    again = pickle.loads(pickle.dumps(rep))
    assert again.size == 104 and again.decode(np.zeros(104)) == scenario


def test_objectives_are_read_as_nsga2_reads_them():
    rep = vsr2d.Representation.from_experiment(EXPERIMENTS / "nsga2-quick.json")
    result = vsr2d.evaluate(rep.decode(np.zeros(rep.size)))
    robot = result["robots"][0]
    assert rep.objectives(result) == [robot["x_velocity"], robot["control_effort"]]
    with pytest.raises(ValueError, match="not MAP-Elites"):
        rep.descriptors(result)


@pytest.mark.parametrize(
    "spec, scenario, path, fix",
    [
        ({"type": "phases", "body": "wrom"}, None, "representation.body", '"worm"'),
        ({"type": "phasez", "body": "worm"}, None, "representation", "gmm_body"),
        ({"type": "phases", "body": "worm", "init": [1, 0]}, None, "representation.init", "lo ≤ hi"),
        ({"type": "mlp_weights", "body": "worm", "hidden": [0]}, None, "representation.hidden[0]", "at least 1"),
        ({"type": "phases", "body": "worm"}, {"world": {"dt": -1}}, "representation", "`world.dt` = -1 is invalid"),
        ({"type": "phases", "body": "worm"}, {"wrold": {}}, "scenario", "wrold"),
    ],
)
def test_bad_specs_name_the_path_and_the_fix(spec, scenario, path, fix):
    with pytest.raises(vsr2d.ScenarioError) as e:
        vsr2d.Representation(spec, scenario=scenario)
    assert e.value.path.startswith(path) and fix in str(e.value), (e.value.path, str(e.value))


def test_bad_genomes_and_names_raise_value_errors():
    rep = vsr2d.Representation({"type": "phases", "body": "biped"})
    with pytest.raises(vsr2d.ScenarioError, match="5 genes but the representation needs 6") as e:
        rep.decode([0.0] * 5)
    assert e.value.path == "genome"
    with pytest.raises(vsr2d.ScenarioError, match="finite") as e:
        rep.decode([0.0, 0.0, float("nan"), 0.0, 0.0, 0.0])
    assert e.value.path == "genome[2]"
    with pytest.raises(ValueError, match="1-D"):
        rep.decode(np.zeros((2, 6)))
    for bad in ["000000", None, {"a": 1}, [0, "x", 0, 0, 0, 0]]:
        with pytest.raises(ValueError, match="genome"):
            rep.decode(bad)
    result = vsr2d.evaluate(rep.decode(np.zeros(6)))
    with pytest.raises(vsr2d.ScenarioError, match="not a metric of the `locomotion` task") as e:
        rep.descriptors(result, ["x_velocty"])
    assert e.value.path == "names[0]"
    # Pointers are checked against the result's schema, as an experiment's metrics are.
    with pytest.raises(vsr2d.ScenarioError, match='no "nope" at /robots/0') as e:
        rep.descriptors(result, ["x_velocity", "/robots/0/nope"])
    assert e.value.path == "names[1]"
    with pytest.raises(ValueError, match="label"):
        rep.descriptors(result, ["/robots/0/label"])
    with pytest.raises(ValueError, match="jumping"):
        rep.descriptors(result, ["/jumping/max_height"])
    assert rep.descriptors(result, ["/robots/0/morphology/voxels", "elongation"]) == [6, 0.5]
    for bad in [0.5, None, [], {}]:
        with pytest.raises(ValueError, match="result"):
            rep.descriptors(bad, ["x_velocity"])
    # A gmm_body genome of empty cells makes no robot: an invalid individual, said so.
    body = vsr2d.Representation({"type": "gmm_body", "w": 3, "h": 3})
    with pytest.raises(vsr2d.ScenarioError, match="empty body.*invalid individual"):
        body.decode(np.full(body.size, -10.0))


def deep(levels):
    value = {"robots": []}
    for _ in range(levels):
        value = {"robots": [], "nested": value}
    return value


BAD_RECORDS = {
    "a number": 0.5,
    "None": None,
    "a list": [1, 2],
    "an empty dict": {},
    "a deeply nested dict": deep(500),
    "robots that is not a list": {"robots": 3},
    "an error that is not text": {"error": 5},
    "JSON null text": "null",
    "text that is not JSON": "fast",
    "an integer too large for JSON": {"robots": [{"x_velocity": 10**400}]},
    "an object JSON cannot hold": {"robots": [{"x_velocity": object()}]},
    "a robot that is a number": {"robots": [1.0]},
    "a result without the fitness metric": {"robots": [{"label": "worm", "y_velocity": 0.1}]},
}


@pytest.mark.parametrize("what", sorted(BAD_RECORDS))
def test_tell_refuses_what_is_not_a_result_and_keeps_the_generation_asked(what, tmp_path):
    experiment = quick("cma-es", generations=1, duration=2.0)
    run = vsr2d.Evolution(experiment, tmp_path / "run")
    asked = run.ask()
    good = vsr2d.evaluate_many(asked, allow_large=True)
    bad = list(good)
    bad[1] = BAD_RECORDS[what]
    with pytest.raises(ValueError, match=r"results\[1\]"):
        run.tell(bad)
    assert run.generation is None and run.ask() == asked
    assert not (tmp_path / "run" / "checkpoint.json").exists()
    run.tell(good)
    assert run.generation == 0


def test_evolve_with_a_map_of_numbers_fails_and_loses_nothing(tmp_path):
    experiment = quick("nsga2", generations=1, duration=2.0)
    path = cli_evolve(experiment, tmp_path / "cli", tmp_path)
    with pytest.raises(ValueError, match=r"results\[0\]` is a float"):
        vsr2d.evolve(path, tmp_path / "run", map=lambda scenarios: [0.5] * len(scenarios))
    with pytest.raises(ValueError, match=r"results\[0\]"):
        vsr2d.evolve(path, tmp_path / "run", map=lambda scenarios: "not a list")
    log = vsr2d.evolve(path, tmp_path / "run", jobs=2)
    assert [g["gen"] for g in log] == [0, 1] and log[0]["invalid"] == 0
    assert run_files(tmp_path / "run") == run_files(tmp_path / "cli")
