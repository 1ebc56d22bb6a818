"""The default store: an SQLite checkpoint file, with the run journal in a file beside it."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores.base import (
    BatchRecords,
    Store,
    StoredRuns,
    settling_saver,
)
from llm_qualitative_sort.stores.batch_journal import BatchJournal, batches_in_flight
from llm_qualitative_sort.stores.catalog import RunCatalog
from llm_qualitative_sort.stores.journal import Journal
from llm_qualitative_sort.stores.journal_file import WAL_LIMIT, journal_counts
from llm_qualitative_sort.stores.leases import RunLease, SqliteRunLease
from llm_qualitative_sort.stores.sqlite_files import is_busy, unusable_sqlite
from llm_qualitative_sort.stores.sqlite_saver import OneTripSqliteSaver

_PURPOSE = "a checkpoint file"
# How long opening the checkpoint file waits for another process's write (as the journal).
BUSY_SECONDS = 30.0


def journal_path(checkpoint: Path) -> Path:
    """The run journal kept beside an SQLite checkpoint file."""
    return checkpoint.with_name(checkpoint.stem + ".journal.sqlite3")


class SqliteJournal(Journal):
    """The SQLite run journal (`stores.journal.Journal`) as a store's `RunJournal`.

    Its batch records live in the same file (or, in memory, beside the journal object).
    """

    @property
    def where(self) -> str:
        """The journal file, or "the run journal" in memory."""
        return str(self.path or "the run journal")

    def batch_records(self, run_id: str, round_number: int) -> BatchRecords:
        """The batch records of a round, in the journal's file."""
        return BatchJournal(self, run_id, round_number)

    def batches_in_flight(self, run_id: str, round_number: int) -> list[str]:
        """The batches of a round that may still be at the provider."""
        return batches_in_flight(self, run_id, round_number)


class SqliteStore(Store):
    """Runs in an SQLite file; the journal and the lease in `journal_path(path)`.

    Args:
        path: The checkpoint file (created with its directory when missing).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # In the journal's file: the lease and the paid calls it protects live together.
        self.lease = SqliteRunLease(journal_path(path))

    @property
    def where(self) -> str:
        """The checkpoint file."""
        return str(self.path)

    async def prepare(self) -> None:
        """Refuse a directory; create the file's directory."""
        path = self._file
        if path.is_dir():
            raise StorageError(
                f"cannot use {path} as {_PURPOSE}: it is a directory "
                f"(give a file path, such as {path / 'runs.sqlite3'})"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create the directory of {path}: {exc}") from exc

    @property
    def _file(self) -> Path:
        assert self.path is not None
        return self.path

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[tuple[AsyncSqliteSaver, SqliteJournal]]:
        """Open the checkpoint file and the journal file."""
        path = self._file
        # The journal has a file of its own: a synchronous writer on the saver's file would
        # wait for the lock that the saver's connection holds across an `await` (deadlock).
        journal = SqliteJournal(journal_path(path))
        try:
            conn = await _connect(path)
        except BaseException:
            journal.close()
            raise
        stopped = True
        try:
            saver = settling_saver(OneTripSqliteSaver, journal, conn)
            try:
                await saver.setup()
                yield saver, journal
                stopped = False
            except sqlite3.Error as exc:
                # Raised by reading the stored run, before any call: a run stopped by the
                # checkpoint arrives as `RunStoppedError` instead.
                raise StorageError(unusable_sqlite(path, _PURPOSE, exc)) from exc
            except (asyncio.CancelledError, KeyboardInterrupt) as exc:
                note_unsaved(exc, journal)
                raise
        finally:
            await _close(conn, stopped=stopped)
            journal.close()

    def compact(self) -> int:
        """VACUUM both files and truncate their write-ahead logs; the bytes freed.

        Deleted rows only leave free pages inside a file; VACUUM rewrites it without them,
        and truncating the write-ahead log drops what the deletions appended there.
        """
        files = [self._file, journal_path(self._file)]
        before = sum(_size(p) for p in files)
        for target in files:
            if target.is_file():
                conn = sqlite3.connect(target, timeout=30.0, isolation_level=None)
                try:
                    conn.execute("VACUUM")
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                finally:
                    conn.close()
        return before - sum(_size(p) for p in files)

    @asynccontextmanager
    async def runs(self, *, create: bool = False) -> AsyncIterator[SqliteRuns]:
        """The runs of the file; it must exist unless `create`."""
        path = self._file
        if not create and not path.is_file():
            raise StorageError(f"no runs kept in {path}: the file does not exist")
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, timeout=BUSY_SECONDS)
        try:
            try:
                await _wal_mode(conn)
                await _tables(conn)
            except sqlite3.DatabaseError as exc:
                raise StorageError(f"cannot read {path} as a checkpoint database: {exc}") from exc
            yield SqliteRuns(path, conn, self.lease)
        finally:
            await _close(conn, stopped=False)


