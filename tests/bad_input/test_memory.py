"""Running out of memory: one line on stderr and exit code 1, from either of ``eval``'s threads."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import pytest

from tests.bad_input.cli_run import eval_cli
from tests.bad_input.test_output import make_coco
from vocviewer.families.coco import benchmark, results_reader


def _exhausted(*_: object, **__: object) -> NoReturn:
    raise MemoryError


@pytest.mark.parametrize("where", ["results thread", "annotation reader"])
def test_out_of_memory_is_one_message(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    ann, _, res = make_coco(tmp_path)
    assert eval_cli(capsys, ann, res)[0] == 0  # the files themselves are fine
    if where == "results thread":  # (the scanner runs beside the annotation reader)
        monkeypatch.setattr(benchmark, "box_columns", _exhausted)
    else:
        monkeypatch.setattr(benchmark, "read_coco", _exhausted)
    monkeypatch.setattr(results_reader, "box_columns", _exhausted)
    code, out, err = eval_cli(capsys, ann, res)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "vocviewer: error: out of memory: the input needs more memory than this machine has"
    ]
