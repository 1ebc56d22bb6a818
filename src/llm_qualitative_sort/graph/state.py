"""The tournament's checkpointed state.

Kept small because every checkpoint rewrites every plain channel: the strategy's standing
(per-item counts or strengths) and the current round's matches. The item texts and the
match history live in `DeltaChannel`s, which store each write once instead of
re-serializing the whole value at every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, NotRequired

from langgraph.channels.delta import DeltaChannel
from typing_extensions import TypedDict

from llm_qualitative_sort.results.labelled import state_labels, within_budget
from llm_qualitative_sort.tournament import (
    Strategy,
    StrategyChoice,
    StrategySettings,
    settings_from_state,
    strategy_for,
)
from llm_qualitative_sort.tournament.records import RoundLog


def _last(_current: list[str], writes: Sequence[list[str]]) -> list[str]:
    return list(writes[-1])


def _last_fields(_current: list[dict[str, Any]],
                 writes: Sequence[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return list(writes[-1])


def _last_labels(_current: dict[str, Any], writes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return dict(writes[-1])


def _extend(current: list[RoundLog], writes: Sequence[list[RoundLog]]) -> list[RoundLog]:
    merged = list(current)
    for rounds in writes:
        merged.extend(rounds)
    return merged


class TournamentInput(TypedDict):
    """What a run starts from: plain data, so LangGraph Studio can send it."""

    items: list[str]
    criteria: str
    # The strategy and its settings, as `StrategySettings.stored()` writes them
    # ({"strategy": "swiss", "budget": 40, ...}; absent: elimination's defaults).
    settings: NotRequired[StrategyChoice]
    seed: NotRequired[int | None]
    schedule: NotRequired[str]
    # "wins" or "bradley_terry" (as the sorter's `ranking=`); the strategy's own if absent.
    ranking: NotRequired[str | None]
    # The judge's `model_identity` (never a key): listings and reports name it, and a
    # resume by another judge is refused.
    judge: NotRequired[str]
    # A judging prompt of the user's ({"name", "system", "user"}; see `PromptTemplate`) or
    # "builtin:LANG", and the context its `{{ context.KEY }}` reads; absent: the default.
    prompt: NotRequired[dict[str, str] | str]
    context: NotRequired[dict[str, Any]]
    # Each item's fields ({"source": ...}), parallel to `items`, that the template reads as
    # `{{ fields_a.KEY }}` and `{{ fields_b.KEY }}`; absent: the items carry none.
    fields: NotRequired[list[dict[str, Any]]]
    # People's labels ({"verdicts": [[a, b, "A"|"B"|"tie"], ...], "scores": [[item, score],
    # ...]}, items as indices into `items`): the judge is asked the labelled pairs too, and
    # the result is checked against them and ranked with them; absent: no labels.
    human: NotRequired[dict[str, list[list[Any]]]]


class TournamentOutput(TypedDict):
    """What a finished run returns: the ranking, its statistics and the run's id."""

    rankings: list[tuple[int, list[str]]]
    statistics: NotRequired[dict[str, int]]
    run_id: NotRequired[str]


class StoredBefore(TypedDict, total=False):
    """The settings of a run stored by an earlier version: each a key of its own.

    Read once into the settings object (`run_settings`), never written: new runs keep
    their strategy's settings in the one `settings` channel.
    """

    strategy: str
    elimination_count: int
    comparison_rounds: int
    budget: int | None
    top_k: int | None
    stop_when_settled: bool
    prepass: str | None
    scale: list[list[Any]] | str | None
    inverse: bool
    repetitions: int
    ties: bool
    verdicts: str


# The channels a run's settings are read from (the older ones for runs stored before).
SETTINGS_KEYS = ("settings", *StoredBefore.__annotations__)


class TournamentState(StoredBefore):
    """Everything the tournament carries between steps.

    `standing` is the strategy's own plain data (loss and win counts for elimination,
    strengths and the budget used for Swiss); `matches` is the round being played, each
    `[a, b, first repetition]`.
    """

    items: Annotated[list[str], DeltaChannel(_last, snapshot_frequency=1_000)]
    criteria: str
    # `StrategySettings.stored()`: read back with `run_settings`.
    settings: NotRequired[dict[str, Any]]
    seed: NotRequired[int | None]
    schedule: NotRequired[str]
    # Only when the input asks for one (Studio); the sorter ranks its result itself.
    ranking: NotRequired[str | None]
    # The judge's `model_identity` (never a key): a resume by another judge is refused.
    judge: NotRequired[str]
    prompt: NotRequired[dict[str, str]]
    context: NotRequired[dict[str, Any]]
    # Only the fields the template shows, parallel to `items` (a DeltaChannel like them).
    fields: NotRequired[Annotated[list[dict[str, Any]],
                                  DeltaChannel(_last_fields, snapshot_frequency=1_000)]]
    # People's labels, items as indices into `items` in their canonical order (written
    # once, a DeltaChannel like them).
    human: NotRequired[Annotated[dict[str, Any],
                                 DeltaChannel(_last_labels, snapshot_frequency=1_000)]]
    rng_seed: NotRequired[int]
    # Kept apart from `items` (a DeltaChannel that checkpoints do not hold whole), so that
    # listing runs needs no replay of their history.
    item_count: NotRequired[int]
    standing: NotRequired[dict[str, Any]]
    round: NotRequired[int]
    completed: NotRequired[int]
    matches: NotRequired[list[list[int]]]
    # The round's texts to score alone, each [item, repetition] (runs stored by earlier
    # versions planned them among the matches, as [item, item, repetition]).
    scores: NotRequired[list[list[int]]]
    bye: NotRequired[int | None]
    # The round's ranking calls, each [first repetition, item shown first, second, ...].
    groups: NotRequired[list[list[int]]]
    # Pipelined: the matches open at the checkpoint, each [pairing number, a, b, first
    # repetition, segment it was paired in].
    in_flight: NotRequired[list[list[int]]]
    history: NotRequired[
        Annotated[list[RoundLog], DeltaChannel(_extend, snapshot_frequency=1_000)]
    ]
    # The journal rounds whose results this step wrote to the history, and (pipelined) how
    # many pairings the state holds: a checkpoint on disk lets the journal drop their rows.
    settled: NotRequired[list[int]]
    paired: NotRequired[int]
    rankings: NotRequired[list[tuple[int, list[str]]]]
    # Why the run ended before its settings' bound (`EarlyStop` as a dict), or None.
    early_stop: NotRequired[dict[str, Any] | None]
    statistics: NotRequired[dict[str, int]]
    run_id: NotRequired[str]


def run_settings(state: TournamentState) -> StrategySettings:
    """The run's strategy settings (of a run stored by an earlier version too)."""
    return settings_from_state(state)


def run_strategy(state: TournamentState) -> Strategy[Any]:
    """The strategy playing this run."""
    settings, n = run_settings(state), len(state["items"])
    if state.get("human"):  # a budget the labelled pairs share (see `within_budget`)
        settings = within_budget(settings, n, state_labels(state["human"]))
    return strategy_for(settings, n, state["rng_seed"])


def planned_round(state: TournamentState) -> tuple[list[list[int]], list[list[int]]]:
    """The round's planned matches and scores, from either version's state.

    Example:
        >>> planned_round({"matches": [[3, 3, 1], [0, 2, 0]]})  # an earlier version's
        ([[0, 2, 0]], [[3, 1]])
    """
    matches = state.get("matches", [])
    scores = list(state.get("scores", []))
    scores += [[a, repetition] for a, b, repetition in matches if a == b]
    return [match for match in matches if match[0] != match[1]], scores
