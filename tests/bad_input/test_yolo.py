"""Bad-input matrix, YOLO part, through the real CLI: every broken dataset YAML, label line or
prediction line is refused with exit 1 and a message naming the file (and its line) and what
was expected, never a traceback; and the classic mistakes (pixels as normalised coordinates,
corners as centre + size, 1-based class indices, predictions of other images, images missing
on disk, pixel boxes read as normalised) are each named, with a sample line and the fix, on a
deliberately broken copy of a good split."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bad_input.cli_run import eval_cli
from tests.parity.yolo_data import make_yolo


def _eval(capsys: pytest.CaptureFixture[str], yaml: Path, results: Path, *extra: str):
    return eval_cli(capsys, yaml, results, *extra)


def _first_label(root: Path) -> Path:
    return next(p for p in sorted((root / "labels" / "val").glob("*.txt")) if p.read_text())


def _set_line(path: Path, text: str) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join([text, *lines[1:]]) + "\n")


def _label_line(text: str) -> Callable[[Path, Path], tuple[Path, int]]:
    def edit(root: Path, _: Path) -> tuple[Path, int]:
        f = _first_label(root)
        _set_line(f, text)
        return f, 1

    return edit


def _pred_line(text: str) -> Callable[[Path, Path], tuple[Path, int]]:
    def edit(_: Path, preds: Path) -> tuple[Path, int]:
        f = sorted(preds.glob("*.txt"))[0]
        _set_line(f, text)
        return f, 1

    return edit


def _yaml(text: str) -> Callable[[Path, Path], tuple[Path, int | None]]:
    def edit(root: Path, _: Path) -> tuple[Path, int | None]:
        (root / "data.yaml").write_text(text)
        return root / "data.yaml", None

    return edit


#: (case id, edit(dataset root, predictions folder) -> (file named, line or None), message part)
CASES = [
    ("label-token", _label_line("0 0.5 0.5 abc 0.2"), "'abc' is not a number"),
    ("label-nan", _label_line("0 0.5 0.5 nan 0.2"), "is not a finite number"),
    ("label-count", _label_line("0 0.5 0.5 0.2"), "expected cls cx cy w h"),
    ("label-six", _label_line("0 0.5 0.5 0.2 0.2 0.9"), "a confidence after a box?"),
    ("label-class", _label_line("1.5 0.5 0.5 0.2 0.2"), "must be a whole number >= 0"),
    ("label-class-range", _label_line("9 0.5 0.5 0.2 0.2"), "class 9 is past the last"),
    ("pred-no-conf", _pred_line("0 0.5 0.5 0.2 0.2"), "no confidence"),
    ("pred-short", _pred_line("0 0.5"), "expected cls cx cy w h conf"),
    ("pred-class-range", _pred_line("7 0.5 0.5 0.2 0.2 0.3"), "class 7 is past the last"),
    ("yaml-syntax", _yaml("names: [a, b\nval: images/val\n"), "not valid YAML"),
    ("yaml-no-names", _yaml("val: images/val\nnc: 3\n"), "needs 'names'"),
    ("yaml-names-gap", _yaml("val: images/val\nnames:\n  0: a\n  2: b\n"), "without gaps"),
    ("yaml-split", _yaml("val: nowhere\nnames: [cat, dog, owl, fox]\n"), "neither an image folder"),
    ("yaml-kpt", _yaml("val: images/val\nkpt_shape: [17]\nnames: [a]\n"), "'kpt_shape' must be"),
    ("yaml-list", _yaml("- a\n- b\n"), "a dataset YAML is a mapping"),
]


@pytest.mark.parametrize(("case", "edit", "text"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_named(tmp_path, capsys, case, edit, text):
    y = make_yolo(tmp_path, "detect", seed=1, n_images=6)
    named, line = edit(y.yaml.parent, y.pred_txt)
    code, _, err = _eval(capsys, y.yaml, y.pred_txt)
    assert code == 1, err
    where = f"{named}:{line}" if line is not None else str(named)
    assert err.startswith(f"vocviewer: error: {where}"), err
    assert text in err, err


def test_keep_going_skips_a_bad_prediction_line_not_official(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=1, n_images=6)
    _pred_line("0 0.5 0.5 0.2 0.2")(y.yaml.parent, y.pred_txt)
    out = tmp_path / "o.json"
    code, _, err = _eval(capsys, y.yaml, y.pred_txt, "--keep-going", "--json", str(out))
    assert code == 0, err
    assert json.loads(out.read_text())["official"] is False


# --- the classic mistakes, each on a broken copy ----------------------------------------------------
def _warnings(capsys, y, results: Path | None = None) -> str:
    code, _, err = _eval(capsys, y.yaml, results or y.pred_txt)
    assert code == 0, err
    return err


def test_pixel_labels_are_named_with_the_fix(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    assert "look like pixels" not in _warnings(capsys, y)
    for f in (y.yaml.parent / "labels" / "val").glob("*.txt"):
        w, h = y.sizes[f.stem]
        rows = [line.split() for line in f.read_text().splitlines() if line]
        f.write_text(
            "".join(
                f"{r[0]} {float(r[1]) * w} {float(r[2]) * h} {float(r[3]) * w} {float(r[4]) * h}\n"
                for r in rows
            )
        )
    err = _warnings(capsys, y)
    assert "label lines have coordinates above 1.5" in err and "look like pixels" in err, err
    assert str(y.yaml.parent / "labels" / "val") in err  # a sample line, named
    assert "divide x and w by the image width" in err


def test_corner_labels_are_named_with_the_fix(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    assert "look like corners" not in _warnings(capsys, y)
    for f in (y.yaml.parent / "labels" / "val").glob("*.txt"):
        rows = [[float(v) for v in line.split()] for line in f.read_text().splitlines() if line]
        f.write_text(  # x1 y1 x2 y2 written where cx cy w h belong
            "".join(
                f"{int(c)} {cx - w / 2} {cy - h / 2} {cx + w / 2} {cy + h / 2}\n"
                for c, cx, cy, w, h in rows
            )
        )
    err = _warnings(capsys, y)
    assert "these look like corners x1 y1 x2 y2" in err and "cx=(x1+x2)/2" in err, err


def test_one_based_class_indices_are_named(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    labels = list((y.yaml.parent / "labels" / "val").glob("*.txt"))
    used = {int(line.split()[0]) for f in labels for line in f.read_text().splitlines() if line}
    names = "".join(f"  - c{i}\n" for i in range(max(used) + 1))  # the classes used, all named
    y.yaml.write_text(f"path: .\nval: images/val\nnames:\n{names}")
    for f in labels:  # every index one up: none is 0, the largest is one past the names
        rows = [line.split() for line in f.read_text().splitlines() if line]
        f.write_text("".join(" ".join([str(int(r[0]) + 1), *r[1:]]) + "\n" for r in rows))
    for f in y.pred_txt.glob("*.txt"):  # predictions of those classes only
        rows = [line for line in f.read_text().splitlines() if int(line.split()[0]) in used]
        f.write_text("".join(f"{r}\n" for r in rows))
    code, _, err = _eval(capsys, y.yaml, y.pred_txt)
    assert code == 1
    assert "look 1-based (off by one); subtract 1 from every class index" in err, err


def test_predictions_of_other_images_are_named(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    first = sorted(y.pred_txt.glob("*.txt"))[0]
    first.rename(y.pred_txt / "not_an_image.txt")
    err = _warnings(capsys, y)
    assert "1 prediction file(s) match no image of the split" in err
    assert str(y.pred_txt / "not_an_image.txt") in err
    doc = json.loads(y.pred_json.read_text())
    doc[0]["image_id"] = 424242
    y.pred_json.write_text(json.dumps(doc))
    err = _warnings(capsys, y, y.pred_json)
    assert "[0].image_id = 424242" in err and "matches no image" in err, err


def test_normalised_boxes_in_predictions_json_are_named(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    doc = json.loads(y.pred_json.read_text())
    for d in doc:
        w, h = y.sizes[f"{d['image_id']:06d}"]
        x, yy, bw, bh = d["bbox"]
        d["bbox"] = [x / w, yy / h, bw / w, bh / h]
    y.pred_json.write_text(json.dumps(doc))
    err = _warnings(capsys, y, y.pred_json)
    assert "these look normalised, but a COCO-style bbox is in pixels" in err, err


def test_images_missing_on_disk_are_named(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    root = y.yaml.parent
    images = sorted((root / "images" / "val").glob("*.png"))
    listing = root / "val.txt"
    listing.write_text(
        "".join(f"./images/val/{p.name}\n" for p in images) + "./images/val/gone.png\n"
    )
    y.yaml.write_text(y.yaml.read_text().replace("val: images/val", "val: val.txt"))
    err = _warnings(capsys, y)
    assert f"{listing}:{len(images) + 1}: the image" in err and "is not on disk" in err, err


def test_corner_boxes_in_predictions_json_are_named(tmp_path, capsys):
    y = make_yolo(tmp_path, "detect", seed=2, n_images=6)
    assert "look like corners" not in _warnings(capsys, y, y.pred_json)
    doc = json.loads(y.pred_json.read_text())
    for d in doc:
        x, yy, bw, bh = d["bbox"]
        d["bbox"] = [x, yy, x + bw, yy + bh]  # x1 y1 x2 y2 where x y w h belong
    y.pred_json.write_text(json.dumps(doc))
    err = _warnings(capsys, y, y.pred_json)
    assert "these look like corners x1 y1 x2 y2" in err and "w = x2 - x1" in err, err
