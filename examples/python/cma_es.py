"""CMA-ES (the `cma` package) over the biped's column phases, each generation evaluated in parallel by
vsr2d.evaluate_many. Skips with a message when `cma` is not installed (pip install cma).

Run: python examples/python/cma_es.py [GENERATIONS]
"""

import sys

try:
    import cma
except ImportError:
    print("skipped: this example needs the cma package (pip install cma)")
    sys.exit(0)

import vsr2d
from random_search import width, with_phases


def main(generations=10):
    es = cma.CMAEvolutionStrategy([0.0] * width, 1.0, {"seed": 1, "verbose": -9, "popsize": 12})
    for g in range(generations):
        candidates = es.ask()
        results = vsr2d.evaluate_many([with_phases(c) for c in candidates])
        # CMA-ES minimises: the negative speed, and an invalid gait is worst.
        losses = [-r["robots"][0]["x_velocity"] if "robots" in r else 1e9 for r in results]
        es.tell(candidates, losses)
        print(f"generation {g}: best {-min(losses):.3f} m/s")
    print(f"best found: {-es.result.fbest:.3f} m/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
