"""Shared file I/O, family-free (lxml, numpy, Pillow, stdlib; no Qt): bounded input, the guarded
writer, images, label PNGs, JSON and text fields with located errors, sessions. Each family's own
readers live in its folder (``vocviewer.families.<name>``).

Modules
-------
image_file
    Bounded image decoding with Pillow.
input
    Bounded reading.
json_input
    JSON files in.
label_png
    Label PNGs.
matfile
    A small, bounds-checked reader of MATLAB v5 ``.mat`` files (the ILSVRC devkit's
    ``meta_*.mat``).
output
    The one guarded writer.
problem_kinds
    The kinds of input problems that decide official-ness, told apart by how a message ends.
session
    Session files.
session_tags
    A session's tags as JSON entries, and back.
tag_export
    Tags as CSV / JSON rows, and their fixes as VOC XML annotation patches.
text_fields
    Helpers shared by the VOCdevkit readers.
thresholds
    Deployment thresholds (class name -> score threshold) in, for per-class drawing.
"""
