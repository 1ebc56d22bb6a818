"""The checkpoint saver on an SQLite file: LangGraph's, each write one trip to its thread.

`AsyncSqliteSaver` awaits every step of a write on its own (run the statement, commit,
close the cursor): three or four trips to aiosqlite's thread, each a wake-up of that thread
and of the event loop, for each checkpoint and each task's writes, dozens of times a round.
`OneTripSqliteSaver` runs LangGraph's own synchronous `SqliteSaver.put` and `put_writes`
(the same statements on the same connection, serialized by the same serializer) inside
aiosqlite's thread as one trip. Reads, listing and deleting stay `AsyncSqliteSaver`'s.

The checkpoint is serialized in that thread, as LangGraph's synchronous loop serializes
it in its background executor: the values a step hands to `aput` are not changed
afterwards (the state's reducers build new lists).

A step hands over one write per task at once. When another process keeps the file locked
(one suspended inside a write), the first of them waits the connection's whole busy
timeout in vain; until a write succeeds again, the others look at the lock once without
waiting, so the run stops after one wait instead of one per task.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort.stores.sqlite_files import OneWait


class OneTripSqliteSaver(AsyncSqliteSaver):
    """`AsyncSqliteSaver` whose `aput` and `aput_writes` each make one trip to its thread.

    Falls back to `AsyncSqliteSaver`'s own writes when the connection offers no way to run
    a function in its thread (an aiosqlite that changed its internals).
    """

    def __init__(self, conn: aiosqlite.Connection, **options: Any) -> None:
        super().__init__(conn, **options)
        self._writer: SqliteSaver | None = None
        self._one_wait = OneWait()

    def _trip(self) -> tuple[Callable[..., Any], SqliteSaver] | None:
        """The connection's "run this in your thread" (aiosqlite's), and the synchronous saver."""
        run = getattr(self.conn, "_execute", None)
        if run is None:
            return None
        if self._writer is None:
            try:
                raw = self.conn._conn
            except (AttributeError, ValueError):  # not connected (yet, or any more)
                return None
            if not isinstance(raw, sqlite3.Connection):
                return None
            writer = SqliteSaver(raw, serde=self.serde)
            writer.is_setup = True  # the tables are `setup`'s, made before any write
            self._writer = writer
        return run, self._writer

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save a checkpoint: `SqliteSaver.put` in the connection's thread."""
        await self.setup()
        trip = self._trip()
        if trip is None:
            return await super().aput(config, checkpoint, metadata, new_versions)
        run, writer = trip
        async with self.lock:
            saved: RunnableConfig = await run(self._write, writer.put, config, checkpoint,
                                              metadata, new_versions)
        return saved

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Save a task's writes: `SqliteSaver.put_writes` in the connection's thread."""
        await self.setup()
        trip = self._trip()
        if trip is None:
            await super().aput_writes(config, writes, task_id, task_path)
            return
        run, writer = trip
        async with self.lock:
            await run(self._write, writer.put_writes, config, writes, task_id, task_path)

    def _write(self, write: Callable[..., Any], *args: Any) -> Any:
        """`write(*args)`, in the connection's thread; see `OneWait` for a locked file."""
        raw = self.conn._conn
        with self._one_wait.write(raw):
            return write(*args)
