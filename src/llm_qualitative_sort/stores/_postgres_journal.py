"""The run journal in PostgreSQL: the contract of `_journal.Journal`, in a shared database.

Rows are committed in groups, one per turn of the event loop, as in the SQLite journal, and
synchronously: the flush runs before any code that the finished calls wake, so no verdict
is acted on before its row is committed. One group is one `COPY` in autocommit (atomic, two
round trips). The session commits with `synchronous_commit = off`: a commit is acknowledged
once it is in the server's write-ahead log, before that log reaches the disk. A worker that
is killed loses nothing it had committed; only a crash of the database server itself can
lose the last fraction of a second of journal rows (never a row older than a durable
checkpoint, since the log is written in order), and those calls are then paid again. That
is the durability the SQLite journal has with `synchronous=NORMAL`, and it saves the fsync
that would otherwise stall the event loop at every group commit (measured: about 4 ms).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from llm_qualitative_sort._journal import CallPlace
from llm_qualitative_sort._postgres import (
    BATCH_ANSWERS,
    BATCH_JOBS,
    JOURNAL,
    connect,
    redact,
    require,
    unusable,
)
from llm_qualitative_sort.cache import result_from_dict
from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.stores._postgres_batches import PostgresBatchRecords, in_flight
from llm_qualitative_sort.stores.base import BatchRecords

_PURPOSE = "a run journal"
_COPY = f"COPY {JOURNAL} (run_id, round, match, call, shown, record) FROM STDIN"
_Row = tuple[str, int, int, int, str, str]


def encode(result: ComparisonResult, cached: bool) -> str:
    """A journal record: the JSON list the SQLite journal keeps too."""
    fields = (result.winner, result.reasoning, result.raw_response, result.input_tokens,
              result.output_tokens, cached)
    return json.dumps(fields, ensure_ascii=False, default=str)


def decode(record: str, source: str) -> tuple[ComparisonResult, bool]:
    """The result and cache flag of a journal record."""
    winner, reasoning, raw, input_tokens, output_tokens, cached = json.loads(record)
    data = {"winner": winner, "reasoning": reasoning, "raw_response": raw,
            "input_tokens": input_tokens, "output_tokens": output_tokens}
    return result_from_dict(data, source), bool(cached)


class PostgresJournal:
    """Finished calls of runs in the journal table of a PostgreSQL database.

    A write that fails (the server unreachable) loses nothing silently: the rows stay
    pending and are tried again (on a new connection if the old one broke), `check` raises
    before the next paid call, and `unsaved_calls` says how many paid calls are not saved.

    Args:
        dsn: The database (its tables must exist: see `PostgresStore.prepare`).

    Raises:
        StorageError: The database cannot be reached.
    """

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._where = f"the run journal in {redact(dsn)}"
        self._psycopg = require("psycopg")
        self._rows: dict[tuple[str, int], dict[tuple[int, int], tuple[str, str]]] = {}
        self._pending: list[tuple[_Row, bool]] = []  # (row, paid)
        self._scheduled = False
        self._failure: Exception | None = None
        self._conn = self._connect()

    @property
    def where(self) -> str:
        """The journal's database, without the password."""
        return self._where

    def _connect(self) -> Any:
        conn = connect(self._dsn, _PURPOSE)
        conn.execute("SET synchronous_commit = off")
        return conn

    def _connection(self) -> Any:
        if self._conn.closed or self._conn.broken:
            self._conn = self._connect()
        return self._conn

    def get(self, place: CallPlace) -> tuple[ComparisonResult, bool] | None:
        """The journaled answer and whether it came from the user's cache, or None."""
        row = self._round(place.run_id, place.round_number).get((place.match, place.call))
        if row is None or row[0] != place.shown:
            return None  # another pairing was journaled here: ask again, never reuse it
        return decode(row[1], self._where)

    def put(self, place: CallPlace, result: ComparisonResult, *, cached: bool) -> None:
        """Record a finished call; committed by a flush scheduled on the event loop."""
        row = (place.shown, encode(result, cached))
        self._round(place.run_id, place.round_number)[(place.match, place.call)] = row
        key = (place.run_id, place.round_number, place.match, place.call)
        self._pending.append(((*key, *row), not cached))
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Commit the rows recorded and not yet saved; never raises (see `check`)."""
        self._scheduled = False
        if not self._pending:
            return
        try:
            with self._connection().cursor() as cursor, cursor.copy(_COPY) as copy:
                for row, _ in self._pending:
                    copy.write_row(row)
        except (self._psycopg.Error, StorageError) as exc:  # StorageError: no reconnection
            # A COPY whose answer was lost may have been committed: written again, its rows
            # are duplicates, and the newest copy of a call is the one read.
            self._failure = exc
            return
        self._pending = []
        self._failure = None

    def check(self) -> None:
        """Raise if finished calls cannot be written (after one more try).

        Raises:
            StorageError: Naming the database and the error.
        """
        if self._failure is not None:
            self.flush()
        if self._failure is not None:
            raise StorageError(
                f"cannot write {self._where} ({type(self._failure).__name__}: "
                f"{' '.join(str(self._failure).split())}): check the server, then resume the run"
            ) from self._failure

    def unsaved_calls(self) -> int:
        """Paid calls whose rows could not be written (after one more try)."""
        self.flush()
        return sum(paid for _, paid in self._pending) if self._failure is not None else 0

    def forget(self, run_id: str) -> None:
        """Drop a finished run's calls and batch records: its checkpoint holds the history."""
        self._rows = {key: rows for key, rows in self._rows.items() if key[0] != run_id}
        self.flush()
        self._pending = [entry for entry in self._pending if entry[0][0] != run_id]
        try:
            conn = self._connection()
            with conn.transaction():
                for table in (JOURNAL, BATCH_JOBS, BATCH_ANSWERS):
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

    def _round(self, run_id: str, round_number: int) -> dict[tuple[int, int], tuple[str, str]]:
        key = (run_id, round_number)
        if key not in self._rows:
            rows = self._read(
                f"SELECT match, call, shown, record FROM {JOURNAL} "
                "WHERE run_id = %s AND round = %s ORDER BY seq", key)
            # In write order: where a call was journaled twice, the newest row wins.
            self._rows[key] = {(m, c): (s, r) for m, c, s, r in rows}
        return self._rows[key]

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
