"""Objects' list segmentations (one or more polygons each) rasterised into RLE masks in one batch."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.core import masks as mk

__all__ = ["polygon_sets_to_rle"]


def polygon_sets_to_rle(
    sets: list[list[npt.NDArray[np.float64]]], h: npt.ArrayLike, w: npt.ArrayLike
) -> list[mk.Counts]:
    """``segmentation_to_rle`` of many list segmentations given as ``polygon_parts`` (each with its
    image's ``h``, ``w``): every polygon rasterised in one batch, an object's polygons merged."""
    hh = np.asarray(h, dtype=np.int64).reshape(-1)
    ww = np.asarray(w, dtype=np.int64).reshape(-1)
    nparts = np.array([len(s) for s in sets], dtype=np.int64)
    flat = [p for s in sets for p in s]
    counts = mk.polygons_to_rle_batch(flat, np.repeat(hh, nparts), np.repeat(ww, nparts))
    out: list[mk.Counts] = []
    i = 0
    for k, hi, wi in zip(nparts.tolist(), hh.tolist(), ww.tolist(), strict=True):
        if k == 0:
            out.append(np.array([hi * wi], dtype=np.int64))
        else:  # one polygon: merge would return it unchanged
            out.append(counts[i] if k == 1 else mk.merge(counts[i : i + k], hi, wi))
        i += k
    return out
