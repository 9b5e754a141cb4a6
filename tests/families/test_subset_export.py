"""A selection written as a new COCO / VOC / YOLO folder (``families.subset_export``), read back by
vocviewer's own readers: exactly the chosen images and their annotations; results filtered and
still evaluated as pycocotools evaluates the same images of the source files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import gen_results
from vocviewer.core.boxes import to_continuous
from vocviewer.core.errors import OutputError
from vocviewer.core.subset import select
from vocviewer.families.registry import open_dataset
from vocviewer.families.subset_export import write_subset
from vocviewer.families.subset_run import read_sets
from vocviewer.families.yolo.reader import read_yolo

MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini"
GT = MINI / "annotations" / "instances_val2017.json"
needs_mini = pytest.mark.skipif(not GT.is_file(), reason="coco-mini not available")
ROWS = [0, 3, 4, 9, 17, 22, 23, 40]
KEYS = ("AP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100", "ARs", "ARm", "ARl")


def _by_id(ds: Any) -> dict[str, list[tuple[int, tuple[float, ...]]]]:
    """image file stem → its objects as (class name index, continuous xyxy box), in file order."""
    boxes = to_continuous(ds.objects.box, ds.box_convention)
    out: dict[str, list[tuple[int, tuple[float, ...]]]] = {}
    for i, image_id in enumerate(p.stem for p in ds.images.path):
        rows = range(*ds.objects_of(i).indices(len(ds.objects)))
        out[image_id] = [(int(ds.objects.label[j]), tuple(boxes[j])) for j in rows]
    return out


def _same(read: Any, chosen: Any, *, exact: bool = True) -> None:
    """``read`` (read back) holds exactly ``chosen``'s images and objects (classes by name)."""
    got, want = _by_id(read), _by_id(chosen)
    assert sorted(got) == sorted(want)
    names = {k: read.classes[k] for k in range(len(read.classes))}
    for image_id, objects in want.items():
        back = got[image_id]
        assert [names[k] for k, _ in back] == [chosen.classes[k] for k, _ in objects]
        a, b = np.array([x for _, x in back]), np.array([x for _, x in objects])
        if exact:
            assert np.array_equal(a.reshape(-1, 4), b.reshape(-1, 4))
        else:
            np.testing.assert_allclose(a.reshape(-1, 4), b.reshape(-1, 4), rtol=0, atol=1e-9)


def test_demo_round_trip_voc_coco_yolo(demo, tmp_path: Path) -> None:
    ds = open_dataset(demo.year_dir)
    chosen = select(ds, ROWS).dataset
    write_subset(ds, ROWS, "voc", tmp_path / "voc")
    voc = open_dataset(tmp_path / "voc")
    _same(voc, chosen)
    for col in ("difficult", "truncated", "occluded"):
        assert np.array_equal(getattr(voc.objects, col), getattr(chosen.objects, col))
    assert voc.image_sets["Main/subset"].tolist() == list(range(len(ROWS)))
    assert sorted(p.name for p in (tmp_path / "voc" / "JPEGImages").iterdir()) == sorted(
        f"{i}.jpg" for i in chosen.images.id
    )
    write_subset(ds, ROWS, "coco", tmp_path / "coco", images="symlink")
    coco = open_dataset(tmp_path / "coco" / "annotations" / "instances_subset.json")
    _same(coco, chosen)
    assert all(p.is_file() for p in coco.images.path)  # found where the COCO reader looks
    assert all(p.is_symlink() for p in (tmp_path / "coco" / "subset").iterdir())
    write_subset(ds, ROWS, "yolo", tmp_path / "yolo", images="hardlink")
    yolo = read_yolo(tmp_path / "yolo" / "data.yaml", None, masks=False)
    _same(yolo, chosen, exact=False)  # YOLO keeps coordinates divided by the image size


