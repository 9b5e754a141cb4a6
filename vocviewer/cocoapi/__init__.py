"""pycocotools' API on vocviewer's evaluator: ``from vocviewer.cocoapi import COCO, COCOeval``.

A drop-in for training code (detectron2, mmdetection, torchmetrics, scripts) that calls
``COCO`` / ``COCOeval`` every epoch: same classes, attributes, printed lines and numbers, much
faster. ``install()`` makes ``import pycocotools.coco`` (``.cocoeval``, ``.mask``) resolve here.

Modules: ``coco`` (``COCO``), ``cocoeval`` (``COCOeval``, ``Params``), ``mask`` (RLE helpers),
``columns`` (dicts → vocviewer columns), ``compact`` (files read into columns by the compiled
scanner, their dicts decoded on first read), ``engine`` (matching, ``evalImgs``), ``accumulate``
(``accumulate`` over ``evalImgs``, ``summarize``).
"""

from __future__ import annotations

import sys
import types

from vocviewer.cocoapi import mask
from vocviewer.cocoapi.coco import COCO
from vocviewer.cocoapi.cocoeval import COCOeval, Params

__all__ = ["COCO", "COCOeval", "Params", "install", "mask"]


def install() -> None:
    """Make ``pycocotools``, ``pycocotools.coco``, ``pycocotools.cocoeval`` and
    ``pycocotools.mask`` resolve to this package (``sys.modules``), as faster-coco-eval's
    ``init_as_pycocotools`` does. Call it before the code that imports pycocotools."""
    from vocviewer.cocoapi import coco, cocoeval

    package = types.ModuleType("pycocotools")
    package.__doc__ = __doc__
    package.__path__ = []  # a package: ``import pycocotools.coco`` looks in sys.modules first
    package.coco = coco  # type: ignore[attr-defined]
    package.cocoeval = cocoeval  # type: ignore[attr-defined]
    package.mask = mask  # type: ignore[attr-defined]
    sys.modules["pycocotools"] = package
    sys.modules["pycocotools.coco"] = coco
    sys.modules["pycocotools.cocoeval"] = cocoeval
    sys.modules["pycocotools.mask"] = mask
