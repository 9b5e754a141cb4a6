"""``SuspectsPane``: the label-error queue (``evaluation.label_errors``) of the open dataset.

Computed in a worker from every result set's ``Evidence`` once its evaluation is complete (and
again when the choice re-shapes it), never from a second evaluation — only while the tab is
shown (as the Analysis tab does), else when it next is. A row per suspect,
strongest first: strength, kind, image, class, its tags and why it is one; the kind chooser
narrows the list. Choosing a row opens the image with the suspect's object (or, for a missing
annotation, its detection) selected; ``step`` walks the list (the window's walk keys, while the
tab is in front). ``target_of`` names what tagging a suspect tags, with the fix it stands for.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QHeaderView, QLabel, QVBoxLayout, QWidget

from vocviewer.core.dataset import Dataset
from vocviewer.core.tags import Fix, Target
from vocviewer.evaluation.label_errors import KIND_LABELS, KINDS, Suspect
from vocviewer.families.suspects import queue_of
from vocviewer.gui.models.state import AppState
from vocviewer.gui.models.tags import TagsModel
from vocviewer.gui.models.worker import Worker
from vocviewer.gui.widgets.rows_table import RowsTable

HEADERS = ("Strength", "Kind", "Image", "Class", "Tags", "Why")
#: Each kind in a word or two, for the table's narrow column.
SHORT = {
    "missing": "missing",
    "wrong_label": "wrong label",
    "loose_box": "loose box",
    "duplicate": "duplicate",
}
#: The tag that confirms each kind of suspect (its fix goes with it, or with "label error").
KIND_TAGS = {
    "missing": "missing annotation",
    "wrong_label": "wrong class",
    "loose_box": "loose box",
    "duplicate": "label error",
}


def target_of(dataset: Dataset, suspect: Suspect, set_index: int) -> tuple[Target, Fix]:
    """What tagging ``suspect`` tags and the fix it asks for: a missing annotation's strongest
    detection (in window result set ``set_index``: add its box), else the object (relabel to the
    class detected, re-box to the detectors' box, delete the second of a duplicate pair)."""
    image = str(dataset.images.id[suspect.image])
    if suspect.kind == "missing":
        row = suspect.support[0].detection if suspect.support else -1
        name = dataset.classes[suspect.class_index]
        return Target("detection", image, row, set_index), Fix("add", name, suspect.box)
    target = Target("object", image, int(dataset.objects.order_in_image[suspect.object]))
    if suspect.kind == "wrong_label":
        return target, Fix("relabel", dataset.classes[suspect.suggested_class])
    if suspect.kind == "loose_box":
        return target, Fix("rebox", None, suspect.suggested_box)
    return target, Fix("delete")


class SuspectsPane(QWidget):
    """The queue over ``state`` with the tags of ``tags``.

    Signals
    -------
    computed(int)
        A new queue arrived (its number of suspects).
    zoom_requested()
        Enter / double-click on a row.
    """

    computed = Signal(int)
    zoom_requested = Signal()

    def __init__(self, state: AppState, tags: TagsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state, self.tags = state, tags
        self.suspects: tuple[Suspect, ...] = ()
        self.set_names: list[str] = []  # window result-set index -> its name in the queue
        self.kind = QComboBox()
        self.kind.addItem("Every kind", "")
        for kind in KINDS:
            self.kind.addItem(KIND_LABELS[kind].capitalize(), kind)
        self.count = QLabel("")
        self.table = RowsTable(HEADERS, long=True)  # thousands of suspects on a large set
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(len(HEADERS) - 1, QHeaderView.ResizeMode.Stretch)
        digit = self.table.fontMetrics().horizontalAdvance("0")
        for col, width in enumerate((7, 10, 12, 10, 10)):
            header.resizeSection(col, digit * width)
        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 2)
        top.addWidget(self.kind)
        top.addWidget(self.count, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        self.kind.currentIndexChanged.connect(self.refresh_rows)
        self.table.row_chosen.connect(self.go_to)
        self.table.row_activated.connect(lambda _k: self.zoom_requested.emit())
        tags.changed.connect(self.refresh_rows)
        state.dataset_loaded.connect(self._on_dataset_loaded)
        state.evaluation.finished.connect(self._evidence_changed)
        state.evaluation.evidence_replaced.connect(self._evidence_changed)
        self._stale = False

    # --- computing -----------------------------------------------------------------------------
    def _on_dataset_loaded(self, _dataset: object) -> None:
        self.suspects, self.set_names = (), []
        self.refresh_rows()

    def _evidence_changed(self, *_args: object) -> None:
        """New evidence: the queue is computed again now if it is shown, else when it is."""
        self._stale = True
        if self.isVisible():
            self.recompute()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.recompute()

    def recompute(self) -> None:
        """Compute the queue again from every result set whose evidence is complete."""
        st, ds = self.state, self.state.dataset
        if ds is None:
            return
        sets, names = [], []
        for i, loaded in enumerate(st.results):
            evidence = st.evaluation.evidence(i)
            names.append(loaded.results.name)
            if evidence is not None and len(loaded.results.detections):
                sets.append((loaded.results.name, loaded.results, evidence))
        if not sets:
            return
        self._stale = False
        self.set_names = names
        st.jobs.start(
            "suspects", Worker(queue_of, ds, sets), on_returned=self._arrived, on_errored=None
        )

    def _arrived(self, suspects: tuple[Suspect, ...]) -> None:
        self.suspects = suspects
        self.refresh_rows()
        self.computed.emit(len(suspects))

    # --- rows ----------------------------------------------------------------------------------
    def shown(self) -> list[int]:
        """Indices into ``suspects`` of the rows listed (the chosen kind), in queue order."""
        kind = self.kind.currentData()
        return [i for i, s in enumerate(self.suspects) if not kind or s.kind == kind]

    def refresh_rows(self, *_args: object) -> None:
        ds = self.state.dataset
        keep = self.table.current_key()
        rows, keys = [], []
        for i in self.shown() if ds is not None else []:
            s = self.suspects[i]
            target, _ = self.target(s)
            entry = self.tags.get(target)
            tags = ", ".join(entry.tags) + (" ✎" if entry.note else "")
            image = str(ds.images.id[s.image])  # type: ignore[union-attr]
            name = ds.classes[s.class_index]  # type: ignore[union-attr]
            rows.append((f"{s.strength:.3f}", SHORT[s.kind], image, name, tags, s.why))
            keys.append(i)
        self.table.set_rows(rows, keys, [None] * len(rows))
        n = len(self.suspects)
        self.count.setText(f"{len(rows):,} of {n:,} suspects" if n else "no suspects yet")
        self.table.select_key(keep)

    # --- where a suspect is, and what tagging it tags -----------------------------------------
    def set_index(self, suspect: Suspect) -> int:
        """The window's result set of the suspect's strongest detection (-1: none)."""
        if not suspect.support:
            return -1
        name = suspect.support[0].set_name
        return self.set_names.index(name) if name in self.set_names else -1

    def target(self, suspect: Suspect) -> tuple[Target, Fix]:
        assert self.state.dataset is not None
        return target_of(self.state.dataset, suspect, self.set_index(suspect))

    def current(self) -> Suspect | None:
        key = self.table.current_key()
        return self.suspects[key] if 0 <= key < len(self.suspects) else None

    def go_to(self, key: int) -> None:
        """Open suspect ``key``'s image with its object (or detection) selected."""
        st = self.state
        if not 0 <= key < len(self.suspects):
            return
        s = self.suspects[key]
        st.set_current_image(s.image)
        if s.object >= 0:
            st.select_object(s.object)
            return
        index = self.set_index(s)
        if index >= 0:
            if index != st.current_results:
                st.set_current_results(index)
            st.select_detection_row(s.support[0].detection)

    def step(self, step: int) -> str:
        """Go to the next (``step`` > 0) or previous suspect listed; what the walk says."""
        keys = self.shown()
        if not keys:
            return "Nothing to walk: no label-error suspects"
        here = self.table.current_key()
        at = keys.index(here) if here in keys else -1
        pos = at + step if at >= 0 else (0 if step > 0 else len(keys) - 1)
        if not 0 <= pos < len(keys):
            edge = "Last" if step > 0 else "First"
            return f"{edge} of {len(keys)} label-error suspects: the walk ends here"
        self.table.select_key(keys[pos])
        self.go_to(keys[pos])
        s = self.suspects[keys[pos]]
        return f"{pos + 1} of {len(keys)} suspects · {KIND_LABELS[s.kind]} · {s.strength:.2f}"
