"""The labelled pairs as a strategy: one round of the given matches, then over.

Each pair is one match of `comparison_rounds` calls, half in each presentation order, so
a judge's lean toward the first-shown text shows in its answers. Items are ranked by
matches won, which nobody needs: the calls are the point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.tournament.base import PlannedMatch, RoundPlan, Standing, Strategy, Update
from llm_qualitative_sort.tournament.elimination.ranking import competition_ranks
from llm_qualitative_sort.tournament.labelled.settings import Labelled


class LabelledStrategy(Strategy[Labelled]):
    """Plays exactly `settings.pairs`, in one round."""

    name = "labelled"
    settings_class = Labelled
    native_ranking = "wins"

    @classmethod
    def check(cls, settings: Labelled, n_items: int) -> None:
        """Refuse a pair that names an item outside 0..n−1."""
        for a, b in settings.pairs:
            if not (0 <= a < n_items and 0 <= b < n_items):
                raise InputError(f"pairs: {(a, b)} names an item outside 0..{n_items - 1}")

    def start(self) -> Standing:
        """Nothing asked yet."""
        return {"done": False}

    def plan(self, standing: Standing, history: Sequence[Any], round_number: int) -> RoundPlan:
        """Every pair, in the order given."""
        del standing, history, round_number
        return RoundPlan([PlannedMatch(a, b) for a, b in self.settings.pairs])

    def update(self, standing: Standing, history: Sequence[Any]) -> Update:
        """The one round is played: the run is over."""
        del standing, history
        return Update({"done": True})

    def finished(self, standing: Standing) -> bool:
        """After the one round."""
        return bool(standing.get("done"))

    def rank(self, standing: Standing, history: Sequence[Any]) -> list[tuple[int, list[int]]]:
        """By matches won (a draw is half a win each)."""
        del standing
        wins = [0.0] * self.n_items
        for entry in history:
            for a, b, winner, _calls in entry["matches"]:
                if winner is None:
                    wins[a] += 0.5
                    wins[b] += 0.5
                else:
                    wins[a if winner == "A" else b] += 1.0
        return competition_ranks(wins)

    def match_bounds(self) -> tuple[int, int]:
        """Exactly one match per pair."""
        return len(self.settings.pairs), len(self.settings.pairs)

    def remaining_matches(self, standing: Standing) -> int:
        """All of them until the round is played."""
        return 0 if standing.get("done") else len(self.settings.pairs)
