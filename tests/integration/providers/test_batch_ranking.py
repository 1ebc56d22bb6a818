"""Swiss runs of ranking calls (`group_size=4`) through the real OpenAI and Gemini clients.

In batch mode each ranking call is one `Rank` request of its round's batch, read back by the
question its batch record names and stored as the live path stores it: a batch run ranks as
the same run with live calls, answers a live run from the same cache, and a detached run
resumed reads its ranking answers without paying for any request twice. Live, the run goes
through the real client end to end and a stopped run resumes from its journal.
"""

from __future__ import annotations

import json
import sqlite3
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
    RunStoppedError,
    SortResult,
    Swiss,
    TransientProviderError,
)
from llm_qualitative_sort.stores import journal_path

KINDS = ["openai", "google"]
ITEMS = make_items(12)
BUDGET = 12  # four rounds of three ranking calls
FAST_RETRY = RetryPolicy(initial_interval=0.01, max_interval=0.05, max_attempts=2,
                         jitter=False, retry_on=TransientProviderError)
DETACH = BatchOptions(poll_interval=0.005, max_poll_interval=0.02, detach=True)
SUFFIX = {"openai": "/v1", "google": "/v1beta"}


def sorter(provider: Any, tmp_path: Path, **options: Any) -> QualitativeSorter:
    options.setdefault("checkpointer", tmp_path / "runs.sqlite3")
    return QualitativeSorter(provider, criteria="which essay argues better", seed=4,
                             strategy=Swiss(group_size=4, budget=BUDGET),
                             retry_policy=FAST_RETRY, **options)


def calls(result: SortResult) -> list[tuple[int, tuple[str, ...], Any, str | None]]:
    """Each ranking call: its round, the texts as shown, the order given, the problem."""
    return [(c.round_number, c.items, c.order, c.problem) for c in result.ranking_calls]


class LiveFake:
    """The live fake server of `kind` judging by the hidden scores."""

    def __init__(self, kind: str, **faults: Any) -> None:
        model = "gpt-5.1" if kind == "openai" else "gemini-3.0"
        self.judge = FakeJudge(hidden_scores(ITEMS), KEY, model, **faults)
        self.server, url = serve(self.judge, OpenAIDialect if kind == "openai" else GeminiDialect)
        self.url = url + SUFFIX[kind]

    def __enter__(self) -> LiveFake:
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


async def live_result(kind: str, tmp_path: Path) -> SortResult:
    with LiveFake(kind) as fake:
        provider = make_provider(kind, fake.url)
        return await sorter(provider, tmp_path, checkpointer=None).sort(ITEMS)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_batch_run_of_ranking_calls_ranks_as_the_live_run(kind, tmp_path) -> None:
    expected = await live_result(kind, tmp_path)
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
        batches = [b.requests for b in fake.batches.values()]
    # One batch a round, each request one ranking call showing four texts.
    assert [len(b) for b in batches] == [3] * (BUDGET // 3)
    assert all('"order"' in json.dumps(r.body) and r.texts is None for b in batches for r in b)
    assert result.rankings == expected.rankings
    assert calls(result) == calls(expected)
    assert all(c.order is not None and c.batch for c in result.ranking_calls)
    stats = result.statistics
    assert stats.batch_calls == stats.total_api_calls == BUDGET and stats.failed_calls == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_a_batch_answer_that_is_no_order_is_a_call_without_a_verdict(
    kind, tmp_path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS), rank_order=["A", "A", "B", "C"]) as (
            fake, url):
        result = await sorter(batch_provider(kind, url, reasks=0), tmp_path).sort(ITEMS)
        asked = len(fake.submitted())
    assert asked == len(result.ranking_calls) == BUDGET  # asked once each: no re-ask
    assert all(c.order is None for c in result.ranking_calls)
    assert all("'A' is named twice and 'D' is missing" in (c.problem or "")
               for c in result.ranking_calls)
    assert result.statistics.failed_calls == BUDGET


@pytest.mark.parametrize("kind", KINDS)
async def test_a_detached_run_resumed_reads_its_ranking_answers(kind, tmp_path) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        run = sorter(batch_provider(kind, url, DETACH), tmp_path)
        with pytest.raises(RunDetached):
            await run.sort(ITEMS, run_id="ranked")
        with sqlite3.connect(journal_path(tmp_path / "runs.sqlite3")) as conn:
            records = [json.loads(row[0]) for row in conn.execute(
                "SELECT requests FROM batch_jobs")]
        assert records and all(row[4] == "rank" for job in records for row in job)
        steps = 1
        while True:  # each resume checks the round's batch once, or submits the next round
            try:
                result = await run.resume("ranked")
                break
            except RunDetached:
                steps += 1
                assert steps < 300
        submitted = fake.submitted()
    assert len(submitted) == len(set(submitted)) == BUDGET  # each call asked once
    assert all(c.order is not None for c in result.ranking_calls)
    assert calls(result) == calls(await live_result(kind, tmp_path))


@pytest.mark.parametrize("kind", KINDS)
async def test_batch_ranking_answers_are_cached_under_the_live_calls_keys(
    kind, tmp_path
) -> None:
    cache = FileCache(tmp_path / "cache")
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        first = await sorter(batch_provider(kind, url), tmp_path, cache=cache).sort(ITEMS)
        live = batch_provider(kind, url)
        live.batch = None  # the same judge in live mode asks the same questions
        again = await sorter(live, tmp_path, cache=cache, checkpointer=None).sort(ITEMS)
        log = list(fake.log)
    assert not any("generateContent" in e or "/chat/completions" in e for e in log
                   if "batchGenerateContent" not in e)  # no live call: the cache served all
    assert again.statistics.cache_hits == BUDGET
    assert calls(again) == calls(first)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_live_run_of_ranking_calls_through_the_real_client(kind, tmp_path) -> None:
    with LiveFake(kind) as fake:
        result = await sorter(make_provider(kind, fake.url), tmp_path,
                              checkpointer=None).sort(ITEMS)
        seen = len(fake.judge.seen)
    assert seen == len(result.ranking_calls) == BUDGET
    scores = hidden_scores(ITEMS)
    for call in result.ranking_calls:
        assert call.order == tuple((t,) for t in sorted(call.items, key=lambda t: -scores[t]))
    assert result.rankings[0][1] == [max(ITEMS, key=scores.__getitem__)]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_stopped_live_run_resumes_without_paying_for_its_journaled_calls(
    kind, tmp_path
) -> None:
    with LiveFake(kind) as fake:
        # The seventh request fails, and so does its retry: the run stops in round 3.
        fake.judge.script = [*[None] * 6, "500", "500"]  # type: ignore[list-item]
        run = sorter(make_provider(kind, fake.url), tmp_path, max_concurrent_requests=1)
        with pytest.raises(RunStoppedError):
            await run.sort(ITEMS, run_id="live")
        before = len(fake.judge.seen)
        result = await run.resume("live")
        after = len(fake.judge.seen)
    assert before == 8
    assert after - before == BUDGET - 6  # the six journaled calls are not asked again
    assert calls(result) == calls(await live_result(kind, tmp_path))
