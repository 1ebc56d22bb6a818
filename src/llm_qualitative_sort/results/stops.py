"""Why a run stopped, in words: what failed, which judge, and what could not be saved."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from llm_qualitative_sort.errors import DamagedJournalError, describe
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.stores import sqlite as sqlite_store
from llm_qualitative_sort.stores.base import RunJournal
from llm_qualitative_sort.stores.sqlite_files import held_lock, is_busy


def name_judge(exc: BaseException, judge: LLMProvider) -> None:
    """Mark `exc` with the judge whose call failed for good (one judge of a panel, say)."""
    try:
        exc.failed_judge = judge  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an exception type that refuses attributes
        pass  # the stop then names the run's provider


def stop_reason(
    exc: BaseException, provider: LLMProvider, journal: RunJournal, checkpoint: Path | None
) -> str:
    """The message of the `RunStoppedError` that `exc` stopped a run with.

    Counts the paid calls the journal could not write only now, once every call in flight
    has finished: the journal may have failed for more of them after `exc` was raised.
    """
    if isinstance(exc, DamagedJournalError):
        # The judge has no part in it, and the way on is the error's `first` step.
        return f"run stopped: {exc.damage}"
    reason = f"run stopped: {describe(exc)}"
    if isinstance(exc, sqlite3.Error) and checkpoint is not None:
        # Not the disk: another process keeps the file's write lock (see `held_lock`).
        why = f": {held_lock(sqlite_store.BUSY_SECONDS)}" if is_busy(exc) else ""
        reason += f" (writing the checkpoint {checkpoint}{why})"
    judge = getattr(exc, "failed_judge", None)
    reason += f"; judge {judge if isinstance(judge, LLMProvider) else provider!r}"
    unsaved = journal.unsaved_calls()
    if unsaved:
        where = "" if journal.where in reason else f" {journal.where}"
        reason += (
            f"; {unsaved} paid {'call' if unsaved == 1 else 'calls'} could not be written to "
            f"the run journal{where}"
            " (resuming pays again for those whose round had not finished)"
        )
    return reason
