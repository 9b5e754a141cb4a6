"""Views for the protocols beside VOC: the summary numbers, the captions under the image, and the
window controls they need (IoU threshold chooser, segmentation overlay toggle and opacity).

``install_protocol_views(window)`` adds them to a ``MainWindow``: the caption bar under the image
view, a "Summary" tab beside the AP table, and toolbar/menu entries.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vocviewer.gui.models.protocol_tasks import COCO_AREAS, IOU_CHOICES
from vocviewer.gui.models.state import AppState

if TYPE_CHECKING:
    from vocviewer.gui.window.main_window import MainWindow

#: What each summary name means (the first words of pycocotools' / the toolkit's printed lines).
SUMMARY_HELP = {
    "AP": "AP @ IoU .50:.95", "AP50": "AP @ IoU .50", "AP75": "AP @ IoU .75",
    "APs": "AP, small objects", "APm": "AP, medium objects", "APl": "AP, large objects",
    "AR": "AR @ IoU .50:.95", "AR50": "AR @ IoU .50", "AR75": "AR @ IoU .75",
    "AR1": "AR, 1 detection / image", "AR10": "AR, 10 detections / image",
    "AR100": "AR, 100 detections / image", "AR500": "AR, 500 detections / image",
    "ARs": "AR, small objects", "ARm": "AR, medium objects", "ARl": "AR, large objects",
}  # fmt: skip


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
        state.evaluation_started.connect(self.refresh)
        state.protocol.summary_changed.connect(self.refresh)

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
        headers = ["Metric"] + [st.results[i].results.name for i, _ in have] + [""]
        self.table.setHorizontalHeaderLabels(headers)
        for c, (i, _) in enumerate(have, 1):
            header = self.table.horizontalHeaderItem(c)
            font = header.font()
            font.setBold(i == st.current_results)
            header.setFont(font)
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
        shown = current if current is not None else (have[0][1] if have else None)
        if shown is not None:
            notes = "".join(f"<br><span style='color:#c5221f'>{n}</span>" for n in shown.notes)
            self.title.setText(f"<b>{shown.protocol}</b>{notes}")
        elif st.protocol.protocol() is not None and st.current_results >= 0:
            self.title.setText("Evaluating…")
        else:
            self.title.setText(
                "<span style='color:#5f6368'>Summary numbers appear here for COCO and VisDrone "
                "results.</span>"
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
        view = st.dataset.extras.get("coco_view") if st.dataset is not None else None
        if view is None or st.current_image < 0:
            return ()
        return tuple(view.captions[st.current_image])

    def refresh(self, *_args: object) -> None:
        caps = self.captions()
        self.setText("\n".join(f"“{c.strip()}”" for c in caps))
        self.setVisible(bool(caps))


def install_protocol_views(window: MainWindow) -> None:
    """Add the caption bar, the summary tab, the IoU chooser and the segmentation controls."""
    st, view = window.state, window.view
    window.captions = CaptionBar(st)
    holder = QWidget()
    box = QVBoxLayout(holder)
    box.setContentsMargins(0, 0, 0, 0)
    box.setSpacing(0)
    window.centre.insertWidget(0, holder)  # adding the view below moves it into the holder
    box.addWidget(view, 1)
    box.addWidget(window.captions)
    window.centre.setStretchFactor(0, 1)
    window.centre.setCollapsible(0, False)
    window.centre.setSizes([600, 200])
    window.summary = SummaryPane(st)
    window.right_tabs = QTabWidget()
    window.right_tabs.setDocumentMode(True)
    window.right.insertWidget(1, window.right_tabs)
    window.right_tabs.addTab(window.ap_table, "AP per class")
    window.right_tabs.addTab(window.summary, "Summary")
    window.right.setSizes([390, 420])

    bar = window.toolbar
    bar.addSeparator()
    window.iou_combo = QComboBox()  # the items say what they are: no labels, the toolbar fits
    for t in IOU_CHOICES:
        window.iou_combo.addItem(f"IoU ≥ {t:.2f}", t)
    window.iou_combo.setToolTip("IoU threshold of the verdicts and curves (COCO, VisDrone)")
    iou_actions = [bar.addWidget(window.iou_combo)]
    window.area_combo = QComboBox()
    for area in COCO_AREAS:
        window.area_combo.addItem(f"Area: {area}", area)
    window.area_combo.setToolTip("COCO area range of the PR curves (verdicts: all areas)")
    area_actions = [bar.addWidget(window.area_combo)]
    window.act_seg = QAction("Segmentation overlay", window)
    window.act_seg.setShortcut(QKeySequence("S"))
    window.act_seg.setCheckable(True)
    window.act_seg.setToolTip("Overlay the VOC segmentation PNG (S)")
    window.act_seg.setIconText("Seg")
    window.addAction(window.act_seg)
    bar.addAction(window.act_seg)
    seg_actions = [window.act_seg]
    window.seg_combo = QComboBox()
    window.seg_combo.addItem("class", "class")
    window.seg_combo.addItem("object", "object")
    window.seg_combo.setToolTip("SegmentationClass or SegmentationObject")
    seg_actions.append(bar.addWidget(window.seg_combo))
    window.seg_opacity = QDoubleSpinBox()
    window.seg_opacity.setRange(0.1, 1.0)
    window.seg_opacity.setSingleStep(0.1)
    window.seg_opacity.setValue(view.seg_opacity)
    window.seg_opacity.setToolTip("Opacity of the segmentation overlay")
    seg_actions.append(bar.addWidget(window.seg_opacity))

    def on_dataset(*_args: object) -> None:  # show the controls that apply to the dataset
        ds = st.dataset
        for act in iou_actions:
            act.setVisible(st.protocol.protocol() in ("coco", "visdrone"))  # ILSVRC: per object
        for act in area_actions:
            act.setVisible(st.protocol.protocol() == "coco")
        has_seg = ds is not None and any(k.startswith("Segmentation/") for k in ds.image_sets)
        for act in seg_actions:
            act.setVisible(has_seg)

    def apply_seg(*_args: object) -> None:
        view.set_segmentation(
            window.seg_combo.currentData() if window.act_seg.isChecked() else None
        )

    def on_iou(i: int) -> None:
        st.protocol.set_iou(float(window.iou_combo.itemData(i)))

    def sync_iou(iou: float) -> None:
        window.iou_combo.setCurrentIndex(max(window.iou_combo.findData(iou), 0))

    on_dataset()
    st.dataset_loaded.connect(on_dataset)
    window.act_seg.toggled.connect(apply_seg)
    window.seg_combo.activated.connect(apply_seg)
    window.seg_opacity.valueChanged.connect(view.set_segmentation_opacity)
    window.iou_combo.activated.connect(on_iou)
    window.area_combo.activated.connect(
        lambda i: st.protocol.set_area(str(window.area_combo.itemData(i)))
    )
    st.protocol.iou_changed.connect(sync_iou)
    st.protocol.evidence_replaced.connect(lambda _i: view.redraw_overlays())
    st.protocol.evidence_replaced.connect(window.side.refresh_image)
