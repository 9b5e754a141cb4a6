"""lvis."""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "an LVIS annotation JSON",
    annotation_file=True,
    dataset_patterns=("*.json",),
    result_patterns=("*.json",),
)
