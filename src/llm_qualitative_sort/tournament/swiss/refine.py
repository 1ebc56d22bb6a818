"""Top-K refinement: spend the last part of the budget where the K-th place is decided.

After the Swiss rounds, the items that matter for the top K are the K strongest and every
item whose interval straddles the boundary between the K-th and (K+1)-th strengths. Each
refinement round ("wave") pairs every focus item with its nearest focus neighbours at
distances 1, 2, … in parallel, so a few sequential rounds carry many calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from llm_qualitative_sort.tournament.swiss.evidence import pair_key

# Share of the budget kept for refinement when `top_k` is set, and the number of waves it is
# spread over. Chosen by the accuracy study (scripts/accuracy_study.py): see the README.
REFINE_SHARE = 0.2
REFINE_WAVES = 4


def focus_items(strengths: np.ndarray, low: np.ndarray, high: np.ndarray, k: int) -> list[int]:
    """The K+1 strongest and every item whose interval straddles the K-th boundary.

    Strongest first. The (K+1)-th is always in: it is the other side of the boundary.

    Example:
        >>> s = np.array([3.0, 2.0, 1.0, 0.0])
        >>> focus_items(s, s - 0.2, s + 0.2, k=1)
        [0, 1]
        >>> focus_items(s, s - 1.6, s + 1.6, k=1)
        [0, 1, 2]
    """
    order = [int(i) for i in np.lexsort((np.arange(len(strengths)), -strengths))]
    if k >= len(order):
        return order
    boundary = (strengths[order[k - 1]] + strengths[order[k]]) / 2
    return [i for rank, i in enumerate(order) if rank <= k or low[i] <= boundary <= high[i]]


def wave_pairs(
    focus: Sequence[int], calls_per_match: int, calls: int, meetings: Mapping[tuple[int, int], int]
) -> list[tuple[int, int]]:
    """At most `calls` worth of matches among `focus`: nearest neighbours first.

    Pairs at distance 1 in the focus order come first (best first), then distance 2, and so
    on; pairs that met least so far go first within a distance, so calls spread out.

    Example:
        >>> wave_pairs([7, 3, 5], calls_per_match=1, calls=2, meetings={})
        [(7, 3), (3, 5)]
    """
    budget = calls // calls_per_match
    chosen: list[tuple[int, int]] = []
    if len(focus) < 2:
        return chosen
    # A small focus set cannot absorb a wave with one call per pair: pass over it again
    # (each repeat is a fresh judgement), rather than add rounds.
    while len(chosen) < budget:
        for distance in range(1, len(focus)):
            ring = [(focus[p], focus[p + distance]) for p in range(len(focus) - distance)]
            ring.sort(key=lambda pair: meetings.get(pair_key(*pair), 0))
            chosen += ring[: budget - len(chosen)]
            if len(chosen) >= budget:
                break
    return chosen
