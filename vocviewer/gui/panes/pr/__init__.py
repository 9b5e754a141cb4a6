"""Precision/recall panes.

Modules
-------
pane
    The precision/recall curve of the selected class; a click selects that detection.
band
    ``PRBand``: the bootstrap band drawn under a curve.
overview
    The All-classes PR plot.
ranks
    The ranked detections around a PR point.
title
    The PR pane's title: its plain text, and whether it fits the pane.
"""
