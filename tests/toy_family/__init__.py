"""A test-only family, "tally": proof that a family is one folder plus one registry line.

Modules
-------
benchmark
    ``TallyBenchmark``: reads ``*.tally`` ground truth and ``<image> <class> <score>`` result
    lines, evaluates each class with the shared AP code (``evaluation.ap``), prints ``TALLY mAP``.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files
FILES = FileTypes("a tally file", annotation_file=True, dataset_patterns=("*.tally",))
