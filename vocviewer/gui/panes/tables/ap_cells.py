"""The AP table's cells beside its model (``tables.ApTableModel``): the proxy that keeps the mean
row last, the AP_N column's label (by its IoU, as ``vocviewer analyze`` labels it) and the
tooltips of AP and AP_N cells."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from vocviewer.families.views import ViewChoice, ViewSettings
from vocviewer.gui.models.state import AppState

SORT_ROLE = Qt.ItemDataRole.UserRole + 2
Index = QModelIndex | QPersistentModelIndex


class MeanLastProxy(QSortFilterProxyModel):
    """Sorts by ``SORT_ROLE`` and keeps the mean row (the source's last row) at the bottom."""

    def lessThan(self, left: Index, right: Index) -> bool:
        last = self.sourceModel().rowCount() - 1
        if left.row() == last or right.row() == last:
            bottom_is_left = left.row() == last
            ascending = self.sortOrder() == Qt.SortOrder.AscendingOrder
            return (not bottom_is_left) if ascending else bottom_is_left
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        return bool(a < b) if a is not None and b is not None else False


def short_name(name: str, n: int = 11) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def fmt_ap(ev: Any) -> str:
    if ev is None:
        return ""
    if not ev.has_results:
        return "n/a"
    return "NaN" if math.isnan(ev.ap) else f"{ev.ap:.3f}"


#: The AP_N column's header tooltip (its cells say N and the IoU).
APN_HELP = "Normalised AP (IJCV 2015 eq. 6) at the IoU in its title"


def apn_label(settings: ViewSettings, choice: ViewChoice) -> str:
    """The AP_N column's title, labelled by the IoU of its verdicts (``AP_N@0.50``), as
    ``vocviewer analyze`` labels its own (``AP_N`` where the protocol fixes the IoU per object)."""
    return f"AP_N@{settings.verdict_iou(choice):.2f}" if settings.iou_choices else "AP_N"


def apn_tooltip(n_pos: float, state: AppState) -> str:
    ev = state.evaluation
    return (
        f"Normalised AP (IJCV 2015 eq. 6) at IoU {ev.verdict_iou():.2f}: the precision as if "
        f"every class had N = {n_pos:.1f} positives (the mean over the classes with any), so "
        f"classes compare fairly; `vocviewer analyze` prints it as "
        f"{apn_label(ev.settings, ev.choice())}, with --n-pos to choose N"
    )


def ap_tooltip(ev: Any) -> str | None:
    if ev is None:
        return None
    if not ev.has_results:
        return "No results file for this class: not evaluated, left out of the mean"
    if math.isnan(ev.ap):
        return "AP undefined: detections but no positives (as the devkit computes it); left out of the mean"
    return None
