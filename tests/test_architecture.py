"""House rules enforced: a Qt-free library, import contracts between the layers, no import cycles,
and a module-size budget counted on ``ruff format`` output (DESIGN.md rules 1 and 8).

The import graph is read with ``ast`` from the source, so it holds every import: at module level,
inside functions (lazy imports) and under ``if TYPE_CHECKING:``. All of them count. A lazy import
only changes *when* a module is loaded, not that one module depends on the other; a cycle through
one is still a cycle in the design. (import-linter would check the same contracts through one
more dependency and its own configuration language; the graph here is a page of ``ast``.)
"""

from __future__ import annotations

import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vocviewer"
MAX_LINES = 500
QT = ("PySide6", "pyqtgraph", "shiboken6")
LINTED = ("vocviewer", "tests", "bench")

FMT_MARK = re.compile(r"#\s*fmt:\s*(skip|off|on)\b")


# --- the import graph --------------------------------------------------------------------------
def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imported_names(name: str, path: Path) -> set[str]:
    """Every dotted name ``path`` imports (absolute; relative imports resolved), anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """vocviewer module -> the vocviewer modules it imports (``from pkg import mod`` is ``mod``)."""
    modules = _sources()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imported_names(name, path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = frozenset(targets)
    return graph


@cache
def external_imports() -> dict[str, frozenset[str]]:
    """vocviewer module -> the top-level names of the other packages it imports."""
    return {
        name: frozenset(
            n.split(".")[0] for n in _imported_names(name, path) if n.split(".")[0] != "vocviewer"
        )
        for name, path in _sources().items()
    }


def cycles(graph: dict[str, frozenset[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _in(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _violations(sources: tuple[str, ...], allowed: tuple[str, ...]) -> list[str]:
    """Imports from modules under ``sources`` of vocviewer modules outside ``allowed``."""
    return sorted(
        f"{m} imports {t}"
        for m, targets in import_graph().items()
        if _in(m, *sources)
        for t in targets
        if t != "vocviewer" and not _in(t, *allowed)
    )


# --- import contracts --------------------------------------------------------------------------
def test_the_graph_sees_lazy_and_type_checking_imports():
    """The reader finds a function-level import (cli -> gui) and a TYPE_CHECKING one."""
    graph = import_graph()
    assert "vocviewer.gui.window.app" in graph["vocviewer.cli"]  # inside _run_gui
    assert "vocviewer.gui.models.state" in graph["vocviewer.gui.window.export_actions"]
    assert cycles({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"})}) == [
        {"a", "b", "c"}
    ]


CORE, FORMATS, EVALUATION = "vocviewer.core", "vocviewer.formats", "vocviewer.evaluation"
KERNEL = "vocviewer.kernel"  # compiled loops: imports nothing of vocviewer, used from any layer
LIBRARY = (KERNEL, CORE, FORMATS, EVALUATION)
FAMILIES_PACKAGE = "vocviewer.families"
MODELS, WIDGETS, PANES = "vocviewer.gui.models", "vocviewer.gui.widgets", "vocviewer.gui.panes"
#: package -> the vocviewer packages its modules may import (``import vocviewer`` always may).
#: ``vocviewer.families`` holds the family interface (base, registry, views, ...) and one folder
#: per family; which of them may import a family folder is ``test_no_family_imported_...``.
LAYERS = {
    KERNEL: (KERNEL,),
    CORE: (KERNEL, CORE),
    FORMATS: (KERNEL, CORE, FORMATS),
    EVALUATION: (KERNEL, CORE, EVALUATION),
    FAMILIES_PACKAGE: (*LIBRARY, FAMILIES_PACKAGE),
    "vocviewer.demo": (CORE, FORMATS, "vocviewer.demo"),
    "vocviewer.cocoapi": (*LIBRARY, "vocviewer.families.coco", "vocviewer.cocoapi"),
    "vocviewer.gui": (*LIBRARY, FAMILIES_PACKAGE, "vocviewer.demo", "vocviewer.gui"),
    MODELS: (*LIBRARY, FAMILIES_PACKAGE, MODELS),
    WIDGETS: (*LIBRARY, FAMILIES_PACKAGE, MODELS, WIDGETS),
    PANES: (*LIBRARY, FAMILIES_PACKAGE, MODELS, WIDGETS, PANES),
}


@pytest.mark.parametrize("package", list(LAYERS))
def test_layers_import_only_downward(package):
    """kernel <- core <- formats / evaluation (never each other) <- families (the interface, then the
    family folders) <- cli / gui; gui never imports the CLI, families neither (nor Qt); inside
    gui, models <- widgets <- panes <- window."""
    assert not _violations((package,), LAYERS[package])


#: family names, and the modules that must not test them (DESIGN.md rule 9: one seam)
FAMILIES = ("voc", "coco", "visdrone", "ilsvrc", "lvis", "openimages", "yolo", "cvat")
FAMILY_FOLDERS = tuple(f"{FAMILIES_PACKAGE}.{name}" for name in FAMILIES)
REGISTRY = "vocviewer.families.registry"
#: (importer, family folder) pairs allowed across the rule "nothing outside a family's folder
#: imports it, except the registry", each with its reason
DECLARED_FAMILY_IMPORTS = {
    ("vocviewer.families.lvis", "vocviewer.families.coco"): "LVIS's protocol is COCO's with "
    "federated rules: its reader, matching, accumulation and analyses extend COCO's",
    ("vocviewer.families.yolo", "vocviewer.families.coco"): "YOLO is evaluated by COCO's "
    "protocol exactly: its split is read as the COCO document it stands for by COCO's reader and "
    "evaluated by COCO's evaluator and view (nothing copied)",
    ("vocviewer.families.cvat", "vocviewer.families.coco"): "CVAT / LabelMe are annotation "
    "tools' formats evaluated by COCO's protocol: converted to COCO's model, COCO's reader and "
    "evaluation run unchanged",
    ("vocviewer.families.cvat", "vocviewer.families.voc"): "CVAT / LabelMe evaluated by VOC's "
    "protocol: converted to VOC's model, VOC's evaluation runs unchanged",
    ("vocviewer.families.yolo", "vocviewer.families.voc"): "convert --to voc: a YOLO split is "
    "written by VOC's writer through the COCO document it is evaluated as",
    ("vocviewer.cocoapi", "vocviewer.families.coco"): "pycocotools' COCO / COCOeval / mask API "
    "is COCO's evaluator under pycocotools' names (a public drop-in for training code)",
}


def _folder(module: str) -> str | None:
    return next((f for f in FAMILY_FOLDERS if _in(module, f)), None)


def test_no_family_imported_outside_its_folder_but_by_the_registry():
    """Nothing outside ``families/<name>/`` imports a module of it (the registry names them as
    strings in ``BUILTIN``), except the pairs declared above."""
    found = sorted(
        f"{m} imports {t}"
        for m, targets in import_graph().items()
        for t in targets
        if (folder := _folder(t)) is not None
        and not _in(m, folder)
        and m != REGISTRY
        and not any(_in(m, a) and b == folder for a, b in DECLARED_FAMILY_IMPORTS)
    )
    assert not found
    # every declared exception is still needed
    for importer, folder in DECLARED_FAMILY_IMPORTS:
        assert any(
            _in(m, importer) and _folder(t) == folder
            for m, targets in import_graph().items()
            for t in targets
        ), (importer, folder)


def test_no_family_calls_back_into_the_registry():
    """The registry imports the families (by name); no family module imports the registry or the
    ``vocviewer.families`` package that re-exports it, so there is no loop at run time either."""
    back = sorted(
        f"{m} imports {t}"
        for m, targets in import_graph().items()
        if _folder(m) is not None
        for t in targets
        if t in (REGISTRY, FAMILIES_PACKAGE, "vocviewer.families.api", "vocviewer.families.analyze")
    )
    assert not back
    graph = import_graph()
    assert not [t for t in graph[REGISTRY] if _folder(t)]  # strings only (``BUILTIN``)


def test_the_registry_lists_every_family_folder():
    """One registry line per family folder, and one folder per line."""
    from vocviewer.families import registry

    folders = {p.name for p in (PACKAGE / "families").iterdir() if (p / "__init__.py").exists()}
    listed = {spec.split(".")[2] for spec in registry.BUILTIN}
    assert folders == listed == set(FAMILIES)


def test_package_docstrings_list_their_modules():
    """Each package's ``__init__`` docstring names every module and subpackage in it."""
    missing = []
    for init in PACKAGE.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", doc))
        for child in init.parent.iterdir():
            name = child.stem if child.suffix == ".py" else child.name
            is_module = child.suffix == ".py" and child.name not in ("__init__.py", "__main__.py")
            if (is_module or (child / "__init__.py").exists()) and name not in words:
                missing.append(f"{init.parent.relative_to(ROOT)}: {name}")
    assert not missing


