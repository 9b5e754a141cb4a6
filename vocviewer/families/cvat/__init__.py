"""CVAT for images 1.1 XML and LabelMe JSON as ground truth, evaluated by COCO's or VOC's
protocol (``--protocol coco|voc2012|voc2007``; COCO's by default).

Modules
-------
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
shapes
    The annotation tool's own model (images with their boxes and polygons), read by both readers.
cvat_xml
    CVAT for images 1.1 XML → ``shapes.Annotated``.
labelme
    A folder of LabelMe JSON files (or one file) → ``shapes.Annotated``.
convert
    ``Annotated`` → a COCO annotation dict (read by COCO's reader) or a VOC-model ``Dataset``.
write_cvat
    ``vocviewer convert X.json --to cvat``: a COCO annotation file as CVAT for images 1.1 XML.
benchmark
    CVAT / LabelMe.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "a CVAT for images XML or a LabelMe JSON folder",
    annotation_file=True,
    dataset_patterns=("*.xml", "*.json"),
    result_patterns=("*.json",),
)
