"""Whole sorts in batch mode against fake OpenAI and Gemini batch servers, with the real clients.

The verdicts follow a hidden score, so a batch-mode sort must reproduce, call for call, the
sort the live path makes against the live fakes with the same seed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _batch_setup import FAST, batch_provider, batch_server
from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve
from _setup import KEY, hidden_scores, make_items, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    BatchOptions,
    EventType,
    FileCache,
    QualitativeSorter,
    SortResult,
    Swiss,
    TransientProviderError,
)

KINDS = ["openai", "google"]
FAST_RETRY = RetryPolicy(initial_interval=0.01, max_interval=0.05, max_attempts=4,
                         jitter=False, retry_on=TransientProviderError)


def sorter(provider, tmp_path: Path, **options) -> QualitativeSorter:
    options.setdefault("checkpointer", tmp_path / "runs.sqlite3")
    return QualitativeSorter(provider, criteria="which essay argues better", seed=4,
                             retry_policy=FAST_RETRY, **options)


def calls_of(result: SortResult) -> list[tuple[str, str, str | None, list]]:
    return [(m.item_a, m.item_b, m.winner, [(c.order, c.winner) for c in m.rounds])
            for m in result.match_history]


async def live_reference(kind: str, items: list[str], tmp_path: Path, **options) -> SortResult:
    judge = FakeJudge(hidden_scores(items), KEY, "gpt-5.1" if kind == "openai" else "gemini-3.0")
    server, url = serve(judge, OpenAIDialect if kind == "openai" else GeminiDialect)
    try:
        provider = make_provider(kind, url + ("/v1" if kind == "openai" else "/v1beta"))
        return await sorter(provider, tmp_path, checkpointer=None, **options).sort(items)
    finally:
        server.shutdown()
        server.server_close()


SWISS = {"strategy": Swiss(comparison_rounds=1, top_k=5)}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("strategy", [{}, SWISS], ids=["elimination", "swiss"])
async def test_a_batch_sort_makes_the_live_sort_one_batch_per_round(
    kind, strategy, tmp_path
) -> None:
    items = make_items(30)
    events = []
    with batch_server(kind, hidden_scores(items)) as (fake, url):
        provider = batch_provider(kind, url, input_price_per_million=2.0,
                                  output_price_per_million=8.0)
        result = await sorter(provider, tmp_path, on_progress=events.append,
                              **strategy).sort(items)
        submitted = fake.submitted()
    reference = await live_reference(kind, items, tmp_path, **strategy)
    assert calls_of(result) == calls_of(reference)
    assert result.rankings == reference.rankings
    stats = result.statistics
    assert fake.rounds() == list(range(1, stats.rounds + 1))  # one batch per round
    assert len(submitted) == len(set(submitted)) == stats.total_api_calls  # none twice
    assert stats.batch_calls == stats.total_api_calls and stats.failed_calls == 0
    assert all(call.batch for match in result.match_history for call in match.rounds)
    live_price = (stats.input_tokens * 2.0 + stats.output_tokens * 8.0) / 1e6
    assert stats.estimated_cost == pytest.approx(live_price * 0.5)
    assert reference.statistics.estimated_cost is None  # no prices given there
    batch_events = [e for e in events if e.type is EventType.BATCH]
    assert {e.data["state"] for e in batch_events} >= {"submitted"}
    assert all(e.completed <= e.total for e in batch_events)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_warm_cache_answers_without_any_batch(kind, tmp_path) -> None:
    items = make_items(12)
    cache = FileCache(tmp_path / "cache")
    try:
        with batch_server(kind, hidden_scores(items)) as (fake, url):
            first = await sorter(batch_provider(kind, url), tmp_path, cache=cache).sort(items)
            batches = len(fake.batches)
            second = await sorter(batch_provider(kind, url), tmp_path, cache=cache).sort(items)
            assert len(fake.batches) == batches  # nothing submitted the second time
    finally:
        cache.close()
    assert second.rankings == first.rankings
    assert second.statistics.total_api_calls == 0 and second.statistics.batch_calls == 0
    first_calls = first.statistics.total_api_calls + first.statistics.cache_hits
    assert second.statistics.cache_hits == first_calls


@pytest.mark.parametrize("kind", KINDS)
async def test_a_discount_setting_prices_batch_calls(kind, tmp_path) -> None:
    items = make_items(6)
    with batch_server(kind, hidden_scores(items)) as (_, url):
        options = BatchOptions(poll_interval=0.005, max_poll_interval=0.02, discount=0.25)
        provider = batch_provider(kind, url, options, input_price_per_million=1.0,
                                  output_price_per_million=1.0)
        stats = (await sorter(provider, tmp_path).sort(items)).statistics
    tokens = stats.input_tokens + stats.output_tokens
    assert stats.estimated_cost == pytest.approx(tokens / 1e6 * 0.75)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_round_beyond_the_provider_limit_is_split(kind, tmp_path, monkeypatch) -> None:
    items = make_items(12)
    with batch_server(kind, hidden_scores(items)) as (fake, url):
        provider = batch_provider(kind, url)
        original = provider.batch_client

        def small_batches():
            client = original()
            client.max_requests = 5
            return client

        monkeypatch.setattr(provider, "batch_client", small_batches)
        result = await sorter(provider, tmp_path).sort(items)
        sizes = [len(batch.requests) for batch in fake.batches.values()]
    assert max(sizes) == 5 and sum(sizes) == result.statistics.total_api_calls
    assert len(sizes) > result.statistics.rounds


@pytest.mark.parametrize("kind", KINDS)
async def test_a_lost_create_answer_adopts_the_batch_found_by_its_tag(kind, tmp_path) -> None:
    items = make_items(6)
    with batch_server(kind, hidden_scores(items), create_faults=["lost", "500"]) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(items)
        rounds = fake.rounds()
        listed = [entry for entry in fake.log if "/batches?" in entry]
    assert listed  # the lost batch was looked for by its tag
    # Round 1's batch was created but its answer lost: found by tag, never made twice.
    # Round 2's first try was refused outright and made again.
    assert rounds == list(range(1, result.statistics.rounds + 1))


def test_fast_options_are_what_the_tests_use() -> None:
    assert FAST.poll_interval < 0.01 and FAST.max_poll_interval <= 0.02


@pytest.mark.parametrize("kind", KINDS)
async def test_a_batch_sort_with_ties_offers_them_and_records_them(kind, tmp_path) -> None:
    items = make_items(30)
    scores = hidden_scores(items)
    with batch_server(kind, scores, ties_below=1.5) as (fake, url):
        provider = batch_provider(kind, url)
        ties = Swiss(comparison_rounds=1, top_k=5, ties=True)
        result = await sorter(provider, tmp_path, strategy=ties).sort(items)
        forced = await sorter(provider, tmp_path, checkpointer=None, **SWISS).sort(items)
    tied = [(m.item_a, m.item_b) for m in result.match_history for c in m.rounds
            if c.winner == "tie"]
    assert tied and result.statistics.tied_calls == len(tied)
    assert all(abs(scores[a] - scores[b]) < 1.5 for a, b in tied)
    assert result.statistics.failed_calls == 0 and result.statistics.batch_calls > 0
    assert forced.statistics.tied_calls == 0 and forced.statistics.failed_calls == 0
