"""ILSVRC submissions under the non-finite rule: kept, evaluated as the official code, warned once."""

from __future__ import annotations

from tests.evaluation import test_ilsvrc_clsloc as clsloc
from tests.evaluation.test_ilsvrc import evaluate, write_fixture
from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results

IMAGES = [[(0, 1, 1, 50, 50), (0, 60, 60, 90, 90)], [(1, 5, 5, 30, 30)]]
CLEAN = [(1, 1, 0.9, 1, 1, 50, 50), (1, 1, 0.5, 60, 60, 90, 90), (2, 2, 0.8, 5, 5, 30, 30)]


def test_det_nan_confidence_ranks_last_and_inf_box_is_a_false_positive(tmp_path):
    nan_row = (1, 1, "nan", 1, 1, 50, 50)  # a duplicate: an FP, ranked after everything
    got = evaluate(tmp_path / "a", IMAGES, [*CLEAN, nan_row])
    want = evaluate(tmp_path / "b", IMAGES, [*CLEAN, (1, 1, 0.0, 1, 1, 50, 50)])
    assert got.ap.tolist() == want.ap.tolist()
    inf_row = (1, 1, 0.7, "-inf", 1, "inf", 50)  # overlaps nothing: an FP at rank 2
    got = evaluate(tmp_path / "c", IMAGES, [*CLEAN, inf_row])
    want = evaluate(tmp_path / "d", IMAGES, [*CLEAN, (1, 1, 0.7, 400, 400, 410, 410)])
    assert got.ap.tolist() == want.ap.tolist() and got.ap[0] < 1


def test_det_warning_names_the_file_and_first_line(tmp_path):
    rows = [*CLEAN, (1, 1, 0.7, 1, 1, "inf", 50), (2, 2, "nan", 5, 5, 30, 30)]
    gt, devkit, pred = write_fixture(tmp_path, IMAGES, rows)
    ds = read_ilsvrc_det(gt, devkit)
    rs = read_ilsvrc_det_results(ds, pred)
    assert len(rs.detections) == 5 and not rs.problems
    (warning,) = rs.warnings
    assert warning.path == pred and warning.line == 4 and "2 row(s)" in warning.message


def test_clsloc_inf_box_is_kept_and_misses(tmp_path):
    images = [(1, [(1, 1, 1, 100, 100)]), (2, [(2, 1, 1, 100, 100)])]
    got = clsloc.evaluate(
        tmp_path / "a", images, [[(1, "-inf", 1, "inf", 100)], [(2, 1, 1, 100, 100)]]
    )
    want = clsloc.evaluate(
        tmp_path / "b", images, [[(1, 500, 500, 600, 600)], [(2, 1, 1, 100, 100)]]
    )
    assert got.loc_error.tolist() == want.loc_error.tolist() == [0.5] * 5
    assert got.cls_error.tolist() == [0.0] * 5
