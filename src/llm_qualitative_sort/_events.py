"""Progress events as plain dictionaries, written to LangGraph's custom stream.

Plain data so the same events travel over the LangGraph API server; the sorter turns them
into `ProgressEvent`s.
"""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.models import EventType


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
