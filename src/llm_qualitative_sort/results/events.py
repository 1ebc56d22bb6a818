"""Progress events as plain dictionaries, written to LangGraph's custom stream.

Plain data so the same events travel over the LangGraph API server; the sorter turns them
into `ProgressEvent`s with `progress_event`.
"""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.models import EventType, ProgressEvent
from llm_qualitative_sort.results.from_state import match_from_log


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


def progress_event(payload: dict[str, Any]) -> ProgressEvent:
    """The public event for a stream payload.

    A MATCH_END payload carries its match as stored (indices); the public event also gets
    it as a `MatchResult` under `data["match_result"]`, built from the texts the payload names.
    """
    data = dict(payload["data"])
    if payload["event"] == EventType.MATCH_END and "item_a" in data:
        _, _, winner, calls = data["result"]
        texts = [data["item_a"], data["item_b"]]
        data["match_result"] = match_from_log(texts, [0, 1, winner, calls], data.get("round", 0))
    return ProgressEvent(
        type=EventType(payload["event"]),
        message=payload["message"],
        completed=payload["completed"],
        total=payload["total"],
        data=data,
    )
