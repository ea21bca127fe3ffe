"""Evaluation over a Ray cluster: ``RayEvaluator(address=...).map(scenarios)``.

One long-lived actor per node (or per ``cpus_per_worker`` CPUs) holds the simulator and runs
``vsr2d.evaluate_many`` on as many threads as it reserved CPUs (so nothing is oversubscribed).
Scenarios travel as JSON text in chunks, several per actor in flight, so the per-task overhead is
spread over many evaluations; results come back in input order, with an error record
(``{"error": message, "path": ...}``) for a scenario that cannot be run, exactly as ``evaluate_many``
gives it. A chunk lost with its actor or node is evaluated again on another actor, and the lost
actor is replaced. The evaluator is a callable, so it plugs into ``vsr2d.evolve(..., map=...)``.

Needs Ray (``pip install "vsr2d[ray]"``); docs/clusters.md has the recipes for a cluster.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import deque

try:
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
except ImportError as e:  # pragma: no cover - what a user without Ray sees
    raise ImportError(
        'vsr2d.ray needs Ray, an optional dependency: pip install "vsr2d[ray]" (or pip install ray)'
    ) from e

__all__ = ["RayEvaluator"]

# Chunks queued per actor beyond the one it runs: the next chunk is already there when one ends.
_IN_FLIGHT_PER_WORKER = 2


def _as_json(scenario) -> str:
    """A scenario (dict, JSON string or path) as JSON text, the form shipped to the actors."""
    if isinstance(scenario, str) and scenario.lstrip().startswith("{"):
        return scenario
    if isinstance(scenario, (dict, list)):
        # The text the native module makes of a dict (serde_json: sorted keys, compact), so that the
        # positions in an invalid scenario's error message are the same as a local evaluate_many's.
        return json.dumps(scenario, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if isinstance(scenario, (str, os.PathLike)):
        with open(scenario, encoding="utf-8") as f:
            return f.read()
    raise TypeError("a scenario is a dict, a JSON string or the path of a JSON file")


@ray.remote
class _Worker:
    """One process holding the simulator; evaluates a chunk on ``jobs`` threads."""

    def __init__(self, jobs: int, allow_large: bool):
        self.jobs = jobs
        self.allow_large = allow_large

    def ready(self) -> bool:
        import vsr2d  # noqa: F401  (loads the native module once, before any chunk)

        return True

    def evaluate(self, scenarios: list) -> list:
        import vsr2d

        return vsr2d.evaluate_many(scenarios, jobs=self.jobs, allow_large=self.allow_large)


class _Slot:
    """An actor, the CPUs it reserved, and whether it has started."""

    def __init__(self, handle, cpus: int):
        self.handle = handle
        self.cpus = cpus
        self.ready_ref = handle.ready.remote()
        self.ready = False
        self.load = 0


class RayEvaluator:
    """Evaluates scenarios on a Ray cluster, results in input order (see the module's doc).

    ``address``: the cluster to join (``"auto"``, ``"ray://head:10001"``; None: ``RAY_ADDRESS`` or,
    without it, a local Ray started here) when Ray is not initialised yet. ``cpus_per_worker``: CPUs
    per actor (None: one actor per node with all its CPUs). ``chunk_size``: scenarios per Ray task
    (None: four per CPU of an actor, fewer for small batches). ``allow_large``: lift the scenario
    resource limits, as ``evaluate_many``'s. ``max_retries``: how often a chunk is sent again after
    losing its actor. ``start_timeout``: seconds to wait for a first actor to start.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        cpus_per_worker: int | None = None,
        chunk_size: int | None = None,
        allow_large: bool = False,
        max_retries: int = 3,
        start_timeout: float = 300.0,
    ):
        if cpus_per_worker is not None and cpus_per_worker < 1:
            raise ValueError("cpus_per_worker must be at least 1")
        if chunk_size is not None and chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        self.cpus_per_worker = cpus_per_worker
        self.chunk_size = chunk_size
        self.allow_large = allow_large
        self.max_retries = max_retries
        self.start_timeout = start_timeout
        # Chunks sent again after their actor died, over this evaluator's life.
        self.retried_chunks = 0
        self._slots: list[_Slot] = []
        for node in ray.nodes():
            cpus = int(node.get("Resources", {}).get("CPU", 0)) if node.get("Alive") else 0
            if cpus < 1:
                continue
            per = cpus if cpus_per_worker is None else min(cpus_per_worker, cpus)
            for _ in range(cpus // per):
                self._slots.append(self._start(per, node["NodeID"]))
        if not self._slots:
            raise RuntimeError("the Ray cluster has no node with a CPU: start one with `ray start`")

    def _start(self, cpus: int, node_id: str | None) -> _Slot:
        options = {"num_cpus": cpus}
        if node_id is not None:
            # Soft: if the node is gone, Ray places the actor elsewhere.
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id, soft=True)
        return _Slot(_Worker.options(**options).remote(cpus, self.allow_large), cpus)

    @property
    def workers(self) -> list:
        """The actors' handles (e.g. to watch them, or to kill one in a test)."""
        return [s.handle for s in self._slots]

    def _refresh_ready(self, block: bool) -> None:
        waiting = {s.ready_ref: s for s in self._slots if not s.ready}
        if not waiting:
            return
        timeout = self.start_timeout if block else 0
        done, _ = ray.wait(list(waiting), num_returns=1 if block else len(waiting), timeout=timeout)
        for ref in done:
            slot = waiting[ref]
            try:
                ray.get(ref)
                slot.ready = True
            except ray.exceptions.RayActorError:
                self._replace(slot)

    def _replace(self, slot: _Slot) -> None:
        self._slots.remove(slot)
        self._slots.append(self._start(slot.cpus, None))

    def map(self, scenarios) -> list:
        """The results of ``scenarios`` (dicts, JSON strings or paths), in order, as ``evaluate_many``
        returns them."""
        texts = [_as_json(s) for s in scenarios]
        if not texts:
            return []
        cpus = max(s.cpus for s in self._slots)
        size = self.chunk_size or max(1, min(4 * cpus, math.ceil(len(texts) / len(self._slots))))
        todo = deque((start, texts[start : start + size]) for start in range(0, len(texts), size))
        retries = {}
        results: list = [None] * len(texts)
        in_flight = {}  # ref -> (slot, chunk)
        while todo or in_flight:
            self._refresh_ready(block=not in_flight and not any(s.ready for s in self._slots))
            for slot in self._slots:
                while todo and slot.ready and slot.load < _IN_FLIGHT_PER_WORKER:
                    chunk = todo.popleft()
                    in_flight[slot.handle.evaluate.remote(chunk[1])] = (slot, chunk)
                    slot.load += 1
            if not in_flight:
                if not any(s.ready for s in self._slots):
                    raise RuntimeError(
                        f"no Ray actor started within {self.start_timeout} s: the cluster has no free CPUs"
                    )
                continue
            # Wake up for a finished chunk, or now and then to start chunks on actors that became ready.
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=1.0)
            for ref in done:
                slot, (start, chunk) = in_flight.pop(ref)
                slot.load -= 1
                try:
                    out = ray.get(ref)
                except ray.exceptions.RayActorError:
                    retries[start] = retries.get(start, 0) + 1
                    if retries[start] > self.max_retries:
                        raise
                    self.retried_chunks += 1
                    todo.appendleft((start, chunk))
                    if slot in self._slots:
                        self._replace(slot)
                    continue
                results[start : start + len(out)] = out
        return results

    __call__ = map

    def close(self) -> None:
        """Stops the actors (the cluster stays up)."""
        for slot in self._slots:
            ray.kill(slot.handle)
        self._slots = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _worm(width: int, duration: float) -> str:
    """The paper's benchmark worm (``vsr2d bench``'s): width x 3 voxels, sin(-2*pi*t + pi*x/w) on every
    cell, uneven terrain (5 m, 40 m, seed 1), dt 1/60 s."""
    cells = [
        {"cell": [x, y], "function": {"type": "sin", "amplitude": 1, "frequency": -1, "phase": math.pi * x / width}}
        for y in range(3)
        for x in range(width)
    ]
    scenario = {
        "world": {
            "terrain": {"type": "uneven", "height": 5, "spacing": 40, "seed": 1},
            "dt": 1 / 60,
            "duration": duration,
        },
        "robots": [{"body": ["#" * width] * 3, "controller": {"type": "time_functions", "cells": cells}}],
    }
    return json.dumps(scenario)


