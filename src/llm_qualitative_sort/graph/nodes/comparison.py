"""Comparison node: play every call of the round's matches, through the run's call runner.

One node per round (rather than one `Send` per match) because a LangGraph task costs about
1.8 ms with SQLite checkpointing while a coroutine costs microseconds; each finished call is
made durable by the run journal instead (see `llm_qualitative_sort.stores.journal`). Calls are the
unit of work: a match is only bookkeeping that closes when its last call is answered.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from llm_qualitative_sort._calls import Call, CallSettings, call_log, make_runner
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import MatchLog, RoundLog, TournamentState, run_strategy
from llm_qualitative_sort.models import ComparisonResult, EventType, Side, Verdict
from llm_qualitative_sort.providers.prompt_template import using_prompt
from llm_qualitative_sort.results.events import event
from llm_qualitative_sort.stores.journal import CallFacts, CallPlace, text_digest
from llm_qualitative_sort.tournament import Strategy, match_winner, presentation_orders


class _Round:
    """The matches of a round being played: their calls, and `completed` / `total`."""

    def __init__(self, state: TournamentState, strategy: Strategy, run_id: str) -> None:
        self.items, self.number = state["items"], state["round"]
        self.strategy = strategy
        self.completed = state["completed"]
        self._bound = strategy.remaining_matches(state["standing"])
        self.total = self.completed + self._bound
        orders = presentation_orders(state["comparison_rounds"])
        digests = {i: text_digest(self.items[i]) for m in state["matches"] for i in m[:2]}
        self.calls: list[Call] = []
        self.owner: list[int] = []  # the match of each call
        self.logs: list[list[Any]] = []  # per match: its call logs, filled as answers arrive
        for index, (a, b, first_repetition) in enumerate(state["matches"]):
            for number, (order, repetition) in enumerate(orders):
                first, second = (a, b) if order == "AB" else (b, a)
                place = CallPlace(run_id, self.number, index, number, self.items[first],
                                  self.items[second], digests[first] + digests[second])
                self.calls.append(Call(place, first_repetition + repetition))
                self.owner.append(index)
            self.logs.append([None] * len(orders))
        self.orders = orders
        self.pending = [len(orders)] * len(self.logs)
        self.winners: list[Side | None] = [None] * len(self.logs)

    def answer(
        self, index: int, result: ComparisonResult, cached: bool, facts: CallFacts | None = None
    ) -> int | None:
        """Record call `index`; return its match's index when that was the match's last call."""
        match, number = self.owner[index], self.calls[index].place.call
        order = self.orders[number][0]
        winner = result.winner if order == "AB" else _FLIP[result.winner]
        log = call_log(order, winner, result, cached, facts)
        self.logs[match][number] = log
        self.pending[match] -= 1
        if self.pending[match]:
            return None
        self.winners[match] = match_winner(log[1] for log in self.logs[match])
        self.completed += 1
        self._bound -= self.strategy.match_cost(self.winners[match])
        self.total = self.completed + max(self._bound, 0)
        return match


# Anything but "A", "B", "tie" or None is a KeyError here, never a verdict.
_FLIP: dict[Verdict | None, Verdict | None] = {"A": "B", "B": "A", "tie": "tie", None: None}


async def compare(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Play the round's matches; every call runs as soon as a request slot is free."""
    ctx = runtime.context or TournamentContext()  # none given: the plain defaults
    played = _Round(state, run_strategy(state), ctx.run_id)
    emit = runtime.stream_writer if ctx.progress else None
    matches = state["matches"]
    if emit:
        for index, (a, b, _) in enumerate(matches):
            emit(_match_event(played, EventType.MATCH_START, index, a, b,
                              f"{_short(played.items[a])} vs {_short(played.items[b])}"))

    # Calls a resumed run finds in the journal: answered there, not paid again now.
    journaled: dict[int, list[int]] = {}
    for index, call in enumerate(played.calls):
        if ctx.journal.entry(call.place) is not None:
            journaled.setdefault(played.owner[index], []).append(call.place.call)

    def answered(
        index: int, result: ComparisonResult, cached: bool, facts: CallFacts | None = None
    ) -> None:
        match = played.answer(index, result, cached, facts)
        if match is not None and emit:
            a, b, _ = matches[match]
            log = [a, b, played.winners[match], played.logs[match]]
            emit(_match_event(played, EventType.MATCH_END, match, a, b,
                              _verdict(played.items, a, b, played.winners[match]), result=log,
                              journaled=sorted(journaled.get(match, []))))

    settings = CallSettings(
        provider=ctx.resolve_provider(state["rng_seed"]), criteria=state["criteria"],
        cache=ctx.cache, journal=ctx.journal, retry=ctx.retry,
        max_concurrent_requests=ctx.max_concurrent_requests, call_timeout=ctx.call_timeout,
        name_judge=ctx.name_judge,
        emit=emit, ties=state.get("ties", False), prompt=ctx.run_prompt(state),
    )
    with using_prompt(settings.prompt):  # the calls' tasks inherit the run's prompt
        await make_runner(settings).run(played.calls, answered)
    logs: list[MatchLog] = [
        [a, b, played.winners[i], played.logs[i]] for i, (a, b, _) in enumerate(matches)
    ]
    round_log: RoundLog = {"round": played.number, "matches": logs, "bye": state.get("bye")}
    # `settled`: once this checkpoint is on disk, the journal drops the round's rows.
    return {"history": [round_log], "settled": [played.number]}


def _match_event(
    played: _Round, kind: EventType, index: int, a: int, b: int, message: str, **extra: Any
) -> dict[str, Any]:
    return event(kind, message, played.completed, played.total, round=played.number,
                 match=index, item_a=played.items[a], item_b=played.items[b], **extra)


def _short(text: str) -> str:
    return repr(text[:30])


def _verdict(items: list[str], a: int, b: int, winner: Side | None) -> str:
    if winner is None:
        return f"draw: {_short(items[a])} = {_short(items[b])}"
    won, lost = (a, b) if winner == "A" else (b, a)
    return f"{_short(items[won])} beat {_short(items[lost])}"
