"""`PostgresRunLease`: holders in a table of the PostgreSQL database that keeps the runs.

Why a heartbeat with a time-to-live rather than a session-level advisory lock: a session
lock is let go whenever its connection drops, and a connection also drops under a live
holder (a network blip, a server restart, a pooler recycling it), which would let a second
worker in while the first still pays for calls; a heartbeat only lapses after `ttl` seconds
of silence, and a holder that finds its lease taken stops before its next call (see
`RunLease.hold`). A session lock would also never lapse under a suspended holder, and it
does not survive transaction-mode poolers. Silence is measured on the server's clock, so
the workers' clocks need not agree. The cost: a holder that dies on another machine keeps
its runs for up to `ttl` seconds; on the same machine, its dead pid frees them at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator
from typing import Any

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores.leases.base import (
    LeaseHolder,
    LeaseStoreBusyError,
    RunLease,
    is_stale,
)
from llm_qualitative_sort.stores.postgres_connect import (
    LEASES,
    connect_async,
    redact,
    require,
    unusable,
)

_COLUMNS = "run_id, host, pid, started, heartbeat, token, space"
# Server time, seconds since the epoch.
_NOW = "extract(epoch FROM clock_timestamp())"
_PURPOSE = "a run lease store"
# A session that sits inside a transaction this long (its process suspended, e.g. with
# Ctrl-Z, between two round trips) is ended by the server, which lets its row locks go: a
# suspended holder or contender never blocks the others for longer (milliseconds).
IDLE_IN_TRANSACTION_MS = 2000
# How long taking a run waits for a lease row locked by another transaction before asking
# again later (`RunLease._take` polls, keeping to its `wait`).
ACQUIRE_LOCK_MS = 500
# Taking a run is a few awaited statements, and between two of them this process's event
# loop may be held up (a journal commit waiting its lock time, a busy machine): a session
# ended for 2 s of idleness there failed a healthy worker ("server closed the connection").
# A contender suspended inside this short transaction blocks the others at most this long.
ACQUIRE_IDLE_MS = 15_000
# Both as transaction-local settings (one statement; safe behind transaction poolers).
_BOUNDS = ("SELECT set_config('lock_timeout', %s, true), "
           "set_config('idle_in_transaction_session_timeout', %s, true)")


class PostgresRunLease(RunLease):
    """Holders in the leases table; one connection per step (a few steps a minute).

    Taking the run locks its row (`SELECT ... FOR UPDATE` after an insert that does nothing
    if the row exists), so two workers can never both take it; a row locked by another
    transaction is asked again later rather than waited on. Renewing and letting go are
    single statements in autocommit: they never hold the row between two round trips, so a
    journal commit of the same process (which renews the row, on the event loop) never waits
    on its own heartbeat. Holders read back carry
    times on this process's clock (the server's, shifted by the difference measured in the
    same query), so `describe` and `is_stale` need no clock agreement.

    Args:
        dsn: The database (its tables must exist: see `PostgresStore.prepare`).
        ttl: As in `RunLease`.
    """

    def __init__(self, dsn: str, ttl: float | None = None) -> None:
        super().__init__(ttl)
        self.dsn = dsn
        self.where = redact(dsn)
        self._psycopg = require("psycopg")

    async def acquire(self, me: LeaseHolder) -> LeaseHolder | None:
        """Take the run unless a live holder has it.

        Raises:
            LeaseStoreBusyError: Another transaction keeps the run's row locked (a holder
                inside a journal commit, or suspended in one until the server ends it).
        """
        async with self._transaction(busy=True) as conn:
            await conn.execute(_BOUNDS, (str(ACQUIRE_LOCK_MS), str(ACQUIRE_IDLE_MS)))
            await conn.execute(
                f"INSERT INTO {LEASES} ({_COLUMNS}) VALUES (%s, %s, %s, {_NOW}, {_NOW}, %s, %s) "
                "ON CONFLICT (run_id) DO NOTHING",
                (me.run_id, me.host, me.pid, me.token, me.space))
            current = await self._holder(conn, me.run_id, lock=True)
            if current is None or current.token == me.token:
                return None
            if not is_stale(current, time.time(), self.ttl):
                return current
            await conn.execute(
                f"UPDATE {LEASES} SET host = %s, pid = %s, started = {_NOW}, "
                f"heartbeat = {_NOW}, token = %s, space = %s WHERE run_id = %s",
                (me.host, me.pid, me.token, me.space, me.run_id))
        return None

    async def renew(self, me: LeaseHolder) -> LeaseHolder | None:
        """Refresh the heartbeat while `me` holds the run; return the holder."""
        async with self._transaction(autocommit=True) as conn:
            cursor = await conn.execute(
                f"UPDATE {LEASES} SET heartbeat = {_NOW} WHERE run_id = %s AND token = %s "
                f"RETURNING {_COLUMNS}, {_NOW}", (me.run_id, me.token))
            row = await cursor.fetchone()
            return holder_from_row(row) if row is not None else await self._holder(conn, me.run_id)

    async def release(self, me: LeaseHolder) -> None:
        """Let the run go if `me` holds it."""
        async with self._transaction(autocommit=True) as conn:
            await conn.execute(f"DELETE FROM {LEASES} WHERE run_id = %s AND token = %s",
                               (me.run_id, me.token))

    async def recorded(self, run_id: str) -> LeaseHolder | None:
        """The holder on record, live or not."""
        async with self._transaction(autocommit=True) as conn:
            return await self._holder(conn, run_id)

    @contextlib.asynccontextmanager
    async def _transaction(self, *, autocommit: bool = False, busy: bool = False
                           ) -> AsyncIterator[Any]:
        """A connection, in a transaction unless `autocommit` (each statement its own).

        With `busy`, a lock wait that timed out is raised as `LeaseStoreBusyError`.
        """
        conn = await connect_async(self.dsn, _PURPOSE)
        try:
            if autocommit:
                yield conn
            else:
                async with conn.transaction():
                    yield conn
        except self._psycopg.errors.LockNotAvailable as exc:
            if not busy:
                raise StorageError(unusable(self.dsn, _PURPOSE, exc)) from exc
            raise LeaseStoreBusyError(
                f"its lease row in {self.where} is locked by another process inside a "
                "write (starting at the same moment, or suspended in the middle of one, "
                "e.g. with Ctrl-Z, until the server ends its session)") from exc
        except self._psycopg.Error as exc:
            raise StorageError(unusable(self.dsn, _PURPOSE, exc)) from exc
        finally:
            await conn.close()

    @staticmethod
    async def _holder(conn: Any, run_id: str, *, lock: bool = False) -> LeaseHolder | None:
        cursor = await conn.execute(
            f"SELECT {_COLUMNS}, {_NOW} FROM {LEASES} WHERE run_id = %s"
            + (" FOR UPDATE" if lock else ""), (run_id,))
        row = await cursor.fetchone()
        return None if row is None else holder_from_row(row)


def holder_from_row(row: Any) -> LeaseHolder:
    """A row of the leases table (its columns, then the server's time) as a holder."""
    holder = LeaseHolder(*row[:7])
    shift = time.time() - float(row[7])  # server clock -> this process's clock
    return dataclasses.replace(
        holder, started=holder.started + shift, heartbeat=holder.heartbeat + shift)
