"""One timer for the deadlines of every call of a run.

`asyncio.timeout` arms and cancels a timer per call (a heap entry and a handle each). Every
call of a run has the same `call_timeout`, so deadlines fall due in the order calls started:
a queue in start order, with one timer for its oldest live entry, does the same work at a
constant cost per call.
"""

from __future__ import annotations

import asyncio
from collections import deque


class Watch:
    """The deadline of one call, made by the task that makes it.

    Its task is dropped when the call ends (`Deadlines.end`): a finished call's task, and
    everything it holds, is then freed at once, not when the queue reaches its watch.
    """

    __slots__ = ("cancelling", "deadline", "done", "fired", "task")

    def __init__(self, task: asyncio.Task[object], deadline: float) -> None:
        self.task: asyncio.Task[object] | None = task
        self.deadline = deadline
        self.cancelling = task.cancelling()
        self.done = False
        self.fired = False

    def expired(self) -> bool:
        """After a `CancelledError`: whether it came from this deadline alone.

        Withdraws this deadline's cancellation (as `asyncio.timeout` does), so a
        cancellation from elsewhere still propagates.
        """
        assert self.task is not None, "asked after the call ended"
        return self.fired and self.task.uncancel() <= self.cancelling


class Deadlines:
    """Cancels every call that runs longer than `seconds`.

    Example:
        >>> Deadlines(300.0).seconds
        300.0
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._queue: deque[Watch] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def watch(self) -> Watch:
        """Start the deadline of the current task's call; pass it to `end` when over."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        watch = Watch(task, loop.time() + self.seconds)
        queue = self._queue
        while queue and queue[0].done:
            queue.popleft()
        queue.append(watch)
        if self._timer is None:
            self._timer = loop.call_at(watch.deadline, self._expire, loop)
        return watch

    def end(self, watch: Watch) -> None:
        """The call of `watch` is over: its deadline no longer holds it.

        The watches of calls that ended leave the front of the queue at once, and an ended
        watch no longer holds its task: the queue (which the pending timer holds, up to
        `seconds` after the last call of a round) keeps no finished call alive.
        """
        watch.done = True
        watch.task = None
        queue = self._queue
        while queue and queue[0].done:
            queue.popleft()

    def _expire(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        now = loop.time()
        queue = self._queue
        while queue and (queue[0].done or queue[0].deadline <= now):
            watch = queue.popleft()
            if not watch.done and watch.task is not None:
                watch.fired = True
                watch.task.cancel()
        if queue:
            self._timer = loop.call_at(queue[0].deadline, self._expire, loop)
