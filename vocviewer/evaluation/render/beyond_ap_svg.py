"""The frame of the analyses' figures as standalone SVG text (no Qt, no matplotlib): a titled
plot area with a grid, axis labels and a legend on the right (``frame``, ``legend``; ``x_of``,
``y_of``: data to SVG coordinates, y in [0, 1]). Each analysis draws its own figure on it
(``analyses.operating_point.threshold_svg``, ``analyses.calibration.reliability_svg``)."""

from __future__ import annotations

from html import escape as _html_escape

import numpy as np

W, H = 560, 400
LEFT, RIGHT, TOP, BOTTOM = 56.0, 110.0, 36.0, 44.0
PW, PH = W - LEFT - RIGHT, H - TOP - BOTTOM


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities (``xml.sax.saxutils.escape``'s rule; that module
    imports ``urllib.request``, which every command line start would pay for)."""
    return _html_escape(text, quote=False)


def x_of(v: float, lo: float, hi: float) -> float:
    return LEFT + (v - lo) / (hi - lo or 1.0) * PW


def y_of(v: float) -> float:
    return TOP + PH - v * PH


def frame(title: str, xlabel: str, ylabel: str, lo: float, hi: float) -> list[str]:
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{LEFT + PW / 2:.1f}" y="22" text-anchor="middle" font-size="14" '
        f'font-weight="bold" fill="#202124">{escape(title)}</text>',
    ]
    for t in np.linspace(0.0, 1.0, 6):
        xv = lo + t * (hi - lo)
        out.append(
            f'<line x1="{x_of(xv, lo, hi):.2f}" y1="{y_of(0):.2f}" x2="{x_of(xv, lo, hi):.2f}" '
            f'y2="{y_of(1):.2f}" stroke="#e0e0e0"/>'
        )
        out.append(
            f'<line x1="{LEFT:.2f}" y1="{y_of(t):.2f}" x2="{LEFT + PW:.2f}" y2="{y_of(t):.2f}" '
            'stroke="#e0e0e0"/>'
        )
        out.append(
            f'<text x="{x_of(xv, lo, hi):.2f}" y="{y_of(0) + 16:.2f}" text-anchor="middle" '
            f'font-size="11">{xv:.2g}</text>'
        )
        out.append(
            f'<text x="{LEFT - 6:.2f}" y="{y_of(t) + 4:.2f}" text-anchor="end" '
            f'font-size="11">{t:.1f}</text>'
        )
    out.append(
        f'<text x="{LEFT + PW / 2:.1f}" y="{H - 8}" text-anchor="middle" '
        f'font-size="12">{escape(xlabel)}</text>'
    )
    out.append(
        f'<text x="14" y="{TOP + PH / 2:.1f}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 14 {TOP + PH / 2:.1f})">{escape(ylabel)}</text>'
    )
    return out


def legend(items: list[tuple[str, str]]) -> list[str]:
    out = []
    for i, (label, color) in enumerate(items):
        y = TOP + 12 + 18 * i
        x = LEFT + PW + 10
        out.append(
            f'<line x1="{x}" y1="{y}" x2="{x + 18}" y2="{y}" stroke="{color}" stroke-width="2.5"/>'
        )
        out.append(f'<text x="{x + 24}" y="{y + 4}" font-size="11">{escape(label)}</text>')
    return out
