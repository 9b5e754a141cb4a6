"""The PR pane's title: its text without markup, and whether it fits the pane."""

from __future__ import annotations

import re

from PySide6.QtGui import QFont, QFontMetrics


def plain_title(html: str) -> str:
    """The title's text without its markup (what an exported figure's title says)."""
    return " ".join(re.sub(r"<[^>]+>", "", html).replace("&nbsp;", " ").split())


def fits_title(html: str, width: int) -> bool:
    """Whether the title's text (10 pt, bold at worst) fits a pane ``width`` pixels wide."""
    font = QFont()
    font.setPointSizeF(10.0)
    font.setBold(True)
    text = re.sub(r"<[^>]+>", "", html).replace("&nbsp;", " ")
    return QFontMetrics(font).horizontalAdvance(text) + 24 <= width
