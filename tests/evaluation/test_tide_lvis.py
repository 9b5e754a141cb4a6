"""TIDE on LVIS against the real ``tidecv`` 1.0.1 (``datasets.LVIS`` / ``LVISResult``, box mode).

``tidecv`` emulates LVIS with ignore regions: every category neither annotated on an image nor in
its ``neg_category_ids``, and every not-exhaustive one, becomes a whole-image ignore region, so
those detections leave AP but are still typed as errors. On a file where every category is
exhaustive, every image lists every absent category as negative, no annotation has area 0 or an
``ignore`` flag and every result is of a known category with an area, the federated rules change
nothing: there our breakdown, every detection's verdict and the per-class APs are bit-identical
to ``tidecv``'s. On a federated file they differ exactly where the rules say (the detections LVIS
does not evaluate are ``tidecv`` errors and not ours). Shims: as ``test_tide``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import tidecv  # noqa: F401 (the fixture)
from tests.parity.lvis_data import make_lvis, make_results, write_lvis
from vocviewer.evaluation.tide import KIND_NAMES
from vocviewer.evaluation.tide_evidence import NOT_EVALUATED
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.lvis.evaluate import UNVERIFIED, evaluate_lvis, select
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
from vocviewer.families.lvis.tide import lvis_tide


def write_plain(tmp: Path, seed: int) -> tuple[Path, Path]:
    """An LVIS file on which federated = plain (module docstring)."""
    gt = make_lvis(seed)
    ids = [c["id"] for c in gt["categories"]]
    on: dict[int, set[int]] = {}
    for a in gt["annotations"]:
        a["area"] = max(a["area"], 1.0)
        on.setdefault(a["image_id"], set()).add(a["category_id"])
    for im in gt["images"]:
        im["neg_category_ids"] = [c for c in ids if c not in on.get(im["id"], set())]
        im["not_exhaustive_category_ids"] = []
    res = [
        r
        for r in make_results(gt, seed, crowded=0)
        if r["category_id"] in ids and r["bbox"][2] * r["bbox"][3] > 0
    ]
    ann, out = tmp / "lvis_plain.json", tmp / "results.json"
    ann.write_text(json.dumps(gt))
    out.write_text(json.dumps(res))
    return ann, out


def run_both(tide_mod: Any, ann: Path, res: Path) -> tuple[Any, Any, dict[str, Any]]:
    gt = tide_mod.datasets.LVIS(str(ann))
    preds = tide_mod.datasets.LVISResult(str(res))
    t = tide_mod.TIDE()
    t.evaluate(gt, preds, mode=tide_mod.TIDE.BOX)
    errors = t.get_all_errors()
    run = t.runs[preds.name]
    ref = {"ap": run.ap, **errors["main"][preds.name], **errors["special"][preds.name]}
    ds = read_lvis(ann, masks=False)
    results = read_lvis_results(ds, res)
    return run, lvis_tide(ds, results, evaluate_lvis(ds, results)), ref


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bit_identical_to_tidecv_where_federated_is_plain(
    tidecv: Any,  # noqa: F811
    tmp_path: Path,
    seed: int,
) -> None:
    ann, res = write_plain(tmp_path, seed)
    run, ours, ref = run_both(tidecv, ann, res)
    assert {"ap": ours.ap, **ours.main, **ours.special} == ref  # bit-identical
    ev = ours.evidence
    for err in run.errors:
        if hasattr(err, "pred"):
            i = err.pred["_id"]  # the entry's index in the results file: our row
            assert KIND_NAMES[int(ev.kind[i])] == err.short_name, i
            assert bool(ev.fixable[i]) == (
                err.short_name in ("Cls", "Loc") and err.fixed[1] is not None
            )
    used = [p["_id"] for p in run.preds.annotations if p.get("used") is True]
    assert sorted(used) == np.flatnonzero(ev.kind == 0).tolist()
    assert ours.counts()["Miss"] == len(run.error_dict[tidecv.MissedError])
    cat_ids = read_lvis(ann, masks=False).data(CocoAnnotations).category_id.tolist()
    expected = {c: o.get_ap() for c, o in run.ap_data.objs.items() if not o.is_empty()}
    assert {cat_ids[k]: ours.class_ap[k] for k in np.flatnonzero(ours.class_counted["AP"])} == (
        expected
    )


def test_tidecv_types_what_lvis_does_not_evaluate(tidecv: Any, tmp_path: Path) -> None:  # noqa: F811
    """On a federated file (no results of unknown categories, none over the cap), ``tidecv``
    keeps every detection of an unverified category as an (ignored) error; we do not evaluate
    them, and LVIS's AP does not see them either way."""
    ann, res = write_lvis(tmp_path, 4, crowded=0)
    kept = [r for r in json.loads(res.read_text()) if r["category_id"] != 999]
    res.write_text(json.dumps(kept))
    run, ours, _ = run_both(tidecv, ann, res)
    ds = read_lvis(ann, masks=False)
    status = select(ds, read_lvis_results(ds, res)).status
    unverified = set(np.flatnonzero(status == UNVERIFIED).tolist())
    typed = {e.pred["_id"] for e in run.errors if hasattr(e, "pred") and e.pred["used"] is None}
    assert unverified and unverified <= typed
    assert np.all(ours.evidence.kind[sorted(unverified)] == NOT_EVALUATED)
    assert ours.evidence.count("Bkg") < sum(1 for e in run.errors if e.short_name == "Bkg")
