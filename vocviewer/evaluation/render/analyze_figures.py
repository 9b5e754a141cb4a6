"""Figures of ``vocviewer analyze`` as standalone SVG text (no Qt, no matplotlib).

``tide_svg``: TIDE's breakdown of one result set as horizontal bars (main error types, then the
special FalsePos / FalseNeg), in dAP points. PR curves with bootstrap bands come from
``evaluation.figure_svg.pr_figure_svg`` (``bands``), their legend moved below the axes
(``legend_below``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from xml.sax.saxutils import escape

from vocviewer.evaluation.figure_svg import COLORS

#: Bar colours of TIDE's main error types (as tidecv's palette, in its order), then the special.
TIDE_COLORS = {
    "Cls": "#9c6bd6",
    "Loc": "#f0c52c",
    "Both": "#7fb34c",
    "Dupe": "#4a7ec9",
    "Bkg": "#e86a58",
    "Miss": "#ef8e3b",
    "FalsePos": COLORS[0],
    "FalseNeg": COLORS[1],
}


def tide_svg(
    title: str, main: Mapping[str, float], special: Mapping[str, float], width: int = 560
) -> str:
    """An SVG bar chart of TIDE's dAP (AP points) per error type; negative values drawn as 0."""
    rows = [*main.items(), *special.items()]
    left, right, top, bar, gap = 90.0, 70.0, 40.0, 22.0, 8.0
    split = 14.0  # space between the main and the special bars
    height = int(top + len(rows) * (bar + gap) + split + 30)
    top_value = max([v for _, v in rows if v == v] + [1e-9])
    scale = (width - left - right) / top_value
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.1f}" y="22" text-anchor="middle" font-size="15" '
        f'font-weight="bold" fill="#202124">{escape(title)}</text>',
    ]
    for i, (name, value) in enumerate(rows):
        y = top + i * (bar + gap) + (split if i >= len(main) else 0.0)
        length = max(value, 0.0) * scale if value == value else 0.0
        out.append(
            f'<text x="{left - 8:.1f}" y="{y + bar * 0.7:.1f}" text-anchor="end" font-size="12" '
            f'fill="#202124">{escape(name)}</text>'
        )
        out.append(
            f'<rect x="{left:.1f}" y="{y:.1f}" width="{length:.2f}" height="{bar:.1f}" '
            f'fill="{TIDE_COLORS.get(name, COLORS[2])}"/>'
        )
        out.append(
            f'<text x="{left + length + 6:.1f}" y="{y + bar * 0.7:.1f}" font-size="12" '
            f'fill="#202124">{value:.2f}</text>'
        )
    base_y = height - 22
    out.append(
        f'<line x1="{left:.1f}" y1="{top - 4:.1f}" x2="{left:.1f}" y2="{base_y:.1f}" '
        'stroke="#5f6368" stroke-width="1"/>'
    )
    out.append(
        f'<text x="{left + (width - left - right) / 2:.1f}" y="{height - 6}" '
        'text-anchor="middle" font-size="12" fill="#202124">dAP (AP points, IoU 0.5)</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


_LEGEND_PAIR = re.compile(
    r'<line x1="(?P<x>[-\d.]+)" y1="(?P<y>[-\d.]+)" x2="[-\d.]+" y2="(?P=y)" '
    r'stroke="(?P<color>[^"]+)" stroke-width="2.2"/>\n'
    r'<text [^>]*font-size="12" fill="#202124">(?P<label>[^<]*  AP [^<]*)</text>\n'
)
_SIZE = re.compile(r'width="(?P<w>\d+)" height="(?P<h>\d+)" viewBox="0 0 (?P=w) (?P=h)"')
_BACKGROUND = re.compile(r'<rect width="(?P<w>\d+)" height="(?P<h>\d+)" fill="white"/>')

#: Legend rows below the axes: row height, and the gap above the first row.
LEGEND_ROW, LEGEND_GAP = 18.0, 14.0


def legend_below(svg: str) -> str:
    """A ``pr_figure_svg`` document with its legend (inside the axes' top right corner, where
    good curves pass) moved below the axes and the "Recall" label: the figure grows by one row
    per curve, and no curve or band is covered."""
    pairs = list(_LEGEND_PAIR.finditer(svg))
    size = _SIZE.search(svg)
    if not pairs or size is None:
        return svg
    w, h = int(size["w"]), int(size["h"])
    grown = int(h + LEGEND_GAP + LEGEND_ROW * len(pairs) + 6)
    body = _LEGEND_PAIR.sub("", svg)
    body = _SIZE.sub(f'width="{w}" height="{grown}" viewBox="0 0 {w} {grown}"', body, count=1)
    body = _BACKGROUND.sub(f'<rect width="{w}" height="{grown}" fill="white"/>', body, count=1)
    x = 62.0  # the axes' left edge in ``pr_figure_svg``
    rows = []
    for i, m in enumerate(pairs):
        y = h + LEGEND_GAP + LEGEND_ROW * i - 4
        rows.append(
            f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x + 24:.1f}" y2="{y:.1f}" '
            f'stroke="{m["color"]}" stroke-width="2.2"/>\n'
            f'<text x="{x + 30:.1f}" y="{y + 4:.1f}" font-size="12" fill="#202124">'
            f"{m['label']}</text>\n"
        )
    head, _, _ = body.rpartition("</svg>")
    return head + "".join(rows) + "</svg>\n"
