"""The per-family case table of ``test_common``: one ``FamilyCase`` per registered family.

Each entry says how to generate a small dataset with two result sets (the generators the
family's own tests use; ``tests.gui.test_consistency.Case``), how its result rows are written
(``Rows``: shuffled, untied, damaged and appended to without knowing the family), how to add
one detection on an image with no ground truth of its class, and which invariants do not apply
(``not_applicable``: invariant name -> why). A new family gets every invariant of
``test_common`` by one entry in ``CASES``.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.gui.test_consistency import (
    Case,
    coco_case,
    ilsvrc_case,
    lvis_case,
    visdrone_case,
    voc_case,
)
from vocviewer.families.yolo.reader import YoloInfo

#: the invariants of ``test_common``, by the name ``not_applicable`` uses
INVARIANTS = (
    "sniff",  # the family's sniff claims its dataset; ``choose`` picks it
    "read",  # ``open_dataset`` / ``open_results`` read it back through the registry
    "eval",  # ``vocviewer eval`` exits 0, its JSON has the family's summary
    "json_stdout",  # ``--json -`` puts the same JSON on stdout
    "sets",  # every --results path is one set: two sets, two entries
    "bad_input",  # a truncated results file: exit 1, a message naming it, no traceback
    "window",  # the window's AP table / Summary / PR title equal the CLI's JSON
    "official",  # the CLI's ``official`` flag and the window's NOT OFFICIAL mark agree
    "shuffle",  # the order of result rows changes no number (scores distinct)
    "extra_detection",  # a detection on an image without ground truth of its class: AP not up
)

#: the score every added detection gets (above every generated one: ranked first)
TOP_SCORE = 0.9999


@dataclass(frozen=True)
class Rows:
    """How a family's result rows are written: ``kind`` ``"json"`` (a list of objects with a
    ``score``) or ``"lines"`` (``sep``-separated fields, the score in column ``score``); a
    results folder holds such files."""

    kind: str
    sep: str = " "
    score: int = 1
    header: bool = False  # a header line first (kept as it is by ``write``)

    def files(self, paths: list[Path]) -> list[Path]:
        """The files of ``paths`` (a folder's files, sorted)."""
        out: list[Path] = []
        for p in paths:
            out += sorted(f for f in p.iterdir() if f.is_file()) if p.is_dir() else [p]
        return out

    def read(self, path: Path) -> list[Any]:
        if self.kind == "json":
            return list(json.loads(path.read_text()))
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        return lines[1:] if self.header else lines

    def write(self, path: Path, rows: list[Any]) -> None:
        if self.kind == "json":
            path.write_text(json.dumps(rows))
        else:
            head = path.read_text().splitlines()[:1] if self.header and path.exists() else []
            path.write_text("".join(f"{r}\n" for r in [*head, *rows]))

    def with_score(self, row: Any, score: float) -> Any:
        if self.kind == "json":
            return {**row, "score": score}
        fields = row.split(self.sep)
        fields[self.score] = f"{score:.10f}"
        return self.sep.join(fields)

    def score_of(self, row: Any) -> float:
        return float(row["score"] if self.kind == "json" else row.split(self.sep)[self.score])

    def rewrite(
        self, paths: list[Path], dst: Path, change: Callable[[Path, list[Any]], list[Any]]
    ) -> list[Path]:
        """A copy of the set ``paths`` in ``dst`` (names kept) with each file's rows
        ``change(file, rows)``."""
        dst.mkdir(parents=True)
        copied = []
        for p in paths:
            q = dst / p.name
            if p.is_dir():
                shutil.copytree(p, q)
            else:
                shutil.copy(p, q)
            copied.append(q)
        for f in self.files(copied):
            self.write(f, change(f, self.read(f)))
        return copied

    def shuffled(self, paths: list[Path], dst: Path, seed: int) -> list[Path]:
        """The set with each file's rows in a random order."""
        rng = np.random.default_rng(seed)
        return self.rewrite(
            paths, dst, lambda _, rows: [rows[i] for i in rng.permutation(len(rows))]
        )

    def untied(self, paths: list[Path], dst: Path) -> list[Path]:
        """The set with every score distinct (rounded to 4 decimals, scaled into [0, 0.999],
        then a different multiple of 1e-8 added to each row: the order of distinct scores kept)."""
        counter = iter(range(1, 10**7))

        def untie(_: Path, rows: list[Any]) -> list[Any]:
            return [
                self.with_score(r, round(self.score_of(r), 4) * 0.999 + next(counter) * 1e-8)
                for r in rows
            ]

        return self.rewrite(paths, dst, untie)

    def damaged(self, paths: list[Path], dst: Path) -> tuple[list[Path], Path]:
        """The set with one bad row in its first file (a JSON row without its ``score``; a line
        cut to its first field), and that file."""
        first = self.files(paths)[0]

        def damage(f: Path, rows: list[Any]) -> list[Any]:
            if f.name != first.name:
                return rows
            if self.kind == "json":
                return [{k: v for k, v in rows[0].items() if k != "score"}, *rows[1:]]
            return [rows[0].split(self.sep)[0], *rows[1:]]

        copied = self.rewrite(paths, dst, damage)
        return copied, next(f for f in self.files(copied) if f.name == first.name)


def truncated(paths: list[Path], dst: Path) -> tuple[list[Path], Path]:
    """A copy of the set with its first file cut short, and that file: a one-line file (JSON)
    at half its length, a file of lines just after the first field of its middle line (so the
    cut never falls on a complete row)."""
    copied = Rows("lines").rewrite(paths, dst, lambda _, rows: rows)
    first = Rows("lines").files(copied)[0]
    data = first.read_bytes()
    cut = len(data) // 2
    start = data.rfind(b"\n", 0, cut) + 1
    if start:
        m = re.search(rb"[ ,]", data[start:])
        assert m is not None, first
        cut = start + m.end()
    first.write_bytes(data[:cut])
    return copied, first


# --- one detection on an image without ground truth of its class -------------------------------
@dataclass(frozen=True)
class Spot:
    """An image (``index`` into the dataset's images, its ``image_id``) holding objects but none
    of class ``label`` (``name``), the class with the most objects."""

    index: int
    image_id: str
    label: int
    name: str


def free_spot(case: Case) -> Spot:
    """Read ``case``'s dataset and set A through the registry and find a ``Spot`` on an image
    A has detections on (so one the protocol evaluates, e.g. in VOC's image set)."""
    from vocviewer.families.registry import open_dataset, open_results

    ds = open_dataset(case.path, **case.sources)
    detected = set(open_results(ds, case.sets[0]).detections.image_index.tolist())
    labels, counts = np.unique(ds.objects.label, return_counts=True)
    label = int(labels[np.argmax(counts)])
    images = set(ds.objects.image_index.tolist()) & detected
    with_label = set(ds.objects.image_index[ds.objects.label == label].tolist())
    index = min(images - with_label)
    return Spot(index, str(ds.images.id[index]), label, ds.classes[label])


def add_voc(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    spot = free_spot(case)

    def add(f: Path, rows: list[str]) -> list[str]:
        mine = f.name.endswith(f"_{spot.name}.txt")
        return [*rows, f"{spot.image_id} {TOP_SCORE} 10 10 50 50"] if mine else rows

    return Rows("lines").rewrite(paths, dst, add)


def _json_row(image_id: int, category_id: int) -> dict[str, Any]:
    return {
        "image_id": image_id,
        "category_id": category_id,
        "bbox": [10.0, 10.0, 40.0, 40.0],
        "score": TOP_SCORE,
    }


def add_coco(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """The category's id from the annotation file."""
    spot = free_spot(case)
    cats = {c["name"]: c["id"] for c in json.loads(case.path.read_text())["categories"]}
    row = _json_row(int(spot.image_id), cats[spot.name])
    return Rows("json").rewrite(paths, dst, lambda _, rows: [*rows, row])


def add_lvis(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """On the first image with a verified negative category, of that category (LVIS evaluates
    a category on an image only where it is annotated or listed in ``neg_category_ids``)."""
    doc = json.loads(case.path.read_text())
    image = next(im for im in doc["images"] if im["neg_category_ids"])
    row = _json_row(image["id"], image["neg_category_ids"][0])
    return Rows("json").rewrite(paths, dst, lambda _, rows: [*rows, row])


def add_visdrone(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """A row in the image's results file (made if missing); the category is the class index."""
    spot = free_spot(case)
    copied = Rows("lines").rewrite(paths, dst, lambda _, rows: rows)
    f = copied[0] / f"{spot.image_id}.txt"
    rows = Rows("lines").read(f) if f.exists() else []
    Rows("lines").write(f, [*rows, f"10,10,40,40,{TOP_SCORE},{spot.label},-1,-1"])
    return copied


def add_ilsvrc(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """``<image index> <label> <score> <box>``, both 1-based."""
    spot = free_spot(case)
    row = f"{spot.index + 1} {spot.label + 1} {TOP_SCORE} 10 10 50 50"
    return Rows("lines").rewrite(paths, dst, lambda _, rows: [*rows, row])


# --- Open Images --------------------------------------------------------------------------------
def openimages_case(tmp: Path) -> Case:
    """A generated folder with every trap (``tests.parity.openimages_data``); two prediction
    files from different seeds."""
    from tests.parity.openimages_data import predictions, write_openimages, write_predictions

    boxes = write_openimages(tmp / "oi", 3, 40)
    a = write_predictions(tmp / "predA.csv", predictions(boxes, 4))
    b = write_predictions(tmp / "predB.csv", predictions(boxes, 5))
    return Case(tmp / "oi", ([a], [b]), "mAP")


def add_openimages(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """A row of the class's MID (the class is not on the image, so perhaps not verified)."""
    spot = free_spot(case)
    mids = [
        line.split(",")[0]
        for line in (case.path / "class-descriptions-boxable.csv").read_text().splitlines()
    ]
    row = f"{spot.image_id},{mids[spot.label]},{TOP_SCORE},0.1,0.4,0.1,0.4"
    return Rows("lines", ",", 2, header=True).rewrite(paths, dst, lambda _, rows: [*rows, row])


def yolo_case(tmp: Path) -> Case:
    """A generated detect split (``tests.parity.yolo_data``); B: A's label files with a fifth of
    the lines dropped and the scores jittered."""
    from tests.gui.test_consistency import _perturb_lines
    from tests.parity.yolo_data import make_yolo

    y = make_yolo(tmp, "detect", seed=8, n_images=30)
    b = tmp / "pred_b"
    b.mkdir()
    rng = np.random.default_rng(3)
    for f in sorted(y.pred_txt.iterdir()):
        _perturb_lines(f, b / f.name, rng, 5)
    return Case(y.yaml, ([y.pred_txt], [b]), "AP")


def add_yolo(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """A line in the image's prediction file (made if missing), named by the image's stem."""
    from vocviewer.families.registry import open_dataset

    spot = free_spot(case)
    stem = open_dataset(case.path).data(YoloInfo).stems[spot.index]
    copied = Rows("lines").rewrite(paths, dst, lambda _, rows: rows)
    f = copied[0] / f"{stem}.txt"
    rows = Rows("lines").read(f) if f.exists() else []
    Rows("lines").write(f, [*rows, f"{spot.label} 0.2 0.2 0.1 0.1 {TOP_SCORE}"])
    return copied


# --- CVAT / LabelMe ----------------------------------------------------------------------------
def cvat_case(tmp: Path) -> Case:
    """A CVAT for images 1.1 XML written from coco-mini (``tests.parity.cvat_data``), its images
    beside it; two COCO results JSONs from different seeds."""
    from tests.parity import cvat_data as cd

    if not cd.INSTANCES.is_file():
        import pytest

        pytest.skip("coco-mini is not available")
    classes, images = cd.sample(multi=False)
    xml = cd.write_cvat(tmp / "annotations.xml", classes, images)
    coco = cd.reference_coco(classes, images, [im.coco_id for im in images])
    sets = []
    for name, seed in (("a.json", 0), ("b.json", 1)):
        (tmp / name).write_text(json.dumps(cd.coco_results(coco, seed)))
        sets.append([tmp / name])
    images_dir = {"images": cd.COCO_MINI / "val2017"}
    return Case(xml, (sets[0], sets[1]), "AP", sources=images_dir, cli=["--task", "bbox"])


def add_cvat(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    """``image_id`` = CVAT's image id; ``category_id`` = 1-based class position."""
    spot = free_spot(case)
    row = _json_row(int(spot.image_id), spot.label + 1)
    return Rows("json").rewrite(paths, dst, lambda _, rows: [*rows, row])


# --- the toy family (tests/toy_family) ---------------------------------------------------------
def tally_case(tmp: Path) -> Case:
    """Six images, three classes; A finds most objects, B fewer (distinct scores)."""
    rng = np.random.default_rng(11)
    objects = [(f"i{i}", c) for i in range(6) for c in ("cat", "dog", "owl") if rng.random() < 0.6]
    gt = tmp / "gt.tally"
    gt.write_text("".join(f"{i} {c}\n" for i, c in objects))
    sets = []
    for name, keep in (("A.txt", 0.9), ("B.txt", 0.5)):
        rows = [f"{i} {c} {rng.random():.6f}" for i, c in objects if rng.random() < keep]
        rows += [f"i{rng.integers(6)} cat {rng.random():.6f}" for _ in range(3)]
        (tmp / name).write_text("".join(f"{r}\n" for r in rows))
        sets.append([tmp / name])
    return Case(gt, (sets[0], sets[1]), "mAP")


def add_tally(case: Case, paths: list[Path], dst: Path) -> list[Path]:
    return Rows("lines").rewrite(paths, dst, lambda _, rows: [*rows, f"nowhere cat {TOP_SCORE}"])


# --- the table ------------------------------------------------------------------------------------
def _per_class(payload: dict[str, Any]) -> dict[str, float | None]:
    return {name: row.get("ap") for name, row in payload["per_class"].items()}


@dataclass(frozen=True)
class FamilyCase:
    """One family's case: ``build(tmp, demo)`` makes it; ``rows`` is its results format;
    ``add_detection(case, set paths, dst)`` writes the set with one more detection on an image
    without ground truth of its class; ``per_class_ap`` reads its JSON's AP per class; ``file_order`` names summary numbers that
    depend on the order of rows by the protocol's rule;
    ``not_applicable``: invariant -> why it does not apply."""

    build: Callable[[Path, Any], Case]
    rows: Rows
    add_detection: Callable[[Case, list[Path], Path], list[Path]]
    per_class_ap: Callable[[dict[str, Any]], dict[str, float | None]] = _per_class
    #: summary numbers the protocol computes from rows in file order (VisDrone's evalDET.m caps
    #: each image's rows at N = 1, 10, 100 in file order): left out of the shuffle invariant
    file_order: tuple[str, ...] = ()
    not_applicable: dict[str, str] = field(default_factory=dict)


#: the test-only family of ``tests/toy_family`` (registered by ``test_common``'s fixture)
TOY = "tally"
TOY_SPEC = "tests.toy_family.benchmark:TallyBenchmark"
_NO_WINDOW = "the toy family is not browsed: its read_dataset refuses, it has no view"

CASES: dict[str, FamilyCase] = {
    "voc": FamilyCase(lambda t, demo: voc_case(t, demo), Rows("lines", " ", 1), add_voc),
    "coco": FamilyCase(lambda t, _: coco_case(t), Rows("json"), add_coco),
    "visdrone": FamilyCase(
        lambda t, _: visdrone_case(t),
        Rows("lines", ",", 4),
        add_visdrone,
        file_order=("AR1", "AR10", "AR100"),
    ),
    "ilsvrc": FamilyCase(lambda t, _: ilsvrc_case(t), Rows("lines", " ", 2), add_ilsvrc),
    "lvis": FamilyCase(lambda t, _: lvis_case(t), Rows("json"), add_lvis),
    "openimages": FamilyCase(
        lambda t, _: openimages_case(t), Rows("lines", ",", 2, header=True), add_openimages
    ),
    "yolo": FamilyCase(lambda t, _: yolo_case(t), Rows("lines", " ", 5), add_yolo),
    "cvat": FamilyCase(lambda t, _: cvat_case(t), Rows("json"), add_cvat),
    TOY: FamilyCase(
        lambda t, _: tally_case(t),
        Rows("lines", " ", 2),
        add_tally,
        per_class_ap=lambda payload: dict(payload["ap"]),
        not_applicable={
            "read": _NO_WINDOW,
            "window": _NO_WINDOW,
            "official": _NO_WINDOW + "; nor does it skip bad rows (no --keep-going)",
        },
    ),
}
