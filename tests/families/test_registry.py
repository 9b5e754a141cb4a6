"""The benchmark seam: a family registered in a test is chosen by ``vocviewer eval`` with no other
change; an LVIS file goes to the LVIS family (and a partly federated one is refused), never to
COCO's rules unless ``--protocol coco`` asks for them."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from vocviewer.cli import main
from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError
from vocviewer.core.results import ResultSet
from vocviewer.families import registry
from vocviewer.families.base import (
    CERTAIN,
    Benchmark,
    CliOption,
    EvalOutput,
    EvalRequest,
    ViewDefaults,
)
from vocviewer.families.lvis.columns import LvisAnnotations, LvisResults
from vocviewer.families.registry import open_dataset
from vocviewer.families.views import ViewChoice, ViewSettings


class ToyBenchmark(ViewDefaults):
    """A family that reads ``*.toy`` files: one line ``score`` per result file; AP = the mean."""

    name = "toy"
    title = "Toy"
    tasks = ("count", "det")
    protocols = ("toy",)
    options = (CliOption("--toy-scale", "multiply the toy AP", kind="str", metavar="X"),)
    analyze_tasks: tuple[str, ...] = ()
    priority = 100
    hint = "a .toy file"

    def __init__(self) -> None:
        self.calls: list[EvalRequest] = []

    def sniff(self, path: Path, sources: dict[str, Path | None]) -> float:
        return CERTAIN if path.suffix == ".toy" else 0.0

    def looks_like_dataset(self, path: Path) -> bool:
        return path.suffix == ".toy"

    def read_dataset(
        self, path: Path, sources: dict[str, Path | None], task: str | None = None
    ) -> Dataset:
        raise FormatError(path, "toy datasets are not browsed")

    def reads_results_of(self, dataset: Dataset) -> bool:
        return False

    def read_results(self, dataset: Dataset, paths: list[Path], **kw: Any) -> ResultSet:
        raise AssertionError("not called")

    def result_sets(self, paths: Sequence[Path], task: str | None = None) -> Any:
        return [("toy", list(paths))]  # the family decides: all its files are one set

    def evaluate(self, request: EvalRequest) -> EvalOutput:
        self.calls.append(request)
        scores = [float(Path(p).read_text()) for p in request.results]
        ap = sum(scores) / len(scores) * float(request.option("toy_scale") or 1)
        return EvalOutput(
            f"TOY {request.task} AP {ap:.3f}\n", {"protocol": "toy", "ap": ap}, ["toy"]
        )

    def analyze(self, args: argparse.Namespace) -> Any:
        raise AssertionError("not called")

    def view_settings(self, dataset: Dataset) -> ViewSettings:
        return ViewSettings("Toy")

    def evaluate_views(self, dataset: Dataset, results: ResultSet, choice: ViewChoice) -> Any:
        raise AssertionError("not called")


@pytest.fixture
def toy() -> Iterator[ToyBenchmark]:
    bench = ToyBenchmark()
    assert isinstance(bench, Benchmark)  # the runtime-checkable protocol
    registry.register(bench)
    try:
        yield bench
    finally:
        registry.unregister("toy")


def _toy_files(tmp_path: Path) -> tuple[Path, list[Path]]:
    (tmp_path / "toy").mkdir()
    gt = tmp_path / "toy" / "gt.toy"
    gt.write_text("toy\n")
    results = []
    for k, v in enumerate(("0.5", "0.75")):
        results.append(tmp_path / f"r{k}.txt")
        results[-1].write_text(v)
    return gt, results


def test_a_registered_family_is_evaluated_by_the_cli(
    toy: ToyBenchmark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt, results = _toy_files(tmp_path)
    out = tmp_path / "out.json"
    argv = ["eval", str(gt), "--results", *map(str, results), "--json", str(out)]
    assert main([*argv, "--toy-scale", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "TOY count AP 1.250\n"  # its default task, its option, its printer
    assert captured.err == "vocviewer: warning: toy\n"
    assert json.loads(out.read_text()) == {"protocol": "toy", "ap": 1.25}
    assert len(toy.calls) == 1
    # chosen by --protocol and by --task too; the task it offers is accepted by argparse
    assert (
        main(["eval", str(tmp_path / "x.txt"), "--results", str(results[0]), "--protocol", "toy"])
        == 0
    )
    assert main(["eval", str(gt), "--results", str(results[0]), "--task", "det"]) == 0
    assert capsys.readouterr().out.splitlines() == ["TOY count AP 0.500", "TOY det AP 0.500"]


def test_an_unregistered_family_is_gone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt, results = _toy_files(tmp_path)
    registry.register(ToyBenchmark())
    registry.unregister("toy")
    assert "toy" not in [b.name for b in registry.registered()]
    with pytest.raises(SystemExit):  # --toy-scale and --protocol toy are not options any more
        main(["eval", str(gt), "--results", str(results[0]), "--protocol", "toy"])
    assert main(["eval", str(gt), "--results", str(results[0])]) == 1
    assert "not a dataset vocviewer can read" in capsys.readouterr().err


def test_the_builtin_families_and_their_defaults() -> None:
    names = [b.name for b in registry.registered()]
    assert names[:5] == ["voc", "coco", "visdrone", "ilsvrc", "lvis"]
    assert {b.name: b.tasks[0] for b in registry.registered()}["coco"] == "bbox"
    assert registry.get("ilsvrc").sniff(Path("x"), {"devkit": Path("d")}) == CERTAIN


# --- LVIS: its own family, never evaluated as COCO -------------------------------------------
def _lvis_files(tmp_path: Path, *, shape: str = "both") -> tuple[Path, Path]:
    """An LVIS file (``shape``: ``both`` federated parts, or only the ``images``' lists or only
    the ``categories``' frequency) and a box results file."""
    images: list[dict[str, Any]] = [{"id": 1, "width": 64, "height": 48, "file_name": "a.jpg"}]
    categories: list[dict[str, Any]] = [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}]
    if shape in ("images", "both"):
        images[0].update({"neg_category_ids": [2], "not_exhaustive_category_ids": []})
    if shape in ("categories", "both"):
        for c in categories:
            c["frequency"] = "f"
    anns = [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [4, 4, 20, 20], "area": 400}]
    (tmp_path / "annotations").mkdir()
    gt = tmp_path / "annotations" / "lvis_v1_val.json"
    gt.write_text(json.dumps({"images": images, "annotations": anns, "categories": categories}))
    res = tmp_path / "res.json"
    res.write_text(
        json.dumps([{"image_id": 1, "category_id": 1, "bbox": [4, 4, 20, 20], "score": 0.9}])
    )
    return gt, res


