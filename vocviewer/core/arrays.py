"""Small helpers for the read-only columnar arrays of the model."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt


def frozen(a: npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    """A read-only copy of ``a`` as ``dtype``."""
    arr = np.array(a, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


def freeze_columns(obj: object, columns: Iterable[tuple[str, npt.DTypeLike]], n: int) -> None:
    """Replace each named column of the frozen dataclass ``obj`` by a read-only copy as its
    ``dtype``, checking that it has shape ``(n,)`` (``ValueError`` naming the class and column)."""
    for name, dtype in columns:
        arr = frozen(getattr(obj, name), dtype)
        if arr.shape != (n,):
            kind = type(obj).__name__
            raise ValueError(f"{kind}.{name} has shape {arr.shape}, expected ({n},)")
        object.__setattr__(obj, name, arr)


def nan_to_null(x: float | None) -> float | None:
    """``x`` as a JSON number: NaN (an undefined AP, no positives) and ``None`` become ``null``."""
    return None if x is None or x != x else float(x)
