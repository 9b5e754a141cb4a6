"""The verdict palettes can be told apart under colour-vision deficiencies.

Each palette's colours are simulated for deuteranopia, protanopia and tritanopia with the
matrices of Machado, Oliveira and Fernandes (2009), severity 1.0, applied to linear RGB (sRGB
decoded, multiplied, clipped, encoded again), then compared with CIEDE2000 (Sharma, Wu and Dalal
2005) in CIELAB (D65). The formula is written out here, independently of the product code, and
checked against Sharma's published test pairs.

Thresholds.
* ``DISTINCT`` = 10 ΔE00 for every pair of ``DISTINCT_ROLES`` (ground truth, missed, TP, each
  false-positive kind, duplicate, ignored), under normal vision and each simulation. One ΔE00 is
  about one just-noticeable difference for large side-by-side patches; our colours are 2-pixel
  outlines and small label tags seen apart on a photograph, where the difference needed to name a
  colour reliably grows several-fold (Szafir 2018, "Modeling Color Difference for Visualization
  Design", IEEE TVCG 24(1): thin marks need ~4-5x the large-patch step). 10 is therefore the
  least that lets a verdict be read from colour alone; Okabe-Ito's set reaches 10.9 at worst.
* ``SECONDARY`` = 5 ΔE00 for pairs involving ``unevaluated`` or ``others``: those are also drawn
  in a line style (thin dashed) and carry words no other role has, so colour is a second cue.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vocviewer.core.palette import DISTINCT_ROLES, PALETTES, ROLE_STYLES, ROLES

DISTINCT = 10.0
SECONDARY = 5.0

#: Machado et al. (2009), severity 1.0, for linear RGB.
MACHADO = {
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "tritanopia": np.array(
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ]
    ),
}
VISIONS = ("normal", *MACHADO)


def to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(rgb: np.ndarray, vision: str) -> np.ndarray:
    """sRGB in [0, 1] (..., 3) as seen with ``vision``."""
    if vision == "normal":
        return rgb
    return to_srgb(to_linear(rgb) @ MACHADO[vision].T)


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB in [0, 1] → CIELAB (D65, 2°)."""
    m = np.array(
        [
            [0.4124564, 0.3575761, 0.1804375],
            [0.2126729, 0.7151522, 0.0721750],
            [0.0193339, 0.1191920, 0.9503041],
        ]
    )
    xyz = to_linear(rgb) @ m.T / np.array([0.95047, 1.0, 1.08883])
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1
    )


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """ΔE00 of CIELAB colours (..., 3), as Sharma, Wu and Dalal (2005) write it."""
    l1, a1, b1 = np.moveaxis(lab1, -1, 0)
    l2, a2, b2 = np.moveaxis(lab2, -1, 0)
    cbar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(cbar**7 / (cbar**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1 = np.degrees(np.arctan2(b1, a1p)) % 360
    h2 = np.degrees(np.arctan2(b2, a2p)) % 360
    chroma0 = c1p * c2p == 0
    dh = h2 - h1
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(chroma0, 0.0, dh)
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    hsum = h1 + h2
    hbar = np.where(
        np.abs(h1 - h2) > 180, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2), hsum / 2
    )
    hbar = np.where(chroma0, hsum, hbar)
    t = (
        1
        - 0.17 * np.cos(np.radians(hbar - 30))
        + 0.24 * np.cos(np.radians(2 * hbar))
        + 0.32 * np.cos(np.radians(3 * hbar + 6))
        - 0.20 * np.cos(np.radians(4 * hbar - 63))
    )
    d_theta = 30 * np.exp(-(((hbar - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cbarp**7 / (cbarp**7 + 25.0**7))
    s_l = 1 + 0.015 * (lbar - 50) ** 2 / np.sqrt(20 + (lbar - 50) ** 2)
    s_c = 1 + 0.045 * cbarp
    s_h = 1 + 0.015 * cbarp * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return np.sqrt(
        (d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h)
    )


def distances(key: str, vision: str) -> dict[tuple[str, str], float]:
    """ΔE00 of every pair of roles of palette ``key`` under ``vision``."""
    lab = to_lab(simulate(PALETTES[key].rgb() / 255.0, vision))
    return {
        (ROLES[i], ROLES[j]): float(ciede2000(lab[i], lab[j]))
        for i, j in itertools.combinations(range(len(ROLES)), 2)
    }


def test_ciede2000_matches_sharmas_test_data():
    pairs = [  # Sharma, Wu, Dalal (2005), table 1: pairs 1, 13, 17, 20, 21, 25
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
        ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0000),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ]
    got = ciede2000(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    np.testing.assert_allclose(got, [p[2] for p in pairs], atol=1e-4)


def test_the_simulation_keeps_grey_and_merges_what_deuteranopes_merge():
    """Greys are fixed points of every matrix (rows sum to 1); pure red and green, far apart for
    normal vision, come close for a deuteranope."""
    grey = np.array([0.5, 0.5, 0.5])
    for vision in MACHADO:
        np.testing.assert_allclose(simulate(grey, vision), grey, atol=2e-3)
    red, green = np.array([0.8, 0.1, 0.1]), np.array([0.1, 0.6, 0.1])
    normal = ciede2000(to_lab(red), to_lab(green))
    deut = ciede2000(to_lab(simulate(red, "deuteranopia")), to_lab(simulate(green, "deuteranopia")))
    assert normal > 60 and deut < normal / 2


@pytest.mark.parametrize("key", ["cvd", "contrast"])
@pytest.mark.parametrize("vision", VISIONS)
def test_palette_roles_are_far_apart(key, vision):
    d = distances(key, vision)
    too_close = {
        pair: round(v, 1)
        for pair, v in d.items()
        if v < (DISTINCT if set(pair) <= set(DISTINCT_ROLES) else SECONDARY)
    }
    assert not too_close, f"{key} under {vision}: {too_close}"


def test_the_classic_palette_fails_where_the_issue_says():
    """Today's colours (before issue 12): TP green and background red become one olive for a
    deuteranope, and poor-localisation violet merges with wrong-class blue."""
    d = distances("classic", "deuteranopia")
    assert d["tp", "fp_background"] < DISTINCT
    assert d["fp_localization", "fp_wrong_class"] < DISTINCT
    assert distances("classic", "normal")["tp", "fp_background"] > 3 * DISTINCT
    assert distances("cvd", "deuteranopia")["tp", "fp_background"] >= DISTINCT


def test_every_distinct_role_has_its_own_line_or_glyph():
    """Besides colour, detections differ by line style and glyph (ground truth and missed
    objects by words: their labels say "missed")."""
    dets = ["tp", "fp_background", "fp_localization", "fp_wrong_class", "duplicate", "ignored"]
    looks = {(ROLE_STYLES[r].line, ROLE_STYLES[r].width) for r in dets}
    assert len(looks) == len(dets)
    glyphs = [ROLE_STYLES[r].glyph for r in dets]
    assert len(set(glyphs)) == len(dets) and all(glyphs)
    names = [ROLE_STYLES[r].name for r in ROLES]
    assert len(set(names)) == len(names)
