"""The PostgreSQL lease when its holder dies, goes silent or keeps beating (real processes)."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import _forked as forked
import pytest

from llm_qualitative_sort import RunLockedError
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease
from llm_qualitative_sort.stores.postgres import PostgresStore

HOLDER = Path(__file__).with_name("lease_holder.py")
TTL = 1.5


@pytest.fixture
def dsn(postgres_dsn: str) -> str:
    asyncio.run(PostgresStore(postgres_dsn).prepare())
    return postgres_dsn


@pytest.fixture
def holders() -> Iterator[list[forked.Forked]]:
    started: list[forked.Forked] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def _hold(holders: list[forked.Forked], dsn: str, tmp: Path, host: str = ""
          ) -> forked.Forked:
    ready = tmp / f"ready-{len(holders)}"
    process = forked.start([sys.executable, str(HOLDER), dsn, "run-1", str(TTL), host,
                            str(ready)])
    holders.append(process)
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline, "the holder did not start"
        time.sleep(0.01)
    return process


async def _try(dsn: str) -> bool:
    """Whether this process can take the run now (and then lets it go)."""
    try:
        async with PostgresRunLease(dsn, TTL).hold("run-1", wait=0):
            return True
    except RunLockedError:
        return False


def test_a_killed_holder_on_this_machine_frees_the_run_at_once(dsn, holders, tmp_path) -> None:
    holder = _hold(holders, dsn, tmp_path)
    assert not asyncio.run(_try(dsn))
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    assert asyncio.run(_try(dsn))  # its pid is gone: no need to wait for the TTL


def test_a_killed_holder_elsewhere_frees_the_run_after_its_ttl(dsn, holders, tmp_path) -> None:
    holder = _hold(holders, dsn, tmp_path, host="worker-a.elsewhere")
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    killed = time.monotonic()
    assert not asyncio.run(_try(dsn))  # its pid means nothing here: only silence counts
    while not asyncio.run(_try(dsn)):
        assert time.monotonic() - killed < TTL + 10, "the lease never lapsed"
        time.sleep(0.1)
    assert time.monotonic() - killed >= TTL * 0.5


def test_a_live_holder_elsewhere_keeps_the_run_by_its_heartbeat(dsn, holders, tmp_path) -> None:
    _hold(holders, dsn, tmp_path, host="worker-a.elsewhere")
    deadline = time.monotonic() + 2.5 * TTL
    while time.monotonic() < deadline:
        assert not asyncio.run(_try(dsn))
        time.sleep(0.2)


def test_a_silent_holder_is_taken_over_and_stops_when_it_wakes(dsn, holders, tmp_path) -> None:
    holder = _hold(holders, dsn, tmp_path, host="worker-a.elsewhere")
    holder.send_signal(signal.SIGSTOP)

    async def take_and_keep() -> None:
        async with PostgresRunLease(dsn, TTL).hold("run-1", wait=TTL + 10):
            holder.send_signal(signal.SIGCONT)
            assert await asyncio.to_thread(holder.wait, 30) == 7  # it learnt it lost the run

    asyncio.run(take_and_keep())
