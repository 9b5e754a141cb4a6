"""Several ``--results`` paths through the real CLI: each is one result set (a VOC competition's
per-class files together are one), for every family. ``eval`` prints each set's official output
exactly as if the set were given alone, headed by its name, then one summary table with a column
per set; ``--json`` holds one entry per set (the single-set JSON when there is one set). Nothing
given is ignored: an empty ``[]`` first no longer hides the second file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.test_cli_analyze_families import ilsvrc_case, random_visdrone, write_visdrone
from vocviewer.cli import main


def find_coco_mini() -> Path | None:
    """``shared/data/coco-mini`` beside any folder holding this checkout (a worktree too)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data" / "coco-mini" / "annotations").is_dir():
            return parent / "shared" / "data" / "coco-mini"
    return None


MINI = find_coco_mini()


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def single(capsys: pytest.CaptureFixture[str], tmp_path: Path, head: list[Any], paths: list[Any]):
    """What ``eval`` prints and writes for one set's ``paths`` alone: (text, payload)."""
    out = tmp_path / "single.json"
    code, text, err = run(capsys, "eval", *head[:1], "--results", *paths, *head[1:], "--json", out)
    assert code == 0, err
    return text, json.loads(out.read_text())


def check_sets(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    head: list[Any],
    sets: list[tuple[str, list[Any]]],
) -> tuple[str, dict[str, Any]]:
    """``eval`` of every path of ``sets`` together: each set's block is its own ``eval`` output,
    the JSON holds each set's own payload, the summary has a column per set."""
    out = tmp_path / "all.json"
    given = [p for _, paths in sets for p in paths]
    code, text, err = run(capsys, "eval", *head[:1], "--results", *given, *head[1:], "--json", out)
    assert code == 0, err
    payload = json.loads(out.read_text())
    assert list(payload["sets"]) == [name for name, _ in sets]
    for i, (name, paths) in enumerate(sets, 1):
        alone_text, alone_payload = single(capsys, tmp_path, head, paths)
        block = f"== result set {i} of {len(sets)}: {name} ("
        assert block in text
        body = text.split(block, 1)[1].split("\n", 1)[1]
        assert body.startswith(alone_text.rstrip() + "\n")
        assert payload["sets"][name] == alone_payload
    table = text.split(f"summary of {len(sets)} result sets\n", 1)[1].splitlines()
    assert table[0].split() == [name for name, _ in sets]
    assert table[-1].split()[0] == "official"
    return text, payload


def summary_row(text: str, name: str) -> list[str]:
    """The cells of the summary table's row ``name``."""
    table = text.split("\nsummary of ", 1)[1].splitlines()
    return next(line.split()[1:] for line in table if line.split()[0] == name)


def test_voc_folders_and_a_competitions_files_are_sets(demo, tmp_path, capsys) -> None:
    main_dir = demo.results_dir / "Main"
    a, b = tmp_path / "A", tmp_path / "B"
    shutil.copytree(main_dir, a)
    shutil.copytree(main_dir, b)
    for f in b.glob("*_det_*.txt"):  # B keeps two lines in three
        lines = f.read_text().splitlines(keepends=True)
        f.write_text("".join(line for i, line in enumerate(lines) if i % 3))
    comp = sorted(str(f) for f in main_dir.glob("comp4_det_val_*.txt"))
    head = [demo.year_dir]
    text, payload = check_sets(capsys, tmp_path, head, [("A", [a]), ("B", [b]), ("comp4", comp)])
    maps = {n: payload["sets"][n]["summary"]["mAP"] for n in ("A", "B", "comp4")}
    assert maps["A"] == maps["comp4"] > maps["B"]
    assert summary_row(text, "mAP") == [f"{maps[n]:.3f}" for n in ("A", "B", "comp4")]
    assert payload["official"] is True and payload["task"] == "det"


def write_coco(root: Path) -> tuple[Path, Path, list[dict[str, Any]]]:
    """A small COCO annotation JSON with real image files: 4 images, cats and dogs."""
    images = root / "images"
    images.mkdir(parents=True)
    rng = np.random.default_rng(5)
    gt: dict[str, Any] = {
        "images": [],
        "annotations": [],
        "categories": [
            {"id": 1, "name": "cat", "supercategory": "animal"},
            {"id": 2, "name": "dog", "supercategory": "animal"},
        ],
    }
    dets = []
    for i in range(1, 5):
        Image.new("RGB", (160, 120), (90, 100 + 20 * i, 140)).save(images / f"{i:03d}.jpg")
        gt["images"].append({"id": i, "file_name": f"{i:03d}.jpg", "width": 160, "height": 120})
        for k in range(3):
            x, y = float(rng.integers(0, 100)), float(rng.integers(0, 70))
            w, h = float(rng.integers(12, 50)), float(rng.integers(12, 40))
            cat = 1 + (k + i) % 2
            gt["annotations"].append(
                {
                    "id": len(gt["annotations"]) + 1,
                    "image_id": i,
                    "category_id": cat,
                    "bbox": [x, y, w, h],
                    "area": w * h,
                    "iscrowd": 0,
                }
            )
            dets.append(
                {
                    "image_id": i,
                    "category_id": cat,
                    "score": round(float(rng.random()), 3),
                    "bbox": [x + float(rng.normal(0, 2)), y, w, h],
                }
            )
    ann = root / "annotations" / "instances_small.json"
    ann.parent.mkdir()
    ann.write_text(json.dumps(gt))
    return ann, images, dets


