"""CMA-ES from pycma (`pip install cma`) on the paper's MLP controller of the worm.

`vsr2d.Representation` is the genome → scenario decoder of `vsr2d evolve` (here `mlp_weights`: the 104
weights of the worm's centralised MLP, features "paper6"), so pycma searches the paper's encoding with
nothing re-implemented; `vsr2d.evaluate_many` simulates each generation in parallel in Rust.

Run: python examples/python/pycma_mlp.py [GENERATIONS]
"""

import sys
import time

import cma
import numpy as np

import vsr2d

rep = vsr2d.Representation(
    {"type": "mlp_weights", "body": "worm"},
    # 5 s runs at the paper's Δt = 1/30 s on flat ground, measured from t0 = 1 s (a fall is not a gait).
    scenario={
        "world": {"dt": 1 / 30, "duration": 5, "solver_iterations": 8, "terrain": {"type": "flat"}},
        "task": {"type": "locomotion", "transient": 1},
    },
    fitness={"metric": "x_velocity", "goal": "max"},
)


def main(generations=20):
    start = time.perf_counter()
    lo, hi = rep.init_box  # (-1, 1) for MLP weights
    es = cma.CMAEvolutionStrategy(
        np.full(rep.size, (lo + hi) / 2), (hi - lo) / 4, {"seed": 1, "popsize": 16, "verbose": -9}
    )
    first = None
    for g in range(generations):
        genomes = es.ask()
        results = vsr2d.evaluate_many([rep.decode(x) for x in genomes])
        speeds = [rep.fitness(r) for r in results]  # m/s; None for a run that failed
        # pycma minimises: the negative speed, and a failed run is worst.
        es.tell(genomes, [-v if v is not None else 1e3 for v in speeds])
        valid = [v for v in speeds if v is not None]
        first = max(valid) if first is None else first
        print(f"generation {g}: best {max(valid):.4f} m/s, median {np.median(valid):.4f} m/s")
    best = -es.result.fbest
    print(f"{rep.size} weights, {es.result.evaluations} evaluations in {time.perf_counter() - start:.1f} s")
    print(f"best of generation 0: {first:.4f} m/s; best found: {best:.4f} m/s")
    return first, best


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
