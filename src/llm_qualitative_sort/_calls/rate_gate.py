"""The door each provider call of a judge goes through: its pace under the rate limits.

One `RateGate` per judge of a run (a panel's judges each have their own), kept in the
run's `RateBook`; the rules are `rate_control.RateControl`'s. Calls wait at the door in
the order they came (one at a time past it, so the pace is kept), and every wait ends at
once when the run stops. A call that finds the door free and nothing to wait for goes
straight through: a run that meets no limit pays a clock read and a few comparisons.

Every wait of a call for the rate limit (pauses, the pace, a free slot) counts against the
judge's `rate_wait_limit`: a wait that would take the call past it raises
`RateWaitTooLong` at once, naming the wait, instead of starting it.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from typing import Any

from llm_qualitative_sort._calls.rate_control import Pause, RateControl
from llm_qualitative_sort.errors import RateLimitedError
from llm_qualitative_sort.providers._rate_signals import RateFacts
from llm_qualitative_sort.providers.base import LLMProvider

# A call's waits for the rate limit, in total, at most (a longer wait stops the run).
DEFAULT_RATE_WAIT_LIMIT = 600.0


class RateWaitTooLong(RateLimitedError):
    """A call would wait for the rate limit longer than `rate_wait_limit`: it stops instead."""


class RateGate:
    """Paces the calls of one judge (see the module's doc).

    Args:
        ceiling: Calls in flight at most (`max_concurrent_requests`).
        clock: Seconds, monotonic (tests may pass their own).
        longest: Seconds one call may wait for the rate limit, in total (the judge's
            `rate_wait_limit`).
    """

    def __init__(self, ceiling: int, clock: Callable[[], float] = time.monotonic,
                 longest: float = DEFAULT_RATE_WAIT_LIMIT) -> None:
        self.control = RateControl(ceiling, longest)
        self.clock = clock
        self.longest = longest
        self.in_flight = 0
        self._waiting = 0  # calls at the door
        self._door: asyncio.Lock | None = None
        self._door_loop: asyncio.AbstractEventLoop | None = None
        self._freed: asyncio.Future[None] | None = None

    async def enter(self, tokens: float, stop: asyncio.Event,
                    waited: float = 0.0) -> int | None:
        """Wait until a call of `tokens` may start; its epoch, or None if the run stopped.

        Raises:
            RateWaitTooLong: The call, which has waited `waited` seconds already, would
                wait past `rate_wait_limit`, or a stated limit cannot admit it at all.
        """
        if not self._waiting and self.control.unbound(self.clock(), self.in_flight):
            self.in_flight += 1  # nothing to pace: `started` would change nothing
            return self.control.epoch
        self._waiting += 1
        try:
            return await self._wait(tokens, stop, self.clock() - waited)
        finally:
            self._waiting -= 1

    async def _wait(self, tokens: float, stop: asyncio.Event, since: float) -> int | None:
        """Wait at the door; `since`: when the call's waits began, as if in one piece."""
        deadline = since + self.longest
        async with self._lock():
            while not stop.is_set():
                now = self.clock()
                at = self.control.start_at(now, self.in_flight, tokens)
                if at is not None and at <= now:
                    return self._go(now, tokens)
                self._check(tokens, now, at, deadline, now - since)
                if at is None:
                    await self._slot(stop, deadline - now)
                else:
                    await _nap(stop, at - now)
        return None

    def _check(self, tokens: float, now: float, at: float | None, deadline: float,
               waited: float) -> None:
        """Raise `RateWaitTooLong` if the call cannot start before its `deadline`."""
        control = self.control
        limit = control.unfit(tokens)
        if limit is not None:
            raise RateWaitTooLong(
                f"the server's {self._limit_name('tokens')} ({limit:g} per minute) cannot "
                f"admit one call of about {tokens * control.token_scale:.0f} tokens")
        if at is None:
            if now < deadline:
                return
            why = (f"none of the {int(control.window)} calls in flight that the 429s leave "
                   "the judge ended")
        elif at <= deadline:
            return
        else:
            why = f"{self._holder(at)} would hold this call {span(at - now)} more"
        raise self.too_long(why, waited)

    def _holder(self, at: float) -> str:
        """What makes a call wait until `at`: a pause, the pace of requests or of tokens."""
        control = self.control
        if at <= control.paused_until:
            return "the pause the server asked for"
        if control.rate is not None and at <= control.next_start:
            pace = f"the pace of {control.rate:.2g} calls/s"
            if control.request_cap is not None and control.rate >= control.request_cap:
                pace += f" ({self._limit_name('requests')}: {control.stated_requests:g})"
            return pace
        return (f"the server's {self._limit_name('tokens')} ({control.tokens_limit:g} per "
                "minute)")

    def _limit_name(self, what: str) -> str:
        return RateFacts(quota=self.control.quota).limit_name(what)

    def too_long(self, why: str, waited: float,
                 refused: BaseException | None = None) -> RateWaitTooLong:
        """The error of a call that would wait past `rate_wait_limit`, saying `why`.

        `refused`: the 429 that asked for the wait (its message ends the error's, where a
        long one is cut first).
        """
        spent = f", of which this call has waited {span(waited)}" if waited >= 1 else ""
        tail = f" (the 429: {refused})" if refused is not None else ""
        error = RateWaitTooLong(f"{why}; rate_wait_limit is {self.longest:g} s{spent}{tail}")
        error.__cause__ = refused
        return error

    def left(self, epoch: int, tokens: float, *, facts: RateFacts | None = None,
             used: float = 0.0, error: BaseException | None = None,
             waited: float = 0.0) -> Pause | None:
        """A call that entered is over: answered (`facts`, tokens `used`) or failed.

        A 429's pause longer than the call may still wait (it has waited `waited`
        seconds) is returned not `kept`.
        """
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
            return self.control.limited_by(now, epoch, facts, tokens, random.random(),
                                           self.longest - waited)
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

    async def _slot(self, stop: asyncio.Event, seconds: float) -> None:
        if self._freed is None or self._freed.done():
            self._freed = asyncio.get_running_loop().create_future()
        await _first(stop, self._freed, seconds if seconds < math.inf else None)


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
        self._unpaced = 0

    def gate(self, judge: LLMProvider, ceiling: int) -> RateGate | None:
        """The judge's gate (made on first use); None when the judge adapts no rate."""
        if not getattr(judge, "adaptive_rate", True):
            return None
        found = self._gates.get(id(judge))
        if found is None or found[0] is not judge:
            found = self._gates[id(judge)] = (judge, RateGate(
                ceiling, longest=getattr(judge, "rate_wait_limit", DEFAULT_RATE_WAIT_LIMIT)))
        return found[1]

    def limited_unpaced(self) -> None:
        """A 429 met by a judge that adapts no rate (retried by the retry policy)."""
        self._unpaced += 1

    def totals(self) -> tuple[int, float]:
        """429s met and seconds the starts were held, over every judge."""
        gates = [gate for _, gate in self._gates.values()]
        return (sum(g.control.limited for g in gates) + self._unpaced,
                sum(g.control.held_seconds for g in gates))


def span(seconds: float) -> str:
    """A wait as a person reads it.

    Example:
        >>> span(4.2), span(600), span(5400), span(1e9), span(float("inf"))
        ('4.2 s', '600 s', '90 min', '31 years', 'without end')
    """
    if seconds == math.inf:
        return "without end"
    for unit, size, shown_from in (("years", 365.25 * 86400, 2), ("days", 86400, 2),
                                   ("h", 3600, 2), ("min", 60, 15)):
        if seconds >= shown_from * size:
            return f"{seconds // size:.0f} {unit}"
    return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
