"""NSGA-II from pymoo (`pip install pymoo`) on speed against control effort: a pymoo `Problem` whose
`_evaluate` decodes the population with `vsr2d.Representation` and simulates it with
`vsr2d.evaluate_many` (parallel in Rust).

The objectives are those of fixtures/experiments/nsga2-quick.json (x_velocity, maximised;
control_effort, the mean squared actuation, minimised), read from each result by
`Representation.objectives`. The genome is the worm's MLP controller (`mlp_weights`, 104 weights)
instead of nsga2-quick's biped phases: its actuation's size is evolved, so effort trades off with
speed.

Run: python examples/python/pymoo_nsga2.py [GENERATIONS]
"""

import json
import pathlib
import sys
import time

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.core.problem import Problem
from pymoo.indicators.hv import HV
from pymoo.optimize import minimize

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
experiment = json.loads((ROOT / "fixtures" / "experiments" / "nsga2-quick.json").read_text())
experiment["representation"] = {"type": "mlp_weights", "body": "worm"}
experiment["scenario"]["world"]["duration"] = 5  # short runs: the example's minute on 2 cores
rep = vsr2d.Representation.from_experiment(experiment)
# pymoo minimises: (−x_velocity, control_effort); a failed run is worst in both.
WORST = [1e3, 1e3]
# Hypervolume up to 0 m/s and effort 1 (|actuation| ≤ 1): what is forward and not the most costly.
hypervolume = HV(ref_point=np.array([0.0, 1.0]))


class SpeedAndEffort(Problem):
    def __init__(self):
        lo, hi = rep.init_box
        super().__init__(n_var=rep.size, n_obj=2, xl=lo, xu=hi)

    def _evaluate(self, X, out, *args, **kwargs):
        results = vsr2d.evaluate_many([rep.decode(x) for x in X])
        objectives = [rep.objectives(r) for r in results]  # [x_velocity, control_effort], None if failed
        out["F"] = np.array([[-o[0], o[1]] if o is not None else WORST for o in objectives])


def main(generations=25):
    start = time.perf_counter()
    fronts = []  # the non-dominated set after each generation
    res = minimize(
        SpeedAndEffort(),
        NSGA2(pop_size=40),
        ("n_gen", generations),
        seed=1,
        callback=lambda algorithm: fronts.append(algorithm.opt.get("F")),
    )
    first, final = fronts[0], res.F
    print(f"{res.algorithm.evaluator.n_eval} evaluations in {time.perf_counter() - start:.1f} s")
    print(f"generation 0: front of {len(first)}, fastest {-first[:, 0].min():.4f} m/s, hypervolume {hypervolume(first):.4f}")
    print(f"final: front of {len(final)}, fastest {-final[:, 0].min():.4f} m/s, hypervolume {hypervolume(final):.4f}")
    print("final front (x_velocity m/s, control_effort):")
    for f in sorted(final.tolist()):
        print(f"    {-f[0]:8.4f}  {f[1]:.4f}")
    return first, final


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 25)
