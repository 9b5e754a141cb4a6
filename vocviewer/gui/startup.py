"""The window's start-up in a fresh process (``vocviewer open`` / ``demo``, the ``vocviewer-gui``
script): ``begin()`` runs before the window's imports."""

from __future__ import annotations

import gc


def begin() -> None:
    """Pause Python's automatic cyclic collection for the window's imports: they make lasting
    objects (modules, classes, functions) and no garbage, so a collection during them is wasted
    (~40 ms of the GUI thread, several full ones). ``app.make_app`` then freezes what they made
    and collects from the event loop."""
    gc.disable()
