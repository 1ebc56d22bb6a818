"""Exception messages made safe to show: never raising, never megabytes long."""

from __future__ import annotations

# Characters of an exception's message shown in a failure message; a provider may put a
# whole response body (megabytes) in its exception.
MESSAGE_LIMIT = 2000


def cut(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text`, cut to `limit` characters with the cut said.

    Example:
        >>> cut("abcdef", 3)
        'abc… [3 more characters cut]'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"


def message_of(exc: BaseException) -> str:
    """`str(exc)`, or a note when that itself fails (a provider's broken `__str__`)."""
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - any failure of foreign code is shown, not raised
        try:
            why = f"{type(inner).__name__}: {inner}"
        except Exception:  # noqa: BLE001
            why = type(inner).__name__
        return f"<its message cannot be shown: str() raised {cut(why, 200)}>"


def describe(exc: BaseException) -> str:
    """The exception's type and message, cut to a sane length.

    Some exceptions (a bare `TimeoutError`) have no message; one whose `__str__` raises is
    named with that failure.
    """
    message = cut(" ".join(message_of(exc).split()))
    return f"{type(exc).__name__}: {message}" if message else f"{type(exc).__name__} (no message)"
