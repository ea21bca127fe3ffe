"""Hostile input to the Python package: every case raises an exception (ValueError or its
ScenarioError subclass), never a segfault, an abort or a hang."""

import json
import math

import pytest

import vsr2d

WORM = {"robots": [{"body": ["####"]}], "world": {"duration": 0.1}}
EXPERIMENT = {
    "ea": {"n_pop": 4, "n_gen": 1, "tournament": 2},
    "representation": {"type": "phases", "body": "worm"},
    "scenario": {"world": {"dt": 1 / 30, "duration": 0.5}},
}


def test_a_self_referential_dict_is_refused():
    d = {"robots": [{"body": ["#"]}]}
    d["world"] = d
    with pytest.raises(ValueError, match="nested deeper"):
        vsr2d.evaluate(d)


def test_a_very_deep_list_is_refused():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested deeper"):
        vsr2d.evaluate({"robots": deep})
    # evaluate_many gives each item its own error record instead of raising.
    (record,) = vsr2d.evaluate_many([{"robots": deep}])
    assert "nested deeper" in record["error"]


def test_a_small_object_that_shares_one_list_everywhere_is_refused_not_expanded():
    shared = [0.0]
    for _ in range(40):
        shared = [shared, shared]  # 2**40 leaves when expanded
    with pytest.raises(ValueError, match="more than"):
        vsr2d.evaluate({"robots": [{"body": ["#"]}], "x": shared})


def test_a_deep_json_string_is_refused():
    text = '{"robots": ' + "[" * 10_000 + "]" * 10_000 + "}"
    with pytest.raises(ValueError):
        vsr2d.evaluate(text)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e308, "fast", None, [1, 2], {"a": 1}])
def test_nan_huge_and_wrong_types_give_scenario_errors(value):
    scenario = json.loads(json.dumps(WORM))
    scenario["world"]["dt"] = value
    with pytest.raises(ValueError):
        vsr2d.evaluate(scenario)


def test_evolve_refuses_a_population_over_the_limits_unless_allow_large(tmp_path):
    huge = json.loads(json.dumps(EXPERIMENT))
    huge["ea"]["n_pop"] = 10**12
    with pytest.raises(ValueError, match="ea.n_pop"):
        vsr2d.evolve(huge, tmp_path / "run")
    assert not (tmp_path / "run").exists(), "refused before anything is written"


@pytest.mark.parametrize("jobs", [0, 10**6, 2**63])
def test_thread_counts_are_capped(tmp_path, jobs):
    with pytest.raises((ValueError, OverflowError)):
        vsr2d.evolve(EXPERIMENT, tmp_path / "run", jobs=jobs)
    with pytest.raises((ValueError, OverflowError)):
        vsr2d.evaluate_many([WORM], jobs=jobs)


