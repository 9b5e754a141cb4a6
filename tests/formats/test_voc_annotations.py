"""``read_voc`` on a hand-written VOCdevkit: every annotation rule, with exact values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.formats.voc_files import IDS, line_of, make_devkit, minimal_year
from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES, VOC_PARTS, VOC_POSES, Dataset
from vocviewer.core.errors import FormatError
from vocviewer.families.voc.reader import read_voc


@pytest.fixture(scope="module")
def devkit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_devkit(tmp_path_factory.mktemp("voc"))


@pytest.fixture(scope="module")
def ds(devkit: Path) -> Dataset:
    return read_voc(devkit)


def rows_of(ds: Dataset, image_id: str) -> slice:
    return ds.objects_of(ds.image_index(image_id))


def problems_of(ds: Dataset, file_name: str) -> list[FormatError]:
    return [p for p in ds.problems if p.path is not None and p.path.name == file_name]


def test_dataset_identity(ds: Dataset, devkit: Path) -> None:
    assert ds.name == "VOC2012"
    assert ds.year == 2012
    assert ds.root == devkit / "VOC2012"
    assert ds.classes == VOC_CLASSES
    assert ds.actions == VOC_ACTIONS
    assert ds.box_convention == "voc"


def test_images_are_annotations_plus_listed_ids_sorted(ds: Dataset, devkit: Path) -> None:
    assert ds.images.id.tolist() == IDS
    jpeg = devkit / "VOC2012" / "JPEGImages"
    names = [p.relative_to(jpeg).as_posix() for p in ds.images.path]
    assert names == [
        "000006.jpg",
        "2008_000001.jpg",
        "2008_000002.png",
        "2008_000003.jpg",
        "2008_000004.jpg",
        "2009_999998.jpg",
        "2009_999999.jpg",
        "2010_000005.jpg",
    ]
    assert ds.images.width.tolist() == [0, 500, 640, 0, 100, 0, 0, 300]
    assert ds.images.height.tolist() == [0, 375, 480, 0, 0, 0, 0, 200]
    assert ds.images.segmented.tolist() == [False, True] + [False] * 6


def test_objects_in_image_then_xml_order(ds: Dataset) -> None:
    names = [ds.classes[k] for k in ds.objects.label.tolist()]
    assert names == [
        "bottle",
        "dog",
        "person",
        "cat",
        "car",
        "bus",
        "horse",
        "train",
        "person",
        "person",
    ]
    assert ds.objects.image_index.tolist() == [0, 1, 1, 1, 1, 1, 4, 4, 7, 7]
    # XML position; objects left out (unicorn, sheep with xmin "abc", cow without a box) leave gaps
    assert ds.objects.order_in_image.tolist() == [0, 0, 1, 2, 3, 4, 0, 4, 0, 1]


def test_boxes_are_exactly_as_written(ds: Dataset) -> None:
    box = ds.objects.box[rows_of(ds, "2008_000001")]
    assert box.dtype == np.float64
    assert box.tolist() == [
        [10.0, 20.0, 110.0, 220.0],
        [1.5, 2.25, 100.75, 200.125],  # floats kept, no rounding
        [0.0, -3.0, 600.0, 1000.0],  # outside the image, no clipping
        [50.0, 40.0, 30.0, 20.0],  # inverted, no validation
        [1.0, 1.0, 1.0, 1.0],
    ]


def test_difficult_is_true_only_for_text_1(ds: Dataset) -> None:
    # "0", " 1\t" (tab deleted, spaces trimmed), "true", "1.0", missing
    assert ds.objects.difficult[rows_of(ds, "2008_000001")].tolist() == [
        False,
        True,
        False,
        False,
        False,
    ]
    assert ds.objects.difficult[rows_of(ds, "000006")].tolist() == [False]


def test_truncated_occluded_and_pose(ds: Dataset) -> None:
    rows = rows_of(ds, "2008_000001")
    assert ds.objects.truncated[rows].tolist() == [True, False, False, False, False]  # "yes" ≠ 1
    assert ds.objects.occluded[rows].tolist() == [False, True, False, False, False]
    poses = [VOC_POSES[k] for k in ds.objects.pose[rows].tolist()]
    # " Frontal " is trimmed; an unknown pose is Unspecified without a problem
    assert poses == ["Left", "Frontal", "Unspecified", "Unspecified", "Unspecified"]
    assert not [p for p in ds.problems if p.element and "pose" in p.element]


def test_parts_of_a_person(ds: Dataset) -> None:
    person = ds.objects_of(ds.image_index("2008_000001")).start + 1
    assert ds.parts.object_index.tolist() == [person, person]
    assert [VOC_PARTS[k] for k in ds.parts.part.tolist()] == ["head", "hand"]
    assert ds.parts.box.tolist() == [[5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.5, 12.0]]
    (tail,) = [p for p in problems_of(ds, "2008_000001.xml") if "part" in p.message]
    assert tail.element == "annotation/object[2]/part[3]/name"
    assert tail.line == line_of("2008_000001", "<name>tail</name>")
    assert "'tail'" in tail.message


def test_actions_flags_in_voc_actions_order(ds: Dataset) -> None:
    flags = ds.objects.actions[rows_of(ds, "2010_000005")]
    assert flags.shape == (2, len(VOC_ACTIONS))
    on = [[VOC_ACTIONS[c] for c in np.flatnonzero(row)] for row in flags]
    assert on == [["jumping", "walking"], ["running"]]  # "true" for reading is not 1
    assert not ds.objects.actions[rows_of(ds, "2008_000001")].any()
    (flying,) = problems_of(ds, "2010_000005.xml")
    assert flying.element == "annotation/object[2]/actions/flying"
    assert flying.line == line_of("2010_000005", "<flying>")


def test_zero_object_labelimg_file(ds: Dataset) -> None:
    assert rows_of(ds, "2008_000002") == slice(6, 6)  # after 000006 (1) and 2008_000001 (5)
    assert not problems_of(ds, "2008_000002.xml")


def test_malformed_xml_keeps_the_image_without_objects(ds: Dataset) -> None:
    row = ds.image_index("2008_000003")
    assert ds.objects_of(row).start == ds.objects_of(row).stop
    (bad,) = problems_of(ds, "2008_000003.xml")
    assert bad.line == line_of("2008_000003", "</objekt>")
    assert "malformed XML" in bad.message
    assert ds.images.width[row] == 0


def test_unknown_class_non_numeric_coordinate_and_missing_box(ds: Dataset) -> None:
    found = {p.element: p for p in problems_of(ds, "2008_000004.xml")}
    assert set(found) == {
        "annotation/size/height",
        "annotation/object[2]/name",
        "annotation/object[3]/bndbox/xmin",
        "annotation/object[4]",
    }
    assert found["annotation/object[2]/name"].line == line_of("2008_000004", "unicorn")
    assert "'unicorn'" in found["annotation/object[2]/name"].message
    assert found["annotation/object[3]/bndbox/xmin"].line == line_of("2008_000004", "abc</xmin>")
    assert "'abc'" in found["annotation/object[3]/bndbox/xmin"].message
    assert "<bndbox>" in found["annotation/object[4]"].message
    box = ds.objects.box[rows_of(ds, "2008_000004")]
    assert box.tolist() == [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]  # sheep left out
    assert "object left out" in found["annotation/object[3]/bndbox/xmin"].message
    assert str(found["annotation/object[2]/name"]).startswith(
        f"{found['annotation/object[2]/name'].path}:{line_of('2008_000004', 'unicorn')} "
    )


def test_every_problem_names_an_existing_file(ds: Dataset) -> None:
    for problem in ds.problems:
        assert problem.path is not None and problem.path.is_file()
    assert len(ds.problems) == 11


def test_readonly_columns(ds: Dataset) -> None:
    with pytest.raises(ValueError, match="read-only"):
        ds.objects.box[0, 0] = 3.0


def test_wrong_root_and_empty_file(tmp_path: Path) -> None:
    year = minimal_year(tmp_path / "VOC2012", ("a", "b", "c"))
    (year / "Annotations" / "a.xml").write_text("<html>\n<body/></html>")
    (year / "Annotations" / "b.xml").write_bytes(b"")
    ds = read_voc(year)
    assert ds.objects.image_index.tolist() == [2]
    found = [(p.path.name, p.line, p.element, p.message[:35]) for p in ds.problems]
    assert found == [
        ("a.xml", 1, "html", "root element is <html>, expected <a"),
        ("b.xml", 1, None, "malformed XML: Document is empty, l"),  # lxml adds the column
    ]


def test_image_level_fields_are_kept(tmp_path: Path) -> None:
    year = tmp_path / "VOC2008"
    (year / "Annotations").mkdir(parents=True)
    (year / "ImageSets" / "Main").mkdir(parents=True)
    (year / "ImageSets" / "Main" / "val.txt").write_text("2008_000001\n")
    (year / "Annotations" / "2008_000001.xml").write_text(
        "<annotation><folder>VOC2008</folder><filename>2008_000001.jpg</filename>"
        "<source><database>The VOC2008 Database</database><annotation>PASCAL VOC2008</annotation>"
        "<image>flickr</image></source><size><width>500</width><height>375</height>"
        "<depth>3</depth></size><segmented>0</segmented></annotation>"
    )
    from vocviewer.families.voc.reader import read_voc

    fields = read_voc(year).images.fields[0]
    assert fields["folder"] == "VOC2008"
    assert fields["source/database"] == "The VOC2008 Database"
    assert fields["source/image"] == "flickr"
    assert fields["size/depth"] == "3"
