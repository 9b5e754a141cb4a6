"""File formats: the only code that reads or writes benchmark files (lxml, numpy, stdlib; no Qt).

Modules
-------
detect
    ``open_dataset`` / ``open_results``: sniff a path and call the right reader.
voc
    ``read_voc``: a VOCdevkit root or year folder → ``core.Dataset``; re-exports the results API.
voc_annotations
    ``Annotations/<id>.xml`` → object, action and part columns (devkit text and flag rules).
voc_imagesets
    ``ImageSets/<task>/*.txt`` → image sets, ``<class>_<set>`` labels, layout/action person sets.
voc_results
    ``read_voc_results`` / ``write_voc_results``: ``<comp>_det_<set>_<class>.txt`` (and
    ``_cls_``) files ↔ ``core.ResultSet``.
voc_common
    Element text cleaning, number parsing, per-file problem lists shared by the above.
"""
