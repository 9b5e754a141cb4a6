"""Small helpers for the read-only columnar arrays of the model."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt


def frozen(a: npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    """``a`` as a read-only array of ``dtype``: ``a`` itself if it is one already and nothing
    can write its data (``immutable``), else a read-only copy."""
    if isinstance(a, np.ndarray) and a.dtype == np.dtype(dtype) and immutable(a):
        return a
    arr = np.array(a, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


def immutable(a: np.ndarray) -> bool:
    """Whether no array can write ``a``'s data: it is read-only, and so is every array it is a
    view of (its data owned by one of them, by ``bytes``, or by a capsule: a compiled kernel's
    buffer, which only the array that took it over reaches)."""
    while not a.flags.writeable:
        base = a.base
        if base is None or isinstance(base, bytes) or type(base).__name__ == "PyCapsule":
            return True
        if not isinstance(base, np.ndarray):
            return False
        a = base
    return False


def sealed(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only in place, for an array its maker hands over and no longer writes:
    the model's ``frozen`` then keeps it instead of copying it."""
    a.flags.writeable = False
    return a


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
