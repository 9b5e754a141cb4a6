"""Property-based fuzzing of the VOC-family readers (hypothesis; a small, reproducible budget).

Mutated valid files and arbitrary bytes must give data or a ``FormatError`` naming the file (and
problems that are ``FormatError`` naming a file), never another exception. The targets live in
``fuzz_targets_voc`` so that ``bench/fuzz.py`` can run them for much longer.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.formats.fuzz_targets_voc import TARGETS, check_outcome, mutate

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _run(name: str, data: bytes) -> None:
    (_, _, read) = next(t for t in TARGETS if t[0] == name)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input"
        path.write_bytes(data)
        check_outcome(read, path)


@pytest.mark.parametrize("name", [t[0] for t in TARGETS])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_valid_files(name: str, seed: int) -> None:
    rng = random.Random(seed)
    make = next(t[1] for t in TARGETS if t[0] == name)
    _run(name, mutate(make(rng), rng))


@pytest.mark.parametrize("name", [t[0] for t in TARGETS])
@SETTINGS
@given(data=st.binary(max_size=3000))
def test_arbitrary_bytes(name: str, data: bytes) -> None:
    _run(name, data)


@pytest.mark.parametrize("name", [t[0] for t in TARGETS])
def test_valid_files_read_without_problems(name: str) -> None:
    """The generators write valid files (else the mutations above would prove little)."""
    make = next(t[1] for t in TARGETS if t[0] == name)
    (_, _, read) = next(t for t in TARGETS if t[0] == name)
    for seed in range(5):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "input"
            path.write_bytes(make(random.Random(seed)))
            outcome = check_outcome(read, path)
            assert not isinstance(outcome, Exception), outcome
