"""Long-run fuzzer over every reader: mutated valid files and random bytes, each read once.

Targets come from ``tests/formats/fuzz_targets_{voc,coco,other}.py`` (each a ``TARGETS`` list of
``(name, make_valid_bytes(random.Random) -> bytes, read(path) -> object)``); a module that is
absent is skipped with a note. Case ``i`` of a target is fully determined by ``--seed`` and ``i``
(``fuzz_targets_other.make_case``): one in eight is random bytes, the others a valid file with one
to three mutations (bit flips, truncation, insertions of NaN/inf/huge/negative numbers and markup,
a splice with a second valid file, numbers replaced, lines or XML elements deleted or doubled).
A target module may also offer ``mutate(rng, json_object)``: then odd cases use it instead.

A case passes if ``read`` returns, or raises vocviewer's ``FormatError`` naming the file. Anything
else -- another exception, a ``FormatError`` naming no file or another file, a ``MemoryError``
under the per-worker address-space limit (``--memory-gb``), a crash of the worker process, or a
case running past ``--timeout`` seconds (the worker is killed) -- is a failure: its input is saved
as ``FINDINGS/<target>/<kind>-<seed>.bin`` with the reason beside it (``.txt``).

Cases run in ``--workers`` processes (default: all cores). Prints one row per target: cases, ok
with data, ok with a ``FormatError``, failures, wall time.

Usage::

    python bench/fuzz.py [--cases 10000] [--only SUBSTRING ...] [--seed 0]
                              [--timeout 10] [--memory-gb 2] [--workers N] [--findings DIR]
    python bench/fuzz.py --replay TARGET SEED     # one case in this process, traceback shown
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import inspect
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from types import ModuleType
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # thread stacks would eat the RLIMIT_AS budget
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH: another checkout's code can be fuzzed

from vocviewer.core.errors import FormatError  # noqa: E402

MODULES = ("voc", "coco", "other")
Target = tuple[str, Any, Any]


def _load(short: str) -> ModuleType | None:
    name = f"tests.formats.fuzz_targets_{short}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name not in (name, "tests", "tests.formats"):
            raise
    file = ROOT / "tests" / "formats" / f"fuzz_targets_{short}.py"
    if not file.exists():
        return None
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_targets(notes: list[str]) -> list[Target]:
    """Every target of the modules present; a note for each one absent."""
    targets: list[Target] = []
    for short in MODULES:
        module = _load(short)
        if module is None:
            notes.append(f"tests/formats/fuzz_targets_{short}.py not found: its formats skipped")
            continue
        mutate = getattr(module, "mutate", None) if short != "other" else None
        if callable(mutate) and next(iter(inspect.signature(mutate).parameters), "") != "rng":
            mutate = None  # only a JSON-level mutate(rng, obj) is used
        for t in getattr(module, "TARGETS", []):
            targets.append(t)
            if callable(mutate):
                _STRUCTURED[id(t[1])] = mutate
    return targets


#: ``make_valid`` id -> a module's own ``mutate(rng, json_object)`` (the COCO targets have one).
_STRUCTURED: dict[int, Any] = {}


def make_case(make_valid: Any, seed: int) -> tuple[str, bytes]:
    """Case ``seed``: ``fuzz_targets_other.make_case``, or for odd seeds of a target whose module
    has a JSON-level ``mutate(rng, obj)``, one to three of those on a valid file."""
    other = _load("other")
    assert other is not None, "tests/formats/fuzz_targets_other.py holds the mutations"
    structured = _STRUCTURED.get(id(make_valid))
    if structured is not None and seed % 2:
        rng = random.Random(seed)
        try:
            obj = json.loads(make_valid(rng))
        except ValueError:
            obj = None
        if isinstance(obj, (dict, list)):
            for _ in range(rng.randint(1, 3)):
                obj = structured(rng, obj)
            return "mutated-json", json.dumps(obj, allow_nan=True).encode()
    result: tuple[str, bytes] = other.make_case(make_valid, seed)
    return result


def names_file(e: FormatError, path: Path) -> bool:
    return e.path == path or path.name in str(e)


def run_case(target: Target, seed: int, folder: Path) -> tuple[str, str]:
    """``(status, detail)``: status ``data`` / ``error`` pass; anything else is a finding."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        _, data = make_case(target[1], seed)
    except Exception:
        return "generator", traceback.format_exc()
    path = folder / f"fuzzcase-{seed}.in"
    path.write_bytes(data)
    try:
        target[2](path)
    except FormatError as e:
        if names_file(e, path):
            return "error", ""
        return "wrong-file", f"FormatError not naming {path.name}: {e}"
    except MemoryError:
        return "memory", traceback.format_exc()
    except BaseException:
        return "exception", traceback.format_exc()
    return "data", ""


def _worker(conn: Connection, targets: list[Target], memory: int, folder: Path) -> None:
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    while (job := conn.recv()) is not None:
        t, seed = job
        conn.send(run_case(targets[t], seed, folder))


@dataclass
class _Slot:
    """One worker process and the case it runs."""

    index: int
    process: Any = None
    conn: Any = None
    job: tuple[int, int] | None = None
    started: float = 0.0
    folder: Path = field(default_factory=Path)


