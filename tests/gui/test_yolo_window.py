"""A YOLO split in the window: COCO's numbers, the Ultralytics column as a message."""

from __future__ import annotations

import json

from tests.parity.yolo_data import make_yolo
from vocviewer.cli import main


def test_the_window_shows_cocos_numbers_and_the_ultralytics_column(qtbot, make_window, tmp_path):
    case = make_yolo(tmp_path, "detect", seed=3)
    out = tmp_path / "eval.json"
    assert main(["eval", str(case.yaml), "--results", str(case.pred_txt), "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    win = make_window()
    st, posted = win.state, []
    st.messages_posted.connect(posted.extend)
    win.open_dataset(case.yaml, (case.pred_txt,), None)
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: all(e.summary is not None for e in st.evaluations), timeout=10_000)
    assert dict(st.evaluations[0].summary.stats) == payload["summary"]
    u = payload["ultralytics"]["summary"]
    text = next(m.text for m in posted if "Ultralytics validator convention" in m.text)
    assert (
        f"mAP50-95 {u['mAP50-95']:.4f}" in text
        and f"COCO AP {payload['summary']['AP']:.4f}" in text
    )
