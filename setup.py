"""Build the compiled kernels (``vocviewer/kernel/_*.c``), each optional.

Everything else about the package is declared in pyproject.toml. Each C file beside
``vocviewer/kernel/__init__.py`` whose name starts with ``_`` becomes the extension module
``vocviewer.kernel._name``; a machine that cannot compile one still installs the package, which
then runs on the numpy path (``vocviewer.kernel.load`` says so once).
"""

from pathlib import Path

import numpy
from setuptools import Extension, setup

KERNEL_DIR = Path("vocviewer/kernel")
COMPILE_ARGS = ["-O3", "-std=c11", "-fno-strict-aliasing", "-ffp-contract=off"]  # exact doubles


def kernels() -> list[Extension]:
    """One optional extension per ``vocviewer/kernel/_*.c``."""
    return [
        Extension(
            f"vocviewer.kernel.{source.stem}",
            [source.as_posix()],
            depends=[h.as_posix() for h in sorted(KERNEL_DIR.glob("_*.h"))],
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_21_API_VERSION")],
            extra_compile_args=COMPILE_ARGS,
            extra_link_args=["-lpthread"],
            optional=True,
        )
        for source in sorted(KERNEL_DIR.glob("_*.c"))
    ]


setup(ext_modules=kernels())
