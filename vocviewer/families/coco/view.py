"""COCO in the window: COCOeval's per-category evidence as ``ClassView``, companions, loading.

Verdicts are COCOeval's (area "all", the largest detection cap) at the chosen IoU threshold; the
curve and the AP beside it are those of the chosen area range. Changing either re-shapes the
stored evidence (``rederive_views``) without matching again. ``attach_companions`` gives the
window the file's masks and crowd regions, and reads its sibling keypoint and caption files so
one view shows masks, keypoints and captions together.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules
from vocviewer.families.coco.chosen_params import with_param_notes
from vocviewer.families.coco.class_views import COCO_AREAS as COCO_AREAS
from vocviewer.families.coco.class_views import class_views, coco_aps, coco_curve, coco_curves
from vocviewer.families.coco.class_views import protocol_thresholds as _thresholds
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.evaluate import CocoParams, collect_coco, iter_evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import (
    box_columns,
    one_results_file,
    read_coco_results,
)
from vocviewer.families.coco.similarity import KEYPOINT_SIGMAS, mask_iou_pairs, oks_pairs
from vocviewer.families.views import (
    IOU_CHOICES,
    ClassView,
    PairIoU,
    Summary,
    ViewChoice,
    ViewExtras,
    ViewSettings,
    box_pair_iou,
    diagnose_pending,
    diagnosed,
    missed_rows,
    threshold_index,
    with_view_extras,
)
from vocviewer.families.views_all import Ranked, diagnosed_all, missed_rows_all, ranked_and_taken

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
IGNORED_REASON = "It matched a crowd region (or an object outside the area range): not counted."


def coco_rules(dataset: Dataset) -> DiagnosisRules:
    """Similar classes are those of one supercategory; crowd regions are ignored."""
    coco = dataset.data(CocoAnnotations)
    groups: dict[str, set[str]] = {}
    for name, group in zip(dataset.classes, coco.supercategory, strict=True):
        if group:
            groups.setdefault(group, set()).add(name)
    frozen = {g: frozenset(members) for g, members in groups.items()}
    return DiagnosisRules(frozen, IGNORED_REASON, np.asarray(coco.iscrowd, dtype=bool))


def coco_view_settings(dataset: Dataset, title: str = "COCO") -> ViewSettings:
    """COCO's choices; mask IoU or Boundary IoU where the ground truth has masks."""
    masks = dataset.data(CocoAnnotations).masks is not None
    return ViewSettings(
        title,
        IOU_CHOICES,
        None,
        COCO_AREAS,
        "AP[.5:.95]",
        rules=coco_rules(dataset),
        ap_rule="coco101",
        iou_kinds=MASK_IOU_KINDS if masks else (),
    )


#: The IoU kinds the window offers for mask results: mask IoU (the results' own) or Boundary IoU.
MASK_IOU_KINDS = ("", "boundary")


def chosen_task(kind: str, choice: ViewChoice) -> str:
    """The task evaluated for results of ``kind`` at ``choice``: ``"boundary"`` for mask
    results where the window chose Boundary IoU, else ``kind``."""
    return "boundary" if kind == "segm" and choice.iou_kind == "boundary" else kind


