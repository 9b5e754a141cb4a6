"""View ▸ Patches on the real window (the demo): its table against the evidence, sorting, opening
a patch, tagging a selection of patches; the grid's and the patches' PgDn / PgUp and size keys;
and 20,000 patches scrolling without stalling the event loop."""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtWidgets import QApplication

from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.core.palette import ROLES
from vocviewer.core.results import ClassScores, Detections, ResultSet
from vocviewer.core.tags import Target
from vocviewer.evaluation.analysis import FPKind
from vocviewer.evaluation.patches import KINDS, PatchSelection, patch_table, sort_order
from vocviewer.evaluation.result import Verdict
from vocviewer.gui.models.crops import Crop, crop_region, decode_crops
from vocviewer.gui.models.patches import patch_key
from vocviewer.gui.models.thumbnails import decode_thumbnail
from vocviewer.gui.panes.browse.cells import TAG_INK, THUMB_SIZES, page_of

SHOTS = Path("/tmp/shots-patches")


def shot(widget, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


@pytest.fixture
def demo_window(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    st = win.state
    qtbot.waitUntil(
        lambda: st.dataset is not None and st.current_results >= 0 and st.is_idle(),
        timeout=30_000,
    )
    return win


def focus(qtbot, win, widget) -> None:
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5000)
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=2000)


