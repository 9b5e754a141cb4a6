"""``PatchListModel``: a ``PatchTable`` (``evaluation.patches``) as a list model for the patches
view, with each patch's words, its crop key and what tagging it tags.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QStringListModel
from PySide6.QtWidgets import QWidget

from vocviewer.core.boxes import to_continuous
from vocviewer.core.dataset import Dataset
from vocviewer.core.palette import ROLES
from vocviewer.core.tags import Target
from vocviewer.evaluation.patches import PatchTable, empty_table

#: A role in a few words, for a cell's first line.
SHORT_NAMES = {
    "gt": "object",
    "missed": "missed",
    "tp": "TP",
    "fp_background": "FP background",
    "fp_localization": "FP poor loc.",
    "fp_wrong_class": "FP wrong class",
    "duplicate": "FP duplicate",
    "ignored": "ignored",
    "unevaluated": "not evaluated",
    "others": "other",
}


def patch_key(table: PatchTable, row: int) -> int:
    """A key for the crop of ``table`` row ``row``, stable across sorts: its detection row, or
    ``-1 - object row``."""
    det = int(table.detection[row])
    return det if det >= 0 else -1 - int(table.object[row])


def patch_target(dataset: Dataset, table: PatchTable, row: int, set_index: int) -> Target:
    """What tagging patch ``row`` tags: its detection (in window result set ``set_index``) or
    its object."""
    image = str(dataset.images.id[table.image[row]])
    det = int(table.detection[row])
    if det >= 0:
        return Target("detection", image, det, set_index)
    return Target("object", image, int(dataset.objects.order_in_image[table.object[row]]))


class PatchListModel(QStringListModel):
    """The patches of a ``PatchTable`` (display text: the image id, held by Qt)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset: Dataset | None = None
        self.table = empty_table()
        self.boxes = np.zeros((0, 4))  # continuous pixels
        self.set_index = -1

    def set_table(self, dataset: Dataset | None, table: PatchTable, set_index: int) -> None:
        self.dataset, self.table, self.set_index = dataset, table, set_index
        if dataset is None:
            self.boxes = np.zeros((0, 4))
            self.setStringList([])
            return
        self.boxes = to_continuous(table.box, dataset.box_convention)
        self.setStringList([str(i) for i in dataset.images.id[table.image].tolist()])

    def lines(self, row: int) -> tuple[str, str]:
        """The cell's two lines: verdict · score, and IoU · class · image."""
        t, ds = self.table, self.dataset
        name = SHORT_NAMES[ROLES[int(t.role[row])]]
        score, iou = float(t.score[row]), float(t.iou[row])
        first = f"{name} · {score:.3f}" if math.isfinite(score) else name
        cls = ds.classes[int(t.label[row])] if ds is not None else ""
        image = str(ds.images.id[t.image[row]]) if ds is not None else ""
        second = ([f"IoU {iou:.2f}"] if math.isfinite(iou) else []) + [cls, image]
        return first, " · ".join(second)
