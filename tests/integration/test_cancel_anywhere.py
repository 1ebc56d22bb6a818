"""A cancel of the run (Ctrl-C) stops it wherever it lands: swept over every turn of the loop.

asyncio turns Ctrl-C into a cancel of the run's task, delivered whenever the signal comes. A
run in memory takes the same turns of the event loop each time, so cancelling it after k
turns, for every k up to the run's end, reaches every await of the run, its engine and its
lease; each run must end in `CancelledError`, never finish.
"""

from __future__ import annotations

import asyncio

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter


async def _cancelled_after(turns: int, schedule: str, progress: bool, n: int) -> str:
    """How a run ends when its task is cancelled after `turns` turns of the loop."""
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               schedule=schedule, max_concurrent_requests=3,
                               checkpointer=None,
                               on_progress=(lambda event: None) if progress else None)
    loop = asyncio.get_running_loop()
    run = loop.create_task(sorter.sort([str(i) for i in range(n)]))
    counted = 0

    def turn() -> None:
        nonlocal counted
        if run.done():
            return
        counted += 1
        if counted == turns:
            run.cancel()
        else:
            loop.call_soon(turn)

    loop.call_soon(turn)
    try:
        await run
    except asyncio.CancelledError:
        return "stopped"
    return "finished though cancelled" if counted == turns else "over"


# On the rounds schedule without progress a cancel was lost as the lease let go; with the
# pipelined schedule and progress, as LangGraph ended its stream.
@pytest.mark.parametrize(("schedule", "progress", "n"),
                         [("rounds", False, 6), ("pipelined", True, 8)])
async def test_a_cancel_after_any_turn_of_the_loop_stops_the_run(schedule: str, progress: bool,
                                                                n: int) -> None:
    lost = []
    turns = 1
    while (ended := await _cancelled_after(turns, schedule, progress, n)) != "over":
        if ended != "stopped":
            lost.append(turns)
        turns += 1
    assert turns > 50  # the sweep went through a whole run
    assert lost == []
