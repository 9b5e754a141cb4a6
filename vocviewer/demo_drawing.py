"""Pillow drawings for the demo dataset: textured backgrounds and a simple figure per VOC class.

A figure is a list of ``Shape`` in Pillow pixel coordinates (0-based, x right, y down, integer
coordinates at pixel centres), drawn alike into the RGB image and into label masks, so boxes and
segmentations fit the picture. Figures are laid out facing right in a unit ``Frame``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image, ImageDraw

RGB = tuple[int, int, int]
Point = tuple[float, float]
Rng = np.random.Generator

#: Per class: figure width / height, and figure height / image height at mid depth.
FIGURE_SIZE: dict[str, tuple[float, float]] = {
    "aeroplane": (2.4, .22), "bicycle": (1.65, .28), "bird": (1.3, .1), "boat": (.95, .45),
    "bottle": (.36, .2), "bus": (2.3, .4), "car": (2.1, .26), "cat": (1.2, .17),
    "chair": (.55, .36), "cow": (1.5, .32), "diningtable": (1.7, .3), "dog": (1.35, .2),
    "horse": (1.25, .42), "motorbike": (1.6, .3), "person": (.36, .5), "pottedplant": (.75, .3),
    "sheep": (1.35, .22), "sofa": (2.0, .34), "train": (3.2, .32), "tvmonitor": (1.25, .24),
}  # fmt: skip


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


def _pick(rng: Rng, options: Sequence):
    return options[int(rng.integers(len(options)))]


TYRE, HUB, GLASS, DARK = (28, 28, 30), (165, 165, 170), (140, 185, 215), (35, 35, 38)
WOOD = ((140, 90, 50), (95, 62, 35), (180, 130, 80), (120, 75, 45))
VIVID = ((200, 30, 30), (30, 70, 170), (240, 190, 30), (40, 140, 70), (230, 230, 230))


def _car(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, (*VIVID, (45, 45, 50)))
    return [
        f.poly(c, (0, .42), (.05, .35), (.27, .32), (.37, .05), (.7, .05), (.84, .32), (.98, .37),
               (1, .72), (0, .74)),
        f.poly(GLASS, (.4, .11), (.52, .11), (.52, .32), (.31, .32)),
        f.poly(GLASS, (.56, .11), (.68, .11), (.8, .32), (.56, .32)),
        f.rect((250, 235, 140), .94, .41, 1, .5), f.rect((190, 20, 20), 0, .44, .03, .53),
        f.rect(shade(c, .6), 0, .64, 1, .7), f.line(shade(c, .6), .015, (.54, .33), (.54, .64)),
        *[q for u in (.2, .8) for q in (f.circ(TYRE, u, .76, .24), f.circ(HUB, u, .76, .11))],
    ]  # fmt: skip


def _bus(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, VIVID)
    return [
        f.poly(c, (0, .03), (.95, .03), (1, .14), (1, .86), (0, .86)),
        f.rect(shade(c, .7), 0, .62, 1, .67), f.rect(DARK, .88, .07, .99, .15),
        f.rect(GLASS, .9, .19, .99, .56), f.rect(shade(GLASS, .8), .78, .19, .86, .83),
        *[f.rect(GLASS, .03 + i * .125, .19, .13 + i * .125, .5) for i in range(6)],
        *[q for u in (.16, .68) for q in (f.circ(TYRE, u, .86, .14), f.circ(HUB, u, .86, .065))],
    ]  # fmt: skip


def _train(f: Frame, rng: Rng) -> list[Shape]:
    c, rails = _pick(rng, VIVID), (((90, 70, 50), 0.05, 0.99), ((130, 130, 135), 0.025, 0.97))
    return [
        *[replace(f.line(col, wv, (-9, v), (9, v)), prop=True) for col, wv, v in rails],
        f.rect((120, 120, 125), .08, 0, .85, .07),
        f.poly(c, (0, .07), (.9, .07), (.97, .2), (1, .45), (1, .88), (0, .88)),
        f.rect(shade(c, .6), 0, .6, 1, .66),
        f.poly(GLASS, (.91, .14), (.96, .22), (.985, .42), (.91, .42)),
        *[f.rect(GLASS, .03 + i * .09, .22, .09 + i * .09, .45) for i in range(9)],
        *[f.circ(TYRE, u, .9, .1) for u in (.1, .19, .71, .8)],
    ]  # fmt: skip


def _bicycle(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, (*VIVID[:4], (20, 20, 20)))
    rh, fh, cr, st, hd = (0.2, 0.7), (0.8, 0.7), (0.45, 0.72), (0.36, 0.3), (0.7, 0.28)
    return [
        f.circ(TYRE, *rh, .28, ring=.06), f.circ(TYRE, *fh, .28, ring=.06),
        f.line(c, .05, rh, cr, st, rh), f.line(c, .05, cr, hd, st), f.line(c, .05, hd, fh),
        f.line(DARK, .04, hd, (.68, .14), (.6, .13)), f.line(DARK, .035, st, (.35, .21)),
        f.ell(DARK, .35, .2, .07, .035), f.circ(HUB, *cr, .06),
    ]  # fmt: skip


def _motorbike(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, (*VIVID[:3], (25, 25, 25), (240, 140, 20)))
    return [
        *[f.circ(col, u, .7, r) for u in (.2, .82) for col, r in ((TYRE, .3), (HUB, .17),
                                                                  (TYRE, .07))],
        f.line((170, 170, 175), .05, (.35, .74), (.04, .6)),
        f.poly((75, 75, 80), (.33, .55), (.6, .52), (.62, .75), (.38, .78)),
        f.poly(c, (.28, .42), (.42, .3), (.62, .28), (.74, .38), (.62, .52), (.33, .56)),
        f.poly(DARK, (.12, .4), (.42, .3), (.44, .37), (.16, .48)),
        f.line(HUB, .045, (.72, .3), (.82, .7)), f.ell((250, 240, 170), .8, .3, .04, .06),
        f.line(DARK, .035, (.64, .12), (.7, .14), (.74, .3)),
    ]  # fmt: skip


def _aeroplane(f: Frame, rng: Rng) -> list[Shape]:
    c, t = _pick(rng, ((235, 235, 240), (210, 215, 225))), _pick(rng, (*VIVID[:4], (240, 160, 20)))
    return [
        f.poly(shade(t, .8), (.5, .4), (.6, .4), (.5, .14), (.45, .14)),
        f.poly(t, (0, .02), (.1, .02), (.22, .4), (.05, .42)),
        f.poly(c, (.04, .36), (.85, .36), (.93, .39), (1, .5), (.93, .62), (.85, .64), (.12, .64),
               (0, .44)),
        f.rect(t, .1, .55, .88, .58), f.poly((60, 80, 110), (.88, .41), (.94, .42), (.96, .48),
                                             (.88, .48)),
        f.poly(shade(c, .85), (.42, .56), (.58, .56), (.44, 1), (.34, 1)),
        f.ell(HUB, .47, .76, .06, .07),
        *[f.circ((70, 90, 120), .2 + i * .06, .46, .025) for i in range(11)],
    ]  # fmt: skip


def _boat(f: Frame, rng: Rng) -> list[Shape]:
    hull = _pick(rng, ((150, 40, 30), (30, 50, 120), (240, 240, 240), (120, 80, 40)))
    sail = _pick(rng, ((250, 250, 245), (240, 230, 200), (230, 80, 60)))
    return [
        f.line((110, 80, 50), .02, (.46, 0), (.46, .72)),
        f.poly(sail, (.48, .02), (.48, .68), (.92, .68)),
        f.poly(shade(sail, .9), (.44, .1), (.44, .68), (.1, .68)),
        f.poly(hull, (0, .7), (1, .7), (.86, 1), (.1, 1)), f.rect(shade(hull, .6), 0, .76, 1, .8),
    ]  # fmt: skip


def _bottle(f: Frame, rng: Rng) -> list[Shape]:
    g = _pick(rng, ((40, 110, 50), (120, 70, 20), (150, 190, 210), (30, 60, 30)))
    label = _pick(rng, ((240, 235, 220), (200, 30, 30), (230, 200, 60)))
    return [
        f.poly(g, (.02, .42), (.3, .22), (.7, .22), (.98, .42), (.98, .98), (.9, 1), (.1, 1),
               (.02, .98)),
        f.rect(g, .32, .05, .68, .24), f.rect((200, 170, 60), .29, 0, .71, .07),
        f.rect(label, .02, .56, .98, .8), f.line(shade(g, 1.7), .03, (.2, .45), (.2, .95)),
    ]  # fmt: skip


def _chair(f: Frame, rng: Rng) -> list[Shape]:
    w = _pick(rng, (*WOOD, (60, 60, 65), (170, 40, 40)))
    return [
        f.rect(shade(w, .7), .22, .6, .3, .94), f.rect(shade(w, .7), .72, .6, .8, .94),
        f.rect(w, .06, 0, .2, .58), f.rect(shade(w, 1.2), 0, 0, .26, .07),
        f.rect(w, .04, .5, .96, .6), f.rect(w, .06, .6, .16, 1), f.rect(w, .84, .6, .94, 1),
    ]  # fmt: skip


def _diningtable(f: Frame, rng: Rng) -> list[Shape]:
    w, cloth = _pick(rng, WOOD), _pick(rng, (None, None, (240, 240, 235), (200, 50, 50)))
    return [
        f.rect(shade(w, .7), .2, .15, .26, .88), f.rect(shade(w, .7), .74, .15, .8, .88),
        f.rect(w, .05, .14, .11, 1), f.rect(w, .89, .14, .95, 1),
        f.poly(shade(w, 1.2), (.08, 0), (.92, 0), (1, .14), (0, .14)), f.rect(w, 0, .14, 1, .2),
        *([f.poly(cloth, (0, .12), (1, .12), (1.01, .4), (-.01, .4))] if cloth else []),
        *[f.ell((250, 250, 250), u, .06, .08, .04) for u in (.3, .68)],
    ]  # fmt: skip


def _pottedplant(f: Frame, rng: Rng) -> list[Shape]:
    pot = _pick(rng, ((190, 90, 50), (170, 70, 40), (220, 220, 215), (60, 90, 140)))
    g = _pick(rng, ((40, 130, 50), (60, 150, 40), (30, 100, 60)))
    a = math.pi * (1.08 + 0.105 * np.arange(9) + rng.uniform(-0.04, 0.04, 9))
    d, n = np.stack([np.cos(a), np.sin(a)], 1), np.stack([-np.sin(a), np.cos(a)], 1) * 0.09
    base = np.array([0.5, 0.6])
    mid, tip = base + d * (0.25, 0.3), base + d * rng.uniform(0.8, 1, (9, 1)) * (0.47, 0.6)
    return [  # nine leaves (base, side, tip, side) fanning out of the pot
        *[f.poly(shade(g, .8 + .1 * (i % 3)), (.5, .6), tuple(mid[i] + n[i]), tuple(tip[i]),
                 tuple(mid[i] - n[i])) for i in range(9)],
        f.poly(pot, (.25, .64), (.75, .64), (.68, 1), (.32, 1)),
        f.rect(shade(pot, 1.1), .21, .58, .79, .66),
    ]  # fmt: skip


def _sofa(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, ((170, 40, 40), (50, 80, 140), (90, 120, 70), (120, 110, 100), (150, 100, 60)))
    return [
        f.rect((50, 35, 25), .05, .84, .1, 1), f.rect((50, 35, 25), .9, .84, .95, 1),
        f.rect(c, .08, .02, .92, .56), f.ell(shade(c, 1.12), .3, .3, .18, .22),
        f.ell(shade(c, 1.12), .7, .3, .18, .22), f.rect(shade(c, 1.05), .08, .5, .92, .82),
        f.line(shade(c, .7), .02, (.5, .52), (.5, .8)), f.rect(shade(c, .9), 0, .26, .14, .86),
        f.rect(shade(c, .9), .86, .26, 1, .86), f.ell(shade(c, .95), .07, .26, .07, .07),
        f.ell(shade(c, .95), .93, .26, .07, .07),
    ]  # fmt: skip


def _tvmonitor(f: Frame, rng: Rng) -> list[Shape]:
    rim = _pick(rng, ((30, 30, 32), (60, 60, 65), (200, 200, 205)))
    scr = _pick(rng, ((60, 110, 170), (40, 140, 90), (180, 90, 60), (90, 90, 150)))
    return [
        f.rect(DARK, .44, .76, .56, .92), f.rect(rim, .25, .9, .75, 1), f.rect(rim, 0, 0, 1, .78),
        f.rect(scr, .05, .06, .95, .72), f.poly(shade(scr, .7), (.05, .72), (.4, .42), (.75, .72)),
        f.poly(shade(scr, 1.4), (.05, .06), (.4, .06), (.05, .4)),
    ]  # fmt: skip


def _bird(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, ((170, 60, 40), (60, 90, 160), (120, 90, 60), (40, 40, 40), (230, 200, 40)))
    belly, leg = _pick(rng, ((230, 200, 170), (240, 240, 230))), (200, 130, 40)
    perched = rng.random() < 0.5
    legs = [f.line(leg, 0.03, (0.42, 0.68), (0.42, 1)), f.line(leg, 0.03, (0.52, 0.68), (0.54, 1))]
    return [
        *(legs if perched else []),
        f.poly(shade(c, .8), (.22, .45), (0, .36), (0, .64), (.22, .6)),
        f.ell(c, .45, .52, .3, .2), f.ell(belly, .5, .6, .2, .11), f.circ(c, .74, .32, .17),
        f.poly((240, 160, 30), (.84, .27), (1, .34), (.84, .4)), f.circ(DARK, .8, .29, .03),
        f.poly(shade(c, .7), (.25, .45), (.62, .48), (.18, .62)) if perched else
        f.poly(shade(c, .7), (.3, .45), (.62, .45), (.35, 0)),  # folded, or raised in flight
    ]  # fmt: skip


def _dog(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, ((150, 100, 50), (220, 180, 110), (45, 38, 32), (235, 230, 220), (120, 80, 60)))
    return [
        f.rect(shade(c, .7), .28, .5, .35, .97), f.rect(shade(c, .7), .66, .5, .73, .97),
        f.line(c, .07, (.16, .42), (.06, .28), (.04, .12)), f.ell(c, .45, .45, .32, .17),
        f.rect(c, .18, .5, .26, 1), f.rect(c, .58, .5, .66, 1),
        f.poly(c, (.64, .42), (.72, .22), (.82, .3), (.78, .5)), f.circ(c, .8, .24, .16),
        f.ell(c, .92, .31, .08, .08), f.circ(DARK, .99, .28, .035),
        f.ell(shade(c, .55), .73, .32, .05, .15), f.circ(DARK, .84, .2, .025),
    ]  # fmt: skip


def _cat(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, ((130, 130, 135), (220, 140, 60), (35, 35, 35), (240, 240, 235), (150, 110, 80)))
    d, eye = shade(c, 0.7), _pick(rng, ((120, 200, 80), (230, 190, 40)))
    return [
        f.line(c, .06, (.15, .62), (.05, .42), (.06, .18), (.13, .06)),
        f.rect(d, .3, .65, .36, .97), f.rect(d, .64, .65, .7, .97), f.ell(c, .45, .64, .3, .16),
        f.rect(c, .2, .68, .27, 1), f.rect(c, .56, .68, .63, 1), f.circ(c, .8, .35, .17),
        f.poly(c, (.69, .28), (.68, .05), (.79, .2)), f.poly(c, (.81, .2), (.92, .05), (.92, .28)),
        f.ell(eye, .755, .31, .025, .035), f.ell(eye, .845, .31, .025, .035),
        f.poly((230, 130, 140), (.785, .39), (.815, .39), (.8, .42)),
    ]  # fmt: skip


def _cow(f: Frame, rng: Rng) -> list[Shape]:
    c, spot = _pick(rng, (((245, 245, 240), DARK), ((140, 80, 40), (240,) * 3),
                          ((60, 40, 30), (230,) * 3), ((200, 150, 90), (120, 70, 30))))  # fmt: skip
    return [
        f.rect(shade(c, .75), .26, .55, .32, .96), f.rect(shade(c, .75), .66, .55, .72, .96),
        f.line(c, .025, (.1, .3), (.05, .7)), f.ell(DARK, .05, .72, .025, .05),
        f.poly(c, (.12, .24), (.2, .2), (.74, .19), (.8, .3), (.79, .6), (.14, .64), (.1, .45)),
        f.ell(spot, .35, .35, .1, .09), f.ell(spot, .56, .48, .08, .07),
        f.ell(spot, .2, .5, .05, .07), f.ell((240, 170, 180), .62, .65, .06, .05),
        f.rect(c, .14, .55, .21, 1), f.rect(c, .7, .55, .77, 1),
        f.rect(DARK, .14, .95, .21, 1), f.rect(DARK, .7, .95, .77, 1),
        f.poly((235, 225, 200), (.82, .25), (.86, .1), (.88, .23)),
        f.poly(c, (.76, .22), (.9, .23), (1, .46), (.97, .53), (.88, .53), (.8, .4)),
        f.ell((220, 170, 160), .955, .49, .045, .05), f.ell(c, .79, .28, .05, .03),
        f.circ(DARK, .9, .32, .025),
    ]  # fmt: skip


def _horse(f: Frame, rng: Rng) -> list[Shape]:
    c = _pick(rng, ((120, 70, 35), (60, 40, 25), (30, 25, 20), (230, 225, 215), (160, 110, 60)))
    mane, d = (30, 25, 20) if sum(c) > 200 else (150, 130, 110), shade(c, 0.75)
    return [
        f.line(d, .05, (.3, .5), (.28, .97)), f.line(d, .05, (.66, .5), (.7, .97)),
        f.poly(mane, (.17, .34), (.08, .5), (.05, .74), (.12, .72), (.21, .44)),
        f.ell(c, .44, .42, .3, .14), f.poly(c, (.62, .38), (.7, .1), (.8, .1), (.78, .42)),
        f.poly(c, (.7, .08), (.8, .04), (.99, .2), (.97, .27), (.9, .27), (.77, .18)),
        f.line(mane, .04, (.71, .07), (.64, .36)), f.poly(c, (.73, .07), (.75, 0), (.77, .06)),
        f.line(c, .055, (.22, .5), (.22, .97)), f.line(c, .055, (.64, .5), (.64, .97)),
        f.rect(DARK, .195, .95, .245, 1), f.rect(DARK, .615, .95, .665, 1),
        f.circ(DARK, .82, .12, .02),
    ]  # fmt: skip


def _sheep(f: Frame, rng: Rng) -> list[Shape]:
    wool = _pick(rng, ((238, 235, 222), (225, 220, 205), (205, 200, 190)))
    face = _pick(rng, ((30, 30, 30), (70, 60, 55), (45, 40, 38)))
    puffs = ((.2, .42), (.35, .3), (.52, .3), (.66, .4), (.55, .58), (.36, .6), (.2, .56),
             (.45, .45))  # fmt: skip
    return [
        f.line(face, .04, (.3, .6), (.3, .98)), f.line(face, .04, (.66, .6), (.66, .98)),
        *[f.ell(shade(wool, .92 + .03 * (i % 3)), *uv, .12, .16) for i, uv in enumerate(puffs)],
        f.line(face, .045, (.24, .6), (.24, 1)), f.line(face, .045, (.6, .62), (.6, 1)),
        f.ell(face, .84, .42, .09, .15), f.ell(face, .74, .3, .06, .04),
        f.ell(wool, .8, .26, .07, .07), f.circ((230, 230, 220), .88, .38, .02),
    ]  # fmt: skip


#: class -> figure function ``(frame, rng) -> shapes`` (persons: ``person``).
FIGURES = {c: globals()[f"_{c}"] for c in FIGURE_SIZE if c != "person"}

# Person skeletons: (x, y) per joint of _JOINTS in body heights from the hip, +x = facing
# direction; limb 1 = left / far, limb 2 = right / near. PROFILE poses are side views.
_JOINTS = ("head", "el1", "ha1", "el2", "ha2", "kn1", "ft1", "kn2", "ft2")
_LEGS = (-0.05, 0.24, -0.06, 0.47, 0.05, 0.24, 0.06, 0.47)
_POSES = {
    "other": (0, -.42, -.12, -.15, -.13, .02, .12, -.15, .13, .02, *_LEGS),
    "other_nohands": (0, -.42, -.11, -.14, -.075, -.01, .11, -.14, .075, -.01, *_LEGS),
    "walking": (.02, -.42, -.05, -.16, -.09, -.03, .05, -.16, .1, -.03,
                -.04, .24, -.12, .46, .07, .23, .13, .47),
    "running": (.07, -.41, -.07, -.14, -.02, -.04, .13, -.18, .17, -.3,
                -.06, .22, -.2, .36, .16, .12, .12, .33),
    "jumping": (0, -.42, -.15, -.44, -.2, -.58, .15, -.44, .2, -.58,
                -.12, .16, -.09, .33, .12, .16, .09, .33),
    "phoning": (0, -.42, -.12, -.15, -.13, .02, .15, -.22, .085, -.4, *_LEGS),
    "takingphoto": (0, -.42, -.15, -.25, -.075, -.4, .15, -.25, .075, -.4, *_LEGS),
    "reading": (0, -.42, -.13, -.13, -.1, -.2, .13, -.13, .1, -.2, *_LEGS),
    "playinginstrument": (0, -.42, -.14, -.2, -.18, -.3, .13, -.12, .04, -.1, *_LEGS),
    "usingcomputer": (.02, -.42, .04, -.12, .15, -.07, .06, -.12, .17, -.06,
                      -.01, .24, -.02, .47, .02, .24, .03, .47),
}  # fmt: skip
PROFILE = ("walking", "running", "usingcomputer", "ridingbike", "ridinghorse")
#: Where a rider sits on a vehicle figure (unit coords): seat, grip, foot; rider / vehicle height.
RIDE = {
    "bicycle": ((.35, .17), (.62, .13), (.47, .78), 1.25),
    "motorbike": ((.3, .35), (.66, .13), (.45, .68), 1.2),
    "horse": ((.42, .27), (.67, .2), (.48, .62), .85),
}  # fmt: skip
SKIN = ((240, 200, 170), (220, 170, 130), (170, 120, 80), (110, 75, 50))
HAIR = ((40, 30, 20), (90, 60, 30), (200, 160, 90), (20, 20, 20), (150, 150, 150))
PANTS = ((40, 50, 90), (30, 30, 30), (90, 80, 70), (60, 90, 60), (150, 130, 100))


def _props(f: Frame, action: str) -> list[Shape]:
    """Held objects hinting at the action (background in the masks), in body-frame units."""
    paper, wood = (245, 245, 240), (200, 130, 60)
    props = {
        "phoning": [f.rect(DARK, .065, -.46, .105, -.36)],
        "takingphoto": [f.rect(DARK, -.07, -.45, .07, -.36), f.circ(HUB, 0, -.405, .028)],
        "reading": [f.rect((150, 40, 40), -.13, -.28, .13, -.13),
                    f.rect(paper, -.12, -.27, -.006, -.14), f.rect(paper, .006, -.27, .12, -.14)],
        "playinginstrument": [f.line((90, 55, 30), .03, (-.05, -.17), (-.24, -.33)),
                              f.ell(wood, .03, -.07, .1, .075), f.ell(wood, -.03, -.15, .075, .06),
                              f.circ(DARK, 0, -.11, .025)],
        "usingcomputer": [f.line(HUB, .025, (.08, -.05), (.34, -.05)),
                          f.line(DARK, .02, (.34, -.05), (.38, -.25))],
    }  # fmt: skip
    return [replace(s, prop=True) for s in props.get(action, [])]


def rider_joints(grip: Point, foot: Point) -> dict[str, Point]:
    """Skeleton of a seated rider, hip at the seat; ``grip``/``foot`` in body heights from it."""
    el, kn = ((0.09 + grip[0]) / 2, grip[1] / 2 - 0.105), (foot[0] / 2 + 0.12, foot[1] / 2 - 0.06)
    return {"head": (.12, -.41), "el1": el, "ha1": (grip[0] - .02, grip[1] - .01), "el2": el,
            "ha2": grip, "kn1": kn, "ft1": (foot[0] - .06, foot[1] - .04), "kn2": kn,
            "ft2": foot}  # fmt: skip


def person(f: Frame, pose: str, rng: Rng, joints: dict | None = None) -> list[Shape]:
    """A person in ``pose`` (a VOC action, "other_nohands", or ``joints``) around the hip: ``f``
    has its origin at the hip and ``w = h =`` body height (``Frame(hx - H if flip else hx, hy, H,
    H, flip)``). Head, hand and foot shapes carry ``part`` tags; held props ``prop=True``."""
    p = _POSES.get(pose, _POSES["other"])
    j = joints or dict(zip(_JOINTS, zip(p[0::2], p[1::2], strict=True), strict=True))
    skin, shirt, hair, pants = (_pick(rng, c) for c in (SKIN, (*VIVID, DARK), HAIR, PANTS))
    side = pose in PROFILE
    ws, wh = (0.065, 0.06) if side else (0.1, 0.075)
    hx, (x, y) = (0.0 if side else wh * 0.6), j["head"]
    nx, ny = 0.75 * x, 0.75 * y
    eyes = ((x + 0.04, y),) if side else ((x - 0.025, y), (x + 0.025, y))
    return [
        f.line(shade(pants, .85), .075, (-hx, 0), j["kn1"], j["ft1"]),
        f.line(pants, .075, (hx, 0), j["kn2"], j["ft2"]),
        f.poly(shirt, (nx - ws, ny + .01), (nx + ws, ny + .01), (wh, .05), (-wh, .05)),
        f.line(shade(shirt, .9), .055, (nx - .8 * ws, ny + .03), j["el1"], j["ha1"]),
        f.line(shirt, .055, (nx + .8 * ws, ny + .03), j["el2"], j["ha2"]),
        replace(f.ell(hair, x - (.014 if side else 0), y - .022, .078, .062), part="head"),
        replace(f.circ(skin, x, y + .006, .068), part="head"),
        *[replace(f.circ(DARK, *e, .009), part="head") for e in (eyes if f.h > 70 else ())],
        *_props(f, pose),
        *[replace(f.circ(skin, *j[f"ha{i}"], .028), part=f"hand{i}")
          for i in ((1, 2) if pose != "other_nohands" else ())],
        *[replace(f.ell(DARK, j[f"ft{i}"][0] + (.025 if side else .024 * i - .036),
                        j[f"ft{i}"][1] + .005, .045, .022), part=f"foot{i}") for i in (1, 2)],
    ]  # fmt: skip


SKY = ((95, 145, 215), (185, 212, 238))
#: scene -> (ground colour at the horizon, at the bottom; horizon height / image height)
GROUND = {
    "field": ((120, 165, 70), (70, 125, 40), .45), "street": ((150, 150, 150), (95, 95, 100), .5),
    "water": ((70, 120, 170), (30, 70, 120), .5), "indoor": ((150, 105, 65), (110, 75, 45), .58),
}  # fmt: skip


def background(kind: str, w: int, h: int, rng: Rng) -> tuple[Image.Image, float]:
    """A textured ``kind`` scene (see ``GROUND``) of ``w x h`` and its horizon row (pixels)."""
    g0, g1, hz = np.array(GROUND[kind][0]), np.array(GROUND[kind][1]), GROUND[kind][2] * h
    hz *= rng.uniform(0.9, 1.1)
    wall = np.array(_pick(rng, ((235, 225, 200), (200, 215, 225), (215, 225, 200))))
    top, mid = (wall, wall * 0.9) if kind == "indoor" else map(np.array, SKY)
    y = np.arange(h, dtype=np.float32)[:, None]
    col = np.where(y < hz, top + (mid - top) * y / hz, g0 + (g1 - g0) * (y - hz) / (h - hz))
    lo = rng.normal(0, 1, (h // 24 + 2, w // 24 + 2)).astype(np.float32)
    blot = np.asarray(Image.fromarray(lo).resize((w, h), Image.Resampling.BILINEAR))
    arr = col[:, None, :] + (np.where(y < hz, 4.0, 12.0) * blot)[..., None]
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(img)
    for _ in range(int(rng.integers(1, 4)) if kind != "indoor" else 0):  # clouds
        cx, cy, r = rng.uniform(0, w), rng.uniform(0.05, 0.6) * hz, rng.uniform(0.04, 0.08) * w
        for dx, dy, k in ((-1.2, 0.2, 0.8), (0, 0, 1), (1.1, 0.25, 0.75), (0.3, 0.4, 0.9)):
            x, y0 = cx + dx * r, cy + dy * r
            d.ellipse((x - k * r, y0 - 0.6 * k * r, x + k * r, y0 + 0.6 * k * r), fill=(245,) * 3)
    if kind == "field":  # hills
        for cx, rw in rng.uniform(0, 1, (2, 2)) * (w, 0.3 * w) + (0, 0.3 * w):
            d.ellipse((cx - rw, hz - 0.12 * h, cx + rw, hz + 0.12 * h), fill=(100, 145, 60))
    elif kind == "street":  # houses with windows, pavement, lane markings
        x = rng.uniform(-0.1, 0) * w
        while x < w:
            bw, bh = rng.uniform(0.12, 0.25) * w, rng.uniform(0.12, 0.32) * h
            wall = _pick(rng, ((170, 150, 130), (150, 140, 150), (190, 175, 150), (130, 120, 110)))
            d.rectangle((x, hz - bh, x + bw, hz), fill=wall)
            for wx in np.arange(x + 6, x + bw - 10, 16):
                for wy in np.arange(hz - bh + 6, hz - 12, 18):
                    d.rectangle((wx, wy, wx + 7, wy + 9), fill=(120, 150, 175))
            x += bw + rng.uniform(0, 0.05) * w
        d.rectangle((0, hz, w, hz + 0.05 * h), fill=(185, 180, 175))
        for x0 in np.arange(rng.uniform(-40, 0), w, 60):
            d.rectangle((x0, (hz + h) / 2 - 2, x0 + 30, (hz + h) / 2 + 2), fill=(235, 235, 225))
    elif kind == "water":  # far shore, ripples
        d.rectangle((0, hz - 0.03 * h, w, hz), fill=(90, 120, 80))
        for x0, y0, dx in rng.uniform(0, 1, (70, 3)) * (w, h - hz - 4, 17) + (0, hz + 4, 8):
            d.line((x0, y0, x0 + dx, y0), fill=(140, 180, 215), width=1)
    else:  # a window, skirting board and floor boards
        (wx, ww), y0, y1 = rng.uniform((0.1, 0.2), (0.6, 0.3)) * w, 0.12 * h, hz - 0.12 * h
        d.rectangle((wx, y0, wx + ww, y1), fill=(250, 250, 250))
        d.rectangle((wx + 5, y0 + 5, wx + ww - 5, y1 - 5), fill=(170, 205, 235))
        d.line((wx + ww / 2, y0, wx + ww / 2, y1), fill=(250, 250, 250), width=4)
        d.rectangle((0, hz - 6, w, hz), fill=(240, 240, 235))
        for yy in hz + (h - hz) * (np.arange(1, 8) / 8) ** 1.6:
            d.line((0, yy, w, yy), fill=(95, 62, 38))
    return img, hz
