"""AP tables over several result sets: CSV, Markdown, LaTeX and JSON renderings."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.evaluation.builders import make_dataset, make_results
from vocviewer.evaluation.report import TABLE_FORMATS, ap_table, render_ap_table
from vocviewer.families.voc.evaluate import evaluate_voc_det

A = (1, 1, 100, 100)


@pytest.fixture
def two_sets():
    ds = make_dataset({"i1": [("dog", A, False), ("cat", A, False)]}, {"Main/val": ["i1"]})
    k = [ds.class_index("cat"), ds.class_index("dog")]
    good = make_results(ds, [("dog", "i1", 0.9, A), ("cat", "i1", 0.9, A)])
    half = make_results(ds, [("dog", "i1", 0.9, A)], det_classes=["dog"])
    return {
        "good_run": evaluate_voc_det(ds, good, image_set="val", classes=k),
        "half&half": evaluate_voc_det(ds, half, image_set="val", classes=k),
    }


def test_csv_has_a_column_per_result_set_and_a_mean_row(two_sets):
    rows = list(csv.reader(io.StringIO(render_ap_table(two_sets, "csv"))))
    assert rows[0] == ["class", "good_run", "half&half"]
    assert rows[1] == ["cat", "1.0", ""]  # no results file → empty
    assert rows[2] == ["dog", "1.0", "1.0"]
    assert rows[3] == ["mean", "1.0", "1.0"]


def test_markdown_and_latex(two_sets):
    md = render_ap_table(two_sets, "md").splitlines()
    assert md[0] == "| class | good_run | half&half |"
    assert md[2] == "| cat | 1.000 | — |"
    assert md[-1] == "| **mean** | **1.000** | **1.000** |"
    tex = render_ap_table(two_sets, "tex")
    assert tex.startswith("\\begin{tabular}{lrr}\n\\toprule\n")
    assert "class & good\\_run & half\\&half \\\\" in tex
    assert "cat & 100.0 & -- \\\\" in tex and tex.rstrip().endswith("\\end{tabular}")


def test_json_is_strict_and_keeps_the_eval_schema(two_sets):
    payload = json.loads(render_ap_table(two_sets, "json"))
    sets = payload["result_sets"]
    assert list(sets) == ["good_run", "half&half"]
    assert sets["half&half"]["summary"]["not_submitted"] == ["cat"]
    assert sets["good_run"]["per_class"]["dog"]["ap"] == 1.0
    assert TABLE_FORMATS == ("csv", "md", "tex", "json")
    with pytest.raises(ValueError, match="unknown table format"):
        render_ap_table(two_sets, "xls")


def test_existing_printed_table_is_unchanged(two_sets):
    text = ap_table(two_sets["half&half"])
    assert "excluded, no results file: cat" in text and text.splitlines()[-2].startswith("mAP")
