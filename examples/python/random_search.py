"""Random search over the biped's gait phases with vsr2d.evaluate_many (parallel in Rust).

The biped's controller gives each foot sin(2πt + φ); here each column's phase φ is drawn at random
and the best of N gaits is kept. Run: python examples/python/random_search.py [N]
"""

import copy
import json
import math
import pathlib
import random
import sys

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
base = json.loads((ROOT / "fixtures" / "scenarios" / "biped.json").read_text())
base["world"]["duration"] = 10.0
robot = base["robots"][0]
width = max(len(row) for row in robot["body"])


def with_phases(phases):
    """The biped with one sine phase per column (every voxel of column x gets phases[x])."""
    scenario = copy.deepcopy(base)
    rows = robot["body"]
    cells = [
        {"cell": [x, len(rows) - 1 - r], "function": {"type": "sin", "amplitude": 1, "frequency": 1, "phase": phases[x]}}
        for r, row in enumerate(rows)  # rows are written top first; cells count y from the bottom
        for x, c in enumerate(row)
        if c not in ". "
    ]
    scenario["robots"][0]["controller"] = {"type": "time_functions", "cells": cells}
    return scenario


def main(n=32, seed=1):
    rng = random.Random(seed)
    candidates = [[rng.uniform(-math.pi, math.pi) for _ in range(width)] for _ in range(n)]
    results = vsr2d.evaluate_many([with_phases(c) for c in candidates])
    scored = []
    for phases, result in zip(candidates, results):
        if "error" in result:
            print("invalid:", result["error"])
            continue
        scored.append((result["robots"][0]["x_velocity"], phases))
    scored.sort(reverse=True)
    best_v, best = scored[0]
    print(f"best of {n}: {best_v:.3f} m/s with phases {[round(p, 2) for p in best]}")
    print(f"median: {scored[len(scored) // 2][0]:.3f} m/s")
    return best_v


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 32)
