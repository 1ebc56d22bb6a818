"""Where runs are kept, one module per kind of store, chosen once from `checkpointer=`.

`store_for` reads what the user gave: a PostgreSQL URI (`PostgresStore`), a file path
(`SqliteStore`, the default), a LangGraph saver or None (`MemoryStore`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from llm_qualitative_sort._postgres import is_dsn
from llm_qualitative_sort.errors import SettingTypeError, StorageError
from llm_qualitative_sort.stores.base import (
    BatchRecords,
    Catalog,
    RunJournal,
    Store,
    StoredRuns,
)
from llm_qualitative_sort.stores.memory import MemoryStore
from llm_qualitative_sort.stores.sqlite import SqliteJournal, SqliteStore, journal_path

__all__ = [
    "BatchRecords", "Catalog", "MemoryStore", "RunJournal", "SqliteJournal", "SqliteStore",
    "Store", "StorageError", "StoredRuns", "is_dsn", "journal_path", "store_for",
]

Target = str | os.PathLike[str] | BaseCheckpointSaver[Any] | None


def store_for(target: Target) -> Store:
    """The store for a `checkpointer=` value.

    Raises:
        ImportError: A PostgreSQL URI without the `postgres` extra installed.
        TypeError: Neither a path, a URI, a saver nor None.
    """
    if target is None:
        return MemoryStore()
    if isinstance(target, BaseCheckpointSaver):
        return MemoryStore(target)
    if is_dsn(target):
        from llm_qualitative_sort.stores.postgres import PostgresStore

        return PostgresStore(str(target))
    if isinstance(target, (str, os.PathLike)):
        return SqliteStore(Path(target))
    raise SettingTypeError(
               "checkpointer must be a file path, a postgresql:// URI, a LangGraph "
               f"BaseCheckpointSaver or None, got {type(target).__name__}"
           )
