"""PASCAL VOCdevkit reader (and results reader/writer): a year folder → ``Dataset``.

A year folder (``VOC2007``, ``VOC2012``, or any folder holding ``Annotations/`` and
``ImageSets/``) is read whole: every ``Annotations/*.xml`` (``voc_annotations``) and every
``ImageSets/<task>/*.txt`` (``voc_imagesets``). Boxes keep VOC's convention (1-based inclusive
pixels, numbers as written). Results files are handled by ``voc_results`` and re-exported here.
Problems that leave the rest usable are collected in ``Dataset.problems`` (an annotation that is a
link loop, a dangling link or a FIFO is skipped with one); a missing folder is fatal
(``FormatError``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from vocviewer.core.dataset import (
    VOC_ACTIONS,
    VOC_CLASSES,
    Dataset,
    ImageTable,
    ObjectTable,
    PartTable,
)
from vocviewer.core.errors import FormatError
from vocviewer.families.voc.annotations import (
    AnnotationColumns,
    read_annotations,
    unknown_image,
)
from vocviewer.families.voc.image_sets import assemble, scan_image_sets
from vocviewer.families.voc.results_reader import read_voc_results, write_voc_results
from vocviewer.formats.input import check_regular
from vocviewer.formats.text_fields import listed_names, make_parser, parse_year

__all__ = [
    "find_year_folders",
    "looks_like_voc",
    "read_voc",
    "read_voc_results",
    "write_voc_results",
]

_PARTS_OF_YEAR = ("Annotations", "ImageSets")


def _is_year_folder(path: Path) -> bool:
    return all((path / name).is_dir() for name in _PARTS_OF_YEAR)


def find_year_folders(path: str | Path) -> list[Path]:
    """Year folders under a VOCdevkit root (``VOC2007/``, ...), sorted by name.

    Looks at ``path``'s subfolders, then at ``path/VOCdevkit/``'s (an unpacked VOC tar).
    """
    root = Path(path)
    for base in (root, root / "VOCdevkit"):
        if base.is_dir():
            found = sorted(p for p in base.iterdir() if p.is_dir() and _is_year_folder(p))
            if found:
                return found
    return []


def looks_like_voc(path: str | Path) -> bool:
    """Whether ``path`` is a VOC year folder, a folder inside one, or a VOCdevkit root."""
    p = Path(path)
    if not p.is_dir():
        return False
    if any((p / name).is_dir() for name in _PARTS_OF_YEAR):
        return True
    if p.name in (*_PARTS_OF_YEAR, "JPEGImages") and _is_year_folder(p.parent):
        return True
    return bool(find_year_folders(p))


def _resolve(path: Path, year: int | None) -> tuple[Path, int | None]:
    """The year folder to read and its year."""
    if not path.exists():
        if path.is_symlink():
            check_regular(path)  # raises: a link loop or a dangling link
        raise FormatError(path, "does not exist")
    if not path.is_dir():
        raise FormatError(path, "is a file; expected a VOCdevkit folder or a year folder (VOC2012)")
    if path.name in (*_PARTS_OF_YEAR, "JPEGImages") and _is_year_folder(path.parent):
        path = path.parent
    if any((path / name).is_dir() for name in _PARTS_OF_YEAR):
        missing = [name for name in _PARTS_OF_YEAR if not (path / name).is_dir()]
        if missing:
            raise FormatError(path, f"not a VOC year folder: it has no {missing[0]}/ folder")
        named = parse_year(path.name)
        if year is not None and named is not None and named != year:
            raise FormatError(path, f"is a VOC{named} folder, but year {year} was asked for")
        return path, named if named is not None else year
    folders = find_year_folders(path)
    if not folders:
        raise FormatError(
            path,
            "not a VOCdevkit: no Annotations/ and ImageSets/ here "
            "or in a subfolder such as VOC2012/",
        )
    names = ", ".join(p.name for p in folders)
    if year is not None:
        folders = [p for p in folders if parse_year(p.name) == year]
        if len(folders) != 1:
            what = "no" if not folders else "several"
            raise FormatError(path, f"{what} year folders for {year}; found: {names}")
    elif len(folders) > 1:
        raise FormatError(path, f"contains several years ({names}); choose one with year=")
    return folders[0], parse_year(folders[0].name) if year is None else year


def read_voc(path: str | Path, *, year: int | None = None) -> Dataset:
    """Read a PASCAL VOC dataset.

    Parameters
    ----------
    path
        A VOCdevkit root (holding ``VOC2007/``, ``VOC2012/``...), a year folder, or any folder
        with ``Annotations/`` and ``ImageSets/``.
    year
        Which year to read from a root holding several; for a folder whose name has no year,
        the year to assume (it chooses VOC's AP rule). Otherwise parsed from the folder name.

    Returns
    -------
    Dataset
        ``classes`` = ``VOC_CLASSES``, ``actions`` = ``VOC_ACTIONS``, box convention ``"voc"``
        (1-based inclusive pixels, as written). Images are every annotation file plus every id
        listed in an image set, sorted by id; objects are in XML order with
        ``order_in_image`` = XML position (an object skipped for a problem leaves a gap, so the
        devkit's 1-based object index stays ``order_in_image + 1``).

    Raises
    ------
    FormatError
        ``path`` does not exist, has no ``Annotations/`` or ``ImageSets/``, or holds several
        years and ``year`` does not pick one.
    """
    folder, found_year = _resolve(Path(path), year)
    set_problems: list[FormatError] = []
    xml_of = {  # image id -> path (str: a Path per file is made only where one is needed)
        name[:-4]: path
        for name, path in listed_names(folder / "Annotations", _is_xml_name, set_problems)
    }
    list_files = scan_image_sets(folder / "ImageSets", set_problems)
    ids = sorted(set(xml_of).union(*(f.ids for f in list_files)))
    cols = AnnotationColumns()
    parser = make_parser()
    files = [(row, xml_of[i]) for row, i in enumerate(ids) if i in xml_of]
    read = iter(read_annotations(files, cols, parser))
    images = [next(read) if i in xml_of else unknown_image() for i in ids]
    objects = _object_table(cols)
    object_row = {
        (image, order): row
        for row, (image, order) in enumerate(
            zip(objects.image_index.tolist(), objects.order_in_image.tolist(), strict=True)
        )
    }
    loaded = np.bincount(objects.image_index, minlength=len(ids)).tolist()
    row_of = {image_id: row for row, image_id in enumerate(ids)}
    tables = assemble(list_files, row_of, set(xml_of), object_row, loaded, set_problems)
    jpeg = folder / "JPEGImages"
    return Dataset(
        name=folder.name,
        root=folder,
        year=found_year,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=ImageTable(
            id=np.array(ids, dtype=np.str_),
            path=tuple(
                jpeg / (_file_name(info.filename) or f"{i}.jpg")
                for i, info in zip(ids, images, strict=True)
            ),
            width=np.array([info.width for info in images], dtype=np.int32),
            height=np.array([info.height for info in images], dtype=np.int32),
            segmented=np.array([info.segmented for info in images], dtype=np.bool_),
            fields=tuple(info.fields for info in images),
        ),
        objects=objects,
        parts=_part_table(cols),
        image_sets=tables.image_sets,
        class_labels=tables.class_labels,
        person_sets=tables.person_sets,
        actions=VOC_ACTIONS,
        problems=(*cols.problems, *set_problems),
        roots=(  # the year folder, the folder opened, the devkit root holding the year folder
            folder,
            Path(path),
            *(d for d in [folder.parent] if d.name == "VOCdevkit" or (d / "VOCcode").is_dir()),
        ),
    )


def _is_xml_name(name: str) -> bool:
    """``*.xml`` except hidden files (macOS ``._*`` resource forks, editor backups)."""
    return name.lower().endswith(".xml") and not name.startswith(".")


def _file_name(name: str | None) -> str:
    """Last component of an annotation's ``<filename>`` (``/`` or ``\\`` separated)."""
    return re.split(r"[\\/]", name)[-1] if name else ""


def _object_table(cols: AnnotationColumns) -> ObjectTable:
    n = len(cols.objects)
    # every column fits a float64 exactly (ints < 2**53, bools, the boxes as parsed)
    table = np.array(cols.objects, dtype=np.float64).reshape(n, 11)
    actions = np.zeros((n, len(VOC_ACTIONS)), dtype=np.bool_)
    if cols.action_flags:
        rows, columns = np.array(cols.action_flags, dtype=np.int64).T
        actions[rows, columns] = True
    return ObjectTable(
        image_index=table[:, 0].astype(np.int64),
        label=table[:, 1].astype(np.int64),
        box=table[:, 2:6],
        difficult=table[:, 6].astype(np.bool_),
        truncated=table[:, 7].astype(np.bool_),
        occluded=table[:, 8].astype(np.bool_),
        pose=table[:, 9].astype(np.int8),
        order_in_image=table[:, 10].astype(np.int64),
        actions=actions,
    )


def _part_table(cols: AnnotationColumns) -> PartTable:
    table = np.array(cols.parts, dtype=np.float64).reshape(-1, 6)
    return PartTable(table[:, 0].astype(np.int64), table[:, 1].astype(np.int8), table[:, 2:6])
