"""Gymnasium environments over ``vsr2d.Simulation``: ``Locomotion`` of one voxel robot, and ``Task`` for
any task (jumping, carrying, ...), rewarded by the change of one number of the run's result.

Observation: the robot's sensor features (its MLP controller's layout, or every sensor's current
reading per voxel, or the ``sensors`` layout given), then the simulated time, in a Box bounded by what
each sensor can report (``Simulation.observation_bounds``: angles in [-pi, pi], touching in [0, 1],
area ratios and speeds >= 0, velocities unbounded; t in [0, duration]). Action: one control value per
voxel in [-1, 1] (grid order, bottom row first). Reward: the distance the robot's centre moved along x
during the step, in metres. An unstable simulation terminates the episode; the scenario's duration
truncates it. ``render_mode="rgb_array"`` returns frames drawn by vsr2d's renderer.

Registered names (``gymnasium.make`` after ``import vsr2d``): ``vsr2d/Locomotion-v0`` (the biped of
``fixtures/scenarios/biped.json``) and one per task, ``vsr2d/Jumping-v0``, ``vsr2d/Carrying-v0``,
``vsr2d/Pushing-v0``, ``vsr2d/Climbing-v0``, ``vsr2d/Balancing-v0``, ``vsr2d/Shape-v0`` (the task's
fixture); ``scenario=`` replaces the scenario, other keywords go to the environment.

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
from ._vsr2d import task_scenario


class _Closed:
    """What a closed environment's simulation is: any use says so instead of stepping on."""

    def __getattr__(self, name):
        raise RuntimeError("the environment is closed: make a new one (gymnasium.make or the class) to go on")


