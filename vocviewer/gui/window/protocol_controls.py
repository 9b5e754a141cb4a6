"""The window's places for the protocols beside VOC: the caption bar under the image, a "Summary"
tab beside the AP table, and the toolbar's IoU, area and segmentation controls.

``ProtocolControls`` is a mixin of ``MainWindow``; ``build_protocol_controls`` runs once the
layout, the toolbar and the side panel exist, and shows each control only for the datasets it
applies to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QMainWindow,
    QMenu,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from vocviewer.families.views import ViewSettings
from vocviewer.gui.panes.protocol_views import CaptionBar, SummaryPane

if TYPE_CHECKING:
    from vocviewer.gui.models.state import AppState
    from vocviewer.gui.panes.image_view import ImageView
    from vocviewer.gui.panes.side_panel import SidePanel
    from vocviewer.gui.panes.tables import ApTable


class ProtocolControls(QMainWindow):
    """Captions, the summary tab and the IoU / area / segmentation controls of the window."""

    state: AppState
    view: ImageView
    side: SidePanel
    ap_table: ApTable
    centre: QSplitter
    right: QSplitter
    toolbar: QToolBar
    eval_toolbar: QToolBar
    view_menu: QMenu
    after_toggles: QAction

    def build_protocol_controls(self) -> None:
        """Add the caption bar, the summary tab, the IoU chooser and the segmentation controls."""
        st, view = self.state, self.view
        self.captions = CaptionBar(st)
        holder = QWidget()
        box = QVBoxLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        self.centre.insertWidget(0, holder)  # adding the view below moves it into the holder
        box.addWidget(view, 1)
        box.addWidget(self.captions)
        self.centre.setStretchFactor(0, 1)
        self.centre.setCollapsible(0, False)
        self.centre.setSizes([600, 200])
        self.summary = SummaryPane(st)
        self.right_tabs = QTabWidget()
        self.right_tabs.setDocumentMode(True)
        self.right.insertWidget(1, self.right_tabs)
        self.right_tabs.addTab(self.ap_table, "AP per class")
        self.right_tabs.addTab(self.summary, "Summary")
        self.right.setSizes([370, 445])

        bar = self.eval_toolbar
        bar.addSeparator()
        self.iou_combo = QComboBox()  # the items say what they are: no labels, the toolbar fits
        self.iou_combo.setToolTip("IoU threshold of the verdicts and curves")
        iou_actions = [bar.addWidget(self.iou_combo)]
        self.area_combo = QComboBox()
        self.area_combo.setToolTip("Area range of the PR curves (verdicts: all areas)")
        area_actions = [bar.addWidget(self.area_combo)]
        self.act_seg = QAction("Segmentation overlay", self)
        self.act_seg.setShortcut(QKeySequence("S"))
        self.act_seg.setCheckable(True)
        self.act_seg.setToolTip("Overlay the VOC segmentation PNG (S)")
        self.act_seg.setStatusTip("Draw the image's VOC segmentation PNG over it (class or object)")
        self.act_seg.setIconText("Seg")
        self.addAction(self.act_seg)
        self.view_menu.insertAction(self.after_toggles, self.act_seg)
        bar.addAction(self.act_seg)
        seg_actions = [self.act_seg]
        self.seg_combo = QComboBox()
        self.seg_combo.addItem("class", "class")
        self.seg_combo.addItem("object", "object")
        self.seg_combo.setToolTip(
            "SegmentationClass or SegmentationObject (ground truth), or the current result set's"
            " label PNGs (result)"
        )
        seg_actions.append(bar.addWidget(self.seg_combo))
        self.seg_opacity = QDoubleSpinBox()
        self.seg_opacity.setRange(0.1, 1.0)
        self.seg_opacity.setSingleStep(0.1)
        self.seg_opacity.setValue(view.seg_opacity)
        self.seg_opacity.setToolTip("Opacity of the segmentation overlay")
        seg_actions.append(bar.addWidget(self.seg_opacity))

        def on_dataset(*_args: object) -> None:  # show the choices the family offers
            ds, ev = st.dataset, st.evaluation
            fill_choices(self.iou_combo, iou_items(ev.settings), ev.iou)
            fill_choices(self.area_combo, [(f"Area: {a}", a) for a in ev.settings.areas], ev.area)
            for act in iou_actions:
                act.setVisible(ds is not None and len(ev.settings.iou_choices) > 1)
            for act in area_actions:
                act.setVisible(ds is not None and len(ev.settings.areas) > 1)
            has_seg = ds is not None and any(k.startswith("Segmentation/") for k in ds.image_sets)
            for act in seg_actions:
                act.setVisible(has_seg)

        def on_results(*_args: object) -> None:  # "result": the current set's label PNGs
            i = st.current_results
            folder = st.results[i].results.extras.get("segmentation") if i >= 0 else None
            at = self.seg_combo.findData("result")
            if folder is not None and at < 0:
                self.seg_combo.addItem("result", "result")
            elif folder is None and at >= 0:
                self.seg_combo.removeItem(at)
            apply_seg()

        def apply_seg(*_args: object) -> None:
            mode = self.seg_combo.currentData() if self.act_seg.isChecked() else None
            if mode == "result":
                folder = st.results[st.current_results].results.extras["segmentation"]
                mode = f"result:{folder.folder}"  # the folder of the set's label PNGs
            view.set_segmentation(mode)

        def on_iou(i: int) -> None:
            st.evaluation.set_iou(float(self.iou_combo.itemData(i)))

        def sync_iou(iou: float) -> None:
            self.iou_combo.setCurrentIndex(max(self.iou_combo.findData(iou), 0))

        def sync_area(area: str) -> None:
            self.area_combo.setCurrentIndex(max(self.area_combo.findData(area), 0))

        on_dataset()
        st.dataset_loaded.connect(on_dataset)
        st.current_results_changed.connect(on_results)
        self.act_seg.toggled.connect(apply_seg)
        self.seg_combo.activated.connect(apply_seg)
        self.seg_opacity.valueChanged.connect(view.set_segmentation_opacity)
        self.iou_combo.activated.connect(on_iou)
        self.area_combo.activated.connect(
            lambda i: st.evaluation.set_area(str(self.area_combo.itemData(i)))
        )
        st.evaluation.iou_changed.connect(sync_iou)
        st.evaluation.area_changed.connect(sync_area)
        st.evaluation.evidence_replaced.connect(lambda _i: view.redraw_overlays())
        st.evaluation.evidence_replaced.connect(self.side.refresh_image)


def iou_items(settings: ViewSettings) -> list[tuple[str, float]]:
    """The IoU combo's items: ``IoU ≥ 0.50``, marked where the protocol does not use it."""
    out = []
    for t in settings.iou_choices:
        official = settings.official_iou is None or t == settings.official_iou
        out.append((f"IoU ≥ {t:.2f}" + ("" if official else " (NOT OFFICIAL)"), t))
    return out


def fill_choices(combo: QComboBox, items: Sequence[tuple[str, object]], current: object) -> None:
    """Replace ``combo``'s items (text, data) and select ``current``."""
    combo.clear()
    for text, data in items:
        combo.addItem(text, data)
    combo.setCurrentIndex(max(combo.findData(current), 0))
