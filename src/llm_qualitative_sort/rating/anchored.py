"""Strengths on people's scale, from a judge's fit anchored by people's pairwise verdicts.

The model. Each item has a strength `θ_i` on people's scale: a person prefers item i to
item j with probability `σ(θ_i − θ_j)` (a tie counts half a win for each side). The judge's
fitted strengths `φ̂_i` (from its own calls, with standard errors `se_i`) tell about `θ`
only as far as the judge agrees with people:

    θ_i ~ Normal(a · φ̂_i + x_i · b,  σ² + a² · se_i²)

- `a` is the judge's scale in people's units (0 would say nothing; near 1 a judge whose
  logits mean what people's do);
- `σ` is the judge's item-level distance to people: how far, per item, the judge's
  strength misses people's, beyond the noise of its own calls;
- `b` are the effects of per-item covariates `x` (log length, say) that people weigh
  differently from the judge: a judge that favours long texts more than people do gets a
  negative length effect here.

`a`, `σ` and `b` are fitted to the people's verdicts by maximising their marginal
likelihood (the strengths integrated out with a Laplace approximation), with weak
normal priors on `log a` and `log σ` that keep them finite when the verdicts barely speak.
The strengths are then the posterior mode given those: an item people labelled moves
towards their verdicts as far as the judge's distance `σ` lets it; an item nobody labelled
keeps its prior mean, and its variance `σ² + a² se_i²` says how far from people it may be.
Only the labelled items enter the likelihood, so the work grows with them, not with n.

Example:
    >>> import numpy as np
    >>> judge = np.array([2.0, 1.0, 0.0, -1.0, -2.0])
    >>> fit = fit_anchored(judge, np.full(5, 0.3), first=[4, 4, 4, 3], second=[0, 1, 0, 0],
    ...                    first_won=[1, 1, 1, 1])
    >>> int(np.argmax(fit.strengths))  # people put item 4 first, the judge last
    4
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.sparse.linalg import splu
from scipy.special import expit, log_expit

from llm_qualitative_sort.errors import InputError

Vector = NDArray[np.float64]

# Weak priors on the log scale and log distance: sd 2 (a factor of e² either way is
# plausible), centred on a judge whose logits mean what people's do and on a distance of 1.
HYPER_SD = 2.0
# The largest labelled set whose posterior covariance is formed densely (for rank
# intervals); beyond it the labelled items' variances come from the Hessian's diagonal.
DENSE_LIMIT = 3000


@dataclass(frozen=True, eq=False)
class AnchoredFit:
    """Strengths on people's scale and how the judge's verdicts were weighed.

    Attributes:
        strengths: Posterior mode of every item's strength on people's scale, centred.
        standard_errors: Their posterior standard deviations.
        scale: `a`, the judge's scale in people's units.
        distance: `σ`, the judge's item-level distance to people.
        effects: `b`, one per covariate column (empty without covariates).
        labelled: Whether each item appears in a person's verdict.
        log_evidence: The people's verdicts' approximate log marginal likelihood at the fit.
    """

    strengths: Vector
    standard_errors: Vector
    scale: float
    distance: float
    effects: Vector
    labelled: NDArray[np.bool_]
    log_evidence: float
    _covariance: Vector | None = None

    def rank_intervals(self, level: float = 0.9, draws: int = 2000,
                       seed: int = 0) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Each item's interval of positions (1 = best) at `level`, from posterior draws.

        Raises:
            ValueError: `level` outside (0, 1) or `draws` < 1.
        """
        if not 0 < level < 1:
            raise InputError(f"level must lie in (0, 1), got {level!r}")
        if draws < 1:
            raise InputError(f"draws must be >= 1, got {draws!r}")
        samples = self._draw(draws, np.random.default_rng(seed))
        positions = np.empty_like(samples, dtype=np.int64)
        order = np.argsort(-samples, axis=1)
        rows = np.arange(draws)[:, None]
        positions[rows, order] = np.arange(1, samples.shape[1] + 1)
        tail = (1 - level) / 2
        low = np.floor(np.quantile(positions, tail, axis=0)).astype(np.int64)
        high = np.ceil(np.quantile(positions, 1 - tail, axis=0)).astype(np.int64)
        return low, high

    def top_k_probability(self, k: int, draws: int = 2000, seed: int = 0) -> Vector:
        """P(item is among the k strongest) for every item, from posterior draws.

        Raises:
            ValueError: `k` outside 1..n or `draws` < 1.
        """
        if not 1 <= k <= self.strengths.size:
            raise InputError(f"k must lie in 1..{self.strengths.size}, got {k!r}")
        if draws < 1:
            raise InputError(f"draws must be >= 1, got {draws!r}")
        samples = self._draw(draws, np.random.default_rng(seed))
        top = np.argpartition(-samples, k - 1, axis=1)[:, :k]
        counts = np.bincount(top.ravel(), minlength=self.strengths.size)
        return np.asarray(counts / draws, dtype=np.float64)

    def _draw(self, draws: int, rng: np.random.Generator) -> Vector:
        samples = self.strengths + rng.standard_normal((draws, self.strengths.size)) \
            * self.standard_errors
        if self._covariance is not None and self.labelled.any():
            chol = np.linalg.cholesky(self._covariance)
            noise = rng.standard_normal((draws, chol.shape[0])) @ chol.T
            samples[:, self.labelled] = self.strengths[self.labelled] + noise
        return samples


