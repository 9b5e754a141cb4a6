"""Where a ``vocviewer`` command may write: never inside the dataset's folders nor over an input.

``given_roots`` names the dataset folders the arguments give before anything is read;
``guard_outputs`` refuses the outputs then and again once the dataset's own folders are known;
``guard`` / ``guard_json`` check one target (``formats.output``, ``cli_streams``). Nothing here
prints (``cli`` reports the ``OutputError``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from vocviewer.cli_streams import is_pipe, refuse_inside, std_stream
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import OutputError
from vocviewer.formats import output


def given_roots(path: Path | None, *sources: Path | None) -> list[Path]:
    """The dataset folders the arguments name, known before anything is read: ``path`` (a file's
    folder; a VOC year folder for a folder inside one), the VOCdevkit root holding it, and
    ``sources`` (COCO ``--images``, ILSVRC ``--devkit``). ``Dataset.roots`` add the rest once
    the dataset is read."""
    roots = [Path(p) for p in sources if p is not None]
    if path is not None and path.exists():
        folder = path if path.is_dir() else path.parent
        if folder.name in ("Annotations", "ImageSets", "JPEGImages"):
            folder = folder.parent
        roots += [path, folder]
        if folder.parent.name == "VOCdevkit" or (folder.parent / "VOCcode").is_dir():
            roots.append(folder.parent)
    return roots


def guard(
    target: Path, roots: Sequence[Path], inputs: Sequence[Path] = (), *, folder: bool = False
) -> Path:
    """``target`` resolved, or ``OutputError``: inside one of ``roots`` (``formats.output``), an
    existing non-file (non-folder if ``folder``), or one of the ``inputs`` or inside one."""
    real = (output.guard_folder if folder else output.guard_target)(target, roots)
    for given in inputs:
        src = Path(os.path.abspath(given)).resolve()
        if real == src:
            raise OutputError(target, f"refusing to overwrite the input {given}")
        if src in real.parents:
            raise OutputError(target, f"refusing to write inside the input folder {given}")
    return real


def guard_outputs(
    args: argparse.Namespace, roots: list[Path], targets: list[tuple[Path | None, str]]
) -> Callable[..., None]:
    """Refuse the ``(target, kind)`` outputs now (before anything is read) and again once the
    dataset's own folders are known: ``args.on_dataset``, which the benchmark calls when it has
    read the dataset (``families.base.opened``). ``kind``: ``"file"``, ``"folder"`` or
    ``"json"`` (a file, or a stream: ``guard_json``). ``roots`` grows with those folders.
    Returns the check, to run once more just before writing."""

    def check(dataset: Dataset | None = None) -> None:
        roots.extend(dataset.protected_roots if dataset else ())
        for target, kind in targets:
            if target and kind == "json":
                guard_json(target, roots, args.results)
            elif target:
                guard(target, roots, args.results, folder=kind == "folder")

    check()
    args.on_dataset = check
    return check


def guard_json(target: Path, roots: Sequence[Path], inputs: Sequence[Path] = ()) -> None:
    """``guard`` for ``--json``, which may also name a stream (``cli_streams``: ``-``,
    ``/dev/stdout``, a pipe), written as it is but never inside the dataset's folders."""
    if std_stream(target) is None and not is_pipe(target):
        guard(target, roots, inputs)
    else:
        refuse_inside(target, roots)
