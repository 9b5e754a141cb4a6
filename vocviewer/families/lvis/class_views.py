"""COCO's ``coco_class`` for many categories at once: ``coco.class_views`` (LVIS's views are
COCO's, its 1,203 categories shaped together)."""

from vocviewer.families.coco.class_views import _means, class_views

__all__ = ["_means", "class_views"]
