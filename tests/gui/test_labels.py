"""Readable overlays: no tag drawn over another, verdicts in glyphs and words, palettes that reach
the pixels, masks that never wear a verdict colour (real windows, offscreen)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRectF, QSettings
from PySide6.QtGui import QColor

from vocviewer.core.palette import DEFAULT_PALETTE, PALETTES, ROLE_STYLES
from vocviewer.evaluation.result import Verdict
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.gui.panes.image.label_layout import LabelItem, place_labels
from vocviewer.gui.widgets.verdict_style import apply_palette, set_verdict_words

COCO_MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini"
INSTANCES = COCO_MINI / "annotations" / "instances_val2017.json"


@pytest.fixture(autouse=True)
def default_palette():
    """The palette is process-wide: every test here starts and ends with the default."""
    apply_palette(DEFAULT_PALETTE)
    set_verdict_words(False)
    yield
    apply_palette(DEFAULT_PALETTE)
    set_verdict_words(False)


def tag_rects(win) -> list[tuple[QRectF, LabelItem]]:
    """Every text tag on screen with its rectangle in viewport pixels, as Qt maps it."""
    vt = win.view.viewportTransform()
    return [
        (item.deviceTransform(vt).mapRect(item.tag_rect()), item)
        for item in win.view.overlay_items()
        if isinstance(item, LabelItem)
    ]


def overlapping(rects: list[QRectF]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i in range(len(rects))
        for j in range(i + 1, len(rects))
        if rects[i].intersected(rects[j]).width() > 0
        and rects[i].intersected(rects[j]).height() > 0
    ]


def show(qtbot, win, image: int) -> None:
    win.state.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=10_000)


@pytest.fixture
def demo_win(qtbot, make_window, demo):
    win = make_window()
    win.open_dataset(demo.year_dir, (demo.results_dir,), "val")
    st = win.state
    qtbot.waitUntil(
        lambda: st.dataset is not None and st.current_results >= 0 and st.is_idle(), timeout=30_000
    )
    qtbot.waitUntil(lambda: win.view.shown_image == st.current_image >= 0, timeout=10_000)
    return win


def busiest(win) -> int:
    """The visible image with the most objects plus detections above the threshold."""
    st, ds = win.state, win.state.dataset
    det = st.results[st.current_results].results.detections
    n = np.bincount(ds.objects.image_index, minlength=len(ds.images))
    n += np.bincount(det.image_index[det.score >= st.score_threshold], minlength=len(ds.images))
    return int(st.visible_images[np.argmax(n[st.visible_images])])


def test_demo_busiest_image_every_tag_shown_none_over_another(qtbot, demo_win, tmp_path):
    win, st = demo_win, demo_win.state
    image = busiest(win)
    show(qtbot, win, image)
    tags = tag_rects(win)
    ds = st.dataset
    sl = ds.objects_of(image)
    n_actions = int(np.count_nonzero(ds.objects.actions[sl].any(axis=1)))
    # at the window's zoom nothing had to be left out: a label per box, an action tag per actor
    assert len(win.view.overlay_items("label")) == len(win.view.overlay_items("gt")) + len(
        win.view.overlay_items("det")
    )
    assert len(win.view.overlay_items("action")) == n_actions > 0
    assert not overlapping([r for r, _ in tags])
    # the screenshot: each tag's background is its colour on screen
    path = tmp_path / "demo_labels.png"
    win.view.grab().save(str(path))
    from PIL import Image

    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    dets = [(r, t) for r, t in tags if t.glyph]
    assert dets
    for rect, tag in dets:
        x, y = int(rect.right()) - 2, int(rect.center().y())  # right end: past the text
        want = tag._color
        got = pixels[y, x]
        assert np.abs(got - (want.red(), want.green(), want.blue())).max() <= 2, tag.text


def test_demo_zoomed_out_drops_tags_rather_than_overlap(qtbot, demo_win):
    win = demo_win
    image = busiest(win)
    show(qtbot, win, image)
    for _ in range(6):
        win.view.zoom_by(0.7)
    win.view.redraw_overlays()  # what the relayout timer does after a zoom
    tags = tag_rects(win)
    built = len(win.view.overlay_items("gt")) + len(win.view.overlay_items("det"))
    assert 0 < len(win.view.overlay_items("label")) < built  # too small for all of them
    assert not overlapping([r for r, _ in tags])
    assert any(t.shown != t.text for _, t in tags) or len(tags) < built


def test_selected_label_names_verdict_and_verdict_words_for_all(qtbot, demo_win):
    win, st = demo_win, demo_win.state
    ev = st.evaluations[0]
    det = st.results[0].results.detections
    # a false positive whose image has other detections of its class (the selection's filter)
    key = det.image_index * 1000 + det.label
    _, inverse, n = np.unique(key, return_inverse=True, return_counts=True)
    row = int(np.flatnonzero((ev.verdict_by_row == Verdict.FP) & (n[inverse] >= 3))[0])
    st.set_threshold(0.0)
    st.select_detection(int(det.label[row]), int(ev.rank_by_row[row]))
    qtbot.waitUntil(lambda: win.view.shown_image == int(det.image_index[row]), timeout=10_000)
    from vocviewer.gui.widgets.verdict_style import verdict_text

    (hl,) = [t for _, t in tag_rects(win) if t.text.startswith("#")]
    assert verdict_text(ev, row) in hl.text and verdict_text(ev, row).startswith("FP")
    others = [t for _, t in tag_rects(win) if t.glyph and t is not hl]
    assert others and not any("FP" in t.text or "TP" in t.text for t in others)
    win.palette_menu.words_action.trigger()
    others = [t for _, t in tag_rects(win) if t.glyph and not t.text.startswith("#")]
    names = {verdict_text(ev, int(b.row)) for b in win.view.overlay_items("det")}
    assert others and all(any(t.text.endswith(f"· {n}") for n in names) for t in others)
    assert not overlapping([r for r, _ in tag_rects(win)])


def test_palette_menu_recolours_boxes_and_is_stored(qtbot, make_window, tiny, tmp_path):
    from vocviewer.gui.window.main_window import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings)
    qtbot.addWidget(win)
    win.resize(1000, 700)
    win.show()
    dataset, results = tiny
    win.state.set_dataset(dataset)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
        win.state.add_result_set(results)
    qtbot.waitUntil(lambda: win.view.shown_image == 0, timeout=5000)

    def tp_pens() -> set[str]:
        ev = win.state.evaluations[0]
        return {
            b.pen().color().name()
            for b in win.view.overlay_items("det")
            if ev.verdict_by_row[b.row] == Verdict.TP
        }

    assert tp_pens() == {PALETTES["cvd"].colors["tp"].lower()}
    assert win.palette_menu.palette_actions["cvd"].isChecked()
    win.palette_menu.palette_actions["classic"].trigger()
    assert tp_pens() == {PALETTES["classic"].colors["tp"].lower()}
    assert settings.value("view/palette") == "classic"
    assert PALETTES["classic"].colors["tp"].lower() in win.status.colour_key_label.text().lower()
    # the PR dots follow too
    win.state.select_class(dataset.classes.index("dog"))
    brushes = {b.color().name() for b in win.pr_pane.spots.data["brush"]}
    assert PALETTES["classic"].colors["tp"].lower() in brushes
    assert set(win.pr_pane.spots.data["symbol"]) >= {ROLE_STYLES["tp"].glyph}
    win.close()
    apply_palette(DEFAULT_PALETTE)
    again = MainWindow(settings=settings)  # a new window reads the stored choice
    qtbot.addWidget(again)
    assert again.palette_menu.palette_actions["classic"].isChecked()
    assert PALETTES["classic"].colors["tp"].lower() in again.status.colour_key_label.text().lower()
    again.close()


def write_results(dataset, path: Path) -> Path:
    """Jittered ground truth (seeded): many labels per image, some false positives."""
    coco = dataset.data(CocoAnnotations)
    rng = np.random.default_rng(1)
    out = []
    for i in range(len(coco.ann_id)):
        if coco.iscrowd[i]:
            continue
        x, y, w, h = coco.bbox[i]
        j = rng.normal(0.0, 0.15, 4)
        out.append(
            {
                "image_id": int(coco.image_id[dataset.objects.image_index[i]]),
                "category_id": int(coco.category_id_of[i]),
                "bbox": [
                    float(x + j[0] * w),
                    float(y + j[1] * h),
                    float(max(1.0, w * (1 + j[2]))),
                    float(max(1.0, h * (1 + j[3]))),
                ],
                "score": float(rng.random()),
            }
        )
    path.write_text(json.dumps(out))
    return path


def test_coco_kitchen_labels_and_neutral_masks(qtbot, make_window, tmp_path):
    if not INSTANCES.is_file():
        pytest.skip("coco-mini is not available")
    from vocviewer.families.registry import open_dataset

    ds = open_dataset(INSTANCES, images=COCO_MINI / "val2017")
    results = write_results(ds, tmp_path / "bbox.json")
    win = make_window()
    win.open_dataset(INSTANCES, (results,), None, images=COCO_MINI / "val2017")
    st = win.state
    qtbot.waitUntil(
        lambda: st.dataset is not None and st.current_results >= 0 and st.is_idle(), timeout=30_000
    )
    st.set_threshold(0.0)
    kitchen = [ds.classes.index(c) for c in ("oven", "sink", "refrigerator")]
    has = np.isin(
        np.arange(len(ds.images)), ds.objects.image_index[np.isin(ds.objects.label, kitchen)]
    )
    counts = np.bincount(st.dataset.objects.image_index, minlength=len(ds.images))
    image = int(np.argmax(np.where(has, counts, -1)))
    assert counts[image] >= 15
    show(qtbot, win, image)
    qtbot.waitUntil(lambda: win.view.layer("masks") is not None, timeout=10_000)
    tags = tag_rects(win)
    assert len(tags) >= counts[image]  # most of the 2 x objects tags find room
    assert not overlapping([r for r, _ in tags])
    # masks: pale tints (chroma at most 0.2 of full scale), never a verdict colour
    layer = win.view.layer("masks").pixmap().toImage()
    from PySide6.QtGui import QImage

    layer = layer.convertToFormat(QImage.Format.Format_RGBA8888)
    rgba = np.frombuffer(layer.constBits(), np.uint8).reshape(layer.height(), -1, 4)
    rgba = rgba[:, : layer.width()]
    fill = rgba[rgba[..., 3] > 0][:, :3].astype(int)
    assert len(fill) > 1000
    assert (fill.max(axis=1) - fill.min(axis=1)).max() <= 0.2 * 255
    path = tmp_path / "coco_kitchen.png"
    win.view.grab().save(str(path))
    assert path.stat().st_size > 10_000


def test_place_labels_priorities_stacking_and_dropping(qtbot):
    """Twenty tags on one small box: the highest priority keeps the preferred spot, the others
    stack or shorten, none overlaps, and those without room are left out."""
    labels = [LabelItem(f"person 0.{i:02d}", QColor("#009E73"), above=False) for i in range(20)]
    for i, label in enumerate(labels):
        label.anchor_to((40.0, 40.0, 80.0, 60.0), "below", float(i), 1.0)
    kept = place_labels(labels, 1.0, (0.0, 0.0, 120.0, 140.0))
    assert labels[-1] in kept
    assert labels[-1].pos().x() == 40.0 and labels[-1].pos().y() == 60.0  # below the box
    assert 2 < len(kept) < 20
    rects = [QRectF(t.pos() + t.tag_rect().topLeft(), t.tag_rect().size()) for t in kept]
    assert not overlapping(rects)
    assert all(r.left() >= 0 and r.right() <= 120 for r in rects)
