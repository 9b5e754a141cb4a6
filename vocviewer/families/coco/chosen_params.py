"""COCOeval parameters the user chooses (``--max-dets``, ``--area-ranges``, ``--iou-thresholds``)
for every family that evaluates by COCO's rules (COCO, YOLO), Boundary AP's ``--dilation-ratio``
(LVIS too), and the NOT OFFICIAL notes they bring. Values equal to the protocol's are official; anything else is noted.

Syntax (also accepted as Python values by ``vocviewer.evaluate``):
``--max-dets 1,10,300`` (positive integers; bbox / segm need at least three, as pycocotools'
``summarize()`` reads ``maxDets[2]``); ``--area-ranges all=0:1e10,small=0:1024`` (``name=lo:hi``
in pixels², inclusive; ``summarize()`` finds its rows by these names, so a name it does not
print — or a missing one — reads -1, as in pycocotools); ``--iou-thresholds 0.5,0.75`` or
``0.5:0.95:0.05`` (``start:stop:step``, built with ``np.linspace`` as pycocotools builds its own).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vocviewer.core.errors import FormatError
from vocviewer.families.coco.params import CocoParams
from vocviewer.families.official import NOT_OFFICIAL, Reason, chosen_reason


def _items(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def parse_max_dets(value: Any, task: str) -> tuple[int, ...]:
    """``"1,10,300"`` or a sequence of ints -> the caps (``ValueError`` saying what is wrong)."""
    try:
        caps = tuple(int(v) for v in _items(value))
    except ValueError:
        raise ValueError(f"--max-dets: integers separated by commas, not {value!r}") from None
    if not caps or min(caps) < 1:
        raise ValueError(f"--max-dets: positive integers, not {value!r}")
    if task != "keypoints" and len(caps) < 3:
        raise ValueError(
            "--max-dets: at least three caps (pycocotools' summarize() reads maxDets[2])"
        )
    return caps


def parse_area_ranges(value: Any) -> tuple[tuple[tuple[float, float], ...], tuple[str, ...]]:
    """``"all=0:1e10,small=0:1024"`` or a mapping name -> (lo, hi) -> (ranges, names)."""
    pairs: list[tuple[str, tuple[float, float]]] = []
    if isinstance(value, Mapping):
        pairs = [(str(k), (float(v[0]), float(v[1]))) for k, v in value.items()]
    else:
        for item in _items(value):
            name, eq, span = item.partition("=")
            lo, colon, hi = span.partition(":")
            try:
                if not (eq and colon and name.strip()):
                    raise ValueError
                pairs.append((name.strip(), (float(lo), float(hi))))
            except ValueError:
                raise ValueError(f"--area-ranges: name=lo:hi, not {item!r}") from None
    if not pairs:
        raise ValueError("--area-ranges: at least one name=lo:hi")
    names = [n for n, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError(f"--area-ranges: names repeat in {value!r}")
    for n, (a, b) in pairs:
        if not (np.isfinite(a) and np.isfinite(b) and 0 <= a <= b):
            raise ValueError(f"--area-ranges: {n} needs 0 <= lo <= hi, finite")
    return tuple(r for _, r in pairs), tuple(names)


def parse_iou_thresholds(value: Any) -> np.ndarray:
    """``"0.5,0.75"``, ``"0.5:0.95:0.05"`` or a sequence of floats -> float64 (T,), in (0, 1]."""
    text = value if isinstance(value, str) else None
    try:
        if text is not None and ":" in text:
            a, b, s = (float(v) for v in text.split(":"))
            if s <= 0 or b < a:
                raise ValueError
            ious = np.linspace(a, b, int(np.round((b - a) / s)) + 1)
        else:
            ious = np.array([float(v) for v in _items(value)], dtype=np.float64)
    except ValueError:
        raise ValueError(
            f"--iou-thresholds: thresholds separated by commas or start:stop:step, not {value!r}"
        ) from None
    if not len(ious) or not np.all((ious > 0) & (ious <= 1)):
        raise ValueError(f"--iou-thresholds: thresholds in (0, 1], not {value!r}")
    return ious


def chosen_params(task: str, options: Mapping[str, Any]) -> CocoParams:
    """``CocoParams.for_task(task)`` with the chosen ``max_dets`` / ``area_ranges`` /
    ``iou_thresholds`` of ``options`` (by option ``dest``; ``None``: the protocol's);
    ``FormatError`` (no file) for a value that does not parse."""
    try:
        return _chosen(task, options)
    except ValueError as e:
        raise FormatError(None, str(e)) from None


def _chosen(task: str, options: Mapping[str, Any]) -> CocoParams:
    params = CocoParams.for_task(task)
    if options.get("max_dets") is not None:
        params = replace(params, max_dets=parse_max_dets(options["max_dets"], task))
    if options.get("area_ranges") is not None:
        ranges, names = parse_area_ranges(options["area_ranges"])
        params = replace(params, area_ranges=ranges, area_names=names)
    if options.get("iou_thresholds") is not None:
        params = replace(params, iou_thresholds=parse_iou_thresholds(options["iou_thresholds"]))
    return with_dilation_ratio(params, options.get("dilation_ratio"))


def with_dilation_ratio(params: CocoParams, value: Any) -> CocoParams:
    """``params`` with ``--dilation-ratio`` ``value`` (``None``: unchanged); ``ValueError`` for
    a value that is not positive and finite or a task other than ``boundary``."""
    if value is None:
        return params
    if params.iou_type != "boundary":
        raise ValueError(f"--dilation-ratio applies to --task boundary, not {params.iou_type}")
    ratio = float(value)
    if not (np.isfinite(ratio) and ratio > 0):
        raise ValueError(f"--dilation-ratio: a positive fraction of the diagonal, not {value!r}")
    return replace(params, dilation_ratio=ratio)


def _fmt(values: Sequence[float] | np.ndarray) -> str:
    return ",".join(f"{v:g}" for v in values)


def _spans(p: CocoParams) -> str:
    pairs = zip(p.area_names, p.area_ranges, strict=True)
    return ",".join(f"{n}={a:g}:{b:g}" for n, (a, b) in pairs)


def param_reasons(params: CocoParams) -> tuple[Reason, ...]:
    """Why ``params`` are not official: each value that differs from the protocol's for its
    task (``families.official.chosen_reason``); empty if none does."""
    ref = CocoParams.for_task(params.iou_type, use_cats=params.use_cats)
    reasons: list[Reason] = []
    if params.max_dets != ref.max_dets:
        reasons.append(chosen_reason("maxDets", _fmt(params.max_dets), _fmt(ref.max_dets)))
    if (params.area_ranges, params.area_names) != (ref.area_ranges, ref.area_names):
        reasons.append(chosen_reason("area ranges", _spans(params), _spans(ref)))
    same = len(params.iou_thresholds) == len(ref.iou_thresholds) and bool(
        np.all(params.iou_thresholds == ref.iou_thresholds)
    )
    if not same:
        reasons.append(
            chosen_reason("IoU thresholds", _fmt(params.iou_thresholds), "0.50:0.05:0.95")
        )
    return (*reasons, *dilation_reasons(params))


def dilation_reasons(params: CocoParams) -> tuple[Reason, ...]:
    """Boundary AP at another dilation ratio than the paper's 0.02: its reason, else none."""
    default = CocoParams().dilation_ratio
    if params.iou_type != "boundary" or params.dilation_ratio == default:
        return ()
    return (chosen_reason("dilation ratio", f"{params.dilation_ratio:g}", f"{default:g}"),)


def param_notes(params: CocoParams) -> tuple[str, ...]:
    """``param_reasons`` as the notes ``eval`` prints (``NOT OFFICIAL: ...``)."""
    return tuple(f"{NOT_OFFICIAL}: {r.text}" for r in param_reasons(params))


def with_param_notes(result: Any) -> Any:
    """A ``CocoEvalResult`` with its params' NOT OFFICIAL notes added to ``notes``."""
    extra = tuple(n for n in param_notes(result.params) if n not in result.notes)
    return replace(result, notes=(*result.notes, *extra)) if extra else result
