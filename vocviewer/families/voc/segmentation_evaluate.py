"""PASCAL VOC segmentation (``VOCevalseg``), exactly, and segmentations from detections.

Rules (PROTOCOLS.md §3):

* One 21×21 confusion matrix of raw pixel counts over the whole image set: ``C[g, r]`` counts
  pixels with ground-truth label ``g`` and result label ``r``; rows are the truth. Ground-truth
  void (255) pixels are excluded; every other pixel counts, whatever the result says there.
* A result value above 20 (255 included) or a result whose size differs from the ground truth's is
  an error in the official code (the size is compared from the PNG header, before decoding). Here that image is left out and named in ``problems``; the other
  images are still evaluated and the numbers are marked not official. Ground-truth values 21-254
  have no defined meaning: they are left out, counted and reported (not official either).
* VOC2008+ (``protocol="voc2012"``): per label, background included,
  ``IoU_j = 100*C[j,j] / (rowsum_j + colsum_j - C[j,j])`` (NaN for a label absent from both);
  the average is the plain mean of the 21 values, so one NaN makes it NaN.
* VOC2007 (``protocol="voc2007"``): per label the percentage of its ground-truth pixels labelled
  correctly, ``conf[j, j]``, plus the overall pixel accuracy ``100 * trace(C) / sum(C)``.
* ``conf = 100 * C / (1e-20 + rowsum)``: row-normalised percentages, 0 for rows without pixels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import VOC_CLASSES, Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.palette import VOC_SEG_LABELS, VOID_LABEL
from vocviewer.core.results import ResultSet

#: Segmentation label names: index = label value.
SEG_LABEL_NAMES: tuple[str, ...] = ("background", *VOC_CLASSES)
SEG_PROTOCOLS = ("voc2007", "voc2012")

LabelArray = npt.NDArray[np.integer]
FloatArray = npt.NDArray[np.float64]


def default_seg_protocol(year: int | None) -> str:
    """``"voc2007"`` (pixel accuracy) for VOC2007 and earlier, else ``"voc2012"`` (IoU)."""
    return "voc2007" if year is not None and year <= 2007 else "voc2012"


def _sequential_mean(values: FloatArray) -> float:
    """MATLAB ``mean``: left-to-right sum over ``n``; NaN propagates."""
    return float(np.cumsum(values)[-1] / len(values)) if len(values) else math.nan


@dataclass(frozen=True, eq=False)
class SegEvaluation:
    """What ``VOCevalseg`` computes, with what was left out.

    Attributes
    ----------
    protocol
        ``"voc2012"`` (IoU accuracies, VOC2008+) or ``"voc2007"`` (per-class pixel accuracy).
    image_set
        The evaluated set name.
    labels
        The 21 label names, ``"background"`` first.
    confusion : int64 (21, 21)
        Raw pixel counts ``C[gt, result]`` (the devkit's ``rawcounts``).
    image_ids
        Images that entered ``confusion``, in list order.
    invalid_gt_pixels
        Ground-truth pixels with values 21-254 (left out of ``confusion``).
    problems
        Images left out or pixels not counted, each naming the file; empty when official.
    """

    protocol: str
    image_set: str
    labels: tuple[str, ...]
    confusion: npt.NDArray[np.int64]
    image_ids: tuple[str, ...]
    invalid_gt_pixels: int = 0
    problems: tuple[FormatError, ...] = field(default=())

    @property
    def official(self) -> bool:
        """True when every listed image was evaluated as the official code would."""
        return not self.problems

    @property
    def iou(self) -> FloatArray:
        """Per-label IoU in percent, float64 (21,): ``100*C[j,j]/(row+col-C[j,j])``, NaN if 0/0."""
        c = self.confusion.astype(np.float64)
        tp = np.diag(c)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(100 * tp / (c.sum(axis=1) + c.sum(axis=0) - tp), dtype=np.float64)

    @property
    def conf(self) -> FloatArray:
        """Row-normalised confusion in percent, float64 (21, 21): ``100*C/(1e-20 + rowsum)``."""
        c = self.confusion.astype(np.float64)
        return np.asarray(100 * c / (1e-20 + c.sum(axis=1, keepdims=True)), dtype=np.float64)

    @property
    def class_accuracy(self) -> FloatArray:
        """VOC2007's per-label accuracy in percent, float64 (21,): ``conf[j, j]`` (0 if no GT)."""
        return np.diag(self.conf).copy()

    @property
    def pixel_accuracy(self) -> float:
        """Percentage of counted pixels labelled correctly (NaN if none were counted)."""
        total = int(self.confusion.sum())
        return 100 * float(np.trace(self.confusion)) / total if total else math.nan

    @property
    def accuracies(self) -> FloatArray:
        """The devkit's ``accuracies`` for ``protocol``: IoU (VOC2008+) or class accuracy (2007)."""
        return self.class_accuracy if self.protocol == "voc2007" else self.iou

    @property
    def mean_accuracy(self) -> float:
        """The devkit's ``avacc``: plain mean of ``accuracies``; NaN propagates."""
        return _sequential_mean(self.accuracies)

    @property
    def mean_iou(self) -> float:
        """Mean IoU over the 21 labels as the official code averages: NaN if any IoU is NaN."""
        return _sequential_mean(self.iou)

    def mean_iou_defined(self) -> tuple[float, list[str]]:
        """NOT the official mean: mean IoU over labels whose IoU is defined, and the labels left
        out (absent from both ground truth and results)."""
        iou = self.iou
        keep = ~np.isnan(iou)
        left_out = [name for name, k in zip(self.labels, keep.tolist(), strict=True) if not k]
        return _sequential_mean(iou[keep]), left_out


def result_problem(result: npt.NDArray[np.integer], gt_shape: tuple[int, ...]) -> str | None:
    """Why a result image cannot be evaluated (wrong size, values above 20), else ``None``."""
    if result.shape != gt_shape:
        return f"result is {_size(result.shape)} but the ground truth is {_size(gt_shape)}"
    if result.size and int(result.max()) >= VOC_SEG_LABELS:
        bad = np.unique(result[result >= VOC_SEG_LABELS])
        shown = ", ".join(str(v) for v in bad[:5].tolist()) + (", ..." if len(bad) > 5 else "")
        return (
            f"result has values above {VOC_SEG_LABELS - 1} ({shown}); results must hold labels "
            "0-20 only (255 'void' is not allowed in results)"
        )
    return None


def _size(shape: tuple[int, ...]) -> str:
    return "x".join(str(v) for v in shape[::-1]) if len(shape) == 2 else str(shape)


def confusion_counts(
    gt: npt.ArrayLike, result: npt.ArrayLike, n_labels: int = VOC_SEG_LABELS
) -> tuple[npt.NDArray[np.int64], int]:
    """One image's confusion counts and its number of invalid ground-truth pixels.

    ``gt`` and ``result`` are integer label images of one shape (result values < ``n_labels``).
    Void (255) ground truth is skipped; other values ``>= n_labels`` are counted as invalid.

    Returns ``(C int64 (n_labels, n_labels), n_invalid)``.

    >>> c, bad = confusion_counts([[0, 1, 255], [1, 30, 1]], [[0, 1, 1], [0, 0, 1]], 3)
    >>> c.tolist(), bad
    ([[1, 0, 0], [1, 2, 0], [0, 0, 0]], 1)
    """
    g = np.asarray(gt).astype(np.int64, copy=False).ravel()
    r = np.asarray(result).astype(np.int64, copy=False).ravel()
    counted = g < n_labels
    invalid = int(np.count_nonzero(~counted & (g != VOID_LABEL)))
    flat = np.bincount(g[counted] * n_labels + r[counted], minlength=n_labels * n_labels)
    return flat.reshape(n_labels, n_labels).astype(np.int64, copy=False), invalid


class SegAccumulator:
    """Adds images to one confusion matrix; ``evaluate_voc_seg`` drives it, a GUI worker may too."""

    def __init__(self, n_labels: int = VOC_SEG_LABELS) -> None:
        self.n_labels = n_labels
        self.confusion = np.zeros((n_labels, n_labels), dtype=np.int64)
        self.image_ids: list[str] = []
        self.invalid_gt_pixels = 0
        self.problems: list[FormatError] = []

    def add(
        self,
        image_id: str,
        gt: npt.NDArray[np.integer],
        result: npt.NDArray[np.integer],
        *,
        result_path: str | None = None,
        gt_path: str | None = None,
    ) -> bool:
        """Count one image; ``False`` (and a problem naming it) if its result is unusable."""
        why = result_problem(result, gt.shape)
        if why is not None:
            self.problems.append(FormatError(result_path, f"image {image_id}: {why}; left out"))
            return False
        counts, invalid = confusion_counts(gt, result, self.n_labels)
        if invalid:
            self.problems.append(
                FormatError(
                    gt_path,
                    f"image {image_id}: {invalid} ground-truth pixels have values "
                    f"{self.n_labels}-254, which are no label; they are not counted",
                )
            )
            self.invalid_gt_pixels += invalid
        self.confusion += counts
        self.image_ids.append(image_id)
        return True

    def finish(self, *, image_set: str, protocol: str) -> SegEvaluation:
        """The evaluation of everything added."""
        if protocol not in SEG_PROTOCOLS:
            raise ValueError(f"unknown protocol {protocol!r}; expected one of {SEG_PROTOCOLS}")
        frozen = self.confusion.copy()
        frozen.flags.writeable = False
        names = (
            SEG_LABEL_NAMES
            if self.n_labels == VOC_SEG_LABELS
            else tuple(str(k) for k in range(self.n_labels))
        )
        return SegEvaluation(
            protocol,
            image_set,
            names,
            frozen,
            tuple(self.image_ids),
            self.invalid_gt_pixels,
            tuple(self.problems),
        )


def evaluate_voc_seg(
    image_ids: Sequence[str],
    load_gt: Callable[[str], npt.NDArray[np.integer]],
    load_result: Callable[[str], npt.NDArray[np.integer]],
    *,
    image_set: str = "",
    protocol: str = "voc2012",
    strict: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> SegEvaluation:
    """``VOCevalseg`` over ``image_ids`` (the ``Segmentation/<set>`` list, in order).

    ``load_gt(id)`` / ``load_result(id)`` return label images (``uint8 (H, W)``) or raise
    ``FormatError`` naming the file (missing, not indexed). A missing or unreadable file is fatal
    with ``strict`` (the official code stops there); otherwise it is a problem and the image is
    left out. Wrong-size results and results with values above 20 are always collected as
    problems, the image left out. ``progress(done, total)`` is called after each image.
    """
    acc = SegAccumulator()
    for k, image_id in enumerate(image_ids):
        try:
            gt = load_gt(image_id)
            wrong_size = _size_problem(load_result, image_id, gt.shape)
            res = load_result(image_id) if wrong_size is None else None
        except FormatError as exc:
            if strict:
                raise
            acc.problems.append(FormatError(exc.path, f"image {image_id}: {exc.message}; left out"))
        else:
            where = _path_of(load_result, image_id)
            if res is None:
                acc.problems.append(FormatError(where, f"image {image_id}: {wrong_size}; left out"))
            else:
                acc.add(image_id, gt, res, result_path=where, gt_path=_path_of(load_gt, image_id))
        if progress is not None:
            progress(k + 1, len(image_ids))
    return acc.finish(image_set=image_set, protocol=protocol)


def _size_problem(
    loader: Callable[[str], object], image_id: str, gt_shape: tuple[int, ...]
) -> str | None:
    """The wrong-size message when the loader can tell a result's size before decoding it
    (``loader.declared_size(id)`` → ``(width, height)``), so a decompression bomb never is."""
    declared = getattr(loader, "declared_size", None)
    if not callable(declared):
        return None
    w, h = declared(image_id)
    if (h, w) == tuple(gt_shape):
        return None
    return f"result is {w}x{h} but the ground truth is {_size(gt_shape)}"


def _path_of(loader: Callable[[str], object], image_id: str) -> str | None:
    """The file a loader reads for ``image_id`` if it says (``loader.path_of``), else ``None``."""
    path_of = getattr(loader, "path_of", None)
    return str(path_of(image_id)) if callable(path_of) else None


def create_segmentations_from_detections(
    dataset: Dataset,
    results: ResultSet,
    image_ids: Iterable[str],
    confidence: float | None = None,
    *,
    sizes: Mapping[str, tuple[int, int]] | None = None,
) -> dict[str, npt.NDArray[np.uint8]]:
    """Label images painted from detection boxes (the devkit's example segmenter).

    Boxes are painted in class order, then results-file order, so later classes overwrite
    earlier ones; every detection with ``score >= confidence`` is used (all when ``None``).
    Box corners are rounded half away from zero (MATLAB ``round``), clipped to ``1..W`` and
    ``1..H``, and fill the inclusive 1-based pixel range ``x1..x2`` × ``y1..y2`` with label
    ``class index + 1``.

    Parameters
    ----------
    sizes
        ``id → (width, height)``; defaults to the annotation's ``<size>``.

    Returns
    -------
    dict
        ``id → uint8 (H, W)`` label image (0 where no box was painted), for every id given.

    Raises
    ------
    FormatError
        An image is unknown or its size is unknown.
    """
    det = results.detections
    order = np.argsort(det.label, kind="stable")
    if confidence is not None:
        order = order[~(det.score[order] < confidence)]
    boxes = det.box[order]
    boxes = np.trunc(boxes) + np.sign(boxes) * (np.abs(boxes - np.trunc(boxes)) >= 0.5)
    by_image: dict[int, list[int]] = {}
    for pos, row in enumerate(det.image_index[order].tolist()):
        by_image.setdefault(row, []).append(pos)
    out: dict[str, npt.NDArray[np.uint8]] = {}
    for image_id in image_ids:
        row = dataset.find_image(image_id)
        if row is None:
            raise FormatError(dataset.root, f"image {image_id} is not in the dataset")
        if sizes is not None and image_id in sizes:
            w, h = sizes[image_id]
        else:
            w, h = int(dataset.images.width[row]), int(dataset.images.height[row])
        if w <= 0 or h <= 0:
            raise FormatError(dataset.root, f"image {image_id}: size unknown; pass sizes=")
        canvas = np.zeros((h, w), dtype=np.uint8)
        for pos in by_image.get(row, []):
            x1, y1, x2, y2 = boxes[pos].tolist()
            x1, x2 = (min(max(v, 1.0), float(w)) for v in (x1, x2))
            y1, y2 = (min(max(v, 1.0), float(h)) for v in (y1, y2))
            label = int(det.label[order[pos]]) + 1
            canvas[int(y1) - 1 : int(y2), int(x1) - 1 : int(x2)] = label
        out[image_id] = canvas
    return out
