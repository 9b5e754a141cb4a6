"""House rules enforced: a Qt-free library and a module-size budget (DESIGN.md rules 1 and 8)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "vocviewer"
MAX_LINES = 500


def test_library_and_cli_do_not_import_qt():
    """Every module of core, formats, evaluation and commands, plus cli and demo, imports
    without pulling in Qt (DESIGN.md rule 1)."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import vocviewer.core, vocviewer.formats, vocviewer.evaluation, vocviewer.commands\n"
        "for pkg in (vocviewer.core, vocviewer.formats, vocviewer.evaluation, vocviewer.commands):\n"
        "    for m in pkgutil.iter_modules(pkg.__path__):\n"
        "        importlib.import_module(f'{pkg.__name__}.{m.name}')\n"
        "import vocviewer.cli, vocviewer.demo\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))\n"
        "print(bad); raise SystemExit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_over_the_size_budget():
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py")}
    over = {str(p.relative_to(PACKAGE)): n for p, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"


def test_ruff_is_clean():
    """Lint (including T20: no print outside cli.py) as configured in pyproject.toml."""
    root = PACKAGE.parent
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "vocviewer", "tests", "benchmarks"],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_on_the_library():
    """core, formats and evaluation type-check under ``mypy --strict`` (config in pyproject)."""
    root = PACKAGE.parent
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", "pyproject.toml"],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
