"""The toolbar's protocol controls: the IoU and area choosers, the IoU kind of mask results
(mask IoU or Boundary IoU and its dilation ratio) and the segmentation overlay.

``ProtocolControls`` adds them to a toolbar and shows each only for the datasets it applies to:
the IoU chooser where the family offers several thresholds, the area chooser where it has area
ranges (COCO), the IoU kind where the family offers it and the current set holds masks
(COCO, LVIS, YOLO segment: a new kind evaluates anew), the segmentation overlay (toggle, kind, opacity) where the dataset has
segmentation image sets. A new IoU or area reaches the evaluation; evidence at another IoU
redraws the image and the side panel.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QToolBar

from vocviewer.core.results import LabelImageResults
from vocviewer.families.views import BOUNDARY_DILATION, ViewSettings
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.browse.side_panel import SidePanel
from vocviewer.gui.panes.image.view import ImageView


class ProtocolControls(QObject):
    """The IoU / area / segmentation controls on ``bar``, over ``state``, drawing in ``view``
    and refreshing ``side``."""

    def __init__(self, bar: QToolBar, state: AppState, view: ImageView, side: SidePanel) -> None:
        super().__init__(bar)
        self.state, self.view = state, view
        bar.addSeparator()
        self.iou_combo = QComboBox()  # the items say what they are: no labels, the toolbar fits
        self.iou_combo.setToolTip("IoU threshold of the verdicts and curves")
        self._iou_actions = [bar.addWidget(self.iou_combo)]
        self.area_combo = QComboBox()
        self.area_combo.setToolTip("Area range of the PR curves (verdicts: all areas)")
        self._area_actions = [bar.addWidget(self.area_combo)]
        self.kind_combo = QComboBox()
        self.kind_combo.addItem("Mask IoU", "")
        self.kind_combo.addItem("Boundary IoU", "boundary")
        self.kind_combo.setToolTip(
            "How mask results are matched: mask IoU (the protocol's segm) or Boundary IoU "
            "(Boundary AP, Cheng et al. 2021: min(mask IoU, IoU of the boundary bands)); "
            "evaluated anew"
        )
        self.dilation = QDoubleSpinBox()
        self.dilation.setDecimals(3)
        self.dilation.setRange(0.001, 0.5)
        self.dilation.setSingleStep(0.005)
        self.dilation.setValue(BOUNDARY_DILATION)
        self.dilation.setPrefix("d ")
        self.dilation.setKeyboardTracking(False)  # typing "0.01" is one choice, not three
        self.dilation.setToolTip(
            f"Boundary IoU's dilation ratio, a fraction of the image diagonal "
            f"(official: {BOUNDARY_DILATION:g}; any other is NOT OFFICIAL)"
        )
        self._kind_actions = [bar.addWidget(self.kind_combo)]
        self._dilation_actions = [bar.addWidget(self.dilation)]
        self.act_seg = QAction("Segmentation overlay", self)
        self.act_seg.setShortcut(QKeySequence("S"))
        self.act_seg.setCheckable(True)
        self.act_seg.setToolTip("Overlay the VOC segmentation PNG (S)")
        self.act_seg.setStatusTip("Draw the image's VOC segmentation PNG over it (class or object)")
        self.act_seg.setIconText("Seg")
        bar.addAction(self.act_seg)
        self._seg_actions = [self.act_seg]
        self.seg_combo = QComboBox()
        self.seg_combo.addItem("class", "class")
        self.seg_combo.addItem("object", "object")
        self.seg_combo.setToolTip(
            "SegmentationClass or SegmentationObject (ground truth), or the current result set's"
            " label PNGs (result)"
        )
        self._seg_actions.append(bar.addWidget(self.seg_combo))
        self.seg_opacity = QDoubleSpinBox()
        self.seg_opacity.setRange(0.1, 1.0)
        self.seg_opacity.setSingleStep(0.1)
        self.seg_opacity.setValue(view.seg_opacity)
        self.seg_opacity.setToolTip("Opacity of the segmentation overlay")
        self._seg_actions.append(bar.addWidget(self.seg_opacity))

        self._on_dataset()
        ev = state.evaluation
        state.dataset_loaded.connect(self._on_dataset)
        state.current_results_changed.connect(self._on_results)
        self.act_seg.toggled.connect(self._apply_seg)
        self.seg_combo.activated.connect(self._apply_seg)
        self.seg_opacity.valueChanged.connect(view.set_segmentation_opacity)
        self.iou_combo.activated.connect(self._on_iou)
        self.area_combo.activated.connect(self._on_area)
        self.kind_combo.activated.connect(self._on_kind)
        self.dilation.valueChanged.connect(self._on_kind)
        ev.iou_changed.connect(self._sync_iou)
        ev.area_changed.connect(self._sync_area)
        ev.evidence_replaced.connect(side.refresh_image)

    def window_actions(self) -> list[QAction]:
        return [self.act_seg]

    def _on_dataset(self, *_args: object) -> None:
        """Show the choices the family offers."""
        st = self.state
        ds, ev = st.dataset, st.evaluation
        fill_choices(self.iou_combo, iou_items(ev.settings), ev.iou)
        fill_choices(self.area_combo, [(f"Area: {a}", a) for a in ev.settings.areas], ev.area)
        for act in self._iou_actions:
            act.setVisible(ds is not None and len(ev.settings.iou_choices) > 1)
        for act in self._area_actions:
            act.setVisible(ds is not None and len(ev.settings.areas) > 1)
        self._show_kind()
        has_seg = ds is not None and any(k.startswith("Segmentation/") for k in ds.image_sets)
        for act in self._seg_actions:
            act.setVisible(has_seg)

    def _show_kind(self) -> None:
        """The IoU kind where the family offers it and the current set holds masks; the
        dilation ratio with Boundary IoU, marked where it is not the official one."""
        st, ev = self.state, self.state.evaluation
        i = st.current_results
        masks = 0 <= i < len(st.results) and st.results[i].results.task == "segm"
        offered = st.dataset is not None and len(ev.settings.iou_kinds) > 1 and masks
        for act in self._kind_actions:
            act.setVisible(offered)
        self.kind_combo.setCurrentIndex(max(self.kind_combo.findData(ev.iou_kind), 0))
        self.dilation.blockSignals(True)
        self.dilation.setValue(ev.dilation_ratio)
        self.dilation.blockSignals(False)
        official = ev.dilation_ratio == BOUNDARY_DILATION
        self.dilation.setSuffix("" if official else " NOT OFFICIAL")
        for act in self._dilation_actions:
            act.setVisible(offered and ev.iou_kind == "boundary")

    def _on_kind(self, *_args: object) -> None:
        kind = str(self.kind_combo.currentData())
        self.state.evaluation.set_iou_kind(kind, round(self.dilation.value(), 6))
        self._show_kind()

    def _on_results(self, *_args: object) -> None:
        """Offer "result" (the current set's label PNGs) while the set has them."""
        st = self.state
        self._show_kind()
        i = st.current_results
        folder = st.results[i].results.data_or_none(LabelImageResults) if i >= 0 else None
        at = self.seg_combo.findData("result")
        if folder is not None and at < 0:
            self.seg_combo.addItem("result", "result")
        elif folder is None and at >= 0:
            self.seg_combo.removeItem(at)
        self._apply_seg()

    def _apply_seg(self, *_args: object) -> None:
        st = self.state
        mode = self.seg_combo.currentData() if self.act_seg.isChecked() else None
        if mode == "result":
            folder = st.results[st.current_results].results.data(LabelImageResults)
            mode = f"result:{folder.folder}"  # the folder of the set's label PNGs
        self.view.set_segmentation(mode)

    def _on_iou(self, i: int) -> None:
        self.state.evaluation.set_iou(float(self.iou_combo.itemData(i)))

    def _on_area(self, i: int) -> None:
        self.state.evaluation.set_area(str(self.area_combo.itemData(i)))

    def _sync_iou(self, iou: float) -> None:
        self.iou_combo.setCurrentIndex(max(self.iou_combo.findData(iou), 0))

    def _sync_area(self, area: str) -> None:
        self.area_combo.setCurrentIndex(max(self.area_combo.findData(area), 0))


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