def coco_class(
    dataset: Dataset,
    raw: Any,
    k: int,
    choice: ViewChoice,
    recall_thresholds: FloatArray,
    pair_iou: PairIoU | None = None,
    exclude: npt.NDArray[np.bool_] | None = None,
    params: CocoParams | None = None,
) -> ClassView:
    """``raw`` (a ``CocoCategoryEvaluation`` of class ``k``) at the threshold nearest
    ``choice.iou`` (``pair_iou``: the task's similarity, for the TPs' IoU: ``task_pair_iou``). The curve and ``ap_at`` are
    those of ``choice.area`` (``all`` where the task has no such range; the largest detection
    cap); verdicts are always those of area ``all``. ``exclude``: objects never missed (default:
    crowd regions). ``params``: chosen (not the protocol's) thresholds and area ranges."""
    ious = _thresholds(raw.verdict.shape[0]) if params is None else params.iou_thresholds
    t = threshold_index(ious, choice.iou)
    tp_iou = getattr(raw, "tp_iou0", None) if t == 0 and pair_iou is not None else None
    ev = Ranked.of_raw(k, t, raw).evaluation(dataset, pair_iou, tp_iou)
    if exclude is None:
        exclude = np.asarray(dataset.data(CocoAnnotations).iscrowd, dtype=bool)
    missed = missed_rows(dataset, ev, exclude)
    iou = IOU_CHOICES[t] if params is None else float(ious[t])
    area, rt, curve, ap_at = coco_curve(raw, t, choice.area, recall_thresholds, params)
    return ClassView(ev, missed, rt, curve, ap_at, iou, raw, area)


def iou_type(results: ResultSet) -> str:
    """``bbox``, ``segm`` or ``keypoints``: what the results file holds."""
    return str(results.data(CocoResults).kind)


def task_pair_iou(dataset: Dataset, results: ResultSet, task: str) -> PairIoU | None:
    """COCOeval's similarity of ``task`` for (detection row, object row) pairs, the IoU a true
    positive is shown with: box IoU (bbox), ``rleIou`` of the masks (segm), OKS (keypoints);
    ``None`` for Boundary IoU (its true positives carry none)."""
    if task == "bbox":
        return box_pair_iou(dataset, results)
    gt, dt = dataset.data(CocoAnnotations), results.data(CocoResults)
    if task == "keypoints":
        return lambda det, obj: oks_pairs(dt.keypoints, gt.keypoints, gt.bbox, gt.area, det, obj)
    det_masks, gt_masks = dt.masks, gt.masks
    if task != "segm" or det_masks is None or gt_masks is None:
        return None

    boxes: list[FloatArray] = []  # both tables' rleToBbox, by row: measured on the first call

    def mask_iou(det: IntArray, obj: IntArray) -> FloatArray:
        # the pairs' rows of the whole tables: masks kept as strings are decoded only as the
        # pairs need them, no rows copied out
        if not boxes:
            boxes.extend((det_masks.mask_boxes(), gt_masks.mask_boxes()))
        crowd = np.zeros(len(det), dtype=bool)  # a true positive's object is never a crowd
        rows = np.asarray(det, dtype=np.int64), np.asarray(obj, dtype=np.int64)
        return mask_iou_pairs(det_masks, gt_masks, *rows, crowd, *boxes)

    return mask_iou


def check_keypoint_counts(
    dataset: Dataset, results: ResultSet, ann: Path | None, res: Path | None
) -> None:
    """OKS compares COCO's 17 person keypoints: ``FormatError`` naming the annotation (``ann``)
    or results file (``res``) that holds another count (pycocotools fails with a numpy
    broadcasting error)."""
    k = len(KEYPOINT_SIGMAS)
    for path, n, p in (
        (ann, len(dataset.objects), dataset.data(CocoAnnotations).keypoints.shape[1]),
        (res, len(results.detections), results.data(CocoResults).keypoints.shape[1]),
    ):
        if n and p != k:
            what = f"this file has {p} per entry" if p else "this file has none"
            raise FormatError(path, f"keypoint evaluation compares COCO's {k} keypoints; {what}")


def never_missed(dataset: Dataset, params: CocoParams) -> npt.NDArray[np.bool_]:
    """The objects ``params``' evaluation ignores: crowd regions (Boundary AP: also those with
    an ``ignore`` field, as boundary-iou-api)."""
    coco = dataset.data(CocoAnnotations)
    out = np.asarray(coco.iscrowd, dtype=bool)
    if params.iou_type == "boundary" and coco.ignore is not None:
        out = out | coco.ignore
    return out


