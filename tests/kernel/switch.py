"""``numpy_path``: the compiled kernels off (``VOCVIEWER_KERNEL=0``) inside a block, for tests
that compare both paths."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def numpy_path() -> Iterator[None]:
    """The kernels off (``VOCVIEWER_KERNEL=0``) inside the block; the setting as it was after."""
    old = os.environ.get("VOCVIEWER_KERNEL")
    os.environ["VOCVIEWER_KERNEL"] = "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["VOCVIEWER_KERNEL"]
        else:
            os.environ["VOCVIEWER_KERNEL"] = old
