"""The embedded demo VOCdevkit: drawn scenes with every VOC annotation and a simulated detector.

``write_demo(root)`` writes ``root/VOCdevkit/VOC2012`` (images, annotations, image sets, class and
object segmentations) and, in ``root/VOCdevkit/results/VOC2012``, a simulated method's results on
``val`` for every task (comp4 det, comp2 cls, comp6 seg, comp7 layout, comp9 action). Boxes in the
files are VOC's 1-based inclusive pixels ``xmin ymin xmax ymax``. Everything derives from
``numpy.random.default_rng(seed)``: the same seed gives the same bytes.

Modules
-------
devkit
    ``write_demo``, ``default_demo_dir``, ``DemoPaths``: build in a temporary folder, move in place.
place
    Where the demo may be written (never mixed with other data) and its stamp file.
scenes
    Which classes each image shows, where the figures stand, the rendered picture and its objects.
files
    Annotation XML, image-set lists and palette PNGs as the VOC devkit lays them out.
detector
    The simulated method's results for every task (det, cls, seg, layout, action).
drawing
    Pillow figures per class, persons in each action pose, textured backgrounds.
"""

from vocviewer.demo.devkit import DemoPaths, default_demo_dir, write_demo
from vocviewer.demo.scenes import VAL_EMPTY_CLASS

__all__ = ["VAL_EMPTY_CLASS", "DemoPaths", "default_demo_dir", "write_demo"]
