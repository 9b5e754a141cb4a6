"""The label-error queue: ground truth that the detectors' evidence says is probably wrong.

Read from the verdicts the protocol already decided (``ClassEvaluation``: detection rows by rank,
verdict, score) of one or more result sets, never evaluating again (DESIGN rule 5). Overlaps are
box IoUs in the dataset's convention (``plus_one``: VOC's inclusive pixels). Four kinds of suspect,
after the TIDE error kinds (``tide``: background, localisation, classification) turned round to
question the annotation rather than the detector:

* ``missing``     — a false positive (not a duplicate) with a high score that overlaps no object of
                    its class by IoU >= 0.1 (TIDE's background error; or by less than 0.5 an
                    object another detection found: score times ``1 - IoU``) and no object of
                    another class by IoU >= 0.5 (or one its own class is detected on as well:
                    times that detection's score): an object nobody annotated. Strength: the
                    noisy-or ``1 - prod(1 - s)`` of each set's best on that box (detections of
                    one class and image with IoU >= 0.5 are one box), so sets that agree make it
                    stronger.
* ``wrong_label`` — an object of class ``c`` overlapped by IoU >= 0.5 by a false-positive detection
                    of class ``c' != c`` while no detection of ``c`` overlaps it by 0.5: the object
                    is probably a ``c'``. Per set ``s(c') * (1 - s(c))`` (``s(c)``: the best score
                    of its own class there, 0 if none); noisy-or over the sets.
* ``loose_box``   — an object whose best-scoring detection of its class overlaps it with
                    ``0.1 <= IoU < 0.6`` (TIDE's localisation error, or a true positive just over
                    the threshold) lying inside it, no detection fitting it better scoring higher:
                    the annotated box is too large. Per set ``score * inside`` (the share of the
                    detection's area inside the object); noisy-or over the sets, times the mean IoU
                    between the sets' boxes (how well the detectors agree); the suggested box is
                    their score-weighted mean.
* ``duplicate``   — two objects of one class in one image with IoU > 0.9; strength: that IoU.

Each ``Suspect`` carries its evidence (``Support``: set, detection row, class, score, IoU) and a
sentence saying why. Detections below ``min_score`` are not considered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.pair_overlaps import PairOverlaps
from vocviewer.evaluation.result import ClassEvaluation, Verdict

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The kinds of suspect, in the order the queue reports them.
KINDS: tuple[str, ...] = ("missing", "wrong_label", "loose_box", "duplicate")
#: Each kind in words.
KIND_LABELS = {
    "missing": "missing annotation",
    "wrong_label": "wrong label",
    "loose_box": "loose box",
    "duplicate": "duplicate ground truth",
}
#: IoU at which a detection is on an object (the "foreground" threshold of TIDE).
ON_OBJECT = 0.5
#: IoU below which a detection touches nothing (TIDE's background threshold).
BACKGROUND = 0.1
#: IoU below which a detection inside an object does not fit its box (a loose-box sign).
LOOSE_IOU = 0.6
#: IoU above which two objects of one class are one object annotated twice.
DUPLICATE_IOU = 0.9


@dataclass(frozen=True)
class SetEvidence:
    """One result set's evaluation: its ``name``, the ``results`` read and the detection
    ``evaluations`` (one ``ClassEvaluation`` per class, task ``det``) at IoU threshold ``iou``."""

    name: str
    results: ResultSet
    evaluations: Sequence[ClassEvaluation]
    iou: float = 0.5


@dataclass(frozen=True)
class Support:
    """One detection behind a suspect: its set's name, row in that set's ``Detections``, class
    index, score and IoU with the suspect's object (NaN for a missing annotation)."""

    set_name: str
    detection: int
    class_index: int
    score: float
    iou: float


