"""The work each call of a round does beyond its provider's: counted, so it cannot creep back.

Each count is per call over a whole sort (the seeded mock, the SQLite checkpoint and journal
on, as by default); what is checked once per round or per run must not be repeated per call.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort._calls.rate_gate import RateBook
from llm_qualitative_sort.stores._group_commit import GroupCommitJournal

ITEMS = [f"text {i:02d}" for i in range(24)]


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    count = [0]
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return count


async def _sort(tmp_path: Path) -> tuple[int, int]:
    """Calls and rounds of an elimination sort of `ITEMS`."""
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="the larger number", seed=3,
                               checkpointer=tmp_path / "runs.sqlite3")
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
    assert 1 <= waits[0] <= rounds
    assert 1 <= gates[0] <= rounds
