"""Where the embedded demo may be written (``demo.write_demo``): never mixed with other data.

The demo is built in ``ROOT/.VOCdevkit-PID-*`` and moved to ``ROOT/VOCdevkit``, whose stamp file
``STAMP`` marks it as vocviewer's own (so a later run may replace it).
"""

from __future__ import annotations

import errno
import json
import re
import shutil
from pathlib import Path
from typing import Any

from vocviewer.formats import output

STAMP = ".vocviewer-demo.json"
TEMP = re.compile(r"^\.VOCdevkit-(\d+)-")  # a build folder of the writer with that PID


def read_stamp(devkit: Path) -> Any:
    """The stamp of a demo written in ``devkit`` (seed, size, version), or ``None``."""
    try:
        return json.loads((devkit / STAMP).read_text())
    except (OSError, ValueError):
        return None


def check_root(root: Path) -> None:
    """Refuse (``FileExistsError`` naming ``root``) a folder inside a VOC year folder or a
    ``VOCdevkit``, or one that exists, is not empty and holds no earlier demo; then remove the
    build folders of demo writers that were killed (their PID no longer runs)."""
    for d in (root, *root.parents):
        if d.name == "VOCdevkit" or all((d / n).is_dir() for n in ("Annotations", "ImageSets")):
            why = f"is inside the dataset folder {d}; choose another folder"
            raise FileExistsError(errno.EEXIST, why, str(root))
    entries = list(root.iterdir()) if root.is_dir() else []
    if read_stamp(root / "VOCdevkit") is None and any(not TEMP.match(e.name) for e in entries):
        why = "exists, is not empty and holds no vocviewer demo; choose an empty or new folder"
        raise FileExistsError(errno.EEXIST, why, str(root))
    for e in entries:
        if (m := TEMP.match(e.name)) and not output.pid_alive(int(m.group(1))):
            shutil.rmtree(e, ignore_errors=True)
