"""``BootstrapRow``: the Analysis tab's bootstrap — "Bootstrap mAP" (the current result set) and,
with two or more result sets, "Compare all result sets" (every set on the same resampled images),
the number of replicates, progress with Cancel, and the outcome in words
(``models.analysis_tasks.AnalysisJobs.run_bootstrap``: one worker, the latest run wins). The
intervals, rank ranges and paired differences are on the pane's bootstrap page
(``analysis_compare.CompareView``); the PR plot draws the precision band (``pr_band``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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

from vocviewer.core.results import ResultSet
from vocviewer.gui.models.analysis_tasks import AnalysisJobs, BootstrapOutcome


class BootstrapRow(QWidget):
    """Runs ``jobs``' bootstrap of ``current()`` (the shown result set) or of ``every()`` (all
    loaded result sets) and says how it went."""

    def __init__(
        self,
        jobs: AnalysisJobs,
        current: Callable[[], ResultSet | None],
        every: Callable[[], Sequence[ResultSet]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.jobs, self.current, self.every = jobs, current, every
        self.boot_button = QPushButton("Bootstrap mAP")
        self.boot_button.setToolTip(
            "Resample the images with replacement (seed 0) and give the 95% percentile interval "
            "of the result set's mean AP and of each class's AP, as vocviewer analyze "
            "--bootstrap N does; the PR plot then draws the class's precision band"
        )
        self.compare_button = QPushButton("Compare all result sets")
        self.compare_button.setToolTip(
            "Bootstrap every loaded result set on the same resampled images: each one's interval, "
            "the paired difference A − B with its interval and verdict for every pair, and rank "
            "ranges (three or more sets), as vocviewer analyze --results A B ... --bootstrap N"
        )
        self.compare_button.setVisible(False)
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
        row.addWidget(self.compare_button)
        row.addWidget(self.replicates)
        row.addWidget(self.boot_progress, 1)
        row.addWidget(self.cancel_button)
        row.addStretch(0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.boot_label)
        self.boot_button.clicked.connect(self.run_bootstrap)
        self.compare_button.clicked.connect(self.run_comparison)
        self.cancel_button.clicked.connect(jobs.cancel_bootstrap)
        jobs.boot_progress.connect(self._on_progress)
        jobs.boot_done.connect(self._on_done)

    def update_sets(self) -> None:
        """Offer the comparison when two or more result sets are loaded."""
        self.compare_button.setVisible(len(self.every()) >= 2)

    def run_bootstrap(self) -> None:
        """Bootstrap the shown result set with the chosen number of replicates."""
        res = self.current()
        self._run([res] if res is not None else [])

    def run_comparison(self) -> None:
        """Bootstrap every loaded result set on the same resampled images."""
        self._run(list(self.every()))

    def _run(self, sets: list[ResultSet]) -> None:
        reason = self.jobs.reason_not_analysed()
        if not sets or reason is not None:
            self.boot_label.setText(reason or "Add a result set first.")
            return
        names = [r.name for r in sets]
        n = self.replicates.value()
        self.boot_progress.setRange(0, n)
        self.boot_progress.setValue(0)
        self.boot_progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.boot_button.setEnabled(False)
        self.compare_button.setEnabled(False)
        what = escape(names[0]) if len(sets) == 1 else f"{len(sets)} result sets"
        self.boot_label.setText(f"Bootstrapping {what}: {n} replicates …")
        self.jobs.run_bootstrap(sets, n)

    def _on_progress(self, done: int, total: int) -> None:
        self.boot_progress.setRange(0, total)
        self.boot_progress.setValue(done)

    def _on_done(self, out: BootstrapOutcome | str) -> None:
        self.boot_progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.boot_button.setEnabled(True)
        self.compare_button.setEnabled(True)
        if isinstance(out, str):
            self.boot_label.setText(out)
            return
        b = out.boot
        r = b.result
        if len(out.sets) > 1:
            best = r.leaders(None, b.level)
            self.boot_label.setText(
                f"Compared {len(out.sets)} result sets ({r.replicates} replicates, seed "
                f"{r.seed}); best by {escape(b.metric)} or not significantly worse: "
                f"{escape(', '.join(best))}"
            )
            return
        name = out.names[0]
        i = b.interval(name)
        unit = " (percent)" if i.percent else ""
        self.boot_label.setText(
            f"{escape(name)}: {escape(i.metric)}{unit} {i.point:.3f}, "
            f"{i.level:.0%} interval [{i.low:.3f}, {i.high:.3f}] "
            f"({i.replicates} replicates over images, seed {i.seed})"
        )
