"""A run's elapsed time on the command line: the sum over every process that worked on it.

`Statistics.elapsed_time` is the wall time of the one call that returned the result; after
`sort --resume` that is the resume alone. The command line keeps each process's time with
the run's settings (`elapsed_time`), so that its summary, `sort --out` and `report RUN_ID`
all state the run's total: the first process's time, stopped or not, plus every resume's.
A process killed outright (SIGKILL, a power cut) cannot record its time, so the total then
leaves it out.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from llm_qualitative_sort.cli._inventory import RunSummary
from llm_qualitative_sort.cli._signals import Signalled
from llm_qualitative_sort.errors import ProviderError, RunLockedError, RunStoppedError
from llm_qualitative_sort.models import SortResult

KEY = "elapsed_time"
# Stops after which the process did work on the run that a resume continues (a run held
# by another process, `RunLockedError`, was not worked on here).
WORKED = (asyncio.CancelledError, KeyboardInterrupt, Signalled, ProviderError, RunStoppedError)


def elapsed_before(summary: RunSummary | None) -> float:
    """Seconds the earlier processes of the run spent on it (0 for a new run)."""
    if summary is None:
        return 0.0
    try:
        return max(float(summary.settings.get(KEY, 0.0)), 0.0)
    except (TypeError, ValueError):  # a hand-edited or foreign value: not counted
        return 0.0


def with_earlier(settings: dict[str, Any], before: float) -> dict[str, Any]:
    """The settings to store, still holding the earlier processes' time."""
    return {**settings, KEY: before} if before else settings


def total(result: SortResult, before: float) -> SortResult:
    """`result` whose `elapsed_time` adds the earlier processes' time to this one's."""
    if not before:
        return result
    stats = dataclasses.replace(result.statistics,
                                elapsed_time=before + result.statistics.elapsed_time)
    return dataclasses.replace(result, statistics=stats)


def worked(error: BaseException) -> bool:
    """Whether the process stopped by `error` spent time on the run that counts."""
    return isinstance(error, WORKED) and not isinstance(error, RunLockedError)


async def record_quietly(record: Any, seconds: float) -> None:
    """Record a stopped process's time; a failure to do so must not hide why it stopped."""
    with contextlib.suppress(Exception):
        await record(seconds)
