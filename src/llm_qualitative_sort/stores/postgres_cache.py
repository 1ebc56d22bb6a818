"""`PostgresCache`: answers already paid for, shared by every worker that uses one database."""

from __future__ import annotations

import asyncio
from typing import Any

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores.answers import CallAnswer, answer_from_record, answer_to_record
from llm_qualitative_sort.stores.cache import CacheError, CacheKey, ComparisonCache
from llm_qualitative_sort.stores.postgres_connect import (
    CACHE,
    connect_async,
    migrate,
    redact,
    require,
)

_PURPOSE = "a comparison cache"


class PostgresCache(ComparisonCache):
    """A cache in a PostgreSQL table, shared across processes and machines.

    Keys are those of every cache (`CacheKey`); the table is created on first use, in the
    same database as the runs if you like (`checkpointer=` and the cache may share a DSN).
    When two workers pay for the same call at once, the first answer stored is kept, so
    every worker reads the same one afterwards. Lookups go over one connection per event
    loop, without blocking the loop.

    Args:
        dsn: A connection URI, `postgresql://user:password@host:port/dbname`.

    Raises:
        ImportError: The `postgres` extra is not installed (the message says how).

    Example:
        >>> PostgresCache("postgresql://sorter:secret@db.internal:5432/runs").where
        'postgresql://sorter@db.internal:5432/runs'
    """

    def __init__(self, dsn: str) -> None:
        self._psycopg = require("psycopg")
        self.dsn = dsn
        self._conn: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening = asyncio.Lock()

    @property
    def where(self) -> str:
        """The database, without the password."""
        return redact(self.dsn)

    async def get(self, key: CacheKey) -> CallAnswer | None:
        """The stored answer for `key`, or None."""
        try:
            conn = await self._connection()
            cursor = await conn.execute(f"SELECT value FROM {CACHE} WHERE key = %s",
                                        (key.digest,))
            row = await cursor.fetchone()
        except self._psycopg.Error as exc:
            raise CacheError(f"cannot read the cache in {self.where}: {exc}") from exc
        return None if row is None else answer_from_record(row[0], self.where)

    async def set(self, key: CacheKey, result: CallAnswer) -> None:
        """Store the answer for `key` unless another worker stored one first."""
        try:
            conn = await self._connection()
            await conn.execute(
                f"INSERT INTO {CACHE} (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
                (key.digest, answer_to_record(result)))
        except self._psycopg.Error as exc:
            raise CacheError(f"cannot write the cache in {self.where}: {exc}") from exc

    async def aclose(self) -> None:
        """Close the connection of the running event loop, if any."""
        conn, self._conn, self._loop = self._conn, None, None
        if conn is not None and not conn.closed:
            await conn.close()

    async def _connection(self) -> Any:
        # A connection belongs to the event loop that opened it: a cache used by two
        # `asyncio.run` calls opens one for each. The calls of a round look up the cache
        # together: the first opens the connection, the others wait for it.
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._conn, self._loop, self._opening = None, loop, asyncio.Lock()
        async with self._opening:
            if self._conn is None or self._conn.closed or self._conn.broken:
                try:
                    conn = await connect_async(self.dsn, _PURPOSE)
                    await migrate(conn)
                except StorageError as exc:
                    raise CacheError(str(exc)) from exc
                self._conn = conn
        return self._conn