class _OneRobot(gymnasium.Env):
    """What both environments share: one ``Simulation``, its spaces, and frames drawn by vsr2d."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, scenario, *, sensors=None, render_mode=None, width=640, height=360):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported; use 'rgb_array' or None")
        self.sim = Simulation(scenario, sensors=sensors)
        self.render_mode = render_mode
        self.width, self.height = width, height
        low, high = self.sim.observation_bounds
        self.observation_space = spaces.Box(low, high, dtype=np.float64)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(self.sim.action_size,), dtype=np.float64)

    def render(self):
        if self.render_mode == "rgb_array":
            return self.sim.render(width=self.width, height=self.height)
        return None

    def close(self):
        """Releases the simulation: ``reset``, ``step`` and ``render`` then raise ``RuntimeError``."""
        self.sim = _Closed()
        super().close()


class Locomotion(_OneRobot):
    """Move one voxel robot as far as possible along +x.

    ``scenario`` is a dict, a JSON string or a path, as everywhere in vsr2d; it must hold exactly one
    robot (default: the biped of ``fixtures/scenarios/biped.json``). ``reset(seed=...)`` also gives a
    random terrain (uneven, hilly, steppy) that seed (a new terrain per episode).
    """

    def __init__(self, scenario=None, *, sensors=None, render_mode=None, width=640, height=360):
        if scenario is None:
            scenario = task_scenario("locomotion")
        super().__init__(scenario, sensors=sensors, render_mode=render_mode, width=width, height=height)
        if len(self.sim.labels) != 1:
            raise ValueError(
                f"Locomotion drives one robot; the scenario has {len(self.sim.labels)} "
                "(use vsr2d.Simulation for several)"
            )
        self._x = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs = self.sim.reset(seed=seed)
        self._x = self.sim.x[0]
        return obs, {"t": self.sim.time, "x": self._x}

    def step(self, action):
        obs, info = self.sim.step(_action(action))
        x = info["x"][0]
        reward = float(x - self._x) if np.isfinite(x) else 0.0
        self._x = x
        terminated = info["unstable"] is not None
        truncated = info["finished"] and not terminated
        return obs, reward, terminated, truncated, info


def _action(action):
    """The action as float64 numbers, flattened. Complex numbers are refused: numpy would cast them with
    only a warning, dropping the imaginary parts."""
    array = np.asarray(action)
    if array.dtype.kind == "c":
        raise ValueError(f"actions are complex numbers (dtype {array.dtype}): pass actions.real")
    return np.asarray(array, dtype=np.float64).ravel()


#: The number of the result each task rewards by default (its change over a step is the reward).
DEFAULT_REWARD = {
    "locomotion": "/robots/0/x_distance",
    "jumping": "/jumping/max_height",
    "carrying": "/carrying/carried_distance",
    "pushing": "/pushing/pushed_distance",
    "climbing": "/climbing/max_height",
    "balancing": "/balancing/time_on_platform",
    "shape": "/shape/max_area",
}


def _number(result, pointer):
    """The number at a JSON pointer (``/jumping/max_height``, RFC 6901) of a result dict; 0.0 for null.

    A pointer that names nothing, or a string, is a ``ValueError`` naming the pointer and what is
    there: array indices are written without sign or leading zeros (``-1`` is not Python's "last").
    """
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise ValueError(f"reward {pointer!r} must be a JSON pointer such as '/robots/0/x_velocity'")
    value = result
    at = ""
    for part in pointer[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            if not (part.isdigit() and (part == "0" or not part.startswith("0")) and int(part) < len(value)):
                raise ValueError(
                    f"reward {pointer!r}: {part!r} after {at or '/'} must be an index of its {len(value)} "
                    "element(s), written without sign or leading zeros (0, 1, ...)"
                )
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            keys = ", ".join(sorted(value)) if isinstance(value, dict) else "nothing: it is a number"
            raise ValueError(f"reward {pointer!r}: the result has no {part!r} at {at or '/'} (there: {keys})")
        at += "/" + part
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"reward {pointer!r} names {type(value).__name__} {value!r}, not a number")
    return float(value)


class Task(_OneRobot):
    """One robot doing the scenario's task. Observation and action as ``Locomotion``. Reward: the change
    over the step of the number at ``reward`` (a JSON pointer into ``Simulation.metrics()``, the result
    ``vsr2d simulate`` prints; default: the task's own, ``DEFAULT_REWARD``), so the rewards of an
    episode add up to that number's final value minus its value at t = 0. Without ``scenario``, the
    example scenario of ``task`` (``fixtures/scenarios/<task>.json``).
    """

    def __init__(
        self, scenario=None, *, task=None, reward=None, sensors=None, render_mode=None, width=640, height=360
    ):
        if scenario is None:
            if task is None:
                raise ValueError("give a scenario, or a task to start from its example scenario (task='jumping')")
            scenario = task_scenario(task)
        super().__init__(scenario, sensors=sensors, render_mode=render_mode, width=width, height=height)
        task = self.sim.task
        if reward is None:
            if task not in DEFAULT_REWARD:
                raise ValueError(f"the {task!r} task has no default reward: give reward='/{task}/<metric>'")
            reward = DEFAULT_REWARD[task]
        self.reward = reward
        _number(self.sim.metrics(), reward)  # a bad pointer fails here, not in the first step
        self._value = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs = self.sim.reset(seed=seed)
        self._value = _number(self.sim.metrics(), self.reward)
        return obs, {"t": self.sim.time, self.reward: self._value}

    def step(self, action):
        obs, info = self.sim.step(_action(action))
        value = _number(self.sim.metrics(), self.reward)
        reward = float(value - self._value) if np.isfinite(value) else 0.0
        self._value = value
        info[self.reward] = value
        terminated = info["unstable"] is not None
        truncated = info["finished"] and not terminated
        return obs, reward, terminated, truncated, info


#: The registered names: ``vsr2d/<Name>-v0`` for each task, with its example scenario.
TASKS = ["jumping", "carrying", "pushing", "climbing", "balancing", "shape"]


def _register():
    """Registers ``vsr2d/Locomotion-v0`` and ``vsr2d/<Task>-v0`` with Gymnasium (once)."""
    registry = gymnasium.envs.registration.registry
    if "vsr2d/Locomotion-v0" not in registry:
        gymnasium.register("vsr2d/Locomotion-v0", entry_point=Locomotion)
    for task in TASKS:
        name = f"vsr2d/{task.capitalize()}-v0"
        if name not in registry:
            gymnasium.register(name, entry_point=Task, kwargs={"task": task})


_register()
