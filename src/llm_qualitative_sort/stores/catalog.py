"""Settings of a run that its checkpoint does not hold, kept beside it in the same database.

The checkpoint holds what the tournament needs (items, criterion, N, rounds per match, seed,
history); the catalog adds what the command line chose around it — judge, model, prices,
ranking, report options, where the items came from and their ids — so that a run can be
resumed, listed, priced and re-rendered without the user retyping anything. One row per
run, written before the run starts and deleted with it. Nothing secret is ever stored.
"""

from __future__ import annotations

import json
import time
from typing import Any

import aiosqlite

TABLE = "llm_qualitative_sort_runs"
# Bump when a stored key changes meaning; readers skip the keys they do not know.
VERSION = 1
_SCHEMA = (f"CREATE TABLE IF NOT EXISTS {TABLE} (run_id TEXT PRIMARY KEY, "
           "created REAL NOT NULL, record TEXT NOT NULL)")


class RunCatalog:
    """The catalog table on an open SQLite connection (the checkpoint database's).

    Args:
        conn: An aiosqlite connection to the checkpoint file.
    """

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._ready = False

    async def _setup(self) -> None:
        if not self._ready:
            await self._conn.execute(_SCHEMA)
            await self._conn.commit()
            self._ready = True

    async def put(self, run_id: str, settings: dict[str, Any], ids: list[Any]) -> None:
        """Keep a run's settings and its items' ids (in the order of the sorted texts)."""
        await self._setup()
        record = json.dumps({"version": VERSION, "settings": settings, "ids": ids},
                            ensure_ascii=False)
        await self._conn.execute(
            f"INSERT INTO {TABLE} VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET "
            "record = excluded.record",
            (run_id, time.time(), record),
        )
        await self._conn.commit()

    async def get(self, run_id: str) -> dict[str, Any]:
        """The run's record ({"settings": {...}, "ids": [...]}), or {} when none was kept."""
        if not await self._exists():
            return {}
        cursor = await self._conn.execute(f"SELECT record FROM {TABLE} WHERE run_id = ?",
                                          (run_id,))
        row = await cursor.fetchone()
        if row is None:
            return {}
        record: dict[str, Any] = json.loads(row[0])
        return record

    async def run_ids(self) -> list[str]:
        """Every run with a row."""
        if not await self._exists():
            return []
        cursor = await self._conn.execute(f"SELECT run_id FROM {TABLE}")
        return [row[0] for row in await cursor.fetchall()]

    async def delete(self, run_id: str) -> None:
        """Forget a run."""
        if await self._exists():
            await self._conn.execute(f"DELETE FROM {TABLE} WHERE run_id = ?", (run_id,))
            await self._conn.commit()

    async def _exists(self) -> bool:
        # Reading must not create the table: `runs list` only looks.
        cursor = await self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
        )
        return await cursor.fetchone() is not None
