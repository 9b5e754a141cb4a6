"""PASCAL VOC detection (``VOCevaldet``) and classification (``VOCevalcls``), exactly.

Rules (PROTOCOLS.md §1-2; the official devkit is the reference):

Detection, per class
  * Ground truth: every object of the class in the images of ``ImageSets/Main/<set>.txt``,
    difficult ones included; ``npos`` counts the non-difficult ones (per list entry).
  * Ranking: all of the class's detections, descending score, stable: ties keep results-file order.
  * Candidate: the object of the class in the detection's image with the largest overlap, inclusive
    pixel (+1) sizes, only boxes with ``iw > 0 and ih > 0``, difficult and already-matched objects
    included, first in XML order on ties.
  * Verdict: overlap ``>= 0.5`` → ignored if the candidate is difficult, TP if the candidate is not
    yet matched, otherwise FP (duplicate; VOC never falls back to a second-best box); below → FP.
  * ``rec = cumsum(tp)/npos``, ``prec = tp/(tp+fp)`` with one entry per detection (ignored ones keep
    their slot), AP by ``ap_rule``.
  * A detection on an image outside the set, or on an id listed twice, is an error in the official
    code: ``FormatError`` naming file and line (``strict``), or dropped with a note.

Classification, per class
  * Ground truth ``Main/<class>_<set>.txt`` (1 / -1 / 0 = difficult only); every listed image starts
    at score ``-inf``; the last result line for an image wins; all listed images are ranked (stable,
    ties in list order); label > 0 is TP, < 0 FP, 0 neither (keeps its slot).

AP rule: ``"allpoints"`` (``VOCap``, VOC2010+) or ``"11point"`` (VOC2007–2009), by default from the
dataset year. Nothing here prints; ``iter_*`` yield one ``ClassEvaluation`` per class so a GUI worker
can report progress, and ``evaluate_*`` collect them into an ``EvalResult``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.ranking import rank_by_score
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.ap import voc_ap_11_point, voc_ap_all_points, voc_precision_recall
from vocviewer.evaluation.matching import best_overlaps, first_claims, group_offsets
from vocviewer.evaluation.result import ClassEvaluation, EvalResult, Verdict

AP_RULES = ("allpoints", "11point")
#: ``--protocol`` names and the AP rule each stands for.
PROTOCOL_AP_RULES = {"voc2007": "11point", "voc2012": "allpoints"}


def default_ap_rule(year: int | None) -> str:
    """``"11point"`` for VOC2007–2009 (IJCV 2014 §2.4.3), else ``"allpoints"``."""
    return "11point" if year is not None and year <= 2009 else "allpoints"


def _ap(ap_rule: str, rec: npt.NDArray[np.float64], prec: npt.NDArray[np.float64]) -> float:
    if ap_rule == "allpoints":
        return voc_ap_all_points(rec, prec)
    if ap_rule == "11point":
        return voc_ap_11_point(rec, prec)
    raise ValueError(f"unknown AP rule {ap_rule!r}; expected one of {AP_RULES}")


@dataclass(frozen=True)
class _SetIndex:
    """The image list of a set: membership and multiplicity per image row."""

    rows: npt.NDArray[np.int64]  # list entries in file order (duplicates kept)
    multiplicity: npt.NDArray[np.int64]  # per dataset image: how often it is listed

    @classmethod
    def of(cls, dataset: Dataset, image_set: str) -> _SetIndex:
        key = image_set if "/" in image_set else f"Main/{image_set}"
        if key not in dataset.image_sets:
            known = ", ".join(sorted(dataset.image_sets)) or "none"
            raise KeyError(f"image set {image_set!r} not found (known: {known})")
        rows = dataset.image_sets[key]
        mult = np.bincount(rows, minlength=len(dataset.images)).astype(np.int64)
        return cls(rows, mult)


def _rejected_rows(
    results: ResultSet,
    image_index: npt.NDArray[np.int64],
    file_index: npt.NDArray[np.int64],
    line: npt.NDArray[np.int64],
    multiplicity: npt.NDArray[np.int64],
    dataset: Dataset,
    set_name: str,
) -> tuple[npt.NDArray[np.bool_], FormatError | None]:
    """Rows the official code accepts (image listed exactly once), and the error for the first
    row it rejects ("unrecognized image" / "multiple image"), if any."""
    mult = multiplicity[image_index]
    ok = mult == 1
    bad = np.flatnonzero(~ok)
    if not len(bad):
        return ok, None
    r = int(bad[0])
    img = str(dataset.images.id[image_index[r]])
    why = "is listed more than once in" if mult[r] > 1 else "is not in"
    msg = f"image {img!r} {why} image set {set_name!r} (the official code stops here)"
    return ok, FormatError(results.files[file_index[r]], msg, line=int(line[r]))


def iter_evaluate_voc_det(
    dataset: Dataset,
    results: ResultSet,
    *,
    image_set: str,
    ap_rule: str | None = None,
    iou_threshold: float = 0.5,
    classes: Iterable[int] | None = None,
    strict: bool = True,
) -> Iterator[ClassEvaluation]:
    """Yield one detection ``ClassEvaluation`` per class (class order).

    ``classes``: class indices to evaluate (default: all). ``strict``: raise ``FormatError`` on a
    detection the official code rejects, else drop it (see ``evaluate_voc_det`` for the note).
    """
    rule = ap_rule or default_ap_rule(dataset.year)
    sidx = _SetIndex.of(dataset, image_set)
    det = results.detections
    ok, err = _rejected_rows(
        results, det.image_index, det.file_index, det.line, sidx.multiplicity, dataset, image_set
    )
    if err is not None and strict:
        raise err
    obj = dataset.objects
    obj_in_set = sidx.multiplicity[obj.image_index] > 0
    submitted = results.classes_with_files.get("det")
    if submitted is None:  # (not ``get``'s default: np.unique imports numpy.ma, ~10 ms)
        submitted = frozenset(np.unique(det.label).tolist())
    for k in range(len(dataset.classes)) if classes is None else classes:
        # ground truth of class k in the set, sorted by image then XML order (objects already are)
        g = np.flatnonzero((obj.label == k) & obj_in_set)
        g_img = obj.image_index[g]
        offsets = group_offsets(g_img, len(dataset.images))
        g_diff = obj.difficult[g]
        npos = int(np.sum(sidx.multiplicity[g_img] * ~g_diff))
        # detections of class k in rank order (stable: results-file order on ties)
        rows = np.flatnonzero((det.label == k) & ok)
        rows = rows[rank_by_score(det.score[rows])]
        img = det.image_index[rows]
        # NaN / ±inf boxes (kept by the readers) overlap nothing, as in the official code; their
        # arithmetic (inf - inf, overflow) must not print numpy warnings
        with np.errstate(invalid="ignore", over="ignore"):
            cand, ov = best_overlaps(img, det.box[rows], offsets, obj.box[g], plus_one=True)
        hit = ov >= iou_threshold  # NaN (no candidate) compares False
        difficult_hit = np.zeros(len(rows), dtype=bool)
        difficult_hit[hit] = g_diff[cand[hit]]
        has_cand = cand >= 0
        best_gt = np.full(len(rows), -1, dtype=np.int64)
        best_gt[has_cand] = g[cand[has_cand]]
        verdict, duplicate_of = _verdicts(cand, hit, difficult_hit)
        prec, rec = voc_precision_recall(verdict == Verdict.TP, verdict >= Verdict.FP, npos)
        yield ClassEvaluation(
            class_index=int(k),
            class_name=dataset.classes[k],
            task="det",
            npos=npos,
            ndet=len(rows),
            has_results=int(k) in submitted,
            order=rows,
            image_index=img,
            score=det.score[rows],
            verdict=verdict,
            best_gt=best_gt,
            best_iou=ov,
            duplicate_of=duplicate_of,
            precision=prec,
            recall=rec,
            ap=_ap(rule, rec, prec),
        )


def _verdicts(
    cand: npt.NDArray[np.int64], hit: npt.NDArray[np.bool_], difficult_hit: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """``VOCevaldet``'s verdict (``Verdict``) and duplicate-of rank (-1: none) of ranked
    detections: ``cand`` each one's candidate object, ``hit`` its overlap reaches the threshold,
    ``difficult_hit`` the candidate is difficult (ignored)."""
    claimed_by = first_claims(cand, hit & ~difficult_hit)
    ranks = np.arange(len(cand), dtype=np.int64)
    verdict = np.full(len(cand), Verdict.FP, dtype=np.int8)
    verdict[difficult_hit] = Verdict.IGNORED
    verdict[claimed_by == ranks] = Verdict.TP
    dup = (claimed_by >= 0) & (claimed_by != ranks)
    verdict[dup] = Verdict.DUPLICATE
    return verdict, np.where(dup, claimed_by, -1)


def class_at(
    dataset: Dataset, ev: ClassEvaluation, iou: float, ap_rule: str | None = None
) -> ClassEvaluation:
    """``ev`` (a class of ``iter_evaluate_voc_det``) at overlap threshold ``iou``. Each
    detection's candidate (``best_gt``) and overlap (``best_iou``) do not depend on the
    threshold, so this is the evaluation at ``iou`` without measuring again."""
    hit = np.nan_to_num(ev.best_iou, nan=-np.inf) >= iou
    difficult_hit = np.zeros(len(ev.order), dtype=bool)
    difficult_hit[hit] = dataset.objects.difficult[ev.best_gt[hit]]
    verdict, duplicate_of = _verdicts(ev.best_gt, hit, difficult_hit)
    prec, rec = voc_precision_recall(verdict == Verdict.TP, verdict >= Verdict.FP, ev.npos)
    rule = ap_rule or default_ap_rule(dataset.year)
    return replace(
        ev,
        verdict=verdict,
        duplicate_of=duplicate_of,
        precision=prec,
        recall=rec,
        ap=_ap(rule, rec, prec),
    )


def iter_evaluate_voc_cls(
    dataset: Dataset,
    results: ResultSet,
    *,
    image_set: str,
    ap_rule: str | None = None,
    classes: Iterable[int] | None = None,
    strict: bool = True,
) -> Iterator[ClassEvaluation]:
    """Yield one classification ``ClassEvaluation`` per class (class order)."""
    rule = ap_rule or default_ap_rule(dataset.year)
    cs = results.class_scores
    submitted = results.classes_with_files.get("cls", frozenset(np.unique(cs.label).tolist()))
    n_img = len(dataset.images)
    for k in range(len(dataset.classes)) if classes is None else classes:
        gt = dataset.image_class_labels(image_set, dataset.classes[k])
        mult = np.bincount(gt.image_index, minlength=n_img)
        rows = np.flatnonzero(cs.label == k)
        ok, err = _rejected_rows(
            results,
            cs.image_index[rows],
            cs.file_index[rows],
            cs.line[rows],
            mult,
            dataset,
            f"{dataset.classes[k]}_{image_set}",
        )
        if err is not None and strict:
            raise err
        rows = rows[ok]
        # position of each image in the GT list; last result line wins (VOCevalcls.m:30)
        pos_of = np.full(n_img, -1, dtype=np.int64)
        pos_of[gt.image_index] = np.arange(len(gt.image_index))
        score = np.full(len(gt.image_index), -np.inf)
        rev = rows[::-1]
        _, last = np.unique(cs.image_index[rev], return_index=True)
        chosen = rev[last]
        score[pos_of[cs.image_index[chosen]]] = cs.score[chosen]
        order = rank_by_score(score)
        lab = gt.label[order]
        npos = int(np.count_nonzero(gt.label > 0))
        prec, rec = voc_precision_recall(lab > 0, lab < 0, npos)
        verdict = np.where(lab > 0, Verdict.TP, np.where(lab < 0, Verdict.FP, Verdict.IGNORED))
        n = len(order)
        yield ClassEvaluation(
            class_index=int(k),
            class_name=dataset.classes[k],
            task="cls",
            npos=npos,
            ndet=len(chosen),
            has_results=int(k) in submitted,
            order=gt.image_index[order],
            image_index=gt.image_index[order],
            score=score[order],
            verdict=verdict.astype(np.int8),
            best_gt=np.full(n, -1, dtype=np.int64),
            best_iou=np.full(n, np.nan),
            duplicate_of=np.full(n, -1, dtype=np.int64),
            precision=prec,
            recall=rec,
            ap=_ap(rule, rec, prec),
        )


def skipped_notes(dataset: Dataset, results: ResultSet, image_set: str, task: str) -> list[str]:
    """Why numbers may differ from the official code's (skipped input); empty if they may not."""
    notes = []
    if results.problems:
        notes.append(
            f"{len(results.problems)} result rows or files could not be read and were skipped "
            f"(first: {results.problems[0]}); the official code would have stopped"
        )
    checks = []  # (set name, multiplicity per image, image_index, file_index, line)
    if task == "det":
        d = results.detections
        mult = _SetIndex.of(dataset, image_set).multiplicity
        checks.append((image_set, mult, d.image_index, d.file_index, d.line))
    else:
        c = results.class_scores
        for k, name in enumerate(dataset.classes):
            sel = c.label == k
            if sel.any():
                gt = dataset.image_class_labels(image_set, name)
                mult = np.bincount(gt.image_index, minlength=len(dataset.images))
                checks.append(
                    (
                        f"{name}_{image_set}",
                        mult,
                        c.image_index[sel],
                        c.file_index[sel],
                        c.line[sel],
                    )
                )
    dropped, first = 0, None
    for set_name, mult, idx, fidx, line in checks:
        ok, err = _rejected_rows(results, idx, fidx, line, mult, dataset, set_name)
        dropped += int(np.count_nonzero(~ok))
        first = first or err
    if dropped:
        notes.append(
            f"{dropped} result rows the official code rejects were dropped; first: {first}"
        )
    return notes


