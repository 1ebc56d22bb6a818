"""Every stop says what failed (the exception's type, even without a message) and which
judge; a custom provider's own TimeoutError is retried like any timed-out request."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    QualitativeSorter,
    RunStoppedError,
    TransientProviderError,
)

FAST = RetryPolicy(initial_interval=0.001, backoff_factor=1.0, max_interval=0.001,
                   max_attempts=3, jitter=False, retry_on=TransientProviderError)
ITEMS = ["1", "5", "9", "13", "17", "21"]


class Unreliable(LLMProvider):
    """Raises `failure` on the first `failing` attempts of every call, then answers."""

    def __init__(self, failure: type[Exception], failing: int) -> None:
        super().__init__(model="unreliable-v1", base_url="http://judge.internal")
        self.failure, self.failing = failure, failing
        self.attempts: Counter[tuple[str, str]] = Counter()

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.attempts[item_a, item_b] += 1
        if self.attempts[item_a, item_b] <= self.failing:
            raise self.failure()  # no message at all, as asyncio.timeout() raises it
        winner = "A" if int(item_a) > int(item_b) else "B"
        return ComparisonResult(winner=winner, reasoning="larger")


def _sorter(provider: LLMProvider) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="larger", seed=1, checkpointer=None,
                             retry_policy=FAST, max_concurrent_requests=2)


async def test_a_provider_timeout_is_retried() -> None:
    provider = Unreliable(asyncio.TimeoutError, failing=2)
    result = await _sorter(provider).sort(ITEMS)
    assert result.rankings[0] == (1, ["21"])
    assert result.statistics.failed_calls == 0
    assert min(provider.attempts.values()) == 3  # two timeouts, then the answer


async def test_a_provider_timeout_that_persists_stops_naming_type_and_provider() -> None:
    provider = Unreliable(asyncio.TimeoutError, failing=99)
    with pytest.raises(RunStoppedError) as caught:
        await _sorter(provider).sort(ITEMS)
    message = str(caught.value)
    assert "TimeoutError" in message and "timed out" in message
    assert repr(provider) in message
    assert max(provider.attempts.values()) == FAST.max_attempts


async def test_an_exception_without_a_message_is_named_by_its_type() -> None:
    provider = Unreliable(RuntimeError, failing=99)
    with pytest.raises(RunStoppedError) as caught:
        await _sorter(provider).sort(ITEMS)
    assert caught.value.reason == (
        f"run stopped: RuntimeError (no message); judge {provider!r}"
    )
    assert max(provider.attempts.values()) == 1  # not a transient failure: no retry
