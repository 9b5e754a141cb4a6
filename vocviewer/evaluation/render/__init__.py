"""Renderings of ``vocviewer analyze``: its report (text, JSON) and SVG figures.

Modules
-------
analyze_characteristics
    Object characteristics in ``vocviewer analyze``.
analyze_curves_svg
    COCO ``analyze()`` figures as standalone SVG text (no Qt, no matplotlib).
analyze_figures
    Figures of ``vocviewer analyze`` as standalone SVG text (no Qt, no matplotlib).
analyze_report
    What ``vocviewer analyze`` returns, shared by its families.
beyond_ap_svg
    The frame (grid, axes, legend) the analyses beyond AP draw their SVG figures on.
"""