def evaluate_coco_views(
    dataset: Dataset,
    results: ResultSet,
    choice: ViewChoice,
    title: str = "COCO",
    task: str | None = None,
    diagnose: bool = True,
    params: CocoParams | None = None,
) -> Iterator[ClassView | Summary]:
    """COCOeval of ``task`` (default: the results' own type), category by category, then the
    summary (``diagnose`` False: false positives left undiagnosed; ``params``: chosen ones, else
    the protocol's for ``task``)."""
    kind = task or iou_type(results)
    if kind == "keypoints":
        check_keypoint_counts(dataset, results, dataset.root, results.files[0])
    if params is None and chosen_task(kind, choice) != kind:  # the window's Boundary IoU
        kind = "boundary"
        params = CocoParams.for_task(kind, dilation_ratio=choice.dilation_ratio)
    chosen, params = params, params or CocoParams.for_task(kind)
    rules, cats = coco_rules(dataset), []
    never, pair_iou = never_missed(dataset, params), task_pair_iou(dataset, results, kind)
    rt = params.recall_thresholds
    runs: list[list[Any]] = []  # (the run of categories arriving now)
    waiting: list[tuple[int, Any]] = []
    for k, raw in enumerate(iter_evaluate_coco(dataset, results, params, on_run=runs.append)):
        cats.append(raw)
        waiting.append((k, raw))
        if len(waiting) < len(runs[-1]):
            continue
        if chosen is None:  # a run's categories shaped together (its own thresholds: one by one)
            views = class_views(dataset, waiting, choice, rt, pair_iou, never)
        else:
            views = [
                coco_class(dataset, r, j, choice, rt, pair_iou, never, chosen) for j, r in waiting
            ]
        t = threshold_index(_thresholds(waiting[0][1].verdict.shape[0]), choice.iou)
        for (_, r), view in zip(waiting, views, strict=True):
            view = diagnosed(dataset, results, view, rules, diagnose)
            if chosen is None:  # what ``rederive_coco_views`` may start from (diagnosed there)
                _remember(r, dataset, results, (t, kind), view)
            yield view
        waiting, runs[:] = [], []
    result = with_param_notes(collect_coco(tuple(cats), params, results))
    yield Summary(f"{title} {kind}", result.stats(), result.notes, headline="AP")


def rederive_coco_views(
    dataset: Dataset, results: ResultSet, raws: Mapping[int, Any], choice: ViewChoice
) -> list[ClassView]:
    """Every class again at another threshold or area, from the stored evidence. Another area
    range at the threshold of one of the last views derived from a class's evidence (``_LAST``:
    the window's current one and the one before, so going back to the previous threshold is a
    lookup) keeps that view's verdicts, missed objects and diagnosis (COCOeval decides them at
    area "all") and takes the curve of the new range."""
    rt, rules = CocoParams().recall_thresholds, coco_rules(dataset)
    task = chosen_task(iou_type(results), choice)
    out: dict[int, ClassView] = {}
    fresh: list[tuple[int, int, Any]] = []  # (class, threshold index, raw) not kept
    for k in sorted(raws):
        raw = raws[k]
        t = threshold_index(_thresholds(raw.verdict.shape[0]), choice.iou)
        key = (t, task)  # Boundary and mask IoU never share verdicts
        last = next(
            (
                v
                for d, r, kk, v in _LAST.get(raw, ())
                if d() is dataset and r() is results and kk == key
            ),
            None,
        )
        if last is None:
            fresh.append((k, t, raw))
            continue
        area, curve_rt, curve, ap_at = coco_curve(raw, t, choice.area, rt)
        view = dataclasses.replace(
            last, curve_recall=curve_rt, curve_precision=curve, ap_at=ap_at, area=area
        )
        # (evaluated undiagnosed for the window, which diagnosed it afterwards: kept)
        out[k] = diagnose_pending(dataset, results, view, rules)
        _remember(raw, dataset, results, key, out[k])
    if fresh:  # every class not kept at once (80 classes: a few passes, not 80 of each)
        pair_iou = task_pair_iou(dataset, results, task)
        never = never_missed(dataset, CocoParams.for_task(task))
        views = diagnosed_all(
            dataset, results, coco_classes(dataset, fresh, choice, rt, pair_iou, never), rules
        )
        for (k, t, raw), view in zip(fresh, views, strict=True):
            out[k] = view
            _remember(raw, dataset, results, (t, task), view)
    return [out[k] for k in sorted(raws)]


