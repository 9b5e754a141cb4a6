"""Export what is on screen: PR figures (PNG, SVG, PDF), the image with overlays (PNG), AP tables.

Figures are drawn by a standalone pyqtgraph plot (``pr_figure``) from the evaluations, never
shown, so the CLI (``vocviewer export``) and the GUI make identical files. Images and PDFs are
encoded in memory (``QBuffer``, explicit format) and every file goes through ``formats.output``
(unique temp file, atomic replace), which refuses targets inside ``protected``: the dataset's
``protected_roots`` (DESIGN rule 7). Refusals and failures are ``OutputError`` naming the target.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import (
    QBuffer,
    QIODevice,
    QMarginsF,
    QPoint,
    QRectF,
    QSize,
    QSizeF,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QImage, QPageSize, QPainter, QPdfWriter, QPixmap
from PySide6.QtWidgets import QApplication, QGraphicsScene, QWidget

from vocviewer.core.dataset import Dataset
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.evaluation.curve_style import CurveStyle
from vocviewer.evaluation.result import ClassEvaluation, pr_polyline
from vocviewer.formats import output
from vocviewer.gui.models.evaluation import ResultEvaluations
from vocviewer.gui.models.tasks import LoadedResults
from vocviewer.gui.panes.image.label_layout import LabelItem, place_labels
from vocviewer.gui.panes.image.overlays import OverlayOptions, detection_items, ground_truth_items
from vocviewer.gui.panes.image.view import decode_image
from vocviewer.gui.panes.pr.pane import RESULT_COLORS

FIGURE_FORMATS = ("png", "svg", "pdf")
#: (result-set name, evaluation) per curve
Curves = Sequence[tuple[str, ClassEvaluation]]


def write_text(path: str | Path, text: str, protected: Iterable[Path] = ()) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through the guarded writer; returns the resolved path."""
    return output.write_text(path, text, protected)


