"""SIGTERM and SIGHUP stop a run as cleanly as Ctrl-C does.

Their default action kills the process on the spot: no run id printed, and calls finished in
the last moments possibly not yet committed to the journal. Here they cancel the run's task
instead, exactly as asyncio turns Ctrl-C into a cancellation, so the sorter's cleanup runs
(the journal is flushed, the checkpoint closed) before the command line reports the stop.

A signal the process was started with ignored stays ignored, as Python leaves an ignored
SIGINT: `nohup` ignores SIGHUP so that a closed terminal does not stop the command, and a
shell script's background job (`cmd &`) has SIGINT ignored, so Ctrl-C in its terminal does not
reach it.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")

# SIGHUP does not exist on Windows.
HANDLED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Signalled(Exception):
    """The run was stopped by a signal; `exit_code` is 128 + its number, as shells report."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum
        self.exit_code = 128 + signum


async def until_signalled(work: Awaitable[T]) -> T:
    """Await `work`; SIGTERM or SIGHUP cancel it and raise `Signalled` once it has unwound.

    Either signal left ignored by whoever started the process (`nohup`) stays ignored.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[int] = []

    def stop(signum: int) -> None:
        if not received:  # a second signal does not interrupt the cleanup of the first
            received.append(signum)
            task.cancel()

    # Read before any handler is set: `remove_signal_handler` restores SIG_DFL, not SIG_IGN.
    handled = [signum for signum in HANDLED if signal.getsignal(signum) != signal.SIG_IGN]
    for signum in handled:
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await work
    except asyncio.CancelledError:
        if received:
            task.uncancel()
            raise Signalled(received[0]) from None
        raise
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
