"""When the top K are settled: separated from the rest at a stated confidence.

Items the judge can hardly tell apart can never be separated by more calls, so the rule
has an indifference margin (as in ranking-and-selection procedures): the top K are settled
when no item outside them is, at `LEVEL` one-sided confidence, stronger than an item inside
them by more than `MARGIN` logits (a margin of 0.2 is a judge preferring one text in
55 % of calls). The normal approximation of each strength difference uses the two items'
standard errors.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

LEVEL = 0.95
MARGIN = 0.2
# Only the weakest insiders and strongest outsiders can break the rule; checking this many
# of each keeps the test cheap for any number of items.
CHECKED = 50


def top_k_settled(
    strengths: np.ndarray,
    standard_errors: np.ndarray,
    k: int,
    *,
    level: float = LEVEL,
    margin: float = MARGIN,
) -> bool:
    """Whether the K strongest items are separated from the others.

    Example:
        >>> top_k_settled(np.array([5.0, 4.0, 0.0, -1.0]), np.full(4, 0.3), k=2)
        True
        >>> top_k_settled(np.array([5.0, 4.0, 3.9, -1.0]), np.full(4, 0.3), k=2)
        False
    """
    if k >= len(strengths):
        return True
    order = np.lexsort((np.arange(len(strengths)), -strengths))
    inside, outside = order[:k][-CHECKED:], order[k:][:CHECKED]
    gap = strengths[inside][:, None] - strengths[outside][None, :] + margin
    spread = np.sqrt(standard_errors[inside][:, None] ** 2 + standard_errors[outside][None, :] ** 2)
    return bool(np.all(gap >= norm.ppf(level) * spread))
