"""A `CancelledError` that did not come from cancelling the run is a failed call, never a lost one.

A provider (or a cache) can raise `CancelledError` when a task inside it was cancelled
elsewhere; nobody cancelled the run. Such a call must be handled like any other failure:
retried when the retry policy allows, else the run stops cleanly and resumes to a full result.
A real cancellation of the run still propagates as `CancelledError`.
"""

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    QualitativeSorter,
    RunStoppedError,
    SortResult,
    TransientProviderError,
)
from llm_qualitative_sort.stores.cache import CacheKey, MemoryCache

ITEMS = list("abcdefgh")
FAST_RETRY = RetryPolicy(initial_interval=0.001, max_interval=0.001, max_attempts=3,
                         jitter=False, retry_on=TransientProviderError)
NO_RETRY = RetryPolicy(max_attempts=1, retry_on=TransientProviderError)
# Only a guard against a hang: a healthy run of 8 items takes milliseconds.
HANG = 60.0


class Cancelling(LLMProvider):
    """Answers "later in the alphabet wins"; call number `fail_at` raises `CancelledError`."""

    def __init__(self, fail_at: int) -> None:
        super().__init__(model="cancelling")
        self.fail_at = fail_at
        self.calls = 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        number = self.calls
        await asyncio.sleep(0)
        if number == self.fail_at:
            raise asyncio.CancelledError  # an inner task cancelled elsewhere
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


def sorter(provider: LLMProvider, path: Path, schedule: str, **settings: Any) -> QualitativeSorter:
    settings.setdefault("retry_policy", FAST_RETRY)
    return QualitativeSorter(provider, criteria="later in the alphabet", seed=1,
                             checkpointer=path / "runs.db", schedule=schedule, **settings)


def assert_complete(result: SortResult) -> None:
    assert result.rankings[0] == (1, ["h"])
    for match in result.match_history:
        assert len(match.rounds) == 2
        assert all(call.winner is not None for call in match.rounds)  # no call lost or failed
    assert result.statistics.failed_calls == 0


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_a_stray_cancelled_error_is_a_transient_failure_and_retried(
    tmp_path: Path, schedule: str
) -> None:
    provider = Cancelling(fail_at=3)
    result = await asyncio.wait_for(sorter(provider, tmp_path, schedule).sort(ITEMS), HANG)
    assert_complete(result)
    assert provider.calls == 2 * len(result.match_history) + 1  # the cancelled call, asked again


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_without_retries_the_run_stops_cleanly_and_resumes(
    tmp_path: Path, schedule: str
) -> None:
    with pytest.raises(RunStoppedError, match="CancelledError") as stopped:
        await asyncio.wait_for(
            sorter(Cancelling(fail_at=3), tmp_path, schedule, retry_policy=NO_RETRY).sort(
                ITEMS, run_id="r"), HANG)
    assert "cancelling" in str(stopped.value)
    resumed = await asyncio.wait_for(
        sorter(Cancelling(fail_at=0), tmp_path, schedule).resume("r"), HANG)
    assert_complete(resumed)


class CancellingCache(MemoryCache):
    """A cache whose first lookup raises `CancelledError` (its own inner task cancelled)."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def get(self, key: CacheKey) -> ComparisonResult | None:
        if not self.failed:
            self.failed = True
            raise asyncio.CancelledError
        return await super().get(key)


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_a_cancelled_error_outside_the_provider_stops_the_run(
    tmp_path: Path, schedule: str
) -> None:
    with pytest.raises(RunStoppedError, match="cancelled"):
        await asyncio.wait_for(
            sorter(Cancelling(fail_at=0), tmp_path, schedule, cache=CancellingCache()).sort(
                ITEMS, run_id="r"), HANG)
    resumed = await asyncio.wait_for(
        sorter(Cancelling(fail_at=0), tmp_path, schedule).resume("r"), HANG)
    assert_complete(resumed)


class Slow(LLMProvider):
    """Answers after `started` is set and a long wait (the test cancels the run meanwhile)."""

    def __init__(self, delay: float = HANG) -> None:
        super().__init__(model="slow")
        self.started = asyncio.Event()
        self.delay = delay

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.started.set()
        await asyncio.sleep(self.delay)
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_cancelling_the_run_still_cancels_it(tmp_path: Path, schedule: str) -> None:
    provider = Slow()
    task = asyncio.create_task(sorter(provider, tmp_path, schedule).sort(ITEMS, run_id="r"))
    await asyncio.wait_for(provider.started.wait(), HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG)
    # The same judge resumes (a run refuses another one), now answering at once.
    resumed = await asyncio.wait_for(
        sorter(Slow(delay=0), tmp_path, schedule).resume("r"), HANG)
    assert_complete(resumed)
