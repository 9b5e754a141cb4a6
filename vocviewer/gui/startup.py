"""The window's start-up in a fresh process (``vocviewer open`` / ``demo``, the ``vocviewer-gui``
script): ``begin()`` runs before the window's imports."""

from __future__ import annotations

import gc

from vocviewer.gui.models.warm_memory import keep_freed


def begin() -> None:
    """Pause Python's automatic cyclic collection for the window's imports: they make lasting
    objects (modules, classes, functions) and no garbage, so a collection during them is wasted
    (~40 ms of the GUI thread, several full ones). ``app.make_app`` then freezes what they made
    and collects from the event loop. The memory freed is kept from here on, before any
    thread allocates (``warm_memory.keep_freed``)."""
    gc.disable()
    keep_freed()