def save_png(image: QImage | QPixmap, path: str | Path, protected: Iterable[Path] = ()) -> Path:
    """Save ``image`` as PNG at ``path`` through the guarded writer (encoded in memory, so any
    file name Python can write works, a non-UTF-8 one included)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OutputError(Path(path), "Qt could not encode the PNG")
    return output.write_bytes(path, bytes(buffer.data().data()), protected)


def save_screenshot(
    image: QImage | QPixmap, path: str | Path, dataset: Dataset | None
) -> OutputError | None:
    """Save the window's ``image`` as PNG at ``path``, never inside ``dataset``'s folders; the
    ``OutputError`` if it was refused or failed, else ``None``."""
    try:
        save_png(image, path, dataset.protected_roots if dataset is not None else ())
    except OutputError as e:
        return e
    return None


def pr_figure(
    class_name: str,
    curves: Curves,
    size: tuple[int, int] = (640, 480),
    styles: Sequence[CurveStyle] = (),
    legend_corner: str = "upper right",
) -> pg.PlotWidget:
    """A white publication-style PR plot: one line per result set, AP in the legend (or a
    ``CurveStyle`` per curve, as ``figure_svg.pr_figure_svg`` takes them)."""
    plot = pg.PlotWidget(background="w")
    plot.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    plot.resize(*size)
    item = plot.getPlotItem()
    item.setTitle(f"<b>{class_name}</b>", color="#202124", size="11pt")
    item.setLabel("bottom", "Recall", color="#202124")
    item.setLabel("left", "Precision", color="#202124")
    item.showGrid(x=True, y=True, alpha=0.25)
    item.setXRange(0.0, 1.0, padding=0.02)
    item.setYRange(0.0, 1.0, padding=0.02)
    item.hideButtons()
    for side in ("left", "bottom"):
        item.getAxis(side).setPen(pg.mkPen("#5f6368"))
        item.getAxis(side).setTextPen(pg.mkPen("#202124"))
        item.getAxis(side).setStyle(tickFont=QFont("DejaVu Sans", 9))
    legend = item.addLegend(
        offset=(-10, 10) if legend_corner == "upper right" else (10, -10),
        labelTextColor="#202124",
        labelTextSize="10pt",
        brush=pg.mkBrush(255, 255, 255, 230),
        pen=pg.mkPen("#dadce0"),
    )
    looks = [
        styles[i] if i < len(styles) else CurveStyle(RESULT_COLORS[i % len(RESULT_COLORS)])
        for i in range(len(curves))
    ]
    unnamed = [i for i, look in enumerate(looks) if not look.legend]
    for i in unnamed + [i for i in range(len(curves)) if i not in unnamed]:  # named on top
        (name, ev), look = curves[i], looks[i]
        color = QColor(look.color)
        color.setAlphaF(look.opacity)
        line = item.plot(
            *pr_polyline(ev.recall, ev.precision), pen=pg.mkPen(color, width=look.width)
        )
        legend.removeItem(line)
        if look.legend:
            legend.addItem(line, f"{name}  AP {ev.ap:.3f}")
    legend.setZValue(1000)  # over the curves
    item.disableAutoRange()
    item.setXRange(0.0, 1.0, padding=0.02)
    item.setYRange(0.0, 1.0, padding=0.02)
    plot.show()  # off screen: lays the plot out at its size
    QApplication.processEvents()
    return plot


def render_widget(
    widget: QWidget, path: str | Path, fmt: str, dpi: int = 150, protected: Iterable[Path] = ()
) -> Path:
    """Write a widget (a ``pr_figure``, or the image view's viewport) as PNG or PDF.

    The size is the widget's size in points at 96 per inch; ``dpi`` scales PNG pixels. (PR
    figures as SVG are written by ``evaluation.figure_svg``.)"""
    if fmt not in ("png", "pdf"):
        raise ValueError(f"render_widget writes png or pdf, not {fmt!r}")
    w, h = widget.width(), widget.height()

    def paint(painter: QPainter, target: QRectF) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if isinstance(widget, pg.PlotWidget):  # vector output: render the scene, not pixels
            source = widget.getPlotItem().sceneBoundingRect()
            widget.scene().render(painter, target, source)
        else:
            painter.scale(target.width() / w, target.height() / h)
            widget.render(painter, QPoint())

    output.guard_target(path, protected)  # refused before anything is drawn
    if fmt == "png":
        scale = dpi / 96.0
        image = QImage(QSize(round(w * scale), round(h * scale)), QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        paint(painter, QRectF(0, 0, image.width(), image.height()))
        painter.end()
        return save_png(image, path, protected)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pdf = QPdfWriter(buffer)
    pdf.setResolution(96)  # pyqtgraph sizes text in device pixels: keep 1 px = 1/96 in
    pdf.setPageSize(QPageSize(QSizeF(w * 72 / 96, h * 72 / 96), QPageSize.Unit.Point))
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0))
    painter = QPainter()
    if not painter.begin(pdf):
        raise OutputError(Path(path), "Qt could not start the PDF")
    paint(painter, QRectF(0, 0, pdf.width(), pdf.height()))
    if not painter.end():
        raise OutputError(Path(path), "Qt could not finish the PDF")
    del pdf  # flushes the PDF into the buffer
    return output.write_bytes(path, bytes(buffer.data().data()), protected)


def export_pr_figure(
    path: str | Path,
    class_name: str,
    curves: Curves,
    *,
    fmt: str | None = None,
    size: tuple[int, int] = (640, 480),
    dpi: int = 150,
    protected: Iterable[Path] = (),
    styles: Sequence[CurveStyle] = (),
    legend_corner: str = "upper right",
) -> Path:
    """Write the PR figure of one class (format from ``fmt`` or the file suffix: png, svg, pdf),
    or, with ``styles`` (one per curve) and a title for ``class_name``, any set of curves as the
    window draws them (the All-classes plot)."""
    target = output.guard_target(path, protected)  # refused before anything is drawn
    kind = (fmt or target.suffix.lstrip(".")).lower()
    if kind not in FIGURE_FORMATS:
        raise OutputError(Path(path), "use a .png, .svg or .pdf file name")
    if kind == "svg":  # vector text written directly: Qt's SVG generator loses view transforms
        from vocviewer.evaluation.figure_svg import pr_figure_svg  # start-up: urllib via saxutils

        rows = [(name, ev.recall, ev.precision, ev.ap) for name, ev in curves]
        svg = pr_figure_svg(class_name, rows, size, styles=styles, legend_corner=legend_corner)
        return write_text(path, svg, protected)
    plot = pr_figure(class_name, curves, size, styles, legend_corner)
    try:
        return render_widget(plot, path, kind, dpi, protected)
    finally:  # deleted now, while its Python items are whole (the legend outlives the scene:
        # left to the collector, a label's attributes could be cleared before Qt asks it for
        # its size hint, an exception inside the collection)
        legend = plot.getPlotItem().legend
        plot.close()
        if legend is not None:
            shiboken6.delete(legend)
        shiboken6.delete(plot)


def export_image(
    path: str | Path,
    dataset: Dataset,
    image: int,
    loaded: LoadedResults | None = None,
    evals: ResultEvaluations | None = None,
    opts: OverlayOptions | None = None,
    protected: Iterable[Path] = (),
) -> Path:
    """Write image row ``image`` with its ground truth and detections drawn, as PNG (image size;
    a grey placeholder of the annotated size if the file is missing)."""
    output.guard_target(path, protected)  # refused before the image is decoded
    opts = opts or OverlayOptions(threshold=0.0)
    scene = QGraphicsScene()
    try:
        qimage = decode_image(dataset.images.path[image])
        scene.addPixmap(QPixmap.fromImage(qimage))
        w, h = qimage.width(), qimage.height()
    except (OSError, FormatError):  # missing, truncated, a decompression bomb: placeholder
        w = int(dataset.images.width[image]) or 500
        h = int(dataset.images.height[image]) or 375
        scene.addRect(QRectF(0, 0, w, h), pg.mkPen("#80868b"), pg.mkBrush("#5f6368"))
    items = ground_truth_items(dataset, image, opts) if opts.show_gt else []
    if loaded is not None and evals is not None:
        items += detection_items(dataset, loaded, evals, image, opts)
    kept = place_labels([i for i in items if isinstance(i, LabelItem)], opts.pixel, (0, 0, w, h))
    items = [i for i in items if not isinstance(i, LabelItem) or i in kept]
    for it in items:
        scene.addItem(it)

    out = QImage(QSize(w, h), QImage.Format.Format_RGB32)
    out.fill(QColor("white"))
    painter = QPainter(out)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(0, 0, w, h), QRectF(0, 0, w, h))
    painter.end()
    return save_png(out, path, protected)
