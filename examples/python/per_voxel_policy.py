"""Train one policy shared by every voxel of a worm (a homogeneous distributed controller, trained
from Python): each voxel observes its own sensors and the signals its four neighbours sent it at the
previous step, and outputs its actuation and the signals it sends them.

The policy is a linear layer + tanh (the distributed controller's network without a hidden layer),
trained by a (1 + 1) evolution strategy on the distance travelled. Run it from the repository root:

    python examples/python/per_voxel_policy.py

It prints the best reward per iteration and writes the trained controller as a scenario,
per_voxel_worm.json, that `vsr2d simulate per_voxel_worm.json` replays to the same distance, bit for
bit.
"""

import json
import math

import numpy as np

import vsr2d

SENSORS = {"default": [{"sensor": "area_ratio"}, {"sensor": "touching"}]}
SIGNALS = 1
SCENARIO = {"world": {"dt": 1 / 30, "duration": 5}, "robots": [{"label": "worm", "body": ["######"]}]}


def policy(weights, row):
    """One voxel's outputs: tanh of the weighted inputs (bias last), computed as the distributed
    controller computes them (terms added in input order, libm's tanh), so that the trained policy
    replays bit for bit as a controller."""
    inputs = list(row) + [1.0]
    outputs = []
    for k in range(weights.shape[1]):
        total = 0.0
        for i, a in enumerate(inputs):
            total += a * float(weights[i, k])
        outputs.append(math.tanh(total))
    return outputs


def episode(sim, weights):
    """Runs one episode with the shared policy; returns the distance travelled (m)."""
    obs = sim.reset()
    while not sim.finished:
        obs, info = sim.step(np.array([policy(weights, row) for row in obs]))
        if info["unstable"]:
            return -np.inf
    return sim.metrics()["robots"][0]["x_distance"]


def main(iterations=30, seed=0):
    sim = vsr2d.Simulation(SCENARIO, sensors=SENSORS, per_voxel={"signals": SIGNALS})
    voxels, inputs = sim.voxel_observation_shape
    _, outputs = sim.voxel_action_shape
    print(f"{voxels} voxels, each: {inputs} inputs + bias -> {outputs} outputs (one policy for all)")
    rng = np.random.default_rng(seed)
    best = rng.uniform(-1, 1, (inputs + 1, outputs))
    best_reward = episode(sim, best)
    for i in range(iterations):
        candidate = best + rng.normal(0, 0.3, best.shape)
        reward = episode(sim, candidate)
        if reward >= best_reward:
            best, best_reward = candidate, reward
        print(f"iteration {i + 1}: best distance {best_reward:.3f} m")
    # The same policy as a distributed controller: weights source-major, bias last (rows of `best`).
    scenario = json.loads(json.dumps(SCENARIO))
    scenario["robots"][0]["controller"] = {
        "type": "distributed",
        "sensors": SENSORS,
        "signals": SIGNALS,
        "weights": best.flatten().tolist(),
    }
    with open("per_voxel_worm.json", "w") as f:
        json.dump(scenario, f, indent=2)
    replayed = vsr2d.evaluate(scenario)["robots"][0]["x_distance"]
    print(f"wrote per_voxel_worm.json; as a distributed controller it travels {replayed:.3f} m")


if __name__ == "__main__":
    main()
