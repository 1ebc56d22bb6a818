"""When the top K are settled: the fit expects nearly all of its top K to be the true top K.

The statement behind `stop_when_settled`: the run stops once, by the Bradley–Terry fit's
own uncertainty, at least `LEVEL` (95 %) of the K items it ranks highest are expected to be
among the K strongest. That expected share is the mean, over those K items, of each one's
probability of being in the top K (`BradleyTerryFit.top_k_probability`: joint normal draws
of the fitted strengths, correlations kept) — the Top-K accuracy the fit predicts for
itself, the figure the accuracy study measures.

Why not "every insider is stronger than every outsider at 95 %": items a judge can hardly
tell apart are never separated by any number of calls — the 10th and 11th of the
default mock win 58 % of their calls against each other — so that rule, even with
an indifference margin, did not stop a single run of the study. An expected share tolerates
such a near-tie at the boundary (it costs at most one place in K) while still asking every
other member to be sure. On the study's judges it stopped most runs, at a measured Top-10
within the full budget's spread (documentation: Benchmarks, Strategies).
"""

from __future__ import annotations

import numpy as np

LEVEL = 0.95
# Monte Carlo draws for the top-K probabilities: the expected share of K = 10 is then known
# to about ±0.005 near 0.95, well inside the gap between runs that stop and runs that go on.
SAMPLES = 1000


def expected_top_k_share(strengths: np.ndarray, probabilities: np.ndarray, k: int) -> float:
    """The mean top-K probability of the K strongest: the Top-K accuracy the fit expects.

    Ties in strength go to the lower index, as in the strength order.

    Example:
        >>> expected_top_k_share(np.array([3.0, 2.0, 1.0]), np.array([1.0, 0.6, 0.4]), k=2)
        0.8
    """
    order = np.lexsort((np.arange(len(strengths)), -strengths))
    return float(np.mean(probabilities[order[:k]]))


def top_k_settled(
    strengths: np.ndarray, probabilities: np.ndarray, k: int, *, level: float = LEVEL
) -> bool:
    """Whether the fit expects at least `level` of its top K to be the true top K.

    Args:
        strengths: Fitted strengths, one per item.
        probabilities: Each item's probability of being among the K strongest (summing to K).
        k: How many items the top holds.
        level: The expected share required.

    Example:
        >>> top_k_settled(np.array([5.0, 4.0, 0.0]), np.array([1.0, 0.98, 0.02]), k=2)
        True
        >>> top_k_settled(np.array([5.0, 4.0, 3.9]), np.array([1.0, 0.55, 0.45]), k=2)
        False
    """
    if k >= len(strengths):
        return True
    return expected_top_k_share(strengths, probabilities, k) >= level
