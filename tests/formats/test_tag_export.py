"""Tag exports (``formats.tag_export``): CSV / JSON rows of every tag, and VOC XML patches that,
laid over the annotations they correct, evaluate as the corrected dataset."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.evaluation.planted import plant
from tests.evaluation.test_tide import gen_results
from vocviewer import evaluate
from vocviewer.core.errors import OutputError
from vocviewer.core.tags import Fix, Tags, Target
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.formats.tag_export import (
    TAG_COLUMNS,
    apply_coco_patch,
    write_coco_patch,
    write_tag_tables,
    write_voc_patches,
)


def test_voc_patches_evaluate_as_the_corrected_dataset(demo, tmp_path):
    """Errors planted on a copy of the demo, tagged with the fixes that undo them (the deleted
    box added, the old class back, the old box back, the copy deleted): the exported XMLs laid
    over the planted copy evaluate exactly as the original demo."""
    clean = demo.year_dir
    planted_dir = tmp_path / "planted" / "VOC2012"
    planted = plant(clean, planted_dir, n=4, seed=3)
    assert evaluate(planted_dir, demo.results_dir).text != evaluate(clean, demo.results_dir).text
    tags = Tags()
    for j, (image_id, box) in enumerate(planted.missing):  # as if tagged on detection j
        name = planted.was[(image_id, box)][0]
        target = Target("detection", image_id, j, 0)
        tags = tags.toggle(target, "missing annotation", Fix("add", name, box))
    for image_id, position in planted.wrong_label:
        fix = Fix("relabel", planted.was[(image_id, position)][0])
        tags = tags.toggle(Target("object", image_id, position), "wrong class", fix)
    for image_id, position in planted.loose_box:
        box = planted.was[(image_id, position)][1]
        fix = Fix("rebox", None, box)  # type: ignore[arg-type]
        tags = tags.toggle(Target("object", image_id, position), "loose box", fix)
    for image_id, position in planted.duplicate:
        tags = tags.toggle(Target("object", image_id, position), "label error", Fix("delete"))
    dataset = open_dataset(planted_dir)
    out = tmp_path / "patches"
    with pytest.raises(OutputError, match="refusing to write inside"):
        write_voc_patches(planted_dir / "fixed", tags, dataset, dataset.roots)
    written = write_voc_patches(out, tags, dataset, dataset.roots)
    assert {p.stem for p in written} == tags.images()
    corrected = tmp_path / "corrected" / "VOC2012"
    shutil.copytree(planted_dir, corrected, symlinks=True)
    for path in written:
        shutil.copy(path, corrected / "Annotations" / path.name)
    a = evaluate(corrected, demo.results_dir)
    b = evaluate(clean, demo.results_dir)
    assert a.text == b.text
    assert json.dumps(a.payload) == json.dumps(b.payload)  # (NaN APs compare equal as text)


def test_tag_tables_hold_every_tag_with_image_box_and_class(demo, tmp_path):
    dataset = open_dataset(demo.year_dir)
    results = open_results(dataset, demo.results_dir)
    image = str(dataset.images.id[dataset.objects.image_index[0]])
    det = int(np.argmax(results.detections.score))
    det_image = str(dataset.images.id[results.detections.image_index[det]])
    tags = Tags()
    tags = tags.toggle(Target("image", image), "ambiguous").with_note(
        Target("image", image), 'dark, "hard"'
    )
    tags = tags.toggle(Target("object", image, 0), "wrong class", Fix("relabel", "cat"))
    tags = tags.toggle(Target("object", image, 0), "label error")
    add = Fix("add", "dog", (1.0, 2.0, 30.0, 40.0))
    tags = tags.toggle(Target("detection", det_image, det, 0), "missing annotation", add)
    with pytest.raises(OutputError):
        write_tag_tables(demo.year_dir / "x", tags, dataset, [results], dataset.roots)
    csv_path, json_path = write_tag_tables(tmp_path, tags, dataset, [results], dataset.roots)
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    assert tuple(rows[0]) == TAG_COLUMNS
    assert len(rows) == 4 == len(json.loads(json_path.read_text())["tags"])
    by = {(r["kind"], r["tag"]): r for r in rows}
    obj = by[("object", "wrong class")]
    assert obj["class"] == dataset.classes[dataset.objects.label[0]]
    assert [float(obj[k]) for k in ("xmin", "ymin", "xmax", "ymax")] == list(dataset.objects.box[0])
    assert (obj["fix"], obj["fix_class"]) == ("relabel", "cat")
    assert by[("object", "label error")]["fix"] == "relabel"  # one entry, one fix
    d = by[("detection", "missing annotation")]
    assert float(d["score"]) == results.detections.score[det]
    assert d["class"] == dataset.classes[results.detections.label[det]]
    assert d["fix_box"] == "1 2 30 40"
    assert by[("image", "ambiguous")]["note"] == 'dark, "hard"'


COCO_GT = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini" / "annotations"
) / "instances_val2017.json"


@pytest.mark.skipif(not COCO_GT.is_file(), reason="coco-mini not available")
def test_coco_patch_evaluates_as_the_corrected_dataset(tmp_path):
    """Errors planted on coco-mini (5 annotations deleted, 5 relabelled, 5 loosened, 5
    duplicated), tagged with the fixes that undo them: the patch applied to the planted file
    evaluates (COCOeval, every summary number) exactly as coco-mini with those boxes' areas
    taken as w * h (what a box-only fix can give)."""
    gt = json.loads(COCO_GT.read_text())
    results = tmp_path / "res.json"
    results.write_text(json.dumps(gen_results(gt, 1)))
    rng = np.random.default_rng(5)
    anns = gt["annotations"]
    pool = [i for i, a in enumerate(anns) if not a["iscrowd"]]
    chosen = [int(i) for i in rng.choice(pool, 20, replace=False)]
    deleted, relabelled, loosened, doubled = (chosen[k : k + 5] for k in range(0, 20, 5))
    names = {c["id"]: c["name"] for c in gt["categories"]}
    reference = json.loads(json.dumps(gt))
    for i in [*deleted, *loosened]:  # a re-added or re-boxed box: area w * h
        bbox = reference["annotations"][i]["bbox"]
        reference["annotations"][i]["area"] = bbox[2] * bbox[3]
    planted = json.loads(json.dumps(gt))
    pa = planted["annotations"]
    for i in relabelled:
        pa[i]["category_id"] = next(c for c in names if c != pa[i]["category_id"])
    for i in loosened:
        x, y, w, h = pa[i]["bbox"]
        pa[i]["bbox"] = [x - 0.3 * w, y - 0.3 * h, 1.6 * w, 1.6 * h]
    copies = [{**pa[i], "id": 10**9 + n} for n, i in enumerate(doubled)]
    planted["annotations"] = [a for i, a in enumerate(pa) if i not in deleted] + copies
    planted_path = tmp_path / "planted" / "instances.json"
    planted_path.parent.mkdir()
    planted_path.write_text(json.dumps(planted))
    dataset = open_dataset(planted_path)

    def position(ann: dict) -> tuple[str, int]:
        same = [a for a in planted["annotations"] if a["image_id"] == ann["image_id"]]
        return str(ann["image_id"]), next(k for k, a in enumerate(same) if a is ann)

    tags = Tags()
    for j, i in enumerate(deleted):
        a = anns[i]
        x, y, w, h = a["bbox"]
        add = Fix("add", names[a["category_id"]], (x, y, x + w, y + h))
        tags = tags.toggle(Target("detection", str(a["image_id"]), j, 0), "missing annotation", add)
    for i in relabelled:
        fix = Fix("relabel", names[anns[i]["category_id"]])
        tags = tags.toggle(Target("object", *position(pa[i])), "wrong class", fix)
    for i in loosened:
        x, y, w, h = anns[i]["bbox"]
        fix = Fix("rebox", None, (x, y, x + w, y + h))
        tags = tags.toggle(Target("object", *position(pa[i])), "loose box", fix)
    for copy in copies:
        tags = tags.toggle(Target("object", *position(copy)), "label error", Fix("delete"))
    with pytest.raises(OutputError, match="refusing to write inside"):
        write_coco_patch(planted_path.parent / "x", tags, dataset, dataset.roots)
    patch = json.loads(write_coco_patch(tmp_path / "out", tags, dataset, dataset.roots).read_text())
    assert [len(patch[k]) for k in ("add", "relabel", "rebox", "delete")] == [5, 5, 5, 5]
    patched = tmp_path / "patched.json"
    patched.write_text(json.dumps(apply_coco_patch(planted, patch)))
    ref = tmp_path / "reference.json"
    ref.write_text(json.dumps(reference))
    a, b = evaluate(patched, results), evaluate(ref, results)
    assert a.summary == b.summary and a.text == b.text
    assert evaluate(planted_path, results).summary != b.summary
