"""Where a YOLO (Ultralytics) dataset's images and labels are: a dataset YAML or a bare folder.

A dataset YAML has ``path`` (the root; relative to the YAML's folder), ``train`` / ``val`` /
``test`` (each a folder of images, searched recursively, or a ``.txt`` list of image paths, or
a list of either), ``names`` (a list, or a mapping ``index: name``) and, for pose, ``kpt_shape``
(``[K, 2]`` or ``[K, 3]``). A bare folder holds ``images/`` and ``labels/`` (optionally with one
sub-folder per split) and, for names, the one dataset YAML in it (``names``, ``kpt_shape``; its
images are still the folder's) or else a ``classes.txt`` (one name a line) in itself or in
``labels/``. An image's label file is Ultralytics' ``img2label_paths``: the last ``/images/`` of
its path replaced by ``/labels/``, the suffix by ``.txt``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vocviewer.core.errors import FormatError
from vocviewer.families.yolo.declared import is_yaml, looks_like_yolo

#: image suffixes Ultralytics reads (``IMG_FORMATS``), lower case
IMAGE_SUFFIXES = frozenset(
    (".bmp", ".dng", ".jpeg", ".jpg", ".mpo", ".png", ".tif", ".tiff", ".webp", ".pfm", ".heic")
)
SPLITS = ("val", "test", "train")


@dataclass(frozen=True)
class ImageEntry:
    """One image of the split: its path, and where it was named (a list file and its 1-based
    line; ``None`` for a folder's image)."""

    path: Path
    listed_in: Path | None = None
    line: int | None = None


@dataclass(frozen=True)
class Layout:
    """A YOLO split: ``source`` (the YAML or folder opened), ``split``, ``images`` in order,
    ``names`` (class index -> name; ``None``: no names given), ``kpt_shape`` (``(K, D)`` or
    ``None``), ``missing`` (images a list file names that are not on disk)."""

    source: Path
    split: str
    images: tuple[ImageEntry, ...]
    names: tuple[str, ...] | None
    kpt_shape: tuple[int, int] | None = None
    missing: tuple[ImageEntry, ...] = field(default=())


def label_path(image: Path) -> Path:
    """Ultralytics' ``img2label_paths``: ``.../images/a/b.jpg`` → ``.../labels/a/b.txt``."""
    sa, sb = f"{os.sep}images{os.sep}", f"{os.sep}labels{os.sep}"
    s = str(image)
    if sa in s:
        s = sb.join(s.rsplit(sa, 1))
    return Path(s.rsplit(".", 1)[0] + ".txt")


def _yaml(path: Path) -> dict[str, Any]:
    import yaml  # the format's own syntax (Ultralytics writes these with PyYAML)

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where built
        data = yaml.load(path.read_text(encoding="utf-8", errors="replace"), Loader=loader)
    except yaml.MarkedYAMLError as e:
        line = e.problem_mark.line + 1 if e.problem_mark is not None else None
        raise FormatError(path, f"not valid YAML: {e.problem}", line=line) from None
    except (yaml.YAMLError, OSError) as e:
        raise FormatError(path, f"cannot read the dataset YAML: {e}") from None
    if not isinstance(data, dict):
        raise FormatError(path, "a dataset YAML is a mapping with 'names' and 'val' / 'train'")
    return data


def _names(path: Path, raw: Any) -> tuple[str, ...]:
    """``names`` as a list or a mapping ``index: name`` (indices 0 .. n-1, every one present)."""
    if isinstance(raw, list):
        return tuple(str(n) for n in raw)
    if isinstance(raw, dict):
        try:
            by_index = {int(k): str(v) for k, v in raw.items()}
        except (TypeError, ValueError):
            raise FormatError(path, "'names' keys must be class indices 0, 1, ...") from None
        if sorted(by_index) != list(range(len(by_index))):
            raise FormatError(
                path, f"'names' must number the classes 0 .. {len(by_index) - 1}, without gaps"
            )
        return tuple(by_index[i] for i in range(len(by_index)))
    raise FormatError(path, "'names' must be a list of class names or a mapping index: name")


def _kpt_shape(path: Path, raw: Any) -> tuple[int, int] | None:
    if raw is None:
        return None
    if (
        isinstance(raw, list)
        and len(raw) == 2
        and all(isinstance(v, int) for v in raw)
        and raw[0] > 0
        and raw[1] in (2, 3)
    ):
        return int(raw[0]), int(raw[1])
    raise FormatError(path, f"'kpt_shape' must be [keypoints, 2 or 3], got {raw!r}")


def _folder_images(folder: Path) -> list[ImageEntry]:
    found = [p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()]
    return [ImageEntry(p) for p in sorted(found)]


def _list_images(listing: Path, root: Path) -> tuple[list[ImageEntry], list[ImageEntry]]:
    """The images a ``.txt`` list names (``./x`` relative to the list's folder, other relative
    paths to the dataset root), and those not on disk."""
    try:
        text = listing.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise FormatError(listing, f"cannot read the image list: {e.strerror}") from None
    found: list[ImageEntry] = []
    missing: list[ImageEntry] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        p = Path(line)
        if not p.is_absolute():
            p = (listing.parent if line.startswith("./") else root) / p
        entry = ImageEntry(p, listing, n)
        (found if p.is_file() else missing).append(entry)
    return found, missing


def _split_images(
    path: Path, root: Path, value: Any, key: str
) -> tuple[list[ImageEntry], list[ImageEntry]]:
    entries = value if isinstance(value, list) else [value]
    found: list[ImageEntry] = []
    missing: list[ImageEntry] = []
    for v in entries:
        if not isinstance(v, str):
            raise FormatError(path, f"'{key}' must be a folder or a .txt list, got {v!r}")
        p = Path(v) if Path(v).is_absolute() else root / v
        if p.is_dir():
            found += _folder_images(p)
        elif p.is_file() and p.suffix.lower() == ".txt":
            f, m = _list_images(p, root)
            found += f
            missing += m
        else:
            raise FormatError(path, f"'{key}': {p} is neither an image folder nor a .txt list")
    return found, missing


def _root(path: Path, data: dict[str, Any]) -> Path:
    raw = data.get("path")
    if raw is None or raw == "":
        return path.parent
    if not isinstance(raw, str):
        raise FormatError(path, f"'path' must be a folder, got {raw!r}")
    p = Path(raw).expanduser()
    return p if p.is_absolute() else (path.parent / p)


def read_layout(path: Path, split: str | None = None) -> Layout:
    """The images and names of ``split`` (default: the first of val, test, train present) of
    the dataset YAML or bare folder ``path``. ``FormatError`` naming the file if it is not one."""
    if path.is_dir():
        return _bare_folder(path, split)
    data = _yaml(path)
    if "names" not in data:
        raise FormatError(path, "a YOLO dataset YAML needs 'names' (the class names)")
    names = _names(path, data["names"])
    kpt = _kpt_shape(path, data.get("kpt_shape"))
    present = [s for s in SPLITS if data.get(s)]
    if split is None:
        if not present:
            raise FormatError(path, "no 'val', 'test' or 'train' split is given")
        split = present[0]
    elif not data.get(split):
        raise FormatError(path, f"no '{split}' split (it has {', '.join(present) or 'none'})")
    found, missing = _split_images(path, _root(path, data), data[split], split)
    return Layout(path, split, tuple(found), names, kpt, tuple(missing))


def _bare_folder(path: Path, split: str | None) -> Layout:
    images = path / "images"
    subs = [s for s in SPLITS if (images / s).is_dir()]
    if split is not None:
        if not (images / split).is_dir():
            raise FormatError(images, f"no '{split}' sub-folder")
        folder = images / split
    else:
        folder, split = (images / subs[0], subs[0]) if subs else (images, "images")
    names, kpt = None, None
    yamls = sorted(p for p in path.iterdir() if is_yaml(p) and looks_like_yolo(p))
    if len(yamls) == 1:  # the folder's own dataset YAML (Ultralytics' data.yaml): its names
        data = _yaml(yamls[0])
        names = _names(yamls[0], data["names"]) if "names" in data else None
        kpt = _kpt_shape(yamls[0], data.get("kpt_shape"))
    for candidate in (path / "classes.txt", path / "labels" / "classes.txt"):
        if names is None and candidate.is_file():
            lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
            names = tuple(n.strip() for n in lines if n.strip())
    return Layout(path, split, tuple(_folder_images(folder)), names, kpt)
