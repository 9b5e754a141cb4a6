"""The PR dots' styles: verdict, and a false positive's kind where it was diagnosed."""

from __future__ import annotations

import numpy as np

from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.panes.pr.pane import DOT_STYLES, dot_codes

V, K = Verdict, FPKind


def test_dot_codes_follow_verdict_then_kind():
    verdict = np.array([V.TP, V.FP, V.FP, V.DUPLICATE, V.IGNORED, V.FP], dtype=np.int8)
    kind = np.array([K.NOT_FP, K.BACKGROUND, K.LOCALIZATION, K.NOT_FP, K.NOT_FP, K.NOT_FP])
    styles = [DOT_STYLES[c] for c in dot_codes(verdict, kind)]
    assert styles == [
        (V.TP, -1),
        (V.FP, K.BACKGROUND),
        (V.FP, K.LOCALIZATION),
        (V.DUPLICATE, -1),
        (V.IGNORED, -1),
        (V.FP, -1),  # an undiagnosed FP: plain
    ]
    plain = [DOT_STYLES[c] for c in dot_codes(verdict, None)]
    assert plain == [
        (V.TP, -1),
        (V.FP, -1),
        (V.FP, -1),
        (V.DUPLICATE, -1),
        (V.IGNORED, -1),
        (V.FP, -1),
    ]
