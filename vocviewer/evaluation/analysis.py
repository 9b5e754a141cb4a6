"""Evidence in words: why each ranked detection is what it is (pure numpy, no Qt).

False-positive kinds follow the diagnosis of Hoiem, Chodpathumwan and Dai (ECCV 2012), used in the
PASCAL VOC retrospective (IJCV 2015): a false positive is

* ``DUPLICATE``      — its best same-class object was already taken by a higher-ranked detection
                       (the protocol's own verdict; for protocols without one — COCO, VisDrone,
                       ILSVRC — a false positive overlapping an object of its class by at least
                       the protocol's IoU threshold, which only a taken object allows);
* ``LOCALIZATION``   — it overlaps an object of its class with ``0.1 <= IoU < threshold``
                       (duplicates count as localisation errors too: see ``FPKind.is_localization``);
* ``SIMILAR``        — otherwise, it overlaps (IoU >= 0.1) an object of a *similar* class
                       (``DiagnosisRules.groups``: VOC's animals, vehicles, furniture; COCO's
                       supercategories; VisDrone's people, cars, two- and three-wheelers);
* ``OTHER``          — otherwise, it overlaps (IoU >= 0.1) an object of any other class;
* ``BACKGROUND``     — it overlaps nothing by IoU >= 0.1.

Everything is vectorised over a ``ClassEvaluation`` (per-rank arrays) and the ``Dataset``; the
verdicts themselves are the protocol's and are never re-derived here (DESIGN rule 5). Overlaps are
box IoUs with the VOC rule (inclusive pixels, ``plus_one=True``) unless told otherwise; where the
protocol records no overlap for a false positive (COCO and the others record the matched object's
only), its best same-class overlap is measured here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.drawn import is_drawn
from vocviewer.evaluation.matching import best_overlaps, group_offsets
from vocviewer.evaluation.pair_overlaps import Bests, remembered_best
from vocviewer.evaluation.result import ClassEvaluation, Verdict

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: Similarity groups of VOC classes (Hoiem et al. 2012); classes in no group are similar to none.
SIMILAR_GROUPS: dict[str, frozenset[str]] = {
    "animals": frozenset({"bird", "cat", "cow", "dog", "horse", "sheep"}),
    "vehicles": frozenset({"aeroplane", "bicycle", "boat", "bus", "car", "motorbike", "train"}),
    "furniture": frozenset({"chair", "diningtable", "sofa"}),
}
#: VisDrone's similar categories (pedestrian and people; four-wheelers; two- and three-wheelers).
VISDRONE_GROUPS: dict[str, frozenset[str]] = {
    "people": frozenset({"pedestrian", "people"}),
    "cars": frozenset({"car", "van", "truck", "bus"}),
    "cycles": frozenset({"bicycle", "tricycle", "awning-tricycle", "motor"}),
}
#: Minimum IoU for "overlaps" in the diagnosis (localisation and confusion).
MIN_OVERLAP = 0.1


class FPKind(IntEnum):
    """Kind of a ranked detection's error (``NOT_FP`` for TP and ignored ranks)."""

    NOT_FP = 0
    DUPLICATE = 1
    LOCALIZATION = 2
    SIMILAR = 3
    OTHER = 4
    BACKGROUND = 5

    @property
    def is_localization(self) -> bool:
        """Localisation error in the wide sense (poor overlap or duplicate)."""
        return self in (FPKind.DUPLICATE, FPKind.LOCALIZATION)

    @property
    def label(self) -> str:
        """Short human-readable name (``"poor localisation"``, ``"wrong class (similar)"``, ...)."""
        return _KIND_LABELS[self]


_KIND_LABELS = {
    FPKind.NOT_FP: "not a false positive",
    FPKind.DUPLICATE: "duplicate",
    FPKind.LOCALIZATION: "poor localisation",
    FPKind.SIMILAR: "wrong class (similar)",  # the window's one name for both: "wrong class"
    FPKind.OTHER: "wrong class (other)",
    FPKind.BACKGROUND: "background",
}


