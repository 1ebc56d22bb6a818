"""A run stopped in the middle of a checkpoint write leaves no lock on the checkpoint file.

A stop (a signal, Ctrl-C, a failing progress callback) can cancel the saver between its
write and its commit while a statement of its connection is still unfinished (a cursor the
stopped task's traceback keeps). Closing that connection then leaves SQLite holding it open
until the statement goes, with the write lock: the same process's next write to the file
(the command line recording the elapsed time, a resume) waited out SQLite's 30 s and failed.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from llm_qualitative_sort.stores.sqlite import SqliteStore


async def test_a_write_cut_off_by_a_stop_leaves_the_file_writable(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    kept = []
    with pytest.raises(asyncio.CancelledError):
        async with SqliteStore(path).connect() as (saver, _):
            conn = saver.conn
            await conn.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)")
            await conn.commit()
            await conn.executemany("INSERT INTO t VALUES (?)", [(1,), (2,), (3,)])
            await conn.commit()
            # A read not yet read to its end, and a write not yet committed: where a stop
            # in the middle of the saver's work leaves its connection.
            reading = await conn.execute("SELECT x FROM t")
            await reading.fetchone()
            kept.append(reading)
            await conn.execute("INSERT INTO t VALUES (4)")
            raise asyncio.CancelledError
    other = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        # No reader is left behind either: one would keep every later write waiting out
        # the busy timeout to restart the write-ahead log, and this copy from finishing.
        busy, _, _ = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
        other.execute("BEGIN IMMEDIATE")  # "database is locked" while the write lock is held
        other.execute("INSERT INTO t VALUES (5)")
        other.execute("COMMIT")
        assert [x for (x,) in other.execute("SELECT x FROM t ORDER BY x")] == [1, 2, 3, 5]
    finally:
        other.close()
    assert kept
