"""Property tests: the VisDrone and ILSVRC readers give data or a ``FormatError`` naming the file.

Every target of ``fuzz_targets_other`` gets mutated valid files and arbitrary bytes (a small,
derandomised budget; ``bench/fuzz.py`` is the long run). Problems collected while loading
must name a file too, and a line or element when they are about the file's content.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.formats.fuzz_targets_other import MUTATIONS, TARGETS, mutate
from vocviewer.core.errors import FormatError

BUDGET = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
IDS = [t[0] for t in TARGETS]
#: Problems about a whole file (formats.input's reasons) need no line or element.
WHOLE_FILE = ("cannot read", "no such file", "symbolic link loop", "expected a regular file")


def _read(target, data: bytes) -> object:
    """Read ``data`` as ``target``'s file; a ``FormatError`` must name it, problems a file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzzcase.in"
        path.write_bytes(data)
        try:
            out = target[2](path)
        except FormatError as e:
            out = e
    if isinstance(out, FormatError):
        assert out.path == path, f"error names {out.path}, not {path}: {out}"
        return out
    for problem in getattr(out, "problems", ()):
        assert isinstance(problem, FormatError) and problem.path is not None
        if problem.path.name == "0000.txt" or problem.path.suffix == ".xml":
            whole_file = problem.message.startswith(WHOLE_FILE)
            assert problem.line is not None or problem.element or whole_file, problem
    return out


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
@BUDGET
@given(seed=st.integers(0, 2**64))
def test_mutated_valid_files_give_data_or_a_located_error(target, seed: int):
    # a seeded generator, not st.randoms(): hundreds of recorded draws per file cost 20 ms a case
    rng = random.Random(seed)
    _read(target, mutate(target[1](rng), rng, target[1](rng)))


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
@BUDGET
@given(data=st.binary(max_size=3000))
def test_arbitrary_bytes_give_data_or_an_error(target, data: bytes):
    _read(target, data)


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_valid_files_read_without_problems(target):
    for seed in range(5):
        out = _read(target, target[1](random.Random(seed)))
        assert not isinstance(out, FormatError), out
        assert not getattr(out, "problems", ()), out.problems  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_mutation_changes_something(name):
    """A mutation that never changes its input would make the fuzz counts meaningless."""
    valid = TARGETS[0][1](random.Random(0))
    changed = {MUTATIONS[name](valid, random.Random(s), valid) != valid for s in range(20)}
    assert True in changed
