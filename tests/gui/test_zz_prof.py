import cProfile
import gc
import pstats
import time

from PySide6.QtCore import QTimer

from tests.gui.test_patches import many_detections


def test_prof(qtbot, make_window, tmp_path, capsys):
    win = make_window()
    ds, results = many_detections(tmp_path, 80, 250)
    win.state.set_dataset(ds)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=30_000):
        win.state.add_result_set(results)
    win.state.set_threshold(0.0)
    area = win.image_area
    area.show_patches(True)
    pane = area.patches
    with qtbot.waitSignal(pane.computed, timeout=20_000):
        pane.set_selection("detections")
        pane.recompute()
    grid = pane.grid
    qtbot.waitUntil(lambda: not grid.loader.busy(), timeout=10_000)
    rows = []
    last = [time.perf_counter(), time.thread_time()]

    def beat():
        now, cpu = time.perf_counter(), time.thread_time()
        rows.append((now - last[0], cpu - last[1]))
        last[:] = [now, cpu]

    heart = QTimer()
    heart.setInterval(5)
    heart.timeout.connect(beat)
    bar = grid.verticalScrollBar()
    gc.collect()
    pr = cProfile.Profile()
    pr.enable()
    last[:] = [time.perf_counter(), time.thread_time()]
    heart.start()
    for i in range(1, 61):
        bar.setValue(bar.maximum() * i // 60)
        qtbot.wait(15)
    bar.setValue(0)
    qtbot.wait(100)
    heart.stop()
    pr.disable()
    rows.sort(reverse=True)
    with capsys.disabled():
        pstats.Stats(pr).sort_stats("tottime").print_stats(15)
        print("worst", [(round(a * 1000, 1), round(b * 1000, 1)) for a, b in rows[:8]])
