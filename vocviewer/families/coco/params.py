"""COCOeval's ``Params`` as a frozen dataclass: IoU and recall thresholds, detection caps, area
ranges, the image / category subset, and the fixes for pycocotools' quirks (off by default)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CocoParams:
    """COCOeval ``Params``. Build with ``CocoParams.for_task("bbox" | "segm" | "keypoints" |
    "boundary")``; ``"boundary"`` is Boundary AP (boundary-iou-api's ``iouType="boundary"``:
    segm with the IoU of a non-crowd pair min(mask IoU, boundary IoU)) at ``dilation_ratio``
    (of the image diagonal; the other tasks ignore it).

    ``iou_thresholds`` / ``recall_thresholds`` are built with ``np.linspace`` exactly as
    pycocotools builds them; area bounds are in pixels² and inclusive at both ends.
    ``image_ids`` / ``category_ids`` restrict the evaluation (``None``: all). ``fix_id0`` fixes the
    id-0 quirk (a detection matched to a GT with annotation id 0 counts as unmatched); off by
    default, as in pycocotools. ``fix_keypoints_no_cats`` fixes another quirk: with ``use_cats``
    off, pycocotools' ``computeOks`` finds no pairs, so every keypoint detection is unmatched.
    """

    iou_type: str = "bbox"
    use_cats: bool = True
    iou_thresholds: FloatArray = field(
        default_factory=lambda: np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1)
    )
    recall_thresholds: FloatArray = field(
        default_factory=lambda: np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1)
    )
    max_dets: tuple[int, ...] = (1, 10, 100)
    area_ranges: tuple[tuple[float, float], ...] = (
        (0.0**2, 1e5**2),
        (0.0**2, 32.0**2),
        (32.0**2, 96.0**2),
        (96.0**2, 1e5**2),
    )
    area_names: tuple[str, ...] = ("all", "small", "medium", "large")
    image_ids: tuple[int, ...] | None = None
    category_ids: tuple[int, ...] | None = None
    fix_id0: bool = False
    fix_keypoints_no_cats: bool = False
    dilation_ratio: float = 0.02

    @classmethod
    def for_task(cls, iou_type: str, *, use_cats: bool = True, **kw: object) -> CocoParams:
        """pycocotools' defaults for ``iou_type``; keyword arguments override fields."""
        if iou_type not in ("bbox", "segm", "keypoints", "boundary"):
            raise ValueError(
                f"iou_type must be bbox, segm, keypoints or boundary, not {iou_type!r}"
            )
        base: dict[str, object] = {"iou_type": iou_type, "use_cats": use_cats}
        if iou_type == "keypoints":
            base.update(
                max_dets=(20,),
                area_ranges=((0.0**2, 1e5**2), (32.0**2, 96.0**2), (96.0**2, 1e5**2)),
                area_names=("all", "medium", "large"),
            )
        base.update(kw)
        return cls(**base)  # type: ignore[arg-type]


def reading_task(task: str) -> str:
    """What the readers build for ``task``: masks (``"segm"``) for Boundary AP, else ``task``."""
    return "segm" if task == "boundary" else task
