"""``PRBand``: the bootstrap's precision band on the PR plot — after the Analysis tab bootstrapped
the current result set (``AnalysisJobs.outcome``), the band between the low and high percentile of
the interpolated precision at each recall level (IoU 0.5, 101 recall levels;
``BootstrapResult.pr_band``) under the selected class's curve, in the set's colour.

Drawn only where it belongs with the curve: the same dataset, image set and result set, a class
the bootstrap knows, and the window's verdicts at IoU 0.5 on all areas (another IoU or area draws
another curve, so the band is hidden and ``reason`` says why). A checkable action ("Show the
bootstrap band") hides it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QColor

from vocviewer.gui.models.state import AppState

if TYPE_CHECKING:  # (the analyses' models come with the Analysis tab, which makes the outcome)
    from vocviewer.gui.models.analysis_tasks import AnalysisJobs, BootstrapOutcome

#: the band's opacity over the set's colour (0-255)
BAND_ALPHA = 70


class PRBand(QObject):
    """The band items on ``plot`` (a ``PlotItem``) with their ``legend`` entry.

    Signals
    -------
    changed()
        The bootstrap or the toggle changed: the pane should redraw.
    """

    changed = Signal()

    def __init__(self, state: AppState, plot: Any, legend: Any, parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.plot, self.legend = state, plot, legend
        self.low = pg.PlotCurveItem(pen=pg.mkPen(None))
        self.high = pg.PlotCurveItem(pen=pg.mkPen(None))
        self.fill = pg.FillBetweenItem(self.low, self.high, brush=pg.mkBrush("#1f6fb246"))
        self.fill.setZValue(-2)
        for item in (self.low, self.high, self.fill):
            plot.addItem(item)
        self.sample = pg.PlotDataItem([], [], pen=pg.mkPen(None), fillLevel=0.0)
        self.toggle = QAction("Show the bootstrap band")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setStatusTip(
            "Draw the precision band of the last bootstrap (Analysis tab) under the curve"
        )
        self.toggle.toggled.connect(lambda _on: self.changed.emit())
        self.outcome: BootstrapOutcome | None = None
        self.reason = "no bootstrap yet"
        self.shown: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.hide()

    def follow(self, jobs: AnalysisJobs) -> None:
        """Draw the bands of ``jobs``' bootstraps as they finish."""
        jobs.outcome_changed.connect(lambda: self.set_outcome(jobs.outcome))

    def set_outcome(self, outcome: BootstrapOutcome | None) -> None:
        self.outcome = outcome
        self.changed.emit()

    def hide(self) -> None:
        self.shown = None
        for item in (self.low, self.high, self.fill):
            item.setVisible(False)

    def _why_not(self, class_index: int) -> str | None:
        out, st = self.outcome, self.state
        ev = st.evaluation
        if out is None or out.boot.bands is None:
            return "no bootstrap with bands yet"
        from vocviewer.gui.models.analysis_tasks import BAND_IOU

        if not self.toggle.isChecked():
            return "hidden"
        if out.dataset is not st.dataset or out.image_set != ev.image_set:
            return "the bootstrap was of another image set"
        if st.current_results < 0 or out.name_of(st.results[st.current_results].results) is None:
            return "the bootstrap did not include this result set"
        if not math.isclose(ev.verdict_iou(), BAND_IOU) or ev.area != ev.settings.areas[0]:
            return f"the curve is at IoU {ev.verdict_iou():.2f}, area {ev.area}; the band at 0.5"
        if st.dataset is None or st.dataset.classes[class_index] not in out.boot.bands.class_names:
            return "the bootstrap has no band for this class"
        return None

    def draw(self, class_index: int, color: str) -> None:
        """Draw the band of ``class_index`` of the current result set in ``color``, if it
        belongs with the curve (else hide it; ``reason`` says why)."""
        self.hide()
        why = self._why_not(class_index)
        self.reason = why or ""
        if why is not None:
            return
        out, st = self.outcome, self.state
        assert out is not None and out.boot.bands is not None and st.dataset is not None
        name = out.name_of(st.results[st.current_results].results)
        assert name is not None
        cls = st.dataset.classes[class_index]
        grid, _point, lo, hi = out.boot.bands.pr_band(name, cls, out.boot.level)
        keep = np.flatnonzero(np.nan_to_num(hi) > 0)
        end = int(keep[-1]) + 1 if len(keep) else 0
        x, lo, hi = grid[:end], np.nan_to_num(lo[:end]), np.nan_to_num(hi[:end])
        self.shown = (x, lo, hi)
        brush = QColor(color)
        brush.setAlpha(BAND_ALPHA)
        self.low.setData(x, lo)
        self.high.setData(x, hi)
        self.fill.setBrush(pg.mkBrush(brush))
        r = out.boot.bands
        tip = (
            f"{out.boot.level:.0%} bootstrap band of {name}'s precision at IoU 0.5 for {cls}: "
            f"percentiles over {r.replicates} resamplings of the images (seed {r.seed}), at "
            f"{len(r.recall_grid)} recall levels; precision counts as 0 at a recall level a "
            "resample does not reach"
        )
        self.fill.setToolTip(tip)
        for item in (self.low, self.high, self.fill):
            item.setVisible(True)
        self.sample.setFillBrush(pg.mkBrush(brush))
        self.legend.addItem(self.sample, f"{out.boot.level:.0%} bootstrap band (IoU 0.5)")
