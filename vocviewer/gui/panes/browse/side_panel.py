"""``SidePanel``: the current image's detections and objects, the ranks around a PR point, and the
"why" of the selected detection or object, in words (``evaluation.analysis.explain``).

Selecting a row selects the detection (or object) in ``AppState``, and the image view highlights
it; selections made elsewhere (a box click, a PR click, ``]``/``[``) select the row here.
Enter or double-click asks for the image zoomed to it (``zoom_requested``).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QLabel,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import explain, explain_object, fmt_iou
from vocviewer.evaluation.drawn import class_threshold, is_drawn
from vocviewer.families.views import detection_note
from vocviewer.gui.models.debounce import REFRESH_DELAY_MS, Debounced
from vocviewer.gui.models.state import AppState
from vocviewer.gui.panes.image.drawable import NOT_DRAWN, finite_rows
from vocviewer.gui.panes.pr.ranks import HEADERS, RankRows
from vocviewer.gui.widgets.rows_table import RowsTable
from vocviewer.gui.widgets.verdict_style import GT_COLOR, MISSED_COLOR, row_style

MUTED = QColor("#9aa0a6")


class SidePanel(QWidget):
    """Tabs "Detections", "Objects", "Ranks" (plus any added by the window) beside the "why" text.

    Signals
    -------
    zoom_requested()
        Enter / double-click on a row: show the selection zoomed in.
    """

    zoom_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.detections = RowsTable(("Rank", "Class", "Score", "Verdict", "IoU"))
        self.objects = RowsTable(("#", "Class", "Flags", "Status"))
        self.ranks = RowsTable(HEADERS, model=RankRows(self))
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.detections, "Detections")
        self.tabs.addTab(self.objects, "Objects")
        self.tabs.addTab(self.ranks, "Ranks")
        self.why = QLabel()
        self.why.setWordWrap(True)
        self.why.setTextFormat(Qt.TextFormat.PlainText)
        self.why.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.why.setMargin(8)
        self.why.setMinimumWidth(220)
        self.why.setAutoFillBackground(True)  # the theme's colours (View ▸ Theme)
        self.why.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.why.setForegroundRole(QPalette.ColorRole.Text)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tabs)
        self.splitter.addWidget(self.why)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self._ranks_class = -1
        self._show_hint()

        self.detections.row_chosen.connect(state.select_detection_row)
        self.objects.row_chosen.connect(state.select_object)
        self.ranks.row_chosen.connect(self._on_rank_chosen)
        for table in (self.detections, self.objects, self.ranks):
            table.row_activated.connect(self._on_activated)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.image_changed.connect(self.refresh_image)
        state.class_changed.connect(self.refresh_image)
        state.current_results_changed.connect(self.refresh_image)
        state.threshold_changed.connect(self.refresh_image)
        state.image_filter_changed.connect(self.refresh_image)  # marks what it filters out
        self._image_later = Debounced(self.refresh_image, REFRESH_DELAY_MS, self)
        state.evaluation.class_evaluated.connect(self._on_class_evaluated)
        state.evaluation.finished.connect(self._image_later.flush_soon)
        state.selection_changed.connect(self._on_selection_changed)
        state.object_selected.connect(self._on_object_selected)
        state.pr_point_clicked.connect(self._on_pr_point_clicked)
        # what the "why" text and the Ranks tab describe follows every change of what they show
        state.image_changed.connect(self.refresh_why)
        state.current_results_changed.connect(self.refresh_ranks)
        state.class_changed.connect(self.refresh_ranks)
        state.evaluation.evidence_replaced.connect(self.refresh_ranks)
        state.evaluation.evidence_replaced.connect(self.refresh_why)
        state.evaluation.started.connect(self.refresh_ranks)

    # --- tables --------------------------------------------------------------------------------
    def _on_dataset_loaded(self, _dataset: object) -> None:
        for table in (self.detections, self.objects):
            table.set_rows([], [], [])
        self.ranks.rows_model.show(None, None, None)
        self._ranks_class = -1
        self._show_hint()

    def _on_class_evaluated(self, index: int, ev: object) -> None:
        if index == self.state.current_results:
            self._image_later.request()
            if getattr(ev, "class_index", -2) == self.state.selected_class:
                self.refresh_ranks()

    def refresh_image(self, *_args: object) -> None:
        """Rebuild the detections and objects of the current image."""
        st, ds, image = self.state, self.state.dataset, self.state.current_image
        if ds is None or image < 0:
            self.detections.set_rows([], [], [])
            self.objects.set_rows([], [], [])
            return
        evals = st.evaluations[st.current_results] if st.current_results >= 0 else None
        rows, keys, colors = [], [], []
        if evals is not None:
            loaded = st.results[st.current_results]
            det = loaded.results.detections
            on = loaded.detections_of(image)
            if st.selected_class >= 0:
                on = on[det.label[on] == st.selected_class]
            on = on[np.argsort(-det.score[on], kind="stable")]
            finite = finite_rows(det.box[on]).tolist()
            kept, thresholds = st.kept, st.drawn_thresholds
            narrowed = st.image_filter.narrows and kept.result_set == st.current_results
            for row, is_finite in zip(on.tolist(), finite, strict=True):
                k, rank = int(det.label[row]), int(evals.rank_by_row[row])
                ev = evals.det.get(k)
                iou = fmt_iou(float(ev.best_iou[rank])) if ev is not None and rank >= 0 else "—"
                color, _, verdict = row_style(evals, row)
                drawn = is_finite and bool(is_drawn(det.score[row], class_threshold(thresholds, k)))
                note = "  · below threshold" if is_finite else f"  · {NOT_DRAWN}"
                if drawn and narrowed and not kept.detections[row]:
                    drawn, note = False, "  · filtered out"  # listed, not drawn: the filter
                rows.append(
                    (
                        str(rank + 1) if rank >= 0 else "—",
                        ds.classes[k],
                        f"{det.score[row]:.3f}",
                        verdict + ("" if drawn else note),
                        iou,
                    )
                )
                keys.append(row)
                colors.append(color if drawn else MUTED)
        self.detections.set_rows(rows, keys, colors)
        self.detections.select_key(st.selected_detection_row())
        obj, sl = ds.objects, ds.objects_of(image)
        missed = evals.missed_at(ds, st.drawn_thresholds) if evals is not None else None
        orows, okeys, ocolors = [], [], []
        for row in range(sl.start, sl.stop):
            flags = "".join(t for t, c in (("D", obj.difficult), ("T", obj.truncated)) if c[row])
            is_missed = missed is not None and len(missed) > row and bool(missed[row])
            k = int(obj.label[row])
            evaluated = evals is not None and k in evals.det
            status = "missed" if is_missed else ("found" if evaluated else "")
            status = "difficult" if obj.difficult[row] else status
            orows.append((str(int(obj.order_in_image[row]) + 1), ds.classes[k], flags, status))
            okeys.append(row)
            ocolors.append(MISSED_COLOR.darker(130) if is_missed else GT_COLOR.darker(130))
        self.objects.set_rows(orows, okeys, ocolors)
        self.objects.select_key(st.selected_object)

    def refresh_ranks(self, *_args: object) -> None:
        """The Ranks tab for the selected class (around the selected detection, else from the
        top); empty when no class is selected or its evaluation has not arrived."""
        st = self.state
        sel = st.selected_detection
        k = sel[0] if sel is not None else st.selected_class
        if k < 0 or st.class_evaluation(k) is None:
            self._ranks_class = -1
            self.ranks.rows_model.show(None, None, None)
            return
        self.show_ranks(k, sel[1] if sel is not None and sel[0] == k else 0)

    def refresh_why(self, *_args: object) -> None:
        """The "why" text for the current selection, if it lies on the current image."""
        st = self.state
        if st.selected_object >= 0:
            self._on_object_selected(st.selected_object)
        elif st.selected_detection is not None and self._selected_on_image():
            self._on_selection_changed(st.selected_detection)
        else:
            self._show_hint()

    def _selected_on_image(self) -> bool:
        st, sel = self.state, self.state.selected_detection
        ev = st.class_evaluation(sel[0]) if sel is not None else None
        return (
            ev is not None and sel is not None and int(ev.image_index[sel[1]]) == st.current_image
        )

    def _on_pr_point_clicked(self, class_index: int, rank: int) -> None:
        self.show_ranks(class_index, rank)
        self.tabs.setCurrentWidget(self.ranks)

    def show_ranks(self, class_index: int, rank: int) -> None:
        """List every rank of ``class_index`` in the "Ranks" tab, ``rank`` current."""
        st, ds = self.state, self.state.dataset
        ev = st.class_evaluation(class_index)
        if ev is None or ds is None:
            return
        self._ranks_class = class_index
        self.ranks.rows_model.show(ev, st.evaluations[st.current_results], ds)
        self.ranks.scrollTo(self.ranks.rows_model.index(max(rank, 0), 0))
        sel = st.selected_detection
        self.ranks.select_key(sel[1] if sel is not None and sel[0] == class_index else -1)

    def _on_rank_chosen(self, rank: int) -> None:
        if self._ranks_class >= 0:
            self.state.select_detection(self._ranks_class, rank)

    def _on_activated(self, _key: int) -> None:
        self.zoom_requested.emit()

    # --- selection → rows and words ------------------------------------------------------------
    def _on_selection_changed(self, sel: tuple[int, int] | None) -> None:
        st = self.state
        self.detections.select_key(st.selected_detection_row())
        if sel is None:  # the list stays; no row of it is the selection any more
            self.ranks.select_key(-1)
            if st.selected_object < 0:
                self._show_hint()
            return
        k, rank = sel
        if k != self._ranks_class or rank not in self.ranks.rows_model.keys:
            self.show_ranks(k, rank)
        self.ranks.select_key(rank)
        ev, ds = st.class_evaluation(k), st.dataset
        if ev is not None and ds is not None:
            results = st.results[st.current_results].results
            iou, fa = st.evaluation.verdict_iou(), st.class_diagnosis(k)
            rules = st.evaluation.settings.rules
            text = explain(ds, results, ev, rank, iou_threshold=iou, analysis=fa, rules=rules)
            row = int(ev.order[rank])
            note = detection_note(st.evaluations[st.current_results].views.get(k), row)
            self.why.setText(text + note + not_drawn_text(results, row))

    def _on_object_selected(self, row: int) -> None:
        self.objects.select_key(row)
        ds = self.state.dataset
        if ds is None:
            return
        if row < 0:
            self.refresh_why()
            return
        ev = self.state.class_evaluation(int(ds.objects.label[row]))
        iou = self.state.evaluation.verdict_iou()
        self.why.setText(explain_object(ds, ev, row, iou_threshold=iou))

    def _show_hint(self) -> None:
        self.why.setText(
            "Select a detection or an object (here, on the image, or by clicking a point of the "
            "precision/recall curve) to see why it counts as it does.\n\n"
            ". / ,  next / previous detection (Walk menu: only TP, only FP, …)\n"
            "] / [  next / previous false positive\nEnter  zoom to it"
        )


def not_drawn_text(results: ResultSet, row: int) -> str:
    """For a detection row with a non-finite coordinate: a paragraph with its numbers, where it
    was read and why it is not on the image; else nothing."""
    box = results.detections.box[row]
    if finite_rows(box)[0]:
        return ""
    numbers = ", ".join(f"{float(v):g}" for v in box)
    where = results.where(
        int(results.detections.file_index[row]), int(results.detections.line[row])
    )
    return (
        f"\n\nBox ({numbers}) from {where}: {NOT_DRAWN}. It is evaluated as the official code "
        "evaluates it: it overlaps nothing."
    )
