"""Colour maps: the PASCAL VOC label colour map (the devkit's ``VOClabelcolormap``).

Label ``k`` gets its colour by spreading the bits of ``k`` over the three channels: bit ``3j``
goes to red, bit ``3j + 1`` to green and bit ``3j + 2`` to blue, each at bit position ``7 - j``
of its channel (``j = 0..7``), so label bits fill each channel from the most significant bit down.
Label 0 (background) is black, 1 is ``(128, 0, 0)`` and 255 (void) ``(224, 224, 192)``.
The devkit returns the map divided by 255; here it stays ``uint8`` as a PNG palette needs it.

The verdict palettes (``PALETTES``) colour what the window draws: ground truth, missed objects,
true positives, each kind of false positive, ignored detections; ``ROLE_STYLES`` gives each a line
style and a glyph besides its colour. Colours are ``#rrggbb`` sRGB strings; Qt is applied in
``gui.widgets.verdict_style``.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The "void" / "don't care" label of VOC segmentation ground truth.
VOID_LABEL = 255
#: Number of segmentation labels: background plus the 20 classes.
VOC_SEG_LABELS = 21


def voc_colormap(n: int = 256) -> npt.NDArray[np.uint8]:
    """The colours of labels ``0 .. n - 1``, ``uint8 (n, 3)`` RGB.

    >>> voc_colormap(3).tolist()
    [[0, 0, 0], [128, 0, 0], [0, 128, 0]]
    >>> voc_colormap()[255].tolist()
    [224, 224, 192]
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    ids = np.arange(n, dtype=np.int64)
    cmap = np.zeros((n, 3), dtype=np.int64)
    for j in range(8):
        for channel in range(3):
            cmap[:, channel] |= ((ids >> (3 * j + channel)) & 1) << (7 - j)
    return cmap.astype(np.uint8)


def voc_palette_bytes() -> bytes:
    """The 256-entry colour map as the 768 bytes ``PIL.Image.putpalette`` takes."""
    return voc_colormap(256).tobytes()


# --- verdict palettes --------------------------------------------------------------------------
#: What a box, a label or a PR dot can say, in drawing order of the legends. The blue kind has
#: one name, ``"wrong class"``: the diagnosis' ``SIMILAR`` and ``OTHER`` false positives (on an
#: object of a similar / of any other class) are both a wrong class; the inspector says which.
ROLES = (
    "gt",
    "missed",
    "tp",
    "fp_background",
    "fp_localization",
    "fp_wrong_class",
    "duplicate",
    "ignored",
    "unevaluated",
    "others",
)
#: The roles whose colours must be told apart by colour alone (the rest also differ in line).
DISTINCT_ROLES = ROLES[:8]
#: Line styles by name: ``solid``, ``dash``, ``dot``, ``dashdot``, ``dashdotdot``.
LINE_STYLES = ("solid", "dash", "dot", "dashdot", "dashdotdot")


@dataclass(frozen=True)
class RoleStyle:
    """How a role is drawn besides its colour: ``name`` (the words in labels and legends),
    ``line`` (one of ``LINE_STYLES``), ``glyph`` (a pyqtgraph symbol: ``o``, ``x``, ``t1``,
    ``s``, ``d``, ``+``; ``""`` none), ``char`` (the glyph as a text character) and ``width``
    (line width factor)."""

    name: str
    line: str
    glyph: str
    char: str
    width: float = 1.0


#: Palette-independent encoding of every role: line style and glyph per verdict, so that no
#: verdict relies on hue alone.
ROLE_STYLES: dict[str, RoleStyle] = {
    "gt": RoleStyle("ground truth", "solid", "", "▭"),
    "missed": RoleStyle("missed", "solid", "", "◌"),
    "tp": RoleStyle("TP", "solid", "o", "●"),
    "fp_background": RoleStyle("background", "dash", "x", "✕"),
    "fp_localization": RoleStyle("poor localisation", "dot", "t1", "▲"),
    "fp_wrong_class": RoleStyle("wrong class", "dashdotdot", "d", "◆"),
    "duplicate": RoleStyle("duplicate", "dashdot", "s", "■"),
    "ignored": RoleStyle("ignored", "solid", "+", "+", 0.5),
    "unevaluated": RoleStyle("not evaluated", "dash", "", "·", 0.5),
    "others": RoleStyle("others (not evaluated)", "dash", "", "▭"),
}


@dataclass(frozen=True)
class VerdictPalette:
    """Colours of the ``ROLES``: ``colors`` role → ``#rrggbb``; ``title`` names it in menus."""

    key: str
    title: str
    colors: dict[str, str]

    def rgb(self) -> npt.NDArray[np.uint8]:
        """``uint8 (len(ROLES), 3)`` sRGB colours in ``ROLES`` order."""
        return np.array(
            [[int(self.colors[r][i : i + 2], 16) for i in (1, 3, 5)] for r in ROLES],
            dtype=np.uint8,
        )


def _palette(key: str, title: str, *hexes: str) -> VerdictPalette:
    return VerdictPalette(key, title, dict(zip(ROLES, hexes, strict=True)))


#: The palettes of View ▸ Palette. ``cvd``, the default, is Okabe and Ito's colour-universal set
#: (2008: sky blue, yellow, bluish green, vermillion, reddish purple, blue, orange) plus light
#: and mid greys; ``contrast`` brighter, saturated colours tuned by the same distance test
#: (tests/core/test_palette_cvd.py); ``classic`` the colours before issue 12 (green TP, red
#: background FP), which deuteranopes cannot tell apart.
PALETTES: dict[str, VerdictPalette] = {
    p.key: p
    for p in (
        _palette(
            "cvd",
            "Colour-blind safe",
            *("#56B4E9", "#F0E442", "#009E73", "#D55E00", "#CC79A7"),
            *("#0072B2", "#E69F00", "#DDDDDD", "#FFFFFF", "#999999"),
        ),
        _palette(
            "classic",
            "Classic",
            *("#26C6DA", "#FFD600", "#43A047", "#E53935", "#AA00FF"),
            *("#2962FF", "#FB8C00", "#9E9E9E", "#CE93D8", "#B0BEC5"),
        ),
        _palette(
            "contrast",
            "High contrast",
            *("#55EEFF", "#FFFF00", "#00CC99", "#FF3300", "#FF66CC"),
            *("#0055FF", "#FFAA00", "#FFFFFF", "#CCCCCC", "#AAAAAA"),
        ),
    )
}
DEFAULT_PALETTE = "cvd"


def category_tint(k: int, saturation: float = 0.3) -> tuple[int, int, int]:
    """A pale tint for category ``k`` (golden-ratio hue steps at low ``saturation``, full value):
    instance masks and keypoints take these, so that no mask reads as a verdict colour."""
    h = (0.13 + k * 0.618034) % 1.0
    r, g, b = colorsys.hsv_to_rgb(h, saturation, 1.0)
    return round(r * 255), round(g * 255), round(b * 255)
