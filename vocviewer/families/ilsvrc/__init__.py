"""ilsvrc."""
