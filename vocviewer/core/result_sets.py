"""Result sets from ``--results`` paths, as ``open``, ``eval``, ``analyze`` and ``export`` all see
them: each path is one set, named by its file or folder name, unless its family groups some paths
into one set (``Benchmark.result_sets``: VOC's per-class files of one competition). Names are
made unique (``name``, ``name-2``, ...); ``file_stems`` gives the names figure files carry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def set_names(paths: Sequence[Path]) -> list[str]:
    """Each path's file or folder name, made unique (``name``, ``name-2``, ...)."""
    return _unique([Path(p).name or str(p) for p in paths])


def one_set_per_path(paths: Sequence[Path]) -> list[tuple[str, list[Path]]]:
    """``(name, [path])`` per path, in order: what most families do with ``--results``."""
    given = [Path(p) for p in paths]
    return list(zip(set_names(given), ([p] for p in given), strict=True))


def file_stems(names: Sequence[str]) -> list[str]:
    """Each set name without its file extension (``detA.json`` -> ``detA``), made unique
    (``detA``, ``detA-2``, ...): the set's part of a figure's file name."""
    return _unique([Path(n).stem or n for n in names])


def _unique(bases: Sequence[str]) -> list[str]:
    names: list[str] = []
    for base in bases:
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)
    return names
