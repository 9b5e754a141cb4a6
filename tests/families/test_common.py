"""Every family of the registry through the same invariants, as scikit-learn's
``sklearn/metrics/tests/test_common.py`` runs every metric through the same tests.

The families are those of ``vocviewer.families.registry`` plus the test-only toy family of
``tests/toy_family`` (registered by the ``toy_registered`` fixture). Each one's small generated
case (a dataset and two result sets) comes from the table ``tests/families/cases.py`` ``CASES``
and is built once per module. The invariants (``cases.INVARIANTS``): the family's sniff claims
its dataset and the registry reads it back; ``vocviewer eval`` exits 0 with the family's summary
in its JSON, ``--json -`` prints the same JSON, every ``--results`` path is one set; a truncated
results file exits 1 with a message naming it and no traceback; the window shows the CLI's
numbers in every view and marks NOT OFFICIAL exactly where the CLI's ``official`` is false;
shuffling result rows changes no number; a detection on an image without ground truth of its
class never raises an AP.

A new family added to the registry is collected here at once and fails until ``CASES`` has an
entry for it; that one entry gets it every test of this module. An invariant that does not apply
to a family is named, with its reason, in the entry's ``not_applicable`` (and reported as a skip
giving that reason).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.families.cases import CASES, INVARIANTS, TOY, TOY_SPEC, FamilyCase, truncated
from tests.gui.test_consistency import Case, check_agreement, cli_json, open_case
from vocviewer.cli import main
from vocviewer.families import registry

#: every registered family, then the toy one
FAMILIES = [b.name for b in registry.registered()] + [TOY]


def families(invariant: str) -> list[Any]:
    """The families as parameters, those to which ``invariant`` does not apply marked skipped
    with the case table's reason."""
    assert invariant in INVARIANTS
    out = []
    for name in FAMILIES:
        why = CASES[name].not_applicable.get(invariant) if name in CASES else None
        marks = [pytest.mark.skip(reason=f"{name}: {why}")] if why else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.fixture(scope="module")
def toy_registered() -> Iterator[None]:
    """The toy family registered (after the built-in ones) while this module runs."""
    registry.registered()
    registry.register(registry.load(TOY_SPEC))
    yield
    registry.unregister(TOY)


@dataclass
class Built:
    """A family's generated ``case``, its table entry ``spec`` and a folder for what tests
    derive from it (``fresh``)."""

    family: str
    spec: FamilyCase
    case: Case
    tmp: Path
    _n: Iterator[int] = field(default_factory=itertools.count)

    def fresh(self, stem: str) -> Path:
        """A new path in the case's folder (not made)."""
        return self.tmp / f"{stem}{next(self._n)}"

    @property
    def a(self) -> list[Path]:
        return list(self.case.sets[0])


@pytest.fixture(scope="module")
def build(
    tmp_path_factory: pytest.TempPathFactory, demo: Any, toy_registered: None
) -> Callable[[str], Built]:
    """``build(family)``: the family's case, generated on first use, once per module."""
    made: dict[str, Built] = {}

    def get(family: str) -> Built:
        if family not in CASES:
            pytest.fail(f"no case for the family {family!r}: add one to tests/families/cases.py")
        if family not in made:
            tmp = tmp_path_factory.mktemp(f"common-{family}")
            (tmp / "case").mkdir()
            case = CASES[family].build(tmp / "case", demo)
            made[family] = Built(family, CASES[family], case, tmp)
        return made[family]

    return get


