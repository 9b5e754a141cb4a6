"""Each class's normalised AP (AP_N, IJCV 2015 eq. 6) of the views shown, kept per evaluation:
a kept view (another area at a threshold seen before) brings back the same evaluation, so
re-deriving takes its AP_N from here; new ones under COCO's rule are worked out all at once
(``normalised_ap.normalised_det_aps_101``)."""

from __future__ import annotations

import weakref
from collections.abc import Mapping

from vocviewer.evaluation.normalised_ap import (
    mean_positives,
    normalised_det_ap,
    normalised_det_aps_101,
)
from vocviewer.evaluation.result import ClassEvaluation
from vocviewer.families.views import ClassView


def normalised_aps(views: Mapping[int, ClassView], ap_rule: str) -> tuple[float, dict[int, float]]:
    """``N`` (the mean positives over the classes) and each class's detection AP_N under
    ``ap_rule`` (``normalised_ap.normalised_det_ap``) of the ``views`` by class."""
    evs = {k: v.evaluation for k, v in views.items()}
    n_pos = mean_positives([e.npos for e in evs.values()])
    new = [e for e in evs.values() if _kept_ap_n(e, ap_rule, n_pos) is None]
    if ap_rule == "coco101" and len(new) > 1:  # every class's at once
        for e, value in zip(new, normalised_det_aps_101(new, n_pos), strict=True):
            _AP_N[e] = (ap_rule, n_pos, value)
    return n_pos, {k: _det_ap_n(e, ap_rule, n_pos) for k, e in evs.items()}


#: each evaluation's last AP_N: (AP rule, N, AP_N); a kept view (another area at a threshold
#: seen before) brings back the same evaluation, so re-deriving takes its AP_N from here
_AP_N: weakref.WeakKeyDictionary[ClassEvaluation, tuple[str, float, float]] = (
    weakref.WeakKeyDictionary()
)


def _kept_ap_n(evaluation: ClassEvaluation, ap_rule: str, n_pos: float) -> float | None:
    kept = _AP_N.get(evaluation)
    return kept[2] if kept is not None and kept[0] == ap_rule and kept[1] == n_pos else None


def _det_ap_n(evaluation: ClassEvaluation, ap_rule: str, n_pos: float) -> float:
    """``normalised_det_ap`` of ``evaluation``, kept per evaluation for its rule and ``N``."""
    kept = _kept_ap_n(evaluation, ap_rule, n_pos)
    if kept is not None:
        return kept
    value = normalised_det_ap(evaluation, ap_rule, n_pos)
    _AP_N[evaluation] = (ap_rule, n_pos, value)
    return value
