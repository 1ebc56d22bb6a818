"""The work each call of a round does beyond its provider's: counted, so it cannot creep back.

Each count is per call over a whole sort (the seeded mock, the SQLite checkpoint and journal
on, as by default); what is checked once per round or per run must not be repeated per call.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import RetryPolicy

import llm_qualitative_sort._calls.judge as judge_module
from llm_qualitative_sort import (
    MockLLMProvider,
    QualitativeSorter,
    RunStoppedError,
    TransientProviderError,
)
from llm_qualitative_sort._calls.rate_gate import RateBook
from llm_qualitative_sort.stores._group_commit import GroupCommitJournal
from llm_qualitative_sort.tournament.records import CallRecord

ITEMS = [f"text {i:02d}" for i in range(24)]


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    count = [0]
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return count


IN_FLIGHT = 4


async def _sort(tmp_path: Path) -> tuple[int, int]:
    """Calls and rounds of an elimination sort of `ITEMS`."""
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="the larger number", seed=3,
                               checkpointer=tmp_path / "runs.sqlite3",
                               max_concurrent_requests=IN_FLIGHT)
    result = await sorter.sort(ITEMS)
    return result.statistics.total_api_calls, result.statistics.rounds


async def test_a_calls_task_is_looked_up_once_per_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The call's deadline needs its task; the cancellations pending before the call come
    # with it, and an answered call gives its slot back without looking its task up.
    looked_up = _counting(monkeypatch, asyncio, "current_task")
    calls, _ = await _sort(tmp_path)
    assert calls > 50
    assert looked_up[0] <= calls + 20  # a few for the run itself, not per call


async def test_the_runs_input_and_rate_gate_are_looked_up_once_per_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits = _counting(monkeypatch, GroupCommitJournal, "input_saved")
    gates = _counting(monkeypatch, RateBook, "gate")
    calls, rounds = await _sort(tmp_path)
    assert calls > 50
    # Once per round, and in the first round once per call started before the input's
    # save ended (at most the calls in flight).
    assert 1 <= waits[0] <= rounds + IN_FLIGHT - 1
    assert 1 <= gates[0] <= rounds



async def test_a_call_without_facts_is_stored_and_read_without_a_record_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each answer is written straight to its stored form, a closing match reads its
    # calls' verdicts from it, and the run's counts build the records they read directly.
    read = [0]
    real_read = CallRecord.read

    def counted_read(cls: type[CallRecord], stored: Any) -> CallRecord:
        read[0] += 1
        return real_read(stored)

    monkeypatch.setattr(CallRecord, "read", classmethod(counted_read))
    written = _counting(monkeypatch, CallRecord, "stored")
    calls, _ = await _sort(tmp_path)
    assert calls > 50
    assert (read[0], written[0]) == (0, 0)

class _Prompt(MockLLMProvider):
    """A user's provider that says its calls end when cancelled."""

    cancels_promptly = True


class _PromptChild(_Prompt):
    """A subclass of it that does not say so itself (it might swallow a cancel)."""


@pytest.mark.parametrize(("provider", "own_tasks"), [(_Prompt, False), (_PromptChild, True)])
async def test_a_provider_that_says_it_cancels_promptly_runs_in_the_calls_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: type[MockLLMProvider],
    own_tasks: bool,
) -> None:
    started = _counting(monkeypatch, judge_module, "provider_task")
    sorter = QualitativeSorter(provider(seed=1), criteria="the larger number", seed=3,
                               checkpointer=tmp_path / "runs.sqlite3")
    result = await sorter.sort(ITEMS[:8])
    assert started[0] == (result.statistics.total_api_calls if own_tasks else 0)


async def test_a_provider_awaited_in_the_calls_task_is_still_cut_off_by_call_timeout() -> None:
    sorter = QualitativeSorter(
        _Prompt(seed=1, latency=5.0), criteria="the larger number", seed=3, checkpointer=None,
        call_timeout=0.02,
        retry_policy=RetryPolicy(initial_interval=0.001, max_interval=0.001, max_attempts=2,
                                 jitter=False, retry_on=TransientProviderError))
    with pytest.raises(RunStoppedError, match=r"gave no answer within call_timeout=0\.02"):
        await sorter.sort(["a", "b"])
