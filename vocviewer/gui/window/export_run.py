"""``vocviewer export``: evaluate result sets headless and write PR figures, annotated images and
the AP table (Qt offscreen; called lazily by ``cli``). Each ``--results`` path is one result set
(``Benchmark.result_sets``: a VOC competition's per-class files together are one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import OutputError
from vocviewer.evaluation.report import render_ap_table
from vocviewer.evaluation.result import EvalResult
from vocviewer.families.registry import benchmark_of
from vocviewer.families.views import ClassView, ViewChoice
from vocviewer.formats import output
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.models.tasks import (
    LoadedResults,
    guess_image_set,
    load_dataset,
    load_results,
    preferred_set,
)


@dataclass(frozen=True)
class ExportRequest:
    """``vocviewer export`` in plain values: the dataset ``path`` and its result sets
    (``results``) on ``image_set`` (``None``: guessed); PR figures of ``classes`` (all: empty)
    into the folder ``pr_curves`` as ``format`` at ``dpi``; the images ``ids`` drawn into the
    folder ``images``; the AP table into the file ``table``."""

    path: Path
    results: tuple[Path, ...] = ()
    image_set: str | None = None
    pr_curves: Path | None = None
    format: str = "png"
    classes: tuple[str, ...] = ()
    images: Path | None = None
    ids: tuple[str, ...] = ()
    table: Path | None = None
    dpi: int = 150


def run_export(args: ExportRequest, protected: Sequence[Path] = ()) -> list[Path]:
    """Do what ``args`` asks; return the files written.

    Nothing is written inside ``protected`` or the dataset's ``protected_roots``; every target is
    checked (``plan_targets``) before anything is evaluated."""
    from vocviewer.gui.window.app import make_app
    from vocviewer.gui.window.export import export_image, export_pr_figure, write_text

    make_app()
    dataset = load_dataset(args.path)
    roots = (*protected, *dataset.protected_roots)
    figures, images = plan_targets(args, dataset, roots)
    sets: list[tuple[LoadedResults, ResultEvaluations, EvalResult]] = []
    image_set = args.image_set
    bench = benchmark_of(dataset)
    settings = bench.view_settings(dataset)
    given = bench.result_sets(list(args.results))  # a VOC competition's per-class files: one set
    for _, paths in given:
        loaded = load_results(dataset, paths, image_set)
        if image_set is None and settings.image_sets:
            image_set = guess_image_set(loaded.results, dataset) or preferred_set(
                dataset.main_sets()
            )
        evals = ResultEvaluations(len(loaded.results.detections), len(dataset.objects))
        choice = ViewChoice(settings.default_choice().iou, "all", image_set)
        for item in bench.evaluate_views(dataset, loaded.results, choice):
            if isinstance(item, ClassView):
                evals.add(item)
        classes = tuple(evals.det[k] for k in sorted(evals.det))
        sets.append((loaded, evals, EvalResult("", "det", str(image_set), "", 0.5, classes)))
    names = _unique(
        [s[0].results.name or Path(g[0]).stem for s, (_, g) in zip(sets, given, strict=True)]
    )
    written: list[Path] = []
    if args.table:
        fmt = Path(args.table).suffix.lstrip(".").lower()
        text = render_ap_table({n: s[2] for n, s in zip(names, sets, strict=True)}, fmt)
        written.append(write_text(args.table, text, roots))
    for k, out in figures:
        curves = [(n, s[1].det[k]) for n, s in zip(names, sets, strict=True) if k in s[1].det]
        name = dataset.classes[k]
        written.append(export_pr_figure(out, name, curves, dpi=args.dpi, protected=roots))
    loaded_evals = (sets[0][0], sets[0][1]) if sets else (None, None)
    for image, out in images:
        written.append(export_image(out, dataset, image, *loaded_evals, protected=roots))
    return written


def plan_targets(
    args: ExportRequest, dataset: Dataset, roots: Sequence[Path]
) -> tuple[list[tuple[int, Path]], list[tuple[int, Path]]]:
    """(class index, figure file) and (image row, image file) pairs to write, every file checked
    (``formats.output``): names made from class names and image ids never leave their folder.
    ``OutputError`` or ``ValueError`` (an unknown class or id) before anything is written."""
    figures: list[tuple[int, Path]] = []
    images: list[tuple[int, Path]] = []
    if args.table:
        output.guard_target(args.table, roots)
    if args.pr_curves:
        output.guard_folder(args.pr_curves, roots)
        for name in args.classes or list(dataset.classes):
            if name not in dataset.classes:
                raise ValueError(f"--classes: no class {name!r} in {dataset.name}")
            out = _child(args.pr_curves, "class name", name, f"pr_{name}", f".{args.format}")
            figures.append((dataset.class_index(name), output.guard_target(out, roots)))
    if args.images:
        output.guard_folder(args.images, roots)
        for image_id in args.ids or []:
            row = dataset.find_image(image_id)
            if row is None:
                raise ValueError(f"--ids: no image {image_id!r} in {dataset.name}")
            out = _child(args.images, "image id", image_id, image_id, ".png")
            images.append((row, output.guard_target(out, roots)))
    return figures, images


def _child(folder: Path, what: str, value: str, name: str, suffix: str) -> Path:
    """``output.child_path``, its refusal saying which class name or image id it was."""
    try:
        return output.child_path(folder, name, suffix)
    except OutputError as e:
        raise OutputError(e.path, f"{what} {value!r}: not a plain file name") from None


def _unique(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        m, i = n, 2
        while m in out:
            m, i = f"{n} ({i})", i + 1
        out.append(m)
    return out
