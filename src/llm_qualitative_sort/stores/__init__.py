"""Where runs are kept, one module per kind of store, chosen once from `checkpointer=`.

`store_for` reads what the user gave: a PostgreSQL URI (`PostgresStore`), a file path
(`SqliteStore`, the default), a LangGraph saver or None (`MemoryStore`). Beside the stores
live what they are built from: the SQLite files a run writes (`sqlite_files`), connections
to PostgreSQL (`postgres_connect`), the comparison cache (`cache`) and the run leases
(`leases/`).
"""

from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.errors import SettingTypeError, StorageError
from llm_qualitative_sort.stores.postgres_connect import is_dsn

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from llm_qualitative_sort.stores.base import (
        BatchRecords,
        Catalog,
        RunJournal,
        Store,
        StoredRuns,
    )
    from llm_qualitative_sort.stores.memory import MemoryStore
    from llm_qualitative_sort.stores.sqlite import SqliteJournal, SqliteStore, journal_path

    Target = str | os.PathLike[str] | BaseCheckpointSaver[Any] | None

__all__ = [
    "BatchRecords", "Catalog", "MemoryStore", "RunJournal", "SqliteJournal", "SqliteStore",
    "Store", "StorageError", "StoredRuns", "is_dsn", "journal_path", "store_for",
]

# The stores load on first use: the command line imports this package for `is_dsn` and the
# SQLite helpers, which must not pay for LangGraph's savers or aiosqlite.
_HOMES = {
    "llm_qualitative_sort.stores.base": (
        "BatchRecords", "Catalog", "RunJournal", "Store", "StoredRuns",
    ),
    "llm_qualitative_sort.stores.memory": ("MemoryStore",),
    "llm_qualitative_sort.stores.sqlite": ("SqliteJournal", "SqliteStore", "journal_path"),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def store_for(target: Target) -> Store:
    """The store for a `checkpointer=` value.

    Raises:
        ImportError: A PostgreSQL URI without the `postgres` extra installed.
        TypeError: Neither a path, a URI, a saver nor None.
    """
    # Here rather than at the top: see `_HOMES`.
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from llm_qualitative_sort.stores.memory import MemoryStore
    from llm_qualitative_sort.stores.sqlite import SqliteStore

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
