"""Comparison node: play every match of the round at once, under one semaphore.

One node per round (rather than one `Send` per match) because a LangGraph task costs about
1.8 ms with SQLite checkpointing while a coroutine costs microseconds; each finished call is
made durable by the run journal instead (see `llm_qualitative_sort._journal`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar

from langgraph.runtime import Runtime

from llm_qualitative_sort._events import event
from llm_qualitative_sort._journal import CallPlace, text_digest
from llm_qualitative_sort._judge import CallsStopped, Judge
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import MatchLog, RoundLog, TournamentState
from llm_qualitative_sort.models import EventType, Order, Side
from llm_qualitative_sort.tournament import (
    match_winner,
    presentation_orders,
    remaining_match_bound,
)

T = TypeVar("T")


class _Progress:
    """`completed` / `total` of the run while a round is being played."""

    def __init__(self, state: TournamentState) -> None:
        self.completed = state["completed"]
        self._bound = remaining_match_bound(state["losses"], state["elimination_count"])
        self.total = self.completed + self._bound

    def finish(self, winner: Side | None) -> None:
        # A finished match removes one from what is left, and each loss beyond the first
        # (a draw gives two) removes one more from the bound.
        self.completed += 1
        self._bound -= 1 if winner is not None else 2
        self.total = self.completed + max(self._bound, 0)


async def compare(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Play the round's matches; every call of every match runs concurrently."""
    ctx = runtime.context
    judge = Judge(
        provider=ctx.resolve_provider(state["rng_seed"]),
        criteria=state["criteria"],
        cache=ctx.cache,
        journal=ctx.journal,
        retry=ctx.retry,
        semaphore=asyncio.Semaphore(ctx.max_concurrent_requests),
        stop=asyncio.Event(),
    )
    progress = _Progress(state)
    emit = runtime.stream_writer if ctx.progress else None
    items, round_number = state["items"], state["round"]
    pairs = state["pairs"]
    digests = {i: text_digest(items[i]) for pair in pairs for i in pair}
    orders = presentation_orders(state["comparison_rounds"])

    async def play(index: int, a: int, b: int) -> MatchLog:
        if emit:
            emit(event(EventType.MATCH_START, f"{items[a][:30]!r} vs {items[b][:30]!r}",
                       progress.completed, progress.total, round=round_number, match=index,
                       item_a=items[a], item_b=items[b]))
        calls = []
        for call, (order, repetition) in enumerate(orders):
            first, second = (a, b) if order == "AB" else (b, a)
            place = CallPlace(ctx.run_id, round_number, index, call, items[first],
                              items[second], digests[first] + digests[second])
            calls.append(_call(judge, place, order, repetition))
        logs = await _gather_all(calls)
        winner = match_winner(log[1] for log in logs)
        progress.finish(winner)
        log = [a, b, winner, logs]
        if emit:
            emit(event(EventType.MATCH_END, _verdict(items, a, b, winner), progress.completed,
                       progress.total, round=round_number, match=index, result=log,
                       item_a=items[a], item_b=items[b]))
        return log

    matches = await _gather_all(play(i, a, b) for i, (a, b) in enumerate(pairs))
    round_log: RoundLog = {"round": round_number, "matches": matches, "bye": state.get("bye")}
    return {"history": [round_log]}


async def _call(judge: Judge, place: CallPlace, order: Order, repetition: int) -> list[Any]:
    result, cached = await judge.call(place, repetition)
    winner = result.winner if order == "AB" else _flip(result.winner)
    return [order, winner, result.reasoning, cached, result.input_tokens, result.output_tokens]


async def _gather_all(coroutines: Iterable[Awaitable[T]]) -> list[T]:
    """Await all; once every one has finished, raise the first real failure."""
    results = await asyncio.gather(*coroutines, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    real = [f for f in failures if not isinstance(f, CallsStopped)]
    if real or failures:
        raise (real or failures)[0]
    return list(results)  # type: ignore[arg-type]


def _flip(winner: Side | None) -> Side | None:
    flipped: dict[Side | None, Side | None] = {"A": "B", "B": "A", None: None}
    return flipped[winner]  # anything else is a KeyError, never a verdict


def _verdict(items: list[str], a: int, b: int, winner: Side | None) -> str:
    if winner is None:
        return f"draw: {items[a][:30]!r} = {items[b][:30]!r}"
    won, lost = (a, b) if winner == "A" else (b, a)
    return f"{items[won][:30]!r} beat {items[lost][:30]!r}"
