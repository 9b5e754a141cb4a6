"""``vocviewer analyze`` on ILSVRC DET (``--task det --devkit DIR``): every ``--results`` file is
one submission.

Per set: the devkit's per-label AP (``VOCap``, 0-1) and mean, TIDE on the devkit's own verdicts
(``tide_ilsvrc``: overlaps relative to each object's own threshold), the bootstrap of the mean AP
(over the labels with a defined AP) and per-label AP (``bootstrap_ilsvrc``), normalised AP beside
AP and the size / aspect-ratio characteristics of the objects outside blacklisted pairs (``AP_N``
with ``VOCap``; ``N`` defaults to the mean positives over the labels that have any). The
classification tasks (CLS-LOC) have no ranked boxes per class and are not analysed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.bootstrap import RECALL_GRID, bootstrap, progress_chunk
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.characteristics import (
    ASPECT_BINS,
    SIZE_BINS,
    Characteristic,
    ClassRanking,
    all_characteristics,
    aspect_bins,
    characteristics_json,
    size_bins,
)
from vocviewer.evaluation.render.analyze_characteristics import with_characteristics
from vocviewer.evaluation.render.analyze_report import AnalysedSet, AnalyzeOutput, finish, set_names
from vocviewer.evaluation.tide import TideResult
from vocviewer.families.base import AnalyzeRequest, opened, problems_error
from vocviewer.families.evidence import Evidence, evaluated_once
from vocviewer.families.ilsvrc.bootstrap import ilsvrc_det_evidence
from vocviewer.families.ilsvrc.columns import UnlistedImages
from vocviewer.families.ilsvrc.evaluate import IlsvrcDetResult, evaluate_ilsvrc_det
from vocviewer.families.ilsvrc.tide import ilsvrc_tide
from vocviewer.families.view_analyser import ViewAnalyser

ILSVRC_MAP = "ILSVRC DET mean AP over labels with a defined AP (VOCap, 0-1)"


def analyze_ilsvrc(request: AnalyzeRequest) -> AnalyzeOutput:
    """ILSVRC DET analysis of every ``request.results`` submission (``request.option("devkit")`` needed)."""
    from vocviewer.evaluation.bootstrap import bootstrap
    from vocviewer.families.ilsvrc import view as ilsvrc_view
    from vocviewer.families.ilsvrc.bootstrap import ilsvrc_det_evidence
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results
    from vocviewer.families.ilsvrc.tide import ilsvrc_tide

    if request.task not in (None, "det"):
        raise FormatError(
            request.path, f"analyze: ILSVRC is analysed for --task det, not {request.task}"
        )
    if request.option("devkit") is None:
        raise FormatError(request.path, "ILSVRC needs --devkit DIR (the devkit root holding data/)")
    dataset = opened(request, read_ilsvrc_det(request.path, request.option("devkit")))
    warnings = [str(p) for p in dataset.problems]
    sets: list[AnalysedSet] = []
    evidence = []
    per_set: list[tuple[str, dict[str, Characteristic]]] = []
    official = True
    for name, path in zip(set_names(request.results), request.results, strict=True):
        results = read_ilsvrc_det_results(dataset, path)
        if results.problems and not request.keep_going:
            raise problems_error(results.problems)
        warnings += [f"{name}: {p}" for p in (*results.problems, *results.warnings)]
        evaluated = evaluated_once(ilsvrc_view.evaluate_ilsvrc_views, dataset, results)
        ev = evaluated.evidence.one_raw()
        assert isinstance(ev, IlsvrcDetResult)  # every class's view holds the toolkit's one record
        unlisted = UnlistedImages.of(results)
        if unlisted:
            warnings.append(
                f"{name}: {sum(unlisted.values())} prediction(s) on image ids not in the eval "
                "list were dropped: NOT OFFICIAL"
            )
        official = official and not ev.notes and not unlisted
        tide = ilsvrc_tide(dataset, results, ev)
        chars, n_pos, d_pos = ilsvrc_characteristics(dataset, results, ev, request.n_pos)
        overall = chars.pop("overall")
        entry: dict[str, Any] = {
            "mAP": nan_to_null(ev.mean_ap_defined),
            "mAP_official": nan_to_null(ev.mean_ap),
            "per_class": {
                n: {
                    "ap": nan_to_null(float(ev.ap[k])),
                    "ap_n": nan_to_null(float(overall.ap_n[k, 0])),
                    "npos": int(ev.npos[k]),
                }
                for k, n in enumerate(ev.names)
            },
            "normalised_ap": {
                "n_pos": n_pos,
                "n_pos_default": d_pos,
                "mean": nan_to_null(overall.overall),
                "columns": {"AP_N": "ap_n"},  # ILSVRC's per-object IoU thresholds
            },
            "tide": tide.to_json(),
            "characteristics": characteristics_json(chars, n_pos, d_pos),
        }
        per_set.append((name, chars))
        evidence.append(ilsvrc_det_evidence(dataset, results, ev, name))
        sets.append(AnalysedSet(name, ev.mean_ap_defined, entry, tide, evaluated))
    boot = bootstrap(
        evidence,
        request.bootstrap,
        request.seed,
        recall_grid=RECALL_GRID if request.figures else None,
        chunk=progress_chunk(evidence, request.bootstrap),
        progress=request.progress,
    )
    header = (
        f"ILSVRC DET, {len(dataset.images)} images; mAP = mean AP over labels with a defined AP "
        "(VOCap, 0-1); TIDE with each object's own threshold"
    )
    out = finish(
        request, "ilsvrc", "det", None, header, sets, boot, ILSVRC_MAP, warnings, official=official
    )
    return with_characteristics(out, per_set, request.figures)


def ilsvrc_characteristics(
    dataset: Dataset, results: ResultSet, ev: IlsvrcDetResult, n_pos: float | None
) -> tuple[dict[str, Characteristic], float, float]:
    """(characteristics with an ``"overall"`` one-bin entry, ``N`` used, ``N`` default)."""
    from vocviewer.families.ilsvrc.bootstrap import ilsvrc_global_rank
    from vocviewer.families.ilsvrc.tide import ilsvrc_positives

    obj, det = dataset.objects, results.detections
    counted = ilsvrc_positives(dataset) & (obj.label < len(ev.names))
    have = ev.npos[ev.npos > 0]
    d_pos = float(have.mean()) if len(have) else float("nan")
    n = d_pos if n_pos is None else float(n_pos)
    rank = ilsvrc_global_rank(dataset, results)
    rankings = []
    for k, label_name in enumerate(ev.names):
        r = rank[det.label[rank] == k]
        v = ev.verdict[r]
        rankings.append(
            ClassRanking(label_name, k, v == 1, v == 0, np.where(v == 1, ev.matched_gt[r], -1))
        )
    specs = {
        "overall": (("all",), np.where(counted, 0, -1)),
        "size": (SIZE_BINS, size_bins(obj.box, obj.label, counted)),
        "aspect": (ASPECT_BINS, aspect_bins(obj.box, obj.label, counted)),
    }
    return all_characteristics(specs, rankings, obj.label, counted, n), n, d_pos


# --- the window's Analysis tab (``view_analysis``) --------------------------------------------
class IlsvrcViewAnalyser(ViewAnalyser):
    """ILSVRC's rules for the shared flow: the devkit's record the window's views hold."""

    metric = "ILSVRC mean AP (defined classes)"

    def from_views(self, ds: Dataset, res: ResultSet, window: Evidence) -> Any | None:
        return window.one_raw()

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        return evaluate_ilsvrc_det(ds, res)

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        return ilsvrc_tide(ds, res, ev)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        chars = ilsvrc_characteristics(ds, res, ev, None)[0]
        chars.pop("overall", None)
        return chars

    def resample(
        self, ds: Dataset, sets: Sequence[tuple[ResultSet, Any]], n: int, seed: int, **kw: Any
    ) -> tuple[BootstrapResult, BootstrapResult | None]:
        evidence = [ilsvrc_det_evidence(ds, res, ev, res.name) for res, ev in sets]
        chunk = progress_chunk(evidence, n)
        boot = bootstrap(evidence, n, seed, chunk=chunk, recall_grid=RECALL_GRID, **kw)
        return boot, boot
