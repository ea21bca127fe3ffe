"""MAP-Elites from pyribs (`pip install ribs`) over evolved bodies: CMA-ME, pyribs' covariance matrix
adaptation MAP-Elites (a GridArchive, two EvolutionStrategyEmitters, a Scheduler).

The bodies are those of fixtures/experiments/map-elites-quick.json: `vsr2d.Representation.
from_experiment` gives its decoder (`gmm_body`: a 5×5 body from Gaussian mixtures of the hard, soft,
active and counter-phased materials, 80 genes) and its fitness (relative_x_velocity, body lengths/s).
The archive's axes are two descriptors of each result, read by `Representation.descriptors` (by name,
as an experiment's descriptors; see docs/tasks.md): the body's size (`voxels`, a morphology descriptor)
and the fraction of the run it keeps a voxel on the ground (`ground_contact`: crawling or hopping). `vsr2d.evaluate_many`
simulates each batch in parallel in Rust.

Run: python examples/python/pyribs_map_elites.py [ITERATIONS]
"""

import json
import pathlib
import sys
import time

import numpy as np
from ribs.archives import GridArchive
from ribs.emitters import EvolutionStrategyEmitter
from ribs.schedulers import Scheduler

import vsr2d

ROOT = pathlib.Path(__file__).resolve().parents[2]
experiment = json.loads((ROOT / "fixtures" / "experiments" / "map-elites-quick.json").read_text())
experiment["scenario"]["world"]["duration"] = 5  # short runs: the example's minute on 2 cores
rep = vsr2d.Representation.from_experiment(experiment)
# The archive: 10 × 10 bins over the body's size (voxels, a morphology descriptor) and how much of the
# run it keeps a voxel on the ground (ground_contact, a behaviour descriptor: crawling or hopping).
axes = [
    {"metric": "voxels", "min": 0.5, "max": 25.5, "bins": 10},
    {"metric": "ground_contact", "min": 0.0, "max": 1.0, "bins": 10},
]
names = [a["metric"] for a in axes]
# Below every robot that moves: a body that makes no robot (all cells under the threshold) gets less,
# so it never enters the archive (pyribs needs a finite objective for every solution).
FLOOR = -1.0


def evaluate(genomes):
    """Fitness (relative x velocity, body lengths/s) and descriptors of each genome."""
    scenarios, index = [], []
    for i, genome in enumerate(genomes):
        try:
            scenarios.append(rep.decode(genome))
            index.append(i)
        except ValueError:  # an empty body: an invalid individual, as `vsr2d evolve` counts it
            pass
    objectives = np.full(len(genomes), FLOOR - 1.0)
    measures = np.array([[a["min"] for a in axes]] * len(genomes), dtype=float)
    for i, result in zip(index, vsr2d.evaluate_many(scenarios)):
        fitness, descriptors = rep.fitness(result), rep.descriptors(result, names)
        if fitness is not None and descriptors is not None:
            objectives[i], measures[i] = fitness, descriptors
    return objectives, measures


def main(iterations=12):
    start = time.perf_counter()
    archive = GridArchive(
        solution_dim=rep.size,
        dims=[a["bins"] for a in axes],
        ranges=[(a["min"], a["max"]) for a in axes],
        # learning_rate 1 with a threshold: MAP-Elites' rule (a bin takes a better elite) above FLOOR.
        learning_rate=1.0,
        threshold_min=FLOOR,
        qd_score_offset=FLOOR,
        seed=1,
    )
    lo, hi = rep.init_box  # (0, 1): where gmm_body genomes start (genes outside are fine too)
    emitters = [
        EvolutionStrategyEmitter(archive, x0=np.full(rep.size, (lo + hi) / 2), sigma0=0.2, batch_size=18, seed=s)
        for s in range(2)
    ]
    scheduler = Scheduler(archive, emitters)
    evaluations = 0
    for it in range(iterations):
        genomes = scheduler.ask()
        objectives, measures = evaluate(genomes)
        scheduler.tell(objectives, measures)
        evaluations += len(genomes)
        s = archive.stats
        print(f"iteration {it}: {s.num_elites} elites, coverage {s.coverage:.3f}, QD score {s.qd_score:.3f}, best {s.obj_max:.4f} BL/s")
    s = archive.stats
    print(f"{evaluations} evaluations in {time.perf_counter() - start:.1f} s")
    print(f"archive: {s.num_elites} of {archive.cells} bins filled, QD score {s.qd_score:.3f}, best {s.obj_max:.4f} BL/s")
    best = archive.best_elite
    voxels, contact = best["measures"]
    print(f"best elite: {voxels:.0f} voxels, ground contact {contact:.3f}, {best['objective']:.4f} BL/s, body:")
    for row in rep.decode(best["solution"])["robots"][0]["body"]:
        print("   ", row)
    return archive


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
