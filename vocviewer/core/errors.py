"""Errors for bad input. One family: ``FormatError`` names the file and where in it.

``FormatError`` lives in ``core`` (not ``formats``) because both readers (bad file content) and
protocols (a result naming an image outside the evaluated set) raise it, and ``evaluation`` must not
depend on ``formats``.
"""

from __future__ import annotations

from pathlib import Path


class FormatError(ValueError):
    """Input that does not follow its format.

    Parameters
    ----------
    path
        The offending file (or folder).
    message
        What is wrong and what was expected.
    line
        1-based line number in a text file, if known.
    element
        XML element path (e.g. ``annotation/object[3]/bndbox/xmin``) or JSON entry, if known.
    """

    def __init__(
        self,
        path: str | Path | None,
        message: str,
        *,
        line: int | None = None,
        element: str | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.message = message
        self.line = line
        self.element = element
        super().__init__(str(self))

    def location(self) -> str:
        """``file:line`` / ``file (element)`` / ``file``, whichever is known."""
        where = str(self.path) if self.path is not None else "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.element:
            where += f" ({self.element})"
        return where

    def __str__(self) -> str:
        if self.path is None and self.line is None and not self.element:
            return self.message  # about the command line, not a file
        return f"{self.location()}: {self.message}"

    def __reduce__(self) -> tuple[object, ...]:  # picklable despite keyword-only arguments
        return (_rebuild, (self.path, self.message, self.line, self.element))


def _rebuild(path: Path | None, message: str, line: int | None, element: str | None) -> FormatError:
    return FormatError(path, message, line=line, element=element)


class OutputError(Exception):
    """A write vocviewer refuses or could not finish; names the target, never a temp file.

    Raised before anything is written when the target lies inside an opened dataset, is not a
    regular file, or an id would leave the chosen folder; raised after cleaning up when the write
    itself fails.
    """

    def __init__(self, path: str | Path, message: str) -> None:
        self.path = Path(path)
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def __reduce__(self) -> tuple[object, ...]:
        return (OutputError, (self.path, self.message))