def test_refuses_the_dataset_and_a_non_empty_folder(demo, tmp_path: Path) -> None:
    ds = open_dataset(demo.year_dir)
    for inside in (demo.year_dir, demo.year_dir / "new", demo.devkit / "x"):
        with pytest.raises(OutputError, match="refusing to write inside"):
            write_subset(ds, ROWS, "voc", inside)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(OutputError, match="exists and is not empty"):
        write_subset(ds, ROWS, "coco", tmp_path / "full")
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    (tmp_path / "empty").mkdir()
    write_subset(ds, ROWS, "coco", tmp_path / "empty")  # an empty folder is fine
    results = read_sets(ds, [demo.results_dir / "Main"], "val")
    with pytest.raises(OutputError, match="refusing to write inside"):
        write_subset(ds, ROWS, "coco", demo.results_dir / "Main" / "sub", results)


def test_demo_results_filtered_and_evaluated(demo, tmp_path: Path) -> None:
    """Every val image written as VOC2012 with its results: the evaluation equals the source's;
    a proper subset keeps exactly its images' detections."""
    import vocviewer

    ds = open_dataset(demo.year_dir)
    val = ds.image_sets["Main/val"]
    sets = read_sets(ds, [demo.results_dir / "Main"], "val")
    out = tmp_path / "VOC2012"
    write_subset(ds, val, "voc", out, sets, name="val")
    mine = vocviewer.evaluate(out, out / "results" / sets[0][0] / "Main")
    theirs = vocviewer.evaluate(demo.year_dir, demo.results_dir, image_set="val")
    assert json.dumps(mine.per_class) == json.dumps(theirs.per_class)  # NaN: no positives
    assert mine.summary == theirs.summary
    rs = sets[0][1]
    write_subset(ds, ROWS, "voc", tmp_path / "part", sets)
    lines = [
        line.split()
        for f in (tmp_path / "part" / "results" / sets[0][0] / "Main").iterdir()
        for line in f.read_text().splitlines()
    ]
    chosen = np.isin(rs.detections.image_index, ROWS)
    assert len(lines) == int(chosen.sum())
    assert {row[0] for row in lines} <= set(ds.images.id[ROWS])


def stats(gt: Path, res: Path, ids: list[int] | None = None) -> np.ndarray:
    """pycocotools' 12 bbox numbers of ``res`` on ``gt`` (on the images ``ids`` if given)."""
    import contextlib
    import io

    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(str(gt))
        ev = COCOeval(coco, coco.loadRes(str(res)), "bbox")
        if ids is not None:
            ev.params.imgIds = ids
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return np.asarray(ev.stats)


@pytest.fixture(scope="module")
def coco_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("subset_res") / "det.json"
    path.write_text(json.dumps(gen_results(json.loads(GT.read_text()), 7)))
    return path


@needs_mini
def test_coco_mini_round_trip_keeps_ids_and_every_field(tmp_path: Path) -> None:
    ds = open_dataset(GT)
    write_subset(ds, ROWS, "coco", tmp_path / "c")
    doc = json.loads((tmp_path / "c" / "annotations" / "instances_subset.json").read_text())
    source = json.loads(GT.read_text())
    ids = {int(i) for i in ds.images.id[ROWS]}
    assert doc["categories"] == source["categories"]
    assert doc["images"] == [im for im in source["images"] if im["id"] in ids]
    assert doc["annotations"] == [a for a in source["annotations"] if a["image_id"] in ids]
    back = open_dataset(tmp_path / "c" / "annotations" / "instances_subset.json")
    _same(back, select(ds, ROWS).dataset)
    for to in ("voc", "yolo"):
        write_subset(ds, ROWS, to, tmp_path / to)
    voc = open_dataset(tmp_path / "voc")
    assert sorted(voc.images.id) == sorted(ds.images.path[r].stem for r in ROWS)
    yolo = read_yolo(tmp_path / "yolo" / "data.yaml", None, masks=False)
    crowd_free = [a for a in doc["annotations"] if not a["iscrowd"]]
    assert len(yolo.objects) == len(crowd_free)  # YOLO has no crowd flag: crowds left out