def fit_anchored(judge_strengths: ArrayLike, judge_errors: ArrayLike, *, first: ArrayLike,
                 second: ArrayLike, first_won: ArrayLike,
                 covariates: ArrayLike | None = None) -> AnchoredFit:
    """Anchor a judge's strengths to people's pairwise verdicts (see the module).

    Args:
        judge_strengths: The judge's fitted strength of every item.
        judge_errors: Their standard errors (>= 0).
        first: Per person's verdict, the index of the item it compares first.
        second: The other item's index.
        first_won: The share the first item won: 1, 0, or 0.5 for a tie.
        covariates: Optional per-item covariates, one row per item (standardise them).

    Raises:
        ValueError: Mismatched lengths, an index out of range, an item compared with
            itself, a share outside [0, 1], non-finite input, or no verdict at all.
    """
    phi, errors, pairs, won, x = _checked(judge_strengths, judge_errors, first, second,
                                          first_won, covariates)
    labelled = np.zeros(phi.size, dtype=bool)
    labelled[pairs.ravel()] = True
    index = np.cumsum(labelled) - 1
    local = _Verdicts(index[pairs[:, 0]], index[pairs[:, 1]], won, int(labelled.sum()))
    phi = phi - phi.mean()

    def prior(params: Vector) -> tuple[Vector, Vector]:
        a, sigma, b = np.exp(params[0]), np.exp(params[1]), params[2:]
        return a * phi + x @ b, sigma**2 + (a * errors) ** 2

    # Each search step starts Newton from the last mode: neighbouring steps' modes are close.
    last = [phi[labelled].copy()]

    def minus_evidence(params: Vector) -> float:
        mean, variance = prior(params)
        mode = local.mode(mean[labelled], variance[labelled], start=last[0])
        last[0] = mode
        hyper = float(((params[:2] / HYPER_SD) ** 2).sum()) / 2
        return -local.evidence(mode, mean[labelled], variance[labelled]) + hyper

    start = np.zeros(2 + x.shape[1])
    found = optimize.minimize(minus_evidence, start, method="Nelder-Mead",
                              options={"xatol": 1e-3, "fatol": 1e-5, "maxiter": 2000})
    mean, variance = prior(found.x)
    strengths, sd = mean.copy(), np.sqrt(variance)
    mode = local.mode(mean[labelled], variance[labelled])
    strengths[labelled] = mode
    covariance = local.covariance(mode, variance[labelled])
    sd[labelled] = np.sqrt(np.diag(covariance)) if covariance is not None else \
        1 / np.sqrt(local.hessian(mode, variance[labelled]).diagonal())
    shift = strengths.mean()
    return AnchoredFit(strengths - shift, sd, float(np.exp(found.x[0])),
                       float(np.exp(found.x[1])), found.x[2:].copy(), labelled,
                       -float(found.fun), covariance)


