"""How a Swiss round chooses its pairs: neighbours in strength, or for what they will teach.

Two choices behind one seam (`PairChoice`), picked once from `Swiss.pairing`:

- `Neighbours` (the default): every item meets its nearest unmet neighbour in the current
  strength order (`swiss.pairing`); the top-K refinement pairs contenders at distances
  1, 2, … (`swiss.refine`).
- `AOptimal`: the disjoint pairs whose verdicts most shrink the total posterior variance of
  the strengths (the A-criterion, `rating.design`), taken greedily by gain. The posterior is
  the Laplace approximation at the strengths the strategy fitted after the last round, over
  every call with a verdict so far (and a pre-pass's virtual calls). The refinement takes
  the contenders' pairs by the same gain.

Choices `AOptimal` makes where the criterion alone would not decide:

- Candidates: each item is weighed against its `NEAREST` neighbours on either side in the
  strength order, not against all n − 1 others. A far pair's verdict is nearly certain and
  teaches little, and the bound keeps a round's work at about n · `NEAREST` gains plus one
  covariance (an n × n inverse) instead of n² gains and an n³ greedy.
- Rematches: a pair that has met counts for `REMATCH_SHARE` of its gain, so a rematch is
  chosen only when it teaches at least twice what the best fresh pair left teaches; a
  rematch the greedy leaves at the end is swapped away when that makes both pairs fresh.
- Everyone plays: items the greedy left without a candidate partner are paired as
  neighbours among themselves.
- Equal gains (every gain is equal before the first verdict) are broken by the round's
  generator, so a seed replays the same pairs.

Example:
    >>> import random
    >>> view = RoundView(strengths=[0.0] * 4, first=np.array([0, 0], dtype=np.intp),
    ...                  second=np.array([1, 1], dtype=np.intp), meetings={(0, 1): 2},
    ...                  rng=random.Random(0))
    >>> AOptimal().round_pairs([0, 1, 2, 3], view)  # no rematch of 0 and 1
    [(1, 2), (0, 3)]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.special import expit

from llm_qualitative_sort.rating.design import Matrix, Vector, posterior_covariance
from llm_qualitative_sort.tournament.swiss.evidence import pair_key
from llm_qualitative_sort.tournament.swiss.pairing import Pairs, neighbour_pairs
from llm_qualitative_sort.tournament.swiss.refine import wave_pairs

# Candidate partners per item on either side in the strength order (see the module).
NEAREST = 16
# The share of its gain a pair that has already met counts for when pairs are chosen.
REMATCH_SHARE = 0.5
# How many other pairs, nearest in strength, a rematch may swap partners with.
SWAP_WINDOW = 16
# Gains are scored this many candidate pairs at a time (a block is n × this many floats).
_BLOCK = 2048


@dataclass(frozen=True)
class RoundView:
    """What a round's choice of pairs may look at.

    Attributes:
        strengths: The strengths fitted after the last round, one per item.
        first: The item shown first in each call with a verdict so far.
        second: The item shown second in each of those calls.
        meetings: Calls so far per unordered pair (`evidence.pair_key`).
        rng: The round's generator (derived from the run's seed).
    """

    strengths: Sequence[float]
    first: np.ndarray
    second: np.ndarray
    meetings: Mapping[tuple[int, int], int]
    rng: random.Random


class PairChoice(Protocol):
    """A way to choose a Swiss round's pairs and a refinement wave's."""

    def round_pairs(self, order: Sequence[int], view: RoundView) -> Pairs:
        """Disjoint pairs covering `order` (an even number of items, strongest first).

        The pairs come best first: a round the budget cuts short keeps the first ones.
        """
        ...

    def wave_pairs(self, focus: Sequence[int], calls_per_match: int, calls: int,
                   view: RoundView) -> Pairs:
        """At most `calls` worth of matches among the contenders `focus` (strongest first)."""
        ...


class Neighbours:
    """Nearest unmet neighbours in strength (`swiss.pairing`, `swiss.refine`)."""

    def round_pairs(self, order: Sequence[int], view: RoundView) -> Pairs:
        """Each item with its nearest unmet neighbour in the strength order."""
        return neighbour_pairs(order, view.meetings)

    def wave_pairs(self, focus: Sequence[int], calls_per_match: int, calls: int,
                   view: RoundView) -> Pairs:
        """Contenders at distance 1 in the strength order first, then 2, and so on."""
        return wave_pairs(focus, calls_per_match, calls, view.meetings)


class AOptimal:
    """The pairs whose verdicts most shrink the strengths' posterior variance (see module)."""

    def round_pairs(self, order: Sequence[int], view: RoundView) -> Pairs:
        """Disjoint pairs greedily by gain among strength neighbours; leftovers as neighbours."""
        gain = _gain_of(view)
        first, second = nearest_candidates(order, NEAREST)
        scores = _discounted(gain(first, second), first, second, view.meetings)
        chosen = greedy_disjoint(first, second, scores, view.rng)
        paired = {item for pair in chosen for item in pair}
        rest = [item for item in order if item not in paired]
        return swap_rematches(chosen + neighbour_pairs(rest, view.meetings), view, gain)

    def wave_pairs(self, focus: Sequence[int], calls_per_match: int, calls: int,
                   view: RoundView) -> Pairs:
        """The contenders' pairs by gain, best first, not disjoint (a wave is one round).

        A wave larger than the contenders' pairs passes over them again, each repeat a
        fresh judgement.
        """
        count = calls // calls_per_match
        if len(focus) < 2 or count < 1:
            return []
        first, second = nearest_candidates(focus, len(focus) - 1)
        scores = _discounted(_gain_of(view)(first, second), first, second, view.meetings)
        pairs = [(int(first[c]), int(second[c])) for c in _ranked(scores, view.rng)]
        return [pairs[k % len(pairs)] for k in range(count)]


