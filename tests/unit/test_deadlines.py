import asyncio

import pytest

from llm_qualitative_sort._calls.deadlines import Deadlines


async def _call(deadlines: Deadlines, seconds: float) -> str:
    watch = deadlines.watch()
    try:
        await asyncio.sleep(seconds)
        return "answered"
    except asyncio.CancelledError:
        if watch.expired():
            return "timed out"
        raise
    finally:
        deadlines.end(watch)


async def test_only_calls_past_their_deadline_are_cut() -> None:
    deadlines = Deadlines(0.05)
    results = await asyncio.gather(*(_call(deadlines, s) for s in (0.0, 0.01, 1.0, 0.02, 1.0)))
    assert results == ["answered", "answered", "timed out", "answered", "timed out"]


async def test_a_cancel_from_elsewhere_still_propagates() -> None:
    deadlines = Deadlines(10.0)
    task = asyncio.create_task(_call(deadlines, 1.0))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task



async def test_a_call_that_ended_is_not_held_by_its_deadline() -> None:
    # The pending timer holds the deadlines for `seconds` after a round's last call: an
    # ended call's task (its coroutine, its context, its answer) must not stay alive in them.
    deadlines = Deadlines(300.0)

    async def call(seconds: float) -> None:
        watch = deadlines.watch()
        try:
            await asyncio.sleep(seconds)
        finally:
            deadlines.end(watch)

    slow = asyncio.create_task(call(0.05))  # stays at the front of the queue a while
    fast = asyncio.create_task(call(0.0))
    await fast
    assert [watch.task for watch in deadlines._queue] == [slow, None]  # fast: dropped
    await slow
    assert not deadlines._queue
