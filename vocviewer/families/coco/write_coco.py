"""``vocviewer convert ann.json --to coco OUT``: a COCO annotation file (and COCO results) laid out
as pycocotools' folder: ``OUT/annotations/instances_<split>.json`` (the document as read, every
field kept), the images expected in ``OUT/<split>/`` (where ``read_coco`` looks), each results
file as ``OUT/results/<stem>.json``. What ``vocviewer subset`` writes a COCO selection through.
"""

from __future__ import annotations

import json
from pathlib import Path

from vocviewer.core.errors import FormatError
from vocviewer.formats import output
from vocviewer.formats.json_input import load_json


def write_coco(
    ann: Path, out: Path, results: list[Path], split: str | None, images: Path | None = None
) -> list[str]:
    """Write ``ann`` and ``results`` into the folder ``out`` (module docstring), never inside
    ``ann``'s or ``images``' folders; ``split`` defaults to the file name's last ``_`` part."""
    doc = load_json(ann)
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list):
        raise FormatError(ann, "not a COCO annotation file: expected an object with 'images'")
    protected = [ann.parent, *([images] if images is not None else [])]
    loaded = []
    for r in results:
        entries = load_json(r)
        if not isinstance(entries, list):
            raise FormatError(r, "results must be a JSON array of objects")
        loaded.append((r, entries))
    root = output.guard_folder(out, protected)
    name = split or ann.stem.rsplit("_", 1)[-1]
    target = output.child_path(root / "annotations", f"instances_{name}", ".json")
    output.write_text(target, json.dumps(doc), protected)
    anns = doc.get("annotations") or []
    msgs = [f"wrote {target}: {len(doc['images'])} images, {len(anns)} objects"]
    for r, entries in loaded:
        written = output.write_text(
            output.child_path(root / "results", r.stem, ".json"), json.dumps(entries), protected
        )
        msgs.append(f"wrote {written}: {len(entries)} results")
    return msgs
