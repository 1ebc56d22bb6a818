"""Labelled node: once the strategy has finished, ask the judge the pairs people labelled.

Only pairs the run has not played (`results.labelled.pairs_to_ask`), each as one match of
two calls, one per presentation order. The calls go through the run's call runner like a
round's: cached, journaled (a resumed run finds them answered), live or by provider batch.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from llm_qualitative_sort._calls import make_runner
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.nodes._book import MatchBook
from llm_qualitative_sort.graph.state import TournamentState, run_strategy
from llm_qualitative_sort.prompts._run import round_prompt
from llm_qualitative_sort.prompts.setup import using_prompt
from llm_qualitative_sort.results.labelled import pairs_to_ask, state_labels
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import CallFacts
from llm_qualitative_sort.tournament.records import MatchLog, RoundLog

# Both presentation orders once: the judge's first-position bias then cancels in the
# agreement, and the agreement within each order shows it.
LABELLED_CALLS = 2


async def ask_labelled(state: TournamentState,
                       runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Play the labelled pairs the strategy did not play, as one more round."""
    ctx = runtime.context or TournamentContext()
    labels = state_labels(ctx.human if ctx.human is not None else state.get("human"))
    pairs = pairs_to_ask(labels, state.get("history", []))
    if not pairs:
        return {}
    number = state["round"] + 1
    strategy = run_strategy(state)
    events = ctx.events(runtime.stream_writer)
    book = MatchBook(state["items"], LABELLED_CALLS, ctx.run_id, ctx.journal, strategy,
                     state["completed"], len(pairs), events, number, players=ctx.players)
    calls = [call for key, (a, b) in enumerate(pairs)
             for _, call in book.start(key, a, b, 0, number)]
    logs: list[MatchLog] = [[] for _ in pairs]

    def answered(index: int, result: CallAnswer, cached: bool,
                 facts: CallFacts | None = None) -> None:
        match = book.answer(index, result, cached, facts)
        if match is not None:
            logs[match.key] = book.close(match)

    settings = ctx.call_settings(state, strategy.settings,
                                 round_prompt(ctx.run_prompt(state), False), events=events)
    with using_prompt(settings.prompt):
        await make_runner(settings).run(calls, answered)
    played: RoundLog = {"round": number, "matches": logs, "bye": None, "labelled": True}
    return {"history": [played], "settled": [number], "round": number,
            "completed": book.completed}