def cli(
    capsys: pytest.CaptureFixture[str], built: Built, paths: list[Path], *extra: str
) -> tuple[int, str, str]:
    """``vocviewer eval`` of the case's dataset with result ``paths``: (exit code, out, err)."""
    case = built.case
    argv = ["eval", str(case.path), "--results", *map(str, paths), *case.cli]
    for k, v in case.sources.items():
        if f"--{k}" not in case.cli:
            argv += [f"--{k}", str(v)]
    code = main([*argv, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def payload_of(
    capsys: pytest.CaptureFixture[str], built: Built, paths: list[Path], *extra: str
) -> dict[str, Any]:
    """The JSON ``vocviewer eval --json FILE`` writes for ``paths`` (exit 0 asserted)."""
    out = built.fresh("eval").with_suffix(".json")
    code, _, err = cli(capsys, built, paths, *extra, "--json", str(out))
    assert code == 0, err
    return dict(json.loads(out.read_text()))


def defined(x: float | None) -> bool:
    return x is not None and not math.isnan(x)


def test_the_case_table_covers_the_registry() -> None:
    """One case per family of the registry (and the toy one), invariants named as in the table."""
    assert set(CASES) == set(FAMILIES), "add a case to tests/families/cases.py CASES"
    for name, spec in CASES.items():
        assert set(spec.not_applicable) <= set(INVARIANTS), name
        assert all(why.strip() for why in spec.not_applicable.values()), name


# --- reading ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", families("sniff"))
def test_its_sniff_claims_its_dataset(family: str, build: Callable[[str], Built]) -> None:
    case = build(family).case
    sources = dict(case.sources)
    assert registry.choose(case.path, sources=sources).name == family  # type: ignore[arg-type]
    score, best = registry.sniff(case.path, sources)  # type: ignore[arg-type]
    assert best is not None and best.name == family and score > 0


@pytest.mark.parametrize("family", families("read"))
def test_its_dataset_is_claimed_by_it_before_the_families_are_all_imported(
    family: str, build: Callable[[str], Built], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``benchmark_of`` before every family is imported (the window's open) asks the families
    that may claim the dataset (those defining one of its records; all for one without) and
    answers as asking them all does."""
    case = build(family).case
    dataset = registry.open_dataset(case.path, **case.sources)
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_REGISTRY", {})
    pool = [b.name for b in registry._may_claim(dataset)]
    assert family in pool
    assert registry.benchmark_of(dataset).name == family
    if dataset.family_data:  # e.g. COCO's: COCO, and none of the families extending it
        owners = {type(x).__module__.split(".")[2] for x in dataset.family_data}
        monkeypatch.setattr(registry, "_IMPORTED", {})
        assert {b.name for b in registry._may_claim(dataset)} == owners


@pytest.mark.parametrize("family", families("read"))
def test_the_registry_reads_it_back(family: str, build: Callable[[str], Built]) -> None:
    """The dataset read through the registry is its family's, and so are its results: every
    row of the set is read."""
    built = build(family)
    case = built.case
    dataset = registry.open_dataset(case.path, **case.sources)
    assert registry.benchmark_of(dataset).name == family
    assert len(dataset.images.id) > 0 and len(dataset.objects.label) > 0
    results = registry.open_results(dataset, built.a)
    rows = built.spec.rows
    # every row, but those a protocol leaves out with a warning (LVIS: an unknown category)
    n = sum(len(rows.read(f)) for f in rows.files(built.a))
    assert 0 < len(results.detections.score) <= n
    assert not results.problems


# --- the CLI ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", families("eval"))
def test_eval_prints_and_writes_the_summary(
    family: str, build: Callable[[str], Built], capsys: pytest.CaptureFixture[str]
) -> None:
    built = build(family)
    out = built.fresh("eval").with_suffix(".json")
    code, text, err = cli(capsys, built, built.a, "--json", str(out))
    assert code == 0, err
    assert text.strip() and "Traceback" not in err
    payload = json.loads(out.read_text())
    headline = payload["summary"][built.case.headline]
    assert isinstance(headline, float) and defined(headline)
    assert payload.get("official", True) is True  # a clean case is official


@pytest.mark.parametrize("family", families("json_stdout"))
def test_json_to_stdout_is_the_same_json(
    family: str, build: Callable[[str], Built], capsys: pytest.CaptureFixture[str]
) -> None:
    built = build(family)
    code, out, err = cli(capsys, built, built.a, "--json", "-")
    assert code == 0, err
    assert json.loads(out) == payload_of(capsys, built, built.a)


@pytest.mark.parametrize("family", families("sets"))
def test_each_results_path_is_one_set(
    family: str, build: Callable[[str], Built], capsys: pytest.CaptureFixture[str]
) -> None:
    built = build(family)
    a, b = (one_path(paths) for paths in built.case.sets)
    both = payload_of(capsys, built, [*a, *b])
    alone = [payload_of(capsys, built, list(a)), payload_of(capsys, built, list(b))]
    assert list(both["sets"].values()) == alone
    assert both["official"] is True
    assert alone[0]["summary"] != alone[1]["summary"]  # two sets, told apart


def one_path(paths: Sequence[Path]) -> list[Path]:
    """A set as one path: its folder when it is several files of one folder (VOC's per-class
    files of one competition)."""
    if len(paths) == 1:
        return list(paths)
    (folder,) = {p.parent for p in paths}
    return [folder]


@pytest.mark.parametrize("family", families("bad_input"))
def test_a_truncated_results_file_is_named_without_a_traceback(
    family: str, build: Callable[[str], Built], capsys: pytest.CaptureFixture[str]
) -> None:
    built = build(family)
    paths, cut = truncated(built.a, built.fresh("truncated"))
    out = built.fresh("eval").with_suffix(".json")
    code, _, err = cli(capsys, built, paths, "--json", str(out))
    assert code == 1
    assert err.startswith("vocviewer: error: ") and str(cut) in err, err
    assert "Traceback" not in err
    assert not out.exists()


# --- invariances -----------------------------------------------------------------------------------
@pytest.mark.parametrize("family", families("shuffle"))
def test_the_order_of_result_rows_changes_no_number(
    family: str, build: Callable[[str], Built], capsys: pytest.CaptureFixture[str]
) -> None:
    """With distinct scores (ties are broken by file order, as the official code does), any
    order of the rows gives the same JSON (but the numbers the protocol itself takes in file
    order, ``FamilyCase.file_order``)."""
    built = build(family)
    rows = built.spec.rows

    def numbers(paths: list[Path]) -> dict[str, Any]:
        payload = payload_of(capsys, built, paths)
        for key in built.spec.file_order:
            del payload["summary"][key]  # present, and left out
        return payload

    untied = rows.untied(built.a, built.fresh("untied"))
    first = numbers(untied)
    for seed in (1, 2):
        shuffled = rows.shuffled(untied, built.fresh("shuffled"), seed)
        assert numbers(shuffled) == first


@pytest.mark.parametrize("family", families("extra_detection"))
def test_a_detection_without_ground_truth_never_raises_ap(
    family: str, build: Callable[[str], Built], capsys: pytest.CaptureFixture[str]
) -> None:
    built = build(family)
    before = payload_of(capsys, built, built.a)
    added = built.spec.add_detection(built.case, built.a, built.fresh("added"))
    after = payload_of(capsys, built, added)
    headline = built.case.headline
    assert after["summary"][headline] <= before["summary"][headline]
    ap_before, ap_after = built.spec.per_class_ap(before), built.spec.per_class_ap(after)
    assert ap_after.keys() == ap_before.keys()
    for name, ap in ap_after.items():
        if defined(ap) and defined(ap_before[name]):
            assert ap <= ap_before[name], name  # type: ignore[operator]
    assert after != before  # the detection was read and counted


# --- the window ------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", families("window"))
def test_every_view_shows_the_same_numbers(
    qtbot: Any, make_window: Any, family: str, build: Callable[[str], Built]
) -> None:
    """With both result sets open, the PR title, the AP table, the Summary tab, the Compare
    counts, the confusion matrix totals and ``vocviewer eval --json`` agree
    (``tests.gui.test_consistency.check_agreement``), at two score thresholds."""
    built = build(family)
    case, tmp = built.case, built.fresh("window")
    tmp.mkdir()
    payloads = [cli_json(case, 0, tmp), cli_json(case, 1, tmp)]
    win = open_case(qtbot, make_window, case)
    win.state.set_threshold(0.0)
    check_agreement(qtbot, win, case, payloads)
    win.state.set_threshold(0.45)  # the drawn counts follow the threshold
    check_agreement(qtbot, win, case, payloads)


@pytest.mark.parametrize("family", families("official"))
def test_the_cli_and_the_window_agree_on_official(
    qtbot: Any,
    make_window: Any,
    family: str,
    build: Callable[[str], Built],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A clean set is official; a set with one bad row, skipped (``--keep-going``), is not: the
    window shows the second set's numbers marked NOT OFFICIAL (its rule, the AP table's and
    the Summary's column headers), or refuses the set naming its file (COCO and LVIS JSON),
    and never shows them unmarked; the clean set's stay unmarked."""
    built = build(family)
    bad, damaged = built.spec.rows.damaged(built.a, built.fresh("damaged"))
    official = [
        payload_of(capsys, built, built.a, "--keep-going")["official"],
        payload_of(capsys, built, bad, "--keep-going")["official"],
    ]
    assert official == [True, False]
    win = make_window()
    st, posted = win.state, []
    st.messages_posted.connect(posted.extend)
    win.open_dataset(built.case.path, tuple(built.a), None, **built.case.sources)
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    st.add_results(bad)
    refused = f"Cannot read results: {damaged}"
    qtbot.waitUntil(
        lambda: st.is_idle() and (len(st.results) == 2 or any(refused in m.text for m in posted)),
        timeout=60_000,
    )
    qtbot.waitUntil(lambda: all(e.summary is not None for e in st.evaluations), timeout=10_000)
    shown = official[: len(st.results)]
    win.ap_table.ap_model.refresh()
    win.summary.refresh()
    heads = [" ".join(h.split()) for h in win.ap_table.ap_model.headers()]
    summary = [win.summary.table.horizontalHeaderItem(1 + i).text() for i in range(len(shown))]
    for i, is_official in enumerate(shown):
        assert (st.evaluation.not_official(i) == ()) is is_official
        assert ("NOT OFFICIAL" not in summary[i]) is is_official, summary
    marked = [h for h in heads if "NOT OFFICIAL" in h]
    assert all("results skipped" in h for h in marked), heads
    assert bool(marked) is (len(shown) == 2), heads
