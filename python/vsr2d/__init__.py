"""vsr2d: 2-D voxel-based soft robots simulated in Rust (rapier2d), driven from Python.

Everything here is the Rust library through thin bindings; scenarios are the same JSON documents the
``vsr2d`` command line reads (as dicts, JSON strings or paths), and the numbers are the same bits.

- ``evaluate(scenario)`` / ``evaluate_many(scenarios, jobs=N)``: run to the end, get the metrics.
- ``Simulation(scenario)``: drive the robots step by step (``reset``, ``step(actions)``, ``render``).
- ``render(scenarios, "out.mp4" | "out.gif" | "out.png")``, ``render_frame(snapshot)``,
  ``write_video(frames, "out.gif")``.
- ``view(scenario_or_recording, "run.html")``: one self-contained interactive HTML replay (docs/viewer.md).
- ``evolve(experiment, out_dir)``: the built-in genetic algorithm; returns the log.
- ``vsr2d.gym.Locomotion``, ``vsr2d.gym.Task``: Gymnasium environments (need ``pip install gymnasium``),
  registered as ``vsr2d/Locomotion-v0``, ``vsr2d/Jumping-v0``, ... when Gymnasium is installed.
"""

import importlib.util

from ._vsr2d import (
    ScenarioError,
    Simulation,
    __version__,
    evaluate,
    evaluate_many,
    evolve,
    render,
    render_frame,
    schema,
    view,
    write_video,
)

__all__ = [
    "ScenarioError",
    "Simulation",
    "__version__",
    "evaluate",
    "evaluate_many",
    "evolve",
    "render",
    "render_frame",
    "schema",
    "view",
    "write_video",
]

# With Gymnasium installed, `import vsr2d` is enough for gymnasium.make("vsr2d/Locomotion-v0").
if importlib.util.find_spec("gymnasium") is not None:
    from . import gym as _gym  # noqa: F401  (registers the environments)