class Pool:
    """Worker processes that are killed and replaced when a case hangs or crashes them."""

    def __init__(self, targets: list[Target], workers: int, memory: int, tmp: Path) -> None:
        self.targets, self.memory, self.tmp = targets, memory, tmp
        self.ctx = mp.get_context("fork")
        self.slots = [_Slot(k) for k in range(workers)]
        for s in self.slots:
            self._start(s)

    def _start(self, s: _Slot) -> None:
        parent, child = self.ctx.Pipe()
        s.folder = self.tmp / f"w{s.index}-{time.monotonic_ns()}"
        s.process = self.ctx.Process(
            target=_worker, args=(child, self.targets, self.memory, s.folder), daemon=True
        )
        s.process.start()
        child.close()
        s.conn, s.job = parent, None

    def _restart(self, s: _Slot) -> None:
        s.process.kill()
        s.process.join()
        s.conn.close()
        shutil.rmtree(s.folder, ignore_errors=True)
        self._start(s)

    def run(self, jobs: list[tuple[int, int]], timeout: float) -> Any:
        """Yield ``(job, status, detail)`` for every job."""
        todo = list(reversed(jobs))
        while todo or any(s.job for s in self.slots):
            for s in self.slots:
                if s.job is None and todo:
                    s.job, s.started = todo.pop(), time.monotonic()
                    s.conn.send(s.job)
            busy = [s for s in self.slots if s.job is not None]
            deadline = min(s.started for s in busy) + timeout
            ready = wait([s.conn for s in busy], max(0.0, deadline - time.monotonic()))
            for s in busy:
                job = s.job
                assert job is not None
                if s.conn in ready:
                    try:
                        status, detail = s.conn.recv()
                    except (EOFError, OSError):
                        s.process.join()
                        code = s.process.exitcode
                        yield job, "crash", f"worker died (exit code {code}, signal if < 0)"
                        self._start(s)
                        continue
                    s.job = None
                    yield job, status, detail
                elif time.monotonic() - s.started >= timeout:
                    self._restart(s)
                    yield job, "timeout", f"no answer within {timeout:g} s (worker killed)"

    def close(self) -> None:
        for s in self.slots:
            with contextlib.suppress(OSError):
                s.conn.send(None)
            s.process.join(timeout=5)
            if s.process.is_alive():
                s.process.kill()


def _save(findings: Path, target: Target, seed: int, status: str, detail: str) -> Path:
    folder = findings / target[0].replace("/", "_")
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"{status}-{seed}"
    kind, data = make_case(target[1], seed)
    stem.with_suffix(".bin").write_bytes(data)
    text = f"target {target[0]}, seed {seed} ({kind}), {status}\n{detail}\n"
    stem.with_suffix(".txt").write_text(
        text + f"replay: python bench/fuzz.py --replay {target[0]} {seed}\n"
    )
    return stem.with_suffix(".bin")


def replay(targets: list[Target], name: str, seed: int) -> int:
    target = next((t for t in targets if t[0] == name), None)
    if target is None:
        print(f"no target {name!r}; targets: {', '.join(t[0] for t in targets)}")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzzcase-{seed}.in"
        path.write_bytes(make_case(target[1], seed)[1])
        try:
            out = target[2](path)
        except FormatError as e:
            print(f"FormatError ({'names' if names_file(e, path) else 'does NOT name'} the file):")
            print(e)
            return 0
        print(f"data: {type(out).__name__}; problems: {getattr(out, 'problems', '-')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=10_000, help="cases per target (10000)")
    p.add_argument("--only", nargs="*", default=[], help="targets whose name contains one of these")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case (10)")
    p.add_argument("--memory-gb", type=float, default=2.0, help="address space per worker (2)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--findings", type=Path, default=Path("fuzz-findings"))
    p.add_argument("--replay", nargs=2, metavar=("TARGET", "SEED"))
    args = p.parse_args(argv)
    notes: list[str] = []
    targets = load_targets(notes)
    for note in notes:
        print(f"note: {note}")
    if args.replay:
        return replay(targets, args.replay[0], int(args.replay[1]))
    chosen = [
        t for t, x in enumerate(targets) if not args.only or any(o in x[0] for o in args.only)
    ]
    memory = int(args.memory_gb * (1 << 30))
    width = max([len(targets[t][0]) for t in chosen] + [6])
    header = f"{'format':<{width}} {'cases':>7} {'ok-data':>8} {'ok-error':>8} {'failures':>8} {'time':>8}"
    print(header)
    print("-" * len(header))
    total_failures = 0
    with tempfile.TemporaryDirectory(prefix="vocviewer-fuzz-") as tmp:
        for t in chosen:
            pool = Pool(targets, args.workers, memory, Path(tmp))
            counts: Counter[str] = Counter()
            start = time.monotonic()
            jobs = [(t, args.seed * 10_000_000 + i) for i in range(args.cases)]
            for (_, seed), status, detail in pool.run(jobs, args.timeout):
                counts[status] += 1
                if status not in ("data", "error"):
                    saved = _save(args.findings, targets[t], seed, status, detail)
                    last = detail.strip().splitlines()[-1] if detail.strip() else ""
                    print(f"  FINDING {targets[t][0]} seed {seed}: {status}: {last} -> {saved}")
            pool.close()
            failures = args.cases - counts["data"] - counts["error"]
            total_failures += failures
            print(
                f"{targets[t][0]:<{width}} {args.cases:>7} {counts['data']:>8} "
                f"{counts['error']:>8} {failures:>8} {time.monotonic() - start:>7.1f}s",
                flush=True,
            )
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
