"""A test-only toy analysis beyond AP: per detection class, the true positives among its top
``N`` ranks. It is declared here and registered by the tests that use it
(``evaluation.analyses.registry.register``): no other file names it, yet it reaches ``vocviewer
analyze`` (flag, option, text, JSON, figure), the Python API and the window's Analysis tab."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vocviewer.evaluation.analyses.base import Analysis, Subject, TextPart, option
from vocviewer.evaluation.result import Verdict


@dataclass(frozen=True)
class ToyOptions:
    toy_top: int = option(5, "toy: ranks counted per class (5)", "N")


@dataclass(frozen=True)
class ToyResult:
    top: int
    hits: dict[int, tuple[str, int]]  # class index -> (class name, TPs in its top ranks)

    def to_dict(self) -> dict[str, Any]:
        return {"toy_precision": {"top": self.top, "per_class": dict(self.hits.values())}}

    def text(self) -> TextPart:
        total = sum(h for _, h in self.hits.values())
        rows = {k: f"{h:>6}" for k, (_, h) in self.hits.items()}
        return TextPart(
            f"TPs in the top {self.top}", f"{'topTP':>6}", rows, f"{'-':>6}", f"{total:>6}"
        )

    def figures(self, title: str) -> list[tuple[str, str]]:
        svg = f'<svg xmlns="http://www.w3.org/2000/svg"><title>{title}</title></svg>\n'
        return [("toy", svg)]


def compute(s: Subject, o: ToyOptions) -> ToyResult:
    evs = s.evidence.evaluations("det")
    top = o.toy_top
    hits = {e.class_index: (e.class_name, int(np.sum(e.verdict[:top] == Verdict.TP))) for e in evs}
    return ToyResult(top, hits)


TOY = Analysis(
    "toy_precision",
    "Toy: true positives among each class's top ranks",
    "true positives among the top N ranks of each class (a test's toy)",
    ToyOptions,
    compute,
    figures=("toy",),
)