@needs_mini
def test_coco_mini_results_evaluate_as_pycocotools(coco_results: Path, tmp_path: Path) -> None:
    """The subset's files evaluated by vocviewer equal pycocotools on them, which equals
    pycocotools on the source files restricted to the chosen images (``params.imgIds``)."""
    import vocviewer

    ds = open_dataset(GT)
    rows = np.arange(0, len(ds.images), 2)
    sets = read_sets(ds, [coco_results], None)
    write_subset(ds, rows, "coco", tmp_path / "c", sets)
    sub_gt = tmp_path / "c" / "annotations" / "instances_subset.json"
    sub_res = tmp_path / "c" / "results" / f"{sets[0][0]}.json"

    on_subset = stats(sub_gt, sub_res, None)
    restricted = stats(GT, coco_results, [int(i) for i in ds.images.id[rows]])
    np.testing.assert_array_equal(on_subset, restricted)
    mine = vocviewer.evaluate(sub_gt, sub_res)
    ours = [mine.summary[k] for k in KEYS]
    np.testing.assert_allclose(ours, on_subset, rtol=0, atol=1e-12)
    assert 0 < len(json.loads(sub_res.read_text())) < len(json.loads(coco_results.read_text()))


def test_yolo_source_keeps_file_names_and_predictions(demo, tmp_path: Path) -> None:
    """A YOLO split (the demo's val images written as YOLO) subset again as YOLO: images named
    as before, its predictions filtered; evaluated, it equals pycocotools on the COCO subset of
    the same demo images."""
    import vocviewer

    ds = open_dataset(demo.year_dir)
    sets = read_sets(ds, [demo.results_dir / "Main"], "val")
    write_subset(ds, ds.image_sets["Main/val"], "yolo", tmp_path / "y", sets)
    yolo = read_yolo(tmp_path / "y" / "data.yaml", None, masks=False)
    preds = read_sets(yolo, [tmp_path / "y" / "predictions" / sets[0][0]], None)
    rows = np.arange(0, len(yolo.images), 3)
    write_subset(yolo, rows, "yolo", tmp_path / "y2", preds)
    back = read_yolo(tmp_path / "y2" / "data.yaml", None, masks=False)
    _same(back, select(yolo, rows).dataset, exact=False)
    stems = {yolo.images.path[r].stem for r in rows}
    written = {p.stem for p in (tmp_path / "y2" / "predictions" / preds[0][0]).iterdir()}
    assert written <= stems and written
    source_rows = [ds.find_image(s) for s in sorted(stems)]
    write_subset(ds, source_rows, "coco", tmp_path / "c", sets)
    ours = vocviewer.evaluate(
        tmp_path / "y2" / "data.yaml", tmp_path / "y2" / "predictions" / preds[0][0]
    )
    theirs = stats(
        tmp_path / "c" / "annotations" / "instances_subset.json",
        tmp_path / "c" / "results" / f"{sets[0][0]}.json",
    )
    assert theirs[0] > 0
    np.testing.assert_allclose([ours.summary[k] for k in KEYS], theirs, rtol=0, atol=1e-9)


def test_lvis_subset_evaluates_as_the_lvis_api(tmp_path: Path) -> None:
    """An LVIS file's subset keeps its federated fields; with its results it evaluates as
    ``LVISEval`` on the written files."""
    pytest.importorskip("lvis")
    import vocviewer
    from tests.parity.lvis_data import lvis_eval, write_lvis

    ann, res = write_lvis(tmp_path / "src", 3)
    ds = open_dataset(ann)
    rows = np.arange(0, len(ds.images), 2)
    sets = read_sets(ds, [res], None)
    write_subset(ds, rows, "lvis", tmp_path / "sub", sets)
    sub_ann = tmp_path / "sub" / "annotations" / "instances_subset.json"
    sub_res = tmp_path / "sub" / "results" / f"{sets[0][0]}.json"
    doc, source = json.loads(sub_ann.read_text()), json.loads(ann.read_text())
    ids = {int(i) for i in ds.images.id[rows]}
    assert [im["id"] for im in doc["images"]] == [
        im["id"] for im in source["images"] if im["id"] in ids
    ]
    assert all("neg_category_ids" in im for im in doc["images"])
    official = lvis_eval(sub_ann, sub_res, "bbox").results
    mine = vocviewer.evaluate(sub_ann, sub_res)
    assert official["AP"] > 0 and list(mine.summary) == list(official)
    np.testing.assert_allclose(
        [mine.summary[k] for k in official], [float(v) for v in official.values()], atol=1e-12
    )
