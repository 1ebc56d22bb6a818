from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from llm_qualitative_sort import (
    CacheError,
    CacheKey,
    ComparisonResult,
    FileCache,
    MemoryCache,
    MockLLMProvider,
    QualitativeSorter,
    RunStoppedError,
)

ITEMS = [str(i) for i in range(0, 60, 3)]


def _sorter(provider: MockLLMProvider, cache: object, **kwargs: object) -> QualitativeSorter:
    return QualitativeSorter(
        provider,
        criteria="larger",
        seed=3,
        checkpointer=None,
        cache=cache,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("make_cache", [MemoryCache, "file"])
async def test_warm_cache_makes_zero_calls_and_flags_hits(
    tmp_path: Path, make_cache: object
) -> None:
    cache = FileCache(tmp_path / "c") if make_cache == "file" else MemoryCache()
    first_judge = MockLLMProvider(seed=1)
    first = await _sorter(first_judge, cache).sort(ITEMS)
    # A rematch in the same order within the run is already a hit.
    assert first.statistics.total_api_calls == first_judge.calls > 0
    calls_in_history = sum(len(m.rounds) for m in first.match_history)

    second_judge = MockLLMProvider(seed=1)
    second = await _sorter(second_judge, cache).sort(ITEMS)
    assert second_judge.calls == 0
    assert second.statistics.total_api_calls == 0
    assert second.statistics.cache_hits == calls_in_history
    assert all(r.cached for m in second.match_history for r in m.rounds)
    assert second.rankings == first.rankings


async def test_file_cache_survives_the_process_object(tmp_path: Path) -> None:
    await _sorter(MockLLMProvider(seed=1), FileCache(tmp_path)).sort(ITEMS)
    judge = MockLLMProvider(seed=1)
    await _sorter(judge, FileCache(tmp_path)).sort(ITEMS)
    assert judge.calls == 0


async def test_repetitions_are_separate_calls() -> None:
    cache = MemoryCache()
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, cache, comparison_rounds=4).sort(ITEMS)
    assert judge.calls == 4 * result.statistics.total_matches - result.statistics.cache_hits
    repetitions = {(r.order) for m in result.match_history for r in m.rounds}
    assert repetitions == {"AB", "BA"}
    assert all(len(m.rounds) == 4 for m in result.match_history)


async def test_another_model_never_reuses_answers() -> None:
    alone = await _sorter(MockLLMProvider(seed=2), MemoryCache()).sort(ITEMS)
    cache = MemoryCache()
    await _sorter(MockLLMProvider(seed=1), cache).sort(ITEMS)
    other = MockLLMProvider(seed=2)
    result = await _sorter(other, cache).sort(ITEMS)
    assert result.statistics == alone.statistics.__class__(
        **{**vars(alone.statistics), "elapsed_time": result.statistics.elapsed_time}
    )
    assert other.calls == alone.statistics.total_api_calls


def test_key_fields_cannot_collide_through_delimiters() -> None:
    one = CacheKey.of("a|b", "c", "k", 0, "m")
    two = CacheKey.of("a", "b|c", "k", 0, "m")
    assert one.digest != two.digest
    assert CacheKey.of("a", "b", "k", 0, "m").digest != CacheKey.of("b", "a", "k", 0, "m").digest
    assert CacheKey.of("a", "b", "k", 0, "m").digest != CacheKey.of("a", "b", "k", 1, "m").digest
    assert CacheKey.of("a", "b", "k", 0, "m").digest != CacheKey.of("a", "b", "k", 0, "n").digest


class _NoVerdict(MockLLMProvider):
    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        self.calls += 1
        return ComparisonResult(winner=None, reasoning="refused")


async def test_calls_without_verdict_are_never_cached_and_are_visible() -> None:
    cache = MemoryCache()
    result = await _sorter(_NoVerdict(seed=1), cache).sort(ITEMS[:4])
    assert len(cache) == 0
    assert result.statistics.failed_calls == 2 * result.statistics.total_matches
    assert result.statistics.draws == result.statistics.total_matches
    assert all(r.winner is None for m in result.match_history for r in m.rounds)


async def test_transient_failures_are_retried_and_never_cached() -> None:
    from langgraph.types import RetryPolicy

    fast = RetryPolicy(
        initial_interval=0.001,
        max_interval=0.002,
        max_attempts=20,
        jitter=False,
        retry_on=Exception,
    )
    flaky, steady = MockLLMProvider(seed=1, failure_rate=0.3), MockLLMProvider(seed=1)
    cache = MemoryCache()
    a = await _sorter(flaky, cache, retry_policy=fast).sort(ITEMS)
    b = await _sorter(steady, None).sort(ITEMS)
    assert a.rankings == b.rankings
    assert flaky.calls > a.statistics.total_api_calls  # failed attempts happened
    assert len(cache) == a.statistics.total_api_calls


def test_corrupt_cache_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "comparisons.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match="comparisons.sqlite3"):
        FileCache(tmp_path)


@pytest.mark.parametrize("spoil", ["directory is a file", "database is a directory"])
def test_unusable_cache_paths_are_named(tmp_path: Path, spoil: str) -> None:
    root = tmp_path / "cache"
    if spoil == "directory is a file":
        root.write_text("not a directory")
    else:
        (root / "comparisons.sqlite3").mkdir(parents=True)
    with pytest.raises(CacheError, match=str(root)):
        FileCache(root)


async def test_corrupt_entry_is_a_clear_error(tmp_path: Path) -> None:
    cache = FileCache(tmp_path)
    key = CacheKey.of("1", "2", "larger", 0, "m")
    await cache.set(key, ComparisonResult(winner="A", reasoning="r"))
    with sqlite3.connect(cache.path) as conn:
        conn.execute("UPDATE comparisons SET value = '{broken'")
    with pytest.raises(CacheError, match="comparisons.sqlite3"):
        await cache.get(key)


async def test_a_cache_another_process_keeps_locked_stops_the_run_after_one_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llm_qualitative_sort.stores import sqlite_files

    monkeypatch.setattr(sqlite_files, "BUSY_SECONDS", 0.2)
    cache = FileCache(tmp_path / "c")
    statements: list[str] = []
    cache._table._conn.set_trace_callback(statements.append)
    other = sqlite3.connect(cache.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a process stopped inside a write keeps the lock
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=3,
                               checkpointer=tmp_path / "runs.sqlite3", cache=cache,
                               max_concurrent_requests=10)
    try:
        with pytest.raises(RunStoppedError) as stopped:
            await sorter.sort(ITEMS, run_id="r")
    finally:
        other.rollback()
        other.close()
    message = str(stopped.value)
    assert "another process kept it locked for more than 0.2 s" in message
    assert "`fg`" in message and "database is locked" not in message
    writes = [i for i, s in enumerate(statements) if s.startswith("INSERT OR REPLACE")]
    waited = [i for i in writes if statements[i - 1] != "PRAGMA busy_timeout=0"]
    assert len(writes) > 1, "several calls were in flight when the first write failed"
    assert waited == writes[:1], "only the first write waited for the lock"
    resumed = await sorter.resume("r")  # the lock is free: the run finishes, caching again
    assert resumed.statistics.total_api_calls > 0
    assert statements[-1] != "PRAGMA busy_timeout=0"
    assert cache._table._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 200
