"""Checking what callers pass to the Bradley–Terry fit, with errors that name the call."""

from __future__ import annotations

import operator

import numpy as np
from numpy.typing import ArrayLike

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.rating.newton import Calls, Indices, Vector


def checked_calls(
    n_items: int, first: ArrayLike, second: ArrayLike, won: ArrayLike, prior: float, position: bool,
    weight: ArrayLike | None = None,
) -> Calls:
    """The calls as arrays, or a `ValueError` naming the first bad one."""
    n = operator.index(n_items)
    if n < 0:
        raise InputError(f"n_items must be >= 0, got {n}")
    if not (np.isfinite(prior) and prior > 0):
        raise InputError(f"prior must be > 0, got {prior!r}")
    firsts, seconds = _indices("first", first, n), _indices("second", second, n)
    shares = np.asarray(won, dtype=np.float64)
    if not firsts.shape == seconds.shape == shares.shape:
        raise InputError(
            f"first, second and first_won must be 1-D of one length, got shapes "
            f"{firsts.shape}, {seconds.shape}, {shares.shape}"
        )
    _reject("first == second", firsts == seconds, firsts)
    _reject("first_won outside [0, 1]", ~((shares >= 0) & (shares <= 1)), shares)
    weights = None
    if weight is not None:
        weights = np.asarray(weight, dtype=np.float64)
        if weights.shape != shares.shape:
            raise InputError(f"weight must give one weight per call ({shares.size}), got "
                             f"shape {weights.shape}")
        _reject("weight not a finite number > 0", ~(np.isfinite(weights) & (weights > 0)),
                weights)
    return Calls(n, firsts, seconds, shares, float(prior), position, weights)


def _indices(name: str, values: ArrayLike, n: int) -> Indices:
    array = np.asarray(values)
    if array.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {array.shape}")
    if array.size and array.dtype.kind not in "iu":
        raise InputError(f"{name} must hold integer indices, got dtype {array.dtype}")
    array = array.astype(np.intp)
    _reject(f"{name} index outside 0..{n - 1}", (array < 0) | (array >= n), array)
    return array


def _reject(problem: str, bad: np.ndarray, values: np.ndarray) -> None:
    if np.any(bad):
        where = int(np.argmax(bad))
        raise InputError(f"call {where}: {problem} (got {values[where].item()!r})")


def start_vector(calls: Calls, strengths: ArrayLike | None, position: float) -> Vector:
    """The optimiser's starting point from a previous fit's strengths (and h)."""
    theta = np.zeros(calls.size)
    if strengths is None:
        return theta
    values = np.asarray(strengths, dtype=np.float64)
    if values.shape != (calls.n,) or not np.all(np.isfinite(values)):
        raise InputError(f"start must hold {calls.n} finite strengths, got shape {values.shape}")
    theta[: calls.n] = values
    if calls.position:
        theta[calls.n] = position
    return theta