@dataclass(frozen=True)
class Suspect:
    """One probable label error.

    ``kind`` (``KINDS``), ``strength`` in [0, 1] (the queue's order), ``image`` row,
    ``class_index`` of the box as annotated (missing: the class detected), ``box`` float xyxy in
    the dataset's convention (missing: the detected box; else the object's), ``object`` row
    (-1: missing), ``other`` the second object of a duplicate (else -1), ``suggested_class``
    (wrong label: the class detected; missing: the class to add; else -1), ``suggested_box``
    (missing / loose box: the detectors' box; else ``None``), ``support`` and ``why``.
    """

    kind: str
    strength: float
    image: int
    class_index: int
    box: tuple[float, float, float, float]
    object: int = -1
    other: int = -1
    suggested_class: int = -1
    suggested_box: tuple[float, float, float, float] | None = None
    support: tuple[Support, ...] = field(default=())
    why: str = ""

    def to_json(self, dataset: Dataset) -> dict[str, Any]:
        """A JSON object of the suspect, with the image id and class names."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "strength": self.strength,
            "image": str(dataset.images.id[self.image]),
            "class": dataset.classes[self.class_index],
            "box": list(self.box),
            "object": self.object,
            "why": self.why,
            "support": [
                {
                    "set": s.set_name,
                    "detection": s.detection,
                    "class": dataset.classes[s.class_index],
                    "score": s.score,
                    "iou": None if np.isnan(s.iou) else s.iou,
                }
                for s in self.support
            ],
        }
        if self.other >= 0:
            out["other"] = self.other
        if self.suggested_class >= 0:
            out["suggested_class"] = dataset.classes[self.suggested_class]
        if self.suggested_box is not None:
            out["suggested_box"] = list(self.suggested_box)
        return out


def _box(b: npt.ArrayLike) -> tuple[float, float, float, float]:
    x = np.asarray(b, dtype=np.float64).tolist()
    return (x[0], x[1], x[2], x[3])


def _a(name: str) -> str:
    """``name`` with its indefinite article (``a dog``, ``an airplane``)."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _noisy_or(scores: Sequence[float]) -> float:
    """``1 - prod(1 - s)`` over ``scores`` clipped to [0, 1]."""
    left = 1.0
    for s in scores:
        left *= 1.0 - min(max(float(s), 0.0), 1.0)
    return 1.0 - left


@dataclass(frozen=True, eq=False)
class _Ranked:
    """One set's detections above ``min_score``: rows, image, class, score, verdict, box and
    their overlaps with every object of the image (``pairs``)."""

    name: str
    row: IntArray
    image: IntArray
    label: IntArray
    score: FloatArray
    verdict: npt.NDArray[np.int8]
    box: FloatArray
    matched: npt.NDArray[np.bool_]  # per object row: a true positive of this set found it
    pairs: PairOverlaps
    iou: float
    own: FloatArray  # per object row: ``_own_scores``


def _ranked(dataset: Dataset, ev: SetEvidence, min_score: float) -> _Ranked:
    det = [e for e in ev.evaluations if e.task == "det" and len(e)]
    cat = np.concatenate
    order = cat([e.order for e in det]) if det else np.zeros(0, np.int64)
    score = cat([e.score for e in det]) if det else np.zeros(0)
    verdict = cat([e.verdict for e in det]) if det else np.zeros(0, np.int8)
    matched = np.zeros(len(dataset.objects.label), dtype=bool)
    for e in det:
        hit = e.best_gt[(e.verdict == Verdict.TP) & (e.best_gt >= 0)]
        matched[hit] = True
    keep = np.flatnonzero(np.isfinite(score) & (score >= min_score))
    rows = order[keep].astype(np.int64)
    d = ev.results.detections
    image, box = d.image_index[rows], d.box[rows]
    label, score = d.label[rows], score[keep]
    pairs = PairOverlaps(dataset, image, box, dataset.plus_one)
    own = _own_scores(dataset.objects.label, label, score, pairs)
    return _Ranked(
        ev.name, rows, image, label, score, verdict[keep], box, matched, pairs, ev.iou, own
    )


def find_suspects(
    dataset: Dataset,
    sets: Sequence[SetEvidence],
    *,
    min_score: float = 0.3,
    regions: npt.NDArray[np.bool_] | None = None,
) -> tuple[Suspect, ...]:
    """Every suspect of every kind, strongest first (ties: by kind, image, box).

    ``regions`` bool (N,): objects that are regions, not objects (COCO's crowds): never a
    wrong label, loose box or duplicate themselves."""
    ranked = [_ranked(dataset, s, min_score) for s in sets]
    found = [
        *_missing(dataset, ranked),
        *_wrong_labels(dataset, ranked),
        *_loose_boxes(dataset, ranked),
        *_duplicates(dataset),
    ]
    if regions is not None and np.any(regions):
        found = [s for s in found if not any(r >= 0 and regions[r] for r in (s.object, s.other))]
    return tuple(
        sorted(found, key=lambda s: (-s.strength, KINDS.index(s.kind), s.image, s.box, s.object))
    )


def of_kind(suspects: Sequence[Suspect], kind: str) -> tuple[Suspect, ...]:
    """The suspects of ``kind``, in queue order."""
    return tuple(s for s in suspects if s.kind == kind)


# --- missing annotations ----------------------------------------------------------------------
def _own_scores(
    labels: IntArray, det_label: IntArray, score: FloatArray, p: PairOverlaps
) -> FloatArray:
    """Per object row (class ``labels``), the best score of a detection of its class on it
    (IoU >= 0.5), else 0."""
    own = np.zeros(len(labels))
    mine = (p.iou >= ON_OBJECT) & (labels[p.gt] == det_label[p.det])
    np.maximum.at(own, p.gt[mine], score[p.det[mine]])
    return own