FAMILY_FREE = (
    "vocviewer.cli",
    *sorted(m for m in _sources() if _in(m, FAMILIES_PACKAGE) and _folder(m) is None),
    *sorted(m for m in _sources() if _in(m, "vocviewer.evaluation.render")),
    "vocviewer.evaluation.analysis",
    "vocviewer.evaluation.analysis_curves",
    "vocviewer.formats.text_fields",
    "vocviewer.formats.json_input",
    "vocviewer.formats.problem_kinds",
    "vocviewer.formats.label_png",
    # the window: every module (the family arrives through its benchmark, never by name)
    *sorted(m for m in _sources() if m.startswith("vocviewer.gui")),
)


def test_no_family_name_outside_its_benchmark_module():
    """No string constant naming a family in the modules that dispatch over the registry (the
    registry's ``BUILTIN`` list of modules to import is the one exception)."""
    found = []
    for name in FAMILY_FREE:
        tree = ast.parse(_sources()[name].read_text(encoding="utf-8"))
        builtin = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "BUILTIN" for t in n.targets)
        ]
        allowed = {id(c) for b in builtin for c in ast.walk(b)}
        found += [
            f"{name}:{n.lineno} {n.value!r}"
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value in FAMILIES and id(n) not in allowed
        ]
    assert not found


