"""Generated YOLO splits (detect / segment / pose) with predictions, for the YOLO tests.

``make_yolo(tmp, kind, seed)`` writes ``tmp/data/data.yaml``, ``images/val/*.png`` (blank images
of varied sizes, so normalised coordinates scale differently per image), ``labels/val/*.txt``,
predictions as a ``--save-txt --save-conf`` folder (``tmp/pred_txt``: jittered objects, some
dropped, duplicates, background boxes, a few images without a file) and as an Ultralytics
``predictions.json`` (``tmp/predictions.json``: stems as image ids, class index + 1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

NAMES = ("cat", "dog", "owl", "fox")
K = 17  # COCO's person keypoints: OKS uses its sigmas


@dataclass(frozen=True)
class YoloCase:
    yaml: Path
    pred_txt: Path
    pred_json: Path
    sizes: dict[str, tuple[int, int]]


def _polygon(rng: np.random.Generator, cx: float, cy: float, w: float, h: float) -> np.ndarray:
    n = int(rng.integers(5, 10))
    t = np.sort(rng.uniform(0, 2 * np.pi, n))
    r = rng.uniform(0.6, 1.0, n)
    return np.column_stack((cx + r * np.cos(t) * w / 2, cy + r * np.sin(t) * h / 2))


def _fmt(vals: list[float] | np.ndarray) -> str:
    return " ".join(f"{float(v):.6f}" for v in vals)


def _line(cls: int, kind: str, cx: float, cy: float, w: float, h: float, extra: np.ndarray) -> str:
    if kind == "segment":
        return f"{cls} {_fmt(np.clip(extra, 0, 1).reshape(-1))}"
    base = f"{cls} {_fmt([cx, cy, w, h])}"
    return base + (f" {_fmt(extra.reshape(-1))}" if kind == "pose" else "")


def make_yolo(tmp: Path, kind: str = "detect", seed: int = 0, n_images: int = 24) -> YoloCase:
    rng = np.random.default_rng(seed)
    root = tmp / "data"
    (root / "images" / "val").mkdir(parents=True)
    (root / "labels" / "val").mkdir(parents=True)
    pred_dir = tmp / "pred_txt"
    pred_dir.mkdir()
    sizes: dict[str, tuple[int, int]] = {}
    preds_json = []
    for i in range(n_images):
        stem = f"{i + 1:06d}"
        w_px, h_px = int(rng.integers(60, 220)), int(rng.integers(60, 220))
        sizes[stem] = (w_px, h_px)
        Image.new("RGB", (w_px, h_px), (40 + 5 * i, 90, 120)).save(
            root / "images" / "val" / f"{stem}.png"
        )
        gt, pr = [], []
        for _ in range(int(rng.integers(0, 5))):
            cls = int(rng.integers(0, len(NAMES)))
            w, h = rng.uniform(0.08, 0.5, 2)
            cx, cy = rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2)
            extra = np.zeros(0)
            if kind == "segment":
                extra = _polygon(rng, cx, cy, w, h)
            elif kind == "pose":
                kp = np.column_stack(
                    (rng.uniform(cx - w / 2, cx + w / 2, K), rng.uniform(cy - h / 2, cy + h / 2, K))
                )
                v = rng.choice([0, 1, 2], K, p=[0.2, 0.2, 0.6]).astype(float)
                kp[v == 0] = 0.0
                extra = np.column_stack((kp, v))
            gt.append(_line(cls, kind, cx, cy, w, h, extra))
            for _ in range(int(rng.random() < 0.85) + int(rng.random() < 0.1)):
                j = rng.normal(0, 0.08, 4)
                pw, ph = w * (1 + j[2]), h * (1 + j[3])
                pcx, pcy = cx + j[0] * w, cy + j[1] * h
                pextra = extra
                if kind == "segment":
                    pextra = extra + rng.normal(0, 0.01, extra.shape)
                elif kind == "pose":
                    pextra = extra.copy()
                    pextra[:, :2] += rng.normal(0, 0.01, (K, 2))
                    pextra[:, 2] = rng.uniform(0, 1, K)
                pcls = cls if rng.random() > 0.1 else int(rng.integers(0, len(NAMES)))
                score = float(np.round(rng.uniform(0.0005, 1.0), 6))
                pr.append(f"{_line(pcls, kind, pcx, pcy, pw, ph, pextra)} {score:.6f}")
        if rng.random() < 0.5:
            score = float(np.round(rng.uniform(0.0, 0.6), 6))
            poly = _polygon(rng, 0.3, 0.3, 0.2, 0.2)
            bg = np.zeros((K, 3)) + 0.3 if kind == "pose" else poly
            pr.append(f"{_line(0, kind, 0.3, 0.3, 0.2, 0.2, bg)} {score:.6f}")
        (root / "labels" / "val" / f"{stem}.txt").write_text("".join(f"{x}\n" for x in gt))
        if pr and rng.random() > 0.1:
            (pred_dir / f"{stem}.txt").write_text("".join(f"{x}\n" for x in pr))
            if kind == "detect":  # the same detections, as Ultralytics' predictions.json
                for line in pr:
                    c, cx, cy, w, h, score = (float(v) for v in line.split())
                    box = [(cx - w / 2) * w_px, (cy - h / 2) * h_px, w * w_px, h * h_px]
                    preds_json.append(
                        {
                            "image_id": int(stem),
                            "category_id": int(c) + 1,
                            "bbox": box,
                            "score": score,
                        }
                    )
    yaml = root / "data.yaml"
    text = "path: .\nval: images/val\nnames:\n" + "".join(
        f"  {i}: {n}\n" for i, n in enumerate(NAMES)
    )
    if kind == "pose":
        text += f"kpt_shape: [{K}, 3]\n"
    yaml.write_text(text)
    pred_json = tmp / "predictions.json"
    pred_json.write_text(json.dumps(preds_json))
    return YoloCase(yaml, pred_dir, pred_json, sizes)
