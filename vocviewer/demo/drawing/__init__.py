"""Pillow drawings for the demo dataset: textured backgrounds and a simple figure per VOC class.

A figure is a list of ``Shape`` (``shapes``) laid out facing right in a unit ``Frame``. Modules:
``shapes`` (primitives, frames, drawing into images and masks), ``vehicles``, ``indoor``,
``animals`` (a figure function per class), ``person`` (poses, riders, props), ``background``.
"""

from __future__ import annotations

from collections.abc import Callable

from vocviewer.demo.drawing import animals, indoor, vehicles
from vocviewer.demo.drawing.shapes import Frame, Rng, Shape

#: Per class: figure width / height, and figure height / image height at mid depth.
FIGURE_SIZE: dict[str, tuple[float, float]] = {
    "aeroplane": (2.4, 0.22),
    "bicycle": (1.65, 0.28),
    "bird": (1.3, 0.1),
    "boat": (0.95, 0.45),
    "bottle": (0.36, 0.2),
    "bus": (2.3, 0.4),
    "car": (2.1, 0.26),
    "cat": (1.2, 0.17),
    "chair": (0.55, 0.36),
    "cow": (1.5, 0.32),
    "diningtable": (1.7, 0.3),
    "dog": (1.35, 0.2),
    "horse": (1.25, 0.42),
    "motorbike": (1.6, 0.3),
    "person": (0.36, 0.5),
    "pottedplant": (0.75, 0.3),
    "sheep": (1.35, 0.22),
    "sofa": (2.0, 0.34),
    "train": (3.2, 0.32),
    "tvmonitor": (1.25, 0.24),
}

#: class -> figure function ``(frame, rng) -> shapes`` (persons: ``person.person``).
FIGURES: dict[str, Callable[[Frame, Rng], list[Shape]]] = {
    c: next(getattr(m, c) for m in (vehicles, indoor, animals) if hasattr(m, c))
    for c in FIGURE_SIZE
    if c != "person"
}
