"""``read_voc_results`` / ``write_voc_results`` on real files: values, order, every error."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.formats.voc_files import minimal_year
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ClassScores, Detections, ResultSet
from vocviewer.families.voc.reader import read_voc, read_voc_results, write_voc_results

IDS = ("2008_000001", "2008_000002", "2008_000003")


@pytest.fixture(scope="module")
def ds(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return read_voc(minimal_year(tmp_path_factory.mktemp("voc") / "VOC2012", IDS))


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def lines_of(results: ResultSet) -> list[tuple[str, int | None, str]]:
    return [(p.path.name, p.line, p.message) for p in results.problems]


def test_detection_file_values_and_order(ds: Dataset, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "comp4_det_test_dog.txt",
        "2008_000002 0.9 1 2 3 4\n2008_000001\t0.25  10.5 20.25 30.125 40\n"
        "2008_000002 -inf 1e3 -5 0 2.5\n2008_000003 inf 0 0 0 0\n",
    )
    r = read_voc_results(ds, [path])
    det = r.detections
    assert r.name == "comp4"
    assert r.files == (path,)
    assert det.image_index.tolist() == [1, 0, 1, 2]
    assert det.label.tolist() == [ds.class_index("dog")] * 4
    assert det.score.tolist() == [0.9, 0.25, -math.inf, math.inf]
    assert det.box.tolist() == [
        [1.0, 2.0, 3.0, 4.0],
        [10.5, 20.25, 30.125, 40.0],
        [1000.0, -5.0, 0.0, 2.5],
        [0.0, 0.0, 0.0, 0.0],
    ]
    assert det.file_index.tolist() == [0, 0, 0, 0]
    assert det.line.tolist() == [1, 2, 3, 4]
    assert r.classes_with_files == {"det": frozenset({ds.class_index("dog")}), "cls": frozenset()}
    assert r.problems == ()
    assert len(r.class_scores) == 0


def test_classification_file_and_empty_file(ds: Dataset, tmp_path: Path) -> None:
    write(tmp_path, "comp2_cls_test_cat.txt", "2008_000003 0.5\n2008_000001 -1.5e-3\r\n")
    write(tmp_path, "comp2_cls_test_bird.txt", "")
    r = read_voc_results(ds, [tmp_path])
    cls = r.class_scores
    assert r.name == "comp2"
    assert [p.name for p in r.files] == ["comp2_cls_test_bird.txt", "comp2_cls_test_cat.txt"]
    assert cls.image_index.tolist() == [2, 0]
    assert cls.score.tolist() == [0.5, -0.0015]
    assert cls.label.tolist() == [ds.class_index("cat")] * 2
    assert cls.file_index.tolist() == [1, 1]
    assert cls.line.tolist() == [1, 2]
    # the empty file: bird submitted with no scores, unlike every other class
    assert r.classes_with_files["cls"] == {ds.class_index("bird"), ds.class_index("cat")}
    assert len(r.detections) == 0


def test_files_in_class_order_det_before_cls(ds: Dataset, tmp_path: Path) -> None:
    main = tmp_path / "results" / "VOC2012" / "Main"
    write(main, "comp3_det_val_tvmonitor.txt", "2008_000001 1 1 1 2 2\n")
    write(main, "comp3_det_val_aeroplane.txt", "2008_000002 2 1 1 2 2\n")
    write(main, "comp1_cls_val_aeroplane.txt", "2008_000003 3\n")
    write(main, "README.txt", "not a results file, ignored in a folder\n")
    write(tmp_path / "results" / "VOC2012" / "Layout", "comp7_layout_val.xml", "<results/>")
    r = read_voc_results(ds, [tmp_path / "results" / "VOC2012"])
    assert [p.name for p in r.files] == [
        "comp3_det_val_aeroplane.txt",
        "comp3_det_val_tvmonitor.txt",
        "comp1_cls_val_aeroplane.txt",
    ]
    assert r.detections.score.tolist() == [2.0, 1.0]
    assert r.detections.file_index.tolist() == [0, 1]
    assert r.class_scores.file_index.tolist() == [2]
    assert r.name == "comp3+comp1"
    # the Main folder itself, and a file given twice, read once
    again = read_voc_results(ds, [main, main / "comp3_det_val_tvmonitor.txt"], name="x")
    assert again.files == r.files and again.name == "x"


def test_every_bad_line_is_named_and_skipped(ds: Dataset, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "comp4_det_test_car.txt",
        "2008_000001 0.5 1 2 3 4\n"  # 1 ok
        "\n"  # 2 blank: skipped silently
        "2008_000001 0.5 1 2 3\n"  # 3 five fields
        "2008_000001 0.5 1 2 3 4 5\n"  # 4 seven fields
        "2008_000001 high 1 2 3 4\n"  # 5 non-numeric score
        "2008_000001 0.5 1 2 3 4px\n"  # 6 non-numeric ymax
        "2008_000001 nan 1 2 3 4\n"  # 7 NaN score: kept (one warning per file)
        "2008_000001 0.5 1 NaN 3 4\n"  # 8 NaN coordinate: kept
        "2009_000009 0.5 1 2 3 4\n"  # 9 unknown id
        "2008_000003 -inf 1 2 3 4\n",  # 10 ok: ±inf scores are kept too
    )
    r = read_voc_results(ds, [path])
    assert r.detections.line.tolist() == [1, 7, 8, 10]
    assert r.detections.image_index.tolist() == [0, 0, 0, 2]
    (warning,) = r.warnings
    assert (warning.path, warning.line) == (path, 7)
    assert warning.message.startswith("3 line(s) hold NaN or ±inf (first here); kept")
    expected = "expected 6 fields (id score xmin ymin xmax ymax), found"
    assert lines_of(r) == [
        (path.name, 3, f"{expected} '2008_000001 0.5 1 2 3'; line skipped"),
        (path.name, 4, f"{expected} '2008_000001 0.5 1 2 3 4 5'; line skipped"),
        (path.name, 5, "score is not a number: 'high'; line skipped"),
        (path.name, 6, "ymax is not a number: '4px'; line skipped"),
        (path.name, 9, "unknown image id '2009_000009'; line skipped"),
    ]
    assert str(r.problems[-1]).startswith(f"{path}:9: ")


def test_cls_bad_lines(ds: Dataset, tmp_path: Path) -> None:
    path = write(
        tmp_path, "comp1_cls_val_dog.txt", "2008_000001\n2008_000002 0.1 0.2\n2008_000003 x\nzz 1\n"
    )
    r = read_voc_results(ds, [path])
    assert len(r.class_scores) == 0
    assert [(line, msg.split(";")[0]) for _, line, msg in lines_of(r)] == [
        (1, "expected 2 fields (id score), found '2008_000001'"),
        (2, "expected 2 fields (id score), found '2008_000002 0.1 0.2'"),
        (3, "score is not a number: 'x'"),
        (4, "unknown image id 'zz'"),
    ]
    assert r.classes_with_files["cls"] == {ds.class_index("dog")}


def test_fast_and_careful_paths_agree(ds: Dataset, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    body = "".join(
        f"{IDS[i]} {s!r} {a!r} {b!r} {c!r} {d!r}\n"
        for i, s, a, b, c, d in zip(
            rng.integers(0, 3, 500).tolist(), *rng.normal(size=(5, 500)).tolist(), strict=True
        )
    )
    fast = read_voc_results(ds, [write(tmp_path / "a", "comp4_det_test_dog.txt", body)])
    careful = read_voc_results(ds, [write(tmp_path / "b", "comp4_det_test_dog.txt", "\n" + body)])
    assert careful.problems == () and fast.problems == ()
    assert np.array_equal(fast.detections.box, careful.detections.box)
    assert np.array_equal(fast.detections.score, careful.detections.score)
    assert np.array_equal(fast.detections.image_index, careful.detections.image_index)
    assert np.array_equal(fast.detections.line + 1, careful.detections.line)


def test_long_unknown_id_is_not_truncated(ds: Dataset, tmp_path: Path) -> None:
    path = write(tmp_path, "comp4_det_test_dog.txt", "2008_0000011 1 1 1 2 2\n")
    r = read_voc_results(ds, [path])
    assert lines_of(r) == [(path.name, 1, "unknown image id '2008_0000011'; line skipped")]


def test_many_problems_are_summarised(ds: Dataset, tmp_path: Path) -> None:
    path = write(
        tmp_path, "comp4_det_test_dog.txt", "other 1 1 1 2 2\n" * 1000 + "2008_000001 1 1 1 2 2\n"
    )
    r = read_voc_results(ds, [path])
    assert len(r.detections) == 1
    assert [p.line for p in r.problems] == [*range(1, 21), 21]
    assert r.problems[-1].message.startswith("980 more problems in this file are not listed")


def test_file_level_problems(ds: Dataset, tmp_path: Path) -> None:
    good = write(tmp_path / "a", "comp4_det_test_dog.txt", "2008_000001 1 1 1 2 2\n")
    unknown = write(tmp_path / "a", "comp4_det_test_unicorn.txt", "2008_000001 1 1 1 2 2\n")
    twice = write(tmp_path / "b", "comp4_det_test_dog.txt", "2008_000002 1 1 1 2 2\n")
    odd = write(tmp_path, "detections.txt", "2008_000001 1 1 1 2 2\n")
    r = read_voc_results(ds, [odd, tmp_path / "a", twice])
    assert r.files == (good,)
    assert r.detections.image_index.tolist() == [0]
    found = {p.path: p.message for p in r.problems}
    assert found[odd].startswith("not a VOC results file name")
    assert found[unknown].startswith("unknown class 'unicorn' in the file name")
    assert found[twice] == f"a second det file for class 'dog' (first: {good}); file skipped"
    assert ds.class_index("dog") in r.classes_with_files["det"]


def test_ambiguous_inputs_are_fatal(ds: Dataset, tmp_path: Path) -> None:
    write(tmp_path, "comp3_det_val_dog.txt", "")
    write(tmp_path, "comp3_det_test_dog.txt", "")
    write(tmp_path, "comp4_det_test_cat.txt", "")
    with pytest.raises(FormatError, match=r"several image sets \(test, val\)"):
        read_voc_results(ds, [tmp_path])
    with pytest.raises(FormatError, match=r"det results of several competitions \(comp3, comp4\)"):
        read_voc_results(ds, [tmp_path], image_set="test")
    r = read_voc_results(ds, [tmp_path], image_set="Main/val")
    assert r.name == "comp3" and r.classes_with_files["det"] == {ds.class_index("dog")}
    with pytest.raises(FormatError, match="no results for image set 'train'; found: test, val"):
        read_voc_results(ds, [tmp_path], image_set="train")
    with pytest.raises(FormatError, match="does not exist"):
        read_voc_results(ds, [tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(FormatError, match="no VOC results files"):
        read_voc_results(ds, [tmp_path / "empty"])


def test_competition_id_with_underscores(ds: Dataset, tmp_path: Path) -> None:
    path = write(tmp_path, "comp4_6a7c1f_det_test_dog.txt", "2008_000001 1 1 1 2 2\n")
    assert read_voc_results(ds, [path]).name == "comp4_6a7c1f"


def test_write_read_round_trip_is_exact(ds: Dataset, tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    n = 300
    score = rng.normal(size=n)
    score[:3] = [math.inf, -math.inf, 0.1 + 0.2]
    box = rng.uniform(-5, 500, size=(n, 4))
    box[:4] = [[1, 2, 3, 4], [1e17, -0.0, 5e-324, 1 / 3], [7, 8, 9, 10], [0.5, 1.5, 2.5, 3.5]]
    label = rng.choice([ds.class_index("cat"), ds.class_index("dog")], size=n)
    order = np.argsort(label, kind="stable")  # rows as a reader gives them: class order
    dets = Detections(
        rng.integers(0, 3, n)[order],
        label[order],
        score[order],
        box[order],
        np.zeros(n),
        np.arange(n),
    )
    scores = ClassScores(
        np.array([2, 0]), np.array([3, 3]), np.array([0.7, -1e-300]), np.zeros(2), np.arange(2)
    )
    original = ResultSet(
        "mine",
        (),
        dets,
        scores,
        {"det": frozenset({ds.class_index("bird")}), "cls": frozenset({3})},
    )
    written = write_voc_results(
        original, ds, tmp_path / "out", competition="comp4", image_set="test"
    )
    assert [p.name for p in written] == [
        "comp4_det_test_bird.txt",
        "comp4_det_test_cat.txt",
        "comp4_det_test_dog.txt",
        "comp4_cls_test_boat.txt",
    ]
    assert written[0].read_text() == ""
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in written)
    back = read_voc_results(ds, [tmp_path / "out"])
    assert back.problems == ()
    assert back.name == "comp4"
    for column in ("image_index", "label", "score", "box"):
        a, b = getattr(back.detections, column), getattr(dets, column)
        assert a.tobytes() == b.tobytes(), column  # bit for bit, -0.0 included
    assert back.class_scores.score.tolist() == [0.7, -1e-300]
    assert back.class_scores.image_index.tolist() == [2, 0]
    assert back.classes_with_files == {
        "det": frozenset({ds.class_index(c) for c in ("bird", "cat", "dog")}),
        "cls": frozenset({3}),
    }
    first_dog = next(line for line in written[2].read_text().splitlines())
    assert first_dog.split()[0] in IDS


def test_write_integers_without_decimals_and_inf_as_matlab_reads_it(
    ds: Dataset, tmp_path: Path
) -> None:
    dog = ds.class_index("dog")
    dets = Detections(
        [0, 1], [dog, dog], [math.inf, 0.5], [[1, 2, 3, 4], [1.5, -0.0, 2, 3]], [0, 0], [1, 2]
    )
    (path,) = write_voc_results(
        ResultSet("r", (), dets), ds, tmp_path, competition="comp3", image_set="val"
    )
    assert path.read_text() == "2008_000001 Inf 1 2 3 4\n2008_000002 0.5 1.5 -0 2 3\n"


def test_write_rejects_names_that_would_not_read_back(ds: Dataset, tmp_path: Path) -> None:
    empty = ResultSet("r", ())
    with pytest.raises(ValueError, match="would not read back"):
        write_voc_results(empty, ds, tmp_path, competition="a_det_b", image_set="test")
    with pytest.raises(ValueError, match="path separators"):
        write_voc_results(empty, ds, tmp_path, competition="../comp4", image_set="test")
    assert (
        write_voc_results(empty, ds, tmp_path / "new", competition="comp4", image_set="test") == []
    )
