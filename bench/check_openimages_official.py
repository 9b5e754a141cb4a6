"""Check: vocviewer's Open Images evaluation against the official challenge tools, run whole.

Given the ``research`` folder of a tensorflow/models checkout (or any copy of its
``object_detection`` package, e.g. the ``tf-models-research-object-detection`` sdist) and a
Python with numpy, pandas, six, absl-py and protobuf, this generates Open Images folders with
every trap (``tests/parity/openimages_data.py``), expands their boxes and labels with the
official ``dataset_tools/oid_hierarchical_labels_expansion.py``, runs the official
``metrics/oid_challenge_evaluation.py`` on them (a label map written from the class
descriptions), and compares each class's AP and the mAP with ``vocviewer eval`` on the raw
folder (rows and ``PredictionString`` layouts). Nothing of the official code is reimplemented:
the tools run as their ``__main__``; only ``tensorflow`` is an empty module (the evaluation path
never touches it), ``np.float`` is restored as ``float`` for tools older than numpy 1.24, and
protobuf runs in pure Python (the sdist's ``_pb2`` files are old). Use the same numpy as
vocviewer's: ties are ranked by numpy's unstable sort in both.

Usage: ``python bench/check_openimages_official.py --tf-models DIR [--python PY] [--seeds 5]
[--images 60]``; prints the largest difference and exits 1 above 1e-9.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from vocviewer.families.openimages.columns import OpenImagesGroundTruth

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.parity.openimages_data import (  # noqa: E402
    CLASSES,
    predictions,
    write_openimages,
    write_predictions,
)
from vocviewer.families.openimages.benchmark import PREFIX  # noqa: E402
from vocviewer.families.openimages.evaluate import evaluate_openimages  # noqa: E402
from vocviewer.families.openimages.reader import read_openimages  # noqa: E402
from vocviewer.families.openimages.results_reader import read_openimages_results  # noqa: E402

#: runs an official tool as ``__main__`` with ``tensorflow`` an empty module and numpy's removed
#: ``np.float`` alias restored (argv: research folder, module, the tool's own arguments)
RUNNER = """
import runpy, sys, types
import numpy
if "float" not in numpy.__dict__:  # removed in numpy 1.24; older releases of the tools use it
    numpy.float = float
sys.path.insert(0, sys.argv[1])
for name in ("tensorflow", "tensorflow.compat", "tensorflow.compat.v1"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["tensorflow"].compat = sys.modules["tensorflow.compat"]
sys.modules["tensorflow.compat"].v1 = sys.modules["tensorflow.compat.v1"]
module = sys.argv[2]
sys.argv = [module, *sys.argv[3:]]
try:
    runpy.run_module(module, run_name="__main__")
except SystemExit as e:
    if e.code not in (None, 0):
        raise
"""


def research_folder(path: Path) -> Path:
    """The folder holding ``object_detection`` (``DIR/research`` of a checkout, or ``DIR``)."""
    for p in (path / "research", path):
        if (p / "object_detection" / "utils" / "per_image_evaluation.py").is_file():
            return p
    raise SystemExit(f"{path}: no object_detection package (give tensorflow/models or research)")


def run_tool(python: str, research: Path, module: str, *args: str) -> None:
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
    cmd = [python, "-c", RUNNER, str(research), module, *args]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{module} failed:\n{done.stderr[-3000:]}")


def official_metrics(python: str, research: Path, folder: Path, preds: Path) -> dict[str, float]:
    """The official tools' metrics on ``folder`` and ``preds``: name → value."""
    work = Path(tempfile.mkdtemp(prefix="oi-official-"))
    expand = "object_detection.dataset_tools.oid_hierarchical_labels_expansion"
    hierarchy = next(folder.glob("*hierarchy*.json"))
    for kind, src in (
        (1, next(folder.glob("*-annotations-bbox.csv"))),
        (2, next(folder.glob("*-annotations-human-imagelabels-boxable.csv"))),
    ):
        run_tool(
            python,
            research,
            expand,
            f"--json_hierarchy_file={hierarchy}",
            f"--input_annotations={src}",
            f"--output_annotations={work / f'expanded-{kind}.csv'}",
            f"--annotation_type={kind}",
        )
    items = (
        f'item {{ name: "{mid}" id: {i + 1} display_name: "{name}" }}\n'
        for i, (mid, name, _) in enumerate(CLASSES)
    )
    (work / "labelmap.pbtxt").write_text("".join(items))
    run_tool(
        python,
        research,
        "object_detection.metrics.oid_challenge_evaluation",
        f"--input_annotations_boxes={work / 'expanded-1.csv'}",
        f"--input_annotations_labels={work / 'expanded-2.csv'}",
        f"--input_predictions={preds}",
        f"--input_class_labelmap={work / 'labelmap.pbtxt'}",
        f"--output_metrics={work / 'metrics.csv'}",
    )
    with (work / "metrics.csv").open() as f:
        return {row[0]: float(row[1]) for row in csv.reader(f)}


def ours(folder: Path, preds: Path) -> dict[str, float]:
    """vocviewer's numbers under the official metric names."""
    ds = read_openimages(folder)
    res = evaluate_openimages(ds, read_openimages_results(ds, [preds]))
    out = {f"{PREFIX}Precision/mAP@0.5IOU": res.mean_ap}
    mids = ds.data(OpenImagesGroundTruth).mids
    out.update(
        {
            f"{PREFIX}PerformanceByCategory/AP@0.5IOU/{m}": float(a)
            for m, a in zip(mids, res.ap, strict=True)
        }
    )
    return out


def difference(a: dict[str, float], b: dict[str, float]) -> float:
    """Largest absolute difference (a NaN equals only a NaN; a missing name is infinite)."""
    worst = 0.0
    for name in a.keys() | b.keys():
        x, y = a.get(name, math.inf), b.get(name, -math.inf)
        if math.isnan(x) and math.isnan(y):
            continue
        worst = max(worst, abs(x - y) if not (math.isnan(x) or math.isnan(y)) else math.inf)
    return worst


def check(python: str, research: Path, seed: int, images: int, tmp: Path) -> tuple[float, float]:
    """(max difference official vs ours on rows, rows vs ``PredictionString``) for one seed."""
    folder = tmp / f"seed{seed}"
    boxes = write_openimages(folder / "gt", seed, images)
    rows = predictions(boxes, seed + 100)
    flat = write_predictions(folder / "pred.csv", rows)
    packed = write_predictions(folder / "pred_challenge.csv", rows, challenge=True)
    mine = ours(folder / "gt", flat)
    return (
        difference(official_metrics(python, research, folder / "gt", flat), mine),
        difference(ours(folder / "gt", packed), mine),
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf-models", required=True, type=Path)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--images", type=int, default=60)
    args = ap.parse_args()
    research = research_folder(args.tf_models)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            official, layouts = check(args.python, research, seed, args.images, Path(tmp))
            print(
                f"seed {seed}: |official - ours| = {official:.3g}, rows vs PredictionString {layouts:.3g}"
            )
            worst = max(worst, official, layouts)
    print(f"max difference over {args.seeds} seeds: {worst:.3g}")
    return 0 if worst <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
