"""The VOC colour map against an independent transcription of ``VOClabelcolormap``."""

from __future__ import annotations

import numpy as np

from vocviewer.core.palette import voc_colormap, voc_palette_bytes


def _bitget(value: int, bit: int) -> int:
    """MATLAB ``bitget(value, bit)``, 1-based bit position."""
    return (value >> (bit - 1)) & 1


def _reference(n: int) -> list[tuple[int, int, int]]:
    """The devkit's definition step by step: per label, eight rounds that take the three lowest
    bits into R, G, B at position ``7 - j`` and shift the label right by three."""
    out = []
    for i in range(n):
        label, r, g, b = i, 0, 0, 0
        for j in range(8):
            r = r | (_bitget(label, 1) << (7 - j))
            g = g | (_bitget(label, 2) << (7 - j))
            b = b | (_bitget(label, 3) << (7 - j))
            label = label >> 3
        out.append((r, g, b))
    return out


def test_all_256_colours_match_the_definition():
    cmap = voc_colormap(256)
    assert cmap.dtype == np.uint8 and cmap.shape == (256, 3)
    assert [tuple(c) for c in cmap.tolist()] == _reference(256)


def test_well_known_colours():
    cmap = voc_colormap()
    assert cmap[0].tolist() == [0, 0, 0]
    assert cmap[1].tolist() == [128, 0, 0]  # aeroplane
    assert cmap[15].tolist() == [192, 128, 128]  # person
    assert cmap[20].tolist() == [0, 64, 128]  # tvmonitor
    assert cmap[255].tolist() == [224, 224, 192]  # void


def test_colours_are_distinct_and_prefix_consistent():
    cmap = voc_colormap(256)
    assert len({tuple(c) for c in cmap.tolist()}) == 256
    assert np.array_equal(voc_colormap(21), cmap[:21])
    assert voc_colormap(0).shape == (0, 3)
    assert voc_palette_bytes() == cmap.tobytes() and len(voc_palette_bytes()) == 768


def test_matches_the_demo_generator():
    from vocviewer.demo.devkit import voc_colormap as demo_colormap

    assert np.array_equal(demo_colormap(256), voc_colormap(256))
