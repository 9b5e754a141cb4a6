"""``vocviewer eval`` over several result sets: each set's official output (the family's own
``EvalOutput``) headed by the set's name, then one summary table with a column per set — the
family's summary numbers (its JSON ``"summary"``: COCO's 12 ``stats``, VOC's mAP, VisDrone's
AP / AP50 / ... in percent, ...) and whether each set's numbers are official.

The JSON of several sets::

    {"protocol", "task", "official": <every set official>,
     "sets": {name: <the set's own single-set payload>, ...}}

A single set keeps its own output and payload unchanged (``cli`` does not call this).
Nothing here prints; ``cli`` does. ``read_sets`` reads each result set of a list of paths as
the window reads it (``run_here``: its reader's work done in this process).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.families.base import EvalOutput
from vocviewer.families.registry import benchmark_of
from vocviewer.formats.input import check_exist


def combine(outputs: Sequence[tuple[str, Sequence[Path], EvalOutput]]) -> EvalOutput:
    """One ``EvalOutput`` of ``(set name, its paths, its output)`` per result set, in order."""
    n = len(outputs)
    blocks = []
    for i, (name, paths, out) in enumerate(outputs, 1):
        given = ", ".join(str(p) for p in paths)
        blocks.append(f"== result set {i} of {n}: {name} ({given}) ==\n{out.text.rstrip()}\n")
    table = summary_table([(name, out.payload) for name, _, out in outputs])
    text = "\n".join(blocks) + "\n" + table
    first = outputs[0][2].payload
    payload: dict[str, Any] = {
        "protocol": first.get("protocol"),
        "task": first.get("task"),
        "official": all(out.payload.get("official", True) for _, _, out in outputs),
        "sets": {name: out.payload for name, _, out in outputs},
    }
    warnings = list(dict.fromkeys(w for _, _, out in outputs for w in out.warnings))
    return EvalOutput(text, payload, warnings)


def summary_table(payloads: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """The summary numbers of each set's payload side by side: a row per number (in the first
    set's order; a number a set lacks is ``n/a``), a column per set, then an ``official`` row."""
    stats = [(name, summary_numbers(p.get("summary", {}))) for name, p in payloads]
    rows = list(dict.fromkeys(k for _, s in stats for k in s))
    names = [name for name, _ in stats]
    label = max([len("official"), *(len(r) for r in rows)])
    cells = [[_cell(s.get(r)) for _, s in stats] for r in rows]
    official = ["yes" if p.get("official", True) else "NOT OFFICIAL" for _, p in payloads]
    widths = [
        max(len(name), len(o), *(len(row[j]) for row in cells))
        for j, (name, o) in enumerate(zip(names, official, strict=True))
    ]
    lines = [
        f"summary of {len(payloads)} result sets",
        f"{'':<{label}}  " + "  ".join(f"{n:>{w}}" for n, w in zip(names, widths, strict=True)),
    ]
    for r, row in zip(rows, cells, strict=True):
        lines.append(
            f"{r:<{label}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(row, widths, strict=True))
        )
    lines.append(
        f"{'official':<{label}}  "
        + "  ".join(f"{o:>{w}}" for o, w in zip(official, widths, strict=True))
    )
    return "\n".join(lines) + "\n"


def summary_numbers(summary: Mapping[str, Any]) -> dict[str, float | int | None]:
    """The numbers of a payload's ``"summary"``: numbers as they are, a list of numbers as
    ``name[1]``, ``name[2]``, ... (ILSVRC's errors per number of guesses, whose list of guesses
    ``1, 2, ...`` is left out); names and flags left out (they are in each set's own output)."""
    out: dict[str, float | int | None] = {}
    for key, value in summary.items():
        if _number(value):
            out[key] = value
        elif _numbers(value) and value != list(range(1, len(value) + 1)):  # not 1, 2, ...
            out.update({f"{key}[{i}]": v for i, v in enumerate(value, 1)})
    return out


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_number(v) for v in value)


def _number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _cell(value: float | int | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def run_here(fn: Any, *args: Any, **kw: Any) -> Any:
    """``fn(*args, **kw)`` in this process (the ``offload`` of a family's window reader, where
    there is no helper process)."""
    return fn(*args, **kw)


class ParsedAhead:
    """An ``offload`` whose one call ``fn(*args)`` started now, in a thread (a family's
    ``parse_results_ahead``: the results parsed while the dataset is read, as ``eval`` does):
    asked for exactly that call, it waits for that answer (raising what it raised), once; any
    other call runs here (``run_here``)."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._call: tuple[Callable[..., Any], tuple[Any, ...]] | None = (fn, args)
        self._answer: Future[Any] = Future()
        threading.Thread(
            target=self._run, args=(fn, args), name="vocviewer-parse", daemon=True
        ).start()

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            self._answer.set_result(fn(*args))
        except BaseException as exc:  # (MemoryError): raised again in the caller's thread
            self._answer.set_exception(exc)

    def __call__(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        if kw or self._call != (fn, args):
            return fn(*args, **kw)
        self._call = None
        return self._answer.result()


def read_sets(
    dataset: Dataset, paths: Sequence[Path], image_set: str | None
) -> list[tuple[str, ResultSet]]:
    """Each result set of ``paths`` (grouped by the family: a VOC competition's per-class files
    together are one), read as the window reads it."""
    bench = benchmark_of(dataset)
    check_exist(paths)
    return [
        (name, bench.read_view_results(dataset, group, image_set, None, run_here))
        for name, group in bench.result_sets(list(paths))
    ]
