"""`QualitativeSorter`'s arguments that are not a run's settings: checks and the store.

Each check raises before any call, naming the argument. (A run's settings are checked by
`tournament.checks`; its strategy's by its settings class.)
"""

from __future__ import annotations

import os
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from llm_qualitative_sort.errors import SettingTypeError, StorageError
from llm_qualitative_sort.stores import Store, store_for
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.stores.default import CHECKPOINT_VARIABLE, default_checkpointer
from llm_qualitative_sort.tournament.checks import checkpoint_problem

Checkpointer = str | os.PathLike[str] | BaseCheckpointSaver[Any] | None


class _Default:
    def __repr__(self) -> str:
        return "<default: embedded SQLite file>"


DEFAULT_CHECKPOINTER: Any = _Default()


def check_hooks(cache: Any, on_progress: Any) -> None:
    """Refuse a cache that is not a `ComparisonCache`, or a callback that cannot be called."""
    if cache is not None and not isinstance(cache, ComparisonCache):
        raise SettingTypeError(f"cache must be a ComparisonCache, got {type(cache).__name__}")
    if on_progress is not None and not callable(on_progress):
        raise SettingTypeError("on_progress must be callable")


def check_flag(name: str, value: Any) -> bool:
    """`value`, or `TypeError` naming `name` when it is not a bool."""
    if not isinstance(value, bool):
        raise SettingTypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def open_store(checkpointer: Any) -> Store:
    """The store of a `checkpointer=` argument (`DEFAULT_CHECKPOINTER`: the default one).

    Raises:
        StorageError: An empty path, a directory, or a URI of another database.
    """
    named = "checkpointer"
    if checkpointer is DEFAULT_CHECKPOINTER:
        checkpointer = default_checkpointer()
        named = f"the default checkpointer (${CHECKPOINT_VARIABLE} or the data directory)"
    problem = checkpoint_problem(checkpointer)
    if problem is not None:
        raise StorageError(f"{named} {problem}")
    return store_for(checkpointer)
