"""``bench/bench_peers.py`` runs end to end on tiny workloads, so that it cannot rot.

Only the evaluators the ``test`` extra installs (vocviewer's CLI and drop-in, pycocotools, the
``lvis`` package); the peers of the ``bench`` extra are skipped by the script when absent. The
COCO workloads need the shared generator (``../shared/bench/gen_coco_workload.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "bench_peers.py"
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_coco_workload.py"
EVALUATORS = "vocviewer-cli,vocviewer-api,pycocotools,lvis"

pytestmark = pytest.mark.skipif(not GENERATOR.exists(), reason=f"no {GENERATOR}")


def run(tmp_path: Path, *args: str) -> tuple[str, dict]:
    out = tmp_path / "report.json"
    cmd = [sys.executable, str(SCRIPT), "--images", "8", "--repeat", "1"]
    cmd += ["--workdir", str(tmp_path / "work"), "--json", str(out), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, json.loads(out.read_text())


def test_every_evaluator_runs_and_agrees_with_the_reference(tmp_path: Path) -> None:
    workloads = "bbox,segm,keypoints,lvis"
    stdout, report = run(tmp_path, "--workloads", workloads, "--evaluators", EVALUATORS)
    seen = {(r["workload"], r["evaluator"]): r for r in report["rows"]}
    expected = {
        "bbox": {"vocviewer-cli", "vocviewer-api", "pycocotools"},
        "segm": {"vocviewer-cli", "vocviewer-api", "pycocotools"},
        "keypoints": {"vocviewer-cli", "vocviewer-api", "pycocotools"},
        "lvis": {"vocviewer-cli", "lvis"},
    }
    for workload, names in expected.items():
        assert {e for w, e in seen if w == workload} == names
        ref = "lvis" if workload == "lvis" else "pycocotools"
        assert seen[workload, ref]["max_diff"] is None  # the reference itself
        for name in names - {ref}:
            row = seen[workload, name]
            assert row["max_diff"] is not None
            assert row["max_diff"] <= 1e-12, (workload, name)
            assert row["wall_min"] > 0 and row["peak_mb_median"] > 10
    stats = report["runs"]["keypoints"]["pycocotools"][0]["stats"]
    assert len(stats) == 10
    assert len(report["runs"]["lvis"]["lvis"][0]["stats"]) == 13
    assert "DIFFERS" not in stdout
    assert "load average (1, 5, 15 min) before" in stdout
    assert "lvis has no coco mode: not run" in stdout  # what was not run is said


def test_profile_splits_vocviewer_time(tmp_path: Path) -> None:
    stdout, report = run(tmp_path, "--workloads", "bbox", "--profile")
    phases = report["profile"]["bbox"]["phases"]
    for phase in ("start", "import", "bytes", "read_gt", "read_results", "summary"):
        assert phases[phase][0] >= 0
    assert "CLI, whole" in stdout


def test_a_peer_not_installed_is_skipped_with_a_line(tmp_path: Path) -> None:
    absent = [p for p in ("hotcoco", "vernier", "ultrafast_pycocotools") if not find_spec(p)]
    if not absent:
        pytest.skip("every peer is installed here")
    name = {"ultrafast_pycocotools": "ultrafast"}.get(absent[0], absent[0])
    stdout, report = run(tmp_path, "--workloads", "bbox", "--evaluators", f"vocviewer-api,{name}")
    assert f"{name}: not installed (pip install -e '.[bench]'): skipped" in stdout
    assert [r["evaluator"] for r in report["rows"]] == ["vocviewer-api"]
    with pytest.raises(AssertionError, match="unknown evaluator"):
        run(tmp_path, "--workloads", "bbox", "--evaluators", "vocviewer-cli,no-such-peer")
