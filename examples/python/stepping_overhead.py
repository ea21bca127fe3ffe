"""How much stepping from Python costs: physics steps per second of the 10×3 worm on uneven terrain
driven by vsr2d.Simulation.step from a Python loop (numpy actions, an observation back every step),
against the same run inside Rust (vsr2d.evaluate with a constant controller: the same bits).

Run: python examples/python/stepping_overhead.py [SECONDS]
"""

import json
import pathlib
import sys
import time

import numpy as np

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main(duration=60.0, repeats=3):
    scenario = json.loads((ROOT / "fixtures" / "scenarios" / "worm-10x3-uneven.json").read_text())
    scenario["world"]["duration"] = duration
    scenario["robots"][0]["controller"] = {
        "type": "time_functions",
        "default": {"type": "constant", "value": 0.5},
    }
    best_rust = best_py = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        reference = vsr2d.evaluate(scenario)
        best_rust = min(best_rust, time.perf_counter() - start)

        start = time.perf_counter()
        sim = vsr2d.Simulation(scenario)
        sim.reset()
        actions = np.full(sim.action_size, 0.5)
        while not sim.finished:
            obs, info = sim.step(actions)
        best_py = min(best_py, time.perf_counter() - start)
        assert sim.metrics() == reference, "the Python-driven run must equal the Rust run"
    steps = sim.total_steps
    print(f"10x3 worm, {duration:g} s = {steps} physics steps, {steps // 2} Simulation.step calls (control interval 1)")
    print(f"Rust loop (vsr2d.evaluate):      {steps / best_rust:9.0f} steps/s  ({best_rust:.3f} s)")
    print(f"Python loop (Simulation.step):   {steps / best_py:9.0f} steps/s  ({best_py:.3f} s)")
    print(f"Python / Rust: {best_rust / best_py:.2f}  (best of {repeats}; identical metrics)")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
