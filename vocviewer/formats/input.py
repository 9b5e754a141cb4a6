"""Bounded reading: only regular files are opened, and no read runs past a limit.

Every reader opens its files through here, so a FIFO never blocks, a device (``/dev/zero``) is
never read until memory runs out, a directory or a symbolic-link loop gives a message, and a
declared size (image width x height, an RLE's ``size``) is checked before anything of that size is
allocated. Failures are ``FormatError`` naming the file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from vocviewer.core.errors import FormatError

#: Largest image (width x height, pixels) any reader accepts or any mask is allocated for: Pillow's
#: own decompression-bomb error threshold (``2 * PIL.Image.MAX_IMAGE_PIXELS``), so an image that
#: Pillow would refuse to decode is refused as a declaration too. A uint8 mask this size is 179 MB.
MAX_IMAGE_PIXELS = 178_956_970

#: Largest text/JSON/XML file read whole (bytes). Results files of 10 million lines are ~0.6 GB.
MAX_FILE_BYTES = 8 << 30

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _os_error(path: Path, e: OSError) -> FormatError:
    if e.errno == errno.ELOOP:
        return FormatError(path, "symbolic link loop (the link points back at itself)")
    if e.errno == errno.ENOENT:
        return FormatError(path, "no such file (or a dangling symbolic link)")
    return FormatError(path, f"cannot read: {e.strerror or e}")


def check_regular(path: str | Path) -> int:
    """The size in bytes of ``path`` if it is a regular file (symbolic links followed).

    Raises ``FormatError`` for a folder, FIFO, device, socket, a link loop or a missing file.
    """
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise _os_error(path, e) from None
    if not stat.S_ISREG(st.st_mode):
        raise FormatError(path, f"expected a regular file, found {_kind(st.st_mode)}")
    return st.st_size


def read_bytes(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The whole content of the regular file ``path``, at most ``limit`` bytes.

    The file is opened non-blocking and checked with ``fstat`` on the open descriptor, so a FIFO
    swapped in after a check cannot block; a file larger than ``limit`` is refused, not truncated.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise _os_error(path, e) from None
    try:  # the raw descriptor is checked first: os.fdopen refuses a folder before any check
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FormatError(path, f"expected a regular file, found {_kind(st.st_mode)}")
        if st.st_size > limit:
            raise FormatError(
                path, f"file of {st.st_size:,} bytes is over the {limit:,}-byte limit"
            )
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:  # closes fd on every path from here on
        try:  # never f.read(limit + 1): that allocates the whole limit (8 GB) up front
            parts = [f.read(st.st_size + 1)]  # what it says it holds, and a byte to see it grew
            size = len(parts[0])
            while st.st_size < size <= limit and parts[-1]:  # grew, or reports 0 (/proc)
                parts.append(f.read(min(1 << 20, limit + 1 - size)))
                size += len(parts[-1])
            data = parts[0] if len(parts) == 1 else b"".join(parts)
        except OSError as e:
            raise _os_error(path, e) from None
    if len(data) > limit:  # grew while read (or a special file reporting size 0)
        raise FormatError(path, f"file is over the {limit:,}-byte limit")
    return data


def check_exist(paths: Iterable[str | Path]) -> None:
    """A ``FormatError`` naming the first of ``paths`` that does not exist (file or folder)."""
    for path in paths:
        if not Path(path).exists():
            raise FormatError(Path(path), "no such file or folder")


def peek(path: str | Path, size: int = 4096) -> bytes:
    """The first ``size`` bytes of a regular file, to tell its kind (empty if ``path`` is not a
    regular file or cannot be read; never raises)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        with open(path, "rb") as f:
            return f.read(size)
    except (OSError, ValueError):
        return b""


def read_text(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """A text file as ``str``: UTF-8, a BOM dropped, undecodable bytes replaced."""
    return read_bytes(path, limit=limit).decode("utf-8-sig", errors="replace")


def check_image_size(
    path: str | Path, width: int, height: int, *, element: str | None = None
) -> None:
    """Refuse a declared image (or mask) size that is not positive or over ``MAX_IMAGE_PIXELS``."""
    if width <= 0 or height <= 0:
        raise FormatError(
            path, f"image size {width} x {height}: expected positive integers", element=element
        )
    if width * height > MAX_IMAGE_PIXELS:
        raise FormatError(
            path,
            f"image size {width} x {height} ({width * height:,} pixels) is over the "
            f"{MAX_IMAGE_PIXELS:,}-pixel limit (Pillow's decompression-bomb threshold)",
            element=element,
        )
