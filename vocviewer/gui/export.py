"""Export what is on screen: PR figures (PNG, SVG, PDF), the image with overlays (PNG), AP tables.

Figures are drawn by a standalone pyqtgraph plot (``pr_figure``) from the evaluations, never
shown, so the CLI (``vocviewer export``) and the GUI make identical files. Every write is atomic
(a temp file beside the target, then ``os.replace``) and refuses targets inside the dataset folder
(DESIGN rule 7).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import (
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
from vocviewer.core.errors import FormatError
from vocviewer.evaluation.figure_svg import pr_figure_svg
from vocviewer.evaluation.result import ClassEvaluation, pr_polyline
from vocviewer.formats import output
from vocviewer.gui.image_view import decode_image
from vocviewer.gui.overlays import OverlayOptions, detection_items, ground_truth_items, label_space
from vocviewer.gui.pr_pane import RESULT_COLORS
from vocviewer.gui.tasks import LoadedResults, ResultEvaluations

FIGURE_FORMATS = ("png", "svg", "pdf")
#: (result-set name, evaluation) per curve
Curves = Sequence[tuple[str, ClassEvaluation]]


def check_target(path: str | Path, dataset_root: Path | None) -> Path:
    """``path`` resolved; ``ValueError`` if it lies inside ``dataset_root``."""
    target = Path(path).resolve()
    if dataset_root is not None:
        root = Path(dataset_root).resolve()
        if target == root or root in target.parents:
            raise ValueError(f"refusing to write {target} inside the dataset folder {root}")
    return target


def atomic_write(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a scratch file, then store its bytes at ``path`` atomically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".vocviewer-", dir=target.parent) as scratch:
        tmp = Path(scratch) / f"out{target.suffix}"
        write(tmp)
        return output.write_bytes(target, tmp.read_bytes())


def write_text(path: str | Path, text: str) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    return output.write_text(target, text)


def pr_figure(class_name: str, curves: Curves, size: tuple[int, int] = (640, 480)) -> pg.PlotWidget:
    """A white publication-style PR plot: one line per result set, AP in the legend."""
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
    legend = item.addLegend(offset=(-10, 10), labelTextColor="#202124", labelTextSize="10pt",
                            brush=pg.mkBrush(255, 255, 255, 230), pen=pg.mkPen("#dadce0"))  # fmt: skip
    for i, (name, ev) in enumerate(curves):
        pen = pg.mkPen(RESULT_COLORS[i % len(RESULT_COLORS)], width=2.2)
        line = item.plot(*pr_polyline(ev.recall, ev.precision), pen=pen)
        legend.removeItem(line)
        legend.addItem(line, f"{name}  AP {ev.ap:.3f}")
    item.disableAutoRange()
    item.setXRange(0.0, 1.0, padding=0.02)
    item.setYRange(0.0, 1.0, padding=0.02)
    plot.show()  # off screen: lays the plot out at its size
    QApplication.processEvents()
    return plot


def render_widget(widget: QWidget, path: str | Path, fmt: str, dpi: int = 150) -> Path:
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

    def write(tmp: Path) -> None:
        if fmt == "png":
            scale = dpi / 96.0
            image = QImage(QSize(round(w * scale), round(h * scale)), QImage.Format.Format_ARGB32)
            image.fill(QColor("white"))
            painter = QPainter(image)
            paint(painter, QRectF(0, 0, image.width(), image.height()))
            painter.end()
            if not image.save(str(tmp), "PNG"):
                raise OSError(f"cannot write {tmp}")
        else:
            pdf = QPdfWriter(str(tmp))
            pdf.setResolution(96)  # pyqtgraph sizes text in device pixels: keep 1 px = 1/96 in
            pdf.setPageSize(QPageSize(QSizeF(w * 72 / 96, h * 72 / 96), QPageSize.Unit.Point))
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0))
            painter = QPainter(pdf)
            paint(painter, QRectF(0, 0, pdf.width(), pdf.height()))
            painter.end()

    return atomic_write(path, write)


def export_pr_figure(
    path: str | Path,
    class_name: str,
    curves: Curves,
    *,
    fmt: str | None = None,
    size: tuple[int, int] = (640, 480),
    dpi: int = 150,
    dataset_root: Path | None = None,
) -> Path:
    """Write the PR figure of one class (format from ``fmt`` or the file suffix)."""
    target = check_target(path, dataset_root)
    kind = (fmt or target.suffix.lstrip(".")).lower()
    if kind == "svg":  # vector text written directly: Qt's SVG generator loses view transforms
        rows = [(name, ev.recall, ev.precision, ev.ap) for name, ev in curves]
        return write_text(target, pr_figure_svg(class_name, rows, size))
    plot = pr_figure(class_name, curves, size)
    try:
        return render_widget(plot, target, kind, dpi)
    finally:
        plot.close()
        plot.deleteLater()


def export_image(
    path: str | Path,
    dataset: Dataset,
    image: int,
    loaded: LoadedResults | None = None,
    evals: ResultEvaluations | None = None,
    opts: OverlayOptions | None = None,
    dataset_root: Path | None = None,
) -> Path:
    """Write image row ``image`` with its ground truth and detections drawn, as PNG (image size;
    a grey placeholder of the annotated size if the file is missing)."""
    target = check_target(path, dataset_root)
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
    taken = label_space(opts)
    items = ground_truth_items(dataset, image, opts, taken) if opts.show_gt else []
    if loaded is not None and evals is not None:
        items += detection_items(dataset, loaded, evals, image, opts, taken)
    for it in items:
        scene.addItem(it)

    def write(tmp: Path) -> None:
        out = QImage(QSize(w, h), QImage.Format.Format_RGB32)
        out.fill(QColor("white"))
        painter = QPainter(out)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        scene.render(painter, QRectF(0, 0, w, h), QRectF(0, 0, w, h))
        painter.end()
        if not out.save(str(tmp), "PNG"):
            raise OSError(f"cannot write {tmp}")

    return atomic_write(target, write)
