"""GUI fixtures: a tiny in-memory dataset with real image files, the demo, and a window factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.core.results import ClassScores, Detections, ResultSet

#: image id → (exists on disk, [(class, (x1, y1, x2, y2) 1-based inclusive, difficult, truncated)])
TINY_OBJECTS = {
    "img1": (
        True,
        [("dog", (21, 21, 80, 90), False, False), ("person", (101, 31, 150, 140), True, True)],
    ),
    "img2": (True, [("cat", (11, 11, 120, 100), False, False)]),
    "img3": (False, [("dog", (31, 31, 100, 100), False, False)]),
}
#: (class, image, score, box) in file order; verdicts: dog TP, DUPLICATE, FP, TP; cat TP; person
#: IGNORED (difficult)
TINY_DETECTIONS = [
    ("dog", "img1", 0.9, (20, 20, 80, 90)),
    ("dog", "img1", 0.8, (22, 22, 80, 88)),
    ("dog", "img2", 0.6, (130, 20, 180, 60)),
    ("dog", "img3", 0.7, (30, 30, 100, 100)),
    ("cat", "img2", 0.95, (12, 10, 118, 100)),
    ("person", "img1", 0.55, (100, 30, 150, 140)),
]


def make_tiny(root: Path) -> tuple[Dataset, ResultSet]:
    """Three 200 x 150 images (``img3``'s file is missing), val = all three, train = img1."""
    ids = list(TINY_OBJECTS)
    paths = tuple(root / f"{i}.jpg" for i in ids)
    for (exists, _), path in zip(TINY_OBJECTS.values(), paths, strict=True):
        if exists:
            Image.new("RGB", (200, 150), (90, 120, 150)).save(path)
    rows = [
        (n, VOC_CLASSES.index(c), b, d, t, k)
        for n, (_, objs) in enumerate(TINY_OBJECTS.values())
        for k, (c, b, d, t) in enumerate(objs)
    ]
    m = len(rows)
    objects = ObjectTable(
        image_index=[r[0] for r in rows],
        label=[r[1] for r in rows],
        box=np.array([r[2] for r in rows], dtype=float),
        difficult=[r[3] for r in rows],
        truncated=[r[4] for r in rows],
        occluded=np.zeros(m, bool),
        pose=np.zeros(m, np.int8),
        order_in_image=[r[5] for r in rows],
        actions=np.zeros((m, 0), bool),
    )
    images = ImageTable(
        id=np.array(ids),
        path=paths,
        width=np.full(3, 200),
        height=np.full(3, 150),
        segmented=np.zeros(3, bool),
    )
    parts = PartTable.empty()
    dataset = Dataset(
        name="tiny",
        root=root,
        year=2012,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=images,
        objects=objects,
        parts=parts,
        image_sets={"Main/val": np.array([0, 1, 2]), "Main/train": np.array([0])},
    )
    d = TINY_DETECTIONS
    labels = [VOC_CLASSES.index(r[0]) for r in d]
    detections = Detections(
        image_index=[ids.index(r[1]) for r in d],
        label=labels,
        score=[r[2] for r in d],
        box=np.array([r[3] for r in d], dtype=float),
        file_index=np.zeros(len(d), np.int64),
        line=np.arange(1, len(d) + 1),
    )
    results = ResultSet(
        name="tinydet",
        files=(root / "comp4_det_val_all.txt",),
        detections=detections,
        class_scores=ClassScores.empty(),
        classes_with_files={"det": frozenset(labels)},
    )
    return dataset, results


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Dataset, ResultSet]:
    return make_tiny(tmp_path)


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory):  # -> vocviewer.demo.DemoPaths
    demo_module = pytest.importorskip("vocviewer.demo")
    return demo_module.write_demo(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def make_window(qtbot) -> Iterator[Callable[..., object]]:
    """Factory for ``MainWindow`` (shown offscreen; windows are shut down after):
    ``make_window(settings=None, size=(1400, 900))``. ``settings``: a ``QSettings``, or the path
    of an ini file read by a fresh ``QSettings`` (as a new process would); ``size`` ``None``: the
    restored geometry."""
    from PySide6.QtCore import QSettings, QThreadPool

    from vocviewer.gui.window.app import configure_pyqtgraph
    from vocviewer.gui.window.main_window import MainWindow

    configure_pyqtgraph()
    made: list[MainWindow] = []

    def factory(
        settings: QSettings | Path | None = None, size: tuple[int, int] | None = (1400, 900)
    ) -> MainWindow:
        if isinstance(settings, Path):
            settings = QSettings(str(settings), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings)
        qtbot.addWidget(window)
        if size is not None:
            window.resize(*size)
        window.show()
        made.append(window)
        return window

    yield factory
    for window in made:
        window.view.shutdown()
        window.state.shutdown()
    QThreadPool.globalInstance().waitForDone(10_000)
    qtbot.wait(20)  # deliver queued worker signals while the windows still exist


@pytest.fixture
def window(qtbot, make_window, tiny):
    """A window on the tiny dataset with its results evaluated and the first image shown."""
    win = make_window()
    dataset, results = tiny
    win.state.set_dataset(dataset)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
        win.state.add_result_set(results)
    qtbot.waitUntil(lambda: win.view.shown_image == win.state.current_image == 0, timeout=5000)
    qtbot.waitUntil(win.state.is_idle, timeout=10_000)  # (the diagnosis, then every pane)
    return win
