"""``vocviewer analyze``: what each error costs (TIDE), bootstrap intervals, paired differences,
rank ranges and normalised AP for one or more result sets, as a printed summary, JSON and figures.

Families: VOC detection and classification (``--task det|cls``), COCO boxes (``--task bbox`` or an
annotation ``.json``). Each ``--results`` path is one result set, named by its file or folder
name (made unique with ``-2``, ``-3``, ...). The JSON (``run_analyze(...).payload``)::

    {"protocol", "task", "image_set", "bootstrap": {"replicates", "seed", "level"},
     "sets": {name: {"mAP", "per_class": {class: {"ap", "ap_n"}}, "normalised_ap": {"n_pos", ...},
                     "tide": {"main": {...}, "special": {...}, "ap", "counts"},   # boxes only
                     "bootstrap": {"mAP": {"point", "ci", "level", "replicates", "metric"},
                                   "per_class": {class: {"point", "ci"}}}}},
     "paired": [{"a", "b", "difference", "ci", "level", "verdict"}],   # two or more sets
     "ranks": {name: {"rank", "range"}}}                                # three or more sets

VOC: ``mAP`` is VOC's own mean AP (the evaluation's AP rule) and its bootstrap; normalised AP
(IJCV 2015 eq. 5-6) beside AP, ``N`` the paper's mean positives per class unless ``--n-pos``;
TIDE (detection) from ``tide_voc``. COCO: ``mAP`` is COCOeval's AP@[.50:.95] (summary "AP"),
``AP50`` its AP at IoU 0.5 (summary "AP50"), both bootstrapped (``bootstrap_coco``); TIDE from
``tide_coco`` (tidecv's units: AP points at IoU 0.5). COCO has no normalised AP here.
Nothing here prints; ``cli`` prints the text and writes the JSON and the figures.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from vocviewer.commands import opened
from vocviewer.commands.analyze_report import AnalysedSet, AnalyzeOutput, finish, num, set_names
from vocviewer.commands.voc import check_ground_truth, infer_image_set, problems_error
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.bootstrap import DEFAULT_CHUNK_ELEMENTS, EvidenceSet, bootstrap

#: Recall levels of the PR bands (VOC; COCO uses its own 101 recall thresholds, the same values).
RECALL_GRID = np.linspace(0.0, 1.0, 101).tolist()


def is_coco(args: argparse.Namespace) -> bool:
    """COCO when asked for (``--task bbox``, ``--protocol coco``) or given an annotation JSON."""
    path = args.path
    bbox = args.task == "bbox" and not path.is_dir()
    return bool(bbox or args.protocol == "coco" or path.suffix.lower() == ".json")


def run_analyze(args: argparse.Namespace) -> AnalyzeOutput:
    """Analyse ``args.results`` on ``args.path``. ``args``: ``task``, ``protocol``, ``image_set``,
    ``images``, ``bootstrap`` (replicates), ``seed``, ``level``, ``n_pos``, ``figures`` (whether
    to build figures), ``progress`` (``(done, total)`` callback or None)."""
    if args.bootstrap < 1:
        raise FormatError(
            args.path, "--bootstrap needs at least 1 replicate (1000 or more advised)"
        )
    if not 0 < args.level < 1:
        raise FormatError(args.path, f"--level must lie between 0 and 1, got {args.level}")
    for path in args.results:
        if not path.exists():
            raise FormatError(path, "no such file or folder")
    if is_coco(args):
        from vocviewer.commands.analyze_coco import analyze_coco

        return analyze_coco(args)
    return _analyze_voc(args)


def progress_chunk(sets: list[EvidenceSet], replicates: int) -> int:
    """Replicates per chunk: about 20 progress steps, never above the engine's memory bound."""
    longest = max((len(c.unit) for s in sets for c in s.classes), default=1)
    bound = max(1, DEFAULT_CHUNK_ELEMENTS // max(longest, sets[0].n_units, 1))
    return min(bound, max(1, -(-replicates // 20)))


def _analyze_voc(args: argparse.Namespace) -> AnalyzeOutput:
    from vocviewer.evaluation.bootstrap_voc import voc_cls_evidence, voc_det_evidence
    from vocviewer.evaluation.normalised_ap import default_normalisers, normalised_aps
    from vocviewer.evaluation.tide_voc import voc_tide
    from vocviewer.evaluation.voc import PROTOCOL_AP_RULES, evaluate_voc_cls, evaluate_voc_det
    from vocviewer.formats.detect import open_dataset, open_results

    task = args.task or "det"
    if task not in ("det", "cls"):
        raise FormatError(
            args.path, f"--task {task}: a VOCdevkit is analysed for det or cls (bbox: COCO JSON)"
        )
    image_set = args.image_set or infer_image_set(args.results, task)
    if image_set is None:
        raise FormatError(
            args.results[0],
            "cannot tell the image set from the result file names; pass --image-set",
        )
    dataset = opened(args, open_dataset(args.path))
    lost = check_ground_truth(dataset, args.keep_going) if task == "det" else None
    warnings = [str(p) for p in dataset.problems] + ([f"NOT OFFICIAL: {lost}"] if lost else [])
    rule = PROTOCOL_AP_RULES.get(args.protocol) if args.protocol else None
    sets: list[AnalysedSet] = []
    evidence: list[EvidenceSet] = []
    for name, path in zip(set_names(args.results), args.results, strict=True):
        results = open_results(dataset, [path], image_set=image_set)
        if results.problems:
            raise problems_error(results.problems)
        warnings += [f"{name}: {w}" for w in results.warnings]
        evaluate = evaluate_voc_det if task == "det" else evaluate_voc_cls
        try:
            ev = evaluate(dataset, results, image_set=image_set, ap_rule=rule, strict=True)
        except KeyError as e:  # unknown image set
            raise FormatError(args.path, str(e.args[0])) from None
        if not any(c.has_results for c in ev.classes):
            raise FormatError(path, f"no {task} results for image set {image_set} here")
        d_pos, d_neg = default_normalisers(ev)
        n_pos = d_pos if args.n_pos is None else float(args.n_pos)
        ap_n = normalised_aps(ev, n_pos=n_pos, n_neg=d_neg)
        norm: dict[str, Any] = {"n_pos": n_pos, "n_pos_default": d_pos}
        if task == "cls":
            norm["n_neg"] = d_neg
        entry: dict[str, Any] = {
            "files": len(results.files),
            "ap_rule": ev.ap_rule,
            "mAP": num(ev.mean_ap()),
            "per_class": {
                c.class_name: {"ap": num(c.ap), "ap_n": num(ap_n[c.class_name]), "npos": c.npos}
                for c in ev.classes
                if c.has_results
            },
            "normalised_ap": norm,
        }
        tide = None
        if task == "det":
            tide = voc_tide(dataset, results, ev, image_set=image_set)
            entry["tide"] = tide.to_json()
        build = voc_det_evidence if task == "det" else voc_cls_evidence
        evidence.append(build(dataset, ev, name))
        sets.append(AnalysedSet(name, ev.mean_ap(), entry, tide))
    boot = bootstrap(
        evidence,
        args.bootstrap,
        args.seed,
        recall_grid=RECALL_GRID if args.figures else None,
        chunk=progress_chunk(evidence, args.bootstrap),
        progress=args.progress,
    )
    metric = f"VOC mean AP ({evidence[0].ap_rule})"
    header = (
        f"{dataset.name or 'VOC'} {task}, image set {image_set}, {evidence[0].n_units} images; "
        f"mAP = VOC mean AP ({evidence[0].ap_rule}, 0-1)"
    )
    return finish(
        args, "voc", task, image_set, header, sets, boot, metric, warnings, official=lost is None
    )
