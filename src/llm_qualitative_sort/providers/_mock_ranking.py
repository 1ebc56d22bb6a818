"""The mock's answer to a ranking call: the order it gives k texts shown together.

The model is the pairwise mock's, widened to k slots: each shown text gets its hidden value
plus one noise draw of this call, plus the bonus of the slot it is shown in, and the order
is by those noisy values, best first. With k = 2 and no list penalty the noise is exactly
the pairwise noise, so every implied pair of an order is as noisy as a pairwise call on the
same pair: under Gaussian noise of sd σ, slot i comes before slot j with probability
Φ((v_i − v_j) / (√2·σ)).

The draws come from a generator keyed on the seed, the texts in the order shown and the
repetition (`ranking_rng`), like the pairwise mock's, so an order never depends on
concurrency; the key ends in its own tag, so no ranking call shares its draws with a
pairwise call, a flaw or a latency draw. Only the model lives here: the pairwise flaws
(close-item noise, per-pair and per-item bonuses, wrong verdicts, refusals) are not part of
it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers._mock_flaws import NOISES, NoiseName, keyed_rng

_TAG = "ranking"


def ranking_key(texts: Sequence[str], repetition: int) -> tuple[str | int, ...]:
    """The parts after the seed that key one ranking call's generator.

    Pass them to `KeyedDraws(seed).rng(*parts)` for the mock's cached digests; the draws are
    the same as `ranking_rng(seed, texts, repetition)`'s.

    Example:
        >>> ranking_key(["b", "a", "c"], 2)
        ('b', 'a', 'c', 2, 'ranking')
    """
    # The tag comes last: every other key of the mock ends in an integer or its own tag, so
    # no choice of texts turns a ranking key into one of theirs.
    return (*texts, repetition, _TAG)


def ranking_rng(seed: int, texts: Sequence[str], repetition: int) -> random.Random:
    """The generator of one ranking call: keyed on the seed, the texts as shown, the repetition.

    These are the pairwise mock's ingredients (seed, texts in their order, repetition), so
    the same call always gets the same draws, and showing the texts in another order, or
    repeating the call, gets fresh ones.

    Example:
        >>> first = ranking_rng(7, ["a", "b", "c"], 0).random()
        >>> first == ranking_rng(7, ["a", "b", "c"], 0).random()
        True
        >>> first == ranking_rng(7, ["b", "a", "c"], 0).random()
        False
    """
    return keyed_rng(seed, *ranking_key(texts, repetition))


def list_stddev(stddev: float, k: int, list_penalty: float) -> float:
    """The noise sd on each slot of a k-text list: `stddev · (1 + list_penalty · (k − 2))`.

    Example:
        >>> list_stddev(2.0, 2, 0.5), list_stddev(2.0, 4, 0.5)
        (2.0, 4.0)
    """
    return stddev * (1.0 + list_penalty * (k - 2))


def noisy_values(
    values: Sequence[float],
    *,
    rng: random.Random,
    stddev: float,
    noise: NoiseName = "gauss",
    position_bias: Sequence[float] | None = None,
    list_penalty: float = 0.0,
) -> list[float]:
    """The values the judge perceives in one ranking call, one per shown slot.

    Draws exactly k noises from `rng`, in slot order, and nothing else, so a caller may draw
    more (a latency, say) from the same generator afterwards. See `mock_order` for the
    arguments.

    Raises:
        InputError: A setting out of range, named with its value.
    """
    _check(values, stddev, noise, position_bias, list_penalty)
    spread = list_stddev(stddev, len(values), list_penalty)
    draw = NOISES[noise].draw
    noisy = [value + draw(rng, spread) for value in values]
    if position_bias is not None:
        noisy = [value + bonus for value, bonus in zip(noisy, position_bias, strict=True)]
    return noisy


def order_of(noisy: Sequence[float], tie_margin: float | None = None) -> list[list[int]]:
    """The slots best first, tied slots grouped; equal values keep the order shown.

    A group opens at its best slot and takes each next slot whose value is less than
    `tie_margin` below that best one, so any two slots in a group differ by less than the
    margin, as a pairwise tie requires. None or 0 never ties.

    Example:
        >>> order_of([1.0, 3.0, 2.9, 0.0], tie_margin=0.5)
        [[1, 2], [0], [3]]

    Raises:
        InputError: A negative or non-finite `tie_margin`.
    """
    _check_margin(tie_margin)
    # sorted is stable: of two equal values the one shown first leads, as the pairwise
    # mock lets the first-shown text win an exact tie of scores.
    ranked = sorted(range(len(noisy)), key=lambda slot: -noisy[slot])
    groups: list[list[int]] = []
    for slot in ranked:
        if groups and tie_margin and noisy[groups[-1][0]] - noisy[slot] < tie_margin:
            groups[-1].append(slot)
        else:
            groups.append([slot])
    return groups


def mock_order(
    values: Sequence[float],
    *,
    rng: random.Random,
    stddev: float,
    noise: NoiseName = "gauss",
    position_bias: Sequence[float] | None = None,
    list_penalty: float = 0.0,
    tie_margin: float | None = None,
) -> list[list[int]]:
    """The order the mock gives k shown texts: slot indices best first, ties grouped.

    Each slot's value plus one noise draw (from `rng`, in slot order) plus its slot's
    bonus; the order is by these noisy values. With k = 2, no bias and no penalty the two
    noisy values are distributed as the pairwise mock's, so each implied pair of any order
    is as noisy as a pairwise call.

    Args:
        values: The hidden values of the texts, in the order they are shown (k ≥ 2).
        rng: The call's generator, from `ranking_rng` (or `KeyedDraws.rng(*ranking_key(...))`).
        stddev: The pairwise mock's noise sd (`noise_stddev`) on each text.
        noise: "gauss", "gumbel" or "student_t", as the pairwise mock's `noise`.
        position_bias: A bonus per shown slot, in value units (e.g. `[b, 0, 0, 0]` gives
            the first-shown text +b); None for none. Its length must be k.
        list_penalty: How much worse longer lists are judged: the noise sd is
            `stddev · (1 + list_penalty · (k − 2))`, so k = 2 is the pairwise noise.
        tie_margin: In a run that allows ties, slots whose noisy values differ by less than
            this are grouped as tied (see `order_of`); None or 0 never ties.

    Returns:
        The groups of tied slot indices (0 = first shown), best group first; without a tie
        margin every group holds one slot.

    Raises:
        InputError: A setting out of range, named with its value.

    Example:
        >>> mock_order([1.0, 5.0, 3.0], rng=ranking_rng(1, ["x", "y", "z"], 0), stddev=0.0)
        [[1], [2], [0]]
        >>> mock_order([1.0, 5.0, 3.0], rng=random.Random(0), stddev=0.0,
        ...            position_bias=[4.5, 0.0, 0.0])
        [[0], [1], [2]]
    """
    _check_margin(tie_margin)
    noisy = noisy_values(values, rng=rng, stddev=stddev, noise=noise,
                         position_bias=position_bias, list_penalty=list_penalty)
    return order_of(noisy, tie_margin)


def _check(values: Sequence[float], stddev: float, noise: str,
           position_bias: Sequence[float] | None, list_penalty: float) -> None:
    if len(values) < 2:
        raise InputError(f"values must hold at least 2 texts to order, got {len(values)}")
    for value in values:
        if not math.isfinite(value):
            raise InputError(f"values must be finite, got {value!r}")
    if not (math.isfinite(stddev) and stddev >= 0.0):
        raise InputError(f"stddev must be >= 0, got {stddev!r}")
    if noise not in NOISES:
        raise InputError(f"noise must be one of {sorted(NOISES)}, got {noise!r}")
    if not (math.isfinite(list_penalty) and list_penalty >= 0.0):
        raise InputError(f"list_penalty must be >= 0, got {list_penalty!r}")
    if position_bias is None:
        return
    if len(position_bias) != len(values):
        raise InputError(f"position_bias must give one bonus per shown text ({len(values)}), "
                         f"got {len(position_bias)}: {list(position_bias)!r}")
    for bonus in position_bias:
        if not math.isfinite(bonus):
            raise InputError(f"position_bias must be finite, got {bonus!r}")


def _check_margin(tie_margin: float | None) -> None:
    if tie_margin is not None and not (math.isfinite(tie_margin) and tie_margin >= 0.0):
        raise InputError(f"tie_margin must be >= 0 or None, got {tie_margin!r}")
