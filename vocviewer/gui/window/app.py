"""Application setup and ``run_gui``, which ``vocviewer open`` / ``vocviewer demo`` and the
``vocviewer-gui`` script (``cli.gui_main``) call, optionally rendering a screenshot and exiting.
"""

from __future__ import annotations

import errno
import gc
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

import pyqtgraph as pg
from pyqtgraph.util.garbage_collector import GarbageCollector
from PySide6.QtCore import (
    QEvent,
    QMessageLogContext,
    QObject,
    Qt,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtWidgets import QApplication

import vocviewer
from vocviewer.core.errors import FormatError, OutputError
from vocviewer.formats.session import read_session
from vocviewer.gui.models.helper_process import warm_up_process
from vocviewer.gui.models.tasks import Message, error_message, internal_error_text
from vocviewer.gui.models.warm_memory import keep_freed
from vocviewer.gui.window.export import save_screenshot
from vocviewer.gui.window.main_window import MainWindow
from vocviewer.gui.window.recent import default_settings

SCREENSHOT_TIMEOUT_MS = 120_000
SCREENSHOT_POLL_MS = 200
_configured = False


def configure_pyqtgraph() -> None:
    """Global pyqtgraph options, set once: row-major images (numpy order), antialiased lines."""
    global _configured
    if not _configured:
        pg.setConfigOptions(imageAxisOrder="row-major", antialias=True)
        _configured = True


_collector: GarbageCollector | None = None


def make_app(argv: Sequence[str] | None = None) -> QApplication:
    """The ``QApplication`` (created once), named, with pyqtgraph configured."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    app.setApplicationName("vocviewer")
    app.setApplicationVersion(vocviewer.__version__)
    app.setOrganizationName("vocviewer")
    configure_pyqtgraph()
    keep_freed()  # (before the worker threads start: see warm_memory)
    # workers hand the interpreter back every millisecond (Python's default: 5 ms), so the event
    # loop never waits long behind a worker's pure-Python stretch
    sys.setswitchinterval(0.001)
    global _collector
    if _collector is None:
        # cyclic garbage is collected on the GUI thread from the event loop (pyqtgraph's
        # GarbageCollector: automatic collection off), never in a worker or inside a Qt call,
        # where freeing a Qt object can crash or deadlock on Qt's pooled mutexes
        _collector = GarbageCollector(interval=0.5)
        # what the imports made (modules, classes, functions: lasting, no garbage) is never
        # traversed by those collections: ~30 ms each on the GUI thread otherwise, the first one
        # due while the evaluation streams in (all of it is young where the imports ran with
        # the collector paused: ``startup.begin``, as ``vocviewer open`` runs them)
        gc.freeze()
    return app


def _drop_offscreen_noise(previous: Callable[..., None] | None) -> Callable[..., None]:
    """A Qt message handler without the offscreen platform's harmless "This plugin does not
    support propagateSizeHints()" (printed whenever a main window lays out)."""

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if "propagateSizeHints" in message:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    return handler


def post_uncaught_errors(window: MainWindow) -> Callable[[], None]:
    """Route exceptions that escape a Qt callback on the GUI thread (a bug) to the window's message
    area as internal errors, traceback in the details, instead of stderr; returns the undo."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: as before
            previous(kind, exc, tb)
            return
        window.state.post([error_message(exc.with_traceback(tb), "Unexpected error")])

    sys.excepthook = hook

    def undo() -> None:
        sys.excepthook = previous

    return undo


class FirstFrame(QObject):
    """The start-up probe (``VOCVIEWER_STARTUP_PROBE``, see ``cli``): calls ``callback("window")``
    once the window's first frame is painted and ``callback("image")`` once the first image is."""

    def __init__(self, window: MainWindow, callback: Callable[[str], None]) -> None:
        super().__init__(window)
        self._callback = callback
        self._painted = False
        window.installEventFilter(self)
        window.view.image_shown.connect(self._on_image, Qt.ConnectionType.SingleShotConnection)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self._painted:
            self._painted = True
            watched.removeEventFilter(self)
            QTimer.singleShot(0, lambda: self._callback("window"))  # once the frame is flushed
        return False

    def _on_image(self, _image: int) -> None:
        QTimer.singleShot(0, lambda: self._callback("image"))


def shows_everything(window: MainWindow) -> bool:
    """Whether the window's dataset and results are loaded and evaluated and its current image
    is drawn with every overlay."""
    st, view = window.state, window.view
    shown = st.current_image < 0 or view.shown_image == st.current_image
    return st.dataset is not None and st.is_idle() and shown and not view.overlays_pending()


class ScreenshotWhenReady(QObject):
    """Saves ``window.grab()`` to ``path`` once loading and evaluation are done and the current
    image is on screen, then quits the event loop (exit code 0; 1 if the PNG could not be
    written). A load failure, an internal error in any worker, or a timeout quits at once with
    ``error`` set to a ``FormatError`` or ``OSError`` naming the file, for the CLI to print."""

    def __init__(self, window: MainWindow, path: Path) -> None:
        super().__init__(window)
        self.window = window
        self.path = Path(path)
        self.error: FormatError | OSError | OutputError | None = None
        self._saving = False
        self._finished = False  # quits the event loop once; later signals change nothing
        self.opened: Path | None = None  # the dataset path given to the window
        self._timeout = QTimer(self)
        self._timeout.setSingleShot(True)
        self._timeout.start(SCREENSHOT_TIMEOUT_MS)
        self._poll = QTimer(self)  # safety net: readiness can also change without a signal
        self._poll.start(SCREENSHOT_POLL_MS)

        st = window.state
        st.load_failed.connect(self._on_load_failed)
        st.messages_posted.connect(self._on_messages)
        st.busy_changed.connect(self._check)
        st.evaluation.finished.connect(self._check)
        window.view.image_shown.connect(self._check)
        self._timeout.timeout.connect(self._on_timeout)
        self._poll.timeout.connect(self._check)

    def ready(self) -> bool:
        return shows_everything(self.window)

    def _check(self, *_args: object) -> None:
        if self._finished:  # saved (or failed) once: a late signal saves nothing again
            return
        if self.ready() and not self._saving:
            self._saving = True
            QTimer.singleShot(150, self._save)  # let layouts and repaints settle

    def _save(self) -> None:
        self._saving = False
        if self.ready() and not self._finished:
            self.save_now()

    def save_now(self) -> None:
        """Save the window through ``formats.output`` (never into the dataset) and quit."""
        self.error = save_screenshot(self.window.grab(), self.path, self.window.state.dataset)
        self._finish(0 if self.error is None else 1)

    def _on_load_failed(self, _text: str) -> None:
        st = self.window.state
        exc = st.last_load_error
        if isinstance(exc, FormatError | OSError):
            self.error = exc
        else:  # a bug: said as one line naming the file being read
            self.error = FormatError(st.last_load_path, internal_error_text(exc))
        self._finish(1)

    def _on_messages(self, messages: list[Message]) -> None:
        """Any internal error (a worker's bug: evaluation, drawing, decoding) fails the run."""
        bug = next((m for m in messages if m.level == "error" and m.details), None)
        if bug is not None and self.error is None:
            self.error = FormatError(self._source(), bug.text)
            self._finish(1)

    def _source(self) -> Path | None:
        """The dataset being shown (what an error without a file of its own names)."""
        ds = self.window.state.dataset
        return Path(ds.root) if ds is not None and ds.root is not None else self.opened

    def _on_timeout(self) -> None:
        running = ", ".join(self.window.state.jobs.running_keys()) or "drawing the image"
        seconds = SCREENSHOT_TIMEOUT_MS // 1000
        self.error = TimeoutError(
            errno.ETIMEDOUT, f"gave up after {seconds} s waiting for: {running}", self._source()
        )
        self._finish(1)

    def finish_quietly(self) -> None:
        """The event loop is over: stop the timers and never quit again."""
        self._timeout.stop()
        self._poll.stop()
        self._finished = True

    def _finish(self, code: int) -> None:
        self._timeout.stop()
        self._poll.stop()
        if not self._finished:  # a worker's late signal must not end somebody else's loop
            self._finished = True
            QApplication.instance().exit(code)  # type: ignore[union-attr]


def run_gui(
    dataset_path: str | Path | None,
    results_paths: Sequence[str | Path] = (),
    image_set: str | None = None,
    screenshot: str | Path | None = None,
    on_shown: Callable[[str], None] | None = None,
    session: str | Path | None = None,
    result_sets: Sequence[Sequence[str | Path]] | None = None,
    **sources: str | Path | None,
) -> int:
    """Open the window on a dataset (and results), run the event loop, return the exit code.

    ``results_paths`` are one result set; ``result_sets`` (instead) several, added in order.

    With ``screenshot``, the window is rendered off screen, saved to that PNG once everything is
    loaded, evaluated and drawn, and the function returns 0. ``sources`` go to
    ``families.registry.open_dataset`` (``images``: a COCO image folder; ``devkit``: ILSVRC's).
    If loading fails it prints nothing: a ``FormatError``/``OSError`` naming the file is raised
    for the caller to report (the CLI prints it and exits 1) — also for an internal error (a
    bug, said in one line) and for a load that never finishes (``TimeoutError``).
    ``on_shown`` is called with ``"window"`` and ``"image"`` once the window's first frame,
    then its first image, are painted. ``session``: a session file to open instead of
    ``dataset_path`` (``formats.session``; a file that is none raises ``FormatError``).
    The window restores and saves the user's settings, except for a screenshot (which shows
    the defaults, so that it does not depend on who runs it).
    """
    opened = read_session(session) if session is not None else None
    if opened is not None and screenshot is not None and not opened[0].dataset.exists():
        where = Path(session)  # type: ignore[arg-type]
        raise FormatError(where, f"no such dataset: {opened[0].dataset}", element="dataset")
    app = make_app()
    quiet = app.platformName() == "offscreen"
    previous = qInstallMessageHandler(None) if quiet else None
    if quiet:
        qInstallMessageHandler(_drop_offscreen_noise(previous))
    warm_up_process()  # the helper that parses large JSON files starts while the window builds
    window = MainWindow(settings=default_settings() if screenshot is None else None)
    restore_hook = post_uncaught_errors(window)
    shot = ScreenshotWhenReady(window, Path(screenshot)) if screenshot is not None else None
    if shot is not None:
        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    if on_shown is not None:
        FirstFrame(window, on_shown)
    window.show()
    if opened is not None:
        if shot is not None:
            shot.opened = Path(opened[0].dataset)
        window.state.post([Message("warning", str(p)) for p in opened[1]])
        window.sessions.apply(opened[0], Path(session))  # type: ignore[arg-type]
    elif dataset_path is not None:
        if shot is not None:
            shot.opened = Path(dataset_path)
        sets = [tuple(s) for s in (result_sets or [results_paths]) if s]
        window.open_each(dataset_path, sets, image_set, **sources)
    elif shot is not None:
        QTimer.singleShot(0, shot.save_now)
    code = app.exec()
    if shot is not None:
        shot.finish_quietly()  # what is still running must not quit a later event loop
        window.state.jobs.cancel_all()
    if shot is not None:  # close without the "last window closed" quit, which would linger
        quit_on_close = app.quitOnLastWindowClosed()
        app.setQuitOnLastWindowClosed(False)
        window.close()
        app.setQuitOnLastWindowClosed(quit_on_close)
    restore_hook()
    if quiet:
        qInstallMessageHandler(previous)
    if shot is not None and shot.error is not None:
        raise shot.error
    return int(code)
