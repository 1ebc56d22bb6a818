"""What the history of a run tells a strategy: the calls in presentation order, who met whom."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llm_qualitative_sort.rating.soft import soft_share
from llm_qualitative_sort.tournament.records import call_verdicts, round_matches, round_scores


@dataclass
class Evidence:
    """Every call of a run, as arrays for the rating model and as counts for pairing.

    `first`, `second` and `first_won` hold one entry per call that gave a verdict, in the
    order shown to the judge (a tie is ½). `meetings` counts every call per unordered pair
    (verdict or not), `shown_first` counts per item how often it was shown first minus second.
    `calls` counts every call, the pre-pass's (items scored alone) too.
    """

    first: np.ndarray
    second: np.ndarray
    first_won: np.ndarray
    meetings: Counter[tuple[int, int]] = field(default_factory=Counter)
    shown_first: list[int] = field(default_factory=list)
    calls: int = 0


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The unordered pair {a, b} as a key."""
    return (a, b) if a < b else (b, a)


def gather_evidence(history: Iterable[Any], n_items: int, soft: bool = False) -> Evidence:
    """One pass over the rounds of a run (each a dict with "matches").

    With `soft`, a call that stored the judge's probability counts as that share of a win
    (see `rating.soft`); every other call is its hard verdict.
    """
    first: list[int] = []
    second: list[int] = []
    won: list[float] = []
    meetings: Counter[tuple[int, int]] = Counter()
    balance = [0] * n_items
    calls = 0
    for entry in history:
        calls += len(round_scores(entry))  # items scored alone (a pre-pass): no pairing
        for a, b, _winner, logs in round_matches(entry):
            key = pair_key(a, b)
            for order, winner, probability in call_verdicts(logs):
                shown, other = (a, b) if order == "AB" else (b, a)
                balance[shown] += 1
                balance[other] -= 1
                meetings[key] += 1
                calls += 1
                if winner is not None:
                    first.append(shown)
                    second.append(other)
                    hard = (0.5 if winner == "tie" else
                            1.0 if (winner == "A") == (shown == a) else 0.0)
                    won.append(soft_share(hard, probability, shown == a, soft)
                               if soft else hard)
    return Evidence(
        np.asarray(first, dtype=np.intp),
        np.asarray(second, dtype=np.intp),
        np.asarray(won, dtype=np.float64),
        meetings,
        balance,
        calls,
    )


def strength_order(strengths: Sequence[float], rng: random.Random | None = None) -> list[int]:
    """Item indices from the strongest; equal strengths in a random order drawn from `rng`.

    The random tie-break matters: before the first round every strength is equal, and
    after the first rounds whole groups still are; ordering them by index would pair items
    by their text order, which says nothing about their quality.
    """
    keys = [rng.random() for _ in strengths] if rng is not None else list(range(len(strengths)))
    return sorted(range(len(strengths)), key=lambda i: (-strengths[i], keys[i]))
