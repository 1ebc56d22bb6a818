"""Pointwise scoring as a strategy: one round of n × repetitions calls, then ranks by score.

Each planned score (`PlannedScore`) is one call: the engine shows the judge that item
alone (see `graph.nodes._book`), journals and caches the answer like any call, and stores
the label and its distribution in the call's facts. A repetition is another score of the
item, with its own repetition index, so it is a fresh judgement.
The standing after the round holds each item's mean score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort.models import EventType
from llm_qualitative_sort.rating.scoring import ScoreQuestion
from llm_qualitative_sort.tournament.base import (
    Note,
    PlannedScore,
    RoundPlan,
    Standing,
    Strategy,
    Update,
)
from llm_qualitative_sort.tournament.pointwise.ranking import item_scores, mean_score, score_ranks
from llm_qualitative_sort.tournament.pointwise.settings import Pointwise


class PointwiseStrategy(Strategy[Pointwise]):
    """Scores every item alone, `repetitions` times, in one parallel round."""

    name = "pointwise"
    settings_class = Pointwise
    native_ranking = "pointwise"
    not_pipelined_because = ("its calls are independent and all start in its one round "
                             "(use the default schedule='rounds')")

    def start(self) -> Standing:
        """Nothing scored yet."""
        return {"scores": [None] * self.n_items, "done": False}

    def plan(self, standing: Standing, history: Sequence[Any], round_number: int) -> RoundPlan:
        """Round 1: every item, each repetition (repetition by repetition, items in order)."""
        del standing, history, round_number
        return RoundPlan([], scores=[PlannedScore(item, repetition)
                                     for repetition in range(self.settings.repetitions)
                                     for item in range(self.n_items)])

    def update(self, standing: Standing, history: Sequence[Any]) -> Update:
        """Each item's mean score over its answered calls; the run is then over."""
        del standing
        scores = item_scores(history, self.n_items, self.settings.scale, self.settings.inverse)
        means = [mean_score(found) for found in scores]
        scored = sum(mean is not None for mean in means)
        note = Note(EventType.STANDINGS, f"scored {scored} of {self.n_items} items",
                    {"scored": scored})
        return Update({"scores": means, "done": True}, [note])

    def question(self, standing: Standing) -> ScoreQuestion | None:
        """The settings' scale and direction, until the round is played."""
        return None if standing.get("done") else self.settings.question

    def finished(self, standing: Standing) -> bool:
        """After the one round."""
        return bool(standing.get("done"))

    def rank(self, standing: Standing, history: Sequence[Any]) -> list[tuple[int, list[int]]]:
        """By mean score; equal scores share a rank, unscored items come last."""
        del history
        return score_ranks(standing["scores"])

    def match_bounds(self) -> tuple[int, int]:
        """Exactly n × repetitions calls."""
        calls = self.n_items * self.settings.repetitions
        return calls, calls

    def remaining_matches(self, standing: Standing) -> int:
        """All of them until the round is played."""
        return 0 if standing.get("done") else self.n_items * self.settings.repetitions
