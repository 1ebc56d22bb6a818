"""Turning a run's stored state into the public result types."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from llm_qualitative_sort.bradley_terry import rank_by_score
from llm_qualitative_sort.models import EarlyStop, SortResult, Statistics
from llm_qualitative_sort.providers._batch import BatchOptions
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.rating.result import Rating
from llm_qualitative_sort.rating.scoring import ItemScore, ScoredCall
from llm_qualitative_sort.results.audit import audit, shared_places
from llm_qualitative_sort.results.calibration import calibration
from llm_qualitative_sort.results.listwise import ranking_calls, slot_shares
from llm_qualitative_sort.results.pointwise import pointwise_result, scored_items
from llm_qualitative_sort.tournament.checks import Ranking as Ranking
from llm_qualitative_sort.tournament.records import (
    CallRecord,
    MatchLog,
    RoundLog,
    call_results,
    read_calls,
    round_matches,
    round_scores,
)
from llm_qualitative_sort.tournament.registry import settings_from_state
from llm_qualitative_sort.tournament.swiss.groups import extra_calls
from llm_qualitative_sort.tournament.swiss.prepass import question
from llm_qualitative_sort.verdicts import MatchResult, RankingCall, RoundResult


def match_from_log(items: Sequence[str], log: MatchLog, round_number: int) -> MatchResult:
    """A `MatchResult` from its stored form."""
    a, b, winner, stored = log
    return MatchResult(items[a], items[b], winner, call_results(stored), round_number)


def history_matches(items: Sequence[str], history: Sequence[RoundLog], *,
                    release: bool = False) -> list[MatchResult]:
    """Every match of two texts of the run, in the order played.

    Texts scored alone (a Swiss pre-pass) are no match: `prepass_scores` reads them.
    With `release`, each round's stored matches and scores are emptied once read: the
    stored form and the result are then never both held whole (at n = 10,000, N = 10 they
    are ~35 and ~45 MB), and the memory the stored calls free is reused by the results.
    """
    matches: list[MatchResult] = []
    for entry in history:
        number = entry["round"]
        matches.extend(match_from_log(items, log, number) for log in round_matches(entry))
        if release:
            entry["matches"] = []
            entry.pop("scores", None)
    return matches


def prepass_scores(items: Sequence[str], history: Sequence[RoundLog], prepass: str | None
                   ) -> tuple[ItemScore, ...]:
    """A Swiss pre-pass's score of each text, in the order asked (empty: no pre-pass).

    The same records as a pointwise run's scores, read with the pre-pass's own question.
    """
    if prepass is None or not any(round_scores(entry) for entry in history):
        return ()
    return tuple(scored_items(items, history, question(prepass)))


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
    *,
    batch_discount: float = 0.5,
    rankings: Sequence[tuple[int, Sequence[str]]] = (),
    judge: str = "",
    judge_costs: Mapping[str, CostEstimate | None] | None = None,
    strengths: Callable[[], Mapping[str, float]] | None = None,
    early_stop: EarlyStop | None = None,
    rate: tuple[int, float] = (0, 0.0),
    ranked: Sequence[RankingCall] = (),
    scored: Sequence[ScoredCall] = (),
) -> Statistics:
    """Counts and the audit over the whole run.

    Args:
        matches: The run's matches.
        rounds: Rounds played.
        elapsed: Wall time in seconds.
        estimate_cost: The provider's price function (a single judge).
        batch_discount: The share of the live price that batch calls save.
        rankings: The final ranking, for the tie counts.
        judge: Identity of the run's provider, for calls that name no judge.
        judge_costs: A panel's price function per judge identity (a judge missing here has
            `estimate_cost`); the run's cost is then the sum of the judges' costs, when
            each judge that was paid has prices.
        strengths: The fitted strengths, asked for only by judges of single calls.
        early_stop: Why the run ended before its budget, if it did.
        rate: The 429s met and the seconds held for the rate limit.
        ranked: The run's ranking calls: each one call, in the counts and tokens.
        scored: The calls of a pre-pass, each scoring a text alone: in the calls, the
            failures (no label), the tokens and the cost; no match, no draw.
    """
    # One pass, no list of the run's calls (200,000 at n = 10,000, N = 10): this runs at
    # the end of a run, when its memory peaks.
    calls = paid = failed = tied = input_tokens = output_tokens = 0
    batch: list[RoundResult | RankingCall | ScoredCall] = []  # paid at the batch price
    for match in matches:
        for call in match.rounds:
            calls += 1
            failed += call.winner is None
            tied += call.winner == "tie"
            if not call.cached:
                paid += 1
                input_tokens += call.input_tokens
                output_tokens += call.output_tokens
                if call.batch:
                    batch.append(call)
    # A ranking call is one call however many texts it orders; a score, one call.
    others: list[RankingCall | ScoredCall] = [*ranked, *scored]
    for other in others:
        calls += 1
        failed += (other.order if isinstance(other, RankingCall) else other.label) is None
        if not other.cached:
            paid += 1
            input_tokens += other.input_tokens
            output_tokens += other.output_tokens
            if other.batch:
                batch.append(other)
    prices = judge_costs or {}
    found = audit(matches, judge, lambda name: prices.get(name, estimate_cost), strengths,
                  order=list(prices), batch_discount=batch_discount, scored=scored)
    if len(found.judges) > 1 or judge_costs is not None:
        cost = _panel_cost(found.judges)
    else:
        cost = _cost((input_tokens, output_tokens), batch, estimate_cost, batch_discount)
    tied_items, largest_tie = shared_places(rankings)
    return Statistics(
        total_matches=len(matches),
        total_api_calls=paid,
        cache_hits=calls - paid,
        elapsed_time=elapsed,
        failed_calls=failed,
        draws=sum(match.winner is None for match in matches),
        rounds=rounds,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        estimated_cost=cost,
        batch_calls=len(batch),
        position_bias=found.position_bias,
        order_consistency=found.order_consistency,
        judges=found.judges,
        agreement=found.agreement,
        calibration=calibration(matches),
        rate_limited=rate[0],
        rate_wait=rate[1],
        tied_items=tied_items,
        largest_tie=largest_tie,
        early_stop=early_stop,
        tied_calls=tied,
        slot_bias=slot_shares(ranked),
    )


def _panel_cost(judges: Sequence[Any]) -> float | None:
    """The sum of the judges' costs; None when a judge that was paid has no prices."""
    if any(j.estimated_cost is None and j.paid_calls for j in judges):
        return None
    known = [j.estimated_cost for j in judges if j.estimated_cost is not None]
    return sum(known) if known else None


