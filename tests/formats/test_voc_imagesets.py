"""``read_voc``: image sets, class labels and person sets from ``ImageSets/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.formats.voc_files import make_devkit, minimal_year
from vocviewer.core.dataset import Dataset
from vocviewer.families.voc.reader import read_voc


@pytest.fixture(scope="module")
def ds(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return read_voc(make_devkit(tmp_path_factory.mktemp("voc")))


def ids(ds: Dataset, rows) -> list[str]:
    return [str(ds.images.id[r]) for r in rows]


def problem(ds: Dataset, where: str, line: int | None) -> str:
    hits = [p for p in ds.problems if p.path.as_posix().endswith(where) and p.line == line]
    assert len(hits) == 1, [str(p) for p in ds.problems]
    return hits[0].message


def test_main_sets_first_token_blank_lines_skipped(ds: Dataset) -> None:
    assert ids(ds, ds.image_sets["Main/train"]) == ["2008_000001", "2008_000002", "2008_000004"]
    assert ids(ds, ds.image_sets["Main/val"]) == [
        "2008_000003",
        "000006",
        "2009_999999",
        "2009_999998",
    ]
    assert sorted(ds.main_sets()) == ["train", "val"]


def test_ids_without_annotation_one_problem_per_set(ds: Dataset) -> None:
    message = problem(ds, "ImageSets/Main/val.txt", None)
    assert message.startswith(
        "2 ids listed in ImageSets/Main/val.txt have no annotation file (first: 2009_999999)"
    )
    missing = ds.image_index("2009_999998")
    rows = ds.objects_of(missing)
    assert rows.start == rows.stop
    assert ds.images.width[missing] == 0
    # cat_val.txt also lists 2009_999999, already reported: no second problem
    assert not [p for p in ds.problems if p.path.name == "cat_val.txt" and p.line is None]


def test_class_label_files_are_not_image_sets(ds: Dataset) -> None:
    assert "Main/dog_train" not in ds.image_sets
    assert set(ds.class_labels) == {("train", "dog"), ("val", "cat")}
    dog = ds.class_labels[("train", "dog")]
    assert ids(ds, dog.image_index) == ["2008_000001", "2008_000002", "2008_000004"]
    assert dog.label.tolist() == [1, -1, 0]
    assert ds.image_class_labels("train", "dog") is dog


def test_bad_label_line_is_skipped_with_its_line(ds: Dataset) -> None:
    cat = ds.class_labels[("val", "cat")]
    assert ids(ds, cat.image_index) == ["2008_000003", "2009_999999"]
    assert cat.label.tolist() == [1, -1]
    assert "'x'" in problem(ds, "ImageSets/Main/cat_val.txt", 2)


def test_segmentation_set(ds: Dataset) -> None:
    assert ids(ds, ds.image_sets["Segmentation/val"]) == ["2008_000001"]


def test_layout_set_maps_persons_to_object_rows(ds: Dataset) -> None:
    layout = ds.person_sets["Layout/val"]
    assert ids(ds, layout.image_index) == ["2008_000001", "2008_000001", "2008_000004"]
    first = ds.objects_of(ds.image_index("2008_000001")).start
    horse = ds.objects_of(ds.image_index("2008_000004")).start
    assert layout.object_index.tolist() == [first + 1, -1, horse]
    assert layout.object_number is not None
    assert layout.object_number.tolist() == [2, 9, 1]  # as listed, annotated or not
    assert layout.label is None
    assert ids(ds, ds.image_sets["Layout/val"]) == ["2008_000001", "2008_000001", "2008_000004"]
    assert "object 9 of image 2008_000001" in problem(ds, "ImageSets/Layout/val.txt", 2)
    assert "'x'" in problem(ds, "ImageSets/Layout/val.txt", 3)


def test_action_sets(ds: Dataset) -> None:
    first = ds.objects_of(ds.image_index("2010_000005")).start
    persons = ds.person_sets["Action/val"]
    assert persons.object_index.tolist() == [first, first + 1]
    assert persons.label is None
    jumping = ds.person_sets["Action/jumping_val"]
    assert jumping.object_index.tolist() == [first, first + 1]
    assert jumping.label is not None and jumping.label.tolist() == [1, -1]
    assert ids(ds, ds.image_sets["Action/jumping_val"]) == ["2010_000005", "2010_000005"]
    # VOC2012-style Action/<set>.txt with bare ids: an image set, no person set
    assert ids(ds, ds.image_sets["Action/train"]) == ["2010_000005"]
    assert "Action/train" not in ds.person_sets


def test_duplicates_kept_in_file_order(tmp_path: Path) -> None:
    year = minimal_year(tmp_path / "VOC2007", ("b", "a"))
    (year / "ImageSets" / "Main" / "test.txt").write_text("b\na\nb\n")
    ds = read_voc(year)
    assert ds.year == 2007
    assert ds.image_sets["Main/test"].tolist() == [1, 0, 1]
    assert ds.images_in_set("test").tolist() == [1, 0]
    assert ds.problems == ()


def test_every_kind_of_bad_line(tmp_path: Path) -> None:
    year = minimal_year(tmp_path / "VOC2010", ("a",))
    sets = year / "ImageSets"
    (sets / "Main" / "dog_test.txt").write_text("a\na 1 2\na +1\na 2\n\r\na -1\r\n")
    (sets / "Action").mkdir()
    (sets / "Action" / "phoning_test.txt").write_text("a 1 1\na 0 1\na 1 5\na 1\n")
    (sets / "Layout").mkdir()
    (sets / "Layout" / "test.txt").write_text("a\na 1.0\n")
    ds = read_voc(year)
    assert ds.class_labels[("test", "dog")].label.tolist() == [1, -1]
    assert ds.person_sets["Action/phoning_test"].object_index.tolist() == [0]
    assert ds.person_sets["Layout/test"].object_index.tolist() == [0]  # "1.0" is the integer 1
    found = sorted((p.path.name, p.line, p.message.split(",")[0]) for p in ds.problems)
    assert found == [
        ("dog_test.txt", 1, "expected <id> <label>"),
        ("dog_test.txt", 2, "expected <id> <label>"),
        ("dog_test.txt", 4, "label must be 1"),
        ("phoning_test.txt", 2, "object index must be an integer in 1..2^31-1"),
        ("phoning_test.txt", 3, "label must be 1"),
        ("phoning_test.txt", 4, "expected <id> <object index> <label>"),
        ("test.txt", 1, "expected <id> <object index>"),
    ]


def test_many_bad_lines_are_summarised(tmp_path: Path) -> None:
    year = minimal_year(tmp_path / "VOC2012", ("a",))
    (year / "ImageSets" / "Main" / "dog_test.txt").write_text("a 7\n" * 25)
    ds = read_voc(year)
    assert [p.line for p in ds.problems] == [*range(1, 21), 21]
    assert ds.problems[-1].message.startswith("5 more problems in this file are not listed")
