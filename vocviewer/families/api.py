"""The plain Python API: ``vocviewer.evaluate(dataset, results)`` for every benchmark family.

It runs exactly what ``vocviewer eval`` runs (the family's ``Benchmark.evaluate`` with an
``EvalRequest`` of plain values, chosen by the registry as the CLI chooses it) and returns an ``Evaluation``: the official printed layout, the
summary numbers, the per-class numbers and the JSON payload of ``vocviewer eval --json``.

Evaluate the demo's detections (``vocviewer demo`` writes the same devkit):

>>> import json, tempfile
>>> from pathlib import Path
>>> from vocviewer.demo import write_demo
>>> import vocviewer
>>> tmp = tempfile.TemporaryDirectory()
>>> demo = write_demo(tmp.name, n_images=12)
>>> ev = vocviewer.evaluate(demo.year_dir, demo.results_dir)
>>> ev.benchmark, ev.task, ev.official
('voc', 'det', True)
>>> round(ev.summary["mAP"], 4)
0.5833
>>> round(ev.per_class["bus"]["ap"], 4), ev.per_class["bus"]["npos"]
(0.75, 2)
>>> print(ev.text.splitlines()[0])
VOC detection, image set 'val', AP: all points (VOC2010+), overlap >= 0.5

The same numbers as the command line, character for character:

>>> import contextlib, io
>>> from vocviewer.cli import main
>>> out = Path(tmp.name, "det.json")
>>> with contextlib.redirect_stdout(io.StringIO()) as printed:
...     code = main(["eval", str(demo.year_dir), "--results", str(demo.results_dir), "--json", str(out)])
>>> code, out.read_text() == ev.to_json(), printed.getvalue() == ev.text
(0, True, True)

Another task, with a family option (``--image-set`` on the command line):

>>> seg = vocviewer.evaluate(demo.year_dir, demo.results_dir, task="seg", image_set="val")
>>> seg.summary["mIoU_defined_labels"], seg.per_class["chair"]["iou"], seg.official
(75.0, 0.0, True)

A COCO annotation file with a results file (``benchmark`` names the family; usually the
registry finds it from the file):

>>> gt = {"images": [{"id": 1, "width": 64, "height": 48, "file_name": "a.jpg"}],
...       "categories": [{"id": 3, "name": "box"}],
...       "annotations": [{"id": 1, "image_id": 1, "category_id": 3, "bbox": [8, 8, 20, 10],
...                        "area": 200.0, "iscrowd": 0}]}
>>> dt = [{"image_id": 1, "category_id": 3, "bbox": [8, 8, 20, 10], "score": 0.9}]
>>> _ = Path(tmp.name, "gt.json").write_text(json.dumps(gt))
>>> _ = Path(tmp.name, "dt.json").write_text(json.dumps(dt))
>>> coco = vocviewer.evaluate(Path(tmp.name, "gt.json"), Path(tmp.name, "dt.json"), benchmark="coco")
>>> coco.task, round(coco.summary["AP"], 3), round(coco.summary["AP50"], 3)
('bbox', 1.0, 1.0)
>>> tmp.cleanup()
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families import registry
from vocviewer.families.base import EvalRequest
from vocviewer.families.beyond_ap import BeyondAP, BeyondOptions
from vocviewer.families.evidence import Evidence

__all__ = ["Evaluation", "beyond_ap", "evaluate"]

PathLike = str | Path


@dataclass(frozen=True)
class Evaluation:
    """One evaluation, as ``vocviewer eval`` reports it.

    benchmark : the family's registry name; task : the task evaluated;
    text : the official printed layout (what ``vocviewer eval`` prints);
    payload : the JSON payload of ``vocviewer eval --json``;
    warnings : non-fatal input problems and "not official" notes (the CLI's stderr lines).
    """

    benchmark: str
    task: str
    text: str
    payload: dict[str, Any]
    warnings: tuple[str, ...] = field(default=())

    @property
    def summary(self) -> dict[str, Any]:
        """The official summary numbers by name (``mAP``; COCO's ``AP``, ``AP50``, ...)."""
        return dict(self.payload.get("summary", {}))

    @property
    def per_class(self) -> dict[str, Any]:
        """Per class (or category, label, action) name: its numbers (``ap``, ``npos``, ...)."""
        return dict(self.payload.get("per_class", {}))

    @property
    def official(self) -> bool:
        """Whether the numbers are what the official code gives (nothing left out or fixed)."""
        return bool(self.payload.get("official", True))

    def to_json(self) -> str:
        """The text ``vocviewer eval --json`` writes."""
        return json.dumps(self.payload, indent=2) + "\n"


def _path_of(obj: Dataset | PathLike) -> Path:
    if isinstance(obj, Dataset):
        if obj.root is None:
            raise ValueError("this Dataset was not read from a file; pass its path")
        return obj.root
    return Path(obj)


def _result_paths(obj: ResultSet | PathLike | Sequence[PathLike]) -> list[Path]:
    if isinstance(obj, ResultSet):
        if not obj.files:
            raise ValueError("this ResultSet was not read from files; pass their paths")
        return list(obj.files)
    if isinstance(obj, str | Path):
        return [Path(obj)]
    return [Path(p) for p in obj]


def _options(options: dict[str, Any]) -> dict[str, Any]:
    """The family options of ``vocviewer eval`` by ``dest`` (paths as ``Path``), without
    ``keep_going``; ``TypeError`` for a name no family accepts."""
    known = {o.dest: o for b in registry.registered() for o in b.options}
    unknown = sorted(set(options) - set(known) - {"keep_going"})
    if unknown:
        accepted = ", ".join(sorted({*known, "keep_going"}))
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; accepted: {accepted}")
    return {
        name: Path(value) if known[name].kind == "path" and value is not None else value
        for name, value in options.items()
        if name != "keep_going"
    }


def evaluate(
    dataset: Dataset | PathLike,
    results: ResultSet | PathLike | Sequence[PathLike],
    benchmark: str | None = None,
    task: str | None = None,
    *,
    protocol: str | None = None,
    **options: Any,
) -> Evaluation:
    """Evaluate ``results`` on ``dataset`` as ``vocviewer eval`` does.

    Parameters
    ----------
    dataset
        The ground truth: a VOCdevkit root or year folder, a COCO annotation JSON, an ILSVRC
        annotation folder (with ``devkit=``), a VisDrone split folder — or a ``Dataset`` read
        from one (it is evaluated from that file, as the CLI would).
    results
        Result files or folders (or a ``ResultSet`` read from them).
    benchmark
        The family's registry name (``vocviewer.families.registry``); default: the one whose
        reader claims ``dataset``.
    task
        The family's task (its first, e.g. detection / bbox, by default).
    protocol
        A ``--protocol`` value (e.g. a VOC year's AP rule).
    options
        The family's command-line options by their names (``image_set="val"``,
        ``images=...``, ``devkit=...``) and ``keep_going=True``.

    Raises
    ------
    FormatError
        Unreadable or inconsistent input (the message names the file and place).
    TypeError
        An option no family accepts.
    """
    path = _path_of(dataset)
    given = _result_paths(results)
    sources = {
        o.dest: (None if options.get(o.dest) is None else Path(options[o.dest]))
        for b in registry.registered()
        for o in b.options
        if o.source
    }
    if benchmark is not None:
        try:
            chosen = registry.get(benchmark)
        except KeyError:
            names = ", ".join(b.name for b in registry.registered())
            raise ValueError(f"unknown benchmark {benchmark!r}; registered: {names}") from None
    else:
        chosen = registry.choose(path, task, protocol, sources)
    registry.refuse_foreign_options(chosen, SimpleNamespace(**options), "vocviewer.evaluate")
    run_task = task if task is not None else chosen.tasks[0]
    if run_task not in chosen.tasks:
        raise FormatError(path, f"{chosen.title} offers tasks {', '.join(chosen.tasks)}")
    request = EvalRequest(
        path=path,
        results=tuple(given),
        task=run_task,
        protocol=protocol,
        keep_going=bool(options.get("keep_going", False)),
        options=_options(options),
    )
    out = chosen.evaluate(request)
    return Evaluation(chosen.name, run_task, out.text, out.payload, tuple(out.warnings))


def beyond_ap(
    dataset: Dataset | PathLike,
    results: ResultSet | PathLike | Sequence[PathLike],
    *,
    image_set: str | None = None,
    evidence: Evidence | None = None,
    **options: Any,
) -> BeyondAP:
    """The analyses beyond AP of ``results`` on ``dataset`` as ``vocviewer analyze
    --operating-point --calibration --lrp ...`` computes them (``BeyondAP``: ``to_dict()`` is
    each set's JSON there; every registered analysis, ``evaluation.analyses.registry``): from
    ``evidence`` (an evaluation of ``results`` the caller has) or one evaluation of its
    detections at the family's official choice (``image_set``: VOC's Main set). ``options``: the
    analyses' option fields by name (``beta``, ``target_precision``, ``target_recall``,
    ``threshold``, ``bins``, ``sample_threshold``, ``multivariate``, ...)."""
    from vocviewer.families import beyond_ap as beyond

    ds = dataset if isinstance(dataset, Dataset) else registry.open_dataset(dataset)
    if isinstance(results, ResultSet):
        res = results
    else:
        kw = {"image_set": image_set} if image_set else {}
        res = registry.open_results(ds, _result_paths(results), **kw)
    if evidence is None:
        evidence = beyond.evidence_for(ds, res, image_set)
    return beyond.beyond_ap(ds, res, evidence, BeyondOptions(**options))
