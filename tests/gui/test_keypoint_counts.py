"""Keypoint evaluation in the window with another count than COCO's 17: a message naming the
file (as ``vocviewer eval --task keypoints`` gives), never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.timeout(120)


def _files(tmp_path: Path, points: int) -> tuple[Path, Path, Path]:
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (64, 48)).save(images / "a.jpg")
    kp = [v for i in range(points) for v in (10 + i, 10 + i, 2)]
    ann = tmp_path / "person_keypoints_val.json"
    ann.write_text(
        json.dumps(
            {
                "images": [{"id": 1, "file_name": "a.jpg", "width": 64, "height": 48}],
                "categories": [
                    {
                        "id": 1,
                        "name": "person",
                        "keypoints": [f"p{i}" for i in range(points)],
                        "skeleton": [],
                    }
                ],
                "annotations": [
                    {
                        "id": 1,
                        "image_id": 1,
                        "category_id": 1,
                        "bbox": [5, 5, 30, 30],
                        "area": 900,
                        "iscrowd": 0,
                        "keypoints": kp,
                        "num_keypoints": points,
                    }
                ],
            }
        )
    )
    res = tmp_path / "kp_results.json"
    res.write_text(json.dumps([{"image_id": 1, "category_id": 1, "keypoints": kp, "score": 0.9}]))
    return ann, res, images


def test_three_keypoints_give_a_message_naming_the_annotation_file(
    qtbot, make_window, tmp_path: Path
) -> None:
    ann, res, images = _files(tmp_path, 3)
    win = make_window()
    posted: list = []
    win.state.messages_posted.connect(posted.extend)
    win.open_dataset(ann, (res,), None, images=images)
    st = win.state
    qtbot.waitUntil(lambda: st.dataset is not None and bool(st.results), timeout=30_000)
    qtbot.waitUntil(st.is_idle, timeout=30_000)
    errors = [m for m in posted if m.level == "error"]
    assert len(errors) == 1, [m.text for m in posted]
    text = errors[0].text
    assert str(ann) in text and "17 keypoints" in text and "has 3 per entry" in text, text
    assert "internal error" not in text and not errors[0].details
