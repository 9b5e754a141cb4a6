"""The tally family: ``<image> <class>`` per ground-truth object in a ``.tally`` file;
``<image> <class> <score>`` per detection in its result files. A detection is a true positive if
its image still has an unmatched object of its class (highest score first); AP is VOC's
all-points AP of ``evaluation.ap``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from tests.toy_family import FILES
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.ap import voc_ap_all_points, voc_precision_recall
from vocviewer.families.base import CERTAIN, AnalyzeRequest, EvalOutput, EvalRequest, ViewDefaults
from vocviewer.families.views import ViewSettings


def _rows(path: Path, width: int) -> list[list[str]]:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    for k, row in enumerate(rows, 1):
        if len(row) != width:
            raise FormatError(path, f"expected {width} fields", line=k)
    return rows


def tally_ap(objects: list[list[str]], detections: list[list[str]]) -> dict[str, float]:
    """AP per class (sorted by name)."""
    aps = {}
    for cls in sorted({c for _, c in objects}):
        left = Counter(image for image, c in objects if c == cls)
        npos = sum(left.values())
        tp, fp = [], []
        for image, _, _ in sorted(
            (d for d in detections if d[1] == cls), key=lambda d: -float(d[2])
        ):
            hit = left[image] > 0
            left[image] -= hit
            tp.append(int(hit))
            fp.append(int(not hit))
        precision, recall = voc_precision_recall(tp, fp, npos)
        aps[cls] = voc_ap_all_points(recall, precision)
    return aps


class TallyBenchmark(ViewDefaults):
    name, title, tasks, protocols = "tally", "Tally", ("det",), ("tally",)
    options: tuple[Any, ...] = ()
    analyze_tasks: tuple[str, ...] = ()
    priority, hint, files = 10, "a .tally file", FILES

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if path.suffix == ".tally" else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return path.suffix == ".tally"

    def read_dataset(self, path: Path, sources: Any, task: str | None = None) -> Any:
        raise FormatError(path, "tally files are not browsed")

    def reads_results_of(self, dataset: Any) -> bool:
        return False

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        objects = _rows(Path(request.path), 2)
        detections = [row for p in request.results for row in _rows(Path(p), 3)]
        aps = tally_ap(objects, detections)
        mean = sum(aps.values()) / len(aps)
        payload = {"protocol": "tally", "ap": aps, "summary": {"mAP": mean}}
        return EvalOutput(f"TALLY mAP {mean:.3f}\n", payload)

    def analyze(self, request: AnalyzeRequest) -> Any:
        raise NotImplementedError

    def view_settings(self, dataset: Any) -> ViewSettings:
        return ViewSettings("Tally")

    def evaluate_views(self, dataset: Any, results: Any, choice: Any, diagnose: bool = True) -> Any:
        raise NotImplementedError
