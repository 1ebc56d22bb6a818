"""The run lease on plain data: who may take a run, and when a silent holder loses it."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_qualitative_sort import RunLockedError, StorageError
from llm_qualitative_sort.stores.leases import LeaseHolder, LocalRunLease, SqliteRunLease, is_stale
from llm_qualitative_sort.stores.leases.base import this_process


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _forge(path: Path, holder: LeaseHolder) -> None:
    """Write a holder row as another process (or machine) would have."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?, ?, ?)",
            dataclasses.astuple(holder),
        )
    conn.close()


@pytest.fixture
def lease(tmp_path: Path) -> SqliteRunLease:
    return SqliteRunLease(tmp_path / "runs.journal.sqlite3", ttl=5.0)


def test_a_silent_holder_is_stale_after_the_ttl_wherever_it_runs() -> None:
    now = time.time()
    elsewhere = LeaseHolder("r", "other-host", 1, now - 100, now - 4.9, "t", "x")
    assert not is_stale(elsewhere, now, ttl=5.0)
    assert is_stale(dataclasses.replace(elsewhere, heartbeat=now - 5.1), now, ttl=5.0)


def test_a_dead_pid_frees_the_run_at_once_only_in_the_same_pid_space() -> None:
    dead = dataclasses.replace(this_process("r"), pid=_dead_pid())
    assert is_stale(dead, time.time(), ttl=60.0)
    # Same host name, another pid namespace (a container): its pids mean nothing here.
    assert not is_stale(dataclasses.replace(dead, space="other"), time.time(), ttl=60.0)
    assert not is_stale(dataclasses.replace(dead, host="other-host"), time.time(), ttl=60.0)


async def test_this_process_holds_a_run_only_while_a_hold_is_open(
    lease: SqliteRunLease,
) -> None:
    async with lease.hold("r") as me:
        assert not is_stale(me, time.time(), ttl=60.0)
    # A row left behind by this process (its release failed on a full disk) is stale.
    assert is_stale(me, time.time(), ttl=60.0)
    _forge(lease.path, me)
    async with lease.hold("r"):
        pass


async def test_a_cancel_while_the_holder_lets_go_is_not_lost(lease: SqliteRunLease) -> None:
    """Ctrl-C in the instant a run ends: the lease is let go, and the cancel still stops."""
    task = asyncio.current_task()
    assert task is not None
    with pytest.raises(asyncio.CancelledError):
        async with lease.hold("r"):
            # Runs once the block has ended, while the lease waits for its heartbeat to stop.
            asyncio.get_running_loop().call_soon(task.cancel)
    assert task.uncancel() == 0
    assert await lease.recorded("r") is None  # let go all the same


async def test_second_holder_is_refused_with_the_first_named(lease: SqliteRunLease) -> None:
    async with lease.hold("run-1") as first:
        with pytest.raises(RunLockedError) as caught:
            async with lease.hold("run-1"):
                pytest.fail("two holders")
        assert caught.value.holder == first
        message = str(caught.value)
        assert f"pid {os.getpid()} on host " in message and "since 20" in message
        assert caught.value.run_id == "run-1"
        async with lease.hold("run-2"):  # other runs are free
            pass
    async with lease.hold("run-1"):  # released when the block ended
        pass


async def test_waiting_takes_the_run_once_the_holder_lets_go(lease: SqliteRunLease) -> None:
    order: list[str] = []

    async def first() -> None:
        async with lease.hold("run"):
            order.append("first in")
            await asyncio.sleep(0.6)
            order.append("first out")

    async def second() -> None:
        await asyncio.sleep(0.1)
        async with lease.hold("run", wait=None):
            order.append("second in")

    await asyncio.gather(first(), second())
    assert order == ["first in", "first out", "second in"]


async def test_waiting_has_a_limit(lease: SqliteRunLease) -> None:
    async with lease.hold("run"):
        started = time.monotonic()
        with pytest.raises(RunLockedError):
            async with lease.hold("run", wait=0.5):
                pass
        assert time.monotonic() - started >= 0.5


async def test_foreign_holder_keeps_the_run_until_its_ttl_runs_out(tmp_path: Path) -> None:
    path = tmp_path / "runs.journal.sqlite3"
    lease = SqliteRunLease(path, ttl=0.8)
    async with lease.hold("warm-up"):
        pass  # creates the table
    now = time.time()
    _forge(path, LeaseHolder("run", "far-away-host", 4242, now - 3600, now, "theirs", "?"))
    with pytest.raises(RunLockedError, match="pid 4242 on host 'far-away-host'"):
        async with lease.hold("run"):
            pass
    started = time.monotonic()
    async with lease.hold("run", wait=None) as me:
        assert me.pid == os.getpid()
    assert 0.3 < time.monotonic() - started < 5


async def test_a_dead_local_holder_frees_the_run_at_once(lease: SqliteRunLease) -> None:
    async with lease.hold("warm-up"):
        pass
    dead = dataclasses.replace(this_process("run"), pid=_dead_pid(), token="dead")
    _forge(lease.path, dead)
    async with lease.hold("run") as me:  # no wait needed
        assert me.token != "dead"


async def test_a_holder_that_lost_its_run_is_stopped(tmp_path: Path) -> None:
    lease = SqliteRunLease(tmp_path / "j.sqlite3", ttl=0.3)
    now = time.time()
    thief = LeaseHolder("run", "far-away-host", 7, now, now + 60, "thief", "?")
    with pytest.raises(RunLockedError, match="taken over by pid 7 on host 'far-away-host'"):
        async with lease.hold("run"):
            _forge(lease.path, thief)  # as if it had found this process silent
            await asyncio.sleep(5)
    renewed = await lease.renew(thief)
    assert renewed is not None and renewed.token == "thief"  # the thief keeps its lease


async def test_cancelling_a_holder_stays_a_cancellation(lease: SqliteRunLease) -> None:
    async def hold_forever() -> None:
        async with lease.hold("run"):
            await asyncio.sleep(60)

    task = asyncio.create_task(hold_forever())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with lease.hold("run"):  # and the run was let go
        pass


async def test_local_lease_keeps_sorters_of_one_process_apart() -> None:
    scope = object()
    async with LocalRunLease(scope).hold("run"):
        with pytest.raises(RunLockedError):
            async with LocalRunLease(scope).hold("run"):
                pass
        async with LocalRunLease(object()).hold("run"):  # another checkpointer
            pass
    async with LocalRunLease(scope).hold("run"):
        pass


async def test_a_lease_file_that_is_not_sqlite_is_named(tmp_path: Path) -> None:
    path = tmp_path / "runs.journal.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StorageError, match="runs.journal.sqlite3.*not an SQLite database"):
        async with SqliteRunLease(path).hold("run"):
            pass
