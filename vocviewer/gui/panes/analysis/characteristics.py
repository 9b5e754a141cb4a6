"""``CharacteristicsChart``: the Analysis tab's object characteristics (Hoiem et al.; the
retrospective's §6.2, ``evaluation.characteristics``) — per bin of one characteristic (size,
aspect ratio, truncated, ...) the normalised AP (``AP_N``, eq. 6), averaged over the classes with
objects in the bin with its standard-error bar, or the selected class's own; the dashed line is
the overall ``AP_N``. Clicking a bin lists its objects (of the selected class, or of every class),
the missed ones first — missed or found at the family's analysis threshold, as ``AP_N`` counts
them (``Characteristic.found``); choosing one opens its image with it selected (``MemberList``).
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

from vocviewer.evaluation.characteristics import Characteristic
from vocviewer.gui.models.analysis_tasks import Members
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.analysis.members import MemberList, chart_over_list, fill_with, rich_header
from vocviewer.gui.widgets.plot_theme import fixed_plot, theme_plot
from vocviewer.gui.widgets.verdict_style import MISSED_COLOR

PLACEHOLDER = "Click a bin to list its objects."

#: a bin's half width (bins stand at x = 0, 1, ...)
HALF = 0.35


class CharacteristicsChart(QWidget):
    """One characteristic's bins over the list of the chosen bin's objects."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.header = rich_header()
        self.plot = fixed_plot("normalised AP")
        self.bars = pg.BarGraphItem(x=[], height=[], width=2 * HALF)
        self.errors = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.2)
        self.overall = pg.InfiniteLine(angle=0, movable=False)
        for item in (self.bars, self.errors, self.overall):
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_click)
        self.list = MemberList(state, None, PLACEHOLDER)
        fill_with(self, chart_over_list(self.header, self.plot, self.list))
        self.char: Characteristic | None = None
        self.set_name = ""
        self.bin = -1
        self.heights = np.zeros(0)
        self._ink, self._muted, self._fill = "#000", "#888", QColor("#4477aa")
        self.apply_palette()
        state.class_changed.connect(lambda _k: self.redraw())

    def set_characteristic(self, char: Characteristic | None, set_name: str) -> None:
        """Show ``char`` of result set ``set_name`` (``None``: nothing)."""
        if char is not self.char:
            self.bin = -1
        self.char, self.set_name = char, set_name
        self.redraw()

    def redraw(self) -> None:
        c, k = self.char, self.state.selected_class
        if c is None:
            self.bars.setOpts(x=[], height=[])
            self.errors.setData(x=np.zeros(0), y=np.zeros(0), top=np.zeros(0), bottom=np.zeros(0))
            self.header.setText("")
            self._list()
            return
        x = np.arange(len(c.bins), dtype=float)
        if 0 <= k < len(c.class_names):
            heights, se = c.ap_n[k], np.zeros(len(c.bins))
            what = f"<b>{escape(c.class_names[k])}</b>"
        else:
            heights, se = c.mean, np.nan_to_num(c.se)
            what = "mean over classes ± s.e."
        self.heights = np.nan_to_num(heights)
        pens = [pg.mkPen(self._ink, width=2.5) if b == self.bin else pg.mkPen(None) for b in x]
        brushes = [pg.mkBrush(self._fill if not math.isnan(h) else self._muted) for h in heights]
        self.bars.setOpts(x=x, height=self.heights, width=2 * HALF, pens=pens, brushes=brushes)
        self.errors.setData(
            x=x, y=self.heights, height=None, top=se, bottom=se, pen=pg.mkPen(self._ink)
        )
        self.overall.setPos(c.overall if not math.isnan(c.overall) else 0.0)
        self.overall.setVisible(k < 0 and not math.isnan(c.overall))
        self.plot.getAxis("bottom").setTicks([list(enumerate(c.bins))])
        self.plot.setXRange(-0.6, len(c.bins) - 0.4, padding=0)
        self.plot.setYRange(
            0.0, 1.05 * max(1.0, float(np.max(self.heights + se, initial=0.0))), padding=0
        )
        self.header.setText(
            f"{what} · dashed: overall {c.overall:.3f} · sensitivity {c.sensitivity:.3f} · "
            f"impact {c.impact:.3f}"
        )
        self.header.setToolTip(
            f"{self.set_name}: objects by {c.name}, normalised AP (eq. 6, N = {c.n_pos:.1f} "
            "positives per class); sensitivity: max - min of the bins, impact: max bin - overall"
        )
        self._list()

    def _on_scene_click(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.plot.getPlotItem().getViewBox()
        if self.char is None or not vb.sceneBoundingRect().contains(pos):
            return
        b = round(vb.mapSceneToView(pos).x())
        if 0 <= b < len(self.char.bins) and abs(vb.mapSceneToView(pos).x() - b) <= HALF:
            self.choose_bin(b)

    def bin_scene_pos(self, b: int) -> QPointF:
        """Where bin ``b``'s bar middle lies in scene coordinates (for clicks in tests)."""
        vb = self.plot.getPlotItem().getViewBox()
        h = float(self.heights[b]) if b < len(self.heights) else 0.0
        return vb.mapViewToScene(QPointF(float(b), h / 2))

    def choose_bin(self, b: int) -> None:
        """List bin ``b``'s objects, as a click on it does."""
        self.bin = b
        self.redraw()

    def _list(self) -> None:
        c, b, ds, k = self.char, self.bin, self.state.dataset, self.state.selected_class
        if c is None or ds is None or not 0 <= b < len(c.bins):
            self.list.clear()
            return
        if len(c.obj_bin) != len(ds.objects):
            self.list.clear(f"{c.name} {c.bins[b]}: this family does not say which objects")
            return
        rows = c.objects_in(b, ds.objects.label, k)
        rows = rows[np.argsort(c.found[rows], kind="stable")]  # missed first, then image order
        missed = int(np.count_nonzero(~c.found[rows]))
        cls = f" of {ds.classes[k]}" if k >= 0 else ""
        self.list.show_members(
            Members(rows.astype(np.int64), True),
            f"{c.name} {c.bins[b]}: {len(rows)} objects{cls}, {missed} missed (listed first)",
            f"Objects in bin {c.bins[b]} of {c.name}: missed or found at the analysis threshold "
            "(IoU 0.5), as the normalised AP counts them",
            lambda _r: "",
            None,
            self._object_detail,
        )

    def _object_detail(self, row: int) -> tuple[str, QColor | None]:
        assert self.char is not None
        return ("found", None) if self.char.found[row] else ("missed", MISSED_COLOR)

    def member_rows(self) -> Members:
        """The object rows the list shows, in its order."""
        return self.list.member_rows()

    def apply_palette(self) -> None:
        """Background, axes and bars in the widget palette's colours (the window's theme)."""
        pal = self.palette()
        _, ink, muted = theme_plot(self.plot, pal)
        self._ink, self._muted = ink.name(), muted.name()
        self._fill = pal.color(QPalette.ColorRole.Highlight)
        self.overall.setPen(pg.mkPen(muted, width=1.5, style=Qt.PenStyle.DashLine))
        if hasattr(self, "char"):
            self.redraw()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "char"):
            self.apply_palette()
