"""What workers run for COCO and VisDrone datasets in the window (no widgets here).

The protocols' own evaluators (``evaluation.coco``, ``evaluation.visdrone``) decide every verdict;
this module only re-shapes their per-detection evidence at one IoU threshold into the
``ClassEvaluation`` the views already draw (ranked verdicts, matched ground truth, per-rank
precision/recall), plus the protocol's own curve and summary numbers. ``attach_companions`` reads a
COCO annotation file's sibling keypoint and caption files so one view shows masks, keypoints and
captions together.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import FalsePositives, classify_false_positives, similar_groups
from vocviewer.evaluation.result import ClassEvaluation, Verdict

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: The IoU thresholds offered in the window (COCO's and VisDrone's .50:.05:.95).
IOU_CHOICES: tuple[float, ...] = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
#: COCO area ranges, in the order of the precision array's axis 2 (keypoints: no "small").
COCO_AREAS: tuple[str, ...] = ("all", "small", "medium", "large")


@dataclass(frozen=True, eq=False)
class ProtocolClass:
    """One class's evaluation at one IoU threshold, for the views.

    ``missed`` int64: object rows of the class no true positive matched (crowd / ignored excluded);
    ``curve_recall`` / ``curve_precision`` float64: the protocol's own curve at the threshold (COCO:
    the 101 recall thresholds where precision is defined, area all, largest cap); ``ap_at`` the
    AP at that threshold (NaN if undefined); ``raw`` the protocol's evidence (for re-deriving)."""

    evaluation: ClassEvaluation
    missed: IntArray
    curve_recall: FloatArray
    curve_precision: FloatArray
    ap_at: float
    iou: float
    raw: Any = None
    area: str = "all"
    false_positives: FalsePositives | None = None


@dataclass(frozen=True)
class Summary:
    """A protocol's summary numbers in its printed order (``percent``: VisDrone's scale)."""

    protocol: str
    stats: Mapping[str, float]
    notes: tuple[str, ...] = ()
    percent: bool = False


@dataclass(frozen=True, eq=False)
class CocoCompanions:
    """What the window draws beside a COCO annotation file, possibly from its sibling files.

    keypoints : float64 (N, P, 3) per object (P = 0: none); skeleton : per class, int64 (E, 2)
    1-based keypoint pairs; captions : per image row, a tuple of strings."""

    keypoints: FloatArray
    skeleton: tuple[IntArray, ...]
    captions: tuple[tuple[str, ...], ...]


def threshold_index(thresholds: npt.ArrayLike, iou: float) -> int:
    """Index of the threshold nearest ``iou``."""
    return int(np.argmin(np.abs(np.asarray(thresholds, dtype=np.float64) - iou)))


def ranked_evaluation(
    dataset: Dataset,
    k: int,
    order: IntArray,
    image_index: IntArray,
    score: FloatArray,
    verdict: npt.NDArray[np.int8],
    matched: IntArray,
    npos: int,
    ap: float,
    boxes: FloatArray | None = None,
) -> ClassEvaluation:
    """A detection ``ClassEvaluation`` from ranked evidence; precision/recall after each rank
    count TPs and FPs (ignored ranks change neither; NaN before the first counted rank).

    ``boxes``: the result set's detection boxes (``Detections.box``) when the protocol matches
    boxes; each TP's ``best_iou`` is then its box IoU with the matched object (for display; NaN
    elsewhere and without ``boxes``, e.g. masks and keypoints)."""
    tp = np.cumsum(verdict == Verdict.TP).astype(np.float64)
    fp = np.cumsum(verdict == Verdict.FP).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1.0), np.nan)
        recall = tp / npos if npos > 0 else np.full(len(tp), np.nan)
    n = len(order)
    best_iou = np.full(n, np.nan)
    if boxes is not None:
        tp = np.flatnonzero((verdict == Verdict.TP) & (matched >= 0))
        plus_one = dataset.box_convention == "voc"
        pair = (boxes[order[tp]], dataset.objects.box[matched[tp]])
        best_iou[tp] = overlap_pairs(*pair, plus_one=plus_one)[1]
    return ClassEvaluation(
        class_index=k,
        class_name=dataset.classes[k],
        task="det",
        npos=int(npos),
        has_results=True,
        ndet=n,
        order=order,
        image_index=image_index,
        score=score,
        verdict=verdict.astype(np.int8),
        best_gt=matched,
        best_iou=best_iou,
        duplicate_of=np.full(n, -1, dtype=np.int64),
        precision=precision,
        recall=recall,
        ap=ap,
    )


