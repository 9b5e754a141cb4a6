"""The label-error queue beside cleanlab's object-detection label-issue scores (if installed).

On a copy of the demo (240 images) with 20 planted errors of each kind (``tests/evaluation/
planted.py``: deleted, relabelled, loosened, duplicated objects; among the objects the demo's
detector finds, or ``--anywhere`` among all), each method ranks its suspects and the share of
the planted ones in each kind's top ``--top`` (40) is printed, with the time each took.
cleanlab's per-box scores (lower = more likely an issue): ``compute_overlooked_box_scores``
(predicted boxes: missing annotations), ``compute_swap_box_scores`` (wrong labels),
``compute_badloc_box_scores`` (loose boxes), with its defaults and with its
``high_probability_threshold`` at 0.5 (the demo detector's scores are not calibrated to its 0.95);
it has no duplicate-annotation score ("nan"). The
detections are the demo's single result set, each class's list as cleanlab's per-class arrays.

    python bench/bench_label_errors.py [--seeds 3] [--top 40] [--anywhere]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evaluation.planted import KINDS, plant  # noqa: E402
from vocviewer.core.boxes import overlap_pairs  # noqa: E402
from vocviewer.demo import write_demo  # noqa: E402
from vocviewer.evaluation.label_errors import of_kind  # noqa: E402
from vocviewer.evaluation.result import Verdict  # noqa: E402
from vocviewer.families.registry import open_dataset  # noqa: E402
from vocviewer.families.suspects import evaluated_sets, queue_of  # noqa: E402


def found_objects(dataset, results_dir: Path) -> set[tuple[str, int]]:
    (_, _, evidence) = evaluated_sets(dataset, [results_dir])[0]
    obj, out = dataset.objects, set()
    for ev in evidence.evaluations("det"):
        for g in ev.best_gt[ev.verdict == Verdict.TP]:
            out.add((str(dataset.images.id[obj.image_index[g]]), int(obj.order_in_image[g])))
    return out


def object_row(dataset, image_id: str, position: int) -> int:
    im = int(np.flatnonzero(dataset.images.id == image_id)[0])
    o = dataset.objects
    return int(np.flatnonzero((o.image_index == im) & (o.order_in_image == position))[0])


def hits(dataset, planted, kind: str, picked: list[tuple[int, tuple, int]]) -> float:
    """Share of the planted errors of ``kind`` among ``picked`` ((image row, box, object row))."""
    found = 0
    for item in getattr(planted, kind):
        if kind == "missing":
            im = int(np.flatnonzero(dataset.images.id == item[0])[0])
            box = np.array([item[1]])
            found += any(
                i == im and overlap_pairs(np.array([b]), box, plus_one=True)[1][0] >= 0.5
                for i, b, _ in picked
            )
        else:
            r = object_row(dataset, *item)
            found += any(r == o for _, _, o in picked)
    return found / len(getattr(planted, kind))


def ours(dataset, results_dir: Path, planted, top: int) -> tuple[dict[str, float], float]:
    t0 = time.perf_counter()
    suspects = queue_of(dataset, evaluated_sets(dataset, [results_dir]))
    took = time.perf_counter() - t0
    out = {}
    for kind in KINDS:
        picked = [(s.image, s.box, s.object) for s in of_kind(suspects, kind)[:top]]
        picked += [(s.image, s.box, s.other) for s in of_kind(suspects, kind)[:top]]
        out[kind] = hits(dataset, planted, kind, picked)
    return out, took


def cleanlab_scores(dataset, results_dir: Path, planted, top: int, high: float | None = None):
    """cleanlab's three per-box scores; ``high``: its ``high_probability_threshold`` (default
    0.95: only detections scoring above it can be overlooked or swapped objects)."""
    from cleanlab.object_detection import rank

    (_, results, _) = evaluated_sets(dataset, [results_dir])[0]
    d, o, k = results.detections, dataset.objects, len(dataset.classes)
    images = np.unique(np.concatenate([o.image_index, d.image_index]))
    labels, predictions = [], []
    for im in images:
        rows = np.flatnonzero(o.image_index == im)
        labels.append({"bboxes": o.box[rows], "labels": o.label[rows]})
        det = np.flatnonzero(d.image_index == im)
        per_class = np.empty(k, dtype=object)
        for c in range(k):
            mine = det[d.label[det] == c]
            per_class[c] = np.column_stack([d.box[mine], d.score[mine]]).reshape(-1, 5)
        predictions.append(per_class)
    t0 = time.perf_counter()
    kw = {} if high is None else {"high_probability_threshold": high}
    over = rank.compute_overlooked_box_scores(labels=labels, predictions=predictions, **kw)
    swap = rank.compute_swap_box_scores(labels=labels, predictions=predictions, **kw)
    badloc = rank.compute_badloc_box_scores(labels=labels, predictions=predictions)
    took = time.perf_counter() - t0

    def lowest_labels(scores) -> list[tuple[int, tuple, int]]:
        flat = [
            (s, int(im), tuple(o.box[r]), int(r))
            for im, per in zip(images, scores, strict=True)
            for s, r in zip(per, np.flatnonzero(o.image_index == im), strict=True)
            if np.isfinite(s)
        ]
        return [(i, b, r) for _, i, b, r in sorted(flat)[:top]]

    def lowest_predictions(scores) -> list[tuple[int, tuple, int]]:
        flat = []
        for im, per, pred in zip(images, scores, predictions, strict=True):
            boxes = np.concatenate([p for p in pred if len(p)]) if any(len(p) for p in pred) else []
            flat += [(s, int(im), tuple(b[:4])) for s, b in zip(per, boxes, strict=False)]
        flat = [f for f in flat if np.isfinite(f[0])]
        return [(i, b, -1) for _, i, b in sorted(flat)[:top]]

    out = {
        "missing": hits(dataset, planted, "missing", lowest_predictions(over)),
        "wrong_label": hits(dataset, planted, "wrong_label", lowest_labels(swap)),
        "loose_box": hits(dataset, planted, "loose_box", lowest_labels(badloc)),
        "duplicate": float("nan"),
    }
    return out, took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--anywhere", action="store_true", help="plant among every object")
    args = ap.parse_args()
    try:
        import cleanlab  # noqa: F401

        have_cleanlab = True
    except ImportError:
        have_cleanlab = False
    with tempfile.TemporaryDirectory() as tmp:
        demo = write_demo(Path(tmp) / "demo", n_images=240)
        clean = open_dataset(demo.year_dir)
        among = None if args.anywhere else found_objects(clean, demo.results_dir)
        print(f"top {args.top} recall per kind: {', '.join(KINDS)}")
        for seed in range(args.seeds):
            target = Path(tmp) / f"planted{seed}" / "VOC2012"
            planted = plant(demo.year_dir, target, 20, seed, among=among)
            dataset = open_dataset(target)
            rows = [("vocviewer", *ours(dataset, demo.results_dir, planted, args.top))]
            if have_cleanlab:
                for high, name in ((None, "cleanlab"), (0.5, "cleanlab@.5")):
                    got = cleanlab_scores(dataset, demo.results_dir, planted, args.top, high)
                    rows.append((name, *got))
            for name, recall, took in rows:
                cells = "  ".join(f"{recall[k]:5.2f}" for k in KINDS)
                print(f"seed {seed}  {name:<12} {cells}   {took * 1000:7.1f} ms")
        if not have_cleanlab:
            print("cleanlab is not installed (pip install cleanlab): ours only")


if __name__ == "__main__":
    main()
