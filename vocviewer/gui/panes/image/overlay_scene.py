"""The overlay items of the shown image, built from ``AppState`` group by group.

Each group (regions / keypoints / parts, ground truth, detections, the compared set) is built on
its own: should one raise — a bug, since drawing takes every value a reader lets through — the
others are still drawn and the failure becomes one message with its traceback in the details.
A selected detection that cannot be drawn (non-finite coordinates) gets a note on the image.
Once every group is built, all their text tags (labels, action and crowd tags, the note) are
placed together (``label_layout.place_labels``): none is drawn over another.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem

from vocviewer.evaluation.drawn import threshold_key
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import Message, internal_error_text
from vocviewer.gui.panes.image.box_batch import batch_boxes
from vocviewer.gui.panes.image.drawable import NOT_DRAWN, finite_rows, image_size
from vocviewer.gui.panes.image.extra_overlays import extra_items, region_items
from vocviewer.gui.panes.image.label_layout import LabelItem, Placement
from vocviewer.gui.panes.image.overlays import (
    Z_LABEL,
    BoxItem,
    OverlayOptions,
    detection_items,
    ground_truth_items,
)
from vocviewer.gui.widgets.verdict_style import row_style, verdict_words

NOTE_COLOR = QColor("#fff59d")


def overlay_options(state: AppState, scale: float) -> OverlayOptions:
    """What to draw, from the state (``scale``: screen pixels per image pixel)."""
    st = state
    evals = st.evaluations[st.current_results] if st.current_results >= 0 else None
    highlight_row, highlight_gt = st.selected_detection_row(), st.selected_object
    if st.selected_detection is not None and highlight_gt < 0:
        ev = st.class_evaluation(st.selected_detection[0])
        if ev is not None:
            highlight_gt = int(ev.best_gt[st.selected_detection[1]])
    return OverlayOptions(
        show_gt=st.show_gt,
        show_detections=st.show_detections,
        show_labels=st.show_labels,
        show_scores=st.show_scores,
        show_keypoints=st.show_keypoints,
        show_parts=st.show_parts,
        mode=st.drawn_mode,
        missed=evals.missed_at(st.dataset, st.drawn_thresholds) if evals is not None else None,
        threshold=threshold_key(st.drawn_thresholds),  # comparable: options are compared
        class_index=st.selected_class,
        highlight_row=highlight_row,
        highlight_gt=highlight_gt,
        pixel=1.0 / max(scale, 1e-6),
        verdict_words=verdict_words(),
        kept=st.walked_rows() if st.image_filter.judges_boxes else None,  # the filter's boxes
    )


def build_overlays(
    state: AppState, image: int, opts: OverlayOptions, compare_with: int = -1
) -> tuple[list[QGraphicsItem], list[Message]]:
    """Every overlay item of image row ``image`` (tags placed), and a message per group that
    failed."""
    items, placement, failed = build_unplaced(state, image, opts, compare_with)
    return items + placement.run(), failed


def build_unplaced(
    state: AppState, image: int, opts: OverlayOptions, compare_with: int = -1
) -> tuple[list[QGraphicsItem], Placement, list[Message]]:
    """The overlay items of image row ``image`` but its tags (boxes batched by stacking level,
    ``box_batch``), the ``Placement`` of its tags (nothing placed yet), and a message per group
    that failed."""
    st, ds = state, state.dataset
    assert ds is not None
    groups: list[tuple[str, Callable[[], list[QGraphicsItem]]]] = []
    if opts.show_gt or opts.show_detections:
        groups.append(("ignored regions", lambda: region_items(ds, image)))
    if opts.show_gt:
        groups.append(("annotation extras", lambda: extra_items(ds, image, opts)))
        groups.append(("ground truth", lambda: ground_truth_items(ds, image, opts)))
    if st.current_results >= 0 and (opts.show_detections or opts.highlight_row >= 0):
        a = st.current_results
        b = compare_with
        pair = compared(state, opts, compare_with)
        tag = "A " if pair else ""
        groups.append(
            (
                "detections",
                lambda: detection_items(ds, st.results[a], st.evaluations[a], image, opts, tag),
            )
        )
        if pair:
            other = replace(opts, highlight_row=-1)
            groups.append(
                (
                    "compared detections",
                    lambda: detection_items(
                        ds, st.results[b], st.evaluations[b], image, other, "B ", dashed=True
                    ),
                )
            )
        groups.append(("selection note", lambda: not_drawn_note(st, image, opts)))
    items: list[QGraphicsItem] = []
    failed: list[Message] = []
    for name, build in groups:
        try:
            items += build()
        except Exception as exc:  # a bug: the other groups are still drawn
            text = f"Drawing the {name} of image {ds.images.id[image]}: {internal_error_text(exc)}"
            failed.append(Message("error", text, "".join(traceback.format_exception(exc))))
    labels = [i for i in items if isinstance(i, LabelItem)]
    w, h = image_size(ds, image)
    others = [i for i in items if not isinstance(i, LabelItem)]
    return batch_boxes(others, BoxItem), Placement(labels, opts.pixel, (0.0, 0.0, w, h)), failed


def compared(state: AppState, opts: OverlayOptions, compare_with: int) -> bool:
    """Whether result set ``compare_with`` is drawn beside the current one."""
    a, b = state.current_results, compare_with
    return a >= 0 and 0 <= b < len(state.results) and b != a and opts.show_detections


def not_drawn_note(state: AppState, image: int, opts: OverlayOptions) -> list[QGraphicsItem]:
    """A note at the image's top left when the selected detection lies on it but cannot be
    drawn (a coordinate is NaN or infinite): its rank, class, score and numbers."""
    row = opts.highlight_row
    if row < 0 or state.current_results < 0 or state.dataset is None:
        return []
    loaded = state.results[state.current_results]
    det = loaded.results.detections
    if int(det.image_index[row]) != image or finite_rows(det.box[row])[0]:
        return []
    evals = state.evaluations[state.current_results]
    rank = int(evals.rank_by_row[row])
    numbers = " ".join(f"{float(v):g}" for v in det.box[row])
    name = state.dataset.classes[int(det.label[row])]
    text = f"#{rank + 1} " if rank >= 0 else ""
    text += f"{name} {float(det.score[row]):.2f} {row_style(evals, row)[2]}: "
    note = LabelItem(f"{text}{NOT_DRAWN} ({numbers})", NOTE_COLOR, above=False, bold=True)
    note.kind = "note"  # type: ignore[misc]
    note.setPos(0.0, 0.0)
    note.setZValue(Z_LABEL + 20.0)
    note.setToolTip(loaded.results.where(int(det.file_index[row]), int(det.line[row])))
    return [note]
