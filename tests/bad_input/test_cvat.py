"""Bad-input matrix, CVAT for images 1.1 XML and LabelMe JSON, through the real CLI
(``vocviewer eval X --results R``): each broken copy gives exit 1 and a message naming the file,
its line (XML) or JSON entry and what was expected; never a traceback. Shapes that are not
boxes or polygons are left out with a warning."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.bad_input.cli_run import eval_cli

CVAT = """<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta><task><labels><label><name>car</name></label><label><name>dog</name></label></labels>
  </task></meta>
  <image id="1" name="a.jpg" width="100" height="80">
    <box label="car" occluded="1" xtl="10" ytl="10" xbr="50" ybr="40" z_order="0">
      <attribute name="difficult">false</attribute>
    </box>
    <polygon label="dog" occluded="0" points="60,10;90,10;75,50" z_order="0"/>
  </image>
</annotations>
"""
RESULTS = [{"image_id": 1, "category_id": 1, "bbox": [10, 10, 40, 30], "score": 0.9}]


def _labelme(shapes: list[dict[str, Any]] | None = None, **top: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "version": "5.4.1",
        "flags": {},
        "shapes": shapes
        if shapes is not None
        else [
            {
                "label": "car",
                "points": [[10, 10], [50, 40]],
                "group_id": None,
                "shape_type": "rectangle",
                "flags": {},
            },
        ],
        "imagePath": "a.jpg",
        "imageData": None,
        "imageHeight": 80,
        "imageWidth": 100,
    }
    doc.update(top)
    return doc


def _eval(capsys: pytest.CaptureFixture[str], path: Path, res: Path, *extra: str):
    res.write_text(json.dumps(RESULTS))
    return eval_cli(capsys, path, res, *extra)


def _cvat_edit(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text
        return text.replace(old, new, 1)

    return edit


#: (case, edit of the XML, line, text)
CVAT_CASES = [
    ("malformed", _cvat_edit("</box>", "</bx>"), ":9", "not well-formed XML"),
    ("no-xtl", _cvat_edit('xtl="10" ', ""), ":7 (annotations/image[1]/box[1])", 'no "xtl"'),
    ("xtl-text", _cvat_edit('xtl="10"', 'xtl="ten"'), ":7", "\"xtl\" is 'ten'; expected a finite"),
    (
        "points-text",
        _cvat_edit("60,10;", "60,x;"),
        ":10 (annotations/image[1]/polygon[1])",
        "expected a finite number",
    ),
    ("points-pairs", _cvat_edit("60,10;", "60;"), ":10", 'expected "x,y;x,y;..."'),
    ("two-vertices", _cvat_edit("60,10;90,10;75,50", "60,10;90,10"), ":10", "expected 3 or more"),
    (
        "unknown-shape",
        _cvat_edit("<polygon ", "<blob "),
        ":10 (annotations/image[1]/blob[1])",
        "<blob> is not a CVAT shape",
    ),
    ("no-width", _cvat_edit('width="100" ', ""), ":6 (annotations/image[1])", 'no "width"'),
    ("occluded", _cvat_edit('occluded="1"', 'occluded="yes"'), ":7", "expected 0 or 1"),
    ("no-attribute-name", _cvat_edit('name="difficult"', ""), ":8", 'no "name" attribute'),
    ("no-label", _cvat_edit('label="dog" ', ""), ":10", 'no "label"'),
    (
        "video",
        _cvat_edit('<image id="1"', '<track id="0" label="car"></track><image id="1"'),
        ":6 (annotations/track)",
        "CVAT for video",
    ),
]


@pytest.mark.parametrize(
    ("case", "edit", "where", "text"), CVAT_CASES, ids=[c[0] for c in CVAT_CASES]
)
def test_bad_cvat_names_file_line_and_element(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    edit: Callable[[str], str],
    where: str,
    text: str,
) -> None:
    xml = tmp_path / "annotations.xml"
    xml.write_text(edit(CVAT))
    code, _, err = _eval(capsys, xml, tmp_path / "r.json")
    assert code == 1, err
    assert f"annotations.xml{where}" in err and text in err, err


#: (case, the file's document, where, text)
LABELME_CASES = [
    (
        "points-text",
        _labelme([{"label": "car", "points": [[10, "a"], [50, 40]], "shape_type": "rectangle"}]),
        "(shapes[0].points[0])",
        'expected a finite number, got "a"',
    ),
    (
        "unknown-shape",
        _labelme([{"label": "car", "points": [[1, 1], [5, 5]], "shape_type": "blob"}]),
        "(shapes[0].shape_type)",
        'shape_type "blob" is not LabelMe',
    ),
    (
        "rectangle-3",
        _labelme([{"label": "car", "points": [[1, 1], [5, 5], [6, 6]], "shape_type": "rectangle"}]),
        "(shapes[0].points)",
        "expected 2 corners",
    ),
    (
        "no-label",
        _labelme([{"points": [[1, 1], [5, 5]], "shape_type": "rectangle"}]),
        "(shapes[0].label)",
        "expected a label",
    ),
    ("no-size", _labelme(imageWidth=None), "(imageWidth)", "expected a positive integer"),
    ("no-image-path", _labelme(imagePath=7), "(imagePath)", "expected the image's file name"),
]


@pytest.mark.parametrize(
    ("case", "doc", "where", "text"), LABELME_CASES, ids=[c[0] for c in LABELME_CASES]
)
def test_bad_labelme_names_file_and_entry(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    doc: dict[str, Any],
    where: str,
    text: str,
) -> None:
    folder = tmp_path / "lm"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(_labelme()))
    (folder / "b.json").write_text(json.dumps(doc))
    code, _, err = _eval(capsys, folder, tmp_path / "r.json")
    assert code == 1, err
    assert f"b.json {where}" in err and text in err, err


def test_malformed_labelme_json_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "lm"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(_labelme()))
    (folder / "b.json").write_text('{"shapes": [\n{"label": "car",\n')
    code, _, err = _eval(capsys, folder, tmp_path / "r.json")
    assert code == 1 and "b.json:" in err, err


def test_other_shapes_are_left_out_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = tmp_path / "annotations.xml"
    xml.write_text(CVAT.replace("</image>", '<polyline label="car" points="1,1;5,5"/></image>'))
    code, _, err = _eval(capsys, xml, tmp_path / "r.json")
    assert code == 0, err
    assert "annotations.xml:11 (annotations/image[1]/polyline[1])" in err, err
    assert "a <polyline> is not a box or polygon; left out" in err
    assert "CVAT for images 1.1, 1 images, 2 shapes, 2 classes" in err