def counts(history: Sequence[RoundLog], *, scores_alone: bool = False) -> dict[str, int]:
    """The run's counts straight from its stored history (no result objects built).

    The same figures as `Statistics`, less the wall time and cost, which the graph cannot
    know; for LangGraph Studio and the API server, whose output is plain data. A text
    scored alone is no match, except in a pointwise run (`scores_alone`), whose
    `Statistics.total_matches` counts its calls.
    """
    totals = dict.fromkeys(("total_matches", "total_api_calls", "cache_hits", "failed_calls",
                            "draws", "input_tokens", "output_tokens", "tied_calls"), 0)
    totals["rounds"] = len(history)
    for entry in history:
        scores = round_scores(entry)
        matches = round_matches(entry)
        totals["total_matches"] += len(matches) + (len(scores) if scores_alone else 0)
        totals["draws"] += sum(winner is None for _a, _b, winner, _calls in matches)
        for *_, stored in matches:
            _count_calls(totals, read_calls(stored))
        _count_calls(totals, [score.call for score in scores])
        for group in entry.get("groups") or ():  # a ranking call: one call, its tokens once
            totals["cache_hits" if group["cached"] else "total_api_calls"] += 1
            totals["failed_calls"] += group["order"] is None
            if not group["cached"]:
                totals["input_tokens"] += group["input_tokens"]
                totals["output_tokens"] += group["output_tokens"]
    return totals


