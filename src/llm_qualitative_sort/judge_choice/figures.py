"""The figures that tell judges and prompts apart on labelled pairs: no I/O, no LLM.

- `first_shown_share`: the share of a judge's decided calls (a winner, not a tie) won by
  the text it was shown first, with a percentile bootstrap interval that resamples the
  pairs (a pair's calls go together: the two orders of one pair are not independent).
  0.5 is no lean, whatever the texts, since every pair is shown in both orders.
- `length_logit`: the judge's (or the people's) preference for the longer text, as the
  slope of a logistic regression of "the first text won" on the difference of the two
  texts' standardised log lengths (`rating.covariates.length_feature`): logits per sd of
  log length, with a Wald interval. An intercept takes up any lean toward the first text.
  A slight ridge (`RIDGE`) keeps the fit finite when one side always wins.
- `ordered` and `recommendation`: the rows best first, and which to choose.

Example:
    >>> share = first_shown_share([(0, True), (0, False), (1, True), (1, True)], draws=200)
    >>> share.value
    0.75
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, ndtri

from llm_qualitative_sort.results.agreement import DRAWS, LEVEL, Interval

# A weak Normal(0, 1/RIDGE) prior on the two coefficients: invisible with a few dozen
# calls, it stops a perfectly separated set (every longer text won) from diverging.
RIDGE = 0.01
_NEWTON_STEPS = 50


def first_shown_share(calls: Sequence[tuple[object, bool]], *, level: float = LEVEL,
                      draws: int = DRAWS, seed: int = 0) -> Interval | None:
    """The share of decided calls won by the first-shown text, with its bootstrap interval.

    Args:
        calls: One `(pair, first_won)` per decided call; `pair` is any key that groups the
            calls of one labelled pair.
        level: The interval's coverage.
        draws: Bootstrap draws.
        seed: The generator's seed (the same calls give the same interval).

    Returns:
        None without any decided call.
    """
    if not calls:
        return None
    groups: dict[object, list[bool]] = {}
    for pair, first_won in calls:
        groups.setdefault(pair, []).append(first_won)
    wins = np.array([sum(g) for g in groups.values()], dtype=float)
    sizes = np.array([len(g) for g in groups.values()], dtype=float)
    value = float(wins.sum() / sizes.sum())
    picks = np.random.default_rng(seed).integers(0, len(wins), size=(draws, len(wins)))
    shares = wins[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    tail = (1 - level) / 2
    low, high = np.quantile(shares, [tail, 1 - tail])
    return Interval(value, float(low), float(high))


def length_logit(length_gap: Sequence[float], first_won: Sequence[bool], *,
                 level: float = LEVEL) -> Interval | None:
    """The preference for the longer text, in logits per sd of log length.

    Args:
        length_gap: Per decided call, the first text's standardised log length minus the
            second's.
        first_won: Per call, whether the first text won.
        level: The Wald interval's coverage.

    Returns:
        None with fewer than two calls, or when the gaps do not vary (all texts alike).

    Example:
        >>> gaps = [1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5]
        >>> won = [True, False, True, True, True, False, False, False]
        >>> round(length_logit(gaps, won).value, 2)
        0.97
    """
    x = np.asarray(length_gap, dtype=float)
    y = np.asarray(first_won, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0:
        return None
    design = np.column_stack([np.ones_like(x), x])
    theta = np.zeros(2)
    for _ in range(_NEWTON_STEPS):
        p = expit(design @ theta)
        gradient = design.T @ (y - p) - RIDGE * theta
        information = (design.T * (p * (1 - p))) @ design + RIDGE * np.eye(2)
        step = np.linalg.solve(information, gradient)
        theta += step
        if np.abs(step).max() < 1e-10:
            break
    p = expit(design @ theta)
    information = (design.T * (p * (1 - p))) @ design + RIDGE * np.eye(2)
    error = float(np.sqrt(np.linalg.inv(information)[1, 1]))
    z = float(ndtri(0.5 + level / 2))
    beta = float(theta[1])
    return Interval(beta, beta - z * error, beta + z * error)


@dataclass(frozen=True)
class Ranked:
    """What orders one row: its κ with interval, its agreement and its cost per call."""

    kappa: Interval
    agreement: float | None
    cost_per_call: float | None


def ordered(rows: Sequence[Ranked]) -> list[int]:
    """The rows' indices best first: higher κ, then higher agreement, then cheaper.

    A row without κ (no verdict, or a single label throughout) comes last.

    Example:
        >>> rows = [Ranked(Interval(0.2, 0.1, 0.3), 0.6, None),
        ...         Ranked(Interval(0.5, 0.4, 0.6), 0.7, 0.01),
        ...         Ranked(Interval(None, None, None), None, None)]
        >>> ordered(rows)
        [1, 0, 2]
    """
    def key(index: int) -> tuple[bool, float, float, float, int]:
        row = rows[index]
        kappa = row.kappa.value
        return (kappa is None, -(kappa or 0.0), -(row.agreement or 0.0),
                row.cost_per_call if row.cost_per_call is not None else np.inf, index)

    return sorted(range(len(rows)), key=key)


def unsettled_with(best: Ranked, others: Sequence[Ranked]) -> list[int]:
    """The indices of `others` whose κ interval overlaps `best`'s: not told apart from it.

    A row whose interval is unknown (too few pairs to resample) overlaps any row.

    Example:
        >>> best = Ranked(Interval(0.5, 0.4, 0.6), 0.7, None)
        >>> unsettled_with(best, [Ranked(Interval(0.35, 0.3, 0.45), 0.6, None),
        ...                       Ranked(Interval(0.1, 0.0, 0.2), 0.5, None)])
        [0]
    """
    if best.kappa.low is None:
        return [k for k, row in enumerate(others) if row.kappa.value is not None]
    return [k for k, row in enumerate(others)
            if row.kappa.value is not None and (row.kappa.high is None
                                                or row.kappa.high >= best.kappa.low)]
