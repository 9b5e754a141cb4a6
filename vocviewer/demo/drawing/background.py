"""Textured backgrounds of the demo scenes: sky over a ground (field, street, water, indoor floor)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from vocviewer.demo.drawing.shapes import Rng, pick

SKY = ((95, 145, 215), (185, 212, 238))
#: scene -> (ground colour at the horizon, at the bottom; horizon height / image height)
GROUND = {
    "field": ((120, 165, 70), (70, 125, 40), 0.45),
    "street": ((150, 150, 150), (95, 95, 100), 0.5),
    "water": ((70, 120, 170), (30, 70, 120), 0.5),
    "indoor": ((150, 105, 65), (110, 75, 45), 0.58),
}


def background(kind: str, w: int, h: int, rng: Rng) -> tuple[Image.Image, float]:
    """A textured ``kind`` scene (see ``GROUND``) of ``w x h`` and its horizon row (pixels)."""
    g0, g1, hz = np.array(GROUND[kind][0]), np.array(GROUND[kind][1]), GROUND[kind][2] * h
    hz *= rng.uniform(0.9, 1.1)
    wall = np.array(pick(rng, ((235, 225, 200), (200, 215, 225), (215, 225, 200))))
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
            wall = pick(rng, ((170, 150, 130), (150, 140, 150), (190, 175, 150), (130, 120, 110)))
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