def diagnosed(dataset: Dataset, results: ResultSet, pc: ProtocolClass) -> ProtocolClass:
    """``pc`` with its false positives diagnosed (``analysis.classify_false_positives``): these
    protocols have no duplicate verdict, so a false positive overlapping an object of its class
    by the chosen IoU threshold counts as a duplicate (ILSVRC: 0.5, although small objects have
    lower thresholds)."""
    fp = classify_false_positives(
        dataset,
        results,
        pc.evaluation,
        plus_one=dataset.box_convention == "voc",
        groups=similar_groups(dataset),
        iou_threshold=pc.iou,
    )
    return dataclasses.replace(pc, false_positives=fp)


def _missed(
    dataset: Dataset, k: int, ev: ClassEvaluation, exclude: npt.NDArray[np.bool_]
) -> IntArray:
    rows = np.flatnonzero((dataset.objects.label == k) & ~exclude)
    found = ev.best_gt[(ev.verdict == Verdict.TP) & (ev.best_gt >= 0)]
    return rows[~np.isin(rows, found)].astype(np.int64)


# --- COCO ----------------------------------------------------------------------------------------
def coco_class(
    dataset: Dataset,
    raw: Any,
    k: int,
    iou: float,
    recall_thresholds: FloatArray,
    boxes: FloatArray | None = None,
    area: str = "all",
) -> ProtocolClass:
    """``raw`` (a ``CocoCategoryEvaluation`` of class ``k``) at the threshold nearest ``iou``
    (``boxes``: bbox results' boxes, for the TPs' IoU; see ``ranked_evaluation``). The curve and
    ``ap_at`` are those of area range ``area`` (a ``COCO_AREAS`` name; ``all`` where the task has
    no such range; the largest detection cap); verdicts are always those of area ``all``."""
    t = threshold_index(np.linspace(0.5, 0.95, raw.verdict.shape[0]), iou)
    ev = ranked_evaluation(
        dataset,
        k,
        raw.det_rows,
        raw.image_index,
        raw.score,
        raw.verdict[t],
        raw.matched_gt[t],
        int(raw.npig[0]),
        raw.ap,
        boxes,
    )
    areas = COCO_AREAS if raw.precision.shape[2] == 4 else ("all", "medium", "large")
    area = area if area in areas else "all"
    curve = raw.precision[t, :, areas.index(area), -1]
    ok = curve > -1
    ap_at = float(np.mean(curve[ok])) if np.any(ok) else math.nan
    crowd = dataset.extras["coco"].iscrowd
    return ProtocolClass(
        ev,
        _missed(dataset, k, ev, crowd),
        np.asarray(recall_thresholds)[ok],
        curve[ok],
        ap_at,
        IOU_CHOICES[t],
        raw,
        area,
    )


def _bbox_boxes(results: ResultSet) -> FloatArray | None:
    """The detection boxes if COCO matched boxes (bbox results), else ``None``."""
    return results.detections.box if coco_iou_type(results) == "bbox" else None


def coco_iou_type(results: ResultSet) -> str:
    """``bbox``, ``segm`` or ``keypoints``: what the results file holds."""
    return str(results.extras["coco"].kind)


def check_keypoint_counts(dataset: Dataset, results: ResultSet) -> None:
    """OKS compares COCO's 17 person keypoints: ``FormatError`` naming the annotation or results
    file that holds another count (as ``vocviewer eval --task keypoints`` refuses it)."""
    from vocviewer.evaluation.coco_similarity import KEYPOINT_SIGMAS

    k = len(KEYPOINT_SIGMAS)
    for path, n, p in (
        (dataset.root, len(dataset.objects), dataset.extras["coco"].keypoints.shape[1]),
        (results.files[0], len(results.detections), results.extras["coco"].keypoints.shape[1]),
    ):
        if n and p != k:
            what = f"this file has {p} per entry" if p else "this file has none"
            raise FormatError(path, f"keypoint evaluation compares COCO's {k} keypoints; {what}")


def evaluate_coco_classes(
    dataset: Dataset, results: ResultSet, iou: float, area: str = "all"
) -> Iterator[ProtocolClass | Summary]:
    """COCOeval of the results' own type, category by category, then the summary."""
    from vocviewer.evaluation.coco import CocoParams, collect_coco, iter_evaluate_coco

    kind = coco_iou_type(results)
    if kind == "keypoints":
        check_keypoint_counts(dataset, results)
    params = CocoParams.for_task(kind)
    cats = []
    for k, raw in enumerate(iter_evaluate_coco(dataset, results, params)):
        cats.append(raw)
        pc = coco_class(dataset, raw, k, iou, params.recall_thresholds, _bbox_boxes(results), area)
        yield diagnosed(dataset, results, pc)
    result = collect_coco(tuple(cats), params, results)
    yield Summary(f"COCO {kind}", result.stats(), result.notes)


