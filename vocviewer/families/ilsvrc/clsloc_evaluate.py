"""ILSVRC CLS-LOC evaluation, exactly as the devkit's ``eval_clsloc.m`` / ``demo_eval_clsloc.m``.

Rules (``zhoubolei/CAM evaluation/eval_clsloc.m``, ``compute_overlap.m``; devkit readme §3.4),
for k = 1..5 guesses (the demo calls ``eval_clsloc`` with ``max_num_pred_per_image = k``):

* only the first k guesses of a line count; missing guesses are label 0 and never match;
* **classification error**: an image is wrong when none of its first k labels equals its single
  ground-truth label; ``cls_error = #wrong / I`` over **all** I images — the blacklist is not
  applied here (``eval_clsloc.m`` divides by ``size(pred_labels,1)``);
* **localisation error**: a guess is right when its label equals the ground-truth label and
  its box overlaps **some** ground-truth box of that label with ``IoU >= 0.5`` (inclusive),
  IoU with the +1 rule (``compute_overlap.m``: ``iw = min(x2) - max(x1) + 1``, likewise ``ih``;
  ``ua = (w_b+1)(h_b+1) + (w_g+1)(h_g+1) - iw*ih``; no overlap unless ``iw > 0 and ih > 0``).
  An image is wrong when none of its first k guesses is right; blacklisted images count as
  right (``e(i) = 0``) and the denominator is ``I - B`` with B the **number of blacklist
  entries** (``length(blacklist)``: duplicates and rows outside 1..I are subtracted too;
  ``official_denominator=False`` subtracts only the distinct blacklisted rows instead).
  Ground-truth label 1001 (the root "entity") accepts boxes of any label (``compute_overlap.m``).
* no official outcome, documented here: an image without a ground-truth box of its label whose
  guess names the label (the official code fails on it) counts as a localisation error, and
  the result carries a note.

Errors are fractions (0..1). Nothing here prints; ``format_clsloc`` builds the demo's text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.matching import same_image_pairs
from vocviewer.families.ilsvrc.columns import ClslocGuesses, IlsvrcClslocInfo

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: ``compute_overlap.m``: a ground-truth label of 1001 ("entity") matches every object.
ENTITY_ID = 1001
IOU_THRESHOLD = 0.5
N_GUESSES = 5


@dataclass(frozen=True, eq=False)
class IlsvrcClslocResult:
    """Errors per number of guesses and per-image evidence.

    cls_error, loc_error : float64 (5,)   error with k = 1..5 guesses (fractions; ``loc_error``
                                          NaN when no boxes were read or I - B is 0)
    cls_first : int64 (I,)                first guess (1-based) with the right label, 0 if none
    loc_first : int64 (I,)                first guess with the right label and box, 0 if none,
                                          -1 for blacklisted images (not evaluated)
    n_images, n_blacklist                 I and the B subtracted in the denominator
    """

    cls_error: FloatArray
    loc_error: FloatArray
    cls_first: IntArray
    loc_first: IntArray
    n_images: int
    n_blacklist: int
    notes: tuple[str, ...] = ()


def _first_true(hit: npt.NDArray[np.bool_]) -> IntArray:
    """1-based column of the first True per row, 0 if none (int64 (I,))."""
    first = np.argmax(hit, axis=1) + 1 if hit.shape[1] else np.zeros(len(hit), np.int64)
    return np.where(hit.any(axis=1), first, 0).astype(np.int64)


def _errors(first: IntArray, counted: npt.NDArray[np.bool_], denominator: float) -> FloatArray:
    """Fraction of ``counted`` images with no right guess among the first k, k = 1..5."""
    k = np.arange(1, N_GUESSES + 1)
    wrong = counted[:, None] & ((first[:, None] == 0) | (first[:, None] > k[None, :]))
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = wrong.sum(axis=0).astype(np.float64) / np.float64(denominator)
    return out


def evaluate_ilsvrc_clsloc(
    dataset: Dataset, results: ResultSet, *, official_denominator: bool = True
) -> IlsvrcClslocResult:
    """Evaluate a CLS-LOC submission (``read_ilsvrc_clsloc_results``) on ``dataset``."""
    info: IlsvrcClslocInfo = dataset.data(IlsvrcClslocInfo)
    guesses: ClslocGuesses = results.data(ClslocGuesses)
    n_img = len(dataset.images)
    gt = info.gt_label
    label = guesses.label[:, :N_GUESSES]
    hit = (label == gt[:, None]) & (label > 0)
    cls_first = _first_true(hit)
    cls_error = _errors(cls_first, np.ones(n_img, dtype=bool), float(n_img))

    # localisation: every (guess with the right label, object of the same image) pair
    obj = dataset.objects
    gi, gj = np.nonzero(hit)
    pg_idx, po = same_image_pairs(gi.astype(np.int64), dataset.object_offsets)
    pi, pj = gi[pg_idx], gj[pg_idx]
    keep = (obj.label[po] + 1 == gt[pi]) | (gt[pi] == ENTITY_ID)
    pi, pj, po = pi[keep], pj[keep], po[keep]
    _, ov = overlap_pairs(guesses.box[pi, pj], obj.box[po], plus_one=True)
    good = np.zeros(hit.shape, dtype=bool)
    good[pi[ov >= IOU_THRESHOLD], pj[ov >= IOU_THRESHOLD]] = True
    in_range = info.blacklist[(info.blacklist >= 1) & (info.blacklist <= n_img)] - 1
    black = np.zeros(n_img, dtype=bool)
    black[in_range] = True
    n_black = len(info.blacklist) if official_denominator else int(black.sum())
    loc_first = np.where(black, -1, _first_true(good)).astype(np.int64)
    if info.has_boxes:
        loc_error = _errors(loc_first, ~black, float(n_img - n_black))
    else:
        loc_error = np.full(N_GUESSES, math.nan)
    notes = _notes(dataset, results, info, hit, pi, black, n_img)
    return IlsvrcClslocResult(
        cls_error=cls_error,
        loc_error=loc_error,
        cls_first=cls_first,
        loc_first=loc_first,
        n_images=n_img,
        n_blacklist=n_black,
        notes=tuple(notes),
    )


def _notes(
    dataset: Dataset,
    results: ResultSet,
    info: IlsvrcClslocInfo,
    hit: npt.NDArray[np.bool_],
    pair_image: IntArray,
    black: npt.NDArray[np.bool_],
    n_img: int,
) -> list[str]:
    """Why the numbers cannot be compared with official ones (empty when they can)."""
    notes = []
    if results.problems:
        notes.append(f"{len(results.problems)} submission line(s) read as no guesses")
    if dataset.problems:
        notes.append(f"{len(dataset.problems)} ground-truth problem(s)")
    if info.has_boxes and info.ground_truth_file is None:
        notes.append("labels taken from the XML objects (no ground-truth labels file)")
    if not info.has_boxes:
        notes.append("no XML boxes: localisation error not computed")
    named = hit.any(axis=1) & ~black
    named[pair_image] = False
    if info.has_boxes and named.any():
        notes.append(
            f"{int(named.sum())} image(s) whose guess names the label have no box of it "
            "(the official code fails there); counted as localisation errors"
        )
    odd = len(info.blacklist) - len(np.unique(info.blacklist[info.blacklist <= n_img]))
    if odd:
        notes.append(
            f"{odd} blacklist entr(y/ies) duplicated or outside 1..{n_img}; the official "
            "denominator subtracts them all"
        )
    return notes


def _matlab_disp(rows: FloatArray) -> list[str]:
    """MATLAB ``disp`` of a small matrix in ``format short``: ``%10.4f`` columns, or ``%6d``
    columns when every finite value is an integer; NaN right-aligned."""
    finite = rows[np.isfinite(rows)]
    integral = bool(np.all(finite == np.round(finite)))
    width = 6 if integral else 10

    def cell(v: float) -> str:
        if math.isnan(v):
            return "NaN".rjust(width)
        return f"{int(v):{width}d}" if integral else f"{v:{width}.4f}"

    return ["".join(cell(float(v)) for v in row) for row in rows]


def format_clsloc(
    result: IlsvrcClslocResult, info: IlsvrcClslocInfo, pred: str, gt_dir: str
) -> str:
    """The devkit demo's printout (readme §3.4; ``demo_eval_clsloc.m``), progress lines omitted:
    header, then ``# guesses vs clsloc error vs cls-only error`` and the ``disp`` matrix."""
    gt_file = str(info.ground_truth_file) if info.ground_truth_file else "(from the XML objects)"
    bl_file = str(info.blacklist_file) if info.blacklist_file else "(none)"
    table = np.column_stack(
        [np.arange(1, N_GUESSES + 1, dtype=np.float64), result.loc_error, result.cls_error]
    )
    lines = [
        "CLASSIFICATION WITH LOCALIZATION TASK",
        f"pred_file: {pred}",
        f"ground_truth_file: {gt_file}",
        f"blacklist_file: {bl_file}",
        f"ground_truth_dir: {gt_dir}",
        "# guesses vs clsloc error vs cls-only error",
        *_matlab_disp(table),
    ]
    if result.notes:
        lines.append("NOT OFFICIAL: " + "; ".join(result.notes))
    return "\n".join(lines) + "\n"
