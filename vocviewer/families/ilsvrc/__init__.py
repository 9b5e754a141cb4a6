"""ILSVRC DET and CLS-LOC: ground truth, devkit lists and submissions, evaluation, analyses, the
window's view and the ``Benchmark``.

Modules
-------
analyze
    ``vocviewer analyze`` on ILSVRC DET (``--task det --devkit DIR``).
benchmark
    ILSVRC.
bootstrap
    Bootstrap evidence from an ILSVRC DET evaluation (``ilsvrc.py``).
clsloc_evaluate
    ILSVRC CLS-LOC evaluation, exactly as the devkit's ``eval_clsloc.m`` /
    ``demo_eval_clsloc.m``.
clsloc_reader
    ILSVRC CLS-LOC ground truth, blacklist and submissions → ``core.Dataset`` /
    ``core.ResultSet``.
columns
    ILSVRC extras.
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
evaluate
    ILSVRC DET evaluation, exactly as ``eval_detection.m`` (PROTOCOLS.md §7).
reader
    ILSVRC DET ground truth, devkit lists and submissions → ``core.Dataset`` /
    ``core.ResultSet``.
tide
    TIDE's error breakdown on ILSVRC DET, from ``eval_detection.m``'s own verdicts
    (``ilsvrc.py``).
view
    ILSVRC DET in the window.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes("an ILSVRC folder", result_patterns=("*.txt",))
