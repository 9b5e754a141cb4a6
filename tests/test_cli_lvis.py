"""``vocviewer eval`` on an LVIS annotation JSON: ``LVISEval.print_results``' lines byte for byte,
the JSON payload, and the messages for bad input."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("lvis")
pytest.importorskip("pycocotools")

from tests.parity.lvis_data import lvis_eval, write_lvis
from tests.parity.test_lvis_parity import category_ap
from vocviewer.cli import main


@pytest.mark.parametrize(("kind", "task"), [("bbox", None), ("segm", "segm")])
def test_eval_prints_lviseval_lines_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, task: str | None
) -> None:
    ann, res = write_lvis(tmp_path, 21, kind=kind)
    out = tmp_path / "out.json"
    argv = ["eval", str(ann), "--results", str(res), "--json", str(out)]
    assert main(argv + (["--task", task] if task else [])) == 0
    captured = capsys.readouterr()
    ev = lvis_eval(ann, res, task or "bbox")
    with contextlib.redirect_stdout(io.StringIO()) as buf:
        ev.print_results()
    assert captured.out == buf.getvalue()
    assert len(captured.out.splitlines()) == 13
    assert "counted toward the image's 300 detections" in captured.err  # category 999's entries
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "lvis" and payload["task"] == (task or "bbox")
    assert payload["official"] is True and payload["notes"] == []
    assert list(payload["summary"]) == list(ev.results)
    np.testing.assert_allclose(
        list(payload["summary"].values()), [float(v) for v in ev.results.values()], atol=1e-12
    )
    cats = ev.lvis_gt.load_cats(ev.params.cat_ids)
    assert list(payload["per_class"]) == [c["name"] for c in cats]
    ref_ap = category_ap(ev.eval["precision"])
    for c, ap in zip(cats, ref_ap.tolist(), strict=True):
        entry = payload["per_class"][c["name"]]
        assert entry["frequency"] == c["frequency"]
        assert entry["ap"] is None if np.isnan(ap) else abs(entry["ap"] - ap) < 1e-12


def test_protocol_coco_evaluates_an_lvis_file_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, res = write_lvis(tmp_path, 22, kind="bbox", crowded=0)
    assert main(["eval", str(ann), "--results", str(res)]) == 0
    lvis_ap = capsys.readouterr().out.splitlines()[0]
    assert "catIds=all] =" in lvis_ap
    # LVIS annotations have no "iscrowd", which pycocotools reads (KeyError): refused ...
    assert main(["eval", str(ann), "--results", str(res), "--protocol", "coco"]) == 1
    err = capsys.readouterr().err
    assert '(annotations[0]): missing "iscrowd" (and in' in err and "--keep-going" in err
    # ... and evaluated with --keep-going (crowd taken as 0), NOT OFFICIAL
    args = ["eval", str(ann), "--results", str(res), "--protocol", "coco", "--keep-going"]
    assert main(args) == 0
    captured = capsys.readouterr()
    coco = captured.out.splitlines()
    assert len(coco) == 13 and "catIds" not in coco[0] and "NOT OFFICIAL" in coco[12]
    assert "an LVIS file evaluated by COCO's rules (--protocol coco)" in captured.err
    assert coco[0][-5:] != lvis_ap[-5:]  # the federated rules change AP


def test_keep_going_skips_bad_rows_and_says_not_official(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, res = write_lvis(tmp_path, 23, kind="bbox", crowded=0)
    entries = json.loads(res.read_text())
    entries[3]["score"] = "high"
    res.write_text(json.dumps(entries))
    assert main(["eval", str(ann), "--results", str(res)]) == 1
    err = capsys.readouterr().err
    assert err == f'vocviewer: error: {res} ([3].score): expected a number, got "high"\n'
    out = tmp_path / "out.json"
    assert main(["eval", str(ann), "--results", str(res), "--keep-going", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.endswith("NOTE: result rows were skipped: NOT OFFICIAL\n")
    payload = json.loads(out.read_text())
    assert payload["official"] is False
    assert payload["notes"] == ["result rows were skipped: NOT OFFICIAL"]


def _bad_lvis(tmp_path: Path) -> tuple[Path, Path]:
    ann, res = write_lvis(tmp_path, 24, kind="bbox", crowded=0)
    return ann, res


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("task", "{ann}: LVIS evaluates --task bbox or segm, not keypoints"),
        ("image", "{res} ([0].image_id): image_id 5 is not an image of the annotation file"),
        ("neg", "{ann} (images[2]): missing 'neg_category_ids' (LVIS lists it for every image)"),
        (
            "freq",
            "{ann} (categories[0].frequency): expected the frequency group 'r', 'c' or 'f'; "
            'got "x"',
        ),
        (
            "keypoints",
            "{res} ([0]): keypoint results (no 'bbox' or 'segmentation'): LVIS "
            "evaluates boxes and masks",
        ),
        ("notlist", "{res}: results must be a JSON array of objects, got {{}}"),
    ],
)
def test_bad_input_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, expected: str
) -> None:
    ann, res = _bad_lvis(tmp_path)
    gt = json.loads(ann.read_text())
    entries = json.loads(res.read_text())
    argv = ["eval", str(ann), "--results", str(res)]
    if case == "task":
        argv += ["--task", "keypoints"]
    elif case == "image":
        entries[0]["image_id"] = 5
    elif case == "neg":
        del gt["images"][2]["neg_category_ids"]
    elif case == "freq":
        gt["categories"][0]["frequency"] = "x"
    elif case == "keypoints":
        entries = [
            {
                "image_id": gt["images"][0]["id"],
                "category_id": 1,
                "keypoints": [1, 1, 2],
                "score": 1.0,
            }
        ]
    elif case == "notlist":
        entries = {}  # type: ignore[assignment]
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(entries))
    out = tmp_path / "out.json"
    assert main([*argv, "--json", str(out)]) == 1
    message = expected.format(ann=ann, res=res)
    assert capsys.readouterr().err == f"vocviewer: error: {message}\n"
    assert not out.exists()
