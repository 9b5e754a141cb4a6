"""Primitives of the demo drawings: ``Shape``, the unit ``Frame`` a figure is laid out in, and
drawing into an RGB image or a label mask.

Pillow pixel coordinates (0-based, x right, y down, integer coordinates at pixel centres); shapes
are drawn alike into the picture and into the masks, so boxes and segmentations fit the picture.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

RGB = tuple[int, int, int]
Point = tuple[float, float]
Rng = np.random.Generator


@dataclass(frozen=True)
class Shape:
    """A primitive (ellipse | ring | polygon | line; ``xy`` as ``ImageDraw`` takes it). ``part``
    names a person-layout part ("head", "hand1", "foot2"); ``prop`` marks a held object (phone,
    book, rails...) that belongs to no annotated object: background in the masks."""

    kind: str
    xy: tuple[float, ...]
    fill: RGB
    width: int = 0
    part: str = ""
    prop: bool = False


def shade(c: RGB, f: float) -> RGB:
    """``c`` scaled by ``f`` (darker < 1 < lighter), clipped to 0..255."""
    return (min(255, int(c[0] * f)), min(255, int(c[1] * f)), min(255, int(c[2] * f)))


def draw_shapes(d: ImageDraw.ImageDraw, shapes: Iterable[Shape], value: int | None = None) -> None:
    """Draw ``shapes`` in order, in their colours, or all in ``value`` (label masks)."""
    for s in shapes:
        fill = s.fill if value is None else value
        edge = shade(s.fill, 0.65) if value is None else value
        if s.kind in ("ellipse", "ring"):
            ring = s.kind == "ring"
            d.ellipse(s.xy, None if ring else fill, fill if ring else edge, max(1, s.width))
        elif s.kind == "polygon":
            d.polygon(s.xy, fill=fill, outline=edge)
        else:
            d.line(s.xy, fill=fill, width=s.width, joint="curve")
            r = s.width / 2 - 0.5  # round caps
            for x, y in zip(s.xy[0::2], s.xy[1::2], strict=True) if r >= 1 else ():
                d.ellipse((x - r, y - r, x + r, y + r), fill=fill)


def mask_of(shapes: Iterable[Shape], size: tuple[int, int]) -> np.ndarray:
    """Boolean mask (H, W) of ``shapes`` on an image of ``size = (W, H)``."""
    m = Image.new("L", size, 0)
    draw_shapes(ImageDraw.Draw(m), shapes, 255)
    return np.asarray(m) > 0


class Frame:
    """Maps a figure's unit square (u right, v down) onto the pixel box ``x0, y0, w, h``."""

    def __init__(self, x0: float, y0: float, w: float, h: float, flip: bool = False) -> None:
        self.x0, self.y0, self.w, self.h, self.flip = x0, y0, w, h, flip

    def p(self, u: float, v: float) -> Point:
        return self.x0 + (1 - u if self.flip else u) * self.w, self.y0 + v * self.h

    def poly(self, fill: RGB, *uv: Point) -> Shape:
        return Shape("polygon", tuple(c for q in uv for c in self.p(*q)), fill)

    def rect(self, fill: RGB, u0: float, v0: float, u1: float, v1: float) -> Shape:
        return self.poly(fill, (u0, v0), (u1, v0), (u1, v1), (u0, v1))

    def ell(self, fill: RGB, u: float, v: float, ru: float, rv: float) -> Shape:
        (x, y), rx, ry = self.p(u, v), ru * self.w, rv * self.h
        return Shape("ellipse", (x - rx, y - ry, x + rx, y + ry), fill)

    def circ(self, fill: RGB, u: float, v: float, r: float, ring: float = 0.0) -> Shape:
        """Circle of radius ``r * h``; a ring of width ``ring * h`` if ``ring``."""
        (x, y), rr, wr = self.p(u, v), r * self.h, max(1, round(ring * self.h))
        return Shape("ring" if ring else "ellipse", (x - rr, y - rr, x + rr, y + rr), fill, wr)

    def line(self, fill: RGB, wv: float, *uv: Point) -> Shape:
        xy = tuple(c for q in uv for c in self.p(*q))
        return Shape("line", xy, fill, max(1, round(wv * self.h)))


def pick(rng: Rng, options: Sequence):
    return options[int(rng.integers(len(options)))]


TYRE, HUB, GLASS, DARK = (28, 28, 30), (165, 165, 170), (140, 185, 215), (35, 35, 38)
WOOD = ((140, 90, 50), (95, 62, 35), (180, 130, 80), (120, 75, 45))
VIVID = ((200, 30, 30), (30, 70, 170), (240, 190, 30), (40, 140, 70), (230, 230, 230))
