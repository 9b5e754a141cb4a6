"""Figures of the vehicle classes (car, bus, train, bicycle, motorbike, aeroplane, boat), facing right
in a unit ``Frame``.
"""

from __future__ import annotations

from dataclasses import replace

from vocviewer.demo.drawing.shapes import (
    DARK,
    GLASS,
    HUB,
    TYRE,
    VIVID,
    Frame,
    Rng,
    Shape,
    pick,
    shade,
)


def car(f: Frame, rng: Rng) -> list[Shape]:
    c = pick(rng, (*VIVID, (45, 45, 50)))
    return [
        f.poly(
            c,
            (0, 0.42),
            (0.05, 0.35),
            (0.27, 0.32),
            (0.37, 0.05),
            (0.7, 0.05),
            (0.84, 0.32),
            (0.98, 0.37),
            (1, 0.72),
            (0, 0.74),
        ),
        f.poly(GLASS, (0.4, 0.11), (0.52, 0.11), (0.52, 0.32), (0.31, 0.32)),
        f.poly(GLASS, (0.56, 0.11), (0.68, 0.11), (0.8, 0.32), (0.56, 0.32)),
        f.rect((250, 235, 140), 0.94, 0.41, 1, 0.5),
        f.rect((190, 20, 20), 0, 0.44, 0.03, 0.53),
        f.rect(shade(c, 0.6), 0, 0.64, 1, 0.7),
        f.line(shade(c, 0.6), 0.015, (0.54, 0.33), (0.54, 0.64)),
        *[q for u in (0.2, 0.8) for q in (f.circ(TYRE, u, 0.76, 0.24), f.circ(HUB, u, 0.76, 0.11))],
    ]


def bus(f: Frame, rng: Rng) -> list[Shape]:
    c = pick(rng, VIVID)
    return [
        f.poly(c, (0, 0.03), (0.95, 0.03), (1, 0.14), (1, 0.86), (0, 0.86)),
        f.rect(shade(c, 0.7), 0, 0.62, 1, 0.67),
        f.rect(DARK, 0.88, 0.07, 0.99, 0.15),
        f.rect(GLASS, 0.9, 0.19, 0.99, 0.56),
        f.rect(shade(GLASS, 0.8), 0.78, 0.19, 0.86, 0.83),
        *[f.rect(GLASS, 0.03 + i * 0.125, 0.19, 0.13 + i * 0.125, 0.5) for i in range(6)],
        *[
            q
            for u in (0.16, 0.68)
            for q in (f.circ(TYRE, u, 0.86, 0.14), f.circ(HUB, u, 0.86, 0.065))
        ],
    ]


def train(f: Frame, rng: Rng) -> list[Shape]:
    c, rails = pick(rng, VIVID), (((90, 70, 50), 0.05, 0.99), ((130, 130, 135), 0.025, 0.97))
    return [
        *[replace(f.line(col, wv, (-9, v), (9, v)), prop=True) for col, wv, v in rails],
        f.rect((120, 120, 125), 0.08, 0, 0.85, 0.07),
        f.poly(c, (0, 0.07), (0.9, 0.07), (0.97, 0.2), (1, 0.45), (1, 0.88), (0, 0.88)),
        f.rect(shade(c, 0.6), 0, 0.6, 1, 0.66),
        f.poly(GLASS, (0.91, 0.14), (0.96, 0.22), (0.985, 0.42), (0.91, 0.42)),
        *[f.rect(GLASS, 0.03 + i * 0.09, 0.22, 0.09 + i * 0.09, 0.45) for i in range(9)],
        *[f.circ(TYRE, u, 0.9, 0.1) for u in (0.1, 0.19, 0.71, 0.8)],
    ]


