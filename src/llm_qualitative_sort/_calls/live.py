"""Live calls: one task per call, started as a request slot frees up.

A call's task is created only when one of the `max_concurrent_requests` slots is free, and
the next queued call starts when a task ends. Waiting calls are then plain queue entries,
not tasks parked on a semaphore: on Python 3.11 `asyncio.Semaphore` wakes a waiter by
walking past every waiter already woken, which costs quadratic time when hundreds of calls
end in one turn of the event loop.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence

from llm_qualitative_sort._calls._cutoff import CallCancelled, stray_cancel
from llm_qualitative_sort._calls.base import AnswerSink, Call, CallRunner, CallSettings
from llm_qualitative_sort._calls.judge import CallsStopped, Judge
from llm_qualitative_sort.prompts._run import prompt_key
from llm_qualitative_sort.results.events import RateNews


def make_judge(settings: CallSettings,
               on_rate: Callable[[RateNews], None] | None = None, *,
               direct: bool = False) -> Judge:
    """The judge of a run's calls, from its call settings.

    `on_rate` hears of the pauses for the rate limit (by default the run's events do);
    `direct`: see `Judge.direct`.
    """
    return Judge(
        provider=settings.provider,
        criteria=settings.criteria,
        cache=settings.cache,
        journal=settings.journal,
        retry=settings.retry,
        stop=settings.stop,
        timeout=settings.call_timeout,
        name_judge=settings.name_judge,
        rules=settings.rules,
        prompt_key=prompt_key(settings.prompt),
        pair_key=settings.prompt.pair_key if settings.prompt is not None else None,
        question=settings.question,
        rates=settings.rates,
        ceiling=settings.max_concurrent_requests,
        on_rate=on_rate or settings.events.rate_limit,
        direct=direct,
    )


class CallPool:
    """Answers submitted calls, at most `limit` at once, in the order submitted.

    Each answer goes to `answered(key, result, cached, facts)` from the call's own task, after the
    answer is journaled. When a call fails for good, queued calls never start, the calls in
    flight finish, and `drain` raises the first failure.

    Args:
        judge: Makes each call (journal, cache, provider).
        limit: Calls in flight at most.
        answered: Receives each answer with the key it was submitted under.
        on_failure: Called once when a call fails for good.
    """

    def __init__(self, judge: Judge, limit: int, answered: AnswerSink,
                 on_failure: Callable[[], None] | None = None) -> None:
        self._judge = judge
        self._on_failure = on_failure
        self._limit = limit
        self._answered = answered
        self._queue: deque[tuple[int, Call]] = deque()
        self._running: set[asyncio.Task[None]] = set()  # until their done-callback ran
        # Request slots taken: an answered call gives its slot back from its own task, a
        # turn before its done-callback runs.
        self._busy = 0
        self._idle: asyncio.Future[None] | None = None
        self._cancelled = False  # `cancel` was called: cancelled calls are expected
        self.failure: BaseException | None = None

    @property
    def in_flight(self) -> int:
        """Calls started and not yet answered."""
        return self._busy

    def submit(self, key: int, call: Call) -> None:
        """Queue a call; it starts at once if a slot is free."""
        self._queue.append((key, call))
        self._fill()

    def submit_all(self, calls: Sequence[Call]) -> None:
        """Queue calls keyed by their index; as many start at once as slots are free."""
        self._queue.extend(enumerate(calls))
        self._fill()

    async def drain(self) -> None:
        """Wait until every submitted call is answered; raise the first failure, if any."""
        if self._running or (self._queue and self.failure is None):
            self._idle = asyncio.get_running_loop().create_future()
            await self._idle
        if self.failure is not None:
            raise self.failure

    def cancel(self) -> None:
        """Start nothing more, and cancel the calls in flight."""
        self._cancelled = True
        self._queue.clear()
        for task in self._running:
            task.cancel()

    def _fill(self) -> None:
        if self.failure is not None or not self._queue or self._busy >= self._limit:
            return
        loop = asyncio.get_running_loop()
        while self._queue and self._busy < self._limit:
            key, call = self._queue.popleft()
            task = loop.create_task(self._one(key, call))
            self._busy += 1
            self._running.add(task)
            task.add_done_callback(self._finished)

    async def _one(self, key: int, call: Call) -> None:
        try:
            result, cached, facts = await self._judge.call(call.place, call.repetition)
        except asyncio.CancelledError:
            if not stray_cancel(0):  # a task of its own: no cancellation pending at start
                raise
            raise _lost(call) from None
        self._answered(key, result, cached, facts)
        # Answered (and journaled): its slot is free. The next call starts now rather than a
        # turn later from `_finished`; its first step still runs after the journal's flush,
        # which was scheduled first.
        self._busy -= 1
        self._fill()

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if task.cancelled() or task.exception() is not None:
            self._busy -= 1  # it ended without an answer: its slot was not given back
        if task.cancelled():
            if not self._cancelled:  # only `cancel` may end a call without an answer
                self._fail(CallCancelled("a call was cancelled before it started, though "
                                         "the run was not cancelled; no verdict recorded"))
        else:
            error = task.exception()
            if error is not None and not isinstance(error, CallsStopped):
                self._fail(error)
        self._fill()
        idle = self._idle
        if idle is not None and not idle.done() and not self._running and (
            not self._queue or self.failure is not None
        ):
            idle.set_result(None)

    def _fail(self, error: BaseException) -> None:
        if self.failure is None:
            self.failure = error
            self._queue.clear()
            self._judge.stop.set()
            if self._on_failure is not None:
                self._on_failure()


def _lost(call: Call) -> CallCancelled:
    place = call.place
    return CallCancelled(
        f"round {place.round_number}, match {place.match}, call {place.call} ended in "
        "CancelledError though the run was not cancelled (a task inside the provider or "
        "the cache was cancelled elsewhere); no verdict was recorded: resume the run"
    )


class LiveRunner(CallRunner):
    """Calls the provider once per call, at most `max_concurrent_requests` at a time."""

    async def run(self, calls: Sequence[Call], answered: AnswerSink) -> None:
        """Answer every call; see `CallRunner.run`."""
        # A round's calls: the order they end in changes no verdict and no pairing.
        pool = CallPool(make_judge(self.settings, direct=True),
                        self.settings.max_concurrent_requests, answered)
        try:
            pool.submit_all(calls)
            await pool.drain()
        except BaseException:
            pool.cancel()
            raise