def _bench(argv=None) -> None:
    """``python -m vsr2d.ray bench``: evaluations per second of the paper's 12x3 worm (60 s and 5 s runs)
    through ``evaluate_many`` on all local cores, and through a Ray cluster with 1 and 2 actors."""
    import argparse

    import vsr2d

    parser = argparse.ArgumentParser(prog="python -m vsr2d.ray", description=_bench.__doc__)
    parser.add_argument("command", choices=["bench"])
    parser.add_argument("--address", default=None, help="the Ray cluster (default: RAY_ADDRESS, or a local Ray)")
    parser.add_argument("--durations", type=float, nargs="+", default=[60.0, 5.0], help="simulated seconds per run")
    parser.add_argument("--copies", type=int, default=32, help="evaluations per row")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="actor counts to measure")
    args = parser.parse_args(argv)
    cpus = os.cpu_count() or 1
    print(f"12x3 worm, {args.copies} evaluations per row, {cpus} logical CPUs")
    print(f"{'run':>6}  {'path':<28} {'evals/s':>8}  {'overhead per evaluation':>24}")
    for duration in args.durations:
        batch = [_worm(12, duration)] * args.copies
        start = time.perf_counter()
        vsr2d.evaluate_many(batch, jobs=cpus)
        local = time.perf_counter() - start
        print(f"{duration:>5g}s  {'local evaluate_many, ' + str(cpus) + ' thr':<28} {args.copies / local:8.2f}")
        for n in args.workers:
            per = max(1, cpus // n)
            ev = RayEvaluator(args.address, cpus_per_worker=per)
            ev.map(batch[: 2 * len(ev.workers)])  # actors started: start-up is not throughput
            start = time.perf_counter()
            ev.map(batch)
            remote = time.perf_counter() - start
            label = f"Ray, {len(ev.workers)} actor(s) x {per} CPU"
            ev.close()
            overhead_ms = 1000 * (remote - local) / args.copies
            print(f"{duration:>5g}s  {label:<28} {args.copies / remote:8.2f}  {overhead_ms:+20.2f} ms")


if __name__ == "__main__":
    _bench()
