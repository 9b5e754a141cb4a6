"""``COCO``: pycocotools' annotation / results holder, with the same attributes and lookups.

The dictionaries (``dataset``, ``anns``, ``imgs``, ``cats``, ``imgToAnns``, ``catToImgs``) and
every lookup behave as pycocotools' ``COCO`` (its BSD-licensed ``coco.py`` is the reference); the
messages it prints are printed too, so logs look the same. What differs is underneath: the first
``COCOeval`` over this object turns ``dataset`` into vocviewer's columns (``columns.py``) once and
keeps them until ``createIndex()`` runs again. ``showAnns`` and ``download`` are not offered
(``NotImplementedError``): this package has no plotting and no network access.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import itertools
import json
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, cast

import numpy as np
import numpy.typing as npt

import vocviewer.cocoapi.compact as compact
import vocviewer.cocoapi.mask as mask_utils


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: millions of fresh dicts and lists (a parsed results
    file, ``loadRes``' completion, the index) would set it off again and again for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_json_file(path: Any) -> Any:
    """The JSON document in the file ``path``, as ``json.load`` gives it (``load_json``)."""
    with open(path, "rb") as f:
        return load_json(f.read())


def load_json(data: bytes) -> Any:
    """The JSON document ``data``, as ``json.load`` gives it: decoded by ``msgspec`` (the same
    dicts, lists, ints and correctly rounded floats, 2-3x faster); anything msgspec refuses
    (``NaN``, a huge integer, bad JSON) is read by ``json`` itself, so what is accepted and
    every error message are ``json``'s."""
    try:
        import msgspec

        return msgspec.json.decode(data)
    except (ImportError, ValueError):  # msgspec.DecodeError is a ValueError
        return json.loads(data.decode("utf-8"))  # as json.load of the file opened as text


def say(text: str) -> None:
    """Print a progress line as pycocotools does (training logs expect them)."""
    sys.stdout.write(text + "\n")


def _is_array_like(obj: Any) -> bool:
    return hasattr(obj, "__iter__") and hasattr(obj, "__len__")


