"""Packaging: the .desktop entry and AppStream metainfo validate and agree with the project; the
PyInstaller spec, its entry script and the build / smoke-test scripts agree with the code. The
bundle itself is built by ``packaging/build.py``, not here."""

from __future__ import annotations

import ast
import configparser
import importlib.util
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from PIL import Image

import vocviewer
from vocviewer.cli_parser import build_parser

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "resources"
PACKAGING = ROOT / "packaging"
DESKTOP = RESOURCES / "vocviewer.desktop"
APP_ID = "io.github.vocviewer.vocviewer"
METAINFO = RESOURCES / f"{APP_ID}.metainfo.xml"


def _load(path: Path) -> ModuleType:
    """A script of ``packaging/`` as a module (the folder is no package: PyPI's ``packaging``)."""
    spec = importlib.util.spec_from_file_location(f"_vocviewer_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _script_names() -> set[str]:
    project = _pyproject()["project"]
    return set(project["scripts"]) | set(project["gui-scripts"])


# --- validators (Debian: desktop-file-utils, appstream) ---


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="desktop-file-utils")
def test_desktop_entry_validates() -> None:
    run = subprocess.run(
        ["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout + run.stderr == ""  # not even a hint


@pytest.mark.skipif(not shutil.which("appstreamcli"), reason="appstream")
def test_metainfo_validates() -> None:
    run = subprocess.run(
        ["appstreamcli", "validate", "--no-net", "--pedantic", str(METAINFO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    issues = [ln for ln in run.stdout.splitlines() if ln[:2] in ("E:", "W:", "I:", "P:")]
    assert issues == []


# --- the files agree with the project ---


def test_metainfo_agrees_with_the_project() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert next(r.get("version") for r in root.iter("release")) == vocviewer.__version__
    assert root.findtext("launchable") == DESKTOP.name
    assert {b.text for b in root.iter("binary")} == _script_names()
    assert root.find("content_rating") is not None
    # no homepage or screenshot URLs until the project has a public address (none is invented)
    assert root.find("url") is None and root.find("screenshots") is None


def test_desktop_entry_runs_the_gui_script() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(DESKTOP)
    exec_line = entry["Desktop Entry"]["Exec"].split()
    assert exec_line[0] in _pyproject()["project"]["gui-scripts"]
    assert entry["Desktop Entry"]["Icon"] == "vocviewer"
    assert (RESOURCES / "vocviewer.svg").is_file()


# --- the PyInstaller spec and the scripts ---


def _spec_names() -> tuple[list[str], str]:
    """The spec's excluded module names (``EXCLUDES``, evaluated) and its source."""
    source = (PACKAGING / "vocviewer.spec").read_text()
    tree = ast.parse(source)
    names: dict[str, object] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id in (
            "QT_EXCLUDES",
            "EXCLUDES",
            "DYNAMIC_IMPORTS",
        ):
            code = compile(ast.Expression(node.value), "vocviewer.spec", "eval")  # type: ignore[attr-defined]
            names[target.id] = eval(code, {}, dict(names))
    return list(names["EXCLUDES"]), source  # type: ignore[arg-type]


def test_spec_excludes_nothing_the_program_imports() -> None:
    excludes, source = _spec_names()
    assert 'collect_submodules("vocviewer")' in source  # commands are imported by name
    assert "launch_gui.py" in source and (PACKAGING / "launch_gui.py").is_file()
    qt = [name for name in excludes if name.startswith("PySide6.")]
    assert "PySide6.QtNetwork" in qt
    for name in qt:  # real module names, and none of them imported by vocviewer
        assert importlib.util.find_spec(name) is not None, name
    imported = set()
    for path in (ROOT / "vocviewer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
                imported.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
    top = {name.split(".")[0] for name in imported}
    for name in excludes:
        assert name not in imported and name not in top, f"{name} is excluded but imported"
    required = {
        r.split(">")[0].split("=")[0].split("!")[0] for r in _pyproject()["project"]["dependencies"]
    }
    test_only = {
        r.split(">")[0].split("=")[0]
        for r in _pyproject()["project"]["optional-dependencies"]["test"]
    }
    for dep in ("scipy", "pycocotools", "tidecv", "pytest", "hypothesis"):
        assert dep in test_only and dep not in required and dep in excludes


def test_spec_excludes_nothing_the_window_loads() -> None:
    """The GUI and every command imported in a fresh interpreter (pytest-qt loads QtTest here):
    of the excluded modules only those pyqtgraph merely tries (``try: import``) may load."""
    excludes, _ = _spec_names()
    code = (
        "import sys, vocviewer.cli, vocviewer.gui.window.app, vocviewer.demo\n"
        "from vocviewer.families import registry; registry.registered()\n"
        "import vocviewer.families.analyze, vocviewer.gui.window.export_run\n"
        "print('\\n'.join(sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    loaded = set(run.stdout.split())
    tried = {"PySide6.QtSvg", "PySide6.QtTest"}  # pyqtgraph.Qt: try: import
    assert "pyqtgraph" in loaded and "PySide6.QtWidgets" in loaded
    for name in excludes:
        hits = {m for m in loaded if m == name or m.startswith(name + ".")}
        assert hits <= tried, f"{name} is excluded from the bundle but loaded"


def test_spec_hidden_imports_exist_and_are_loaded() -> None:
    """Each module the spec names for imports PyInstaller cannot see exists, is not excluded, and
    is loaded by the window (else it is not needed)."""
    source = (PACKAGING / "vocviewer.spec").read_text()
    node = next(
        n.value
        for n in ast.parse(source).body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "DYNAMIC_IMPORTS"
    )
    dynamic = ast.literal_eval(node)
    excludes, _ = _spec_names()
    code = "import sys, vocviewer.gui.window.app\nprint('\\n'.join(sys.modules))"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert dynamic
    for name in dynamic:
        assert importlib.util.find_spec(name) is not None, name
        assert name not in excludes and name in run.stdout.split(), name


def test_entry_script_dispatches_every_command() -> None:
    launch = _load(PACKAGING / "launch_gui.py")
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(launch.COMMANDS) == {*sub.choices, "--version"}  # type: ignore[union-attr]
    run = subprocess.run(
        [sys.executable, str(PACKAGING / "launch_gui.py"), "--version"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert run.returncode == 0 and run.stdout.strip() == f"vocviewer {vocviewer.__version__}"


def test_build_script_names_real_files() -> None:
    build = _load(PACKAGING / "build.py")
    assert build.SPEC.is_file() and build.ROOT == ROOT
    assert (PACKAGING / "smoke_test.py").is_file()


def test_smoke_check_finds_blank_and_wrong_sized_screenshots(tmp_path: Path) -> None:
    smoke = _load(PACKAGING / "smoke_test.py")
    w, h = smoke.WINDOW_SIZE
    rng = np.random.default_rng(0)
    good, blank, small = tmp_path / "good.png", tmp_path / "blank.png", tmp_path / "small.png"
    Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(good)
    Image.new("RGB", (w, h), (240, 240, 240)).save(blank)
    Image.fromarray(rng.integers(0, 255, (h // 2, w, 3), dtype=np.uint8)).save(small)
    assert smoke.check_png(good) == []
    assert "looks blank" in " ".join(smoke.check_png(blank))
    assert f"expected {w}x{h}" in " ".join(smoke.check_png(small))
    assert "no screenshot" in " ".join(smoke.check_png(tmp_path / "missing.png"))


def test_smoke_check_size_is_the_window_default(qtbot) -> None:  # type: ignore[no-untyped-def]
    from vocviewer.gui.window.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    size = window.size()
    assert (size.width(), size.height()) == _load(PACKAGING / "smoke_test.py").WINDOW_SIZE