@dataclass(frozen=True)
class DiagnosisRules:
    """How a family's verdicts are diagnosed and explained: ``groups`` of similar classes
    (VOC's animals, vehicles, furniture by default), ``ignored_reason`` (why the protocol ignores
    a detection, in words) and ``crowd`` (bool per object row: crowd regions; ``None``: none)."""

    groups: Mapping[str, frozenset[str]] = field(default_factory=lambda: SIMILAR_GROUPS)
    ignored_reason: str = "Difficult objects are not counted."
    crowd: npt.NDArray[np.bool_] | None = None

    def is_crowd(self, row: int) -> bool:
        return bool(self.crowd is not None and self.crowd[row])


def similarity_group(
    class_name: str, groups: Mapping[str, frozenset[str]] = SIMILAR_GROUPS
) -> str | None:
    """Name of the group of ``groups`` containing ``class_name``, else ``None``."""
    for group, members in groups.items():
        if class_name in members:
            return group
    return None


@dataclass(frozen=True, eq=False)
class FalsePositives:
    """Per-rank diagnosis of one ``ClassEvaluation`` (arrays aligned with its ranks).

    kind : int8 (D,)            ``FPKind``
    confused_gt : int64 (D,)    ``SIMILAR``/``OTHER``: the other-class object row overlapped most
                                (within the chosen group), else -1
    confused_iou : float64 (D,) its IoU (NaN where ``confused_gt`` is -1)
    same_gt : int64 (D,)        the best-overlapping object of the detection's class (the
                                protocol's ``best_gt`` where it has one, else measured), else -1
    same_iou : float64 (D,)     its IoU (NaN where ``same_gt`` is -1)
    """

    kind: npt.NDArray[np.int8]
    confused_gt: IntArray
    confused_iou: FloatArray
    same_gt: IntArray
    same_iou: FloatArray

    def counts(self) -> dict[str, int]:
        """Number of false positives per kind name (``NOT_FP`` left out)."""
        return {
            k.name.lower(): int(np.count_nonzero(self.kind == k))
            for k in FPKind
            if k != FPKind.NOT_FP
        }


def best_among(
    dataset: Dataset, image: IntArray, box: FloatArray, rows: IntArray, plus_one: bool
) -> tuple[IntArray, FloatArray]:
    """Best-overlapping object among object ``rows`` (ascending) in each detection's image:
    object row (-1: none there) and IoU (NaN where -1); first row on ties (``best_overlaps``)."""
    obj = dataset.objects
    offsets = group_offsets(obj.image_index[rows], len(dataset.images))
    cand, ov = best_overlaps(image, box, offsets, obj.box[rows], plus_one=plus_one)
    found = cand >= 0
    out = np.full(len(image), -1, dtype=np.int64)
    out[found] = rows[cand[found]]
    return out, ov


