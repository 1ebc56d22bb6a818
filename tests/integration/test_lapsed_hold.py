"""A holder whose lease lapsed while it waited starts no paid call (SQLite journal and lease).

Two kinds of wait lie between a holder's check of its lease and a call's request: the answer
to the renewal that the check sends once the fence's deadline has passed, and, for a call
tried again, the retry's backoff or the pause for the rate limit. A process suspended
through either (Ctrl-Z, SIGSTOP, a paused VM) for longer than the lease's TTL may wake to
find its run taken over. The suspension is simulated, not timed: the fence's monotonic clock
is moved past the TTL and another holder is written on the lease row, as a takeover during
the suspension leaves them.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    RateLimitedError,
    RunLockedError,
    StorageError,
    TransientProviderError,
)
from llm_qualitative_sort._calls.judge import Judge
from llm_qualitative_sort._calls.rate_gate import RateBook
from llm_qualitative_sort.stores.entries import CallPlace
from llm_qualitative_sort.stores.leases import SqliteRunLease
from llm_qualitative_sort.stores.leases._fence import Fence
from llm_qualitative_sort.stores.sqlite import SqliteJournal
from llm_qualitative_sort.testing import FunctionProvider

TTL = 60.0  # the heartbeat task sleeps through each test: only the journal renews the lease
PLACE = CallPlace("run-1", 1, 0, 0, "a", "b", "a|b")
RETRY = RetryPolicy(initial_interval=0.01, max_attempts=3, jitter=False,
                    retry_on=TransientProviderError)


def _lapse(fence: Fence, path: Path) -> None:
    """What a suspension past the TTL leaves: a late clock, and another process holding."""
    fence.confirmed -= TTL
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE leases SET host = 'elsewhere', pid = 4242, token = 'other', "
                     "heartbeat = ? WHERE run_id = 'run-1'", (time.time(),))
    conn.close()


class _LateAnswers(SqliteJournal):
    """A journal whose next `late` commits are answered after the fence's deadline."""

    late = 0
    commits = 0
    path_of_lapse: Path | None = None  # set: the run is taken over during the first one

    def _commit(self) -> None:
        super()._commit()
        self.commits += 1
        if self.late and self._fence is not None:
            self.late -= 1
            if self.path_of_lapse is not None:
                _lapse(self._fence, self.path_of_lapse)
                self.path_of_lapse = None
            else:
                self._fence.confirmed -= TTL


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[tuple[_LateAnswers, Fence, Path]]:
    path = tmp_path / "runs.journal.sqlite3"
    lease = SqliteRunLease(path, TTL)
    async with lease.hold("run-1") as me:
        journal = _LateAnswers(path)
        fence = lease.fence(me)
        journal.fence(fence)
        try:
            yield journal, fence, path
        finally:
            journal.close()


def _judge(journal: SqliteJournal, answer: object, **extra: object) -> Judge:
    return Judge(provider=FunctionProvider(answer, model="counted"),  # type: ignore[arg-type]
                 criteria="larger", cache=None, journal=journal, retry=RETRY,
                 stop=asyncio.Event(), **extra)  # type: ignore[arg-type]


async def test_a_renewal_answered_after_a_takeover_lets_no_paid_call_start(
    held: tuple[_LateAnswers, Fence, Path],
) -> None:
    journal, fence, path = held
    paid: list[str] = []
    judge = _judge(journal, lambda a, b, criteria: paid.append(a) or "A")
    fence.confirmed -= TTL  # past its deadline: the judge renews before it pays
    journal.late, journal.path_of_lapse = 1, path
    with pytest.raises(RunLockedError, match="taken over by pid 4242"):
        await judge.call(PLACE, 0)
    assert paid == []


async def test_renewals_that_keep_coming_back_late_stop_the_run_before_a_paid_call(
    held: tuple[_LateAnswers, Fence, Path],
) -> None:
    journal, fence, path = held
    paid: list[str] = []
    judge = _judge(journal, lambda a, b, criteria: paid.append(a) or "A")
    fence.confirmed -= TTL
    journal.late = 10  # the store is up and keeps the run, but every answer is late
    with pytest.raises(StorageError, match=rf"{path}.* cannot be sure it still holds"):
        await judge.call(PLACE, 0)
    assert paid == [] and journal.commits == 3 and not fence.lost


async def test_one_late_renewal_is_asked_again_and_the_call_goes_on(
    held: tuple[_LateAnswers, Fence, Path],
) -> None:
    journal, fence, _path = held
    judge = _judge(journal, lambda a, b, criteria: "A")
    fence.confirmed -= TTL
    journal.late = 1  # e.g. a suspension shorter than the TTL: nobody took the run
    result, cached, _facts = await judge.call(PLACE, 0)
    assert result.winner == "A" and not cached
    assert journal.commits >= 2 and not fence.lost


async def test_a_run_taken_over_during_a_retry_backoff_is_not_asked_again(
    held: tuple[_LateAnswers, Fence, Path],
) -> None:
    journal, fence, path = held
    paid: list[str] = []

    def flaky(a: str, b: str, criteria: str) -> str:
        paid.append(a)
        _lapse(fence, path)  # suspended from here through the backoff
        raise TransientProviderError("server busy")

    judge = _judge(journal, flaky)
    with pytest.raises(RunLockedError, match="taken over by pid 4242"):
        await judge.call(PLACE, 0)
    assert paid == ["a"]  # the attempt before the takeover only
    assert judge.stop.is_set()


async def test_a_run_taken_over_during_a_rate_limit_pause_is_not_asked_again(
    held: tuple[_LateAnswers, Fence, Path],
) -> None:
    journal, fence, path = held
    paid: list[str] = []

    def limited(a: str, b: str, criteria: str) -> ComparisonResult:
        paid.append(a)
        if len(paid) > 1:
            return ComparisonResult("A", "")
        _lapse(fence, path)  # suspended from here through the pause
        raise RateLimitedError("429", retry_after=0.01)

    judge = _judge(journal, limited, rates=RateBook(), ceiling=1)
    with pytest.raises(RunLockedError, match="taken over by pid 4242"):
        await judge.call(PLACE, 0)
    assert paid == ["a"]
    assert paid == ["a"]


async def test_a_taken_over_run_is_not_tried_again_by_a_policy_that_retries_everything(
    held: tuple[_LateAnswers, Fence, Path],
) -> None:
    journal, fence, path = held
    paid: list[str] = []

    def flaky(a: str, b: str, criteria: str) -> str:
        paid.append(a)
        _lapse(fence, path)
        raise TransientProviderError("server busy")

    judge = _judge(journal, flaky)
    # A short first backoff, then an hour: a lost lease must not be waited on and retried.
    judge.retry = RetryPolicy(initial_interval=0.01, backoff_factor=360_000.0,
                              max_interval=3600.0, max_attempts=5, jitter=False,
                              retry_on=Exception)
    with pytest.raises(RunLockedError, match="taken over by pid 4242") as raised:
        await asyncio.wait_for(judge.call(PLACE, 0), 60)
    assert paid == ["a"]
    assert not hasattr(raised.value, "failed_judge")  # the stop does not blame the judge
