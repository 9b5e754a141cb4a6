"""Figures of the indoor classes (bottle, chair, dining table, potted plant, sofa, TV monitor), in a
unit ``Frame``.
"""

from __future__ import annotations

import math

import numpy as np

from vocviewer.demo.drawing.shapes import DARK, WOOD, Frame, Rng, Shape, pick, shade


def bottle(f: Frame, rng: Rng) -> list[Shape]:
    g = pick(rng, ((40, 110, 50), (120, 70, 20), (150, 190, 210), (30, 60, 30)))
    label = pick(rng, ((240, 235, 220), (200, 30, 30), (230, 200, 60)))
    return [
        f.poly(
            g,
            (0.02, 0.42),
            (0.3, 0.22),
            (0.7, 0.22),
            (0.98, 0.42),
            (0.98, 0.98),
            (0.9, 1),
            (0.1, 1),
            (0.02, 0.98),
        ),
        f.rect(g, 0.32, 0.05, 0.68, 0.24),
        f.rect((200, 170, 60), 0.29, 0, 0.71, 0.07),
        f.rect(label, 0.02, 0.56, 0.98, 0.8),
        f.line(shade(g, 1.7), 0.03, (0.2, 0.45), (0.2, 0.95)),
    ]


def chair(f: Frame, rng: Rng) -> list[Shape]:
    w = pick(rng, (*WOOD, (60, 60, 65), (170, 40, 40)))
    return [
        f.rect(shade(w, 0.7), 0.22, 0.6, 0.3, 0.94),
        f.rect(shade(w, 0.7), 0.72, 0.6, 0.8, 0.94),
        f.rect(w, 0.06, 0, 0.2, 0.58),
        f.rect(shade(w, 1.2), 0, 0, 0.26, 0.07),
        f.rect(w, 0.04, 0.5, 0.96, 0.6),
        f.rect(w, 0.06, 0.6, 0.16, 1),
        f.rect(w, 0.84, 0.6, 0.94, 1),
    ]


def diningtable(f: Frame, rng: Rng) -> list[Shape]:
    w, cloth = pick(rng, WOOD), pick(rng, (None, None, (240, 240, 235), (200, 50, 50)))
    return [
        f.rect(shade(w, 0.7), 0.2, 0.15, 0.26, 0.88),
        f.rect(shade(w, 0.7), 0.74, 0.15, 0.8, 0.88),
        f.rect(w, 0.05, 0.14, 0.11, 1),
        f.rect(w, 0.89, 0.14, 0.95, 1),
        f.poly(shade(w, 1.2), (0.08, 0), (0.92, 0), (1, 0.14), (0, 0.14)),
        f.rect(w, 0, 0.14, 1, 0.2),
        *([f.poly(cloth, (0, 0.12), (1, 0.12), (1.01, 0.4), (-0.01, 0.4))] if cloth else []),
        *[f.ell((250, 250, 250), u, 0.06, 0.08, 0.04) for u in (0.3, 0.68)],
    ]


def pottedplant(f: Frame, rng: Rng) -> list[Shape]:
    pot = pick(rng, ((190, 90, 50), (170, 70, 40), (220, 220, 215), (60, 90, 140)))
    g = pick(rng, ((40, 130, 50), (60, 150, 40), (30, 100, 60)))
    a = math.pi * (1.08 + 0.105 * np.arange(9) + rng.uniform(-0.04, 0.04, 9))
    d, n = np.stack([np.cos(a), np.sin(a)], 1), np.stack([-np.sin(a), np.cos(a)], 1) * 0.09
    base = np.array([0.5, 0.6])
    mid, tip = base + d * (0.25, 0.3), base + d * rng.uniform(0.8, 1, (9, 1)) * (0.47, 0.6)
    return [  # nine leaves (base, side, tip, side) fanning out of the pot
        *[
            f.poly(
                shade(g, 0.8 + 0.1 * (i % 3)),
                (0.5, 0.6),
                tuple(mid[i] + n[i]),
                tuple(tip[i]),
                tuple(mid[i] - n[i]),
            )
            for i in range(9)
        ],
        f.poly(pot, (0.25, 0.64), (0.75, 0.64), (0.68, 1), (0.32, 1)),
        f.rect(shade(pot, 1.1), 0.21, 0.58, 0.79, 0.66),
    ]


def sofa(f: Frame, rng: Rng) -> list[Shape]:
    c = pick(rng, ((170, 40, 40), (50, 80, 140), (90, 120, 70), (120, 110, 100), (150, 100, 60)))
    return [
        f.rect((50, 35, 25), 0.05, 0.84, 0.1, 1),
        f.rect((50, 35, 25), 0.9, 0.84, 0.95, 1),
        f.rect(c, 0.08, 0.02, 0.92, 0.56),
        f.ell(shade(c, 1.12), 0.3, 0.3, 0.18, 0.22),
        f.ell(shade(c, 1.12), 0.7, 0.3, 0.18, 0.22),
        f.rect(shade(c, 1.05), 0.08, 0.5, 0.92, 0.82),
        f.line(shade(c, 0.7), 0.02, (0.5, 0.52), (0.5, 0.8)),
        f.rect(shade(c, 0.9), 0, 0.26, 0.14, 0.86),
        f.rect(shade(c, 0.9), 0.86, 0.26, 1, 0.86),
        f.ell(shade(c, 0.95), 0.07, 0.26, 0.07, 0.07),
        f.ell(shade(c, 0.95), 0.93, 0.26, 0.07, 0.07),
    ]


def tvmonitor(f: Frame, rng: Rng) -> list[Shape]:
    rim = pick(rng, ((30, 30, 32), (60, 60, 65), (200, 200, 205)))
    scr = pick(rng, ((60, 110, 170), (40, 140, 90), (180, 90, 60), (90, 90, 150)))
    return [
        f.rect(DARK, 0.44, 0.76, 0.56, 0.92),
        f.rect(rim, 0.25, 0.9, 0.75, 1),
        f.rect(rim, 0, 0, 1, 0.78),
        f.rect(scr, 0.05, 0.06, 0.95, 0.72),
        f.poly(shade(scr, 0.7), (0.05, 0.72), (0.4, 0.42), (0.75, 0.72)),
        f.poly(shade(scr, 1.4), (0.05, 0.06), (0.4, 0.06), (0.05, 0.4)),
    ]
