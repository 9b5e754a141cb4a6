"""The one rule for official-ness, shared by ``vocviewer eval`` and every pane of the window.

Numbers are official when they are what the protocol's own code would print for the same input.
``not_official_reasons`` lists why they are not, in words for a message or a tooltip:

* ground truth was lost: a problem of ``Dataset.problems`` left objects (or whole files) out
  (``formats.problem_kinds.lost_ground_truth`` classifies problems by their message's ending,
  for every family); the official code stops there, so the CLI refuses it without
  ``--keep-going``;
* result rows were skipped (``ResultSet.problems``: what ``--keep-going`` lets through);
* a choice the protocol does not make (``ViewSettings.official``: VOC at an IoU other than 0.5;
  ``chosen_reason``: COCO's ``--max-dets`` / ``--area-ranges`` / ``--iou-thresholds``, Boundary
  AP's dilation ratio other than 0.02);
* ``extra`` reasons a caller knows of (a fixed quirk, a family's own notes).

Each ``Reason`` has a ``short`` form for the mark placed after such numbers (``mark``:
``"NOT OFFICIAL (IoU 0.70)"``) and a ``text`` (``str(reason)``: the CLI's note, the tooltip and
the message, ``explain``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families.views import BOUNDARY_DILATION, ViewChoice, ViewSettings
from vocviewer.formats.problem_kinds import LEFT_OUT_ENDS, lost_ground_truth

#: The mark after numbers that are not official (the CLI's notes start with it).
NOT_OFFICIAL = "NOT OFFICIAL"


@dataclass(frozen=True)
class Reason:
    """Why numbers are not official: ``short`` for the mark, ``text`` in full."""

    short: str
    text: str

    def __str__(self) -> str:
        return self.text


def lost_note(lost: Sequence[FormatError]) -> str:
    """The reason for ground-truth ``lost`` (problems that left objects out or defaulted a
    field the official evaluator reads; not empty)."""
    left_out = all(p.message.endswith(LEFT_OUT_ENDS) for p in lost)
    what = "left objects out" if left_out else "the official evaluator fails on"
    return (
        f"{len(lost)} ground-truth problem(s) {what} (first: {lost[0]}); "
        "the official code cannot read these annotations"
    )


def iou_note(settings: ViewSettings, iou: float) -> str | None:
    """The reason for an IoU threshold the protocol does not use, or ``None``."""
    if settings.official(ViewChoice(iou)):
        return None
    return f"IoU threshold {iou:g}; the devkit uses {settings.official_iou:g}"


def chosen_reason(what: str, chosen: str, official: str) -> Reason:
    """A parameter chosen other than the protocol's (COCO's ``maxDets`` ...): ``short``
    ``"maxDets 1,10,300"`` for the mark, ``text`` saying what the protocol uses."""
    return Reason(f"{what} {chosen}", f"{what} {chosen}; the protocol uses {official}")


def not_official_reasons(
    dataset: Dataset | None,
    settings: ViewSettings,
    choice: ViewChoice,
    results: ResultSet | None = None,
    extra: Iterable[str] = (),
) -> tuple[Reason, ...]:
    """Why numbers of ``results`` on ``dataset`` at ``choice`` are not the protocol's official
    ones (empty: they are). ``dataset`` ``None``: the choice alone."""
    reasons: list[Reason] = []
    task = results.task if results is not None else None  # COCO's segm: a missing mask counts
    lost = lost_ground_truth(dataset.problems, task) if dataset is not None else []
    if lost:
        reasons.append(Reason("ground truth lost", lost_note(lost)))
    if results is not None and results.problems:
        first = results.problems[0]
        text = (
            f"{len(results.problems)} result problem(s) skipped (first: {first}); "
            "the official code would have stopped"
        )
        reasons.append(Reason("results skipped", text))
    iou = iou_note(settings, choice.iou)
    if iou is not None:
        reasons.append(Reason(f"IoU {choice.iou:.2f}", iou))
    if choice.iou_kind == "boundary" and choice.dilation_ratio != BOUNDARY_DILATION:
        ratio, default = f"{choice.dilation_ratio:g}", f"{BOUNDARY_DILATION:g}"
        reasons.append(chosen_reason("dilation ratio", ratio, default))
    for note in extra:  # a family's notes, "NOT OFFICIAL: " before them or not
        text = note.removeprefix(f"{NOT_OFFICIAL}: ")
        if text and all(text != r.text for r in reasons):
            reasons.append(Reason("see notes", text))
    return tuple(reasons)


def mark(reasons: Sequence[Reason]) -> str:
    """``"NOT OFFICIAL (IoU 0.70)"`` (each reason's short form once), or ``""`` if none."""
    shorts = ", ".join(dict.fromkeys(r.short for r in reasons))
    return f"{NOT_OFFICIAL} ({shorts})" if reasons else ""


def explain(reasons: Sequence[Reason]) -> str:
    """One text for a tooltip or a message: ``NOT OFFICIAL:`` then each reason on a line."""
    return f"{NOT_OFFICIAL}: " + "\n".join(r.text for r in reasons) if reasons else ""
