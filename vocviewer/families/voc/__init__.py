"""voc."""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "a VOCdevkit year",
    result_patterns=("comp*_det_*.txt", "comp*_cls_*.txt"),
    results_folder="results/VOC20xx",
)