def test_coco_files_are_sets_and_an_empty_first_file_hides_nothing(tmp_path, capsys) -> None:
    ann, images, dets = write_coco(tmp_path / "coco")
    a, b, empty = tmp_path / "detA.json", tmp_path / "detB.json", tmp_path / "empty.json"
    a.write_text(json.dumps(dets))
    b.write_text(json.dumps(dets[::2]))
    empty.write_text("[]")
    head = [ann, "--images", images]
    text, payload = check_sets(capsys, tmp_path, head, [("detA.json", [a]), ("detB.json", [b])])
    ap = {n: payload["sets"][n]["summary"]["AP"] for n in ("detA.json", "detB.json")}
    assert ap["detA.json"] > ap["detB.json"] > 0  # B was silently ignored before
    # ``[]`` first: pycocotools' loadRes fails on an empty list, so it is refused by name ...
    code, _, err = run(capsys, "eval", ann, "--results", empty, a, "--images", images)
    assert code == 1 and f"{empty} ([]): an empty results list" in err
    # ... and with --keep-going A is evaluated (before, every AP printed 0.000 and A was never
    # read), the empty set marked
    text, payload = check_sets(
        capsys, tmp_path, [*head, "--keep-going"], [("empty.json", [empty]), ("detA.json", [a])]
    )
    assert payload["sets"]["detA.json"]["summary"]["AP"] == ap["detA.json"]
    assert summary_row(text, "AP") == ["0.000", f"{ap['detA.json']:.3f}"]
    assert summary_row(text, "official") == ["NOT", "OFFICIAL", "yes"]
    # two files of the same name are two sets, told apart
    (tmp_path / "other").mkdir()
    again = tmp_path / "other" / "detA.json"
    again.write_text(a.read_text())
    code, _, err = run(capsys, "eval", ann, "--results", a, again, "--json", tmp_path / "x.json")
    assert code == 0, err
    assert list(json.loads((tmp_path / "x.json").read_text())["sets"]) == [
        "detA.json",
        "detA.json-2",
    ]


@pytest.mark.skipif(MINI is None, reason="coco-mini not available")
def test_coco_mini_two_result_files(tmp_path, capsys) -> None:
    assert MINI is not None
    ann = MINI / "annotations" / "instances_val2017.json"
    gt = json.loads(ann.read_text())
    rng = np.random.default_rng(3)
    dets = [
        {
            "image_id": g["image_id"],
            "category_id": g["category_id"],
            "bbox": [v + float(rng.normal(0, 2)) for v in g["bbox"]],
            "score": round(float(rng.random()), 3),
        }
        for g in gt["annotations"]
        if rng.random() < 0.8
    ]
    a, b, empty = tmp_path / "detA.json", tmp_path / "detB.json", tmp_path / "empty.json"
    a.write_text(json.dumps(dets))
    b.write_text(json.dumps(dets[1::3]))
    empty.write_text("[]")
    sets = [("empty.json", [empty]), ("detA.json", [a]), ("detB.json", [b])]
    _, payload = check_sets(
        capsys, tmp_path, [ann, "--keep-going"], sets
    )  # [] is no official input
    ap = [payload["sets"][n]["summary"]["AP"] for n, _ in sets]
    assert ap[0] == 0.0 and ap[1] > ap[2] > 0.0


def test_lvis_visdrone_and_ilsvrc_files_are_sets(tmp_path, capsys) -> None:
    pytest.importorskip("lvis")
    from tests.parity.lvis_data import write_lvis

    ann, res = write_lvis(tmp_path / "lvis", 12, kind="bbox", ignore=True)
    second = tmp_path / "second.json"
    second.write_text(json.dumps(json.loads(res.read_text())[1::2]))
    check_sets(capsys, tmp_path, [ann], [("results.json", [res]), ("second.json", [second])])

    gts, good = random_visdrone(np.random.default_rng(4), 8, 0.85)
    weak = [d[::2] for d in good]
    split = write_visdrone(tmp_path / "vd", gts, {"good": good, "weak": weak})
    sets = [("good", [tmp_path / "vd" / "good"]), ("weak", [tmp_path / "vd" / "weak"])]
    _, payload = check_sets(capsys, tmp_path, [split], sets)
    assert payload["sets"]["good"]["summary"]["AP"] > payload["sets"]["weak"]["summary"]["AP"]
    files = sorted((tmp_path / "vd" / "good").glob("*.txt"))  # ``good/*.txt``: one set
    _, again = check_sets(capsys, tmp_path, [split], [("good", files), sets[1]])
    assert again == payload

    gt, devkit, (pred, other, _), _, _ = ilsvrc_case(tmp_path / "ilsvrc")
    sets = [("pred.txt", [pred]), ("other.txt", [other])]
    check_sets(capsys, tmp_path, [gt, "--devkit", devkit], sets)
