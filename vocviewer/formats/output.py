"""The one guarded writer: every file vocviewer writes goes through here.

Rules (DESIGN rule 7, "never write into the user's dataset"):

- a target inside a protected root (an opened dataset's folders: devkit root, year folder, COCO
  annotation and image folders, VisDrone split, ILSVRC folders), after resolving symbolic links,
  is refused before anything is written;
- a target that exists and is not a regular file (a folder, FIFO, device, a symlink to one) is
  refused;
- a name made from data (an image id) never leaves the chosen folder (``child_path``);
- the bytes go to a unique temporary file in the target's folder (``.NAME.PID-RANDOM.vocviewer-tmp``,
  created exclusively), removed on every failure path, then ``os.replace``d onto the target; a
  temp left by a killed process (its PID no longer running) is swept by the next write to the same
  target;
- every error is ``OutputError`` naming the target, never the temp file.

New files get the usual permissions (``0o666`` less the process umask), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from vocviewer.core.errors import OutputError

TEMP_SUFFIX = ".vocviewer-tmp"


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import: os.umask can only be read by setting it


def _resolved(path: str | Path) -> Path:
    return Path(os.path.abspath(path)).resolve()


def _outside(path: Path, protected: Iterable[str | Path]) -> Path:
    """``path`` resolved; ``OutputError`` if it is or lies inside one of ``protected``."""
    try:
        real = _resolved(path)
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop on older Pythons
        raise OutputError(path, f"cannot resolve the path: {e}") from None
    for root in protected:
        if root is None:
            continue
        try:
            base = _resolved(root)
        except (OSError, RuntimeError):
            base = Path(os.path.abspath(root))
        if real == base or base in real.parents:
            where = f"the opened dataset folder {base}"
            raise OutputError(path, f"refusing to write inside {where}; choose another folder")
    return real


def guard_folder(folder: str | Path, protected: Iterable[str | Path] = ()) -> Path:
    """``folder`` made absolute and resolved, after checking files may be written into it: not
    inside (or one of) ``protected``, and not an existing file."""
    real = _outside(Path(folder), protected)
    if real.exists() and not real.is_dir():
        raise OutputError(Path(folder), "is not a folder")
    return real


def guard_target(target: str | Path, protected: Iterable[str | Path] = ()) -> Path:
    """``target`` made absolute and resolved, after checking it may be written.

    Raises ``OutputError`` if it lies inside (or is) any of ``protected`` (symbolic links resolved
    on both sides) or exists and is not a regular file.
    """
    path = Path(target)
    real = _outside(path, protected)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real
    except OSError as e:
        raise OutputError(path, f"cannot write here: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise OutputError(path, f"refusing to replace {kind}")
    return real


def child_path(folder: str | Path, name: str, suffix: str = "") -> Path:
    """``folder / (name + suffix)`` for a name taken from data (an image id), never outside it.

    Raises ``OutputError`` for an empty name, a path separator, ``.``/``..``, a NUL byte or a
    leading dot (a hidden file would be easy to miss).
    """
    bad = (
        not name
        or name in (".", "..")
        or name.startswith(".")
        or any(c in name for c in ("/", "\\", "\0"))
        or (os.altsep is not None and os.altsep in name)
    )
    if bad:
        raise OutputError(Path(folder) / f"{name}{suffix}", f"{name!r} is not a plain file name")
    return Path(folder) / f"{name}{suffix}"


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (so a temp it owns is in use, not left by a kill)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _sweep_stale(folder: Path, name: str) -> None:
    """Remove temps of ``name`` left by processes that no longer run (killed mid-write)."""
    pattern = re.compile(rf"^\.{re.escape(name)}\.(\d+)-[0-9a-f]+{re.escape(TEMP_SUFFIX)}$")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def write_with(
    target: str | Path, write: Callable[[Path], None], protected: Iterable[str | Path] = ()
) -> Path:
    """Guard ``target``, let ``write(tmp)`` fill a unique temp file beside it, then replace.

    ``write`` must write the file at the path it is given (a writer that chooses its format from
    the suffix must be told the format: the temp ends in ``.vocviewer-tmp``). Returns the resolved
    target. Any failure removes the temp and raises ``OutputError`` naming the target.
    """
    real = guard_target(target, protected)
    shown = Path(target)
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(shown, f"cannot create its folder: {e.strerror or e}") from None
    _sweep_stale(real.parent, real.name)
    tmp = real.parent / f".{real.name}.{os.getpid()}-{os.urandom(6).hex()}{TEMP_SUFFIX}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        os.close(fd)
        write(tmp)
        if not tmp.is_file() or tmp.is_symlink():
            raise OSError(f"the writer did not produce {real.name}")
        os.chmod(tmp, 0o666 & ~_UMASK)
        guard_target(real, protected)  # still a regular file or absent just before replacing
        os.replace(tmp, real)
    except OutputError:
        tmp.unlink(missing_ok=True)
        raise
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OutputError(shown, f"could not write: {e.strerror or e}") from None
        raise
    return real


def write_bytes(target: str | Path, data: bytes, protected: Iterable[str | Path] = ()) -> Path:
    """Write ``data`` to ``target`` under the rules above; returns the resolved target."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"expected bytes, got {type(data).__name__}")

    def _write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data)

    return write_with(target, _write, protected)


def write_text(target: str | Path, text: str, protected: Iterable[str | Path] = ()) -> Path:
    """Write ``text`` as UTF-8 with ``\\n`` line ends under the rules above."""
    return write_bytes(target, text.encode("utf-8"), protected)
