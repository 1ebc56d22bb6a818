"""Calls cut off: a stray cancel told apart from the run's, a provider's task awaited and dropped.

A call's provider coroutine runs as a task of its own (see `judge.Judge._checked_answer`):
`provider_task` starts it with a future it sets as it ends, which the caller waits for so
that a cancel ends the wait at once (a provider that `cancels_promptly` may be awaited in the
call's own task instead), `retrieve` marks the outcome of one given up as seen, and
`cancel_requests` / `stray_cancel` say whether a `CancelledError` was a request to stop or a
failure of what was awaited (`CallCancelled`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable

from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.stores.answers import CallAnswer


class CallCancelled(RuntimeError):
    """A call ended in `CancelledError` though nobody cancelled the run: no verdict.

    Something inside the provider, the cache or a client library cancelled a task of its
    own and let the `CancelledError` escape. The call is a failed call, never a missing one.
    """


def cancels_promptly(provider: LLMProvider) -> bool:
    """Whether `provider`'s calls may be awaited without a task of their own to shield the wait.

    Only for providers whose calls end as soon as they are cancelled: a class that says so
    in its own body (`LLMProvider.cancels_promptly`), as the library's mock does. Every
    other provider (a user's, a subclass that does not say so, the hosted ones) runs in a
    task of its own, awaited through a shield.
    """
    return vars(type(provider)).get("cancels_promptly") is True


def cancel_requests() -> int:
    """Cancellations requested of the current task and not yet withdrawn (`Task.cancelling`)."""
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


def stray_cancel(baseline: int) -> bool:
    """After a `CancelledError`: whether it came from inside the awaited code.

    True when no cancellation of the current task is pending beyond the `baseline` taken
    before the await: nobody cancelled the run, so the error is a failure of what was
    awaited, not a request to stop.
    """
    return cancel_requests() <= baseline


def provider_task(answer: Awaitable[CallAnswer]) -> tuple[
        asyncio.Task[CallAnswer], asyncio.Future[None]]:
    """Start a provider's answer as a task of its own; the future is set as the task ends.

    The caller awaits the future, not the task: a cancel then ends the wait at once, and
    not the task (`asyncio.shield` does the same with more bookkeeping; this is on every
    call's path). The task sets the future itself, in its last step, so the caller wakes in
    the next turn of the event loop, where the done-callback would take one turn more; once
    it wakes the task is done (see `call_outcome` for the case where it is not).
    """
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()
    asked = loop.create_task(_telling(answer, ended))
    # A task cancelled before its first step never runs `_telling`: the done-callback
    # wakes the caller then (otherwise it finds `ended` set already).
    asked.add_done_callback(functools.partial(_wake, ended))
    return asked, ended


async def _telling(answer: Awaitable[CallAnswer],
                   ended: asyncio.Future[None]) -> CallAnswer:
    try:
        return await answer
    finally:
        if not ended.done():  # cancelled: its caller was cut off and gave the call up
            ended.set_result(None)


async def call_outcome(asked: asyncio.Future[CallAnswer]) -> CallAnswer:
    """`asked`'s result, awaited so that a cancel ends the wait at once, not `asked`.

    The fallback of `provider_task`'s future: never needed unless a provider's coroutine
    was closed without ending.
    """
    if not asked.done():
        waiter = asyncio.get_running_loop().create_future()
        asked.add_done_callback(functools.partial(_wake, waiter))
        await waiter
    return asked.result()


def _wake(waiter: asyncio.Future[None], _asked: object) -> None:
    if not waiter.done():
        waiter.set_result(None)


def retrieve(asked: asyncio.Future[CallAnswer]) -> None:
    """Mark an abandoned call's outcome as seen (no "exception never retrieved" warning)."""
    if not asked.cancelled():
        asked.exception()
