"""Live calls: every call of the round as its own task, under one concurrency limit."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from llm_qualitative_sort._calls.base import AnswerSink, Call, CallRunner
from llm_qualitative_sort._judge import CallsStopped, Judge


class LiveRunner(CallRunner):
    """Calls the provider once per call, at most `max_concurrent_requests` at a time."""

    async def run(self, calls: Sequence[Call], answered: AnswerSink) -> None:
        """Answer every call; see `CallRunner.run`."""
        settings = self.settings
        judge = Judge(
            provider=settings.provider,
            criteria=settings.criteria,
            cache=settings.cache,
            journal=settings.journal,
            retry=settings.retry,
            semaphore=asyncio.Semaphore(settings.max_concurrent_requests),
            stop=settings.stop,
            timeout=settings.call_timeout,
        )

        async def one(index: int, call: Call) -> None:
            result, cached, facts = await judge.call(call.place, call.repetition)
            answered(index, result, cached, facts)

        # One flat level of tasks: a call is the unit of work, matches are only bookkeeping.
        outcomes = await asyncio.gather(
            *(one(i, call) for i, call in enumerate(calls)), return_exceptions=True
        )
        raise_first_failure(outcomes)


def raise_first_failure(outcomes: Sequence[object]) -> None:
    """Raise the first real failure among gathered outcomes (a skipped call is not one)."""
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    real = [f for f in failures if not isinstance(f, CallsStopped)]
    if real or failures:
        raise (real or failures)[0]
