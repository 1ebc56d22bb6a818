"""Each item's score, 95 % interval and top-K probability, as every report shows them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort.models import SortResult

DEFAULT_TOP_K = 10
METHOD = ("Bradley–Terry fit with a first-position term (prior 1); 95 % Wald intervals and "
          "top-K probabilities from its normal approximation (observed information)")
POINTWISE_METHOD = ("mean of each text's call scores (its expected labels, 0–1); 95 % intervals "
                    "mean ± 1.96 standard errors over its repetitions; top-K probabilities from "
                    "normal draws of the means")


def method_of(result: SortResult) -> str:
    """How the scores, intervals and top-K probabilities of `result` were found."""
    return POINTWISE_METHOD if result.pointwise else METHOD


@dataclass(frozen=True)
class ItemUncertainty:
    """What the rating model says about one item."""

    score: float
    low: float
    high: float
    top_k: float


def report_top_k(settings: Mapping[str, Any] | None, n_items: int) -> int:
    """The K of "probability of being in the top K": the run's `top_k` (at most n), else 10.

    With fewer than 20 items and no `top_k`, half of them (rounded down; 1 for a lone item):
    a top K that holds every item, or nearly, is certain and says nothing (a top 10 of 12).

    Example:
        >>> report_top_k({}, 200), report_top_k({}, 12), report_top_k({}, 8)
        (10, 6, 4)
        >>> report_top_k({"top_k": 3}, 8), report_top_k({"top_k": 30}, 8)
        (3, 8)
    """
    given = (settings or {}).get("top_k")
    k = given if isinstance(given, int) and not isinstance(given, bool) and given > 0 else None
    if k is not None:
        return min(k, n_items)
    return min(DEFAULT_TOP_K, max(n_items // 2, min(n_items, 1)))  # a lone item: its top 1


def uncertainty(result: SortResult, k: int) -> dict[str, ItemUncertainty]:
    """Score, interval and P(top k) of every ranked item ({} for a result without items)."""
    if k < 1:
        return {}
    scores, intervals = result.scores, result.intervals
    top = result.top_k_probability(k)
    return {item: ItemUncertainty(scores[item], *intervals[item], top[item]) for item in scores}
