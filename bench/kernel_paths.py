"""Timing an evaluation on the compiled kernels and on the numpy path (``VOCVIEWER_KERNEL``),
alternating, for the per-family kernel benchmarks."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
PATHS = (("0", "numpy "), ("1", "kernel"))


def both_paths(evaluate: Callable[[], T], runs: int) -> tuple[dict[str, list[float]], dict[str, T]]:
    """``evaluate()`` ``runs`` times on each path, alternating: the seconds of each run and the
    last result, by ``VOCVIEWER_KERNEL`` value ("1" kernel, "0" numpy)."""
    times: dict[str, list[float]] = {"1": [], "0": []}
    last: dict[str, T] = {}
    try:
        for _ in range(runs):
            for path in ("1", "0"):
                os.environ["VOCVIEWER_KERNEL"] = path
                t0 = time.perf_counter()
                last[path] = evaluate()
                times[path].append(time.perf_counter() - t0)
    finally:
        os.environ.pop("VOCVIEWER_KERNEL", None)
    return times, last


def print_paths(times: dict[str, list[float]]) -> None:
    """One line per path: min and median seconds."""
    for path, name in PATHS:
        t = times[path]
        print(f"evaluate {name} min {min(t):.3f} s  median {statistics.median(t):.3f} s")
