"""``vocviewer eval --task seg|layout|action`` for PASCAL VOC (each task's evaluator imported when
it runs, so ``--task det`` loads none of them).

Each ``run_*(request) -> EvalOutput`` (``families.base.EvalRequest``) reads the dataset at
``request.path`` and the results in ``request.results`` (the devkit results folder, e.g.
``results/VOC2012``, or the task's own folder or file), evaluates and renders. The option
``image_set`` defaults to the set named by the results (``comp6_val_cls``,
``comp7_layout_val.xml``, ``comp9_action_val_*.txt``), else ``"val"``; ``request.protocol`` is
``voc2007``/``voc2012``/``None`` (segmentation: pixel accuracy vs IoU; action: 11-point vs
all-points AP; layout is always all-points); ``request.keep_going`` turns
input errors into warnings and marks the numbers not official; ground truth that lost objects is
such an input error for layout and action (``families.base.check_ground_truth``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.result_sets import set_names
from vocviewer.families.base import (
    EvalOutput,
    EvalRequest,
    check_ground_truth,
    existing_input,
    opened,
    problems_error,
)
from vocviewer.families.voc.action_reader import (
    ACTION_NAME,
    find_action_results,
    read_action_results,
)
from vocviewer.families.voc.declared import VOC_HINT
from vocviewer.families.voc.layout_reader import (
    LAYOUT_NAME,
    find_layout_results,
    read_layout_results,
)
from vocviewer.families.voc.reader import looks_like_voc, read_voc
from vocviewer.families.voc.results_reader import RESULT_NAME

DEFAULT_SET = "val"


def open_voc(path: str | Path) -> Dataset:
    """The VOCdevkit at ``path`` for ``eval`` / ``analyze`` (VOC was chosen by ``--protocol``,
    ``--task`` or its sniff); ``FormatError`` if it is missing or not a VOC folder."""
    p = existing_input(path)
    if not (p.is_dir() and looks_like_voc(p)):
        raise FormatError(p, f"not a dataset vocviewer can read as PASCAL VOC; expected {VOC_HINT}")
    return read_voc(p)


def voc_expects(task: str | None = None) -> str:
    """What a VOC dataset reads as results (of ``task``; any task's when ``None``)."""
    if task in ("det", "cls"):
        return f"comp<N>_{task}_<image set>_<class>.txt files (or their folder)"
    return "VOC result files (comp<N>_det_* / comp<N>_cls_*.txt, ... or their folder)"


def infer_image_set(paths: Sequence[Path], task: str) -> str | None:
    """The image set named by result file names (``<comp>_det_<set>_<class>.txt``, as the
    reader recognises them), if unique."""
    names: list[str] = []
    for p in paths:
        names += [f.name for f in p.rglob("*.txt")] if p.is_dir() else [p.name]
    sets = {m["set"] for n in names if (m := RESULT_NAME.match(n)) and m["task"] == task}
    return sets.pop() if len(sets) == 1 else None


def voc_result_sets(paths: Sequence[Path], task: str | None = None) -> list[tuple[str, list[Path]]]:
    """The result sets ``paths`` hold (``VocBenchmark.result_sets``, for ``open``, ``eval``,
    ``analyze`` and ``export`` alike): the per-class files of one competition and image set
    (``comp4_det_val_*.txt``, ``comp9_action_val_*.txt`` as a shell expands them) form one set
    named by the competition, as ``eval`` reads them; a folder or any other path is a set of its
    own, named by its file or folder name. Only files of ``task`` group (``None``: any task's,
    one competition's det, cls and action files together, as the window reads them). Names are made unique (``name``, ``name-2``, ...);
    sets keep the order of first appearance."""
    groups: dict[str, tuple[str, list[Path]]] = {}
    for i, p in enumerate(map(Path, paths)):
        m = None if p.is_dir() else RESULT_NAME.match(p.name) or ACTION_NAME.match(p.name)
        kind = (m.groupdict().get("task") or "action") if m is not None else None
        if m is None or task not in (None, kind):
            groups[f"path {i}"] = (p.name or str(p), [p])
        else:
            key = f"comp:{m['comp']}_{m['set']}"
            groups.setdefault(key, (m["comp"], []))[1].append(p)
    bases = [Path(base) for base, _ in groups.values()]
    return list(zip(set_names(bases), (files for _, files in groups.values()), strict=True))


def _one_result(request: EvalRequest) -> Path:
    if not request.results:
        raise FormatError(None, "no results given")
    if len(request.results) > 1:
        raise FormatError(request.results[1], "this task takes one results folder or file")
    return Path(request.results[0])


def _check_set(dataset: Dataset, key: str) -> None:
    if key not in dataset.image_sets and key not in dataset.person_sets:
        raise FormatError(dataset.root, f"no image set ImageSets/{key}.txt in this dataset")


def run_seg(request: EvalRequest) -> EvalOutput:
    """VOC segmentation (``VOCevalseg``) of a folder of result PNGs."""
    from vocviewer.families.voc.segmentation_evaluate import default_seg_protocol, evaluate_voc_seg
    from vocviewer.families.voc.segmentation_reader import LabelPngLoader, find_segmentation_results
    from vocviewer.families.voc.tasks_report import seg_table, seg_to_json

    given = _one_result(request)
    folder = find_segmentation_results(given, request.option("image_set"))
    image_set = request.option("image_set") or folder.image_set or DEFAULT_SET
    dataset = opened(request, open_voc(request.path))
    key = f"Segmentation/{image_set}"
    _check_set(dataset, key)
    assert dataset.root is not None
    ids = [str(dataset.images.id[i]) for i in dataset.image_sets[key].tolist()]
    protocol = request.protocol or default_seg_protocol(dataset.year)
    ev = evaluate_voc_seg(
        ids,
        LabelPngLoader(dataset.root / "SegmentationClass"),
        LabelPngLoader(folder.folder),
        image_set=image_set,
        protocol=protocol,
        strict=not request.keep_going,
    )
    if ev.problems and not request.keep_going:
        raise problems_error(list(ev.problems))
    warnings = [str(p) for p in (*dataset.problems, *ev.problems)]
    return EvalOutput(seg_table(ev), seg_to_json(ev), warnings)


def run_layout(request: EvalRequest) -> EvalOutput:
    """VOC person layout (``VOCevallayout_pr``) of one ``<comp>_layout_<set>.xml``."""
    from vocviewer.families.voc.layout_evaluate import evaluate_voc_layout
    from vocviewer.families.voc.tasks_report import layout_table, layout_to_json

    path = find_layout_results(_one_result(request), request.option("image_set"))
    m = LAYOUT_NAME.match(path.name)
    image_set = request.option("image_set") or (m["set"] if m else None) or DEFAULT_SET
    dataset = opened(request, open_voc(request.path))
    lost = check_ground_truth(dataset, request.keep_going)
    _check_set(dataset, f"Layout/{image_set}")
    layouts, problems = read_layout_results(path)
    if problems and not request.keep_going:
        raise problems_error(problems)
    ev = evaluate_voc_layout(dataset, layouts, image_set=image_set, strict=not request.keep_going)
    warnings = [str(p) for p in (*dataset.problems, *problems)] + list(ev.warnings)
    if problems:
        warnings.append("NOT OFFICIAL: layouts with problems were left out")
    if lost:
        warnings.append(f"NOT OFFICIAL: {lost}")
    return EvalOutput(layout_table(ev), layout_to_json(ev), warnings)


def run_action(request: EvalRequest) -> EvalOutput:
    """VOC action classification (``VOCevalaction``) of ``<comp>_action_<set>_<action>.txt``."""
    from vocviewer.families.voc.action_evaluate import evaluate_voc_action
    from vocviewer.families.voc.tasks_report import action_table, action_to_json

    if not request.results:
        raise FormatError(None, "no results given")
    files = find_action_results(request.results, request.option("image_set"))
    sets = {m["set"] for f in files.values() if (m := ACTION_NAME.match(f.name))}
    if request.option("image_set") is None and len(sets) > 1:
        raise FormatError(
            request.results[0],
            f"results for several image sets ({', '.join(sorted(sets))}); pass --image-set",
        )
    image_set = request.option("image_set") or (sets.pop() if sets else DEFAULT_SET)
    dataset = opened(request, open_voc(request.path))
    lost = check_ground_truth(dataset, request.keep_going)
    scores = {}
    problems: list[FormatError] = []
    for action, f in files.items():
        scores[action], found = read_action_results(f, action)
        problems += found
    if problems and not request.keep_going:
        raise problems_error(problems)
    rule = "11point" if request.protocol == "voc2007" else "allpoints"
    result = evaluate_voc_action(
        dataset, scores, image_set=image_set, ap_rule=rule, strict=not request.keep_going
    )
    warnings = [str(p) for p in (*dataset.problems, *problems)]
    if problems:
        warnings.append("NOT OFFICIAL: malformed result lines were left out")
    if lost:
        warnings.append(f"NOT OFFICIAL: {lost}")
    return EvalOutput(action_table(result), action_to_json(result), warnings)
