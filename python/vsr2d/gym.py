"""A Gymnasium environment over ``vsr2d.Simulation``: locomotion of one voxel robot.

Observation: the robot's sensor features (its MLP controller's layout, or every sensor's current
reading per voxel, or the ``sensors`` layout given), then the simulated time. Action: one control value
per voxel in [-1, 1] (grid order, bottom row first). Reward: the distance the robot's centre moved
along x during the step, in metres. An unstable simulation terminates the episode; the scenario's
duration truncates it. ``render_mode="rgb_array"`` returns frames drawn by vsr2d's renderer.

Gymnasium is an optional dependency: ``pip install gymnasium`` (or the package's ``gym`` extra).
"""

from __future__ import annotations

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - exercised only without gymnasium
    raise ImportError("vsr2d.gym needs Gymnasium: pip install gymnasium (or vsr2d[gym])") from e

from . import Simulation


class Locomotion(gymnasium.Env):
    """Move one voxel robot as far as possible along +x.

    ``scenario`` is a dict, a JSON string or a path, as everywhere in vsr2d; it must hold exactly one
    robot. ``reset(seed=...)`` also gives a random terrain (uneven, hilly, steppy) that seed (a new
    terrain per episode).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, scenario, *, sensors=None, render_mode=None, width=640, height=360):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported; use 'rgb_array' or None")
        self.sim = Simulation(scenario, sensors=sensors)
        if len(self.sim.labels) != 1:
            raise ValueError(
                f"Locomotion drives one robot; the scenario has {len(self.sim.labels)} "
                "(use vsr2d.Simulation for several)"
            )
        self.render_mode = render_mode
        self.width, self.height = width, height
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(self.sim.observation_size,), dtype=np.float64)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(self.sim.action_size,), dtype=np.float64)
        self._x = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs = self.sim.reset(seed=seed)
        self._x = self.sim.x[0]
        return obs, {"t": self.sim.time, "x": self._x}

    def step(self, action):
        obs, info = self.sim.step(np.asarray(action, dtype=np.float64).ravel())
        x = info["x"][0]
        reward = float(x - self._x) if np.isfinite(x) else 0.0
        self._x = x
        terminated = info["unstable"] is not None
        truncated = info["finished"] and not terminated
        return obs, reward, terminated, truncated, info

    def render(self):
        if self.render_mode == "rgb_array":
            return self.sim.render(width=self.width, height=self.height)
        return None
