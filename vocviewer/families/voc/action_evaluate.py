"""PASCAL VOC action classification (``VOCevalaction``), exactly.

Rules (PROTOCOLS.md §5), per action class, as classification (§2) with persons for images:

* Ground truth ``ImageSets/Action/<action>_<set>.txt``: ``<id> <object index> <label>``, label 1
  performing, -1 not (0 neither). Persons are keyed by image id and 1-based object index.
* Every listed person starts with score ``-inf``; a result line sets it, the last line for a person
  wins. A line for a person not in the list, or for a person listed twice, is an error in the
  official code (``FormatError`` with ``strict``; otherwise the line is skipped with a note).
* All listed persons are ranked, descending, stable: ties keep list order, unscored persons last.
* label > 0 → TP, < 0 → FP, 0 → neither (keeps its slot); ``rec = cumsum(tp)/#(label > 0)``,
  ``prec = tp/(tp+fp)``, AP = ``VOCap`` (the action task exists from VOC2010 on).
* 'other' has no special case in the evaluator; the challenge has ten actions and the action mAP
  (``action_mean_ap``) averages those, leaving 'other' out and saying so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import numpy.typing as npt

from vocviewer.core.arrays import frozen
from vocviewer.core.dataset import Dataset, PersonSet
from vocviewer.core.errors import FormatError
from vocviewer.core.ranking import rank_by_score
from vocviewer.evaluation.ap import voc_ap_11_point, voc_ap_all_points, voc_precision_recall
from vocviewer.evaluation.result import ClassEvaluation, EvalResult, Verdict
from vocviewer.families.voc.person_results import ActionScores

IntArray = npt.NDArray[np.int64]
#: The action left out of the action mAP (VOC2011 devkit manual §7.1).
OTHER_ACTION = "other"


def action_persons(dataset: Dataset, action: str, image_set: str) -> PersonSet:
    """The labelled person list of ``action``: ``Action/<action>_<set>.txt`` if read, else
    derived from ``Action/<set>.txt`` and the annotations' action flags (1 / -1)."""
    key = f"Action/{action}_{image_set}"
    found = dataset.person_sets.get(key)
    if found is not None and found.label is not None:
        return found
    listed = dataset.person_sets.get(f"Action/{image_set}")
    if listed is None or action not in dataset.actions:
        raise FormatError(dataset.root, f"no person list ImageSets/{key}.txt in this dataset")
    column = dataset.actions.index(action)
    rows = listed.object_index
    flag = np.zeros(len(rows), dtype=bool)
    flag[rows >= 0] = dataset.objects.actions[rows[rows >= 0], column]
    labels = np.where(flag, 1, -1).astype(np.int8)
    return PersonSet(listed.image_index, rows, labels, listed.object_number)


def _keys(dataset: Dataset, persons: PersonSet) -> list[tuple[str, int]]:
    """``(image id, 1-based object number)`` of each listed person, as the file gives them (the
    official code never looks at the annotation here)."""
    ids = dataset.images.id[persons.image_index].tolist()
    return list(zip(ids, persons.numbers(dataset.objects).tolist(), strict=True))


