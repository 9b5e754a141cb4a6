"""A table as the window shows it (titles and cell texts), written as CSV, Markdown, LaTeX or JSON.

What you see is what you export: the AP table's every column (AP per result set, npos, ndet,
AP_N, cls AP) with its title as shown, a ``NOT OFFICIAL (…)`` mark included, and the reasons as
notes (Markdown and LaTeX after the table, JSON under ``"not_official"``; CSV has only the
titles). JSON cells are numbers where the text is one, unrounded where the caller gives the
value behind the text (``"—"``, ``"NaN"``, ``"n/a"``, ``"…"`` and empty cells are ``null``).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

from vocviewer.evaluation.report import tex_escape

#: The formats ``render_shown_table`` writes (file suffixes).
SHOWN_FORMATS = ("csv", "md", "tex", "json")


def _number(text: str) -> float | int | None:
    """The cell's number (``None``: no number)."""
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if text.lstrip("-").isdigit() else value


def render_shown_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    fmt: str,
    notes: Sequence[str] = (),
    values: Sequence[Sequence[float | None]] | None = None,
) -> str:
    """``headers`` and ``rows`` (cell texts) in ``fmt`` (``SHOWN_FORMATS``); ``notes``: why the
    numbers are not official (each written once); ``values``: the cells' unrounded numbers
    (``None``: the text's), written in JSON instead of the shown digits."""
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "md":
        esc = [h.replace("|", r"\|") for h in headers]
        lines = ["| " + " | ".join(esc) + " |", "|---|" + "---:|" * (len(headers) - 1)]
        lines += ["| " + " | ".join(c.replace("|", r"\|") for c in r) + " |" for r in rows]
        lines += ["", *(f"NOT OFFICIAL: {n}" for n in notes)] if notes else []
        return "\n".join(lines) + "\n"
    if fmt == "tex":
        lines = [f"\\begin{{tabular}}{{l{'r' * (len(headers) - 1)}}}", "\\toprule"]
        lines.append(" & ".join(tex_escape(h) for h in headers) + " \\\\")
        lines.append("\\midrule")
        lines += [" & ".join(tex_escape(c) for c in r) + " \\\\" for r in rows]
        lines += ["\\bottomrule", "\\end{tabular}"]
        lines += [f"% NOT OFFICIAL: {n}" for n in notes]
        return "\n".join(lines) + "\n"
    if fmt == "json":

        def cell(r: int, i: int, text: str) -> str | float | int | None:
            exact = values[r][i] if values is not None else None
            return text if i == 0 else exact if exact is not None else _number(text)

        table = [
            {h: cell(r, i, c) for i, (h, c) in enumerate(zip(headers, row, strict=True))}
            for r, row in enumerate(rows)
        ]
        payload = {"columns": list(headers), "rows": table, "not_official": list(notes)}
        return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown table format {fmt!r}; expected one of {SHOWN_FORMATS}")
