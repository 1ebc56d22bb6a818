"""The command line's SIGTERM and SIGHUP handling, in this process (see cli/_signals.py)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import pytest

from llm_qualitative_sort.cli._signals import Signalled, until_signalled


@pytest.fixture
def sighup_default() -> Iterator[None]:
    """SIGHUP at its default, as a command started from a terminal has it (a suite started
    under `nohup` inherits it ignored, and the handler rightly leaves it so)."""
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGHUP, before)


@pytest.fixture
def sighup_ignored() -> Iterator[None]:
    """SIGHUP ignored, as `nohup` starts a command."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGHUP, before)


async def _raise_then_settle(signum: int) -> str:
    """Raise `signum` in this thread, then wait until the event loop has read it.

    SIGUSR1, raised after it, comes through the loop's signal pipe after it: once SIGUSR1's
    handler has run, any handler of `signum` has run too.
    """
    loop = asyncio.get_running_loop()
    settled = asyncio.Event()
    loop.add_signal_handler(signal.SIGUSR1, settled.set)
    try:
        signal.raise_signal(signum)
        signal.raise_signal(signal.SIGUSR1)
        await settled.wait()
        await asyncio.sleep(0)  # a cancel scheduled with the handler lands here
    finally:
        loop.remove_signal_handler(signal.SIGUSR1)
    return "finished"


async def test_sighup_stops_the_work_as_a_signal(sighup_default) -> None:
    with pytest.raises(Signalled) as stopped:
        await until_signalled(_raise_then_settle(signal.SIGHUP))
    assert stopped.value.exit_code == 128 + signal.SIGHUP


async def test_a_sighup_ignored_at_start_stays_ignored_as_under_nohup(sighup_ignored) -> None:
    assert await until_signalled(_raise_then_settle(signal.SIGHUP)) == "finished"
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN  # not reset to the default
