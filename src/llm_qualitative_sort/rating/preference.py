"""The judge's preference for per-item covariates, fitted to one result's calls.

A covariate is a number per item: "length" (each text's log length in characters), or a
numeric field of every item. The run's calls are fitted with each item's strength split
in two (see `structured`): the covariates' part `x_i · β` and a residual of the item's
own. β is the judge's preference, in logits per standard deviation of the covariate; the
residuals, with their intervals, rank the items as if every item had the same covariates
(`results.adjusted` reports that order beside the judge's own).

Runs of more than `structured.STRUCTURED_LIMIT` items are fitted in two stages instead:
the run's Bradley–Terry strengths regressed on the covariates (`covariates`), which
overstates β somewhat (`scripts/length_study.py`). The fits load SciPy's optimizers: a
result imports this module only when its `length_preference` is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_qualitative_sort.audit import CovariateEffect, EffectMethod
from llm_qualitative_sort.rating.covariates import covariate_effects, standardised
from llm_qualitative_sort.rating.result import LEVEL, Rating
from llm_qualitative_sort.rating.structured import STRUCTURED_LIMIT, fit_structured

Vector = NDArray[np.float64]
LENGTH = "length"


def length_preference(rating: Rating) -> CovariateEffect | None:
    """The judge's preference for longer texts in a run; None when it cannot be told.

    None for fewer than three items, texts all of one length, or no call with a verdict.

    Example:
        >>> from llm_qualitative_sort.verdicts import MatchResult, RoundResult
        >>> call = RoundResult("AB", "A", "", False)  # the shorter text wins each match
        >>> matches = [MatchResult("a", "bb bb", "A", [call]),
        ...            MatchResult("bb bb", "ccc ccc ccc", "A", [call])]
        >>> effect = length_preference(Rating(["a", "bb bb", "ccc ccc ccc"], matches))
        >>> effect.covariate, effect.method, effect.beta < 0
        ('length', 'structured', True)
    """
    items = rating.items
    lengths = np.log([max(len(text), 1) for text in items])
    if len(items) < 3 or not np.ptp(lengths) or not rating.calls()[0].size:
        return None
    effects, _, _ = covariate_fit(rating, {LENGTH: lengths})
    return effects[0]


def covariate_fit(rating: Rating, columns: dict[str, Vector],
                  ) -> tuple[tuple[CovariateEffect, ...], Vector, Vector]:
    """The judge's effect of each covariate, and the items' strengths with them taken out.

    Up to `STRUCTURED_LIMIT` items the structured model is fitted to the calls; above, the
    run's strengths are regressed on the covariates (two stages).

    Args:
        rating: The result's rating model.
        columns: Each covariate's values over `rating.items`, in their order.

    Returns:
        The effects, in the order of `columns`; the residual strengths, centred; and
        their standard errors.
    """
    n = len(rating.items)
    if n <= STRUCTURED_LIMIT:
        fit = fit_structured(n, *rating.calls(), columns, level=LEVEL)
        return (rounded_effects(fit.effects, "structured"), fit.residuals, fit.residual_errors)
    full = rating.fit(uncertainty=True)
    found = covariate_effects(full.strengths, full.standard_errors, columns, level=LEVEL)
    x = np.column_stack([standardised(column) for column in columns.values()])
    beta = np.array([effect.beta for effect in found.values()])
    spread = np.array([effect.standard_error for effect in found.values()])
    residuals = full.strengths - x @ beta
    errors = np.sqrt(np.nan_to_num(full.standard_errors) ** 2 + (x**2) @ spread**2)
    return rounded_effects(found, "two_stage"), residuals - residuals.mean(), errors


def rounded_effects(found: Mapping[str, Any], method: EffectMethod,
                    ) -> tuple[CovariateEffect, ...]:
    """Fitted effects (`rating.covariates.Effect`s, by name) as the audit reports them."""
    return tuple(CovariateEffect(name, round(e.beta, 6), round(e.standard_error, 6),
                                 round(e.low, 6), round(e.high, 6), method)
                 for name, e in found.items())
