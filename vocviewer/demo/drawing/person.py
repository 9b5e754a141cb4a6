"""Persons: a skeleton per pose (the VOC actions and plain standing), drawn with head, hands and
feet as person-layout parts, held props hinting at the action, and riders placed on a vehicle.
"""

from __future__ import annotations

from dataclasses import replace

from vocviewer.demo.drawing.shapes import DARK, HUB, VIVID, Frame, Point, Rng, Shape, pick, shade

# Person skeletons: (x, y) per joint of _JOINTS in body heights from the hip, +x = facing
# direction; limb 1 = left / far, limb 2 = right / near. PROFILE poses are side views.
_JOINTS = ("head", "el1", "ha1", "el2", "ha2", "kn1", "ft1", "kn2", "ft2")


_LEGS = (-0.05, 0.24, -0.06, 0.47, 0.05, 0.24, 0.06, 0.47)
_POSES = {
    "other": (0, -0.42, -0.12, -0.15, -0.13, 0.02, 0.12, -0.15, 0.13, 0.02, *_LEGS),
    "other_nohands": (0, -0.42, -0.11, -0.14, -0.075, -0.01, 0.11, -0.14, 0.075, -0.01, *_LEGS),
    "walking": (
        0.02,
        -0.42,
        -0.05,
        -0.16,
        -0.09,
        -0.03,
        0.05,
        -0.16,
        0.1,
        -0.03,
        -0.04,
        0.24,
        -0.12,
        0.46,
        0.07,
        0.23,
        0.13,
        0.47,
    ),
    "running": (
        0.07,
        -0.41,
        -0.07,
        -0.14,
        -0.02,
        -0.04,
        0.13,
        -0.18,
        0.17,
        -0.3,
        -0.06,
        0.22,
        -0.2,
        0.36,
        0.16,
        0.12,
        0.12,
        0.33,
    ),
    "jumping": (
        0,
        -0.42,
        -0.15,
        -0.44,
        -0.2,
        -0.58,
        0.15,
        -0.44,
        0.2,
        -0.58,
        -0.12,
        0.16,
        -0.09,
        0.33,
        0.12,
        0.16,
        0.09,
        0.33,
    ),
    "phoning": (0, -0.42, -0.12, -0.15, -0.13, 0.02, 0.15, -0.22, 0.085, -0.4, *_LEGS),
    "takingphoto": (0, -0.42, -0.15, -0.25, -0.075, -0.4, 0.15, -0.25, 0.075, -0.4, *_LEGS),
    "reading": (0, -0.42, -0.13, -0.13, -0.1, -0.2, 0.13, -0.13, 0.1, -0.2, *_LEGS),
    "playinginstrument": (0, -0.42, -0.14, -0.2, -0.18, -0.3, 0.13, -0.12, 0.04, -0.1, *_LEGS),
    "usingcomputer": (
        0.02,
        -0.42,
        0.04,
        -0.12,
        0.15,
        -0.07,
        0.06,
        -0.12,
        0.17,
        -0.06,
        -0.01,
        0.24,
        -0.02,
        0.47,
        0.02,
        0.24,
        0.03,
        0.47,
    ),
}
PROFILE = ("walking", "running", "usingcomputer", "ridingbike", "ridinghorse")
#: Where a rider sits on a vehicle figure (unit coords): seat, grip, foot; rider / vehicle height.
RIDE = {
    "bicycle": ((0.35, 0.17), (0.62, 0.13), (0.47, 0.78), 1.25),
    "motorbike": ((0.3, 0.35), (0.66, 0.13), (0.45, 0.68), 1.2),
    "horse": ((0.42, 0.27), (0.67, 0.2), (0.48, 0.62), 0.85),
}
SKIN = ((240, 200, 170), (220, 170, 130), (170, 120, 80), (110, 75, 50))
HAIR = ((40, 30, 20), (90, 60, 30), (200, 160, 90), (20, 20, 20), (150, 150, 150))
PANTS = ((40, 50, 90), (30, 30, 30), (90, 80, 70), (60, 90, 60), (150, 130, 100))


