"""A cancel of the run that the graph swallows still stops the run (running/drive.py)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from llm_qualitative_sort.graph import TournamentContext
from llm_qualitative_sort.running import drive as drive_module
from llm_qualitative_sort.testing import MockLLMProvider


async def _swallowing_stream(*args: Any) -> dict[str, Any]:
    """Ends as LangGraph's `astream` does: awaiting a task it has cancelled, with the
    `CancelledError` suppressed; the run's task is cancelled (Ctrl-C) in that instant."""
    run = asyncio.current_task()
    assert run is not None
    waiter = asyncio.ensure_future(asyncio.sleep(3600))
    waiter.cancel()
    asyncio.get_running_loop().call_soon(run.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await waiter
    return {"rankings": []}


async def test_a_cancel_the_graph_swallows_still_stops_the_run(monkeypatch) -> None:
    monkeypatch.setattr(drive_module, "_stream", _swallowing_stream)
    with pytest.raises(asyncio.CancelledError) as stopped:
        await drive_module.drive(None, None, {}, TournamentContext(run_id="r"),  # type: ignore[arg-type]
                                 on_progress=None, provider=MockLLMProvider(), store_path=None)
    assert stopped.value.run_id == "r"  # type: ignore[attr-defined]
    current = asyncio.current_task()
    assert current is not None and current.uncancel() == 0
