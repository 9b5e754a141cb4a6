"""Build the one-folder vocviewer app with PyInstaller, then smoke-test it.

    python packaging/build.py [--venv build/packaging-venv] [--dist dist] [--skip-build]

1. A build venv (created once, with this interpreter) gets the project and its run-time
   dependencies from ``pyproject.toml`` (``pip install .``; not the test extras) and PyInstaller.
2. ``pyinstaller packaging/vocviewer.spec`` writes ``DIST/vocviewer/`` (its time is printed).
3. ``packaging/smoke_test.py`` runs the bundle on the demo offscreen with ``--screenshot`` and
   checks the PNG; the bundle's size is printed. Exit code 0 when the build and the test pass.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "vocviewer.spec"
PYINSTALLER = "pyinstaller>=6.10,<7"


def venv_python(path: Path) -> Path:
    return path / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def make_venv(path: Path) -> Path:
    """The build venv at ``path`` with the project (from pyproject.toml) and PyInstaller."""
    python = venv_python(path)
    if not python.exists():
        print(f"creating the build venv {path}", flush=True)
        venv.create(path, with_pip=True, clear=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, str(ROOT), PYINSTALLER], check=True)
    # the same version number would keep an older copy of the package: always take this tree
    subprocess.run([*pip, "--no-deps", "--force-reinstall", str(ROOT)], check=True)
    return python


def size_of(folder: Path) -> int:
    """Bytes in the files under ``folder`` (symbolic links not followed)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--venv", type=Path, default=ROOT / "build" / "packaging-venv")
    p.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle goes")
    p.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller")
    p.add_argument("--skip-build", action="store_true", help="only smoke-test DIST/vocviewer")
    p.add_argument("--keep", type=Path, metavar="PNG", help="keep the smoke test's screenshot")
    args = p.parse_args()

    python = make_venv(args.venv.resolve())
    bundle = args.dist.resolve() / "vocviewer"
    if not args.skip_build:
        start = time.perf_counter()
        subprocess.run(
            [
                str(python),
                "-m",
                "PyInstaller",
                str(SPEC),
                "--noconfirm",
                "--log-level",
                "WARN",
                "--distpath",
                str(args.dist.resolve()),
                "--workpath",
                str(args.work.resolve()),
            ],
            check=True,
            cwd=ROOT,
        )
        print(f"built {bundle} in {time.perf_counter() - start:.0f} s")
    print(f"bundle size: {size_of(bundle) / 2**20:.0f} MiB")
    keep = [] if args.keep is None else ["--keep", str(args.keep.resolve())]
    return subprocess.run([str(python), str(HERE / "smoke_test.py"), str(bundle), *keep]).returncode


if __name__ == "__main__":
    sys.exit(main())
