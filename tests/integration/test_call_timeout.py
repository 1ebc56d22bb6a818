"""Every call of every provider is bounded: an overrun is a transient failure, retried."""

import asyncio
from typing import Any

import pytest
from langgraph.types import RetryPolicy

import llm_qualitative_sort._calls.judge as judge_module
from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    MockLLMProvider,
    QualitativeSorter,
    RunStoppedError,
    TransientProviderError,
)
from llm_qualitative_sort._calls._cutoff import provider_task

FAST_RETRY = RetryPolicy(initial_interval=0.001, max_interval=0.001, max_attempts=3,
                         jitter=False, retry_on=TransientProviderError)


class Stalling(LLMProvider):
    """Never answers the first `stalls` attempts of each call; then answers at once."""

    def __init__(self, stalls: int) -> None:
        super().__init__(model="stalling")
        self.stalls = stalls
        self.attempts: dict[tuple[str, str], int] = {}

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        seen = self.attempts.get((item_a, item_b), 0)
        self.attempts[item_a, item_b] = seen + 1
        if seen < self.stalls:
            await asyncio.Event().wait()  # a server that never answers
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


class RaisingTimeout(LLMProvider):
    """A custom provider whose own client times out once per call, with no message."""

    def __init__(self) -> None:
        super().__init__(model="raising")
        self.seen: set[tuple[str, str]] = set()

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        if (item_a, item_b) not in self.seen:
            self.seen.add((item_a, item_b))
            raise TimeoutError
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


def sorter(provider: LLMProvider, **settings: Any) -> QualitativeSorter:
    settings.setdefault("retry_policy", FAST_RETRY)
    return QualitativeSorter(provider, criteria="later in the alphabet", seed=1,
                             checkpointer=None, **settings)


async def test_a_call_that_never_answers_is_retried_after_call_timeout() -> None:
    judge = Stalling(stalls=1)
    result = await sorter(judge, call_timeout=0.05).sort(["a", "b", "c", "d"])
    assert result.rankings[0] == (1, ["d"])
    assert min(judge.attempts.values()) >= 2  # each call stalled once, then answered


async def test_a_provider_that_never_answers_stops_the_run_with_a_reason() -> None:
    with pytest.raises(RunStoppedError) as stopped:
        await sorter(Stalling(stalls=99), call_timeout=0.02).sort(["a", "b", "c"])
    message = str(stopped.value)
    assert "Stalling(model='stalling'" in message
    assert "call_timeout=0.02" in message


async def test_a_providers_own_timeout_error_is_transient_and_named() -> None:
    judge = RaisingTimeout()
    result = await sorter(judge).sort(["a", "b", "c", "d"])
    assert result.rankings[0] == (1, ["d"])
    with pytest.raises(RunStoppedError, match=r"RaisingTimeout\(model='raising'.*TimeoutError"):
        await sorter(RaisingTimeout(), retry_policy=RetryPolicy(
            max_attempts=1, retry_on=TransientProviderError)).sort(["a", "b"])


class Swallowing(LLMProvider):
    """A buggy provider: its first attempt of each call ignores being cancelled.

    It waits for `release` (set by the test once the run is over) so that the abandoned
    coroutines end before the event loop closes.
    """

    def __init__(self) -> None:
        super().__init__(model="swallowing")
        self.release = asyncio.Event()
        self.attempts: dict[tuple[str, str], int] = {}
        self.abandoned_done = 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        seen = self.attempts.get((item_a, item_b), 0)
        self.attempts[item_a, item_b] = seen + 1
        if seen == 0:
            while not self.release.is_set():
                try:
                    await self.release.wait()
                except asyncio.CancelledError:
                    pass  # the bug: cancellation swallowed, the call goes on
            self.abandoned_done += 1
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_a_call_that_swallows_cancellation_still_times_out(schedule: str) -> None:
    judge = Swallowing()
    try:
        result = await asyncio.wait_for(
            sorter(judge, call_timeout=0.05, schedule=schedule).sort(["a", "b", "c", "d"]),
            60.0)  # only a guard against the hang this test is about
    finally:
        judge.release.set()
    assert result.rankings[0] == (1, ["d"])
    assert result.statistics.failed_calls == 0
    assert min(judge.attempts.values()) == 2  # each call abandoned once, then answered
    for _ in range(10):  # the abandoned coroutines end once released; their answers unused
        await asyncio.sleep(0)
    assert judge.abandoned_done == len(judge.attempts)


class _SubclassedMock(MockLLMProvider):
    """A user's subclass: its calls may swallow a cancel, so each keeps its own task."""


@pytest.mark.parametrize(("schedule", "provider", "own_tasks"), [
    ("rounds", MockLLMProvider, False),  # the library's mock honours cancellation
    ("rounds", _SubclassedMock, True),
    ("pipelined", MockLLMProvider, True),  # its pairings follow the turn each call ends in
])
async def test_which_calls_run_in_a_task_of_their_own(
    monkeypatch: pytest.MonkeyPatch, schedule: str, provider: type[MockLLMProvider],
    own_tasks: bool,
) -> None:
    started: list[object] = []

    def counted(answer: Any) -> Any:
        started.append(answer)
        return provider_task(answer)

    monkeypatch.setattr(judge_module, "provider_task", counted)
    result = await sorter(provider(seed=1), schedule=schedule).sort(list("abcdefgh"))
    assert len(started) == (result.statistics.total_api_calls if own_tasks else 0)


async def test_the_librarys_mock_is_cut_off_by_call_timeout_in_its_calls_task() -> None:
    with pytest.raises(RunStoppedError) as stopped:
        await sorter(MockLLMProvider(seed=1, latency=5.0), call_timeout=0.02).sort(["a", "b"])
    assert "gave no answer within call_timeout=0.02" in str(stopped.value)
