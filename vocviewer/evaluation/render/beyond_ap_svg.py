"""Figures of the analyses beyond AP as standalone SVG text (no Qt, no matplotlib):
``threshold_svg`` (precision, recall, F1 and F-beta against the score threshold, the best
threshold marked) and ``reliability_svg`` (the reliability diagram: per confidence bin its
precision as a bar, the diagonal of perfect calibration, the bin's mean confidence as a dot)."""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

import numpy as np

from vocviewer.evaluation.analyses.calibration import Calibration
from vocviewer.evaluation.analyses.operating_point import ThresholdCurve

W, H = 560, 400
LEFT, RIGHT, TOP, BOTTOM = 56.0, 110.0, 36.0, 44.0
PW, PH = W - LEFT - RIGHT, H - TOP - BOTTOM
COLORS = {"precision": "#1f6fb2", "recall": "#d81b60", "F1": "#00897b", "F-beta": "#f9a825"}


def _x(v: float, lo: float, hi: float) -> float:
    return LEFT + (v - lo) / (hi - lo or 1.0) * PW


def _y(v: float) -> float:
    return TOP + PH - v * PH


def _frame(title: str, xlabel: str, ylabel: str, lo: float, hi: float) -> list[str]:
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
            f'<line x1="{_x(xv, lo, hi):.2f}" y1="{_y(0):.2f}" x2="{_x(xv, lo, hi):.2f}" '
            f'y2="{_y(1):.2f}" stroke="#e0e0e0"/>'
        )
        out.append(
            f'<line x1="{LEFT:.2f}" y1="{_y(t):.2f}" x2="{LEFT + PW:.2f}" y2="{_y(t):.2f}" '
            'stroke="#e0e0e0"/>'
        )
        out.append(
            f'<text x="{_x(xv, lo, hi):.2f}" y="{_y(0) + 16:.2f}" text-anchor="middle" '
            f'font-size="11">{xv:.2g}</text>'
        )
        out.append(
            f'<text x="{LEFT - 6:.2f}" y="{_y(t) + 4:.2f}" text-anchor="end" '
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


def _legend(items: list[tuple[str, str]]) -> list[str]:
    out = []
    for i, (label, color) in enumerate(items):
        y = TOP + 12 + 18 * i
        x = LEFT + PW + 10
        out.append(
            f'<line x1="{x}" y1="{y}" x2="{x + 18}" y2="{y}" stroke="{color}" stroke-width="2.5"/>'
        )
        out.append(f'<text x="{x + 24}" y="{y + 4}" font-size="11">{escape(label)}</text>')
    return out


def threshold_svg(title: str, curve: ThresholdCurve, best: int | None) -> str:
    """Precision, recall, F1 (and F-beta if beta is not 1) against the score threshold (x: the
    scores' range, at least [0, 1]); a dashed line at the best threshold."""
    t = curve.thresholds
    lo = min(0.0, float(t.min())) if len(t) else 0.0
    hi = max(1.0, float(t.max())) if len(t) else 1.0
    out = _frame(title, "score threshold", "rate", lo, hi)
    series = [("precision", curve.precision), ("recall", curve.recall), ("F1", curve.f1)]
    if curve.beta != 1:
        series.append(("F-beta", curve.fbeta))
    legend = []
    for name, ys in series:
        pts = [
            f"{_x(float(a), lo, hi):.2f},{_y(float(b)):.2f}"
            for a, b in zip(t, ys, strict=True)
            if not math.isnan(b)
        ]
        if pts:
            out.append(
                f'<polyline points="{" ".join(pts)}" fill="none" stroke="{COLORS[name]}" '
                'stroke-width="2"/>'
            )
        label = f"F{curve.beta:g}" if name == "F-beta" else name
        legend.append((label, COLORS[name]))
    if best is not None:
        xb = _x(float(t[best]), lo, hi)
        out.append(
            f'<line x1="{xb:.2f}" y1="{_y(0):.2f}" x2="{xb:.2f}" y2="{_y(1):.2f}" '
            'stroke="#202124" stroke-dasharray="4 3"/>'
        )
        legend.append((f"best {float(t[best]):.3f}", "#202124"))
    out += _legend(legend)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def reliability_svg(title: str, cal: Calibration) -> str:
    """The reliability diagram of ``cal``: bars of each bin's precision, the diagonal, the
    bins' mean confidence as dots; D-ECE and D-MCE in the legend."""
    out = _frame(title, "confidence", "precision (matched)", 0.0, 1.0)
    out.append(
        f'<line x1="{_x(0, 0, 1):.2f}" y1="{_y(0):.2f}" x2="{_x(1, 0, 1):.2f}" y2="{_y(1):.2f}" '
        'stroke="#9e9e9e" stroke-dasharray="4 3"/>'
    )
    e = cal.edges
    for b in range(len(cal.count)):
        p = cal.precision[b]
        if math.isnan(p):
            continue
        x0, x1 = _x(float(e[b]), 0, 1), _x(float(e[b + 1]), 0, 1)
        out.append(
            f'<rect x="{x0 + 1:.2f}" y="{_y(float(p)):.2f}" width="{x1 - x0 - 2:.2f}" '
            f'height="{_y(0) - _y(float(p)):.2f}" fill="#1f6fb2" fill-opacity="0.75"/>'
        )
        c = cal.confidence[b]
        out.append(
            f'<circle cx="{_x(float(c), 0, 1):.2f}" cy="{_y(float(c)):.2f}" r="3" fill="#d81b60"/>'
        )
    ece = "-" if math.isnan(cal.d_ece) else f"{cal.d_ece:.4f}"
    mce = "-" if math.isnan(cal.d_mce) else f"{cal.d_mce:.4f}"
    out += _legend([("precision", "#1f6fb2"), ("confidence", "#d81b60")])
    out.append(f'<text x="{LEFT + PW + 10}" y="{TOP + 60}" font-size="11">D-ECE {ece}</text>')
    out.append(f'<text x="{LEFT + PW + 10}" y="{TOP + 76}" font-size="11">D-MCE {mce}</text>')
    out.append(f'<text x="{LEFT + PW + 10}" y="{TOP + 92}" font-size="11">n {cal.n}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