def test_nothing_outside_gui_imports_qt():
    """Read from the source, lazy imports included (the run-time test below sees only what an
    import executes)."""
    bad = sorted(
        f"{m} imports {sorted(set(ext) & set(QT))}"
        for m, ext in external_imports().items()
        if set(ext) & set(QT) and not _in(m, "vocviewer.gui")
    )
    assert not bad


def test_no_argparse_below_the_cli():
    """The library and the families take plain parameters (``EvalRequest``, ``AnalyzeRequest``,
    ``SubsetRequest``, keywords): argparse lives in cli, cli_parser and cli_analyze only."""
    below = (*LIBRARY, FAMILIES_PACKAGE, "vocviewer.gui", "vocviewer.demo", "vocviewer.cocoapi")
    bad = sorted(m for m, ext in external_imports().items() if "argparse" in ext and _in(m, *below))
    assert not bad


def test_no_import_cycles():
    found = [sorted(c) for c in cycles(import_graph())]
    assert not found, f"import cycles (lazy and TYPE_CHECKING imports count): {found}"


def test_library_and_cli_do_not_import_qt():
    """Every module of core, formats, evaluation and families, plus cli and demo, imports
    without pulling in Qt (DESIGN.md rule 1)."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import vocviewer.core, vocviewer.formats, vocviewer.evaluation, vocviewer.families\n"
        "for pkg in (vocviewer.core, vocviewer.formats, vocviewer.evaluation, vocviewer.families):\n"
        "    for m in pkgutil.iter_modules(pkg.__path__):\n"
        "        importlib.import_module(f'{pkg.__name__}.{m.name}')\n"
        "import vocviewer.cli, vocviewer.demo\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))\n"
        "print(bad); raise SystemExit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# --- formatting and the module budget ----------------------------------------------------------
def test_no_fmt_skip():
    """The formatter owns layout: no comment that switches ruff format off (skip / off / on) in
    the package, the tests or the speed scripts (issues 11, 21)."""
    marked = [
        str(p.relative_to(ROOT))
        for folder in LINTED
        for p in (ROOT / folder).rglob("*.py")
        if any(
            tok.type == tokenize.COMMENT and FMT_MARK.search(tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(p.read_text(encoding="utf-8")).readline)
        )
    ]
    assert not marked, f"use ruff format, not formatter-suppression comments: {marked}"


def test_no_module_over_the_size_budget(tmp_path):
    """Counted as ``ruff format`` writes each module (no suppression comments: test_no_fmt_skip),
    so packing lines cannot meet the budget."""
    copy = tmp_path / "vocviewer"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    config = str(ROOT / "pyproject.toml")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "-q", "--no-cache", "--config", config, str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sizes = {str(p.relative_to(copy)): len(p.read_text().splitlines()) for p in copy.rglob("*.py")}
    over = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines as formatted: {over}"


def test_ruff_is_clean():
    """Lint (including T20: no print outside cli.py) as configured in pyproject.toml."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *LINTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *LINTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_on_the_library():
    """core, formats and evaluation type-check under ``mypy --strict`` (config in pyproject)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", "pyproject.toml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
