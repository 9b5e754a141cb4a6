"""The label-error queue (``evaluation.label_errors``) on planted errors, agreeing result sets and
the ``vocviewer suspects`` command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from tests.evaluation.planted import KINDS, plant
from vocviewer.cli import main
from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.demo import write_demo
from vocviewer.evaluation.label_errors import of_kind
from vocviewer.evaluation.result import Verdict
from vocviewer.families.evidence import collect
from vocviewer.families.registry import benchmark_of, open_dataset
from vocviewer.families.suspects import evaluated_sets, queue_of
from vocviewer.families.views import ViewChoice

TOP, N = 40, 20


@pytest.fixture(scope="module")
def big_demo(tmp_path_factory: pytest.TempPathFactory):
    """The demo at 240 images (about 410 non-difficult val objects, room for 80 planted errors)."""
    return write_demo(tmp_path_factory.mktemp("demo240"), n_images=240)


def _found_objects(dataset: Dataset, results_dir: Path) -> set[tuple[str, int]]:
    """(image id, XML position) of every object a true positive of the demo's results finds."""
    (_, _, evidence) = evaluated_sets(dataset, [results_dir])[0]
    out = set()
    obj = dataset.objects
    for ev in evidence.evaluations("det"):
        for g in ev.best_gt[ev.verdict == Verdict.TP]:
            out.add((str(dataset.images.id[obj.image_index[g]]), int(obj.order_in_image[g])))
    return out


def _recall(dataset: Dataset, planted, suspects) -> dict[str, float]:
    ids, obj = list(dataset.images.id), dataset.objects

    def row(image_id: str, position: int) -> int:
        im = ids.index(image_id)
        return int(np.flatnonzero((obj.image_index == im) & (obj.order_in_image == position))[0])

    out = {}
    for kind in KINDS:
        top = of_kind(suspects, kind)[:TOP]
        hits = 0
        for item in getattr(planted, kind):
            if kind == "missing":
                im, box = ids.index(item[0]), np.array([item[1]])
                hits += any(
                    s.image == im
                    and overlap_pairs(np.array([s.box]), box, plus_one=True)[1][0] >= 0.5
                    for s in top
                )
            else:
                r = row(*item)
                hits += any(r in (s.object, s.other) for s in top)
        out[kind] = hits / N
    return out


def test_planted_errors_lead_the_queue(big_demo, tmp_path):
    """20 planted errors of each kind among the objects the demo's detector finds (an object no
    detector sees leaves no evidence: the detector finds 77 % of them): each kind's top 40 holds
    at least 80 % of its planted ones."""
    clean = open_dataset(big_demo.year_dir)
    found = _found_objects(clean, big_demo.results_dir)
    planted = plant(big_demo.year_dir, tmp_path / "VOC2012", N, seed=0, among=found)
    dataset = open_dataset(tmp_path / "VOC2012")
    suspects = queue_of(dataset, evaluated_sets(dataset, [big_demo.results_dir]))
    recall = _recall(dataset, planted, suspects)
    assert all(r >= 0.8 for r in recall.values()), recall
    # the clean demo has no duplicate ground truth, and the planted copies are all found
    assert recall["duplicate"] == 1.0
    assert not of_kind(queue_of(clean, evaluated_sets(clean, [big_demo.results_dir])), "duplicate")


def test_agreeing_result_sets_make_a_suspect_stronger(demo):
    """A second result set with the same boxes (moved by a pixel) joins each missing-annotation
    suspect: its strength is the noisy-or of both sets' scores, its support names both sets."""
    dataset = open_dataset(demo.year_dir)
    (name, results, evidence) = evaluated_sets(dataset, [demo.results_dir])[0]
    d = results.detections
    moved = dataclasses.replace(d, box=d.box + np.array([1.0, 0.0, 1.0, 0.0]))
    other = dataclasses.replace(results, name="moved", detections=moved)
    bench = benchmark_of(dataset)
    choice = ViewChoice(0.5, "all", "val")
    other_evidence = collect(bench.evaluate_views(dataset, other, choice), choice)
    alone = of_kind(queue_of(dataset, [(name, results, evidence)]), "missing")
    both = of_kind(
        queue_of(dataset, [(name, results, evidence), ("moved", other, other_evidence)]),
        "missing",
    )
    assert alone
    top = alone[0]
    twin = next(s for s in both if s.image == top.image and s.class_index == top.class_index)
    assert [s.set_name for s in twin.support] == [name, "moved"]
    s1, s2 = (s.score for s in twin.support)
    assert twin.strength == pytest.approx(1 - (1 - s1) * (1 - s2))
    assert twin.strength > top.strength


