"""LVIS in the window: LVISEval's per-category evidence as ``ClassView``, through COCO's adapter.

LVISEval is COCOeval with federated rules, so its categories arrive as the same evidence
(``CocoCategoryEvaluation``, one detection cap of 300) and ``coco_view.coco_class`` shapes them.
A detection the federated rules do not evaluate (its category neither on the image nor verified
absent, over the 300 per image, zero area, or unmatched in a not-exhaustive category) is an
ignored rank; an object with zero area or an ``ignore`` flag is never missed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from threading import Thread
from typing import Any

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.analysis import DiagnosisRules
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.view import (
    COCO_AREAS,
    MASK_IOU_KINDS,
    attach_companions,
    iou_type,
    task_pair_iou,
)
from vocviewer.families.lvis.class_views import class_views
from vocviewer.families.lvis.columns import LvisAnnotations
from vocviewer.families.lvis.evaluate import (
    LvisSelection,
    iter_evaluate_lvis,
    lvis_notes,
    lvis_params,
    select,
)
from vocviewer.families.lvis.summary import category_summary
from vocviewer.families.views import (
    IOU_CHOICES,
    ClassView,
    Summary,
    ViewChoice,
    ViewSettings,
    diagnosed,
)

RULES = DiagnosisRules(
    {},
    "LVIS does not count it: its category is not verified on this image (neither annotated nor "
    "in neg_category_ids), it is beyond the image's 300 highest scores, its area is 0, or its "
    "category is not exhaustively annotated here and it matched nothing.",
)
SETTINGS = ViewSettings(
    "LVIS",
    IOU_CHOICES,
    None,
    COCO_AREAS,
    "AP[.5:.95]",
    rules=RULES,
    ap_rule="coco101",
    iou_kinds=MASK_IOU_KINDS,  # mask or Boundary IoU, for mask results
)


def _never_missed(
    dataset: Dataset, results: ResultSet, task: str = "", sel: LvisSelection | None = None
) -> np.ndarray:
    """Objects LVISEval leaves out or ignores (Boundary AP's fork: crowd regions too);
    ``sel``: ``select(dataset, results)`` where the caller has it."""
    sel = sel if sel is not None else select(dataset, results)
    out = np.asarray(~sel.object_evaluated | sel.object_ignored, dtype=bool)
    if task == "boundary":
        out = out | np.asarray(dataset.data(CocoAnnotations).iscrowd, dtype=bool)
    return out


class _Background:
    """``work()`` on a thread of its own once ``start``-ed (else here, when its result is
    asked for); ``result`` gives its value or raises its exception."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work = work
        self._out: list[tuple[bool, Any]] = []
        self._thread: Thread | None = None

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is None:
            self._thread = Thread(target=self._run, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            self._out.append((True, self._work()))
        except BaseException as e:  # (raised again by ``result``, in the caller's thread)
            self._out.append((False, e))

    def result(self) -> Any:
        if self._thread is None:
            return self._work()
        self._thread.join()
        ok, value = self._out[0]
        if not ok:
            raise value
        return value


#: ``evaluate_lvis_views`` shapes arrived categories together (``class_views``) once this many
#: are waiting or ``_FLUSH_SECONDS`` have passed since the first of them arrived
_RUN, _FLUSH_SECONDS = 256, 0.05


def evaluate_lvis_views(
    dataset: Dataset,
    results: ResultSet,
    choice: ViewChoice,
    task: str | None = None,
    diagnose: bool = True,
    dilation_ratio: float = 0.02,
) -> Iterator[ClassView | Summary]:
    """LVISEval of ``task`` (default: the results' own type), category by category, then its
    13 numbers (``diagnose`` False: false positives left undiagnosed; ``dilation_ratio``: task
    ``boundary`` only)."""
    task = task or iou_type(results)
    if task == "segm" and choice.iou_kind == "boundary":  # the window's Boundary IoU
        task, dilation_ratio = "boundary", choice.dilation_ratio
    params, sel = lvis_params(task, dilation_ratio), select(dataset, results)
    exclude = _never_missed(dataset, results, task, sel)
    pair_iou = task_pair_iou(dataset, results, task)
    cats: list[Any] = []  # as they are yielded
    waiting: list[tuple[int, Any]] = []
    since = 0.0
    # the 13 numbers of ``collect_lvis(cats, ...).summary()``, without its (T, R, K, A) array:
    # computed beside the views once every category has arrived (numpy's copies and sums
    # release the GIL), else after them
    frequency = dataset.data(LvisAnnotations).frequency
    done: list[Any] = []  # as they finish

    def arrived(run: list[Any]) -> None:
        done.extend(run)
        if len(done) == len(dataset.classes):
            summary.start()

    summary = _Background(lambda: category_summary(tuple(done), frequency, params))

    stream = iter_evaluate_lvis(
        dataset, results, task, dilation_ratio, selection=sel, on_run=arrived
    )
    for k, raw in enumerate(stream):
        cats.append(raw)
        since = since if waiting else time.perf_counter()
        waiting.append((k, raw))
        if len(waiting) >= _RUN or time.perf_counter() - since > _FLUSH_SECONDS:
            for view in class_views(
                dataset, waiting, choice, params.recall_thresholds, pair_iou, exclude
            ):
                yield diagnosed(dataset, results, view, RULES, diagnose)
            waiting = []
    for view in class_views(dataset, waiting, choice, params.recall_thresholds, pair_iou, exclude):
        yield diagnosed(dataset, results, view, RULES, diagnose)
    stats = summary.result() if summary.started else category_summary(cats, frequency, params)
    yield Summary(f"LVIS {task}", stats, lvis_notes(results), headline="AP")


def rederive_lvis_views(
    dataset: Dataset, results: ResultSet, raws: Mapping[int, Any], choice: ViewChoice
) -> list[ClassView]:
    """Every category again at another threshold or area, from the stored evidence."""
    rt = lvis_params(iou_type(results)).recall_thresholds
    boundary = iou_type(results) == "segm" and choice.iou_kind == "boundary"
    exclude = _never_missed(dataset, results, "boundary" if boundary else "")
    pair_iou = task_pair_iou(dataset, results, "boundary" if boundary else iou_type(results))
    ordered = [(k, raws[k]) for k in sorted(raws)]
    views = class_views(dataset, ordered, choice, rt, pair_iou, exclude)
    return [diagnosed(dataset, results, v, RULES) for v in views]


def prepare_lvis_view(dataset: Dataset, path: Path) -> Dataset:
    """Masks, keypoints and captions as for COCO (LVIS has no crowd: none is tagged)."""
    from dataclasses import replace

    from vocviewer.families.views import view_extras, with_view_extras

    ds = attach_companions(dataset, path)
    return with_view_extras(ds, replace(view_extras(ds), crowd=None))
