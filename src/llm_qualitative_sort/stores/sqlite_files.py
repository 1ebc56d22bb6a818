"""The SQLite files a run writes from the event loop: opening one, and another process's lock.

The run journal, the batch journal, the lease file and the `FileCache` each keep one
connection, written synchronously (see `open_sqlite`); the checkpoint file has its own
(aiosqlite's). What they share: how a file is opened and switched to WAL, how a lock held by
another process is recognised and told to the user.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# How long a write waits for another connection's lock before it fails.
BUSY_SECONDS = 30.0
# Pages of WAL (4 KiB each) between automatic copies into the database: 256 MiB.
WAL_PAGES = 65_536


def open_sqlite(
    path: Path, schema: str, purpose: str, error: type[Exception]
) -> sqlite3.Connection:
    """An autocommit connection for synchronous, write-through use from the event loop.

    Synchronous on purpose: in WAL mode with `synchronous=NORMAL` a commit takes tens of
    microseconds, less than handing the work to a thread would cost, and survives a killed
    process. SQLite copies the WAL back into the database (with an fsync) every 1000 pages
    by default, stalling the event loop for milliseconds; rows in the WAL are as safe, so
    that copy is made rare (and happens anyway when the last connection closes).

    Raises:
        error: `path` is not a usable SQLite database (named, with what to do).
    """
    if path.is_dir():
        raise error(f"cannot use {path} as {purpose}: it is a directory")
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
        # Short: this blocks the event loop; a lock held longer is reported (and a lease
        # file's is treated as a held run).
        wal_mode(conn, 1.0)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
        conn.execute(schema)
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()
        raise error(unusable_sqlite(path, purpose, exc)) from exc
    return conn


def is_busy(exc: BaseException) -> bool:
    """Whether `exc` is SQLite saying another connection holds the lock it needs."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def held_lock(seconds: float) -> str:
    """Why a write that waited `seconds` for another process's lock failed.

    Says what to do about that process; what then to do about the run is the caller's to say.
    """
    return (f"another process kept it locked for more than {seconds:g} s, most likely one "
            "suspended in the middle of a write to it (e.g. with Ctrl-Z; `jobs` lists them): "
            "resume that process with `fg` or end it")


def wal_mode(conn: sqlite3.Connection, wait: float) -> None:
    """Switch `conn`'s file to WAL, waiting up to `wait` seconds for another writer.

    Needed because the switch is a lock upgrade: while another process is inside a write
    (two runs starting on a new file at once), SQLite answers "database is locked" at once
    instead of waiting its busy timeout, to rule out a deadlock.
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(0.02)


def unusable_sqlite(path: Path, purpose: str, exc: sqlite3.Error) -> str:
    """Why `path` cannot serve as `purpose`, with what to do when the file itself is bad."""
    message = f"cannot use {path} as {purpose}: {exc}"
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        # SQLITE_NOTADB / SQLITE_CORRUPT: the file is not (or no longer) a database.
        message += " (not an SQLite database, or damaged: move it away or choose another path)"
    elif is_busy(exc):
        message += (" (another process is inside a write to this file and did not finish it: "
                    "one stopped in the middle of it, e.g. suspended with Ctrl-Z, keeps it "
                    "locked until it is resumed with `fg` or ended; then try again)")
    return message


class OneWait:
    """A connection's writes wait for another process's lock once, not once each.

    A write waits the connection's busy timeout for the lock. When that whole wait was in
    vain (another process stopped inside a write keeps the file locked), the writes
    already on their way would each wait it again before the run can stop; instead they
    look at the lock once without waiting, until one succeeds, and the whole wait comes
    back. Used around each write: `with one_wait.write(conn): ...`.
    """

    def __init__(self) -> None:
        self.locked = False  # the last write found the file locked after a whole wait
        self._wait_ms: int | None = None  # the connection's busy timeout

    @contextmanager
    def write(self, conn: sqlite3.Connection) -> Iterator[None]:
        """Run the write in the `with` block; without a wait while the file stays locked."""
        if self._wait_ms is None:
            self._wait_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
        look = self.locked
        try:
            if look:
                conn.execute("PRAGMA busy_timeout=0")
            yield
        except Exception as exc:
            self.locked = is_busy(exc)
            raise
        finally:
            if look:
                conn.execute(f"PRAGMA busy_timeout={self._wait_ms}")
        self.locked = False

    @property
    def seconds(self) -> float:
        """The whole wait, in seconds (0 before the first write)."""
        return (self._wait_ms or 0) / 1000
