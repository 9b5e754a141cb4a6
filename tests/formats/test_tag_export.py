"""Tag exports (``formats.tag_export``): CSV / JSON rows of every tag, and VOC XML patches that,
laid over the annotations they correct, evaluate as the corrected dataset."""

from __future__ import annotations

import csv
import io
import json
import shutil

import numpy as np
import pytest

from tests.evaluation.planted import plant
from vocviewer import evaluate
from vocviewer.core.errors import OutputError
from vocviewer.core.tags import Fix, Tags, Target
from vocviewer.families import open_dataset
from vocviewer.families.registry import open_results
from vocviewer.formats.tag_export import TAG_COLUMNS, write_tag_tables, write_voc_patches


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
