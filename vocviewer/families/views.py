"""What a benchmark gives the window: per-class evidence in one shape for every family.

A family's ``evaluate_views(dataset, results, choice, diagnose=True)`` yields one ``ClassView``
per class (a detection or classification ``ClassEvaluation`` with its missed objects, the
protocol's own curve at the chosen IoU threshold and area range, the AP there and, unless
``diagnose`` is False, the false-positive diagnosis), ``Notice`` lines on the way and, last, the protocol's ``Summary``. Its
``view_settings(dataset)`` says what the window may choose (IoU thresholds, area ranges; which
choices are official) and how to explain verdicts (``DiagnosisRules``). ``rederive_views``
re-shapes stored evidence at another choice without matching again, where the protocol allows.
Nothing here imports Qt: the window's models consume these objects as they are.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules, FalsePositives, classify_false_positives
from vocviewer.evaluation.result import ClassEvaluation, Verdict

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: IoU thresholds .50:.05:.95 (COCO's and VisDrone's; offered to choose from in the window).
IOU_CHOICES: tuple[float, ...] = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
#: A toolkit's per-detection code -1 / 0 / 1 (ignored / false / true positive, as VisDrone's and
#: ILSVRC's evaluators record it) as a ``Verdict``: ``TOOLKIT_VERDICT[code + 1]``.
TOOLKIT_VERDICT = np.array([Verdict.IGNORED, Verdict.FP, Verdict.TP], dtype=np.int8)
#: ``ClassEvaluation.duplicate_of`` of a protocol without duplicates: -1, broadcast to every rank.
_NO_DUPLICATE = np.int64(-1)
#: Area ranges a family may offer for its curves (COCO's: all, small, medium, large).
AREA_CHOICES: tuple[str, ...] = ("all", "small", "medium", "large")
#: The IoU kinds for mask results beside their own (mask IoU, ``""``): Boundary AP's.
IOU_KINDS: tuple[str, ...] = ("boundary",)


#: Boundary AP's official dilation ratio (Cheng et al., CVPR 2021; boundary-iou-api's default).
BOUNDARY_DILATION = 0.02


@dataclass(frozen=True)
class ViewChoice:
    """What the user chose: ``iou`` threshold of verdicts and curves, ``area`` range of the
    curves, ``image_set`` evaluated (VOC's Main sets; ``None`` elsewhere), ``iou_kind`` of mask
    results (``""``: the results' own, mask IoU; ``"boundary"``: Boundary AP's IoU at
    ``dilation_ratio`` of the image diagonal, ``ViewSettings.iou_kinds``)."""

    iou: float = 0.5
    area: str = "all"
    image_set: str | None = None
    iou_kind: str = ""
    dilation_ratio: float = BOUNDARY_DILATION


@dataclass(frozen=True)
class ViewSettings:
    """What the window offers for a dataset of this family.

    ``iou_choices``: IoU thresholds to choose from (empty: fixed by the protocol, e.g. ILSVRC's
    per-object thresholds); ``official_iou``: the only official one (``None``: all are);
    ``areas``: area ranges of the curves (first: all); ``ap_name``: what a class's AP averages
    ("AP[.5:.95]", "AP"); ``percent``: the summary is in percent; ``rules``: how verdicts are
    explained; ``image_sets``: the family evaluates named image sets (VOC's Main sets);
    ``rederives``: another choice re-shapes the stored evidence (``rederive_views``) rather
    than evaluating anew; ``ap_rule``: how a class's AP at one IoU averages its precision
    (``"allpoints"``, ``"11point"`` or ``"coco101"``; the window's normalised AP follows it);
    ``iou_kinds``: the IoU kinds offered for mask results (``("", "boundary")``: mask IoU or
    Boundary IoU; empty: none to choose)."""

    title: str
    iou_choices: tuple[float, ...] = ()
    official_iou: float | None = None
    areas: tuple[str, ...] = ("all",)
    ap_name: str = "AP"
    percent: bool = False
    rules: DiagnosisRules = field(default_factory=DiagnosisRules)
    image_sets: bool = False
    rederives: bool = True
    ap_rule: str = "allpoints"
    iou_kinds: tuple[str, ...] = ()

    def default_choice(self) -> ViewChoice:
        """The official choice: 0.5 where it is offered (COCO's AP50, VOC), else the first."""
        iou = self.official_iou or (0.5 if 0.5 in self.iou_choices or not self.iou_choices else 0)
        return ViewChoice(float(iou or self.iou_choices[0]), self.areas[0])

    def official(self, choice: ViewChoice) -> bool:
        """Whether numbers computed at ``choice`` are the protocol's official ones."""
        return self.official_iou is None or math.isclose(choice.iou, self.official_iou)

    @property
    def averages_thresholds(self) -> bool:
        """A class's AP averages several IoU thresholds (COCO's AP[.5:.95]): the window shows
        the protocol's curve and AP at the chosen one beside it."""
        return self.ap_name != "AP"

    def not_official(self, choice: ViewChoice) -> str:
        """``" NOT OFFICIAL (IoU 0.70)"`` where ``choice`` is not the protocol's, else ``""``."""
        return "" if self.official(choice) else f" NOT OFFICIAL (IoU {choice.iou:.2f})"

    def verdict_iou(self, choice: ViewChoice) -> float:
        """The IoU threshold the verdicts were decided at (fixed protocols: 0.5, in words)."""
        return choice.iou if self.iou_choices else 0.5


@dataclass(frozen=True, eq=False)
class ClassView:
    """One class's evaluation at one choice, for the window.

    ``missed`` int64: object rows of the class no true positive matched (ignored objects
    excluded); ``curve_recall`` / ``curve_precision`` float64: the protocol's own curve at the
    threshold (COCO: the 101 recall thresholds where precision is defined, largest cap);
    ``ap_at``: the AP at that threshold (NaN if undefined); ``raw``: the protocol's evidence
    (for ``rederive_views``); ``false_positives``: the diagnosis of detection classes;
    ``left_out``: why the official code leaves the class out of its averages (e.g. "no ground
    truth"; the window shows "—" with it, never its AP), ``""`` where it counts."""

    evaluation: ClassEvaluation
    missed: IntArray
    curve_recall: FloatArray
    curve_precision: FloatArray
    ap_at: float
    iou: float
    raw: Any = None
    area: str = "all"
    false_positives: FalsePositives | None = None
    left_out: str = ""

    @property
    def class_index(self) -> int:
        return self.evaluation.class_index


@dataclass(frozen=True)
class Summary:
    """A protocol's summary numbers in its printed order (``percent``: VisDrone's scale);
    ``headline`` names the number the window shows as the result set's mean."""

    protocol: str
    stats: Mapping[str, float]
    notes: tuple[str, ...] = ()
    percent: bool = False
    headline: str | None = None


@dataclass(frozen=True, eq=False)
class ViewExtras:
    """What the window draws beside the objects, in no family's terms (``Dataset.data(ViewExtras)``,
    attached by the family's ``prepare_view``; ``view_extras`` reads it).

    ``keypoints`` float64 (N, P, 3) per object row (P = 0: none) with ``skeleton`` per class,
    int64 (E, 2) 1-based keypoint pairs; ``captions`` per image row; ``masks`` a ``core.masks``
    column of instance masks (one per object row) drawn largest ``mask_area`` first and named by
    ``mask_ids`` in messages; ``crowd`` bool (N,): crowd regions (hatched, tagged); ``regions``
    bool (N,): ignored regions (shaded, not drawn as objects); ``unevaluated``: class indices the
    protocol never evaluates (their objects drawn grey and dashed, never as missed);
    ``group_of`` bool (N,): boxes around a group of instances (Open Images' ``IsGroupOf``),
    drawn dashed and tagged ``G``."""

    keypoints: FloatArray | None = None
    skeleton: tuple[IntArray, ...] = ()
    captions: tuple[tuple[str, ...], ...] = ()
    masks: Any = None
    mask_area: FloatArray | None = None
    mask_ids: IntArray | None = None
    crowd: npt.NDArray[np.bool_] | None = None
    regions: npt.NDArray[np.bool_] | None = None
    unevaluated: frozenset[int] = frozenset()
    group_of: npt.NDArray[np.bool_] | None = None


def detection_note(view: ClassView | None, row: int) -> str:
    """What the protocol's own evidence says of detection ``row`` beyond its verdict — a
    ``raw`` that has ``describe(row) -> str`` (Open Images: absorbed by a group-of box, a
    class not verified on the image) — as a paragraph; ``""`` if nothing."""
    describe = getattr(view.raw, "describe", None) if view is not None else None
    return f"\n{describe(row)}" if callable(describe) else ""


def view_extras(dataset: Dataset) -> ViewExtras:
    """The dataset's ``ViewExtras`` (empty ones if its family attached none)."""
    extras = dataset.data_or_none(ViewExtras)
    return extras if isinstance(extras, ViewExtras) else ViewExtras()


def with_view_extras(dataset: Dataset, extras: ViewExtras) -> Dataset:
    """``dataset`` carrying ``extras`` (a new ``Dataset``; the one given is not changed)."""
    return dataset.with_data(extras)


@dataclass(frozen=True)
class Notice:
    """A line for the message area (``level``: ``"error"``, ``"warning"`` or ``"info"``)."""

    level: str
    text: str


def threshold_index(thresholds: npt.ArrayLike, iou: float) -> int:
    """Index of the threshold nearest ``iou``."""
    return int(np.argmin(np.abs(np.asarray(thresholds, dtype=np.float64) - iou)))


#: the similarity (IoU, OKS) of aligned (detection row, object row) pairs, float64 (E,)
PairIoU = Callable[[IntArray, IntArray], FloatArray]


def box_pair_iou(dataset: Dataset, results: ResultSet) -> PairIoU:
    """Box IoU of (detection row, object row) pairs (``core.boxes.overlap_pairs``, the dataset's
    box convention)."""

    def iou(det: IntArray, obj: IntArray) -> FloatArray:
        pair = (results.detections.box_rows(det), dataset.objects.box[obj])
        return overlap_pairs(*pair, plus_one=dataset.plus_one)[1]

    return iou


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
    pair_iou: PairIoU | None = None,
    tp_iou: FloatArray | None = None,
) -> ClassEvaluation:
    """A detection ``ClassEvaluation`` from ranked evidence (``order``: detection rows in rank
    order); precision/recall after each rank count TPs and FPs (ignored ranks change neither;
    NaN before the first counted rank).

    ``pair_iou``: the protocol's similarity of (detection row, object row) pairs; each TP's
    ``best_iou`` is then its similarity with the matched object (NaN elsewhere, and for every
    rank without it); ``tp_iou``: those already known, by rank (NaN elsewhere), used instead."""
    tp = np.cumsum(verdict == Verdict.TP).astype(np.float64)
    fp = np.cumsum(verdict == Verdict.FP).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1.0), np.nan)
        recall = tp / npos if npos > 0 else np.full(len(tp), np.nan)
    n = len(order)
    best_iou = np.full(n, np.nan) if tp_iou is None else tp_iou
    if pair_iou is not None and tp_iou is None:
        hit = np.flatnonzero((verdict == Verdict.TP) & (matched >= 0))
        best_iou[hit] = pair_iou(order[hit], matched[hit])
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
        duplicate_of=np.broadcast_to(_NO_DUPLICATE, (n,)),  # read-only, no memory per rank
        precision=precision,
        recall=recall,
        ap=ap,
    )


