"""Benchmark families: one module per family, each an implementation of the ``Benchmark``
protocol (``base``) registered in ``registry``. No family name is tested outside its own module.

Modules
-------
base            the ``Benchmark`` protocol, ``CliOption``, ``EvalOutput`` and shared helpers
registry        register / unregister / choose a family; ``open_dataset``, ``open_results``,
                ``looks_like_dataset`` over the registry (the window's entry points)
voc             PASCAL VOC det / cls (``voc_tasks``: seg, layout, action; ``voc_analyze``)
coco            COCO bbox / segm / keypoints (``coco_analyze``)
visdrone        VisDrone-DET
ilsvrc          ILSVRC DET / CLS-LOC
lvis            LVIS v1 bbox / segm (federated; claims LVIS files before COCO does)
analyze         ``vocviewer analyze`` over the families that analyse (``analyze_report``,
                ``analyze_figures``: its JSON, text and SVG figures)
"""

from vocviewer.benchmarks.base import Benchmark, CliOption, EvalOutput
from vocviewer.benchmarks.registry import (
    choose,
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
    "choose",
    "get",
    "looks_like_dataset",
    "open_dataset",
    "open_results",
    "register",
    "registered",
    "unregister",
]