# --- VisDrone ------------------------------------------------------------------------------------
_VD_VERDICT = np.array([Verdict.IGNORED, Verdict.FP, Verdict.TP], dtype=np.int8)  # -1, 0, 1


def visdrone_classes(
    dataset: Dataset, results: ResultSet, raw: Any, iou: float
) -> list[ProtocolClass]:
    """Per category (0..11) evidence of a ``VisDroneResult`` at the threshold nearest ``iou``;
    categories 0 (ignored regions) and 11 (others) are not evaluated (``has_results`` False)."""
    t = threshold_index(IOU_CHOICES, iou)
    det, gt = results.detections, dataset.extras["visdrone"]
    out = []
    for k in range(len(dataset.classes)):
        v_all = raw.verdict[:, t]
        rows = (
            np.flatnonzero((det.label == k) & (v_all != -2))
            if 1 <= k <= 10
            else np.zeros(0, np.int64)
        )
        rows = rows[np.lexsort((rows, det.image_index[rows], -det.score[rows]))]
        verdict = _VD_VERDICT[v_all[rows] + 1]
        npos = int(raw.npos[k - 1]) if 1 <= k <= 10 else 0
        ap = float(np.mean(raw.ap[k - 1])) / 100 if 1 <= k <= 10 else math.nan
        ev = ranked_evaluation(
            dataset,
            k,
            rows,
            det.image_index[rows],
            det.score[rows],
            verdict,
            raw.matched_gt[rows, t],
            npos,
            ap,
            det.box,
        )
        if not 1 <= k <= 10:
            ev = dataclasses.replace(ev, has_results=False)
        ok = np.isfinite(ev.precision) & np.isfinite(ev.recall)
        exclude = ~raw.gt_kept | (gt.score == 0)
        ap_at = float(raw.ap[k - 1, t]) / 100 if 1 <= k <= 10 else math.nan
        pc = ProtocolClass(
            ev,
            _missed(dataset, k, ev, exclude),
            ev.recall[ok],
            ev.precision[ok],
            ap_at,
            IOU_CHOICES[t],
            raw,
        )
        out.append(diagnosed(dataset, results, pc))
    return out


def evaluate_visdrone_classes(
    dataset: Dataset, results: ResultSet, iou: float
) -> Iterator[ProtocolClass | Summary]:
    """The toolkit's evaluation (all at once), then per category, then the summary (percent)."""
    from vocviewer.evaluation.visdrone import evaluate_visdrone

    raw = evaluate_visdrone(dataset, results)
    yield from visdrone_classes(dataset, results, raw, iou)
    yield Summary("VisDrone-DET", raw.summary, raw.notes, percent=True)


# --- ILSVRC DET ----------------------------------------------------------------------------------
_ILSVRC_VERDICT = np.array([Verdict.IGNORED, Verdict.FP, Verdict.TP], dtype=np.int8)  # -1, 0, 1


def ilsvrc_classes(dataset: Dataset, results: ResultSet, raw: Any) -> list[ProtocolClass]:
    """Per label, the ranked evidence of an ``IlsvrcDetResult`` (blacklisted detections are
    ignored ranks; labels above the largest ground-truth label are not evaluated)."""
    det = results.detections
    image_id = dataset.extras["ilsvrc"].image_id[det.image_index]
    out = []
    for k in range(len(dataset.classes)):
        evaluated = k < len(raw.ap)
        rows = np.flatnonzero((det.label == k) & (raw.verdict >= -1))
        rows = rows[np.lexsort((rows, image_id[rows], -det.score[rows]))]  # the devkit's order
        verdict = _ILSVRC_VERDICT[raw.verdict[rows] + 1]
        npos = int(raw.npos[k]) if evaluated else 0
        ap = float(raw.ap[k]) if evaluated else math.nan
        ev = ranked_evaluation(
            dataset,
            k,
            rows,
            det.image_index[rows],
            det.score[rows],
            verdict,
            raw.matched_gt[rows],
            npos,
            ap,
            det.box,
        )
        if not evaluated:
            ev = dataclasses.replace(ev, has_results=False)
        ok = np.isfinite(ev.precision) & np.isfinite(ev.recall)
        pc = ProtocolClass(
            ev,
            _missed(dataset, k, ev, np.zeros(len(dataset.objects), bool)),
            ev.recall[ok],
            ev.precision[ok],
            ap,
            0.5,
            raw,
        )
        out.append(diagnosed(dataset, results, pc))
    return out


