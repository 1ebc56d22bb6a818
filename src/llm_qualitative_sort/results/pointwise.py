"""Texts scored alone in a result: a pointwise run's scores, labels, reasons and spread.

`scored_items` also reads a Swiss pre-pass's scores (`SortResult.prepass`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.models import SortResult, Statistics
from llm_qualitative_sort.rating.scoring import (
    ItemScore,
    Scale,
    ScoredCall,
    ScoreQuestion,
    call_score,
    stored_value,
)
from llm_qualitative_sort.results.audit import shared_places
from llm_qualitative_sort.tournament.pointwise import Pointwise
from llm_qualitative_sort.tournament.pointwise.ranking import DIGITS
from llm_qualitative_sort.tournament.records import CallRecord, round_scores
from llm_qualitative_sort.tournament.registry import settings_from_state

CostEstimate = Any  # Callable[[int, int], float | None]; kept loose to import nothing more
# Draws of the items' score means for `top_k_probability` (seeded, as the pairwise fit's).
SAMPLES = 2000


def scored_items(items: Sequence[str], history: Sequence[Mapping[str, Any]],
                 question: ScoreQuestion) -> list[ItemScore]:
    """Every item's calls (labels, distributions, reasons) and mean score, in item order.

    `question` is what the calls asked: their scale and direction, which turn a label into
    a score.
    """
    calls: list[list[ScoredCall]] = [[] for _ in items]
    for entry in history:
        for item, call in round_scores(entry):
            calls[item].append(_scored_call(call, question.scale, question.inverse))
    found = []
    for text, own in zip(items, calls, strict=True):
        scores = [c.score for c in own if c.score is not None]
        mean = round(sum(scores) / len(scores), 9) if scores else None
        found.append(ItemScore(text, mean, tuple(own)))
    return found


def _scored_call(log: CallRecord, scale: Scale, inverse: bool) -> ScoredCall:
    value = stored_value(log.facts)
    stored = log.label or {}
    dist = stored.get("distribution")
    return ScoredCall(
        label=stored.get("label"), expected=value,
        score=None if value is None else call_score(value, scale, inverse),
        distribution=None if dist is None else {int(k): float(p) for k, p in dist},
        reason=log.reasoning, cached=bool(log.cached), input_tokens=log.input_tokens,
        output_tokens=log.output_tokens, batch=log.batch, judge=log.judge)


class PointwiseRating:
    """What `SortResult.scores`, `intervals` and `top_k_probability` read for a pointwise run.

    Scores are the mean call scores (0–1); intervals mean ± 1.96 standard errors over an
    item's repetitions (a single call: the score itself); P(top K) from normal draws of
    those means, equal draws broken at random.
    """

    def __init__(self, scored: Sequence[ItemScore]) -> None:
        self.scored = list(scored)

    def scores(self) -> dict[str, float]:
        """Each item's score (0 for an item no call scored)."""
        return {s.item: s.score if s.score is not None else 0.0 for s in self.scored}

    def intervals(self) -> dict[str, tuple[float, float]]:
        """Mean ± 1.96·sd/√r over the item's scored calls, within 0–1 (to the scores' digits)."""
        found = {}
        for s in self.scored:
            mean, error = self._mean_error(s)
            found[s.item] = (round(max(mean - 1.96 * error, 0.0), DIGITS),
                             round(min(mean + 1.96 * error, 1.0), DIGITS))
        return found

    def top_k_probability(self, k: int) -> dict[str, float]:
        """P(item among the k best), from draws of the means."""
        n = len(self.scored)
        if not 1 <= k <= n:
            raise InputError(f"k must lie in 1..{n}, got {k!r}")
        rng = np.random.default_rng(0)
        means, errors = zip(*(self._mean_error(s) for s in self.scored), strict=True)
        draws = rng.normal(np.asarray(means), np.asarray(errors), size=(SAMPLES, n))
        draws += rng.uniform(0, 1e-9, size=draws.shape)  # equal scores: a random order
        top = np.argsort(-draws, axis=1)[:, :k]
        counts = np.bincount(top.ravel(), minlength=n) / SAMPLES
        return {s.item: float(c) for s, c in zip(self.scored, counts, strict=True)}

    @staticmethod
    def _mean_error(scored: ItemScore) -> tuple[float, float]:
        values = [c.score for c in scored.calls if c.score is not None]
        if not values:
            return 0.0, 0.0
        mean = sum(values) / len(values)
        if len(values) < 2:
            return mean, 0.0
        var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
        return mean, math.sqrt(var / len(values))


def pointwise_result(values: Mapping[str, Any], run_id: str, elapsed: float,
                     estimate_cost: CostEstimate | None = None, *, batch_discount: float = 0.5,
                     prompt: str = "", rate: tuple[int, float] = (0, 0.0)) -> SortResult:
    """The `SortResult` of a finished pointwise run from its final state.

    `rate`: the 429s met and the seconds held for the rate limit.
    """
    settings = settings_from_state(values)
    assert isinstance(settings, Pointwise)
    items: list[str] = values["items"]
    history = values.get("history", [])
    scored = scored_items(items, history, settings.question)
    rankings = [(rank, list(group)) for rank, group in values["rankings"]]
    calls = [c for s in scored for c in s.calls]
    paid = [c for c in calls if not c.cached]
    batch = [c for c in paid if c.batch]
    cost = None
    if estimate_cost is not None:
        live = estimate_cost(sum(c.input_tokens for c in paid if not c.batch),
                             sum(c.output_tokens for c in paid if not c.batch))
        batched = estimate_cost(sum(c.input_tokens for c in batch),
                                sum(c.output_tokens for c in batch)) if batch else 0.0
        cost = None if live is None or batched is None else (
            live + batched * (1.0 - batch_discount))
    tied_items, largest_tie = shared_places(rankings)
    stats = Statistics(
        total_matches=len(calls), total_api_calls=len(paid), cache_hits=len(calls) - len(paid),
        elapsed_time=elapsed, failed_calls=sum(c.label is None for c in calls),
        rounds=len(history), input_tokens=sum(c.input_tokens for c in paid),
        output_tokens=sum(c.output_tokens for c in paid), estimated_cost=cost,
        batch_calls=len(batch), tied_items=tied_items, largest_tie=largest_tie,
        rate_limited=rate[0], rate_wait=rate[1])
    # Best first, as the rankings list them; the rating keeps the stored order, on which
    # its seeded draws depend.
    place = {item: n for n, item in enumerate(item for _, group in rankings for item in group)}
    shown = tuple(sorted(scored, key=lambda s: place.get(s.item, len(place))))
    result = SortResult(rankings, [], stats, run_id, prompt, pointwise=shown,
                        strategy="pointwise")
    rating = PointwiseRating(scored)
    result.__dict__["_rating"] = rating
    result.__dict__["scores"] = rating.scores()
    return result
