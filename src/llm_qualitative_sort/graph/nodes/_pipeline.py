"""The pipelined schedule's engine: matches start as players free up, with no round barrier.

One `Pipeline` per run and process lives in the run context across LangGraph supersteps.
Each `play` superstep is a *segment*: the pipeline pairs free players and keeps every
request slot busy until about a round's worth of matches has closed, then hands the node a
snapshot (closed matches, standing, open matches) for the checkpoint. Calls in flight keep
running across the superstep boundary; only new pairings wait for the next segment.

Every pairing is journaled (`Journal.put_pairing`) before its calls start, so a resumed run
reopens exactly the matches that were open, replays their journaled calls, and pays again
only for calls that were in flight at the stop.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from llm_qualitative_sort._calls import CallSettings
from llm_qualitative_sort._calls.live import CallPool, make_judge
from llm_qualitative_sort.graph.nodes._book import MatchBook, OpenMatch
from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.results.events import Emit, EventSink, RateNews
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import CallFacts
from llm_qualitative_sort.tournament import Strategy
from llm_qualitative_sort.tournament.records import MatchLog


class Pipeline:
    """Plays a run's matches as soon as their players are free.

    Args:
        state: The run's state at the last checkpoint.
        strategy: The run's strategy (must support pipelined play).
        settings: How calls are made.
        run_id: The run.
        events: Where progress goes: a sink that holds its events (no writer) until each
            segment writes them to the graph's stream.
    """

    def __init__(self, state: TournamentState, strategy: Strategy[Any], settings: CallSettings,
                 run_id: str, events: EventSink) -> None:
        self.items, self.strategy, self.run_id = state["items"], strategy, run_id
        self.journal, self.events = settings.journal, events
        self.standing = _copy(state["standing"])
        self.segment = state["round"]
        # The bound on the matches left is kept up to date per match.
        self.book = MatchBook(self.items, strategy.settings.calls, run_id, self.journal,
                              strategy, state["completed"],
                              strategy.remaining_matches(self.standing), events, self.segment)
        self.next_seq = state.get("paired", 0)
        self.busy = [0] * len(self.items)
        self.busy_groups: Counter[int] = Counter()
        self.groups: dict[int, tuple[int, int]] = {}  # of each open match (see `busy_groups`)
        self.open_by_segment: Counter[int] = Counter()
        self.closed: list[tuple[int, MatchLog]] = []
        self.pool = CallPool(make_judge(settings, self._rate_news),
                             settings.max_concurrent_requests, self._answered,
                             on_failure=self._wake)
        self.active = False
        self._waiter: asyncio.Future[None] | None = None
        self._quota = 0
        self.free: set[int] = set()
        self._reopen(state)

    def _reopen(self, state: TournamentState) -> None:
        logged = dict((m[0], m[1:]) for m in state.get("in_flight", []))
        logged |= {seq: p for seq, p in self.journal.pairings(self.run_id).items()
                   if seq >= self.next_seq}
        for seq in sorted(logged):
            a, b, first_repetition, segment = logged[seq]
            self._start(seq, a, b, first_repetition, segment)
            self.next_seq = max(self.next_seq, seq + 1)
        self.free = {i for i in range(len(self.items))
                     if not self.busy[i] and self.strategy.is_active(self.standing, i)}

    async def play_segment(self, write: Emit) -> dict[str, Any]:
        """Play until about a round's worth of matches has closed; return the state update."""
        self.segment += 1
        self.book.round_number = self.segment
        self.rng = self.strategy.rng(self.segment, "pipelined")
        self._quota = self.book.completed + max(1, self.strategy.players_left(self.standing) // 2)
        self.active = True
        try:
            self._pair()
            while not self._segment_over():
                self._waiter = asyncio.get_running_loop().create_future()
                self.events.flush(write)
                await self._waiter
            self.events.flush(write)
            if self.pool.failure is not None:
                await self.pool.drain()  # let the calls in flight finish, then raise
        finally:
            self.active = False
        update = self._snapshot()
        self.events.flush(write)
        return update

    def finished(self) -> bool:
        """Whether the tournament is over (nothing open, the strategy says so)."""
        return not self.book.open and self.strategy.finished(self.standing)

    def close(self) -> None:
        """Stop: nothing new starts, calls in flight are cancelled."""
        self.active = False
        self.pool.cancel()

    def _segment_over(self) -> bool:
        if self.pool.failure is not None or self.finished():
            return True
        if not self.book.open and not self.pool.in_flight:
            raise RuntimeError("pipelined play stalled: no match open and none paired")
        return self.book.completed >= self._quota

    def _pair(self) -> None:
        if not self.active or len(self.free) < 2 or self.pool.failure is not None:
            return
        self.journal.confirm()  # a process that lost the run pairs nothing from its stale view
        planned = self.strategy.pair_free(self.standing, sorted(self.free),
                                          dict(self.busy_groups), self.rng)
        for match in planned:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
            # Durable before its calls start: the journal's flush is scheduled first.
            self.journal.put_pairing(self.run_id, seq, [match.a, match.b,
                                                        match.first_repetition, self.segment])
            self._start(seq, match.a, match.b, match.first_repetition, self.segment)

    def _start(self, seq: int, a: int, b: int, first_repetition: int, segment: int) -> None:
        groups = self.groups[seq] = (self.strategy.group_of(self.standing, a),
                                     self.strategy.group_of(self.standing, b))
        for player, group in zip((a, b), groups, strict=True):
            self.busy[player] += 1
            self.busy_groups[group] += 1
            self.free.discard(player)
        self.open_by_segment[segment] += 1
        for index, call in self.book.start(seq, a, b, first_repetition, segment):
            self.pool.submit(index, call)

    def _answered(
        self, index: int, result: CallAnswer, cached: bool, facts: CallFacts | None = None
    ) -> None:
        match = self.book.answer(index, result, cached, facts)
        if match is not None:
            self._close(match)

    def _close(self, match: OpenMatch) -> None:
        log = self.book.close(match)
        self.open_by_segment[match.round_number] -= 1
        for player, group in zip((match.a, match.b), self.groups.pop(match.key), strict=True):
            self.busy[player] -= 1
            self.busy_groups[group] -= 1
        notes = self.strategy.apply_match(self.standing, log)
        self.closed.append((match.key, log))
        for player in (match.a, match.b):
            if not self.busy[player] and self.strategy.is_active(self.standing, player):
                self.free.add(player)
        self.events.notes(self.items, notes, self.book.completed, self.book.total)
        self._pair()
        if self.book.completed >= self._quota or self.finished():
            self._wake()

    def _rate_news(self, news: RateNews) -> None:
        """A pause for the rate limit: said now (the segment's loop writes held events)."""
        self.events.rate_limit(news)
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _snapshot(self) -> dict[str, Any]:
        closed, self.closed = self.closed, []
        settled = sorted(s for s, count in self.open_by_segment.items() if count == 0)
        for segment in settled:
            del self.open_by_segment[segment]
        left = self.strategy.players_left(self.standing)
        self.book.bound = self.strategy.remaining_matches(self.standing)
        self.events.round_end(f"segment {self.segment}", len(closed), left, self.book.completed,
                              self.book.total, self.segment)
        return {
            "history": [{"round": self.segment, "matches": [log for _, log in closed],
                         "bye": None, "seqs": [seq for seq, _ in closed]}],
            "standing": _copy(self.standing),
            "completed": self.book.completed,
            "round": self.segment,
            "in_flight": [[m.key, m.a, m.b, m.first_repetition, m.round_number]
                          for m in self.book.open.values()],
            "paired": self.next_seq,
            "settled": settled,
        }


def _copy(standing: dict[str, Any]) -> dict[str, Any]:
    return {key: list(value) if isinstance(value, list) else value
            for key, value in standing.items()}
