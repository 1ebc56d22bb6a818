"""A provider's task wakes its caller itself as it ends (_calls/_cutoff.py)."""

from __future__ import annotations

import asyncio

import pytest

from llm_qualitative_sort._calls._cutoff import call_outcome, provider_task
from llm_qualitative_sort.verdicts import ComparisonResult


def _turn_counter() -> list[int]:
    """A count of the event loop's turns from now on (a callback that schedules itself)."""
    loop = asyncio.get_running_loop()
    turns = [0]

    def tick() -> None:
        turns[0] += 1
        loop.call_soon(tick)

    loop.call_soon(tick)
    return turns


async def _answer() -> ComparisonResult:
    return ComparisonResult("A", "A is larger.")


async def test_the_caller_wakes_in_the_turn_after_the_provider_ends() -> None:
    asked, ended = provider_task(_answer())
    turns = _turn_counter()
    await ended
    # The provider answers in the first turn and the caller runs in the next one: one
    # turn counted (a done-callback in between would make it two).
    assert turns[0] == 1
    assert asked.done()
    assert asked.result().winner == "A"


async def test_a_failing_provider_wakes_its_caller_with_its_error() -> None:
    async def failing() -> ComparisonResult:
        raise TimeoutError("slow")

    asked, ended = provider_task(failing())
    await ended
    with pytest.raises(TimeoutError, match="slow"):
        asked.result()


async def test_a_cancelled_caller_leaves_a_provider_that_ignores_the_cancel() -> None:
    release = asyncio.Event()

    async def stubborn() -> ComparisonResult:
        while True:
            try:
                await release.wait()
                return ComparisonResult("B", "B is larger.")
            except asyncio.CancelledError:
                continue  # swallowed: the provider goes on

    asked, ended = provider_task(stubborn())

    async def caller() -> ComparisonResult:
        await ended
        return asked.result()

    waiting = asyncio.ensure_future(caller())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting  # at once, though the provider has not ended
    assert not asked.done()
    asked.cancel()  # swallowed as well
    release.set()
    assert (await asked).winner == "B"


async def test_the_fallback_waits_for_a_task_still_running() -> None:
    release = asyncio.Event()

    async def later() -> ComparisonResult:
        await release.wait()
        return ComparisonResult("A", "A is larger.")

    asked = asyncio.ensure_future(later())
    asyncio.get_running_loop().call_soon(release.set)
    assert (await call_outcome(asked)).winner == "A"


async def test_a_provider_task_cancelled_before_it_starts_still_wakes_its_caller() -> None:
    answer = _answer()
    asked, ended = provider_task(answer)
    asked.cancel()  # by someone else, before the task's first step
    for _ in range(3):
        await asyncio.sleep(0)
    answer.close()  # never started: closed here, as the task could not
    assert asked.cancelled()
    assert ended.done()
