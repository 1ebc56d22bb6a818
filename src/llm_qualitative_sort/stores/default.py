"""Where runs are kept by default; the stores themselves are in `stores/`."""

from __future__ import annotations

import os
from pathlib import Path

from llm_qualitative_sort.stores import Store, journal_path, store_for

HOME_VARIABLE = "LLM_QUALITATIVE_SORT_HOME"
CHECKPOINT_VARIABLE = "LLM_QUALITATIVE_SORT_CHECKPOINT"

__all__ = ["CHECKPOINT_VARIABLE", "HOME_VARIABLE", "Store", "default_checkpoint_path",
           "default_checkpointer", "journal_path", "store_for"]


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


def default_checkpointer() -> str | Path:
    """Where runs go when `checkpointer=` is not given.

    `$LLM_QUALITATIVE_SORT_CHECKPOINT` if set (a file path or a `postgresql://` URI, so
    every worker of a deployment can be pointed at one database), else
    `default_checkpoint_path()`.
    """
    given = os.environ.get(CHECKPOINT_VARIABLE)
    if given:
        return given
    return default_checkpoint_path()