Gain = Callable[[np.ndarray, np.ndarray], Vector]


def _gain_of(view: RoundView) -> Gain:
    """The gain of listed pairs under the posterior of `view` (one covariance per round)."""
    strengths = np.asarray(view.strengths, dtype=float)
    covariance = posterior_covariance(len(strengths), view.first, view.second, strengths)
    return lambda first, second: candidate_gains(covariance, strengths, first, second)


def _discounted(gains: Vector, first: np.ndarray, second: np.ndarray,
                meetings: Mapping[tuple[int, int], int]) -> Vector:
    met = np.array([meetings.get(pair_key(int(a), int(b)), 0) > 0
                    for a, b in zip(first, second, strict=True)], dtype=bool)
    return np.where(met, REMATCH_SHARE * gains, gains)


def swap_rematches(pairs: Pairs, view: RoundView, gain: Gain) -> Pairs:
    """Swap partners between a rematch and another pair when both new pairs are fresh.

    Greedy choice can leave two items that have met for last; of the swaps that make both
    pairs fresh, among the `SWAP_WINDOW` pairs nearest in strength, the one that keeps the
    most gain is taken.
    """
    strengths = np.asarray(view.strengths, dtype=float)

    def fresh(a: int, b: int) -> bool:
        return not view.meetings.get(pair_key(a, b))

    pairs = list(pairs)
    for index, (a, b) in enumerate(pairs):
        if fresh(a, b):
            continue
        near = sorted((k for k in range(len(pairs)) if k != index),
                      key=lambda k: abs(strengths[pairs[k][0]] - strengths[a]))[:SWAP_WINDOW]
        options = [(k, (a, x), (b, y)) for k in near
                   for x, y in (pairs[k], pairs[k][::-1]) if fresh(a, x) and fresh(b, y)]
        if not options:
            continue
        left = np.array([p for _, p, _ in options] + [q for _, _, q in options])
        totals = gain(left[:, 0], left[:, 1]).reshape(2, -1).sum(axis=0)
        k, p, q = options[int(np.argmax(totals))]
        pairs[index], pairs[k] = p, q
    return pairs


PAIR_CHOICES: dict[str, PairChoice] = {"neighbours": Neighbours(), "a-optimal": AOptimal()}


def nearest_candidates(order: Sequence[int], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of `order` at most `width` places apart: `(first, second)`, first stronger.

    Example:
        >>> [side.tolist() for side in nearest_candidates([7, 3, 5], 1)]
        [[7, 3], [3, 5]]
    """
    items = np.asarray(order, dtype=np.intp)
    firsts, seconds = [], []
    for distance in range(1, min(width, len(items) - 1) + 1):
        firsts.append(items[:-distance])
        seconds.append(items[distance:])
    if not firsts:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    return np.concatenate(firsts), np.concatenate(seconds)


def candidate_gains(covariance: Matrix, strengths: Vector, first: np.ndarray,
                    second: np.ndarray) -> Vector:
    """`rating.design.pair_gains` for the listed pairs only (n work per pair, not n²)."""
    variance = np.diag(covariance)
    gains = np.empty(len(first))
    for start in range(0, len(first), _BLOCK):
        a, b = first[start:start + _BLOCK], second[start:start + _BLOCK]
        # Σ d as rows (Σ is symmetric): whole rows are contiguous, columns are strided.
        difference = covariance[a] - covariance[b]
        norm = np.einsum("ij,ij->i", difference, difference)
        known = variance[a] + variance[b] - 2 * covariance[a, b]
        p = expit(strengths[a] - strengths[b])
        w = p * (1 - p)
        gains[start:start + _BLOCK] = w * norm / (1 + w * known)
    return gains


def greedy_disjoint(first: np.ndarray, second: np.ndarray, scores: Vector,
                    rng: random.Random) -> Pairs:
    """Disjoint pairs, the highest score first (equal scores in an order drawn from `rng`).

    Example:
        >>> greedy_disjoint(np.array([0, 1, 0]), np.array([1, 2, 2]),
        ...                 np.array([1.0, 3.0, 2.0]), random.Random(0))
        [(1, 2)]
    """
    taken: set[int] = set()
    pairs: Pairs = []
    for c in _ranked(scores, rng):
        a, b = int(first[c]), int(second[c])
        if a not in taken and b not in taken:
            taken.update((a, b))
            pairs.append((a, b))
    return pairs


def _ranked(scores: Vector, rng: random.Random) -> list[int]:
    # A seeded key per candidate: equal scores (every score before the first verdict) are
    # taken in an order the seed fixes, not by position, which follows the strength order.
    keys = np.random.default_rng(rng.getrandbits(64)).random(len(scores))
    return [int(c) for c in np.lexsort((keys, -scores))]
