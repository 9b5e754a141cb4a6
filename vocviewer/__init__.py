"""vocviewer: browse object-recognition benchmarks and evaluate results exactly as the official code.

Subpackages
-----------
core
    The shared model: ``Dataset``, ``ResultSet``, box conventions, ranking. numpy + stdlib only.
formats
    The only code that reads or writes files (VOCdevkit today; COCO, ILSVRC, VisDrone later).
evaluation
    Pure numpy protocols (VOC detection and classification): per-class generators, result objects
    carrying per-detection evidence, and text reports. Never prints.
cli
    The ``vocviewer`` command line; the only module that writes to stdout/stderr.
demo
    Generates the embedded demo VOCdevkit used by ``vocviewer demo`` and the tests.
gui
    The Qt application (PySide6 + pyqtgraph): thin views over core and evaluation.
"""

__version__ = "0.1.0"
