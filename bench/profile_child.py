"""``bench_peers.py --profile``: where vocviewer's own time goes, in one fresh process.

    python bench/profile_child.py PROTOCOL IOU_TYPE GT RESULTS OUT START

The library path the CLI runs (``read_coco`` / ``read_lvis``, the results reader, the
evaluation, the summary), phase by phase, into ``OUT`` (JSON, seconds): ``start`` (interpreter
start, from the parent's ``START`` = its ``time.time()`` at spawn), ``import``, ``bytes`` (both
files' bytes read once: the floor of any reader; the readers then read them again, from the
page cache), ``read_gt``, ``read_results``, then inside the evaluation the time spent in each
hot function (``prepare``, ``IoU``, ``matching``, ``accumulation`` on the numpy path, ``kernel``
where the compiled kernel does all three; a function the code no longer has is reported missing) and the rest (``evaluate_other``), and ``summary``. Wrapping adds about
a microsecond per call.
"""

import json
import sys
import time

T0 = time.time()
CLOCK = time.perf_counter()
PHASES: dict[str, float] = {}
MISSING: list[str] = []
# (module, function looked up there at call time, phase it is counted in)
HOT = {
    "coco": "vocviewer.families.coco.evaluate",
    "lvis": "vocviewer.families.lvis.evaluate",
}
HOT_FUNCTIONS = (
    ("prepare", "prepare"),  # COCO's
    ("federated_prepare", "prepare"),  # LVIS's
    ("similarities", "IoU"),
    ("run_similarities", "IoU"),  # COCO's masks: a run of categories at once
    ("greedy_match", "matching"),
    ("accumulate_category", "accumulation"),
    ("kernel_categories", "kernel"),  # the compiled path: IoU, matching and accumulation at once
)

#: functions a protocol's module does not have by design (the other protocol's)
OPTIONAL = {
    "vocviewer.families.coco.evaluate": ("federated_prepare",),
    "vocviewer.families.lvis.evaluate": ("prepare", "run_similarities"),
}


def mark(phase: str) -> None:
    global CLOCK
    now = time.perf_counter()
    PHASES[phase] = now - CLOCK
    CLOCK = now


def wrap(module: object, name: str, phase: str) -> None:
    """Count the time of every call to ``module.name`` under ``phase``."""
    inner = getattr(module, name, None)
    if inner is None:
        if name not in OPTIONAL.get(module.__name__, ()):  # type: ignore[attr-defined]
            MISSING.append(f"{module.__name__}.{name}")  # type: ignore[attr-defined]
        return
    PHASES.setdefault(phase, 0.0)

    def timed(*args: object, **kwargs: object) -> object:
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            PHASES[phase] += time.perf_counter() - t

    setattr(module, name, timed)


def main(argv: list[str]) -> None:
    protocol, iou, gt, res, out, start = argv
    PHASES["start"] = T0 - float(start)
    import importlib
    from pathlib import Path

    import vocviewer.cli  # noqa: F401  (what the CLI imports before it reads anything)

    if protocol == "lvis":
        from vocviewer.families.lvis.evaluate import evaluate_lvis
        from vocviewer.families.lvis.reader import read_lvis, read_lvis_results
    else:
        from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
        from vocviewer.families.coco.reader import read_coco
        from vocviewer.families.coco.results_reader import read_coco_results
    mark("import")
    size = len(Path(gt).read_bytes()) + len(Path(res).read_bytes())
    mark("bytes")
    hot = importlib.import_module(HOT[protocol])
    for name, phase in HOT_FUNCTIONS:
        wrap(hot, name, phase)
    if protocol == "lvis":
        ds = read_lvis(gt, masks=iou == "segm")
        mark("read_gt")
        rs = read_lvis_results(ds, res, task=iou)
        mark("read_results")
        inner = {phase: PHASES[phase] for _, phase in HOT_FUNCTIONS if phase in PHASES}
        r = evaluate_lvis(ds, rs, iou)
        mark("evaluate_other")
        stats = list(r.summary().values())
    else:
        ds = read_coco(gt, masks=iou == "segm")
        mark("read_gt")
        rs = read_coco_results(ds, res, task=iou, mapped=True)  # (as the CLI reads it)
        mark("read_results")
        inner = {phase: PHASES[phase] for _, phase in HOT_FUNCTIONS if phase in PHASES}
        r = evaluate_coco(ds, rs, CocoParams.for_task(iou))
        mark("evaluate_other")
        stats = list(r.stats().values())
    # the hot functions' time is inside the evaluation's span: take it out of the rest
    PHASES["evaluate_other"] -= sum(PHASES[p] - inner.get(p, 0.0) for p in inner)
    mark("summary")
    with open(out, "w") as fh:
        json.dump({"phases": PHASES, "missing": MISSING, "bytes": size, "stats": stats}, fh)


if __name__ == "__main__":
    main(sys.argv[1:])
