"""Panes for the protocols beside VOC: the summary numbers (``SummaryPane``) and the captions under
the image (``CaptionBar``). ``window.protocol_controls`` places them in the window, beside the
controls they need (IoU threshold and area choosers, segmentation overlay toggle and opacity).
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vocviewer.families.official import NOT_OFFICIAL, explain, mark
from vocviewer.families.views import view_extras
from vocviewer.gui.models.state import AppState

#: What each summary name means (the first words of pycocotools' / the toolkit's printed lines).
SUMMARY_HELP = {
    "AP": "AP @ IoU .50:.95",
    "AP50": "AP @ IoU .50",
    "AP75": "AP @ IoU .75",
    "APs": "AP, small objects",
    "APm": "AP, medium objects",
    "APl": "AP, large objects",
    "AR": "AR @ IoU .50:.95",
    "AR50": "AR @ IoU .50",
    "AR75": "AR @ IoU .75",
    "AR1": "AR, 1 detection / image",
    "AR10": "AR, 10 detections / image",
    "AR100": "AR, 100 detections / image",
    "AR500": "AR, 500 detections / image",
    "ARs": "AR, small objects",
    "ARm": "AR, medium objects",
    "ARl": "AR, large objects",
}


class SummaryPane(QWidget):
    """The protocol summary (COCO's 12 or 10 numbers, VisDrone's 7), a column per result set."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setMargin(6)
        self.table = QTableWidget(0, 2)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 4)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        self.refresh()

        state.dataset_loaded.connect(self.refresh)
        state.current_results_changed.connect(self.refresh)
        state.evaluation.started.connect(self.refresh)
        state.evaluation.summary_changed.connect(self.refresh)

    def values(self) -> dict[str, float]:
        """The numbers shown (name → value as the protocol computes it)."""
        st = self.state
        if st.current_results < 0 or st.current_results >= len(st.evaluations):
            return {}
        summary = st.evaluations[st.current_results].summary
        return dict(summary.stats) if summary is not None else {}

    def refresh(self, *_args: object) -> None:
        """One value column per result set with a summary (the current one's header bold)."""
        st = self.state
        have = [(i, e.summary) for i, e in enumerate(st.evaluations) if e.summary is not None]
        names = list(dict.fromkeys(k for _, sm in have for k in sm.stats))
        self.table.clear()
        self.table.setColumnCount(len(have) + 2)
        self.table.setRowCount(len(names))
        ev = st.evaluation
        marks = [mark(ev.not_official(i)) for i, _ in have]  # the one rule (families.official)
        sets = [st.results[i].results.name for i, _ in have]
        sets = [f"{n}\n{m}" if m else n for n, m in zip(sets, marks, strict=True)]
        self.table.setHorizontalHeaderLabels(["Metric", *sets, ""])
        for c, (i, _) in enumerate(have, 1):
            header = self.table.horizontalHeaderItem(c)
            font = header.font()
            font.setBold(i == st.current_results)
            header.setFont(font)
            header.setToolTip(explain(ev.not_official(i)))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for r, name in enumerate(names):
            self.table.setItem(r, 0, QTableWidgetItem(name))
            for c, (_, sm) in enumerate(have, 1):
                value = sm.stats.get(name, math.nan)
                text = "—" if math.isnan(value) else f"{value:.3f}"
                if sm.percent and not math.isnan(value):
                    text = f"{value:.2f} %"
                item = QTableWidgetItem(text)
                item.setTextAlignment(right)
                self.table.setItem(r, c, item)
            note = QTableWidgetItem(SUMMARY_HELP.get(name, ""))
            note.setForeground(Qt.GlobalColor.darkGray)
            self.table.setItem(r, len(have) + 1, note)
        current = dict(have).get(st.current_results)
        index = st.current_results if current is not None else (have[0][0] if have else -1)
        shown = current if current is not None else (have[0][1] if have else None)
        reasons = ev.not_official(index)
        self.title.setToolTip(explain(reasons))
        if shown is not None:
            notes = "".join(
                f"<br><span style='color:#c5221f'>{NOT_OFFICIAL}: {html.escape(r.text)}</span>"
                for r in reasons
            )
            self.title.setText(f"<b>{shown.protocol}</b>{notes}")
        elif st.dataset is not None and st.current_results >= 0:
            self.title.setText("Evaluating…")
        else:
            self.title.setText(
                "<span style='color:#5f6368'>The protocol's summary numbers appear here once "
                "results are evaluated.</span>"
            )


class CaptionBar(QLabel):
    """The current image's captions (COCO), one per line, under the image; hidden when none."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setStyleSheet("QLabel { background: #1f2023; color: #e8eaed; padding: 5px 10px; }")
        self.hide()
        state.image_changed.connect(self.refresh)
        state.dataset_loaded.connect(self.refresh)

    def captions(self) -> tuple[str, ...]:
        st = self.state
        if st.dataset is None or st.current_image < 0:
            return ()
        captions = view_extras(st.dataset).captions
        return tuple(captions[st.current_image]) if captions else ()

    def refresh(self, *_args: object) -> None:
        caps = self.captions()
        self.setText("\n".join(f"“{c.strip()}”" for c in caps))
        self.setVisible(bool(caps))
