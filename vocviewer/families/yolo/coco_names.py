"""COCO's 80 detection classes and their ids in COCO's 91-id numbering (ids 12, 26, 29, 30, 45,
66, 68, 69, 71 and 83 are unused), as Ultralytics' ``coco80_to_coco91_class`` maps them."""

from __future__ import annotations

#: the 80 names in class-index order
COCO80_NAMES: tuple[str, ...] = (
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
    "traffic light",
    "fire hydrant",
    "stop sign",
    "parking meter",
    "bench",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "backpack",
    "umbrella",
    "handbag",
    "tie",
    "suitcase",
    "frisbee",
    "skis",
    "snowboard",
    "sports ball",
    "kite",
    "baseball bat",
    "baseball glove",
    "skateboard",
    "surfboard",
    "tennis racket",
    "bottle",
    "wine glass",
    "cup",
    "fork",
    "knife",
    "spoon",
    "bowl",
    "banana",
    "apple",
    "sandwich",
    "orange",
    "broccoli",
    "carrot",
    "hot dog",
    "pizza",
    "donut",
    "cake",
    "chair",
    "couch",
    "potted plant",
    "bed",
    "dining table",
    "toilet",
    "tv",
    "laptop",
    "mouse",
    "remote",
    "keyboard",
    "cell phone",
    "microwave",
    "oven",
    "toaster",
    "sink",
    "refrigerator",
    "book",
    "clock",
    "vase",
    "scissors",
    "teddy bear",
    "hair drier",
    "toothbrush",
)
_UNUSED = frozenset((12, 26, 29, 30, 45, 66, 68, 69, 71, 83))
#: COCO's category id of each of the 80 classes
COCO91_IDS: tuple[int, ...] = tuple(i for i in range(1, 91) if i not in _UNUSED)


def is_coco80(names: tuple[str, ...]) -> bool:
    """Whether ``names`` are COCO's 80 detection classes, in COCO's order."""
    return tuple(names) == COCO80_NAMES


def category_ids(names: tuple[str, ...]) -> list[int]:
    """The COCO category id of each class: COCO's own for its 80 classes, else index + 1."""
    return list(COCO91_IDS) if is_coco80(names) else list(range(1, len(names) + 1))
