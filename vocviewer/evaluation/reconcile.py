"""Why the same detections score differently under two protocols: a chain of one-rule switches.

The protocols a result set can be read by stand on one path (``Endpoint``s, e.g. Ultralytics ->
COCO -> VOC2012 -> VOC2007); between neighbours, ``Step``s switch one rule at a time from the
first protocol's rules to the second's, each measured on the same detections with every earlier
switch kept, so the steps telescope: their changes sum to the difference of the two ends (to
rounding). ``reconcile`` builds the path with ``protocol_rules.mean_ap`` for the COCO / VOC part;
a family adds its own head (``Leg``: Ultralytics' validator, LVIS's rules) measured by its own
code. ``what_if``: rules no protocol on the path uses (class-agnostic matching), each switched
alone from COCO AP50 and measured, beside the path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vocviewer.evaluation.protocol_rules import (
    CLASS_AGNOSTIC,
    COCO,
    COCO_TO_VOC,
    VOC2012,
    VOC2012_TO_2007,
    Columns,
    Rules,
    Switch,
    mean_ap,
)


@dataclass(frozen=True)
class Step:
    """One rule switched: ``rule``, what changed (``what``), the value after it, its change."""

    rule: str
    what: str
    value: float
    change: float


@dataclass(frozen=True)
class Leg:
    """From protocol ``start`` (value ``start_value``) to ``end`` through ``steps``."""

    start: str
    start_value: float
    end: str
    steps: tuple[Step, ...]

    @property
    def end_value(self) -> float:
        return self.steps[-1].value if self.steps else self.start_value


@dataclass(frozen=True)
class Reconciliation:
    """The path of legs (each starting where the last ended) and the metric's name."""

    metric: str
    legs: tuple[Leg, ...]
    notes: tuple[str, ...] = ()
    what_if: tuple[Step, ...] = ()  # each switched alone from COCO AP50 (``coco_what_if``)

    def values(self) -> dict[str, float]:
        """Each protocol's number, in path order."""
        out = {self.legs[0].start: self.legs[0].start_value}
        out.update({leg.end: leg.end_value for leg in self.legs})
        return out

    def between(self, a: str, b: str) -> tuple[Step, ...]:
        """The steps from protocol ``a`` to ``b`` along the path (``a`` before ``b``)."""
        names = list(self.values())
        i, j = names.index(a), names.index(b)
        return tuple(s for leg in self.legs[i:j] for s in leg.steps)

    def pairs(self) -> list[tuple[str, str]]:
        names = list(self.values())
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]

    def to_json(self) -> dict[str, Any]:
        values = self.values()
        return {
            "metric": self.metric,
            "protocols": values,
            "pairs": [
                {
                    "from": a,
                    "to": b,
                    "difference": values[b] - values[a],
                    "steps": [
                        {"rule": s.rule, "what": s.what, "value": s.value, "change": s.change}
                        for s in self.between(a, b)
                    ],
                }
                for a, b in self.pairs()
            ],
            "order": [s.rule for leg in self.legs for s in leg.steps],
            "what_if": [
                {
                    "from": "COCO AP50",
                    "rule": s.rule,
                    "what": s.what,
                    "value": s.value,
                    "change": s.change,
                }
                for s in self.what_if
            ],
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        """The report: each protocol's number, then for each pair its steps in order."""
        values = self.values()
        out = [f"{self.metric} of the same detections under each protocol:"]
        out += [f"  {name:<14} {v:.4f}" for name, v in values.items()]
        for a, b in self.pairs():
            steps = self.between(a, b)
            moved = ", ".join(
                f"{s.change:+.4f} from {s.rule}" for s in steps if abs(s.change) >= 5e-5
            )
            out.append("")
            out.append(
                f"{a} {values[a]:.4f} vs {b} {values[b]:.4f}: {values[b] - values[a]:+.4f} = "
                + (moved or "no rule moves it by 0.0001 or more")
            )
            out += [f"  {s.change:+.6f}  {s.rule}: {s.what}" for s in steps]
        out.append("")
        order = " -> ".join(s.rule for leg in self.legs for s in leg.steps)
        out.append(f"rules switched one at a time, each kept for the next, in this order: {order}")
        for s in self.what_if:
            out.append(
                f"what if, from COCO AP50 alone: {s.rule} ({s.what}): {s.value:.4f} "
                f"({s.change:+.4f})"
            )
        out += [f"NOTE: {n}" for n in self.notes]
        return out


def leg(
    columns: Columns,
    start: str,
    rules: Rules,
    end: str,
    switches: tuple[tuple[str, str, Switch], ...],
) -> tuple[Leg, Rules]:
    """Switch ``switches`` one after another from ``rules``; the leg and the rules reached."""
    value = mean_ap(columns, rules)
    first, steps = value, []
    for name, what, switch in switches:
        rules = switch(rules)
        after = mean_ap(columns, rules)
        steps.append(Step(name, what, after, after - value))
        value = after
    return Leg(start, first, end, tuple(steps)), rules


def coco_voc_legs(columns: Columns) -> tuple[Leg, ...]:
    """COCO AP50 -> VOC2012 -> VOC2007 on ``columns``."""
    to_2012, rules = leg(columns, "COCO AP50", COCO, "VOC2012", COCO_TO_VOC)
    assert rules == VOC2012
    to_2007, _ = leg(columns, "VOC2012", rules, "VOC2007", VOC2012_TO_2007)
    return to_2012, to_2007


def coco_what_if(columns: Columns) -> tuple[Step, ...]:
    """The rules no protocol on the path uses, each switched alone from COCO's AP50."""
    base = mean_ap(columns, COCO)
    name, what, switch = CLASS_AGNOSTIC
    value = mean_ap(columns, switch(COCO))
    return (Step(name, what, value, value - base),)


def reconcile(
    columns: Columns, head: Leg | None = None, notes: tuple[str, ...] = ()
) -> Reconciliation:
    """The path ``head`` (a family's protocol ending at COCO AP50, optional) -> COCO AP50 ->
    VOC2012 -> VOC2007, at IoU 0.5 (the one threshold every protocol here shares), and the
    ``what_if`` rules beside it."""
    legs = coco_voc_legs(columns)
    if head is not None:
        legs = (head, *legs)
    return Reconciliation("AP at IoU 0.5", legs, notes, coco_what_if(columns))
