"""VOC action results files (``<comp>_action_<set>_<action>.txt``, VOC2011 devkit manual §7.3).

Each line is ``<image id> <object index> <score>``, whitespace separated; the object index is the
person's 1-based position among its image's objects. Rows keep file order (the last line for a
person wins in the evaluation). A malformed line (wrong field count, non-integer index, score not
a number or NaN) is left out and named, with its file and line, in the problems returned;
``strict`` raises the first instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vocviewer.core.errors import FormatError
from vocviewer.families.voc.person_results import ActionScores
from vocviewer.formats.input import check_regular
from vocviewer.formats.output import write_text
from vocviewer.formats.text_fields import (
    FileProblems,
    describe,
    read_text,
    split_lines,
    to_float,
    to_int,
)

#: ``<comp>_action_<set>_<action>.txt``; action names have no ``_``.
ACTION_NAME = re.compile(r"^(?P<comp>.+?)_action_(?P<set>.+)_(?P<action>[^_]+)\.txt$")


def read_action_results(
    path: str | Path, action: str | None = None, *, strict: bool = False
) -> tuple[ActionScores, list[FormatError]]:
    """Read one action results file; ``action`` defaults to the one in the file name.

    Raises
    ------
    FormatError
        The file is missing, its name names no action and none was given, or (``strict``) a
        line is malformed.
    """
    p = Path(path)
    check_regular(p)  # FormatError naming the file: missing, FIFO, device, link loop
    if action is None:
        m = ACTION_NAME.match(p.name)
        if m is None:
            raise FormatError(
                p, "name is not <comp>_action_<set>_<action>.txt; cannot tell the action"
            )
        action = m["action"]
    problems: list[FormatError] = []
    fp = FileProblems(problems, p)
    ids: list[str] = []
    objects: list[int] = []
    scores: list[float] = []
    lines: list[int] = []
    for n, tokens in enumerate(split_lines(read_text(p)), 1):
        if not tokens:
            continue
        why = None
        obj = to_int(tokens[1]) if len(tokens) == 3 else None
        score = to_float(tokens[2]) if len(tokens) == 3 else None
        if len(tokens) != 3:
            why = f"expected '<image id> <object index> <score>', got {describe(tokens)}"
        elif obj is None or not 1 <= obj < 2**31:
            why = f"object index {tokens[1]!r} is not an integer in 1..2^31-1"
        elif score is None or math.isnan(score):
            why = f"score {tokens[2]!r} is not a number"
        if why is not None:
            if strict:
                raise FormatError(p, why, line=n)
            fp.add(f"{why}; line left out", line=n)
            continue
        assert obj is not None and score is not None
        ids.append(tokens[0])
        objects.append(obj)
        scores.append(score)
        lines.append(n)
    fp.close()
    result = ActionScores(
        action=action,
        image_id=np.array(ids, dtype=np.str_),
        object_number=np.array(objects, dtype=np.int64),
        score=np.array(scores, dtype=np.float64),
        line=np.array(lines, dtype=np.int64),
        path=p,
    )
    return result, problems


def find_action_results(
    paths: Sequence[str | Path], image_set: str | None = None
) -> dict[str, Path]:
    """``action → results file`` from files and folders (a folder contributes its ``Action/``
    subfolder if it has one, else its own ``*_action_<set>_*.txt`` files).

    Raises
    ------
    FormatError
        A path does not exist, a named file is not an action results file, two files name the
        same action, or nothing was found.
    """
    found: dict[str, Path] = {}
    for given in paths:
        p = Path(given)
        if not p.exists():
            raise FormatError(p, "does not exist")
        if p.is_dir():
            folder = p / "Action" if (p / "Action").is_dir() else p
            files = sorted(f for f in folder.iterdir() if f.is_file() and ACTION_NAME.match(f.name))
        else:
            if ACTION_NAME.match(p.name) is None:
                raise FormatError(p, "name is not <comp>_action_<set>_<action>.txt")
            files = [p]
        for f in files:
            m = ACTION_NAME.match(f.name)
            assert m is not None
            if image_set is not None and m["set"] != image_set:
                continue
            if m["action"] in found and found[m["action"]] != f:
                raise FormatError(
                    f,
                    f"a second results file for action {m['action']!r} "
                    f"(the first is {found[m['action']].name})",
                )
            found[m["action"]] = f
    if not found:
        wanted = f"<comp>_action_{image_set or '<set>'}_<action>.txt"
        raise FormatError(Path(paths[0]) if paths else None, f"no files named {wanted} found")
    return found


def write_action_results(path: str | Path, scores: ActionScores) -> Path:
    """Write ``scores`` as ``<id> <object index> <score>`` lines (atomic replace)."""
    target = Path(path)
    text = "".join(
        f"{i} {o} {s!r}\n".replace("inf", "Inf")
        for i, o, s in zip(
            scores.image_id.tolist(),
            scores.object_number.tolist(),
            scores.score.tolist(),
            strict=True,
        )
    )
    write_text(target, text)
    return target
