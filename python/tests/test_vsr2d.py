"""Tests of the Python package against the command line (`vsr2d simulate`) and the library's own
guarantees: same metrics bit for bit, per-item errors, step-by-step runs equal to the Rust run of the
same controller, errors with their JSON path, the Gymnasium checker, frames that show a robot."""

import copy
import json
import math
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures" / "scenarios").glob("*.json"))
# Short runs: the comparison is of bits, which a 60 s run does not make more equal.
DURATION = 5.0


def binary():
    """The vsr2d command line the package is compared with (scripts/test.sh sets VSR2D_BIN)."""
    path = os.environ.get("VSR2D_BIN") or shutil.which("vsr2d")
    assert path and os.path.exists(path), "set VSR2D_BIN to the vsr2d binary (cargo build) to compare with it"
    return path


def load(path, duration=DURATION):
    scenario = json.loads(pathlib.Path(path).read_text())
    scenario.setdefault("world", {})["duration"] = duration
    return scenario


def test_fixtures_exist():
    assert len(FIXTURES) >= 6, FIXTURES


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_evaluate_equals_simulate_bit_for_bit(fixture):
    cli = subprocess.run(
        [binary(), "simulate", str(fixture), "--duration", str(DURATION)], check=True, capture_output=True, text=True
    )
    expected = json.loads(cli.stdout)
    got = vsr2d.evaluate(load(fixture))
    assert got == expected
    # Paths and JSON text are scenarios too (here at the fixture's own 60 s, so only the shape).
    assert vsr2d.evaluate(json.dumps(load(fixture)))["robots"] == expected["robots"]


def test_evaluate_accepts_a_path():
    path = ROOT / "fixtures" / "scenarios" / "worm.json"
    by_path = vsr2d.evaluate(path)
    assert by_path == vsr2d.evaluate(str(path)) == vsr2d.evaluate(load(path, duration=60))
    assert by_path["robots"][0]["duration"] == 60.0


def test_evaluate_many_keeps_order_and_returns_errors_per_item():
    good = [load(f) for f in FIXTURES[:3]]
    bad = copy.deepcopy(good[0])
    bad["world"]["dt"] = -1
    unknown = {"robots": [{"body": ["#"], "colour": "red"}]}
    results = vsr2d.evaluate_many([good[0], bad, good[1], unknown, good[2]], jobs=2)
    assert len(results) == 5
    for i, g in zip([0, 2, 4], good):
        assert results[i] == vsr2d.evaluate(g)
    assert results[1]["path"] == "world.dt" and "dt" in results[1]["error"]
    assert results[3]["path"] == "robots[0].colour" and "colour" in results[3]["error"]
    # The same answers whatever the number of threads.
    assert vsr2d.evaluate_many([good[0], bad, good[1], unknown, good[2]], jobs=1) == results


def test_bad_scenario_raises_with_its_path():
    scenario = load(FIXTURES[0])
    scenario["robots"][0]["body"] = ["#x#"]
    with pytest.raises(vsr2d.ScenarioError) as e:
        vsr2d.evaluate(scenario)
    assert e.value.path == "robots[0].body[0]"
    assert "'x'" in e.value.message and "column 1" in e.value.message
    assert isinstance(e.value, ValueError)
    with pytest.raises(vsr2d.ScenarioError) as e:
        vsr2d.Simulation({"world": {"gravity": [0, -1e9]}, "robots": [{"body": ["#"]}]})
    assert e.value.path == "world.gravity[1]"


def test_schema_describes_scenarios():
    schema = vsr2d.schema()
    assert {"world", "robots", "task"} <= set(schema["properties"])
    cli = subprocess.run([binary(), "schema"], check=True, capture_output=True, text=True)
    assert json.loads(cli.stdout) == schema


def constant(value, body):
    return {
        "world": {"duration": 2.0},
        "robots": [
            {
                "body": body,
                "controller": {"type": "time_functions", "default": {"type": "constant", "value": value}},
            }
        ],
    }


