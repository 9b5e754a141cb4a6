"""LVIS annotation files look like COCO's but are federated: evaluated as COCO their numbers
would be wrong, so the COCO benchmark refuses them (until an LVIS benchmark evaluates them). The
reader marks them (``CocoAnnotations.federated``), so the file is read once."""

from __future__ import annotations

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError

LVIS_MESSAGE = (
    "an LVIS annotation file: vocviewer does not evaluate LVIS yet; "
    "evaluated as COCO its numbers would be wrong"
)


def refuse_lvis(dataset: Dataset) -> Dataset:
    """``dataset`` (read by ``formats.coco.read_coco``), or ``FormatError`` naming its file if
    the file is LVIS-shaped."""
    if dataset.extras["coco"].federated:
        raise FormatError(dataset.root, LVIS_MESSAGE)
    return dataset
