"""``vocviewer eval`` imports only the family it evaluates: the parser and the choice of family
read the other families' declarations (``<family>/declared.py``), never their readers,
evaluators or views. Each run is a fresh process listing the modules it imported."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import vocviewer
from vocviewer import kernel
from vocviewer.cli_parser import COMMANDS, build_parser, command_of
from vocviewer.families import registry

#: a fresh interpreter running the CLI (``argv[2:]``), then printing every module it imported
#: whose name starts with one of the comma-separated prefixes ``argv[1]``
CHILD = (
    "import sys\n"
    "from vocviewer.cli import main\n"
    "rc = main(sys.argv[2:])\n"
    "wanted = tuple(sys.argv[1].split(','))\n"
    "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(wanted))))\n"
    "sys.exit(rc)\n"
)
FAMILIES = tuple(spec.split(".")[2] for spec in registry.BUILTIN)
#: where the ``vocviewer`` under test lives (``-c`` puts the working folder first on the path)
CHECKOUT = Path(vocviewer.__file__).resolve().parents[1]


#: modules a one-set ``eval`` does not import: the analyses (``analyze``'s options), the subset
#: writer (``subset``'s ``--image-mode``), the summary of several result sets
NOT_ON_THE_EVAL_PATH = {
    "vocviewer.evaluation.analyses.registry",
    "vocviewer.evaluation.confusion",
    "vocviewer.core.subset",
    "vocviewer.families.eval_sets",
}


def _imported(*argv: str | Path, prefixes: tuple[str, ...] = ("vocviewer.",)) -> set[str]:
    """The modules whose names start with one of ``prefixes`` that ``vocviewer *argv``
    imported."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(prefixes), *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=CHECKOUT,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {line for line in done.stdout.splitlines() if line.startswith(prefixes)}


def _other_families_loaded(modules: set[str], family: str) -> list[str]:
    """The modules of every family folder but ``family``'s among ``modules``, other than each
    folder's package and its declarations (which every command reads)."""
    loaded = []
    for other in (f for f in FAMILIES if f != family):
        package = f"vocviewer.families.{other}"
        light = {package, f"{package}.declared"}
        loaded += sorted(m for m in modules if m.startswith(f"{package}.") and m not in light)
    return loaded


def test_eval_on_a_voc_devkit_imports_no_other_family(demo):
    modules = _imported("eval", demo.year_dir, "--results", demo.results_dir)
    assert "vocviewer.families.voc.benchmark" in modules  # the run did evaluate VOC
    assert _other_families_loaded(modules, "voc") == []


def test_eval_on_a_coco_file_imports_no_other_family(tmp_path):
    gt = {
        "images": [{"id": 1, "width": 64, "height": 48, "file_name": "a.jpg"}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [4, 4, 20, 20],
                "area": 400,
                "iscrowd": 0,
            },
        ],
        "categories": [{"id": 1, "name": "thing"}],
    }
    dets = [{"image_id": 1, "category_id": 1, "bbox": [5, 5, 20, 20], "score": 0.9}]
    (tmp_path / "instances_val.json").write_text(json.dumps(gt))
    (tmp_path / "dets.json").write_text(json.dumps(dets))
    modules = _imported(
        "eval", tmp_path / "instances_val.json", "--results", tmp_path / "dets.json"
    )
    assert "vocviewer.families.coco.benchmark" in modules
    # no VOC reader, no LVIS / YOLO / CVAT module
    assert _other_families_loaded(modules, "coco") == []
    assert "vocviewer.formats.session" not in modules  # (``open`` alone reads sessions)
    # nor what only other commands' options or several result sets need (``cli_parser``
    # builds the options of the command given alone)
    assert not modules & NOT_ON_THE_EVAL_PATH, sorted(modules & NOT_ON_THE_EVAL_PATH)
    if kernel.load("_json") is not None:  # the scanner reads the file: no msgspec, no numpy.ma
        extra = _imported(
            "eval",
            tmp_path / "instances_val.json",
            "--results",
            tmp_path / "dets.json",
            prefixes=("msgspec", "numpy.ma.", "secrets"),
        )
        assert extra == set()


