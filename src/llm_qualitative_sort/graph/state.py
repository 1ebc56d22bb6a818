"""The tournament's checkpointed state.

Kept small because every checkpoint rewrites every plain channel: per-item loss and win
counts, and the current round's pairs. The item texts and the match history live in
`DeltaChannel`s, which store each write once instead of re-serializing the whole value at
every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, NotRequired

from langgraph.channels.delta import DeltaChannel
from typing_extensions import TypedDict

# A call as stored: [order, winner in match terms, reasoning, cached, input tokens, output tokens]
CallLog = list[Any]
# A match as stored: [index of item_a, index of item_b, winner, [CallLog, ...]]
MatchLog = list[Any]


class RoundLog(TypedDict):
    """One round of the history."""

    round: int
    matches: list[MatchLog]
    bye: int | None


def _last(_current: list[str], writes: Sequence[list[str]]) -> list[str]:
    return list(writes[-1])


def _extend(current: list[RoundLog], writes: Sequence[list[RoundLog]]) -> list[RoundLog]:
    merged = list(current)
    for rounds in writes:
        merged.extend(rounds)
    return merged


class TournamentInput(TypedDict):
    """What a run starts from: plain data, so LangGraph Studio can send it."""

    items: list[str]
    criteria: str
    elimination_count: NotRequired[int]
    comparison_rounds: NotRequired[int]
    seed: NotRequired[int | None]


class TournamentOutput(TypedDict):
    """What a finished run returns: the ranking, its statistics and the run's id."""

    rankings: list[tuple[int, list[str]]]
    statistics: NotRequired[dict[str, int]]
    run_id: NotRequired[str]


class TournamentState(TypedDict):
    """Everything the tournament carries between steps."""

    items: Annotated[list[str], DeltaChannel(_last, snapshot_frequency=1_000)]
    criteria: str
    elimination_count: NotRequired[int]
    comparison_rounds: NotRequired[int]
    seed: NotRequired[int | None]
    rng_seed: NotRequired[int]
    losses: NotRequired[list[int]]
    wins: NotRequired[list[int]]
    round: NotRequired[int]
    completed: NotRequired[int]
    pairs: NotRequired[list[tuple[int, int]]]
    bye: NotRequired[int | None]
    history: NotRequired[
        Annotated[list[RoundLog], DeltaChannel(_extend, snapshot_frequency=1_000)]
    ]
    rankings: NotRequired[list[tuple[int, list[str]]]]
    statistics: NotRequired[dict[str, int]]
    run_id: NotRequired[str]
