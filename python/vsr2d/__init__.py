"""vsr2d: 2-D voxel-based soft robots simulated in Rust (rapier2d), driven from Python.

Everything here is the Rust library through thin bindings; scenarios are the same JSON documents the
``vsr2d`` command line reads (as dicts, JSON strings or paths), and the numbers are the same bits.

- ``evaluate(scenario)`` / ``evaluate_many(scenarios, jobs=N)``: run to the end, get the metrics.
- ``Simulation(scenario)``: drive the robots step by step (``reset``, ``step(actions)``, ``render``).
- ``render(scenarios, "out.mp4" | "out.gif" | "out.png" | "out.svg" | "out.pdf", **options)``: the
  ``vsr2d render`` job with every one of its options (``filmstrip``, ``html``, ``style``, layers, ``label``, ``font_scale``, camera,
  ``top``, ...; see ``help(vsr2d.render)``); ``render_frame(snapshot)``, ``write_video(frames, "out.gif")``.
- ``view(scenario_or_recording, "run.html")``: one self-contained interactive HTML replay (docs/viewer.md).
- ``evolve(experiment, out_dir, map=...)``: a built-in algorithm (the experiment's ``"algorithm"``:
  ``ga``, ``cma_es``, ``nsga2``, ``map_elites``); returns the log. ``map`` evaluates each generation's
  scenarios anywhere (``vsr2d.ray.RayEvaluator`` for a Ray cluster, any ``concurrent.futures``
  executor's ``map``); ``Evolution`` is the same run as ask/tell.
- ``Representation(spec)``: the genome → scenario decoders of ``vsr2d evolve`` and the descriptors of a
  result, for any optimizer (pycma, pyribs, pymoo, EvoTorch, ...): ``size``, ``init_box``,
  ``decode(genome)``, ``descriptors(result, names)``.
- ``compare(expected_png, actual_png)``: the golden-image comparison of ``vsr2d compare``;
  ``check(manifest, baseline)``: ``vsr2d check``; ``vsr2d.testing``: its pytest plugin (docs/golden-images.md).
- ``vsr2d.gym.Locomotion``, ``vsr2d.gym.Task``: Gymnasium environments (need ``pip install gymnasium``),
  registered as ``vsr2d/Locomotion-v0``, ``vsr2d/Jumping-v0``, ... when Gymnasium is installed.
"""

import importlib.util

import json as _json
import os as _os

from ._vsr2d import check as _check
from ._vsr2d import (
    Evolution,
    Representation,
    ScenarioError,
    Simulation,
    __version__,
    build_info,
    compare,
    evaluate,
    evaluate_many,
    render,
    render_frame,
    schema,
    view,
    write_video,
)

__all__ = [
    "Evolution",
    "Representation",
    "ScenarioError",
    "Simulation",
    "__version__",
    "build_info",
    "check",
    "compare",
    "evaluate",
    "evaluate_many",
    "evolve",
    "render",
    "render_frame",
    "schema",
    "view",
    "write_video",
]


def evolve(experiment, out_dir, *, map=None, jobs=None, stop_after=None, allow_large=False):
    """Runs (or resumes) an evolutionary experiment (a dict, a JSON string or a path; see ``vsr2d evolve
    --schema``) in ``out_dir`` and returns its log: one dict per generation (``gen``, ``best``,
    ``median``, ``worst``, ``diversity``, ``evaluations``, ``cache_hits``, ``best_genome``, ...). The run
    directory also holds ``best.json`` (the best individual's scenario), the checkpoint and, at the
    end, ``final_population.jsonl``: the same files, byte for byte, as ``vsr2d evolve`` writes.

    ``map`` evaluates one generation: a callable taking the list of scenarios (JSON strings) and
    returning their results in order, as ``evaluate_many`` does (a result dict, or ``{"error": ...}``
    for a run that failed). By default ``evaluate_many`` on ``jobs`` local threads (all cores).
    Examples: ``vsr2d.ray.RayEvaluator()`` (a Ray cluster), ``lambda s: list(executor.map(evaluate, s))``
    for a ``concurrent.futures`` executor (then a failed run must give ``{"error": ...}``, see
    docs/clusters.md). ``stop_after=k`` stops once generation k is recorded; calling again resumes.
    """
    if map is None:

        def map(scenarios):
            # `vsr2d evolve` simulates every mapped individual without the scenario limits; so does this.
            return evaluate_many(scenarios, jobs=jobs, allow_large=True)

    run = Evolution(experiment, out_dir, allow_large=allow_large)
    while not run.finished and (stop_after is None or run.generation is None or run.generation < stop_after):
        scenarios = run.ask()
        run.tell(list(map(scenarios)))
    return run.log()


# With Gymnasium installed, `import vsr2d` is enough for gymnasium.make("vsr2d/Locomotion-v0").
if importlib.util.find_spec("gymnasium") is not None:
    from . import gym as _gym  # noqa: F401  (registers the environments)


def check(manifest, baseline, *, update=False, out=None, junit=None, summary=None, jobs=None, allow_large=False):
    """``vsr2d check`` in Python: the cases of ``manifest`` (a path, or a dict whose relative paths start
    at the current directory) against the baseline directory ``baseline``. Writes the same baselines
    (``update``), artefacts (``out``), JUnit file and summary as the command, and returns its report: a
    dict with ``exit_code`` (0 pass, 1 differ, 2 missing baseline) and per case ``name``, ``status``,
    ``message``, ``images`` (counts), ``fields``, ``notes``, ``updated``, ``artefacts``. Bad input raises
    ``ScenarioError`` (manifest problems, with their JSON ``path``) or ``ValueError``."""
    if isinstance(manifest, dict):
        text, path, base = _json.dumps(manifest), "<manifest>", "."
    else:
        path = _os.fspath(manifest)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        base = _os.path.dirname(path) or "."
    fs = lambda p: None if p is None else _os.fspath(p)  # noqa: E731
    return _check(
        text,
        path,
        base,
        _os.fspath(baseline),
        update=update,
        out=fs(out),
        junit=fs(junit),
        summary=fs(summary),
        jobs=jobs,
        allow_large=allow_large,
    )
