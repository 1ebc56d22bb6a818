"""Whole sorts of 30 texts through the real clients against the fake servers."""

from __future__ import annotations

import logging
import math
from itertools import combinations
from pathlib import Path

import pytest
from _fakes import FakeJudge
from _setup import KEY, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    FileCache,
    QualitativeSorter,
    RunStoppedError,
    SortResult,
    TransientProviderError,
)

Served = tuple[str, FakeJudge, str]
FAST = RetryPolicy(
    initial_interval=0.01, backoff_factor=2.0, max_interval=0.05, max_attempts=6,
    jitter=False, retry_on=TransientProviderError,
)
CRITERIA = "which text is more persuasive"


def tau_b(result: SortResult, scores: dict[str, float]) -> float:
    """Kendall's tau-b of the predicted ranks (with ties) against the hidden scores."""
    rank = {item: r for r, group in result.rankings for item in group}
    concordant = discordant = tied = 0
    for x, y in combinations(scores, 2):
        predicted = rank[y] - rank[x]  # > 0: x ranked better
        if predicted == 0:
            tied += 1
        elif (predicted > 0) == (scores[x] > scores[y]):
            concordant += 1
        else:
            discordant += 1
    pairs = concordant + discordant + tied
    return (concordant - discordant) / math.sqrt(pairs * (pairs - tied))


def sorter(provider: object, tmp_path: Path, **options: object) -> QualitativeSorter:
    return QualitativeSorter(
        provider,  # type: ignore[arg-type]
        criteria=CRITERIA, seed=3, retry_policy=FAST,
        checkpointer=tmp_path / "runs.sqlite3", cache=FileCache(tmp_path / "cache"),
        **options,  # type: ignore[arg-type]
    )


def assert_top_is_best(result: SortResult, scores: dict[str, float]) -> None:
    best = max(scores, key=scores.__getitem__)
    assert result.rankings[0] == (1, [best])


async def test_sort_follows_the_hidden_score_and_reuses_the_cache(
    served: Served, items: list[str], tmp_path: Path
) -> None:
    kind, judge, url = served
    provider = make_provider(
        kind, url, input_price_per_million=2.0, output_price_per_million=10.0
    )
    # Four eliminations: the wins ranking leaves tied blocks that cap tau-b even for a
    # judge that is never wrong (about 0.78 on average with two, 0.87 with four).
    result = await sorter(provider, tmp_path, elimination_count=4).sort(items)
    assert_top_is_best(result, judge.scores)
    assert tau_b(result, judge.scores) > 0.8
    stats = result.statistics
    assert stats.failed_calls == 0
    assert len(judge.seen) == stats.total_api_calls  # rematches may come from the cache
    assert (stats.input_tokens, stats.output_tokens) == (
        100 * stats.total_api_calls, 10 * stats.total_api_calls,
    )
    assert stats.estimated_cost == pytest.approx(stats.total_api_calls * (200 + 100) / 1e6)

    again = await sorter(make_provider(kind, url), tmp_path, elimination_count=4).sort(items)
    assert again.rankings == result.rankings
    assert again.statistics.cache_hits == stats.total_api_calls + stats.cache_hits
    assert len(judge.seen) == stats.total_api_calls, "a cached comparison was paid again"


async def test_sort_rides_out_rate_limits_outages_timeouts_and_bad_json(
    served: Served, items: list[str], tmp_path: Path
) -> None:
    kind, judge, url = served
    faults = ["429", "500", "slow", "drop", "malformed", "503", "429"]
    # The timeout leaves room for a loaded test machine: a spurious timeout would add
    # a request and break the exact count below.
    judge.script, judge.slow_seconds = list(faults), 3.3
    result = await sorter(make_provider(kind, url, timeout=3.0), tmp_path).sort(items)
    assert_top_is_best(result, judge.scores)
    assert result.statistics.failed_calls == 0
    assert len(judge.seen) == result.statistics.total_api_calls + len(faults)


async def test_sort_retries_unreadable_200_answers(
    served: Served, items: list[str], tmp_path: Path
) -> None:
    kind, judge, url = served
    faults = ["truncated", "truncated"] + (["no_choices"] if kind != "google" else [])
    judge.script = list(faults)
    result = await sorter(make_provider(kind, url), tmp_path).sort(items)
    assert_top_is_best(result, judge.scores)
    assert result.statistics.failed_calls == 0
    assert len(judge.seen) == result.statistics.total_api_calls + len(faults)


async def test_refused_calls_count_for_neither_side_and_show(
    served: Served, items: list[str], tmp_path: Path
) -> None:
    kind, judge, url = served
    judge.refuse_item = refused = items[4]  # the Japanese one
    result = await sorter(make_provider(kind, url), tmp_path).sort(items[:12])
    calls = [
        (match, call) for match in result.match_history for call in match.rounds
        if refused in (match.item_a, match.item_b)
    ]
    assert calls and all(call.winner is None for _, call in calls)
    assert all("no usable verdict" in call.reasoning for _, call in calls)
    assert result.statistics.failed_calls == len(calls)
    # The refused item's matches end as draws: a loss for both, a win for neither.
    assert all(match.winner is None for match, _ in calls)


async def test_bad_key_stops_the_run_and_counts_nothing(
    served: Served, items: list[str], tmp_path: Path
) -> None:
    kind, judge, url = served
    wrong = "sk-revoked-0000-1111"
    with pytest.raises(RunStoppedError) as caught:
        await sorter(make_provider(kind, url, api_key=wrong), tmp_path).sort(items[:12])
    message = str(caught.value)
    assert "authentication failed (HTTP 401)" in message and "check the API key" in message
    assert wrong not in message and KEY not in message
    refused = len(judge.seen)
    assert 1 <= refused <= 10  # calls already in flight finish; no new one starts

    result = await sorter(make_provider(kind, url), tmp_path).resume(caught.value.run_id)
    assert_top_is_best(result, {item: judge.scores[item] for item in items[:12]})
    assert result.statistics.failed_calls == 0
    assert len(judge.seen) - refused == result.statistics.total_api_calls


async def test_no_file_or_log_of_the_run_holds_the_key(
    served: Served, items: list[str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kind, judge, url = served
    judge.echo_key = True  # the server copies the key into its answers
    caplog.set_level(logging.DEBUG)
    result = await sorter(make_provider(kind, url), tmp_path).sort(items[:8])
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    names = {path.name for path in written}
    assert {"runs.sqlite3", "runs.journal.sqlite3"} <= names
    assert any(path.parent.name == "cache" for path in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in caplog.text
    assert KEY not in repr(result)
    # The echo did happen and was masked, so the assertions above could have failed.
    assert all("***" in call.reasoning for m in result.match_history for call in m.rounds)
