"""The live call pool starts a queued call as soon as a slot's call is answered (_calls/live.py)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from test_provider_task import _turn_counter

from llm_qualitative_sort._calls import Call
from llm_qualitative_sort._calls.judge import Judge
from llm_qualitative_sort._calls.live import CallPool
from llm_qualitative_sort.stores.entries import Answer, CallPlace
from llm_qualitative_sort.verdicts import ComparisonResult


class _Instant:
    """A judge that answers at once; it notes the loop turn each call starts in."""

    def __init__(self, turns: list[int], fail_on: int | None = None) -> None:
        self.stop = asyncio.Event()
        self.turns = turns
        self.started: list[tuple[int, int]] = []  # (call, turn)
        self.fail_on = fail_on

    async def call(self, place: CallPlace, repetition: int) -> Answer:
        self.started.append((place.call, self.turns[0]))
        if place.call == self.fail_on:
            raise RuntimeError("broken")
        return ComparisonResult("A", "A is larger."), False, {}


def _calls(count: int) -> list[Call]:
    return [Call(CallPlace("run", 1, 0, n, "a", "b", "ab"), 0) for n in range(count)]


async def test_the_next_call_starts_in_the_turn_after_a_slot_frees() -> None:
    judge = _Instant(_turn_counter())
    answers: list[int] = []
    pool = CallPool(cast(Judge, judge), 1, lambda key, *_: answers.append(key))
    for key, call in enumerate(_calls(3)):
        pool.submit(key, call)
    await pool.drain()
    assert answers == [0, 1, 2]
    calls = [call for call, _ in judge.started]
    turns = [turn for _, turn in judge.started]
    assert calls == [0, 1, 2]
    # One slot: each call starts one turn after the one before it (its answer frees the
    # slot), not two (a done-callback in between).
    assert [b - a for a, b in zip(turns[:-1], turns[1:], strict=True)] == [1, 1]
    assert pool.in_flight == 0


async def test_after_a_failure_no_queued_call_starts() -> None:
    judge = _Instant(_turn_counter(), fail_on=0)
    answers: list[Any] = []
    pool = CallPool(cast(Judge, judge), 1, lambda key, *_: answers.append(key))
    for key, call in enumerate(_calls(3)):
        pool.submit(key, call)
    with pytest.raises(RuntimeError, match="broken"):
        await pool.drain()
    assert [call for call, _ in judge.started] == [0]
    assert answers == []
    assert judge.stop.is_set()


async def test_at_most_limit_calls_are_in_flight() -> None:
    release = asyncio.Event()
    seen: list[int] = []

    class Slow(_Instant):
        async def call(self, place: CallPlace, repetition: int) -> Answer:
            seen.append(pool.in_flight)
            await release.wait()
            return await super().call(place, repetition)

    judge = Slow(_turn_counter())
    pool = CallPool(cast(Judge, judge), 2, lambda *_: None)
    for key, call in enumerate(_calls(5)):
        pool.submit(key, call)
    await asyncio.sleep(0)
    assert pool.in_flight == 2
    release.set()
    await pool.drain()
    assert len(judge.started) == 5
    assert max(seen) <= 2