def coco_classes(
    dataset: Dataset,
    raws: list[tuple[int, int, Any]],
    choice: ViewChoice,
    recall_thresholds: FloatArray,
    pair_iou: PairIoU | None,
    exclude: npt.NDArray[np.bool_],
) -> list[ClassView]:
    """``coco_class`` of each (class ``k``, threshold index ``t``, raw) of ``raws`` at the
    protocol's thresholds, undiagnosed, all at once (``views_all``)."""
    pairs = [(k, raw) for k, _, raw in raws]
    parts = [
        Ranked.of_raw(k, t, raw, ap) for (k, t, raw), ap in zip(raws, coco_aps(pairs), strict=True)
    ]
    evs, taken = ranked_and_taken(dataset, parts, pair_iou)
    ts = {t for _, t, _ in raws}
    if len(ts) == 1:  # (every class at one threshold: their curves in one step)
        curves = coco_curves(pairs, ts.pop(), choice.area, recall_thresholds)
    else:
        curves = [coco_curve(raw, t, choice.area, recall_thresholds) for _, t, raw in raws]
    out = []
    for (_, t, raw), ev, missed, (area, rt, curve, ap_at) in zip(
        raws, evs, missed_rows_all(dataset, evs, exclude, taken), curves, strict=True
    ):
        out.append(ClassView(ev, missed, rt, curve, ap_at, IOU_CHOICES[t], raw, area))
    return out


#: per stored category evidence (held weakly), the last ``_KEPT`` views derived from it (by
#: ``evaluate_coco_views`` at the protocol's parameters, or ``rederive_coco_views``), newest
#: first: (its dataset, its results (both weakly), (threshold index, task), view)
_LAST: weakref.WeakKeyDictionary[Any, list[tuple[Any, Any, tuple[int, str], ClassView]]] = (
    weakref.WeakKeyDictionary()
)
_KEPT = 2


def _remember(
    raw: Any, dataset: Dataset, results: ResultSet, key: tuple[int, str], view: ClassView
) -> None:
    """Keep ``view`` (of ``raw`` at ``key``) as the newest in ``_LAST``, replacing one at the
    same ``key`` and forgetting the oldest beyond ``_KEPT``."""
    kept = [e for e in _LAST.get(raw, ()) if e[2] != key and e[0]() is dataset]
    entry = (weakref.ref(dataset), weakref.ref(results), key, view)
    _LAST[raw] = [entry, *kept][:_KEPT]


def read_coco_view_results(
    dataset: Dataset,
    paths: list[Path],
    offload: Callable[..., Any],
    reader: Callable[..., ResultSet] = read_coco_results,
    title: str = "COCO",
) -> ResultSet:
    """One results JSON read by ``reader`` (COCO's, or a family's built on it); box results are
    parsed by ``offload`` (the window's helper process: the parse would hold this interpreter
    for seconds); mask results are read with their masks (task ``segm``), as ``eval`` does."""
    path = one_results_file(paths, title)
    first = _first_entry(path)
    if _boxes_only(first):
        return reader(dataset, path, boxes=offload(box_columns, path))
    if b'"segmentation"' in first:
        return reader(dataset, path, task="segm")
    return reader(dataset, path, boxes=None)


