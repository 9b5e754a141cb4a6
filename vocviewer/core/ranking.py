"""The one ranking rule shared by every protocol.

Every official ranking sort is stable and descending (PROTOCOLS.md §0.2): equal scores keep their
input order. Negation is exact, so ``-inf`` scores sort last. NaN scores must be rejected before
ranking (readers raise ``FormatError``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def rank_by_score(score: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Indices that sort ``score`` descending; ties keep input order.

    >>> rank_by_score([0.5, 0.9, 0.5, 1.0]).tolist()
    [3, 1, 0, 2]
    """
    s = np.asarray(score, dtype=np.float64)
    return np.argsort(-s, kind="stable").astype(np.int64, copy=False)