def test_constant_actions_reproduce_the_rust_run_bit_for_bit():
    body = ["####", "#..#"]
    reference = vsr2d.evaluate(constant(0.7, body))
    sim = vsr2d.Simulation(constant(0.0, body))  # the scenario's controller is replaced
    obs = sim.reset()
    assert sim.action_size == 6 and obs.shape == (sim.observation_size,)
    calls = 0
    while not sim.finished:
        obs, info = sim.step(np.full(sim.action_size, 0.7))
        calls += 1
    # The default control interval is 1: the controller runs every second physics step.
    assert info["step"] == sim.total_steps == 120 and calls == 60
    assert info["t"] == pytest.approx(2.0) and info["finished"] and info["unstable"] is None
    assert sim.metrics() == reference
    with pytest.raises(RuntimeError):
        sim.step(np.zeros(6))


def test_step_checks_actions_and_observes_sensors():
    sim = vsr2d.Simulation(constant(0.0, ["###"]))
    with pytest.raises(ValueError, match="expected 3 control values"):
        sim.step([0.0, 0.0])
    obs = sim.reset()
    # Every sensor of every voxel, then t: 3 × 8 + 1; area ratios start at 1.
    assert obs.shape == (25,) and obs[-1] == 0.0
    assert obs[0] == pytest.approx(1.0, abs=1e-6)
    obs, info = sim.step([1.0, 1.0, 1.0])
    assert obs[-1] == info["t"] > 0
    # A layout of one feature per voxel.
    sim = vsr2d.Simulation(constant(0.0, ["###"]), sensors={"default": [{"sensor": "touching"}]})
    assert sim.observation_size == 4


def test_snapshot_is_plain_data_and_renders():
    sim = vsr2d.Simulation(load(ROOT / "fixtures" / "scenarios" / "biped.json"))
    sim.reset()
    for _ in range(10):
        sim.step(np.zeros(sim.action_size))
    snap = sim.snapshot()
    json.dumps(snap)  # plain data
    assert snap["step"] == 20 and len(snap["bodies"]) == 1
    frame = vsr2d.render_frame(snap, width=320, height=180)
    assert frame.shape == (180, 320, 3) and frame.dtype == np.uint8
    # Not blank: many distinct colours (sky, ground, the robot's voxels, the overlay).
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 20
    live = sim.render(width=320, height=180)
    assert live.shape == (180, 320, 3) and live.std() > 10


