"""``vocviewer analyze`` on a VOCdevkit (``--task det|cls``); the JSON layout is in ``analyze``.

Detection adds COCO ``analyze()``'s nested curves on VOC's own matching
(``families.voc.analyze_curves``): ``"analysis"`` per set, one summary line per set and the
figures ``analyze_<set>.svg`` (all classes) and ``analyze_<set>_<group>.svg`` per similar group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vocviewer.core.arrays import nan_to_null
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.bootstrap import RECALL_GRID, EvidenceSet, bootstrap, progress_chunk
from vocviewer.evaluation.bootstrap_stats import BootstrapResult
from vocviewer.evaluation.characteristics import (
    ASPECT_BINS,
    SIZE_BINS,
    Characteristic,
    ClassRanking,
    all_characteristics,
    aspect_bins,
    characteristics_json,
    flag_bins,
    size_bins,
)
from vocviewer.evaluation.normalised_ap import default_normalisers
from vocviewer.evaluation.render.analyze_characteristics import with_characteristics
from vocviewer.evaluation.render.analyze_curves_svg import analysis_svg, area_label
from vocviewer.evaluation.render.analyze_report import (
    AnalysedSet,
    AnalyzeOutput,
    finish,
)
from vocviewer.evaluation.result import EvalResult, Verdict
from vocviewer.evaluation.tide import TideResult
from vocviewer.families.base import (
    AnalyzeRequest,
    check_ground_truth,
    opened,
    problems_error,
    refuse_json_results,
)
from vocviewer.families.evidence import Evaluated, Evidence, evaluated_once
from vocviewer.families.view_analyser import CurveSet, ViewAnalyser
from vocviewer.families.views import ViewChoice
from vocviewer.families.voc import view as voc_view
from vocviewer.families.voc.analyze_curves import VocCurves, voc_curves
from vocviewer.families.voc.bootstrap import voc_det_evidence
from vocviewer.families.voc.evaluate import (
    class_at,
    cls_result,
    default_ap_rule,
    det_result,
    evaluate_voc_det,
)
from vocviewer.families.voc.tasks import infer_image_set, open_voc, voc_expects, voc_result_sets
from vocviewer.families.voc.tide import voc_tide


def analyze_voc(request: AnalyzeRequest) -> AnalyzeOutput:
    """VOC det / cls analysis of every ``request.results`` set on the VOCdevkit ``request.path``."""
    from vocviewer.evaluation.normalised_ap import default_normalisers, normalised_aps
    from vocviewer.families.voc.bootstrap import voc_cls_evidence, voc_det_evidence
    from vocviewer.families.voc.evaluate import PROTOCOL_AP_RULES
    from vocviewer.families.voc.reader import read_voc_results
    from vocviewer.families.voc.tide import voc_tide

    task = request.task or "det"
    if task not in ("det", "cls"):
        raise FormatError(
            request.path, f"--task {task}: a VOCdevkit is analysed for det or cls (bbox: COCO JSON)"
        )
    refuse_json_results(request.results, "VOC", voc_expects(task))
    image_set = request.option("image_set") or infer_image_set(request.results, task)
    if image_set is None:
        raise FormatError(
            request.results[0],
            "cannot tell the image set from the result file names; pass --image-set",
        )
    dataset = opened(request, open_voc(request.path))
    lost = check_ground_truth(dataset, request.keep_going) if task == "det" else None
    warnings = [str(p) for p in dataset.problems] + ([f"NOT OFFICIAL: {lost}"] if lost else [])
    rule = PROTOCOL_AP_RULES.get(request.protocol) if request.protocol else None
    sets: list[AnalysedSet] = []
    evidence: list[EvidenceSet] = []
    per_set: list[tuple[str, dict[str, Characteristic]]] = []
    analyses: list[tuple[str, VocCurves]] = []
    for name, paths in voc_result_sets(request.results, task):
        results = read_voc_results(dataset, paths, image_set=image_set)
        if results.problems:
            raise problems_error(results.problems)
        warnings += [f"{name}: {w}" for w in results.warnings]
        try:
            evaluated, ev = voc_evaluated(dataset, results, task, image_set, rule)
        except KeyError as e:  # unknown image set
            raise FormatError(request.path, str(e.args[0])) from None
        if not any(c.has_results for c in ev.classes):
            raise FormatError(paths[0], f"no {task} results for image set {image_set} here")
        d_pos, d_neg = default_normalisers(ev)
        n_pos = d_pos if request.n_pos is None else float(request.n_pos)
        ap_n = normalised_aps(ev, n_pos=n_pos, n_neg=d_neg)
        norm: dict[str, Any] = {"n_pos": n_pos, "n_pos_default": d_pos}
        norm["columns"] = {"AP_N@0.50" if task == "det" else "AP_N": "ap_n"}  # the devkit's IoU
        if task == "cls":
            norm["n_neg"] = d_neg
        entry: dict[str, Any] = {
            "files": len(results.files),
            "ap_rule": ev.ap_rule,
            "mAP": nan_to_null(ev.mean_ap()),
            "per_class": {
                c.class_name: {
                    "ap": nan_to_null(c.ap),
                    "ap_n": nan_to_null(ap_n[c.class_name]),
                    "npos": c.npos,
                }
                for c in ev.classes
                if c.has_results
            },
            "normalised_ap": norm,
        }
        tide = None
        if task == "det":
            tide = voc_tide(dataset, results, ev, image_set=image_set)
            entry["tide"] = tide.to_json()
            chars = voc_characteristics(dataset, ev, n_pos)
            entry["characteristics"] = characteristics_json(chars, n_pos, d_pos)
            per_set.append((name, chars))
            curves = voc_curves(dataset, results, ev)
            entry["analysis"] = curves.to_json()
            analyses.append((name, curves))
        build = voc_det_evidence if task == "det" else voc_cls_evidence
        evidence.append(build(dataset, ev, name))
        sets.append(AnalysedSet(name, ev.mean_ap(), entry, tide, evaluated))
    boot = bootstrap(
        evidence,
        request.bootstrap,
        request.seed,
        recall_grid=RECALL_GRID if request.figures else None,
        chunk=progress_chunk(evidence, request.bootstrap),
        progress=request.progress,
    )
    metric = f"VOC mean AP ({evidence[0].ap_rule})"
    header = (
        f"{dataset.name or 'VOC'} {task}, image set {image_set}, {evidence[0].n_units} images; "
        f"mAP = VOC mean AP ({evidence[0].ap_rule}, 0-1)"
    )
    out = finish(
        request, "voc", task, image_set, header, sets, boot, metric, warnings, official=lost is None
    )
    if analyses:
        figures = [f for n, c in analyses for f in curve_figures(n, c)] if request.figures else []
        out = replace(out, text=out.text + curves_text(analyses), figures=out.figures + figures)
    return with_characteristics(out, per_set, request.figures)


def voc_evaluated(
    dataset: Dataset, results: ResultSet, task: str, image_set: str, rule: str | None
) -> tuple[Evaluated, EvalResult]:
    """The one evaluation of ``results`` every analysis reads (``evaluated_once``: the window's
    stream at IoU 0.5 on ``image_set``, the devkit's stop at a bad row) and VOC's ``EvalResult``
    of its classes (``rule``: the AP rule, ``None``: the dataset year's)."""
    rule = rule or default_ap_rule(dataset.year)
    choice = ViewChoice(0.5, image_set=image_set)
    kw = {"tasks": (task,), "ap_rule": rule, "keep_going": False}
    evaluated = evaluated_once(voc_view.evaluate_voc_views, dataset, results, choice, **kw)
    classes = evaluated.evidence.evaluations(task)
    if task == "det":
        return evaluated, det_result(dataset, results, classes, image_set, rule, 0.5)
    return evaluated, cls_result(dataset, results, classes, image_set, rule)


def curves_text(analyses: list[tuple[str, VocCurves]]) -> str:
    """Per set: the areas under the overall curves (the COCO legend) and the same lists' mean AP
    under VOC's own rule."""
    width = max(12, *(len(n) for n, _ in analyses))
    lines = [
        "",
        "analyze()-style curves on VOC's matching (C75, C50, Loc at IoU .75, .5, .1): areas over",
        "COCO's 101 recall levels, then the same lists' AP by VOC's rule; means over the classes",
    ]
    for name, c in analyses:
        areas = c.curves().areas
        lines.append(f"{name:<{width}}  " + " ".join(f"{area_label(areas[k])} {k}" for k in areas))
        ap = c.protocol_ap()
        lines.append(
            f"{'':<{width}}  VOC AP ({c.ap_rule}): "
            + " ".join(f"{k} {v:.3f}" for k, v in ap.items())
        )
    return "\n".join(lines) + "\n"


def curve_figures(name: str, c: VocCurves) -> list[tuple[str, str]]:
    """``analyze_<set>.svg`` (all classes) and ``analyze_<set>_<group>.svg`` per similar group."""
    views = [("", "overall", c.curves())]
    views += [(f"_{g}", g, c.curves(m, g)) for g, m in c.group_members().items()]
    return [
        (
            f"analyze_{name}{suffix}.svg",
            analysis_svg(f"{name}: det-{which}", v.recall, v.curves(), v.areas),
        )
        for suffix, which, v in views
    ]


def voc_characteristics(
    dataset: Dataset, ev: EvalResult, n_pos: float
) -> dict[str, Characteristic]:
    """Size, aspect ratio, truncated, occluded and difficult bins of the image set's objects
    (non-difficult ones, except for "difficult": its "yes" bin holds the difficult objects, hit
    by the detections VOC ignored); ``AP_N`` under the evaluation's AP rule."""
    obj = dataset.objects
    key = ev.image_set if "/" in ev.image_set else f"Main/{ev.image_set}"
    in_set = np.zeros(len(dataset.images), dtype=bool)
    in_set[dataset.image_sets[key]] = True
    here = in_set[obj.image_index]
    counted = here & ~obj.difficult
    rankings = [
        ClassRanking(
            c.class_name,
            c.class_index,
            c.verdict == Verdict.TP,
            c.verdict >= Verdict.FP,
            np.where(np.isin(c.verdict, (Verdict.TP, Verdict.IGNORED)), c.best_gt, -1),
        )
        for c in ev.classes
        if c.has_results
    ]
    yes_no = ("no", "yes")
    specs = {
        "size": (SIZE_BINS, size_bins(obj.box, obj.label, counted)),
        "aspect": (ASPECT_BINS, aspect_bins(obj.box, obj.label, counted)),
        "truncated": (yes_no, flag_bins(obj.truncated, counted)),
        "occluded": (yes_no, flag_bins(obj.occluded, counted)),
        "difficult": (yes_no, flag_bins(obj.difficult, here)),
    }
    return all_characteristics(specs, rankings, obj.label, counted, n_pos, ev.ap_rule)


# --- the window's Analysis tab (``view_analysis``) --------------------------------------------
class VocViewAnalyser(ViewAnalyser):
    """VOC's rules for the shared flow: the window's classes re-derived at IoU 0.5
    (``class_at``), on the window's image set."""

    def from_views(self, ds: Dataset, res: ResultSet, window: Evidence) -> Any | None:
        image_set = window.choice.image_set
        if image_set is None or len(window.by_class()) < len(ds.classes):
            return None
        rule = default_ap_rule(ds.year)
        evs = tuple(
            class_at(ds, v.evaluation, 0.5, rule) for _, v in sorted(window.by_class().items())
        )
        return det_result(ds, res, evs, image_set, rule, 0.5)

    def evaluate(self, ds: Dataset, res: ResultSet, image_set: str | None) -> Any:
        if image_set is None:
            raise ValueError("choose an image set first")
        return evaluate_voc_det(ds, res, image_set=image_set, strict=False)

    def tide(self, ds: Dataset, res: ResultSet, ev: Any, image_set: str | None) -> TideResult:
        return voc_tide(ds, res, ev, image_set=ev.image_set)

    def characteristics(self, ds: Dataset, res: ResultSet, ev: Any) -> dict[str, Characteristic]:
        return voc_characteristics(ds, ev, default_normalisers(ev)[0])

    def curves(self, ds: Dataset, res: ResultSet, ev: Any) -> CurveSet:
        c = voc_curves(ds, res, ev)
        per_class = {ds.classes.index(n): v for n, v in c.per_class().items()}
        return CurveSet(c.curves(), per_class)

    def metric_of(self, ev: Any) -> str:
        return f"VOC mean AP ({ev.ap_rule})"

    def resample(
        self, ds: Dataset, sets: Sequence[tuple[ResultSet, Any]], n: int, seed: int, **kw: Any
    ) -> tuple[BootstrapResult, BootstrapResult | None]:
        evidence = [voc_det_evidence(ds, ev, res.name) for res, ev in sets]
        chunk = progress_chunk(evidence, n)
        boot = bootstrap(evidence, n, seed, chunk=chunk, recall_grid=RECALL_GRID, **kw)
        return boot, boot
