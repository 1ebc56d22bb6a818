"""The door each provider call of a judge goes through: its pace under the rate limits.

One `RateGate` per judge of a run (a panel's judges each have their own), kept in the
run's `RateBook`; the rules are `rate_control.RateControl`'s. Calls wait at the door in
the order they came (one at a time past it, so the pace is kept), and every wait ends at
once when the run stops. A call that finds the door free and nothing to wait for goes
straight through: a run that meets no limit pays a clock read and a few comparisons.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort._calls.rate_control import Pause, RateControl
from llm_qualitative_sort.errors import RateLimitedError
from llm_qualitative_sort.providers._rate_signals import RateFacts
from llm_qualitative_sort.providers.base import LLMProvider

# A call's waits for the rate limit, in total, before a 429 counts as a failed attempt.
DEFAULT_RATE_WAIT_LIMIT = 600.0


@dataclass(frozen=True)
class RateNews:
    """A pause that began: what the progress shows ("waiting 4 s for the rate limit")."""

    judge: str
    seconds: float
    rate: float
    limited: int


class RateGate:
    """Paces the calls of one judge (see the module's doc).

    Args:
        ceiling: Calls in flight at most (`max_concurrent_requests`).
        clock: Seconds, monotonic (tests may pass their own).
    """

    def __init__(self, ceiling: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.control = RateControl(ceiling)
        self.clock = clock
        self.in_flight = 0
        self._waiting = 0  # calls at the door
        self._door: asyncio.Lock | None = None
        self._door_loop: asyncio.AbstractEventLoop | None = None
        self._freed: asyncio.Future[None] | None = None

    async def enter(self, tokens: float, stop: asyncio.Event) -> int | None:
        """Wait until a call of `tokens` may start; its epoch, or None if the run stopped."""
        if not self._waiting and self.control.unbound(self.clock(), self.in_flight):
            self.in_flight += 1  # nothing to pace: `started` would change nothing
            return self.control.epoch
        self._waiting += 1
        try:
            return await self._wait(tokens, stop)
        finally:
            self._waiting -= 1

    async def _wait(self, tokens: float, stop: asyncio.Event) -> int | None:
        async with self._lock():
            while not stop.is_set():
                now = self.clock()
                at = self.control.start_at(now, self.in_flight, tokens)
                if at is None:
                    await self._slot(stop)
                elif at > now:
                    await _nap(stop, at - now)
                else:
                    return self._go(now, tokens)
        return None

    def left(self, epoch: int, tokens: float, *, facts: RateFacts | None = None,
             used: float = 0.0, error: BaseException | None = None) -> Pause | None:
        """A call that entered is over: answered (`facts`, tokens `used`) or failed."""
        self.in_flight -= 1
        freed = self._freed
        if freed is not None and not freed.done():
            freed.set_result(None)
        now = self.clock()
        if error is None:
            return self.control.answered(now, facts, tokens, used)
        if isinstance(error, RateLimitedError):
            facts = error.facts if isinstance(error.facts, RateFacts) else RateFacts(
                retry_after=error.retry_after)
            return self.control.limited_by(now, epoch, facts, tokens, random.random())
        return None

    def rate(self) -> float:
        """Starts per second now (the pace, or the answers per second lately)."""
        return self.control.current_rate(self.clock())

    def _go(self, now: float, tokens: float) -> int:
        self.in_flight += 1
        return self.control.started(now, tokens)

    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._door is None or self._door_loop is not loop:
            self._door, self._door_loop = asyncio.Lock(), loop
        return self._door

    async def _slot(self, stop: asyncio.Event) -> None:
        if self._freed is None or self._freed.done():
            self._freed = asyncio.get_running_loop().create_future()
        await _first(stop, self._freed, None)


async def _nap(stop: asyncio.Event, seconds: float) -> None:
    await _first(stop, None, seconds)


async def _first(stop: asyncio.Event, future: asyncio.Future[None] | None,
                 seconds: float | None) -> None:
    """Wait until `stop` is set, `future` is done, or `seconds` pass, whichever comes first."""
    waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(stop.wait())}
    if future is not None:
        waits.add(asyncio.shield(future))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()


class RateBook:
    """The rate gates of a run's judges, and what they met."""

    def __init__(self) -> None:
        self._gates: dict[int, tuple[LLMProvider, RateGate]] = {}

    def gate(self, judge: LLMProvider, ceiling: int) -> RateGate | None:
        """The judge's gate (made on first use); None when the judge adapts no rate."""
        if not getattr(judge, "adaptive_rate", True):
            return None
        found = self._gates.get(id(judge))
        if found is None or found[0] is not judge:
            found = self._gates[id(judge)] = (judge, RateGate(ceiling))
        return found[1]

    def totals(self) -> tuple[int, float]:
        """429s met and seconds the starts were held, over every judge."""
        gates = [gate for _, gate in self._gates.values()]
        return (sum(g.control.limited for g in gates),
                sum(g.control.held_seconds for g in gates))
