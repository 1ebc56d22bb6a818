"""Runs in a LangGraph saver the user gives (or in memory), with the journal in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores.base import Store, settling_saver
from llm_qualitative_sort.stores.leases import LocalRunLease
from llm_qualitative_sort.stores.sqlite import SqliteJournal


class MemoryStore(Store):
    """A saver object and a run journal kept in this process.

    The journal lives as long as the store, so a run stopped in this process resumes here
    without paying again; another process sees neither it nor the lease. For runs shared
    between processes or machines, give a file path or a PostgreSQL DSN instead.

    Args:
        saver: The checkpointer (an `InMemorySaver` when the user gave None).
    """

    def __init__(self, saver: BaseCheckpointSaver[Any] | None = None) -> None:
        self.journal = SqliteJournal()
        # A saver of our own settles the journal after each save; the user's is left as it is
        # (the journal then keeps a run's rows until the run finishes).
        self.saver = saver if saver is not None else settling_saver(InMemorySaver, self.journal)
        self.lease = LocalRunLease(scope=self.saver)

    @property
    def where(self) -> str:
        """The saver's class."""
        return f"this sorter's checkpointer ({type(self.saver).__name__})"

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[tuple[BaseCheckpointSaver[Any], SqliteJournal]]:
        """The saver and the journal, as they are."""
        yield self.saver, self.journal

    def runs(self, *, create: bool = False) -> Any:
        """Not available: only file and database stores can be listed."""
        raise StorageError(f"the runs of {self.where} cannot be listed: give a file or a DSN")

