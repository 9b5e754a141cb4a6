"""Small helpers for the read-only columnar arrays of the model."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def frozen(a: npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    """A read-only copy of ``a`` as ``dtype``."""
    arr = np.array(a, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


def nan_to_null(x: float | None) -> float | None:
    """``x`` as a JSON number: NaN (an undefined AP, no positives) and ``None`` become ``null``."""
    return None if x is None or x != x else float(x)
