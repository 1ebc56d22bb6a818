"""Multi-elimination as a `Strategy`: N losses eliminate; the default strategy."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort.models import EventType
from llm_qualitative_sort.tournament.base import (
    Note,
    PlannedMatch,
    PlayedMatch,
    RoundPlan,
    Standing,
    Strategy,
    Update,
)
from llm_qualitative_sort.tournament.elimination.brackets import (
    BracketChange,
    active_players,
    apply_match,
    apply_round,
    remaining_match_bound,
)
from llm_qualitative_sort.tournament.elimination.free import pair_free_players
from llm_qualitative_sort.tournament.elimination.pairing import pair_round
from llm_qualitative_sort.tournament.elimination.ranking import final_ranks
from llm_qualitative_sort.tournament.elimination.settings import Elimination
from llm_qualitative_sort.verdicts import Side


class EliminationStrategy(Strategy[Elimination]):
    """Players sit in loss brackets; N losses eliminate; rank by wins (the winner first).

    The standing is `{"losses": [...], "wins": [...]}` per item. Every match has
    `comparison_rounds` calls, half in each order, and a rematch reuses earlier answers
    (repetition offset 0), so that a rematch costs no new call when answers are cached.
    """

    name = "elimination"
    settings_class = Elimination
    native_ranking = "wins"
    pipelined = True
    eliminates = True

    def start(self) -> Standing:
        """Everyone in the 0-loss bracket, no wins."""
        return {"losses": [0] * self.n_items, "wins": [0] * self.n_items}

    def plan(self, standing: Standing, history: Sequence[Any], round_number: int) -> RoundPlan:
        """Pair inside loss brackets (see `pair_round`)."""
        rng = self.rng(round_number)
        pairing = pair_round(standing["losses"], self.settings.elimination_count, rng)
        return RoundPlan([PlannedMatch(a, b) for a, b in pairing.pairs], pairing.bye)

    def update(self, standing: Standing, history: Sequence[Any]) -> Update:
        """Losers drop a bracket, a draw drops both, N losses eliminate."""
        matches = history[-1]["matches"]
        n_losses = self.settings.elimination_count
        losses, wins, changes = apply_round(
            standing["losses"], standing["wins"], [(m[0], m[1]) for m in matches],
            [m[2] for m in matches], n_losses,
        )
        return Update({"losses": losses, "wins": wins}, [_bracket_note(c) for c in changes])

    def pair_free(
        self, standing: Standing, free: Sequence[int], busy_brackets: dict[int, int],
        rng: random.Random,
    ) -> list[PlannedMatch]:
        """Pair free players inside their loss brackets (see `pair_free_players`)."""
        pairs = pair_free_players(standing["losses"], free, busy_brackets,
                                  self.settings.elimination_count, rng)
        return [PlannedMatch(a, b) for a, b in pairs]

    def apply_match(self, standing: Standing, match: PlayedMatch) -> list[Note]:
        """The loser drops a bracket, a draw drops both (in place)."""
        a, b, winner, _calls = match[:4]
        changes = apply_match(standing["losses"], standing["wins"], a, b, winner,
                              self.settings.elimination_count)
        return [_bracket_note(c) for c in changes]

    def is_active(self, standing: Standing, player: int) -> bool:
        """Fewer than N losses."""
        return bool(standing["losses"][player] < self.settings.elimination_count)

    def group_of(self, standing: Standing, player: int) -> int:
        """The player's loss bracket."""
        return int(standing["losses"][player])

    def finished(self, standing: Standing) -> bool:
        """Over when at most one player is left."""
        return len(active_players(standing["losses"], self.settings.elimination_count)) < 2

    def rank(self, standing: Standing, history: Sequence[Any]) -> list[tuple[int, list[int]]]:
        """The last player standing first, then by wins (see `final_ranks`)."""
        return final_ranks(standing["wins"], standing["losses"], self.settings.elimination_count)

    def match_bounds(self) -> tuple[int, int]:
        """N·n−N … N·n−1 matches (fewer when matches are drawn)."""
        if self.n_items < 2:
            return 0, 0
        most = self.settings.elimination_count * self.n_items - 1
        return most - (self.settings.elimination_count - 1), most

    def remaining_matches(self, standing: Standing) -> int:
        """At most (lives left) − 1 matches (N·n−1 at the start)."""
        return remaining_match_bound(standing["losses"], self.settings.elimination_count)

    def match_cost(self, winner: Side | None) -> int:
        """A match uses one life at least; a draw takes one from each player."""
        return 1 if winner is not None else 2

    def players_left(self, standing: Standing) -> int:
        """Players not yet eliminated."""
        return len(active_players(standing["losses"], self.settings.elimination_count))


def _bracket_note(change: BracketChange) -> Note:
    return Note(EventType.BRACKET_CHANGE,
                f"bracket {change.before} → {_fate(change.after, change.eliminated)}",
                {"from_bracket": change.before, "to_bracket": change.after,
                 "eliminated": change.eliminated},
                item=change.player)


def _fate(bracket: int, eliminated: bool) -> str:
    return "eliminated" if eliminated else f"to bracket {bracket}"
