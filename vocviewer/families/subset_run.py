"""``vocviewer subset``: which images the arguments choose, and the write (``subset_export``).

The choices combine (an image must pass each one given; none given: every image): ``--ids``
(image ids, or files listing one id a line), ``--tag`` (images with that tag on themselves or
on one of their objects or detections, from ``--session``), ``--class`` (images with an object
of one of the classes) and ``--image-set`` (the images of that set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.tags import Tags
from vocviewer.families.eval_sets import read_sets
from vocviewer.families.registry import open_dataset
from vocviewer.families.subset_export import write_subset
from vocviewer.formats.input import read_text
from vocviewer.formats.session import read_session

BoolArray = npt.NDArray[np.bool_]


def _listed_ids(given: Sequence[str]) -> list[tuple[str, str]]:
    """(id, where) for each id given, a file's ids (one a line, blanks and ``#`` lines skipped)
    in its place."""
    out: list[tuple[str, str]] = []
    for item in given:
        path = Path(item)
        if path.is_file():
            for n, line in enumerate(read_text(path).splitlines(), 1):
                text = line.strip()
                if text and not text.startswith("#"):
                    out.append((text, f"{path}:{n}"))
        else:
            out.append((item, "--ids"))
    return out


def with_ids(dataset: Dataset, given: Sequence[str]) -> BoolArray:
    """bool (I,): the images ``given`` names; ``FormatError`` naming an unknown id and where."""
    keep = np.zeros(len(dataset.images), dtype=bool)
    for image_id, where in _listed_ids(given):
        row = dataset.find_image(image_id)
        if row is None:
            raise FormatError(None, f"{where}: no image {image_id!r} in {dataset.name}")
        keep[row] = True
    return keep


def with_tag(dataset: Dataset, tags: Tags, tag: str) -> BoolArray:
    """bool (I,): the images with ``tag`` on themselves or on one of their boxes."""
    keep = np.zeros(len(dataset.images), dtype=bool)
    for entry in tags.entries.values():
        row = dataset.find_image(entry.target.image)
        if tag in entry.tags and row is not None:
            keep[row] = True
    return keep


def with_classes(dataset: Dataset, classes: Sequence[str]) -> BoolArray:
    """bool (I,): the images with an object of one of ``classes`` (difficult ones included)."""
    unknown = [c for c in classes if c not in dataset.classes]
    if unknown:
        raise FormatError(None, f"--class: no class {unknown[0]!r} in {dataset.name}")
    labels = [dataset.class_index(c) for c in classes]
    hit = np.isin(dataset.objects.label, labels)
    keep = np.zeros(len(dataset.images), dtype=bool)
    keep[dataset.objects.image_index[hit]] = True
    return keep


@dataclass(frozen=True)
class SubsetRequest:
    """``vocviewer subset`` in plain values: the dataset ``path`` (``images`` / ``devkit``: its
    folders), written as ``to`` into the folder ``out`` (``image_mode``: copy, hardlink or
    symlink the images; ``name``: the split's), with the result sets of ``results``; the images
    chosen by ``ids``, a ``tag`` of the ``session`` file, ``classes`` and ``image_set`` (each one
    given narrows the choice)."""

    path: Path
    to: str
    out: Path
    ids: tuple[str, ...] = ()
    tag: str | None = None
    session: Path | None = None
    classes: tuple[str, ...] = ()
    image_set: str | None = None
    results: tuple[Path, ...] = ()
    image_mode: str = "copy"
    name: str = "subset"
    images: Path | None = None
    devkit: Path | None = None


def chosen_images(dataset: Dataset, args: SubsetRequest) -> npt.NDArray[np.int64]:
    """The image rows ``args`` choose (module docstring)."""
    keep = np.ones(len(dataset.images), dtype=bool)
    if args.ids:
        keep &= with_ids(dataset, args.ids)
    if args.tag:
        if args.session is None:
            raise FormatError(None, "--tag needs --session: the session file holding the tags")
        session, _ = read_session(args.session)
        keep &= with_tag(dataset, session.tags, args.tag)
    if args.classes:
        keep &= with_classes(dataset, args.classes)
    if args.image_set:
        rows = dataset.image_sets.get(f"Main/{args.image_set}")
        if rows is None:
            sets = ", ".join(dataset.main_sets()) or "none"
            raise FormatError(None, f"--image-set: no set {args.image_set!r} (sets: {sets})")
        in_set = np.zeros(len(dataset.images), dtype=bool)
        in_set[rows] = True
        keep &= in_set
    return np.flatnonzero(keep).astype(np.int64)


def run_subset(args: SubsetRequest) -> list[str]:
    """``vocviewer subset``: the chosen images written as ``args`` say; the messages of the
    write."""
    dataset = open_dataset(args.path, images=args.images, devkit=args.devkit)
    rows = chosen_images(dataset, args)
    if not len(rows):
        raise FormatError(None, "the choice holds no image of the dataset: nothing written")
    sets = read_sets(dataset, list(args.results), args.image_set)
    msgs = write_subset(
        dataset, rows, args.to, args.out, sets, images=args.image_mode, name=args.name
    )
    return [f"{len(rows)} of {len(dataset.images)} images chosen", *msgs]