class COCO:
    """pycocotools' ``COCO(annotation_file=None)``: load a COCO JSON and index it.

    ``dataset``, ``anns``, ``imgToAnns`` and ``catToImgs`` are decoded from the file on first
    read when the compiled scanner took it (``compact.py``); ``imgs`` and ``cats`` always are
    plain dicts."""

    _lazy: compact.Lazy | None = None  # (also for objects made without ``__init__``)

    def __init__(self, annotation_file: str | None = None) -> None:
        self._lazy: compact.Lazy | None = None  # the file not yet decoded into dicts
        self._dataset: dict[str, Any] = {}
        self._anns: dict[Any, dict[str, Any]] = {}
        self.cats: dict[Any, dict[str, Any]] = {}
        self.imgs: dict[Any, dict[str, Any]] = {}
        self._img_to_anns: defaultdict[Any, list[dict[str, Any]]] = defaultdict(list)
        self._cat_to_imgs: defaultdict[Any, list[Any]] = defaultdict(list)
        self._columns: dict[Any, Any] = {}  # vocviewer's columns, per use (see columns.py)
        #: ``loadRes``' RLE strings and their decoded ``(counts, offsets)`` (or None)
        self.decoded_rles: tuple[list[Any], tuple[Any, Any]] | None = None
        if annotation_file is not None:
            say("loading annotations into memory...")
            tic = time.time()
            with paused_gc():
                with open(annotation_file, "rb") as f:
                    data = f.read()
                found = compact.read_ground_truth(data) if type(self) is COCO else None
                dataset = load_json(data) if found is None else found[0]
            assert type(dataset) is dict, f"annotation file format {type(dataset)} not supported"
            say(f"Done (t={time.time() - tic:0.2f}s)")
            if found is None:
                self.dataset = dataset
                self.createIndex()
            else:
                self._dataset, self._lazy = dataset, found[1]
                self._index_lazily()

    # --- the dicts, decoded on first read --------------------------------------------------------
    @property
    def dataset(self) -> dict[str, Any]:
        """The JSON document (pycocotools' ``dataset``)."""
        self._materialize()
        return self._dataset

    @dataset.setter
    def dataset(self, value: dict[str, Any]) -> None:
        self._materialize()
        self._dataset = value

    @property
    def anns(self) -> dict[Any, dict[str, Any]]:
        """Annotation by id."""
        self._materialize()
        return self._anns

    @anns.setter
    def anns(self, value: dict[Any, dict[str, Any]]) -> None:
        self._materialize()
        self._anns = value

    @property
    def imgToAnns(self) -> defaultdict[Any, list[dict[str, Any]]]:
        """An image id's annotations, in list order."""
        self._materialize()
        return self._img_to_anns

    @imgToAnns.setter
    def imgToAnns(self, value: defaultdict[Any, list[dict[str, Any]]]) -> None:
        self._materialize()
        self._img_to_anns = value

    @property
    def catToImgs(self) -> defaultdict[Any, list[Any]]:
        """A category id's image ids, one per annotation."""
        self._materialize()
        return self._cat_to_imgs

    @catToImgs.setter
    def catToImgs(self, value: defaultdict[Any, list[Any]]) -> None:
        self._materialize()
        self._cat_to_imgs = value

    def __getstate__(self) -> dict[str, Any]:
        self._materialize()
        return self.__dict__

    def __setstate__(self, state: dict[str, Any]) -> None:
        for public, private in _VIEWS:  # pickled before the views were properties
            if public in state:
                state.setdefault(private, state.pop(public))
        self.__dict__.update(state)

    def _index_lazily(self) -> None:
        """``createIndex`` while the annotations are not decoded: ``imgs`` and ``cats`` now,
        the annotation indexes with the dicts (``_materialize``)."""
        say("creating index...")
        self.imgs = {img["id"]: img for img in self._dataset.get("images", ())}
        self.cats = {cat["id"]: cat for cat in self._dataset.get("categories", ())}
        say("index created!")
        self._columns = {}

    def _materialize(self) -> None:
        """Decode the annotation dicts (if not yet) and index them as ``createIndex`` does;
        ``imgs`` and ``cats`` stay the objects they are (edits to them kept)."""
        lazy = self._lazy
        if lazy is None:
            return
        with paused_gc():
            try:
                anns = lazy.decode()
            except ValueError:
                anns = json.loads(bytes(lazy.data).decode("utf-8"))
            if lazy.results:
                _complete_boxes(anns)
            self._dataset["annotations"] = anns
            self._lazy = None
            self._anns, self._img_to_anns = _by_id_and_image(self._dataset)
            self._cat_to_imgs = _images_by_category(self._dataset)
        self._columns = {}

    def createIndex(self) -> None:
        """Build ``anns``, ``imgs``, ``cats``, ``imgToAnns`` and ``catToImgs`` from ``dataset``."""
        with paused_gc():
            self._create_index()

    def _create_index(self) -> None:
        self._materialize()
        say("creating index...")
        dataset = self._dataset
        imgs: dict[Any, dict[str, Any]] = {}
        cats: dict[Any, dict[str, Any]] = {}
        anns, img_to_anns = _by_id_and_image(dataset)
        if "images" in dataset:
            for img in dataset["images"]:
                imgs[img["id"]] = img
        if "categories" in dataset:
            for cat in dataset["categories"]:
                cats[cat["id"]] = cat
        cat_to_imgs = _images_by_category(dataset)
        say("index created!")
        self._anns, self._img_to_anns, self._cat_to_imgs = anns, img_to_anns, cat_to_imgs
        self.imgs, self.cats = imgs, cats
        self._columns = {}

    def info(self) -> None:
        """Print the ``info`` section."""
        for key, value in self._dataset["info"].items():
            say(f"{key}: {value}")

    def getAnnIds(
        self,
        imgIds: Any = (),
        catIds: Any = (),
        areaRng: Any = (),
        iscrowd: bool | None = None,
    ) -> list[Any]:
        """Annotation ids of the given images and categories, with ``area`` strictly inside
        ``areaRng`` and the given ``iscrowd``; an empty filter skips it."""
        imgIds = imgIds if _is_array_like(imgIds) else [imgIds]
        catIds = catIds if _is_array_like(catIds) else [catIds]
        if len(imgIds) == len(catIds) == len(areaRng) == 0:
            anns = self.dataset["annotations"]
        else:
            if len(imgIds) != 0:
                lists = [self.imgToAnns[i] for i in imgIds if i in self.imgToAnns]
                anns = list(itertools.chain.from_iterable(lists))
            else:
                anns = self.dataset["annotations"]
            if len(catIds) != 0:
                anns = [a for a in anns if a["category_id"] in catIds]
            if len(areaRng) != 0:
                anns = [a for a in anns if areaRng[0] < a["area"] < areaRng[1]]
        if iscrowd is not None:
            return [a["id"] for a in anns if a["iscrowd"] == iscrowd]
        return [a["id"] for a in anns]

    def getCatIds(self, catNms: Any = (), supNms: Any = (), catIds: Any = ()) -> list[Any]:
        """Category ids with the given names, supercategory names and ids."""
        catNms = catNms if _is_array_like(catNms) else [catNms]
        supNms = supNms if _is_array_like(supNms) else [supNms]
        catIds = catIds if _is_array_like(catIds) else [catIds]
        cats = self._dataset["categories"]
        if len(catNms) != 0:
            cats = [c for c in cats if c["name"] in catNms]
        if len(supNms) != 0:
            cats = [c for c in cats if c["supercategory"] in supNms]
        if len(catIds) != 0:
            cats = [c for c in cats if c["id"] in catIds]
        return [c["id"] for c in cats]

    def getImgIds(self, imgIds: Any = (), catIds: Any = ()) -> list[Any]:
        """Image ids among ``imgIds`` holding every category of ``catIds`` (set order)."""
        imgIds = imgIds if _is_array_like(imgIds) else [imgIds]
        catIds = catIds if _is_array_like(catIds) else [catIds]
        if len(imgIds) == len(catIds) == 0:
            return list(self.imgs.keys())
        ids = set(imgIds)
        for i, cat_id in enumerate(catIds):
            if i == 0 and len(ids) == 0:
                ids = set(self.catToImgs[cat_id])
            else:
                ids &= set(self.catToImgs[cat_id])
        return list(ids)

    @staticmethod
    def _load(table: dict[Any, dict[str, Any]], ids: Any) -> list[dict[str, Any]] | None:
        if _is_array_like(ids):
            return [table[i] for i in ids]
        if type(ids) is int:
            return [table[ids]]
        return None

    def loadAnns(self, ids: Any = ()) -> list[dict[str, Any]] | None:
        """The annotations with these ids (a list; one int gives a list of one)."""
        return self._load(self.anns, ids)

    def loadCats(self, ids: Any = ()) -> list[dict[str, Any]] | None:
        """The categories with these ids."""
        return self._load(self.cats, ids)

    def loadImgs(self, ids: Any = ()) -> list[dict[str, Any]] | None:
        """The images with these ids."""
        return self._load(self.imgs, ids)

    def showAnns(self, anns: Any, draw_bbox: bool = False) -> None:
        """Not offered: vocviewer draws annotations in its window (``vocviewer <dataset>``)."""
        raise NotImplementedError("showAnns: use pycocotools or the vocviewer window to draw")

    def download(self, tarDir: str | None = None, imgIds: Any = ()) -> None:
        """Not offered: no network access."""
        raise NotImplementedError("download: fetch COCO images with pycocotools or by hand")

    def loadRes(self, resFile: Any) -> COCO:
        """See ``_load_res``."""
        with paused_gc():
            return self._load_res(resFile)

    def _load_res(self, resFile: Any) -> COCO:
        """A ``COCO`` of results: a JSON file name, a list of result dicts (completed in place
        with ``area``, ``id``, ``iscrowd`` and ``bbox`` / ``segmentation`` as pycocotools does)
        or a numpy array ``(N, 7)`` of ``image_id, x, y, w, h, score, category_id``."""
        res = COCO()
        res.dataset["info"] = copy.deepcopy(self._dataset.get("info", {}))
        res.dataset["images"] = list(self._dataset["images"])
        say("Loading and preparing results...")
        tic = time.time()
        if type(resFile) is str:
            with open(resFile, "rb") as f:
                data = f.read()
            lazy = compact.read_results(data)
            if lazy is not None:  # box results, their dicts decoded when first read
                assert compact.on_known_images(lazy, self.getImgIds()), (
                    "Results do not correspond to current coco set"
                )
                res._dataset["categories"] = copy.deepcopy(self._dataset["categories"])
                res._dataset["annotations"] = None
                res._lazy = lazy
                say(f"DONE (t={time.time() - tic:0.2f}s)")
                res._index_lazily()
                return res
            anns = load_json(data)
        elif type(resFile) is np.ndarray:
            anns = self.loadNumpyAnnotations(resFile)
        else:
            anns = resFile
        assert type(anns) is list, "results in not an array of objects"
        ann_img_ids = {a["image_id"] for a in anns}
        assert ann_img_ids == (ann_img_ids & set(self.getImgIds())), (
            "Results do not correspond to current coco set"
        )
        decoded: list[Any] = [None]
        _complete(anns, self._dataset, res.dataset, decoded)
        say(f"DONE (t={time.time() - tic:0.2f}s)")
        res.dataset["annotations"] = anns
        res.createIndex()
        res.decoded_rles = decoded[0]
        return res

    def loadNumpyAnnotations(self, data: npt.NDArray[Any]) -> list[dict[str, Any]]:
        """Rows ``image_id, x, y, w, h, score, category_id`` → result dicts (numpy scalars
        kept, as pycocotools keeps them)."""
        say("Converting ndarray to lists...")
        assert type(data) is np.ndarray
        say(str(data.shape))
        assert data.shape[1] == 7
        n = data.shape[0]
        out = []
        for i in range(n):
            if i % 1000000 == 0:
                say(f"{i}/{n}")
            out.append(
                {
                    "image_id": int(data[i, 0]),
                    "bbox": [data[i, 1], data[i, 2], data[i, 3], data[i, 4]],
                    "score": data[i, 5],
                    "category_id": int(data[i, 6]),
                }
            )
        return out

    def annToRLE(self, ann: dict[str, Any]) -> dict[str, Any]:
        """The annotation's mask as a compressed RLE dict (polygons merged, at image size)."""
        t = self.imgs[ann["image_id"]]
        h, w = t["height"], t["width"]
        segm = ann["segmentation"]
        if type(segm) is list:
            polygons = mask_utils.frPyObjects(segm, h, w)
            assert isinstance(polygons, list)
            return mask_utils.merge(polygons)
        if type(segm["counts"]) is list:
            rle = mask_utils.frPyObjects(segm, h, w)
            assert isinstance(rle, dict)
            return rle
        return cast(dict[str, Any], segm)  # compressed: the annotation's own dict

    def annToMask(self, ann: dict[str, Any]) -> npt.NDArray[np.uint8]:
        """The annotation's mask, uint8 ``(h, w)``."""
        return mask_utils.decode(self.annToRLE(ann))


