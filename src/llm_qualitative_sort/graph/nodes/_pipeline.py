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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort._calls import Call, CallSettings, call_log
from llm_qualitative_sort._calls.live import CallPool, make_judge
from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.models import ComparisonResult, EventType
from llm_qualitative_sort.results.events import event, round_message
from llm_qualitative_sort.stores.journal import CallFacts, CallPlace, text_digest
from llm_qualitative_sort.tournament import Note, Strategy, match_winner, presentation_orders

_FLIP = {"A": "B", "B": "A", "tie": "tie", None: None}  # a tie stays a tie either way round


@dataclass
class _Match:
    """An open match: its players, its first repetition, the segment it was paired in."""

    seq: int
    a: int
    b: int
    first_repetition: int
    segment: int
    groups: tuple[int, int]  # the players' groups when it started (see `busy_groups`)
    logs: list[Any]
    pending: int
    journaled: list[int]  # its calls answered by the journal (a resumed run), by number


class Pipeline:
    """Plays a run's matches as soon as their players are free.

    Args:
        state: The run's state at the last checkpoint.
        strategy: The run's strategy (must support pipelined play).
        settings: How calls are made.
        run_id: The run.
        progress: Whether to build progress events.
    """

    def __init__(self, state: TournamentState, strategy: Strategy, settings: CallSettings,
                 run_id: str, progress: bool) -> None:
        self.items, self.strategy, self.run_id = state["items"], strategy, run_id
        self.journal, self.progress = settings.journal, progress
        self.orders = presentation_orders(state["comparison_rounds"])
        self.standing = _copy(state["standing"])
        self.segment, self.completed = state["round"], state["completed"]
        self.next_seq = state.get("paired", 0)
        self.open: dict[int, _Match] = {}
        self.busy = [0] * len(self.items)
        self.busy_groups: Counter[int] = Counter()
        self.open_by_segment: Counter[int] = Counter()
        self.closed: list[tuple[int, list[Any]]] = []
        self.events: list[dict[str, Any]] = []
        self.pool = CallPool(make_judge(settings), settings.max_concurrent_requests,
                             self._answered, on_failure=self._wake)
        self.active = False
        self._waiter: asyncio.Future[None] | None = None
        self._quota = 0
        self._digests: dict[int, str] = {}
        self.free: set[int] = set()
        self._bound = strategy.remaining_matches(self.standing)  # kept up to date per match
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

    async def play_segment(self, emit: Any) -> dict[str, Any]:
        """Play until about a round's worth of matches has closed; return the state update."""
        self.segment += 1
        self.rng = self.strategy.rng(self.segment, "pipelined")
        self._quota = self.completed + max(1, self.strategy.players_left(self.standing) // 2)
        self.active = True
        try:
            self._pair()
            while not self._segment_over():
                self._waiter = asyncio.get_running_loop().create_future()
                self._emit(emit)
                await self._waiter
            self._emit(emit)
            if self.pool.failure is not None:
                await self.pool.drain()  # let the calls in flight finish, then raise
        finally:
            self.active = False
        return self._snapshot(emit)

    def finished(self) -> bool:
        """Whether the tournament is over (nothing open, the strategy says so)."""
        return not self.open and self.strategy.finished(self.standing)

    def close(self) -> None:
        """Stop: nothing new starts, calls in flight are cancelled."""
        self.active = False
        self.pool.cancel()

    def _segment_over(self) -> bool:
        if self.pool.failure is not None or self.finished():
            return True
        if not self.open and not self.pool.in_flight:
            raise RuntimeError("pipelined play stalled: no match open and none paired")
        return self.completed >= self._quota

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
        groups = (self.strategy.group_of(self.standing, a),
                  self.strategy.group_of(self.standing, b))
        match = _Match(seq, a, b, first_repetition, segment, groups,
                       [None] * len(self.orders), len(self.orders), [])
        self.open[seq] = match
        for player, group in zip((a, b), groups, strict=True):
            self.busy[player] += 1
            self.busy_groups[group] += 1
            self.free.discard(player)
        self.open_by_segment[segment] += 1
        if self.progress:
            self.events.append(self._event(EventType.MATCH_START, seq, a, b, None))
        width = len(self.orders)
        for number, (order, repetition) in enumerate(self.orders):
            first, second = (a, b) if order == "AB" else (b, a)
            place = CallPlace(self.run_id, segment, seq, number, self.items[first],
                              self.items[second], self._digest(first) + self._digest(second))
            if self.journal.entry(place) is not None:
                match.journaled.append(number)
            self.pool.submit(seq * width + number, Call(place, first_repetition + repetition))

    def _answered(
        self, index: int, result: ComparisonResult, cached: bool, facts: CallFacts | None = None
    ) -> None:
        seq, number = divmod(index, len(self.orders))
        match = self.open[seq]
        order = self.orders[number][0]
        winner = result.winner if order == "AB" else _FLIP[result.winner]
        match.logs[number] = call_log(order, winner, result, cached, facts)
        match.pending -= 1
        if not match.pending:
            self._close(match)

    def _close(self, match: _Match) -> None:
        del self.open[match.seq]
        self.open_by_segment[match.segment] -= 1
        for player, group in zip((match.a, match.b), match.groups, strict=True):
            self.busy[player] -= 1
            self.busy_groups[group] -= 1
        winner = match_winner(c[1] for c in match.logs)
        log = [match.a, match.b, winner, match.logs]
        notes = self.strategy.apply_match(self.standing, log)
        self.completed += 1
        self._bound = max(self._bound - self.strategy.match_cost(winner), 0)
        self.closed.append((match.seq, log))
        for player in (match.a, match.b):
            if not self.busy[player] and self.strategy.is_active(self.standing, player):
                self.free.add(player)
        if self.progress:
            self.events.append(self._event(EventType.MATCH_END, match.seq, match.a, match.b,
                                           log, match.journaled))
            self.events += [self._note_event(note) for note in notes]
        self._pair()
        if self.completed >= self._quota or self.finished():
            self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _snapshot(self, emit: Any) -> dict[str, Any]:
        closed, self.closed = self.closed, []
        settled = sorted(s for s, count in self.open_by_segment.items() if count == 0)
        for segment in settled:
            del self.open_by_segment[segment]
        left = self.strategy.players_left(self.standing)
        self._bound = self.strategy.remaining_matches(self.standing)
        total = self.completed + self._bound
        message = round_message(f"segment {self.segment}", len(closed), left)
        emit(event(EventType.ROUND_END, message, self.completed, total, round=self.segment,
                   matches=len(closed), remaining=left))
        return {
            "history": [{"round": self.segment, "matches": [log for _, log in closed],
                         "bye": None, "seqs": [seq for seq, _ in closed]}],
            "standing": _copy(self.standing),
            "completed": self.completed,
            "round": self.segment,
            "in_flight": [[m.seq, m.a, m.b, m.first_repetition, m.segment]
                          for m in self.open.values()],
            "paired": self.next_seq,
            "settled": settled,
        }

    def _emit(self, emit: Any) -> None:
        events, self.events = self.events, []
        for payload in events:
            emit(payload)

    def _event(self, kind: EventType, seq: int, a: int, b: int, log: Any,
               journaled: Sequence[int] = ()) -> dict[str, Any]:
        total = self.completed + self._bound
        items = self.items
        extra: dict[str, Any] = {}
        if log is None:
            message = f"{items[a][:30]!r} vs {items[b][:30]!r}"
        else:
            message, extra = _verdict(items, a, b, log[2]), {"result": log,
                                                             "journaled": list(journaled)}
        return event(kind, message, self.completed, total, round=self.segment, match=seq,
                     item_a=items[a], item_b=items[b], **extra)

    def _note_event(self, note: Note) -> dict[str, Any]:
        total = self.completed + self._bound
        data, message = dict(note.data), note.message
        if note.item is not None:
            data["item"] = self.items[note.item]
            message = f"{self.items[note.item][:30]!r}: {message}"
        return event(note.kind, message, self.completed, total, **data)

    def _digest(self, item: int) -> str:
        found = self._digests.get(item)
        if found is None:
            found = self._digests[item] = text_digest(self.items[item])
        return found


def _copy(standing: dict[str, Any]) -> dict[str, Any]:
    return {key: list(value) if isinstance(value, list) else value
            for key, value in standing.items()}


def _verdict(items: list[str], a: int, b: int, winner: Any) -> str:
    if winner is None:
        return f"draw: {items[a][:30]!r} = {items[b][:30]!r}"
    won, lost = (a, b) if winner == "A" else (b, a)
    return f"{items[won][:30]!r} beat {items[lost][:30]!r}"
