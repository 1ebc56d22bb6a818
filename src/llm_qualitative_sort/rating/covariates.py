"""How much per-item covariates (a text's length, say) explain a set of fitted strengths.

The structured model: each item's strength is a linear function of its covariates plus a
residual of its own,

    s_i = c + x_i · β + r_i,   r_i ~ Normal(0, τ²),

observed through a Bradley–Terry fit as `ŝ_i` with standard error `se_i`. β, c and τ are
estimated by maximum likelihood on `ŝ` (each item weighted by `1 / (τ² + se_i²)`), β with
its generalised-least-squares interval. With covariates standardised (mean 0, sd 1), β is
in logits per standard deviation: "+0.31" says that one sd more of the covariate goes with
0.31 logit more strength, other covariates held equal.

This describes, it does not judge: a judge's length effect is partly real quality (people
prefer longer arguments too). Set beside the same effect fitted to people's verdicts on the
same items, the difference is the judge's preference beyond people's.

Example:
    >>> import numpy as np
    >>> x = standardised(np.linspace(-2, 2, 50))
    >>> effect = covariate_effects(0.5 * x, np.full(50, 0.1), {"length": x})["length"]
    >>> round(effect.beta, 3)
    0.5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.special import ndtri

from llm_qualitative_sort.errors import InputError

Vector = NDArray[np.float64]


@dataclass(frozen=True)
class Effect:
    """One covariate's effect on strength, in logits per standard deviation.

    Attributes:
        beta: The estimate.
        standard_error: Its standard error.
        low: The interval's lower end.
        high: Its upper end.
        level: The interval's coverage.
    """

    beta: float
    standard_error: float
    low: float
    high: float
    level: float


def standardised(values: ArrayLike) -> Vector:
    """`values` centred on 0 and scaled to sd 1 (all zeros when they do not vary).

    Example:
        >>> standardised([1.0, 2.0, 3.0]).round(3).tolist()
        [-1.225, 0.0, 1.225]
    """
    array = np.asarray(values, dtype=float)
    spread = array.std()
    return (array - array.mean()) / spread if spread > 0 else np.zeros_like(array)


def length_feature(texts: Sequence[str]) -> Vector:
    """Each text's log length in characters, standardised over `texts`.

    Characters rather than words, so that texts without spaces (Japanese) count alike.
    """
    return standardised(np.log([max(len(text), 1) for text in texts]))


def covariate_effects(strengths: ArrayLike, standard_errors: ArrayLike,
                      covariates: Mapping[str, ArrayLike], *,
                      level: float = 0.95) -> dict[str, Effect]:
    """The effect of each covariate on the strengths (see the module).

    Args:
        strengths: Fitted strengths, one per item.
        standard_errors: Their standard errors (>= 0; NaN counts as 0).
        covariates: Named per-item values; each is standardised here.
        level: The intervals' coverage, in (0, 1).

    Raises:
        ValueError: Lengths that differ, non-finite strengths or covariates, fewer items
            than covariates + 2, or a level outside (0, 1).
    """
    if not 0 < level < 1:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    y = np.asarray(strengths, dtype=float)
    se = np.nan_to_num(np.asarray(standard_errors, dtype=float))
    names = list(covariates)
    columns = [standardised(covariates[name]) for name in names]
    if se.shape != y.shape or any(c.shape != y.shape for c in columns):
        raise InputError("strengths, standard_errors and every covariate must have one "
                         "value per item")
    if not np.isfinite(y).all() or not all(np.isfinite(c).all() for c in columns):
        raise InputError("strengths and covariates must be finite")
    if y.size < len(names) + 2:
        raise InputError(f"{len(names)} covariates need at least {len(names) + 2} items, "
                         f"got {y.size}")
    design = np.column_stack([np.ones_like(y), *columns])
    tau2 = _residual_variance(y, se, design)
    weights = 1 / (tau2 + se**2)
    information = design.T @ (design * weights[:, None])
    covariance = np.linalg.pinv(information)
    beta = covariance @ (design.T @ (weights * y))
    z = float(ndtri(0.5 + level / 2))
    effects: dict[str, Effect] = {}
    for k, name in enumerate(names, start=1):
        sd = float(np.sqrt(max(covariance[k, k], 0.0)))
        effects[name] = Effect(float(beta[k]), sd, float(beta[k] - z * sd),
                               float(beta[k] + z * sd), level)
    return effects


def _residual_variance(y: Vector, se: Vector, design: Vector) -> float:
    """τ² by maximum likelihood, the regression coefficients profiled out."""

    def minus_log_likelihood(log_tau2: float) -> float:
        variance = np.exp(log_tau2) + se**2
        weights = 1 / variance
        beta = np.linalg.lstsq(design * np.sqrt(weights)[:, None], y * np.sqrt(weights),
                               rcond=None)[0]
        residual = y - design @ beta
        return float((np.log(variance) + residual**2 * weights).sum() / 2)

    spread = max(float(np.var(y)), 1e-12)
    found = optimize.minimize_scalar(minus_log_likelihood,
                                     bounds=(np.log(spread) - 20, np.log(spread) + 2),
                                     method="bounded")
    return float(np.exp(found.x))