def _missing(dataset: Dataset, ranked: Sequence[_Ranked]) -> list[Suspect]:
    """False positives on no object of their class (or only near one found by another
    detection: ``1 - IoU``) and on no object of another class (or on one its own class is
    detected on too: times that score)."""
    cands: list[tuple[float, float, int, int, int, int, tuple[float, ...]]] = []
    labels = dataset.objects.label
    for i, r in enumerate(ranked):
        same, same_iou = r.pairs.best(labels[r.pairs.gt] == r.label[r.pairs.det])
        other, other_iou = r.pairs.best(labels[r.pairs.gt] != r.label[r.pairs.det])
        same_iou, other_iou = np.nan_to_num(same_iou), np.nan_to_num(other_iou)
        near = same_iou >= BACKGROUND
        factor = np.where(near, 1.0 - same_iou, 1.0)
        on_other = other_iou >= ON_OBJECT
        factor = np.where(on_other, factor * r.own[other], factor)
        lone = (
            (r.verdict == Verdict.FP)
            & ~(same_iou >= ON_OBJECT)
            & (~near | r.matched[np.maximum(same, 0)])
            & (factor > 0)
        )
        for d in np.flatnonzero(lone).tolist():
            s = float(r.score[d] * factor[d])
            box = tuple(r.box[d].tolist())
            cands.append((s, float(r.score[d]), i, d, int(r.label[d]), int(r.image[d]), box))
    cands.sort(key=lambda c: -c[0])
    groups: dict[tuple[int, int], list[int]] = {}  # (image, class) -> candidates, strongest first
    for a, (_, _, _, _, cls, image, _) in enumerate(cands):
        groups.setdefault((image, cls), []).append(a)
    taken = [False] * len(cands)
    out: list[Suspect] = []
    for a, (strength, score, i, k, cls, image, box) in enumerate(cands):
        if taken[a]:
            continue
        best: dict[int, tuple[float, float, int]] = {i: (strength, score, k)}
        for b in groups[(image, cls)]:
            if b <= a or taken[b]:
                continue
            s2, sc2, i2, k2, _, _, box2 = cands[b]
            if _iou(box, box2, dataset.plus_one) >= ON_OBJECT:
                taken[b] = True
                best.setdefault(i2, (s2, sc2, k2))
        support = tuple(
            Support(ranked[j].name, int(ranked[j].row[kk]), cls, sc, float("nan"))
            for j, (_, sc, kk) in sorted(best.items())
        )
        name = dataset.classes[cls]
        scores = ", ".join(f"{s.score:.2f}" for s in support)
        why = (
            f"{len(support)} of {len(ranked)} result sets detect {_a(name)} here "
            f"(score {scores}) where no {name} is annotated"
        )
        out.append(
            Suspect(
                "missing",
                _noisy_or([v[0] for v in best.values()]),
                image,
                cls,
                _box(box),
                suggested_class=cls,
                suggested_box=_box(box),
                support=support,
                why=why,
            )
        )
    return out


def _iou(a: Sequence[float], b: Sequence[float], plus_one: bool) -> float:
    """IoU of two boxes (``overlap_pairs``): 0 where they do not intersect."""
    considered, ov = overlap_pairs(np.asarray(a), np.asarray(b), plus_one=plus_one)
    return float(ov[0]) if considered[0] else 0.0


# --- wrong labels -----------------------------------------------------------------------------
def _wrong_labels(dataset: Dataset, ranked: Sequence[_Ranked]) -> list[Suspect]:
    labels = dataset.objects.label
    per: dict[tuple[int, int], dict[int, tuple[float, Support]]] = {}
    for i, r in enumerate(ranked):
        p = r.pairs
        on = p.iou >= ON_OBJECT
        own_score = r.own
        wrong = on & (labels[p.gt] != r.label[p.det]) & (r.verdict[p.det] == Verdict.FP)
        for d, g, iou in zip(p.det[wrong], p.gt[wrong], p.iou[wrong], strict=True):
            s = float(r.score[d]) * (1.0 - float(own_score[g]))
            key = (int(g), int(r.label[d]))
            sup = Support(r.name, int(r.row[d]), int(r.label[d]), float(r.score[d]), float(iou))
            held = per.setdefault(key, {})
            if s > held.get(i, (-1.0, sup))[0]:
                held[i] = (s, sup)
    out = []
    for (g, cls), held in per.items():
        support = tuple(sup for _, (_, sup) in sorted(held.items()))
        was, now = dataset.classes[labels[g]], dataset.classes[cls]
        why = (
            f"annotated {was}, but {len(support)} of {len(ranked)} result sets detect {_a(now)} "
            f"on it (score {', '.join(f'{s.score:.2f}' for s in support)}, IoU "
            f"{', '.join(f'{s.iou:.2f}' for s in support)}) and no {was} there"
        )
        out.append(
            Suspect(
                "wrong_label",
                _noisy_or([s for s, _ in held.values()]),
                int(dataset.objects.image_index[g]),
                int(labels[g]),
                _box(dataset.objects.box[g]),
                object=g,
                suggested_class=cls,
                support=support,
                why=why,
            )
        )
    return out


