"""Where runs are kept: the checkpointer, the run journal beside it, and the run's lease."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort._journal import WAL_LIMIT, Journal
from llm_qualitative_sort.cache import unusable_sqlite
from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.leases import LocalRunLease, RunLease, SqliteRunLease

HOME_VARIABLE = "LLM_QUALITATIVE_SORT_HOME"
_PURPOSE = "a checkpoint file"


def default_checkpoint_path() -> Path:
    """The embedded SQLite file used when no checkpointer is given.

    `$LLM_QUALITATIVE_SORT_HOME/runs.sqlite3` if that variable is set, else
    `$XDG_DATA_HOME/llm-qualitative-sort/runs.sqlite3`, else
    `~/.local/share/llm-qualitative-sort/runs.sqlite3`.
    """
    home = os.environ.get(HOME_VARIABLE)
    if home:
        return Path(home) / "runs.sqlite3"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "llm-qualitative-sort" / "runs.sqlite3"


def journal_path(checkpoint: Path) -> Path:
    """The run journal kept beside an SQLite checkpoint file."""
    return checkpoint.with_name(checkpoint.stem + ".journal.sqlite3")


class _Settling:
    """Tells the run journal what each saved checkpoint holds, once it is on disk.

    A node that writes results to the history also writes `settled` (the journal rounds
    those results came from) and, in the pipelined schedule, `paired` (the pairings the
    checkpoint holds); after the save, their journal rows are no longer needed.
    """

    journal: Journal

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        saved: RunnableConfig = await super().aput(  # type: ignore[misc]
            config, checkpoint, metadata, new_versions)
        values = checkpoint["channel_values"]
        settled = values.get("settled")
        if settled:
            run_id = str(config["configurable"]["thread_id"])
            self.journal.settle(run_id, settled, values.get("paired", 0))
        return saved


class _SettlingSqliteSaver(_Settling, AsyncSqliteSaver):
    pass


class _SettlingMemorySaver(_Settling, InMemorySaver):
    pass


class RunStore:
    """Opens a checkpointer and its journal, and holds the run, for the length of one run call.

    Args:
        target: An SQLite file path, a LangGraph saver, or None (in memory, kept by this
            object so a run can be resumed within the process).
    """

    def __init__(self, target: str | os.PathLike[str] | BaseCheckpointSaver[Any] | None) -> None:
        self.path: Path | None = None
        self._saver: BaseCheckpointSaver[Any] | None = None
        self._journal = Journal()
        self.lease: RunLease
        if target is None:
            memory = _SettlingMemorySaver()
            memory.journal = self._journal
            self._saver = memory
        elif isinstance(target, BaseCheckpointSaver):
            self._saver = target
        else:
            self.path = Path(target)
        if self.path is None:
            self.lease = LocalRunLease(scope=self._saver)
        else:
            # In the journal's file: the lease and the paid calls it protects live together.
            self.lease = SqliteRunLease(journal_path(self.path))

    @asynccontextmanager
    async def open(
        self, run_id: str, *, wait: float | None = 0.0
    ) -> AsyncIterator[tuple[BaseCheckpointSaver[Any], Journal]]:
        """Hold `run_id` and yield the saver and journal; an SQLite file is opened here.

        Raises:
            StorageError: The checkpoint or journal file cannot be used (before any call).
            RunLockedError: Another process holds the run (see `RunLease.hold`).
        """
        if self.path is not None:
            _prepare_directory(self.path)
        async with self.lease.hold(run_id, wait=wait):
            if self.path is None:
                assert self._saver is not None
                yield self._saver, self._journal
                return
            async with _open_file(self.path) as opened:
                yield opened


def _prepare_directory(path: Path) -> None:
    if path.is_dir():
        raise StorageError(
            f"cannot use {path} as {_PURPOSE}: it is a directory "
            f"(give a file path, such as {path / 'runs.sqlite3'})"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the directory of {path}: {exc}") from exc


@asynccontextmanager
async def _open_file(path: Path) -> AsyncIterator[tuple[AsyncSqliteSaver, Journal]]:
    # The journal has a file of its own: a synchronous writer on the saver's file would
    # wait for the lock that the saver's connection holds across an `await` (deadlock).
    journal = Journal(journal_path(path))
    try:
        conn = await _connect(path)
    except BaseException:
        journal.close()
        raise
    try:
        saver = _SettlingSqliteSaver(conn)
        saver.journal = journal
        try:
            await saver.setup()
            yield saver, journal
        except sqlite3.Error as exc:
            # Raised by reading the stored run, before any call: a run stopped by the
            # checkpoint arrives as `RunStoppedError` instead.
            raise StorageError(unusable_sqlite(path, _PURPOSE, exc)) from exc
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            _note_unsaved(exc, journal)
            raise
    finally:
        await conn.close()
        journal.close()


async def _connect(path: Path) -> aiosqlite.Connection:
    try:
        conn = await aiosqlite.connect(path)
    except sqlite3.Error as exc:
        raise StorageError(unusable_sqlite(path, _PURPOSE, exc)) from exc
    try:
        # WAL with synchronous=NORMAL: a commit survives a killed process and costs
        # tens of microseconds instead of an fsync.
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        # The WAL is cut back to this size after each copy into the file, so a long run
        # does not leave it at its largest.
        await conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
    except sqlite3.Error as exc:
        await conn.close()
        raise StorageError(unusable_sqlite(path, _PURPOSE, exc)) from exc
    return conn


def _note_unsaved(exc: BaseException, journal: Journal) -> None:
    unsaved = journal.unsaved_calls()
    if unsaved:
        exc.add_note(
            f"{unsaved} paid call(s) could not be written to the run journal {journal.path}"
        )
