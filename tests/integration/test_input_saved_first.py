"""A new run pays for no call before its input is saved, so a run that paid can be resumed.

LangGraph saves a run's checkpoints while the next steps run (`durability="async"`): on a
slow disk or database server the first calls used to start before the run's input was
saved, and a process killed then had paid for calls of a run that did not exist yet.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    MockLLMProvider,
    QualitativeSorter,
    RunStoppedError,
)
from llm_qualitative_sort.stores.sqlite_saver import OneTripSqliteSaver

ITEMS = [str(i * 7 % 101) for i in range(8)]


class Watching(MockLLMProvider):
    """The mock, noting for each call whether the run's input was saved by then."""

    def __init__(self, saved: list[bool]) -> None:
        super().__init__(seed=1)
        self.saved, self.seen = saved, []

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int = 0) -> ComparisonResult:
        self.seen.append(self.saved[0])
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def slow_first_save(monkeypatch: pytest.MonkeyPatch, saved: list[bool],
                    fails: bool = False) -> None:
    """The run's first checkpoint (its input) takes 0.2 s to save, or fails after it."""
    real = OneTripSqliteSaver.aput

    async def aput(self: OneTripSqliteSaver, *args: Any, **kwargs: Any) -> Any:
        if not saved[0]:
            await asyncio.sleep(0.2)
            if fails:
                raise OSError("disk full")
        found = await real(self, *args, **kwargs)
        saved[0] = True
        return found

    monkeypatch.setattr(OneTripSqliteSaver, "aput", aput)


async def test_no_call_starts_before_the_input_is_saved(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    saved = [False]
    slow_first_save(monkeypatch, saved)
    judge = Watching(saved)
    sorter = QualitativeSorter(judge, criteria="larger", seed=3,
                               checkpointer=str(tmp_path / "runs.sqlite3"))
    result = await sorter.sort(ITEMS, run_id="r")
    assert judge.seen and all(judge.seen)  # every call came after the save
    assert result.statistics.total_api_calls == len(judge.seen)
    # A resumed run has its input saved already: it waits for nothing.
    assert (await sorter.resume("r")).rankings == result.rankings


async def test_an_input_that_cannot_be_saved_stops_the_run_before_any_call(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    saved = [False]
    slow_first_save(monkeypatch, saved, fails=True)
    judge = Watching(saved)
    sorter = QualitativeSorter(judge, criteria="larger", seed=3,
                               checkpointer=str(tmp_path / "runs.sqlite3"))
    with pytest.raises(RunStoppedError, match="input could not be saved, so no call was paid "
                       "for: disk full"):
        await sorter.sort(ITEMS, run_id="r")
    assert judge.seen == []


async def test_runs_sharing_a_journal_each_wait_for_their_own_input(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # An in-memory sorter keeps one journal for all its runs: run B starting while run A
    # waits for its input's save must not take A's wait, nor A's save end B's.
    from langgraph.checkpoint.memory import InMemorySaver

    real, slowed = InMemorySaver.aput, set()

    async def aput(self: InMemorySaver, config: Any, *args: Any, **kwargs: Any) -> Any:
        run_id = config["configurable"]["thread_id"]
        if run_id not in slowed:
            slowed.add(run_id)
            await asyncio.sleep(0.2 if run_id == "a" else 0.05)
        return await real(self, config, *args, **kwargs)

    monkeypatch.setattr(InMemorySaver, "aput", aput)
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=3,
                               checkpointer=None)

    async def b_a_little_later() -> Any:
        await asyncio.sleep(0.05)
        return await sorter.sort(ITEMS[:6], run_id="b")

    first, second = await asyncio.wait_for(
        asyncio.gather(sorter.sort(ITEMS, run_id="a"), b_a_little_later()), timeout=30)
    assert first.statistics.total_api_calls > 0 and second.statistics.total_api_calls > 0
