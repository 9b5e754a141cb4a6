"""LVIS's declarations

What the command line and the registry know of LVIS before its readers and evaluators are
imported (``registry.families``): its name, tasks, protocols, options, file hints and a cheap
``sniff``. ``benchmark.LvisBenchmark`` inherits them (one source of truth)."""

from __future__ import annotations

import re
from pathlib import Path

from vocviewer.families.base import CERTAIN, CliOption
from vocviewer.families.coco.declared import DILATION_OPTION
from vocviewer.families.lvis import FILES

#: bytes read at each end of a file by ``looks_like_lvis``
SNIFF_WINDOW = 1 << 16
_FEDERATED_KEY = re.compile(
    rb'"(?:neg_category_ids|not_exhaustive_category_ids)"\s*:\s*\[|"frequency"\s*:\s*"[rcf]"'
)


def looks_like_lvis(path: Path) -> bool:
    """Whether ``path`` is a JSON object showing an LVIS key (an image's ``neg_category_ids`` /
    ``not_exhaustive_category_ids``, a category's ``frequency``) in its first or last 64 KB.
    LVIS v1 files hold ``info`` and the annotations first and the categories last; a file
    starting with its images shows them at once."""
    if not (path.is_file() and path.suffix.lower() == ".json"):
        return False
    try:
        with path.open("rb") as f:
            head = f.read(SNIFF_WINDOW)
            size = f.seek(0, 2)
            tail = b""
            if size > SNIFF_WINDOW:
                f.seek(max(SNIFF_WINDOW, size - SNIFF_WINDOW))
                tail = f.read(SNIFF_WINDOW)
    except OSError:
        return False
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return False
    return bool(_FEDERATED_KEY.search(head) or _FEDERATED_KEY.search(tail))


class LvisDeclarations:
    """LVIS on the command line."""

    name = "lvis"
    title = "LVIS"
    tasks = ("bbox", "segm", "boundary")
    protocols = ("lvis",)
    options = (CliOption("--images", "COCO / LVIS image folder", source=True), DILATION_OPTION)
    analyze_tasks: tuple[str, ...] = ("bbox", "segm")
    priority = 15  # above COCO's: an LVIS file is a COCO-shaped JSON too
    hint = "an LVIS v1 annotation .json"
    files = FILES
    #: ``vocviewer convert`` pairs: an LVIS file laid out as COCO's folder (``coco.write_coco``)
    conversions = (("lvis", "lvis"),)

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if looks_like_lvis(path) else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return looks_like_lvis(path)


DECLARED = LvisDeclarations()
