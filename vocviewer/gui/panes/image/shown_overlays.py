"""The overlay items of the image on screen, kept up to date cheaply.

``ImageView`` hands the drawing of overlays here. Three things keep the event loop free when an
image carries a thousand detections while a worker evaluates:

- the boxes are painted in batches (``box_batch``) and the tags by Qt alone (``LabelItem``);
- the tags are placed ``LABEL_SLICE`` at a time, one slice per turn of the event loop
  (``label_layout.Placement``: the same tags end up placed as in one go);
- when a class's verdicts arrive, its drawn detections are recoloured in place (``recolour``)
  instead of rebuilding every item — whenever that gives what a rebuild would: in the
  ``all`` view, without verdict words, the selected detection not of that class, no object of
  the image changing its missed state, no second result set drawn. Otherwise the caller
  rebuilds. A detection's tag keeps room for a glyph before its verdict is known, so its size
  (and so the placement) does not change with the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tasks import Message
from vocviewer.gui.panes.image.box_batch import BoxBatch
from vocviewer.gui.panes.image.label_layout import LabelItem, Placement
from vocviewer.gui.panes.image.overlay_scene import build_unplaced, compared
from vocviewer.gui.panes.image.overlays import BoxItem, OverlayOptions, detection_look

#: Tags placed per turn of the event loop (about 2-10 ms of placing on the development machine).
LABEL_SLICE = 100


@dataclass(frozen=True)
class _Drawn:
    """What the items on screen were built for."""

    image: int
    results: int
    opts: OverlayOptions  # without ``missed``
    missed: npt.NDArray[np.bool_] | None  # the image's objects' missed flags as drawn
    compared: bool


class ShownOverlays(QObject):
    """The overlay items of one image in ``scene``; ``items`` are those on screen (boxes, their
    batches, the tags placed so far). ``labels_placed`` is emitted when the last slice of tags
    went on screen."""

    labels_placed = Signal()

    def __init__(self, scene: QGraphicsScene, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self.items: list[QGraphicsItem] = []
        self._labels: list[LabelItem] = []  # every tag built, placed or not
        self._placement: Placement | None = None
        self._drawn: _Drawn | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._place_more)

    def clear(self) -> None:
        """Take every item off the scene."""
        self._timer.stop()
        for item in self.items:
            self.scene.removeItem(item)
        self.items, self._labels, self._placement, self._drawn = [], [], None, None

    def show(
        self, state: AppState, image: int, opts: OverlayOptions, compare_with: int
    ) -> list[Message]:
        """Replace the items by those of image row ``image``; the first ``LABEL_SLICE`` tags are
        placed at once, the rest in later turns of the event loop. Returns a message per group
        that could not be drawn."""
        self.clear()
        items, placement, failed = build_unplaced(state, image, opts, compare_with)
        self._labels = list(placement.labels)
        self._placement = placement
        for item in items:
            self.scene.addItem(item)
        self.items = items
        self._drawn = _Drawn(
            image,
            state.current_results,
            replace(opts, missed=None),
            _missed_of(state, image, opts),
            compared(state, opts, compare_with),
        )
        self._place_more()
        return failed

    def placing(self) -> bool:
        """Whether tags are still waiting for their slice."""
        return self._placement is not None and not self._placement.done

    def _place_more(self) -> None:
        if self._placement is None:
            return
        self._add(self._placement.run(LABEL_SLICE))
        if self._placement.done:
            self.labels_placed.emit()
        else:
            self._timer.start()

    def _add(self, labels: list[LabelItem]) -> None:
        for label in labels:
            self.scene.addItem(label)
        self.items += labels

    def drawn_for(self, state: AppState, image: int, opts: OverlayOptions) -> bool:
        """Whether the items on screen were built for image row ``image`` with ``opts`` from
        the current result set (a selection that changed nothing drawn needs no rebuild)."""
        d = self._drawn
        return (
            d is not None
            and d.image == image == state.current_image
            and d.results == state.current_results
            and d.opts == replace(opts, missed=None)
            and _same(d.missed, _missed_of(state, image, opts))
        )

    def recolour(self, state: AppState, opts: OverlayOptions, classes: set[int]) -> bool:
        """Recolour the drawn detections of ``classes`` of the current result set (their
        verdicts arrived) in place; ``False`` (nothing changed) when only a rebuild gives what
        a rebuild gives (see the module's docstring)."""
        d = self._drawn
        if d is None or state.dataset is None or state.current_results != d.results:
            return False
        if d.compared or replace(opts, missed=None) != d.opts or opts.mode != "all":
            return False
        if opts.verdict_words:
            return False
        loaded, evals = state.results[d.results], state.evaluations[d.results]
        label = loaded.results.detections.label
        if opts.highlight_row >= 0 and int(label[opts.highlight_row]) in classes:
            return False
        if not _same(d.missed, _missed_of(state, d.image, opts)):
            return False
        batches = set()
        for item in self.items:
            if isinstance(item, BoxItem) and item.kind == "det" and int(label[item.row]) in classes:
                color, style, width, _glyph, _name = detection_look(evals, item.row, False)
                item.set_look(color, style, width)
        for tag in self._labels:
            if tag.row >= 0 and int(label[tag.row]) in classes:
                color, _style, _width, glyph, _name = detection_look(evals, tag.row, False)
                tag.set_color(color, glyph)
        for item in self.items:
            if isinstance(item, BoxBatch) and any(
                isinstance(b, BoxItem) and b.kind == "det" for b in item.boxes[:1]
            ):
                batches.add(item)
        for batch in batches:
            batch.restyle()
        return True


def _missed_of(state: AppState, image: int, opts: OverlayOptions) -> npt.NDArray[np.bool_] | None:
    """A copy of the missed flags of image row ``image``'s objects (``None``: none known)."""
    if opts.missed is None or state.dataset is None:
        return None
    return np.array(opts.missed[state.dataset.objects_of(image)], dtype=bool)


def _same(a: npt.NDArray[np.bool_] | None, b: npt.NDArray[np.bool_] | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
