"""The message area: problems, warnings and errors posted while the window works."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vocviewer.gui.models.state import AppState, Message


class MessagesPanel(QWidget):
    """Non-modal list of problems and errors (``AppState.messages_posted``), newest last, with a
    header that clears or hides it.

    Signals
    -------
    hide_requested()
        The close button was pressed.
    cleared()
        The list was emptied (the Clear button).
    """

    hide_requested = Signal()
    cleared = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.title = QLabel("<b>Messages</b>")
        clear = self.clear_button = QToolButton()
        clear.setText("Clear")
        clear.setAutoRaise(True)
        close = QToolButton()
        close.setText("Hide")
        close.setAutoRaise(True)
        header = QHBoxLayout()
        header.setContentsMargins(6, 2, 2, 0)
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(clear)
        header.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.list)
        icons = {
            "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
            "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
            "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
        }
        self._icons = {k: self.style().standardIcon(v) for k, v in icons.items()}

        clear.clicked.connect(self.list.clear)
        clear.clicked.connect(self.cleared)
        close.clicked.connect(self.hide_requested)
        state.messages_posted.connect(self.add_messages)

    def count(self) -> int:
        return self.list.count()

    def add_messages(self, messages: list[Message]) -> None:
        for m in messages:
            item = QListWidgetItem(self._icons.get(m.level, self._icons["info"]), m.text)
            item.setToolTip(f"{m.text}\n\n{m.details}" if m.details else m.text)
            item.setData(Qt.ItemDataRole.UserRole, m.details)  # the traceback of a bug
            self.list.addItem(item)
        self.list.scrollToBottom()