def classify_false_positives(
    dataset: Dataset,
    results: ResultSet,
    ev: ClassEvaluation,
    *,
    plus_one: bool = True,
    min_overlap: float = MIN_OVERLAP,
    groups: Mapping[str, frozenset[str]] = SIMILAR_GROUPS,
    iou_threshold: float | None = None,
) -> FalsePositives:
    """Diagnose every false positive of a detection ``ClassEvaluation`` (see module docstring).

    ``results`` must be the result set ``ev`` was computed from (``ev.order`` indexes its rows).
    ``groups``: the similarity groups (``DiagnosisRules.groups``). ``iou_threshold``: for protocols
    without a duplicate verdict, the IoU threshold at which a false positive's overlap with an
    object of its class makes it a duplicate.

    Each object considered is the best-overlapping one among the objects of its image of the
    wanted classes (``best_among``: first row on ties); the overlaps of the false positives that
    need any are computed once, against every object of their image, and reduced per wanted set;
    they are remembered per result set (``pair_overlaps.remembered_best``): another IoU threshold
    or area range searches only the detections not seen before."""
    n = len(ev)
    kind = np.zeros(n, dtype=np.int8)
    confused = np.full(n, -1, dtype=np.int64)
    confused_iou = np.full(n, np.nan)
    same_gt, same_iou = ev.best_gt.astype(np.int64), ev.best_iou.astype(np.float64)
    if ev.task != "det" or n == 0:
        return FalsePositives(kind, confused, confused_iou, same_gt, same_iou)
    fp = ev.verdict == np.int8(Verdict.FP)  # an int8 scalar: no enum in the loop
    unmeasured = fp & np.isnan(same_iou)
    # false positives that may end up neither duplicate nor poorly localised (a superset)
    needed = np.flatnonzero(unmeasured | (fp & ~(same_iou >= min_overlap)))
    group = groups.get(similarity_group(ev.class_name, groups) or "", frozenset())
    similar = [k for k, c in enumerate(dataset.classes) if c in group and k != ev.class_index]
    label, order, image = ev.class_index, ev.order, ev.image_index
    bests = remembered_best(dataset, results, order, image, needed, plus_one, label, similar)
    columns = (ev.verdict, same_gt, same_iou, kind, confused, confused_iou)
    classify_kinds(columns, needed, unmeasured, bests, min_overlap, iou_threshold)
    return FalsePositives(kind, confused, confused_iou, same_gt, same_iou)


def classify_kinds(
    columns: tuple[npt.NDArray[Any], ...],
    needed: npt.NDArray[np.int64],
    unmeasured: npt.NDArray[np.bool_],
    bests: Bests,
    min_overlap: float,
    iou_threshold: float | None,
) -> None:
    """``classify_false_positives``' last steps, in place: ``columns`` = verdict, same_gt,
    same_iou (filled in where ``unmeasured``), kind, confused, confused_iou (written) by rank;
    ``bests``: the searched overlaps of the ``needed`` ranks."""
    verdict, same_gt, same_iou, kind, confused, confused_iou = columns
    fp = verdict == np.int8(Verdict.FP)
    um = np.flatnonzero(unmeasured[needed])
    if len(um):
        ranks = needed[um]
        same_gt[ranks], same_iou[ranks] = bests.take(0, um)
    overlap = same_iou  # NaN (no overlap measured) compares False, as -inf would
    dup = verdict == np.int8(Verdict.DUPLICATE)
    if iou_threshold is not None:
        dup |= fp & (overlap >= iou_threshold)
    loc = fp & ~dup & (overlap >= min_overlap)
    kind[dup] = FPKind.DUPLICATE
    kind[loc] = FPKind.LOCALIZATION
    rest_mask = fp & ~dup & ~loc
    if rest_mask.any():
        kind[rest_mask] = FPKind.BACKGROUND
        at = np.flatnonzero(rest_mask[needed])  # every rest rank is a needed one
        rest = needed[at]
        todo = np.ones(len(rest), dtype=bool)
        for new_kind, which in ((FPKind.SIMILAR, 1), (FPKind.OTHER, 2)):
            best, ov = bests.take(which, at)
            hit = todo & (best >= 0) & (ov >= min_overlap)  # NaN: False
            found = rest[hit]
            kind[found], confused[found], confused_iou[found] = new_kind, best[hit], ov[hit]
            todo &= ~hit


# --- per image --------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ImageCounts:
    """Per-image counts for one class, each int64 (I,) over ``Dataset.images`` rows.

    ``tp`` true positives, ``fp`` false positives (duplicates included), ``missed`` non-difficult
    objects of the class never matched by a true positive (in the evaluated images only).
    """

    tp: IntArray
    fp: IntArray
    missed: IntArray


