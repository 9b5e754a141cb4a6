"""``core.subset.select``: the chosen images' rows of every column, indices renumbered."""

from __future__ import annotations

import numpy as np
import pytest

from vocviewer.core.subset import select
from vocviewer.families.registry import open_dataset
from vocviewer.families.subset_run import read_sets

ROWS = [41, 2, 7, 7, 30, 11, 0]


def test_every_column_follows_the_chosen_images(demo) -> None:
    ds = open_dataset(demo.year_dir)
    sets = read_sets(ds, [demo.results_dir / "Main"], "val")
    people = [
        ds.person_sets[k].image_index[:3].tolist() for k in ("Layout/val", "Action/jumping_val")
    ]
    given = [*ROWS, *people[0], *people[1]]
    sub = select(ds, given, [rs for _, rs in sets])
    rows = sorted(set(given))
    assert sub.rows.tolist() == rows
    assert sub.dataset.images.id.tolist() == ds.images.id[rows].tolist()
    assert sub.dataset.images.path == tuple(ds.images.path[r] for r in rows)
    for new, old in enumerate(rows):
        a, b = sub.dataset.objects_of(new), ds.objects_of(old)
        assert np.array_equal(sub.dataset.objects.box[a], ds.objects.box[b])
        assert np.array_equal(sub.dataset.objects.label[a], ds.objects.label[b])
        assert np.array_equal(sub.dataset.objects.difficult[a], ds.objects.difficult[b])
        assert sub.object_rows[a].tolist() == list(range(b.start, b.stop))
    for name, members in ds.image_sets.items():
        kept = [r for r in members.tolist() if r in rows]
        assert [rows[i] for i in sub.dataset.image_sets[name].tolist()] == kept
    parts = sub.dataset.parts
    assert len(parts) and len(sub.dataset.person_sets["Action/jumping_val"].image_index)
    assert np.array_equal(parts.box, ds.parts.box[np.isin(ds.parts.object_index, sub.object_rows)])
    assert np.array_equal(
        sub.object_rows[parts.object_index],
        ds.parts.object_index[np.isin(ds.parts.object_index, sub.object_rows)],
    )
    for name, persons in sub.dataset.person_sets.items():
        source = ds.person_sets[name]
        chosen = np.isin(source.image_index, rows)
        assert np.array_equal(sub.rows[persons.image_index], source.image_index[chosen])
        known = persons.object_index >= 0
        assert np.array_equal(
            sub.object_rows[persons.object_index[known]], source.object_index[chosen][known]
        )
    d, dr = sub.results[0].detections, sub.detection_rows[0]
    source_d = sets[0][1].detections
    assert np.array_equal(sub.rows[d.image_index], source_d.image_index[dr])
    assert np.array_equal(d.score, source_d.score[dr]) and np.array_equal(d.line, source_d.line[dr])
    assert len(dr) == int(np.isin(source_d.image_index, rows).sum()) > 0


def test_rows_out_of_range_are_refused(demo) -> None:
    ds = open_dataset(demo.year_dir)
    with pytest.raises(ValueError, match="image rows must lie in"):
        select(ds, [0, len(ds.images)])
    assert len(select(ds, []).dataset.images) == 0