def _props(f: Frame, action: str) -> list[Shape]:
    """Held objects hinting at the action (background in the masks), in body-frame units."""
    paper, wood = (245, 245, 240), (200, 130, 60)
    props = {
        "phoning": [f.rect(DARK, 0.065, -0.46, 0.105, -0.36)],
        "takingphoto": [f.rect(DARK, -0.07, -0.45, 0.07, -0.36), f.circ(HUB, 0, -0.405, 0.028)],
        "reading": [
            f.rect((150, 40, 40), -0.13, -0.28, 0.13, -0.13),
            f.rect(paper, -0.12, -0.27, -0.006, -0.14),
            f.rect(paper, 0.006, -0.27, 0.12, -0.14),
        ],
        "playinginstrument": [
            f.line((90, 55, 30), 0.03, (-0.05, -0.17), (-0.24, -0.33)),
            f.ell(wood, 0.03, -0.07, 0.1, 0.075),
            f.ell(wood, -0.03, -0.15, 0.075, 0.06),
            f.circ(DARK, 0, -0.11, 0.025),
        ],
        "usingcomputer": [
            f.line(HUB, 0.025, (0.08, -0.05), (0.34, -0.05)),
            f.line(DARK, 0.02, (0.34, -0.05), (0.38, -0.25)),
        ],
    }
    return [replace(s, prop=True) for s in props.get(action, [])]


def rider_joints(grip: Point, foot: Point) -> dict[str, Point]:
    """Skeleton of a seated rider, hip at the seat; ``grip``/``foot`` in body heights from it."""
    el, kn = ((0.09 + grip[0]) / 2, grip[1] / 2 - 0.105), (foot[0] / 2 + 0.12, foot[1] / 2 - 0.06)
    return {
        "head": (0.12, -0.41),
        "el1": el,
        "ha1": (grip[0] - 0.02, grip[1] - 0.01),
        "el2": el,
        "ha2": grip,
        "kn1": kn,
        "ft1": (foot[0] - 0.06, foot[1] - 0.04),
        "kn2": kn,
        "ft2": foot,
    }


def person(f: Frame, pose: str, rng: Rng, joints: dict | None = None) -> list[Shape]:
    """A person in ``pose`` (a VOC action, "other_nohands", or ``joints``) around the hip: ``f``
    has its origin at the hip and ``w = h =`` body height (``Frame(hx - H if flip else hx, hy, H,
    H, flip)``). Head, hand and foot shapes carry ``part`` tags; held props ``prop=True``."""
    p = _POSES.get(pose, _POSES["other"])
    j = joints or dict(zip(_JOINTS, zip(p[0::2], p[1::2], strict=True), strict=True))
    skin, shirt, hair, pants = (pick(rng, c) for c in (SKIN, (*VIVID, DARK), HAIR, PANTS))
    side = pose in PROFILE
    ws, wh = (0.065, 0.06) if side else (0.1, 0.075)
    hx, (x, y) = (0.0 if side else wh * 0.6), j["head"]
    nx, ny = 0.75 * x, 0.75 * y
    eyes = ((x + 0.04, y),) if side else ((x - 0.025, y), (x + 0.025, y))
    return [
        f.line(shade(pants, 0.85), 0.075, (-hx, 0), j["kn1"], j["ft1"]),
        f.line(pants, 0.075, (hx, 0), j["kn2"], j["ft2"]),
        f.poly(shirt, (nx - ws, ny + 0.01), (nx + ws, ny + 0.01), (wh, 0.05), (-wh, 0.05)),
        f.line(shade(shirt, 0.9), 0.055, (nx - 0.8 * ws, ny + 0.03), j["el1"], j["ha1"]),
        f.line(shirt, 0.055, (nx + 0.8 * ws, ny + 0.03), j["el2"], j["ha2"]),
        replace(f.ell(hair, x - (0.014 if side else 0), y - 0.022, 0.078, 0.062), part="head"),
        replace(f.circ(skin, x, y + 0.006, 0.068), part="head"),
        *[replace(f.circ(DARK, *e, 0.009), part="head") for e in (eyes if f.h > 70 else ())],
        *_props(f, pose),
        *[
            replace(f.circ(skin, *j[f"ha{i}"], 0.028), part=f"hand{i}")
            for i in ((1, 2) if pose != "other_nohands" else ())
        ],
        *[
            replace(
                f.ell(
                    DARK,
                    j[f"ft{i}"][0] + (0.025 if side else 0.024 * i - 0.036),
                    j[f"ft{i}"][1] + 0.005,
                    0.045,
                    0.022,
                ),
                part=f"foot{i}",
            )
            for i in (1, 2)
        ],
    ]
