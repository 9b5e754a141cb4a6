"""The kinds of input problems that decide official-ness, told apart by how a message ends.

Readers end a problem's message with one of these; ``lost_ground_truth`` picks the ones that make
the numbers differ from the official evaluator's (ground truth left out, a field the official
code fails without), so ``families.base.check_ground_truth`` and ``families.official`` can refuse
or mark them whatever the family.
"""

from __future__ import annotations

from collections.abc import Iterable

from vocviewer.core.errors import FormatError

#: Ends a ground-truth problem that makes the numbers differ from the official evaluator's
#: (pycocotools, ``lvis``): a field it reads is missing, so it fails where this reader defaults
#: the field or leaves the annotation out. ``NOT_OFFICIAL + TASK_SCOPE + task`` ends one that
#: matters only under that ``--task``; ``families.voc.annotations.lost_ground_truth`` finds both.
NOT_OFFICIAL = ": NOT OFFICIAL"
TASK_SCOPE = " under --task "
#: What a missing field's problem says the official evaluator does.
OFFICIAL_FAILS = "the official evaluator fails on it"

#: Ends the message of a problem that left a ground-truth object (or part) out.
LEFT_OUT = "object left out"
#: Ends the message of a problem that left a whole annotation file's objects out.
NOTHING_READ = "no objects read"


#: Ends of the problems that left ground truth out (objects, parts or whole files).
LEFT_OUT_ENDS = (LEFT_OUT, "part left out", NOTHING_READ)


def lost_ground_truth(
    problems: Iterable[FormatError], task: str | None = None
) -> list[FormatError]:
    """The problems that left ground truth out (objects or whole files) or defaulted a field the
    official evaluator fails without (``NOT_OFFICIAL``), in order; with ``task``,
    also those that matter only under it (``--task segm``: no ``segmentation``)."""
    scoped = (f"{NOT_OFFICIAL}{TASK_SCOPE}{task}",) if task else ()
    ends = (*LEFT_OUT_ENDS, NOT_OFFICIAL, *scoped)
    return [p for p in problems if p.message.endswith(ends)]
