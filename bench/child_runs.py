"""Fresh-process runs for the window benchmarks: ``run_json_child`` runs a benchmark script's
``--child`` mode and reads the JSON its last line prints; ``min_median`` formats a run's
numbers as "min / median"; ``private_settings`` keeps a benchmark's window settings out of the
user's configuration folder."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def run_json_child(script: str, args: list[str], config_dir: Path) -> dict[str, Any]:
    """``python SCRIPT --child ARGS...`` with its settings under ``config_dir`` (never the
    user's); the JSON object on its last stdout line. Exits with the child's stderr if it fails."""
    cmd = [sys.executable, script, "--child", *args]
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_dir)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"run failed ({done.returncode})")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def min_median(values: list[float], fmt: str = "{:.1f}") -> str:
    """``values`` as "min / median", each formatted by ``fmt``."""
    return f"{fmt.format(min(values))} / {fmt.format(statistics.median(values))}"


_settings: list[tempfile.TemporaryDirectory[str]] = []


def private_settings() -> None:
    """Point ``XDG_CONFIG_HOME`` (this process's and its children's) at a folder removed at exit,
    so windows a benchmark opens never write the user's recent list or last folders."""
    if not _settings:
        _settings.append(tempfile.TemporaryDirectory(prefix="vocviewer-bench-settings-"))
        os.environ["XDG_CONFIG_HOME"] = _settings[0].name
