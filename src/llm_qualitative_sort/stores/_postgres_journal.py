"""The run journal in PostgreSQL: the contract of `journal.Journal`, in a shared database.

Calls are committed in groups, one per turn of the event loop, as in the SQLite journal, and
synchronously: the flush runs before any code that the finished calls wake, so no verdict
is acted on before it is committed. A group is one row per round, its calls as a JSON array
(`entry`), written by one INSERT in autocommit: one round trip. The session commits with
`synchronous_commit = off`: a commit is acknowledged once it is in the server's write-ahead
log, before that log reaches the disk. A worker that is killed loses nothing it had
committed; only a crash of the database server itself can lose the last fraction of a
second of journal rows (never a row older than a durable checkpoint, since the log is
written in order), and those calls are then paid again. That is the durability the SQLite
journal has with `synchronous=NORMAL`, and it saves an fsync per group commit on the server
(scripts/bench_journal_postgres.py measures both).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from llm_qualitative_sort.errors import DamagedJournalError, StorageError
from llm_qualitative_sort.stores._group_commit import GroupCommitJournal
from llm_qualitative_sort.stores._postgres_batches import PostgresBatchRecords, in_flight
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.base import BatchRecords
from llm_qualitative_sort.stores.entries import Answer, CallFacts, CallPlace, Record, decode, record
from llm_qualitative_sort.stores.leases.postgres import IDLE_IN_TRANSACTION_MS, holder_from_row
from llm_qualitative_sort.stores.postgres_connect import (
    BATCH_ANSWERS,
    BATCH_JOBS,
    JOURNAL,
    LEASES,
    PAIRINGS,
    connect,
    redact,
    require,
    unusable,
)

_PURPOSE = "a run journal"
_INSERT = f"INSERT INTO {JOURNAL} (run_id, round, calls) VALUES (%s, %s, %s)"
_INSERT_PAIRINGS = f"INSERT INTO {PAIRINGS} (run_id, last_seq, records) VALUES (%s, %s, %s)"
_DROP = f"DELETE FROM {JOURNAL} WHERE run_id = %s AND round = ANY(%s)"
_DROP_PAIRINGS = f"DELETE FROM {PAIRINGS} WHERE run_id = %s AND last_seq < %s"
# The fence (see `Journal.fence`): renewing the holder's lease row locks it until the commit,
# so a takeover (`PostgresRunLease.acquire` locks the row too) comes wholly before or after.
_RENEW = (f"UPDATE {LEASES} SET heartbeat = extract(epoch FROM clock_timestamp()) "
          "WHERE run_id = %s AND token = %s")
_HOLDER = (f"SELECT run_id, host, pid, started, heartbeat, token, space, "
           f"extract(epoch FROM clock_timestamp()) FROM {LEASES} WHERE run_id = %s")
# A commit waits this long for the lease row (another transaction holds it: a contender
# taking the run, ended by the server within IDLE_IN_TRANSACTION_MS if it is suspended)
# before it fails and is tried again by `check`. The event loop waits meanwhile.
_LOCK_MS = 3 * IDLE_IN_TRANSACTION_MS
class PostgresJournal(GroupCommitJournal):
    """Finished calls of runs in the journal table of a PostgreSQL database.

    A write that fails (the server unreachable) loses nothing silently: the calls stay
    pending and are tried again (on a new connection if the old one broke), `check` raises
    before the next paid call, and `unsaved_calls` says how many paid calls are not saved.

    Args:
        dsn: The database (its tables must exist: see `PostgresStore.prepare`).

    Raises:
        StorageError: The database cannot be reached.
    """

    # See the module's docstring; "on" adds an fsync on the server to every group commit.
    synchronous_commit = "off"

    def __init__(self, dsn: str) -> None:
        super().__init__()
        self._dsn = dsn
        self._where = f"the run journal in {redact(dsn)}"
        self._psycopg = require("psycopg")
        self._rounds: dict[tuple[str, int], dict[tuple[int, int], Record]] = {}
        # Per (run, round): the JSON of each call not yet committed, and whether it was paid.
        self._pending: dict[tuple[str, int], list[tuple[str, bool]]] = {}
        self._pairings: dict[str, dict[int, list[int]]] = {}  # per run, read when first asked
        self._paired: dict[str, list[list[int]]] = {}  # not yet committed
        self._drops: list[tuple[str, tuple[Any, ...]]] = []
        self._dropped = 0  # paid calls not written: the run was lost (see `_commit`)
        self._conn = self._connect()

    @property
    def where(self) -> str:
        """The journal's database, without the password."""
        return self._where

    def _connect(self) -> Any:
        conn = connect(self._dsn, _PURPOSE)
        # A commit renews (locks) the lease row between two round trips: if this process is
        # suspended there (Ctrl-Z), the server ends the session, so a takeover is not
        # blocked until it wakes; it then finds its connection gone and writes nothing.
        conn.execute(f"SET synchronous_commit = {self.synchronous_commit}; "
                     f"SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_MS}; "
                     f"SET lock_timeout = {_LOCK_MS}")
        return conn

    def _connection(self) -> Any:
        if self._conn.closed or self._conn.broken:
            self._conn = self._connect()
        return self._conn

    @property
    def _named(self) -> str:
        return redact(self._dsn)

    def entry(self, place: CallPlace) -> Answer | None:
        """The journaled answer, whether it came from the user's cache, and its facts."""
        kept = self._round(place.run_id, place.round_number).get((place.match, place.call))
        if kept is None or kept[2] != place.shown:
            return None  # another pairing was journaled here: ask again, never reuse it
        return decode(kept, self._where)

    def put(
        self,
        place: CallPlace,
        result: CallAnswer,
        *,
        cached: bool,
        facts: CallFacts | None = None,
    ) -> None:
        """Record a finished call; committed by a flush scheduled on the event loop."""
        kept = record(place, result, cached, facts)
        key = (place.run_id, place.round_number)
        self._round(*key)[(place.match, place.call)] = kept
        text = json.dumps(kept, ensure_ascii=False, default=str)
        self._pending.setdefault(key, []).append((text, not cached))
        self._schedule()

    def put_pairing(self, run_id: str, seq: int, pairing: list[int]) -> None:
        """Record pairing number `seq` of a run, before its calls start (see `put`)."""
        self.pairings(run_id)
        self._pairings[run_id][seq] = list(pairing)
        self._paired.setdefault(run_id, []).append([seq, *pairing])
        self._schedule()

    def pairings(self, run_id: str) -> dict[int, list[int]]:
        """The pairings recorded for a run and not yet settled, by number."""
        if run_id not in self._pairings:
            found: dict[int, list[int]] = {}
            rows = self._read(f"SELECT seq, records FROM {PAIRINGS} WHERE run_id = %s "
                              "ORDER BY seq", (run_id,))
            for row, records in rows:
                try:
                    found.update((seq, pairing) for seq, *pairing in json.loads(records))
                except (ValueError, TypeError) as exc:
                    raise self._damaged(PAIRINGS, row, run_id, None, exc) from exc
            self._pairings[run_id] = found
        return dict(self._pairings[run_id])

    def settle(self, run_id: str, rounds: Iterable[int], pairings_below: int = 0) -> None:
        """Drop what a checkpoint now saved holds; committed with the next flush."""
        numbers = sorted(set(rounds))
        for number in numbers:
            self._rounds.pop((run_id, number), None)
        if numbers:
            self._drops.append((_DROP, (run_id, numbers)))
        pairings = self._pairings.get(run_id, {})
        for seq in [seq for seq in pairings if seq < pairings_below]:
            del pairings[seq]
        if pairings_below:
            self._drops.append((_DROP_PAIRINGS, (run_id, pairings_below)))
        self._schedule()

    def _has_pending(self) -> bool:
        return bool(self._pending or self._paired or self._drops)

    def _commit(self) -> None:
        """Commit what is pending in one transaction, if the fence holds (see `fence`).

        Pairings go first (a pairing is on disk before its calls), then calls, then the
        rows that saved checkpoints made stale.
        """
        rows = [(run_id, number, "[" + ",".join(text for text, _ in calls) + "]")
                for (run_id, number), calls in self._pending.items()]
        paired = [(run_id, records[-1][0], json.dumps(records))
                  for run_id, records in self._paired.items()]
        try:
            conn = self._connection()
            # Two round trips: the renewal, then the rows and the commit.
            with conn.pipeline() as pipeline, conn.transaction(), conn.cursor() as cursor:
                if self._held(cursor, pipeline):
                    if paired:
                        cursor.executemany(_INSERT_PAIRINGS, paired)
                    if rows:
                        cursor.executemany(_INSERT, rows)
                    for statement, params in self._drops:
                        cursor.execute(statement, params)
        except (self._psycopg.Error, StorageError) as exc:  # StorageError: no reconnection
            # A commit whose answer was lost may have been made: written again, its calls
            # are duplicates, and the newest copy of a call is the one read.
            self._failure = exc
            return
        self._failure = None
        lost = self._fence is not None and self._fence.lost
        # Rows of a process that lost the run come from a stale view: never written (their
        # paid calls stay counted in `unsaved_calls`).
        if lost:
            self._dropped += sum(paid for calls in self._pending.values() for _, paid in calls)
        self._pending, self._paired, self._drops = {}, {}, []

    def _held(self, cursor: Any, pipeline: Any) -> bool:
        """Inside the write transaction: renew the fenced hold; whether it still holds."""
        fence = self._fence
        if fence is None:
            return True
        me = fence.me
        if not fence.lost:
            sent = time.monotonic()
            cursor.execute(_RENEW, (me.run_id, me.token))
            pipeline.sync()
            if cursor.rowcount == 1:
                fence.confirmed = max(fence.confirmed, sent)
                return True
        row = cursor.execute(_HOLDER, (me.run_id,)).fetchone()
        if row is not None:
            self._holder = holder_from_row(row)
        fence.lost = True
        return False

    def _unwritable(self, failure: Exception) -> str:
        return (f"cannot write {self._where} ({type(failure).__name__}: "
                f"{' '.join(str(failure).split())}): check the server, then resume the run")

    def unsaved_calls(self) -> int:
        """Paid calls whose rows could not be written (after one more try)."""
        self.flush()
        pending = sum(paid for calls in self._pending.values() for _, paid in calls)
        return self._dropped + (pending if self._failure is not None else 0)

    def forget(self, run_id: str) -> None:
        """Drop a finished run's calls and batch records: its checkpoint holds the history."""
        self._rounds = {key: kept for key, kept in self._rounds.items() if key[0] != run_id}
        self._pairings.pop(run_id, None)
        self.flush()
        self._pending = {key: calls for key, calls in self._pending.items() if key[0] != run_id}
        self._paired.pop(run_id, None)
        self._drops = [drop for drop in self._drops if drop[1][0] != run_id]
        try:
            conn = self._connection()
            with conn.transaction():
                for table in (JOURNAL, PAIRINGS, BATCH_JOBS, BATCH_ANSWERS):
                    conn.execute(f"DELETE FROM {table} WHERE run_id = %s", (run_id,))
        except (self._psycopg.Error, StorageError):
            # Left behind, the rows are stale copies of what the checkpoint holds and are
            # never read again: failing to delete them must not fail a finished run.
            pass

    def batch_records(self, run_id: str, round_number: int) -> BatchRecords:
        """The batch records of a round, in the same database."""
        return PostgresBatchRecords(self._connection(), run_id, round_number)

    def batches_in_flight(self, run_id: str, round_number: int) -> list[str]:
        """The batches of a round that may still be at the provider."""
        return in_flight(self._connection(), run_id, round_number)

    def _round(self, run_id: str, round_number: int) -> dict[tuple[int, int], Record]:
        key = (run_id, round_number)
        if key not in self._rounds:
            rows = self._read(f"SELECT seq, calls FROM {JOURNAL} WHERE run_id = %s "
                              "AND round = %s ORDER BY seq", key)
            found: dict[tuple[int, int], Record] = {}
            for row, calls in rows:  # in write order: the newest entry of a call wins
                try:
                    found.update(((kept[0], kept[1]), kept) for kept in json.loads(calls))
                except (ValueError, TypeError, IndexError) as exc:
                    raise self._damaged(JOURNAL, row, run_id, round_number, exc) from exc
            self._rounds[key] = found
        return self._rounds[key]

    def _damaged(self, table: str, seq: int, run_id: str, round_number: int | None,
                 cause: Exception) -> DamagedJournalError:
        """The error for a row that cannot be read: which one, and how to delete it."""
        where = f"run {run_id!r}" + ("" if round_number is None else f", round {round_number}")
        return DamagedJournalError(
            f"{self._where} holds a damaged entry: row seq = {seq} of its table {table} "
            f"({where}) cannot be read ({cause})",
            [("delete that row (its calls are then asked again)",
              f"DELETE FROM {table} WHERE seq = {seq}")])

    def _read(self, query: str, params: tuple[Any, ...]) -> list[Any]:
        """Rows of a query; a connection found dead is replaced once."""
        for attempt in (1, 2):
            try:
                rows: list[Any] = self._connection().execute(query, params).fetchall()
                return rows
            except self._psycopg.Error as exc:
                if attempt == 2 or not self._conn.broken:
                    raise StorageError(unusable(self._dsn, _PURPOSE, exc)) from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Flush (a last try) and close the connection."""
        self.flush()
        self._conn.close()
