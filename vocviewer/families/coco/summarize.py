"""COCOeval's ``summarize()``: its 12 (bbox / segm) or 10 (keypoints) numbers and printed lines
of a ``CocoEvalResult``."""

from __future__ import annotations

from typing import Protocol

from vocviewer.families.coco.params import CocoParams


class CocoEvalResult(Protocol):
    """What the summary reads of ``evaluate.CocoEvalResult``."""

    @property
    def params(self) -> CocoParams: ...

    def ap(self, iou: float | None, area: str, max_dets: int | None) -> float: ...

    def ar(self, iou: float | None, area: str, max_dets: int | None) -> float: ...


def summary_rows(r: CocoEvalResult) -> list[tuple[str, float, str]]:
    """(name, value, printed line) for every ``summarize()`` line."""
    p = r.params
    fmt = " {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}"
    t0, t1 = p.iou_thresholds[0], p.iou_thresholds[-1]

    def row(name: str, ap: bool, iou: float | None, area: str, cap: int) -> tuple[str, float, str]:
        v = r.ap(iou, area, cap) if ap else r.ar(iou, area, cap)
        title = "Average Precision" if ap else "Average Recall"
        kind = "(AP)" if ap else "(AR)"
        ious = f"{t0:0.2f}:{t1:0.2f}" if iou is None else f"{iou:0.2f}"
        return name, v, fmt.format(title, kind, ious, area, cap, v)

    if p.iou_type == "keypoints":
        c = 20
        return [
            row("AP", True, None, "all", c),
            row("AP50", True, 0.5, "all", c),
            row("AP75", True, 0.75, "all", c),
            row("APm", True, None, "medium", c),
            row("APl", True, None, "large", c),
            row("AR", False, None, "all", c),
            row("AR50", False, 0.5, "all", c),
            row("AR75", False, 0.75, "all", c),
            row("ARm", False, None, "medium", c),
            row("ARl", False, None, "large", c),
        ]
    m = p.max_dets
    return [
        row("AP", True, None, "all", 100),
        row("AP50", True, 0.5, "all", m[2]),
        row("AP75", True, 0.75, "all", m[2]),
        row("APs", True, None, "small", m[2]),
        row("APm", True, None, "medium", m[2]),
        row("APl", True, None, "large", m[2]),
        row("AR1", False, None, "all", m[0]),
        row("AR10", False, None, "all", m[1]),
        row("AR100", False, None, "all", m[2]),
        row("ARs", False, None, "small", m[2]),
        row("ARm", False, None, "medium", m[2]),
        row("ARl", False, None, "large", m[2]),
    ]


def summary_lines(result: CocoEvalResult) -> list[str]:
    """The lines ``COCOeval.summarize()`` prints, character for character."""
    return [line for _, _, line in summary_rows(result)]
