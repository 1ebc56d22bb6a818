"""The strategy seam: what decides a round's matches, reads its results, stops and ranks.

A strategy is pure: plain data in, plain data out, no graph, no LLM, no I/O. The graph's
nodes call it — `pairing` asks for the next `RoundPlan`, `update` hands it the round just
played, the loop asks whether it has `finished`, `ranking` asks for the final ranks — and
keep what it returns, a JSON-ready `Standing`, in the checkpointed state. A new strategy is
one subpackage of `tournament/`: its settings class (a `StrategySettings`) and its
`Strategy`, registered in `tournament/registry.py`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from llm_qualitative_sort.models import EarlyStop, EventType
from llm_qualitative_sort.rating.scoring import ScoreQuestion
from llm_qualitative_sort.tournament.settings import StrategySettings
from llm_qualitative_sort.verdicts import Side

# A strategy's own state between rounds: plain JSON-ready data (lists, numbers, strings).
Standing = dict[str, Any]
# A match as the history keeps it: [index of a, index of b, winner, [call, ...]], each call
# in the stored form `tournament.records.CallRecord` reads.
PlayedMatch = Sequence[Any]


S = TypeVar("S", bound=StrategySettings)


@dataclass(frozen=True)
class PlannedMatch:
    """A match to play: `a` against `b`.

    With one call per match, `a` is the text shown first. `first_repetition` offsets the
    repetition index of its calls, so that a rematch is a fresh judgement rather than the
    first meeting's answer again (0 where the strategy wants earlier answers reused).
    """

    a: int
    b: int
    first_repetition: int = 0


@dataclass(frozen=True)
class PlannedScore:
    """A text to score alone: `item`, in one call with repetition index `repetition`.

    The call asks the strategy's `question`; a repetition is a fresh judgement of the text.
    """

    item: int
    repetition: int = 0


@dataclass(frozen=True)
class PlannedGroup:
    """A ranking call to make: `items` shown in this order, asked for their order.

    `first_repetition` counts the earlier calls that showed these items in this order, so
    that a repeat is a fresh judgement rather than a cached answer counted again.
    """

    items: tuple[int, ...]
    first_repetition: int = 0


@dataclass(frozen=True)
class RoundPlan:
    """One round's matches, ranking calls and texts scored alone, and who sits out.

    At most one item sitting out is recorded. A round either plays matches (or ranking
    calls) or scores texts alone, never both: its calls share one prompt.
    """

    matches: list[PlannedMatch]
    bye: int | None = None
    scores: list[PlannedScore] = field(default_factory=list)
    groups: list[PlannedGroup] = field(default_factory=list)


@dataclass(frozen=True)
class Note:
    """Something the update did that progress listeners hear about (one event each).

    `item`, when set, is the index of the item the note is about: the node names its text
    in the message and puts the text in the event's data under "item". `item_lists` names
    the keys of `data` that hold lists of item indices, which the node turns into texts.
    """

    kind: EventType
    message: str
    data: dict[str, Any] = field(default_factory=dict)
    item: int | None = None
    item_lists: tuple[str, ...] = ()


@dataclass(frozen=True)
class Update:
    """The standing after a round, and what to tell listeners about it."""

    standing: Standing
    notes: list[Note] = field(default_factory=list)


class Strategy(ABC, Generic[S]):
    """Plays a tournament among `n_items` items (indices 0 … n−1) with `settings`.

    Args:
        settings: The run's settings, of the strategy's own `settings_class`.
        n_items: How many items take part.
        seed: The run's seed; every random choice derives from it (and the round number),
            so a resumed run plays exactly as an uninterrupted one.
    """

    name: ClassVar[str]
    # Its settings (`name` is the same): what the user gives, what a run stores.
    settings_class: ClassVar[type[StrategySettings]]
    # How its `rank` orders items: "wins", "bradley_terry" (strengths fitted to the calls)
    # or "pointwise" (scores of items judged alone).
    native_ranking: ClassVar[str]
    # Whether it can play without round barriers (`pair_free` and `apply_match`), and if
    # not, why (for the error that refuses schedule="pipelined").
    pipelined: ClassVar[bool] = False
    not_pipelined_because: ClassVar[str] = "it plays in rounds"
    # Whether players drop out (progress then says how many are left).
    eliminates: ClassVar[bool] = False

    def __init__(self, settings: S, n_items: int, seed: int, *, soft: bool = False) -> None:
        self.settings = settings
        self.n_items = n_items
        self.seed = seed
        # The run's verdicts are soft: a fit takes each call's probability where it has one.
        self.soft = soft

    @classmethod
    def check(cls, settings: S, n_items: int) -> None:
        """Raise `ValueError` naming the argument when `settings` cannot play `n_items`."""
        del settings, n_items  # every setting is fine unless a strategy says otherwise

    @classmethod
    def check_texts(cls, settings: S, texts: Sequence[str], criteria: str) -> None:
        """`check`, and what the texts themselves decide (Swiss: a token budget's first round)."""
        del criteria
        cls.check(settings, len(texts))

    @abstractmethod
    def start(self) -> Standing:
        """The standing before the first round."""

    def opening(self, texts: Sequence[str], criteria: str) -> Standing:
        """The standing before the first round of `texts`: `start`, unless plans read their size."""
        del texts, criteria
        return self.start()

    @abstractmethod
    def plan(self, standing: Standing, history: Sequence[Any], round_number: int) -> RoundPlan:
        """The matches (or scores) of round `round_number` (1, 2, …); some unless `finished`."""

    @abstractmethod
    def update(self, standing: Standing, history: Sequence[Any]) -> Update:
        """Apply the last round of `history` (a list of rounds, each with "matches")."""

    @abstractmethod
    def finished(self, standing: Standing) -> bool:
        """Whether the tournament is over."""

    @abstractmethod
    def rank(self, standing: Standing, history: Sequence[Any]) -> list[tuple[int, list[int]]]:
        """Competition ranks (1, 2, 2, 4) of every item, best first, as index groups."""

    @abstractmethod
    def match_bounds(self) -> tuple[int, int]:
        """The fewest and the most matches a whole run can take (for a dry run)."""

    @abstractmethod
    def remaining_matches(self, standing: Standing) -> int:
        """An upper bound on the matches still to play (for `ProgressEvent.total`)."""

    def pair_free(
        self, standing: Standing, free: Sequence[int], busy_brackets: dict[int, int],
        rng: random.Random,
    ) -> list[PlannedMatch]:
        """Pipelined play: the matches to start now among the `free` players.

        `busy_brackets` counts the players in matches by the strategy's grouping of them
        (loss brackets for elimination). Only strategies with `pipelined` implement it.
        """
        raise NotImplementedError(f"{self.name} cannot be played pipelined")

    def apply_match(self, standing: Standing, match: PlayedMatch) -> list[Note]:
        """Pipelined play: apply one finished match to `standing`, in place.

        Returns what listeners hear about. Only strategies with `pipelined` implement it.
        """
        raise NotImplementedError(f"{self.name} cannot be played pipelined")

    def is_active(self, standing: Standing, player: int) -> bool:
        """Pipelined play: whether a player still takes part (all do, unless eliminated)."""
        del standing, player
        return True

    def group_of(self, standing: Standing, player: int) -> int:
        """Pipelined play: the group a player sits in (its loss bracket, for elimination)."""
        del standing, player
        return 0

    def question(self, standing: Standing) -> ScoreQuestion | None:
        """What the next round's calls ask when they score items alone, else None.

        A round that scores items alone plans `PlannedScore`s (one call each, showing that
        item); its calls ask this question (`LLMProvider.score_call`), and their labels come
        back in the calls' facts (see `tournament.records.round_scores`). The pointwise
        strategy's rounds do; another strategy may play such a round first (a pre-pass).
        """
        del standing
        return None

    def players_left(self, standing: Standing) -> int:
        """Items still taking part (all of them, unless the strategy `eliminates`)."""
        del standing
        return self.n_items

    def early_stop(self, standing: Standing) -> EarlyStop | None:
        """Why the run ended before what its settings allowed (None: it did not)."""
        del standing
        return None

    def match_cost(self, winner: Side | None) -> int:
        """How much a finished match shrinks `remaining_matches` (at least 1)."""
        del winner
        return 1

    def rng(self, round_number: int, purpose: str = "pairing") -> random.Random:
        """A generator for `purpose` in round `round_number`, derived from the run seed."""
        return random.Random(f"llm-qualitative-sort/{purpose}/{self.seed}/{round_number}")
