"""``vocviewer analyze`` on a VisDrone-DET split: every ``--results`` folder is one set.

Per set: the toolkit's AP / AP50 (percent, ``evalDET.m``) and per-class AP, TIDE on the toolkit's
own verdicts at IoU 0.5 (``tide_visdrone``), the bootstrap of the summary AP (``mAP``) and AP50
with per-class intervals (``bootstrap_visdrone``), per-class normalised AP beside AP and the
object characteristics (size, aspect ratio, truncation none/partial, occlusion none/partial/heavy)
on the evaluated objects (classes 1..10, outside ignored regions, score 1), ``AP_N`` with
``VOCap`` at IoU 0.5. ``N`` (``--n-pos``) defaults to the mean number of those objects over the
classes that have any. Layout of the JSON: ``analyze``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis_curves import CURVE_NAMES, AnalysisCurves, interpolated_precision
from vocviewer.evaluation.ap import voc_ap_all_points
from vocviewer.evaluation.bootstrap import RECALL_GRID
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.characteristics import (
    ASPECT_BINS,
    SIZE_BINS,
    Characteristic,
    ClassRanking,
    all_characteristics,
    aspect_bins,
    characteristics_json,
    level_bins,
    size_bins,
)
from vocviewer.evaluation.normalised_ap import mean_positives, normalised_precision_det
from vocviewer.evaluation.render.analyze_characteristics import with_characteristics
from vocviewer.evaluation.render.analyze_curves_svg import analysis_svg, area_label
from vocviewer.evaluation.render.analyze_report import (
    AnalysedSet,
    AnalyzeOutput,
    finish_with_ap50,
    set_names,
)
from vocviewer.evaluation.tide import TideResult
from vocviewer.families.base import AnalyzeRequest, opened, problems_error
from vocviewer.families.evidence import Evidence, evaluated_once
from vocviewer.families.view_analyser import CurveSet, ViewAnalyser, chunk_for
from vocviewer.families.visdrone.bootstrap import visdrone_bootstrap, visdrone_evidence
from vocviewer.families.visdrone.columns import (
    VISDRONE_CATEGORIES,
    VISDRONE_EVAL_CLASSES,
    VisDroneDetections,
    VisDroneGroundTruth,
)
from vocviewer.families.visdrone.evaluate import VisDroneResult, evaluate_visdrone
from vocviewer.families.visdrone.tide import visdrone_tide
from vocviewer.families.visdrone.view import toolkit_ranking

VISDRONE_MAP = "VisDrone AP@[.50:.95], maxDets 500 (summary 'AP', percent)"
VISDRONE_AP50 = "VisDrone AP@0.50, maxDets 500 (summary 'AP50', percent)"
#: IoU of the Loc, Sim and Oth curves (COCO's analyze()).
LOC_IOU = 0.1
FloatArray = npt.NDArray[np.float64]


def analyze_visdrone(request: AnalyzeRequest) -> AnalyzeOutput:
    """VisDrone-DET analysis of every ``request.results`` folder on the split ``request.path``."""
    from vocviewer.families.visdrone import view as visdrone_view
    from vocviewer.families.visdrone.bootstrap import visdrone_bootstrap, visdrone_evidence
    from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results
    from vocviewer.families.visdrone.tide import visdrone_tide

    if request.task not in (None, "det"):
        raise FormatError(
            request.path, f"analyze: VisDrone is analysed for --task det, not {request.task}"
        )
    dataset = opened(request, read_visdrone(request.path))
    warnings = [str(p) for p in dataset.problems]
    sets: list[AnalysedSet] = []
    evidence = []
    per_set: list[tuple[str, dict[str, Characteristic]]] = []
    analyses: list[tuple[str, VisDroneCurves]] = []
    official = True
    for name, path in zip(set_names(request.results), request.results, strict=True):
        if not path.is_dir():
            raise FormatError(path, "VisDrone results are a folder of per-image .txt files")
        results = read_visdrone_results(dataset, [path])
        if results.problems and not request.keep_going:
            raise problems_error(results.problems)
        warnings += [f"{name}: {p}" for p in (*results.problems, *results.warnings)]
        evaluated = evaluated_once(visdrone_view.evaluate_visdrone_views, dataset, results)
        ev = evaluated.evidence.one_raw()
        assert isinstance(ev, VisDroneResult)  # every class's view holds the toolkit's one record
        warnings += [f"{name}: NOT OFFICIAL: {n}" for n in ev.notes]
        official = official and ev.official
        tide = visdrone_tide(dataset, results, ev)
        d_pos = mean_positives(ev.npos)
        n_pos = d_pos if request.n_pos is None else float(request.n_pos)
        chars = visdrone_characteristics(dataset, results, ev, n_pos)[0]
        ap_n = visdrone_normalised(dataset, results, ev, n_pos)
        entry: dict[str, Any] = {
            "mAP": nan_to_null(ev.summary["AP"]),
            "AP50": nan_to_null(ev.summary["AP50"]),
            "per_class": {
                n: {
                    "ap": nan_to_null(ap),
                    "ap50": float(ev.ap[k, 0]),
                    "ap_n": nan_to_null(ap_n[k]),
                    "npos": int(ev.npos[k]),
                }
                for k, (n, ap) in enumerate(ev.class_ap().items())
            },
            "normalised_ap": {
                "n_pos": n_pos,
                "n_pos_default": d_pos,
                "iou": 0.5,
                "columns": {"AP_N@0.50": "ap_n"},  # beside AP[.5:.95]: labelled by its IoU
            },
            "tide": tide.to_json(),
        }
        chars.pop("overall")
        defined = ap_n[~np.isnan(ap_n)]
        entry["normalised_ap"]["mean"] = float(defined.mean()) if len(defined) else None
        entry["characteristics"] = characteristics_json(chars, n_pos, d_pos)
        per_set.append((name, chars))
        curves = visdrone_curves(dataset, results, ev)
        entry["analysis"] = curves.to_json()
        analyses.append((name, curves))
        evidence.append(visdrone_evidence(dataset, results, ev, name))
        sets.append(AnalysedSet(name, ev.summary["AP"], entry, tide, evaluated))
    boot = visdrone_bootstrap(
        evidence,
        request.bootstrap,
        request.seed,
        recall_grid=RECALL_GRID if request.figures else None,
        chunk=chunk_for(request.bootstrap, 1, 100),
        progress=request.progress,
    )
    header = (
        f"VisDrone-DET, {len(dataset.images)} images; mAP = VisDrone AP@[.50:.95] (percent); "
        "TIDE and the PR bands at IoU 0.5"
    )
    boots, metrics = (boot.ap, boot.ap50), (VISDRONE_MAP, VISDRONE_AP50)
    out = finish_with_ap50(
        request, "visdrone", "det", header, sets, boots, metrics, warnings, official
    )
    figures = [f for n, c in analyses for f in curve_figures(n, c)] if request.figures else []
    out = replace(out, text=out.text + curves_text(analyses), figures=out.figures + figures)
    return with_characteristics(out, per_set, request.figures)


def curves_text(analyses: list[tuple[str, VisDroneCurves]]) -> str:
    """One line per set: the areas under the overall curves, as the COCO legend writes them."""
    width = max(12, *(len(n) for n, _ in analyses))
    lines = ["", "analyze()-style curves: areas (mean over the 10 classes, maxDets 500)"]
    for name, c in analyses:
        areas = c.curves().areas
        lines.append(f"{name:<{width}}  " + " ".join(f"{area_label(areas[k])} {k}" for k in areas))
    return "\n".join(lines) + "\n"


def curve_figures(name: str, c: VisDroneCurves) -> list[tuple[str, str]]:
    """``analyze_<set>.svg`` (all classes) and ``analyze_<set>_<group>.svg`` per similar group."""
    from vocviewer.evaluation.analysis import VISDRONE_GROUPS

    views = [("", "overall", c.curves())]
    views += [(f"_{g}", g, c.curves(sorted(m))) for g, m in VISDRONE_GROUPS.items()]
    return [
        (
            f"analyze_{name}{suffix}.svg",
            analysis_svg(f"{name}: det-{which}", v.recall, v.curves(), v.areas),
        )
        for suffix, which, v in views
    ]


def visdrone_normalised(
    dataset: Dataset, results: ResultSet, ev: VisDroneResult, n_pos: float
) -> FloatArray:
    """float64 (10,): each evaluated class's normalised AP (eq. 6) at IoU 0.5 on the toolkit's
    own ranked list and positives (those of its AP50; ``allpoints`` as its ``VOCap``)."""
    out = np.full(len(VISDRONE_EVAL_CLASSES), np.nan)
    for i, c in enumerate(VISDRONE_EVAL_CLASSES):
        v = ev.verdict[toolkit_ranking(results, ev.verdict[:, 0], c), 0]
        if ev.npos[c - 1] > 0:
            prec, rec = normalised_precision_det(v == 1, v == 0, int(ev.npos[c - 1]), n_pos)
            out[i] = voc_ap_all_points(rec, prec)
    return out


def visdrone_characteristics(
    dataset: Dataset, results: ResultSet, ev: VisDroneResult, n_pos: float | None
) -> tuple[dict[str, Characteristic], float, float]:
    """(characteristics with an ``"overall"`` one-bin entry, ``N`` used, ``N`` default)."""
    from vocviewer.families.visdrone.tide import visdrone_positives

    gt = dataset.data(VisDroneGroundTruth)
    obj, det = dataset.objects, results.detections
    counted = visdrone_positives(dataset, ev)
    per_class = np.bincount(obj.label[counted], minlength=len(VISDRONE_CATEGORIES))
    have = per_class[list(VISDRONE_EVAL_CLASSES)]
    d_pos = float(have[have > 0].mean()) if np.any(have > 0) else float("nan")
    n = d_pos if n_pos is None else float(n_pos)
    verdict, matched = ev.verdict[:, 0], ev.matched_gt[:, 0]
    rows = np.flatnonzero(verdict != -2)
    rank = rows[np.lexsort((rows, det.image_index[rows], -det.score[rows]))]
    rankings = []
    for c in VISDRONE_EVAL_CLASSES:
        r = rank[det.label[rank] == c]
        v = verdict[r]
        obj_hit = np.where(v != 0, matched[r], -1)
        rankings.append(ClassRanking(VISDRONE_CATEGORIES[c], c, v == 1, v == 0, obj_hit))
    box = np.column_stack([gt.ltwh[:, :2], gt.ltwh[:, :2] + gt.ltwh[:, 2:]])
    specs = {
        "overall": (("all",), np.where(counted, 0, -1)),
        "size": (SIZE_BINS, size_bins(box, obj.label, counted)),
        "aspect": (ASPECT_BINS, aspect_bins(box, obj.label, counted)),
        "truncation": (("none", "partial"), level_bins(gt.truncation, 2, counted)),
        "occlusion": (("none", "partial", "heavy"), level_bins(gt.occlusion, 3, counted)),
    }
    return all_characteristics(specs, rankings, obj.label, counted, n), n, d_pos


def visdrone_curves(dataset: Dataset, results: ResultSet, ev: VisDroneResult) -> VisDroneCurves:
    """``analyze()``'s nested curves on the toolkit's ranked lists (see ``VisDroneCurves``)."""
    from vocviewer.evaluation.analysis import VISDRONE_GROUPS
    from vocviewer.evaluation.matching import greedy_with_fallback, group_offsets, same_image_pairs
    from vocviewer.families.visdrone.matching import overlaps

    gt = dataset.data(VisDroneGroundTruth)
    obj, det = dataset.objects, results.detections
    verdict = ev.verdict
    rows = np.flatnonzero(verdict[:, 0] != -2)
    kept = np.flatnonzero(ev.gt_kept & (gt.category >= 1) & (gt.category <= 10))
    off = group_offsets(obj.image_index[kept], len(dataset.images))
    pd, pg = same_image_pairs(det.image_index[rows], off)
    ok, ov = overlaps(
        results.data(VisDroneDetections).ltwh[rows][pd], gt.ltwh[kept][pg], np.zeros(len(pd), bool)
    )
    iou = np.where(ok, ov, 0.0)
    d_lab, g_lab = det.label[rows][pd], obj.label[kept][pg]
    g_eval = gt.score[kept][pg] != 0
    # Loc: the toolkit's greedy at IoU 0.1 (evaluated objects; ties to the later object)
    cand = np.flatnonzero((d_lab == g_lab) & g_eval & (iou >= LOC_IOU))
    pref = np.empty(len(cand), dtype=np.int64)
    pref[np.lexsort((-pg[cand], -iou[cand], pd[cand]))] = np.arange(len(cand))
    prio = np.empty(len(rows), dtype=np.int64)
    prio[np.lexsort((rows, -det.score[rows], det.image_index[rows]))] = np.arange(len(rows))
    taken = greedy_with_fallback(pd[cand], pg[cand], pref, prio, len(rows), len(kept))
    loc = np.where(taken >= 0, 1, 0).astype(np.int8)
    free = (taken < 0)[pd]
    hit_ignore = free & (d_lab == g_lab) & ~g_eval
    with np.errstate(all="ignore"):  # ioa with the ignore-flagged object (compOas)
        _, ioa = overlaps(
            results.data(VisDroneDetections).ltwh[rows][pd],
            gt.ltwh[kept][pg],
            np.ones(len(pd), bool),
        )
    loc[np.unique(pd[hit_ignore & (ioa >= LOC_IOU)])] = -1
    names = [VISDRONE_CATEGORIES[c] for c in range(len(VISDRONE_CATEGORIES))]
    group_of = {n: g for g, members in VISDRONE_GROUPS.items() for n in members}
    d_grp = np.array([group_of.get(names[int(v)], "") for v in d_lab], dtype=object)
    g_grp = np.array([group_of.get(names[int(v)], "") for v in g_lab], dtype=object)
    other = (d_lab != g_lab) & (iou >= LOC_IOU) & (loc[pd] == 0)
    sim = loc.copy()
    sim[np.unique(pd[other & (d_grp == g_grp) & (d_grp != "")])] = -1
    oth = loc.copy()
    oth[np.unique(pd[other])] = -1
    rank = rows[np.lexsort((rows, det.image_index[rows], -det.score[rows]))]
    where = np.full(len(det.label), -1, dtype=np.int64)
    where[rows] = np.arange(len(rows))
    rt = np.linspace(0.0, 1.0, 101)
    per = np.zeros((5, len(VISDRONE_EVAL_CLASSES), len(rt)))
    for k, c in enumerate(VISDRONE_EVAL_CLASSES):
        r = rank[det.label[rank] == c]
        lists = (verdict[r, 5], verdict[r, 0], loc[where[r]], sim[where[r]], oth[where[r]])
        for i, v in enumerate(lists):
            per[i, k] = interpolated_precision(v == 1, v == 0, int(ev.npos[k]), rt)
    return VisDroneCurves(rt, per, tuple(names[c] for c in VISDRONE_EVAL_CLASSES))


@dataclass(frozen=True, eq=False)
class VisDroneCurves:
    """The nested curves per class: ``precision`` float64 (5, 10, R) for C75, C50, Loc, Sim,
    Oth at ``recall`` (101 levels); BG and FN follow (``curves``)."""

    recall: FloatArray
    precision: FloatArray
    class_names: tuple[str, ...]

    def curves(self, classes: Sequence[str] | None = None) -> AnalysisCurves:
        """The seven curves of the mean over ``classes`` (default all ten)."""
        keep = [self.class_names.index(c) for c in classes] if classes else slice(None)
        p = self.precision[:, keep].mean(axis=1)
        bg = (p[4] > 0).astype(np.float64)
        c75, c50, loc, sim, oth = p
        return AnalysisCurves("", "all", self.recall, c75, c50, loc, sim, oth, bg, np.ones_like(bg))

    def to_json(self) -> dict[str, Any]:
        """``{"curves", "max_dets", "overall": {"all": areas}, "groups", "categories"}``."""
        from vocviewer.evaluation.analysis import VISDRONE_GROUPS

        def areas(c: AnalysisCurves) -> dict[str, float | None]:
            return {k: nan_to_null(v) for k, v in c.areas.items()}

        return {
            "curves": list(CURVE_NAMES),
            "max_dets": 500,
            "overall": {"all": areas(self.curves())},
            "groups": {g: areas(self.curves(sorted(m))) for g, m in VISDRONE_GROUPS.items()},
            "categories": {c: areas(self.curves([c])) for c in self.class_names},
        }


# --- the window's Analysis tab (``view_analysis``) --------------------------------------------
class VisDroneViewAnalyser(ViewAnalyser):
    """VisDrone's rules for the shared flow: the toolkit's record the window's views hold
    (every IoU .50:.95)."""

    metric, percent = "VisDrone AP@[.50:.95]", True

    def from_views(self, ds: Dataset, res: ResultSet, window: Evidence) -> Any | None:
        return window.one_raw()

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        return evaluate_visdrone(ds, res)

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        return visdrone_tide(ds, res, ev)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        chars = visdrone_characteristics(ds, res, ev, mean_positives(ev.npos))[0]
        chars.pop("overall", None)
        return chars

    def curves(self, ds: Dataset, res: ResultSet, ev: Any) -> CurveSet:
        c = visdrone_curves(ds, res, ev)
        per_class = {ds.classes.index(n): c.curves([n]) for n in c.class_names}
        return CurveSet(c.curves(), per_class)

    def resample(
        self, ds: Dataset, sets: Sequence[tuple[ResultSet, Any]], n: int, seed: int, **kw: Any
    ) -> tuple[BootstrapResult, BootstrapResult | None]:
        evidence = [visdrone_evidence(ds, res, ev, res.name) for res, ev in sets]
        chunk = chunk_for(n, 1, 100)
        boot = visdrone_bootstrap(evidence, n, seed, chunk=chunk, recall_grid=RECALL_GRID, **kw)
        return boot.ap, boot.ap50
