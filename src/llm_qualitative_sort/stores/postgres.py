"""Runs in a PostgreSQL database, shared by every worker that is given the same DSN.

LangGraph's `AsyncPostgresSaver` keeps the checkpoints; the run journal, the leases, the
catalog of settings and the batch records are the library's own tables in the same
database (see `postgres_connect.MIGRATIONS`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores._postgres_journal import PostgresJournal
from llm_qualitative_sort.stores.base import Store, StoredRuns, settling_saver
from llm_qualitative_sort.stores.catalog import VERSION
from llm_qualitative_sort.stores.leases.base import RunLease
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease
from llm_qualitative_sort.stores.postgres_connect import (
    BATCH_ANSWERS,
    BATCH_JOBS,
    CATALOG,
    JOURNAL,
    PAIRINGS,
    connect_async,
    migrate,
    redact,
    require,
    unusable,
)
from llm_qualitative_sort.stores.sqlite import note_unsaved

_PURPOSE = "a checkpoint database"
# DSNs whose tables this process has already set up.
_READY: set[str] = set()


class PostgresStore(Store):
    """Checkpoints, run journal, leases and batch records in one PostgreSQL database.

    Args:
        dsn: A connection URI, `postgresql://user:password@host:port/dbname?options`.

    Raises:
        ImportError: The `postgres` extra is not installed (the message says how).
    """

    def __init__(self, dsn: str) -> None:
        require("langgraph.checkpoint.postgres.aio")
        self.dsn = dsn
        self.lease = PostgresRunLease(dsn)

    @property
    def where(self) -> str:
        """The database, without the password."""
        return redact(self.dsn)

    async def prepare(self) -> None:
        """Create or migrate the tables, once per process, in turn with other workers.

        Raises:
            StorageError: The server cannot be reached or the tables cannot be made.
        """
        if self.dsn in _READY:
            return
        psycopg = require("psycopg")
        saver_module = require("langgraph.checkpoint.postgres.aio")
        conn = await connect_async(self.dsn, _PURPOSE)
        try:
            await migrate(conn)
            # LangGraph's own migrations are not safe against concurrent workers (two may
            # insert the same version): a session lock makes them take turns.
            await _take_turn(conn, "llm-qualitative-sort:saver")
            async with self._saver_connection() as saver_conn:
                await saver_module.AsyncPostgresSaver(saver_conn).setup()
        except psycopg.Error as exc:
            raise StorageError(unusable(self.dsn, _PURPOSE, exc)) from exc
        finally:
            await conn.close()  # ends the session, and so its lock
        _READY.add(self.dsn)

    @asynccontextmanager
    async def saver(self) -> AsyncIterator[BaseCheckpointSaver[Any]]:
        """LangGraph's saver on its own connection (tables set up by `prepare`)."""
        saver_module = require("langgraph.checkpoint.postgres.aio")
        async with self._saver_connection() as conn:
            yield saver_module.AsyncPostgresSaver(conn)

    @asynccontextmanager
    async def _saver_connection(self) -> AsyncIterator[Any]:
        rows = require("psycopg.rows")
        # The settings `AsyncPostgresSaver.from_conn_string` uses, plus our timeouts.
        conn = await connect_async(self.dsn, _PURPOSE, prepare_threshold=0,
                                   row_factory=rows.dict_row)
        try:
            yield conn
        finally:
            await conn.close()

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[tuple[BaseCheckpointSaver[Any], PostgresJournal]]:
        """Open the saver and the journal (one connection each)."""
        psycopg = require("psycopg")
        saver_module = require("langgraph.checkpoint.postgres.aio")
        journal = PostgresJournal(self.dsn)
        try:
            async with self._saver_connection() as conn:
                try:
                    yield settling_saver(saver_module.AsyncPostgresSaver, journal, conn), journal
                except psycopg.OperationalError as exc:
                    # Raised by reading the stored run, before any call: a run stopped by
                    # the checkpoint arrives as `RunStoppedError` instead.
                    raise StorageError(unusable(self.dsn, _PURPOSE, exc)) from exc
                except (asyncio.CancelledError, KeyboardInterrupt) as exc:
                    note_unsaved(exc, journal)
                    raise
        finally:
            journal.close()

    @asynccontextmanager
    async def runs(self, *, create: bool = False) -> AsyncIterator[PostgresRuns]:
        """The runs kept in the database (its tables are created if missing)."""
        try:
            await self.prepare()
        except StorageError as exc:
            raise StorageError(str(exc)) from exc
        saver_module = require("langgraph.checkpoint.postgres.aio")
        async with self._saver_connection() as conn:
            yield PostgresRuns(conn, saver_module.AsyncPostgresSaver(conn), self.lease)