class SqliteRuns(StoredRuns):
    """The runs of one SQLite checkpoint file, on an open connection."""

    def __init__(self, path: Path, conn: aiosqlite.Connection, lease: RunLease) -> None:
        self.path, self.conn, self.lease = path, conn, lease
        self.saver = AsyncSqliteSaver(conn)
        self.catalog = RunCatalog(conn)

    async def run_ids(self) -> list[str]:
        """Every run with a checkpoint, oldest first (a saver has no call that lists them)."""
        if "checkpoints" not in await _tables(self.conn):
            return []
        cursor = await self.conn.execute(
            "SELECT thread_id FROM checkpoints WHERE checkpoint_ns = '' "
            "GROUP BY thread_id ORDER BY MIN(checkpoint_id)"
        )
        return [row[0] for row in await cursor.fetchall()]

    async def first_checkpoint_id(self, run_id: str) -> str | None:
        """The id of the run's first checkpoint."""
        cursor = await self.conn.execute(
            "SELECT MIN(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND "
            "checkpoint_ns = ''", (run_id,))
        row = await cursor.fetchone()
        return None if row is None or row[0] is None else str(row[0])

    async def journal_counts(
        self, run_id: str, skip_rounds: Iterable[int] = ()
    ) -> dict[str, int] | None:
        """Counts over the run's rows in the journal file, leaving out `skip_rounds`."""
        journal = journal_path(self.path)
        if not journal.is_file():
            return None
        try:
            return journal_counts(journal, run_id, skip_rounds)
        except sqlite3.Error:  # no call journaled yet (no table), or busy
            return None

    async def delete_rows(self, run_id: str) -> None:
        """Delete the run's catalog row and journal rows."""
        await self.catalog.delete(run_id)
        journal = journal_path(self.path)
        if journal.is_file():
            with sqlite3.connect(journal, timeout=30.0) as conn:
                conn.execute("DELETE FROM calls WHERE run_id = ?", (run_id,))
                conn.execute("DELETE FROM pairings WHERE run_id = ?", (run_id,))
            conn.close()

async def _tables(conn: aiosqlite.Connection) -> set[str]:
    cursor = await conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {row[0] for row in await cursor.fetchall()}


def _size(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return sum(p.stat().st_size for p in (path, wal) if p.is_file())


async def _close(conn: aiosqlite.Connection, *, stopped: bool) -> None:
    """Close `conn`; after a stop, first end what the stop cut off.

    A stop (a signal, Ctrl-C, a failing callback) can cancel the saver in the middle of
    reading rows (or, where it falls back to LangGraph's own writes, between a write and its
    commit), with its cursor still held (by the stopped task's traceback, an unfinished
    generator). Closing the connection does not end such a
    cursor's statement: SQLite keeps the connection open until it goes, with the write lock
    of an uncommitted write and the snapshot of an unfinished read. The process's next
    write to the file (the elapsed time the command line records, a resume) then waited out
    the 30 s busy timeout: for the lock, or to restart the write-ahead log past the reader.
    So the cursors still open on the connection are closed and the transaction is rolled
    back before it is closed. (Only after a stop: finding the cursors walks the heap.)
    """
    try:
        if stopped:
            for cursor in [c for c in gc.get_referrers(conn)
                           if isinstance(c, aiosqlite.Cursor)]:
                with contextlib.suppress(sqlite3.Error, ValueError):
                    await cursor.close()
        if conn.in_transaction:
            await conn.rollback()
    finally:
        await conn.close()


async def _connect(path: Path) -> aiosqlite.Connection:
    try:
        # Another process's write (its start, a checkpoint) is waited out, as on the journal.
        conn = await aiosqlite.connect(path, timeout=BUSY_SECONDS)
    except sqlite3.Error as exc:
        raise StorageError(unusable_sqlite(path, _PURPOSE, exc)) from exc
    try:
        # WAL with synchronous=NORMAL: a commit survives a killed process and costs
        # tens of microseconds instead of an fsync.
        await _wal_mode(conn)
        await conn.execute("PRAGMA synchronous=NORMAL")
        # The WAL is cut back to this size after each copy into the file, so a long run
        # does not leave it at its largest.
        await conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
    except sqlite3.Error as exc:
        await conn.close()
        raise StorageError(unusable_sqlite(path, _PURPOSE, exc)) from exc
    return conn


async def _wal_mode(conn: aiosqlite.Connection) -> None:
    """As `sqlite_files.wal_mode`, without blocking the event loop while another process writes."""
    deadline = asyncio.get_running_loop().time() + BUSY_SECONDS
    while True:
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or asyncio.get_running_loop().time() >= deadline:
                raise
        await asyncio.sleep(0.02)


def note_unsaved(exc: BaseException, journal: Any) -> None:
    """Add to `exc` how many paid calls `journal` could not write, if any."""
    unsaved = journal.unsaved_calls()
    if unsaved:
        exc.add_note(
            f"{unsaved} paid {'call' if unsaved == 1 else 'calls'} could not be written to "
            f"the run journal {journal.where}"
        )
