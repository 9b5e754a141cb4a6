"""COCO ``analyze()`` figures as standalone SVG text (no Qt, no matplotlib).

``analysis_svg``: the classic plot of the COCO API's ``analyze`` — the seven nested PR curves
C75, C50, Loc, Sim, Oth, BG, FN stacked as filled areas (each band between a curve and the one
below it, in the official colours: white, white, blue, red, green, purple, orange), every curve
a thin black line, and a legend giving each curve's area as ``[.xxx] C75``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

import numpy as np
import numpy.typing as npt

#: Fill colours of the bands below each curve, as the official plots (``CocoEval.m``).
CURVE_COLORS = {
    "C75": "#ffffff",
    "C50": "#ffffff",
    "Loc": "#4f82bd",
    "Sim": "#bf4f4d",
    "Oth": "#5ce661",
    "BG": "#8063a3",
    "FN": "#ff9900",
}


def area_label(area: float) -> str:
    """``[.xxx]`` as the official legend writes an area (``[1.00]`` for 1)."""
    return "[1.00]" if area >= 0.9995 else f"[{area:.3f}]".replace("[0.", "[.")


def analysis_svg(
    title: str,
    recall: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    areas: Mapping[str, float],
    size: tuple[int, int] = (560, 480),
) -> str:
    """An SVG document of ``analyze()``'s stacked curves.

    recall : float (R,) in [0, 1]; ``curves``: name -> precision float (R,), in nesting order
    (lowest first, ``CURVE_NAMES``); ``areas``: name -> area under the curve (its legend)."""
    w, h = size
    left, right, top, bottom = 58.0, 18.0, 36.0, 50.0
    pw, ph = w - left - right, h - top - bottom
    r = np.asarray(recall, dtype=np.float64)
    xs = left + np.clip(r, 0, 1) * pw

    def ys(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return top + (1 - np.clip(np.nan_to_num(p), 0, 1)) * ph

    def points(x: Sequence[float], y: Sequence[float]) -> str:
        return " ".join(f"{a:.2f},{b:.2f}" for a, b in zip(x, y, strict=True))

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{left + pw / 2:.1f}" y="22" text-anchor="middle" font-size="14" '
        f'fill="#202124">{escape(title)}</text>',
    ]
    lower = np.zeros_like(r)
    lines = []
    for name, values in curves.items():
        upper = np.maximum(np.asarray(values, dtype=np.float64), lower)
        x = [*xs.tolist(), *xs[::-1].tolist()]
        y = [*ys(upper).tolist(), *ys(lower)[::-1].tolist()]
        out.append(
            f'<polygon points="{points(x, y)}" fill="{CURVE_COLORS.get(name, "#cccccc")}" '
            f'stroke="none"><title>{escape(name)}</title></polygon>'
        )
        lines.append(
            f'<polyline points="{points(xs.tolist(), ys(upper).tolist())}" fill="none" '
            'stroke="black" stroke-width="0.7"/>'
        )
        lower = upper
    out += lines
    out += _axes(left, top, pw, ph, h)
    out += _legend(left + 8, top + ph - 8 - 18 * len(curves), curves, areas)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _axes(left: float, top: float, pw: float, ph: float, h: int) -> list[str]:
    """Frame, ticks at 0, .2, ..., 1 and the axis labels."""
    out = [
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{pw:.1f}" height="{ph:.1f}" fill="none" '
        'stroke="#202124" stroke-width="1"/>'
    ]
    for t in np.linspace(0, 1, 6):
        x, y = left + t * pw, top + (1 - t) * ph
        out += [
            f'<line x1="{x:.1f}" y1="{top + ph:.1f}" x2="{x:.1f}" y2="{top + ph + 4:.1f}" '
            'stroke="#202124"/>',
            f'<text x="{x:.1f}" y="{top + ph + 17:.1f}" text-anchor="middle" font-size="11" '
            f'fill="#202124">{t:.1f}</text>',
            f'<line x1="{left - 4:.1f}" y1="{y:.1f}" x2="{left:.1f}" y2="{y:.1f}" '
            'stroke="#202124"/>',
            f'<text x="{left - 7:.1f}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#202124">{t:.1f}</text>',
        ]
    out += [
        f'<text x="{left + pw / 2:.1f}" y="{h - 12}" text-anchor="middle" font-size="12" '
        'fill="#202124">recall</text>',
        f'<text x="16" y="{top + ph / 2:.1f}" text-anchor="middle" font-size="12" '
        f'fill="#202124" transform="rotate(-90 16 {top + ph / 2:.1f})">precision</text>',
    ]
    return out


def _legend(
    x: float, y: float, curves: Mapping[str, npt.ArrayLike], areas: Mapping[str, float]
) -> list[str]:
    """The official legend: a swatch and ``[.xxx] NAME`` per curve, C75 on top."""
    out = [
        f'<rect x="{x:.1f}" y="{y - 6:.1f}" width="118" height="{18 * len(curves) + 6}" '
        'fill="white" fill-opacity="0.9" stroke="#5f6368" stroke-width="0.8"/>'
    ]
    for i, name in enumerate(curves):
        row = y + i * 18
        out += [
            f'<rect x="{x + 6:.1f}" y="{row:.1f}" width="22" height="11" '
            f'fill="{CURVE_COLORS.get(name, "#cccccc")}" stroke="black" stroke-width="0.7"/>',
            f'<text x="{x + 34:.1f}" y="{row + 10:.1f}" font-size="12" fill="#202124">'
            f"{area_label(areas[name])} {escape(name)}</text>",
        ]
    return out
