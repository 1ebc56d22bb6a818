"""Showing progress: a live bar on a terminal, one line per round otherwise.

Both show the calls paid so far, their tokens and, with prices, their cost; and a retry or
a pause for the provider's rate limit as it happens ("waiting 4 s for the rate limit,
12 calls/s": a rate-limited run otherwise looks frozen while it waits).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from llm_qualitative_sort.cli._terminal import one_line
from llm_qualitative_sort.models import EarlyStop, EventType, ProgressEvent
from llm_qualitative_sort.results.events import plural

CostEstimate = Callable[[int, int], float | None]
RETRY_NOTE_SECONDS = 5.0  # at most one retry line this often: a 429 burst hits every call
# A round's line comes at its end; a long round (every call of a pointwise run is in one)
# says how far it got this often, so that a log shows the run is alive.
ROUND_NOTE_SECONDS = 30.0


class Tally:
    """Calls paid now, their tokens and cost, from the finished matches.

    A resumed run replays the calls its journal holds: they count apart (`journaled`),
    as they were paid for (or taken from the cache) before.
    """

    def __init__(self, estimate_cost: CostEstimate | None) -> None:
        self._estimate = estimate_cost
        self.calls = 0
        self.journaled = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.retries = 0
        self._limited: dict[str, int] = {}  # 429s met, per judge

    @property
    def limited(self) -> int:
        """429s the judges met so far."""
        return sum(self._limited.values())

    def add(self, event: ProgressEvent) -> None:
        """Count the paid calls of a finished match, and the 429s a rate pause reports."""
        if event.type is EventType.RATE_LIMIT:
            self._limited[str(event.data.get("judge"))] = int(event.data.get("limited", 0))
            return
        if event.type is EventType.RANKING_CALL:  # one call, its tokens once
            self._count(event.data, bool(event.data.get("journaled")))
            return
        match = event.data.get("match_result")
        if event.type is not EventType.MATCH_END or match is None:
            return
        replayed = set(event.data.get("journaled", ()))
        for number, call in enumerate(match.rounds):
            if number in replayed:
                self.journaled += 1
            elif not call.cached:
                self.calls += 1
                self.input_tokens += call.input_tokens
                self.output_tokens += call.output_tokens

    def _count(self, call: dict[str, Any], journaled: bool) -> None:
        if journaled:
            self.journaled += 1
        elif not call.get("cached"):
            self.calls += 1
            self.input_tokens += int(call.get("input_tokens", 0))
            self.output_tokens += int(call.get("output_tokens", 0))

    def describe(self) -> str:
        """"123 calls, 45.6k tokens, cost 0.0123, 2 retries" (what is known).

        With calls replayed from the journal: "12 calls paid now, 40 from the journal, …".
        """
        parts = [f"{plural(self.calls, 'call')}"]
        if self.journaled:
            parts = [f"{parts[0]} paid now", f"{self.journaled} from the journal"]
        tokens = self.input_tokens + self.output_tokens
        if tokens:
            parts.append(f"{_short(tokens)} tokens")
        cost = self._estimate(self.input_tokens, self.output_tokens) if self._estimate else None
        if cost is not None:
            parts.append(f"cost {cost:.4f}")
        if self.retries:
            parts.append(f"{self.retries} retries")
        if self.limited:
            parts.append(f"{self.limited} × 429")
        return ", ".join(parts)


class Progress:
    """Receives every event and every retry; `close` ends the display."""

    def __init__(self, stream: TextIO, estimate_cost: CostEstimate | None,
                 unit: str = "match", per_unit: int = 1) -> None:
        self.stream = stream
        self.tally = Tally(estimate_cost)
        # What the counts count: "match", "text" (a pointwise run: `per_unit` calls score a
        # text, one per repetition) or "judgement" (a Swiss run whose pre-pass scores texts).
        self.unit, self.per_unit = unit, max(per_unit, 1)
        self._last_note = -RETRY_NOTE_SECONDS
        self._last_rate_note = -RETRY_NOTE_SECONDS
        self.settling = ""  # a Swiss run that stops when settled: how sure its top K is

    def __call__(self, event: ProgressEvent) -> None:
        """Count and show one event."""
        self.tally.add(event)
        if event.type is EventType.STANDINGS:
            self.settling = _settling(event)
        self.show(event)

    def show(self, event: ProgressEvent) -> None:
        """Display the event (subclasses)."""

    def counted(self, event: ProgressEvent) -> tuple[int, int]:
        """The event's (completed, total) in units ("text": calls / repetitions)."""
        return event.completed // self.per_unit, event.total // self.per_unit

    def rate_pause(self, event: ProgressEvent) -> None:
        """A judge's calls wait for the rate limit: one line at most every few seconds."""
        now = time.monotonic()
        if now - self._last_rate_note >= RETRY_NOTE_SECONDS:
            self._last_rate_note = now
            self.note(event.message)

    def retrying(self, error: BaseException) -> None:
        """A call failed transiently and will be tried again."""
        self.tally.retries += 1
        now = time.monotonic()
        if now - self._last_note >= RETRY_NOTE_SECONDS:
            self._last_note = now
            text = one_line(str(error), 200) or type(error).__name__
            self.note(f"retrying ({self.tally.retries} so far): {text}")

    def note(self, text: str) -> None:
        """Print a line (it may quote a judge, a provider or an item: made safe to print)."""
        print(one_line(text, None), file=self.stream, flush=True)

    def close(self) -> None:
        """End the display."""


