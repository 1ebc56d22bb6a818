"""A provider's `raw_response` made storable by every journal and cache, before it is counted.

The journals store it as MessagePack (SQLite) or JSON (PostgreSQL), the caches as JSON: plain
data with string keys, 64-bit integers, finite floats and a bounded depth. Anything else
(a non-string key, an integer beyond 64 bits, nesting hundreds deep, an object) is turned
into plain data here, so a journal write can never fail on an answer already paid for.
"""

from __future__ import annotations

import math
from typing import Any

from llm_qualitative_sort.errors import cut, message_of

# Deeper than this, a branch is replaced by a note: MessagePack encoders stop near 255, and
# a provider's answer has no business nesting further than a few levels.
MAX_DEPTH = 64
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
_TEXT_LIMIT = 10_000  # characters of an object's text kept in place of the object
_TOO_DEEP = f"<nested deeper than {MAX_DEPTH} levels: cut>"


def storable_raw(raw: dict[Any, Any]) -> dict[str, Any]:
    """`raw` as plain data every store can hold; `raw` itself when it already is.

    Example:
        >>> storable_raw({1: 2**70, "ok": [1.5, None]})
        {'1': '1180591620717411303424', 'ok': [1.5, None]}
    """
    if type(raw) is dict and _flat(raw):
        return raw
    if _plain(raw, 0):
        return raw
    converted = _convert(raw, 0)
    assert isinstance(converted, dict)
    return converted


def _flat(raw: dict[Any, Any]) -> bool:
    """Whether `raw` holds only string keys and plain scalars (the common answer: no walk)."""
    for key, value in raw.items():
        kind = type(value)
        if type(key) is not str:
            return False
        if kind is str or kind is bool or value is None:
            continue
        if kind is float:
            if value - value != 0.0:  # inf or nan
                return False
        elif kind is not int or not _INT_MIN <= value <= _INT_MAX:
            return False
    return True


def _plain(value: Any, depth: int) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(_INT_MIN <= value <= _INT_MAX)
    if kind is float:
        return math.isfinite(float(value))
    if depth >= MAX_DEPTH:
        return False
    if kind is dict:
        return all(type(key) is str and _plain(item, depth + 1) for key, item in value.items())
    if kind is list:
        return all(_plain(item, depth + 1) for item in value)
    return False


def _convert(value: Any, depth: int) -> Any:
    if _plain(value, depth):
        return value
    if isinstance(value, (dict, list, tuple)) and depth >= MAX_DEPTH:
        return _TOO_DEEP
    if isinstance(value, dict):
        return {_key(key): _convert(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_convert(item, depth + 1) for item in value]
    return _text(value)


def _key(key: Any) -> str:
    return key if isinstance(key, str) else _text(key)


def _text(value: Any) -> str:
    """An object's text in its place (the journals' former fallback, `default=str`)."""
    if isinstance(value, BaseException):
        return cut(message_of(value), _TEXT_LIMIT)
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a foreign object's broken __str__ is noted, not raised
        text = f"<{type(value).__name__} that cannot be shown>"
    return cut(text, _TEXT_LIMIT)