def evaluate_action_class(
    dataset: Dataset,
    action: str,
    scores: ActionScores | None,
    *,
    image_set: str,
    ap_rule: str = "allpoints",
    strict: bool = True,
    notes: list[str] | None = None,
) -> ClassEvaluation:
    """``VOCevalaction`` for one action; ``scores=None`` means no results file (all ``-inf``).

    ``order`` holds the row in the action's person list at each rank, ``best_gt`` the object
    row, ``ndet`` the number of persons that received a score.
    """
    persons = action_persons(dataset, action, image_set)
    assert persons.label is not None
    keys = _keys(dataset, persons)
    first: dict[tuple[str, int], int] = {}
    twice: set[tuple[str, int]] = set()
    for i, k in enumerate(keys):
        if k in first:
            twice.add(k)
        first.setdefault(k, i)
    score = np.full(len(keys), -np.inf)
    scored = np.zeros(len(keys), dtype=bool)
    skipped: list[str] = []
    if scores is not None:
        for row, (image, obj, s) in enumerate(
            zip(
                scores.image_id.tolist(),
                scores.object_number.tolist(),
                scores.score.tolist(),
                strict=True,
            )
        ):
            k = (str(image), int(obj))
            idx = first.get(k)
            why = None
            if idx is None:
                why = f"person {image} {obj} is not in ImageSets/Action/{action}_{image_set}.txt"
            elif k in twice:
                why = f"person {image} {obj} is listed twice in ImageSets/Action/{action}_{image_set}.txt"
            if why is not None:
                if strict:
                    line = None if scores.line is None else int(scores.line[row]) or None
                    raise FormatError(scores.path, why, line=line)
                skipped.append(f"{scores.where(row)}: {why}")
                continue
            assert idx is not None
            score[idx] = s
            scored[idx] = True
    if skipped and notes is not None:
        notes.append(f"{action}: {len(skipped)} result lines skipped (first: {skipped[0]})")
    order = rank_by_score(score)
    label = persons.label[order]
    tp = (label > 0).astype(np.float64)
    fp = (label < 0).astype(np.float64)
    prec, rec = voc_precision_recall(tp, fp, int(np.count_nonzero(persons.label > 0)))
    verdict = np.where(label > 0, Verdict.TP, np.where(label < 0, Verdict.FP, Verdict.IGNORED))
    ap = voc_ap_11_point(rec, prec) if ap_rule == "11point" else voc_ap_all_points(rec, prec)
    return ClassEvaluation(
        class_index=dataset.actions.index(action) if action in dataset.actions else -1,
        class_name=action,
        task="action",
        npos=int(np.count_nonzero(persons.label > 0)),
        has_results=scores is not None,
        ndet=int(np.count_nonzero(scored)),
        order=frozen(order, np.int64),
        image_index=frozen(persons.image_index[order], np.int64),
        score=frozen(score[order], np.float64),
        verdict=frozen(verdict, np.int8),
        best_gt=frozen(persons.object_index[order], np.int64),
        best_iou=frozen(np.full(len(order), np.nan), np.float64),
        duplicate_of=frozen(np.full(len(order), -1), np.int64),
        precision=frozen(prec, np.float64),
        recall=frozen(rec, np.float64),
        ap=ap,
    )


def iter_evaluate_voc_action(
    dataset: Dataset,
    scores: Mapping[str, ActionScores],
    *,
    image_set: str,
    ap_rule: str = "allpoints",
    actions: Iterable[str] | None = None,
    strict: bool = True,
    notes: list[str] | None = None,
) -> Iterator[ClassEvaluation]:
    """One ``ClassEvaluation`` per action (default: every action with a results file, in
    ``dataset.actions`` order, plus the ten challenge actions that have a person list)."""
    if actions is None:
        actions = [
            a
            for a in dataset.actions
            if a in scores or (a != OTHER_ACTION and _has_list(dataset, a, image_set))
        ]
    for action in actions:
        yield evaluate_action_class(
            dataset,
            action,
            scores.get(action),
            image_set=image_set,
            ap_rule=ap_rule,
            strict=strict,
            notes=notes,
        )


def _has_list(dataset: Dataset, action: str, image_set: str) -> bool:
    return (
        f"Action/{action}_{image_set}" in dataset.person_sets
        or f"Action/{image_set}" in dataset.person_sets
    )


def evaluate_voc_action(
    dataset: Dataset,
    scores: Mapping[str, ActionScores],
    *,
    image_set: str,
    ap_rule: str = "allpoints",
    actions: Iterable[str] | None = None,
    strict: bool = True,
) -> EvalResult:
    """``VOCevalaction`` over actions (task ``"action"``); see ``iter_evaluate_voc_action``."""
    unknown = sorted(set(scores) - set(dataset.actions))
    if unknown:
        first = scores[unknown[0]]
        raise FormatError(
            first.path,
            f"unknown action {unknown[0]!r}; expected one of {', '.join(dataset.actions)}",
        )
    notes: list[str] = []
    classes = tuple(
        iter_evaluate_voc_action(
            dataset,
            scores,
            image_set=image_set,
            ap_rule=ap_rule,
            actions=actions,
            strict=strict,
            notes=notes,
        )
    )
    return EvalResult(
        protocol="voc2007" if ap_rule == "11point" else "voc2012",
        task="action",
        image_set=image_set,
        ap_rule=ap_rule,
        iou_threshold=math.nan,
        classes=classes,
        notes=tuple(notes),
    )


def action_mean_ap(result: EvalResult) -> tuple[float, list[str], list[str]]:
    """The action mAP: mean AP over the actions other than 'other' that have a results file and
    a defined AP. Returns ``(mAP, actions averaged, actions left out with why)``."""
    used: list[str] = []
    left_out: list[str] = []
    aps: list[float] = []
    for c in result.classes:
        if c.class_name == OTHER_ACTION:
            left_out.append(f"{c.class_name} (not a challenge action)")
        elif not c.has_results:
            left_out.append(f"{c.class_name} (no results file)")
        elif math.isnan(c.ap):
            left_out.append(f"{c.class_name} (AP NaN: no positives)")
        else:
            used.append(c.class_name)
            aps.append(c.ap)
    mean = float(np.cumsum(aps)[-1] / len(aps)) if aps else math.nan
    return mean, used, left_out
