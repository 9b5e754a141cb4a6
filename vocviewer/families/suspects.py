"""``vocviewer suspects``: the label-error queue (``evaluation.label_errors``) of a dataset from
one or more result sets, as text and JSON, for any registered family.

Each result set is read and evaluated as the window does (the family's ``read_view_results`` and
``evaluate_views`` at its official choice, collected into one ``Evidence``); ``queue_of`` turns
``Evidence`` records (the CLI's or the window's) into suspects. The JSON::

    {"dataset", "sets": [names], "min_score",
     "counts": {kind: n}, "suspects": [Suspect.to_json(), ...]}   # strongest first

Nothing here prints; ``cli`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.label_errors import (
    KIND_LABELS,
    KINDS,
    SetEvidence,
    Suspect,
    find_suspects,
    of_kind,
)
from vocviewer.families.eval_sets import read_sets
from vocviewer.families.evidence import Evidence, collect
from vocviewer.families.registry import benchmark_of, open_dataset
from vocviewer.families.views import ViewChoice
from vocviewer.formats.input import check_exist


def queue_of(
    dataset: Dataset,
    sets: Sequence[tuple[str, ResultSet, Evidence]],
    min_score: float = 0.3,
) -> tuple[Suspect, ...]:
    """The suspects of ``dataset`` from each ``(name, results, evidence)`` (detection views)."""
    given = [
        SetEvidence(name, results, evidence.evaluations("det"), evidence.choice.iou)
        for name, results, evidence in sets
    ]
    crowd = benchmark_of(dataset).view_settings(dataset).rules.crowd  # regions, not objects
    return find_suspects(dataset, given, min_score=min_score, regions=crowd)


def evaluated_sets(
    dataset: Dataset, paths: Sequence[Path], image_set: str | None = None
) -> list[tuple[str, ResultSet, Evidence]]:
    """Each result set of ``paths`` (grouped by the family) read and evaluated at the family's
    official choice on ``image_set`` (default: the set the result files name)."""
    bench = benchmark_of(dataset)
    settings = bench.view_settings(dataset)
    out = []
    for name, results in read_sets(dataset, paths, image_set):
        chosen = image_set or bench.image_set_named(dataset, results)
        choice = ViewChoice(settings.default_choice().iou, settings.areas[0], chosen)
        evidence = collect(bench.evaluate_views(dataset, results, choice), choice)
        out.append((name, results, evidence))
    return out


def run_suspects(
    path: Path,
    results: Sequence[Path],
    *,
    min_score: float,
    top: int,
    image_set: str | None = None,
    images: Path | None = None,
    devkit: Path | None = None,
    on_dataset: Callable[[Dataset], None] | None = None,
) -> tuple[str, dict[str, Any]]:
    """``vocviewer suspects``: the queue of the dataset at ``path`` (``images`` / ``devkit``: its
    folders, as ``open_dataset`` takes them) under the result sets of ``results``,
    detections scoring at least ``min_score``; ``top`` per kind in the text (the JSON holds
    every suspect); ``on_dataset`` learns the dataset once read (the CLI's output guard).
    Returns (text, payload)."""
    if not 0 <= min_score <= 1:
        raise FormatError(None, f"--min-score must lie in [0, 1], got {min_score}")
    check_exist(results)
    dataset = open_dataset(path, images=images, devkit=devkit)
    if on_dataset is not None:  # the CLI's output guard learns the dataset's folders
        on_dataset(dataset)
    sets = evaluated_sets(dataset, list(results), image_set)
    suspects = queue_of(dataset, sets, min_score)
    payload = {
        "dataset": str(path),
        "sets": [name for name, _, _ in sets],
        "min_score": min_score,
        "counts": {k: len(of_kind(suspects, k)) for k in KINDS},
        "suspects": [s.to_json(dataset) for s in suspects],
    }
    return render_text(dataset, [n for n, _, _ in sets], suspects, top), payload


def render_text(
    dataset: Dataset, names: Sequence[str], suspects: Sequence[Suspect], top: int
) -> str:
    """The queue in words: per kind its count and its ``top`` strongest suspects."""
    lines = [f"label-error suspects from {len(names)} result set(s): {', '.join(names)}"]
    for kind in KINDS:
        mine = of_kind(suspects, kind)
        lines.append(f"\n{KIND_LABELS[kind]}: {len(mine)}")
        for s in mine[:top]:
            image = dataset.images.id[s.image]
            box = " ".join(f"{v:g}" for v in s.box)
            name = dataset.classes[s.class_index]
            lines.append(f"  {s.strength:.3f}  {image}  {name}  [{box}]  {s.why}")
    return "\n".join(lines) + "\n"
