"""VisDrone readers: tolerant rows, errors with file and line, missing and empty files."""

from __future__ import annotations

from vocviewer.families.visdrone.columns import VisDroneDetections, VisDroneGroundTruth
from vocviewer.families.visdrone.reader import parse_row, read_visdrone, read_visdrone_results


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
    assert rs.data(VisDroneDetections).row_in_file.tolist() == [0, 1, 2]
    assert rs.detections.box[0].tolist() == [0, 0, 10, 10]
    (warning,) = rs.warnings
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
    assert len(rs.detections) == 0 and rs.data(VisDroneDetections).missing == ()
    (res / "a.txt").unlink()
    rs = read_visdrone_results(ds, [res])
    assert rs.data(VisDroneDetections).missing == ("a.txt",)


def test_image_size_read_only_for_images_with_regions(tmp_path):
    from PIL import Image

    split, _ = _split(tmp_path, "0,0,10,10,0,0,0,0\n")
    Image.new("L", (33, 21)).save(split / "images" / "a.jpg")
    ds = read_visdrone(split)
    assert ds.data(VisDroneGroundTruth).image_height.tolist() == [21]
    assert ds.data(VisDroneGroundTruth).image_width.tolist() == [33]


def test_nonfinite_results_are_kept_ranked_last_and_evaluated_silently(tmp_path):
    """The non-finite rule: NaN/inf rows are false positives, a NaN score ranks last, no numpy
    warning (the suite turns warnings into errors), even with ignored regions to filter."""
    from tests.evaluation.test_visdrone_reference import evaluate_dirs, write_split

    gt = [(0, 0, 10, 10, 1, 4), (20, 20, 10, 10, 1, 4), (40, 40, 10, 10, 0, 0)]
    clean = [(0, 0, 10, 10, 0.9, 4), (20, 20, 10, 10, 0.3, 4)]
    split, res = write_split(tmp_path / "a", [(gt, clean, 100, 100)])
    lines = (res / "0000.txt").read_text().splitlines()
    # a NaN-score FP ranked last changes nothing; an inf-box FP ranked first costs precision
    (res / "0000.txt").write_text("\n".join([*lines, "0,0,10,10,nan,4,-1,-1"]) + "\n")
    assert evaluate_dirs(split, res).ap.tolist() == _ap(tmp_path / "b", gt, clean)
    (res / "0000.txt").write_text("\n".join(["-inf,nan,inf,inf,0.95,4,-1,-1", *lines]) + "\n")
    far = [(500, 500, 10, 10, 0.95, 4), *clean]
    assert evaluate_dirs(split, res).ap.tolist() == _ap(tmp_path / "c", gt, far)


def _ap(root, gt, dets):
    from tests.evaluation.test_visdrone_reference import evaluate_dirs, write_split

    return evaluate_dirs(*write_split(root, [(gt, dets, 100, 100)])).ap.tolist()