def evaluate_ilsvrc_classes(
    dataset: Dataset, results: ResultSet
) -> Iterator[ProtocolClass | Summary]:
    """The devkit's DET evaluation, then per label, then mean and median AP."""
    from vocviewer.evaluation.ilsvrc import evaluate_ilsvrc_det

    raw = evaluate_ilsvrc_det(dataset, results)
    yield from ilsvrc_classes(dataset, results, raw)
    yield Summary("ILSVRC DET", {"mAP": raw.mean_ap, "medianAP": raw.median_ap}, raw.notes)


def protocol_of(dataset: Dataset) -> str | None:
    """``"coco"``, ``"visdrone"`` or ``"ilsvrc"`` when the window evaluates the dataset with
    that protocol (``None``: VOC, which the state evaluates itself)."""
    for name in ("coco", "visdrone", "ilsvrc"):
        if name in dataset.extras:
            return name
    return None


def evaluate_protocol(
    dataset: Dataset, results: ResultSet, iou: float, area: str = "all"
) -> Iterator[ProtocolClass | Summary]:
    """The dataset's protocol (``protocol_of``), as a generator a worker drives (``area``: the
    COCO area range of the curves)."""
    protocol = protocol_of(dataset)
    if protocol == "coco":
        return evaluate_coco_classes(dataset, results, iou, area)
    if protocol == "ilsvrc":
        return evaluate_ilsvrc_classes(dataset, results)
    return evaluate_visdrone_classes(dataset, results, iou)


def rederive(
    dataset: Dataset, results: ResultSet, raws: Mapping[int, Any], iou: float, area: str = "all"
) -> list[ProtocolClass]:
    """Every evaluated class again at another threshold, from the stored evidence (no matching)."""
    if protocol_of(dataset) == "visdrone":
        raw = next(iter(raws.values()))
        return visdrone_classes(dataset, results, raw, iou)
    if protocol_of(dataset) == "ilsvrc":  # per-object thresholds: nothing to choose
        return ilsvrc_classes(dataset, results, next(iter(raws.values())))
    from vocviewer.evaluation.coco import CocoParams

    rt = CocoParams().recall_thresholds
    boxes = _bbox_boxes(results)
    return [
        diagnosed(dataset, results, coco_class(dataset, raws[k], k, iou, rt, boxes, area))
        for k in sorted(raws)
    ]


# --- loading -------------------------------------------------------------------------------------
def _sibling(path: Path, prefix: str) -> Path | None:
    stem = path.stem
    split = stem.split("_", 1)[1] if "_" in stem else ""
    if not split or stem.startswith("captions_"):
        split = stem.split("_", 1)[-1]
    p = path.with_name(f"{prefix}_{split}.json")
    return p if p.is_file() and p != path else None


def attach_companions(dataset: Dataset, path: Path) -> Dataset:
    """Add ``extras["coco_view"]`` (``CocoCompanions``): keypoints and captions from the file
    itself, else from ``person_keypoints_<split>.json`` / ``captions_<split>.json`` beside it
    (matched by annotation id and image id; unreadable siblings are skipped)."""
    from vocviewer.core.errors import FormatError
    from vocviewer.formats.coco import read_coco

    coco = dataset.extras["coco"]
    keypoints, skeleton, captions = coco.keypoints, tuple(coco.skeleton), coco.captions
    kp_file = _sibling(path, "person_keypoints") if keypoints.shape[1] == 0 else None
    cap_file = _sibling(path, "captions") if not any(captions) else None
    try:
        if kp_file is not None:
            other = read_coco(
                kp_file, dataset.images.path[0].parent if len(dataset.images) else None, masks=False
            )
            oc = other.extras["coco"]
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
            other = read_coco(cap_file, None, masks=False)
            by_image = dict(
                zip(
                    other.extras["coco"].image_id.tolist(),
                    other.extras["coco"].captions,
                    strict=True,
                )
            )
            captions = tuple(by_image.get(i, ()) for i in coco.image_id.tolist())
    except (FormatError, OSError, ValueError):
        pass
    view = CocoCompanions(keypoints, skeleton, captions)
    return dataclasses.replace(dataset, extras={**dataset.extras, "coco_view": view})
