"""Precision/recall figures as standalone SVG text (pure strings, no Qt).

Vector output for papers: the curves are drawn from the evaluation's per-rank precision and recall
(NaN points left out), one colour per result set (or a ``CurveStyle`` per curve: the window's
All-classes plot, its listed classes coloured and named, the rest grey), with axes, grid, ticks, a
title and a legend giving each named curve's AP. Qt's SVG generator loses pyqtgraph's view
transforms, so SVG is written here directly; PNG and PDF come from the on-screen plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

import numpy as np
import numpy.typing as npt

from vocviewer.evaluation.curve_style import LEGEND_CORNERS, CurveStyle

#: Curve colours, in result-set order (as in the window).
COLORS = ("#1f6fb2", "#d81b60", "#f9a825", "#00897b", "#6d4c41", "#5e35b1")


def pr_figure_svg(
    title: str,
    curves: Sequence[tuple[str, npt.ArrayLike, npt.ArrayLike, float]],
    size: tuple[int, int] = (640, 480),
    bands: Sequence[tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike] | None] = (),
    styles: Sequence[CurveStyle] = (),
    legend_corner: str = "upper right",
) -> str:
    """An SVG document of PR curves.

    Parameters
    ----------
    title
        Figure title (the class name).
    curves
        ``(label, recall, precision, ap)`` per result set; recall/precision float (D,) per rank.
    size
        Width and height in CSS pixels (1/96 inch).
    bands
        Optional ``(recall, low, high)`` per curve (or None): a shaded interval band, drawn first.
    styles
        Optional ``CurveStyle`` per curve (default: ``COLORS`` in order, every curve named).
    legend_corner
        One of ``LEGEND_CORNERS``.
    """
    if legend_corner not in LEGEND_CORNERS:
        raise ValueError(f"legend_corner must be one of {LEGEND_CORNERS}, not {legend_corner!r}")
    looks = [
        styles[i] if i < len(styles) else CurveStyle(COLORS[i % len(COLORS)])
        for i in range(len(curves))
    ]
    w, h = size
    left, right, top, bottom = 62.0, 16.0, 36.0, 48.0
    pw, ph = w - left - right, h - top - bottom

    def x(r: float) -> float:
        return left + (r + 0.02) / 1.04 * pw

    def y(p: float) -> float:
        return top + ph - (p + 0.02) / 1.04 * ph

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{left + pw / 2:.1f}" y="22" text-anchor="middle" font-size="15" '
        f'font-weight="bold" fill="#202124">{escape(title)}</text>',
    ]
    for t in np.linspace(0.0, 1.0, 6):
        out.append(
            f'<line x1="{x(t):.2f}" y1="{y(0):.2f}" x2="{x(t):.2f}" y2="{y(1):.2f}" '
            'stroke="#e0e0e0" stroke-width="1"/>'
        )
        out.append(
            f'<line x1="{x(0):.2f}" y1="{y(t):.2f}" x2="{x(1):.2f}" y2="{y(t):.2f}" '
            'stroke="#e0e0e0" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{x(t):.2f}" y="{top + ph + 18:.2f}" text-anchor="middle" '
            f'font-size="11" fill="#202124">{t:.1f}</text>'
        )
        out.append(
            f'<text x="{left - 8:.2f}" y="{y(t) + 4:.2f}" text-anchor="end" '
            f'font-size="11" fill="#202124">{t:.1f}</text>'
        )
    out.append(
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" '
        'stroke="#5f6368" stroke-width="1"/>'
    )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{h - 10}" text-anchor="middle" font-size="12" '
        'fill="#202124">Recall</text>'
    )
    out.append(
        f'<text transform="translate(16 {top + ph / 2:.1f}) rotate(-90)" '
        'text-anchor="middle" font-size="12" fill="#202124">Precision</text>'
    )
    for i, band in enumerate(bands):
        if band is not None:
            r, lo, hi = (np.asarray(v, dtype=np.float64) for v in band)
            ok = np.isfinite(r) & np.isfinite(lo) & np.isfinite(hi)
            ring = [*zip(r[ok], hi[ok], strict=True), *zip(r[ok][::-1], lo[ok][::-1], strict=True)]
            pts = " ".join(f"{x(a):.2f},{y(b):.2f}" for a, b in ring)
            color = COLORS[i % len(COLORS)]
            out.append(f'<polygon points="{pts}" fill="{color}" fill-opacity="0.2" stroke="none"/>')
    named = [i for i, look in enumerate(looks) if look.legend]
    legend_y = top + 18 if legend_corner == "upper right" else top + ph - 18 * len(named) - 4
    lx = left + pw - 230 if legend_corner == "upper right" else left + 14
    order = [i for i, look in enumerate(looks) if not look.legend] + named  # named on top
    legend: list[str] = []  # drawn over every curve
    if named and legend_corner == "lower left":  # over the curves: on a white box
        longest = max(len(curves[i][0]) for i in named) + 11  # "<label>  AP 0.123"
        legend.append(
            f'<rect x="{lx - 8:.1f}" y="{legend_y - 12:.1f}" width="{38 + 7.0 * longest:.1f}" '
            f'height="{18 * len(named) + 6:.1f}" rx="3" fill="white" fill-opacity="0.85" '
            'stroke="#bdc1c6" stroke-width="0.8"/>'
        )
    for i in order:
        label, recall, precision, ap = curves[i]
        color, width, _, opacity = looks[i]
        alpha = f' stroke-opacity="{opacity:g}"' if opacity < 1 else ""
        r = np.asarray(recall, dtype=np.float64)
        p = np.asarray(precision, dtype=np.float64)
        ok = np.isfinite(r) & np.isfinite(p)
        pts = " ".join(f"{x(a):.2f},{y(b):.2f}" for a, b in zip(r[ok], p[ok], strict=True))
        if pts:
            out.append(
                f'<polyline points="{pts}" fill="none" stroke="{color}"{alpha} '
                f'stroke-width="{width:g}" stroke-linejoin="round"/>'
            )
        if i not in named:
            continue
        ly = legend_y + 18 * named.index(i)
        legend.append(
            f'<line x1="{lx:.1f}" y1="{ly:.1f}" x2="{lx + 24:.1f}" y2="{ly:.1f}" '
            f'stroke="{color}" stroke-width="2.2"/>'
        )
        legend.append(
            f'<text x="{lx + 30:.1f}" y="{ly + 4:.1f}" font-size="12" fill="#202124">'
            f"{escape(label)}  AP {ap:.3f}</text>"
        )
    out += legend
    out.append("</svg>")
    return "\n".join(out) + "\n"
