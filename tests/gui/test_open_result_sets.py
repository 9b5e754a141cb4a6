"""``vocviewer open DATASET --results A B`` in the real window (offscreen, the CLI's own path to
it): each path is one result set, for COCO's JSON files as for VOC's folders; a competition's
per-class files together are one set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli_result_sets import write_coco
from vocviewer.cli import main


def open_and_look(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *argv: Any
) -> list[dict[str, Any]]:
    """Run ``vocviewer open ... --screenshot``; per result set of the window once everything
    loaded and evaluated (as the screenshot is taken): its files and evaluated classes."""
    from vocviewer.gui.window import app

    seen: list[dict[str, Any]] = []
    save_now = app.ScreenshotWhenReady.save_now

    def look_then_save(self: Any) -> None:
        st = self.window.state
        seen.extend(
            {
                "files": [Path(f).name for f in loaded.results.files],
                "classes": len(st.evaluations[i].det),
                "ap_header": _header(self.window.ap_table.model(), 1 + i),
            }
            for i, loaded in enumerate(st.results)
        )
        save_now(self)

    monkeypatch.setattr(app.ScreenshotWhenReady, "save_now", look_then_save)
    shot = tmp_path / "window.png"
    assert main(["open", *map(str, argv), "--screenshot", str(shot)]) == 0
    assert shot.is_file()
    return seen


def _header(model: Any, column: int) -> str:
    from PySide6.QtCore import Qt

    return str(model.headerData(column, Qt.Orientation.Horizontal))


def test_open_two_coco_result_files_gives_two_sets(qapp, monkeypatch, tmp_path):
    ann, images, dets = write_coco(tmp_path / "coco")
    a, b = tmp_path / "detA.json", tmp_path / "detB.json"
    a.write_text(json.dumps(dets))
    b.write_text(json.dumps(dets[::2]))
    seen = open_and_look(monkeypatch, tmp_path, ann, "--images", images, "--results", a, b)
    assert [s["files"] for s in seen] == [["detA.json"], ["detB.json"]]  # was: neither loaded
    assert all(s["classes"] == 2 for s in seen)  # both evaluated, cat and dog
    assert [s["ap_header"][:4] for s in seen] == ["detA", "detB"]  # an AP column per set


def test_open_voc_folders_and_a_competitions_files(qapp, demo, monkeypatch, tmp_path):
    main_dir = demo.results_dir / "Main"
    comp = sorted(main_dir.glob("comp4_det_val_*.txt"))
    seen = open_and_look(
        monkeypatch, tmp_path, demo.year_dir, "--results", main_dir, *comp, "--image-set", "val"
    )
    assert len(seen) == 2
    assert len(seen[0]["files"]) == 40 and seen[1]["files"] == [f.name for f in comp]
    assert seen[0]["classes"] == seen[1]["classes"] == 20
