"""What the ``vocviewer`` and ``vocviewer-gui`` processes set before numpy loads (``cli``
imports this first): OpenBLAS's thread pool at one thread. vocviewer does no matrix algebra
worth a pool, and the pool's threads spin at numpy's import (~60 ms of CPU on this kind of
machine, taken from the evaluation's own second thread on 2 cores). A setting the user made
wins."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
