"""Comparison node: play every call of the round's matches, through the run's call runner.

One node per round (rather than one `Send` per match) because a LangGraph task costs about
1.8 ms with SQLite checkpointing while a coroutine costs microseconds; each finished call is
made durable by the run journal instead (see `llm_qualitative_sort.stores.journal`). Calls are the
unit of work: a match is only bookkeeping (the match book) that closes when its last call is
answered.
"""

from __future__ import annotations

from typing import Any, cast

from langgraph.runtime import Runtime

from llm_qualitative_sort._calls import make_runner
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.nodes._book import MatchBook
from llm_qualitative_sort.graph.nodes._groups import GroupCalls
from llm_qualitative_sort.graph.state import (
    TournamentState,
    planned_round,
    run_strategy,
)
from llm_qualitative_sort.prompts._run import round_prompt
from llm_qualitative_sort.prompts.setup import using_prompt
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import CallFacts
from llm_qualitative_sort.tournament.records import MatchLog, RoundLog, ScoreLog
from llm_qualitative_sort.verdicts import RankingResult


async def compare(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Play the round's matches; every call runs as soon as a request slot is free."""
    ctx = runtime.context or TournamentContext()  # none given: the plain defaults
    events = ctx.events(runtime.stream_writer)
    strategy = run_strategy(state)
    matches, scores = planned_round(state)
    # A round that scores items alone (a pointwise run, a Swiss pre-pass): one call each.
    width = 1 if scores else strategy.settings.calls
    book = MatchBook(state["items"], width, ctx.run_id, ctx.journal,
                     strategy, state["completed"], strategy.remaining_matches(state["standing"]),
                     events, state["round"], players=ctx.players)
    calls = [call for index, (a, b, first_repetition) in enumerate(matches)
             for _, call in book.start(index, a, b, first_repetition, state["round"])]
    calls += [book.start_score(index, item, repetition, state["round"])[1]
              for index, (item, repetition) in enumerate(scores)]
    logs: list[MatchLog] = [[] for _ in matches]  # each filled when its match closes
    scored: list[ScoreLog] = [[] for _ in scores]
    # Ranking calls follow the matches' and scores' calls, in the round's list and in the
    # journal (a round of ranking calls scores no text alone).
    first_group = len(calls)
    groups = GroupCalls(state["items"], state.get("groups") or [], ctx.run_id, state["round"],
                        len(matches) + len(scores), ctx.journal if events.listening else None)
    calls += groups.calls

    def answered(
        index: int, result: CallAnswer, cached: bool, facts: CallFacts | None = None
    ) -> None:
        if index >= first_group:
            number = index - first_group
            log = groups.answer(number, cast(RankingResult, result), cached, facts)
            book.completed += 1  # one call: one unit of the bound on those left, as a match
            book.bound = max(book.bound - 1, 0)
            events.ranking_call(state["items"], state["round"], log, number in groups.journaled,
                                book.completed, book.total)
            return
        match = book.answer(index, result, cached, facts)
        if match is None:
            return
        if match.alone:
            scored[match.key] = book.close_score(match)
        else:
            logs[match.key] = book.close(match)

    settings = ctx.call_settings(
        state, strategy.settings, round_prompt(ctx.run_prompt(state), bool(scores)),
        events=events, question=strategy.question(state["standing"]) if scores else None)
    if scores:  # a judge may place texts by the run's set (the mock)
        settings.provider.check_items(state["items"])
    with using_prompt(settings.prompt):  # the calls' tasks inherit the run's prompt
        await make_runner(settings).run(calls, answered)
    round_log: RoundLog = {"round": state["round"], "matches": logs, "bye": state.get("bye")}
    if scored:
        round_log["scores"] = scored
    if groups.calls:
        round_log["groups"] = groups.stored()
    # `settled`: once this checkpoint is on disk, the journal drops the round's rows.
    return {"history": [round_log], "settled": [state["round"]]}
