"""ilsvrc."""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes("an ILSVRC folder", result_patterns=("*.txt",))
