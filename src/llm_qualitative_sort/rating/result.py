"""The rating model of one result: one Bradley–Terry fit, made when first needed, then kept.

`SortResult.scores` needs only the strengths (a cheap fit); `intervals` and
`top_k_probability` need their uncertainty (a fit with standard errors, several times
dearer). Both fits start from the same point and run the same optimisation, so their
strengths are the same numbers: whichever is made first serves the scores, and a fit with
uncertainty, once made, serves everything. A run ranked by wins whose result is never asked
for scores or intervals fits nothing.

Intervals and top-K probabilities are the fit's normal approximation (observed
information at the fitted strengths; see `llm_qualitative_sort.bradley_terry`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from llm_qualitative_sort.rating.fit import DIGITS, BradleyTerryFit, fit_bradley_terry
from llm_qualitative_sort.rating.played import Calls, PlayedMatch, shown_calls, with_calls

LEVEL = 0.95
# Joint draws for top-K probabilities: ±0.011 at worst (a probability of ½); above this many
# items each draw costs a sparse solve, so fewer draws keep a report of 10,000 items quick.
SAMPLES, LARGE_SAMPLES, LARGE = 2000, 500, 2000


class Rating:
    """Lazily fitted strengths, intervals and top-K probabilities of `items`.

    Args:
        items: The ranked items (any order; they are fitted in text order).
        matches: Every match of the run.
        soft: Fit each call's probability as its outcome where it has one (soft verdicts).
        extra: Virtual calls fitted after the real ones, as (first, second, first_won)
            indices into the items in text order (a Swiss pre-pass's scores, the pairs
            its ranking calls imply).
        extra_weight: How much each of `extra` counts (None: each once, as a match's
            calls always do).
    """

    def __init__(self, items: Sequence[str], matches: Sequence[PlayedMatch],
                 soft: bool = False, extra: Calls | None = None,
                 extra_weight: np.ndarray | None = None) -> None:
        self.items = sorted(items)
        self._matches = matches
        self.soft = soft
        self.extra = extra
        self.extra_weight = extra_weight
        self._cheap: BradleyTerryFit | None = None
        self._full: BradleyTerryFit | None = None

    def fit(self, *, uncertainty: bool) -> BradleyTerryFit:
        """The fit; with `uncertainty`, one that carries standard errors."""
        if self._full is not None:
            return self._full
        if not uncertainty and self._cheap is not None:
            return self._cheap
        calls = self.calls()
        fitted = fit_bradley_terry(len(self.items), *calls, uncertainty=uncertainty,
                                   weight=self.weights(calls))
        if uncertainty:
            self._full = fitted
        else:
            self._cheap = fitted
        return fitted

    def calls(self) -> Calls:
        """The calls fitted: `(first, second, first_won)` indices into `items`."""
        return with_calls(shown_calls(self.items, self._matches, self.soft), self.extra)

    def weights(self, calls: Calls) -> np.ndarray | None:
        """How much each of `calls` (this rating's `calls()`) counts; None: each once."""
        if self.extra_weight is None:
            return None
        own = len(calls[0]) - len(self.extra_weight)
        return np.concatenate([np.ones(own), self.extra_weight])

    def scores(self) -> dict[str, float]:
        """Centred log-strength per item, rounded to `DIGITS` (as ranks compare them)."""
        strengths = self.fit(uncertainty=False).strengths
        return {item: round(float(s), DIGITS) for item, s in zip(self.items, strengths,
                                                                 strict=True)}

    def intervals(self) -> dict[str, tuple[float, float]]:
        """The 95 % interval of each item's log-strength."""
        low, high = self.fit(uncertainty=True).intervals(LEVEL)
        return {item: (round(float(lo), DIGITS), round(float(hi), DIGITS))
                for item, lo, hi in zip(self.items, low, high, strict=True)}

    def top_k_probability(self, k: int) -> dict[str, float]:
        """P(item is among the k strongest), from joint draws of the fit (seed 0).

        Raises:
            ValueError: k outside 1..n.
        """
        samples = SAMPLES if len(self.items) <= LARGE else LARGE_SAMPLES
        probabilities = self.fit(uncertainty=True).top_k_probability(k, samples=samples)
        return {item: float(p) for item, p in zip(self.items, probabilities, strict=True)}