def test_the_parser_built_for_one_command_parses_it_as_the_whole_parser_does():
    """``build_parser(command)`` lists every command (``--help``, an unknown command's error)
    and builds that command's options exactly as the whole parser does."""

    def described(parser: argparse.ArgumentParser) -> dict[str, object]:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return {
            name: (
                p.format_help(),
                [(a.dest, a.option_strings, a.default, a.nargs, a.choices) for a in p._actions],
            )
            for name, p in sub.choices.items()
        }

    whole = build_parser()
    full = described(whole)
    assert list(full) == list(COMMANDS)
    for command in COMMANDS:
        alone = build_parser(command)
        assert alone.format_help() == whole.format_help()
        assert described(alone)[command] == full[command]
    assert command_of(["eval", "gt.json", "--results", "r.json"]) == "eval"
    assert command_of(["-h", "analyze"]) == "analyze"  # (the top level's help, all listed)
    assert command_of(["--version"]) is None
    assert command_of(["evl", "x"]) is None  # the whole parser then names the choices


def test_declarations_are_what_the_benchmarks_answer():
    """``families()`` lists, in ``registered()``'s order, what the benchmarks themselves declare,
    without importing any benchmark; ``loaded`` imports only the one asked for."""
    code = (
        "import sys\n"
        "from vocviewer.families import registry as r\n"
        "keys = ('name', 'title', 'tasks', 'protocols', 'options', 'analyze_tasks', 'priority',"
        " 'hint', 'files', 'conversions')\n"
        "row = lambda b: tuple(getattr(b, k, ()) for k in keys)\n"
        "declared = [row(d) for d in r.families()]\n"
        "assert not [m for m in sys.modules if m.endswith('.benchmark')], 'imported'\n"
        "first = r.loaded(r.families()[0])\n"
        "assert [m for m in sys.modules if m.endswith('.benchmark')] == [type(first).__module__]\n"
        "assert declared == [row(b) for b in r.registered()]\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=CHECKOUT, timeout=300
    )
    assert done.returncode == 0, done.stderr


def test_the_command_runs_openblas_at_one_thread_unless_told_otherwise() -> None:
    """``cli_env``: set before numpy loads (numpy's OpenBLAS reads it then); a user's wins."""
    import os

    code = (
        "import os, sys\n"
        "import vocviewer.cli\n"
        "assert 'numpy' in sys.modules\n"  # (loaded by the command's own imports)
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    for given, want in ((None, "1"), ("3", "3")):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        if given is not None:
            env["OPENBLAS_NUM_THREADS"] = given
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=CHECKOUT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == want


def test_the_command_imports_with_the_collector_paused_then_frozen() -> None:
    """``__main__.run`` (``python -m vocviewer``, the ``vocviewer`` script): the collector is
    paused while ``cli`` imports, what the imports made is frozen, collection is on again."""
    code = (
        "import gc, sys\n"
        "from vocviewer.__main__ import run\n"
        "assert 'vocviewer.cli' not in sys.modules and gc.get_freeze_count() == 0\n"
        "seen = []\n"
        "gc.callbacks.append(lambda phase, info: seen.append(gc.get_freeze_count()))\n"
        "sys.argv = ['vocviewer', 'demo', '--help']\n"
        "try:\n"
        "    run()\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert gc.isenabled() and gc.get_freeze_count() > 1000, gc.get_freeze_count()\n"
        "print(min(seen, default=-1))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=CHECKOUT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "usage: vocviewer demo" in done.stdout
    # the first collection (argparse's, in ``main``) came after the imports, once they were frozen
    assert int(done.stdout.split()[-1]) > 1000
