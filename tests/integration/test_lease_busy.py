"""A lease file kept locked by a process stopped inside a write (Ctrl-Z mid-commit).

SQLite's own wait for a lock is 30 s; a waiter must not die after it with "database is
locked", blaming the file: it waits as for a holder, and the event loop keeps running.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, RunLockedError
from llm_qualitative_sort.leases import SqliteRunLease

ITEMS = [str(i * 7 % 101) for i in range(8)]


async def test_a_waiter_outlasts_a_journal_locked_longer_than_sqlites_wait(
    tmp_path: Path,
) -> None:
    checkpoint = tmp_path / "runs.sqlite3"
    journal = tmp_path / "runs.journal.sqlite3"
    async with SqliteRunLease(journal).hold("warm-up"):
        pass
    suspended = sqlite3.connect(journal, isolation_level=None)
    suspended.execute("BEGIN IMMEDIATE")  # what a process stopped inside a commit keeps
    released = asyncio.get_running_loop().call_later(33.0, suspended.rollback)
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=checkpoint, wait_for_run=None)
    try:
        result = await sorter.sort(ITEMS, run_id="run")
    finally:
        released.cancel()
        suspended.close()
    assert len(result.rankings) > 0


async def test_a_locked_lease_file_is_a_locked_run_not_a_damaged_file(tmp_path: Path) -> None:
    journal = tmp_path / "runs.journal.sqlite3"
    lease = SqliteRunLease(journal)
    async with lease.hold("warm-up"):
        pass
    suspended = sqlite3.connect(journal, isolation_level=None)
    suspended.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(RunLockedError, match="locked by another process.*Ctrl-Z"):
            async with lease.hold("run", wait=0):
                pass
    finally:
        suspended.close()
