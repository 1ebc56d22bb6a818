"""`rate_wait_limit` bounds every wait of a call for the rate limit, whatever the server says.

Loopback servers (`_rate_fakes.StrictJudge`) answer 429 with the headers each test names.
A run either finishes or stops with the resume command; the bound on its wall time is the
one the engine guarantees: `rate_wait_limit` plus a margin for the calls themselves.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _fakes import serve
from _rate_fakes import StrictJudge, StrictOpenAI
from _setup import KEY, hidden_scores, make_items, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    EventType,
    ProgressEvent,
    QualitativeSorter,
    RateLimitedError,
    RunStoppedError,
    Swiss,
    TransientProviderError,
)

RETRY = RetryPolicy(initial_interval=0.01, backoff_factor=2.0, max_interval=0.05,
                    max_attempts=6, jitter=False, retry_on=TransientProviderError)
LIMIT = 3.0
MARGIN = 15.0  # the calls themselves, and the run's start and end, on a loaded machine


@pytest.fixture
def strict() -> Iterator[Any]:
    """Starts `StrictJudge` servers; `strict(**options)` -> (judge, base URL)."""
    servers = []

    def start(**options: Any) -> tuple[StrictJudge, str]:
        judge = StrictJudge(hidden_scores(make_items()), KEY, "gpt-5.1", **options)
        server, url = serve(judge, StrictOpenAI)
        servers.append(server)
        return judge, url + "/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


async def sort_within(provider: Any, tmp_path: Path, seconds: float,
                      events: list[ProgressEvent] | None = None) -> Any:
    """The run's result, or the `RunStoppedError` it stopped with, within `seconds`."""
    run = QualitativeSorter(provider, criteria="which text is more persuasive", seed=3,
                            strategy=Swiss(budget=20), max_concurrent_requests=4,
                            retry_policy=RETRY, checkpointer=tmp_path / "runs.sqlite3",
                            on_progress=events.append if events is not None else None)
    async with asyncio.timeout(seconds):
        try:
            return await run.sort(make_items())
        except RunStoppedError as stopped:
            return stopped


@pytest.mark.parametrize(("headers", "asked"), [
    ({"retry-after": "1e9"}, "31 years"),
    ({"retry-after": "inf"}, "without end"),
    ({"retry-after": "Thu, 01 Jan 2099 00:00:00 GMT"}, "7"),  # 72 or more years
    ({"retry-after-ms": "1e12"}, "31 years"),
    ({"retry-after": "700"}, "700 s"),
], ids=["1e9", "inf", "2099", "ms-1e12", "700s"])
async def test_a_stated_wait_past_the_limit_stops_the_run_at_once_naming_it(
    headers: dict[str, str], asked: str, strict: Any, tmp_path: Path
) -> None:
    judge, url = strict(refuse_first=math.inf, on_429=headers)
    events: list[ProgressEvent] = []
    started = time.monotonic()
    stopped = await sort_within(make_provider("openai", url, rate_wait_limit=600), tmp_path,
                                MARGIN, events)
    assert time.monotonic() - started < MARGIN
    assert isinstance(stopped, RunStoppedError)
    assert isinstance(stopped.__cause__, RateLimitedError)
    message = str(stopped)
    assert f"the server asks to wait {asked}" in message
    assert "rate_wait_limit is 600 s" in message and "resume" in message
    assert judge.answered == 0
    assert not [e for e in events if e.type is EventType.RATE_LIMIT], "no such wait began"


@pytest.mark.parametrize("headers", [
    {"retry-after": "1"},
    {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1e9"},
    {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1700000000"},
    {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1e9"},
    {},
], ids=["retry-after-1", "reset-1e9", "reset-epoch", "tokens-reset-1e9", "nothing"])
async def test_a_server_refusing_every_call_stops_the_run_within_the_limit(
    headers: dict[str, str], strict: Any, tmp_path: Path
) -> None:
    # Each 429 cuts the pace: the pace's waits count against the limit like the pauses.
    _, url = strict(refuse_first=math.inf, on_429=headers)
    started = time.monotonic()
    stopped = await sort_within(make_provider("openai", url, rate_wait_limit=LIMIT),
                                tmp_path, LIMIT + MARGIN)
    assert time.monotonic() - started < LIMIT + MARGIN
    assert isinstance(stopped, RunStoppedError) and "resume" in str(stopped)
    assert isinstance(stopped.__cause__, TransientProviderError)
    if headers:  # a 429 with no time to come back is a failed attempt, as before
        assert f"rate_wait_limit is {LIMIT:g} s" in stopped.reason


async def test_a_stated_token_limit_below_one_call_stops_the_run_naming_it(
    strict: Any, tmp_path: Path
) -> None:
    judge, url = strict(on_answer={"x-ratelimit-limit-tokens": "1"})
    started = time.monotonic()
    stopped = await sort_within(make_provider("openai", url), tmp_path, MARGIN)
    assert time.monotonic() - started < MARGIN
    assert isinstance(stopped, RunStoppedError)
    assert isinstance(stopped.__cause__, RateLimitedError)
    assert "x-ratelimit-limit-tokens (1 per minute) cannot admit one call" in str(stopped)
    # The 4 calls in flight go before the limit is known, and the first after it: the
    # token pacer has no earlier start to space it from.
    assert judge.answered <= 5


@pytest.mark.parametrize("adaptive", [False, True])
async def test_429s_are_counted_and_a_nan_wait_is_no_wait(
    adaptive: bool, strict: Any, tmp_path: Path
) -> None:
    judge, url = strict(refuse_first=3, on_429={"retry-after": "nan"})
    provider = make_provider("openai", url, adaptive_rate=adaptive)
    result = await sort_within(provider, tmp_path, MARGIN)
    assert not isinstance(result, RunStoppedError), result
    stats = result.statistics
    assert stats.failed_calls == 0 and judge.answered == 20
    assert judge.limited == 3 and stats.rate_limited == 3
    assert math.isfinite(stats.rate_wait) and stats.rate_wait >= 0


async def test_a_strict_limiter_is_met_only_by_the_first_burst(strict: Any,
                                                               tmp_path: Path) -> None:
    # At most 5 requests in any second, no burst, and the limit stated: once the first
    # burst has told the run the limit, the pace keeps to it, after the pause too.
    stated = {"x-ratelimit-limit-requests": "300"}
    judge, url = strict(window=(5, 1.0), on_429={"retry-after": "1", **stated},
                        on_answer=stated, latency=0.05)
    run = QualitativeSorter(make_provider("openai", url), criteria="which text is better",
                            seed=3, strategy=Swiss(budget=30), max_concurrent_requests=10,
                            retry_policy=RETRY, checkpointer=tmp_path / "runs.sqlite3")
    stats = (await run.sort(make_items())).statistics
    assert stats.failed_calls == 0 and judge.answered == 30
    assert judge.limited <= 5 + 2, "the first burst's 5, and at most 2 more"
