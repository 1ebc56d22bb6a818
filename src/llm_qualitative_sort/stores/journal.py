"""The run journal: what a resume needs that the last checkpoint does not hold yet.

LangGraph saves a node's writes only when the node finishes, and a node plays many calls.
The journal closes that gap: each finished call is committed at once, keyed by its place in
the run (run id, round, match, call), so a resumed run replays it instead of paying for it
again; the pipelined schedule also logs each pairing here before its calls start. Once a
checkpoint holding those results is on disk, `settle` drops their rows: the journal holds
only the calls and pairings of the last round or two, whatever the length of the run.

Rows are encoded cheaply (plain columns, the provider's raw answer as MessagePack) and
committed in groups, one transaction per turn of the event loop.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from llm_qualitative_sort.errors import DamagedJournalError, StorageError, describe
from llm_qualitative_sort.stores._group_commit import GroupCommitJournal
from llm_qualitative_sort.stores._journal_rows import JournalRounds, load_run, write_pending
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import Answer, CallFacts, CallPlace, Record, record
from llm_qualitative_sort.stores.journal_file import (
    BUSY_MS,
    CALLS,
    DROP,
    DROP_PAIRINGS,
    PAIRINGS,
    PURPOSE,
    RENEW,
    WAL_LIMIT,
    WAL_PAGES,
    compact,
    file_identity,
)
from llm_qualitative_sort.stores.leases.sqlite import SqliteRunLease
from llm_qualitative_sort.stores.sqlite_files import (
    OneWait,
    held_lock,
    is_busy,
    open_sqlite,
    unusable_sqlite,
)

# The calls of a round nothing was journaled in (read only).
_NO_CALLS: dict[tuple[int, int], Any] = {}
# The facts of a call that has none: one shared mapping (`entry` hands out copies).
_NO_FACTS: CallFacts = {}


class Journal(GroupCommitJournal):
    """Finished calls and pairings of runs, in an SQLite file or, without one, in memory.

    A write that fails (a full disk) loses nothing silently: the rows stay pending and are
    tried again, `check` raises before the next paid call, and `unsaved_calls` says how many
    paid calls are not on disk.

    Args:
        path: The SQLite file; None keeps the journal in memory.

    Raises:
        StorageError: `path` is not a usable SQLite file.
    """

    def __init__(self, path: Path | None = None) -> None:
        super().__init__()
        self.path = path
        # Per run: {round: {(match, call): entry}}: the rows this object wrote, and those
        # read from the file when the run was first looked up; settled rounds leave.
        self._calls: dict[str, JournalRounds] = {}
        self._pairings: dict[str, dict[int, list[int]]] = {}
        self._conn: sqlite3.Connection | None = None
        self._records: dict[tuple[str, int], list[Record]] = {}  # not yet committed
        self._paired: dict[str, list[list[int]]] = {}
        self._drops: list[tuple[str, tuple[Any, ...]]] = []
        self._unsaved = 0  # paid calls among the pending records
        self._file: tuple[int, int] | None = None
        self._one_wait = OneWait()
        if path is not None:
            self._conn = open_sqlite(path, CALLS, PURPOSE, StorageError)
            self._file = file_identity(path)
            try:
                for statement in (PAIRINGS, f"PRAGMA wal_autocheckpoint={WAL_PAGES}",
                                  f"PRAGMA journal_size_limit={WAL_LIMIT}",
                                  f"PRAGMA busy_timeout={BUSY_MS}"):
                    self._conn.execute(statement)
            except sqlite3.Error as exc:
                self._conn.close()
                raise StorageError(unusable_sqlite(path, PURPOSE, exc)) from exc

    @property
    def _named(self) -> str:
        return str(self.path)

    @property
    def _writes(self) -> bool:
        return self._conn is not None

    def entry(self, place: CallPlace) -> Answer | None:
        """The journaled answer, whether it came from the user's cache, and its facts."""
        entry = self._run(place.run_id).get(place.round_number, _NO_CALLS).get(
            (place.match, place.call))
        if entry is None or entry[0] != place.shown:
            return None  # another pairing was journaled here: ask again, never reuse it
        return entry[1], entry[2], dict(entry[3])

    def put(
        self,
        place: CallPlace,
        result: CallAnswer,
        *,
        cached: bool,
        facts: CallFacts | None = None,
    ) -> None:
        """Record a finished call.

        The row is committed by a flush scheduled on the event loop, so all calls that
        finish in one turn of the loop share one commit; the flush runs before any code
        woken by these calls, so no verdict is acted on before its row is on disk.
        """
        run_id, number = place.run_id, place.round_number
        rounds = self._run(run_id)
        calls = rounds.get(number)
        if calls is None:
            calls = rounds[number] = {}
        calls[place.match, place.call] = (place.shown, result, cached, facts or _NO_FACTS)
        if self._conn is None:
            return
        row = record(place, result, cached, facts)
        key = (run_id, number)
        if key in self._records:
            self._records[key].append(row)
        else:
            self._records[key] = [row]
        self._unsaved += not cached
        self._schedule()

    def put_pairing(self, run_id: str, seq: int, pairing: list[int]) -> None:
        """Record pairing number `seq` of a run (plain integers), before its calls start.

        Committed like `put`: its flush is scheduled ahead of the calls it starts.
        """
        self._run(run_id)
        self._pairings[run_id][seq] = list(pairing)
        if self._conn is not None:
            self._paired.setdefault(run_id, []).append([seq, *pairing])
            self._schedule()

    def pairings(self, run_id: str) -> dict[int, list[int]]:
        """The pairings recorded for a run and not yet settled, by number."""
        self._run(run_id)
        return dict(self._pairings[run_id])

    def settle(self, run_id: str, rounds: Iterable[int], pairings_below: int = 0) -> None:
        """Drop what a checkpoint now on disk holds.

        That is the calls of `rounds` and the pairings numbered below `pairings_below`;
        committed with the next flush.
        """
        calls = self._run(run_id)
        for number in rounds:
            if calls.pop(number, None) is not None and self._conn is not None:
                self._drops.append((DROP, (run_id, number)))
        pairings = self._pairings[run_id]
        settled = [seq for seq in pairings if seq < pairings_below]
        for seq in settled:
            del pairings[seq]
        if settled and self._conn is not None:
            self._drops.append((DROP_PAIRINGS, (run_id, pairings_below)))
        if self._drops:
            self._schedule()

    def _has_pending(self) -> bool:
        return bool(self._records or self._paired or self._drops)

    def _commit(self) -> None:
        """Commit what is pending in one transaction, if the fence holds (see `fence`)."""
        assert self._conn is not None
        try:
            # After one whole wait for another process's lock in vain, later tries (each
            # call in flight makes one before it is paid, then the stop and the close) do
            # not wait again: each wait blocks the event loop.
            with self._one_wait.write(self._conn), self._conn:
                self._conn.execute("BEGIN IMMEDIATE")
                if self._held(self._conn):
                    write_pending(self._conn, self._records, self._paired, self._drops)
        except (sqlite3.Error, TypeError, ValueError, OverflowError, RecursionError) as exc:
            # sqlite3.Error: the disk (full, failing). The others: a row that cannot be
            # encoded, which the judge's answer check should have made impossible.
            self._failure = exc
            return
        self._failure = None
        if self._fence is not None and self._fence.lost:
            # Written from a stale view (another process took the run meanwhile), these
            # rows would corrupt its resume: they are never written. Their paid calls are
            # counted as unsaved.
            self._records, self._paired, self._drops = {}, {}, []
            return
        self._records, self._paired, self._drops = {}, {}, []
        self._unsaved = 0

    def _held(self, conn: sqlite3.Connection) -> bool:
        """Inside the write transaction: renew the fenced hold; whether it still holds."""
        fence = self._fence
        if fence is None:
            return True
        me = fence.me
        # A file deleted or replaced under the run: this connection writes to the old one,
        # which no other process (and no resume) sees, so the hold counts for nothing.
        replaced = self.path is None or file_identity(self.path) != self._file
        if not fence.lost and not replaced:
            sent = time.monotonic()
            if conn.execute(RENEW, (time.time(), me.run_id, me.token)).rowcount == 1:
                fence.confirmed = max(fence.confirmed, sent)
                return True
        if not replaced:
            self._holder = SqliteRunLease.holder(conn, me.run_id)
        fence.lost = True
        return False

    def _unwritable(self, failure: Exception) -> str:
        """Why the journal cannot be written, and what to do."""
        if not isinstance(failure, sqlite3.Error):
            return (f"cannot encode an answer for the run journal {self.path} "
                    f"({describe(failure)}): a bug of this library, please report it; the "
                    "answers not written are asked again on resume")
        if is_busy(failure):
            # Not the disk: another process keeps the file's write lock, which a process
            # only does for long when it is stopped inside a write.
            why = held_lock(BUSY_MS / 1000)
            return f"cannot write the run journal {self.path}: {why}, then resume this run"
        return (f"cannot write the run journal {self.path} ({describe(failure)}): free space "
                "on its disk, then resume the run")

    def unsaved_calls(self) -> int:
        """Paid calls whose rows could not be written (after one more try)."""
        self.flush()
        lost = self._fence is not None and self._fence.lost
        return self._unsaved if self._failure is not None or lost else 0

    def forget(self, run_id: str) -> None:
        """Drop a finished run's rows, and give their space back to the file system."""
        self._calls.pop(run_id, None)
        self._pairings.pop(run_id, None)
        if self._conn is None:
            return
        self.flush()
        self._records = {key: rows for key, rows in self._records.items() if key[0] != run_id}
        self._paired.pop(run_id, None)
        self._drops = [drop for drop in self._drops if drop[1][0] != run_id]
        try:
            self._conn.execute("DELETE FROM calls WHERE run_id = ?", (run_id,))
            self._conn.execute("DELETE FROM pairings WHERE run_id = ?", (run_id,))
            compact(self._conn)
        except sqlite3.Error:
            # Left behind, the rows are stale copies of what the checkpoint holds and are
            # never read again (a finished run returns its stored result): a failure to
            # delete them (a full disk) must not turn a finished run into an error.
            pass

    def _run(self, run_id: str) -> JournalRounds:
        """A run's rows; read from the file (one query per table) when first asked for."""
        rounds = self._calls.get(run_id)
        if rounds is None:
            rounds = self._calls[run_id] = {}
            self._pairings[run_id] = {}
            if self._conn is not None:
                try:
                    load_run(self._conn, run_id, rounds, self._pairings[run_id],
                             str(self.path))
                except DamagedJournalError:
                    del self._calls[run_id]
                    raise
                except (sqlite3.Error, ValueError, TypeError) as exc:
                    del self._calls[run_id]
                    raise StorageError(self._unusable(exc)) from exc
        return rounds

    def _unusable(self, exc: Exception) -> str:
        if isinstance(exc, sqlite3.Error):
            return unusable_sqlite(Path(str(self.path)), PURPOSE, exc)
        # Every resume would read the same row again: the way on is without this file.
        return (f"cannot use {self.path} as {PURPOSE}: a damaged entry ({exc}); move the "
                "journal aside (the calls it holds that no checkpoint has are then asked "
                "again), then resume the run")

    def close(self) -> None:
        """Flush (a last try) and close the file."""
        if self._conn is not None:
            self.flush()
            self._conn.close()