def evaluate_voc_det(
    dataset: Dataset,
    results: ResultSet,
    *,
    image_set: str,
    ap_rule: str | None = None,
    iou_threshold: float = 0.5,
    classes: Iterable[int] | None = None,
    strict: bool = True,
) -> EvalResult:
    """VOC detection over classes; see ``iter_evaluate_voc_det``."""
    rule = ap_rule or default_ap_rule(dataset.year)
    per_class = tuple(
        iter_evaluate_voc_det(
            dataset,
            results,
            image_set=image_set,
            ap_rule=rule,
            iou_threshold=iou_threshold,
            classes=classes,
            strict=strict,
        )
    )
    return det_result(dataset, results, per_class, image_set, rule, iou_threshold)


def det_result(
    dataset: Dataset,
    results: ResultSet,
    classes: tuple[ClassEvaluation, ...],
    image_set: str,
    ap_rule: str,
    iou_threshold: float,
) -> EvalResult:
    """The ``EvalResult`` of ``iter_evaluate_voc_det``'s ``classes`` (``evaluate_voc_det``'s,
    from classes evaluated elsewhere: the window's)."""
    return EvalResult(
        protocol="voc2007" if ap_rule == "11point" else "voc2012",
        task="det",
        image_set=image_set,
        ap_rule=ap_rule,
        iou_threshold=iou_threshold,
        classes=classes,
        notes=tuple(skipped_notes(dataset, results, image_set, "det")),
    )


def evaluate_voc_cls(
    dataset: Dataset,
    results: ResultSet,
    *,
    image_set: str,
    ap_rule: str | None = None,
    classes: Iterable[int] | None = None,
    strict: bool = True,
) -> EvalResult:
    """VOC classification over classes; see ``iter_evaluate_voc_cls``."""
    rule = ap_rule or default_ap_rule(dataset.year)
    per_class = tuple(
        iter_evaluate_voc_cls(
            dataset, results, image_set=image_set, ap_rule=rule, classes=classes, strict=strict
        )
    )
    return cls_result(dataset, results, per_class, image_set, rule)


def cls_result(
    dataset: Dataset,
    results: ResultSet,
    classes: tuple[ClassEvaluation, ...],
    image_set: str,
    ap_rule: str,
) -> EvalResult:
    """The ``EvalResult`` of ``iter_evaluate_voc_cls``'s ``classes`` (``det_result``'s twin)."""
    return EvalResult(
        protocol="voc2007" if ap_rule == "11point" else "voc2012",
        task="cls",
        image_set=image_set,
        ap_rule=ap_rule,
        iou_threshold=float("nan"),
        classes=classes,
        notes=tuple(skipped_notes(dataset, results, image_set, "cls")),
    )
