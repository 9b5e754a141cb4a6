"""Readers and writers for VOC segmentation PNGs, layout XML and action results."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from vocviewer.core.errors import FormatError
from vocviewer.core.palette import voc_colormap
from vocviewer.families.voc.action_evaluate import ActionScores
from vocviewer.families.voc.action_reader import (
    find_action_results,
    read_action_results,
    write_action_results,
)
from vocviewer.families.voc.layout_reader import (
    find_layout_results,
    read_layout_results,
    write_layout_results,
)
from vocviewer.families.voc.segmentation_reader import (
    find_segmentation_results,
    write_label_png,
    write_segmentations,
)
from vocviewer.formats.label_png import read_label_png


def test_label_png_round_trip_reads_indices_not_colours(tmp_path):
    labels = np.array([[0, 1, 15], [20, 255, 3]], np.uint8)
    path = write_label_png(tmp_path / "a.png", labels)
    with Image.open(path) as img:
        assert img.mode == "P"
        assert img.getpalette()[:6] == [0, 0, 0, 128, 0, 0]
    got = read_label_png(path)
    assert got.dtype == np.uint8 and got.tolist() == labels.tolist()
    assert not list(tmp_path.glob(".*tmp"))
    assert [p.name for p in write_segmentations(tmp_path / "out", {"b": labels})] == ["b.png"]


def test_non_indexed_png_is_rejected_naming_the_file(tmp_path):
    rgb = voc_colormap()[np.array([[1, 2]])]
    Image.fromarray(rgb, "RGB").save(tmp_path / "rgb.png")
    with pytest.raises(FormatError, match=r"rgb\.png.*'RGB'"):
        read_label_png(tmp_path / "rgb.png")
    with pytest.raises(FormatError, match="no such file"):
        read_label_png(tmp_path / "none.png")
    (tmp_path / "junk.png").write_bytes(b"not a png")
    with pytest.raises(FormatError, match="cannot be read"):
        read_label_png(tmp_path / "junk.png")


def test_find_segmentation_results(tmp_path):
    (tmp_path / "Segmentation" / "comp6_val_cls").mkdir(parents=True)
    found = find_segmentation_results(tmp_path)
    assert found.competition == "comp6" and found.image_set == "val"
    (tmp_path / "Segmentation" / "comp5_test_cls").mkdir()
    with pytest.raises(FormatError, match="several"):
        find_segmentation_results(tmp_path)
    assert find_segmentation_results(tmp_path, "test").competition == "comp5"
    plain = tmp_path / "mine"
    plain.mkdir()
    write_label_png(plain / "x.png", np.zeros((1, 1)))
    assert find_segmentation_results(plain).image_set is None
    with pytest.raises(FormatError, match="no segmentation results"):
        find_segmentation_results(tmp_path / "Segmentation" / "comp6_val_cls" / ".." / "..", "x")


LAYOUT = """<results>
  <layout>
    <image>2009_000183</image>
    <object>1</object>
    <confidence>-1189</confidence>
    <part><class>head</class>
      <bndbox><xmin>191</xmin><ymin>25</ymin><xmax>323</xmax><ymax>209</ymax></bndbox></part>
    <part><class>hand</class>
      <bndbox><xmin>393.5</xmin><ymin>206</ymin><xmax>488</xmax><ymax>300</ymax></bndbox></part>
  </layout>
  <layout>
    <image>2009_000184</image><object>2</object><confidence>0.5</confidence>
  </layout>
  <layout>
    <image>2009_000185</image><object>1</object><confidence>0.5</confidence>
    <part><class>elbow</class>
      <bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></part>
  </layout>
</results>
"""


def test_layout_read_write_round_trip(tmp_path):
    path = tmp_path / "comp7_layout_val.xml"
    path.write_text(LAYOUT)
    lay, problems = read_layout_results(path)
    assert lay.image_id.tolist() == ["2009_000183", "2009_000184"]
    assert lay.object_number.tolist() == [1, 2] and lay.confidence.tolist() == [-1189, 0.5]
    assert lay.part_class.tolist() == [0, 1] and lay.part_box[1].tolist() == [393.5, 206, 488, 300]
    assert lay.layout_line.tolist() == [2, 11] and list(lay.parts_of(1)) == []
    (bad,) = problems
    assert bad.line == 16 and bad.element == "results/layout[3]/part[1]/class"
    assert "unknown part class 'elbow'" in str(bad)
    with pytest.raises(FormatError, match="elbow"):
        read_layout_results(path, strict=True)
    out = write_layout_results(tmp_path / "copy.xml", lay)
    again, none = read_layout_results(out)
    assert not none and again.image_id.tolist() == lay.image_id.tolist()
    assert np.array_equal(again.part_box, lay.part_box)
    assert np.array_equal(again.confidence, lay.confidence)
    assert find_layout_results(tmp_path, "val") == path


def test_layout_errors_name_file_line_and_element(tmp_path):
    path = tmp_path / "x.xml"
    path.write_text("<results><layout><image>a</image>\n<object>x</object></layout></results>")
    _, (p,) = read_layout_results(path)
    assert p.line == 2 and p.element == "results/layout[1]/object" and "'x'" in p.message
    path.write_text("<results><layout>")
    with pytest.raises(FormatError, match="well-formed"):
        read_layout_results(path)


def test_action_read_write_and_errors(tmp_path):
    path = tmp_path / "comp9_action_val_phoning.txt"
    path.write_text("2010_1 1 0.5\n\n2010_1 2 -Inf\n2010_2 x 0.1\n2010_2 1 nan\n2010_3 1\n")
    sc, problems = read_action_results(path)
    assert sc.action == "phoning" and sc.image_id.tolist() == ["2010_1", "2010_1"]
    assert sc.object_number.tolist() == [1, 2] and sc.score.tolist() == [0.5, -np.inf]
    assert sc.line.tolist() == [1, 3] and [p.line for p in problems] == [4, 5, 6]
    with pytest.raises(FormatError) as e:
        read_action_results(path, strict=True)
    assert e.value.line == 4 and e.value.path == path
    out = write_action_results(tmp_path / "comp9_action_val_reading.txt", sc)
    back, none = read_action_results(out)
    assert not none and back.action == "reading" and np.array_equal(back.score, sc.score)
    found = find_action_results([tmp_path])
    assert set(found) == {"phoning", "reading"}
    with pytest.raises(FormatError, match="no files named"):
        find_action_results([tmp_path], "test")


def test_action_scores_validate_shapes():
    with pytest.raises(ValueError):
        ActionScores("x", np.array(["a"]), [1, 2], [0.1])
