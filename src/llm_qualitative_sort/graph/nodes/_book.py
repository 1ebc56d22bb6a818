"""The match book: the open matches of both schedules, from their first call to their verdict.

One place defines a stored match and its calls (see `tournament.records.MatchLog`): a match starts
(its calls are placed and named), takes its answers one call at a time (each stored in match
terms), and closes when its last call is in (its verdict, its stored form). The rounds
schedule opens a round's matches at once; the pipelined schedule opens them as players free
up. Both tell the run's `EventSink` what happened. A text scored alone opens and closes
here too, as a one-call entry of the book stored as a score (`tournament.records.ScoreLog`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from llm_qualitative_sort._calls import Call, call_log, score_log
from llm_qualitative_sort.rating.scoring import PointwiseResult
from llm_qualitative_sort.results.events import EventSink
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.base import RunJournal
from llm_qualitative_sort.stores.entries import POINTWISE_SHOWN, CallFacts, CallPlace, text_digest
from llm_qualitative_sort.tournament import Strategy, match_winner, presentation_orders
from llm_qualitative_sort.tournament.records import (
    CallRecord,
    MatchLog,
    ScoreLog,
    ScoreRecord,
    call_winners,
)
from llm_qualitative_sort.verdicts import ComparisonResult, Side, Verdict

# A call shown BA answers in its own terms; the match stores it in its own: a tie stays a
# tie either way round (anything but "A", "B", "tie" or None is a KeyError here, never a
# verdict).
_FLIP: dict[Verdict | None, Verdict | None] = {"A": "B", "B": "A", "tie": "tie", None: None}


@dataclass(slots=True)
class OpenMatch:
    """A match whose calls are not all answered yet.

    `key` numbers it among the matches of its round (rounds) or among the run's pairings
    (pipelined); `round_number` is the journal round its calls are placed in.
    """

    key: int
    a: int
    b: int
    first_repetition: int
    round_number: int
    logs: list[Any]  # each call's `CallLog`, None until answered
    pending: int
    journaled: list[int] = field(default_factory=list)  # calls a resumed run found answered
    alone: bool = False  # a text scored alone (`a` is `b`): one call, stored as a score


class MatchBook:
    """The open matches of a run, the count of closed ones and the bound on those left.

    Call `index` of a match is `key × calls per match + its number`: the key of its answer.

    Args:
        items: The run's texts.
        comparison_rounds: Calls per match.
        run_id: The run (names each call's place in the journal).
        journal: The run journal (tells which calls a resumed run finds answered).
        strategy: The run's strategy (how much a closed match shrinks the bound).
        completed: Matches closed before.
        bound: An upper bound on the matches left (`Strategy.remaining_matches`).
        events: Where progress goes.
        round_number: The round (or segment) events name.
        players: Each item's index, the one int object the stored matches of the run name
            it by (see `player_indices`); None: a table of this book's own.
    """

    def __init__(self, items: list[str], comparison_rounds: int, run_id: str,
                 journal: RunJournal, strategy: Strategy[Any], completed: int, bound: int,
                 events: EventSink, round_number: int,
                 players: list[int] | None = None) -> None:
        self.items, self.run_id, self.journal = items, run_id, journal
        self.strategy, self.events = strategy, events
        self.orders = presentation_orders(comparison_rounds)
        self.width = len(self.orders)
        self.completed, self.bound, self.round_number = completed, bound, round_number
        self.open: dict[int, OpenMatch] = {}
        self._digests: dict[int, str] = {}
        self._players = player_indices(len(items), players)

    @property
    def total(self) -> int:
        """The matches closed plus the bound on those left (a progress bar's total)."""
        return self.completed + self.bound

    def start(self, key: int, a: int, b: int, first_repetition: int,
              round_number: int) -> list[tuple[int, Call]]:
        """Open a match; return its calls, each with its index."""
        self.events.match_start(self.items, self.round_number, key, a, b, self.completed,
                                self.completed + self.bound)
        width = self.width
        match = self.open[key] = OpenMatch(key, a, b, first_repetition, round_number,
                                           [None] * width, width)
        items, run_id = self.items, self.run_id
        digest_a, digest_b = self._digest(a), self._digest(b)
        calls: list[tuple[int, Call]] = []
        # Which calls a resume finds answered is news for a match's end event only.
        listening = self.events.listening
        index = key * width
        for number, (order, repetition) in enumerate(self.orders):
            if order == "AB":
                place = CallPlace(run_id, round_number, key, number, items[a], items[b],
                                  digest_a + digest_b)
            else:
                place = CallPlace(run_id, round_number, key, number, items[b], items[a],
                                  digest_b + digest_a)
            if listening and self.journal.entry(place) is not None:
                match.journaled.append(number)
            calls.append((index + number, Call(place, first_repetition + repetition)))
        return calls

    def start_score(self, key: int, item: int, repetition: int,
                    round_number: int) -> tuple[int, Call]:
        """Open the score of a text alone; return its one call, with its index.

        Listeners hear of it as of a match of the text with itself, as they always have.
        """
        if self.width != 1:
            raise ValueError("a round that scores texts alone has one call per entry")
        self.events.match_start(self.items, self.round_number, key, item, item,
                                self.completed, self.completed + self.bound)
        match = self.open[key] = OpenMatch(key, item, item, repetition, round_number, [None],
                                           1, alone=True)
        # Never the same journal place as a pair's call: the text's digest, marked.
        place = CallPlace(self.run_id, round_number, key, 0, self.items[item], "",
                          self._digest(item) + POINTWISE_SHOWN)
        if self.events.listening and self.journal.entry(place) is not None:
            match.journaled.append(0)
        return key, Call(place, repetition)

    def answer(self, index: int, result: CallAnswer, cached: bool,
               facts: CallFacts | None = None) -> OpenMatch | None:
        """Store call `index`'s answer; return its match when that was its last call.

        A match's calls answer with verdicts, a text scored alone with a label.
        """
        key, number = divmod(index, self.width)
        match = self.open[key]
        if match.alone:
            match.logs[0] = score_log(cast(PointwiseResult, result), cached, facts)
        else:
            verdict = cast(ComparisonResult, result)
            order = self.orders[number][0]
            winner = verdict.winner if order == "AB" else _FLIP[verdict.winner]
            match.logs[number] = call_log(order, winner, verdict, cached, facts)
        match.pending -= 1
        return None if match.pending else match

    def close(self, match: OpenMatch) -> MatchLog:
        """Close a match whose calls are all in: its verdict, in its stored form."""
        del self.open[match.key]
        winner = match_winner(call_winners(match.logs))
        players = self._players
        log: list[Any] = [players[match.a], players[match.b], winner, match.logs]
        self._closed(match, winner, log)
        return log

    def close_score(self, match: OpenMatch) -> ScoreLog:
        """Close the score of a text alone, its call in: its stored form."""
        del self.open[match.key]
        (call,) = match.logs
        record = CallRecord.read(call)
        winner = match_winner([record.winner])
        item = self._players[match.a]
        self._closed(match, winner, [item, item, winner, match.logs])
        return ScoreRecord(item, record).stored()

    def _closed(self, match: OpenMatch, winner: Side | None, log: MatchLog) -> None:
        self.completed += 1
        self.bound = max(self.bound - self.strategy.match_cost(winner), 0)
        self.events.match_end(self.items, self.round_number, match.key, log, match.journaled,
                              self.completed, self.completed + self.bound)

    def _digest(self, item: int) -> str:
        found = self._digests.get(item)
        if found is None:
            found = self._digests[item] = text_digest(self.items[item])
        return found


def player_indices(count: int, table: list[int] | None = None) -> list[int]:
    """`table` grown to index `count` items: `table[i]` is `i`, one int object per index.

    An index above 256 is a new int object each time it is computed (28 bytes, 32 with its
    allocation), and each round's pairing computes them anew: a run's stored matches then
    hold two of their own each (5 MB at n = 10,000, N = 10) unless they name their players
    through one table kept for the run.
    """
    table = [] if table is None else table
    if len(table) < count:
        table.extend(range(len(table), count))
    return table
