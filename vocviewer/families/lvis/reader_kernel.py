"""LVIS annotation JSON → ``Dataset`` through the compiled scanner (``vocviewer.kernel._json``).

COCO's columns come from ``families.coco.reader_kernel`` (images named by their ``coco_url``
when they have no ``file_name``; ``iscrowd`` not required: ``LVISEval`` never reads it), the
federated ones from the same scan. Only a file ``read_lvis`` would read without a problem is
taken; anything else gives ``None`` and the Python reader runs (its messages unchanged).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.families.coco import reader_kernel
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.lvis.columns import FREQUENCIES, LvisAnnotations, sorted_unique

IntArray = npt.NDArray[np.int64]

__all__ = ["read_plain"]


def read_plain(path: Path, data: bytes, img_dir: Path, *, masks: bool) -> Dataset | None:
    """``read_lvis`` of the file ``path`` (its bytes ``data``, images in ``img_dir``) by the
    kernel, or ``None`` (no kernel, or not a plain LVIS file)."""
    c = reader_kernel.kernel_columns(data)
    if c is None or not len(c["ann_id"]):  # (no annotations: "annotations" may be missing)
        return None
    if not (c["has_neg"].all() and c["has_nex"].all()):
        return None
    if len(sorted_unique(c["ann_id"])) != len(c["ann_id"]):
        return None  # a repeated annotation id: named by the Python reader
    freq = c.strings("freq_off", "freq_len")
    if any(f not in FREQUENCIES for f in freq):
        return None
    dataset = reader_kernel.kernel_dataset(
        path, c, img_dir, masks=masks, reads_iscrowd=False, url_names=True
    )
    if dataset is None:
        return None
    gt: CocoAnnotations = dataset.data(CocoAnnotations)
    order = np.argsort(c["category_id"], kind="stable")
    by_id = np.argsort(c["ann_id"], kind="stable")  # (ids unique: checked above)
    row_of = by_id[np.searchsorted(c["ann_id"][by_id], gt.ann_id)]  # each object's entry
    neg = _offsets_and_rows(c["neg"], c["neg_len"], gt.category_id)
    nex = _offsets_and_rows(c["nex"], c["nex_len"], gt.category_id)
    lvis = LvisAnnotations(
        neg_offsets=neg[0],
        neg_label=neg[1],
        not_exhaustive_offsets=nex[0],
        not_exhaustive_label=nex[1],
        frequency=np.array([freq[k] for k in order.tolist()], dtype=np.str_),
        ignore=np.asarray(c["ignore"], dtype=bool)[row_of],
    )
    return dataset.with_data(lvis)


def _offsets_and_rows(
    ids: IntArray, lens: IntArray, cat_ids: IntArray
) -> tuple[IntArray, IntArray]:
    """``reader._csr``: per image, the class rows of its listed category ids (ascending
    ``cat_ids``), ids without a category left out; offsets int64 (I + 1,), rows int64."""
    pos = np.minimum(np.searchsorted(cat_ids, ids), max(len(cat_ids) - 1, 0))
    known = cat_ids[pos] == ids if len(cat_ids) else np.zeros(len(ids), dtype=bool)
    owner = np.repeat(np.arange(len(lens)), lens)
    kept = np.bincount(owner[known], minlength=len(lens))
    offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
    return offsets, pos[known].astype(np.int64)
