"""Turning the graph's stored state into the public result types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from llm_qualitative_sort.bradley_terry import rank_by_score
from llm_qualitative_sort.models import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.providers._batch import BatchOptions
from llm_qualitative_sort.providers.base import LLMProvider

if TYPE_CHECKING:
    # Types only: importing the graph here would close an import cycle through the nodes.
    from llm_qualitative_sort.graph.state import MatchLog, RoundLog


def match_from_log(items: Sequence[str], log: MatchLog, round_number: int) -> MatchResult:
    """A `MatchResult` from its stored form."""
    a, b, winner, calls = log
    # A call is stored as 6 fields; a batch call has a 7th, "batch" (older runs have none).
    rounds = [
        RoundResult(order=o, winner=w, reasoning=r, cached=c, input_tokens=i, output_tokens=t,
                    batch=bool(via))
        for o, w, r, c, i, t, *via in calls
    ]
    return MatchResult(items[a], items[b], winner, rounds, round_number)


def history_matches(items: Sequence[str], history: Sequence[RoundLog]) -> list[MatchResult]:
    """Every match of the run, in the order played."""
    return [
        match_from_log(items, log, entry["round"]) for entry in history for log in entry["matches"]
    ]


CostEstimate = Callable[[int, int], float | None]
DEFAULT_BATCH_DISCOUNT = 0.5


def batch_discount(provider: LLMProvider) -> float:
    """The share of the live price a provider's batch calls save (its batch option)."""
    options = getattr(provider, "batch", None)
    return options.discount if isinstance(options, BatchOptions) else DEFAULT_BATCH_DISCOUNT


def statistics(
    matches: Sequence[MatchResult],
    rounds: int,
    elapsed: float,
    estimate_cost: CostEstimate | None = None,
    batch_discount: float = 0.5,
) -> Statistics:
    """Counts over the whole run; the cost estimate comes from the provider's prices.

    Batch calls are priced at `1 - batch_discount` of the live price.
    """
    calls = [call for match in matches for call in match.rounds]
    paid = [call for call in calls if not call.cached]
    input_tokens = sum(call.input_tokens for call in paid)
    output_tokens = sum(call.output_tokens for call in paid)
    batch = [call for call in paid if call.batch]
    return Statistics(
        total_matches=len(matches),
        total_api_calls=len(paid),
        cache_hits=len(calls) - len(paid),
        elapsed_time=elapsed,
        failed_calls=sum(call.winner is None for call in calls),
        draws=sum(match.winner is None for match in matches),
        rounds=rounds,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        estimated_cost=_cost(paid, batch, estimate_cost, batch_discount),
        batch_calls=len(batch),
    )


def counts(history: Sequence[RoundLog]) -> dict[str, int]:
    """The run's counts straight from its stored history (no result objects built).

    The same figures as `Statistics`, less the wall time and cost, which the graph cannot
    know; for LangGraph Studio and the API server, whose output is plain data.
    """
    totals = dict.fromkeys(("total_matches", "total_api_calls", "cache_hits", "failed_calls",
                            "draws", "input_tokens", "output_tokens"), 0)
    totals["rounds"] = len(history)
    for entry in history:
        for _a, _b, winner, calls in entry["matches"]:
            totals["total_matches"] += 1
            totals["draws"] += winner is None
            for _order, call_winner, _reasoning, cached, tokens_in, tokens_out, *_ in calls:
                totals["cache_hits" if cached else "total_api_calls"] += 1
                totals["failed_calls"] += call_winner is None
                if not cached:
                    totals["input_tokens"] += tokens_in
                    totals["output_tokens"] += tokens_out
    return totals


def _cost(
    paid: Sequence[RoundResult],
    batch: Sequence[RoundResult],
    estimate_cost: CostEstimate | None,
    batch_discount: float,
) -> float | None:
    if estimate_cost is None:
        return None
    live_in = sum(c.input_tokens for c in paid if not c.batch)
    live_out = sum(c.output_tokens for c in paid if not c.batch)
    live = estimate_cost(live_in, live_out)
    if not batch:
        return live
    batched = estimate_cost(sum(c.input_tokens for c in batch),
                            sum(c.output_tokens for c in batch))
    if live is None or batched is None:
        return None
    return live + batched * (1.0 - batch_discount)


Ranking = Literal["wins", "bradley_terry"]


def sort_result(
    values: dict[str, Any],
    run_id: str,
    elapsed: float,
    ranking: Ranking = "wins",
    estimate_cost: CostEstimate | None = None,
    batch_discount: float = 0.5,
) -> SortResult:
    """The `SortResult` of a finished run from its final state."""
    items: list[str] = values["items"]
    history: list[RoundLog] = values.get("history", [])
    matches = history_matches(items, history)
    rankings = [(rank, list(group)) for rank, group in values["rankings"]]
    stats = statistics(matches, len(history), elapsed, estimate_cost, batch_discount)
    result = SortResult(rankings, matches, stats, run_id)
    if ranking == "bradley_terry":
        by_strength = SortResult(rank_by_score(result.scores), matches, result.statistics, run_id)
        by_strength.__dict__["scores"] = result.scores  # already fitted: keep, don't refit
        return by_strength
    return result


def trivial_result(items: Sequence[str], run_id: str, elapsed: float) -> SortResult:
    """The result for fewer than two items: no match, no call."""
    rankings = [(1, [items[0]])] if items else []
    return SortResult(rankings, [], Statistics(0, 0, 0, elapsed), run_id)
