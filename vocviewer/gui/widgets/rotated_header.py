"""``RotatedHeader``: a horizontal header whose labels read bottom-to-top, so narrow columns keep
their whole names (the confusion matrix's 20-80 class columns)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader, QWidget

#: the longest label drawn whole (longer ones are elided); pixels around the text
MAX_LABEL_PX, PAD = 120, 8


class RotatedHeader(QHeaderView):
    """Column labels turned 90° counter-clockwise; the header is as tall as the longest label
    (at most ``MAX_LABEL_PX``), each column as wide as a line of text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)

    def _label(self, section: int) -> str:
        model = self.model()
        text = model.headerData(section, self.orientation()) if model is not None else ""
        return str(text or "")

    def sizeHint(self) -> QSize:
        fm = self.fontMetrics()
        model = self.model()
        n = model.columnCount() if model is not None else 0
        longest = max((fm.horizontalAdvance(self._label(c)) for c in range(n)), default=0)
        return QSize(super().sizeHint().width(), min(longest, MAX_LABEL_PX) + 2 * PAD)

    def sectionSizeFromContents(self, logicalIndex: int) -> QSize:
        return QSize(self.fontMetrics().height() + PAD, self.sizeHint().height())

    def paintSection(self, painter: QPainter, rect: QRect, logicalIndex: int) -> None:
        if not rect.isValid():
            return
        opt = QStyleOptionHeader()
        self.initStyleOption(opt)
        opt.rect = rect
        opt.section = logicalIndex
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_HeaderSection, opt, painter, self)
        painter.translate(rect.left(), rect.bottom())
        painter.rotate(-90)
        room = rect.height() - 2 * PAD
        text = self.fontMetrics().elidedText(
            self._label(logicalIndex), Qt.TextElideMode.ElideRight, room
        )
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(
            QRect(PAD, 0, room, rect.width()),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            text,
        )
        painter.restore()
