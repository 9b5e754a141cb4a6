"""Small helpers for the read-only columnar arrays of the model."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable

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
    view of (its data owned by one of them, or by ``bytes``), or one of them was ``sealed``
    by its maker."""
    while not a.flags.writeable:
        if a.base is None or isinstance(a.base, bytes) or _is_sealed(a):
            return True
        if not isinstance(a.base, np.ndarray):
            return False
        a = a.base
    return False


#: Arrays handed over by ``sealed``, by ``id`` (a weak reference: the entry goes with the array).
_SEALED: dict[int, weakref.ref[np.ndarray]] = {}


def sealed(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only in place, for an array its maker hands over and no longer writes:
    the model's ``frozen`` then keeps it (and read-only views of it) instead of copying it.
    Where ``a`` is a view, the arrays it views are made read-only too and count as handed
    over (a buffer a compiled reader filled, an array the maker reshaped), so that views
    numpy makes of them later are kept as well."""
    x = a
    while True:
        x.flags.writeable = False
        _SEALED[id(x)] = weakref.ref(x, _forget(id(x)))
        if not isinstance(x.base, np.ndarray):
            return a
        x = x.base


def _forget(key: int) -> Callable[[weakref.ref[np.ndarray]], None]:
    """The callback dropping ``_SEALED[key]`` once its array is gone."""

    def forget(_gone: weakref.ref[np.ndarray]) -> None:
        _SEALED.pop(key, None)

    return forget


def _is_sealed(a: np.ndarray) -> bool:
    ref = _SEALED.get(id(a))
    return ref is not None and ref() is a


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
