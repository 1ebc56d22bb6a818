"""Batch calls: a `CancelledError` nobody asked for is a failure, a real cancel still cancels."""

import asyncio
from collections.abc import Mapping, Sequence

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import ComparisonResult, TransientProviderError
from llm_qualitative_sort._calls import Call, CallSettings
from llm_qualitative_sort._calls._patient import PatientClient
from llm_qualitative_sort._calls.batch import BatchRunner
from llm_qualitative_sort._calls.judge import CallCancelled
from llm_qualitative_sort.providers._batch import (
    BatchClient,
    BatchOptions,
    BatchRequest,
    BatchStatus,
    Outcome,
)
from llm_qualitative_sort.providers.mock import MockLLMProvider
from llm_qualitative_sort.providers.questions import Request
from llm_qualitative_sort.stores import store_for
from llm_qualitative_sort.stores.cache import CacheKey, MemoryCache
from llm_qualitative_sort.stores.entries import CallPlace

RETRY = RetryPolicy(initial_interval=0.001, max_interval=0.001, max_attempts=3, jitter=False,
                    retry_on=TransientProviderError)


class Client(BatchClient):
    """Answers `status` as "running"; its first `stray` tries raise `CancelledError`."""

    def __init__(self, stray: int = 0, hang: bool = False) -> None:
        super().__init__(BatchOptions(), "fake", None)
        self.stray, self.hang, self.tries = stray, hang, 0
        self.started = asyncio.Event()

    async def submit(self, requests: Sequence[BatchRequest], tag: str) -> str:
        raise NotImplementedError

    async def find(self, tag: str) -> str | None:
        return None

    async def status(self, batch_id: str) -> BatchStatus:
        self.tries += 1
        self.started.set()
        if self.hang:
            await asyncio.Event().wait()
        if self.tries <= self.stray:
            raise asyncio.CancelledError  # a task inside the client, cancelled elsewhere
        return BatchStatus("in_progress", "running")

    async def results(self, batch_id: str, request_ids: Sequence[str],
                      asked: Mapping[str, Request]) -> dict[str, Outcome]:
        raise NotImplementedError


async def test_a_stray_cancelled_error_is_retried_as_transient() -> None:
    client = Client(stray=1)
    status = await PatientClient(client, RETRY).status("b1")
    assert status.phase == "running"
    assert client.tries == 2


async def test_a_stray_cancelled_error_on_every_try_stops_with_a_transient_error() -> None:
    with pytest.raises(TransientProviderError, match="CancelledError"):
        await PatientClient(Client(stray=99), RETRY).status("b1")


async def test_cancelling_the_caller_still_cancels() -> None:
    client = Client(hang=True)
    task = asyncio.create_task(PatientClient(client, RETRY).status("b1"))
    await client.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


class CancellingCache(MemoryCache):
    async def get(self, key: CacheKey) -> ComparisonResult | None:
        raise asyncio.CancelledError  # the cache's own task, cancelled elsewhere


async def test_a_stray_cancelled_error_in_a_batch_round_is_a_failed_round() -> None:
    async with store_for(None).open("r") as (_saver, journal):
        settings = CallSettings(provider=MockLLMProvider(seed=1), criteria="c",
                                cache=CancellingCache(), journal=journal, retry=RETRY,
                                max_concurrent_requests=2)
        place = CallPlace("r", 1, 0, 0, "x", "y", "xy")
        answers: list[int] = []
        with pytest.raises(CallCancelled, match="round 1"):
            await BatchRunner(settings, Client()).run(
                [Call(place, 0)], lambda index, *_: answers.append(index))
        assert answers == []
