"""The SVG PR figure is well-formed and draws exactly the finite (recall, precision) points."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from vocviewer.evaluation.figure_svg import pr_figure_svg

NS = "{http://www.w3.org/2000/svg}"


def test_curves_legend_and_nan_points():
    svg = pr_figure_svg(
        "dog <&>",
        [("A", [0.0, 0.5, 1.0], [math.nan, 1.0, 0.5], 0.75), ("B", [], [], 0.0)],
        size=(400, 300),
    )
    root = ET.fromstring(svg.encode())
    assert root.get("width") == "400" and root.get("height") == "300"
    lines = root.findall(f"{NS}polyline")
    assert len(lines) == 1  # B has no points; A's NaN precision is left out
    points = lines[0].get("points").split()
    assert len(points) == 2
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "dog <&>" in texts
    assert "A  AP 0.750" in texts and "B  AP 0.000" in texts
    # recall 0.5 / precision 1.0 and recall 1.0 / precision 0.5 map monotonically into the plot
    (x1, y1), (x2, y2) = (tuple(map(float, p.split(","))) for p in points)
    assert x2 > x1 and y2 > y1  # SVG y grows downwards
