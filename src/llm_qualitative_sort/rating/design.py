"""Which comparisons teach the most: pairs and groups chosen by the posterior (A-optimal).

A comparison of items i and j adds to the information about the strengths
`w_ij · d dᵀ`, with `d = e_i − e_j` and `w_ij = p(1 − p)`, `p = σ(s_i − s_j)` at the
current strengths. With posterior covariance `Σ`, one more such comparison shrinks the
total posterior variance (the trace of `Σ`, the A-criterion) by

    gain_ij = w_ij · ‖Σ d‖² / (1 + w_ij · dᵀ Σ d)

(the Sherman–Morrison update). A pair the posterior already orders well (a large gap: small
`w`), or one whose difference is already known (small `Σ d`), gains little. A round takes
disjoint pairs greedily by gain; a call that ranks k items at once is scored as the sum of
the gains of the pairs it implies (each pair one more comparison: the within-call
dependence is ignored when choosing, not when fitting).

The covariance is the Laplace approximation of a Bradley–Terry posterior (ties count half
a win, as in the product's fit), without the position term: the order shown is not chosen
here. Dense: the work is about n³ per round, meant for runs of up to a few thousand items.

Example:
    >>> import numpy as np
    >>> gains = pair_gains(posterior_covariance(4, [0, 0, 1], [1, 1, 2], np.zeros(4)),
    ...                    np.zeros(4))
    >>> choose_pairs(gains, range(4))  # item 3, never seen, first; then the two left
    [(2, 3), (0, 1)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from llm_qualitative_sort.errors import InputError

Matrix = NDArray[np.float64]
Vector = NDArray[np.float64]

# The fit's prior: per item, `prior` pseudo-comparisons half won against a reference at 0,
# whose curvature at 0 is prior / 4 (as in `rating.newton`).
PRIOR = 1.0


def posterior_covariance(n: int, first: ArrayLike, second: ArrayLike, strengths: ArrayLike,
                         *, prior: float = PRIOR) -> Matrix:
    """The Laplace covariance of the strengths after the comparisons `first[c]` vs `second[c]`.

    Args:
        n: Number of items.
        first: One item of each comparison (indices).
        second: The other item.
        strengths: The current strengths, at which each comparison's weight is taken.
        prior: Pseudo-comparisons per item (the fit's prior), > 0.

    Raises:
        ValueError: Lengths that differ, an index outside 0..n−1, or prior <= 0.
    """
    if prior <= 0:
        raise InputError(f"prior must be > 0, got {prior!r}")
    f, s = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
    theta = np.asarray(strengths, dtype=float)
    if f.shape != s.shape or theta.shape != (n,):
        raise InputError("first and second must be as long, and strengths one per item")
    if f.size and (min(f.min(), s.min()) < 0 or max(f.max(), s.max()) >= n):
        raise InputError(f"a comparison names an item outside 0..{n - 1}")
    p = expit(theta[f] - theta[s])
    w = p * (1 - p)
    information = np.diag(np.full(n, prior / 4))
    np.add.at(information, (f, f), w)
    np.add.at(information, (s, s), w)
    np.add.at(information, (f, s), -w)
    np.add.at(information, (s, f), -w)
    return np.asarray(np.linalg.inv(information))


def pair_gains(covariance: Matrix, strengths: ArrayLike) -> Matrix:
    """`gain_ij` for every pair (see the module); the diagonal is −inf (no self-comparison)."""
    theta = np.asarray(strengths, dtype=float)
    square = covariance @ covariance
    spread = np.diag(square)
    norm = spread[:, None] + spread[None, :] - 2 * square  # ‖Σ d‖²
    variance = np.diag(covariance)
    known = variance[:, None] + variance[None, :] - 2 * covariance  # dᵀ Σ d
    p = expit(theta[:, None] - theta[None, :])
    w = p * (1 - p)
    gains = w * norm / (1 + w * known)
    np.fill_diagonal(gains, -np.inf)
    return np.asarray(gains)


def choose_pairs(gains: Matrix, items: Iterable[int],
                 rng: np.random.Generator | None = None) -> list[tuple[int, int]]:
    """Disjoint pairs of `items`, greedily by gain (ties broken by `rng`, else by index).

    Pairs are returned in the order chosen, `(i, j)` with `i < j`; with an odd number of
    items one is left out (the least gain).
    """
    pool = np.asarray(sorted(set(items)), dtype=np.intp)
    local = gains[np.ix_(pool, pool)].copy()
    if rng is not None:
        local += rng.random(local.shape) * 1e-12 * np.nanmax(np.abs(local[np.isfinite(local)]),
                                                              initial=1.0)
    local = np.triu(local, 1) + np.tril(np.full_like(local, -np.inf))
    pairs: list[tuple[int, int]] = []
    free = np.ones(len(pool), dtype=bool)
    while free.sum() >= 2:
        masked = np.where(free[:, None] & free[None, :], local, -np.inf)
        a, b = np.unravel_index(int(np.argmax(masked)), masked.shape)
        if not np.isfinite(masked[a, b]):
            break
        free[[a, b]] = False
        pairs.append((int(pool[a]), int(pool[b])))
    return pairs


def choose_groups(gains: Matrix, items: Iterable[int], size: int,
                  rng: np.random.Generator | None = None) -> list[tuple[int, ...]]:
    """Disjoint groups of `size` items, each grown greedily from the best free pair.

    A group's gain is the sum of its implied pairs' gains; an item joins the group whose
    members it gains most with. Items left over (fewer than `size`) form no group.

    Raises:
        ValueError: `size` < 2.
    """
    if size < 2:
        raise InputError(f"size must be >= 2, got {size!r}")
    pool = sorted(set(items))
    groups: list[tuple[int, ...]] = []
    free = set(pool)
    while len(free) >= size:
        seed = choose_pairs(gains, free, rng)[0]
        group = list(seed)
        free -= set(seed)
        while len(group) < size:
            candidates = sorted(free)
            totals = gains[np.ix_(candidates, group)].sum(axis=1)
            pick = candidates[int(np.argmax(totals))]
            group.append(pick)
            free.discard(pick)
        groups.append(tuple(group))
    return groups


def implied_pairs(order: Sequence[Sequence[int]]) -> list[tuple[int, int, float]]:
    """Every pair a ranking implies, as `(i, j, share won by i)`: ties half a win.

    `order` lists the ranked items best first, items of one place (tied) together.

    Example:
        >>> implied_pairs([[2], [0, 1]])
        [(2, 0, 1.0), (2, 1, 1.0), (0, 1, 0.5)]
    """
    pairs: list[tuple[int, int, float]] = []
    for place, group in enumerate(order):
        for a_index, a in enumerate(group):
            for b in group[a_index + 1:]:
                pairs.append((a, b, 0.5))
            for below in order[place + 1:]:
                pairs.extend((a, b, 1.0) for b in below)
    return pairs
