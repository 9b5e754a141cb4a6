"""The one rule for "drawn" (``evaluation.drawn.is_drawn``: ``score >= threshold``) at its
boundary, in every place of the window that counts drawn detections: a detection scoring exactly
the threshold is drawn on the image, listed as drawn, counted in the grid's tag and the confusion
matrix, and finds its object (which the missed walk then passes by); one scoring just below is
none of those.

Tiny set (conftest) with four detections at threshold 0.6: on img1 a dog TP at 0.6 and a
background FP just below; on img2 a background FP at 0.6 and a cat TP just below.
"""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.core.results import ClassScores, Detections, ResultSet
from vocviewer.evaluation.confusion import EXTRA_COLUMNS
from vocviewer.evaluation.drawn import is_drawn
from vocviewer.gui.panes.browse.thumbnail_grid import errors_text

AT = 0.6
BELOW = float(np.nextafter(AT, 0.0))
DOG, CAT = VOC_CLASSES.index("dog"), VOC_CLASSES.index("cat")
K = len(VOC_CLASSES)
BACKGROUND, MISSED = K + EXTRA_COLUMNS.index("background"), K + EXTRA_COLUMNS.index("missed")
#: (class, image row, score, box): dog TP at, dog FP below (img1); dog FP at, cat TP below (img2)
BOUNDARY = [
    ("dog", 0, AT, (20, 20, 80, 90)),
    ("dog", 0, BELOW, (160, 100, 195, 145)),
    ("dog", 1, AT, (130, 20, 180, 60)),
    ("cat", 1, BELOW, (12, 10, 118, 100)),
]


def test_is_drawn_is_score_at_least_the_threshold():
    got = is_drawn(np.array([AT, BELOW, np.nextafter(AT, 1.0), np.nan, np.inf]), AT)
    assert got.tolist() == [True, False, True, False, True]


def boundary_window(qtbot, make_window, tiny):
    """The window on the tiny dataset with the ``BOUNDARY`` detections, evaluated."""
    dataset, tinydet = tiny
    labels = [VOC_CLASSES.index(c) for c, *_ in BOUNDARY]
    detections = Detections(
        image_index=[r[1] for r in BOUNDARY],
        label=labels,
        score=[r[2] for r in BOUNDARY],
        box=np.array([r[3] for r in BOUNDARY], dtype=float),
        file_index=np.zeros(len(BOUNDARY), np.int64),
        line=np.arange(1, len(BOUNDARY) + 1),
    )
    results = ResultSet(
        name="boundary",
        files=tinydet.files,
        detections=detections,
        class_scores=ClassScores.empty(),
        classes_with_files={"det": frozenset(labels)},
    )
    win = make_window()
    win.state.set_dataset(dataset)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
        win.state.add_result_set(results)
    return win


@pytest.fixture
def boundary(qtbot, make_window, tiny):
    win = boundary_window(qtbot, make_window, tiny)
    win.state.set_threshold(AT)
    assert win.state.score_threshold == AT
    return win


def drawn_rows(qtbot, win, image: int) -> set[int]:
    st = win.state
    st.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.shown_image == image, timeout=5000)
    return {item.row for item in win.view.overlay_items("det")}


def test_a_detection_scoring_the_threshold_is_drawn_and_counted_one_below_is_not(qtbot, boundary):
    win, st = boundary, boundary.state
    ds = st.dataset
    # on the image, and in the side panel's list (one below is muted and says why)
    assert drawn_rows(qtbot, win, 0) == {0}
    listed = {row[3] for row in win.side.detections.rows_model.rows}
    assert any(v.endswith("below threshold") for v in listed)
    assert sum(not v.endswith("below threshold") for v in listed) == 1
    assert drawn_rows(qtbot, win, 1) == {2}

    # the grid's tags: img1's FP below is not counted, img2's FP at is; img2's cat TP below
    # finds nothing, img1's dog TP at finds its dog
    errors = win.image_area.grid.errors
    assert [errors_text(errors, i) for i in range(3)] == ["", "1 FP · 1 missed", "1 missed"]

    # the missed walk: img2's cat and img3's dog (no detection), never img1's dog
    walk = win.walk
    walk.walk.set_mode("missed")
    visited = []
    while walk.step(1):
        visited.append(st.selected_object)
    cat = int(np.flatnonzero(ds.objects.label == CAT)[0])
    img3_dog = int(np.flatnonzero(ds.objects.image_index == 2)[0])
    assert visited == [cat, img3_dog]

    # the confusion matrix
    pane = win.confusion
    win.right_tabs.setCurrentWidget(pane)
    qtbot.waitUntil(lambda: pane.matrix is not None, timeout=5000)
    counts = pane.matrix.counts
    assert counts[DOG, DOG] == 1 and counts[DOG, BACKGROUND] == 1 and counts[DOG, MISSED] == 1
    assert counts[CAT, CAT] == 0 and counts[CAT, MISSED] == 1
    assert counts.sum() == 4
