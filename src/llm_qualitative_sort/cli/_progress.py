"""Showing progress: a live bar on a terminal, one line per round otherwise."""

from __future__ import annotations

import sys
from typing import Protocol, TextIO

from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type hints

from llm_qualitative_sort.models import EventType, ProgressEvent


class Progress(Protocol):
    """Receives every event; `close` ends the display."""

    def __call__(self, event: ProgressEvent) -> None: ...  # noqa: D102

    def close(self) -> None: ...  # noqa: D102


def make_progress(mode: str, stream: TextIO | None = None) -> Progress:
    """The display for `mode`: "bar", "lines", "none", or "auto" (a bar on a terminal)."""
    out = stream or sys.stderr
    if mode == "auto":
        mode = "bar" if out.isatty() else "lines"
    if mode == "bar":
        return BarProgress(out)
    if mode == "lines":
        return LineProgress(out)
    return NoProgress()


class BarProgress:
    """A tqdm bar over matches; its total shrinks as the run learns more."""

    def __init__(self, stream: TextIO) -> None:
        self._bar = tqdm(total=0, unit="match", file=stream, dynamic_ncols=True, leave=True)

    def __call__(self, event: ProgressEvent) -> None:
        """Move the bar to the event's figures."""
        if event.type is EventType.BATCH:  # counts requests, not matches: postfix only
            self._bar.set_postfix_str(batch_text(event), refresh=True)
            return
        self._bar.total = event.total
        self._bar.n = event.completed
        if event.type is EventType.ROUND_END:
            self._bar.set_postfix_str(
                f"round {event.data['round']}, {event.data['remaining']} left", refresh=False
            )
        self._bar.refresh()

    def close(self) -> None:
        """Leave the finished bar on screen."""
        self._bar.close()


class LineProgress:
    """One line per finished round (and per batch state), for logs and pipes."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._batch_states: dict[str, str] = {}

    def __call__(self, event: ProgressEvent) -> None:
        """Print a line at the end of each round and when a batch changes state."""
        if event.type is EventType.BATCH:
            batch, state = str(event.data.get("batch_id")), str(event.data.get("state"))
            if self._batch_states.get(batch) != state:
                self._batch_states[batch] = state
                print(batch_text(event), file=self._stream, flush=True)
        if event.type is EventType.ROUND_END:
            print(f"{event.message} ({event.completed}/{event.total} matches)",
                  file=self._stream, flush=True)

    def close(self) -> None:
        """Nothing to close."""


class NoProgress:
    """Shows nothing."""

    def __call__(self, event: ProgressEvent) -> None:
        """Ignore the event."""

    def close(self) -> None:
        """Nothing to close."""


def batch_text(event: ProgressEvent) -> str:
    """A BATCH event in a few words: its round, state and counts."""
    data = event.data
    answered = data.get("answered")
    counts = (f"{answered}/{data.get('requests')} done" if answered is not None
              else f"{data.get('requests')} requests")
    return f"round {data.get('round')}: batch {data.get('state')}, {counts}"
