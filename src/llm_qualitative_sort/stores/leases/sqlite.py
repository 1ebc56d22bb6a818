"""`SqliteRunLease`: holders in a table of an SQLite file that every contender opens."""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores.leases.base import (
    LeaseHolder,
    LeaseStoreBusyError,
    RunLease,
    is_stale,
)
from llm_qualitative_sort.stores.sqlite_files import open_sqlite, unusable_sqlite

_SCHEMA = """CREATE TABLE IF NOT EXISTS leases (
    run_id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, started REAL NOT NULL,
    heartbeat REAL NOT NULL, token TEXT NOT NULL, space TEXT NOT NULL)"""
_COLUMNS = "run_id, host, pid, started, heartbeat, token, space"
_PURPOSE = "a run journal"
_BUSY_MS = 1000


def _busy(path: Path, exc: BaseException | None) -> LeaseStoreBusyError | None:
    """`exc` as a busy store (another process inside a write), or None."""
    if isinstance(exc, sqlite3.OperationalError) and getattr(
            exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return LeaseStoreBusyError(
            f"{path} is locked by another process inside a write (starting at the same "
            "moment, or stopped in the middle of one, e.g. suspended with Ctrl-Z: resume "
            "it with `fg` or end it)")
    return None


class SqliteRunLease(RunLease):
    """Holders in the `leases` table of an SQLite file (the run journal beside a checkpoint).

    Checking the holder and taking the run happen in one `BEGIN IMMEDIATE` transaction, so
    two processes can never both take it. A connection is opened per step (a few steps a
    minute), so a lease holds no file open between them. SQLite on a network file system is
    only as safe as that file system's locks.

    Args:
        path: The SQLite file.
        ttl: As in `RunLease`.

    Example:
        >>> import asyncio, tempfile
        >>> from pathlib import Path
        >>> lease = SqliteRunLease(Path(tempfile.mkdtemp()) / "runs.journal.sqlite3")
        >>> async def holder():
        ...     async with lease.hold("run-1") as me:
        ...         return (await lease.renew(me)).pid == me.pid
        >>> asyncio.run(holder())
        True
    """

    def __init__(self, path: Path, ttl: float | None = None) -> None:
        super().__init__(ttl)
        self.path = path
        self.where = str(path)

    async def acquire(self, me: LeaseHolder) -> LeaseHolder | None:
        """Take the run unless a live holder has it."""
        with self._transaction() as conn:
            current = self.holder(conn, me.run_id)
            if current is not None and not is_stale(current, time.time(), self.ttl):
                return current
            conn.execute(
                f"INSERT OR REPLACE INTO leases ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                dataclasses.astuple(me),
            )
        return None

    async def renew(self, me: LeaseHolder) -> LeaseHolder | None:
        """Refresh the heartbeat while `me` holds the run; return the holder."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE leases SET heartbeat = ? WHERE run_id = ? AND token = ?",
                (time.time(), me.run_id, me.token),
            )
            return self.holder(conn, me.run_id)

    async def release(self, me: LeaseHolder) -> None:
        """Let the run go if `me` holds it."""
        with self._transaction() as conn:
            conn.execute(
                "DELETE FROM leases WHERE run_id = ? AND token = ?", (me.run_id, me.token)
            )

    async def recorded(self, run_id: str) -> LeaseHolder | None:
        """The holder on record, read without a write lock."""
        if not self.path.is_file():
            return None
        conn = open_sqlite(self.path, _SCHEMA, _PURPOSE, StorageError)
        try:
            return self.holder(conn, run_id)
        except sqlite3.Error as exc:
            raise StorageError(unusable_sqlite(self.path, _PURPOSE, exc)) from exc
        finally:
            conn.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = open_sqlite(self.path, _SCHEMA, _PURPOSE, StorageError)
        except StorageError as exc:
            busy = _busy(self.path, exc.__cause__)
            if busy is None:
                raise
            raise busy from exc
        try:
            # A short wait for the write lock: the step runs on the event loop, and a file
            # kept locked (a process suspended inside a commit) is asked again later.
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
        except sqlite3.Error as exc:
            raise _busy(self.path, exc) or StorageError(
                unusable_sqlite(self.path, _PURPOSE, exc)) from exc
        finally:
            conn.close()

    @staticmethod
    def holder(conn: sqlite3.Connection, run_id: str) -> LeaseHolder | None:
        """The holder on record for `run_id`, on an open connection to the file."""
        row: Any = conn.execute(
            f"SELECT {_COLUMNS} FROM leases WHERE run_id = ?", (run_id,)
        ).fetchone()
        return None if row is None else LeaseHolder(*row)
