"""SVG figures (``evaluation.figure_svg``, ``evaluation.render.analyze_figures``) rendered to PNG or PDF
with Qt's SVG renderer, for ``vocviewer analyze --format png|pdf`` (the SVG stays the source)."""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QImage, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgRenderer

from vocviewer.gui.window.app import make_app


def svg_to_bytes(svg: str, fmt: str, dpi: int = 150) -> bytes:
    """The bytes of ``svg`` drawn as ``fmt`` (``"png"``: ``dpi`` / 96 pixels per CSS pixel, on
    white; ``"pdf"``: vector, one page of the figure's size). ``ValueError`` for bad SVG."""
    if fmt not in ("png", "pdf"):
        raise ValueError(f"svg_to_bytes writes png or pdf, not {fmt!r}")
    make_app()
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    if not renderer.isValid():
        raise ValueError("Qt could not read the SVG figure")
    size = renderer.defaultSize()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    painter = QPainter()
    if fmt == "png":
        scale = dpi / 96.0
        image = QImage(
            QSize(round(size.width() * scale), round(size.height() * scale)),
            QImage.Format.Format_ARGB32,
        )
        image.fill(QColor("white"))
        painter.begin(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
        painter.end()
        if not image.save(buffer, "PNG"):
            raise ValueError("Qt could not encode the PNG")
        return bytes(buffer.data().data())
    pdf = QPdfWriter(buffer)
    pdf.setResolution(96)
    pdf.setPageSize(
        QPageSize(QSizeF(size.width() * 72 / 96, size.height() * 72 / 96), QPageSize.Unit.Point)
    )
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0))
    if not painter.begin(pdf):
        raise ValueError("Qt could not start the PDF")
    renderer.render(painter, QRectF(0, 0, pdf.width(), pdf.height()))
    painter.end()
    del pdf  # flushes the PDF into the buffer
    return bytes(buffer.data().data())
