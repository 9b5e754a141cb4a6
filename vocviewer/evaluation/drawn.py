"""The one rule for which detections are *drawn* at a score threshold (pure numpy, no Qt).

A detection is drawn — shown on the image, listed as drawn, counted in the image list's error
counts and the grid's tags, in the confusion matrix and the comparison of two result sets, and
the only kind of true positive that finds an object (``confusion.missed_at``) — iff its score is
at least the threshold: ``score >= threshold``. A NaN score is never drawn.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]


def is_drawn(score: npt.ArrayLike, threshold: float) -> BoolArray:
    """bool, ``score``'s shape: whether each score is drawn at ``threshold``."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.asarray(score) >= threshold, dtype=bool)