def parse_coco_results_ahead(paths: list[Path]) -> Callable[..., Any] | None:
    """The parse ``read_coco_view_results`` offloads (``box_columns`` of one box results file),
    started now in a thread (``eval_sets.ParsedAhead``); ``None`` for other results."""
    from vocviewer.families.eval_sets import ParsedAhead  # (the window's: not ``eval``'s)

    if len(paths) != 1 or not _boxes_only(_first_entry(paths[0])):
        return None
    return ParsedAhead(box_columns, Path(paths[0]))


def _first_entry(path: Path) -> bytes:
    """The text of a ``.json`` file's first entry (in its first 4 KB; ``b""`` if none)."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return b""
    with path.open("rb") as f:
        head = f.read(4096)
    return head.split(b"}", 1)[0]


def results_reading_task(path: Path) -> str:
    """What a results file is read for when no task is asked: ``segm`` where its first entry has
    a ``segmentation`` (its masks read, as the window and ``eval --task segm`` read them), else
    ``bbox``."""
    return "segm" if b'"segmentation"' in _first_entry(path) else "bbox"


def _boxes_only(first: bytes) -> bool:
    """A first entry (``_first_entry``) with a ``bbox`` and no mask or keypoints: its file is
    worth parsing in a helper process (others are read in the worker itself)."""
    return b'"bbox"' in first and b'"segmentation"' not in first and b'"keypoints"' not in first


# --- companions ----------------------------------------------------------------------------------
def _sibling(path: Path, prefix: str) -> Path | None:
    stem = path.stem
    split = stem.split("_", 1)[1] if "_" in stem else ""
    if not split or stem.startswith("captions_"):
        split = stem.split("_", 1)[-1]
    p = path.with_name(f"{prefix}_{split}.json")
    return p if p.is_file() and p != path else None


def attach_companions(dataset: Dataset, path: Path) -> Dataset:
    """Attach the ``ViewExtras`` of a COCO file: masks and crowd regions, keypoints and captions
    from the file itself, else from ``person_keypoints_<split>.json`` / ``captions_<split>.json`` beside it
    (matched by annotation id and image id; unreadable siblings are skipped)."""
    coco = dataset.data(CocoAnnotations)
    keypoints, skeleton, captions = coco.keypoints, tuple(coco.skeleton), coco.captions
    kp_file = _sibling(path, "person_keypoints") if keypoints.shape[1] == 0 else None
    cap_file = _sibling(path, "captions") if not any(captions) else None
    try:
        if kp_file is not None:
            folder = dataset.images.path[0].parent if len(dataset.images) else None
            oc = read_coco(kp_file, folder, masks=False).data(CocoAnnotations)
            pos = {a: i for i, a in enumerate(oc.ann_id.tolist())}
            keypoints = np.zeros((len(coco.ann_id), oc.keypoints.shape[1], 3))
            rows = [(i, pos[a]) for i, a in enumerate(coco.ann_id.tolist()) if a in pos]
            if rows:
                mine, theirs = np.array(rows).T
                keypoints[mine] = oc.keypoints[theirs]
            by_id = dict(zip(oc.category_id.tolist(), oc.skeleton, strict=True))
            skeleton = tuple(
                by_id.get(c, s) for c, s in zip(coco.category_id.tolist(), skeleton, strict=True)
            )
        if cap_file is not None:
            other = read_coco(cap_file, None, masks=False).data(CocoAnnotations)
            by_image = dict(zip(other.image_id.tolist(), other.captions, strict=True))
            captions = tuple(by_image.get(i, ()) for i in coco.image_id.tolist())
    except (FormatError, OSError, ValueError):
        pass
    view = ViewExtras(
        keypoints,
        skeleton,
        captions,
        masks=coco.masks,
        mask_area=np.asarray(coco.area, dtype=np.float64),
        mask_ids=coco.ann_id,
        crowd=np.asarray(coco.iscrowd, dtype=bool),
    )
    return with_view_extras(dataset, view)