def bicycle(f: Frame, rng: Rng) -> list[Shape]:
    c = pick(rng, (*VIVID[:4], (20, 20, 20)))
    rh, fh, cr, st, hd = (0.2, 0.7), (0.8, 0.7), (0.45, 0.72), (0.36, 0.3), (0.7, 0.28)
    return [
        f.circ(TYRE, *rh, 0.28, ring=0.06),
        f.circ(TYRE, *fh, 0.28, ring=0.06),
        f.line(c, 0.05, rh, cr, st, rh),
        f.line(c, 0.05, cr, hd, st),
        f.line(c, 0.05, hd, fh),
        f.line(DARK, 0.04, hd, (0.68, 0.14), (0.6, 0.13)),
        f.line(DARK, 0.035, st, (0.35, 0.21)),
        f.ell(DARK, 0.35, 0.2, 0.07, 0.035),
        f.circ(HUB, *cr, 0.06),
    ]


def motorbike(f: Frame, rng: Rng) -> list[Shape]:
    c = pick(rng, (*VIVID[:3], (25, 25, 25), (240, 140, 20)))
    return [
        *[
            f.circ(col, u, 0.7, r)
            for u in (0.2, 0.82)
            for col, r in ((TYRE, 0.3), (HUB, 0.17), (TYRE, 0.07))
        ],
        f.line((170, 170, 175), 0.05, (0.35, 0.74), (0.04, 0.6)),
        f.poly((75, 75, 80), (0.33, 0.55), (0.6, 0.52), (0.62, 0.75), (0.38, 0.78)),
        f.poly(
            c, (0.28, 0.42), (0.42, 0.3), (0.62, 0.28), (0.74, 0.38), (0.62, 0.52), (0.33, 0.56)
        ),
        f.poly(DARK, (0.12, 0.4), (0.42, 0.3), (0.44, 0.37), (0.16, 0.48)),
        f.line(HUB, 0.045, (0.72, 0.3), (0.82, 0.7)),
        f.ell((250, 240, 170), 0.8, 0.3, 0.04, 0.06),
        f.line(DARK, 0.035, (0.64, 0.12), (0.7, 0.14), (0.74, 0.3)),
    ]


def aeroplane(f: Frame, rng: Rng) -> list[Shape]:
    c, t = pick(rng, ((235, 235, 240), (210, 215, 225))), pick(rng, (*VIVID[:4], (240, 160, 20)))
    return [
        f.poly(shade(t, 0.8), (0.5, 0.4), (0.6, 0.4), (0.5, 0.14), (0.45, 0.14)),
        f.poly(t, (0, 0.02), (0.1, 0.02), (0.22, 0.4), (0.05, 0.42)),
        f.poly(
            c,
            (0.04, 0.36),
            (0.85, 0.36),
            (0.93, 0.39),
            (1, 0.5),
            (0.93, 0.62),
            (0.85, 0.64),
            (0.12, 0.64),
            (0, 0.44),
        ),
        f.rect(t, 0.1, 0.55, 0.88, 0.58),
        f.poly((60, 80, 110), (0.88, 0.41), (0.94, 0.42), (0.96, 0.48), (0.88, 0.48)),
        f.poly(shade(c, 0.85), (0.42, 0.56), (0.58, 0.56), (0.44, 1), (0.34, 1)),
        f.ell(HUB, 0.47, 0.76, 0.06, 0.07),
        *[f.circ((70, 90, 120), 0.2 + i * 0.06, 0.46, 0.025) for i in range(11)],
    ]


def boat(f: Frame, rng: Rng) -> list[Shape]:
    hull = pick(rng, ((150, 40, 30), (30, 50, 120), (240, 240, 240), (120, 80, 40)))
    sail = pick(rng, ((250, 250, 245), (240, 230, 200), (230, 80, 60)))
    return [
        f.line((110, 80, 50), 0.02, (0.46, 0), (0.46, 0.72)),
        f.poly(sail, (0.48, 0.02), (0.48, 0.68), (0.92, 0.68)),
        f.poly(shade(sail, 0.9), (0.44, 0.1), (0.44, 0.68), (0.1, 0.68)),
        f.poly(hull, (0, 0.7), (1, 0.7), (0.86, 1), (0.1, 1)),
        f.rect(shade(hull, 0.6), 0, 0.76, 1, 0.8),
    ]