# --- loose boxes ------------------------------------------------------------------------------
def _inside(det: FloatArray, obj: FloatArray, plus_one: bool) -> FloatArray:
    """Share of each detection's area inside its paired object (aligned rows)."""
    one = 1.0 if plus_one else 0.0
    iw = np.clip(np.fmin(det[:, 2], obj[:, 2]) - np.fmax(det[:, 0], obj[:, 0]) + one, 0, None)
    ih = np.clip(np.fmin(det[:, 3], obj[:, 3]) - np.fmax(det[:, 1], obj[:, 1]) + one, 0, None)
    area = (det[:, 2] - det[:, 0] + one) * (det[:, 3] - det[:, 1] + one)
    with np.errstate(all="ignore"):
        return np.where(area > 0, iw * ih / area, 0.0)


def _loose_boxes(dataset: Dataset, ranked: Sequence[_Ranked]) -> list[Suspect]:
    obj = dataset.objects
    per: dict[int, dict[int, tuple[float, Support, FloatArray]]] = {}
    for i, r in enumerate(ranked):
        p = r.pairs
        same = obj.label[p.gt] == r.label[p.det]
        fits = np.zeros(len(obj.label))  # best score of a detection that fits the box
        good = same & (p.iou >= LOOSE_IOU)
        np.maximum.at(fits, p.gt[good], r.score[p.det[good]])
        counted = (r.verdict == Verdict.FP) | (r.verdict == Verdict.TP)
        poor = (
            same
            & (p.iou >= BACKGROUND)
            & (p.iou < LOOSE_IOU)
            & counted[p.det]
            & (r.score[p.det] > fits[p.gt])
        )
        sel = np.flatnonzero(poor)
        inside = _inside(r.box[p.det[sel]], obj.box[p.gt[sel]], dataset.plus_one)
        for j, share in zip(sel, inside, strict=True):
            d, g = int(p.det[j]), int(p.gt[j])
            s = float(r.score[d]) * float(share)
            sup = Support(
                r.name, int(r.row[d]), int(r.label[d]), float(r.score[d]), float(p.iou[j])
            )
            held = per.setdefault(g, {})
            if s > held.get(i, (-1.0,))[0]:
                held[i] = (s, sup, r.box[d])
    out = []
    for g, held in per.items():
        items = [held[i] for i in sorted(held)]
        boxes = np.array([b for _, _, b in items])
        agree = 1.0
        if len(items) > 1:
            a, b = np.triu_indices(len(items), 1)
            agree = float(
                np.mean(overlap_pairs(boxes[a], boxes[b], plus_one=dataset.plus_one)[1].clip(0))
            )
        weights = np.array([sup.score for _, sup, _ in items])
        suggested = _box(boxes[0] if len(items) == 1 else weights @ boxes / weights.sum())
        support = tuple(sup for _, sup, _ in items)
        name = dataset.classes[obj.label[g]]
        why = (
            f"{len(support)} of {len(ranked)} result sets find this {name} only with a smaller box "
            f"inside it (score {', '.join(f'{s.score:.2f}' for s in support)}, IoU "
            f"{', '.join(f'{s.iou:.2f}' for s in support)}); the box may be too large"
        )
        out.append(
            Suspect(
                "loose_box",
                _noisy_or([s for s, _, _ in items]) * agree,
                int(obj.image_index[g]),
                int(obj.label[g]),
                _box(obj.box[g]),
                object=g,
                suggested_box=suggested,
                support=support,
                why=why,
            )
        )
    return out


# --- duplicate ground truth -------------------------------------------------------------------
def _duplicates(dataset: Dataset) -> list[Suspect]:
    obj = dataset.objects
    p = PairOverlaps(dataset, obj.image_index, obj.box, dataset.plus_one)
    twin = (p.det < p.gt) & (obj.label[p.det] == obj.label[p.gt]) & (p.iou > DUPLICATE_IOU)
    out = []
    for a, b, iou in zip(p.det[twin], p.gt[twin], p.iou[twin], strict=True):
        name = dataset.classes[obj.label[b]]
        out.append(
            Suspect(
                "duplicate",
                float(iou),
                int(obj.image_index[b]),
                int(obj.label[b]),
                _box(obj.box[b]),
                object=int(b),
                other=int(a),
                why=f"two {name} objects overlap by IoU {iou:.2f}: one object annotated twice",
            )
        )
    return out
