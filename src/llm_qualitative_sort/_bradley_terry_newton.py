"""The penalised Bradley–Terry likelihood and its maximiser (truncated Newton), in numpy.

Parameters are `theta = (s_1, …, s_n, h)`, or `(s_1, …, s_n)` without the position term.
A call that shows `first` then `second` is won by the first-shown with probability
`σ(d)`, `d = s_first − s_second + h`. Each parameter also carries `prior` pseudo-calls
against a fixed reference at 0, half won and half lost: `prior · (½ log σ(x) + ½ log σ(−x))`.

Why truncated Newton with a Jacobi-preconditioned conjugate gradient (measured in
`scripts/bench_bradley_terry.py`): the Hessian is a weighted graph Laplacian plus a
diagonal, and a tournament's graph is expander-like, so a sparse Cholesky fills in almost
completely (SuperLU: ~56 ms per factorisation at n = 1000) and a dense one costs ~11 ms
per step single-threaded (far more when the BLAS threads compete for shared cores), while a
CG step is one sparse product. Vector inner products are written `np.sum(a * b)`, not `@`:
BLAS level-1 calls spawn threads that stall for milliseconds on a busy machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import expit

Vector = NDArray[np.float64]
Indices = NDArray[np.intp]


@dataclass(frozen=True)
class Calls:
    """Validated observations: call c showed `first[c]` then `second[c]`."""

    n: int
    first: Indices
    second: Indices
    won: Vector  # share of call c won by the first-shown item, in [0, 1]
    prior: float
    position: bool

    @property
    def size(self) -> int:
        """Number of parameters: n strengths, plus h with the position term."""
        return self.n + 1 if self.position else self.n


def differences(calls: Calls, theta: Vector) -> Vector:
    """`d_c = s_first − s_second (+ h)` for every call."""
    d = theta[calls.first] - theta[calls.second]
    return d + theta[calls.n] if calls.position else d


def _softplus_pair(x: Vector) -> Vector:
    """`log1p(exp(−|x|))`, the shared part of `softplus(x)` and `softplus(−x)`."""
    return np.log1p(np.exp(-np.abs(x)))


def objective(calls: Calls, theta: Vector, d: Vector) -> float:
    """The negative log-posterior (up to a constant) at `theta`, given its differences."""
    y = calls.won
    data = np.sum(_softplus_pair(d) + np.maximum(-d, 0.0) * y + np.maximum(d, 0.0) * (1 - y))
    prior = np.sum(_softplus_pair(theta) + 0.5 * np.abs(theta))
    return float(data + calls.prior * prior)


def gradient(calls: Calls, theta: Vector, d: Vector) -> tuple[Vector, Vector]:
    """Gradient of the objective, and each call's win probability `σ(d)`."""
    p = expit(d)
    r = p - calls.won
    g = calls.prior * (expit(theta) - 0.5)
    g[: calls.n] += np.bincount(calls.first, r, calls.n) - np.bincount(calls.second, r, calls.n)
    if calls.position:
        g[calls.n] += np.sum(r)
    return g, p


def prior_curvature(calls: Calls, theta: Vector) -> Vector:
    """Second derivative of the prior term of each parameter.

    Floored at the smallest normal float: it underflows for |x| > ~745, and the Hessian's
    diagonal must stay positive for the preconditioner.
    """
    q = expit(theta)
    return np.maximum(calls.prior * q * (1 - q), np.finfo(np.float64).tiny)


class Hessian:
    """Assembles the objective's sparse Hessian quickly for new call weights.

    The sparsity pattern (one entry per pair of items that met, the diagonal, and the
    h row and column) is fixed by the calls, so it is sorted into CSR order once; each
    Newton step only sums the weights `w_c = σ(d_c)(1 − σ(d_c))` into it.
    """

    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        n, size = calls.n, calls.size
        low = np.minimum(calls.first, calls.second)
        high = np.maximum(calls.first, calls.second)
        pairs, self.pair_of_call = np.unique(low * n + high, return_inverse=True)
        self.low, self.high = pairs // n, pairs % n
        diagonal = np.arange(size)
        rows = [self.low, self.high, diagonal]
        cols = [self.high, self.low, diagonal]
        if calls.position:
            items = np.arange(n)
            rows += [items, np.full(n, n)]
            cols += [np.full(n, n), items]
        row, col = np.concatenate(rows), np.concatenate(cols)
        self.order = np.lexsort((col, row))
        self.indices = col[self.order]
        self.indptr = np.concatenate(([0], np.cumsum(np.bincount(row, minlength=size))))

    def matrix(self, w: Vector, prior_w: Vector) -> sp.csr_array:
        """The Hessian for call weights `w` and prior curvatures `prior_w`."""
        calls, n = self.calls, self.calls.n
        pair_w = np.bincount(self.pair_of_call, w, len(self.low))
        diagonal = prior_w.copy()
        diagonal[:n] += np.bincount(self.low, pair_w, n) + np.bincount(self.high, pair_w, n)
        parts = [-pair_w, -pair_w, diagonal]
        if calls.position:
            diagonal[n] += np.sum(w)
            coupling = np.bincount(calls.first, w, n) - np.bincount(calls.second, w, n)
            parts += [coupling, coupling]
        data = np.concatenate(parts)[self.order]
        return sp.csr_array((data, self.indices, self.indptr), shape=(calls.size, calls.size))


