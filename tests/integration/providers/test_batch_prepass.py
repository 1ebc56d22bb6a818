"""A Swiss run with a pointwise pre-pass in batch mode, against the fake batch servers.

The pre-pass round goes out as one batch of score requests (one text each, the label
schema); the Swiss rounds after it as batches of comparisons. The run ranks as the same
run with live calls, its pre-pass answers share the live calls' cache keys, and a run
detached while a batch is out resumes without paying for any request twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _batch_setup import batch_provider, batch_server
from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve
from _setup import KEY, hidden_scores, make_items, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    BatchOptions,
    FileCache,
    QualitativeSorter,
    RunDetached,
    SortResult,
    Swiss,
    TransientProviderError,
)

KINDS = ["openai", "google"]
ITEMS = make_items(8)
BUDGET = 24  # the pre-pass (8 calls), then four Swiss rounds of 4 matches
FAST_RETRY = RetryPolicy(initial_interval=0.01, max_interval=0.05, max_attempts=4,
                         jitter=False, retry_on=TransientProviderError)
DETACH = BatchOptions(poll_interval=0.005, max_poll_interval=0.02, detach=True)


def sorter(provider: Any, tmp_path: Path, prepass: str = "pointwise",
           **options: Any) -> QualitativeSorter:
    options.setdefault("checkpointer", tmp_path / "runs.sqlite3")
    return QualitativeSorter(provider, criteria="which essay argues better", seed=4,
                             strategy=Swiss(budget=BUDGET, prepass=prepass),
                             retry_policy=FAST_RETRY, **options)


async def live_result(kind: str, tmp_path: Path, prepass: str) -> SortResult:
    """The same run with live calls, against the live fake of the same judge."""
    judge = FakeJudge(hidden_scores(ITEMS), KEY, "gpt-5.1" if kind == "openai" else "gemini-3.0")
    server, url = serve(judge, OpenAIDialect if kind == "openai" else GeminiDialect)
    try:
        live = make_provider(kind, url + ("/v1" if kind == "openai" else "/v1beta"))
        return await sorter(live, tmp_path, prepass, checkpointer=None).sort(ITEMS)
    finally:
        server.shutdown()
        server.server_close()


def matches(result: SortResult) -> list[tuple[int, str, str, str | None]]:
    """Each match: its round, the two texts and the winner."""
    return [(m.round_number, m.item_a, m.item_b, m.winner) for m in result.match_history]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("prepass", ["pointwise", "pointwise-inverse"])
async def test_a_prepass_run_in_batch_mode_ranks_as_the_live_run(
    kind: str, prepass: str, tmp_path: Path
) -> None:
    expected = await live_result(kind, tmp_path, prepass)
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path, prepass).sort(ITEMS)
        batches = [b.requests for b in fake.batches.values()]
    # The pre-pass round: one batch of score requests, each text shown alone once.
    first, *later = batches
    assert sorted(r.text for r in first) == sorted(ITEMS)
    assert all(r.texts is None for r in first)
    inverse = "how far the text is from meeting the criterion"
    assert all((inverse in str(r.body).lower()) == (prepass == "pointwise-inverse")
               for r in first)
    # The Swiss rounds: comparisons, one batch a round.
    assert later and all(r.texts is not None and r.text is None for b in later for r in b)
    assert len(batches) == 1 + len({m.round_number for m in expected.match_history})
    assert result.rankings == expected.rankings
    assert matches(result) == matches(expected)
    stats = result.statistics
    assert stats.batch_calls == stats.total_api_calls == BUDGET and stats.failed_calls == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_a_detached_prepass_run_resumes_round_by_round_and_never_pays_twice(
    kind: str, tmp_path: Path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        run = sorter(batch_provider(kind, url, DETACH), tmp_path)
        with pytest.raises(RunDetached) as detached:
            await run.sort(ITEMS, run_id="prepass")
        assert "round 1" in str(detached.value)
        steps = 1
        while True:  # each resume checks the round's batch once, or submits the next round
            try:
                result = await run.resume("prepass")
                break
            except RunDetached:
                steps += 1
                assert steps < 300
        submitted = fake.submitted()
        batches = [b.requests for b in fake.batches.values()]
    assert steps > len(batches) > 1
    assert len(submitted) == len(set(submitted)) == BUDGET  # each call asked once
    assert [len(b) for b in batches] == [len(ITEMS)] + [4] * (len(batches) - 1)
    assert all(r.texts is None for r in batches[0])
    stats = result.statistics
    assert stats.batch_calls == BUDGET and stats.failed_calls == 0
    with batch_server(kind, hidden_scores(ITEMS)) as (_, url):
        again = await sorter(batch_provider(kind, url), tmp_path, checkpointer=None).sort(ITEMS)
    assert result.rankings == again.rankings


@pytest.mark.parametrize("kind", KINDS)
async def test_prepass_batch_answers_are_cached_under_the_live_calls_keys(
    kind: str, tmp_path: Path
) -> None:
    cache = FileCache(tmp_path / "cache")
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        first = await sorter(batch_provider(kind, url), tmp_path, cache=cache).sort(ITEMS)
        live = batch_provider(kind, url)
        live.batch = None  # the same judge in live mode asks the same questions
        shared = await sorter(live, tmp_path, cache=cache, checkpointer=None).sort(ITEMS)
        log = list(fake.log)
    assert not any("generateContent" in e or "/chat/completions" in e for e in log
                   if "batchGenerateContent" not in e)  # no live call: the cache served all
    assert shared.statistics.cache_hits == BUDGET
    assert shared.rankings == first.rankings
    assert matches(shared) == matches(first)
