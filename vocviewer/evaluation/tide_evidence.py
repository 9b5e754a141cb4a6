"""TIDE's per-detection and per-ground-truth verdicts (``TideEvidence``) and their error codes.

The record that ``tide.assemble_evidence`` builds from any family's matches and that ``tide`` (the
breakdown) and ``tide_fix`` (the oracle fixes) read. Definitions of the error types: ``tide``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import freeze_columns

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Error kind codes in ``TideEvidence.kind``.
NOT_EVALUATED, TRUE_POSITIVE, CLS, LOC, BOTH, DUPE, BKG = -1, 0, 1, 2, 3, 4, 5
#: tidecv's main error types in its order, with their ``kind`` code (Miss is a ground-truth error).
MAIN_TYPES: tuple[str, ...] = ("Cls", "Loc", "Both", "Dupe", "Bkg", "Miss")
SPECIAL_TYPES: tuple[str, ...] = ("FalsePos", "FalseNeg")
KIND_OF: dict[str, int] = {"Cls": CLS, "Loc": LOC, "Both": BOTH, "Dupe": DUPE, "Bkg": BKG}
#: ``TideEvidence.kind`` code → name (-1: beyond ``max_dets``, not evaluated).
KIND_NAMES: dict[int, str] = {
    NOT_EVALUATED: "-",
    TRUE_POSITIVE: "TP",
    CLS: "Cls",
    LOC: "Loc",
    BOTH: "Both",
    DUPE: "Dupe",
    BKG: "Bkg",
}

#: ``TideEvidence``'s columns and their dtypes: per detection (``D`` rows) and per ground truth
#: (``G`` rows)
DETECTION_COLUMNS = (
    ("image_index", np.int64),
    ("label", np.int64),
    ("score", np.float64),
    ("position", np.int64),
    ("kind", np.int8),
    ("ignored", np.bool_),
    ("gt", np.int64),
    ("fixable", np.bool_),
)
GT_COLUMNS = (
    ("gt_image", np.int64),
    ("gt_label", np.int64),
    ("gt_counted", np.bool_),
    ("gt_matched", np.bool_),
    ("gt_missed", np.bool_),
)


@dataclass(frozen=True, eq=False)
class TideEvidence:
    """Per-detection and per-GT TIDE verdicts.

    Per detection (``D`` rows, ``ResultSet.detections`` order)
        image_index, label : int64 image row, class index; score : float64
        position : int64 processing order (image, then descending score), -1 beyond ``max_dets``
        kind : int8 (``KIND_NAMES``); ignored : bool, inside a crowd region of its class
        gt : int64 object row — TP: its match; Cls / Loc: the target; Dupe: the used GT; else -1
        fixable : bool, fixing its error makes it a true positive
    Per ground truth (``G`` rows, ``Dataset.objects`` order)
        gt_image, gt_label : int64; gt_counted : bool, a positive (not crowd); gt_matched : bool;
        gt_missed : bool, a Miss error
    """

    image_index: IntArray
    label: IntArray
    score: FloatArray
    position: IntArray
    kind: npt.NDArray[np.int8]
    ignored: BoolArray
    gt: IntArray
    fixable: BoolArray
    gt_image: IntArray
    gt_label: IntArray
    gt_counted: BoolArray
    gt_matched: BoolArray
    gt_missed: BoolArray

    def __post_init__(self) -> None:
        freeze_columns(self, DETECTION_COLUMNS, len(self.image_index))
        freeze_columns(self, GT_COLUMNS, len(self.gt_image))

    def count(self, name: str) -> int:
        """How many errors of a main type (``MAIN_TYPES``) there are."""
        if name == "Miss":
            return int(np.count_nonzero(self.gt_missed))
        code = next(k for k, v in KIND_NAMES.items() if v == name)
        return int(np.count_nonzero(self.kind == code))