def test_an_lvis_file_is_chosen_by_its_family_and_opened(tmp_path: Path) -> None:
    gt, res = _lvis_files(tmp_path)
    assert registry.choose(gt).name == "lvis"
    assert registry.choose(gt, task="segm").name == "lvis"
    assert registry.choose(gt, protocol="coco").name == "coco"  # only when asked for
    assert registry.looks_like_dataset(gt)
    dataset = open_dataset(gt)
    assert dataset.has_data(LvisAnnotations)
    results = registry.open_results(dataset, res)
    assert results.has_data(LvisResults)  # read by the LVIS reader, not COCO's alone


@pytest.mark.parametrize(
    ("shape", "element", "message"),
    [
        ("images", "categories[0].frequency", "expected the frequency group"),
        ("categories", "images[0]", "missing 'neg_category_ids'"),
    ],
)
def test_a_partly_federated_file_is_refused_not_evaluated_as_coco(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str, element: str, message: str
) -> None:
    gt, res = _lvis_files(tmp_path, shape=shape)
    out = tmp_path / "out.json"
    assert main(["eval", str(gt), "--results", str(res), "--json", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"vocviewer: error: {gt} ({element}): ") and message in err
    assert not out.exists()
    with pytest.raises(FormatError, match=message):
        open_dataset(gt)


def test_an_lvis_file_is_analysed_by_lvis_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt, res = _lvis_files(tmp_path)
    out = tmp_path / "a.json"
    argv = ["analyze", str(gt), "--results", str(res), "--bootstrap", "20", "--json", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("LVIS bbox, 1 images")
    payload = json.loads(out.read_text())
    assert payload["protocol"] == "lvis" and payload["sets"]["res.json"]["mAP"] == pytest.approx(
        1.0
    )
    # COCO's analysis when asked for: pycocotools fails on LVIS's missing "iscrowd", so only
    # with --keep-going, and marked
    assert main([*argv[:-2], "--protocol", "coco"]) == 1
    assert 'missing "iscrowd"' in capsys.readouterr().err
    assert main([*argv[:-2], "--protocol", "coco", "--keep-going"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("COCO bbox") and "NOT OFFICIAL" in captured.out + captured.err


def test_a_coco_file_mentioning_lvis_keys_in_a_name_is_still_coco(tmp_path: Path) -> None:
    gt, _ = _lvis_files(tmp_path, shape="images")
    doc = json.loads(gt.read_text())
    del doc["images"][0]["neg_category_ids"], doc["images"][0]["not_exhaustive_category_ids"]
    doc["categories"][0]["name"] = '"frequency": "f"'  # the key's text, but not as a key
    gt.write_text(json.dumps(doc))
    assert registry.choose(gt).name == "coco"
    dataset = open_dataset(gt)
    assert len(dataset.images) == 1 and not dataset.has_data(LvisAnnotations)


# --- families chosen from the path, as --protocol would --------------------------------------------
def test_visdrone_and_ilsvrc_are_sniffed_without_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.evaluation.test_ilsvrc import write_fixture
    from tests.evaluation.test_visdrone_reference import write_split

    images = [([(0, 0, 10, 10, 1, 4)], [(0, 0, 10, 12, 0.9, 4), (5, 5, 5, 5, 0.5, 9)], 0, 0)]
    split, res = write_split(tmp_path / "vd", images)
    gt, devkit, pred = write_fixture(
        tmp_path / "il", [[(0, 1, 1, 50, 50)]], [(1, 1, 0.9, 1, 1, 50, 50)]
    )
    runs = {
        "visdrone": ["eval", str(split), "--results", str(res)],
        "ilsvrc": ["eval", str(gt), "--results", str(pred), "--devkit", str(devkit)],
    }
    for protocol, argv in runs.items():
        assert main([*argv, "--protocol", protocol]) == 0
        given = capsys.readouterr()
        assert main(argv) == 0
        assert capsys.readouterr() == given


def test_analyze_names_a_family_it_does_not_analyse(
    toy: ToyBenchmark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt, results = _toy_files(tmp_path)
    assert main(["analyze", str(gt), "--results", str(results[0])]) == 1
    err = capsys.readouterr().err
    titles = ", ".join(b.title for b in registry.registered() if b.analyze_tasks)
    assert err == f"vocviewer: error: {gt}: analyze: Toy is not analysed yet (only {titles})\n"


def test_a_thread_asking_while_another_imports_the_families_gets_them_all(monkeypatch):
    """A thread imports the families (``registered``) while another reads a dataset: that one's
    ``families()`` (the sniff) takes the cheap declarations meanwhile, never a part of the
    families; its ``registered()`` (``benchmark_of``) waits until every one is imported."""
    import threading

    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_loaded", False)
    real, last = registry._builtin, registry.BUILTIN[-1]
    importing, release = threading.Event(), threading.Event()

    def slow(spec: str) -> Any:
        if spec == last:
            importing.set()
            release.wait(10)
        return real(spec)

    monkeypatch.setattr(registry, "_builtin", slow)
    loader = threading.Thread(target=registry.registered)
    loader.start()
    assert importing.wait(10)
    names = {f.name for f in registry.families()}  # meanwhile: every family, declared
    assert len(names) == len(registry.BUILTIN)
    got: list[list[Any]] = []
    asking = threading.Thread(target=lambda: got.append(registry.registered()))
    asking.start()
    asking.join(0.2)
    assert asking.is_alive()  # waits for the last family
    release.set()
    loader.join(10)
    asking.join(10)
    assert {b.name for b in got[0]} == names and len(got[0]) == len(registry.BUILTIN)