def missed_objects(
    dataset: Dataset, ev: ClassEvaluation, images: IntArray | None = None
) -> IntArray:
    """Object rows of ``ev``'s class, non-difficult, on ``images`` (default: all), that no true
    positive matched — the objects the detector missed (ascending)."""
    obj = dataset.objects
    want = (obj.label == ev.class_index) & ~obj.difficult
    if images is not None:
        in_set = np.zeros(len(dataset.images), dtype=bool)
        in_set[np.asarray(images, dtype=np.int64)] = True
        want &= in_set[obj.image_index]
    matched = ev.best_gt[(ev.verdict == Verdict.TP) & (ev.best_gt >= 0)]
    want[matched] = False
    return np.flatnonzero(want).astype(np.int64)


def image_counts(
    dataset: Dataset,
    ev: ClassEvaluation,
    images: IntArray | None = None,
    threshold: float = -math.inf,
) -> ImageCounts:
    """TP / FP counts per image for one detection ``ClassEvaluation`` (detections scoring at
    least ``threshold``; all by default) and its missed objects (at any score)."""
    n = len(dataset.images)
    shown = is_drawn(ev.score, threshold) if threshold > -math.inf else np.ones(len(ev), bool)
    tp = np.bincount(ev.image_index[shown & (ev.verdict == Verdict.TP)], minlength=n)
    fp = np.bincount(ev.image_index[shown & (ev.verdict >= Verdict.FP)], minlength=n)
    tp, fp = tp.astype(np.int64), fp.astype(np.int64)
    missed_rows = missed_objects(dataset, ev, images)
    missed = np.bincount(dataset.objects.image_index[missed_rows], minlength=n).astype(np.int64)
    return ImageCounts(tp, fp, missed)


@dataclass(frozen=True, eq=False)
class ImageComparison:
    """Images where two result sets differ for one class, biggest difference first.

    ``image`` int64 (M,) rows; ``tp_a``, ``tp_b``, ``fp_a``, ``fp_b`` int64 (M,) counts there;
    ``difference`` = ``tp_a - tp_b`` (positive: A finds more objects).
    """

    image: IntArray
    tp_a: IntArray
    tp_b: IntArray
    fp_a: IntArray
    fp_b: IntArray

    @property
    def difference(self) -> IntArray:
        return self.tp_a - self.tp_b

    def __len__(self) -> int:
        return len(self.image)


def compare_images(
    dataset: Dataset, ev_a: ClassEvaluation, ev_b: ClassEvaluation, threshold: float = -math.inf
) -> ImageComparison:
    """Images whose TP or FP count differs between two evaluations of the same class, counting
    detections scoring at least ``threshold`` (those drawn); sorted by ``|tp_a - tp_b|``
    descending (A-better first on equal size), then by ``|fp_a - fp_b|`` descending, then by
    image row."""
    a = image_counts(dataset, ev_a, threshold=threshold)
    b = image_counts(dataset, ev_b, threshold=threshold)
    diff, fp_diff = a.tp - b.tp, np.abs(a.fp - b.fp)
    rows = np.flatnonzero((diff != 0) | (fp_diff != 0))
    order = np.lexsort((rows, -fp_diff[rows], -diff[rows], -np.abs(diff[rows])))
    rows = rows[order].astype(np.int64)
    return ImageComparison(rows, a.tp[rows], b.tp[rows], a.fp[rows], b.fp[rows])


# --- ranks ------------------------------------------------------------------------------------
def is_false_positive(ev: ClassEvaluation) -> npt.NDArray[np.bool_]:
    """bool (D,): FP or duplicate at each rank."""
    return np.asarray(ev.verdict >= Verdict.FP)


def next_false_positive(ev: ClassEvaluation, rank: int, step: int = 1) -> int:
    """The nearest FP rank after (``step`` +1) or before (-1) ``rank``; -1 if there is none.

    ``rank`` -1 with ``step`` +1 finds the first FP; ``rank`` ``len(ev)`` with -1 the last."""
    fps = np.flatnonzero(is_false_positive(ev))
    if step > 0:
        after = fps[fps > rank]
        return int(after[0]) if len(after) else -1
    before = fps[fps < rank]
    return int(before[-1]) if len(before) else -1