def missed_rows(
    dataset: Dataset, ev: ClassEvaluation, exclude: npt.NDArray[np.bool_] | None = None
) -> IntArray:
    """Object rows of ``ev``'s class (less ``exclude``) that no true positive matched."""
    want = dataset.objects.label == ev.class_index
    if exclude is not None:
        want &= ~exclude
    want[ev.best_gt[(ev.verdict == Verdict.TP) & (ev.best_gt >= 0)]] = False
    return np.flatnonzero(want).astype(np.int64)


def diagnose_pending(
    dataset: Dataset, results: ResultSet, view: ClassView, rules: DiagnosisRules
) -> ClassView:
    """A view evaluated with ``diagnose=False`` (elsewhere: the window's helper process, so
    both cores work) as ``diagnosed`` would have made it."""
    if view.false_positives is not None:
        return view
    return diagnosed(dataset, results, view, rules)


def diagnosed(
    dataset: Dataset,
    results: ResultSet,
    view: ClassView,
    rules: DiagnosisRules,
    diagnose: bool = True,
) -> ClassView:
    """``view`` with its false positives diagnosed (``analysis.classify_false_positives``, at
    the view's IoU threshold: protocols without a duplicate verdict count a false positive on
    an object of its class by that IoU as a duplicate); as it is if ``diagnose`` is False (the
    CLI's printed layout needs no diagnosis; the window's helper process leaves it to
    ``diagnose_pending``)."""
    if view.evaluation.task != "det" or not diagnose:
        return view
    ev, kept = view.evaluation, _DIAGNOSED.get(view.evaluation)
    asked = (rules.groups, view.iou)
    if kept is not None and kept[0]() is dataset and kept[1]() is results and kept[2] == asked:
        return dataclasses.replace(view, false_positives=kept[3])
    fp = classify_false_positives(
        dataset,
        results,
        ev,
        plus_one=dataset.plus_one,
        groups=rules.groups,
        iou_threshold=view.iou,
    )
    _DIAGNOSED[ev] = (weakref.ref(dataset), weakref.ref(results), asked, fp)
    return dataclasses.replace(view, false_positives=fp)


#: each evaluation's last diagnosis (held weakly): its dataset and results (weakly), (groups,
#: IoU) and its ``FalsePositives``; a view derived again from the same evaluation (a family's
#: re-derive keeping a view evaluated undiagnosed) takes it from here
_DIAGNOSED: weakref.WeakKeyDictionary[ClassEvaluation, tuple[Any, Any, Any, FalsePositives]] = (
    weakref.WeakKeyDictionary()
)


def curve_view(
    ev: ClassEvaluation,
    missed: IntArray,
    iou: float,
    raw: Any = None,
    ap_at: float | None = None,
) -> ClassView:
    """A ``ClassView`` whose curve is the ranked precision/recall itself (VOC, VisDrone,
    ILSVRC: the protocol integrates exactly these points). A class without positives has AP
    NaN, which the mean leaves out (``EvalResult.mean_ap``): ``left_out`` says so."""
    ok = np.isfinite(ev.precision) & np.isfinite(ev.recall)
    ap = ev.ap if ap_at is None else ap_at
    left = "no positives: AP NaN, not in the mean" if ev.npos == 0 and math.isnan(ap) else ""
    return ClassView(ev, missed, ev.recall[ok], ev.precision[ok], ap, iou, raw, left_out=left)
