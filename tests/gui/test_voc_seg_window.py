"""VOC segmentation results in the window: a folder of label PNGs is a result set, evaluated as
``vocviewer eval --task seg`` evaluates it (per-label IoU in the Summary tab), and drawn over the
image as the "result" segmentation overlay beside the ground truth's."""

from __future__ import annotations

import json
import math

from vocviewer.cli import main


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=0, abs_tol=1e-9)


def test_segmentation_results_are_evaluated_and_drawn(qtbot, make_window, demo, tmp_path):
    folder = demo.results_dir / "Segmentation"
    out = tmp_path / "seg.json"
    assert (
        main(
            [
                "eval",
                str(demo.year_dir),
                "--results",
                str(folder),
                "--task",
                "seg",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    payload = json.loads(out.read_text())
    win = make_window()
    st = win.state
    win.open_dataset(demo.year_dir, (folder,), "Segmentation/val")
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.evaluations[0].summary is not None, timeout=10_000)
    shown = win.summary.values()
    summary = payload["summary"]
    assert same(shown["mean IoU"], summary["mean_accuracy"])  # NaN here: labels without pixels
    assert same(shown["mean IoU (defined labels)"], summary["mIoU_defined_labels"])
    assert same(shown["pixel accuracy"], summary["pixel_accuracy"])
    for name, row in payload["per_class"].items():
        assert same(shown[f"IoU {name}"], row["iou"]), name
    # the AP table does not wait forever for detections this set does not have
    model = win.ap_table.ap_model
    assert "…" not in {model.text_of(r, 1) for r in range(model.rowCount())}
    # the result PNGs drawn over the image, as the ground truth's can be
    combo = win.protocol.seg_combo
    assert combo.findData("result") >= 0
    combo.setCurrentIndex(combo.findData("result"))
    win.protocol.act_seg.setChecked(True)
    combo.activated.emit(combo.currentIndex())
    assert win.view.seg_mode == f"result:{st.results[0].results.family_data[0].folder}"
    seg_ids = {str(st.dataset.images.id[i]) for i in st.dataset.image_sets["Segmentation/val"]}
    image = next(i for i in range(len(st.dataset.images)) if st.dataset.images.id[i] in seg_ids)
    st.set_current_image(image)
    qtbot.waitUntil(lambda: win.view.layer("segmentation") is not None, timeout=10_000)
