"""A run's matches read for the Bradley–Terry fit: which text was shown first, and who won.

`shown_calls` turns matches into the fit's input (item indices in presentation order and
the share won by the first-shown text); `call_observations` gives the calls in the
matches' own terms, for `fit_strengths`. Re-exported by `llm_qualitative_sort.bradley_terry`,
their public home. `with_calls` appends virtual calls (a Swiss pre-pass's) to the real ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.rating.soft import soft_share

# (first item, second item, share of the observation won by the first: 1, 0 or 0.5)
Observation = tuple[str, str, float]
# The fit's calls: (first-shown item, second-shown item, share won by the first-shown).
Calls = tuple[np.ndarray, np.ndarray, np.ndarray]


# What the fit reads of a run's matches: `models.MatchResult` and `models.RoundResult` are
# such, and the results module builds on this one, so the shapes are named here, not imported.
class PlayedCall(Protocol):
    """One call of a match: the order shown and the winner in the match's terms."""

    @property
    def order(self) -> str:
        """The order shown: "AB" showed `item_a` first, "BA" showed `item_b` first."""

    @property
    def winner(self) -> str | None:
        """The winner: "A" (`item_a`), "B" (`item_b`), "tie" or None (no verdict)."""


class PlayedMatch(Protocol):
    """A match of two items and its calls, such as `models.MatchResult`."""

    @property
    def item_a(self) -> str:
        """The first item of the match."""

    @property
    def item_b(self) -> str:
        """The second item of the match."""

    @property
    def rounds(self) -> Sequence[PlayedCall]:
        """The match's calls."""


def shown_calls(
    items: Sequence[str], matches: Iterable[PlayedMatch], soft: bool = False
) -> Calls:
    """Every call with a verdict as `(first, second, first_won)` indices into `items`.

    "AB" showed `item_a` first, "BA" showed `item_b` first; a call's winner is in the
    match's own terms ("A" = `item_a`), so the first-shown won when winner and order agree;
    a tie is a share of ½. With `soft`, a call that carries the judge's probability
    (`probability`, that `item_a` wins) counts as that share instead (a soft verdict).
    A match of a text with itself (how results of earlier versions listed a pre-pass's
    scores) gives no call here.

    Raises:
        ValueError: A match names an item not in `items`.
    """
    index = {item: i for i, item in enumerate(items)}
    rows: list[tuple[int, int, float]] = []
    for match in matches:
        if match.item_a not in index or match.item_b not in index:
            raise InputError(f"match ({match.item_a!r}, {match.item_b!r}) names an unknown item")
        a, b = index[match.item_a], index[match.item_b]
        if a == b:  # a text scored alone: no verdict between two texts
            continue
        for call in match.rounds:
            if call.winner is not None:
                a_first = call.order == "AB"
                won = first_share(call.winner, a_first)
                if soft:
                    won = soft_share(won, getattr(call, "probability", None), a_first, soft)
                rows.append((a, b, won) if a_first else (b, a, won))
    if not rows:
        return np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0)
    firsts, seconds, shares = zip(*rows, strict=True)
    return np.array(firsts, np.intp), np.array(seconds, np.intp), np.array(shares, np.float64)


def first_share(winner: str, a_first: bool) -> float:
    """The share of a call won by the first-shown text, from a verdict in match terms.

    A tie is half a win for each side: the Bradley–Terry likelihood of a tie is then
    `σ(d)^½ · σ(−d)^½`, which leaves the strength estimates on the scale of the wins and
    losses (measured against Davidson's tie model in docs/replay_study.md).

    Example:
        >>> first_share("A", True), first_share("A", False), first_share("tie", False)
        (1.0, 0.0, 0.5)
    """
    if winner == "tie":
        return 0.5
    return 1.0 if (winner == "A") == a_first else 0.0


def call_observations(matches: Iterable[PlayedMatch]) -> list[Observation]:
    """One observation per call that gave a verdict, in the match's own terms."""
    observed: list[Observation] = []
    for match in matches:
        for call in match.rounds:
            if call.winner is not None:
                observed.append((match.item_a, match.item_b, first_share(call.winner, True)))
    return observed


def with_calls(calls: Calls, extra: Calls | None) -> Calls:
    """`calls` followed by `extra` (as the fit takes them)."""
    if extra is None:
        return calls
    return (np.concatenate([calls[0], extra[0]]).astype(np.intp),
            np.concatenate([calls[1], extra[1]]).astype(np.intp),
            np.concatenate([calls[2], extra[2]]))
