"""Play node (pipelined schedule): one segment of matches started as players free up.

The run's `Pipeline` lives in the run context across segments, so calls in flight carry on
while LangGraph checkpoints; a new process rebuilds it from the checkpoint and the journal.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.nodes._pipeline import Pipeline
from llm_qualitative_sort.graph.state import TournamentState, run_strategy
from llm_qualitative_sort.prompts.setup import using_prompt


async def play(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Play one segment; the state update holds what a resume needs."""
    ctx = runtime.context or TournamentContext()
    run_id = ctx.run_id or str(get_config().get("configurable", {}).get("thread_id", ""))
    pipeline = ctx.live.get(run_id)
    if not isinstance(pipeline, Pipeline):
        strategy = run_strategy(state)
        settings = ctx.call_settings(state, strategy.settings, ctx.run_prompt(state))
        pipeline = ctx.live[run_id] = Pipeline(state, strategy, settings, run_id,
                                               ctx.events())
    try:
        with using_prompt(ctx.run_prompt(state)):  # the calls' tasks inherit the run's prompt
            return await pipeline.play_segment(runtime.stream_writer)
    except (asyncio.CancelledError, Exception):
        pipeline.close()  # no call goes on paying for a run that stopped
        del ctx.live[run_id]
        raise
