"""``vocviewer analyze``: what each error costs (TIDE), bootstrap intervals, paired differences,
rank ranges and normalised AP for one or more result sets, as a printed summary, JSON and figures.

Families: those of the registry with ``analyze_tasks`` (VOC det / cls in ``voc_analyze``, COCO
bbox / segm in ``coco_analyze``, VisDrone-DET in ``visdrone_analyze``, ILSVRC DET in
``ilsvrc_analyze``, LVIS bbox / segm under the federated rules in ``lvis_analyze``), chosen as ``eval`` chooses (``registry.choose``). Each ``--results`` path is
one result set, named by its file or folder name (made unique with ``-2``, ``-3``, ...; a set's
figure files by that name without its extension: ``tide_detA.svg``). The JSON
(``analyze(...).payload``)::

    {"protocol", "task", "image_set", "official", "bootstrap": {"replicates", "seed", "level"},
     "sets": {name: {"mAP", "per_class": {class: {"ap", "ap_n", ...}},
                     "normalised_ap": {"n_pos", "n_pos_default", ...},
                     "tide": {"main": {...}, "special": {...}, "ap", "counts"},   # boxes / masks
                     "characteristics": {"n_pos", name: {"bins", "mean", "se", "objects",
                                         "overall", "sensitivity", "impact", "per_class"}},
                     "analysis": {...},                               # COCO, VisDrone, VOC det
                     "bootstrap": {"mAP": {"point", "ci", "level", "replicates", "metric"},
                                   "per_class": {class: {"point", "ci"}}}}},
     "paired": [{"a", "b", "difference", "ci", "level", "verdict",
                 "per_class": {class: {"difference", "ci", "verdict"}}}],   # two or more sets
     "ranks": {name: {"rank", "range"}}}                                # three or more sets

VOC: ``mAP`` is VOC's own mean AP (the evaluation's AP rule) and its bootstrap; normalised AP
(IJCV 2015 eq. 5-6) beside AP, ``N`` the paper's mean positives per class unless ``--n-pos``;
TIDE (detection) from ``tide_voc``. COCO: ``mAP`` is COCOeval's AP@[.50:.95] (summary "AP"),
``AP50`` its AP at IoU 0.5 (summary "AP50"), both bootstrapped (``bootstrap_coco``); TIDE from
``tide_coco`` (tidecv's units: AP points at IoU 0.5). VisDrone: the toolkit's AP / AP50 in
percent. ILSVRC: the mean AP over labels with a defined AP. LVIS: ``LVISEval``'s AP, AP50 and
APr / APc / APf, TIDE on its verdicts (``tide_lvis``). Object characteristics:
``evaluation.characteristics``. ``--operating-point``, ``--calibration`` and ``--lrp`` add the
analyses beyond AP to each set (``families.analyze_beyond``).
Nothing here prints; ``cli`` prints the text and writes the JSON and the figures.
"""

from __future__ import annotations

from dataclasses import replace

from vocviewer.core.result_sets import file_stems
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput
from vocviewer.families.analyze_beyond import BeyondRequest, add_beyond_ap, figure_kinds
from vocviewer.families.base import AnalyzeRequest, Benchmark, Declarations
from vocviewer.families.registry import families


def analysed() -> list[Declarations]:
    """The registered families that ``analyze`` (``analyze_tasks`` not empty), declared (none
    imported)."""
    return [b for b in families() if b.analyze_tasks]


def analyze(benchmark: Benchmark, request: AnalyzeRequest, beyond: BeyondRequest) -> AnalyzeOutput:
    """``benchmark``'s analysis of ``request`` (one evaluation per result set), with the
    analyses beyond AP ``beyond`` asks for read from the same evaluations, each set's figures
    named by its file stem. ``vocviewer analyze``'s command line arrives through
    ``cli_analyze``, which checks it and chooses the family."""
    return with_file_stems(add_beyond_ap(beyond, benchmark.analyze(request), request.figures))


#: The figures of one set are named ``<kind>_<set name><suffix>.svg`` (``tide_detA.json.svg``,
#: ``analyze_weak_cars.svg``; the analyses beyond AP add theirs, ``figure_kinds``); the others
#: (``pr_<class>.svg``) hold every set.
SET_FIGURES = ("tide_", "characteristics_", "analyze_")


def with_file_stems(out: AnalyzeOutput) -> AnalyzeOutput:
    """``out`` with each set's figures named by the set's name without its file extension,
    made unique (``result_sets.file_stems``): ``tide_detA.svg``, not ``tide_detA.json.svg``."""
    names = list(out.payload.get("sets", {}))
    stems = dict(zip(names, file_stems(names), strict=True))
    longest = sorted(names, key=len, reverse=True)  # "a_b" before "a" for "analyze_a_b_cars"

    kinds = (*SET_FIGURES, *(f"{k}_" for k in figure_kinds()))

    def renamed(file: str) -> str:
        for kind in kinds:
            rest = file.removeprefix(kind)
            if rest == file:
                continue
            for name in longest:
                if rest.startswith(name) and rest[len(name) : len(name) + 1] in ("_", "."):
                    return f"{kind}{stems[name]}{rest[len(name) :]}"
        return file

    return replace(out, figures=[(renamed(f), svg) for f, svg in out.figures])