def _count_calls(totals: dict[str, int], calls: list[CallRecord]) -> None:
    for call in calls:
        if call.cached:
            totals["cache_hits"] += 1
        else:
            totals["total_api_calls"] += 1
            totals["input_tokens"] += call.input_tokens
            totals["output_tokens"] += call.output_tokens
        if call.winner is None:
            totals["failed_calls"] += 1
        elif call.winner == "tie":
            totals["tied_calls"] += 1


def _cost(
    paid_tokens: tuple[int, int],
    batch: Sequence[RoundResult | RankingCall | ScoredCall],
    estimate_cost: CostEstimate | None,
    batch_discount: float,
) -> float | None:
    """The run's cost from the tokens of its paid calls, of which `batch`'s went by batch."""
    if estimate_cost is None:
        return None
    live_in = paid_tokens[0] - sum(c.input_tokens for c in batch)
    live_out = paid_tokens[1] - sum(c.output_tokens for c in batch)
    live = estimate_cost(live_in, live_out)
    if not batch:
        return live
    batched = estimate_cost(sum(c.input_tokens for c in batch),
                            sum(c.output_tokens for c in batch))
    if live is None or batched is None:
        return None
    return live + batched * (1.0 - batch_discount)


def sort_result(
    values: dict[str, Any],
    run_id: str,
    elapsed: float,
    ranking: Ranking = "wins",
    estimate_cost: CostEstimate | None = None,
    *,
    batch_discount: float = 0.5,
    judge: str = "",
    judge_costs: Mapping[str, CostEstimate | None] | None = None,
    prompt: str = "",
    verdicts: str = "hard",
    release: bool = False,
    rate: tuple[int, float] = (0, 0.0),
) -> SortResult:
    """The `SortResult` of a finished run from its final state.

    One rating model serves the statistics (a run of single calls needs the strengths for
    its position bias), the scores, the intervals and the top-K probabilities. With
    `release`, `values["history"]` is emptied as it is read (see `history_matches`): for a
    caller that has no further use for it.
    """
    settings = settings_from_state(values)
    if settings.scores_alone:  # scores of texts judged alone, no fit
        return pointwise_result(values, run_id, elapsed, estimate_cost,
                                batch_discount=batch_discount, prompt=prompt, rate=rate)
    items: list[str] = values["items"]
    history: list[RoundLog] = values.get("history", [])
    # A Swiss pre-pass's scores and virtual calls and its ranking calls' pairs are read
    # before `release` empties the history.
    prepass = getattr(settings, "prepass", None)
    extra, weight = extra_calls(history, len(items), prepass)
    scored = prepass_scores(items, history, prepass)
    ranked = ranking_calls(items, history)
    matches = history_matches(items, history, release=release)
    rankings = [(rank, list(group)) for rank, group in values["rankings"]]
    rating = Rating(items, matches, soft=verdicts == "soft", extra=extra, extra_weight=weight)
    scores = None
    if ranking == "bradley_terry":
        scores = rating.scores()
        rankings = rank_by_score(scores)
    stats = statistics(matches, len(history), elapsed, estimate_cost,
                       batch_discount=batch_discount, rankings=rankings, judge=judge,
                       judge_costs=judge_costs, strengths=rating.scores,
                       early_stop=_early_stop(values.get("early_stop")), rate=rate,
                       ranked=ranked, scored=[call for s in scored for call in s.calls])
    result = SortResult(rankings, matches, stats, run_id, prompt, verdicts,
                        ranking_calls=ranked, prepass=scored, strategy=settings.name)
    result.__dict__["_rating"] = rating  # the fits made so far are kept, not made again
    if scores is not None:
        result.__dict__["scores"] = scores
    return result


def _early_stop(stored: Any) -> EarlyStop | None:
    """The stored early stop (a dict; runs finished before it was kept have none)."""
    return EarlyStop(**stored) if isinstance(stored, dict) else None


def trivial_result(items: Sequence[str], run_id: str, elapsed: float) -> SortResult:
    """The result for fewer than two items: no match, no call."""
    rankings = [(1, [items[0]])] if items else []
    return SortResult(rankings, [], Statistics(0, 0, 0, elapsed, largest_tie=len(items)), run_id)