def top_false_positive(
    evaluations: Mapping[int, ClassEvaluation], step: int = 1
) -> tuple[int, int] | None:
    """``(class, rank)`` of the highest-scoring false positive over all classes (``step`` +1) or
    the lowest-scoring one (-1); ties go to the lower class index. ``None`` if there is none."""
    best: tuple[float, int, int] | None = None
    for k in sorted(evaluations):
        ev = evaluations[k]
        rank = next_false_positive(ev, -1 if step > 0 else len(ev), step)
        if rank < 0:
            continue
        key = (-float(ev.score[rank]) if step > 0 else float(ev.score[rank]), k, rank)
        best = key if best is None or key[:2] < best[:2] else best
    return None if best is None else (best[1], best[2])


def drop_cause(ev: ClassEvaluation, rank: int) -> int:
    """The false positive to blame for the precision drop near ``rank``: ``rank`` itself if it is
    one, else the nearest FP rank (the earlier one on ties); -1 if the class has no FP."""
    fps = np.flatnonzero(is_false_positive(ev))
    if not len(fps):
        return -1
    dist = np.abs(fps - rank)
    return int(fps[np.argmin(dist)])  # argmin takes the first (earlier) on ties


# --- words ------------------------------------------------------------------------------------
def object_name(dataset: Dataset, row: int) -> str:
    """``dog #2`` (the devkit's 1-based object index in its image)."""
    obj = dataset.objects
    return f"{dataset.classes[int(obj.label[row])]} #{int(obj.order_in_image[row]) + 1}"


def explain(
    dataset: Dataset,
    results: ResultSet,
    ev: ClassEvaluation,
    rank: int,
    *,
    iou_threshold: float = 0.5,
    analysis: FalsePositives | None = None,
    rules: DiagnosisRules | None = None,
) -> str:
    """The protocol's verdict at ``rank`` with its reason, in words (a few lines).

    Names the best-overlapping object of the class (index in its image, IoU against
    ``iou_threshold``, difficult or crowd), the higher-ranked detection that took it for
    duplicates, and for other false positives the diagnosis (``classify_false_positives``),
    naming a confused class. Pass ``analysis`` to reuse a diagnosis already computed for ``ev``
    (COCO, VisDrone and ILSVRC evaluations need it: their false positives carry no overlap);
    ``rules``: the family's similar classes, crowd flags and ignore reason (default: VOC's).
    """
    rules = rules or DiagnosisRules()
    if not 0 <= rank < len(ev):
        raise IndexError(f"rank {rank} outside 0..{len(ev) - 1}")
    image_id = str(dataset.images.id[int(ev.image_index[rank])])
    head = (
        f"Rank {rank + 1} of {len(ev)} · {ev.class_name} · score {ev.score[rank]:.4g} "
        f"· image {image_id}"
    )
    verdict = Verdict(int(ev.verdict[rank]))
    if ev.task != "det":
        what = {Verdict.TP: "a positive image", Verdict.FP: "a negative image"}
        return f"{head}\n{verdict.name}: {what.get(verdict, 'an image labelled difficult only')}."
    fa = analysis
    if fa is None and verdict == Verdict.FP:
        fa = classify_false_positives(dataset, results, ev)
    gt, iou = int(ev.best_gt[rank]), float(ev.best_iou[rank])
    if fa is not None and gt < 0:
        gt, iou = int(fa.same_gt[rank]), float(fa.same_iou[rank])
    if gt >= 0:
        cmp = "≥" if iou >= iou_threshold else "<"
        flags = " (difficult)" if dataset.objects.difficult[gt] else ""
        flags += " (crowd)" if rules.is_crowd(gt) else ""
        measure = f"IoU {iou:.3f} {cmp} {iou_threshold:g}" if not math.isnan(iou) else "matched"
        best = f"Best-overlapping {ev.class_name}: {object_name(dataset, gt)}{flags}, {measure}."
    else:
        best = f"No {ev.class_name} in {image_id} overlaps it."
    if verdict == Verdict.TP:
        return f"{head}\nTrue positive. {best} It is the first detection to claim that object."
    if verdict == Verdict.IGNORED:
        return f"{head}\nIgnored (neither TP nor FP). {best} {rules.ignored_reason}"
    if verdict == Verdict.DUPLICATE:
        by = int(ev.duplicate_of[rank])
        return (
            f"{head}\nFalse positive: duplicate. {best} That object was already matched by "
            f"rank {by + 1} (score {ev.score[by]:.4g})."
        )
    assert fa is not None
    kind = FPKind(int(fa.kind[rank]))
    reason = f"{head}\nFalse positive: {kind.label}. {best}"
    if kind == FPKind.DUPLICATE:
        return f"{reason} That object was already matched by a higher-ranked detection."
    if kind == FPKind.LOCALIZATION:
        return f"{reason} The box overlaps its object, but not enough."
    if kind in (FPKind.SIMILAR, FPKind.OTHER):
        other = int(fa.confused_gt[rank])
        name = dataset.classes[int(dataset.objects.label[other])]
        group = similarity_group(ev.class_name, rules.groups)
        why = f"a similar class ({group})" if kind == FPKind.SIMILAR else "another class"
        return (
            f"{reason} It lies on {object_name(dataset, other)} (IoU "
            f"{fa.confused_iou[rank]:.3f}): confusion with {why}, {name}."
        )
    return f"{reason} It overlaps no object of any class by IoU ≥ {MIN_OVERLAP:g}."


