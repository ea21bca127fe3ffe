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
