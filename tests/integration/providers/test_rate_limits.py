"""Whole sorts through the real clients against servers that enforce rate limits.

The servers (`_rate_fakes.py`) answer at most `rate` requests per second (burst 5) and,
where set, a number of tokens per minute; beyond that, 429 with the headers or the
RetryInfo the real APIs send. The retry policy allows two attempts per call: a run that
spent an attempt on every 429 would stop, so finishing with no failed call shows the 429s
were taken as flow control. No timing is asserted; the counts are.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _fakes import serve
from _rate_fakes import RateGemini, RateJudge, RateOpenAI
from _setup import KEY, hidden_scores, make_items, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    EventType,
    PanelProvider,
    ProgressEvent,
    QualitativeSorter,
    QuotaExceededError,
    RunStoppedError,
    Swiss,
    TransientProviderError,
)

TWO_ATTEMPTS = RetryPolicy(initial_interval=0.01, backoff_factor=2.0, max_interval=0.05,
                           max_attempts=2, jitter=False, retry_on=TransientProviderError)


@pytest.fixture
def limited() -> Iterator[Any]:
    """Starts rate-limited fake servers; `limited(kind, **limits)` -> (judge, base URL)."""
    servers = []

    def start(kind: str, items: list[str] | None = None, **limits: Any) -> tuple[RateJudge, str]:
        texts = items or make_items()
        model = "gemini-3.0" if kind == "google" else "gpt-5.1"
        judge = RateJudge(hidden_scores(texts), KEY, model, **limits)
        server, url = serve(judge, RateGemini if kind == "google" else RateOpenAI)
        servers.append(server)
        return judge, url + ("/v1beta" if kind == "google" else "/v1")

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def sorter(provider: Any, tmp_path: Path, events: list[ProgressEvent] | None = None,
           **options: Any) -> QualitativeSorter:
    options.setdefault("retry_policy", TWO_ATTEMPTS)
    return QualitativeSorter(
        provider, criteria="which text is more persuasive", seed=3,
        checkpointer=tmp_path / "runs.sqlite3",
        on_progress=events.append if events is not None else None, **options)


def rate_events(events: list[ProgressEvent]) -> list[ProgressEvent]:
    return [e for e in events if e.type is EventType.RATE_LIMIT]


@pytest.mark.parametrize("kind", ["openai", "google", "langchain"])
async def test_a_run_at_the_request_limit_finishes_with_no_failed_call(
    kind: str, limited: Any, tmp_path: Path
) -> None:
    judge, url = limited(kind, rate=25.0)
    events: list[ProgressEvent] = []
    run = sorter(make_provider(kind, url), tmp_path, events, strategy=Swiss(budget=45),
                 max_concurrent_requests=10)
    result = await run.sort(make_items())
    stats = result.statistics
    assert stats.failed_calls == 0 and stats.total_api_calls == 45
    assert judge.answered == 45
    assert 1 <= judge.limited <= 20, "the first burst meets the limit, then the pace holds"
    assert stats.rate_limited == judge.limited
    assert stats.rate_wait > 0
    news = rate_events(events)
    assert news and all("for the rate limit" in e.message for e in news)
    assert all(e.data["rate"] > 0 and e.data["seconds"] >= 0 for e in news)


async def test_a_tokens_per_minute_limit_paces_long_texts(limited: Any, tmp_path: Path) -> None:
    items = [f"Essay {i}: " + "an argument made at length. " * 70 for i in range(20)]
    judge, url = limited("openai", items, rate=200.0, tpm=150_000)  # ~2 calls/s by tokens
    run = sorter(make_provider("openai", url), tmp_path, strategy=Swiss(budget=20),
                 max_concurrent_requests=10)
    stats = (await run.sort(items)).statistics
    assert stats.failed_calls == 0 and judge.answered == 20
    assert judge.limited <= 10, "after the first answers the tokens are paced"


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_used_up_quota_stops_the_run_after_one_attempt(
    kind: str, limited: Any, tmp_path: Path
) -> None:
    judge, url = limited(kind, quota=True)
    run = sorter(make_provider(kind, url), tmp_path, strategy=Swiss(budget=20),
                 max_concurrent_requests=1)
    with pytest.raises(RunStoppedError) as stopped:
        await run.sort(make_items())
    assert judge.refused == 1, "a quota is not retried"
    assert isinstance(stopped.value.__cause__, QuotaExceededError)
    quota = "insufficient_quota" if kind == "openai" else "PerDay"
    assert quota in str(stopped.value) and "resume" in str(stopped.value)


@pytest.mark.parametrize("wait_limit", [0.0, 600.0])
async def test_429s_use_no_attempt_while_the_calls_wait_less_than_the_limit(
    wait_limit: float, limited: Any, tmp_path: Path
) -> None:
    judge, url = limited("openai", rate=25.0)
    provider = make_provider("openai", url, rate_wait_limit=wait_limit)
    run = sorter(provider, tmp_path, strategy=Swiss(budget=30), max_concurrent_requests=10,
                 retry_policy=TWO_ATTEMPTS._replace(max_attempts=1))
    if wait_limit == 0:  # every 429 is a failed attempt, and there is only one
        with pytest.raises(RunStoppedError, match="Rate limit reached"):
            await run.sort(make_items())
        assert judge.limited >= 1
    else:
        stats = (await run.sort(make_items())).statistics
        assert stats.failed_calls == 0 and judge.limited >= 1


async def test_the_judges_of_a_panel_adapt_apart(limited: Any, tmp_path: Path) -> None:
    slow, slow_url = limited("openai", rate=10.0)
    fast, fast_url = limited("google", rate=1000.0, burst=1000.0)
    panel = PanelProvider([make_provider("openai", slow_url), make_provider("google", fast_url)])
    events: list[ProgressEvent] = []
    run = sorter(panel, tmp_path, events, strategy=Swiss(budget=40),
                 max_concurrent_requests=20)
    stats = (await run.sort(make_items())).statistics
    assert stats.failed_calls == 0 and slow.answered + fast.answered == 40
    assert slow.limited >= 1 and fast.limited == 0
    assert {e.data["judge"] for e in rate_events(events)} == {
        panel.judges[0].model_identity}


async def test_pipelined_play_reports_the_pauses(limited: Any, tmp_path: Path) -> None:
    judge, url = limited("openai", rate=25.0)
    events: list[ProgressEvent] = []
    items = make_items(16)
    run = sorter(make_provider("openai", url), tmp_path, events, schedule="pipelined",
                 elimination_count=1, max_concurrent_requests=10)
    stats = (await run.sort(items)).statistics
    assert stats.failed_calls == 0 and judge.limited >= 1
    assert rate_events(events)


@pytest.mark.parametrize("pointwise", [False, True], ids=["verdict", "label"])
async def test_every_answer_leaves_its_rate_headers_for_the_engine(limited: Any,
                                                                   pointwise: bool) -> None:
    # Pointwise calls pace by the same headers as verdicts: both reach the call's note.
    from llm_qualitative_sort.providers._rate_signals import listen
    from llm_qualitative_sort.rating.scale import Scale

    items = make_items(4)
    _, url = limited("openai", items, rate=100.0, burst=50.0)
    provider = make_provider("openai", url)
    note = listen()
    if pointwise:
        await provider.score_call(items[0], "persuasive", scale=Scale.parse(None))
    else:
        await provider.compare_call(items[0], items[1], "persuasive", repetition=0)
    assert note.facts is not None and note.facts.said_anything()