def test_render_writes_png_gif_and_mp4(tmp_path):
    scenario = load(ROOT / "fixtures" / "scenarios" / "worm.json", duration=1.0)
    runs = vsr2d.render([scenario, scenario], tmp_path / "two.png", size=(320, 180), layout="1x2", at=0.5)
    assert len(runs) == 2
    assert (tmp_path / "two.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    vsr2d.render(scenario, tmp_path / "clip.gif", size=(160, 90), fps=10)
    assert (tmp_path / "clip.gif").read_bytes()[:6] == b"GIF89a"
    vsr2d.render(scenario, str(tmp_path / "clip.mp4"), size=(160, 90), fps=10)
    assert (tmp_path / "clip.mp4").stat().st_size > 1000
    with pytest.raises(ValueError, match="unknown output format"):
        vsr2d.render(scenario, tmp_path / "clip.avi")


def test_write_video_from_frames(tmp_path):
    sim = vsr2d.Simulation(load(ROOT / "fixtures" / "scenarios" / "worm.json", duration=0.5))
    sim.reset()
    frames = [sim.render(width=160, height=90)]
    while not sim.finished:
        sim.step(np.ones(sim.action_size))
        frames.append(sim.render(width=160, height=90))
    assert vsr2d.write_video(frames, tmp_path / "run.gif", fps=30) == len(frames) == 16
    with pytest.raises(ValueError):
        vsr2d.write_video([np.zeros((4, 4), np.uint8)], tmp_path / "bad.gif")


def test_gymnasium_env_passes_the_checker():
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from vsr2d.gym import Locomotion

    env = Locomotion(load(ROOT / "fixtures" / "scenarios" / "worm.json", duration=1.0), render_mode="rgb_array")
    check_env(env, skip_render_check=False)
    obs, info = env.reset(seed=3)
    x0 = info["x"]
    total, steps = 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and steps == 30 and info["step"] == 60
    # The rewards add up to the distance travelled.
    assert total == pytest.approx(info["x"][0] - x0, abs=1e-9) and total != 0.0
    assert env.render().shape == (360, 640, 3)
    assert isinstance(env.observation_space, gymnasium.spaces.Box)


def test_evolve_from_python(tmp_path):
    experiment = json.loads((ROOT / "fixtures" / "experiments" / "worm-phases-quick.json").read_text())
    log = vsr2d.evolve(experiment, tmp_path / "run", jobs=2)
    assert [g["gen"] for g in log] == list(range(experiment["ea"]["n_gen"] + 1))
    assert log[-1]["best"] > log[0]["best"]
    assert (tmp_path / "run" / "best.json").exists()
    # The best individual is a scenario the package evaluates to the logged fitness.
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert vsr2d.evaluate(best)["robots"][0]["relative_x_velocity"] == log[-1]["best"]


def test_task_env_rewards_add_up_to_the_tasks_metric():
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from vsr2d.gym import Task

    env = Task(load(ROOT / "fixtures" / "scenarios" / "jumping.json", duration=1.0))
    check_env(env)
    assert env.reward == "/jumping/max_height" and env.sim.task == "jumping"
    obs, info = env.reset()
    start = info["/jumping/max_height"]
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(np.ones(env.action_space.shape))
        total += reward
        if terminated or truncated:
            break
    # The rewards add up to the metric's final value minus its value at t = 0, which is the result's.
    final = env.sim.metrics()["jumping"]["max_height"]
    assert total == pytest.approx(final - start, abs=1e-9)
    assert final >= start
    # A task without metrics of its own needs the number named.
    with pytest.raises(ValueError, match="no default reward"):
        Task(load(ROOT / "fixtures" / "scenarios" / "cells-connect.json", duration=1.0))
    # A reward pointer that names nothing, or no number, is refused when the env is made, with the path.
    jumping = load(ROOT / "fixtures" / "scenarios" / "jumping.json", duration=1.0)
    for pointer, message in [
        ("/jumping/no_such_metric", "has no 'no_such_metric' at /jumping"),
        ("/robots/-1/x_velocity", "without sign or leading zeros"),
        ("/robots/01/x_velocity", "without sign or leading zeros"),
        ("/robots/0/label", "not a number"),
        ("robots/0/x_velocity", "must be a JSON pointer"),
    ]:
        with pytest.raises(ValueError, match=message):
            Task(jumping, reward=pointer)
    assert Task(jumping, reward="/robots/0/x_velocity").reward == "/robots/0/x_velocity"


def test_per_voxel_policy_reproduces_the_distributed_controller():
    """A numpy network applied to every row of the per-voxel observation, its outputs as the actions,
    drives the worm exactly as the same network inside a distributed controller does."""
    example = json.loads((ROOT / "docs" / "examples" / "distributed-worm.json").read_text())
    example["world"]["duration"] = 3
    reference = vsr2d.evaluate(example)
    controller = example["robots"][0]["controller"]
    w = controller["weights"]  # source-major: input i (bias last) to each of the 5 outputs

    def network(row):
        # The Rust network's arithmetic: terms added in input order, then libm's tanh (numpy's matmul
        # and tanh may round differently).
        inputs = list(row) + [1.0]
        return [math.tanh(sum_in_order(a * w[i * 5 + k] for i, a in enumerate(inputs))) for k in range(5)]

    sim = vsr2d.Simulation(example, sensors=controller["sensors"], per_voxel={"signals": 1})
    assert sim.voxel_observation_shape == (6, 2 + 4) and sim.voxel_action_shape == (6, 1 + 4)
    obs = sim.reset()
    assert obs.shape == (6, 6) and not obs[:, 2:].any(), "no signal before the first step"
    while not sim.finished:
        obs, info = sim.step(np.array([network(row) for row in obs]))
    assert sim.metrics() == reference


def sum_in_order(terms):
    total = 0.0
    for t in terms:
        total += t
    return total


def test_per_voxel_setting_and_actions_are_checked():
    sim = vsr2d.Simulation(constant(0.0, ["###"]), per_voxel={"signals": 2, "directional": False})
    # Every sensor's reading per voxel (8) + 4 × 2 signals in; actuation + 2 signals out.
    assert sim.voxel_observation_shape == (3, 16) and sim.voxel_action_shape == (3, 3)
    with pytest.raises(ValueError, match=r"shape \(3, 3\).*got \(3, 2\)"):
        sim.step(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="got \\(3, 2\\)"):
        sim.step([[0.0, 0.0]] * 3)
    # The transposed shape holds as many numbers; read in memory order it would run, wrongly.
    sim4 = vsr2d.Simulation(constant(0.0, ["####"]), per_voxel={"signals": 2, "directional": False})
    with pytest.raises(ValueError, match=r"got \(3, 4\); transposed\? pass actions.T"):
        sim4.step(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="rows of different lengths"):
        sim.step([[0.0, 0.0, 0.0], [0.0], [0.0, 0.0, 0.0]])
    obs, _ = sim.step(np.array([[0.0, 1.0, -1.0], [0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]))
    # The middle voxel hears its W neighbour (voxel 0) and its E neighbour (voxel 2).
    assert obs[1, 8:].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0]
    assert obs[0, 8:].tolist() == [0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(vsr2d.ScenarioError) as e:
        vsr2d.Simulation(constant(0.0, ["###"]), per_voxel={"signals": -1})
    assert e.value.path == "per_voxel.signals"


def test_evolve_a_distributed_controller_from_python(tmp_path):
    experiment = {
        "name": "tiny-distributed",
        "seed": 2,
        "ea": {"n_pop": 4, "n_gen": 1, "tournament": 2},
        "representation": {"type": "distributed_heterogeneous", "body": "worm", "features": "paper6"},
        "scenario": {"world": {"dt": 1 / 30, "duration": 1}},
    }
    log = vsr2d.evolve(experiment, tmp_path / "run", jobs=1)
    # Worm: 4 voxels × (6 + 4 + 1) × 5 weights.
    assert len(log[-1]["best_genome"]) == 4 * 55
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["robots"][0]["controller"]["type"] == "distributed"
    assert vsr2d.evaluate(best)["robots"][0]["relative_x_velocity"] == log[-1]["best"]


GYM_NAMES = {
    "vsr2d/Locomotion-v0": "biped.json",
    "vsr2d/Jumping-v0": "jumping.json",
    "vsr2d/Carrying-v0": "carrying.json",
    "vsr2d/Pushing-v0": "pushing.json",
    "vsr2d/Climbing-v0": "climbing.json",
    "vsr2d/Balancing-v0": "balancing.json",
    "vsr2d/Shape-v0": "shape.json",
}


@pytest.mark.parametrize("name", sorted(GYM_NAMES))
def test_registered_environments_start_from_the_tasks_fixture_and_pass_the_checker(name):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    # `import vsr2d` registered them: one name per task, each on its fixture.
    env = gymnasium.make(name)
    fixture = json.loads((ROOT / "fixtures" / "scenarios" / GYM_NAMES[name]).read_text())
    assert env.unwrapped.sim.scenario == vsr2d.Simulation(fixture).scenario
    check_env(env.unwrapped)
    space = env.observation_space
    # Bounded where the sensors are: every sensor's reading per voxel (8 each), then t in [0, duration].
    low, high = space.low, space.high
    voxels = env.action_space.shape[0]
    assert space.shape == (8 * voxels + 1,)
    per_voxel_low = np.tile([0, 0, -np.inf, -np.inf, -np.pi, -np.inf, -np.inf, 0], voxels)
    per_voxel_high = np.tile([np.inf, np.inf, np.inf, np.inf, np.pi, np.inf, np.inf, 1], voxels)
    assert np.array_equal(low[:-1], per_voxel_low) and np.array_equal(high[:-1], per_voxel_high)
    assert low[-1] == 0 and high[-1] == pytest.approx(fixture["world"]["duration"], rel=1e-9)
    assert (env.action_space.low == -1).all() and (env.action_space.high == 1).all()
    # A random policy's observations stay inside (a physical check of the bounds, not of the checker).
    env.reset(seed=1)
    for _ in range(60):
        obs, *_ = env.step(env.action_space.sample())
        assert space.contains(obs), obs[(obs < low) | (obs > high)]


def test_registered_environments_take_a_scenario():
    gymnasium = pytest.importorskip("gymnasium")
    env = gymnasium.make("vsr2d/Locomotion-v0", scenario=load(ROOT / "fixtures" / "scenarios" / "worm.json", 1.0))
    assert env.unwrapped.sim.labels == vsr2d.Simulation(load(ROOT / "fixtures" / "scenarios" / "worm.json")).labels
    with pytest.raises(ValueError, match="give a scenario, or a task"):
        vsr2d.gym.Task()