#: the views decoded on first read and the attributes behind them
_VIEWS = (
    ("dataset", "_dataset"),
    ("anns", "_anns"),
    ("imgToAnns", "_img_to_anns"),
    ("catToImgs", "_cat_to_imgs"),
)


def _by_id_and_image(
    dataset: dict[str, Any],
) -> tuple[dict[Any, dict[str, Any]], defaultdict[Any, list[dict[str, Any]]]]:
    """``createIndex``'s ``anns`` and ``imgToAnns`` of ``dataset``."""
    anns: dict[Any, dict[str, Any]] = {}
    img_to_anns: defaultdict[Any, list[dict[str, Any]]] = defaultdict(list)
    if "annotations" in dataset:
        for ann in dataset["annotations"]:
            img_to_anns[ann["image_id"]].append(ann)
            anns[ann["id"]] = ann
    return anns, img_to_anns


def _images_by_category(dataset: dict[str, Any]) -> defaultdict[Any, list[Any]]:
    """``createIndex``'s ``catToImgs`` of ``dataset``."""
    cat_to_imgs: defaultdict[Any, list[Any]] = defaultdict(list)
    if "annotations" in dataset and "categories" in dataset:
        for ann in dataset["annotations"]:
            cat_to_imgs[ann["category_id"]].append(ann["image_id"])
    return cat_to_imgs


