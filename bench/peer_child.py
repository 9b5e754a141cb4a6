"""One measurement of ``bench_peers.py``: one evaluator, files to stats, in this fresh process.

    python bench/peer_child.py EVALUATOR PROTOCOL IOU_TYPE GT RESULTS OUT START

``PROTOCOL`` is ``coco`` or ``lvis``, ``IOU_TYPE`` ``bbox`` / ``segm`` / ``keypoints``; ``START``
the parent's ``time.time()`` just before it spawned this process. Writes ``OUT`` (JSON): the
summary numbers (``stats``: COCO's 12, keypoints' 10, LVIS's 13 in ``LVISEval.results`` order),
the phases measured in here (seconds: ``start`` interpreter start up to this module's first
line, ``import``, ``load_gt``, ``load_res``, ``evaluate`` = evaluate + accumulate + summarize)
and the process's own peak RSS (``VmHWM``, MB). Only the standard library is imported before
the evaluator's own modules, so every evaluator pays the same start-up.
"""

import json
import sys
import time

T0 = time.time()
CLOCK = time.perf_counter()
LVIS_KEYS = ("AP", "AP50", "AP75", "APs", "APm", "APl", "APr", "APc", "APf")
LVIS_KEYS += ("AR@300", "ARs@300", "ARm@300", "ARl@300")
PHASES: dict[str, float] = {}


def mark(phase: str) -> None:
    """Record the seconds since the previous mark under ``phase``."""
    global CLOCK
    now = time.perf_counter()
    PHASES[phase] = now - CLOCK
    CLOCK = now


def cocoeval_api(module: str, protocol: str, iou: str, gt: str, res: str) -> list[float]:
    """pycocotools' sequence: ``COCO`` + ``loadRes`` + ``COCOeval`` evaluate / accumulate /
    summarize, from the drop-in ``module`` (pycocotools, vocviewer.cocoapi, ultrafast)."""
    if module == "pycocotools":
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
    elif module == "vocviewer.cocoapi":
        from vocviewer.cocoapi import COCO, COCOeval
    else:
        from ultrafast_pycocotools import COCO, COCOeval
    mark("import")
    g = COCO(gt)
    mark("load_gt")
    d = g.loadRes(res)
    mark("load_res")
    if protocol == "lvis":  # ultrafast's federated mode (the others have none)
        e = COCOeval(g, d, iou, lvis_style=True)
        e.evaluate()
        e.accumulate()
        e.summarize()
        mark("evaluate")
        return [e.stats_as_dict[k] for k in LVIS_KEYS]
    e = COCOeval(g, d, iou)
    e.evaluate()
    e.accumulate()
    e.summarize()
    mark("evaluate")
    return [float(x) for x in e.stats]


def faster_coco_eval(protocol: str, iou: str, gt: str, res: str) -> list[float]:
    from faster_coco_eval import COCO, COCOeval_faster

    mark("import")
    g = COCO(gt)
    mark("load_gt")
    d = g.loadRes(res)
    mark("load_res")
    lvis = protocol == "lvis"
    e = COCOeval_faster(g, d, iou, lvis_style=lvis, print_function=lambda *a: None)
    if lvis:  # its summary reads AR at maxDets[2]: LVIS's is 300
        e.params.maxDets = [1, 10, 300]
    e.evaluate()
    e.accumulate()
    e.summarize()
    mark("evaluate")
    if lvis:
        names = ("AP_all", "AP_50", "AP_75", "AP_small", "AP_medium", "AP_large", "APr", "APc")
        names += ("APf", "AR_third", "AR_small", "AR_medium", "AR_large")
        return [float(e.stats_as_dict[k]) for k in names]
    return [float(x) for x in e.stats]


def hotcoco(protocol: str, iou: str, gt: str, res: str) -> list[float]:
    import hotcoco

    mark("import")
    g = hotcoco.COCO(gt)
    mark("load_gt")
    lvis = protocol == "lvis"
    d = hotcoco.LVISResults(g, res, max_dets=300) if lvis else g.load_res(res)
    mark("load_res")
    e = hotcoco.COCOeval(g, d, iou, lvis_style=lvis)
    e.evaluate()
    e.accumulate()
    e.summarize()
    mark("evaluate")
    return [float(x) for x in e.stats]


def vernier(protocol: str, iou: str, gt: str, res: str) -> list[float]:
    from pathlib import Path

    from vernier.instance import Bbox, CocoDataset, Evaluator, Keypoints, Segm

    mark("import")
    if protocol == "lvis":  # the federated path: the grid, then LVIS's summary
        from vernier import _core

        g = CocoDataset.from_lvis_json(Path(gt).read_bytes())
        mark("load_gt")
        d = Path(res).read_bytes()
        mark("load_res")
        grid = getattr(_core, f"evaluate_{iou}_grid")
        cells = grid(g, d, parity_mode="strict", max_dets_per_image=300, use_cats=True)
        stats = cells.accumulate([300]).summarize_lvis(g, [300]).stats
        mark("evaluate")
        return [float(x) for x in stats]
    g = CocoDataset.from_json(Path(gt).read_bytes())
    mark("load_gt")
    d = Path(res).read_bytes()
    mark("load_res")
    kind = {"bbox": Bbox, "segm": Segm, "keypoints": Keypoints}[iou]()
    stats = Evaluator(iou=kind, parity_mode="strict").evaluate(g, d).stats
    mark("evaluate")
    return [float(x) for x in stats]


def lvis_api(protocol: str, iou: str, gt: str, res: str) -> list[float]:
    """The ``lvis`` package (0.5.3, the official LVIS code): LVIS + LVISResults + LVISEval."""
    import warnings

    import numpy as np

    setattr(np, "float", float)  # noqa: B010  (lvis 0.5.3 uses np.float, gone in numpy 1.24)
    from lvis import LVIS, LVISEval, LVISResults

    mark("import")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = LVIS(gt)
        mark("load_gt")
        d = LVISResults(g, res, max_dets=300)
        mark("load_res")
        e = LVISEval(g, d, iou)
        e.run()
    mark("evaluate")
    return [float(e.results[k]) for k in LVIS_KEYS]


RUNNERS = {
    "pycocotools": lambda *a: cocoeval_api("pycocotools", *a),
    "vocviewer-api": lambda *a: cocoeval_api("vocviewer.cocoapi", *a),
    "ultrafast": lambda *a: cocoeval_api("ultrafast", *a),
    "faster-coco-eval": faster_coco_eval,
    "hotcoco": hotcoco,
    "vernier": vernier,
    "lvis": lvis_api,
}


def main(argv: list[str]) -> None:
    name, protocol, iou, gt, res, out, start = argv
    PHASES["start"] = T0 - float(start)
    stats = RUNNERS[name](protocol, iou, gt, res)
    with open("/proc/self/status") as fh:
        hwm = [int(line.split()[1]) / 1024 for line in fh if line.startswith("VmHWM:")]
    with open(out, "w") as fh:
        json.dump({"stats": stats, "phases": PHASES, "vmhwm_mb": hwm[0] if hwm else None}, fh)


if __name__ == "__main__":
    main(sys.argv[1:])
