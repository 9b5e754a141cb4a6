"""``vocviewer eval --task segm`` keeps the result masks' strings where the results file is
mapped into memory; if another program cuts the file short before they are read (a detector
rewriting its output), the command names the file and exits 1, instead of ending with a bus
error. In a child process: without the guard it is killed by SIGBUS."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kernel.box_masks import write_box_mask_results
from tests.kernel.test_json_truncated import in_child
from vocviewer import kernel

ROOT = Path(__file__).resolve().parents[2]
COCO_MINI = ROOT.parent / "shared" / "data" / "coco-mini" / "annotations"

pytestmark = [
    pytest.mark.skipif(kernel.load("_rle") is None, reason="no _rle kernel here"),
    pytest.mark.skipif(not COCO_MINI.is_dir(), reason="shared coco-mini data absent"),
]


def test_segm_results_cut_short_before_their_masks_are_read(tmp_path: Path) -> None:
    gt_path = COCO_MINI / "instances_val2017.json"
    path = tmp_path / "segm.json"
    write_box_mask_results(gt_path, path, seed=3)
    code = f"""
        import mmap, os, sys
        from vocviewer import cli
        from vocviewer.families.coco import benchmark
        read = benchmark.read_coco_results
        def read_then_cut(*args, **kw):  # another program rewrites the file meanwhile
            results = read(*args, **kw)
            os.truncate({str(path)!r}, mmap.PAGESIZE)
            return results
        benchmark.read_coco_results = read_then_cut
        sys.exit(cli.main(["eval", {str(gt_path)!r}, "--results", {str(path)!r}, "--task", "segm"]))
        """
    done = in_child(code)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert str(path) in done.stderr and "cut short" in done.stderr
    assert "Traceback" not in done.stderr