def make_progress(mode: str, estimate_cost: CostEstimate | None = None,
                  stream: TextIO | None = None, unit: str = "match",
                  per_unit: int = 1) -> Progress:
    """The display for `mode`: "bar", "lines", "none", or "auto" (a bar on a terminal).

    `unit`: what the counts count ("text" for a run that scores texts alone, each in
    `per_unit` calls; "judgement" for a Swiss run whose pre-pass scores texts first).
    """
    out = stream or sys.stderr
    if mode == "auto":
        mode = "bar" if out.isatty() else "lines"
    if mode == "bar":
        return BarProgress(out, estimate_cost, unit, per_unit)
    if mode == "lines":
        return LineProgress(out, estimate_cost, unit, per_unit)
    return NoProgress(out, estimate_cost)


class BarProgress(Progress):
    """A tqdm bar over matches; its total shrinks as the run learns more."""

    def __init__(self, stream: TextIO, estimate_cost: CostEstimate | None,
                 unit: str = "match", per_unit: int = 1) -> None:
        super().__init__(stream, estimate_cost, unit, per_unit)
        from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type hints

        self._tqdm = tqdm
        self._made: Any = None
        self._round = ""

    @property
    def _bar(self) -> Any:
        # Drawn at the first event, not before: the line that says the run started is
        # printed in between, and would land on the end of an empty bar.
        if self._made is None:
            self._made = self._tqdm(total=0, unit=self.unit, file=self.stream,
                                    dynamic_ncols=True, leave=True)
        return self._made

    def show(self, event: ProgressEvent) -> None:
        """Move the bar to the event's figures."""
        if event.type is EventType.BATCH:  # counts requests, not matches: postfix only
            self._bar.set_postfix_str(one_line(batch_text(event), None), refresh=True)
            return
        if event.type is EventType.RATE_LIMIT:  # counts no match: postfix only
            self._bar.set_postfix_str(
                one_line(f"{self._round}{event.message}; {self.tally.describe()}", None),
                refresh=True)
            return
        self._bar.total, self._bar.n = self.counted(event)[::-1]
        if event.type is EventType.ROUND_END:
            left = event.data.get("remaining")
            self._round = f"round {event.data['round']}, " + (
                "" if left is None else f"{left} left, ")
        self._bar.set_postfix_str(self._round + self.tally.describe() + self.settling,
                                  refresh=False)
        self._bar.refresh()
        early_stop(self, event)

    def note(self, text: str) -> None:
        """Print a line above the bar (made safe to print, as `Progress.note`)."""
        if self._made is None:
            print(one_line(text, None), file=self.stream, flush=True)
            return
        self._tqdm.write(one_line(text, None), file=self.stream)
        self._bar.set_postfix_str(self._round + self.tally.describe())

    def close(self) -> None:
        """Leave the finished bar on screen."""
        if self._made is not None:
            self._made.close()


class LineProgress(Progress):
    """One line per finished round (and per batch state), for logs and pipes."""

    def __init__(self, stream: TextIO, estimate_cost: CostEstimate | None,
                 unit: str = "match", per_unit: int = 1) -> None:
        super().__init__(stream, estimate_cost, unit, per_unit)
        self._batch_states: dict[str, str] = {}
        self._last_line = time.monotonic()

    def show(self, event: ProgressEvent) -> None:
        """Print a line at the end of each round and when a batch changes state."""
        if event.type is EventType.BATCH:
            batch, state = str(event.data.get("batch_id")), str(event.data.get("state"))
            if self._batch_states.get(batch) != state:
                self._batch_states[batch] = state
                self.note(batch_text(event))
        if event.type is EventType.RATE_LIMIT:
            self.rate_pause(event)
        if event.type is EventType.ROUND_END:
            self._last_line = time.monotonic()
            self.note(f"{event.message} ({self._count(event)}; "
                      f"{self.tally.describe()}){self.settling}")
        elif event.type is EventType.MATCH_END and time.monotonic() - self._last_line >= \
                ROUND_NOTE_SECONDS:
            self._last_line = time.monotonic()
            self.note(f"round {event.data.get('round')}: {self._count(event)} so far "
                      f"({self.tally.describe()})")
        early_stop(self, event)

    def _count(self, event: ProgressEvent) -> str:
        """"45/118 matches": the run's count so far, in its unit."""
        unit = self.unit
        # Without a unit given, a round of nothing but texts scored alone that ends the run
        # (a pointwise run) counts texts.
        if unit == "match" and event.data.get("alone") == event.data.get("matches") and (
                event.completed == event.total):
            unit = "text"
        done, total = self.counted(event)
        return f"{done}/{plural(total, unit)}"


class NoProgress(Progress):
    """Shows nothing."""

    def note(self, text: str) -> None:
        """Say nothing."""


def early_stop(progress: Progress, event: ProgressEvent) -> None:
    """Say so when the round that ends the run ended it before its budget."""
    stop = event.data.get("early_stop") if event.type is EventType.ROUND_END else None
    if isinstance(stop, EarlyStop):
        progress.note(stop.describe())


def _settling(event: ProgressEvent) -> str:
    """", top 5 expected 81 % right" from a STANDINGS event that has the share ("" if not)."""
    expected, top = event.data.get("expected"), event.data.get("top")
    if not isinstance(expected, float | int) or not isinstance(top, list):
        return ""
    return f", top {len(top)} expected {100 * expected:.0f} % right"


def _short(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1e6:.1f}M"
    return f"{count / 1e3:.1f}k" if count >= 1000 else str(count)


def batch_text(event: ProgressEvent) -> str:
    """A BATCH event in a few words: its round, state and counts."""
    data = event.data
    answered = data.get("answered")
    counts = (f"{answered}/{data.get('requests')} done" if answered is not None
              else f"{data.get('requests')} requests")
    return f"round {data.get('round')}: batch {data.get('state')}, {counts}"