def test_evolve_refuses_a_directory_of_other_files_untouched(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="untouched"):
        vsr2d.evolve(EXPERIMENT, tmp_path, jobs=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_non_finite_init_boxes_and_oversized_tournaments_are_refused(tmp_path):
    bad = json.loads(json.dumps(EXPERIMENT))
    bad["representation"]["init"] = [-1e308, 1e308]
    with pytest.raises(ValueError, match="init"):
        vsr2d.evolve(bad, tmp_path / "a")
    bad = json.loads(json.dumps(EXPERIMENT))
    bad["ea"]["tournament"] = 5
    with pytest.raises(ValueError, match="tournament"):
        vsr2d.evolve(bad, tmp_path / "b")


@pytest.mark.parametrize("size", [(100_000, 100_000), (0, 10), (16_385, 2)])
def test_frame_sizes_are_checked_before_anything_is_allocated(size):
    sim = vsr2d.Simulation(WORM)
    with pytest.raises(ValueError, match="pixels each way"):
        sim.render(width=size[0], height=size[1])
    with pytest.raises(ValueError, match="pixels each way"):
        vsr2d.render_frame(sim.snapshot(), width=size[0], height=size[1])


def test_two_threads_stepping_one_simulation_are_serialised_not_deadlocked():
    import threading

    import numpy as np

    scenario = {"robots": [{"body": ["####"]}], "world": {"duration": 5}}
    sim = vsr2d.Simulation(scenario)
    sim.reset()
    steps = {"a": 0, "b": 0}
    errors = []

    def drive(name):
        try:
            for _ in range(60):
                if sim.finished:
                    break
                sim.step(np.zeros(sim.action_size))
                steps[name] += 1
        except Exception as e:  # noqa: BLE001 - the test reports anything
            errors.append(e)

    threads = [threading.Thread(target=drive, args=(n,)) for n in steps]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "deadlock"
    assert not errors, errors
    one = vsr2d.Simulation(scenario)
    one.reset()
    one.step(np.zeros(one.action_size))
    per_call = one.step_index  # physics steps per control step
    assert steps["a"] + steps["b"] == 120
    assert sim.step_index == per_call * 120, "every call ran once, one after the other"


def test_ctrl_c_interrupts_a_long_evaluation_within_seconds():
    import _thread
    import threading
    import time

    long = {"robots": [{"body": ["#####"] * 5}], "world": {"duration": 100_000}}
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        vsr2d.evaluate(long, allow_large=True)
    timer.cancel()
    assert time.monotonic() - start < 30, "the interrupt was honoured while Rust simulated"


def test_ctrl_c_interrupts_a_long_render_and_leaves_no_file(tmp_path):
    import _thread
    import threading
    import time

    # 600 s of a worm at 30 fps: 18 000 frames, minutes of drawing and encoding.
    long = {"robots": [{"body": ["#####"]}], "world": {"duration": 600}}
    out = tmp_path / "long.gif"
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        vsr2d.render(long, out, size=(320, 180))
    timer.cancel()
    assert time.monotonic() - start < 20, "the interrupt was honoured between frames"
    assert not out.exists(), "an unfinished video is not published"


def _interrupted_within(call, after, limit):
    """Runs `call` with Ctrl-C (SIGINT to the main thread) `after` seconds in; asserts it raises
    KeyboardInterrupt and returns within `limit` seconds of starting."""
    import _thread
    import threading
    import time

    timer = threading.Timer(after, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        call()
    timer.cancel()
    elapsed = time.monotonic() - start
    assert elapsed < limit, f"the interrupt took {elapsed:.1f} s to be honoured"


# 6 000 s of a worm: 360 000 steps to simulate before a late frame, minutes of work.
LONG_WORM = {"robots": [{"body": ["#####"]}], "world": {"duration": 6000}}


def test_ctrl_c_interrupts_a_png_of_a_late_frame_and_leaves_no_file(tmp_path):
    out = tmp_path / "late.png"
    _interrupted_within(lambda: vsr2d.render(LONG_WORM, out, size=(320, 180), at=5990), 1.0, 20)
    assert not out.exists()


def test_ctrl_c_interrupts_a_long_view_and_leaves_no_file(tmp_path):
    out = tmp_path / "long.html"
    _interrupted_within(lambda: vsr2d.view(LONG_WORM, out, allow_large=True), 1.0, 20)
    assert not out.exists()


def test_ctrl_c_interrupts_write_video_and_leaves_no_file(tmp_path):
    # Noise compresses badly: 240 frames of 640 × 360 take seconds to encode as a GIF.
    import numpy as np

    rng = np.random.default_rng(1)
    frames = [rng.integers(0, 256, size=(360, 640, 3), dtype=np.uint8) for _ in range(240)]
    out = tmp_path / "noise.gif"
    _interrupted_within(lambda: vsr2d.write_video(frames, out), 0.5, 20)
    assert not out.exists()


def test_renders_and_soft_cell_scenarios_over_the_limits_are_refused_before_any_work(tmp_path):
    # 10⁵ s at 30 fps and 640 × 360: 3·10⁶ frames × 230 400 pixels = 6.9·10¹¹ pixels × frames (limit 5·10¹⁰).
    long = {"robots": [{"body": ["####"]}], "world": {"duration": 100_000}}
    with pytest.raises(ValueError, match="pixels × frames"):
        vsr2d.render(long, tmp_path / "x.mp4")
    assert not (tmp_path / "x.mp4").exists()
    # 1 001 cells of 100 bodies: 100 100 membrane bodies (limit 10⁵).
    cells = [{"id": f"c{i}", "type": "c", "position": [30 + (i % 50) * 12.0, 6 + 12 * (i // 50)]} for i in range(1001)]
    big = {"cell_types": {"c": {"preset": "scs-paper"}}, "cells": cells, "task": {"type": "free"}}
    with pytest.raises(ValueError, match="soft-cell membrane bodies"):
        vsr2d.evaluate(big)


def test_ctrl_c_interrupts_a_long_evolve_within_seconds(tmp_path):
    import _thread
    import threading
    import time

    # Each individual simulates 10⁴ s: a generation takes minutes.
    slow = dict(EXPERIMENT, scenario={"world": {"dt": 1 / 30, "duration": 10_000}})
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        vsr2d.evolve(slow, tmp_path / "run", jobs=2)
    timer.cancel()
    assert time.monotonic() - start < 20, "the interrupt was honoured inside the generation's evaluations"


def test_an_output_that_names_an_input_is_refused_and_the_input_kept(tmp_path):
    scenario = tmp_path / "worm.json"
    scenario.write_text(json.dumps(WORM))
    link = tmp_path / "link.json"
    link.symlink_to(scenario)
    # A scenario file named like a picture: render's output format is chosen by the extension.
    picture = tmp_path / "worm.png"
    picture.write_text(json.dumps(WORM))
    (tmp_path / "sub").mkdir()
    for call in (
        lambda: vsr2d.view(str(scenario), str(scenario)),
        lambda: vsr2d.view([WORM, str(scenario)], str(link)),
        lambda: vsr2d.render(str(picture), str(tmp_path / "sub" / ".." / "worm.png")),
    ):
        with pytest.raises(ValueError, match="replace that input"):
            call()
        assert json.loads(scenario.read_text()) == WORM
        assert json.loads(picture.read_text()) == WORM


def test_a_numpy_array_where_a_list_belongs_is_refused_with_its_path_and_the_fix():
    np = pytest.importorskip("numpy")
    scenario = {"robots": [{"body": np.array([[1, 1, 1], [1, 0, 1]])}], "world": {"duration": 0.1}}
    with pytest.raises(ValueError, match=r"`robots\[0\]\.body` is a numpy array.*tolist.*rows top first"):
        vsr2d.evaluate(scenario)


def test_a_run_directory_that_is_a_file_is_refused_with_its_path(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    with pytest.raises(ValueError, match=f"{afile}.*it is a file"):
        vsr2d.Evolution(EXPERIMENT, str(afile))
    assert afile.read_text() == "mine"
    # A new directory is created by the run.
    run = vsr2d.Evolution(EXPERIMENT, str(tmp_path / "new" / "run"))
    assert run.generation is None and (tmp_path / "new" / "run" / "experiment.json").is_file()


# ---------------------------------------------------------------------------------------------------
# Stepping: seeded hostile actions to Simulation.step (one value per voxel, or per voxel rows) and to the
# Gymnasium environments. The contract (docs/python.md): values are numbers, clipped to [-1, 1], NaN read
# as 0 (so NaN, infinities and huge values are accepted); any other shape or type is a ValueError that
# says what was expected, and the refused call does not advance the simulation.

STEP_WORM = {"robots": [{"body": ["####"]}], "world": {"duration": 0.5}}


def _central_action(rng, n):
    """A hostile action for `n` voxels: (name, action, accepted by the contract)."""
    import numpy as np

    kind = int(rng.integers(0, 20))
    good = rng.uniform(-1, 1, n)
    if kind == 0:
        return "NaN", np.full(n, np.nan), True
    if kind == 1:
        return "infinities", rng.choice([np.inf, -np.inf], n), True
    if kind == 2:
        return "huge", rng.choice([1e308, -1e308, 1e300], n), True
    if kind == 3:
        return "float32", good.astype(np.float32), True
    if kind == 4:
        return "int64", rng.integers(-5, 5, n), True
    if kind == 5:
        return "python list", good.tolist(), True
    if kind == 6:
        return "strided view", np.repeat(good, 2)[::2], True
    if kind == 7:
        return "object array of numbers", np.array(good.tolist(), dtype=object), True
    if kind == 8:
        return "one too few", good[:-1], False
    if kind == 9:
        return "one too many", np.append(good, 0.0), False
    if kind == 10:
        return "empty", np.zeros(0), False
    if kind == 11:
        return "2-D row", good.reshape(1, n), False
    if kind == 12:
        return "2-D column (transposed)", good.reshape(n, 1), False
    if kind == 13:
        return "ragged", [[0.0], [0.0, 1.0]] + [[0.0]] * (n - 2), False
    if kind == 14:
        return "strings", ["0.5"] * n, False
    if kind == 15:
        return "object array with None", np.array([None] + good.tolist()[1:], dtype=object), False
    if kind == 16:
        return "complex", good.astype(np.complex128) * 1j, False
    if kind == 17:
        return "dict", {i: 0.0 for i in range(n)}, False
    if kind == 18:
        return "scalar", 0.5, False
    return "None", None, False


def _voxel_action(rng, shape):
    """A hostile per-voxel action for `shape` = (voxels, outputs): (name, action, accepted)."""
    import numpy as np

    voxels, outputs = shape
    good = rng.uniform(-1, 1, shape)
    kind = int(rng.integers(0, 17))
    if kind == 0:
        bad = good.copy()
        bad[:, 0] = np.nan
        return "NaN actuation", bad, True
    if kind == 1:
        return "huge values", rng.choice([-1e308, 1e308], shape), True
    if kind == 2:
        return "float32", good.astype(np.float32), True
    if kind == 3:
        return "nested lists", good.tolist(), True
    if kind == 4:
        return "strided view", np.repeat(good, 2, axis=1)[:, ::2], True
    if kind == 5:
        return "object array of numbers", np.array(good.tolist(), dtype=object), True
    if kind == 6:
        return "transposed", good.T, False
    if kind == 7:
        return "flattened (1-D)", good.ravel(), False
    if kind == 8:
        return "ragged", [row[: 1 + i % outputs] for i, row in enumerate(good.tolist())], False
    if kind == 9:
        return "one row too few", good[:-1], False
    if kind == 10:
        return "one column too many", np.hstack([good, good[:, :1]]), False
    if kind == 11:
        return "3-D", good[None], False
    if kind == 12:
        return "strings", [["x"] * outputs] * voxels, False
    if kind == 13:
        return "object array with None", np.array([[None] * outputs] * voxels, dtype=object), False
    if kind == 14:
        return "complex", good.astype(np.complex128) * 1j, False
    if kind == 15:
        return "None", None, False
    bad = good.copy()
    bad[int(rng.integers(0, voxels)), int(rng.integers(1, outputs))] = rng.choice([np.nan, np.inf, -np.inf])
    return "non-finite signal", bad, False


def _drive(sim, make_action, cases, expect_in_message):
    """Steps `sim` with `cases` seeded hostile actions; returns (accepted, refused) by kind."""
    import numpy as np

    rng = np.random.default_rng(52)
    accepted, refused = {}, {}
    for case in range(cases):
        if sim.finished:
            sim.reset()
        name, action, ok = make_action(rng)
        before = sim.step_index
        if ok:
            obs, info = sim.step(action)
            assert info["unstable"] is None, f"case {case} ({name}): {info['unstable']}"
            assert np.all(np.isfinite(np.asarray(obs, dtype=np.float64))), f"case {case} ({name}): {obs}"
            assert sim.step_index > before
            accepted[name] = accepted.get(name, 0) + 1
        else:
            with pytest.raises(ValueError) as e:
                sim.step(action)
            expected = "signals reach the neighbours" if name == "non-finite signal" else expect_in_message
            assert expected in str(e.value), f"case {case} ({name}): {e.value}"
            assert sim.step_index == before, f"case {case} ({name}): a refused action advanced the run"
            refused[name] = refused.get(name, 0) + 1
    print(f"{cases} cases: {sum(accepted.values())} accepted {accepted}, {sum(refused.values())} refused {refused}")
    return accepted, refused


def test_seeded_hostile_actions_are_refused_with_the_expected_count_or_read_as_documented():
    sim = vsr2d.Simulation(STEP_WORM)
    sim.reset()
    n = sim.action_size
    accepted, refused = _drive(sim, lambda rng: _central_action(rng, n), 300, f"{n} control values")
    assert len(accepted) == 8 and len(refused) == 12, "every kind is drawn"
    # NaN is read as 0 and values are clipped to [-1, 1]: the same run, bit for bit.
    import numpy as np

    runs = []
    for action in (np.full(n, np.nan), np.zeros(n), np.full(n, 1e308), np.ones(n)):
        sim.reset()
        for _ in range(5):
            obs, _ = sim.step(action)
        runs.append(obs.tolist())
    assert runs[0] == runs[1] and runs[2] == runs[3]


def test_seeded_hostile_per_voxel_actions_are_refused_with_the_shape_or_read_as_documented():
    sim = vsr2d.Simulation(STEP_WORM, per_voxel={"signals": 1, "directional": True})
    sim.reset()
    shape = sim.voxel_action_shape
    assert shape == (4, 5)
    accepted, refused = _drive(sim, lambda rng: _voxel_action(rng, shape), 300, f"shape {shape}")
    assert len(accepted) == 6 and len(refused) == 11, "every kind is drawn"
    import numpy as np

    with pytest.raises(ValueError, match=r"transposed\? pass actions\.T"):
        sim.step(np.zeros(shape).T)
    with pytest.raises(ValueError, match=r"1-D sequence of 20 numbers; reshape it to \(4, 5\)"):
        sim.step(np.zeros(20))


def test_seeded_hostile_actions_to_the_gymnasium_environments():
    pytest.importorskip("gymnasium")
    import numpy as np

    import vsr2d.gym

    rng = np.random.default_rng(7)
    counts = {"accepted": 0, "refused": 0}
    for env in (vsr2d.gym.Locomotion(STEP_WORM), vsr2d.gym.Task(task="carrying")):
        env.reset(seed=1)
        n = env.action_space.shape[0]
        for case in range(100):
            name, action, _ = _central_action(rng, n)
            # The environments take anything numpy reads as n numbers (a (1, n) row, a list, None as NaN).
            # (Complex numbers are refused, not cast with numpy's warning.)
            try:
                array = np.asarray(action)
                flat = None if array.dtype.kind == "c" else np.asarray(array, dtype=np.float64).ravel()
            except (ValueError, TypeError):
                flat = None
            before = env.sim.step_index
            if flat is not None and flat.size == n:
                obs, reward, terminated, truncated, info = env.step(action)
                assert np.isfinite(reward) and not terminated, f"case {case} ({name})"
                counts["accepted"] += 1
                if truncated:
                    env.reset()
            else:
                with pytest.raises((ValueError, TypeError)):
                    env.step(action)
                assert env.sim.step_index == before, f"case {case} ({name})"
                counts["refused"] += 1
        env.close()
        with pytest.raises(RuntimeError, match="closed"):
            env.step(np.zeros(n))
        with pytest.raises(RuntimeError, match="closed"):
            env.reset()
        env.close()  # closing twice is allowed
    print(f"200 gymnasium cases: {counts}")
    assert counts["accepted"] > 40 and counts["refused"] > 40, counts


def test_stepping_past_the_end_says_reset():
    import numpy as np

    sim = vsr2d.Simulation(STEP_WORM)
    sim.reset()
    while not sim.finished:
        sim.step(np.zeros(sim.action_size))
    with pytest.raises(RuntimeError, match="reset it"):
        sim.step(np.zeros(sim.action_size))
    sim.reset()
    sim.step(np.zeros(sim.action_size))
