"""Themes: follow the system's palette (the default), or a light or a dark one (View ▸ Theme).

A theme is a ``QPalette`` set on the application (with the Fusion style, which draws every
palette role; "System" gives back the platform's style and palette). Panes take their colours
from their palette and restyle on ``QEvent.PaletteChange`` (the PR plot's background, axes and
legend, the inspector, tables, lists), so a theme change or a system switch to dark reaches every
pane without a list of panes here. What the window holds itself follows in ``ThemeControl``:
the image background. The choice is stored under ``view/theme`` in the window's settings.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSettings, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsView, QMainWindow, QMenu

#: theme name → menu text
THEMES = {"system": "&System", "light": "&Light", "dark": "&Dark"}
SETTINGS_KEY = "view/theme"
#: The image view's backdrop: a neutral dark grey in a light palette (pictures are judged on
#: grey, and the view's own grey texts stay readable), nearly black in a dark one.
IMAGE_BACKGROUND = {False: QColor("#2b2d30"), True: QColor("#18191b")}

Role, Group = QPalette.ColorRole, QPalette.ColorGroup

#: role → (light, dark) colours of the two palettes
_COLORS: dict[QPalette.ColorRole, tuple[str, str]] = {
    Role.Window: ("#f1f2f4", "#2b2d30"),
    Role.WindowText: ("#202124", "#e8eaed"),
    Role.Base: ("#ffffff", "#1e1f22"),
    Role.AlternateBase: ("#f5f6f7", "#26282b"),
    Role.ToolTipBase: ("#fffbe6", "#3c3f43"),
    Role.ToolTipText: ("#202124", "#e8eaed"),
    Role.PlaceholderText: ("#6b7075", "#9aa0a6"),
    Role.Text: ("#202124", "#e8eaed"),
    Role.Button: ("#eceef1", "#36393e"),
    Role.ButtonText: ("#202124", "#e8eaed"),
    Role.BrightText: ("#d93025", "#ff8a80"),
    Role.Light: ("#ffffff", "#4a4d52"),
    Role.Midlight: ("#e3e5e8", "#3f4246"),
    Role.Mid: ("#b9bdc2", "#5a5e63"),
    Role.Dark: ("#9da1a6", "#1a1b1d"),
    Role.Shadow: ("#70757a", "#000000"),
    Role.Highlight: ("#1a73e8", "#3b78d8"),
    Role.HighlightedText: ("#ffffff", "#ffffff"),
    Role.Link: ("#0b57d0", "#8ab4f8"),
    Role.LinkVisited: ("#7b1fa2", "#c58af9"),
}
#: role → (light, dark) colours of disabled widgets
_DISABLED: dict[QPalette.ColorRole, tuple[str, str]] = {
    Role.WindowText: ("#9aa0a6", "#6f7378"),
    Role.Text: ("#9aa0a6", "#6f7378"),
    Role.ButtonText: ("#9aa0a6", "#6f7378"),
    Role.Highlight: ("#c7cbd0", "#4a4d52"),
}


def theme_palette(name: str) -> QPalette:
    """The ``"light"`` or ``"dark"`` palette (every role of every colour group set)."""
    if name not in ("light", "dark"):
        raise ValueError(f"no palette for theme {name!r}")
    k = int(name == "dark")
    pal = QPalette()
    for role, colors in _COLORS.items():
        pal.setColor(role, QColor(colors[k]))
    for role, colors in _DISABLED.items():
        pal.setColor(Group.Disabled, role, QColor(colors[k]))
    return pal


def is_dark(palette: QPalette) -> bool:
    """Whether the palette draws light text on a dark window."""
    return palette.color(Role.Window).lightness() < palette.color(Role.WindowText).lightness()


_system_style: str | None = None  # the style the application started with


def apply_theme(name: str) -> None:
    """Set the application's palette (and style) for ``name``: ``"system"``, ``"light"`` or
    ``"dark"``. Every widget gets a ``PaletteChange`` event."""
    global _system_style
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}; expected one of {', '.join(THEMES)}")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if _system_style is None:
        _system_style = app.style().name()
    if name == "system":
        if app.style().name() != _system_style:
            app.setStyle(_system_style)
        app.setPalette(QPalette())  # nothing set: the platform's palette again
        return
    if app.style().name().lower() != "fusion":  # native styles ignore parts of a palette
        app.setStyle("Fusion")
    app.setPalette(theme_palette(name))


class ThemeControl(QObject):
    """View ▸ Theme of a window: the three choices, the stored one applied at start, and the
    window's own colours (the image background) kept in step with the palette.

    Signals
    -------
    theme_changed(str)
        A theme was chosen (``"system"``, ``"light"`` or ``"dark"``).
    """

    theme_changed = Signal(str)

    def __init__(
        self, window: QMainWindow, image_view: QGraphicsView, settings: QSettings | None = None
    ) -> None:
        super().__init__(window)
        self.window = window
        self.image_view = image_view
        self.settings = settings
        self.menu = QMenu("&Theme", window)
        self.menu.menuAction().setStatusTip("Colours of the window: the system's, light or dark")
        self.actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for name, text in THEMES.items():
            act = self.menu.addAction(text)
            act.setCheckable(True)
            act.setStatusTip(
                "Follow the system's colours" if name == "system" else f"Use {name} colours"
            )
            group.addAction(act)
            act.triggered.connect(lambda _=False, n=name: self.set_theme(n))
            self.actions[name] = act
        stored = settings.value(SETTINGS_KEY, "system") if settings is not None else "system"
        self.current = stored if isinstance(stored, str) and stored in THEMES else "system"
        if self.current != "system":
            apply_theme(self.current)
        self.actions[self.current].setChecked(True)
        self._sync_window()
        window.installEventFilter(self)

    def set_theme(self, name: str) -> None:
        """Apply and remember theme ``name``."""
        apply_theme(name)
        self.current = name
        self.actions[name].setChecked(True)
        if self.settings is not None:
            self.settings.setValue(SETTINGS_KEY, name)
        self._sync_window()
        self.theme_changed.emit(name)

    def _sync_window(self) -> None:
        dark = is_dark(self.window.palette())
        self.image_view.setBackgroundBrush(IMAGE_BACKGROUND[dark])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.PaletteChange:
            self._sync_window()  # also when the system switches while it is followed
        return False
