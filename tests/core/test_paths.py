"""``core.paths.PathColumn``: behaves as the tuple of ``Path``s it stands for."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from vocviewer.core.paths import PathColumn

NAMES = ["000000000139.jpg", "sub/a.png", "/abs/b.jpg", "", "000000000139.jpg"]


def _pair(folder: Path | None) -> tuple[PathColumn, tuple[Path, ...]]:
    made = tuple(Path(n) if folder is None else folder / n for n in NAMES)
    return PathColumn(NAMES, folder), made


@pytest.mark.parametrize("folder", [None, Path("/data/val2017"), Path("rel")])
def test_reads_as_the_tuple(folder: Path | None) -> None:
    col, made = _pair(folder)
    assert len(col) == len(made)
    assert list(col) == list(made) and tuple(col) == made
    assert [col[i] for i in range(-len(made), len(made))] == [*made, *made]
    for cut in (slice(None), slice(1, 3), slice(None, None, -2), slice(7, 9), slice(-2, None)):
        got = col[cut]
        assert type(got) is tuple and got == made[cut]
    assert list(reversed(col)) == list(reversed(made))
    assert made[1] in col and Path("nowhere") not in col
    assert col.index(made[2]) == made.index(made[2]) and col.count(made[0]) == 2
    assert [p.name for p in col] == [p.name for p in made]


def test_index_errors_as_a_tuple() -> None:
    col, made = _pair(None)
    for i in (len(made), -len(made) - 1):
        with pytest.raises(IndexError):
            made[i]
        with pytest.raises(IndexError):
            col[i]
    with pytest.raises(TypeError):
        col["0"]  # type: ignore[call-overload]
    assert col[np.int64(1)] == made[1]


def test_equality_hash_and_concatenation() -> None:
    col, made = _pair(Path("/d"))
    assert col == made and made == col
    assert (col != made) is False and (made != col) is False
    assert hash(col) == hash(made)
    assert col == PathColumn([str(p) for p in made])  # other strings, same paths
    assert col != made[:-1] and col != list(made) and col != PathColumn(NAMES, Path("/e"))
    assert col + made == made + made and made + col == made + made
    assert type(col + col) is tuple and col + col == made + made
    assert {col: 1}[made] == 1


def test_each_path_made_once() -> None:
    col = PathColumn(NAMES, Path("/d"))
    assert col[1] is col[1] is list(col)[1]


def test_pickles_and_converts_as_the_tuple() -> None:
    col, made = _pair(Path("/d"))
    back = pickle.loads(pickle.dumps(col, protocol=5))
    assert type(back) is PathColumn and back == made
    a, b = np.array(col, dtype=object), np.array(made, dtype=object)
    assert a.shape == b.shape == (len(made),) and list(a) == list(b)
    assert np.asarray(col).shape == np.asarray(made).shape
    assert "5 paths" in repr(col)
