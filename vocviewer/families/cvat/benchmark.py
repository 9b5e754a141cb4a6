"""CVAT / LabelMe: the ``Benchmark`` of a CVAT for images 1.1 XML or a LabelMe JSON folder,
evaluated by COCO's protocol (``--protocol coco``, the default; ``--task bbox|segm``; a COCO
results JSON) or VOC's (``--protocol voc2012|voc2007``; VOC ``comp*_det_<set>_<class>.txt``
files).

Why COCO's and VOC's own code, not a copy: these are annotation tools' formats, not
benchmarks; their numbers are a benchmark's protocol applied to them. So the reader converts
to the protocol's dataset model at read time (``convert``: a COCO annotation dict read by
COCO's reader, or a VOC-model ``Dataset``) and COCO's / VOC's evaluation runs unchanged
(``evaluate_coco_dataset`` / ``evaluate_voc_dataset``: the same printed layout, JSON and
official-ness; ``vocviewer analyze`` and the Analysis tab are COCO's). The imports of ``families.coco`` and ``families.voc`` are declared in
``tests/test_architecture.py``. The window browses the COCO model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.result_sets import one_set_per_path
from vocviewer.families.base import (
    AnalyzeRequest,
    ConvertRequest,
    EvalOutput,
    EvalRequest,
    opened,
)
from vocviewer.families.coco.benchmark import CocoDocumentViews, evaluate_coco_dataset
from vocviewer.families.coco.results_reader import one_results_file
from vocviewer.families.cvat.convert import (
    DEFAULT_SET,
    ToolSource,
    coco_model,
    voc_model,
    write_coco,
    write_voc_folder,
)
from vocviewer.families.cvat.cvat_xml import read_cvat_xml
from vocviewer.families.cvat.declared import (
    VOC_PROTOCOLS,
    CvatDeclarations,
    looks_like_cvat,
    looks_like_labelme,
)
from vocviewer.families.cvat.labelme import read_labelme
from vocviewer.families.cvat.shapes import Annotated
from vocviewer.families.voc.benchmark import evaluate_voc_dataset
from vocviewer.families.voc.tasks import infer_image_set, voc_result_sets

if TYPE_CHECKING:
    from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


def read_annotated(path: Path, images: Path | None = None) -> tuple[Annotated, list[FormatError]]:
    """A CVAT XML (``images``: its image folder, default beside it) or a LabelMe folder / file."""
    if looks_like_cvat(path):
        return read_cvat_xml(path, images)
    if looks_like_labelme(path):
        return read_labelme(path)
    raise FormatError(path, "expected a CVAT for images 1.1 XML or LabelMe JSON file(s)")


def read_coco_model(path: Path, images: Path | None = None, *, masks: bool = True) -> Dataset:
    """The CVAT XML or LabelMe folder ``path`` in COCO's model (``convert.coco_model``)."""
    annotated, problems = read_annotated(path, images)
    return coco_model(annotated, problems, masks=masks)


def run_eval(request: EvalRequest) -> EvalOutput:
    """Evaluate ``request.results`` on the CVAT / LabelMe ground truth ``request.path`` by the
    protocol asked (COCO's by default); the summary of what was read is the first warning."""
    protocol = request.protocol or "coco"
    task = request.task or "bbox"
    if task not in CvatBenchmark.tasks:
        raise FormatError(request.path, f"--task {task}: expected bbox or segm")
    annotated, problems = read_annotated(request.path, request.option("images"))
    if protocol in VOC_PROTOCOLS:
        if task != "bbox":
            raise FormatError(None, f"--task {task}: VOC's protocol evaluates boxes (bbox) only")
        image_set = infer_image_set(request.results, "det") or DEFAULT_SET
        dataset = opened(request, voc_model(annotated, problems, image_set))
        out = evaluate_voc_dataset(
            EvalRequest(request.path, request.results, "det", protocol, request.keep_going),
            dataset,
            image_set,
        )
    else:
        one_results_file(request.results)
        dataset = opened(request, coco_model(annotated, problems, masks=task == "segm"))
        out = evaluate_coco_dataset(request, dataset)
    return EvalOutput(out.text, out.payload, [annotated.summary(), *out.warnings])


class CvatBenchmark(CvatDeclarations, CocoDocumentViews):
    """CVAT for images 1.1 XML or LabelMe JSON (``--images``: CVAT's image folder); evaluated by
    ``--protocol coco`` (tasks bbox, segm) or ``voc2012`` / ``voc2007`` (boxes)."""

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        return read_coco_model(path, sources.get("images"), masks=task != "bbox")

    def reads_results_of(self, dataset: Dataset) -> bool:
        return dataset.has_data(ToolSource)

    def result_sets(
        self, paths: Sequence[Path], task: str | None = None
    ) -> list[tuple[str, list[Path]]]:
        if any(Path(p).suffix.lower() == ".txt" for p in paths):  # VOC's per-class files
            return voc_result_sets(paths, "det")
        return one_set_per_path(paths)

    def convert(self, request: ConvertRequest) -> list[str]:
        """A COCO annotation JSON ``path`` as CVAT XML (``write_cvat``), or the CVAT XML /
        LabelMe folder ``path`` as a COCO annotation JSON or (through its COCO dict, with its
        difficult / truncated / occluded flags) a VOC folder in ``out``; COCO results JSONs need
        no conversion to COCO or CVAT (their ids are already the written ones)."""
        r = request
        if r.source == "coco":
            from vocviewer.families.cvat.write_cvat import coco_to_cvat

            return coco_to_cvat(r.path, r.out, list(r.results), r.option("images"))
        annotated, _ = read_annotated(r.path, r.option("images"))
        if r.to == "voc":
            return write_voc_folder(annotated, r.out, list(r.results), r.option("image_set"))
        msgs = write_coco(annotated, r.out)
        if r.results:
            msgs.append("results: COCO results JSON already; evaluate them against the new file")
        return msgs

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        return run_eval(request)

    def analyze(self, request: AnalyzeRequest) -> AnalyzeOutput:
        if request.protocol not in (None, "coco"):
            raise FormatError(None, "analyze: CVAT / LabelMe are analysed by COCO's protocol")
        from vocviewer.families.coco.analyze import analyze_coco

        return analyze_coco(request, read_coco_model)
