"""Run ids, resuming in-process, and clean stops (provider failure, callback error, Ctrl-C)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import (
    ComparisonResult,
    MockLLMProvider,
    PermanentProviderError,
    ProgressEvent,
    QualitativeSorter,
    RunMismatchError,
    RunStoppedError,
    default_checkpoint_path,
)

ITEMS = [str(i) for i in range(0, 90, 3)]


class BreaksAfter(MockLLMProvider):
    """A judge whose key is revoked after `limit` calls."""

    def __init__(self, limit: int | None, **kwargs: object) -> None:
        super().__init__(seed=1, **kwargs)  # type: ignore[arg-type]
        self.limit = limit

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        if self.limit is not None and self.calls >= self.limit:
            raise PermanentProviderError("401: invalid API key")
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def _sorter(provider: MockLLMProvider, path: Path, **kwargs: object) -> QualitativeSorter:
    return QualitativeSorter(
        provider,
        criteria="larger",
        seed=9,
        max_concurrent_requests=4,
        checkpointer=path,
        **kwargs,  # type: ignore[arg-type]
    )


async def _reference(tmp_path: Path) -> tuple[list[tuple[int, list[str]]], int]:
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, tmp_path / "ref.sqlite3").sort(ITEMS)
    return result.rankings, judge.calls


async def test_permanent_error_stops_with_run_id_and_resume_finishes(tmp_path: Path) -> None:
    rankings, calls = await _reference(tmp_path)
    broken = BreaksAfter(limit=calls // 2)
    with pytest.raises(RunStoppedError, match="invalid API key") as stopped:
        await _sorter(broken, tmp_path / "r.sqlite3").sort(ITEMS, run_id="r1")
    assert stopped.value.run_id == "r1"
    assert "resume" in str(stopped.value)
    healthy = MockLLMProvider(seed=1)
    result = await _sorter(healthy, tmp_path / "r.sqlite3").resume("r1")
    assert result.rankings == rankings
    assert result.run_id == "r1"
    assert broken.calls + healthy.calls <= calls + 4


async def test_callback_error_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    rankings, calls = await _reference(tmp_path)
    seen: list[ProgressEvent] = []

    def fragile(event: ProgressEvent) -> None:
        seen.append(event)
        if event.completed >= 20:
            raise RuntimeError("callback bug")

    judge = MockLLMProvider(seed=1)
    with pytest.raises(RunStoppedError, match="callback bug"):
        await _sorter(judge, tmp_path / "r.sqlite3", on_progress=fragile).sort(ITEMS, run_id="r2")
    again = MockLLMProvider(seed=1)
    result = await _sorter(again, tmp_path / "r.sqlite3").sort(ITEMS, run_id="r2")
    assert result.rankings == rankings
    assert judge.calls + again.calls <= calls + 4


async def test_cancellation_keeps_finished_calls_and_resume_finishes(tmp_path: Path) -> None:
    rankings, calls = await _reference(tmp_path)
    judge = MockLLMProvider(seed=1, latency=0.005)
    task = asyncio.create_task(_sorter(judge, tmp_path / "r.sqlite3").sort(ITEMS, run_id="r3"))
    while judge.calls < calls // 2:
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as cancelled:
        await task
    assert any("r3" in note for note in getattr(cancelled.value, "__notes__", []))
    assert getattr(cancelled.value, "run_id", None) == "r3"
    again = MockLLMProvider(seed=1)
    result = await _sorter(again, tmp_path / "r.sqlite3").resume("r3")
    assert result.rankings == rankings
    assert judge.calls + again.calls <= calls + 4


async def test_finished_run_returns_stored_result_without_calls(tmp_path: Path) -> None:
    first = await _sorter(MockLLMProvider(seed=1), tmp_path / "r.sqlite3").sort(ITEMS)
    assert first.run_id
    judge = MockLLMProvider(seed=1)
    again = await _sorter(judge, tmp_path / "r.sqlite3").sort(list(reversed(ITEMS)), first.run_id)
    assert judge.calls == 0
    assert again.rankings == first.rankings
    assert again.match_history == first.match_history
    resumed = await _sorter(judge, tmp_path / "r.sqlite3").resume(first.run_id)
    assert judge.calls == 0 and resumed.rankings == first.rankings


async def test_reusing_a_run_id_for_other_items_or_settings_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    await _sorter(MockLLMProvider(seed=1), path).sort(ITEMS, run_id="r4")
    judge = MockLLMProvider(seed=1)
    with pytest.raises(RunMismatchError, match="other items"):
        await _sorter(judge, path).sort(ITEMS[:-1], run_id="r4")
    with pytest.raises(RunMismatchError, match="criteria"):
        await QualitativeSorter(judge, criteria="smaller", checkpointer=path).sort(ITEMS, "r4")
    with pytest.raises(KeyError, match="no run"):
        await _sorter(judge, path).resume("never-started")
    assert judge.calls == 0


async def test_default_checkpointer_is_an_sqlite_file_in_the_user_dir() -> None:
    path = default_checkpoint_path()
    assert not path.exists()
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1)
    result = await sorter.sort(ITEMS[:6])
    assert path.exists()
    resumed = await QualitativeSorter(MockLLMProvider(seed=1), criteria="larger").resume(
        result.run_id
    )
    assert resumed.rankings == result.rankings


async def test_any_langgraph_saver_works_and_resumes(tmp_path: Path) -> None:
    saver = InMemorySaver()
    judge = BreaksAfter(limit=10)
    sorter = QualitativeSorter(judge, criteria="larger", seed=9, checkpointer=saver)
    with pytest.raises(RunStoppedError):
        await sorter.sort(ITEMS, run_id="mem")
    judge.limit = None
    result = await sorter.resume("mem")
    rankings, _ = await _reference(tmp_path)
    assert result.rankings == rankings


async def test_a_finished_run_leaves_no_journal_rows(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "r.sqlite3"
    result = await _sorter(MockLLMProvider(seed=1), path).sort(ITEMS, run_id="done")
    with sqlite3.connect(tmp_path / "r.journal.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM calls").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM pairings").fetchone() == (0,)
    again = await _sorter(MockLLMProvider(seed=1), path).sort(ITEMS, run_id="done")
    assert again.match_history == result.match_history


async def test_transient_failures_beyond_the_retries_stop_and_resume_finishes(
    tmp_path: Path,
) -> None:
    from langgraph.types import RetryPolicy

    from llm_qualitative_sort import TransientProviderError

    rankings, calls = await _reference(tmp_path)
    quick = RetryPolicy(
        initial_interval=0.001,
        max_interval=0.001,
        max_attempts=3,
        jitter=False,
        retry_on=TransientProviderError,
    )
    outage = MockLLMProvider(seed=1, failure_rate=1.0)
    with pytest.raises(RunStoppedError, match="transient") as stopped:
        await _sorter(outage, tmp_path / "r.sqlite3", retry_policy=quick).sort(ITEMS, "r5")
    assert stopped.value.run_id == "r5"
    assert outage.calls <= 3 * 4  # 3 attempts for each of the calls in flight, no more
    healthy = MockLLMProvider(seed=1)
    result = await _sorter(healthy, tmp_path / "r.sqlite3").resume("r5")
    assert result.rankings == rankings
    assert result.statistics.total_api_calls == calls  # the outage cost no item a loss


async def test_without_a_seed_the_run_id_fixes_the_pairing(tmp_path: Path) -> None:
    def unseeded() -> QualitativeSorter:
        return QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None)

    one = await unseeded().sort(ITEMS, run_id="same-id")
    two = await unseeded().sort(ITEMS, run_id="same-id")
    other = await unseeded().sort(ITEMS, run_id="other-id")
    assert one.match_history == two.match_history
    assert one.match_history != other.match_history
