"""The fitted Bradley–Terry model and the fit itself: `BradleyTerryFit`, `fit_bradley_terry`.

Public through `llm_qualitative_sort.bradley_terry`, whose docstring states the model; the
likelihood and its maximiser are in `newton`, the normal approximation in `posterior`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit, ndtri

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.rating.fit_input import checked_calls, start_vector
from llm_qualitative_sort.rating.newton import Vector, maximise
from llm_qualitative_sort.rating.posterior import Normal, normal_approximation

# Published precision, well above the fit's tolerance: ranks group items whose published
# scores are equal, so two items in symmetric positions tie instead of differing by noise.
DIGITS = 5

_DRAW_BATCH = 500


# eq=False: the fields are arrays, for which dataclass equality would be ambiguous.
@dataclass(frozen=True, eq=False)
class BradleyTerryFit:
    """A fitted Bradley–Terry model: centred log-strengths, h, and their uncertainty.

    `standard_errors` and `position_se` are NaN for a fit made with `uncertainty=False`;
    `position` and `position_se` are 0.0 for a fit without the position term.

    Example:
        >>> fit = fit_bradley_terry(2, first=[0, 1] * 10, second=[1, 0] * 10,
        ...                         first_won=[1, 0] * 10)  # item 0 always wins
        >>> low, high = fit.intervals()
        >>> bool(low[0] > 0 > high[1]), fit.top_k_probability(1).round(2).tolist()
        (True, [0.99, 0.01])
    """

    strengths: np.ndarray
    standard_errors: np.ndarray
    position: float
    position_se: float
    _normal: Normal | None = field(default=None, repr=False)

    def intervals(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Wald intervals `strength ± z · SE` of the centred strengths: `(low, high)`."""
        z = _z(level)
        return self.strengths - z * self.standard_errors, self.strengths + z * self.standard_errors

    def position_shift(self, level: float = 0.95) -> tuple[float, float, float]:
        """First-shown advantage as a probability shift at equal strength, with its interval.

        Returns `(σ(h) − ½, low, high)`: how much more often the first-shown of two equal
        items wins than half the time, and the Wald interval of h mapped through σ (so it
        stays inside (−½, ½)).
        """
        z = _z(level)
        h, se = self.position, self.position_se
        low, high = h - z * se, h + z * se
        return float(expit(h)) - 0.5, float(expit(low)) - 0.5, float(expit(high)) - 0.5

    def top_k_probability(self, k: int, *, samples: int = 2000, seed: int = 0) -> np.ndarray:
        """P(item is among the k strongest), shape (n,).

        Monte Carlo over `samples` joint draws of the fit's normal approximation (with the
        correlations between strengths); each draw puts exactly k items in the top k, so the
        probabilities sum to k. Up to 2000 items a draw is a product with the covariance's
        Cholesky factor; above, each draw costs one sparse conjugate-gradient solve (see
        `rating.posterior`). A fit built by hand, without its covariance, draws each
        strength independently from its standard error.

        Raises:
            ValueError: k outside 1..n, samples < 1, or a fit without standard errors.
        """
        n = len(self.strengths)
        if not 1 <= k <= n:
            raise InputError(f"k must lie in 1..{n}, got {k!r}")
        if samples < 1:
            raise InputError(f"samples must be >= 1, got {samples!r}")
        normal = self._normal or _Independent(self.standard_errors)
        rng = np.random.default_rng(seed)
        counts = np.zeros(n)
        for done in range(0, samples, _DRAW_BATCH):
            deviations, _ = normal.draw(min(_DRAW_BATCH, samples - done), rng)
            top = np.argpartition(-(self.strengths + deviations), k - 1, axis=1)[:, :k]
            counts += np.bincount(top.ravel(), minlength=n)
        return counts / samples


class _Independent:
    """Independent normal strengths from standard errors alone (a hand-built fit)."""

    def __init__(self, standard_errors: np.ndarray) -> None:
        if not np.all(np.isfinite(standard_errors)):
            raise InputError("this fit has no standard errors: fit with uncertainty=True")
        self.standard_errors = standard_errors

    def variances(self) -> tuple[Vector, float]:
        return self.standard_errors**2, 0.0

    def draw(self, count: int, rng: np.random.Generator) -> tuple[Vector, Vector]:
        shape = (count, len(self.standard_errors))
        return rng.standard_normal(shape) * self.standard_errors, np.zeros(count)


def _z(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    return float(ndtri(0.5 + level / 2))


def fit_bradley_terry(
    n_items: int,
    first: ArrayLike,
    second: ArrayLike,
    first_won: ArrayLike,
    *,
    position: bool = True,
    prior: float = 1.0,
    start: BradleyTerryFit | np.ndarray | None = None,
    uncertainty: bool = True,
    weight: ArrayLike | None = None,
) -> BradleyTerryFit:
    """Fit strengths (and h) to calls given by item indices in presentation order.

    Args:
        n_items: Number of items; indices run over 0..n_items−1.
        first: Index of the item shown first, per call.
        second: Index of the item shown second, per call.
        first_won: Share of the call won by the first-shown item, in [0, 1].
        position: Estimate the first-position advantage h; False fits h = 0.
        prior: Pseudo-observations per parameter against a reference at 0, half won,
            half lost; must be > 0.
        start: Warm start: a previous fit, or its strengths (same n).
        uncertainty: Compute standard errors (and keep the covariance for
            `top_k_probability`); False makes a cheap fit whose errors are NaN.
        weight: How much each call counts, > 0 (None: each once). A call of weight 2
            counts as two calls with its outcome; the pairs one ranking call implies are
            not independent, so they may count less than 1 each.

    Raises:
        ValueError: Mismatched lengths, an index out of range, first == second, a share
            outside [0, 1], prior <= 0, or a start of the wrong length.

    Example:
        >>> fit = fit_bradley_terry(2, [0, 1], [1, 0], [1.0, 1.0])  # first-shown won twice
        >>> round(float(fit.strengths[0]), 6), fit.position > 0
        (0.0, True)
    """
    calls = checked_calls(n_items, first, second, first_won, prior, position, weight)
    if isinstance(start, BradleyTerryFit):
        theta = start_vector(calls, start.strengths, start.position)
    else:
        theta = start_vector(calls, start, 0.0)
    optimum = maximise(calls, theta)
    n = calls.n
    strengths = optimum.theta[:n] - np.mean(optimum.theta[:n]) if n else np.zeros(0)
    h = float(optimum.theta[n]) if position else 0.0
    if not uncertainty:
        return BradleyTerryFit(strengths, np.full(n, np.nan), h, np.nan if position else 0.0)
    normal = normal_approximation(calls, optimum)
    variances, h_variance = normal.variances()
    return BradleyTerryFit(strengths, np.sqrt(variances), h, float(np.sqrt(h_variance)), normal)
