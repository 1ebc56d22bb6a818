"""The normal approximation around a Bradley–Terry fit: standard errors and joint draws.

The covariance of the parameters is the inverse of the penalised log-likelihood's Hessian
at the optimum (the observed information). What is published are centred strengths
`c = s − mean(s)`; their covariance is taken in coordinates that make the centring exact,
`s = (u, −Σu) + m·1` (the last item's centred strength is minus the sum of the others'),
with the mean `m` eliminated by a Schur complement. That way the translation direction,
which only the weak prior pins down (its curvature vanishes for strengths far from 0), never
enters a subtraction of large numbers.

Two implementations share one interface:
- `DenseNormal` (up to `DENSE_LIMIT` items): the exact covariance through a dense Cholesky
  factor; draws are `z @ L⁻¹`.
- `SampledNormal` (larger n, where an n×n matrix is too slow and too big): never forms the
  covariance. A draw is `H⁻¹ (Aᵀ W^½ ξ + D^½ η)` with ξ, η standard normal, A the calls'
  incidence, W their weights, D the prior's curvature; since `H = AᵀWA + D`, it has
  covariance exactly `H⁻¹` ("perturbation-optimisation"). Each draw costs one sparse CG
  solve; standard errors are the spread of `SE_DRAWS` draws (relative error ≈ 1/√(2·400)
  ≈ 3.5 %).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from llm_qualitative_sort.rating.newton import Calls, Optimum, Vector

# Above this many items the dense covariance (n² memory, n³ time) gives way to sampling.
DENSE_LIMIT = 2000
SE_DRAWS = 400
_CG_RTOL = 1e-6
_BATCH = 200


Matrix = Vector  # 2-D float64 arrays; numpy's annotations do not track the rank


class Normal(Protocol):
    """A joint normal distribution of the centred strengths and h around the fit."""

    def variances(self) -> tuple[Vector, float]:
        """Variance of each centred strength, and of h."""
        ...

    def draw(self, count: int, rng: np.random.Generator) -> tuple[Matrix, Vector]:
        """`count` deviations from the fit: strengths (count × n, rows sum to 0) and h."""
        ...


class DenseNormal:
    """The exact covariance, from a Cholesky factor of the centred information."""

    def __init__(self, calls: Calls, optimum: Optimum) -> None:
        self.n, self.position = calls.n, calls.position
        information = _centred_information(calls, optimum)
        if len(information) == 0:
            self.root: Matrix = np.zeros((0, 0))
            return
        lower = la.cholesky(information, lower=True, check_finite=False)
        # Covariance = rootᵀ root with root = L⁻¹ (lower triangular).
        self.root, info = la.lapack.dtrtri(lower, lower=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"triangular inverse failed (info={info})")

    def variances(self) -> tuple[Vector, float]:
        """Variance of each centred strength, and of h (0 without the position term)."""
        n, root = self.n, self.root
        if n <= 1:
            return np.zeros(n), float(np.sum(root**2)) if self.position else 0.0
        per_column = np.sum(root**2, axis=0)
        last = float(np.sum(np.sum(root[:, : n - 1], axis=1) ** 2))
        strengths = np.append(per_column[: n - 1], last)
        return strengths, float(per_column[n - 1]) if self.position else 0.0

    def draw(self, count: int, rng: np.random.Generator) -> tuple[Matrix, Vector]:
        """Joint draws `z @ root`, mapped back from `(u, h)` to centred strengths."""
        n = self.n
        z = rng.standard_normal((count, len(self.root)))
        x = z @ self.root
        strengths = np.zeros((count, n))
        if n > 1:
            strengths[:, : n - 1] = x[:, : n - 1]
            strengths[:, n - 1] = -np.sum(x[:, : n - 1], axis=1)
        h = x[:, n - 1] if self.position and n >= 1 else np.zeros(count)
        return strengths, h


def _centred_information(calls: Calls, optimum: Optimum) -> Matrix:
    """The information of `(u, h)` with the mean eliminated (its Schur complement).

    In `φ = (u, h, m)` with `s = E u + m·1`, `E = [I; −1ᵀ]`, `J = diag(E, 1)`: the
    Laplacian part of the Hessian annihilates 1 and the h coupling sums to 0, so the only
    link to m is the prior's curvature `D`, written out here instead of computed from
    cancelling sums.
    """
    n = calls.n
    keep = [*range(n - 1), *([n] if calls.position else [])]
    left = _minus_last_item(optimum.hessian.toarray(), n)[keep]  # Jᵀ H
    reduced = _minus_last_item(left.T, n)[keep]  # Jᵀ H J (symmetric)
    prior = optimum.prior_weights[:n]
    mean_information = float(np.sum(prior))
    if mean_information > 0:
        link = np.zeros(len(keep))
        link[: n - 1] = prior[: n - 1] - prior[n - 1]
        reduced -= np.outer(link, link) / mean_information
    return reduced


def _minus_last_item(matrix: Matrix, n: int) -> Matrix:
    """`Jᵀ M` before dropping row n−1: the last item's row off every other item's row.

    `J` maps `(u, h)` to `(s, h)` (`s = E u`), so row j of `Jᵀ M` is `M_j − M_last`.
    """
    result = matrix.copy()
    if n >= 1:
        result[: n - 1] -= matrix[n - 1]
    return result


class SampledNormal:
    """Draws from `N(0, H⁻¹)` by perturbation-optimisation, one CG solve per draw."""

    def __init__(self, calls: Calls, optimum: Optimum) -> None:
        self.calls = calls
        n, size, m = calls.n, calls.size, len(calls.first)
        h_rows = [np.full(m, n)] if calls.position else []
        rows = np.concatenate([calls.first, calls.second, *h_rows])
        signs = np.concatenate([np.ones(m), -np.ones(m), *[np.ones(m) for _ in h_rows]])
        calls_index = np.tile(np.arange(m), 2 + len(h_rows))
        root_w = np.sqrt(optimum.weights)[calls_index]
        # Aᵀ W^½: one column per call, +√w at its first item (and h), −√w at its second.
        self.scatter = sp.csr_array((signs * root_w, (rows, calls_index)), shape=(size, m))
        self.root_prior = np.sqrt(optimum.prior_weights)
        self.scaled, self.scale = optimum.scaled_hessian
        self._variances: tuple[Vector, float] | None = None

    def variances(self) -> tuple[Vector, float]:
        """Spread of `SE_DRAWS` draws from a fixed seed, so a fit is reproducible."""
        if self._variances is None:
            strengths, h = self.draw(SE_DRAWS, np.random.default_rng(0))
            self._variances = np.mean(strengths**2, axis=0), float(np.mean(h**2))
        return self._variances

    def draw(self, count: int, rng: np.random.Generator) -> tuple[Matrix, Vector]:
        """Joint draws in batches of `_BATCH` right-hand sides."""
        batches = [self._batch(min(_BATCH, count - done), rng) for done in range(0, count, _BATCH)]
        x = np.vstack(batches) if batches else np.zeros((0, self.calls.size))
        strengths = x[:, : self.calls.n]
        strengths = strengths - np.mean(strengths, axis=1, keepdims=True)
        h = x[:, self.calls.n] if self.calls.position else np.zeros(count)
        return strengths, h

    def _batch(self, count: int, rng: np.random.Generator) -> Matrix:
        noise = self.scatter @ rng.standard_normal((self.scatter.shape[1], count))
        noise += self.root_prior[:, None] * rng.standard_normal((len(self.root_prior), count))
        scale = self.scale[:, None]
        solved = scale * block_conjugate_gradient(self.scaled, scale * noise, _CG_RTOL)
        return solved.T


def block_conjugate_gradient(matrix: sp.csr_array, rhs: Matrix, rtol: float) -> Matrix:
    """CG on every column of `rhs` at once (independent solves) for a Jacobi-scaled matrix.

    A column stops when its residual falls below `rtol` times its right-hand side, or when
    its search direction has lost its curvature to rounding.
    """
    x = np.zeros_like(rhs)
    r = rhs.copy()
    p = r.copy()
    rr = (r * r).sum(axis=0)
    goal = rtol**2 * rr
    active = rr > goal
    for _ in range(10 * len(rhs)):
        if not np.any(active):
            break
        q = matrix @ p
        curvature = (p * q).sum(axis=0)
        active &= curvature > 1e-12 * (p * p).sum(axis=0)
        alpha = np.where(active, rr / np.where(active, curvature, 1.0), 0.0)
        x += alpha * p
        r -= alpha * q
        rr, previous = (r * r).sum(axis=0), rr
        active &= rr > goal
        p = r + np.where(active, rr / np.where(active, previous, 1.0), 0.0) * p
    return x


def normal_approximation(calls: Calls, optimum: Optimum) -> Normal:
    """The exact dense covariance up to `DENSE_LIMIT` items, sampling above."""
    if calls.n <= DENSE_LIMIT:
        return DenseNormal(calls, optimum)
    return SampledNormal(calls, optimum)
