"""coco."""
