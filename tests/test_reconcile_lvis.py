"""``vocviewer reconcile`` where the data is federated (LVIS): the LVIS end is the ``lvis``
package's ``LVISEval`` AP50, the COCO end pycocotools' AP50 on the same file, and the one-rule
steps between them (300 per image, federated filter, not exhaustive, ignore field, positive
areas) sum to the difference within 1e-9, as every pair's do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.parity.lvis_data import lvis_eval, write_lvis
from tests.test_reconcile import _pycocotools_ap50, _run, _telescopes

pytest.importorskip("lvis")


@pytest.mark.parametrize(
    ("seed", "ignore", "crowded"), [(31, False, 1), (32, True, 2), (33, False, 0)]
)
def test_lvis_end_is_lviseval_and_the_steps_telescope(
    tmp_path: Path, seed, ignore, crowded
) -> None:
    ann, res = write_lvis(tmp_path, seed, ignore=ignore, crowded=crowded)
    payload = _run(tmp_path, str(ann), "--results", str(res))
    _telescopes(payload)
    values = payload["protocols"]
    assert list(values) == ["LVIS AP50", "COCO AP50", "VOC2012", "VOC2007"]
    ref = lvis_eval(ann, res, "bbox")
    assert values["LVIS AP50"] == pytest.approx(float(ref.results["AP50"]), abs=1e-12)
    gt = json.loads(ann.read_text())  # pycocotools needs iscrowd; LVIS files have none (0)
    for a in gt["annotations"]:
        a.setdefault("iscrowd", 0)
    assert values["COCO AP50"] == pytest.approx(_pycocotools_ap50(gt, res), abs=1e-12)
    first = payload["pairs"][0]
    assert [s["rule"] for s in first["steps"]] == [
        "LVIS maxDets",
        "federated",
        "not exhaustive",
        "ignore field",
        "positive areas",
    ]
    moved = {s["rule"] for s in first["steps"] if abs(s["change"]) > 1e-6}
    assert "federated" in moved
    if crowded:
        assert "LVIS maxDets" in moved
    text = json.dumps(payload)
    assert "LVISEval" in text
