"""Object characteristics in ``vocviewer analyze``: the summary lines and the figure (Hoiem et al.
2012, Fig. 6 style) from ``evaluation.characteristics``; families build the characteristics.

``characteristics_svg``: per characteristic a group of points, one per bin, at the mean
normalised AP over classes with standard-error bars and the value written above; a dashed line
at the overall normalised AP; under each group its name and "sensitivity / impact".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from xml.sax.saxutils import escape

import numpy as np

from vocviewer.evaluation.characteristics import Characteristic
from vocviewer.evaluation.figure_svg import COLORS
from vocviewer.evaluation.render.analyze_report import AnalyzeOutput


def characteristics_text(
    name: str, chars: Mapping[str, Characteristic], width: int = 12
) -> list[str]:
    """One line per characteristic: ``bin=AP_N`` ... and sensitivity / impact."""
    lines = []
    for c in chars.values():
        bins = " ".join(
            f"{b}={v:.3f}" if v == v else f"{b}=-" for b, v in zip(c.bins, c.mean, strict=True)
        )
        lines.append(
            f"  {name:<{width}}  {c.name:<10} {bins}  sensitivity {c.sensitivity:.3f}  "
            f"impact {c.impact:.3f}"
        )
    return lines


def characteristics_svg(title: str, chars: Mapping[str, Characteristic], height: int = 360) -> str:
    """An SVG document of the bin means with standard-error bars (module docstring)."""
    groups = [c for c in chars.values() if len(c.bins)]
    n_points = sum(len(c.bins) for c in groups)
    longest = max((len(b) for c in groups for b in c.bins), default=1)
    left, right, top, bottom, gap = 52.0, 16.0, 40.0, 70.0, 26.0
    step = max(30.0, 6.5 * longest + 8)
    width = int(left + right + n_points * step + max(len(groups) - 1, 0) * gap + 20)
    ph = height - top - bottom

    def y(v: float) -> float:
        return top + (1 - min(max(v, 0.0), 1.0)) * ph

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.1f}" y="22" text-anchor="middle" font-size="14" '
        f'font-weight="bold" fill="#202124">{escape(title)}</text>',
    ]
    for t in np.linspace(0, 1, 6):
        out += [
            f'<line x1="{left:.1f}" y1="{y(t):.1f}" x2="{width - right:.1f}" y2="{y(t):.1f}" '
            'stroke="#e0e0e0" stroke-width="1"/>',
            f'<text x="{left - 6:.1f}" y="{y(t) + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#202124">{t:.1f}</text>',
        ]
    out.append(
        f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" font-size="12" '
        f'fill="#202124" transform="rotate(-90 14 {top + ph / 2:.1f})">normalised AP</text>'
    )
    x = left + 20.0
    for g, c in enumerate(groups):
        color = COLORS[g % len(COLORS)]
        x0 = x
        pts = []
        for b, m, s in zip(c.bins, c.mean, c.se, strict=True):
            if m == m:
                if s == s:
                    out.append(
                        f'<line x1="{x:.1f}" y1="{y(m - s):.1f}" x2="{x:.1f}" y2="{y(m + s):.1f}" '
                        f'stroke="{color}" stroke-width="1.5"/>'
                    )
                pts.append(f"{x:.1f},{y(m):.1f}")
                out += [
                    f'<circle cx="{x:.1f}" cy="{y(m):.1f}" r="3.5" fill="{color}">'
                    f"<title>{escape(f'{c.name} {b}: {m:.3f} ± {s:.3f}')}</title></circle>",
                    f'<text x="{x + 5:.1f}" y="{y(m) - 5:.1f}" font-size="9" '
                    f'fill="#202124">{m:.2f}</text>',
                ]
            out.append(
                f'<text x="{x:.1f}" y="{top + ph + 14:.1f}" text-anchor="middle" font-size="10" '
                f'fill="#202124">{escape(b)}</text>'
            )
            x += step
        if len(pts) > 1:
            out.append(
                f'<polyline points="{" ".join(pts)}" fill="none" stroke="{color}" '
                'stroke-width="1"/>'
            )
        x1 = x - step
        if c.overall == c.overall:
            out.append(
                f'<line x1="{x0 - 8:.1f}" y1="{y(c.overall):.1f}" x2="{x1 + 8:.1f}" '
                f'y2="{y(c.overall):.1f}" stroke="#5f6368" stroke-dasharray="4 3"/>'
            )
        mid = (x0 + x1) / 2
        out += [
            f'<text x="{mid:.1f}" y="{top + ph + 32:.1f}" text-anchor="middle" font-size="12" '
            f'font-weight="bold" fill="#202124">{escape(c.name)}</text>',
            f'<text x="{mid:.1f}" y="{top + ph + 48:.1f}" text-anchor="middle" font-size="9" '
            f'fill="#5f6368">{c.sensitivity:.2f} / {c.impact:.2f}</text>',
        ]
        x += gap
    out.append(
        f'<text x="{width - right:.1f}" y="{height - 6}" text-anchor="end" font-size="10" '
        'fill="#5f6368">mean ± s.e. over classes; dashed: overall; sensitivity / impact</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def with_characteristics(
    out: AnalyzeOutput, per_set: list[tuple[str, dict[str, Characteristic]]], figures: bool
) -> AnalyzeOutput:
    """``out`` with the characteristics' summary lines and (``figures``) one
    ``characteristics_<set>.svg`` per set; the JSON entries are the families' own."""
    if not per_set:
        return out
    lines = ["", "object characteristics: normalised AP per bin (mean over classes)"]
    width = max(12, *(len(n) for n, _ in per_set))
    for name, chars in per_set:
        lines += characteristics_text(name, chars, width)
    figs = (
        [
            (
                f"characteristics_{name}.svg",
                characteristics_svg(f"{name}: object characteristics", c),
            )
            for name, c in per_set
        ]
        if figures
        else []
    )
    return replace(out, text=out.text + "\n".join(lines) + "\n", figures=out.figures + figs)
