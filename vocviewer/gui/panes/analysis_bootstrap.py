"""``BootstrapRow``: the Analysis tab's bootstrap of the current result set's mean AP — a button,
the number of replicates, progress with Cancel, and the interval in words
(``models.analysis_tasks.AnalysisJobs.run_bootstrap``)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from vocviewer.benchmarks.view_analyser import SetInterval
from vocviewer.core.results import ResultSet
from vocviewer.gui.models.analysis_tasks import AnalysisJobs


class BootstrapRow(QWidget):
    """Runs ``jobs``' bootstrap of ``current()`` (the shown result set) and shows its interval."""

    def __init__(
        self,
        jobs: AnalysisJobs,
        current: Callable[[], ResultSet | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.jobs, self.current = jobs, current
        self.boot_button = QPushButton("Bootstrap mAP")
        self.boot_button.setToolTip(
            "Resample the images with replacement (seed 0) and give the 95% percentile interval "
            "of the result set's mean AP, as vocviewer analyze --bootstrap N does"
        )
        self.replicates = QSpinBox()
        self.replicates.setRange(10, 1_000_000)
        self.replicates.setValue(1000)
        self.replicates.setSuffix(" replicates")
        self.boot_progress = QProgressBar()
        self.boot_progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.boot_label = QLabel()
        self.boot_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.boot_button)
        row.addWidget(self.replicates)
        row.addWidget(self.boot_progress, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.boot_label)
        self.boot_button.clicked.connect(self.run_bootstrap)
        self.cancel_button.clicked.connect(jobs.cancel_bootstrap)
        jobs.boot_progress.connect(self._on_progress)
        jobs.boot_done.connect(self._on_done)

    def run_bootstrap(self) -> None:
        """Bootstrap the shown result set's mean AP with the chosen number of replicates."""
        res = self.current()
        reason = self.jobs.reason_not_analysed()
        if res is None or reason is not None:
            self.boot_label.setText(reason or "Add a result set first.")
            return
        n = self.replicates.value()
        self.boot_progress.setRange(0, n)
        self.boot_progress.setValue(0)
        self.boot_progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.boot_button.setEnabled(False)
        self.boot_label.setText(f"Bootstrapping {escape(res.name)}: {n} replicates …")
        self.jobs.run_bootstrap(res, n)

    def _on_progress(self, done: int, total: int) -> None:
        self.boot_progress.setRange(0, total)
        self.boot_progress.setValue(done)

    def _on_done(self, out: SetInterval | str) -> None:
        self.boot_progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.boot_button.setEnabled(True)
        if isinstance(out, str):
            self.boot_label.setText(out)
            return
        res = self.current()
        unit = " (percent)" if out.percent else ""
        self.boot_label.setText(
            f"{escape(res.name) if res else ''}: {out.metric}{unit} {out.point:.3f}, "
            f"{out.level:.0%} interval [{out.low:.3f}, {out.high:.3f}] "
            f"({out.replicates} replicates over images, seed {out.seed})"
        )