def fmt_iou(x: float) -> str:
    """IoU for tables: three decimals, ``—`` when undefined."""
    return "—" if math.isnan(x) else f"{x:.3f}"


def explain_object(
    dataset: Dataset, ev: ClassEvaluation | None, row: int, *, iou_threshold: float = 0.5
) -> str:
    """What happened to ground-truth object ``row``: its flags, the detection that matched it
    (rank, score, IoU), duplicates on it, or that it was missed (and the closest candidate)."""
    obj = dataset.objects
    image_id = str(dataset.images.id[int(obj.image_index[row])])
    flags = [
        n
        for n, c in (
            ("difficult", obj.difficult),
            ("truncated", obj.truncated),
            ("occluded", obj.occluded),
        )
        if c[row]
    ]
    head = f"Ground truth {object_name(dataset, row)} in {image_id}"
    head += f" ({', '.join(flags)})" if flags else ""
    if ev is None or ev.task != "det" or ev.class_index != int(obj.label[row]):
        return f"{head}\nIts class has not been evaluated."
    on = np.flatnonzero(ev.best_gt == row)
    verdicts = ev.verdict[on]
    tp = on[verdicts == Verdict.TP]
    dup = on[verdicts == Verdict.DUPLICATE]
    lines = [head]
    if len(tp):
        r = int(tp[0])
        lines.append(
            f"Matched by rank {r + 1} (score {ev.score[r]:.4g}, IoU {ev.best_iou[r]:.3f})."
        )
    elif obj.difficult[row]:
        lines.append("Difficult: not counted; detections on it are ignored.")
    else:
        near = on[ev.best_iou[on] >= MIN_OVERLAP] if len(on) else on
        lines.append(
            f"Missed: no {ev.class_name} detection overlaps it by IoU ≥ {iou_threshold:g}."
        )
        if len(near):
            r = int(near[np.argmax(ev.best_iou[near])])
            lines.append(
                f"Closest: rank {r + 1} (score {ev.score[r]:.4g}, IoU {ev.best_iou[r]:.3f})."
            )
    if len(dup):
        ranks = ", ".join(str(int(r) + 1) for r in dup[:5]) + (" …" if len(dup) > 5 else "")
        lines.append(f"Duplicates on it: rank {ranks}.")
    return "\n".join(lines)