@dataclass(frozen=True)
class _Verdicts:
    """People's verdicts over the labelled items only (local indices)."""

    first: NDArray[np.intp]
    second: NDArray[np.intp]
    won: Vector
    n: int

    def _difference(self, theta: Vector) -> Vector:
        return theta[self.first] - theta[self.second]

    def objective(self, theta: Vector, mean: Vector, variance: Vector) -> float:
        d = self._difference(theta)
        data = -(self.won * log_expit(d) + (1 - self.won) * log_expit(-d)).sum()
        return float(data + ((theta - mean) ** 2 / variance).sum() / 2)

    def hessian(self, theta: Vector, variance: Vector) -> sp.csc_array:
        p = expit(self._difference(theta))
        w = p * (1 - p)
        # One COO build (duplicates summed): the Laplacian of the verdicts plus the prior.
        diagonal = np.arange(self.n)
        rows = np.concatenate([self.first, self.second, self.first, self.second, diagonal])
        cols = np.concatenate([self.first, self.second, self.second, self.first, diagonal])
        values = np.concatenate([w, w, -w, -w, 1 / variance])
        return sp.csc_array((values, (rows, cols)), shape=(self.n, self.n))

    def mode(self, mean: Vector, variance: Vector, start: Vector | None = None) -> Vector:
        """The posterior mode by Newton's method (the objective is strictly convex)."""
        theta = (mean if start is None else start).copy()
        value = self.objective(theta, mean, variance)
        for _ in range(100):
            residual = expit(self._difference(theta)) - self.won
            gradient = (np.bincount(self.first, residual, self.n)
                        - np.bincount(self.second, residual, self.n)
                        + (theta - mean) / variance)
            step = splu(self.hessian(theta, variance)).solve(gradient)
            size = 1.0
            while size > 1e-8:
                trial = theta - size * step
                trial_value = self.objective(trial, mean, variance)
                if trial_value <= value:
                    break
                size /= 2
            if trial_value > value:
                break  # no step lowers the objective: at the mode, to rounding
            done = value - trial_value < 1e-10 * max(1.0, abs(value))
            theta, value = trial, trial_value
            if done:
                break
        return theta

    def evidence(self, mode: Vector, mean: Vector, variance: Vector) -> float:
        """The Laplace approximation of log p(verdicts | prior), up to a constant."""
        factor = splu(self.hessian(mode, variance))
        log_det = np.log(np.abs(factor.U.diagonal())).sum()
        return float(-self.objective(mode, mean, variance) - np.log(variance).sum() / 2
                     - log_det / 2)

    def covariance(self, mode: Vector, variance: Vector) -> Vector | None:
        if self.n > DENSE_LIMIT:
            return None
        return np.asarray(np.linalg.inv(self.hessian(mode, variance).toarray()))


def _checked(judge_strengths: ArrayLike, judge_errors: ArrayLike, first: ArrayLike,
             second: ArrayLike, first_won: ArrayLike, covariates: ArrayLike | None,
             ) -> tuple[Vector, Vector, NDArray[np.intp], Vector, Vector]:
    phi = np.asarray(judge_strengths, dtype=float)
    errors = np.asarray(judge_errors, dtype=float)
    pairs = np.column_stack([np.asarray(first), np.asarray(second)]).astype(np.intp) \
        if np.size(first) else np.zeros((0, 2), dtype=np.intp)
    won = np.asarray(first_won, dtype=float)
    n = phi.size
    if errors.shape != phi.shape or not np.isfinite(phi).all() or \
            not np.isfinite(errors).all() or (errors < 0).any():
        raise InputError("judge_strengths and judge_errors must be finite, as long as each "
                         "other, with errors >= 0")
    if len(pairs) == 0:
        raise InputError("anchoring needs at least one person's verdict")
    if np.size(first) != np.size(second) or won.shape != (len(pairs),):
        raise InputError("first, second and first_won must be as long as each other")
    if (pairs < 0).any() or (pairs >= n).any():
        raise InputError(f"a verdict names an item outside 0..{n - 1}")
    if (pairs[:, 0] == pairs[:, 1]).any():
        raise InputError("a verdict compares an item with itself")
    if not ((won >= 0) & (won <= 1)).all():
        raise InputError("first_won must lie in [0, 1]")
    x = np.zeros((n, 0)) if covariates is None else np.asarray(covariates, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    if x.shape[0] != n or not np.isfinite(x).all():
        raise InputError("covariates must have one finite row per item")
    return phi, errors, pairs, won, x