def conjugate_gradient(
    matrix: sp.csr_array, rhs: Vector, inverse_diagonal: Vector, rtol: float, max_iter: int
) -> Vector:
    """Jacobi-preconditioned CG: `x` with `|matrix @ x − rhs| <= rtol · |rhs|`."""
    x = np.zeros_like(rhs)
    r = rhs.copy()
    z = inverse_diagonal * r
    p = z.copy()
    rz = float(np.sum(r * z))
    goal = rtol**2 * float(np.sum(rhs * rhs))
    for _ in range(max_iter):
        if float(np.sum(r * r)) <= goal or rz <= 0.0:
            break
        q = matrix @ p
        alpha = rz / float(np.sum(p * q))
        x += alpha * p
        r -= alpha * q
        z = inverse_diagonal * r
        rz, previous = float(np.sum(r * z)), rz
        p = z + (rz / previous) * p
    return x


class Optimum:
    """The maximiser, and the curvature there for the uncertainty layer (computed on use)."""

    def __init__(self, calls: Calls, theta: Vector, assembler: Hessian) -> None:
        self.calls, self.theta, self._assembler = calls, theta, assembler

    @cached_property
    def weights(self) -> Vector:
        """`w_c = σ(d_c)(1 − σ(d_c))` per call."""
        p = expit(differences(self.calls, self.theta))
        return p * (1 - p)

    @cached_property
    def prior_weights(self) -> Vector:
        """The prior's curvature per parameter."""
        return prior_curvature(self.calls, self.theta)

    @cached_property
    def hessian(self) -> sp.csr_array:
        """The Hessian of the objective at the maximiser."""
        return self._assembler.matrix(self.weights, self.prior_weights)


def maximise(calls: Calls, theta: Vector, tolerance: float = 1e-7, max_steps: int = 100) -> Optimum:
    """Newton steps from `theta` until no parameter moves more than `tolerance`.

    The objective is strictly convex, so a backtracking line search makes Newton globally
    convergent. The CG forcing term `min(0.1, |g|)` gives superlinear convergence without
    solving early steps more exactly than they deserve; its floor of 1e-6 spares the last,
    confirming step a solve far below the tolerance.
    """
    assembler = Hessian(calls)
    d = differences(calls, theta)
    value = objective(calls, theta, d)
    for _ in range(max_steps):
        g, p = gradient(calls, theta, d)
        hessian = assembler.matrix(p * (1 - p), prior_curvature(calls, theta))
        forcing = min(0.1, max(1e-6, float(np.sqrt(np.sum(g * g)))))
        step = conjugate_gradient(hessian, -g, 1 / hessian.diagonal(), forcing, 10 * calls.size)
        theta, d, value = _line_search(calls, theta, step, g, value)
        if np.max(np.abs(step), initial=0.0) < tolerance:
            break
    return Optimum(calls, theta, assembler)


def _line_search(
    calls: Calls, theta: Vector, step: Vector, g: Vector, value: float
) -> tuple[Vector, Vector, float]:
    """Backtrack until the objective falls enough (Armijo).

    Near the optimum the decrease is below the objective's rounding error, hence the
    allowance of a few ulps of `value`.
    """
    slope = float(np.sum(g * step))
    roundoff = 1e-13 * max(1.0, abs(value))
    t = 1.0
    while True:
        candidate = theta + t * step
        d = differences(calls, candidate)
        new_value = objective(calls, candidate, d)
        if new_value <= value + 1e-4 * t * slope + roundoff or t < 1e-10:
            return candidate, d, new_value
        t *= 0.5
