"""The pipelined schedule: progress, cache, streaming, the graph's input, refusals, accuracy."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import (
    EventType,
    MemoryCache,
    MockLLMProvider,
    ProgressEvent,
    QualitativeSorter,
    RunMismatchError,
    SortResult,
)
from llm_qualitative_sort.graph import TournamentContext, build_graph
from llm_qualitative_sort.metrics import kendall_tau

ITEMS = [str(n) for n in range(0, 300, 7)]  # 43 items: odd, so lone players float


def _sorter(**settings: Any) -> QualitativeSorter:
    settings.setdefault("provider", MockLLMProvider(seed=11, latency=(0.0, 0.004)))
    return QualitativeSorter(settings.pop("provider"), criteria="larger", seed=5,
                             checkpointer=None, schedule="pipelined",
                             max_concurrent_requests=6, **settings)


async def test_progress_events_stay_consistent() -> None:
    events: list[ProgressEvent] = []
    result = await _sorter(on_progress=events.append, elimination_count=3).sort(ITEMS)
    assert all(0 <= e.completed <= e.total for e in events)
    completed = [e.completed for e in events]
    assert completed == sorted(completed)
    assert events[-1].completed == events[-1].total == result.statistics.total_matches
    ends = [e for e in events if e.type == EventType.MATCH_END]
    assert len(ends) == result.statistics.total_matches
    assert sum(e.type == EventType.MATCH_START for e in events) == len(ends)
    # Every player ends with at most N losses; one is left standing.
    losses = {item: 0 for item in ITEMS}
    for match in result.match_history:
        for item, side in ((match.item_a, "A"), (match.item_b, "B")):
            losses[item] += match.winner != side
    assert max(losses.values()) <= 3
    assert sum(lost < 3 for lost in losses.values()) == 1


async def test_a_second_run_is_answered_by_the_cache() -> None:
    cache = MemoryCache()
    first = await _sorter(cache=cache).sort(ITEMS)
    judge = MockLLMProvider(seed=11)
    second = await _sorter(cache=cache, provider=judge).sort(ITEMS)
    # Pairings follow completion order, so the second run may meet new pairs; what it
    # met before comes from the cache.
    assert second.statistics.cache_hits > 0
    assert judge.calls == second.statistics.total_api_calls
    assert first.statistics.total_api_calls > 0


async def test_astream_yields_events_then_the_result() -> None:
    seen = [item async for item in _sorter().astream(ITEMS)]
    assert isinstance(seen[-1], SortResult)
    assert all(isinstance(item, ProgressEvent) for item in seen[:-1])
    assert sorted(item for _, group in seen[-1].rankings for item in group) == sorted(ITEMS)
    assert len(seen) > 2 * len(ITEMS)


async def test_the_graph_takes_the_schedule_as_input_as_studio_sends_it() -> None:
    graph = build_graph(InMemorySaver())
    config = {"configurable": {"thread_id": "studio"}}
    output = await graph.ainvoke(
        {"items": ITEMS, "criteria": "larger", "schedule": "pipelined", "seed": 1},
        config, context=TournamentContext(provider="mock", max_concurrent_requests=4))
    stats = output["statistics"]
    assert stats["total_matches"] + stats["draws"] >= 2 * len(ITEMS) - 2, stats  # N·n − N
    assert sorted(i for _, group in output["rankings"] for i in group) == sorted(ITEMS)
    state = await graph.aget_state(config)
    assert state.values["schedule"] == "pipelined"
    assert "seqs" in state.values["history"][0]


async def test_unknown_schedule_swiss_and_batch_are_refused_before_any_call() -> None:
    judge = MockLLMProvider(seed=1)
    with pytest.raises(ValueError, match="schedule must be one of 'rounds', 'pipelined'"):
        QualitativeSorter(judge, criteria="c", schedule="eager")
    with pytest.raises(ValueError, match="cannot play strategy='swiss'"):
        QualitativeSorter(judge, criteria="c", strategy="swiss", schedule="pipelined")

    class Batching(MockLLMProvider):
        def batch_client(self) -> object:
            return object()

    with pytest.raises(ValueError, match="needs live calls"):
        QualitativeSorter(Batching(seed=1), criteria="c", schedule="pipelined")
    assert judge.calls == 0


async def test_a_resumed_run_keeps_its_schedule() -> None:
    sorter = _sorter()
    result = await sorter.sort(ITEMS, run_id="kept")
    plain = QualitativeSorter(MockLLMProvider(seed=11), criteria="larger", seed=5,
                              checkpointer=None)
    plain._store = sorter._store  # the same in-memory runs
    with pytest.raises(RunMismatchError, match="schedule=.pipelined."):
        await plain.sort(ITEMS, run_id="kept")
    assert result.rankings


async def test_accuracy_over_seeds_matches_the_round_schedule() -> None:
    """Zero latency: completion order (and so the run) is fixed by the seeds."""
    items = [str(n) for n in range(120)]
    truth = sorted(items, key=int, reverse=True)
    taus: dict[str, list[float]] = {"rounds": [], "pipelined": []}
    for seed in range(8):
        for schedule in taus:
            sorter = QualitativeSorter(MockLLMProvider(seed=seed), criteria="larger",
                                       seed=seed, checkpointer=None, schedule=schedule,
                                       max_concurrent_requests=8)
            taus[schedule].append(kendall_tau((await sorter.sort(items)).rankings, truth))
    gap = statistics.mean(taus["pipelined"]) - statistics.mean(taus["rounds"])
    spread = statistics.stdev(taus["rounds"] + taus["pipelined"])
    assert abs(gap) < 2 * spread, taus
