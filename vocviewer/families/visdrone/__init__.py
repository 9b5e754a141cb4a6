"""VisDrone-DET: split folders and results, its evaluation with ignored regions, analyses, the
window's view and the ``Benchmark``.

Modules
-------
analyze
    ``vocviewer analyze`` on a VisDrone-DET split.
benchmark
    VisDrone-DET.
bootstrap
    Bootstrap over images for VisDrone-DET.
columns
    VisDrone-DET extras.
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
evaluate
    VisDrone-DET evaluation, exactly as the toolkit's ``evalDET.m`` (PROTOCOLS.md §6).
matching
    VisDrone per-image matching (``evalRes.m`` + ``compOas.m``), vectorised over all images.
reader
    VisDrone-DET split folders and result folders → ``core.Dataset`` / ``core.ResultSet``.
regions
    VisDrone ignored regions.
tide
    TIDE's error breakdown on VisDrone-DET, from ``evalDET.m``'s own verdicts (``visdrone.py``).
view
    VisDrone-DET in the window.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "a VisDrone split", result_patterns=("*.txt",), results_folder="a VisDrone results folder"
)
