"""A Bradley–Terry fit whose strengths are partly explained by per-item covariates.

The model: a call that shows `first` then `second` is won by the first-shown text with
probability `σ(s_first − s_second + h)`, where each strength is a linear function of the
item's standardised covariates plus a residual of its own,

    s_i = x_i · β + r_i,   r_i ~ Normal(0, τ²),

and `h` is the judge's first-position advantage. β and h have weak normal priors (sd 10
logits); τ is chosen by maximising the marginal likelihood of the calls (the residuals,
β and h integrated out with a Laplace approximation), then β, h and the residuals are the
posterior mode given τ, with intervals from the inverse Hessian there. The residual `r_i`
is the item's strength with the covariates' part taken out: what `adjust=` ranks by.

Fitting β inside the likelihood, rather than regressing fitted strengths on the
covariates afterwards (`rating.covariates.covariate_effects`), uses the shrinkage the prior
on the residuals gives: maximum-likelihood strengths of sparse calls spread wider than the
true ones, and a regression on them inherits that spread as a β too large.
`scripts/length_study.py` measures both on the mock judge.

The Hessian is sparse but for β's and h's rows and is factorised by sparse LU, on one
thread (a dense factorisation calls a threaded BLAS, which on a busy machine is slower by
far). The pairs of a tournament make a graph whose factors fill in as n grows, which bounds
the fit to `STRUCTURED_LIMIT` items (the calls of a 300-item elimination run with N = 8:
about 12 ms per factorisation; of a 2,000-item one: 2 s).

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=60)
    >>> first, second = rng.integers(0, 60, (2, 6000))
    >>> keep = first != second
    >>> won = rng.random(keep.sum()) < 1 / (1 + np.exp(-0.5 * (x[first] - x[second])[keep]))
    >>> fit = fit_structured(60, first[keep], second[keep], won, {"length": x})
    >>> bool(abs(fit.effects["length"].beta - 0.5) < 0.1)
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.sparse.linalg import SuperLU, splu
from scipy.special import expit, log_expit, ndtri

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.rating.covariates import Effect, standardised

Vector = NDArray[np.float64]

# Weak priors on β and h (logits): wide enough never to bind on a judge's real preferences.
FIXED_SD = 10.0
# The range searched for τ, the residuals' sd in logits: from "covariates explain all" to
# far wider than any judge's strengths spread.
LOG_TAU_RANGE = (np.log(1e-3), np.log(20.0))
# The most items fitted: beyond, the factors' fill-in makes each Newton step too dear.
STRUCTURED_LIMIT = 500


@dataclass(frozen=True, eq=False)
class StructuredFit:
    """The fitted structured model.

    Attributes:
        effects: Each covariate's β, in logits per standard deviation, with its interval.
        residuals: Each item's strength less its covariates' part (`r_i`), centred.
        residual_errors: Their standard errors.
        tau: The residuals' fitted sd (logits).
        position: The fitted first-position advantage h.
    """

    effects: dict[str, Effect]
    residuals: Vector
    residual_errors: Vector
    tau: float
    position: float


def fit_structured(n_items: int, first: ArrayLike, second: ArrayLike, first_won: ArrayLike,
                   covariates: Mapping[str, ArrayLike], *, position: bool = True,
                   level: float = 0.95) -> StructuredFit:
    """Fit strengths as covariates plus residuals to calls (see the module).

    Args:
        n_items: Number of items; indices run over 0..n_items−1.
        first: Index of the item shown first, per call with a verdict.
        second: Index of the item shown second.
        first_won: Share of the call won by the first-shown item, in [0, 1].
        covariates: Named per-item values; each is standardised here.
        position: Fit the first-position advantage h; False for verdicts whose order says
            nothing (people's, given as pairs).
        level: The intervals' coverage, in (0, 1).

    Raises:
        InputError: Mismatched lengths, an index out of range, an item against itself, a
            share outside [0, 1], non-finite covariates, no calls, a level outside (0, 1),
            or more than `STRUCTURED_LIMIT` items.
    """
    if n_items > STRUCTURED_LIMIT:
        raise InputError(f"the structured fit takes at most {STRUCTURED_LIMIT} items, "
                         f"got {n_items}")
    if not 0 < level < 1:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    names = list(covariates)
    x = np.column_stack([standardised(covariates[name]) for name in names]) if names \
        else np.zeros((n_items, 0))
    if x.shape[0] != n_items or not np.isfinite(x).all():
        raise InputError("every covariate must have one finite value per item")
    calls = _Calls.checked(n_items, first, second, first_won, x, position)
    # Each step of the search starts Newton from the last mode: neighbouring τs' are close.
    last = [np.zeros(calls.size)]

    def minus_evidence(log_tau: float) -> float:
        last[0] = calls.mode(log_tau, last[0])
        return -calls.evidence(last[0], log_tau)

    # τ within 2 % is plenty: β moves far less than its interval over such a change.
    found = optimize.minimize_scalar(minus_evidence, bounds=LOG_TAU_RANGE, method="bounded",
                                     options={"xatol": 0.02})
    log_tau = float(found.x)
    theta = calls.mode(log_tau, last[0])
    variances = _inverse_diagonal(splu(calls.hessian(theta, log_tau)), calls.size)
    z = float(ndtri(0.5 + level / 2))
    effects = {}
    for k, name in enumerate(names):
        at = n_items + k
        beta, sd = float(theta[at]), float(np.sqrt(variances[at]))
        effects[name] = Effect(beta, sd, beta - z * sd, beta + z * sd, level)
    residuals = theta[:n_items] - theta[:n_items].mean()
    return StructuredFit(effects, residuals, np.sqrt(variances[:n_items]),
                         float(np.exp(log_tau)), float(theta[-1]))


def _inverse_diagonal(factor: SuperLU, size: int) -> Vector:
    """The diagonal of the factorised matrix's inverse, solved a block of columns at a time."""
    out = np.empty(size)
    for start in range(0, size, 256):
        stop = min(start + 256, size)
        block = np.zeros((size, stop - start))
        block[np.arange(start, stop), np.arange(stop - start)] = 1.0
        out[start:stop] = factor.solve(block)[np.arange(start, stop), np.arange(stop - start)]
    return np.maximum(out, 0.0)


@dataclass(frozen=True)
class _Calls:
    """The calls as a sparse design over (residuals, β, h), and the model's pieces."""

    design: sp.csr_array
    won: Vector
    n: int
    k: int
    first: NDArray[np.intp]
    second: NDArray[np.intp]
    fixed: Vector  # the design's columns of β and h, dense

    @classmethod
    def checked(cls, n: int, first: ArrayLike, second: ArrayLike, first_won: ArrayLike,
                x: Vector, position: bool) -> _Calls:
        f = np.asarray(first, dtype=np.intp).ravel()
        s = np.asarray(second, dtype=np.intp).ravel()
        won = np.asarray(first_won, dtype=float).ravel()
        if not (f.size == s.size == won.size) or f.size == 0:
            raise InputError("first, second and first_won must be as long as each other, "
                             "with at least one call")
        if (f < 0).any() or (f >= n).any() or (s < 0).any() or (s >= n).any():
            raise InputError(f"a call names an item outside 0..{n - 1}")
        if (f == s).any():
            raise InputError("a call compares an item with itself")
        if not ((won >= 0) & (won <= 1)).all():
            raise InputError("first_won must lie in [0, 1]")
        m, k = f.size, x.shape[1]
        rows = np.repeat(np.arange(m), 3 + k)
        cols = np.column_stack([f, s, *(np.full(m, n + j) for j in range(k)),
                                np.full(m, n + k)]).ravel()
        # Without h its column stays in the design as zeros: its prior alone holds it at 0.
        values = np.column_stack([np.ones(m), -np.ones(m), x[f] - x[s],
                                  np.full(m, float(position))]).ravel()
        design = sp.csr_array((values, (rows, cols)), shape=(m, n + k + 1))
        fixed = np.column_stack([x[f] - x[s], np.full(m, float(position))])
        return cls(design, won, n, k, f, s, fixed)

    @property
    def size(self) -> int:
        return self.n + self.k + 1

    def _prior_precision(self, log_tau: float) -> Vector:
        precision = np.full(self.size, FIXED_SD**-2)
        precision[: self.n] = np.exp(-2 * log_tau)
        return precision

    def objective(self, theta: Vector, log_tau: float) -> float:
        d = self.design @ theta
        data = -(self.won * log_expit(d) + (1 - self.won) * log_expit(-d)).sum()
        return float(data + (self._prior_precision(log_tau) * theta**2).sum() / 2)

    def hessian(self, theta: Vector, log_tau: float) -> sp.csc_array:
        p = expit(self.design @ theta)
        w = p * (1 - p)
        n, size = self.n, self.size
        fixed = self.fixed * w[:, None]
        cross = np.column_stack([np.bincount(self.first, column, n)
                                 - np.bincount(self.second, column, n) for column in fixed.T])
        rows_cross, cols_cross = np.nonzero(np.ones_like(cross, dtype=bool))
        rows_fixed, cols_fixed = np.nonzero(np.ones((size - n, size - n), dtype=bool))
        # One COO build, duplicates summed: the residuals' weighted graph Laplacian, the
        # blocks of β and h (dense), and the prior on the diagonal.
        rows = np.concatenate([self.first, self.second, self.first, self.second,
                               rows_cross, cols_cross + n, rows_fixed + n, np.arange(size)])
        cols = np.concatenate([self.first, self.second, self.second, self.first,
                               cols_cross + n, rows_cross, cols_fixed + n, np.arange(size)])
        values = np.concatenate([w, w, -w, -w, cross.ravel(), cross.ravel(),
                                 (self.fixed.T @ fixed).ravel(),
                                 self._prior_precision(log_tau)])
        return sp.csc_array((values, (rows, cols)), shape=(size, size))

    def mode(self, log_tau: float, start: Vector) -> Vector:
        """The posterior mode by damped Newton steps (the objective is strictly convex)."""
        theta = start.copy()
        value = self.objective(theta, log_tau)
        for _ in range(100):
            gradient = (self.design.T @ (expit(self.design @ theta) - self.won)
                        + self._prior_precision(log_tau) * theta)
            step = splu(self.hessian(theta, log_tau)).solve(gradient)
            size = 1.0
            trial, trial_value = theta, value
            while size > 1e-8:
                trial = theta - size * step
                trial_value = self.objective(trial, log_tau)
                if trial_value <= value:
                    break
                size /= 2
            if trial_value > value:
                break
            done = value - trial_value < 1e-10 * max(1.0, abs(value))
            theta, value = trial, trial_value
            if done:
                break
        return theta

    def evidence(self, theta: Vector, log_tau: float) -> float:
        """The Laplace approximation of log p(calls | τ) at its mode, up to a constant."""
        factor = splu(self.hessian(theta, log_tau))
        log_det = np.log(np.abs(factor.U.diagonal())).sum()
        return float(-self.objective(theta, log_tau) - self.n * log_tau - log_det / 2)