def _complete_boxes(anns: list[dict[str, Any]]) -> None:
    """``loadRes``' completion of box results: ``segmentation`` (the box's outline, if none),
    ``area = w * h``, ``id = i + 1``, ``iscrowd = 0``."""
    for i, a in enumerate(anns):
        bb = a["bbox"]
        if "segmentation" not in a:
            x1, x2, y1, y2 = bb[0], bb[0] + bb[2], bb[1], bb[1] + bb[3]
            a["segmentation"] = [[x1, y1, x1, y2, x2, y2, x2, y1]]
        a["area"] = bb[2] * bb[3]
        a["id"] = i + 1
        a["iscrowd"] = 0


def _complete(
    anns: list[dict[str, Any]], gt: dict[str, Any], res: dict[str, Any], decoded_for: list[Any]
) -> None:
    """``loadRes``' completion of the result dicts, chosen by the first one's fields; for RLE
    results, ``decoded_for[0]`` gets the compressed strings and their decoded columns."""
    if not anns:
        raise IndexError("list index out of range")  # pycocotools reads anns[0]
    first = anns[0]
    if "caption" in first:
        img_ids = {img["id"] for img in res["images"]} & {a["image_id"] for a in anns}
        res["images"] = [img for img in res["images"] if img["id"] in img_ids]
        for i, a in enumerate(anns):
            a["id"] = i + 1
    elif "bbox" in first and first["bbox"] != []:
        res["categories"] = copy.deepcopy(gt["categories"])
        _complete_boxes(anns)
    elif "segmentation" in first:
        res["categories"] = copy.deepcopy(gt["categories"])
        segs = [a["segmentation"] for a in anns]
        areas, boxes, decoded = mask_utils.area_and_bbox(segs)
        decoded_for[0] = ([s["counts"] for s in segs], decoded)
        for i, a in enumerate(anns):
            a["area"] = areas[i]
            if "bbox" not in a:
                a["bbox"] = boxes[i]
            a["id"] = i + 1
            a["iscrowd"] = 0
    elif "keypoints" in first:
        res["categories"] = copy.deepcopy(gt["categories"])
        for i, a in enumerate(anns):
            s = a["keypoints"]
            x, y = s[0::3], s[1::3]
            x0, x1, y0, y1 = np.min(x), np.max(x), np.min(y), np.max(y)
            a["area"] = (x1 - x0) * (y1 - y0)
            a["id"] = i + 1
            a["bbox"] = [x0, y0, x1 - x0, y1 - y0]
