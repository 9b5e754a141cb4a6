"""Which folder ``read_voc`` reads (root vs year folder) and ``detect`` sniffing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.formats.voc_files import minimal_year
from vocviewer.core.errors import FormatError
from vocviewer.families.registry import open_dataset, open_results
from vocviewer.families.voc.reader import find_year_folders, looks_like_voc, read_voc


@pytest.fixture
def two_years(tmp_path: Path) -> Path:
    root = tmp_path / "VOCdevkit"
    minimal_year(root / "VOC2007", ("000001",))
    minimal_year(root / "VOC2012", ("2012_000001", "2012_000002"))
    (root / "results" / "VOC2012" / "Main").mkdir(parents=True)  # not a year folder
    return root


def test_root_with_several_years_needs_year(two_years: Path) -> None:
    with pytest.raises(FormatError, match=r"several years \(VOC2007, VOC2012\)") as info:
        read_voc(two_years)
    assert info.value.path == two_years


@pytest.mark.parametrize(("year", "n_images"), [(2007, 1), (2012, 2)])
def test_root_with_year(two_years: Path, year: int, n_images: int) -> None:
    ds = read_voc(two_years, year=year)
    assert (ds.name, ds.year, ds.root) == (f"VOC{year}", year, two_years / f"VOC{year}")
    assert len(ds.images) == n_images


def test_root_without_that_year(two_years: Path) -> None:
    with pytest.raises(FormatError, match="no year folders for 2010; found: VOC2007, VOC2012"):
        read_voc(two_years, year=2010)


def test_year_folder_directly_and_its_subfolders(two_years: Path) -> None:
    year = two_years / "VOC2007"
    assert read_voc(year).root == year
    assert read_voc(str(year), year=2007).year == 2007
    assert read_voc(year / "Annotations").root == year
    with pytest.raises(FormatError, match="is a VOC2007 folder, but year 2012 was asked for"):
        read_voc(year, year=2012)


def test_single_year_root_and_unpacked_tar(tmp_path: Path) -> None:
    minimal_year(tmp_path / "VOCtrainval_11-May-2012" / "VOCdevkit" / "VOC2012")
    for path in (
        tmp_path / "VOCtrainval_11-May-2012",
        tmp_path / "VOCtrainval_11-May-2012" / "VOCdevkit",
    ):
        ds = read_voc(path)
        assert (ds.name, ds.year) == ("VOC2012", 2012)


def test_any_folder_with_annotations_and_imagesets(tmp_path: Path) -> None:
    folder = minimal_year(tmp_path / "my data")
    ds = read_voc(folder)
    assert (ds.name, ds.year) == ("my data", None)
    assert read_voc(folder, year=2008).year == 2008  # assumed, chooses the AP rule
    assert find_year_folders(tmp_path) == [folder]


def test_fatal_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="does not exist"):
        read_voc(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(FormatError, match="is a file"):
        read_voc(tmp_path / "file.txt")
    with pytest.raises(FormatError, match="not a VOCdevkit"):
        read_voc(tmp_path)
    (tmp_path / "VOC2009" / "Annotations").mkdir(parents=True)
    with pytest.raises(FormatError, match="no ImageSets/ folder"):
        read_voc(tmp_path / "VOC2009")
    (tmp_path / "VOC2010" / "ImageSets").mkdir(parents=True)
    with pytest.raises(FormatError, match="no Annotations/ folder"):
        read_voc(tmp_path / "VOC2010")


def test_empty_year_folder_reads_as_empty_dataset(tmp_path: Path) -> None:
    (tmp_path / "VOC2011" / "Annotations").mkdir(parents=True)
    (tmp_path / "VOC2011" / "ImageSets").mkdir()
    ds = read_voc(tmp_path / "VOC2011")
    assert (len(ds.images), len(ds.objects), len(ds.parts), ds.problems) == (0, 0, 0, ())
    assert ds.objects.box.shape == (0, 4)
    assert ds.objects.actions.shape == (0, 11)


def test_open_dataset_sniffs_voc(two_years: Path, tmp_path: Path) -> None:
    assert looks_like_voc(two_years) and looks_like_voc(two_years / "VOC2007")
    assert open_dataset(two_years / "VOC2012").name == "VOC2012"
    with pytest.raises(FormatError, match="several years"):
        open_dataset(two_years)
    (tmp_path / "instances.json").write_text("{}")
    with pytest.raises(FormatError, match="not a COCO annotation file"):
        open_dataset(tmp_path / "instances.json")
    (tmp_path / "photos").mkdir()
    assert not looks_like_voc(tmp_path / "photos")
    with pytest.raises(FormatError, match="not a dataset vocviewer can read"):
        open_dataset(tmp_path / "photos")
    with pytest.raises(FormatError, match="does not exist"):
        open_dataset(tmp_path / "missing")


def test_open_results_reads_voc_files(two_years: Path, tmp_path: Path) -> None:
    ds = open_dataset(two_years / "VOC2012")
    path = tmp_path / "comp3_det_test_dog.txt"
    path.write_text("2012_000002 0.5 1 2 3 4\n")
    results = open_results(ds, [path], name="mine")
    assert results.name == "mine"
    assert results.detections.image_index.tolist() == [1]
    with pytest.raises(FormatError, match=r"a COCO results JSON .* expects VOC result files"):
        open_results(ds, [tmp_path / "results.json"])
