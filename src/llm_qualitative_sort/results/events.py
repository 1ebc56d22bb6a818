"""Progress events as plain dictionaries, written to LangGraph's custom stream.

Plain data so the same events travel over the LangGraph API server; the sorter turns them
into `ProgressEvent`s with `progress_event`.
"""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.models import EarlyStop, EventType, ProgressEvent
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


def plural(count: int, noun: str) -> str:
    """"1 match", "2 matches" (the nouns of progress messages take -es or -s).

    Example:
        >>> plural(1, "match"), plural(3, "match"), plural(2, "call")
        ('1 match', '3 matches', '2 calls')
    """
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('ch', 'sh', 's', 'x')) else 's'}"


def round_message(label: str, played: int, left: int | None) -> str:
    """"round 3: 8 matches, 14 left"; without `left` (no one eliminated) no count of players.

    An elimination run usually ends with its winner, "1 left". It ends with "0 left" when
    its last matches were draws between players on their last life: a draw costs both a
    loss, so no one is left standing, and the ranking then goes by wins alone (the
    message says so, lest "0 left" read as a miscount).

    Example:
        >>> round_message("round 5", 1, 0)
        'round 5: 1 match, 0 left (a draw eliminated the last players: ranked by wins)'
    """
    text = f"{label}: {plural(played, 'match')}"
    if left == 0:
        return f"{text}, 0 left (a draw eliminated the last players: ranked by wins)"
    return text if left is None else f"{text}, {left} left"


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
