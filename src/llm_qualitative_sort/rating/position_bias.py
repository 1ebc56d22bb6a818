"""Estimating a judge's first-position advantage h, as a probability shift σ(h) − ½.

Two estimators of the same parameter of the Bradley–Terry model (the first-shown text wins
with probability σ(s_first − s_second + h)):

- **Swapped pairs.** For one pair shown as AB and as BA, P(both first-shown won) /
  P(both second-shown won) = e^{d+h}·e^{h−d} = e^{2h}: the strength gap d cancels. So among
  pairs whose two verdicts disagreed, the share where the first-shown won both estimates
  σ(2h) exactly, with no strengths and no prior on them (the conditional likelihood of
  matched pairs). Its interval is the Jeffreys interval of that binomial share. It costs one
  pass over the calls, so every run can afford it.
- **Model.** For single calls (one call per match), h is fitted by logistic regression on
  the calls with the fitted strengths as offsets, with the same weak prior as the fit.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv, expit, logit

from llm_qualitative_sort.audit import PositionBias

_LEVEL = 0.95
_Z = 1.959963984540054  # the normal quantile of 0.975
_NEWTON_STEPS = 50


def from_swapped_pairs(
    first_both: int, second_both: int, first_wins: int, verdicts: int
) -> PositionBias | None:
    """The advantage from AB/BA pairs that disagreed.

    Args:
        first_both: Disagreeing pairs in which the first-shown text won both calls.
        second_both: Disagreeing pairs in which the second-shown text won both calls.
        first_wins: Calls with a verdict won by the first-shown text (for the plain share).
        verdicts: Calls with a verdict.

    Example:
        >>> bias = from_swapped_pairs(30, 10, 250, 400)
        >>> round(bias.shift, 3), bias.low < bias.shift < bias.high
        (0.13, True)
    """
    if verdicts == 0:
        return None
    a, b = first_both + 0.5, second_both + 0.5  # Jeffreys: Beta(½, ½) before the pairs
    tail = (1 - _LEVEL) / 2
    share = a / (a + b)
    low, high = float(betaincinv(a, b, tail)), float(betaincinv(a, b, 1 - tail))
    return PositionBias(
        shift=_shift(share), low=_shift(low), high=_shift(high),
        first_shown_share=first_wins / verdicts, calls=verdicts, method="swapped_pairs",
        evidence=first_both + second_both,
    )


def _shift(both_first_share: float) -> float:
    """σ(h) − ½ for σ(2h) = `both_first_share`."""
    return float(expit(logit(both_first_share) / 2) - 0.5)


def from_model(gaps: np.ndarray, first_won: np.ndarray, prior: float = 1.0) -> PositionBias | None:
    """The advantage fitted with the strengths held at their estimates.

    Args:
        gaps: s_first − s_second per call with a verdict, from the fitted strengths.
        first_won: 1.0 where the first-shown text won the call, else 0.0.
        prior: Pseudo-calls against h = 0, half won, as in the Bradley–Terry fit.

    Its interval ignores the strengths' own uncertainty, which matters little when each
    item is shown first in about half of its calls (h and the strengths are then almost
    uncorrelated).

    Example:
        >>> bias = from_model(np.zeros(400), np.r_[np.ones(240), np.zeros(160)])
        >>> round(bias.shift, 2), bias.method
        (0.1, 'model')
    """
    if len(gaps) == 0:
        return None
    h = 0.0
    for _ in range(_NEWTON_STEPS):
        p, q = expit(gaps + h), expit(h)
        gradient = float(np.sum(first_won - p)) - prior * (q - 0.5)
        curvature = float(np.sum(p * (1 - p))) + prior * q * (1 - q)
        step = gradient / curvature
        h += float(np.clip(step, -1.0, 1.0))
        if abs(step) < 1e-10:
            break
    se = 1.0 / np.sqrt(curvature)
    return PositionBias(
        shift=float(expit(h) - 0.5), low=float(expit(h - _Z * se) - 0.5),
        high=float(expit(h + _Z * se) - 0.5),
        first_shown_share=float(np.mean(first_won)), calls=len(gaps), method="model",
        evidence=len(gaps),
    )
