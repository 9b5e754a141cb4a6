"""Benchmark families: one module per family, each an implementation of the ``Benchmark``
protocol (``base``) registered in ``registry``. No family name is tested outside its own module.

Modules
-------
base            the ``Benchmark`` protocol, ``CliOption``, ``EvalOutput`` and shared helpers
registry        register / unregister / choose a family; ``open_dataset``, ``open_results``,
                ``looks_like_dataset``, ``benchmark_of`` over the registry (the window's entry
                points)
views           what a family gives the window: ``ClassView`` per class, ``Summary``,
                ``ViewSettings`` (IoU / area choices, diagnosis rules), ``ViewChoice``
voc             PASCAL VOC det / cls (``voc_tasks``: seg, layout, action; ``voc_analyze``;
                ``voc_view``: the window)
coco            COCO bbox / segm / keypoints (``coco_analyze``; ``coco_view``)
visdrone        VisDrone-DET (``visdrone_view``)
ilsvrc          ILSVRC DET / CLS-LOC (``ilsvrc_view``)
lvis            LVIS v1 bbox / segm (federated; claims LVIS files before COCO does;
                ``lvis_view``)
analyze         ``vocviewer analyze`` over the families that analyse (``analyze_report``,
                ``analyze_figures``: its JSON, text and SVG figures)
"""

from vocviewer.families.base import Benchmark, CliOption, EvalOutput, FileTypes
from vocviewer.families.registry import (
    benchmark_of,
    choose,
    file_types,
    get,
    looks_like_dataset,
    open_dataset,
    open_results,
    register,
    registered,
    unregister,
)

__all__ = [
    "Benchmark",
    "CliOption",
    "EvalOutput",
    "FileTypes",
    "benchmark_of",
    "choose",
    "file_types",
    "get",
    "looks_like_dataset",
    "open_dataset",
    "open_results",
    "register",
    "registered",
    "unregister",
]
