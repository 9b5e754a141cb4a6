"""What the image list shows and the view keeps: ``ListedImages``, a part of ``AppState``.

It filters and orders the image list (``image_filter.ImageListing``) with the view's one filter
record (``image_filter``, a ``core.view_filter.ViewFilter``: the browser's search and Filter
menu and the filter panel set its fields), keeps what the filter leaves (``kept``: the listed
image rows, the objects and detections kept on them; ``kept_images`` for whoever acts on a
selection) and says which detections the walk may visit (``walked_rows``). It holds no Qt
object of its own; ``AppState``'s signals announce its changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.tags import Tags
from vocviewer.evaluation.drawn import Thresholds
from vocviewer.evaluation.view_filter import JudgedSet
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.models.image_filter import (
    ErrorCounts,
    ImageFilter,
    ImageListing,
    Kept,
    error_counts,
)
from vocviewer.gui.models.tasks import LoadedResults

IntArray = npt.NDArray[np.int64]


class ListedImages:
    """The filter, the listed images and what is kept (module docstring)."""

    dataset: Dataset | None
    results: list[LoadedResults]
    current_results: int
    current_image: int
    selected_class: int
    image_set: str | None
    visible_images: IntArray
    listing: ImageListing | None
    image_filter: ImageFilter
    kept: Kept
    tags: Tags
    visible_images_changed: Any  # AppState's signals
    image_filter_changed: Any

    if TYPE_CHECKING:  # AppState's

        @property
        def evaluations(self) -> list[ResultEvaluations]: ...

        @property
        def drawn_thresholds(self) -> Thresholds: ...

        def set_current_image(self, image: int) -> None: ...

    def init_listing(self) -> None:
        """Nothing listed, no filter, no tags."""
        self.listing = None
        self.image_filter = ImageFilter()
        self.visible_images = np.zeros(0, dtype=np.int64)
        self.kept = Kept(self.visible_images, np.zeros(0, bool), np.zeros(0, bool))
        self.tags = Tags()  # the window's tags (``TagsModel`` keeps them here for the filter)

    def error_counts(self) -> ErrorCounts | None:
        """Drawn FPs and missed objects per image for the current result set and selected class
        (``image_filter.error_counts``); ``None`` without an evaluated result set."""
        i = self.current_results
        if self.dataset is None or i < 0 or not self.evaluations[i].det:
            return None
        ev = self.evaluations[i]
        missed = ev.missed_at(self.dataset, self.drawn_thresholds)
        return error_counts(
            self.dataset,
            self.results[i].results,
            ev.verdict_by_row,
            missed,
            self.drawn_thresholds,
            self.selected_class,
        )

    def set_image_filter(self, flt: ImageFilter) -> None:
        """Filter and order the image list and the boxes (``core.view_filter.ViewFilter``)."""
        if flt != self.image_filter:
            self.image_filter = flt
            self._refresh_visible()  # the current image, if the filter hides it: the first
            self.image_filter_changed.emit(flt)  # what is kept is known by then

    def set_tags(self, tags: Tags) -> None:
        """The window's tags changed (a filter on tags follows)."""
        self.tags = tags
        if self.image_filter.tags:
            self._refresh_visible(keep_current=True)
            self.image_filter_changed.emit(self.image_filter)  # the boxes it keeps: redrawn

    @property
    def kept_images(self) -> IntArray:
        """int64: the image rows the filter keeps, in list order (``visible_images`` but for an
        image listed only because it is the current one)."""
        return self.kept.images

    def walked_rows(self) -> npt.NDArray[np.bool_] | None:
        """bool (D,) over the current result set's rows: the detections the walk may visit
        (those the filter keeps, on listed images); ``None`` while the filter keeps all."""
        i, kept = self.current_results, self.kept
        if not self.image_filter.narrows or i < 0:
            return None
        if kept.result_set == i:
            return kept.detections
        listed = np.zeros(len(self.dataset.images) if self.dataset else 0, dtype=bool)
        listed[kept.images] = True
        out: npt.NDArray[np.bool_] = listed[self.results[i].results.detections.image_index]
        return out

    def _judged(self) -> JudgedSet | None:
        """The evidence of the set the filter judges (its ``result_set``, else the shown one)."""
        i = self.image_filter.result_set
        i = i if i is not None and 0 <= i < len(self.results) else self.current_results
        if i < 0:
            return None
        ev = self.evaluations[i]
        return JudgedSet(
            self.results[i].results.detections, ev.verdict_by_row, ev.fp_kind_by_row, i
        )

    def _refresh_errors(self, *_args: object) -> None:
        if self.image_filter.needs_errors or self.image_filter.judges_boxes:
            self._refresh_visible(keep_current=True)

    def _refresh_visible(self, keep_current: bool = False, pin: bool = False) -> None:
        """Filter the image list again; the current image stays current with ``keep_current``,
        and listed too with ``pin`` (``ImageListing.pinned``)."""
        if self.listing is None:
            return
        flt, i = self.image_filter, self.current_results
        rows = self.listing.rows(
            self.image_set,
            self.selected_class,
            self.results[i].results if i >= 0 else None,
            i,
            flt,
            self.error_counts() if flt.needs_errors else None,
        )
        judged = self._judged()
        missed = None
        if judged is not None and "missed" in flt.verdicts:
            missed = self.evaluations[judged.index].missed_at(self.dataset, self.drawn_thresholds)  # type: ignore[arg-type]
        self.kept = self.listing.kept(rows, flt, judged, missed, self.tags)
        rows = self.kept.images
        if pin:
            rows = self.listing.pinned(rows, self.image_set, self.current_image, flt)
        self.visible_images = rows
        self.visible_images_changed.emit()
        if not keep_current and not np.any(rows == self.current_image):
            self.set_current_image(int(rows[0]) if len(rows) else -1)
