"""Progress events as plain dictionaries, written to LangGraph's custom stream.

Plain data so the same events travel over the LangGraph API server; the sorter turns them
into `ProgressEvent`s with `progress_event`. The nodes and the match book hand what
happened to an `EventSink`, which builds the events; when nobody listens they get a
`QuietSink`, which builds none (an event costs more than the orchestration of its call).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.models import EarlyStop, EventType, ProgressEvent
from llm_qualitative_sort.results.from_state import match_from_log

if TYPE_CHECKING:
    from llm_qualitative_sort.providers._batch import BatchStatus
    from llm_qualitative_sort.tournament import Note

# Writes a progress payload to the graph's custom stream.
Emit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class RateNews:
    """A pause that began: what the progress shows ("waiting 4 s for the rate limit")."""

    judge: str
    seconds: float
    rate: float
    limited: int


def event(
    kind: EventType, message: str, completed: int, total: int, **data: Any
) -> dict[str, Any]:
    """An event payload for the custom stream."""
    return {
        "event": kind.value,
        "message": message,
        "completed": completed,
        "total": total,
        "data": data,
    }


def plural(count: int, noun: str) -> str:
    """"1 match", "2 matches" (the nouns of progress messages take -es or -s).

    Example:
        >>> plural(1, "match"), plural(3, "match"), plural(2, "call")
        ('1 match', '3 matches', '2 calls')
    """
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('ch', 'sh', 's', 'x')) else 's'}"


def round_message(label: str, played: int, left: int | None, alone: int = 0,
                  texts: int | None = None, ranked: int = 0) -> str:
    """"round 3: 8 matches, 14 left"; without `left` (no one eliminated) no count of players.

    `alone` of the `played` were texts scored alone (pointwise scoring, a pre-pass): a
    round of nothing else says so instead of "matches". `texts`: how many texts those
    calls scored, when a text was scored more than once (pointwise repetitions).

    An elimination run usually ends with its winner, "1 left". It ends with "0 left" when
    its last matches were draws between players on their last life: a draw costs both a
    loss, so no one is left standing, and the ranking then goes by wins alone (the
    message says so, lest "0 left" read as a miscount).

    Example:
        >>> round_message("round 5", 1, 0)
        'round 5: 1 match, 0 left (a draw eliminated the last players: ranked by wins)'
        >>> round_message("round 1", 20, None, alone=20)
        'round 1: 20 texts scored alone'
        >>> round_message("round 1", 60, None, alone=60, texts=30)
        'round 1: 30 texts scored alone, 2 calls each'
        >>> round_message("round 2", 6, None, ranked=6)
        'round 2: 6 ranking calls'
    """
    if ranked and ranked == played:
        text = f"{label}: {plural(ranked, 'ranking call')}"
    elif alone and alone == played:
        texts = texts or played
        calls = f"{played // texts} calls each" if played % texts == 0 else plural(played, "call")
        each = "" if texts == played else f", {calls}"
        text = f"{label}: {plural(texts, 'text')} scored alone{each}"
    else:
        text = f"{label}: {plural(played, 'match')}"
    if left == 0:
        return f"{text}, 0 left (a draw eliminated the last players: ranked by wins)"
    return text if left is None else f"{text}, {left} left"


def rate_message(seconds: float, rate: float) -> str:
    """"waiting 4 s for the rate limit, 12 calls/s".

    Example:
        >>> rate_message(4.2, 12.0)
        'waiting 4 s for the rate limit, 12 calls/s'
        >>> rate_message(0.5, 1.9)
        'waiting 0.5 s for the rate limit, 1.9 calls/s'
    """
    wait = f"{seconds:.0f}" if seconds >= 2 else f"{seconds:.1f}"
    pace = f"{rate:.0f}" if rate >= 10 else f"{rate:.2g}"
    return f"waiting {wait} s for the rate limit, {pace} calls/s"


def progress_event(payload: dict[str, Any]) -> ProgressEvent:
    """The public event for a stream payload.

    A MATCH_END payload carries its match as stored (indices); the public event also gets
    it as a `MatchResult` under `data["match_result"]`, built from the texts the payload names.
    It also lists under `data["journaled"]` the numbers of its calls that a resumed run
    found answered in the run journal (paid for, or taken from the cache, before).
    The ROUND_END that ends a run before its budget (a settled top K) carries an `EarlyStop`
    under `data["early_stop"]`.
    """
    data = dict(payload["data"])
    if payload["event"] == EventType.MATCH_END and "item_a" in data:
        _, _, winner, calls = data["result"]
        texts = [data["item_a"], data["item_b"]]
        data["match_result"] = match_from_log(texts, [0, 1, winner, calls], data.get("round", 0))
    if isinstance(data.get("early_stop"), dict):
        data["early_stop"] = EarlyStop(**data["early_stop"])
    return ProgressEvent(
        type=EventType(payload["event"]),
        message=payload["message"],
        completed=payload["completed"],
        total=payload["total"],
        data=data,
    )


class EventSink:
    """Builds a run's progress events and writes them, for someone who listens.

    Args:
        write: Where each event goes (the graph's custom stream); None holds the events
            until `flush` (the pipelined engine's answers arrive between its supersteps).
    """

    # Whether the events of matches are built: the match book skips work only they need.
    listening = True

    def __init__(self, write: Emit | None = None) -> None:
        self._held: list[dict[str, Any]] = []
        self._put: Emit = self._held.append if write is None else write

    def flush(self, write: Emit) -> None:
        """Write the events held so far to `write`, in order."""
        held = list(self._held)
        self._held.clear()  # in place: `_put` may be its `append`
        for payload in held:
            write(payload)

    def match_start(self, items: Sequence[str], round_number: int, key: int, a: int, b: int,
                    completed: int, total: int) -> None:
        """A match started: "'a' vs 'b'"."""
        self._put(event(EventType.MATCH_START, f"{_short(items[a])} vs {_short(items[b])}",
                        completed, total, round=round_number, match=key, item_a=items[a],
                        item_b=items[b]))

    def match_end(self, items: Sequence[str], round_number: int, key: int, log: list[Any],
                  journaled: Sequence[int], completed: int, total: int) -> None:
        """A match closed; `log` is its stored form, `journaled` its calls a resume found."""
        a, b = log[0], log[1]
        self._put(event(EventType.MATCH_END, _verdict(items, a, b, log[2]), completed, total,
                        round=round_number, match=key, item_a=items[a], item_b=items[b],
                        result=log, journaled=list(journaled)))

    def ranking_call(self, items: Sequence[str], round_number: int, log: dict[str, Any],
                     journaled: bool, completed: int, total: int) -> None:
        """A ranking call was answered; `log` is its stored form (item indices)."""
        order = log["order"]
        shown = [items[i] for i in log["items"]]
        ranked = None if order is None else [[items[i] for i in place] for place in order]
        message = ("no order: " + str(log.get("problem")) if ranked is None else
                   " > ".join(" = ".join(_short(t) for t in place) for place in ranked))
        self._put(event(EventType.RANKING_CALL, message, completed, total,
                        round=round_number, items=shown, order=ranked, cached=log["cached"],
                        journaled=journaled, input_tokens=log["input_tokens"],
                        output_tokens=log["output_tokens"]))

    def notes(self, items: Sequence[str], notes: Sequence[Note], completed: int,
              total: int) -> None:
        """What a strategy's update did, one event per note, item indices as texts."""
        for note in notes:
            data, message = dict(note.data), note.message
            if note.item is not None:
                data["item"] = items[note.item]
                message = f"{_short(items[note.item])}: {message}"
            for key in note.item_lists:
                data[key] = [items[i] for i in data[key]]
            self._put(event(note.kind, message, completed, total, **data))

    def batch(self, round_number: int, batch_id: str, requests: int,
              status: BatchStatus) -> None:
        """A provider batch of the round changed state."""
        counted = (f"{status.completed}/{requests} done" if status.completed is not None
                   else f"{requests} requests")
        self._put(event(
            EventType.BATCH, f"round {round_number}: batch {batch_id} {status.state}, "
            f"{counted}", status.completed or 0, requests, round=round_number,
            batch_id=batch_id, state=status.state, phase=status.phase, requests=requests,
            answered=status.completed, failed=status.failed,
        ))

    def rate_limit(self, news: RateNews) -> None:
        """A judge's calls began to wait for its provider's rate limit."""
        self._put(event(EventType.RATE_LIMIT, rate_message(news.seconds, news.rate), 0, 0,
                        judge=news.judge, seconds=round(news.seconds, 3),
                        rate=round(news.rate, 3), limited=news.limited))

    def round_end(self, label: str, played: int, left: int | None, completed: int, total: int,
                  round_number: int, alone: int = 0, texts: int | None = None,
                  ranked: int = 0, **extra: Any) -> None:
        """A round (or a pipelined segment) ended; written even when nobody listens.

        `alone` of the `played` matches were texts scored alone (in the data when any), and
        scored `texts` texts (fewer than `alone` with pointwise repetitions).
        """
        scored = {"alone": alone, "texts": texts or alone} if alone else {}
        self._put(event(EventType.ROUND_END, round_message(label, played, left, alone, texts,
                                                                 ranked),
                        completed, total, round=round_number, matches=played, remaining=left,
                        **scored, **extra))


class QuietSink(EventSink):
    """The sink when nobody listens: no event of a match, a call or a note is built.

    A round's end is still written (one per round, and a stream that nobody reads drops it).
    """

    listening = False

    def match_start(self, items: Sequence[str], round_number: int, key: int, a: int, b: int,
                    completed: int, total: int) -> None:
        """Nothing: nobody listens."""

    def match_end(self, items: Sequence[str], round_number: int, key: int, log: list[Any],
                  journaled: Sequence[int], completed: int, total: int) -> None:
        """Nothing: nobody listens."""

    def ranking_call(self, items: Sequence[str], round_number: int, log: dict[str, Any],
                     journaled: bool, completed: int, total: int) -> None:
        """Nothing: nobody listens."""

    def notes(self, items: Sequence[str], notes: Sequence[Note], completed: int,
              total: int) -> None:
        """Nothing: nobody listens."""

    def batch(self, round_number: int, batch_id: str, requests: int,
              status: BatchStatus) -> None:
        """Nothing: nobody listens."""

    def rate_limit(self, news: RateNews) -> None:
        """Nothing: nobody listens."""


def event_sink(listening: bool, write: Emit | None = None) -> EventSink:
    """The sink of a run's events: one that builds them only if someone is `listening`."""
    return EventSink(write) if listening else QuietSink(write)


def _short(text: str) -> str:
    return repr(text[:30])


def _verdict(items: Sequence[str], a: int, b: int, winner: str | None) -> str:
    if winner is None:
        return f"draw: {_short(items[a])} = {_short(items[b])}"
    won, lost = (a, b) if winner == "A" else (b, a)
    return f"{_short(items[won])} beat {_short(items[lost])}"