def test_suspects_command_text_and_json(demo, tmp_path, capsys):
    out = tmp_path / "suspects.json"
    args = ["suspects", str(demo.year_dir), "--results", str(demo.results_dir)]
    assert main([*args, "--json", str(out), "--top", "3"]) == 0
    text = capsys.readouterr().out
    payload = json.loads(out.read_text())
    assert text.startswith("label-error suspects from 1 result set(s)")
    for kind in ("missing annotation", "wrong label", "loose box", "duplicate ground truth"):
        assert f"\n{kind}: " in text
    assert set(payload["counts"]) == set(KINDS)
    strengths = [s["strength"] for s in payload["suspects"]]
    assert strengths == sorted(strengths, reverse=True)
    assert sum(payload["counts"].values()) == len(payload["suspects"])
    first = payload["suspects"][0]
    assert {"kind", "image", "class", "box", "why", "support"} <= set(first)


def test_suspects_command_refuses_bad_input(demo, tmp_path, capsys):
    args = ["suspects", str(demo.year_dir), "--results", str(tmp_path / "nothing")]
    assert main(args) == 1
    assert "no such file or folder" in capsys.readouterr().err
    args = ["suspects", str(demo.year_dir), "--results", str(demo.results_dir)]
    assert main([*args, "--min-score", "2"]) == 1
    inside = demo.year_dir / "suspects.json"
    assert main([*args, "--json", str(inside)]) == 1
    assert not inside.exists()


def test_each_kind_on_a_hand_made_case():
    """One error of each kind, strengths worked out by hand: duplicate dogs (IoU 1.0); a cat that
    a dog detection (0.9) covers while no cat is detected (0.9 * (1 - 0)); a person box of
    400 x 170 px with a 200 x 110 px detection (0.8) inside it (IoU 22,000 / 68,000 = 0.32, all
    inside: 0.8); a horse (0.7) on an image without objects. A region (COCO's crowd) is never a
    suspect itself."""
    from tests.evaluation.builders import make_dataset, make_results
    from vocviewer.evaluation.label_errors import SetEvidence, find_suspects

    dataset = make_dataset(
        {
            "a": [
                ("dog", (10, 10, 109, 109), False),
                ("dog", (10, 10, 109, 109), False),
                ("cat", (200, 10, 299, 109), False),
                ("person", (10, 200, 409, 369), False),
            ],
            "b": [],
        },
        {"Main/val": ["a", "b"]},
    )
    results = make_results(
        dataset,
        [
            ("dog", "a", 0.9, (200, 10, 299, 109)),
            ("person", "a", 0.8, (110, 230, 309, 339)),
            ("horse", "b", 0.7, (50, 50, 149, 149)),
        ],
    )
    choice = ViewChoice(0.5, "all", "val")
    evidence = collect(benchmark_of(dataset).evaluate_views(dataset, results, choice), choice)
    sets = [SetEvidence("r", results, evidence.evaluations("det"))]
    found = find_suspects(dataset, sets)
    got = [(s.kind, round(s.strength, 9), s.object, s.other) for s in found]
    assert got == [
        ("duplicate", 1.0, 1, 0),
        ("wrong_label", 0.9, 2, -1),
        ("loose_box", 0.8, 3, -1),
        ("missing", 0.7, -1, -1),
    ]
    assert dataset.classes[found[1].suggested_class] == "dog"
    assert found[2].support[0].iou == pytest.approx(22_000 / 68_000)
    assert found[2].suggested_box == (110, 230, 309, 339)
    assert (found[3].image, found[3].box) == (1, (50, 50, 149, 149))
    regions = np.array([False, True, False, False])
    assert [s.kind for s in find_suspects(dataset, sets, regions=regions)] == [
        "wrong_label",
        "loose_box",
        "missing",
    ]