def open_patches(qtbot, win, kind: str = "fp", class_index: int = -1, sort: str = "score"):
    """Ctrl+Shift+G, choose, wait for the table and the visible crops."""
    area = win.image_area
    page = area.currentWidget()
    focus(qtbot, win, page.grid if page is area.patches else page)
    qtbot.keyClick(
        win, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    area = win.image_area
    assert area.currentWidget() is area.patches and area.act_patches.isChecked()
    pane = area.patches
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        pane.set_selection(kind, class_index, sort)
        pane.recompute()
    grid = pane.grid
    if grid.model_.rowCount():  # the first crop cut, and the rest on screen
        key = patch_key(grid.model_.table, 0)
        qtbot.waitUntil(lambda: grid.loader.has(key), timeout=10_000)
    qtbot.waitUntil(lambda: not grid.loader.busy(), timeout=10_000)
    return pane


def role_counts(table) -> dict[str, int]:
    return table.counts()


# --- the table against the evidence ----------------------------------------------------------
def test_patch_counts_per_verdict_equal_the_evidence(qtbot, demo_window):
    st = demo_window.state
    ds = st.dataset
    evidence = st.evaluation.evidence(0)
    assert evidence is not None
    boxes = st.results[0].results.detections.box
    n_fp = n_tp = 0
    for view in evidence.views("det"):
        k, ev, fp = view.class_index, view.evaluation, view.false_positives
        assert fp is not None
        got = patch_table(ds, evidence.classes, boxes, PatchSelection("detections", k)).counts()
        want_fp = fp.counts()
        assert got.get("tp", 0) == ev.counts()["tp"]
        assert got.get("fp_background", 0) == want_fp["background"]
        assert got.get("fp_localization", 0) == want_fp["localization"]
        assert got.get("fp_wrong_class", 0) == want_fp["similar"] + want_fp["other"]
        assert got.get("duplicate", 0) == want_fp["duplicate"]
        missed = patch_table(ds, evidence.classes, boxes, PatchSelection("missed", k))
        assert sorted(missed.object.tolist()) == sorted(view.missed.tolist())
        n_fp += int(np.count_nonzero(fp.kind != FPKind.NOT_FP))
        n_tp += ev.counts()["tp"]
    every_fp = patch_table(ds, evidence.classes, boxes, PatchSelection("fp"))
    assert len(every_fp) == n_fp > 0
    assert len(patch_table(ds, evidence.classes, boxes, PatchSelection("tp"))) == n_tp > 0
    # objects of a class: all of them, the missed ones marked so
    k = evidence.classes[0].class_index
    objects = patch_table(ds, evidence.classes, boxes, PatchSelection("objects", k))
    assert sorted(objects.object.tolist()) == np.flatnonzero(ds.objects.label == k).tolist()
    missed_role = ROLES.index("missed")
    assert set(objects.object[objects.role == missed_role].tolist()) == set(
        evidence.classes[0].missed.tolist()
    )


def test_missed_at_the_threshold_are_the_windows_missed_objects(qtbot, demo_window):
    st = demo_window.state
    ds, evals = st.dataset, st.evaluations[0]
    evidence = st.evaluation.evidence(0)
    boxes = st.results[0].results.detections.box
    for threshold in (0.0, 0.5, 0.8):
        missed = patch_table(
            ds, evidence.classes, boxes, PatchSelection("missed", min_score=threshold)
        )
        want = np.flatnonzero(evals.missed_at(ds, threshold))  # ``confusion.missed_at``
        assert sorted(missed.object.tolist()) == want.tolist()
        assert np.all(missed.role == ROLES.index("missed"))
        drawn = patch_table(
            ds, evidence.classes, boxes, PatchSelection("detections", min_score=threshold)
        )
        assert np.all(drawn.score >= threshold)


def test_the_pane_lists_the_drawn_patches_of_its_selection(qtbot, demo_window):
    st = demo_window.state
    pane = open_patches(qtbot, demo_window, "tp")
    rows = pane.grid.model_.rowCount()
    evals = st.evaluations[0]
    drawn_tp = sum(
        int(np.count_nonzero((ev.verdict == Verdict.TP) & (ev.score >= st.score_threshold)))
        for ev in evals.det.values()
    )
    assert rows == drawn_tp > 0
    assert pane.count.text() == f"{rows:,} patches"
    # a subset of images, as a filter would give
    keep = np.unique(pane.grid.model_.table.image)[:3]
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        pane.set_images(keep)
    assert set(pane.grid.model_.table.image.tolist()) <= set(keep.tolist())
    assert 0 < pane.grid.model_.rowCount() < rows
    last = patch_key(pane.grid.model_.table, pane.grid.model_.rowCount() - 1)
    qtbot.waitUntil(lambda: pane.grid.loader.has(last), timeout=10_000)  # all on screen
    shot(demo_window, "window-patches-tp")


def test_sorting_by_score_iou_and_class(qtbot, demo_window):
    pane = open_patches(qtbot, demo_window, "fp", -1, "score")
    t = pane.grid.model_.table
    assert np.all(np.diff(t.score) <= 0)
    pane.order.setChecked(False)  # lowest first
    qtbot.waitUntil(lambda: pane.grid.model_.table.score[0] == t.score.min(), timeout=5000)
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        pane.set_selection("fp", -1, "iou")
    t = pane.grid.model_.table
    finite = np.isfinite(t.iou)
    first_nan = np.flatnonzero(~finite)
    assert np.all(np.diff(t.iou[finite]) >= 0)
    assert len(first_nan) == 0 or np.all(finite[: first_nan[0]])  # missing IoU last
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        pane.set_selection("fp", -1, "class")
    t = pane.grid.model_.table
    assert np.all(np.diff(t.label) >= 0)
    for k in np.unique(t.label):  # within a class, by score (highest first)
        assert np.all(np.diff(t.score[t.label == k]) <= 0)
    # the Qt-free order: NaN last whichever way
    iou = np.array([0.3, np.nan, 0.9, 0.5])
    table = t.take(np.zeros(4, dtype=np.int64))
    object.__setattr__(table, "iou", iou)
    assert sort_order(table, "iou", True).tolist() == [2, 3, 0, 1]
    assert sort_order(table, "iou", False).tolist() == [0, 3, 2, 1]
    with pytest.raises(ValueError):
        PatchSelection("nonsense")
    assert "missed" in KINDS


def test_double_click_opens_the_image_with_the_box_selected(qtbot, demo_window):
    st, view = demo_window.state, demo_window.view
    pane = open_patches(qtbot, demo_window, "background")
    grid = pane.grid
    t = grid.model_.table
    row = min(3, len(t) - 1)
    centre = grid.visualRect(grid.model_.index(row)).center()
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert demo_window.image_area.currentWidget() is pane  # one click selects
    qtbot.mouseDClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert demo_window.image_area.currentWidget() is view
    assert not demo_window.image_area.act_patches.isChecked()
    assert st.current_image == int(t.image[row])
    assert st.selected_detection_row() == int(t.detection[row])
    qtbot.waitUntil(lambda: view.shown_image == int(t.image[row]), timeout=10_000)
    hl = view.highlighted_item()
    assert hl is not None and hl.row == int(t.detection[row])
    # a missed object: Enter opens it with the object selected
    pane = open_patches(qtbot, demo_window, "missed")
    grid = pane.grid
    t = grid.model_.table
    assert len(t)
    focus(qtbot, demo_window, grid)
    grid.setCurrentIndex(grid.model_.index(0))
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    assert demo_window.image_area.currentWidget() is view
    assert st.current_image == int(t.image[0]) and st.selected_object == int(t.object[0])


def test_tags_go_to_every_selected_patch_and_show_on_them(qtbot, demo_window):
    win = demo_window
    pane = open_patches(qtbot, win, "background")
    grid, tags = pane.grid, win.curation.tags
    t = grid.model_.table
    rows = [0, 2, 4]
    focus(qtbot, win, grid)
    grid.clearSelection()
    for r in rows:
        grid.selectionModel().select(grid.model_.index(r), QItemSelectionModel.SelectionFlag.Select)
    qtbot.keyClick(grid, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)  # "label error"
    ids = win.state.dataset.images.id
    want = {Target("detection", str(ids[t.image[r]]), int(t.detection[r]), 0) for r in rows}
    assert {e.target for e in tags.tags.entries.values()} == want
    assert all(tags.get(x).tags == ("label error",) for x in want)
    assert win.curation.tag_line.text().startswith("3 patches selected, 3 of them tagged")
    assert [grid.tags_of(r) for r in range(5)] == [
        ("label error",),
        (),
        ("label error",),
        (),
        ("label error",),
    ]
    QApplication.processEvents()
    cell = grid.viewport().grab(grid.visualRect(grid.model_.index(0))).toImage()
    amber = TAG_INK.getRgb()[:3]
    assert any(
        cell.pixelColor(x, y).getRgb()[:3] == amber
        for x in range(cell.width())
        for y in range(cell.height() // 3)
    )
    shot(grid, "patches-tagged")
    # "missing annotation" on detections carries the fix: add the box
    qtbot.keyClick(grid, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    entry = tags.get(next(iter(want)))
    assert entry.fix is not None and entry.fix.action == "add"
    # the same key again on the same selection takes the tag off all of them
    qtbot.keyClick(grid, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert all("label error" not in tags.get(x).tags for x in want)
    # the image grid flags tagged images
    area = win.image_area
    area.show_grid(True)
    marked = set(area.grid.marked)
    assert marked == {int(t.image[r]) for r in rows}
    flagged = area.grid.model_.row_of(next(iter(marked)))
    area.grid.scrollTo(area.grid.model_.index(flagged))
    QApplication.processEvents()
    cell = area.grid.viewport().grab(area.grid.visualRect(area.grid.model_.index(flagged)))
    image = cell.toImage()
    assert any(
        image.pixelColor(x, y).getRgb()[:3] == amber
        for x in range(image.width() // 3)
        for y in range(image.height() // 3)
    )


# --- the grid: page keys, size --------------------------------------------------------------
def test_page_keys_move_one_page_in_the_grid_and_the_patches(qtbot, demo_window):
    win, st = demo_window, demo_window.state
    area = win.image_area
    area.show_grid(True)
    grid = area.grid
    focus(qtbot, win, grid)
    grid.setCurrentIndex(grid.model_.index(0))
    columns, rows = page_of(grid)
    page = columns * rows
    assert page < grid.model_.rowCount()
    qtbot.keyClick(grid, Qt.Key.Key_PageDown)
    assert grid.currentIndex().row() == page
    assert st.current_image == int(grid.model_.rows[page])  # not the next image of the window
    assert area.currentWidget() is grid
    qtbot.keyClick(grid, Qt.Key.Key_PageUp)
    assert grid.currentIndex().row() == 0
    qtbot.keyClick(grid, Qt.Key.Key_PageUp)  # clamped at the first
    assert grid.currentIndex().row() == 0
    pane = open_patches(qtbot, win, "detections")
    pgrid = pane.grid
    focus(qtbot, win, pgrid)
    pgrid.setCurrentIndex(pgrid.model_.index(0))
    columns, rows = page_of(pgrid)
    qtbot.keyClick(pgrid, Qt.Key.Key_PageDown)
    assert pgrid.currentIndex().row() == min(columns * rows, pgrid.model_.rowCount() - 1)
    # elsewhere PgDn is still the next image
    area.show_patches(False)
    focus(qtbot, win, win.view)
    before = st.current_image
    qtbot.keyClick(win.view, Qt.Key.Key_PageDown)
    assert st.current_image != before


def test_size_keys_step_the_thumbnails_and_are_remembered(qtbot, make_window, demo, tmp_path):
    ini = tmp_path / "settings.ini"
    win = make_window(settings=ini)
    win.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    qtbot.waitUntil(lambda: win.state.dataset is not None and win.state.is_idle(), timeout=30_000)
    area = win.image_area
    area.show_grid(True)
    grid = area.grid
    focus(qtbot, win, grid)
    before = grid.cell_size()
    qtbot.keyClick(grid, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert area.thumb_w == grid.thumb_w == 224 == area.patches.grid.thumb_w
    assert grid.cell_size().width() > before.width()
    assert grid.loader.size == (224, 168)
    QApplication.processEvents()
    assert grid.visualRect(grid.model_.index(1)).width() == grid.cell_size().width()
    qtbot.waitUntil(lambda: grid.loader.has(int(grid.model_.rows[0])), timeout=10_000)
    qtbot.waitUntil(lambda: not grid.loader.busy(), timeout=10_000)
    shot(win, "grid-larger")
    for _ in range(2):
        qtbot.keyClick(grid, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert area.thumb_w == 128
    # with the focus on the image, Ctrl+- leaves the thumbnails alone
    area.show_grid(False)
    focus(qtbot, win, win.view)
    qtbot.keyClick(win.view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert area.thumb_w == 128
    area.act_larger.trigger()  # View ▸ Larger thumbnails
    assert area.thumb_w == 160
    pane = open_patches(qtbot, win, "fp")  # the same keys in the patches, the same size
    pgrid = pane.grid
    focus(qtbot, win, pgrid)
    qtbot.keyClick(pgrid, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert area.thumb_w == pgrid.thumb_w == 224 and pgrid.loader.size == (224, 168)
    QApplication.processEvents()
    assert pgrid.visualRect(pgrid.model_.index(1)).width() == pgrid.cell_size().width()
    qtbot.keyClick(pgrid, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert area.thumb_w == 160
    win.close()
    again = make_window(settings=ini)
    assert again.image_area.thumb_w == 160 == again.image_area.grid.thumb_w
    assert not again.image_area.set_thumb_size(111) and THUMB_SIZES[0] == 96


# --- crops ----------------------------------------------------------------------------------
def test_crops_cut_the_box_with_context(tmp_path):
    path = tmp_path / "a.png"
    img = Image.new("RGB", (200, 100), (0, 0, 255))
    img.paste((255, 0, 0), (50, 20, 90, 60))  # a red box at x 50..90, y 20..60
    img.save(path)
    box = (50.0, 20.0, 90.0, 60.0)
    region = crop_region(box, 200, 100)
    assert region == (42, 12, 98, 68)  # 20 % of 40 px on every side
    assert crop_region((190.0, 90.0, 230.0, 130.0), 200, 100)[2:] == (200, 100)  # clipped
    [(key, crop)] = list(decode_crops([(7, str(path), box)], 80, 60, 1.0))
    assert key == 7 and isinstance(crop, Crop) and crop.region == region
    assert (crop.image.width(), crop.image.height()) == (60, 60)
    centre = crop.image.pixelColor(30, 30).getRgb()[:3]
    corner = crop.image.pixelColor(1, 1).getRgb()[:3]
    assert centre == (255, 0, 0) and corner == (0, 0, 255)
    # opaque pixels (0xffRRGGBB): what a window grab or a compositor shows, not transparent
    assert set(bytes(crop.image.constBits())[3::4]) == {255}
    thumb = decode_thumbnail(path, 80, 60)
    assert set(bytes(thumb.image.constBits())[3::4]) == {255}
    [(_, bad)] = list(decode_crops([(1, str(tmp_path / "none.jpg"), box)], 80, 60, 1.0))
    assert bad.missing


# --- 20,000 patches scroll without a stall ------------------------------------------------
def many_detections(root: Path, n_images: int, per_image: int) -> tuple[Dataset, ResultSet]:
    """``n_images`` real 320 x 240 JPEGs, one dog each, and ``per_image`` dog detections on
    each (one on the dog, the rest scattered: false positives)."""
    rng = np.random.default_rng(0)
    paths = tuple(root / f"p{i:03d}.jpg" for i in range(n_images))
    for path in paths:
        pixels = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(path, quality=80)
    dog = VOC_CLASSES.index("dog")
    zeros = np.zeros(n_images, bool)
    objects = ObjectTable(
        image_index=np.arange(n_images),
        label=np.full(n_images, dog),
        box=np.tile([101.0, 81.0, 200.0, 160.0], (n_images, 1)),
        difficult=zeros,
        truncated=zeros,
        occluded=zeros,
        pose=np.zeros(n_images, np.int8),
        order_in_image=np.zeros(n_images, np.int64),
        actions=np.zeros((n_images, 0), bool),
    )
    images = ImageTable(
        id=np.array([p.stem for p in paths]),
        path=paths,
        width=np.full(n_images, 320),
        height=np.full(n_images, 240),
        segmented=np.zeros(n_images, bool),
    )
    ds = Dataset(
        name="many",
        root=root,
        year=2012,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=images,
        objects=objects,
        parts=PartTable.empty(),
        image_sets={"Main/val": np.arange(n_images)},
    )
    d = n_images * per_image
    x = rng.uniform(1, 260, d)
    y = rng.uniform(1, 190, d)
    w = rng.uniform(12, 60, d)
    box = np.stack([x, y, np.minimum(x + w, 320), np.minimum(y + w * 0.8, 240)], axis=1)
    box[::per_image] = [101.0, 81.0, 200.0, 160.0]
    detections = Detections(
        image_index=np.repeat(np.arange(n_images), per_image),
        label=np.full(d, dog),
        score=rng.uniform(0.5, 1.0, d),
        box=box,
        file_index=np.zeros(d, np.int64),
        line=np.arange(1, d + 1),
    )
    results = ResultSet(
        name="many",
        files=(root / "comp4_det_val_dog.txt",),
        detections=detections,
        class_scores=ClassScores.empty(),
        classes_with_files={"det": frozenset({dog})},
    )
    return ds, results


def test_twenty_thousand_patches_scroll_without_a_stall(qtbot, make_window, tmp_path, capsys):
    win = make_window()
    ds, results = many_detections(tmp_path, 80, 250)  # 20,000 detections
    win.state.set_dataset(ds)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=30_000):
        win.state.add_result_set(results)
    win.state.set_threshold(0.0)  # every detection drawn
    area = win.image_area
    area.show_patches(True)
    pane = area.patches
    t0 = time.perf_counter()
    with qtbot.waitSignal(pane.computed, timeout=20_000):
        pane.set_selection("detections")
        pane.recompute()
    built = time.perf_counter() - t0
    grid = pane.grid
    n = grid.model_.rowCount()
    assert n == 20_000
    qtbot.waitUntil(lambda: not grid.loader.busy(), timeout=10_000)
    gaps: list[tuple[float, float]] = []  # (wall, GUI thread CPU) seconds between beats
    last = [time.perf_counter(), time.thread_time()]

    def beat() -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gaps.append((now - last[0], cpu - last[1]))
        last[:] = [now, cpu]

    heart = QTimer()
    heart.setInterval(5)
    heart.timeout.connect(beat)
    bar = grid.verticalScrollBar()
    steps = 60
    # a full collection of the test process's ~110,000 objects takes ~110 ms whenever it falls
    # due; done before, so that what is measured is the view (scroll, paint, crops arriving)
    gc.collect()
    start = time.perf_counter()
    last[:] = [start, time.thread_time()]
    heart.start()
    for i in range(1, steps + 1):  # a fast drag from top to bottom, then a jump back
        bar.setValue(bar.maximum() * i // steps)
        qtbot.wait(15)
    bar.setValue(0)
    qtbot.wait(100)
    heart.stop()
    scrolled = time.perf_counter() - start
    wall, cpu = (x * 1000 for x in max(gaps))
    busiest = max(c for _, c in gaps) * 1000
    decoded = grid.loader.decoded
    with capsys.disabled():
        sys.stdout.write(
            f"\npatches: {n} in {built * 1000:.0f} ms; scrolled in {scrolled:.2f} s, "
            f"{len(gaps)} beats; longest event-loop gap {wall:.1f} ms (GUI thread CPU in it "
            f"{cpu:.1f} ms; most CPU in one gap {busiest:.1f} ms); {decoded} crops cut\n"
        )
    assert decoded > 0
    assert wall < 400  # the goal is 100 ms; generous for a loaded 2-core machine
    assert busiest < 100  # the GUI thread's own work between two beats
    assert grid.viewport().findChildren(type(grid)) == []
    shot(win, "patches-20000")


def test_without_results_the_objects_are_listed_and_a_missing_file_said(qtbot, make_window, tiny):
    win = make_window()
    dataset, _results = tiny
    win.state.set_dataset(dataset)
    area = win.image_area
    area.show_patches(True)  # shown before anything is evaluated: no detections, no error
    pane = area.patches
    dog = dataset.classes.index("dog")
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        pane.set_selection("objects", dog)
        pane.recompute()
    t = pane.grid.model_.table
    assert t.object.tolist() == np.flatnonzero(dataset.objects.label == dog).tolist()
    assert np.all(t.role == ROLES.index("gt"))  # nothing evaluated: nothing missed
    img3 = next(r for r in range(len(t)) if dataset.images.id[t.image[r]] == "img3")
    key = patch_key(t, img3)
    qtbot.waitUntil(lambda: pane.grid.loader.has(key), timeout=10_000)
    assert pane.grid.loader.lookup(key).missing  # its file is missing: said in the cell
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        pane.set_selection("fp")
    assert pane.grid.model_.rowCount() == 0 and pane.count.text() == "no patches"


def test_the_patches_follow_the_filter_and_the_per_class_thresholds(qtbot, demo_window) -> None:
    """The filter panel's record narrows the patches to the boxes it keeps on the images it
    lists; per-class drawing thresholds drop every detection patch below its class's threshold
    (``>=``: at it, drawn)."""
    from vocviewer.core.view_filter import ViewFilter
    from vocviewer.formats.thresholds import ClassThresholds

    win = demo_window
    st = win.state
    pane = open_patches(qtbot, win, "detections")
    everything = pane.grid.model_.table
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        st.set_image_filter(ViewFilter(score=(0.8, float("inf")), fp_kinds=("background",)))
    table = pane.grid.model_.table
    kept = st.kept
    assert 0 < len(table.score) < len(everything.score)
    assert set(table.image.tolist()) <= set(kept.images.tolist())
    assert kept.detections[table.detection].all() and (table.score >= 0.8).all()
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        st.set_image_filter(ViewFilter())
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        st.set_threshold(0.0)
    every = pane.grid.model_.table
    ds = st.dataset
    cut = {name: 0.9 if k % 2 else 0.3 for k, name in enumerate(ds.classes)}
    at = len(every.score) // 2  # one class cut exactly at one of its scores: that patch stays
    cut[ds.classes[int(every.label[at])]] = float(every.score[at])
    with qtbot.waitSignal(pane.computed, timeout=10_000):
        st.set_class_thresholds(ClassThresholds(cut))
    table = pane.grid.model_.table
    floor = np.array([cut[name] for name in ds.classes])
    expected = every.detection[every.score >= floor[every.label]]
    assert 0 < len(expected) < len(every.score) and every.detection[at] in expected
    assert sorted(table.detection.tolist()) == sorted(expected.tolist())
