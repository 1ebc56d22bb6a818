"""Progress events of a seeded run: the sequence invariants a progress bar relies on."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from llm_qualitative_sort import (
    EventType,
    MatchResult,
    MockLLMProvider,
    ProgressEvent,
    QualitativeSorter,
    SortResult,
)

ITEMS = [str(n) for n in range(0, 300, 7)]  # 43 items: odd, so byes and floats happen


def _sorter(n_losses: int, on_progress: Any = None, latency: Any = 0.0) -> QualitativeSorter:
    judge = MockLLMProvider(seed=11, latency=latency)
    return QualitativeSorter(judge, criteria="larger", elimination_count=n_losses, seed=5,
                             checkpointer=None, on_progress=on_progress,
                             max_concurrent_requests=4)


async def _run(n_losses: int) -> tuple[list[ProgressEvent], SortResult]:
    events: list[ProgressEvent] = []
    result = await _sorter(n_losses, events.append).sort(ITEMS)
    return events, result


def _losses(result: SortResult) -> Counter[str]:
    losses: Counter[str] = Counter()
    for match in result.match_history:
        if match.winner != "A":
            losses[match.item_a] += 1
        if match.winner != "B":
            losses[match.item_b] += 1
    return losses


@pytest.mark.parametrize("n_losses", [1, 2, 3])
async def test_every_match_start_has_one_match_end_after_it(n_losses: int) -> None:
    events, result = await _run(n_losses)
    open_matches: set[tuple[int, int]] = set()
    ended: list[tuple[int, int]] = []
    for e in events:
        key = (e.data.get("round"), e.data.get("match"))
        if e.type is EventType.MATCH_START:
            assert key not in open_matches and key not in ended
            open_matches.add(key)  # type: ignore[arg-type]
        elif e.type is EventType.MATCH_END:
            open_matches.remove(key)  # type: ignore[arg-type]
            ended.append(key)  # type: ignore[arg-type]
    assert not open_matches
    assert len(ended) == len(result.match_history) == result.statistics.total_matches


async def test_match_end_carries_the_match_result_of_the_history() -> None:
    events, result = await _run(2)
    ended = [e.data["match_result"] for e in events if e.type is EventType.MATCH_END]
    assert all(isinstance(m, MatchResult) for m in ended)
    key = lambda m: (m.round_number, m.item_a, m.item_b)  # noqa: E731
    assert sorted(ended, key=key) == sorted(result.match_history, key=key)


@pytest.mark.parametrize("n_losses", [1, 2, 3])
async def test_round_end_follows_all_its_matches(n_losses: int) -> None:
    events, result = await _run(n_losses)
    ended_rounds: list[int] = []
    played: Counter[int] = Counter()
    for e in events:
        if e.type in (EventType.MATCH_START, EventType.MATCH_END):
            assert e.data["round"] not in ended_rounds, "match event after its ROUND_END"
            played[e.data["round"]] += e.type is EventType.MATCH_END
        elif e.type is EventType.ROUND_END:
            assert e.data["matches"] == played[e.data["round"]]
            ended_rounds.append(e.data["round"])
    assert ended_rounds == sorted(ended_rounds) == list(range(ended_rounds[0], len(ended_rounds)
                                                              + ended_rounds[0]))
    assert len(ended_rounds) == result.statistics.rounds
    assert events[-1].type is EventType.ROUND_END and events[-1].data["remaining"] <= 1


@pytest.mark.parametrize("n_losses", [1, 2, 3])
async def test_bracket_changes_add_up_to_the_final_losses(n_losses: int) -> None:
    events, result = await _run(n_losses)
    bracket: Counter[str] = Counter()
    eliminated: set[str] = set()
    for e in [e for e in events if e.type is EventType.BRACKET_CHANGE]:
        item = e.data["item"]
        assert item not in eliminated
        assert e.data["from_bracket"] == bracket[item]
        assert e.data["to_bracket"] == bracket[item] + 1
        assert e.data["eliminated"] == (e.data["to_bracket"] == n_losses)
        bracket[item] += 1
        if e.data["eliminated"]:
            eliminated.add(item)
    assert bracket == _losses(result)
    assert len(eliminated) >= len(ITEMS) - 1


@pytest.mark.parametrize("n_losses", [1, 2, 3])
async def test_completed_and_total_behave_like_a_progress_bar(n_losses: int) -> None:
    events, result = await _run(n_losses)
    assert events[0].total == n_losses * len(ITEMS) - 1  # the SPEC's upper bound
    for before, after in zip(events, events[1:], strict=False):
        assert after.total <= before.total
        assert after.completed >= before.completed
    assert all(0 <= e.completed <= e.total for e in events)
    last = events[-1]
    assert last.completed == last.total == result.statistics.total_matches


async def test_astream_yields_the_callback_events_then_the_result() -> None:
    seen: list[ProgressEvent] = []
    sorter = _sorter(2, seen.append)
    streamed = [x async for x in sorter.astream(ITEMS, run_id="streamed")]
    *events, result = streamed
    assert isinstance(result, SortResult) and result.run_id == "streamed"
    assert events == seen
    callback_events, reference = await _run(2)
    assert [(e.type, e.completed, e.total) for e in events] == [
        (e.type, e.completed, e.total) for e in callback_events
    ]
    assert result.rankings == reference.rankings


async def test_a_slow_consumer_does_not_hold_up_the_run() -> None:
    sorter = _sorter(2, latency=0.001)
    stream = sorter.astream(ITEMS)
    first = await anext(stream)
    assert isinstance(first, ProgressEvent)
    await asyncio.sleep(1.0)  # the consumer dawdles; the sort should finish meanwhile
    rest = [x async for x in stream]
    assert isinstance(rest[-1], SortResult)
    assert all(isinstance(x, ProgressEvent) for x in rest[:-1])


async def test_closing_the_stream_early_cancels_the_run() -> None:
    judge = MockLLMProvider(seed=11, latency=0.01)
    sorter = QualitativeSorter(judge, criteria="larger", seed=5, checkpointer=None)
    stream = sorter.astream(ITEMS, run_id="early")
    await anext(stream)
    await stream.aclose()
    calls = judge.calls
    await asyncio.sleep(0.1)
    assert judge.calls == calls  # no call was started after closing
    result = await sorter.resume("early")
    assert result.statistics.total_matches > 0
