"""LVIS in the window: browsed and evaluated through its benchmark, with LVISEval's verdicts —
detections the federated rules do not evaluate are ignored ranks, never false positives."""

from __future__ import annotations

import numpy as np

from tests.parity.lvis_data import write_lvis
from vocviewer.evaluation.result import Verdict
from vocviewer.families.lvis.evaluate import EVALUATED, evaluate_lvis, select
from vocviewer.families.registry import open_dataset, open_results


def test_lvis_window_shows_lvisevals_verdicts(qtbot, make_window, tmp_path):
    ann, res = write_lvis(tmp_path, 5)
    win = make_window()
    st = win.state
    win.open_dataset(ann, (res,))
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.evaluations[0].summary is not None, timeout=10_000)
    ds = open_dataset(ann)
    rs = open_results(ds, [res])
    expected = evaluate_lvis(ds, rs)
    assert st.evaluations[0].summary.stats == expected.summary()
    status = select(ds, rs).status
    verdict = st.evaluations[0].verdict_by_row
    unevaluated = np.flatnonzero(status != EVALUATED)
    assert len(unevaluated) > 0
    # never a false positive: ignored where ranked, else not ranked at all
    assert set(verdict[unevaluated].tolist()) <= {-1, int(Verdict.IGNORED)}
    for k, cat in enumerate(expected.categories):  # IoU 0.50: LVISEval's own matches
        ev = st.evaluations[0].det[k]
        assert ev.order.tolist() == cat.det_rows.tolist()
        assert ev.verdict.tolist() == cat.verdict[0].tolist()
        assert ev.ap == cat.ap or (np.isnan(ev.ap) and np.isnan(cat.ap))
    assert win.summary.values() == expected.summary()
