"""``vocviewer export``: evaluate result sets headless and write PR figures, annotated images and
the AP table (Qt offscreen; called lazily by ``cli``). Each ``--results`` path is one result set.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vocviewer.evaluation.report import render_ap_table
from vocviewer.evaluation.result import EvalResult
from vocviewer.gui.tasks import (
    Diagnosed,
    LoadedResults,
    ResultEvaluations,
    evaluate,
    guess_image_set,
    load_dataset,
    load_results,
    preferred_set,
)


def run_export(args: argparse.Namespace) -> list[Path]:
    """Do what ``args`` asks (``path``, ``results``, ``image_set``, ``pr_curves``, ``format``,
    ``classes``, ``images``, ``ids``, ``table``, ``dpi``); return the files written."""
    from vocviewer.gui.app import make_app
    from vocviewer.gui.export import check_target, export_image, export_pr_figure, write_text

    make_app()
    dataset = load_dataset(args.path)
    root = dataset.root
    sets: list[tuple[LoadedResults, ResultEvaluations, EvalResult]] = []
    image_set = args.image_set
    for r in args.results:
        loaded = load_results(dataset, [r], image_set)
        if image_set is None:
            image_set = guess_image_set(loaded.results, dataset) or preferred_set(
                dataset.main_sets()
            )
        evals = ResultEvaluations(len(loaded.results.detections), len(dataset.objects))
        for item in evaluate("det", dataset, loaded.results, str(image_set)):
            if isinstance(item, Diagnosed):
                evals.add(item)
        classes = tuple(evals.det[k] for k in sorted(evals.det))
        sets.append((loaded, evals, EvalResult("", "det", str(image_set), "", 0.5, classes)))
    names = _unique(
        [s[0].results.name or Path(r).stem for s, r in zip(sets, args.results, strict=True)]
    )
    written: list[Path] = []
    if args.table:
        fmt = Path(args.table).suffix.lstrip(".").lower()
        check_target(args.table, root)
        text = render_ap_table({n: s[2] for n, s in zip(names, sets, strict=True)}, fmt)
        written.append(write_text(args.table, text))
    if args.pr_curves:
        wanted = args.classes or list(dataset.classes)
        for name in wanted:
            k = dataset.class_index(name)
            curves = [(n, s[1].det[k]) for n, s in zip(names, sets, strict=True) if k in s[1].det]
            out = Path(args.pr_curves) / f"pr_{name}.{args.format}"
            written.append(export_pr_figure(out, name, curves, dpi=args.dpi, dataset_root=root))
    if args.images:
        loaded, evals = (sets[0][0], sets[0][1]) if sets else (None, None)
        for image_id in args.ids or []:
            image = dataset.image_index(image_id)
            out = Path(args.images) / f"{image_id}.png"
            written.append(export_image(out, dataset, image, loaded, evals, dataset_root=root))
    return written


def _unique(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        m, i = n, 2
        while m in out:
            m, i = f"{n} ({i})", i + 1
        out.append(m)
    return out
