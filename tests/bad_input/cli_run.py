"""``eval_cli``: ``vocviewer eval PATH --results RESULTS ...`` as the bad-input tests run it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vocviewer.cli import main


def eval_cli(
    capsys: pytest.CaptureFixture[str], path: Path, results: Path, *extra: str
) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``vocviewer eval``; never a traceback on stderr."""
    code = main(["eval", str(path), "--results", str(results), *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
