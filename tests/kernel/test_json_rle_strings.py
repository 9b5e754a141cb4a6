"""A results file's compressed RLE strings in the JSON kernel (``_json.results``): located and
counted during the scan, decoded at the end across threads. Every string must decode to the
runs of ``rle_columns.from_strings`` on the numpy path (pycocotools' ``rleFrString``, checked
against pycocotools in test_rle_kernel.py); anything ``from_strings`` refuses (a value of over 12 characters, a string
ending inside a value, an empty string, an escape of a non-ASCII character) declines the file."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.core import rle_columns as rc

_json = kernel.load("_json")
pytestmark = pytest.mark.skipif(_json is None, reason="the JSON kernel is not built")

#: every character rleFrString reads: '0' .. 'o' (48 .. 111), the backslash among them
ALPHABET = "".join(chr(c) for c in range(48, 112))


def _file(strings: list[str], *, raw: bool = False) -> bytes:
    """A results file of one entry per string (``raw``: the strings are JSON already)."""
    entries = []
    for i, s in enumerate(strings):
        counts = s if raw else json.dumps(s)
        entries.append(
            f'{{"image_id": {i}, "category_id": 1, "score": 0.5, '
            f'"segmentation": {{"size": [7, 9], "counts": {counts}}}}}'
        )
    return ("[" + ",\n".join(entries) + "]").encode()


def _random_strings(rng: np.random.Generator, n: int) -> list[str]:
    """Well-formed compressed strings: values of 1 .. 12 characters (the last one's 6th bit
    clear), with every character of the alphabet."""
    k = rng.choice([1, 1, 1, 2, 2, 3, 5, 12], 20 * n)  # characters per value
    codes = rng.integers(0, 64, int(k.sum())) | 32  # 6th bit set: more to come
    codes[np.cumsum(k) - 1] &= ~32  # the last of each value
    text = "".join(ALPHABET[c] for c in codes.tolist())
    ends = np.cumsum(k)[np.sort(rng.choice(np.arange(1, 20 * n), n - 1, replace=False))]
    cuts = [0, *ends.tolist(), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(cuts)]


def _reference(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    with numpy_path():
        return rc.from_strings(strings)


@pytest.mark.parametrize("n", [1, 50, 9000])
def test_strings_decode_as_from_strings(n: int) -> None:
    rng = np.random.default_rng(n)
    strings = _random_strings(rng, n)
    r = _json.results(_file(strings))  # type: ignore[union-attr]
    assert r is not None
    counts, offsets = _reference(strings)
    assert r["rle"].dtype == np.int64 and np.array_equal(r["rle"], counts)
    assert np.array_equal(r["rle_len"], np.diff(offsets))


def test_escapes_in_strings() -> None:
    """JSON escapes inside the strings (the backslash is one of rleFrString's characters)."""
    bodies = ['"1\\\\2"', '"\\/0"', '"\\"0"', '"a\\n0"', '"\\u0041\\u0030"', '"\\b\\t\\f\\r0"']
    r = _json.results(_file(bodies, raw=True))  # type: ignore[union-attr]
    assert r is not None
    counts, offsets = _reference([json.loads(b) for b in bodies])
    assert np.array_equal(r["rle"], counts) and np.array_equal(r["rle_len"], np.diff(offsets))


@pytest.mark.parametrize(
    "body",
    [
        '""',  # empty
        '"' + "o" * 12 + '"',  # ends inside a value
        '"' + "o" * 12 + '0"',  # a value of 13 characters
        '"0\\u00e90"',  # an escape of a non-ASCII character
        '"0\\x"',  # not a JSON escape
        '"0\u00e9"',  # a raw non-ASCII character
        '"0\t0"',  # a raw control character
        '"00',  # unterminated
    ],
)
def test_declined_strings(body: str) -> None:
    good = _random_strings(np.random.default_rng(0), 5000)  # enough for several threads
    strings = [json.dumps(s) for s in good]
    strings[4321] = body  # in the second thread's share
    assert _json.results(_file(strings, raw=True)) is None  # type: ignore[union-attr]


def test_longest_value_kept() -> None:
    """A value of exactly 12 characters (60 bits) is read, wrapping as int64."""
    s = "o" * 11 + "O"
    r = _json.results(_file([s, "0" + s]))  # type: ignore[union-attr]
    assert r is not None
    counts, _ = _reference([s, "0" + s])
    assert np.array_equal(r["rle"], counts)
