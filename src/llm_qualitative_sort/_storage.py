"""Where runs are kept: the checkpointer and the run journal beside it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort._journal import Journal

HOME_VARIABLE = "LLM_QUALITATIVE_SORT_HOME"


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


class RunStore:
    """Opens a checkpointer and its journal for the length of one run call.

    Args:
        target: An SQLite file path, a LangGraph saver, or None (in memory, kept by this
            object so a run can be resumed within the process).
    """

    def __init__(self, target: str | os.PathLike[str] | BaseCheckpointSaver[Any] | None) -> None:
        self.path: Path | None = None
        self._saver: BaseCheckpointSaver[Any] | None = None
        self._journal = Journal()
        if target is None:
            self._saver = InMemorySaver()
        elif isinstance(target, BaseCheckpointSaver):
            self._saver = target
        else:
            self.path = Path(target)

    @asynccontextmanager
    async def open(self) -> AsyncIterator[tuple[BaseCheckpointSaver[Any], Journal]]:
        """The saver and journal to use; an SQLite file is opened and closed here."""
        if self.path is None:
            assert self._saver is not None
            yield self._saver, self._journal
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # The journal has a file of its own: a synchronous writer on the saver's file would
        # wait for the lock that the saver's connection holds across an `await` (deadlock).
        journal = Journal(journal_path(self.path))
        conn = await aiosqlite.connect(self.path)
        try:
            # WAL with synchronous=NORMAL: a commit survives a killed process and costs
            # tens of microseconds instead of an fsync.
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("PRAGMA synchronous=NORMAL")
            yield AsyncSqliteSaver(conn), journal
        finally:
            await conn.close()
            journal.close()