async def _take_turn(conn: Any, name: str) -> None:
    """Take a session-level advisory lock, asking again rather than waiting in a statement.

    A worker blocked in `pg_advisory_lock` holds a snapshot, and the holder's
    `CREATE INDEX CONCURRENTLY` waits for every older snapshot: both would wait forever.
    """
    while True:
        cursor = await conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (name,))
        row = await cursor.fetchone()
        if row is not None and row[0]:
            return
        await asyncio.sleep(0.05)


class PostgresCatalog:
    """The catalog of run settings (see `stores.catalog`) in a PostgreSQL table.

    Args:
        conn: An async autocommit connection with dict rows.
    """

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def put(self, run_id: str, settings: dict[str, Any], ids: list[Any]) -> None:
        """Keep a run's settings and its items' ids (in the order of the sorted texts)."""
        record = json.dumps({"version": VERSION, "settings": settings, "ids": ids},
                            ensure_ascii=False)
        await self._conn.execute(
            f"INSERT INTO {CATALOG} VALUES (%s, %s, %s) ON CONFLICT (run_id) DO UPDATE SET "
            "record = excluded.record", (run_id, time.time(), record))

    async def get(self, run_id: str) -> dict[str, Any]:
        """The run's record, or {} when none was kept."""
        cursor = await self._conn.execute(
            f"SELECT record FROM {CATALOG} WHERE run_id = %s", (run_id,))
        row = await cursor.fetchone()
        if row is None:
            return {}
        record: dict[str, Any] = json.loads(row["record"])
        return record

    async def delete(self, run_id: str) -> None:
        """Forget a run."""
        await self._conn.execute(f"DELETE FROM {CATALOG} WHERE run_id = %s", (run_id,))


class PostgresRuns(StoredRuns):
    """The runs of a PostgreSQL store, on one open connection."""

    def __init__(self, conn: Any, saver: BaseCheckpointSaver[Any],
                 lease: RunLease) -> None:
        self.conn, self.saver, self.lease = conn, saver, lease
        self.catalog = PostgresCatalog(conn)

    async def run_ids(self) -> list[str]:
        """Every run with a checkpoint, oldest first (a saver has no call that lists them)."""
        cursor = await self.conn.execute(
            "SELECT thread_id FROM checkpoints WHERE checkpoint_ns = '' "
            "GROUP BY thread_id ORDER BY MIN(checkpoint_id)")
        return [row["thread_id"] for row in await cursor.fetchall()]

    async def first_checkpoint_id(self, run_id: str) -> str | None:
        """The id of the run's first checkpoint."""
        cursor = await self.conn.execute(
            "SELECT MIN(checkpoint_id) AS first FROM checkpoints WHERE thread_id = %s "
            "AND checkpoint_ns = ''", (run_id,))
        row = await cursor.fetchone()
        return None if row is None or row["first"] is None else str(row["first"])

    async def journal_counts(
        self, run_id: str, skip_rounds: Iterable[int] = ()
    ) -> dict[str, int] | None:
        """Counts over the run's journal rows (the newest row of each call)."""
        # Each row holds a group of calls as a JSON array of entries [match, call, shown,
        # value, reasoning, raw, input tokens, output tokens, cached] (see
        # `entries.record`: the value is null for a call that gave no verdict, label or
        # order); a call journaled twice counts once, as read.
        cursor = await self.conn.execute(
            "SELECT COUNT(*) AS total, "
            "COUNT(*) FILTER (WHERE (e->>8)::boolean) AS cached, "
            "COUNT(*) FILTER (WHERE e->>3 IS NULL) AS failed, "
            "COALESCE(SUM((e->>6)::bigint), 0) AS tokens_in, "
            "COALESCE(SUM((e->>7)::bigint), 0) AS tokens_out FROM ("
            "SELECT DISTINCT ON (j.round, (c.e->>0)::int, (c.e->>1)::int) c.e AS e "
            f"FROM {JOURNAL} AS j, jsonb_array_elements(j.calls::jsonb) WITH ORDINALITY "
            "AS c(e, n) WHERE j.run_id = %s AND NOT (j.round = ANY(%s)) "
            "ORDER BY j.round, (c.e->>0)::int, (c.e->>1)::int, j.seq DESC, c.n DESC"
            ") AS latest", (run_id, sorted(set(skip_rounds))))
        row = await cursor.fetchone()
        total, cached = int(row["total"]), int(row["cached"])
        return {"calls": total - cached, "cache_hits": cached, "failed_calls": int(row["failed"]),
                "input_tokens": int(row["tokens_in"]), "output_tokens": int(row["tokens_out"])}

    async def delete_rows(self, run_id: str) -> None:
        """Delete the run's catalog row, journal rows and batch records."""
        await self.catalog.delete(run_id)
        for table in (JOURNAL, PAIRINGS, BATCH_JOBS, BATCH_ANSWERS):
            await self.conn.execute(f"DELETE FROM {table} WHERE run_id = %s", (run_id,))
