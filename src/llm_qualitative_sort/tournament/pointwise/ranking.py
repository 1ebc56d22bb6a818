"""Pointwise ranks: each item's mean call score, equal scores sharing a rank."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from llm_qualitative_sort.rating.scoring import Scale, call_score, stored_value
from llm_qualitative_sort.tournament.records import round_scores

# Scores are means of a few floats: equal ones may differ in their last bits.
DIGITS = 9


def item_scores(history: Iterable[Any], n_items: int, scale: Scale, inverse: bool
                ) -> list[list[float]]:
    """Each item's call scores (0–1, higher better), from the rounds of a pointwise run.

    A call's facts hold its label and distribution (a call without a label scores nothing).
    """
    scores: list[list[float]] = [[] for _ in range(n_items)]
    for entry in history:
        for item, call in round_scores(entry):
            value = stored_value(call.facts)
            if value is not None:
                scores[item].append(call_score(value, scale, inverse))
    return scores


def mean_score(scores: Sequence[float]) -> float | None:
    """The mean of an item's call scores, rounded so that equal means compare equal."""
    return round(sum(scores) / len(scores), DIGITS) if scores else None


def score_ranks(means: Sequence[float | None]) -> list[tuple[int, list[int]]]:
    """Competition ranks (1, 2, 2, 4) by mean score, best first; unscored items last.

    Example:
        >>> score_ranks([0.5, 1.0, 0.5, None])
        [(1, [1]), (2, [0, 2]), (4, [3])]
    """
    keyed = sorted(range(len(means)), key=lambda i: (means[i] is None, -(means[i] or 0.0), i))
    ranks: list[tuple[int, list[int]]] = []
    position = 0
    for index in keyed:
        position += 1
        if ranks and means[ranks[-1][1][0]] == means[index]:
            ranks[-1][1].append(index)
        else:
            ranks.append((position, [index]))
    return ranks
