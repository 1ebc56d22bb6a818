"""Bradley–Terry strengths, with a first-position term and their uncertainty: no I/O.

The model: item i has log-strength `s_i`; a call that shows `first` then `second` is won by
the first-shown with probability `σ(s_first − s_second + h)`, where `h` is the judge's
first-position advantage (a logit), estimated from the calls. Each LLM call with a verdict
is one observation (a 2–0 match is stronger evidence than 1–1); a share in [0, 1] is
allowed too (0.5 for a draw). A weak prior — `prior` pseudo-observations for every
parameter against a fixed reference at 0, half won, half lost — keeps unbeaten and winless
items finite and connects items that never met; the fit maximises the penalised
likelihood (MAP), and strengths are published centred on mean 0.

Standard errors come from the observed information (the inverse Hessian of the penalised
log-likelihood, h included) of the centred strengths; `BradleyTerryFit.top_k_probability`
samples the same joint normal approximation. The fit is `rating.fit`'s; how it is computed,
and why, is in the modules `rating.newton` and `rating.posterior`; how a run's matches
become the fit's calls (`shown_calls`, `call_observations`) in `rating.played`.

Example:
    >>> fit = fit_bradley_terry(3, first=[0, 1, 1, 2], second=[1, 0, 2, 1],
    ...                         first_won=[1, 0, 1, 0])
    >>> [int(i) for i in fit.strengths.argsort()[::-1]]
    [0, 1, 2]
    >>> bool(fit.intervals()[0][0] < fit.strengths[0] < fit.intervals()[1][0])
    True
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from llm_qualitative_sort.errors import InputError

# `rating.fit`'s and `rating.played`'s names are re-exported (`X as X`): this module is their
# public home.
from llm_qualitative_sort.rating.fit import DIGITS as DIGITS
from llm_qualitative_sort.rating.fit import BradleyTerryFit as BradleyTerryFit
from llm_qualitative_sort.rating.fit import fit_bradley_terry as fit_bradley_terry
from llm_qualitative_sort.rating.played import Observation as Observation
from llm_qualitative_sort.rating.played import PlayedCall as PlayedCall
from llm_qualitative_sort.rating.played import PlayedMatch as PlayedMatch
from llm_qualitative_sort.rating.played import call_observations as call_observations
from llm_qualitative_sort.rating.played import first_share as first_share
from llm_qualitative_sort.rating.played import shown_calls as shown_calls


def fit_strengths(
    items: Sequence[str], observations: Iterable[Observation], *, prior: float = 1.0
) -> dict[str, float]:
    """Log-strengths (centred on mean 0) of `items`, rounded to `DIGITS` decimals.

    Observations in a match's own terms say nothing about presentation order, so this
    fits without the position term (use `shown_calls` and `fit_bradley_terry` for it).

    Args:
        items: Every item to score, including items without observations.
        observations: `(a, b, x)`: a won share `x` of one comparison against b.
        prior: Pseudo-observations per item against a reference of strength 0.

    Raises:
        ValueError: `prior` <= 0, an unknown item, or a share outside [0, 1].

    Example:
        >>> scores = fit_strengths(["a", "b", "c"], [("a", "b", 1.0), ("b", "c", 1.0)])
        >>> [item for _, group in rank_by_score(scores) for item in group]
        ['a', 'b', 'c']
    """
    index = {item: i for i, item in enumerate(items)}
    firsts: list[int] = []
    seconds: list[int] = []
    shares: list[float] = []
    for a, b, share in observations:
        if a not in index or b not in index:
            raise InputError(f"observation ({a!r}, {b!r}) names an item not in items")
        if not 0.0 <= share <= 1.0:
            raise InputError(f"share must lie in [0, 1], got {share!r}")
        firsts.append(index[a])
        seconds.append(index[b])
        shares.append(share)
    fit = fit_bradley_terry(
        len(index), np.array(firsts, np.intp), np.array(seconds, np.intp), shares,
        position=False, prior=prior, uncertainty=False,
    )
    return {item: round(float(fit.strengths[i]), DIGITS) for item, i in index.items()}


def rank_by_score(scores: dict[str, float]) -> list[tuple[int, list[str]]]:
    """Competition ranks (1, 2, 2, 4) by descending score; equal scores share a rank.

    Items of equal score are listed in text order.

    Example:
        >>> rank_by_score({"x": 0.5, "y": -1.0, "z": 0.5})
        [(1, ['x', 'z']), (3, ['y'])]
    """
    groups: dict[float, list[str]] = defaultdict(list)
    for item in sorted(scores):
        groups[scores[item]].append(item)
    ranks: list[tuple[int, list[str]]] = []
    rank = 1
    for score in sorted(groups, reverse=True):
        ranks.append((rank, groups[score]))
        rank += len(groups[score])
    return ranks
