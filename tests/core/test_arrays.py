"""``core.arrays.frozen``: the model's columns can never change under it. An array is kept as it
is only when nothing can write its data (``sealed`` by its maker, or a read-only view of such an
array); anything else is copied."""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.core.arrays import frozen, immutable, sealed
from vocviewer.core.results import Detections


def test_a_writable_array_is_copied() -> None:
    a = np.arange(5, dtype=np.int64)
    f = frozen(a, np.int64)
    a[0] = 99
    assert f[0] == 0 and not f.flags.writeable
    with pytest.raises(ValueError):
        f[1] = 7


def test_a_sealed_array_is_kept() -> None:
    a = sealed(np.arange(5, dtype=np.int64))
    assert frozen(a, np.int64) is a
    view = a[1:]
    assert immutable(view) and frozen(view, np.int64) is view


def test_a_read_only_view_of_a_writable_array_is_copied() -> None:
    base = np.arange(6, dtype=np.float64)
    view = base[::2]
    view.flags.writeable = False
    assert not immutable(view)
    f = frozen(view, np.float64)
    base[0] = -1.0
    assert f[0] == 0.0


def test_another_dtype_is_copied() -> None:
    a = sealed(np.arange(3, dtype=np.int32))
    f = frozen(a, np.int64)
    assert f is not a and f.dtype == np.int64


def test_detections_share_sealed_columns() -> None:
    n = 4
    img, label = sealed(np.arange(n, dtype=np.int64)), sealed(np.zeros(n, dtype=np.int64))
    score, box = sealed(np.arange(n) / n), sealed(np.ones((n, 4)))
    line = np.arange(n, dtype=np.int64)  # not sealed: copied
    d = Detections(img, label, score, box, np.zeros(n, dtype=np.int64), line)
    assert d.image_index is img and d.score is score and np.shares_memory(d.box, box)
    assert not np.shares_memory(d.line, line)


def test_a_sealed_view_is_kept_with_what_it_views() -> None:
    """A maker's view of a buffer it hands over (a compiled reader's flat column reshaped):
    sealed, it and numpy's later views of it are kept, and the buffer is read-only too."""
    flat = np.arange(8, dtype=np.float64)
    boxes = sealed(flat.reshape(-1, 4))
    assert not flat.flags.writeable
    again = np.reshape(boxes, (2, 4))  # numpy's view of the buffer itself, not of ``boxes``
    assert frozen(boxes, np.float64) is boxes and frozen(again, np.float64) is again
    with pytest.raises(ValueError):
        flat[0] = 1.0
