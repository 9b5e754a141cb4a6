"""``peak_kb``: a command run in a fresh interpreter, and the peak resident memory of that
process alone, for the tests that bound what bad input may cost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: runs ``argv[1:]`` (``-c CODE args`` or a module and its arguments), then prints its exit
#: code and the process's own peak resident memory: ``VmHWM``, which ``exec`` starts afresh
#: (``ru_maxrss`` would carry the peak of the test process that started it, which grows over a
#: long run)
_MEASURE = """
import resource, runpy, sys
args = sys.argv[1:]
code = 0
try:
    if args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        exec(args[1], {"__name__": "__main__"})
    else:
        sys.argv = args
        runpy.run_module(args[0], run_name="__main__")
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else int(e.code is not None)
print("EXIT_CODE", code)
try:
    with open("/proc/self/status") as fh:
        kb = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # elsewhere: an upper bound
print("MAXRSS_KB", kb)
"""


def peak_kb(args: list[str]) -> tuple[int, str]:
    """(peak resident KB, stdout + stderr ending with ``EXIT_CODE n``) of ``python -c CODE ...`` or ``python -m MODULE
    ...`` (``args``: ``["-c", CODE, *argv]`` or ``[MODULE, *argv]``), offscreen."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    p = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("MAXRSS_KB")]
    assert line, p.stdout + p.stderr
    return int(line[0].split()[1]), p.stdout + p.stderr
