"""VisDrone readers: tolerant rows, errors with file and line, missing and empty files."""

from __future__ import annotations

from vocviewer.formats.visdrone import parse_row, read_visdrone, read_visdrone_results


def _split(tmp_path, gt_text, res_text=None):
    (tmp_path / "s" / "annotations").mkdir(parents=True)
    (tmp_path / "s" / "images").mkdir()
    (tmp_path / "s" / "annotations" / "a.txt").write_text(gt_text)
    (tmp_path / "r").mkdir()
    if res_text is not None:
        (tmp_path / "r" / "a.txt").write_text(res_text)
    return tmp_path / "s", tmp_path / "r"


def test_trailing_comma_and_whitespace_are_accepted():
    assert parse_row(" 1,2,3,4,0.5,4,-1,-1, \n", ground_truth=False) == (1, 2, 3, 4, 0.5, 4, -1, -1)


def test_bad_rows_are_reported_with_line_and_the_rest_loads(tmp_path):
    split, res = _split(
        tmp_path,
        "0,0,10,10,1,4,0,0\n",
        "0,0,10,10,0.9,4,-1,-1\n1,2,3\n0,0,x,1,1,1,1,1\n0,0,1,1,nan,1,0,0\n0,0,1,1,1,12,0,0\n"
        "5,5,5,5,0.3,1,-1,-1\n",
    )
    ds = read_visdrone(split)
    rs = read_visdrone_results(ds, [res])
    assert [p.line for p in rs.problems] == [2, 3, 5]
    assert "8 comma-separated" in rs.problems[0].message
    assert "category" in rs.problems[2].message
    # a NaN score is kept (it ranks last) and reported once as a warning naming file and line
    assert rs.detections.line.tolist() == [1, 4, 6]
    assert rs.extras["visdrone"].row_in_file.tolist() == [0, 1, 2]
    assert rs.detections.box[0].tolist() == [0, 0, 10, 10]
    (warning,) = rs.extras["nonfinite"]
    assert warning.path == res / "a.txt" and warning.line == 4


def test_gt_score_must_be_0_or_1(tmp_path):
    split, _ = _split(tmp_path, "0,0,10,10,2,4,0,0\n0,0,10,10,0,4,0,0\n")
    ds = read_visdrone(split)
    assert len(ds.problems) == 1 and ds.problems[0].line == 1
    assert ds.objects.difficult.tolist() == [True]


def test_empty_and_missing_result_files(tmp_path):
    split, res = _split(tmp_path, "0,0,10,10,1,4,0,0\n", "")
    ds = read_visdrone(split)
    rs = read_visdrone_results(ds, [res])
    assert len(rs.detections) == 0 and rs.extras["visdrone"].missing == ()
    (res / "a.txt").unlink()
    rs = read_visdrone_results(ds, [res])
    assert rs.extras["visdrone"].missing == ("a.txt",)


def test_image_size_read_only_for_images_with_regions(tmp_path):
    from PIL import Image

    split, _ = _split(tmp_path, "0,0,10,10,0,0,0,0\n")
    Image.new("L", (33, 21)).save(split / "images" / "a.jpg")
    ds = read_visdrone(split)
    assert ds.extras["visdrone"].image_height.tolist() == [21]
    assert ds.extras["visdrone"].image_width.tolist() == [33]
